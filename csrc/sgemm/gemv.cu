/*
 * sgemm/gemv.cu -- the SGEMM's matrix-vector route (knob sgemm_gemv; gemv.h says why): the route (pure), the
 * launcher of gemv.cuh's kernels with its K split through reduce.cuh, and explain()'s plan of them.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "layout.h"
#include "counters.h"
#include "runtime.h"
#include "sgemm/gemv.cuh"
#include "sgemm/gemv.h"
#include "sgemm/maps.h"

namespace smk {

/* ---- the route (pure) ---------------------------------------------------------------------------------- */

/* Lanes per row of A for a slice klen deep: the fewest (8, 16) whose lanes read the row in one batch of 8
 * chunks (short rows: more rows per warp, no idle lanes), else a whole warp. */
static int rows_lanes(int64_t klen)
{
    const int64_t chunks = (klen + 3) / 4 + 1; /* + 1: a row off 16 bytes spans one chunk more */
    return chunks <= 8 * 8 ? 8 : chunks <= 16 * 8 ? 16 : 32;
}

/* Float4 column groups per warp row for an N-column output: the widest strip (128, 64, 32 columns) whose strips
 * cover N with at most 1/8 of their columns past it (1x263: 9 strips of 32 = 288 columns, not 3 of 128 = 384) and,
 * split at most kGemvMaxSplits ways (slices >= 2 rows of B per lane), still reach 4 blocks per SM; else 32
 * columns, the most blocks (1x238x33483: 8 strips x 64 slices, not 2 x 64 on 132 SMs). */
static int cols_groups(int64_t N, int64_t K, int sms)
{
    for (int cw = 32; cw > 8; cw /= 2) {
        const int64_t w = 4 * cw, strips = (N + w - 1) / w, min_k = 2LL * kGemvColsWarps * (32 / cw);
        int64_t s = K / min_k;
        s = s < kGemvMaxSplits ? (s > 1 ? s : 1) : kGemvMaxSplits;
        if (8 * strips * w <= 9 * N && (strips >= 2LL * sms || strips * s >= 4LL * sms)) return cw;
    }
    return 8;
}

/* K slices for a grid of `blocks` per slice: none where the grid holds >= 2 blocks per SM; else enough to
 * reach ~4 per SM (3 for ROWS: its blocks hold twice the bytes in flight), each slice at least `min_k` deep,
 * at most kGemvMaxSplits (the reduction's one round trip).  Slices are multiples of 16 deep. */
static void sgemv_split(int64_t K, long long blocks, int sms, int per_sm, int64_t min_k, SgemvRoute *r)
{
    int64_t s = 1;
    if (blocks < 2LL * sms) {
        s = ((long long)per_sm * sms + blocks - 1) / blocks;
        const int64_t deep = K / (min_k > 16 ? min_k : 16);
        s = s < deep ? s : deep;
        s = s < kGemvMaxSplits ? s : kGemvMaxSplits;
        s = s > 1 ? s : 1;
    }
    int64_t chunk = ((K + s - 1) / s + 15) / 16 * 16;
    s = (K + chunk - 1) / chunk;
    if (s <= 1) chunk = K, s = 1;
    r->splits = (int)s;
    r->k_chunk = chunk;
}

/* WIDE (knobs 4, 5).  Its kernel holds <= 64 registers (4 blocks of 8 warps per SM), so the grid is sized to
 * one wave of 4 blocks per SM: K slices s = floor(4 sms / strips) (1 where the strips alone fill it), each slice
 * >= kWideMinRows rows (4 rows of B per warp: half a batch), at most wide_max_splits (gemv.h: the fused tail's
 * slices a lane in one round trip), slices a multiple of 8 rows (every warp the same count).  Never past one wave:
 * session 43's cols kernel split for 4 blocks per SM at 105-113 registers (2 per SM) and ran 1x6387x215 as 350
 * blocks on 264 slots, a second wave of 86 blocks. */
