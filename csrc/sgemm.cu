/*
 * sgemm.cu -- one warp-tiled SGEMM kernel, templated on the shared-memory layout (naive / pad / swizzle).
 *
 *   D = alpha * A @ B + beta * C      float32, row-major, leading dimensions in elements
 *
 * Structure (siboehm SGEMM_CUDA kernel 10, tuned for sm_90): block tile BM x BN -> warp tile WM x WN ->
 * WMITER x WNITER warp sub-tiles -> TM x TN thread tile per sub-tile, accumulators in registers.
 * Global -> register -> shared double buffering (STAGES = 2): the next k-tile's float4 loads are in
 * flight while the current one is multiplied; one __syncthreads per k-tile.  The fragments are
 * double-buffered in registers too: row k+1's LDS.128 issue before row k's FFMAs, across the barrier
 * as well.  The A tile is stored
 * TRANSPOSED (As[k][m]) so that the inner loop reads A and B fragments with 16-byte LDS.128; the
 * transpose is done by four 4-byte STS per float4 loaded from A.  Edge tiles are predicated in the
 * kernel (zero fill), no host padding; M, N, K and leading dimensions are arbitrary (64-bit offsets).
 *
 * Split-K (issue 11) is a launch-level choice: when the cost model (sgemm_cost_ns) prices it cheaper,
 * typically for outputs whose tiles fill less than a wave, smk_sgemm_choose splits K into S slices of
 * whole k-tiles; grid (tiles, S), block (x, z) runs the
 * same kernel over slice z into an fp32 workspace (stream-ordered on the caller's stream), and
 * sgemm_reduce_kernel sums the S partials in a fixed order and applies alpha and beta.  The kernel
 * only gains a K range (SgemmSlice); its shared-memory traffic per k-tile is unchanged, so explain()'s
 * plan is the unsplit one with the blocks of every slice.
 *
 * The layout changes ONLY the shared-memory index map, which comes from layout.h:
 *   As = smk_sgemm_tile(layout, log2 BM), BK rows;  Bs = smk_sgemm_tile(layout, log2 BN), BK rows
 *   (sgemm_config.h: float4 access; swizzle = Swizzle<1,4,log2 cols - 2>).
 * Every shared-memory index below is smk_tile_offset(tile, row, col) of the logical element, or (the
 * inner-loop fragment loads) its row split smk_tile_row_offset(t, k) + (col ^ smk_tile_row_xor(t, k)),
 * which layout.h defines from smk_tile_offset and bench/sgemm_dev.cu checks equal to it.
 *
 * ---- Bank arithmetic (32 banks x 4 bytes; BM, BN multiples of 32; r = k row, c = m or n column) ----
 * Offsets in floats, bank = offset mod 32.  naive: r*BM + c.  pad: r*(BM+4) + c, and (BM+4) mod 32 = 4,
 * so bank = 4r + c.  swizzle (Swizzle<1,4,log2 BM - 2>): bit 4 of c (which 16-float half of the
 * 128-byte bank row) is XORed with bit 2 of r, so bank = (c ^ (16 * ((r >> 2) & 1))) mod 32.
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
 * A fragment load (LDS.128, inner loop).  All lanes read row k; lane (tr, tc) reads
 * As[k][wm*WM + i*WSUBM + tr*TM + 4j]; lanes with equal tr read the same float4 (broadcast).  With
 * TM = 4 and LANES_M = 4 the warp touches 4 distinct float4 = 16 consecutive floats, 64-byte aligned:
 *   naive / pad: 16 distinct banks, 4 addresses, broadcast to 8 lanes each -> no conflict.
 *   swizzle: those 16 floats are one aligned 16-float half, moved whole to the other half or not
 *            -> no conflict.
 * B fragment load (LDS.128).  Lane (tr, tc) reads Bs[k][wn*WN + i*WSUBN + tc*TN + 4j]; with TN = 4,
 * LANES_N = 8: 8 distinct float4 = 32 consecutive floats, 128-byte aligned, each broadcast to 4 lanes:
 *   naive / pad: 32 distinct banks -> no conflict.   swizzle: the halves swap or not -> none.
 * So: naive = 2-way on the transposed A store, everything else conflict-free; pad and swizzle are
 * conflict-free everywhere.  Pad costs BK*4 floats of shared memory per tile; swizzle costs no
 * storage and, with its two XOR constants per thread (rows 0..3: 0, rows 4..7: 16), one LOP3 per
 * thread column, hoisted out of the k loop (the automatic Swizzle<3,2,S> needs one per k: slower).
 *
 * Rules: the launcher validates params (cudaErrorInvalidValue), returns the first CUDA error, checks
 * cudaGetLastError after the launch, never exits, allocates nothing.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "layout.h"
#include "api/sgemm.h"
#include "runtime.h"
#include "sgemm_config.h"

namespace smk {

/* One read-only global load.  STREAM: ld.global.nc.L1::no_allocate, for an operand that is read once
 * (the skinny kernels' streamed A or B): its lines are not written into L1's data banks, which shared
 * memory shares.  Measured on an H100 (bench/SGEMM_NOTES.md, "Streamed loads and the dependent
 * launch"): the skinny kernels ran 5-30% faster, and Nsight Compute's L1 store-wavefront counter no
 * longer counted extra wavefronts on their conflict-free STS (the fills had collided with them).
 * The tile kernel's loads stay cached in L1 (ld.global.nc): streamed, they lost up to 22% (short K,
 * mid-size squares), where blocks on one SM reuse each other's lines.  Its scalar loads (the VEC =
 * false path) are plain __ldg; its float4 loads carry an L2 prefetch size (ldg4). */
template <bool STREAM>
__device__ __forceinline__ float ldg1(const float *p)
{
    if (!STREAM) return __ldg(p);
    float v;
    asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}
/* Non-streamed float4 loads ask L2 for 128 bytes on a miss (ld.global.nc.L2::128B): a k-tile of the
 * tile kernel reads each row of A (row-major M x K) in 32-byte pieces (BK = 8 floats), so where A
 * streams from DRAM (a tall or K-heavy output, each byte read once) the next three k-tiles' pieces
 * arrive with the first.  Measured on an H100, two sweeps per build (bench/RESULTS.md, "SGEMM:
 * straddling float4s read whole, the L2 prefetch hint"): 16384x64x1024 0.853 -> 0.882 of cuBLAS,
 * 64x64x65536 +2.5%, 48-shape geomean 1.024 -> 1.025 (swizzle); 256-byte fetches lost elsewhere
 * (geomean 1.021). */
template <bool STREAM>
__device__ __forceinline__ float4 ldg4(const float4 *p)
{
    float4 v;
    if (!STREAM) {
        asm("ld.global.nc.L2::128B.v4.f32 {%0, %1, %2, %3}, [%4];"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
            : "l"(p));
        return v;
    }
    asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p));
    return v;
}

/* Four consecutive floats p[0..3] of one matrix row, the first `valid` of them in range (<= 0: none,
 * >= 4: all); the rest are zero.  VEC: p is 16-byte aligned whenever valid >= 4 (aligned base,
 * ld % 4 == 0, column % 4 == 0).  STREAM: see ldg1. */
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

/* Programmatic dependent launch (sm_90): a split launch's reduction kernel is launched with
 * cudaLaunchAttributeProgrammaticStreamSerialization, so the GPU may start it while the GEMM kernel's
 * last blocks run; it waits in griddepcontrol.wait until the GEMM grid has finished and its partial
 * tiles are visible.  The GEMM kernels allow that as they start (launch_dependents: once every block
 * of the grid has started or finished, the reduction's blocks may be scheduled).  No-ops where
 * nothing depends on the grid, and below sm_90 (where the launcher does not ask for the attribute). */
__device__ __forceinline__ void pdl_allow_dependents()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_wait_prerequisites()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
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

