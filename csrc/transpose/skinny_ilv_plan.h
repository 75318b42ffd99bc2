/*
 * transpose/skinny_ilv_plan.h -- the host replay of ilv.cu's shared accesses (explain()'s plan of skinny mode 14's case
 * A, S <= 16), included by plan.cu alone.  Every active warp issues S STS.128 (lane l's chunk i at unit 32 S w + S l +
 * i, in i's order) and, a whole warp, S LDS.128 (lane l's unit 32 S w + 32 k + l); a matrix's last, partial warp loads
 * only the units holding its V output bytes (steps k < V / 512 rounded up, lanes past V / 16 off).  The addresses
 * depend on the warp's index w in the block only: one store and one load access for each w, repeated over the warps
 * of that index, and the last warps' loads by (w, V).  A matrix's warps: those over its columns past the head
 * (skinny_ilv.h ilv_head on a fresh output: a 16-byte aligned base, matrix b at b S cols esz bytes), 32 C columns a
 * warp.
 */
#ifndef SMK_TRANSPOSE_SKINNY_ILV_PLAN_H
#define SMK_TRANSPOSE_SKINNY_ILV_PLAN_H

#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "layout.h"
#include "api/plan.h"
#include "transpose/skinny_ilv.h"

namespace {

/* plan.cu's: one access of a plan from its lane addresses. */
void put_access(smk_access *acc, const char *name, int width, int is_store, const std::vector<long long> &v);

/* A batch's warps by their index w in the block (matrix b's head is the same for b and b + 16): every warp's stores
 * (st), whole warps' loads (ld), and each matrix's last warp where it is partial, keyed by (w, its output bytes V). */
struct IlvWarps {
    long long st[kIlvWarps], ld[kIlvWarps];
    std::map<std::pair<int, int>, long long> last;
};

inline IlvWarps ilv_warps(int64_t batch, int64_t cols, int s, int esz)
{
    IlvWarps r{};
    const int cw = ilv_warp_cols(esz);
    for (int64_t b0 = 0; b0 < 16 && b0 < batch; b0++) {
        const int64_t h = ilv_head((uint64_t)b0 * s * cols * esz, s, esz), body = cols > h ? cols - h : 0;
        const int64_t whole = body / cw, rem = body % cw, same = (batch - b0 + 15) / 16;
        for (int w = 0; w < kIlvWarps; w++) {
            r.ld[w] += (long long)((whole - w + kIlvWarps - 1) / kIlvWarps) * same;
            r.st[w] += (long long)((whole + (rem > 0) - w + kIlvWarps - 1) / kIlvWarps) * same;
        }
        if (rem > 0)
            r.last[{(int)(whole % kIlvWarps), (int)(rem * s * esz)}] += same;
    }
    return r;
}

/* Warp w's loads of units [0, V / 16) rounded up (lanes past them off), in ilv.cu's order. */
inline std::vector<long long> ilv_loads(const smk_tile &t, int s, int w, int v)
{
    std::vector<long long> ld;
    for (int k = 0; k < s && 512 * k < v; k++)
        for (int l = 0; l < 32; l++)
            ld.push_back(16 * (32 * k + l) < v ? 16LL * smk_tile_linear(t, 32 * s * w + 32 * k + l) : -1);
    return ld;
}

/* Returns 2: the repeats count the batch. */
template <int ESZ>
int skinny_ilv_plan(int layout, int64_t batch, int64_t rows, int64_t cols, smk_plan *plan)
{
    const int S = (int)rows;
    const smk_tile t = ilv_tile(layout, S);
    static const char *const kNames[kIlvWarps][2] = {
        {"skinny-ilv chunk store (warp 0)", "skinny-ilv chunk load (warp 0)"},
        {"skinny-ilv chunk store (warp 1)", "skinny-ilv chunk load (warp 1)"},
        {"skinny-ilv chunk store (warp 2)", "skinny-ilv chunk load (warp 2)"},
        {"skinny-ilv chunk store (warp 3)", "skinny-ilv chunk load (warp 3)"}};
    static const char *const kLast[kIlvWarps] = {
        "skinny-ilv chunk load (last warp 0)", "skinny-ilv chunk load (last warp 1)",
        "skinny-ilv chunk load (last warp 2)", "skinny-ilv chunk load (last warp 3)"};
    const IlvWarps n = ilv_warps(batch, cols, S, ESZ);
    int a = 0;
    for (int w = 0; w < kIlvWarps; w++) {
        if (n.st[w] > 0) {
            std::vector<long long> st;
            for (int i = 0; i < S; i++)
                for (int l = 0; l < 32; l++)
                    st.push_back(16LL * smk_tile_linear(t, 32 * S * w + S * l + i));
            put_access(&plan->acc[a], kNames[w][0], 16, 1, st);
            plan->acc[a++].repeats = n.st[w];
        }
        if (n.ld[w] > 0) {
            put_access(&plan->acc[a], kNames[w][1], 16, 0, ilv_loads(t, S, w, 512 * S));
            plan->acc[a++].repeats = n.ld[w];
        }
    }
    for (const auto &kv : n.last) { // at most 16 (a matrix's bytes mod 16 pick its head)
        put_access(&plan->acc[a], kLast[kv.first.first], 16, 0, ilv_loads(t, S, kv.first.first, kv.first.second));
        plan->acc[a++].repeats = kv.second;
    }
    const int64_t bx = (cols + ilv_block_cols(ESZ) - 1) / ilv_block_cols(ESZ);
    plan->n = a;
    plan->threads = kIlvThreads;
    plan->smem_bytes = ilv_smem_bytes(layout, S);
    plan->blocks = bx * batch;
    snprintf(plan->config, sizeof plan->config, "skinny-ilv %dx%d per warp, %d threads, %d-byte elements, %d-unit rows", S,
             ilv_warp_cols(ESZ), kIlvThreads, ESZ, 1 << t.log2_cols);
    return 2;
}

/* ilv.cu's de-interleave (case B, rows = R > cols = S <= 4 / 8, mode 16): every warp of a matrix, its last too, issues S
 * STS.128 (lane l's chunk k at unit 32 S w + 32 k + l, in k's order) and S LDS.128 (lane l's unit 32 S w + S l + i, in
 * i's order): the interleave's accesses with stores and loads swapped.  A matrix has ceil(R / (512 / esz)) warps, warp j
 * at index j mod 4 of its block.  Returns 2: the repeats count the batch. */
template <int ESZ>
int skinny_dlv_plan(int layout, int64_t batch, int64_t rows, int64_t cols, smk_plan *plan)
{
    const int S = (int)cols;
    const smk_tile t = ilv_tile(layout, S);
    static const char *const kNames[kIlvWarps][2] = {
        {"skinny-dlv chunk store (warp 0)", "skinny-dlv chunk load (warp 0)"},
        {"skinny-dlv chunk store (warp 1)", "skinny-dlv chunk load (warp 1)"},
        {"skinny-dlv chunk store (warp 2)", "skinny-dlv chunk load (warp 2)"},
        {"skinny-dlv chunk store (warp 3)", "skinny-dlv chunk load (warp 3)"}};
    const int64_t nw = (rows + ilv_warp_cols(ESZ) - 1) / ilv_warp_cols(ESZ);
    int a = 0;
    for (int w = 0; w < kIlvWarps && w < nw; w++) {
        std::vector<long long> st, ld;
        for (int k = 0; k < S; k++)
            for (int l = 0; l < 32; l++) {
                st.push_back(16LL * smk_tile_linear(t, 32 * S * w + 32 * k + l));
                ld.push_back(16LL * smk_tile_linear(t, 32 * S * w + S * l + k));
            }
        const long long reps = (long long)((nw - w + kIlvWarps - 1) / kIlvWarps) * batch;
        put_access(&plan->acc[a], kNames[w][0], 16, 1, st);
        plan->acc[a++].repeats = reps;
        put_access(&plan->acc[a], kNames[w][1], 16, 0, ld);
        plan->acc[a++].repeats = reps;
    }
    plan->n = a;
    plan->threads = kIlvThreads;
    plan->smem_bytes = ilv_smem_bytes(layout, S);
    plan->blocks = (rows + ilv_block_cols(ESZ) - 1) / ilv_block_cols(ESZ) * batch;
    snprintf(plan->config, sizeof plan->config, "skinny-dlv %dx%d per warp, %d threads, %d-byte elements, %d-unit rows",
             ilv_warp_cols(ESZ), S, kIlvThreads, ESZ, 1 << t.log2_cols);
    return 2;
}

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_ILV_PLAN_H */
