/*
 * sgemm/reduce.cuh -- the split-K reduction kernel: D = alpha * (sum over z of W[z]) + beta * C, W the S
 * partial tiles (M x ldw floats each, ldw = N rounded up to 4, 16-byte aligned: the workspace is
 * launch.cu's).  The GEMM writes columns < N only, so a row's last group, when N % 4 != 0, reads its
 * N % 4 columns one by one, never the unwritten pad (compute-sanitizer initcheck).
 *
 * A warp owns G consecutive float4 groups of a row-major walk of W (lane % G) and splits the slices
 * 32/G ways (lane / G sums slices z = lane / G, + 32/G, ...): G = 2 when S >= 16 (each lane pair reads
 * one whole 32-byte sector, 16 loads in flight per group), 4 when S >= 8, else 8 (whole 128-byte
 * lines).  The 32/G lane sums are combined by XOR shuffles: a fixed tree for a given S, so the result
 * never depends on timing (and every lane of a group holds the same value: + commutes).  No shared
 * memory: explain()'s plan of the GEMM kernel is the whole launch's shared-memory traffic.  C is read
 * only when beta != 0 (NaN in C does not leak) and with plain loads (C may alias D; each element is
 * read, then written, by one thread).  Launched as a programmatic dependent launch where the device
 * has them: it waits for the GEMM grid in pdl_wait_prerequisites (common/ptx_load.cuh).
 */
#ifndef SMK_SGEMM_REDUCE_CUH
#define SMK_SGEMM_REDUCE_CUH

#include <stdint.h>

#include "api/sgemm.h"
#include "sgemm/parts.cuh"

