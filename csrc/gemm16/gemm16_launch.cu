/* The tensor-core GEMM's C API (runtime.h smk_gemm16_*): argument preparation, the variant switch and
 * the layout / swizzle dispatch onto the kernel translation units.
 *
 * Rules: the launcher validates params (cudaErrorInvalidValue), opts into > 48 KB shared memory once
 * per instantiation (instantiate.cuh), returns the first CUDA error, never exits; only variant 0 with
 * unaligned rows allocates (stream-ordered padded temporaries, gemm16_padcopy.cu). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include "common/gemm_args.h"
#include "common/launch.h"
#include "dispatch.h"
#include "layout.h"
#include "matvec.h"
#include "api/gemm16.h"
#include "api/wgmma.h"
#include "tiles.h"

namespace smk {
namespace g16 {

static const char *const kVariantNames[kNumVariants] = {
#define SMK_G16_NAME(n, V, name) , name
    kVariant0Name SMK_G16_VARIANTS(SMK_G16_NAME)
#undef SMK_G16_NAME
};

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

/* Variant 0 on aligned rows: VSmall or VAligned by the grid. */
static int launch_aligned(const smk_gemm16_params &q, int sid, int sms, cudaStream_t stream)
{
    return small_grid(q.M, q.N, sms) ? launch_layout<VSmall>(q, sid, true, stream)
                                     : launch_layout<VAligned>(q, sid, true, stream);
}

/* Variant 0 with unaligned rows: A and / or B (mask) copied padded, the aligned kernel on the copies,
 * the temporaries freed on `stream` behind it (no synchronisation). */
static int launch_padded(smk_gemm16_params q, int sid, int mask, int sms, cudaStream_t stream)
{
    void *tmp[2] = {NULL, NULL};
    int e = pad_operands(&q, mask, tmp, stream);
    if (e == (int)cudaSuccess)
        e = launch_aligned(q, sid, sms, stream);
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
    *vec = q->K == 0 || (aligned16(q->A) && aligned16(q->B) && q->lda % 8 == 0 && q->ldb % 8 == 0);
    return 0;
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
#define SMK_G16_GEOM(V)                                                                               \
    do {                                                                                              \
        if (bm) *bm = V::BM;                                                                          \
        if (bn) *bn = V::BN;                                                                          \
        if (bk) *bk = V::BK;                                                                          \
        if (stages) *stages = V::STAGES;                                                              \
    } while (0)
    switch (variant) {
    case 0: SMK_G16_GEOM(VAligned); return 0;
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

extern "C" size_t smk_gemm16_temp_bytes(const smk_gemm16_params *p)
{
    using namespace smk::g16;
    smk_gemm16_params q;
    int sid = 0;
    bool vec = false;
    if (prepare(p, &q, &sid, &vec) != 0)
        return 0;
    smk_mv_route r;
    if (mv_route(q, &r)) /* the memory-bound path: its workspace, no padded copies */
        return r.ws_bytes > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)r.ws_bytes;
    return pad_bytes(q, pad_mask(q, vec));
}

/* The wgmma kernel first where smk_gemm16_set_kernel(1) forces it or (2, the default) its auto rule
 * takes the shape (variant 0 only, smk_gemm16_kernel_for); on its
 * SMK_WGMMA_FALLBACK this kernel runs, an explicit swizzle it does not compile (Swizzle(1,3,3)) then
 * replaced by the automatic one (the fallback cases are the unaligned, K == 0 and non-sm_90 ones). */
static int try_wgmma(const smk_gemm16_params *p, smk_gemm16_params *alt, cudaStream_t stream)
{
    const int e = smk_gemm16_kernel() == 1 ? smk_wgmma_launch(p, stream) : smk_wgmma_launch_auto(p, stream);
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
    switch (q.variant) {
    case 0: {
        int sms = 0;
        const int e = smk::device_facts(&sms, NULL);
        if (e)
            return e;
        smk_mv_route r;
        if (mv_route(q, &r)) /* M or N small, or tiny K: the memory-bound path (matvec.h) */
            return mv_launch(q, r, sms, stream);
        const int mask = pad_mask(q, vec);
        return mask ? launch_padded(q, sid, mask, sms, stream) : launch_aligned(q, sid, sms, stream);
    }
#define SMK_G16_CASE(n, V, name) case n: return launch_layout<V>(q, sid, vec, stream);
    SMK_G16_VARIANTS(SMK_G16_CASE)
#undef SMK_G16_CASE
    default: return (int)cudaErrorInvalidValue;
    }
}
