/*
 * sgemm_config.h -- the tile configuration of smemkit's warp-tiled SGEMM, in one place.
 *
 * Plain C macros (the bank model enumerates the kernel's shared-memory accesses from these) plus, for
 * C++, the same numbers as one compile-time struct that the kernel template takes.  The macros name
 * the first two configs:
 *
 *   BIG    128x128x8 block tile, 256 threads (8 warps of 32x64), 8x8 outputs per thread.
 *   SMALL  64x64x8 block tile, 128 threads (4 warps of 32x32), 8x4 outputs per thread.
 *
 * Five more ship as SgemmCfg instances in sgemm.cu (128x256x8, 64x64x16, 128x64x8, 64x128x8 and
 * 64x128x8/minb4); which config and how many K slices a launch uses is smk_sgemm_choose's cost
 * model (sgemm.cu).
 *
 * All have the same warp geometry inside a warp sub-tile (4 lanes along m x 8 lanes along n, 4x4
 * thread tile), so the bank arithmetic of bench/SGEMM_NOTES.md applies to all of them unchanged.
 *
 * Names follow siboehm's SGEMM_CUDA kernel 10:
 *   BM, BN, BK       block tile (rows of A / D, cols of B / D, depth per shared-memory stage)
 *   WM, WN           warp tile
 *   WMITER, WNITER   warp sub-tiles per warp tile along m / n; WSUBM = WM/WMITER, WSUBN = WN/WNITER
 *   TM, TN           thread tile inside one warp sub-tile (outputs per thread = WMITER*TM x WNITER*TN)
 *   THREADS          threads per block = (BM/WM)*(BN/WN)*32
 *   STAGES           shared-memory buffers (2: global->register->shared double buffering)
 *   MINBLOCKS        __launch_bounds__ min blocks per SM (caps registers at 65536/(THREADS*MINBLOCKS))
 */
#ifndef SMK_SGEMM_CONFIG_H
#define SMK_SGEMM_CONFIG_H

#include "layout.h"

/* The map of both SGEMM tiles (As: BK x BM, Bs: BK x BN; float4 access).  Its swizzle is
 * Swizzle<1,4,log2 cols - 2>: bit 2 of the row k flips which 16-float half of the 128-byte bank row
 * a 16-float block lands in.  That is exactly what the transposed A store needs (its two rows k and
 * k+4 then fill different halves) and nothing more: rows 0..3 XOR with 0 and rows 4..7 with one
 * per-thread constant, so the inner loop's fragment addresses stay immediates, as pad's do.  The
 * automatic Swizzle<3,2,S> also removes the conflict but gives every k its own XOR: measured on an
 * H200 (2026-11-22) it ran 84% of cuBLAS at 4096^3 where pad ran 93%. */
SMK_HD smk_tile smk_sgemm_tile(int layout, int log2_cols)
{
    smk_tile t = {layout, log2_cols, 2, 2, 1, 4, log2_cols - 2};
    return t;
}

#define SMK_SGEMM_BM 128
#define SMK_SGEMM_BN 128
#define SMK_SGEMM_BK 8
#define SMK_SGEMM_WM 32
#define SMK_SGEMM_WN 64
#define SMK_SGEMM_WNITER 2
#define SMK_SGEMM_TM 4
#define SMK_SGEMM_TN 4
#define SMK_SGEMM_THREADS 256
#define SMK_SGEMM_STAGES 2
#define SMK_SGEMM_MINBLOCKS 2
#define SMK_SGEMM_WMITER \
    ((SMK_SGEMM_WM * SMK_SGEMM_WN) / (32 * SMK_SGEMM_TM * SMK_SGEMM_TN * SMK_SGEMM_WNITER))

#define SMK_SGEMM_SMALL_BM 64
#define SMK_SGEMM_SMALL_BN 64
#define SMK_SGEMM_SMALL_BK 8
#define SMK_SGEMM_SMALL_WM 32
#define SMK_SGEMM_SMALL_WN 32
#define SMK_SGEMM_SMALL_WNITER 1
#define SMK_SGEMM_SMALL_TM 4
#define SMK_SGEMM_SMALL_TN 4
#define SMK_SGEMM_SMALL_THREADS 128
#define SMK_SGEMM_SMALL_STAGES 2
#define SMK_SGEMM_SMALL_MINBLOCKS 4
#define SMK_SGEMM_SMALL_WMITER                                                                    \
    ((SMK_SGEMM_SMALL_WM * SMK_SGEMM_SMALL_WN) /                                                  \
     (32 * SMK_SGEMM_SMALL_TM * SMK_SGEMM_SMALL_TN * SMK_SGEMM_SMALL_WNITER))

