/*
 * transpose/skinny_vec.cuh -- the word-wise skinny transpose: 1- and 2-byte elements, one side S of at most
 * 64 elements (down to 1 x n and n x 1), every global access an aligned 4-byte word (issue 26, (a), (b)).
 *
 * Why.  skinny.cuh moves one element per lane: for a byte matrix that is a 1-byte load, store, shared
 * store and shared load per byte, with their address and bound arithmetic -- issue-bound near half of a
 * copy.  Here every global access is a whole aligned 32-bit word, whatever the pitch: a pitch that is not
 * a multiple of 4 bytes only changes which bytes of a word belong to which element.
 *
 * A skinny matrix has two global sides (S = the short side, a tile = T elements along the long side):
 *
 *   runs    S runs of T contiguous elements, one per short index s, `rp` bytes apart: the input rows
 *           when rows <= cols (case A), the output rows when rows > cols (case B)
 *   flat    the other side: T*S contiguous elements in the order f = p*S + s (p the place along the run):
 *           the tile's T output rows of S (case A), or its T input rows of S (case B, rows of pitch S)
 *
 * The block stages the flat side in shared memory, byte for byte at the global word alignment (flat byte
 * f*esz sits at buffer byte mis + f*esz, mis = the flat base mod 4), so the flat phase is word for word:
 *
 *   case A   runs phase: lane reads the aligned word j of run s (LDG.32), scatters its E = 4/esz elements
 *            to their flat places (STS.8 / STS.16); barrier; flat phase: LDS.32 -> STG.32
 *   case B   flat phase: LDG.32 -> STS.32; barrier; runs phase: lane gathers the E elements of word j of
 *            output run s (LDS.8 / .16), packs them, one STG.32
 *
 * Words partly outside the tile (a run's first and last word, the flat side's ends) move element by
 * element; a word wholly inside moves as one.  Run word j of run s starts at byte 4j - ms of the run
 * (ms = the run's start mod 4), whose element p sits at buffer byte x = mis + (p*S + s)*esz.
 * Items: q = t + 256k, s = q >> lw, j = q & (W-1), W = 2^lw words a run (at least 64: a warp is in one
 * run, so lanes read / write consecutive words); word W of run t (t < S) is the misaligned tail.
 *
 * Shared memory is a tile of 4-byte words, 2^(5+m) to a row (skinny_vec_geometry: 2^m bank rows, m > 0
 * for S = 64: 4*S >= 256 bytes, and m = 1 where 32-word rows fold the lanes below together: pad S = 31, 62,
 * swizzle S = 11 k and 31 k, skinny_vec_long_row), through layout.h's smk_tile_offset with vec = 1 word
 * (skinny_vec_slot): the flat phase's lanes walk consecutive words (conflict-free in every layout); in
 * the run phase one instruction moves element e of each lane's word, and consecutive lanes' words are
 * 4 / esz elements apart along the run, whose places are S * esz bytes apart: lanes 4*S bytes apart:
 *
 *   naive    lane i at bank (i * S) mod 32 (+ const): odd S conflict-free, S = 2^k * odd 2^k-way, up to
 *            32-way from S = 32
 *   pad      row pitch 2^(5+m) + 1 words: a lane step of one row moves one bank (S = 31 k: lane i at
 *            i S + floor(i S / 32) words, ~32 i - 1 for S = 31, one bank: hence 64-word rows there)
 *   swizzle  the word slot XOR the low 5 bits of the row (Swizzle<5,0,5+m> on words): the lanes of a
 *            power-of-two S land in distinct slots
 *
 * plan.cu replays exactly these offsets (skinny_vec_slot) for explain().
 * Grid: x = tile along the long side, y + 65535 z = matrix of the batch.
 */
#ifndef SMK_TRANSPOSE_SKINNY_VEC_CUH
#define SMK_TRANSPOSE_SKINNY_VEC_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "layout.h"
#include "transpose/global.cuh"
#include "transpose/unit.cuh"

