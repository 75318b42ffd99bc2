/*
 * gemm16.cu -- one tensor-core GEMM for 2-byte inputs (fp16 / bf16), templated on the shared-memory
 * layout (naive / pad / swizzle, plus explicit CuTe swizzles), through ldmatrix and mma.sync.
 *
 *   D = alpha * A @ B + beta * C     A: M x K, B: K x N, row-major, leading dimensions in elements;
 *                                    fp16 or bf16 inputs, fp32 accumulation, D (and C) in the input
 *                                    dtype or float32 (out_f32)
 *
 * Structure: block tile BM x BN x BK, 8 warps of WM x WN; global -> shared with 16-byte cp.async into
 * STAGES shared buffers; fragments with ldmatrix.x4 (A) and ldmatrix.x4.trans (B, which is K x N
 * row-major in shared memory as in global memory), double-buffered one k16 step ahead; math with
 * mma.sync.m16n8k16 (f32 accumulators); epilogue from registers with alpha / beta, pairs of elements
 * where aligned.  One __syncthreads per k-tile, at its last k step: wait for tile kt+1, sync,
 * prefetch tile kt+1's first fragments, then the last MMAs of tile kt; the top of the next tile
 * refills the stage tile kt used.  (Measured on an H100, 4096^3 fp16: without the fragment
 * prefetch this kernel ran 335 TFLOP/s at 128x256x64, with it 389; with interior tiles copied by
 * plain cp.async instead of the predicated zero-fill path, 431: 257 instead of 428 instructions per
 * warp per k-tile, and half the LDGSTS wavefronts -- bench/GEMM16_NOTES.md.)
 * Unaligned operands (a base or a leading dimension not a multiple of 8 elements: rows not 16-byte
 * aligned, e.g. 4097x4095x4093): variant 0 copies them into padded temporaries first (smk_gemm16_launch,
 * below; H100 4097x4095x4093: 294 TFLOP/s against 108 for the in-kernel path and cuBLAS's 152).
 * Variants 1..7 take the SAME kernel with VEC = false: each 16-byte shared vector is gathered with
 * eight predicated 2-byte global loads into registers one k-tile ahead and stored with one 16-byte
 * st.shared into the same layout (one barrier per tile, no fragment prefetch across it).  Variant 5
 * instead reads the one or two aligned 16-byte blocks around each chunk and funnel-shifts: correct,
 * but measured slower (79 vs 110 TFLOP/s at 4097x4095x4093 on an H100), kept for the benchmark.
 * Edges (M, N, K not tile multiples) are handled in the kernel: chunks wholly outside M or N are not
 * copied (they only feed outputs that are never stored), chunks past K are zeroed with st.shared,
 * chunks partly outside K or N use cp.async's src-size zero fill; 64-bit global offsets, any M, N,
 * K >= 0.
 *
 * ---- Shared-memory tiles (the layout changes ONLY these maps, all from layout.h) ------------------
 *   A tile: BM rows (m) x BK columns (k), tile tA = {layout, log2 BK, vec 8, 2-byte}.
 *   B tile: BK rows (k) x BN columns (n), stored as BN/64 panels of BK x 64 (128-byte rows), each
 *           panel tile tB = {layout, 6, vec 8, 2-byte}.  Panels make every B row 128 bytes, so one
 *           swizzle argument reads the same on both tiles.
 *   pad: one 16-byte vector (8 elements) per row.  swizzle (automatic, smk_tile_swizzle): A with
 *   BK = 32 (64-byte rows) Swizzle<2,3,3>, A with BK = 64 and B (128-byte rows) Swizzle<3,3,3>.
 *   Explicit swizzles (params swz_b/m/s): <2,3,2> (the article's), <2,3,3>, <3,3,3> on both tiles.
 *
 * ---- Bank arithmetic (32 banks x 4 bytes = eight 16-byte "slots" per 128-byte bank row) ---------
 * An ldmatrix.x4 is 4 phases, one per 8x8 matrix: lanes 8q..8q+7 give the 8 row addresses (16 bytes
 * each) of matrix q; a phase is one wavefront iff its 8 rows hit 8 distinct slots.
 *   A fragment (ldmatrix.x4): matrix q reads rows m0..m0+7 (m0 = 0 mod 8) at one 16-byte k chunk kc.
 *     BK = 32, 64-byte rows: byte = 64 m + 16 kc; slot = 4 (m & 1) + kc, bank row m / 2.
 *       naive:  2 distinct slots for 8 rows -> 4-way: 4 wavefronts per phase, 16 per ldmatrix.x4.
 *       pad:    pitch 80 bytes: slot = (5 m + kc) mod 8, distinct for 8 consecutive m -> 1 per phase.
 *       Swizzle<2,3,3>: kc ^= (m >> 1) & 3 -> slot = 4 (m & 1) + (kc ^ (m>>1 & 3)): 8 distinct -> 1.
 *       Swizzle<2,3,2> (article): kc ^= m & 3 -> slot = 4 (m & 1) + (kc ^ (m & 3)); m and m + 4 give
 *               the same slot in different bank rows -> 2-way: 2 wavefronts per phase, 8 per x4.
 *       Swizzle<3,3,3>: XORs m bits 1..3 into offset bits 3..5 (kc and the row-parity bit): for 8
 *               aligned rows m bit 3 is constant -> 8 distinct slots -> 1.
 *     BK = 64, 128-byte rows: byte = 128 m + 16 kc; slot = kc, bank row m.
 *       naive:  one slot, 8 rows -> 8-way: 8 per phase, 32 per x4.
 *       pad:    pitch 144: slot = (m + kc) mod 8 -> 1.     Swizzle<3,3,3>: kc ^ (m & 7) -> 1.
 *       Swizzle<2,3,3>: kc ^ (m & 3): m and m+4 collide -> 2-way.   Swizzle<2,3,2>: XORs (m & 1,
 *               column bit 5) -> 2 distinct slots per phase -> 4-way.
 *   B fragment (ldmatrix.x4.trans): matrix q reads rows k0..k0+7 of one panel at one n chunk nc:
 *     byte = 128 k + 16 nc (panel rows are 128 bytes) -- exactly the BK = 64 A case:
 *       naive 8-way, pad 1, Swizzle<3,3,3> 1, <2,3,3> 2-way, <2,3,2> 4-way.
 *   cp.async stores (16 bytes, quarter-warp phases of 8 lanes): 8 consecutive lanes write 128
 *     contiguous logical bytes (A: two 64-byte rows or one 128-byte row; B: one panel row), which
 *     every swizzle only permutes within the bank row -> conflict-free by the shared-address rule;
 *     pad shifts each row by 16 bytes, so a quarter-warp spanning two 64-byte A rows wraps into the
 *     next bank row (2-way on one slot).  Measured (ncu, H100): LDGSTS's shared writes show up only
 *     in smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts (not in ..._op_st), one per
 *     64 bytes at best: 8 per instruction for naive / swizzle with 128-byte rows (BK = 64), 12 for
 *     <2,3,2>, 14.5 for pad -- the LDGSTS rule of bank_model.c, which also needs the global sources
 *     (bench/GEMM16_NOTES.md).
 *   Measured ldmatrix wavefronts per instruction (ncu, H100, 4096^3): BK = 64 naive 31.9, pad 4.0,
 *     swizzle 4.0, <2,3,2> 15.9, <2,3,3> 8.0; BK = 32 (A 4-way, B 8-way) naive 23.9, <2,3,2> 12.0,
 *     <2,3,3> 6.0, pad / swizzle / <3,3,3> 4.0 -- the arithmetic above, phase by phase.
 *
 * Rules: the launcher validates params (cudaErrorInvalidValue), opts into > 48 KB shared memory once
 * per instantiation, returns the first CUDA error, never exits, allocates nothing.
 */
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "layout.h"
#include "api/gemm16.h"
#include "runtime.h"

