/*
 * api/gemm16.h -- the tensor-core GEMM's C API (gemm16.cu; the shape-based temporaries query in
 * gemm16_temp.c): params struct, launcher (a cudaError_t), the device bytes a launch borrows, the
 * variant and swizzle tables, and the access plan.
 */
#ifndef SMK_API_GEMM16_H
#define SMK_API_GEMM16_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "api/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/* The same bytes from the shape alone (gemm16_temp.c; pure, no CUDA): what smk_gemm16_launch borrows
 * for an M x N x K problem of `variant` whose A rows (a_rows_aligned) and B rows (b_rows_aligned)
 * start on 16 bytes (base 16-byte aligned and leading dimension a multiple of 8 elements).  Only
 * variant 0 copies, and only when A and B are read: pass K = 0 when alpha == 0.  0 for negative sizes
 * and for variants that do not copy. */
size_t smk_gemm16_temp_bytes_shape(int64_t M, int64_t N, int64_t K, int variant, int a_rows_aligned,
                                   int b_rows_aligned);
int smk_gemm16_num_variants(void);
/* Static text describing a variant ("128x256x32 block tile, 4 stages, ..."), NULL if out of range. */
const char *smk_gemm16_variant_name(int variant);
/* Block tile and stages of a variant; 0, or -1 if out of range (NULL pointers are skipped). */
int smk_gemm16_variant_geometry(int variant, int *bm, int *bn, int *bk, int *stages);
/* 1 if (b, m, s) is a swizzle the launcher instantiates ((0,0,0) = automatic counts), else 0. */
int smk_gemm16_supports_swizzle(int b, int m, int s);

/* The tensor-core GEMM's block: A / B cp.async stores (kind SMK_ACC_CPASYNC, width 16) and A
 * ldmatrix.x4 / B ldmatrix.x4.trans loads (SMK_ACC_LDSM_X4, width 16, lane l = the row address it
 * supplies), one k-tile of one block; repeats = blocks x k-tiles.  Same argument rules as
 * smk_gemm16_launch, for dense row-major operands from an aligned allocation on a device with `sms`
 * multiprocessors (variant 0 picks its tiles by the grid; rows are 16-byte aligned iff K and N are
 * multiples of 8: variant 0 pads such operands and runs cp.async, variants 1..7 stage them through
 * registers, and their A / B fills are then st.shared.v4 stores, kind SMK_ACC_LDST).  The cp.async
 * fills come in classes of (block, k-tile) with the edges' lanes off, plus the zero st.shared past
 * K, each with its repeats; cp.async accesses carry their global offsets (gaddr).  Independent of
 * dtype.  0 on success, -1 for bad arguments. */
int smk_gemm16_plan(int64_t M, int64_t N, int64_t K, int layout, int swz_b, int swz_m, int swz_s, int variant,
                    int sms, smk_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_GEMM16_H */
