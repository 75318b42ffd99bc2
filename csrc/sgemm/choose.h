/* sgemm/choose.h -- the SGEMM chooser (choose.cu): which tile config and how many K slices a launch
 * uses.  Pure host functions of (M, N, K, SM count, forced config / split): launch.cu runs the
 * answer, plan.cu replays it for explain(). */
#ifndef SMK_SGEMM_CHOOSE_H
#define SMK_SGEMM_CHOOSE_H

#include <stdint.h>

#include "runtime.h"
#include "sgemm/configs.h"

namespace smk {

/* The chooser's cost model of one config: the COST column of configs.h (choose.cu says what each
 * constant means).  fma_per_ns == 0 and bytes_per_ns == 0: a candidate, not chosen automatically. */
struct SgemmCost {
    double fma_per_ns, k0, beta, bytes_per_ns;
};

/* One row of the config table as the cost model and the plan see it. */
struct SgemmConfigEntry {
    const char *name;
    int bm, bn, bk; /* the output tile of one block and the k-tile depth */
    int minblocks;  /* blocks per SM the config is built for (its __launch_bounds__) */
    SgemmCost cost;
    int kind;       /* SgemmKind */
    int pf;         /* SKINNY_M rows: PF (the next batch of B prefetched; offered from level 5) */
    int warps;      /* warps per block (MATVEC: the warps that split the block's K slice) */
    /* Blocks in the grid for an M x N output (0 if it does not fit a 1-D grid). */
    long long blocks(int64_t M, int64_t N) const { return bm > 0 ? sgemm_grid_blocks(bm, bn, M, N) : 0; }
};

extern const SgemmConfigEntry kConfigs[kNumConfigs];

/* The whole choice (config and K slices), forced or not: what smk_sgemm_launch runs and
 * smk_sgemm_plan replays.  config <= 0 / splits <= 0: chosen by the cost model.  level: the path level of
 * sgemm_new_paths (launch.h): 0 before issue 27, 1 without the matrix-vector rows, 2 with skinny-m16 / -m32,
 * 3 (this function's default) also the short tile, split under-filled skinny-n grids and the tiny-K row by
 * fill; 4 the short tile from M = 9 and no skinny-n for K <= 16; 5 level 4 and the "/pf" skinny rows
 * (skinny-m/pf, skinny-n/pf) in place of the rows of the same kind and tile; 6 level 5 with the skinny-n rows
 * priced by waves of latency-bound blocks (choose.cu sgemm_skinny_n6_ns), their own K split, none for K under
 * one k-tile; 7 (the knob's default, launch.cu) chooses as 6 (its /pf rows load A through L1); 8 (opt-in) level 7
 * and the matrix-vector rows (matvec-m2 / -m4 / -m8, matvec.cuh) for M <= 8, priced by sgemm_matvec_ns; 9 (opt-in)
 * level 8 and the short tile past M = 32 where M mod 64 is 1..32 (choose.cu sgemm_short_rows); 10 (opt-in) chooses as
 * 9 and takes the padded path where it beats the scalar path's price (sgemm_pad_choice). */
void sgemm_resolve(int64_t M, int64_t N, int64_t K, int sms, int config, int splits, smk_sgemm_choice *ch,
                   int level = 3);

/* Issue 27's tiny-K rule: the automatic choice runs the tiny-k kernel (tinyk.cuh) for M x N x K when K
 * is at most its panel depth and D's bytes are at least 4x those of A and B (writing D is the cost;
 * below that the operands' stream is, and the skinny kernels take it). */
bool sgemm_tinyk_route(int64_t M, int64_t N, int64_t K);

/* Issue 27's padded path for the tile kernel on rows off 16 bytes: which operands launch.cu copies
 * into 16-byte-pitched temporaries before the choice ch runs (SGEMM_PAD_A / _B), and whether D goes
 * through an aligned workspace and the split-K reduction (SGEMM_PAD_D; always when splits > 1).
 * a_al / b_al / dc_al: A, B, and D with C (when read) already on 16 bytes with ld % 4 == 0.  0: run
 * as before (the tile kernel's scalar path).  Pure: pads only TILE configs, only where the copies'
 * bytes and the kernels they add (kPadLaunchNs each) cost under kPadShare of the model's time of ch, and
 * the temporaries stay under kPadMaxBytes.  level: sgemm_new_paths' level (< 0: the launcher's); from 10 (opt-in)
 * the padded path is taken where its price beats the scalar path's (choose.cu sgemm_pad_pays10). */
enum { SGEMM_PAD_A = 1, SGEMM_PAD_B = 2, SGEMM_PAD_D = 4 };
int sgemm_pad_choice(int64_t M, int64_t N, int64_t K, int sms, const smk_sgemm_choice &ch, bool a_al, bool b_al,
                     bool dc_al, int level = -1);

} /* namespace smk */

#endif
