/* The memory-bound path's kernels (routing and the why: matvec.h).  CUDA cores, fp32 accumulation, NO
 * shared memory: every operand goes global -> registers, so the layouts (naive / pad / swizzle) run
 * the same code and explain() models no shared access for these launches.
 *
 * Loads are 2-byte, at any alignment: a warp's load covers 64 contiguous bytes (2 sectors), so a
 * stream of B (ROWS) or A (COLS) needs ~0.2 warp loads per clock per SM to reach 3 TB/s on 132 SMs,
 * well inside the LSU's 1 per clock; no peeling, no padded copies.
 *
 * Output (S == 1): alpha * acc + beta * C rounded as the tile kernel's epilogue does (store_f32 /
 * store_16 of epilogue.cuh, one element at a time: lanes hold consecutive columns, so each warp store
 * is coalesced).  S > 1: fp32 partials into ws[s][m][n], summed by mv_reduce in slice order. */
#ifndef SMK_GEMM16_MATVEC_CUH
#define SMK_GEMM16_MATVEC_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "epilogue.cuh"

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
 * ROWS: block = 4 warps side by side along N; blockIdx.x = (row group, column group), blockIdx.z = K
 * slice.  Thread (warp w, lane l) owns D[m0 + i][c0 + l + 32 j], i < TM, j < CPL: per k it loads CPL
 * B values (warp: CPL loads of 64 contiguous bytes) and TM A values (warp-uniform: one broadcast
 * each, L1 hits after the first warp), then TM x CPL FMAs.  UK k rows of B are loaded before any is
 * used, so each warp has UK x CPL x 64 bytes in flight.
 */
template <int TM, int CPL, bool BF16>
__global__ void __launch_bounds__(kMvThreads) mv_rows_kernel(smk_gemm16_params p, int64_t kc, float *ws)
{
    constexpr int UK = TM * CPL >= 128 ? 2 : 32 / CPL; /* b[UK][CPL] + acc[TM][CPL] within 255 registers */
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

/*
 * COLS: block = 4 warps, each on RPW consecutive rows; blockIdx.y = K slice (k0 = y * 32 J),
 * blockIdx.z = column group (NPAD columns from z * NPAD).  Lane l holds B[k0 + l + 32 j][c] for
 * j < J, c < NPAD (registers, loaded once); per row it loads A[m][k0 + l + 32 j] (warp: J loads of
 * 64 contiguous bytes), forms NPAD partial dots and reduces them over the warp (xor butterfly, 5
 * shuffles each); lane c < NPAD writes column c.
 */
template <int NPAD, bool BF16>
__global__ void __launch_bounds__(kMvThreads) mv_cols_kernel(smk_gemm16_params p, int64_t rpw, float *ws)
{
    constexpr int J = 64 / NPAD;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t k0 = (int64_t)blockIdx.y * (32 * J), c0 = (int64_t)blockIdx.z * NPAD;
    const int64_t r0 = ((int64_t)blockIdx.x * 4 + warp) * rpw, r1 = min(p.M, r0 + rpw);
    const unsigned short *A = (const unsigned short *)p.A, *B = (const unsigned short *)p.B;
    float b[J][NPAD];
    bool kok[J];
#pragma unroll
    for (int j = 0; j < J; j++) {
        const int64_t k = k0 + lane + 32 * j;
        kok[j] = k < p.K;
#pragma unroll
        for (int c = 0; c < NPAD; c++)
            b[j][c] = kok[j] && c0 + c < p.N ? to_f<BF16>(__ldg(B + k * p.ldb + c0 + c)) : 0.f;
    }
    for (int64_t m = r0; m < r1; m++) {
        const unsigned short *arow = A + m * p.lda + k0 + lane;
        float a[J];
#pragma unroll
        for (int j = 0; j < J; j++)
            a[j] = kok[j] ? to_f<BF16>(__ldg(arow + 32 * j)) : 0.f;
        float s[NPAD];
#pragma unroll
        for (int c = 0; c < NPAD; c++) {
            s[c] = 0.f;
#pragma unroll
            for (int j = 0; j < J; j++)
                s[c] = fmaf(a[j], b[j][c], s[c]);
        }
#pragma unroll
        for (int c = 0; c < NPAD; c++)
#pragma unroll
            for (int o = 16; o > 0; o >>= 1)
                s[c] += __shfl_xor_sync(0xffffffffu, s[c], o);
        float mine = s[0];
#pragma unroll
        for (int c = 1; c < NPAD; c++)
            mine = lane == c ? s[c] : mine;
        if (lane < NPAD && c0 + lane < p.N) {
            if (ws)
                ws[((int64_t)blockIdx.y * p.M + m) * p.N + c0 + lane] = mine;
            else
                mv_out(p, BF16, m, c0 + lane, mine);
        }
    }
}

/* D = alpha * sum_s ws[s] + beta * C, the slices summed in order 0..S-1 (deterministic). */
template <bool BF16>
__global__ void __launch_bounds__(256) mv_reduce_kernel(smk_gemm16_params p, int64_t splits, const float *ws)
{
    const int64_t total = p.M * p.N, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += stride) {
        float v = 0.f;
        for (int64_t s = 0; s < splits; s++)
            v += ws[s * total + i];
        const int64_t m = i / p.N;
        mv_out(p, BF16, m, i - m * p.N, v);
    }
}

} /* namespace g16 */
} /* namespace smk */

#endif
