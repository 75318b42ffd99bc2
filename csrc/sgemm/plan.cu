/*
 * sgemm/plan.cu -- smk_sgemm_plan: the host replay of one block's shared-memory instructions of the
 * config a launch would run (choose.cu), for the bank model and explain() (runtime.h).  Every address
 * comes from the kernels' own thread maps (maps.h) and smk_tile_offset, so the replay is the kernel's.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"
#include "api/sgemm.h"
#include "api/sgemm_tinyk.h"
#include "api/splitk.h"
#include "sgemm/choose.h"
#include "sgemm/configs.h"
#include "sgemm/deep.h"
#include "sgemm/epi.h"
#include "sgemm/gemv.h"
#include "sgemm/rows_n.h"
#include "sgemm/launch.h"
#include "sgemm/maps.h"

namespace smk {

static void plan_access(smk_access *acc, const char *name, int width, int is_store, int n_instr)
{
    acc->name = name;
    acc->width = width;
    acc->is_store = is_store;
    acc->kind = SMK_ACC_LDST;
    acc->n_instr = n_instr;
}

/* A cp.async copy access (LDGSTS.ZFILL: every copy of the deep kernel carries a src-size). */
static void plan_copy(smk_access *acc, const char *name, int width, int n_instr)
{
    plan_access(acc, name, width, 1, n_instr);
    acc->kind = SMK_ACC_CPASYNC_ZFILL;
}

/* The tile kernel's fragment loads of rows k < rows of one thread, lane-major from out (i-th access
 * at out[i * 32]): A (operand 0) or B (operand 1), in the kernel's order. */
template <class Cfg>
static void tile_frag_addrs(smk_tile TA, smk_tile TB, int a_elems, int operand, int rows, int tid, long long *out)
{
    int i = 0;
    for (int k = 0; k < rows; k++)
        if (operand == 0) {
            for (int f = 0; f < Cfg::WMITER; f++)
                for (int t = 0; t < Cfg::TM; t += 4, i++)
                    out[i * 32] = 4LL * smk_tile_offset(TA, k, SgemmMap<Cfg>::a_col(tid) + f * Cfg::WSUBM + t);
        } else {
            for (int f = 0; f < Cfg::WNITER; f++)
                for (int t = 0; t < Cfg::TN; t += 4, i++)
                    out[i * 32] = 4LL * (a_elems + smk_tile_offset(TB, k, SgemmMap<Cfg>::b_col(tid) + f * Cfg::WSUBN + t));
        }
}

/* The tile kernel's stores of one thread: access 0 the transposed A store, 1 the B store. */
template <class Cfg>
static void tile_store_addrs(smk_tile TA, smk_tile TB, int a_elems, int a, int tid, long long *out)
{
    int i = 0;
    if (a == 0) {
        for (int j = 0; j < Cfg::A_LOADS; j++) {
            int row = 0, kc = 0;
            SgemmMap<Cfg>::a_load(j, tid, &row, &kc);
            for (int e = 0; e < 4; e++, i++)
                out[i * 32] = 4LL * smk_tile_offset(TA, kc + e, row);
        }
    } else {
        for (int j = 0; j < Cfg::B_LOADS; j++, i++) {
            int row = 0, col = 0;
            SgemmMap<Cfg>::b_load(j, tid, &row, &col);
            out[i * 32] = 4LL * (a_elems + smk_tile_offset(TB, row, col));
        }
    }
}

/* One block of the tile kernel.  Per k-tile: the stores of the next tile and BK fragment rows.  Once
 * per block and K slice (the last two, the row's once_accesses): the fragment row 0 the main loop
 * loads from the other stage after its last k-tile (the cross-barrier prefetch, unconditional). */