namespace smk {
namespace g16 {

/* Explicit swizzles the launcher instantiates (index = "swizzle id"; 0 = the automatic choice). */
struct SwzId { int b, m, s; };
constexpr SwzId kSwz[] = {{0, 0, 0}, {2, 3, 2}, {2, 3, 3}, {3, 3, 3}};
constexpr int kNumSwz = 4;

inline int swizzle_id(int b, int m, int s)
{
    for (int i = 0; i < kNumSwz; i++)
        if (kSwz[i].b == b && kSwz[i].m == m && kSwz[i].s == s)
            return i;
    return -1;
}

/*
 * Tile configuration.
 *   BM, BN, BK   block tile;  WM, WN warp tile (8 warps);  STAGES cp.async buffers.
 *   MI = WM/16 m16 fragments, NI = WN/8 n8 fragments per warp.  MINB blocks per SM (__launch_bounds__).
 *   FAST: interior blocks copy full k-tiles with plain cp.async (false: the general path on every
 *   tile, kept as variant 7 for the A/B).
 */
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MINB_, bool FAST_ = true>
struct Cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_, MINB = MINB_;
    static constexpr bool FAST = FAST_; /* interior tiles take the predicate-free cp.async path */
    static constexpr int THREADS = 256;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int MI = WM / 16, NI = WN / 8;
    static constexpr int KCH = BK / 8;                       /* 16-byte chunks per A row */
    static constexpr int A_CHUNKS = BM * BK / 8 / THREADS;   /* per thread per k-tile */
    static constexpr int B_CHUNKS = BK * BN / 8 / THREADS;
    static constexpr int PANELS = BN / 64;
    static constexpr int LOG2_BK = BK == 32 ? 5 : 6;
    static_assert(BK == 32 || BK == 64, "A rows are 64 or 128 bytes");
    static_assert(WARPS_M * WARPS_N == 8, "8 warps");
    static_assert(BN % 64 == 0, "B is stored in 64-column panels");
    static_assert(A_CHUNKS * 8 * THREADS == BM * BK && B_CHUNKS * 8 * THREADS == BK * BN, "even split");
    static_assert(NI % 2 == 0, "B fragments come in pairs from one ldmatrix.x4.trans");
};

/* The variants (params.variant).  1..4 are fixed tile configurations (the benchmark shows BK = 32,
 * naive 4-way on A, next to BK = 64, naive 8-way); 0 is the shipped default, which picks its tiles
 * by the grid and pads unaligned rows (see smk_gemm16_launch); 6 is its small-grid tile, 7 the
 * A/B reference for the interior fast path. */
using V1 = Cfg<128, 256, 64, 64, 64, 3, 1>;
using V2 = Cfg<128, 256, 32, 64, 64, 4, 1>;
using V3 = Cfg<128, 128, 32, 64, 32, 4, 2>;
using V4 = Cfg<128, 128, 64, 64, 32, 3, 2>;
using V6 = Cfg<128, 128, 64, 64, 32, 3, 1>;              /* V4 without the 2-blocks register cap (V4 spills) */
using V7 = Cfg<128, 256, 64, 64, 64, 3, 1, false>;       /* V1 with the general load path on every tile */
using VAligned = V1; /* variant 0: 128x256x64 ... */
using VSmall = V6;   /* ... unless that grid is under half a wave: 128x128x64 (then one block per SM anyway) */
constexpr int kNumVariants = 8;
static const char *const kVariantNames[kNumVariants] = {
    "shipped: 128x256x64 (128x128x64 for grids under half a wave); unaligned rows copied padded first",
    "128x256x64 block tile, 3 stages, 8 warps of 64x64",
    "128x256x32 block tile, 4 stages, 8 warps of 64x64",
    "128x128x32 block tile, 4 stages, 8 warps of 64x32, 2 blocks per SM",
    "128x128x64 block tile, 3 stages, 8 warps of 64x32, 2 blocks per SM",
    "128x256x32 as variant 2; unaligned rows read as aligned 16-byte blocks + funnel shift",
    "128x128x64 block tile, 3 stages, 8 warps of 64x32, 1 block per SM",
    "128x256x64 as variant 1, predicated cp.async path on every tile (before the interior fast path)",
};
/* variant -> configuration, for every switch below */
#define SMK_G16_VARIANTS(X) X(1, V1) X(2, V2) X(3, V3) X(4, V4) X(5, V2) X(6, V6) X(7, V7)

/* The tiles of a configuration: layout + swizzle id -> layout.h tiles. */
SMK_HD smk_tile a_tile(int layout, int log2_bk, int sid)
{
    return smk_tile{layout, log2_bk, 3, 1, kSwz[sid].b, kSwz[sid].m, kSwz[sid].s};
}
SMK_HD smk_tile b_tile(int layout, int sid)
{
    return smk_tile{layout, 6, 3, 1, kSwz[sid].b, kSwz[sid].m, kSwz[sid].s};
}

template <class C, int LAYOUT, int SID>
struct Smem {
    static SMK_HD smk_tile ta() { return a_tile(LAYOUT, C::LOG2_BK, SID); }
    static SMK_HD smk_tile tb() { return b_tile(LAYOUT, SID); }
    static constexpr int A_ELEMS = smk_tile_elems(a_tile(LAYOUT, C::LOG2_BK, SID), C::BM);
    static constexpr int A_PITCH = smk_tile_elems(a_tile(LAYOUT, C::LOG2_BK, SID), 1);
    static constexpr int P_PITCH = smk_tile_elems(b_tile(LAYOUT, SID), 1);
    static constexpr int PANEL_ELEMS = smk_tile_elems(b_tile(LAYOUT, SID), C::BK);
    static constexpr int B_ELEMS = PANEL_ELEMS * C::PANELS;
    static constexpr int STAGE_ELEMS = A_ELEMS + B_ELEMS;
    static constexpr size_t BYTES = (size_t)C::STAGES * STAGE_ELEMS * 2;
    /* element offsets inside one stage */
    static SMK_HD int a_off(int m, int k) { return smk_tile_offset(ta(), m, k); }
    static SMK_HD int b_off(int k, int n) { return A_ELEMS + (n >> 6) * PANEL_ELEMS + smk_tile_offset(tb(), k, n & 63); }
};

/* Thread maps shared by the kernel and the host plan (one source of truth for addresses). */
template <class C>
struct Map {
    /* j-th A chunk of thread tid: row m, k column kc (multiple of 8) */
    static SMK_HD void a_chunk(int j, int tid, int *m, int *k)
    {
        const int id = tid + j * C::THREADS;
        *m = id / C::KCH;
        *k = (id % C::KCH) * 8;
    }
    /* j-th B chunk: row k, column n (multiple of 8): 8 consecutive lanes fill one panel row */
    static SMK_HD void b_chunk(int j, int tid, int *k, int *n)
    {
        const int id = tid + j * C::THREADS;
        *k = id / (C::BN / 8);
        *n = (id % (C::BN / 8)) * 8;
    }
    /* ldmatrix.x4 row address of lane for A fragment mi at k step ks: m16 x k16 */
    static SMK_HD void a_ldsm(int warp, int lane, int mi, int ks, int *m, int *k)
    {
        *m = (warp / C::WARPS_N) * C::WM + mi * 16 + (lane & 15);
        *k = ks * 16 + (lane >> 4) * 8;
    }
    /* ldmatrix.x4.trans row address for the B fragment pair nj (n8 tiles 2nj, 2nj+1) at k step ks */
    static SMK_HD void b_ldsm(int warp, int lane, int nj, int ks, int *k, int *n)
    {
        *k = ks * 16 + (lane & 15);
        *n = (warp % C::WARPS_N) * C::WN + nj * 16 + (lane >> 4) * 8;
    }
};

/* ---- PTX wrappers ---------------------------------------------------------------------------- */
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

template <bool BF16>
__device__ __forceinline__ float to_f(unsigned short x)
{
    if (BF16)
        return __uint_as_float((unsigned)x << 16);
    return __half2float(__ushort_as_half(x));
}
template <bool BF16>
__device__ __forceinline__ unsigned short from_f(float x)
{
    if (BF16)
        return __bfloat16_as_ushort(__float2bfloat16_rn(x));
    return __half_as_ushort(__float2half_rn(x));
}

/* Block rasterisation: GROUP_M block-rows walked before moving one block-column right (L2 reuse). */
constexpr int GROUP_M = 8;

template <class C, int LAYOUT, int SID, bool BF16, bool VEC>
__global__ void __launch_bounds__(C::THREADS, C::MINB) gemm16_kernel(const smk_gemm16_params p, int fastu)
{
    using S = Smem<C, LAYOUT, SID>;
    using MP = Map<C>;
    extern __shared__ __align__(128) unsigned short smem[];

    /* A thread's chunks are A_STEP (A) / B_STEP (B) rows apart, its fragments 16 rows apart.  Every
     * swizzle here XORs with row bits 0..3 only (Swizzle<3,3,3> on 32-element rows: bits 1..3;
     * <2,3,2> / <2,3,3> / <3,3,3> on 64-element rows: bits 0..2), so moving down a multiple of 16
     * rows (8 for the B panels) moves the offset by whole row pitches: one offset per thread plus
     * immediates (the host plan replays smk_tile_offset itself, and the GPU check compares). */
    constexpr int A_STEP = C::THREADS / C::KCH, B_STEP = C::THREADS / (C::BN / 8), KS = C::BK / 16;
    constexpr int A_PITCH = S::A_PITCH, P_PITCH = S::P_PITCH; /* elements per row, padding included */
    static_assert(A_STEP % 16 == 0 && B_STEP % 8 == 0, "row steps keep the swizzle's XOR");
    static_assert(KS % 2 == 0, "fragment double buffer: tile kt+1's first step lands in buffer 0");

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int64_t M = p.M, N = p.N, K = p.K;
    /* grouped block order */
    const int64_t grid_m = (M + C::BM - 1) / C::BM, grid_n = (N + C::BN - 1) / C::BN;
    int64_t bm, bn;
    {
        const int64_t b = blockIdx.x, per_group = (int64_t)GROUP_M * grid_n;
        const int64_t g = b / per_group, first_m = g * GROUP_M;
        const int64_t gsize = (grid_m - first_m) < GROUP_M ? (grid_m - first_m) : GROUP_M;
        const int64_t r = b % per_group;
        bm = (first_m + r % gsize) * C::BM;
        bn = (r / gsize) * C::BN;
    }
    const unsigned short *A = (const unsigned short *)p.A, *B = (const unsigned short *)p.B;
    const int KT = (int)((K + C::BK - 1) / C::BK);
    const unsigned sbase = smem_u32(smem);

    /* this thread's chunk 0 (the others: + j * STEP rows) */
    int m0, kc, kb0, nc;
    MP::a_chunk(0, tid, &m0, &kc);
    MP::b_chunk(0, tid, &kb0, &nc);
    const int64_t a_rows = M - bm - m0; /* chunk j in range iff j * A_STEP < a_rows */
    const unsigned short *a_src = A + (a_rows > 0 ? (bm + m0) * p.lda + kc : 0);
    const int64_t a_jstride = (int64_t)A_STEP * p.lda;
    const int64_t n_left = N - (bn + nc);
    const int b_nv = n_left <= 0 ? 0 : n_left >= 8 ? 8 : (int)n_left;
    const bool b_fast = n_left >= 15; /* !VEC: the aligned 16-byte blocks around the chunk are in the row */
    const unsigned short *b_src = B + (int64_t)kb0 * p.ldb + (b_nv ? bn + nc : 0);
    const int64_t b_jstride = (int64_t)B_STEP * p.ldb, b_step = (int64_t)C::BK * p.ldb;
    const unsigned a_dst = (unsigned)S::a_off(m0, kc) * 2, b_dst = (unsigned)S::b_off(kb0, nc) * 2;

    /* VEC: k-tile kt into stage st.
     * Interior blocks on k-tiles wholly inside K (nearly every tile of a large GEMM): every chunk is
     * 16 in-range bytes, so one plain cp.async each, addresses from per-thread base pointers -- no
     * predicate, select or src-size.  (Measured, H100 4096^3 with the general path on every tile:
     * ~250 integer instructions per warp per k-tile beside 128 HMMA, "wait" the top stall; see
     * bench/GEMM16_NOTES.md.)
     * Elsewhere: a chunk whose rows (A: m >= M) or columns (B: n >= N) are all outside the matrix is
     * not copied at all -- those tile rows / columns only feed outputs that are never stored, so
     * whatever the stage holds there is harmless; a chunk inside M and N but past K is zeroed with a
     * st.shared (it is multiplied into kept outputs); a chunk partly past K or N is a cp.async whose
     * src-size zero-fills the rest. */
    const bool interior = C::FAST && bm + C::BM <= M && bn + C::BN <= N;
    const int kt_full = (int)(K / C::BK);
    const char *a_base = (const char *)(interior ? A + (bm + m0) * p.lda + kc : A);
    const char *b_base = (const char *)(interior ? B + (int64_t)kb0 * p.ldb + bn + nc : B);
    const int64_t a_jbytes = a_jstride * 2, b_jbytes = b_jstride * 2, b_tbytes = b_step * 2;
    auto load_async = [&](int kt, int st) {
        const unsigned base = sbase + (unsigned)(st * S::STAGE_ELEMS * 2);
        if (interior && kt < kt_full) {
            const char *pa = a_base + (int64_t)kt * (C::BK * 2), *pb = b_base + (int64_t)kt * b_tbytes;
#pragma unroll
            for (int j = 0; j < C::A_CHUNKS; j++)
                cp_async16_full(base + a_dst + j * A_STEP * A_PITCH * 2, pa + j * a_jbytes);
#pragma unroll
            for (int j = 0; j < C::B_CHUNKS; j++)
                cp_async16_full(base + b_dst + j * B_STEP * P_PITCH * 2, pb + j * b_jbytes);
            return;
        }
        const int64_t k0 = (int64_t)kt * C::BK, kl = K - k0 - kc;
        const int kv = kl <= 0 ? 0 : kl >= 8 ? 8 : (int)kl;
#pragma unroll
        for (int j = 0; j < C::A_CHUNKS; j++) {
            const unsigned dst = base + a_dst + j * A_STEP * A_PITCH * 2;
            if (j * A_STEP < a_rows) {
                if (kv > 0)
                    cp_async16(dst, a_src + k0 + j * a_jstride, kv * 2);
                else
                    sts128(dst, make_uint4(0u, 0u, 0u, 0u));
            }
        }
#pragma unroll
        for (int j = 0; j < C::B_CHUNKS; j++) {
            const unsigned dst = base + b_dst + j * B_STEP * P_PITCH * 2;
            if (b_nv > 0) {
                if (k0 + kb0 + j * B_STEP < K)
                    cp_async16(dst, b_src + kt * b_step + j * b_jstride, b_nv * 2);
                else
                    sts128(dst, make_uint4(0u, 0u, 0u, 0u));
            }
        }
    };
    /* !VEC: k-tile kt into registers (aligned 16-byte loads + funnel shifts where the row allows,
     * else eight predicated 2-byte loads), then 16-byte st.shared into stage st. */
    uint4 ra[VEC ? 1 : C::A_CHUNKS], rb[VEC ? 1 : C::B_CHUNKS];
    auto load_regs = [&](int kt) {
        const int64_t k0 = (int64_t)kt * C::BK, kl = K - k0 - kc;
        const int kv = kl <= 0 ? 0 : kl >= 8 ? 8 : (int)kl;
#pragma unroll
        for (int j = 0; j < (VEC ? 0 : C::A_CHUNKS); j++) {
            const bool ok = kv > 0 && j * A_STEP < a_rows;
            ra[j] = load8(a_src + (ok ? k0 + j * a_jstride : 0), ok ? kv : 0, fastu && ok && kl >= 15);
        }
#pragma unroll
        for (int j = 0; j < (VEC ? 0 : C::B_CHUNKS); j++) {
            const bool ok = b_nv > 0 && k0 + kb0 + j * B_STEP < K;
            rb[j] = load8(b_src + (ok ? kt * b_step + j * b_jstride : 0), ok ? b_nv : 0, fastu && ok && b_fast);
        }
    };
    auto store_regs = [&](int st) {
        const unsigned base = sbase + (unsigned)(st * S::STAGE_ELEMS * 2);
#pragma unroll
        for (int j = 0; j < (VEC ? 0 : C::A_CHUNKS); j++)
            sts128(base + a_dst + j * A_STEP * A_PITCH * 2, ra[j]);
#pragma unroll
        for (int j = 0; j < (VEC ? 0 : C::B_CHUNKS); j++)
            sts128(base + b_dst + j * B_STEP * P_PITCH * 2, rb[j]);
    };

    /* ldmatrix row addresses (bytes inside a stage): A per k step (+ mi*16 rows), B per fragment
     * pair (+ ks*16 rows) */
    unsigned a_ld[KS], b_ld[C::NI / 2];
#pragma unroll
    for (int ks = 0; ks < KS; ks++) {
        int m, k;
        MP::a_ldsm(warp, lane, 0, ks, &m, &k);
        a_ld[ks] = (unsigned)S::a_off(m, k) * 2;
    }
#pragma unroll
    for (int nj = 0; nj < C::NI / 2; nj++) {
        int k, n;
        MP::b_ldsm(warp, lane, nj, 0, &k, &n);
        b_ld[nj] = (unsigned)S::b_off(k, n) * 2;
    }
    unsigned af[2][C::MI][4], bfr[2][C::NI / 2][4];
    auto load_frags = [&](int st, int ks, int buf) {
        const unsigned sb = sbase + (unsigned)(st * S::STAGE_ELEMS * 2);
#pragma unroll
        for (int mi = 0; mi < C::MI; mi++)
            ldsm_x4(sb + a_ld[ks] + mi * 16 * A_PITCH * 2, af[buf][mi]);
#pragma unroll
        for (int nj = 0; nj < C::NI / 2; nj++)
            ldsm_x4_trans(sb + b_ld[nj] + ks * 16 * P_PITCH * 2, bfr[buf][nj]);
    };

    float acc[C::MI][C::NI][4];
#pragma unroll
    for (int i = 0; i < C::MI; i++)
#pragma unroll
        for (int j = 0; j < C::NI; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.f;

    /* prologue: tiles 0 .. STAGES-2 in flight (VEC) or stored (!VEC, + tile STAGES-1 in registers) */
    if (VEC) {
#pragma unroll
        for (int s = 0; s < C::STAGES - 1; s++) {
            if (s < KT)
                load_async(s, s);
            cp_async_commit();
        }
        cp_async_wait<C::STAGES - 2>();
    } else {
        for (int s = 0; s < C::STAGES - 1 && s < KT; s++) {
            load_regs(s);
            store_regs(s);
        }
        if (C::STAGES - 1 < KT)
            load_regs(C::STAGES - 1);
    }

    auto mma_step = [&](int buf) {
#pragma unroll
        for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
            for (int ni = 0; ni < C::NI; ni++) {
                const int nn = (mi & 1) ? C::NI - 1 - ni : ni; /* serpentine: reuse B registers */
                mma16816<BF16>(acc[mi][nn], af[buf][mi], bfr[buf][nn / 2][(nn & 1) * 2],
                               bfr[buf][nn / 2][(nn & 1) * 2 + 1]);
            }
    };
    int st = 0;
    if (VEC) {
        /* Main loop.  At the top of tile kt every warp has read tile kt-1 into registers (the
         * barrier at the end of tile kt-1 came after its last fragment loads), so tile kt+STAGES-1
         * goes into that stage.  Fragments are double-buffered one k step ahead; the last step of a
         * tile waits for tile kt+1, syncs, and prefetches tile kt+1's first fragments before its
         * own MMAs. */
        __syncthreads();
        if (KT > 0)
            load_frags(0, 0, 0);
        for (int kt = 0; kt < KT; kt++) {
            {
                const int nt = kt + C::STAGES - 1, nst = st == 0 ? C::STAGES - 1 : st - 1;
                if (nt < KT)
                    load_async(nt, nst);
                cp_async_commit();
            }
            const int st_next = st + 1 == C::STAGES ? 0 : st + 1;
#pragma unroll
            for (int ks = 0; ks < KS; ks++) {
                if (ks + 1 < KS) {
                    load_frags(st, ks + 1, (ks + 1) & 1);
                } else {
                    cp_async_wait<C::STAGES - 2>();
                    __syncthreads();
                    if (kt + 1 < KT)
                        load_frags(st_next, 0, 0);
                }
                mma_step(ks & 1);
            }
            st = st_next;
        }
    } else {
        /* Register-staged loads (unaligned rows): one barrier at the top of each tile, then store
         * the tile loaded one iteration ago, start loading the next, and multiply (fragments not
         * prefetched across the barrier: measured faster with the staging's register load). */
        for (int kt = 0; kt < KT; kt++) {
            __syncthreads();
            {
                const int nt = kt + C::STAGES - 1, nst = st == 0 ? C::STAGES - 1 : st - 1;
                if (nt < KT) {
                    store_regs(nst);
                    if (nt + 1 < KT)
                        load_regs(nt + 1);
                }
            }
#pragma unroll
            for (int ks = 0; ks < KS; ks++) {
                load_frags(st, ks, ks & 1);
                mma_step(ks & 1);
            }
            st = st + 1 == C::STAGES ? 0 : st + 1;
        }
    }
    if (VEC)
        cp_async_wait<0>();

    /* epilogue: acc[mi][ni][e] is D(row, col), row = m0 + lane/4 (+8 for e >= 2), col = n0 + 2(lane%4) + e%2 */
    const float alpha = p.alpha, beta = p.beta;
    const bool use_c = beta != 0.f;
    const bool out32 = p.out_f32 != 0;
    const bool pair_ok = out32 ? ((((uintptr_t)p.D | (use_c ? (uintptr_t)p.C : 0)) & 7) == 0 && p.ldd % 2 == 0 &&
                                  (!use_c || p.ldc % 2 == 0))
                               : ((((uintptr_t)p.D | (use_c ? (uintptr_t)p.C : 0)) & 3) == 0 && p.ldd % 2 == 0 &&
                                  (!use_c || p.ldc % 2 == 0));
    const int64_t wm0 = bm + (warp / C::WARPS_N) * C::WM, wn0 = bn + (warp % C::WARPS_N) * C::WN;
#pragma unroll
    for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int64_t row = wm0 + mi * 16 + (lane >> 2) + h * 8;
            if (row >= M)
                continue;
#pragma unroll
            for (int ni = 0; ni < C::NI; ni++) {
                const int64_t col = wn0 + ni * 8 + (lane & 3) * 2;
                if (col >= N)
                    continue;
                float v0 = alpha * acc[mi][ni][h * 2], v1 = alpha * acc[mi][ni][h * 2 + 1];
                const bool two = col + 1 < N;
                if (out32) {
                    float *d = (float *)p.D + row * p.ldd + col;
                    const float *c = (const float *)p.C + row * p.ldc + col;
                    if (two && pair_ok) {
                        if (use_c) {
                            const float2 cv = *(const float2 *)c;
                            v0 += beta * cv.x;
                            v1 += beta * cv.y;
                        }
                        *(float2 *)d = make_float2(v0, v1);
                    } else {
                        if (use_c) {
                            v0 += beta * c[0];
                            if (two) v1 += beta * c[1];
                        }
                        d[0] = v0;
                        if (two) d[1] = v1;
                    }
                } else {
                    unsigned short *d = (unsigned short *)p.D + row * p.ldd + col;
                    const unsigned short *c = (const unsigned short *)p.C + row * p.ldc + col;
                    if (two && pair_ok) {
                        if (use_c) {
                            const unsigned cv = *(const unsigned *)c;
                            v0 += beta * to_f<BF16>((unsigned short)(cv & 0xffff));
                            v1 += beta * to_f<BF16>((unsigned short)(cv >> 16));
                        }
                        *(unsigned *)d = from_f<BF16>(v0) | ((unsigned)from_f<BF16>(v1) << 16);
                    } else {
                        if (use_c) {
                            v0 += beta * to_f<BF16>(c[0]);
                            if (two) v1 += beta * to_f<BF16>(c[1]);
                        }
                        d[0] = from_f<BF16>(v0);
                        if (two) d[1] = from_f<BF16>(v1);
                    }
                }
            }
        }
}

/* ---- launch ---------------------------------------------------------------------------------- */
template <class C, int LAYOUT, int SID, bool BF16, bool VEC>
int launch_inst(const smk_gemm16_params &q, cudaStream_t stream)
{
    using S = Smem<C, LAYOUT, SID>;
    const int64_t blocks = ((q.M + C::BM - 1) / C::BM) * ((q.N + C::BN - 1) / C::BN);
    if (blocks <= 0 || blocks > INT_MAX)
        return (int)cudaErrorInvalidValue;
    auto kern = gemm16_kernel<C, LAYOUT, SID, BF16, VEC>;
    /* > 48 KB of dynamic shared memory: opted in once per instantiation and device */
    static unsigned long long opted; /* bit d: done on device d (benign race: same value stored) */
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return (int)e;
    const unsigned long long bit = dev >= 0 && dev < 64 ? 1ull << dev : 0;
    if (!(opted & bit) || !bit) {
        e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::BYTES);
        if (e != cudaSuccess)
            return (int)e;
        opted |= bit;
    }
    kern<<<(unsigned)blocks, C::THREADS, S::BYTES, stream>>>(q, q.variant == 5);
    return (int)cudaGetLastError();
}

