/* Host replay of one launch's shared-memory instructions for the bank model (runtime.h
 * smk_gemm16_plan, smemkit's explain()): the kernel's own thread maps and tiles (smem.cuh), on the CPU.
 *
 * Fills depend on which rows / columns / k columns of a block are inside the matrix and on the path
 * the block takes, so they come in classes of (block, k-tile) that issue the same pattern, each one
 * access with its own repeats:
 *   fast     interior blocks on whole k-tiles: plain cp.async, every warp, every lane;
 *   general  the rest: a warp issues chunk j's cp.async.zfill only if one of its lanes copies (in
 *            range and not wholly past K) and its zero st.shared if one of its lanes is in range
 *            (the counts ncu reads on an H100: the compiler branches around them), lanes that do
 *            not write are off;
 *   A by block row (whole, or the last partial one), B by block column; k-tiles whole (split by
 *   parity for 32-wide k-tiles, which move A's global rows by 64 bytes) or the last partial one.
 * Global byte offsets (gaddr, cp.async only) are relative to a 128-byte-aligned block origin:
 * operands from an aligned allocation with row pitches lda / ldb elements. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "dispatch.h"
#include "layout.h"
#include "plan_narrow.h"
#include "matvec.h"
#include "api/gemm16.h"
#include "api/gemm16_epi.h"
#include "api/gemm16_small.h"
#include "small.h"
#include "smem.cuh"
#include "tiles.h"

namespace smk {
namespace g16 {

struct PlanFill {
    const char *name;
    int kind;        /* SMK_ACC_CPASYNC (fast), SMK_ACC_CPASYNC_ZFILL / SMK_ACC_LDST (general, staged) */
    int operand;     /* 0: A, 1: B */
    int valid;       /* A: rows of the block inside M; B: columns inside N */
    int64_t k0;      /* the k-tile's first k */
    int64_t kleft;   /* K - k0 */
    int mode;        /* 0: fast cp.async, 1: general cp.async, 2: general zero st.shared, 3: staged st.shared */
    long long repeats;
};

/* Fill names by [operand][last block row / column][fast, general, zeros, last k-tile, its zeros]. */
static const char *const kFillNames[2][2][5] = {
    {{"A-tile cp.async (16 B), interior blocks", "A-tile cp.async.zfill (16 B), edge blocks",
      "A-tile zeros past K (st.shared.v4), predicated off", "A-tile cp.async.zfill, last k-tile",
      "A-tile zeros past K (st.shared.v4), last k-tile"},
     {"", "A-tile cp.async.zfill (16 B), last block row",
      "A-tile zeros past K (st.shared.v4), last block row, predicated off",
      "A-tile cp.async.zfill, last block row, last k-tile",
      "A-tile zeros past K (st.shared.v4), last block row, last k-tile"}},
    {{"B-tile cp.async (16 B), interior blocks", "B-tile cp.async.zfill (16 B), edge blocks",
      "B-tile zeros past K (st.shared.v4), predicated off", "B-tile cp.async.zfill, last k-tile",
      "B-tile zeros past K (st.shared.v4), last k-tile"},
     {"", "B-tile cp.async.zfill (16 B), last block column",
      "B-tile zeros past K (st.shared.v4), last block column, predicated off",
      "B-tile cp.async.zfill, last block column, last k-tile",
      "B-tile zeros past K (st.shared.v4), last block column, last k-tile"}}};

/* Lane (w, lane) of chunk j under f: *on (it writes), *inrange (its warp issues the instruction if
 * any lane is: decided by the caller), shared and global offsets. */
