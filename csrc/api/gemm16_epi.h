/*
 * api/gemm16_epi.h -- the mma.sync kernel's epilogue rule with the output's width (gemm16_choose.c): knob gemm16_epi
 * level 4.  Its own header, so the kernels that include api/gemm16.h do not recompile for it.
 */
#ifndef SMK_API_GEMM16_EPI_H
#define SMK_API_GEMM16_EPI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a launch stages D (pure): smk_gemm16_epi_staged's answer at levels 0..3; at level 4 level 1's, and also
 * where K <= SMK_G16_EPI_MID_KMAX and N >= SMK_G16_EPI_MID_NMIN with pairs aligned (a block of a few k-tiles whose
 * D rows are whole tile rows: the register epilogue's 8-line pair stores are most of its time there). */
#define SMK_G16_EPI_MID_KMAX 256
#define SMK_G16_EPI_MID_NMIN 512
int smk_gemm16_epi_staged_n(int mode, int64_t N, int64_t K, int pairs_aligned, int out_f32, int beta_nonzero);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_GEMM16_EPI_H */
