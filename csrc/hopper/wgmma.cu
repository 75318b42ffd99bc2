/* The Hopper GEMM's launcher (api/wgmma.h): validation, the fallback answer, the two TMA tensor maps
 * (cuTensorMapEncodeTiled reached through cudaGetDriverEntryPointByVersion: nothing links libcuda, so
 * import works without a driver) and the mode switch onto one kernel template (kernel.cuh).
 *
 * setup.py compiles the files of csrc/hopper/ for sm_90a only (-gencode arch=compute_90a,code=sm_90a
 * -DSMK_HAVE_SM90A) when 90 is among the target architectures, and for the build's own targets
 * otherwise: then no pass defines __CUDA_ARCH_FEAT_SM90_ALL, the kernels are empty and every launch
 * answers SMK_WGMMA_FALLBACK. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "api/wgmma.h"
#include "common/gemm_args.h"
#include "common/launch.h"
#include "hopper/kernel.cuh"
#include "layout.h"

namespace smk {
namespace hop {

static volatile unsigned long long g_launches; /* kernels enqueued (smk_wgmma_launches): tests see it ran */

typedef CUresult (*EncodeTiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* The driver's cuTensorMapEncodeTiled, looked up once (a benign race: every writer stores the same). */
static int encoder(EncodeTiled *fn)
{
    static EncodeTiled cached;
    if (!cached) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q);
        if (e != cudaSuccess)
            return (int)e;
        if (q != cudaDriverEntryPointSuccess || !f)
            return (int)cudaErrorNotSupported;
        cached = (EncodeTiled)f;
    }
    *fn = cached;
    return 0;
}

static CUtensorMapSwizzle swizzle_of(int swb)
{
    return swb == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
         : swb == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
         : swb == 32  ? CU_TENSOR_MAP_SWIZZLE_32B
                      : CU_TENSOR_MAP_SWIZZLE_NONE;
}

/* A row-major rows x cols 2-byte matrix (leading dimension ld elements) read in boxes of box_rows x
 * (swb ? swb/2 : 8) elements, out-of-bounds elements filled with zeros. */
inline int make_map(CUtensorMap *map, const void *base, int64_t rows, int64_t cols, int64_t ld, int box_rows, int swb)
{
    EncodeTiled enc = NULL;
    const int e = encoder(&enc);
    if (e)
        return e;
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)ld * 2};
    const cuuint32_t box[2] = {(cuuint32_t)(swb ? swb / 2 : 8), (cuuint32_t)box_rows};
    const cuuint32_t estr[2] = {1, 1};
    const CUresult r = enc(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, const_cast<void *>(base), dims, strides, box, estr,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_of(swb), CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorInvalidValue;
}

template <int SWB, bool BF16>
static int launch(const smk_gemm16_params &q, cudaStream_t stream)
{
    using C = Cfg<SWB>;
    CUtensorMap ta, tb;
    int e = make_map(&ta, q.A, q.M, q.K, q.lda, C::BM, SWB);
    if (!e)
        e = make_map(&tb, q.B, q.K, q.N, q.ldb, C::BK, SWB);
    if (!e)
        e = smem_optin<wgmma_gemm<SWB, BF16>>(C::SMEM);
    if (e)
        return e;
    Sched sc;
    sc.tiles_m = (int)((q.M + C::BM - 1) / C::BM);
    sc.tiles_n = (int)((q.N + C::BN - 1) / C::BN);
    sc.tiles = sc.tiles_m * sc.tiles_n; /* < 2^31: smk_wgmma_launch checked */
    sc.ktiles = (int)((q.K + C::BK - 1) / C::BK);
    int sms = 0;
    e = smk::device_facts(&sms, NULL);
    if (e)
        return e;
    const unsigned blocks = (unsigned)(sc.tiles < sms ? sc.tiles : sms); /* persistent: one block per SM */
    wgmma_gemm<SWB, BF16><<<blocks, C::THREADS, C::SMEM, stream>>>(ta, tb, q, sc);
    e = (int)cudaGetLastError();
    if (!e)
        g_launches = g_launches + 1;
    return e;
}

template <bool BF16>
static int launch_mode(const smk_gemm16_params &q, int swb, cudaStream_t stream)
{
    switch (swb) {
    case 128: return launch<128, BF16>(q, stream);
    case 64: return launch<64, BF16>(q, stream);
    case 32: return launch<32, BF16>(q, stream);
    default: return launch<0, BF16>(q, stream);
    }
}

