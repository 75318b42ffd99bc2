/*
 * transpose/strip.cuh -- the strip kernel: the tiled transpose of 1- and 2-byte elements with every
 * global store a whole aligned word inside whole 32-byte sectors, whatever the output pitch, and edge
 * tiles moved as words.
 *
 * WHY.  The tiled kernel (kernel.cuh) writes each output row in 128-byte segments, one per tile.  When
 * the output pitch (rows * esz bytes) is not a multiple of 32, a segment starts and ends inside a sector
 * whose other part another block writes: two partial-sector writes per sector, which the L2 serves far
 * more slowly than whole ones (docs/RESULTS.md, "Odd pitches on re-aligned words": 8192^2 uint8 with the
 * output 4 bytes off its sectors runs at 59% of a copy against 95%, with aligned word stores).  And edge
 * tiles go element by element (4 byte accesses per word).
 *
 * HOW.  TILE = 32 units, so a warp's 32 lanes hold one whole 128-byte output row segment (units of 4x4
 * bytes or 2x2 halves, word = 4 bytes a lane).  A block walks `walk` tiles down one tile column: the
 * same output rows (c0 + ...), consecutive 128-byte segments of each.  For an output row whose tile
 * segment starts o = 4d + s bytes past a sector boundary (o in [0, 32), the same for every tile of the
 * walk: segments are 128 bytes apart), lane i stores the aligned word at A + 4i, A = segment - o: its
 * high 4 - s bytes are lane i - d's first ones, its low s bytes lane i - d - 1's last ones (funnel
 * shift), where a lane index below 0 means the previous tile of the walk -- carried in one register per
 * word (the rotated shuffle of the previous tile).  So per word: two shuffles, one select, one funnel
 * shift, one store of a whole aligned word; only the block's own first and last bytes of each output
 * row (its walk's two ends, and the matrix's row end) are stored piecewise, byte by byte (one or two
 * lanes).  After the walk, the carried last o bytes are stored (the flush).
 *
 * Loads: interior tiles with aligned words take GlobalLoad::whole; every other tile with contiguous input
 * columns loads the aligned words under the row's bytes, clipped to the row (bytes outside it are never
 * read), and re-aligns them with a shuffle and a funnel shift (the odd path of kernel.cuh, plus the
 * clip).  The input's columns are contiguous (configs.h's choose sends other strides to the tiled
 * kernel).  Nothing is out of line: a first version called a __noinline__ element-wise load taking the
 * Args and the Block by reference, which gave every thread a 256-byte local frame (docs/TRANSPOSE_NOTES.md).
 *
 * Shared memory sees exactly the tiled kernel's accesses (SharedTile, TransposeMap) once per tile: the
 * layouts differ in the index map alone, and explain() replays a tile of it (plan.cu).
 * Grid: x = tile column + tiles_x * strip (strip = a run of `walk` tile rows), y + 65535 z = matrix.
 */
#ifndef SMK_TRANSPOSE_STRIP_CUH
#define SMK_TRANSPOSE_STRIP_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "transpose/global.cuh"
#include "transpose/kernel.cuh"
#include "transpose/tile.cuh"
#include "transpose/unit.cuh"

namespace {

/* The aligned word at byte x of a row (x may be negative: the word under the row's first byte), its
 * bytes outside [lo, hi) read as zeros and never touched. */
__device__ __forceinline__ uint32_t load_clipped(const unsigned char *row, int64_t x, int64_t lo, int64_t hi)
{
    if (x >= lo && x + 4 <= hi)
        return *reinterpret_cast<const uint32_t *>(row + x);
    uint32_t v = 0; // the row's ends only
#pragma unroll
    for (int b = 0; b < 4; b++)
        if (x + b >= lo && x + b < hi)
            v |= (uint32_t)row[x + b] << (8 * b);
    return v;
}

/* Word v to the aligned word at byte x of a row, only its bytes inside [lo, hi) (whole when all four are). */
__device__ __forceinline__ void store_clipped(unsigned char *row, int64_t x, uint32_t v, int64_t lo, int64_t hi)
{
    if (x >= lo && x + 4 <= hi) {
        *reinterpret_cast<uint32_t *>(row + x) = v;
        return;
    }
#pragma unroll
    for (int b = 0; b < 4; b++) // a walk's two ends and the row's end only
        if (x + b >= lo && x + b < hi)
            row[x + b] = (unsigned char)(v >> (8 * b));
}

/* The strip kernel's parts that differ from the tiled kernel's: the clipped, re-aligned row loads, the
 * sector-aligned stores with the carry, the flush. */
template <int ESZ, int TILE, int ROWS>
struct StripParts {
    typedef uint32_t W;
    typedef Regs<ESZ, TILE, ROWS> R;
    static constexpr int E = Unit<ESZ>::E, P = Unit<ESZ>::P, N = TILE / ROWS, TE = TILE * E, SEG = TE * ESZ;

