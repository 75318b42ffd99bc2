/*
 * transpose/skinny_strip_b.cuh -- case B of the sub-word skinny transpose (rows > cols = S, S = 17..64, 1- and
 * 2-byte elements, packed input rows: in_rs == cols) as strips of consecutive input rows (knob transpose_skinny =
 * 12, configs.h's skinny_strip_b_fits; issue 26).  The mirror of skinny_strip.cuh's case A.
 *
 * Why.  Case B ran on skinny_prmt.cuh's case-B kernel, issue-bound (ncu, session 43: ~1.2-1.5 warp instructions a
 * byte; H100: 1568981x31 uint8 0.35 of a copy, 579487x25 uint8 0.62).
 *
 * What.  A block takes W = 512 / esz consecutive input rows (the last block fewer): ONE contiguous input run of
 * W * S * esz bytes, whatever S's alignment, and writes S output row segments of W elements (512 bytes) each.
 *
 *   load    the run's aligned 16-byte chunks (from the run's first byte rounded down to 16: bstrip_chunks) into a
 *           linear byte buffer B (B byte = run byte + imis), one LDG.128 and four STS.32 a chunk (the map may
 *           split a chunk: pad and swizzle move words).
 *   gather  output vector u (16 bytes, V = 16 / esz elements) of output row s: its global bytes from the segment's
 *           start rounded down to 16 (omis = its offset), so every store is an aligned STG.128 but the segment's
 *           two cut end vectors (element by element).  Element k is input row r = (16 u - omis) / esz + k, column
 *           s: B byte imis + (r * S + s) * esz -- a step of S * esz bytes per element (one IADD, the map, one LDS).
 *           Lanes: 8 output rows (lane & 7) x 4 consecutive vectors (lane >> 3): each STG.128 is 8 x 64 contiguous
 *           bytes (whole sectors when the segment is aligned), and the gather's LDS of 8 consecutive rows s share
 *           one to three words while the 4 vector groups sit 16 S bytes apart.
 *           Work items q over the block's 8 S (4-vector group h, row s) pairs, s fastest (q = S h + s): thread t
 *           starts at q = 8 (t >> 5) + (t & 7) and steps by 64 (h, s by the constants 64 / S, 64 % S), so every
 *           lane is busy and a warp's 8 q are 8 consecutive rows (or two runs of them): S / 8 steps a thread.
 *   cut     the segment's first vector (omis != 0) and, where the segment runs past 32 vectors, its 33rd.
 *
 * B's map (layout.h: smk_tile of 4-byte words, 32 to a row, skinny_strip.cuh's strip_tile(layout, 5); byte b at
 * row b >> 7, byte b & 127): naive 128-byte rows, pad one word more, swizzle the word slot XOR the row's low 5 bits.
 * Bank model (explain(), mean over S = 17..64 of the gather's wavefronts an LDS): R a multiple of 16 (every output
 * row on 16 bytes) naive 1.58 / pad 1.49 / swizzle 1.56 uint8, 1.83 / 1.82 / 1.93 fp16; R odd (the rows' offsets
 * in their 16 bytes vary, so a warp's 8 rows read input rows up to 15 apart) 2.87 / 2.73 / 3.20 uint8, 3.03 / 2.87
 * / 3.15 fp16, worst pad S = 62 (8.2): not fixed here (a gather from the segment's own 16-byte grid, re-aligned
 * by funnel shifts with the neighbour lane's vector, would make every warp's rows read the same input rows).
 * skinny_strip_b_plan.h replays the accesses for explain().
 * Count (PTX, per whole 16-byte vector): uint8 naive 50, pad / swizzle 111 (16 x (IADD, map, LDS.U8), 12 PRMT,
 * STG.128; SASS folds the pad's SHL + ADD into a LEA) plus ~15 of loop: ~5-8 thread instructions a byte, 0.16-0.25
 * warp instructions; fp16 54 a vector (~0.12).  Load: per 16 bytes an LDG.128 and 4 STS.32 (~0.02).
 * Not here: fp16 S = 65..128 (B would be 64 KB at 512-byte segments: an opt-in, or 256-byte segments).
 * Grid: x = strip of W input rows, y + 65535 z = matrix of the batch (launch.cu's grid_tiles).
 */
