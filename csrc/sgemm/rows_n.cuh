/*
 * sgemm/rows_n.cuh -- the narrow-N rows kernel of the SGEMM (knob sgemm_rows_n; route and why: rows_n.h, launcher:
 * rows_n.cu).  D = alpha A B + beta C for 2 <= N <= 32: A (M x K) is the stream, read once with 16-byte loads; B's
 * K slice sits in shared memory for the block's life; a block's warps loop over groups of 4 rows.
 *
 * Rows per warp R (a template: 4 at levels 1 / 2; levels 3 / 4 also take 2 or 1, rows_n.h):
 * the text below is R = 4, 8 lanes a row; at R = 2 / 1 read lane = R gl + rs, L = 32 / R lanes a row (16 / 32),
 * chunks gl, gl + L, .., the realigning SHFL from lane + R, one / two more reduce-scatter stages (lane bits 2, 1).
 * R = 2's LDS.128: lanes 2 gl + rs, 16 lanes = 8 tile rows c0 + gl in a half-warp -> the same 2 wavefronts (each
 * serves 32 chunks, as at R = 4); R = 1: 16 distinct rows a half-warp -> 4 wavefronts (twice R = 4's per chunk).
 * Lanes: lane = 4 gl + rs, gl = lane >> 2 (0..7) the lane's place in its row, rs = lane & 3 the row of the warp's
 * four (rows 4 g + rs of its row group g; the groups are dealt to the grid's warps round-robin, warp-major).  Lane gl
 * reads the row's 16-byte chunks gl, gl + 8, .. (U = 8 (NQ <= 4) / 4 in flight before the first FMA, streamed past
 * L1): a warp reads 4 rows x 128 contiguous bytes per instruction.  Rows off 16 bytes (odd lda, a sliced base;
 * off = the row's start mod 16 bytes / 4) are read on their aligned chunks all the same
 * (aligned chunk j holds k = 4j - off .. 4j - off + 3) and re-aligned to logical chunks c (k = 4c .. 4c + 3) in
 * registers: 3 SHFL from the lane gl + 1 of the same row (lane + 4), lane gl = 7 taking gl = 0's next chunk (the
 * batch's own, or one extra load past it).  Elements at k >= klen are zeroed (NaN past the slice never leaks).
 * Each logical chunk c meets B's shared row c: per column n one LDS.128 (the four k of column n) and four FMAs into
 * the lane's acc[n] (4 NQ sums).  The 8 lanes of a row then meet in a reduce-scatter of XOR shuffles (lane bits
 * 16, 8, 4; halves while the count is even, then a plain XOR sum) and each lane writes its columns once.
 *
 * ---- Shared memory: B's slice, rows_n_tile(layout, NQ) (rows_n.h), row c = k 4c .. 4c + 3, float4 (c, 4n) ----
 * Read (LDS.128, the hot one): lanes 4 gl + rs read (c0 + gl, 4n): lanes n, n^1, n^2 (the warp's four rows) read
 * one address, so the load packs (docs/BANK_MODEL.md: 16 lanes a group) and costs 2 wavefronts, the minimum for 8
 * distinct 16-byte vectors in 32 lanes, when the 8 rows c0 .. c0 + 7 put vector n in 8 distinct 16-byte slots:
 *   naive:   offset = c * 4 P + 4n (P = pow2(4 NQ) >= 4 vectors a row): slot = (c P + n) mod 8 takes 2 values at
 *            P = 4 and one at P >= 8 -> 4 / 8 wavefronts (2- / 4-way), the bad map of the A/B.
 *   pad:     pitch 4 P + 4 floats = P + 1 vectors, odd: slot = (c (P + 1) + n) mod 8 distinct over 8 rows -> 2.
 *   swizzle: Swizzle<3,2,log2 P> (P >= 8): slot n ^ (c & 7), distinct; P = 4 (two rows a bank row): Swizzle<2,2,3>,
 *            row parity x (bank row & 3) -> 8 distinct slots -> 2.
 * Store (STS.32 while staging, once per block): thread t writes element e = t & 3 of column n, row c: a warp's 32
 *   stores are 32 consecutive logical floats of one or two tile rows -> 1 wavefront where they sit in one row
 *   (swizzle only moves whole float4 within a 128-byte bank row); a warp that crosses a row boundary in pad lands
 *   the next row 4 floats on: 2-way on 4 banks (NQ = 1: two 16-float rows per store, every store; NQ odd: 16 NQ
 *   floats a row, one store in two).  Once per block against the reads' once per chunk: left so.
 * explain() replays both (rows_n.cu rows_n_plan).
 */
