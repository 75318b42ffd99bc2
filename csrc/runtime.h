/*
 * runtime.h -- what crosses between module.c (Python) and the CUDA side: plain params structs,
 * launchers that return cudaError_t values, and the runtime's status codes.  No Python here.
 *
 * Rules: no function calls exit(); every CUDA call is checked; a launcher returns the first CUDA
 * error it saw (cudaSuccess == 0) and leaves nothing allocated behind it.
 */
#ifndef SMK_RUNTIME_H
#define SMK_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status of a runtime operation ---------------------------------------------------------- */
enum {
    SMK_OK = 0,
    SMK_E_CUDA = 1,     /* a CUDA call failed: .cuda holds the cudaError_t */
    SMK_E_NOMEM = 2,    /* device allocation of .bytes failed */
    SMK_E_NODEVICE = 3, /* no usable GPU / driver: .cuda holds why */
    SMK_E_POISONED = 4, /* an earlier sticky error killed the context: .cuda holds that error */
};

typedef struct {
    int code;          /* SMK_OK, SMK_E_* */
    int cuda;          /* cudaError_t when relevant */
    size_t bytes;      /* bytes requested for SMK_E_NOMEM */
    const char *where; /* static string naming the step that failed */
} smk_status;

/* Make sure a usable device exists and the context is healthy (cheap after the first call). */
smk_status smk_rt_ready(void);
/* Record a CUDA error seen by a caller: maps it to a status and remembers sticky errors. */
smk_status smk_rt_fail(int cuda_err, const char *where);
/* Is this cudaError_t one that corrupts the context for good? */
int smk_rt_is_sticky(int cuda_err);
const char *smk_rt_error_name(int cuda_err);
const char *smk_rt_error_string(int cuda_err);
/* The sentence a caller shows for SMK_E_NODEVICE, into buf (always terminated): what is missing (no
 * NVIDIA driver at all / a driver older than the runtime smemkit was built with / a driver that sees no
 * GPU), that the kernels need a GPU and that the CPU side (bank model, explain, maps) does not. */
void smk_rt_no_device_text(int cuda_err, char *buf, size_t n);
/* 1 if a device is present and usable; never raises, never initialises more than needed. */
int smk_rt_device_count(void);
/* Device name of the current device into buf (empty on failure). */
void smk_rt_device_name(char *buf, size_t n);

static inline smk_status smk_ok(void)
{
    smk_status s = {0, 0, 0, 0};
    return s;
}

/* Device memory on the calling thread's per-thread stream (stream-ordered pool allocator). */
smk_status smk_rt_alloc(void **p, size_t bytes);
void smk_rt_free(void *p); /* NULL is fine; never fails visibly (errors are recorded) */
/* The same, ordered on a caller's stream (device arrays: temporaries live on the caller's stream). */
smk_status smk_rt_alloc_on(void **p, size_t bytes, cudaStream_t stream);
void smk_rt_free_on(void *p, cudaStream_t stream);
smk_status smk_rt_h2d(void *dst, const void *src, size_t bytes);
smk_status smk_rt_d2h(void *dst, const void *src, size_t bytes);
smk_status smk_rt_sync(void);
/* Row-pitched copies: `rows` rows of `row_bytes`, source/destination rows `*_pitch` bytes apart. */
smk_status smk_rt_h2d_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t row_bytes, size_t rows);
smk_status smk_rt_d2h_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t row_bytes, size_t rows);
/* Tests set this: every kernel output buffer is filled with 0xFF bytes (NaN for floats) first, so
 * an element the kernel forgets to write cannot pass a bit-exact comparison. */
void smk_rt_set_poison(int on);
int smk_rt_poisoning(void);
/* Fill `bytes` of an output buffer with 0xFF if poisoning is on; SMK_OK otherwise. */
smk_status smk_rt_poison(void *dst, size_t bytes);
smk_status smk_rt_poison_on(void *dst, size_t bytes, cudaStream_t stream);
cudaStream_t smk_rt_stream(void);
/* Map a launcher's cudaError_t to a status (SMK_OK for cudaSuccess). */
smk_status smk_rt_check_launch(int cuda_err, const char *where);
/* Release the pool's cached device memory back to the driver. */
smk_status smk_rt_trim(void);
/* Check that ptr is device (or managed) memory on the current device; *dev gets its device.
 * SMK_OK, or SMK_E_CUDA with .where saying what is wrong (host memory, other device). */
smk_status smk_rt_check_device_ptr(const void *ptr, int *dev, int *current);
/* Free and total device memory in bytes (cudaMemGetInfo). */
smk_status smk_rt_mem_info(size_t *free_bytes, size_t *total_bytes);
/* Tests only: launch a kernel that stores to an illegal address (debug.cu). */
int smk_debug_fault_launch(cudaStream_t stream);

