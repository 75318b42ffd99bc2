/*
 * api/splitk.h -- split-K's fused reduction (the tile kernels' last block per tile reduces: sgemm/fixup.cuh)
 * against the separate reduction kernel: the knob and the gates (sgemm/launch.cu, gemm16/gemm16_launch.cu).
 */
#ifndef SMK_API_SPLITK_H
#define SMK_API_SPLITK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Knob splitk_fixup: 0 the separate reduction kernel; 1 fused where the gate says; 2 fused on every split
 * launch of a tile kernel (SGEMM tile, GEMM16 mma.sync) whose tiles fit the counters (counters.h); 3 the
 * split launches of 2..8 slices as clusters that sum each tile together (sm_90).  Process-wide. */
void smk_sgemm_set_fixup(int level);

/* How an SGEMM split launch of tile config `config` over S slices of an M x N output finishes at knob
 * level `knob`: 0 the separate reduction, 1 the last block, 2 the tile's cluster (pure: no device; the
 * launcher takes 2 on sm_90 only). */
int smk_sgemm_fixup_gate(int64_t M, int64_t N, int S, int config, int knob);

/* The knob's level (smk_sgemm_set_fixup sets it for both families). */
int smk_splitk_fixup(void);

/* Knob splitk_fence: the fused reduction's ordering (common/splitk_fixup.cuh): 1 (the default) one
 * device-wide fence per block after a barrier, 0 one per thread.  Process-wide; both families. */
void smk_splitk_set_fence(int mode);
int smk_splitk_fence(void);

/* The same for a tensor-core GEMM split launch of variant `variant` (its mma.sync kernel's tiles). */
int smk_gemm16_fixup_gate(int64_t M, int64_t N, int S, int variant, int knob);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_SPLITK_H */
