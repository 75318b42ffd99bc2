/*
 * sgemm/tile.cuh -- the warp-tiled SGEMM kernel, templated on the shared-memory layout (naive / pad /
 * swizzle), as its parts:
 *
 *   tile position (sgemm_tile_origin) -> global -> register -> shared loads (SgemmTileLoader) ->
 *   fragments and FMAs (SgemmThreadTile) in a two-stage main loop (SgemmTileStep) -> epilogue
 *   (sgemm_tile_epilogue from registers, or, knob sgemm_epi, epilogue_staged.cuh's whole rows through
 *   shared memory)
 *
 *   D = alpha * A @ B + beta * C      float32, row-major, leading dimensions in elements
 *
 * Structure (siboehm SGEMM_CUDA kernel 10, tuned for sm_90): block tile BM x BN -> warp tile WM x WN ->
 * WMITER x WNITER warp sub-tiles -> TM x TN thread tile per sub-tile, accumulators in registers.
 * Global -> register -> shared double buffering (STAGES = 2): the next k-tile's float4 loads are in
 * flight while the current one is multiplied; one __syncthreads per k-tile.  The fragments are
 * double-buffered in registers too: row k+1's LDS.128 issue before row k's FFMAs, across the barrier
 * as well.  The A tile is stored TRANSPOSED (As[k][m]) so that the inner loop reads A and B fragments
 * with 16-byte LDS.128; the transpose is done by four 4-byte STS per float4 loaded from A.  Edge tiles
 * are predicated in the kernel (zero fill), no host padding; M, N, K and leading dimensions are
 * arbitrary (64-bit offsets).
 *
 * Split-K is a launch-level choice (choose.cu): grid (tiles, S), block (x, z) runs the same kernel
 * over K slice z into an fp32 workspace, and reduce.cuh's kernel sums the S partials, or (knob
 * splitk_fixup, launch.cu's gate) the last block of each tile does, in this kernel (fixup.cuh).  The kernel only
 * gains a K range (SgemmSlice); its shared-memory traffic per k-tile is unchanged, so explain()'s plan
 * is the unsplit one with the blocks of every slice.
 *
 * The layout changes ONLY the shared-memory index map, which comes from layout.h:
 *   As = smk_sgemm_tile(layout, log2 BM), BK rows;  Bs = smk_sgemm_tile(layout, log2 BN), BK rows
 *   (configs.h: float4 access; swizzle = Swizzle<1,4,log2 cols - 2>).
 * Every shared-memory index below is smk_tile_offset(tile, row, col) of the logical element, or (the
 * inner-loop fragment loads) its row split smk_tile_row_offset(t, k) + (col ^ smk_tile_row_xor(t, k)),
 * which layout.h defines from smk_tile_offset and sgemm_row_split_ok (maps.h) checks equal to it at
 * compile time.
 *
 * ---- Bank arithmetic (32 banks x 4 bytes; BM, BN multiples of 32; r = k row, c = m or n column) ----
 * Offsets in floats, bank = offset mod 32.  naive: r*BM + c.  pad: r*(BM+4) + c, and (BM+4) mod 32 = 4,
 * so bank = 4r + c.  swizzle (Swizzle<1,4,log2 BM - 2>): bit 4 of c (which 16-float half of the
 * 128-byte bank row) is XORed with bit 2 of r, so bank = (c ^ (16 * ((r >> 2) & 1))) mod 32.
 * Each part below gives the arithmetic of its own accesses: the A and B tile stores at
 * SgemmTileLoader::store, the A and B fragment loads at SgemmThreadTile::load_row.
 * So: naive = 2-way on the transposed A store, everything else conflict-free; pad and swizzle are
 * conflict-free everywhere.  Pad costs BK*4 floats of shared memory per tile; swizzle costs no
 * storage and, with its two XOR constants per thread (rows 0..3: 0, rows 4..7: 16), one LOP3 per
 * thread column, hoisted out of the k loop (the automatic Swizzle<3,2,S> needs one per k: slower).
 *
 * The parts are small structs that view the kernel's locals by reference, as the lambdas they replace
 * captured them: the kernel keeps every array its own variable, and its SASS stays that of the
 * one-function kernel (parts that owned their arrays, or read the parameters through a reference in
 * a free function, moved instructions in about half of the instantiations: an extra UIADD3, a VEC
 * epilogue of scalar stores).
 *
 * Rules: the launcher validates params (cudaErrorInvalidValue), returns the first CUDA error, checks
 * cudaGetLastError after the launch, never exits, allocates nothing.
 */
