/* The tensor-core GEMM's C API (runtime.h smk_gemm16_*): argument preparation, the variant switch and
 * the layout / swizzle dispatch onto the kernel translation units.
 *
 * Rules: the launcher validates params (cudaErrorInvalidValue), opts into > 48 KB shared memory once
 * per instantiation (instantiate.cuh), returns the first CUDA error, never exits; only variant 0 (and
 * the pre-#28 variant) allocates: stream-ordered padded temporaries (gemm16_padcopy.cu) and split-K's
 * fp32 workspace (launch_split), as smk_gemm16_choose (gemm16_choose.c) says. */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <type_traits>

#include "common/gemm_args.h"
#include "common/launch.h"
#include "runtime.h"
#include "dispatch.h"
#include "layout.h"
#include "matvec.h"
#include "api/gemm16_epi.h"
#include "api/gemm16_small.h"
#include "api/gemm16.h"
#include "api/splitk.h"
#include "api/wgmma.h"
#include "common/splitk_fixup.cuh"
#include "counters.h"
#include "small.h"
#include "tiles.h"

namespace smk {
namespace g16 {

static const char *const kVariantNames[kNumVariants] = {
#define SMK_G16_NAME(n, V, name) , name
    kVariant0Name SMK_G16_VARIANTS(SMK_G16_NAME), kVariantPre28Name
#undef SMK_G16_NAME
};
static_assert(kVariantPre28 == SMK_GEMM16_VARIANT_PRE28, "api/gemm16.h numbers the pre-#28 variant");

/* The chooser's tile rows (api/gemm16.h SMK_G16_CHOOSER_TILES) are table variants of that geometry. */
template <int VAR> struct VariantCfg;
#define SMK_G16_VCFG(n, V, name) template <> struct VariantCfg<n> { using type = V; };
SMK_G16_VARIANTS(SMK_G16_VCFG)
#undef SMK_G16_VCFG
#define SMK_G16_CHECK_TILE(v, bm, bn, bk, bps, eff)                                                          \
    static_assert(VariantCfg<v>::type::BM == bm && VariantCfg<v>::type::BN == bn &&                          \
                      VariantCfg<v>::type::BK == bk && VariantCfg<v>::type::MINB <= bps,                      \
                  "SMK_G16_CHOOSER_TILES row " #v " matches tiles.h");
SMK_G16_CHOOSER_TILES(SMK_G16_CHECK_TILE)
#undef SMK_G16_CHECK_TILE
static_assert(std::is_same<VariantCfg<9>::type, DeepBase>::value && kDeepDepth == SMK_G16_DEEP,
              "api/gemm16.h smk_gemm16_staged_deep gates variant 9, the tile tiles.h deepens by SMK_G16_DEEP");

template <class C>
int launch_layout(const smk_gemm16_params &q, int sid, bool vec, const LaunchHow &how, cudaStream_t s)
{
    switch (q.layout) {
    case SMK_NAIVE: return launch_dt<C, SMK_NAIVE, 0>(q, vec, how, s);
    case SMK_PAD: return launch_dt<C, SMK_PAD, 0>(q, vec, how, s);
    case SMK_SWIZZLE:
        switch (sid) {
        case 0: return launch_dt<C, SMK_SWIZZLE, 0>(q, vec, how, s);
        case 1: return launch_dt<C, SMK_SWIZZLE, 1>(q, vec, how, s);
        case 2: return launch_dt<C, SMK_SWIZZLE, 2>(q, vec, how, s);
        case 3: return launch_dt<C, SMK_SWIZZLE, 3>(q, vec, how, s);
        default: return (int)cudaErrorInvalidValue;
        }
    default: return (int)cudaErrorInvalidValue;
    }
}

/* Whether the kernel stages D through shared memory (the gemm16_epi knob, gemm16_choose.c's rule). */
static int epi_of(const smk_gemm16_params &q)
{
    const int pairs = ((uintptr_t)q.D & 3u) == 0 && q.ldd % 2 == 0;
    return smk_gemm16_epi_staged_n(smk_gemm16_epi, q.N, q.K, pairs, q.out_f32, q.beta != 0.f);
}

/* Knob gemm16_narrow_async's widths for a launch of `variant` on q's rows (0: not aligned to 16 bytes
 * and the gate says narrow cp.async, api/gemm16.h smk_gemm16_narrow; else 0, the staged path). */
static int narrow_of(const smk_gemm16_params &q, bool vec, int variant, int64_t k_slice, int splits)
{
    if (vec || smk_gemm16_narrow_async <= 0)
        return 0;
    return smk_gemm16_narrow(smk_gemm16_narrow_async, variant, k_slice, splits, row_width(q.A, q.lda),
                             row_width(q.B, q.ldb));
}

/* One variant's configuration (1 .. the table's last) on q as it is. */
static int launch_variant(int variant, const smk_gemm16_params &q, int sid, bool vec, const LaunchHow &how,
                          cudaStream_t s)
{
    switch (variant) {
#define SMK_G16_CASE(n, V, name) case n: return launch_layout<V>(q, sid, vec, how, s);
    SMK_G16_VARIANTS(SMK_G16_CASE)
#undef SMK_G16_CASE
    default: return (int)cudaErrorInvalidValue;
    }
}

/* The variant before #28 (kVariantPre28, for the A/B): unaligned rows always copied padded, then
 * 128x256x64 (128x128x64 for grids under half a wave), no split. */
static int launch_pre28(smk_gemm16_params q, int sid, bool vec, int sms, cudaStream_t stream)
{
    const LaunchHow one = {0, 1, {0, 0}, epi_of(q)};
    const int mask = pad_mask(q, vec);
    void *tmp[2] = {NULL, NULL};
    int e = mask ? pad_operands(&q, mask, tmp, stream) : (int)cudaSuccess;
    if (e == (int)cudaSuccess)
        e = small_grid(q.M, q.N, sms) ? launch_layout<VSmall>(q, sid, true, one, stream)
                                      : launch_layout<VAligned>(q, sid, true, one, stream);
    if (mask)
        free_padded(tmp, stream);
    return e;
}

/* The fused reduction's gate (knob splitk_fixup; common/splitk_fixup.cuh fixup_gate_model) for a split
 * launch of `variant` over S slices of an M x N output: 1 where the last block of each tile reduces, 2
 * where the tile's blocks run as one cluster and reduce it together (the launcher wants sm_90). */
static int fixup_gate(int64_t M, int64_t N, int S, int variant, int knob)
{
    switch (variant) {
#define SMK_G16_FIX_CASE(n, V, name) case n: return fixup_gate_model(M, N, S, V::BM, V::BN, V::THREADS, knob);
    SMK_G16_VARIANTS(SMK_G16_FIX_CASE)
#undef SMK_G16_FIX_CASE
    default: return 0;
    }
}

/* Split-K: ch.splits fp32 partial tiles into a stream-ordered workspace on `stream`, then the
 * reduction (gemm16_reduce.cu) into D; the workspace freed on `stream` behind them.  Where the gate
 * says, the mma.sync kernel's last block per tile reduces instead (fixup.cuh), counting on the stream's
 * counters (counters.h; none there: the separate reduction), or (knob 3, sm_90) the tile's blocks as one
 * cluster.  The slices of a 64x64 in-place launch take the deep staged loads where knob gemm16_staged's
 * gate says (api/gemm16.h smk_gemm16_staged_deep), or knob gemm16_small's kernels where it says
 * (small.h small_kind; then the separate reduction, never the fused one). */
static int launch_split(const smk_gemm16_params &q, int sid, bool vec, const smk_gemm16_choice &ch, int sms,
                        cudaStream_t stream)
{
    const int64_t ldw = smk_gemm16_ws_ldw(q.N), stride = q.M * ldw;
    void *ws = NULL;
    const smk_status st = smk_rt_alloc_on(&ws, (size_t)ch.splits * (size_t)stride * sizeof(float), stream);
    if (st.code != SMK_OK)
        return st.cuda ? st.cuda : (int)cudaErrorMemoryAllocation;
    smk_gemm16_params w = q; /* the partial tiles: fp32 D = 1 * A[:, slice] @ B[slice, :], C not read */
    w.D = ws;
    w.ldd = ldw;
    w.C = NULL;
    w.alpha = 1.f;
    w.beta = 0.f;
    w.out_f32 = 1;
    LaunchHow how = {0, ch.splits, {ch.k_chunk, stride}, 0, {}}; /* fp32 partials: the register epilogue */
    how.narrow = narrow_of(q, vec, ch.variant, ch.k_chunk, ch.splits);
    how.deep = !how.narrow &&
               smk_gemm16_staged_deep(smk_gemm16_staged, q.M, q.N, ch.k_chunk, ch.splits, ch.variant, !vec, sms);
    const int kind = how.narrow ? 0
                                : small_kind(smk_gemm16_small,
                                             smk_gemm16_small_tile(smk_gemm16_small, q.M, q.N, ch.splits, ch.variant,
                                                                   !vec, sms),
                                             how.deep != 0, sid);
    int fix = kind || how.narrow ? 0 : fixup_gate(q.M, q.N, ch.splits, ch.variant, smk_splitk_fixup()), dsms = 0,
        major = 0;
    if (fix == 2 && (smk::device_facts(&dsms, &major) != 0 || major < 9))
        fix = 0; /* clusters: sm_90 and later */
    unsigned *counters = fix == 1 ? smk_rt_counters(stream) : NULL;
    if (counters || fix == 2)
        how.fx = {counters, q.D, q.C, q.ldd, q.ldc, q.alpha, q.beta, ch.splits, reduce_groups_per_warp(ch.splits),
                  q.out_f32 ? 1 : 0, smk_splitk_fence(), fix == 2};
    int e = kind ? launch_small(w, how, kind, stream) : launch_variant(ch.variant, w, sid, vec, how, stream);
    if (e == (int)cudaSuccess && !counters && fix != 2)
        e = launch_reduce(q, (const float *)ws, stride, ldw, ch.splits, stream);
    smk_rt_free_on(ws, stream); /* stream-ordered: after the kernels that use it, even on failure */
    return e;
}

/* Variant 0: the choice of gemm16_choose.c (tile, split, padded copies or unaligned rows in place),
 * run as chosen (an in-place 64x64 launch on knob gemm16_small's kernels where it says: small.h).  A and B
 * padded (ch.pad_a / pad_b) into temporaries freed on `stream` behind it. */
static int launch_v0(smk_gemm16_params q, int sid, bool vec, int sms, cudaStream_t stream)
{
    smk_gemm16_choice ch;
    smk_gemm16_choose(q.M, q.N, q.K, sms, rows_aligned(q.A, q.lda), rows_aligned(q.B, q.ldb), &ch);
    const int mask = (ch.pad_a ? 1 : 0) | (ch.pad_b ? 2 : 0);
    void *tmp[2] = {NULL, NULL};
    int e = mask ? pad_operands(&q, mask, tmp, stream) : (int)cudaSuccess;
    if (mask)
        vec = q.K == 0 || (rows_aligned(q.A, q.lda) && rows_aligned(q.B, q.ldb));
    smk_gemm16_staged_unsplit(smk_gemm16_staged, q.M, q.N, q.K, !vec, sms, &ch); /* knob gemm16_staged 2 */
    if (e == (int)cudaSuccess) {
        LaunchHow one = {0, 1, {0, 0}, epi_of(q)};
        one.narrow = ch.splits > 1 ? 0 : narrow_of(q, vec, ch.variant, q.K, 1);
        one.deep = !one.narrow && smk_gemm16_staged_deep(smk_gemm16_staged, q.M, q.N, q.K, 1, ch.variant, !vec, sms);
        const int kind = one.narrow ? 0
                                    : small_kind(smk_gemm16_small,
                                                 smk_gemm16_small_tile(smk_gemm16_small, q.M, q.N, 1, ch.variant,
                                                                       !vec, sms),
                                                 one.deep != 0, sid);
        e = ch.splits > 1 ? launch_split(q, sid, vec, ch, sms, stream)
            : kind        ? launch_small(q, one, kind, stream)
                          : launch_variant(ch.variant, q, sid, vec, one, stream);
    }
    if (mask)
        free_padded(tmp, stream);
    return e;
}

/* Validate p into q: 0 = launch q, 1 = nothing to do, negative = invalid; *sid the swizzle id, *vec
 * whether A's and B's rows are 16-byte aligned (or unread).  The family's limits, then the BLAS rules
 * (common/gemm_args.h).  M and N up to 64 * INT_MAX keep
 * the grid's block count and the kernel's int row / column arithmetic in range, K up to 16 * INT_MAX
 * the int k-tile count. */
static int prepare(const smk_gemm16_params *p, smk_gemm16_params *q, int *sid, bool *vec)
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
    if (q->M > (int64_t)INT_MAX * 64 || q->N > (int64_t)INT_MAX * 64 || q->K > (int64_t)INT_MAX * 16)
        return -1;
    const int st = gemm_normalise(q);
    if (st != 0)
        return st;
    *vec = q->K == 0 || (rows_aligned(q->A, q->lda) && rows_aligned(q->B, q->ldb));
    return 0;
}

} /* namespace g16 */
} /* namespace smk */

