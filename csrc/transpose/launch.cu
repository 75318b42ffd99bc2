/*
 * transpose/launch.cu -- the transpose family's launcher: the C launch API's knobs and untuned launch
 * (smk_transpose_*, api/transpose.h; smk_transpose_launch_knobs, api/transpose_tune.h -- the API's entry,
 * smk_transpose_launch_variant, is tune.cu's, which picks the sector and flat levels where it measured them),
 * argument preparation (alignment and odd-pitch tests, grid), and the dispatch table of every
 * (config, layout, width) kernel, generated from configs.h; the path (tiled or skinny) is configs.h's
 * choose(), by shape and strides.  Returns cudaError_t, never exits, allocates nothing.
 */
#include <cstdint>
#include <utility>
#include <cuda_runtime.h>

#include "common/launch.h"
#include "api/transpose.h"
#include "api/transpose_tune.h" /* smk_transpose_launch_knobs */
#include "transpose/configs.h"
#include "transpose/copy.cuh"
#include "transpose/kernel.cuh"
#include "transpose/sector_kernel.cuh"
#include "transpose/gather.cuh"
#include "transpose/skinny.cuh"
#include "transpose/skinny_flat.cuh"
#include "transpose/skinny_ilv.h"
#include "transpose/skinny_lean.cuh"
#include "transpose/skinny_prmt.cuh"
#include "transpose/skinny_strip.cuh"
#include "transpose/skinny_strip_b.cuh"
#include "transpose/skinny_vec.cuh"

