/*
 * transpose/gather.cuh -- the 1- and 2-byte tiled transpose as a byte gather from raw rows (knob transpose_gather,
 * configs.h gather_fits; session 53, opt-in).  Every global access is a whole aligned word on both sides
 * whatever the pitches: the re-alignment that lean.cuh does in registers (shuffles, funnel shifts, per-row
 * shift bookkeeping) moves into the shared-memory addresses of LDS.U8 / LDS.U16 at a warp-uniform byte.
 *
 * Why (ncu, H200, session 52/53): off words the lean path issues 52-61 warp instructions per 128 matrix bytes
 * (aligned: 23) and is issue-bound at ~77%; its A/B against this kernel is in docs/TRANSPOSE_NOTES.md.  (Session 55's
 * ncu of this kernel as it was then: ~41 a 128 bytes on 45700x5389 uint8, most of them its load loop's test of every
 * row for the matrix's ends, which inner tiles now skip.)
 *
 * THE TILE.  A block (256 threads, 8 warps) moves input rows [r0, r0 + TR) x bytes [c0 ESZ, c0 ESZ + 128) --
 * TR = 128 or 256 rows of TC = 128 / ESZ elements -- and reads E - 1 more rows below (the halo, E = 4 / ESZ
 * elements a word).  TR = 256 (configs.h gather_tile_rows: calls of >= 128 MiB, session 55) writes each output row
 * 256 ESZ bytes a tile instead of 128 ESZ: longer runs where the call streams from DRAM, half the blocks where it
 * does not (docs/TRANSPOSE_NOTES.md session 55).  A warp loads its rows MH = 17 at a time (64 registers at
 * TR = 256).  Row rho of the tile is parked RAW: slot i = the aligned word i under the row's first byte (its shift
 * s = that byte's address mod 4), slot 0 merged with word 32's first s bytes, so byte p of slot space (p = the
 * element's byte in the row + s, masked to 128) holds every byte of the row's 128 once.  E rows share a
 * logical SUPER ROW (row rho / E, column (rho mod E) * 32 + slot) of a tile of COLS = 32 E words, under layout.h's
 * map for layout L: the gather's lanes walk super rows, which pad (a word a super row) and swizzle (the slot
 * XOR the super row) spread over the banks and naive does not (every lane one bank: 32 ways).
 *
 * THE OUTPUT.  Output row c (input column c) of the tile owns the aligned words that START in its bytes
 * [r0 ESZ, (r0 + TR) ESZ) of the row: exactly TR ESZ / 4 words, the first DE = (bytes to the first word) / ESZ
 * elements in, the last one reaching at most E - 1 rows into the halo.  Lane w builds word w (+ 32 u): element
 * k (k < E) is row j = DE + k (+ E w) at byte p = c ESZ + s_j of its super row -- j, hence the super row's
 * offset and the slot space's shift s_j, is warp-uniform; only w is the lane's.  DE is the same for the 8 rows a
 * warp writes (their starts are 8 output pitches apart): the store loop's addresses are set once per tile from it,
 * and every warp runs the same copy of the loop (gather_rows).
 * Words are whole but where the output row ends inside one (the last tile row: its bytes byte by byte); tile row 0
 * also writes each row's head (the DE elements before its first word) byte by byte, and nothing else is written
 * twice or by two blocks.
 *
 * Nothing outside the input matrix is read: a word straddling its first or last byte (a misaligned base, an
 * odd-length matrix: rows 0 and R - 1 only) is read byte by byte, after the tile's other rows (gather_load); inside the
 * matrix the words that straddle a row's ends read the neighbouring rows' bytes, which the slot space drops.
 */
#ifndef SMK_TRANSPOSE_GATHER_CUH
#define SMK_TRANSPOSE_GATHER_CUH

#include <cstdint>

#include "layout.h"
#include "transpose/global.cuh"

