/*
 * dispatch.c -- one dispatch function per op (see dispatch.h): host operands through host.c, device
 * operands enqueued on their library's stream.  Both GEMMs share one device sequence (device_gemm):
 * placement, row-major copies of strided operands, output poisoning, the kernel, the copies freed
 * behind it on the same stream.
 */
#include "dispatch.h"

#include <string.h>

#include "api/gemm16.h"
#include "api/sgemm.h"
#include "api/transpose.h"
#include "host.h"
#include "layout.h"
#include "rules.h"

/* Check a device operand lives on the current device (the library's report, else the pointer's). */
static int check_device(const char *fname, const smk_operand *a, smk_error *err)
{
    int current = -1, dev = a->device;
    if (dev >= 0) {
        cudaError_t e = cudaGetDevice(&current);
        if (e != cudaSuccess)
            return smk_fail_status(err, smk_rt_fail(e, "cudaGetDevice"));
    } else {
        smk_status st = smk_rt_check_device_ptr(a->ptr, &dev, &current);
        if (st.code != SMK_OK && st.where && strcmp(st.where, "not device memory") == 0)
            return smk_fail(err, SMK_ERR_VALUE, "%s(): %s is not CUDA device memory", fname, a->arg);
        if (smk_fail_status(err, st))
            return -1;
    }
    if (dev != current)
        return smk_fail(err, SMK_ERR_VALUE,
                        "%s(): %s is on CUDA device %d but smemkit runs on device %d (the current device); make "
                        "device %d current first (cudaSetDevice / cupy.cuda.Device / torch.cuda.set_device)",
                        fname, a->arg, dev, current, dev);
    return 0;
}

int smk_check_placement(const char *fname, const smk_operand *const ops[], int n, smk_error *err)
{
    int i;
    for (i = 0; i < n; i++)
        if (ops[i] && ops[i]->on_device && smk_numel(ops[i]) != 0 && check_device(fname, ops[i], err) < 0)
            return -1;
    return 0;
}

/* The leading (batch) axes of a as one count and stride when they collapse into one: 1, else 0. */
static int collapse_batch(const smk_operand *a, int64_t *batch, int64_t *stride)
{
    int64_t n = 1, s = 0;
    int i, have = 0;
    for (i = a->ndim - 3; i >= 0; i--) { /* axis i must step over everything inside it */
        if (a->shape[i] == 1)
            continue;
        if (have && a->strides[i] != s * n)
            return 0;
        if (!have)
            s = a->strides[i];
        have = 1;
        n *= a->shape[i];
    }
    *batch = n;
    *stride = s;
    return 1;
}

/* Launch the transposes of every matrix of a device operand on its stream: one launch when the batch
 * axes collapse to one stride, else one per outer index. */
static int device_transpose(const char *fname, const smk_operand *in, const smk_operand *out,
                            smk_transpose_params p, smk_error *err)
{
    const cudaStream_t st = (cudaStream_t)in->stream;
    const int64_t per = p.rows * p.cols;
    int64_t batch = 1, bs = 0, idx[SMK_MAX_NDIM] = {0}, total = smk_numel(in) / (per ? per : 1), done = 0;
    int i;
    if (in->ndim > 2 && collapse_batch(in, &batch, &bs)) {
        p.batch = batch;
        p.in_bs = bs;
        return smk_fail_status(err, smk_rt_check_launch(smk_transpose_launch(&p, st), "launching the transpose kernel"));
    }
    p.batch = 1; /* one matrix per launch from here on */
    for (done = 0; done < total; done++) { /* odometer over the batch axes */
        int64_t off = 0;
        for (i = 0; i < in->ndim - 2; i++)
            off += idx[i] * in->strides[i];
        p.in = (const char *)in->ptr + off * in->esz;
        p.out = (char *)out->ptr + done * per * in->esz;
        if (smk_fail_status(err, smk_rt_check_launch(smk_transpose_launch(&p, st), "launching the transpose kernel")))
            return -1;
        for (i = in->ndim - 3; i >= 0 && ++idx[i] == in->shape[i]; i--)
            idx[i] = 0;
    }
    (void)fname;
    return 0;
}