#ifndef SMK_SGEMM_TILE_CUH
#define SMK_SGEMM_TILE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "common/launch.h"
#include "common/raster.cuh"
#include "layout.h"
#include "runtime.h"
#include "sgemm/configs.h"
#include "sgemm/epilogue_staged.cuh"
#include "sgemm/fixup.cuh"
#include "sgemm/launch.h"
#include "sgemm/maps.h"
#include "sgemm/parts.cuh"

namespace smk {

/* ---- tile position: GROUP_M rasterisation of a 1-D grid (common/raster.cuh) ---- */
template <class Cfg>
__device__ __forceinline__ void sgemm_tile_origin(int M, int N, int *bm, int *bn)
{
    const int tiles_m = (M + Cfg::BM - 1) / Cfg::BM, tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
    int tile_m = 0, tile_n = 0;
    group_tile<SMK_SGEMM_GROUP_M, int>((int)blockIdx.x, tiles_m, tiles_n, &tile_m, &tile_n);
    *bm = tile_m * Cfg::BM; /* [0, M) */
    *bn = tile_n * Cfg::BN; /* [0, N) */
}

/* The k range [0, fast_len) of a slice that SgemmTileLoader::load_whole may read.  Where a float4 of B
 * straddles N (N % 4 != 0, the last column of tiles) it is read whole there too: its 1..3 columns past
 * N lie in the row's pitch (or the next row's first elements), inside the matrix's extent
 * [B, B + (K-1)*ldb + N) for every row k with (K-1-k) * ldb >= tail, tail = 4 - N % 4 the floats past
 * N; they feed only outputs never stored.  Only the rows of B's last tail-reach (row K-1 where
 * ldb >= 3) need load_edge: fast_len stops short of them.  (A third path, whole k-tiles with b_nv,
 * cost the big squares 1.5% in an H100 A/B: the main loop's extra branch.) */
template <class Cfg>
__device__ __forceinline__ int sgemm_whole_len(int64_t K, int64_t ldb, int N, int bn, int kbeg, int klen)
{
    int fast_len = klen;
    if (bn + Cfg::BN > N && N % 4 != 0) {
        const int tail = 4 - N % 4; /* 1..3; ldb >= N >= 1 */
        /* rows at B's end that a whole float4 would read past: ceil(tail / ldb), 1..3 */
        const int reach = ldb >= tail ? 1 : (ldb == 1 ? tail : 2);
        fast_len = (int)min((int64_t)klen, K - reach - kbeg); /* may be < 0: none */
    }
    return fast_len;
}

/*
 * ---- global -> registers -> shared: the A and B k-tiles of one thread ----
 * Rows of A past M and float4 columns of B wholly past N feed only outputs that the epilogue never
 * stores, so they read an in-range stand-in (row M - 1; the last float4 of a B row) instead of being
 * predicated off: an edge block then runs the interior's unpredicated k-tiles (predicating them cost
 * 777x555's edge blocks 11% more instructions and the launch 15%: docs/SGEMM_NOTES.md, "Edge
 * blocks").  Two load paths: load_whole, every float4 whole (the k-tiles below fast_len), and
 * load_edge, predicated (the last, ragged k-tile of K and, where a float4 of B straddles N, B's last
 * rows).
 *
 * A-tile store (transposed, scalar STS, the article's point).  A warp's float4 loads cover 16 rows m
 * (m0..m0+15, m0 = 0 mod 16) x 8 k (two float4 at kc = k0 and k0+4, k0 = 0 mod 8): lane l loads row
 * m0 + l/2, k columns k0 + 4(l%2) .. +3.  Scalar store i (0..3) writes As[kc+i][m]: the 32 lanes write
 * rows {k0+i, k0+4+i} x columns m0..m0+15.
 *   naive:   bank = m mod 32: the two lanes with the same m (rows k0+i and k0+4+i) hit the same bank
 *            with different addresses -> 2-way conflict, 2 wavefronts per STS (16 banks used).
 *   pad:     bank = 4r + m: the two rows differ by 4 -> banks shift by 16; m0..m0+15 and
 *            m0+16..m0+31 are 32 distinct banks -> 1 wavefront.
 *   swizzle: m0..m0+15 is one 16-float half of a bank row (m0 = 0 mod 16); the two rows k0+i and
 *            k0+4+i differ in bit 2 of r (k0 = 0 mod 8, i < 4), so one of them lands in the other
 *            half: 32 distinct banks -> 1 wavefront.
 * B-tile store (float4 STS.128, B row-major as in global memory).  Lane l stores Bs[k][n0 + 4l'] for
 * 8 consecutive float4 per quarter warp, all in one tile row (BN/4 a multiple of 8).  A 16-byte access
 * is served per quarter warp (8 lanes = 128 bytes):
 *   naive / pad: 8 consecutive float4 of one row = 32 consecutive floats = 32 banks -> 4 wavefronts per
 *            warp (the minimum for 512 bytes).
 *   swizzle: the XOR swaps the two 16-float halves of that 128-byte group (or not) -> still 32 banks.
 */
template <class Cfg, int LAYOUT, bool VEC>
struct SgemmTileLoader {
    static constexpr int A_LOADS = Cfg::A_LOADS, B_LOADS = Cfg::B_LOADS, BK = Cfg::BK;
    const smk_sgemm_params &p;
    int (&a_row)[A_LOADS], (&a_kc)[A_LOADS]; /* SgemmMap::a_load */
    const float *(&a_ptr)[A_LOADS];
    /* b_nv[j]: columns of B float4 j that are read, 0..4.  Past N it is 4 at the row's last whole
     * float4 (column (N - 4) & ~3: 16-byte aligned under VEC), or 0 where N < 4 has none. */
    int (&b_row)[B_LOADS], (&b_cl)[B_LOADS], (&b_nv)[B_LOADS];
    const float *(&b_ptr)[B_LOADS];
    float4 (&ra)[A_LOADS], (&rb)[B_LOADS];
    const int &klen, &fast_len; /* the slice's depth; load_whole below fast_len (sgemm_whole_len) */
    float *const &smem;
    const int &stage_elems, &a_elems;

