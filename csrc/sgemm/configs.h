/*
 * sgemm/configs.h -- THE table of SGEMM tile configs, and the config types its rows name.
 *
 * A newcomer adds a config by adding one row to SMK_SGEMM_SHIPPED_CONFIGS (or, for a config that is
 * compiled only on request, SMK_SGEMM_CANDIDATE_CONFIGS).  Every translation unit of the family
 * expands the same table: choose.cu into the cost model's table, launch.cu into the launch table,
 * plan.cu into the explain() plans, tile_*.cu and skinny.cu into the kernel instantiations.  A row's
 * index is its config number (smk_sgemm_config_name); 0 is "auto".  Indices 1 and 2 (128x128x8 and
 * 64x64x8) are what older benchmarks force by number: new rows go at the end.
 *
 *   X(NAME, KIND, ARGS, COST)
 *   NAME   smk_sgemm_config_name(i)
 *   KIND   TILE      the warp-tiled kernel (tile.cuh):  ARGS = (BM, BN, BK, WM, WN, WNITER, TM, TN,
 *                    THREADS, MINBLOCKS) of SgemmCfg
 *          SKINNY_M  small M (skinny_m.cuh):            ARGS = (MS, BK, U, THREADS, MINBLOCKS[, PF])
 *          SKINNY_N  small N (skinny_n.cuh):            ARGS = (NS, R, BK, THREADS, MINBLOCKS[, PF])
 *          TINYK     K <= 16 (tinyk.cuh, no shared memory): ARGS = (KMAX, RW, THREADS, MINBLOCKS)
 *   COST   (fma_per_ns, k0, beta, bytes_per_ns): the chooser's cost model of the row (choose.cu says
 *          what each means (TINYK: fma_per_ns per SM and bytes_per_ns, the others unused);
 *          bench/timing/fit_sgemm_model.py prints them from a measured grid).  All zero: a
 *          candidate, never chosen automatically, only forced.  SKINNY_M rows with fma_per_ns > 0
 *          (skinny-m16 / skinny-m32, issue 27's matrix-vector rows) are memory-bound rows with an FMA
 *          floor: MS x BN x K FMA per tile at fma_per_ns per SM; the chooser gives them (and, from
 *          sgemm_new_paths level 2, every SKINNY_M row) only shapes whose M fits one MS tile.  Their
 *          fma_per_ns (55) is measured (H100, 2026-11-26: 5.7-8.7 TFLOP/s of FMAs on M = 12..31 draws;
 *          docs/SGEMM_NOTES.md).  TILE rows with BM < 64 (32x128x16, issue 27's short tile) are offered
 *          from level 3 and only for M <= BM.  TINYK rows: the route takes the one with the most rows
 *          per warp (RW) whose grid fills a wave, else the fewest (tiny-k/rw2, from level 3).
 *          "/pf" rows (PF = 1: the next batch of the streamed operand loaded before this one's
 *          FMAs) are offered from level 5, in place of the row of the same kind and tile.  skinny-m/pf
 *          (U 8, 2 blocks per SM: 16 float4 of B in flight per thread, 154-231 registers, no spill)
 *          keeps skinny-m's COST, its MINBLOCKS pricing a block as twice the bytes in flight;
 *          skinny-n/pf (A's next k-tile in a second register buffer, 3 blocks per SM: 159-168
 *          registers, 16-byte spill in the swizzle builds) keeps skinny-n's COST and grid.  Forced-only
 *          candidates for the probe: skinny-m/pf4 (U 4, 3 blocks per SM, 117-167 registers, no spill)
 *          and skinny-n/pf2 (2 blocks per SM, 168-212 registers, no spill).  skinny-m4/pf (MS 4, 64
 *          threads: 256 columns, 4 blocks per SM, 141-211 registers, no spill) holds M <= 4 at level 5
 *          (the least MS that holds M): half the FMAs per byte of B of an 8-row tile, twice the tiles.
 *          skinny-n16 / skinny-n32 (issue 27's narrow-N class, knob sgemm_narrow): one N tile of 16 / 32
 *          columns for 8 < N <= 16 / 16 < N <= 32, R = 4 rows per warp (so one LDS.128 of B serves 4 rows:
 *          NS / R = 4 / 8 bytes of shared reads per byte of A, against 128 B/clk of shared bandwidth and
 *          ~15 B/clk of DRAM per SM); R * NS = 64 / 128 sums per lane, reduce-scattered in groups of 32.
 *          skinny-n16: 4 warps, 3 blocks per SM (BM 16; ptxas 156-168 registers, the swizzle float4 build
 *          spills 28 B at the 168 cap, as skinny-n's does; 2 blocks of 8 warps spilled 28-60 B at 128);
 *          skinny-n32: 8 warps, 1 block per SM (BM 32: B's L2 re-reads NS / BM = 1 of A's bytes; 248-254
 *          registers, no spill).  Offered only at sgemm_narrow
 *          1 (choose.cu sgemm_narrow_offer), priced as the skinny-n rows by waves (level 6).
 *          128x32x16 (session 48, issue 27's narrow-N tail: N 17..32 with a long K, where 64-column tiles compute
 *          twice the columns the output has): four warps of 32x32 stacked along M, the BK = 16 rows' deep
 *          pipeline where its gate says; never the model's automatic pick (choose.cu), only the measured
 *          choice's candidate (tune.cu) or forced.  Its COST is 64x64x16's (the model ranks candidates only).
 *
 * Names follow siboehm's SGEMM_CUDA kernel 10:
 *   BM, BN, BK       block tile (rows of A / D, cols of B / D, depth per shared-memory stage)
 *   WM, WN           warp tile
 *   WMITER, WNITER   warp sub-tiles per warp tile along m / n; WSUBM = WM/WMITER, WSUBN = WN/WNITER
 *   TM, TN           thread tile inside one warp sub-tile (outputs per thread = WMITER*TM x WNITER*TN)
 *   THREADS          threads per block = (BM/WM)*(BN/WN)*32
 *   STAGES           shared-memory buffers (2: global->register->shared double buffering)
 *   MINBLOCKS        __launch_bounds__ min blocks per SM (caps registers at 65536/(THREADS*MINBLOCKS))
 * Every TILE row has the same warp geometry inside a warp sub-tile (4 lanes along m x 8 lanes along
 * n, 4x4 thread tile), so the bank arithmetic of tile.cuh applies to all of them unchanged.
 *
 * Registers (ptxas, sm_90, nvcc 13.0): 128x64x8's float4 builds spill 16 B at 128 registers;
 * 64x128x8/minb4 a 48-52 byte spill; skinny-m 120..128, no spills (U = 16 spilled at the 128 cap of 4
 * blocks); skinny-n 154..168 at 3 blocks per SM (at the 128 cap of 4 blocks it spilled 4..60 bytes),
 * its swizzle build with float4 loads at the 168 cap spills 44 bytes.  Loads in flight per SM at that
 * occupancy: 4 x 128 x 8 x 16 B = 64 KB (skinny-m), 3 x 128 x 8 x 16 B = 48 KB (skinny-n), about twice
 * the bandwidth-latency product of one H100 SM (3.35 TB/s / 132 SMs x ~0.8 us = 20 KB), so the barrier
 * each k-tile costs a block need not cost the SM its bandwidth.
 */
