/*
 * transpose/skinny_prmt.cuh -- the word-wise skinny transpose (1- or 2-byte elements, short side S <= 64;
 * knob transpose_skinny = 4: up to kPrmtMaxShort = 256, configs.h's skinny_wide_fits) with
 * whole-word shared accesses and a register transpose, so that no instruction moves a single element in
 * the interior (issue 26; knob transpose_skinny = 3, configs.h's skinny_prmt_fits): case B (rows > cols,
 * input rows packed: skinny_prmt_kernel) and case A (rows <= cols with rows * esz a multiple of 4 and the
 * output on a word: skinny_prmt_a_kernel, PrmtBlockA below); the rest stays on skinny_vec.cuh, but for knob
 * transpose_skinny = 5 (configs.h's skinny_narrow_a_fits), which sends the rest of case A to
 * skinny_prmt_a_kernel<.., false> as well (its S = 1 tile: 64.6 KB of shared memory, opted in).
 *
 * Why.  skinny_vec.cuh's run phase gathers every output element with its own LDS.8 / LDS.16 and its own
 * layout address and bound checks: ncu on 578113x36 uint8 counts 1.56 warp instructions per byte (the tiled
 * kernel: 0.2), issue-bound at 0.32 of a copy.  Here a thread moves an E x E unit (E = 4 / esz: 4x4 bytes or
 * 2x2 halves) with E or 2E shared word loads (and E funnel shifts), 8 (4x4) / 2 (2x2) byte permutes
 * (unit.cuh's transpose_unit) and E shared word stores.
 *
 * Case B.  Names as in skinny_vec.cuh: a tile is T = 2^lt input rows of S elements (the flat side, T*S contiguous
 * elements from global byte fb) and, on the output side, S runs of T elements (output row s, `rp` bytes
 * apart, run s starting ms(s) = its address mod 4 bytes past a word).  E elements of a run are one word
 * (W = T / E = 2^lw words a run).  Three phases, two barriers:
 *
 *   1 flat in    buffer F = the flat side at its global word alignment (F byte x = global byte fa + x,
 *                fa = fb rounded down to a word, mis = fb - fa): LDG.32 -> STS.32, every word that holds a
 *                byte of the tile loaded whole but the words straddling the matrix's first or last byte
 *                (the tiles at the matrix's ends: global.cuh's load_word_in, byte by byte, so that no byte
 *                outside the operand is read); bytes outside [mis, fend) are never stored out
 *   2 units      unit (pb, sb): input rows p = E*pb + r, elements s = E*sb + c.  Row r's E elements are the 4
 *                bytes at F byte x = mis + (p*S + E*sb)*esz: two LDS.32 and a funnel shift by x mod 4 (one
 *                LDS.32 where mis and S*esz are multiples of 4: every row starts on a word);
 *                transpose_unit (unit.cuh) turns the E row words into E column words = run E*sb + c's
 *                elements E*pb .. E*pb + E-1, stored as word pb of row E*sb + c of buffer R (the runs
 *                re-based to run element 0, whole words: STS.32; rows past S not stored)
 *   3 runs out   16-byte chunk i of run s = run bytes [16i - ms, 16i - ms + 16) (ms = the run's start mod 16
 *                now) = five R words funnel-shifted by (-ms) mod 4 bytes; interior chunks one STG.128, a
 *                run's first and last chunk as aligned pieces of 1-8 bytes (out_chunk), in the tail steps
 *
 * Shared memory, through layout.h's maps only (the three layouts are the same kernel but for the map):
 *   F  skinny_vec.cuh's geometry (skinny_vec_geometry / skinny_vec_slot; mode 5's narrow case A: one row,
 *      skinny_prmt_fgeometry below), one word more for the funnel's
 *      second word.  Phase 1 walks consecutive words (conflict-free in every layout); phase 2's lanes take
 *      consecutive pb, so their rows are E input rows = 4*S bytes = S words apart: skinny_vec's run-phase
 *      step, whose bank arithmetic the geometry is chosen for (naive: S = 2^k * odd is 2^k-way, 32-way from
 *      S = 32; pad: 2^(5+m) + 1 words a row, one bank a lane; swizzle: the word slot XOR the row's low bits;
 *      64-word rows where 32 would fold the lanes together: skinny_vec_long_row, session 56)
 *   R  an smk_tile of S rows x W words (log2_cols = lw >= 6 for S <= 64, vector one word): phase 2 stores
 *      consecutive words of one row per warp (W >= 64: a warp is in one row), conflict-free in every layout
 *      (mode 4's S' = 128 / 256: W = 32 / 16, a warp in one / two rows E apart: naive 2-way for W = 16,
 *      pad one word a row apart, swizzle XORs with the row's bank-row bits); phase 3's
 *      lanes load words 4 apart (a lane's chunk is 4 words): 4 wavefronts an instruction, as one LDS.128
 *      of the warp would take, in every layout (naive: but for the tails, one lane a run, rows W words
 *      apart); pad adds one word a row, swizzle XORs the low 5 column bits with the row's.
 * plan.cu replays exactly these offsets (skinny_prmt_plan) for explain().
 * Grid: x = tile along the long side, y + 65535 z = matrix of the batch (launch.cu's launch_skinny_prmt).
 *
 * Mode 4's wide class (S = 65..256, session 38): the same three phases on skinny_vec_lt's 16 KB tile of S'
 * x T (S' = S to a power of two; bytes T = 128 / 64, halves 64 / 32 for S' = 128 / 256), so a run is W = 32
 * / 16 words = 8 / 4 16-byte chunks and phase 3's misaligned runs store two edge chunks as aligned pieces
 * in W / 4 + 1 (the tail steps: items t + 256 j < 2S, two steps past S = 128); the thread counts hold (S' * W = 2^12 words).
 */
