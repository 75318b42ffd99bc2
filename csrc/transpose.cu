/*
 * transpose.cu -- one tiled transpose kernel, templated on the shared-memory layout.
 *
 * A block moves one TILE x TILE tile: it reads TILE rows of the input with coalesced loads (lane =
 * column), parks them in shared memory, and writes TILE rows of the output with coalesced stores
 * (lane = input row).  The second step reads the tile down a COLUMN: lane i reads logical (i, c).
 * That column read is the access the layouts are about:
 *
 *   naive    offset = i*TILE + c          byte i*TILE*esz + c*esz: TILE*esz is a multiple of 128, so all
 *                                         32 lanes hit one bank -> 32 wavefronts (4-byte), 16 per
 *                                         16-lane phase (8-byte)
 *   pad      offset = i*(TILE+1) + c      each row shifted by one element: lane i sits esz*i bytes along
 *                                         the bank row -> 32 distinct banks (4-byte) / 16 distinct bank
 *                                         pairs per phase (8-byte): 1 wavefront per phase
 *   swizzle  offset = i*TILE + (c ^ (i mod 2^B))   (Swizzle<B,0,log2 TILE>, B = 5 for 4-byte, 4 for
 *                                         8-byte): XOR by distinct i is a bijection of the bank slots
 *                                         of one phase -> conflict-free, no extra storage
 *
 * The row store (lane = c) is conflict-free in all three: a row is contiguous (naive, pad) or a
 * permutation of contiguous slots (swizzle).  All of it is proved on the CPU by the bank model and
 * the tests, from the same smk_tile_offset() used here.
 *
 * Everything else (tile, threads, elements per thread, bounds handling) is shared by construction:
 * the layout is one template argument.  Sizes that are not tile multiples are predicated per element;
 * indexing is 64-bit; the grid is 1-D (block id -> tile row/column) so tall and wide shapes work.
 */
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#include "layout.h"
#include "runtime.h"

