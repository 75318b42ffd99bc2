/* api/sgemm_gemv.h -- the SGEMM's matrix-vector route's knob (csrc/sgemm/launch.cu g_gemv; route, kernels and
 * launcher: csrc/sgemm/gemv.h, csrc/sgemm/gemv.cuh, csrc/sgemm/gemv.cu).  Its own header: nothing else recompiles. */
#ifndef SMK_API_SGEMM_GEMV_H
#define SMK_API_SGEMM_GEMV_H

#ifdef __cplusplus
extern "C" {
#endif

/* Knob 'sgemm_gemv': 0 (the default) every SGEMM call on the chooser's kernels; 1 automatic calls (config and
 * splits not forced) with M == 1 or N == 1 and K >= 1 on the matrix-vector kernels.  Process-wide. */
void smk_sgemm_set_gemv(int level);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_SGEMM_GEMV_H */
