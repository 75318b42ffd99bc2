/*
 * sgemm_skinny.cuh -- memory-bound SGEMM kernels for matrix-vector-like shapes (issue 11), included by
 * sgemm.cu after its helpers (load4, store4, clamp04, SgemmSlice) and registered as tile configs in
 * its kConfigs table, so a forced config, split-K (SgemmSlice + sgemm_launch_split's workspace and
 * reduction), smk_sgemm_plan and explain() work for them as for the warp-tiled kernel.
 *
 *   D = alpha * A @ B + beta * C      float32, row-major, leading dimensions in elements
 *
 * With M (or N) tiny, D = A @ B moves K*N (or M*K) floats of one operand for 2*M*N*K flops: at M = 1
 * that is 2 flops per 4 bytes, so the ceiling is DRAM bandwidth, and a 64x64 tile wastes 63/64 of its
 * FMAs and, worse, keeps few loads in flight.  These kernels stream the big operand straight from
 * global memory into registers, many independent 16-byte loads per thread (memory-level parallelism
 * is what reaches the bandwidth), and keep only the small operand's slice in shared memory.
 *
 * skinny-M (small M):  block tile MS rows x BN = 4*THREADS columns; thread t owns D columns
 *   bn + 4t .. +3 of all MS rows (MS x 4 accumulators).  Per k it loads B[k][bn+4t .. +3] (float4;
 *   a warp reads 512 contiguous bytes of a B row), U rows of k per batch, all U loads issued before
 *   the first is used.  A's MS x BK slice is staged in shared memory UNTRANSPOSED, As[m][k] (each
 *   thread loads one float4 along k of one A row and stores it as one STS.128), double-buffered with
 *   the next slice's global load in flight during the multiply, one barrier per k-tile; the multiply
 *   reads As[m][k..k+3] with LDS.128 where every lane of the warp names the same address.
 *
 * skinny-N (small N):  block tile BM = R*(THREADS/32) rows x NS columns; warp w owns rows
 *   bm + R*w .. +R-1, and lane l streams those rows of A along k with float4 loads at k = 128*s + 4*l
 *   (a warp reads 512 contiguous bytes of each A row per step s), STEPS*R loads in flight per thread
 *   per k-tile.  B's BK x NS slice is staged TRANSPOSED, Bs[n][k], so that lane l reads its 4 k of
 *   column n as one LDS.128; each read serves R rows of A.  Every lane ends with R x NS partial sums
 *   over its own k; a reduce-scatter of XOR shuffles (31 shuffles for 32 sums, no shared memory: the
 *   plan's per-k-tile traffic is the whole launch's) leaves lane l holding the finished sum
 *   number l = r*NS + n, which it writes.
 *
 * Both take any M, N, K, leading dimensions and alignment (VEC as in sgemm_kernel: float4 global
 * access when every pointer is 16-byte aligned and every leading dimension a multiple of 4, else
 * predicated scalars), tile M (N) in MS-row (NS-column) blocks of the grid so any M (N) is correct,
 * honour SgemmSlice (block z = blockIdx.y runs k in [z*k_chunk, min(K, (z+1)*k_chunk)) and writes to
 * D + z*d_stride), and apply alpha / beta as store4 does (C read only when beta != 0, C may alias D).
 * Every shared-memory instruction is issued for every k-tile whatever the predicates (out-of-range
 * elements are zeros), so the per-k-tile plan below is exact on edge tiles and the last k-tile too.
 *
 * ---- Bank arithmetic (32 banks x 4 bytes; offsets in floats, bank = offset mod 32) ----
 * Both slices use smk_sgemm_tile(layout, log2 BK): rows of BK floats (BK a multiple of 32), float4
 * access.  naive: r*BK + c.  pad: r*(BK+4) + c, bank = 4r + c.  swizzle (Swizzle<1,4,log2 BK - 2>):
 * bit 2 of the row r flips bit 4 of the column (which 16-float half of a 128-byte group).
 *
 * skinny-M A store (STS.128).  Thread t stores As[m][kc], m = t / (BK/4), kc = 4*(t % (BK/4)):
 *   a quarter warp (8 lanes) writes 8 consecutive float4 of one row, a 128-byte aligned group of 32
 *   consecutive floats in naive and pad (rows start at multiples of BK resp. BK+4 and the group at a
 *   multiple of 32 columns), and in swizzle the same group with its two halves swapped or not:
 *   32 distinct banks, 4 wavefronts per warp (the minimum for 512 bytes) in every layout.
 * skinny-M A read (LDS.128): every lane names As[m][k], one address: a broadcast, 2 wavefronts (the
 *   16-byte broadcast minimum, bank_model.c) in every layout.  No layout has anything to fix in this
 *   kernel: its shared traffic is MS*BK floats in and out per k-tile against BK*BN floats of B from
 *   global memory, and its access patterns are conflict-free as they stand.  explain() says so.
 *
 * skinny-N B store (transposed, four scalar STS per float4, the interesting one).  Load j of thread
 * t covers float4 idx = j*THREADS + t of the slice, k = idx / 2, n = 4*(idx % 2) (NS = 8: two float4
 * per B row; a lane pair reads one 32-byte sector of a B row).  A warp's 32 lanes hold k = k0..k0+15
 * (k0 = 0 mod 16) x the two float4 columns; scalar store e (0..3) writes Bs[n + e][k] for rows e and
 * 4 + e, columns k0..k0+15:
 *   naive:   bank = k mod 32: the two lanes with the same k (rows e and 4+e) hit one bank with
 *            different addresses -> 2-way conflict, 2 wavefronts per STS (16 banks used).
 *   pad:     bank = 4r + k: rows e and 4+e differ by 16 banks, and k0..k0+15 is one half of 32 ->
 *            32 distinct banks, 1 wavefront.
 *   swizzle: rows e and 4+e differ in bit 2, so the second's k0..k0+15 (an aligned 16-float half) is
 *            moved to the other half of its 32-float group -> 32 distinct banks, 1 wavefront.
 * skinny-N B read (LDS.128): lane l reads Bs[n][128 s + 4 l .. +3]: each quarter warp reads 32
 *   consecutive floats of one row, 128-byte aligned (swizzle: with its halves swapped or not) ->
 *   32 distinct banks per quarter, 4 wavefronts per warp, the minimum, in every layout.
 * So: skinny-N naive = 2-way on the transposed B store (the same conflict as sgemm_kernel's A store),
 * pad and swizzle conflict-free everywhere; skinny-M conflict-free in every layout.
 */
