/*
 * transpose/plan.cu -- the host replay of a transpose block's shared-memory instructions, in the
 * kernel's order (smk_transpose_plan, declared in runtime.h; the bank model and explain() read it).  It
 * replays tile.cuh's TransposeMap through the same smk_tile_offset the kernel uses, for the
 * configuration the launcher would pick (configs.h's choose, for a C-contiguous input), so a plan
 * cannot drift from the kernel; the skinny kernel's plan replays skinny.cuh's SkinnyMap the same way.
 */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "layout.h"
#include "api/transpose.h"
#include "transpose/configs.h"
#include "transpose/skinny.cuh"
#include "transpose/skinny_vec.cuh"
#include "transpose/tile.cuh"

namespace {

/* acc[0] = the row store, acc[1] = the column read of one block; lane addresses in bytes. */
template <int ESZ, int TILE, int ROWS>
void block_plan(int layout, smk_plan *plan)
{
    typedef TransposeMap<ROWS> Map;
    constexpr int N = TILE / ROWS, WARPS = TILE * ROWS / 32, P = Unit<ESZ>::P, w = (int)sizeof(typename Unit<ESZ>::W);
    const smk_tile tl = tile_geometry<ESZ, TILE>(layout);
    const int plane = smk_tile_elems(tl, TILE);
    for (int a = 0; a < 2; a++) {
        smk_access *acc = &plan->acc[a];
        acc->name = a == 0 ? "tile row store" : "tile column load";
        acc->width = w;
        acc->is_store = a == 0;
        acc->n_instr = WARPS * N * P;
        if (!acc->addr)
            continue;
        for (int wp = 0; wp < WARPS; wp++)
            for (int j = 0; j < N; j++)
                for (int k = 0; k < P; k++)
                    for (int lane = 0; lane < 32; lane++) {
                        const int tid = wp * 32 + lane, tx = tid % TILE, ty = tid / TILE;
                        const int r = a == 0 ? Map::store_row(tx, ty, j) : Map::load_row(tx, ty, j);
                        const int c = a == 0 ? Map::store_col(tx, ty, j) : Map::load_col(tx, ty, j);
                        acc->addr[((wp * N + j) * P + k) * 32 + lane] =
                            (long long)(k * plane + smk_tile_offset(tl, r, c)) * w;
                    }
    }
    plan->n = 2;
    plan->threads = TILE * ROWS;
    plan->smem_bytes = tile_bytes<ESZ, TILE>(layout);
}

/* The tiled kernel's blocks per matrix and its configuration in words. */
void tiled_config(const Config *v, int esz, int64_t rows, int64_t cols, smk_plan *plan)
{
    const int E = unit_edge(esz);
    const int64_t te = (int64_t)v->tile * E;
    plan->blocks = ((rows + te - 1) / te) * ((cols + te - 1) / te);
    if (E == 1)
        snprintf(plan->config, sizeof plan->config, "%dx%d tile, %dx%d threads, %d-byte elements", v->tile, v->tile,
                 v->tile, v->rows, esz);
    else
        snprintf(plan->config, sizeof plan->config, "%dx%d tile of %dx%d %d-byte blocks (%d words), %dx%d threads",
                 v->tile, v->tile, E, E, esz, E, v->tile, v->rows);
}

/* The skinny kernel (skinny.cuh): acc[0] = the row store, acc[1] = the column read of one block, one
 * ESZ-byte element per lane; its tile, blocks and configuration follow the shape as in the launcher. */
template <int ESZ>
void skinny_plan(int layout, int64_t rows, int64_t cols, smk_plan *plan)
{
    constexpr int K = kSkinnyBytes / ESZ / kSkinnyThreads, WARPS = kSkinnyThreads / 32;
    const SkinnyShape s = skinny_shape(rows, cols, ESZ);
    const smk_tile tl = skinny_geometry(layout, s.lr, s.lc, ESZ);
    for (int a = 0; a < 2; a++) {
        smk_access *acc = &plan->acc[a];
        acc->name = a == 0 ? "skinny row store" : "skinny column load";
        acc->width = ESZ;
        acc->is_store = a == 0;
        acc->n_instr = WARPS * K;
        if (!acc->addr)
            continue;
        for (int wp = 0; wp < WARPS; wp++)
            for (int k = 0; k < K; k++)
                for (int lane = 0; lane < 32; lane++) {
                    const int t = wp * 32 + lane;
                    const int r = a == 0 ? SkinnyMap::store_row(t, k, s.lc) : SkinnyMap::load_row(t, k, s.lr);
                    const int c = a == 0 ? SkinnyMap::store_col(t, k, s.lc) : SkinnyMap::load_col(t, k, s.lr);
                    acc->addr[(wp * K + k) * 32 + lane] = (long long)smk_tile_offset(tl, r, c) * ESZ;
                }
    }
    plan->n = 2;
    plan->threads = kSkinnyThreads;
    plan->smem_bytes = skinny_bytes(layout, s, ESZ);
    const int64_t tr = (int64_t)1 << s.lr, tc = (int64_t)1 << s.lc;
    plan->blocks = ((rows + tr - 1) / tr) * ((cols + tc - 1) / tc);
    snprintf(plan->config, sizeof plan->config, "skinny %lldx%lld tile, %d threads, %d-byte elements", (long long)tr,
             (long long)tc, kSkinnyThreads, ESZ);
}

/* One access of a plan from its lane addresses (n_instr * 32, -1 = lane idle). */
void put_access(smk_access *acc, const char *name, int width, int is_store, const std::vector<long long> &v)
{
    acc->name = name;
    acc->width = width;
    acc->is_store = is_store;
    acc->n_instr = (int)(v.size() / 32);
    if (acc->addr)
        for (size_t i = 0; i < v.size(); i++)
            acc->addr[i] = v[i];
}

/* The word-wise skinny kernel (skinny_vec.cuh), one interior block of a C-contiguous input on aligned
 * bases (the flat side then starts on a word: mis = 0; run s starts at byte s * rp mod 4).  The run
 * phase: per warp that has a run (s < S) and step k (the tail step included), one instruction per
 * element e of the word that some lane moves, a lane at its element's buffer byte or idle; the flat phase: one word per
 * lane, lanes consecutive.  In the kernel's order: case A the run scatter, then the flat load; case B
 * the flat store, then the run gather. */
template <int ESZ>
void skinny_vec_plan(int layout, int64_t rows, int64_t cols, smk_plan *plan)
{
    constexpr int E = 4 / ESZ, WARPS = kVecThreads / 32;
    const int S = (int)(rows < cols ? rows : cols), lt = skinny_vec_lt(rows, cols, ESZ);
    const int runs_in = rows <= cols, lw = lt + (ESZ == 2) - 2, nb = ESZ << lt, SE = S * ESZ;
    const int64_t rp = (runs_in ? cols : rows) * ESZ;
    const smk_tile tl = skinny_vec_geometry(layout, S, ESZ);
    std::vector<long long> run, flat;
    for (int wp = 0; wp < WARPS; wp++)
        for (int k = 0; k <= kVecSteps; k++) {
            std::vector<long long> in(E * 32, -1);
            bool any[E] = {};
            for (int lane = 0; lane < 32; lane++) {
                const int t = wp * 32 + lane, q = t + k * kVecThreads;
                const int s = k < kVecSteps ? q >> lw : t, j = k < kVecSteps ? q & ((1 << lw) - 1) : 1 << lw;
                const int ms = (int)((s * rp) & 3), ro0 = 4 * j - ms;
                if (s >= S || ro0 >= nb)
                    continue;
                for (int e = 0; e < E; e++) {
                    const int ro = ro0 + e * ESZ;
                    if (ro >= 0 && ro < nb) {
                        in[e * 32 + lane] = skinny_vec_slot(tl, s * ESZ + (ro / ESZ) * SE);
                        any[e] = true;
                    }
                }
            }
            for (int e = 0; e < E; e++) // an instruction no lane of the warp executes touches nothing
                if (any[e])
                    run.insert(run.end(), in.begin() + e * 32, in.begin() + (e + 1) * 32);
        }
    const int fend = SE << lt;
    for (int x0 = 0; x0 < fend; x0 += 4 * kVecThreads)
        for (int wp = 0; wp < WARPS; wp++)
            for (int lane = 0; lane < 32; lane++) {
                const int x = x0 + 4 * (wp * 32 + lane);
                if (x0 + 4 * wp * 32 >= fend)
                    break;
                flat.push_back(x < fend ? skinny_vec_slot(tl, x) : -1);
            }
    const int a = runs_in ? 0 : 1;
    put_access(&plan->acc[a], runs_in ? "skinny-vec run scatter" : "skinny-vec run gather", ESZ, runs_in, run);
    put_access(&plan->acc[1 - a], runs_in ? "skinny-vec flat load" : "skinny-vec flat store", 4, !runs_in, flat);
    plan->n = 2;
    plan->threads = kVecThreads;
    plan->smem_bytes = skinny_vec_bytes(layout, S, lt, ESZ);
    const int64_t len = runs_in ? cols : rows;
    plan->blocks = (len + ((int64_t)1 << lt) - 1) >> lt;
    snprintf(plan->config, sizeof plan->config, "skinny-vec %dx%lld tile, %d threads, %d-byte elements",
             runs_in ? S : 1 << lt, runs_in ? 1LL << lt : (long long)S, kVecThreads, ESZ);
}

typedef void (*plan_fn)(int layout, int64_t rows, int64_t cols, smk_plan *plan);

/* Row C of kConfigs for row W of kWidths.  A new Kind of kernel branches here. */
template <int C, int W>
void plan_config(int layout, int64_t rows, int64_t cols, smk_plan *plan)
{
    constexpr Config c = kConfigs[C];
    static_assert(c.kind == kTiled || c.kind == kSkinny || c.kind == kStrip,
                  "a new kernel kind needs its plan here");
    if constexpr (c.kind == kSkinny) {
        constexpr int esz = kWidths[W].esz;
        if constexpr (esz <= 2) {
            if (skinny_vec_fits(rows, cols, cols, 1, esz, smk_transpose_skinny_mode()))
                return skinny_vec_plan<esz>(layout, rows, cols, plan);
        }
        skinny_plan<esz>(layout, rows, cols, plan);
    } else if constexpr (c.kind == kStrip) {
        /* the tiled kernel's shared accesses once per tile (a block walks several: blocks = tiles) */
        block_plan<kWidths[W].esz, c.tile, c.rows>(layout, plan);
        tiled_config(&kConfigs[C], kWidths[W].esz, rows, cols, plan);
        if (kWidths[W].esz <= 2) {
            const size_t n = strlen(plan->config);
            snprintf(plan->config + n, sizeof plan->config - n, ", strip walk");
        }
    } else {
        block_plan<kWidths[W].esz, c.tile, c.rows>(layout, plan);
        tiled_config(&kConfigs[C], kWidths[W].esz, rows, cols, plan);
    }
}

/* kPlan.fn[config][width], from the two tables of configs.h. */
struct PlanTable {
    plan_fn fn[kNumConfigs][kNumWidths];
};

template <int C, int... W>
constexpr void fill_plan_widths(PlanTable &t, std::integer_sequence<int, W...>)
{
    ((t.fn[C][W] = plan_config<C, W>), ...);
}

template <int... C>
constexpr PlanTable make_plan_table(std::integer_sequence<int, C...>)
{
    PlanTable t{};
    (fill_plan_widths<C>(t, std::make_integer_sequence<int, kNumWidths>{}), ...);
    return t;
}

constexpr PlanTable kPlan = make_plan_table(std::make_integer_sequence<int, kNumConfigs>{});

} // namespace

extern "C" int smk_transpose_plan_batched(int64_t batch, int64_t rows, int64_t cols, int esz, int layout,
                                          smk_plan *plan)
{
    const int wi = width_index(esz);
    if (!plan || batch < 0 || rows < 0 || cols < 0 || wi < 0 || layout < 0 || layout >= SMK_NUM_LAYOUTS)
        return -1;
    /* the launcher's path for a C-contiguous input, in the same skinny mode */
    const Config *v = choose(0, wi, rows, cols, 1, smk_transpose_skinny_mode(), smk_transpose_strip_mode());
    kPlan.fn[v - kConfigs][wi](layout, rows, cols, plan);
    plan->blocks *= batch;
    for (int a = 0; a < plan->n; a++)
        plan->acc[a].repeats = plan->blocks;
    return 0;
}

extern "C" int smk_transpose_plan(int64_t rows, int64_t cols, int esz, int layout, smk_plan *plan)
{
    return smk_transpose_plan_batched(1, rows, cols, esz, layout, plan);
}