#ifndef SMK_TRANSPOSE_SKINNY_PRMT_CUH
#define SMK_TRANSPOSE_SKINNY_PRMT_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "layout.h"
#include "transpose/global.cuh"
#include "transpose/skinny_vec.cuh"
#include "transpose/unit.cuh"

namespace {

/* log2 words of a run in a tile of 2^lt elements. */
SMK_HD int skinny_prmt_lw(int lt, int esz) { return lt + (esz == 2 ? 1 : 0) - 2; }

/* Phase 3's steps: S runs of W / 4 16-byte chunks (S * W <= 2^12 words) over the threads; then the tail steps,
 * items t + 256 j < 2S (two a run: S <= 256, configs.h's kPrmtMaxShort, plan.cu checks). */
constexpr int kPrmtChunkSteps = kVecSteps / 4, kPrmtTailSteps = 2;

/* Unit steps of a thread, at most: W * ceil(S / E) units over the threads, W = 2^14 / (S' * esz * E) (S' = S
 * to a power of two): 4 (bytes) / 8 (halves) for S' >= E, up to 16 for S' = 1 (one unit row of E a run,
 * S of them in use).  The loop stops at the first step past the units. */
SMK_HD int skinny_prmt_units(int esz) { return (void)esz, kVecSteps; }

/* Buffer R: S rows (runs) of 2^lw words.  lw = 4 (mode 4's S' = 256): a warp's phase 2 spans rows s and
 * s + E (units sb, sb + 1), both in the same 16-bank half of a bank row (64 / 32 words apart): 2-way in naive
 * and pad (17 words a row: 68 / 34 words, 12 / 14 banks shared) and in the automatic Swizzle<4,0,5>, which
 * XORs within the half.  So swizzle names Swizzle<5, 0, log2 E>: word bits 0-4 XOR bits log2 E .. log2 E + 4
 * (XOR with strictly higher bits: a bijection, within each 32-word pair of rows), which puts the half of
 * row s at bit 0 XOR bit log2 E of s -- rows s, s + E (phase 2) and s, s + 1 (case A's phase 1) in different
 * halves -- and spreads phase 3's lanes over the low bits (a model of phase 2 stores + phase 3 loads over
 * random run offsets, S = 129..256: 67 wavefronts a warp for bytes, 79 for halves, against 79 / 93 for the
 * automatic swizzle and 80 / 80 for pad; tests/test_transpose_skinny_wide.py checks explain's counts). */
SMK_HD smk_tile skinny_prmt_rgeometry(int layout, int lw, int esz)
{
    return lw == 4 ? smk_tile{layout, lw, 0, 2, 5, 0, esz == 1 ? 2 : 1} : smk_tile{layout, lw, 0, 2, 0, 0, 0};
}

/* F's map for case A's narrow element-store class (knob transpose_skinny = 5: S <= 64 not a power of two, S *
 * esz off words, so PrmtBlockA<.., false>): one row of 2^12 words, which holds the whole of F (at most
 * 4096 - 4096 / S' + 2 words for such S).  Why: phase 2's lanes are S words apart, so naive's map is
 * conflict-free for odd S and 2-way for S = 2 mod 4, and rows inside a warp's span are what break that:
 * skinny_vec's 32-word rows made pad 2-way for most S and 24-way for S = 31 (bank (S*i + S*i / 32) mod 32 =
 * 31 for every lane), swizzle 2-15-way (S = 11, 31, 33 worst) -- the worst draw of seed 126, 62x31x294359
 * uint8 (layout pad), spent 24 wavefronts a shared store in skinny_vec's scatter.  In one row pad and swizzle
 * reduce to naive's map (pad's one word is past the row; swizzle XORs with row 0), the three layouts the same
 * kernel but for that map.  Powers of two (S = 1, 2 bytes, 1 half) fill F to 4098 words: they keep
 * skinny_vec's geometry, where their lanes 1 / 2 words apart stay within a row. */
constexpr int kPrmtNarrowLog2Row = 12;

SMK_HD bool skinny_prmt_narrow_f(int runs_in, int s, int esz)
{
    return runs_in && s <= kVecMaxShort && s * esz % 4 != 0 && (s & (s - 1)) != 0;
}

/* F's geometry: skinny_vec's, or the narrow class's single row. */
SMK_HD smk_tile skinny_prmt_fgeometry(int layout, int s, int esz, int runs_in)
{
    return skinny_prmt_narrow_f(runs_in, s, esz) ? smk_tile{layout, kPrmtNarrowLog2Row, 0, 2}
                                                 : skinny_vec_geometry(layout, s, esz);
}

/* Buffer F in bytes: the flat words (bytes [0, mis + T*S*esz), mis < 4) and one more, in F's geometry. */
SMK_HD int skinny_prmt_fbytes(int layout, int s, int lt, int esz, int runs_in)
{
    const smk_tile tl = skinny_prmt_fgeometry(layout, s, esz, runs_in);
    const int words = ((s << lt) * esz + 3) / 4 + 2, row = 1 << tl.log2_cols;
    return smk_tile_elems(tl, (words + row - 1) / row) * 4;
}

/* The block's shared memory: F, then R (F is a whole number of words; R's words stay aligned), S rows, and
 * in case A ceil(S / W) more (runs_in: the runs' tail words, run s's at row S' + s / W, word s mod W, S' = S
 * to an even count so that a warp's two tail rows for W = 16 are a swizzle pair; one row for S <= 64), to an
 * even count for lw = 4.  At most 40.7 KB (S = 2 halves, pad); mode 4's S = 65..256: 16.8-36.0 KB. */
SMK_HD int skinny_prmt_bytes(int layout, int s, int lt, int esz, int runs_in)
{
    const int lw = skinny_prmt_lw(lt, esz), rows = s + (runs_in ? (s & 1) + ((s + (1 << lw) - 1) >> lw) : 0);
    const smk_tile rt = skinny_prmt_rgeometry(layout, lw, esz);
    // lw = 4: swizzle's row pairs whole (an odd last row's words move within its 32-word pair)
    return skinny_prmt_fbytes(layout, s, lt, esz, runs_in) + smk_tile_elems(rt, rows + (lw == 4 ? rows & 1 : 0)) * 4;
}

/* The launcher's F for the kernels (SkinnyVecArgs flc / fbytes), once a launch: narrow = case A's element-store
 * class (PrmtBlockA<.., false>, skinny_prmt_fgeometry's one row where skinny_prmt_narrow_f). */
inline void skinny_prmt_fargs(SkinnyVecArgs *a, int layout, int esz, bool narrow)
{
    a->flc = skinny_prmt_fgeometry(layout, a->s, esz, narrow).log2_cols;
    a->fbytes = skinny_prmt_fbytes(layout, a->s, a->lt, esz, narrow);
}

/* Shared byte of R word (s, j): F's bytes first. */
SMK_HD int skinny_prmt_rslot(smk_tile rt, int fbytes, int s, int j) { return fbytes + smk_tile_offset(rt, s, j) * 4; }

#ifdef __CUDACC__
/* One block's view of its tile: the output runs (run s at rbase + s * rp, nb bytes each), the flat input
 * (F byte x = global byte fa + x, bytes [mis, fend) the tile's), the two buffers' maps. */
template <int L, int ESZ>
struct PrmtBlock {
    typedef typename Unit<ESZ>::T T;
    static constexpr int E = 4 / ESZ;
    const unsigned char *fa, *lo, *hi; // lo / hi: the matrix's input bytes
    unsigned char *rbase;
    int64_t rp;
    int S, nb, mis, fend, lw, t, rbytes0;
    bool clip; // block-uniform: a word of F reaches outside [lo, hi) (global.cuh's words_leave)
    smk_tile ft, rt;

