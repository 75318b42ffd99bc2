/* The memory-bound path's launcher (matvec.h routes, matvec.cuh computes): variant 0 calls
 * mv_try_launch before anything else, so the shapes it takes never see the tiles or the padded
 * copies.  S > 1 borrows a stream-ordered fp32 workspace (smk_rt_alloc_on, freed on the stream
 * behind the reduce kernel; counted by smk_gemm16_temp_bytes / _shape). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "common/launch.h"
#include "dispatch.h"
#include "matvec.cuh"
#include "matvec.h"
#include "runtime.h"

extern "C" {
volatile int smk_gemm16_matvec_mode = 1;
int smk_gemm16_set_matvec(int mode)
{
    if (mode < 0 || mode > 8) /* 8: MROW on every M <= 8 (matvec_mrow.h) */
        return -1;
    smk_gemm16_matvec_mode = mode;
    return 0;
}
volatile int smk_gemm16_mv_kmax = SMK_MV_KMAX_DEFAULT;
volatile int smk_gemm16_mv_v16 = 1;
/* 2 (bit 2: SKINNY for N <= 8 in place of COLS) by default: H100, acceptance's timing, same-run A/B on fresh
 * seeds 73 / 75: all draws 0.818 -> 0.836 / 0.805 -> 0.810, matrix-vector 0.756 -> 0.800 / 0.745 -> 0.760;
 * bits 1 and 4 lost (0.786, 0.774 on seed 73: docs/GEMM16_NOTES.md). */
/* 82 (2 + TALL, bit 16, on its short-K class, bit 64) by default since session 44: TALL won 14 of the 15 class shapes
 * it takes at 82 (69 class shapes, H100) and all 3 draws it took on held-out seed 197 (8453x1x321 0.368 -> 0.472 of
 * cuBLAS); at 18 (every N <= 8, M >= 1024) it lost the class 0.79 -> 0.67 (docs/GEMM16_NOTES.md "Session 44"). */
volatile int smk_gemm16_mv_skinny = 82;
int smk_gemm16_set_mv_skinny(int level)
{
    if (level < 0 || level > 127)
        return -1;
    smk_gemm16_mv_skinny = level;
    return 0;
}
volatile int smk_gemm16_mv_level = 1855; /* session 41's A/Bs (15: seed 163; bits 4 and 5: seed 168; 7: session 40's), bit 8 session 42's, bits 9 + 10 (MROW) session 45's (seed 205): GEMM16_NOTES */
int smk_gemm16_mv_level_here(void)
{
    int level = smk_gemm16_mv_level, sms = 0, major = 0;
    if ((level & 16) && smk::device_facts(&sms, &major) == 0 && major < 9)
        level &= ~16; /* ROWS clusters: sm_90 and later (the launch, the size queries and explain alike) */
    return level;
}

int smk_gemm16_set_mv_level(int level)
{
    if (level < 0 || level > 2047) /* 512, 1024: MROW (matvec_mrow.h) */
        return -1;
    smk_gemm16_mv_level = level;
    return 0;
}
int smk_gemm16_set_mv_v16(int on)
{
    if (on != 0 && on != 1)
        return -1;
    smk_gemm16_mv_v16 = on;
    return 0;
}
int smk_gemm16_set_mv_kmax(int kmax)
{
    if (kmax != 0 && (kmax < 16 || kmax > SMK_MV_KMAX_CAP))
        return -1;
    smk_gemm16_mv_kmax = kmax;
    return 0;
}
}

