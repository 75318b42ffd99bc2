/*
 * transpose/skinny_strip_b_plan.h -- the host replay of skinny_strip_b.cuh's shared accesses (explain()'s plan of
 * knob transpose_skinny = 12's case B), included by plan.cu (through skinny_strip_plan.h's user, plan.cu alone):
 * per warp, in the kernel's order, the load's four STS.32 a chunk, then per work-item step the gather's V LDS of
 * the lanes whose vector is whole and, for cut vectors, one instruction per element some lane moves (the 33rd
 * vector of a misaligned segment in its own instructions after).  Every address from bstrip_slot, which the
 * static_assert below holds to layout.h's map.
 */
#ifndef SMK_TRANSPOSE_SKINNY_STRIP_B_PLAN_H
#define SMK_TRANSPOSE_SKINNY_STRIP_B_PLAN_H

#include <cstdio>
#include <vector>

#include "layout.h"
#include "api/plan.h"
#include "transpose/skinny_strip_b.cuh"
#include "transpose/skinny_strip_plan.h"

namespace {

/* bstrip_slot == smk_tile_offset(strip_tile(layout, 5), b >> 7, (b >> 2) & 31) * 4 + (b & 3) over B's largest
 * size (S = 64: 257 rows, past the swizzle's 32-row period). */
constexpr bool bstrip_slot_is_tile_offset()
{
    for (int layout = 0; layout < SMK_NUM_LAYOUTS; layout++)
        for (int b = 0; b < 16 * bstrip_chunks(15, kBStripBytes * 64); b += 3)
            if (bstrip_slot(layout, b) != smk_tile_offset(strip_tile(layout, kBStripLw), b >> 7, (b >> 2) & 31) * 4 + (b & 3))
                return false;
    return true;
}
static_assert(bstrip_slot_is_tile_offset(), "skinny_strip_b.cuh's bstrip_slot must be layout.h's map of strip_tile");

/* One lane's vector u of row s: whole-vector LDS addresses into g[k], cut ones into c[k] (-1: none). */
template <int ESZ>
void bstrip_lane(int layout, int S, int n, int omis, int s, int u, long long *g, long long *c, int l)
{
    constexpr int V = 16 / ESZ;
    const int nbytes = n * ESZ, y0 = 16 * u - omis, b0 = (16 * u - omis) / ESZ * S * ESZ + s * ESZ;
    const bool on = 16 * u < omis + nbytes, whole = on && y0 >= 0 && y0 + 16 <= nbytes;
    for (int k = 0; k < V; k++) {
        const int y = y0 + k * ESZ;
        g[k * 32 + l] = whole ? bstrip_slot(layout, b0 + k * S * ESZ) : -1;
        c[k * 32 + l] = on && !whole && y >= 0 && y < nbytes ? bstrip_slot(layout, b0 + k * S * ESZ) : -1;
    }
}

/* One block of n input rows (an aligned input run; output rows s * R * esz mod 16 off 16 bytes): acc[0] the load's
 * STS.32, acc[1] the gather's whole-vector LDS, acc[2] the cut vectors' element LDS. */
template <int ESZ>
void skinny_strip_b_block(int layout, int S, int64_t R, int n, std::vector<long long> *acc)
{
    constexpr int V = 16 / ESZ, WARPS = kStripThreads / 32;
    const int nchunks = bstrip_chunks(0, n * S * ESZ);
    long long a[16 * 32], c[16 * 32], x[16 * 32];
    for (int wp = 0; wp < WARPS; wp++) {
        for (int c0 = wp * 32; c0 < nchunks; c0 += kStripThreads)
            for (int i = 0; i < 4; i++) {
                for (int l = 0; l < 32; l++)
                    a[l] = c0 + l < nchunks ? bstrip_slot(layout, 16 * (c0 + l) + 4 * i) : -1;
                strip_put(acc[0], a);
            }
        for (int q0 = 8 * wp; q0 < 8 * S; q0 += 64) {
            for (int l = 0; l < 32; l++) {
                const int q = q0 + (l & 7), h = q / S, s = q % S, u = 4 * h + bstrip_group(l);
                const int omis = (int)(s * R * ESZ % 16);
                bstrip_lane<ESZ>(layout, S, n, omis, s, u, a, c, l);
                long long g33[16 * 32], c33[16 * 32]; // the 33rd vector (lane u == 0), always cut
                bstrip_lane<ESZ>(layout, S, n, omis, s, 32, g33, c33, l);
                for (int k = 0; k < V; k++)
                    x[k * 32 + l] = u == 0 && 16 * 32 < omis + n * ESZ ? c33[k * 32 + l] : -1;
            }
            for (int k = 0; k < V; k++)
                strip_put(acc[1], a + 32 * k);
            for (int k = 0; k < V; k++)
                strip_put(acc[2], c + 32 * k);
            for (int k = 0; k < V; k++)
                strip_put(acc[2], x + 32 * k);
        }
    }
}

/* The case-B strip kernel's plan: whole strips and the last, partial one (a C-contiguous input on an aligned base:
 * every strip's run starts on 16 bytes). */
template <int ESZ>
int skinny_strip_b_plan(int layout, int64_t rows, int64_t cols, smk_plan *plan)
{
    const int S = (int)cols, W = kBStripBytes / ESZ;
    const int64_t blocks = (rows + W - 1) / W;
    const int last = (int)(rows - (blocks - 1) * W); // [1, W]
    static const char *const kNames[2][3] = {
        {"skinny-strip-b chunk store", "skinny-strip-b gather", "skinny-strip-b gather, cut vector"},
        {"skinny-strip-b chunk store (last block)", "skinny-strip-b gather (last block)",
         "skinny-strip-b gather, cut vector (last block)"}};
    strip_plan_blocks<ESZ>(plan, blocks, W, last, kNames,
                           [&](int n, std::vector<long long> *v) { skinny_strip_b_block<ESZ>(layout, S, rows, n, v); });
    plan->threads = kStripThreads;
    plan->smem_bytes = bstrip_bytes(layout, S);
    plan->blocks = blocks;
    snprintf(plan->config, sizeof plan->config, "skinny-strip-b %dx%d strip, %d threads, %d-byte elements", W, S,
             kStripThreads, ESZ);
    return 1;
}

/* The strips' plans (mode 10..12): case A's where skinny_strip_fits, case B's where skinny_strip_b_fits, else -1. */
template <int ESZ>
int skinny_strips_plan(int layout, int64_t batch, int64_t rows, int64_t cols, smk_plan *plan, int mode)
{
    if (skinny_strip_fits(rows, cols, 1, ESZ, mode))
        return skinny_strip_plan<ESZ>(layout, batch, rows, cols, plan);
    if (skinny_strip_b_fits(rows, cols, cols, 1, ESZ, mode))
        return skinny_strip_b_plan<ESZ>(layout, rows, cols, plan);
    return -1;
}

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_STRIP_B_PLAN_H */
