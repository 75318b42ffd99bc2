/*
 * gemm16_choose.c -- variant 0's choice for one tensor-core GEMM launch (api/gemm16.h smk_gemm16_choose):
 * the tile configuration, the K split, and whether unaligned rows are copied padded or read in place.
 * Pure C, no CUDA: the launcher (gemm16/gemm16_launch.cu) runs the answer, the plan (gemm16_plan.cu)
 * replays it for explain(), and the size checks (gemm16_temp.c -> rules.c, bench.c) count its bytes.
 *
 * The model, in nanoseconds on one GPU of `sms` multiprocessors (H100-calibrated constants below):
 *   tiles   = ceil(M / BM) * ceil(N / BN),  blocks = tiles * S,  kc = K columns per slice (BK multiple)
 *   waves   = ceil(blocks / (sms * BPS))   (wave quantization: the full waves, then a partial one)
 *   T_block = BM * BN * (KMUL * kc + K0) / (RATE * EFF * sqrt(r / BPS) / r), r blocks resident per SM
 *             (BPS in a full wave, ceil(rest / sms) in the last: r blocks share the SM's rate, and
 *             fewer than BPS hide less latency); KMUL = 1 for cp.async loads, STAGED in place
 *   T_tile  = full waves * T_block(BPS) + T_block(r of the last wave)
 *   T_gemm  = max(T_tile, DRAM bytes of A, B, D / BW)
 *   split   S > 1 adds T_SPLIT (the reduction launch, the workspace) + S*M*N*8 bytes / BW (fp32
 *           partials written and read back)
 *   unaligned rows (a base or a pitch off 16 bytes): either copied padded, each copy COPY_NS + 4 bytes
 *           per element / BW, then the cp.async kernel at T_gemm; or read in place through registers
 *           (the staged path, ~2.7x slower per MMA at 4097x4095x4093: docs/GEMM16_NOTES.md), KMUL =
 *           STAGED.  Whichever is smaller; a tie copies (the old behaviour).
 * The candidates are every (tile, S) with S = 1..64 slices of at least MIN_KC columns, the workspace
 * at most WS_MAX bytes, S > 1 only where the tile's grid is under one wave (split-K is for outputs that
 * do not fill the GPU; past a wave its gain is a fraction of the last wave against S times the output
 * in fp32 traffic); the cheapest wins, ties to the bigger tile and fewer slices (table order), and
 * only by a margin (KEEP) over the choice of variant 0 before #28, which holds otherwise: where the
 * model is unsure the measured-good old path stays (big aligned shapes, big odd ones padded).
 */
#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "api/gemm16_epi.h"
#include "api/gemm16_small.h"
#include "api/wgmma.h" /* smk_gemm16_copies_ns, smk_gemm16_dram_ns */

/* The tiles variant 0 may choose: X(variant, BM, BN, BK, blocks per SM, efficiency in percent of the
 * 128x256 tile's per-SM MMA rate).  gemm16_launch.cu checks the geometry against tiles.h. */
static const struct {
    int variant, bm, bn, bk, bps, eff;
} kTiles[] = {
#define SMK_G16_TILE_ROW(v, bm, bn, bk, bps, eff) {v, bm, bn, bk, bps, eff},
    SMK_G16_CHOOSER_TILES(SMK_G16_TILE_ROW)
#undef SMK_G16_TILE_ROW
};
#define N_TILES ((int)(sizeof kTiles / sizeof kTiles[0]))

#define RATE 1600.0      /* multiply-adds per ns per SM of the 128x256 tile (~420 TFLOP/s on 132 SMs) */
#define K0 128.0         /* a block's fixed cost (pipeline fill, epilogue) in K columns */
#define BW 2500.0        /* DRAM bytes per ns */
#define T_SPLIT 3000.0   /* the reduction kernel's launch and tail, the workspace's allocation */
#define COPY_NS 2500.0   /* one padded copy's launch and tail, its temporary's allocation */
#define STAGED 2.5       /* register-staged (in-place) loads per MMA against cp.async */
#define MIN_KC 256       /* a slice has at least this many K columns */
#define MAX_SPLITS 64
#define WS_MAX ((int64_t)1 << 28)
#define KEEP 0.9         /* another choice must model at least 10% faster than variant 0 before #28 */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t pad8(int64_t n) { return (n + 7) & ~(int64_t)7; }

