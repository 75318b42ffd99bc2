/*
 * sgemm/tile_deep.cuh -- the tile kernel with a deep load pipeline (knob sgemm_deep; issue 27's small calls):
 * the same block / warp / thread tile, fragments, FMA order and epilogue as tile.cuh's sgemm_kernel, but the
 * k-tiles reach shared memory by cp.async into S stages, S - 1 k-tiles of loads in flight.
 *
 * Why: a launch of a few to ~2 blocks per SM (164x275x157: 15 blocks of 64x64x16) has one warp per
 * scheduler, so nothing hides a load's latency but the warp's own FMAs.  tile.cuh's two-stage register
 * pipeline issues k-tile kt+1's loads at the start of k-tile kt and needs them at its end: one k-tile of FMAs
 * (64x64x16: 512 FFMA + 48 LDS.128 per warp, ~600 cycles) against a DRAM load's latency (~800-1000 cycles at
 * the profiler's clock), so each k-tile waits out the difference.  Here the loads of k-tile kt+S-1 are
 * issued at the start of k-tile kt: S - 1 k-tiles of FMAs (S = 4: ~1800 cycles) cover them, and, as the
 * copies land in shared memory without registers, the depth costs shared memory (S x 8 KB for 64x64x16:
 * 4 blocks per SM still fit) and no registers (the register pipeline's 16 float4 go away).
 *
 * Loads.  Every copy is one element (4 bytes, .ca) or, for B on 16-byte rows (VEC), one float4 (16 bytes,
 * .cg) at tile.cuh's STS.128 address with src-size 4 x its columns in range; every copy that can be partial
 * zero-fills (src-size 0: k past the slice, columns past N), so no copy reads a byte past the matrix (B's float4
 * that straddles N reads its columns in range: no load_edge / fast_len split as tile.cuh's needs), and a copy
 * of src-size 0 points at the operand's first element.  The element copies do not follow tile.cuh's float4 map
 * (deep.h SgemmDeepMap): A (transposed into As[k][m] as tile.cuh stores it) by warp chunks of 4 rows x 8 k,
 * 4-5 lines of L1 per instruction where tile.cuh's map costs 16 (the L1 work that made 164x275x157's
 * L1/TEX throughput 55% against cuBLAS's 20% in session 41's ncu); !VEC B by a warp's 32 consecutive columns
 * of one row.  Rows of A past M and (VEC) float4 of B wholly past N are zero-filled copies (src-size 0: they
 * read nothing, where tile.cuh's register loads re-read in-range stand-ins; either feeds only outputs never
 * stored, and a warp's many lanes on one stand-in chunk cost LDGSTS wavefronts, session 46).  Zero-filled k past
 * the slice add fmaf(0, 0, acc) = acc: the stored outputs are tile.cuh's bit for bit (tests/test_sgemm_deep.py).
 *
 * Main loop (one barrier per k-tile; group g = k-tile g, every iteration commits one group, empty past
 * the last k-tile, so wait_group<S-2> at the end of k-tile kt means k-tile kt+1 has landed for this
 * thread, and the barrier after it for every thread):
 *   prologue: k-tiles 0..S-2 -> stages 0..S-2; wait; barrier; fragment row 0 of stage 0
 *   k-tile kt (stage kt % S): issue k-tile kt+S-1 into stage (kt-1) % S, which every thread finished
 *   reading before the barrier that ended k-tile kt-1; rows k = 0..BK-1: load row k+1's fragments (at
 *   the last row: wait, barrier, row 0 of stage (kt+1) % S), multiply row k.
 * As tile.cuh's loop, the last k-tile loads row 0 of a stage nobody uses (explain() counts it).  The stage
 * index is a runtime value (kt % S): one IMAD per k-tile, the fragment offsets stay immediates.
 *
 * Bank arithmetic: the fragment loads are SgemmThreadTile's (tile.cuh: conflict-free in every layout; A's from
 * the deep A tile, below, a fixed permutation of a row's chunks per k: still conflict-free); VEC
 * B's 16-byte copies land at tile.cuh's STS.128 addresses (conflict-free); !VEC B's copies are 32 consecutive
 * floats of one tile row (32 banks, every layout); A's copies are 8 k x 4 m per warp (deep.h SgemmDeepMap:
 * pad conflict-free, naive 8-way: the price of reading 4 rows, not 16, per instruction; swizzle conflict-free
 * because As is deep.h's smk_sgemm_deep_tile, Swizzle<3,2,S>, where tile.cuh's Swizzle<1,4,S> made them 4-way;
 * the A fragment loads read it through SgemmDeepThreadTile).  The layout changes only smk_tile_offset.
 */
#ifndef SMK_SGEMM_TILE_DEEP_CUH
#define SMK_SGEMM_TILE_DEEP_CUH

