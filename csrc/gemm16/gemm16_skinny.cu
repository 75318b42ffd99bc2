/* SKINNY: the memory-bound path's tensor-core kernel for N <= 32 at any K (routing: matvec.h
 * smk_mv_skinny, smk_mv_route_of).  A (M x K) is the stream and is read once: warp w of the block
 * owns 32 rows (2 m-tiles of 16) and all N <= 8 NT columns, and walks its block's K slice 32 k at a
 * time; the K slices (blockIdx.y) fill the GPU where M alone does not, their fp32 partials summed by
 * mv_reduce_kernel (matvec.cuh) in a fixed order.  No shared memory: every layout runs this code and
 * explain() models no shared access for it.
 *
 * The k order inside a 32-k group is permuted so that A is read with 16-byte loads: the sum over k
 * does not care which k a fragment slot holds as long as A and B agree.  Lane (g, t) loads A[row][kb +
 * 8 t .. + 7] (rows g, g + 8 of each m-tile) as 4 words; for k step s (0, 1) fragment slots a0 / a1
 * (logical k 2 t, 2 t + 1) take word 2 s (actual k kb + 8 t + 4 s + 0, 1) and a2 / a3 (logical 2 t +
 * 8, + 9) word 2 s + 1 (actual + 2, + 3).  B's fragments (logical k pairs of column g) are loaded for the
 * same actual k with 2-byte loads (B's pairs straddle rows; B is small and shared by the block's warps
 * through L1).  A warp instruction reads 8 rows x 64 contiguous bytes: whole 32-byte sectors.
 *
 * Rows at any offset mod 16 bytes: each row's elements kb + 8 t .. + 7 sit `sh` elements into an aligned
 * 16-byte chunk (sh is per row: lda need not be a multiple of 8); the lane loads that chunk and, when
 * sh != 0, the next one, and funnel-shifts the pair (as mv_seg8 does across lanes).  A chunk is loaded
 * only when it holds an element of the row (k < K); in the last group, elements at or past K (other
 * rows' bytes, maybe NaN) are zeroed before the mma.  Rows past M are zeros and not stored. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "matvec.cuh"
#include "matvec.h"

namespace smk {
namespace g16 {

constexpr int kSkR = 2; /* m-tiles of 16 rows per warp (SMK_MV_SKINNY_ROWS = 16 kSkR) */
static_assert(16 * kSkR == SMK_MV_SKINNY_ROWS, "matvec.h's rows per warp");

/* One row's raw chunks for a 32-k group: x (the chunk holding element kb + 8 t) and y (the next). */
struct SkRow {
    const uint4 *ch; /* the row's aligned chunk 0 (sh elements before the row's start) */
    int sh;          /* [0, 7] */
    bool on;         /* row < M */
};

__device__ __forceinline__ void sk_issue(const SkRow &r, int64_t k, int64_t K, uint4 &x, uint4 &y)
{
    const uint4 z = make_uint4(0u, 0u, 0u, 0u);
    x = r.on && k < K ? __ldg(r.ch + k / 8) : z;
    y = r.on && r.sh != 0 && k + 8 - r.sh < K ? __ldg(r.ch + k / 8 + 1) : z;
}

/* The row's elements k .. k + 7 as 4 words (element k + 2 i in the low half of w[i]); tail: zero those
 * at or past K. */
__device__ __forceinline__ void sk_words(uint4 x, uint4 y, int sh, int64_t k, int64_t K, bool tail, unsigned (&w)[4])
{
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
    if (tail)
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int64_t k0 = k + 2 * i;
            w[i] = k0 >= K ? 0u : k0 + 1 >= K ? (w[i] & 0xffffu) : w[i];
        }
}

/* B's fragments for the group at kb: bf[s][j] = {pair (kb + 8 t + 4 s, + 1), pair (+ 2, + 3)} of column
 * 8 j + g.  BV (gemm16_mv_skinny bit 3; B's rows start on 4 bytes): instead, raw row-major words of
 * 8 x 8 blocks, one 4-byte load each, that sk_frag_b transposes with movmatrix where they are used: block
 * (s, h) row r is k kb + 8 (r / 2) + 4 s + 2 h + r % 2, so that after the transpose lane (g, t) holds rows 2 t,
 * 2 t + 1 of column g, i.e. k kb + 8 t + 4 s + 2 h + 0, 1: the same pairs as the 2-byte loads. */