static void wide_split(int64_t K, long long strips, int sms, int m, int v, SgemvRoute *r)
{
    int64_t s = strips >= 4LL * sms ? 1 : 4LL * sms / strips, deep = K / kWideMinRows;
    s = s < deep ? s : deep;
    s = s < wide_max_splits(m, v) ? s : wide_max_splits(m, v);
    s = s > 1 ? s : 1;
    int64_t chunk = ((K + s - 1) / s + 7) / 8 * 8;
    s = (K + chunk - 1) / chunk;
    if (s <= 1) chunk = K, s = 1;
    r->splits = (int)s;
    r->k_chunk = chunk;
}

/* Columns a lane at M == 1 (M = 2..4: 1, gemv_wide.cuh says why): 4 (128-column strips: one broadcast X load per 4
 * of B) where the strips cover N with at most 1/8 of their columns past it and, split, fill >= 2 blocks per SM
 * (32 KB of B in flight each); else 1 (32-column strips: 4x the blocks for narrow or short calls). */
static int wide_cols(int64_t N, int64_t K, int sms)
{
    const int64_t strips = (N + 127) / 128;
    SgemvRoute r = {SGEMV_WIDE, 4, 1, K, strips, 0, 1};
    wide_split(K, strips, sms, 1, 4, &r);
    return 8 * strips * 128 <= 9 * N && strips * r.splits >= 2LL * sms ? 4 : 1;
}

static SgemvRoute wide_route(int64_t M, int64_t N, int64_t K, int sms, int knob)
{
    SgemvRoute r = {SGEMV_WIDE, M == 1 ? wide_cols(N, K, sms) : 1, 1, K, 0, 0, (int)M};
    r.blocks_x = (N + 32LL * r.g - 1) / (32LL * r.g);
    wide_split(K, r.blocks_x, sms, (int)M, r.g, &r);
    r.fused = knob != 6 && r.splits > 1 && r.blocks_x <= SMK_RT_COUNTERS; /* 6: the reduce kernel's A/B */
    if (r.fused && knob == 7) r.fused = 2;                                   /* 7: the light count */
    return r;
}

SgemvRoute sgemv_route(int64_t M, int64_t N, int64_t K, int sms, int knob)
{
    SgemvRoute r = {SGEMV_NONE, 0, 1, K, 0, 0, 0};
    if (knob <= 0 || K < 1 || M < 1 || N < 1 || sms < 1) return r;
    if (knob >= 4 && N != 1) return M <= (knob == 5 ? 1 : 4) ? wide_route(M, N, K, sms, knob) : r;
    if ((M != 1 && N != 1) || (knob == 3 && N != 1)) return r;
    if (N == 1) { /* A x (also M == 1: a dot product, one row split along K) */
        r.kind = SGEMV_ROWS;
        int g = rows_lanes(K);
        sgemv_split(K, (M + kGemvThreads / g - 1) / (kGemvThreads / g), sms, 3, 8LL * g, &r);
        r.g = rows_lanes(r.k_chunk); /* a shallower slice may want fewer lanes per row */
        const int rows = kGemvThreads / r.g;
        r.blocks_x = (M + rows - 1) / rows;
        r.fused = knob == 2 && r.splits > 1 && r.blocks_x <= SMK_RT_COUNTERS;
        return r;
    }
    r.kind = SGEMV_COLS; /* x^T B */
    r.g = cols_groups(N, K, sms);
    const int64_t strip = 4LL * r.g, rows_per_step = (int64_t)kGemvColsWarps * (32 / r.g);
    r.blocks_x = (N + strip - 1) / strip;
    sgemv_split(K, r.blocks_x, sms, 4, 2 * rows_per_step, &r); /* >= 2 rows of B per lane and slice */
    r.fused = knob == 2 && r.splits > 1 && r.blocks_x <= SMK_RT_COUNTERS;
    return r;
}

SgemvRoute sgemv_route_splits(int64_t M, int64_t N, int64_t K, int sms, int knob, int splits)
{
    SgemvRoute r = sgemv_route(M, N, K, sms, knob);
    if ((r.kind != SGEMV_WIDE && r.kind != SGEMV_ROWS) || splits < 1) return r;
    const bool wide = r.kind == SGEMV_WIDE;
    const int64_t most = wide ? wide_max_splits(r.m, r.g) : kGemvMaxSplits, round = wide ? 8 : 16;
    const int64_t want = splits < most ? splits : most;
    int64_t chunk = ((K + want - 1) / want + round - 1) / round * round, s = (K + chunk - 1) / chunk;
    if (s <= 1) chunk = K, s = 1;
    r.splits = (int)s;
    r.k_chunk = chunk;
    if (wide) {
        r.fused = knob != 6 && r.splits > 1 && r.blocks_x <= SMK_RT_COUNTERS;
        if (r.fused && knob == 7) r.fused = 2;
    } else {
        r.g = rows_lanes(r.k_chunk);
        const int rows = kGemvThreads / r.g;
        r.blocks_x = (M + rows - 1) / rows;
        r.fused = knob == 2 && r.splits > 1 && r.blocks_x <= SMK_RT_COUNTERS;
    }
    return r;
}

