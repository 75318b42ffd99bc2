/* Narrow cp.async: the copies of AsyncLoad<C, S, true> (load_async.cuh) for rows aligned to 8 or 4 bytes
 * but not 16 (knob gemm16_narrow_async; api/gemm16.h smk_gemm16_narrow).
 *
 * cp.async.ca moves 4, 8 or 16 bytes (PTX ISA: cp-size; .cg only 16), each aligned to its size on both
 * sides.  A row whose start and pitch are multiples of W bytes is copied as the same 16-byte chunks the
 * aligned path copies, each as 16 / W cp.async of W bytes into the same 16-byte shared chunk of the
 * layout.h map (W-aligned inside it): the swizzle / pad / naive maps, the stages, the barrier and the
 * fragment prefetch are AsyncLoad's, only the copy width changes.  The register-staged path (load_staged.cuh)
 * is the alternative: 8 LDG.U16 + packing + one st.shared.v4 per chunk, one k-tile in flight
 * (docs/GEMM16_NOTES.md, "Session 44 (g16align4)").
 *
 * Widths travel in the kernel's fastu argument (kernel.cuh): bits 0..4 A's W, bits 8..12 B's, each 4, 8
 * or 16 (16: that operand's rows are aligned, one cp.async per chunk as AsyncLoad). */
#ifndef SMK_GEMM16_LOAD_NARROW_CUH
#define SMK_GEMM16_LOAD_NARROW_CUH

namespace smk {
namespace g16 {

/* W-byte cp.async (W = 4 or 8) of src_bytes (0..W) in-range bytes, the rest zero-filled. */
template <int W>
__device__ __forceinline__ void cp_async_w(unsigned dst, const void *src, int src_bytes)
{
    static_assert(W == 4 || W == 8, "cp.async.ca moves 4, 8 or 16 bytes");
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(W), "r"(src_bytes)
                 : "memory");
}
/* W-byte cp.async of W in-range bytes (no src-size operand). */
template <int W>
__device__ __forceinline__ void cp_async_w_full(unsigned dst, const void *src)
{
    static_assert(W == 4 || W == 8, "cp.async.ca moves 4, 8 or 16 bytes");
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(W) : "memory");
}

/* The piece a thread copies at its copy i of a chunk: rotated by the thread's group of 8 (bits 3..4 of
 * the thread index).  A warp's chunk instruction covers 4 groups of 8 lanes, each group 8 chunks that
 * fill one 128-byte row of banks in any layout.h map (a row of the A tile or of a 64-column B panel, the
 * swizzle / pad permuting the slots within it), so the 4 lanes that share a 16-byte slot column are one
 * per group: rotated, their W-byte pieces lie in different banks (W = 4: all 4; W = 8: 2 per bank pair),
 * 1 / 2 wavefronts per instruction instead of 4 (gemm16_plan.cu replays the same; plan_narrow.h). */
template <int W>
__device__ __forceinline__ int piece_off(int i)
{
    return ((i + (int)(threadIdx.x >> 3)) & (16 / W - 1)) * W;
}

/* One 16-byte chunk, all of it in range, as 16 / W copies. */
template <int W>
__device__ __forceinline__ void chunk_full(unsigned dst, const char *src)
{
    if constexpr (W == 16) {
        cp_async16_full(dst, src);
    } else {
#pragma unroll
        for (int i = 0; i < 16 / W; i++) {
            const int o = piece_off<W>(i);
            cp_async_w_full<W>(dst + o, src + o);
        }
    }
}
/* One 16-byte chunk of which `bytes` (1..16) lie in range: the piece at byte o copies min(W, bytes - o)
 * of them (none past the row: its source is then the chunk's own start, never read). */
template <int W>
__device__ __forceinline__ void chunk_part(unsigned dst, const char *src, int bytes)
{
    if constexpr (W == 16) {
        cp_async16(dst, src, bytes);
    } else {
#pragma unroll
        for (int i = 0; i < 16 / W; i++) {
            const int o = piece_off<W>(i), b = bytes - o;
            cp_async_w<W>(dst + o, b > 0 ? src + o : src, b <= 0 ? 0 : b >= W ? W : b);
        }
    }
}

} /* namespace g16 */
} /* namespace smk */

#endif
