/*
 * transpose/global.cuh -- the global side of a transpose block: what a launch passes (Args), where a
 * block's tile lies (Block), and the three ways each direction moves a thread's units:
 *
 *   whole    interior tile, every word aligned (and, input side, unit column stride): one whole-word
 *            access per unit word, lane = unit column, coalesced (a warp: 32 words of one row)
 *   odd      interior tile of 1- or 2-byte rows that do not start on a 4-byte boundary (odd pitches,
 *            bases, matrix strides): still whole aligned words, re-aligned in registers (kernel.cuh)
 *   edge     edge tiles, non-unit column strides, misaligned elements: one predicated access per
 *            element, still assembled into whole words before anything touches shared memory
 *   words    (transpose_kernel's MID, knob transpose_mid) edge tiles of 1- and 2-byte elements whose
 *            input columns are contiguous: the whole / odd paths clipped to the matrix -- each lane's
 *            aligned word loaded whole where it lies inside the row, byte by byte where it straddles
 *            the row's start or end, nothing past it; stores likewise clipped to the warp's own bytes
 *            of the output row (load_clip, store_clip)
 *
 * Shared memory sees the same accesses on every path.  Indexing is 64-bit.  The whole and edge paths
 * are here; the odd paths are written out in the kernel's body (kernel.cuh says why), with only their
 * piecewise byte / half accesses (load_piece, store_piece) here.
 */
#ifndef SMK_TRANSPOSE_GLOBAL_CUH
#define SMK_TRANSPOSE_GLOBAL_CUH

#include <cstdint>

#include "common/raster.cuh"
#include "transpose/tile.cuh"
#include "transpose/unit.cuh"

namespace {

/* Everything one launch needs (a plain struct by value: fast-hadamard-transform style). */
struct Args {
    const unsigned char *in;
    unsigned char *out;
    int64_t rows, cols;      // of one matrix, in elements
    int64_t in_rs, in_cs;    // element strides
    int64_t in_bs;           // element stride between input matrices
    int64_t batch;
    int64_t tiles_x;         // tiles per row of tiles
    int64_t tiles_y;         // rows of tiles
    int64_t group;           // the raster (tile_place): 0 row-major; G > 0 column-major within groups of G tile rows
    int in_vec, out_vec;     // whole-word global access allowed (alignment, unit column stride)
    int in_odd, out_odd;     // sub-word, rows not on words: whole words re-aligned in registers
    int in_al, out_al;       // elements naturally aligned (else byte-wise)
    int shift;               // edge tiles moved inward (edge_shift): bit 0 the last tile row, bit 1 the last tile column
};

/* One block's place: its matrix and its tile.  Word k of unit j of thread (tx, ty) is input element row
 * r0 + (ty + j*ROWS)*E + k, columns c0 + tx*E + [0, E); it leaves as output row c0 + (ty + j*ROWS)*E + k,
 * columns r0 + tx*E + [0, E).  The tile's corner is kept (tile index * TE, or moved inward by edge_shift);
 * the thread is derived where it is used, from threadIdx. */
template <int TE>
struct Block {
    const unsigned char *in; // this matrix's input
    unsigned char *out;      // this matrix's output (C-contiguous, cols x rows)
    int64_t rows, cols;      // of one matrix, in elements (Args' copies)
    int64_t r0_, c0_;        // the tile's first input row and column
    bool full;               // interior tile: no bounds checks (uniform across the block: no divergence)

