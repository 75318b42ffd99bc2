/* The 32x64 half tile's kernels (small.h): naive, pad and swizzle (automatic map), fp16 and bf16, the staged deep
 * loads only (rows not 16-byte aligned), element by element (VHalf) or in 16-byte blocks (VHalfWide), no fused
 * split fixup: the 12 kernels knob gemm16_small's levels can pick. */
#include <limits.h>

#include "common/launch.h"
#include "kernel.cuh"
#include "load_deep_wide.cuh"
#include "small.h"

namespace smk {
namespace g16 {

/* VHalfWide's staged path: the ring of load_deep_wide.cuh (declared before any kernel of VHalfWide is
 * instantiated, here only) */
template <class S>
struct StagedDeep<VHalfWide, S> : StagedDeepWide<VHalf, S> {
    using StagedDeepWide<VHalf, S>::StagedDeepWide;
};

template <class C, int LAYOUT, bool BF16>
static int launch_half_dt(const smk_gemm16_params &q, const LaunchHow &how, cudaStream_t stream)
{
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

template <class C, int LAYOUT>
static int launch_half_layout(const smk_gemm16_params &q, const LaunchHow &how, cudaStream_t stream)
{
    return q.dtype == 1 ? launch_half_dt<C, LAYOUT, true>(q, how, stream) : launch_half_dt<C, LAYOUT, false>(q, how, stream);
}

template <class C>
static int launch_half_cfg(const smk_gemm16_params &q, const LaunchHow &how, cudaStream_t stream)
{
    switch (q.layout) {
    case SMK_NAIVE: return launch_half_layout<C, SMK_NAIVE>(q, how, stream);
    case SMK_PAD: return launch_half_layout<C, SMK_PAD>(q, how, stream);
    case SMK_SWIZZLE: return launch_half_layout<C, SMK_SWIZZLE>(q, how, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

int launch_half(const smk_gemm16_params &q, const LaunchHow &how, bool wide, cudaStream_t stream)
{
    return wide ? launch_half_cfg<VHalfWide>(q, how, stream) : launch_half_cfg<VHalf>(q, how, stream);
}

} /* namespace g16 */
} /* namespace smk */