template <class Cfg>
static int tile_block_plan(int layout, smk_plan *plan)
{
    const smk_tile TA = smk_sgemm_tile(layout, Cfg::LOG2_BM), TB = smk_sgemm_tile(layout, Cfg::LOG2_BN);
    const int a_elems = smk_tile_elems(TA, Cfg::BK);
    const int warps = Cfg::THREADS / 32;
    /* Stage 1 sits stage_elems floats after stage 0; when that is a whole number of bank rows both
     * stages see the same banks and one stage stands for all k-tiles. */
    if ((a_elems + smk_tile_elems(TB, Cfg::BK)) % 32 != 0)
        return -1;
    const int n_a_frag = Cfg::WMITER * (Cfg::TM / 4), n_b_frag = Cfg::WNITER * (Cfg::TN / 4);
    const struct { const char *name; int width, is_store, per_warp; } kinds[6] = {
        {"A-tile store (transposed, 4 x STS.32 per float4)", 4, 1, Cfg::A_LOADS * 4},
        {"B-tile store (STS.128)", 16, 1, Cfg::B_LOADS},
        {"A fragment load (LDS.128)", 16, 0, Cfg::BK * n_a_frag},
        {"B fragment load (LDS.128)", 16, 0, Cfg::BK * n_b_frag},
        {"A fragment load after the last k-tile (LDS.128, row 0, unused)", 16, 0, n_a_frag},
        {"B fragment load after the last k-tile (LDS.128, row 0, unused)", 16, 0, n_b_frag},
    };
    for (int a = 0; a < 6; a++) {
        smk_access *acc = &plan->acc[a];
        acc->name = kinds[a].name;
        acc->width = kinds[a].width;
        acc->is_store = kinds[a].is_store;
        acc->n_instr = warps * kinds[a].per_warp;
        if (!acc->addr)
            continue;
        for (int tid = 0; tid < Cfg::THREADS; tid++) {
            long long *out = acc->addr + (long long)(tid / 32) * kinds[a].per_warp * 32 + tid % 32;
            if (a < 2)
                tile_store_addrs<Cfg>(TA, TB, a_elems, a, tid, out);
            else
                tile_frag_addrs<Cfg>(TA, TB, a_elems, a % 2, a < 4 ? Cfg::BK : 1, tid, out);
        }
    }
    plan->n = 6;
    plan->threads = Cfg::THREADS;
    plan->smem_bytes = (int)sgemm_smem_bytes<Cfg, SMK_NAIVE>();
    if (layout == SMK_PAD)
        plan->smem_bytes = (int)sgemm_smem_bytes<Cfg, SMK_PAD>();
    snprintf(plan->config, sizeof plan->config, "%dx%dx%d block tile, %d threads, %dx%d per thread",
             Cfg::BM, Cfg::BN, Cfg::BK, Cfg::THREADS, Cfg::WMITER * Cfg::TM, Cfg::WNITER * Cfg::TN);
    return 0;
}

/* The operands' global side for the deep plan's cp.async sources: dense row-major A (M x K) and B (K x N) from
 * aligned allocations, and the first K slice's length (the k-tile replayed is its first). */
struct DeepSrc {
    int64_t M, N, K, klen;
};

/* The deep pipeline (tile_deep.cuh) over the tile plan, its A tile deep.h's smk_sgemm_deep_tile (the A fragment
 * loads replayed from it too); its stores are cp.async copies (deep.h SgemmDeepMap), every one with a src-size
 * operand (LDGSTS.ZFILL): A's of one element each, a warp's 4 rows x 8 k; B's one 16-byte copy per float4 at
 * tile.cuh's STS.128 address (vec_b: B's rows on 16 bytes), or of one element each, a warp's 32 consecutive
 * columns of one row.  Each carries its lanes' global sources for the bank model's LDGSTS rule, those of block
 * (0, 0)'s first k-tile as the kernel forms them (a copy of a row past M, a column or float4 past N, or k past the
 * slice has size 0: source -1, it reads nothing): every other block, slice and k-tile moves all of an
 * instruction's sources by one shift (A: 32 rows of K floats, 16 floats; B: 16 rows of N floats, N % 4 == 0 for
 * the 16-byte copies, 128 floats), which neither LDGSTS rule sees; only the edge blocks (rows past M in the last
 * block row, columns past N in the last block column: their own accesses) and a short last k-tile read
 * otherwise.  kSgemmDeepStages stages of shared memory.  The fragment loads are the tile plan's
 * (tile_block_plan), A's re-addressed in the deep A tile.  The launch stores k-tiles groups, not k-tiles + 1
 * (smk_sgemm_plan).  Returns which edge accesses it appended after the tile plan's (bit 0: the last block
 * row's A copies, bit 1: the last block column's B copies, in that order; the LDS placeholders last). */
