/* sgemm/parts.cuh -- device parts every SGEMM kernel (tile, skinny-m, skinny-n, the split-K reduction)
 * uses: a predicated float4 global load, the alpha / beta epilogue store, and the two-stage main loop. */
#ifndef SMK_SGEMM_PARTS_CUH
#define SMK_SGEMM_PARTS_CUH

#include <stdint.h>

#include <type_traits>

#include "common/ptx_load.cuh"

namespace smk {

/* Four consecutive floats p[0..3] of one matrix row, the first `valid` of them in range (<= 0: none,
 * >= 4: all); the rest are zero.  VEC: p is 16-byte aligned whenever valid >= 4 (aligned base,
 * ld % 4 == 0, column % 4 == 0).  STREAM: see ldg1 (common/ptx_load.cuh). */
template <bool VEC, bool STREAM = false>
__device__ __forceinline__ float4 load4(const float *p, int valid)
{
    if (VEC && valid >= 4)
        return ldg4<STREAM>(reinterpret_cast<const float4 *>(p));
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (valid > 0) v.x = ldg1<STREAM>(p + 0);
    if (valid > 1) v.y = ldg1<STREAM>(p + 1);
    if (valid > 2) v.z = ldg1<STREAM>(p + 2);
    if (valid > 3) v.w = ldg1<STREAM>(p + 3);
    return v;
}

/* ---- a warp's 512-byte row stream on rows that need not start on 16 bytes (odd ld, sliced base) ----
 * Lane l wants p[0..3], p = row + 4*l (the warp: 128 consecutive floats of one row, every element in
 * range).  With off = (p / 4 bytes) mod 4 (the same for all 32 lanes: they differ by 16 bytes), the
 * 128 floats span 33 aligned float4 when off != 0.  Lane l loads the aligned float4 that holds p[0]
 * (LDG.128, streamed); lane 31 also the next one (holds p[3]; only when off != 0, so it always holds
 * an element in range and never touches a page past the row); then lane l takes the first 4 - off
 * floats from its own float4 and the other off from lane l+1's (three SHFL) or lane 31's extra.
 * Every aligned float4 read holds at least one element in range: no load leaves the allocation's
 * 16-byte granules.  Bytes from DRAM: those of the rows (+ one sector per row per warp at most).
 * Issue with realign_load for a whole batch first (loads in flight together), then realign_finish. */
__device__ __forceinline__ void realign_load(const float *p, int lane, float4 &lo, float4 &hi, int &off)
{
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    off = (int)((a >> 2) & 3);
    const float4 *q = reinterpret_cast<const float4 *>(a & ~(uintptr_t)15);
    lo = ldg4<true>(q);
    hi = lo;
    if (lane == 31 && off != 0) hi = ldg4<true>(q + 1);
}

__device__ __forceinline__ float4 realign_finish(const float4 &lo, const float4 &hi, int off, int lane)
{
    float nx = __shfl_down_sync(0xffffffffu, lo.x, 1);
    float ny = __shfl_down_sync(0xffffffffu, lo.y, 1);
    float nz = __shfl_down_sync(0xffffffffu, lo.z, 1);
    if (lane == 31) nx = hi.x, ny = hi.y, nz = hi.z;
    /* v = {lo.x, lo.y, lo.z, lo.w, nx, ny, nz}; the result is v[off .. off+3] */
    float4 r;
    r.x = off == 0 ? lo.x : off == 1 ? lo.y : off == 2 ? lo.z : lo.w;
    r.y = off == 0 ? lo.y : off == 1 ? lo.z : off == 2 ? lo.w : nx;
    r.z = off == 0 ? lo.z : off == 1 ? lo.w : off == 2 ? nx : ny;
    r.w = off == 0 ? lo.w : off == 1 ? nx : off == 2 ? ny : nz;
    return r;
}

__device__ __forceinline__ int clamp04(int x) { return x < 0 ? 0 : (x > 4 ? 4 : x); }

/* d[0..3] = alpha * v + beta * c[0..3] for the `valid` (<= 0: none; >= 4: all) in range; c is read
 * only when beta != 0 (NaN in C does not leak) and with plain loads (C may alias D: each element is
 * read, then written, by one thread).  VEC: d and c are 16-byte aligned whenever valid >= 4. */
template <bool VEC>
__device__ __forceinline__ void store4(float *d, const float *c, float4 v, float alpha, float beta, int valid)
{
    v = make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
    if (VEC && valid >= 4) {
        if (beta != 0.f) {
            const float4 cv = *reinterpret_cast<const float4 *>(c);
            v.x = fmaf(beta, cv.x, v.x);
            v.y = fmaf(beta, cv.y, v.y);
            v.z = fmaf(beta, cv.z, v.z);
            v.w = fmaf(beta, cv.w, v.w);
        }
        *reinterpret_cast<float4 *>(d) = v;
    } else {
        const float vv[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int e = 0; e < 4; ++e)
            if (e < valid) d[e] = beta != 0.f ? fmaf(beta, c[e], vv[e]) : vv[e];
    }
}

/* The two-stage main loop of every SGEMM kernel (tile, skinny-m, skinny-n): step(ST, kt) runs k-tile
 * kt from shared stage ST, a compile-time constant (std::integral_constant), so stage offsets fold
 * into the shared-memory immediates; unrolled by two, not further. */
template <class Step>
__device__ __forceinline__ void sgemm_stage_loop(int ktiles, Step &step)
{
#pragma unroll 1
    for (int kt = 0; kt < ktiles; kt += 2) {
        step(std::integral_constant<int, 0>{}, kt);
        if (kt + 1 < ktiles) step(std::integral_constant<int, 1>{}, kt + 1);
    }
}

/* This block's K slice [kbeg, kbeg + klen) of a launch's SgemmSlice (the launcher makes every slice
 * non-empty); the kernels count k from 0 to klen, only their pointers know kbeg. */
__device__ __forceinline__ void sgemm_block_k_range(int64_t K, int k_chunk, int *kbeg, int *klen)
{
    *kbeg = (int)blockIdx.y * k_chunk;                        /* [0, K) */
    *klen = (int)min((int64_t)K - *kbeg, (int64_t)k_chunk); /* [0, K - kbeg] */
}

} /* namespace smk */

#endif
