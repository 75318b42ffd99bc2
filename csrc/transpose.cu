/*
 * transpose.cu -- one tiled transpose kernel, templated on the shared-memory layout, for elements of
 * 1, 2, 4, 8 and 16 bytes and for batches of matrices (one launch).
 *
 * THE UNIT.  A thread moves "units".  For 4-, 8- and 16-byte elements a unit is one element and the
 * shared tile holds elements (uint32 / uint64 / uint4).  For 1- and 2-byte elements a unit is a
 * 4x4 block of bytes or a 2x2 block of halves: the thread loads it as 4 (2) 32-bit words -- one per
 * element row --, transposes it in registers with byte permutes (__byte_perm = PRMT: 8 for 4x4 bytes,
 * 2 for 2x2 halves), so that word k now holds element COLUMN k = output row k, and parks word k in
 * shared "plane" k.  Every plane is a TILE x TILE tile of 32-bit words with the layout's map, so the
 * shared memory is read and written in whole words only and the sub-word kernels are, bank for bank,
 * the 4-byte kernel run P = 4 (2) times.  The global side stays coalesced: a warp reads 32 words of
 * one input row (128 bytes) and writes 32 words of one output row.
 *
 * A block moves one tile of TILE x TILE units: it reads the input with coalesced loads (lane = unit
 * column), parks the units in shared memory (row store), and writes the output with coalesced stores
 * (lane = input unit row).  The second step reads the tile down a COLUMN: lane i reads unit (i, c).
 * That column read is the access the layouts are about.  With w = bytes per shared access (4 for the
 * 1-, 2- and 4-byte kernels, 8, 16) and a phase = 128 / w lanes (32 / 16 / 8) that one wavefront can
 * serve when their w-byte slots of one 128-byte bank row are distinct:
 *
 *   naive    offset = i*TILE + c          byte i*TILE*w + c*w: TILE*w is a multiple of 128, so every
 *                                         lane of a phase hits the same slot in a different bank row
 *                                         -> 32 wavefronts per instruction for every w (32 lanes x 1,
 *                                         2 half-warps x 16, 4 quarter-warps x 8)
 *   pad      offset = i*(TILE+1) + c      row pitch TILE*w + w: lane i sits i*w bytes further along the
 *                                         bank row, so the 128/w lanes of a phase take 128/w distinct
 *                                         slots -> 1 wavefront per phase: 1 / 2 / 4 for w = 4 / 8 / 16
 *   swizzle  offset = i*TILE + (c ^ (i mod 2^B))   Swizzle<B,0,log2 TILE>, B = log2(128 / w) = 5 / 4 / 3
 *                                         (layout.h's automatic choice): XOR with the distinct
 *                                         i mod 2^B of one phase is a bijection of its 2^B slots ->
 *                                         1 wavefront per phase, no extra storage; for w = 16 every
 *                                         16-byte element stays whole (M = 0 on 16-byte elements)
 *
 * The row store (lane = c) is conflict-free in all three: a row is contiguous (naive, pad) or a
 * permutation of contiguous slots (swizzle), so a phase covers its slots once: 1 / 2 / 4 wavefronts.
 * All of it is proved on the CPU by the bank model and the tests, from the same smk_tile_offset()
 * used here (smk_transpose_plan replays this kernel's thread map), and measured with Nsight Compute
 * (bench/ncu_kernels.sh + bench/compare_ncu.py).
 *
 * Everything else (tile, threads, units per thread, bounds handling) is shared by construction: the
 * layout is one template argument.  Interior tiles of suitably aligned inputs take whole-word (whole
 * element) global accesses; interior tiles of 1- and 2-byte rows that do not start on a 4-byte
 * boundary (odd pitches, bases, matrix strides) still take whole aligned words, re-aligned in registers
 * (see "odd pitches"); edge tiles and non-unit column strides take a per-element predicated path that
 * still assembles whole words before touching shared memory.  Shared memory sees the same accesses
 * on every path.
 * Indexing is 64-bit.  Grid: x = tile of the matrix, y + 65535 z = matrix of the batch.
 */
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#include "layout.h"
#include "api/transpose.h"

