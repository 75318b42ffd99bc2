/*
 * transpose/sector.cuh -- the tiled kernel's sector store (transpose_kernel<..., SEC = true>): parts 4 and 5
 * for output rows that do not start on a 32-byte sector.
 *
 * Why.  A warp of the plain kernel writes the TE elements of a tile's output row at r0 + tx*E, so where
 * the output pitch is not a multiple of 32 bytes every output run straddles sectors: a 128-byte run of a
 * uint8 tile touches 5 sectors, two of them partly.  Measured (H100, smemkit.bench, pad, docs/
 * TRANSPOSE_NOTES.md "Session 37"): uint8 5760x7560 0.97 of a copy, 5752x7560 (pitch 24 mod 32) 0.68,
 * 5761x7560 (not even on words) 0.62; float32 2880x7560 0.97, 2876x7560 0.85; float16 4960 / 4952 / 4954
 * rows 0.88 / 0.81 / 0.69.  ncu: the same DRAM bytes, but 21% more L2 work and 31 against 23 warp cycles
 * per instruction.
 *
 * How.  Output row o (= input column) starts d_o = (-(address of its first element) mod 32) / ESZ
 * elements before its first sector boundary.  Tile row t writes output elements [t*TE + d_o, (t+1)*TE +
 * d_o) of each of its output rows -- every run starts on a sector and is whole aligned words --, and tile
 * row 0 also the head [0, d_o) (lanes tx < ceil(d / E) as lanes -1 - tx: whole aligned words, and the
 * first d % E elements of the row as one byte and / or half store).  The rows past the tile, up to 32 bytes of them, come from a band: each
 * thread loads one more unit row (ty + N*ROWS: unit rows TILE .. TILE + ROWS - 1 of the tile, ROWS*E*ESZ
 * >= 32 bytes of input rows), read as zeros past the matrix's end.  Lane tx's word is input rows
 * r0 + d + tx*E + [0, E): unit row u = tx + d / E, its last E - d % E elements, then unit row u + 1's
 * first d % E (one funnel shift; E = 1: unit row u alone).  Every global access is then a whole
 * aligned word whatever the output pitch, so the odd-pitch store path has no part here.
 *
 * Banks.  The shifted read takes unit rows u = tx + const of one unit column across the warp: consecutive
 * rows of a column, as the plain column read (tile.cuh's table): naive 32-way, pad and swizzle one
 * wavefront per phase; the second read (u + 1) likewise; the head reads (lanes tx < ceil(d / E) of tile
 * row 0, unit rows max(d / E - 1 - tx, 0) and the next) take distinct rows of one column, the partial
 * word's lane a broadcast of row 0 (1): naive as many ways as rows, pad / swizzle one wavefront.
 * plan.cu replays these reads (sector_plan) through the same word() offsets.
 */
#ifndef SMK_TRANSPOSE_SECTOR_CUH
#define SMK_TRANSPOSE_SECTOR_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "transpose/global.cuh"
#include "transpose/tile.cuh"
#include "transpose/unit.cuh"

namespace {

/* Elements from output row start `first` (a byte address) to its first 32-byte boundary: [0, 32/ESZ). */
template <int ESZ>
SMK_HD int sector_lead(uintptr_t first)
{
    return (int)((0u - (unsigned)first) & 31u) / ESZ;
}

/* The band a thread loads covers every shift: 32 bytes of input rows less one element, plus one unit row
 * for the funnel shift's second word. */
template <int ESZ, int ROWS>
constexpr bool sector_band_fits()
{
    return (32 / ESZ - 1) / Unit<ESZ>::E + (Unit<ESZ>::E > 1) <= ROWS;
}

template <int L, int ESZ, int TILE, int ROWS>
struct SectorStore {
    typedef typename Unit<ESZ>::W W;
    static constexpr int E = Unit<ESZ>::E, P = Unit<ESZ>::P, N = TILE / ROWS, TE = TILE * E;
    typedef SharedTile<L, ESZ, TILE, ROWS, N + 1> T;
    static_assert(ESZ <= 4 && sector_band_fits<ESZ, ROWS>(), "one band unit row per thread covers the shift");

