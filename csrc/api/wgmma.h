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
#include <stdint.h>

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
/* smk_wgmma_launch where the "auto" rule (smk_gemm16_kernel_for with knob 2) takes p, else
 * SMK_WGMMA_FALLBACK without touching the device beyond reading its SM count and capability. */
int smk_wgmma_launch_auto(const smk_gemm16_params *p, cudaStream_t stream);

/* Which kernel smk_gemm16_launch runs for variant 0: 0 = mma.sync, 1 = wgmma where it can
 * (SMK_WGMMA_FALLBACK -> mma.sync), 2 = auto: wgmma where smk_gemm16_kernel_for says so;
 * 3 = auto with unaligned rows too (the default since session 38): where A's or B's rows are off 16 bytes, the wgmma kernel on
 * stream-ordered padded copies of those operands (gemm16/gemm16_padcopy.cu) where
 * smk_wgmma_auto_padded says they pay; 4 = wgmma wherever its layout can run, unaligned rows through
 * padded copies (forced, for tests and A/Bs); 5 = as 3 but by smk_wgmma_auto_cost (the cost model
 * alone, aligned rows included: an A/B arm).  Process-wide (the gemm16_kernel test knob); -1 for other
 * values. */
int smk_gemm16_set_kernel(int kernel);
int smk_gemm16_kernel(void);
/* The "auto" grid rule: whether an M x N x K product (variant 0, layout "swizzle", aligned rows, a
 * compute capability 9.0 device of `sms` SMs) runs faster on the wgmma kernel's 128 x 256 persistent
 * tiles than on mma.sync: K >= 256 and the last wave at least 2/3 full in the sense
 * 3 * tiles >= 2 * sms * ceil(tiles / sms), tiles = ceil(M / 128) * ceil(N / 256).  Pure. */
int smk_wgmma_auto(int64_t M, int64_t N, int64_t K, int sms);
/* The mma.sync chooser's model pieces (gemm16_choose.c; pure), declared here (not in api/gemm16.h, which
 * every kernel translation unit includes) for this rule: the padded copies of the operands whose rows are
 * not aligned (each a launch + 4 bytes per padded element at the DRAM rate), and the DRAM floor of one
 * pass over A, B and a 2-byte D, in nanoseconds. */
double smk_gemm16_copies_ns(int64_t M, int64_t N, int64_t K, int a_rows_aligned, int b_rows_aligned);
double smk_gemm16_dram_ns(int64_t M, int64_t N, int64_t K);
/* Of smk_gemm16_temp_bytes_shape's bytes (gemm16_temp.c), the padded copies the wgmma kernel reads under
 * the gemm16_kernel knob's levels 3 / 4 where its rule (smk_gemm16_kernel_for_ab, asked for layout
 * "swizzle" on a 9.0 device) takes the shape; 0 otherwise.  smk_gemm16_temp_bytes_shape answers the
 * larger of this and the mma.sync route's bytes. */
size_t smk_gemm16_wgmma_temp_bytes(int64_t M, int64_t N, int64_t K, int variant, int a_rows_aligned,
                                   int b_rows_aligned, int sms);
/* The wgmma kernel's modelled time (ns) for M x N x K on `sms` SMs in the mma.sync chooser's terms
 * (gemm16_choose.c): ceil(tiles / sms) waves of 128 x 256 tiles, floored by the DRAM pass.  Pure. */
double smk_wgmma_ns(int64_t M, int64_t N, int64_t K, int sms);
/* Knob 3's rule: smk_wgmma_auto, and where A's or B's rows are not 16-byte aligned, the padded copies of
 * those operands (smk_gemm16_copies_ns) plus smk_wgmma_ns under the mma.sync choice's modelled cost
 * (smk_gemm16_choose's est_ns, which may copy the same operands or read them in place).  Pure. */
int smk_wgmma_auto_padded(int64_t M, int64_t N, int64_t K, int sms, int a_rows_aligned, int b_rows_aligned);
/* Knob 5's rule: that cost comparison alone (aligned rows too, no wave-fill gate), K >= 128.  Pure. */
int smk_wgmma_auto_cost(int64_t M, int64_t N, int64_t K, int sms, int a_rows_aligned, int b_rows_aligned);
/* smk_gemm16_kernel_for with A's and B's alignment apart (knobs 3 and 4 copy only the unaligned one). */
int smk_gemm16_kernel_for_ab(int knob, int variant, int64_t M, int64_t N, int64_t K, int layout, int b, int m, int s,
                             int a_rows_aligned, int b_rows_aligned, int cc_major, int cc_minor, int sms);
/* Whether this build has the sm_90a kernels (else every wgmma launch answers SMK_WGMMA_FALLBACK). */
int smk_wgmma_built(void);
/* 1 where smk_gemm16_launch runs the wgmma kernel, 0 for mma.sync: knob (0 mma, 1 wgmma, 2 auto, 3 auto
 * with padded copies, 4 wgmma with padded copies, 5 the cost model with padded copies), the
 * tile variant, the shape, the layout as smk_gemm16_params spells it, whether A's and B's rows are
 * 16-byte aligned (both; knobs 1 and 2 need them, 3 and 4 copy), the device's compute capability and SM
 * count.  Auto takes only layout "swizzle"
 * (naive / pad / explicit swizzles keep the mma.sync kernel whose conflicts explain() models).  Pure:
 * the launcher and bench / explain / the CLI ask the same function. */
int smk_gemm16_kernel_for(int knob, int variant, int64_t M, int64_t N, int64_t K, int layout, int b, int m, int s,
                          int rows_aligned, int cc_major, int cc_minor, int sms);
/* The wgmma matrix descriptors the kernel issues for one k-tile, computed on the host by the kernel's
 * own a_desc / b_desc (csrc/hopper/kernel.cuh) for a stage at shared offset 0 (A at 0, B after A; every
 * stage starts on 1024 bytes, so the swizzle pattern is the same in each): out[2 * (4 * cw + kk)] is
 * A's and out[2 * (4 * cw + kk) + 1] B's descriptor of consumer warpgroup cw (0, 1) and k16 step kk
 * (0..3).  swb: 128, 64, 32 or 0 (smk_wgmma_mode).  0, or -1 for another swb.  Pure: explain() decodes
 * them into wgmma's shared-memory reads (smemkit/_wgmma_plan.py). */
int smk_wgmma_descs(int swb, uint64_t out[16]);
/* How many wgmma kernels this process has enqueued (tests check that the kernel they mean ran). */
unsigned long long smk_wgmma_launches(void);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_WGMMA_H */
