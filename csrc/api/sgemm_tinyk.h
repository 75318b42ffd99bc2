/*
 * api/sgemm_tinyk.h -- the tiny-K kernel's variant knob (csrc/sgemm/launch.cu; the kernels: csrc/sgemm/tinyk.cuh,
 * csrc/sgemm/tinyk_lean.cuh).  Its own header, so the kernels that include api/sgemm.h do not recompile for it.
 */
#ifndef SMK_API_SGEMM_TINYK_H
#define SMK_API_SGEMM_TINYK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Knob sgemm_tinyk: 0 (the default) tinyk.cuh's kernel; 1 the lean variant (tinyk_lean.cuh: per-lane pointers
 * computed once, the register panel exactly as deep as the K slice; D bit for bit the same but for the sign of
 * an underflowed zero) where every K slice of the launch is as deep, 1..16.  Process-wide. */
void smk_sgemm_set_tinyk(int level);
/* Knob 'sgemm_narrow': 0 (the default) the SGEMM chooser as before; 1 it also offers the skinny-n16 / skinny-n32
 * rows for 8 < N <= 32 (csrc/sgemm/choose.cu sgemm_narrow_offer).  Process-wide. */
void smk_sgemm_set_narrow(int level);
/* Knob 'sgemm_redchain': 0 the SGEMM chooser prices a K split's reduction by its bytes; 1 (the default) also by
 * its chain of dependent loads (csrc/sgemm/choose.cu sgemm_reduce_chain_ns).  Process-wide. */
void smk_sgemm_set_redchain(int level);
/* Knob 'sgemm_model': 0 (the default) the SGEMM chooser's price of the tile rows as before (csrc/sgemm/choose.cu);
 * 1 on issue 27's mid class (M, N > 32, K > 16) the level-1 price fitted to the H100 tile grid
 * (csrc/sgemm/choose_fit.cu).  Process-wide. */
void smk_sgemm_set_model(int level);
int smk_sgemm_tinyk_level(void);

/* 1 where a tiny-K launch over K, in slices k_chunk deep, runs the lean kernel at knob level `level`: every
 * slice equally deep (K a multiple of the depth), 1..16.  Pure; the launch (sgemm/tinyk.cu) and explain()
 * (sgemm/plan.cu) both ask it. */
static inline int smk_sgemm_tinyk_lean(int64_t K, int64_t k_chunk, int level)
{
    const int64_t depth = K < k_chunk ? K : k_chunk;
    return level >= 1 && depth >= 1 && depth <= 16 && K % depth == 0;
}

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_SGEMM_TINYK_H */
