/* api/sgemm_rows_n.h -- the knob of the SGEMM's narrow-N rows route (csrc/sgemm/launch.cu g_rows_n; route, kernel
 * and launcher: csrc/sgemm/rows_n.h, csrc/sgemm/rows_n.cuh, csrc/sgemm/rows_n.cu).  Its own header: nothing else
 * recompiles. */
#ifndef SMK_API_SGEMM_ROWS_N_H
#define SMK_API_SGEMM_ROWS_N_H

#ifdef __cplusplus
extern "C" {
#endif

/* Knob 'sgemm_rows_n': 0 (the default) the chooser's kernels; 1 automatic calls (config and splits not forced) with
 * 9 <= N <= 32, M >= 1024 and K >= 17 on the narrow-N rows kernel; 2 as 1 for 2 <= N <= 32; 3 as 1 with 4, 2
 * or 1 rows of A a warp by a price; 4 as 3 with the rows a warp by the warps alone (csrc/sgemm/rows_n.h).
 * Process-wide. */
void smk_sgemm_set_rows_n(int level);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_SGEMM_ROWS_N_H */
