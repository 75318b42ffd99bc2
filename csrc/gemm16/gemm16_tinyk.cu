/* TINYK16: the TINYK shapes (K <= 16, D is the stream; routing: matvec.h smk_mv_tinyk) with D written as
 * aligned 16-byte row chunks (gemm16_mv_level bit 7, value 128; 2-byte D and beta == 0, else the
 * launcher runs mv_tinyk_kernel).  mv_tinyk_kernel stores one 2-byte element per output through
 * mv_out (64-bit address, mode tests: ~20 instructions per output, Nsight Compute on 12444x6909x15:
 * SM 55% busy, DRAM 17%, 168 registers, 12 warps per SM); here a warp stores a row's 256 columns as
 * 32 16-byte stores.
 *
 * Warp w (blockIdx.x * 4 + warp) owns rows m0 .. m0 + 7 and the 256-column segment n0 = 256 s of D
 * (s = w % cdiv(N, 256), m0 = 8 (w / cdiv(N, 256))); lane l computes columns n0 + 8 l .. + 7.  B's row k
 * at those columns is read as the aligned 16-byte chunk holding element n0 + 8 l and, where the row is
 * `sh` > 0 elements off 16 bytes, the next chunk, funnel-shifted (as gemm16_skinny.cu's sk_words); a
 * chunk is loaded only when it holds a column < N of the lane's 8 (the bytes around it in the same
 * 16-byte chunk are in the same page; columns >= N are never stored).  A's 8 rows x 1 k are warp-
 * uniform 2-byte loads (L1 broadcasts), as in mv_tinyk_kernel.
 *
 * Stores: D's row m at n0 sits `sd` elements into its 16-byte chunk (sd is per row: ldd need not be a
 * multiple of 8).  Lane l writes the aligned chunk of columns n0 + 8 l - sd .. + 7: its 8 rounded values
 * rotated right by sd elements (R), the first sd from lane l - 1's R (__shfl_up_sync), the rest its own;
 * lane 31 also writes the segment's last sd columns (its R's first sd).  A chunk wholly inside [n0,
 * min(N, n0 + 256)) is one 16-byte store, else (lane 0 with sd > 0, the row's end) element by element
 * for the columns inside: each column of D is written exactly once. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "api/gemm16.h"
#include "matvec.cuh" /* matvec_chunks.cuh: tk_window, tk_put */
#include "matvec.h"

