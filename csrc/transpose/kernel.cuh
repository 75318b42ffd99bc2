/*
 * transpose/kernel.cuh -- the tiled transpose kernel: one template over the shared-memory layout, for
 * elements of 1, 2, 4, 8 and 16 bytes and batches of matrices (one launch).
 *
 * A block moves one tile of TILE x TILE units (unit.cuh: an element, or a 4x4 byte / 2x2 half block
 * moved as 32-bit words).  Its body reads as its parts:
 *
 *   0. the block's place: matrix, tile corner, interior or edge (Block, global.cuh)
 *   1. global loads, lane = unit column: GlobalLoad::whole / ::edge (global.cuh), or the odd-pitch path
 *   2. transpose_unit: sub-word units transposed in registers, PRMT (unit.cuh)
 *   3. SharedTile::store_rows: row store into the planes (tile.cuh)
 *   4. SharedTile::load_columns: the column read, the access the layouts are about (tile.cuh, with the
 *      bank arithmetic of naive / pad / swizzle)
 *   5. global stores, lane = input unit row: GlobalStore::whole / ::edge (global.cuh), or the odd path
 *   (MID = 2, knob transpose_mid = 2: parts 1 and 5 off the aligned interior path are lean.cuh's)
 *
 * The layout is one template argument and changes the index map and nothing else: tile, threads,
 * units per thread and bounds handling are shared by construction.
 * Grid: x = tile of the matrix, y + 65535 z = matrix of the batch.
 *
 * Why the two odd-pitch paths are written out here rather than called: nvcc optimises a
 * __forceinline__ callee on its own before inlining it, so address arithmetic moved into a callee can
 * come out associated differently.  For the whole / edge paths and the shared tile that changes
 * nothing (the same SASS, instruction for instruction, as the single-function kernel had); either odd
 * path in one changed that of the 1- and 2-byte kernels (more instructions, up to 5 more registers).
 * Part 0 was written out for the same reason until the grouped raster (tile_place) changed its code
 * anyway; its cost is a few integer instructions per block.
 *
 * ODD PITCHES.  A warp's 32 lanes touch 128 consecutive bytes of one row, lane i the 4 bytes at p + 4i
 * (its unit's word).  When p is not a multiple of 4 (s = p mod 4 != 0: a row pitch, matrix stride or
 * base that is not a multiple of 4 bytes) those bytes straddle two aligned words.  Loads: lane i reads
 * the aligned word under its first byte, takes the next one from lane i+1 (__shfl_down_sync; lane 31
 * reads it itself) and re-aligns with one funnel shift (SHF).  Stores: lane i assembles aligned word i
 * from its own bytes and lane i-1's (__shfl_up_sync, funnel shift) and stores it whole; the two partial
 * words at the ends of the warp's 128 bytes, which share a word with a neighbour (another block, or the
 * other warp of a 2-byte tile row), are written as a byte + a half store of exactly the warp's own
 * bytes, so no word is written by two warps.  Nothing outside the operand's bytes is read: the partial
 * word before a row's first byte and after its last one is read piecewise too.  The units arrive in
 * registers exactly as on the aligned path.  Measured: docs/RESULTS.md, "Odd pitches on re-aligned words".
 */
#ifndef SMK_TRANSPOSE_KERNEL_CUH
#define SMK_TRANSPOSE_KERNEL_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "transpose/global.cuh"
#include "transpose/lean.cuh"
#include "transpose/sector.cuh"
#include "transpose/tile.cuh"
#include "transpose/unit.cuh"

