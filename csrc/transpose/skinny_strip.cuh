/*
 * transpose/skinny_strip.cuh -- case A of the sub-word skinny transpose (rows = S <= cols, 1- and 2-byte elements,
 * S = 17..127 uint8 / 17..64 fp16, and fp16 65..84 and 129..144 from level 15 on) as full-height strips with 16-byte
 * output vectors (knob transpose_skinny = 10, configs.h's skinny_strip_fits; issue 26).
 *
 * Why.  Nsight Compute (H200, session 43, data/ncu43_t.txt) finds case A issue-bound on every kernel that moves
 * it: 1.2-1.5 warp instructions a matrix byte where an aligned tiled transpose issues 0.19; skinny_lean.cuh (the
 * default since session 43) still scatters each element into its output place with its own shared store, address
 * and shift, and moves 4-byte words on both global sides.
 *
 * What.  A block takes ALL S input rows over a strip of 4 << lw bytes of the long side (strip_log2_words: 512 bytes
 * for S <= 32, else 256).  Its output is one contiguous run of strip * S bytes (the strip's output rows of S
 * elements, consecutive), so every output store is a whole aligned 16-byte vector but for the run's two end
 * vectors, whatever S and the output base are.
 *
 *   load    the S rows of the strip into a row-major shared tile R (row r, strip byte cb); a thread moves 16-byte
 *           windows, rows RPP apart (strip_load_row / _window): the aligned words that hold them, whatever the
 *           row's alignment (256-byte strips five LDG.32; 512-byte strips two LDG.128 and a warp-uniform switch on
 *           the window's word in its chunk), four funnel shifts, four STS.32
 *   gather  output vector u (16 bytes, V = 16 / esz elements) holds elements j = j0 .. j0 + V - 1 of the run,
 *           element j = (row j mod S, column j / S); with s0 = j0 mod S, c0 = j0 / S its element k is at
 *           (s0 + k, c0) until the row passes S, then at (s0 + k - S, c0 + 1).  R carries V - 1 "virtual" rows
 *           after its S rows: row S + r holds row r shifted one element left (loaded from strip byte esz on), so
 *           element k is at R row s0 + k, column c0 for every k -- one base address and immediate offsets
 *           (k * pitch): V LDS.U8 / LDS.U16, the packing (PRMT: 3 a word for bytes, 1 for halves), one STG.128.
 *           (s0, c0) steps by constants per vector (no division in the loop; one multiply-high per thread).
 *   cut     the run's first vector (an output base off 16 bytes) and last one move element by element (the
 *           thread or two that hold them).
 * Count (SASS, pad, uint8, per thread): gather ~42 a 16-byte vector (16 LDS, 12 PRMT, STG.128, the step); load
 * ~22-27 a 16-byte window times (S + 15) / S windows; ~85 a block: about 5.5-7.5 thread instructions a matrix byte
 * (0.17-0.23 warp instructions), against ~15 on skinny_lean.cuh (docs/TRANSPOSE_NOTES.md, "Session 44").
 *
 * R's map (layout.h: smk_tile of 4-byte words, 2^lw to a row, strip_tile): naive pitch 4 << lw bytes, pad one word
 * more, swizzle the word slot XOR the row's low 5 bits.  In pad a row moves one bank, so lanes of distinct rows
 * spread over the banks and lanes of one row share words; strip_vector's lane map (pairs of lanes on a sector, a
 * warp's sectors 256 bytes apart in 256-byte strips) keeps a gather LDS near 2 wavefronts (bank model: mean 2.25
 * uint8, 2.24 fp16 over S = 33..127 / 33..64; 2.33 / 1.88 over S = 17..32); naive puts every row in the same bank;
 * swizzle separates rows as pad does but pays its XOR per element.  The load's STS.32 in pad: 1 wavefront each
 * (256-byte strips), 4 (512: a warp is one row).
 * skinny_strip_plan.h replays these addresses for explain().
 * Grid: x = strip along the long side, y + 65535 z = matrix of the batch (launch.cu's grid_tiles).
 */
#ifndef SMK_TRANSPOSE_SKINNY_STRIP_CUH
#define SMK_TRANSPOSE_SKINNY_STRIP_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "layout.h"
#include "transpose/global.cuh"
#include "transpose/unit.cuh"