#ifndef SMK_SGEMM_SKINNY_CUH
#define SMK_SGEMM_SKINNY_CUH

namespace smk {

/* ---- configs -------------------------------------------------------------------------------------- */

/*
 * MS        rows of D per block (the M tile); an M above MS takes ceil(M / MS) tiles along the grid.
 * BK        k-tile: the depth of one staged A slice (one barrier per k-tile); a multiple of U.
 * U         B rows loaded per batch: U independent 16-byte loads in flight per thread.
 * THREADS   threads per block; the block covers BN = 4*THREADS columns.
 * MINBLOCKS __launch_bounds__ min blocks per SM (caps registers at 65536 / (THREADS * MINBLOCKS)).
 */
template <int MS_, int BK_, int U_, int THREADS_, int MINBLOCKS_>
struct SkinnyMCfg {
    static constexpr int MS = MS_, BK = BK_, U = U_, THREADS = THREADS_, MINBLOCKS = MINBLOCKS_;
    static constexpr int BN = 4 * THREADS, STAGES = 2;
    static constexpr int TILE_M = MS, TILE_N = BN; /* the output tile of one block */
    static constexpr int A_LOADS = MS * BK / 4 / THREADS; /* float4 of A per thread per k-tile */
    static constexpr int LOG2_BK = ilog2(BK);
    static_assert(is_pow2(BK) && BK >= 32, "layout.h tiles have 2^k columns; a quarter warp's store fills 32");
    static_assert(BK % U == 0 && U % 4 == 0, "batches of U rows, read from As in float4 of k");
    static_assert(A_LOADS >= 1 && A_LOADS * 4 * THREADS == MS * BK, "the A slice splits evenly in float4");
    static_assert(THREADS % 32 == 0, "whole warps");
};

/*
 * NS        columns of D per block (the N tile); an N above NS takes ceil(N / NS) tiles.  8: the B
 *           store map below (two float4 per B row) is what the bank arithmetic in the header is for.
 * R         rows of A per warp: one LDS.128 of B serves R rows; R * NS = 32 partial sums per lane, so
 *           the reduce-scatter leaves exactly one finished sum per lane.
 * BK        k-tile (a multiple of 128: a warp covers 128 k per float4 load).
 * THREADS   threads per block; the block covers BM = R * THREADS / 32 rows.
 * MINBLOCKS __launch_bounds__ min blocks per SM.
 */
template <int NS_, int R_, int BK_, int THREADS_, int MINBLOCKS_>
struct SkinnyNCfg {
    static constexpr int NS = NS_, R = R_, BK = BK_, THREADS = THREADS_, MINBLOCKS = MINBLOCKS_;
    static constexpr int BM = R * (THREADS / 32), STAGES = 2;
    static constexpr int TILE_M = BM, TILE_N = NS;
    static constexpr int STEPS = BK / 128;                 /* float4 loads per A row per k-tile */
    static constexpr int B_LOADS = BK * NS / 4 / THREADS;  /* float4 of B per thread per k-tile */
    static constexpr int LOG2_BK = ilog2(BK);
    static_assert(NS == 8, "the B store map (two float4 per B row, 16 k per warp) is made for NS = 8");
    static_assert(R * NS == 32, "the reduce-scatter leaves one sum per lane");
    static_assert(is_pow2(BK) && BK % 128 == 0, "a warp's float4 loads cover 128 k");
    static_assert(B_LOADS >= 1 && B_LOADS * 4 * THREADS == BK * NS, "the B slice splits evenly in float4");
    static_assert(THREADS % 32 == 0, "whole warps");
};

/* Registers (ptxas, sm_90): skinny-m 120..128, no spills (U = 16 spilled at the 128 cap of 4 blocks);
 * skinny-n 154..168, 3 blocks per SM (at the 128 cap of 4 blocks it spilled 4..60 bytes); its swizzle
 * build with float4 loads sits at the 168 cap and spills 44 bytes (nvcc 13.0; the tree before the
 * streamed loads did too).
 * Loads in flight per SM at that occupancy: 4 x 128 x 8 x 16 B = 64 KB (skinny-m), 3 x 128 x 8 x 16 B =
 * 48 KB (skinny-n), about twice the bandwidth-latency product of one H100 SM (3.35 TB/s / 132 SMs x
 * ~0.8 us = 20 KB), so the barrier each k-tile costs a block need not cost the SM its bandwidth.
 *                         MS  BK  U THREADS MINB */
using SkinnyM = SkinnyMCfg<8, 64, 8, 128, 4>;  /* M <= 8 in one tile: 8 x 4 outputs per thread */
/*                         NS  R  BK THREADS MINB */
using SkinnyN = SkinnyNCfg<8, 4, 256, 128, 3>; /* N <= 8 in one tile: 4 rows x 2 steps = 8 loads per k-tile */

/* Which element each thread touches: shared by the kernels and their plans (as SgemmMap). */
template <class Cfg>
struct SkinnyMMap {
    /* A load j of thread tid: slice row m and first k (4 consecutive k follow); a row's BK/4 float4
     * are consecutive threads. */
    SMK_HD static void a_load(int j, int tid, int *m, int *kc)
    {
        const int idx = j * Cfg::THREADS + tid;
        *m = idx / (Cfg::BK / 4);        /* [0, MS) */
        *kc = (idx % (Cfg::BK / 4)) * 4; /* [0, BK), multiple of 4 */
    }
    /* First of the thread's 4 columns of the block tile. */
    SMK_HD static int b_col(int tid) { return 4 * tid; } /* [0, BN) */
};

template <class Cfg>
struct SkinnyNMap {
    /* B load j of thread tid: slice row k and first column n (4 consecutive n follow). */
    SMK_HD static void b_load(int j, int tid, int *k, int *n)
    {
        const int idx = j * Cfg::THREADS + tid;
        *k = idx / (Cfg::NS / 4);       /* [0, BK) */
        *n = (idx % (Cfg::NS / 4)) * 4; /* [0, NS), multiple of 4 */
    }
    /* First k (4 consecutive follow) that lane `lane` reads in step s of a k-tile. */
    SMK_HD static int a_k(int lane, int s) { return 128 * s + 4 * lane; } /* [0, BK) */
};

/* ---- skinny-M kernel ------------------------------------------------------------------------------ */

/*
 * Cfg     SkinnyMCfg.   LAYOUT  smk_layout of the A slice.   VEC  as sgemm_kernel.
 * p       validated by smk_sgemm_launch (M, N > 0; K == 0 when alpha == 0).
 * slice   the K range of blockIdx.y and where its tile goes.
 */
template <class Cfg, int LAYOUT, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINBLOCKS)
    skinny_m_kernel(const smk_sgemm_params p, const SgemmSlice slice)
{
    constexpr int MS = Cfg::MS, BK = Cfg::BK, U = Cfg::U, A_LOADS = Cfg::A_LOADS;
    constexpr smk_tile TA = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BK); /* As: MS rows (m) x BK cols (k) */
    constexpr int A_ELEMS = smk_tile_elems(TA, MS);                /* a multiple of 4: float4 rows */
    pdl_allow_dependents(); /* sgemm.cu: the split's reduction may be scheduled */
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

    using Map = SkinnyMMap<Cfg>;
    const int tid = threadIdx.x;
    const int col = bn + Map::b_col(tid);
    const int nvalid = clamp04(N - col);
    const float *bp = p.B + (int64_t)kbeg * p.ldb + (nvalid > 0 ? col : 0);

    int a_m[A_LOADS], a_kc[A_LOADS];
    bool a_mok[A_LOADS];
    const float *a_ptr[A_LOADS];
