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
};

/* One block's place: its matrix and its tile.  Word k of unit j of thread (tx, ty) is input element row
 * r0 + (ty + j*ROWS)*E + k, columns c0 + tx*E + [0, E); it leaves as output row c0 + (ty + j*ROWS)*E + k,
 * columns r0 + tx*E + [0, E).  The tile's corner and the thread are derived where they are used, from
 * the tile indices and threadIdx. */
template <int TE>
struct Block {
    const unsigned char *in; // this matrix's input
    unsigned char *out;      // this matrix's output (C-contiguous, cols x rows)
    int64_t rows, cols;      // of one matrix, in elements (Args' copies)
    int64_t ty_tile, tx_tile; // tile row [0, ceil(rows/TE)), tile column [0, ceil(cols/TE))
    bool full;               // interior tile: no bounds checks (uniform across the block: no divergence)

    __device__ __forceinline__ int64_t r0() const { return ty_tile * TE; } // first input row of the tile
    __device__ __forceinline__ int64_t c0() const { return tx_tile * TE; } // first input column
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
};

} // namespace

#endif /* SMK_TRANSPOSE_GLOBAL_CUH */
