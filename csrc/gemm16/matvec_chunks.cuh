/* D as aligned 16-byte row chunks at any row offset (the memory-bound path's 2-byte stores; no shared memory):
 * the window / partial-chunk helpers of TINYK16 (gemm16_tinyk.cu) and the MMA kernel's quad stores
 * (matvec.cuh mv_mma_kernel, ST 1: D's rows on 16 bytes; ST 2: any ldd / offset, gemm16_mv_level bit 8).
 *
 * A row whose element n0 (n0 % 8 == 0) sits `sd` elements into its 16-byte chunk (sd = the row start's
 * offset mod 8 elements: the same for every multiple of 8, so every writer of the row agrees on it) is
 * written as aligned chunks starting at columns n0 + 8 i - sd: chunk i takes the last sd elements of
 * the 8 columns n0 + 8 (i - 1) .. and the first 8 - sd of n0 + 8 i ..  (the 8 values rotated right by sd
 * (R), the first sd from the left neighbour's R).  A chunk wholly inside [0, N) is one 16-byte store, else
 * its columns inside [lo, hi) element by element. */
#ifndef SMK_GEMM16_MATVEC_CHUNKS_CUH
#define SMK_GEMM16_MATVEC_CHUNKS_CUH

#include <stdint.h>

#include "epilogue.cuh"