template <class C, int LAYOUT, int SID>
void fill_lane(const PlanFill &f, int64_t lda, int64_t ldb, int w, int lane, int j, bool *on, bool *inrange,
               long long *off, long long *g, int *bytes)
{
    using S = Smem<C, LAYOUT, SID>;
    using MP = Map<C>;
    const int tid = w * 32 + lane;
    int r = 0, c = 0;
    bool inside, past_k;
    if (f.operand == 0) {
        MP::a_chunk(j, tid, &r, &c); /* row r, k column c */
        inside = r < f.valid;
        past_k = c >= f.kleft;
        *off = 2LL * S::a_off(r, c);
        *g = 2LL * ((long long)r * lda + f.k0 + c);
        *bytes = f.kleft - c >= 8 ? 16 : f.kleft > c ? (int)(2 * (f.kleft - c)) : 0; /* of the chunk, in K */
    } else {
        MP::b_chunk(j, tid, &r, &c); /* k row r, column c */
        inside = c < f.valid;
        past_k = r >= f.kleft;
        *off = 2LL * S::b_off(r, c);
        *g = 2LL * ((f.k0 + r) * ldb + c);
        *bytes = f.valid - c >= 8 ? 16 : f.valid > c ? 2 * (f.valid - c) : 0; /* of the chunk, in N */
    }
    *inrange = f.mode == 2 ? inside : (inside && !past_k) || f.mode == 0 || f.mode == 3;
    *on = f.mode == 3 || f.mode == 0 || (f.mode == 1 && inside && !past_k) || (f.mode == 2 && inside && past_k);
}

/* The warp instructions of f (those some warp issues), written lane-major into acc when acc->addr is
 * set; returns how many. */
template <class C, int LAYOUT, int SID>
int fill_addresses(const PlanFill &f, int64_t lda, int64_t ldb, smk_access *acc)
{
    const int warps = C::THREADS / 32, per = f.operand ? C::B_CHUNKS : C::A_CHUNKS;
    int n = 0;
    for (int w = 0; w < warps; w++)
        for (int j = 0; j < per; j++) {
            bool issue = false, on = false, inr = false;
            long long off = 0, g = 0;
            int bytes = 16;
            for (int lane = 0; lane < 32 && !issue; lane++) {
                fill_lane<C, LAYOUT, SID>(f, lda, ldb, w, lane, j, &on, &inr, &off, &g, &bytes);
                issue = inr;
            }
            if (!issue)
                continue;
            if (acc && acc->addr)
                for (int lane = 0; lane < 32; lane++) {
                    fill_lane<C, LAYOUT, SID>(f, lda, ldb, w, lane, j, &on, &inr, &off, &g, &bytes);
                    acc->addr[(long long)n * 32 + lane] = on ? off : -1;
                    if (acc->gaddr) /* a chunk short of 16 bytes carries its length for the narrow split */
                        acc->gaddr[(long long)n * 32 + lane] = !on ? -1 : bytes < 16 ? partial_mark(g, bytes) : g;
                }
            n++;
        }
    return n;
}

/* The fill classes of a launch of C on M x N x K into f; returns how many. */
template <class C>
int fill_classes(int64_t M, int64_t N, int64_t K, bool staged, PlanFill *f)
{
    const long long gm = (M + C::BM - 1) / C::BM, gn = (N + C::BN - 1) / C::BN, blocks = gm * gn;
    const long long kt_all = (K + C::BK - 1) / C::BK, kt_full = K / C::BK, kt_part = kt_all - kt_full;
    const long long rows_whole = M / C::BM, cols_whole = N / C::BN;
    const int rows_last = (int)(M % C::BM), cols_last = (int)(N % C::BN);
    const long long interior = C::FAST ? rows_whole * cols_whole : 0; /* blocks on the fast path */
    int n = 0;
    auto add = [&](const char *name, int kind, int operand, int valid, int64_t k0, int mode, long long repeats) {
        if (repeats > 0 && n < SMK_PLAN_MAX - 5)
            f[n++] = PlanFill{name, kind, operand, valid, k0, K - k0, mode, repeats};
    };
    if (blocks <= 0 || kt_all <= 0)
        return 0;
    if (staged) {
        add("A-tile st.shared.v4 (16 B, register-staged)", SMK_ACC_LDST, 0, C::BM, 0, 3, blocks * kt_all);
        add("B-tile st.shared.v4 (16 B, register-staged)", SMK_ACC_LDST, 1, C::BN, 0, 3, blocks * kt_all);
        return n;
    }
    const bool split = C::BK == 32; /* 32-wide k-tiles: A's global offset alternates by 64 bytes */
    const long long kcount[2] = {split ? (kt_full + 1) / 2 : kt_full, split ? kt_full / 2 : 0};
    const int64_t klast = kt_full * C::BK;
    for (int op = 0; op < 2; op++)
        for (int last = 0; last < 2; last++) {
            /* blocks of this row (A) / column (B) class, and how many of them are interior */
            const long long nb = op == 0 ? (last ? (rows_last ? gn : 0) : rows_whole * gn)
                                         : (last ? (cols_last ? gm : 0) : cols_whole * gm);
            const long long nfast = last ? 0 : interior, ngen = nb - nfast;
            const int valid = op == 0 ? (last ? rows_last : C::BM) : (last ? cols_last : C::BN);
            const char *const *nm = kFillNames[op][last];
            for (int par = 0; par < (op == 0 && split ? 2 : 1); par++) {
                const int64_t k0 = par * C::BK;
                add(nm[0], SMK_ACC_CPASYNC, op, valid, k0, 0, nfast * kcount[par]);
                add(nm[1], SMK_ACC_CPASYNC_ZFILL, op, valid, k0, 1, ngen * kcount[par]);
                add(nm[2], SMK_ACC_LDST, op, valid, k0, 2, ngen * kcount[par]);
            }
            add(nm[3], SMK_ACC_CPASYNC_ZFILL, op, valid, klast, 1, nb * kt_part);
            add(nm[4], SMK_ACC_LDST, op, valid, klast, 2, nb * kt_part);
        }
    return n;
}

