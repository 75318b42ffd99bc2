/*
 * sgemm/gemv.cuh -- the matrix-vector kernels of the SGEMM's gemv route (knob sgemm_gemv; route and why:
 * gemv.h, launcher: gemv.cu).  Both read their big operand once with 16-byte loads, U of them in flight per lane
 * before the first FMA, and sum in a fixed order (the result never depends on timing).
 *
 * ROWS (N == 1, y = alpha A x + beta c): a group of G lanes (8, 16, 32) per row of A, 256 / G rows per block.
 *   Lane gl of a group reads the row's aligned 16-byte chunks gl, gl + G, ... (U chunks a batch); a row whose
 *   start is off 16 bytes (odd lda, a sliced base) is read on its aligned chunks all the same, chunk c holding
 *   k = 4c - off .. 4c - off + 3, and the elements outside [0, klen) are zeroed (A's and x's both: NaN past
 *   the row never leaks).  x: one LDG.128 per chunk where x is contiguous and 16-byte aligned and the row on
 *   16 bytes (XV, AV); x contiguous but the row off 16 bytes: the two aligned x chunks around it, selected by
 *   off (XV, !AV); x strided (ldb > 1) or off 16 bytes: four scalar loads (!XV).  x's loads are cached (every
 *   row reads the same x: L1 hits); A's are streamed.  The G lanes' sums meet in an XOR tree.
 * COLS (M == 1, y^T = alpha x^T B + beta c^T): a warp reads RW = 32 / CW rows of B per instruction, lane
 *   (r, gl) = (lane / CW, lane % CW) the float4 column group gl of row r; the block's 8 warps take the
 *   slice's rows w * RW + r, + 8 RW, ... (U rows a batch per lane), x[k] a broadcast scalar load.  Rows of B
 *   off 16 bytes: a strip with all its 4 CW columns in range re-aligns its rows across the CW lanes of a group
 *   (gemv_realign_*: parts.cuh realign_load's scheme with the group's last lane in lane 31's place), the edge
 *   strip loads predicated scalars.  The RW row groups of a warp meet in an XOR tree (every lane then holds
 *   its column group's sum), then the block's warps in shared memory.
 *
 * ---- Shared memory (COLS only): the cross-warp sum, once per block ----
 * Red: 7 rows of 128 floats, smk_sgemm_tile(layout, 7) -- matvec.cuh's MatVecMap with MS = 1: warp w > 0
 * stores its lanes' float4 at Red[w - 1][4 * lane] (STS.128; with CW < 32 the 32 / CW row groups store the same
 * sums RW times: every lane stores, the block's accesses stay matvec's), warp 0 loads row v - 1 for v = 1..7
 * in turn (LDS.128) and adds.  A warp's access is one row's 512 contiguous bytes: 4 wavefronts, the minimum,
 * in naive, pad and swizzle (matvec.cuh's arithmetic); explain() replays it (gemv.cu sgemv_plan).
 */
#ifndef SMK_SGEMM_GEMV_CUH
#define SMK_SGEMM_GEMV_CUH

#include <stdint.h>

#include "layout.h"
#include "api/sgemm.h"
#include "common/ptx_load.cuh"
#include "sgemm/configs.h"
#include "sgemm/gemv.h"
#include "sgemm/launch.h"
#include "sgemm/parts.cuh"