    /* Fixed for the whole k loop: where each load reads, from the slice's first k (kbeg). */
    __device__ __forceinline__ void init(int M, int N, int bm, int bn, int kbeg, int tid) const
    {
#pragma unroll
        for (int j = 0; j < A_LOADS; ++j) {
            SgemmMap<Cfg>::a_load(j, tid, &a_row[j], &a_kc[j]);
            const int m = min(bm + a_row[j], M - 1); /* M >= 1: the grid is not empty */
            a_ptr[j] = p.A + (int64_t)m * p.lda + kbeg + a_kc[j];
        }
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j) {
            SgemmMap<Cfg>::b_load(j, tid, &b_row[j], &b_cl[j]);
            const int n = bn + b_cl[j], nv = clamp04(N - n);
            b_nv[j] = nv > 0 ? nv : (N >= 4 ? 4 : 0);
            b_ptr[j] = p.B + (int64_t)(kbeg + b_row[j]) * p.ldb + (nv > 0 ? n : (N >= 4 ? (N - 4) & ~3 : 0));
        }
    }

    /* Issue the global loads of the k-tile starting at k0 (from the slice's start, in [0, klen));
     * pointers advance by one tile. */
    __device__ __forceinline__ void load(int k0) const
    {
        if (k0 + BK <= fast_len)
            load_whole();
        else
            load_edge(k0);
#pragma unroll
        for (int j = 0; j < A_LOADS; ++j) a_ptr[j] += BK;
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j) b_ptr[j] += (int64_t)BK * p.ldb;
    }
    __device__ __forceinline__ void load_whole() const
    {
#pragma unroll
        for (int j = 0; j < A_LOADS; ++j) ra[j] = load4<VEC>(a_ptr[j], 4);
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j) rb[j] = load4<VEC>(b_ptr[j], 4);
    }
    /* A ragged k-tile (k past the slice's end reads as zero in both operands), or a k-tile with B's
     * last rows where a float4 of B straddles N.  A's count goes to load4 unclamped: written as
     * clamp04(...), nvcc 13 compiled the clamp and load4's all-four test into VIMNMX.RELU with a
     * predicate output, and the float4 load it guarded ran with nothing in range (compute-sanitizer
     * memcheck; docs/SGEMM_NOTES.md, "Edge blocks"). */
    __device__ __forceinline__ void load_edge(int k0) const
    {
#pragma unroll
        for (int j = 0; j < A_LOADS; ++j) ra[j] = load4<VEC>(a_ptr[j], klen - (k0 + a_kc[j]));
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j) rb[j] = load4<VEC>(b_ptr[j], (k0 + b_row[j] < klen) ? b_nv[j] : 0);
    }

    /* Registers -> shared stage st: A transposed by four scalar stores, B as one float4.  The four A
     * stores of a float4 go to rows a_kc .. a_kc+3 of one column; a_kc is a multiple of 4, so (every
     * layout, sgemm_a_rows_ok) their offsets are the first one's plus the constant offsets of rows
     * 0..3: one address register per float4 and immediates, as nvcc cannot see that the swizzle's
     * XOR is the same for the four rows (it kept four registers, at BIG's 128-register cap). */
    static_assert(sgemm_a_rows_ok<Cfg, LAYOUT>(), "A-store rows a_kc + e: offset(a_kc) + offset(e, 0)");
    __device__ __forceinline__ void store(int st) const
    {
        constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BM), TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN);
        float *As = smem + st * stage_elems, *Bs = As + a_elems;
