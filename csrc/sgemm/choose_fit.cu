/*
 * sgemm/choose_fit.cu -- knob sgemm_model: the chooser's level-1 price of the tile rows on issue 27's mid class
 * (M, N > 32, K > 16), fitted to the H100 grid of every tile config x K split on seed 3470's draws.  Host code only,
 * no CUDA call: a pure function of (M, N, K, SM count) and the knobs (sgemm_deep's gate).  choose.cu calls it.
 *
 * Why (docs/SGEMM_NOTES.md, "Session 45: the level-1 tile model"): level 0's price (choose.cu sgemm_cost_ns) over-split
 * and under-used the BK = 16 rows: on that grid its picks ran 0.925 of cuBLAS (geomean, p10 0.722) where the best
 * timed point per draw ran 0.988 (0.834): 552x281x369 64x64x16 S=8 0.69 where S=1 ran 1.19; 8245x87x494 128x128x8
 * S=2 0.62 where 32x128x16 S=1 ran 0.89.  Its terms were wrong there: a split priced 6 us + its bytes at 6 TB/s
 * (the grid: 4.3 us + 2.4 TB/s + 2.4 us per reduction trip past the first), no price for the deep kernel that the
 * BK = 16 rows' small grids run (sgemm_deep_gate: 64x64x16 S=1 on 552x281 is 90 blocks of the 32x64 half tile,
 * 13.4 us against the 20 us priced), and the 32x128x16 row offered only where M mod 64 is 1..32.
 *
 * The price (bench/timing/fit_sgemm_grid.py has the same arithmetic in Python, fits it and replays its picks): a
 * launch of a row over s exact K slices kt k-tiles deep runs tiles x s blocks; the busiest SM gets
 * b = ceil(blocks / SMs), in rounds of at most MINBLOCKS resident blocks; a round of n blocks takes
 *     kt x sqrt(L^2 + (n c)^2) + o
 * (c: an SM's time per k-tile per resident block when throughput-bound; L: one k-tile's latency floor, which a lone
 * block pays; o: a block's fixed cost, prologue and epilogue).  Full rounds are throughput-bound, a last round of
 * few blocks latency-bound: that is the wave quantisation.  Launch t0; a split adds tr0 + (2 s M N' + M N) x 4 B / bw
 * + (reduce.cuh's round trips past the first) x trip.  The deep kernel's launches of the BK = 16 rows (the gate
 * at the knob's level) are priced with their own (c, L, o) and tile (64x64x16's: the 32x64x16 half tile).
 * Splits tried: 1 and, while the tiles fill under two waves, the ladder 2, 3, 4, 6, 9, 14, ... (x1.5, the grid's)
 * up to 2.2 waves of blocks and sgemm_deepest.  Every shipped TILE row is offered (32x128x16 for any M > 32).
 * Replayed on the grids: fit (seed 3470, 61 draws) 0.977 / 0.823 / 0.616 (geomean / p10 / min); judged on seed
 * 3471 (54 draws, not fitted) 0.946 / 0.811 / 0.633 against level 0's 0.911 / 0.701 / 0.615, the oracle 0.962 /
 * 0.830 / 0.711.
 */
#include <math.h>
#include <string.h>

#include "api/sgemm.h"
#include "api/sgemm_tinyk.h"
#include "sgemm/choose_model.h"
#include "sgemm/configs.h"
#include "sgemm/deep.h"

