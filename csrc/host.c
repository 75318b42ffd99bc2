/*
 * host.c -- host arrays <-> device: the transfer strategies behind a NumPy call (see host.h).
 *
 * Page-locking is per address range and process-wide: two threads transposing the same array would
 * otherwise unregister its pages under each other's copies, so the page-locked paths (bound by the
 * host link anyway) serialise on one lock.  Nothing here knows Python; everything returns an
 * smk_status and never exits.
 */
#include "host.h"
#include "hostpool.h"
#include "api/transpose_tune.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static volatile int g_host_mode = -1;
static pthread_mutex_t g_register_lock = PTHREAD_MUTEX_INITIALIZER;
#define SMK_PIPELINE_MIN_BYTES ((size_t)16 << 20)
#define SMK_PIPELINE_STREAMS 3
/* Automatic mode stages copies of at least this many bytes through the pinned pool (below it the
 * driver's own pageable path is as fast: bench/timing/bench_host.py; docs/RESULTS.md, "Host-side costs"). */
#define SMK_STAGE_MIN_BYTES ((size_t)1 << 20)

int smk_host_set_mode(int mode)
{
    if (mode < -1 || mode > 3)
        return -1;
    g_host_mode = mode;
    return 0;
}

size_t smk_host_physical_bytes(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

/* Do [a, a+n) and [b, b+n) touch a common page?  (Registration is per page.) */
static int pages_overlap(const void *a, const void *b, size_t n)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), pa = (uintptr_t)a, pb = (uintptr_t)b;
    const uintptr_t a0 = pa / page, a1 = (pa + n - 1) / page, b0 = pb / page, b1 = (pb + n - 1) / page;
    return a0 <= b1 && b0 <= a1;
}

/* Page-lock [p, p+n) for the copies; 1 if registered (unregister later), 0 if not (fall back). */
static int try_register(void *p, size_t n, unsigned flags)
{
    if (cudaHostRegister(p, n, flags) == cudaSuccess)
        return 1;
    (void)cudaGetLastError(); /* e.g. read-only pages the driver will not lock: stay pageable */
    return 0;
}

/* Upload, launch, download, free, all on the per-thread stream. */
static smk_status transpose_simple(const void *host_in, void *host_out, smk_transpose_params p, size_t bytes)
{
    void *din = NULL, *dout = NULL;
    smk_status s = smk_rt_alloc(&din, bytes);
    if (s.code == SMK_OK)
        s = smk_rt_alloc(&dout, bytes);
    if (s.code == SMK_OK)
        s = smk_rt_h2d(din, host_in, bytes);
    if (s.code == SMK_OK)
        s = smk_rt_poison(dout, bytes);
    if (s.code == SMK_OK) {
        p.in = din;
        p.out = dout;
        s = smk_rt_check_launch(smk_transpose_launch(&p, smk_rt_stream()), "launching the transpose kernel");
    }
    if (s.code == SMK_OK)
        s = smk_rt_d2h(host_out, dout, bytes);
    if (s.code == SMK_OK)
        s = smk_rt_sync();
    smk_rt_free(din);
    smk_rt_free(dout);
    return s;
}

/* One column band [c0, c0 + w) of a C-contiguous matrix on stream k: upload, kernel, download. */
static smk_status transpose_band(const void *host_in, void *host_out, smk_transpose_params p, size_t c0, size_t w,
                                 void *bin, void *bout, cudaStream_t st)
{
    const size_t esz = (size_t)p.esz, rows = (size_t)p.rows, cols = (size_t)p.cols;
    cudaError_t e = cudaMemcpy2DAsync(bin, w * esz, (const char *)host_in + c0 * esz, cols * esz, w * esz, rows,
                                      cudaMemcpyHostToDevice, st);
    if (e != cudaSuccess)
        return smk_rt_fail(e, "copying host to device");
    if (smk_rt_poisoning() && (e = cudaMemsetAsync(bout, 0xff, w * rows * esz, st)) != cudaSuccess)
        return smk_rt_fail(e, "poisoning an output buffer");
    p.in = bin;
    p.out = bout;
    p.cols = (int64_t)w;
    p.in_rs = (int64_t)w;
    p.in_cs = 1;
    e = (cudaError_t)smk_transpose_launch_knobs(&p, 0, -1, -1, st); /* never tuned: other bands' copies run beside it */
    if (e != cudaSuccess)
        return smk_rt_fail(e, "launching the transpose kernel");
    e = cudaMemcpyAsync((char *)host_out + c0 * rows * esz, bout, w * rows * esz, cudaMemcpyDeviceToHost, st);
    return e == cudaSuccess ? smk_ok() : smk_rt_fail(e, "copying device to host");
}