#pragma unroll
        for (int j = 0; j < A_LOADS; ++j) {
            float *const a0 = As + smk_tile_offset(TA, a_kc[j], a_row[j]);
            a0[smk_tile_offset(TA, 0, 0)] = ra[j].x;
            a0[smk_tile_offset(TA, 1, 0)] = ra[j].y;
            a0[smk_tile_offset(TA, 2, 0)] = ra[j].z;
            a0[smk_tile_offset(TA, 3, 0)] = ra[j].w;
        }
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j)
            *reinterpret_cast<float4 *>(&Bs[smk_tile_offset(TB, b_row[j], b_cl[j])]) = rb[j];
    }
};

/*
 * ---- one thread's tile: fragments double-buffered in registers, FMAs into the accumulators ----
 * Row k+1's LDS.128 are issued before row k's FFMAs, and across the k-tile barrier too (CUTLASS's
 * SIMT main loop), so after a barrier a warp has a whole row of FFMAs to issue while its first loads
 * of the new stage are in flight.  Fragment (i, j) of row k is column a_col + i*WSUBM + j of As;
 * a_col's set bits are disjoint from i*WSUBM + j (all power-of-two fields), so that column equals
 * a_col ^ (i*WSUBM + j), and by smk_tile_row_offset/_row_xor its offset is
 * row_offset(k) + ((a_col ^ row_xor(k)) ^ (i*WSUBM + j)): one XOR per k per operand, the rest
 * immediates (the compiler knows the bits of a_col ^ row_xor(k) that the constant hits).
 *
 * A fragment load (LDS.128).  All lanes read row k; lane (tr, tc) reads As[k][wm*WM + i*WSUBM + tr*TM
 * + 4j]; lanes with equal tr read the same float4 (broadcast).  With TM = 4 and LANES_M = 4 the warp
 * touches 4 distinct float4 = 16 consecutive floats, 64-byte aligned:
 *   naive / pad: 16 distinct banks, 4 addresses, broadcast to 8 lanes each -> no conflict.
 *   swizzle: those 16 floats are one aligned 16-float half, moved whole to the other half or not
 *            -> no conflict.
 * B fragment load (LDS.128).  Lane (tr, tc) reads Bs[k][wn*WN + i*WSUBN + tc*TN + 4j]; with TN = 4,
 * LANES_N = 8: 8 distinct float4 = 32 consecutive floats, 128-byte aligned, each broadcast to 4 lanes:
 *   naive / pad: 32 distinct banks -> no conflict.   swizzle: the halves swap or not -> none.
 */
template <class Cfg, int LAYOUT>
struct SgemmThreadTile {
    static constexpr int FM = Cfg::WMITER * Cfg::TM, FN = Cfg::WNITER * Cfg::TN; /* outputs per thread */
    static_assert(sgemm_row_split_ok<Cfg, LAYOUT>(), "row_offset(k) + (c ^ row_xor(k)) == offset(k, c)");
    float (&acc)[FM][FN];
    float (&af)[2][FM], (&bf)[2][FN];
    const int &a_col, &b_col; /* SgemmMap::a_col / b_col */
    float *const &smem;
    const int &stage_elems, &a_elems;

