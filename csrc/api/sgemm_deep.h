/*
 * api/sgemm_deep.h -- the SGEMM tile kernel's deep load pipeline (csrc/sgemm/tile_deep.cuh): the knob and the gate
 * (csrc/sgemm/launch.cu; the rule: csrc/sgemm/deep.h).  Its own header, so the kernels that include api/sgemm.h
 * do not recompile for it.
 */
#ifndef SMK_API_SGEMM_DEEP_H
#define SMK_API_SGEMM_DEEP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Knob sgemm_deep: 0 the tile kernel's two-stage register pipeline; 1 the deep cp.async pipeline of
 * the BK = 16 rows where the grid is at most 2 blocks per SM and K > 16; 2 at most 4 blocks per SM; 3 as 1, with
 * 64x64x16's launches on the deep 32x64x16 half tile; 4 every launch of those rows (tests); 5 as 4, 64x64x16's on
 * the half tile (tests); 6 (the default) as 3 where N >= 32.  Process-wide (csrc/sgemm/deep.h). */
void smk_sgemm_set_deep(int level);

/* 1 where a tile launch of `config` over an M x N output, K deep per block, in `splits` K slices on `sms` SMs
 * runs the deep pipeline of its own tile at knob level `knob`, 2 of the half tile, 0 neither.  Pure. */
int smk_sgemm_deep_gate(int64_t M, int64_t N, int64_t K, int splits, int config, int sms, int knob);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_SGEMM_DEEP_H */
