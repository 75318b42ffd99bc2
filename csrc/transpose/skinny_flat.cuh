/*
 * transpose/skinny_flat.cuh -- 4- and 8-byte matrices with a short side S = 33..128 (knob transpose_flat, configs.h's
 * skinny_flat_fits: by default case A with S <= 64, where it won on the H200; issue 26).
 *
 * Why.  Such a matrix went to the tiled kernel, whose 64-element tile then covers S of 64 or 128 elements of every
 * tile: at S = 35 the lanes of half the warps are idle, every tile is an edge tile, and the kernel is issue bound
 * (H200 ncu, session 50: 784449x35 float32 82M warp instructions, 80% issue, 0.41 a DRAM byte against 0.14 for an
 * interior tile; the random law's float32 draws with a short side of 33..140 ran at 0.47-0.79 of a copy).
 *
 * What.  A block takes T consecutive indices of the long side (all S of the short side: T x S elements, one
 * contiguous run on one global side) through a T x S' tile of shared memory (S' = S to a power of two, T x S' =
 * kFlatElems).  Its two sides:
 *
 *   flat    the contiguous side (case B, rows > cols: the input's T packed rows; case A, rows <= cols: the output's T
 *           rows of S): thread t, step k takes element f = t + 256 k < T S of the run, tile row j = f / S (a multiply-
 *           high by ceil(2^32 / S)), column s = f - j S -- every lane busy, every warp one 32-element run
 *   shift   the strided side (case B: the output's S rows, T elements each; case A: the input's S rows): element
 *           i = t + 256 k, column s = i >> log2 T (warp-uniform: T >= 32), row j = i & (T - 1); warps with s >= S do
 *           nothing, the others move 32 consecutive elements of one row
 *
 * So neither side pads S: the only idle lanes are the run's last warp and the rows past the long side's end.  The
 * shared tile (layout.h through skinny.cuh's skinny_geometry, T rows of S' elements) is where the layouts differ: the
 * shift side reads or writes one column down T rows -- naive a pitch of S' elements puts every lane in one bank
 * (32-way for float32), pad one element more (conflict-free), swizzle the element slot XORed with the low row bits;
 * the flat side walks rows in order (consecutive words, one wavefront a phase but where a warp wraps to the next row).
 * plan.cu's skinny_flat_plan replays both through the same maps (explain()).  Elements move as unsigned integers
 * (Unit<ESZ>::T); both bases element-aligned (the launcher's test).  Grid: x = block along the long side,
 * y + 65535 z = matrix of the batch.
 */
#ifndef SMK_TRANSPOSE_SKINNY_FLAT_CUH
#define SMK_TRANSPOSE_SKINNY_FLAT_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "layout.h"
#include "transpose/skinny.cuh"
#include "transpose/unit.cuh"

