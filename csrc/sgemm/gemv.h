/*
 * sgemm/gemv.h -- the SGEMM's matrix-vector route (issue 27, knob sgemm_gemv): N == 1 (y = alpha A x + beta c,
 * "rows": a group of G lanes per row of A) and M == 1 (y^T = alpha x^T B + beta c^T, "cols": lanes own float4
 * column groups of B, a block's warps split its K slice and sum in shared memory).  The kernels: gemv.cuh;
 * the launcher and this route: gemv.cu.  Host C++ (launch.cu and plan.cu ask the route; no kernel includes it).
 *
 * Why not the matvec rows of level 8 (matvec.cuh), which lost on every M <= 8 draw they took (seed 123, and
 * x0.76 over 29 draws later): one block per 128-column strip and no other parallelism unless the chooser
 * split K, so 1x8833x2381 ran 70 blocks on 132 SMs (62 idle: its price took 70 strips x 16 warps x 8
 * batches of 512 B as "32 KB in flight per SM, enough" and never split); and a strip of 128 columns wastes
 * most lanes where N is a few hundred (1x263x13808: 3 strips, the third 7 columns of 128), which forced a
 * K split into hundreds of slices and the reduction's chain.  Here the column strip is as narrow as the
 * output wants (32, 64 or 128 columns: a warp reads 4, 2 or 1 rows of B per instruction, 128-byte lines
 * each), and the K split is sized to put ~4 blocks of 8 warps on every SM, capped at 64 slices (the
 * reduction's one round trip, choose.cu sgemm_reduce_chain_ns).
 */
#ifndef SMK_SGEMM_GEMV_H
#define SMK_SGEMM_GEMV_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "api/sgemm.h" /* smk_sgemm_params, smk_plan */
#include "api/sgemm_gemv.h"

