/*
 * transpose/gather_plan.h -- the host replay of the gather kernel's shared accesses (gather.cuh; knob
 * transpose_gather), included by plan.cu alone: a block's raw row stores and byte loads in the kernel's order, the
 * matrix's end rows stored again (off words), the last tile column's shorter loop, and tile row 0's head loads grouped
 * by their lanes' pattern.  Against Nsight Compute (H200, session 53; 1031x2053 and 7555x4998 uint8, 3679x24103
 * float16, every layout): shared load instructions exact, load wavefronts exact (1031x2053) or within 2.1% (ncu's
 * contention on top), store instructions exact, store wavefronts within 0.7%; session 55 (both tiles: 1031x2053 uint8
 * pad / swizzle, float16 pad, 1153x1000 uint8 pad): load and store instructions and store wavefronts exact, load
 * wavefronts within 0.05%.  Session 59 (the kernel of one store loop; 1025x2053 and 1031x2053 uint8, 2x1031x2053
 * float16 naive, 1587x85719 uint8 and 3679x24103 float16 pad): shared load and store instructions exact on all five,
 * wavefronts exact or within 1.5% on the first three; on the two calls of 100+ us ncu's launch counters read 6-11%
 * above (the dynamic excess of busy launches, docs/TRANSPOSE_NOTES.md sessions 58-59).
 */
#ifndef SMK_TRANSPOSE_GATHER_PLAN_H
#define SMK_TRANSPOSE_GATHER_PLAN_H

#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "layout.h"
#include "api/plan.h"
#include "transpose/gather.cuh"