namespace {

constexpr int kMaxGridYZ = 65535;

/* Which logical tile unit thread (tx, ty) moves in its j-th step, for the row store and the column
 * read.  Shared by the kernel and smk_transpose_plan (the bank model replays these). */
template <int ROWS>
struct TransposeMap {
    SMK_HD static int store_row(int tx, int ty, int j) { return (void)tx, ty + j * ROWS; }
    SMK_HD static int store_col(int tx, int ty, int j) { return (void)ty, (void)j, tx; }
    SMK_HD static int load_row(int tx, int ty, int j) { return (void)ty, (void)j, tx; }
    SMK_HD static int load_col(int tx, int ty, int j) { return (void)tx, ty + j * ROWS; }
};

/* How an element size is moved.  E: unit edge in elements; P: words (shared planes) per unit; W: the
 * word a plane holds (also the unit's global access); T: the element as an unsigned integer. */
template <int ESZ> struct Unit;
template <> struct Unit<1> { static constexpr int E = 4, P = 4; typedef uint32_t W; typedef uint8_t T; };
template <> struct Unit<2> { static constexpr int E = 2, P = 2; typedef uint32_t W; typedef uint16_t T; };
template <> struct Unit<4> { static constexpr int E = 1, P = 1; typedef uint32_t W; typedef uint32_t T; };
template <> struct Unit<8> { static constexpr int E = 1, P = 1; typedef uint64_t W; typedef uint64_t T; };
template <> struct Unit<16> { static constexpr int E = 1, P = 1; typedef uint4 W; typedef uint4 T; };

/* PRMT: byte i of the result is byte s_i of the 8-byte value (y:x), s_i = nibble i of s. */
__device__ __forceinline__ uint32_t prmt(uint32_t x, uint32_t y, uint32_t s) { return __byte_perm(x, y, s); }

/* In-register transpose of one unit: on entry w[k] = element row k, on exit w[k] = element column k
 * (little endian: element e of a word is its bytes [e*ESZ, (e+1)*ESZ)). */
template <int ESZ>
__device__ __forceinline__ void transpose_unit(typename Unit<ESZ>::W (&w)[Unit<ESZ>::P])
{
    if constexpr (ESZ == 2) {            // [a b] [c d] -> [a c] [b d]
        const uint32_t x = w[0], y = w[1];
        w[0] = prmt(x, y, 0x5410);
        w[1] = prmt(x, y, 0x7632);
    } else if constexpr (ESZ == 1) {     // 4x4 bytes: interleave byte pairs, then half pairs
        const uint32_t a = prmt(w[0], w[1], 0x5140), b = prmt(w[0], w[1], 0x7362); // a0 b0 a1 b1 | a2 b2 a3 b3
        const uint32_t c = prmt(w[2], w[3], 0x5140), d = prmt(w[2], w[3], 0x7362); // c0 d0 c1 d1 | c2 d2 c3 d3
        w[0] = prmt(a, c, 0x5410);       // a0 b0 c0 d0
        w[1] = prmt(a, c, 0x7632);       // a1 b1 c1 d1
        w[2] = prmt(b, d, 0x5410);       // a2 b2 c2 d2
        w[3] = prmt(b, d, 0x7632);       // a3 b3 c3 d3
    } else {
        (void)w;
    }
}

/* One element at p: as T when aligned, else byte by byte (unaligned device views). */
template <int ESZ>
__device__ __forceinline__ typename Unit<ESZ>::T load_elem(const unsigned char *p, bool aligned)
{
    typedef typename Unit<ESZ>::T T;
    if (aligned)
        return *reinterpret_cast<const T *>(p);
    union { T t; unsigned char b[ESZ]; } u;
#pragma unroll
    for (int i = 0; i < ESZ; i++)
        u.b[i] = p[i];
    return u.t;
}

template <int ESZ>
__device__ __forceinline__ void store_elem(unsigned char *p, typename Unit<ESZ>::T v, bool aligned)
{
    typedef typename Unit<ESZ>::T T;
    if (aligned) {
        *reinterpret_cast<T *>(p) = v;
        return;
    }
    union { T t; unsigned char b[ESZ]; } u;
    u.t = v;
#pragma unroll
    for (int i = 0; i < ESZ; i++)
        p[i] = u.b[i];
}

/* Element e of a word (sub-word units) or the word itself. */
template <int ESZ>
__device__ __forceinline__ typename Unit<ESZ>::T word_elem(typename Unit<ESZ>::W w, int e)
{
    if constexpr (ESZ < 4)
        return (typename Unit<ESZ>::T)(w >> (8 * ESZ * e));
    else
        return (void)e, w;
}

/* ---- odd pitches: whole-word global accesses for rows that do not start on a word ---------------
 * A warp's 32 lanes touch 128 consecutive bytes of one row, lane i the 4 bytes at p + 4i (its unit's
 * word).  When p is not a multiple of 4 (s = p mod 4 != 0: a row pitch, matrix stride or base that is
 * not a multiple of 4 bytes) those bytes straddle two aligned words.  Loads: lane i reads the aligned
 * word under its first byte, takes the next one from lane i+1 (__shfl_down_sync; lane 31 reads it
 * itself) and re-aligns with one funnel shift (SHF).  Stores: lane i assembles aligned word i from its
 * own bytes and lane i-1's (__shfl_up_sync, funnel shift) and stores it whole; the two partial words
 * at the ends of the warp's 128 bytes, which share a word with a neighbour (another block, or the
 * other warp of a 2-byte tile row), are written as a byte + a half store of exactly the warp's own
 * bytes, so no word is written by two warps.  Nothing outside the operand's bytes is read: the
 * partial word before a row's first byte and after its last one is read piecewise too.  Shared
 * memory is untouched by all of this: the units arrive in registers exactly as on the aligned path. */

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

/* Everything one launch needs (a plain struct by value: fast-hadamard-transform style). */
struct Args {
    const unsigned char *in;
    unsigned char *out;
    int64_t rows, cols;      // of one matrix, in elements
    int64_t in_rs, in_cs;    // element strides
    int64_t in_bs;           // element stride between input matrices
    int64_t batch;
    int64_t tiles_x;         // tiles per row of tiles
    int in_vec, out_vec;     // whole-word global access allowed (alignment, unit column stride)
    int in_odd, out_odd;     // sub-word, rows not on words: whole words re-aligned in registers
    int in_al, out_al;       // elements naturally aligned (else byte-wise)
};

/* tparams:
 *   L      smk_layout of the shared tile (planes)
 *   ESZ    element size in bytes (elements move bitwise)
 *   TILE   tile edge in units (power of two, a multiple of 32: a warp reads 32 units of one row)
 *   ROWS   thread rows per block: blockDim = (TILE, ROWS), each thread moves TILE/ROWS units */
template <int L, int ESZ, int TILE, int ROWS>
__global__ void __launch_bounds__(TILE * ROWS) transpose_kernel(const Args a)
{
    typedef Unit<ESZ> U;
    typedef typename U::W W;
    static_assert(TILE % 32 == 0 && (TILE & (TILE - 1)) == 0, "TILE: a power-of-two multiple of a warp");
    static_assert(TILE % ROWS == 0, "each thread moves a whole number of units");
    constexpr int E = U::E, P = U::P, N = TILE / ROWS; // N: units per thread
    constexpr int TE = TILE * E;                       // tile edge in elements
    constexpr smk_tile tl = {L, smk_ilog2(TILE), 0, smk_ilog2((int)sizeof(W))};
    constexpr int PLANE = smk_tile_elems(tl, TILE);    // words per plane
    extern __shared__ __align__(16) unsigned char smem[];
    W *tile = reinterpret_cast<W *>(smem);

    const int64_t b = (int64_t)blockIdx.z * kMaxGridYZ + blockIdx.y; // matrix [0, batch)
    if (b >= a.batch)
        return; // the last z slice of a batch > 65535 (uniform per block, before any barrier)
    const int64_t ty_tile = blockIdx.x / a.tiles_x;        // tile row    [0, ceil(rows/TE))
    const int64_t tx_tile = blockIdx.x - ty_tile * a.tiles_x; // tile column [0, ceil(cols/TE))
    const int tx = threadIdx.x;                            // [0, TILE)
    const int ty = threadIdx.y;                            // [0, ROWS)
    const int64_t r0 = ty_tile * TE, c0 = tx_tile * TE;
    const int64_t rows = a.rows, cols = a.cols;
    const unsigned char *in = a.in + b * a.in_bs * ESZ;
    unsigned char *out = a.out + b * rows * cols * ESZ;
    // interior tiles (all but the last row/column of tiles) need no bounds checks; the test is
    // uniform across the block, so there is no divergence
    const bool full = r0 + TE <= rows && c0 + TE <= cols;

    // 1. all N*P global loads issued back to back, lane = unit column; w[j][k] = element row k of unit
    //    (ty + j*ROWS, tx)
    W w[N][P];
    if (full && a.in_vec) {
        const unsigned char *src = in + ((r0 + (int64_t)ty * E) * a.in_rs + (c0 + (int64_t)tx * E) * a.in_cs) * ESZ;
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++)
                w[j][k] = *reinterpret_cast<const W *>(src + ((int64_t)(j * ROWS * E + k) * a.in_rs) * ESZ);
    } else if (E > 1 && full && a.in_odd) {
        if constexpr (E > 1) {
            // rows whose bytes do not start on a word (see "odd pitches"): every load first, then the
            // shuffles and shifts
            const int lane = tx & 31;
            const int64_t rs = a.in_rs * ESZ; // row pitch in bytes (any sign)
            const unsigned char *row = in + (r0 + (int64_t)ty * E) * rs;
            const int64_t col = (c0 + (int64_t)tx * E) * ESZ; // the lane's byte in the row
            const int64_t row_bytes = cols * ESZ;
            W ex[N][P]; // lane 31: the word after the warp's last one
#pragma unroll
            for (int j = 0; j < N; j++)
#pragma unroll
                for (int k = 0; k < P; k++) {
                    const unsigned char *rp = row + (int64_t)(j * ROWS * E + k) * rs; // row start
                    const unsigned char *p = rp + col;
                    const int s = (int)((uintptr_t)p & 3);
                    const unsigned char *q = p - s; // aligned word under the lane's first byte
                    // only lane 0 of a tile at column 0 can reach before the row's first byte
                    w[j][k] = q >= rp ? *reinterpret_cast<const W *>(q) : load_piece(p, 4 - s) << (8 * s);
                    ex[j][k] = 0;
                    if (lane == 31 && s != 0) // its first s bytes are the warp's; past the row's end, only those
                        ex[j][k] = q + 8 <= rp + row_bytes ? *reinterpret_cast<const W *>(q + 4) : load_piece(q + 4, s);
                }
#pragma unroll
            for (int j = 0; j < N; j++)
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
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int64_t r = r0 + (int64_t)(ty + j * ROWS) * E + k;
                if constexpr (E == 1) {
                    const int64_t c = c0 + tx;
                    w[j][k] = W{};
                    if (r < rows && c < cols)
                        w[j][k] = load_elem<ESZ>(in + (r * a.in_rs + c * a.in_cs) * ESZ, a.in_al);
                } else {
                    W x = 0;
#pragma unroll
                    for (int e = 0; e < E; e++) {
                        const int64_t c = c0 + (int64_t)tx * E + e;
                        if (r < rows && c < cols)
                            x |= (W)load_elem<ESZ>(in + (r * a.in_rs + c * a.in_cs) * ESZ, a.in_al) << (8 * ESZ * e);
                    }
                    w[j][k] = x;
                }
            }
    }
    // 2. transpose each unit in registers (sub-word only): w[j][k] = element column k of the unit
#pragma unroll
    for (int j = 0; j < N; j++)
        transpose_unit<ESZ>(w[j]);
    // 3. row store into the planes: logical unit (ty + j*ROWS, tx); out-of-range units hold zeros that
    //    step 5 never writes out
    typedef TransposeMap<ROWS> Map;
#pragma unroll
    for (int j = 0; j < N; j++)
#pragma unroll
        for (int k = 0; k < P; k++)
            tile[k * PLANE + smk_tile_offset(tl, Map::store_row(tx, ty, j), Map::store_col(tx, ty, j))] = w[j][k];
    __syncthreads();
    // 4. column read of the planes: logical unit (tx, ty + j*ROWS) -- the access the layouts are about
#pragma unroll
    for (int j = 0; j < N; j++)
#pragma unroll
        for (int k = 0; k < P; k++)
            w[j][k] = tile[k * PLANE + smk_tile_offset(tl, Map::load_row(tx, ty, j), Map::load_col(tx, ty, j))];
    // 5. word k of unit j is output row c0 + (ty + j*ROWS)*E + k, output columns r0 + tx*E + [0, E)
    if (full && a.out_vec) {
        unsigned char *dst = out + ((c0 + (int64_t)ty * E) * rows + r0 + (int64_t)tx * E) * ESZ;
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++)
                *reinterpret_cast<W *>(dst + (int64_t)(j * ROWS * E + k) * rows * ESZ) = w[j][k];
    } else if (E > 1 && full && a.out_odd) {
        if constexpr (E > 1) {
            // output rows whose bytes do not start on a word (see "odd pitches"): lane i stores aligned
            // word i of its warp's bytes, lanes 0 and 31 the partial words at the ends
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
                    // aligned word i: the last s bytes of lane i-1, then the first 4 - s of lane i
                    if (s == 0 || lane != 0)
                        *reinterpret_cast<W *>(p - s) = __funnelshift_l(prev, v, 8 * s);
                    // the partial words: lane 0's first 4 - s bytes, lane 31's last s (one byte + one
                    // half store for both lanes at once)
                    if (s != 0 && (lane == 0 || lane == 31)) {
                        const bool first = lane == 0;
                        store_piece(first ? p : p - s + 4, first ? 4 - s : s, first ? v : v >> (32 - 8 * s));
                    }
                }
        }
    } else {
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int64_t orow = c0 + (int64_t)(ty + j * ROWS) * E + k;
#pragma unroll
                for (int e = 0; e < E; e++) {
                    const int64_t ocol = r0 + (int64_t)tx * E + e;
                    if (orow < cols && ocol < rows)
                        store_elem<ESZ>(out + (orow * rows + ocol) * ESZ, word_elem<ESZ>(w[j][k], e), a.out_al);
                }
            }
    }
}