/* Which tile element each thread touches: shared by the kernel and the host bank check in
 * bench/sgemm_dev.cu, so the replayed addresses are the kernel's. */
template <class Cfg>
struct SgemmMap {
    /* A global load j of thread tid: tile row (m) and first k column (4 consecutive k follow).
     * Warp chunk c covers rows 16*(c % (BM/16)) .. +15 and k 8*(c / (BM/16)) .. +7. */
    SMK_HD static void a_load(int j, int tid, int *row, int *kc)
    {
        const int idx = j * Cfg::THREADS + tid, chunk = idx >> 5, l = idx & 31;
        *row = (chunk % (Cfg::BM / 16)) * 16 + (l >> 1); /* [0, BM) */
        *kc = (chunk / (Cfg::BM / 16)) * 8 + (l & 1) * 4; /* [0, BK), multiple of 4 */
    }
    /* B global load j: tile row (k) and first n column; consecutive threads, consecutive float4. */
    SMK_HD static void b_load(int j, int tid, int *row, int *col)
    {
        const int idx = j * Cfg::THREADS + tid;
        *row = idx / (Cfg::BN / 4);      /* [0, BK) */
        *col = (idx % (Cfg::BN / 4)) * 4; /* [0, BN), multiple of 4 */
    }
    /* First m column of As / n column of Bs this thread reads; fragment (i, j) adds i*WSUBM + j
     * (i*WSUBN + j), bits disjoint from the base.  The masks change nothing (the values are in range
     * already) but tell the compiler so; with the high bits known it folds the row part of every
     * shared-memory address into the LDS immediate. */
    SMK_HD static int a_col(int tid)
    {
        const int lane = tid & 31, warp = tid >> 5;
        return ((warp / (Cfg::BN / Cfg::WN)) * Cfg::WM + (lane / Cfg::LANES_N) * Cfg::TM) & (Cfg::BM - 1);
    }
    SMK_HD static int b_col(int tid)
    {
        const int lane = tid & 31, warp = tid >> 5;
        return ((warp % (Cfg::BN / Cfg::WN)) * Cfg::WN + (lane % Cfg::LANES_N) * Cfg::TN) & (Cfg::BN - 1);
    }
};

/* The A store's row split (sgemm_kernel's store_shared): for every k0 = 0 mod 4 (the first k of an
 * A float4), e < 4 and column m of the A tile,
 *     smk_tile_offset(TA, k0 + e, m) == smk_tile_offset(TA, k0, m) + smk_tile_offset(TA, e, 0).
 * naive / pad: rows are a constant pitch apart.  swizzle (Swizzle<1,4,S>): the XOR depends on bit 2
 * of k only, which e < 4 does not change.  Checked at compile time for each config and layout. */
template <class Cfg, int LAYOUT>
__host__ __device__ constexpr bool sgemm_a_rows_ok()
{
    constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BM);
    for (int k0 = 0; k0 < Cfg::BK; k0 += 4)
        for (int e = 0; e < 4; ++e)
            for (int m = 0; m < Cfg::BM; ++m)
                if (smk_tile_offset(TA, k0 + e, m) != smk_tile_offset(TA, k0, m) + smk_tile_offset(TA, e, 0))
                    return false;
    return true;
}

/* The two-stage main loop of every SGEMM kernel here (sgemm_kernel, skinny-m, skinny-n): step(ST, kt)
 * runs k-tile kt from shared stage ST, a compile-time constant (std::integral_constant), so stage
 * offsets fold into the shared-memory immediates; unrolled by two, not further. */
template <class Step>
__device__ __forceinline__ void sgemm_stage_loop(int ktiles, Step &step)
{
#pragma unroll 1
    for (int kt = 0; kt < ktiles; kt += 2) {
        step(std::integral_constant<int, 0>{}, kt);
        if (kt + 1 < ktiles) step(std::integral_constant<int, 1>{}, kt + 1);
    }
}

/* The K range of a launch (split-K is a launch-level choice): block (x, z) with z = blockIdx.y
 * multiplies k in [z * k_chunk, min(K, (z + 1) * k_chunk)) and writes its tile to D + z * d_stride.
 * One slice: k_chunk >= K, d_stride 0 (the plain GEMM).  Several: D is the fp32 workspace, alpha 1,
 * beta 0, and sgemm_reduce_kernel finishes the job.  k_chunk is a multiple of BK, so a slice's
 * k-tiles are the GEMM's own k-tiles and only the last slice has a ragged end. */
struct SgemmSlice {
    int k_chunk;
    int64_t d_stride;
};

/*
 * Cfg      SgemmCfg<...> (sgemm_config.h): block / warp / thread tile, threads, min blocks per SM.
 * LAYOUT   smk_layout of both shared-memory tiles; changes only smk_tile_offset.
 * VEC      A, B, C (if read), D 16-byte aligned and lda, ldb, ldc, ldd multiples of 4: float4 global
 *          loads / stores wherever all 4 elements are in range, predicated scalars elsewhere.
 * p        validated by smk_sgemm_launch; p.M, p.N, p.K < 2^31; p.K == 0 when alpha == 0.
 * slice    the K range of blockIdx.y and where its tile goes (SgemmSlice; one slice: the plain GEMM).
 * Dynamic shared memory: STAGES * (smk_tile_elems(As, BK) + smk_tile_elems(Bs, BK)) floats.
 */
template <class Cfg, int LAYOUT, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINBLOCKS)
    sgemm_kernel(const smk_sgemm_params p, const SgemmSlice slice)
{
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
    constexpr int WMITER = Cfg::WMITER, WNITER = Cfg::WNITER;
    constexpr int WSUBM = Cfg::WSUBM, WSUBN = Cfg::WSUBN, TM = Cfg::TM, TN = Cfg::TN;
    constexpr int A_LOADS = Cfg::A_LOADS, B_LOADS = Cfg::B_LOADS;
    constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BM); /* As: BK rows (k) x BM cols (m) */
    constexpr smk_tile TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN); /* Bs: BK rows (k) x BN cols (n) */

    pdl_allow_dependents();
    extern __shared__ float4 smk_sgemm_smem[];
    float *const smem = reinterpret_cast<float *>(smk_sgemm_smem);
    const int a_elems = smk_tile_elems(TA, BK), b_elems = smk_tile_elems(TB, BK);
    const int stage_elems = a_elems + b_elems; /* stage s: As at s*stage_elems, Bs after it */

    const int M = (int)p.M, N = (int)p.N;
    /* This block's K slice is [kbeg, kbeg + klen) (the launcher makes every slice non-empty).  Only the
     * pointers know kbeg; the loop counts k from 0 to klen, as an unsplit block does to K, so the
     * split costs no register in the main loop (BIG is at its 128-register cap). */
    const int kbeg = (int)blockIdx.y * slice.k_chunk;                     /* [0, K) */
    const int klen = (int)min((int64_t)p.K - kbeg, (int64_t)slice.k_chunk); /* [0, K - kbeg] */

    /* ---- which output tile: GROUP_M rasterisation of a 1-D grid ---- */
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int pid = blockIdx.x;
    const int group = SMK_SGEMM_GROUP_M * tiles_n;
    const int first_m = (pid / group) * SMK_SGEMM_GROUP_M;
    const int group_m = min(tiles_m - first_m, SMK_SGEMM_GROUP_M);
    const int bm = (first_m + (pid % group) % group_m) * BM; /* [0, M) */
    const int bn = ((pid % group) / group_m) * BN;           /* [0, N) */

    const int tid = threadIdx.x; /* [0, THREADS) */
    using Map = SgemmMap<Cfg>;
    const int a_col = Map::a_col(tid), b_col = Map::b_col(tid);

    /* ---- global load geometry (fixed for the whole k loop) ---- */
    /* Rows of A past M and float4 columns of B wholly past N feed only outputs that the epilogue never
     * stores, so they read an in-range stand-in (row M - 1; the last float4 of a B row) instead of
     * being predicated off: an edge block then runs the interior's unpredicated k-tiles.  Predicating
     * them (every k-tile of the 17 edge tiles of 777x555 in 64x128 tiles) cost 11% more instructions
     * per edge block and 15% of the whole launch's time, the edge blocks being its last to finish.
     * Only the last, ragged k-tile of K and, in B's last rows, a float4 of B that straddles N (1..3
     * columns in range; b_nv[j]) load fewer than four: they take the predicated path (fast_len). */
    int a_row[A_LOADS], a_kc[A_LOADS];
    const float *a_ptr[A_LOADS];
