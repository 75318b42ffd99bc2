/*
 * api/sgemm_tinyk.h -- the tiny-K kernel's variant knob (csrc/sgemm/launch.cu; the kernels: csrc/sgemm/tinyk.cuh,
 * csrc/sgemm/tinyk_lean.cuh).  Its own header, so the kernels that include api/sgemm.h do not recompile for it.
 */
#ifndef SMK_API_SGEMM_TINYK_H
#define SMK_API_SGEMM_TINYK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Knob sgemm_tinyk: 0 (the default) tinyk.cuh's kernel; 1 the lean variant (tinyk_lean.cuh: per-lane pointers
 * computed once, the k loop cut at the slice's depth; D bit for bit the same) on slices no deeper than the
 * register panel.  Process-wide. */
void smk_sgemm_set_tinyk(int level);
int smk_sgemm_tinyk_level(void);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_SGEMM_TINYK_H */