#ifndef SMK_SGEMM_ROWS_N_CUH
#define SMK_SGEMM_ROWS_N_CUH

#include <stdint.h>

#include "layout.h"
#include "api/sgemm.h"
#include "common/ptx_load.cuh"
#include "sgemm/launch.h"
#include "sgemm/rows_n.h"

namespace smk {

struct RowsNArgs {
    int64_t k_chunk;  /* slice depth (grid y), a multiple of 16 */
    int64_t d_stride; /* D's offset per slice (the workspace's), 0 unsplit */
    int pf;           /* row groups a warp prefetches into L2 before B's staging (rows_n.h RowsNRoute::pf) */
};

/* k-interleaved B staging: B[kbeg + 4c + e][n] at tile (c, 4n + e), zero past klen or N. */
template <int NQ, int LAYOUT>
__device__ __forceinline__ void rows_n_stage_b(const smk_sgemm_params &p, float *bs, int64_t kbeg, int klen)
{
    constexpr smk_tile T = rows_n_tile(LAYOUT, NQ);
    constexpr int NP = 4 * NQ;
    constexpr int J = 16; /* loads in flight per thread: a 72 KB slice is 72 elements a thread, L2 hits */
    const int rows = (klen + 3) >> 2, total = rows * 4 * NP;
#pragma unroll 1
    for (int i0 = threadIdx.x; i0 < total; i0 += J * kRowsNThreads) {
        float v[J];
#pragma unroll
        for (int j = 0; j < J; ++j) {
            const int i = i0 + j * kRowsNThreads, e = i & 3, n = (i >> 2) % NP, k = 4 * ((i >> 2) / NP) + e;
            v[j] = i < total && k < klen && n < p.N ? __ldg(p.B + (kbeg + k) * p.ldb + n) : 0.f;
        }
#pragma unroll
        for (int j = 0; j < J; ++j) {
            const int i = i0 + j * kRowsNThreads, e = i & 3, n = (i >> 2) % NP, c = (i >> 2) / NP;
            if (i < total) bs[smk_tile_offset(T, c, 4 * n + e)] = v[j];
        }
    }
}

/* One reduce-scatter stage over lane bit BIT: H sums -> H / 2 (H even: this lane keeps the upper half where its
 * bit is set) or H (odd: every lane the XOR sum; only bit-clear lanes write). */
template <int H, int BIT>
__device__ __forceinline__ void rows_n_stage(float *v, int lane, int &lo, bool &writer)
{
    if constexpr (H % 2 == 0) {
        constexpr int HF = H / 2;
        const bool up = (lane & BIT) != 0;
#pragma unroll
        for (int i = 0; i < HF; ++i) {
            const float send = up ? v[i] : v[i + HF], keep = up ? v[i + HF] : v[i];
            v[i] = keep + __shfl_xor_sync(0xffffffffu, send, BIT);
        }
        lo += up ? HF : 0;
    } else {
#pragma unroll
        for (int i = 0; i < H; ++i) v[i] += __shfl_xor_sync(0xffffffffu, v[i], BIT);
        writer = writer && (lane & BIT) == 0;
    }
}

__host__ __device__ constexpr int rows_n_next(int h) { return h % 2 == 0 ? h / 2 : h; }

/* The lane's logical chunk from its aligned chunk a and the next one's first three floats nx (off 1..3). */
__device__ __forceinline__ float4 rows_n_realign(const float4 &a, float nx, float ny, float nz, int off)
{
    float4 r;
    r.x = off == 0 ? a.x : off == 1 ? a.y : off == 2 ? a.z : a.w;
    r.y = off == 0 ? a.y : off == 1 ? a.z : off == 2 ? a.w : nx;
    r.z = off == 0 ? a.z : off == 1 ? a.w : off == 2 ? nx : ny;
    r.w = off == 0 ? a.w : off == 1 ? nx : off == 2 ? ny : nz;
    return r;
}

/* acc[n] += a . B(c, column n) for the 4 NQ columns. */
template <int NQ, int LAYOUT>
__device__ __forceinline__ void rows_n_fma(float *acc, const float *bs, float4 a, int c)
{
    constexpr smk_tile T = rows_n_tile(LAYOUT, NQ);
    constexpr int I = 4 * NQ < 8 ? 4 * NQ : 8;
    const int ro = smk_tile_row_offset(T, c), rx = smk_tile_row_xor(T, c);
    /* column n = 8 j + i at ro + 32 j + (4 i ^ rx): the XOR (swizzle: bits 2..4 of the row's 32-float groups) moves
     * vectors within a group of 8 only, so 8 base addresses serve every j (immediate offsets) */
#pragma unroll
    for (int i = 0; i < I; ++i) {
        const float *bi = bs + ro + ((4 * i) ^ rx);
#pragma unroll
        for (int n = i; n < 4 * NQ; n += 8) {
            const float4 b = *reinterpret_cast<const float4 *>(bi + 4 * (n - i));
            acc[n] = fmaf(a.w, b.w, fmaf(a.z, b.z, fmaf(a.y, b.y, fmaf(a.x, b.x, acc[n]))));
        }
    }
}

__host__ __device__ constexpr int rows_n_u(int nq) { return nq <= 4 ? 8 : 4; } /* chunks in flight a lane */

/* A lane's row of A (one slice): its 16-byte chunks from aq (the row's start rounded down to 16 bytes, `off` floats
 * before it), nal of them (0 past M). */
struct RowsNSrc {
    const float4 *aq;
    int off, nal;
};

template <bool AV>
__device__ __forceinline__ RowsNSrc rows_n_src(const float *arow, bool in, int klen)
{
    const int off = AV ? 0 : (int)((reinterpret_cast<uintptr_t>(arow) >> 2) & 3);
    return RowsNSrc{reinterpret_cast<const float4 *>(arow - off), off, in ? (klen + off + 3) >> 2 : 0};
}

/* The lane's batch of U chunks at c0 (chunks c0 + gl + L u) and, lane gl = L - 1 of a row off 16 bytes, the chunk
 * past them (ex); zeros past nal. */
template <int NQ, bool AV, int R>
__device__ __forceinline__ void rows_n_load(float4 *a, float4 &ex, const RowsNSrc &s, int c0, int gl)
{
    constexpr int U = rows_n_u(NQ), L = 32 / R;
    const float4 z4 = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int u = 0; u < U; ++u) a[u] = c0 + gl + L * u < s.nal ? ldg4<true>(s.aq + c0 + gl + L * u) : z4;
    ex = z4;
    if (!AV && gl == L - 1 && c0 + L * U < s.nal) ex = ldg4<true>(s.aq + c0 + L * U);
}