namespace {

constexpr int kStripThreads = 256;
constexpr int kStripWideMax = 32; /* S up to this: 512-byte strips (R rows of 128 words), else 256 (64 words) */

/* Everything one launch needs (the first fields as SkinnyArgs': launch.cu's matrix_args fills them). */
struct StripArgs {
    const unsigned char *in;
    unsigned char *out;
    int64_t rows, cols;   // of one matrix, in elements (rows = S <= cols)
    int64_t in_rs, in_cs; // element strides (in_cs == 1)
    int64_t in_bs;        // element stride between input matrices
    int64_t batch;
    int64_t tiles_x; // strips along the long side
    int s;           // the short side S
    uint32_t magic;  // ceil(2^32 / S): j / S = umulhi(j, magic) for the j a block meets (< 2^13)
    int dq, dr;      // (V * kStripThreads) / S and % S: (s0, c0)'s step per vector
};

/* log2 of R's row in 4-byte words (the strip is 4 << lw bytes of the long side): 7 for S <= kStripWideMax, where a
 * 256-byte strip is S * 256 <= 8 KB a block and the block's fixed work (about 85 instructions a thread) would cost
 * 85 / S a byte; else 6 (R stays under 37 KB up to S = 127: 8 blocks an SM up to S = 97). */
SMK_HD int strip_log2_words(int s) { return s <= kStripWideMax ? 7 : 6; }

/* R as an smk_tile of 4-byte words, 2^lw to a row (pad: one more). */
SMK_HD smk_tile strip_tile(int layout, int lw) { return smk_tile{layout, lw, 0, 2, 0, 0, 0}; }

/* Rows of R: S and the V - 1 virtual rows. */
SMK_HD int strip_rows(int s, int esz) { return s + 16 / esz - 1; }

/* Shared byte of R's (row r, strip byte cb): smk_tile_offset(strip_tile(layout, lw), r, cb >> 2) * 4 + (cb & 3) in
 * the form the compiler folds (r * pitch + cb: one base and immediate offsets over r + k); plan.cu's static_assert
 * (skinny_strip_plan.h) holds it to layout.h's map. */
SMK_HD int strip_slot(int layout, int lw, int r, int cb)
{
    return layout == SMK_PAD       ? r * ((4 << lw) + 4) + cb
           : layout == SMK_SWIZZLE ? r * (4 << lw) + (cb ^ ((r & 31) << 2))
                                   : r * (4 << lw) + cb;
}

/* The gather's first vector of thread t (then + 256 per step).  256-byte strips (lw 6): lane pairs on one 32-byte
 * sector, the warp's 16 sectors 256 bytes apart (vector 16 (lane >> 1) + 2 warp + (lane & 1)), which spreads a gather
 * instruction's rows over more columns: the bank model's pad wavefronts an LDS, uint8 S = 43 / 62 / 100, 6.8 / 3.7 /
 * 4.0 with consecutive vectors -> 2.0 / 2.0 / 2.1 (S = 34..127 and fp16 S = 34..64 alike, 1.7-2.4); 512-byte strips
 * keep consecutive vectors (2.0 for S = 21..31 against 2.3-2.8 paired).  Either way a warp's STG.128 fill whole
 * sectors. */
SMK_HD int strip_vector(int lw, int t)
{
    return lw == 6 ? 16 * ((t & 31) >> 1) + 2 * (t >> 5) + (t & 1) : t;
}

/* The load's first row and window (16 bytes) of thread t (rows then step by RPP = 256 / WPR, WPR = 2^(lw - 2) windows a
 * row).  512-byte strips: a warp is one row (its windows' word in a chunk is then warp-uniform: strip_window_128).
 * 256-byte strips: a warp is 4 rows x 8 windows, so that its STS.32 cover the 32 banks (pad: row r + 4 window + i, one
 * wavefront each, against 2 with 2 rows x 16 windows). */
SMK_HD int strip_load_row(int lw, int t) { return lw == 6 ? 4 * (t >> 6) + ((t >> 3) & 3) : t >> 5; }
SMK_HD int strip_load_window(int lw, int t) { return lw == 6 ? 8 * ((t >> 5) & 1) + (t & 7) : t & 31; }

inline int strip_bytes(int layout, int s, int esz)
{
    return smk_tile_elems(strip_tile(layout, strip_log2_words(s)), strip_rows(s, esz)) * 4;
}

#ifdef __CUDACC__
extern __shared__ __align__(16) unsigned char skinny_strip_smem[];

/* Four words of R (row r, strip bytes cb .. cb + 15) from the five words v[0..4] at the window's global ga - sh. */
template <int L, int LW>
__device__ __forceinline__ void strip_put4(const uint32_t *v, int sh, int r, int cb)
{
#pragma unroll
    for (int i = 0; i < 4; i++)
        *reinterpret_cast<uint32_t *>(skinny_strip_smem + strip_slot(L, LW, r, cb + 4 * i)) =
            __funnelshift_r(v[i], v[i + 1], 8 * sh);
}

/* A window of a 512-byte strip (LW 7): its two 16-byte chunks (each loaded where it holds a row byte: lim = the row's
 * bytes from the first chunk on) and a switch on the window's word in its chunk, warp-uniform there (a warp is one
 * row: 32 windows of 16 bytes), each case with its own shifts and stores (no register moves).  2 LDG.128 where five
 * LDG.32 touch the same lines five times (L1: about 8 wavefronts a warp instead of 20). */
template <int L, bool FULL>
__device__ __forceinline__ void strip_window_128(uintptr_t ga, int lim, int r, int cb, const unsigned char *lo,
                                                 const unsigned char *hi)
{
    const uint4 *c = reinterpret_cast<const uint4 *>(ga & ~(uintptr_t)15);
    const uint4 z = make_uint4(0u, 0u, 0u, 0u);
    const uint4 a = FULL ? __ldg(c) : 0 < lim ? load_chunk_in(c, lo, hi) : z;
    const uint4 b = FULL ? __ldg(c + 1) : 16 < lim ? load_chunk_in(c + 1, lo, hi) : z;
    const uint32_t w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    const int sh = (int)(ga & 3);
    switch ((int)(ga >> 2) & 3) {
    case 0:
        strip_put4<L, 7>(w, sh, r, cb);
        break;
    case 1:
        strip_put4<L, 7>(w + 1, sh, r, cb);
        break;
    case 2:
        strip_put4<L, 7>(w + 2, sh, r, cb);
        break;
    default:
        strip_put4<L, 7>(w + 3, sh, r, cb);
    }
}

/* One 16-byte window of R: row r's strip bytes [cb, cb + 16) from global row bytes go .. go + 15 (go = cb, or cb + esz
 * for a virtual row), from the aligned words holding them (LW 6: five LDG.32, each loaded only where it holds a byte
 * of the row; LW 7: strip_window_128).  FULL: the row runs at least 48 bytes past the strip and the strip is not the
 * first of a matrix off 16 bytes, so every word lies in it; else the words / chunks straddling the matrix's first
 * or last byte (lo, hi) are read byte by byte (global.cuh's load_word_in / load_chunk_in). */
template <int L, int LW, bool FULL>
__device__ __forceinline__ void strip_window(const unsigned char *row, int go, int nb, int r, int cb,
                                             const unsigned char *lo, const unsigned char *hi)
{
    const uintptr_t ga = (uintptr_t)row + go; // the window's first global byte
    if constexpr (LW == 7) {
        strip_window_128<L, FULL>(ga, nb - go + (int)(ga & 15), r, cb, lo, hi);
    } else {
        const int sh = (int)(ga & 3), lim = nb - go + sh; // word i holds a row byte iff 4 i < lim
        const uint32_t *w = reinterpret_cast<const uint32_t *>(ga - sh);
        uint32_t v[5];
#pragma unroll
        for (int i = 0; i < 5; i++)
            v[i] = FULL ? __ldg(w + i) : 4 * i < lim ? load_word_in(reinterpret_cast<const unsigned char *>(w + i), lo, hi) : 0u;
        strip_put4<L, LW>(v, sh, r, cb);
    }
}

/* The strip's rows into R: thread t the window cb = 16 strip_load_window of rows r0 + RPP i < S (r0 = strip_load_row,
 * RPP rows a pass), then of the virtual rows S + r, r = r0 + RPP i < V - 1, which are rows r from strip byte esz on. */
template <int L, int ESZ, int LW, bool FULL>
__device__ __forceinline__ void strip_load(const unsigned char *rbase, int64_t rp, int S, int nb, int t,
                                           const unsigned char *lo, const unsigned char *hi)
{
    constexpr int RPP = kStripThreads >> (LW - 2);
    const int cb = 16 * strip_load_window(LW, t), r0 = strip_load_row(LW, t);
    const unsigned char *row = rbase + (uint32_t)r0 * rp;
    const int64_t step = rp * RPP;
#pragma unroll 2
    for (int r = r0; r < S; r += RPP, row += step)
        strip_window<L, LW, FULL>(row, cb, nb, r, cb, lo, hi);
    for (int r = r0; r < 16 / ESZ - 1; r += RPP)
        strip_window<L, LW, FULL>(rbase + (uint32_t)r * rp, cb + ESZ, nb, S + r, cb, lo, hi);
}

/* Output vector at (s0, c0), c0 >= 0, every element in the run: V elements from R rows s0 .. s0 + V - 1. */
template <int L, int ESZ, int LW>
__device__ __forceinline__ uint4 strip_gather(int s0, int c0)
{
    const int cb = c0 * ESZ;
    uint32_t w[4];
    if constexpr (ESZ == 1) {
        uint32_t e[16];
#pragma unroll
        for (int k = 0; k < 16; k++)
            e[k] = skinny_strip_smem[strip_slot(L, LW, s0 + k, cb)];
#pragma unroll
        for (int i = 0; i < 4; i++)
            w[i] = __byte_perm(__byte_perm(e[4 * i], e[4 * i + 1], 0x0040), __byte_perm(e[4 * i + 2], e[4 * i + 3], 0x0040),
                               0x5410);
    } else {
        uint32_t h[8];
#pragma unroll
        for (int k = 0; k < 8; k++)
            h[k] = *reinterpret_cast<const uint16_t *>(skinny_strip_smem + strip_slot(L, LW, s0 + k, cb));
#pragma unroll
        for (int i = 0; i < 4; i++)
            w[i] = __byte_perm(h[2 * i], h[2 * i + 1], 0x5410);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* A cut vector (run bytes y0 .. y0 + 15, some outside [0, nbytes)): element by element, R's real rows. */
template <int ESZ, int LW>
__device__ __forceinline__ void strip_cut(unsigned char *fb, int y0, int nbytes, int s0, int c0, int S, int L)
{
    typedef typename Unit<ESZ>::T T;
    for (int k = 0; k < 16 / ESZ; k++) {
        const int y = y0 + k * ESZ;
        if (y < 0 || y >= nbytes)
            continue;
        const int r = s0 + k >= S ? s0 + k - S : s0 + k, c = s0 + k >= S ? c0 + 1 : c0;
        *reinterpret_cast<T *>(fb + y) =
            *reinterpret_cast<const T *>(skinny_strip_smem + strip_slot(L, LW, r, c * ESZ));
    }
}

/* The run out: thread t the aligned vectors u = strip_vector(LW, t) + 256 m of the run fb .. fb + nbytes (from fb
 * rounded down to 16 bytes); its first vector's element j0 = V u - mis / esz is carried as J = j0 + S >= 0 (S >= V - 1). */
template <int L, int ESZ, int LW>
__device__ __forceinline__ void strip_store(unsigned char *fb, int nbytes, int t, const StripArgs &a)
{
    constexpr int V = 16 / ESZ;
    const int S = a.s, mis = (int)((uintptr_t)fb & 15), nw = (mis + nbytes + 15) >> 4;
    uint4 *A = reinterpret_cast<uint4 *>(fb - mis);
    const int u0 = strip_vector(LW, t);
    const uint32_t J = (uint32_t)(V * u0 - mis / ESZ + S);
    const int q = (int)__umulhi(J, a.magic);
    int s0 = (int)J - q * S, c0 = q - 1;
    for (int u = u0; u < nw; u += kStripThreads) {
        const int y0 = 16 * u - mis;
        if (y0 >= 0 && y0 + 16 <= nbytes)
            A[u] = strip_gather<L, ESZ, LW>(s0, c0);
        else
            strip_cut<ESZ, LW>(fb, y0, nbytes, s0, c0, S, L);
        s0 += a.dr;
        c0 += a.dq;
        if (s0 >= S) {
            s0 -= S;
            c0++;
        }
    }
}

/* tparams: L the smk_layout of R, ESZ 1 or 2, LW log2 words of R's row (strip_log2_words).  256 threads, 8 blocks an
 * SM (32 registers, no spill: ptxas -v, sm_90, every instance). */
template <int L, int ESZ, int LW>
__global__ void __launch_bounds__(kStripThreads, L == SMK_SWIZZLE ? 6 : 8) skinny_strip_kernel(const StripArgs a)
{
    static_assert(ESZ == 1 || ESZ == 2, "strip transpose: sub-word elements only");
    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return; // uniform per block, before the barrier
    constexpr int W = (4 << LW) / ESZ;
    const int64_t p0 = (int64_t)blockIdx.x * W;
    const int n = (int)(a.cols - p0 < W ? a.cols - p0 : W); // [1, W]
    const unsigned char *rbase = a.in + (b * a.in_bs + p0) * ESZ, *lo = a.in + b * a.in_bs * ESZ;
    const unsigned char *hi = lo + ((a.s - 1) * a.in_rs + a.cols) * ESZ;
    // block-uniform: every loaded word inside the row, and none before the matrix's first byte
    if ((a.cols - p0) * ESZ >= (4 << LW) + 48 && (p0 > 0 || ((uintptr_t)lo & 15) == 0))
        strip_load<L, ESZ, LW, true>(rbase, a.in_rs * ESZ, a.s, n * ESZ, threadIdx.x, lo, hi);
    else
        strip_load<L, ESZ, LW, false>(rbase, a.in_rs * ESZ, a.s, n * ESZ, threadIdx.x, lo, hi);
    __syncthreads();
    strip_store<L, ESZ, LW>(a.out + (b * a.rows * a.cols + p0 * a.s) * ESZ, n * a.s * ESZ, threadIdx.x, a);
}
#endif

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_STRIP_CUH */