#include "common/ptx_mma.cuh"
#include "sgemm/deep.h"
#include "sgemm/tile.cuh"

namespace smk {

/* 4-byte cp.async (LDGSTS.E, through L1: .cg takes only 16 bytes); src_bytes 4 or 0 (zero-fill). */
__device__ __forceinline__ void cp_async4(unsigned dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

/* Shared memory of one block: S stages of tile.cuh's stage. */
template <class Cfg, int LAYOUT, int S>
inline size_t sgemm_deep_smem_bytes()
{
    return sgemm_smem_bytes<Cfg, LAYOUT>() / Cfg::STAGES * S;
}

/* One thread's copies of a k-tile (deep.h SgemmDeepMap).  a_src[r]: the r-th of its A rows (stand-in row
 * M - 1 past M, only ever an address: those copies have size 0, a_in's bit r clear), at its k of the next k-tile
 * to issue; a_dst[r]: its shared byte offset in stage 0, k-half 0.  VEC B: b_src / b_dst / b_row / b_nv per float4
 * of tile.cuh's map (16-byte copies; a float4 past N has b_nv 0 and is zero-filled: it reads nothing); !VEC B:
 * be_src (row be_row, column be_col; copy i is B_RS * i rows further), be_ok whether that column is in N.
 * Sources advance by one k-tile per issue; the stage's offset is added per issue. */
template <class Cfg, int LAYOUT, bool VEC>
struct SgemmDeepLoader {
    using Map = SgemmDeepMap<Cfg>;
    static constexpr int A_ELEMS = Map::A_ELEMS, A_ROWS = Map::A_ROWS, B_LOADS = Cfg::B_LOADS, BK = Cfg::BK;
    static constexpr int B_RS = Map::B_RS, B_ELEMS = Map::B_ELEMS;
    static_assert(sgemm_deep_rows_ok<Cfg, LAYOUT>(), "a copy's k-half: offset(k0 + e, m) = offset(k0, 0) + offset(e, m)");
    const float *a_src[A_ROWS], *b_src[B_LOADS], *be_src;
    unsigned a_dst[A_ROWS], b_dst[B_LOADS], b_base;
    int a_k, a_in, b_row[B_LOADS], b_nv[B_LOADS], be_row, be_col;
    bool be_ok;

    __device__ __forceinline__ void init(const smk_sgemm_params &p, unsigned smem, int M, int N, int bm, int bn,
                                         int kbeg, int tid)
    {
        constexpr smk_tile TA = smk_sgemm_deep_tile(LAYOUT, Cfg::LOG2_BM), TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN);
        a_in = 0;
#pragma unroll
        for (int r = 0; r < A_ROWS; ++r) {
            int row = 0;
            Map::a_copy(r, tid, &row, &a_k); /* copies r and r + A_ROWS * h: the same row, k + 8h */
            a_in |= (bm + row < M) << r;
            const int m = min(bm + row, M - 1);
            a_src[r] = p.A + (int64_t)m * p.lda + kbeg + a_k;
            a_dst[r] = smem + 4u * (unsigned)smk_tile_offset(TA, a_k, row);
        }
        b_base = smem + 4u * (unsigned)smk_tile_elems(TA, BK);
        Map::b_copy(0, tid, &be_row, &be_col);
        be_ok = bn + be_col < N;
        be_src = p.B + (int64_t)(kbeg + be_row) * p.ldb + min(bn + be_col, N - 1);
#pragma unroll
        for (int j = 0; j < B_LOADS; ++j) {
            int cl = 0;
            SgemmMap<Cfg>::b_load(j, tid, &b_row[j], &cl);
            const int n = bn + cl, nv = clamp04(N - n);
            b_nv[j] = nv; /* past N: 0, a zero-filled copy (tile.cuh's register loads re-read the last float4) */
            b_src[j] = p.B + (int64_t)(kbeg + b_row[j]) * p.ldb + (nv > 0 ? n : 0);
            b_dst[j] = b_base + 4u * (unsigned)smk_tile_offset(TB, b_row[j], cl);
        }
    }

    /* The copies of the k-tile at k0 (from the slice's start) into the stage at byte offset st_bytes. */
    __device__ __forceinline__ void issue(const smk_sgemm_params &p, int k0, int klen, unsigned st_bytes)
    {
        constexpr smk_tile TA = smk_sgemm_deep_tile(LAYOUT, Cfg::LOG2_BM), TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN);
#pragma unroll
        for (int h = 0; h < BK / 8; ++h)
#pragma unroll
            for (int r = 0; r < A_ROWS; ++r) {
                const bool in = ((a_in >> r) & 1) && k0 + 8 * h + a_k < klen;
                cp_async4(a_dst[r] + st_bytes + 4u * (unsigned)smk_tile_offset(TA, 8 * h, 0), in ? a_src[r] + 8 * h : p.A,
                          in ? 4 : 0);
            }
        if constexpr (VEC) {
#pragma unroll
            for (int j = 0; j < B_LOADS; ++j) {
                const bool in = b_nv[j] > 0 && k0 + b_row[j] < klen;
                cp_async16(b_dst[j] + st_bytes, in ? b_src[j] : p.B, in ? 4 * b_nv[j] : 0);
                b_src[j] += (int64_t)BK * p.ldb;
            }
        } else {
#pragma unroll
            for (int i = 0; i < B_ELEMS; ++i) {
                const int r = be_row + i * B_RS; /* [0, BK) */
                const bool ok = be_ok && k0 + r < klen;
                cp_async4(b_base + st_bytes + 4u * (unsigned)smk_tile_offset(TB, r, be_col),
                          ok ? be_src + (int64_t)(i * B_RS) * p.ldb : p.B, ok ? 4 : 0);
            }
            be_src += (int64_t)BK * p.ldb;
        }
#pragma unroll
        for (int r = 0; r < A_ROWS; ++r) a_src[r] += BK;
    }
};