    __device__ __forceinline__ void zero() const
    {
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FN; ++j)
                acc[i][j] = 0.f;
    }
    /* Row k of shared stage st into fragment buffer buf. */
    __device__ __forceinline__ void load_row(int st, int k, int buf) const
    {
        constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BM), TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN);
        const float *As = smem + st * stage_elems, *Bs = As + a_elems;
        const int ax = a_col ^ smk_tile_row_xor(TA, k), bx = b_col ^ smk_tile_row_xor(TB, k);
        const float *Ak = As + smk_tile_row_offset(TA, k), *Bk = Bs + smk_tile_row_offset(TB, k);
#pragma unroll
        for (int i = 0; i < Cfg::WMITER; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::TM; j += 4)
                *reinterpret_cast<float4 *>(&af[buf][i * Cfg::TM + j]) =
                    *reinterpret_cast<const float4 *>(&Ak[ax ^ (i * Cfg::WSUBM + j)]);
#pragma unroll
        for (int i = 0; i < Cfg::WNITER; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::TN; j += 4)
                *reinterpret_cast<float4 *>(&bf[buf][i * Cfg::TN + j]) =
                    *reinterpret_cast<const float4 *>(&Bk[bx ^ (i * Cfg::WSUBN + j)]);
    }
    /* The outer product of fragment buffer buf: FM x FN FFMAs. */
    __device__ __forceinline__ void fma(int buf) const
    {
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FN; ++j)
                acc[i][j] = fmaf(af[buf][i], bf[buf][j], acc[i][j]);
    }
};

/*
 * ---- main loop step: one barrier per k-tile, stage index a compile-time constant ----
 * Step kt (stage ST holds tile kt, row 0 of it already in fragment buffer 0): prefetch tile kt+1
 * into registers (if there is one); for each row k, load row k+1's fragments, then multiply row k;
 * at the last row, first park the prefetched registers in stage ST^1 (last read in step kt-1, which
 * every thread finished before that step's barrier), barrier, and load row 0 of stage ST^1.
 * The store and that last load are unconditional: after the last tile they park stale registers
 * in, and read row 0 of, a stage nobody uses again.  That costs one store group and one fragment
 * row per block and K slice, and buys exact counts: with `if (more) store` nvcc if-converted the
 * last step's stores, which Nsight Compute counts as executed (predicated off) where explain()
 * did not.  explain() counts k-tiles + 1 store groups and k-tiles * BK + 1 fragment rows.
 */
template <class Cfg, int LAYOUT, bool VEC>
struct SgemmTileStep {
    const SgemmTileLoader<Cfg, LAYOUT, VEC> &ld;
    const SgemmThreadTile<Cfg, LAYOUT> &tt;
    const int &ktiles;

    template <class StTag>
    __device__ __forceinline__ void operator()(StTag, int kt) const
    {
        constexpr int ST = StTag::value, BK = Cfg::BK;
        if (kt + 1 < ktiles) ld.load((kt + 1) * BK);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k + 1 < BK) {
                tt.load_row(ST, k + 1, (k + 1) & 1);
            } else {
                ld.store(ST ^ 1);
                __syncthreads();
                tt.load_row(ST ^ 1, 0, (k + 1) & 1);
            }
            tt.fma(k & 1);
        }
    }
};

/* ---- epilogue: D = alpha*acc + beta*C; C is not read when beta == 0 (NaN in C does not leak) ----
 * D is this K slice's output (p.D + blockIdx.y * slice.d_stride); (m0, n0) the thread's first output
 * (the block's origin plus SgemmMap::a_col / b_col), formed by the kernel as the one-function kernel
 * formed them (formed here from a struct member, nvcc 13 compiled the VEC epilogue of 64x64x8 into
 * scalar stores: 1576 -> 1864 SASS instructions). */
