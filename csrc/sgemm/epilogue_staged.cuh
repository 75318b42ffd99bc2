/*
 * sgemm/epilogue_staged.cuh -- the tile kernel's staged epilogue (tile.cuh, knob sgemm_epi; issue 27's
 * short-K class): D = alpha * acc + beta * C through the block's output tile in shared memory, stored as
 * whole rows of D.
 *
 * Why: the register epilogue (tile.cuh sgemm_tile_epilogue) stores each thread's 4-float pieces: one warp
 * instruction writes 4 rows x 128 bytes (8 lanes x 16 bytes per row).  Where D's rows do not start on a
 * 128-byte line every piece straddles two lines: 8 L2 requests per 512 bytes; with rows off 16 bytes
 * (N % 4 != 0 on a dense D) the pieces are 4 scalar stores each, 4 rows x 8 scattered words per
 * instruction.  At K <= 64 the main loop is 1..8 k-steps and that store is the kernel (docs/SGEMM_NOTES.md,
 * "Session 40": 6071x2788x23 L2-bound at 79%).  Here a warp instruction writes 32 consecutive 16-byte
 * chunks of one row (BN 128, 256) or 16 of each of two rows (BN 64): 4..5 lines per 512 bytes.
 *
 *   1. barrier (every warp past its last fragment load: the stages are free), each thread stores its
 *      accumulators as float4 into the tile Cs (SgemmEpiMap::c_stage, map SgemmEpiMap::c_tile = layout.h's
 *      SGEMM tile of BN columns), barrier;
 *   2. row-store iteration it: thread tid takes chunk q = it * THREADS + tid, tile row q / (BN/4), chunk
 *      k = q % (BN/4) (SgemmEpiMap::c_chunk): tile columns 4k .. 4k+3, one LDS.128.
 *      aligned (REALIGN false: D, and C when read, on 16 bytes with ld % 4 == 0; the launcher picks the
 *      instantiation, launch.cu out_rows): parts.cuh store4
 *      at column bn + 4k, as the register epilogue stores a piece (float4 where 4 columns are in range).
 *      re-aligned (REALIGN, rows off 16 bytes; its own instantiation: the run-time choice between the two
 *      in one kernel cost 64x128x8/minb4 52 bytes of spill in the main loop, REALIGN alone none): the row's first element g = D + m*ldd + bn lies sh = (g / 4) % 4
 *      floats past a 16-byte boundary ga; chunk k writes the aligned ga + 4k, tile columns 4k - sh ..
 *      4k - sh + 3: the last sh of chunk k - 1 (a second LDS.128, of the same row) and the first 4 - sh of
 *      chunk k.  Chunk 0 reads chunk BN/4 - 1 as its "previous": its sh elements before column 0 are the
 *      row's last sh tile columns (4 (BN/4) - sh + e), which lie in the chunk past the tile's row, so the
 *      BN/4 chunks cover the row's columns exactly once, never a neighbouring block's.  A chunk wholly in
 *      range (columns < nc = min(BN, N - bn)) is one STG.128 (C: one LDG.128 where C's columns are on 16
 *      bytes, else four scalar loads); the others store their in-range elements one by one.
 * Bank arithmetic (32 banks, a 16-byte access served per quarter warp = 8 lanes = 128 bytes):
 *   staging store: the 8 lanes of a quarter warp share lane / LANES_N, so they write 8 consecutive float4
 *      of one tile row, 128-byte aligned (b_col's lane part is 4 * (lane % 8), its warp and jn parts
 *      multiples of 32): naive and pad 32 consecutive banks; swizzle XORs column bit 4 by row bit 2, which
 *      swaps the two 16-float halves of that 32-float group or not: 32 banks.  1 wavefront per quarter.
 *   row loads: 8 consecutive chunks of one row (32 floats from a multiple of 32): the same, 32 banks; the
 *      re-aligned path's second load reads chunks k - 1, the quarter of lanes 0..7 chunks BN/4 - 1, 0..6:
 *      32 distinct banks in naive and pad; in swizzle the halves move as wholes (chunk slots XOR 4), the
 *      8 slots stay distinct mod 8.  Conflict-free in every layout (explain() replays it).
 * Same accumulators, same float operations in the same order as the register epilogue (alpha * acc, then
 * fmaf(beta, c, .) where beta != 0; C read only then, by the thread that writes that element, before it
 * writes it, so C may alias D): D is bit-identical between the two.
 */