namespace {

/* The two knobs the measured choice (tune.cu) varies per call, resolved: the sector store's mode and the flat
 * skinny kernel's (g_sector_mode, g_flat_mode below, or a candidate's levels). */
struct Knobs {
    int sector, flat;
};

/* One signature for every (config, layout, width) instance: one table drives the dispatch.  Each kind
 * sizes its own grid and arguments. */
typedef cudaError_t (*launch_fn)(const smk_transpose_params *p, int64_t batch, Knobs k, cudaStream_t stream);

template <int L, int ESZ, int TILE, int ROWS, bool SEC = false, int MID = 0>
cudaError_t launch_tiled(dim3 grid, cudaStream_t stream, const Args &a)
{
    constexpr int bytes = tile_bytes<ESZ, TILE>(L, SEC ? TILE + ROWS : TILE); // SEC: the band's unit rows
    static_assert(bytes <= 227 * 1024, "the tile must fit one SM's shared memory");
    // over 48 KB: the 64-unit tiles of 1 and 16 bytes (64 KB of planes and more)
    const int e = smk::smem_optin<transpose_kernel<L, ESZ, TILE, ROWS, SEC, MID>>(bytes);
    if (e != 0)
        return (cudaError_t)e;
    transpose_kernel<L, ESZ, TILE, ROWS, SEC, MID><<<grid, dim3(TILE, ROWS), bytes, stream>>>(a);
    return cudaGetLastError();
}

/* The sector store's own kernel (sector_kernel.cuh; configs.h's sector_split): the tile and band of
 * transpose_kernel<.., SEC = true>, the same shared bytes. */
template <int L, int ESZ, int TILE, int ROWS>
cudaError_t launch_sector(dim3 grid, cudaStream_t stream, const Args &a)
{
    constexpr int bytes = tile_bytes<ESZ, TILE>(L, TILE + ROWS);
    const int e = smk::smem_optin<transpose_sector_kernel<L, ESZ, TILE, ROWS>>(bytes);
    if (e != 0)
        return (cudaError_t)e;
    transpose_sector_kernel<L, ESZ, TILE, ROWS><<<grid, dim3(TILE, ROWS), bytes, stream>>>(a);
    return cudaGetLastError();
}

/* Benchmarks and tests: 0 sends odd-pitch sub-word tiles down the element-wise path (the behaviour
 * before the re-aligning path), for a before/after in one run. */
constexpr int kOddPathDefault = 1;
volatile int g_odd_path = kOddPathDefault;

/* Benchmarks and tests: the skinny paths (configs.h's choose, skinny_cap): 3 skinny_prmt.cuh for the shapes of
 * skinny_prmt_fits, else the word-wise skinny kernel for 1- and 2-byte elements, short sides up to 64 (H100, the
 * acceptance's timing, same-run A/B against 2 on fresh seeds: 62 all draws 0.732 -> 0.774, uint8 0.489 -> 0.575; 63 0.793
 * -> 0.815, min 0.290 -> 0.346: docs/TRANSPOSE_NOTES.md); 2 the word-wise skinny kernel alone there; 1 skinny.cuh alone
 * (short sides up to 32, 16 for 16 bytes); 0 the tiled kernel always; 4 as 3 and skinny_prmt.cuh for the short sides
 * 65..256 of configs.h's skinny_wide_fits (session 38: slower, opt-in); 5 as 3 and skinny_prmt_a_kernel for every rows <=
 * cols of skinny_vec's class (skinny_narrow_a_fits; session 40); 6 as 4 for short sides 65..128 only; 7 (session 41's
 * default) 6 for 2-byte elements with rows > cols only (skinny_wide_fits); 8 as 7 and case A of skinny_vec's class on
 * skinny_lean.cuh (skinny_lean_a_fits; session 43's default: seed 186, x1.36); 9 as 8 where 7 runs skinny_vec only; 10
 * (session 44) as 8 and skinny_strip.cuh (skinny_strip_fits); 11 (session 44's default) 10 with uint8 S <= 84 (seed 198
 * held out, p10 0.595 -> 0.634 of a copy at 10); 12 as 11 and skinny_strip_b.cuh (skinny_strip_b_fits: case B, S =
 * 17..64); 13 (session 54's) 11 with 2-byte case B of S = 65..128 tiled (skinny_wide_fits); 14 (session 58's) 13 and case
 * A of S <= 16 on ilv.cu (skinny_ilv_fits, skinny_ilv.h); 15 (session 61) 14 and 2-byte case A of S = 65..84 and
 * 129..144 on skinny_strip.cuh (skinny_strip_fits); 16 (the default since session 61) 15 and case B of S = 2..4 / 2..8
 * (uint8 / fp16) on ilv.cu's de-interleave (skinny_dlv_fits). */
constexpr int kSkinnyDefault = 16;
volatile int g_skinny_mode = kSkinnyDefault;

/* The tiled kernel's raster (global.cuh tile_place; configs.h raster_group): G > 0 groups of G tile rows walked column
 * by column (8 the default until session 52: H100, seed 41 all draws 0.782 -> 0.822 of a copy against row-major; held
 * out 42 / 43 0.783 / 0.781 -> 0.791 / 0.795); 0 row-major; -1, the default since session 52, by shape. */
constexpr int kGroupDefault = -1;
volatile int g_raster_group = kGroupDefault;

/* The sector store (sector.cuh; configs.h's sector_fits): 4, the default since session 50, its size gate (a single
 * uint8 or float32 matrix, both sides and the call big enough); 3 uint8 alone (the default before); 0 never, 1 4-byte
 * elements with an output pitch of at least kSectorMinPitch, 2 every width at every pitch (tests, A/B); 5 mode 3's gate
 * for uint8 and float16 on sector_kernel.cuh's kernel, 6 that and batches (session 39, A/B), 7 as 2 with it (tests). */
constexpr int kSectorDefault = 4;
volatile int g_sector_mode = kSectorDefault;

/* Edge words (configs.h's mid_fits; transpose_kernel's MID): 1 the sub-word shipped tiles' edge tiles move clipped whole
 * words; 2, the default since session 43, the lean paths (lean.cuh) for their odd-pitch interior and edge tiles (seed 189,
 * H100: all draws 0.814 -> 0.863 of a copy, p10 0.556 -> 0.618, min 0.348 -> 0.462); 0 element by element. */
constexpr int kMidDefault = 2;
volatile int g_mid_mode = kMidDefault;

/* Edge tiles moved inward (configs.h edge_shift_bits): 0, the default, none; 1 sub-word tiled launches; 2 every width. */
constexpr int kShiftDefault = 0;
volatile int g_shift_mode = kShiftDefault;

/* The copy route (configs.h's copy_fits, copy.cuh): 2, the default since session 44, every width; 1 1- and 2-byte
 * elements; 0 never (H100, seed 195: the 11 vector draws 0.927 -> 1.077 of a copy, min 0.569 -> 0.887). */
constexpr int kCopyDefault = 2;
volatile int g_copy_mode = kCopyDefault;

/* The flat skinny kernel (skinny_flat.cuh; skinny_flat_fits): 1, the default since session 50, 4- and 8-byte matrices
 * with rows = 33..64 <= cols; 2 (A/B) both cases and short sides to 128; 0 never. */
constexpr int kFlatDefault = 1;
volatile int g_flat_mode = kFlatDefault;

/* The gather kernel (gather.cuh; configs.h gather_fits): 3, the default since session 53, the shipped tiled launches of
 * 1- / 2-byte matrices with packed rows, a pitch off words and output rows of >= 1024 bytes (H200, held out on seeds
 * 262-263: the 75 draws it moves x1.146 against the tiled kernel, all draws 0.834 -> 0.854 and 0.863 -> 0.870 of a
 * copy: docs/TRANSPOSE_NOTES.md); 2 every pitch off words; 1 every packed-row matrix; 0 never.  The tens pick the
 * tile's rows (configs.h gather_tile_rows): 0 by the call's bytes (session 55), 1 256, 2 128. */
constexpr int kGatherDefault = 3;
volatile int g_gather_mode = kGatherDefault;

/* The grid of a launch of tx * ty tiles per matrix: x = tile of a matrix, y + 65535 z = matrix.
 * cudaErrorInvalidConfiguration when it does not fit (tiles per matrix > 2^31 - 1, batch > 65535^2). */
cudaError_t grid_tiles(int64_t tx, int64_t ty, int64_t batch, int64_t *tiles_x, dim3 *grid)
{
    const int64_t gz = (batch + kMaxGridYZ - 1) / kMaxGridYZ;
    if (tx > INT32_MAX / ty || gz > kMaxGridYZ)
        return cudaErrorInvalidConfiguration; /* more blocks than the grid holds */
    *tiles_x = tx;
    *grid = dim3((unsigned)(tx * ty), (unsigned)(batch < kMaxGridYZ ? batch : kMaxGridYZ), (unsigned)gz);
    return cudaSuccess;
}

/* The tiled kernel's grid: tiles of TILE x TILE units. */
cudaError_t grid_of(const smk_transpose_params *p, const Config *v, int64_t batch, int64_t *tiles_x, dim3 *grid)
{
    const int64_t te = (int64_t)v->tile * unit_edge(p->esz);
    return grid_tiles((p->cols + te - 1) / te, (p->rows + te - 1) / te, batch, tiles_x, grid);
}

/* The fields every kernel of the family takes (Args, SkinnyArgs): pointers, one matrix's sizes, the
 * element strides, the batch and the tiles per row of tiles. */
template <class A>
void matrix_args(A *a, const smk_transpose_params *p, int64_t batch, int64_t tiles_x)
{
    a->in = static_cast<const unsigned char *>(p->in);
    a->out = static_cast<unsigned char *>(p->out);
    a->rows = p->rows;
    a->cols = p->cols;
    a->in_rs = p->in_rs;
    a->in_cs = p->in_cs;
    a->in_bs = batch > 1 ? p->in_bs : 0;
    a->batch = batch;
    a->tiles_x = tiles_x;
}

/* The kernel's arguments: pointers, sizes, strides, and which global paths the pointers allow. */
Args args_of(const smk_transpose_params *p, int64_t batch, int64_t tiles_x)
{
    Args a;
    matrix_args(&a, p, batch, tiles_x);
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
    a.shift = 0;
    return a;
}

/* The word-wise skinny kernel (skinny_vec.cuh): tiles along the long side, at most 17 KB of shared memory (no opt-in). */
template <int L, int ESZ>
cudaError_t launch_skinny_vec(const smk_transpose_params *p, int64_t batch, cudaStream_t stream)
{
    const int lt = skinny_vec_lt(p->rows, p->cols, ESZ);
    const int64_t len = p->rows <= p->cols ? p->cols : p->rows, tl = (int64_t)1 << lt;
    SkinnyVecArgs a;
    dim3 grid;
    int64_t tiles_x = 0;
    const cudaError_t e = grid_tiles((len + tl - 1) / tl, 1, batch, &tiles_x, &grid);
    if (e != cudaSuccess)
        return e;
    matrix_args(&a, p, batch, tiles_x);
    a.s = (int)(p->rows < p->cols ? p->rows : p->cols);
    a.lt = lt;
    a.runs_in = p->rows <= p->cols;
    skinny_vec_kernel<L, ESZ><<<grid, kVecThreads, skinny_vec_bytes(L, a.s, lt, ESZ), stream>>>(a);
    return cudaGetLastError();
}

/* The word-wise skinny kernels with a register transpose (skinny_prmt.cuh, case B and case A): skinny_vec's
 * tiles and grid, at most 40.7 KB of shared memory but for mode 5's S = 1 (64.6 KB: opted in). */
template <int L, int ESZ>
cudaError_t launch_skinny_prmt(const smk_transpose_params *p, int64_t batch, cudaStream_t stream)
{
    const int lt = skinny_vec_lt(p->rows, p->cols, ESZ);
    const int64_t len = p->rows <= p->cols ? p->cols : p->rows, tl = (int64_t)1 << lt;
    SkinnyVecArgs a;
    dim3 grid;
    int64_t tiles_x = 0;
    const cudaError_t e = grid_tiles((len + tl - 1) / tl, 1, batch, &tiles_x, &grid);
    if (e != cudaSuccess)
        return e;
    matrix_args(&a, p, batch, tiles_x);
    a.s = (int)(p->rows < p->cols ? p->rows : p->cols);
    a.lt = lt;
    a.runs_in = p->rows <= p->cols;
    const int bytes = skinny_prmt_bytes(L, a.s, lt, ESZ, a.runs_in);
    const bool ow = a.runs_in && (a.s * ESZ % 4 == 0 && (uintptr_t)p->out % 4 == 0); // every output row on a word
    skinny_prmt_fargs(&a, L, ESZ, a.runs_in && !ow); // the kernels' F, computed once here
    if (ow)
        skinny_prmt_a_kernel<L, ESZ, true><<<grid, kVecThreads, bytes, stream>>>(a);
    else if (a.runs_in) { // mode 4's wide class and mode 5's narrow one only (launch_skinny)
        const int oe = smk::smem_optin<skinny_prmt_a_kernel<L, ESZ, false>>(bytes); // S = 1: 64.6 KB (mode 5)
        if (oe != 0)
            return (cudaError_t)oe;
        skinny_prmt_a_kernel<L, ESZ, false><<<grid, kVecThreads, bytes, stream>>>(a);
    }
    else
        skinny_prmt_kernel<L, ESZ><<<grid, kVecThreads, bytes, stream>>>(a);
    return cudaGetLastError();
}

/* Case A on the lean kernel (skinny_lean.cuh; configs.h's skinny_lean_a_fits): skinny_vec's tile, grid and
 * shared bytes (at most 17 KB, no opt-in). */
template <int L, int ESZ>
cudaError_t launch_skinny_lean(const smk_transpose_params *p, int64_t batch, cudaStream_t stream)
{
    const int lt = skinny_vec_lt(p->rows, p->cols, ESZ);
    const int64_t tl = (int64_t)1 << lt;
    SkinnyVecArgs a;
    dim3 grid;
    int64_t tiles_x = 0;
    const cudaError_t e = grid_tiles((p->cols + tl - 1) / tl, 1, batch, &tiles_x, &grid);
    if (e != cudaSuccess)
        return e;
    matrix_args(&a, p, batch, tiles_x);
    a.s = (int)p->rows;
    a.lt = lt;
    a.runs_in = 1;
    skinny_lean_a_kernel<L, ESZ><<<grid, kVecThreads, skinny_vec_bytes(L, a.s, lt, ESZ), stream>>>(a);
    return cudaGetLastError();
}

/* Case A as full-height strips (skinny_strip.cuh; configs.h's skinny_strip_fits): 4 << LW bytes of the long side a block
 * (strip_log2_words: 512 for S <= 32, else 256), at most 151 x 260 bytes of shared memory (S = 144 fp16), no opt-in. */
template <int L, int ESZ, int LW>
cudaError_t launch_strip_lw(const smk_transpose_params *p, int64_t batch, cudaStream_t stream)
{
    constexpr int W = (4 << LW) / ESZ, V = 16 / ESZ;
    StripArgs a;
    dim3 grid;
    int64_t tiles_x = 0;
    const cudaError_t e = grid_tiles((p->cols + W - 1) / W, 1, batch, &tiles_x, &grid);
    if (e != cudaSuccess)
        return e;
    matrix_args(&a, p, batch, tiles_x);
    a.s = (int)p->rows;
    a.magic = (uint32_t)((((uint64_t)1 << 32) + (uint64_t)a.s - 1) / (uint64_t)a.s);
    a.dq = V * kStripThreads / a.s;
    a.dr = V * kStripThreads % a.s;
    skinny_strip_kernel<L, ESZ, LW><<<grid, kStripThreads, strip_bytes(L, a.s, ESZ), stream>>>(a);
    return cudaGetLastError();
}

/* Case B as strips of 512 / esz input rows (skinny_strip_b.cuh; configs.h's skinny_strip_b_fits): at most 33.9 KB of
 * shared memory (S = 64, pad), no opt-in. */
template <int L, int ESZ>
cudaError_t launch_skinny_strip_b(const smk_transpose_params *p, int64_t batch, cudaStream_t stream)
{
    constexpr int W = kBStripBytes / ESZ;
    BStripArgs a;
    dim3 grid;
    int64_t tiles_x = 0;
    const cudaError_t e = grid_tiles((p->rows + W - 1) / W, 1, batch, &tiles_x, &grid);
    if (e != cudaSuccess)
        return e;
    matrix_args(&a, p, batch, tiles_x);
    a.s = (int)p->cols;
    a.dh = 64 / a.s;
    a.ds = 64 % a.s;
    skinny_strip_b_kernel<L, ESZ><<<grid, kStripThreads, bstrip_bytes(L, a.s), stream>>>(a);
    return cudaGetLastError();
}

template <int L, int ESZ>
cudaError_t launch_skinny_strip(const smk_transpose_params *p, int64_t batch, cudaStream_t stream)
{
    return strip_log2_words((int)p->rows) == 7 ? launch_strip_lw<L, ESZ, 7>(p, batch, stream)
                                               : launch_strip_lw<L, ESZ, 6>(p, batch, stream);
}

/* skinny_flat_kernel's instance (skinny_flat.cuh): at most 32 KB + a column of pad, no opt-in. */
template <int L, int ESZ, bool A, int LS>
cudaError_t launch_flat_inst(const FlatArgs &a, dim3 grid, cudaStream_t stream)
{
    static_assert((kFlatElems + (kFlatElems >> LS)) * ESZ <= 48 * 1024, "no opt-in");
    skinny_flat_kernel<L, ESZ, A, LS><<<grid, kFlatThreads, flat_bytes(L, LS, ESZ), stream>>>(a);
    return cudaGetLastError();
}

/* The flat skinny kernel (configs.h's skinny_flat_fits): case A (rows <= cols) or B, S' = 64 or 128. */
template <int L, int ESZ>
cudaError_t launch_skinny_flat(const smk_transpose_params *p, int64_t batch, cudaStream_t stream)
{
    const bool case_a = p->rows <= p->cols;
    const int S = (int)(case_a ? p->rows : p->cols), ls = flat_log2_short(S);
    const int64_t len = case_a ? p->cols : p->rows, T = (int64_t)1 << flat_log2_long(ls);
    FlatArgs a;
    dim3 grid;
    int64_t tiles_x = 0;
    const cudaError_t e = grid_tiles((len + T - 1) / T, 1, batch, &tiles_x, &grid);
    if (e != cudaSuccess)
        return e;
    matrix_args(&a, p, batch, tiles_x);
    a.s = S;
    a.magic = flat_magic(S);
    if (case_a)
        return ls <= 6 ? launch_flat_inst<L, ESZ, true, 6>(a, grid, stream) : launch_flat_inst<L, ESZ, true, 7>(a, grid, stream);
    return ls <= 6 ? launch_flat_inst<L, ESZ, false, 6>(a, grid, stream) : launch_flat_inst<L, ESZ, false, 7>(a, grid, stream);
}

/* skinny_kernel's instance for the tile of log2 rows lr (4-, 8- and 16-byte elements: one a tile shape). */
template <int L, int ESZ, int LR = 0>
cudaError_t launch_skinny_fixed(int lr, dim3 grid, int bytes, cudaStream_t stream, const SkinnyArgs &a)
{
    if constexpr (LR > skinny_log2_elems(ESZ)) {
        return cudaErrorInvalidValue; // skinny_shape never gives it
    } else {
        if (lr != LR)
            return launch_skinny_fixed<L, ESZ, LR + 1>(lr, grid, bytes, stream, a);
        skinny_kernel<L, ESZ, LR><<<grid, kSkinnyThreads, bytes, stream>>>(a);
        return cudaGetLastError();
    }
}

/* The skinny kernel (skinny.cuh): the tile from the shape, at most 16 KB of shared memory (no opt-in); the word-wise
 * ones where configs.h's skinny_prmt_fits / skinny_vec_fits and both bases are element-aligned. */
template <int L, int ESZ>
cudaError_t launch_skinny(const smk_transpose_params *p, int64_t batch, Knobs k, cudaStream_t stream)
{
    if constexpr (ESZ <= 2) {
        const bool al = (uintptr_t)p->in % ESZ == 0 && (uintptr_t)p->out % ESZ == 0;
        if (skinny_strip_fits(p->rows, p->cols, p->in_cs, ESZ, g_skinny_mode) && al)
            return launch_skinny_strip<L, ESZ>(p, batch, stream);
        if (skinny_strip_b_fits(p->rows, p->cols, p->in_rs, p->in_cs, ESZ, g_skinny_mode) && al)
            return launch_skinny_strip_b<L, ESZ>(p, batch, stream);
        if (skinny_ilv_fits(p->rows, p->cols, p->in_rs, p->in_cs, ESZ, g_skinny_mode) && al &&
            ilv_head((uintptr_t)p->out, (int)p->rows, ESZ) >= 0) // an output base some column puts on 16 bytes
            return smk_skinny_ilv_launch(p, batch, L, stream);
        if (skinny_dlv_fits(p->rows, p->cols, p->in_rs, p->in_cs, ESZ, g_skinny_mode) && al)
            return smk_skinny_dlv_launch(p, batch, L, stream);
        const bool lean9 = g_skinny_mode == 9 && (uintptr_t)p->out % 4 != 0 && // mode 9: what mode 7 sends to
                           skinny_lean_a_fits(p->rows, p->cols, p->in_rs, p->in_cs, ESZ, 8); // skinny_vec
        if ((skinny_lean_a_fits(p->rows, p->cols, p->in_rs, p->in_cs, ESZ, g_skinny_mode) || lean9) && al)
            return launch_skinny_lean<L, ESZ>(p, batch, stream);
        if (skinny_prmt_fits(p->rows, p->cols, p->in_rs, p->in_cs, ESZ, g_skinny_mode) && al &&
            (p->rows > p->cols || (uintptr_t)p->out % 4 == 0 || // case A: output rows on words, or
             skinny_prmt_any_a(p->rows, p->cols, p->in_rs, p->in_cs, ESZ, g_skinny_mode))) // mode 4's / 5's any
            return launch_skinny_prmt<L, ESZ>(p, batch, stream);
        if (skinny_vec_fits(p->rows, p->cols, p->in_rs, p->in_cs, ESZ, g_skinny_mode) && al)
            return launch_skinny_vec<L, ESZ>(p, batch, stream);
    }
    if constexpr (ESZ == 4 || ESZ == 8) {
        if (skinny_flat_fits(p->rows, p->cols, p->in_rs, p->in_cs, ESZ, k.flat) &&
            (uintptr_t)p->in % ESZ == 0 && (uintptr_t)p->out % ESZ == 0)
            return launch_skinny_flat<L, ESZ>(p, batch, stream);
    }
    const SkinnyShape s = skinny_shape(p->rows, p->cols, ESZ);
    const int64_t tr = (int64_t)1 << s.lr, tc = (int64_t)1 << s.lc;
    SkinnyArgs a;
    dim3 grid;
    int64_t tiles_x = 0;
    const cudaError_t e = grid_tiles((p->cols + tc - 1) / tc, (p->rows + tr - 1) / tr, batch, &tiles_x, &grid);
    if (e != cudaSuccess)
        return e;
    matrix_args(&a, p, batch, tiles_x);
    a.lr = s.lr;
    a.lc = s.lc;
    a.in_al = (uintptr_t)p->in % ESZ == 0;
    a.out_al = (uintptr_t)p->out % ESZ == 0;
    if constexpr (ESZ >= 4) {
        return launch_skinny_fixed<L, ESZ>(s.lr, grid, skinny_bytes(L, s, ESZ), stream, a);
    } else {
        skinny_kernel<L, ESZ><<<grid, kSkinnyThreads, skinny_bytes(L, s, ESZ), stream>>>(a);
        return cudaGetLastError();
    }
}

/* The gather kernel's launch: its own tiles (TR = 128 or 256 rows x 128 bytes: configs.h gather_tile_rows) and
 * raster (configs.h gather_group). */
template <int L, int ESZ, int TR>
cudaError_t launch_gather_tr(const smk_transpose_params *p, int64_t batch, cudaStream_t stream)
{
    typedef Gather<ESZ, TR> G;
    int64_t tiles_x = 0;
    dim3 grid;
    const cudaError_t e = grid_tiles((p->cols + G::TC - 1) / G::TC, (p->rows + TR - 1) / TR, batch, &tiles_x, &grid);
    if (e != cudaSuccess)
        return e;
    Args a = args_of(p, batch, tiles_x);
    a.tiles_y = (int64_t)grid.x / tiles_x;
    a.group = gather_group(p->rows, p->cols, ESZ, batch, g_raster_group, TR);
    transpose_gather_kernel<L, ESZ, TR><<<grid, G::THREADS, 0, stream>>>(a);
    return cudaGetLastError();
}

template <int L, int ESZ>
cudaError_t launch_gather(const smk_transpose_params *p, int64_t batch, cudaStream_t stream)
{
    if (gather_tile_rows(batch, p->rows, p->cols, ESZ, g_gather_mode) == 256)
        return launch_gather_tr<L, ESZ, 256>(p, batch, stream);
    return launch_gather_tr<L, ESZ, 128>(p, batch, stream);
}

/* Row C of kConfigs under layout L, for row W of kWidths.  A new Kind of kernel branches here. */
template <int C, int L, int W>
cudaError_t launch_config(const smk_transpose_params *p, int64_t batch, Knobs k, cudaStream_t stream)
{
    constexpr Config c = kConfigs[C];
    static_assert(c.kind == kTiled || c.kind == kSkinny, "a new kernel kind needs its launch here");
    if constexpr (c.kind == kSkinny) {
        return launch_skinny<L, kWidths[W].esz>(p, batch, k, stream);
    } else {
        int64_t tiles_x = 0;
        dim3 grid;
        const cudaError_t e = grid_of(p, &kConfigs[C], batch, &tiles_x, &grid);
        if (e != cudaSuccess)
            return e;
        Args a = args_of(p, batch, tiles_x);
        a.tiles_y = (int64_t)grid.x / tiles_x;
        a.group = raster_group(W, C, p->rows, p->cols, batch, g_raster_group);
        a.shift = edge_shift_bits(W, C, p->rows, p->cols, a.in_vec != 0, g_shift_mode);
        if constexpr (kWidths[W].esz <= 2 && C == kWidths[W].shipped)
            if (gather_fits(p->esz, p->rows, p->cols, p->in_rs, p->in_cs, a.in_al && a.out_al, g_gather_mode))
                return launch_gather<L, kWidths[W].esz>(p, batch, stream);
        if constexpr (kWidths[W].esz <= 4 && C == kWidths[W].shipped) {
            if (sector_fits(W, C, p->rows, p->cols, batch, (uintptr_t)p->out, k.sector)) {
                if constexpr (kWidths[W].esz <= 2)
                    if (sector_split(kWidths[W].esz, k.sector))
                        return launch_sector<L, kWidths[W].esz, c.tile, c.rows>(grid, stream, a);
                return launch_tiled<L, kWidths[W].esz, c.tile, c.rows, true>(grid, stream, a);
            }
            if constexpr (kWidths[W].esz <= 2)
                if (mid_fits(W, C, p->rows, p->cols, g_mid_mode))
                    return g_mid_mode == 2 ? launch_tiled<L, kWidths[W].esz, c.tile, c.rows, false, 2>(grid, stream, a)
                                           : launch_tiled<L, kWidths[W].esz, c.tile, c.rows, false, 1>(grid, stream, a);
        }
        return launch_tiled<L, kWidths[W].esz, c.tile, c.rows>(grid, stream, a);
    }
}

/* kLaunch.fn[config][layout][width]: every instance, from the two tables of configs.h. */
struct LaunchTable {
    launch_fn fn[kNumConfigs][SMK_NUM_LAYOUTS][kNumWidths];
};

template <int C, int L, int... W>
constexpr void fill_widths(LaunchTable &t, std::integer_sequence<int, W...>)
{
    ((t.fn[C][L][W] = launch_config<C, L, W>), ...);
}

template <int C, int... L>
constexpr void fill_layouts(LaunchTable &t, std::integer_sequence<int, L...>)
{
    (fill_widths<C, L>(t, std::make_integer_sequence<int, kNumWidths>{}), ...);
}

template <int... C>
constexpr LaunchTable make_launch_table(std::integer_sequence<int, C...>)
{
    LaunchTable t{};
    (fill_layouts<C>(t, std::make_integer_sequence<int, SMK_NUM_LAYOUTS>{}), ...);
    return t;
}

constexpr LaunchTable kLaunch = make_launch_table(std::make_integer_sequence<int, kNumConfigs>{});

} // namespace

