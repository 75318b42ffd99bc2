/* MROW: ROWS' class (M <= 8, B the stream) on tensor cores over the whole GPU (gemm16_mv_level bits 9 and 10,
 * values 512 and 1024; gemm16_matvec=8 forces it on every M <= 8).  Included by matvec.h (plain C, a pure
 * function of M, N, K and the level: no CUDA, no SM count, no alignment); gemm16_mrow.cu computes.
 *
 * Why (seed 203, H100, the acceptance's method): ROWS spends ~165 warp instructions per B row of 248 columns at
 * TM = 8 (funnel shifts, TM A shuffles, 8 TM FMAs), so its M = 6 .. 8 calls are issue-bound, not memory-bound:
 * 8x12336x2700 fp16 mv_rows 67.8 us + reduce 2.5 for a 66.6 MB B (~1 TB/s; cuBLAS 35.8 us), 6x9562x2872 bf16 1.3
 * TB/s; and a narrow N leaves most of a 248-column warp idle (6x30x57969 21.1 us for 3.5 MB, 6x137x1288 9.3 us,
 * 7x79x22120 15.6 us).  MROW computes D^T = B^T A^T with mma.sync m16n8k16: a warp owns 64 columns of B (4 m-tiles
 * of D^T) x all M <= 8 (one n-tile of D^T), reads B as 16-byte row chunks (a warp instruction: 4 rows x 128
 * contiguous bytes), pairs two rows' words by byte permutes into the A operand and takes A's pairs as the B
 * operand: ~4 instructions per 16-byte chunk whatever M is.  Warps are (column strip, K slice) pairs numbered
 * strip-fastest, so neighbouring warps read neighbouring bytes of the same B rows, and a narrow N still fills
 * every block.
 *
 * Split: a block's 4 warps take 4 consecutive K slices of one strip and sum them in the block (global scratch,
 * one L2 round after a barrier); G groups of 4 slices per strip, G = floor(SMK_MV_MROW_BLOCKS / strips) (one wave of
 * 4 blocks per SM: __launch_bounds__(128, 4), 116-122 registers; floor, not ceil: a few blocks past the wave would
 * double the time), at least 1, slices of >= 32 k, the fp32 partials (G M N 4 bytes, summed by mv_reduce_kernel)
 * at most a quarter of B's bytes (half where B is at most SMK_MV_SMALL_BYTES: latency, not bytes, bounds the call),
 * and G <= 256 (seeds 194 / 203: the reduce takes ~2.0-2.5 us up to ~50 partials, ~3-4 us at 250-390).  G == 1 is
 * one launch.  Little's law: ~3 TB/s x ~1 us = ~3 MB in flight; a wave of 2112 warps with 2-8 KB of B each in
 * flight (one 16- or 32-k stage ahead of the one being multiplied) holds 4-16 MB.
 *
 * Which calls (level): bit 9 (512) every M <= 8 call whose ROWS route (as the other bits give it) pays a reduce
 * launch (S > 1), so no call gains a launch; bit 10 (1024, with 512) every M <= 8 call. */
#ifndef SMK_GEMM16_MATVEC_MROW_H
#define SMK_GEMM16_MATVEC_MROW_H

#define SMK_MV_MROW_COLS 64     /* columns of B per warp (8 lanes x 8 elements) */
#define SMK_MV_MROW_BLOCKS 528   /* 132 SMs x 4 blocks of 4 warps: one wave */
#define SMK_MV_MROW_GRAN 32      /* a K slice is a multiple of the kernel's stage (16 or 32 k) */
#define SMK_MV_MROW_MAX_GROUPS 256 /* partial sums the reduce adds per output (its time grows past ~256) */

/* MROW geometry (grid: x = strips x G blocks, strip-fastest; block = 4 warps on 4 consecutive K slices of one
 * strip, summed in the block through a global scratch, matvec_sum.cuh mv_block_sum_spread): 0 or -1.  r->splits = G,
 * the fp32 partial groups the reduce sums (G == 1: one launch); r->kc the k per warp. */
static inline int smk_mv_mrow(int64_t M, int64_t N, int64_t K, smk_mv_route *r)
{
    r->kind = SMK_MV_MROW;
    r->tm = (int)M;
    r->npad = 1;
    r->rpw = SMK_MV_MROW_COLS;
    r->nw = 4;
    r->spread = 1;
    const int64_t strips = smk_mv_cdiv(N, SMK_MV_MROW_COLS), small = K * N * 2 <= SMK_MV_SMALL_BYTES;
    int64_t g = SMK_MV_MROW_BLOCKS / strips;
    const int64_t by_k = smk_mv_cdiv(K, 4 * SMK_MV_MROW_GRAN), by_ws = K / ((small ? 4 : 8) * M);
    if (g > by_k) g = by_k;
    if (g > by_ws) g = by_ws;
    if (g > SMK_MV_MROW_MAX_GROUPS) g = SMK_MV_MROW_MAX_GROUPS;
    if (g < 1) g = 1;
    r->kc = smk_mv_cdiv(smk_mv_cdiv(K, 4 * g), SMK_MV_MROW_GRAN) * SMK_MV_MROW_GRAN;
    r->splits = smk_mv_cdiv(smk_mv_cdiv(K, r->kc), 4);
    r->grid[0] = strips * r->splits, r->grid[1] = 1, r->grid[2] = 1;
    r->red_bytes = (uint64_t)r->grid[0] * 4u * 16u * 32u * 4u;
    return M > 8 || r->grid[0] > 0x7fffffffLL ? -1 : 0;
}

/* Whether the level gives an M <= 8 call whose ROWS route is `rows` to MROW. */
static inline int smk_mv_mrow_takes(const smk_mv_route *rows, int level)
{
    return (level & 512) != 0 && ((level & 1024) != 0 || rows->splits > 1);
}

/* M <= 8: ROWS as the level gives it, or MROW where smk_mv_mrow_takes says (level bits 9, 10: matvec_mrow.h). */
static inline int smk_mv_rows_or_mrow(int64_t M, int64_t N, int64_t K, int kmax, int level, smk_mv_route *r)
{
    const int rc = smk_mv_rows_level(M, N, K, kmax, level, r);
    if (rc != 0 || !smk_mv_mrow_takes(r, level))
        return rc;
    smk_mv_route z = {0};
    *r = z;
    return smk_mv_mrow(M, N, K, r);
}

#endif /* SMK_GEMM16_MATVEC_MROW_H */