namespace smk {

/* Zero the elements of a and x whose k = k0 + t is outside [0, klen) (both: 0 * NaN would leak). */
__device__ __forceinline__ void gemv_mask(float4 &a, float4 &x, int k0, int klen)
{
    if (k0 >= 0 && k0 + 4 <= klen) return;
    if (k0 + 0 < 0 || k0 + 0 >= klen) a.x = x.x = 0.f;
    if (k0 + 1 < 0 || k0 + 1 >= klen) a.y = x.y = 0.f;
    if (k0 + 2 < 0 || k0 + 2 >= klen) a.z = x.z = 0.f;
    if (k0 + 3 < 0 || k0 + 3 >= klen) a.w = x.w = 0.f;
}

/* x[k0 .. k0 + 3] of a row's chunk c (k0 = 4c - off); elements outside [0, klen) are masked later. */
template <bool AV, bool XV>
__device__ __forceinline__ float4 gemv_x4(const float *x, int64_t ldb, int c, int off, int k0, int klen)
{
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (XV) { /* x contiguous, x[0] on 16 bytes: its aligned chunks */
        const float4 *xq = reinterpret_cast<const float4 *>(x);
        const float4 hi = 4 * c < klen ? ldg4<false>(xq + c) : v;
        if (AV || off == 0) return hi;
        const float4 lo = c >= 1 ? ldg4<false>(xq + c - 1) : v;
        /* {lo, hi}[4 - off .. 7 - off] */
        v.x = off == 1 ? lo.w : off == 2 ? lo.z : lo.y;
        v.y = off == 1 ? hi.x : off == 2 ? lo.w : lo.z;
        v.z = off == 1 ? hi.y : off == 2 ? hi.x : lo.w;
        v.w = off == 1 ? hi.z : off == 2 ? hi.y : hi.x;
        return v;
    }
    if (k0 + 0 >= 0 && k0 + 0 < klen) v.x = __ldg(x + (int64_t)(k0 + 0) * ldb);
    if (k0 + 1 >= 0 && k0 + 1 < klen) v.y = __ldg(x + (int64_t)(k0 + 1) * ldb);
    if (k0 + 2 >= 0 && k0 + 2 < klen) v.z = __ldg(x + (int64_t)(k0 + 2) * ldb);
    if (k0 + 3 >= 0 && k0 + 3 < klen) v.w = __ldg(x + (int64_t)(k0 + 3) * ldb);
    return v;
}

/* The fused tail's count (knob 2; splitk_fixup.cuh fixup_tile's protocol at splitk_fence 1): the block's partial
 * stores, a barrier, one device-wide fence, the count on this grid column's counter; the last of the S blocks
 * resets it (zero for the stream's next launch) and fences before the barrier that releases its reads.  Called
 * by every thread; true in every thread of the last block. */
__device__ __forceinline__ bool gemv_arrive(unsigned *counters, int S)
{
    __syncthreads();
    int last = 0;
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(counters + blockIdx.x, 1u) == (unsigned)(S - 1);
        if (last) atomicExch(counters + blockIdx.x, 0u);
        __threadfence();
    }
    return __syncthreads_or(last) != 0;
}

/*
 * G     lanes per row (8, 16, 32).   AV  every row of A on 16 bytes (A aligned, lda % 4 == 0).
 * XV    x contiguous (ldb == 1) and on 16 bytes.
 * p     validated, normalised (K >= 1); slice: grid y's K ranges (k_chunk a multiple of 16), D + y * d_stride.
 */
