/* PTX of the Hopper GEMM (sm_90a only): mbarriers, the TMA tile load, wgmma and setmaxnreg.  Every
 * address here is a shared-memory address (cvta'd, 32-bit); every wrapper is one instruction or one
 * wait loop, so the kernel reads as the pipeline it is.
 *
 * wgmma matrix descriptor (64 bits; PTX ISA "Matrix Descriptor Format", CUTLASS GmmaDescriptor):
 *   bits  0-13  start address >> 4          bits 32-45  stride byte offset (SBO) >> 4
 *   bits 16-29  leading byte offset (LBO) >> 4   bits 49-51 base offset (0: atoms 1024-byte aligned)
 *   bits 62-63  layout type: 0 interleave (no swizzle), 1 128B, 2 64B, 3 32B swizzle */
#ifndef SMK_HOPPER_PTX_CUH
#define SMK_HOPPER_PTX_CUH

#include <stdint.h>

namespace smk {
namespace hop {

__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void bar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

/* the inits visible to the async proxy (TMA's complete_tx) before any thread uses the barriers */
__device__ __forceinline__ void bar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

__device__ __forceinline__ void bar_arrive_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void bar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

/* Spin until the phase of parity `parity` has completed (a fresh barrier counts its phase "1" done). */
__device__ __forceinline__ void bar_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* One TMA box {c0 = inner (contiguous) coordinate, c1 = row} of `map` into dst, counted on bar. */
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const void *map, int c0, int c1, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(dst), "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ void prefetch_map(const void *map)
{
    asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)map) : "memory");
}

__host__ __device__ __forceinline__ uint64_t desc(uint32_t addr, uint32_t lbo, uint32_t sbo, int layout_type)
{
    return (uint64_t)((addr >> 4) & 0x3FFF) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
           ((uint64_t)((sbo >> 4) & 0x3FFF) << 32) | ((uint64_t)layout_type << 62);
}

/* Plain LSU shared-memory accesses of the epilogue's staging tile. */
__device__ __forceinline__ void sts32(uint32_t addr, uint32_t v)
{
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

__device__ __forceinline__ uint4 lds128(uint32_t addr)
{
    uint4 v;
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr)
                 : "memory");
    return v;
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }

template <int R>
__device__ __forceinline__ void setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R)); }
template <int R>
__device__ __forceinline__ void setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R)); }

/* Keep the compiler from moving accumulator reads / writes across the async wgmma (CUTLASS's
 * warpgroup_fence_operand). */
template <int N>
__device__ __forceinline__ void fence_acc(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

#define SMK_WG_F8(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), \
    "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define SMK_WG_D128                                                                            \
    "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"                                  \
    "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"                         \
    "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"                         \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"                         \
    "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"                         \
    "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"                         \
    "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"             \
    "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}"
#define SMK_WG_OPS128(d)                                                                                     \
    SMK_WG_F8(d, 0), SMK_WG_F8(d, 8), SMK_WG_F8(d, 16), SMK_WG_F8(d, 24), SMK_WG_F8(d, 32), SMK_WG_F8(d, 40), \
        SMK_WG_F8(d, 48), SMK_WG_F8(d, 56), SMK_WG_F8(d, 64), SMK_WG_F8(d, 72), SMK_WG_F8(d, 80),           \
        SMK_WG_F8(d, 88), SMK_WG_F8(d, 96), SMK_WG_F8(d, 104), SMK_WG_F8(d, 112), SMK_WG_F8(d, 120)

/* D(64x256, fp32, += always: the kernel zeroes d first) += A(64x16, K-major: imm-trans-a 0) *
 * B(16x256, N-major: imm-trans-b 1), both from shared memory through descriptors; scale-a = scale-b = 1. */
template <bool BF16>
__device__ __forceinline__ void wgmma_n256(float (&d)[128], uint64_t da, uint64_t db)
{
    if (BF16)
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " SMK_WG_D128 ", %128, %129, p, 1, 1, 0, 1;\n}"
                     : SMK_WG_OPS128(d)
                     : "l"(da), "l"(db), "r"(1)
                     : "memory");
    else
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " SMK_WG_D128 ", %128, %129, p, 1, 1, 0, 1;\n}"
                     : SMK_WG_OPS128(d)
                     : "l"(da), "l"(db), "r"(1)
                     : "memory");
}

} /* namespace hop */
} /* namespace smk */

#endif
