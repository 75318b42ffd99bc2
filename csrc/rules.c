/*
 * rules.c -- what every op accepts and what a call costs (see rules.h): the checks, out=, the bytes a
 * call needs and whether they fit.  A NumPy array and a CuPy array meet the same checks, in the same
 * order, with the same messages; nothing here touches the device.
 */
#include "rules.h"

#include <stdio.h>
#include <string.h>

#include "api/gemm16.h"
#include "api/sgemm.h"
#include "api/transpose.h"
#include "host.h"

int smk_check_fits(const char *fname, size_t host_bytes, size_t device_bytes, size_t device_free, smk_error *err)
{
    const size_t phys = smk_host_physical_bytes();
    if (phys && host_bytes > phys)
        return smk_fail(err, SMK_ERR_MEMORY,
                        "%s(): needs %zu bytes of host memory (result and staging copies) but this machine has "
                        "%zu bytes in all; refused before allocating anything",
                        fname, host_bytes, phys);
    if (device_free && device_bytes > device_free)
        return smk_fail(err, SMK_ERR_MEMORY,
                        "%s(): needs %zu bytes of device memory but only %zu bytes are free on the GPU; refused "
                        "before allocating anything",
                        fname, device_bytes, device_free);
    return 0;
}

/* ---- out= ------------------------------------------------------------------------------------------ */

/* [lo, hi) byte range an operand's elements span (empty arrays span nothing). */
static void byte_range(const smk_operand *a, uintptr_t *lo, uintptr_t *hi)
{
    intptr_t first = 0, last = 0;
    int i;
    *lo = *hi = (uintptr_t)a->ptr;
    if (smk_numel(a) <= 0)
        return;
    for (i = 0; i < a->ndim; i++) {
        const intptr_t span = (intptr_t)(a->shape[i] - 1) * (intptr_t)a->strides[i] * a->esz;
        if (span < 0)
            first += span;
        else
            last += span;
    }
    *lo = (uintptr_t)((intptr_t)a->ptr + first);
    *hi = (uintptr_t)((intptr_t)a->ptr + last + a->esz);
}

static int same_array(const smk_operand *a, const smk_operand *b)
{
    int i;
    if (a->ptr != b->ptr || a->ndim != b->ndim || a->esz != b->esz)
        return 0;
    for (i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i] || (a->shape[i] > 1 && a->strides[i] != b->strides[i]))
            return 0;
    return 1;
}

int smk_check_out(const char *fname, const smk_operand *out, const smk_operand *like, int ndim, const int64_t *shape,
                  int dtype, int esz, const char *dtype_name, const smk_operand *const *ins, int n,
                  const smk_operand *may_alias, smk_error *err)
{
    char got[96], want[96];
    smk_operand w = *out;
    uintptr_t lo, hi, ilo, ihi;
    int i;
    w.ndim = ndim;
    for (i = 0; i < ndim; i++)
        w.shape[i] = shape[i];
    if (out->on_device != like->on_device)
        return smk_fail(err, SMK_ERR_TYPE, "%s(): out is %s but the inputs are %s; pass out on the same side",
                        fname, out->on_device ? "on the GPU" : "in host memory", like->on_device ? "on the GPU" :
                        "in host memory");
    if (out->ndim != ndim || memcmp(out->shape, shape, sizeof *shape * (size_t)ndim) != 0)
        return smk_fail(err, SMK_ERR_VALUE, "%s(): out has shape %s; the result has shape %s", fname,
                        smk_shape_str(out, got, sizeof got), smk_shape_str(&w, want, sizeof want));
    if (out->esz != esz || out->dtype != dtype || !out->native || (dtype == SMK_DT_OTHER && out->kind != like->kind))
        return smk_fail(err, SMK_ERR_TYPE, "%s(): out has dtype %s; the result's dtype is %s (nothing is cast "
                        "silently)", fname, out->dtype_name, dtype_name);
    if (out->contiguous != 1 && !(ndim == 2 && (shape[0] <= 1 || shape[1] <= 1) && out->contiguous))
        return smk_fail(err, SMK_ERR_VALUE, "%s(): out must be C-contiguous (and aligned)", fname);
    if (!out->writeable)
        return smk_fail(err, SMK_ERR_VALUE, "%s(): out is read-only", fname);
    if (out->on_device && out->device >= 0 && like->device >= 0 && out->device != like->device)
        return smk_fail(err, SMK_ERR_VALUE, "%s(): out is on cuda:%d but the inputs are on cuda:%d; put them on "
                        "one device", fname, out->device, like->device);
    byte_range(out, &lo, &hi);
    for (i = 0; i < n; i++) {
        if (!ins[i] || (may_alias == ins[i] && same_array(ins[i], out)))
            continue;
        byte_range(ins[i], &ilo, &ihi);
        if (ilo < hi && lo < ihi)
            return smk_fail(err, SMK_ERR_VALUE, "%s(): out shares memory with %s; the result would overwrite the "
                            "input while it is read (pass a separate out)%s", fname, ins[i]->arg,
                            may_alias == ins[i] ? " -- out may be c itself, not a view overlapping it" : "");
    }
    return 0;
}

