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
int smk_wgmma_auto(int64_t M, int64_t N, int64_t K, int sms)
{
    int64_t tiles, waves;
    if (M <= 0 || N <= 0 || K < 256 || sms <= 0)
        return 0;
    tiles = ((M + 127) / 128) * ((N + 255) / 256);
    waves = (tiles + sms - 1) / sms;
    return 3 * tiles >= 2 * (int64_t)sms * waves;
}

int smk_gemm16_kernel_for(int knob, int variant, int64_t M, int64_t N, int64_t K, int layout, int b, int m, int s,
                          int rows_aligned, int cc_major, int cc_minor, int sms)
{
    if (variant != 0 || !rows_aligned || cc_major != 9 || cc_minor != 0 || K <= 0 || M <= 0 || N <= 0)
        return 0;
    if (knob == 1)
        return smk_wgmma_mode(layout, b, m, s) >= 0;
    if (knob != 2)
        return 0;
    return layout == SMK_SWIZZLE && b == 0 && m == 0 && s == 0 && smk_wgmma_auto(M, N, K, sms);
}
