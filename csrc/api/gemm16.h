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

/* Enqueue on `stream`; returns a cudaError_t (cudaErrorInvalidValue for bad params).  Variant 0 runs
 * smk_gemm16_choose's answer: its tile; an A or B whose rows are not 16-byte aligned (base or leading
 * dimension) either read in place through registers or first copied on `stream` into a stream-ordered
 * temporary with rows padded to 16 bytes; and a split K: fp32 partial tiles in a stream-ordered
 * workspace, then one reduction kernel (smk_rt_alloc_on; everything freed on `stream` behind the
 * kernels, nothing synchronises).  Variants 1..9 read unaligned rows in place and never split;
 * SMK_GEMM16_VARIANT_PRE28 is variant 0 before the chooser.  cudaErrorMemoryAllocation when a
 * temporary cannot be had. */
int smk_gemm16_launch(const smk_gemm16_params *p, cudaStream_t stream);
/* Device bytes of the temporaries smk_gemm16_launch(p) allocates on a device of `sms` multiprocessors
 * (padded copies of unaligned rows, split-K's workspace; 0 for none, or for invalid params): what a
 * caller's size check must count besides the operands.  sms <= 0: the current device's. */
size_t smk_gemm16_temp_bytes(const smk_gemm16_params *p, int sms);
/* The same bytes from the shape alone (gemm16_temp.c; pure, no CUDA): what smk_gemm16_launch borrows
 * for an M x N x K problem of `variant` on `sms` multiprocessors (<= 0: 132) whose A rows
 * (a_rows_aligned) and B rows (b_rows_aligned) start on 16 bytes (base 16-byte aligned and leading
 * dimension a multiple of 8 elements).  Only variant 0 and SMK_GEMM16_VARIANT_PRE28 borrow, and only
 * when A and B are read: pass K = 0 when alpha == 0.  0 for negative sizes and other variants. */
size_t smk_gemm16_temp_bytes_shape(int64_t M, int64_t N, int64_t K, int variant, int a_rows_aligned,
                                   int b_rows_aligned, int sms);
/* The current device's multiprocessors as the launcher sees them (cached per device), 0 when unknown. */
int smk_gemm16_device_sms(void);
/* The last variant: variant 0 as it was before issue #28 (unaligned rows always copied padded, 128x256x64
 * or 128x128x64 by the grid, no split), kept for the A/B against the chooser. */
#define SMK_GEMM16_VARIANT_PRE28 10
/* Variant 0's choice for one launch (gemm16_choose.c; pure, no CUDA): the tile configuration (as the
 * variant number that runs it alone), the K split (splits slices of k_chunk columns, the last shorter;
 * 1 = none: fp32 partials in a stream-ordered workspace, then one reduction applying alpha, beta, C and
 * the output rounding) and which unaligned operands are copied padded (pad_a, pad_b; an unaligned
 * operand not copied is read in place through registers), by a wave-quantization cost model (est_ns)
 * of an M x N x K product on `sms` multiprocessors whose A / B rows are (not) 16-byte aligned. */
typedef struct {
    int variant, splits;
    int64_t k_chunk;
    int pad_a, pad_b;
    double est_ns;
} smk_gemm16_choice;
void smk_gemm16_choose(int64_t M, int64_t N, int64_t K, int sms, int a_rows_aligned, int b_rows_aligned,
                       smk_gemm16_choice *ch);
/* The device bytes of a choice: padded copies (*pad_bytes) + split-K workspace (*ws_bytes), saturating. */
size_t smk_gemm16_choice_bytes(int64_t M, int64_t N, int64_t K, const smk_gemm16_choice *ch, size_t *pad_bytes,
                               size_t *ws_bytes);
/* The workspace's row pitch in floats: N rounded up to 4 (16-byte rows). */
int64_t smk_gemm16_ws_ldw(int64_t N);
/* The tiles variant 0 chooses from: X(variant, BM, BN, BK, blocks per SM, relative MMA rate in percent);
 * gemm16_launch.cu checks each against tiles.h. */
#define SMK_G16_CHOOSER_TILES(X) X(1, 128, 256, 64, 1, 100) X(6, 128, 128, 64, 1, 88) X(8, 64, 128, 64, 2, 80) \
    X(9, 64, 64, 64, 3, 62)
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
 * K, each with its repeats; cp.async accesses carry their global offsets (gaddr).  Where the
 * gemm16_epi knob stages D (smk_gemm16_epi_staged for a 2-byte D with beta == 0, ldd = N, no split),
 * two more per block: the D tile's 4-byte fragment stores and its 16-byte row reads (kind
 * SMK_ACC_LDST).  Independent of dtype.  0 on success, -1 for bad arguments. */
int smk_gemm16_plan(int64_t M, int64_t N, int64_t K, int layout, int swz_b, int swz_m, int swz_s, int variant,
                    int sms, smk_plan *plan);

