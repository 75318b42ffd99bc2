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
#include <numeric>
#include <utility>
#include <vector>

#include "layout.h"
#include "api/transpose.h"
#include "transpose/configs.h"
#include "transpose/gather_plan.h"
#include "transpose/sector.cuh"
#include "transpose/skinny.cuh"
#include "transpose/skinny_flat.cuh"
#include "transpose/skinny_ilv_plan.h"
#include "transpose/skinny_lean.cuh"
#include "transpose/skinny_prmt.cuh"
#include "transpose/skinny_strip_b_plan.h" /* and skinny_strip_plan.h */
#include "transpose/skinny_vec.cuh"
#include "transpose/skinny_vec_plan.h"
#include "transpose/tile.cuh"

namespace {

/* skinny_lean.cuh's map is skinny_vec_slot (the lean kernel's plan is skinny_vec's): checked here over 40 rows
 * of F (the swizzle's 32-row period and more) for both row lengths (2^5 words: S < 64, 2^6: S = 64). */
constexpr bool lean_slot_is_skinny_vec_slot()
{
    for (int layout = 0; layout < SMK_NUM_LAYOUTS; layout++)
        for (int s : {63, 64}) {
            const smk_tile tl = skinny_vec_geometry(layout, s, 1);
            for (int x = 0; x < (40 << (tl.log2_cols + 2)); x++)
                if (lean_slot(layout, tl.log2_cols + 2, x) != skinny_vec_slot(tl, x))
                    return false;
        }
    return true;
}
static_assert(lean_slot_is_skinny_vec_slot(), "skinny_lean.cuh's lean_slot must be skinny_vec_slot");

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
void put_access(smk_access *acc, const char *name, int width, int is_store, const std::vector<long long> &v);

/* The flat skinny kernel (skinny_flat.cuh): a whole block's park (the shared store) and read, then, where the long
 * side leaves the last block partial, that block's; each instruction a warp issues with at least one lane on (a warp
 * whose lanes are all off issues nothing Nsight Compute counts).  Repeats per matrix: returns 1. */
template <int ESZ>
int skinny_flat_plan(int layout, int64_t rows, int64_t cols, smk_plan *plan)
{
    constexpr int K = kFlatElems / kFlatThreads, WARPS = kFlatThreads / 32;
    const bool case_a = rows <= cols;
    const int S = (int)(case_a ? rows : cols), ls = flat_log2_short(S), lt = flat_log2_long(ls), T = 1 << lt;
    const smk_tile tl = flat_geometry(layout, ls, ESZ);
    const uint32_t magic = flat_magic(S);
    const int64_t len = case_a ? cols : rows, full = len / T;
    const int tail = (int)(len - full * T);
    int a = 0;
    for (int part = 0; part < 2; part++) {
        const int tj = part == 0 ? T : tail;
        const int64_t reps = part == 0 ? full : 1;
        if (reps == 0 || tj == 0)
            continue;
        std::vector<long long> flat, shift;
        for (int wp = 0; wp < WARPS; wp++)
            for (int k = 0; k < K; k++) {
                long long fl[32], sh[32];
                bool anyf = false, anys = false;
                for (int lane = 0; lane < 32; lane++) {
                    const int e = wp * 32 + lane + k * kFlatThreads;
                    fl[lane] = sh[lane] = -1;
                    if (e < tj * S) {
                        const int j = FlatMap::flat_row(e, S, magic);
                        fl[lane] = (long long)smk_tile_offset(tl, j, e - j * S) * ESZ;
                        anyf = true;
                    }
                    const int s = FlatMap::shift_col(e, lt), j = FlatMap::shift_row(e, lt);
                    if (s < S && j < tj) {
                        sh[lane] = (long long)smk_tile_offset(tl, j, s) * ESZ;
                        anys = true;
                    }
                }
                if (anyf)
                    flat.insert(flat.end(), fl, fl + 32);
                if (anys)
                    shift.insert(shift.end(), sh, sh + 32);
            }
        static const char *const kName[2][2] = {{"skinny-flat store (input run)", "skinny-flat load (down the rows)"},
                                                {"skinny-flat store (down the rows)", "skinny-flat load (output run)"}};
        put_access(&plan->acc[a], kName[case_a][0], ESZ, 1, case_a ? shift : flat);
        plan->acc[a++].repeats = reps;
        put_access(&plan->acc[a], kName[case_a][1], ESZ, 0, case_a ? flat : shift);
        plan->acc[a++].repeats = reps;
    }
    plan->n = a;
    plan->threads = kFlatThreads;
    plan->smem_bytes = flat_bytes(layout, ls, ESZ);
    plan->blocks = full + (tail > 0);
    snprintf(plan->config, sizeof plan->config, "skinny-flat %dx%d tile (%s), %d threads, %d-byte elements", T, 1 << ls,
             case_a ? "case A: rows <= cols" : "case B: rows > cols", kFlatThreads, ESZ);
    return 1;
}

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

/* The sector store (sector.cuh) of a matrix whose output starts on a sector (a fresh allocation): every block
 * parks NB = N + 1 units (the band); then, per output row of its tile column, the shifted column read (and
 * the second word of the funnel shift, E > 1), whose lanes take consecutive unit rows of one column whatever
 * the shift d (the block of tile column 0 is replayed: the wavefronts are the same in every block); and in
 * tile row 0 the head reads of the rows with d > 0 (one, E > 1 two, instructions whose lanes tx < ceil(d / E)
 * are active), counted per output row of the matrix (those past cols included: the kernel reads them too)
 * and grouped by the rows their lanes read.  A batch's matrix b starts at byte b * rows * cols * ESZ of the
 * output, so its heads take that base's shifts (the bases repeat mod 32 bytes: one period is replayed, each
 * matrix of it weighted by how many of the batch share its base).  Returns 2: every repeat (and blocks)
 * already counts the whole batch. */
template <int ESZ, int TILE, int ROWS>
int sector_plan(int layout, int64_t batch, int64_t rows, int64_t cols, smk_plan *plan)
{
    typedef TransposeMap<ROWS> Map;
    constexpr int E = Unit<ESZ>::E, P = Unit<ESZ>::P, N = TILE / ROWS, NB = N + 1, WARPS = TILE * ROWS / 32;
    constexpr int TE = TILE * E, w = (int)sizeof(typename Unit<ESZ>::W);
    const smk_tile tl = tile_geometry<ESZ, TILE>(layout);
    const int plane = smk_tile_elems(tl, NB * ROWS);
    auto at = [&](int k, int r, int c) { return (long long)(k * plane + smk_tile_offset(tl, r, c)) * w; };
    auto lead = [&](int64_t base, int64_t orow) { return sector_lead<ESZ>((uintptr_t)(base + orow * rows * ESZ)); };
    std::vector<long long> st, lo, hi;
    for (int wp = 0; wp < WARPS; wp++)
        for (int j = 0; j < NB; j++)
            for (int k = 0; k < P; k++)
                for (int lane = 0; lane < 32; lane++) {
                    const int tid = wp * 32 + lane, tx = tid % TILE, ty = tid / TILE;
                    st.push_back(at(k, Map::store_row(tx, ty, j), Map::store_col(tx, ty, j)));
                }
    for (int wp = 0; wp < WARPS; wp++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < P; k++)
                for (int lane = 0; lane < 32; lane++) {
                    const int tid = wp * 32 + lane, tx = tid % TILE, ty = tid / TILE, uc = ty + j * ROWS;
                    const int d = lead(0, (int64_t)uc * E + k);
                    lo.push_back(at(k, tx + d / E, uc));
                    hi.push_back(at(k, tx + d / E + 1, uc));
                }
    const int64_t tiles_x = (cols + TE - 1) / TE, tiles_y = (rows + TE - 1) / TE;
    const int64_t blocks = tiles_x * tiles_y * batch;
    int a = 0;
    put_access(&plan->acc[a], "sector tile row store", w, 1, st);
    plan->acc[a++].repeats = blocks;
    put_access(&plan->acc[a], "sector column load", w, 0, lo);
    plan->acc[a++].repeats = blocks;
    if (E > 1) {
        put_access(&plan->acc[a], "sector column load, second word", w, 0, hi);
        plan->acc[a++].repeats = blocks;
    }
    /* the head: output rows [0, tiles_x * TE) of tile row 0 with d > 0, grouped by their lanes' reads: lane
     * tx < ceil(d / E) reads unit rows max(d / E - 1 - tx, 0) (and the next, E > 1), one instruction each */
    long long heads[TILE][2] = {};
    const int64_t mbytes = (rows % 32) * (cols % 32) * ESZ % 32, period = mbytes ? 32 / std::gcd(mbytes, (int64_t)32) : 1;
    for (int64_t b = 0; b < period && b < batch; b++) {
        const int64_t weight = (batch - b + period - 1) / period; // matrices b, b + period, ... of the batch
        for (int64_t o = 0; o < tiles_x * TE; o++) {
            const int d = lead(b * mbytes % 32, o);
            if (d > 0)
                heads[d / E][d % E > 0] += weight;
        }
    }
    static const char *const kHead[2] = {"sector head loads", "sector head loads, partial word"};
    for (int qd = 0; qd < 32 / ESZ / E + 1 && qd < TILE; qd++)
        for (int part = 0; part < 2; part++) {
            if (!heads[qd][part])
                continue;
            std::vector<long long> h(32 * (E > 1 ? 2 : 1), -1);
            for (int lane = 0; lane < qd + part; lane++) {
                const int q = qd - 1 - lane, uq = q < 0 ? 0 : q;
                h[lane] = at(0, uq, 0);
                if (E > 1)
                    h[32 + lane] = at(0, uq + 1, 0);
            }
            put_access(&plan->acc[a], kHead[part], w, 0, h);
            plan->acc[a++].repeats = heads[qd][part];
        }
    plan->n = a;
    plan->threads = TILE * ROWS;
    plan->smem_bytes = tile_bytes<ESZ, TILE>(layout, TILE + ROWS);
    plan->blocks = blocks;
    return 2;
}

/* Lanes' addresses of one warp instruction, appended where some lane takes part (the kernel branches around
 * the others: an instruction no lane executes is not counted) or where `issued` (predicated off in every lane). */
void put_warp(std::vector<long long> &dst, const long long *lanes, bool issued = false)
{
    for (int l = 0; l < 32; l++)
        if (lanes[l] >= 0 || issued) {
            dst.insert(dst.end(), lanes, lanes + 32);
            return;
        }
}

/* One block of skinny_prmt.cuh (PrmtBlock) of n rows, the input C-contiguous on an aligned base (mis = 0,
 * output run s at byte s * rp mod 16), per warp in the kernel's order: phase 1 the F word stores (every word
 * holding a tile byte), phase 2 per unit step the 2E row loads (lo, hi of each row; lo alone where S * esz
 * is a multiple of 4) and the E R stores
 * (rows < S; naive / pad issue those of rows >= S too, no lane on), phase 3 per chunk step the five R loads of the lanes whose 16-byte chunk holds a run byte
 * (a whole block: chunk 0 of a run off 16 bytes in the tail steps, with chunk W/4, items t + 256 j < 2S: PrmtBlock::runs_out). */
template <int ESZ>
void skinny_prmt_block(int layout, int S, int lt, int64_t rp, int n, std::vector<long long> *acc)
{
    constexpr int E = 4 / ESZ, WARPS = kVecThreads / 32;
    const int lw = skinny_prmt_lw(lt, ESZ), W = 1 << lw, SB = (S + E - 1) / E, SE = S * ESZ, nb = n * ESZ;
    const smk_tile ft = skinny_vec_geometry(layout, S, ESZ), rt = skinny_prmt_rgeometry(layout, lw, ESZ);
    const int f0 = skinny_prmt_fbytes(layout, S, lt, ESZ, 0);
    long long a[2 * E][32];
    for (int wp = 0; wp < WARPS; wp++) {
        for (int k = 0; k <= kVecSteps; k++) {
            for (int l = 0; l < 32; l++) {
                const int x = 4 * (wp * 32 + l + k * kVecThreads);
                a[0][l] = x < SE * n ? skinny_vec_slot(ft, x) : -1;
            }
            put_warp(acc[0], a[0]);
        }
        for (int k = 0; k < skinny_prmt_units(ESZ); k++) {
            long long st[E][32];
            for (int l = 0; l < 32; l++) {
                const int u = wp * 32 + l + k * kVecThreads, pb = u & (W - 1), sb = u >> lw, on = sb < SB;
                for (int r = 0; r < E; r++) {
                    const int w = ((pb * E + r) * S + sb * E) * ESZ >> 2;
                    a[2 * r][l] = on ? skinny_vec_slot(ft, 4 * w) : -1;
                    a[2 * r + 1][l] = on ? skinny_vec_slot(ft, 4 * w + 4) : -1;
                    st[r][l] = on && sb * E + r < S ? skinny_prmt_rslot(rt, f0, sb * E + r, pb) : -1;
                }
            }
            for (int r = 0; r < 2 * E; r++)
                if (SE % 4 != 0 || r % 2 == 0) // rows on words: no second word
                    put_warp(acc[1], a[r]);
            for (int r = 0; r < E; r++) // naive, pad: predicated STS (SASS, sm_90), issued where lane 0 has a unit
                put_warp(acc[2], st[r], layout != SMK_SWIZZLE && a[0][0] >= 0);
        }
        long long c[5][32];
        const bool whole = nb == 4 * W; // PrmtBlock::runs_out: chunk 0 of a run off 16 bytes in the tail steps
        auto ms = [&](int s) { return (int)((s * rp) & 15); };
        for (int k = 0; k < kPrmtChunkSteps + kPrmtTailSteps; k++) { // then the tail steps
            for (int l = 0; l < 32; l++) {
                const int t = wp * 32 + l, tail = k >= kPrmtChunkSteps;
                const int q = tail ? t + (k - kPrmtChunkSteps) * kVecThreads : t + k * kVecThreads;
                const int s = tail ? (whole ? q >> 1 : q) : q >> (lw - 2);
                const int i = tail ? (whole ? (q & 1) * (W / 4) : W / 4) : q & (W / 4 - 1);
                const bool wait = whole ? (tail ? q >= 2 * S || ms(s) == 0 : i == 0 && ms(s) != 0) : tail && q >= S;
                const int b = 16 * i - ms(s), on = s < S && b < nb && !wait;
                for (int m = 0; m < 5; m++) {
                    const int w = (b >> 2) + m;
                    c[m][l] = on ? skinny_prmt_rslot(rt, f0, s, w < 0 ? 0 : w > W - 1 ? W - 1 : w) : -1;
                }
            }
            for (int m = 0; m < 5; m++)
                put_warp(acc[3], c[m]);
        }
    }
}

/* One block of skinny_prmt.cuh's case A (PrmtBlockA) of n columns, the input C-contiguous on an aligned
 * base (input run s at byte s * rp mod 4, the output on a word), per warp in the kernel's order: phase 1 the
 * R word stores of the run words holding a run byte (the tails in row S), phase 2 per unit step the 2E R
 * loads (word pb and pb + 1 of each run < S) and the E F word stores (S * esz off words, mode 4's and mode
 * 5's PrmtBlockA<.., false>: the E * E element stores of elements < S; every block's mis is 0, T * S * esz
 * being a multiple of 4: the first matrix of a batch, whose later matrices may start off a word), phase 3
 * the F word loads. */
template <int ESZ>
void skinny_prmt_a_block(int layout, int S, int lt, int64_t rp, int n, std::vector<long long> *acc)
{
    const bool ow = S * ESZ % 4 == 0; // skinny_prmt_a_kernel<.., true>: output rows on words
    constexpr int E = 4 / ESZ, WARPS = kVecThreads / 32;
    const int lw = skinny_prmt_lw(lt, ESZ), W = 1 << lw, SE = S * ESZ, nb = n * ESZ;
    const smk_tile ft = skinny_prmt_fgeometry(layout, S, ESZ, 1), rt = skinny_prmt_rgeometry(layout, lw, ESZ);
    const int f0 = skinny_prmt_fbytes(layout, S, lt, ESZ, 1);
    auto rs = [&](int s, int j) { // word W of run s: its tail, in the rows after S (PrmtBlockA::rword)
        return (long long)skinny_prmt_rslot(rt, f0, j < W ? s : S + (S & 1) + s / W, j < W ? j : s % W);
    };
    long long a[2 * E][32];
    for (int wp = 0; wp < WARPS; wp++) {
        for (int k = 0; k <= kVecSteps; k++) {
            for (int l = 0; l < 32; l++) {
                const int t = wp * 32 + l, q = t + k * kVecThreads;
                const int s = k < kVecSteps ? q >> lw : t, j = k < kVecSteps ? q & (W - 1) : W;
                a[0][l] = s < S && 4 * j - (int)((s * rp) & 3) < nb ? rs(s, j) : -1;
            }
            put_warp(acc[0], a[0]);
        }
        for (int k = 0; k < skinny_prmt_units(ESZ); k++) {
            long long st[E * E][32];
            for (int l = 0; l < 32; l++) {
                const int u = wp * 32 + l + k * kVecThreads, pb = u & (W - 1), sb = u >> lw, on = sb < (S + E - 1) / E;
                for (int r = 0; r < E; r++) {
                    a[2 * r][l] = on && sb * E + r < S ? rs(sb * E + r, pb) : -1;
                    a[2 * r + 1][l] = on && sb * E + r < S ? rs(sb * E + r, pb + 1) : -1;
                    for (int e = 0; e < E; e++) {
                        const int x = ((pb * E + r) * S + sb * E + e) * ESZ;
                        st[r * E + e][l] = !on || (ow ? e > 0 : sb * E + e >= S) ? -1
                                           : ow ? skinny_vec_slot(ft, x >> 2 << 2) : skinny_vec_slot(ft, x);
                    }
                }
            }
            for (int r = 0; r < 2 * E; r++)
                put_warp(acc[1], a[r]);
            for (int r = 0; r < E * E; r++)
                put_warp(acc[2], st[r]);
        }
        for (int k = 0; k <= kVecSteps; k++) {
            for (int l = 0; l < 32; l++) {
                const int x = 4 * (wp * 32 + l + k * kVecThreads);
                a[0][l] = x < SE * n ? skinny_vec_slot(ft, x) : -1;
            }
            put_warp(acc[3], a[0]);
        }
    }
}

static_assert(2 * kPrmtMaxShort <= kPrmtTailSteps * kVecThreads, "skinny_prmt's tail steps: two items a run");

/* skinny_prmt.cuh's plan: the blocks of a whole tile and the last, partial one, each class with its own
 * four accesses and repeats, as skinny_vec_plan. */
template <int ESZ>
int skinny_prmt_plan(int layout, int64_t rows, int64_t cols, smk_plan *plan)
{
    const int runs_in = rows <= cols, S = (int)(runs_in ? rows : cols), lt = skinny_vec_lt(rows, cols, ESZ), T = 1 << lt;
    const int64_t len = runs_in ? cols : rows, blocks = (len + T - 1) >> lt;
    const int last = (int)(len - (blocks - 1) * T); // [1, T]
    static const char *const kNames[2][2][4] = {
        {{"skinny-prmt flat store", "skinny-prmt row load", "skinny-prmt run store", "skinny-prmt run load"},
         {"skinny-prmt flat store (last block)", "skinny-prmt row load (last block)",
          "skinny-prmt run store (last block)", "skinny-prmt run load (last block)"}},
        {{"skinny-prmt run store", "skinny-prmt run load", "skinny-prmt flat store", "skinny-prmt flat load"},
         {"skinny-prmt run store (last block)", "skinny-prmt run load (last block)",
          "skinny-prmt flat store (last block)", "skinny-prmt flat load (last block)"}}};
    int a = 0;
    for (int c = 0; c < 2; c++) {
        const int64_t reps = c == 0 ? (last == T ? blocks : blocks - 1) : (last == T ? 0 : 1);
        if (reps <= 0)
            continue;
        std::vector<long long> v[4];
        if (runs_in)
            skinny_prmt_a_block<ESZ>(layout, S, lt, cols * ESZ, c == 0 ? T : last, v);
        else
            skinny_prmt_block<ESZ>(layout, S, lt, rows * ESZ, c == 0 ? T : last, v);
        for (int i = 0; i < 4; i++) {
            if (v[i].empty())
                continue;
            const int width = runs_in && i == 2 && S * ESZ % 4 ? ESZ : 4; // PrmtBlockA<.., false>'s element stores
            put_access(&plan->acc[a], kNames[runs_in][c][i], width, i == 0 || i == 2, v[i]);
            plan->acc[a++].repeats = reps;
        }
    }
    plan->n = a;
    plan->threads = kVecThreads;
    plan->smem_bytes = skinny_prmt_bytes(layout, S, lt, ESZ, runs_in);
    plan->blocks = blocks;
    snprintf(plan->config, sizeof plan->config, "skinny-prmt %dx%d tile, %d threads, %d-byte elements", runs_in ? S : T,
             runs_in ? T : S, kVecThreads, ESZ);
    return 1;
}

/* A plan function fills one matrix's plan; it returns 1 where it set each access's repeats itself (blocks differ), 0 where
 * every block issues the same pattern (repeats = blocks), 2 where it counted the whole batch (the sector store). */
typedef int (*plan_fn)(int layout, int64_t batch, int64_t rows, int64_t cols, smk_plan *plan);

/* Row C of kConfigs for row W of kWidths.  A new Kind of kernel branches here. */
template <int C, int W>
int plan_config(int layout, int64_t batch, int64_t rows, int64_t cols, smk_plan *plan)
{
    constexpr Config c = kConfigs[C];
    static_assert(c.kind == kTiled || c.kind == kSkinny, "a new kernel kind needs its plan here");
    if constexpr (c.kind == kSkinny) {
        constexpr int esz = kWidths[W].esz;
        if constexpr (esz <= 2) {
            if (const int own = skinny_strips_plan<esz>(layout, batch, rows, cols, plan, smk_transpose_skinny_mode()); own >= 0)
                return own; /* case A's or case B's strips */
            if (skinny_ilv_fits(rows, cols, cols, 1, esz, smk_transpose_skinny_mode())) // ilv.cu on a fresh output
                return skinny_ilv_plan<esz>(layout, batch, rows, cols, plan);
            if (skinny_dlv_fits(rows, cols, cols, 1, esz, smk_transpose_skinny_mode())) // ilv.cu's reverse
                return skinny_dlv_plan<esz>(layout, batch, rows, cols, plan);
            if (skinny_lean_a_fits(rows, cols, cols, 1, esz, smk_transpose_skinny_mode())) { // skinny_vec's accesses
                const int own = skinny_vec_plan<esz>(layout, rows, cols, plan, layout == SMK_NAIVE);
                char tile[sizeof plan->config];
                snprintf(tile, sizeof tile, "%s", plan->config + strlen("skinny-vec "));
                snprintf(plan->config, sizeof plan->config, "skinny-lean %s", tile);
                return own;
            }
            if (skinny_prmt_fits(rows, cols, cols, 1, esz, smk_transpose_skinny_mode()))
                return skinny_prmt_plan<esz>(layout, rows, cols, plan);
            if (skinny_vec_fits(rows, cols, cols, 1, esz, smk_transpose_skinny_mode()))
                return skinny_vec_plan<esz>(layout, rows, cols, plan, 0);
        }
        if constexpr (esz == 4 || esz == 8)
            if (skinny_flat_fits(rows, cols, cols, 1, esz, smk_transpose_flat_mode()))
                return skinny_flat_plan<esz>(layout, rows, cols, plan);
        skinny_plan<esz>(layout, rows, cols, plan);
        return 0;
    } else {
        if constexpr (kWidths[W].esz <= 2 && C == kWidths[W].shipped) /* launch_config's first branch */
            if (gather_fits(kWidths[W].esz, rows, cols, cols, 1, true, smk_transpose_gather_mode())) {
                if (gather_tile_rows(batch, rows, cols, kWidths[W].esz, smk_transpose_gather_mode()) == 256)
                    return gather_plan<kWidths[W].esz, 256>(layout, batch, rows, cols, plan);
                return gather_plan<kWidths[W].esz, 128>(layout, batch, rows, cols, plan);
            }
        if constexpr (kWidths[W].esz <= 4 && C == kWidths[W].shipped) {
            if (sector_fits(W, C, rows, cols, batch, 0, smk_transpose_sector_mode())) { /* a fresh output: on a sector */
                const int own = sector_plan<kWidths[W].esz, c.tile, c.rows>(layout, batch, rows, cols, plan);
                tiled_config(&kConfigs[C], kWidths[W].esz, rows, cols, plan);
                const size_t n = strlen(plan->config);
                snprintf(plan->config + n, sizeof plan->config - n, ", sector store%s",
                         sector_split(kWidths[W].esz, smk_transpose_sector_mode()) ? ", band loaded last" : "");
                return own;
            }
        }
        block_plan<kWidths[W].esz, c.tile, c.rows>(layout, plan); // edge words: the same shared accesses
        tiled_config(&kConfigs[C], kWidths[W].esz, rows, cols, plan);
        if (mid_fits(W, C, rows, cols, smk_transpose_mid_mode())) {
            const size_t n = strlen(plan->config);
            snprintf(plan->config + n, sizeof plan->config - n, smk_transpose_mid_mode() == 2 ? ", lean edges" : ", edge words");
        }
        /* a C-contiguous input on an aligned base: in_vec where its rows are on words */
        const bool in_vec = kWidths[W].esz >= 4 || (cols * kWidths[W].esz) % 4 == 0;
        if (edge_shift_bits(W, C, rows, cols, in_vec, smk_transpose_shift_mode())) { /* the same shared accesses */
            const size_t n = strlen(plan->config);
            snprintf(plan->config + n, sizeof plan->config - n, ", edge tiles shifted inward");
        }
        return 0;
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
    int64_t elems = 0; /* every count below stays in int64 up to 2^62 elements (the largest 2-D shape explain takes) */
    if (__builtin_mul_overflow(batch, rows, &elems) || __builtin_mul_overflow(elems, cols, &elems) ||
        elems > ((int64_t)1 << 62))
        return -1;
    if (copy_fits(rows, cols, cols, 1, esz, smk_transpose_copy_mode())) { /* copy.cuh on a fresh (aligned) output */
        *plan = smk_plan{0, {}, "", copy_blocks(elems * esz), kCopyThreads, 0};
        snprintf(plan->config, sizeof plan->config, "copy (%s: the same bytes), no shared memory", rows == 1 ? "1 x n" : "n x 1");
        return 0;
    }
    /* the launcher's path for a C-contiguous input, in the same skinny mode */
    const Config *v = choose(0, wi, rows, cols, cols, 1, smk_transpose_skinny_mode(), smk_transpose_flat_mode());
    const int own = kPlan.fn[v - kConfigs][wi](layout, batch, rows, cols, plan);
    for (int a = 0; a < plan->n; a++)
        if (own != 2) // 2: the plan counted the whole batch itself
            plan->acc[a].repeats = (own ? plan->acc[a].repeats : plan->blocks) * batch;
    if (own != 2)
        plan->blocks *= batch;
    return 0;
}

extern "C" int smk_transpose_plan(int64_t rows, int64_t cols, int esz, int layout, smk_plan *plan)
{
    return smk_transpose_plan_batched(1, rows, cols, esz, layout, plan);
}
