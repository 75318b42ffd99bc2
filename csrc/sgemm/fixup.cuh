/*
 * sgemm/fixup.cuh -- split-K's fused reduction ("serial split-K fixup") for the tile kernel (tile.cuh):
 * after the S blocks of an output tile have written their fp32 partial tiles to the workspace (as for
 * the separate reduction, reduce.cuh), each block fences and counts itself on the tile's arrival
 * counter; the block that arrives last sums the S partials of its tile, applies alpha, beta * C and
 * stores D, and resets the counter to 0.  No second kernel, no shared memory.
 *
 * Bits: the last block runs reduce.cuh's reduce_batches (reduce_batch's sums, kFixupBatches batches at
 * once) on its tile's float4 groups with the separate reduction's G for this S, so every output is the same sum in the same order as sgemm_reduce_kernel's
 * (reduce_batch says why the order depends on S alone), whichever block arrives last: the result does
 * not depend on timing, and knob splitk_fixup 0 and 2 agree bit for bit.  The store is parts.cuh's
 * store4, the reduction's own.
 *
 * Ordering (the CUDA programming guide's threadFenceReduction pattern): every thread fences its partial
 * tile stores device-wide, the block barriers, one thread counts (atomicAdd); the last block's counting
 * thread fences again before the barrier that releases the block's reads, which bypass L1 (__ldcg in
 * reduce_batch).
 *
 * Counters: one unsigned per tile of the launch (blockIdx.x), zero before the launch and zero again
 * after it: the last block of each tile resets its own.  They come from the per-(thread, device,
 * stream) buffer of runtime.c smk_rt_counters, zeroed once on that stream when allocated; launches
 * that share it are ordered by their stream, so no two launches in flight count on one counter.
 *
 * Cost: the last block of a tile reads S partial tiles alone, after the others: reduce_batch batches
 * of G groups per warp, kFixupBatches at once.  The launcher takes this path only where the gate
 * (launch.cu smk_sgemm_fixup_gate) says the serial chain is short.
 */
#ifndef SMK_SGEMM_FIXUP_CUH
#define SMK_SGEMM_FIXUP_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "sgemm/launch.h"
#include "sgemm/parts.cuh"
#include "sgemm/reduce.cuh"

namespace smk {

/* Batches of G groups a warp of the last block reduces at once (reduce_batches): 4 x 2 (its unroll) float4
 * loads in flight per lane. */
constexpr int kFixupBatches = 4;

/* What the tile kernel needs to finish a split launch itself.  counters == NULL: no fixup (an unsplit
 * launch, or split partials for the separate reduction). */
struct SgemmFixup {
    unsigned *counters; /* one per tile (blockIdx.x), zero at launch */
    float *D;           /* the call's output, leading dimension ldd */
    const float *C;     /* read only when beta != 0 */
    int64_t ldd, ldc;
    float alpha, beta;
    int S, G; /* slices, and reduce_groups_per_warp(S) */
    int vec;  /* D (and C when read) 16-byte aligned, ldd (ldc) % 4 == 0: sgemm_vec of the call */
};

/* A tile kernel launch that finishes its split itself where fx.counters != NULL (tile.cuh; instantiated by
 * tile_<layout>.cu for every TILE row of configs.h). */
template <class Cfg, int LAYOUT, bool VEC>
int tile_launch_fix(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, const SgemmFixup &fx,
                    cudaStream_t stream);

/* The tail of tile (bm, bn) of a split launch: W the workspace (slice z at W + z * stride, leading
 * dimension ldw).  Called by every thread of the block after its epilogue stored the partial tile. */
template <int THREADS, int BM, int BN>
__device__ __forceinline__ void sgemm_fixup_tile(const SgemmFixup &fx, const float *W, int64_t ldw,
                                                 int64_t stride, int M, int N, int bm, int bn)
{
    __threadfence(); /* this thread's partial stores, visible device-wide before the count */
    __syncthreads();
    int last = 0;
    if (threadIdx.x == 0) {
        last = atomicAdd(fx.counters + blockIdx.x, 1u) == (unsigned)(fx.S - 1);
        if (last) atomicExch(fx.counters + blockIdx.x, 0u); /* zero again for the stream's next launch */
        __threadfence(); /* the other blocks' partials, seen through their fences, before the reads */
    }
    if (!__syncthreads_or(last)) return;
    const int G = fx.G, tx = (threadIdx.x & 31) & (G - 1), warp = threadIdx.x >> 5;
    const int rows = min(BM, M - bm), cg = (min(BN, N - bn) + 3) / 4, groups = rows * cg; /* in range only */
    const float alpha = fx.alpha, beta = fx.beta;
    auto store = [&](int64_t m, int64_t n, float4 s, int valid) {
        float *d = fx.D + m * fx.ldd + n;
        const float *c = fx.C + m * fx.ldc + n; /* formed only; read only if beta != 0 */
        if (fx.vec) store4<true>(d, c, s, alpha, beta, valid);
        else store4<false>(d, c, s, alpha, beta, valid);
    };
    for (int g0 = warp * G * kFixupBatches; g0 < groups; g0 += (THREADS / 32) * G * kFixupBatches) { /* per warp */
        bool ok[kFixupBatches];
        int64_t m[kFixupBatches], n[kFixupBatches];
#pragma unroll
        for (int r = 0; r < kFixupBatches; ++r) {
            const int g = g0 + r * G + tx;
            ok[r] = g < groups;
            m[r] = ok[r] ? bm + g / cg : 0;
            n[r] = ok[r] ? bn + (int64_t)(g % cg) * 4 : 0;
        }
        reduce_batches<kFixupBatches>(W, stride, ldw, fx.S, G, (int64_t)N, ok, m, n, store);
    }
}

} /* namespace smk */

#endif /* SMK_SGEMM_FIXUP_CUH */
