/*
 * host.c -- host arrays <-> device: the transfer strategies behind a NumPy call (see host.h).
 *
 * Page-locking is per address range and process-wide: two threads transposing the same array would
 * otherwise unregister its pages under each other's copies, so the page-locked paths (bound by the
 * host link anyway) serialise on one lock.  Nothing here knows Python; everything returns an
 * smk_status and never exits.
 */
#include "host.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static volatile int g_host_mode = -1;
static pthread_mutex_t g_register_lock = PTHREAD_MUTEX_INITIALIZER;
#define SMK_PIPELINE_MIN_BYTES ((size_t)16 << 20)
#define SMK_PIPELINE_STREAMS 3

int smk_host_set_mode(int mode)
{
    if (mode < -1 || mode > 2)
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
    e = (cudaError_t)smk_transpose_launch(&p, st);
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

smk_status smk_host_transpose(smk_transpose_params p, size_t bytes)
{
    const void *host_in = p.in;
    void *host_out = p.out;
    const int c_contiguous = p.in_cs == 1, single = p.batch <= 1;
    int mode = g_host_mode, reg_in = 0, reg_out = 0;
    smk_status s;
    cudaError_t e;
    if (mode < 0)
        mode = (c_contiguous && single && bytes >= SMK_PIPELINE_MIN_BYTES) ? 2 : 0;
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

static size_t round4(int64_t n) { return (size_t)((n + 3) & ~(int64_t)3); }

size_t smk_host_sgemm_device_bytes(int64_t M, int64_t N, int64_t K, int with_c)
{
    const size_t m = (size_t)M, k = (size_t)K;
    return 4 * (round4(K) * m + round4(N) * k + round4(N) * m * (with_c ? 2 : 1));
}

smk_status smk_host_sgemm(smk_sgemm_params p)
{
    const float *A = p.A, *B = p.B, *C = p.C;
    float *D = p.D, *dA = NULL, *dB = NULL, *dC = NULL, *dD = NULL;
    const size_t lda = round4(p.K), ldb = round4(p.N), ldd = round4(p.N), M = (size_t)p.M, K = (size_t)p.K;
    smk_status s = smk_rt_alloc((void **)&dA, lda * M * 4);
    if (s.code == SMK_OK)
        s = smk_rt_alloc((void **)&dB, ldb * K * 4);
    if (s.code == SMK_OK)
        s = smk_rt_alloc((void **)&dD, ldd * M * 4);
    if (s.code == SMK_OK && C)
        s = smk_rt_alloc((void **)&dC, ldd * M * 4);
    if (s.code == SMK_OK)
        s = smk_rt_h2d_2d(dA, lda * 4, A, K * 4, K * 4, M);
    if (s.code == SMK_OK)
        s = smk_rt_h2d_2d(dB, ldb * 4, B, (size_t)p.N * 4, (size_t)p.N * 4, K);
    if (s.code == SMK_OK && C)
        s = smk_rt_h2d_2d(dC, ldd * 4, C, (size_t)p.N * 4, (size_t)p.N * 4, M);
    if (s.code == SMK_OK)
        s = smk_rt_poison(dD, ldd * M * 4);
    if (s.code == SMK_OK) {
        p.A = dA;
        p.B = dB;
        p.C = dC;
        p.D = dD;
        p.lda = (int64_t)lda;
        p.ldb = (int64_t)ldb;
        p.ldc = p.ldd = (int64_t)ldd;
        s = smk_rt_check_launch(smk_sgemm_launch(&p, smk_rt_stream()), "launching the SGEMM kernel");
    }
    if (s.code == SMK_OK)
        s = smk_rt_d2h_2d(D, (size_t)p.N * 4, dD, ldd * 4, (size_t)p.N * 4, M);
    if (s.code == SMK_OK)
        s = smk_rt_sync();
    smk_rt_free(dA);
    smk_rt_free(dB);
    smk_rt_free(dC);
    smk_rt_free(dD);
    return s;
}

/* Elements per row padded to 16 bytes. */
static size_t pad16(int64_t n, int esz) { return (size_t)((n * esz + 15) / 16 * 16 / esz); }

size_t smk_host_gemm16_device_bytes(int64_t M, int64_t N, int64_t K, int out_esz, int with_c)
{
    const size_t m = (size_t)M, k = (size_t)K;
    return 2 * (pad16(K, 2) * m + pad16(N, 2) * k) + (size_t)out_esz * pad16(N, out_esz) * m * (with_c ? 2 : 1);
}

smk_status smk_host_gemm16(smk_gemm16_params p)
{
    const void *A = p.A, *B = p.B, *C = p.C;
    void *D = p.D, *dA = NULL, *dB = NULL, *dC = NULL, *dD = NULL;
    const size_t oe = p.out_f32 ? 4 : 2, M = (size_t)p.M, K = (size_t)p.K, N = (size_t)p.N;
    const size_t lda = pad16(p.K, 2), ldb = pad16(p.N, 2), ldd = pad16(p.N, (int)oe);
    smk_status s = smk_rt_alloc(&dA, lda * M * 2);
    if (s.code == SMK_OK)
        s = smk_rt_alloc(&dB, ldb * K * 2);
    if (s.code == SMK_OK)
        s = smk_rt_alloc(&dD, ldd * M * oe);
    if (s.code == SMK_OK && C)
        s = smk_rt_alloc(&dC, ldd * M * oe);
    if (s.code == SMK_OK)
        s = smk_rt_h2d_2d(dA, lda * 2, A, K * 2, K * 2, M);
    if (s.code == SMK_OK)
        s = smk_rt_h2d_2d(dB, ldb * 2, B, N * 2, N * 2, K);
    if (s.code == SMK_OK && C)
        s = smk_rt_h2d_2d(dC, ldd * oe, C, N * oe, N * oe, M);
    if (s.code == SMK_OK)
        s = smk_rt_poison(dD, ldd * M * oe);
    if (s.code == SMK_OK) {
        p.A = dA, p.B = dB, p.C = dC, p.D = dD;
        p.lda = (int64_t)lda, p.ldb = (int64_t)ldb, p.ldc = p.ldd = (int64_t)ldd;
        s = smk_rt_check_launch(smk_gemm16_launch(&p, smk_rt_stream()), "launching the tensor-core GEMM");
    }
    if (s.code == SMK_OK)
        s = smk_rt_d2h_2d(D, N * oe, dD, ldd * oe, N * oe, M);
    if (s.code == SMK_OK)
        s = smk_rt_sync();
    smk_rt_free(dA);
    smk_rt_free(dB);
    smk_rt_free(dC);
    smk_rt_free(dD);
    return s;
}