/* ---- transpose ------------------------------------------------------------------------------ */
typedef struct {
    const void *in;    /* batch matrices of rows x cols elements: element (r, c) of matrix b at
                        * in[b*in_bs + r*in_rs + c*in_cs] (element strides; any sign for rs/cs) */
    void *out;         /* batch matrices of cols x rows, C-contiguous: matrix b at out + b*rows*cols
                        * elements, its element (c, r) at out[b*rows*cols + c*rows + r] */
    int64_t rows, cols;
    int64_t in_rs, in_cs; /* element strides of the input */
    int esz;           /* element size in bytes: smk_transpose_supports() says which (1, 2, 4, 8, 16) */
    int layout;        /* smk_layout */
    int64_t batch;     /* number of matrices, >= 1; 0 is read as 1 (callers that memset the struct) */
    int64_t in_bs;     /* element stride between consecutive input matrices (ignored when batch <= 1) */
} smk_transpose_params;

/* 1 if the transpose kernels move elements of `esz` bytes, else 0.  Bindings derive dtype acceptance
 * from this instead of retyping a list. */
int smk_transpose_supports(int esz);
/* Enqueue the transpose of every matrix of the batch on `stream`, in ONE launch.  Returns a
 * cudaError_t: cudaErrorInvalidValue for a bad esz, layout or negative size, cudaErrorInvalidConfiguration
 * when the grid would exceed the device limits (tiles per matrix > 2^31 - 1, or batch > 65535^2).
 * rows == 0 or cols == 0 launches nothing.  Any pointer alignment and strides work (1- and 2-byte rows
 * that do not start on a 4-byte boundary move as aligned words re-aligned in registers; misaligned
 * elements of 4 bytes and more, and non-unit column strides, fall back to element-wise accesses). */
int smk_transpose_launch(const smk_transpose_params *p, cudaStream_t stream);
/* The benchmark's tile sweep: variant 0 is the shipped kernel for p->esz, variant v >= 1 is row v of
 * the compiled tile shapes (each still runs all three layouts); row 0 is the shipped shape for 4 bytes. */
int smk_transpose_launch_variant(const smk_transpose_params *p, int variant, cudaStream_t stream);
int smk_transpose_num_variants(void);
/* Tests and benchmarks: 0 makes 1- and 2-byte rows that do not start on a 4-byte boundary take the
 * element-wise path again (default 1: whole words re-aligned in registers). */
void smk_transpose_set_odd_path(int on);
/* Tile edge and thread rows of a variant, in units (an element; a 4x4 byte / 2x2 half block for 1 / 2
 * bytes).  The first form answers for 4-byte elements. */
void smk_transpose_variant_geometry(int variant, int *tile, int *block_rows);
void smk_transpose_variant_geometry_esz(int variant, int esz, int *tile, int *block_rows);

/* ---- SGEMM ---------------------------------------------------------------------------------- */
/* D = alpha * A @ B + beta * C, all float32, row-major with leading dimensions in elements.
 * A: M x K (lda >= K), B: K x N (ldb >= N), C: M x N (ldc >= N, may be NULL when beta == 0),
 * D: M x N (ldd >= N).  C may alias D.  Any M, N, K >= 0. */
typedef struct {
    const float *A, *B, *C;
    float *D;
    int64_t M, N, K;
    int64_t lda, ldb, ldc, ldd;
    float alpha, beta;
    int layout; /* smk_layout */
    int config; /* tile config: 0 = chosen per shape and SM count, else smk_sgemm_config_name(config) */
    int splits; /* K slices (split-K): 0 = chosen per shape and SM count (smk_sgemm_choose's rule for
                 * the tile config in use), else forced; clamped to [1, ceil(K / BK)], and rounded so
                 * that every slice is a whole number of BK-deep k-tiles (the slices actually run are
                 * smk_sgemm_plan's "splits") */
} smk_sgemm_params;

/* Enqueue D = alpha*A@B + beta*C on `stream`.  With more than one K slice each block computes a
 * partial tile over its slice into an fp32 workspace allocated stream-ordered on `stream`
 * (smk_rt_alloc_on), a reduction kernel sums the slices and applies alpha and beta, and the
 * workspace is freed on `stream`: nothing synchronises.  Returns a cudaError_t (cudaErrorMemoryAllocation
 * when the workspace cannot be had). */
int smk_sgemm_launch(const smk_sgemm_params *p, cudaStream_t stream);

/* What smk_sgemm_launch runs for an M x N x K problem on a device with `sms` SMs when neither the
 * config nor the split is forced.  Pure: no CUDA call, no state; the same answer on any machine. */