/* One row's slice [0, klen) into acc (every lane of the warp calls it: the loop bounds are warp-uniform). */
template <int NQ, int LAYOUT, bool AV, int R>
__device__ __forceinline__ void rows_n_row(float *acc, const float *bs, const RowsNSrc &s, int klen, int gl)
{
    constexpr int U = rows_n_u(NQ); /* 4 NQ sums + 4 U floats of A: <= 128 registers */
    constexpr int L = 32 / R;       /* lanes per row */
    const int lane = threadIdx.x & 31, off = s.off;
    const int nlog = (klen + 3) >> 2;
#pragma unroll 1
    for (int c0 = 0; c0 < nlog; c0 += L * U) { /* warp-uniform */
        float4 a[U], ex;
        rows_n_load<NQ, AV, R>(a, ex, s, c0, gl);
        float nx = 0.f, ny = 0.f, nz = 0.f;
        const int nb = (lane + R) & 31; /* gl + 1 of the same row; gl = L - 1: gl 0 */
        if (!AV) {
            nx = __shfl_sync(0xffffffffu, a[0].x, nb);
            ny = __shfl_sync(0xffffffffu, a[0].y, nb);
            nz = __shfl_sync(0xffffffffu, a[0].z, nb);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            float4 v = a[u];
            if (!AV) {
                float mx = ex.x, my = ex.y, mz = ex.z; /* the next u's shuffles: gl = L - 1's next chunk */
                if (u + 1 < U) {
                    mx = __shfl_sync(0xffffffffu, a[u + 1 < U ? u + 1 : 0].x, nb);
                    my = __shfl_sync(0xffffffffu, a[u + 1 < U ? u + 1 : 0].y, nb);
                    mz = __shfl_sync(0xffffffffu, a[u + 1 < U ? u + 1 : 0].z, nb);
                }
                v = gl == L - 1 ? rows_n_realign(a[u], mx, my, mz, off) : rows_n_realign(a[u], nx, ny, nz, off);
                nx = mx, ny = my, nz = mz;
            }
            const int c = c0 + gl + L * u, k = 4 * c;
            if (c >= nlog) continue;
            if (k + 4 > klen) { /* the slice's last chunk: k past klen zeroed (B is zero there too) */
                if (k + 1 >= klen) v.y = 0.f;
                if (k + 2 >= klen) v.z = 0.f;
                if (k + 3 >= klen) v.w = 0.f;
            }
            rows_n_fma<NQ, LAYOUT>(acc, bs, v, c);
        }
    }
}

