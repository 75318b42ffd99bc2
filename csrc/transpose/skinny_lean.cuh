/*
 * transpose/skinny_lean.cuh -- case A of the word-wise skinny transpose (1- and 2-byte elements, rows = S <= 64
 * <= cols: the input rows are the runs, the output a run of T*S elements a tile) with the arithmetic around
 * each access hoisted (knob transpose_skinny = 8, configs.h's skinny_lean_a_fits; issue 26).
 *
 * Why.  ncu (H200, session 43, data/ncu43_t.txt) finds the case-A skinny kernels issue-bound: 9x5x4128923 uint8
 * on skinny_vec_kernel 1.22 warp instructions a matrix byte at 88% issue, 54x34x25317 fp16 on
 * skinny_prmt_a_kernel 1.48 at 84% (an aligned tiled transpose: 0.19, at copy speed).  Their SASS (sm_90)
 * spends about 17 instructions on each element skinny_vec scatters: a branch pair (BSSY / BSYNC) around
 * it, the shared window recomputed (S2UR SR_CgaCtaId, ULEA: the buffer is addressed through a generic
 * pointer), skinny_vec_slot's six-instruction word split, and run_ok's two compares; per run word
 * item() again (twice: load and store loops), with its 64-bit run address and division-like x.
 *
 * What.  The same tile, grid, shared geometry and shared access pattern as skinny_vec.cuh's runs_to_flat
 * (so plan.cu replays it with skinny_vec_block, and explain()'s counts are skinny_vec's), moved with
 *   - each run word's item (s, j, run address, run byte ro, F byte x) computed once and kept in registers over
 *     a group of items (8, 4, 4, then the tail word: 8 loads in flight a thread), a group skipped whole where
 *     its first run is past S (S' > S: S = 5 bytes runs 11 of 17 items, S = 34 halves 10);
 *   - a vote-free warp-uniform test per word (a warp's lanes hold consecutive words of one run, so lane 0's
 *     word starting in the run and lane 31's ending in it are one test in every lane): then E shared stores
 *     with no predicate, each one IADD (x + e*S*esz), the map (lean_slot: naive 0, pad 2, swizzle 3
 *     instructions), a shift, the store; else each element's store under a warp reduction (no store issued
 *     that no lane makes: the plan's rule);
 *   - the flat phase: whole words under one predicate from per-thread constants (bytes left from the lane's
 *     / warp's first word), LDS.32 and STG.32 at immediate offsets (x = 4t + 1024k); the cut words (the tile's
 *     first when the output is off a word, its last) only in the tile's first and last warp steps.
 * Measured without a GPU (sm_90 SASS, nvcc 13.0 -O3, layout pad; docs/TRANSPOSE_NOTES.md "Session 43"): per
 * thread, the run phase of a whole tile 1701 -> 921 instructions (uint8; fp16 1163 -> 789) and the flat phase
 * about 80 -> 15 a word; on the interior path about 46 (uint8) / 38 (fp16) a run word plus 15 a flat word,
 * against about 180 / 115 for skinny_vec's case A.  Registers 64, no spill (ptxas -v, every layout and width).
 */
#ifndef SMK_TRANSPOSE_SKINNY_LEAN_CUH
#define SMK_TRANSPOSE_SKINNY_LEAN_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "layout.h"
#include "transpose/skinny_vec.cuh"

namespace {

/* skinny_vec_slot(skinny_vec_geometry(layout, ...), x) in at most three instructions, sh = log2_cols + 2 (a
 * row of F is 2^sh bytes, row r = x >> sh): smk_tile_offset(tl, r, c) * 4 + (x & 3) is x for naive, x + 4r
 * for pad (one word a row), x ^ 4 * (r & 31) for swizzle (Swizzle<5,0,log2_cols> on words: the row's low 5
 * bits XOR the word slot).  tests/test_transpose_skinny_lean.py checks it against skinny_vec_slot through
 * explain() (plan.cu replays the lean kernel through lean_slot). */
SMK_HD int lean_slot(int layout, int sh, int x)
{
    return layout == SMK_PAD ? x + ((x >> sh) << 2) : layout == SMK_SWIZZLE ? x ^ (((x >> sh) & 31) << 2) : x;
}

#ifdef __CUDACC__
/* One block's view (names as VecBlock's): input run s at rbase + s * rp (nb bytes), F byte x = global byte
 * fa + x (the tile's bytes [mis, fend)), a row of F's shared map 2^sh bytes; lo4 / hi4 = 4 lane / 4 (32 - lane). */
template <int L, int ESZ>
struct LeanA {
    typedef typename Unit<ESZ>::T T;
    static constexpr int E = 4 / ESZ, LE = ESZ == 2 ? 1 : 0;
    const unsigned char *rbase, *lo, *hi; // lo / hi: the matrix's input bytes
    unsigned char *fa;
    int64_t rp;
    int S, SE, nb, mis, fend, lw, t, sh, lo4, hi4;
    bool clip; // block-uniform: a run word reaches outside [lo, hi) (global.cuh's words_leave)