/* fp32 partial tiles: S slices of M rows of N rounded up to 4 floats (16-byte rows) */
int64_t smk_gemm16_ws_ldw(int64_t N) { return (N + 3) & ~(int64_t)3; }

/* One block's time with r blocks resident on its SM (of the bps the tile is built for): the SM's rate
 * RATE * EFF at full residency, sqrt(r / bps) of it with fewer (less latency hidden), shared by r. */
static double block_ns(int t, int64_t kc, double kmul, int64_t r)
{
    const double share = sqrt((double)r / kTiles[t].bps) / (double)r;
    return (double)kTiles[t].bm * kTiles[t].bn * (kmul * (double)kc + K0) / (RATE * kTiles[t].eff / 100.0 * share);
}

/* The grid's time: full waves (bps blocks per SM), then the last partial wave with ceil(rest / sms)
 * blocks per SM.  kmul: the per-k-column cost of the load path (1 for cp.async, STAGED in place). */
static double tile_ns(int t, int64_t M, int64_t N, int64_t kc, int64_t S, int sms, double kmul)
{
    const int64_t blocks = cdiv(M, kTiles[t].bm) * cdiv(N, kTiles[t].bn) * S;
    const int64_t slots = (int64_t)sms * kTiles[t].bps, full = blocks / slots, rest = blocks - full * slots;
    return (double)full * block_ns(t, kc, kmul, kTiles[t].bps) + (rest ? block_ns(t, kc, kmul, cdiv(rest, sms)) : 0.0);
}

/* The cost of (tile t, S slices) with rows aligned or read in place (staged), without padded copies. */
static double cost_ns(int t, int64_t M, int64_t N, int64_t K, int64_t S, int64_t kc, int sms, int staged)
{
    const double mem = smk_gemm16_dram_ns(M, N, K);
    double tt = tile_ns(t, M, N, kc, S, sms, staged ? STAGED : 1.0);
    if (tt < mem)
        tt = mem;
    if (S > 1)
        tt += T_SPLIT + 8.0 * S * (double)M * N / BW;
    return tt;
}

/* The padded copies of the unaligned operands: each COPY_NS + 4 bytes per padded element / BW. */
double smk_gemm16_copies_ns(int64_t M, int64_t N, int64_t K, int a_rows_aligned, int b_rows_aligned)
{
    return (a_rows_aligned ? 0.0 : COPY_NS + 4.0 * M * pad8(K) / BW) +
           (b_rows_aligned ? 0.0 : COPY_NS + 4.0 * K * pad8(N) / BW);
}

/* The DRAM floor of one pass over A, B and a 2-byte D. */
double smk_gemm16_dram_ns(int64_t M, int64_t N, int64_t K)
{
    return (2.0 * ((double)M * K + (double)K * N) + 2.0 * M * N) / BW;
}

/* Variant 0 before #28 (128x256, or 128x128 under half a wave of it; every unaligned operand copied; no
 * split) into ch, and its modelled cost. */
static double old_choice(int64_t M, int64_t N, int64_t K, int sms, int a_al, int b_al, smk_gemm16_choice *ch)
{
    const int t = 2 * cdiv(M, kTiles[0].bm) * cdiv(N, kTiles[0].bn) < sms ? 1 : 0; /* kTiles[1]: 128x128 */
    ch->variant = kTiles[t].variant;
    ch->pad_a = !a_al;
    ch->pad_b = !b_al;
    ch->est_ns = cost_ns(t, M, N, K, 1, K, sms, 0) + smk_gemm16_copies_ns(M, N, K, a_al, b_al);
    return ch->est_ns;
}

/* ---- short K on the one-block-per-SM tiles (knob gemm16_shortk, api/gemm16.h) ---------------------------- */
volatile int smk_gemm16_shortk = 1; /* session 42: seed 175 (H100) moved 3 draws, all won (x1.08-1.26) */

int smk_gemm16_set_shortk(int mode)
{
    if (mode < 0 || mode > 1)
        return -1;
    smk_gemm16_shortk = mode;
    return 0;
}

