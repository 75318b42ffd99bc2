/*
 * transpose/skinny_strip_plan.h -- the host replay of skinny_strip.cuh's shared accesses (explain()'s plan of knob
 * transpose_skinny = 10's case A), included by plan.cu alone: per warp, in the kernel's order, the load's stores as
 * the compiler emits them (strip_load_warp: pad / swizzle four STS.32 a window, naive one STS.128 or two STS.64, each
 * loop part a warp issues where any lane runs it), then per vector step the gather's V LDS of the lanes whose vector
 * is whole and, for the run's cut end vectors, one instruction per element some lane moves (strip_cut), lanes on
 * strip_vector's vectors.  Every address from strip_slot, which the static_assert below holds to layout.h's map.
 */
#ifndef SMK_TRANSPOSE_SKINNY_STRIP_PLAN_H
#define SMK_TRANSPOSE_SKINNY_STRIP_PLAN_H

#include <cstdio>
#include <numeric>
#include <vector>

#include "layout.h"
#include "api/plan.h"
#include "transpose/skinny_strip.cuh"

namespace {

/* strip_slot == smk_tile_offset(strip_tile(layout, lw), r, cb >> 2) * 4 + (cb & 3) over R's largest row count
 * for each row length (47: S = 32 uint8 on 512-byte rows; 151: S = 144 fp16 on 256-byte rows, past uint8's 142; both
 * past the swizzle's 32-row period) and every strip byte. */
constexpr bool strip_slot_is_tile_offset()
{
    for (int layout = 0; layout < SMK_NUM_LAYOUTS; layout++)
        for (int lw = 6; lw <= 7; lw++)
            for (int r = 0; r < (lw == 7 ? strip_rows(kStripWideMax, 1) : strip_rows((int)kStripPastTile2Max, 2)); r++)
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

/* The load's STS of warp wp, as nvcc 13.0 lays strip_load out for sm_90 (cuobjdump -sass): the real rows' loop
 * (`#pragma unroll 2`) is a prologue window where the lane's trip count is odd, then pairs of windows; the virtual
 * rows' loop one window an iteration (LW 6 unrolls it 4-fold behind a remainder loop, but a lane has at most one
 * virtual window there: RPP = 16 > V - 1).  A warp issues an instruction where any lane runs it (LW 6's warps span
 * 4 rows, so S mod 16 splits their trip counts: a warp issues both the prologue and the pairs).  pad / swizzle: four
 * STS.32 a window.  naive: the four words are one aligned 16-byte run (pitch 4 << lw), one STS.128 for a real row,
 * two STS.64 for a virtual one (acc[3]); LW 7's switch on the window's word in its 16-byte chunk (warp-uniform there)
 * shares one block of predicated stores between words 2 and 3, so those windows issue each store twice, one copy
 * predicated off in every lane (counted by ncu, no wavefront) -- but for uint8's real-row prologue (four blocks).
 * Global row r starts base + r * rp16 bytes past 16 (rp16: the row pitch mod 16). */
template <int ESZ>
void strip_load_warp(int layout, int S, int base, int rp16, int wp, std::vector<long long> *acc)
{
    constexpr int V = 16 / ESZ;
    const int lw = strip_log2_words(S), RPP = kStripThreads >> (lw - 2);
    int r0[32], cb[32], n[32], m[32], rr[32], npair = 0, nvirt = 0;
    for (int l = 0; l < 32; l++) {
        const int t = wp * 32 + l;
        r0[l] = strip_load_row(lw, t);
        cb[l] = 16 * strip_load_window(lw, t);
        n[l] = r0[l] < S ? (S - 1 - r0[l]) / RPP + 1 : 0;
        m[l] = r0[l] < V - 1 ? (V - 2 - r0[l]) / RPP + 1 : 0;
        npair = n[l] / 2 > npair ? n[l] / 2 : npair;
        nvirt = m[l] > nvirt ? m[l] : nvirt;
    }
    auto window = [&](bool virt, bool prologue) {
        int any = -1;
        for (int l = 0; l < 32 && any < 0; l++)
            any = rr[l] >= 0 ? l : -1;
        if (any < 0)
            return;
        const int w = layout != SMK_NAIVE ? 4 : virt ? 8 : 16, grow = virt ? rr[any] - S : rr[any];
        std::vector<long long> &dst = acc[layout == SMK_NAIVE && virt ? 3 : 0];
        long long a[32];
        for (int q = 0; q < 16 / w; q++) {
            for (int l = 0; l < 32; l++)
                a[l] = rr[l] >= 0 ? strip_slot(layout, lw, rr[l], cb[l] + w * q) : -1;
            strip_put(dst, a);
        }
        const int word = ((base + grow * rp16 + (virt ? ESZ : 0)) & 15) >> 2;
        if (layout == SMK_NAIVE && lw == 7 && word >= 2 && !(ESZ == 1 && prologue && !virt))
            dst.insert(dst.end(), 32 * (16 / w), -1LL); // the predicated-off copies
    };
    for (int l = 0; l < 32; l++)
        rr[l] = n[l] & 1 ? r0[l] : -1;
    window(false, true);
    for (int k = 0; k < npair; k++)
        for (int h = 0; h < 2; h++) {
            for (int l = 0; l < 32; l++)
                rr[l] = k < n[l] / 2 ? r0[l] + RPP * ((n[l] & 1) + 2 * k + h) : -1;
            window(false, false);
        }
    for (int j = 0; j < nvirt; j++) {
        for (int l = 0; l < 32; l++)
            rr[l] = j < m[l] ? S + r0[l] + RPP * j : -1;
        window(true, false);
    }
}

/* One block of n columns (output run n * S elements from a base mis bytes past 16, input rows r at mis + r * rp
 * bytes past 16: one matrix's base for both, skinny_strip_plan): acc[0] the load's row STS
 * (naive: its real rows' STS.128), acc[1] the gather's whole-vector LDS, acc[2] the cut vectors' element LDS, acc[3]
 * naive's virtual-row STS.64. */
template <int ESZ>
void skinny_strip_block(int layout, int S, int n, int mis, int rp16, std::vector<long long> *acc)
{
    constexpr int V = 16 / ESZ, WARPS = kStripThreads / 32;
    const int lw = strip_log2_words(S);
    const int nbytes = n * S * ESZ, nw = (mis + nbytes + 15) >> 4;
    long long a[16][32];
    for (int wp = 0; wp < WARPS; wp++) {
        strip_load_warp<ESZ>(layout, S, mis, rp16, wp, acc);
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

/* Case B's strip plan's accesses (skinny_strip_b_plan.h; case A's own loop below adds a batch's periods): the whole blocks of W (blocks of them, or blocks - 1 where
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

/* The strip kernel's plan: whole strips and the last, partial one, each with its own accesses and repeats, over the
 * whole batch (returns 2).  Inputs and outputs C-contiguous on 16-byte bases: matrix b's input and output start
 * base = b * rows * cols * ESZ mod 16 bytes past 16 (every strip of it alike: a strip is 4 << lw bytes of a row and
 * S * (4 << lw) of the run), which sets its output's cut vectors (mis = base) and LW 7 naive's load words; the bases
 * repeat with period 16 / gcd(rows * cols * ESZ, 16): each class's instructions are those of one period's matrices
 * (repeated batch / period times) and of the first batch % period of them (once more). */
template <int ESZ>
int skinny_strip_plan(int layout, int64_t batch, int64_t rows, int64_t cols, smk_plan *plan)
{
    const int S = (int)rows, W = (4 << strip_log2_words(S)) / ESZ;
    const int64_t blocks = (cols + W - 1) / W;
    const int last = (int)(cols - (blocks - 1) * W), mb = (int)(rows * cols * ESZ & 15); // [1, W]
    const int period = mb ? 16 / std::gcd(mb, 16) : 1;
    static const char *const kNames[2][4] = {
        {"skinny-strip row store", "skinny-strip gather", "skinny-strip gather, cut vector",
         "skinny-strip virtual row store"},
        {"skinny-strip row store (last block)", "skinny-strip gather (last block)",
         "skinny-strip gather, cut vector (last block)", "skinny-strip virtual row store (last block)"}};
    int a = 0;
    for (int c = 0; c < 2; c++) {
        const int64_t reps = c == 0 ? (last == W ? blocks : blocks - 1) : (last == W ? 0 : 1);
        for (int part = 0; part < 2 && reps > 0; part++) { // one period's matrices, then the rest's
            const int64_t times = part == 0 ? batch / period : 1, nmat = part == 0 ? period : batch % period;
            if (times == 0 || nmat == 0)
                continue;
            std::vector<long long> v[4];
            for (int64_t b = 0; b < nmat; b++)
                skinny_strip_block<ESZ>(layout, S, c == 0 ? W : last, (int)(b * mb & 15), (int)(cols * ESZ & 15), v);
            for (int i = 0; i < 4; i++) {
                if (v[i].empty())
                    continue;
                const int width = i == 0 ? (layout == SMK_NAIVE ? 16 : 4) : i == 3 ? 8 : ESZ;
                put_access(&plan->acc[a], kNames[c][i], width, i == 0 || i == 3, v[i]);
                plan->acc[a++].repeats = reps * times;
            }
        }
    }
    plan->n = a;
    plan->threads = kStripThreads;
    plan->smem_bytes = strip_bytes(layout, S, ESZ);
    plan->blocks = blocks * batch;
    snprintf(plan->config, sizeof plan->config, "skinny-strip %dx%d tile, %d threads, %d-byte elements", S, W,
             kStripThreads, ESZ);
    return 2;
}

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_STRIP_PLAN_H */
