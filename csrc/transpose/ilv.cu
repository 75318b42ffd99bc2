/*
 * transpose/ilv.cu -- the interleaving skinny kernel and its launcher: case A (rows = S <= 16 <= cols) of 1- and 2-byte
 * matrices (configs.h skinny_ilv_fits, skinny mode 14; geometry and layouts: skinny_ilv.h); and its reverse, the
 * de-interleaving kernel of case B (rows > cols = S = 2..4 uint8 / 2..8 fp16, packed rows: skinny_dlv_fits, mode 16).
 *
 * Why (issue 26).  Case A with S <= 16 ran on skinny_lean.cuh at 0.37-0.48 of a copy on the law's worst draws (H200,
 * session 57: 52x9x41374 uint8 0.373, 27x7x87006 0.419); ncu on 61x10x53485 uint8: 24.7 M warp instructions in 55 us,
 * 79% in its run phase (about 21 to place each run word and 22 to store its four bytes one by one).  The output is
 * the S rows interleaved, so a lane can build 16 S output bytes from 16 bytes of each row with byte permutes whose
 * selectors depend on S alone (a template argument): about 3 PRMT a 4-byte word, and every global access a 16-byte
 * one -- a warp instruction per 20-40 bytes where skinny_lean issued about 3 a byte.
 *
 * A block: 4 warps, each on its own 32 C columns (C = 16 / esz) of one matrix, no block barrier.  A warp
 *   1. loads, for each row r, the aligned 16-byte chunks over its 512 bytes (one LDG.128 a lane) and, where the row
 *      starts off 16 bytes (mi_r, uniform in the warp), the next lane's chunk by shuffles (lane 31's from lane r,
 *      which loaded chunk 32 of row r) and funnel shifts by mi_r;
 *   2. forms its S chunks (ilv_word: PRMTs from constexpr selectors) and stores them to the staging tile;
 *   3. after __syncwarp, moves the warp's 32 S units out in order: whole 16-byte stores, because the warps start on
 *      16 bytes of the output: a matrix's first h < 16 columns (skinny_ilv.h ilv_head) go element by element in
 *      its first block.
 * The last warp of a matrix (fewer columns) and warps whose loads would pass the matrix's bytes load through
 * global.cuh's load_chunk_in and store their last chunk as aligned pieces.  The three layouts: the same kernel but
 * the staging tile's map (layout.h smk_tile_linear on skinny_ilv.h's ilv_tile).
 */
#include <cstdint>
#include <utility>
#include <cuda_runtime.h>

#include "layout.h"
#include "transpose/configs.h"
#include "transpose/global.cuh"
#include "transpose/skinny_ilv.h"
#include "transpose/unit.cuh"