template <class Cfg>
static int tile_deep_plan(int layout, int vec_b, const DeepSrc &g, smk_plan *plan)
{
    using Map = SgemmDeepMap<Cfg>;
    const smk_tile TA = smk_sgemm_deep_tile(layout, Cfg::LOG2_BM), TB = smk_sgemm_tile(layout, Cfg::LOG2_BN);
    const int a_elems = smk_tile_elems(TA, Cfg::BK), warps = Cfg::THREADS / 32;
    const int n_a_frag = Cfg::WMITER * (Cfg::TM / 4);
    for (int a = 2; a <= 4; a += 2) { /* the A fragment loads (tile_block_plan's 2 and 4) from the deep A tile */
        const int rows = a == 2 ? Cfg::BK : 1;
        for (int tid = 0; tid < Cfg::THREADS && plan->acc[a].addr; tid++)
            tile_frag_addrs<Cfg>(TA, TB, a_elems, 0, rows, tid,
                                 plan->acc[a].addr + (long long)(tid / 32) * rows * n_a_frag * 32 + tid % 32);
    }
    const int per_warp[2] = {Map::A_ELEMS, vec_b ? Cfg::B_LOADS : Map::B_ELEMS};
    plan_copy(&plan->acc[0], "A-tile copy (transposed, cp.async 4 B per element, 4 rows x 8 k a warp)", 4,
              warps * per_warp[0]);
    plan_copy(&plan->acc[1],
              vec_b ? "B-tile copy (cp.async 16 B per float4)"
                    : "B-tile copy (cp.async 4 B per element, a warp's 32 columns of one row)",
              vec_b ? 16 : 4, warps * per_warp[1]);
    const int64_t kin = g.klen < Cfg::BK ? g.klen : Cfg::BK; /* the first k-tile's rows in the slice */
    /* Where block row 0 is whole but the last one is not, the last block row's A copies apart: their rows past M
     * are copies of size 0, lanes that the LDGSTS rule counts apart (the repeats: smk_sgemm_plan); likewise the
     * last block column's B copies where block column 0 is whole and the last one is not. */
    const int64_t last_m = g.M > Cfg::BM && g.M % Cfg::BM ? g.M / Cfg::BM * Cfg::BM : 0;
    const int64_t last_n = g.N > Cfg::BN && g.N % Cfg::BN ? g.N / Cfg::BN * Cfg::BN : 0;
    const int last_row = last_m ? plan->n++ : 0, last_col = last_n ? plan->n++ : 0;
    if (last_row)
        plan_copy(&plan->acc[last_row], "A-tile copy (transposed, cp.async 4 B per element), last block row", 4,
                  warps * per_warp[0]);
    if (last_col)
        plan_copy(&plan->acc[last_col],
                  vec_b ? "B-tile copy (cp.async 16 B per float4), last block column"
                        : "B-tile copy (cp.async 4 B per element), last block column",
                  vec_b ? 16 : 4, warps * per_warp[1]);
    for (int tid = 0; tid < Cfg::THREADS && plan->acc[0].addr && plan->acc[1].addr; tid++)
        for (int a = 0; a < 2; a++)
            for (int i = 0; i < per_warp[a]; i++) {
                int row = 0, col = 0;
                long long src = -1, edge = -1; /* -1: a copy of size 0 (from the operand's base), it reads nothing */
                if (a == 0) {
                    Map::a_copy(i, tid, &col, &row); /* As[k][m]: row k, column m */
                    if (row < kin && col < g.M) /* block row 0 */
                        src = 4LL * (col * g.K + row);
                    if (row < kin && last_m + col < g.M) /* the last block row */
                        edge = 4LL * ((last_m + col) * g.K + row);
                } else {
                    if (vec_b)
                        SgemmMap<Cfg>::b_load(i, tid, &row, &col); /* a float4 wholly in or past N (N % 4 == 0) */
                    else
                        Map::b_copy(i, tid, &row, &col);
                    if (row < kin && col < g.N) /* block column 0 */
                        src = 4LL * (row * g.N + col);
                    if (row < kin && last_n + col < g.N) /* the last block column */
                        edge = 4LL * (row * g.N + last_n + col);
                }
                const long long off = a == 0 ? smk_tile_offset(TA, row, col) : a_elems + smk_tile_offset(TB, row, col);
                const long long at = ((long long)(tid / 32) * per_warp[a] + i) * 32 + tid % 32;
                const int e = a == 0 ? last_row : last_col;
                plan->acc[a].addr[at] = 4LL * off;
                if (plan->acc[a].gaddr)
                    plan->acc[a].gaddr[at] = src;
                if (e && plan->acc[e].addr)
                    plan->acc[e].addr[at] = 4LL * off;
                if (e && plan->acc[e].gaddr)
                    plan->acc[e].gaddr[at] = edge;
            }
    /* ncu's smsp__inst_executed_op_shared_ld counts 3 LDS a warp per k-tile that never execute (the compiler's
     * `@!PT LDS RZ, [RZ]` beside the cp.async groups, as in the tensor-core GEMM): measured on 20x3000x500,
     * 16x1003x777, 12x2500x700, 28x1536x1000 and 30x4100x256 (session 46).  No lane, no wavefront. */
    const int ph = plan->n++;
    plan_access(&plan->acc[ph], "LDS placeholders beside the cp.async groups (never executed, no wavefront)", 4, 0,
                warps * 3);
    for (long long i = 0; plan->acc[ph].addr && i < (long long)warps * 3 * 32; i++)
        plan->acc[ph].addr[i] = -1;
    plan->smem_bytes = plan->smem_bytes / Cfg::STAGES * kSgemmDeepStages;
    const size_t used = strlen(plan->config);
    snprintf(plan->config + used, sizeof plan->config - used, ", deep: %d cp.async stages", kSgemmDeepStages);
    return (last_row ? 1 : 0) | (last_col ? 2 : 0);
}

