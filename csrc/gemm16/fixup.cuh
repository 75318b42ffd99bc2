/* The tensor-core GEMM's split-K store and fused reduction.  reduce_store: the element code of split-K's
 * reduction, D = alpha * sum + beta * C with the output rounding (fp16 / bf16 to nearest, or fp32), used
 * by the separate reduction kernel (gemm16_reduce.cu) and by the mma.sync kernel's fused fixup
 * (g16_fixup_tile: common/splitk_fixup.cuh's protocol and walk; kernel.cuh calls it where
 * LaunchHow::fx.counters is set), so the two agree bit for bit.  C is read only when beta != 0, element by
 * element with plain loads (C may alias D: each element is read, then written, by one thread).  Needs
 * epilogue.cuh's to_f / from_f (included before this by kernel.cuh and gemm16_reduce.cu). */
#ifndef SMK_GEMM16_FIXUP_CUH
#define SMK_GEMM16_FIXUP_CUH

#include <stdint.h>

#include "api/gemm16.h"
#include "common/splitk_fixup.cuh"
#include "dispatch.h"

namespace smk {
namespace g16 {

/* OUT: 0 fp16, 1 bf16, 2 fp32 (D and C); the first `valid` (>= 1) of the four sums at (m, n). */
template <int OUT>
__device__ __forceinline__ void reduce_store(void *D, const void *C, int64_t ldd, int64_t ldc, float alpha,
                                             float beta, int64_t m, int64_t n, float4 s, int valid)
{
    const float v[4] = {s.x, s.y, s.z, s.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if (i >= valid)
            break;
        const int64_t dof = m * ldd + n + i, cof = m * ldc + n + i;
        float x = alpha * v[i];
        if (OUT == 2) {
            if (beta != 0.f)
                x = fmaf(beta, ((const float *)C)[cof], x);
            ((float *)D)[dof] = x;
        } else {
            if (beta != 0.f)
                x = fmaf(beta, to_f<OUT == 1>(((const unsigned short *)C)[cof]), x);
            ((unsigned short *)D)[dof] = from_f<OUT == 1>(x);
        }
    }
}

/* The tail of tile (bm, bn) of a split launch of the mma.sync kernel: W the workspace (fp32 partial tiles
 * stride floats apart, rows of ldw floats).  Only in gemm16_kernel<..., FIX = true>: its code moves the
 * main loop's register allocation (ptxas, sm_90: 64x64x64's spills 20 -> 36 bytes, 70 -> 80 registers;
 * not inlined, 128x128x64's 44 -> 140), so the launches without it keep the kernel as it was. */
template <int THREADS, int BM, int BN, bool BF16>
__device__ __forceinline__ void g16_fixup_tile(const G16Fixup &fx, const float *W, int64_t ldw, int64_t stride,
                                               int64_t M, int64_t N, int64_t bm, int64_t bn)
{
    const float alpha = fx.alpha, beta = fx.beta;
    auto store = [&](int64_t m, int64_t n, float4 s, int valid) {
        if (fx.out_f32)
            reduce_store<2>(fx.D, fx.C, fx.ldd, fx.ldc, alpha, beta, m, n, s, valid);
        else
            reduce_store<BF16 ? 1 : 0>(fx.D, fx.C, fx.ldd, fx.ldc, alpha, beta, m, n, s, valid);
    };
    if (fx.cluster)
        cluster_tile<THREADS, BM, BN>(fx.S, fx.G, W, ldw, stride, M, N, bm, bn, store);
    else
        fixup_tile<THREADS, BM, BN>(fx.counters, fx.fence, fx.S, fx.G, W, ldw, stride, M, N, bm, bn, store);
}

} /* namespace g16 */
} /* namespace smk */

#endif /* SMK_GEMM16_FIXUP_CUH */