/* Column bands of a C-contiguous input, three streams deep (mode 2). */
static smk_status transpose_pipelined(const void *host_in, void *host_out, smk_transpose_params p)
{
    const size_t esz = (size_t)p.esz, rows = (size_t)p.rows, cols = (size_t)p.cols;
    size_t band = ((size_t)32 << 20) / (rows * esz) / 64 * 64; /* ~32 MiB bands, whole 64-wide tiles */
    cudaStream_t st[SMK_PIPELINE_STREAMS] = {NULL};
    void *bin[SMK_PIPELINE_STREAMS] = {NULL}, *bout[SMK_PIPELINE_STREAMS] = {NULL};
    smk_status s = smk_ok();
    cudaError_t e = cudaSuccess;
    size_t c0;
    int i, j;
    band = band < 64 ? 64 : band > cols ? cols : band;
    for (i = 0; i < SMK_PIPELINE_STREAMS && s.code == SMK_OK; i++) {
        s = smk_rt_alloc(&bin[i], rows * band * esz);
        if (s.code == SMK_OK)
            s = smk_rt_alloc(&bout[i], rows * band * esz);
        if (s.code == SMK_OK && (e = cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking)) != cudaSuccess)
            s = smk_rt_fail(e, "creating a copy stream");
    }
    if (s.code == SMK_OK)
        s = smk_rt_sync(); /* the allocations are ordered on the per-thread stream */
    for (c0 = 0, j = 0; c0 < cols && s.code == SMK_OK; c0 += band, j++) {
        const int k = j % SMK_PIPELINE_STREAMS;
        s = transpose_band(host_in, host_out, p, c0, cols - c0 < band ? cols - c0 : band, bin[k], bout[k], st[k]);
    }
    for (i = 0; i < SMK_PIPELINE_STREAMS; i++)
        if (st[i]) {
            e = cudaStreamSynchronize(st[i]);
            if (e != cudaSuccess && s.code == SMK_OK)
                s = smk_rt_fail(e, "synchronising a copy stream");
            (void)cudaStreamDestroy(st[i]);
        }
    for (i = 0; i < SMK_PIPELINE_STREAMS; i++) {
        smk_rt_free(bin[i]);
        smk_rt_free(bout[i]);
    }
    return s;
}

/* Mode 3: both sides stream through the pinned staging units (host copies on the worker threads,
 * overlapping the DMA of the unit before); the caller's memory is never page-locked. */
static smk_status transpose_staged(const void *host_in, void *host_out, smk_transpose_params p, size_t bytes,
                                   smk_stage_set *set)
{
    void *din = NULL, *dout = NULL;
    const cudaStream_t st = smk_rt_stream();
    smk_status s = smk_rt_alloc(&din, bytes);
    if (s.code == SMK_OK)
        s = smk_rt_alloc(&dout, bytes);
    if (s.code == SMK_OK)
        s = smk_stage_h2d(set, din, bytes, host_in, bytes, bytes, 1, st);
    if (s.code == SMK_OK)
        s = smk_rt_poison(dout, bytes);
    if (s.code == SMK_OK) {
        p.in = din;
        p.out = dout;
        s = smk_rt_check_launch(smk_transpose_launch(&p, st), "launching the transpose kernel");
    }
    if (s.code == SMK_OK)
        s = smk_stage_d2h(set, host_out, bytes, dout, bytes, bytes, 1, st);
    if (s.code != SMK_OK)
        (void)cudaStreamSynchronize(st); /* no DMA may still use the units when they go back */
    smk_rt_free(din);
    smk_rt_free(dout);
    return s;
}