#ifndef SMK_TRANSPOSE_SKINNY_STRIP_B_CUH
#define SMK_TRANSPOSE_SKINNY_STRIP_B_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "layout.h"
#include "transpose/skinny_strip.cuh"

namespace {

constexpr int kBStripBytes = 512; /* an output row segment of a block: W * esz */
constexpr int kBStripLw = 5;      /* B's row: 32 words */

/* Everything one launch needs (the first fields as SkinnyArgs': launch.cu's matrix_args fills them). */
struct BStripArgs {
    const unsigned char *in;
    unsigned char *out;
    int64_t rows, cols;   // of one matrix, in elements (rows > cols = S)
    int64_t in_rs, in_cs; // element strides (in_rs == cols, in_cs == 1)
    int64_t in_bs;        // element stride between input matrices
    int64_t batch;
    int64_t tiles_x; // strips of W input rows
    int s;           // the short side S
    int dh, ds;      // 64 / S and 64 % S: a thread's (h, s) step (64 items a block step)
};

/* Shared byte of B's byte b (row b >> 7): skinny_strip.cuh's strip_slot(layout, 5, b >> 7, b & 127) in the form that
 * costs fewest instructions after each element's IADD (pad: SHF + LEA, swizzle: SHF + LOP3 + LOP3);
 * skinny_strip_b_plan.h's static_assert holds it to layout.h's map. */
SMK_HD int bstrip_slot(int layout, int b)
{
    return layout == SMK_PAD ? b + ((b >> 7) << 2) : layout == SMK_SWIZZLE ? b ^ ((b >> 5) & 124) : b;
}

/* B's 16-byte chunks: the run of nb bytes from imis (its first byte's offset in its aligned chunk). */
SMK_HD int bstrip_chunks(int imis, int nb) { return (imis + nb + 15) >> 4; }

/* B's bytes for S (the largest run, 15 bytes of misalignment). */
inline int bstrip_bytes(int layout, int s)
{
    const int chunks = bstrip_chunks(15, kBStripBytes * s);
    return smk_tile_elems(strip_tile(layout, kBStripLw), (chunks * 16 + 127) >> 7) * 4;
}

/* Thread t's first work item: q = 8 (t >> 5) + (t & 7) over the (h, s) pairs, s fastest; its vector u = 4 h + the
 * lane's group (t >> 3) & 3. */
SMK_HD int bstrip_item(int t) { return 8 * (t >> 5) + (t & 7); }
SMK_HD int bstrip_group(int t) { return (t >> 3) & 3; }

#ifdef __CUDACC__
/* Output vector at B byte b0 (element 0), S * esz bytes an element on. */
template <int L, int ESZ>
__device__ __forceinline__ uint4 bstrip_gather(int b0, int se)
{
    uint32_t w[4];
    if constexpr (ESZ == 1) {
        uint32_t e[16];
#pragma unroll
        for (int k = 0; k < 16; k++)
            e[k] = skinny_strip_smem[bstrip_slot(L, b0 + k * se)];
#pragma unroll
        for (int i = 0; i < 4; i++)
            w[i] = __byte_perm(__byte_perm(e[4 * i], e[4 * i + 1], 0x0040), __byte_perm(e[4 * i + 2], e[4 * i + 3], 0x0040),
                               0x5410);
    } else {
        uint32_t h[8];
#pragma unroll
        for (int k = 0; k < 8; k++)
            h[k] = *reinterpret_cast<const uint16_t *>(skinny_strip_smem + bstrip_slot(L, b0 + k * se));
#pragma unroll
        for (int i = 0; i < 4; i++)
            w[i] = __byte_perm(h[2 * i], h[2 * i + 1], 0x5410);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* Vector u of a segment (global bytes A + 16 u, segment bytes y0 = 16 u - omis .. + 15 of nbytes; B byte b0 for its
 * element 0, real or not): whole -> gather + STG.128, else element by element. */
template <int L, int ESZ>
__device__ __forceinline__ void bstrip_vector(uint4 *A, int u, int omis, int nbytes, int b0, int se)
{
    typedef typename Unit<ESZ>::T T;
    const int y0 = 16 * u - omis;
    if (y0 >= 0 && y0 + 16 <= nbytes) {
        A[u] = bstrip_gather<L, ESZ>(b0, se);
        return;
    }
    unsigned char *base = reinterpret_cast<unsigned char *>(A + u);
    for (int k = 0; k < 16 / ESZ; k++) {
        const int y = y0 + k * ESZ;
        if (y >= 0 && y < nbytes)
            *reinterpret_cast<T *>(base + k * ESZ) =
                *reinterpret_cast<const T *>(skinny_strip_smem + bstrip_slot(L, b0 + k * se));
    }
}

/* tparams: L the smk_layout of B, ESZ 1 or 2.  256 threads. */
template <int L, int ESZ>
__global__ void __launch_bounds__(kStripThreads) skinny_strip_b_kernel(const BStripArgs a)
{
    static_assert(ESZ == 1 || ESZ == 2, "strip transpose: sub-word elements only");
    const int64_t b = (int64_t)blockIdx.z * 65535 + blockIdx.y;
    if (b >= a.batch)
        return; // uniform per block, before the barrier
    constexpr int W = kBStripBytes / ESZ;
    const int S = a.s, se = S * ESZ, t = threadIdx.x;
    const int64_t p0 = (int64_t)blockIdx.x * W;
    const int n = (int)(a.rows - p0 < W ? a.rows - p0 : W); // [1, W]
    const unsigned char *run = a.in + (b * a.in_bs + p0 * S) * ESZ;
    const int imis = (int)((uintptr_t)run & 15), nchunks = bstrip_chunks(imis, n * se);
    const uint4 *src = reinterpret_cast<const uint4 *>(run - imis);
    // block-uniform: the first or last chunk straddles the matrix's first or last byte (then read by load_chunk_in)
    const unsigned char *lo = a.in + b * a.in_bs * ESZ, *hi = lo + a.rows * a.cols * ESZ;
    const bool clip = words_leave<16>(run, run + n * se, lo, hi);
    for (int c = t; c < nchunks; c += kStripThreads) {
        const uint4 v = clip && (c == 0 || c == nchunks - 1) ? load_chunk_in(src + c, lo, hi) : __ldg(src + c);
        const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int i = 0; i < 4; i++)
            *reinterpret_cast<uint32_t *>(skinny_strip_smem + bstrip_slot(L, 16 * c + 4 * i)) = w[i];
    }
    __syncthreads();
    unsigned char *om = a.out + (b * a.rows * a.cols + p0) * ESZ;
    const int nbytes = n * ESZ, g = bstrip_group(t);
    int q = bstrip_item(t), h = q / S, s = q - h * S;
    for (; q < 8 * S; q += 64) {
        unsigned char *seg = om + (int64_t)s * a.rows * ESZ;
        const int omis = (int)((uintptr_t)seg & 15), u = 4 * h + g;
        uint4 *A = reinterpret_cast<uint4 *>(seg - omis);
        const int b0 = imis + (16 * u - omis) / ESZ * se + s * ESZ; // omis, 16 u: multiples of ESZ
        if (16 * u < omis + nbytes)
            bstrip_vector<L, ESZ>(A, u, omis, nbytes, b0, se);
        if (u == 0 && 16 * 32 < omis + nbytes) // the 33rd vector of a full, misaligned segment
            bstrip_vector<L, ESZ>(A, 32, omis, nbytes, b0 + 32 * 16 / ESZ * se, se);
        h += a.dh;
        s += a.ds;
        if (s >= S) {
            s -= S;
            h++;
        }
    }
}
#endif

} // namespace

#endif /* SMK_TRANSPOSE_SKINNY_STRIP_B_CUH */