    /* Run item k (k == kVecSteps: the tail word 2^lw of run t): the word's address, its run byte ro (negative:
     * before the run; kNone where the thread has no item, s >= S, so that "ro < nb" alone says it has one and
     * no flag per item stays live across the loads) and the F byte x of its element 0. */
    static constexpr int kNone = 1 << 30;
    __device__ __forceinline__ void item(int k, const uint32_t *&g, int &ro, int &x) const
    {
        const int q = t + k * kVecThreads;
        const int s = k < kVecSteps ? q >> lw : t, j = k < kVecSteps ? q & ((1 << lw) - 1) : 1 << lw;
        const unsigned char *ra = rbase + (int64_t)(uint32_t)s * rp; // s >= 0: no sign extension
        const int ms = (int)((uintptr_t)ra & 3);
        ro = 4 * j - ms;
        g = reinterpret_cast<const uint32_t *>(ra - ms) + (uint32_t)j; // j >= 0: a 64-bit LEA
        x = mis + s * ESZ + (ro >> LE) * SE; // ro is a multiple of ESZ (element-aligned runs)
        ro = s < S ? ro : kNone;
    }

    /* F byte x's element in shared memory (F's map: lean_slot). */
    __device__ __forceinline__ T *at(int x) const
    {
        return reinterpret_cast<T *>(skinny_vec_smem + lean_slot(L, sh, x));
    }

    /* One run word's elements to their F places.  A warp's lanes hold consecutive words of one run (W >= 64),
     * so "every lane's word lies inside the run" is lane 0's word from byte 0 on and lane 31's ending by nb:
     * ro - 4 lane >= 0 and ro + 4 (32 - lane) <= nb, the same in every lane (no vote); then E stores with no
     * predicate.  Else each element under a warp vote: no store issued that no lane makes (plan.cu's rule). */
    __device__ __forceinline__ void put(uint32_t v, int ro, int x) const
    {
        if (ro >= nb)
            return; // no element here (warp-uniform but in the tail item: one run a lane there)
        if (ro >= lo4 && ro + hi4 <= nb) {
#pragma unroll
            for (int e = 0; e < E; e++)
                *at(x + e * SE) = (T)(v >> (8 * ESZ * e));
            return;
        }
#ifdef SMK_LEAN_FASTONLY
        return; // instruction counting only (/tmp proxy): the interior path
#endif
        unsigned m = 0; // the elements this lane moves
#pragma unroll
        for (int e = 0; e < E; e++)
            m |= (unsigned)(ro + e * ESZ >= 0 && ro + e * ESZ < nb) << e;
        const unsigned any = __reduce_or_sync(__activemask(), m); // the whole warp: the branch is warp-uniform
#pragma unroll
        for (int e = 0; e < E; e++)
            if ((any >> e & 1) && (m >> e & 1))
                *at(x + e * SE) = (T)(v >> (8 * ESZ * e));
    }

    /* Items [K0, K1): every load in flight, then the stores; none where the group's first run is past S (s
     * grows with k; the tail item, k = kVecSteps, always runs).  S = 5 bytes (S' = 8) has 10 item steps of 16,
     * S = 34 halves (S' = 64) 9. */
    template <int K0, int K1>
    __device__ __forceinline__ void scatter() const
    {
        if (K0 < kVecSteps && (K0 * kVecThreads >> lw) >= S)
            return; // block-uniform
        uint32_t v[K1 - K0];
        int ro[K1 - K0], x[K1 - K0];
#pragma unroll
        for (int k = K0; k < K1; k++) {
            const uint32_t *g;
            item(k, g, ro[k - K0], x[k - K0]);
            v[k - K0] = ro[k - K0] < nb ? *g : 0u;
        }
#pragma unroll
        for (int k = K0; k < K1; k++)
            put(v[k - K0], ro[k - K0], x[k - K0]);
    }

