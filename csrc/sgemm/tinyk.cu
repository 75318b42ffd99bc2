/* sgemm/tinyk.cu -- the tiny-K kernel (tinyk.cuh) of every TINYK row of configs.h: its launch function
 * (launch.h) picks the register panel depth KT from the slice's depth and its own VEC rule (A is read
 * with scalar loads, so only D, C and B need 16-byte rows), and at knob sgemm_tinyk 1 the lean variant
 * (tinyk_lean.cuh) where every K slice is as deep, 1..16.  One kernel for every layout: it uses no shared memory. */
#include <cuda_runtime.h>

#include "common/launch.h"
#include "runtime.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"
#include "api/sgemm_tinyk.h"
#include "sgemm/tinyk.cuh"
#include "sgemm/tinyk_lean.cuh"

namespace smk {

template <class Cfg, int KT, bool VEC>
static int tinyk_go(const smk_sgemm_params &q, const SgemmSlice &slice, dim3 grid, cudaStream_t stream)
{
    tinyk_kernel<Cfg, KT, VEC><<<grid, Cfg::THREADS, 0, stream>>>(q, slice);
    return (int)cudaGetLastError();
}

template <class Cfg, int KT, bool VEC>
static int tinyk_lean_go(const smk_sgemm_params &q, const SgemmSlice &slice, dim3 grid, cudaStream_t stream)
{
    tinyk_lean_kernel<Cfg, KT, VEC><<<grid, Cfg::THREADS, 0, stream>>>(q, slice);
    return (int)cudaGetLastError();
}

/* Knob sgemm_tinyk 1: the lean kernel at the slices' depth exactly (1..16, every slice as deep: tinyk_depth
 * says; others stay on tinyk_kernel). */
template <class Cfg, bool VEC>
static int tinyk_lean_depth(const smk_sgemm_params &q, const SgemmSlice &slice, dim3 grid, cudaStream_t stream)
{
    switch (q.K < slice.k_chunk ? q.K : slice.k_chunk) {
#define SMK_TINYK_LEAN_CASE(D) \
    case D: return tinyk_lean_go<Cfg, D, VEC>(q, slice, grid, stream);
        SMK_TINYK_LEAN_CASE(1) SMK_TINYK_LEAN_CASE(2) SMK_TINYK_LEAN_CASE(3) SMK_TINYK_LEAN_CASE(4)
        SMK_TINYK_LEAN_CASE(5) SMK_TINYK_LEAN_CASE(6) SMK_TINYK_LEAN_CASE(7) SMK_TINYK_LEAN_CASE(8)
        SMK_TINYK_LEAN_CASE(9) SMK_TINYK_LEAN_CASE(10) SMK_TINYK_LEAN_CASE(11) SMK_TINYK_LEAN_CASE(12)
        SMK_TINYK_LEAN_CASE(13) SMK_TINYK_LEAN_CASE(14) SMK_TINYK_LEAN_CASE(15) SMK_TINYK_LEAN_CASE(16)
#undef SMK_TINYK_LEAN_CASE
    default: return -1; /* K = 0 or deeper than 16: not the lean kernel's */
    }
}

template <class Cfg, bool VEC>
static int tinyk_depth(const smk_sgemm_params &q, const SgemmSlice &slice, dim3 grid, cudaStream_t stream)
{
    const int64_t depth = q.K < slice.k_chunk ? q.K : slice.k_chunk;
    if (smk_sgemm_tinyk_lean(q.K, slice.k_chunk, smk_sgemm_tinyk_level()))
        return tinyk_lean_depth<Cfg, VEC>(q, slice, grid, stream);
    if (depth <= 1) return tinyk_go<Cfg, 1, VEC>(q, slice, grid, stream);
    if (depth <= 2) return tinyk_go<Cfg, 2, VEC>(q, slice, grid, stream);
    if (depth <= 4) return tinyk_go<Cfg, 4, VEC>(q, slice, grid, stream);
    if (depth <= 8) return tinyk_go<Cfg, 8, VEC>(q, slice, grid, stream);
    return tinyk_go<Cfg, 16, VEC>(q, slice, grid, stream); /* deeper: the kernel's general loop */
}

template <class Cfg, int LAYOUT, bool VEC_ALL>
int tinyk_launch_cfg(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    static_assert(Cfg::KMAX == 16, "tinyk_depth instantiates panels up to 16");
    const long long blocks = sgemm_grid_blocks(Cfg::TILE_M, Cfg::TILE_N, q.M, q.N);
    if (blocks <= 0 || splits < 1 || splits > 65535) return (int)cudaErrorInvalidValue;
    const dim3 grid((unsigned)blocks, (unsigned)splits);
    bool vec = aligned16(q.D) && q.ldd % 4 == 0;
    if (q.K > 0) vec = vec && aligned16(q.B) && q.ldb % 4 == 0;
    if (q.beta != 0.f) vec = vec && aligned16(q.C) && q.ldc % 4 == 0;
    return vec ? tinyk_depth<Cfg, true>(q, slice, grid, stream) : tinyk_depth<Cfg, false>(q, slice, grid, stream);
}

/* Explicit instantiations of every TINYK row, every layout (the same kernels) and VEC flag. */
#define SMK_SGEMM_TINYK_INSTANCE(ARGS, LAYOUT, VEC)                                                         \
    template int tinyk_launch_cfg<SMK_SGEMM_CFG(TINYK, ARGS), LAYOUT, VEC>(const smk_sgemm_params &,       \
                                                                           const SgemmSlice &, int, cudaStream_t);
#define SMK_SGEMM_ROW_TILE(ARGS)
#define SMK_SGEMM_ROW_SKINNY_M(ARGS)
#define SMK_SGEMM_ROW_SKINNY_N(ARGS)
#define SMK_SGEMM_ROW_MATVEC(ARGS)
#define SMK_SGEMM_ROW_TINYK(ARGS)                                                                         \
    SMK_SGEMM_TINYK_INSTANCE(ARGS, SMK_NAIVE, false) SMK_SGEMM_TINYK_INSTANCE(ARGS, SMK_NAIVE, true)       \
    SMK_SGEMM_TINYK_INSTANCE(ARGS, SMK_PAD, false) SMK_SGEMM_TINYK_INSTANCE(ARGS, SMK_PAD, true)           \
    SMK_SGEMM_TINYK_INSTANCE(ARGS, SMK_SWIZZLE, false) SMK_SGEMM_TINYK_INSTANCE(ARGS, SMK_SWIZZLE, true)
#define SMK_SGEMM_ROW(NAME, KIND, ARGS, COST) SMK_SGEMM_ROW_##KIND(ARGS)
SMK_SGEMM_CONFIGS(SMK_SGEMM_ROW)

} /* namespace smk */
