/* BLAS argument rules shared by the GEMM launchers: D = alpha * A @ B + beta * C, row-major, any
 * M, N, K >= 0.  P is a params struct with the BLAS fields (M, N, K, A, B, C, D, lda, ldb, ldc, ldd,
 * alpha, beta): smk_sgemm_params and smk_gemm16_params.  The family's own limits (index ranges,
 * layouts, dtypes) are checked by its launcher before this. */
#ifndef SMK_COMMON_GEMM_ARGS_H
#define SMK_COMMON_GEMM_ARGS_H

#include <stddef.h>

namespace smk {

/* Normalise q in place: 0 = launch q, 1 = nothing to do (an empty output), -1 = invalid.
 * alpha == 0 -> K = 0 (BLAS: A and B are not referenced) and K == 0 -> alpha = 0, so both give
 * D = beta * C exactly, even for alpha = Inf or NaN; beta == 0 -> C = NULL (never read). */
template <class P>
inline int gemm_normalise(P *q)
{
    if (q->M < 0 || q->N < 0 || q->K < 0) return -1;
    if (q->M == 0 || q->N == 0) return 1;
    if (!q->D || q->ldd < q->N) return -1;
    if (q->alpha == 0.f) q->K = 0;
    if (q->K == 0) q->alpha = 0.f;
    if (q->K > 0 && (!q->A || !q->B || q->lda < q->K || q->ldb < q->N)) return -1;
    const bool use_c = q->beta != 0.f;
    if (use_c && (!q->C || q->ldc < q->N)) return -1;
    if (!use_c) q->C = NULL;
    return 0;
}

} /* namespace smk */

#endif
