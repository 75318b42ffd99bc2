/*
 * sgemm/matvec.cuh -- the matrix-vector SGEMM kernel for M <= 16 ("matvec" rows of configs.h, issue 27,
 * sgemm_new_paths level 8): B streamed once from DRAM with coalesced 16-byte loads, the M rows of A read
 * from L1 (every lane of a warp names the same address: a broadcast), K split across the block's warps
 * and summed through shared memory at the end, so a column strip fills the SMs without a K-split launch.
 *
 *   D = alpha * A @ B + beta * C      float32, row-major, leading dimensions in elements
 *
 * With M tiny the cost is B's K x N floats: 2 * M flops per 4 bytes, DRAM-bound.  The tile kernels run
 * a 64-row tile (8-64x the FMAs needed) and the skinny-m kernel one warp-row of B per block with a
 * barrier per k-tile: both need a K split (a second kernel) to fill 132 SMs when N is a few thousand,
 * where cuBLAS streams B once (the 1 <= M <= 8 draws of seed 112 ran 0.35-0.64 of cuBLAS).
 *
 * Block: KW warps, one strip of 128 columns of D (lane l owns columns bn + 4l .. +3) and MS rows; the
 * block's K slice is cut into KW ranges of whole float4 of k, one per warp.  A warp streams its range of
 * B in batches of U rows (U independent LDG.128 of 512 contiguous bytes per warp in flight per batch),
 * multiplies each with A[m][k..k+3] (one broadcast LDG.128 per row m and 4 k when A's rows are 16-byte
 * aligned, else scalar loads), and keeps MS x 4 sums.  Rows off 16 bytes (odd ldb, sliced base): a warp
 * whose 128 columns are in range re-aligns its stream across lanes (realign_load, parts.cuh), the edge
 * strip loads predicated scalars.
 *
 * ---- Shared memory: the cross-warp sum, once per block (no k-tiles) ----
 * Red: (KW - 1) * MS rows of 128 floats, smk_sgemm_tile(layout, 7); warp w > 0 stores its row m as
 * Red[(w - 1) * MS + m][4 * lane] (STS.128), warp 0 loads every row the same way (LDS.128) and adds.  A
 * warp's access is one row's 128 contiguous floats (512 bytes): naive and pad (row start a multiple of 4
 * floats) keep each quarter warp's 128 bytes on 32 distinct banks; swizzle (Swizzle<1,4,5>) swaps the two
 * 16-float halves of a 128-byte group or not, the same banks.  4 wavefronts per access (the minimum for
 * 512 bytes) in every layout; explain() replays it (plan.cu matvec_block_plan).
 */
#ifndef SMK_SGEMM_MATVEC_CUH
#define SMK_SGEMM_MATVEC_CUH

#include <stdint.h>

#include "layout.h"
#include "api/sgemm.h"
#include "common/ptx_load.cuh"
#include "sgemm/configs.h"
#include "sgemm/launch.h"
#include "sgemm/maps.h"
#include "sgemm/parts.cuh"

