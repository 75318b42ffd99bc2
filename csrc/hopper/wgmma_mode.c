/* The Hopper GEMM's layout -> TMA / wgmma swizzle mode and the "auto" kernel rule (api/wgmma.h): pure,
 * host-compiled, tested on the CPU through smemkit._C._wgmma_mode / _gemm16_kernel_for. */
#include "api/wgmma.h"
#include "layout.h"

int smk_wgmma_mode(int layout, int b, int m, int s)
{
    if (layout == SMK_NAIVE && b == 0 && m == 0 && s == 0)
        return 0; /* interleaved 8-row x 16-byte core matrices */
    if (layout != SMK_SWIZZLE)
        return -1; /* "pad": a padded row is no TMA box and no wgmma canonical layout */
    if (b == 0 && m == 0 && s == 0)
        return 128; /* "swizzle" = the widest mode */
    if (m == 3 && s == 3 && b >= 1 && b <= 3)
        return 16 << b; /* Swizzle(1,3,3) 32B, (2,3,3) 64B, (3,3,3) 128B on 2-byte element indices */
    return -1;
}

/* The "auto" rule (api/wgmma.h).  Per SM the wgmma kernel does ~1.5x the mma.sync kernel's work rate
 * (measured 0.83 vs 0.55 of cuBLAS at 4096^3), but it has one 128 x 256 tile per SM per wave where the
 * mma.sync launcher picks smaller tiles and split-K for small grids.  With T tiles and S SMs its waves
 * are ceil(T / S), of which T / S is useful work: wgmma wins while that fill, T / (S ceil(T / S)), is
 * above 1 / 1.5, i.e. 3 T >= 2 S ceil(T / S): on 132 SMs 88-132 tiles and every count from 176 pass,
 * 1-87 and 133-175 (a second wave under a third full) keep mma.sync.
 * K >= 256 (the 4-stage ring filled once) keeps the per-tile prologue and epilogue a small share. */
static int wave_fill(int64_t M, int64_t N, int sms)
{
    const int64_t tiles = ((M + 127) / 128) * ((N + 255) / 256), waves = (tiles + sms - 1) / sms;
    return 3 * tiles >= 2 * (int64_t)sms * waves;
}

int smk_wgmma_auto(int64_t M, int64_t N, int64_t K, int sms)
{
    return M > 0 && N > 0 && K >= 256 && sms > 0 && wave_fill(M, N, sms);
}

/* Unaligned rows through padded copies (knob 3): the wgmma kernel then reads stream-ordered copies of A
 * and / or B whose rows are padded to 8 elements (the mma.sync path's pad_rows_kernel), so it pays the
 * copies the mma.sync chooser models (smk_gemm16_copies_ns), and the mma.sync choice it competes with
 * may itself copy the same operands (then the copies cancel and the aligned rule decides) or read them in
 * place through registers (2.5x its per-MMA cost, no copies: where copying B or A costs more than the
 * product gains, e.g. a small M against a long K x N).  The wgmma kernel's time, in the chooser's terms:
 * ceil(tiles / sms) waves of one 128 x 256 tile per SM, each (K + WG_K0) columns at WG_RATE multiply-adds
 * per ns per SM, floored by the DRAM pass.  WG_RATE: 4096^3 at 739 TFLOP/s (4 waves) and 8192^3 at 772
 * (16 waves) on an H100 (docs/GEMM16_NOTES.md, issue 29 second rung) give 2980 and 3060; 2900 keeps a
 * margin (the mma.sync chooser's 128 x 256 tile is RATE 1600: wgmma ~1.8x per SM). */
#define WG_RATE 2900.0
#define WG_K0 128.0

double smk_wgmma_ns(int64_t M, int64_t N, int64_t K, int sms)
{
    const int64_t tiles = ((M + 127) / 128) * ((N + 255) / 256), waves = (tiles + sms - 1) / sms;
    const double t = (double)waves * 128.0 * 256.0 * ((double)K + WG_K0) / WG_RATE, mem = smk_gemm16_dram_ns(M, N, K);
    return t > mem ? t : mem;
}

/* Copies (of the unaligned operands; none where both are aligned) + the wgmma model under the mma.sync
 * choice's modelled cost (which counts its own copies or in-place reads). */
static int cost_wins(int64_t M, int64_t N, int64_t K, int sms, int a_rows_aligned, int b_rows_aligned)
{
    smk_gemm16_choice ch;
    smk_gemm16_choose(M, N, K, sms, a_rows_aligned, b_rows_aligned, &ch);
    return smk_gemm16_copies_ns(M, N, K, a_rows_aligned, b_rows_aligned) + smk_wgmma_ns(M, N, K, sms) < ch.est_ns;
}

