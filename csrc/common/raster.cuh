/* Block rasterisation shared by the GEMM kernels and the tiled transpose (group_tile_rt): which output tile a block of a 1-D grid computes.
 *
 * Consecutive blocks walk down GROUP_M block-rows before moving one block-column right, so the blocks
 * resident at one time share GROUP_M rows of A and a few columns of B in L2 (Triton's "grouped
 * ordering").  pid in [0, tiles_m * tiles_n) maps one-to-one onto (tile_m, tile_n):
 *
 *   group   = GROUP_M * tiles_n                 blocks per band of GROUP_M block-rows
 *   first_m = (pid / group) * GROUP_M           the band's first block-row
 *   rows    = min(tiles_m - first_m, GROUP_M)   the last band may be shorter
 *   tile_m  = first_m + (pid % group) % rows    down the band first...
 *   tile_n  = (pid % group) / rows              ...then one block-column right
 *
 * I is the index type: int where the kernel's indices are int (SGEMM), int64_t where tiles may number
 * more than 2^31 (the tensor-core GEMM).  The arithmetic is written once, in this order, so that each
 * kernel compiles to the instructions it had with its own copy. */
#ifndef SMK_COMMON_RASTER_CUH
#define SMK_COMMON_RASTER_CUH

namespace smk {

template <int GROUP_M, class I>
__device__ __forceinline__ void group_tile(I pid, I tiles_m, I tiles_n, I *tile_m, I *tile_n)
{
    static_assert(GROUP_M >= 1, "a band holds at least one block-row");
    const I group = (I)GROUP_M * tiles_n;
    const I first_m = (pid / group) * GROUP_M;
    const I rows = (tiles_m - first_m) < (I)GROUP_M ? (tiles_m - first_m) : (I)GROUP_M;
    const I r = pid % group;
    *tile_m = first_m + r % rows;
    *tile_n = r / rows;
}

/* The same order with the band height a runtime value (the transpose's tile rows per band, a knob),
 * group_m >= 1; the remainders written as products (one division each), as the transpose was measured. */
template <class I>
__device__ __forceinline__ void group_tile_rt(I group_m, I pid, I tiles_m, I tiles_n, I *tile_m, I *tile_n)
{
    const I first_m = pid / (group_m * tiles_n) * group_m;
    const I r = pid - first_m * tiles_n;
    const I rows = min(group_m, tiles_m - first_m);
    *tile_n = r / rows;
    *tile_m = first_m + (r - *tile_n * rows);
}

} /* namespace smk */

#endif