template <class Cfg, bool VEC>
__device__ __forceinline__ void sgemm_tile_epilogue(
    float *D, int64_t ldd, const float *C, int64_t ldc, float alpha, float beta,
    const float (&acc)[Cfg::WMITER * Cfg::TM][Cfg::WNITER * Cfg::TN], int M, int N, int m0, int n0)
{
#pragma unroll
    for (int i = 0; i < Cfg::WMITER; ++i)
#pragma unroll
        for (int ii = 0; ii < Cfg::TM; ++ii) {
            const int m = m0 + i * Cfg::WSUBM + ii;
            if (m >= M) continue;
            float *drow = D + (int64_t)m * ldd;
            const float *crow = C + (int64_t)m * ldc; /* formed only; read only if beta != 0 */
#pragma unroll
            for (int jn = 0; jn < Cfg::WNITER; ++jn)
#pragma unroll
                for (int j = 0; j < Cfg::TN; j += 4) {
                    const int n = n0 + jn * Cfg::WSUBN + j;
                    const float *a4 = &acc[i * Cfg::TM + ii][jn * Cfg::TN + j];
                    store4<VEC>(drow + n, crow + n, make_float4(a4[0], a4[1], a4[2], a4[3]), alpha, beta, N - n);
                }
        }
}

/*
 * Cfg      SgemmCfg<...> (configs.h): block / warp / thread tile, threads, min blocks per SM.
 * LAYOUT   smk_layout of both shared-memory tiles; changes only smk_tile_offset.
 * VEC      A, B, C (if read), D 16-byte aligned and lda, ldb, ldc, ldd multiples of 4: float4 global
 *          loads / stores wherever all 4 elements are in range, predicated scalars elsewhere.
 * p        validated by smk_sgemm_launch; p.M, p.N, p.K < 2^31; p.K == 0 when alpha == 0.
 * slice    the K range of blockIdx.y and where its tile goes (SgemmSlice; one slice: the plain GEMM).
 * FIX, fx a split launch that finishes itself (fixup.cuh; p.D is the workspace, fx.counters or fx.cluster set): its own
 *          instantiation, so the others keep their registers (the fixup's code moved 128x64x8's allocation).
 * EPI      0 the register epilogue; the staged epilogue (epilogue_staged.cuh; knob sgemm_epi, launch.cu's gate)
 *          on rows on 16 bytes (1) or re-aligned rows (2, !VEC only): their own instantiations (never with FIX),
 *          so the register-epilogue kernels' SASS is unchanged.
 * Dynamic shared memory: STAGES * (smk_tile_elems(As, BK) + smk_tile_elems(Bs, BK)) floats; EPI: at least the
 * output tile (maps.h sgemm_epi_smem_bytes).
 */
