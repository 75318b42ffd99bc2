/* The tensor-core GEMM kernel for 2-byte inputs (fp16 / bf16), templated on the shared-memory layout
 * (naive / pad / swizzle, plus explicit CuTe swizzles), through ldmatrix and mma.sync.
 *
 *   D = alpha * A @ B + beta * C     A: M x K, B: K x N, row-major, leading dimensions in elements;
 *                                    fp16 or bf16 inputs, fp32 accumulation, D (and C) in the input
 *                                    dtype or float32 (out_f32)
 *
 * The kernel reads as its parts:
 *   tile_origin      the block's output tile (grouped order, common/raster.cuh)
 *   CopyMap          a thread's share of a k-tile's global -> shared copies (chunk 0; chunk j is
 *                    j * A_STEP / B_STEP rows further)
 *   AsyncLoad        load path for 16-byte-aligned rows: cp.async into STAGES buffers, and its main loop
 *   StagedLoad       load path for unaligned rows: registers one k-tile ahead, 16-byte st.shared, and
 *                    its main loop (StagedDeep, load_deep.cuh: C::DEEP k-tiles ahead, the Deep<> tiles)
 *   WarpMma          fragments (ldmatrix.x4 for A, ldmatrix.x4.trans for B, which is K x N row-major in
 *                    shared memory as in global memory) and mma.sync.m16n8k16 into fp32 accumulators
 *   epilogue         alpha / beta from registers, pairs of elements where aligned (store_f32 / store_16);
 *                    or (epi) staged through shared memory into aligned 16-byte row chunks (epilogue_rows)
 * The shared layout and its bank arithmetic: smem.cuh.  Edges (M, N, K not tile multiples) are handled
 * here: chunks wholly outside M or N are not copied (they only feed outputs that are never stored),
 * chunks past K are zeroed with st.shared, chunks partly outside K or N use cp.async's src-size zero
 * fill; 64-bit global offsets, any M, N, K >= 0.  Unaligned operands of variant 0 never reach this
 * kernel's staged path: they are copied into padded temporaries first (pad.cu). */
#ifndef SMK_GEMM16_KERNEL_CUH
#define SMK_GEMM16_KERNEL_CUH

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <type_traits>

#include "api/gemm16.h"
#include "common/ptx_mma.cuh"
#include "common/raster.cuh"
#include "dispatch.h"
#include "smem.cuh"
#include "unaligned.cuh"

namespace smk {
namespace g16 {

/* Block rasterisation: GROUP_M block-rows walked before moving one block-column right (L2 reuse). */
constexpr int GROUP_M = 8;

/* ---- tile position ------------------------------------------------------------------------------ */
template <class C>
__device__ __forceinline__ void tile_origin(int64_t M, int64_t N, int64_t *bm, int64_t *bn)
{
    const int64_t grid_m = (M + C::BM - 1) / C::BM, grid_n = (N + C::BN - 1) / C::BN;
    int64_t tm, tn;
    group_tile<GROUP_M, int64_t>((int64_t)blockIdx.x, grid_m, grid_n, &tm, &tn);
    *bm = tm * C::BM;
    *bn = tn * C::BN;
}

/* ---- a thread's copies -----------------------------------------------------------------------------
 * A thread's chunks are A_STEP (A) / B_STEP (B) rows apart, its fragments 16 rows apart.  Every
 * swizzle here XORs with row bits 0..3 only (Swizzle<3,3,3> on 32-element rows: bits 1..3;
 * <2,3,2> / <2,3,3> / <3,3,3> on 64-element rows: bits 0..2), so moving down a multiple of 16 rows
 * (8 for the B panels) moves the offset by whole row pitches: one offset per thread plus immediates
 * (the host plan replays smk_tile_offset itself, and the GPU check compares). */
template <class C, class S>
struct CopyMap {
    static constexpr int A_STEP = C::THREADS / C::KCH, B_STEP = C::THREADS / (C::BN / 8);
    static constexpr int A_PITCH = S::A_PITCH, P_PITCH = S::P_PITCH; /* elements per row, padding included */
    static_assert(A_STEP % 16 == 0 && B_STEP % 8 == 0, "row steps keep the swizzle's XOR");

    const unsigned short *A, *B;
    int64_t K;
    int m0, kc, kb0, nc;           /* chunk 0: A row m0, k column kc; B k row kb0, column nc */
    int64_t a_rows;                /* chunk j in range iff j * A_STEP < a_rows */
    const unsigned short *a_src;   /* chunk 0's row at k = 0 (A itself when out of range) */
    int64_t a_jstride;
    int b_nv;                      /* columns of the B chunk inside N, 0..8 */
    bool b_fast;                   /* staged: the aligned 16-byte blocks around the chunk are in the row */
    const unsigned short *b_src;
    int64_t b_jstride, b_step;
    unsigned a_dst, b_dst;         /* chunk 0's byte offsets inside a stage */