#pragma unroll
    for (int j = 0; j < A_LOADS; ++j) {
        Map::a_load(j, tid, &a_row[j], &a_kc[j]);
        const int m = min(bm + a_row[j], M - 1); /* M >= 1: the grid is not empty */
        a_ptr[j] = p.A + (int64_t)m * p.lda + kbeg + a_kc[j];
    }
    /* b_nv[j]: columns of B float4 j that are read, 0..4.  Past N it is 4 at the row's last whole
     * float4 (column (N - 4) & ~3: 16-byte aligned under VEC), or 0 where N < 4 has none. */
    int b_row[B_LOADS], b_cl[B_LOADS], b_nv[B_LOADS];
    const float *b_ptr[B_LOADS];
#pragma unroll
    for (int j = 0; j < B_LOADS; ++j) {
        Map::b_load(j, tid, &b_row[j], &b_cl[j]);
        const int n = bn + b_cl[j], nv = clamp04(N - n);
        b_nv[j] = nv > 0 ? nv : (N >= 4 ? 4 : 0);
        b_ptr[j] = p.B + (int64_t)(kbeg + b_row[j]) * p.ldb + (nv > 0 ? n : (N >= 4 ? (N - 4) & ~3 : 0));
    }

    float4 ra[A_LOADS], rb[B_LOADS];
    /* The unpredicated path runs the whole k-tiles below fast_len.  Where a float4 of B straddles N
     * (N % 4 != 0, the last column of tiles) it is read whole there too: its 1..3 columns past N lie
     * in the row's pitch (or the next row's first elements), inside the matrix's extent
     * [B, B + (K-1)*ldb + N) for every row k with (K-1-k) * ldb >= tail, tail = 4 - N % 4 the floats
     * past N; they feed only outputs never stored, like the stand-ins above.  Only the rows of B's
     * last tail-reach (row K-1 where ldb >= 3) need the predicated path: fast_len stops short of
     * them.  (A third path, whole k-tiles with b_nv, cost the big squares 1.5% in an H100 A/B: the
     * main loop's extra branch; this one is the same single comparison as before.) */
    int fast_len = klen;
    if (bn + BN > N && N % 4 != 0) {
        const int tail = 4 - N % 4; /* 1..3; p.ldb >= N >= 1 */
        /* rows at B's end that a whole float4 would read past: ceil(tail / ldb), 1..3 */
        const int reach = p.ldb >= tail ? 1 : (p.ldb == 1 ? tail : 2);
        fast_len = (int)min((int64_t)klen, p.K - reach - kbeg); /* may be < 0: none */
    }
    /* Issue the global loads of the k-tile starting at k0 (from the slice's start, in [0, klen));
     * pointers advance by one tile. */
    auto load_global = [&](int k0) {
        if (k0 + BK <= fast_len) {
#pragma unroll
            for (int j = 0; j < A_LOADS; ++j) ra[j] = load4<VEC>(a_ptr[j], 4);
#pragma unroll
            for (int j = 0; j < B_LOADS; ++j) rb[j] = load4<VEC>(b_ptr[j], 4);
        } else { /* a ragged k-tile (k past the slice's end reads as zero in both operands), or a
                  * k-tile with B's last rows where a float4 of B straddles N */
            /* A's count goes to load4 unclamped.  Written as clamp04(...), nvcc 13 compiled the clamp
             * and load4's all-four test into VIMNMX.RELU with a predicate output, and the float4 load
             * it guarded ran with nothing in range: compute-sanitizer memcheck caught 16-byte reads
             * past the end of A, and stale NaN in a row's pitch padding, times B's zeroed rows, made
             * whole output rows NaN (bench/SGEMM_NOTES.md, "Edge blocks"). */
#pragma unroll
            for (int j = 0; j < A_LOADS; ++j) ra[j] = load4<VEC>(a_ptr[j], klen - (k0 + a_kc[j]));
#pragma unroll
            for (int j = 0; j < B_LOADS; ++j) rb[j] = load4<VEC>(b_ptr[j], (k0 + b_row[j] < klen) ? b_nv[j] : 0);
        }
#pragma unroll
        for (int j = 0; j < A_LOADS; ++j) a_ptr[j] += BK;
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j) b_ptr[j] += (int64_t)BK * p.ldb;
    };
    /* Registers -> shared stage st: A transposed by four scalar stores, B as one float4.  The four A
     * stores of a float4 go to rows a_kc .. a_kc+3 of one column; a_kc is a multiple of 4, so (every
     * layout, sgemm_a_rows_ok) their offsets are the first one's plus the constant offsets of rows
     * 0..3: one address register per float4 and immediates, as nvcc cannot see that the swizzle's
     * XOR is the same for the four rows (it kept four registers, at BIG's 128-register cap). */
    static_assert(sgemm_a_rows_ok<Cfg, LAYOUT>(), "A-store rows a_kc + e: offset(a_kc) + offset(e, 0)");
    auto store_shared = [&](int st) {
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
    };

    float acc[WMITER * TM][WNITER * TN];
#pragma unroll
    for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j)
            acc[i][j] = 0.f;

    /* Fragments are double-buffered in registers: row k+1's LDS.128 are issued before row k's FFMAs,
     * and across the k-tile barrier too (CUTLASS's SIMT main loop), so after a barrier a warp has a
     * whole row of FFMAs to issue while its first loads of the new stage are in flight.
     * Fragment (i, j) of row k is column a_col + i*WSUBM + j of As; a_col's set bits are disjoint from
     * i*WSUBM + j (all power-of-two fields), so that column equals a_col ^ (i*WSUBM + j), and by
     * smk_tile_row_offset/_row_xor its offset is  row_offset(k) + ((a_col ^ row_xor(k)) ^ (i*WSUBM + j)):
     * one XOR per k per operand, the rest immediates (the compiler knows the bits of a_col ^ row_xor(k)
     * that the constant hits). */
    float af[2][WMITER * TM], bf[2][WNITER * TN];
    auto load_frags = [&](int st, int k, int buf) {
        const float *As = smem + st * stage_elems, *Bs = As + a_elems;
        const int ax = a_col ^ smk_tile_row_xor(TA, k), bx = b_col ^ smk_tile_row_xor(TB, k);
        const float *Ak = As + smk_tile_row_offset(TA, k), *Bk = Bs + smk_tile_row_offset(TB, k);
#pragma unroll
        for (int i = 0; i < WMITER; ++i)
#pragma unroll
            for (int j = 0; j < TM; j += 4)
                *reinterpret_cast<float4 *>(&af[buf][i * TM + j]) =
                    *reinterpret_cast<const float4 *>(&Ak[ax ^ (i * WSUBM + j)]);
#pragma unroll
        for (int i = 0; i < WNITER; ++i)
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4 *>(&bf[buf][i * TN + j]) =
                    *reinterpret_cast<const float4 *>(&Bk[bx ^ (i * WSUBN + j)]);
    };
    auto fma_frags = [&](int buf) {
#pragma unroll
        for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
            for (int j = 0; j < WNITER * TN; ++j)
                acc[i][j] = fmaf(af[buf][i], bf[buf][j], acc[i][j]);
    };

    /* ---- main loop: one barrier per k-tile, stage index a compile-time constant ----
     * Step kt (stage ST holds tile kt, row 0 of it already in fragment buffer 0): prefetch tile kt+1
     * into registers (if there is one); for each row k, load row k+1's fragments, then multiply row k;
     * at the last row, first park the prefetched registers in stage ST^1 (last read in step kt-1, which
     * every thread finished before that step's barrier), barrier, and load row 0 of stage ST^1.
     * The store and that last load are unconditional: after the last tile they park stale registers
     * in, and read row 0 of, a stage nobody uses again.  That costs one store group and one fragment
     * row per block and K slice, and buys exact counts: with `if (more) store` nvcc if-converted the
     * last step's stores, which Nsight Compute counts as executed (predicated off) where explain()
     * did not.  explain() counts k-tiles + 1 store groups and k-tiles * BK + 1 fragment rows. */
    const int ktiles = (klen + BK - 1) / BK;
    if (ktiles > 0) {
        load_global(0);
        store_shared(0);
        __syncthreads();
        load_frags(0, 0, 0);
    }
    auto step = [&](auto st_tag, int kt) {
        constexpr int ST = decltype(st_tag)::value;
        if (kt + 1 < ktiles) load_global((kt + 1) * BK);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k + 1 < BK) {
                load_frags(ST, k + 1, (k + 1) & 1);
            } else {
                store_shared(ST ^ 1);
                __syncthreads();
                load_frags(ST ^ 1, 0, (k + 1) & 1);
            }
            fma_frags(k & 1);
        }
    };
    sgemm_stage_loop(ktiles, step);

    /* ---- epilogue: D = alpha*acc + beta*C; C is not read when beta == 0 (NaN in C does not leak) ---- */
    const float alpha = p.alpha, beta = p.beta;
