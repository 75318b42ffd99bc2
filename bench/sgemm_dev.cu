/*
 * sgemm_dev.cu -- one-shot device harness for csrc/sgemm.cu (run by bench/sgemm_dev.sh).
 *
 *   0. host checks (no GPU): layout.h row-split identity, and a replay of the kernel's four shared-memory
 *      accesses through layout.h into bank "ways" per layout (naive A store must be 2-way, rest 1).
 *   1. correctness: every layout, both shipped configs (BIG / SMALL forced) and the public launcher, plus
 *      the candidate configs (swizzle), over edge shapes and alpha/beta/aliasing/misalignment cases,
 *      against a float64 CPU reference with |D - ref| <= gamma_{K+2} (|alpha| |A||B| + |beta| |C|) + tiny.
 *   2. timing: cudaEvent median of REPS, device-resident data, each layout vs cublasSgemm (FP32, no TF32).
 *   3. candidate tile configs: swizzle at 4096^3 (big candidates) and 1024^3 / 2048^3 (small ones).
 *
 * Usage: sgemm_dev [--host-only] [--quick]   (--quick: skip 8192^3)
 */
#include "../csrc/sgemm.cu"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                       \
    do {                                                                                            \
        cudaError_t e_ = (cudaError_t)(x);                                                          \
        if (e_ != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_),  \
                    cudaGetErrorString(e_));                                                        \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)