/* The staged epilogue's shared accesses (epilogue_staged.cuh), appended to the tile plan: once per block
 * and K slice, the staging stores, the row loads and, where the rows are re-aligned (D or C off 16
 * bytes), the second row load of the previous chunk.  rows: the block's rows in range (BM, but M mod BM in
 * the last block row: `last` names those accesses); ld: D's pitch in floats.  As nvcc emits it (SASS, sm_90):
 * a chunk's loads sit under its row's m < M test (the asm volatile loads are not sunk under it; the branch rises
 * above them), the re-aligned load of chunk k - 1 under sh != 0 as well (shift4 reads it only then; sh = (m ld)
 * mod 4 on an aligned D, bm a multiple of 4); a lane out of them takes no part, a warp issues an instruction
 * where one of its lanes does.  Returns how many accesses it appended. */
template <class Cfg>
static int tile_epi_plan(int layout, int realign, int rows, int64_t ld, int last, smk_plan *plan)
{
    using Map = SgemmEpiMap<Cfg>;
    const smk_tile TC = Map::c_tile(layout);
    const int warps = Cfg::THREADS / 32, n0 = plan->n, stage = Cfg::WMITER * Cfg::TM * Cfg::WNITER * (Cfg::TN / 4);
    auto on = [&](int tid, int it, int prev) {
        int r = 0, k = 0;
        Map::c_chunk(it, tid, &r, &k);
        return r < rows && (!prev || (r * ld & 3) != 0);
    };
    int n_ld[2] = {0, 0}; /* warp instructions: chunk k, chunk k - 1 */
    for (int p = 0; p < 1 + realign; p++)
        for (int w = 0; w < warps; w++)
            for (int it = 0; it < Map::C_ITERS; it++) {
                int any = 0;
                for (int lane = 0; lane < 32; lane++)
                    any |= on(w * 32 + lane, it, p);
                n_ld[p] += any;
            }
    static const char *const kNames[2][3] = {
        {"C-tile staging store (STS.128, the accumulators)", "C-tile row load (LDS.128, chunk k of a row)",
         "C-tile row load of chunk k - 1 (LDS.128, rows off 16 bytes)"},
        {"C-tile staging store (STS.128, the accumulators; last block row)",
         "C-tile row load (LDS.128, chunk k of a row; last block row)",
         "C-tile row load of chunk k - 1 (LDS.128, rows off 16 bytes; last block row)"}};
    plan_access(&plan->acc[n0], kNames[last][0], 16, 1, warps * stage);
    for (int p = 0; p < 1 + realign; p++)
        plan_access(&plan->acc[n0 + 1 + p], kNames[last][1 + p], 16, 0, n_ld[p]);
    for (int tid = 0; tid < Cfg::THREADS && plan->acc[n0].addr; tid++) {
        const int w = tid / 32, lane = tid % 32;
        long long *st = plan->acc[n0].addr + (long long)w * stage * 32 + lane;
        int i = 0;
        for (int f = 0; f < Cfg::WMITER; f++)
            for (int ii = 0; ii < Cfg::TM; ii++)
                for (int jn = 0; jn < Cfg::WNITER; jn++)
                    for (int j = 0; j < Cfg::TN; j += 4, i++) {
                        int r = 0, c = 0;
                        Map::c_stage(tid, f, ii, jn, j, &r, &c);
                        st[i * 32] = 4LL * smk_tile_offset(TC, r, c);
                    }
    }
    for (int p = 0; p < 1 + realign && plan->acc[n0].addr; p++) {
        long long at = 0;
        for (int w = 0; w < warps; w++)
            for (int it = 0; it < Map::C_ITERS; it++) {
                int any = 0;
                for (int lane = 0; lane < 32; lane++)
                    any |= on(w * 32 + lane, it, p);
                for (int lane = 0; any && lane < 32; lane++) {
                    int r = 0, k = 0;
                    Map::c_chunk(it, w * 32 + lane, &r, &k);
                    const int kk = p ? (k + Map::C_CPR - 1) % Map::C_CPR : k;
                    plan->acc[n0 + 1 + p].addr[at * 32 + lane] =
                        on(w * 32 + lane, it, p) ? 4LL * smk_tile_offset(TC, r, 4 * kk) : -1;
                }
                at += any;
            }
    }
    plan->n = n0 + (realign ? 3 : 2);
    const int smem = (int)(layout == SMK_PAD ? sgemm_epi_smem_bytes<Cfg, SMK_PAD>() : sgemm_epi_smem_bytes<Cfg, SMK_NAIVE>());
    if (smem > plan->smem_bytes)
        plan->smem_bytes = smem;
    if (!last) {
        const size_t used = strlen(plan->config);
        snprintf(plan->config + used, sizeof plan->config - used, ", staged epilogue%s", realign ? " (re-aligned rows)" : "");
    }
    return plan->n - n0;
}

