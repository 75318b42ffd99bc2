/* sgemm/skinny.cu -- the memory-bound kernels (skinny_m.cuh, skinny_n.cuh, matvec.cuh) of every SKINNY_M /
 * SKINNY_N / MATVEC row of configs.h, every layout and VEC path, and their launch functions (launch.h). */
#include <cuda_runtime.h>

#include "runtime.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"
#include "sgemm/matvec.cuh"
#include "sgemm/skinny_m.cuh"
#include "sgemm/skinny_n.cuh"

namespace smk {

/* One launch of a skinny kernel instantiation: grid (tiles, splits), static shared memory. */
template <class Cfg, int LAYOUT, bool VEC>
int skinny_launch_cfg(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    const long long blocks = sgemm_grid_blocks(Cfg::TILE_M, Cfg::TILE_N, q.M, q.N);
    if (blocks <= 0 || splits < 1 || splits > 65535) return (int)cudaErrorInvalidValue;
    const dim3 grid((unsigned)blocks, (unsigned)splits);
    /* rows off 16 bytes: the re-aligned stream, unless the A/B knob asks for the scalar path */
    if constexpr (Cfg::KIND == SGEMM_MATVEC) {
        matvec_kernel<Cfg, LAYOUT, VEC><<<grid, Cfg::THREADS, 0, stream>>>(q, slice);
    } else if constexpr (Cfg::KIND == SGEMM_SKINNY_M) {
        if (!VEC && sgemm_new_paths())
            skinny_m_kernel<Cfg, LAYOUT, VEC, !VEC><<<grid, Cfg::THREADS, 0, stream>>>(q, slice);
        else
            skinny_m_kernel<Cfg, LAYOUT, VEC, false><<<grid, Cfg::THREADS, 0, stream>>>(q, slice);
    } else {
        /* skinny-n keeps the scalar path from level 3: with the same choice (config and split) on 93
         * draws of seeds 21 and 31 (H100, 2026-11-26, bench_calls --ab-old --ab sgemm_new_paths=1) its
         * re-aligned stream ran 0.85 of the scalar path's speed (geomean; 6356x2x1482 1.26 -> 0.64 of
         * cuBLAS), where skinny-m's ran 1.17 of it.  Levels 1 and 2 keep it, for the A/B. */
        const int level = sgemm_new_paths();
        /* level 7 (opt-in): the "/pf" rows' scalar A loads allocate in L1 (skinny_n.cuh, RA 2) */
        if constexpr (!VEC && Cfg::PF != 0)
            if (level >= 7) {
                skinny_n_kernel<Cfg, LAYOUT, VEC, 2><<<grid, Cfg::THREADS, 0, stream>>>(q, slice);
                return (int)cudaGetLastError();
            }
        if (!VEC && level >= 1 && level <= 2)
            skinny_n_kernel<Cfg, LAYOUT, VEC, VEC ? 0 : 1><<<grid, Cfg::THREADS, 0, stream>>>(q, slice);
        else
            skinny_n_kernel<Cfg, LAYOUT, VEC, 0><<<grid, Cfg::THREADS, 0, stream>>>(q, slice);
    }
    return (int)cudaGetLastError();
}

/* Explicit instantiations, by row KIND of configs.h (the TILE rows are tile_<layout>.cu's). */
#define SMK_SGEMM_SKINNY_INSTANCE(KIND, ARGS, LAYOUT, VEC)                                                 \
    template int skinny_launch_cfg<SMK_SGEMM_CFG(KIND, ARGS), LAYOUT, VEC>(const smk_sgemm_params &,       \
                                                                           const SgemmSlice &, int, cudaStream_t);
#define SMK_SGEMM_SKINNY_INSTANCES(KIND, ARGS)                                                             \
    SMK_SGEMM_SKINNY_INSTANCE(KIND, ARGS, SMK_NAIVE, false)                                               \
    SMK_SGEMM_SKINNY_INSTANCE(KIND, ARGS, SMK_NAIVE, true)                                                \
    SMK_SGEMM_SKINNY_INSTANCE(KIND, ARGS, SMK_PAD, false)                                                 \
    SMK_SGEMM_SKINNY_INSTANCE(KIND, ARGS, SMK_PAD, true)                                                  \
    SMK_SGEMM_SKINNY_INSTANCE(KIND, ARGS, SMK_SWIZZLE, false)                                             \
    SMK_SGEMM_SKINNY_INSTANCE(KIND, ARGS, SMK_SWIZZLE, true)
#define SMK_SGEMM_ROW_TILE(ARGS)
#define SMK_SGEMM_ROW_SKINNY_M(ARGS) SMK_SGEMM_SKINNY_INSTANCES(SKINNY_M, ARGS)
#define SMK_SGEMM_ROW_SKINNY_N(ARGS) SMK_SGEMM_SKINNY_INSTANCES(SKINNY_N, ARGS)
#define SMK_SGEMM_ROW_TINYK(ARGS)
#define SMK_SGEMM_ROW_MATVEC(ARGS) SMK_SGEMM_SKINNY_INSTANCES(MATVEC, ARGS)
#define SMK_SGEMM_ROW(NAME, KIND, ARGS, COST) SMK_SGEMM_ROW_##KIND(ARGS)
SMK_SGEMM_CONFIGS(SMK_SGEMM_ROW)

} /* namespace smk */
