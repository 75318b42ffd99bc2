/* The 32x64 half tile of variant 0's in-place 64x64 launches (knob gemm16_small, api/gemm16_small.h): the
 * configuration, and its launcher (gemm16_k_small.cu), declared for gemm16_launch.cu and the plan
 * (gemm16_plan.cu).  Not a table variant and not in SMK_G16_CONFIGS, so the layout translation units
 * (instantiate.cuh) do not compile it: gemm16_k_small.cu instantiates exactly what the rule can pick, rows read
 * in place (the deep staged loads), fp16 / bf16, the three layouts' automatic maps, no fused split fixup.
 *
 * Cfg<32, 64, 64, 16, 16, 4, 1>: 8 warps of 16x16 (2 along M, 4 along N: MI 1, NI 2), one A chunk and two B
 * chunks per thread per k-tile (A_STEP = B_STEP = 32 rows), the 64x64 tile's B panels, stages and swizzles
 * (smem.cuh's bank arithmetic is per 8 rows, unchanged); Deep<, SMK_G16_DEEP>: 4 k-tiles of loads in flight,
 * 3 x 8 x 4 = 96 registers of ring, one block per SM (the rule keeps the grid within a wave). */
#ifndef SMK_GEMM16_SMALL_H
#define SMK_GEMM16_SMALL_H

#include <cuda_runtime.h>

#include "api/gemm16.h"
#include "dispatch.h"
#include "tiles.h"

namespace smk {
namespace g16 {

using VHalf = Deep<Cfg<32, 64, 64, 16, 16, 4, 1>, kDeepDepth>;
/* VHalf and the 64x64 deep tile (tiles.h VDeep) with their rings filled by 16-byte loads (load_deep_wide.cuh; knob
 * gemm16_small levels 3 / 4): their own types, so gemm16_k_small.cu can give them their own StagedDeep */
struct VHalfWide : VHalf {
};
struct VDeepWide : VDeep {
};

/* Which of this file's kernels an in-place 64x64 launch of variant 0 (or forced variant 9) runs at knob level
 * `knob`, given the half tile's rule (half) and knob gemm16_staged's deep gate (deep); 0: the layout units' own. */
enum SmallKind { kSmallNone = 0, kHalf, kHalfWide, kDeepWide };
inline int small_kind(int knob, bool half, bool deep, int sid)
{
    if (sid != 0 || knob <= 0)
        return kSmallNone;
    if (half)
        return knob >= 3 ? kHalfWide : kHalf;
    return deep && knob >= 3 ? kDeepWide : kSmallNone;
}

/* q (rows not 16-byte aligned) on kernel `kind` in q.layout's automatic map (sid 0 only), how.splits slices of
 * how.ks (fp32 partials, the separate reduction: how.fx must be zero), how.epi as for the 64x64 tile. */
int launch_small(const smk_gemm16_params &q, const LaunchHow &how, int kind, cudaStream_t stream);

} /* namespace g16 */
} /* namespace smk */

#endif