namespace smk {
namespace g16 {

template <int KS, int NT, bool BF16, int ST>
static void mv_mma(const smk_gemm16_params &q, const smk_mv_route &r, cudaStream_t s)
{
    const int64_t ncg = (q.N + 8 * NT - 1) / (8 * NT);
    const bool aw = ((uintptr_t)q.A & 3) == 0 && q.lda % 2 == 0;
    if (aw)
        mv_mma_kernel<KS, NT, BF16, true, ST><<<(unsigned)r.grid[0], kMvThreads, 0, s>>>(q, ncg, r.rpw);
    else
        mv_mma_kernel<KS, NT, BF16, false, ST><<<(unsigned)r.grid[0], kMvThreads, 0, s>>>(q, ncg, r.rpw);
}

template <int KS, bool BF16>
static void mv_mma_nt(const smk_gemm16_params &q, const smk_mv_route &r, cudaStream_t s)
{
    /* 16-byte stores: 2-byte D, C not read; rows on 16 bytes (ST 1), else at any offset where the route
     * says (r.chunks, gemm16_mv_level bit 8: ST 2, KS <= 2) */
    const bool d16 = !q.out_f32 && q.beta == 0.f;
    const bool v16 = d16 && ((uintptr_t)q.D & 15) == 0 && q.ldd % 8 == 0;
    if (r.npad == 2)
        mv_mma<KS, 2, BF16, 0>(q, r, s);
    else if (v16 && smk_gemm16_mv_v16)
        mv_mma<KS, 4, BF16, 1>(q, r, s);
    else if constexpr (KS <= 2) {
        if (d16 && r.chunks)
            mv_mma<KS, 4, BF16, 2>(q, r, s);
        else
            mv_mma<KS, 4, BF16, 0>(q, r, s);
    } else
        mv_mma<KS, 4, BF16, 0>(q, r, s);
}

/* ROWS in 8-warp blocks whose sums are spread over the warps (gemm16_mv_level bit 2). */
template <bool BF16>
static void mv_rows_spread(const smk_gemm16_params &q, const smk_mv_route &r, dim3 grid, int64_t slices, float *part,
                           float *red, cudaStream_t s)
{
#define SMK_MV_SPREAD_CASE(TM) case TM: mv_rows_kernel<TM, BF16, SMK_MV_FUSED_NW, true><<<grid, 32 * SMK_MV_FUSED_NW, 0, s>>>(q, r.kc, slices, part, red); break;
    switch (r.tm) {
    SMK_MV_SPREAD_CASE(1) SMK_MV_SPREAD_CASE(2) SMK_MV_SPREAD_CASE(3) SMK_MV_SPREAD_CASE(4)
    SMK_MV_SPREAD_CASE(5) SMK_MV_SPREAD_CASE(6) SMK_MV_SPREAD_CASE(7)
    default: mv_rows_kernel<8, BF16, SMK_MV_FUSED_NW, true><<<grid, 32 * SMK_MV_FUSED_NW, 0, s>>>(q, r.kc, slices, part, red); break;
    }
#undef SMK_MV_SPREAD_CASE
}

/* ROWS in clusters (gemm16_mv_level bit 4, matvec.h smk_mv_rows_cluster): grid y = one cluster of r.cluster
 * blocks, no partials (one launch), `red` the clusters' scratch. */
template <bool BF16>
static int mv_rows_cluster(const smk_gemm16_params &q, const smk_mv_route &r, dim3 grid, float *red, cudaStream_t s)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 1;
    attr[0].val.clusterDim.y = (unsigned)r.cluster;
    attr[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t lc = {};
    lc.gridDim = grid;
    lc.blockDim = dim3(32 * SMK_MV_FUSED_NW);
    lc.stream = s;
    lc.attrs = attr;
    lc.numAttrs = 1;
    const int64_t kc = r.kc, slices = (int64_t)r.cluster * SMK_MV_FUSED_NW;
    float *none = NULL;
#define SMK_MV_CLUSTER_CASE(TM) case TM: return (int)cudaLaunchKernelEx(&lc, mv_rows_kernel<TM, BF16, SMK_MV_FUSED_NW, true, true>, q, kc, slices, none, red);
    switch (r.tm) {
    SMK_MV_CLUSTER_CASE(1) SMK_MV_CLUSTER_CASE(2) SMK_MV_CLUSTER_CASE(3) SMK_MV_CLUSTER_CASE(4)
    SMK_MV_CLUSTER_CASE(5) SMK_MV_CLUSTER_CASE(6) SMK_MV_CLUSTER_CASE(7)
    default: SMK_MV_CLUSTER_CASE(8)
    }
#undef SMK_MV_CLUSTER_CASE
}

template <bool BF16>
static void mv_kernel(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t s)
{
    const dim3 grid((unsigned)r.grid[0], (unsigned)r.grid[1], (unsigned)r.grid[2]);
    if (r.kind == SMK_MV_MMA) {
        switch (r.tm) {
        case 1: mv_mma_nt<1, BF16>(q, r, s); break;
        case 2: mv_mma_nt<2, BF16>(q, r, s); break;
        case 4: mv_mma_nt<4, BF16>(q, r, s); break;
        default: mv_mma_nt<8, BF16>(q, r, s); break;
        }
        return;
    }
    if (r.kind == SMK_MV_MROW) { /* gemm16_mrow.cu; ws: the partials (S > 1), summed by mv_reduce_kernel */
        mv_mrow_launch(q, r, ws, s);
        return;
    }
    if (r.kind == SMK_MV_TALL) { /* one launch; ws: the blocks' scratch (KW > 1) */
        mv_tall_launch(q, r, ws, s);
        return;
    }
    if (r.kind == SMK_MV_SKINNY || r.kind == SMK_MV_SKINNY_M) {
        (r.kind == SMK_MV_SKINNY ? mv_skinny_launch : mv_skinny_m_launch)(q, r, ws, s);
        return;
    }
    if (r.kind == SMK_MV_TINYK) {
        if (r.rpw == 1 && mv_tinyk16_launch(q, r, s))
            return;
        const dim3 g1((unsigned)(((q.M + 7) / 8) * ((q.N + 128 * r.npad - 1) / (128 * r.npad)))); /* r.grid unless TINYK16 */
        switch (r.npad) {
        case 1: mv_tinyk_kernel<8, 1, BF16><<<g1, kMvThreads, 0, s>>>(q, r.kc, ws); break;
        case 2: mv_tinyk_kernel<8, 2, BF16><<<g1, kMvThreads, 0, s>>>(q, r.kc, ws); break;
        case 4: mv_tinyk_kernel<8, 4, BF16><<<g1, kMvThreads, 0, s>>>(q, r.kc, ws); break;
        default: mv_tinyk_kernel<8, 8, BF16><<<g1, kMvThreads, 0, s>>>(q, r.kc, ws); break;
        }
        return;
    }
    if (r.kind == SMK_MV_ROWS && r.nw > 4) { /* the block sums its slices: partials (G > 1) first, then the scratch */
        float *part = r.splits > 1 ? ws : NULL, *red = ws + (r.splits > 1 ? r.splits * q.M * q.N : 0);
        const int64_t slices = r.splits * SMK_MV_FUSED_NW;
        if (r.spread) {
            mv_rows_spread<BF16>(q, r, grid, slices, part, red, s);
            return;
        }
#define SMK_MV_FUSED_CASE(TM) case TM: mv_rows_kernel<TM, BF16, SMK_MV_FUSED_NW><<<grid, 32 * SMK_MV_FUSED_NW, 0, s>>>(q, r.kc, slices, part, red); break;
        switch (r.tm) {
        SMK_MV_FUSED_CASE(1) SMK_MV_FUSED_CASE(2) SMK_MV_FUSED_CASE(3) SMK_MV_FUSED_CASE(4)
        SMK_MV_FUSED_CASE(5) SMK_MV_FUSED_CASE(6) SMK_MV_FUSED_CASE(7)
        default: mv_rows_kernel<8, BF16, SMK_MV_FUSED_NW><<<grid, 32 * SMK_MV_FUSED_NW, 0, s>>>(q, r.kc, slices, part, red); break;
        }
#undef SMK_MV_FUSED_CASE
        return;
    }
    if (r.kind == SMK_MV_ROWS) {
#define SMK_MV_ROWS_CASE(TM) case TM: mv_rows_kernel<TM, BF16><<<grid, kMvThreads, 0, s>>>(q, r.kc, r.splits, ws); break;
        switch (r.tm) {
        SMK_MV_ROWS_CASE(1) SMK_MV_ROWS_CASE(2) SMK_MV_ROWS_CASE(3) SMK_MV_ROWS_CASE(4)
        SMK_MV_ROWS_CASE(5) SMK_MV_ROWS_CASE(6) SMK_MV_ROWS_CASE(7)
        default: mv_rows_kernel<8, BF16><<<grid, kMvThreads, 0, s>>>(q, r.kc, r.splits, ws); break;
        }
#undef SMK_MV_ROWS_CASE
        return;
    }
    switch (r.npad) {
    case 1: mv_cols_kernel<1, BF16><<<grid, kMvThreads, 0, s>>>(q, r.rpw, ws); break;
    case 2: mv_cols_kernel<2, BF16><<<grid, kMvThreads, 0, s>>>(q, r.rpw, ws); break;
    case 4: mv_cols_kernel<4, BF16><<<grid, kMvThreads, 0, s>>>(q, r.rpw, ws); break;
    default: mv_cols_kernel<8, BF16><<<grid, kMvThreads, 0, s>>>(q, r.rpw, ws); break;
    }
}

template <bool BF16>
static int mv_run(const smk_gemm16_params &q, const smk_mv_route &r, int sms, float *ws, cudaStream_t s)
{
    if (r.cluster > 1) {
        const int ce = mv_rows_cluster<BF16>(q, r, dim3((unsigned)r.grid[0], (unsigned)r.grid[1], (unsigned)r.grid[2]),
                                              ws, s);
        return ce ? ce : (int)cudaGetLastError();
    }
    mv_kernel<BF16>(q, r, ws, s);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || r.splits <= 1) /* S == 1: the kernel wrote D (its ws, if any, was scratch) */
        return (int)e;
    const int64_t per = 32 / r.parts, want = (q.M * q.N + 8 * per - 1) / (8 * per), cap = (int64_t)sms * 16;
    mv_reduce_kernel<BF16><<<(unsigned)(want < cap ? want : cap), 256, 0, s>>>(q, r.splits, r.parts, ws);
    return (int)cudaGetLastError();
}

bool mv_route(const smk_gemm16_params &q, smk_mv_route *r)
{
    const int epi = !q.out_f32 && q.beta == 0.f ? smk_gemm16_epi : 0; /* the staged epilogue can run */
    return q.variant == 0 && smk_mv_route_epi_at(q.M, q.N, q.K, smk_gemm16_matvec_mode, smk_gemm16_mv_kmax,
                                                    smk_gemm16_mv_skinny, epi, smk_gemm16_mv_level_here(), r);
}

int mv_launch(const smk_gemm16_params &q, const smk_mv_route &r, int sms, cudaStream_t stream)
{
    void *ws = NULL;
    if (r.ws_bytes) {
        const smk_status st = smk_rt_alloc_on(&ws, (size_t)r.ws_bytes, stream);
        if (st.code != SMK_OK)
            return st.cuda ? st.cuda : (int)cudaErrorMemoryAllocation;
    }
    const int e = q.dtype == 1 ? mv_run<true>(q, r, sms, (float *)ws, stream)
                               : mv_run<false>(q, r, sms, (float *)ws, stream);
    if (ws)
        smk_rt_free_on(ws, stream);
    return e;
}

} /* namespace g16 */
} /* namespace smk */
