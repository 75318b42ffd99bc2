/*
 * transpose/skinny.cuh -- the skinny transpose kernel: matrices with one side of at most 32 elements (down
 * to 1 x n and n x 1), for elements of 1, 2, 4, 8 and 16 bytes and batches (one launch).
 *
 * Why a kernel of its own.  The tiled kernel (kernel.cuh) moves TILE x TILE units; when one side S of the
 * matrix is much shorter than the tile edge (64 or 128 elements), most of every tile is outside the matrix
 * and a warp's global accesses cover only S * esz bytes of a row: a 2237203 x 3 float16 matrix ran at 0.02
 * of a device copy (issue 26).  DALI switches to a "deinterleave" kernel below a tile coverage of 0.4;
 * cuTT's packed kernels stage the whole small dimension in shared memory.  This kernel does the latter.
 *
 * A block moves one TR x TC tile of elements, TR * TC * esz = kSkinnyBytes, both powers of two, the short
 * side padded to the next power of two of S (at most 32) and the long side filling the rest
 * (skinny_shape):
 *
 *   S x L (few long rows)    tile S' x T:  reads S runs of T contiguous elements (coalesced along the
 *                            rows); writes T output rows of S elements = T*S contiguous elements
 *   L x S (many short rows)  tile T x S':  reads T rows of S elements (T*S contiguous elements when the
 *                            input is C-contiguous); writes S output runs of T contiguous elements
 *
 * Both are one kernel: thread t, step k handles flat element i = t + k * 256 of the tile in the INPUT's
 * row-major order to read (row i >> lc, column i & (TC-1): consecutive lanes, consecutive input
 * columns), and flat element o = t + k * 256 in the OUTPUT's row-major order to write (input row
 * o & (TR-1), input column o >> lr: consecutive lanes, consecutive output columns).  Lanes whose element
 * lies past the matrix (the padding of S to S', edge tiles) neither read nor write global memory, so
 * every warp touches whole, consecutive sectors along the long side.  Shared memory is where the order
 * changes: a row store (lane = input column) and a column read (lane = input row), both through
 * layout.h's smk_tile_offset on a TR x TC tile of elements -- the one place the layouts differ:
 *
 *   naive    row r at r * TC: the column read steps TC * esz bytes a row; when that is a multiple of
 *            128 every row of an instruction is in one bank (up to 32-way)
 *   pad      row pitch (TC + V) elements, V the vector of skinny_geometry (what one row gives one
 *            column-read instruction, at least a bank word): consecutive rows shift by one vector
 *   swizzle  layout.h's automatic Swizzle for TC columns in vectors of V: the vector slot XORed with
 *            low row (or bank-row) bits, a bijection within each bank row
 *
 * The bank model replays SkinnyMap through the same smk_tile_offset (plan.cu), so explain() counts this
 * kernel's own accesses.  Elements move bitwise as unsigned integers (Unit<ESZ>::T), aligned when the
 * base is (strides are in elements), else byte by byte.  Indexing is 64-bit.
 * Grid: x = tile of the matrix (row-major tile order), y + 65535 z = matrix of the batch.
 */
#ifndef SMK_TRANSPOSE_SKINNY_CUH
#define SMK_TRANSPOSE_SKINNY_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "layout.h"
#include "transpose/unit.cuh"

