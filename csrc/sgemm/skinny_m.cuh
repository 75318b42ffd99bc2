/*
 * sgemm/skinny_m.cuh -- the memory-bound SGEMM kernel for small M ("skinny-m" rows of configs.h), as its
 * parts: tile position -> A slice staged in shared memory (SkinnyMLoaderA) -> B streamed from global
 * memory into FMAs (SkinnyMMultiply) in the two-stage main loop (SkinnyMStep) -> epilogue.
 *
 *   D = alpha * A @ B + beta * C      float32, row-major, leading dimensions in elements
 *
 * With M tiny, D = A @ B moves K*N floats of B for 2*M*N*K flops: at M = 1 that is 2 flops per 4
 * bytes, so the ceiling is DRAM bandwidth, and a 64x64 tile wastes 63/64 of its FMAs and, worse, keeps
 * few loads in flight.  This kernel streams B straight from global memory into registers, many
 * independent 16-byte loads per thread (memory-level parallelism is what reaches the bandwidth), and
 * keeps only A's slice in shared memory.
 *
 * Block tile MS rows x BN = 4*THREADS columns; thread t owns D columns bn + 4t .. +3 of all MS rows
 * (MS x 4 accumulators).  Per k it loads B[k][bn+4t .. +3] (float4; a warp reads 512 contiguous bytes
 * of a B row), U rows of k per batch, all U loads issued before the first is used.  A's MS x BK slice
 * is staged in shared memory UNTRANSPOSED, As[m][k] (each thread loads one float4 along k of one A row
 * and stores it as one STS.128), double-buffered with the next slice's global load in flight during
 * the multiply, one barrier per k-tile; the multiply reads As[m][k..k+3] with LDS.128 where every lane
 * of the warp names the same address.
 *
 * Like the tile kernel it takes any M, N, K, leading dimensions and alignment (VEC: float4 global
 * access when every pointer is 16-byte aligned and every leading dimension a multiple of 4, else
 * predicated scalars), tiles M in MS-row blocks of the grid, honours SgemmSlice, and applies alpha /
 * beta as store4 does.  Every shared-memory instruction is issued for every k-tile whatever the
 * predicates (out-of-range elements are zeros), so explain()'s per-k-tile plan is exact.
 *
 * ---- Bank arithmetic (32 banks x 4 bytes; offsets in floats, bank = offset mod 32) ----
 * The slice uses smk_sgemm_tile(layout, log2 BK): rows of BK floats (BK a multiple of 32), float4
 * access.  naive: r*BK + c.  pad: r*(BK+4) + c, bank = 4r + c.  swizzle (Swizzle<1,4,log2 BK - 2>):
 * bit 2 of the row r flips bit 4 of the column (which 16-float half of a 128-byte group).
 * A store (STS.128).  Thread t stores As[m][kc], m = t / (BK/4), kc = 4*(t % (BK/4)): a quarter warp
 *   (8 lanes) writes 8 consecutive float4 of one row, a 128-byte aligned group of 32 consecutive
 *   floats in naive and pad (rows start at multiples of BK resp. BK+4 and the group at a multiple of
 *   32 columns), and in swizzle the same group with its two halves swapped or not: 32 distinct banks,
 *   4 wavefronts per warp (the minimum for 512 bytes) in every layout.
 * A read (LDS.128): every lane names As[m][k], one address: a broadcast, 2 wavefronts (the 16-byte
 *   broadcast minimum, bank_model.c) in every layout.  No layout has anything to fix in this kernel:
 *   its shared traffic is MS*BK floats in and out per k-tile against BK*BN floats of B from global
 *   memory, and its access patterns are conflict-free as they stand.  explain() says so.
 */
#ifndef SMK_SGEMM_SKINNY_M_CUH
#define SMK_SGEMM_SKINNY_M_CUH

#include <stdint.h>

#include "layout.h"
#include "api/sgemm.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"
#include "sgemm/maps.h"
#include "sgemm/parts.cuh"

namespace smk {

/* ---- the A slice: registers -> shared stage and back, one float4 per load, untransposed ----
 * A view of the kernel's locals (as a lambda's captures are: the kernel keeps each array its own
 * variable, which is what keeps its SASS that of the one-function kernel). */
template <class Cfg, int LAYOUT, bool VEC>
struct SkinnyMLoaderA {
    static constexpr int A_LOADS = Cfg::A_LOADS;
    const int (&a_m)[A_LOADS], (&a_kc)[A_LOADS]; /* SkinnyMMap::a_load */
    const bool (&a_mok)[A_LOADS];                /* the row is < M */
    const float *const (&a_ptr)[A_LOADS];        /* the row at the slice's first k */
    float4 (&ra)[A_LOADS];
    const int &klen;
    float *const &smem;

