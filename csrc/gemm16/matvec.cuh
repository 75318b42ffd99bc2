/* The memory-bound path's kernels (routing and the why: matvec.h).  CUDA cores, fp32 accumulation, NO
 * shared memory: every operand goes global -> registers, so the layouts (naive / pad / swizzle) run
 * the same code and explain() models no shared access for these launches.
 *
 * Streams (ROWS: B's rows, COLS: A's rows) are read as aligned 16-byte chunks whatever the row's
 * offset mod 8 elements: a warp's segment of 248 elements starting `sh` elements into its 16-byte
 * chunk is lane l's chunk l (elements 8 l - sh .. 8 l - sh + 7, l < 32); lane l < 31 takes elements
 * sh .. 7 of its chunk and 0 .. sh - 1 of lane l + 1's (__shfl_down_sync), selected by word (sh / 2)
 * and funnel-shifted by 16 bits for odd sh; lane 31 only loads (its results are dropped).  A chunk
 * is loaded only when it holds an element of the row segment; the bytes around that element in the
 * same 16-byte chunk are in the same page, whatever they are, and never reach a stored result
 * (ROWS: columns >= N and lane 31 are not stored; COLS: k >= K and lane 31 are zeroed before use).
 *
 * Output (S == 1): alpha * acc + beta * C rounded as the tile kernel's epilogue does (store_f32 /
 * store_16 of epilogue.cuh, one element at a time).  S > 1: fp32 partials into ws[s][m][n], summed
 * by mv_reduce_kernel in a fixed order. */
#ifndef SMK_GEMM16_MATVEC_CUH
#define SMK_GEMM16_MATVEC_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "common/ptx_mma.cuh"
#include "epilogue.cuh"
#include "matvec_chunks.cuh"
#include "matvec_sum.cuh"

