/*
 * transpose/tile.cuh -- the shared tile of a transpose block: its geometry through layout.h, the thread
 * map, and the two shared accesses (row store, column read).  Host-visible parts (TransposeMap,
 * tile_geometry, tile_bytes) are also what plan.cu replays, so the bank model sees this kernel's own
 * addresses.
 *
 * A block moves TILE x TILE units.  It parks them with a ROW store (lane = unit column c) and reads them
 * back down a COLUMN (lane i reads unit (i, c)).  The column read is the access the layouts are about.
 * With w = bytes per shared access (4 for the 1-, 2- and 4-byte kernels, whose planes hold 32-bit words;
 * 8; 16) and a phase = 128 / w lanes (32 / 16 / 8) that one wavefront serves when their w-byte slots of
 * one 128-byte bank row are distinct:
 *
 *   naive    offset = i*TILE + c          byte i*TILE*w + c*w: TILE*w is a multiple of 128, so every
 *                                         lane of a phase hits the same slot in a different bank row
 *                                         -> 32 wavefronts per instruction for every w (32 lanes x 1,
 *                                         2 half-warps x 16, 4 quarter-warps x 8)
 *   pad      offset = i*(TILE+1) + c      row pitch TILE*w + w: lane i sits i*w bytes further along the
 *                                         bank row, so the 128/w lanes of a phase take 128/w distinct
 *                                         slots -> 1 wavefront per phase: 1 / 2 / 4 for w = 4 / 8 / 16
 *   swizzle  offset = i*TILE + (c ^ (i mod 2^B))   Swizzle<B,0,log2 TILE>, B = log2(128 / w) = 5 / 4 / 3
 *                                         (layout.h's automatic choice): XOR with the distinct
 *                                         i mod 2^B of one phase is a bijection of its 2^B slots ->
 *                                         1 wavefront per phase, no extra storage; for w = 16 every
 *                                         16-byte element stays whole (M = 0 on 16-byte elements)
 *
 * The row store (lane = c) is conflict-free in all three: a row is contiguous (naive, pad) or a
 * permutation of contiguous slots (swizzle), so a phase covers its slots once: 1 / 2 / 4 wavefronts.
 * Proved on the CPU by the bank model and the tests (smk_transpose_plan replays TransposeMap through
 * the same smk_tile_offset), measured with Nsight Compute (bench/profiling/ncu_kernels.sh +
 * bench/profiling/compare_ncu.py).
 * Sub-word units occupy P planes, one TILE x TILE word tile each, laid out back to back.
 */
#ifndef SMK_TRANSPOSE_TILE_CUH
#define SMK_TRANSPOSE_TILE_CUH

#include "layout.h"
#include "transpose/unit.cuh"

namespace {

/* A thread's registers: word k of its j-th unit (j in [0, NB), k in [0, P)); NB = TILE/ROWS, or one more
for the sector-store kernel's band unit (sector.cuh). */
template <int ESZ, int TILE, int ROWS, int NB = TILE / ROWS>
using Regs = typename Unit<ESZ>::W[NB][Unit<ESZ>::P];

/* Which logical tile unit thread (tx, ty) moves in its j-th step, for the row store and the column
 * read.  Shared by the kernel and smk_transpose_plan (the bank model replays these). */
template <int ROWS>
struct TransposeMap {
    SMK_HD static int store_row(int tx, int ty, int j) { return (void)tx, ty + j * ROWS; }
    SMK_HD static int store_col(int tx, int ty, int j) { return (void)ty, (void)j, tx; }
    SMK_HD static int load_row(int tx, int ty, int j) { return (void)ty, (void)j, tx; }
    SMK_HD static int load_col(int tx, int ty, int j) { return (void)tx, ty + j * ROWS; }
};

/* One plane: a TILE x TILE tile of the unit's words under `layout` (runtime for the plan, a constant in
 * the kernel). */
template <int ESZ, int TILE>
SMK_HD smk_tile tile_geometry(int layout)
{
    return smk_tile{layout, smk_ilog2(TILE), 0, smk_ilog2((int)sizeof(typename Unit<ESZ>::W))};
}

/* Shared bytes of one block: P planes of `rows` unit rows (TILE, or TILE + ROWS with sector.cuh's band). */
template <int ESZ, int TILE>
constexpr int tile_bytes(int layout, int rows = TILE)
{
    typedef Unit<ESZ> U;
    return U::P * smk_tile_elems(tile_geometry<ESZ, TILE>(layout), rows) * (int)sizeof(typename U::W);
}

/* The block's tile in shared memory: P planes of TILE x TILE words (NB > TILE/ROWS: TILE + ROWS unit rows,
 * sector.cuh's band), each under layout L. */
template <int L, int ESZ, int TILE, int ROWS, int NB = TILE / ROWS>
struct SharedTile {
    typedef typename Unit<ESZ>::W W;
    typedef TransposeMap<ROWS> Map;
    static constexpr int N = TILE / ROWS, P = Unit<ESZ>::P;
    static constexpr int PLANE = smk_tile_elems(tile_geometry<ESZ, TILE>(L), NB * ROWS); // words per plane

    /* Row store: thread (tx, ty) parks logical unit (ty + j*ROWS, tx), word k in plane k.  Out-of-range
     * units hold zeros that the global store never writes out. */
    static __device__ __forceinline__ void store_rows(W *tile, const Regs<ESZ, TILE, ROWS, NB> &w, int tx, int ty)
    {
        constexpr smk_tile tl = tile_geometry<ESZ, TILE>(L);
#pragma unroll
        for (int j = 0; j < NB; j++)
#pragma unroll
            for (int k = 0; k < P; k++)
                tile[k * PLANE + smk_tile_offset(tl, Map::store_row(tx, ty, j), Map::store_col(tx, ty, j))] = w[j][k];
    }

    /* Row store of NJ units only, the thread's units J0 .. J0 + NJ - 1 (w[j - J0]): the sector kernel parks its
     * main units, then loads and parks the band's (sector_kernel.cuh).  The same offsets as store_rows. */
    template <int J0, int NJ>
    static __device__ __forceinline__ void store_units(W *tile, const W (&w)[NJ][P], int tx, int ty)
    {
        constexpr smk_tile tl = tile_geometry<ESZ, TILE>(L);
#pragma unroll
        for (int j = J0; j < J0 + NJ; j++)
#pragma unroll
            for (int k = 0; k < P; k++)
                tile[k * PLANE + smk_tile_offset(tl, Map::store_row(tx, ty, j), Map::store_col(tx, ty, j))] = w[j - J0][k];
    }

    /* Column read: thread (tx, ty) takes logical unit (tx, ty + j*ROWS) -- the access the layouts are
     * about (see the table above). */
    static __device__ __forceinline__ void load_columns(const W *tile, Regs<ESZ, TILE, ROWS, NB> &w, int tx, int ty)
    {
        constexpr smk_tile tl = tile_geometry<ESZ, TILE>(L);
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++)
                w[j][k] = tile[k * PLANE + smk_tile_offset(tl, Map::load_row(tx, ty, j), Map::load_col(tx, ty, j))];
    }

    /* Word k of unit (r, c): sector.cuh's shifted column read. */
    static __device__ __forceinline__ W word(const W *tile, int k, int r, int c)
    {
        return tile[k * PLANE + smk_tile_offset(tile_geometry<ESZ, TILE>(L), r, c)];
    }
};

} // namespace

#endif /* SMK_TRANSPOSE_TILE_CUH */