namespace {

constexpr int kFlatThreads = 256;
constexpr int kFlatElems = 4096;  /* the tile, T x S' elements (16 / 32 KB unpadded): T >= 32 for S' <= 128 */
constexpr int kFlatMinShort = 33;  /* S below: skinny.cuh's kernel */
constexpr int kFlatMaxShort = 128;

/* Everything one launch needs (the first fields as SkinnyArgs': launch.cu's matrix_args fills them). */
struct FlatArgs {
    const unsigned char *in;
    unsigned char *out;
    int64_t rows, cols;   // of one matrix, in elements
    int64_t in_rs, in_cs; // element strides (in_cs == 1; case B: in_rs == cols)
    int64_t in_bs;        // element stride between input matrices
    int64_t batch;
    int64_t tiles_x; // blocks along the long side
    int s;           // the short side S
    uint32_t magic;  // flat_magic(S)
};

/* log2 S' (S rounded up to a power of two) and log2 T. */
SMK_HD int flat_log2_short(int s) { return smk_ilog2(2 * s - 1); }
SMK_HD int flat_log2_long(int ls) { return smk_ilog2(kFlatElems) - ls; }

/* The tile: T rows of S' elements under `layout` (the skinny kernel's geometry: the shift side is its column read). */
SMK_HD smk_tile flat_geometry(int layout, int ls, int esz)
{
    return skinny_geometry(layout, flat_log2_long(ls), ls, esz);
}

SMK_HD int flat_bytes(int layout, int ls, int esz)
{
    return smk_tile_elems(flat_geometry(layout, ls, esz), 1 << flat_log2_long(ls)) * esz;
}

/* ceil(2^32 / S): f / S = flat_div(f, magic) exactly for f < 2^24 and S <= 128 (the error f * (magic S - 2^32) / 2^32
 * stays under 1 / S; tests/test_transpose_flat.py checks every f a block meets). */
SMK_HD uint32_t flat_magic(int s) { return (uint32_t)((((uint64_t)1 << 32) + (uint64_t)s - 1) / (uint64_t)s); }
SMK_HD int flat_div(uint32_t f, uint32_t magic) { return (int)(((uint64_t)f * magic) >> 32); }

/* The maps, shared by the kernel and the plan: flat element f -> tile (row, column); shift element i -> the same. */
struct FlatMap {
    SMK_HD static int flat_row(int f, int s, uint32_t magic) { return flat_div((uint32_t)f, magic); }
    SMK_HD static int shift_row(int i, int lt) { return i & ((1 << lt) - 1); }
    SMK_HD static int shift_col(int i, int lt) { return i >> lt; }
};

#ifdef __CUDACC__
/* tparams: L the smk_layout, ESZ 4 or 8, A case A (rows <= cols: S = rows, the output flat) or B (rows > cols:
 * S = cols, the input flat), LS = log2 S' (6 or 7). */
template <int L, int ESZ, bool A, int LS>
__global__ void __launch_bounds__(kFlatThreads) skinny_flat_kernel(const FlatArgs a)
{
    typedef typename Unit<ESZ>::T T;
    constexpr int LT = smk_ilog2(kFlatElems) - LS, TT = 1 << LT;
    constexpr int K = kFlatElems / kFlatThreads; // steps of either side, at most (T S' / 256)
    constexpr smk_tile tl = skinny_geometry(L, LT, LS, ESZ);
    static_assert(TT >= 32 && TT % 32 == 0, "a warp's shift elements share one column");
    extern __shared__ __align__(16) unsigned char smem[];
    T *tile = reinterpret_cast<T *>(smem);

    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return; // the last z slice of a batch > 65535 (uniform per block, before the barrier)
    const int S = a.s, t = threadIdx.x;
    const int64_t len = A ? a.cols : a.rows;                      // the long side
    const int64_t j0 = (int64_t)blockIdx.x * TT;                  // the block's first long-side index
    const int tj = (int)(len - j0 < TT ? len - j0 : TT);          // its long-side indices
    const int n = tj * S;                                         // its elements
    const unsigned char *in = a.in + b * a.in_bs * ESZ;
    unsigned char *out = a.out + b * a.rows * a.cols * ESZ;

    T v[K];
    if constexpr (!A) {
        // case B: the input's rows j0 .. j0 + tj - 1 are one packed run (flat); output row s, columns j0 + j (shift)
        const unsigned char *src = in + j0 * a.in_rs * ESZ;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int f = t + k * kFlatThreads;
            if (f < n)
                v[k] = *reinterpret_cast<const T *>(src + (int64_t)f * ESZ);
        }
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int f = t + k * kFlatThreads;
            if (f < n) {
                const int j = FlatMap::flat_row(f, S, a.magic);
                tile[smk_tile_offset(tl, j, f - j * S)] = v[k];
            }
        }
        __syncthreads();
        unsigned char *dst = out + j0 * ESZ;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int i = t + k * kFlatThreads, s = FlatMap::shift_col(i, LT), j = FlatMap::shift_row(i, LT);
            if (s >= S)
                break; // see the load of case A
            if (j < tj)
                v[k] = tile[smk_tile_offset(tl, j, s)];
        }
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int i = t + k * kFlatThreads, s = FlatMap::shift_col(i, LT), j = FlatMap::shift_row(i, LT);
            if (s >= S)
                break;
            if (j < tj)
                *reinterpret_cast<T *>(dst + ((int64_t)s * a.rows + j) * ESZ) = v[k];
        }
    } else {
        // case A: input row s, columns j0 + j (shift); the output's rows j0 .. j0 + tj - 1 are one run (flat)
        const unsigned char *src = in + j0 * ESZ;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int i = t + k * kFlatThreads, s = FlatMap::shift_col(i, LT), j = FlatMap::shift_row(i, LT);
            // s grows with k and is one value a warp: past S the warp leaves the loop (a branch, never a warp of
            // predicated-off accesses: Nsight Compute counted those in naive and pad, not in swizzle -- 1.7x the
            // plan's shared instructions at S = 35 -- so the plan counts a warp's access where a lane makes it)
            if (s >= S)
                break;
            if (j < tj)
                v[k] = *reinterpret_cast<const T *>(src + ((int64_t)s * a.in_rs + j) * ESZ);
        }
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int i = t + k * kFlatThreads, s = FlatMap::shift_col(i, LT), j = FlatMap::shift_row(i, LT);
            if (s >= S)
                break;
            if (j < tj)
                tile[smk_tile_offset(tl, j, s)] = v[k];
        }
        __syncthreads();
        unsigned char *dst = out + j0 * S * ESZ;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int f = t + k * kFlatThreads;
            if (f < n) {
                const int j = FlatMap::flat_row(f, S, a.magic);
                v[k] = tile[smk_tile_offset(tl, j, f - j * S)];
            }
        }
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int f = t + k * kFlatThreads;
            if (f < n)
                *reinterpret_cast<T *>(dst + (int64_t)f * ESZ) = v[k];
        }
    }
}
#endif

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_FLAT_CUH */