/* One block of skinny-m per k-tile: the A-slice store and the broadcast A reads. */
template <class Cfg>
static int skinny_m_block_plan(int layout, smk_plan *plan)
{
    const smk_tile TA = smk_sgemm_tile(layout, Cfg::LOG2_BK);
    const int a_elems = smk_tile_elems(TA, Cfg::MS), warps = Cfg::THREADS / 32;
    /* One stage stands for both: stage 1 is stage 0 shifted by a_elems floats, a multiple of 4 (16 bytes),
     * which permutes the banks of every 16-byte access alike; so each access's wavefronts (a quarter warp's
     * 128 contiguous bytes, or one broadcast address) are the same in either stage (MS = 4 in pad: a_elems
     * = 4 x 68, stage 1 16 banks on). */
    if (a_elems % 4 != 0)
        return -1;
    const int reads = (Cfg::BK / 4) * Cfg::MS; /* LDS.128 per warp per k-tile */
    plan_access(&plan->acc[0], "A-slice store (STS.128, As[m][k] untransposed)", 16, 1, warps * Cfg::A_LOADS);
    plan_access(&plan->acc[1], "A broadcast load (LDS.128, one address per warp)", 16, 0, warps * reads);
    if (plan->acc[0].addr && plan->acc[1].addr)
        for (int tid = 0; tid < Cfg::THREADS; tid++) {
            const int w = tid / 32, lane = tid % 32;
            long long *st = plan->acc[0].addr + (long long)w * Cfg::A_LOADS * 32 + lane;
            for (int j = 0; j < Cfg::A_LOADS; j++) {
                int m = 0, kc = 0;
                SkinnyMMap<Cfg>::a_load(j, tid, &m, &kc);
                st[j * 32] = 4LL * smk_tile_offset(TA, m, kc);
            }
            /* The kernel's order: batches of U k, groups of 4 k, rows m. */
            long long *ld = plan->acc[1].addr + (long long)w * reads * 32 + lane;
            int i = 0;
            for (int kb = 0; kb < Cfg::BK; kb += Cfg::U)
                for (int k4 = 0; k4 < Cfg::U; k4 += 4)
                    for (int m = 0; m < Cfg::MS; m++, i++)
                        ld[i * 32] = 4LL * smk_tile_offset(TA, m, kb + k4);
        }
    plan->n = 2;
    plan->threads = Cfg::THREADS;
    plan->smem_bytes = Cfg::STAGES * a_elems * (int)sizeof(float);
    /* PF rows: the same shared accesses in the same order (only B's global loads move earlier) */
    snprintf(plan->config, sizeof plan->config, "skinny-M %dx%dx%d block tile, %d threads, %dx4 per thread%s",
             Cfg::MS, Cfg::BN, Cfg::BK, Cfg::THREADS, Cfg::MS, Cfg::PF ? ", next B batch prefetched" : "");
    return 0;
}

/* One block of skinny-n per k-tile: the transposed B-slice store and the B reads. */
template <class Cfg>
static int skinny_n_block_plan(int layout, smk_plan *plan)
{
    const smk_tile TB = smk_sgemm_tile(layout, Cfg::LOG2_BK);
    const int b_elems = smk_tile_elems(TB, Cfg::NS), warps = Cfg::THREADS / 32;
    if (b_elems % 32 != 0)
        return -1;
    const int stores = Cfg::B_LOADS * 4, reads = Cfg::STEPS * Cfg::NS; /* per warp per k-tile */
    plan_access(&plan->acc[0], "B-slice store (transposed, 4 x STS.32 per float4)", 4, 1, warps * stores);
    plan_access(&plan->acc[1], "B load (LDS.128, Bs[n][k..k+3])", 16, 0, warps * reads);
    if (plan->acc[0].addr && plan->acc[1].addr)
        for (int tid = 0; tid < Cfg::THREADS; tid++) {
            const int w = tid / 32, lane = tid % 32;
            long long *st = plan->acc[0].addr + (long long)w * stores * 32 + lane;
            for (int j = 0, i = 0; j < Cfg::B_LOADS; j++) {
                int k = 0, n = 0;
                SkinnyNMap<Cfg>::b_load(j, tid, &k, &n);
                for (int e = 0; e < 4; e++, i++)
                    st[i * 32] = 4LL * smk_tile_offset(TB, n + e, k);
            }
            long long *ld = plan->acc[1].addr + (long long)w * reads * 32 + lane;
            for (int s = 0, i = 0; s < Cfg::STEPS; s++)
                for (int n = 0; n < Cfg::NS; n++, i++)
                    ld[i * 32] = 4LL * smk_tile_offset(TB, n, SkinnyNMap<Cfg>::a_k(lane, s));
        }
    plan->n = 2;
    plan->threads = Cfg::THREADS;
    plan->smem_bytes = Cfg::STAGES * b_elems * (int)sizeof(float);
    snprintf(plan->config, sizeof plan->config, "skinny-N %dx%dx%d block tile, %d threads, %d rows per warp%s",
             Cfg::BM, Cfg::NS, Cfg::BK, Cfg::THREADS, Cfg::R, Cfg::PF ? ", next A tile prefetched" : "");
    return 0;
}

