/* The tensor-core GEMM's variants and tile configurations: THE table a new tile config goes into.
 *
 * A configuration is a Cfg<...> (block tile, warp tile, stages, blocks per SM, interior fast path);
 * SMK_G16_CONFIGS lists each one once, and every layout's translation unit (kernels_*.cu through
 * instantiate.cuh) compiles the kernel for each row.  SMK_G16_VARIANTS maps the public variant numbers
 * 1.. (smk_gemm16_params.variant) onto configurations, with the text smk_gemm16_variant_name returns;
 * the launcher, the plan and the geometry query all switch over it.  Variant 0 (the shipped default)
 * picks VAligned or VSmall by the grid and pads unaligned rows first (launch.cu).
 * Adding a config: one SMK_G16_CONFIGS row and one SMK_G16_VARIANTS row, here, nothing else. */
#ifndef SMK_GEMM16_TILES_H
#define SMK_GEMM16_TILES_H

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
    static constexpr int DEEP = 0;      /* staged path: k-tiles of loads in flight beyond one (Deep<>) */
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

/* ---- THE table -----------------------------------------------------------------------------------
 * Configurations: X(name, BM, BN, BK, WM, WN, STAGES, MINB, FAST), each compiled for every layout,
 * swizzle, dtype and load path.  The benchmark shows BK = 32 (naive 4-way on A) next to BK = 64
 * (naive 8-way); V6 is V4 without the 2-blocks register cap (V4 spills); V7 is V1 with the general
 * load path on every tile (the A/B reference for the interior fast path); V8 (64x128, 2 per SM) and V9
 * (64x64, 3 per SM) are the mid-size tiles variant 0's chooser (gemm16_choose.c) may pick when the big
 * tiles' grid would leave SMs idle (1000^3: 32 blocks of 128x256 on 132 SMs, 128 of 64x128). */
#define SMK_G16_CONFIGS(X)                          \
    X(V1, 128, 256, 64, 64, 64, 3, 1, true)         \
    X(V2, 128, 256, 32, 64, 64, 4, 1, true)         \
    X(V3, 128, 128, 32, 64, 32, 4, 2, true)         \
    X(V4, 128, 128, 64, 64, 32, 3, 2, true)         \
    X(V6, 128, 128, 64, 64, 32, 3, 1, true)         \
    X(V7, 128, 256, 64, 64, 64, 3, 1, false)        \
    X(V8, 64, 128, 64, 32, 32, 3, 2, true)          \
    X(V9, 64, 64, 64, 32, 16, 4, 3, true)

/* Variants 1.. in order: X(number, configuration, description).  Variant 5 is variant 2's kernel with
 * the aligned-block + funnel-shift loads for unaligned rows (launch.cu passes fastu). */
#define SMK_G16_VARIANTS(X)                                                                                  \
    X(1, V1, "128x256x64 block tile, 3 stages, 8 warps of 64x64")                                            \
    X(2, V2, "128x256x32 block tile, 4 stages, 8 warps of 64x64")                                            \
    X(3, V3, "128x128x32 block tile, 4 stages, 8 warps of 64x32, 2 blocks per SM")                           \
    X(4, V4, "128x128x64 block tile, 3 stages, 8 warps of 64x32, 2 blocks per SM")                           \
    X(5, V2, "128x256x32 as variant 2; unaligned rows read as aligned 16-byte blocks + funnel shift")        \
    X(6, V6, "128x128x64 block tile, 3 stages, 8 warps of 64x32, 1 block per SM")                            \
    X(7, V7, "128x256x64 as variant 1, predicated cp.async path on every tile (before the interior fast path)") \
    X(8, V8, "64x128x64 block tile, 3 stages, 8 warps of 32x32, 2 blocks per SM")                           \
    X(9, V9, "64x64x64 block tile, 4 stages, 8 warps of 32x16, 3 blocks per SM")

#define SMK_G16_USING(V, bm, bn, bk, wm, wn, stages, minb, fast) using V = Cfg<bm, bn, bk, wm, wn, stages, minb, fast>;
SMK_G16_CONFIGS(SMK_G16_USING)
#undef SMK_G16_USING

/* A configuration whose staged path (unaligned rows in place) keeps P k-tiles of global loads in flight
 * per thread (load_deep.cuh), one block per SM for the registers that takes.  Not a table variant: variant
 * 0 runs it in place of a 64x64 in-place launch where the gemm16_staged knob's gate says
 * (smk_gemm16_staged_deep, gemm16_choose.c); the table's kernels are unchanged.  Instantiated for
 * DeepBase only (instantiate.cuh), aligned rows never reach it. */
template <class C, int P>
struct Deep : C {
    static constexpr int DEEP = P, MINB = 1;
};
using DeepBase = V9;
constexpr int kDeepDepth = 4;
using VDeep = Deep<DeepBase, kDeepDepth>;

/* Variant 0, the shipped default: smk_gemm16_choose's tile, K split and padded copies (gemm16_choose.c).
 * VAligned / VSmall: the tiles of variant 0 before #28 (kVariantPre28, small_grid). */
using VAligned = V1;
using VSmall = V6;
constexpr const char *kVariant0Name =
    "shipped: tile (128x256 .. 64x64), K split and padded copies of unaligned rows by a cost model";

#define SMK_G16_COUNT(n, V, name) +1
constexpr int kNumTableVariants = 1 SMK_G16_VARIANTS(SMK_G16_COUNT);
#undef SMK_G16_COUNT
/* One more number after the table: variant 0 before issue #28, for the A/B (launch.cu launch_pre28). */
constexpr int kVariantPre28 = kNumTableVariants, kNumVariants = kNumTableVariants + 1;
constexpr const char *kVariantPre28Name =
    "variant 0 before #28: 128x256x64 (128x128x64 under half a wave), unaligned rows copied padded, no split";

#define SMK_G16_NUMBER(n, V, name) , n
constexpr int kVariantNumbers[] = {0 SMK_G16_VARIANTS(SMK_G16_NUMBER)};
#undef SMK_G16_NUMBER
constexpr bool numbered_in_order(int i = 0)
{
    return i == kNumTableVariants || (kVariantNumbers[i] == i && numbered_in_order(i + 1));
}
static_assert(numbered_in_order(), "SMK_G16_VARIANTS rows are numbered 1, 2, ... in order");

} /* namespace g16 */
} /* namespace smk */

#endif