#pragma unroll
    for (int i = 0; i < WMITER; ++i)
#pragma unroll
        for (int ii = 0; ii < TM; ++ii) {
            const int m = bm + a_col + i * WSUBM + ii;
            if (m >= M) continue;
            float *drow = p.D + blockIdx.y * slice.d_stride + (int64_t)m * p.ldd;
            const float *crow = p.C + (int64_t)m * p.ldc; /* formed only; read only if beta != 0 */
#pragma unroll
            for (int jn = 0; jn < WNITER; ++jn)
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const int n = bn + b_col + jn * WSUBN + j;
                    const float *a4 = &acc[i * TM + ii][jn * TN + j];
                    store4<VEC>(drow + n, crow + n, make_float4(a4[0], a4[1], a4[2], a4[3]), alpha, beta, N - n);
                }
        }
}

/* Dynamic shared memory of one block of sgemm_kernel<Cfg, LAYOUT, *>, in bytes. */
template <class Cfg, int LAYOUT>
inline size_t sgemm_smem_bytes()
{
    const smk_tile ta = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BM), tb = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN);
    return (size_t)Cfg::STAGES * (size_t)(smk_tile_elems(ta, Cfg::BK) + smk_tile_elems(tb, Cfg::BK)) *
           sizeof(float);
}

