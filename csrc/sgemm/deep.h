/* sgemm/deep.h -- the tile kernel's deep load pipeline (knob sgemm_deep; sgemm/tile_deep.cuh): which rows
 * have it, its depth, its launch and its gate.  Host C++ (launch.cu, plan.cu, tile_deep.cu); its own header,
 * so the translation units of the other kernels do not recompile for it. */
#ifndef SMK_SGEMM_DEEP_H
#define SMK_SGEMM_DEEP_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "api/sgemm.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"

namespace smk {

/* Shared stages of the deep kernel: S - 1 = 3 k-tiles of copies in flight (64x64x16: 3 x ~600 cycles of a
 * warp's FMAs against a DRAM load's ~800-1000); 4 x 8 KB (swizzle) of a 64x64x16 block, 4 x 10 KB of
 * 32x128x16: the rows' 4 blocks per SM still fit. */
constexpr int kSgemmDeepStages = 4;

/* The rows built with the deep pipeline: the TILE rows of BK = 16 (64x64x16, 32x128x16), which the chooser
 * gives the small calls of issue 27's latency-bound class. */
template <class Cfg>
constexpr bool sgemm_has_deep()
{
    return Cfg::KIND == SGEMM_TILE && Cfg::BK == 16;
}

/* The half tile of 64x64x16 (not a row of the table; deep pipeline only): 32x64x16, 128 threads of 4x4 outputs
 * (warp tile 16x32, one sub-tile; 64x64x16's lanes and 4x4 thread tile, so tile.cuh's bank arithmetic holds).
 * Twice the blocks of 64x64x16 and half a warp's FMA chain: for grids that leave SMs with <= 2 blocks of 64x64,
 * where one warp per scheduler's own chain (8x4 outputs x K FFMAs + its loads) is the launch's time. */
using SgemmHalfCfg = SgemmCfg<32, 64, 16, 16, 32, 1, 4, 4, 128, 4>;
/* The table row (name) whose launches the half tile may take. */
#define SMK_SGEMM_HALF_OF "64x64x16"

/* The deep kernel's element copies (tile_deep.cuh), also replayed by explain() (plan.cu).
 * A (stored transposed, As[k][m]): copy i of thread tid; a warp copies 4 rows x 8 consecutive k (chunk c =
 * (i * THREADS + tid) / 32: rows 4 * (c % (BM / 4)) + lane / 8, k 8 * (c / (BM / 4)) + lane % 8), so one
 * instruction reads 4 rows' 32-byte pieces (4-5 lines of L1) where tile.cuh's float4 map (16 rows x 2 float4
 * per warp), copied element by element, reads 16 lines.  Its shared writes: 8 k x 4 m; pad (bank 4k + m)
 * conflict-free, swizzle conflict-free in smk_sgemm_deep_tile (bank m ^ 4(k & 7); smk_sgemm_tile's bank m, or
 * m ^ 16 for k bit 2, was 4-way), naive (bank m) 8-way.
 * B, rows off 16 bytes (!VEC): copy i of thread tid is column tid % BN of row tid / BN + i * THREADS / BN: a
 * warp's 32 consecutive columns of one row (1-2 lines of L1, 32 banks). */
template <class Cfg>
struct SgemmDeepMap {
    static constexpr int A_ELEMS = Cfg::BM * Cfg::BK / Cfg::THREADS;  /* A copies per thread per k-tile */
    static constexpr int A_ROWS = 8 * Cfg::BM / Cfg::THREADS;          /* distinct rows among them */
    static constexpr int B_RS = Cfg::THREADS / Cfg::BN, B_ELEMS = Cfg::BK / B_RS; /* !VEC B: rows apart, copies */
    static_assert(Cfg::THREADS % 32 == 0 && Cfg::BM % 4 == 0 && Cfg::BK % 8 == 0, "4 x 8 chunks per warp");
    static_assert(A_ROWS >= 1 && A_ELEMS == A_ROWS * (Cfg::BK / 8), "copy i is row i % A_ROWS, k-half i / A_ROWS");
    static_assert(Cfg::THREADS % Cfg::BN == 0 && Cfg::BK % B_RS == 0, "B element copies: whole rows per pass");
    SMK_HD static void a_copy(int i, int tid, int *row, int *k)
    {
        const int c = (i * Cfg::THREADS + tid) >> 5, l = tid & 31;
        *row = (c % (Cfg::BM / 4)) * 4 + (l >> 3); /* [0, BM) */
        *k = (c / (Cfg::BM / 4)) * 8 + (l & 7);    /* [0, BK) */
    }
    SMK_HD static void b_copy(int i, int tid, int *row, int *col)
    {
        *row = tid / Cfg::BN + i * B_RS; /* [0, BK) */
        *col = tid % Cfg::BN;            /* [0, BN) */
    }
};

/* The deep kernel's A tile (As[k][m], BK rows of 2^log2_cols floats; its B tile is smk_sgemm_tile's).  naive / pad:
 * smk_sgemm_tile's.  swizzle: Swizzle<3,2,log2_cols - 2>, chunk' = chunk ^ (k & 7) (16-byte chunks of a row), where
 * smk_sgemm_tile's Swizzle<1,4,S> XORs one bit of k (bit 2) into the chunk: a warp's copies (SgemmDeepMap, 4 m x 8
 * k, m = 4q + j) then sit at bank (m ^ 4(k & 7)) mod 32 = 4 (q ^ k) + j (BM a multiple of 32): 8 distinct chunks x
 * 4 j, 32 banks, where Swizzle<1,4,S> left 2 chunks x 4 j, 4-way.  The fragment loads (LDS.128 at one k) move by
 * one XOR of a row's chunks: naive's bank pattern permuted, conflict-free.  Storage as smk_sgemm_tile's. */
SMK_HD smk_tile smk_sgemm_deep_tile(int layout, int log2_cols)
{
    smk_tile t = {layout, log2_cols, 2, 2, 3, 2, log2_cols - 2};
    return layout == SMK_SWIZZLE ? t : smk_sgemm_tile(layout, log2_cols);
}

/* The deep A tile against the kernel's index arithmetic, for every k < BK and column c < BM: its row split
 * (SgemmDeepThreadTile::load_row: offset(k, c) == row_offset(k) + (c ^ row_xor(k))) and the storage of
 * smk_sgemm_tile's (sgemm_smem_bytes sizes the stages). */
template <class Cfg, int LAYOUT>
constexpr bool sgemm_deep_split_ok()
{
    constexpr smk_tile TA = smk_sgemm_deep_tile(LAYOUT, Cfg::LOG2_BM);
    if (smk_tile_elems(TA, Cfg::BK) != smk_tile_elems(smk_sgemm_tile(LAYOUT, Cfg::LOG2_BM), Cfg::BK))
        return false;
    for (int k = 0; k < Cfg::BK; ++k)
        for (int c = 0; c < Cfg::BM; ++c)
            if (smk_tile_offset(TA, k, c) != smk_tile_row_offset(TA, k) + (c ^ smk_tile_row_xor(TA, k)))
                return false;
    return true;
}

/* offset(k0 + e, m) == offset(k0, 0) + offset(e, m) for k0 = 0 mod 8, e < 8 (deep A tile): a copy's k-half is an
 * immediate (naive / pad: a constant pitch; swizzle: the XOR reads bits 0-2 of k, which k0 does not change). */
template <class Cfg, int LAYOUT>
constexpr bool sgemm_deep_rows_ok()
{
    constexpr smk_tile TA = smk_sgemm_deep_tile(LAYOUT, Cfg::LOG2_BM);
    for (int k0 = 0; k0 < Cfg::BK; k0 += 8)
        for (int e = 0; e < 8; ++e)
            for (int m = 0; m < Cfg::BM; ++m)
                if (smk_tile_offset(TA, k0 + e, m) != smk_tile_offset(TA, k0, 0) + smk_tile_offset(TA, e, m))
                    return false;
    return true;
}

/* One launch of the deep kernel of a row with sgemm_has_deep (tile_deep.cu); cudaErrorInvalidValue for the
 * others. */
template <class Cfg, int LAYOUT, bool VEC>
int tile_launch_deep(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream);

/* Whether config (a row number) has the deep pipeline; whether its launches may take the half tile. */
bool sgemm_deep_row(int config);
bool sgemm_half_row(int config);

/* Level 6's narrowest output: half the half tile's BN columns. */
constexpr int64_t kDeepMinN = 32;

/* sgemm_deep_gate's answers. */
enum { SGEMM_DEEP_NO = 0, SGEMM_DEEP_SAME = 1, SGEMM_DEEP_HALF = 2 };

/* The gate, pure: how a tile launch of `config` over an M x N output, K deep per block, in `splits` K slices on
 * `sms` SMs runs at knob level `knob`: SGEMM_DEEP_SAME the deep kernel of config's tile, SGEMM_DEEP_HALF the deep
 * kernel of SgemmHalfCfg (config SMK_SGEMM_HALF_OF only), SGEMM_DEEP_NO tile.cuh.  Levels: 0 never; 1 the same tile
 * where K > 16 (two k-tiles or more) and the grid (tiles x splits) is at most 2 blocks per SM; 2 as 1 with at most
 * 4 blocks per SM (the rows' MINBLOCKS: every block resident at once); 3 as 1, with SMK_SGEMM_HALF_OF's launches on
 * the half tile (at most 4 of its blocks per SM); 4 every launch of a deep row, same tile (tests); 5 as 4, with
 * SMK_SGEMM_HALF_OF's on the half tile (tests); 6 as 3 where N >= kDeepMinN (session 41, seed 167: level 3 moved
 * 62 draws x1.11, but outputs narrower than half the tile's 64 columns lost -- N = 4, 11, 13, 25, 28 -- and
 * 15960x4x52 ran 14x slower on the deep kernel of either tile).  The staged epilogue (sgemm_epi) wins where its gate says, and a
 * split the tile kernel finishes itself (splitk_fixup) keeps tile.cuh (launch.cu). */
int sgemm_deep_gate(int64_t M, int64_t N, int64_t K, int splits, int config, int sms, int knob);

/* Knob sgemm_deep's level now (launch.cu). */
int sgemm_deep_level();

} /* namespace smk */

#endif /* SMK_SGEMM_DEEP_H */