/* ---- transpose ---------------------------------------------------------------------------------- */

static int transpose_dtype_ok(const smk_operand *a)
{
    const int numeric = strchr("biufc", a->kind) != NULL || a->dtype == SMK_DT_BF16;
    return a->kind != '\0' && numeric && smk_transpose_supports(a->esz);
}

int smk_check_transpose(const char *fname, const smk_operand *a, int batched, smk_error *err)
{
    char shape[96];
    if (!batched && a->ndim != 2)
        return smk_fail(err, SMK_ERR_VALUE,
                        "%s(): a must be 2-D; got a %d-D array of shape %s%s", fname, a->ndim,
                        smk_shape_str(a, shape, sizeof shape),
                        a->ndim > 2 ? " (for stacks of matrices use smemkit.matrix_transpose, which swaps the last "
                                      "two axes)" : "");
    if (batched && a->ndim < 2)
        return smk_fail(err, SMK_ERR_VALUE, "%s(): a must have at least 2 dimensions; got shape %s", fname,
                        smk_shape_str(a, shape, sizeof shape));
    if (!transpose_dtype_ok(a)) {
        char sup[160] = "";
        static const struct { int esz; const char *names; } kSizes[] = {
            {1, "bool, int8, uint8"}, {2, "int16, uint16, float16, bfloat16"},
            {4, "int32, uint32, float32"}, {8, "int64, uint64, float64, complex64"}, {16, "complex128"}};
        size_t i, used = 0;
        for (i = 0; i < sizeof kSizes / sizeof kSizes[0]; i++)
            if (smk_transpose_supports(kSizes[i].esz))
                used += (size_t)snprintf(sup + used, sizeof sup - used, "%s%s", used ? ", " : "", kSizes[i].names);
        return smk_fail(err, SMK_ERR_TYPE, "%s(): unsupported dtype %s; supported: %s (elements move bitwise)", fname,
                        a->dtype_name, sup);
    }
    if (a->on_device && !a->native)
        return smk_fail(err, SMK_ERR_TYPE, "%s(): a has non-native byte order (%s) on the device", fname,
                        a->dtype_name);
    if (smk_numel(a) < 0 || smk_bytes_of(smk_numel(a), a->esz) > ((size_t)1 << 62))
        return smk_fail(err, SMK_ERR_VALUE, "%s(): a of shape %s has more elements than any memory holds", fname,
                        smk_shape_str(a, shape, sizeof shape));
    return 0;
}

void smk_transpose_out_shape(const smk_operand *a, int64_t *shape)
{
    int i;
    for (i = 0; i < a->ndim; i++)
        shape[i] = a->shape[i];
    shape[a->ndim - 2] = a->shape[a->ndim - 1];
    shape[a->ndim - 1] = a->shape[a->ndim - 2];
}

