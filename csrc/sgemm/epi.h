/* sgemm/epi.h -- the tile kernel's staged epilogue (epilogue_staged.cuh, knob sgemm_epi): which tile element
 * each thread stages and stores (SgemmEpiMap, shared by the kernel and plan.cu's replay), its shared memory, the
 * gate and the launch function the launcher (launch.cu) calls.  Apart from maps.h and launch.h so that the
 * kernels that include those do not recompile for it. */
#ifndef SMK_SGEMM_EPI_H
#define SMK_SGEMM_EPI_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"
#include "sgemm/maps.h"

namespace smk {

/* The block's BM x BN output tile in shared memory: the map of every SGEMM tile with BN columns (float4
 * access), BM rows. */
template <class Cfg>
struct SgemmEpiMap {
    static constexpr int C_CPR = Cfg::BN / 4;                      /* 16-byte chunks per tile row */
    static constexpr int C_ITERS = Cfg::BM * C_CPR / Cfg::THREADS; /* chunks per thread */
    static_assert(C_ITERS * Cfg::THREADS == Cfg::BM * C_CPR, "the tile's chunks split evenly over the threads");
    SMK_HD static smk_tile c_tile(int layout) { return smk_sgemm_tile(layout, Cfg::LOG2_BN); }
    /* Staging store of accumulator row i*TM + ii, float4 jn*TN + j (j a multiple of 4): tile (row, col). */
    SMK_HD static void c_stage(int tid, int i, int ii, int jn, int j, int *row, int *col)
    {
        *row = SgemmMap<Cfg>::a_col(tid) + i * Cfg::WSUBM + ii; /* [0, BM) */
        *col = SgemmMap<Cfg>::b_col(tid) + jn * Cfg::WSUBN + j; /* [0, BN), multiple of 4 */
    }
    /* The same offsets as base(tid) + delta(i, ii, jn, j) (sgemm_c_stage_ok checks it): the thread's rows
     * a_col + i*WSUBM + ii share row bit 2 (a_col's; i*WSUBM and ii < 4 leave it), so the swizzle's XOR is one
     * per thread, on column bit 4, which b_col's lane part alone sets; rows are a linear pitch apart.  One
     * address register and immediates. */
    SMK_HD static int c_stage_base(smk_tile t, int tid)
    {
        const int r = SgemmMap<Cfg>::a_col(tid);
        return smk_tile_row_offset(t, r) + (SgemmMap<Cfg>::b_col(tid) ^ smk_tile_row_xor(t, r));
    }
    SMK_HD static int c_stage_delta(smk_tile t, int i, int ii, int jn, int j)
    {
        return smk_tile_row_offset(t, i * Cfg::WSUBM + ii) + jn * Cfg::WSUBN + j;
    }
    /* Row-store iteration it: tile row and chunk k (tile columns 4k .. 4k+3); consecutive threads,
     * consecutive chunks of a row (a warp: 32 / C_CPR rows, or 32 of the C_CPR chunks). */
    SMK_HD static void c_chunk(int it, int tid, int *row, int *k)
    {
        const int q = it * Cfg::THREADS + tid;
        *row = q / C_CPR; /* [0, BM) */
        *k = q % C_CPR;   /* [0, C_CPR) */
    }
};

/* smk_tile_offset(TC, c_stage(...)) == c_stage_base(TC, tid) + c_stage_delta(TC, i, ii, jn, j) for every thread
 * and store; checked at compile time for each config and layout. */
template <class Cfg, int LAYOUT>
__host__ __device__ constexpr bool sgemm_c_stage_ok()
{
    using Map = SgemmEpiMap<Cfg>;
    constexpr smk_tile TC = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN);
    for (int tid = 0; tid < Cfg::THREADS; ++tid)
        for (int i = 0; i < Cfg::WMITER; ++i)
            for (int ii = 0; ii < Cfg::TM; ++ii)
                for (int jn = 0; jn < Cfg::WNITER; ++jn)
                    for (int j = 0; j < Cfg::TN; j += 4) {
                        int r = 0, c = 0;
                        Map::c_stage(tid, i, ii, jn, j, &r, &c);
                        if (smk_tile_offset(TC, r, c) != Map::c_stage_base(TC, tid) + Map::c_stage_delta(TC, i, ii, jn, j))
                            return false;
                    }
    return true;
}

/* Dynamic shared memory of a staged-epilogue instantiation: the main loop's stages, or the BM x BN output tile
 * where that is larger (most rows; at most 133 KB, 128x256 pad: with MINBLOCKS blocks per SM every row still
 * fits 228 KB, so occupancy stays the registers' and MINBLOCKS'). */
template <class Cfg, int LAYOUT>
inline size_t sgemm_epi_smem_bytes()
{
    const size_t tile = (size_t)smk_tile_elems(SgemmEpiMap<Cfg>::c_tile(LAYOUT), Cfg::BM) * sizeof(float);
    const size_t loop = sgemm_smem_bytes<Cfg, LAYOUT>();
    return tile > loop ? tile : loop;
}

/* The gate, a pure function (launch.cu; knob sgemm_epi).  A tile launch of `config` (a TILE row) over an M x N
 * output, K deep per block (a split launch: its slice depth), whose output rows are `rows` (2: D's, and C's
 * when read, all on 128-byte lines; 1: on 16 bytes, ld % 4 == 0; 0: neither) stores through shared memory
 * where it returns 1:
 *   level 1: K <= 64, M N >= kEpiMinOutputs, rows < 2 (whole lines already have nothing to gain);
 *   level 2: always (tests);  level 3: K <= 256, M N >= kEpiMinOutputs, any rows (probes);  0: never.
 * The split launches the tile kernel finishes itself (fixup.cuh) keep the register epilogue. */
constexpr int64_t kEpiMinOutputs = (int64_t)1 << 19; /* 2 MB of D: a few waves of 64x128 tiles */
int sgemm_epi_level();
int sgemm_epi_gate(int64_t M, int64_t N, int64_t K, int rows, int config, int knob);

/* One launch of the tile kernel with the staged epilogue (tile.cuh): realign where D's rows, or C's when
 * read, are off 16 bytes (the !VEC kernels' re-aligned row stores). */
template <class Cfg, int LAYOUT, bool VEC>
int tile_launch_epi(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, bool realign, cudaStream_t stream);

} /* namespace smk */

#endif /* SMK_SGEMM_EPI_H */