    __device__ __forceinline__ int64_t r0() const { return r0_; } // first input row of the tile
    __device__ __forceinline__ int64_t c0() const { return c0_; } // first input column
    static __device__ __forceinline__ int tx() { return threadIdx.x; }     // [0, TILE)
    static __device__ __forceinline__ int ty() { return threadIdx.y; }     // [0, ROWS)
};

/* Part 0: the tile of this block -- row-major tile order, or (a.group = G > 0) common/raster.cuh's grouped
 * order with bands of G tile rows, walked down their tile columns, so that the blocks writing one output
 * row run close in time (on a wide matrix in row-major order they are a whole row of tiles apart, and the
 * partial sectors they share are evicted and read back from DRAM in between: docs/TRANSPOSE_NOTES.md). */
__device__ __forceinline__ void tile_place(const Args &a, int64_t *ty_tile, int64_t *tx_tile)
{
    if (a.group > 0) {
        smk::group_tile_rt<int64_t>(a.group, blockIdx.x, a.tiles_y, a.tiles_x, ty_tile, tx_tile);
    } else {
        *ty_tile = blockIdx.x / a.tiles_x;
        *tx_tile = blockIdx.x - *ty_tile * a.tiles_x;
    }
}

/* Part 0's edge shift (Args::shift, knob transpose_shift; launch.cu edge_shift_bits): the corner of a tile
 * that would cross the matrix's last row (column) moves inward to rows - TE (cols - TE), so the tile is an
 * interior one -- whole words, the odd-pitch path -- where it would move element by element.  It overlaps its
 * neighbour, which writes the same values to the overlapped output (every store of the interior paths is
 * exactly the tile's own bytes: whole words of its range, pieces at a warp's ends).  Only where that side is
 * at least TE; the launcher clears a bit where the moved corner would break whole-word alignment. */
__device__ __forceinline__ int64_t edge_shift(int64_t corner, int64_t extent, int64_t te, bool on)
{
    return on && corner + te > extent && extent >= te ? extent - te : corner;
}

/* n in [0, 3] bytes at p, never crossing a 4-byte boundary (so n == 2 means p is even), as the low
 * bytes of a word: at most one byte and one half access. */
__device__ __forceinline__ uint32_t load_piece(const unsigned char *p, int n)
{
    const int odd = (int)((uintptr_t)p & 1);
    const int b = odd ? 0 : n - 1; // the byte outside the half: first when p is odd, else last
    uint32_t x = 0;
    if (n & 1)
        x = (uint32_t)p[b] << (8 * b);
    if (n >= 2)
        x |= (uint32_t)*reinterpret_cast<const uint16_t *>(p + odd) << (8 * odd);
    return x;
}

__device__ __forceinline__ void store_piece(unsigned char *p, int n, uint32_t x)
{
    const int odd = (int)((uintptr_t)p & 1);
    const int b = odd ? 0 : n - 1;
    if (n & 1)
        p[b] = (unsigned char)(x >> (8 * b));
    if (n >= 2)
        *reinterpret_cast<uint16_t *>(p + odd) = (uint16_t)(x >> (8 * odd));
}

/* The bytes of the aligned word at q whose offsets q - base + i lie in [lo, hi), as a word (the others
 * zero), byte by byte: the words() paths' fix-up for the lanes at a row's ends, whose word straddles it. */
__device__ __forceinline__ uint32_t load_clip(const unsigned char *q, int64_t off, int64_t lo, int64_t hi)
{
    uint32_t x = 0;
#pragma unroll
    for (int i = 0; i < 4; i++)
        if (off + i >= lo && off + i < hi)
            x |= (uint32_t)q[i] << (8 * i);
    return x;
}

/* Whether the word at q lies inside [lo, hi). */
__device__ __forceinline__ bool word_inside(const unsigned char *q, const unsigned char *lo, const unsigned char *hi)
{
    return q >= lo && q + 4 <= hi;
}

/* Whether the aligned G-byte words (chunks) covering [p, e) reach outside [lo, hi): a block-uniform test for the
 * blocks that must load through load_word_in / load_chunk_in. */
template <int G>
__device__ __forceinline__ bool words_leave(const unsigned char *p, const unsigned char *e, const unsigned char *lo,
                                            const unsigned char *hi)
{
    return ((uintptr_t)p & ~(uintptr_t)(G - 1)) < (uintptr_t)lo ||
           (((uintptr_t)e + G - 1) & ~(uintptr_t)(G - 1)) > (uintptr_t)hi;
}
/* The aligned word at q with only its bytes inside [lo, hi) (the others zero): one load where it lies inside,
 * byte by byte where it straddles either end -- how the whole-word loaders (gather.cuh, the skinny kernels) keep
 * to the operand's bytes at its ends (compute-sanitizer's memcheck checks the bytes asked for). */
__device__ __forceinline__ uint32_t load_word_in(const unsigned char *q, const unsigned char *lo,
                                                 const unsigned char *hi)
{
    return word_inside(q, lo, hi) ? *reinterpret_cast<const uint32_t *>(q) : load_clip(q, 0, lo - q, hi - q);
}

/* The aligned 16-byte chunk at q likewise: one LDG.128 inside [lo, hi), four load_word_in where it straddles an end. */
__device__ __forceinline__ uint4 load_chunk_in(const uint4 *q, const unsigned char *lo, const unsigned char *hi)
{
    const unsigned char *p = reinterpret_cast<const unsigned char *>(q);
    if (p >= lo && p + 16 <= hi)
        return __ldg(q);
    return make_uint4(load_word_in(p, lo, hi), load_word_in(p + 4, lo, hi), load_word_in(p + 8, lo, hi),
                      load_word_in(p + 12, lo, hi));
}

/* Stores the bytes of x whose offsets off + i lie in [lo, hi) at the aligned word q, byte by byte. */
__device__ __forceinline__ void store_clip(unsigned char *q, uint32_t x, int64_t off, int64_t lo, int64_t hi)
{
#pragma unroll
    for (int i = 0; i < 4; i++)
        if (off + i >= lo && off + i < hi)
            q[i] = (unsigned char)(x >> (8 * i));
}

/* Whether the word at offset off straddles [lo, hi): some bytes in, some out (the byte-wise fix-up). */
__device__ __forceinline__ bool straddles(int64_t off, int64_t lo, int64_t hi)
{
    return off + 4 > lo && off < hi && (off < lo || off + 4 > hi);
}

/* The load side: every global load of the thread issued back to back, w[j][k] = element row k of unit
 * (ty + j*ROWS, tx); NB = N + 1: also the band unit j = N (sector.cuh), whose rows may pass the matrix's end
 * in an interior tile (those words read as zeros). */
template <int ESZ, int TILE, int ROWS, int NB = TILE / ROWS>
struct GlobalLoad {
    typedef typename Unit<ESZ>::W W;
    typedef Regs<ESZ, TILE, ROWS, NB> R;
    typedef Block<TILE * Unit<ESZ>::E> B;
    static constexpr int E = Unit<ESZ>::E, P = Unit<ESZ>::P, N = TILE / ROWS;