/* The mma.sync kernel's epilogue (smemkit._testing.knobs(gemm16_epi=...), issue #28): 0 (default) the
 * register epilogue (gemm16/epilogue.cuh); 1 the staged row epilogue (gemm16/epilogue_rows.cuh) where
 * D is 2-byte, beta == 0 and either D's column pairs are not 4-byte aligned (odd ldd, D off 4 bytes)
 * or K <= SMK_G16_EPI_KMAX; 2 staged wherever it can run (2-byte D, beta == 0, no split-K partials);
 * 3 as 1, and variant 0 routes TINYK's big outputs to the tiles (gemm16/matvec.h smk_mv_route_epi).
 * smk_gemm16_set_epi returns -1 for anything else.  Process-wide, read at launch and by the plan. */
#define SMK_G16_EPI_KMAX 64
extern volatile int smk_gemm16_epi;
int smk_gemm16_set_epi(int mode);
/* Whether a launch under epilogue mode `mode` stages D (pure): pairs_aligned = D's (even, odd) column
 * pairs are 4-byte aligned words (D % 4 == 0 and ldd even), out_f32 / beta_nonzero as launched. */
int smk_gemm16_epi_staged(int mode, int64_t K, int pairs_aligned, int out_f32, int beta_nonzero);

/* The staged (in-place) load path of variant 0's 64x64 tiles (smemkit._testing.knobs(gemm16_staged=...),
 * issue #28's small calls): 0 (default) one k-tile of loads in flight per block (gemm16/load_staged.cuh);
 * 1 SMK_G16_DEEP k-tiles in flight (gemm16/load_deep.cuh, one block per SM) where
 * smk_gemm16_staged_deep says; 2 as 1, and a split the chooser made only for K (2..SMK_G16_DEEP_NOSPLIT
 * k-tiles of 64) is dropped where the deep path runs (no reduction launch); 3 (tests) the deep path on
 * every in-place 64x64 launch, forced variant 9 included, any grid or K.  smk_gemm16_set_staged
 * returns -1 for anything else.  Process-wide, read at launch and by the plan. */
#define SMK_G16_DEEP 4
/* Knob gemm16_shortk (smemkit._testing.knobs(gemm16_shortk=...)): 0 the chooser as it models; 1 (the default) its
 * one-slice, uncopied 128x256 / 128x128-1-per-SM choices with K <= SMK_G16_SHORTK_KMAX retiled to 128x128 at
 * 2 blocks per SM (variant 4), or 64x64 (variant 9) where 128x128's grid is within one block per SM
 * (gemm16_choose.c shortk_retile).  Read inside smk_gemm16_choose, so launch, plan and size checks agree. */
#define SMK_G16_SHORTK_KMAX 64
extern volatile int smk_gemm16_shortk;
int smk_gemm16_set_shortk(int mode);
#define SMK_G16_DEEP_NOSPLIT 8
extern volatile int smk_gemm16_staged;
int smk_gemm16_set_staged(int mode);
/* Whether variant 0's launch of `variant` over `splits` slices of k_chunk columns of an M x N output,
 * rows read in place (in_place: some operand unaligned and not copied), runs the deep staged path at
 * knob level `mode` (pure): the 64x64 tile (variant 9), at least 2 k-tiles per slice, and the grid
 * (tiles x splits) within one wave of `sms` (one block per SM: the deep path's registers). */
int smk_gemm16_staged_deep(int mode, int64_t M, int64_t N, int64_t k_chunk, int splits, int variant, int in_place,
                           int sms);
/* Level 2's split drop (pure): ch as smk_gemm16_choose made it for an M x N x K product, rows read in
 * place where in_place; returns 1 and sets ch to one slice where the deep path then runs it whole. */
int smk_gemm16_staged_unsplit(int mode, int64_t M, int64_t N, int64_t K, int in_place, int sms,
                              smk_gemm16_choice *ch);

/* Knob gemm16_narrow_async (smemkit._testing.knobs(gemm16_narrow_async=...)): rows not 16-byte aligned but
 * aligned to 8 bytes (K or N % 4 == 0) or 4 bytes (% 2 == 0), read in place, are copied by cp.async of 8 / 4
 * bytes into the same shared tiles (gemm16/load_narrow.cuh) instead of the register-staged loads: 0 off; 1 on the K-heavy in-place launches (a split K, or one slice of >= SMK_G16_NARROW_KT k-tiles of 64);
 * 2 on every in-place launch (forced variants too); 3 (session 44's default; 1 since session 45) as 1 with a split launch's slices at
 * least SMK_G16_NARROW_KT_SPLIT k-tiles deep.  Tiles: variants 1, 4, 6, 8, 9 (the chooser's); such a
 * launch never takes the deep / half-tile loads or the fused reduction (the separate one sums its slices). */
#define SMK_G16_NARROW_KT 16
#define SMK_G16_NARROW_KT_SPLIT 8 /* level 3: a split launch's slices at least 8 k-tiles (512) deep */
extern volatile int smk_gemm16_narrow_async;
int smk_gemm16_set_narrow_async(int mode);
/* The narrow launch's widths (A's | B's << 8, each 4, 8 or 16 bytes: dispatch.h row_width) at knob level
 * `mode` for `variant` over `splits` slices of k_slice columns, or 0 where the staged path runs (pure).
 * wa / wb: the widest cp.async each operand's rows allow (2: none); both 16 is the aligned path's, 0. */
int smk_gemm16_narrow(int mode, int variant, int64_t k_slice, int splits, int wa, int wb);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_GEMM16_H */
