/* The memory-bound path's in-kernel sums: COLS's warp reduce-scatter, and the 8-warp blocks' K reductions (matvec.cuh
 * mv_rows_kernel, gemm16_skinny.cu mv_skinny_kernel with NW > 4 warps; routing: matvec.h
 * smk_mv_rows_fused), and ROWS clusters' (smk_mv_rows_cluster).  Global scratch, no shared memory: explain() models no shared access for it. */
#ifndef SMK_GEMM16_MATVEC_SUM_CUH
#define SMK_GEMM16_MATVEC_SUM_CUH

#include <stdint.h>

namespace smk {
namespace g16 {

/* The NPAD sums of a row, reduced over the warp by a reduce-scatter: each step halves the values a
 * lane keeps (the upper half where lane bit o is set) and adds the partner's; then the last value's
 * xor butterfly.  Returns the sum of column `col`, complete in lanes with lane % (32 / NPAD) == 0. */
template <int NPAD>
__device__ __forceinline__ float mv_rscatter(float (&s)[NPAD], int lane, int &col)
{
    col = 0;
#pragma unroll
    for (int half = NPAD / 2, o = 16; half >= 1; half /= 2, o /= 2) {
        const bool up = (lane & o) != 0;
#pragma unroll
        for (int t = 0; t < half; t++) {
            const float send = up ? s[t] : s[t + half], keep = up ? s[t + half] : s[t];
            s[t] = keep + __shfl_xor_sync(0xffffffffu, send, o);
        }
        col += up ? half : 0;
    }
    float v = s[0];
#pragma unroll
    for (int o = 16 / NPAD; o >= 1; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* The block's NW K slices summed in-kernel (ROWS with NW warps, gemm16_mv_level bit 0): warps 1 .. NW - 1
 * write their sums to the block's region of the global scratch `red` ([warp - 1][TM x 8][32 lanes]: a
 * store instruction is 128 contiguous bytes), __syncthreads (which orders a block's global writes
 * before its later reads), and warp 0 adds them in warp order (fixed: deterministic) with L2 loads
 * (__ldcg: never the non-coherent read-only path).  No shared memory.  Returns whether this warp holds
 * the block's sums (warp 0). */
/* acc[e] with a runtime e (a select chain over the unrolled values: no local-memory array). */
template <int E>
__device__ __forceinline__ float acc_at(const float (&acc)[E], int e)
{
    float v = acc[0];
#pragma unroll
    for (int i = 1; i < E; i++)
        v = e == i ? acc[i] : v;
    return v;
}

template <int TM, int NW>
__device__ __forceinline__ bool mv_block_sum(float (&acc)[TM][8], float *red, int lane)
{
    const int warp = threadIdx.x >> 5;
    const int64_t blk = ((int64_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    float *r = red + blk * (int64_t)((NW - 1) * TM * 8 * 32);
    if (warp > 0)
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int e = 0; e < 8; e++)
                r[(((warp - 1) * TM + i) * 8 + e) * 32 + lane] = acc[i][e];
    __syncthreads();
    if (warp > 0)
        return false;
#pragma unroll 1
    for (int w = 0; w < NW - 1; w++)
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int e = 0; e < 8; e++)
                acc[i][e] += __ldcg(r + ((w * TM + i) * 8 + e) * 32 + lane);
    return true;
}

/* The block's NW K slices summed in-kernel, the work spread over its warps (gemm16_mv_level bit 2): each
 * warp writes the E values per lane it does not own to the block's region of `red` ([warp][e][32 lanes]:
 * 128 contiguous bytes per store instruction), __syncthreads, and warp w sums the values e with
 * e % NW == w over the NW warps in warp order (fixed: deterministic), its own from registers, the other
 * NW - 1 as L2 loads (__ldcg) all issued before the first add: ONE L2 round trip after the barrier, where
 * mv_block_sum's warp 0 walks NW - 1 dependent rounds.  out(e, v) stores value e of this lane. */
template <int E, int NW, class Out>
__device__ __forceinline__ void mv_block_sum_spread(const float (&acc)[E], float *red, int lane, Out out)
{
    const int warp = threadIdx.x >> 5;
    const int64_t blk = ((int64_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    float *r = red + blk * (int64_t)(NW * E * 32);
#pragma unroll
    for (int e = 0; e < E; e++)
        if (e % NW != warp)
            r[(warp * E + e) * 32 + lane] = acc[e];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < (E + NW - 1) / NW; i++) {
        const int e = i * NW + warp;
        if (e >= E)
            break;
        float v[NW];
#pragma unroll
        for (int w = 0; w < NW; w++)
            v[w] = w == warp ? 0.f : __ldcg(r + (w * E + e) * 32 + lane);
        float s = 0.f;
#pragma unroll
        for (int w = 0; w < NW; w++)
            s += w == warp ? acc_at(acc, e) : v[w];
        out(e, s);
    }
}

/* The K slices of a ROWS cluster summed in-kernel (gemm16_mv_level bit 4, matvec.h smk_mv_rows_cluster): the
 * gridDim.y blocks of NW warps at (blockIdx.x, blockIdx.z) are one thread-block cluster; every warp (gw =
 * blockIdx.y NW + warp of GW = NW gridDim.y) writes its E values per lane to the cluster's region of `red`
 * ([gw][e][32 lanes]: 128 contiguous bytes per store instruction), meets the others at the cluster barrier
 * (arrive.release / wait.acquire at cluster scope: each block's stores before it are seen by the other blocks'
 * loads after it, as common/splitk_fixup.cuh cluster_tile), and warp gw sums the values e with e % GW == gw
 * over the GW warps in order (fixed: deterministic), all GW as L2 loads (__ldcg) issued before the first add:
 * ONE L2 round after the barrier, and no acc_at select chain (E - 1 selects per value in mv_block_sum_spread:
 * at 6x4099x46, level 7, ~280 of a warp's ~2000 instructions by count, ncu 41).  out(e, v) stores value e of this
 * lane.  Every thread of the cluster must call it (sm_90; the launcher takes clusters there only). */
template <int E, int NW, class Out>
__device__ __forceinline__ void mv_cluster_sum_spread(const float (&acc)[E], float *red, int lane, Out out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int WMAX = NW * 8; /* the portable cluster size: 8 blocks */
    const int gw = (int)blockIdx.y * NW + (int)(threadIdx.x >> 5), GW = NW * (int)gridDim.y;
    float *r = red + ((int64_t)blockIdx.z * gridDim.x + blockIdx.x) * (int64_t)GW * (E * 32);
#pragma unroll
    for (int e = 0; e < E; e++)
        r[(gw * E + e) * 32 + lane] = acc[e];
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#pragma unroll 1
    for (int e = gw; e < E; e += GW) { /* its own value too from L2 (the same bits): no select chain over acc */
        float v[WMAX];
#pragma unroll
        for (int w = 0; w < WMAX; w++)
            if (w < GW)
                v[w] = __ldcg(r + (w * E + e) * 32 + lane);
        float s = 0.f;
#pragma unroll
        for (int w = 0; w < WMAX; w++) {
            if (w >= GW)
                break;
            s += v[w];
        }
        out(e, s);
    }
#else
    (void)acc, (void)red, (void)lane, (void)out;
    __trap(); /* the launcher takes clusters on sm_90 and later only */
#endif
}

} /* namespace g16 */
} /* namespace smk */

#endif
