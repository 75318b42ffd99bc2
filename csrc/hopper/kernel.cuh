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
 * Bank note: TMA writes and wgmma reads are async-proxy accesses the LSU model (explain) does not see;
 * with SWB = 128 both sides are conflict-free by construction, the narrower modes are what the A/B
 * measures (ncu: l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum).
 */
#ifndef SMK_HOPPER_KERNEL_CUH
#define SMK_HOPPER_KERNEL_CUH

#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "gemm16/epilogue.cuh"
#include "hopper/ptx.cuh"

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
    static constexpr int SMEM = STAGES * STAGE + 2 * STAGES * 8 + 1024; /* + barriers + alignment slack */
    static_assert(SWB == 0 || SWB == 32 || SWB == 64 || SWB == 128, "TMA swizzle widths");
    static_assert(A_SLAB % 1024 == 0 && B_SLAB % 1024 == 0 && STAGE % 1024 == 0, "1024-aligned atoms: base offset 0");
    static_assert(W <= 256 && BM <= 256 && BK <= 256, "TMA box dimensions are at most 256");
};

template <int SWB>
__device__ __forceinline__ void produce(const CUtensorMap *ta, const CUtensorMap *tb, uint32_t ring, uint32_t bars,
                                        int m0, int n0, int ktiles)
{
    using C = Cfg<SWB>;
    prefetch_map(ta);
    prefetch_map(tb);
    for (int t = 0; t < ktiles; t++) {
        const int s = t % C::STAGES;
        const uint32_t full = bars + 8 * s, empty = bars + 8 * (C::STAGES + s);
        bar_wait(empty, ((t / C::STAGES) & 1) ^ 1); /* first round: the fresh barrier's phase "1" is done */
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

/* One k-tile of one consumer warpgroup (cw: rows 64cw .. 64cw+63 of the tile): 4 wgmma k16 steps. */
template <int SWB, bool BF16>
__device__ __forceinline__ void mma_tile(float (&d)[128], uint32_t a, uint32_t b, int cw)
{
    using C = Cfg<SWB>;
    constexpr bool SW = SWB != 0;
    constexpr uint32_t a_lbo = SW ? 16 : C::A_SLAB, a_sbo = SW ? 8 * SWB : 128;
    constexpr uint32_t b_lbo = SW ? C::B_SLAB : 128, b_sbo = SW ? 8 * SWB : C::B_SLAB;
#pragma unroll
    for (int kk = 0; kk < C::BK / 16; kk++) {
        const int k0 = kk * 16;
        const uint32_t aa = a + (k0 / C::W) * C::A_SLAB + cw * 64 * C::ROWB + (k0 % C::W) * 2;
        const uint32_t bb = b + k0 * C::ROWB;
        wgmma_n256<BF16>(d, desc(aa, a_lbo, a_sbo, C::LAYOUT_TYPE), desc(bb, b_lbo, b_sbo, C::LAYOUT_TYPE));
    }
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

template <int SWB, bool BF16>
__global__ void __launch_bounds__(384, 1)
    wgmma_gemm(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
               const smk_gemm16_params p, int ktiles)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using C = Cfg<SWB>;
    extern __shared__ unsigned char smem_raw[];
    const uint32_t ring = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const uint32_t bars = ring + C::STAGES * C::STAGE;
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < C::STAGES; s++) {
            bar_init(bars + 8 * s, 1);                  /* full: the producer's expect_tx */
            bar_init(bars + 8 * (C::STAGES + s), 2);    /* empty: one arrive per consumer warpgroup */
        }
        bar_init_fence();
    }
    __syncthreads();
    const int m0 = blockIdx.y * C::BM, n0 = blockIdx.x * C::BN;
    if (wg == 0) {
        setmaxnreg_dec<40>();
        if (tid == 0)
            produce<SWB>(&ta, &tb, ring, bars, m0, n0, ktiles);
        return;
    }
    setmaxnreg_inc<232>();
    const int cw = wg - 1;
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; i++)
        d[i] = 0.f;
    for (int t = 0; t < ktiles; t++) {
        const int s = t % C::STAGES;
        bar_wait(bars + 8 * s, (t / C::STAGES) & 1);
        const uint32_t a = ring + s * C::STAGE;
        wg_fence();
        mma_tile<SWB, BF16>(d, a, a + C::A_BYTES, cw);
        wg_commit();
        wg_wait<1>(); /* k-tile t-1's wgmmas have read their stage: give it back */
        if (t > 0 && tid == 0)
            bar_arrive(bars + 8 * (C::STAGES + (t - 1) % C::STAGES));
    }
    wg_wait<0>();
    fence_acc(d);
    store_tile<BF16>(p, d, (int64_t)m0 + 64 * cw + 16 * (tid / 32), n0, tid % 32);
#else
    __trap(); /* built without sm_90a code: the launcher never gets here (SMK_WGMMA_FALLBACK) */
#endif
}

} /* namespace hop */
} /* namespace smk */

#endif