namespace {

/* One launch: the fields of launch.cu's matrix_args, by name. */
struct IlvArgs {
    const unsigned char *in;
    unsigned char *out;
    int64_t cols, in_rs, in_bs, batch;
    int layout;
};

/* Output word J (bytes 4J .. 4J + 3 of a lane's 16 S) from the lane's 4 S input words v[r][w] (row r's bytes 4w ..):
 * its n <= 4 distinct source words id[] (r * 4 + w) and the PRMT selectors that gather them (unit.cuh prmt). */
struct IlvWord {
    int n, id[4];
    unsigned s0, s1, s2;
};

__host__ __device__ constexpr IlvWord ilv_word_plan(int S, int E, int J, int R = -1)
{
    IlvWord x{0, {0, 0, 0, 0}, 0, 0, 0};
    int sid[4] = {0, 0, 0, 0}, bb[4] = {0, 0, 0, 0};
    for (int k = 0; k < 4; k++) {
        const int o = 4 * J + k, e = o / E, c = e / S, r = e % S, ib = c * E + o % E;
        const int sb = (e * S + R) * E + o % E; // R >= 0 (dlv_word): byte sb of the lane's 16 S input bytes
        const int id = R < 0 ? r * 4 + (ib >> 2) : sb >> 2;
        bb[k] = R < 0 ? ib & 3 : sb & 3;
        int f = 0;
        while (f < x.n && x.id[f] != id)
            f++;
        if (f == x.n)
            x.id[x.n++] = id;
        sid[k] = f;
    }
    for (int k = 0; k < 4; k++) {
        const unsigned lo = (unsigned)((sid[k] & 1) * 4 + bb[k]); // byte bb of source sid within its PRMT pair
        if (x.n <= 2) {
            x.s0 |= (unsigned)(sid[k] * 4 + bb[k]) << (4 * k);
        } else {
            x.s0 |= (sid[k] < 2 ? lo : 0u) << (4 * k);               // pair (id0, id1) at its own byte positions
            x.s2 |= (sid[k] >= 2 ? lo : 0u) << (4 * k);              // pair (id2, id3): n == 4
            x.s1 |= (unsigned)(sid[k] < 2 ? k : x.n == 3 ? 4 + bb[k] : 4 + k) << (4 * k);
        }
    }
    return x;
}

template <int S, int E, int J, int R = -1>
__device__ __forceinline__ uint32_t ilv_word(const uint32_t (&v)[S][4])
{
    constexpr IlvWord x = ilv_word_plan(S, E, J, R);
    constexpr int a = x.id[0], b = x.id[1 < x.n ? 1 : 0], c = x.id[2 < x.n ? 2 : 0], d = x.id[3 < x.n ? 3 : 0];
    if constexpr (x.n == 1 && x.s0 == 0x3210u)
        return v[a >> 2][a & 3];
    else if constexpr (x.n <= 2)
        return prmt(v[a >> 2][a & 3], v[b >> 2][b & 3], x.s0);
    else if constexpr (x.n == 3)
        return prmt(prmt(v[a >> 2][a & 3], v[b >> 2][b & 3], x.s0), v[c >> 2][c & 3], x.s1);
    else
        return prmt(prmt(v[a >> 2][a & 3], v[b >> 2][b & 3], x.s0), prmt(v[c >> 2][c & 3], v[d >> 2][d & 3], x.s2),
                    x.s1);
}

/* Chunks I... of the lane's S to the staging tile at units q0 + I. */
template <int S, int E, int... I>
__device__ __forceinline__ void ilv_stage(const uint32_t (&v)[S][4], unsigned char *sm, smk_tile t, int q0,
                                          std::integer_sequence<int, I...>)
{
    ((*reinterpret_cast<uint4 *>(sm + 16 * smk_tile_linear(t, q0 + I)) =
          make_uint4(ilv_word<S, E, 4 * I>(v), ilv_word<S, E, 4 * I + 1>(v), ilv_word<S, E, 4 * I + 2>(v),
                     ilv_word<S, E, 4 * I + 3>(v))),
     ...);
}

/* v = bytes mi .. mi + 15 of (v : n), mi uniform in the warp (one branch, then four funnel shifts). */
__device__ __forceinline__ void ilv_align(uint32_t (&v)[4], const uint32_t (&n)[4], int mi)
{
    const uint32_t w[8] = {v[0], v[1], v[2], v[3], n[0], n[1], n[2], n[3]};
    const int sh = 8 * (mi & 3);
    switch (mi >> 2) {
    case 0:
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = __funnelshift_r(w[j], w[j + 1], sh);
        break;
    case 1:
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = __funnelshift_r(w[j + 1], w[j + 2], sh);
        break;
    case 2:
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = __funnelshift_r(w[j + 2], w[j + 3], sh);
        break;
    default:
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = __funnelshift_r(w[j + 3], w[j + 4], sh);
        break;
    }
}

/* Bytes [0, m) of the chunk c (m < 16) to the 16-byte aligned g, as aligned pieces of 8, 4, 2, 1. */
__device__ __forceinline__ void ilv_put_head(unsigned char *g, uint4 c, int m)
{
    const uint64_t q0 = (uint64_t)c.y << 32 | c.x, q1 = (uint64_t)c.w << 32 | c.z;
    int o = 0;
    if (m & 8)
        *reinterpret_cast<uint64_t *>(g) = q0, o = 8;
    const uint64_t q = o ? q1 : q0;
    if (m & 4)
        *reinterpret_cast<uint32_t *>(g + o) = (uint32_t)q, o += 4;
    const uint64_t r = q >> (8 * (o & 7));
    if (m & 2)
        *reinterpret_cast<uint16_t *>(g + o) = (uint16_t)r, o += 2;
    if (m & 1)
        g[o] = (unsigned char)(r >> (8 * ((m & 2) ? 2 : 0)));
}

extern __shared__ __align__(16) unsigned char ilv_smem[];

/* tparams: ESZ 1 or 2, S the short side (1..16). */
template <int ESZ, int S>
__global__ void __launch_bounds__(kIlvThreads, S <= 8 ? 8 : 4) skinny_ilv_kernel(const IlvArgs a)
{
    typedef typename Unit<ESZ>::T T;
    constexpr int CW = 32 * 16 / ESZ;
    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return; // uniform per block; no barrier in this kernel
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int64_t n = a.cols, rs = a.in_rs * ESZ;
    const unsigned char *lo = a.in + b * a.in_bs * ESZ, *hi = lo + ((S - 1) * a.in_rs + n) * ESZ;
    unsigned char *ob = a.out + b * S * n * ESZ;
    const int64_t h = min((int64_t)ilv_head((uintptr_t)ob, S, ESZ), n);
    if (blockIdx.x == 0) // the head columns, element by element
        for (int e = threadIdx.x; e < h * S; e += kIlvThreads)
            reinterpret_cast<T *>(ob)[e] = *reinterpret_cast<const T *>(lo + (e % S) * rs + (e / S) * ESZ);
    const int64_t c0 = h + ((int64_t)blockIdx.x * kIlvWarps + w) * CW;
    if (c0 >= n)
        return;
    const int R = (int)min(n - c0, (int64_t)CW); // this warp's columns
    const unsigned char *r0 = lo + c0 * ESZ;     // row 0 of the warp's columns; row r at r0 + r rs
    const unsigned char *a0 = r0 - ((uintptr_t)r0 & 15), *aS = r0 + (S - 1) * rs;
    aS -= (uintptr_t)aS & 15;
    const bool fast = R == CW && a0 >= lo && aS + 16 * 33 <= hi; // warp-uniform: every chunk read inside
    uint32_t v[S][4];
    uint4 ex = make_uint4(0, 0, 0, 0); // lane r < S: chunk 32 of row r
    {
        const unsigned char *p = r0 + (lane < S ? lane : 0) * rs;
        const uint4 *q = reinterpret_cast<const uint4 *>(p - ((uintptr_t)p & 15)) + 32;
        if (lane < S && ((uintptr_t)p & 15))
            ex = fast ? *q : load_chunk_in(q, lo, hi);
    }
#pragma unroll
    for (int r = 0; r < S; r++) {
        const unsigned char *p = r0 + r * rs;
        const uint4 *q = reinterpret_cast<const uint4 *>(p - ((uintptr_t)p & 15)) + lane;
        const uint4 x = fast ? *q : load_chunk_in(q, lo, hi);
        v[r][0] = x.x, v[r][1] = x.y, v[r][2] = x.z, v[r][3] = x.w;
    }
#pragma unroll
    for (int r = 0; r < S; r++) {
        const int mi = (int)((uintptr_t)(r0 + r * rs) & 15);
        if (mi == 0)
            continue; // warp-uniform
        const uint32_t e[4] = {__shfl_sync(~0u, ex.x, r), __shfl_sync(~0u, ex.y, r), __shfl_sync(~0u, ex.z, r),
                               __shfl_sync(~0u, ex.w, r)};
        uint32_t nx[4];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            nx[j] = __shfl_down_sync(~0u, v[r][j], 1);
            nx[j] = lane == 31 ? e[j] : nx[j];
        }
        ilv_align(v[r], nx, mi);
    }
    const smk_tile t = ilv_tile(a.layout, S);
    const int qw = w * 32 * S;
    ilv_stage<S, ESZ>(v, ilv_smem, t, qw + lane * S, std::make_integer_sequence<int, S>{});
    __syncwarp();
    unsigned char *g = ob + c0 * S * ESZ; // on 16 bytes
    const int V = R * S * ESZ;            // the warp's output bytes
#pragma unroll
    for (int k = 0; k < S; k++) {
        const int u = 32 * k + lane;
        if (512 * k >= V)
            break; // warp-uniform: the last warp's units past its bytes (no load issued: skinny_ilv_plan.h)
        if (16 * u >= V)
            continue; // the lanes past them in its last step load nothing
        const uint4 c = *reinterpret_cast<const uint4 *>(ilv_smem + 16 * smk_tile_linear(t, qw + u));
        if (16 * u + 16 <= V)
            *reinterpret_cast<uint4 *>(g + 16 * u) = c;
        else
            ilv_put_head(g + 16 * u, c, V - 16 * u);
    }
}