    static __device__ __forceinline__ void whole(R &w, const Args &a, const B &b)
    {
        const unsigned char *src =
            b.in + ((b.r0() + (int64_t)b.ty() * E) * a.in_rs + (b.c0() + (int64_t)b.tx() * E) * a.in_cs) * ESZ;
#pragma unroll
        for (int j = 0; j < NB; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const bool in = j < N || b.r0() + (int64_t)(b.ty() + j * ROWS) * E + k < b.rows;
                w[j][k] = in ? *reinterpret_cast<const W *>(src + ((int64_t)(j * ROWS * E + k) * a.in_rs) * ESZ) : W{};
            }
    }

    /* Element by element, predicated; out-of-range elements read as zeros. */
    static __device__ __forceinline__ void edge(R &w, const Args &a, const B &b)
    {
#pragma unroll
        for (int j = 0; j < NB; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int64_t r = b.r0() + (int64_t)(b.ty() + j * ROWS) * E + k;
                if constexpr (E == 1) {
                    const int64_t c = b.c0() + b.tx();
                    w[j][k] = W{};
                    if (r < b.rows && c < b.cols)
                        w[j][k] = load_elem<ESZ>(b.in + (r * a.in_rs + c * a.in_cs) * ESZ, a.in_al);
                } else {
                    W x = 0;
#pragma unroll
                    for (int e = 0; e < E; e++) {
                        const int64_t c = b.c0() + (int64_t)b.tx() * E + e;
                        if (r < b.rows && c < b.cols)
                            x |= (W)load_elem<ESZ>(b.in + (r * a.in_rs + c * a.in_cs) * ESZ, a.in_al) << (8 * ESZ * e);
                    }
                    w[j][k] = x;
                }
            }
    }
    /* MID, an edge tile of sub-word elements with contiguous input columns (a.in_vec or a.in_odd): the
     * aligned word under each lane's first byte and (lane 31, rows off words) the one after the warp,
     * whole where it lies inside the row, byte by byte where it straddles the row's start or end (the
     * lanes there only), then re-aligned with the next lane's word as kernel.cuh's odd path does.  A
     * lane past the row's end still takes its word: the lane before it may need its first bytes.  Rows
     * past the matrix read as zeros.  Offsets are bytes from the row's first byte.  In place of edge()
     * where MID is set (edge_or_words). */
    static __device__ __forceinline__ void words(R &w, const Args &a, const B &b)
    {
        const int lane = b.tx() & 31;
        const int64_t rs = a.in_rs * ESZ, rb = b.cols * ESZ; // row pitch, row bytes
        const int64_t col = (b.c0() + (int64_t)b.tx() * E) * ESZ; // the lane's first byte in its rows
        const unsigned char *row = b.in + (b.r0() + (int64_t)b.ty() * E) * rs + col;
        W ex[NB][P];
#pragma unroll
        for (int j = 0; j < NB; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const unsigned char *p = row + (int64_t)(j * ROWS * E + k) * rs;
                const int s = (int)((uintptr_t)p & 3);
                const int64_t off = col - s; // the lane's aligned word
                const bool in = b.r0() + (int64_t)(b.ty() + j * ROWS) * E + k < b.rows;
                w[j][k] = !in ? 0
                          : off >= 0 && off + 4 <= rb ? *reinterpret_cast<const W *>(p - s)
                          : straddles(off, 0, rb) ? load_clip(p - s, off, 0, rb) : 0;
                ex[j][k] = !in || lane != 31 || s == 0 ? 0
                           : off + 8 <= rb ? *reinterpret_cast<const W *>(p - s + 4)
                           : straddles(off + 4, 0, rb) ? load_clip(p - s + 4, off + 4, 0, rb) : 0;
            }
        if (a.in_vec) // rows on words: nothing to re-align (uniform)
            return;
#pragma unroll
        for (int j = 0; j < NB; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int s = (int)((uintptr_t)(row + (int64_t)(j * ROWS * E + k) * rs) & 3);
                W hi = __shfl_down_sync(0xffffffffu, w[j][k], 1);
                if (lane == 31)
                    hi = ex[j][k];
                w[j][k] = __funnelshift_r(w[j][k], hi, 8 * s);
            }
    }