/* The tiny-k kernel (tinyk.cuh): no shared memory, so no access for the bank model; the plan says so
 * in its config string (and smk_sgemm_plan appends ", lean (K-deep panel)" where the launch takes
 * tinyk_lean.cuh's variant, smk_sgemm_tinyk_lean). */
template <class Cfg>
static int tinyk_block_plan(int layout, smk_plan *plan)
{
    (void)layout;
    plan->n = 0;
    plan->threads = Cfg::THREADS;
    plan->smem_bytes = 0;
    snprintf(plan->config, sizeof plan->config, "tiny-K %dx%d block tile, %d threads, no shared memory", Cfg::TILE_M,
             Cfg::TILE_N, Cfg::THREADS);
    return 0;
}

/* The matrix-vector kernel (matvec.cuh): no k-tiles; once per block and K slice, warps 1..KW-1 store their
 * MS rows of partial sums and warp 0 loads them all (both LDS/STS.128 of one 512-byte row per warp). */
template <class Cfg>
static int matvec_block_plan(int layout, smk_plan *plan)
{
    const smk_tile TR = MatVecMap<Cfg>::red_tile(layout);
    const int n = (Cfg::KW - 1) * Cfg::MS; /* per warp: stores by each warp w > 0, loads by warp 0 */
    plan_access(&plan->acc[0], "partial-sum store (STS.128, warps 1..KW-1, Red[(w-1)*MS+m][4*lane])", 16, 1, n);
    plan_access(&plan->acc[1], "partial-sum load (LDS.128, warp 0)", 16, 0, n);
    if (plan->acc[0].addr && plan->acc[1].addr)
        for (int lane = 0; lane < 32; lane++) {
            int i = 0;
            for (int w = 1; w < Cfg::KW; w++)
                for (int m = 0; m < Cfg::MS; m++, i++) {
                    plan->acc[0].addr[(long long)i * 32 + lane] = 4LL * MatVecMap<Cfg>::red_offset(TR, w, m, lane);
                    plan->acc[1].addr[(long long)i * 32 + lane] = 4LL * MatVecMap<Cfg>::red_offset(TR, w, m, lane);
                }
        }
    plan->n = 2;
    plan->threads = Cfg::THREADS;
    plan->smem_bytes = smk_tile_elems(TR, n) * (int)sizeof(float);
    snprintf(plan->config, sizeof plan->config, "matvec %dx%d block tile, %d warps over K, %d B rows per batch",
             Cfg::MS, Cfg::TILE_N, Cfg::KW, Cfg::U);
    return 0;
}

/* A row's block plan and how its accesses repeat.  store_after_last: each block of each K slice
 * stores one shared group after its last k-tile (every kernel's main loop); once_accesses: the block
 * plan's last accesses run once per block and K slice, not per k-tile (the tile kernel's fragment row
 * loaded after its last k-tile). */