#ifndef SMK_SGEMM_EPILOGUE_STAGED_CUH
#define SMK_SGEMM_EPILOGUE_STAGED_CUH

#include <stdint.h>

#include "layout.h"
#include "sgemm/epi.h"
#include "sgemm/parts.cuh"

namespace smk {

/* One LDS.128 of Cs at float offset off, issued unconditionally (asm volatile: nvcc may not sink it under
 * the row's m < M test, so every warp runs C_ITERS of them, as explain() counts; no memory clobber: the
 * loads of unrolled iterations may rise above the previous stores, not above the barrier, another volatile). */
__device__ __forceinline__ float4 lds_f4(const float *Cs, int off)
{
    float4 v;
    const unsigned a = (unsigned)__cvta_generic_to_shared(Cs + off);
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(a));
    return v;
}

/* Step 1: alpha * the thread's accumulators into Cs (store4's first operation, here: the products are fresh
 * registers, so the accumulators need not sit in the aligned quads an STS.128 of them would pin for the whole
 * main loop -- storing acc itself spilled 96..124 bytes at the 128-register cap). */
template <class Cfg, int LAYOUT>
__device__ __forceinline__ void sgemm_stage_acc(float *Cs, const float (&acc)[Cfg::WMITER * Cfg::TM][Cfg::WNITER * Cfg::TN],
                                                float alpha, int tid)
{
    using Map = SgemmEpiMap<Cfg>;
    constexpr smk_tile TC = Map::c_tile(LAYOUT);
    static_assert(sgemm_c_stage_ok<Cfg, LAYOUT>(), "staging offsets: base(tid) + c_stage_delta");
    float *const base = Cs + Map::c_stage_base(TC, tid);
#pragma unroll
    for (int i = 0; i < Cfg::WMITER; ++i)
#pragma unroll
        for (int ii = 0; ii < Cfg::TM; ++ii)
#pragma unroll
            for (int jn = 0; jn < Cfg::WNITER; ++jn)
#pragma unroll
                for (int j = 0; j < Cfg::TN; j += 4) {
                    const float *a4 = &acc[i * Cfg::TM + ii][jn * Cfg::TN + j];
                    *reinterpret_cast<float4 *>(base + Map::c_stage_delta(TC, i, ii, jn, j)) =
                        make_float4(alpha * a4[0], alpha * a4[1], alpha * a4[2], alpha * a4[3]);
                }
}

/* Element e (0..3) of the window (prev, cur) shifted by sh: window element 4 - sh + e. */
__device__ __forceinline__ float4 shift4(const float4 &prev, const float4 &cur, int sh)
{
    float4 o;
    o.x = sh == 0 ? cur.x : sh == 1 ? prev.w : sh == 2 ? prev.z : prev.y;
    o.y = sh == 0 ? cur.y : sh == 1 ? cur.x : sh == 2 ? prev.w : prev.z;
    o.z = sh == 0 ? cur.z : sh == 1 ? cur.y : sh == 2 ? cur.x : prev.w;
    o.w = sh == 0 ? cur.w : sh == 1 ? cur.z : sh == 2 ? cur.y : cur.x;
    return o;
}

/* One re-aligned chunk k of the row at g (D's tile column 0; cg: C's), o its four alpha-scaled values (out element e
 * = tile column 4k - sh + e, wrapped past the row's end for chunk 0), nc tile columns in range. */
