/*
 * sgemm/choose.cu -- the SGEMM chooser: a cost model of every tile config of configs.h and the choice
 * of config and K split (split-K) it makes.  Host code only, no CUDA call, no state: the same answer
 * on any machine for the same (M, N, K, SM count).  launch.cu runs the choice, plan.cu replays it.
 *
 * The model (fitted to an H100 tile sweep, every config x K split: bench/data/sgemm_grid_h100.jsonl.gz
 * timed by bench/timing/sgemm_grid.py, constants printed by bench/timing/fit_sgemm_model.py, each shape weighted
 * alike; docs/SGEMM_NOTES.md, "Tile configs and the cost model"):
 *
 *   compute-bound rows (fma_per_ns > 0): a block of a BM x BN tile over a k_chunk-deep slice costs
 *     BM*BN*(k_chunk + k0) FMA at fma_per_ns per SM (with minblocks blocks resident per SM: a wave of
 *     sms*minblocks blocks takes minblocks times one block's work); a last, partial wave of
 *     r < minblocks blocks per SM takes (r/minblocks)^beta of a full one.
 *   memory-bound rows (skinny-m / skinny-n; fma_per_ns == 0): the streamed operand's bytes (each
 *     output tile streams its max(BM, BN) x K slice of B or A once) at bytes_per_ns x
 *     min(1, blocks / (sms * minblocks))^beta, each tile along the small side after the first adding
 *     k0 of the operand again (L2 serves the rest); fitted to the H100 runs of docs/SKINNY_RESULTS.md.
 *   every launch costs kLaunchNs; a split launch adds its reduction kernel and its workspace traffic.
 */
#include <math.h>
#include <stddef.h>

#include "api/sgemm.h"
#include "sgemm/choose.h"
#include "sgemm/choose_model.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"