template <int NT, bool BV>
__device__ __forceinline__ void sk_load_b(const smk_gemm16_params &p, int64_t kb, int g, int t, unsigned (&bf)[2][NT][2])
{
    const unsigned short *B = (const unsigned short *)p.B;
#pragma unroll
    for (int s = 0; s < 2; s++)
#pragma unroll
        for (int j = 0; j < NT; j++) {
            if constexpr (BV) {
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int64_t k = kb + 8 * (g >> 1) + 4 * s + 2 * h + (g & 1), n = 8 * j + 2 * t;
                    const unsigned short *q = B + k * p.ldb + n;
                    bf[s][j][h] = k >= p.K || n >= p.N ? 0u : n + 1 < p.N ? __ldg((const unsigned *)q) : (unsigned)__ldg(q);
                }
            } else {
                const int64_t k = kb + 8 * t + 4 * s, n = 8 * j + g;
                bf[s][j][0] = mv_pair_b(B, p.ldb, k, n, p.K, p.N);
                bf[s][j][1] = mv_pair_b(B, p.ldb, k + 2, n, p.K, p.N);
            }
        }
}

/* The fragment register from what sk_load_b left (every lane of the warp must call it: movmatrix). */
template <bool BV>
__device__ __forceinline__ unsigned sk_frag_b(unsigned w)
{
    if constexpr (!BV)
        return w;
    unsigned d;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(d) : "r"(w));
    return d;
}

/* acc into D (S == 1: alpha, beta * C, rounding) or into the slice's partials. */
template <int NT, bool BF16>
__device__ __forceinline__ void sk_store(const smk_gemm16_params &p, const float (&acc)[kSkR][NT][4], int64_t m0,
                                         int g, int t, int64_t slice, float *ws)
{
#pragma unroll
    for (int r = 0; r < kSkR; r++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int64_t row = m0 + 16 * r + g + 8 * h;
            if (row >= p.M)
                continue;
#pragma unroll
            for (int j = 0; j < NT; j++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int64_t col = 8 * j + 2 * t + e;
                    if (col >= p.N)
                        continue;
                    const float v = acc[r][j][2 * h + e];
                    if (ws)
                        ws[(slice * p.M + row) * p.N + col] = v;
                    else
                        mv_out(p, BF16, row, col, v);
                }
        }
}

/*
 * NT  n-tiles of 8 columns (N <= 8 NT).  BV  B's fragments by 4-byte loads + movmatrix (sk_load_b).  Grid: x = groups of 4 warps x 32 rows, y = K slices of kc
 * (a multiple of 32).  The next group's A chunks and B fragments are issued before the current
 * group's mma (4 rows x 2 chunks = 128 bytes per lane in flight, 4 KB per warp).  3 blocks per SM (168
 * registers), 2 for NT = 4 (185 registers; at 3 it spilled 24 bytes).
 */