#pragma unroll
    for (int j = 0; j < A_LOADS; ++j) {
        Map::a_load(j, tid, &a_m[j], &a_kc[j]);
        a_mok[j] = bm + a_m[j] < M;
        a_ptr[j] = p.A + (int64_t)(a_mok[j] ? bm + a_m[j] : 0) * p.lda + kbeg + a_kc[j];
    }
    float4 ra[A_LOADS];
    auto load_a = [&](int k0) {
#pragma unroll
        for (int j = 0; j < A_LOADS; ++j)
            ra[j] = load4<VEC>(a_ptr[j] + k0, a_mok[j] ? clamp04(klen - (k0 + a_kc[j])) : 0);
    };
    auto store_a = [&](int st) {
        float *As = smem + st * A_ELEMS;
#pragma unroll
        for (int j = 0; j < A_LOADS; ++j)
            *reinterpret_cast<float4 *>(&As[smk_tile_offset(TA, a_m[j], a_kc[j])]) = ra[j];
    };

    float acc[MS][4];
#pragma unroll
    for (int m = 0; m < MS; ++m)
        acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = 0.f;

    /* Multiply the k-tile at k0 (from the slice's start) with the A slice in stage st.  Every lane
     * reads the same As address (a broadcast); B comes from global memory, U rows per batch. */
    auto compute = [&](int st, int k0) {
        const float *As = smem + st * A_ELEMS;
        const bool full = nvalid == 4 && k0 + BK <= klen;
        /* Not unrolled: unrolled, the compiler hoists every batch's loads to the top of the k-tile
         * (BK float4 = 4 * BK registers) and spills. */
#pragma unroll 1
        for (int kb = 0; kb < BK; kb += U) {
            float4 b[U];
            if (full) {
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
        bp += (int64_t)BK * p.ldb;
    };

    /* ---- main loop: prefetch A(kt+1) -> multiply kt -> park A(kt+1) in the other stage -> sync ---- */
    const int ktiles = (klen + BK - 1) / BK;
    if (ktiles > 0) {
        load_a(0);
        store_a(0);
        __syncthreads();
    }
    auto step = [&](auto st_tag, int kt) {
        constexpr int ST = decltype(st_tag)::value;
        const bool more = kt + 1 < ktiles;
        if (more) load_a((kt + 1) * BK);
        compute(ST, kt * BK);
        store_a(ST ^ 1); /* unconditional, as sgemm_kernel's: no predicated-off store for ncu to count */
        __syncthreads();
    };
    sgemm_stage_loop(ktiles, step);

    /* ---- epilogue: D = alpha*acc + beta*C (C not read when beta == 0) ---- */
    const float alpha = p.alpha, beta = p.beta;
#pragma unroll
    for (int m = 0; m < MS; ++m) {
        const int row = bm + m;
        if (row >= M) continue;
        float *d = p.D + blockIdx.y * slice.d_stride + (int64_t)row * p.ldd + col;
        const float *c = p.C + (int64_t)row * p.ldc + col; /* formed only; read only if beta != 0 */
        store4<VEC>(d, c, make_float4(acc[m][0], acc[m][1], acc[m][2], acc[m][3]), alpha, beta, N - col);
    }
}

/* ---- skinny-N kernel ------------------------------------------------------------------------------ */

/* v[0..V) of every lane -> lane l returns the warp's sum of v[l] (V == 32).  Step o (16, 8, .., 1):
 * a lane keeps the half of its values picked by bit o of its lane and adds its partner's copy of that
 * half; after five steps value index = lane.  31 shuffles for 32 sums, a fixed tree: the result does
 * not depend on timing. */
template <int V>
__device__ __forceinline__ float reduce_scatter32(float (&v)[V])
{
    static_assert(V == 32, "one value per lane at the end");
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int step = 0; step < 5; ++step) {
        const int h = 16 >> step;           /* 16, 8, 4, 2, 1: the values kept, and the lane offset */
        const bool upper = (lane & h) != 0;
#pragma unroll
        for (int i = 0; i < V / 2; ++i) { /* bound fixed so that v stays in registers (no local array) */
            if (i >= h) continue;
            const float send = upper ? v[i] : v[i + h], keep = upper ? v[i + h] : v[i];
            v[i] = keep + __shfl_xor_sync(0xffffffffu, send, h);
        }
    }
    return v[0];
}