namespace smk {

/* A config type's SgemmKind (a function: inside the row macro the token KIND is the row's KIND). */
template <class Cfg>
constexpr int cfg_kind() { return Cfg::KIND; }

/* The cost model's table: one entry per row of configs.h, in its order ("auto" first). */
#define SMK_SGEMM_COST_ROW(NAME, KIND, ARGS, COST)                                                      \
    {NAME, SMK_SGEMM_CFG(KIND, ARGS)::TILE_M, SMK_SGEMM_CFG(KIND, ARGS)::TILE_N,                      \
     SMK_SGEMM_CFG(KIND, ARGS)::BK, SMK_SGEMM_CFG(KIND, ARGS)::MINBLOCKS, {SMK_SGEMM_UNPAREN COST},     \
     cfg_kind<SMK_SGEMM_CFG(KIND, ARGS)>(), SMK_SGEMM_CFG(KIND, ARGS)::PF,                              \
     SMK_SGEMM_CFG(KIND, ARGS)::THREADS / 32},
#define SMK_SGEMM_UNPAREN(...) __VA_ARGS__
extern const SgemmConfigEntry kConfigs[kNumConfigs] = {
    {"auto", 0, 0, 0, 0, {0, 0, 0, 0}, 0, 0, 0},
    SMK_SGEMM_CONFIGS(SMK_SGEMM_COST_ROW)
};
#undef SMK_SGEMM_COST_ROW

constexpr int kMaxSplits = 65535; /* gridDim.y */

/* The launch-level costs (kLaunchNs, kSplitNs, kSplitBytesPerNs): choose_model.h. */

/* Knob sgemm_redchain (api/sgemm_tinyk.h).  The reduction (reduce.cuh reduce_batch) gives a float4 group L =
 * 32 / G lanes (G: reduce_groups_per_warp, 2 from 16 slices, 4 from 8, else 8), and each lane adds its S / L
 * slices in a loop unrolled by 4: ceil(S / L / 4) dependent round trips through L2 / DRAM.  Level 1 prices the
 * trips past the first (the byte and launch terms hold one) at kReduceTripNs: on H100 seed 174 the reductions of
 * tiny outputs split 255..511 ways (8x85x20370, 5x57x29765, 17x62x36733: 4 / 8 / 8 trips) took 9.2 / 16.3 /
 * 16.4 us of device time, ~1.8 us a trip over ~2.5 us; the bytes priced them at under 0.1 us. */
static volatile int g_redchain = 1; /* the default since session 42: seed 177 (H100) moved 13 draws, all won, x1.31 */
constexpr double kReduceTripNs = 1800.0;

static double sgemm_reduce_chain_ns(int64_t s)
{
    if (g_redchain <= 0 || s <= 1) return 0.0;
    const int64_t G = s >= 16 ? 2 : (s >= 8 ? 4 : 8), L = 32 / G; /* reduce.cuh reduce_groups_per_warp */
    const int64_t trips = ((s + L - 1) / L + 3) / 4;
    return (double)(trips - 1) * kReduceTripNs;
}

/* The shallowest K slice the automatic choice makes (a forced split may go down to one k-tile).  The
 * model's per-block overhead (k0) under-prices very shallow slices (64x64x16384 in 64x64x8 tiles ran
 * 0.75 of cuBLAS in 32-deep slices, 0.88 in 68-deep ones); replaying the model's picks over the
 * measured grid with floors 0..96, 48 did best (docs/SGEMM_NOTES.md, "Tile configs and the cost
 * model"). */
constexpr int64_t kMinSliceK = 48;

/* `splits` slices made exact for a K of k-tiles `bk` deep: every slice k_chunk deep (a multiple of
 * bk) but the last, none empty; 1 <= *s <= max(1, ceil(K / bk)) and <= kMaxSplits. */
void sgemm_exact_split(int64_t K, int64_t bk, int64_t splits, int64_t *s, int64_t *k_chunk)
{
    const int64_t ktiles = (K + bk - 1) / bk;
    int64_t w = splits > ktiles ? ktiles : splits;
    w = w > kMaxSplits ? kMaxSplits : w;
    *s = 1;
    *k_chunk = K;
    if (w <= 1) return;
    const int64_t chunk = ((K + w - 1) / w + bk - 1) / bk * bk; /* ceil(K / w), up to a whole k-tile */
    const int64_t n = (K + chunk - 1) / chunk;
    if (n > 1) {
        *s = n;
        *k_chunk = chunk;
    }
}

/* Level 5: a skinny row without PF whose kind and output tile an automatic "/pf" row (PF, a cost) also
 * has: the prefetching row runs the same tiles in its place. */
static bool sgemm_pf_sibling(const SgemmConfigEntry &c)
{
    for (int i = 1; i < kNumConfigs; i++) {
        const SgemmConfigEntry &o = kConfigs[i];
        if (o.kind == c.kind && o.pf && o.bm == c.bm && o.bn == c.bn &&
            (o.cost.fma_per_ns > 0 || o.cost.bytes_per_ns > 0))
            return true;
    }
    return false;
}

/* The tiles along its small side a memory-bound row may take at path level `level`
 * (sgemm_new_paths): 4 before issue 27's matrix-vector rows; from level 2 a SKINNY_M row takes only an M
 * that fits one MS tile: each further tile re-streamed all of B through L2 (the M = 12..30 draws of
 * 2026-11-25 ran 0.34-0.59 of cuBLAS in 2-4 tiles of 8 rows), and skinny-m16 / skinny-m32 hold 16 / 32
 * rows of D in registers instead.  0: the row is not offered at that level (the new rows below 2). */
static int sgemm_small_tiles(const SgemmConfigEntry &c, int level)
{
    if (c.pf && level < 5) return 0;                  /* the prefetching rows: level 5 ... */
    if (!c.pf && level >= 5 && sgemm_pf_sibling(c)) return 0; /* ... in place of their base row */
    if (c.kind != SGEMM_SKINNY_M) return 4;
    if (c.pf) return 1;
    if (c.cost.fma_per_ns > 0) return level >= 2 ? 1 : 0; /* issue 27's matrix-vector rows */
    return level >= 2 ? 1 : 4;
}

/* From level 2, the SKINNY_M row for an M is the one with the least MS that holds it (its rows past M
 * are FMAs on zeros, and a deeper MS runs fewer blocks per SM): true when c is a SKINNY_M row and no
 * other SKINNY_M row offered at this level has MS in [M, c.bm). */
static bool sgemm_least_ms(const SgemmConfigEntry &c, int64_t M, int level)
{
    if (c.kind != SGEMM_SKINNY_M || level < 2) return true;
    for (int i = 1; i < kNumConfigs; i++) {
        const SgemmConfigEntry &o = kConfigs[i];
        if (o.kind == SGEMM_SKINNY_M && o.bm >= M && o.bm < c.bm && sgemm_small_tiles(o, level) > 0 &&
            (o.cost.fma_per_ns > 0 || o.cost.bytes_per_ns > 0))
            return false;
    }
    return true;
}

/* A memory-bound row's time (ns) over s exact slices, without the launch-level terms; a huge value
 * where the output is not matrix-vector-like: more tiles along its small side than sgemm_small_tiles
 * allows (beyond 4 the kernel re-streams its operand from L2 per tile and is no longer DRAM-bound; the
 * runs behind the rates went to 2 tiles).  A row with fma_per_ns > 0 also has an FMA floor: every tile's
 * MS x BN x K FMA (rows past M included: the kernel multiplies zeros there) at fma_per_ns per busy SM. */
static double sgemm_stream_ns(const SgemmConfigEntry &c, int64_t M, int64_t N, int64_t K, int sms,
                              long long tiles, int64_t s, int level, int priced, bool forced)
{
    const int64_t small = c.bm < c.bn ? M : N, tile = c.bm < c.bn ? c.bm : c.bn;
    /* (a forced "/pf" row is priced even where a row of smaller MS would be chosen) */
    if (small > sgemm_small_tiles(c, level) * tile || (!(forced && c.pf) && !sgemm_least_ms(c, M, level)))
        return 1e300;
    const double fill = (double)tiles * s / ((double)sms * c.minblocks);
    /* tiles along the small side re-stream the operand, L2 serving part of it (k0: the share each
     * extra one costs) */
    const double bytes = (double)(tiles / ((small + tile - 1) / tile)) * (double)K * (c.bm > c.bn ? c.bm : c.bn) *
                         4.0 * (1.0 + c.cost.k0 * (double)((small + tile - 1) / tile - 1));
    /* and below half a wave the blocks, not the rate, are what is missing: a linear share */
    /* From level 3 a skinny-n grid under a wave costs its missing share (beta >= 1), so that it is split:
     * forced splits filling two waves of blocks ran 3101x3x5676 0.64 -> 0.91, 1068x10x1574 0.72 -> 1.08,
     * 3977x8x30115 0.55 -> 0.69 of cuBLAS (H100, seed 30's draws, 2026-11-26, bench/timing/probe_mv.py). */
    const double beta = c.kind == SGEMM_SKINNY_N && priced >= 3 && c.cost.beta < 1.0 ? 1.0 : c.cost.beta;
    const double share = pow(fill < 1.0 ? fill : 1.0, beta) * (fill < 0.5 ? 2.0 * fill : 1.0);
    const double mem = bytes / (c.cost.bytes_per_ns * share);
    if (c.cost.fma_per_ns <= 0) return mem;
    const double busy = (double)tiles * s < sms ? (double)tiles * s : (double)sms;
    const double fma = (double)tiles * c.bm * c.bn * (double)K / (c.cost.fma_per_ns * busy);
    return mem > fma ? mem : fma;
}

static double sgemm_matvec_ns(const SgemmConfigEntry &c, int64_t M, int64_t N, int64_t K, int sms, int64_t splits);

/* The model's time (ns) of config c over `splits` K slices (made exact), or a huge value when c cannot
 * run the shape (its grid does not fit) or is not offered at path level `level`.  priced: the level whose
 * prices apply (sgemm_auto prices every config as at level 2; < 0: level).  forced: a forced config's split
 * (a "/pf" row is then priced even where a row of smaller MS would be chosen). */
static double sgemm_cost_ns(const SgemmConfigEntry &c, int64_t M, int64_t N, int64_t K, int sms, int64_t splits,
                            int level, int priced = -1, bool forced = false)
{
    priced = priced < 0 ? level : priced;
    const long long tiles = c.blocks(M, N);
    if (tiles <= 0 || (c.cost.fma_per_ns <= 0 && c.cost.bytes_per_ns <= 0)) return 1e300;
    int64_t s = 1, chunk = K;
    sgemm_exact_split(K, c.bk, splits, &s, &chunk);
    const double split_ns =
        s > 1 ? kSplitNs + (2.0 * s * M * ((N + 3) & ~(int64_t)3) + (double)M * N) * 4.0 / kSplitBytesPerNs +
                    sgemm_reduce_chain_ns(s)
              : 0.0;
    if (c.kind == SGEMM_MATVEC) return sgemm_matvec_ns(c, M, N, K, sms, splits);
    if (c.kind == SGEMM_TINYK) { /* D written (and C read) at bytes_per_ns, or the FMAs if slower */
        if (chunk > c.bk) return 1e300; /* its register panel; deeper slices are forced-only */
        const double bytes = 4.0 * ((double)M * N + (double)M * K + (double)K * N);
        const double mem = bytes / c.cost.bytes_per_ns, fma = (double)M * N * K / (c.cost.fma_per_ns * sms);
        return kLaunchNs + split_ns + (mem > fma ? mem : fma);
    }
    if (c.kind == SGEMM_SKINNY_M || c.kind == SGEMM_SKINNY_N) { /* memory-bound: the streamed operand at a
                                                                   rate that needs a full wave */
        const double t = sgemm_stream_ns(c, M, N, K, sms, tiles, s, level, priced, forced);
        return t >= 1e300 ? t : kLaunchNs + split_ns + t;
    }
    const double depth = (double)((chunk + c.bk - 1) / c.bk * c.bk) + c.cost.k0;
    const double block_ns = (double)c.bm * c.bn * depth / c.cost.fma_per_ns; /* one block alone on an SM */
    const long long per_wave = (long long)sms * c.minblocks, blocks = tiles * s;
    const long long full = blocks / per_wave, rest = blocks % per_wave;
    double t = kLaunchNs + (double)full * c.minblocks * block_ns;
    if (rest > 0) {
        const long long r = (rest + sms - 1) / sms; /* blocks per SM in the last wave, <= minblocks */
        t += c.minblocks * block_ns * pow((double)r / c.minblocks, c.cost.beta);
    }
    return t + split_ns;
}

/* sgemm_cost_ns at a level (choose_model.h): the padded path's price of the scalar kernel (choose_pad.cu). */
double sgemm_model_ns(const SgemmConfigEntry &c, int64_t M, int64_t N, int64_t K, int sms, int64_t splits, int level)
{
    return sgemm_cost_ns(c, M, N, K, sms, splits, level);
}

/* ---- Level 6 (issue 27, the skinny-n tail): the skinny-n grid priced by waves of latency-bound blocks ----
 * H100, seed 83 (acceptance's timing, /pf row, ncu): skinny-n blocks are latency-bound (12 warps per SM at
 * 168 registers, 12-14 cycles per issued instruction, DRAM 3-35%), so a block's time is its A bytes at its
 * share of the row's rate plus a fixed prologue / epilogue, and a grid runs in whole waves: 3397x11x4372 ran
 * 426 blocks on 396 slots (1.08 waves, SM active 71% of the time: the 30-block tail wave took ~0.6 of a full
 * one) at 0.43 of cuBLAS; 11789x20x40 ran 2211 blocks of 40-deep work (5.6 waves of prologues) at 0.25.  The
 * level-5 price (bytes at a rate x a wave share) has no tail and no per-block cost, so it kept S = 1 there.
 *   block:  kSn6BlockNs + BM x k_chunk x 4 B / (bytes_per_ns / (sms x minblocks))
 *   grid:   full waves x block + (a tail of r blocks per SM: (kSn6TailFloor + (1 - floor) r / minblocks) x block)
 *   split:  kSn6SplitNs (the reduction kernel: 1.9-3.8 us of device time in that run) + its bytes
 * Each N tile is its own block streaming its rows of A: a grid of ceil(N / 8) tiles across pays for each
 * (the rates measured: ~1.1-1.4 TB/s of A at one tile, 0.4-0.7 at two, 0.1-0.3 at four), so the tiles and
 * split-K rows take N = 9..32 where they are cheaper.  K under one k-tile is priced the same way (the block's
 * fixed cost is then most of its work: 11789x20x40 priced 14.7 us, ran 15.4; 4012x27x123 10.2, ran 9.8), and
 * level 4's rule (no skinny-n for K <= 16) stays.  Constants: rate 1800 B/ns (the row's), kSn6BlockNs and kSn6TailFloor
 * the least-spread pair of a grid (block 500..2500 ns, floor 0..0.65) against the 27 skinny-n draws of that run
 * with K >= 256: measured / priced geomean 0.99, log sd 0.12 (floor 0.5: 0.14); a lone tail block runs faster
 * than one of a full SM (it has the DRAM to itself), which is why the floor is low. */
constexpr double kSn6BlockNs = 2000.0, kSn6TailFloor = 0.2, kSn6SplitNs = 2500.0;

static double sgemm_skinny_n6_ns(const SgemmConfigEntry &c, int64_t M, int64_t N, int64_t K, int sms, int64_t splits)
{
    const long long tiles = c.blocks(M, N);
    if (tiles <= 0 || c.kind != SGEMM_SKINNY_N || c.cost.bytes_per_ns <= 0) return 1e300;
    int64_t s = 1, chunk = K;
    sgemm_exact_split(K, c.bk, splits, &s, &chunk);
    const double per_wave = (double)sms * c.minblocks;
    const double block_ns = kSn6BlockNs + (double)c.bm * (double)chunk * 4.0 * per_wave / c.cost.bytes_per_ns;
    const long long blocks = tiles * s, full = blocks / (long long)per_wave, rest = blocks % (long long)per_wave;
    double t = (double)full * block_ns;
    if (rest > 0) {
        const long long r = (rest + sms - 1) / sms; /* blocks per SM in the tail wave, <= minblocks */
        t += block_ns * (kSn6TailFloor + (1.0 - kSn6TailFloor) * (double)r / c.minblocks);
    }
    const double split_ns =
        s > 1 ? kSn6SplitNs + (2.0 * s * M * ((N + 3) & ~(int64_t)3) + (double)M * N) * 4.0 / kSplitBytesPerNs +
                    sgemm_reduce_chain_ns(s)
              : 0.0;
    return kLaunchNs + split_ns + t;
}

/* Level 6's split of a skinny-n grid: every S from a floor to the deepest (no slice under one k-tile) or eight
 * waves, the least priced (ties: the smaller S).  *t_out: its price.  The floor is the least S that fills one
 * wave (sms x minblocks blocks), as far as slices of 4 k-tiles (1024 of K) allow: measured, not priced (the
 * model under-prices grids that leave slots empty, measured / priced 1.10-1.13 on seed 83's two; forced splits
 * filling two waves ran 3101x3x5676 0.64 -> 0.91 of cuBLAS, seed 30, level 3's rule), and kept to slices deep
 * enough that a block's fixed cost stays small against its stream (where it is not, the price decides). */
static int64_t sgemm_skinny_n6_split(const SgemmConfigEntry &c, int64_t M, int64_t N, int64_t K, int sms,
                                     double *t_out)
{
    const long long tiles = c.blocks(M, N);
    const int64_t ktiles = (K + c.bk - 1) / c.bk;
    int64_t best_s = 1;
    double best = 1e301;
    if (tiles > 0) {
        const int64_t waves8 = (8LL * sms * c.minblocks + tiles - 1) / tiles;
        const int64_t hi = ktiles < waves8 ? ktiles : waves8, deep = ktiles / 4 > 1 ? ktiles / 4 : 1;
        int64_t lo = ((int64_t)sms * c.minblocks + tiles - 1) / tiles; /* fills one wave */
        lo = lo < deep ? lo : deep;
        for (int64_t s = lo < hi ? lo : hi; s <= (hi < kMaxSplits ? hi : kMaxSplits); s++) {
            const double t = sgemm_skinny_n6_ns(c, M, N, K, sms, s);
            if (t < best) best = t, best_s = s;
        }
    }
    if (t_out) *t_out = best;
    return best_s;
}

/* ---- Level 8 (issue 27, M <= 8): the matrix-vector rows (matvec.cuh), priced as a stream of B ----
 * Seed 112 (H100, acceptance's timing): the M = 1..8 draws with N of a few thousand ran 0.35-0.64 of cuBLAS on
 * 64-row tiles or skinny-m4/pf, each with a K split and its reduction (2-3 us); cuBLAS streams B once.  A
 * matvec block is KW warps over one 128-column strip, each warp a range of the block's K slice in batches of
 * U rows (U x 512 bytes in flight per warp), so its price is B's bytes at bytes_per_ns times the share of
 * the bytes in flight one SM needs (kMvInflight: ~2x the bandwidth-latency product of an H100 SM, as
 * configs.h reckons it), or the latency chain of its batches if longer:
 *   rate:   bytes_per_ns x min(1, resident warps per SM x U x (a strip's columns) x 4 / kMvInflight)
 *   chain:  waves x (batches per warp x kMvBatchNs + kMvFixedNs)   (the cross-warp sum, the epilogue)
 *   split:  kSn6SplitNs + its workspace bytes (level 6's reduction price) + kMvSliceNs per slice: the reduction
 *           sums a column's slices one after another (seed 112: 3.7 us at 125 slices, 9.1 at 245, 11.5 at 384,
 *           20.3 at 652 of a few hundred columns)
 * Resident blocks per SM: MINBLOCKS (the rows' registers, ptxas: 85-173 per thread, fill about that).
 * Constants not yet fitted (no device run of this kernel yet): the DRAM round trip of one batch
 * (~0.8 us loaded), 1 us of fixed work.  sgemm_matvec_split takes the least priced S (ties: the smaller). */
constexpr double kMvInflight = 32768.0, kMvBatchNs = 800.0, kMvFixedNs = 1000.0, kMvSliceNs = 30.0;
constexpr int64_t kMvMaxM = 8; /* 8 < M <= 16: the short tile (level 4) keeps them */
/* N <= 32: skinny-n keeps them (level 6's price, measured 1.8-1.9 of cuBLAS on seed 112's 14x7x16699, 10x25x4515,
 * 6x15x19129); a 128-column strip would run a quarter of its lanes or fewer. */
constexpr int64_t kMvMinN = 32;

static double sgemm_matvec_ns(const SgemmConfigEntry &c, int64_t M, int64_t N, int64_t K, int sms, int64_t splits)
{
    const long long tiles = c.blocks(M, N);
    if (tiles <= 0 || c.kind != SGEMM_MATVEC || c.cost.bytes_per_ns <= 0 || M > c.bm) return 1e300;
    int64_t s = 1, chunk = K;
    sgemm_exact_split(K, c.bk, splits, &s, &chunk);
    const long long blocks = tiles * s, slots = (long long)sms * c.minblocks;
    const long long waves = (blocks + slots - 1) / slots;
    const double resident = (double)(blocks < slots ? blocks : slots) / sms; /* blocks per SM */
    const double cols = (double)N / (double)((N + c.bn - 1) / c.bn); /* a strip's columns on average, <= 128 */
    const double inflight = resident * c.warps * c.bk * cols * 4.0;    /* a warp's batch: U rows of its strip */
    const double share = inflight < kMvInflight ? inflight / kMvInflight : 1.0;
    const double bytes = 4.0 * ((double)K * N + (double)M * K + (double)M * N);
    const double mem = bytes / (c.cost.bytes_per_ns * (share > 0 ? share : 1e-9));
    const int64_t per_warp = ((chunk + c.warps - 1) / c.warps + 3) / 4 * 4;
    const double chain = (double)waves * ((double)((per_warp + c.bk - 1) / c.bk) * kMvBatchNs + kMvFixedNs);
    const double split_ns = s > 1 ? kSn6SplitNs + kMvSliceNs * (double)s +
                                        (2.0 * s * M * ((N + 3) & ~(int64_t)3) + (double)M * N) * 4.0 / kSplitBytesPerNs
                                  : 0.0;
    return kLaunchNs + split_ns + (mem > chain ? mem : chain);
}

/* Level 8's split of a matvec grid: S = 1 up to the deepest that keeps a warp at least one batch and the grid
 * within 8 waves, the least priced (ties: the smaller S).  *t_out: its price. */
static int64_t sgemm_matvec_split(const SgemmConfigEntry &c, int64_t M, int64_t N, int64_t K, int sms, double *t_out)
{
    const long long tiles = c.blocks(M, N);
    int64_t best_s = 1;
    double best = 1e301;
    if (tiles > 0) {
        const int64_t rows = (int64_t)c.warps * c.bk; /* k per block with one batch per warp */
        int64_t hi = (K + rows - 1) / rows;
        const int64_t waves8 = (8LL * sms * c.minblocks + tiles - 1) / tiles;
        hi = hi < waves8 ? hi : waves8;
        hi = hi < kMaxSplits ? hi : kMaxSplits;
        for (int64_t s = 1; s <= (hi > 1 ? hi : 1); s++) {
            const double t = sgemm_matvec_ns(c, M, N, K, sms, s);
            if (t < best) best = t, best_s = s;
        }
    }
    if (t_out) *t_out = best;
    return best_s;
}

/* The most K slices whose (exact) slices are none shallower than kMinSliceK but the last: the largest S
 * with sgemm_exact_split's k_chunk >= kMinSliceK (whole k-tiles: K = 256 in 16-deep k-tiles gives 6
 * slices of 48, where K / kMinSliceK would say 5), at least 1. */
int64_t sgemm_deepest(int64_t K, int64_t bk)
{
    const int64_t c0 = (kMinSliceK + bk - 1) / bk * bk;
    int64_t s = (K + c0 - 1) / c0, n = 1, chunk = K;
    for (; s > 1; --s) {
        sgemm_exact_split(K, bk, s, &n, &chunk);
        if (chunk >= kMinSliceK) return s;
    }
    return 1;
}

bool sgemm_tinyk_route(int64_t M, int64_t N, int64_t K)
{
    constexpr int64_t kmax = 16; /* TinyKCfg's KMAX: intensity <= K/2 = 8 flop/byte, under the fp32 balance */
    return K >= 1 && K <= kmax && (double)M * N >= 4.0 * (double)K * ((double)M + N);
}

/* The row of the tiny-k kernel (0: none compiled).  Below level 3 the first TINYK row (tiny-k, 16 rows
 * per warp).  From level 3 the row with the most rows per warp whose grid fills a wave (sms x minblocks
 * blocks), else the one with the fewest; none (0) when even that grid leaves SMs idle: seed 30's K <= 16
 * draws with small N or M ran the 16-row tiny-k in one part-filled wave of long blocks (12735x37x6 0.70,
 * 2908x78x9 0.50, 90x996x13 0.80 of cuBLAS where a 64x64 tile ran 0.98, 0.98, 1.43). */
static int sgemm_tinyk_row(int64_t M, int64_t N, int sms, int level)
{
    int first = 0, fill = 0, least = 0;
    for (int c = 1; c < kNumConfigs; c++) {
        const SgemmConfigEntry &e = kConfigs[c];
        if (e.kind != SGEMM_TINYK) continue;
        if (!first) first = c;
        const long long blocks = e.blocks(M, N);
        if (blocks <= 0) continue;
        if (blocks >= (long long)sms * e.minblocks && (!fill || e.bm > kConfigs[fill].bm)) fill = c;
        if (!least || e.bm < kConfigs[least].bm) least = c;
    }
    if (level < 3) return first;
    if (fill) return fill;
    return least && kConfigs[least].blocks(M, N) >= sms ? least : 0;
}

/* Level 9 (opt-in): the short tile past M = BM, where a 64-row tiling's last tile is mostly rows past M
 * (M mod 64 in 1..BM): those rows cost a 64-row tile their FMAs for nothing, BM-row tiles stop at M
 * rounded up to BM.  Seed 112: 68x4282x230 0.54, 74x1550x592 0.63, 92x9147x401 0.64 of cuBLAS on 64-row
 * tiles (the second tile 4..28 rows of 64).  The model prices the two tilings (its blocks and their waves). */
/* Level 11 (opt-in): level 9's short tile alone, without level 8's matvec rows (seed 123: the matvec rows
 * lost to the skinny-m rows on long streams of B, the short tile won). */
static bool sgemm_short_rows(int64_t M, int bm, int level)
{
    const int64_t rest = M % 64;
    return level >= 9 && rest > 0 && rest <= bm;
}

/* Level 8: the MATVEC row with the least MS that holds M (none other offered with MS in [M, c.bm)). */
static bool sgemm_least_matvec(const SgemmConfigEntry &c, int64_t M)
{
    for (int i = 1; i < kNumConfigs; i++) {
        const SgemmConfigEntry &o = kConfigs[i];
        if (o.kind == SGEMM_MATVEC && o.cost.bytes_per_ns > 0 && o.bm >= M && o.bm < c.bm) return false;
    }
    return true;
}

/* Knob sgemm_narrow (issue 27's narrow-N class: N 9..40, big A, 0.57-0.70 of cuBLAS in 128x64 / 64x64 tiles,
 * H100 seed 173): skinny-n16 / skinny-n32 are offered only at narrow >= 1 and level >= 6, each for the N it
 * holds in one tile (8 < N <= 16 / 16 < N <= 32: A streamed once); sgemm_skinny_n6_ns's price then decides. */
static bool sgemm_narrow_offer(const SgemmConfigEntry &c, int64_t N, int narrow)
{
    if (c.kind != SGEMM_SKINNY_N || c.bn <= 8) return true;
    return narrow >= 1 && N > c.bn / 2 && N <= c.bn;
}

/* The automatic choice: the shipped config and K split of least modelled time.  Splits tried: 1, and
 * (when the output's tiles fill fewer than two waves) the S whose tiles x S land just at or under
 * one to four full waves, at most sgemm_deepest.  Ties keep the earlier config / smaller S: the same
 * answer on every call. */
static void sgemm_auto(int64_t M, int64_t N, int64_t K, int sms, int level, int *cfg_out, int64_t *splits_out)
{
    double best = 1e301;
    *cfg_out = 1;
    *splits_out = 1;
    if (sgemm_fit_class(M, N, K, level)) return sgemm_fit_auto(M, N, K, sms, cfg_out, splits_out); /* sgemm_model 1 */
    for (int c = 1; c < kNumConfigs; c++) {
        const SgemmConfigEntry &e = kConfigs[c];
        const long long tiles = e.blocks(M, N);
        if (tiles <= 0 || (e.cost.fma_per_ns <= 0 && e.cost.bytes_per_ns <= 0)) continue;
        if (e.kind == SGEMM_TINYK) continue; /* by rule only (sgemm_resolve) */
        if (e.kind == SGEMM_MATVEC) { /* level 8: M <= 8, the row of least MS that holds M (the rest: zeros) */
            if (level < 8 || level == 11 || M > kMvMaxM || N <= kMvMinN || M > e.bm || !sgemm_least_matvec(e, M)) continue;
            double t = 1e301;
            const int64_t s = sgemm_matvec_split(e, M, N, K, sms, &t);
            if (t < best) best = t, *cfg_out = c, *splits_out = s;
            continue;
        }
        /* the narrow tile (BN < 64: 128x32x16, session 48) is the measured choice's candidate alone (tune.cu) */
        if (e.kind == SGEMM_TILE && e.bn < 64) continue;
        /* short tiles (BM < 64, level 3): only for BM/2 < M <= BM (below, the skinny-m rows hold M); level 4
         * (opt-in): for 8 < M <= BM.  Forced on seed 31's 8 < M <= 16 draws (bench/timing/probe_mv.py --set
         * small-m, H100 2026-11-26) 32x128x16 beat skinny-m16 on 10 of 12 (16x2728x618 1.21 vs 0.75,
         * 13x560x54437 1.47 vs 0.92), lost 12x15169x4119 0.94 vs 0.96 and 16x3781x6332 1.05 vs 1.11; not yet
         * measured as the chooser's choice (bench_calls --ab sgemm_new_paths=4). */
        if (e.kind == SGEMM_TILE && e.bm < 64 && (level < 3 || (M > e.bm && !sgemm_short_rows(M, e.bm, level)) ||
                                                   (level < 4 ? 2 * M <= e.bm : M <= 8)))
            continue;
        /* level 4 (opt-in): no skinny-n for K <= 16 (a 256-deep k-tile for a dozen k): seed 31's 7620x25x12
         * and 12073x32x11 ran 0.41 and 0.35 of cuBLAS on it, 0.91 and 1.11 in 64x64x16 tiles (forced, same run) */
        if (e.kind == SGEMM_SKINNY_N && level >= 4 && K <= 16) continue;
        if (!sgemm_narrow_offer(e, N, level >= 6 ? sgemm_narrow() : 0)) continue;
        if (e.kind == SGEMM_SKINNY_N && level >= 6) { /* level 6: priced by waves, with its own split */
            if (sgemm_small_tiles(e, level) == 0 || N > sgemm_small_tiles(e, level) * (int64_t)e.bn) continue;
            double t = 1e301;
            const int64_t s = sgemm_skinny_n6_split(e, M, N, K, sms, &t);
            if (t < best) best = t, *cfg_out = c, *splits_out = s;
            continue;
        }
        const long long per_wave = (long long)sms * e.minblocks;
        int64_t cand[12] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        int n = 1;
        const int64_t deepest = sgemm_deepest(K, e.bk); /* no slice shallower than kMinSliceK */
        if (tiles < 2 * per_wave && K > e.bk) {
            for (int j = 1; j <= 4; j++) {
                int64_t s = (j * per_wave + tiles - 1) / tiles; /* tiles * s >= j waves */
                s = s < deepest ? s : deepest;
                cand[n++] = s;
                cand[n++] = s - 1 > 1 ? s - 1 : 1;
            }
            /* sgemm_redchain: a deep split's reduction is priced by its chain, so grids of a quarter, half and
             * one block per SM are offered too (fewer slices, a shorter chain) */
            for (int j = 1; g_redchain > 0 && j <= 4; j *= 2) {
                const int64_t s = (sms * j / 4 + tiles - 1) / tiles;
                cand[n++] = s < deepest ? s : deepest;
            }
        }
        for (int i = 0; i < n; i++) {
            /* the config is priced as at level 2 (and offered as at its level: the "/pf" rows from 5); level 3
             * re-prices a skinny-n split (sgemm_resolve) */
            const double t = sgemm_cost_ns(e, M, N, K, sms, cand[i], level, level < 2 ? level : 2);
            if (t < best) {
                best = t;
                *cfg_out = c;
                *splits_out = cand[i];
            }
        }
    }
}

/* The best split for a forced config: the model's among 1 and the one-to-four-wave splits; a
 * candidate (no cost) fills one wave of one block per SM. */
static int64_t sgemm_forced_split(int64_t M, int64_t N, int64_t K, int sms, int cfg, int level)
{
    double best = 1e301;
    const SgemmConfigEntry &e = kConfigs[cfg];
    const long long tiles = e.blocks(M, N);
    int64_t s = 1;
    if (e.kind == SGEMM_MATVEC) return sgemm_matvec_split(e, M, N, K, sms, NULL); /* any level, forced */
    if (sgemm_fit_class(M, N, K, level) && sgemm_fit_ns(cfg, M, N, K, sms, 1) < 1e300)
        return sgemm_fit_split(cfg, M, N, K, sms, NULL); /* sgemm_model 1: a fitted tile row */
    if (level >= 6 && e.kind == SGEMM_SKINNY_N && e.cost.bytes_per_ns > 0 && K >= e.bk)
        return sgemm_skinny_n6_split(e, M, N, K, sms, NULL); /* level 6: by waves (above) */
    if (tiles > 0 && (e.cost.fma_per_ns > 0 || e.cost.bytes_per_ns > 0)) {
        const long long per_wave = (long long)sms * e.minblocks;
        const int64_t deepest = sgemm_deepest(K, e.bk);
        for (int j = 0; j <= 4; j++) {
            int64_t c = j == 0 ? 1 : (j * per_wave + tiles - 1) / tiles;
            c = c < deepest ? c : deepest;
            /* forced, a "/pf" row and its base row are both priced as offered at any level (5 and 4) */
            const double t = sgemm_cost_ns(e, M, N, K, sms, c, e.pf ? 5 : level < 5 ? level : 4, level, true);
            if (t < best) {
                best = t;
                s = c;
            }
        }
    } else if (tiles > 0 && tiles < sms) {
        s = sms / tiles;
    }
    return s;
}

/* A forced config with splits 0 gets the model's best split for that config; a forced split is
 * clamped to [1, ceil(K / BK)] and made exact (sgemm_exact_split). */
void sgemm_resolve(int64_t M, int64_t N, int64_t K, int sms, int config, int splits, smk_sgemm_choice *ch,
                   int level)
{
    int cfg = config;
    int64_t s = splits;
    const int tiny = level >= 1 ? sgemm_tinyk_row(M, N, sms, level) : 0;
    if (config <= 0 && tiny > 0 && sgemm_tinyk_route(M, N, K)) {
        cfg = tiny;
        if (splits <= 0) s = 1;
    } else if (config <= 0) {
        int64_t auto_s = 1;
        sgemm_auto(M, N, K, sms, level, &cfg, &auto_s);
        if (splits <= 0) s = auto_s;
        /* level 3: a skinny-n choice takes the split that prices its missing share of a wave */
        if (splits <= 0 && level >= 3 && level < 6 && kConfigs[cfg].kind == SGEMM_SKINNY_N)
            s = sgemm_forced_split(M, N, K, sms, cfg, level);
    } else if (splits <= 0) {
        s = sgemm_forced_split(M, N, K, sms, cfg, level);
    }
    int64_t es = 1, chunk = K;
    sgemm_exact_split(K, kConfigs[cfg].bk, s, &es, &chunk);
    ch->config = cfg;
    ch->splits = (int)es;
    ch->k_chunk = chunk;
}

} /* namespace smk */