template <class Cfg, int LAYOUT, bool VEC, bool FIX, int EPI = 0>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINBLOCKS)
    sgemm_kernel(const smk_sgemm_params p, const SgemmSlice slice, const SgemmFixup fx)
{
    constexpr int BK = Cfg::BK, A_LOADS = Cfg::A_LOADS, B_LOADS = Cfg::B_LOADS;
    constexpr int FM = Cfg::WMITER * Cfg::TM, FN = Cfg::WNITER * Cfg::TN; /* outputs per thread */
    constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BM); /* As: BK rows (k) x BM cols (m) */
    constexpr smk_tile TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN); /* Bs: BK rows (k) x BN cols (n) */
    pdl_allow_dependents();
    extern __shared__ float4 smk_sgemm_smem[];
    float *const smem = reinterpret_cast<float *>(smk_sgemm_smem);
    const int a_elems = smk_tile_elems(TA, BK), b_elems = smk_tile_elems(TB, BK);
    const int stage_elems = a_elems + b_elems; /* stage s: As at s*stage_elems, Bs after it */

    const int M = (int)p.M, N = (int)p.N;
    /* Only the pointers know kbeg; the loop counts k from 0 to klen, as an unsplit block does to K,
     * so the split costs no register in the main loop (BIG is at its 128-register cap). */
    int kbeg = 0, klen = 0, bm = 0, bn = 0;
    sgemm_block_k_range(p.K, slice.k_chunk, &kbeg, &klen);
    sgemm_tile_origin<Cfg>(M, N, &bm, &bn);

    const int tid = threadIdx.x; /* [0, THREADS) */
    const int a_col = SgemmMap<Cfg>::a_col(tid), b_col = SgemmMap<Cfg>::b_col(tid);

    int a_row[A_LOADS], a_kc[A_LOADS], b_row[B_LOADS], b_cl[B_LOADS], b_nv[B_LOADS];
    const float *a_ptr[A_LOADS], *b_ptr[B_LOADS];
    float4 ra[A_LOADS], rb[B_LOADS];
    int fast_len = klen;
    const SgemmTileLoader<Cfg, LAYOUT, VEC> ld{p,  a_row, a_kc, a_ptr, b_row, b_cl, b_nv, b_ptr, ra,
                                               rb, klen,  fast_len, smem, stage_elems, a_elems};
    ld.init(M, N, bm, bn, kbeg, tid);
    fast_len = sgemm_whole_len<Cfg>(p.K, p.ldb, N, bn, kbeg, klen);

    float acc[FM][FN], af[2][FM], bf[2][FN];
    const SgemmThreadTile<Cfg, LAYOUT> tt{acc, af, bf, a_col, b_col, smem, stage_elems, a_elems};
    tt.zero();

    const int ktiles = (klen + BK - 1) / BK;
    if (ktiles > 0) {
        ld.load(0);
        ld.store(0);
        __syncthreads();
        tt.load_row(0, 0, 0);
    }
    SgemmTileStep<Cfg, LAYOUT, VEC> step{ld, tt, ktiles};
    sgemm_stage_loop(ktiles, step);
    if constexpr (EPI != 0)
        sgemm_staged_epilogue<Cfg, LAYOUT, EPI == 2>(p.D + blockIdx.y * slice.d_stride, p.ldd, p.C, p.ldc, p.alpha, p.beta,
                                                acc, smem, M, N, bm + a_col, bn + b_col);
    else
        sgemm_tile_epilogue<Cfg, VEC>(p.D + blockIdx.y * slice.d_stride, p.ldd, p.C, p.ldc, p.alpha, p.beta, acc, M,
                                      N, bm + a_col, bn + b_col);
    if constexpr (FIX)
        sgemm_fixup_tile<Cfg::THREADS, Cfg::BM, Cfg::BN>(fx, p.D, p.ldd, slice.d_stride, M, N, bm, bn);
}

/* One launch of sgemm_kernel<Cfg, LAYOUT, VEC>: grid (tiles, splits), dynamic shared memory opted in
 * above 48 KB once per device (common/launch.h); fx as the kernel's.  Instantiated by tile_<layout>.cu. */
template <class Cfg, int LAYOUT, bool VEC>
int tile_launch_fix(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, const SgemmFixup &fx,
                    cudaStream_t stream)
{
    const long long blocks = sgemm_grid_blocks(Cfg::TILE_M, Cfg::TILE_N, q.M, q.N);
    if (blocks <= 0 || splits < 1 || splits > 65535) return (int)cudaErrorInvalidValue;
    const size_t smem = sgemm_smem_bytes<Cfg, LAYOUT>();
    const dim3 grid((unsigned)blocks, (unsigned)splits);
    if (fx.cluster) { /* the S slices of a tile as one cluster (common/splitk_fixup.cuh cluster_tile) */
        const int e = smem_optin<sgemm_kernel<Cfg, LAYOUT, VEC, true>>(smem);
        if (e != 0) return e;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = 1;
        attr[0].val.clusterDim.y = (unsigned)splits;
        attr[0].val.clusterDim.z = 1;
        cudaLaunchConfig_t lc = {};
        lc.gridDim = grid;
        lc.blockDim = dim3(Cfg::THREADS);
        lc.dynamicSmemBytes = smem;
        lc.stream = stream;
        lc.attrs = attr;
        lc.numAttrs = 1;
        const cudaError_t le = cudaLaunchKernelEx(&lc, sgemm_kernel<Cfg, LAYOUT, VEC, true>, q, slice, fx);
        if (le != cudaSuccess) return (int)le;
    } else if (fx.counters) {
        const int e = smem_optin<sgemm_kernel<Cfg, LAYOUT, VEC, true>>(smem);
        if (e != 0) return e;
        sgemm_kernel<Cfg, LAYOUT, VEC, true><<<grid, Cfg::THREADS, smem, stream>>>(q, slice, fx);
    } else {
        const int e = smem_optin<sgemm_kernel<Cfg, LAYOUT, VEC, false>>(smem);
        if (e != 0) return e;
        sgemm_kernel<Cfg, LAYOUT, VEC, false><<<grid, Cfg::THREADS, smem, stream>>>(q, slice, fx);
    }
    return (int)cudaGetLastError();
}