/* Bytes [b0, b1) of the 16-byte value c (0 <= b0 < b1 <= 16) to the 16-byte aligned g: one STG.128 when whole, else
 * aligned pieces of 8, 4, 2, 1 (at most 7 stores; the bytes outside stay untouched: a neighbour warp's). */
__device__ __forceinline__ void dlv_put(unsigned char *g, uint4 c, int b0, int b1)
{
    if (b0 == 0 && b1 == 16) {
        *reinterpret_cast<uint4 *>(g) = c;
        return;
    }
    const uint64_t q0 = (uint64_t)c.y << 32 | c.x, q1 = (uint64_t)c.w << 32 | c.z;
    for (int o = b0; o < b1;) {
        const uint64_t x = (o < 8 ? q0 : q1) >> (8 * (o & 7));
        if ((o & 7) == 0 && o + 8 <= b1)
            *reinterpret_cast<uint64_t *>(g + o) = x, o += 8;
        else if ((o & 3) == 0 && o + 4 <= b1)
            *reinterpret_cast<uint32_t *>(g + o) = (uint32_t)x, o += 4;
        else if ((o & 1) == 0 && o + 2 <= b1)
            *reinterpret_cast<uint16_t *>(g + o) = (uint16_t)x, o += 2;
        else
            g[o] = (unsigned char)x, o += 1;
    }
}

