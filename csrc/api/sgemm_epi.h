/*
 * api/sgemm_epi.h -- the SGEMM tile kernel's staged epilogue (csrc/sgemm/epilogue_staged.cuh): the knob and the
 * gate (csrc/sgemm/launch.cu; the rule: csrc/sgemm/epi.h).  Its own header, so the kernels that include
 * api/sgemm.h do not recompile for it.
 */
#ifndef SMK_API_SGEMM_EPI_H
#define SMK_API_SGEMM_EPI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Knob sgemm_epi: the tile kernel's epilogue, 0 (the default) from registers, 1 staged through shared memory
 * where smk_sgemm_epi_gate's level-1 rule says, 2 staged on every tile launch (tests), 3 the wider probe rule.
 * Process-wide. */
void smk_sgemm_set_epi(int level);

/* 1 where a tile launch of `config` over an M x N output, K deep per block, with output rows `rows` (2: D's, and
 * C's when read, all on 128-byte lines; 1: on 16 bytes, ld % 4 == 0; 0: neither) stores through shared memory
 * at knob level `knob`.  Pure. */
int smk_sgemm_epi_gate(int64_t M, int64_t N, int64_t K, int rows, int config, int knob);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_SGEMM_EPI_H */