template <int G, bool AV, bool XV>
__global__ void __launch_bounds__(kGemvThreads, 2)
    sgemv_rows_kernel(const smk_sgemm_params p, const SgemmSlice slice, const SgemvTail tail)
{
    constexpr int U = (XV && !AV) ? 4 : 8; /* chunks in flight per lane (the select path holds two x chunks each) */
    pdl_allow_dependents();
    int kbeg = 0, klen = 0;
    sgemm_block_k_range(p.K, slice.k_chunk, &kbeg, &klen);
    const int gl = threadIdx.x & (G - 1);
    const int64_t row = (int64_t)blockIdx.x * (kGemvThreads / G) + threadIdx.x / G;
    const bool in = row < p.M;
    const float *arow = p.A + (in ? row : 0) * p.lda + kbeg;
    const int off = AV ? 0 : (int)((reinterpret_cast<uintptr_t>(arow) >> 2) & 3);
    const float4 *aq = reinterpret_cast<const float4 *>(arow - off); /* 16-byte aligned */
    const int nch = in ? (klen + off + 3) >> 2 : 0;                  /* chunks over [-off, klen) */
    const float *x = p.B + (int64_t)kbeg * p.ldb;
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 1
    for (int c0 = gl; c0 < nch; c0 += G * U) {
        float4 a[U], xv[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int c = c0 + u * G;
            a[u] = c < nch ? ldg4<true>(aq + c) : make_float4(0.f, 0.f, 0.f, 0.f);
            xv[u] = c < nch ? gemv_x4<AV, XV>(x, p.ldb, c, off, 4 * c - off, klen) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            gemv_mask(a[u], xv[u], 4 * (c0 + u * G) - off, klen);
            s.x = fmaf(a[u].x, xv[u].x, s.x);
            s.y = fmaf(a[u].y, xv[u].y, s.y);
            s.z = fmaf(a[u].z, xv[u].z, s.z);
            s.w = fmaf(a[u].w, xv[u].w, s.w);
        }
    }
    float t = (s.x + s.y) + (s.z + s.w);
#pragma unroll
    for (int o = G / 2; o >= 1; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
    if (gl == 0 && in) {
        const float v = p.alpha * t;
        p.D[blockIdx.y * slice.d_stride + row * p.ldd] = p.beta != 0.f ? fmaf(p.beta, p.C[row * p.ldc], v) : v;
    }
    if (tail.counters == nullptr || !gemv_arrive(tail.counters, (int)gridDim.y)) return;
    /* the last block of this row block: row's S partials, lane gl slices gl, gl + G, .., all loads first */
    constexpr int ZL = (kGemvMaxSplits + G - 1) / G;
    const int S = (int)gridDim.y;
    float z[ZL];
#pragma unroll
    for (int j = 0; j < ZL; ++j)
        z[j] = in && gl + j * G < S ? __ldcg(p.D + (gl + j * G) * slice.d_stride + row * p.ldd) : 0.f;
    t = 0.f;
#pragma unroll
    for (int j = 0; j < ZL; ++j) t += z[j];
#pragma unroll
    for (int o = G / 2; o >= 1; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
    if (gl == 0 && in) {
        const float v = tail.alpha * t;
        tail.D[row * tail.ldd] = tail.beta != 0.f ? fmaf(tail.beta, tail.C[row * tail.ldc], v) : v;
    }
}

/* parts.cuh realign_load / realign_finish for a group of CW lanes (gl = lane % CW) reading 4 * CW consecutive
 * floats of one row, all in range: the group's last lane also loads the aligned float4 past its own. */
template <int CW>
__device__ __forceinline__ void gemv_realign_load(const float *p, int gl, float4 &lo, float4 &hi, int &off)
{
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    off = (int)((a >> 2) & 3);
    const float4 *q = reinterpret_cast<const float4 *>(a & ~(uintptr_t)15);
    lo = ldg4<true>(q);
    hi = lo;
    if (gl == CW - 1 && off != 0) hi = ldg4<true>(q + 1);
}

template <int CW>
__device__ __forceinline__ float4 gemv_realign_finish(const float4 &lo, const float4 &hi, int off, int gl)
{
    float nx = __shfl_down_sync(0xffffffffu, lo.x, 1, CW);
    float ny = __shfl_down_sync(0xffffffffu, lo.y, 1, CW);
    float nz = __shfl_down_sync(0xffffffffu, lo.z, 1, CW);
    if (gl == CW - 1) nx = hi.x, ny = hi.y, nz = hi.z;
    float4 r;
    r.x = off == 0 ? lo.x : off == 1 ? lo.y : off == 2 ? lo.z : lo.w;
    r.y = off == 0 ? lo.y : off == 1 ? lo.z : off == 2 ? lo.w : nx;
    r.z = off == 0 ? lo.z : off == 1 ? lo.w : off == 2 ? nx : ny;
    r.w = off == 0 ? lo.w : off == 1 ? nx : off == 2 ? ny : nz;
    return r;
}

/* COLS: U rows of B per lane into s (rows k = kw + r + u * step < klen; bp: row 0 of the slice at the lane's
 * column).  Loop bounds are warp-uniform (the re-aligned path shuffles). */
template <int CW, bool BV, int U>
__device__ __forceinline__ void gemv_cols_stream(const smk_sgemm_params &p, float4 &s, const float *bp, const float *x,
                                                 int kw0, int klen, int nvalid, bool strip_in)
{
    constexpr int RW = 32 / CW, STEP = kGemvColsWarps * RW;
    const int lane = threadIdx.x & 31, gl = lane % CW, r = lane / CW;
#pragma unroll 1
    for (int kw = kw0; kw < klen; kw += STEP * U) { /* warp-uniform */
        float4 b[U];
        float xv[U];
        if (!BV && strip_in) { /* block-uniform: rows off 16 bytes, the strip's columns in range */
            float4 hi[U];
            int off[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int k = kw + r + u * STEP;
                gemv_realign_load<CW>(bp + (int64_t)(k < klen ? k : kw) * p.ldb, gl, b[u], hi[u], off[u]);
            }
#pragma unroll
            for (int u = 0; u < U; ++u) b[u] = gemv_realign_finish<CW>(b[u], hi[u], off[u], gl);
        } else {
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int k = kw + r + u * STEP;
                b[u] = load4<BV, true>(bp + (int64_t)(k < klen ? k : 0) * p.ldb, k < klen ? nvalid : 0);
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int k = kw + r + u * STEP;
            xv[u] = k < klen ? __ldg(x + k) : 0.f;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (kw + r + u * STEP >= klen) continue; /* past the slice: b may hold a re-read row */
            s.x = fmaf(xv[u], b[u].x, s.x);
            s.y = fmaf(xv[u], b[u].y, s.y);
            s.z = fmaf(xv[u], b[u].z, s.z);
            s.w = fmaf(xv[u], b[u].w, s.w);
        }
    }
}

/* COLS: the block's sum of its lanes' s -- the RW row groups of a warp in an XOR tree, then warps 1..7 through
 * Red to warp 0, in order -- valid in warp 0 (every lane: its column group's sum).  Called by every thread. */
template <int CW, int LAYOUT>
__device__ __forceinline__ void gemv_cols_sum(float4 &s, float *red)
{
    constexpr smk_tile TR = smk_sgemm_tile(LAYOUT, 7);
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
#pragma unroll
    for (int o = CW; o < 32; o <<= 1) { /* the row groups: every lane ends with its column group's sum */
        s.x += __shfl_xor_sync(0xffffffffu, s.x, o);
        s.y += __shfl_xor_sync(0xffffffffu, s.y, o);
        s.z += __shfl_xor_sync(0xffffffffu, s.z, o);
        s.w += __shfl_xor_sync(0xffffffffu, s.w, o);
    }
    if (w > 0) *reinterpret_cast<float4 *>(&red[smk_tile_offset(TR, w - 1, 4 * lane)]) = s;
    __syncthreads();
    if (w != 0) return;
#pragma unroll 1
    for (int v = 1; v < kGemvColsWarps; ++v) {
        const float4 t = *reinterpret_cast<const float4 *>(&red[smk_tile_offset(TR, v - 1, 4 * lane)]);
        s.x += t.x, s.y += t.y, s.z += t.z, s.w += t.w;
    }
}

/* COLS' fused tail (knob 2): the S partial strips of the workspace (W: slice 0 at the lane's column), thread
 * (w, r) taking slices w * RW + r, + 8 RW, .. (all its loads issued before the first add), summed by
 * gemv_cols_sum: the order is S's and CW's alone, whichever block is last. */
template <int CW, int LAYOUT>
__device__ __forceinline__ float4 gemv_cols_tail(const float *W, int64_t stride, int nvalid, float *red)
{
    constexpr int RW = 32 / CW, ZL = (kGemvMaxSplits + kGemvColsWarps * RW - 1) / (kGemvColsWarps * RW);
    const int S = (int)gridDim.y, z0 = (int)(threadIdx.x >> 5) * RW + (int)(threadIdx.x & 31) / CW;
    float4 v[ZL];
#pragma unroll
    for (int j = 0; j < ZL; ++j) {
        const int z = z0 + j * kGemvColsWarps * RW;
        const float *q = W + (int64_t)(z < S ? z : 0) * stride;
        v[j] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (z < S && nvalid >= 4) v[j] = __ldcg(reinterpret_cast<const float4 *>(q));
        else if (z < S && nvalid > 0) { /* the row's last group: its written columns only, never the pad */
            v[j].x = __ldcg(q);
            if (nvalid > 1) v[j].y = __ldcg(q + 1);
            if (nvalid > 2) v[j].z = __ldcg(q + 2);
        }
    }
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int j = 0; j < ZL; ++j) s.x += v[j].x, s.y += v[j].y, s.z += v[j].z, s.w += v[j].w;
    gemv_cols_sum<CW, LAYOUT>(s, red);
    return s;
}

/* d[0..3] = alpha s + beta c[0..3], nvalid of them, float4 where d (and c when read) are on 16 bytes. */
__device__ __forceinline__ void gemv_store(float *d, const float *c, float4 s, float alpha, float beta, int nvalid)
{
    const bool v16 = ((reinterpret_cast<uintptr_t>(d) & 15) == 0) && (beta == 0.f || (reinterpret_cast<uintptr_t>(c) & 15) == 0);
    if (v16) store4<true>(d, c, s, alpha, beta, nvalid);
    else store4<false>(d, c, s, alpha, beta, nvalid);
}

/*
 * CW      float4 column groups per warp row (8, 16, 32): a block's strip is 4 CW columns.
 * LAYOUT  smk_layout of the cross-warp sum.   BV  B's rows on 16 bytes (B aligned, ldb % 4 == 0).
 * tail    counters NULL: D is the output (or, split, the workspace); else the fused tail's (knob 2).
 */
template <int CW, int LAYOUT, bool BV>
__global__ void __launch_bounds__(kGemvThreads, 2)
    sgemv_cols_kernel(const smk_sgemm_params p, const SgemmSlice slice, const SgemvTail tail)
{
    constexpr int W = kGemvColsWarps, RW = 32 / CW;
    constexpr smk_tile TR = smk_sgemm_tile(LAYOUT, 7);
    __shared__ float4 smk_gemv_smem[smk_tile_elems(TR, W - 1) / 4];
    float *const red = reinterpret_cast<float *>(smk_gemv_smem);
    static_assert(kGemvThreads == 32 * W, "a block is the W warps over one strip");
    pdl_allow_dependents();
    int kbeg = 0, klen = 0;
    sgemm_block_k_range(p.K, slice.k_chunk, &kbeg, &klen);
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, gl = lane % CW, r = lane / CW;
    const int64_t bn = (int64_t)blockIdx.x * (4 * CW), col = bn + 4 * gl;
    const int nvalid = clamp04((int)(p.N - col < 4 ? p.N - col : 4));
    const bool strip_in = bn + 4 * CW <= p.N; /* block-uniform */
    const float *bp = p.B + (int64_t)kbeg * p.ldb + (nvalid > 0 ? col : 0);
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
    gemv_cols_stream<CW, BV, 8>(p, s, bp, p.A + kbeg, w * RW, klen, nvalid, strip_in);
    gemv_cols_sum<CW, LAYOUT>(s, red);
    const bool out = w == 0 && r == 0 && nvalid > 0; /* the lanes that hold the block's sums and store them */
    if (out) gemv_store(p.D + blockIdx.y * slice.d_stride + col, p.C + col, s, p.alpha, p.beta, nvalid);
    if (tail.counters == nullptr || !gemv_arrive(tail.counters, (int)gridDim.y)) return;
    s = gemv_cols_tail<CW, LAYOUT>(p.D + (nvalid > 0 ? col : 0), slice.d_stride, nvalid, red);
    if (out) gemv_store(tail.D + col, tail.C + col, s, tail.alpha, tail.beta, nvalid);
}

} /* namespace smk */

#endif /* SMK_SGEMM_GEMV_CUH */