int smk_wgmma_auto_padded(int64_t M, int64_t N, int64_t K, int sms, int a_rows_aligned, int b_rows_aligned)
{
    if (!smk_wgmma_auto(M, N, K, sms))
        return 0;
    return (a_rows_aligned && b_rows_aligned) || cost_wins(M, N, K, sms, a_rows_aligned, b_rows_aligned);
}

/* Knob 6 ("auto_mid"): as 3, and for 64 <= K < 256 (one to three k-tiles) where B's rows are aligned
 * (N % 8 == 0 for a dense B: its D rows then take the wgmma kernel's staged 16-byte epilogue), the wave-fill rule
 * and, A's rows unaligned, the copy of A against the mma.sync choice (cost_wins).  Per-candidate timings (H100,
 * session 42, seed 3301's K 65..400 draws, GEMM16_NOTES): wgmma forced against the shipped mma.sync choice
 * 1381x5344x216 14.7 / 30.4 us, 2048x4096x128 9.9 / 24.3, 8346x3520x146 (A off 16 bytes) 36.5 / 93.9,
 * 9190x6352x172 72.7 / 174.1, where mma.sync's 128x256 blocks of 2-4 k-tiles spend ~12 us a wave on their
 * register epilogue; with N odd the wgmma kernel's 2-byte scalar stores lost 2x (6548x16379x156 617 / 304). */
static int wgmma_auto_mid(int64_t M, int64_t N, int64_t K, int sms, int a_rows_aligned, int b_rows_aligned)
{
    if (smk_wgmma_auto_padded(M, N, K, sms, a_rows_aligned, b_rows_aligned))
        return 1;
    if (M <= 0 || N <= 0 || K < 64 || K >= 256 || sms <= 0 || !b_rows_aligned || !wave_fill(M, N, sms))
        return 0;
    return a_rows_aligned || cost_wins(M, N, K, sms, a_rows_aligned, b_rows_aligned);
}

/* Knob 5: the cost comparison alone (no wave-fill gate), aligned rows included, K >= 128 (two k-tiles):
 * it also takes one partial wave of 128 x 256 tiles where the model finds 1.8x per SM worth more than
 * the mma.sync choice's smaller tiles or split (212x10942x233, 750x7606x214: unmeasured, an A/B arm). */
int smk_wgmma_auto_cost(int64_t M, int64_t N, int64_t K, int sms, int a_rows_aligned, int b_rows_aligned)
{
    return M > 0 && N > 0 && K >= 128 && sms > 0 && cost_wins(M, N, K, sms, a_rows_aligned, b_rows_aligned);
}

int smk_gemm16_kernel_for_ab(int knob, int variant, int64_t M, int64_t N, int64_t K, int layout, int b, int m, int s,
                             int a_rows_aligned, int b_rows_aligned, int cc_major, int cc_minor, int sms)
{
    const int aligned = a_rows_aligned && b_rows_aligned;
    if (variant != 0 || cc_major != 9 || cc_minor != 0 || K <= 0 || M <= 0 || N <= 0 || knob < 1 || knob > 6)
        return 0;
    if (!aligned && knob < 3)
        return 0; /* 1 and 2: TMA on the caller's rows only */
    if (knob == 1 || knob == 4)
        return smk_wgmma_mode(layout, b, m, s) >= 0;
    if (layout != SMK_SWIZZLE || b != 0 || m != 0 || s != 0)
        return 0;
    if (knob == 5)
        return smk_wgmma_auto_cost(M, N, K, sms, a_rows_aligned, b_rows_aligned);
    if (knob == 6)
        return wgmma_auto_mid(M, N, K, sms, a_rows_aligned, b_rows_aligned);
    return knob == 2 ? smk_wgmma_auto(M, N, K, sms) : smk_wgmma_auto_padded(M, N, K, sms, a_rows_aligned, b_rows_aligned);
}

int smk_gemm16_kernel_for(int knob, int variant, int64_t M, int64_t N, int64_t K, int layout, int b, int m, int s,
                          int rows_aligned, int cc_major, int cc_minor, int sms)
{
    return smk_gemm16_kernel_for_ab(knob, variant, M, N, K, layout, b, m, s, rows_aligned, rows_aligned, cc_major,
                                    cc_minor, sms);
}