#ifndef SMK_SGEMM_CONFIGS_H
#define SMK_SGEMM_CONFIGS_H

#include <limits.h>
#include <stdint.h>

#include "layout.h"

/* clang-format off */
#define SMK_SGEMM_SHIPPED_CONFIGS(X)                                                                       \
    /*  NAME              KIND      ARGS                                      COST                    */  \
    X("128x128x8",      TILE,     (128, 128,  8, 32, 64, 2, 4, 4, 256, 2), (192.9, 24, 0.85, 0))         \
    X("64x64x8",        TILE,     ( 64,  64,  8, 32, 32, 1, 4, 4, 128, 4), (164.3, 16, 0.25, 0))         \
    X("128x256x8",      TILE,     (128, 256,  8, 64, 64, 2, 4, 4, 256, 1), (184.3, 24, 0.1, 0))          \
    X("64x64x16",       TILE,     ( 64,  64, 16, 32, 32, 1, 4, 4, 128, 4), (145.8, 16, 0.7, 0))          \
    X("128x64x8",       TILE,     (128,  64,  8, 64, 32, 1, 4, 4, 128, 4), (178.1, 20, 0.55, 0))         \
    X("64x128x8",       TILE,     ( 64, 128,  8, 32, 64, 2, 4, 4, 128, 3), (189.1, 24, 0.4, 0))          \
    X("skinny-m",       SKINNY_M, (  8,  64,  8, 128, 4),                  (0, 0.15, 0.5, 2500.0))       \
    X("skinny-n",       SKINNY_N, (  8,   4, 256, 128, 3),                 (0, 0.5, 0.0, 1800.0))        \
    X("64x128x8/minb4", TILE,     ( 64, 128,  8, 32, 64, 2, 4, 4, 128, 4), (174.1, 16, 0.55, 0))         \
    X("tiny-k",         TINYK,    ( 16,  16, 256, 2),                      (100.0, 0, 0, 2800.0))         \
    X("skinny-m16",     SKINNY_M, ( 16,  64,  8, 128, 3),                  (55.0, 0.15, 0.5, 2500.0))    \
    X("skinny-m32",     SKINNY_M, ( 32,  32,  8, 128, 2),                  (55.0, 0.15, 0.5, 2500.0))    \
    X("32x128x16",      TILE,     ( 32, 128, 16, 32, 32, 1, 4, 4, 128, 4), (140.0, 16, 0.7, 0))          \
    X("tiny-k/rw2",     TINYK,    ( 16,   2, 256, 2),                      (100.0, 0, 0, 2800.0))         \
    X("skinny-m/pf",    SKINNY_M, (  8,  64,  8, 128, 2, 1),               (0, 0.15, 0.5, 2500.0))       \
    X("skinny-m/pf4",   SKINNY_M, (  8,  64,  4, 128, 3, 1),               (0, 0, 0, 0))                 \
    X("skinny-n/pf",    SKINNY_N, (  8,   4, 256, 128, 3, 1),              (0, 0.5, 0.0, 1800.0))        \
    X("skinny-n/pf2",   SKINNY_N, (  8,   4, 256, 128, 2, 1),              (0, 0, 0, 0))                 \
    X("skinny-m4/pf",   SKINNY_M, (  4,  64,  8,  64, 4, 1),               (0, 0.15, 0.5, 2500.0))       \
    X("matvec-m2",      MATVEC,   (  2,   8, 16, 1),                      (0, 0, 0, 2800.0))            \
    X("matvec-m4",      MATVEC,   (  4,   8, 16, 1),                      (0, 0, 0, 2800.0))            \
    X("matvec-m8",      MATVEC,   (  8,   4,  8, 2),                      (0, 0, 0, 2800.0))            \
    X("skinny-n16",     SKINNY_N, ( 16,   4, 128, 128, 3),                 (0, 0.5, 0.0, 1800.0))        \
    X("skinny-n32",     SKINNY_N, ( 32,   4, 128, 256, 1),                 (0, 0.5, 0.0, 1800.0))        \
    X("128x32x16",      TILE,     (128,  32, 16, 32, 32, 1, 4, 4, 128, 4), (145.8, 16, 0.7, 0))

