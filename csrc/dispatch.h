/*
 * dispatch.h -- one dispatch function per op (smk_run_*), after rules.h has accepted the call: host
 * operands go through host.c (upload, kernel, download), device operands are enqueued on their
 * library's stream (row-major copies first where a GEMM needs them).  Also the one check that asks the
 * driver about the operands' pointers (smk_check_placement).  No Python.
 */
#ifndef SMK_DISPATCH_H
#define SMK_DISPATCH_H

#include "operand.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every device operand with elements (NULL entries and host operands pass) is CUDA device memory on
 * the current device: ValueError naming fname and the operand otherwise.  Run before a result is
 * allocated, so a bogus pointer (a hand-made __cuda_array_interface__) is refused at no cost. */
int smk_check_placement(const char *fname, const smk_operand *const ops[], int n, smk_error *err);

/* out: a C-contiguous result of the same element size, on the same side as in. */
int smk_run_transpose(const char *fname, const smk_operand *in, const smk_operand *out, int layout, smk_error *err);
/* Host operands must be native, aligned and C-contiguous (py_operand.c makes staging copies); device
 * operands may have any element strides (non-row-major ones are copied on the device first).  c is
 * NULL when beta == 0 (not read, as in BLAS); d is the result. */
int smk_run_sgemm(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                  const smk_operand *d, const smk_gemm_opts *o, smk_error *err);
int smk_run_gemm16(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                   const smk_operand *d, const smk_gemm_opts *o, smk_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SMK_DISPATCH_H */