/* ---- the launcher --------------------------------------------------------------------------------------- */

static bool al16(const void *p) { return ((uintptr_t)p & 15) == 0; }

template <int G>
static void rows_go(const smk_sgemm_params &q, dim3 grid, const SgemmSlice &sl, const SgemvTail &t, cudaStream_t st)
{
    const bool av = al16(q.A) && q.lda % 4 == 0, xv = q.ldb == 1 && al16(q.B);
    if (av && xv) sgemv_rows_kernel<G, true, true><<<grid, kGemvThreads, 0, st>>>(q, sl, t);
    else if (av) sgemv_rows_kernel<G, true, false><<<grid, kGemvThreads, 0, st>>>(q, sl, t);
    else if (xv) sgemv_rows_kernel<G, false, true><<<grid, kGemvThreads, 0, st>>>(q, sl, t);
    else sgemv_rows_kernel<G, false, false><<<grid, kGemvThreads, 0, st>>>(q, sl, t);
}

template <int CW, int LAYOUT>
static void cols_go(const smk_sgemm_params &q, dim3 grid, const SgemmSlice &sl, const SgemvTail &t, cudaStream_t st)
{
    if (al16(q.B) && q.ldb % 4 == 0) sgemv_cols_kernel<CW, LAYOUT, true><<<grid, kGemvThreads, 0, st>>>(q, sl, t);
    else sgemv_cols_kernel<CW, LAYOUT, false><<<grid, kGemvThreads, 0, st>>>(q, sl, t);
}