/* The candidates that lost in the tile sweep (docs/SGEMM_NOTES.md, "Tile configs and the cost
 * model"), compiled in only when the build asks for them (SMEMKIT_SGEMM_CANDIDATES=1). */
#ifdef SMK_SGEMM_CANDIDATES
#define SMK_SGEMM_CANDIDATE_CONFIGS(X)                                                                     \
    X("128x128x16",       TILE,   (128, 128, 16, 32, 64, 2, 4, 4, 256, 1), (0, 0, 0, 0))                 \
    X("128x128x8/128thr", TILE,   (128, 128,  8, 64, 64, 2, 4, 4, 128, 2), (0, 0, 0, 0))
#else
#define SMK_SGEMM_CANDIDATE_CONFIGS(X)
#endif
/* clang-format on */

#define SMK_SGEMM_CONFIGS(X) SMK_SGEMM_SHIPPED_CONFIGS(X) SMK_SGEMM_CANDIDATE_CONFIGS(X)

/* The config type of a row: SMK_SGEMM_CFG(KIND, ARGS). */
#define SMK_SGEMM_CFG(KIND, ARGS) SMK_SGEMM_CFG_##KIND ARGS
#define SMK_SGEMM_CFG_TILE(...) ::smk::SgemmCfg<__VA_ARGS__>
#define SMK_SGEMM_CFG_SKINNY_M(...) ::smk::SkinnyMCfg<__VA_ARGS__>
#define SMK_SGEMM_CFG_SKINNY_N(...) ::smk::SkinnyNCfg<__VA_ARGS__>
#define SMK_SGEMM_CFG_TINYK(...) ::smk::TinyKCfg<__VA_ARGS__>
#define SMK_SGEMM_CFG_MATVEC(...) ::smk::MatVecCfg<__VA_ARGS__>

/* Rasterisation of the tile kernel: consecutive blocks walk down GROUP_M block-rows before moving one
 * block-column right (common/raster.cuh). */
#define SMK_SGEMM_GROUP_M 8