namespace smk {
namespace g16 {

constexpr int kMvThreads = 128; /* 4 warps per block */

__device__ __forceinline__ void mv_out(const smk_gemm16_params &p, bool bf16, int64_t m, int64_t n, float v)
{
    const bool use_c = p.beta != 0.f;
    v *= p.alpha;
    if (p.out_f32)
        store_f32(p, m, n, v, 0.f, false, false, use_c, p.beta);
    else if (bf16)
        store_16<true>(p, m, n, v, 0.f, false, false, use_c, p.beta);
    else
        store_16<false>(p, m, n, v, 0.f, false, false, use_c, p.beta);
}

/*
 * TINYK (K <= 16, D is the stream; 2-byte loads): block = 4 warps side by side along N; blockIdx.x = (row group, column group), blockIdx.z = K
 * slice.  Thread (warp w, lane l) owns D[m0 + i][c0 + l + 32 j], i < TM, j < CPL: per k it loads CPL
 * B values (warp: CPL loads of 64 contiguous bytes) and TM A values (warp-uniform: one broadcast
 * each, L1 hits after the first warp), then TM x CPL FMAs.  UK k rows of B are loaded before any is
 * used, so each warp has UK x CPL x 64 bytes in flight.
 */
template <int TM, int CPL, bool BF16>
__global__ void __launch_bounds__(kMvThreads) mv_tinyk_kernel(smk_gemm16_params p, int64_t kc, float *ws)
{
    constexpr int UK = TM * CPL >= 128 ? 2 : CPL >= 8 ? 4 : 8; /* b[UK][CPL] + acc[TM][CPL] within 255 registers */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t cgroups = (p.N + 4 * 32 * CPL - 1) / (4 * 32 * CPL);
    const int64_t rg = blockIdx.x / cgroups, cgi = blockIdx.x - rg * cgroups;
    const int64_t m0 = rg * TM, c0 = cgi * (4 * 32 * CPL) + warp * (32 * CPL) + lane;
    const int64_t k0 = (int64_t)blockIdx.z * kc, k1 = min(p.K, k0 + kc);
    const unsigned short *A = (const unsigned short *)p.A, *B = (const unsigned short *)p.B;
    float acc[TM][CPL];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < CPL; j++)
            acc[i][j] = 0.f;
    bool cok[CPL];
#pragma unroll
    for (int j = 0; j < CPL; j++)
        cok[j] = c0 + 32 * j < p.N;
    const int mrows = (int)min((int64_t)TM, p.M - m0); /* [1, TM] */
    int64_t k = k0;
    for (; k + UK <= k1; k += UK) {
        float b[UK][CPL];
#pragma unroll
        for (int u = 0; u < UK; u++)
#pragma unroll
            for (int j = 0; j < CPL; j++)
                b[u][j] = cok[j] ? to_f<BF16>(__ldg(B + (k + u) * p.ldb + c0 + 32 * j)) : 0.f;
#pragma unroll
        for (int u = 0; u < UK; u++)
#pragma unroll
            for (int i = 0; i < TM; i++) {
                const float a = i < mrows ? to_f<BF16>(__ldg(A + (m0 + i) * p.lda + k + u)) : 0.f;
#pragma unroll
                for (int j = 0; j < CPL; j++)
                    acc[i][j] = fmaf(a, b[u][j], acc[i][j]);
            }
    }
    for (; k < k1; k++) {
        float b[CPL];
#pragma unroll
        for (int j = 0; j < CPL; j++)
            b[j] = cok[j] ? to_f<BF16>(__ldg(B + k * p.ldb + c0 + 32 * j)) : 0.f;
#pragma unroll
        for (int i = 0; i < TM; i++) {
            const float a = i < mrows ? to_f<BF16>(__ldg(A + (m0 + i) * p.lda + k)) : 0.f;
#pragma unroll
            for (int j = 0; j < CPL; j++)
                acc[i][j] = fmaf(a, b[j], acc[i][j]);
        }
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        if (i >= mrows)
            break;
#pragma unroll
        for (int j = 0; j < CPL; j++) {
            if (!cok[j])
                continue;
            const int64_t m = m0 + i, n = c0 + 32 * j;
            if (ws)
                ws[((int64_t)blockIdx.z * p.M + m) * p.N + n] = acc[i][j];
            else
                mv_out(p, BF16, m, n, acc[i][j]);
        }
    }
}

/* ---- MMA (K <= 128, D is the stream): tensor cores fed from registers, no shared memory ----------
 *
 * mma.sync m16n8k16 (row.col) fragments, g = lane / 4, t = lane % 4 (PTX ISA, "Matrix fragments for
 * mma.m16n8k16"): A a0 = (row g, k 2t .. 2t+1), a1 = (g + 8, 2t ..), a2 = (g, 2t + 8 ..), a3 = (g + 8,
 * 2t + 8 ..); B b0 = (k 2t .. 2t+1, column g), b1 = (k 2t + 8 .., g); D c0, c1 = (g, 2t .. 2t+1), c2, c3 =
 * (g + 8, ..).  Each register holds two 2-byte values, the lower k (or column) in the low half.
 * Values past M, N or K are zeros in the fragments (a NaN past K never meets a zero of the other
 * operand), rows and columns past M, N are not stored. */

/* B[k][n] | B[k + 1][n] << 16, zeros outside K x N (2-byte loads: B's pairs straddle rows; n < 0: ST 2's left tile). */
__device__ __forceinline__ unsigned mv_pair_b(const unsigned short *B, int64_t ldb, int64_t k, int64_t n, int64_t K,
                                              int64_t N)
{
    if (n >= N || n < 0 || k >= K)
        return 0u;
    const unsigned lo = __ldg(B + k * ldb + n), hi = k + 1 < K ? __ldg(B + (k + 1) * ldb + n) : 0u;
    return lo | (hi << 16);
}

/* A[m][k] | A[m][k + 1] << 16 (k even), zeros outside M x K; AW: A's rows start on 4 bytes (base and
 * lda), so a whole pair is one 4-byte load. */
template <bool AW>
__device__ __forceinline__ unsigned mv_pair_a(const unsigned short *A, int64_t lda, int64_t m, int64_t k, int64_t M,
                                              int64_t K)
{
    if (m >= M || k >= K)
        return 0u;
    const unsigned short *a = A + m * lda + k;
    if (AW && k + 1 < K)
        return __ldg((const unsigned *)a);
    const unsigned lo = __ldg(a), hi = k + 1 < K ? __ldg(a + 1) : 0u;
    return lo | (hi << 16);
}

/* The A fragments of m-tile mt for every k step. */
template <int KS, bool AW>
__device__ __forceinline__ void mv_mma_load_a(const smk_gemm16_params &p, int64_t mt, int g, int t,
                                              unsigned (&a)[KS][4])
{
    const unsigned short *A = (const unsigned short *)p.A;
    const int64_t r0 = mt * 16 + g;
#pragma unroll
    for (int ks = 0; ks < KS; ks++) {
        const int64_t k = ks * 16 + 2 * t;
        a[ks][0] = mv_pair_a<AW>(A, p.lda, r0, k, p.M, p.K);
        a[ks][1] = mv_pair_a<AW>(A, p.lda, r0 + 8, k, p.M, p.K);
        a[ks][2] = mv_pair_a<AW>(A, p.lda, r0, k + 8, p.M, p.K);
        a[ks][3] = mv_pair_a<AW>(A, p.lda, r0 + 8, k + 8, p.M, p.K);
    }
}

/* An m-tile's accumulators into D (ST 0: the tile epilogue's pairs; 1: the quad transpose and 16-byte
 * stores; 2: the transpose and aligned 16-byte row chunks at any offset, matvec_chunks.cuh, accl the left
 * n-tile's); rows past M and columns past N are not stored. */
template <int NT, bool BF16, int ST>
__device__ __forceinline__ void mv_mma_store(const smk_gemm16_params &p, const float (&acc)[NT][4],
                                             const float (&accl)[4], int64_t mt, int64_t n0, int g, int t, bool pair_ok)
{
    const bool use_c = p.beta != 0.f, out32 = p.out_f32 != 0;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int64_t row = mt * 16 + g + 8 * h;
        if constexpr (ST == 2) { /* every lane takes part (shuffles) */
            uint4 o;
            mv_quad_transpose16<BF16>(acc, h, p.alpha, t, o);
            const unsigned wl = (unsigned)from_f<BF16>(p.alpha * accl[2 * h]) |
                                ((unsigned)from_f<BF16>(p.alpha * accl[2 * h + 1]) << 16);
            mv_store_chunks((unsigned short *)p.D, p.ldd, row, row < p.M, n0, p.N, 4 * g + t, o, wl);
            continue;
        }
        if constexpr (ST == 1) { /* every lane of the quad takes part in the transpose, then stores */
            unsigned short *d = (unsigned short *)p.D + row * p.ldd;
            uint4 o;
            mv_quad_transpose16<BF16>(acc, h, p.alpha, t, o);
            const int64_t col = n0 + 8 * t; /* the lane's 8 columns after the transpose */
            if (row < p.M && col + 7 < p.N)
                *(uint4 *)(d + col) = o;
            else if (row < p.M) {
                const unsigned ow[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
                for (int e = 0; e < 8; e++)
                    if (col + e < p.N)
                        d[col + e] = (unsigned short)(ow[e / 2] >> (16 * (e & 1)));
            }
            continue;
        }
        if (row >= p.M)
            continue;
#pragma unroll
        for (int j = 0; j < NT; j++) {
            const int64_t col = n0 + 8 * j + 2 * t;
            if (col >= p.N)
                continue;
            const float v0 = p.alpha * acc[j][2 * h], v1 = p.alpha * acc[j][2 * h + 1];
            const bool two = col + 1 < p.N;
            if (out32)
                store_f32(p, row, col, v0, v1, two, pair_ok, use_c, p.beta);
            else
                store_16<BF16>(p, row, col, v0, v1, two, pair_ok, use_c, p.beta);
        }
    }
}

/*
 * KS   k steps of 16 in the B panel (K <= 16 KS).   NT   n-tiles of 8 columns per warp (2, 4).
 * AW   A's rows on 4 bytes.   ST   the stores (NT == 4, 2-byte D, beta == 0 for ST > 0): 0 pairs; 1 D on 16
 *      bytes (base, ldd % 8 == 0): the quad transposes its outputs and each lane stores 8 columns at once (a
 *      warp: 8 rows x 64 bytes); 2 any ldd / offset (gemm16_mv_level bit 8, KS <= 2): also the n-tile left
 *      of the group (columns n0 - 8 ..: a fifth mma per k step) so that the warp owns whole aligned
 *      chunks, 16-byte row chunks shifted by each row's offset (matvec_chunks.cuh mv_store_chunks).
 * Grid: matvec.h smk_mv_mma (ncg column groups, rpw m-tiles per warp).
 * The next m-tile's A fragments are loaded before the current tile's mma and stores.
 */
template <int KS, int NT, bool BF16, bool AW, int ST>
__global__ void __launch_bounds__(kMvThreads, KS <= 4 ? 4 : 3) mv_mma_kernel(smk_gemm16_params p, int64_t ncg, int64_t rpw)
{
    static_assert(ST == 0 || NT == 4, "the quad transpose takes 4 n-tiles");
    constexpr int XL = ST == 2 ? 1 : 0; /* the left n-tile */
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int64_t w = (int64_t)blockIdx.x * 4 + (threadIdx.x >> 5);
    const int64_t cg = w % ncg, mtiles = (p.M + 15) / 16;
    int64_t mt = (w / ncg) * rpw;
    const int64_t mt1 = min(mtiles, mt + rpw);
    if (mt >= mt1)
        return;
    const int64_t n0 = cg * (8 * NT);
    const int kss = (int)((p.K + 15) / 16); /* k steps with any k < K: [1, KS] */
    unsigned b[KS][NT + XL][2]; /* XL: b[ks][NT] the left n-tile */
    const unsigned short *B = (const unsigned short *)p.B;
#pragma unroll
    for (int ks = 0; ks < KS; ks++)
#pragma unroll
        for (int j = 0; j < NT + XL; j++) {
            const int64_t k = ks * 16 + 2 * t, n = n0 + 8 * (j < NT ? j : -1) + g;
            b[ks][j][0] = mv_pair_b(B, p.ldb, k, n, p.K, p.N);
            b[ks][j][1] = mv_pair_b(B, p.ldb, k + 8, n, p.K, p.N);
        }
    const bool pair_ok = pairs_aligned(p, p.beta != 0.f, p.out_f32 != 0);
    unsigned a[KS][4];
    mv_mma_load_a<KS, AW>(p, mt, g, t, a);
    for (; mt < mt1; mt++) {
        unsigned an[KS][4];
        if (mt + 1 < mt1)
            mv_mma_load_a<KS, AW>(p, mt + 1, g, t, an);
        float acc[NT][4], accl[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
        for (int j = 0; j < NT; j++)
            acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
#pragma unroll
        for (int ks = 0; ks < KS; ks++) {
            if (ks >= kss)
                break;
#pragma unroll
            for (int j = 0; j < NT; j++)
                mma16816<BF16>(acc[j], a[ks], b[ks][j][0], b[ks][j][1]);
            if constexpr (XL == 1)
                mma16816<BF16>(accl, a[ks], b[ks][NT][0], b[ks][NT][1]);
        }
        mv_mma_store<NT, BF16, ST>(p, acc, accl, mt, n0, g, t, pair_ok);
        if (mt + 1 < mt1)
#pragma unroll
            for (int ks = 0; ks < KS; ks++)
#pragma unroll
                for (int e = 0; e < 4; e++)
                    a[ks][e] = an[ks][e];
    }
}

/* ---- 16-byte streams at any row offset (the header comment above) ---------------------------- */

constexpr int kMvSeg = 248; /* elements a warp produces per segment: lanes 0..30 x 8 (lane 31 only loads) */

/* Lane `lane`'s 16-byte chunk of the segment starting at rp (elements 8 lane - sh .. 8 lane - sh + 7),
 * of which `lim` elements are in the row: loaded only when it holds one of them (and on), else zero.
 * sh = rp's element offset in its 16-byte chunk, uniform over the warp. */
__device__ __forceinline__ uint4 mv_load_seg(const unsigned short *rp, int64_t lim, bool on, int lane, int &sh)
{
    const uintptr_t a = (uintptr_t)rp;
    sh = (int)((a >> 1) & 7);
    const uint4 *q = (const uint4 *)(a - 2 * (uintptr_t)sh) + lane;
    return on && 8 * lane - sh < lim ? __ldg(q) : make_uint4(0u, 0u, 0u, 0u);
}

/* The lane's 8 consecutive elements rp[8 lane .. 8 lane + 7] (4 words, element 2 i in the low half of
 * w[i]) from its chunk x and lane + 1's (lane 31's are garbage).  Warp-uniform sh; every lane must
 * call it (shuffles). */
__device__ __forceinline__ void mv_seg8(uint4 x, int sh, unsigned (&w)[4])
{
    if (sh == 0) {
        w[0] = x.x, w[1] = x.y, w[2] = x.z, w[3] = x.w;
        return;
    }
    uint4 n;
    n.x = __shfl_down_sync(0xffffffffu, x.x, 1);
    n.y = __shfl_down_sync(0xffffffffu, x.y, 1);
    n.z = __shfl_down_sync(0xffffffffu, x.z, 1);
    n.w = __shfl_down_sync(0xffffffffu, x.w, 1);
    const unsigned c[8] = {x.x, x.y, x.z, x.w, n.x, n.y, n.z, n.w};
    const int q = sh >> 1; /* selects on the word offset: no indexed registers */
    unsigned e[5];
#pragma unroll
    for (int i = 0; i < 5; i++)
        e[i] = q == 0 ? c[i] : q == 1 ? c[i + 1] : q == 2 ? c[i + 2] : c[i + 3];
    const unsigned f = (unsigned)(sh & 1) * 16u;
#pragma unroll
    for (int i = 0; i < 4; i++)
        w[i] = __funnelshift_r(e[i], e[i + 1], f);
}

template <bool BF16>
__device__ __forceinline__ void mv_unpack8(const unsigned (&w)[4], float (&v)[8])
{
#pragma unroll
    for (int i = 0; i < 4; i++) {
        v[2 * i] = to_f<BF16>((unsigned short)(w[i] & 0xffffu));
        v[2 * i + 1] = to_f<BF16>((unsigned short)(w[i] >> 16));
    }
}

/* ROWS' FMAs for UK B rows (chunks x, offsets sh; only the first `left` are the slice's): the rows'
 * 8 elements times a[i], broadcast from lane g + u of ar. */
template <int TM, int UK, bool BF16>
__device__ __forceinline__ void mv_rows_fma(const uint4 (&x)[UK], const int (&sh)[UK], const float (&ar)[TM], int g,
                                            int64_t left, float (&acc)[TM][8])
{
#pragma unroll
    for (int u = 0; u < UK; u++) {
        if (u >= left)
            break;
        unsigned w[4];
        float b[8];
        mv_seg8(x[u], sh[u], w);
        mv_unpack8<BF16>(w, b);
#pragma unroll
        for (int i = 0; i < TM; i++) {
            const float a = __shfl_sync(0xffffffffu, ar[i], g + u);
#pragma unroll
            for (int e = 0; e < 8; e++)
                acc[i][e] = fmaf(a, b[e], acc[i][e]);
        }
    }
}

/*
 * ROWS (M <= 8 per row group): grid x = 248-column segments, y = groups of NW K slices (warp w of the
 * block takes slice NW y + w; NW = 8: summed in the block, mv_block_sum; CL: y is one cluster, summed in
 * it, mv_cluster_sum_spread), z = row groups of TM.  Lane l < 31 owns D[m0 + i][c0 + 8 l + e], i < TM,
 * e < 8.  B rows come UK at a time (one 16-byte chunk per lane each), the next UK issued before the
 * current are used (2 x UK x 512 bytes in flight per warp); A's TM x 32 k group is one 2-byte load
 * per lane and row, issued a group ahead, a[i] broadcast by __shfl_sync from lane k % 32.
 */
template <int TM, bool BF16, int NW = 4, bool SP = false, bool CL = false>
__global__ void __launch_bounds__(32 * NW) mv_rows_kernel(smk_gemm16_params p, int64_t kc, int64_t splits, float *ws,
                                                          float *red = nullptr)
{
    constexpr int UK = TM > 4 ? 4 : 8;
    const int lane = threadIdx.x & 31;
    const int64_t slice = (int64_t)blockIdx.y * NW + (threadIdx.x >> 5);
    if (NW == 4 && slice >= splits) /* NW == 8: every warp reaches the block's reduction (no k: zeros) */
        return;
    const int64_t c0 = (int64_t)blockIdx.x * kMvSeg, cl = c0 + 8 * lane, lim = p.N - c0, m0 = (int64_t)blockIdx.z * TM;
    const int64_t k0 = slice * kc, k1 = min(p.K, k0 + kc);
    const int mrows = (int)min((int64_t)TM, p.M - m0);
    const unsigned short *A = (const unsigned short *)p.A + m0 * p.lda, *B = (const unsigned short *)p.B + c0;
    float acc[TM][8] = {}, ar[TM], an[TM];
#pragma unroll
    for (int i = 0; i < TM; i++)
        ar[i] = i < mrows && k0 + lane < k1 ? to_f<BF16>(__ldg(A + i * p.lda + k0 + lane)) : 0.f;
    uint4 x[UK];
    int sh[UK];
#pragma unroll
    for (int u = 0; u < UK; u++)
        x[u] = mv_load_seg(B + (k0 + u) * p.ldb, lim, k0 + u < k1, lane, sh[u]);
    for (int64_t kb = k0; kb < k1; kb += UK) {
        const int g = (int)((kb - k0) & 31);
        if (g == 0)
#pragma unroll
            for (int i = 0; i < TM; i++) {
                const int64_t k = kb + 32 + lane;
                an[i] = i < mrows && k < k1 ? to_f<BF16>(__ldg(A + i * p.lda + k)) : 0.f;
            }
        uint4 y[UK];
        int shy[UK];
#pragma unroll
        for (int u = 0; u < UK; u++) {
            const int64_t k = kb + UK + u;
            y[u] = mv_load_seg(B + k * p.ldb, lim, k < k1, lane, shy[u]);
        }
        mv_rows_fma<TM, UK, BF16>(x, sh, ar, g, k1 - kb, acc);
#pragma unroll
        for (int u = 0; u < UK; u++)
            x[u] = y[u], sh[u] = shy[u];
        if (g + UK == 32)
#pragma unroll
            for (int i = 0; i < TM; i++)
                ar[i] = an[i];
    }
    int64_t slot = slice; /* the ws slice this warp's sums go to */
    if constexpr (SP) { /* level bit 2: every warp stores its share of the block's sums */
        float f[TM * 8];
#pragma unroll
        for (int e = 0; e < TM * 8; e++)
            f[e] = acc[e / 8][e % 8];
        auto out = [&](int e, float v) {
            const int64_t m = m0 + e / 8, n = cl + e % 8;
            if (lane == 31 || e / 8 >= mrows || n >= p.N)
                return;
            if (ws)
                ws[((int64_t)blockIdx.y * p.M + m) * p.N + n] = v;
            else
                mv_out(p, BF16, m, n, v);
        };
        if constexpr (CL) /* level bit 4: the cluster's blocks sum together (grid y = the cluster, ws null) */
            mv_cluster_sum_spread<TM * 8, NW>(f, red, lane, out);
        else
            mv_block_sum_spread<TM * 8, NW>(f, red, lane, out);
        return;
    }
    if constexpr (NW > 4) {
        if (!mv_block_sum<TM, NW>(acc, red, lane))
            return;
        slot = blockIdx.y;
    }
    if (lane == 31)
        return;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        if (i >= mrows)
            break;
#pragma unroll
        for (int e = 0; e < 8; e++) {
            const int64_t m = m0 + i, n = cl + e;
            if (n >= p.N)
                break;
            if (ws)
                ws[(slot * p.M + m) * p.N + n] = acc[i][e];
            else
                mv_out(p, BF16, m, n, acc[i][e]);
        }
    }
}

/*
 * COLS (N <= 8 per column group): grid x = blocks of 4 warps along M (RPW rows each), y = K slices of
 * 248, z = column groups of NPAD.  Lane l < 31 holds B[k0 + 8 l + e][c0 + c] (e < 8, c < NPAD) in
 * registers (lane 31: zeros); A rows come R at a time (one 16-byte chunk per lane each), the next R
 * issued before the current are used (2 x R x 512 bytes in flight per warp); per row 8 x NPAD FMAs
 * and one reduce-scatter.
 */
template <int NPAD, bool BF16>
__global__ void __launch_bounds__(kMvThreads) mv_cols_kernel(smk_gemm16_params p, int64_t rpw, float *ws)
{
    constexpr int R = 4;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t k0 = (int64_t)blockIdx.y * kMvSeg, c0 = (int64_t)blockIdx.z * NPAD, kl = k0 + 8 * lane;
    const int64_t k1 = min(p.K, k0 + kMvSeg), lim = p.K - k0;
    const int64_t r0 = ((int64_t)blockIdx.x * 4 + warp) * rpw, r1 = min(p.M, r0 + rpw);
    if (r0 >= p.M)
        return;
    const unsigned short *A = (const unsigned short *)p.A + k0, *B = (const unsigned short *)p.B;
    float b[8][NPAD];
    unsigned ok = 0; /* bit e: k = kl + e is this slice's (lane 31 and k >= K: none) */
#pragma unroll
    for (int e = 0; e < 8; e++) {
        ok |= kl + e < k1 ? 1u << e : 0u;
#pragma unroll
        for (int c = 0; c < NPAD; c++)
            b[e][c] = kl + e < k1 && c0 + c < p.N ? to_f<BF16>(__ldg(B + (kl + e) * p.ldb + c0 + c)) : 0.f;
    }
    uint4 x[R];
    int sh[R];
#pragma unroll
    for (int j = 0; j < R; j++)
        x[j] = mv_load_seg(A + (r0 + j) * p.lda, lim, r0 + j < r1, lane, sh[j]);
    for (int64_t m = r0; m < r1; m += R) {
        uint4 y[R];
        int shy[R];
#pragma unroll
        for (int j = 0; j < R; j++)
            y[j] = mv_load_seg(A + (m + R + j) * p.lda, lim, m + R + j < r1, lane, shy[j]);
#pragma unroll
        for (int j = 0; j < R; j++) {
            if (m + j >= r1)
                break;
            unsigned w[4];
            float a[8], s[NPAD];
            mv_seg8(x[j], sh[j], w);
            mv_unpack8<BF16>(w, a);
            if (ok != 0xffu) /* garbage beyond K or in lane 31 may be NaN: zero it */
#pragma unroll
                for (int e = 0; e < 8; e++)
                    a[e] = (ok >> e) & 1u ? a[e] : 0.f;
#pragma unroll
            for (int c = 0; c < NPAD; c++) {
                s[c] = 0.f;
#pragma unroll
                for (int e = 0; e < 8; e++)
                    s[c] = fmaf(a[e], b[e][c], s[c]);
            }
            int col;
            const float v = mv_rscatter<NPAD>(s, lane, col);
            if ((lane & (32 / NPAD - 1)) == 0 && c0 + col < p.N) {
                if (ws)
                    ws[((int64_t)blockIdx.y * p.M + m + j) * p.N + c0 + col] = v;
                else
                    mv_out(p, BF16, m + j, c0 + col, v);
            }
        }
#pragma unroll
        for (int j = 0; j < R; j++)
            x[j] = y[j], sh[j] = shy[j];
    }
}

/* D = alpha * sum_s ws[s] + beta * C.  A warp takes 32 / parts consecutive outputs; lane (part p,
 * output j) sums slices p, p + parts, ... in order, the parts are added by an xor butterfly: the
 * order is fixed by (splits, parts), never by the grid (deterministic). */
template <bool BF16>
__global__ void __launch_bounds__(256) mv_reduce_kernel(smk_gemm16_params p, int64_t splits, int parts, const float *ws)
{
    const int lane = threadIdx.x & 31, per = 32 / parts, j = lane % per, part = lane / per;
    const int64_t total = p.M * p.N, step = (int64_t)gridDim.x * 8 * per;
    for (int64_t base = ((int64_t)blockIdx.x * 8 + (threadIdx.x >> 5)) * per; base < total; base += step) {
        const int64_t i = base + j;
        float v = 0.f;
        if (i < total) {
            int64_t s = part;
            for (; s + 3 * parts < splits; s += 4 * parts) {
                const float v0 = ws[s * total + i], v1 = ws[(s + parts) * total + i];
                const float v2 = ws[(s + 2 * parts) * total + i], v3 = ws[(s + 3 * parts) * total + i];
                v += v0, v += v1, v += v2, v += v3;
            }
            for (; s < splits; s += parts)
                v += ws[s * total + i];
        }
        for (int o = per; o < 32; o *= 2)
            v += __shfl_xor_sync(0xffffffffu, v, o);
        if (part == 0 && i < total) {
            const int64_t m = i / p.N;
            mv_out(p, BF16, m, i - m * p.N, v);
        }
    }
}

} /* namespace g16 */
} /* namespace smk */

#endif