    /* The k-tile at k0 (from the slice's start): rows past M and k past klen read as zero. */
    __device__ __forceinline__ void load(int k0) const
    {
#pragma unroll
        for (int j = 0; j < A_LOADS; ++j)
            ra[j] = load4<VEC>(a_ptr[j] + k0, a_mok[j] ? clamp04(klen - (k0 + a_kc[j])) : 0);
    }
    /* Registers -> shared stage st. */
    __device__ __forceinline__ void store(int st) const
    {
        constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BK); /* As: MS rows (m) x BK cols (k) */
        float *As = smem + st * smk_tile_elems(TA, Cfg::MS);
#pragma unroll
        for (int j = 0; j < A_LOADS; ++j)
            *reinterpret_cast<float4 *>(&As[smk_tile_offset(TA, a_m[j], a_kc[j])]) = ra[j];
    }
};

/* ---- B streamed from global memory, U rows per batch, into MS x 4 accumulators ----
 * Multiply the k-tile at k0 (from the slice's start) with the A slice in stage st.  Every lane reads
 * the same As address (a broadcast).  Not unrolled over batches: unrolled, the compiler hoists every
 * batch's loads to the top of the k-tile (BK float4 = 4 * BK registers) and spills.
 * Cfg::PF (the "/pf" rows, sgemm_new_paths level 5): two batch buffers, the loads of batch b + 1
 * issued before the FMAs of batch b (and b + 2 before those of b + 1), so that a warp always has one
 * batch in flight while it multiplies the other instead of waiting for each batch after its FMAs.
 * Same global bytes, the same shared reads in the same order (explain()'s plan is unchanged); 2 x U
 * float4 (+ 2 x U x 3 floats of lane 31's re-align tail) in registers instead of U. */
template <class Cfg, int LAYOUT, bool VEC, bool RA = false>
struct SkinnyMMultiply {
    static constexpr int MS = Cfg::MS, BK = Cfg::BK, U = Cfg::U;
    const smk_sgemm_params &p;
    float (&acc)[MS][4];
    const float *&bp; /* B[kbeg + k0][col] of the next k-tile */
    const int &nvalid, &klen;
    float *const &smem;
    const bool &warp_in; /* RA: the warp's 128 columns are all < N (warp-uniform) */

    /* One batch of U rows of B in flight (PF): the loaded float4; MODE_RA also lane 31's tail of each row. */
    enum { MODE_RA = 0, MODE_FULL = 1, MODE_EDGE = 2 }; /* re-aligned, float4 in range, predicated */
    struct Batch {
        float4 b[U];
        float3 hi[U];
    };
    /* Row kb + u's offset in floats from 16 bytes (MODE_RA), recomputed rather than held. */
    __device__ __forceinline__ int row_off(int kb, int u) const
    {
        return (int)((reinterpret_cast<uintptr_t>(bp + (int64_t)(kb + u) * p.ldb) >> 2) & 3);
    }
    /* Issue the loads of batch kb of the k-tile at k0. */
    template <int MODE>
    __device__ __forceinline__ void issue(Batch &x, int k0, int kb) const
    {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const float *row = bp + (int64_t)(kb + u) * p.ldb;
            if (MODE == MODE_RA) {
                float4 hi;
                int off;
                realign_load(row, threadIdx.x & 31, x.b[u], hi, off);
                x.hi[u] = make_float3(hi.x, hi.y, hi.z);
            } else {
                x.b[u] = load4<VEC, true>(row, MODE == MODE_FULL ? 4 : k0 + kb + u < klen ? nvalid : 0);
            }
        }
    }
    /* The batch's values (MODE_RA: re-aligned across the warp; waits for its loads) into MS x U x 4 FMAs. */
    template <int MODE>
    __device__ __forceinline__ void take(Batch &x, const float *As, int kb) const
    {
        constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BK);
        if (MODE == MODE_RA) {
            const int lane = threadIdx.x & 31;
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const float4 hi = make_float4(x.hi[u].x, x.hi[u].y, x.hi[u].z, 0.f);
                x.b[u] = realign_finish(x.b[u], hi, row_off(kb, u), lane);
            }
        }
#pragma unroll
        for (int k4 = 0; k4 < U; k4 += 4)