#define CB(x)                                                                                       \
    do {                                                                                            \
        cublasStatus_t s_ = (x);                                                                    \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                          \
            fprintf(stderr, "%s:%d: %s -> cublas status %d\n", __FILE__, __LINE__, #x, (int)s_);    \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

using namespace smk;

/* ---- candidate configs (harness only; the shipped ones are SgemmBig / SgemmSmall) ---------------- */
/*                      BM   BN  BK  WM  WN WNITER TM TN THREADS MINB */
using C128x128x16 = SgemmCfg<128, 128, 16, 32, 64, 2, 4, 4, 256, 1>; /* BIG with BK 16 (MINB 1: spills at 128 regs) */
using C128x256x8 = SgemmCfg<128, 256, 8, 64, 64, 2, 4, 4, 256, 1>;  /* 16x8 per thread, 1 block/SM */
using C128x128t128 = SgemmCfg<128, 128, 8, 64, 64, 2, 4, 4, 128, 2>; /* 16x8 per thread, 128 threads */
using C64x128 = SgemmCfg<64, 128, 8, 32, 64, 2, 4, 4, 128, 3>;       /* small-problem alternative */

static const char *LNAME[3] = {"naive", "pad", "swizzle"};

/* A launch function: (validated-and-normalised q, vec flag, stream) -> cudaError_t */
typedef int (*launch_fn)(const smk_sgemm_params &, bool, cudaStream_t);
template <class Cfg>
int launch_forced(const smk_sgemm_params &q, bool vec, cudaStream_t s)
{
    return sgemm_launch_any<Cfg>(q, vec, s);
}
template <class Cfg>
int launch_swz(const smk_sgemm_params &q, bool vec, cudaStream_t s)
{
    return vec ? sgemm_launch_cfg<Cfg, SMK_SWIZZLE, true>(q, s) : sgemm_launch_cfg<Cfg, SMK_SWIZZLE, false>(q, s);
}
/* Validate like smk_sgemm_launch, then call one forced config. */
static int run_variant(launch_fn f, const smk_sgemm_params &p, cudaStream_t s)
{
    smk_sgemm_params q;
    bool vec = false;
    const int st = sgemm_prepare(&p, &q, &vec);
    if (st < 0) return (int)cudaErrorInvalidValue;
    if (st > 0) return 0;
    return f(q, vec, s);
}

struct Variant {
    std::string name;
    launch_fn f;  /* NULL: public smk_sgemm_launch */
    int layout;   /* used for the public launcher and forced configs */
};

/* ---- 0. host checks ------------------------------------------------------------------------------ */
static int g_host_fail = 0;

static void check_row_split()
{
    long bad = 0;
    for (int L = 0; L < 3; ++L)
        for (int lc = 5; lc <= 8; ++lc) {
            const smk_tile t = smk_sgemm_tile(L, lc);
            for (int r = 0; r < 64; ++r)
                for (int c = 0; c < (1 << lc); ++c)
                    if (smk_tile_offset(t, r, c) != smk_tile_row_offset(t, r) + (c ^ smk_tile_row_xor(t, r)))
                        ++bad;
        }
    printf("host: row-split identity smk_tile_offset == row_offset + (c ^ row_xor): %s\n",
           bad ? "FAIL" : "PASS");
    if (bad) ++g_host_fail;
}

/* ways of one shared access: lanes grouped into phases of `phase` lanes; each lane touches `words`
 * consecutive 4-byte words from `off[lane]`; ways = max over phases and banks of distinct words. */
static int access_ways(const std::vector<long> &off, int words, int phase)
{
    int ways = 0;
    for (size_t p0 = 0; p0 < off.size(); p0 += phase) {
        std::vector<std::vector<long>> bank(32);
        for (size_t l = p0; l < p0 + phase && l < off.size(); ++l)
            for (int w = 0; w < words; ++w) {
                const long word = off[l] + w;
                auto &b = bank[smk_bank(word * 4)];
                if (std::find(b.begin(), b.end(), word) == b.end()) b.push_back(word);
            }
        for (auto &b : bank) ways = std::max(ways, (int)b.size());
    }
    return ways;
}

template <class Cfg>
static void bank_table(const char *name)
{
    using Map = SgemmMap<Cfg>;
    for (int L = 0; L < 3; ++L) {
        const smk_tile TA = smk_sgemm_tile(L, Cfg::LOG2_BM), TB = smk_sgemm_tile(L, Cfg::LOG2_BN);
        int w_as = 0, w_bs = 0, w_af = 0, w_bf = 0;
        long ident_bad = 0;
        for (int warp = 0; warp < Cfg::THREADS / 32; ++warp) {
            for (int j = 0; j < Cfg::A_LOADS; ++j)
                for (int i = 0; i < 4; ++i) { /* scalar STS of the transposed A store */
                    std::vector<long> off;
                    for (int l = 0; l < 32; ++l) {
                        int row, kc;
                        Map::a_load(j, warp * 32 + l, &row, &kc);
                        off.push_back(smk_tile_offset(TA, kc + i, row));
                    }
                    w_as = std::max(w_as, access_ways(off, 1, 32));
                }
            for (int j = 0; j < Cfg::B_LOADS; ++j) { /* STS.128 of B */
                std::vector<long> off;
                for (int l = 0; l < 32; ++l) {
                    int row, col;
                    Map::b_load(j, warp * 32 + l, &row, &col);
                    off.push_back(smk_tile_offset(TB, row, col));
                }
                w_bs = std::max(w_bs, access_ways(off, 4, 8));
            }
            for (int k = 0; k < Cfg::BK; ++k) { /* LDS.128 fragments, as the kernel forms them */
                for (int i = 0; i < Cfg::WMITER; ++i)
                    for (int jj = 0; jj < Cfg::TM; jj += 4) {
                        std::vector<long> off;
                        for (int l = 0; l < 32; ++l) {
                            const int base = Map::a_col(warp * 32 + l), d = i * Cfg::WSUBM + jj;
                            const int o = smk_tile_row_offset(TA, k) + ((base ^ smk_tile_row_xor(TA, k)) ^ d);
                            ident_bad += o != smk_tile_offset(TA, k, base + d);
                            off.push_back(o);
                        }
                        w_af = std::max(w_af, access_ways(off, 4, 8));
                    }
                for (int i = 0; i < Cfg::WNITER; ++i)
                    for (int jj = 0; jj < Cfg::TN; jj += 4) {
                        std::vector<long> off;
                        for (int l = 0; l < 32; ++l) {
                            const int base = Map::b_col(warp * 32 + l), d = i * Cfg::WSUBN + jj;
                            const int o = smk_tile_row_offset(TB, k) + ((base ^ smk_tile_row_xor(TB, k)) ^ d);
                            ident_bad += o != smk_tile_offset(TB, k, base + d);
                            off.push_back(o);
                        }
                        w_bf = std::max(w_bf, access_ways(off, 4, 8));
                    }
            }
        }
        const bool expect = w_as == (L == SMK_NAIVE ? 2 : 1) && w_bs == 1 && w_af == 1 && w_bf == 1;
        printf("host: bank ways %-12s %-7s  A-store %d  B-store %d  A-frag %d  B-frag %d  frag-index %s  %s\n",
               name, LNAME[L], w_as, w_bs, w_af, w_bf, ident_bad ? "FAIL" : "ok",
               expect ? "as designed" : "UNEXPECTED");
        if (ident_bad || !expect) ++g_host_fail;
    }
}

/* ---- 1. correctness ------------------------------------------------------------------------------ */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static float frand()
{
    g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
    return (float)((double)(g_rng >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0);
}

struct Case {
    const char *name;
    float alpha, beta;
    int c_mode; /* 0: C = NULL, 1: separate C, 2: C aliases D (D preloaded with C) */
    int ld_pad; /* extra elements on every leading dimension (odd: not a multiple of 4; -1: round up to 4) */
    int ptr_off; /* element offset of every base pointer (1: not 16-byte aligned) */
    bool null_ab; /* A = B = NULL (only valid with alpha == 0) */
};

static const Case CASES[] = {
    {"a1 b0 C=NULL", 1.0f, 0.0f, 0, 0, 0, false},
    {"b0 C=D NaN", 1.5f, 0.0f, 2, 0, 0, false},  /* C aliases a NaN-poisoned D; beta 0 must not read it */
    {"a-.75 b.5 C", -0.75f, 0.5f, 1, 0, 0, false},
    {"a2 b-1 C=D", 2.0f, -1.0f, 2, 0, 0, false},
    {"ld+1 b.25", 1.0f, 0.25f, 1, 1, 0, false},  /* lda = K+1 etc.: scalar path */
    {"ptr+1 b1", 1.0f, 1.0f, 1, 4, 1, false},    /* ld multiple of 4 when K, N are, bases misaligned */
    {"ld%4 b-2 vec", 0.5f, -2.0f, 1, -1, 0, false}, /* ld rounded up to 4: float4 path with partial vectors */
    {"a0 b2 A=B=NULL", 0.0f, 2.0f, 1, 0, 0, true},
};

struct Shape {
    int64_t M, N, K;
};

static int g_pass = 0, g_fail = 0;

static void correctness(const std::vector<Variant> &vars, cudaStream_t s)
{
    const Shape shapes[] = {{1, 1, 1},        {7, 13, 5},       {31, 33, 17},     {64, 64, 0},  {128, 256, 64},
                            {1000, 1000, 1000}, {1, 4096, 4096}, {4096, 1, 4096}, {1023, 517, 2049}};
    const double u = std::ldexp(1.0, -24);
    for (const Shape &sh : shapes) {
        const int64_t M = sh.M, N = sh.N, K = sh.K;
        std::vector<float> A(M * K), B(K * N), C0(M * N);
        for (auto &x : A) x = frand();
        for (auto &x : B) x = frand();
        for (auto &x : C0) x = frand();
        std::vector<double> P(M * N, 0.0), Q(M * N, 0.0); /* A@B and |A|@|B| in float64 */
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < M; ++i)
            for (int64_t k = 0; k < K; ++k) {
                const double a = A[i * K + k], aa = std::fabs(a);
                const float *b = &B[k * N];
                double *pr = &P[i * N], *qr = &Q[i * N];
                for (int64_t j = 0; j < N; ++j) {
                    pr[j] += a * b[j];
                    qr[j] += aa * std::fabs((double)b[j]);
                }
            }
        const double gam = (K + 2) * u / (1.0 - (K + 2) * u);
        for (const Case &cs : CASES) {
            int64_t lda = K + cs.ld_pad, ldb = N + cs.ld_pad, ldc = N + cs.ld_pad + (cs.ld_pad ? 2 : 0);
            int64_t ldd = N + cs.ld_pad + (cs.ld_pad ? 4 : 0);
            if (cs.ld_pad < 0) /* smallest multiple of 4 that holds the row */
                lda = (std::max<int64_t>(K, 1) + 3) & ~3, ldb = ldc = ldd = (N + 3) & ~3;
            if (cs.c_mode == 2) ldd = ldc;
            const int64_t off = cs.ptr_off;
            const size_t nA = M * lda + off + 8, nB = K * ldb + off + 8, nC = M * ldc + off + 8, nD = M * ldd + off + 8;
            float *dA = NULL, *dB = NULL, *dC = NULL, *dD = NULL;
            CK(cudaMalloc(&dA, nA * 4));
            CK(cudaMalloc(&dB, nB * 4));
            CK(cudaMalloc(&dC, nC * 4));
            CK(cudaMalloc(&dD, nD * 4));
            if (K > 0 && M > 0)
                CK(cudaMemcpy2D(dA + off, lda * 4, A.data(), K * 4, K * 4, M, cudaMemcpyHostToDevice));
            if (K > 0 && N > 0)
                CK(cudaMemcpy2D(dB + off, ldb * 4, B.data(), N * 4, N * 4, K, cudaMemcpyHostToDevice));
            CK(cudaMemset(dC, 0xFF, nC * 4));
            CK(cudaMemcpy2D(dC + off, ldc * 4, C0.data(), N * 4, N * 4, M, cudaMemcpyHostToDevice));
            std::vector<float> hD(nD);
            int worst_fail = 0;
            double worst_ratio = 0.0;
            std::string failed;
            for (const Variant &v : vars) {
                /* poison D (NaN bits 0xFFFFFFFF); C aliasing D: D := C first */
                CK(cudaMemset(dD, 0xFF, nD * 4));
                if (cs.c_mode == 2 && cs.beta != 0.f)
                    CK(cudaMemcpy2D(dD + off, ldd * 4, C0.data(), N * 4, N * 4, M, cudaMemcpyHostToDevice));
                smk_sgemm_params p;
                memset(&p, 0, sizeof p);
                p.A = cs.null_ab ? NULL : dA + off;
                p.B = cs.null_ab ? NULL : dB + off;
                p.C = cs.c_mode == 0 ? NULL : (cs.c_mode == 1 ? dC + off : dD + off);
                p.D = dD + off;
                p.M = M, p.N = N, p.K = K;
                p.lda = lda, p.ldb = ldb, p.ldc = cs.c_mode == 2 ? ldd : ldc, p.ldd = ldd;
                p.alpha = cs.alpha, p.beta = cs.beta;
                p.layout = v.layout;
                const int rc = v.f ? run_variant(v.f, p, s) : smk_sgemm_launch(&p, s);
                CK(rc);
                CK(cudaStreamSynchronize(s));
                CK(cudaMemcpy(hD.data(), dD, nD * 4, cudaMemcpyDeviceToHost));
                long nbad = 0;
                for (int64_t i = 0; i < M; ++i)
                    for (int64_t j = 0; j < ldd; ++j) {
                        const float d = hD[off + i * ldd + j];
                        if (j >= N) { /* padding must be untouched (poison bits, or C's poison when aliasing) */
                            uint32_t bits;
                            memcpy(&bits, &d, 4);
                            nbad += bits != 0xFFFFFFFFu;
                            continue;
                        }
                        const double c = (cs.c_mode == 0 || cs.beta == 0.f) ? 0.0 : C0[i * N + j];
                        const double ref = (cs.alpha == 0.f ? 0.0 : (double)cs.alpha * P[i * N + j]) + (double)cs.beta * c;
                        const double bnd = gam * (std::fabs((double)cs.alpha) * Q[i * N + j] + std::fabs((double)cs.beta) * std::fabs(c)) + 1e-30;
                        const double err = std::fabs((double)d - ref);
                        if (!(err <= bnd)) ++nbad;
                        else worst_ratio = std::max(worst_ratio, err / bnd);
                    }
                if (nbad) {
                    ++worst_fail;
                    failed += " " + v.name + "(" + std::to_string(nbad) + ")";
                }
            }
            const bool ok = worst_fail == 0;
            (ok ? g_pass : g_fail)++;
            printf("check %5lldx%-5lldx%-5lld %-16s %2zu variants  max err/bound %.3f  %s%s\n", (long long)M,
                   (long long)N, (long long)K, cs.name, vars.size(), worst_ratio, ok ? "PASS" : "FAIL",
                   failed.c_str());
            CK(cudaFree(dA));
            CK(cudaFree(dB));
            CK(cudaFree(dC));
            CK(cudaFree(dD));
        }
    }
}

/* ---- 2./3. timing ---------------------------------------------------------------------------------- */
__global__ void fill_kernel(float *x, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
        x[i] = (float)(h & 0xFFFFFF) * (2.0f / 16777216.0f) - 1.0f;
    }
}

static const int REPS = 20, WARM = 3;

template <class F>
static double median_ms(F launch, cudaStream_t s)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < WARM; ++i) launch();
    std::vector<float> t;
    for (int i = 0; i < REPS; ++i) {
        CK(cudaEventRecord(e0, s));
        launch();
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

struct Bufs {
    float *A = NULL, *B = NULL, *D = NULL;
    int64_t M = 0, N = 0, K = 0;
};

static Bufs make_bufs(int64_t M, int64_t N, int64_t K)
{
    Bufs b;
    b.M = M, b.N = N, b.K = K;
    CK(cudaMalloc(&b.A, M * K * 4));
    CK(cudaMalloc(&b.B, K * N * 4));
    CK(cudaMalloc(&b.D, M * N * 4));
    fill_kernel<<<1024, 256>>>(b.A, M * K, 1u);
    CK(cudaGetLastError());
    fill_kernel<<<1024, 256>>>(b.B, K * N, 2u);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return b;
}
static void free_bufs(Bufs &b)
{
    CK(cudaFree(b.A));
    CK(cudaFree(b.B));
    CK(cudaFree(b.D));
}
static smk_sgemm_params params_of(const Bufs &b, int layout)
{
    smk_sgemm_params p;
    memset(&p, 0, sizeof p);
    p.A = b.A, p.B = b.B, p.C = NULL, p.D = b.D;
    p.M = b.M, p.N = b.N, p.K = b.K, p.lda = b.K, p.ldb = b.N, p.ldc = b.N, p.ldd = b.N;
    p.alpha = 1.f, p.beta = 0.f, p.layout = layout;
    return p;
}
static double tflops(const Bufs &b, double ms) { return 2.0 * b.M * b.N * b.K / (ms * 1e-3) / 1e12; }

static double time_cublas(cublasHandle_t h, const Bufs &b, cudaStream_t s)
{
    const float alpha = 1.f, beta = 0.f;
    /* row-major D = A@B  <=>  column-major D^T = B^T A^T */
    return median_ms([&] { CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)b.N, (int)b.M, (int)b.K, &alpha, b.B,
                                          (int)b.N, b.A, (int)b.K, &beta, b.D, (int)b.N)); }, s);
}
static double time_variant(launch_fn f, const Bufs &b, int layout, cudaStream_t s)
{
    const smk_sgemm_params p = params_of(b, layout);
    return median_ms([&] { CK(f ? run_variant(f, p, s) : smk_sgemm_launch(&p, s)); }, s);
}