template <int CPR>
__device__ __forceinline__ void store_realigned(float *g, const float *cg, int k, int nc, float4 o, float beta)
{
    const int sh = (int)(((uintptr_t)g >> 2) & 3);
    const int t0 = 4 * k - sh;
    if (t0 >= 0 && t0 + 4 <= nc) {
        if (beta != 0.f) {
            const float *cp = cg + t0;
            const float4 cv = ((uintptr_t)cp & 15) == 0 ? *reinterpret_cast<const float4 *>(cp)
                                                         : make_float4(cp[0], cp[1], cp[2], cp[3]);
            o.x = fmaf(beta, cv.x, o.x);
            o.y = fmaf(beta, cv.y, o.y);
            o.z = fmaf(beta, cv.z, o.z);
            o.w = fmaf(beta, cv.w, o.w);
        }
        *reinterpret_cast<float4 *>(g + t0) = o; /* g - sh + 4k: on 16 bytes */
        return;
    }
    const float v[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const int t = t0 + e < 0 ? t0 + e + 4 * CPR : t0 + e;
        if (t < nc) g[t] = beta != 0.f ? fmaf(beta, cg[t], v[e]) : v[e];
    }
}

/* threadIdx.x read again (asm volatile: not CSE'd with the kernel's first read, so tid is not one more
 * register live across the main loop -- at the 128-register cap every such register spilled). */
__device__ __forceinline__ int tid_again()
{
    int t;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t));
    return t;
}

/* The staged epilogue: D this K slice's output, smem the kernel's dynamic shared memory, (m0, n0) the thread's
 * first output as the register epilogue takes it (the block's origin bm, bn plus SgemmMap::a_col / b_col; the
 * origin is m0 and n0 with their tile bits cleared: only the two registers the register epilogue keeps live
 * across the main loop are kept). */
template <class Cfg, int LAYOUT, bool REALIGN>
__device__ __forceinline__ void sgemm_staged_epilogue(float *D, int64_t ldd, const float *C, int64_t ldc, float alpha,
                                                      float beta,
                                                      const float (&acc)[Cfg::WMITER * Cfg::TM][Cfg::WNITER * Cfg::TN],
                                                      float *smem, int M, int N, int m0, int n0)
{
    using Map = SgemmEpiMap<Cfg>;
    const int bm = m0 & ~(Cfg::BM - 1), bn = n0 & ~(Cfg::BN - 1), tid = tid_again();
    constexpr smk_tile TC = Map::c_tile(LAYOUT);
    constexpr int CPR = Map::C_CPR;
    __syncthreads(); /* every warp past its last fragment load: the stages are free */
    sgemm_stage_acc<Cfg, LAYOUT>(smem, acc, alpha, tid);
    __syncthreads();
    const int nc = min(Cfg::BN, N - bn);
    if constexpr (!REALIGN) {
#pragma unroll 2
        for (int it = 0; it < Map::C_ITERS; ++it) {
            int r = 0, k = 0;
            Map::c_chunk(it, tid, &r, &k);
            const float4 v = lds_f4(smem, smk_tile_offset(TC, r, 4 * k));
            const int m = bm + r;
            if (m < M)
                store4<true>(D + (int64_t)m * ldd + bn + 4 * k, C + (int64_t)m * ldc + bn + 4 * k, v, 1.f, beta,
                             nc - 4 * k); /* alpha applied at staging; 1 * v == v, folded away */
        }
    } else {
#pragma unroll 1 /* unroll 2 spilled 52 bytes in 64x128x8/minb4 */
        for (int it = 0; it < Map::C_ITERS; ++it) {
            int r = 0, k = 0;
            Map::c_chunk(it, tid, &r, &k);
            const float4 cur = lds_f4(smem, smk_tile_offset(TC, r, 4 * k));
            const float4 prev = lds_f4(smem, smk_tile_offset(TC, r, 4 * ((k + CPR - 1) % CPR)));
            const int m = bm + r;
            if (m >= M) continue;
            float *g = D + (int64_t)m * ldd + bn;
            const float *cg = C + (int64_t)m * ldc + bn; /* formed only; read only if beta != 0 */
            store_realigned<CPR>(g, cg, k, nc, shift4(prev, cur, (int)(((uintptr_t)g >> 2) & 3)), beta);
        }
    }
}

} /* namespace smk */

#endif /* SMK_SGEMM_EPILOGUE_STAGED_CUH */
