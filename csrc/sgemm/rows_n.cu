/*
 * sgemm/rows_n.cu -- the SGEMM's narrow-N rows route (knob sgemm_rows_n; rows_n.h says why): the route (pure), the
 * launcher of rows_n.cuh's kernel with its K split through reduce.cuh, and explain()'s plan of it.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "layout.h"
#include "runtime.h"
#include "common/launch.h"
#include "sgemm/gemv.h" /* sgemm_reduce_launch */
#include "sgemm/rows_n.cuh"
#include "sgemm/rows_n.h"

namespace smk {

/* ---- the route (pure) ---------------------------------------------------------------------------------- */

/* Bytes of one tile row (4 k of every column) in `layout`. */
static int rows_n_row_bytes(int layout, int nq) { return smk_tile_elems(rows_n_tile(layout, nq), 1) * 4; }

/* K slices: the fewest whose B slice fits kRowsNSmemBudget; more (up to 64, slices >= 128 deep) only where the
 * passes (8 warps x R rows) x slices would leave SMs without a block (a split costs reduce.cuh's second launch,
 * ~2-3 us).  Blocks per slice: one per pass up to two blocks per SM in all (then the warps loop over row groups: B
 * staged once per block, not per row).  r.nq and r.rpw set; kt: the deepest slice B's budget holds. */
static void rows_n_geometry(RowsNRoute &r, int64_t M, int64_t K, int64_t kt, int rb, int sms)
{
    const long long slots = (long long)sms * kRowsNBlocksPerSm;
    r.passes = (M + 8 * r.rpw - 1) / (8 * r.rpw);
    r.groups = (M + r.rpw - 1) / r.rpw;
    int64_t s = (K + kt - 1) / kt;
    if (r.passes * s < sms) {
        int64_t want = (slots + r.passes - 1) / r.passes, deep = K / 128;
        want = want < deep ? want : deep;
        want = want < 64 ? want : 64;
        s = want > s ? want : s;
    }
    int64_t chunk = ((K + s - 1) / s + 15) / 16 * 16;
    s = (K + chunk - 1) / chunk;
    if (s <= 1) chunk = K, s = 1;
    r.splits = (int)s;
    r.k_chunk = chunk;
    r.k_last = K - (s - 1) * chunk;
    const long long per = s >= slots ? 1 : slots / s;
    r.blocks_x = r.passes < per ? r.passes : per;
    r.smem_bytes = (int)((chunk + 3) / 4) * rb;
}

/* Level 3's price of a geometry, microseconds: a warp's serial A batches (rounds of row groups x batches a slice,
 * ~1 us each under load: session 44's 9508x17x469 at R = 4, 2 rounds x 4 batches + B's staging, took 22.8 us) plus
 * B's LDS.128 wavefronts an SM at one a clock (1.75 GHz): 2 an instruction at R = 4 / 2, 4 at R = 1 (rows_n.cuh). */
static double rows_n_price(const RowsNRoute &r, int sms)
{
    const long long warps = r.blocks_x * (kRowsNThreads / 32), rounds = (r.groups + warps - 1) / warps;
    const long long lanes = 32 / r.rpw, u = r.nq <= 4 ? 8 : 4, rows = (r.k_chunk + 3) / 4;
    const long long batches = (rows + lanes * u - 1) / (lanes * u);
    const long long instr = r.groups * 4 * r.nq * ((r.splits - 1) * ((rows + lanes - 1) / lanes) +
                                                   ((r.k_last + 3) / 4 + lanes - 1) / lanes);
    return (double)(rounds * batches) + (double)instr * (r.rpw == 1 ? 4 : 2) / sms / 1750.0;
}

RowsNRoute rows_n_route(int64_t M, int64_t N, int64_t K, int sms, int layout, int knob)
{
    RowsNRoute r = {0, 0, 1, K, 0, 0, 0, K, 0, 4, 0};
    if (knob <= 0 || N < (knob == 2 ? 2 : 9) || N > 32 || M < kRowsNMinM || K < 17 || sms < 1 || layout < 0 ||
        layout > 2)
        return r;
    r.nq = (int)((N + 3) / 4);
    const int rb = rows_n_row_bytes(layout, r.nq);
    const int64_t kt = (int64_t)(kRowsNSmemBudget / rb) * 4 / 16 * 16; /* deepest slice that fits, k */
    rows_n_geometry(r, M, K, kt, rb, sms);
    /* level 3: the cheapest of R = 4, 2, 1 (ties to the smaller R: more warps, the ncu's want) */
    for (int rpw = 2; knob == 3 && rpw >= 1; rpw /= 2) {
        RowsNRoute t = r;
        t.rpw = rpw;
        rows_n_geometry(t, M, K, kt, rb, sms);
        if (rows_n_price(t, sms) <= rows_n_price(r, sms)) r = t;
    }
    /* level 4: the most warps, price aside: R = 4 where ceil(M / 4) groups give the resident warps (16 an SM) two
     * rounds, 2 where ceil(M / 2) fill one, else 1 */
    const long long warps = (long long)sms * kRowsNBlocksPerSm * (kRowsNThreads / 32);
    if (knob >= 4 && (M + 3) / 4 < 2 * warps) {
        r.rpw = (M + 1) / 2 >= warps ? 2 : 1;
        rows_n_geometry(r, M, K, kt, rb, sms);
    }
    if (knob >= 3) { /* the L2 prefetch: whole rounds of row groups (every slice's warps at once) up to the bytes */
        const long long warps_x = r.blocks_x * (kRowsNThreads / 32), rounds = (r.groups + warps_x - 1) / warps_x;
        const long long round_bytes = warps_x * r.splits * r.rpw * r.k_chunk * 4;
        const long long fit = kRowsNPrefetchBytes / round_bytes;
        r.pf = (int)(rounds < fit ? rounds : fit);
    }
    r.use = 1;
    return r;
}

/* ---- the launcher --------------------------------------------------------------------------------------- */

template <int NQ, int LAYOUT, bool AV, int R>
static int rows_n_go(const smk_sgemm_params &q, const RowsNRoute &r, const RowsNArgs &ra, cudaStream_t st)
{
    /* opt in to the budget, not to this call's bytes: smem_optin opts a kernel in once (per device), so a first call
     * with a 50 KB slice left the instance at 50 KB and a later 72 KB slice failed its launch with
     * cudaErrorInvalidValue (session 44: 2514x9x1671, then 1687x11x62631, both NQ 3 swizzle) */
    if (r.smem_bytes > kRowsNSmemBudget) return (int)cudaErrorInvalidValue;
    const int e = smem_optin<sgemm_rows_n_kernel<NQ, LAYOUT, AV, R>>((size_t)kRowsNSmemBudget);
    if (e != 0) return e;
    const dim3 grid((unsigned)r.blocks_x, (unsigned)r.splits);
    sgemm_rows_n_kernel<NQ, LAYOUT, AV, R><<<grid, kRowsNThreads, r.smem_bytes, st>>>(q, ra);
    return (int)cudaGetLastError();
}

template <int NQ, int LAYOUT, bool AV>
static int rows_n_rpw(const smk_sgemm_params &q, const RowsNRoute &r, const RowsNArgs &ra, cudaStream_t st)
{
    switch (r.rpw) {
    case 4: return rows_n_go<NQ, LAYOUT, AV, 4>(q, r, ra, st);
    case 2: return rows_n_go<NQ, LAYOUT, AV, 2>(q, r, ra, st);
    case 1: return rows_n_go<NQ, LAYOUT, AV, 1>(q, r, ra, st);
    default: return (int)cudaErrorInvalidValue;
    }
}

template <int NQ, int LAYOUT>
static int rows_n_av(const smk_sgemm_params &q, const RowsNRoute &r, const RowsNArgs &ra, cudaStream_t st)
{
    if (aligned16(q.A) && q.lda % 4 == 0) return rows_n_rpw<NQ, LAYOUT, true>(q, r, ra, st);
    return rows_n_rpw<NQ, LAYOUT, false>(q, r, ra, st);
}

template <int NQ>
static int rows_n_layout(const smk_sgemm_params &q, const RowsNRoute &r, const RowsNArgs &ra, cudaStream_t st)
{
    switch (q.layout) {
    case SMK_NAIVE: return rows_n_av<NQ, SMK_NAIVE>(q, r, ra, st);
    case SMK_PAD: return rows_n_av<NQ, SMK_PAD>(q, r, ra, st);
    case SMK_SWIZZLE: return rows_n_av<NQ, SMK_SWIZZLE>(q, r, ra, st);
    default: return (int)cudaErrorInvalidValue;
    }
}

static int rows_n_kernel(const smk_sgemm_params &q, const RowsNRoute &r, const RowsNArgs &ra, cudaStream_t st)
{
    if (r.blocks_x <= 0 || r.blocks_x > 0x7fffffffLL || r.splits < 1 || r.splits > 65535)
        return (int)cudaErrorInvalidValue;
    switch (r.nq) {
    case 1: return rows_n_layout<1>(q, r, ra, st);
    case 2: return rows_n_layout<2>(q, r, ra, st);
    case 3: return rows_n_layout<3>(q, r, ra, st);
    case 4: return rows_n_layout<4>(q, r, ra, st);
    case 5: return rows_n_layout<5>(q, r, ra, st);
    case 6: return rows_n_layout<6>(q, r, ra, st);
    case 7: return rows_n_layout<7>(q, r, ra, st);
    case 8: return rows_n_layout<8>(q, r, ra, st);
    default: return (int)cudaErrorInvalidValue;
    }
}

int rows_n_launch(const smk_sgemm_params &q, const RowsNRoute &r, int sms, bool pdl, cudaStream_t stream)
{
    if (!r.use) return (int)cudaErrorInvalidValue;
    RowsNArgs ra = {r.k_chunk, 0, r.pf};
    if (r.splits <= 1) return rows_n_kernel(q, r, ra, stream);
    const int64_t ldw = (q.N + 3) & ~(int64_t)3, stride = q.M * ldw;
    void *ws = NULL;
    const smk_status st = smk_rt_alloc_on(&ws, (size_t)r.splits * (size_t)stride * sizeof(float), stream);
    if (st.code != SMK_OK) return st.cuda ? st.cuda : (int)cudaErrorMemoryAllocation;
    smk_sgemm_params w = q; /* the partial outputs: D = 1 * A[:, slice] @ B[slice, :], C not read */
    w.D = (float *)ws;
    w.ldd = ldw;
    w.C = NULL;
    w.alpha = 1.f;
    w.beta = 0.f;
    ra.d_stride = stride;
    int e = rows_n_kernel(w, r, ra, stream);
    if (e == (int)cudaSuccess) e = sgemm_reduce_launch(q, (const float *)ws, stride, ldw, r.splits, sms, pdl, stream);
    smk_rt_free_on(ws, stream); /* stream-ordered: behind the kernels that use it, even on failure */
    return e;
}

/* ---- explain() ------------------------------------------------------------------------------------------- */

int rows_n_plan(const RowsNRoute &r, int layout, smk_plan *plan)
{
    const smk_tile T = rows_n_tile(layout, r.nq);
    const int np = 4 * r.nq, rows = (int)((r.k_chunk + 3) / 4), L = 32 / r.rpw; /* lanes a row */
    plan->n = 0;
    plan->threads = kRowsNThreads;
    plan->smem_bytes = r.smem_bytes;
    plan->blocks = r.blocks_x * r.splits;
    /* per block: the staging stores (warp j's 32 consecutive elements of the walk; the deepest slice's count), and per
     * row group and L tile rows of its slice the 4 NQ LDS.128: lanes R gl + rs read (gl, 4n) (tile rows 0..L - 1:
     * every L-row group of a slice alike) */
    const long long stores = ((long long)rows * 4 * np + 31) / 32;
    const long long lds_reps = r.groups * ((r.splits - 1) * ((rows + L - 1) / L) + ((r.k_last + 3) / 4 + L - 1) / L);
    plan->acc[0] = smk_access{"B slice store (STS.32, k-interleaved)", 4, 1, SMK_ACC_LDST, 1,
                              r.blocks_x * r.splits * stores, plan->acc[0].addr, plan->acc[0].gaddr};
    plan->acc[1] = smk_access{"B read (LDS.128, lanes R gl + rs: tile (gl, 4n))", 16, 0, SMK_ACC_LDST, np, lds_reps,
                              plan->acc[1].addr, plan->acc[1].gaddr};
    if (plan->acc[0].addr)
        for (int lane = 0; lane < 32; lane++) { /* warp 0's first store: elements 0..31 of the walk */
            const int e = lane & 3, n = (lane >> 2) % np, c = (lane >> 2) / np;
            plan->acc[0].addr[lane] = 4LL * smk_tile_offset(T, c, 4 * n + e);
        }
    if (plan->acc[1].addr)
        for (int n = 0; n < np; n++)
            for (int lane = 0; lane < 32; lane++)
                plan->acc[1].addr[(long long)n * 32 + lane] = 4LL * smk_tile_offset(T, lane / r.rpw, 4 * n);
    plan->n = 2;
    snprintf(plan->config, sizeof plan->config,
             "rows-n (N <= 32), %d columns, R %d, prefetch %d, %lld passes / %lld blocks, splits %d",
             np, r.rpw, r.pf, r.passes, r.blocks_x, r.splits);
    return 0;
}

} /* namespace smk */