#pragma unroll
            for (int m = 0; m < MS; ++m) {
                const float4 a = *reinterpret_cast<const float4 *>(&As[smk_tile_offset(TA, m, kb + k4)]);
                const float av[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
                for (int kk = 0; kk < 4; ++kk) {
                    acc[m][0] = fmaf(av[kk], x.b[k4 + kk].x, acc[m][0]);
                    acc[m][1] = fmaf(av[kk], x.b[k4 + kk].y, acc[m][1]);
                    acc[m][2] = fmaf(av[kk], x.b[k4 + kk].z, acc[m][2]);
                    acc[m][3] = fmaf(av[kk], x.b[k4 + kk].w, acc[m][3]);
                }
            }
    }
    /* PF: batch pairs, the next batch's loads issued before this one's FMAs. */
    template <int MODE>
    __device__ __forceinline__ void prefetched(const float *As, int k0) const
    {
        static_assert(BK % (2 * U) == 0, "batches in pairs");
        Batch x, y;
        issue<MODE>(x, k0, 0);
#pragma unroll 1
        for (int kb = 0; kb < BK; kb += 2 * U) {
            issue<MODE>(y, k0, kb + U); /* in flight while x is multiplied */
            take<MODE>(x, As, kb);
            if (kb + 2 * U < BK) issue<MODE>(x, k0, kb + 2 * U); /* in flight while y is */
            take<MODE>(y, As, kb + U);
        }
    }

    __device__ __forceinline__ void operator()(int st, int k0) const
    {
        constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BK);
        const float *As = smem + st * smk_tile_elems(TA, MS);
        const bool full = (RA ? warp_in : nvalid == 4) && k0 + BK <= klen; /* RA: warp-uniform */
        if constexpr (Cfg::PF) {
            if (RA && full)
                prefetched<MODE_RA>(As, k0);
            else if (full)
                prefetched<MODE_FULL>(As, k0);
            else
                prefetched<MODE_EDGE>(As, k0);
        } else {
            batches(As, k0, full); /* the loop before PF, kept as it was: its SASS and registers */
        }
        bp += (int64_t)BK * p.ldb;
    }

    /* Without PF: each batch's U loads, then its FMAs (the re-align inside the load branch). */
    __device__ __forceinline__ void batches(const float *As, int k0, bool full) const
    {
        constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BK);
#pragma unroll 1
        for (int kb = 0; kb < BK; kb += U) {
            float4 b[U];
            if (RA && full) {
                const int lane = threadIdx.x & 31;
                float4 hi[U];
                int off[U];
#pragma unroll
                for (int u = 0; u < U; ++u) realign_load(bp + (int64_t)(kb + u) * p.ldb, lane, b[u], hi[u], off[u]);
#pragma unroll
                for (int u = 0; u < U; ++u) b[u] = realign_finish(b[u], hi[u], off[u], lane);
            } else if (full) {
#pragma unroll
                for (int u = 0; u < U; ++u) b[u] = load4<VEC, true>(bp + (int64_t)(kb + u) * p.ldb, 4);
            } else {
#pragma unroll
                for (int u = 0; u < U; ++u)
                    b[u] = load4<VEC, true>(bp + (int64_t)(kb + u) * p.ldb, k0 + kb + u < klen ? nvalid : 0);
            }
#pragma unroll
            for (int k4 = 0; k4 < U; k4 += 4)
#pragma unroll
                for (int m = 0; m < MS; ++m) {
                    const float4 a = *reinterpret_cast<const float4 *>(&As[smk_tile_offset(TA, m, kb + k4)]);
                    const float av[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk) {
                        acc[m][0] = fmaf(av[kk], b[k4 + kk].x, acc[m][0]);
                        acc[m][1] = fmaf(av[kk], b[k4 + kk].y, acc[m][1]);
                        acc[m][2] = fmaf(av[kk], b[k4 + kk].z, acc[m][2]);
                        acc[m][3] = fmaf(av[kk], b[k4 + kk].w, acc[m][3]);
                    }
                }
        }
    }
};

/* ---- main loop step: prefetch A(kt+1) -> multiply kt -> park A(kt+1) in the other stage -> sync ----
 * The store is unconditional, as the tile kernel's: no predicated-off store for ncu to count. */
template <class Cfg, int LAYOUT, bool VEC, bool RA>
struct SkinnyMStep {
    const SkinnyMLoaderA<Cfg, LAYOUT, VEC> &ld;
    const SkinnyMMultiply<Cfg, LAYOUT, VEC, RA> &multiply;
    const int &ktiles;

    template <class StTag>
    __device__ __forceinline__ void operator()(StTag, int kt) const
    {
        constexpr int ST = StTag::value, BK = Cfg::BK;
        const bool more = kt + 1 < ktiles;
        if (more) ld.load((kt + 1) * BK);
        multiply(ST, kt * BK);
        ld.store(ST ^ 1);
        __syncthreads();
    }
};