/* Rasterisation: consecutive blocks walk down GROUP_M block-rows before moving one block-column
 * right, so blocks resident together share A rows and B columns in L2 (Triton's GROUP_M). */
#define SMK_SGEMM_GROUP_M 8

#ifdef __cplusplus
namespace smk {

constexpr int ilog2(int x) { return x <= 1 ? 0 : 1 + ilog2(x >> 1); }
constexpr bool is_pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

template <int BM_, int BN_, int BK_, int WM_, int WN_, int WNITER_, int TM_, int TN_, int THREADS_,
          int MINBLOCKS_>
struct SgemmCfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, WNITER = WNITER_;
    static constexpr int TM = TM_, TN = TN_, THREADS = THREADS_, MINBLOCKS = MINBLOCKS_;
    static constexpr int STAGES = 2;
    static constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
    static constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;
    static constexpr int LANES_N = WSUBN / TN, LANES_M = WSUBM / TM; /* lane grid of a sub-tile */
    static constexpr int A_LOADS = BM * BK / 4 / THREADS; /* float4 global loads of A per thread */
    static constexpr int B_LOADS = BK * BN / 4 / THREADS; /* float4 global loads of B per thread */
    static constexpr int LOG2_BM = ilog2(BM), LOG2_BN = ilog2(BN);

    static_assert(is_pow2(BM) && is_pow2(BN), "layout.h tiles have 2^k columns");
    static_assert(BM >= 32 && BN >= 32, "the swizzle permutes the 8 float4 slots of a 128-byte row");
    static_assert(BK % 8 == 0, "A is loaded as 16 rows x 8 k per warp (2 float4 per row)");
    static_assert(BM % 16 == 0, "A load chunks are 16 rows");
    static_assert(THREADS == (BM / WM) * (BN / WN) * 32, "one warp per warp tile");
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles tile the block");
    static_assert(WMITER >= 1 && WMITER * TM * LANES_M == WM, "warp sub-tiles tile the warp tile");
    static_assert(LANES_M * LANES_N == 32, "a warp sub-tile is one thread tile per lane");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read as float4");
    static_assert(A_LOADS >= 1 && A_LOADS * 4 * THREADS == BM * BK, "A tile splits evenly in float4");
    static_assert(B_LOADS >= 1 && B_LOADS * 4 * THREADS == BN * BK, "B tile splits evenly in float4");
    static_assert((BN / 4) % 8 == 0, "a quarter warp's B store stays inside one tile row");
    static_assert(is_pow2(WM) && is_pow2(WN) && is_pow2(WSUBM) && is_pow2(WSUBN) && is_pow2(TM) &&
                      is_pow2(TN), "power-of-two fields: a fragment's column is its base XOR its offset");
};

using SgemmBig = SgemmCfg<SMK_SGEMM_BM, SMK_SGEMM_BN, SMK_SGEMM_BK, SMK_SGEMM_WM, SMK_SGEMM_WN,
                          SMK_SGEMM_WNITER, SMK_SGEMM_TM, SMK_SGEMM_TN, SMK_SGEMM_THREADS,
                          SMK_SGEMM_MINBLOCKS>;
using SgemmSmall =
    SgemmCfg<SMK_SGEMM_SMALL_BM, SMK_SGEMM_SMALL_BN, SMK_SGEMM_SMALL_BK, SMK_SGEMM_SMALL_WM,
             SMK_SGEMM_SMALL_WN, SMK_SGEMM_SMALL_WNITER, SMK_SGEMM_SMALL_TM, SMK_SGEMM_SMALL_TN,
             SMK_SGEMM_SMALL_THREADS, SMK_SGEMM_SMALL_MINBLOCKS>;
static_assert(SgemmBig::WMITER == SMK_SGEMM_WMITER, "macro and struct agree");
static_assert(SgemmSmall::WMITER == SMK_SGEMM_SMALL_WMITER, "macro and struct agree");

} /* namespace smk */
#endif

#endif /* SMK_SGEMM_CONFIG_H */
