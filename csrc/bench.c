/*
 * bench.c -- the one timing path (see bench.h): a table of launchers over device-resident random
 * data, timed by one event loop.  Everything a benchmark reports is reproducible with
 * smemkit.bench(), which is a thin conversion layer over smk_bench_run.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#include "api/gemm16.h"
#include "api/sgemm.h"
#include "api/transpose.h"
#include "api/wgmma.h"
#include "ceiling.h"
#include "layout.h"

static smk_status ok(void)
{
    smk_status s = {SMK_OK, 0, 0, NULL};
    return s;
}

/* ---- the kernels a run can time ---------------------------------------------------------------- */

typedef struct {
    smk_transpose_params p;
    int variant;
} transpose_timed;

static int launch_transpose(void *ctx, cudaStream_t s)
{
    transpose_timed *t = (transpose_timed *)ctx;
    return smk_transpose_launch_variant(&t->p, t->variant, s);
}

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} copy_timed;

static int launch_copy(void *ctx, cudaStream_t s)
{
    copy_timed *c = (copy_timed *)ctx;
    return (int)cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s);
}

typedef struct {
    smk_sgemm_params p;
    int cublas;
} sgemm_timed;

static int launch_sgemm(void *ctx, cudaStream_t s)
{
    sgemm_timed *t = (sgemm_timed *)ctx;
    if (t->cublas) {
        int rc = smk_cublas_sgemm(&t->p, s);
        return rc == 0 ? (int)cudaGetLastError() : (int)cudaErrorUnknown;
    }
    return smk_sgemm_launch(&t->p, s);
}

typedef struct {
    smk_gemm16_params p;
    int cublas;
} gemm16_timed;

static int launch_gemm16(void *ctx, cudaStream_t s)
{
    gemm16_timed *t = (gemm16_timed *)ctx;
    if (t->cublas) {
        int rc = smk_cublas_gemm16(&t->p, s);
        return rc == 0 ? (int)cudaGetLastError() : (int)cudaErrorUnknown;
    }
    return smk_gemm16_launch(&t->p, s);
}

/* ---- data ---------------------------------------------------------------------------------------- */

