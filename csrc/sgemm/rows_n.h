/*
 * sgemm/rows_n.h -- the SGEMM's narrow-N rows route (issue 27's "tall A, small N" class, knob sgemm_rows_n):
 * M >= 1024 rows of A, 9 <= N <= 32 (knob 1; 2 <= N <= 32 at knob 2: N <= 8 is skinny-n's, already 1.3-4.6x cuBLAS),
 * K >= 17.  Knob 3: level 1's class, rows of A per warp R (the kernel's template: 4 = 8 lanes a row at levels 1 / 2)
 * the cheapest of 4, 2, 1 by rows_n.cu's price: a warp's serial A batches (rounds of row groups over the grid's warps
 * x batches of U chunks a lane per slice, ~1 us each) + B's LDS.128 wavefronts an SM (R = 1 twice R = 2's); ties to
 * the smaller R.  Knob 4: as 3 with R by the warps alone (4 where ceil(M / 4) groups give the 16 x SMs resident warps
 * two rounds, 2 where ceil(M / 2) fill one, else 1): the A/B of the price.
 * Levels 3 / 4 also prefetch each warp's first row groups into L2 before B's staging (pf below; rows_n.cuh
 * rows_n_prefetch): the 7 measured draws fit t ~ 0.9 x a warp's serial issue + ~3.6 us per 16-load round of B's
 * staging + 2.6 us (rms 1.8 us), so A's stream waited behind the staging.  Why: session
 * 44's measured grids (H100) were latency-bound, under one round of warps (2283x29x144: 571 warps for 2112 slots) or
 * a second round of a few warps at 4 batches each (9508x17x469: 2377 groups, 2112 warps).
 * Host C++ (launch.cu and plan.cu ask the route; no kernel includes it).
 *
 * Why (session 44, docs/SGEMM_NOTES.md): the chooser sends this class to the 64x64 / 128x64 tiles, which waste
 * 64 - N of their columns and split K into a second reduction kernel (7841x13x548: 64x64x8 in 4 slices, 20.5 +
 * 3.4 us against cuBLAS's 14.2), because skinny-n re-streams A once per 8-column N tile and its 16 / 32-column
 * rows (knob sgemm_narrow) run latency-bound at 168-254 registers, 4-12 warps per SM.  Here A is read once, B's
 * K slice lives in shared memory for a block's whole life (its warps loop over row groups), and a K split is taken
 * only where the rows alone cannot put one block on every SM or B's slice does not fit.
 */
#ifndef SMK_SGEMM_ROWS_N_H
#define SMK_SGEMM_ROWS_N_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "layout.h"
#include "api/sgemm.h" /* smk_sgemm_params, smk_plan */
#include "api/sgemm_rows_n.h"

namespace smk {

constexpr int kRowsNThreads = 256;      /* 8 warps */
/* B's slice per block: 2 blocks (launch bound) + L1 on 228 KB; also what every instance opts in to (rows_n.cu: the
 * route's slices are <= it, whatever the call) */
constexpr int kRowsNSmemBudget = 72 * 1024;
constexpr int kRowsNMinM = 1024;
constexpr long long kRowsNPrefetchBytes = 24LL << 20; /* levels 3 / 4's L2 prefetch: under half of H100's 50 MB */
constexpr int kRowsNBlocksPerSm = 2;

/* B's slice in shared memory: row c holds k = 4c .. 4c + 3 of every column n as one float4 at columns 4n .. 4n + 3
 * (k-interleaved, so one LDS.128 gives a lane the four B values of its A chunk); NP = 4 NQ columns used, the row
 * 4 * pow2(NP) floats wide (layout.h wants a power of two), vectors of 4 floats, automatic swizzle. */
SMK_HD smk_tile rows_n_tile(int layout, int nq)
{
    smk_tile t = {layout, 2 + (nq <= 1 ? 2 : nq <= 2 ? 3 : nq <= 4 ? 4 : 5), 2, 2, 0, 0, 0};
    return t;
}

/* The route of one call (use 0: the call keeps the chooser's kernels). */
struct RowsNRoute {
    int use;
    int nq;             /* float4 column groups of N: ceil(N / 4), 1..8 */
    int splits;         /* K slices (grid y) */
    int64_t k_chunk;    /* depth of every slice but the last, a multiple of 16 */
    long long passes;   /* ceil(M / (8 rpw)) row passes (a block's 8 warps x rpw rows) */
    long long groups;   /* ceil(M / rpw) row groups, dealt to the grid's warps round-robin (rows_n.cuh) */
    long long blocks_x; /* blocks per slice: min(passes, 2 blocks per SM / splits) */
    int64_t k_last;     /* depth of the last slice */
    int smem_bytes;     /* B's slice (the deepest): ceil(k_chunk / 4) tile rows */
    int rpw;            /* rows of A per warp (the kernel's R): 4 (8 lanes a row); levels 3 / 4: 2 or 1 too */
    int pf;             /* levels 3 / 4: row groups a warp prefetches into L2 before B's staging, its rounds up to
                         * kRowsNPrefetchBytes in all (0: none, levels 1 / 2) */
};

/* Pure (no CUDA call, no state): the route for an M x N x K call (after gemm_args' normalisation) at knob level
 * `knob` on `sms` SMs in layout `layout`. */
RowsNRoute rows_n_route(int64_t M, int64_t N, int64_t K, int sms, int layout, int knob);

/* Enqueue route r of the validated, normalised q on `stream` (a K split through a stream-ordered workspace and
 * reduce.cuh's kernel). */
int rows_n_launch(const smk_sgemm_params &q, const RowsNRoute &r, int sms, bool pdl, cudaStream_t stream);

/* explain()'s plan of route r: B's staging stores and the kernel's LDS.128 of B. */
int rows_n_plan(const RowsNRoute &r, int layout, smk_plan *plan);

int sgemm_rows_n_level(); /* launch.cu g_rows_n */

} /* namespace smk */

#endif /* SMK_SGEMM_ROWS_N_H */