namespace {

constexpr int kMaxGridYZ = 65535;

/* tparams:
 *   L      smk_layout of the shared tile (planes)
 *   ESZ    element size in bytes (elements move bitwise)
 *   TILE   tile edge in units (power of two, a multiple of 32: a warp reads 32 units of one row)
 *   ROWS   thread rows per block: blockDim = (TILE, ROWS), each thread moves TILE/ROWS units
 *   SEC    the sector store (sector.cuh): one more unit row of ROWS per thread (the band), and part 5
 *          writes each output row from its first 32-byte boundary on, as whole aligned words
 *   MID    (1- and 2-byte elements, not with SEC; knob transpose_mid) 1: edge tiles move whole words clipped
 *          to the matrix (global.cuh's words) where the rows allow, in place of element by element; 2: the
 *          lean paths (lean.cuh) for odd-pitch interior tiles and edge tiles alike; held to 64 registers
 *          (the plain kernels' occupancy: 1024 / threads blocks an SM; 0 = no .minnctapersm) */
template <int L, int ESZ, int TILE, int ROWS, bool SEC = false, int MID = 0>
__global__ void __launch_bounds__(TILE * ROWS, MID ? 1024 / (TILE * ROWS) : 0) transpose_kernel(const Args a)
{
    static_assert(TILE % 32 == 0 && (TILE & (TILE - 1)) == 0, "TILE: a power-of-two multiple of a warp");
    static_assert(TILE % ROWS == 0 && !(SEC && MID), "each thread moves a whole number of units; MID without SEC");
    static_assert(MID != 2 || ESZ <= 2, "the lean paths are the sub-word units'");
    typedef typename Unit<ESZ>::W W;
    constexpr int E = Unit<ESZ>::E, P = Unit<ESZ>::P, N = TILE / ROWS, TE = TILE * E; // TE: edge in elements
    constexpr int NB = N + SEC; // units a thread loads: N, and the band's with SEC
    typedef GlobalLoad<ESZ, TILE, ROWS, NB> Load;
    typedef GlobalStore<ESZ, TILE, ROWS, NB> Store; // with SEC, dead code after SectorStore
    extern __shared__ __align__(16) unsigned char smem[];
    W *tile = reinterpret_cast<W *>(smem);

    // 0. matrix b's tile blockIdx.x, in the launch's raster (tile_place, global.cuh)
    const int64_t b = (int64_t)blockIdx.z * kMaxGridYZ + blockIdx.y; // matrix [0, batch)
    if (b >= a.batch)
        return; // the last z slice of a batch > 65535 (uniform per block, before any barrier)
    int64_t ty_tile, tx_tile; // tile row [0, ceil(rows/TE)), tile column [0, ceil(cols/TE))
    tile_place(a, &ty_tile, &tx_tile);
    const int tx = threadIdx.x, ty = threadIdx.y;             // [0, TILE), [0, ROWS)
    const int64_t rows = a.rows, cols = a.cols;
    // edge tiles moved inward (global.cuh edge_shift; never with SEC: its band and shifted rows own sectors)
    const int64_t r0 = edge_shift(ty_tile * TE, rows, TE, !SEC && (a.shift & 1));
    const int64_t c0 = edge_shift(tx_tile * TE, cols, TE, !SEC && (a.shift & 2));
    const unsigned char *in = a.in + b * a.in_bs * ESZ;
    unsigned char *out = a.out + b * rows * cols * ESZ;
    const bool full = r0 + TE <= rows && c0 + TE <= cols; // interior: no bounds checks, uniform per block
    const Block<TE> blk = {in, out, rows, cols, r0, c0, full};

    // 1. all NB*P global loads back to back: w[j][k] = element row k of unit (ty + j*ROWS, tx)
    Regs<ESZ, TILE, ROWS, NB> w;
    if (full && a.in_vec) {
        Load::whole(w, a, blk);
    } else if (MID == 2 && Lean<ESZ, TILE, ROWS>::load_ok(a)) {
        if constexpr (MID == 2) // odd pitches and edge tiles: whole words, per-k work hoisted (lean.cuh)
            Lean<ESZ, TILE, ROWS>::load(w, a, blk);
    } else if (E > 1 && MID != 2 && full && a.in_odd) {
        if constexpr (E > 1) { // ODD PITCHES: every load first, then the shuffles and shifts
            const int lane = tx & 31;
            const int64_t rs = a.in_rs * ESZ; // row pitch in bytes (any sign)
            const unsigned char *row = in + (r0 + (int64_t)ty * E) * rs;
            const int64_t col = (c0 + (int64_t)tx * E) * ESZ; // the lane's byte in the row
            const int64_t row_bytes = cols * ESZ;
            W ex[NB][P]; // lane 31: the word after the warp's last one
#pragma unroll
            for (int j = 0; j < NB; j++)
#pragma unroll
                for (int k = 0; k < P; k++) {
                    const unsigned char *rp = row + (int64_t)(j * ROWS * E + k) * rs; // row start
                    const unsigned char *p = rp + col;
                    const int s = (int)((uintptr_t)p & 3);
                    const unsigned char *q = p - s; // aligned word under the lane's first byte
                    const bool in = j < N || r0 + (int64_t)(ty + j * ROWS) * E + k < rows; // the band's rows may end
                    // only lane 0 of a tile at column 0 can reach before the row's first byte
                    w[j][k] = !in ? 0 : q >= rp ? *reinterpret_cast<const W *>(q) : load_piece(p, 4 - s) << (8 * s);
                    ex[j][k] = 0;
                    if (in && lane == 31 && s != 0) // its first s bytes are the warp's; past the row's end, only those
                        ex[j][k] = q + 8 <= rp + row_bytes ? *reinterpret_cast<const W *>(q + 4) : load_piece(q + 4, s);
                }
#pragma unroll
            for (int j = 0; j < NB; j++)
#pragma unroll
                for (int k = 0; k < P; k++) {
                    const int s = (int)((uintptr_t)(row + (int64_t)(j * ROWS * E + k) * rs + col) & 3);
                    W hi = __shfl_down_sync(0xffffffffu, w[j][k], 1);
                    if (lane == 31)
                        hi = ex[j][k];
                    w[j][k] = __funnelshift_r(w[j][k], hi, 8 * s); // s == 0: w[j][k] itself
                }
        }
    } else {
        Load::template edge_or_words<MID == 1>(w, a, blk);
    }
    // 2. w[j][k] = element column k of unit j
#pragma unroll
    for (int j = 0; j < NB; j++)
        transpose_unit<ESZ>(w[j]);
    // 3. park the units; 4. read them back down the columns
    SharedTile<L, ESZ, TILE, ROWS, NB>::store_rows(tile, w, tx, ty);
    __syncthreads();
    if constexpr (SEC) { // 4 + 5 shifted onto each output row's sectors
        SectorStore<L, ESZ, TILE, ROWS>::run(tile, blk);
        return;
    }
    SharedTile<L, ESZ, TILE, ROWS, NB>::load_columns(tile, w, tx, ty);
    // 5. word k of unit j is output row c0 + (ty + j*ROWS)*E + k, output columns r0 + tx*E + [0, E)
    if (full && a.out_vec) {
        Store::whole(w, a, blk);
    } else if (MID == 2) {
        if constexpr (MID == 2)
            Lean<ESZ, TILE, ROWS>::store(w, a, blk);
    } else if (E > 1 && MID != 2 && full && a.out_odd) {
        if constexpr (E > 1) { // ODD PITCHES: lane i stores aligned word i, lanes 0 and 31 the partial ends
            const int lane = tx & 31;
            unsigned char *dst = out + ((c0 + (int64_t)ty * E) * rows + r0 + (int64_t)tx * E) * ESZ;
#pragma unroll
            for (int j = 0; j < N; j++)
#pragma unroll
                for (int k = 0; k < P; k++) {
                    unsigned char *p = dst + (int64_t)(j * ROWS * E + k) * rows * ESZ;
                    const int s = (int)((uintptr_t)p & 3);
                    const W v = w[j][k];
                    const W prev = __shfl_up_sync(0xffffffffu, v, 1);
                    if (s == 0 || lane != 0) // aligned word i: lane i-1's last s bytes, lane i's first 4 - s
                        *reinterpret_cast<W *>(p - s) = __funnelshift_l(prev, v, 8 * s);
                    if (s != 0 && (lane == 0 || lane == 31)) { // one byte + one half store for both lanes
                        const bool first = lane == 0;
                        store_piece(first ? p : p - s + 4, first ? 4 - s : s, first ? v : v >> (32 - 8 * s));
                    }
                }
        }
    } else {
        Store::template edge_or_words<MID == 1>(w, a, blk);
    }
}

} // namespace

#endif /* SMK_TRANSPOSE_KERNEL_CUH */