    /* Every item: 8 loads in flight a thread (17 words with their items at once pass 64 registers), the later
     * groups smaller so that a short side S < S' (the items past run S - 1) skips more of them.  The tiles at the
     * matrix's ends where a run word straddles its first or last byte (clip): one word at a time, through
     * global.cuh's load_word_in (byte by byte at the matrix's ends). */
    __device__ __forceinline__ void scatter_all() const
    {
        if (clip) {
#pragma unroll 1
            for (int k = 0; k <= kVecSteps; k++) {
                const uint32_t *g;
                int ro, x;
                item(k, g, ro, x);
                if (ro < nb)
                    put(load_word_in(reinterpret_cast<const unsigned char *>(g), lo, hi), ro, x);
            }
            return;
        }
        scatter<0, kVecSteps / 2>();
        scatter<kVecSteps / 2, kVecSteps * 3 / 4>();
        scatter<kVecSteps * 3 / 4, kVecSteps>();
        scatter<kVecSteps, kVecSteps + 1>();
    }

    /* F out: word x = 4 (t + 256 k) to global fa + x.  The whole words under one predicate from per-thread
     * constants, guarded by a warp-uniform "some lane is whole" (its first whole lane's word ends by fend);
     * the cut words (the tile's first word when mis > 0, its last when fend is off a word) element by element
     * under a warp vote, only in the tile's first and last warp steps (a warp-uniform test).  So the
     * instructions issued are skinny_vec's. */
    __device__ __forceinline__ void flat_out() const
    {
        const int fw = fend - 4 * (t & ~31), fl = fend - 4 * t; // tile bytes from the warp's / lane's first word on
        const bool head = (t & ~31) == 0 && mis > 0;           // warp 0's lane 0 holds the tile's first, cut word
#pragma unroll
        for (int k = 0; k <= kVecSteps; k++) {
            const int d = k * 4 * kVecThreads, x = 4 * t + d; // xw = fend - fw + ...: the warp's first word at d
            if (fw <= d)
                break; // warp-uniform: past the tile
            const bool whole = (k > 0 || x >= mis) && fl >= d + 4;
            if (fw >= d + (k == 0 && head ? 8 : 4) && whole) // warp-uniform first: some lane is whole
                *reinterpret_cast<uint32_t *>(fa + x) = *reinterpret_cast<const uint32_t *>(at(x));
#ifdef SMK_LEAN_FASTONLY
            continue;
#endif
            if (!(k == 0 && head) && fw >= d + 128)
                continue; // warp-uniform: no cut word in this warp step
            unsigned m = 0; // bits e: a cut word's elements inside the tile
#pragma unroll
            for (int e = 0; e < E; e++)
                m |= (unsigned)(!whole && x + e * ESZ >= mis && x + e * ESZ < fend) << e;
            const unsigned any = __reduce_or_sync(__activemask(), m); // warp-uniform branch: the whole warp
#pragma unroll
            for (int e = 0; e < E; e++)
                if ((any >> e & 1) && (m >> e & 1))
                    reinterpret_cast<T *>(fa + x)[e] = *at(x + e * ESZ);
        }
    }
};

/* tparams: L the smk_layout of F, ESZ 1 or 2.  At least 4 blocks an SM, as skinny_vec. */
template <int L, int ESZ>
__global__ void __launch_bounds__(kVecThreads, 4) skinny_lean_a_kernel(const SkinnyVecArgs a)
{
    static_assert(ESZ == 1 || ESZ == 2, "word-wise skinny: sub-word elements only");
    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return; // uniform per block, before the barrier
    LeanA<L, ESZ> k;
    k.S = a.s;
    k.SE = a.s * ESZ;
    k.t = threadIdx.x;
    const int64_t p0 = (int64_t)blockIdx.x << a.lt;
    const int n = (int)(a.cols - p0 < (1 << a.lt) ? a.cols - p0 : 1 << a.lt); // [1, T]
    k.rbase = a.in + (b * a.in_bs + p0) * ESZ;
    k.rp = a.in_rs * ESZ;
    unsigned char *fb = a.out + (b * a.rows * a.cols + p0 * k.S) * ESZ;
    k.mis = (int)((uintptr_t)fb & 3);
    k.fa = fb - k.mis;
    k.nb = n * ESZ;
    k.fend = k.mis + n * k.SE;
    k.lw = a.lt + LeanA<L, ESZ>::LE - 2;
    k.sh = skinny_vec_geometry(L, k.S, ESZ).log2_cols + 2;
    k.lo4 = 4 * (k.t & 31);
    k.hi4 = 128 - k.lo4;
    k.lo = a.in + b * a.in_bs * ESZ;
    k.hi = k.lo + ((k.S - 1) * a.in_rs + a.cols) * ESZ;
    k.clip = words_leave<4>(k.rbase, k.rbase + (k.S - 1) * k.rp + k.nb, k.lo, k.hi);
    k.scatter_all();
    __syncthreads();
    k.flat_out();
}
#endif

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_LEAN_CUH */