/* Output row r's chunk of the lane (ilv_word with R = r) to the row's 16-byte grid (skinny_dlv_kernel's step 3): the
 * warp's V bytes of the row start at d; the lane's chunk holds bytes 16 lane .. of them. */
template <int ESZ, int S, int r>
__device__ __forceinline__ void dlv_row(const uint32_t (&v)[S][4], unsigned char *d, int V, int lane)
{
    uint32_t c[4] = {ilv_word<S, ESZ, 0, r>(v), ilv_word<S, ESZ, 1, r>(v), ilv_word<S, ESZ, 2, r>(v),
                     ilv_word<S, ESZ, 3, r>(v)};
    const int mo = (int)((uintptr_t)d & 15);
    unsigned char *g = d - mo; // the row's 16-byte grid: slot k at g + 16 k holds the warp's bytes 16 k - mo ..
    if (mo == 0) {             // warp-uniform
        if (16 * lane < V)
            dlv_put(g + 16 * lane, make_uint4(c[0], c[1], c[2], c[3]), 0, min(16, V - 16 * lane));
        return;
    }
    uint32_t nx[4];
#pragma unroll
    for (int j = 0; j < 4; j++)
        nx[j] = __shfl_down_sync(~0u, c[j], 1);
    if (lane == 0) { // slot 0: the row's first 16 - mo bytes at its bytes mo .. (bytes 16 - mo .. of zeros : c)
        uint32_t y[4] = {0u, 0u, 0u, 0u};
        ilv_align(y, c, 16 - mo);
        dlv_put(g, make_uint4(y[0], y[1], y[2], y[3]), mo, min(16, mo + V));
    }
    const int p0 = 16 * (lane + 1) - mo; // slot lane + 1: the warp's bytes p0 .. p0 + 15
    if (p0 < V) {
        ilv_align(c, nx, 16 - mo);
        dlv_put(g + 16 * (lane + 1), make_uint4(c[0], c[1], c[2], c[3]), 0, min(16, V - p0));
    }
}

template <int ESZ, int S, int... R>
__device__ __forceinline__ void dlv_rows(const uint32_t (&v)[S][4], unsigned char *d0, int64_t rowb, int V, int lane,
                                         std::integer_sequence<int, R...>)
{
    (dlv_row<ESZ, S, R>(v, d0 + R * rowb, V, lane), ...);
}