/* x in [-1, 1) as fp16 (mode 2) or bf16 (mode 3) bits, two per 32-bit word. */
static uint32_t pack_halves(uint32_t x, int mode)
{
    uint32_t w = 0;
    int k;
    for (k = 0; k < 2; k++, x = x * 1664525u + 1013904223u) {
        const float f = (float)(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
        uint32_t b, h;
        memcpy(&b, &f, 4);
        if (mode == 3) {
            h = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16; /* bf16, round to nearest even */
        } else { /* fp16 of |f| < 1: exponent rebias, 10 mantissa bits (truncated; the values only need to vary) */
            const int e = (int)((b >> 23) & 0xff) - 127 + 15;
            h = (b >> 16 & 0x8000u) | (e <= 0 ? 0u : ((uint32_t)e << 10 | (b >> 13 & 0x3ffu)));
        }
        w |= (h & 0xffffu) << (16 * k);
    }
    return w;
}

/* Fill device memory with pseudo-random data, never zeros (timing never runs on zeros): mode 0 random
 * bits, 1 float32 values in [-1, 1), 2 / 3 fp16 / bf16 values in [-1, 1). */
static smk_status fill_random(void *dst, size_t bytes, int floats)
{
    size_t chunk = bytes < ((size_t)64 << 20) ? bytes : ((size_t)64 << 20), off, i;
    uint32_t x = 0x9e3779b9u;
    uint32_t *h = (uint32_t *)malloc(chunk + 8);
    smk_status s = ok();
    if (!h) {
        s.code = SMK_E_NOMEM;
        s.where = "host staging memory";
        return s;
    }
    for (i = 0; i < chunk / 4 + 2; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        if (floats >= 2) {
            h[i] = pack_halves(x, floats);
        } else if (floats) {
            float f = (float)(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
            memcpy(&h[i], &f, 4);
        } else {
            h[i] = x;
        }
    }
    for (off = 0; off < bytes && s.code == SMK_OK; off += chunk) {
        size_t n = bytes - off < chunk ? bytes - off : chunk;
        s = smk_rt_h2d((char *)dst + off, h, n);
        if (s.code == SMK_OK)
            s = smk_rt_sync();
    }
    free(h);
    return s;
}

/* ---- sizes and checks ----------------------------------------------------------------------------- */

static int64_t batch_of(const smk_bench_spec *s) { return s->dims[2] > 0 ? s->dims[2] : 1; }

/* The three buffers of a run: transpose in / out; sgemm / gemm16 A / B / D, dense rows (lda = K,
 * ldb = ldd = N) as a user's call on dense tensors has them: an odd K or N leaves rows off 16 bytes and
 * the kernels take their unaligned path, which is what a benchmark of such a call measures (the cuBLAS
 * ceiling runs on the same dense buffers). */
static void buffer_bytes(const smk_bench_spec *s, size_t b[3])
{
    if (s->op == SMK_OP_TRANSPOSE) {
        b[0] = b[1] = (size_t)s->dims[0] * (size_t)s->dims[1] * (size_t)batch_of(s) * (size_t)s->esz;
        b[2] = 0;
    } else if (s->op == SMK_OP_SGEMM) {
        b[0] = (size_t)s->dims[2] * (size_t)s->dims[0] * 4;
        b[1] = (size_t)s->dims[1] * (size_t)s->dims[2] * 4;
        b[2] = (size_t)s->dims[1] * (size_t)s->dims[0] * 4;
    } else { /* gemm16: fp16/bf16 A, B and D, rows as the shape gives them: odd rows stay odd, and what a
              * user's call on such operands runs is what is timed (variant 0: the padded copies of
              * smk_gemm16_launch, their stream-ordered allocations included, inside the timed launch) */
        b[0] = (size_t)s->dims[2] * (size_t)s->dims[0] * 2;
        b[1] = (size_t)s->dims[1] * (size_t)s->dims[2] * 2;
        b[2] = (size_t)s->dims[1] * (size_t)s->dims[0] * 2;
    }
}

/* The temporaries smk_gemm16_launch allocates on the run's buffers (padded copies, split-K's
 * workspace): dense rows (lda = K, ldb = N) on allocator bases, which are aligned, so a row starts on
 * 16 bytes iff its length is a multiple of 8. */
static size_t gemm16_temp_bytes(const smk_bench_spec *s)
{
    return smk_gemm16_temp_bytes_shape(s->dims[0], s->dims[1], s->dims[2], s->config, s->dims[2] % 8 == 0,
                                       s->dims[1] % 8 == 0, smk_gemm16_device_sms());
}

size_t smk_bench_device_bytes(const smk_bench_spec *spec)
{
    size_t b[3];
    buffer_bytes(spec, b);
    return b[0] + b[1] + b[2] + spec->flush_bytes + (spec->op == SMK_OP_GEMM16 ? gemm16_temp_bytes(spec) : 0);
}

/* An explicit swizzle of layout i: one the mma.sync kernel compiles, or with the wgmma kernel forced
 * (gemm16_kernel knob 1) one of its TMA modes, e.g. Swizzle(1,3,3) = 32B, which mma.sync does not
 * compile (where wgmma then cannot run, the launcher's fallback takes the automatic swizzle). */
static int bench_swizzle_ok(const smk_bench_spec *s, int i)
{
    if (s->op != SMK_OP_GEMM16)
        return 0;
    if (smk_gemm16_supports_swizzle(s->swz[i][0], s->swz[i][1], s->swz[i][2]))
        return 1;
    return smk_gemm16_kernel() == 1 && s->config == 0 &&
           smk_wgmma_mode(SMK_SWIZZLE, s->swz[i][0], s->swz[i][1], s->swz[i][2]) >= 0;
}

const char *smk_bench_check(const smk_bench_spec *s)
{
    const int64_t big = (int64_t)1 << 40, lim = (int64_t)INT32_MAX - 256;
    int i;
    const int gemm = s->op == SMK_OP_SGEMM || s->op == SMK_OP_GEMM16;
    if (s->op < 0 || s->op >= SMK_NUM_OPS)
        return "unknown op";
    for (i = 0; i < (gemm ? 3 : 2); i++)
        if (s->dims[i] < 1 || s->dims[i] > (gemm ? lim : big))
            return gemm ? "shape entries must be in [1, 2**31 - 257]" : "shape entries must be in [1, 2**40]";
    if (s->op == SMK_OP_GEMM16 && (s->esz < 0 || s->esz > 1))
        return "the tensor-core GEMM times float16 or bfloat16";
    if (s->op == SMK_OP_GEMM16 && (s->config < 0 || s->config >= smk_gemm16_num_variants()))
        return "no such tensor-core GEMM tile config";
    for (i = 0; i < s->nlayouts && i < SMK_BENCH_MAX_LAYOUTS; i++)
        if ((s->swz[i][0] || s->swz[i][1] || s->swz[i][2]) && !bench_swizzle_ok(s, i))
            return "explicit swizzles are for the tensor-core GEMM, and only the compiled ones (with the wgmma "
                   "kernel selected: its TMA modes)";
    if (s->op == SMK_OP_TRANSPOSE) {
        if (s->dims[2] < 0 || s->dims[2] > big)
            return "batch must be in [1, 2**40]";
        if (!smk_transpose_supports(s->esz))
            return "the transpose does not support this element size";
        if (s->config < 0 || s->config >= smk_transpose_num_variants())
            return "no such transpose tile variant";
    } else if (s->op == SMK_OP_SGEMM && (s->config < 0 || s->config >= smk_sgemm_num_configs())) {
        return "no such sgemm tile config";
    } else if (s->splits < 0 || s->splits > 65535) {
        return "sgemm splits must be in [0, 65535] (0: chosen per shape)";
    }
    { /* in doubles: the size_t sums of buffer_bytes must not wrap (a wrapped size would allocate too little) */
        const double m = (double)s->dims[0], n = (double)s->dims[1], k = (double)s->dims[2] + 4.0;
        const double bytes = s->op == SMK_OP_TRANSPOSE ? 2.0 * m * n * (double)batch_of(s) * s->esz
                                                       : 4.0 * (k * m + (n + 4.0) * k + (n + 4.0) * m);
        if (bytes + (double)s->flush_bytes > 4.0e18)
            return "the shape needs more device memory than any GPU has (its byte size overflows 62 bits)";
    }
    if (s->nlayouts < 0 || s->nlayouts > SMK_BENCH_MAX_LAYOUTS)
        return "too many layouts";
    for (i = 0; i < s->nlayouts; i++)
        if (s->layouts[i] < 0 || s->layouts[i] >= SMK_NUM_LAYOUTS)
            return "unknown layout";
    if (s->nlayouts == 0 && !s->ceiling)
        return "nothing to time";
    if (s->warmup < 0 || s->reps < 1 || s->reps > 1000000)
        return "warmup must be >= 0 and reps in [1, 1000000]";
    return NULL;
}

/* ---- one run ------------------------------------------------------------------------------------- */

typedef struct {
    transpose_timed tt[SMK_BENCH_MAX_LAYOUTS];
    sgemm_timed sg[SMK_BENCH_MAX_LAYOUTS + 1];
    gemm16_timed g16[SMK_BENCH_MAX_LAYOUTS + 1];
    copy_timed ct;
    smk_timed_op ops[SMK_BENCH_MAX_LAYOUTS + 1];
} op_table;

static void table_transpose(const smk_bench_spec *s, void *const buf[3], size_t bytes, int ceiling, op_table *t)
{
    int i;
    for (i = 0; i < s->nlayouts; i++) {
        smk_transpose_params *p = &t->tt[i].p;
        memset(p, 0, sizeof *p);
        p->in = buf[0];
        p->out = buf[1];
        p->rows = s->dims[0];
        p->cols = s->dims[1];
        p->batch = batch_of(s);
        p->in_rs = s->dims[1];
        p->in_cs = 1;
        p->in_bs = s->dims[0] * s->dims[1];
        p->esz = s->esz;
        p->layout = s->layouts[i];
        t->tt[i].variant = s->config;
        t->ops[i].launch = launch_transpose;
        t->ops[i].ctx = &t->tt[i];
    }
    if (ceiling) {
        t->ct.dst = buf[1];
        t->ct.src = buf[0];
        t->ct.bytes = bytes;
        t->ops[i].launch = launch_copy;
        t->ops[i].ctx = &t->ct;
    }
}

static void table_sgemm(const smk_bench_spec *s, void *const buf[3], int ceiling, op_table *t)
{
    const int n = s->nlayouts + (ceiling ? 1 : 0);
    int i;
    for (i = 0; i < n; i++) {
        smk_sgemm_params *p = &t->sg[i].p;
        memset(&t->sg[i], 0, sizeof t->sg[i]);
        p->A = (const float *)buf[0];
        p->B = (const float *)buf[1];
        p->D = (float *)buf[2];
        p->M = s->dims[0];
        p->N = s->dims[1];
        p->K = s->dims[2];
        p->lda = s->dims[2]; /* dense rows, as buffer_bytes sizes them */
        p->ldb = p->ldc = p->ldd = s->dims[1];
        p->alpha = 1.0f;
        p->layout = i < s->nlayouts ? s->layouts[i] : SMK_SWIZZLE;
        p->config = s->config;
        p->splits = s->splits;
        t->sg[i].cublas = i >= s->nlayouts;
        t->ops[i].launch = launch_sgemm;
        t->ops[i].ctx = &t->sg[i];
    }
}

static void table_gemm16(const smk_bench_spec *s, void *const buf[3], int ceiling, op_table *t)
{
    const int n = s->nlayouts + (ceiling ? 1 : 0);
    int i;
    for (i = 0; i < n; i++) {
        smk_gemm16_params *p = &t->g16[i].p;
        memset(&t->g16[i], 0, sizeof t->g16[i]);
        p->A = buf[0];
        p->B = buf[1];
        p->D = buf[2];
        p->M = s->dims[0];
        p->N = s->dims[1];
        p->K = s->dims[2];
        p->lda = s->dims[2];
        p->ldb = p->ldc = p->ldd = s->dims[1];
        p->alpha = 1.0f;
        p->dtype = s->esz;
        p->layout = i < s->nlayouts ? s->layouts[i] : SMK_SWIZZLE;
        if (i < s->nlayouts)
            p->swz_b = s->swz[i][0], p->swz_m = s->swz[i][1], p->swz_s = s->swz[i][2];
        p->variant = s->config;
        t->g16[i].cublas = i >= s->nlayouts;
        t->ops[i].launch = launch_gemm16;
        t->ops[i].ctx = &t->g16[i];
    }
}

smk_status smk_bench_run(const smk_bench_spec *s, float *times_ms, smk_bench_info *info)
{
    void *buf[3] = {NULL, NULL, NULL};
    size_t bytes[3];
    op_table *t = (op_table *)calloc(1, sizeof *t);
    smk_status st = smk_rt_ready();
    int i;
    memset(info, 0, sizeof *info);
    if (!t) {
        st.code = SMK_E_NOMEM;
        st.where = "host memory for the launch table";
        return st;
    }
    info->why = s->ceiling ? "" : "not asked for";
    if (st.code == SMK_OK && s->ceiling) {
        info->have_ceiling = s->op == SMK_OP_TRANSPOSE ? 1 : smk_cublas_load(&info->why, &info->path);
        info->ceiling = info->have_ceiling ? (s->op == SMK_OP_TRANSPOSE ? "copy" : "cublas") : NULL;
    }
    buffer_bytes(s, bytes);
    for (i = 0; i < 3 && st.code == SMK_OK; i++)
        st = smk_rt_alloc(&buf[i], bytes[i]);
    for (i = 0; i < 2 && st.code == SMK_OK; i++)
        if (s->op != SMK_OP_TRANSPOSE || i == 0)
            st = fill_random(buf[i], bytes[i], s->op == SMK_OP_TRANSPOSE ? 0 : s->op == SMK_OP_SGEMM ? 1 : 2 + s->esz);
    if (st.code == SMK_OK) {
        if (s->op == SMK_OP_TRANSPOSE)
            table_transpose(s, buf, bytes[0], info->have_ceiling, t);
        else if (s->op == SMK_OP_SGEMM)
            table_sgemm(s, buf, info->have_ceiling, t);
        else
            table_gemm16(s, buf, info->have_ceiling, t);
        st = smk_time_ops(t->ops, s->nlayouts + info->have_ceiling, s->warmup, s->reps, s->flush_bytes, times_ms);
    }
    for (i = 0; i < 3; i++)
        smk_rt_free(buf[i]);
    if (st.code == SMK_OK)
        st = smk_rt_sync();
    free(t);
    return st;
}

