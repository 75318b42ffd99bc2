/*
 * bank_layout_addrs.c -- byte offsets from layout.h for bench/bank_probe/gen_bank_patterns.py, so the probe's
 * transpose and SGEMM patterns come from the same index maps as the kernels (nobody retypes them).
 *
 * stdin:  one query a line: "layout log2_cols log2_vec log2_esz r c"  (layout 0 naive, 1 pad, 2 swizzle)
 * stdout: one line each: the byte offset smk_tile_offset(tile, r, c) << log2_esz
 *
 * Build: cc -std=c99 -Icsrc bench/bank_probe/bank_layout_addrs.c -o /tmp/bank_layout_addrs   (the generator does)
 */
#include <stdio.h>

#include "layout.h"

int main(void)
{
    smk_tile t = {0, 0, 0, 0, 0, 0, 0}; /* swz_b = 0: the automatic swizzle */
    int r, c;
    while (scanf("%d %d %d %d %d %d", &t.layout, &t.log2_cols, &t.log2_vec, &t.log2_esz, &r, &c) == 6)
        printf("%lld\n", (long long)smk_tile_offset(t, r, c) << t.log2_esz);
    return 0;
}