    __device__ __forceinline__ uint32_t *fword(int w) const
    {
        return reinterpret_cast<uint32_t *>(skinny_vec_smem + skinny_vec_slot(ft, 4 * w));
    }
    __device__ __forceinline__ uint32_t *rword(int s, int j) const
    {
        return reinterpret_cast<uint32_t *>(skinny_vec_smem + skinny_prmt_rslot(rt, rbytes0, s, j));
    }

    /* Phase 1: every word of F that holds a tile byte loaded whole (all loads first), stored whole.  The tiles
     * at the matrix's ends where a word of F straddles its first or last byte (clip): one word at a time, through
     * global.cuh's load_word_in (byte by byte at the matrix's ends). */
    __device__ __forceinline__ void flat_in() const
    {
        if (clip) {
#pragma unroll 1
            for (int x = 4 * t; x < fend; x += 4 * kVecThreads)
                *fword(x >> 2) = load_word_in(fa + x, lo, hi);
            return;
        }
        uint32_t v[kVecSteps + 1];
#pragma unroll
        for (int k = 0; k <= kVecSteps; k++) {
            const int x = 4 * (t + k * kVecThreads); // F is at most 4 * (kVecSteps * 256 + 1) bytes of tile
            v[k] = x < fend ? *reinterpret_cast<const uint32_t *>(fa + x) : 0u; // predicated: all in flight
        }
        // word t + 256 k: F's rows are at most 2^8 words (S <= 256), so 256 words are whole rows and naive's and
        // pad's slot moves by one constant a step (swizzle's does not: its XOR takes the row's low bits)
        const int t0 = smk_tile_linear(ft, t), step = smk_tile_linear(ft, kVecThreads);
#pragma unroll
        for (int k = 0; k <= kVecSteps; k++) {
            if (4 * ((t & ~31) + k * kVecThreads) >= fend)
                break; // the warp's first lane past the tile: a branch, not stores issued with no lane active
            const int w = L == SMK_SWIZZLE ? smk_tile_linear(ft, t + k * kVecThreads) : t0 + k * step;
            if (4 * (t + k * kVecThreads) < fend)
                *reinterpret_cast<uint32_t *>(skinny_vec_smem + 4 * w) = v[k];
        }
    }