namespace smk {

/* A[m][k..k+3], `valid` of them in range: one LDG.128 when A's rows are 16-byte aligned (avec) and all 4
 * are, else predicated scalars.  Cached loads: the block's warps and the strips read the same A. */
__device__ __forceinline__ float4 matvec_a4(const float *p, int valid, bool avec)
{
    if (avec && valid >= 4) return ldg4<false>(reinterpret_cast<const float4 *>(p));
    return load4<false>(p, valid);
}

/* acc[m] += A[m][k .. k+U) x b[0 .. U): MS x U x 4 FMAs; `avail` k of the batch in range. */
template <class Cfg>
__device__ __forceinline__ void matvec_fma(float (&acc)[Cfg::MS][4], const float4 (&b)[Cfg::U], const float *a0,
                                           int64_t lda, int mrows, int k, int avail, bool avec)
{
#pragma unroll
    for (int k4 = 0; k4 < Cfg::U; k4 += 4)
#pragma unroll
        for (int m = 0; m < Cfg::MS; ++m) {
            const float4 a = matvec_a4(a0 + m * lda + k + k4, m < mrows ? avail - k4 : 0, avec);
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

/* The warp's k range [k0, k1) of B (bp: row k0 at the lane's column) into acc. */
template <class Cfg, bool VEC>
__device__ __forceinline__ void matvec_stream(const smk_sgemm_params &p, float (&acc)[Cfg::MS][4], const float *bp,
                                              const float *a0, int mrows, int k0, int k1, int nvalid, bool warp_in, bool avec)
{
    constexpr int U = Cfg::U;
    const int lane = threadIdx.x & 31;
#pragma unroll 1
    for (int k = k0; k < k1; k += U) { /* batches of U rows; the last one may hold fewer (n) */
        const int n = min(U, k1 - k);    /* warp-uniform */
        float4 b[U];
        const float *row = bp + (int64_t)(k - k0) * p.ldb;
        if (!VEC && warp_in) { /* warp-uniform: rows off 16 bytes, the warp's 128 columns in range */
            float4 hi[U];
            int off[U];
            /* rows past the batch's n re-read its first row (in range, cached) and are zeroed after */
#pragma unroll
            for (int u = 0; u < U; ++u) realign_load(row + (int64_t)(u < n ? u : 0) * p.ldb, lane, b[u], hi[u], off[u]);
#pragma unroll
            for (int u = 0; u < U; ++u) {
                b[u] = realign_finish(b[u], hi[u], off[u], lane);
                if (u >= n) b[u] = make_float4(0.f, 0.f, 0.f, 0.f);
            }
        } else {
#pragma unroll
            for (int u = 0; u < U; ++u) b[u] = load4<VEC, true>(row + (int64_t)u * p.ldb, u < n ? nvalid : 0);
        }
        matvec_fma<Cfg>(acc, b, a0, p.lda, mrows, k, n, avec);
    }
}

/*
 * Cfg     MatVecCfg.   LAYOUT  smk_layout of the cross-warp sum.   VEC  as sgemm_kernel.
 * p       validated by smk_sgemm_launch (M, N > 0; K == 0 when alpha == 0).
 * slice   the K range of blockIdx.y and where its tile goes (k_chunk a multiple of BK = U: 16-byte A).
 */
template <class Cfg, int LAYOUT, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINBLOCKS)
    matvec_kernel(const smk_sgemm_params p, const SgemmSlice slice)
{
    constexpr int MS = Cfg::MS, KW = Cfg::KW;
    constexpr smk_tile TR = MatVecMap<Cfg>::red_tile(LAYOUT);
    __shared__ float4 smk_matvec_smem[smk_tile_elems(TR, (KW - 1) * MS) / 4];
    float *const red = reinterpret_cast<float *>(smk_matvec_smem);
    pdl_allow_dependents(); /* the split's reduction may be scheduled */

    const int M = (int)p.M, N = (int)p.N;
    int kbeg = 0, klen = 0;
    sgemm_block_k_range(p.K, slice.k_chunk, &kbeg, &klen);
    const int tiles_m = (M + MS - 1) / MS;
    const int bm = ((int)blockIdx.x % tiles_m) * MS, bn = ((int)blockIdx.x / tiles_m) * Cfg::TILE_N;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int col = bn + 4 * lane, nvalid = clamp04(N - col);
    const bool warp_in = bn + Cfg::TILE_N <= N; /* warp-uniform */

    /* warp w's k range: whole float4 of k (A's loads stay on 16 bytes) */
    const int wc = ((klen + KW - 1) / KW + 3) & ~3;
    const int k0 = min(klen, w * wc), k1 = min(klen, k0 + wc);
    const bool avec = VEC || ((reinterpret_cast<uintptr_t>(p.A) & 15) == 0 && (p.lda & 3) == 0);
    const int mrows = min(MS, M - bm);                   /* rows of A in range: [1, MS] */
    const float *a0 = p.A + (int64_t)bm * p.lda + kbeg; /* row bm at the slice's first k */
    float acc[MS][4];
#pragma unroll
    for (int m = 0; m < MS; ++m) acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = 0.f;
    const float *bp = p.B + (int64_t)(kbeg + k0) * p.ldb + (nvalid > 0 ? col : 0);
    matvec_stream<Cfg, VEC>(p, acc, bp, a0, mrows, k0, k1, nvalid, warp_in, avec);

    if (w > 0) /* every warp's sums, whatever its range (explain()'s plan is per block) */
#pragma unroll
        for (int m = 0; m < MS; ++m)
            *reinterpret_cast<float4 *>(&red[MatVecMap<Cfg>::red_offset(TR, w, m, lane)]) =
                make_float4(acc[m][0], acc[m][1], acc[m][2], acc[m][3]);
    __syncthreads();
    if (w != 0) return;
#pragma unroll 1
    for (int v = 1; v < KW; ++v)
#pragma unroll
        for (int m = 0; m < MS; ++m) {
            const float4 s = *reinterpret_cast<const float4 *>(&red[MatVecMap<Cfg>::red_offset(TR, v, m, lane)]);
            acc[m][0] += s.x, acc[m][1] += s.y, acc[m][2] += s.z, acc[m][3] += s.w;
        }
#pragma unroll
    for (int m = 0; m < MS; ++m) {
        if (m >= mrows) continue;
        float *d = p.D + blockIdx.y * slice.d_stride + (int64_t)(bm + m) * p.ldd + col;
        const float *c = p.C + (int64_t)(bm + m) * p.ldc + col; /* formed only; read only if beta != 0 */
        store4<VEC>(d, c, make_float4(acc[m][0], acc[m][1], acc[m][2], acc[m][3]), p.alpha, p.beta, N - col);
    }
}

} /* namespace smk */

#endif /* SMK_SGEMM_MATVEC_CUH */