/* The de-interleaving kernel (case B: rows = R > cols = S <= 4 / 8, packed rows; configs.h skinny_dlv_fits, mode 16): the
 * interleave run backwards.  A warp takes 32 C input rows (C = 16 / esz), one contiguous run of 512 S bytes:
 *   1. loads it as aligned 16-byte chunks in order (lane l chunk 32 k + l, k < S; one LDG.128 a chunk), re-aligned to the
 *      run's first byte (mi, uniform in the matrix: rows packed, a warp's run 512 S bytes) with the next lane's chunk by
 *      shuffles and funnel shifts (lane 31's from lane 0's next chunk, or one extra chunk);
 *   2. stages them to the tile at units 32 S w + 32 k + l (in order) and, after __syncwarp, reads back its S units
 *      32 S w + S l + i: the 16 S bytes of its C input rows (ilv_tile: the same map and banks as the interleave's,
 *      stores and loads swapped);
 *   3. forms with PRMTs (ilv_word, R = output row) the S chunks of 16 bytes, chunk r = its C elements of output row r,
 *      and stores each on the output row's own 16-byte grid: with the row off 16 bytes (mo, uniform in the warp), a
 *      lane stores its chunk's tail with the next lane's head (shuffles, funnel shifts), lane 0 the row's head piece and
 *      lane 31 the tail piece as aligned pieces (the neighbour warps' bytes of those 16 stay theirs).
 * A matrix's last warp (fewer rows) and warps whose chunks pass the matrix's bytes load through load_chunk_in; every
 * warp issues the same shared accesses whatever its rows (skinny_ilv_plan.h skinny_dlv_plan). */
template <int ESZ, int S>
__global__ void __launch_bounds__(kIlvThreads, S <= 8 ? 8 : 4) skinny_dlv_kernel(const IlvArgs a)
{
    constexpr int CW = 32 * 16 / ESZ; // input rows a warp
    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return; // uniform per block; no barrier in this kernel
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int64_t n = a.cols; // here: the matrix's rows R (the output rows' length)
    const unsigned char *lo = a.in + b * a.in_bs * ESZ, *hi = lo + n * S * ESZ;
    unsigned char *ob = a.out + b * S * n * ESZ;
    const int64_t c0 = ((int64_t)blockIdx.x * kIlvWarps + w) * CW;
    if (c0 >= n)
        return;
    const int Rw = (int)min(n - c0, (int64_t)CW), V = Rw * ESZ; // the warp's rows; its bytes of each output row
    const unsigned char *A0 = lo + c0 * S * ESZ;
    const int mi = (int)((uintptr_t)A0 & 15);
    const uint4 *G = reinterpret_cast<const uint4 *>(A0 - mi);
    const bool fast = Rw == CW && A0 - mi >= lo && A0 - mi + 16 * (32 * S + 1) <= hi; // warp-uniform
    uint32_t v[S][4];
#pragma unroll
    for (int k = 0; k < S; k++) {
        const uint4 x = fast ? __ldg(G + 32 * k + lane) : load_chunk_in(G + 32 * k + lane, lo, hi);
        v[k][0] = x.x, v[k][1] = x.y, v[k][2] = x.z, v[k][3] = x.w;
    }
    if (mi != 0) { // warp-uniform
        const uint4 ex = lane == 0 ? (fast ? __ldg(G + 32 * S) : load_chunk_in(G + 32 * S, lo, hi)) : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int k = 0; k < S; k++) {
            uint32_t nx[4];
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const uint32_t up = k + 1 < S ? v[k + 1 < S ? k + 1 : k][j] : (j == 0 ? ex.x : j == 1 ? ex.y : j == 2 ? ex.z : ex.w);
                const uint32_t head = __shfl_sync(~0u, up, 0), down = __shfl_down_sync(~0u, v[k][j], 1);
                nx[j] = lane == 31 ? head : down;
            }
            ilv_align(v[k], nx, mi);
        }
    }
    const smk_tile t = ilv_tile(a.layout, S);
    const int qw = w * 32 * S;
#pragma unroll
    for (int k = 0; k < S; k++)
        *reinterpret_cast<uint4 *>(ilv_smem + 16 * smk_tile_linear(t, qw + 32 * k + lane)) =
            make_uint4(v[k][0], v[k][1], v[k][2], v[k][3]);
    __syncwarp();