    /* w[j][k] = input row r0 + (ty + j*ROWS)*E + k, bytes of columns c0 + lane*E + [0, E): the aligned
     * words under them clipped to the row (zeros past it or past the last row), one shuffle and one
     * funnel shift to re-align (lane 31 loads the word after the warp's last one itself). */
    static __device__ __forceinline__ void load_rows(R &w, const Args &a, const unsigned char *in, int64_t r0,
                                                     int64_t c0, int lane, int ty)
    {
        const int64_t rows = a.rows, cols = a.cols;
        const int64_t rs = a.in_rs * ESZ, rb = cols * ESZ;
        const unsigned char *tin = in + (r0 + (int64_t)ty * E) * rs; // the thread's first row
        const int64_t col = (c0 + (int64_t)lane * E) * ESZ;          // the lane's first byte in a row
        W ex[N][P];
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int rr = (ty + j * ROWS) * E + k; // the same for the warp
                const unsigned char *rp = tin + (int64_t)(j * ROWS * E + k) * rs;
                const int s = (int)(((uintptr_t)rp + col) & 3);
                w[j][k] = 0;
                ex[j][k] = 0;
                if (r0 + rr < rows) {
                    if (col - s < rb)
                        w[j][k] = load_clipped(rp, col - s, 0, rb);
                    if (lane == 31 && s != 0 && col - s + 4 < rb)
                        ex[j][k] = load_clipped(rp, col - s + 4, 0, rb);
                }
                W hi = __shfl_down_sync(0xffffffffu, w[j][k], 1);
                if (lane == 31)
                    hi = ex[j][k];
                w[j][k] = __funnelshift_r(w[j][k], hi, 8 * s);
            }
    }

    /* Word k of unit j is output row c0 + (ty + j*ROWS)*E + k, bytes [r0*ESZ, r0*ESZ + 128): lane i
     * stores the aligned word at segment - o + 4i (o: the segment's offset in its sector, the same for
     * every tile of the walk), its bytes from lanes i - d and i - d - 1, below 0 the previous tile's
     * (carry); only bytes of [own_lo, own_hi) are written. */
    static __device__ __forceinline__ void store_words(const R &w, W (&carry)[N][P], unsigned char *out, int64_t r0,
                                                       int64_t c0, const Args &a, int64_t own_lo, int64_t own_hi,
                                                       int lane, int ty)
    {
        const int64_t row_end = a.rows * ESZ;
        unsigned char *tout = out + (c0 + (int64_t)ty * E) * row_end; // the thread's first output row
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int orr = (ty + j * ROWS) * E + k; // the same for the warp
                if (c0 + orr < a.cols) {
                    unsigned char *ob = tout + (int64_t)(j * ROWS * E + k) * row_end;
                    const int o = (int)((uintptr_t)ob & 31), d = o >> 2, s = o & 3; // r0 * ESZ: 128s
                    const W v = w[j][k];
                    const W r = __shfl_sync(0xffffffffu, v, (lane - d) & 31);
                    const W h = lane >= d ? r : carry[j][k];
                    const W lo = __shfl_sync(0xffffffffu, lane == 31 ? carry[j][k] : h, (lane - 1) & 31);
                    carry[j][k] = r;
                    store_clipped(ob, r0 * ESZ - o + 4 * lane, __funnelshift_l(lo, h, 8 * s), own_lo, own_hi);
                }
            }
    }

    /* After the walk's last tile (first row r0): each output row's carried last o bytes. */
    static __device__ __forceinline__ void flush(const W (&carry)[N][P], unsigned char *out, int64_t r0, int64_t c0,
                                                 const Args &a, int64_t own_lo, int64_t own_hi, int lane, int ty)
    {
        const int64_t row_end = a.rows * ESZ;
        unsigned char *tout = out + (c0 + (int64_t)ty * E) * row_end;
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int orr = (ty + j * ROWS) * E + k;
                if (c0 + orr < a.cols) {
                    unsigned char *ob = tout + (int64_t)(j * ROWS * E + k) * row_end;
                    const int o = (int)((uintptr_t)ob & 31), s = o & 3;
                    if (o != 0) { // uniform per warp
                        const W h = carry[j][k];
                        const W lo = __shfl_sync(0xffffffffu, h, (lane - 1) & 31);
                        store_clipped(ob, r0 * ESZ + SEG - o + 4 * lane, __funnelshift_l(lo, h, 8 * s), own_lo,
                                      own_hi);
                    }
                }
            }
    }
};

