/*
 * transpose/configs.h -- THE table of the transpose family's compiled configurations, and the folder's map.
 *
 * csrc/transpose/
 *   configs.h    this file: the compiled tile shapes (kConfigs) and element sizes (kWidths, with the
 *                shape each width ships); everything below is generated from these two tables
 *   unit.cuh     the unit a thread moves per element size, its sub-word register transposes (PRMT)
 *   tile.cuh     the shared tile: geometry through layout.h, thread map, row store and column read,
 *                with the bank arithmetic of naive / pad / swizzle
 *   global.cuh   the global side: Args, a block's place, the whole / odd-pitch / edge load and store paths
 *   kernel.cuh   the tiled kernel, as the parts above in order
 *   lean.cuh     the tiled kernel's lean global paths for 1- and 2-byte odd-pitch and edge tiles (knob
 *                transpose_mid = 2: mid_fits)
 *   sector.cuh   the tiled kernel's sector store (parts 4 and 5 on each output row's 32-byte sectors)
 *   sector_kernel.cuh the sector store's own kernel for 1- and 2-byte elements: the band loaded last
 *   skinny.cuh   the skinny kernel: one side of at most 32 elements, a TR x TC element tile staged in
 *                shared memory so that both global sides are whole runs along the long side
 *   skinny_vec.cuh the word-wise skinny kernel: 1- and 2-byte elements, one side of at most 64, every
 *                global access an aligned word whatever the pitch (launch_skinny picks it, skinny_vec_fits)
 *   skinny_prmt.cuh the same with whole-word shared accesses and a register transpose (rows > cols, and
 *                rows <= cols with rows * esz a multiple of 4; knob transpose_skinny = 3: skinny_prmt_fits;
 *                4: also short sides 65..256, skinny_wide_fits; 5: 3 and every rows <= cols,
 *                skinny_narrow_a_fits; 6: 3 and short sides 65..128; 7 (the default): 6 for 2-byte
 *                elements with rows > cols only; 8: 7 and case A on skinny_lean.cuh; 9: 8 for mode 7's
 *                skinny_vec case A only)
 *   skinny_lean.cuh case A of skinny_vec's class with the per-access arithmetic hoisted (skinny_lean_a_fits)
 *   skinny_strip.cuh case A with S = 17..127 (uint8) / 17..64 (fp16) as full-height strips, 16-byte output
 *                vectors (knob transpose_skinny = 10; 11 for uint8 S <= 84; 15 and 16, the default, also fp16 S =
 *                65..84 and 129..144: skinny_strip_fits)
 *   skinny_strip_b.cuh case B (rows > cols = S = 17..64, packed rows) as strips of 512 / esz input rows, one
 *                contiguous input run a block, 16-byte output vectors (knob transpose_skinny = 12: skinny_strip_b_fits)
 *   skinny_flat.cuh 4- and 8-byte matrices with a short side of 33..128: T x S elements a block, the contiguous side
 *                walked flat (every lane busy), the other down S rows (knob transpose_flat: skinny_flat_fits)
 *   gather.cuh   1- and 2-byte tiled matrices with packed rows as a byte gather from raw rows: whole aligned
 *                words on both global sides at any pitch (knob transpose_gather, 3 by default: gather_fits; the
 *                shipped tiled launch branches to it first; its replay for explain() in gather_plan.h)
 *   launch.cu    argument preparation, the dispatch table, the >48 KB opt-in, the C launch API
 *   plan.cu      the host replay of a block's shared accesses (smk_transpose_plan, for explain())
 *
 * Adding a tile shape: one row of kConfigs (its kernels for every layout and width, its plan and its
 * variant number follow).  Adding an element size: a Unit specialisation (unit.cuh) and a row of kWidths.
 * Adding another kernel of the family (a "skinny" kernel for a few-wide matrix, an odd-pitch-specific
 * one): its own file beside kernel.cuh (skinny.cuh, with its own parts and header comment), a Kind
 * below, a branch for that kind in launch.cu's launch_config and plan.cu's plan_config, and its rows in
 * kConfigs.  The choice of a path by shape (DALI-style: a tile only where it covers the matrix well)
 * is choose() below (variant 0: the skinny row where skinny_fits, else the width's shipped row);
 * launch.cu and plan.cu both ask it, so explain() follows the launcher.
 */
#ifndef SMK_TRANSPOSE_CONFIGS_H
#define SMK_TRANSPOSE_CONFIGS_H

#include <cstdint>