template <int SWB>
static void descs(uint64_t out[16])
{
    for (int cw = 0; cw < 2; cw++)
        for (int kk = 0; kk < Cfg<SWB>::BK / 16; kk++) {
            out[2 * (4 * cw + kk)] = a_desc<SWB>(0, cw, kk);
            out[2 * (4 * cw + kk) + 1] = b_desc<SWB>(Cfg<SWB>::A_BYTES, kk);
        }
}

inline bool rows16(const void *ptr, int64_t ld) { return aligned16(ptr) && ld % 8 == 0; }

} /* namespace hop */
} /* namespace smk */

static volatile int g_kernel = 6; /* smk_gemm16_set_kernel: 0 mma.sync, 1 wgmma, 2 auto; 3 auto, 4 wgmma, 5 the
                                      cost model, unaligned rows through padded copies (gemm16_launch.cu
                                      wgmma_padded; 3 won on every draw it changed, docs/GEMM16_NOTES.md
                                      "Session 38"); 6 (the default since session 42) 3 and K of 64..255 on
                                      aligned B (wgmma_mode.c wgmma_auto_mid) */

extern "C" int smk_gemm16_set_kernel(int kernel)
{
    if (kernel < 0 || kernel > 6)
        return -1;
    g_kernel = kernel;
    return 0;
}

extern "C" int smk_gemm16_kernel(void) { return g_kernel; }

extern "C" int smk_wgmma_descs(int swb, uint64_t out[16])
{
    using namespace smk::hop;
    switch (swb) {
    case 128: descs<128>(out); return 0;
    case 64: descs<64>(out); return 0;
    case 32: descs<32>(out); return 0;
    case 0: descs<0>(out); return 0;
    default: return -1;
    }
}

extern "C" unsigned long long smk_wgmma_launches(void) { return smk::hop::g_launches; }

extern "C" int smk_wgmma_built(void)
{
#if defined(SMK_HAVE_SM90A)
    return 1;
#else
    return 0;
#endif
}

extern "C" int smk_wgmma_launch(const smk_gemm16_params *p, cudaStream_t stream)
{
    using namespace smk::hop;
    if (!p || (p->dtype != 0 && p->dtype != 1))
        return (int)cudaErrorInvalidValue;
    const int swb = smk_wgmma_mode(p->layout, p->swz_b, p->swz_m, p->swz_s);
    if (swb < 0)
        return (int)cudaErrorInvalidValue;
    smk_gemm16_params q = *p;
    const int st = smk::gemm_normalise(&q);
    if (st != 0)
        return st < 0 ? (int)cudaErrorInvalidValue : (int)cudaSuccess;
#if !defined(SMK_HAVE_SM90A)
    return SMK_WGMMA_FALLBACK;
#else
    if (q.variant != 0 || q.K == 0 || !rows16(q.A, q.lda) || !rows16(q.B, q.ldb))
        return SMK_WGMMA_FALLBACK;
    /* TMA coordinates are int32; the persistent schedule counts tiles in int */
    if (q.K > INT32_MAX - 64 || q.N > INT32_MAX - 256 || q.M > INT32_MAX - 128 ||
        ((q.M + 127) / 128) * ((q.N + 255) / 256) > INT32_MAX)
        return SMK_WGMMA_FALLBACK;
    int dev = 0, major = 0, minor = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (e != cudaSuccess)
        return (int)e;
    if (major != 9 || minor != 0)
        return SMK_WGMMA_FALLBACK;
    return q.dtype ? launch_mode<true>(q, swb, stream) : launch_mode<false>(q, swb, stream);
#endif
}

/* The "auto" knob: the wgmma kernel where smk_gemm16_kernel_for's rule takes the shape, else
 * SMK_WGMMA_FALLBACK.  The minor compute capability is checked again by smk_wgmma_launch. */
extern "C" int smk_wgmma_launch_auto(const smk_gemm16_params *p, cudaStream_t stream)
{
    using namespace smk::hop;
    if (!p)
        return (int)cudaErrorInvalidValue;
    int sms = 0, major = 0;
    const int e = smk::device_facts(&sms, &major);
    if (e)
        return e;
    const bool alpha0 = p->alpha == 0.f; /* BLAS: A and B unread, D = beta * C */
    const int aligned = p->K > 0 && !alpha0 && p->A && p->B && rows16(p->A, p->lda) && rows16(p->B, p->ldb);
    if (!smk_gemm16_kernel_for(2, p->variant, p->M, p->N, p->K, p->layout, p->swz_b, p->swz_m, p->swz_s, aligned,
                               major, 0, sms))
        return SMK_WGMMA_FALLBACK;
    return smk_wgmma_launch(p, stream);
}