template <class Cfg, int LAYOUT, bool VEC>
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

    using Map = SkinnyNMap<Cfg>;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

    /* Row r of the warp is at a_row + r*lda; rows past M are formed but never read (valid 0). */
    const int m0 = bm + warp * R;
    const float *const a_row = p.A + (int64_t)(m0 < M ? m0 : 0) * p.lda + kbeg + Map::a_k(lane, 0);
    int b_k[B_LOADS], b_n[B_LOADS], b_nvalid[B_LOADS];
    const float *b_ptr[B_LOADS];
#pragma unroll
    for (int j = 0; j < B_LOADS; ++j) {
        Map::b_load(j, tid, &b_k[j], &b_n[j]);
        b_nvalid[j] = clamp04(N - (bn + b_n[j]));
        b_ptr[j] = p.B + (int64_t)(kbeg + b_k[j]) * p.ldb + (b_nvalid[j] > 0 ? bn + b_n[j] : 0);
    }
    const bool rows_in = bm + Cfg::BM <= M, cols_in = bn + NS <= N;

    float4 rb[B_LOADS];
    auto load_b = [&](int k0) {
        if (cols_in && k0 + BK <= klen) {
#pragma unroll
            for (int j = 0; j < B_LOADS; ++j) rb[j] = load4<VEC>(b_ptr[j], 4);
        } else {
#pragma unroll
            for (int j = 0; j < B_LOADS; ++j) rb[j] = load4<VEC>(b_ptr[j], k0 + b_k[j] < klen ? b_nvalid[j] : 0);
        }
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j) b_ptr[j] += (int64_t)BK * p.ldb;
    };
    /* Registers -> stage st, transposed: four scalar stores per float4. */
    auto store_b = [&](int st) {
        float *Bs = smem + st * B_ELEMS;
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j) {
            Bs[smk_tile_offset(TB, b_n[j] + 0, b_k[j])] = rb[j].x;
            Bs[smk_tile_offset(TB, b_n[j] + 1, b_k[j])] = rb[j].y;
            Bs[smk_tile_offset(TB, b_n[j] + 2, b_k[j])] = rb[j].z;
            Bs[smk_tile_offset(TB, b_n[j] + 3, b_k[j])] = rb[j].w;
        }
    };

    float acc[R * NS];
