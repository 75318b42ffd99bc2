/*
 * sgemm/gemv_wide.cuh -- the "wide" matrix-vector kernel of the SGEMM's gemv route (knob sgemm_gemv levels 4 and 5;
 * route and why: gemv.h, launcher: gemv_wide.cu): Y = alpha X B + beta C for M <= 4 rows of X, any N, any K, any
 * alignment of B's rows.  It streams B once with scalar loads, so that a row of B off 16 bytes costs one extra
 * sector per 128-byte warp access and nothing else (no re-aligning shuffles, no second code path).
 *
 * Lanes: block x owns the strip of 32 V columns c0 .. c0 + 32 V - 1; lane l of every warp owns the columns
 *   c0 + l + 32 j, j < V, so that one warp load instruction is 32 consecutive floats of one row of B: 128 bytes,
 *   4 sectors (5 where the row is off 128 bytes), the minimum a warp can read.  The block's 8 warps take the
 *   rows w, w + 8, .. of its K slice, U rows a batch: U V loads of B and U M broadcast loads of X in flight per
 *   lane before the first FMA.  A lane keeps M V sums (its "slots": slot m V + j = row m of Y, column j).
 * Sum: warps 1..7 hand their slots to warp 0 through Red, four slots (one float4) a pass -- gemv.cuh
 *   gemv_cols_sum<32, LAYOUT>, the cols kernel's tile and access (STS.128 at Red[w-1][4 lane], LDS.128 by warp 0;
 *   512 contiguous bytes a warp access: 4 wavefronts in naive, pad and swizzle; explain() replays it) -- in warp
 *   order, so the result is the same bits whichever warp finishes first.
 * Split: grid y slices K (launcher gemv.cu); the slices' partial strips go to a workspace in the output's own
 *   layout (row m at m ldw, coalesced scalar stores) and are summed by the last block of the grid column
 *   (gemv_arrive, the fused tail: every load of every slice issued before the first add, then the same Red
 *   passes) or, without counters, by reduce.cuh's kernel.
 */
#ifndef SMK_SGEMM_GEMV_WIDE_CUH
#define SMK_SGEMM_GEMV_WIDE_CUH

#include <stdint.h>

#include "sgemm/gemv.cuh"