/* Level 1: a one-slice launch of 128x256 (variant 1) or 128x128/1 (variant 6) with K <= SMK_G16_SHORTK_KMAX
 * (one k-tile) and no padded copy is a load, one k-tile of MMAs and the epilogue's store of D per block,
 * with no second block on its SM to overlap them; the 128x128 tile at 2 blocks per SM (variant 4) does,
 * or, where its grid is within one block per SM, the 64x64 tile (variant 9, 3 per SM) spreads D over
 * 4x the blocks.  Per-candidate timings of the class (H100, 37 draws of seed 3300 with K 17..128:
 * GEMM16_NOTES, session 42) had variant 4 or 9 faster than 1 / 6 on every such draw with K <= 64 (x1.05-1.25). */
static void shortk_retile(int64_t M, int64_t N, int64_t K, int sms, smk_gemm16_choice *ch)
{
    if (smk_gemm16_shortk <= 0 || K > SMK_G16_SHORTK_KMAX || ch->splits != 1 || ch->pad_a || ch->pad_b ||
        (ch->variant != 1 && ch->variant != 6))
        return;
    ch->variant = cdiv(M, 128) * cdiv(N, 128) <= (int64_t)sms ? 9 : 4;
}

void smk_gemm16_choose(int64_t M, int64_t N, int64_t K, int sms, int a_rows_aligned, int b_rows_aligned,
                       smk_gemm16_choice *ch)
{
    const int unaligned = K > 0 && !(a_rows_aligned && b_rows_aligned);
    double best = -1.0;
    int t;
    ch->variant = kTiles[0].variant;
    ch->splits = 1;
    ch->k_chunk = K;
    ch->pad_a = ch->pad_b = 0;
    ch->est_ns = 0.0;
    if (M <= 0 || N <= 0 || K <= 0 || sms < 1)
        return;
    best = KEEP * old_choice(M, N, K, sms, a_rows_aligned, b_rows_aligned, ch);
    for (t = 0; t < N_TILES; t++) {
        const int64_t kt = cdiv(K, kTiles[t].bk);
        const int64_t tiles = cdiv(M, kTiles[t].bm) * cdiv(N, kTiles[t].bn);
        const int64_t max_s = tiles < (int64_t)sms * kTiles[t].bps ? MAX_SPLITS : 1; /* split under a wave only */
        int64_t s;
        for (s = 1; s <= max_s && s <= kt; s++) {
            const int64_t per = cdiv(kt, s), kc = per * kTiles[t].bk, S = cdiv(kt, per);
            double c;
            int staged;
            if (S != s || (S > 1 && (kc < MIN_KC || S * M * smk_gemm16_ws_ldw(N) * 4 > WS_MAX)))
                continue; /* the same split as a smaller s, or slices too thin, or the workspace too big */
            for (staged = 0; staged <= unaligned; staged++) {
                c = cost_ns(t, M, N, K, S, kc, sms, staged);
                if (unaligned && !staged) /* the copies */
                    c += smk_gemm16_copies_ns(M, N, K, a_rows_aligned, b_rows_aligned);
                if (best < 0.0 || c < best) {
                    best = c;
                    ch->variant = kTiles[t].variant;
                    ch->splits = (int)S;
                    ch->k_chunk = S > 1 ? kc : K;
                    ch->pad_a = unaligned && !staged && !a_rows_aligned;
                    ch->pad_b = unaligned && !staged && !b_rows_aligned;
                    ch->est_ns = c;
                }
            }
        }
    }
    shortk_retile(M, N, K, sms, ch);
}

static uint64_t mul_sat(uint64_t a, uint64_t b) { return (b && a > UINT64_MAX / b) ? UINT64_MAX : a * b; }
static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static size_t to_size(uint64_t x) { return x > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)x; }

size_t smk_gemm16_choice_bytes(int64_t M, int64_t N, int64_t K, const smk_gemm16_choice *ch, size_t *pad_bytes,
                               size_t *ws_bytes)
{
    uint64_t a = 0, b = 0, w = 0;
    if (M > 0 && N > 0 && K > 0) {
        a = ch->pad_a ? mul_sat((uint64_t)M, 2 * (uint64_t)pad8(K)) : 0;
        b = ch->pad_b ? mul_sat((uint64_t)K, 2 * (uint64_t)pad8(N)) : 0;
        w = ch->splits > 1 ? mul_sat(mul_sat((uint64_t)ch->splits, (uint64_t)M), 4 * (uint64_t)smk_gemm16_ws_ldw(N)) : 0;
    }
    if (pad_bytes)
        *pad_bytes = to_size(add_sat(a, b));
    if (ws_bytes)
        *ws_bytes = to_size(w);
    return to_size(add_sat(add_sat(a, b), w));
}