typedef struct {
    int config;      /* index of the tile config (smk_sgemm_config_name), never 0 */
    int splits;      /* K slices, >= 1 and <= max(1, ceil(K / BK)) */
    int64_t k_chunk; /* depth of each slice but the last: a multiple of BK (K when splits == 1) */
} smk_sgemm_choice;
/* 0 on success, -1 for bad arguments (negative sizes, sms < 1, NULL choice). */
int smk_sgemm_choose(int64_t M, int64_t N, int64_t K, int sms, smk_sgemm_choice *choice);
/* The tile configs compiled in: index 0 is "auto"; the others can be forced (benchmarks, tests). */
int smk_sgemm_num_configs(void);
const char *smk_sgemm_config_name(int config);

/* ---- tensor-core GEMM, 2-byte inputs (gemm16.cu) -------------------------------------------- */
/* D = alpha * A @ B + beta * C.  A: M x K (lda >= K), B: K x N (ldb >= N), row-major, leading
 * dimensions in ELEMENTS; A and B are fp16 (dtype 0) or bf16 (dtype 1); accumulation in fp32; D (and
 * C, read only when beta != 0, may then alias D, NULL allowed when beta == 0) is M x N in the input
 * dtype (out_f32 == 0) or float32 (out_f32 == 1), ldc / ldd >= N.  Any M, N, K >= 0: M or N == 0
 * launches nothing; K == 0 (or alpha == 0) gives D = beta*C (zeros for beta == 0) without reading A
 * and B.  Any alignment: bases and leading dimensions that are multiples of 16 bytes take 16-byte
 * cp.async; anything else takes the same kernel with predicated 2-byte loads (same shared layout).
 *   layout   smk_layout (naive / pad / swizzle)
 *   swz_b, swz_m, swz_s   0,0,0 = the automatic swizzle of layout.h (A: Swizzle<2,3,3> for BK = 32,
 *            <3,3,3> for BK = 64; B panels <3,3,3>); otherwise an explicit CuTe Swizzle<B,M,S> on both
 *            tiles' element offsets, layout must be swizzle, and smk_gemm16_supports_swizzle() must
 *            say 1 ((2,3,2), (2,3,3), (3,3,3)); anything else is cudaErrorInvalidValue.
 *   variant  tile configuration, 0 .. smk_gemm16_num_variants()-1 (0 = the shipped default);
 *            smk_gemm16_variant_name() describes each. */
typedef struct {
    const void *A, *B, *C;
    void *D;
    int64_t M, N, K;
    int64_t lda, ldb, ldc, ldd;
    float alpha, beta;
    int dtype;   /* 0 fp16, 1 bf16 */
    int out_f32; /* 0: D and C in the input dtype; 1: float32 */
    int layout;  /* smk_layout */
    int swz_b, swz_m, swz_s;
    int variant;
} smk_gemm16_params;

/* Enqueue on `stream`; returns a cudaError_t (cudaErrorInvalidValue for bad params).  Variant 0 with
 * an A or B whose rows are not 16-byte aligned (base or leading dimension) first copies that operand
 * on `stream` into a stream-ordered temporary with rows padded to 16 bytes (smk_rt_alloc_on; freed on
 * `stream` behind the kernel, nothing synchronises); variants 1..5 read such rows in place through
 * registers.  cudaErrorMemoryAllocation when a temporary cannot be had. */
int smk_gemm16_launch(const smk_gemm16_params *p, cudaStream_t stream);
/* Device bytes of the temporaries smk_gemm16_launch(p) allocates (0 for none, or for invalid params):
 * what a caller's size check must count besides the operands. */
size_t smk_gemm16_temp_bytes(const smk_gemm16_params *p);
int smk_gemm16_num_variants(void);
/* Static text describing a variant ("128x256x32 block tile, 4 stages, ..."), NULL if out of range. */
const char *smk_gemm16_variant_name(int variant);
/* Block tile and stages of a variant; 0, or -1 if out of range (NULL pointers are skipped). */
int smk_gemm16_variant_geometry(int variant, int *bm, int *bn, int *bk, int *stages);
/* 1 if (b, m, s) is a swizzle the launcher instantiates ((0,0,0) = automatic counts), else 0. */
int smk_gemm16_supports_swizzle(int b, int m, int s);

/* ---- the SGEMM ceiling: cuBLAS through dlopen (ceiling.c) ---------------------------------------- */
int smk_cublas_load(const char **why, const char **path);
int smk_cublas_sgemm(const smk_sgemm_params *p, cudaStream_t stream);
/* cublasGemmEx, CUDA_R_16F / CUDA_R_16BF inputs, CUBLAS_COMPUTE_32F, output 16F/16BF or 32F as
 * p->out_f32 says; layout / swizzle / variant ignored.  When beta != 0 and C != D, C is copied into
 * D first (cuBLAS updates in place).  cuBLAS status (0 = ok), -1 if cuBLAS / cublasGemmEx is not
 * loaded, -3 for sizes beyond cuBLAS's int interface, 1000 + cudaError_t if the copy fails. */
