/*
 * sgemm/skinny_n.cuh -- the memory-bound SGEMM kernel for small N ("skinny-n" rows of configs.h), as its
 * parts: tile position -> B slice staged transposed in shared memory (SkinnyNLoaderB) -> A streamed from
 * global memory (SkinnyNRowsA) into FMAs in the two-stage main loop (SkinnyNStep) -> a warp
 * reduce-scatter and the epilogue.
 *
 *   D = alpha * A @ B + beta * C      float32, row-major, leading dimensions in elements
 *
 * With N tiny, D = A @ B moves M*K floats of A for 2*M*N*K flops: the ceiling is DRAM bandwidth (as
 * skinny_m.cuh says for M).  Block tile BM = R*(THREADS/32) rows x NS columns; warp w owns rows
 * bm + R*w .. +R-1, and lane l streams those rows of A along k with float4 loads at k = 128*s + 4*l (a
 * warp reads 512 contiguous bytes of each A row per step s), STEPS*R loads in flight per thread per
 * k-tile.  B's BK x NS slice is staged TRANSPOSED, Bs[n][k], so that lane l reads its 4 k of column n
 * as one LDS.128; each read serves R rows of A.  Every lane ends with R x NS partial sums over its own
 * k; a reduce-scatter of XOR shuffles (31 shuffles for 32 sums, no shared memory: the plan's
 * per-k-tile traffic is the whole launch's) leaves lane l holding the finished sum number
 * l = r*NS + n, which it writes.  Any M, N, K, alignment and SgemmSlice, as skinny_m.cuh.
 *
 * ---- Bank arithmetic (32 banks x 4 bytes; offsets in floats, bank = offset mod 32) ----
 * The slice uses smk_sgemm_tile(layout, log2 BK): rows of BK floats (BK a multiple of 32), float4
 * access.  naive: r*BK + c.  pad: r*(BK+4) + c, bank = 4r + c.  swizzle (Swizzle<1,4,log2 BK - 2>):
 * bit 2 of the row r flips bit 4 of the column (which 16-float half of a 128-byte group).
 * B store (transposed, four scalar STS per float4, the interesting one).  Load j of thread t covers
 * float4 idx = j*THREADS + t of the slice, k = idx / 2, n = 4*(idx % 2) (NS = 8: two float4 per B row;
 * a lane pair reads one 32-byte sector of a B row).  A warp's 32 lanes hold k = k0..k0+15
 * (k0 = 0 mod 16) x the two float4 columns; scalar store e (0..3) writes Bs[n + e][k] for rows e and
 * 4 + e, columns k0..k0+15:
 *   naive:   bank = k mod 32: the two lanes with the same k (rows e and 4+e) hit one bank with
 *            different addresses -> 2-way conflict, 2 wavefronts per STS (16 banks used).
 *   pad:     bank = 4r + k: rows e and 4+e differ by 16 banks, and k0..k0+15 is one half of 32 ->
 *            32 distinct banks, 1 wavefront.
 *   swizzle: rows e and 4+e differ in bit 2, so the second's k0..k0+15 (an aligned 16-float half) is
 *            moved to the other half of its 32-float group -> 32 distinct banks, 1 wavefront.
 * B read (LDS.128): lane l reads Bs[n][128 s + 4 l .. +3]: each quarter warp reads 32 consecutive
 *   floats of one row, 128-byte aligned (swizzle: with its halves swapped or not) -> 32 distinct
 *   banks per quarter, 4 wavefronts per warp, the minimum, in every layout.
 * So: naive = 2-way on the transposed B store (the same conflict as the tile kernel's A store), pad
 * and swizzle conflict-free everywhere.
 * NS = 16 / 32 (skinny-n16 / -n32): a warp's lanes hold 8 / 4 k x NS / 4 float4 columns, so store e writes
 * rows e, 4+e, .. (4 / 8 rows) at 8 / 4 consecutive k: naive 4- / 8-way; pad (4r + k) and swizzle (bit 2 of
 * r picks the half) 2- / 4-way.  Those stores are BK * NS / THREADS per thread per k-tile against STEPS * NS
 * LDS.128 of 4 wavefronts each; the B reads stay at the minimum.  explain() replays both exactly.
 */
#ifndef SMK_SGEMM_SKINNY_N_CUH
#define SMK_SGEMM_SKINNY_N_CUH

#include <stdint.h>

#include "layout.h"
#include "api/sgemm.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"
#include "sgemm/maps.h"
#include "sgemm/parts.cuh"

