/*
 * sgemm/tinyk_lean.cuh -- the tiny-K kernel's lean variant (knob sgemm_tinyk 1; tinyk.cuh is variant 0):
 * the same blocks, lanes, columns and arithmetic, with fewer instructions per output.
 *
 * Why (session 41, SASS of tinyk_kernel<TinyKCfg<16,2,256,2>,16,false>, the rw2 row that most tiny-K draws
 * take): the B panel's 64 scalar loads each rebuilt their 64-bit address from p.B, k * ldb and the column
 * (ISETP, LDC.64 of p.B -- rematerialised at the 128-register cap --, IADD3, three LEA, LDG: about 8 issues
 * a load, ~512 a warp, whatever K <= 16 is), and a warp of rw2 spreads them over only 2 rows of ~130 issues
 * each (16 predicated A loads, 64 FMAs of which 4 * (16 - K) multiply zeros, the stores): ~830 issues for
 * 256 outputs, 4 * K FMAs of them useful; ncu measured the kernel issue-bound (0.53 per scheduler cycle).
 * The lean variant computes each lane's B, A, D and C pointers and its four column predicates once and
 * steps them by the leading dimension (one 64-bit add per row), so a B row is 4 loads with immediate
 * offsets (+128 bytes a column group) and a D row 4 stores the same way; and its panel depth KT is the
 * slice's depth exactly (1..16, not variant 0's 1, 2, 4, 8, 16), so a row is KT loads of A and 4 * KT FMAs
 * with no predicate on k (K = 9: 36 FMAs, not 64), and the panel 4 * KT floats (fewer registers).  Launches
 * whose K slices are not all KT deep (a K split with a short last slice) stay on variant 0 (tinyk.cu).
 * Variant 0's products past K are 0 * 0 = +0 added after the last real product, which change an
 * accumulator only where it is -0 (a sum that underflowed): D is bit for bit variant 0's but for the sign
 * of such a zero.
 */
#ifndef SMK_SGEMM_TINYK_LEAN_CUH
#define SMK_SGEMM_TINYK_LEAN_CUH

#include <stdint.h>

#include "api/sgemm.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"
#include "sgemm/parts.cuh"

namespace smk {

/* The KT-deep B panel from p = &B[0][this lane's first column].  VEC: the lane's 4 columns p[0..3], `valid`
 * of them in range; else p[32 * j] for the j with ok[j] (the others zero). */
template <int KT, bool VEC>
__device__ __forceinline__ void tinyk_lean_load_b(const float *p, int64_t ldb, int valid, const bool (&ok)[4],
                                                  float (&b)[KT][4])
{
#pragma unroll
    for (int k = 0; k < KT; ++k) {
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (VEC) {
            v = load4<true>(p, valid);
        } else {
            if (ok[0]) v.x = __ldg(p);
            if (ok[1]) v.y = __ldg(p + 32);
            if (ok[2]) v.z = __ldg(p + 64);
            if (ok[3]) v.w = __ldg(p + 96);
        }
        if (k + 1 < KT) p += ldb;
        b[k][0] = v.x, b[k][1] = v.y, b[k][2] = v.z, b[k][3] = v.w;
    }
}

/* acc[j] += sum over k < KT of ar[k] * b[k][j], in tinyk_row's order (its products past the slice, 0 * 0,
 * not run). */
template <int KT>
__device__ __forceinline__ void tinyk_lean_row(const float *ar, const float (&b)[KT][4], float (&acc)[4])
{
    float a[KT];
#pragma unroll
    for (int k = 0; k < KT; ++k) a[k] = __ldg(ar + k);
#pragma unroll
    for (int k = 0; k < KT; ++k)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[j] = fmaf(a[k], b[k][j], acc[j]);
}

/* D row at d = &D[row][first column] = alpha * acc + beta * C row at c (read only when beta != 0), as
 * tinyk_store. */
template <bool VEC>
__device__ __forceinline__ void tinyk_lean_store(float *d, const float *c, float alpha, float beta, int valid,
                                                 const bool (&ok)[4], const float (&acc)[4])
{
    if (VEC) {
        if (valid > 0) store4<true>(d, c, make_float4(acc[0], acc[1], acc[2], acc[3]), alpha, beta, valid);
        return;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
        if (ok[j]) {
            float v = alpha * acc[j];
            if (beta != 0.f) v = fmaf(beta, c[32 * j], v); /* plain load: C may alias D */
            d[32 * j] = v;
        }
}

/*
 * Cfg and VEC as tinyk_kernel (tinyk.cuh), whose blocks and lanes this kernel keeps.  KT: every block's slice
 * depth exactly (tinyk.cu instantiates 1..16 and sends here only launches whose slices are all KT deep: one
 * slice, or K a multiple of the chunk), so nothing on k is predicated.
 */
template <class Cfg, int KT, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINBLOCKS)
    tinyk_lean_kernel(const smk_sgemm_params p, const SgemmSlice slice)
{
    constexpr int RW = Cfg::RW;
    pdl_allow_dependents(); /* the split's reduction may be scheduled */
    const int M = (int)p.M, N = (int)p.N;
    const int tiles_n = (N + Cfg::TILE_N - 1) / Cfg::TILE_N;
    const int bn = ((int)blockIdx.x % tiles_n) * Cfg::TILE_N;
    const int bm = ((int)blockIdx.x / tiles_n) * Cfg::TILE_M;
    const int lane = threadIdx.x & 31, row0 = bm + (threadIdx.x >> 5) * RW;
    if (row0 >= M) return;
    const int64_t kbeg = (int64_t)blockIdx.y * KT;
    const int col = VEC ? bn + 4 * lane : bn + lane; /* the lane's first column */
    const int valid = N - col;                        /* VEC: columns col.. in range */
    bool ok[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) ok[j] = col + 32 * j < N;
    const int cc = col < N ? col : 0; /* pointers stay inside the rows */
    float b[KT][4];
    tinyk_lean_load_b<KT, VEC>(p.B + kbeg * p.ldb + cc, p.ldb, valid, ok, b);
    const float *ar = p.A + (int64_t)row0 * p.lda + kbeg;
    float *d = p.D + blockIdx.y * slice.d_stride + (int64_t)row0 * p.ldd + cc;
    const float *c = p.beta != 0.f ? p.C + (int64_t)row0 * p.ldc + cc : nullptr;
    const int rows = M - row0 < RW ? M - row0 : RW;
#pragma unroll 2
    for (int i = 0; i < rows; ++i) {
        float acc[4] = {0.f, 0.f, 0.f, 0.f};
        tinyk_lean_row<KT>(ar, b, acc);
        tinyk_lean_store<VEC>(d, c, p.alpha, p.beta, valid, ok, acc);
        ar += p.lda;
        d += p.ldd;
        if (c) c += p.ldc;
    }
}

} /* namespace smk */

#endif /* SMK_SGEMM_TINYK_LEAN_CUH */