namespace {

template <int ESZ, int TR_ = 128>
struct Gather {
    static constexpr int E = 4 / ESZ, COLS = 32 * E, TR = TR_, TC = 128 / ESZ, NROW = TR + E - 1;
    static constexpr int NM = (NROW + 7) / 8;       // rows a warp loads and stores (rows NROW .. 8 NM - 1: zeros)
    static constexpr int NS = (8 * NM + E - 1) / E; // super rows
    static constexpr int NW = TR * ESZ / 128;       // words a lane per output row
    static constexpr int MH = 17;                 // of them in flight at once (registers: 2 MH)
    static constexpr int THREADS = 256;
    static SMK_HD int WORDS(int layout) { return smk_tile_elems(geometry(layout), NS); }
    static SMK_HD smk_tile geometry(int layout) { return smk_tile{layout, smk_ilog2(COLS), 0, 2, 0, 0, 0}; }
};

/* Byte p (< 128) of a super row's slot space, from y = 4 * smk_tile_offset(r, sub * 32), the byte of its first slot:
 * naive / pad add (the map is r * pitch + c); swizzle XORs -- smk_tile_offset(r, c) = r COLS + (c ^ (r & 31)) for
 * c < COLS, so y = 4 r COLS + 128 sub + 4 (r & 31): the XOR in bits 2-6, bits 0-1 clear, the rest at bit 7 and
 * up, and p (bits 0-6) XORed into it lands on slot (p / 4) ^ (r & 31), byte p mod 4. */
template <int L>
__device__ __forceinline__ int gather_byte(int y, int p)
{
    return L == SMK_SWIZZLE ? (y ^ p) : y + p;
}

/* One output row cc of the warp's store loop (gather_rows): its NW words.  Zk[u][k]: lane word w = lane + 32 u's
 * super-row byte offset for element k's row j = DE + k (pad / naive: + sk[k] + warp ESZ, folded; swizzle: bare);
 * sk[k]: that row's shift; WRAP: cc ESZ + sk may pass 128 (slot 0 again); mo: 8 m ESZ, the output row's place past
 * row `warp` (pad / naive: an immediate where the caller's loop is unrolled). */
template <int L, int ESZ, int TR, bool CHECK, bool WRAP>
__device__ __forceinline__ void gather_row(const unsigned char *tb, const int (&Zk)[Gather<ESZ, TR>::NW][Gather<ESZ, TR>::E],
                                           const int (&sk)[Gather<ESZ, TR>::E], unsigned char *dst, int cc, int mo, int warp,
                                           const int (&nb)[Gather<ESZ, TR>::NW])
{
    typedef Gather<ESZ, TR> G;
    constexpr int E = G::E;
#pragma unroll
    for (int u = 0; u < G::NW; u++) {
        uint32_t val[E];
#pragma unroll
        for (int k = 0; k < E; k++) {
            const int p = cc * ESZ + sk[k];
            int a;
            if (L == SMK_SWIZZLE)
                a = gather_byte<L>(Zk[u][k], p & 127);
            else if (WRAP)
                a = Zk[u][k] + (p & 127) - sk[k] - warp * ESZ;
            else
                a = Zk[u][k] + mo;
            val[k] = ESZ == 1 ? (uint32_t)tb[a] : (uint32_t)*reinterpret_cast<const uint16_t *>(tb + a);
        }
        uint32_t word;
        if constexpr (ESZ == 1)
            word = __byte_perm(__byte_perm(val[0], val[1], 0x0040), __byte_perm(val[2], val[3], 0x0040), 0x5410);
        else
            word = __byte_perm(val[0], val[1], 0x5410);
        unsigned char *q = dst + 128 * u;
        if (!CHECK || nb[u] >= 4) {
            *reinterpret_cast<uint32_t *>(q) = word;
        } else {
#pragma unroll
            for (int b = 0; b < 3; b++)
                if (b < nb[u])
                    q[b] = (unsigned char)(word >> (8 * b));
        }
    }
}

/* The store loop of a warp: output rows cc = warp + 8 m, their first owned word DE elements in (the same for the warp's
 * rows: a run-time value, so that every warp runs one copy of the loop -- session 59: the kernel with a copy per DE was
 * 13.8 k SASS instructions and its warps stalled on instruction fetch 71% of the time, ncu on 1587x85719 uint8; one
 * copy, and the end rows' loads out of the unrolled row loads, leave about 5 k).  Rows m >= M0 may wrap, (8 m + 7) ESZ
 * + 3 >= 128: they take the wrap's arithmetic, the others immediate offsets (pad / naive).  nb[u]: the word's bytes
 * inside the output row (CHECK: the last tile row), cn: output rows of the tile. */
template <int L, int ESZ, int TR, bool CHECK>
__device__ __forceinline__ void gather_rows(const unsigned char *tb, const int (&Zk)[Gather<ESZ, TR>::NW][Gather<ESZ, TR>::E],
                                            const int (&sk)[Gather<ESZ, TR>::E], unsigned char *dst, int64_t step, int warp, int cn,
                                            const int (&nb)[Gather<ESZ, TR>::NW])
{
    constexpr int NM = Gather<ESZ, TR>::TC / 8, M0 = 125 / ESZ / 8; // the first m that may wrap
    static_assert((8 * M0 + 7) * ESZ + 3 >= 128 && (8 * M0 - 1) * ESZ + 3 < 128, "M0: the first row that may wrap");
#pragma unroll
    for (int m = 0; m < NM; m++, dst += step) {
        if (CHECK && warp + 8 * m >= cn)
            return; // uniform per warp
        if (m < M0)
            gather_row<L, ESZ, TR, CHECK, false>(tb, Zk, sk, dst, warp + 8 * m, 8 * m * ESZ, warp, nb);
        else
            gather_row<L, ESZ, TR, CHECK, true>(tb, Zk, sk, dst, warp + 8 * m, 8 * m * ESZ, warp, nb);
    }
}

/* Tile row 0 (r0 = 0): the DE elements before output row c0 + cc's first owned word, row j = lane's (j < DE). */
template <int L, int ESZ, int TR>
__device__ __forceinline__ void gather_heads(const unsigned char *tb, unsigned char *out, int64_t opitch, int j, int sh,
                                             int warp, int cn)
{
    typedef Gather<ESZ, TR> G;
    for (int m = 0; m < G::TC / 8; m++) {
        const int cc = warp + 8 * m;
        if (cc >= cn)
            break;
        const int a = gather_byte<L>(4 * smk_tile_offset(G::geometry(L), 0, j * 32), (cc * ESZ + sh) & 127);
        unsigned char *o = out + cc * opitch + j * ESZ;
#pragma unroll
        for (int b = 0; b < ESZ; b++)
            o[b] = tb[a + b];
    }
}

/* A tile's loads into t (in: the matrix's base; lo / hi: its input bytes): row rho = warp + 8 m, MH rows in flight
 * at a time; the shift s is the warp's for every m (8 pitches: words).  A tile of rows all inside the matrix and
 * none at its first or last byte (every tile but the last tile row and, where the matrix's ends are off words, the first
 * and last tile rows; the last tile column too since session 60, its lanes past the tile's bytes loading the last
 * lane's word again) loads with no test a row; the others test each row against a range (one compare a row), and load
 * the matrix's first and last rows off words (load_word_in, a byte loop where a word straddles an end) after the rest,
 * in a rolled loop that keeps that rare code out of the unrolled loads.  Every warp stores NM rows, rows NROW .. 8 NM - 1 as zeros into
 * spare super rows: nvcc if-converts a store of the partial last row, and warps with no lane on then issue it anyway
 * (ncu, session 59: 5-7 such stores a tile, which explain() did not count). */
template <int L, int ESZ, int TR, bool CHECK>
__device__ __forceinline__ void gather_load(const unsigned char *in, int64_t R, int64_t C, int64_t r0, int64_t c0,
                                            uint32_t *t)
{
    typedef Gather<ESZ, TR> G;
    constexpr int E = G::E, NROW = G::NROW, NM = G::NM;
    constexpr smk_tile tl = G::geometry(L);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t pitch = C * ESZ;
    const unsigned char *lo = in, *hi = in + R * pitch;
    const int rb = CHECK ? (int)min((int64_t)128, (C - c0) * ESZ) : 128; // the tile's bytes of a row
    const int64_t rin = R - r0;                                           // rows of the matrix from the tile's first on
    const int nr = rin < NROW ? (int)rin : NROW;                          // the tile's rows inside the matrix
    const unsigned char *A = in + (r0 + warp) * pitch + c0 * ESZ;
    const int s = (int)((uintptr_t)A & 3);
    // a lane past the tile's bytes (a tile clipped on the right) loads the last lane's word again: no other bytes read,
    // no test a row (its slot is never gathered)
    const uint32_t *q0 = reinterpret_cast<const uint32_t *>(A - s) + (CHECK ? min(lane, (s + rb - 1) >> 2) : lane);
    const bool xv = lane == 0 && s != 0 && 128 < s + rb;
    // A word straddles the matrix's first or last byte only in row 0 or R - 1, and only off words: e0 / e1, those rows'
    // places in the tile where it holds them (else -1), load after the rest.
    const bool ends = (((uintptr_t)lo | (uintptr_t)hi) & 3) != 0;
    const int e0 = ends && r0 == 0 ? 0 : -1, e1 = ends && rin <= NROW ? nr - 1 : -1;
    // Plain: every row inside the matrix, none an end row, also in a tile clipped on the right (all of the narrow case
    // B's: session 60, the per-row tests were 2/3 of its instructions).
    const bool plain = nr == NROW && e0 < 0 && e1 < 0;
    // Not plain: the warp's rows m < mhi are inside (rho = warp + 8 m < nr) and not R - 1 (its last, if it holds it), and
    // its row m = 0 is not row 0 where w0 (ranges, so that a row costs a compare or none: fewer registers than the rows)
    const int mhi = ((nr - warp + 7) >> 3) - (e1 >= warp && ((e1 - warp) & 7) == 0);
    const bool w0 = e0 == warp;
    const uint32_t mk = s ? (1u << (8 * s)) - 1 : 0;
    constexpr int MH = G::MH;
#pragma unroll
    for (int h = 0; h < (NM + MH - 1) / MH; h++) {
        uint32_t v[MH], x[MH];
        if (plain) {
#pragma unroll
            for (int i = 0; i < MH; i++) {
                const int m = h * MH + i, rho = warp + 8 * m;
                v[i] = x[i] = 0;
                if (m < NM && (8 * m + 7 < NROW || rho < NROW)) {
                    v[i] = q0[m * 2 * pitch];
                    if (xv)
                        x[i] = q0[m * 2 * pitch + 32];
                }
            }
        } else { // the matrix's end rows off words stay 0 here: the rolled loop below loads them
#pragma unroll
            for (int i = 0; i < MH; i++) {
                const int m = h * MH + i;
                const uint32_t *q = q0 + m * 2 * pitch;
                const bool in_ = m < NM && m < mhi && (m != 0 || !w0);
                v[i] = in_ ? q[0] : 0;
                x[i] = in_ && xv ? q[32] : 0;
            }
        }
#pragma unroll
        for (int i = 0; i < MH; i++) {
            const int m = h * MH + i, rho = warp + 8 * m;
            if (m >= NM) // every warp stores NM rows, those past the halo zeros: no warp issues an idle store (below)
                break;
            t[smk_tile_offset(tl, rho / E, (rho % E) * 32 + lane)] = lane == 0 ? (x[i] & mk) | (v[i] & ~mk) : v[i];
        }
    }
    if (!plain) { // rows 0 and R - 1 of the matrix off words, where the tile holds them: their words clipped to its bytes
#pragma unroll 1
        for (int e = 0; e < 2; e++) {
            const int rho = e ? e1 : e0; // the row's place in the tile
            if (rho < 0 || (rho & 7) != warp || (e == 1 && e1 == e0))
                continue; // uniform per warp
            const uint32_t *q = q0 + (rho >> 3) * 2 * pitch;
            const uint32_t v = load_word_in(reinterpret_cast<const unsigned char *>(q), lo, hi);
            const uint32_t x = xv ? load_word_in(reinterpret_cast<const unsigned char *>(q + 32), lo, hi) : 0;
            t[smk_tile_offset(tl, rho / E, (rho % E) * 32 + lane)] = lane == 0 ? (x & mk) | (v & ~mk) : v;
        }
    }
}

/* One tile, one matrix (in / out: its bases). */
template <int L, int ESZ, int TR, bool CHECK>
__device__ __forceinline__ void gather_tile(const unsigned char *in, unsigned char *out, int64_t R, int64_t C, int64_t r0,
                                            int64_t c0, uint32_t *t)
{
    typedef Gather<ESZ, TR> G;
    constexpr int E = G::E;
    constexpr smk_tile tl = G::geometry(L);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t pitch = C * ESZ;
    gather_load<L, ESZ, TR, CHECK>(in, R, C, r0, c0, t);
    __syncthreads();
    // Stores: the warp's output rows c0 + warp + 8 m, their bytes from r0 on; DE the same for each.
    const int64_t opitch = R * ESZ;
    unsigned char *B0 = out + (c0 + warp) * opitch + r0 * ESZ;
    const int d = (int)((-(intptr_t)B0) & 3), de = d / ESZ;
    const unsigned char *tb = reinterpret_cast<const unsigned char *>(t);
    const int s0 = (int)((uintptr_t)(in + r0 * pitch + c0 * ESZ) & 3), p3 = (int)(pitch & 3);
    int sk[E], Zk[G::NW][E], nb[G::NW];
#pragma unroll
    for (int k = 0; k < E; k++) {
        const int j = de + k; // row j of the tile holds element k of the warp's words (+ E w)
        sk[k] = (s0 + j * p3) & 3;
    }
#pragma unroll
    for (int u = 0; u < G::NW; u++) {
        const int w = lane + 32 * u;
#pragma unroll
        for (int k = 0; k < E; k++) {
            const int j = de + k, y = 4 * smk_tile_offset(tl, w + (j >= E), (j % E) * 32);
            Zk[u][k] = L == SMK_SWIZZLE ? y : y + sk[k] + warp * ESZ;
        }
        nb[u] = CHECK ? (int)max((int64_t)0, min((int64_t)4, (R - (r0 + de + E * w)) * ESZ)) : 4;
    }
    const int cn = CHECK ? (int)min((int64_t)G::TC, C - c0) : G::TC;
    gather_rows<L, ESZ, TR, CHECK>(tb, Zk, sk, B0 + d + 4 * lane, 8 * opitch, warp, cn, nb);
    if (r0 == 0 && de > 0 && lane < de) // tile row 0: the rows' heads
        gather_heads<L, ESZ, TR>(tb, out + c0 * opitch, opitch, lane, (s0 + lane * p3) & 3, warp, cn);
}

/* Grid: x = tile (Args' raster: groups of a.group tile rows walked column by column), y + 65535 z = matrix. */
template <int L, int ESZ, int TR>
__global__ void __launch_bounds__(Gather<ESZ, TR>::THREADS, 4) transpose_gather_kernel(const Args a)
{
    typedef Gather<ESZ, TR> G;
    __shared__ uint32_t t[G::WORDS(L)];
    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return;
    int ty, tx; // 32-bit: grid_tiles keeps tiles_x * tiles_y <= INT32_MAX (64-bit divisions cost ~30% of the instructions)
    smk::group_tile_rt<int>((int)a.group, (int)blockIdx.x, (int)a.tiles_y, (int)a.tiles_x, &ty, &tx);
    const int64_t r0 = (int64_t)ty * G::TR, c0 = (int64_t)tx * G::TC;
    const unsigned char *in = a.in + b * a.in_bs * ESZ;
    unsigned char *out = a.out + b * a.rows * a.cols * ESZ;
    if (r0 + G::NROW <= a.rows && c0 + G::TC <= a.cols) // every row and halo row inside, every column
        gather_tile<L, ESZ, TR, false>(in, out, a.rows, a.cols, r0, c0, t);
    else
        gather_tile<L, ESZ, TR, true>(in, out, a.rows, a.cols, r0, c0, t);
}

} // namespace

#endif /* SMK_TRANSPOSE_GATHER_CUH */
