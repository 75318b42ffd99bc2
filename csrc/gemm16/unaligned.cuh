/* Eight 2-byte elements from a global address of any 2-byte alignment, into one 16-byte register
 * vector: the register-staged kernel path (rows not 16-byte aligned, variants 1..7) and the padded
 * copy (pad.cu) read unaligned rows through these. */
#ifndef SMK_GEMM16_UNALIGNED_CUH
#define SMK_GEMM16_UNALIGNED_CUH

#include <stdint.h>

namespace smk {
namespace g16 {

/* Eight consecutive 2-byte elements p[0..7], `valid` (<= 8) of them in range, the rest zero. */
__device__ __forceinline__ uint4 gather8(const unsigned short *p, int valid)
{
    unsigned short h[8];
#pragma unroll
    for (int i = 0; i < 8; i++)
        h[i] = i < valid ? __ldg(p + i) : (unsigned short)0;
    uint4 v;
    v.x = h[0] | ((unsigned)h[1] << 16);
    v.y = h[2] | ((unsigned)h[3] << 16);
    v.z = h[4] | ((unsigned)h[5] << 16);
    v.w = h[6] | ((unsigned)h[7] << 16);
    return v;
}

/* 16 bytes at a 16-byte-aligned global address when pred, else zeros: one predicated LDG.128 (no
 * branch, so a thread's loads of all its chunks are in flight together). */
__device__ __forceinline__ uint4 ldg16_if(uintptr_t addr, bool pred)
{
    uint4 v;
    asm("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %5, 0;\n\t"
        "mov.b32 %0, 0;\n\tmov.b32 %1, 0;\n\tmov.b32 %2, 0;\n\tmov.b32 %3, 0;\n\t"
        "@p ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];\n\t}"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(addr), "r"((int)pred));
    return v;
}

/* Eight elements at p (any 2-byte alignment), `valid` of them in range, the rest zero.
 * fast (variant 5 only, and only where the caller knows p[0..14] lie in the row): the one or two
 * 16-byte-aligned blocks around p[0..7] (they hold nothing outside p[-7..14]) with predicated
 * LDG.128 and a funnel shift, 2 loads instead of 8 LDG.U16; otherwise gather8.  Branch-free. */
__device__ __forceinline__ uint4 load8(const unsigned short *p, int valid, bool fast)
{
    const uintptr_t a = (uintptr_t)p;
    const unsigned sh = (unsigned)(a & 15); /* even */
    const uint4 lo = ldg16_if(a - sh, fast);
    const uint4 hi = ldg16_if(a - sh + (sh ? 16 : 0), fast && sh != 0);
    const uint4 slow = gather8(p, fast ? 0 : valid);
    unsigned w0 = lo.x, w1 = lo.y, w2 = lo.z, w3 = lo.w, w4 = hi.x, w5 = hi.y, w6 = hi.z, w7 = hi.w;
    if (sh & 8) { w0 = w2; w1 = w3; w2 = w4; w3 = w5; w4 = w6; w5 = w7; }
    if (sh & 4) { w0 = w1; w1 = w2; w2 = w3; w3 = w4; w4 = w5; }
    uint4 v;
    if (sh & 2) {
        v.x = __byte_perm(w0, w1, 0x5432);
        v.y = __byte_perm(w1, w2, 0x5432);
        v.z = __byte_perm(w2, w3, 0x5432);
        v.w = __byte_perm(w3, w4, 0x5432);
    } else {
        v = make_uint4(w0, w1, w2, w3);
    }
    return fast ? v : slow;
}

} /* namespace g16 */
} /* namespace smk */

#endif