template <class C, int LAYOUT, int SID>
int launch_dt(const smk_gemm16_params &q, bool vec, cudaStream_t s)
{
    if (q.dtype == 1)
        return vec ? launch_inst<C, LAYOUT, SID, true, true>(q, s) : launch_inst<C, LAYOUT, SID, true, false>(q, s);
    return vec ? launch_inst<C, LAYOUT, SID, false, true>(q, s) : launch_inst<C, LAYOUT, SID, false, false>(q, s);
}

template <class C>
int launch_layout(const smk_gemm16_params &q, int sid, bool vec, cudaStream_t s)
{
    switch (q.layout) {
    case SMK_NAIVE: return launch_dt<C, SMK_NAIVE, 0>(q, vec, s);
    case SMK_PAD: return launch_dt<C, SMK_PAD, 0>(q, vec, s);
    case SMK_SWIZZLE:
        switch (sid) {
        case 0: return launch_dt<C, SMK_SWIZZLE, 0>(q, vec, s);
        case 1: return launch_dt<C, SMK_SWIZZLE, 1>(q, vec, s);
        case 2: return launch_dt<C, SMK_SWIZZLE, 2>(q, vec, s);
        case 3: return launch_dt<C, SMK_SWIZZLE, 3>(q, vec, s);
        default: return (int)cudaErrorInvalidValue;
        }
    default: return (int)cudaErrorInvalidValue;
    }
}

