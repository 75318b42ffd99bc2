/*
 * api/gemm16_small.h -- the in-place 64x64 launches of variant 0 on the 32x64 half tile (knob gemm16_small,
 * gemm16_choose.c; the kernel: gemm16/small.h).  Its own header, so the kernels that include api/gemm16.h do not
 * recompile for it.
 */
#ifndef SMK_API_GEMM16_SMALL_H
#define SMK_API_GEMM16_SMALL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Knob gemm16_small (smemkit._testing.knobs(gemm16_small=...)): 0 as before; 1 (the default since session 43) a launch of variant 0's
 * 64x64 tile (variant 9) on rows read in place runs the 32x64 half tile (the same kernel template, 8 warps of
 * 16x16, the deep staged loads of gemm16/load_deep.cuh, one block per SM) where smk_gemm16_small_tile says: the
 * half tile's grid (tiles x splits) within one wave (more blocks than the 64x64 grid's, or for M <= 32 the same
 * grid with no idle half); 2 (tests) every such
 * launch, forced variant 9 included, any grid or K; 3 and 4: 1 and 2 with the ring filled by 16-byte loads
 * (gemm16/load_deep_wide.cuh: the aligned blocks around each chunk, funnel-shifted at the store), and the 64x64
 * launches knob gemm16_staged's deep gate takes that the half tile does not with those loads too.  Only the automatic swizzle (sid 0) of each layout is
 * instantiated: explicit swizzles keep the 64x64 tile.  smk_gemm16_set_small returns -1 for anything else. */
extern volatile int smk_gemm16_small;
int smk_gemm16_set_small(int mode);
/* Whether such a launch (variant, in_place, splits slices of an M x N output on `sms` SMs) runs the half tile at
 * knob level `mode` (pure). */
int smk_gemm16_small_tile(int mode, int64_t M, int64_t N, int splits, int variant, int in_place, int sms);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_GEMM16_SMALL_H */