    /* Phase 2: units (pb, sb), pb along the lanes; rows of F to words (AL: every row starts on a word, one
     * LDS; else two and a funnel shift), transposed, to R. */
    template <bool AL>
    __device__ __forceinline__ void units() const
    {
        const int SB = (S + E - 1) / E, SE = S * ESZ;
#pragma unroll
        for (int k = 0; k < skinny_prmt_units(ESZ); k++) {
            const int u = t + k * kVecThreads, pb = u & ((1 << lw) - 1), sb = u >> lw;
            if (sb >= SB)
                break; // sb grows with k
            const int x0 = mis + (pb * E * S + sb * E) * ESZ;
            uint32_t w[E];
#pragma unroll
            for (int r = 0; r < E; r++) {
                const int x = x0 + r * SE;
                if constexpr (AL)
                    w[r] = *fword(x >> 2);
                else
                    w[r] = __funnelshift_r(*fword(x >> 2), *fword((x >> 2) + 1), 8 * (x & 3));
            }
            transpose_unit<ESZ>(w); // w[c] = elements E*pb .. E*pb + E-1 of run E*sb + c
#pragma unroll
            for (int c = 0; c < E; c++)
                if (sb * E + c < S)
                    *rword(sb * E + c, pb) = w[c];
        }
    }