#pragma unroll
    for (int i = 0; i < R * NS; ++i) acc[i] = 0.f;

    float4 ra[STEPS][R];
    /* Issue the k-tile's A loads (STEPS * R per thread, all in flight together). */
    auto load_a = [&](int k0) {
        if (rows_in && k0 + BK <= klen) {
#pragma unroll
            for (int s = 0; s < STEPS; ++s)
#pragma unroll
                for (int r = 0; r < R; ++r) ra[s][r] = load4<VEC, true>(a_row + r * p.lda + k0 + 128 * s, 4);
        } else {
#pragma unroll
            for (int s = 0; s < STEPS; ++s)
#pragma unroll
                for (int r = 0; r < R; ++r)
                    ra[s][r] = load4<VEC, true>(a_row + r * p.lda + k0 + 128 * s,
                                                m0 + r < M ? clamp04(klen - (k0 + Map::a_k(lane, s))) : 0);
        }
    };
    /* Multiply: one LDS.128 of Bs[n][k..k+3] serves the R rows. */
    auto compute = [&](int st) {
        const float *Bs = smem + st * B_ELEMS;
#pragma unroll
        for (int s = 0; s < STEPS; ++s)
#pragma unroll
            for (int n = 0; n < NS; ++n) {
                const float4 b = *reinterpret_cast<const float4 *>(&Bs[smk_tile_offset(TB, n, Map::a_k(lane, s))]);
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    float &c = acc[r * NS + n];
                    c = fmaf(ra[s][r].x, b.x, c);
                    c = fmaf(ra[s][r].y, b.y, c);
                    c = fmaf(ra[s][r].z, b.z, c);
                    c = fmaf(ra[s][r].w, b.w, c);
                }
            }
    };

    /* ---- main loop: A(kt) and B(kt+1) in flight -> multiply kt -> park B(kt+1) -> sync ---- */
    const int ktiles = (klen + BK - 1) / BK;
    if (ktiles > 0) {
        load_b(0);
        store_b(0);
        __syncthreads();
    }
    auto step = [&](auto st_tag, int kt) {
        constexpr int ST = decltype(st_tag)::value;
        const bool more = kt + 1 < ktiles;
        load_a(kt * BK);
        if (more) load_b((kt + 1) * BK);
        compute(ST);
        store_b(ST ^ 1); /* unconditional, as sgemm_kernel's: no predicated-off store for ncu to count */
        __syncthreads();
    };
    sgemm_stage_loop(ktiles, step);

    /* ---- epilogue: the warp's R x NS sums, one per lane; D = alpha*sum + beta*C as store4 ---- */
    const float sum = reduce_scatter32(acc);
    const int m = bm + warp * R + lane / NS, n = bn + lane % NS;
    if (m < M && n < N) {
        float v = p.alpha * sum;
        if (p.beta != 0.f) v = fmaf(p.beta, p.C[(int64_t)m * p.ldc + n], v); /* plain load: C may alias D */
        p.D[blockIdx.y * slice.d_stride + (int64_t)m * p.ldd + n] = v;
    }
}

