/*
 * transpose/lean.cuh -- the lean global paths of the 1- and 2-byte tiled kernel (transpose_kernel's MID = 2,
 * knob transpose_mid = 2): odd-pitch interior tiles and edge tiles with contiguous rows, as whole aligned
 * words, with everything that does not depend on the unit j hoisted out of the j loop.
 *
 * Why (ncu, H200, session 43: /work/wt/data/ncu43_t.txt): off the aligned interior path the 1- and 2-byte
 * tiles are issue-bound.  Odd-pitch interior tiles issued 0.51 warp instructions a matrix byte (aligned:
 * 0.20), edge tiles, element by element, 0.74-1.28 (38x319020x71 uint8 1.28, and one L2 write sector per
 * byte store).  Both paths recomputed per word (j, k) what only depends on k: the row's 64-bit address (a
 * multiply), its shift s = address mod 4, the lane's clip against the row.
 *
 * THE INVARIANT.  Thread (tx, ty)'s word k of unit j lies in input row r0 + ty*E + j*ROWS*E + k (output row
 * c0 + ty*E + j*ROWS*E + k), at byte col = (c0 + tx*E)*ESZ of it (r0 + tx*E for the output).  Unit rows j are
 * ROWS*E rows apart (32 for the uint8 32x8 tile, 16 for fp16 64x8), so their pitch times ROWS*E is a multiple
 * of 4, so s, the lane's aligned word's place in the row, and which of its bytes lie inside the row
 * depend on k and the lane, not on j: they are computed once per k (k is the outer loop), and j only steps a
 * 64-bit pointer by a per-thread constant.  Rows past the matrix: one compare of j*ROWS*E + k against the
 * thread's valid row count.
 *
 * Loads (lane i: the aligned word under its first byte, and lane 31 the word after; re-aligned with lane i+1's
 * word by one funnel shift, as kernel.cuh's odd path): the word whole wherever it lies inside the row's bytes
 * [0, rb); the one word straddling the row's start (lane 0 of tile column 0) or end as a byte + a half piece
 * (load_piece), in a branch that only warps holding such a lane take; nothing outside the row is read.  rb >= 4
 * is required (else the caller takes the element path): then a straddling word has one end on a word
 * boundary, which load_piece wants.
 * Stores (lane i: aligned word i from its bytes and lane i-1's; lane 31 the s bytes after): each warp writes
 * exactly its own bytes [lo, hi) of the output row, hi = min(lo + 128, pitch): whole words inside, the two
 * partial words as a byte + a half piece (store_piece), predicated, each lane at most one piece a word; a warp
 * whose range is 1-3 bytes (a piece may sit inside one word) stores them byte by byte.  The output is always a
 * plain C-contiguous byte range, so every output takes this path (transpose_odd_path = 0 included).
 * Shared memory sees exactly the plain kernel's accesses (the same registers arrive at part 2 and leave part 4).
 */
#ifndef SMK_TRANSPOSE_LEAN_CUH
#define SMK_TRANSPOSE_LEAN_CUH

#include <cstdint>

#include "transpose/global.cuh"

namespace {

template <int ESZ, int TILE, int ROWS>
struct Lean {
    typedef uint32_t W;
    typedef Regs<ESZ, TILE, ROWS> R;
    typedef Block<TILE * Unit<ESZ>::E> B;
    static constexpr int E = Unit<ESZ>::E, P = Unit<ESZ>::P, N = TILE / ROWS, TE = TILE * E;
    static constexpr int JR = ROWS * E; // element rows between units j and j + 1

    /* Element rows / output rows of the thread's stripe inside the matrix, clamped to [0, TE]. */
    static __device__ __forceinline__ int valid(int64_t n, int64_t first)
    {
        const int64_t v = n - first;
        return v < 0 ? 0 : v > TE ? TE : (int)v;
    }