    __device__ __forceinline__ CopyMap(const smk_gemm16_params &p, int tid, int64_t bm, int64_t bn)
    {
        const int64_t M = p.M, N = p.N;
        K = p.K;
        A = (const unsigned short *)p.A;
        B = (const unsigned short *)p.B;
        Map<C>::a_chunk(0, tid, &m0, &kc);
        Map<C>::b_chunk(0, tid, &kb0, &nc);
        a_rows = M - bm - m0;
        a_src = A + (a_rows > 0 ? (bm + m0) * p.lda + kc : 0);
        a_jstride = (int64_t)A_STEP * p.lda;
        const int64_t n_left = N - (bn + nc);
        b_nv = n_left <= 0 ? 0 : n_left >= 8 ? 8 : (int)n_left;
        b_fast = n_left >= 15;
        b_src = B + (int64_t)kb0 * p.ldb + (b_nv ? bn + nc : 0);
        b_jstride = (int64_t)B_STEP * p.ldb;
        b_step = (int64_t)C::BK * p.ldb;
        a_dst = (unsigned)S::a_off(m0, kc) * 2;
        b_dst = (unsigned)S::b_off(kb0, nc) * 2;
    }
    /* in-range elements of an A chunk with kl = K - k0 - kc columns left in its row, 0..8 */
    __device__ __forceinline__ static int k_valid(int64_t kl) { return kl <= 0 ? 0 : kl >= 8 ? 8 : (int)kl; }
};

/* ---- warp MMA ----------------------------------------------------------------------------------------
 * Per warp WM x WN: MI m16 A fragments and NI/2 pairs of n8 B fragments per k16 step, double-buffered
 * one k step ahead (buffer = ks & 1); ldmatrix row addresses are one byte offset per k step (A) or per
 * fragment pair (B) plus immediates.  WarpMma is a view over arrays the kernel declares: as members of
 * one object they compile to the same instructions in other registers (the compiler splits the object
 * in another order), and the SASS would no longer match the single-function kernel's. */
template <class C, class S, bool BF16>
struct WarpMma {
    static constexpr int KS = C::BK / 16, A_PITCH = S::A_PITCH, P_PITCH = S::P_PITCH;
    typedef unsigned ALd[KS];               /* A row address per k step, bytes inside a stage */
    typedef unsigned BLd[C::NI / 2];        /* B row address per fragment pair */
    typedef unsigned AFrag[2][C::MI][4];    /* [buffer][mi] */
    typedef unsigned BFrag[2][C::NI / 2][4];
    typedef float Acc[C::MI][C::NI][4];
    const ALd &a_ld;
    const BLd &b_ld;
    AFrag &af;
    BFrag &bfr;
    Acc &acc;

    static __device__ __forceinline__ void addresses(int warp, int lane, ALd &a_ld, BLd &b_ld)
    {
#pragma unroll
        for (int ks = 0; ks < KS; ks++) {
            int m, k;
            Map<C>::a_ldsm(warp, lane, 0, ks, &m, &k);
            a_ld[ks] = (unsigned)S::a_off(m, k) * 2;
        }
#pragma unroll
        for (int nj = 0; nj < C::NI / 2; nj++) {
            int k, n;
            Map<C>::b_ldsm(warp, lane, nj, 0, &k, &n);
            b_ld[nj] = (unsigned)S::b_off(k, n) * 2;
        }
    }
    static __device__ __forceinline__ void zero(Acc &acc)
    {
#pragma unroll
        for (int i = 0; i < C::MI; i++)
#pragma unroll
            for (int j = 0; j < C::NI; j++)
#pragma unroll
                for (int e = 0; e < 4; e++)
                    acc[i][j][e] = 0.f;
    }
    /* k step ks of stage st into fragment buffer buf */
    __device__ __forceinline__ void load_frags(unsigned sbase, int st, int ks, int buf)
    {
        const unsigned sb = sbase + (unsigned)(st * S::STAGE_ELEMS * 2);
#pragma unroll
        for (int mi = 0; mi < C::MI; mi++)
            ldsm_x4(sb + a_ld[ks] + mi * 16 * A_PITCH * 2, af[buf][mi]);
#pragma unroll
        for (int nj = 0; nj < C::NI / 2; nj++)
            ldsm_x4_trans(sb + b_ld[nj] + ks * 16 * P_PITCH * 2, bfr[buf][nj]);
    }
    /* the MI x NI mma.sync of one k step, serpentine over n so odd rows reuse the last B registers */
    __device__ __forceinline__ void step(int buf)
    {
#pragma unroll
        for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
            for (int ni = 0; ni < C::NI; ni++) {
                const int nn = (mi & 1) ? C::NI - 1 - ni : ni;
                mma16816<BF16>(acc[mi][nn], af[buf][mi], bfr[buf][nn / 2][(nn & 1) * 2],
                               bfr[buf][nn / 2][(nn & 1) * 2 + 1]);
            }
    }
};

} /* namespace g16 */
} /* namespace smk */

