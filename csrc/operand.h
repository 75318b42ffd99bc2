/*
 * operand.h -- the one description of an array argument, host or device (smk_operand), the options
 * of a GEMM call, and the error a rule or a dispatch reports (smk_error).  No Python: py_operand.c
 * fills an smk_operand from a NumPy array or a CUDA array (CuPy, PyTorch, __cuda_array_interface__,
 * DLPack), and the layers above work on it:
 *
 *   py_operand.c: object -> smk_operand   (conversion only)
 *   rules.c:  smk_check_<op>(operands)    every rule: dtype, ndim, shapes, sizes, host/device mixing
 *             smk_need_<op>(...)          the bytes a call needs, host and device, before anything
 *   dispatch.c: smk_run_<op>(operands)    host operands through host.c, device ones on their stream
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
/* Byte size of n elements of esz bytes, saturating at SIZE_MAX (a saturated size never fits anywhere;
 * n < 0, an overflowed count, saturates too). */
size_t smk_bytes_of(int64_t n, int esz);
/* a + b, saturating at SIZE_MAX. */
size_t smk_add_sat(size_t a, size_t b);

/* ---- a GEMM call's options ------------------------------------------------------------------------ */
typedef struct {
    double alpha, beta;
    int layout;
    int config;                /* tile config (smk_sgemm_params.config / smk_gemm16_params.variant) */
    int splits;                /* sgemm: K slices (smk_sgemm_params.splits; 0 = chosen) */
    int swz_b, swz_m, swz_s;   /* gemm: an explicit Swizzle<B,M,S> (0,0,0: the layout's own) */
    int out_dtype;             /* gemm: SMK_DT_* of the result (SMK_DT_OTHER: the inputs') */
} smk_gemm_opts;

#ifdef __cplusplus
}
#endif

#endif /* SMK_OPERAND_H */
