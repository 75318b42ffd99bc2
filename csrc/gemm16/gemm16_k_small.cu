/* The 32x64 half tile's kernels (small.h): naive, pad and swizzle (automatic map), fp16 and bf16, the staged deep
 * loads only (rows not 16-byte aligned), no fused split fixup: the 6 kernels knob gemm16_small's rule can pick. */
#include <limits.h>

#include "common/launch.h"
#include "kernel.cuh"
#include "small.h"

namespace smk {
namespace g16 {

template <int LAYOUT, bool BF16>
static int launch_half_dt(const smk_gemm16_params &q, const LaunchHow &how, cudaStream_t stream)
{
    using C = VHalf;
    using S = Smem<C, LAYOUT, 0>;
    const int64_t blocks = ((q.M + C::BM - 1) / C::BM) * ((q.N + C::BN - 1) / C::BN);
    if (blocks <= 0 || blocks > INT_MAX || how.splits < 1 || how.splits > 65535 || how.fx.counters || how.fx.cluster)
        return (int)cudaErrorInvalidValue;
    const int e = smem_optin<gemm16_kernel<C, LAYOUT, 0, BF16, false, false>>(S::BYTES);
    if (e)
        return e;
    gemm16_kernel<C, LAYOUT, 0, BF16, false, false>
        <<<dim3((unsigned)blocks, (unsigned)how.splits), C::THREADS, S::BYTES, stream>>>(q, how.fastu, how.ks, how.epi,
                                                                                        how.fx);
    return (int)cudaGetLastError();
}

template <int LAYOUT>
static int launch_half_layout(const smk_gemm16_params &q, const LaunchHow &how, cudaStream_t stream)
{
    return q.dtype == 1 ? launch_half_dt<LAYOUT, true>(q, how, stream) : launch_half_dt<LAYOUT, false>(q, how, stream);
}

int launch_half(const smk_gemm16_params &q, const LaunchHow &how, cudaStream_t stream)
{
    switch (q.layout) {
    case SMK_NAIVE: return launch_half_layout<SMK_NAIVE>(q, how, stream);
    case SMK_PAD: return launch_half_layout<SMK_PAD>(q, how, stream);
    case SMK_SWIZZLE: return launch_half_layout<SMK_SWIZZLE>(q, how, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

} /* namespace g16 */
} /* namespace smk */