static_assert(sizeof(unsigned) == 4, "shared-window addresses are 32-bit");

/* tile.cuh's SgemmThreadTile (zero, fma) with its fragment loads from the deep A tile (deep.h smk_sgemm_deep_tile;
 * B's tile and every offset's form as tile.cuh's load_row), so tile.cuh's kernels keep their code. */
template <class Cfg, int LAYOUT>
struct SgemmDeepThreadTile : SgemmThreadTile<Cfg, LAYOUT> {
    static_assert(sgemm_deep_split_ok<Cfg, LAYOUT>(), "deep A tile: row_offset(k) + (c ^ row_xor(k)) == offset(k, c)");
    /* Row k of shared stage st into fragment buffer buf. */
    __device__ __forceinline__ void load_row(int st, int k, int buf) const
    {
        constexpr smk_tile TA = smk_sgemm_deep_tile(LAYOUT, Cfg::LOG2_BM), TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN);
        const float *As = this->smem + st * this->stage_elems, *Bs = As + this->a_elems;
        const int ax = this->a_col ^ smk_tile_row_xor(TA, k), bx = this->b_col ^ smk_tile_row_xor(TB, k);
        const float *Ak = As + smk_tile_row_offset(TA, k), *Bk = Bs + smk_tile_row_offset(TB, k);
#pragma unroll
        for (int i = 0; i < Cfg::WMITER; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::TM; j += 4)
                *reinterpret_cast<float4 *>(&this->af[buf][i * Cfg::TM + j]) =
                    *reinterpret_cast<const float4 *>(&Ak[ax ^ (i * Cfg::WSUBM + j)]);
#pragma unroll
        for (int i = 0; i < Cfg::WNITER; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::TN; j += 4)
                *reinterpret_cast<float4 *>(&this->bf[buf][i * Cfg::TN + j]) =
                    *reinterpret_cast<const float4 *>(&Bk[bx ^ (i * Cfg::WSUBN + j)]);
    }
};

/*
 * Cfg, LAYOUT, VEC, p, slice as tile.cuh's sgemm_kernel (no fused fixup, the register epilogue).
 * S        shared stages, S - 1 k-tiles of copies in flight (>= 3: S = 2 is tile.cuh's depth).
 * Dynamic shared memory: sgemm_deep_smem_bytes<Cfg, LAYOUT, S>().
 */
template <class Cfg, int LAYOUT, bool VEC, int S>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINBLOCKS)
    sgemm_deep_kernel(const smk_sgemm_params p, const SgemmSlice slice)
{
    static_assert(S >= 3, "S - 1 >= 2 k-tiles in flight (S = 2 is tile.cuh's register pipeline's depth)");
    constexpr int BK = Cfg::BK;
    constexpr int FM = Cfg::WMITER * Cfg::TM, FN = Cfg::WNITER * Cfg::TN; /* outputs per thread */
    constexpr smk_tile TA = smk_sgemm_deep_tile(LAYOUT, Cfg::LOG2_BM), TB = smk_sgemm_tile(LAYOUT, Cfg::LOG2_BN);
    pdl_allow_dependents();
    extern __shared__ float4 smk_sgemm_smem[];
    float *const smem = reinterpret_cast<float *>(smk_sgemm_smem);
    const int a_elems = smk_tile_elems(TA, BK), stage_elems = a_elems + smk_tile_elems(TB, BK);

    const int M = (int)p.M, N = (int)p.N;
    int kbeg = 0, klen = 0, bm = 0, bn = 0;
    sgemm_block_k_range(p.K, slice.k_chunk, &kbeg, &klen);
    sgemm_tile_origin<Cfg>(M, N, &bm, &bn);
    const int tid = threadIdx.x; /* [0, THREADS) */
    const int a_col = SgemmMap<Cfg>::a_col(tid), b_col = SgemmMap<Cfg>::b_col(tid);

    SgemmDeepLoader<Cfg, LAYOUT, VEC> ld;
    ld.init(p, smem_u32(smem), M, N, bm, bn, kbeg, tid);

    float acc[FM][FN], af[2][FM], bf[2][FN];
    const SgemmDeepThreadTile<Cfg, LAYOUT> tt{{acc, af, bf, a_col, b_col, smem, stage_elems, a_elems}};
    tt.zero();

    const int ktiles = (klen + BK - 1) / BK;
    const unsigned stage_bytes = 4u * (unsigned)stage_elems;
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
        if (s < ktiles) ld.issue(p, s * BK, klen, s * stage_bytes);
        cp_async_commit();
    }
    if (ktiles > 0) {
        cp_async_wait<S - 2>();
        __syncthreads();
        tt.load_row(0, 0, 0);
    }