/* Shared bytes of one block. */
template <int ESZ, int TILE>
constexpr int smem_bytes(int layout)
{
    typedef Unit<ESZ> U;
    return U::P * smk_tile_elems(smk_tile{layout, smk_ilog2(TILE), 0, smk_ilog2((int)sizeof(typename U::W))}, TILE) *
           (int)sizeof(typename U::W);
}

/* One signature for every (layout, element size, shape) instance: one table drives the dispatch. */
typedef cudaError_t (*launch_fn)(dim3 grid, cudaStream_t stream, const Args &a);

template <int L, int ESZ, int TILE, int ROWS>
cudaError_t launch_one(dim3 grid, cudaStream_t stream, const Args &a)
{
    constexpr int bytes = smem_bytes<ESZ, TILE>(L);
    static_assert(bytes <= 227 * 1024, "the tile must fit one SM's shared memory");
    auto *k = transpose_kernel<L, ESZ, TILE, ROWS>;
    if (bytes > 48 * 1024) { // opt in (per device; cheap, and correct after a device switch)
        cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        if (e != cudaSuccess)
            return e;
    }
    k<<<grid, dim3(TILE, ROWS), bytes, stream>>>(a);
    return cudaGetLastError();
}

/* Host replay of one block's shared-memory instructions (see runtime.h), in the kernel's order. */
template <int ESZ, int TILE, int ROWS>
void block_plan(int layout, smk_plan *plan)
{
    typedef Unit<ESZ> U;
    typedef TransposeMap<ROWS> Map;
    constexpr int N = TILE / ROWS, WARPS = TILE * ROWS / 32, P = U::P, w = (int)sizeof(typename U::W);
    const smk_tile tl = {layout, smk_ilog2(TILE), 0, smk_ilog2(w)};
    const int plane = smk_tile_elems(tl, TILE);
    for (int a = 0; a < 2; a++) {
        smk_access *acc = &plan->acc[a];
        acc->name = a == 0 ? "tile row store" : "tile column load";
        acc->width = w;
        acc->is_store = a == 0;
        acc->n_instr = WARPS * N * P;
        if (!acc->addr)
            continue;
        for (int wp = 0; wp < WARPS; wp++)
            for (int j = 0; j < N; j++)
                for (int k = 0; k < P; k++)
                    for (int lane = 0; lane < 32; lane++) {
                        const int tid = wp * 32 + lane, tx = tid % TILE, ty = tid / TILE;
                        const int r = a == 0 ? Map::store_row(tx, ty, j) : Map::load_row(tx, ty, j);
                        const int c = a == 0 ? Map::store_col(tx, ty, j) : Map::load_col(tx, ty, j);
                        acc->addr[((wp * N + j) * P + k) * 32 + lane] =
                            (long long)(k * plane + smk_tile_offset(tl, r, c)) * w;
                    }
    }
    plan->n = 2;
    plan->threads = TILE * ROWS;
    plan->smem_bytes = smem_bytes<ESZ, TILE>(layout);
}
typedef void (*plan_fn)(int layout, smk_plan *plan);