inline bool al16(const void *ptr) { return ((uintptr_t)ptr & 15u) == 0; }

/* Validate p into q: 0 = launch q, 1 = nothing to do, negative = invalid.  alpha == 0 -> K = 0 and
 * K == 0 -> alpha = 0 (BLAS: A and B unreferenced; D = beta*C exactly). */
inline int prepare(const smk_gemm16_params *p, smk_gemm16_params *q, int *sid, bool *vec)
{
    if (!p)
        return -1;
    *q = *p;
    if (q->dtype != 0 && q->dtype != 1)
        return -1;
    if (q->layout < 0 || q->layout >= SMK_NUM_LAYOUTS || q->variant < 0 || q->variant >= kNumVariants)
        return -1;
    *sid = swizzle_id(q->swz_b, q->swz_m, q->swz_s);
    if (*sid < 0 || (*sid > 0 && q->layout != SMK_SWIZZLE))
        return -1;
    if (q->M < 0 || q->N < 0 || q->K < 0)
        return -1;
    if (q->M > (int64_t)INT_MAX * 64 || q->N > (int64_t)INT_MAX * 64 || q->K > (int64_t)INT_MAX * 16)
        return -1;
    if (q->M == 0 || q->N == 0)
        return 1;
    if (!q->D || q->ldd < q->N)
        return -1;
    if (q->alpha == 0.f)
        q->K = 0;
    if (q->K == 0)
        q->alpha = 0.f;
    if (q->K > 0 && (!q->A || !q->B || q->lda < q->K || q->ldb < q->N))
        return -1;
    const bool use_c = q->beta != 0.f;
    if (use_c && (!q->C || q->ldc < q->N))
        return -1;
    if (!use_c)
        q->C = NULL;
    *vec = q->K == 0 || (al16(q->A) && al16(q->B) && q->lda % 8 == 0 && q->ldb % 8 == 0);
    return 0;
}