/* Fragment loads: every k step of every k-tile; the cp.async kernel also prefetches the next tile's
 * first fragments at the last k step of each tile, predicated off on the block's last tile (the
 * instructions issue and count, with no lane active).  Appended to plan->acc from index a. */
template <class C, int LAYOUT, int SID>
int frag_accesses(long long blocks, long long kt_all, bool staged, smk_plan *plan, int a)
{
    using S = Smem<C, LAYOUT, SID>;
    using MP = Map<C>;
    const int warps = C::THREADS / 32, ksteps = C::BK / 16;
    const struct { const char *name; int per_warp; long long repeats; int what; } frags[3] = {
        {"A fragment ldmatrix.x4", ksteps * C::MI, blocks * kt_all, 0},
        {"B fragment ldmatrix.x4.trans", ksteps * (C::NI / 2), blocks * kt_all, 1},
        {"next-tile fragment ldmatrix.x4 at the last k-tile (predicated off)", C::MI + C::NI / 2,
         staged ? 0 : blocks * (kt_all > 0 ? 1 : 0), 2},
    };
    for (int q = 0; q < 3; q++) {
        if (frags[q].repeats <= 0 && q == 2)
            continue;
        smk_access *acc = &plan->acc[a++];
        acc->name = frags[q].name;
        acc->width = 16;
        acc->is_store = 0;
        acc->kind = SMK_ACC_LDSM_X4;
        acc->n_instr = warps * frags[q].per_warp;
        acc->repeats = frags[q].repeats;
        if (!acc->addr)
            continue;
        for (int w = 0; w < warps; w++)
            for (int lane = 0; lane < 32; lane++) {
                long long *out = acc->addr + (long long)w * frags[q].per_warp * 32 + lane;
                int i = 0, r = 0, c = 0;
                if (frags[q].what == 0) {
                    for (int ks = 0; ks < ksteps; ks++)
                        for (int mi = 0; mi < C::MI; mi++, i++) {
                            MP::a_ldsm(w, lane, mi, ks, &r, &c);
                            out[i * 32] = 2LL * S::a_off(r, c);
                        }
                } else if (frags[q].what == 1) {
                    for (int ks = 0; ks < ksteps; ks++)
                        for (int nj = 0; nj < C::NI / 2; nj++, i++) {
                            MP::b_ldsm(w, lane, nj, ks, &r, &c);
                            out[i * 32] = 2LL * S::b_off(r, c);
                        }
                } else {
                    for (; i < frags[q].per_warp; i++)
                        out[i * 32] = -1;
                }
            }
    }
    return a;
}

/* The staged row epilogue (epilogue_rows.cuh), once per block: the fragment pairs into the D tile
 * (4-byte st.shared, in the kernel's (mi, h, ni) order) and the row reads (ld.shared.v4, every lane,
 * rows past M included).  Appended to plan->acc from index a. */
