/*
 * common/splitk_fixup.cuh -- split-K's fused reduction ("serial split-K fixup"), the part both GEMM
 * families share (the SGEMM tile kernel: sgemm/fixup.cuh; the tensor-core GEMM's mma.sync kernel:
 * gemm16/kernel.cuh): after the S blocks of an output tile have written their fp32 partial tiles to the
 * workspace (as for the separate reduction, sgemm/reduce.cuh), each block fences and counts itself on
 * the tile's arrival counter; the block that arrives last sums the S partials of its tile, stores D
 * through the caller's store (the separate reduction's own per-element code), and resets the counter to
 * 0.  No second kernel, no shared memory.
 *
 * Bits: the last block runs reduce.cuh's reduce_batches (reduce_batch's sums, kFixupBatches batches at
 * once) on its tile's float4 groups with the separate reduction's G for this S, so every output is the
 * same sum in the same order as the reduction kernel's (reduce_batch says why the order depends on S
 * alone), whichever block arrives last: the result does not depend on timing, and knob splitk_fixup 0
 * and 2 agree bit for bit.
 *
 * Ordering, two protocols (knob splitk_fence, the `fence` argument):
 *   1 (the default): the block barriers, then one thread fences device-wide, counts (atomicAdd) and, in
 *     the last block, fences again before the barrier that releases the block's reads -- cooperative
 *     groups' grid sync does the same: the barrier orders every thread's partial stores before the
 *     counting thread's fence, which is cumulative;
 *   0 (session 39): the CUDA programming guide's threadFenceReduction pattern, every thread fences its
 *     own stores before the barrier (a device-wide fence per warp).
 * The last block's reads bypass L1 (__ldcg).
 *
 * Counters: one unsigned per tile of the launch (blockIdx.x), zero before the launch and zero again
 * after it: the last block of each tile resets its own.  They come from counters.h smk_rt_counters (per
 * host thread, device and stream, zeroed once on that stream when allocated); launches that share a
 * buffer are ordered by their stream, so no two launches in flight count on one counter.
 *
 * Cost: the last block of a tile reads S partial tiles alone, after the others (fixup_gate_model).
 *
 * Cluster mode (knob level 3, cluster_tile, sm_90): the S blocks of a tile are launched as one thread-block
 * cluster (dims 1 x S x 1 over the grid's slices), so they run together; they meet at the cluster barrier
 * (arrive.release / wait.acquire at cluster scope: each block's partial-tile stores, made before it, are
 * seen by the others' reads after it) and then sum the tile together, the warps of the S blocks walking
 * its float4 groups as one pool with the same reduce_batches -- the same bits again, no counters, and a
 * tail of about one tile read spread over S SMs instead of S tiles read by one.  At most
 * kClusterMaxSlices (the portable cluster size) slices.
 */
#ifndef SMK_COMMON_SPLITK_FIXUP_CUH
#define SMK_COMMON_SPLITK_FIXUP_CUH

#include <stdint.h>

#include "counters.h"
#include "sgemm/reduce.cuh"