/* Variant 0's tiles: VSmall when VAligned's grid is under half a wave of `sms` multiprocessors. */
inline bool small_grid(int64_t M, int64_t N, int sms)
{
    const int64_t blocks = ((M + VAligned::BM - 1) / VAligned::BM) * ((N + VAligned::BN - 1) / VAligned::BN);
    return 2 * blocks < (int64_t)sms;
}

/* Multiprocessors of the current device, cached per device (this is on every call's path). */
inline int device_sms(int *sms)
{
    static int sms_of[64];
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return (int)e;
    if (dev >= 0 && dev < 64 && sms_of[dev] > 0) {
        *sms = sms_of[dev];
        return 0;
    }
    e = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return (int)e;
    if (dev >= 0 && dev < 64)
        sms_of[dev] = *sms; /* benign race: every writer stores the same value */
    return 0;
}

/* ---- unaligned rows: padded copies --------------------------------------------------------------
 * cp.async moves 16 aligned bytes, so a row that does not start on 16 bytes (a base off 16 bytes or
 * a leading dimension that is not a multiple of 8 elements: 4097x4095x4093, a slice x[:, 1:]) cannot
 * feed it.  Variant 0 copies such an operand, on the caller's stream, into a stream-ordered
 * temporary whose rows are padded to a multiple of 8 elements, runs the aligned kernel on it, and
 * frees the temporary behind the kernel: measured on an H100 at 4097x4095x4093 (bench/GEMM16_NOTES.md)
 * against the register-staged path, which variants 1..4 keep for unaligned operands.  C and D are
 * read and written by the epilogue from registers (pairs where aligned, else single elements) and
 * are never copied.  smk_gemm16_temp_bytes() is the bytes, for the callers' size checks. */