template <class C, int LAYOUT>
int epi_accesses(long long blocks, smk_plan *plan, int a)
{
    using T = DTile<C, LAYOUT>;
    const int warps = C::THREADS / 32;
    const struct { const char *name; int width, store, per_warp; } kinds[2] = {
        {"D-tile st.shared (4 B pairs, staged epilogue)", 4, 1, C::MI * 2 * C::NI},
        {"D-tile ld.shared.v4 (16 B row chunks, staged epilogue)", 16, 0, T::ITERS},
    };
    for (int q = 0; q < 2; q++) {
        smk_access *acc = &plan->acc[a++];
        acc->name = kinds[q].name;
        acc->width = kinds[q].width;
        acc->is_store = kinds[q].store;
        acc->kind = SMK_ACC_LDST;
        acc->n_instr = warps * kinds[q].per_warp;
        acc->repeats = blocks;
        if (!acc->addr)
            continue;
        for (int w = 0; w < warps; w++)
            for (int lane = 0; lane < 32; lane++) {
                long long *out = acc->addr + (long long)w * kinds[q].per_warp * 32 + lane;
                int i = 0, r = 0, c = 0;
                if (q == 0) {
                    for (int mi = 0; mi < C::MI; mi++)
                        for (int h = 0; h < 2; h++)
                            for (int ni = 0; ni < C::NI; ni++, i++) {
                                Map<C>::d_frag(w, lane, mi, ni, h, &r, &c);
                                out[i * 32] = 2LL * T::off(r, c);
                            }
                } else {
                    for (; i < T::ITERS; i++) {
                        Map<C>::d_row(w, lane, i, T::CPR, &r, &c);
                        out[i * 32] = 2LL * T::off(r, 8 * c);
                    }
                }
            }
    }
    return a;
}

template <class C, int LAYOUT, int SID>
int block_plan(int64_t M, int64_t N, int64_t K, int64_t lda_k, bool staged, bool epi, bool in_place, smk_plan *plan)
{
    using S = Smem<C, LAYOUT, SID>;
    const long long blocks = ((M + C::BM - 1) / C::BM) * ((N + C::BN - 1) / C::BN);
    const long long kt_all = (K + C::BK - 1) / C::BK;
    /* A's rows hold lda_k columns (K, or the whole K of a split's slice of K columns); variant 0 pads,
     * rows read in place (staged, or the narrow cp.async's: in_place) keep their own pitch */
    const bool own = staged || in_place;
    const int64_t lda = own ? lda_k : (lda_k + 7) / 8 * 8, ldb = own ? N : (N + 7) / 8 * 8;
    PlanFill f[SMK_PLAN_MAX];
    const int n = fill_classes<C>(M, N, K, staged, f);
    int a = 0;
    for (int i = 0; i < n; i++) {
        smk_access *acc = &plan->acc[a];
        const int cnt = fill_addresses<C, LAYOUT, SID>(f[i], lda, ldb, acc->addr ? acc : NULL);
        if (cnt == 0)
            continue;
        acc->name = f[i].name;
        acc->width = 16;
        acc->is_store = 1;
        acc->kind = f[i].kind;
        acc->n_instr = cnt;
        acc->repeats = f[i].repeats;
        a++;
    }
    plan->n = frag_accesses<C, LAYOUT, SID>(blocks, kt_all, staged, plan, a);
    if (epi && blocks > 0)
        plan->n = epi_accesses<C, LAYOUT>(blocks, plan, plan->n);
    plan->blocks = blocks;
    plan->threads = C::THREADS;
    plan->smem_bytes = (int)S::BYTES;
    const smk_swz za = smk_tile_swizzle(S::ta()), zb = smk_tile_swizzle(S::tb());
    if (LAYOUT == SMK_SWIZZLE)
        snprintf(plan->config, sizeof plan->config, "%dx%dx%d, %d stages; A Swizzle<%d,%d,%d>, B Swizzle<%d,%d,%d>",
                 C::BM, C::BN, C::BK, C::STAGES, za.b, za.m, za.s, zb.b, zb.m, zb.s);
    else
        snprintf(plan->config, sizeof plan->config, "%dx%dx%d block tile, %d stages, 8 warps of %dx%d", C::BM,
                 C::BN, C::BK, C::STAGES, C::WM, C::WN);
    return 0;
}

