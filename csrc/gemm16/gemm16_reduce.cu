/* The tensor-core GEMM's split-K (variant 0, gemm16_choose.c picks the split): S fp32 partial tiles of
 * the GEMM kernel (kernel.cuh k_slice) in a stream-ordered workspace on the caller's stream, then one
 * reduction D = alpha * (sum of the S tiles) + beta * C with the output rounding (fp16 / bf16 to
 * nearest, or fp32), the workspace freed on the stream behind it (no synchronisation).  The sum is the
 * SGEMM's (sgemm/reduce.cuh reduce_walk: a fixed shuffle tree, so the result does not depend on
 * timing), launched the same way (a programmatic dependent launch on sm_90+).  No shared memory:
 * explain()'s plan of the GEMM kernel is the launch's whole shared-memory traffic.  C is read only when
 * beta != 0 (NaN in C does not leak), element by element with plain loads (C may alias D: each
 * element is read, then written, by one thread). */
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "common/launch.h"
#include "dispatch.h"
#include "sgemm/reduce.cuh"
#include "epilogue.cuh"
#include "fixup.cuh"
#include "runtime.h"

namespace smk {
namespace g16 {

/* OUT: 0 fp16, 1 bf16, 2 fp32 (D and C) */
template <int OUT>
__global__ void __launch_bounds__(kReduceThreads)
    gemm16_reduce_kernel(const float *__restrict__ W, int64_t slice_stride, int64_t ldw, int S, int G,
                         const smk_gemm16_params p)
{
    pdl_wait_prerequisites(); /* the GEMM grid's partial tiles are complete and visible */
    const float alpha = p.alpha, beta = p.beta;
    reduce_walk(W, slice_stride, ldw, S, G, p.M, p.N, [&](int64_t m, int64_t n, float4 s, int valid) {
        reduce_store<OUT>(p.D, p.C, p.ldd, p.ldc, alpha, beta, m, n, s, valid); /* fixup.cuh: shared with the fused path */
    });
}

/* The reduction of S partial tiles at ws (stride floats apart, rows ldw floats) into q's D: a warp per
 * G float4 groups, at most 32 blocks per SM (a grid-stride loop covers the rest), as the SGEMM's. */
int launch_reduce(const smk_gemm16_params &q, const float *ws, int64_t stride, int64_t ldw, int S, cudaStream_t stream)
{
    int sms = 0, major = 0;
    const int ef = device_facts(&sms, &major);
    if (ef)
        return ef;
    const bool pdl = major >= 9 && smk_rt_pdl(); /* off by default: runtime.h says why */
    const int G = reduce_groups_per_warp(S);
    const int64_t warps = (q.M * (ldw / 4) + G - 1) / G, per_block = kReduceThreads / 32;
    const int64_t blocks = (warps + per_block - 1) / per_block, cap = (int64_t)sms * 32;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3((unsigned)(blocks < cap ? blocks : cap));
    lc.blockDim = dim3(kReduceThreads);
    lc.stream = stream;
    lc.attrs = attr;
    lc.numAttrs = pdl ? 1 : 0;
    const int out = q.out_f32 ? 2 : q.dtype;
    int e = (int)(out == 2   ? cudaLaunchKernelEx(&lc, gemm16_reduce_kernel<2>, ws, stride, ldw, S, G, q)
                  : out == 1 ? cudaLaunchKernelEx(&lc, gemm16_reduce_kernel<1>, ws, stride, ldw, S, G, q)
                             : cudaLaunchKernelEx(&lc, gemm16_reduce_kernel<0>, ws, stride, ldw, S, G, q));
    if (e == cudaSuccess)
        e = (int)cudaGetLastError();
    return e;
}

} /* namespace g16 */
} /* namespace smk */