constexpr int kNumWidths = 5; // 1, 2, 4, 8, 16 bytes
int width_index(int esz)
{
    switch (esz) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    default: return -1;
    }
}

struct Variant {
    int tile, rows; /* in units */
    launch_fn fn[SMK_NUM_LAYOUTS][kNumWidths];
    plan_fn plan[kNumWidths];
};

#define SMK_WIDTHS(L, TILE, ROWS)                                                                          \
    {launch_one<L, 1, TILE, ROWS>, launch_one<L, 2, TILE, ROWS>, launch_one<L, 4, TILE, ROWS>,              \
     launch_one<L, 8, TILE, ROWS>, launch_one<L, 16, TILE, ROWS>}
#define SMK_VARIANT(TILE, ROWS)                                                                            \
    {TILE, ROWS,                                                                                           \
     {SMK_WIDTHS(SMK_NAIVE, TILE, ROWS), SMK_WIDTHS(SMK_PAD, TILE, ROWS), SMK_WIDTHS(SMK_SWIZZLE, TILE, ROWS)}, \
     {block_plan<1, TILE, ROWS>, block_plan<2, TILE, ROWS>, block_plan<4, TILE, ROWS>, block_plan<8, TILE, ROWS>, \
      block_plan<16, TILE, ROWS>}}

