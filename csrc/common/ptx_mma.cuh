/* PTX wrappers of the tensor-core path: shared addresses, 16-byte cp.async, ldmatrix, mma.sync and
 * 16-byte st.shared (device code only; the SGEMM's plain loads are ptx_load.cuh).
 *
 *   smem_u32          a generic pointer into shared memory as the 32-bit shared-window address
 *   cp_async16        16-byte global -> shared copy; src_bytes < 16 zero-fills the rest (LDGSTS.ZFILL)
 *   cp_async16_full   the same for 16 in-range bytes: no src-size operand, no zero-fill arithmetic
 *   cp_async_commit / cp_async_wait<N>   close a group / wait until at most N groups are in flight
 *   ldsm_x4 / ldsm_x4_trans   four 8x8 b16 matrices; lanes 8q..8q+7 give matrix q's 8 row addresses
 *                     (16 bytes each), one phase per matrix: a phase is one wavefront iff its 8 rows
 *                     fall in 8 distinct 16-byte slots of the 128-byte bank row
 *   mma16816<BF16>    mma.sync m16n8k16, fp16 or bf16 inputs, fp32 accumulators in place
 *   sts128            16-byte st.shared (4 wavefronts minimum for a full warp)
 *
 * Every asm that orders memory carries a "memory" clobber; ldmatrix and mma do not (they only read
 * and write registers, or shared memory the barriers order). */
#ifndef SMK_COMMON_PTX_MMA_CUH
#define SMK_COMMON_PTX_MMA_CUH

#include <stdint.h>

namespace smk {

__device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* 16-byte cp.async, the last 16 - src_bytes bytes zero-filled (src_bytes in [0, 16]). */
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
/* 16-byte cp.async of 16 in-range bytes (no src-size operand: no zero-fill arithmetic). */
__device__ __forceinline__ void cp_async16_full(unsigned dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned (&r)[4])
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_trans(unsigned addr, unsigned (&r)[4])
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

template <bool BF16>
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
    if (BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                     "{%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                     "{%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void sts128(unsigned addr, const uint4 &v)
{
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

} /* namespace smk */

#endif
