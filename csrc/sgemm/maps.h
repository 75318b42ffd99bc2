/* sgemm/maps.h -- which tile element each thread of an SGEMM kernel touches.  Shared by the kernels
 * (tile.cuh, skinny_m.cuh, skinny_n.cuh) and their host replay (plan.cu), so the addresses explain()
 * replays are the kernel's own.  Host and device (SMK_HD). */
#ifndef SMK_SGEMM_MAPS_H
#define SMK_SGEMM_MAPS_H

#include <stddef.h>

#include "layout.h"
#include "sgemm/configs.h"

namespace smk {

/* The tile kernel (SgemmCfg). */
template <class Cfg>
struct SgemmMap {
    /* A global load j of thread tid: tile row (m) and first k column (4 consecutive k follow).
     * Warp chunk c covers rows 16*(c % (BM/16)) .. +15 and k 8*(c / (BM/16)) .. +7. */
    SMK_HD static void a_load(int j, int tid, int *row, int *kc)
    {
        const int idx = j * Cfg::THREADS + tid, chunk = idx >> 5, l = idx & 31;
        *row = (chunk % (Cfg::BM / 16)) * 16 + (l >> 1); /* [0, BM) */
        *kc = (chunk / (Cfg::BM / 16)) * 8 + (l & 1) * 4; /* [0, BK), multiple of 4 */
    }
    /* B global load j: tile row (k) and first n column; consecutive threads, consecutive float4. */
    SMK_HD static void b_load(int j, int tid, int *row, int *col)
    {
        const int idx = j * Cfg::THREADS + tid;
        *row = idx / (Cfg::BN / 4);      /* [0, BK) */
        *col = (idx % (Cfg::BN / 4)) * 4; /* [0, BN), multiple of 4 */
    }
    /* First m column of As / n column of Bs this thread reads; fragment (i, j) adds i*WSUBM + j
     * (i*WSUBN + j), bits disjoint from the base.  The masks change nothing (the values are in range
     * already) but tell the compiler so; with the high bits known it folds the row part of every
     * shared-memory address into the LDS immediate. */
    SMK_HD static int a_col(int tid)
    {
        const int lane = tid & 31, warp = tid >> 5;
        return ((warp / (Cfg::BN / Cfg::WN)) * Cfg::WM + (lane / Cfg::LANES_N) * Cfg::TM) & (Cfg::BM - 1);
    }
    SMK_HD static int b_col(int tid)
    {
        const int lane = tid & 31, warp = tid >> 5;
        return ((warp % (Cfg::BN / Cfg::WN)) * Cfg::WN + (lane % Cfg::LANES_N) * Cfg::TN) & (Cfg::BN - 1);
    }
};

/* The A store's row split (the tile kernel's SgemmTileLoader::store): for every k0 = 0 mod 4 (the
 * first k of an A float4), e < 4 and column m of the A tile,
 *     smk_tile_offset(TA, k0 + e, m) == smk_tile_offset(TA, k0, m) + smk_tile_offset(TA, e, 0).
 * naive / pad: rows are a constant pitch apart.  swizzle (Swizzle<1,4,S>): the XOR depends on bit 2
 * of k only, which e < 4 does not change.  Checked at compile time for each config and layout. */
template <class Cfg, int LAYOUT>
__host__ __device__ constexpr bool sgemm_a_rows_ok()
{
    constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BM);
    for (int k0 = 0; k0 < Cfg::BK; k0 += 4)
        for (int e = 0; e < 4; ++e)
            for (int m = 0; m < Cfg::BM; ++m)
                if (smk_tile_offset(TA, k0 + e, m) != smk_tile_offset(TA, k0, m) + smk_tile_offset(TA, e, 0))
                    return false;
    return true;
}

/* The fragment loads' row split (layout.h): for every k-tile row k and column c of both tiles,
 *     smk_tile_offset(T, k, c) == smk_tile_row_offset(T, k) + (c ^ smk_tile_row_xor(T, k)),
 * so SgemmThreadTile::load_row may form one XOR per row and operand.  Checked at compile time for
 * each config and layout. */
template <class Cfg, int LAYOUT>
__host__ __device__ constexpr bool sgemm_row_split_ok()
{
    constexpr smk_tile T[2] = {smk_sgemm_tile(LAYOUT, Cfg::LOG2_BM), smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN)};
    for (int t = 0; t < 2; ++t)
        for (int k = 0; k < Cfg::BK; ++k)
            for (int c = 0; c < (1 << T[t].log2_cols); ++c)
                if (smk_tile_offset(T[t], k, c) != smk_tile_row_offset(T[t], k) + (c ^ smk_tile_row_xor(T[t], k)))
                    return false;
    return true;
}

/* skinny-m (SkinnyMCfg). */
template <class Cfg>
struct SkinnyMMap {
    /* A load j of thread tid: slice row m and first k (4 consecutive k follow); a row's BK/4 float4
     * are consecutive threads. */
    SMK_HD static void a_load(int j, int tid, int *m, int *kc)
    {
        const int idx = j * Cfg::THREADS + tid;
        *m = idx / (Cfg::BK / 4);        /* [0, MS) */
        *kc = (idx % (Cfg::BK / 4)) * 4; /* [0, BK), multiple of 4 */
    }
    /* First of the thread's 4 columns of the block tile. */
    SMK_HD static int b_col(int tid) { return 4 * tid; } /* [0, BN) */
};

/* skinny-n (SkinnyNCfg). */
template <class Cfg>
struct SkinnyNMap {
    /* B load j of thread tid: slice row k and first column n (4 consecutive n follow). */
    SMK_HD static void b_load(int j, int tid, int *k, int *n)
    {
        const int idx = j * Cfg::THREADS + tid;
        *k = idx / (Cfg::NS / 4);       /* [0, BK) */
        *n = (idx % (Cfg::NS / 4)) * 4; /* [0, NS), multiple of 4 */
    }
    /* First k (4 consecutive follow) that lane `lane` reads in step s of a k-tile. */
    SMK_HD static int a_k(int lane, int s) { return 128 * s + 4 * lane; } /* [0, BK) */
};

/* Dynamic shared memory of one block of the tile kernel sgemm_kernel<Cfg, LAYOUT, *>, in bytes. */
template <class Cfg, int LAYOUT>
inline size_t sgemm_smem_bytes()
{
    const smk_tile ta = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BM), tb = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN);
    return (size_t)Cfg::STAGES * (size_t)(smk_tile_elems(ta, Cfg::BK) + smk_tile_elems(tb, Cfg::BK)) *
           sizeof(float);
}

/* matvec (MatVecCfg, matvec.cuh): the cross-warp sum, (KW - 1) x MS rows of 128 floats; warp w > 0's
 * row m of partial sums, the lane's float4. */
template <class Cfg>
struct MatVecMap {
    SMK_HD static smk_tile red_tile(int layout) { return smk_sgemm_tile(layout, 7); } /* 128 columns */
    SMK_HD static int red_offset(smk_tile t, int w, int m, int lane)
    {
        return smk_tile_offset(t, (w - 1) * Cfg::MS + m, 4 * lane); /* [0, (KW - 1) * MS rows) x [0, 128) */
    }
};

} /* namespace smk */

#endif
