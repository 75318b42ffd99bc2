/* Knob gemm16_small's kernels (small.h): the 32x64 half tile with element loads (VHalf) or 16-byte loads
 * (VHalfWide) and the 64x64 deep tile with 16-byte loads (VDeepWide); naive, pad and swizzle (automatic map),
 * fp16 and bf16, the staged deep loads only (rows not 16-byte aligned), no fused split fixup: the 18 kernels
 * its levels can pick. */
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
template <class S>
struct StagedDeep<VDeepWide, S> : StagedDeepWide<VDeep, S> {
    using StagedDeepWide<VDeep, S>::StagedDeepWide;
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

int launch_small(const smk_gemm16_params &q, const LaunchHow &how, int kind, cudaStream_t stream)
{
    switch (kind) {
    case kHalf: return launch_half_cfg<VHalf>(q, how, stream);
    case kHalfWide: return launch_half_cfg<VHalfWide>(q, how, stream);
    case kDeepWide: return launch_half_cfg<VDeepWide>(q, how, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

} /* namespace g16 */
} /* namespace smk */
