/*
 * operand.h -- the one description of an array argument, host or device, the rules every op applies
 * to it, and one dispatch function per op.  No Python: module.c fills an smk_operand from a NumPy
 * array or a CUDA array (CuPy, PyTorch, __cuda_array_interface__, DLPack) and calls in here.
 *
 *   module.c: object -> smk_operand      (conversion only)
 *   smk_check_<op>(operands)             every rule: dtype, ndim, shapes, sizes, host/device mixing
 *   smk_need_<op>(...)                   the bytes a call needs, host and device, before anything
 *   smk_run_<op>(operands)               host operands through host.c, device ones on their stream
 *
 * Errors come back as an smk_error: the Python exception type to raise and its message (which names
 * the function and the argument), or a failed smk_status for CUDA errors.
 */
#ifndef SMK_OPERAND_H
#define SMK_OPERAND_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMK_MAX_NDIM 64

enum { SMK_LIB_NUMPY = 0, SMK_LIB_TORCH = 1, SMK_LIB_CUPY = 2, SMK_LIB_CAI = 3 };
enum { SMK_DT_OTHER = 0, SMK_DT_F32 = 1, SMK_DT_F16 = 2, SMK_DT_BF16 = 3 };

typedef struct {
    const char *arg;           /* the argument's name in messages: "a", "b", "c", "out" */
    void *ptr;                 /* address of element (0, ..., 0): host or device */
    int on_device;             /* 0: host memory (NumPy), 1: CUDA device memory */
    int lib;                   /* SMK_LIB_*: who made it (results are made by the same library) */
    int device;                /* CUDA ordinal as the library reports it; -1: inspect the pointer */
    uintptr_t stream;          /* device: the stream the producer's work is ordered on */
    int ndim;
    int64_t shape[SMK_MAX_NDIM];
    int64_t strides[SMK_MAX_NDIM]; /* in elements */
    int esz;                   /* bytes per element */
    char kind;                 /* NumPy's kind: b i u f c (V for other fixed-size types) */
    int dtype;                 /* SMK_DT_*: the dtypes the GEMMs compute in */
    char dtype_name[24];       /* for messages: "float32", "bfloat16", ">f4", ... */
    int native;                /* native byte order */
    int contiguous;            /* 1: C order, 2: Fortran order (2-D), 0: neither (or unaligned) */
    int writeable;
} smk_operand;

enum { SMK_ERR_NONE = 0, SMK_ERR_TYPE, SMK_ERR_VALUE, SMK_ERR_MEMORY, SMK_ERR_STATUS };

typedef struct {
    int type;                  /* SMK_ERR_* */
    smk_status status;         /* SMK_ERR_STATUS: the failed runtime call */
    char msg[640];
} smk_error;

/* Fill err (printf-style message) and return -1. */
int smk_fail(smk_error *err, int type, const char *fmt, ...);
/* err <- a failed status; returns -1 (0 and nothing set when s is SMK_OK). */
int smk_fail_status(smk_error *err, smk_status s);

/* "(3, 4)" of an operand's shape, for messages. */
const char *smk_shape_str(const smk_operand *a, char *buf, size_t n);
/* Elements of an operand (0 for an empty one); -1 when the count overflows int64. */
int64_t smk_numel(const smk_operand *a);

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
/* out: a C-contiguous result of the same element size, on the same side as in. */
int smk_run_transpose(const char *fname, const smk_operand *in, const smk_operand *out, int layout, smk_error *err);

/* ---- sgemm ---------------------------------------------------------------------------------------- */
typedef struct {
    double alpha, beta;
    int layout;
    int config;                /* tile config (smk_sgemm_params.config / smk_gemm16_params.variant) */
    int splits;                /* sgemm: K slices (smk_sgemm_params.splits; 0 = chosen) */
    int swz_b, swz_m, swz_s;   /* gemm: an explicit Swizzle<B,M,S> (0,0,0: the layout's own) */
    int out_dtype;             /* gemm: SMK_DT_* of the result (SMK_DT_OTHER: the inputs') */
} smk_gemm_opts;

/* c may be NULL.  Checks dtypes (float32, no silent casts), shapes, beta/c, sizes, and that the
 * operands live on one side (host or device), one library and one device. */
int smk_check_sgemm(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                    const smk_gemm_opts *o, smk_error *err);
void smk_need_sgemm(const smk_operand *a, const smk_operand *b, const smk_operand *c, const smk_gemm_opts *o,
                    int have_out, size_t *host_bytes, size_t *device_bytes);
/* Host operands must be native, aligned and C-contiguous (module.c makes staging copies); device
 * operands may have any element strides (non-row-major ones are copied on the device first). */
int smk_run_sgemm(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                  const smk_operand *d, const smk_gemm_opts *o, smk_error *err);

/* ---- gemm: the tensor-core GEMM on float16 / bfloat16 (float32 goes to sgemm) ----------------------- */
/* a and b of one 2-byte dtype; c (optional) and the result in o->out_dtype (float32, or the inputs'
 * dtype), never a silent cast; shapes, beta / c, sizes, one side / library / device. */
int smk_check_gemm16(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                     const smk_gemm_opts *o, smk_error *err);
void smk_need_gemm16(const smk_operand *a, const smk_operand *b, const smk_operand *c, const smk_gemm_opts *o,
                     int have_out, size_t *host_bytes, size_t *device_bytes);
int smk_run_gemm16(const char *fname, const smk_operand *a, const smk_operand *b, const smk_operand *c,
                   const smk_operand *d, const smk_gemm_opts *o, smk_error *err);

/* ---- out= ----------------------------------------------------------------------------------------- */
/* `out` receives a result of `ndim` x `shape` elements like `like` (same side, element size and kind;
 * dtype_name of the result for messages).  NumPy's rules: the exact shape and dtype, C-contiguous,
 * writeable, on the same side (and device) as the inputs, and sharing no memory with any of `ins`
 * (n of them, NULLs skipped) -- except an input that is exactly the same array as out when
 * `may_alias` says that one may be (sgemm's c with beta != 0, the BLAS convention). */
int smk_check_out(const char *fname, const smk_operand *out, const smk_operand *like, int ndim, const int64_t *shape,
                  int dtype, int esz, const char *dtype_name, const smk_operand *const *ins, int n,
                  const smk_operand *may_alias, smk_error *err);

/* ---- placement ------------------------------------------------------------------------------------ */
/* Every device operand with elements (NULL entries and host operands pass) is CUDA device memory on
 * the current device: ValueError naming fname and the operand otherwise.  Run before a result is
 * allocated, so a bogus pointer (a hand-made __cuda_array_interface__) is refused at no cost. */
int smk_check_placement(const char *fname, const smk_operand *const ops[], int n, smk_error *err);

/* ---- size checks ---------------------------------------------------------------------------------- */
/* MemoryError naming the bytes when a call cannot fit: host bytes past physical memory, device bytes
 * past what cudaMemGetInfo reports free (device_free == 0: not checked). */
int smk_check_fits(const char *fname, size_t host_bytes, size_t device_bytes, size_t device_free, smk_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SMK_OPERAND_H */
