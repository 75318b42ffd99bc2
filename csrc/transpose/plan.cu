/*
 * transpose/plan.cu -- the host replay of a transpose block's shared-memory instructions, in the
 * kernel's order (smk_transpose_plan, declared in runtime.h; the bank model and explain() read it).  It
 * replays tile.cuh's TransposeMap through the same smk_tile_offset the kernel uses, for the
 * configuration the launcher would pick (configs.h's choose, for a C-contiguous input), so a plan
 * cannot drift from the kernel; the skinny kernel's plan replays skinny.cuh's SkinnyMap the same way.
 */
#include <cstdint>
#include <cstdio>
#include <utility>

#include "layout.h"
#include "api/transpose.h"
#include "transpose/configs.h"
#include "transpose/skinny.cuh"
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

typedef void (*plan_fn)(int layout, int64_t rows, int64_t cols, smk_plan *plan);

/* Row C of kConfigs for row W of kWidths.  A new Kind of kernel branches here. */
template <int C, int W>
void plan_config(int layout, int64_t rows, int64_t cols, smk_plan *plan)
{
    constexpr Config c = kConfigs[C];
    static_assert(c.kind == kTiled || c.kind == kSkinny, "a new kernel kind needs its plan here");
    if constexpr (c.kind == kSkinny) {
        skinny_plan<kWidths[W].esz>(layout, rows, cols, plan);
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
    const Config *v = choose(0, wi, rows, cols, 1); /* the launcher's path for a C-contiguous input */
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