int smk_run_transpose(const char *fname, const smk_operand *in, const smk_operand *out, int layout, smk_error *err)
{
    smk_transpose_params p;
    const int nd = in->ndim;
    memset(&p, 0, sizeof p);
    p.rows = in->shape[nd - 2];
    p.cols = in->shape[nd - 1];
    p.esz = in->esz;
    p.layout = layout;
    p.in = in->ptr;
    p.out = out->ptr;
    p.batch = (p.rows > 0 && p.cols > 0) ? smk_numel(in) / (p.rows * p.cols) : 1;
    p.in_bs = p.rows * p.cols;
    if (smk_numel(in) == 0)
        return 0;
    if (!in->on_device) { /* contiguous: C order (any ndim) or Fortran order (2-D) */
        p.in_rs = in->contiguous == 2 ? 1 : p.cols;
        p.in_cs = in->contiguous == 2 ? p.rows : 1;
        return smk_fail_status(err, smk_host_transpose(p, smk_bytes_of(smk_numel(in), in->esz)));
    }
    if (check_device(fname, in, err) < 0 || check_device(fname, out, err) < 0)
        return -1;
    p.in_rs = in->strides[nd - 2];
    p.in_cs = in->strides[nd - 1];
    if (smk_fail_status(err, smk_rt_poison_on(out->ptr, smk_bytes_of(smk_numel(out), out->esz),
                                              (cudaStream_t)in->stream)))
        return -1;
    return device_transpose(fname, in, out, p, err);
}

/* ---- the GEMMs -------------------------------------------------------------------------------------- */

/* A row-major view (unit column stride, row stride >= cols) of device operand x: x itself, or a
 * copy made on x's stream by the transpose kernel of the stride-swapped view. */
static int device_rowmajor(const smk_operand *x, const void **ptr, int64_t *ld, void **tmp, smk_error *err)
{
    const int64_t rows = x->shape[0], cols = x->shape[1], rs = x->strides[0], cs = x->strides[1];
    const cudaStream_t st = (cudaStream_t)x->stream;
    const size_t copy = smk_rowmajor_copy_bytes(x, ld);
    smk_transpose_params p;
    *tmp = NULL;
    *ptr = x->ptr;
    if (copy == 0)
        return 0;
    if (smk_fail_status(err, smk_rt_alloc_on(tmp, copy, st)))
        return -1;
    memset(&p, 0, sizeof p);
    p.in = x->ptr;
    p.out = *tmp;
    p.rows = cols; /* the transpose of the stride-swapped view is x in row-major order */
    p.cols = rows;
    p.in_rs = cs;
    p.in_cs = rs;
    p.esz = x->esz;
    p.layout = SMK_SWIZZLE;
    *ptr = *tmp;
    *ld = cols;
    return smk_fail_status(err, smk_rt_check_launch(smk_transpose_launch(&p, st), "copying an operand on the device"));
}

/* Where a device GEMM kernel reads and writes: A, B, C (NULL when not read) row-major, and the
 * leading dimensions lda, ldb, ldc, ldd in elements. */
typedef struct {
    const void *ptr[3];
    int64_t ld[4];
} gemm_operands;

/* Enqueue one GEMM kernel (params: its smk_*_params, D and the sizes set) on g's operands. */
typedef int (*gemm_launch_fn)(const void *params, const gemm_operands *g, cudaStream_t stream);

/* THE device GEMM sequence: every operand on the current device, row-major copies of the strided
 * ones (ops[i] NULL: not read), the output poisoned when tests ask, the kernel, then the copies freed
 * behind it on the result's stream (stream-ordered: after the kernel that reads them). */
static int device_gemm(const char *fname, const smk_operand *const ops[3], const smk_operand *d, int64_t M, int64_t N,
                       gemm_launch_fn launch, const void *params, const char *what, smk_error *err)
{
    void *tmp[3] = {NULL, NULL, NULL};
    gemm_operands g = {{NULL, NULL, NULL}, {1, 1, 1, 1}};
    const cudaStream_t st = (cudaStream_t)d->stream;
    int i, rc = 0;
    for (i = 0; i < 4 && rc == 0; i++)
        rc = check_device(fname, i < 3 && ops[i] ? ops[i] : d, err);
    for (i = 0; i < 3 && rc == 0; i++)
        if (ops[i])
            rc = device_rowmajor(ops[i], &g.ptr[i], &g.ld[i], &tmp[i], err);
    /* tests' poisoning of D, except when D is C (out=c): that would poison C's values before they are read */
    if (rc == 0 && !(ops[2] && ops[2]->ptr == d->ptr))
        rc = smk_fail_status(err, smk_rt_poison_on(d->ptr, smk_bytes_of(M * N, d->esz), st));
    if (rc == 0) {
        g.ld[2] = g.ld[2] > N ? g.ld[2] : (N > 1 ? N : 1);
        g.ld[3] = N > 1 ? N : 1;
        rc = smk_fail_status(err, smk_rt_check_launch(launch(params, &g, st), what));
    }
    for (i = 0; i < 3; i++)
        smk_rt_free_on(tmp[i], st);
    return rc;
}