namespace smk {

/* Rows of B a lane has in flight per batch: 8 at 4 columns a lane (32 loads of B, 128 bytes), 16 at 1 column
 * (64 bytes); X's loads (L1 hits) come after B's, M of them live at a time (SASS, sm_90: every B load of a batch
 * issued before the first FFMA).  4 columns a lane serve M == 1 alone: with M >= 2 rows they spilled 12-32 bytes
 * at the 64 registers of 4 blocks per SM even at 4 rows a batch (ptxas, sm_90), so M = 2..4 take 1 column a lane
 * (55-64 registers, no spill). */
template <int M, int V>
struct WideGeom {
    static constexpr int SL = M * V;               /* slots per lane */
    static constexpr int P = (SL + 3) / 4;         /* float4 passes through Red */
    static constexpr int U = V == 1 ? 16 : 8;
    static constexpr int STEP = kGemvColsWarps;    /* rows between a warp's consecutive rows */
    static constexpr int ZL = wide_max_splits(M, V) / kGemvColsWarps; /* the tail: slices a lane, one round trip */
};

/* Warp 0 ends with the block's sum of every lane's slots s[0 .. SL-1], passes of four through Red (gemv.cuh
 * gemv_cols_sum with CW = 32: no row groups), a barrier between passes (Red is reused).  Called by every thread. */
template <int SL, int LAYOUT>
__device__ __forceinline__ void wide_block_sum(float (&s)[SL], float *red)
{
#pragma unroll
    for (int q = 0; q < (SL + 3) / 4; ++q) {
        if (q > 0) __syncthreads(); /* warp 0 has read the previous pass */
        float4 v = make_float4(s[4 * q], 4 * q + 1 < SL ? s[4 * q + 1] : 0.f, 4 * q + 2 < SL ? s[4 * q + 2] : 0.f,
                               4 * q + 3 < SL ? s[4 * q + 3] : 0.f);
        gemv_cols_sum<32, LAYOUT>(v, red);
        s[4 * q] = v.x;
        if (4 * q + 1 < SL) s[4 * q + 1] = v.y;
        if (4 * q + 2 < SL) s[4 * q + 2] = v.z;
        if (4 * q + 3 < SL) s[4 * q + 3] = v.w;
    }
}

/* The lane's slots over its warp's rows k = w, w + 8, .. < klen of the slice (bq: B at row 0 of the slice and the
 * lane's first column; xq: X at column 0 of the slice).  Out-of-range rows load zeros in B and X both (0 * NaN
 * never leaks); out-of-range columns load zeros and are never stored. */
template <int M, int V>
__device__ __forceinline__ void wide_stream(const smk_sgemm_params &p, float (&s)[M * V], const float *bq,
                                            const float *xq, int klen, const bool (&cin)[V])
{
    using G = WideGeom<M, V>;
    const int w = (int)(threadIdx.x >> 5);
#pragma unroll 1
    for (int k0 = w; k0 < klen; k0 += G::STEP * G::U) { /* warp-uniform */
        float b[G::U][V];
#pragma unroll
        for (int u = 0; u < G::U; ++u) {
            const int k = k0 + u * G::STEP;
            const bool in = k < klen;
            const float *row = bq + (int64_t)(in ? k : 0) * p.ldb;
#pragma unroll
            for (int j = 0; j < V; ++j) b[u][j] = in && cin[j] ? __ldg(row + 32 * j) : 0.f;
        }
#pragma unroll
        for (int u = 0; u < G::U; ++u) { /* X after B: L1 hits, M registers live at a time, not U M */
            const int k = k0 + u * G::STEP;
#pragma unroll
            for (int m = 0; m < M; ++m) {
                const float x = k < klen ? __ldg(xq + (int64_t)m * p.lda + k) : 0.f;
#pragma unroll
                for (int j = 0; j < V; ++j) s[m * V + j] = fmaf(x, b[u][j], s[m * V + j]);
            }
        }
    }
}

/* The fused tail's count at knob 7 (SgemvTail.light): the block's barrier orders every thread's partial stores
 * before thread 0's atom.acq_rel.gpu (its release is cumulative over them; its acquire, in the last block, orders
 * the other blocks' released stores before the barrier that lets this block's threads read them) -- the pattern of
 * CUTLASS's split-K barrier, without gemv_arrive's two device-wide fences (fence.sc) on the tail's critical path.
 * The last block resets the counter with a relaxed store: the stream's next launch sees it at the kernel boundary.
 * Called by every thread; true in every thread of the last block. */
__device__ __forceinline__ bool wide_arrive(unsigned *counters, int S)
{
    __syncthreads();
    int last = 0;
    if (threadIdx.x == 0) {
        unsigned *c = counters + blockIdx.x, old = 0;
        asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(c) : "memory");
        last = old == (unsigned)(S - 1);
        if (last) asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(c), "r"(0u) : "memory");
    }
    return __syncthreads_or(last) != 0;
}

/* Warp 0's stores of the block's slots: d[m ldd + c] = alpha s + beta c[m ldc + c] (c read only where beta != 0). */
template <int M, int V>
__device__ __forceinline__ void wide_store(float *d, int64_t ldd, const float *c, int64_t ldc, float alpha,
                                           float beta, const float (&s)[M * V], const bool (&cin)[V])
{
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
        for (int j = 0; j < V; ++j) {
            if (!cin[j]) continue;
            const float v = alpha * s[m * V + j];
            d[m * ldd + 32 * j] = beta != 0.f ? fmaf(beta, c[m * ldc + 32 * j], v) : v;
        }
}