int main(int argc, char **argv)
{
    bool host_only = false, quick = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--host-only")) host_only = true;
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else {
            fprintf(stderr, "usage: %s [--host-only] [--quick]\n", argv[0]);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    check_row_split();
    bank_table<SgemmBig>("BIG");
    bank_table<SgemmSmall>("SMALL");
    bank_table<C128x128x16>("128x128x16");
    bank_table<C128x256x8>("128x256x8");
    bank_table<C128x128t128>("128x128/128t");
    bank_table<C64x128>("64x128");
    printf("host: smem/block BIG naive/pad/swizzle %zu/%zu/%zu B, SMALL %zu/%zu/%zu B\n",
           sgemm_smem_bytes<SgemmBig, 0>(), sgemm_smem_bytes<SgemmBig, 1>(), sgemm_smem_bytes<SgemmBig, 2>(),
           sgemm_smem_bytes<SgemmSmall, 0>(), sgemm_smem_bytes<SgemmSmall, 1>(), sgemm_smem_bytes<SgemmSmall, 2>());
    if (host_only) {
        printf("host checks: %s\n", g_host_fail ? "FAIL" : "PASS");
        return g_host_fail ? 1 : 0;
    }

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs, cc %d.%d\n", prop.name, prop.multiProcessorCount, prop.major, prop.minor);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    /* invalid params must be refused, nothing launched */
    {
        smk_sgemm_params p;
        memset(&p, 0, sizeof p);
        p.M = 4, p.N = 4, p.K = 4, p.lda = 4, p.ldb = 4, p.ldd = 4, p.alpha = 1.f;
        int bad = 0;
        bad += smk_sgemm_launch(NULL, s) != cudaErrorInvalidValue;
        bad += smk_sgemm_launch(&p, s) != cudaErrorInvalidValue; /* A, B, D NULL */
        p.layout = 7;
        bad += smk_sgemm_launch(&p, s) != cudaErrorInvalidValue;
        p.layout = 0, p.M = -1;
        bad += smk_sgemm_launch(&p, s) != cudaErrorInvalidValue;
        p.M = 0; /* M == 0: nothing to do, success even with NULL pointers */
        bad += smk_sgemm_launch(&p, s) != cudaSuccess;
        printf("check invalid-params %s\n", bad ? "FAIL" : "PASS");
        (bad ? g_fail : g_pass)++;
    }

    std::vector<Variant> vars;
    for (int L = 0; L < 3; ++L) vars.push_back({std::string("auto-") + LNAME[L], NULL, L});
    for (int L = 0; L < 3; ++L) vars.push_back({std::string("big-") + LNAME[L], launch_forced<SgemmBig>, L});
    for (int L = 0; L < 3; ++L) vars.push_back({std::string("small-") + LNAME[L], launch_forced<SgemmSmall>, L});
    vars.push_back({"128x128x16-swz", launch_swz<C128x128x16>, SMK_SWIZZLE});
    vars.push_back({"128x256x8-swz", launch_swz<C128x256x8>, SMK_SWIZZLE});
    vars.push_back({"128x128t128-swz", launch_swz<C128x128t128>, SMK_SWIZZLE});
    vars.push_back({"64x128-swz", launch_swz<C64x128>, SMK_SWIZZLE});
    correctness(vars, s);
    printf("correctness: %d passed, %d failed\n", g_pass, g_fail);

    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, s));
    CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH)); /* FP32 FFMA, no TF32 */

    printf("\nTFLOP/s (median of %d, cudaEvent) and %% of cuBLAS FP32; auto = smk_sgemm_launch\n", REPS);
    printf("%-16s %7s | %-14s %-14s %-14s | %-14s %-14s\n", "M x N x K", "cuBLAS", "auto-naive", "auto-pad",
           "auto-swizzle", "BIG-swizzle", "SMALL-swizzle");
    const Shape tsh[] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
                         {8192, 8192, 8192}, {4096, 4096, 1024}, {4097, 4095, 4093}};
    for (const Shape &sh : tsh) {
        if (quick && sh.M == 8192) continue;
        Bufs b = make_bufs(sh.M, sh.N, sh.K);
        const double cub = tflops(b, time_cublas(h, b, s));
        char line[512];
        int n = snprintf(line, sizeof line, "%5lldx%5lldx%-5lld %7.1f |", (long long)sh.M, (long long)sh.N,
                         (long long)sh.K, cub);
        for (int L = 0; L < 3; ++L) {
            const double t = tflops(b, time_variant(NULL, b, L, s));
            n += snprintf(line + n, sizeof line - n, " %6.1f (%3.0f%%)", t, 100 * t / cub);
        }
        n += snprintf(line + n, sizeof line - n, " |");
        const launch_fn fs[2] = {launch_forced<SgemmBig>, launch_forced<SgemmSmall>};
        for (int c = 0; c < 2; ++c) {
            const double t = tflops(b, time_variant(fs[c], b, SMK_SWIZZLE, s));
            n += snprintf(line + n, sizeof line - n, " %6.1f (%3.0f%%)", t, 100 * t / cub);
        }
        printf("%s\n", line);
        free_bufs(b);
    }

    printf("\ncandidate tile configs, swizzle layout (TFLOP/s, %% of cuBLAS)\n");
    struct Cand {
        const char *name;
        launch_fn f;
    } cands[] = {
        {"BIG 128x128x8 256t 8x8 (shipped)", launch_swz<SgemmBig>},
        {"128x128x16 256t 8x8", launch_swz<C128x128x16>},
        {"128x256x8 256t 16x8", launch_swz<C128x256x8>},
        {"128x128x8 128t 16x8", launch_swz<C128x128t128>},
        {"SMALL 64x64x8 128t 8x4 (shipped)", launch_swz<SgemmSmall>},
        {"64x128x8 128t 8x8", launch_swz<C64x128>},
    };
    const Shape csh[] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}};
    printf("%-34s", "config");
    for (const Shape &sh : csh) printf("  %5lld^3      ", (long long)sh.M);
    printf("\n");
    const size_t NC = sizeof cands / sizeof cands[0];
    std::vector<std::vector<double>> res(NC, std::vector<double>(3, 0.0));
    double cubs[3] = {0, 0, 0};
    for (int si = 0; si < 3; ++si) {
        Bufs b = make_bufs(csh[si].M, csh[si].N, csh[si].K);
        cubs[si] = tflops(b, time_cublas(h, b, s));
        for (size_t c = 0; c < NC; ++c) res[c][si] = tflops(b, time_variant(cands[c].f, b, SMK_SWIZZLE, s));
        free_bufs(b);
    }
    for (size_t c = 0; c < NC; ++c) {
        printf("%-34s", cands[c].name);
        for (int k = 0; k < 3; ++k) printf("  %6.1f (%3.0f%%)", res[c][k], 100 * res[c][k] / cubs[k]);
        printf("\n");
    }
    for (int si = 0; si < 3; ++si) {
        size_t bi = 0;
        for (size_t c = 1; c < NC; ++c)
            if (res[c][si] > res[bi][si]) bi = c;
        printf("fastest at %lld^3: %s (%.1f TFLOP/s, cuBLAS %.1f)\n", (long long)csh[si].M, cands[bi].name,
               res[bi][si], cubs[si]);
    }

    CB(cublasDestroy(h));
    CK(cudaStreamDestroy(s));
    printf("\n%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
