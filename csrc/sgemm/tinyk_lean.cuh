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
 * slice's depth exactly (1..16, not variant 0's 1, 2, 4, 8, 16), so a block whose slice is KT deep runs
 * KT loads of A and 4 * KT FMAs a row with no predicate on k (K = 9: 36 FMAs, not 64), and holds a
 * 4 * KT-float panel (fewer registers).  A shorter slice (a K split's last) cuts its k loop at its depth
 * in groups of 4 (a warp-uniform branch).  The skipped products are variant 0's 0 * 0 = +0 added after the
 * last real product, which change an accumulator only where it is -0 (a sum that underflowed): D is bit for
 * bit variant 0's but for the sign of such a zero.
 */
#ifndef SMK_SGEMM_TINYK_LEAN_CUH
#define SMK_SGEMM_TINYK_LEAN_CUH

#include <stdint.h>

#include "api/sgemm.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"
#include "sgemm/parts.cuh"

namespace smk {

/* The KT-deep B panel from p = &B[0][this lane's first column], rows k >= klen zero.  VEC: the lane's 4
 * columns p[0..3], `valid` of them in range; else p[32 * j] for the j with ok[j]. */
template <int KT, bool VEC>
__device__ __forceinline__ void tinyk_lean_load_b(const float *p, int64_t ldb, int klen, int valid,
                                                  const bool (&ok)[4], float (&b)[KT][4])
{
#pragma unroll
    for (int k = 0; k < KT; ++k) {
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (k < klen) {
            if (VEC) {
                v = load4<true>(p, valid);
            } else {
                if (ok[0]) v.x = __ldg(p);
                if (ok[1]) v.y = __ldg(p + 32);
                if (ok[2]) v.z = __ldg(p + 64);
                if (ok[3]) v.w = __ldg(p + 96);
            }
            p += ldb;
        }
        b[k][0] = v.x, b[k][1] = v.y, b[k][2] = v.z, b[k][3] = v.w;
    }
}

/* acc[j] += sum over k < klen of ar[k] * b[k][j], in tinyk_row's order, the k loop cut at klen in groups of
 * 4 (the products past klen that a group still runs are 0 * 0, as in tinyk_row); klen = KT at compile time
 * on the exact path, where nothing is cut or predicated. */
template <int KT>
__device__ __forceinline__ void tinyk_lean_row(const float *ar, int klen, const float (&b)[KT][4], float (&acc)[4])
{
    float a[KT];
#pragma unroll
    for (int k = 0; k < KT; ++k) a[k] = k < klen ? __ldg(ar + k) : 0.f;
#pragma unroll
    for (int k0 = 0; k0 < KT; k0 += 4) {
        if (k0 > 0 && k0 >= klen) break; /* warp-uniform */
#pragma unroll
        for (int k = k0; k < k0 + 4 && k < KT; ++k)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[j] = fmaf(a[k], b[k][j], acc[j]);
    }
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

/* The rows of a warp at row0 from B panel pointer pb and A, D, C row pointers; kl the slice's depth (KT at
 * compile time on the exact path: no predicates on k, 4 * KT FMAs a row). */
template <class Cfg, int KT, bool VEC>
__device__ __forceinline__ void tinyk_lean_rows(const smk_sgemm_params &p, const float *pb, const float *ar, float *d,
                                                const float *c, int kl, int rows, int valid, const bool (&ok)[4])
{
    float b[KT][4];
    tinyk_lean_load_b<KT, VEC>(pb, p.ldb, kl, valid, ok, b);
#pragma unroll 2
    for (int i = 0; i < rows; ++i) {
        float acc[4] = {0.f, 0.f, 0.f, 0.f};
        tinyk_lean_row<KT>(ar, kl, b, acc);
        tinyk_lean_store<VEC>(d, c, p.alpha, p.beta, valid, ok, acc);
        ar += p.lda;
        d += p.ldd;
        if (c) c += p.ldc;
    }
}

/*
 * Cfg and VEC as tinyk_kernel (tinyk.cuh), whose blocks and lanes this kernel keeps.  KT: the launch's slice
 * depth exactly (tinyk.cu instantiates 1..16), so the blocks whose slice is KT deep (all but a K split's
 * short last slice) run the exact path; a shorter slice the predicated one.  Never a slice deeper than KT.
 */
template <class Cfg, int KT, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINBLOCKS)
    tinyk_lean_kernel(const smk_sgemm_params p, const SgemmSlice slice)
{
    constexpr int RW = Cfg::RW;
    pdl_allow_dependents(); /* the split's reduction may be scheduled */
    const int M = (int)p.M, N = (int)p.N;
    int kbeg = 0, klen = 0;
    sgemm_block_k_range(p.K, slice.k_chunk, &kbeg, &klen);
    const int tiles_n = (N + Cfg::TILE_N - 1) / Cfg::TILE_N;
    const int bn = ((int)blockIdx.x % tiles_n) * Cfg::TILE_N;
    const int bm = ((int)blockIdx.x / tiles_n) * Cfg::TILE_M;
    const int lane = threadIdx.x & 31, row0 = bm + (threadIdx.x >> 5) * RW;
    if (row0 >= M) return;
    const int col = VEC ? bn + 4 * lane : bn + lane; /* the lane's first column */
    const int valid = N - col;                        /* VEC: columns col.. in range */
    bool ok[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) ok[j] = col + 32 * j < N;
    const int cc = col < N ? col : 0; /* pointers stay inside the rows */
    const float *pb = p.B + (int64_t)kbeg * p.ldb + cc;
    const float *ar = p.A + (int64_t)row0 * p.lda + kbeg;
    float *d = p.D + blockIdx.y * slice.d_stride + (int64_t)row0 * p.ldd + cc;
    const float *c = p.beta != 0.f ? p.C + (int64_t)row0 * p.ldc + cc : nullptr;
    const int rows = M - row0 < RW ? M - row0 : RW;
    if (klen == KT)
        tinyk_lean_rows<Cfg, KT, VEC>(p, pb, ar, d, c, KT, rows, valid, ok);
    else
        tinyk_lean_rows<Cfg, KT, VEC>(p, pb, ar, d, c, klen, rows, valid, ok);
}

} /* namespace smk */

#endif /* SMK_SGEMM_TINYK_LEAN_CUH */
