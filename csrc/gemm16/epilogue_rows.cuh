/* The tensor-core GEMM's staged row epilogue (included by kernel.cuh; issue #28, knob gemm16_epi):
 * D = alpha * acc for a 2-byte D with beta == 0, through shared memory, stored as aligned 16-byte
 * chunks of D's rows.  fp32 D (split-K's partials included) and beta != 0 keep the register epilogue
 * (epilogue.cuh): the write-bound shapes this is for write a 2-byte D and read no C.
 *
 * Why: the register epilogue's warp store writes 8 rows x 4 lanes of adjacent pairs: with D's pairs
 * aligned one 4-byte store = 128 bytes in 8 sectors, with odd ldd (or D off 4 bytes) two 2-byte stores
 * = 64 bytes in 8..16 sectors each.  On small K that store is the kernel (10706x2461x17 bf16: 150 us,
 * L1 80% busy, DRAM 7%).  Here a warp store writes 31..32 lanes x 16 bytes of one row (BN 256; 2 or
 * 4 rows for BN 128 / 64): ~496 bytes in 16..17 sectors.
 *
 *   1. barrier (every warp past its last fragment load: the stages are free), each warp writes its
 *      alpha-scaled, rounded pairs into the D tile (smem.cuh DTile: layout.h map, conflict-free under
 *      pad / swizzle), barrier;
 *   2. row instruction it of a warp: rpi = 32 / cpr rows, cpr = BN / 8 lanes per row; lane k of a row
 *      reads slot k (tile elements 8k .. 8k+7, one ld.shared.v4) and gets slot k - 1 from lane k - 1
 *      (a shuffle; slot cpr - 1 for lane 0).  The row's global start g0 lies sh = (g0 % 16) / 2
 *      elements past a 16-byte boundary ga: lane k writes the aligned chunk ga + 16 k, i.e. tile
 *      elements 8k - sh .. 8k - sh + 7, the window (slot k-1, slot k) shifted by sh elements (selects
 *      on sh's bits, then a funnel shift by 16 for odd sh).  Lane 0's elements e < sh are the row's
 *      last sh tile elements (8 cpr - sh + e: the shuffle gave it slot cpr - 1), which lie in the
 *      chunk past the tile's row, ga + 16 cpr: so the cpr lanes cover the row's tile elements exactly
 *      once, 8 per lane, without a 33rd lane.  A chunk wholly inside the block's columns (< nc = min(BN,
 *      N - bn)) is one st.global.v4; the others (lane 0 when sh > 0, the chunks at nc) store their
 *      in-range elements (aligned 4-byte pairs where a pair is whole, else exact 2-byte stores):
 *      never a byte of a neighbouring block's columns.
 * Same accumulators, same rounding as the register epilogue: D is bit-identical between the two. */
#ifndef SMK_GEMM16_EPILOGUE_ROWS_CUH
#define SMK_GEMM16_EPILOGUE_ROWS_CUH

namespace smk {
namespace g16 {

__device__ __forceinline__ void sts_u32(unsigned addr, unsigned v)
{
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ uint4 lds_v4(unsigned addr)
{
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr)
                 : "memory");
    return v;
}

/* One weak 16-byte global store (a plain uint4 store through ga compiled to 4 x STG.32, __stwb to
 * STG.128.STRONG.SM). */
__device__ __forceinline__ void stg_v4(unsigned short *p, const uint4 &v)
{
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(__cvta_generic_to_global(p)), "r"(v.x), "r"(v.y),
                 "r"(v.z), "r"(v.w)
                 : "memory");
}

/* Elements sh .. sh+7 of the 16-element window (prev, cur) read backwards: out element e = window
 * element 8 - sh + e, for sh in 0..7.  s = 8 - sh = 2q + odd: out word j = words q+j, q+j+1 funnel-
 * shifted by 16 odd; sh == 0 is cur itself (q = 4 would need a ninth word). */
__device__ __forceinline__ uint4 shift_window(const uint4 &prev, const uint4 &cur, int sh)
{
    const unsigned x[8] = {prev.x, prev.y, prev.z, prev.w, cur.x, cur.y, cur.z, cur.w};
    const int s = 8 - sh, q = s >> 1, shift = (s & 1) * 16; /* q in 0..3 when sh > 0 */
    unsigned t[6], y[5];
#pragma unroll
    for (int i = 0; i < 6; i++)
        t[i] = (q & 2) ? x[i + 2] : x[i];
#pragma unroll
    for (int i = 0; i < 5; i++)
        y[i] = (q & 1) ? t[i + 1] : t[i];
    uint4 o;
    o.x = __funnelshift_r(y[0], y[1], shift);
    o.y = __funnelshift_r(y[1], y[2], shift);
    o.z = __funnelshift_r(y[2], y[3], shift);
    o.w = __funnelshift_r(y[3], y[4], shift);
    return sh == 0 ? cur : o;
}