int smk_cublas_gemm16(const smk_gemm16_params *p, cudaStream_t stream);

/* ---- device facts ------------------------------------------------------------------------------ */
smk_status smk_rt_device_info(int *sms, int *l2_bytes, int *cc_major, int *cc_minor);

/* ---- shared-memory access plans (CPU) -------------------------------------------------------
 * The shared-memory instructions one block of a kernel issues, replayed on the host by the kernel's
 * own index code (its thread map and smk_tile_offset), for the bank model.  Every block of a launch
 * issues the same pattern, so a launch is the block pattern times `repeats`.
 * Call once with every acc[i].addr == NULL to learn n and each n_instr; then point acc[i].addr at
 * n_instr * 32 long longs and call again to get the byte offsets (lane-major per instruction). */
#define SMK_PLAN_MAX 32
/* What instruction an smk_access is (bank_model.h's SMK_BANK_KIND_* use the same numbers):
 * LDS/STS, ldmatrix with 1 / 2 / 4 matrices (the lanes give the 16-byte row addresses), or the
 * shared-memory side of a 16-byte cp.async. */
enum { SMK_ACC_LDST = 0, SMK_ACC_LDSM_X1 = 1, SMK_ACC_LDSM_X2 = 2, SMK_ACC_LDSM_X4 = 3, SMK_ACC_CPASYNC = 4,
       SMK_ACC_CPASYNC_ZFILL = 5 /* cp.async with a src-size operand (LDGSTS.ZFILL) */ };

typedef struct {
    const char *name;  /* e.g. "tile row store" */
    int width;         /* bytes per lane: 4, 8, 16 */
    int is_store;
    int kind;          /* SMK_ACC_*: 0 (LDS/STS) unless the kernel says otherwise */
    int n_instr;       /* warp instructions in one block per repeat */
    long long repeats; /* per launch: blocks (SGEMM: the k-tiles of every block of every K slice) */
    long long *addr;   /* NULL, or n_instr * 32 byte offsets to fill (-1: the lane does not access) */
    long long *gaddr;  /* cp.async only: NULL, or n_instr * 32 global byte offsets of the lanes' 16-byte
                        * sources, relative to a 128-byte-aligned origin (-1 where addr is -1) */
} smk_access;

typedef struct {
    int n;                 /* accesses */
    smk_access acc[SMK_PLAN_MAX];
    char config[96];       /* the kernel configuration, in words */
    long long blocks;      /* blocks per launch */
    int threads;           /* threads per block */
    int smem_bytes;        /* shared memory per block */
} smk_plan;

/* 0 on success, -1 for bad arguments.  SGEMM picks its configuration (tile config and K split, as
 * smk_sgemm_params' config and splits) as smk_sgemm_launch does on a device with `sms`
 * multiprocessors; its blocks are those of every K slice, each access's repeats the k-tiles of all of
 * them, and the config string ends in ", splits S". */
int smk_transpose_plan(int64_t rows, int64_t cols, int esz, int layout, smk_plan *plan);
/* The same for a batch of `batch` matrices (one launch): blocks and repeats scale by batch. */
int smk_transpose_plan_batched(int64_t batch, int64_t rows, int64_t cols, int esz, int layout, smk_plan *plan);
int smk_sgemm_plan(int64_t M, int64_t N, int64_t K, int layout, int sms, int config, int splits, smk_plan *plan);
/* The tensor-core GEMM's block: A / B cp.async stores (kind SMK_ACC_CPASYNC, width 16) and A
 * ldmatrix.x4 / B ldmatrix.x4.trans loads (SMK_ACC_LDSM_X4, width 16, lane l = the row address it
 * supplies), one k-tile of one block; repeats = blocks x k-tiles.  Same argument rules as
 * smk_gemm16_launch, for dense row-major operands from an aligned allocation on a device with `sms`
 * multiprocessors (variant 0 picks its tiles by the grid; rows are 16-byte aligned iff K and N are
 * multiples of 8: variant 0 pads such operands and runs cp.async, variants 1..7 stage them through
 * registers, and their A / B fills are then st.shared.v4 stores, kind SMK_ACC_LDST).  The cp.async
 * fills come in classes of (block, k-tile) with the edges' lanes off, plus the zero st.shared past
 * K, each with its repeats; cp.async accesses carry their global offsets (gaddr).  Independent of
 * dtype. */
int smk_gemm16_plan(int64_t M, int64_t N, int64_t K, int layout, int swz_b, int swz_m, int swz_s, int variant,
                    int sms, smk_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* SMK_RUNTIME_H */