namespace smk {

struct SgemmSlice; /* sgemm/launch.h */

enum { SGEMV_NONE = 0, SGEMV_ROWS = 1, SGEMV_COLS = 2, SGEMV_WIDE = 3 };

constexpr int kGemvThreads = 256;  /* 8 warps per block, both kernels */
constexpr int kGemvColsWarps = 8;  /* cols: the warps that split a block's K slice */
constexpr int kGemvMaxSplits = 64; /* reduce.cuh: S <= 64 is one round trip of its lanes (16 per group) */
/* WIDE: the most K slices for M rows at V columns a lane: the fused tail loads S / 8 slices of each of a lane's M V
 * sums in one round trip, <= 32 loads (16 slices at M V <= 2, else 8: more spilled 4 bytes at 64 registers). */
constexpr int wide_max_splits(int m, int v) { return m * v <= 2 ? 128 : 64; }
constexpr int kWideMinRows = 32;    /* WIDE: a K slice >= 4 rows of B per warp */

/* The route of one call: which kernel, its lane geometry, and the K split (slices k_chunk deep, a multiple of
 * 16 so that every slice starts on 16 bytes wherever the operand's rows do). */
struct SgemvRoute {
    int kind;        /* SGEMV_NONE / _ROWS / _COLS / _WIDE */
    int g;           /* ROWS: lanes per row of A (8, 16, 32); COLS: float4 column groups per warp row (8, 16, 32);
                        WIDE: columns per lane (1, 4), a strip of 32 g columns */
    int splits;      /* K slices (grid y), 1..kGemvMaxSplits (WIDE: wide_max_splits(m, g)) */
    int64_t k_chunk; /* depth of every slice but the last */
    long long blocks_x;
    int fused;       /* 1: a split's slices summed by the last block of each grid column (knobs 2, 4, 5), no reduce;
                        2: as 1, the light count (knob 7) */
    int m;           /* WIDE: rows of the output (1..4) */
};

/* The fused tail's arguments (knob 2, gemv.cuh gemv_arrive): the arrival counters (counters.h; NULL: no tail, the
 * separate reduction or no split) and the caller's output, which the last block of a grid column writes. */
struct SgemvTail {
    unsigned *counters;
    float *D;
    const float *C;
    int64_t ldd, ldc;
    float alpha, beta;
    int light; /* WIDE at knob 7: the count as one acq_rel atomic after the barrier, no fences (gemv_wide.cuh) */
};

/* Pure (no CUDA call, no state): the route for an M x N x K call (after gemm_args' normalisation) at knob
 * level `knob` on `sms` SMs; kind SGEMV_NONE where the call keeps the chooser's tile / skinny kernels (knob 0,
 * K == 0, neither M nor N is 1). */
SgemvRoute sgemv_route(int64_t M, int64_t N, int64_t K, int sms, int knob);
/* The route at `knob` with its K slices forced to `splits` (the measured choice's candidates, tune.cu): the slice
 * depth rounded as the route rounds it (WIDE: 8 rows, ROWS: 16), at most the route's maximum, the ROWS lanes and
 * the fused tail re-derived; SGEMV_NONE where the route is. */
SgemvRoute sgemv_route_splits(int64_t M, int64_t N, int64_t K, int sms, int knob, int splits);

/* Enqueue the route r of the validated, normalised q on `stream` (a K split through a stream-ordered workspace
 * and reduce.cuh's kernel). */
int sgemv_launch(const smk_sgemm_params &q, const SgemvRoute &r, int sms, bool pdl, cudaStream_t stream);

/* explain()'s plan of route r (plan.cu): the cols kernel's cross-warp sum, once per block; nothing for rows. */
int sgemv_plan(const SgemvRoute &r, int layout, smk_plan *plan);

/* gemv_wide.cu: one launch of the WIDE kernel (gemv_wide.cuh) for q.M <= 4 rows on `grid` (cudaErrorInvalidValue
for a geometry it has no instance of). */
int sgemv_wide_launch(const smk_sgemm_params &q, const SgemvRoute &r, dim3 grid, const SgemmSlice &sl,
                      const SgemvTail &t, cudaStream_t st);

/* launch.cu's split-K reduction (reduce.cuh) of S partial outputs at ws (slice stride, row pitch ldw) into q's D. */
int sgemm_reduce_launch(const smk_sgemm_params &q, const float *ws, int64_t stride, int64_t ldw, int S, int sms,
                        bool pdl, cudaStream_t stream);

/* The knob (launch.cu g_gemv): 0 (the default) off; 1 the route above for every automatic call with M or N == 1, a
 * K split summed by reduce.cuh's kernel; 2 as 1, the split summed in the kernel by the last block of each grid
 * column (x), its loads of every slice issued before the first add (where the grid has <= SMK_RT_COUNTERS
 * columns and the stream has counters; else as 1); 3 as 1 for N == 1 alone (session 43's held-out A/B: the rows
 * route won 11 of 12 N == 1 draws, the cols route 10 of 15 M == 1 ones, losing on wide unaligned B); 4 (session 44)
 * the rows route for N == 1 as 3, and the WIDE kernel (gemv_wide.cuh) for every other call with M <= 4: scalar
 * loads of 32 consecutive floats a warp instruction (rows of B off 16 bytes: one sector more, the same code),
 * <= 64 registers (4 blocks of 8 warps per SM), a K split sized to ~4 blocks per SM summed in the kernel by the
 * last block per grid column (as 2) or, without counters, by reduce.cuh; 5 as 4 for M == 1 alone (M = 2..4
 * keep the chooser's kernels); 6 as 4 with every split summed by reduce.cuh (the fused tail's A/B); 7 as 4, the
 * fused tail's count one acq_rel atomic by one thread after the block's barrier (CUTLASS's barrier pattern), no
 * device-wide fence (gemv_wide.cuh wide_arrive). */
int sgemm_gemv_level();

} /* namespace smk */

#endif /* SMK_SGEMM_GEMV_H */
