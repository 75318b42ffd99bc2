/*
 * api/wgmma.h -- the Hopper (sm_90a) fp16 / bf16 GEMM: TMA tiles into shared memory, wgmma.mma_async
 * reading both operands from shared memory through matrix descriptors (csrc/hopper/wgmma.cu), and the
 * pure mode mapping (csrc/hopper/wgmma_mode.c).  Same params as the mma.sync kernel (api/gemm16.h).
 *
 * The layouts are TMA's swizzle modes, one kernel template where only the mode changes:
 *   layout            TMA swizzle                  CuTe (bytes)     smemkit (2-byte elems)  wgmma layout_type
 *   "swizzle"         CU_TENSOR_MAP_SWIZZLE_128B   Swizzle<3,4,3>   Swizzle(3,3,3)          1
 *   Swizzle(2,3,3)    CU_TENSOR_MAP_SWIZZLE_64B    Swizzle<2,4,3>   Swizzle(2,3,3)          2
 *   Swizzle(1,3,3)    CU_TENSOR_MAP_SWIZZLE_32B    Swizzle<1,4,3>   Swizzle(1,3,3)          3
 *   "naive"           CU_TENSOR_MAP_SWIZZLE_NONE   (interleaved 8 x 16-byte core matrices)  0
 *   "pad"             -- no TMA box and no wgmma descriptor can express a padded row: an error.
 */
#ifndef SMK_API_WGMMA_H
#define SMK_API_WGMMA_H

#include <cuda_runtime_api.h>

#include "api/gemm16.h"

#ifdef __cplusplus
extern "C" {
#endif

/* smk_wgmma_launch's "not here, use the mma.sync kernel" answer: not a cudaError_t, nothing was
 * enqueued and no CUDA state changed.  Given for: a device that is not compute capability 9.0, a build
 * without the sm_90a code (SMEMKIT_CUDA_ARCH without 90), A or B rows that are not 16-byte aligned
 * (base or leading dimension * 2 bytes), K == 0 or alpha == 0 (D = beta*C needs no tensor cores),
 * sizes past TMA's int32 coordinates, and a variant other than 0. */
#define SMK_WGMMA_FALLBACK 20001

/* The swizzle width in bytes (128, 64, 32; 0 = interleaved, no swizzle) of a layout + Swizzle(b, m, s)
 * as smk_gemm16_params spells them (b = m = s = 0: the layout's own meaning), or -1 where TMA and wgmma
 * cannot express it ("pad", any other Swizzle).  Pure: no CUDA. */
int smk_wgmma_mode(int layout, int b, int m, int s);

/* Validate and enqueue: cudaErrorInvalidValue for bad params or a layout smk_wgmma_mode refuses,
 * SMK_WGMMA_FALLBACK (see above), else the first CUDA error (0 = enqueued). */
int smk_wgmma_launch(const smk_gemm16_params *p, cudaStream_t stream);

/* Which kernel smk_gemm16_launch runs for variant 0: 0 = mma.sync (default), 1 = wgmma where it can
 * (SMK_WGMMA_FALLBACK -> mma.sync).  Process-wide (the gemm16_kernel test knob); -1 for other values. */
int smk_gemm16_set_kernel(int kernel);
int smk_gemm16_kernel(void);
/* How many wgmma kernels this process has enqueued (tests check that the kernel they mean ran). */
unsigned long long smk_wgmma_launches(void);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_WGMMA_H */