extern "C" int smk_sgemm_num_configs(void) { return smk::kNumConfigs; }

extern "C" const char *smk_sgemm_config_name(int config)
{
    return config >= 0 && config < smk::kNumConfigs ? smk::kConfigs[config].name : NULL;
}

extern "C" int smk_sgemm_choose(int64_t M, int64_t N, int64_t K, int sms, smk_sgemm_choice *choice)
{
    if (!choice || M < 0 || N < 0 || K < 0 || sms < 1) return -1;
    smk::sgemm_resolve(M, N, K, sms, 0, 0, choice, smk::sgemm_new_paths()); /* the launcher's level */
    return 0;
}

extern "C" int smk_sgemm_pad_choice(int64_t M, int64_t N, int64_t K, int sms, int a_aligned, int b_aligned,
                                    int dc_aligned, int *mask)
{
    if (!mask || M < 0 || N < 0 || K < 0 || sms < 1) return -1;
    smk_sgemm_choice ch;
    smk::sgemm_resolve(M, N, K, sms, 0, 0, &ch, smk::sgemm_new_paths());
    *mask = smk::sgemm_pad_choice(M, N, K, sms, ch, a_aligned != 0, b_aligned != 0, dc_aligned != 0,
                                  smk::sgemm_new_paths());
    return 0;
}

extern "C" void smk_sgemm_set_redchain(int level) { smk::g_redchain = level <= 0 ? 0 : 1; }