template <int NT, bool BF16, bool BV, int NW = 4>
__global__ void __launch_bounds__(32 * NW, NW > 4 ? 1 : NT >= 4 ? 2 : 3)
    mv_skinny_kernel(smk_gemm16_params p, int64_t kc, float *ws, float *red = nullptr)
{
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3, warp = threadIdx.x >> 5;
    /* NW == 4: the block's warps take 4 row groups of one K slice; NW == 8: one row group, 8 K slices */
    const int64_t m0 = (NW > 4 ? (int64_t)blockIdx.x : (int64_t)blockIdx.x * 4 + warp) * SMK_MV_SKINNY_ROWS;
    if (m0 >= p.M) /* NW == 8: uniform over the block, so every warp that stays reaches the barrier */
        return;
    const int64_t slice = NW > 4 ? (int64_t)blockIdx.y * NW + warp : (int64_t)blockIdx.y;
    const int64_t k0 = slice * kc, k1 = min(p.K, k0 + kc);
    const unsigned short *A = (const unsigned short *)p.A;
    SkRow rows[kSkR][2];
#pragma unroll
    for (int r = 0; r < kSkR; r++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int64_t m = m0 + 16 * r + g + 8 * h;
            const uintptr_t a = (uintptr_t)(A + (m < p.M ? m : 0) * p.lda);
            rows[r][h].sh = (int)((a >> 1) & 7);
            rows[r][h].ch = (const uint4 *)(a - 2 * (uintptr_t)rows[r][h].sh);
            rows[r][h].on = m < p.M;
        }
    float acc[kSkR][NT][4];
#pragma unroll
    for (int r = 0; r < kSkR; r++)
#pragma unroll
        for (int j = 0; j < NT; j++)
            acc[r][j][0] = acc[r][j][1] = acc[r][j][2] = acc[r][j][3] = 0.f;
    uint4 xc[kSkR][2], yc[kSkR][2];
    unsigned bc[2][NT][2];
#pragma unroll
    for (int r = 0; r < kSkR; r++)
#pragma unroll
        for (int h = 0; h < 2; h++)
            sk_issue(rows[r][h], k0 + 8 * t, p.K, xc[r][h], yc[r][h]);
    sk_load_b<NT, BV>(p, k0, g, t, bc);
    for (int64_t kb = k0; kb < k1; kb += 32) {
        const int64_t kn = kb + 32, kl = kb + 8 * t;
        const int64_t kq = kn < k1 ? kn : p.K; /* past K: nothing is loaded */
        uint4 xn[kSkR][2], yn[kSkR][2];
        unsigned bn[2][NT][2];
#pragma unroll
        for (int r = 0; r < kSkR; r++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                sk_issue(rows[r][h], kq + 8 * t, p.K, xn[r][h], yn[r][h]);
        sk_load_b<NT, BV>(p, kq, g, t, bn);
        const bool tail = kn > p.K;
#pragma unroll
        for (int r = 0; r < kSkR; r++) {
            unsigned w0[4], w1[4]; /* rows g and g + 8 of m-tile r */
            sk_words(xc[r][0], yc[r][0], rows[r][0].sh, kl, p.K, tail, w0);
            sk_words(xc[r][1], yc[r][1], rows[r][1].sh, kl, p.K, tail, w1);
#pragma unroll
            for (int s = 0; s < 2; s++) {
                const unsigned a[4] = {w0[2 * s], w1[2 * s], w0[2 * s + 1], w1[2 * s + 1]};
#pragma unroll
                for (int j = 0; j < NT; j++)
                    mma16816<BF16>(acc[r][j], a, sk_frag_b<BV>(bc[s][j][0]), sk_frag_b<BV>(bc[s][j][1]));
            }
        }
#pragma unroll
        for (int r = 0; r < kSkR; r++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                xc[r][h] = xn[r][h], yc[r][h] = yn[r][h];
#pragma unroll
        for (int s = 0; s < 2; s++)
#pragma unroll
            for (int j = 0; j < NT; j++)
                bc[s][j][0] = bn[s][j][0], bc[s][j][1] = bn[s][j][1];
    }
    if constexpr (NW > 4) { /* gemm16_mv_level bit 2: the block's slices summed, spread over its warps */
        float f[8 * NT];
#pragma unroll
        for (int e = 0; e < 8 * NT; e++)
            f[e] = acc[e / (4 * NT)][(e / 4) % NT][e % 4];
        mv_block_sum_spread<8 * NT, NW>(f, red, lane, [&](int e, float v) {
            const int64_t row = m0 + 16 * (e / (4 * NT)) + g + 4 * (e & 2), col = 8 * ((e / 4) % NT) + 2 * t + (e & 1);
            if (row >= p.M || col >= p.N)
                return;
            if (ws)
                ws[((int64_t)blockIdx.y * p.M + row) * p.N + col] = v;
            else
                mv_out(p, BF16, row, col, v);
        });
    } else {
        sk_store<NT, BF16>(p, acc, m0, g, t, slice, ws);
    }
}

/* ---- TALL (N <= 8, a tall A: gemm16_mv_skinny bit 4, matvec_tall.h smk_mv_tall) -------------------------
 *
 * SKINNY's data path (sk_issue, sk_words, sk_load_b, the permuted k order, one mma per 16 k) with a different
 * schedule: a warp owns ONE m-tile (16 rows, not 32) and keeps a ring of SMK_MV_TALL_DEPTH 32-k groups in
 * flight (not one), so a warp waits one DRAM round per DEPTH groups where SKINNY waited one per group; the
 * block's KW warps (1, 2, 4, 8) walk KW K slices of the same 16 rows and sum them in-kernel (one L2 round after
 * the block barrier, global scratch `red`: no shared memory), so no K split leaves the kernel and no reduce
 * launch follows.  Slices are multiples of 32 k: a group never straddles one, only K (tail zeroing). */
/* SH (gemm16_mv_skinny bit 5, value 32; no routing change): no y chunks in the ring -- lane t's y is lane t + 1's x
 * (t < 3) or lane 0's x of the next group (t = 3), one quad shuffle per word (tl_next), so each chunk is requested
 * once (SKINNY and SH off request the y chunks again: L1 / L2 traffic x2) and the registers freed hold
 * kTallDepthSh groups, not SMK_MV_TALL_DEPTH.  An x chunk is then loaded wherever it holds an element < K (its
 * first element is k - sh), inside the slice, and for lane 0 of the group just past the slice (kend: lane 3's y of
 * the slice's last group). */
constexpr int kTallDepthSh = 6;

template <bool SH>
__device__ __forceinline__ void tl_issue(const smk_gemm16_params &p, const SkRow (&rw)[2], int64_t kg, int64_t k1,
                                         int64_t kend, int g, int t, uint4 (&x)[2], uint4 (&y)[2], unsigned (&b)[2][1][2])
{
    const int64_t kq = kg < k1 ? kg : p.K; /* past the slice: nothing is loaded (SH: but lane 0 at kend) */
    if constexpr (SH) {
        const int64_t k = kg + 8 * t;
        const bool in = kg < k1 || (t == 0 && kg == kend);
#pragma unroll
        for (int h = 0; h < 2; h++)
            x[h] = in && rw[h].on && k - rw[h].sh < p.K ? __ldg(rw[h].ch + k / 8) : make_uint4(0u, 0u, 0u, 0u);
    } else {
#pragma unroll
        for (int h = 0; h < 2; h++)
            sk_issue(rw[h], kq + 8 * t, p.K, x[h], y[h]);
    }
    sk_load_b<1, false>(p, kq, g, t, b);
}

/* SH: this lane's y chunk: lane t + 1's x of this group (t < 3), lane 0's x of the next (t = 3); every lane calls it. */
__device__ __forceinline__ uint4 tl_next(uint4 cur, uint4 nxt, int t, int lane)
{
    const uint4 v = t == 0 ? nxt : cur; /* what this lane hands to lane t - 1 (t = 0: to lane 3) */
    const int src = (lane & ~3) | ((t + 1) & 3);
    uint4 y;
    y.x = __shfl_sync(0xffffffffu, v.x, src);
    y.y = __shfl_sync(0xffffffffu, v.y, src);
    y.z = __shfl_sync(0xffffffffu, v.z, src);
    y.w = __shfl_sync(0xffffffffu, v.w, src);
    return y;
}

/* KW > 1: warps kw > 0 hand their 4 sums per lane to warp kw == 0 of their m-tile through the block's region of
 * `red` (L2), __syncthreads, and it loads all KW - 1 at once (one L2 round) and adds them in warp order
 * (deterministic).  Every warp of the block must call it; returns whether this warp holds the m-tile's sums. */
template <int KW, int NW>
__device__ __forceinline__ bool tl_block_sum(float (&acc)[4], float *red, int warp, int lane)
{
    const int64_t blk = ((int64_t)blockIdx.y * gridDim.x + blockIdx.x) * NW;
    float *r = red + (blk + warp) * 128;
    if (warp % KW > 0)
#pragma unroll
        for (int e = 0; e < 4; e++)
            r[e * 32 + lane] = acc[e];
    __syncthreads();
    if (warp % KW > 0)
        return false;
    float v[KW > 1 ? KW - 1 : 1][4];
#pragma unroll
    for (int w = 1; w < KW; w++)
#pragma unroll
        for (int e = 0; e < 4; e++)
            v[w - 1][e] = __ldcg(r + w * 128 + e * 32 + lane);
#pragma unroll
    for (int w = 1; w < KW; w++)
#pragma unroll
        for (int e = 0; e < 4; e++)
            acc[e] += v[w - 1][e];
    return true;
}

/*
 * KW  warps per m-tile (K slices summed in-kernel); the block has NW = max(4, KW) warps = NW / KW m-tiles.
 * Grid: x = groups of NW / KW m-tiles, y = S groups of KW slices (S > 1 only where M is short and A big,
 * matvec_tall.h: fp32 partials `ws` [S][M][N] for mv_reduce_kernel).  kc: k per slice (a multiple of 32).
 * red: KW > 1, the blocks' scratch [block][NW][4][32] floats.  Registers: the ring holds DEPTH x (2 rows x 2
 * chunks x 4 + 4 B words) = 80.
 */
template <bool BF16, int KW, bool SH>
__global__ void __launch_bounds__(32 * (KW > 4 ? KW : 4), KW > 4 ? 2 : 4)
    mv_tall_kernel(smk_gemm16_params p, int64_t kc, float *ws, float *red)
{
    constexpr int NW = KW > 4 ? KW : 4, D = SH ? kTallDepthSh : SMK_MV_TALL_DEPTH;
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3, warp = threadIdx.x >> 5, kw = warp % KW;
    const int64_t m0 = ((int64_t)blockIdx.x * (NW / KW) + warp / KW) * 16;
    if (KW == 1 && m0 >= p.M) /* KW > 1: every warp reaches the block barrier (rows past M load nothing) */
        return;
    const int64_t k0 = min(p.K, ((int64_t)blockIdx.y * KW + kw) * kc), k1 = min(p.K, k0 + kc);
    const int64_t kend = k0 + (k1 - k0 + 31) / 32 * 32; /* the group just past the slice */
    const unsigned short *A = (const unsigned short *)p.A;
    SkRow rw[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int64_t m = m0 + g + 8 * h;
        const uintptr_t a = (uintptr_t)(A + (m < p.M ? m : 0) * p.lda);
        rw[h].sh = (int)((a >> 1) & 7);
        rw[h].ch = (const uint4 *)(a - 2 * (uintptr_t)rw[h].sh);
        rw[h].on = m < p.M;
    }
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    uint4 x[D][2], y[D][2];
    unsigned b[D][2][1][2];
#pragma unroll
    for (int j = 0; j < D; j++)
        tl_issue<SH>(p, rw, k0 + 32 * j, k1, kend, g, t, x[j], y[j], b[j]);
    for (int64_t kb = k0; kb < k1; kb += 32 * D) {
#pragma unroll
        for (int j = 0; j < D; j++) {
            const int64_t kg = kb + 32 * j;
            if (kg >= k1)
                break;
            unsigned w0[4], w1[4]; /* rows g and g + 8 */
            const bool tail = kg + 32 > p.K;
            if constexpr (SH) { /* slot (j + 1) % D holds the next group (slot 0 was refilled this pass) */
                sk_words(x[j][0], tl_next(x[j][0], x[(j + 1) % D][0], t, lane), rw[0].sh, kg + 8 * t, p.K, tail, w0);
                sk_words(x[j][1], tl_next(x[j][1], x[(j + 1) % D][1], t, lane), rw[1].sh, kg + 8 * t, p.K, tail, w1);
            } else {
                sk_words(x[j][0], y[j][0], rw[0].sh, kg + 8 * t, p.K, tail, w0);
                sk_words(x[j][1], y[j][1], rw[1].sh, kg + 8 * t, p.K, tail, w1);
            }
#pragma unroll
            for (int s = 0; s < 2; s++) {
                const unsigned a[4] = {w0[2 * s], w1[2 * s], w0[2 * s + 1], w1[2 * s + 1]};
                mma16816<BF16>(acc, a, b[j][s][0][0], b[j][s][0][1]);
            }
            tl_issue<SH>(p, rw, kg + 32 * D, k1, kend, g, t, x[j], y[j], b[j]); /* the ring's slot j: D groups ahead */
        }
    }
    if (KW > 1 && !tl_block_sum<KW, NW>(acc, red, warp, lane))
        return;
#pragma unroll
    for (int e = 0; e < 4; e++) { /* c0, c1 = (g, 2 t ..), c2, c3 = (g + 8, ..) */
        const int64_t row = m0 + g + 8 * (e >> 1), col = 2 * t + (e & 1);
        if (row < p.M && col < p.N && ws)
            ws[((int64_t)blockIdx.y * p.M + row) * p.N + col] = acc[e];
        else if (row < p.M && col < p.N)
            mv_out(p, BF16, row, col, acc[e]);
    }
}

template <bool BF16, bool SH>
static void tall_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t s)
{
    const dim3 grid((unsigned)r.grid[0], (unsigned)r.grid[1], 1);
    float *w = r.splits > 1 ? ws : NULL, *red = ws + (r.splits > 1 ? r.splits * q.M * q.N : 0); /* partials, then scratch */
    switch (r.tm) {
    case 1: mv_tall_kernel<BF16, 1, SH><<<grid, 128, 0, s>>>(q, r.kc, w, red); break;
    case 2: mv_tall_kernel<BF16, 2, SH><<<grid, 128, 0, s>>>(q, r.kc, w, red); break;
    case 4: mv_tall_kernel<BF16, 4, SH><<<grid, 128, 0, s>>>(q, r.kc, w, red); break;
    default: mv_tall_kernel<BF16, 8, SH><<<grid, 256, 0, s>>>(q, r.kc, w, red); break;
    }
}

void mv_tall_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t s)
{
    const bool sh = (smk_gemm16_mv_skinny & 32) != 0; /* the y chunks by shuffles, 6 groups in flight */
    if (q.dtype == 1)
        (sh ? tall_launch<true, true> : tall_launch<true, false>)(q, r, ws, s);
    else
        (sh ? tall_launch<false, true> : tall_launch<false, false>)(q, r, ws, s);
}