namespace {

/* Which logical tile element thread (tx, ty) moves in its j-th step, for the row store and the column
 * read.  Shared by the kernel and smk_transpose_plan (the bank model replays these). */
template <int ROWS>
struct TransposeMap {
    SMK_HD static int store_row(int tx, int ty, int j) { return (void)tx, ty + j * ROWS; }
    SMK_HD static int store_col(int tx, int ty, int j) { return (void)ty, (void)j, tx; }
    SMK_HD static int load_row(int tx, int ty, int j) { return (void)ty, (void)j, tx; }
    SMK_HD static int load_col(int tx, int ty, int j) { return (void)tx, ty + j * ROWS; }
};

/* tparams:
 *   L      smk_layout of the shared tile
 *   T      an unsigned integer of the element size (elements move bitwise)
 *   TILE   tile edge in elements (power of two; one warp reads TILE/32 .. a column slice)
 *   ROWS   thread rows per block: blockDim = (TILE, ROWS), each thread moves TILE/ROWS elements */
template <int L, typename T, int TILE, int ROWS>
__global__ void __launch_bounds__(TILE * ROWS)
transpose_kernel(const T *__restrict__ in, T *__restrict__ out, int64_t rows, int64_t cols,
                 int64_t in_rs, int64_t in_cs, int64_t tiles_x)
{
    static_assert(TILE % 32 == 0 && (TILE & (TILE - 1)) == 0, "TILE: a power-of-two multiple of a warp");
    static_assert(TILE % ROWS == 0, "each thread moves a whole number of elements");
    constexpr smk_tile tl = {L, smk_ilog2(TILE), 0, smk_ilog2((int)sizeof(T))};
    __shared__ T tile[smk_tile_elems(tl, TILE)];

    const int64_t ty_tile = blockIdx.x / tiles_x;           // tile row    [0, ceil(rows/TILE))
    const int64_t tx_tile = blockIdx.x - ty_tile * tiles_x; // tile column [0, ceil(cols/TILE))
    const int tx = threadIdx.x;                             // [0, TILE)
    const int ty = threadIdx.y;                             // [0, ROWS)
    constexpr int N = TILE / ROWS;                          // elements per thread
    const int64_t r0 = ty_tile * TILE, c0 = tx_tile * TILE;
    // interior tiles (all but the last row/column of tiles) need no bounds checks; the test is
    // uniform across the block, so there is no divergence
    const bool full = r0 + TILE <= rows && c0 + TILE <= cols;

    // 1. all N global loads issued back to back (N loads in flight per thread), lane = column
    T v[N];
    const T *src = in + (r0 + ty) * in_rs + (c0 + tx) * in_cs;
    const int64_t src_step = ROWS * in_rs;
    if (full) {
#pragma unroll
        for (int j = 0; j < N; j++)
            v[j] = src[j * src_step];
    } else {
#pragma unroll
        for (int j = 0; j < N; j++)
            v[j] = (r0 + ty + j * ROWS < rows && c0 + tx < cols) ? src[j * src_step] : T(0);
    }
    // 2. row store into the tile: logical (ty + j*ROWS, tx); out-of-range slots hold zeros that
    //    step 4 never writes out
    using Map = TransposeMap<ROWS>;
#pragma unroll
    for (int j = 0; j < N; j++)
        tile[smk_tile_offset(tl, Map::store_row(tx, ty, j), Map::store_col(tx, ty, j))] = v[j];
    __syncthreads();
    // 3. column read of the tile: logical (tx, ty + j*ROWS) -- the access the layouts are about
#pragma unroll
    for (int j = 0; j < N; j++)
        v[j] = tile[smk_tile_offset(tl, Map::load_row(tx, ty, j), Map::load_col(tx, ty, j))];
    // 4. output row = input column c0 + ty + j*ROWS, output column = input row r0 + tx (lane)
    T *dst = out + (c0 + ty) * rows + (r0 + tx);
    const int64_t dst_step = ROWS * rows;
    if (full) {
#pragma unroll
        for (int j = 0; j < N; j++)
            dst[j * dst_step] = v[j];
    } else {
#pragma unroll
        for (int j = 0; j < N; j++)
            if (c0 + ty + j * ROWS < cols && r0 + tx < rows)
                dst[j * dst_step] = v[j];
    }
}

/* One signature for every (layout, element size, shape) instance: one table drives the dispatch. */
typedef void (*launch_fn)(dim3 grid, dim3 block, cudaStream_t stream, const void *in, void *out,
                          int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int64_t tiles_x);

template <int L, typename T, int TILE, int ROWS>
void launch_one(dim3 grid, dim3 block, cudaStream_t stream, const void *in, void *out, int64_t rows,
                int64_t cols, int64_t in_rs, int64_t in_cs, int64_t tiles_x)
{
    transpose_kernel<L, T, TILE, ROWS><<<grid, block, 0, stream>>>(
        static_cast<const T *>(in), static_cast<T *>(out), rows, cols, in_rs, in_cs, tiles_x);
}

struct Variant {
    int tile, rows;
    launch_fn fn[SMK_NUM_LAYOUTS][2]; /* [layout][esz == 8] */
};

#define SMK_LAUNCHERS(L, TILE, ROWS) {launch_one<L, uint32_t, TILE, ROWS>, launch_one<L, uint64_t, TILE, ROWS>}
#define SMK_VARIANT(TILE, ROWS)                                                                       \
    {TILE, ROWS,                                                                                      \
     {SMK_LAUNCHERS(SMK_NAIVE, TILE, ROWS), SMK_LAUNCHERS(SMK_PAD, TILE, ROWS),                         \
      SMK_LAUNCHERS(SMK_SWIZZLE, TILE, ROWS)}}

/* Variant 0 is what smk_transpose_launch ships; the others exist for the benchmark's tile sweep.
 * 64x64 tiles with 64x8 threads (8 elements per thread) won on an H200 (2026-11-22, 8192^2 fp32):
 * pad 95.0% / swizzle 93.9% of cudaMemcpy D2D, against 85% / 83% for the classic 32x32 / 32x8. */
constexpr int kShippedTile = 64, kShippedRows = 8;
const Variant kVariants[] = {
    SMK_VARIANT(kShippedTile, kShippedRows),
    SMK_VARIANT(32, 8),
    SMK_VARIANT(64, 16),
    SMK_VARIANT(32, 4),
};
constexpr int kNumVariants = sizeof(kVariants) / sizeof(kVariants[0]);

} // namespace