namespace smk {
namespace g16 {

/* 8 halves starting sh (0 .. 7) halves into c[0 .. 7] as 4 words (the lower element in the low half) */
__device__ __forceinline__ void tk_window(const unsigned (&c)[8], int sh, unsigned (&w)[4])
{
    const int q = sh >> 1; /* selects on the word offset: no indexed registers */
    unsigned e[5];
#pragma unroll
    for (int i = 0; i < 5; i++)
        e[i] = q == 0 ? c[i] : q == 1 ? c[i + 1] : q == 2 ? c[i + 2] : c[i + 3];
    const unsigned f = (unsigned)(sh & 1) * 16u;
#pragma unroll
    for (int i = 0; i < 4; i++)
        w[i] = __funnelshift_r(e[i], e[i + 1], f);
}

/* the chunk w (columns c0 .. c0 + 7) at d: one 16-byte store when all are in [lo, hi), else those that are */
__device__ __forceinline__ void tk_put(unsigned short *d, const unsigned (&w)[4], int64_t c0, int64_t lo, int64_t hi)
{
    if (c0 >= lo && c0 + 8 <= hi) {
        *(uint4 *)d = make_uint4(w[0], w[1], w[2], w[3]);
        return;
    }
#pragma unroll
    for (int e = 0; e < 8; e++)
        if (c0 + e >= lo && c0 + e < hi)
            d[e] = (unsigned short)(w[e >> 1] >> (16 * (e & 1)));
}

/* Chunk c (4 words) from the own R and the left neighbour's: elements < sd from prev, the rest from r. */
__device__ __forceinline__ void tk_merge(const unsigned (&prev)[4], const unsigned (&r)[4], int sd, unsigned (&c)[4])
{
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const unsigned mask = 2 * i + 1 < sd ? 0xffffffffu : 2 * i < sd ? 0xffffu : 0u;
        c[i] = (prev[i] & mask) | (r[i] & ~mask);
    }
}

/* The quad's 4 x 4 transpose of packed outputs (NT == 4, beta == 0, 2-byte D): lane t holds, for n-tile
 * j, the rounded pair w[j] = columns 8 j + 2 t, + 1 of row half h; afterwards o = lane i's w[t], i = 0..3:
 * columns 8 t .. 8 t + 7 in order, one 16-byte store.  Two butterfly steps (xor 1, xor 2): in each a
 * lane swaps the two words whose index differs from its lane in that bit with its partner (element
 * (t, j) ends up with the partner's (t ^ b, j ^ b)); the composition is the transpose. */
template <bool BF16>
__device__ __forceinline__ void mv_quad_transpose16(const float (&acc)[4][4], int h, float alpha, int t, uint4 &o)
{
    unsigned w[4];
#pragma unroll
    for (int j = 0; j < 4; j++)
        w[j] = (unsigned)from_f<BF16>(alpha * acc[j][2 * h]) | ((unsigned)from_f<BF16>(alpha * acc[j][2 * h + 1]) << 16);
    const bool t0 = (t & 1) != 0, t1 = (t & 2) != 0;
#pragma unroll
    for (int s = 0; s < 2; s++) { /* bit 0: indices 2 s + !t0 */
        const unsigned send = t0 ? w[2 * s] : w[2 * s + 1];
        const unsigned got = __shfl_xor_sync(0xffffffffu, send, 1);
        if (t0)
            w[2 * s] = got;
        else
            w[2 * s + 1] = got;
    }
#pragma unroll
    for (int s = 0; s < 2; s++) { /* bit 1: indices s + 2 !t1 */
        const unsigned send = t1 ? w[s] : w[s + 2];
        const unsigned got = __shfl_xor_sync(0xffffffffu, send, 2);
        if (t1)
            w[s] = got;
        else
            w[s + 2] = got;
    }
    o = make_uint4(w[0], w[1], w[2], w[3]);
}

/* ST 2: row `row` of a warp's 32 columns n0 .. n0 + 31 (n0 = 32 cg) from the quad (lane t: o = columns n0 + 8 t
 * .. + 7 after the transpose; wl = the left n-tile's pair, columns n0 - 8 + 2 t, + 1, rounded).  The warp writes
 * the aligned chunks at columns n0 + 8 t - sd (t = 0 .. 3): lane 0's left sd columns come from the left tile
 * (computed by this warp: no other warp's values needed), the last column group also writes its last sd
 * columns (lane 3's R).  So column group cg writes [n0 - sd, n0 + 32 - sd) of the row, the last one also
 * [n0 + 32 - sd, n0 + 32), all within [0, N): each element of D once.  Every lane calls it (shuffles);
 * `on`: the row is < M. */
__device__ __forceinline__ void mv_store_chunks(unsigned short *D, int64_t ldd, int64_t row, bool on, int64_t n0,
                                                int64_t N, int lane, uint4 o, unsigned wl)
{
    const int t = lane & 3, q0 = lane & ~3;
    unsigned lt[8], own[8];
#pragma unroll
    for (int i = 0; i < 4; i++)
        lt[i] = lt[i + 4] = __shfl_sync(0xffffffffu, wl, q0 | i); /* the left tile's 8 columns in order */
    own[0] = own[4] = o.x, own[1] = own[5] = o.y, own[2] = own[6] = o.z, own[3] = own[7] = o.w;
    const uintptr_t rp = (uintptr_t)D + 2u * (uintptr_t)(row * ldd + n0); /* dereferenced only where on */
    const int sd = (int)((rp >> 1) & 7), rs = (8 - sd) & 7;
    unsigned r[4], rl[4], prev[4], c[4];
    tk_window(own, rs, r); /* r element e = own element (e - sd) mod 8 */
    tk_window(lt, rs, rl);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const unsigned up = __shfl_sync(0xffffffffu, r[i], t == 0 ? lane : lane - 1);
        prev[i] = t == 0 ? rl[i] : up;
    }
    tk_merge(prev, r, sd, c);
    if (!on)
        return;
    unsigned short *row_p = (unsigned short *)rp;
    tk_put(row_p + 8 * t - sd, c, n0 + 8 * t - sd, 0, N);
    if (t == 3 && sd != 0 && n0 + 32 >= N) /* the row's last column group: its last sd columns */
        tk_put(row_p + 32 - sd, r, n0 + 32 - sd, 0, N);
}

} /* namespace g16 */
} /* namespace smk */

#endif /* SMK_GEMM16_MATVEC_CHUNKS_CUH */