static int launch_sgemm(const void *params, const gemm_operands *g, cudaStream_t stream)
{
    smk_sgemm_params p = *(const smk_sgemm_params *)params;
    p.A = (const float *)g->ptr[0], p.B = (const float *)g->ptr[1], p.C = (const float *)g->ptr[2];
    p.lda = g->ld[0], p.ldb = g->ld[1], p.ldc = g->ld[2], p.ldd = g->ld[3];
    return smk_sgemm_launch(&p, stream);
}

static int launch_gemm16(const void *params, const gemm_operands *g, cudaStream_t stream)
{
    smk_gemm16_params p = *(const smk_gemm16_params *)params;
    p.A = g->ptr[0], p.B = g->ptr[1], p.C = g->ptr[2];
    p.lda = g->ld[0], p.ldb = g->ld[1], p.ldc = g->ld[2], p.ldd = g->ld[3];
    return smk_gemm16_launch(&p, stream);
}

/* The operands a GEMM reads: a and b unless K == 0, c only when beta != 0 (BLAS). */
static void gemm_reads(const smk_operand *a, const smk_operand *b, const smk_operand *c, const smk_gemm_opts *o,
                       const smk_operand *ops[3])
{
    ops[0] = a->shape[1] ? a : NULL;
    ops[1] = a->shape[1] ? b : NULL;
    ops[2] = c && o->beta != 0.0 ? c : NULL;
}

/* The BLAS fields both GEMMs' params structs share (smk_sgemm_params, smk_gemm16_params), from the
 * operands and options: one place for the shape and scalars of D = alpha * A @ B + beta * C. */
#define SMK_GEMM_PARAMS(p, a, b, o)                                                                       \
    do {                                                                                                 \
        memset(&(p), 0, sizeof(p));                                                                      \
        (p).M = (a)->shape[0];                                                                           \
        (p).K = (a)->shape[1];                                                                           \
        (p).N = (b)->shape[1];                                                                           \
        (p).alpha = (float)(o)->alpha;                                                                   \
        (p).beta = (float)(o)->beta;                                                                     \
        (p).layout = (o)->layout;                                                                        \
    } while (0)

int smk_run_sgemm(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                  const smk_operand *d, const smk_gemm_opts *o, smk_error *err)
{
    const smk_operand *ops[3];
    smk_sgemm_params p;
    gemm_reads(a, b, c, o, ops);
    SMK_GEMM_PARAMS(p, a, b, o);
    p.config = o->config;
    p.splits = o->splits;
    p.D = (float *)d->ptr;
    if (p.M == 0 || p.N == 0)
        return 0;
    if (d->on_device)
        return device_gemm(fname, ops, d, p.M, p.N, launch_sgemm, &p, "launching the SGEMM kernel", err);
    p.A = (const float *)a->ptr;
    p.B = (const float *)b->ptr;
    p.C = ops[2] ? (const float *)c->ptr : NULL;
    return smk_fail_status(err, smk_host_sgemm(p));
}

int smk_run_gemm16(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                   const smk_operand *d, const smk_gemm_opts *o, smk_error *err)
{
    const smk_operand *ops[3];
    smk_gemm16_params p;
    gemm_reads(a, b, c, o, ops);
    SMK_GEMM_PARAMS(p, a, b, o);
    p.dtype = a->dtype == SMK_DT_BF16;
    p.out_f32 = smk_gemm_out_dtype(a, o) == SMK_DT_F32;
    p.swz_b = o->swz_b, p.swz_m = o->swz_m, p.swz_s = o->swz_s;
    p.variant = o->config;
    p.D = d->ptr;
    if (p.M == 0 || p.N == 0)
        return 0;
    if (d->on_device)
        return device_gemm(fname, ops, d, p.M, p.N, launch_gemm16, &p, "launching the tensor-core GEMM", err);
    p.A = a->ptr, p.B = b->ptr, p.C = ops[2] ? c->ptr : NULL;
    return smk_fail_status(err, smk_host_gemm16(p));
}