    /* The input side takes the tile: contiguous columns (rows on words or not) and rows of at least 4 bytes. */
    static __device__ __forceinline__ bool load_ok(const Args &a) { return (a.in_vec || a.in_odd) && a.cols * ESZ >= 4; }

    /* Bytes of a row from byte `from` on, clamped to [-8, 136]: every compare below is against a small constant. */
    static __device__ __forceinline__ int room(int64_t rb, int64_t from)
    {
        const int64_t r = rb - from;
        return r < -8 ? -8 : r > 136 ? 136 : (int)r;
    }

    /* Part 1: w[j][k] = element row k of unit (ty + j*ROWS, tx), as kernel.cuh's odd path leaves it. */
    static __device__ __forceinline__ void load(R &w, const Args &a, const B &b)
    {
        static_assert(ESZ <= 2 && JR % 4 == 0, "sub-word units (a lane's word: 4 bytes), unit rows a multiple of 4 apart");
        const int lane = b.tx() & 31;
        const int64_t rs = a.in_rs * ESZ, rb = b.cols * ESZ;       // row pitch (any sign), row bytes
        const int64_t col = (b.c0() + (int64_t)b.tx() * E) * ESZ; // the lane's first byte in its rows: 0 or >= 4
        const unsigned char *row = b.in + (b.r0() + (int64_t)b.ty() * E) * rs + col; // (j, k) = (0, 0)
        const int64_t step = JR * rs;
        const int nr = valid(b.rows, b.r0() + (int64_t)b.ty() * E);
        int sh[P]; // 8 s per k
        const bool fix = load_words(w, sh, row, rs, step, nr, room(rb, col), col == 0);
        const W x = load_next(row, rs, step, nr, rb, col, lane);
        if (__any_sync(0xffffffffu, fix)) // uniform per warp
            load_ends(w, sh, row - col, rs, step, nr, rb, col - 4 * lane, lane);
        if (a.in_vec) // rows on words: nothing to re-align (uniform)
            return;
#pragma unroll
        for (int k = 0; k < P; k++)
#pragma unroll
            for (int j = 0; j < N; j++) {
                W hi = __shfl_down_sync(0xffffffffu, w[j][k], 1);
                const W xv = __shfl_sync(0xffffffffu, x, j * P + k);
                if (lane == 31)
                    hi = xv;
                w[j][k] = __funnelshift_r(w[j][k], hi, sh[k]);
            }
    }

    /* Every whole word: the lane's aligned word [col - s, col - s + 4) of row (j, k) where it lies inside the row
     * (rm = the row's bytes from col on, clamped; head: col == 0, the word starts before the row when s != 0),
     * else 0.  Returns whether some word of the lane straddles the row's start or end. */
    static __device__ __forceinline__ bool load_words(R &w, int (&sh)[P], const unsigned char *row, int64_t rs,
                                                      int64_t step, int nr, int rm, bool head)
    {
        bool fix = false;
#pragma unroll
        for (int k = 0; k < P; k++) {
            const unsigned char *p = row + k * rs;
            const int s = (int)((uintptr_t)p & 3);
            sh[k] = 8 * s;
            const bool whole = !(head && s != 0) && 4 - s <= rm;
            fix |= !whole && -s < rm;
            const unsigned char *q = p - s; // stepped by the unit rows' pitch: one 64-bit add a word
#pragma unroll
            for (int j = 0; j < N; j++, q += step)
                w[j][k] = j * JR + k < nr && whole ? *reinterpret_cast<const W *>(q) : 0;
        }
        return fix;
    }

    /* Lane 31's word after the warp's, for word (j, k) = (t / P, t % P), loaded by lane t < N * P: one register a
     * thread in place of N * P (lanes are 4 bytes apart: lane 31's byte is 4 (31 - t) further on). */
    static __device__ __forceinline__ W load_next(const unsigned char *row, int64_t rs, int64_t step, int nr,
                                                  int64_t rb, int64_t col, int lane)
    {
        const int jt = lane / P, kt = lane % P;
        const unsigned char *p = row + kt * rs + jt * step + 4 * (31 - lane);
        const int s = (int)((uintptr_t)p & 3), r31 = room(rb, col + 4 * (31 - lane)) + s; // past lane 31's word
        W x = 0;
        if (lane < N * P && jt * JR + kt < nr && s != 0 && r31 > 4)
            x = r31 >= 8 ? *reinterpret_cast<const W *>(p - s + 4) : load_piece(p - s + 4, r31 - 4);
        return x;
    }