namespace smk {
namespace g16 {

constexpr int kTkRows = 8;   /* rows per warp */
constexpr int kTkCols = 256; /* columns per warp: 32 lanes x 8 */
constexpr int kTkUK = 2;     /* B rows in flight per warp */

/* B[k][n .. n + 7] as 4 words (raw; elements at or past N are whatever the chunk holds, zeros past its end) */
__device__ __forceinline__ void tk_load_b(const unsigned short *B, int64_t ldb, int64_t k, int64_t n, int64_t N,
                                          uint4 &x, uint4 &y, int &sh)
{
    const unsigned short *pb = B + k * ldb + n;
    sh = (int)(((uintptr_t)pb >> 1) & 7);
    const uint4 *ch = (const uint4 *)(pb - sh), z = make_uint4(0u, 0u, 0u, 0u);
    x = n < N ? __ldg(ch) : z;
    y = sh != 0 && n + 8 - sh < N ? __ldg(ch + 1) : z;
}

template <bool BF16>
__device__ __forceinline__ unsigned tk_pack(float a, float b)
{
    if (BF16) {
        const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
        return *(const unsigned *)&h;
    }
    const __half2 h = __floats2half2_rn(a, b);
    return *(const unsigned *)&h;
}

/* Row m's 8 values of lane `lane` (columns n0 + 8 lane ..) into D as described above. */
template <bool BF16>
__device__ __forceinline__ void tk_store_row(const smk_gemm16_params &p, int64_t m, int64_t n0, int lane,
                                             const float (&v)[8])
{
    unsigned o[8];
#pragma unroll
    for (int i = 0; i < 4; i++)
        o[i] = o[i + 4] = tk_pack<BF16>(p.alpha * v[2 * i], p.alpha * v[2 * i + 1]);
    unsigned short *row = (unsigned short *)p.D + m * p.ldd + n0;
    const int sd = (int)(((uintptr_t)row >> 1) & 7);
    unsigned r[4], c[4];
    tk_window(o, (8 - sd) & 7, r); /* r element e = own element (e - sd) mod 8 */
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const unsigned prev = __shfl_up_sync(0xffffffffu, r[i], 1);
        const unsigned mask = 2 * i + 1 < sd ? 0xffffffffu : 2 * i < sd ? 0xffffu : 0u; /* elements < sd: lane - 1's */
        c[i] = (prev & mask) | (r[i] & ~mask);
    }
    const int64_t hi = min(p.N, n0 + kTkCols);
    tk_put(row + 8 * lane - sd, c, n0 + 8 * lane - sd, n0, hi);
    if (lane == 31 && sd != 0) /* the segment's last sd columns: r's first sd elements */
        tk_put(row + kTkCols - sd, r, n0 + kTkCols - sd, n0, hi);
}

template <bool BF16>
__global__ void __launch_bounds__(kMvThreads) mv_tinyk16_kernel(smk_gemm16_params p)
{
    const int lane = threadIdx.x & 31;
    const int64_t segs = (p.N + kTkCols - 1) / kTkCols, w = (int64_t)blockIdx.x * 4 + (threadIdx.x >> 5);
    const int64_t m0 = w / segs * kTkRows, n0 = (w % segs) * kTkCols, n = n0 + 8 * lane;
    if (m0 >= p.M)
        return; /* the whole warp */
    const unsigned short *A = (const unsigned short *)p.A, *B = (const unsigned short *)p.B;
    const int mrows = (int)min((int64_t)kTkRows, p.M - m0);
    float acc[kTkRows][8];
#pragma unroll
    for (int i = 0; i < kTkRows; i++)
#pragma unroll
        for (int e = 0; e < 8; e++)
            acc[i][e] = 0.f;
    for (int64_t k = 0; k < p.K; k += kTkUK) {
        uint4 x[kTkUK], y[kTkUK];
        int sh[kTkUK];
#pragma unroll
        for (int u = 0; u < kTkUK; u++)
            if (k + u < p.K)
                tk_load_b(B, p.ldb, k + u, n, p.N, x[u], y[u], sh[u]);
#pragma unroll
        for (int u = 0; u < kTkUK; u++) {
            if (k + u >= p.K)
                break;
            const unsigned c[8] = {x[u].x, x[u].y, x[u].z, x[u].w, y[u].x, y[u].y, y[u].z, y[u].w};
            unsigned bw[4];
            float b[8];
            tk_window(c, sh[u], bw);
            mv_unpack8<BF16>(bw, b);
#pragma unroll
            for (int i = 0; i < kTkRows; i++) {
                const float a = i < mrows ? to_f<BF16>(__ldg(A + (m0 + i) * p.lda + k + u)) : 0.f;
#pragma unroll
                for (int e = 0; e < 8; e++)
                    acc[i][e] = fmaf(a, b[e], acc[i][e]);
            }
        }
    }
#pragma unroll
    for (int i = 0; i < kTkRows; i++)
        if (i < mrows)
            tk_store_row<BF16>(p, m0 + i, n0, lane, acc[i]);
}

bool mv_tinyk16_launch(const smk_gemm16_params &q, const smk_mv_route &r, cudaStream_t s)
{
    if (q.out_f32 || q.beta != 0.f)
        return false; /* C read or fp32 D: mv_tinyk_kernel */
    if (q.dtype == 1)
        mv_tinyk16_kernel<true><<<(unsigned)r.grid[0], kMvThreads, 0, s>>>(q);
    else
        mv_tinyk16_kernel<false><<<(unsigned)r.grid[0], kMvThreads, 0, s>>>(q);
    return true;
}

} /* namespace g16 */
} /* namespace smk */