extern "C" int smk_gemm16_fixup_gate(int64_t M, int64_t N, int S, int variant, int knob)
{
    return smk::g16::fixup_gate(M, N, S, variant, knob);
}

extern "C" int smk_gemm16_num_variants(void) { return smk::g16::kNumVariants; }

extern "C" const char *smk_gemm16_variant_name(int variant)
{
    return variant >= 0 && variant < smk::g16::kNumVariants ? smk::g16::kVariantNames[variant] : NULL;
}

extern "C" int smk_gemm16_variant_geometry(int variant, int *bm, int *bn, int *bk, int *stages)
{
    using namespace smk::g16;
#define SMK_G16_GEOM(V)                                                                               \
    do {                                                                                              \
        if (bm) *bm = V::BM;                                                                          \
        if (bn) *bn = V::BN;                                                                          \
        if (bk) *bk = V::BK;                                                                          \
        if (stages) *stages = V::STAGES;                                                              \
    } while (0)
    switch (variant) {
    case 0: SMK_G16_GEOM(VAligned); return 0;
    case kVariantPre28: SMK_G16_GEOM(VAligned); return 0;
#define SMK_G16_CASE(n, V, name) case n: SMK_G16_GEOM(V); return 0;
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

extern "C" int smk_gemm16_device_sms(void)
{
    int sms = 0;
    return smk::device_facts(&sms, NULL) == 0 ? sms : 0;
}

extern "C" size_t smk_gemm16_temp_bytes(const smk_gemm16_params *p, int sms)
{
    using namespace smk::g16;
    smk_gemm16_params q;
    int sid = 0;
    bool vec = false;
    if (prepare(p, &q, &sid, &vec) != 0)
        return 0;
    smk_mv_route r;
    if (mv_route(q, &r)) { /* the memory-bound path: its workspace, no padded copies (but knob 4's wgmma) */
        const size_t w = smk_gemm16_wgmma_temp_bytes(q.M, q.N, q.K, q.variant, rows_aligned(q.A, q.lda),
                                                     rows_aligned(q.B, q.ldb), sms > 0 ? sms : smk_gemm16_device_sms());
        return r.ws_bytes > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)r.ws_bytes > w ? (size_t)r.ws_bytes : w;
    }
    return smk_gemm16_temp_bytes_shape(q.M, q.N, q.K, q.variant, rows_aligned(q.A, q.lda), rows_aligned(q.B, q.ldb),
                                       sms > 0 ? sms : smk_gemm16_device_sms());
}

/* Knobs 3, 4 and 5: where smk_gemm16_kernel_for_ab takes the shape, the wgmma kernel on the caller's
 * rows where both are aligned; else the operands whose rows are off 16 bytes copied into padded stream-ordered
 * temporaries (pad_operands: rows of pad8(cols) elements, the columns past K / N zero, so TMA's boxes see
 * the same matrix; C and D are the caller's, written by the kernel's register epilogue where D's rows are
 * not 16-byte aligned), the wgmma kernel on them, the temporaries freed behind it on `stream`.
 * SMK_WGMMA_FALLBACK where the rule or the build says mma.sync (nothing enqueued then). */
static int wgmma_padded(const smk_gemm16_params *p, int knob, cudaStream_t stream)
{
    using namespace smk::g16;
    smk_gemm16_params q = *p;
    if (!smk_wgmma_built() || smk::gemm_normalise(&q) != 0 || q.K == 0 || (q.dtype != 0 && q.dtype != 1))
        return SMK_WGMMA_FALLBACK;
    if (q.K > INT_MAX - 64 || q.N > INT_MAX - 256 || q.M > INT_MAX - 128) /* TMA's int32 coordinates: */
        return SMK_WGMMA_FALLBACK;                                         /* refused before any copy */
    const int a_al = rows_aligned(q.A, q.lda), b_al = rows_aligned(q.B, q.ldb);
    int sms = 0, major = 0;
    int e = smk::device_facts(&sms, &major);
    if (e)
        return e;
    if (!smk_gemm16_kernel_for_ab(knob, q.variant, q.M, q.N, q.K, q.layout, q.swz_b, q.swz_m, q.swz_s, a_al, b_al,
                                  major, 0, sms)) /* the minor version: smk_wgmma_launch checks it */
        return SMK_WGMMA_FALLBACK;
    if (a_al && b_al)
        return smk_wgmma_launch(p, stream);
    void *tmp[2] = {NULL, NULL};
    e = pad_operands(&q, (a_al ? 0 : 1) | (b_al ? 0 : 2), tmp, stream);
    if (e == (int)cudaSuccess)
        e = smk_wgmma_launch(&q, stream);
    free_padded(tmp, stream); /* on SMK_WGMMA_FALLBACK too (a 9.x device, sizes past TMA's): mma.sync redoes it */
    return e;
}

/* The wgmma kernel first where smk_gemm16_set_kernel(1) forces it or (2) its auto rule takes the shape
 * (variant 0 only, smk_gemm16_kernel_for), or 3 (the default) / 4 / 5 with padded copies (wgmma_padded);
 * on its SMK_WGMMA_FALLBACK this kernel runs, an explicit swizzle it does not compile (Swizzle(1,3,3))
 * then replaced by the automatic one (the fallback cases are the unaligned (knobs 1, 2), K == 0 and
 * non-sm_90 ones). */
static int try_wgmma(const smk_gemm16_params *p, smk_gemm16_params *alt, cudaStream_t stream)
{
    const int knob = smk_gemm16_kernel();
    const int e = knob >= 3 ? wgmma_padded(p, knob, stream)
                : knob == 1 ? smk_wgmma_launch(p, stream) : smk_wgmma_launch_auto(p, stream);
    if (e != SMK_WGMMA_FALLBACK)
        return e;
    *alt = *p;
    if (!smk_gemm16_supports_swizzle(alt->swz_b, alt->swz_m, alt->swz_s))
        alt->swz_b = alt->swz_m = alt->swz_s = 0;
    return SMK_WGMMA_FALLBACK;
}

extern "C" int smk_gemm16_launch(const smk_gemm16_params *p, cudaStream_t stream)
{
    using namespace smk::g16;
    smk_gemm16_params q, alt;
    int sid = 0;
    bool vec = false;
    if (p && p->variant == 0 && smk_gemm16_kernel() != 0) {
        const int e = try_wgmma(p, &alt, stream);
        if (e != SMK_WGMMA_FALLBACK)
            return e;
        p = &alt;
    }
    const int st = prepare(p, &q, &sid, &vec);
    if (st < 0)
        return (int)cudaErrorInvalidValue;
    if (st > 0)
        return (int)cudaSuccess;
    if (q.variant == 0 || q.variant == kVariantPre28) {
        int sms = 0;
        const int e = smk::device_facts(&sms, NULL);
        if (e)
            return e;
        smk_mv_route r;
        if (q.variant == 0 && mv_route(q, &r)) /* M or N small, or tiny K: the memory-bound path (matvec.h) */
            return mv_launch(q, r, sms, stream);
        return q.variant == 0 ? launch_v0(q, sid, vec, sms, stream) : launch_pre28(q, sid, vec, sms, stream);
    }
    LaunchHow how = {q.variant == 5, 1, {0, 0}, epi_of(q)};
    how.narrow = smk_gemm16_narrow_async >= 2 ? narrow_of(q, vec, q.variant, q.K, 1) : 0; /* level 2: forced too */
    if (how.narrow)
        return launch_variant(q.variant, q, sid, vec, how, stream);
    how.deep = smk_gemm16_staged >= 3 && smk_gemm16_staged_deep(smk_gemm16_staged, q.M, q.N, q.K, 1, q.variant, !vec, 1);
    const bool half = (smk_gemm16_small == 2 || smk_gemm16_small == 4) && /* tests: forced variant 9 in place */
                      smk_gemm16_small_tile(smk_gemm16_small, q.M, q.N, 1, q.variant, !vec, 1);
    const int kind = small_kind(smk_gemm16_small, half, how.deep != 0, sid);
    if (kind)
        return launch_small(q, how, kind, stream);
    return launch_variant(q.variant, q, sid, vec, how, stream);
}