#pragma unroll 1
    for (int kt = 0; kt < ktiles; ++kt) {
        const int st = kt % S, next = (kt + 1) % S; /* next: where k-tile kt+1 is, and kt+S-1 goes after kt */
        if (kt + S - 1 < ktiles) ld.issue(p, (kt + S - 1) * BK, klen, (unsigned)((kt + S - 1) % S) * stage_bytes);
        cp_async_commit();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k + 1 < BK) {
                tt.load_row(st, k + 1, (k + 1) & 1);
            } else {
                cp_async_wait<S - 2>();
                __syncthreads();
                tt.load_row(next, 0, (k + 1) & 1);
            }
            tt.fma(k & 1);
        }
    }
    cp_async_wait<0>(); /* only empty groups can be left; none outlives the block */
    sgemm_tile_epilogue<Cfg, VEC>(p.D + blockIdx.y * slice.d_stride, p.ldd, p.C, p.ldc, p.alpha, p.beta, acc, M, N,
                                  bm + a_col, bn + b_col);
}

/* One launch of sgemm_deep_kernel<Cfg, LAYOUT, VEC, S>: grid (tiles, splits), its shared memory opted in
 * above 48 KB once per device.  Instantiated by tile_deep.cu. */
template <class Cfg, int LAYOUT, bool VEC>
int tile_launch_deep(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    if constexpr (!sgemm_has_deep<Cfg>()) {
        (void)q, (void)slice, (void)splits, (void)stream;
        return (int)cudaErrorInvalidValue;
    } else {
        constexpr int S = kSgemmDeepStages;
        const long long blocks = sgemm_grid_blocks(Cfg::TILE_M, Cfg::TILE_N, q.M, q.N);
        if (blocks <= 0 || splits < 1 || splits > 65535) return (int)cudaErrorInvalidValue;
        const size_t smem = sgemm_deep_smem_bytes<Cfg, LAYOUT, S>();
        const int e = smem_optin<sgemm_deep_kernel<Cfg, LAYOUT, VEC, S>>(smem);
        if (e != 0) return e;
        sgemm_deep_kernel<Cfg, LAYOUT, VEC, S><<<dim3((unsigned)blocks, (unsigned)splits), Cfg::THREADS, smem,
                                                 stream>>>(q, slice);
        return (int)cudaGetLastError();
    }
}

/* Explicit instantiations for one layout, by row KIND of configs.h: every TILE row, both VEC paths (a row
 * without sgemm_has_deep instantiates no kernel, only the refusal). */
#define SMK_SGEMM_DEEP_INSTANCES_TILE(LAYOUT, ARGS)                                                        \
    template int tile_launch_deep<SMK_SGEMM_CFG_TILE ARGS, LAYOUT, true>(const smk_sgemm_params &,         \
                                                                         const SgemmSlice &, int, cudaStream_t); \
    template int tile_launch_deep<SMK_SGEMM_CFG_TILE ARGS, LAYOUT, false>(const smk_sgemm_params &,        \
                                                                          const SgemmSlice &, int, cudaStream_t);
#define SMK_SGEMM_DEEP_INSTANCES_SKINNY_M(LAYOUT, ARGS)
#define SMK_SGEMM_DEEP_INSTANCES_SKINNY_N(LAYOUT, ARGS)
#define SMK_SGEMM_DEEP_INSTANCES_TINYK(LAYOUT, ARGS)
#define SMK_SGEMM_DEEP_INSTANCES_MATVEC(LAYOUT, ARGS)

} /* namespace smk */

#endif /* SMK_SGEMM_TILE_DEEP_CUH */