/* The map of every SGEMM shared tile (float4 access; tile.cuh: As BK x BM, Bs BK x BN; the skinny
 * slices: rows of BK).  Its swizzle is Swizzle<1,4,log2 cols - 2>: bit 2 of the row k flips which
 * 16-float half of the 128-byte bank row a 16-float block lands in.  That is exactly what the
 * transposed A store needs (its two rows k and k+4 then fill different halves) and nothing more: rows
 * 0..3 XOR with 0 and rows 4..7 with one per-thread constant, so the inner loop's fragment addresses
 * stay immediates, as pad's do.  The automatic Swizzle<3,2,S> also removes the conflict but gives
 * every k its own XOR, and ran slower (docs/SGEMM_NOTES.md). */
SMK_HD smk_tile smk_sgemm_tile(int layout, int log2_cols)
{
    smk_tile t = {layout, log2_cols, 2, 2, 1, 4, log2_cols - 2};
    return t;
}

namespace smk {

enum SgemmKind { SGEMM_TILE = 0, SGEMM_SKINNY_M = 1, SGEMM_SKINNY_N = 2, SGEMM_TINYK = 3, SGEMM_MATVEC = 4 };

constexpr int ilog2(int x) { return x <= 1 ? 0 : 1 + ilog2(x >> 1); }
constexpr bool is_pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

/* Configs in the table, "auto" included: the number of the last row + 1. */
#define SMK_SGEMM_COUNT_ROW(NAME, KIND, ARGS, COST) +1
constexpr int kNumConfigs = 1 SMK_SGEMM_CONFIGS(SMK_SGEMM_COUNT_ROW);
#undef SMK_SGEMM_COUNT_ROW

/* Blocks in the 1-D grid of a TILE_M x TILE_N tiling of an M x N output (0 if it does not fit). */
inline long long sgemm_grid_blocks(int tile_m, int tile_n, int64_t M, int64_t N)
{
    const long long b = ((M + tile_m - 1) / tile_m) * ((N + tile_n - 1) / tile_n);
    return b <= INT_MAX ? b : 0;
}

/* TILE: the warp-tiled kernel's block / warp / thread tile. */
template <int BM_, int BN_, int BK_, int WM_, int WN_, int WNITER_, int TM_, int TN_, int THREADS_,
          int MINBLOCKS_>
struct SgemmCfg {
    static constexpr int KIND = SGEMM_TILE;
    static constexpr int PF = 0; /* see SkinnyMCfg */
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, WNITER = WNITER_;
    static constexpr int TM = TM_, TN = TN_, THREADS = THREADS_, MINBLOCKS = MINBLOCKS_;
    static constexpr int TILE_M = BM, TILE_N = BN; /* the output tile of one block */
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

/*
 * SKINNY_M (skinny_m.cuh).
 * MS        rows of D per block (the M tile); an M above MS takes ceil(M / MS) tiles along the grid.
 * BK        k-tile: the depth of one staged A slice (one barrier per k-tile); a multiple of U.
 * U         B rows loaded per batch: U independent 16-byte loads in flight per thread.
 * THREADS   threads per block; the block covers BN = 4*THREADS columns.
 * MINBLOCKS __launch_bounds__ min blocks per SM (caps registers at 65536 / (THREADS * MINBLOCKS)).
 * PF        1: the next batch of B is loaded before this one's FMAs (two batch buffers; the "/pf" rows,
 *           offered by the chooser from sgemm_new_paths level 5 in place of the row with the same MS).
 */
template <int MS_, int BK_, int U_, int THREADS_, int MINBLOCKS_, int PF_ = 0>
struct SkinnyMCfg {
    static constexpr int KIND = SGEMM_SKINNY_M;
    static constexpr int MS = MS_, BK = BK_, U = U_, THREADS = THREADS_, MINBLOCKS = MINBLOCKS_, PF = PF_;
    static constexpr int BN = 4 * THREADS, STAGES = 2;
    static constexpr int TILE_M = MS, TILE_N = BN; /* the output tile of one block */
    static constexpr int A_LOADS = MS * BK / 4 / THREADS; /* float4 of A per thread per k-tile */
    static constexpr int LOG2_BK = ilog2(BK);
    static_assert(is_pow2(BK) && BK >= 32, "layout.h tiles have 2^k columns; a quarter warp's store fills 32");
    static_assert(BK % U == 0 && U % 4 == 0, "batches of U rows, read from As in float4 of k");
    static_assert(A_LOADS >= 1 && A_LOADS * 4 * THREADS == MS * BK, "the A slice splits evenly in float4");
    static_assert(THREADS % 32 == 0, "whole warps");
};

/*
 * SKINNY_N (skinny_n.cuh).
 * NS        columns of D per block (the N tile); an N above NS takes ceil(N / NS) tiles.  8, 16 or 32: the
 *           B store map (NS / 4 float4 per B row) whose bank arithmetic skinny_n.cuh gives.
 * R         rows of A per warp: one LDS.128 of B serves R rows; R * NS = 32 q partial sums per lane, so
 *           the reduce-scatter (q groups of 32) leaves q finished sums per lane.
 * BK        k-tile (a multiple of 128: a warp covers 128 k per float4 load).
 * THREADS   threads per block; the block covers BM = R * THREADS / 32 rows.
 * MINBLOCKS __launch_bounds__ min blocks per SM.
 * PF        1: A's next k-tile loaded before this one's FMAs (two register buffers; "skinny-n/pf", level 5).
 */
template <int NS_, int R_, int BK_, int THREADS_, int MINBLOCKS_, int PF_ = 0>
struct SkinnyNCfg {
    static constexpr int KIND = SGEMM_SKINNY_N;
    static constexpr int NS = NS_, R = R_, BK = BK_, THREADS = THREADS_, MINBLOCKS = MINBLOCKS_, PF = PF_;
    static constexpr int BM = R * (THREADS / 32), STAGES = 2;
    static constexpr int TILE_M = BM, TILE_N = NS;
    static constexpr int STEPS = BK / 128;                /* float4 loads per A row per k-tile */
    static constexpr int B_LOADS = BK * NS / 4 / THREADS; /* float4 of B per thread per k-tile */
    static constexpr int LOG2_BK = ilog2(BK);
    static_assert(NS == 8 || NS == 16 || NS == 32, "the B store map: NS / 4 float4 per B row, 128 / NS k per warp");
    static_assert((R * NS) % 32 == 0, "the reduce-scatter leaves R * NS / 32 sums per lane");
    static_assert(is_pow2(BK) && BK % 128 == 0, "a warp's float4 loads cover 128 k");
    static_assert(B_LOADS >= 1 && B_LOADS * 4 * THREADS == BK * NS, "the B slice splits evenly in float4");
    static_assert(THREADS % 32 == 0, "whole warps");
};

/*
 * TINYK (tinyk.cuh): K <= KMAX, where writing D is the cost.  No shared memory.
 * KMAX      the deepest B panel held in registers (K x 4 floats per thread); deeper slices (forced
 *           only) take the kernel's general loop.  BK = KMAX for the chooser's K split arithmetic.
 * RW        D rows per warp (a warp writes 128 columns of each); the block covers RW * THREADS/32 rows.
 */
template <int KMAX_, int RW_, int THREADS_, int MINBLOCKS_>
struct TinyKCfg {
    static constexpr int KIND = SGEMM_TINYK;
    static constexpr int PF = 0; /* see SkinnyMCfg */
    static constexpr int KMAX = KMAX_, RW = RW_, THREADS = THREADS_, MINBLOCKS = MINBLOCKS_;
    static constexpr int BK = KMAX, STAGES = 0;
    static constexpr int TILE_M = RW * (THREADS / 32), TILE_N = 128;
    static_assert(THREADS % 32 == 0, "whole warps");
};

/*
 * MATVEC (matvec.cuh): M <= MS, D's rows in registers, B streamed once; sgemm_new_paths level 8.
 * MS        rows of D per block (the chooser offers a row only for M <= MS: one M tile).
 * U         B rows per batch: U independent 16-byte loads in flight per thread.  BK = U for the K split
 *           arithmetic (a slice starts on a multiple of 4 k: A's float4 loads stay on 16 bytes).
 * KW        warps per block, each a range of the block's K slice over the same 128 columns; their sums
 *           meet in shared memory once per block ((KW - 1) x MS rows of 128 floats).
 * MINBLOCKS __launch_bounds__ min blocks per SM.
 */
template <int MS_, int U_, int KW_, int MINBLOCKS_>
struct MatVecCfg {
    static constexpr int KIND = SGEMM_MATVEC;
    static constexpr int PF = 0; /* see SkinnyMCfg */
    static constexpr int MS = MS_, U = U_, KW = KW_, MINBLOCKS = MINBLOCKS_;
    static constexpr int THREADS = 32 * KW, BK = U, STAGES = 0;
    static constexpr int TILE_M = MS, TILE_N = 128; /* a warp's 32 lanes x float4 */
    static_assert(U % 4 == 0, "A is read as float4 of k");
    static_assert(KW >= 2 && (KW - 1) * MS * 128 * 4 + (KW - 1) * MS * 16 <= 48 * 1024,
                  "the cross-warp sum fits static shared memory in every layout");
};

} /* namespace smk */

#endif /* SMK_SGEMM_CONFIGS_H */