extern "C" void smk_transpose_set_odd_path(int on) { g_odd_path = on != 0; }

extern "C" void smk_transpose_set_skinny(int mode) { g_skinny_mode = mode; }

extern "C" void smk_transpose_set_raster_group(int g) { g_raster_group = g; }

extern "C" void smk_transpose_set_sector(int mode) { g_sector_mode = mode; }
extern "C" int smk_transpose_sector_mode(void) { return g_sector_mode; }

extern "C" void smk_transpose_set_mid(int mode) { g_mid_mode = mode; }

extern "C" int smk_transpose_mid_mode(void) { return g_mid_mode; }

extern "C" void smk_transpose_set_shift(int mode) { g_shift_mode = mode; }

extern "C" int smk_transpose_shift_mode(void) { return g_shift_mode; }

extern "C" void smk_transpose_set_copy(int mode) { g_copy_mode = mode; }

extern "C" int smk_transpose_copy_mode(void) { return g_copy_mode; }

extern "C" void smk_transpose_set_flat(int mode) { g_flat_mode = mode; }

extern "C" int smk_transpose_flat_mode(void) { return g_flat_mode; }

extern "C" void smk_transpose_set_gather(int mode) { g_gather_mode = mode; }

extern "C" int smk_transpose_gather_mode(void) { return g_gather_mode; }