/* ---- launchers ------------------------------------------------------------------------------------ */

/* Blocks in the grid of a skinny config for an M x N output (0 if it does not fit a 1-D grid). */
template <class Cfg>
inline long long skinny_blocks(int64_t M, int64_t N)
{
    const long long b = ((M + Cfg::TILE_M - 1) / Cfg::TILE_M) * ((N + Cfg::TILE_N - 1) / Cfg::TILE_N);
    return b <= INT_MAX ? b : 0;
}

/* One launch of a skinny kernel instantiation: grid (tiles, splits), static shared memory. */
template <class Cfg, bool IS_M, int LAYOUT, bool VEC>
int skinny_launch_cfg(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    const long long blocks = skinny_blocks<Cfg>(q.M, q.N);
    if (blocks <= 0 || splits < 1 || splits > 65535) return (int)cudaErrorInvalidValue;
    const dim3 grid((unsigned)blocks, (unsigned)splits);
    if constexpr (IS_M)
        skinny_m_kernel<Cfg, LAYOUT, VEC><<<grid, Cfg::THREADS, 0, stream>>>(q, slice);
    else
        skinny_n_kernel<Cfg, LAYOUT, VEC><<<grid, Cfg::THREADS, 0, stream>>>(q, slice);
    return (int)cudaGetLastError();
}