struct SgemmPlanEntry {
    int (*plan)(int layout, smk_plan *plan);
    int store_after_last, once_accesses;
    int (*epi)(int layout, int realign, int rows, int64_t ld, int last, smk_plan *plan); /* TILE rows: staged epilogue */
    int (*deep)(int layout, int vec_b, const DeepSrc &g, smk_plan *plan); /* TILE rows: the deep pipeline */
};
#define SMK_SGEMM_PLAN_ROW(NAME, KIND, ARGS, COST) SMK_SGEMM_PLAN_ROW_(KIND, ARGS)
#define SMK_SGEMM_PLAN_ROW_(KIND, ARGS)                                                                     \
    {SMK_SGEMM_PLAN_FN_##KIND ARGS, 1, SMK_SGEMM_PLAN_ONCE_##KIND, SMK_SGEMM_PLAN_EPI_##KIND ARGS,                \
     SMK_SGEMM_PLAN_DEEP_##KIND ARGS},
#define SMK_SGEMM_PLAN_EPI_TILE(...) tile_epi_plan<SgemmCfg<__VA_ARGS__>>
#define SMK_SGEMM_PLAN_DEEP_TILE(...) tile_deep_plan<SgemmCfg<__VA_ARGS__>>
#define SMK_SGEMM_PLAN_DEEP_SKINNY_M(...) nullptr
#define SMK_SGEMM_PLAN_DEEP_SKINNY_N(...) nullptr
#define SMK_SGEMM_PLAN_DEEP_TINYK(...) nullptr
#define SMK_SGEMM_PLAN_DEEP_MATVEC(...) nullptr
#define SMK_SGEMM_PLAN_EPI_SKINNY_M(...) nullptr
#define SMK_SGEMM_PLAN_EPI_SKINNY_N(...) nullptr
#define SMK_SGEMM_PLAN_EPI_TINYK(...) nullptr
#define SMK_SGEMM_PLAN_EPI_MATVEC(...) nullptr
#define SMK_SGEMM_PLAN_FN_TILE(...) tile_block_plan<SgemmCfg<__VA_ARGS__>>
#define SMK_SGEMM_PLAN_FN_SKINNY_M(...) skinny_m_block_plan<SkinnyMCfg<__VA_ARGS__>>
#define SMK_SGEMM_PLAN_FN_SKINNY_N(...) skinny_n_block_plan<SkinnyNCfg<__VA_ARGS__>>
#define SMK_SGEMM_PLAN_ONCE_TILE 2
#define SMK_SGEMM_PLAN_ONCE_SKINNY_M 0
#define SMK_SGEMM_PLAN_ONCE_SKINNY_N 0
#define SMK_SGEMM_PLAN_FN_TINYK(...) tinyk_block_plan<TinyKCfg<__VA_ARGS__>>
#define SMK_SGEMM_PLAN_ONCE_TINYK 0
#define SMK_SGEMM_PLAN_FN_MATVEC(...) matvec_block_plan<MatVecCfg<__VA_ARGS__>>
#define SMK_SGEMM_PLAN_ONCE_MATVEC 2
static const SgemmPlanEntry kPlans[kNumConfigs] = {{nullptr, 0, 0, nullptr, nullptr}, SMK_SGEMM_CONFIGS(SMK_SGEMM_PLAN_ROW)};

/* Whether the launch of ch stages its epilogue (launch.cu's choice on dense row-major operands from an
 * aligned allocation: D's pitch N, or split partials in the workspace of pitch N rounded up to 4), and
 * whether its rows are re-aligned.  A split the tile kernel finishes itself keeps the register epilogue
 * (assumed: the stream has its counters). */
static int plan_staged(int64_t M, int64_t N, int64_t K, const smk_sgemm_choice &ch, int *realign)
{
    const int64_t ld = ch.splits > 1 ? (N + 3) & ~(int64_t)3 : N;
    const int rows = ld % 32 == 0 ? 2 : ld % 4 == 0 ? 1 : 0;
    *realign = rows == 0;
    if (ch.splits > 1 && smk_sgemm_fixup_gate(M, N, ch.splits, ch.config, smk_splitk_fixup()) != 0)
        return 0;
    return sgemm_epi_gate(M, N, ch.splits > 1 ? ch.k_chunk : K, rows, ch.config, sgemm_epi_level());
}

/* How the launch of ch runs the deep pipeline (deep.h SGEMM_DEEP_*; launch.cu launch_tile: not where it stages
 * its epilogue, nor on a split the tile kernel finishes itself). */
static int plan_deep(int64_t M, int64_t N, int64_t K, int sms, const smk_sgemm_choice &ch)
{
    if (ch.splits > 1 && smk_sgemm_fixup_gate(M, N, ch.splits, ch.config, smk_splitk_fixup()) != 0)
        return SGEMM_DEEP_NO;
    return sgemm_deep_gate(M, N, ch.splits > 1 ? ch.k_chunk : K, ch.splits, ch.config, sms, sgemm_deep_level());
}

} /* namespace smk */