inline int64_t pad8(int64_t n) { return (n + 7) & ~(int64_t)7; }

/* Which of A (bit 0) and B (bit 1) variant 0 copies for q (after prepare). */
inline int pad_mask(const smk_gemm16_params &q, bool vec)
{
    if (vec || q.variant != 0)
        return 0;
    return (al16(q.A) && q.lda % 8 == 0 ? 0 : 1) | (al16(q.B) && q.ldb % 8 == 0 ? 0 : 2);
}

inline size_t mul_sat(int64_t a, int64_t b)
{
    const uint64_t x = (uint64_t)a, y = (uint64_t)b;
    return (a < 0 || b < 0 || (y && x > SIZE_MAX / y)) ? SIZE_MAX : (size_t)(x * y);
}
inline size_t add_sat(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

inline size_t pad_bytes(const smk_gemm16_params &q, int mask)
{
    size_t n = 0;
    if (mask & 1)
        n = add_sat(n, mul_sat(q.M, 2 * pad8(q.K)));
    if (mask & 2)
        n = add_sat(n, mul_sat(q.K, 2 * pad8(q.N)));
    return n;
}

/* dst (rows x dpitch, 16-byte aligned, dpitch a multiple of 8) <- src (rows x cols, row pitch
 * spitch elements, any 2-byte alignment); columns cols..dpitch-1 become zeros.  One thread per
 * 16-byte destination chunk: a chunk whose two surrounding aligned 16-byte source blocks lie inside
 * its source row is read as those blocks and funnel-shifted; a row's ragged ends are read as single
 * elements.  (So nothing outside the rows is ever read.) */
__global__ void __launch_bounds__(256) pad_rows_kernel(const unsigned short *__restrict__ src, int64_t spitch,
                                                       unsigned short *__restrict__ dst, int64_t dpitch, int64_t rows,
                                                       int64_t cols)
{
    const int64_t cpr = dpitch / 8, total = rows * cpr;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = i / cpr, c0 = (i - r * cpr) * 8;
        const unsigned short *row = src + r * spitch, *p = row + c0;
        const int64_t left = cols - c0;
        const int valid = left <= 0 ? 0 : left >= 8 ? 8 : (int)left;
        const uintptr_t a = (uintptr_t)p, sh = a & 15, lo = a - sh;
        const bool fast = valid == 8 && lo >= (uintptr_t)row && lo + (sh ? 32 : 16) <= (uintptr_t)(row + cols);
        const uint4 v = load8(p, valid, fast);
        *(uint4 *)(dst + r * dpitch + c0) = v;
    }
}

inline int pad_copy(const void *src, int64_t spitch, void *dst, int64_t dpitch, int64_t rows, int64_t cols,
                    cudaStream_t stream)
{
    const int64_t chunks = rows * (dpitch / 8);
    if (chunks <= 0)
        return (int)cudaSuccess;
    int sms = 0;
    const int e = device_sms(&sms);
    if (e)
        return e;
    const int64_t cap = (int64_t)sms * 8, want = (chunks + 255) / 256; /* grid-stride past 8 blocks per SM */
    pad_rows_kernel<<<(unsigned)(want < cap ? want : cap), 256, 0, stream>>>(
        (const unsigned short *)src, spitch, (unsigned short *)dst, dpitch, rows, cols);
    return (int)cudaGetLastError();
}

/* Variant 0 with unaligned rows: A and / or B (mask) copied into padded stream-ordered temporaries,
 * the aligned kernel on them, the temporaries freed on `stream` behind it (no synchronisation). */
inline int launch_padded(smk_gemm16_params q, int sid, int mask, int sms, cudaStream_t stream)
{
    void *tmp[2] = {NULL, NULL};
    int e = (int)cudaSuccess;
    for (int i = 0; i < 2 && e == (int)cudaSuccess; i++) {
        if (!(mask & (1 << i)))
            continue;
        const int64_t rows = i ? q.K : q.M, cols = i ? q.N : q.K, ld = pad8(cols);
        const smk_status s = smk_rt_alloc_on(&tmp[i], mul_sat(rows, 2 * ld), stream);
        if (s.code != SMK_OK) {
            e = s.cuda ? s.cuda : (int)cudaErrorMemoryAllocation;
            break;
        }
        e = pad_copy(i ? q.B : q.A, i ? q.ldb : q.lda, tmp[i], ld, rows, cols, stream);
        if (i)
            q.B = tmp[i], q.ldb = ld;
        else
            q.A = tmp[i], q.lda = ld;
    }
    if (e == (int)cudaSuccess)
        e = small_grid(q.M, q.N, sms) ? launch_layout<VSmall>(q, sid, true, stream)
                                      : launch_layout<VAligned>(q, sid, true, stream);
    smk_rt_free_on(tmp[0], stream); /* stream-ordered: after the kernel that reads them, even on failure */
    smk_rt_free_on(tmp[1], stream);
    return e;
}

} /* namespace g16 */
} /* namespace smk */

extern "C" int smk_gemm16_num_variants(void) { return smk::g16::kNumVariants; }

extern "C" const char *smk_gemm16_variant_name(int variant)
{
    return variant >= 0 && variant < smk::g16::kNumVariants ? smk::g16::kVariantNames[variant] : NULL;
}

extern "C" int smk_gemm16_variant_geometry(int variant, int *bm, int *bn, int *bk, int *stages)
{
    using namespace smk::g16;
#define SMK_G16_GEOM(V) do { if (bm) *bm = V::BM; if (bn) *bn = V::BN; if (bk) *bk = V::BK; if (stages) *stages = V::STAGES; } while (0)
    switch (variant) {
    case 0: SMK_G16_GEOM(VAligned); return 0;
#define SMK_G16_CASE(n, V) case n: SMK_G16_GEOM(V); return 0;
    SMK_G16_VARIANTS(SMK_G16_CASE)
#undef SMK_G16_CASE
    default: return -1;
    }
#undef SMK_G16_GEOM
}

extern "C" int smk_gemm16_supports_swizzle(int b, int m, int s)
{
    return smk::g16::swizzle_id(b, m, s) >= 0;
}

extern "C" size_t smk_gemm16_temp_bytes(const smk_gemm16_params *p)
{
    using namespace smk::g16;
    smk_gemm16_params q;
    int sid = 0;
    bool vec = false;
    if (prepare(p, &q, &sid, &vec) != 0)
        return 0;
    return pad_bytes(q, pad_mask(q, vec));
}

extern "C" int smk_gemm16_launch(const smk_gemm16_params *p, cudaStream_t stream)
{
    using namespace smk::g16;
    smk_gemm16_params q;
    int sid = 0;
    bool vec = false;
    const int st = prepare(p, &q, &sid, &vec);
    if (st < 0)
        return (int)cudaErrorInvalidValue;
    if (st > 0)
        return (int)cudaSuccess;
    switch (q.variant) {
    case 0: {
        int sms = 0;
        const int e = device_sms(&sms);
        if (e)
            return e;
        const int mask = pad_mask(q, vec);
        if (mask)
            return launch_padded(q, sid, mask, sms, stream);
        return small_grid(q.M, q.N, sms) ? launch_layout<VSmall>(q, sid, true, stream)
                                         : launch_layout<VAligned>(q, sid, true, stream);
    }
#define SMK_G16_CASE(n, V) case n: return launch_layout<V>(q, sid, vec, stream);
    SMK_G16_VARIANTS(SMK_G16_CASE)
#undef SMK_G16_CASE
    default: return (int)cudaErrorInvalidValue;
    }
}

