/*
 * transpose/sector_kernel.cuh -- the sector store's own kernel (transpose_sector_kernel; configs.h's
 * sector_fits, modes 5 and 6 of the knob transpose_sector): transpose_kernel<..., SEC = true>'s accesses in
 * another order, so that the 1- and 2-byte instances fit 64 registers.
 *
 * Why.  transpose_kernel<.., SEC> issues all (N + 1) * P global loads of a thread back to back, the band's
 * unit row with the N main ones; on the odd-pitch path lane 31 also holds one more word per load, so the
 * load phase keeps 2 (N + 1) P words live: ptxas sm_90 gives the uint8 instance (32x8 threads) 76 registers
 * (the plain kernel 64: 3 blocks of 256 threads an SM in place of 4) and the float16 one (64x8) 64 with 8
 * bytes spilled (the plain kernel 58).
 *
 * How.  Parts 1-3 run twice: the N main units (loaded, transposed, parked in shared memory as the plain
 * kernel does), then the band's unit (unit row TILE + ty: unit row ty of the next tile row, its rows read as
 * zeros past the matrix's end) loaded, transposed and parked; one barrier, then SectorStore (sector.cuh)
 * exactly as in transpose_kernel<.., SEC>.  The shared tile, its layout and every shared access (count,
 * address, layout) are those of transpose_kernel<.., SEC>, only the order of the band's row store changes,
 * so explain()'s sector_plan holds as it is.  The 1- and 2-byte instances are bounded to 1024 / threads
 * blocks an SM (64 registers, the plain kernels' occupancy); the 4-byte one keeps no minimum (32 registers
 * either way; a minimum of 2 blocks let ptxas take 48).
 *
 * Measured (ptxas sm_90, -O3): uint8 32x8 76 -> 64 registers, 0 spill; float16 64x8 64 + 8 bytes spilled
 * -> 64, 0 spill; float32 32 -> 32.
 */
#ifndef SMK_TRANSPOSE_SECTOR_KERNEL_CUH
#define SMK_TRANSPOSE_SECTOR_KERNEL_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "transpose/global.cuh"
#include "transpose/kernel.cuh"
#include "transpose/sector.cuh"
#include "transpose/tile.cuh"
#include "transpose/unit.cuh"

