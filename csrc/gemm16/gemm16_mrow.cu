/* MROW: M <= 8 (B the stream) on tensor cores over a whole wave (routing and the why: matvec_mrow.h).  No shared
 * memory: every layout runs this code and explain() models no shared access for it.
 *
 * D^T = B^T A^T with mma.sync m16n8k16 (row.col, fp32 accumulators).  A warp owns the 64 columns n0 .. n0 + 63 of
 * one K slice; lane (g, t) = (lane / 4, lane % 4) reads B rows kb + 4 t + e (e < 4) at columns c = n0 + 8 g .. + 7
 * as one 16-byte chunk each, so a warp instruction reads 4 rows x 128 contiguous bytes.  Its 4 words w[e][i]
 * (columns c + 2 i, + 1 of row e) pair up by byte permutes into the A operand of m-tile i of D^T: fragment row g
 * = column c + 2 i, row g + 8 = column c + 2 i + 1, k slots (2 t, 2 t + 1) = rows 4 t + 0, 1 and (2 t + 8, + 9) =
 * rows 4 t + 2, 3; the B operand (A^T, column m = g) is then A[m][kb + 4 t .. + 3], two 4-byte pairs where A's
 * rows start on 4 bytes.  The k order inside 16 does not matter to the sum as long as both operands agree.
 *
 * Rows at any offset mod 8 elements (odd N or ldb, any base): each row's element c sits sh elements (per row)
 * into an aligned chunk; the lane loads that chunk and, where sh != 0, the next, and funnel-shifts the pair
 * (words selected by sh / 2, then a 16-bit shift for odd sh).  AL (B's base on 16 bytes, ldb % 8 == 0): one
 * chunk per row and two 16-k steps per stage (4 KB of B per warp in flight).  A chunk is loaded only where it
 * holds a column < N of a row < k1 (the slice's end); other rows are zeros and so are A's pairs past k1 (a NaN or
 * Inf of the other operand never meets a zero).  Bytes past N in a loaded chunk reach only D^T rows past N (an
 * mma row depends on its own A-operand row alone), never stored; bytes before the row's start are shifted out.
 * Rows of D past M come from zero pairs of A and are not stored.
 *
 * A block's 4 warps take 4 consecutive K slices of one strip and sum them in-kernel (matvec_sum.cuh
 * mv_block_sum_spread: global scratch, a barrier, one L2 round; fixed order); blocks are numbered strip-fastest, so
 * neighbouring blocks read neighbouring bytes of the same rows.  Output: G == 1 alpha * acc + beta * C rounded as the
 * tile epilogue (mv_out); G > 1 fp32 partials ws[group][m][n], summed by mv_reduce_kernel. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "matvec.cuh"
#include "matvec.h"

namespace smk {
namespace g16 {

/* Row k's chunk(s) holding columns c .. c + 7 (c < N checked by the caller's `on`). */
template <bool AL>
__device__ __forceinline__ void mr_issue(const unsigned short *B, int64_t ldb, int64_t k, int64_t c, int64_t N, bool on,
                                         uint4 &x, uint4 &y, int &sh)
{
    const uint4 z = make_uint4(0u, 0u, 0u, 0u);
    const uintptr_t a = (uintptr_t)(B + (on ? k : 0) * ldb + c);
    if constexpr (AL) {
        sh = 0;
        x = on ? __ldg((const uint4 *)a) : z;
        y = z; /* never read (mr_words<true>): dead after inlining */
        return;
    }
    sh = (int)((a >> 1) & 7);
    const uint4 *ch = (const uint4 *)(a - 2 * (uintptr_t)sh);
    x = on ? __ldg(ch) : z;
    y = on && sh != 0 && c + 8 - sh < N ? __ldg(ch + 1) : z;
}