smk_status smk_host_transpose(smk_transpose_params p, size_t bytes)
{
    const void *host_in = p.in;
    void *host_out = p.out;
    const int c_contiguous = p.in_cs == 1, single = p.batch <= 1;
    int mode = g_host_mode, reg_in = 0, reg_out = 0;
    smk_status s;
    cudaError_t e;
    if (mode < 0 || mode == 3) {
        smk_stage_set set;
        if ((mode == 3 || bytes >= SMK_STAGE_MIN_BYTES) && smk_stage_acquire(&set, SMK_STAGE_SET_MAX) > 0) {
            s = transpose_staged(host_in, host_out, p, bytes, &set);
            smk_stage_release(&set);
            return s;
        }
        /* no pinned memory to be had (or a small call): page-lock the big ones, copy the rest */
        mode = (c_contiguous && single && bytes >= SMK_PIPELINE_MIN_BYTES) ? 2 : 0;
    }
    if (mode == 2 && (!c_contiguous || !single))
        mode = 1;
    if (mode == 0)
        return transpose_simple(host_in, host_out, p, bytes);
    pthread_mutex_lock(&g_register_lock);
    /* Read-write first.  Read-only registration (for read-only memory, e.g. a read-only mmap) only when
     * the output shares no page with the input: the device may not DMA into a page it holds read-only
     * (found on an H200: two small arrays on one page made the download fault). */
    reg_in = try_register((void *)host_in, bytes, cudaHostRegisterDefault);
    if (!reg_in && !pages_overlap(host_in, host_out, bytes))
        reg_in = try_register((void *)host_in, bytes, cudaHostRegisterReadOnly);
    reg_out = try_register(host_out, bytes, cudaHostRegisterDefault); /* fails, harmlessly, on a shared page */
    if (!reg_in || !reg_out)
        mode = 1; /* no overlap without page-locked memory on both ends */
    s = mode == 2 ? transpose_pipelined(host_in, host_out, p) : transpose_simple(host_in, host_out, p, bytes);
    if (reg_in && (e = cudaHostUnregister((void *)host_in)) != cudaSuccess && s.code == SMK_OK)
        s = smk_rt_fail(e, "unregistering host memory");
    if (reg_out && (e = cudaHostUnregister(host_out)) != cudaSuccess && s.code == SMK_OK)
        s = smk_rt_fail(e, "unregistering host memory");
    pthread_mutex_unlock(&g_register_lock);
    return s;
}


/* Elements per row padded to 16 bytes: the kernels' 16-byte vector paths then apply to every shape. */
static size_t pad16(int64_t n, int esz) { return (size_t)((n * esz + 15) / 16 * 16 / esz); }

/* A host GEMM's operands: dense row-major host matrices, and their device copies (rows padded). */
typedef struct {
    const void *A, *B, *C; /* host; C NULL when beta == 0 */
    void *D;
    size_t M, N, K, in_esz, out_esz;
    void *dA, *dB, *dC, *dD; /* device */
    size_t lda, ldb, ldd;    /* device row pitches in elements */
} host_gemm;

/* Row-pitched copies of a host GEMM: through the staging units when the call holds some, else the
 * driver's pageable path. */
static smk_status gemm_up(smk_stage_set *set, void *dst, size_t dp, const void *src, size_t sp, size_t w,
                          size_t rows)
{
    return set->n ? smk_stage_h2d(set, dst, dp, src, sp, w, rows, smk_rt_stream()) : smk_rt_h2d_2d(dst, dp, src, sp, w, rows);
}

static smk_status gemm_down(smk_stage_set *set, void *dst, size_t dp, const void *src, size_t sp, size_t w,
                            size_t rows)
{
    return set->n ? smk_stage_d2h(set, dst, dp, src, sp, w, rows, smk_rt_stream()) : smk_rt_d2h_2d(dst, dp, src, sp, w, rows);
}

/* B's row-end gap in its pitched device copy ((ldb - N) elements per row): the SGEMM reads a float4
 * that straddles N whole (its columns past N feed outputs never stored), so the gap is written, not
 * left undefined: zeros, or NaN when poisoning (tests: the garbage must not reach a result). */
static smk_status fill_row_gap(void *dst, size_t pitch, size_t used, size_t rows)
{
    cudaError_t e;
    if (pitch == used || rows == 0)
        return smk_ok();
    e = cudaMemset2DAsync((char *)dst + used, pitch, smk_rt_poisoning() ? 0xff : 0, pitch - used, rows,
                          smk_rt_stream());
    return e == cudaSuccess ? smk_ok() : smk_rt_fail(e, "filling an operand's row padding");
}