template <int CW>
static int cols_layout(const smk_sgemm_params &q, dim3 grid, const SgemmSlice &sl, const SgemvTail &t, cudaStream_t st)
{
    switch (q.layout) {
    case SMK_NAIVE: cols_go<CW, SMK_NAIVE>(q, grid, sl, t, st); break;
    case SMK_PAD: cols_go<CW, SMK_PAD>(q, grid, sl, t, st); break;
    case SMK_SWIZZLE: cols_go<CW, SMK_SWIZZLE>(q, grid, sl, t, st); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaSuccess;
}

/* One launch of the route's kernel over q (D: the output, or the workspace with alpha 1, beta 0). */
static int sgemv_kernel(const smk_sgemm_params &q, const SgemvRoute &r, const SgemmSlice &sl, const SgemvTail &t,
                        cudaStream_t st)
{
    if (r.blocks_x <= 0 || r.blocks_x > 0x7fffffffLL || r.splits < 1 || r.splits > 65535)
        return (int)cudaErrorInvalidValue;
    const dim3 grid((unsigned)r.blocks_x, (unsigned)r.splits);
    int e = (int)cudaSuccess;
    if (r.kind == SGEMV_ROWS) {
        if (r.g == 8) rows_go<8>(q, grid, sl, t, st);
        else if (r.g == 16) rows_go<16>(q, grid, sl, t, st);
        else rows_go<32>(q, grid, sl, t, st);
    } else if (r.kind == SGEMV_WIDE) {
        e = sgemv_wide_launch(q, r, grid, sl, t, st);
    } else {
        e = r.g == 8 ? cols_layout<8>(q, grid, sl, t, st) : r.g == 16 ? cols_layout<16>(q, grid, sl, t, st)
                                                                   : cols_layout<32>(q, grid, sl, t, st);
    }
    return e != (int)cudaSuccess ? e : (int)cudaGetLastError();
}

int sgemv_launch(const smk_sgemm_params &q, const SgemvRoute &r, int sms, bool pdl, cudaStream_t stream)
{
    if (r.kind == SGEMV_NONE) return (int)cudaErrorInvalidValue;
    SgemvTail tail = {NULL, q.D, q.C, q.ldd, q.ldc, q.alpha, q.beta, r.fused == 2};
    if (r.splits <= 1) {
        const SgemmSlice whole = {(int)q.K, 0};
        return sgemv_kernel(q, r, whole, tail, stream);
    }
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
    const SgemmSlice slice = {(int)r.k_chunk, stride};
    if (r.fused) tail.counters = smk_rt_counters(stream); /* none to give (capture, a full table): the reduction */
    int e = sgemv_kernel(w, r, slice, tail, stream);
    if (e == (int)cudaSuccess && tail.counters == NULL)
        e = sgemm_reduce_launch(q, (const float *)ws, stride, ldw, r.splits, sms, pdl, stream);
    smk_rt_free_on(ws, stream); /* stream-ordered: behind the kernels that use it, even on failure */
    return e;
}

/* ---- explain() ------------------------------------------------------------------------------------------- */

int sgemv_plan(const SgemvRoute &r, int layout, smk_plan *plan)
{
    plan->n = 0;
    plan->threads = kGemvThreads;
    plan->smem_bytes = 0;
    plan->blocks = r.blocks_x * r.splits;
    if (r.kind == SGEMV_ROWS) {
        snprintf(plan->config, sizeof plan->config, "gemv rows (N = 1), %d lanes per row, no shared memory%s, splits %d",
                 r.g, r.fused ? ", fused tail" : "", r.splits);
        return 0;
    }
    const smk_tile TR = smk_sgemm_tile(layout, 7);
    const int n = kGemvColsWarps - 1; /* per warp: one store by each warp w > 0, the loads by warp 0 */
    /* naive / pad: gemv_cols_sum's `if (w > 0)` store is one predicated STS.128 (SASS, sm_90, cols and wide kernels),
     * which warp 0 issues with every lane off: an instruction (ncu counts it) with no wavefront; swizzle branches */
    const int ns = n + (layout != SMK_SWIZZLE);
    const int passes = r.kind == SGEMV_WIDE ? (r.m * r.g + 3) / 4 : 1; /* WIDE: four slots of a lane a pass */
    const long long reps = (plan->blocks + (r.fused ? r.blocks_x : 0)) * passes; /* the fused tail: once more */
    plan->acc[0] = smk_access{ns > n ? "partial-sum store (STS.128, warps 1..7, Red[w-1][4*lane]; warp 0's off)"
                                     : "partial-sum store (STS.128, warps 1..7, Red[w-1][4*lane])",
                              16, 1, SMK_ACC_LDST, ns, reps, plan->acc[0].addr, plan->acc[0].gaddr};
    plan->acc[1] = smk_access{"partial-sum load (LDS.128, warp 0, Red[v-1][4*lane])", 16, 0, SMK_ACC_LDST, n,
                              reps, plan->acc[1].addr, plan->acc[1].gaddr};
    if (plan->acc[0].addr && plan->acc[1].addr)
        for (int lane = 0; lane < 32; lane++) {
            for (int i = 0; i < n; i++) {
                plan->acc[0].addr[(long long)i * 32 + lane] = 4LL * smk_tile_offset(TR, i, 4 * lane);
                plan->acc[1].addr[(long long)i * 32 + lane] = 4LL * smk_tile_offset(TR, i, 4 * lane);
            }
            if (ns > n) plan->acc[0].addr[(long long)n * 32 + lane] = -1;
        }
    plan->n = 2;
    plan->smem_bytes = smk_tile_elems(TR, n) * (int)sizeof(float);
    if (r.kind == SGEMV_WIDE)
        snprintf(plan->config, sizeof plan->config,
                 "gemv wide (M = %d), %d-column strips, %d columns a lane%s, splits %d", r.m, 32 * r.g, r.g,
                 r.fused == 2 ? ", fused tail, acq_rel count" : r.fused ? ", fused tail" : "", r.splits);
    else
        snprintf(plan->config, sizeof plan->config, "gemv cols (M = 1), %d-column strips, %d warps over K%s, splits %d",
                 4 * r.g, kGemvColsWarps, r.fused ? ", fused tail" : "", r.splits);
    return 0;
}

} /* namespace smk */