/* ---- SKINNY_M (M <= 32, B the stream: D^T = B^T A^T) ---------------------------------------------
 *
 * B (K x N, row-major) is contiguous along n, so it is the mma's A operand (rows n of D^T) and is read
 * with 16-byte loads along n; its k pairs are formed in registers (__byte_perm of two rows' words).  A
 * warp owns 64 columns n0 .. n0 + 63 (4 m-tiles of D^T) x all M <= 8 MT rows of D (MT n-tiles of D^T)
 * and walks its K slice 16 k at a time.  Lane (g, t) loads B rows kb + 4 t + e (e < 4) at columns n0 + 8 g
 * .. + 7; m-tile i's fragment row g is column n0 + 8 g + 2 i, row g + 8 column n0 + 8 g + 2 i + 1; slots
 * (2 t, 2 t + 1) hold k kb + 4 t + 0, 1 and (2 t + 8, + 9) k kb + 4 t + 2, 3, so the B operand (A^T, column m)
 * is A[m][kb + 4 t .. + 3]: 4-byte pairs where A's rows start on 4 bytes.  A warp instruction reads 4 rows
 * x 128 contiguous bytes.  Rows at any offset mod 8 elements: aligned chunk + next, funnel-shifted
 * (sk_words, per lane: the shift depends on the row).  Rows past K are not loaded (zeros; A's pairs past
 * K are zeros too); elements past N are whatever the chunk holds, and reach only D^T rows past N, never
 * stored (an mma row depends on its own A-operand row alone). */