/* Host replay of one block's shared-memory instructions (see runtime.h). */
template <int TILE, int ROWS>
void transpose_block_plan(int layout, int esz, smk_plan *plan)
{
    using Map = TransposeMap<ROWS>;
    const smk_tile tl = {layout, smk_ilog2(TILE), 0, smk_ilog2(esz)};
    constexpr int N = TILE / ROWS, WARPS = TILE * ROWS / 32;
    for (int a = 0; a < 2; a++) {
        smk_access *acc = &plan->acc[a];
        acc->name = a == 0 ? "tile row store" : "tile column load";
        acc->width = esz;
        acc->is_store = a == 0;
        acc->n_instr = WARPS * N;
        if (!acc->addr)
            continue;
        for (int w = 0; w < WARPS; w++)
            for (int j = 0; j < N; j++)
                for (int lane = 0; lane < 32; lane++) {
                    const int tid = w * 32 + lane, tx = tid % TILE, ty = tid / TILE;
                    const int r = a == 0 ? Map::store_row(tx, ty, j) : Map::load_row(tx, ty, j);
                    const int c = a == 0 ? Map::store_col(tx, ty, j) : Map::load_col(tx, ty, j);
                    acc->addr[(w * N + j) * 32 + lane] = (long long)smk_tile_offset(tl, r, c) * esz;
                }
    }
    plan->n = 2;
    plan->threads = TILE * ROWS;
    plan->smem_bytes = smk_tile_elems(tl, TILE) * esz;
}

extern "C" int smk_transpose_supports(int esz) { return esz == 4 || esz == 8; }

extern "C" int smk_transpose_launch_variant(const smk_transpose_params *p, int variant,
                                             cudaStream_t stream)
{
    if (p && p->batch > 1) { /* one launch per matrix (for now) */
        smk_transpose_params q = *p;
        q.batch = 1;
        for (int64_t b = 0; b < p->batch; b++) {
            q.in = (const char *)p->in + b * p->in_bs * p->esz;
            q.out = (char *)p->out + b * p->rows * p->cols * p->esz;
            const int e = smk_transpose_launch_variant(&q, variant, stream);
            if (e != cudaSuccess) return e;
        }
        return cudaSuccess;
    }
    if (!p || variant < 0 || variant >= kNumVariants || p->layout < 0 || p->layout >= SMK_NUM_LAYOUTS ||
        (p->esz != 4 && p->esz != 8) || p->rows < 0 || p->cols < 0)
        return cudaErrorInvalidValue;
    if (p->rows == 0 || p->cols == 0)
        return cudaSuccess;
    const Variant &v = kVariants[variant];
    const int64_t tiles_x = (p->cols + v.tile - 1) / v.tile;
    const int64_t tiles_y = (p->rows + v.tile - 1) / v.tile;
    if (tiles_x > INT32_MAX / tiles_y)
        return cudaErrorInvalidConfiguration; /* more blocks than a 1-D grid holds */
    v.fn[p->layout][p->esz == 8](dim3((unsigned)(tiles_x * tiles_y)), dim3(v.tile, v.rows), stream,
                                 p->in, p->out, p->rows, p->cols, p->in_rs, p->in_cs, tiles_x);
    return cudaGetLastError();
}

extern "C" int smk_transpose_launch(const smk_transpose_params *p, cudaStream_t stream)
{
    return smk_transpose_launch_variant(p, 0, stream);
}

extern "C" int smk_transpose_num_variants(void) { return kNumVariants; }

extern "C" void smk_transpose_variant_geometry(int variant, int *tile, int *block_rows)
{
    if (variant < 0 || variant >= kNumVariants)
        variant = 0;
    *tile = kVariants[variant].tile;
    *block_rows = kVariants[variant].rows;
}

extern "C" int smk_transpose_plan(int64_t rows, int64_t cols, int esz, int layout, smk_plan *plan)
{
    if (!plan || rows < 0 || cols < 0 || (esz != 4 && esz != 8) || layout < 0 || layout >= SMK_NUM_LAYOUTS)
        return -1;
    const Variant &v = kVariants[0];
    transpose_block_plan<kShippedTile, kShippedRows>(layout, esz, plan);
    plan->blocks = ((rows + v.tile - 1) / v.tile) * ((cols + v.tile - 1) / v.tile);
    for (int a = 0; a < plan->n; a++)
        plan->acc[a].repeats = plan->blocks;
    snprintf(plan->config, sizeof plan->config, "%dx%d tile, %dx%d threads, %d-byte elements", v.tile, v.tile,
             v.tile, v.rows, esz);
    return 0;
}