/* ---- host replay of one block's shared-memory instructions (runtime.h, smk_plan) ---------------- */
namespace smk {
namespace g16 {

/* The plan of one launch (see runtime.h smk_gemm16_plan).  Fills depend on which rows / columns /
 * k columns of a block are inside the matrix and on the path the block takes, so they come in
 * classes of (block, k-tile) that issue the same pattern, each one access with its own repeats:
 *   fast     interior blocks on whole k-tiles: plain cp.async, every warp, every lane;
 *   general  the rest: a warp issues chunk j's cp.async.zfill only if one of its lanes copies (in
 *            range and not wholly past K) and its zero st.shared if one of its lanes is in range
 *            (the counts ncu reads on an H100: the compiler branches around them), lanes that do
 *            not write are off;
 *   A by block row (whole, or the last partial one), B by block column; k-tiles whole (split by
 *   parity for 32-wide k-tiles, which move A's global rows by 64 bytes) or the last partial one.
 * Global byte offsets (gaddr, cp.async only) are relative to a 128-byte-aligned block origin:
 * operands from an aligned allocation with row pitches lda / ldb elements. */
struct PlanFill {
    const char *name;
    int kind;        /* SMK_ACC_CPASYNC (fast), SMK_ACC_CPASYNC_ZFILL / SMK_ACC_LDST (general, staged) */
    int operand;     /* 0: A, 1: B */
    int valid;       /* A: rows of the block inside M; B: columns inside N */
    int64_t k0;      /* the k-tile's first k */
    int64_t kleft;   /* K - k0 */
    int mode;        /* 0: fast cp.async, 1: general cp.async, 2: general zero st.shared, 3: staged st.shared */
    long long repeats;
};

/* Lane (w, lane) of chunk j under f: *on (it writes), *issue (its warp issues the instruction: decided
 * per warp by the caller), shared and global offsets. */
template <class C, int LAYOUT, int SID>
void fill_lane(const PlanFill &f, int64_t lda, int64_t ldb, int w, int lane, int j, bool *on, bool *inrange,
               long long *off, long long *g)
{
    using S = Smem<C, LAYOUT, SID>;
    using MP = Map<C>;
    const int tid = w * 32 + lane;
    int r = 0, c = 0;
    bool inside, past_k;
    if (f.operand == 0) {
        MP::a_chunk(j, tid, &r, &c); /* row r, k column c */
        inside = r < f.valid;
        past_k = c >= f.kleft;
        *off = 2LL * S::a_off(r, c);
        *g = 2LL * ((long long)r * lda + f.k0 + c);
    } else {
        MP::b_chunk(j, tid, &r, &c); /* k row r, column c */
        inside = c < f.valid;
        past_k = r >= f.kleft;
        *off = 2LL * S::b_off(r, c);
        *g = 2LL * ((f.k0 + r) * ldb + c);
    }
    *inrange = f.mode == 2 ? inside : (inside && !past_k) || f.mode == 0 || f.mode == 3;
    *on = f.mode == 3 || f.mode == 0 || (f.mode == 1 && inside && !past_k) || (f.mode == 2 && inside && past_k);
}

/* The warp instructions of f (those some warp issues), written lane-major into acc when acc->addr is
 * set; returns how many. */
template <class C, int LAYOUT, int SID>
int fill_addresses(const PlanFill &f, int64_t lda, int64_t ldb, smk_access *acc)
{
    const int warps = C::THREADS / 32, per = f.operand ? C::B_CHUNKS : C::A_CHUNKS;
    int n = 0;
    for (int w = 0; w < warps; w++)
        for (int j = 0; j < per; j++) {
            bool issue = false, on = false, inr = false;
            long long off = 0, g = 0;
            for (int lane = 0; lane < 32 && !issue; lane++) {
                fill_lane<C, LAYOUT, SID>(f, lda, ldb, w, lane, j, &on, &inr, &off, &g);
                issue = inr;
            }
            if (!issue)
                continue;
            if (acc && acc->addr)
                for (int lane = 0; lane < 32; lane++) {
                    fill_lane<C, LAYOUT, SID>(f, lda, ldb, w, lane, j, &on, &inr, &off, &g);
                    acc->addr[(long long)n * 32 + lane] = on ? off : -1;
                    if (acc->gaddr)
                        acc->gaddr[(long long)n * 32 + lane] = on ? g : -1;
                }
            n++;
        }
    return n;
}

template <class C, int LAYOUT, int SID>
int block_plan(int64_t M, int64_t N, int64_t K, bool staged, smk_plan *plan)
{
    using S = Smem<C, LAYOUT, SID>;
    using MP = Map<C>;
    const int warps = C::THREADS / 32, ksteps = C::BK / 16;
    const long long gm = (M + C::BM - 1) / C::BM, gn = (N + C::BN - 1) / C::BN, blocks = gm * gn;
    const long long kt_all = (K + C::BK - 1) / C::BK, kt_full = K / C::BK, kt_part = kt_all - kt_full;
    const int64_t lda = staged ? K : (K + 7) / 8 * 8, ldb = staged ? N : (N + 7) / 8 * 8; /* variant 0 pads */
    const long long rows_whole = M / C::BM, cols_whole = N / C::BN;
    const int rows_last = (int)(M % C::BM), cols_last = (int)(N % C::BN);
    const long long interior = C::FAST ? rows_whole * cols_whole : 0; /* blocks on the fast path */
    PlanFill f[SMK_PLAN_MAX];
    int n = 0;
    auto add = [&](const char *name, int kind, int operand, int valid, int64_t k0, int mode, long long repeats) {
        if (repeats > 0 && n < SMK_PLAN_MAX - 3)
            f[n++] = PlanFill{name, kind, operand, valid, k0, K - k0, mode, repeats};
    };
    if (blocks > 0 && kt_all > 0) {
        if (staged) {
            add("A-tile st.shared.v4 (16 B, register-staged)", SMK_ACC_LDST, 0, C::BM, 0, 3, blocks * kt_all);
            add("B-tile st.shared.v4 (16 B, register-staged)", SMK_ACC_LDST, 1, C::BN, 0, 3, blocks * kt_all);
        } else {
            const bool split = C::BK == 32; /* 32-wide k-tiles: A's global offset alternates by 64 bytes */
            const long long kcount[2] = {split ? (kt_full + 1) / 2 : kt_full, split ? kt_full / 2 : 0};
            const int64_t klast = kt_full * C::BK;
            for (int op = 0; op < 2; op++)
                for (int last = 0; last < 2; last++) {
                    /* blocks of this row (A) / column (B) class, and how many of them are interior */
                    const long long nb = op == 0 ? (last ? (rows_last ? gn : 0) : rows_whole * gn)
                                                 : (last ? (cols_last ? gm : 0) : cols_whole * gm);
                    const long long nfast = last ? 0 : interior, ngen = nb - nfast;
                    const int valid = op == 0 ? (last ? rows_last : C::BM) : (last ? cols_last : C::BN);
                    static const char *const names[2][2][5] = {
                        {{"A-tile cp.async (16 B), interior blocks", "A-tile cp.async.zfill (16 B), edge blocks",
                          "A-tile zeros past K (st.shared.v4), predicated off", "A-tile cp.async.zfill, last k-tile",
                          "A-tile zeros past K (st.shared.v4), last k-tile"},
                         {"", "A-tile cp.async.zfill (16 B), last block row",
                          "A-tile zeros past K (st.shared.v4), last block row, predicated off",
                          "A-tile cp.async.zfill, last block row, last k-tile",
                          "A-tile zeros past K (st.shared.v4), last block row, last k-tile"}},
                        {{"B-tile cp.async (16 B), interior blocks", "B-tile cp.async.zfill (16 B), edge blocks",
                          "B-tile zeros past K (st.shared.v4), predicated off", "B-tile cp.async.zfill, last k-tile",
                          "B-tile zeros past K (st.shared.v4), last k-tile"},
                         {"", "B-tile cp.async.zfill (16 B), last block column",
                          "B-tile zeros past K (st.shared.v4), last block column, predicated off",
                          "B-tile cp.async.zfill, last block column, last k-tile",
                          "B-tile zeros past K (st.shared.v4), last block column, last k-tile"}}};
                    const char *const *nm = names[op][last];
                    for (int par = 0; par < (op == 0 && split ? 2 : 1); par++) {
                        const int64_t k0 = par * C::BK;
                        add(nm[0], SMK_ACC_CPASYNC, op, valid, k0, 0, nfast * kcount[par]);
                        add(nm[1], SMK_ACC_CPASYNC_ZFILL, op, valid, k0, 1, ngen * kcount[par]);
                        add(nm[2], SMK_ACC_LDST, op, valid, k0, 2, ngen * kcount[par]);
                    }
                    add(nm[3], SMK_ACC_CPASYNC_ZFILL, op, valid, klast, 1, nb * kt_part);
                    add(nm[4], SMK_ACC_LDST, op, valid, klast, 2, nb * kt_part);
                }
        }
    }
    int a = 0;
    for (int i = 0; i < n; i++) {
        smk_access *acc = &plan->acc[a];
        const int cnt = fill_addresses<C, LAYOUT, SID>(f[i], lda, ldb, acc->addr ? acc : NULL);
        if (cnt == 0)
            continue;
        acc->name = f[i].name;
        acc->width = 16;
        acc->is_store = 1;
        acc->kind = f[i].kind;
        acc->n_instr = cnt;
        acc->repeats = f[i].repeats;
        a++;
    }
    /* fragments: every k step of every k-tile; the cp.async kernel also prefetches the next tile's
     * first fragments at the last k step of each tile, predicated off on the block's last tile (the
     * instructions issue and count, with no lane active) */
    const struct { const char *name; int per_warp; long long repeats; int what; } frags[3] = {
        {"A fragment ldmatrix.x4", ksteps * C::MI, blocks * kt_all, 0},
        {"B fragment ldmatrix.x4.trans", ksteps * (C::NI / 2), blocks * kt_all, 1},
        {"next-tile fragment ldmatrix.x4 at the last k-tile (predicated off)", C::MI + C::NI / 2,
         staged ? 0 : blocks * (kt_all > 0 ? 1 : 0), 2},
    };
    for (int q = 0; q < 3; q++) {
        if (frags[q].repeats <= 0 && q == 2)
            continue;
        smk_access *acc = &plan->acc[a++];
        acc->name = frags[q].name;
        acc->width = 16;
        acc->is_store = 0;
        acc->kind = SMK_ACC_LDSM_X4;
        acc->n_instr = warps * frags[q].per_warp;
        acc->repeats = frags[q].repeats;
        if (!acc->addr)
            continue;
        for (int w = 0; w < warps; w++)
            for (int lane = 0; lane < 32; lane++) {
                long long *out = acc->addr + (long long)w * frags[q].per_warp * 32 + lane;
                int i = 0, r = 0, c = 0;
                if (frags[q].what == 0) {
                    for (int ks = 0; ks < ksteps; ks++)
                        for (int mi = 0; mi < C::MI; mi++, i++) {
                            MP::a_ldsm(w, lane, mi, ks, &r, &c);
                            out[i * 32] = 2LL * S::a_off(r, c);
                        }
                } else if (frags[q].what == 1) {
                    for (int ks = 0; ks < ksteps; ks++)
                        for (int nj = 0; nj < C::NI / 2; nj++, i++) {
                            MP::b_ldsm(w, lane, nj, ks, &r, &c);
                            out[i * 32] = 2LL * S::b_off(r, c);
                        }
                } else {
                    for (; i < frags[q].per_warp; i++)
                        out[i * 32] = -1;
                }
            }
    }
    plan->n = a;
    plan->blocks = blocks;
    plan->threads = C::THREADS;
    plan->smem_bytes = (int)S::BYTES;
    const smk_swz za = smk_tile_swizzle(S::ta()), zb = smk_tile_swizzle(S::tb());
    if (LAYOUT == SMK_SWIZZLE)
        snprintf(plan->config, sizeof plan->config, "%dx%dx%d, %d stages; A Swizzle<%d,%d,%d>, B Swizzle<%d,%d,%d>",
                 C::BM, C::BN, C::BK, C::STAGES, za.b, za.m, za.s, zb.b, zb.m, zb.s);
    else
        snprintf(plan->config, sizeof plan->config, "%dx%dx%d block tile, %d stages, 8 warps of %dx%d", C::BM,
                 C::BN, C::BK, C::STAGES, C::WM, C::WN);
    return 0;
}

template <class C>
int plan_cfg(int64_t M, int64_t N, int64_t K, int layout, int sid, bool staged, smk_plan *plan)
{
    switch (layout) {
    case SMK_NAIVE: return block_plan<C, SMK_NAIVE, 0>(M, N, K, staged, plan);
    case SMK_PAD: return block_plan<C, SMK_PAD, 0>(M, N, K, staged, plan);
    default:
        switch (sid) {
        case 0: return block_plan<C, SMK_SWIZZLE, 0>(M, N, K, staged, plan);
        case 1: return block_plan<C, SMK_SWIZZLE, 1>(M, N, K, staged, plan);
        case 2: return block_plan<C, SMK_SWIZZLE, 2>(M, N, K, staged, plan);
        default: return block_plan<C, SMK_SWIZZLE, 3>(M, N, K, staged, plan);
        }
    }
}

} /* namespace g16 */
} /* namespace smk */

