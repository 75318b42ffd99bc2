/* The tensor-core GEMM's host-side pieces, declared for the translation units that share them:
 *   launch_dt       one configuration x layout x swizzle, both dtypes and load paths; defined for every
 *                   row of SMK_G16_CONFIGS by the kernel translation units (gemm16_k_*.cu, instantiate.cuh)
 *   pad_mask, pad_operands, free_padded: gemm16_padcopy.cu (variant 0's padded temporaries)
 *   launch_reduce   gemm16_reduce.cu (split-K's reduction)
 *   small_grid      here: variant 0's tile choice, launcher and plan alike */
#ifndef SMK_GEMM16_DISPATCH_H
#define SMK_GEMM16_DISPATCH_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "tiles.h"

namespace smk {
namespace g16 {

/* How one kernel launch runs beyond its params: fastu = the staged path's funnel-shift loads (variant 5,
 * variant 0 in place); splits = gridDim.y, the K slices of split-K (kernel.cuh k_slice), k_chunk and
 * stride (fp32 elements between partial tiles) their geometry; epi = the staged row epilogue
 * (epilogue_rows.cuh; api/gemm16.h smk_gemm16_epi_staged). */
struct KSlice {
    int64_t k_chunk, stride;
};
/* Split-K's fused reduction (gemm16/fixup.cuh, knob splitk_fixup): counters != NULL makes the last block
 * of each tile reduce the S partials into the call's D (as gemm16_reduce.cu does); zero: no fixup. */
struct G16Fixup {
    unsigned *counters; /* one per tile (blockIdx.x), zero at launch: counters.h */
    void *D;            /* the call's output and C (2-byte, or fp32 where out_f32), leading dimensions */
    const void *C;
    int64_t ldd, ldc;
    float alpha, beta;
    int S, G, out_f32; /* slices, reduce_groups_per_warp(S), fp32 output */
    int fence;         /* common/splitk_fixup.cuh's protocol (knob splitk_fence) */
    int cluster;       /* 1: the tile's S blocks are one cluster and sum it together (cluster_tile) */
};
struct LaunchHow {
    int fastu, splits;
    KSlice ks;
    int epi;
    G16Fixup fx; /* zero (the aggregate initialisers leave it so): no fixup */
    int deep;    /* 1: a DeepBase launch on unaligned rows runs VDeep (tiles.h) instead; zero: as it is */
    int narrow;  /* nonzero: rows not 16-byte aligned copied by narrow cp.async (load_narrow.cuh) where the
                  * tile has that kernel (instantiate.cuh narrow_tile): A's width | B's width << 8 */
};

template <class C, int LAYOUT, int SID>
int launch_dt(const smk_gemm16_params &q, bool vec, const LaunchHow &how, cudaStream_t s);


/* Split-K's reduction (gemm16_reduce.cu): D = alpha * (sum of the S fp32 partial tiles at ws, stride
 * floats apart, rows of ldw floats) + beta * C, rounded to q's output dtype, on `stream`. */
int launch_reduce(const smk_gemm16_params &q, const float *ws, int64_t stride, int64_t ldw, int S, cudaStream_t stream);

/* Which of A (bit 0) and B (bit 1) have unaligned rows (none when vec). */
int pad_mask(const smk_gemm16_params &q, bool vec);
/* Variant 0 with unaligned rows: the operands in mask copied into padded temporaries (tmp), q pointed
 * at them; free_padded(tmp) on the same stream behind the kernel, even after a failure. */
int pad_operands(smk_gemm16_params *q, int mask, void *tmp[2], cudaStream_t stream);
void free_padded(void *tmp[2], cudaStream_t stream);

/* Whether rows at ptr, ld elements apart, all start on 16 bytes (cp.async's 16-byte chunks). */
inline bool rows_aligned(const void *ptr, int64_t ld) { return ((uintptr_t)ptr & 15u) == 0 && ld % 8 == 0; }

/* The widest cp.async (16, 8, 4 bytes; 2 = none) that copies rows at ptr, ld 2-byte elements apart. */
inline int row_width(const void *ptr, int64_t ld)
{
    const uintptr_t a = (uintptr_t)ptr | (uintptr_t)(ld * 2);
    return (a & 15u) == 0 ? 16 : (a & 7u) == 0 ? 8 : (a & 3u) == 0 ? 4 : 2;
}

/* Variant 0's tiles before #28: VSmall when VAligned's grid is under half a wave of `sms` multiprocessors. */
inline bool small_grid(int64_t M, int64_t N, int sms)
{
    const int64_t blocks = ((M + VAligned::BM - 1) / VAligned::BM) * ((N + VAligned::BN - 1) / VAligned::BN);
    return 2 * blocks < (int64_t)sms;
}

} /* namespace g16 */
} /* namespace smk */

#endif