    /* The words straddling the row's start (lane 0 of tile column 0) or end, all N * P of them at once, as pieces
     * loaded by other lanes -- lane t < 16 the start's of word (t / P, t % P), lane 16 + t the end's -- and handed
     * over with a shuffle each: in place of N * P piece loads by the whole warp for one lane.  Row (j, k) starts
     * at R (here row0 + k rs + j step; s = R mod 4, every lane's); its lanes' words sit at offsets c - s (c: a
     * lane's first byte, a multiple of 4); the one holding byte rb - 1 is at ce - s, partial where (rb + s) mod 4
     * != 0.  lo: the warp's first byte in the row. */
    static __device__ __forceinline__ void load_ends(R &w, const int (&sh)[P], const unsigned char *row0, int64_t rs,
                                                     int64_t step, int nr, int64_t rb, int64_t lo, int lane)
    {
        static_assert(N * P <= 16, "one lane a word on each side");
        const int t = lane & 15, jt = t / P, kt = t % P;
        const unsigned char *r = row0 + kt * rs + jt * step; // R of row (jt, kt)
        const int s = (int)((uintptr_t)r & 3);
        const int64_t ce = rb - 1 - ((rb - 1 + s) & 3) + s;  // the lane holding the row's end: its c
        W pc = 0;
        if (t < N * P && jt * JR + kt < nr) {
            if (lane < 16 && lo == 0 && s != 0) // bytes [0, 4 - s) of the row: lane 0's word, from its byte s
                pc = load_piece(r, 4 - s) << (8 * s);
            if (lane >= 16 && ((rb + s) & 3) != 0 && ce >= lo && ce < lo + 128) // [ce - s, rb): a piece
                pc = load_piece(r + ce - s, (int)(rb - ce + s));
        }
        int tl[P]; // the lane holding the row's end when its word is partial, per k (-1: not this warp's)
#pragma unroll
        for (int k = 0; k < P; k++) {
            const int sk = sh[k] >> 3;
            const int64_t d = rb - 1 - ((rb - 1 + sk) & 3) + sk - lo;
            tl[k] = ((rb + sk) & 3) != 0 && d >= 0 && d < 128 ? (int)(d >> 2) : -1;
        }
        const bool l0 = lane == 0 && lo == 0;
#pragma unroll
        for (int k = 0; k < P; k++)
#pragma unroll
            for (int j = 0; j < N; j++) {
                const W hv = __shfl_sync(0xffffffffu, pc, j * P + k);
                const W tv = __shfl_sync(0xffffffffu, pc, 16 + j * P + k);
                if (l0)
                    w[j][k] |= hv;
                if (lane == tl[k])
                    w[j][k] |= tv;
            }
    }

