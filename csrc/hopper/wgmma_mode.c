/* The Hopper GEMM's layout -> TMA / wgmma swizzle mode (api/wgmma.h): pure, host-compiled, tested on
 * the CPU through smemkit._C._wgmma_mode. */
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