    /* Phase 3, one 16-byte chunk i of run s: run bytes [b, b + 16), b = 16i - ms (ms = the run's start mod
     * 16), so that the chunk is an aligned 16-byte global word: R words b/4 .. b/4 + 4 (clamped to the row;
     * a clamped word only feeds bytes outside the run), funnel-shifted by b mod 4 bytes.  IN: the chunk lies
     * wholly inside the run (one STG.128, no element path; b >= 0 and b/4 + 3 <= W - 1, so only word 4 clamps). */
    template <bool IN>
    __device__ __forceinline__ void out_chunk(int s, int i) const
    {
        unsigned char *ra = rbase + (int64_t)s * rp;
        const int ms = (int)((uintptr_t)ra & 15), b = 16 * i - ms, w0 = b >> 2, last = (1 << lw) - 1;
        if (!IN && b >= nb)
            return;
        uint32_t r[5], v[4];
#pragma unroll
        for (int m = 0; m < 5; m++)
            r[m] = *rword(s, IN ? (m < 4 ? w0 + m : min(w0 + m, last)) : min(max(w0 + m, 0), last));
#pragma unroll
        for (int m = 0; m < 4; m++)
            v[m] = __funnelshift_r(r[m], r[m + 1], 8 * (b & 3));
        unsigned char *g = ra + b;
        if (IN || (b >= 0 && b + 16 <= nb)) {
            *reinterpret_cast<uint4 *>(g) = make_uint4(v[0], v[1], v[2], v[3]);
            return;
        }
        // an edge: the run's bytes [lo, hi) of the chunk as aligned pieces, 1, 2, 4, 8 bytes up to an 8-byte
        // boundary, then 8, 4, 2, 1 down (at most 8 stores, each a whole number of elements: lo and hi are),
        // where one store an element made a write request at L2 a byte (ncu, session 57: lts write sectors
        // 4.2x the output's for 26x165301x56 uint8, edges two in every run a tile)
        const int lo = max(-b, 0), hi = min(nb - b, 16);
        const uint64_t q0 = (uint64_t)v[1] << 32 | v[0], q1 = (uint64_t)v[3] << 32 | v[2];
        int o = lo;
        if ((o & 1) && o + 1 <= hi)
            put_piece<uint8_t>(g, o, q0, q1), o += 1;
        if ((o & 2) && o + 2 <= hi)
            put_piece<uint16_t>(g, o, q0, q1), o += 2;
        if ((o & 4) && o + 4 <= hi)
            put_piece<uint32_t>(g, o, q0, q1), o += 4;
        if ((o & 8) && o + 8 <= hi)
            put_piece<uint64_t>(g, o, q0, q1), o += 8;
        if (o + 8 <= hi)
            put_piece<uint64_t>(g, o, q0, q1), o += 8;
        if (o + 4 <= hi)
            put_piece<uint32_t>(g, o, q0, q1), o += 4;
        if (o + 2 <= hi)
            put_piece<uint16_t>(g, o, q0, q1), o += 2;
        if (o < hi)
            put_piece<uint8_t>(g, o, q0, q1);
    }

    /* Bytes [o, o + sizeof(P)) of a 16-byte chunk (q1:q0) to g + o, o a multiple of sizeof(P). */
    template <typename P>
    static __device__ __forceinline__ void put_piece(unsigned char *g, int o, uint64_t q0, uint64_t q1)
    {
        *reinterpret_cast<P *>(g + o) = (P)(((o & 8) ? q1 : q0) >> (8 * (o & 7)));
    }

