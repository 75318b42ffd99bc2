/*
 * The Hopper GEMM kernel (sm_90a): a 128 x 256 block tile, BK = 64, a 4-stage TMA -> mbarrier ring,
 * 3 warpgroups: warpgroup 0 the producer (one thread issues the TMA boxes; setmaxnreg.dec to 40),
 * warpgroups 1 and 2 the consumers (rows 0-63 and 64-127 of the tile; setmaxnreg.inc to 232), each
 * issuing wgmma.mma_async m64n256k16 with A and B read from shared memory through descriptors.
 *
 * Tparams:  SWB   swizzle width in bytes: 128 / 64 / 32 (TMA SWIZZLE_128B/64B/32B), 0 = none
 *           BF16  bf16 (else fp16) inputs, fp32 accumulators either way.
 *
 * Shared memory of one stage, in "slabs" (the only thing the mode changes): W = SWB/2 elements
 * (8 for none) is one slab row, SWB bytes (16 for none).
 *   A (BM x BK, K contiguous)  BK/W slabs of BM rows x W elems: slab j = TMA box {W, BM} at (k0 + jW, m0)
 *   B (BK x BN, N contiguous)  BN/W slabs of BK rows x W elems: slab j = TMA box {W, BK} at (n0 + jW, k0)
 * TMA writes each box row-major, XOR-ing byte-address bits [4, 4+log2(SWB/16)) with bits [7, ...):
 * CuTe Swizzle<1|2|3,4,3> on bytes = smemkit Swizzle(1|2|3,3,3) on 2-byte element indices; the same
 * mode in the descriptor makes wgmma undo it.  Every slab starts on 1024 bytes (the 128B atom, 8 rows
 * x 128 B), so the descriptors' base offset is 0.
 *
 * Descriptors, from the canonical layouts (PTX ISA "shared memory matrix layout"; CUTLASS
 * make_gmma_desc, in 16-byte units, T = 8 elements):
 *   A is K-major (trans-a 0).  Swizzled: ((8,m),(T,2)):((SW/16,SBO),(1,T)) -- 8 rows of SWB bytes,
 *     8-row groups SBO = 8*SWB apart, LBO unused (1 as CUTLASS).  The k16 step kk starts at element
 *     k0 = 16kk: slab k0/W, byte (k0%W)*2 inside the row (the hardware swizzles the absolute address,
 *     so advancing the start inside a 1024-aligned atom is exact).  Interleaved: ((8,m),2):((1,SBO),LBO)
 *     -- an 8 x 16 B core matrix is 128 contiguous bytes (one slab holds them stacked by rows):
 *     SBO = 128 (next 8 rows), LBO = the slab, BM*16 bytes (next 8 k).
 *   B is N-major = "MN-major", legal for 16-bit types only, with imm-trans-b = 1.  Swizzled:
 *     ((T,SW/16,n),(8,k)):((1,T,LBO),(SW/16,SBO)) -- along N, SWB bytes contiguous in one slab row and
 *     then the next slab: LBO = the slab, BK*SWB bytes; along K, 8 rows of SWB bytes and then the next
 *     8: SBO = 8*SWB.  Interleaved: ((T,1,n),(8,k)):((1,T,SBO),(1T,LBO)) -- the core matrix is 8 k-rows
 *     x 16 B, contiguous in one slab; next 8 columns = next slab: SBO = BK*16; next 8 k: LBO = 128.
 *     The k16 step kk starts 16 rows down every slab: + 16kk*SWB bytes (16kk*16 for none).
 *
 * Ring: full[s] (count 1: the producer's arrive.expect_tx, then TMA's complete_tx of the stage's
 * 48 KB, out-of-bounds zero-fill included) and empty[s] (count 2: one arrive per consumer warpgroup
 * once its wgmmas reading stage s have retired: wait_group 1 after committing k-tile t retires t-1).
 *
 * Persistent grid: min(tiles, SMs) blocks; block b computes tiles b, b + gridDim.x, ... in the
 * GROUP_M-grouped order of common/raster.cuh (16 block-rows per band: a wave of 132 tiles of 128 x 256
 * then reads ~2048 rows of A and ~2112 columns of B, a square L2 footprint).  Producer and consumers
 * count k-tiles with one running counter `it` across tiles, so stage = it % STAGES and the parity of
 * round it / STAGES carry over tile boundaries: the producer runs ahead into the next tile's k-tiles
 * while the consumers store C (TMA overlaps the epilogue; the wgmmas do not).  Every wait is a raw
 * mbarrier.try_wait.parity spin on that parity (ptx.cuh bar_wait).
 *
 * Epilogue: where D is 2-byte, 16-byte aligned rows, beta == 0 (the common case), each warp stages its
 * 16 x 256 slab of D through a private 16 x 64 shared tile (4 chunks; smk_tile Swizzle<3,3,3>: 128-byte
 * rows, the 16-byte slot XORed with row & 7), then stores 16-byte vectors: a quarter-warp writes one
 * 128-byte row segment (4 whole lines per instruction, instead of 8 half-sectors of 16 bytes).
 *   STS (4-byte pairs):  lanes (r = lane/4 [0,7], q = lane%4) of one (jj, h) write slot jj ^ r, word q:
 *                        8 slots x 4 words = the 32 banks once: conflict-free.
 *   LDS.128:             a quarter-warp reads the 8 slots of one row: 128 bytes, one wavefront.
 * Otherwise (fp32 D, beta != 0, unaligned D) the register epilogue of gemm16/epilogue.cuh.
 *
 * Bank note (ncu on an H100, every mode, tests/data/ncu_wgmma_h100.csv): wgmma reads one 8 x 16-byte
 * core matrix per wavefront, 80 per m64n256k16 (A 16 + B 64), with no bank conflict in any mode -- the
 * canonical layouts put a core matrix's 8 rows on 8 distinct 16-byte bank groups whatever the swizzle
 * (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma, ..._bank_conflicts_..._op_gmma = 0); explain
 * decodes a_desc / b_desc into those core matrices (smemkit/_wgmma_plan.py).  TMA's async-proxy writes
 * are no LSU access: ncu shows them only as l1tex__data_bank_writes (bytes / 4 in every mode).  The
 * modes differ in TMA's work: 5 / 10 / 20 / 40 boxes per stage of 128 / 64 / 32 / 16-byte rows, and
 * with no swizzle every 16-byte row costs a whole 32-byte sector (twice the L2 -> L1 bytes).  The
 * staging tile is an LSU access from layout.h, conflict-free by the arithmetic above; explain replays it.
 */