#include "load_narrow.cuh"
#include "load_async.cuh"
#include "load_staged.cuh"
#include "load_deep.cuh"
#include "epilogue.cuh"
#include "epilogue_rows.cuh"
#include "fixup.cuh"

namespace smk {
namespace g16 {

/* ---- split-K: blockIdx.y's slice of K ------------------------------------------------------------
 * With gridDim.y = S > 1 (variant 0's split, gemm16_split.cu) block (x, z) computes the product of
 * A[:, z*k_chunk, +k_chunk) and B[z*k_chunk, +k_chunk), :) (the last slice shorter) into the fp32
 * partial tile D + z*stride (the host passes D = the workspace, out_f32 = 1, alpha = 1, beta = 0).
 * k_chunk is a multiple of BK, so each slice's A and B rows keep the alignment of the whole rows. */
__device__ __forceinline__ smk_gemm16_params k_slice(const smk_gemm16_params &p, const KSlice &ks)
{
    smk_gemm16_params q = p;
    if (gridDim.y > 1) {
        const int64_t z = blockIdx.y, k0 = z * ks.k_chunk, kl = p.K - k0;
        q.A = (const unsigned short *)p.A + k0;
        q.B = (const unsigned short *)p.B + k0 * p.ldb;
        q.K = kl < ks.k_chunk ? kl : ks.k_chunk;
        q.D = (float *)p.D + z * ks.stride;
    }
    return q;
}

/* ---- the kernel: tile position -> load path's main loop (warp MMA inside) -> epilogue ---------------
 * VEC: rows 16-byte aligned (AsyncLoad), else StagedLoad; fastu: variant 5's (and variant 0's in-place)
 * funnel-shift loads; ks: the K slice of blockIdx.y (unused when gridDim.y == 1); epi: the staged row
 * epilogue (epilogue_rows.cuh) where D is 2-byte and beta == 0 (split-K's fp32 partials: registers);
 * FIX, fx: split-K's fused reduction (fixup.cuh), its own instantiation (the others keep their registers);
 * NARROW (VEC false): rows aligned to 4 / 8 bytes through narrow cp.async (load_narrow.cuh), fastu then
 * carries the widths. */
template <class C, int LAYOUT, int SID, bool BF16, bool VEC, bool FIX, bool NARROW = false>
__global__ void __launch_bounds__(C::THREADS, C::MINB)
    gemm16_kernel(const smk_gemm16_params p0, int fastu, const KSlice ks, int epi, const G16Fixup fx)
{
    const smk_gemm16_params p = k_slice(p0, ks);
    using S = Smem<C, LAYOUT, SID>;
    using Staged = typename std::conditional<(C::DEEP > 0), StagedDeep<C, S>, StagedLoad<C, S>>::type;
    using Narrow = typename std::conditional<NARROW, AsyncLoad<C, S, true>, Staged>::type;
    using Load = typename std::conditional<VEC, AsyncLoad<C, S>, Narrow>::type;
    using Mma = WarpMma<C, S, BF16>;
    extern __shared__ __align__(128) unsigned short smem[];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int64_t bm, bn;
    tile_origin<C>(p.M, p.N, &bm, &bn);
    const int KT = (int)((p.K + C::BK - 1) / C::BK);
    const unsigned sbase = smem_u32(smem);

    Load load(p, tid, bm, bn, fastu);
    typename Mma::ALd a_ld;
    typename Mma::BLd b_ld;
    Mma::addresses(warp, lane, a_ld, b_ld);
    typename Mma::AFrag af;
    typename Mma::BFrag bfr;
    typename Mma::Acc acc;
    Mma::zero(acc);
    Mma mma{a_ld, b_ld, af, bfr, acc};
    load.run(mma, sbase, KT);
    if (epi && !p.out_f32 && p.beta == 0.f)
        epilogue_rows<C, LAYOUT, BF16>(p, acc, bm, bn, warp, lane, sbase);
    else
        epilogue<C, BF16>(p, acc, bm, bn, warp, lane);
    if constexpr (FIX) /* a split launch that finishes itself (fx.counters or fx.cluster set): fixup.cuh */
        g16_fixup_tile<C::THREADS, C::BM, C::BN, BF16>(fx, (const float *)p0.D, p0.ldd, ks.stride, p0.M, p0.N, bm, bn);
}

} /* namespace g16 */
} /* namespace smk */

#endif