/* ---- the mma.sync kernel's epilogue (api/gemm16.h smk_gemm16_epi): register or staged rows ---------- */
volatile int smk_gemm16_epi = 4; /* 1 since session 38: seeds 103 / 104 0.858 -> 0.887, 0.828 -> 0.860; 4 since session 42 (GEMM16_NOTES) */

int smk_gemm16_set_epi(int mode)
{
    if (mode < 0 || mode > 4)
        return -1;
    smk_gemm16_epi = mode;
    return 0;
}

/* The staged epilogue needs a 2-byte D written whole (no C term, no fp32 split-K partials); levels 1
 * and 3 take it where the register epilogue is weakest: D's pairs unaligned (two 2-byte stores per
 * pair, 8 rows per instruction: 64 bytes in 8..16 sectors) or a write-bound K (level 3 also routes
 * TINYK's big outputs to the tiles: gemm16/matvec.h smk_mv_route_epi). */
int smk_gemm16_epi_staged(int mode, int64_t K, int pairs_aligned, int out_f32, int beta_nonzero)
{
    if (mode <= 0 || out_f32 || beta_nonzero)
        return 0;
    return mode == 2 || !pairs_aligned || K <= SMK_G16_EPI_KMAX;
}

/* Level 4 (api/gemm16_epi.h): level 1, and short-to-mid K on wide outputs with aligned pairs.  Session 42's A/B of
 * level 2 (staged wherever it can run; seed 179, H100) moved 11 draws: it won where N >= 700 and K <= 138
 * (4206x2548x79 0.66 -> 0.79, 1341x5324x130 0.56 -> 0.64, 13704x726x138 0.58 -> 0.63) and lost on narrow outputs
 * (11288x116x158 0.82 -> 0.75, 11441x288x95, 3856x12x112) and at K = 433 (3601x1082x433), as session 38's level 1
 * lost on small-N tiles: staging pays where a block's D tile is whole rows of many columns and its K loop short. */
int smk_gemm16_epi_staged_n(int mode, int64_t N, int64_t K, int pairs_aligned, int out_f32, int beta_nonzero)
{
    if (mode != 4)
        return smk_gemm16_epi_staged(mode, K, pairs_aligned, out_f32, beta_nonzero);
    if (smk_gemm16_epi_staged(1, K, pairs_aligned, out_f32, beta_nonzero))
        return 1;
    return !out_f32 && !beta_nonzero && K <= SMK_G16_EPI_MID_KMAX && N >= SMK_G16_EPI_MID_NMIN;
}

/* ---- the 64x64 tile's deep staged loads (api/gemm16.h smk_gemm16_staged, load_deep.cuh) -------------- */
volatile int smk_gemm16_staged = 1; /* session 41's A/B (seed 168, H200): GEMM16_NOTES */

int smk_gemm16_set_staged(int mode)
{
    if (mode < 0 || mode > 3)
        return -1;
    smk_gemm16_staged = mode;
    return 0;
}

/* The deep path pays where a block's K loop is a chain of global round trips: few blocks (one per SM,
 * under a wave), several k-tiles each.  Variant 9 is the 64x64 chooser row (SMK_G16_CHOOSER_TILES). */
int smk_gemm16_staged_deep(int mode, int64_t M, int64_t N, int64_t k_chunk, int splits, int variant, int in_place,
                           int sms)
{
    if (mode <= 0 || variant != 9 || !in_place || M <= 0 || N <= 0 || splits < 1 || sms < 1)
        return 0;
    if (mode >= 3) /* tests: every in-place 64x64 launch, any grid, any K */
        return 1;
    return cdiv(k_chunk, 64) >= 2 && cdiv(M, 64) * cdiv(N, 64) * splits <= (int64_t)sms;
}

/* A split of 2.. slices of the in-place 64x64 tile costs a second launch (~2.2 us of device time) and
 * the partials' traffic; whole, the deep path waits about cdiv(KT, SMK_G16_DEEP) round trips (~1 us
 * each) instead of one: up to SMK_G16_DEEP_NOSPLIT k-tiles (2 round trips) that is cheaper. */
