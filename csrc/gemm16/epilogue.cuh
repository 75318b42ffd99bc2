/* The tensor-core GEMM's epilogue (included by kernel.cuh): D = alpha * acc + beta * C from registers,
 * no shared memory.  acc[mi][ni][e] of a warp is D(row, col) with row = warp row + 16 mi + lane / 4
 * (+ 8 for e >= 2) and col = warp column + 8 ni + 2 (lane % 4) + e % 2: each lane holds pairs of
 * adjacent columns, stored as one 8-byte (fp32) or 4-byte (fp16 / bf16) access where D, C and both
 * leading dimensions allow (pairs_aligned), else element by element. */
#ifndef SMK_GEMM16_EPILOGUE_CUH
#define SMK_GEMM16_EPILOGUE_CUH

namespace smk {
namespace g16 {

template <bool BF16>
__device__ __forceinline__ float to_f(unsigned short x)
{
    if (BF16)
        return __uint_as_float((unsigned)x << 16);
    return __half2float(__ushort_as_half(x));
}
template <bool BF16>
__device__ __forceinline__ unsigned short from_f(float x)
{
    if (BF16)
        return __bfloat16_as_ushort(__float2bfloat16_rn(x));
    return __half_as_ushort(__float2half_rn(x));
}

/* Whether every (even column, +1) pair of D and C is one aligned access: 8 bytes for fp32 output, 4
 * for 2-byte; C only when it is read. */
__device__ __forceinline__ bool pairs_aligned(const smk_gemm16_params &p, bool use_c, bool out32)
{
    return out32 ? ((((uintptr_t)p.D | (use_c ? (uintptr_t)p.C : 0)) & 7) == 0 && p.ldd % 2 == 0 &&
                    (!use_c || p.ldc % 2 == 0))
                 : ((((uintptr_t)p.D | (use_c ? (uintptr_t)p.C : 0)) & 3) == 0 && p.ldd % 2 == 0 &&
                    (!use_c || p.ldc % 2 == 0));
}

/* fp32 output: v0, v1 (already alpha-scaled) at (row, col), (row, col + 1) when two */
__device__ __forceinline__ void store_f32(const smk_gemm16_params &p, int64_t row, int64_t col, float v0, float v1,
                                          bool two, bool pair_ok, bool use_c, float beta)
{
    float *d = (float *)p.D + row * p.ldd + col;
    const float *c = (const float *)p.C + row * p.ldc + col;
    if (two && pair_ok) {
        if (use_c) {
            const float2 cv = *(const float2 *)c;
            v0 += beta * cv.x;
            v1 += beta * cv.y;
        }
        *(float2 *)d = make_float2(v0, v1);
    } else {
        if (use_c) {
            v0 += beta * c[0];
            if (two) v1 += beta * c[1];
        }
        d[0] = v0;
        if (two) d[1] = v1;
    }
}

/* fp16 / bf16 output: the same, C read and D written in the input dtype (round to nearest) */
template <bool BF16>
__device__ __forceinline__ void store_16(const smk_gemm16_params &p, int64_t row, int64_t col, float v0, float v1,
                                         bool two, bool pair_ok, bool use_c, float beta)
{
    unsigned short *d = (unsigned short *)p.D + row * p.ldd + col;
    const unsigned short *c = (const unsigned short *)p.C + row * p.ldc + col;
    if (two && pair_ok) {
        if (use_c) {
            const unsigned cv = *(const unsigned *)c;
            v0 += beta * to_f<BF16>((unsigned short)(cv & 0xffff));
            v1 += beta * to_f<BF16>((unsigned short)(cv >> 16));
        }
        *(unsigned *)d = from_f<BF16>(v0) | ((unsigned)from_f<BF16>(v1) << 16);
    } else {
        if (use_c) {
            v0 += beta * to_f<BF16>(c[0]);
            if (two) v1 += beta * to_f<BF16>(c[1]);
        }
        d[0] = from_f<BF16>(v0);
        if (two) d[1] = from_f<BF16>(v1);
    }
}

/* The warp's accumulators into D: rows outside M and columns outside N are skipped. */
template <class C, bool BF16>
__device__ __forceinline__ void epilogue(const smk_gemm16_params &p, const float (&acc)[C::MI][C::NI][4], int64_t bm,
                                         int64_t bn, int warp, int lane)
{
    const int64_t M = p.M, N = p.N;
    const float alpha = p.alpha, beta = p.beta;
    const bool use_c = beta != 0.f;
    const bool out32 = p.out_f32 != 0;
    const bool pair_ok = pairs_aligned(p, use_c, out32);
    const int64_t wm0 = bm + (warp / C::WARPS_N) * C::WM, wn0 = bn + (warp % C::WARPS_N) * C::WN;
#pragma unroll
    for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int64_t row = wm0 + mi * 16 + (lane >> 2) + h * 8;
            if (row >= M)
                continue;
#pragma unroll
            for (int ni = 0; ni < C::NI; ni++) {
                const int64_t col = wn0 + ni * 8 + (lane & 3) * 2;
                if (col >= N)
                    continue;
                const float v0 = alpha * acc[mi][ni][h * 2], v1 = alpha * acc[mi][ni][h * 2 + 1];
                const bool two = col + 1 < N;
                if (out32)
                    store_f32(p, row, col, v0, v1, two, pair_ok, use_c, beta);
                else
                    store_16<BF16>(p, row, col, v0, v1, two, pair_ok, use_c, beta);
            }
        }
}

} /* namespace g16 */
} /* namespace smk */

#endif