#ifndef SMK_HOPPER_KERNEL_CUH
#define SMK_HOPPER_KERNEL_CUH

#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "common/raster.cuh"
#include "gemm16/epilogue.cuh"
#include "hopper/ptx.cuh"
#include "layout.h"

namespace smk {
namespace hop {

template <int SWB>
struct Cfg {
    static constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, THREADS = 384;
    static constexpr int W = SWB ? SWB / 2 : 8;            /* elements per slab row */
    static constexpr int ROWB = W * 2;                     /* bytes per slab row */
    static constexpr int A_SLABS = BK / W, B_SLABS = BN / W;
    static constexpr int A_SLAB = BM * ROWB, B_SLAB = BK * ROWB; /* bytes */
    static constexpr int A_BYTES = BM * BK * 2, B_BYTES = BK * BN * 2, STAGE = A_BYTES + B_BYTES;
    static constexpr int LAYOUT_TYPE = SWB == 128 ? 1 : SWB == 64 ? 2 : SWB == 32 ? 3 : 0;
    static constexpr int GROUP_M = 16;                      /* block-rows per raster band */
    static constexpr int STG_ROWS = 16, STG_COLS = 64;      /* one warp's epilogue staging tile */
    static constexpr int STG_BYTES = STG_ROWS * STG_COLS * 2, STG = 8 * STG_BYTES; /* 8 consumer warps */
    static constexpr int SMEM = STAGES * STAGE + STG + 2 * STAGES * 8 + 1024; /* + barriers + align slack */
    static_assert(SWB == 0 || SWB == 32 || SWB == 64 || SWB == 128, "TMA swizzle widths");
    static_assert(A_SLAB % 1024 == 0 && B_SLAB % 1024 == 0 && STAGE % 1024 == 0, "1024-aligned atoms: base offset 0");
    static_assert(W <= 256 && BM <= 256 && BK <= 256, "TMA box dimensions are at most 256");
    static_assert((STAGES & (STAGES - 1)) == 0, "the k-tile counter wraps at 2^32: STAGES must divide it");
    static_assert(SMEM <= 227 * 1024, "one block per SM within sm_90's 227 KB");
};

/* The staging tile: 16 rows x 64 2-byte elements, 16-byte vectors, automatic swizzle = Swizzle<3,3,3>. */
constexpr smk_tile kStage = {SMK_SWIZZLE, 6, 3, 1, 0, 0, 0};

/* The persistent schedule: tiles_m x tiles_n output tiles, ktiles k-tiles each. */
struct Sched {
    int tiles_m, tiles_n, tiles, ktiles;
};

template <int GROUP_M>
__device__ __forceinline__ void tile_origin(const Sched &sc, int tile, int BM, int BN, int *m0, int *n0)
{
    int tm = 0, tn = 0;
    group_tile<GROUP_M, int>(tile, sc.tiles_m, sc.tiles_n, &tm, &tn);
    *m0 = tm * BM;
    *n0 = tn * BN;
}

template <int SWB>
__device__ __forceinline__ void produce(const CUtensorMap *ta, const CUtensorMap *tb, uint32_t ring, uint32_t bars,
                                        const Sched &sc)
{
    using C = Cfg<SWB>;
    prefetch_map(ta);
    prefetch_map(tb);
    uint32_t it = 0; /* k-tiles issued by this block so far, across its tiles */
    for (int tile = blockIdx.x; tile < sc.tiles; tile += gridDim.x) {
        int m0 = 0, n0 = 0;
        tile_origin<C::GROUP_M>(sc, tile, C::BM, C::BN, &m0, &n0);
        for (int t = 0; t < sc.ktiles; t++, it++) {
            const uint32_t s = it % C::STAGES;
            const uint32_t full = bars + 8 * s, empty = bars + 8 * (C::STAGES + s);
            bar_wait(empty, ((it / C::STAGES) & 1) ^ 1); /* round 0: the fresh barrier's phase "1" is done */
            bar_arrive_tx(full, C::STAGE);
            const uint32_t a = ring + s * C::STAGE, b = a + C::A_BYTES;
            const int k0 = t * C::BK;
#pragma unroll
            for (int j = 0; j < C::A_SLABS; j++)
                tma_load_2d(a + j * C::A_SLAB, ta, k0 + j * C::W, m0, full);
#pragma unroll
            for (int j = 0; j < C::B_SLABS; j++)
                tma_load_2d(b + j * C::B_SLAB, tb, n0 + j * C::W, k0, full);
        }
    }
}

/* The descriptors of k16 step kk (0..3) of one k-tile (header comment), stage at a (A) and b (B),
 * consumer warpgroup cw (rows 64cw .. 64cw+63).  The one place the descriptor arithmetic lives: the
 * kernel, bench/bank_probe/wgmma_probe.cu and (on the host) smk_wgmma_descs, which explain() decodes
 * into wgmma's shared-memory reads, all call these. */
template <int SWB>
__host__ __device__ __forceinline__ uint64_t a_desc(uint32_t a, int cw, int kk)
{
    using C = Cfg<SWB>;
    constexpr uint32_t lbo = SWB ? 16 : C::A_SLAB, sbo = SWB ? 8 * SWB : 128;
    const int k0 = kk * 16;
    return desc(a + (k0 / C::W) * C::A_SLAB + cw * 64 * C::ROWB + (k0 % C::W) * 2, lbo, sbo, C::LAYOUT_TYPE);
}

template <int SWB>
__host__ __device__ __forceinline__ uint64_t b_desc(uint32_t b, int kk)
{
    using C = Cfg<SWB>;
    constexpr uint32_t lbo = SWB ? C::B_SLAB : 128, sbo = SWB ? 8 * SWB : C::B_SLAB;
    return desc(b + kk * 16 * C::ROWB, lbo, sbo, C::LAYOUT_TYPE);
}

/* One k-tile of one consumer warpgroup (cw: rows 64cw .. 64cw+63 of the tile): 4 wgmma k16 steps. */
template <int SWB, bool BF16>
__device__ __forceinline__ void mma_tile(float (&d)[128], uint32_t a, uint32_t b, int cw)
{
#pragma unroll
    for (int kk = 0; kk < Cfg<SWB>::BK / 16; kk++)
        wgmma_n256<BF16>(d, a_desc<SWB>(a, cw, kk), b_desc<SWB>(b, kk));
}

/* The accumulator fragment of m64nNk16 (PTX "wgmma D fragment"): warp w of the warpgroup holds rows
 * 16w .. 16w+15; d[4j + e] is row 16w + lane/4 (+8 for e >= 2), column 8j + 2(lane%4) + e%2. */
template <bool BF16>
__device__ __forceinline__ void store_tile(const smk_gemm16_params &p, const float (&d)[128], int64_t row0,
                                          int64_t n0, int lane)
{
    const bool use_c = p.beta != 0.f, out32 = p.out_f32 != 0;
    const bool pair_ok = g16::pairs_aligned(p, use_c, out32);
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int64_t row = row0 + (lane >> 2) + 8 * h;
        if (row >= p.M)
            continue;
#pragma unroll
        for (int j = 0; j < 32; j++) {
            const int64_t col = n0 + 8 * j + 2 * (lane & 3);
            if (col >= p.N)
                continue;
            const float v0 = p.alpha * d[4 * j + 2 * h], v1 = p.alpha * d[4 * j + 2 * h + 1];
            const bool two = col + 1 < p.N;
            if (out32)
                g16::store_f32(p, row, col, v0, v1, two, pair_ok, use_c, p.beta);
            else
                g16::store_16<BF16>(p, row, col, v0, v1, two, pair_ok, use_c, p.beta);
        }
    }
}

/* The wide epilogue (header comment): warp slab rows row0 .. row0+15, columns n0 .. n0+255, through the
 * warp's staging tile stg (a shared address) in 4 chunks of 64 columns.  D 2-byte, rows 16-byte aligned,
 * beta == 0. */
template <bool BF16>
__device__ __forceinline__ void store_tile_wide(const smk_gemm16_params &p, const float (&d)[128], int64_t row0,
                                               int64_t n0, int lane, uint32_t stg)
{
    const float alpha = p.alpha;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        __syncwarp(); /* the previous chunk's reads are done */
#pragma unroll
        for (int jj = 0; jj < 8; jj++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int j = 8 * q + jj, r = (lane >> 2) + 8 * h, c = 8 * jj + 2 * (lane & 3); /* r [0,15], c [0,63] */
                const uint32_t v = g16::from_f<BF16>(alpha * d[4 * j + 2 * h]) |
                                   ((uint32_t)g16::from_f<BF16>(alpha * d[4 * j + 2 * h + 1]) << 16);
                sts32(stg + 2 * smk_tile_offset(kStage, r, c), v);
            }
        __syncwarp();
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int v = 32 * i + lane, r = v >> 3, cv = v & 7; /* r [0,15], cv [0,7] */
            const uint4 x = lds128(stg + 2 * smk_tile_offset(kStage, r, 8 * cv));
            const int64_t row = row0 + r, col = n0 + 64 * q + 8 * cv;
            if (row >= p.M || col >= p.N)
                continue;
            unsigned short *dst = (unsigned short *)p.D + row * p.ldd + col;
            if (col + 8 <= p.N) {
                *(uint4 *)dst = x;
            } else {
                const uint32_t w[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
                for (int e = 0; e < 8; e++)
                    if (col + e < p.N)
                        dst[e] = (unsigned short)(w[e >> 1] >> (16 * (e & 1)));
            }
        }
    }
}