/* Step 1: the warp's accumulators, alpha-scaled and rounded, into the D tile at sd (shared address). */
template <class C, int LAYOUT, bool BF16>
__device__ __forceinline__ void stage_tile(const float (&acc)[C::MI][C::NI][4], float alpha, int warp, int lane,
                                           unsigned sd)
{
    using T = DTile<C, LAYOUT>;
#pragma unroll
    for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int ni = 0; ni < C::NI; ni++) {
                int r, c;
                Map<C>::d_frag(warp, lane, mi, ni, h, &r, &c);
                const unsigned v = from_f<BF16>(alpha * acc[mi][ni][h * 2]) |
                                   ((unsigned)from_f<BF16>(alpha * acc[mi][ni][h * 2 + 1]) << 16);
                sts_u32(sd + 2u * (unsigned)T::off(r, c), v);
            }
}

/* Step 2's store of one lane: chunk k of the row that starts at g (D's tile column 0), nc tile columns
 * in range.  ga is g moved back by pointer arithmetic (not through an integer): the compiler keeps
 * knowing it is D, a kernel parameter, and emits STG, not generic ST. */
template <int CPR>
__device__ __forceinline__ void store_chunk(unsigned short *g, int k, int nc, const uint4 &prev, const uint4 &cur)
{
    const int sh = (int)(((uintptr_t)g & 15) >> 1); /* elements past the 16-byte boundary */
    unsigned short *ga = g - sh;
    const uint4 o = shift_window(prev, cur, sh);
    const int t0 = 8 * k - sh; /* tile element of out element 0 */
    if (t0 >= 0 && t0 + 8 <= nc) {
        stg_v4(ga + 8 * k, o);
        return;
    }
    /* element e: lane 0's e < sh wrap to the row's last elements, past the tile's chunks; a pair (2j,
     * 2j+1) on one side, both in range, is one aligned 4-byte store (every pair when sh is even and the
     * row whole: 4 stores, not 8), the pair across the wrap (odd sh) or across nc two 2-byte stores */
    const unsigned w[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const int e = 2 * j;
        const bool w0 = t0 + e < 0, w1 = t0 + e + 1 < 0;
        const bool in0 = (w0 ? t0 + e + 8 * CPR : t0 + e) < nc, in1 = (w1 ? t0 + e + 1 + 8 * CPR : t0 + e + 1) < nc;
        unsigned short *d0 = ga + 8 * k + e + (w0 ? 8 * CPR : 0);
        if (in0 && in1 && w0 == w1) {
            *(unsigned *)d0 = w[j];
        } else {
            if (in0)
                d0[0] = (unsigned short)w[j];
            if (in1)
                ga[8 * k + e + 1 + (w1 ? 8 * CPR : 0)] = (unsigned short)(w[j] >> 16);
        }
    }
}

/* The staged epilogue of the block (bm, bn): smem is the kernel's dynamic shared memory (sbase). */
template <class C, int LAYOUT, bool BF16>
__device__ __forceinline__ void epilogue_rows(const smk_gemm16_params &p, const float (&acc)[C::MI][C::NI][4],
                                              int64_t bm, int64_t bn, int warp, int lane, unsigned sbase)
{
    using T = DTile<C, LAYOUT>;
    constexpr int CPR = T::CPR;
    __syncthreads(); /* every warp past its last fragment load (and cp.async drained: the loaders wait) */
    stage_tile<C, LAYOUT, BF16>(acc, p.alpha, warp, lane, sbase);
    __syncthreads();
    const int64_t nleft = p.N - bn;
    const int nc = nleft < C::BN ? (int)nleft : C::BN;
    unsigned short *const D = (unsigned short *)p.D;
#pragma unroll 4
    for (int it = 0; it < T::ITERS; it++) {
        int r, k;
        Map<C>::d_row(warp, lane, it, CPR, &r, &k);
        const uint4 cur = lds_v4(sbase + 2u * (unsigned)T::off(r, 8 * k));
        const int src = (lane & ~(CPR - 1)) | ((k + CPR - 1) & (CPR - 1)); /* slot k - 1 of the same row */
        uint4 prev;
        prev.x = __shfl_sync(0xffffffffu, cur.x, src);
        prev.y = __shfl_sync(0xffffffffu, cur.y, src);
        prev.z = __shfl_sync(0xffffffffu, cur.z, src);
        prev.w = __shfl_sync(0xffffffffu, cur.w, src);
        const int64_t row = bm + r;
        if (row < p.M)
            store_chunk<CPR>(D + row * p.ldd + bn, k, nc, prev, cur);
    }
}

} /* namespace g16 */
} /* namespace smk */

#endif