/* Upload, launch (the callback enqueues the kernel on the device copies), download, free. */
static smk_status host_gemm_run(host_gemm *g, int (*launch)(const host_gemm *g, void *ctx), void *ctx,
                                const char *what)
{
    const size_t ie = g->in_esz, oe = g->out_esz;
    const size_t host_bytes = ie * (g->M * g->K + g->K * g->N) + oe * g->M * g->N * (g->C ? 2 : 1);
    smk_stage_set set = {{NULL}, 0};
    smk_status s;
    if ((g_host_mode == 3 || (g_host_mode < 0 && host_bytes >= SMK_STAGE_MIN_BYTES)))
        (void)smk_stage_acquire(&set, SMK_STAGE_SET_MAX); /* none: the pageable path */
    g->lda = pad16((int64_t)g->K, (int)ie), g->ldb = pad16((int64_t)g->N, (int)ie), g->ldd = pad16((int64_t)g->N, (int)oe);
    s = smk_rt_alloc(&g->dA, g->lda * g->M * ie);
    if (s.code == SMK_OK)
        s = smk_rt_alloc(&g->dB, g->ldb * g->K * ie);
    if (s.code == SMK_OK)
        s = smk_rt_alloc(&g->dD, g->ldd * g->M * oe);
    if (s.code == SMK_OK && g->C)
        s = smk_rt_alloc(&g->dC, g->ldd * g->M * oe);
    if (s.code == SMK_OK)
        s = gemm_up(&set, g->dA, g->lda * ie, g->A, g->K * ie, g->K * ie, g->M);
    if (s.code == SMK_OK)
        s = gemm_up(&set, g->dB, g->ldb * ie, g->B, g->N * ie, g->N * ie, g->K);
    if (s.code == SMK_OK)
        s = fill_row_gap(g->dB, g->ldb * ie, g->N * ie, g->K);
    if (s.code == SMK_OK && g->C)
        s = gemm_up(&set, g->dC, g->ldd * oe, g->C, g->N * oe, g->N * oe, g->M);
    if (s.code == SMK_OK)
        s = smk_rt_poison(g->dD, g->ldd * g->M * oe);
    if (s.code == SMK_OK)
        s = smk_rt_check_launch(launch(g, ctx), what);
    if (s.code == SMK_OK)
        s = gemm_down(&set, g->D, g->N * oe, g->dD, g->ldd * oe, g->N * oe, g->M);
    if (s.code == SMK_OK)
        s = smk_rt_sync();
    else
        (void)cudaStreamSynchronize(smk_rt_stream()); /* no DMA may still use the units when they go back */
    smk_stage_release(&set);
    smk_rt_free(g->dA);
    smk_rt_free(g->dB);
    smk_rt_free(g->dC);
    smk_rt_free(g->dD);
    return s;
}

static size_t host_gemm_device_bytes(int64_t M, int64_t N, int64_t K, int in_esz, int out_esz, int with_c)
{
    const size_t m = (size_t)M, k = (size_t)K;
    return (size_t)in_esz * (pad16(K, in_esz) * m + pad16(N, in_esz) * k) +
           (size_t)out_esz * pad16(N, out_esz) * m * (with_c ? 2 : 1);
}

size_t smk_host_sgemm_device_bytes(int64_t M, int64_t N, int64_t K, int with_c)
{
    return host_gemm_device_bytes(M, N, K, 4, 4, with_c);
}

size_t smk_host_gemm16_device_bytes(int64_t M, int64_t N, int64_t K, int out_esz, int with_c)
{
    return host_gemm_device_bytes(M, N, K, 2, out_esz, with_c);
}

static int launch_sgemm(const host_gemm *g, void *ctx)
{
    smk_sgemm_params p = *(const smk_sgemm_params *)ctx;
    p.A = (const float *)g->dA, p.B = (const float *)g->dB, p.C = (const float *)g->dC, p.D = (float *)g->dD;
    p.lda = (int64_t)g->lda, p.ldb = (int64_t)g->ldb, p.ldc = p.ldd = (int64_t)g->ldd;
    return smk_sgemm_launch(&p, smk_rt_stream());
}

smk_status smk_host_sgemm(smk_sgemm_params p)
{
    host_gemm g = {p.A, p.B, p.C, p.D, (size_t)p.M, (size_t)p.N, (size_t)p.K, 4, 4, NULL, NULL, NULL, NULL, 0, 0, 0};
    return host_gemm_run(&g, launch_sgemm, &p, "launching the SGEMM kernel");
}

static int launch_gemm16(const host_gemm *g, void *ctx)
{
    smk_gemm16_params p = *(const smk_gemm16_params *)ctx;
    p.A = g->dA, p.B = g->dB, p.C = g->dC, p.D = g->dD;
    p.lda = (int64_t)g->lda, p.ldb = (int64_t)g->ldb, p.ldc = p.ldd = (int64_t)g->ldd;
    return smk_gemm16_launch(&p, smk_rt_stream());
}

smk_status smk_host_gemm16(smk_gemm16_params p)
{
    host_gemm g = {p.A, p.B, p.C, p.D, (size_t)p.M, (size_t)p.N, (size_t)p.K, 2, p.out_f32 ? 4u : 2u,
                   NULL, NULL, NULL, NULL, 0, 0, 0};
    return host_gemm_run(&g, launch_gemm16, &p, "launching the tensor-core GEMM");
}
