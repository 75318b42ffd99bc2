/*
 * transpose/skinny_strip_plan.h -- the host replay of skinny_strip.cuh's shared accesses (explain()'s plan of knob
 * transpose_skinny = 10's case A), included by plan.cu alone: per warp, in the kernel's order, the load's four STS.32
 * a window (rows strip_load_row + RPP i < S, then the virtual rows' steps), then per vector step the gather's
 * V LDS of the lanes whose vector is whole and, for the run's cut end vectors, one instruction per element some
 * lane moves (strip_cut), lanes on strip_vector's vectors.  Every address from strip_slot, which the static_assert below holds to layout.h's map.
 */
#ifndef SMK_TRANSPOSE_SKINNY_STRIP_PLAN_H
#define SMK_TRANSPOSE_SKINNY_STRIP_PLAN_H

#include <cstdio>
#include <vector>

#include "layout.h"
#include "api/plan.h"
#include "transpose/skinny_strip.cuh"

namespace {

/* strip_slot == smk_tile_offset(strip_tile(layout, lw), r, cb >> 2) * 4 + (cb & 3) over R's largest row count
 * for each row length (47: S = 32 uint8 on 512-byte rows; 142: S = 127 on 256-byte rows; both past the swizzle's
 * 32-row period) and every strip byte. */
constexpr bool strip_slot_is_tile_offset()
{
    for (int layout = 0; layout < SMK_NUM_LAYOUTS; layout++)
        for (int lw = 6; lw <= 7; lw++)
            for (int r = 0; r < strip_rows(lw == 7 ? kStripWideMax : 127, 1); r++)
                for (int cb = 0; cb < 4 << lw; cb += 3)
                    if (strip_slot(layout, lw, r, cb) != smk_tile_offset(strip_tile(layout, lw), r, cb >> 2) * 4 + (cb & 3))
                        return false;
    return true;
}
static_assert(strip_slot_is_tile_offset(), "skinny_strip.cuh's strip_slot must be layout.h's map of strip_tile");

/* plan.cu's: one access of a plan from its lane addresses. */
void put_access(smk_access *acc, const char *name, int width, int is_store, const std::vector<long long> &v);

/* Lanes' addresses of one warp instruction, appended where some lane takes part. */
inline void strip_put(std::vector<long long> &dst, const long long *lanes)
{
    for (int l = 0; l < 32; l++)
        if (lanes[l] >= 0) {
            dst.insert(dst.end(), lanes, lanes + 32);
            return;
        }
}

/* One block of n columns (output run n * S elements from a base mis bytes past 16): acc[0] the load's STS.32,
 * acc[1] the gather's whole-vector LDS, acc[2] the cut vectors' element LDS. */
template <int ESZ>
void skinny_strip_block(int layout, int S, int n, int mis, std::vector<long long> *acc)
{
    constexpr int V = 16 / ESZ, WARPS = kStripThreads / 32;
    const int lw = strip_log2_words(S), RPP = kStripThreads >> (lw - 2);
    const int nbytes = n * S * ESZ, nw = (mis + nbytes + 15) >> 4;
    const int steps = (S + RPP - 1) / RPP; // real-row steps; then the virtual rows' (V - 1 rows)
    long long a[16][32];
    for (int wp = 0; wp < WARPS; wp++) {
        for (int i = 0; i < steps + (V - 1 + RPP - 1) / RPP; i++) {
            const bool virt = i >= steps;
            for (int l = 0; l < 32; l++) {
                const int t = wp * 32 + l, r0 = strip_load_row(lw, t) + RPP * (virt ? i - steps : i);
                const int r = virt ? S + r0 : r0, cb = 16 * strip_load_window(lw, t);
                const bool on = virt ? r0 < V - 1 : r < S;
                for (int q = 0; q < 4; q++)
                    a[q][l] = on ? strip_slot(layout, lw, r, cb + 4 * q) : -1;
            }
            for (int q = 0; q < 4; q++)
                strip_put(acc[0], a[q]);
        }
        for (int m = 0; m * kStripThreads < nw; m++) {
            long long c[16][32];
            for (int l = 0; l < 32; l++) {
                const int u = strip_vector(lw, wp * 32 + l) + m * kStripThreads, y0 = 16 * u - mis;
                const int j0 = y0 >= 0 ? y0 / ESZ : -((-y0 + ESZ - 1) / ESZ); // mis is a multiple of ESZ: exact
                const int c0 = j0 >= 0 ? j0 / S : -1, s0 = j0 - c0 * S;      // j0 >= -(V - 1) > -S
                const bool whole = u < nw && y0 >= 0 && y0 + 16 <= nbytes;
                for (int k = 0; k < V; k++) {
                    const int y = y0 + k * ESZ, rr = s0 + k >= S ? s0 + k - S : s0 + k, cc = s0 + k >= S ? c0 + 1 : c0;
                    a[k][l] = whole ? strip_slot(layout, lw, s0 + k, c0 * ESZ) : -1;
                    c[k][l] = u < nw && !whole && y >= 0 && y < nbytes ? strip_slot(layout, lw, rr, cc * ESZ) : -1;
                }
            }
            for (int k = 0; k < V; k++)
                strip_put(acc[1], a[k]);
            for (int k = 0; k < V; k++)
                strip_put(acc[2], c[k]);
        }
    }
}

/* Both strip plans' accesses (case A's and case B's): the whole blocks of W (blocks of them, or blocks - 1 where
 * the last, `last` < W, is partial) and the partial last one, each block(n, v) filling v[0] (the load's STS.32,
 * 4 bytes), v[1] and v[2] (the gathers, ESZ bytes); every non-empty one named names[c][i] (c = 1: the last block)
 * with its repeats; plan->n the count. */
template <int ESZ, typename Block>
inline void strip_plan_blocks(smk_plan *plan, int64_t blocks, int W, int last, const char *const (*names)[3],
                              Block block)
{
    int a = 0;
    for (int c = 0; c < 2; c++) {
        const int64_t reps = c == 0 ? (last == W ? blocks : blocks - 1) : (last == W ? 0 : 1);
        if (reps <= 0)
            continue;
        std::vector<long long> v[3];
        block(c == 0 ? W : last, v);
        for (int i = 0; i < 3; i++) {
            if (v[i].empty())
                continue;
            put_access(&plan->acc[a], names[c][i], i == 0 ? 4 : ESZ, i == 0, v[i]);
            plan->acc[a++].repeats = reps;
        }
    }
    plan->n = a;
}

/* The strip kernel's plan: whole strips and the last, partial one, each with its own accesses and repeats (per
 * matrix, a C-contiguous input on an aligned base, so every strip's output starts on 16 bytes: mis = 0).  Not
 * modelled: a batch's matrices whose output starts off 16 bytes (their cut vectors). */
template <int ESZ>
int skinny_strip_plan(int layout, int64_t rows, int64_t cols, smk_plan *plan)
{
    const int S = (int)rows, W = (4 << strip_log2_words(S)) / ESZ;
    const int64_t blocks = (cols + W - 1) / W;
    const int last = (int)(cols - (blocks - 1) * W); // [1, W]
    static const char *const kNames[2][3] = {
        {"skinny-strip row store", "skinny-strip gather", "skinny-strip gather, cut vector"},
        {"skinny-strip row store (last block)", "skinny-strip gather (last block)",
         "skinny-strip gather, cut vector (last block)"}};
    strip_plan_blocks<ESZ>(plan, blocks, W, last, kNames,
                           [&](int n, std::vector<long long> *v) { skinny_strip_block<ESZ>(layout, S, n, 0, v); });
    plan->threads = kStripThreads;
    plan->smem_bytes = strip_bytes(layout, S, ESZ);
    plan->blocks = blocks;
    snprintf(plan->config, sizeof plan->config, "skinny-strip %dx%d tile, %d threads, %d-byte elements", S, W,
             kStripThreads, ESZ);
    return 1;
}

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_STRIP_PLAN_H */