template <class C>
int plan_cfg(int64_t M, int64_t N, int64_t K, int layout, int sid, bool staged, smk_plan *plan, int64_t lda_k = -1,
             bool epi = false, bool in_place = false)
{
    const int64_t lk = lda_k < 0 ? K : lda_k;
    switch (layout) {
    case SMK_NAIVE: return block_plan<C, SMK_NAIVE, 0>(M, N, K, lk, staged, epi, in_place, plan);
    case SMK_PAD: return block_plan<C, SMK_PAD, 0>(M, N, K, lk, staged, epi, in_place, plan);
    default:
        switch (sid) {
        case 0: return block_plan<C, SMK_SWIZZLE, 0>(M, N, K, lk, staged, epi, in_place, plan);
        case 1: return block_plan<C, SMK_SWIZZLE, 1>(M, N, K, lk, staged, epi, in_place, plan);
        case 2: return block_plan<C, SMK_SWIZZLE, 2>(M, N, K, lk, staged, epi, in_place, plan);
        default: return block_plan<C, SMK_SWIZZLE, 3>(M, N, K, lk, staged, epi, in_place, plan);
        }
    }
}

/* The memory-bound path (matvec.h) uses no shared memory: no accesses, every layout alike; the
 * config names the kernel and its split. */
static int mv_plan(const smk_mv_route &r, smk_plan *plan)
{
    plan->n = 0;
    plan->blocks = r.grid[0] * r.grid[1] * r.grid[2];
    plan->threads = 32 * r.nw;
    plan->smem_bytes = 0;
    const char *sum = r.spread ? ", spread sum" : " summed in the block"; /* config: 96 bytes */
    if (r.kind == SMK_MV_ROWS && r.cluster > 1) /* matvec.h smk_mv_rows_cluster */
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound ROWS %dx8 per thread, %d-block clusters, %lld k per warp; no shared memory",
                 r.tm, r.cluster, (long long)r.kc);
    else if (r.kind == SMK_MV_ROWS && r.nw > 4)
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound ROWS %dx8 per thread, 16-byte B rows, %lld K slices of %d warps%s; "
                 "no shared memory", r.tm, (long long)r.splits, r.nw, sum);
    else if (r.kind == SMK_MV_SKINNY && r.nw > 4)
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound SKINNY %d n-tiles, %lld rows per block, %lld K slices of %d warps%s; "
                 "no shared memory", r.npad, (long long)r.rpw, (long long)r.splits, r.nw, sum);
    else if (r.kind == SMK_MV_ROWS)
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound ROWS %dx8 per thread, 16-byte B rows, %lld K slices; no shared memory", r.tm,
                 (long long)r.splits);
    else if (r.kind == SMK_MV_COLS)
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound COLS %d columns, 16-byte A rows, %lld K slices; no shared memory", r.npad,
                 (long long)r.splits);
    else if (r.kind == SMK_MV_SKINNY)
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound SKINNY %d n-tiles, %lld rows per warp, %lld K slices; no shared memory",
                 r.npad, (long long)r.rpw, (long long)r.splits);
    else if (r.kind == SMK_MV_TALL) /* matvec_tall.h: r.tm warps per m-tile summed in the block, one launch */
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound TALL 16 rows x %d warps, %lld k per warp, %lld K slices; no shared memory", r.tm,
                 (long long)r.kc, (long long)r.splits);
    else if (r.kind == SMK_MV_MROW) /* matvec_mrow.h, gemm16_mrow.cu: D^T = B^T A^T on tensor cores */
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound MROW %d rows x %lld columns per warp, %lld K groups of 4 x %lld k; no shared memory", r.tm,
                 (long long)r.rpw, (long long)r.splits, (long long)r.kc);
    else if (r.kind == SMK_MV_SKINNY_M)
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound SKINNY_M %d n-tiles, %lld columns per warp, %lld K slices; no shared memory",
                 r.npad, (long long)r.rpw, (long long)r.splits);
    else if (r.kind == SMK_MV_MMA && r.chunks) /* level bit 8: ST 2 where D's rows are off 16 bytes (matvec_chunks.cuh) */
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound MMA %dx%d n-tiles x k steps, %lld m-tiles per warp, 16B D chunks; no shared memory",
                 r.npad, r.tm, (long long)r.rpw);
    else if (r.kind == SMK_MV_MMA)
        snprintf(plan->config, sizeof plan->config,
                 "memory-bound MMA %dx%d n-tiles x k steps, %lld m-tiles per warp, %lld K slices; no shared memory",
                 r.npad, r.tm, (long long)r.rpw, (long long)r.splits);
    else if (r.kind == SMK_MV_TINYK && r.rpw == 1) /* gemm16_tinyk.cu; fp32 D or C read: TINYK 8 x 32 npad */
        snprintf(plan->config, sizeof plan->config, "memory-bound TINYK16 8x%d per warp, 16-byte D row chunks; no shared memory",
                 SMK_MV_TK16_COLS);
    else
        snprintf(plan->config, sizeof plan->config, "memory-bound TINYK 8x%d per thread, %lld K slices; no shared memory",
                 32 * r.npad, (long long)r.splits);
    return 0;
}