namespace {

void put_access(smk_access *acc, const char *name, int width, int is_store, const std::vector<long long> &v);

/* The gather kernel (gather.cuh) of a C-contiguous batch on a fresh (word-aligned) output: a block's raw row stores
 * (32 lanes on one row's slots) and byte loads -- lanes w on super rows w / w + 1 at one byte: DE = 0 and shift 0
 * stand for every DE and shift, the lanes' words staying in 32 distinct super rows --, the last tile column's blocks
 * loading only its output rows; tile row 0's head loads (lanes j < DE, super row 0, shifts s_j), which depend on the
 * warp and the matrix's base phase only (a tile column starts 128 bytes apart on both sides), grouped by their lanes'
 * offsets from lane 0's word (the same conflicts wherever the group sits).  Returns 2: repeats count the batch. */
template <int ESZ, int TR>
int gather_plan(int layout, int64_t batch, int64_t rows, int64_t cols, smk_plan *plan)
{
    typedef Gather<ESZ, TR> G;
    constexpr int E = G::E, WARPS = G::THREADS / 32;
    const smk_tile tl = G::geometry(layout);
    const int64_t tx_n = (cols + G::TC - 1) / G::TC, ty_n = (rows + G::TR - 1) / G::TR;
    const int cn_last = (int)(cols - (tx_n - 1) * G::TC);
    auto at = [&](int sr, int col, int byte) { return 4LL * smk_tile_offset(tl, sr, col) + byte; };
    std::vector<long long> st, ld[2];
    // every warp stores NM rows, the last round's past the halo zeros into spare super rows (session 59: a store that the
    // warps past the halo skipped was if-converted by nvcc and issued with no lane on, uncounted)
    for (int wp = 0; wp < WARPS; wp++)
        for (int m = 0; m < G::NM; m++) {
            const int rho = wp + 8 * m;
            for (int lane = 0; lane < 32; lane++)
                st.push_back(at(rho / E, (rho % E) * 32 + lane, 0));
        }
    for (int part = 0; part < 2; part++) // 0: a full tile column, 1: the last one's cn_last output rows
        for (int wp = 0; wp < WARPS; wp++)
            for (int cc = wp; cc < (part ? cn_last : G::TC); cc += 8)
                for (int u = 0; u < G::NW; u++)
                    for (int k = 0; k < E; k++)
                        for (int lane = 0; lane < 32; lane++)
                            ld[part].push_back(at(lane + 32 * u, k * 32 + ((cc * ESZ) >> 2), (cc * ESZ) & 3));
    int a = 0;
    const int64_t blocks = tx_n * ty_n * batch;
    put_access(&plan->acc[a], "gather raw row store", 4, 1, st);
    plan->acc[a++].repeats = blocks;
    // a matrix's rows 0 and R - 1 where its ends are off words: stored again, clipped, after the tile's rows
    // (gather_load's rolled loop), once in each tile that loads them (row R - 1: one or two tile rows, the halo)
    const int64_t mb = rows * cols * ESZ % 4;
    long long ends = 0;
    for (int64_t b = 0; b < 4 && b < batch; b++) {
        const int64_t weight = (batch - b + 3) / 4, lo = b * mb % 4, hi = (b + 1) * mb % 4;
        if (lo == 0 && hi == 0)
            continue;
        long long per = 1; // row 0: tile row 0
        for (int64_t ty = ty_n - 2; rows > 1 && ty < ty_n; ty++)
            per += ty >= 0 && rows - 1 - ty * G::TR < G::NROW;
        ends += weight * tx_n * per;
    }
    if (ends > 0) {
        std::vector<long long> er;
        for (int lane = 0; lane < 32; lane++)
            er.push_back(at(0, lane, 0));
        put_access(&plan->acc[a], "gather end row store (matrix rows 0 and R - 1 off words)", 4, 1, er);
        plan->acc[a++].repeats = ends;
    }
    const bool split = cn_last < G::TC;
    put_access(&plan->acc[a], "gather byte load", ESZ, 0, ld[0]);
    plan->acc[a++].repeats = (tx_n - split) * ty_n * batch;
    if (split) {
        put_access(&plan->acc[a], "gather byte load, last tile column", ESZ, 0, ld[1]);
        plan->acc[a++].repeats = ty_n * batch;
    }
    std::map<std::vector<long long>, std::pair<long long, std::vector<long long>>> heads; // key: de, byte, offsets
    const int64_t p3 = cols * ESZ % 4;
    for (int64_t b = 0; b < 4 && b < batch; b++) {
        const int64_t weight = (batch - b + 3) / 4, base = b * mb % 4; // matrices b, b + 4, ...: input and output phase
        for (int part = 0; part < 2; part++) {
            const int64_t cols_n = part ? 1 : tx_n - split; // tile columns of this kind
            if (cols_n == 0 || (part && !split))
                continue;
            for (int wp = 0; wp < WARPS; wp++) {
                const int de = (int)((4 - (base + wp * rows * ESZ) % 4) % 4) / ESZ;
                for (int cc = wp; de > 0 && cc < (part ? cn_last : G::TC); cc += 8)
                    for (int bb = 0; bb < ESZ; bb++) {
                        std::vector<long long> lanes(32, -1), key = {de, bb};
                        for (int j = 0; j < de; j++) {
                            const int p = (int)((cc * ESZ + (base + j * p3) % 4) & 127);
                            lanes[j] = at(0, j * 32 + (p >> 2), (p & 3) + bb);
                            key.push_back(lanes[j] - (lanes[0] & ~3LL));
                        }
                        auto &h = heads[key];
                        h.first += weight * cols_n;
                        if (h.second.empty())
                            h.second = lanes;
                    }
            }
        }
    }
    for (auto &h : heads) {
        if (a >= SMK_PLAN_MAX)
            break; // at most 3 x 2 x (offset patterns): far below the plan's room
        put_access(&plan->acc[a], "gather head load (tile row 0)", 1, 0, h.second.second);
        plan->acc[a++].repeats = h.second.first;
    }
    plan->n = a;
    plan->threads = G::THREADS;
    plan->smem_bytes = 4 * G::WORDS(layout);
    plan->blocks = blocks;
    snprintf(plan->config, sizeof plan->config, "gather from raw rows: %d-row x 128-byte tile (+%d halo rows), %d threads, %d-byte elements",
             TR, E - 1, G::THREADS, ESZ);
    return 2;
}

} // namespace

#endif /* SMK_TRANSPOSE_GATHER_PLAN_H */