/* B row k's chunks at columns c .. c + 7 (c = n0 + 8 g): loaded only where they hold a column < N. */
__device__ __forceinline__ void skm_issue(const unsigned short *B, int64_t ldb, int64_t k, int64_t c, int64_t K,
                                          int64_t N, uint4 &x, uint4 &y, int &sh)
{
    const uint4 z = make_uint4(0u, 0u, 0u, 0u);
    const uintptr_t a = (uintptr_t)(B + (k < K ? k : 0) * ldb + c);
    sh = (int)((a >> 1) & 7);
    const uint4 *ch = (const uint4 *)(a - 2 * (uintptr_t)sh);
    x = k < K && c < N ? __ldg(ch) : z;
    y = k < K && sh != 0 && c + 8 - sh < N ? __ldg(ch + 1) : z;
}

/*
 * MT  n-tiles of D^T = rows of D / 8 (M <= 8 MT).  AW  A's rows on 4 bytes.  Grid: x = groups of 4 warps
 * x 64 columns, y = K slices of kc (a multiple of 32).  The next 16 k's B chunks and A pairs are issued
 * before the current ones' mma.  ptxas: 116 / 139-144 / 160-172 / 184-188 registers for MT 1..4, no
 * spills (3 blocks per SM for MT <= 2, else 2).
 */