/* The tile shapes compiled.  Row 0 is 64x64 units / 64x8 threads, which won for 4 bytes on an H200
 * (2026-11-22, 8192^2 fp32: pad 95.0% / swizzle 93.9% of cudaMemcpy D2D, against 85% / 83% for the
 * classic 32x32 / 32x8); the others exist for the benchmark's sweep and for other widths. */
const Variant kVariants[] = {
    SMK_VARIANT(64, 8),
    SMK_VARIANT(32, 8),
    SMK_VARIANT(64, 16),
    SMK_VARIANT(32, 4),
    SMK_VARIANT(32, 16),
};
constexpr int kNumVariants = sizeof(kVariants) / sizeof(kVariants[0]);

/* Which row of kVariants each width ships (variant 0 of smk_transpose_launch_variant), indexed by
 * width_index.  1 byte: 32x32 units = 128x128 bytes, 16 KB of planes; 2 bytes: 64x64 units =
 * 128x128 halves, 32 KB; 16 bytes: 32x32 elements, 16 KB (64x64 would need 64 KB). */
/* Measured (H100, 2026-11-23, 8192^2, bench/RESULTS.md): pad / swizzle at 94.8 / 93.8% (1 byte),
 * 96.5 / 95.8 (2), 96.3 / 95.9 (4), 97.0 / 96.9 (8), 97.0 / 97.0% (16) of cudaMemcpy D2D; every other
 * compiled shape within about a point or worse. */
