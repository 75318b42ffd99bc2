/*
 * rules.h -- what an op accepts and what it costs, before anything is allocated: the rules every op
 * applies to its operands (smk_check_*), out= (smk_check_out), the bytes a call needs on the host and
 * the device (smk_need_*) and whether they fit (smk_check_fits).  No Python; no device work (the
 * checks that ask the driver about a pointer are dispatch.c's smk_check_placement).  A NumPy array
 * and a CuPy array meet the same checks, in the same order, with the same messages.
 */
#ifndef SMK_RULES_H
#define SMK_RULES_H

#include "operand.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- transpose / matrix_transpose ---------------------------------------------------------------- */
/* batched = 0: transpose (a.T of a 2-D array); 1: matrix_transpose (the last two axes of ndim >= 2). */
int smk_check_transpose(const char *fname, const smk_operand *a, int batched, smk_error *err);
/* The result's shape: a's with the last two axes swapped. */
void smk_transpose_out_shape(const smk_operand *a, int64_t *shape);
/* Bytes a call needs: host (staging copy of an input that is not contiguous + the result) and
 * device (input + output).  For device operands: the device temporaries only (none here), as for
 * every smk_need_*: the result is allocated by the caller's library, which reports its own
 * out-of-memory. */
void smk_need_transpose(const smk_operand *a, int have_out, size_t *host_bytes, size_t *device_bytes);

/* ---- sgemm ---------------------------------------------------------------------------------------- */
/* c may be NULL.  Checks dtypes (float32, no silent casts), shapes, beta/c, sizes, and that the
 * operands live on one side (host or device), one library and one device. */
int smk_check_sgemm(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                    const smk_gemm_opts *o, smk_error *err);
void smk_need_sgemm(const smk_operand *a, const smk_operand *b, const smk_operand *c, const smk_gemm_opts *o,
                    int have_out, size_t *host_bytes, size_t *device_bytes);

/* ---- gemm: the tensor-core GEMM on float16 / bfloat16 (float32 goes to sgemm) ----------------------- */
/* a and b of one 2-byte dtype; c (optional) and the result in o->out_dtype (float32, or the inputs'
 * dtype), never a silent cast; shapes, beta / c, sizes, one side / library / device. */
int smk_check_gemm16(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                     const smk_gemm_opts *o, smk_error *err);
void smk_need_gemm16(const smk_operand *a, const smk_operand *b, const smk_operand *c, const smk_gemm_opts *o,
                     int have_out, size_t *host_bytes, size_t *device_bytes);
/* SMK_DT_* of a GEMM's result: o->out_dtype, or a's when that is SMK_DT_OTHER. */
int smk_gemm_out_dtype(const smk_operand *a, const smk_gemm_opts *o);

/* What the GEMM kernels read for a 2-D device operand x: x itself when it is row-major (unit column
 * stride, row stride >= cols; *ld its row stride), and 0 is returned; else the bytes of the row-major
 * copy dispatch.c makes (*ld = cols; the copy's base is the allocator's, 256-byte aligned). */
size_t smk_rowmajor_copy_bytes(const smk_operand *x, int64_t *ld);

/* ---- out= ----------------------------------------------------------------------------------------- */
/* `out` receives a result of `ndim` x `shape` elements like `like` (same side, element size and kind;
 * dtype_name of the result for messages).  NumPy's rules: the exact shape and dtype, C-contiguous,
 * writeable, on the same side (and device) as the inputs, and sharing no memory with any of `ins`
 * (n of them, NULLs skipped) -- except an input that is exactly the same array as out when
 * `may_alias` says that one may be (sgemm's c with beta != 0, the BLAS convention). */
int smk_check_out(const char *fname, const smk_operand *out, const smk_operand *like, int ndim, const int64_t *shape,
                  int dtype, int esz, const char *dtype_name, const smk_operand *const *ins, int n,
                  const smk_operand *may_alias, smk_error *err);

/* ---- size checks ---------------------------------------------------------------------------------- */
/* MemoryError naming the bytes when a call cannot fit: host bytes past physical memory, device bytes
 * past what cudaMemGetInfo reports free (device_free == 0: not checked). */
int smk_check_fits(const char *fname, size_t host_bytes, size_t device_bytes, size_t device_free, smk_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SMK_RULES_H */