/* Whether the wide epilogue applies (uniform over the launch). */
__device__ __forceinline__ bool wide_ok(const smk_gemm16_params &p)
{
    return !p.out_f32 && p.beta == 0.f && ((uintptr_t)p.D & 15) == 0 && p.ldd % 8 == 0;
}

template <int SWB, bool BF16>
__device__ __forceinline__ void consume(const smk_gemm16_params &p, const Sched &sc, uint32_t ring, uint32_t bars,
                                        uint32_t stg, int cw, int tid)
{
    using C = Cfg<SWB>;
    const bool wide = wide_ok(p);
    float d[128];
    uint32_t it = 0; /* k-tiles consumed so far, across tiles: the producer's counter */
    for (int tile = blockIdx.x; tile < sc.tiles; tile += gridDim.x) {
        int m0 = 0, n0 = 0;
        tile_origin<C::GROUP_M>(sc, tile, C::BM, C::BN, &m0, &n0);
#pragma unroll
        for (int i = 0; i < 128; i++)
            d[i] = 0.f;
        for (int t = 0; t < sc.ktiles; t++, it++) {
            const uint32_t s = it % C::STAGES;
            bar_wait(bars + 8 * s, (it / C::STAGES) & 1);
            const uint32_t a = ring + s * C::STAGE;
            wg_fence();
            mma_tile<SWB, BF16>(d, a, a + C::A_BYTES, cw);
            wg_commit();
            wg_wait<1>(); /* k-tile it-1's wgmmas have read their stage: give it back */
            if (t > 0 && tid == 0)
                bar_arrive(bars + 8 * (C::STAGES + (it - 1) % C::STAGES));
        }
        wg_wait<0>();
        if (tid == 0) /* the tile's last stage: the producer may already be waiting on it */
            bar_arrive(bars + 8 * (C::STAGES + (it - 1) % C::STAGES));
        fence_acc(d);
        const int64_t row0 = (int64_t)m0 + 64 * cw + 16 * (tid / 32);
        if (wide)
            store_tile_wide<BF16>(p, d, row0, n0, tid % 32, stg + (4 * cw + tid / 32) * C::STG_BYTES);
        else
            store_tile<BF16>(p, d, row0, n0, tid % 32);
    }
}

template <int SWB, bool BF16>
__global__ void __launch_bounds__(384, 1)
    wgmma_gemm(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
               const smk_gemm16_params p, const Sched sc)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using C = Cfg<SWB>;
    extern __shared__ unsigned char smem_raw[];
    const uint32_t ring = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const uint32_t stg = ring + C::STAGES * C::STAGE, bars = stg + C::STG;
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < C::STAGES; s++) {
            bar_init(bars + 8 * s, 1);                  /* full: the producer's expect_tx */
            bar_init(bars + 8 * (C::STAGES + s), 2);    /* empty: one arrive per consumer warpgroup */
        }
        bar_init_fence();
    }
    __syncthreads();
    if (wg == 0) {
        setmaxnreg_dec<40>();
        if (tid == 0)
            produce<SWB>(&ta, &tb, ring, bars, sc);
        return;
    }
    setmaxnreg_inc<232>();
    consume<SWB, BF16>(p, sc, ring, bars, stg, wg - 1, tid);
#else
    __trap(); /* built without sm_90a code: the launcher never gets here (SMK_WGMMA_FALLBACK) */
#endif
}

} /* namespace hop */
} /* namespace smk */

#endif