extern "C" int smk_transpose_skinny_mode(void) { return g_skinny_mode; }

extern "C" int smk_transpose_supports(int esz) { return width_index(esz) >= 0; }

extern "C" int64_t smk_transpose_raster_group(int64_t rows, int64_t cols, int esz, int64_t batch, int variant)
{
    const int wi = width_index(esz);
    const Config *v = resolve(variant, wi);
    if (!v || v->kind != kTiled || rows < 0 || cols < 0 || batch < 1)
        return -1;
    return raster_group(wi, (int)(v - kConfigs), rows, cols, batch, g_raster_group);
}

namespace {

/* Whether every transpose knob is at its default: the measured choice (tune.cu) picks among the defaults' paths only,
 * so a process that set a knob (tests, A/Bs) runs that knob's own path. */
bool knobs_at_defaults()
{
    return g_odd_path == kOddPathDefault && g_skinny_mode == kSkinnyDefault && g_raster_group == kGroupDefault &&
           g_sector_mode == kSectorDefault && g_mid_mode == kMidDefault && g_shift_mode == kShiftDefault &&
           g_copy_mode == kCopyDefault && g_flat_mode == kFlatDefault && g_gather_mode == kGatherDefault;
}

cudaError_t launch_with(const smk_transpose_params *p, int variant, Knobs k, cudaStream_t stream)
{
    if (!p || p->layout < 0 || p->layout >= SMK_NUM_LAYOUTS || p->rows < 0 || p->cols < 0 || p->batch < 0)
        return cudaErrorInvalidValue;
    const int wi = width_index(p->esz);
    const Config *v = choose(variant, wi, p->rows, p->cols, p->in_rs, p->in_cs, g_skinny_mode, k.flat); /* by shape and strides */
    if (!v)
        return cudaErrorInvalidValue;
    const int64_t batch = p->batch == 0 ? 1 : p->batch; /* 0: a caller that memset the struct */
    if (p->rows == 0 || p->cols == 0)
        return cudaSuccess;
    if (variant == 0 && copy_fits(p->rows, p->cols, p->in_rs, p->in_cs, p->esz, g_copy_mode)) {
        const CopyPlan c = copy_plan(p, batch);
        if (c.how != 0)
            return launch_copy(p, c, stream);
    }
    return kLaunch.fn[v - kConfigs][p->layout][wi](p, batch, k, stream);
}

} // namespace

extern "C" int smk_transpose_launch_knobs(const smk_transpose_params *p, int variant, int sector, int flat,
                                          cudaStream_t stream)
{
    return launch_with(p, variant, Knobs{sector < 0 ? g_sector_mode : sector, flat < 0 ? g_flat_mode : flat}, stream);
}

extern "C" int smk_transpose_knobs_default(void) { return knobs_at_defaults() ? 1 : 0; }

extern "C" int smk_transpose_num_variants(void) { return kNumConfigs; }

extern "C" void smk_transpose_variant_geometry(int variant, int *tile, int *block_rows)
{
    smk_transpose_variant_geometry_esz(variant, 4, tile, block_rows);
}

extern "C" void smk_transpose_variant_geometry_esz(int variant, int esz, int *tile, int *block_rows)
{
    const Config *v = resolve(variant, width_index(esz));
    if (!v)
        v = resolve(0, width_index(4));
    *tile = v->tile;
    *block_rows = v->rows;
}