static void append(smk_plan *plan, const char *text)
{
    const size_t n = strlen(plan->config);
    snprintf(plan->config + n, sizeof plan->config - n, "%s", text);
}

/* plan_variant's number for variant 0's 32x64 half tile (small.h VHalf), not a table variant */
constexpr int kPlanHalf = -2;

static int plan_variant(int variant, int64_t M, int64_t N, int64_t K, int64_t lda_k, int layout, int sid, bool staged,
                        smk_plan *plan, bool epi = false, bool in_place = false)
{
    switch (variant) {
    case kPlanHalf: return plan_cfg<VHalf>(M, N, K, layout, sid, staged, plan, lda_k, epi, in_place);
#define SMK_G16_CASE(n, V, name) case n: return plan_cfg<V>(M, N, K, layout, sid, staged, plan, lda_k, epi, in_place);
    SMK_G16_VARIANTS(SMK_G16_CASE)
#undef SMK_G16_CASE
    default: return -1;
    }
}

static bool same_access(const smk_access &x, const smk_access &y)
{
    return x.kind == y.kind && x.width == y.width && x.is_store == y.is_store && x.n_instr == y.n_instr &&
           strcmp(x.name, y.name) == 0;
}

/* A split's last slice of k_last columns (shorter than the others' k_chunk) into plan, whose accesses
 * are the other S - 1 slices': an access both have (same name, kind and instructions: the same
 * addresses, a k-tile's pattern does not depend on how many k-tiles follow) adds its repeats, one only
 * the last slice has (its partial k-tile) is appended.  Both calls of the plan protocol (addresses NULL,
 * then the caller's buffers) append the same entries.  Returns -1 where they would not fit. */
static int add_last_slice(int variant, int64_t M, int64_t N, int64_t k_last, int64_t K, int layout, int sid,
                          bool staged, bool in_place, smk_plan *plan)
{
    smk_plan tail;
    memset(&tail, 0, sizeof tail);
    int rc = plan_variant(variant, M, N, k_last, K, layout, sid, staged, &tail, false, in_place);
    if (rc != 0)
        return rc;
    int match[SMK_PLAN_MAX], n = plan->n;
    for (int j = 0; j < tail.n; j++) {
        match[j] = -1;
        for (int i = 0; i < plan->n && match[j] < 0; i++)
            if (same_access(plan->acc[i], tail.acc[j]))
                match[j] = i;
        if (match[j] < 0) {
            if (n == SMK_PLAN_MAX)
                return -1;
            tail.acc[j].addr = plan->acc[n].addr; /* the caller's buffer for appended entry n, or NULL */
            tail.acc[j].gaddr = plan->acc[n].gaddr;
            match[j] = -1 - n++;
        }
    }
    if (n > plan->n && plan->acc[plan->n].addr) { /* the appended entries' addresses */
        rc = plan_variant(variant, M, N, k_last, K, layout, sid, staged, &tail, false, in_place);
        if (rc != 0)
            return rc;
    }
    for (int j = 0; j < tail.n; j++) {
        if (match[j] >= 0) {
            plan->acc[match[j]].repeats += tail.acc[j].repeats;
        } else {
            long long *addr = plan->acc[-1 - match[j]].addr, *gaddr = plan->acc[-1 - match[j]].gaddr;
            plan->acc[-1 - match[j]] = tail.acc[j];
            plan->acc[-1 - match[j]].addr = addr;
            plan->acc[-1 - match[j]].gaddr = gaddr;
        }
    }
    plan->n = n;
    return 0;
}