const int kShipped[kNumWidths] = {1, 0, 0, 0, 1};

/* Variant 0 = the shipped shape of this width; v >= 1 = row v of kVariants (row 0, the 4- and 8-byte
 * shape, is reached through variant 0 only for the widths that ship it). */
const Variant *resolve(int variant, int wi)
{
    if (variant < 0 || variant >= kNumVariants || wi < 0)
        return nullptr;
    return &kVariants[variant == 0 ? kShipped[wi] : variant];
}

/* Benchmarks and tests: 0 sends odd-pitch sub-word tiles down the element-wise path (the behaviour
 * before the re-aligning path), for a before/after in one run. */
volatile int g_odd_path = 1;

} // namespace

extern "C" void smk_transpose_set_odd_path(int on) { g_odd_path = on != 0; }

extern "C" int smk_transpose_supports(int esz) { return width_index(esz) >= 0; }

extern "C" int smk_transpose_launch_variant(const smk_transpose_params *p, int variant, cudaStream_t stream)
{
    if (!p || p->layout < 0 || p->layout >= SMK_NUM_LAYOUTS || p->rows < 0 || p->cols < 0 || p->batch < 0)
        return cudaErrorInvalidValue;
    const int wi = width_index(p->esz);
    const Variant *v = resolve(variant, wi);
    if (!v)
        return cudaErrorInvalidValue;
    const int64_t batch = p->batch == 0 ? 1 : p->batch; /* 0: a caller that memset the struct */
    if (p->rows == 0 || p->cols == 0)
        return cudaSuccess;
    const int E = p->esz < 4 ? 4 / p->esz : 1;
    const int64_t te = (int64_t)v->tile * E;
    const int64_t tiles_x = (p->cols + te - 1) / te, tiles_y = (p->rows + te - 1) / te;
    const int64_t gz = (batch + kMaxGridYZ - 1) / kMaxGridYZ;
    if (tiles_x > INT32_MAX / tiles_y || gz > kMaxGridYZ)
        return cudaErrorInvalidConfiguration; /* more blocks than the grid holds */
    Args a;
    a.in = static_cast<const unsigned char *>(p->in);
    a.out = static_cast<unsigned char *>(p->out);
    a.rows = p->rows;
    a.cols = p->cols;
    a.in_rs = p->in_rs;
    a.in_cs = p->in_cs;
    a.in_bs = batch > 1 ? p->in_bs : 0;
    a.batch = batch;
    a.tiles_x = tiles_x;
    /* Whole-word access needs every word aligned: the base, and (sub-word) every row and matrix
     * start, with unit column stride.  Element alignment needs the base only (strides are in elements). */
    const uintptr_t ib = (uintptr_t)p->in, ob = (uintptr_t)p->out;
    const int64_t esz = p->esz;
    if (p->esz < 4) {
        a.in_vec = p->in_cs == 1 && ib % 4 == 0 && (p->in_rs * esz) % 4 == 0 && (a.in_bs * esz) % 4 == 0;
        a.out_vec = ob % 4 == 0 && (p->rows * esz) % 4 == 0; /* then rows*cols*esz is too */
    } else {
        a.in_vec = ib % p->esz == 0;
        a.out_vec = ob % p->esz == 0;
    }
    /* Sub-word rows that do not start on a word: whole words re-aligned in registers (any base, pitch
     * and matrix stride; the input's columns must be contiguous). */
    a.in_odd = p->esz < 4 && p->in_cs == 1 && !a.in_vec && g_odd_path;
    a.out_odd = p->esz < 4 && !a.out_vec && g_odd_path;
    a.in_al = ib % p->esz == 0;
    a.out_al = ob % p->esz == 0;
    const dim3 grid((unsigned)(tiles_x * tiles_y), (unsigned)(batch < kMaxGridYZ ? batch : kMaxGridYZ), (unsigned)gz);
    return v->fn[p->layout][wi](grid, stream, a);
}