template <int MT, bool BF16, bool AW>
__global__ void __launch_bounds__(kMvThreads, MT >= 3 ? 2 : 3) mv_skinny_m_kernel(smk_gemm16_params p, int64_t kc, float *ws)
{
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int64_t n0 = ((int64_t)blockIdx.x * 4 + (threadIdx.x >> 5)) * SMK_MV_SKINNY_COLS;
    if (n0 >= p.N)
        return;
    const int64_t slice = blockIdx.y, k0 = slice * kc, k1 = min(p.K, k0 + kc), c = n0 + 8 * g;
    const unsigned short *A = (const unsigned short *)p.A, *B = (const unsigned short *)p.B;
    float acc[4][MT][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < MT; j++)
            acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;
    uint4 xc[4], yc[4];
    int shc[4];
    unsigned ac[MT][2];
#pragma unroll
    for (int e = 0; e < 4; e++)
        skm_issue(B, p.ldb, k0 + 4 * t + e, c, p.K, p.N, xc[e], yc[e], shc[e]);
#pragma unroll
    for (int j = 0; j < MT; j++)
        ac[j][0] = mv_pair_a<AW>(A, p.lda, 8 * j + g, k0 + 4 * t, p.M, p.K),
        ac[j][1] = mv_pair_a<AW>(A, p.lda, 8 * j + g, k0 + 4 * t + 2, p.M, p.K);
    for (int64_t kb = k0; kb < k1; kb += 16) {
        const int64_t kn = kb + 16, kq = kn < k1 ? kn : p.K; /* past K: nothing is loaded */
        uint4 xn[4], yn[4];
        int shn[4];
        unsigned an[MT][2];
#pragma unroll
        for (int e = 0; e < 4; e++)
            skm_issue(B, p.ldb, kq + 4 * t + e, c, p.K, p.N, xn[e], yn[e], shn[e]);
#pragma unroll
        for (int j = 0; j < MT; j++)
            an[j][0] = mv_pair_a<AW>(A, p.lda, 8 * j + g, kq + 4 * t, p.M, p.K),
            an[j][1] = mv_pair_a<AW>(A, p.lda, 8 * j + g, kq + 4 * t + 2, p.M, p.K);
        unsigned w[4][4]; /* w[e][i]: row kb + 4 t + e, columns c + 2 i, + 1 */
#pragma unroll
        for (int e = 0; e < 4; e++)
            sk_words(xc[e], yc[e], shc[e], 0, 8, false, w[e]);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const unsigned a[4] = {__byte_perm(w[0][i], w[1][i], 0x5410), __byte_perm(w[0][i], w[1][i], 0x7632),
                                   __byte_perm(w[2][i], w[3][i], 0x5410), __byte_perm(w[2][i], w[3][i], 0x7632)};
#pragma unroll
            for (int j = 0; j < MT; j++)
                mma16816<BF16>(acc[i][j], a, ac[j][0], ac[j][1]);
        }
#pragma unroll
        for (int e = 0; e < 4; e++)
            xc[e] = xn[e], yc[e] = yn[e], shc[e] = shn[e];
#pragma unroll
        for (int j = 0; j < MT; j++)
            ac[j][0] = an[j][0], ac[j][1] = an[j][1];
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < MT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) { /* acc (row g (+ 8), column 2 t (+ 1)) of D^T */
                const int64_t n = c + 2 * i + (e >> 1), m = 8 * j + 2 * t + (e & 1);
                if (n >= p.N || m >= p.M)
                    continue;
                if (ws)
                    ws[(slice * p.M + m) * p.N + n] = acc[i][j][e];
                else
                    mv_out(p, BF16, m, n, acc[i][j][e]);
            }
}