    /* Output row phase k of a warp at shift S (uniform per warp), its bytes [0, lim) of the row (lim == 128, or
     * CLIP: lim in [4, 124], so that lane 31's word after its own is never the warp's): lane i's aligned word i
     * at q whole where it lies inside, but lane 0's when S != 0, whose bytes [S, 4) are v's first 4 - S; with
     * lim == 128 lane 31's word after it takes v's last S bytes; with CLIP the lane whose word holds byte lim - 1
     * stores its first lim - o bytes (o: its word's offset).  Every piece sits at a fixed offset from q. */
    template <int S, bool CLIP>
    static __device__ __forceinline__ void row_fast(const R &w, int k, unsigned char *q, int64_t step, int nc,
                                                    int lane, int lim)
    {
        const int o = 4 * lane - S;                                        // lane's word: [o, o + 4) of the warp's
        const bool l0 = lane == 0, l31 = !CLIP && lane == 31;
        const bool whole = (S == 0 || !l0) && (!CLIP || o + 4 <= lim);
        const int tn = CLIP && o >= 0 && o < lim && lim < o + 4 ? lim - o : 0; // the row's end: its bytes, 1-3
#pragma unroll
        for (int j = 0; j < N; j++, q += step) {
            const W v = w[j][k];
            const W x = S == 0 ? v : __funnelshift_l(__shfl_up_sync(0xffffffffu, v, 1), v, 8 * S);
            if (j * JR + k >= nc) // uniform per warp, after the shuffle
                continue;
            if (whole)
                *reinterpret_cast<W *>(q) = x;
            uint16_t *h = reinterpret_cast<uint16_t *>(q);
            if constexpr (CLIP) { // [0, tn) of the word: a byte, a half, or a half and a byte
                if (tn == 1)
                    q[0] = (unsigned char)x;
                if (tn >= 2)
                    h[0] = (uint16_t)x;
                if (tn == 3)
                    q[2] = (unsigned char)(x >> 16);
            }
            if constexpr (S == 1) {
                if (l0)
                    q[1] = (unsigned char)v, h[1] = (uint16_t)(v >> 8);
                if (l31)
                    q[4] = (unsigned char)(v >> 24);
            } else if constexpr (S == 2) {
                if (l0)
                    h[1] = (uint16_t)v;
                if (l31)
                    h[2] = (uint16_t)(v >> 16);
            } else if constexpr (S == 3) {
                if (l0)
                    q[3] = (unsigned char)v;
                if (l31)
                    h[2] = (uint16_t)(v >> 8), q[6] = (unsigned char)(v >> 24);
            }
        }
    }

    /* Output row phase k at its shift s (uniform per warp) on row_fast. */
    template <bool CLIP>
    static __device__ __forceinline__ void row_phase(const R &w, int k, unsigned char *p, int64_t step, int nc,
                                                     int lane, int lim)
    {
        switch ((int)((uintptr_t)p & 3)) {
        case 0: row_fast<0, CLIP>(w, k, p, step, nc, lane, lim); break;
        case 1: row_fast<1, CLIP>(w, k, p - 1, step, nc, lane, lim); break;
        case 2: row_fast<2, CLIP>(w, k, p - 2, step, nc, lane, lim); break;
        default: row_fast<3, CLIP>(w, k, p - 3, step, nc, lane, lim); break;
        }
    }

