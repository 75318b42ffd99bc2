/*
 * transpose/skinny_vec_plan.h -- the host replay of the word-wise skinny kernels' shared accesses (skinny_vec.cuh's
 * VecBlock, and skinny_lean.cuh's LeanA, whose tile, grid and accesses are VecBlock's): explain()'s plan of them,
 * included by plan.cu alone.
 */
#ifndef SMK_TRANSPOSE_SKINNY_VEC_PLAN_H
#define SMK_TRANSPOSE_SKINNY_VEC_PLAN_H

#include <cstdio>
#include <vector>

#include "layout.h"
#include "api/plan.h"
#include "transpose/skinny_vec.cuh"

namespace {

/* plan.cu's: one access of a plan from its lane addresses. */
void put_access(smk_access *acc, const char *name, int width, int is_store, const std::vector<long long> &v);

/* One block of the word-wise skinny kernel (skinny_vec.cuh's VecBlock) of n elements along the long side,
 * the input C-contiguous on aligned bases (every run and the flat side then start where the block's
 * global offset does, on a word: mis = 0; run s at byte s * rp mod 4).  The run phase: per warp and
 * step k (the tail step included), one instruction per element e of the word that some lane moves, a lane
 * at its element's buffer byte or idle.  The flat phase: per warp and step, one 4-byte instruction for the
 * lanes whose word is whole, then, for a word cut by the block's end (the last block of a length that
 * is not a whole number of words' elements), one ESZ-byte instruction per element that some lane moves.
 * An instruction no lane of the warp executes is not issued (the kernel branches around it: ncu counts
 * 43 flat loads in the last block of 3x100001 uint8, 40 whole words and 3 elements) -- but in skinny_lean.cuh's
 * naive instance (lean_naive; SASS, sm_90, nvcc 13.0): LeanA::put's E interior stores are predicated by the
 * lane's interior test, so a warp issues all E where any lane has a word (lanes off but the interior ones), and
 * its E edge stores are predicated too, all E issued where any lane is not interior (lanes: the edge lanes'
 * elements).  pad and swizzle branch, as modelled. */
template <int ESZ>
void skinny_vec_block(const smk_tile &tl, int S, int lt, int64_t rp, int n, std::vector<long long> &run,
                      std::vector<long long> &word, std::vector<long long> &elem, int lean_naive)
{
    constexpr int E = 4 / ESZ, WARPS = kVecThreads / 32;
    const int lw = lt + (ESZ == 2) - 2, nb = n * ESZ, SE = S * ESZ, fend = SE * n;
    for (int wp = 0; wp < WARPS; wp++)
        for (int k = 0; k <= kVecSteps; k++) {
            std::vector<long long> in(E * 32, -1), cut(E * 32, -1);
            bool any[E] = {}, reach = false, edge = false;
            for (int lane = 0; lane < 32; lane++) {
                const int t = wp * 32 + lane, q = t + k * kVecThreads;
                const int s = k < kVecSteps ? q >> lw : t, j = k < kVecSteps ? q & ((1 << lw) - 1) : 1 << lw;
                const int ms = (int)((s * rp) & 3), ro0 = 4 * j - ms;
                if (s >= S || ro0 >= nb)
                    continue;
                const bool inner = !lean_naive || (ro0 >= 4 * lane && ro0 + 128 - 4 * lane <= nb); // LeanA::put's test
                reach = true;
                edge |= !inner;
                for (int e = 0; e < E; e++) {
                    const int ro = ro0 + e * ESZ;
                    if (ro >= 0 && ro < nb) {
                        (inner ? in : cut)[e * 32 + lane] = skinny_vec_slot(tl, s * ESZ + (ro / ESZ) * SE);
                        any[e] = true;
                    }
                }
            }
            for (int e = 0; e < E; e++) // lean naive: the E interior stores where a lane has a word, its E edge ones
                if (lean_naive ? reach : any[e])
                    run.insert(run.end(), in.begin() + e * 32, in.begin() + (e + 1) * 32);
            for (int e = 0; e < E && edge; e++)
                run.insert(run.end(), cut.begin() + e * 32, cut.begin() + (e + 1) * 32);
        }
    for (int x0 = 0; x0 < fend; x0 += 4 * kVecThreads)
        for (int wp = 0; wp < WARPS && x0 + 4 * wp * 32 < fend; wp++) {
            std::vector<long long> w(32, -1), el(E * 32, -1);
            bool whole = false, any[E] = {};
            for (int lane = 0; lane < 32; lane++) {
                const int x = x0 + 4 * (wp * 32 + lane);
                if (x + 4 <= fend) {
                    w[lane] = skinny_vec_slot(tl, x);
                    whole = true;
                } else if (x < fend) {
                    for (int e = 0; e < E; e++)
                        if (x + e * ESZ < fend) {
                            el[e * 32 + lane] = skinny_vec_slot(tl, x + e * ESZ);
                            any[e] = true;
                        }
                }
            }
            if (whole)
                word.insert(word.end(), w.begin(), w.end());
            for (int e = 0; e < E; e++)
                if (any[e])
                    elem.insert(elem.end(), el.begin() + e * 32, el.begin() + (e + 1) * 32);
        }
}

/* The word-wise skinny kernel's plan: the blocks of a whole tile (2^lt elements along the long side), and
 * the last one where the length is not a whole number of tiles, each class with its own accesses and
 * repeats (per matrix; smk_transpose_plan_batched scales by the batch).  In the kernel's order: case A
 * the run scatter, then the flat load; case B the flat store, then the run gather.  Not modelled:
 * matrices of a batch whose first element is not on a word (a batch of R x C matrices of ESZ-byte
 * elements with R * C * ESZ not a multiple of 4). */
template <int ESZ>
int skinny_vec_plan(int layout, int64_t rows, int64_t cols, smk_plan *plan, int lean_naive)
{
    const int S = (int)(rows < cols ? rows : cols), lt = skinny_vec_lt(rows, cols, ESZ), T = 1 << lt;
    const int runs_in = rows <= cols;
    const int64_t rp = (runs_in ? cols : rows) * ESZ, len = runs_in ? cols : rows;
    const int64_t blocks = (len + T - 1) >> lt;
    const int last = (int)(len - (blocks - 1) * T); // [1, T]
    const smk_tile tl = skinny_vec_geometry(layout, S, ESZ);
    static const char *const kNames[2][2][3] = {
        {{"skinny-vec flat store", "skinny-vec flat store, cut word", "skinny-vec run gather"},
         {"skinny-vec flat store (last block)", "skinny-vec flat store, cut word (last block)",
          "skinny-vec run gather (last block)"}},
        {{"skinny-vec run scatter", "skinny-vec flat load", "skinny-vec flat load, cut word"},
         {"skinny-vec run scatter (last block)", "skinny-vec flat load (last block)",
          "skinny-vec flat load, cut word (last block)"}}};
    int a = 0;
    for (int c = 0; c < 2; c++) {
        const int64_t reps = c == 0 ? (last == T ? blocks : blocks - 1) : (last == T ? 0 : 1);
        if (reps <= 0)
            continue;
        std::vector<long long> run, word, elem;
        skinny_vec_block<ESZ>(tl, S, lt, rp, c == 0 ? T : last, run, word, elem, lean_naive);
        /* case A: run stores, flat loads (word, cut word); case B: flat stores (word, cut word), run loads */
        const std::vector<long long> *v[3] = {runs_in ? &run : &word, runs_in ? &word : &elem, runs_in ? &elem : &run};
        const int width[3] = {runs_in ? ESZ : 4, runs_in ? 4 : ESZ, ESZ};
        for (int i = 0; i < 3; i++) {
            if (v[i]->empty())
                continue;
            put_access(&plan->acc[a], kNames[runs_in][c][i], width[i], runs_in ? i == 0 : i < 2, *v[i]);
            plan->acc[a++].repeats = reps;
        }
    }
    plan->n = a;
    plan->threads = kVecThreads;
    plan->smem_bytes = skinny_vec_bytes(layout, S, lt, ESZ);
    plan->blocks = blocks;
    snprintf(plan->config, sizeof plan->config, "skinny-vec %dx%lld tile, %d threads, %d-byte elements",
             runs_in ? S : T, runs_in ? (long long)T : (long long)S, kVecThreads, ESZ);
    return 1;
}

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_VEC_PLAN_H */
