/*
 * sgemm/tinyk.cuh -- the SGEMM kernel for tiny K ("tiny-k" row of configs.h, issue 27): K <= 16, where
 * writing D is the whole cost.
 *
 *   D = alpha * A @ B + beta * C      float32, row-major, leading dimensions in elements
 *
 * Bytes against flops: D = A @ B writes 4*M*N bytes (and reads as many of C when beta != 0) for
 * 2*M*N*K flops, so at K <= 16 its intensity is at most K/2 = 8 flop/byte, under the H100's fp32
 * balance (51 TFLOP/s / 3.35 TB/s = 15 flop/byte): the ceiling is the write bandwidth of D, and the
 * tile kernel (a 64x64 or 128x128 tile filled in one or two k-tiles, then an epilogue of scalar
 * stores through a 4x4 thread tile) spends its time in its prologue and epilogue.  This kernel keeps
 * B's K x 4 values of its columns in registers for the whole block, and walks rows:
 *
 *   block   TILE_M = RW * THREADS/32 rows x TILE_N = 128 columns; warp w: rows bm + RW*w .. +RW-1,
 *           all 128 columns (a warp's store is 512 contiguous bytes of one D row).
 *   lane    VEC (D, C, B rows on 16 bytes): columns bn + 4*lane .. +3, one LDG.128 per B row, one
 *           STG.128 per D row (store4).  Otherwise: columns bn + lane + 32*j, j = 0..3, so each of the
 *           four scalar stores of a row is 128 contiguous bytes across the warp (coalesced; no
 *           realignment needed), and B's scalar loads likewise.
 *   per row A[row][0..K) read with K scalar loads, one address per warp (L1 broadcast), then 4*K FMAs
 *           from registers, then the row's store.  FMA issue 4K per 16 bytes of D per thread: at
 *           K = 16 about half the SM's issue rate at DRAM write speed; below that, well under.
 *
 * No shared memory: nothing for a layout to change (every layout runs the same kernel) and nothing
 * for explain()'s bank model (its plan has no shared accesses).  Any M, N, K, alignment and
 * SgemmSlice: K slices deeper than KT (a forced config on a shape the chooser would not give it) take
 * a general loop that reloads B per row (correct, not fast).
 */
#ifndef SMK_SGEMM_TINYK_CUH
#define SMK_SGEMM_TINYK_CUH

#include <stdint.h>

#include "api/sgemm.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"
#include "sgemm/parts.cuh"

namespace smk {

/* Column j (0..3) of lane `lane` in a 128-column block tile at bn. */
template <bool VEC>
__device__ __forceinline__ int tinyk_col(int bn, int lane, int j)
{
    return VEC ? bn + 4 * lane + j : bn + lane + 32 * j;
}

/* The KT-deep B panel of this lane's four columns, rows k >= klen (and columns >= N) zero. */
template <int KT, bool VEC>
__device__ __forceinline__ void tinyk_load_b(const float *B, int64_t ldb, int klen, int bn, int lane, int N,
                                             float (&b)[KT][4])
{
#pragma unroll
    for (int k = 0; k < KT; ++k) {
        if (VEC) {
            const int c = tinyk_col<true>(bn, lane, 0);
            const float4 v = load4<true>(B + (int64_t)k * ldb + (c < N ? c : 0), k < klen ? N - c : 0);
            b[k][0] = v.x, b[k][1] = v.y, b[k][2] = v.z, b[k][3] = v.w;
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int c = tinyk_col<false>(bn, lane, j);
                b[k][j] = (k < klen && c < N) ? __ldg(B + (int64_t)k * ldb + c) : 0.f;
            }
        }
    }
}

/* acc[j] += sum over k < KT of A row's a[k] * b[k][j] (a[k] = 0 for k >= klen: a NaN past K never
 * meets a zero of B). */