template <bool BF16, bool AW>
static void skinny_m_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t s)
{
    const dim3 grid((unsigned)r.grid[0], (unsigned)r.grid[1], 1);
    float *w = r.splits > 1 ? ws : NULL;
    switch (r.npad) {
    case 1: mv_skinny_m_kernel<1, BF16, AW><<<grid, kMvThreads, 0, s>>>(q, r.kc, w); break;
    case 2: mv_skinny_m_kernel<2, BF16, AW><<<grid, kMvThreads, 0, s>>>(q, r.kc, w); break;
    case 3: mv_skinny_m_kernel<3, BF16, AW><<<grid, kMvThreads, 0, s>>>(q, r.kc, w); break;
    default: mv_skinny_m_kernel<4, BF16, AW><<<grid, kMvThreads, 0, s>>>(q, r.kc, w); break;
    }
}

void mv_skinny_m_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t s)
{
    const bool aw = ((uintptr_t)q.A & 3) == 0 && q.lda % 2 == 0;
    if (q.dtype == 1)
        aw ? skinny_m_launch<true, true>(q, r, ws, s) : skinny_m_launch<true, false>(q, r, ws, s);
    else
        aw ? skinny_m_launch<false, true>(q, r, ws, s) : skinny_m_launch<false, false>(q, r, ws, s);
}