/* Levels 3 / 4 (ra.pf > 0): an L2 prefetch of the warp's first pf row groups of the slice, issued before B's staging,
 * so that A's DRAM stream starts with the block and the groups' loads then hit L2 (no register held: the staging
 * keeps its 16 loads in flight).  One prefetch per 128 bytes: lane gl of a row takes bytes 128 gl, 128 (gl + L), ..
 * of the row's slice (the whole row's lines but, where the slice's end is off 128 bytes, possibly its last). */
template <int R>
__device__ __forceinline__ void rows_n_prefetch(const smk_sgemm_params &p, int64_t g0, int64_t groups, int64_t step,
                                                int pf, int64_t kbeg, int klen, int gl, int rs)
{
    constexpr int L = 32 / R;
    int64_t grp = g0;
#pragma unroll 1
    for (int i = 0; i < pf && grp < groups; ++i, grp += step) {
        const int64_t row = R * grp + rs;
        if (row >= p.M) break;
        const char *const base = reinterpret_cast<const char *>(p.A + row * p.lda + kbeg);
        const char *const end = base + 4 * (int64_t)klen;
#pragma unroll 1
        for (const char *a = base + 128 * gl; a < end; a += 128 * L) asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
    }
}

/* The R-row reduce-scatter of a lane's 4 NQ sums over its row's L = 32 / R lanes (lane bits 16 .. R): returns
 * the count HF of sums the lane keeps, from column lo (writer: this lane writes them). */
template <int NV, int R>
__host__ __device__ constexpr int rows_n_kept()
{
    return R == 1 ? rows_n_next(rows_n_next(rows_n_next(rows_n_next(rows_n_next(NV)))))
           : R == 2 ? rows_n_next(rows_n_next(rows_n_next(rows_n_next(NV))))
                    : rows_n_next(rows_n_next(rows_n_next(NV)));
}

