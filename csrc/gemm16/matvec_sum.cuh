/* ROWS's in-block K reduction (matvec.cuh mv_rows_kernel with NW > 4 warps; routing: matvec.h
 * smk_mv_rows_fused).  Global scratch, no shared memory: explain() models no shared access for it. */
#ifndef SMK_GEMM16_MATVEC_SUM_CUH
#define SMK_GEMM16_MATVEC_SUM_CUH

#include <stdint.h>

namespace smk {
namespace g16 {

/* The block's NW K slices summed in-kernel (ROWS with NW warps, gemm16_mv_level bit 0): warps 1 .. NW - 1
 * write their sums to the block's region of the global scratch `red` ([warp - 1][TM x 8][32 lanes]: a
 * store instruction is 128 contiguous bytes), __syncthreads (which orders a block's global writes
 * before its later reads), and warp 0 adds them in warp order (fixed: deterministic) with L2 loads
 * (__ldcg: never the non-coherent read-only path).  No shared memory.  Returns whether this warp holds
 * the block's sums (warp 0). */
template <int TM, int NW>
__device__ __forceinline__ bool mv_block_sum(float (&acc)[TM][8], float *red, int lane)
{
    const int warp = threadIdx.x >> 5;
    const int64_t blk = ((int64_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    float *r = red + blk * (int64_t)((NW - 1) * TM * 8 * 32);
    if (warp > 0)
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int e = 0; e < 8; e++)
                r[(((warp - 1) * TM + i) * 8 + e) * 32 + lane] = acc[i][e];
    __syncthreads();
    if (warp > 0)
        return false;
#pragma unroll 1
    for (int w = 0; w < NW - 1; w++)
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int e = 0; e < 8; e++)
                acc[i][e] += __ldcg(r + ((w * TM + i) * 8 + e) * 32 + lane);
    return true;
}

} /* namespace g16 */
} /* namespace smk */

#endif