namespace smk {

/* ---- the B slice: global -> registers -> shared stage, transposed by four scalar stores ----
 * A view of the kernel's locals (as a lambda's captures are: the kernel keeps each array its own
 * variable, which is what keeps its SASS that of the one-function kernel). */
template <class Cfg, int LAYOUT, bool VEC>
struct SkinnyNLoaderB {
    static constexpr int B_LOADS = Cfg::B_LOADS, BK = Cfg::BK;
    const smk_sgemm_params &p;
    const int (&b_k)[B_LOADS], (&b_n)[B_LOADS]; /* SkinnyNMap::b_load */
    const int (&b_nvalid)[B_LOADS];             /* columns in range, 0..4 */
    const float *(&b_ptr)[B_LOADS];
    float4 (&rb)[B_LOADS];
    const int &klen;
    const bool &cols_in; /* the block's NS columns are all in range */

    /* The k-tile at k0 (from the slice's start); pointers advance by one tile. */
    __device__ __forceinline__ void load(int k0) const
    {
        if (cols_in && k0 + BK <= klen) {
#pragma unroll
            for (int j = 0; j < B_LOADS; ++j) rb[j] = load4<VEC>(b_ptr[j], 4);
        } else {
#pragma unroll
            for (int j = 0; j < B_LOADS; ++j) rb[j] = load4<VEC>(b_ptr[j], k0 + b_k[j] < klen ? b_nvalid[j] : 0);
        }
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j) b_ptr[j] += (int64_t)BK * p.ldb;
    }
    __device__ __forceinline__ void store(float *Bs) const
    {
        constexpr smk_tile TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BK); /* Bs: NS rows (n) x BK cols (k) */
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j) {
            Bs[smk_tile_offset(TB, b_n[j] + 0, b_k[j])] = rb[j].x;
            Bs[smk_tile_offset(TB, b_n[j] + 1, b_k[j])] = rb[j].y;
            Bs[smk_tile_offset(TB, b_n[j] + 2, b_k[j])] = rb[j].z;
            Bs[smk_tile_offset(TB, b_n[j] + 3, b_k[j])] = rb[j].w;
        }
    }
};

/* ---- A streamed from global memory: the warp's R rows, STEPS float4 per row per k-tile, all in
 * flight together (load); then one LDS.128 of Bs[n][k..k+3] per (step, n) serves the R rows
 * (multiply) ---- */
template <class Cfg, int LAYOUT, bool VEC, int RA = 0>
struct SkinnyNRowsA {
    static constexpr int NS = Cfg::NS, R = Cfg::R, BK = Cfg::BK, STEPS = Cfg::STEPS;
    const smk_sgemm_params &p;
    float4 (&ra)[STEPS][R];
    float (&acc)[R * NS];
    const float *const &a_row; /* row r of the warp at a_row + r*lda; rows past M are formed, never read */
    const int &m0, &M, &lane, &klen;
    const bool &rows_in; /* the block's BM rows are all in range */

    __device__ __forceinline__ void load(int k0) const
    {
        if (RA == 1 && rows_in && k0 + BK <= klen) { /* block-uniform: rows off 16 bytes re-aligned (parts.cuh) */
            float4 hi[STEPS][R];
            int off[STEPS][R];
#pragma unroll
            for (int s = 0; s < STEPS; ++s)
#pragma unroll
                for (int r = 0; r < R; ++r)
                    realign_load(a_row + r * p.lda + k0 + 128 * s, lane, ra[s][r], hi[s][r], off[s][r]);
#pragma unroll
            for (int s = 0; s < STEPS; ++s)
#pragma unroll
                for (int r = 0; r < R; ++r) ra[s][r] = realign_finish(ra[s][r], hi[s][r], off[s][r], lane);
        } else if (rows_in && k0 + BK <= klen) {
#pragma unroll
            for (int s = 0; s < STEPS; ++s)
#pragma unroll
                for (int r = 0; r < R; ++r) ra[s][r] = load4<VEC, RA != 2>(a_row + r * p.lda + k0 + 128 * s, 4);
        } else {
#pragma unroll
            for (int s = 0; s < STEPS; ++s)
#pragma unroll
                for (int r = 0; r < R; ++r)
                    ra[s][r] = load4<VEC, RA != 2>(a_row + r * p.lda + k0 + 128 * s,
                                                m0 + r < M ? clamp04(klen - (k0 + SkinnyNMap<Cfg>::a_k(lane, s))) : 0);
        }
    }
    __device__ __forceinline__ void multiply(const float *Bs) const
    {
        constexpr smk_tile TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BK);
#pragma unroll
        for (int s = 0; s < STEPS; ++s)
#pragma unroll
            for (int n = 0; n < NS; ++n) {
                const float4 b =
                    *reinterpret_cast<const float4 *>(&Bs[smk_tile_offset(TB, n, SkinnyNMap<Cfg>::a_k(lane, s))]);
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    float &c = acc[r * NS + n];
                    c = fmaf(ra[s][r].x, b.x, c);
                    c = fmaf(ra[s][r].y, b.y, c);
                    c = fmaf(ra[s][r].z, b.z, c);
                    c = fmaf(ra[s][r].w, b.w, c);
                }
            }
    }
};