    /* Whole elements (E = 1: 4-, 8- and 16-byte units) of an edge tile whose base is element-aligned (a.in_vec):
     * whole()'s one address a thread and step per unit row, predicated on the lane's column and the unit row
     * lying inside the matrix (out-of-range units read as zeros, as in edge()).  In place of edge(), which
     * rebuilt every element's 64-bit address and alignment test: ~3x whole()'s instructions a byte, and the
     * float32 tiles with a short side of 33..63 (every tile an edge tile) issue bound (H200 ncu, session 50:
     * 784449x35 float32 85M warp instructions, 78% issue, 0.42 a DRAM byte against 0.14 at 8192^2). */
    static __device__ __forceinline__ void edge_whole(R &w, const Args &a, const B &b)
    {
        const int64_t r = b.r0() + b.ty(), c = b.c0() + b.tx();
        const bool cin = c < b.cols;
        const unsigned char *src = b.in + (r * a.in_rs + c * a.in_cs) * ESZ;
#pragma unroll
        for (int j = 0; j < NB; j++) {
            const bool in = cin && r + j * ROWS < b.rows;
            w[j][0] = in ? *reinterpret_cast<const W *>(src + (int64_t)(j * ROWS) * a.in_rs * ESZ) : W{};
        }
    }

    /* Part 1 of an edge tile: words() with MID on rows it can take, else edge(). */
    template <bool MID>
    static __device__ __forceinline__ void edge_or_words(R &w, const Args &a, const B &b)
    {
        if constexpr (E == 1) {
            if (a.in_vec) {
                edge_whole(w, a, b);
                return;
            }
        }
        if constexpr (MID && E > 1) {
            if (a.in_vec || a.in_odd) {
                words(w, a, b);
                return;
            }
        }
        edge(w, a, b);
    }
};

/* The store side: word k of unit j is output row c0 + (ty + j*ROWS)*E + k, columns r0 + tx*E + [0, E)
 * (lane = input unit row: coalesced). */
template <int ESZ, int TILE, int ROWS, int NB = TILE / ROWS>
struct GlobalStore {
    typedef typename Unit<ESZ>::W W;
    typedef Regs<ESZ, TILE, ROWS, NB> R; // units [0, N) stored
    typedef Block<TILE * Unit<ESZ>::E> B;
    static constexpr int E = Unit<ESZ>::E, P = Unit<ESZ>::P, N = TILE / ROWS;

    static __device__ __forceinline__ void whole(const R &w, const Args &a, const B &b)
    {
        unsigned char *dst = b.out + ((b.c0() + (int64_t)b.ty() * E) * b.rows + b.r0() + (int64_t)b.tx() * E) * ESZ;
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++)
                *reinterpret_cast<W *>(dst + (int64_t)(j * ROWS * E + k) * b.rows * ESZ) = w[j][k];
    }