extern "C" int smk_gemm16_plan(int64_t M, int64_t N, int64_t K, int layout, int swz_b, int swz_m, int swz_s,
                               int variant, int sms, smk_plan *plan)
{
    using namespace smk::g16;
    const int sid = swizzle_id(swz_b, swz_m, swz_s);
    if (!plan || M < 0 || N < 0 || K < 0 || layout < 0 || layout >= SMK_NUM_LAYOUTS || sid < 0 ||
        (sid > 0 && layout != SMK_SWIZZLE) || sms < 1)
        return -1;
    /* dense row-major operands from a 16-byte-aligned allocation (as smemkit.bench lays them out):
     * rows are 16-byte aligned iff K and N are multiples of 8 */
    const bool staged = K > 0 && (K % 8 != 0 || N % 8 != 0);
    int rc = -1;
    switch (variant) {
    case 0: /* as smk_gemm16_launch: unaligned rows are padded first, so always the cp.async kernel */
        rc = small_grid(M, N, sms) ? plan_cfg<VSmall>(M, N, K, layout, sid, false, plan)
                                   : plan_cfg<VAligned>(M, N, K, layout, sid, false, plan);
        if (rc == 0 && staged) {
            const size_t n = strlen(plan->config);
            snprintf(plan->config + n, sizeof plan->config - n, "; unaligned rows padded");
        }
        return rc;
#define SMK_G16_CASE(n, V) case n: return plan_cfg<V>(M, N, K, layout, sid, staged, plan);
    SMK_G16_VARIANTS(SMK_G16_CASE)
#undef SMK_G16_CASE
    default: return -1;
    }
}