/* The row's columns c .. c + 7 as 4 words (column c + 2 i in the low half of w[i]). */
template <bool AL>
__device__ __forceinline__ void mr_words(uint4 x, uint4 y, int sh, unsigned (&w)[4])
{
    if constexpr (AL) {
        w[0] = x.x, w[1] = x.y, w[2] = x.z, w[3] = x.w;
        return;
    }
    const unsigned c[8] = {x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w};
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

/* One stage: R steps of 16 k, 4 rows a lane each (x, y: the chunks; sh: their offsets; a: A's pairs). */
template <bool AL>
struct MrStage {
    static constexpr int R = AL ? 2 : 1;
    uint4 x[R][4], y[R][4];
    int sh[R][4];
    unsigned a[R][2];
};

template <bool AW, bool AL>
__device__ __forceinline__ void mr_load(const smk_gemm16_params &p, int64_t kb, int64_t k1, int64_t c, int g, int t,
                                        MrStage<AL> &st)
{
    const unsigned short *A = (const unsigned short *)p.A, *B = (const unsigned short *)p.B;
#pragma unroll
    for (int r = 0; r < MrStage<AL>::R; r++) {
        const int64_t k = kb + 16 * r + 4 * t;
#pragma unroll
        for (int e = 0; e < 4; e++)
            mr_issue<AL>(B, p.ldb, k + e, c, p.N, k + e < k1 && c < p.N, st.x[r][e], st.y[r][e], st.sh[r][e]);
        st.a[r][0] = mv_pair_a<AW>(A, p.lda, g, k, p.M, k1);
        st.a[r][1] = mv_pair_a<AW>(A, p.lda, g, k + 2, p.M, k1);
    }
}

template <bool BF16, bool AL>
__device__ __forceinline__ void mr_mma(const MrStage<AL> &st, float (&acc)[4][4])
{
#pragma unroll
    for (int r = 0; r < MrStage<AL>::R; r++) {
        unsigned w[4][4]; /* w[e][i]: row 4 t + e, columns c + 2 i, + 1 */
#pragma unroll
        for (int e = 0; e < 4; e++)
            mr_words<AL>(st.x[r][e], st.y[r][e], st.sh[r][e], w[e]);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const unsigned a[4] = {__byte_perm(w[0][i], w[1][i], 0x5410), __byte_perm(w[0][i], w[1][i], 0x7632),
                                   __byte_perm(w[2][i], w[3][i], 0x5410), __byte_perm(w[2][i], w[3][i], 0x7632)};
            mma16816<BF16>(acc[i], a, st.a[r][0], st.a[r][1]);
        }
    }
}

/*
 * AW  A's rows on 4 bytes (base, lda even).  AL  B's rows on 16 bytes (base, ldb % 8 == 0).  Grid: x = strips x G
 * blocks (strip-fastest); warp w of block (strip, group) takes K slice 4 group + w (kc k, a multiple of 32; past K:
 * zeros), and the block's 4 sums meet in mv_block_sum_spread (global scratch `red`, one barrier, one L2 round).
 * The next stage's chunks and pairs are issued before the current stage's mma.
 */
template <bool BF16, bool AW, bool AL>
__global__ void __launch_bounds__(kMvThreads, 4) mv_mrow_kernel(smk_gemm16_params p, int64_t kc, int64_t strips,
                                                               float *ws, float *red)
{
    constexpr int KS = 16 * MrStage<AL>::R;
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int64_t grp = (int64_t)blockIdx.x / strips, slice = 4 * grp + (threadIdx.x >> 5);
    const int64_t c = ((int64_t)blockIdx.x - grp * strips) * SMK_MV_MROW_COLS + 8 * g, k0 = slice * kc;
    const int64_t k1 = min(p.K, k0 + kc);
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
    MrStage<AL> cur, nxt;
    mr_load<AW, AL>(p, k0, k1, c, g, t, cur);
    for (int64_t kb = k0; kb < k1; kb += KS) {
        mr_load<AW, AL>(p, kb + KS, k1, c, g, t, nxt); /* past k1: nothing is loaded */
        mr_mma<BF16, AL>(cur, acc);
        cur = nxt;
    }
    float f[16];
#pragma unroll
    for (int e = 0; e < 16; e++)
        f[e] = acc[e / 4][e % 4];
    auto out = [&](int e, float v) { /* acc[i][j] (row g (+ 8), column 2 t (+ 1)) of D^T */
        const int i = e / 4, j = e % 4;
        const int64_t n = c + 2 * i + (j >> 1), m = 2 * t + (j & 1);
        if (n >= p.N || m >= p.M)
            return;
        if (ws)
            ws[(grp * p.M + m) * p.N + n] = v;
        else
            mv_out(p, BF16, m, n, v);
    };
    mv_block_sum_spread<16, 4>(f, red, lane, out);
}

template <bool BF16>
static void mrow_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t s)
{
    const bool aw = ((uintptr_t)q.A & 3) == 0 && q.lda % 2 == 0, al = ((uintptr_t)q.B & 15) == 0 && q.ldb % 8 == 0;
    const int64_t strips = (q.N + SMK_MV_MROW_COLS - 1) / SMK_MV_MROW_COLS;
    const dim3 grid((unsigned)r.grid[0]);
    float *w = r.splits > 1 ? ws : NULL, *red = ws + (r.splits > 1 ? r.splits * q.M * q.N : 0);
    if (aw && al)
        mv_mrow_kernel<BF16, true, true><<<grid, kMvThreads, 0, s>>>(q, r.kc, strips, w, red);
    else if (aw)
        mv_mrow_kernel<BF16, true, false><<<grid, kMvThreads, 0, s>>>(q, r.kc, strips, w, red);
    else if (al)
        mv_mrow_kernel<BF16, false, true><<<grid, kMvThreads, 0, s>>>(q, r.kc, strips, w, red);
    else
        mv_mrow_kernel<BF16, false, false><<<grid, kMvThreads, 0, s>>>(q, r.kc, strips, w, red);
}

void mv_mrow_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t s)
{
    if (q.dtype == 1)
        mrow_launch<true>(q, r, ws, s);
    else
        mrow_launch<false>(q, r, ws, s);
}

} /* namespace g16 */
} /* namespace smk */
