/* TALL: the memory-bound path's schedule for a tall A and a tiny N (gemm16_mv_skinny bit 4, value 16; kernel:
 * gemm16_skinny.cu mv_tall_kernel).  Plain C, no CUDA; included by matvec.h only, after smk_mv_route and
 * smk_mv_cdiv (it is part of that header, kept apart for the house's file-length rule).
 *
 * Why (session 44, docs/GEMM16_NOTES.md "Session 44"; H100, seed 194, ratio to cuBLAS): SKINNY on M >= ~1000,
 * N <= 8 ran far below the DRAM bandwidth its bytes need: 8206x4x228 fp16 10.9 us against 4.2 (A is 3.7 MB,
 * ~1.3 us of DRAM), 5392x1x485 8.5 against 3.8, 11709x1x457 bf16 8.8 + a 2.2 us reduce against 6.0.  Its warp
 * owns 32 rows and keeps ONE 32-k group in flight while it multiplies the previous one: a warp's K walk is
 * cdiv(K, 32) dependent DRAM round trips (8206x4x228: 8 rounds of ~1 us) and only cdiv(M, 32) warps exist
 * (257: 65 blocks on 132 SMs); where that leaves SMs idle it splits K across blocks, and the split costs a
 * reduce launch (~2 us) -- or, in 8-warp blocks, 256-thread blocks of ~170 registers, one per SM, in 2 waves.
 *
 * Rule: a warp owns one m-tile (16 rows) and SMK_MV_TALL_DEPTH groups in flight (a ring: one DRAM round per
 * DEPTH groups); KW warps (1, 2, 4, 8) of one block walk KW K slices of the same m-tile and sum in-kernel
 * (one L2 round after the barrier), doubling KW while the warps are fewer than SMK_MV_TALL_WARPS (8 per SM:
 * 8 x 4 KB in flight per SM, about DRAM bandwidth x latency / 132) and each warp keeps at least one full ring
 * (DEPTH groups).  One launch, no fp32 partials, no reduce -- except where KW = 8 still leaves the warps short of
 * SMK_MV_TALL_WARPS (M < 2112) on an A of at least SMK_MV_TALL_SPLIT_BYTES: there S groups of KW slices across
 * blocks (grid y) reach the target, each slice still a full ring, and the reduce's ~2 us launch buys DRAM time
 * (1312x5x50728 bf16, 133 MB: 656 warps, ~2 TB/s by the in-flight bytes, ~66 us; S = 2, ~45 us).  Taken where
 * M >= SMK_MV_TALL_MMIN (64 m-tiles: at KW 8, 512 warps, 4 per SM; below that SKINNY's cross-block K split fills
 * the GPU better) and K > 16 (K <= 16 stays with the MMA kernel).  Unmeasured: the lead's A/B
 * (gemm16_mv_skinny 18 against 2) decides. */
#ifndef SMK_GEMM16_MATVEC_TALL_H
#define SMK_GEMM16_MATVEC_TALL_H

#define SMK_MV_TALL_DEPTH 4   /* 32-k groups in flight per warp (the kernel's register ring) */
#define SMK_MV_TALL_WARPS 1056 /* 132 SMs x 8 warps */
#define SMK_MV_TALL_MMIN 1024 /* the automatic route's shortest A (64 m-tiles) */
#define SMK_MV_TALL_KWMAX 8
#define SMK_MV_TALL_SPLIT_BYTES ((int64_t)32 << 20) /* A's DRAM time >= ~10 us: a 2 us reduce is worth more warps */

/* TALL geometry: tm = KW (warps per m-tile), nw = the block's warps (max(4, KW)), rpw = 16 rows per warp,
 * kc = k per slice (a multiple of 32), grid x = blocks of nw / KW m-tiles, y = splits S (groups of KW slices);
 * red_bytes = the blocks' scratch (KW > 1: nw x 4 x 32 floats each).  0 or -1. */
static inline int smk_mv_tall(int64_t M, int64_t N, int64_t K, smk_mv_route *r)
{
    const int64_t tiles = smk_mv_cdiv(M, 16), groups = smk_mv_cdiv(K, 32);
    int kw = 1;
    while (kw < SMK_MV_TALL_KWMAX && tiles * kw < SMK_MV_TALL_WARPS && smk_mv_cdiv(groups, 2 * kw) >= SMK_MV_TALL_DEPTH)
        kw *= 2;
    r->kind = SMK_MV_TALL;
    r->tm = kw;
    r->npad = 1;
    r->rpw = 16;
    r->nw = kw > 4 ? kw : 4;
    int64_t s = 1;
    if (tiles * kw < SMK_MV_TALL_WARPS && M * K * 2 >= SMK_MV_TALL_SPLIT_BYTES) {
        s = smk_mv_cdiv(SMK_MV_TALL_WARPS, tiles * kw);
        if (s > groups / (kw * SMK_MV_TALL_DEPTH)) s = groups / (kw * SMK_MV_TALL_DEPTH);
        if (s < 1) s = 1;
    }
    r->kc = smk_mv_cdiv(groups, kw * s) * 32;
    r->splits = smk_mv_cdiv(smk_mv_cdiv(K, r->kc), kw);
    r->grid[0] = smk_mv_cdiv(tiles, r->nw / kw), r->grid[1] = r->splits, r->grid[2] = 1;
    r->red_bytes = kw > 1 ? (uint64_t)r->grid[0] * (uint64_t)r->splits * (uint64_t)r->nw * 512u : 0u;
    return N > 8 || r->grid[0] > 0x7fffffffLL || r->splits > 65535 ? -1 : 0;
}

/* Bit 6 (value 64, session 44, the lead's measurement): TALL only on its winning class, the latency-bound SKINNY
 * launches -- A tall (M >= SMK_MV_TALL_SHORT_MMIN) and short (SMK_MV_TALL_SHORT_KMIN < K <= SMK_MV_TALL_SHORT_KMAX:
 * at most 6 rings of SKINNY's serial 32-k rounds).  H100, 69 shapes of the class (fp16 and bf16, 3 arms interleaved):
 * TALL won 14 of the 15 such shapes (8206x4x228 0.39 -> 0.62, 13834x4x257 bf16 0.72 -> 1.10) and lost on long K
 * (DRAM-bound, where SKINNY already ran at 1.0-1.4 of cuBLAS: 8959x3x19549 1.21 -> 0.72) and on M < ~4000 (2097x4x128
 * 0.82 -> 0.42).  Judged on held-out draws: docs/GEMM16_NOTES.md "Session 44". */
#define SMK_MV_TALL_SHORT_MMIN 4096
#define SMK_MV_TALL_SHORT_KMIN 40
#define SMK_MV_TALL_SHORT_KMAX 768

/* Whether gemm16_mv_skinny = level gives M x N x K to TALL (bit 4: N <= 8, M >= SMK_MV_TALL_MMIN, K > 16; with bit
 * 6 only M >= SMK_MV_TALL_SHORT_MMIN, SMK_MV_TALL_SHORT_KMIN < K <= SMK_MV_TALL_SHORT_KMAX). */
static inline int smk_mv_tall_takes(int64_t M, int64_t N, int64_t K, int level)
{
    if ((level & 64) && (M < SMK_MV_TALL_SHORT_MMIN || K <= SMK_MV_TALL_SHORT_KMIN || K > SMK_MV_TALL_SHORT_KMAX))
        return 0;
    return (level & 16) != 0 && N <= 8 && M >= SMK_MV_TALL_MMIN && K > 16;
}

#endif /* SMK_GEMM16_MATVEC_TALL_H */
