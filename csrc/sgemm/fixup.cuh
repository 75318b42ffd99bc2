/*
 * sgemm/fixup.cuh -- split-K's fused reduction for the SGEMM tile kernel (tile.cuh): the shared protocol
 * and walk of common/splitk_fixup.cuh with the separate reduction's store (parts.cuh store4, as
 * reduce.cuh's sgemm_reduce_kernel stores), so knob splitk_fixup 0 and 2 agree bit for bit.  The
 * launcher takes it where launch.cu's gate (smk_sgemm_fixup_gate) says.
 */
#ifndef SMK_SGEMM_FIXUP_CUH
#define SMK_SGEMM_FIXUP_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "common/splitk_fixup.cuh"
#include "sgemm/launch.h"
#include "sgemm/parts.cuh"

namespace smk {

/* What the tile kernel needs to finish a split launch itself.  counters == NULL and cluster == 0: no
 * fixup (an unsplit launch, or split partials for the separate reduction). */
struct SgemmFixup {
    unsigned *counters; /* one per tile (blockIdx.x), zero at launch */
    float *D;           /* the call's output, leading dimension ldd */
    const float *C;     /* read only when beta != 0 */
    int64_t ldd, ldc;
    float alpha, beta;
    int S, G; /* slices, and reduce_groups_per_warp(S) */
    int vec;  /* D (and C when read) 16-byte aligned, ldd (ldc) % 4 == 0: sgemm_vec of the call */
    int fence; /* common/splitk_fixup.cuh's protocol (knob splitk_fence) */
    int cluster; /* 1: the tile's S blocks are one cluster and sum it together (cluster_tile); counters unused */
};

/* A tile kernel launch that finishes its split itself where fx.counters != NULL (tile.cuh; instantiated by
 * tile_<layout>.cu for every TILE row of configs.h). */
template <class Cfg, int LAYOUT, bool VEC>
int tile_launch_fix(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, const SgemmFixup &fx,
                    cudaStream_t stream);

/* The tail of tile (bm, bn) of a split launch (common/splitk_fixup.cuh fixup_tile, or cluster_tile in
 * cluster mode), W the workspace. */
template <int THREADS, int BM, int BN>
__device__ __forceinline__ void sgemm_fixup_tile(const SgemmFixup &fx, const float *W, int64_t ldw,
                                                 int64_t stride, int M, int N, int bm, int bn)
{
    const float alpha = fx.alpha, beta = fx.beta;
    auto store = [&](int64_t m, int64_t n, float4 s, int valid) {
        float *d = fx.D + m * fx.ldd + n;
        const float *c = fx.C + m * fx.ldc + n; /* formed only; read only if beta != 0 */
        if (fx.vec) store4<true>(d, c, s, alpha, beta, valid);
        else store4<false>(d, c, s, alpha, beta, valid);
    };
    if (fx.cluster)
        cluster_tile<THREADS, BM, BN>(fx.S, fx.G, W, ldw, stride, M, N, bm, bn, store);
    else
        fixup_tile<THREADS, BM, BN>(fx.counters, fx.fence, fx.S, fx.G, W, ldw, stride, M, N, bm, bn, store);
}

} /* namespace smk */

#endif /* SMK_SGEMM_FIXUP_CUH */
