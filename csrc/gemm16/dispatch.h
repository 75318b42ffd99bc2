/* The tensor-core GEMM's host-side pieces, declared for the translation units that share them:
 *   launch_dt       one configuration x layout x swizzle, both dtypes and load paths; defined for every
 *                   row of SMK_G16_CONFIGS by the kernel translation units (gemm16_k_*.cu, instantiate.cuh)
 *   pad_mask, pad_bytes, pad_operands, free_padded: gemm16_padcopy.cu (variant 0's padded temporaries)
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

template <class C, int LAYOUT, int SID>
int launch_dt(const smk_gemm16_params &q, bool vec, cudaStream_t s);


/* Which of A (bit 0) and B (bit 1) variant 0 copies for q (after prepare), and the bytes that takes. */
int pad_mask(const smk_gemm16_params &q, bool vec);
size_t pad_bytes(const smk_gemm16_params &q, int mask);
/* Variant 0 with unaligned rows: the operands in mask copied into padded temporaries (tmp), q pointed
 * at them; free_padded(tmp) on the same stream behind the kernel, even after a failure. */
int pad_operands(smk_gemm16_params *q, int mask, void *tmp[2], cudaStream_t stream);
void free_padded(void *tmp[2], cudaStream_t stream);

/* Variant 0's tiles: VSmall when VAligned's grid is under half a wave of `sms` multiprocessors. */
inline bool small_grid(int64_t M, int64_t N, int sms)
{
    const int64_t blocks = ((M + VAligned::BM - 1) / VAligned::BM) * ((N + VAligned::BN - 1) / VAligned::BN);
    return 2 * blocks < (int64_t)sms;
}

} /* namespace g16 */
} /* namespace smk */

#endif