/* ---- epilogue: D = alpha*acc + beta*C (C not read when beta == 0), into this K slice's output ---- */
template <class Cfg, bool VEC>
__device__ __forceinline__ void skinny_m_epilogue(const smk_sgemm_params &p, const SgemmSlice &slice,
                                                  const float (&acc)[Cfg::MS][4], int M, int N, int bm, int col)
{
    const float alpha = p.alpha, beta = p.beta;
#pragma unroll
    for (int m = 0; m < Cfg::MS; ++m) {
        const int row = bm + m;
        if (row >= M) continue;
        float *d = p.D + blockIdx.y * slice.d_stride + (int64_t)row * p.ldd + col;
        const float *c = p.C + (int64_t)row * p.ldc + col; /* formed only; read only if beta != 0 */
        store4<VEC>(d, c, make_float4(acc[m][0], acc[m][1], acc[m][2], acc[m][3]), alpha, beta, N - col);
    }
}

/*
 * Cfg     SkinnyMCfg.   LAYOUT  smk_layout of the A slice.   VEC  as sgemm_kernel.
 * RA      (!VEC only) B's rows streamed as aligned float4 re-aligned across the warp (realign_load):
 *         LDG.128 whatever ldb and B's base; else predicated scalar loads (the path before it).
 * p       validated by smk_sgemm_launch (M, N > 0; K == 0 when alpha == 0).
 * slice   the K range of blockIdx.y and where its tile goes.
 */
template <class Cfg, int LAYOUT, bool VEC, bool RA = false>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINBLOCKS)
    skinny_m_kernel(const smk_sgemm_params p, const SgemmSlice slice)
{
    constexpr int MS = Cfg::MS, BK = Cfg::BK, A_LOADS = Cfg::A_LOADS;
    constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BK); /* As: MS rows (m) x BK cols (k) */
    constexpr int A_ELEMS = smk_tile_elems(TA, MS);                /* a multiple of 4: float4 rows */
    pdl_allow_dependents(); /* the split's reduction may be scheduled */
    __shared__ float4 smk_skinny_m_smem[Cfg::STAGES * A_ELEMS / 4];
    float *const smem = reinterpret_cast<float *>(smk_skinny_m_smem);

    const int M = (int)p.M, N = (int)p.N;
    const int kbeg = (int)blockIdx.y * slice.k_chunk;                       /* [0, K) */
    const int klen = (int)min((int64_t)p.K - kbeg, (int64_t)slice.k_chunk); /* [0, K - kbeg] */

    /* The MS-row tiles of one column strip are consecutive blocks: they run together and read the
     * strip of B once from DRAM, then from L2. */
    const int tiles_m = (M + MS - 1) / MS;
    const int bm = ((int)blockIdx.x % tiles_m) * MS; /* [0, M) */
    const int bn = ((int)blockIdx.x / tiles_m) * Cfg::BN;

    const int tid = threadIdx.x;
    const int col = bn + SkinnyMMap<Cfg>::b_col(tid);
    const int nvalid = clamp04(N - col);
    const float *bp = p.B + (int64_t)kbeg * p.ldb + (nvalid > 0 ? col : 0);

    int a_m[A_LOADS], a_kc[A_LOADS];
    bool a_mok[A_LOADS];
    const float *a_ptr[A_LOADS];
#pragma unroll
    for (int j = 0; j < A_LOADS; ++j) {
        SkinnyMMap<Cfg>::a_load(j, tid, &a_m[j], &a_kc[j]);
        a_mok[j] = bm + a_m[j] < M;
        a_ptr[j] = p.A + (int64_t)(a_mok[j] ? bm + a_m[j] : 0) * p.lda + kbeg + a_kc[j];
    }
    float4 ra[A_LOADS];
    const SkinnyMLoaderA<Cfg, LAYOUT, VEC> ld{a_m, a_kc, a_mok, a_ptr, ra, klen, smem};
    float acc[MS][4];
#pragma unroll
    for (int m = 0; m < MS; ++m)
        acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = 0.f;
    const bool warp_in = col - 4 * (tid & 31) + 128 <= N; /* lane 31's 4 columns in range */
    const SkinnyMMultiply<Cfg, LAYOUT, VEC, RA && !VEC> multiply{p, acc, bp, nvalid, klen, smem, warp_in};

    const int ktiles = (klen + BK - 1) / BK;
    if (ktiles > 0) {
        ld.load(0);
        ld.store(0);
        __syncthreads();
    }
    SkinnyMStep<Cfg, LAYOUT, VEC, RA && !VEC> step{ld, multiply, ktiles};
    sgemm_stage_loop(ktiles, step);
    skinny_m_epilogue<Cfg, VEC>(p, slice, acc, M, N, bm, col);
}

} /* namespace smk */

#endif /* SMK_SGEMM_SKINNY_M_CUH */