    /* Element by element, predicated: only in-range elements are written. */
    static __device__ __forceinline__ void edge(const R &w, const Args &a, const B &b)
    {
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int64_t orow = b.c0() + (int64_t)(b.ty() + j * ROWS) * E + k;
#pragma unroll
                for (int e = 0; e < E; e++) {
                    const int64_t ocol = b.r0() + (int64_t)b.tx() * E + e;
                    if (orow < b.cols && ocol < b.rows)
                        store_elem<ESZ>(b.out + (orow * b.rows + ocol) * ESZ, word_elem<ESZ>(w[j][k], e), a.out_al);
                }
            }
    }
    /* MID, an edge tile: word k of unit j to output row orow as kernel.cuh's odd path stores it (lane i
     * the aligned word under its first byte, from its own bytes and lane i-1's; lane 31 also the word
     * after it), each clipped to the warp's own bytes of the row that lie inside the matrix: no byte
     * outside the output and none of another warp's.  Whole words where they lie inside, byte by byte
     * where they straddle.  Rows on words (a.out_vec): each lane's word whole where its unit lies inside
     * (rows * esz a multiple of 4: a unit is all in or all out).  Offsets are bytes from the row's start. */
    static __device__ __forceinline__ void words(const R &w, const Args &a, const B &b)
    {
        const int lane = b.tx() & 31;
        const int64_t pitch = b.rows * ESZ;                       // output row, bytes
        const int64_t col = (b.r0() + (int64_t)b.tx() * E) * ESZ; // the lane's first byte in its rows
        const int64_t lo = col - (int64_t)lane * E * ESZ;         // the warp's first byte
        const int64_t hi = lo + 32 * E * ESZ < pitch ? lo + 32 * E * ESZ : pitch;
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int64_t orow = b.c0() + (int64_t)(b.ty() + j * ROWS) * E + k; // uniform per warp
                if (orow >= b.cols)
                    continue;
                unsigned char *p = b.out + orow * pitch + col;
                const W v = w[j][k];
                if (a.out_vec) {
                    if (col < pitch)
                        *reinterpret_cast<W *>(p) = v;
                    continue;
                }
                const int s = (int)((uintptr_t)p & 3);
                const W x = __funnelshift_l(__shfl_up_sync(0xffffffffu, v, 1), v, 8 * s); // lane 0: lo clips prev
                const int64_t off = col - s;
                if (off >= lo && off + 4 <= hi)
                    *reinterpret_cast<W *>(p - s) = x;
                else if (straddles(off, lo, hi))
                    store_clip(p - s, x, off, lo, hi);
                if (lane == 31 && s != 0) // lane 31's last s bytes: the word after the warp's, clipped
                    store_clip(p - s + 4, v >> (32 - 8 * s), off + 4, lo, hi);
            }
    }

    /* Whole elements (E = 1) of an edge tile whose output base is element-aligned (a.out_vec): whole()'s one
     * address a thread and step, each store predicated on its element lying inside the output (load side:
     * GlobalLoad::edge_whole). */
    static __device__ __forceinline__ void edge_whole(const R &w, const Args &a, const B &b)
    {
        const int64_t orow = b.c0() + b.ty(), ocol = b.r0() + b.tx();
        const bool cin = ocol < b.rows;
        unsigned char *dst = b.out + (orow * b.rows + ocol) * ESZ;
#pragma unroll
        for (int j = 0; j < N; j++)
            if (cin && orow + j * ROWS < b.cols)
                *reinterpret_cast<W *>(dst + (int64_t)(j * ROWS) * b.rows * ESZ) = w[j][0];
    }

    /* Part 5 of an edge tile: words() with MID on outputs it can take, else edge(). */
    template <bool MID>
    static __device__ __forceinline__ void edge_or_words(const R &w, const Args &a, const B &b)
    {
        if constexpr (E == 1) {
            if (a.out_vec) {
                edge_whole(w, a, b);
                return;
            }
        }
        if constexpr (MID && E > 1) {
            if (a.out_vec || a.out_odd) {
                words(w, a, b);
                return;
            }
        }
        edge(w, a, b);
    }
};

} // namespace

#endif /* SMK_TRANSPOSE_GLOBAL_CUH */