void smk_need_transpose(const smk_operand *a, int have_out, size_t *host_bytes, size_t *device_bytes)
{
    const size_t bytes = smk_bytes_of(smk_numel(a), a->esz);
    *host_bytes = a->on_device ? 0 : smk_add_sat(have_out ? 0 : bytes, a->contiguous ? 0 : bytes);
    /* device operands: no temporaries (the result is the library's) */
    *device_bytes = a->on_device ? 0 : smk_add_sat(bytes, bytes);
}

/* ---- sgemm ---------------------------------------------------------------------------------------- */

static const char *side(const smk_operand *x) { return x->on_device ? "on the GPU" : "in host memory (NumPy)"; }

/* Operands on different GPUs: one error naming every operand's device ("a on cuda:0, b on cuda:1"). */
static int mixed_devices(const char *fname, const smk_operand *const ops[], int n, smk_error *err)
{
    char list[256] = "";
    size_t used = 0;
    int i;
    for (i = 0; i < n && used < sizeof list; i++)
        if (ops[i])
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s on cuda:%d", used ? ", " : "",
                                     ops[i]->arg, ops[i]->device);
    return smk_fail(err, SMK_ERR_VALUE, "%s(): operands on different devices (%s); put them on one device "
                    "(x.to(device) / cupy.asarray under cupy.cuda.Device(n))", fname, list);
}

static int check_same_place(const char *fname, const smk_operand *const ops[], int n, smk_error *err)
{
    static const char *const kLib[] = {"NumPy", "PyTorch", "CuPy", "a __cuda_array_interface__ producer"};
    int i;
    for (i = 1; i < n; i++) {
        const smk_operand *x = ops[i], *a = ops[0];
        if (!x)
            continue;
        if (x->on_device != a->on_device)
            return smk_fail(err, SMK_ERR_TYPE,
                            "%s(): %s is %s but %s is %s; pass all operands on one side (move the host array with "
                            "torch.as_tensor(x, device='cuda') / cupy.asarray(x), or the device one to NumPy)",
                            fname, a->arg, side(a), x->arg, side(x));
        if (x->lib != a->lib)
            return smk_fail(err, SMK_ERR_TYPE, "%s(): %s comes from %s but %s from %s; pass arrays of one library",
                            fname, x->arg, kLib[x->lib], a->arg, kLib[a->lib]);
        if (x->on_device && x->device >= 0 && a->device >= 0 && x->device != a->device)
            return mixed_devices(fname, ops, n, err);
    }
    return 0;
}

/* The shape rules both GEMMs share: inner dimensions, c's shape, beta needs c, 32-bit indexing. */
static int check_gemm_shapes(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                             const smk_gemm_opts *o, smk_error *err)
{
    char s1[96], s2[96];
    if (a->shape[1] != b->shape[0])
        return smk_fail(err, SMK_ERR_VALUE,
                        "%s(): inner dimensions differ: a has shape %s and b has shape %s (a.shape[1] must equal "
                        "b.shape[0])", fname, smk_shape_str(a, s1, sizeof s1), smk_shape_str(b, s2, sizeof s2));
    if (c && (c->shape[0] != a->shape[0] || c->shape[1] != b->shape[1]))
        return smk_fail(err, SMK_ERR_VALUE, "%s(): c has shape %s; expected (%lld, %lld) = (a.shape[0], b.shape[1])",
                        fname, smk_shape_str(c, s1, sizeof s1), (long long)a->shape[0], (long long)b->shape[1]);
    if (o->beta != 0.0 && !c)
        return smk_fail(err, SMK_ERR_VALUE, "%s(): beta != 0 needs c (the matrix that beta scales)", fname);
    if (a->shape[0] > INT32_MAX - 256 || b->shape[1] > INT32_MAX - 256 || a->shape[1] > INT32_MAX - 256)
        return smk_fail(err, SMK_ERR_VALUE, "%s(): M, N and K must each be at most 2**31 - 257; got M=%lld, N=%lld, "
                        "K=%lld", fname, (long long)a->shape[0], (long long)b->shape[1], (long long)a->shape[1]);
    return 0;
}

