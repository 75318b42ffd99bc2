/*
 * operand.c -- the plain operand description's helpers (see operand.h): errors, shapes for messages,
 * element and byte counts.  Everything above (rules.c, dispatch.c, the bindings) builds on these.
 */
#include "operand.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int smk_fail(smk_error *err, int type, const char *fmt, ...)
{
    va_list ap;
    err->type = type;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int smk_fail_status(smk_error *err, smk_status s)
{
    if (s.code == SMK_OK)
        return 0;
    err->type = SMK_ERR_STATUS;
    err->status = s;
    err->msg[0] = '\0';
    return -1;
}

const char *smk_shape_str(const smk_operand *a, char *buf, size_t n)
{
    size_t used = 0;
    int i;
    used += (size_t)snprintf(buf, n, "(");
    for (i = 0; i < a->ndim && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, i ? ", %lld" : "%lld", (long long)a->shape[i]);
    if (used < n)
        snprintf(buf + used, n - used, a->ndim == 1 ? ",)" : ")");
    return buf;
}

int64_t smk_numel(const smk_operand *a)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 0)
            return 0;
    }
    for (i = 0; i < a->ndim; i++) {
        if (a->shape[i] > INT64_MAX / n)
            return -1;
        n *= a->shape[i];
    }
    return n;
}

size_t smk_bytes_of(int64_t n, int esz)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX / (uint64_t)esz)
        return SIZE_MAX;
    return (size_t)n * (size_t)esz;
}

size_t smk_add_sat(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