/* The fused tail: the S partial strips at W (slice 0, row 0, the lane's first column; slice stride `stride`, row
 * pitch ldw), thread (w, lane) summing slices w, w + 8, .. in order for each slot (all loads of a slot issued
 * before its first add), then the block's warps through Red: an order fixed by S alone. */
template <int M, int V, int LAYOUT>
__device__ __forceinline__ void wide_tail(const float *W, int64_t stride, int64_t ldw, float (&s)[M * V],
                                          const bool (&cin)[V], float *red)
{
    using G = WideGeom<M, V>;
    const int S = (int)gridDim.y, z0 = (int)(threadIdx.x >> 5);
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
        for (int j = 0; j < V; ++j) {
            float z[G::ZL];
#pragma unroll
            for (int t = 0; t < G::ZL; ++t) {
                const int y = z0 + t * kGemvColsWarps;
                z[t] = y < S && cin[j] ? __ldcg(W + y * stride + m * ldw + 32 * j) : 0.f;
            }
            float a = 0.f;
#pragma unroll
            for (int t = 0; t < G::ZL; ++t) a += z[t];
            s[m * V + j] = a;
        }
    wide_block_sum<M * V, LAYOUT>(s, red);
}

/*
 * M       rows of X and Y (1..4).   V  columns per lane (1 or 4): the strip is 32 V columns.
 * LAYOUT  smk_layout of Red.        p  validated, normalised, K >= 1; slice: grid y's K ranges, D + y d_stride.
 * tail    counters NULL: p.D is the output (or, split, the workspace); else the fused tail's.
 */
template <int M, int V, int LAYOUT>
__global__ void __launch_bounds__(kGemvThreads, 4)
    sgemv_wide_kernel(const smk_sgemm_params p, const SgemmSlice slice, const SgemvTail tail)
{
    constexpr smk_tile TR = smk_sgemm_tile(LAYOUT, 7);
    __shared__ float4 smk_gemv_smem[smk_tile_elems(TR, kGemvColsWarps - 1) / 4];
    float *const red = reinterpret_cast<float *>(smk_gemv_smem);
    static_assert(M >= 1 && M <= 4 && (V == 1 || (V == 4 && M == 1)), "gemv.h: M <= 4 rows, 4 columns a lane at M 1");
    pdl_allow_dependents();
    int kbeg = 0, klen = 0;
    sgemm_block_k_range(p.K, slice.k_chunk, &kbeg, &klen);
    const int lane = (int)(threadIdx.x & 31);
    const int64_t col = (int64_t)blockIdx.x * (32 * V) + lane; /* the lane's first column */
    bool cin[V];
#pragma unroll
    for (int j = 0; j < V; ++j) cin[j] = col + 32 * j < p.N;
    const int64_t c = cin[0] ? col : 0;
    float s[M * V];
#pragma unroll
    for (int i = 0; i < M * V; ++i) s[i] = 0.f;
    wide_stream<M, V>(p, s, p.B + (int64_t)kbeg * p.ldb + c, p.A + kbeg, klen, cin);
    wide_block_sum<M * V, LAYOUT>(s, red);
    const bool out = threadIdx.x < 32;
    if (out) wide_store<M, V>(p.D + blockIdx.y * slice.d_stride + c, p.ldd, p.C + c, p.ldc, p.alpha, p.beta, s, cin);
    if (tail.counters == nullptr) return;
    if (!(tail.light ? wide_arrive(tail.counters, (int)gridDim.y) : gemv_arrive(tail.counters, (int)gridDim.y)))
        return;
    wide_tail<M, V, LAYOUT>(p.D + c, slice.d_stride, p.ldd, s, cin, red);
    if (out) wide_store<M, V>(tail.D + c, tail.ldd, tail.C + c, tail.ldc, tail.alpha, tail.beta, s, cin);
}

} /* namespace smk */

#endif /* SMK_SGEMM_GEMV_WIDE_CUH */