extern "C" int smk_transpose_launch(const smk_transpose_params *p, cudaStream_t stream)
{
    return smk_transpose_launch_variant(p, 0, stream);
}

extern "C" int smk_transpose_num_variants(void) { return kNumVariants; }

extern "C" void smk_transpose_variant_geometry(int variant, int *tile, int *block_rows)
{
    smk_transpose_variant_geometry_esz(variant, 4, tile, block_rows);
}

extern "C" void smk_transpose_variant_geometry_esz(int variant, int esz, int *tile, int *block_rows)
{
    const Variant *v = resolve(variant, width_index(esz));
    if (!v)
        v = resolve(0, width_index(4));
    *tile = v->tile;
    *block_rows = v->rows;
}

extern "C" int smk_transpose_plan_batched(int64_t batch, int64_t rows, int64_t cols, int esz, int layout,
                                          smk_plan *plan)
{
    const int wi = width_index(esz);
    if (!plan || batch < 0 || rows < 0 || cols < 0 || wi < 0 || layout < 0 || layout >= SMK_NUM_LAYOUTS)
        return -1;
    const Variant *v = resolve(0, wi);
    const int E = esz < 4 ? 4 / esz : 1;
    const int64_t te = (int64_t)v->tile * E;
    v->plan[wi](layout, plan);
    plan->blocks = batch * ((rows + te - 1) / te) * ((cols + te - 1) / te);
    for (int a = 0; a < plan->n; a++)
        plan->acc[a].repeats = plan->blocks;
    if (E == 1)
        snprintf(plan->config, sizeof plan->config, "%dx%d tile, %dx%d threads, %d-byte elements", v->tile, v->tile,
                 v->tile, v->rows, esz);
    else
        snprintf(plan->config, sizeof plan->config, "%dx%d tile of %dx%d %d-byte blocks (%d words), %dx%d threads",
                 v->tile, v->tile, E, E, esz, E, v->tile, v->rows);
    return 0;
}

extern "C" int smk_transpose_plan(int64_t rows, int64_t cols, int esz, int layout, smk_plan *plan)
{
    return smk_transpose_plan_batched(1, rows, cols, esz, layout, plan);
}