int smk_gemm16_staged_unsplit(int mode, int64_t M, int64_t N, int64_t K, int in_place, int sms,
                              smk_gemm16_choice *ch)
{
    if (mode < 2 || ch->splits < 2 || cdiv(K, 64) > SMK_G16_DEEP_NOSPLIT ||
        !smk_gemm16_staged_deep(mode, M, N, K, 1, ch->variant, in_place, sms))
        return 0;
    ch->splits = 1;
    ch->k_chunk = K;
    return 1;
}

/* ---- the 32x64 half tile for in-place 64x64 grids under a wave (api/gemm16_small.h, gemm16/small.h) ---------- */
volatile int smk_gemm16_small = 1; /* the default since session 43 (held out on seed 188: 43 draws moved, all won) */

int smk_gemm16_set_small(int mode)
{
    if (mode < 0 || mode > 4)
        return -1;
    smk_gemm16_small = mode;
    return 0;
}

/* A 64x64 grid under a wave is one block per SM on a fraction of the SMs, each block walking all of its K
 * through a chain of load round trips and 8 warps' issue (ncu, session 43: 68x92x214 on 4 blocks where cuBLAS
 * runs 12; 121x556x82 on 18 against 96).  Halving BM doubles the blocks along M at half a block's MMAs, epilogue
 * and A loads (B's are the same, from L2 after the first).  Where the half tile's grid still fits one wave every
 * block runs at once, so the call's time is one (shorter) block's: the rule is that alone (M <= 32: the same grid,
 * blocks without the 64x64 tile's idle half). */
int smk_gemm16_small_tile(int mode, int64_t M, int64_t N, int splits, int variant, int in_place, int sms)
{
    if (mode <= 0 || variant != 9 || !in_place || M <= 0 || N <= 0 || splits < 1 || sms < 1)
        return 0;
    if (mode == 2 || mode == 4) /* tests: every in-place 64x64 launch */
        return 1;
    return cdiv(M, 32) * cdiv(N, 64) * splits <= (int64_t)sms;
}

/* ---- narrow cp.async on rows aligned to 4 / 8 bytes (api/gemm16.h smk_gemm16_narrow, gemm16/load_narrow.cuh) ---- */
/* 1 by default since session 45 (held-out seed 203: level 1 beat 3 on the 4 draws where they differ, 3033x12x1054 bf16
 * 0.66 -> 0.81); session 44's default 3 was level 1 (H100, 74 class draws of the helper's seeds 3450-3455 and the issue's, fp16 and
 * bf16, arms interleaved: 0.467 / 0.475 -> 0.794 / 0.810 of cuBLAS, all 74 won, min 0.37 -> 0.58; their K slices were
 * 640 deep or more) on slices of at least SMK_G16_NARROW_KT_SPLIT k-tiles, the shallower split launches kept on the deep /
 * half-tile loads (gemm16_staged, gemm16_small) that won there in sessions 41 and 43; GEMM16_NOTES "Session 44". */
volatile int smk_gemm16_narrow_async = 1;

int smk_gemm16_set_narrow_async(int mode)
{
    if (mode < 0 || mode > 3)
        return -1;
    smk_gemm16_narrow_async = mode;
    return 0;
}

static int narrow_width_ok(int w) { return w == 4 || w == 8 || w == 16; }

/* The staged path's cost is per k-tile (one tile of loads in flight, 8 LDG.U16 per 16 bytes): it weighs
 * where a block walks many k-tiles, the split (K-heavy) launches, or one slice of >= SMK_G16_NARROW_KT. */
int smk_gemm16_narrow(int mode, int variant, int64_t k_slice, int splits, int wa, int wb)
{
    if (mode <= 0 || splits < 1 || k_slice <= 0 || !narrow_width_ok(wa) || !narrow_width_ok(wb) ||
        (wa == 16 && wb == 16))
        return 0;
    if (variant != 1 && variant != 4 && variant != 6 && variant != 8 && variant != 9)
        return 0;
    if ((mode == 1 || mode == 3) && splits < 2 && cdiv(k_slice, 64) < SMK_G16_NARROW_KT)
        return 0;
    if (mode == 3 && cdiv(k_slice, 64) < SMK_G16_NARROW_KT_SPLIT) /* level 3: split slices as deep as measured */
        return 0;
    return wa | wb << 8;
}