int smk_check_sgemm(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                    const smk_gemm_opts *o, smk_error *err)
{
    const smk_operand *const ops[3] = {a, b, c};
    char s1[96];
    int i;
    for (i = 0; i < 3; i++) {
        const smk_operand *x = ops[i];
        if (!x)
            continue;
        if (x->ndim != 2)
            return smk_fail(err, SMK_ERR_VALUE, "%s(): %s must be 2-D; got a %d-D array of shape %s", fname, x->arg,
                            x->ndim, smk_shape_str(x, s1, sizeof s1));
    }
    for (i = 0; i < 3; i++)
        if (ops[i] && (ops[i]->dtype != SMK_DT_F32 || (ops[i]->on_device && !ops[i]->native)))
            return smk_fail(err, SMK_ERR_TYPE,
                            "%s(): %s has dtype %s; sgemm computes in float32 only -- pass float32 arrays (e.g. "
                            "%s.astype(numpy.float32)); nothing is converted silently",
                            fname, ops[i]->arg, ops[i]->dtype_name, ops[i]->arg);
    if (check_same_place(fname, ops, 3, err) < 0)
        return -1;
    if (check_gemm_shapes(fname, a, b, c, o, err) < 0)
        return -1;
    if (o->config < 0 || o->config >= smk_sgemm_num_configs())
        return smk_fail(err, SMK_ERR_VALUE, "%s(): no SGEMM tile config %d", fname, o->config);
    if (o->splits < 0)
        return smk_fail(err, SMK_ERR_VALUE, "%s(): SGEMM K splits must be >= 0 (0: chosen); got %d", fname, o->splits);
    return 0;
}

/* See rules.h; dispatch.c makes the copy this counts (device_rowmajor). */
size_t smk_rowmajor_copy_bytes(const smk_operand *x, int64_t *ld)
{
    const int64_t rows = x->shape[0], cols = x->shape[1], rs = x->strides[0], cs = x->strides[1];
    *ld = cols > 1 ? cols : 1;
    if (rows == 0 || cols == 0)
        return 0;
    if ((cs == 1 || cols == 1) && (rs >= cols || rows == 1) && rs > 0) {
        *ld = rows > 1 ? (rs > cols ? rs : cols) : cols;
        return 0;
    }
    return smk_bytes_of(smk_numel(x), x->esz);
}

void smk_need_sgemm(const smk_operand *a, const smk_operand *b, const smk_operand *c, const smk_gemm_opts *o,
                    int have_out, size_t *host_bytes, size_t *device_bytes)
{
    const int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
    const int use_c = c && o->beta != 0.0;
    const smk_operand *const ops[3] = {a, b, use_c ? c : NULL};
    size_t host = have_out ? 0 : smk_bytes_of(M * N, 4), dev = 0;
    int i;
    for (i = 0; i < 3; i++) /* a staging copy of every host operand that is not C-contiguous float32 */
        if (ops[i] && !ops[i]->on_device && (ops[i]->contiguous != 1 || !ops[i]->native))
            host = smk_add_sat(host, smk_bytes_of(smk_numel(ops[i]), 4));
    if (!a->on_device) {
        dev = smk_host_sgemm_device_bytes(M, N, K, use_c);
    } else { /* the temporaries: copies of operands that are not row-major (the result is the caller's library's) */
        int64_t ld;
        for (i = 0; i < 3; i++)
            if (ops[i] && (K > 0 || i == 2))
                dev = smk_add_sat(dev, smk_rowmajor_copy_bytes(ops[i], &ld));
        host = 0;
    }
    *host_bytes = host;
    *device_bytes = dev;
}

/* ---- gemm on float16 / bfloat16 ----------------------------------------------------------------------- */

static const char *dt_name(int dt) { return dt == SMK_DT_F32 ? "float32" : dt == SMK_DT_F16 ? "float16" : "bfloat16"; }

int smk_gemm_out_dtype(const smk_operand *a, const smk_gemm_opts *o)
{
    return o->out_dtype == SMK_DT_OTHER ? a->dtype : o->out_dtype;
}