/* Blocks in the grid of config Cfg for an M x N output (0 if it does not fit a 1-D grid). */
template <class Cfg>
inline long long sgemm_grid_blocks(int64_t M, int64_t N)
{
    const long long b = ((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN);
    return b <= INT_MAX ? b : 0;
}

/* ---- split-K reduction ----------------------------------------------------------------------------
 * D = alpha * (sum over z of W[z]) + beta * C, W the S partial tiles (M x ldw floats each, ldw =
 * N rounded up to 4, 16-byte aligned: the workspace is ours).  The GEMM writes columns < N only, so a
 * row's last group, when N % 4 != 0, reads its N % 4 columns one by one, never the unwritten pad
 * (compute-sanitizer initcheck).  A warp owns G consecutive float4
 * groups of a row-major walk of W (lane % G) and splits the slices 32/G ways (lane / G sums slices
 * z = lane / G, + 32/G, ...): G = 2 when S >= 16 (each lane pair reads one whole 32-byte sector, 16
 * loads in flight per group), 4 when S >= 8, else 8 (whole 128-byte lines).  The 32/G lane sums are
 * combined by XOR shuffles: a fixed tree for a given S, so the result never depends on timing (and
 * every lane of a group holds the same value: + commutes).  No shared memory: explain()'s plan of
 * the GEMM kernel is the whole launch's shared-memory traffic.  C is read only when beta != 0 (NaN
 * in C does not leak) and with plain loads (C may alias D; each element is read, then written, by one
 * thread). */
constexpr int kReduceThreads = 64;

inline int reduce_groups_per_warp(int S) { return S >= 16 ? 2 : (S >= 8 ? 4 : 8); }

template <bool VEC>
__global__ void __launch_bounds__(kReduceThreads)
    sgemm_reduce_kernel(const float *__restrict__ W, int64_t slice_stride, int64_t ldw, int S, int G,
                        const smk_sgemm_params p)
{
    pdl_wait_prerequisites(); /* the GEMM grid's partial tiles are complete and visible */
    const int lane = threadIdx.x & 31, tx = lane & (G - 1), ty = lane / G, L = 32 / G;
    const int64_t per_row = ldw / 4, groups = p.M * per_row;
    const int64_t warp = ((int64_t)blockIdx.x * kReduceThreads + threadIdx.x) >> 5;
    const int64_t warps = ((int64_t)gridDim.x * kReduceThreads) >> 5;
    const float alpha = p.alpha, beta = p.beta;
    for (int64_t g0 = warp * G; g0 < groups; g0 += warps * G) { /* uniform per warp: shuffles below */
        const int64_t g = g0 + tx;
        const bool ok = g < groups;
        const int64_t m = ok ? g / per_row : 0, n = ok ? (g % per_row) * 4 : 0;
        float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
        if (ok) {
            const float *w = W + m * ldw + n;
            if (n + 4 <= p.N) {
#pragma unroll 4
                for (int z = ty; z < S; z += L) {
                    const float4 v = __ldcg(reinterpret_cast<const float4 *>(w + z * slice_stride));
                    s.x += v.x;
                    s.y += v.y;
                    s.z += v.z;
                    s.w += v.w;
                }
            } else { /* a row's last group when N % 4 != 0: only its written columns (never the pad) */
                const int nv = (int)(p.N - n); /* 1..3 */
                for (int z = ty; z < S; z += L) {
                    const float *wz = w + z * slice_stride;
                    s.x += __ldcg(wz);
                    if (nv > 1) s.y += __ldcg(wz + 1);
                    if (nv > 2) s.z += __ldcg(wz + 2);
                }
            }
        }
        for (int o = G; o < 32; o <<= 1) {
            s.x += __shfl_xor_sync(0xffffffffu, s.x, o);
            s.y += __shfl_xor_sync(0xffffffffu, s.y, o);
            s.z += __shfl_xor_sync(0xffffffffu, s.z, o);
            s.w += __shfl_xor_sync(0xffffffffu, s.w, o);
        }
        if (!ok || ty != 0 || n >= p.N) continue;
        /* C formed only; read only if beta != 0 */
        store4<VEC>(p.D + m * p.ldd + n, p.C + m * p.ldc + n, s, alpha, beta, (int)(p.N - n));
    }
}

/* Launch one instantiation on a validated, normalised q (M, N > 0) over `splits` K slices. */
template <class Cfg, int LAYOUT, bool VEC>
int sgemm_launch_cfg(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    const long long blocks = sgemm_grid_blocks<Cfg>(q.M, q.N);
    if (blocks <= 0 || splits < 1 || splits > 65535) return (int)cudaErrorInvalidValue;
    const size_t smem = sgemm_smem_bytes<Cfg, LAYOUT>();
    if (smem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(sgemm_kernel<Cfg, LAYOUT, VEC>,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return (int)e;
    }
    sgemm_kernel<Cfg, LAYOUT, VEC><<<dim3((unsigned)blocks, (unsigned)splits), Cfg::THREADS, smem, stream>>>(q, slice);
    return (int)cudaGetLastError();
}

template <class Cfg, bool VEC>
int sgemm_launch_layout(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    switch (q.layout) {
    case SMK_NAIVE: return sgemm_launch_cfg<Cfg, SMK_NAIVE, VEC>(q, slice, splits, stream);
    case SMK_PAD: return sgemm_launch_cfg<Cfg, SMK_PAD, VEC>(q, slice, splits, stream);
    case SMK_SWIZZLE: return sgemm_launch_cfg<Cfg, SMK_SWIZZLE, VEC>(q, slice, splits, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

template <class Cfg>
int sgemm_launch_any(const smk_sgemm_params &q, bool vec, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    return vec ? sgemm_launch_layout<Cfg, true>(q, slice, splits, stream)
               : sgemm_launch_layout<Cfg, false>(q, slice, splits, stream);
}

inline bool aligned16(const void *ptr) { return ((uintptr_t)ptr & 15u) == 0; }

/* Every pointer the kernel touches 16-byte aligned and every leading dimension a multiple of 4. */
inline bool sgemm_vec(const smk_sgemm_params &q)
{
    bool v = aligned16(q.D) && q.ldd % 4 == 0;
    if (q.K > 0) v = v && aligned16(q.A) && q.lda % 4 == 0 && aligned16(q.B) && q.ldb % 4 == 0;
    if (q.beta != 0.f) v = v && aligned16(q.C) && q.ldc % 4 == 0;
    return v;
}

/* Validate p into q: 0 = launch q, 1 = nothing to do, negative = invalid.  Normalises alpha == 0
 * (BLAS: A and B are not referenced) to K = 0, and K == 0 to alpha = 0, so both give D = beta*C. */
inline int sgemm_prepare(const smk_sgemm_params *p, smk_sgemm_params *q, bool *vec)
{
    if (!p) return -1;
    *q = *p;
    if (q->layout < 0 || q->layout >= SMK_NUM_LAYOUTS || q->splits < 0) return -1;
    const int64_t lim = (int64_t)INT_MAX - 256; /* in-kernel indices are int; + a tile stays < 2^31 */
    if (q->M < 0 || q->N < 0 || q->K < 0 || q->M > lim || q->N > lim || q->K > lim) return -1;
    if (q->M == 0 || q->N == 0) return 1;
    if (!q->D || q->ldd < q->N) return -1;
    if (q->alpha == 0.f) q->K = 0;
    if (q->K == 0) q->alpha = 0.f; /* D = beta*C exactly, even for alpha = Inf or NaN */
    if (q->K > 0 && (!q->A || !q->B || q->lda < q->K || q->ldb < q->N)) return -1;
    const bool use_c = q->beta != 0.f;
    if (use_c && (!q->C || q->ldc < q->N)) return -1;
    if (!use_c) q->C = NULL;
    *vec = sgemm_vec(*q);
    return 0;
}

} /* namespace smk */

/* Memory-bound kernels for small M / small N (issue 11): configs "skinny-m" and "skinny-n" below. */
#include "sgemm_skinny.cuh"

/* The tile configs: 0 = chosen per shape; the others ship and can be forced (benchmarks, tests).
 * Which config and K split runs is smk_sgemm_choose's cost model below; the candidates that lost in
 * the tile sweep (bench/SGEMM_NOTES.md, "Tile configs and the cost model") are compiled in only when
 * the build asks for them (SMEMKIT_SGEMM_CANDIDATES=1). */
namespace smk {
/*                           BM   BN  BK  WM  WN WNITER TM TN THREADS MINB */
using C128x256x8 = SgemmCfg<128, 256, 8, 64, 64, 2, 4, 4, 256, 1>;  /* 16x8 per thread, 1 block/SM: big outputs */
using C64x64x16 = SgemmCfg<64, 64, 16, 32, 32, 1, 4, 4, 128, 4>;     /* SMALL with BK 16: K-heavy small outputs */
using C128x64 = SgemmCfg<128, 64, 8, 64, 32, 1, 4, 4, 128, 4>;       /* 16x4 per thread: tall, N <= 64-ish (its
                                                                       * float4 builds spill 16 B at 128 registers) */
using C64x128 = SgemmCfg<64, 128, 8, 32, 64, 2, 4, 4, 128, 3>;       /* 8x8 per thread: wide, short K */
using C64x128m4 = SgemmCfg<64, 128, 8, 32, 64, 2, 4, 4, 128, 4>;     /* the same, 4 blocks/SM (128 registers, a 48-52
                                                                       * byte spill): for tile counts just under 4
                                                                       * a wave (64x65536: 512 tiles, 528 slots) */
using C128x128x16 = SgemmCfg<128, 128, 16, 32, 64, 2, 4, 4, 256, 1>; /* candidate: BIG with BK 16 */
using C128x128t128 = SgemmCfg<128, 128, 8, 64, 64, 2, 4, 4, 128, 2>; /* candidate: 16x8 per thread, 128 threads */

typedef int (*cfg_launch_fn)(const smk_sgemm_params &, bool, const SgemmSlice &, int, cudaStream_t);
typedef int (*cfg_plan_fn)(int layout, smk_plan *plan);
typedef long long (*cfg_blocks_fn)(int64_t M, int64_t N);
template <class Cfg> int sgemm_block_plan(int layout, smk_plan *plan);

/* The chooser's cost model of one config (fitted to an H100 tile sweep over 50 shapes, every config x
 * K split; refitted 2026-11-23 to the pad timings of the grid of the tree with the dependent-launch
 * reduction and 64x128x8/minb4 (bench/data/sgemm_grid_h100.jsonl.gz, 3053 timings, 61 shapes), each
 * shape weighted alike; bench/sgemm_grid.py times the grid and bench/fit_sgemm_model.py prints these
 * constants from it; bench/SGEMM_NOTES.md, "Tile configs and the cost model"):
 * a block of a BM x BN tile over a k_chunk-deep slice costs BM*BN*(k_chunk + k0) FMA at fma_per_ns
 * per SM (with minblocks blocks resident per SM: a wave of sms*minblocks blocks takes minblocks times
 * one block's work); a last, partial wave of r < minblocks blocks per SM takes (r/minblocks)^beta of
 * a full one.  fma_per_ns == 0: not chosen automatically (a candidate). */
struct SgemmCost {
    double fma_per_ns, k0, beta;
    /* Memory-bound configs (skinny-m / skinny-n): fma_per_ns == 0 and the time is the streamed
     * operand's bytes (each output tile streams its max(BM, BN) x K slice of B or A once) at
     * bytes_per_ns x min(1, blocks / (sms * minblocks))^beta, each tile along the small side after
     * the first adding k0 of the operand again (L2 serves the rest); fitted to the H100 runs of
     * bench/SKINNY_RESULTS.md: skinny-m 2.2-2.75 TB/s (1x4096^2, 1x8192^2), a second row tile +15%
     * (16x4096x4096); skinny-n 1.8 TB/s unsplit whether its 256 blocks fill 0.65 of a wave or 512
     * fill it, a second column tile +50% (4096x1x4096 vs 4096x16x4096). */
    double bytes_per_ns;
};

struct SgemmConfigEntry {
    const char *name;
    cfg_launch_fn launch;
    cfg_plan_fn plan;
    cfg_blocks_fn blocks;
    int bm, bn, bk;
    int minblocks; /* blocks per SM the config is built for (its __launch_bounds__) */
    SgemmCost cost;
    int store_after_last; /* 1: each block of each K slice stores one shared group after its last k-tile
                           * (sgemm_kernel's main loop); explain() counts it */
    int once_accesses;    /* the block plan's last accesses that run once per block and K slice (not
                           * per k-tile): sgemm_kernel's fragment row loaded after its last k-tile */
};
#define SMK_SGEMM_ENTRY(NAME, CFG, ...)                                                                   \
    {NAME, sgemm_launch_any<CFG>, sgemm_block_plan<CFG>, sgemm_grid_blocks<CFG>, CFG::BM, CFG::BN, CFG::BK,    \
     CFG::MINBLOCKS, __VA_ARGS__, 1, 2}
/* Indices 1 and 2 (BIG and SMALL, the first two shipped) are what older benchmarks force by number. */
const SgemmConfigEntry kConfigs[] = {
    {"auto", nullptr, nullptr, nullptr, 0, 0, 0, 0, {0, 0, 0, 0}, 0, 0},
    SMK_SGEMM_ENTRY("128x128x8", SgemmBig, {192.9, 24, 0.85, 0}),
    SMK_SGEMM_ENTRY("64x64x8", SgemmSmall, {164.3, 16, 0.25, 0}),
    SMK_SGEMM_ENTRY("128x256x8", C128x256x8, {184.3, 24, 0.1, 0}),
    SMK_SGEMM_ENTRY("64x64x16", C64x64x16, {145.8, 16, 0.7, 0}),
    SMK_SGEMM_ENTRY("128x64x8", C128x64, {178.1, 20, 0.55, 0}),
    SMK_SGEMM_ENTRY("64x128x8", C64x128, {189.1, 24, 0.4, 0}),
    {"skinny-m", skinny_launch_any<SkinnyM, true>, skinny_m_block_plan<SkinnyM>, skinny_blocks<SkinnyM>,
     SkinnyM::TILE_M, SkinnyM::TILE_N, SkinnyM::BK, SkinnyM::MINBLOCKS, {0, 0.15, 0.5, 2500.0}, 1, 0},
    {"skinny-n", skinny_launch_any<SkinnyN, false>, skinny_n_block_plan<SkinnyN>, skinny_blocks<SkinnyN>,
     SkinnyN::TILE_M, SkinnyN::TILE_N, SkinnyN::BK, SkinnyN::MINBLOCKS, {0, 0.5, 0.0, 1800.0}, 1, 0},
    SMK_SGEMM_ENTRY("64x128x8/minb4", C64x128m4, {174.1, 16, 0.55, 0}),
#ifdef SMK_SGEMM_CANDIDATES
    SMK_SGEMM_ENTRY("128x128x16", C128x128x16, {0, 0, 0, 0}),
    SMK_SGEMM_ENTRY("128x128x8/128thr", C128x128t128, {0, 0, 0, 0}),
#endif
};
constexpr int kNumConfigs = sizeof(kConfigs) / sizeof(kConfigs[0]);
constexpr int kMaxSplits = 65535; /* gridDim.y */

/* Launch-level costs of the model, in ns: every launch; a split launch's reduction kernel and its
 * workspace traffic (the partial tiles written by the GEMM and read back, D written). */
constexpr double kLaunchNs = 3000.0, kSplitNs = 6000.0, kSplitBytesPerNs = 6000.0;

/* The shallowest K slice the automatic choice makes (a forced split may go down to one k-tile).  The
 * model's per-block overhead (k0) under-prices very shallow slices: measured on an H100, 64x64x16384
 * in 64x64x8 tiles ran 0.75 of cuBLAS at S = 512 (32-deep slices) and 0.88 at S = 243 (68 deep).
 * Replaying the model's picks over the measured tile x split grid with floors 0..96, 48 did best
 * (geomean 0.944; 64 lost 130x67x2049, whose best measured slice is 43 deep; 32 and below kept the
 * shallow picks); bench/SGEMM_NOTES.md. */
constexpr int64_t kMinSliceK = 48;

/* `splits` slices made exact for a K of k-tiles `bk` deep: every slice k_chunk deep (a multiple of
 * bk) but the last, none empty; 1 <= *s <= max(1, ceil(K / bk)) and <= kMaxSplits. */
inline void sgemm_exact_split(int64_t K, int64_t bk, int64_t splits, int64_t *s, int64_t *k_chunk)
{
    const int64_t ktiles = (K + bk - 1) / bk;
    int64_t w = splits > ktiles ? ktiles : splits;
    w = w > kMaxSplits ? kMaxSplits : w;
    *s = 1;
    *k_chunk = K;
    if (w <= 1) return;
    const int64_t chunk = ((K + w - 1) / w + bk - 1) / bk * bk; /* ceil(K / w), up to a whole k-tile */
    const int64_t n = (K + chunk - 1) / chunk;
    if (n > 1) {
        *s = n;
        *k_chunk = chunk;
    }
}

/* The model's time (ns) of config c over `splits` K slices (made exact), or a huge value when c cannot
 * run the shape (its grid does not fit). */
inline double sgemm_cost_ns(const SgemmConfigEntry &c, int64_t M, int64_t N, int64_t K, int sms, int64_t splits)
{
    const long long tiles = c.blocks(M, N);
    if (tiles <= 0 || (c.cost.fma_per_ns <= 0 && c.cost.bytes_per_ns <= 0)) return 1e300;
    int64_t s = 1, chunk = K;
    sgemm_exact_split(K, c.bk, splits, &s, &chunk);
    const double split_ns =
        s > 1 ? kSplitNs + (2.0 * s * M * ((N + 3) & ~(int64_t)3) + (double)M * N) * 4.0 / kSplitBytesPerNs : 0.0;
    if (c.cost.fma_per_ns <= 0) { /* memory-bound: the streamed operand at a rate that needs a full wave */
        /* Only where the output is matrix-vector-like: at most 4 tiles along its small side (beyond
         * that the kernel re-streams its operand from L2 per tile and is no longer DRAM-bound; the
         * runs behind the rates went to 2 tiles). */
        const int64_t small = c.bm < c.bn ? M : N, tile = c.bm < c.bn ? c.bm : c.bn;
        if (small > 4 * tile) return 1e300;
        const double fill = (double)tiles * s / ((double)sms * c.minblocks);
        /* tiles along the small side re-stream the operand, L2 serving part of it (k0: the share
         * each extra one costs) */
        const double bytes = (double)(tiles / ((small + tile - 1) / tile)) * (double)K * (c.bm > c.bn ? c.bm : c.bn) *
                             4.0 * (1.0 + c.cost.k0 * (double)((small + tile - 1) / tile - 1));
        /* and below half a wave the blocks, not the rate, are what is missing: a linear share */
        const double share = pow(fill < 1.0 ? fill : 1.0, c.cost.beta) * (fill < 0.5 ? 2.0 * fill : 1.0);
        return kLaunchNs + split_ns + bytes / (c.cost.bytes_per_ns * share);
    }
    const double depth = (double)((chunk + c.bk - 1) / c.bk * c.bk) + c.cost.k0;
    const double block_ns = (double)c.bm * c.bn * depth / c.cost.fma_per_ns; /* one block alone on an SM */
    const long long per_wave = (long long)sms * c.minblocks, blocks = tiles * s;
    const long long full = blocks / per_wave, rest = blocks % per_wave;
    double t = kLaunchNs + (double)full * c.minblocks * block_ns;
    if (rest > 0) {
        const long long r = (rest + sms - 1) / sms; /* blocks per SM in the last wave, <= minblocks */
        t += c.minblocks * block_ns * pow((double)r / c.minblocks, c.cost.beta);
    }
    return t + split_ns;
}

/* The most K slices whose (exact) slices are none shallower than kMinSliceK but the last: the largest S
 * with sgemm_exact_split's k_chunk >= kMinSliceK (whole k-tiles: K = 256 in 16-deep k-tiles gives 6
 * slices of 48, where K / kMinSliceK would say 5), at least 1. */
inline int64_t sgemm_deepest(int64_t K, int64_t bk)
{
    const int64_t c0 = (kMinSliceK + bk - 1) / bk * bk;
    int64_t s = (K + c0 - 1) / c0, n = 1, chunk = K;
    for (; s > 1; --s) {
        sgemm_exact_split(K, bk, s, &n, &chunk);
        if (chunk >= kMinSliceK) return s;
    }
    return 1;
}

/* The automatic choice: the shipped config and K split of least modelled time.  Splits tried: 1, and
 * (when the output's tiles fill fewer than two waves) the S whose tiles x S land just at or under
 * one to four full waves, at most sgemm_deepest.  Ties keep the earlier config / smaller S: the same
 * answer on every call. */
inline void sgemm_auto(int64_t M, int64_t N, int64_t K, int sms, int *cfg_out, int64_t *splits_out)
{
    double best = 1e301;
    *cfg_out = 1;
    *splits_out = 1;
    for (int c = 1; c < kNumConfigs; c++) {
        const SgemmConfigEntry &e = kConfigs[c];
        const long long tiles = e.blocks(M, N);
        if (tiles <= 0 || (e.cost.fma_per_ns <= 0 && e.cost.bytes_per_ns <= 0)) continue;
        const long long per_wave = (long long)sms * e.minblocks;
        int64_t cand[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
        int n = 1;
        const int64_t deepest = sgemm_deepest(K, e.bk); /* no slice shallower than kMinSliceK */
        if (tiles < 2 * per_wave && K > e.bk)
            for (int j = 1; j <= 4; j++) {
                int64_t s = (j * per_wave + tiles - 1) / tiles; /* tiles * s >= j waves */
                s = s < deepest ? s : deepest;
                cand[n++] = s;
                cand[n++] = s - 1 > 1 ? s - 1 : 1;
            }
        for (int i = 0; i < n; i++) {
            const double t = sgemm_cost_ns(e, M, N, K, sms, cand[i]);
            if (t < best) {
                best = t;
                *cfg_out = c;
                *splits_out = cand[i];
            }
        }
    }
}

/* The whole choice (config and K slices), forced or not: what smk_sgemm_launch runs and
 * smk_sgemm_plan replays.  A forced config with splits 0 gets the model's best split for that
 * config; a forced split is clamped to [1, ceil(K / BK)] and made exact (sgemm_exact_split). */
inline void sgemm_resolve(int64_t M, int64_t N, int64_t K, int sms, int config, int splits, smk_sgemm_choice *ch)
{
    int cfg = config;
    int64_t s = splits;
    if (config <= 0) {
        int64_t auto_s = 1;
        sgemm_auto(M, N, K, sms, &cfg, &auto_s);
        if (splits <= 0) s = auto_s;
    } else if (splits <= 0) { /* the best split for the forced config */
        double best = 1e301;
        const SgemmConfigEntry &e = kConfigs[cfg];
        const long long tiles = e.blocks(M, N);
        s = 1;
        if (tiles > 0 && (e.cost.fma_per_ns > 0 || e.cost.bytes_per_ns > 0)) {
            const long long per_wave = (long long)sms * e.minblocks;
            const int64_t deepest = sgemm_deepest(K, e.bk);
            for (int j = 0; j <= 4; j++) {
                int64_t c = j == 0 ? 1 : (j * per_wave + tiles - 1) / tiles;
                c = c < deepest ? c : deepest;
                const double t = sgemm_cost_ns(e, M, N, K, sms, c);
                if (t < best) {
                    best = t;
                    s = c;
                }
            }
        } else if (tiles > 0 && tiles < sms) { /* a candidate: fill one wave of one block per SM */
            s = sms / tiles;
        }
    }
    int64_t es = 1, chunk = K;
    sgemm_exact_split(K, kConfigs[cfg].bk, s, &es, &chunk);
    ch->config = cfg;
    ch->splits = (int)es;
    ch->k_chunk = chunk;
}
} /* namespace smk */

extern "C" int smk_sgemm_num_configs(void) { return smk::kNumConfigs; }

extern "C" const char *smk_sgemm_config_name(int config)
{
    return config >= 0 && config < smk::kNumConfigs ? smk::kConfigs[config].name : NULL;
}

extern "C" int smk_sgemm_choose(int64_t M, int64_t N, int64_t K, int sms, smk_sgemm_choice *choice)
{
    if (!choice || M < 0 || N < 0 || K < 0 || sms < 1) return -1;
    smk::sgemm_resolve(M, N, K, sms, 0, 0, choice);
    return 0;
}

namespace smk {
/* Split-K: S partial tiles into a stream-ordered fp32 workspace on `stream`, then the reduction
 * applies alpha and beta into D; the workspace is freed on `stream` behind them (no synchronisation).
 * pdl: the device can launch the reduction as a programmatic dependent launch (sm_90 and later). */
inline int sgemm_launch_split(const smk_sgemm_params &q, const smk_sgemm_choice &ch, int sms, bool pdl,
                              cudaStream_t stream)
{
    const int64_t ldw = (q.N + 3) & ~(int64_t)3, stride = q.M * ldw;
    void *ws = NULL;
    const smk_status st = smk_rt_alloc_on(&ws, (size_t)ch.splits * (size_t)stride * sizeof(float), stream);
    if (st.code != SMK_OK) return st.cuda ? st.cuda : (int)cudaErrorMemoryAllocation;
    smk_sgemm_params w = q; /* the partial tiles: D = 1 * A[:, slice] @ B[slice, :], C not read */
    w.D = (float *)ws;
    w.ldd = ldw;
    w.C = NULL;
    w.alpha = 1.f;
    w.beta = 0.f;
    const SgemmSlice slice = {(int)ch.k_chunk, stride};
    int e = kConfigs[ch.config].launch(w, sgemm_vec(w), slice, ch.splits, stream);
    if (e == cudaSuccess) {
        smk_sgemm_params r = q; /* the reduction reads only W and C, writes D */
        r.K = 0;
        const int G = reduce_groups_per_warp(ch.splits);
        const int64_t warps = (q.M * (ldw / 4) + G - 1) / G, per_block = kReduceThreads / 32;
        int64_t blocks = (warps + per_block - 1) / per_block;
        const int64_t cap = (int64_t)sms * 32; /* a grid-stride loop covers the rest */
        blocks = blocks < cap ? blocks : cap;
        /* a programmatic dependent launch where the device has them (pdl_allow_dependents above) */
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[0].val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t lc = {};
        lc.gridDim = dim3((unsigned)blocks);
        lc.blockDim = dim3(kReduceThreads);
        lc.dynamicSmemBytes = 0;
        lc.stream = stream;
        lc.attrs = attr;
        lc.numAttrs = pdl ? 1 : 0;
        const float *wsf = (const float *)ws;
        const int S = ch.splits;
        e = (int)(sgemm_vec(r) ? cudaLaunchKernelEx(&lc, sgemm_reduce_kernel<true>, wsf, stride, ldw, S, G, q)
                               : cudaLaunchKernelEx(&lc, sgemm_reduce_kernel<false>, wsf, stride, ldw, S, G, q));
        if (e == cudaSuccess) e = (int)cudaGetLastError();
    }
    smk_rt_free_on(ws, stream); /* stream-ordered: after the kernels that use it, even on failure */
    return e;
}
} /* namespace smk */

/* Enqueue D = alpha*A@B + beta*C on `stream` with the config and K split smk::sgemm_resolve gives. */
extern "C" int smk_sgemm_launch(const smk_sgemm_params *p, cudaStream_t stream)
{
    smk_sgemm_params q;
    bool vec = false;
    const int st = smk::sgemm_prepare(p, &q, &vec);
    if (st < 0 || q.config < 0 || q.config >= smk::kNumConfigs) return (int)cudaErrorInvalidValue;
    if (st > 0) return (int)cudaSuccess;

    /* The SM count sizes the tile choice, the compute capability says whether the split's reduction
     * can be a dependent launch; both are cached per device (a launch is on the per-call path). */
    static int sms_of[64], major_of[64];
    int dev = 0, sms = 0, major = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    if (dev >= 0 && dev < 64 && sms_of[dev] > 0) {
        sms = sms_of[dev];
        major = major_of[dev];
    } else {
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        if (e == cudaSuccess) e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        if (e != cudaSuccess) return (int)e;
        if (dev >= 0 && dev < 64) { /* benign race: every writer stores the same values (a reader that
                                     * sees sms before major only skips the dependent launch once) */
            major_of[dev] = major;
            sms_of[dev] = sms;
        }
    }
    smk_sgemm_choice ch;
    smk::sgemm_resolve(q.M, q.N, q.K, sms, q.config, q.splits, &ch);
    if (ch.splits > 1) return smk::sgemm_launch_split(q, ch, sms, major >= 9, stream);
    const smk::SgemmSlice whole = {(int)(q.K > 0 ? q.K : 1), 0};
    return smk::kConfigs[ch.config].launch(q, vec, whole, 1, stream);
}

/* ---- host replay of one block's shared-memory instructions, for the bank model (runtime.h) ---- */
namespace smk {

template <class Cfg>
int sgemm_block_plan(int layout, smk_plan *plan)
{
    using Map = SgemmMap<Cfg>;
    const smk_tile TA = smk_sgemm_tile(layout, Cfg::LOG2_BM), TB = smk_sgemm_tile(layout, Cfg::LOG2_BN);
    const int a_elems = smk_tile_elems(TA, Cfg::BK);
    const int warps = Cfg::THREADS / 32;
    /* Stage 1 sits stage_elems floats after stage 0; when that is a whole number of bank rows both
     * stages see the same banks and one stage stands for all k-tiles. */
    if ((a_elems + smk_tile_elems(TB, Cfg::BK)) % 32 != 0)
        return -1;
    const int n_a_frag = Cfg::WMITER * (Cfg::TM / 4), n_b_frag = Cfg::WNITER * (Cfg::TN / 4);
    /* Per k-tile: the stores of the next tile and BK fragment rows.  Once per block and K slice (the
     * last two, the config entry's once_accesses, see smk_sgemm_plan): the fragment row 0 the main
     * loop loads from the other stage after its last k-tile (the cross-barrier prefetch, unconditional). */
    const struct { const char *name; int width, is_store, per_warp; } kinds[6] = {
        {"A-tile store (transposed, 4 x STS.32 per float4)", 4, 1, Cfg::A_LOADS * 4},
        {"B-tile store (STS.128)", 16, 1, Cfg::B_LOADS},
        {"A fragment load (LDS.128)", 16, 0, Cfg::BK * n_a_frag},
        {"B fragment load (LDS.128)", 16, 0, Cfg::BK * n_b_frag},
        {"A fragment load after the last k-tile (LDS.128, row 0, unused)", 16, 0, n_a_frag},
        {"B fragment load after the last k-tile (LDS.128, row 0, unused)", 16, 0, n_b_frag},
    };
    for (int a = 0; a < 6; a++) {
        smk_access *acc = &plan->acc[a];
        acc->name = kinds[a].name;
        acc->width = kinds[a].width;
        acc->is_store = kinds[a].is_store;
        acc->n_instr = warps * kinds[a].per_warp;
        if (!acc->addr)
            continue;
        for (int w = 0; w < warps; w++)
            for (int lane = 0; lane < 32; lane++) {
                const int tid = w * 32 + lane;
                long long *out = acc->addr + (long long)w * kinds[a].per_warp * 32 + lane;
                int i = 0;
                if (a == 0) {
                    for (int j = 0; j < Cfg::A_LOADS; j++) {
                        int row = 0, kc = 0;
                        Map::a_load(j, tid, &row, &kc);
                        for (int e = 0; e < 4; e++, i++)
                            out[i * 32] = 4LL * smk_tile_offset(TA, kc + e, row);
                    }
                } else if (a == 1) {
                    for (int j = 0; j < Cfg::B_LOADS; j++, i++) {
                        int row = 0, col = 0;
                        Map::b_load(j, tid, &row, &col);
                        out[i * 32] = 4LL * (a_elems + smk_tile_offset(TB, row, col));
                    }
                } else {
                    for (int k = 0; k < (a < 4 ? Cfg::BK : 1); k++)
                        if (a % 2 == 0) {
                            for (int f = 0; f < Cfg::WMITER; f++)
                                for (int t = 0; t < Cfg::TM; t += 4, i++)
                                    out[i * 32] = 4LL * smk_tile_offset(TA, k, Map::a_col(tid) + f * Cfg::WSUBM + t);
                        } else {
                            for (int f = 0; f < Cfg::WNITER; f++)
                                for (int t = 0; t < Cfg::TN; t += 4, i++)
                                    out[i * 32] = 4LL * (a_elems +
                                                         smk_tile_offset(TB, k, Map::b_col(tid) + f * Cfg::WSUBN + t));
                        }
                }
            }
    }
    plan->n = 6;
    plan->threads = Cfg::THREADS;
    plan->smem_bytes = (int)sgemm_smem_bytes<Cfg, SMK_NAIVE>();
    if (layout == SMK_PAD)
        plan->smem_bytes = (int)sgemm_smem_bytes<Cfg, SMK_PAD>();
    snprintf(plan->config, sizeof plan->config, "%dx%dx%d block tile, %d threads, %dx%d per thread",
             Cfg::BM, Cfg::BN, Cfg::BK, Cfg::THREADS, Cfg::WMITER * Cfg::TM, Cfg::WNITER * Cfg::TN);
    return 0;
}

} /* namespace smk */

extern "C" int smk_sgemm_plan(int64_t M, int64_t N, int64_t K, int layout, int sms, int config, int splits,
                              smk_plan *plan)
{
    if (!plan || M < 0 || N < 0 || K < 0 || M > INT_MAX || N > INT_MAX || K > INT_MAX || layout < 0 ||
        layout >= SMK_NUM_LAYOUTS || sms < 1 || config < 0 || config >= smk::kNumConfigs || splits < 0)
        return -1;
    smk_sgemm_choice ch;
    smk::sgemm_resolve(M, N, K, sms, config, splits, &ch); /* as the launch */
    const smk::SgemmConfigEntry &c = smk::kConfigs[ch.config];
    const int rc = c.plan(layout, plan);
    if (rc != 0)
        return rc;
    /* Every K slice is a grid of output tiles; slices but the last are k_chunk deep (whole k-tiles).
     * The split-K reduction uses no shared memory, so this is the launch's whole shared traffic. */
    const long long tiles = (M == 0 || N == 0) ? 0 : c.blocks(M, N);
    const long long full = (long long)(ch.splits - 1), last_k = K - full * ch.k_chunk;
    const long long ktiles = full * (ch.k_chunk / c.bk) + (last_k + c.bk - 1) / c.bk;
    plan->blocks = tiles * ch.splits;
    /* Loads: every k-tile.  Stores: every k-tile plus one (each block of each K slice stores after its
     * last tile too, into a stage it does not read again: sgemm_kernel's main loop).  The config's
     * last `once_accesses` accesses: once per block and K slice. */
    const long long slices = K > 0 ? ch.splits : 0;
    for (int a = 0; a < plan->n; a++) {
        const smk_access &x = plan->acc[a];
        plan->acc[a].repeats = a >= plan->n - c.once_accesses
                                   ? tiles * slices
                                   : tiles * (ktiles + (c.store_after_last && x.is_store ? slices : 0));
    }
    const size_t used = strlen(plan->config);
    snprintf(plan->config + used, sizeof plan->config - used, ", splits %d", ch.splits);
    return 0;
}