template <class Cfg, bool IS_M, bool VEC>
int skinny_launch_layout(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    switch (q.layout) {
    case SMK_NAIVE: return skinny_launch_cfg<Cfg, IS_M, SMK_NAIVE, VEC>(q, slice, splits, stream);
    case SMK_PAD: return skinny_launch_cfg<Cfg, IS_M, SMK_PAD, VEC>(q, slice, splits, stream);
    case SMK_SWIZZLE: return skinny_launch_cfg<Cfg, IS_M, SMK_SWIZZLE, VEC>(q, slice, splits, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

/* The kConfigs launcher (cfg_launch_fn) of a skinny config. */
template <class Cfg, bool IS_M>
int skinny_launch_any(const smk_sgemm_params &q, bool vec, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    return vec ? skinny_launch_layout<Cfg, IS_M, true>(q, slice, splits, stream)
               : skinny_launch_layout<Cfg, IS_M, false>(q, slice, splits, stream);
}

/* ---- host replay of one block's shared-memory instructions per k-tile (smk_sgemm_plan) ------------ */

inline void skinny_plan_access(smk_access *acc, const char *name, int width, int is_store, int n_instr)
{
    acc->name = name;
    acc->width = width;
    acc->is_store = is_store;
    acc->kind = SMK_ACC_LDST;
    acc->n_instr = n_instr;
}

template <class Cfg>
int skinny_m_block_plan(int layout, smk_plan *plan)
{
    using Map = SkinnyMMap<Cfg>;
    const smk_tile TA = smk_sgemm_tile(layout, Cfg::LOG2_BK);
    const int a_elems = smk_tile_elems(TA, Cfg::MS), warps = Cfg::THREADS / 32;
    if (a_elems % 32 != 0) /* stage 1 on the same banks as stage 0: one stage stands for both */
        return -1;
    const int reads = (Cfg::BK / 4) * Cfg::MS; /* LDS.128 per warp per k-tile */
    skinny_plan_access(&plan->acc[0], "A-slice store (STS.128, As[m][k] untransposed)", 16, 1, warps * Cfg::A_LOADS);
    skinny_plan_access(&plan->acc[1], "A broadcast load (LDS.128, one address per warp)", 16, 0, warps * reads);
    if (plan->acc[0].addr && plan->acc[1].addr)
        for (int w = 0; w < warps; w++)
            for (int lane = 0; lane < 32; lane++) {
                const int tid = w * 32 + lane;
                long long *st = plan->acc[0].addr + (long long)w * Cfg::A_LOADS * 32 + lane;
                for (int j = 0; j < Cfg::A_LOADS; j++) {
                    int m = 0, kc = 0;
                    Map::a_load(j, tid, &m, &kc);
                    st[j * 32] = 4LL * smk_tile_offset(TA, m, kc);
                }
                /* The kernel's order: batches of U k, groups of 4 k, rows m. */
                long long *ld = plan->acc[1].addr + (long long)w * reads * 32 + lane;
                int i = 0;
                for (int kb = 0; kb < Cfg::BK; kb += Cfg::U)
                    for (int k4 = 0; k4 < Cfg::U; k4 += 4)
                        for (int m = 0; m < Cfg::MS; m++, i++)
                            ld[i * 32] = 4LL * smk_tile_offset(TA, m, kb + k4);
            }
    plan->n = 2;
    plan->threads = Cfg::THREADS;
    plan->smem_bytes = Cfg::STAGES * a_elems * (int)sizeof(float);
    snprintf(plan->config, sizeof plan->config, "skinny-M %dx%dx%d block tile, %d threads, %dx4 per thread",
             Cfg::MS, Cfg::BN, Cfg::BK, Cfg::THREADS, Cfg::MS);
    return 0;
}

template <class Cfg>
int skinny_n_block_plan(int layout, smk_plan *plan)
{
    using Map = SkinnyNMap<Cfg>;
    const smk_tile TB = smk_sgemm_tile(layout, Cfg::LOG2_BK);
    const int b_elems = smk_tile_elems(TB, Cfg::NS), warps = Cfg::THREADS / 32;
    if (b_elems % 32 != 0)
        return -1;
    const int stores = Cfg::B_LOADS * 4, reads = Cfg::STEPS * Cfg::NS; /* per warp per k-tile */
    skinny_plan_access(&plan->acc[0], "B-slice store (transposed, 4 x STS.32 per float4)", 4, 1, warps * stores);
    skinny_plan_access(&plan->acc[1], "B load (LDS.128, Bs[n][k..k+3])", 16, 0, warps * reads);
    if (plan->acc[0].addr && plan->acc[1].addr)
        for (int w = 0; w < warps; w++)
            for (int lane = 0; lane < 32; lane++) {
                const int tid = w * 32 + lane;
                long long *st = plan->acc[0].addr + (long long)w * stores * 32 + lane;
                for (int j = 0, i = 0; j < Cfg::B_LOADS; j++) {
                    int k = 0, n = 0;
                    Map::b_load(j, tid, &k, &n);
                    for (int e = 0; e < 4; e++, i++)
                        st[i * 32] = 4LL * smk_tile_offset(TB, n + e, k);
                }
                long long *ld = plan->acc[1].addr + (long long)w * reads * 32 + lane;
                for (int s = 0, i = 0; s < Cfg::STEPS; s++)
                    for (int n = 0; n < Cfg::NS; n++, i++)
                        ld[i * 32] = 4LL * smk_tile_offset(TB, n, Map::a_k(lane, s));
            }
    plan->n = 2;
    plan->threads = Cfg::THREADS;
    plan->smem_bytes = Cfg::STAGES * b_elems * (int)sizeof(float);
    snprintf(plan->config, sizeof plan->config, "skinny-N %dx%dx%d block tile, %d threads, %d rows per warp",
             Cfg::BM, Cfg::NS, Cfg::BK, Cfg::THREADS, Cfg::R);
    return 0;
}

} /* namespace smk */

#endif /* SMK_SGEMM_SKINNY_CUH */