/* SKINNY in 8-warp blocks (r.nw > 4, matvec.h smk_mv_skinny_fused): partials (G > 1) first in ws, then the
 * blocks' scratch. */
template <bool BF16>
static void skinny_fused_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t s)
{
    const dim3 grid((unsigned)r.grid[0], (unsigned)r.grid[1], 1);
    float *w = r.splits > 1 ? ws : NULL, *red = ws + (r.splits > 1 ? r.splits * q.M * q.N : 0);
    constexpr int T = 32 * SMK_MV_FUSED_NW;
    switch (r.npad) {
    case 1: mv_skinny_kernel<1, BF16, false, SMK_MV_FUSED_NW><<<grid, T, 0, s>>>(q, r.kc, w, red); break;
    case 2: mv_skinny_kernel<2, BF16, false, SMK_MV_FUSED_NW><<<grid, T, 0, s>>>(q, r.kc, w, red); break;
    case 3: mv_skinny_kernel<3, BF16, false, SMK_MV_FUSED_NW><<<grid, T, 0, s>>>(q, r.kc, w, red); break;
    default: mv_skinny_kernel<4, BF16, false, SMK_MV_FUSED_NW><<<grid, T, 0, s>>>(q, r.kc, w, red); break;
    }
}

template <bool BF16, bool BV>
static void skinny_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t s)
{
    const dim3 grid((unsigned)r.grid[0], (unsigned)r.grid[1], 1);
    float *w = r.splits > 1 ? ws : NULL;
    if (r.nw > 4) {
        skinny_fused_launch<BF16>(q, r, ws, s);
        return;
    }
    switch (r.npad) {
    case 1: mv_skinny_kernel<1, BF16, BV><<<grid, kMvThreads, 0, s>>>(q, r.kc, w); break;
    case 2: mv_skinny_kernel<2, BF16, BV><<<grid, kMvThreads, 0, s>>>(q, r.kc, w); break;
    case 3: mv_skinny_kernel<3, BF16, BV><<<grid, kMvThreads, 0, s>>>(q, r.kc, w); break;
    default: mv_skinny_kernel<4, BF16, BV><<<grid, kMvThreads, 0, s>>>(q, r.kc, w); break;
    }
}

void mv_skinny_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t s)
{
    /* movmatrix B fragments: knob bit 3 and B's rows on 4 bytes (base, ldb even) */
    const bool bv = (smk_gemm16_mv_skinny & 8) != 0 && ((uintptr_t)q.B & 3) == 0 && q.ldb % 2 == 0;
    if (q.dtype == 1)
        bv ? skinny_launch<true, true>(q, r, ws, s) : skinny_launch<true, false>(q, r, ws, s);
    else
        bv ? skinny_launch<false, true>(q, r, ws, s) : skinny_launch<false, false>(q, r, ws, s);
}

} /* namespace g16 */
} /* namespace smk */