namespace smk {

static volatile int g_model = 0; /* knob sgemm_model: 0 (the default) choose.cu's price; 1 this file's */
int sgemm_model() { return g_model; }

/* A row's fitted constants, ns: its own kernel (c, L, o), and its deep-pipeline launches (dc, dL, dO) where
 * sgemm_deep_gate sends them (the BK = 16 rows; 0: none).  Printed by bench/timing/fit_sgemm_grid.py. */
struct SgemmFitRow {
    const char *name;
    double c, L, o, dc, dL, dO;
};
static const SgemmFitRow kFitRows[] = {
    {"128x128x8", 664.6, 509.4, 6670.7, 0, 0, 0},
    {"64x64x8", 188.2, 528.3, 3683.1, 0, 0, 0},
    {"128x256x8", 1419.3, 308.7, 7915.3, 0, 0, 0},
    {"64x64x16", 495.5, 0.0, 4213.1, 280.6, 212.2, 3182.2}, /* deep: the 32x64x16 half tile */
    {"128x64x8", 358.1, 570.2, 5797.7, 0, 0, 0},
    {"64x128x8", 331.6, 577.1, 5712.7, 0, 0, 0},
    {"64x128x8/minb4", 347.0, 560.3, 5957.8, 0, 0, 0},
    {"32x128x16", 369.8, 1032.6, 4280.6, 482.0, 235.9, 3497.5},
};
constexpr double kFitLaunchNs = 2423.1, kFitSplitNs = 4312.5, kFitSplitBytesPerNs = 2394.3, kFitTripNs = 2444.3;
constexpr double kFitMaxWaves = 2.2;
static const int64_t kFitLadder[] = {2, 3, 4, 6, 9, 14, 21, 32, 48, 72, 108, 162, 243, 364, 546, 819, 1228, 1842};

/* The fitted row of config `cfg` (a shipped TILE row), or nullptr. */
static const SgemmFitRow *sgemm_fit_row(int cfg)
{
    if (cfg < 1 || cfg >= kNumConfigs || kConfigs[cfg].kind != SGEMM_TILE) return nullptr;
    for (const SgemmFitRow &r : kFitRows)
        if (strcmp(r.name, kConfigs[cfg].name) == 0) return &r;
    return nullptr;
}

bool sgemm_fit_class(int64_t M, int64_t N, int64_t K, int level)
{
    return g_model >= 1 && level >= 3 && M > 32 && N > 32 && K > 16;
}

/* reduce.cuh's dependent round trips of a lane summing s slices (choose.cu sgemm_reduce_chain_ns). */
static int64_t sgemm_fit_trips(int64_t s)
{
    const int64_t G = s >= 16 ? 2 : (s >= 8 ? 4 : 8), L = 32 / G;
    return ((s + L - 1) / L + 3) / 4;
}

double sgemm_fit_ns(int cfg, int64_t M, int64_t N, int64_t K, int sms, int64_t splits)
{
    const SgemmFitRow *r = sgemm_fit_row(cfg);
    if (!r) return 1e300;
    const SgemmConfigEntry &e = kConfigs[cfg];
    int64_t s = 1, chunk = K;
    sgemm_exact_split(K, e.bk, splits, &s, &chunk);
    const int gate = sgemm_deep_gate(M, N, K, (int)s, cfg, sms, sgemm_deep_level());
    const bool deep = gate != SGEMM_DEEP_NO && r->dc > 0, half = gate == SGEMM_DEEP_HALF;
    const int bm = half ? SgemmHalfCfg::TILE_M : e.bm, bn = half ? SgemmHalfCfg::TILE_N : e.bn;
    const int mb = half ? SgemmHalfCfg::MINBLOCKS : e.minblocks;
    const double c = deep ? r->dc : r->c, L = deep ? r->dL : r->L, o = deep ? r->dO : r->o;
    const long long blocks = sgemm_grid_blocks(bm, bn, M, N) * s;
    if (blocks <= 0) return 1e300;
    const long long b = (blocks + sms - 1) / sms, rounds = (b + mb - 1) / mb, last = b - (long long)mb * (rounds - 1);
    const double kt = (double)((chunk + e.bk - 1) / e.bk);
    const double full = kt * sqrt(L * L + (mb * c) * (mb * c)) + o, tail = kt * sqrt(L * L + (last * c) * (last * c)) + o;
    double t = kFitLaunchNs + (double)(rounds - 1) * full + tail;
    if (s > 1)
        t += kFitSplitNs + (2.0 * s * M * ((N + 3) & ~(int64_t)3) + (double)M * N) * 4.0 / kFitSplitBytesPerNs +
             (double)(sgemm_fit_trips(s) - 1) * kFitTripNs;
    return t;
}

/* The least priced S of config cfg among 1 and the ladder (above); *t_out its price. */
int64_t sgemm_fit_split(int cfg, int64_t M, int64_t N, int64_t K, int sms, double *t_out)
{
    double best = sgemm_fit_ns(cfg, M, N, K, sms, 1);
    int64_t best_s = 1;
    const SgemmConfigEntry &e = kConfigs[cfg];
    const long long tiles = e.blocks(M, N), wave = (long long)sms * e.minblocks;
    if (best < 1e300 && tiles < 2 * wave && K > e.bk) {
        const int64_t deepest = sgemm_deepest(K, e.bk);
        for (int64_t s : kFitLadder) {
            if (s > deepest || (double)tiles * s > kFitMaxWaves * wave) break;
            const double t = sgemm_fit_ns(cfg, M, N, K, sms, s);
            if (t < best) best = t, best_s = s;
        }
    }
    if (t_out) *t_out = best;
    return best_s;
}

void sgemm_fit_auto(int64_t M, int64_t N, int64_t K, int sms, int *cfg_out, int64_t *splits_out)
{
    double best = 1e301;
    for (int c = 1; c < kNumConfigs; c++) {
        if (!sgemm_fit_row(c)) continue;
        double t = 1e301;
        const int64_t s = sgemm_fit_split(c, M, N, K, sms, &t);
        if (t < best) best = t, *cfg_out = c, *splits_out = s;
    }
}

} /* namespace smk */

extern "C" void smk_sgemm_set_model(int level) { smk::g_model = level <= 0 ? 0 : 1; }