#pragma unroll
    for (int i = 0; i < S; i++) {
        const uint4 x = *reinterpret_cast<const uint4 *>(ilv_smem + 16 * smk_tile_linear(t, qw + S * lane + i));
        v[i][0] = x.x, v[i][1] = x.y, v[i][2] = x.z, v[i][3] = x.w;
    }
    dlv_rows<ESZ, S>(v, ob + c0 * ESZ, n * ESZ, V, lane, std::make_integer_sequence<int, S>{});
}

template <int ESZ, int S>
cudaError_t ilv_launch_s(int s, bool dlv, const IlvArgs &a, dim3 grid, cudaStream_t stream)
{
    if constexpr (S > kIlvMaxShort) {
        return cudaErrorInvalidValue;
    } else {
        if (s != S)
            return ilv_launch_s<ESZ, S + 1>(s, dlv, a, grid, stream);
        if (!dlv)
            skinny_ilv_kernel<ESZ, S><<<grid, kIlvThreads, ilv_smem_bytes(a.layout, S), stream>>>(a);
        else if constexpr (S >= 2 && S <= (ESZ == 1 ? kDlvMaxShort1 : kDlvMaxShort2))
            skinny_dlv_kernel<ESZ, S><<<grid, kIlvThreads, ilv_smem_bytes(a.layout, S), stream>>>(a);
        else
            return cudaErrorInvalidValue; // S = 1 is a copy (configs.h copy_fits), the rest skinny_dlv_fits's
        return cudaGetLastError();
    }
}

} // namespace

cudaError_t smk_skinny_ilv_launch(const smk_transpose_params *p, int64_t batch, int layout, cudaStream_t stream)
{
    const int esz = p->esz, s = (int)p->rows;
    if (!skinny_ilv_fits(p->rows, p->cols, p->in_rs, p->in_cs, esz, 14) || (uintptr_t)p->in % esz ||
        ilv_head((uintptr_t)p->out, s, esz) < 0 || layout < 0 || layout >= SMK_NUM_LAYOUTS)
        return cudaErrorInvalidValue;
    const int64_t bx = (p->cols + ilv_block_cols(esz) - 1) / ilv_block_cols(esz), gz = (batch + 65534) / 65535;
    if (bx > INT32_MAX || gz > 65535)
        return cudaErrorInvalidConfiguration;
    const dim3 grid((unsigned)bx, (unsigned)(batch < 65535 ? batch : 65535), (unsigned)gz);
    const IlvArgs a{static_cast<const unsigned char *>(p->in), static_cast<unsigned char *>(p->out), p->cols, p->in_rs,
                    batch > 1 ? p->in_bs : 0, batch, layout};
    return esz == 1 ? ilv_launch_s<1, 1>(s, false, a, grid, stream) : ilv_launch_s<2, 1>(s, false, a, grid, stream);
}

cudaError_t smk_skinny_dlv_launch(const smk_transpose_params *p, int64_t batch, int layout, cudaStream_t stream)
{
    const int esz = p->esz, s = (int)p->cols;
    if (!skinny_dlv_fits(p->rows, p->cols, p->in_rs, p->in_cs, esz, 16) || (uintptr_t)p->in % esz ||
        (uintptr_t)p->out % esz || layout < 0 || layout >= SMK_NUM_LAYOUTS)
        return cudaErrorInvalidValue;
    const int64_t bx = (p->rows + ilv_block_cols(esz) - 1) / ilv_block_cols(esz), gz = (batch + 65534) / 65535;
    if (bx > INT32_MAX || gz > 65535)
        return cudaErrorInvalidConfiguration;
    const dim3 grid((unsigned)bx, (unsigned)(batch < 65535 ? batch : 65535), (unsigned)gz);
    const IlvArgs a{static_cast<const unsigned char *>(p->in), static_cast<unsigned char *>(p->out), p->rows, p->in_rs,
                    batch > 1 ? p->in_bs : 0, batch, layout};
    return esz == 1 ? ilv_launch_s<1, 2>(s, true, a, grid, stream) : ilv_launch_s<2, 2>(s, true, a, grid, stream);
}