/* ---- main loop step: A(kt) and B(kt+1) in flight -> multiply kt -> park B(kt+1) -> sync ----
 * The store is unconditional, as the tile kernel's: no predicated-off store for ncu to count.
 * Cfg::PF (the "/pf" rows, level 5): A's registers are double-buffered, rows0 for even k-tiles and rows1
 * for odd ones (ST, a compile-time constant, picks the buffer: no register moves); A(kt+1) is issued
 * before the multiply of A(kt), loaded one step earlier, so a warp's A loads are in flight across its
 * FMAs and the barrier.  Same shared accesses in the same order (explain()'s plan is unchanged). */
template <class Cfg, int LAYOUT, bool VEC, int RA>
struct SkinnyNStep {
    const SkinnyNLoaderB<Cfg, LAYOUT, VEC> &ldb;
    const SkinnyNRowsA<Cfg, LAYOUT, VEC, RA> &rows0, &rows1; /* the same view twice without PF */
    float *const &smem;
    const int &b_elems, &ktiles;

    template <class StTag>
    __device__ __forceinline__ void operator()(StTag, int kt) const
    {
        constexpr int ST = StTag::value, BK = Cfg::BK;
        const bool more = kt + 1 < ktiles;
        if constexpr (Cfg::PF) {
            const SkinnyNRowsA<Cfg, LAYOUT, VEC, RA> &cur = ST == 0 ? rows0 : rows1, &nxt = ST == 0 ? rows1 : rows0;
            if (more) nxt.load((kt + 1) * BK); /* A(kt) was issued one step earlier (the prologue for kt = 0) */
            if (more) ldb.load((kt + 1) * BK);
            cur.multiply(smem + ST * b_elems);
        } else {
            rows0.load(kt * BK);
            if (more) ldb.load((kt + 1) * BK);
            rows0.multiply(smem + ST * b_elems);
        }
        ldb.store(smem + (ST ^ 1) * b_elems);
        __syncthreads();
    }
};

/* ---- epilogue: the warp's R x NS sums, R*NS/32 per lane (reduce_scatter32, group g: lane l holds sum
 * number g*32 + l = r*NS + n); D = alpha*sum + beta*C, into this K slice's output ---- */
template <class Cfg>
__device__ __forceinline__ void skinny_n_store(const smk_sgemm_params &p, const SgemmSlice &slice, float sum, int M,
                                               int N, int m, int n)
{
    if (m < M && n < N) {
        float v = p.alpha * sum;
        if (p.beta != 0.f) v = fmaf(p.beta, p.C[(int64_t)m * p.ldc + n], v); /* plain load: C may alias D */
        p.D[blockIdx.y * slice.d_stride + (int64_t)m * p.ldd + n] = v;
    }
}

/* v[G*32 .. G*32+32) of every lane -> lane l returns the warp's sum of v[G*32 + l].  Step o (16, 8, .., 1):
 * a lane keeps the half of its values picked by bit o of its lane and adds its partner's copy of that
 * half; after five steps value index = lane.  31 shuffles for 32 sums, a fixed tree: the result does
 * not depend on timing.  The wide rows (R*NS = 64, 128) run it once per group of 32 sums. */
template <int G, int V>
__device__ __forceinline__ float reduce_scatter32(float (&v)[V])
{
    static_assert(V % 32 == 0 && G >= 0 && 32 * (G + 1) <= V, "one value per lane per group of 32");
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int step = 0; step < 5; ++step) {
        const int h = 16 >> step;           /* 16, 8, 4, 2, 1: the values kept, and the lane offset */
        const bool upper = (lane & h) != 0;
#pragma unroll
        for (int i = 0; i < 16; ++i) { /* bound fixed so that v stays in registers (no local array) */
            if (i >= h) continue;
            float &lo = v[32 * G + i], &hi = v[32 * G + i + h];
            const float send = upper ? lo : hi, keep = upper ? hi : lo;
            lo = keep + __shfl_xor_sync(0xffffffffu, send, h);
        }
    }
    return v[32 * G];
}

template <class Cfg, int G = 0>
__device__ __forceinline__ void skinny_n_epilogue(const smk_sgemm_params &p, const SgemmSlice &slice,
                                                  float (&acc)[Cfg::R * Cfg::NS], int M, int N, int bm, int bn,
                                                  int warp, int lane)
{
    const int idx = 32 * G + lane; /* r * NS + n */
    skinny_n_store<Cfg>(p, slice, reduce_scatter32<G>(acc), M, N, bm + warp * Cfg::R + idx / Cfg::NS,
                        bn + idx % Cfg::NS);
    if constexpr (32 * (G + 1) < Cfg::R * Cfg::NS) skinny_n_epilogue<Cfg, G + 1>(p, slice, acc, M, N, bm, bn, warp, lane);
}

