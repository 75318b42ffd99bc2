/*
 * api/gemm16_pick.h -- knob gemm16_pick (smemkit._testing.knobs(gemm16_pick=...); tests and the candidate grid
 * bench/timing/gemm16_grid.py): 0 (the default) lets variant 0's cost model choose (gemm16_choose.c); V * 1000 + S
 * forces the tile of chooser variant V (1 .. 9, a row of tiles.h SMK_G16_CHOOSER_TILES) with S K slices (1 .. 64):
 * the model still decides padded copies against in-place rows, no margin over the old choice, no short-K retile.
 * A (V, S) the chooser would never form (no such row, slices thinner than its minimum, the workspace over its cap)
 * leaves the default pick: callers compare smk_gemm16_choose's answer with what they asked.  Its own header, so
 * that only gemm16_choose.c and module_tools.c see it.
 */
#ifndef SMK_API_GEMM16_PICK_H
#define SMK_API_GEMM16_PICK_H

extern volatile int smk_gemm16_pick;
int smk_gemm16_set_pick(int v); /* 0 or V * 1000 + S as above; -1 (unchanged) for anything else */

#endif /* SMK_API_GEMM16_PICK_H */