namespace {

enum Kind {
    kTiled,  /* kernel.cuh: TILE x TILE units, blockDim (TILE, ROWS) */
    kSkinny, /* skinny.cuh: a TR x TC element tile sized by the shape (tile, rows unused: 0) */
};

struct Config {
    int kind;
    int tile, rows; /* in units: tile edge, thread rows per block */
};

/* Every compiled configuration; row v >= 1 is variant v of the benchmark's sweep (each runs all three
 * layouts).  Row 0, 64x64 units / 64x8 threads, is the shipped shape of most widths; the rest exist
 * for the sweep and for other widths.  Measured: docs/RESULTS.md, "Transpose, 8192 x 8192" and
 * "Transpose of every element width, and batches". */
constexpr Config kConfigs[] = {
    {kTiled, 64, 8},
    {kTiled, 32, 8},
    {kTiled, 64, 16},
    {kTiled, 32, 4},
    {kTiled, 32, 16},
    {kSkinny, 0, 0}, /* variant 0 picks it by shape (choose below); forced, it moves any shape */
};
constexpr int kNumConfigs = sizeof(kConfigs) / sizeof(kConfigs[0]);

/* The element sizes, and the row of kConfigs each ships (variant 0).  1 byte: 32x32 units = 128x128
 * bytes, 16 KB of planes; 2 bytes: 64x64 units = 128x128 halves, 32 KB; 16 bytes: 32x32 elements,
 * 16 KB (64x64 would need 64 KB); every other compiled shape measured within about a point or worse
 * (docs/RESULTS.md, "Transpose of every element width, and batches"). */
struct Width {
    int esz;     /* bytes */
    int shipped; /* row of kConfigs */
};
constexpr Width kWidths[] = {{1, 1}, {2, 0}, {4, 0}, {8, 0}, {16, 1}};
constexpr int kNumWidths = sizeof(kWidths) / sizeof(kWidths[0]);

/* Row of kWidths for an element size, or -1. */
inline int width_index(int esz)
{
    for (int i = 0; i < kNumWidths; i++)
        if (kWidths[i].esz == esz)
            return i;
    return -1;
}

/* Units are esz-byte elements from 4 bytes up, else 4 / esz elements on an edge (unit.cuh's E). */
inline int unit_edge(int esz) { return esz < 4 ? 4 / esz : 1; }

/* Variant 0 = the shipped row of width wi; v >= 1 = row v of kConfigs (row 0 is reached through
 * variant 0 only, for the widths that ship it).  NULL for a bad variant or width. */
inline const Config *resolve(int variant, int wi)
{
    if (variant < 0 || variant >= kNumConfigs || wi < 0)
        return nullptr;
    return &kConfigs[variant == 0 ? kWidths[wi].shipped : variant];
}

/* The row of kConfigs of the skinny kernel. */
constexpr int skinny_row()
{
    for (int i = 0; i < kNumConfigs; i++)
        if (kConfigs[i].kind == kSkinny)
            return i;
    return -1;
}

/* THE CHOICE BY SHAPE (a pure function of shape, strides, element size -- width row wi >= 0 -- and the
 * skinny mode, the knob transpose_skinny: 16 (the default) as 15 and skinny_dlv_fits below, 15 as 14 and skinny_strip_fits's
 * fp16 S = 65..84 / 129..144, 14 as 13 and skinny_ilv_fits below, 13 as 11 without 2-byte case B of S = 65..128 (the tiled kernel
 * and its gather take it: skinny_wide_fits below), 12 as 11 and skinny_strip_b.cuh for skinny_strip_b_fits below, 11 as 10 for uint8 S <= 84, 10 as 8 and skinny_strip.cuh for skinny_strip_fits below, 9 as 8 for skinny_vec's case A only, 8 as 7 and skinny_lean.cuh for case A (skinny_lean_a_fits below), 7 as 6 for 2-byte case B only, 6 as 4 for S <= 128 only, 5 as 3 and skinny_prmt.cuh for case A
 * of every S <= 64 (skinny_narrow_a_fits below), 4 as 3 and skinny_prmt.cuh for short sides 65..256 (skinny_wide_fits
 * below), 3 the default (skinny_prmt.cuh where it fits, else as 2), 2
 * the word-wise kernel there, 1 the skinny kernel alone as before the word-wise kernel, 0 the tiled kernel always, for A/B runs).  The skinny kernels take a matrix whose
 * short side S is at most skinny_cap and whose input columns are contiguous (in_cs == 1, or a single
 * column), so the reads along the rows are whole runs.  Else the tiled kernel.
 *   skinny_cap: mode 1 -- half the shipped tile's edge in elements, at most 32 (32 for 1-, 2-, 4-,
 *   8-byte elements, whose tiles are 64 or 128 elements wide; 16 for 16-byte ones, tile 32): where a
 *   tile covers at most half its area (DALI's rule is 0.4).  Mode 2 -- 1- and 2-byte elements up to
 *   kVecMaxShort = 64 (skinny_vec.cuh; a 64-wide byte matrix fills half a 128-byte tile, a 36-wide
 *   fp16 one 56% of a 64-wide tile whose rows are 72-byte runs: 0.18 of a copy), the rest as mode 1. */
inline int64_t skinny_cap(int wi, int mode)
{
    if (mode <= 0)
        return 0;
    if (mode >= 2 && kWidths[wi].esz <= 2)
        return 64;
    const int64_t te = (int64_t)kConfigs[kWidths[wi].shipped].tile * unit_edge(kWidths[wi].esz);
    return te / 2 < 32 ? te / 2 : 32;
}

inline bool skinny_fits(int64_t rows, int64_t cols, int64_t in_cs, int wi, int mode)
{
    const int64_t s = rows < cols ? rows : cols;
    return (in_cs == 1 || cols == 1) && s <= skinny_cap(wi, mode);
}

/* Which skinny kernel (mode 2): the word-wise one (skinny_vec.cuh) for 1- and 2-byte elements with a short
 * side of at most 64 whose flat side is contiguous -- always for rows <= cols (the output is); for
 * rows > cols the input's rows must be packed (in_rs == cols) -- else skinny.cuh.  The launcher also
 * wants both bases element-aligned (else skinny.cuh, whose accesses go byte-wise). */
inline bool skinny_vec_fits(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    const int64_t s = rows < cols ? rows : cols;
    return mode >= 2 && esz <= 2 && s <= 64 && (in_cs == 1 || cols == 1) && (rows <= cols || in_rs == cols);
}

/* The sector store (sector.cuh, transpose_kernel's SEC) for a tiled launch of row `row` of kConfigs: the
 * width's shipped row of 1, 2 or 4 bytes (the rows it is compiled for) and an element-aligned output whose
 * rows do not all start on a 32-byte sector (base `out`, pitch rows * esz).  Mode (the knob
 * transpose_sector) 1: 4-byte elements with an output pitch of at least kSectorMinPitch bytes; 2: every
 * width at every pitch (tests, A/B); 3 (the default before session 50): a single matrix of 1-byte elements whose
 * sides both span at least kSectorMinSideSub bytes (rows: the output pitch, cols: the input row) in a call of at
 * least kSectorMinBytes; 4, the default since session 50: 3, and single float32 matrices whose sides both span
 * kSectorMinSide bytes; 2-byte elements never in 1-4 (their SEC kernel spills), batches never; 5 and 6 below
 * (float16, batches); 0: never.  A pure function of the shape, the output's address and the mode.
 *   Measured (H100, same-run A/B by the acceptance's method, docs/TRANSPOSE_NOTES.md "Session 37" and
 *   "Session 38"): the sector store pays a band of extra input rows per tile, each output row's head in
 *   tile row 0, and (1-byte) 12 more registers; it wins where a matrix has many tile rows and columns
 *   to spread them over (x1.1-1.56 on 1617x275086, 12117x5196, 85271x1024, 398455x1872 uint8; 2212x125104,
 *   21502x5706 fp16; most fp32 draws) and loses where either side is a few tiles or the call is a few
 *   microseconds (x0.53-0.9: 7x65x454408, 181410x403, 1412x5763 uint8).  Fitted on seeds 84-87 (a first gate,
 *   sides >= 1 KB for every width, from 84 / 85, held out on 86 / 87): float32 won on all 44 gated draws
 *   (x1.0-1.38, batches too); 1- and 2-byte batches lost on 10 of 17 (every uint8 batch, x0.67-0.92) and
 *   single matrices with a side under ~1.5 KB on 5 of 8 (283216x1177 uint8 x0.65); hence the sub-word gate.
 *   Held out on seeds 88 / 89 with it: uint8 won on 7 of 7 gated draws (x1.05-1.60), float32 on 20 of 22
 *   (x0.87-1.37), float16 lost on 9 of 14 (x0.85-0.93; its kernel spills 8-16 bytes): 2-byte elements are out.
 *   float32 batches won too (x1.1-1.3).  float32 waited in mode 4 until explain() matched Nsight Compute there:
 *   nvcc had sunk its column reads under the store's predicate (sector.cuh SectorStore::read, volatile since
 *   session 50: every shared count within 1.7% on 9 float32 shapes, batches included).  On an H200 (session 50,
 *   docs/TRANSPOSE_NOTES.md): the float32 draws of seeds 228 / 229 the gate takes x0.97-1.28 (12 of 15 won),
 *   held out on 230 / 231 x0.86-1.26 (4 of 5); float32 batches lost 3 of 4 there (they stay out), and the
 *   uint8 gate, the H100's, lost on 7 of 9 (x0.68-0.90: a per-device choice is the next step for it). */
constexpr int64_t kSectorMinPitch = 2048;
constexpr int64_t kSectorMinSide = 1024;
constexpr int64_t kSectorMinSideSub = 1536;
constexpr int64_t kSectorMinBytes = 16 << 20;

/* Modes 5 and 6 (session 39, for the lead's A/B): the 1- and 2-byte shapes go to transpose_sector_kernel
 * (sector_kernel.cuh: the band's unit loaded after the main units are parked, 64 registers and no spill for
 * both widths, where transpose_kernel<.., SEC> takes 76 for 1 byte and spills 8 bytes for 2).  5: mode 3's
 * gate (a single matrix, both sides >= kSectorMinSideSub bytes, >= kSectorMinBytes a call) for 1- and
 * 2-byte elements; 6: 5 and batches, each matrix's sides by the same rule and the whole call's bytes
 * (batch * rows * cols * esz) >= kSectorMinBytes.  float32 stays off in both (mode 4 is its level).  7 (tests):
 * as 2 (every width, pitch and batch), the 1- and 2-byte ones on transpose_sector_kernel. */
inline bool sector_fits(int wi, int row, int64_t rows, int64_t cols, int64_t batch, uint64_t out, int mode)
{
    if (mode < 1 || mode > 7 || wi < 0 || row != kWidths[wi].shipped || kWidths[wi].esz > 4)
        return false;
    const int64_t esz = kWidths[wi].esz;
    if (mode == 1 && (esz != 4 || rows * esz < kSectorMinPitch))
        return false;
    if (mode == 5 || mode == 6) {
        const int64_t nb = mode == 6 ? batch : 1; // the call was sized: no overflow
        if (esz > 2 || (batch != 1 && mode == 5) || rows * esz < kSectorMinSideSub ||
            cols * esz < kSectorMinSideSub || nb * rows * cols * esz < kSectorMinBytes)
            return false;
    } else if (mode == 3 || mode == 4) {
        const int64_t side = esz < 4 ? kSectorMinSideSub : kSectorMinSide;
        if (esz == 2 || (esz == 4 && mode == 3) || batch != 1 || rows * esz < side || cols * esz < side ||
            rows * cols * esz < kSectorMinBytes) // the call was sized: no overflow
            return false;
    }
    return out % esz == 0 && !(out % 32 == 0 && (rows * esz) % 32 == 0);
}

/* Which sector kernel a sector_fits launch runs: transpose_sector_kernel (sector_kernel.cuh) for 1- and
 * 2-byte elements in modes 5, 6 and 7, else transpose_kernel<.., SEC = true> (modes 1-4 unchanged). */
inline bool sector_split(int esz, int mode) { return mode >= 5 && esz <= 2; }

/* Edge words (transpose_kernel's MID; the knob transpose_mid) for a tiled launch of row `row` of kConfigs:
 * mode 1 takes the width's shipped row of 1- and 2-byte elements where the matrix has edge tiles (rows or
 * cols not a multiple of the tile's edge in elements).  Those tiles then move whole words clipped to the
 * matrix (global.cuh's words) where the input / output rows allow (contiguous columns), in place of one
 * predicated access per element.  Why: a 1- / 2-byte edge tile is 16 / 4 element accesses a unit where an
 * interior one is 4 / 2 words (and 16 / 4 element stores against 4 / 2 words), each with its own 64-bit
 * address and bounds; a 4-byte edge tile costs what an interior one does (one element = one word).  With
 * a short side S of 65..256 every (S <= 128 elements) or half the tiles are edge tiles: seed 111 (H100,
 * ff4f153, profile_calls) float16 S 65..256 0.43 of a copy (all-edge draws 0.28-0.44) against float32 1.01
 * at the same S, while the S = 256 uint8 draws (no edge tile) ran at 0.94-0.96.  The sector store
 * (sector_fits) keeps its shapes.  0, the default: element by element as before.  Pure in the shape.
 * Mode 2 (session 43, lean.cuh): every launch of the shipped 1- and 2-byte row, whatever the shape -- odd
 * pitches, which the launcher alone sees, make interior tiles take it too: whole words with the per-k work
 * hoisted out of the unit loop, the straddling word of a row as a byte + a half piece, for odd-pitch interior
 * tiles and edge tiles alike (ncu, session 43: those issued 0.51 and 0.74-1.28 warp instructions a byte against
 * 0.20 on aligned interior tiles).  Aligned interior tiles run the plain kernel's code. */
inline bool mid_fits(int wi, int row, int64_t rows, int64_t cols, int mode)
{
    if (mode < 1 || mode > 2 || wi < 0 || row != kWidths[wi].shipped || kWidths[wi].esz > 2)
        return false;
    if (mode == 2)
        return true;
    const int64_t te = (int64_t)kConfigs[row].tile * unit_edge(kWidths[wi].esz);
    return rows % te != 0 || cols % te != 0;
}

/* Edge tiles moved inward (knob transpose_shift; transpose_kernel's part 0, global.cuh edge_shift) for a
 * tiled launch of row `row` of kConfigs: bit 0 where the last tile row would cross the matrix's last row
 * (rows >= TE and rows % TE != 0: its corner moves to rows - TE), bit 1 likewise for the last tile column,
 * unless the input moves as whole words (in_vec) while cols - TE is off a word (cols * esz % 4 != 0: a strided
 * view's rows).  The moved tile is an interior one (whole words, the odd-pitch path) overlapping its
 * neighbour, where it would move element by element: ncu, H200, session 43 -- 2972725x166 uint8 (half the tiles
 * on the edge path) 1.18 warp instructions a byte against 0.19 for 1900000x256, 38x319020x71 1.28.  Mode 1:
 * 1- and 2-byte elements; 2: every width; 0 (the default): none.  Pure in the shape. */
inline int edge_shift_bits(int wi, int row, int64_t rows, int64_t cols, bool in_vec, int mode)
{
    if (mode < 1 || mode > 2 || wi < 0 || (mode == 1 && kWidths[wi].esz > 2))
        return 0;
    const int64_t esz = kWidths[wi].esz, te = (int64_t)kConfigs[row].tile * unit_edge(kWidths[wi].esz);
    int bits = 0;
    if (rows >= te && rows % te != 0)
        bits |= 1;
    if (cols >= te && cols % te != 0 && !(in_vec && esz < 4 && (cols * esz) % 4 != 0))
        bits |= 2;
    return bits;
}

/* The tiled kernel's raster (global.cuh tile_place; knob transpose_group) for a launch of row `row` of kConfigs:
 * a knob >= 0 fixes it (0 row-major, G > 0 bands of G tile rows walked down their tile columns); -1, the default
 * since session 52, chooses by shape.  Bands of kRasterBand tile rows read whole input rows together but write each
 * output row in pieces one band (kRasterBand * tiles_x blocks) apart; a band of every tile row (G = tiles_y, the
 * matrix walked tile column by tile column) writes each output row whole by consecutive blocks and reads the input
 * in strips one tile wide.  The whole-column walk is taken where the call leaves L2 (>= kRasterWholeMinBytes, so
 * DRAM sees the write order), a strip's input (rows * TE * esz) stays within kRasterWholeMaxStrip (the strip's
 * partial sectors are read again by the next column), the band would be long (tiles_x >= kRasterWholeMinTilesX;
 * with fewer tile columns consecutive bands already run together) and there is more than one band.
 * H200, same-run A/B on the random law, seeds 247-250 (1100 draws, docs/TRANSPOSE_NOTES.md session 52): draws of
 * >= 32 MiB with strips < 16 MiB x1.03-1.09 a bin of strip sizes (uint8 19x1359x14953 x1.24, float16 20262x11096
 * x1.33, float64 12587x6217 x1.18; aligned pitches too), strips of 16 MiB and more x0.93-0.97, batches of tall
 * matrices with 2-3 tile columns x0.83-0.96, calls in L2 within the noise.  Pure in the shape. */
constexpr int kRasterBand = 8;
constexpr int64_t kRasterWholeMinBytes = 32 << 20;
constexpr int64_t kRasterWholeMaxStrip = 16 << 20;
constexpr int64_t kRasterWholeMinTilesX = 4;
inline int64_t raster_group(int wi, int row, int64_t rows, int64_t cols, int64_t batch, int knob)
{
    if (knob >= 0 || wi < 0)
        return knob >= 0 ? knob : kRasterBand;
    const int64_t esz = kWidths[wi].esz, te = (int64_t)kConfigs[row].tile * unit_edge(kWidths[wi].esz);
    const int64_t ty = (rows + te - 1) / te, tx = (cols + te - 1) / te;
    if (ty > kRasterBand && tx >= kRasterWholeMinTilesX && rows * te * esz <= kRasterWholeMaxStrip &&
        batch * rows * cols * esz >= kRasterWholeMinBytes) // the call was sized: no overflow
        return ty;
    return kRasterBand;
}

/* The gather kernel (gather.cuh; knob transpose_gather, session 53): 1 every 1- / 2-byte matrix that the
 * shipped tiled config takes (both sides at least 128 bytes: TR = 128 rows, 128 bytes of columns) with packed rows
 * (in_cs == 1, in_rs == cols) on element-aligned bases; 2 those with a pitch off words (cols * esz or rows * esz
 * not a multiple of 4: lean.cuh's re-aligned paths); 3 (the default since session 53) those of 2 whose output rows
 * hold >= kGatherMinOutRow bytes, and (session 59) the narrow case B below; 4 (A/B) 1 and the narrow case B; 0 never;
 * the knob's tens pick the tile's rows (gather_tile_rows: 11-14 / 21-24 are levels 1-4 with 256 / 128 rows always).
 * Pure in the shape, strides and alignment.
 * Level 3's cut, from a same-run A/B on the random law (H200, seeds 260-261, untuned; docs/TRANSPOSE_NOTES.md
 * session 53): the 108 draws of level 2 x1.119 against the tiled kernel, x1.194 for the 82 with output rows of
 * >= 1024 bytes, x0.913 for the 26 below (uint8 batches of 200-900-row matrices x0.61-0.85: a tile row of 128 is
 * then a large part of a matrix, and the partial last one costs a whole tile's gather). */
constexpr int64_t kGatherMinOutRow = 1024;
/* THE NARROW CASE B (session 59): rows > cols with input rows of kGatherMinNarrowRow..127 bytes, one partial tile column
 * (the loads use the row's words, the stores its cols output rows), which the tiled kernel's lean path took before
 * (issue-bound: 0.77-0.9 warp instructions a byte, ncu on 1974685x74 uint8).  Level 3 (the default) takes it where its
 * other rules hold, on 256-row tiles (gather_tile_rows); level 4 (A/B) is level 1 and this class.  H200, the acceptance's
 * method, same run: fitted on the 15 uint8 draws of seeds 326-329 (0.611 -> 0.731 of a copy with 256-row tiles, 14 won;
 * 128-row tiles 0.614), held out on the 13 of seeds 330-333 (0.613 -> 0.707, 12 won, the worst x0.81 on 256806x69, an
 * 8 us call); docs/TRANSPOSE_NOTES.md session 59. */
constexpr int64_t kGatherMinNarrowRow = 64;
inline bool gather_fits(int esz, int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, bool aligned, int knob)
{
    const int mode = knob % 10;
    if (knob < 0 || knob > 24 || mode < 1 || mode > 4 || (esz != 1 && esz != 2) || !aligned || in_cs != 1 ||
        in_rs != cols)
        return false;
    const bool narrow = (mode == 3 || mode == 4) && rows > cols && cols * esz >= kGatherMinNarrowRow && cols * esz < 128;
    if (rows < 128 || (cols * esz < 128 && !narrow) || (mode == 3 && rows * esz < kGatherMinOutRow))
        return false;
    return mode == 1 || mode == 4 || narrow || (cols * esz) % 4 != 0 || (rows * esz) % 4 != 0;
}

/* Its tile's rows (gather.cuh's TR), pure in the call's bytes and the knob's tens: 0 (the default, session 55) 256
 * rows where the call moves >= kGatherTallBytes or (session 59) the rows are under 128 bytes (the narrow case B), else
 * 128; 1 always 256; 2 always 128 (sessions 53-54).  Fitted on
 * the random law's gather class (H200, seeds 274-275: the 256-row tile x1.07-1.32 on most calls of >= 200 MB, and
 * x0.6-0.9 on many below 50 MB, where half the blocks fill the SMs less; any cut in 64..256 MB gave the same
 * geomean), held out on seeds 276-277 (docs/TRANSPOSE_NOTES.md session 55). */
constexpr double kGatherTallBytes = 128.0 * 1024 * 1024;
inline int gather_tile_rows(int64_t batch, int64_t rows, int64_t cols, int esz, int knob)
{
    const int t = knob / 10;
    if (t == 1)
        return 256;
    if (t == 0 && cols * esz < 128) // the narrow case B: a tile is TR x cols bytes
        return 256;
    return t == 0 && (double)batch * (double)rows * (double)cols * esz >= kGatherTallBytes ? 256 : 128;
}

/* Its raster: raster_group's rule on its own tile (a tile column's input strip is rows x 128 bytes; tr its rows); a
 * knob >= 0 fixes it (0: row-major, i.e. groups of one tile row). */
inline int64_t gather_group(int64_t rows, int64_t cols, int esz, int64_t batch, int knob, int tr)
{
    if (knob >= 0)
        return knob > 0 ? knob : 1;
    const int64_t ty = (rows + tr - 1) / tr, tx = (cols * esz + 127) / 128;
    if (ty > kRasterBand && tx >= kRasterWholeMinTilesX && rows * 128 <= kRasterWholeMaxStrip &&
        batch * rows * cols * esz >= kRasterWholeMinBytes)
        return ty;
    return kRasterBand;
}

/* Mode 3 (knob transpose_skinny = 3): of skinny_vec_fits's matrices, skinny_prmt.cuh (whole-word shared
 * accesses and a register transpose of E x E units) takes case B (rows > cols: the output rows are the
 * runs, the input rows packed) and case A (rows <= cols) where the output rows of S = rows elements are
 * whole words (rows * esz a multiple of 4; the launcher also wants the output base on a word); the rest
 * stays on skinny_vec.cuh. */
/* Mode 4 (knob transpose_skinny = 4): the wider class, short sides kPrmtMinWide .. kPrmtMaxShort of 1- and
 * 2-byte elements, which the tiled kernel takes below mode 4 with EVERY tile an edge tile (its 128-element
 * tile is wider than the matrix: element-by-element loads and stores; 273484x77 uint8 at 0.38 of a copy,
 * session 38).  skinny_prmt.cuh's geometry carries over (a 16 KB tile of S' x T, S' = S to a power of two:
 * T = 128 / 64 bytes a run for S' = 128 / 256); case B wants packed input rows (in_rs == cols) as before,
 * case A takes any S (rows * esz off words: skinny_prmt_a_kernel<.., false>, element stores into F and
 * whole-word global stores but for each tile's two end words).  The rest of the class (case B with
 * padded or strided input rows) stays on the tiled kernel. */
/* Mode 6 (session 41): mode 3 and the part of mode 4's class whose S' is 128 (S = 65..128: T = 128 bytes a
 * run).  Why the cut there: session 38's held-out A/B of mode 4 (seeds 101 / 102) won below it (17x34274x65
 * fp16 0.29 -> 0.67, 82242x86 fp16 0.30 -> 0.46, 360972x108 fp16 0.41 -> 0.64, 26x22792x80 uint8 0.44 ->
 * 0.64) and lost above it (61426x164 uint8 0.41 -> 0.14, 2075557x134 fp16 0.48 -> 0.27): at S' = 256 a run is
 * 64 bytes, so its two element-wise end chunks are 2 of 5 chunks a run and case A's element stores into F
 * double per run byte.
 * Mode 7 (session 41, the default): mode 6 for 2-byte elements in case B (rows > cols) alone.  Mode 6 on a
 * fresh seed (161, H100, the acceptance's method) moved 14 draws: every 2-byte case B draw won x1.5-3.1
 * (58x22664x70 fp16 0.30 -> 0.91, 307776x124 0.46 -> 0.97, 79656x97 0.34 -> 0.66), while case A (68x42223 fp16
 * x0.89, 87x581436 uint8 x0.81, 16x118x87702 uint8 x0.77) and uint8 case B (10x780546x80 x0.88; session 38:
 * 26x22792x80 x1.45) did not pay: case A's F stores and the 4x4-byte units cost what the tiled kernel's edge
 * path does. */
/* Mode 13 (session 54, the default): mode 11 with that 2-byte case B class back on the tiled kernel, which since
 * session 53 hands its off-word pitches to the byte gather (gather.cuh).  H200, the acceptance's method, same run:
 * fit on 30 class draws of seeds 265-268, skinny_prmt 0.503 -> tiled 0.708 geomean (27 won, x1.4; S = 65-69
 * even or a little behind: 2918271x65 0.459 -> 0.442); held out: docs/TRANSPOSE_NOTES.md "Session 54".  Session
 * 41's contrary figures (x1.5-3.1) were the tiled kernel before the lean path and the gather. */
constexpr int64_t kPrmtMinWide = 65, kPrmtMaxShort = 256, kPrmtMaxShortHalf = 128;

inline bool skinny_wide_fits(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    const int64_t s = rows < cols ? rows : cols;
    const int64_t cap = mode == 4 ? kPrmtMaxShort : mode >= 6 && mode <= 12 ? kPrmtMaxShortHalf : 0;
    if (mode >= 7 && (esz != 2 || rows <= cols))
        return false;
    return esz <= 2 && s >= kPrmtMinWide && s <= cap && in_cs == 1 && (rows <= cols || in_rs == cols);
}

/* Mode 5 (knob transpose_skinny = 5, session 40): mode 3, and case A (rows <= cols) of every skinny_vec_fits
 * matrix on skinny_prmt_a_kernel: rows * esz off words (and, at the launcher, word-multiple rows on an output
 * base off a word) on <.., false>.  Those ran on skinny_vec.cuh in mode 3, its 1.5 warp instructions a byte
 * (one LDS.8 / STS.8 and its address per element): seed 126's worst class, 62x31x294359 uint8 at 0.20 of a
 * copy, 34x276261 uint8 0.37, 39x7x24744 fp16 0.44.  In case A a block's output (all S rows, T columns) is one
 * contiguous run of T * S elements whatever S is, so <.., false>'s global stores are whole words but for the
 * run's two end words, and its loads are whole words of the S input runs; only its shared stores of phase 2
 * are per element.  The kernel and its tile are mode 4's (skinny_vec_lt's 16 KB tile of S' x T), F's map
 * one row for these S (skinny_prmt.cuh's skinny_prmt_fgeometry: skinny_vec's 32-word rows cost pad 24
 * wavefronts a store at S = 31); 25-41 KB of shared memory for S = 2..63, 64.6 KB for S = 1 (R's run, parity
 * and tail rows, 16 KB each: the launcher opts in, 3 blocks an SM).  Pure in the shape, strides, element size
 * and mode. */
inline bool skinny_narrow_a_fits(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    return mode == 5 && rows <= cols && skinny_vec_fits(rows, cols, in_rs, in_cs, esz, mode);
}

/* Mode 8 (knob transpose_skinny = 8, session 43): mode 7, and case A (rows <= cols) of every skinny_vec_fits
 * matrix (1- and 2-byte elements, S = rows <= 64, any pitch and output base) on skinny_lean.cuh's
 * skinny_lean_a_kernel: skinny_vec's tile, grid and shared accesses with the arithmetic around each access
 * hoisted.  Why: Nsight Compute (H200, session 43) finds case A issue-bound on both of its kernels,
 * 9x5x4128923 uint8 on skinny_vec 1.22 warp instructions a byte at 88% issue, 54x34x25317 fp16 on
 * skinny_prmt_a 1.48 at 84% (the tiled kernel's aligned tiles: 0.19); on the random law (seeds 164 / 172 / 183)
 * case A is the worst skinny class, 0.47-0.53 of a copy.  Mode 9: mode 7, and the part of that case A which mode 7
 * leaves on skinny_vec (output rows off words: rows * esz mod 4 != 0; at the launcher also an output base off a
 * word), skinny_prmt_a keeping the rest -- the two halves of mode 8 apart in one build.  Pure in the shape,
 * strides, element size and mode. */
inline bool skinny_lean_a_fits(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    return (mode == 8 || (mode >= 10 && mode <= 16) || (mode == 9 && rows * esz % 4 != 0)) && rows <= cols &&
           skinny_vec_fits(rows, cols, in_rs, in_cs, esz, mode);
}

/* Mode 10 (knob transpose_skinny = 10, session 44): mode 8, and case A (rows = S <= cols, contiguous input columns)
 * with S = kStripMinShort .. 127 for 1-byte elements (S = 65..127 ran on the tiled kernel, every tile an edge tile)
 * and .. 64 for 2-byte ones on skinny_strip.cuh (the launcher also wants both bases element-aligned; those shapes
 * stay on skinny_lean_a_fits's path otherwise).  Why: case A is issue-bound on skinny_lean.cuh (H100, session 43's
 * defaults: 62x3350706 uint8 0.30 of a copy, 34x476673 uint8 0.42, 4x41x40841 fp16 0.50; uint8 S = 65..127 on the
 * tiled kernel 0.46-0.63); a full-height strip's output is one contiguous run, so every output store is a 16-byte
 * vector and every shared access of the gather an immediate offset from one base (skinny_strip.cuh's header).  The
 * lower bound: the kernel's virtual rows need S >= 16 / esz - 1, and below 17 a 16-byte vector spans two output
 * rows or more, where the virtual rows cost more than they save (15 / S of the load).  Pure in the shape, strides,
 * element size and mode. */
constexpr int64_t kStripMinShort = 17, kStripMaxShort1 = 127, kStripMaxShort2 = 64;

/* Mode 11, the default since session 44: mode 10 with 1-byte S <= kStripMaxShort1Mode11, the rest of mode 10's uint8
 * class back on the tiled kernel.  H100, the acceptance's timing, mode 8 -> 10 on 49 class shapes (seeds 3442-3446
 * and the issue's): fp16 S 17..64 geomean 0.674 -> 0.931, uint8 0.569 -> 0.760, every uint8 S <= 81 won (62x3350706
 * 0.30 -> 0.79, 67x184317 0.44 -> 0.73) and every S >= 86 lost (9x103x202820 0.80 -> 0.68, 119x2061172 0.79 -> 0.69
 * on seed 198): above ~84 rows the strip's per-byte gather costs more than the tiled kernel's two tile rows. */
constexpr int64_t kStripMaxShort1Mode11 = 84;

/* Mode 15 (knob transpose_skinny = 15, session 61; the default 16 includes it): mode 14 with 2-byte case A of S = 65..84
 * (kStripMaxShort2Mode15) and S = 129..144 (kStripPastTile2Min..Max) on the strip too.  Why: the tiled kernel's
 * 2-byte tile is 128 elements tall, so those S fill its tile rows 51-66% (S = 65..84) and 50-56% (a second tile
 * row of 1..16 rows), while the strip's cost a byte is about flat in S.  H200, the acceptance's method, same run,
 * every arm bit-exact (docs/TRANSPOSE_NOTES.md "Session 61"): fit seeds 352-371 / held out 372-391, tiled -> strip
 * S = 65..84 x1.20 / x1.20 (20 of 20 / 27 of 31 won), S = 129..144 x1.18 / x1.10; S = 85..128 lost (x0.73-0.95:
 * the tiled rows fill 66-100%) and S = 145..176 came out even (x0.86-1.01), so both stay tiled. */
constexpr int64_t kStripMaxShort2Mode15 = 84, kStripPastTile2Min = 129, kStripPastTile2Max = 144;

inline bool skinny_strip_fits(int64_t rows, int64_t cols, int64_t in_cs, int esz, int mode)
{
    const int64_t cap = esz == 1   ? (mode >= 11 ? kStripMaxShort1Mode11 : kStripMaxShort1)
                        : esz == 2 ? (mode >= 15 ? kStripMaxShort2Mode15 : kStripMaxShort2)
                                   : 0;
    const bool past = mode >= 15 && esz == 2 && rows >= kStripPastTile2Min && rows <= kStripPastTile2Max;
    return (mode >= 10 && mode <= 16) && rows <= cols && in_cs == 1 && rows >= kStripMinShort && (rows <= cap || past);
}

/* Mode 12 (knob transpose_skinny = 12, session 44): mode 11, and case B (rows > cols = S, S = kStripMinShort ..
 * kStripMaxShort2 for 1- and 2-byte elements, packed input rows: in_rs == cols, in_cs == 1) on skinny_strip_b.cuh
 * (the launcher also wants both bases element-aligned).  Why: case B is issue-bound on skinny_prmt.cuh (ncu,
 * session 43: 1.2-1.5 warp instructions a byte; H100 1568981x31 uint8 0.35 of a copy); a block of 512 / esz
 * consecutive input rows reads one contiguous run (16-byte loads whatever S) and writes S output segments of 512
 * bytes as aligned 16-byte vectors (skinny_strip_b.cuh's header).  Pure in the shape, strides, element size and
 * mode. */
inline bool skinny_strip_b_fits(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    return mode == 12 && (esz == 1 || esz == 2) && rows > cols && in_cs == 1 && in_rs == cols &&
           cols >= kStripMinShort && cols <= kStripMaxShort2;
}

/* Mode 14 (knob transpose_skinny = 14, the default since session 58): mode 13, and case A (rows = S <= cols) with
 * S <= kIlvMaxShort of 1- and 2-byte matrices with contiguous input rows in order (in_cs == 1, in_rs >= cols) on
 * skinny_ilv.h's interleaving kernel (transpose/ilv.cu; the launcher also wants an element-aligned input and an output
 * base that some column puts on 16 bytes: skinny_ilv.h ilv_head).  Why: that class ran on skinny_lean.cuh at 0.37-0.48
 * of a copy on the law's worst draws (H200, session 57), issue-bound (about 11 warp instructions a byte in its run
 * phase); the interleave takes byte permutes in registers and 16-byte global accesses only.  Pure in the shape,
 * strides, element size and mode. */
constexpr int64_t kIlvMaxShort = 16;

inline bool skinny_ilv_fits(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    return mode >= 14 && rows <= kIlvMaxShort && in_cs == 1 && in_rs >= cols &&
           skinny_lean_a_fits(rows, cols, in_rs, in_cs, esz, mode);
}

/* Mode 16 (knob transpose_skinny = 16, the default since session 61): mode 15, and case B (rows > cols = S = 2 ..
 * kDlvMaxShort1 for 1-byte elements, .. kDlvMaxShort2 for 2-byte ones) with packed rows (in_cs == 1, in_rs == cols) on
 * ilv.cu's de-interleaving kernel (the launcher also wants element-aligned bases).  Why: that class ran on
 * skinny_prmt.cuh, issue-bound (59x147969x2 uint8 0.447 of a copy); the interleave's reverse moves a warp's 32 C input
 * rows as one contiguous run of 16-byte chunks and writes its S output rows as 16-byte stores.  H200, the acceptance's
 * method, same run, every arm bit-exact, fit seeds 352-371 / held out 372-391 (docs/TRANSPOSE_NOTES.md "Session 61"):
 * uint8 S = 2 x1.46 / x1.41, S = 3..4 x1.11 / x1.10, S = 5..8 even (x0.995 / x1.025, single draws x0.55-1.5); fp16
 * S = 2..8 x1.18 / x1.12; S = 9..16 lost in both widths (x0.71-0.97), so the class stops at 4 / 8.  Pure in the shape,
 * strides, element size and mode. */
constexpr int kDlvMaxShort1 = 4, kDlvMaxShort2 = 8;

inline bool skinny_dlv_fits(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    return mode >= 16 && (esz == 1 || esz == 2) && rows > cols && cols >= 2 &&
           cols <= (esz == 1 ? kDlvMaxShort1 : kDlvMaxShort2) && in_cs == 1 && in_rs == cols;
}

/* The flat skinny kernel (skinny_flat.cuh; knob transpose_flat): 4- and 8-byte elements with input columns
 * contiguous (in_cs == 1); the launcher also wants both bases element-aligned.  Mode 1, the default since session
 * 50: case A (rows <= cols: the output is the flat side) with S = rows = kFlatShortMin .. kFlatShortMax1 (S' = 64,
 * T = 64); 2 (A/B, tests): both cases, S up to kFlatShortMax, case B (rows > cols: the input flat) with packed
 * input rows (in_rs == cols); 0 never.  Below 33 the skinny kernel keeps them (one tile holds S whole), above the
 * tiled kernel.  Measured (H200, same-run A/B by the acceptance's method, seeds 228-233, 103 draws that mode 2
 * takes; docs/TRANSPOSE_NOTES.md "Session 50"): case A with S <= 64 won on most (x0.85-1.32; float32 S 35-39
 * x1.2-1.3), case A with S' = 128 (T = 32: 128-byte input runs) came out even (x0.87-1.12), and case B lost on
 * most (float64 x0.68-0.85, float32 S >= 44 x0.72-0.98): its shift side writes S output rows in runs of T elements
 * each block, against the tiled kernel's 64.  Pure in the shape, strides, element size and mode. */
constexpr int64_t kFlatShortMin = 33, kFlatShortMax1 = 64, kFlatShortMax = 128;

inline bool skinny_flat_fits(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    const int64_t s = rows < cols ? rows : cols;
    if (mode < 1 || mode > 2 || (esz != 4 && esz != 8) || in_cs != 1 || s < kFlatShortMin)
        return false;
    if (mode == 1)
        return rows <= cols && s <= kFlatShortMax1;
    return s <= kFlatShortMax && (rows <= cols || in_rs == cols);
}

/* Case A on skinny_prmt_a_kernel whatever the output base (<.., false> where the output rows are off words):
 * mode 4's wide class and mode 5's narrow one. */
inline bool skinny_prmt_any_a(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    return skinny_wide_fits(rows, cols, in_rs, in_cs, esz, mode) ||
           skinny_narrow_a_fits(rows, cols, in_rs, in_cs, esz, mode);
}

inline bool skinny_prmt_fits(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    const bool narrow = mode >= 3 && (rows > cols || rows * esz % 4 == 0) &&
                        skinny_vec_fits(rows, cols, in_rs, in_cs, esz, mode);
    return narrow || skinny_prmt_any_a(rows, cols, in_rs, in_cs, esz, mode);
}

/* The copy route (knob transpose_copy, transpose/copy.cuh; session 44): where a matrix has one row or one column
 * and its elements are contiguous along the other side, its transpose is its own bytes in the same order, so
 * the whole call is a copy (issue 26: the 1- and 2-byte n x 1 batches ran on skinny_prmt at 0.36-0.45 of a copy,
 * seed 192).  Mode 1 sub-word widths only, 2 every width, 0 never.  Pure in the shape, strides, element size and
 * mode; the launcher adds the batch stride's test (copy.cuh's copy_plan). */
constexpr int kCopyThreads = 256;
constexpr int kCopyWords = 4; /* copy_kernel's 16-byte words a thread moves, loads before stores */

/* copy_kernel's blocks for `bytes` from bases on 16 bytes. */
inline int64_t copy_blocks(int64_t bytes)
{
    const int64_t words = bytes / 16, per = (int64_t)kCopyThreads * kCopyWords;
    return words == 0 ? 1 : (words + per - 1) / per;
}

inline bool copy_fits(int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int esz, int mode)
{
    if (mode <= 0 || (mode == 1 && esz > 2))
        return false;
    return (rows == 1 && in_cs == 1) || (cols == 1 && in_rs == 1);
}

/* What a launch of `variant` runs on this shape: variant 0 = the skinny row where skinny_fits (or, mode 4,
 * skinny_wide_fits; skinny_strip_fits; skinny_flat_fits under `flat`, the knob transpose_flat), else resolve(). */
inline const Config *choose(int variant, int wi, int64_t rows, int64_t cols, int64_t in_rs, int64_t in_cs, int mode,
                            int flat)
{
    if (variant == 0 && wi >= 0 &&
        (skinny_fits(rows, cols, in_cs, wi, mode) || skinny_wide_fits(rows, cols, in_rs, in_cs, kWidths[wi].esz, mode) ||
         skinny_strip_fits(rows, cols, in_cs, kWidths[wi].esz, mode) ||
         skinny_flat_fits(rows, cols, in_rs, in_cs, kWidths[wi].esz, flat)))
        return &kConfigs[skinny_row()];
    return resolve(variant, wi);
}

} // namespace

#endif /* SMK_TRANSPOSE_CONFIGS_H */