/* Variant 0 as smk_gemm16_launch runs it: smk_gemm16_choose's tile; unaligned rows padded (the cp.async
 * kernel) or read in place (the staged kernel); a split K as S launches' worth of blocks: S - 1 slices of
 * k_chunk columns and the last one of what remains (add_last_slice; ncu counted the difference: 1245 x
 * 208 x 8608, 6 slices of 1472 and one of 1248, 524160 ldmatrix instructions, the last slice modelled
 * as a whole one 535680).  The reduction uses no shared memory.  Knob gemm16_staged: the deep staged
 * loads (load_deep.cuh; same shared-memory accesses) and level 2's dropped split, as the launcher decides;
 * knob gemm16_small: the 32x64 half tile (small.h) in the 64x64 tile's place, its own accesses. */
static int plan_v0(int64_t M, int64_t N, int64_t K, int layout, int sid, bool staged, bool epi, int sms,
                   smk_plan *plan)
{
    smk_gemm16_choice ch;
    /* each operand's own alignment, as launch_v0 asks (dense rows: K % 8, N % 8); the chooser pads every
     * unaligned operand or none */
    smk_gemm16_choose(M, N, K, sms, K % 8 == 0, N % 8 == 0, &ch);
    const bool in_place = staged && !ch.pad_a && !ch.pad_b;
    const bool unsplit = smk_gemm16_staged_unsplit(smk_gemm16_staged, M, N, K, in_place, sms, &ch) != 0;
    const int narrow = in_place ? smk_gemm16_narrow(smk_gemm16_narrow_async, ch.variant, ch.splits > 1 ? ch.k_chunk : K,
                                                    ch.splits, dense_width(K), dense_width(N)) : 0;
    const bool deep = !narrow && smk_gemm16_staged_deep(smk_gemm16_staged, M, N, ch.splits > 1 ? ch.k_chunk : K,
                                                        ch.splits, ch.variant, in_place, sms) != 0;
    const bool half = !narrow && sid == 0 &&
                      smk_gemm16_small_tile(smk_gemm16_small, M, N, ch.splits, ch.variant, in_place, sms);
    const int pv = half ? kPlanHalf : ch.variant;
    const bool rows = in_place && !narrow; /* the staged kernel's plan (narrow: the cp.async kernel's, split) */
    const int rc = plan_variant(pv, M, N, ch.splits > 1 ? ch.k_chunk : K, K, layout, sid, rows, plan,
                                epi && ch.splits == 1, narrow != 0); /* split-K writes fp32 partials from registers */
    if (rc != 0)
        return rc;
    if (ch.splits > 1) {
        const int64_t k_last = K - (int64_t)(ch.splits - 1) * ch.k_chunk;
        const bool shorter = k_last != ch.k_chunk;
        for (int i = 0; i < plan->n; i++)
            plan->acc[i].repeats *= shorter ? ch.splits - 1 : ch.splits;
        if (shorter && add_last_slice(pv, M, N, k_last, K, layout, sid, rows, narrow != 0, plan) != 0)
            for (int i = 0; i < plan->n; i++) /* no room: the last slice as a whole one, as before */
                plan->acc[i].repeats = plan->acc[i].repeats / (ch.splits - 1) * ch.splits;
        plan->blocks *= ch.splits;
        char t[48];
        snprintf(t, sizeof t, "; split K %d x %lld", ch.splits, (long long)ch.k_chunk);
        append(plan, t);
    }
    if (narrow) {
        narrow_accesses(plan, narrow & 31, narrow >> 8);
        char t[48];
        snprintf(t, sizeof t, "; cp.async A%d B%d", narrow & 31, narrow >> 8); /* in place, copy widths */
        append(plan, t);
    } else if (half) { /* the half tile always runs the deep loads (small.h) */
        char t[48];
        snprintf(t, sizeof t, "; half tile, %s x%d", smk_gemm16_small >= 3 ? "wide" : "deep", SMK_G16_DEEP);
        append(plan, t);
    } else if (deep) { /* the same tile, stores and ldmatrix: only the loads' depth (tiles.h Deep, load_deep.cuh) */
        char t[48]; /* plan->config holds 95 characters: "k-tiles of loads in flight" said briefly */
        snprintf(t, sizeof t, "; in place, %s x%d%s", small_kind(smk_gemm16_small, false, true, sid) ? "wide" : "deep",
                 SMK_G16_DEEP, unsplit ? ", no split" : "");
        append(plan, t);
    } else if (staged) {
        append(plan, in_place ? "; unaligned rows in place" : "; unaligned rows padded");
    }
    return 0;
}

} /* namespace g16 */
} /* namespace smk */