    /* Phase 3: items q = t + 256k: run q >> (lw - 2), chunk q & (W/4 - 1).  A whole block (runs of T
     * elements): every item's chunk lies inside its run but chunk 0 of a run off 16 bytes, which waits, with
     * the run's chunk W/4 (its tail), for the tail steps: items q = t + 256j < 2S, run q >> 1, chunk 0 (q even) or W/4, so
     * that the element path runs in full warps (spread over the main steps, one lane in 16 took it while its
     * warp waited: +21-26% instructions, session 56).  The last block: every chunk through the general path,
     * then chunk W/4 of run t. */
    __device__ __forceinline__ void runs_out() const
    {
        const bool whole = nb == 4 << lw; // block-uniform
#pragma unroll
        for (int k = 0; k < kPrmtChunkSteps; k++) {
            const int q = t + k * kVecThreads, s = q >> (lw - 2), i = q & ((1 << (lw - 2)) - 1);
            if (s >= S)
                break; // s grows with k
            if (!whole)
                out_chunk<false>(s, i);
            else if (i > 0 || ((uintptr_t)(rbase + (int64_t)s * rp) & 15) == 0)
                out_chunk<true>(s, i);
        }
        if (!whole) {
            if (t < S)
                out_chunk<false>(t, 1 << (lw - 2));
            return;
        }
#pragma unroll
        for (int j = 0; j < kPrmtTailSteps; j++) { // items t + 256 j < 2S: S > 128 takes two
            const int q = t + j * kVecThreads;
            if (j > 0 && j * kVecThreads >= 2 * S)
                break; // block-uniform
            if (q < 2 * S && ((uintptr_t)(rbase + (int64_t)(q >> 1) * rp) & 15) != 0)
                out_chunk<false>(q >> 1, (q & 1) << (lw - 2));
        }
    }
};

/* Case A (rows <= cols: the input rows are the runs, the output rows of S the flat side).  OW: every
 * output row starts on a word (S * esz a multiple of 4, the output base on a word: skinny_prmt_fits and the
 * launcher); !OW (mode 4's wide class, any S and output base): F at the output's global word alignment as
 * case B's (F byte x = global byte fa + x, the tile's bytes [mis, fend)), phase 2 stores each element of a
 * unit alone (E * E STS.8 / STS.16 in place of E STS.32; elements past S not stored) and phase 3 stores the
 * words wholly inside [mis, fend) whole, the tile's first and last word element by element (a word
 * shared with the neighbouring tile is never written whole).  Phase 1: every global word of run s that
 * holds a run byte (words j = 0 .. W, W the tail of a misaligned run), loaded whole and stored as R word
 * (s, j) (the tails as R word (S + (S & 1) + s / W, s mod W): skinny_prmt_bytes); phase 2: unit (pb, sb)
 * takes run word pb of runs E*sb + r (R words pb and pb + 1 funnel-shifted by ms(s)), transposes it and
 * stores output row E*pb + c's E elements of runs E*sb .. as F word
 * ((E*pb + c)*S + E*sb)*esz / 4 (phase 2's lanes S words apart, as case B's row loads); phase 3: F word
 * by word to the output (LDS.32 -> STG.32: every word whole). */
template <int L, int ESZ, bool OW>
struct PrmtBlockA {
    typedef typename Unit<ESZ>::T T;
    static constexpr int E = 4 / ESZ;
    const unsigned char *rbase, *lo, *hi; // input run s at rbase + s * rp; lo / hi: the matrix's input bytes
    unsigned char *fa;                    // the output rows' first word (OW: mis = 0)
    int64_t rp;
    int S, nb, mis, fend, lw, t, rbytes0;
    bool clip; // block-uniform: a run word reaches outside [lo, hi) (global.cuh's words_leave)
    smk_tile ft, rt;

    __device__ __forceinline__ uint32_t *fword(int w) const
    {
        return reinterpret_cast<uint32_t *>(skinny_vec_smem + skinny_vec_slot(ft, 4 * w));
    }
    /* R word j of run s, j in [0, W]: word W (the tail) in row S + (S & 1) + s / W, word s mod W. */
    __device__ __forceinline__ uint32_t *rword(int s, int j) const
    {
        const int tail = j >> lw, W1 = (1 << lw) - 1;
        return reinterpret_cast<uint32_t *>(
            skinny_vec_smem + skinny_prmt_rslot(rt, rbytes0, tail ? S + (S & 1) + (s >> lw) : s, tail ? s & W1 : j));
    }

    /* The run's start mod 4 (32-bit arithmetic: only the low bits matter). */
    __device__ __forceinline__ int ms_of(int s) const
    {
        return (int)(((uint32_t)(uintptr_t)rbase + (uint32_t)s * (uint32_t)rp) & 3);
    }