int smk_check_gemm16(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                     const smk_gemm_opts *o, smk_error *err)
{
    const smk_operand *const ops[3] = {a, b, c};
    const int od = smk_gemm_out_dtype(a, o);
    char s1[96];
    int i;
    for (i = 0; i < 3; i++)
        if (ops[i] && ops[i]->ndim != 2)
            return smk_fail(err, SMK_ERR_VALUE, "%s(): %s must be 2-D; got a %d-D array of shape %s", fname,
                            ops[i]->arg, ops[i]->ndim, smk_shape_str(ops[i], s1, sizeof s1));
    if (b->dtype != a->dtype || (b->on_device && !b->native) || (a->on_device && !a->native))
        return smk_fail(err, SMK_ERR_TYPE, "%s(): a is %s but b is %s; pass a and b of one dtype (float16, "
                        "bfloat16 or float32): nothing is converted silently", fname, a->dtype_name, b->dtype_name);
    if (od != a->dtype && od != SMK_DT_F32)
        return smk_fail(err, SMK_ERR_TYPE, "%s(): out_dtype must be None, float32 or the inputs' dtype (%s)", fname,
                        dt_name(a->dtype));
    if (c && (c->dtype != od || (c->on_device && !c->native)))
        return smk_fail(err, SMK_ERR_TYPE, "%s(): c has dtype %s; with %s inputs and out_dtype %s, c must be %s "
                        "(it is read in the result's dtype; nothing is converted silently)", fname, c->dtype_name,
                        dt_name(a->dtype), dt_name(od), dt_name(od));
    if (check_same_place(fname, ops, 3, err) < 0)
        return -1;
    if (check_gemm_shapes(fname, a, b, c, o, err) < 0)
        return -1;
    if (o->config < 0 || o->config >= smk_gemm16_num_variants())
        return smk_fail(err, SMK_ERR_VALUE, "%s(): no tensor-core GEMM tile config %d", fname, o->config);
    return 0;
}

void smk_need_gemm16(const smk_operand *a, const smk_operand *b, const smk_operand *c, const smk_gemm_opts *o,
                     int have_out, size_t *host_bytes, size_t *device_bytes)
{
    const int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
    const int oesz = smk_gemm_out_dtype(a, o) == SMK_DT_F32 ? 4 : 2, use_c = c && o->beta != 0.0;
    const smk_operand *const ops[3] = {a, b, use_c ? c : NULL};
    size_t host = have_out ? 0 : smk_bytes_of(M * N, oesz), dev = 0;
    int i;
    for (i = 0; i < 3; i++)
        if (ops[i] && !ops[i]->on_device && (ops[i]->contiguous != 1 || !ops[i]->native))
            host = smk_add_sat(host, smk_bytes_of(smk_numel(ops[i]), ops[i]->esz));
    if (!a->on_device) {
        /* the device copies (rows padded to 16 bytes), then what the launcher borrows: a split's workspace */
        dev = smk_host_gemm16_device_bytes(M, N, K, oesz, use_c);
        dev = smk_add_sat(dev, smk_gemm16_temp_bytes_shape(M, N, o->alpha != 0.0 ? K : 0, o->config, 1, 1,
                                                           smk_gemm16_device_sms()));
    } else { /* the temporaries (the result is the caller's library's): copies of operands that are not
              * row-major, then the launcher's padded copies of rows that do not start on 16 bytes and its split-K workspace */
        int aligned[2] = {1, 1};
        for (i = 0; i < 3; i++) {
            int64_t ld = 1;
            size_t copy = 0;
            if (!ops[i] || (K == 0 && i < 2))
                continue;
            dev = smk_add_sat(dev, copy = smk_rowmajor_copy_bytes(ops[i], &ld));
            if (i < 2) /* a copy is the allocator's: its base is aligned */
                aligned[i] = (copy ? 0 : (uintptr_t)ops[i]->ptr % 16) == 0 && ld % 8 == 0;
        }
        dev = smk_add_sat(dev, smk_gemm16_temp_bytes_shape(M, N, o->alpha != 0.0 ? K : 0, o->config, aligned[0],
                                                           aligned[1], smk_gemm16_device_sms()));
        host = 0;
    }
    *host_bytes = host;
    *device_bytes = dev;
}