/* Variant 0 replays smk_gemm16_choose (plan_v0): its tile, in place or padded, a split K as S times the
 * blocks of k_chunk columns (api/gemm16.h's "variant 0 pads such operands" is the pre-#28 variant's rule,
 * kVariantPre28; variant 0 pads only where its chooser says so). */
static int gemm16_plan_marked(int64_t M, int64_t N, int64_t K, int layout, int swz_b, int swz_m, int swz_s,
                              int variant, int sms, smk_plan *plan);

extern "C" int smk_gemm16_plan(int64_t M, int64_t N, int64_t K, int layout, int swz_b, int swz_m, int swz_s,
                               int variant, int sms, smk_plan *plan)
{
    const int rc = gemm16_plan_marked(M, N, K, layout, swz_b, swz_m, swz_s, variant, sms, plan);
    if (rc == 0)
        smk::g16::strip_partial_marks(plan); /* the 16-byte copies' sources: plain offsets again */
    return rc;
}

static int gemm16_plan_marked(int64_t M, int64_t N, int64_t K, int layout, int swz_b, int swz_m, int swz_s,
                              int variant, int sms, smk_plan *plan)
{
    using namespace smk::g16;
    const int sid = swizzle_id(swz_b, swz_m, swz_s);
    if (!plan || M < 0 || N < 0 || K < 0 || layout < 0 || layout >= SMK_NUM_LAYOUTS || sid < 0 ||
        (sid > 0 && layout != SMK_SWIZZLE) || sms < 1)
        return -1;
    /* dense row-major operands from a 16-byte-aligned allocation (as smemkit.bench lays them out):
     * rows are 16-byte aligned iff K and N are multiples of 8 */
    const bool staged = K > 0 && (K % 8 != 0 || N % 8 != 0);
    /* the staged epilogue as the launch decides it for a 2-byte D from such an allocation, beta == 0 */
    const bool epi = smk_gemm16_epi_staged_n(smk_gemm16_epi, N, K, N % 2 == 0, 0, 0) != 0;
    int rc = -1;
    smk_mv_route r;
    if (variant == 0 && smk_mv_route_epi(M, N, K, smk_gemm16_matvec_mode, smk_gemm16_mv_kmax, smk_gemm16_mv_skinny,
                                         smk_gemm16_epi, &r))
        return mv_plan(r, plan);
    const int narrow = variant > 0 && staged && smk_gemm16_narrow_async >= 2 /* the launcher's forced level 2 */
                           ? smk_gemm16_narrow(smk_gemm16_narrow_async, variant, K, 1, dense_width(K), dense_width(N))
                           : 0;
    if (narrow) {
        rc = plan_variant(variant, M, N, K, K, layout, sid, false, plan, epi, true);
        if (rc == 0) {
            narrow_accesses(plan, narrow & 31, narrow >> 8);
            char t[32];
            snprintf(t, sizeof t, "; cp.async A%d B%d", narrow & 31, narrow >> 8);
            append(plan, t);
        }
        return rc;
    }
    if (variant > 0 && sid == 0 && (smk_gemm16_small == 2 || smk_gemm16_small == 4) &&
        smk_gemm16_small_tile(smk_gemm16_small, M, N, 1, variant, staged, sms)) { /* tests: forced variant 9 */
        rc = plan_cfg<VHalf>(M, N, K, layout, sid, staged, plan, -1, epi);
        if (rc == 0)
            append(plan, smk_gemm16_small >= 3 ? "; half tile, wide x4" : "; half tile, deep x4");
        return rc;
    }
    switch (variant) {
    case 0:
        return plan_v0(M, N, K, layout, sid, staged, epi, sms, plan);
    case kVariantPre28: /* unaligned rows padded first, so always the cp.async kernel */
        rc = small_grid(M, N, sms) ? plan_cfg<VSmall>(M, N, K, layout, sid, false, plan, -1, epi)
                                   : plan_cfg<VAligned>(M, N, K, layout, sid, false, plan, -1, epi);
        if (rc == 0 && staged)
            append(plan, "; unaligned rows padded");
        return rc;
#define SMK_G16_CASE(n, V, name) case n: return plan_cfg<V>(M, N, K, layout, sid, staged, plan, -1, epi);
    SMK_G16_VARIANTS(SMK_G16_CASE)
#undef SMK_G16_CASE
    default: return -1;
    }
}