    /* Run item k (k == kVecSteps: word W of run t): (s, j), false when the thread has none. */
    __device__ __forceinline__ bool item(int k, int &s, int &j) const
    {
        const int q = t + k * kVecThreads;
        s = k < kVecSteps ? q >> lw : t;
        j = k < kVecSteps ? q & ((1 << lw) - 1) : 1 << lw;
        return s < S && 4 * j - ms_of(s) < nb;
    }

    /* Run s's global word j (its aligned word under the run's byte 4 j - ms). */
    __device__ __forceinline__ const unsigned char *at(int s, int j) const
    {
        return rbase + (int64_t)s * rp - ms_of(s) + 4 * j;
    }

    /* Items [K0, K1): every load in flight (predicated), then the stores. */
    template <int K0, int K1>
    __device__ __forceinline__ void runs_in() const
    {
        uint32_t v[K1 - K0];
        int s, j;
#pragma unroll
        for (int k = K0; k < K1; k++)
            v[k - K0] = item(k, s, j) ? *reinterpret_cast<const uint32_t *>(at(s, j)) : 0u;
#pragma unroll
        for (int k = K0; k < K1; k++)
            if (item(k, s, j))
                *rword(s, j) = v[k - K0];
    }

    /* Every item, one word at a time through global.cuh's load_word_in (byte by byte at the matrix's ends): the
     * tiles at the matrix's ends where a run word straddles its first or last byte (clip). */
    __device__ __forceinline__ void runs_in_clipped() const
    {
        int s, j;
#pragma unroll 1
        for (int k = 0; k <= kVecSteps; k++)
            if (item(k, s, j))
                *rword(s, j) = load_word_in(at(s, j), lo, hi);
    }

    __device__ __forceinline__ void units() const
    {
        const int SB = (S + E - 1) / E; // OW: S / E (S a multiple of E)
#pragma unroll
        for (int k = 0; k < skinny_prmt_units(ESZ); k++) {
            const int u = t + k * kVecThreads, pb = u & ((1 << lw) - 1), sb = u >> lw;
            if (sb >= SB)
                break; // sb grows with k
            uint32_t w[E];
#pragma unroll
            for (int r = 0; r < E; r++) {
                const int s = sb * E + r;
                w[r] = OW || s < S ? __funnelshift_r(*rword(s, pb), *rword(s, pb + 1), 8 * ms_of(s)) : 0u;
            }
            transpose_unit<ESZ>(w); // w[c] = elements E*sb .. E*sb + E-1 of output row E*pb + c
#pragma unroll
            for (int c = 0; c < E; c++) {
                const int x = mis + ((pb * E + c) * S + sb * E) * ESZ;
                if constexpr (OW) {
                    *fword(x >> 2) = w[c];
                } else {
#pragma unroll
                    for (int e = 0; e < E; e++)
                        if (sb * E + e < S)
                            *reinterpret_cast<T *>(skinny_vec_smem + skinny_vec_slot(ft, x + e * ESZ)) =
                                (T)(w[c] >> (8 * ESZ * e));
                }
            }
        }
    }