namespace smk {

/* Batches of G groups a warp of the last block reduces at once (reduce_batches): 4 x 2 (its unroll)
 * float4 loads in flight per lane. */
constexpr int kFixupBatches = 4;

/* The gates' bounds.  The last block of a tile runs ceil(groups / (warps * G * kFixupBatches)) rounds of
 * reduce_batches one after another, each ceil(S / L) loads per lane, two iterations (8 float4) in
 * flight: about rounds * ceil(S / 2L) dependent L2 round trips (~0.2-0.3 us each on the H100) after the
 * tile's other blocks finished; and it reads S * rows * cols floats through one SM (~64 B per clock from
 * L2, ~100 GB/s).  The separate reduction's smallest launches cost 2.1-2.3 us of device time (SGEMM seed
 * 112, H100): 8 round trips, or 192 KB, is about that. */
constexpr int kFixupMaxChain = 8;
constexpr int64_t kFixupMaxBytes = 192 << 10;

/* The portable thread-block cluster size: cluster mode takes splits of 2 .. this many slices. */
constexpr int kClusterMaxSlices = 8;

/* The gate model, pure: how a split launch over S slices of an M x N output on bm x bn tiles of
 * `threads` threads finishes at knob level `knob`: 0 by the separate reduction; 1 by the last block
 * (knob 1 where the last block's chain and bytes are within the bounds; knob 2 always), its tiles within
 * the counters; 2 by the tile's cluster (knob 3, S <= kClusterMaxSlices; the launcher also wants sm_90). */
inline int fixup_gate_model(int64_t M, int64_t N, int S, int bm, int bn, int threads, int knob)
{
    if (knob <= 0 || S < 1 || M < 1 || N < 1 || bm < 1 || bn < 1 || threads < 32) return 0;
    if (knob >= 3) return S >= 2 && S <= kClusterMaxSlices ? 2 : 0;
    const int64_t tiles = ((M + bm - 1) / bm) * ((N + bn - 1) / bn);
    if (tiles > SMK_RT_COUNTERS) return 0;
    if (knob >= 2) return 1;
    const int64_t G = reduce_groups_per_warp(S), L = 32 / G;
    const int64_t rows = M < bm ? M : bm, cols = N < bn ? N : bn, groups = rows * ((cols + 3) / 4);
    const int64_t per_round = (int64_t)(threads / 32) * G * kFixupBatches;
    const int64_t rounds = (groups + per_round - 1) / per_round;
    return rounds * ((S + 2 * L - 1) / (2 * L)) <= kFixupMaxChain && (int64_t)S * rows * cols * 4 <= kFixupMaxBytes;
}

/* The float4 groups of tile (bm, bn), walked by warp `warp` of `warps` (in range only): each round a
 * warp's kFixupBatches batches of G groups through reduce_batches. */
template <int BM, int BN, class Store>
__device__ __forceinline__ void fixup_walk(int warp, int warps, int S, int G, const float *W, int64_t ldw,
                                           int64_t stride, int64_t M, int64_t N, int64_t bm, int64_t bn, Store &store)
{
    const int tx = (threadIdx.x & 31) & (G - 1);
    const int rows = (int)min((int64_t)BM, M - bm), cg = (int)((min((int64_t)BN, N - bn) + 3) / 4);
    const int groups = rows * cg; /* in range only */
    for (int g0 = warp * G * kFixupBatches; g0 < groups; g0 += warps * G * kFixupBatches) { /* per warp */
        bool ok[kFixupBatches];
        int64_t m[kFixupBatches], n[kFixupBatches];
#pragma unroll
        for (int r = 0; r < kFixupBatches; ++r) {
            const int g = g0 + r * G + tx;
            ok[r] = g < groups;
            m[r] = ok[r] ? bm + g / cg : 0;
            n[r] = ok[r] ? bn + (int64_t)(g % cg) * 4 : 0;
        }
        reduce_batches<kFixupBatches>(W, stride, ldw, S, G, N, ok, m, n, store);
    }
}

/* The tail of tile (bm, bn) of a split launch: W the workspace (slice z at W + z * stride, leading
 * dimension ldw), G = reduce_groups_per_warp(S); store(m, n, sum, valid) as reduce_walk's; fence the
 * protocol (above).  Called by every thread of the block after its epilogue stored the partial tile. */
template <int THREADS, int BM, int BN, class Store>
__device__ __forceinline__ void fixup_tile(unsigned *counters, int fence, int S, int G, const float *W, int64_t ldw,
                                           int64_t stride, int64_t M, int64_t N, int64_t bm, int64_t bn, Store &store)
{
    if (fence) {
        __syncthreads(); /* every thread's partial stores, before the counting thread's fence */
        if (threadIdx.x == 0) __threadfence();
    } else {
        __threadfence(); /* this thread's partial stores, visible device-wide before the count */
        __syncthreads();
    }
    int last = 0;
    if (threadIdx.x == 0) {
        last = atomicAdd(counters + blockIdx.x, 1u) == (unsigned)(S - 1);
        if (last) atomicExch(counters + blockIdx.x, 0u); /* zero again for the stream's next launch */
        __threadfence(); /* the other blocks' partials, seen through their fences, before the reads */
    }
    if (!__syncthreads_or(last)) return;
    fixup_walk<BM, BN>(threadIdx.x >> 5, THREADS / 32, S, G, W, ldw, stride, M, N, bm, bn, store);
}

/* Cluster mode's tail of tile (bm, bn) (the header says how): blockIdx.y is the block's rank in the
 * tile's cluster.  Called by every thread of the block after its epilogue stored the partial tile. */
template <int THREADS, int BM, int BN, class Store>
__device__ __forceinline__ void cluster_tile(int S, int G, const float *W, int64_t ldw, int64_t stride, int64_t M,
                                             int64_t N, int64_t bm, int64_t bn, Store &store)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    fixup_walk<BM, BN>((int)blockIdx.y * (THREADS / 32) + (threadIdx.x >> 5), S * (THREADS / 32), S, G, W, ldw, stride,
                       M, N, bm, bn, store);
#else
    __trap(); /* the launcher takes cluster mode on sm_90 and later only */
#endif
}

} /* namespace smk */

#endif /* SMK_COMMON_SPLITK_FIXUP_CUH */