namespace {

/* Part 1 of the sector kernel for NJ units of one thread: the whole, odd-pitch or element-wise path (the
 * plain kernel's, kernel.cuh), chosen by b.full (with `band`: the columns only) and the input's alignment.
 * band: unit row TILE + ty (b is the next tile row's block), each of its rows checked against the matrix. */
template <int ESZ, int TILE, int ROWS, int NJ>
__device__ __forceinline__ void sector_load(Regs<ESZ, TILE, ROWS, NJ> &w, const Args &a, const Block<TILE * Unit<ESZ>::E> &b,
                                            bool band)
{
    typedef typename Unit<ESZ>::W W;
    constexpr int E = Unit<ESZ>::E, P = Unit<ESZ>::P;
    const int tx = b.tx(), ty = b.ty();
    const int64_t rs = a.in_rs * ESZ; // row pitch in bytes (any sign)
    const unsigned char *row = b.in + (b.r0() + (int64_t)ty * E) * rs;
    if (b.full && a.in_vec) {
        const unsigned char *src = row + (b.c0() + (int64_t)tx * E) * a.in_cs * ESZ;
#pragma unroll
        for (int j = 0; j < NJ; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const bool in = !band || b.r0() + (int64_t)(ty + j * ROWS) * E + k < b.rows;
                w[j][k] = in ? *reinterpret_cast<const W *>(src + (int64_t)(j * ROWS * E + k) * rs) : W{};
            }
    } else if (E > 1 && b.full && a.in_odd) {
        if constexpr (E > 1) { // kernel.cuh's odd path: every load first, then the shuffles and shifts
            const int lane = tx & 31;
            const int64_t col = (b.c0() + (int64_t)tx * E) * ESZ, row_bytes = b.cols * ESZ;
            W ex[NJ][P]; // lane 31: the word after the warp's last one
#pragma unroll
            for (int j = 0; j < NJ; j++)
#pragma unroll
                for (int k = 0; k < P; k++) {
                    const unsigned char *rp = row + (int64_t)(j * ROWS * E + k) * rs, *p = rp + col;
                    const int s = (int)((uintptr_t)p & 3);
                    const unsigned char *q = p - s;
                    const bool in = !band || b.r0() + (int64_t)(ty + j * ROWS) * E + k < b.rows;
                    w[j][k] = !in ? 0 : q >= rp ? *reinterpret_cast<const W *>(q) : load_piece(p, 4 - s) << (8 * s);
                    ex[j][k] = 0;
                    if (in && lane == 31 && s != 0)
                        ex[j][k] = q + 8 <= rp + row_bytes ? *reinterpret_cast<const W *>(q + 4) : load_piece(q + 4, s);
                }
#pragma unroll
            for (int j = 0; j < NJ; j++)
#pragma unroll
                for (int k = 0; k < P; k++) {
                    const int s = (int)((uintptr_t)(row + (int64_t)(j * ROWS * E + k) * rs + col) & 3);
                    W hi = __shfl_down_sync(0xffffffffu, w[j][k], 1);
                    if (lane == 31)
                        hi = ex[j][k];
                    w[j][k] = __funnelshift_r(w[j][k], hi, 8 * s);
                }
        }
    } else {
        GlobalLoad<ESZ, TILE, ROWS, NJ>::edge(w, a, b); // bounds-checked element by element
    }
#pragma unroll
    for (int j = 0; j < NJ; j++)
        transpose_unit<ESZ>(w[j]); // part 2
}

/* Blocks an SM the sector kernel is held to: 2 for 2-byte elements (64x8 threads: 64 registers, the plain
 * kernel's occupancy), else none (0: no .minnctapersm; ptxas sm_90 then gives the 1-byte kernel 64 registers
 * without spilling, where a minimum of 4 blocks spills 8 bytes). */
template <int ESZ, int THREADS>
SMK_HD int sector_min_blocks()
{
    return ESZ == 2 ? 1024 / THREADS : 0;
}

/* tparams as transpose_kernel's (kernel.cuh); the sector store always on. */
template <int L, int ESZ, int TILE, int ROWS>
__global__ void __launch_bounds__(TILE * ROWS, sector_min_blocks<ESZ, TILE * ROWS>()) transpose_sector_kernel(const Args a)
{
    static_assert(TILE % 32 == 0 && TILE % ROWS == 0 && ESZ <= 4, "transpose_kernel's tiles, 1- to 4-byte elements");
    typedef typename Unit<ESZ>::W W;
    constexpr int E = Unit<ESZ>::E, N = TILE / ROWS, TE = TILE * E;
    typedef SharedTile<L, ESZ, TILE, ROWS, N + 1> T; // the band's unit rows TILE .. TILE + ROWS - 1 too
    extern __shared__ __align__(16) unsigned char smem[];
    W *tile = reinterpret_cast<W *>(smem);

    const int64_t b = (int64_t)blockIdx.z * kMaxGridYZ + blockIdx.y; // 0. as transpose_kernel
    if (b >= a.batch)
        return;
    int64_t ty_tile, tx_tile;
    tile_place(a, &ty_tile, &tx_tile);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t r0 = ty_tile * TE, c0 = tx_tile * TE;
    const bool cols_in = c0 + TE <= a.cols;
    const unsigned char *in = a.in + b * a.in_bs * ESZ;
    const Block<TE> blk = {in, a.out + b * a.rows * a.cols * ESZ, a.rows, a.cols, r0, c0,
                           cols_in && r0 + TE <= a.rows};
    {   // 1-3. the N main units
        Regs<ESZ, TILE, ROWS> w;
        sector_load<ESZ, TILE, ROWS, N>(w, a, blk, false);
        T::template store_units<0, N>(tile, w, tx, ty);
    }
    {   // 1-3. the band's unit: unit row ty of the next tile row, rows past the matrix as zeros
        const Block<TE> band = {in, blk.out, a.rows, a.cols, r0 + TE, c0, cols_in};
        Regs<ESZ, TILE, ROWS, 1> w;
        sector_load<ESZ, TILE, ROWS, 1>(w, a, band, true);
        T::template store_units<N, 1>(tile, w, tx, ty);
    }
    __syncthreads();
    // 4 + 5 on each output row's sectors; float16 unrolls two units at a time (whole: 64 registers and 4 bytes
    // spilled)
    SectorStore<L, ESZ, TILE, ROWS>::template run<ESZ == 2 ? 2 : N>(tile, blk);
}

} // namespace

#endif /* SMK_TRANSPOSE_SECTOR_KERNEL_CUH */