template <class Cfg, int LAYOUT, bool VEC>
int tile_launch_cfg(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    const SgemmFixup none = {};
    return tile_launch_fix<Cfg, LAYOUT, VEC>(q, slice, splits, none, stream);
}

/* One launch of a staged-epilogue instantiation (knob sgemm_epi): as tile_launch_cfg, its dynamic shared
 * memory sgemm_epi_smem_bytes.  EPI 1 (rows of D, and of C when read, on 16 bytes) or 2 (re-aligned rows).
 * Split partials for the separate reduction go through it too. */
template <class Cfg, int LAYOUT, bool VEC, int EPI>
int tile_launch_staged(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    const long long blocks = sgemm_grid_blocks(Cfg::TILE_M, Cfg::TILE_N, q.M, q.N);
    if (blocks <= 0 || splits < 1 || splits > 65535) return (int)cudaErrorInvalidValue;
    const size_t smem = sgemm_epi_smem_bytes<Cfg, LAYOUT>();
    const int e = smem_optin<sgemm_kernel<Cfg, LAYOUT, VEC, false, EPI>>(smem);
    if (e != 0) return e;
    const SgemmFixup none = {};
    sgemm_kernel<Cfg, LAYOUT, VEC, false, EPI><<<dim3((unsigned)blocks, (unsigned)splits), Cfg::THREADS, smem, stream>>>(
        q, slice, none);
    return (int)cudaGetLastError();
}
template <class Cfg, int LAYOUT, bool VEC>
int tile_launch_epi(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, bool realign, cudaStream_t stream)
{
    if constexpr (VEC)
        return tile_launch_staged<Cfg, LAYOUT, true, 1>(q, slice, splits, stream); /* VEC: rows on 16 bytes */
    else
        return realign ? tile_launch_staged<Cfg, LAYOUT, false, 2>(q, slice, splits, stream)
                       : tile_launch_staged<Cfg, LAYOUT, false, 1>(q, slice, splits, stream);
}

/* Explicit instantiations of tile_launch_cfg for one layout, by row KIND of configs.h (the TILE rows;
 * the skinny rows are skinny.cu's). */
#define SMK_SGEMM_TILE_INSTANCES_TILE(LAYOUT, ARGS)                                                        \
    template int tile_launch_cfg<SMK_SGEMM_CFG_TILE ARGS, LAYOUT, true>(const smk_sgemm_params &,          \
                                                                        const SgemmSlice &, int, cudaStream_t); \
    template int tile_launch_cfg<SMK_SGEMM_CFG_TILE ARGS, LAYOUT, false>(const smk_sgemm_params &,         \
                                                                         const SgemmSlice &, int, cudaStream_t); \
    template int tile_launch_fix<SMK_SGEMM_CFG_TILE ARGS, LAYOUT, true>(                                   \
        const smk_sgemm_params &, const SgemmSlice &, int, const SgemmFixup &, cudaStream_t);              \
    template int tile_launch_fix<SMK_SGEMM_CFG_TILE ARGS, LAYOUT, false>(                                  \
        const smk_sgemm_params &, const SgemmSlice &, int, const SgemmFixup &, cudaStream_t);              \
    template int tile_launch_epi<SMK_SGEMM_CFG_TILE ARGS, LAYOUT, true>(                                   \
        const smk_sgemm_params &, const SgemmSlice &, int, bool, cudaStream_t);                            \
    template int tile_launch_epi<SMK_SGEMM_CFG_TILE ARGS, LAYOUT, false>(                                  \
        const smk_sgemm_params &, const SgemmSlice &, int, bool, cudaStream_t);
#define SMK_SGEMM_TILE_INSTANCES_SKINNY_M(LAYOUT, ARGS)
#define SMK_SGEMM_TILE_INSTANCES_SKINNY_N(LAYOUT, ARGS)
#define SMK_SGEMM_TILE_INSTANCES_TINYK(LAYOUT, ARGS)
#define SMK_SGEMM_TILE_INSTANCES_MATVEC(LAYOUT, ARGS)

} /* namespace smk */

#endif /* SMK_SGEMM_TILE_CUH */