namespace {

constexpr int kVecThreads = 256;
constexpr int kVecLog2Bytes = 14;                   /* a tile's data with S a power of two: 16 KB */
constexpr int kVecMaxShort = 64;                    /* the short side, at most */
constexpr int kVecSteps = (1 << kVecLog2Bytes) / 4 / kVecThreads; /* run words per thread: 16 */

/* Everything one launch needs (the first fields as in SkinnyArgs: launch.cu's matrix_args fills them). */
struct SkinnyVecArgs {
    const unsigned char *in;
    unsigned char *out;
    int64_t rows, cols;   // of one matrix, in elements
    int64_t in_rs, in_cs; // element strides (in_cs == 1; case B: in_rs == cols)
    int64_t in_bs;        // element stride between input matrices
    int64_t batch;
    int64_t tiles_x;      // tiles along the long side
    int s;                // the short side
    int lt;               // log2 elements of a tile along the long side
    int runs_in;          // 1: case A (rows <= cols, the input rows are the runs); 0: case B
    int flc, fbytes;      // skinny_prmt.cuh: F's log2 words a row and bytes (skinny_prmt_fgeometry / _fbytes)
};

/* log2 T: the long side of a tile, 2^kVecLog2Bytes / (S' * esz), S' = S to a power of two (<= 64). */
inline int skinny_vec_lt(int64_t rows, int64_t cols, int esz)
{
    const int64_t s = rows < cols ? rows : cols;
    int ls = 0;
    while ((int64_t)1 << ls < s)
        ls++;
    return kVecLog2Bytes - ls - smk_ilog2(esz);
}

/* Where rows of 2^5 words put the run phase's lanes (S words apart) in a few banks (session 56): pad's 33-word rows
 * move lane i by i S + floor(i S / 32) words, one bank or less a lane for S = 31 k (S = 31: 32-way, 62: 16-way); the
 * swizzle (the word slot XOR the row's low 5 bits) folds lanes together for S = 11 k and 31 k (31 and 33: 32-way, 11
 * and 22: 11, 44: 8, 55: 7, 62: 16).  Rows of 2^6 words take those to 2-4 ways (layout.h's maps lane by lane over
 * every start word of a row; skinny_prmt case B at S = 31 ran at 0.25-0.28 of a copy on an H200).  Naive keeps its
 * conflicts (the A/B's point). */
SMK_HD bool skinny_vec_long_row(int layout, int s)
{
    return s < 64 && ((layout == SMK_PAD && s % 31 == 0) || (layout == SMK_SWIZZLE && (s % 11 == 0 || s % 31 == 0)));
}

/* The buffer as an smk_tile of 4-byte words, vector one word, 2^(5+m) words to a row: 2^m bank rows, the
 * step between the run phase's lanes (4*S bytes) when that is 256 bytes or more (m = 1 for S = 64), so that pad's one word a row and swizzle's XOR with the low row bits separate
 * consecutive lanes; m = 1 also where skinny_vec_long_row says 2^5 words fold the lanes together. */
SMK_HD smk_tile skinny_vec_geometry(int layout, int s, int esz)
{
    const int m = smk_ilog2(4 * s) - 7;
    (void)esz;
    return smk_tile{layout, 5 + (m > 0 ? m : skinny_vec_long_row(layout, s) ? 1 : 0), 0, 2};
}

/* Shared byte of buffer byte x: its word through the layout map (smk_tile_linear: smk_tile_offset of row w >>
 * log2_cols, column w mod 2^log2_cols, in closed form), the byte within the word kept. */
SMK_HD int skinny_vec_slot(smk_tile tl, int x)
{
    return smk_tile_linear(tl, x >> 2) * 4 + (x & 3);
}

/* Buffer words in use at most: the tile's data plus one word of misalignment. */
inline int skinny_vec_words(int s, int lt, int esz) { return ((s << lt) * esz + 3) / 4 + 1; }

inline int skinny_vec_bytes(int layout, int s, int lt, int esz)
{
    const smk_tile tl = skinny_vec_geometry(layout, s, esz);
    const int row = 1 << tl.log2_cols;
    return smk_tile_elems(tl, (skinny_vec_words(s, lt, esz) + row - 1) / row) * 4;
}

#ifdef __CUDACC__
/* The block's buffer (dynamic shared memory; a namespace-scope name so that VecBlock's accesses stay
 * 32-bit shared ones, not generic). */
extern __shared__ __align__(16) unsigned char skinny_vec_smem[];

/* One run word: the aligned global word, the run byte of its byte 0 (negative: before the run) and the
 * buffer byte of its first element's place. */
struct RunWord {
    unsigned char *g;
    int ro, x;
};

/* One block's view of its tile (both cases): the runs (run s at rbase + s * rp, n elements = nb bytes
 * each) and the buffer (bytes [mis, fend) in use, buffer byte x = global byte fa + x). */
template <int L, int ESZ>
struct VecBlock {
    typedef typename Unit<ESZ>::T T;
    static constexpr int E = 4 / ESZ;
    unsigned char *rbase, *fa;
    const unsigned char *lo, *hi; // case A: the matrix's input bytes
    int64_t rp;
    int S, nb, mis, fend, lw, t;
    bool clip; // case A, block-uniform: a run word reaches outside [lo, hi) (global.cuh's words_leave)
    smk_tile tl;