namespace smk {

constexpr int kReduceThreads = 64;

inline int reduce_groups_per_warp(int S) { return S >= 16 ? 2 : (S >= 8 ? 4 : 8); }

/* The lane sums of a group meet: XOR shuffles over the lanes ty = lane / G, a fixed tree (+ commutes, so
 * every lane of the group ends with the same bits). */
__device__ __forceinline__ void reduce_tree(float4 &s, int G)
{
    for (int o = G; o < 32; o <<= 1) {
        s.x += __shfl_xor_sync(0xffffffffu, s.x, o);
        s.y += __shfl_xor_sync(0xffffffffu, s.y, o);
        s.z += __shfl_xor_sync(0xffffffffu, s.z, o);
        s.w += __shfl_xor_sync(0xffffffffu, s.w, o);
    }
}

/* One warp's batch of G float4 groups (the body of reduce_walk, and of the tile kernel's fused fixup,
 * sgemm/fixup.cuh): lane tx = lane % G holds group (m, n) (ok = false: none), lanes ty = lane / G sum
 * slices z = ty, ty + L, ... (L = 32 / G) from 0.f in ascending z, and the L lane sums meet in the XOR
 * tree below.  A value's sum order is fixed by S alone (G, L from reduce_groups_per_warp): whichever
 * kernel or warp runs the batch, the bits are the same.  Called by all 32 lanes (shuffles); store(m, n,
 * sum, valid) by lane ty == 0 of each group in range, valid = N - n (>= 1). */
template <class Store>
__device__ __forceinline__ void reduce_batch(const float *__restrict__ W, int64_t slice_stride, int64_t ldw, int S,
                                             int G, int64_t N, bool ok, int64_t m, int64_t n, Store &store)
{
    const int lane = threadIdx.x & 31, ty = lane / G, L = 32 / G;
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
    if (ok) {
        const float *w = W + m * ldw + n;
        if (n + 4 <= N) {
#pragma unroll 4
            for (int z = ty; z < S; z += L) {
                const float4 v = __ldcg(reinterpret_cast<const float4 *>(w + z * slice_stride));
                s.x += v.x;
                s.y += v.y;
                s.z += v.z;
                s.w += v.w;
            }
        } else { /* a row's last group when N % 4 != 0: only its written columns (never the pad) */
            const int nv = (int)(N - n); /* 1..3 */
            for (int z = ty; z < S; z += L) {
                const float *wz = w + z * slice_stride;
                s.x += __ldcg(wz);
                if (nv > 1) s.y += __ldcg(wz + 1);
                if (nv > 2) s.z += __ldcg(wz + 2);
            }
        }
    }
    reduce_tree(s, G);
    if (ok && ty == 0 && n < N) store(m, n, s, (int)(N - n));
}

/* reduce_batch on R batches at once, for a kernel whose warps have few batches to walk one after another
 * (the tile kernel's fused fixup): lane tx holds groups (m[r], n[r]), r < R, of R batches.  Each group's
 * sum is reduce_batch's: the same slices per lane, added in the same ascending z from 0.f, the same tree.
 * The loads of two z steps of all R batches are issued before the first add (a warp issues in order:
 * an add right after its load would hold the next load back a whole L2 round trip; session 40's ncu of
 * the fused fixup found 8 such round trips in series per batch round).  A partial group (a row's last,
 * nv < 4) adds its missing components as +0.f to a sum that stays +0.f: the bits of reduce_batch. */
template <int R, class Store>
__device__ __forceinline__ void reduce_batches(const float *__restrict__ W, int64_t slice_stride, int64_t ldw, int S,
                                               int G, int64_t N, const bool (&ok)[R], const int64_t (&m)[R],
                                               const int64_t (&n)[R], Store &store)
{
    const int lane = threadIdx.x & 31, ty = lane / G, L = 32 / G;
    float4 s[R];
    const float *w[R];
    int nv[R]; /* columns in range, 0 (no group) .. 4 */
#pragma unroll
    for (int r = 0; r < R; ++r) {
        s[r] = make_float4(0.f, 0.f, 0.f, 0.f);
        w[r] = W + m[r] * ldw + n[r];
        nv[r] = !ok[r] ? 0 : (N - n[r] >= 4 ? 4 : (int)(N - n[r]));
    }
    for (int z0 = ty; z0 < S; z0 += 2 * L) {
        float4 v[2][R];
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            const int z = z0 + u * L;
#pragma unroll
            for (int r = 0; r < R; ++r) {
                const float *wz = w[r] + (int64_t)z * slice_stride;
                v[u][r] = make_float4(0.f, 0.f, 0.f, 0.f);
                if (z < S && nv[r] == 4) {
                    v[u][r] = __ldcg(reinterpret_cast<const float4 *>(wz));
                } else if (z < S && nv[r] > 0) { /* a row's last group when N % 4 != 0: never the pad */
                    v[u][r].x = __ldcg(wz);
                    if (nv[r] > 1) v[u][r].y = __ldcg(wz + 1);
                    if (nv[r] > 2) v[u][r].z = __ldcg(wz + 2);
                }
            }
        }
#pragma unroll
        for (int u = 0; u < 2; ++u) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                if (z0 + u * L < S && nv[r] > 0) {
                    s[r].x += v[u][r].x;
                    s[r].y += v[u][r].y;
                    s[r].z += v[u][r].z;
                    s[r].w += v[u][r].w;
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        reduce_tree(s[r], G);
        if (ok[r] && ty == 0 && n[r] < N) store(m[r], n[r], s[r], (int)(N - n[r]));
    }
}

/* The walk both split-K reductions share (this SGEMM's, and the tensor-core GEMM's gemm16/gemm16_reduce.cu):
 * store(m, n, sum, valid) once per float4 group of an M x N output, valid = N - n columns left in the
 * row (>= 1; only the first min(valid, 4) are sums).  Called by every thread of the grid. */
template <class Store>
__device__ __forceinline__ void reduce_walk(const float *__restrict__ W, int64_t slice_stride, int64_t ldw, int S,
                                            int G, int64_t M, int64_t N, Store store)
{
    const int tx = (threadIdx.x & 31) & (G - 1);
    const int64_t per_row = ldw / 4, groups = M * per_row;
    const int64_t warp = ((int64_t)blockIdx.x * kReduceThreads + threadIdx.x) >> 5;
    const int64_t warps = ((int64_t)gridDim.x * kReduceThreads) >> 5;
    for (int64_t g0 = warp * G; g0 < groups; g0 += warps * G) { /* uniform per warp: shuffles in the batch */
        const int64_t g = g0 + tx;
        const bool ok = g < groups;
        const int64_t m = ok ? g / per_row : 0, n = ok ? (g % per_row) * 4 : 0;
        reduce_batch(W, slice_stride, ldw, S, G, N, ok, m, n, store);
    }
}

template <bool VEC>
__global__ void __launch_bounds__(kReduceThreads)
    sgemm_reduce_kernel(const float *__restrict__ W, int64_t slice_stride, int64_t ldw, int S, int G,
                        const smk_sgemm_params p)
{
    pdl_wait_prerequisites(); /* the GEMM grid's partial tiles are complete and visible */
    const float alpha = p.alpha, beta = p.beta;
    /* C formed only; read only if beta != 0 */
    reduce_walk(W, slice_stride, ldw, S, G, p.M, p.N, [&](int64_t m, int64_t n, float4 s, int valid) {
        store4<VEC>(p.D + m * p.ldd + n, p.C + m * p.ldc + n, s, alpha, beta, valid);
    });
}

} /* namespace smk */

#endif /* SMK_SGEMM_REDUCE_CUH */