template <int NV, int R>
__device__ __forceinline__ void rows_n_reduce(float *acc, int lane, int &lo, bool &writer)
{
    constexpr int H1 = rows_n_next(NV), H2 = rows_n_next(H1), H3 = rows_n_next(H2), H4 = rows_n_next(H3);
    rows_n_stage<NV, 16>(acc, lane, lo, writer);
    rows_n_stage<H1, 8>(acc, lane, lo, writer);
    rows_n_stage<H2, 4>(acc, lane, lo, writer);
    if constexpr (R <= 2) rows_n_stage<H3, 2>(acc, lane, lo, writer);
    if constexpr (R == 1) rows_n_stage<H4, 1>(acc, lane, lo, writer);
}

/*
 * NQ      float4 groups of N (1..8: the kernel computes 4 NQ columns, writes the first N).
 * LAYOUT  smk_layout of B's slice.   AV  every row of A on 16 bytes (A aligned, lda % 4 == 0).
 * R       rows of A per warp (4: 8 lanes a row, levels 1 / 2; 2 or 1: 16 / 32 lanes a row, levels 3 / 4's choice:
 *         rows_n.h).  ra.pf > 0 (levels 3 / 4): rows_n_prefetch before B's staging.
 * p       validated, normalised; D: the output, or (split) the workspace with alpha 1, beta 0.
 */
template <int NQ, int LAYOUT, bool AV, int R>
__global__ void __launch_bounds__(kRowsNThreads, kRowsNBlocksPerSm) sgemm_rows_n_kernel(const smk_sgemm_params p,
                                                                                       const RowsNArgs ra)
{
    extern __shared__ float4 smk_rows_n_smem[];
    float *const bs = reinterpret_cast<float *>(smk_rows_n_smem);
    constexpr int NV = 4 * NQ;
    pdl_allow_dependents();
    const int64_t kbeg = (int64_t)blockIdx.y * ra.k_chunk;
    const int klen = (int)(p.K - kbeg < ra.k_chunk ? p.K - kbeg : ra.k_chunk);
    const int lane = threadIdx.x & 31, gl = lane / R, rs = lane % R, w = threadIdx.x >> 5;
    /* warp-interleaved groups of R rows: group g goes to warp w of block x with g mod (8 X) = w X + x, so a tail
     * of groups past a whole round lands on warp 0 (then 1, ..) of every block: spread over the SMs */
    const int64_t groups = (p.M + R - 1) / R, step = (int64_t)gridDim.x * (kRowsNThreads / 32);
    const int64_t g0 = (int64_t)w * gridDim.x + blockIdx.x;
    if (ra.pf > 0) rows_n_prefetch<R>(p, g0, groups, step, ra.pf, kbeg, klen, gl, rs);
    rows_n_stage_b<NQ, LAYOUT>(p, bs, kbeg, klen);
    __syncthreads();
    float *const D = p.D + blockIdx.y * ra.d_stride;
#pragma unroll 1
    for (int64_t grp = g0; grp < groups; grp += step) { /* warp-uniform */
        const int64_t row = R * grp + rs;
        const bool in = row < p.M;
        const RowsNSrc src = rows_n_src<AV>(p.A + (in ? row : 0) * p.lda + kbeg, in, klen);
        float acc[NV];
#pragma unroll
        for (int i = 0; i < NV; ++i) acc[i] = 0.f;
        rows_n_row<NQ, LAYOUT, AV, R>(acc, bs, src, klen, gl);
        int lo = 0;
        bool writer = true;
        rows_n_reduce<NV, R>(acc, lane, lo, writer);
        constexpr int HF = rows_n_kept<NV, R>();
        if (!in || !writer) continue;
#pragma unroll
        for (int i = 0; i < HF; ++i) {
            const int64_t col = lo + i;
            if (col >= p.N) continue;
            const float v = p.alpha * acc[i];
            D[row * p.ldd + col] = p.beta != 0.f ? fmaf(p.beta, p.C[row * p.ldc + col], v) : v;
        }
    }
}

} /* namespace smk */

#endif /* SMK_SGEMM_ROWS_N_CUH */