namespace {

constexpr int kSkinnyThreads = 256;  /* one dimension: 8 warps */
constexpr int kSkinnyBytes = 8192;   /* a tile without padding: 8 KB (16 KB padded at most) */
constexpr int kSkinnyLog2Bytes = 13;
constexpr int kSkinnyMaxShort = 32;  /* the short side of the tile, at most */

/* Everything one launch of the skinny kernel needs. */
struct SkinnyArgs {
    const unsigned char *in;
    unsigned char *out;
    int64_t rows, cols;   // of one matrix, in elements
    int64_t in_rs, in_cs; // element strides
    int64_t in_bs;        // element stride between input matrices
    int64_t batch;
    int64_t tiles_x;      // tiles per row of tiles
    int lr, lc;           // log2 of the tile's rows and columns
    int in_al, out_al;    // elements naturally aligned (else byte-wise)
};

/* The tile of a rows x cols matrix: log2 rows (lr) and columns (lc). */
struct SkinnyShape {
    int lr, lc;
};

/* The short side, rounded up to a power of two and capped at kSkinnyMaxShort, times the long side that
 * fills kSkinnyBytes. */
inline SkinnyShape skinny_shape(int64_t rows, int64_t cols, int esz)
{
    const int64_t s = rows < cols ? rows : cols;
    int ls = 0;
    while ((int64_t)1 << ls < s && (1 << ls) < kSkinnyMaxShort)
        ls++;
    const int le = kSkinnyLog2Bytes - smk_ilog2(esz); // log2 elements of a tile
    return rows <= cols ? SkinnyShape{ls, le - ls} : SkinnyShape{le - ls, ls};
}

/* The tile under a layout: TC = 2^lc columns of esz-byte elements.  Its "vector" (what pad adds to a row
 * and swizzle keeps whole) is what one row gives one phase of a column read: a phase is the lanes one
 * wavefront serves, 128 / esz of them for esz >= 4 (32 / 16 / 8), else the warp; its P lanes span
 * g = P / TR columns of TR < P rows (else g = 1); the vector is g elements, at least a 4-byte bank word
 * (sub-word elements sharing a word never conflict), at most the row.  So the rows of one phase each
 * touch one vector slot, pad shifts consecutive rows by one slot and swizzle XORs the slot with the low
 * row (or bank-row) bits: layout.h's arithmetic with vec = that vector. */
SMK_HD smk_tile skinny_geometry(int layout, int lr, int lc, int esz)
{
    const int le = smk_ilog2(esz), lp = le >= 2 ? 7 - le : 5; // log2 lanes of a phase
    const int lg = lr < lp ? lp - lr : 0, lw = le < 2 ? 2 - le : 0;
    const int lv = smk_min_int(lg > lw ? lg : lw, lc);
    return smk_tile{layout, lc, lv, le};
}

/* Shared bytes of one block. */
inline int skinny_bytes(int layout, SkinnyShape s, int esz)
{
    return smk_tile_elems(skinny_geometry(layout, s.lr, s.lc, esz), 1 << s.lr) * esz;
}

/* Which tile element thread t moves in step k: the row store walks the tile in input row-major order,
 * the column read in output row-major order (input column-major).  Shared by the kernel and the plan. */
struct SkinnyMap {
    SMK_HD static int store_row(int t, int k, int lc) { return (t + k * kSkinnyThreads) >> lc; }
    SMK_HD static int store_col(int t, int k, int lc) { return (t + k * kSkinnyThreads) & ((1 << lc) - 1); }
    SMK_HD static int load_row(int t, int k, int lr) { return (t + k * kSkinnyThreads) & ((1 << lr) - 1); }
    SMK_HD static int load_col(int t, int k, int lr) { return (t + k * kSkinnyThreads) >> lr; }
};

/* log2 elements of a tile of esz-byte elements: lr + lc of every skinny_shape. */
SMK_HD int skinny_log2_elems(int esz) { return kSkinnyLog2Bytes - smk_ilog2(esz); }

#ifdef __CUDACC__
/* tparams: L the smk_layout of the tile, ESZ the element size in bytes, LR the tile's log2 rows as a constant
 * (its columns then 2^(skinny_log2_elems(ESZ) - LR)), or -1 for a.lr / a.lc at run time.  4-, 8- and 16-byte
 * elements launch an instance per tile shape (launch.cu launch_skinny): with the shape at run time the kernel
 * spent ~64 instructions a 4-byte element on its shared offsets (layout.h under a runtime geometry) and
 * per-element 64-bit steps, and issue bound the float32 draws (H200 ncu, session 50: 9x2775572 float32 at 87% issue,
 * 88.8M warp instructions for 100 MB of DRAM traffic; float64 79%).  The 1- and 2-byte shapes the other skinny
 * kernels do not take keep the runtime instance.  Every instance makes the same accesses. */
template <int L, int ESZ, int LR = -1>
__global__ void __launch_bounds__(kSkinnyThreads) skinny_kernel(const SkinnyArgs a)
{
    typedef typename Unit<ESZ>::T T;
    constexpr int K = kSkinnyBytes / ESZ / kSkinnyThreads; // elements per thread
    constexpr int LE = skinny_log2_elems(ESZ);
    static_assert(LR <= LE, "a tile of kSkinnyBytes");
    const int lr = LR >= 0 ? LR : a.lr, lc = LR >= 0 ? LE - LR : a.lc;
    extern __shared__ __align__(16) unsigned char smem[];
    T *tile = reinterpret_cast<T *>(smem);

    // the block's place: matrix b, tile (ty_tile, tx_tile)
    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return; // the last z slice of a batch > 65535 (uniform per block, before the barrier)
    const int64_t ty_tile = blockIdx.x / a.tiles_x, tx_tile = blockIdx.x - ty_tile * a.tiles_x;
    const int64_t r0 = ty_tile << lr, c0 = tx_tile << lc; // the tile's first row and column
    const int64_t rows = a.rows, cols = a.cols;
    // the tile's rows and columns inside the matrix (ints: the per-element bounds are 32-bit compares)
    const int rlim = (int)(rows - r0 < (1 << lr) ? rows - r0 : 1 << lr);
    const int clim = (int)(cols - c0 < (1 << lc) ? cols - c0 : 1 << lc);
    const int64_t rs = a.in_rs * ESZ, cs = a.in_cs * ESZ, ors = rows * ESZ; // byte strides
    const smk_tile tl = skinny_geometry(L, lr, lc, ESZ);
    const int t = threadIdx.x;
    // Global addresses split into a thread part and a step part the whole block shares: element
    // i = t + 256k of a 2^l-wide walk is (row, column) = ((t >> l) + (256k >> l), (t & m) + (256k & m)),
    // m = 2^l - 1 -- exact because t < 256: for l >= 8 the bits of t and of 256k & m do not overlap, for
    // l < 8 256k is a multiple of 2^l.  So per element one 64-bit add of a block-uniform offset and two
    // 32-bit bound compares.
    const int rt = t >> lc, ct = t & ((1 << lc) - 1), ort = t & ((1 << lr) - 1), oct = t >> lr;
    // the thread's first element: input (r0 + rt, c0 + ct), output (c0 + oct, r0 + ort) of matrix b
    // The thread's offsets are opaque: otherwise nvcc folds them back into (rt + dr) * rs + (ct + dc) * cs
    // and rebuilds every address with 64-bit multiplies (seen in the SASS: about twice the instructions
    // per element).  The bounds compare the steps with what is left for the same reason.
    int64_t tin = (b * a.in_bs + r0 * a.in_rs + c0 * a.in_cs) * ESZ + rt * rs + ct * cs;
    int64_t tout = (b * rows * cols + c0 * rows + r0) * ESZ + oct * ors + (int64_t)ort * ESZ;
    asm("" : "+l"(tin));
    asm("" : "+l"(tout));
    const unsigned char *in = a.in + tin;
    unsigned char *out = a.out + tout;
    const int rl = rlim - rt, cl = clim - ct, orl = rlim - ort, ocl = clim - oct;

    // 1. every global load first (lane = input column), elements outside the matrix as zeros
    T v[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        const int dr = (k * kSkinnyThreads) >> lc, dc = (k * kSkinnyThreads) & ((1 << lc) - 1);
        v[k] = T{};
        if (dr < rl && dc < cl)
            v[k] = load_elem<ESZ>(in + (int64_t)dr * rs + (int64_t)dc * cs, a.in_al);
    }
    // 2. the row store; 3. the column read
#pragma unroll
    for (int k = 0; k < K; k++)
        tile[smk_tile_offset(tl, SkinnyMap::store_row(t, k, lc), SkinnyMap::store_col(t, k, lc))] = v[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < K; k++)
        v[k] = tile[smk_tile_offset(tl, SkinnyMap::load_row(t, k, lr), SkinnyMap::load_col(t, k, lr))];
    // 4. global stores (lane = output column): output row c0 + load_col, column r0 + load_row
#pragma unroll
    for (int k = 0; k < K; k++) {
        const int dr = (k * kSkinnyThreads) & ((1 << lr) - 1), dc = (k * kSkinnyThreads) >> lr;
        if (dc < ocl && dr < orl)
            store_elem<ESZ>(out + (int64_t)dc * ors + (int64_t)dr * ESZ, v[k], a.out_al);
    }
}
#endif

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_CUH */