    __device__ __forceinline__ unsigned char *at(int x) const { return skinny_vec_smem + skinny_vec_slot(tl, x); }

    /* Run item k (k == kVecSteps: the tail word 2^lw of run t): false when the thread has none. */
    __device__ __forceinline__ bool item(int k, RunWord &w) const
    {
        const int q = t + k * kVecThreads;
        const int s = k < kVecSteps ? q >> lw : t, j = k < kVecSteps ? q & ((1 << lw) - 1) : 1 << lw;
        unsigned char *ra = rbase + (int64_t)s * rp;
        const int ms = (int)((uintptr_t)ra & 3);
        w.g = ra + (4 * j - ms);
        w.ro = 4 * j - ms;
        w.x = mis + s * ESZ + (w.ro / ESZ) * S * ESZ;
        return s < S && w.ro < nb;
    }
    __device__ __forceinline__ bool run_ok(const RunWord &w, int e) const { return w.ro + e * ESZ >= 0 && w.ro + e * ESZ < nb; }
    __device__ __forceinline__ bool flat_ok(int x) const { return x >= mis && x < fend; }

    /* A run word's elements to their places. */
    __device__ __forceinline__ void run_put(const RunWord &w, uint32_t u) const
    {
#pragma unroll
        for (int e = 0; e < E; e++)
            if (run_ok(w, e))
                *reinterpret_cast<T *>(at(w.x + e * S * ESZ)) = (T)(u >> (8 * ESZ * e));
    }

    /* case A: every run word loaded, its elements to their places; barrier; the buffer out word by word.  The
     * tiles at the matrix's ends where a run word straddles its first or last byte (clip): one word at a time,
     * through global.cuh's load_word_in (byte by byte at the matrix's ends). */
    __device__ __forceinline__ void runs_to_flat() const
    {
        RunWord w;
        if (clip) {
#pragma unroll 1
            for (int k = 0; k <= kVecSteps; k++)
                if (item(k, w))
                    run_put(w, load_word_in(w.g, lo, hi));
        } else {
            uint32_t v[kVecSteps + 1];
#pragma unroll
            for (int k = 0; k <= kVecSteps; k++)
                v[k] = item(k, w) ? *reinterpret_cast<const uint32_t *>(w.g) : 0u;
#pragma unroll
            for (int k = 0; k <= kVecSteps; k++)
                if (item(k, w))
                    run_put(w, v[k]);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k <= kVecSteps; k++) {
            const int x = 4 * (t + k * kVecThreads); // the buffer is at most 4 * (kVecSteps * 256 + 1) bytes
            if (x >= fend)
                break;
            if (x >= mis && x + 4 <= fend) {
                *reinterpret_cast<uint32_t *>(fa + x) = *reinterpret_cast<const uint32_t *>(at(x));
            } else {
#pragma unroll
                for (int e = 0; e < E; e++)
                    if (flat_ok(x + e * ESZ))
                        *reinterpret_cast<T *>(fa + x + e * ESZ) = *reinterpret_cast<const T *>(at(x + e * ESZ));
            }
        }
    }