template <int KT>
__device__ __forceinline__ void tinyk_row(const float *ar, int klen, const float (&b)[KT][4], float (&acc)[4])
{
    float a[KT];
#pragma unroll
    for (int k = 0; k < KT; ++k) a[k] = k < klen ? __ldg(ar + k) : 0.f;
#pragma unroll
    for (int k = 0; k < KT; ++k)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[j] = fmaf(a[k], b[k][j], acc[j]);
}

/* D[row][cols] = alpha * acc + beta * C (C read only when beta != 0). */
template <bool VEC>
__device__ __forceinline__ void tinyk_store(const smk_sgemm_params &p, float *D, int row, int bn, int lane, int N,
                                            const float (&acc)[4])
{
    if (VEC) {
        const int c = tinyk_col<true>(bn, lane, 0);
        if (c < N)
            store4<true>(D + (int64_t)row * p.ldd + c, p.C + (int64_t)row * p.ldc + c,
                         make_float4(acc[0], acc[1], acc[2], acc[3]), p.alpha, p.beta, N - c);
        return;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int c = tinyk_col<false>(bn, lane, j);
        if (c < N) {
            float v = p.alpha * acc[j];
            if (p.beta != 0.f) v = fmaf(p.beta, p.C[(int64_t)row * p.ldc + c], v); /* plain load: C may alias D */
            D[(int64_t)row * p.ldd + c] = v;
        }
    }
}

/*
 * Cfg   TinyKCfg.   KT  the B panel's depth in registers (1, 2, 4, 8 or 16 >= the slice's depth; a deeper
 *       slice takes the general loop).   VEC  D, C (when read) and B on 16 bytes with ld % 4 == 0.
 */
template <class Cfg, int KT, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINBLOCKS)
    tinyk_kernel(const smk_sgemm_params p, const SgemmSlice slice)
{
    constexpr int RW = Cfg::RW;
    pdl_allow_dependents(); /* the split's reduction may be scheduled */
    const int M = (int)p.M, N = (int)p.N;
    int kbeg = 0, klen = 0;
    sgemm_block_k_range(p.K, slice.k_chunk, &kbeg, &klen);
    const int tiles_n = (N + Cfg::TILE_N - 1) / Cfg::TILE_N;
    const int bn = ((int)blockIdx.x % tiles_n) * Cfg::TILE_N;
    const int bm = ((int)blockIdx.x / tiles_n) * Cfg::TILE_M;
    const int lane = threadIdx.x & 31, row0 = bm + (threadIdx.x >> 5) * RW;
    const float *A = p.A + kbeg, *B = p.B + (int64_t)kbeg * p.ldb;
    float *D = p.D + blockIdx.y * slice.d_stride;

    if (klen <= KT) { /* the panel stays in registers for all RW rows */
        float b[KT][4];
        tinyk_load_b<KT, VEC>(B, p.ldb, klen, bn, lane, N, b);
#pragma unroll 2
        for (int i = 0; i < RW; ++i) {
            const int row = row0 + i;
            if (row >= M) break;
            float acc[4] = {0.f, 0.f, 0.f, 0.f};
            tinyk_row<KT>(A + (int64_t)row * p.lda, klen, b, acc);
            tinyk_store<VEC>(p, D, row, bn, lane, N, acc);
        }
        return;
    }
#pragma unroll 1
    for (int i = 0; i < RW; ++i) { /* deep slice (forced): KT-deep panels reloaded per row */
        const int row = row0 + i;
        if (row >= M) break;
        float acc[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll 1
        for (int k0 = 0; k0 < klen; k0 += KT) {
            float b[KT][4];
            tinyk_load_b<KT, VEC>(B + (int64_t)k0 * p.ldb, p.ldb, klen - k0, bn, lane, N, b);
            tinyk_row<KT>(A + (int64_t)row * p.lda + k0, klen - k0, b, acc);
        }
        tinyk_store<VEC>(p, D, row, bn, lane, N, acc);
    }
}

} /* namespace smk */

#endif /* SMK_SGEMM_TINYK_CUH */