extern "C" int smk_sgemm_plan(int64_t M, int64_t N, int64_t K, int layout, int sms, int config, int splits,
                              smk_plan *plan)
{
    if (!plan || M < 0 || N < 0 || K < 0 || M > INT_MAX || N > INT_MAX || K > INT_MAX || layout < 0 ||
        layout >= SMK_NUM_LAYOUTS || sms < 1 || config < 0 || config >= smk::kNumConfigs || splits < 0)
        return -1;
    if (config == 0 && splits == 0 && smk::sgemm_gemv_level() > 0) { /* as the launch: the matrix-vector route */
        const smk::SgemvRoute r = smk::sgemv_route(M, N, K, sms, smk::sgemm_gemv_level());
        if (r.kind != smk::SGEMV_NONE) return smk::sgemv_plan(r, layout, plan);
    }
    if (config == 0 && splits == 0 && smk::sgemm_rows_n_level() > 0) { /* as the launch: the narrow-N rows */
        const smk::RowsNRoute r = smk::rows_n_route(M, N, K, sms, layout, smk::sgemm_rows_n_level());
        if (r.use) return smk::rows_n_plan(r, layout, plan);
    }
    smk_sgemm_choice ch;
    smk::sgemm_resolve(M, N, K, sms, config, splits, &ch, smk::sgemm_new_paths()); /* as the launch */
    const smk::SgemmConfigEntry &c = smk::kConfigs[ch.config];
    const smk::SgemmPlanEntry &pe = smk::kPlans[ch.config];
    int realign = 0;
    const bool staged = pe.epi && smk::plan_staged(M, N, K, ch, &realign);
    const int deep = staged || !pe.deep ? smk::SGEMM_DEEP_NO : smk::plan_deep(M, N, K, sms, ch);
    const bool half = deep == smk::SGEMM_DEEP_HALF;
    const int rc = half ? smk::tile_block_plan<smk::SgemmHalfCfg>(layout, plan) : pe.plan(layout, plan);
    if (rc != 0)
        return rc;
    if (c.kind == smk::SGEMM_TINYK && smk_sgemm_tinyk_lean(K, ch.k_chunk, smk_sgemm_tinyk_level()))
        strncat(plan->config, ", lean (K-deep panel)", sizeof plan->config - strlen(plan->config) - 1);
    const int n_loop = plan->n; /* accesses past it: the staged epilogue's, once per block of the launch */
    const int m_last = staged ? (int)(M % c.bm) : 0; /* the last block row's rows, where it is short */
    const int n_full = staged ? pe.epi(layout, realign, c.bm, N, 0, plan) : 0; /* split: realign 0, ld not read */
    if (staged && m_last)
        pe.epi(layout, realign, m_last, N, 1, plan);
    const int vec_b = N % 4 == 0 && K % 4 == 0; /* dense rows from an aligned allocation, as plan_staged */
    const int n_tile = plan->n; /* the tile plan's accesses (the deep plan appends its own) */
    const smk::DeepSrc src = {M, N, K, ch.splits > 1 ? ch.k_chunk : K};
    const int edges = half ? smk::tile_deep_plan<smk::SgemmHalfCfg>(layout, vec_b, src, plan)
                      : deep ? pe.deep(layout, vec_b, src, plan)
                             : 0;
    /* Every K slice is a grid of output tiles; slices but the last are k_chunk deep (whole k-tiles).
     * The split-K reduction, separate (reduce.cuh) or fused into the tile kernel (fixup.cuh, knob splitk_fixup),
     * uses no shared memory, so this is the launch's whole shared traffic. */
    const long long tiles = (M == 0 || N == 0) ? 0
                            : half             ? smk::sgemm_grid_blocks(smk::SgemmHalfCfg::BM, smk::SgemmHalfCfg::BN, M, N)
                                               : c.blocks(M, N);
    const long long full = (long long)(ch.splits - 1), last_k = K - full * ch.k_chunk;
    const long long ktiles = full * (ch.k_chunk / c.bk) + (last_k + c.bk - 1) / c.bk;
    plan->blocks = tiles * ch.splits;
    /* Loads: every k-tile.  Stores: every k-tile plus one (store_after_last).  The last
     * once_accesses: once per block and K slice. */
    const long long slices = K > 0 ? ch.splits : 0;
    /* the deep plan's own accesses past the tile plan's: the last block row's A copies (where there is one),
     * then the LDS placeholders -- every k-tile of every block, the last block row's tiles apart */
    const int n_rep = deep ? n_tile : plan->n;
    for (int a = 0; a < n_rep; a++) {
        const smk_access &x = plan->acc[a];
        const long long last_row = m_last ? (N + c.bn - 1) / c.bn : 0; /* tiles of the last block row */
        plan->acc[a].repeats = staged && a >= n_loop + n_full  ? last_row * ch.splits
                               : a >= n_loop                   ? (tiles - last_row) * ch.splits
                               : a >= n_loop - pe.once_accesses ? tiles * slices
                                   : tiles * (ktiles + (pe.store_after_last && deep == smk::SGEMM_DEEP_NO && x.is_store ? slices : 0));
    }
    if (deep) {
        const int bm = half ? smk::SgemmHalfCfg::BM : c.bm;
        const long long rows = M > 0 ? (M + bm - 1) / bm : 0, row_tiles = rows ? tiles / rows : 0;
        plan->acc[plan->n - 1].repeats = tiles * ktiles;
        int e = n_tile;
        if (edges & 1) { /* tile_deep_plan's "last block row" A copies: one block row's tiles */
            plan->acc[e++].repeats = row_tiles * ktiles;
            plan->acc[0].repeats = (tiles - row_tiles) * ktiles;
        }
        if (edges & 2) { /* its "last block column" B copies: one tile of each block row */
            plan->acc[e++].repeats = rows * ktiles;
            plan->acc[1].repeats = (tiles - rows) * ktiles;
        }
    }
    const size_t used = strlen(plan->config);
    snprintf(plan->config + used, sizeof plan->config - used, ", splits %d", ch.splits);
    return 0;
}