    /* Phase 3: F word x to global word fa + x; !OW: the words not wholly inside [mis, fend) element by
     * element (the tile's first and last). */
    __device__ __forceinline__ void flat_out() const
    {
#pragma unroll
        for (int k = 0; k <= kVecSteps; k++) {
            if (4 * ((t & ~31) + k * kVecThreads) >= fend)
                break; // as flat_in's stores: no shared load issued with no lane active
            const int x = 4 * (t + k * kVecThreads);
            if (x >= fend)
                continue;
            const uint32_t v = *fword(x >> 2);
            if (OW || (x >= mis && x + 4 <= fend)) {
                *reinterpret_cast<uint32_t *>(fa + x) = v;
            } else {
#pragma unroll
                for (int e = 0; e < E; e++)
                    if (x + e * ESZ >= mis && x + e * ESZ < fend)
                        *reinterpret_cast<T *>(fa + x + e * ESZ) = (T)(v >> (8 * ESZ * e));
            }
        }
    }
};

template <int L, int ESZ, bool OW>
__global__ void __launch_bounds__(kVecThreads, 4) skinny_prmt_a_kernel(const SkinnyVecArgs a)
{
    static_assert(ESZ == 1 || ESZ == 2, "word-wise skinny: sub-word elements only");
    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return; // uniform per block, before the barriers
    PrmtBlockA<L, ESZ, OW> k;
    k.S = a.s;
    k.t = threadIdx.x;
    const int64_t p0 = (int64_t)blockIdx.x << a.lt;
    const int n = (int)(a.cols - p0 < (1 << a.lt) ? a.cols - p0 : 1 << a.lt); // [1, T]
    k.rbase = a.in + (b * a.in_bs + p0) * ESZ;
    k.rp = a.in_rs * ESZ;
    unsigned char *fb = a.out + (b * a.rows * a.cols + p0 * k.S) * ESZ; // OW: on a word (the launcher's condition)
    k.mis = OW ? 0 : (int)((uintptr_t)fb & 3);
    k.fa = fb - k.mis;
    k.nb = n * ESZ;
    k.fend = k.mis + n * k.S * ESZ;
    k.lw = skinny_prmt_lw(a.lt, ESZ);
    k.ft = smk_tile{L, a.flc, 0, 2}; // skinny_prmt_fgeometry(L, S, ESZ, !OW), from the launcher (OW: skinny_vec's)
    k.rt = skinny_prmt_rgeometry(L, k.lw, ESZ);
    k.rbytes0 = a.fbytes; // skinny_prmt_fbytes(L, S, lt, ESZ, !OW)
    k.lo = a.in + b * a.in_bs * ESZ;
    k.hi = k.lo + ((k.S - 1) * a.in_rs + a.cols) * ESZ;
    k.clip = words_leave<4>(k.rbase, k.rbase + (k.S - 1) * k.rp + k.nb, k.lo, k.hi);
    if (k.clip) {
        k.runs_in_clipped();
    } else { // two halves: all 17 loads at once spill at 64 registers
        k.template runs_in<0, kVecSteps / 2>();
        k.template runs_in<kVecSteps / 2, kVecSteps + 1>();
    }
    __syncthreads();
    k.units();
    __syncthreads();
    k.flat_out();
}

/* tparams: L the smk_layout of both buffers, ESZ 1 or 2.  At least 4 blocks an SM, as skinny_vec. */
template <int L, int ESZ>
__global__ void __launch_bounds__(kVecThreads, 4) skinny_prmt_kernel(const SkinnyVecArgs a)
{
    static_assert(ESZ == 1 || ESZ == 2, "word-wise skinny: sub-word elements only");
    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return; // uniform per block, before the barriers
    PrmtBlock<L, ESZ> k;
    k.S = a.s;
    k.t = threadIdx.x;
    const int64_t p0 = (int64_t)blockIdx.x << a.lt;
    const int n = (int)(a.rows - p0 < (1 << a.lt) ? a.rows - p0 : 1 << a.lt); // [1, T]
    k.rbase = a.out + (b * a.rows * a.cols + p0) * ESZ;
    k.rp = a.rows * ESZ;
    const unsigned char *fb = a.in + (b * a.in_bs + p0 * a.in_rs) * ESZ; // in_rs == cols == S
    k.mis = (int)((uintptr_t)fb & 3);
    k.fa = fb - k.mis;
    k.nb = n * ESZ;
    k.fend = k.mis + n * k.S * ESZ;
    k.lo = a.in + b * a.in_bs * ESZ;
    k.hi = k.lo + a.rows * a.cols * ESZ;
    k.clip = words_leave<4>(k.fa + k.mis, k.fa + k.fend, k.lo, k.hi);
    k.lw = skinny_prmt_lw(a.lt, ESZ);
    k.ft = smk_tile{L, a.flc, 0, 2}; // skinny_vec_geometry(L, S, ESZ), from the launcher
    k.rt = skinny_prmt_rgeometry(L, k.lw, ESZ);
    k.rbytes0 = a.fbytes; // skinny_prmt_fbytes(L, S, lt, ESZ, 0)
    k.flat_in();
    __syncthreads();
    if (((k.mis | k.S * ESZ) & 3) == 0) // block-uniform: every input row starts on a word
        k.template units<true>();
    else
        k.template units<false>();
    __syncthreads();
    k.runs_out();
}
#endif

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_PRMT_CUH */