/* Registers: at most 64 a thread (1024 threads an SM), as the shipped tiled kernels of 1 and 2 bytes;
 * unbounded, the walk's hoisted addresses took 120-255. */
template <int TILE, int ROWS>
constexpr int strip_min_blocks() { return 65536 / 64 / (TILE * ROWS); }

/* tparams as transpose_kernel's; TILE must be 32 (one warp = one output row segment), ESZ 1 or 2. */
template <int L, int ESZ, int TILE, int ROWS>
__global__ void __launch_bounds__(TILE * ROWS, strip_min_blocks<TILE, ROWS>()) strip_kernel(const Args a)
{
    static_assert(ESZ == 1 || ESZ == 2, "the strip kernel carries sub-word units");
    static_assert(TILE == 32, "a warp holds a whole 128-byte output row segment");
    typedef uint32_t W;
    typedef GlobalLoad<ESZ, TILE, ROWS> Load;
    typedef StripParts<ESZ, TILE, ROWS> Parts;
    constexpr int E = Unit<ESZ>::E, P = Unit<ESZ>::P, N = TILE / ROWS, TE = TILE * E, SEG = TE * ESZ;
    static_assert(SEG == 128, "a tile's output row segment is 128 bytes");
    extern __shared__ __align__(16) unsigned char smem[];
    W *tile = reinterpret_cast<W *>(smem);

    // 0. matrix b, tile column tx_tile, tile rows [t0, t1)
    const int64_t b = (int64_t)blockIdx.z * kMaxGridYZ + blockIdx.y;
    if (b >= a.batch)
        return;
    const int64_t strip = blockIdx.x / a.tiles_x;
    const int64_t tx_tile = blockIdx.x - strip * a.tiles_x;
    const int64_t t0 = strip * a.walk, t1 = t0 + a.walk < a.tiles_y ? t0 + a.walk : a.tiles_y;
    const int lane = threadIdx.x, ty = threadIdx.y; // [0, 32), [0, ROWS)
    const int64_t rows = a.rows, cols = a.cols, c0 = tx_tile * TE;
    const unsigned char *in = a.in + b * a.in_bs * ESZ;
    unsigned char *out = a.out + b * rows * cols * ESZ;
    const int64_t row_end = rows * ESZ;                                   // output row bytes
    const int64_t own_lo = t0 * SEG, own_hi = t1 * SEG < row_end ? t1 * SEG : row_end; // this walk's bytes

    W carry[N][P]; // per word: the previous tile's rotated shuffle (lanes below d take it)
#pragma unroll
    for (int j = 0; j < N; j++)
#pragma unroll
        for (int k = 0; k < P; k++)
            carry[j][k] = 0;

#pragma unroll 1
    for (int64_t t = t0; t < t1; t++) {
        const int64_t r0 = t * TE;
        const bool full = r0 + TE <= rows && c0 + TE <= cols;
        const Block<TE> blk = {in, out, rows, cols, t, tx_tile, full};
        // 1. loads
        Regs<ESZ, TILE, ROWS> w;
        if (full && a.in_vec) {
            Load::whole(w, a, blk);
        } else { // aligned words clipped to the row, re-aligned (kernel.cuh's odd path); in_cs == 1
            Parts::load_rows(w, a, in, r0, c0, lane, ty);
        }
        // 2. - 4. as the tiled kernel: the same shared accesses once per tile
#pragma unroll
        for (int j = 0; j < N; j++)
            transpose_unit<ESZ>(w[j]);
        if (t > t0)
            __syncthreads(); // the previous tile's column reads are done
        SharedTile<L, ESZ, TILE, ROWS>::store_rows(tile, w, lane, ty);
        __syncthreads();
        SharedTile<L, ESZ, TILE, ROWS>::load_columns(tile, w, lane, ty);
        // 5. word k of unit j: output row c0 + (ty + j*ROWS)*E + k, bytes [r0*ESZ, r0*ESZ + 128) of it
        Parts::store_words(w, carry, out, r0, c0, a, own_lo, own_hi, lane, ty);
    }
    // 6. the flush: each output row's last o bytes of the walk, carried past its last tile
    Parts::flush(carry, out, (t1 - 1) * TE, c0, a, own_lo, own_hi, lane, ty);
}

} // namespace

#endif /* SMK_TRANSPOSE_STRIP_CUH */
