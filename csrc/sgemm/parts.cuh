/* sgemm/parts.cuh -- device parts every SGEMM kernel (tile, skinny-m, skinny-n, the split-K reduction)
 * uses: a predicated float4 global load, the alpha / beta epilogue store, and the two-stage main loop. */
#ifndef SMK_SGEMM_PARTS_CUH
#define SMK_SGEMM_PARTS_CUH

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