    /* Part 5: word k of unit j to output row c0 + (ty + j*ROWS)*E + k, bytes [col, col + 4) of it. */
    static __device__ __forceinline__ void store(const R &w, const Args &a, const B &b)
    {
        const int lane = b.tx() & 31;
        const int64_t pitch = b.rows * ESZ;                       // output row, bytes
        const int64_t col = (b.r0() + (int64_t)b.tx() * E) * ESZ; // the lane's first byte in its rows
        unsigned char *row = b.out + (b.c0() + (int64_t)b.ty() * E) * pitch + col; // (j, k) = (0, 0)
        const int64_t step = JR * pitch;
        const int nc = valid(b.cols, b.c0() + (int64_t)b.ty() * E);
        if (a.out_vec) { // rows on words: a lane's word is all inside the row or all past it
            const bool inside = col < pitch;
#pragma unroll
            for (int k = 0; k < P; k++) {
                unsigned char *q = row + k * pitch;
#pragma unroll
                for (int j = 0; j < N; j++, q += step)
                    if (inside && j * JR + k < nc)
                        *reinterpret_cast<W *>(q) = w[j][k];
            }
            return;
        }
        // The warp's bytes of the row, [0, lim) from its first (room: clamped to [-8, 136]).  The branches test
        // lim itself, never a min() of it: ptxas (nvcc 13.0, sm_90) fused `min(max(lim, 0), 128) == 128` into the
        // predicate output of a VIMNMX.RELU that the device took the other way round, so every warp whose row
        // ends inside its 128 bytes ran the unclipped code and wrote past them (session 43, H100).  Guarded on
        // the CPU by tests/test_transpose_lean.py's test_lean_store_sass (no VIMNMX predicate output left).
        const int lim = room(pitch, col - 4 * lane);
        if (lim >= 128) { // uniform per warp: s picks the code
#pragma unroll
            for (int k = 0; k < P; k++)
                row_phase<false>(w, k, row + k * pitch, step, nc, lane, 128);
        } else if (lim >= 4 && lim <= 124) {
#pragma unroll
            for (int k = 0; k < P; k++)
                row_phase<true>(w, k, row + k * pitch, step, nc, lane, lim);
        } else if (lim < 4) { // 0-3 bytes (lim <= 0: none), lane 0's, byte by byte (a piece may sit inside one word)
#pragma unroll
            for (int k = 0; k < P; k++) {
                unsigned char *q = row + k * pitch;
#pragma unroll
                for (int j = 0; j < N; j++, q += step)
#pragma unroll
                    for (int i = 0; i < 3; i++)
                        if (lane == 0 && i < lim && j * JR + k < nc)
                            q[i] = (unsigned char)(w[j][k] >> (8 * i));
            }
        } else {
            store_clipped(w, row, pitch, step, nc, lim, lane);
        }
    }

    /* A warp whose row ends inside its lane 31's word after its own (lim in [125, 128)): each lane's aligned word whole where it lies
     * in [0, lim), else at most one piece a lane -- the word clipped to [0, lim), or (lane 31) the s bytes
     * after it -- as store_piece splits it (a byte and / or a half), worked out once per k. */
    static __device__ __forceinline__ void store_clipped(const R &w, unsigned char *row, int64_t pitch, int64_t step,
                                                         int nc, int lim, int lane)
    {
#pragma unroll
        for (int k = 0; k < P; k++) {
            unsigned char *p = row + k * pitch;
            const int s = (int)((uintptr_t)p & 3);
            unsigned char *q = p - s;
            const int o = 4 * lane - s; // lane i's aligned word [o, o + 4), bytes from the warp's first
            const bool whole = o >= 0 && o + 4 <= lim;
            const int a0 = o < 0 ? s : 0, a1 = o + 4 <= lim ? 4 : lim - o;
            const bool mp = !whole && a0 < a1;
            const bool xp = lane == 31 && s != 0 && o + 4 < lim;
            const int pa = xp ? 4 : a0, pn = xp ? (lim - o < 4 + s ? lim - o - 4 : s) : a1 - a0; // [pa, pa + pn)
            const bool any = mp || xp;
            const int odd = pa & 1, bpos = odd ? 0 : pn - 1; // the byte outside the half first when pa is odd
            const bool pb = any && (pn & 1), ph = any && pn >= 2;
            const int bsh = xp ? 32 - 8 * s + 8 * bpos : 8 * (pa + bpos), hsh = xp ? 32 - 8 * s + 8 * odd : 8 * (pa + odd);
            unsigned char *qb = q + pa + bpos, *qh = q + pa + odd; // the piece's byte and half
#pragma unroll
            for (int j = 0; j < N; j++, q += step, qb += step, qh += step) {
                const W v = w[j][k];
                const W x = __funnelshift_l(__shfl_up_sync(0xffffffffu, v, 1), v, 8 * s);
                const bool in = j * JR + k < nc; // uniform per warp
                if (in && whole)
                    *reinterpret_cast<W *>(q) = x;
                const W src = xp ? v : x;
                if (in && pb)
                    *qb = (unsigned char)(src >> bsh);
                if (in && ph)
                    *reinterpret_cast<uint16_t *>(qh) = (uint16_t)(src >> hsh);
            }
        }
    }
};

} // namespace

#endif /* SMK_TRANSPOSE_LEAN_CUH */