    /* case B: the flat side in word by word (every load first); barrier; each output run word gathered
     * from its places (the same shared loads for whole and edge words: no divergence there), one store. */
    __device__ __forceinline__ void flat_to_runs() const
    {
        uint32_t v[kVecSteps + 1];
#pragma unroll
        for (int k = 0; k <= kVecSteps; k++) {
            const int x = 4 * (t + k * kVecThreads);
            v[k] = 0;
            if (x >= mis && x + 4 <= fend) {
                v[k] = *reinterpret_cast<const uint32_t *>(fa + x);
            } else if (x < fend) {
#pragma unroll
                for (int e = 0; e < E; e++)
                    if (flat_ok(x + e * ESZ))
                        v[k] |= (uint32_t)*reinterpret_cast<const T *>(fa + x + e * ESZ) << (8 * ESZ * e);
            }
        }
#pragma unroll
        for (int k = 0; k <= kVecSteps; k++) {
            const int x = 4 * (t + k * kVecThreads);
            if (x >= mis && x + 4 <= fend) {
                *reinterpret_cast<uint32_t *>(at(x)) = v[k];
            } else if (x < fend) {
#pragma unroll
                for (int e = 0; e < E; e++)
                    if (flat_ok(x + e * ESZ))
                        *reinterpret_cast<T *>(at(x + e * ESZ)) = (T)(v[k] >> (8 * ESZ * e));
            }
        }
        __syncthreads();
        RunWord w;
#pragma unroll
        for (int k = 0; k <= kVecSteps; k++) {
            if (!item(k, w))
                continue;
            T el[E];
#pragma unroll
            for (int e = 0; e < E; e++)
                el[e] = run_ok(w, e) ? *reinterpret_cast<const T *>(at(w.x + e * S * ESZ)) : T(0);
            if (w.ro >= 0 && w.ro + 4 <= nb) {
                uint32_t u = 0;
#pragma unroll
                for (int e = 0; e < E; e++)
                    u |= (uint32_t)el[e] << (8 * ESZ * e);
                *reinterpret_cast<uint32_t *>(w.g) = u;
            } else {
#pragma unroll
                for (int e = 0; e < E; e++)
                    if (run_ok(w, e))
                        *reinterpret_cast<T *>(w.g + e * ESZ) = el[e];
            }
        }
    }
};

/* tparams: L the smk_layout of the buffer, ESZ 1 or 2.  At least 4 blocks an SM (64 registers; the pad
 * 2-byte instance spills 24 bytes to L1, the others nothing; unbounded they take 80-100). */
template <int L, int ESZ>
__global__ void __launch_bounds__(kVecThreads, 4) skinny_vec_kernel(const SkinnyVecArgs a)
{
    static_assert(ESZ == 1 || ESZ == 2, "word-wise skinny: sub-word elements only");
    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return; // uniform per block, before the barrier
    VecBlock<L, ESZ> k;
    k.S = a.s;
    k.t = threadIdx.x;
    const int64_t len = a.runs_in ? a.cols : a.rows, p0 = (int64_t)blockIdx.x << a.lt;
    const int n = (int)(len - p0 < (1 << a.lt) ? len - p0 : 1 << a.lt); // [1, T]
    const int64_t mat = b * a.rows * a.cols;
    // pointers stay pointers (derived from the kernel's arguments) so that nvcc emits global accesses
    unsigned char *in = const_cast<unsigned char *>(a.in);
    k.rbase = a.runs_in ? in + (b * a.in_bs + p0) * ESZ : a.out + (mat + p0) * ESZ;
    k.rp = (a.runs_in ? a.in_rs : a.rows) * ESZ;
    unsigned char *fb = a.runs_in ? a.out + (mat + p0 * k.S) * ESZ : in + (b * a.in_bs + p0 * a.in_rs) * ESZ;
    k.mis = (int)((uintptr_t)fb & 3);
    k.fa = fb - k.mis;
    k.nb = n * ESZ;
    k.fend = k.mis + n * k.S * ESZ;
    k.lw = a.lt + (ESZ == 2) - 2;
    k.tl = skinny_vec_geometry(L, k.S, ESZ);
    k.lo = a.in + b * a.in_bs * ESZ;
    k.hi = k.lo + ((k.S - 1) * a.in_rs + a.cols) * ESZ;
    k.clip = words_leave<4>(k.rbase, k.rbase + (k.S - 1) * k.rp + k.nb, k.lo, k.hi);
    if (a.runs_in)
        k.runs_to_flat();
    else
        k.flat_to_runs();
}
#endif

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_VEC_CUH */