/*
 * Cfg     SkinnyNCfg.   LAYOUT  smk_layout of the B slice.   VEC  as sgemm_kernel.
 * RA      (!VEC only) 1: A's rows streamed as aligned float4 re-aligned across the warp (realign_load):
 *         LDG.128 whatever lda and A's base; 0: predicated scalar loads that do not allocate in L1 (the
 *         path before it); 2 (sgemm_new_paths 7, the "/pf" rows): the same scalar loads through L1 (LDG.32
 *         allocating: a lane's four loads of one float4 touch the warp's 16 sectors four times, and
 *         without allocation each of the four went to L2: ncu, seed 83's 5470x1x998, L1 hit 1.3%).
 * p       validated by smk_sgemm_launch (M, N > 0; K == 0 when alpha == 0).
 * slice   the K range of blockIdx.y and where its tile goes.
 */
template <class Cfg, int LAYOUT, bool VEC, int RA = 0>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINBLOCKS)
    skinny_n_kernel(const smk_sgemm_params p, const SgemmSlice slice)
{
    constexpr int NS = Cfg::NS, R = Cfg::R, BK = Cfg::BK, STEPS = Cfg::STEPS, B_LOADS = Cfg::B_LOADS;
    constexpr smk_tile TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BK); /* Bs: NS rows (n) x BK cols (k) */
    constexpr int B_ELEMS = smk_tile_elems(TB, NS);
    pdl_allow_dependents();
    __shared__ float4 smk_skinny_n_smem[Cfg::STAGES * B_ELEMS / 4];
    float *const smem = reinterpret_cast<float *>(smk_skinny_n_smem);

    const int M = (int)p.M, N = (int)p.N;
    const int kbeg = (int)blockIdx.y * slice.k_chunk;
    const int klen = (int)min((int64_t)p.K - kbeg, (int64_t)slice.k_chunk);

    /* The NS-column tiles of one row band are consecutive blocks: A's rows come from DRAM once. */
    const int tiles_n = (N + NS - 1) / NS;
    const int bn = ((int)blockIdx.x % tiles_n) * NS;
    const int bm = ((int)blockIdx.x / tiles_n) * Cfg::BM;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

    const int m0 = bm + warp * R;
    const float *const a_row = p.A + (int64_t)(m0 < M ? m0 : 0) * p.lda + kbeg + SkinnyNMap<Cfg>::a_k(lane, 0);
    int b_k[B_LOADS], b_n[B_LOADS], b_nvalid[B_LOADS];
    const float *b_ptr[B_LOADS];
#pragma unroll
    for (int j = 0; j < B_LOADS; ++j) {
        SkinnyNMap<Cfg>::b_load(j, tid, &b_k[j], &b_n[j]);
        b_nvalid[j] = clamp04(N - (bn + b_n[j]));
        b_ptr[j] = p.B + (int64_t)(kbeg + b_k[j]) * p.ldb + (b_nvalid[j] > 0 ? bn + b_n[j] : 0);
    }
    const bool rows_in = bm + Cfg::BM <= M, cols_in = bn + NS <= N;
    float4 rb[B_LOADS];
    const SkinnyNLoaderB<Cfg, LAYOUT, VEC> ldb{p, b_k, b_n, b_nvalid, b_ptr, rb, klen, cols_in};
    float acc[R * NS];
#pragma unroll
    for (int i = 0; i < R * NS; ++i) acc[i] = 0.f;
    float4 ra[STEPS][R], ra1[STEPS][R]; /* ra1: PF's second buffer (unused without PF) */
    const SkinnyNRowsA<Cfg, LAYOUT, VEC, VEC ? 0 : RA> rows{p, ra, acc, a_row, m0, M, lane, klen, rows_in};
    const SkinnyNRowsA<Cfg, LAYOUT, VEC, VEC ? 0 : RA> rows1{p, ra1, acc, a_row, m0, M, lane, klen, rows_in};

    const int ktiles = (klen + BK - 1) / BK;
    if (ktiles > 0) {
        if (Cfg::PF) rows.load(0); /* A(0) in flight from here */
        ldb.load(0);
        ldb.store(smem);
        __syncthreads();
    }
    SkinnyNStep<Cfg, LAYOUT, VEC, VEC ? 0 : RA> step{ldb, rows, Cfg::PF ? rows1 : rows, smem, B_ELEMS, ktiles};
    sgemm_stage_loop(ktiles, step);
    skinny_n_epilogue<Cfg>(p, slice, acc, M, N, bm, bn, warp, lane);
}

} /* namespace smk */

#endif /* SMK_SGEMM_SKINNY_N_CUH */