    /* Word k of unit (r, c), the store's column reads.  float32 (E = 1): a volatile shared load, so every warp
     * issues each of its reads whatever its lanes then store.  As plain loads, nvcc sank them under the
     * store's predicate (`@!P1 LDS` beside `@!P1 STG`: the output row past cols on an edge tile, or the word
     * past rows), a warp whose lanes all failed it issued a load that Nsight Compute does not count, and
     * explain() (plan.cu sector_plan: every warp's reads) ran 1.9-16% above ncu's shared loads (TRANSPOSE_NOTES
     * "Session 38").  The 1-byte kernel kept its loads unpredicated (within 0.31%) and stays as it was. */
    static __device__ __forceinline__ W read(const W *tile, int k, int r, int c)
    {
        if constexpr (E == 1)
            return *(const volatile W *)&tile[k * T::PLANE + smk_tile_offset(tile_geometry<ESZ, TILE>(L), r, c)];
        else
            return T::word(tile, k, r, c);
    }

    /* Parts 4 and 5: word k of unit column uc = ty + j*ROWS is output row c0 + uc*E + k.  UJ: how far the
     * loop over j is unrolled (N: whole; sector_kernel.cuh's float16 instance 2, which holds it to 64
     * registers without spilling). */
    template <int UJ = N, class B>
    static __device__ __forceinline__ void run(const W *tile, const B &b)
    {
        const int tx = B::tx(), ty = B::ty();
        const int64_t r0 = b.r0(), rows = b.rows;
#pragma unroll 1
        for (int j0 = 0; j0 < N; j0 += UJ) // UJ = N: one pass, the loop folds away
#pragma unroll
        for (int j = j0; j < j0 + UJ; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int uc = ty + j * ROWS;                           // [0, TILE)
                const int64_t orow = b.c0() + (int64_t)uc * E + k;      // output row
                unsigned char *op = b.out + orow * rows * ESZ;          // its element 0
                const int d = sector_lead<ESZ>((uintptr_t)op);          // [0, 32 / ESZ)
                const int u = tx + d / E;                               // [0, TILE + ROWS - 1)
                W v = read(tile, k, u, uc);
                if constexpr (E > 1)
                    v = __funnelshift_r(v, T::word(tile, k, u + 1, uc), 8 * ESZ * (d % E));
                const bool in = b.full || orow < b.cols;
                const int64_t oc = r0 + d + (int64_t)tx * E;            // the word's first output element
                if (in && oc + E <= rows) {
                    *reinterpret_cast<W *>(op + oc * ESZ) = v;          // aligned: op + d*ESZ is on a sector
                } else if (in) {
#pragma unroll
                    for (int e = 0; e < E; e++)
                        if (oc + e < rows)
                            store_elem<ESZ>(op + (oc + e) * ESZ, word_elem<ESZ>(v, e), true);
                }
                if (r0 == 0 && tx * E < d) { // the head [0, d), tile row 0: lane tx as lane -1 - tx, whole words
                    const int q = d / E - 1 - tx; // its word's unit row; -1: the partial word at the row's start
                    const int uq = q < 0 ? 0 : q;
                    W h = read(tile, k, uq, uc);
                    if constexpr (E > 1) {
                        const W h1 = T::word(tile, k, uq + 1, uc);
                        if (q >= 0)
                            h = __funnelshift_r(h, h1, 8 * ESZ * (d % E));
                    }
                    if (in && q >= 0)
                        *reinterpret_cast<W *>(op + (int64_t)(q * E + d % E) * ESZ) = h;
                    if constexpr (E > 1) { // elements [0, d % E) of unit row 0: a byte and / or a half
                        if (in && q < 0)
                            store_piece(op, d % E * ESZ, h);
                    }
                }
            }
    }
};

} // namespace

#endif /* SMK_TRANSPOSE_SECTOR_CUH */
