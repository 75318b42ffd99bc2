/* One layout's kernels and launchers (SMK_G16_LAYOUT, SMK_G16_SID defined by the including
 * gemm16_k_*.cu), for every configuration of tiles.h: one translation unit per layout and swizzle, so
 * the 144 kernels compile in parallel. */
#ifndef SMK_G16_LAYOUT
#error "define SMK_G16_LAYOUT and SMK_G16_SID before including instantiate.cuh"
#endif

#include <limits.h>
#include <type_traits>

#include "common/launch.h"
#include "dispatch.h"
#include "kernel.cuh"

namespace smk {
namespace g16 {

template <class C, int LAYOUT, int SID, bool BF16, bool VEC, bool FIX, bool NARROW = false>
int launch_fix(const smk_gemm16_params &q, const LaunchHow &how, cudaStream_t stream)
{
    using S = Smem<C, LAYOUT, SID>;
    const int64_t blocks = ((q.M + C::BM - 1) / C::BM) * ((q.N + C::BN - 1) / C::BN);
    if (blocks <= 0 || blocks > INT_MAX || how.splits < 1 || how.splits > 65535)
        return (int)cudaErrorInvalidValue;
    auto kern = gemm16_kernel<C, LAYOUT, SID, BF16, VEC, FIX, NARROW>;
    const int e = smem_optin<gemm16_kernel<C, LAYOUT, SID, BF16, VEC, FIX, NARROW>>(S::BYTES);
    const int fu = NARROW ? how.narrow : how.fastu; /* kernel.cuh: NARROW's fastu carries the widths */
    if (e)
        return e;
    const dim3 grid((unsigned)blocks, (unsigned)how.splits);
    if (FIX && how.fx.cluster) { /* the S slices of a tile as one cluster (common/splitk_fixup.cuh) */
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = 1;
        attr[0].val.clusterDim.y = (unsigned)how.splits;
        attr[0].val.clusterDim.z = 1;
        cudaLaunchConfig_t lc = {};
        lc.gridDim = grid;
        lc.blockDim = dim3(C::THREADS);
        lc.dynamicSmemBytes = S::BYTES;
        lc.stream = stream;
        lc.attrs = attr;
        lc.numAttrs = 1;
        const cudaError_t le = cudaLaunchKernelEx(&lc, kern, q, fu, how.ks, how.epi, how.fx);
        return le != cudaSuccess ? (int)le : (int)cudaGetLastError();
    }
    kern<<<grid, C::THREADS, S::BYTES, stream>>>(q, fu, how.ks, how.epi, how.fx);
    return (int)cudaGetLastError();
}

/* The kernel with split-K's fused reduction where how.fx.counters or .cluster is set (kernel.cuh FIX),
 * else without. */
template <class C, int LAYOUT, int SID, bool BF16, bool VEC>
int launch_inst(const smk_gemm16_params &q, const LaunchHow &how, cudaStream_t stream)
{
    return how.fx.counters || how.fx.cluster ? launch_fix<C, LAYOUT, SID, BF16, VEC, true>(q, how, stream)
                           : launch_fix<C, LAYOUT, SID, BF16, VEC, false>(q, how, stream);
}

/* The tiles with a narrow cp.async kernel (load_narrow.cuh): variant 0's chooser tiles (api/gemm16.h
 * SMK_G16_CHOOSER_TILES, and V4 of the short-K retile); the others run such rows staged. */
template <class C>
constexpr bool narrow_tile()
{
    return std::is_same<C, V1>::value || std::is_same<C, V4>::value || std::is_same<C, V6>::value ||
           std::is_same<C, V8>::value || std::is_same<C, V9>::value;
}

template <class C, int LAYOUT, int SID>
int launch_dt(const smk_gemm16_params &q, bool vec, const LaunchHow &h, cudaStream_t s)
{
    if constexpr (narrow_tile<C>()) { /* narrow cp.async, no fused reduction (the launcher never asks both) */
        if (h.narrow && !vec && !h.fx.counters && !h.fx.cluster)
            return q.dtype == 1 ? launch_fix<C, LAYOUT, SID, true, false, false, true>(q, h, s)
                                : launch_fix<C, LAYOUT, SID, false, false, false, true>(q, h, s);
    }
    if constexpr (std::is_same<C, DeepBase>::value) { /* the deep staged path (tiles.h Deep, load_deep.cuh) */
        if (h.deep && !vec)
            return q.dtype == 1 ? launch_inst<VDeep, LAYOUT, SID, true, false>(q, h, s)
                                : launch_inst<VDeep, LAYOUT, SID, false, false>(q, h, s);
    }
    if (q.dtype == 1)
        return vec ? launch_inst<C, LAYOUT, SID, true, true>(q, h, s) : launch_inst<C, LAYOUT, SID, true, false>(q, h, s);
    return vec ? launch_inst<C, LAYOUT, SID, false, true>(q, h, s) : launch_inst<C, LAYOUT, SID, false, false>(q, h, s);
}

#define SMK_G16_INSTANTIATE(V, ...) \
    template int launch_dt<V, SMK_G16_LAYOUT, SMK_G16_SID>(const smk_gemm16_params &, bool, const LaunchHow &, \
                                                           cudaStream_t);
SMK_G16_CONFIGS(SMK_G16_INSTANTIATE)
#undef SMK_G16_INSTANTIATE

} /* namespace g16 */
} /* namespace smk */
