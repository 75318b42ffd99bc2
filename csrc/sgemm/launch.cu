/*
 * sgemm/launch.cu -- smk_sgemm_launch: argument preparation, the choice (choose.cu), the launch table of
 * every config of configs.h, and split-K's workspace and reduction (reduce.cuh, or fused into the tile
 * kernel: fixup.cuh, knob splitk_fixup).
 *
 * Rules: the launcher validates params (cudaErrorInvalidValue), returns the first CUDA error, checks
 * cudaGetLastError after every launch, never exits; the only allocation is split-K's stream-ordered
 * workspace (smk_rt_alloc_on), freed on the same stream behind the kernels.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/gemm_args.h"
#include "common/launch.h"
#include "api/sgemm.h"
#include "api/sgemm_deep.h"
#include "api/sgemm_epi.h"
#include "api/sgemm_tinyk.h"
#include "api/sgemm_tune.h"
#include "counters.h"
#include "runtime.h"
#include "sgemm/choose.h"
#include "sgemm/configs.h"
#include "sgemm/deep.h"
#include "sgemm/epi.h"
#include "sgemm/fixup.cuh"
#include "sgemm/gemv.h"
#include "sgemm/rows_n.h"
#include "sgemm/tune.h"
#include "sgemm/launch.h"
#include "sgemm/reduce.cuh"

namespace smk {

/* smk_sgemm_set_new_paths; process-wide, a test / benchmark knob.  11 by default (level 7 + the short 32-row tile
 * past M = 32 where M mod 64 is 1..32): same-run A/Bs, seed 123 (its level-9 increment won the 4 draws it moved,
 * x1.36-1.74) and seed 124 (level 11 against 7: 1.039 -> 1.042, the 4 draws it moved x1.15-1.46).  7 before:
 * H100, acceptance's timing,
 * same-run A/B against 5 on fresh seeds 97 / 98 (300 draws each): 0.965 -> 1.039 / 0.926 -> 0.988 (p10 0.647
 * -> 0.676 / 0.639 -> 0.674, min 0.192 -> 0.416 / 0.285 -> 0.371); 5 against 3 on seeds 72 / 74: 0.947 ->
 * 0.981 / 0.948 -> 0.954; docs/SGEMM_NOTES.md. */
static volatile int g_new_paths = 11;
int sgemm_new_paths() { return g_new_paths; }

/* smk_sgemm_set_fixup (knob splitk_fixup): 0 (the default) split-K's separate reduction kernel; 1 the
 * tile kernel's fused fixup (fixup.cuh) where smk_sgemm_fixup_gate says; 2 on every tile split launch
 * whose tiles fit the counters (tests); 3 the tile's S <= 8 blocks as one cluster summing it together
 * (sm_90; common/splitk_fixup.cuh cluster_tile), the separate reduction elsewhere. */
static volatile int g_fixup = 0;

/* smk_sgemm_set_epi (knob sgemm_epi): the tile kernel's epilogue.  0 (the default) from registers
 * (tile.cuh sgemm_tile_epilogue); 1 staged (epilogue_staged.cuh) where sgemm_epi_gate's level-1 rule says;
 * 2 staged on every tile launch (tests, probes); 3 staged by the wider level-3 rule (probes). */
static volatile int g_epi = 1; /* session 41's A/B (seed 160): SGEMM_NOTES */
int sgemm_epi_level() { return g_epi; }

/* smk_sgemm_set_deep (knob sgemm_deep): the tile kernel's load pipeline.  0 tile.cuh's two-stage register
 * pipeline; 1..6 the deep cp.async pipeline (tile_deep.cuh), of the launch's tile or (3, 5, 6) of the half tile,
 * where sgemm_deep_gate says (deep.h); 6 the default since session 42 (seed 174, H100: 64 draws moved x1.20). */
/* smk_sgemm_set_tinyk (knob sgemm_tinyk): the tiny-K kernel.  0 tinyk.cuh's; 1 (the default since session 41's
 * A/B, seed 170: 31 draws moved x1.27) the lean variant (tinyk_lean.cuh: per-lane pointers once, the panel as
 * deep as the slice; D bit for bit the same). */
static volatile int g_tinyk = 1;

/* smk_sgemm_set_narrow (knob sgemm_narrow): 0 (the default) the chooser as before; 1 the skinny-n16 / skinny-n32
 * rows offered for 8 < N <= 32 (issue 27's narrow-N class: choose.cu sgemm_narrow_offer). */
static volatile int g_narrow = 0;
int sgemm_narrow() { return g_narrow; }

/* smk_sgemm_set_gemv (knob sgemm_gemv): 0 the chooser's kernels for every call; 1 automatic calls (config and
 * splits not forced) with M == 1 or N == 1 take the matrix-vector route (gemv.h, gemv.cuh), a K split summed by
 * reduce.cuh; 2 as 1, the split summed by the kernel's last block per grid column (gemv.cuh gemv_arrive); 3 (session
 * 43's default) as 1 for N == 1 alone; 4 (the default since session 44: held out on seed 196, H100, all draws 1.064 ->
 * 1.093 of cuBLAS, p10 0.691 -> 0.710, min 0.430 -> 0.469, M <= 4 shapes of the class 0.726 -> 1.048) as 3 for N == 1 and the wide kernel
 * (gemv_wide.cuh) for every other call with M <= 4; 5 as 4 for M == 1 alone; 6 as 4, splits summed by reduce.cuh; 7 as 4, the
 * fused tail's count without device-wide fences (gemv_wide.cuh wide_arrive). */
static volatile int g_gemv = 4;
int sgemm_gemv_level() { return g_gemv; }

/* smk_sgemm_set_rows_n (knob sgemm_rows_n): 0 (the default) the chooser's kernels; 1 automatic calls with 9 <= N <= 32,
 * M >= 1024, K >= 17 on the narrow-N rows kernel (rows_n.h, rows_n.cuh; session 44); 2 as 1 for 2 <= N <= 32 (N <= 8
 * is skinny-n's, 1.3-4.6x cuBLAS on seed 193: level 2 is its A/B); 3 as 1 with rows_n.h's rows-per-warp price; 4 by warps alone. */
static volatile int g_rows_n = 0;
int sgemm_rows_n_level() { return g_rows_n; }

static volatile int g_deep = 6; /* session 41's A/Bs and, with the deep kernel's own swizzle A tile, session 42's: SGEMM_NOTES */
int sgemm_deep_level() { return g_deep; }

/* smk_splitk_set_fence (knob splitk_fence): the fused fixup's ordering protocol (common/splitk_fixup.cuh):
 * 1 (the default) one fence per block after a barrier, 0 a fence per thread (session 39's). */
static volatile int g_fence = 1;

typedef int (*cfg_launch_fn)(const smk_sgemm_params &, bool, const SgemmSlice &, int, cudaStream_t);

/* The layout / VEC dispatch of one config: the instantiations live in tile_<layout>.cu / skinny.cu. */
template <class Cfg, int LAYOUT, bool VEC>
int launch_cfg(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    if constexpr (Cfg::KIND == SGEMM_TILE)
        return tile_launch_cfg<Cfg, LAYOUT, VEC>(q, slice, splits, stream);
    else if constexpr (Cfg::KIND == SGEMM_TINYK)
        return tinyk_launch_cfg<Cfg, LAYOUT, VEC>(q, slice, splits, stream);
    else
        return skinny_launch_cfg<Cfg, LAYOUT, VEC>(q, slice, splits, stream);
}

template <class Cfg, bool VEC>
int launch_layout(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    switch (q.layout) {
    case SMK_NAIVE: return launch_cfg<Cfg, SMK_NAIVE, VEC>(q, slice, splits, stream);
    case SMK_PAD: return launch_cfg<Cfg, SMK_PAD, VEC>(q, slice, splits, stream);
    case SMK_SWIZZLE: return launch_cfg<Cfg, SMK_SWIZZLE, VEC>(q, slice, splits, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

template <class Cfg>
int launch_any(const smk_sgemm_params &q, bool vec, const SgemmSlice &slice, int splits, cudaStream_t stream)
{
    return vec ? launch_layout<Cfg, true>(q, slice, splits, stream) : launch_layout<Cfg, false>(q, slice, splits, stream);
}

/* The launch table: one entry per row of configs.h, in its order ("auto" first). */
#define SMK_SGEMM_LAUNCH_ROW(NAME, KIND, ARGS, COST) launch_any<SMK_SGEMM_CFG(KIND, ARGS)>,
const cfg_launch_fn kLaunch[kNumConfigs] = {nullptr, SMK_SGEMM_CONFIGS(SMK_SGEMM_LAUNCH_ROW)};
#undef SMK_SGEMM_LAUNCH_ROW

/* The fused split launches of the TILE rows (fixup.cuh); the other rows have none (nullptr). */
typedef int (*fix_launch_fn)(const smk_sgemm_params &, bool, const SgemmSlice &, int, const SgemmFixup &,
                             cudaStream_t);
template <class Cfg, int LAYOUT>
int fix_layout(const smk_sgemm_params &q, bool vec, const SgemmSlice &s, int S, const SgemmFixup &fx, cudaStream_t st)
{
    return vec ? tile_launch_fix<Cfg, LAYOUT, true>(q, s, S, fx, st) : tile_launch_fix<Cfg, LAYOUT, false>(q, s, S, fx, st);
}
template <class Cfg>
constexpr fix_launch_fn fix_entry()
{
    if constexpr (Cfg::KIND == SGEMM_TILE) {
        return [](const smk_sgemm_params &q, bool vec, const SgemmSlice &s, int S, const SgemmFixup &fx,
                  cudaStream_t st) -> int {
            switch (q.layout) {
            case SMK_NAIVE: return fix_layout<Cfg, SMK_NAIVE>(q, vec, s, S, fx, st);
            case SMK_PAD: return fix_layout<Cfg, SMK_PAD>(q, vec, s, S, fx, st);
            case SMK_SWIZZLE: return fix_layout<Cfg, SMK_SWIZZLE>(q, vec, s, S, fx, st);
            default: return (int)cudaErrorInvalidValue;
            }
        };
    } else {
        return nullptr;
    }
}
/* Block tile and threads of each row for the gate (bm 0: not a TILE row). */
struct FixDims {
    int bm, bn, threads;
};
template <class Cfg>
constexpr FixDims fix_dims()
{
    if constexpr (Cfg::KIND == SGEMM_TILE) return FixDims{Cfg::BM, Cfg::BN, Cfg::THREADS};
    else return FixDims{0, 0, 0};
}
#define SMK_SGEMM_FIX_ROW(NAME, KIND, ARGS, COST) fix_entry<SMK_SGEMM_CFG(KIND, ARGS)>(),
const fix_launch_fn kLaunchFix[kNumConfigs] = {nullptr, SMK_SGEMM_CONFIGS(SMK_SGEMM_FIX_ROW)};
#undef SMK_SGEMM_FIX_ROW
#define SMK_SGEMM_DIMS_ROW(NAME, KIND, ARGS, COST) fix_dims<SMK_SGEMM_CFG(KIND, ARGS)>(),
const FixDims kFixDims[kNumConfigs] = {{0, 0, 0}, SMK_SGEMM_CONFIGS(SMK_SGEMM_DIMS_ROW)};
#undef SMK_SGEMM_DIMS_ROW

/* The staged-epilogue launches of the TILE rows (tile.cuh tile_launch_epi); the other rows: nullptr. */
typedef int (*epi_launch_fn)(const smk_sgemm_params &, bool, const SgemmSlice &, int, bool, cudaStream_t);
template <class Cfg, int LAYOUT>
int epi_layout(const smk_sgemm_params &q, bool vec, const SgemmSlice &s, int S, bool ra, cudaStream_t st)
{
    return vec ? tile_launch_epi<Cfg, LAYOUT, true>(q, s, S, ra, st) : tile_launch_epi<Cfg, LAYOUT, false>(q, s, S, ra, st);
}
template <class Cfg>
constexpr epi_launch_fn epi_entry()
{
    if constexpr (Cfg::KIND == SGEMM_TILE) {
        return [](const smk_sgemm_params &q, bool vec, const SgemmSlice &s, int S, bool ra, cudaStream_t st) -> int {
            switch (q.layout) {
            case SMK_NAIVE: return epi_layout<Cfg, SMK_NAIVE>(q, vec, s, S, ra, st);
            case SMK_PAD: return epi_layout<Cfg, SMK_PAD>(q, vec, s, S, ra, st);
            case SMK_SWIZZLE: return epi_layout<Cfg, SMK_SWIZZLE>(q, vec, s, S, ra, st);
            default: return (int)cudaErrorInvalidValue;
            }
        };
    } else {
        return nullptr;
    }
}
#define SMK_SGEMM_EPI_ROW(NAME, KIND, ARGS, COST) epi_entry<SMK_SGEMM_CFG(KIND, ARGS)>(),
const epi_launch_fn kLaunchEpi[kNumConfigs] = {nullptr, SMK_SGEMM_CONFIGS(SMK_SGEMM_EPI_ROW)};
#undef SMK_SGEMM_EPI_ROW

/* The deep-pipeline launches of the TILE rows with sgemm_has_deep (tile_deep.cu); the other rows: nullptr. */
typedef int (*deep_launch_fn)(const smk_sgemm_params &, bool, const SgemmSlice &, int, cudaStream_t);
template <class Cfg, int LAYOUT>
int deep_layout(const smk_sgemm_params &q, bool vec, const SgemmSlice &s, int S, cudaStream_t st)
{
    return vec ? tile_launch_deep<Cfg, LAYOUT, true>(q, s, S, st) : tile_launch_deep<Cfg, LAYOUT, false>(q, s, S, st);
}
template <class Cfg>
constexpr deep_launch_fn deep_entry()
{
    if constexpr (sgemm_has_deep<Cfg>()) {
        return [](const smk_sgemm_params &q, bool vec, const SgemmSlice &s, int S, cudaStream_t st) -> int {
            switch (q.layout) {
            case SMK_NAIVE: return deep_layout<Cfg, SMK_NAIVE>(q, vec, s, S, st);
            case SMK_PAD: return deep_layout<Cfg, SMK_PAD>(q, vec, s, S, st);
            case SMK_SWIZZLE: return deep_layout<Cfg, SMK_SWIZZLE>(q, vec, s, S, st);
            default: return (int)cudaErrorInvalidValue;
            }
        };
    } else {
        return nullptr;
    }
}
#define SMK_SGEMM_DEEP_ROW(NAME, KIND, ARGS, COST) deep_entry<SMK_SGEMM_CFG(KIND, ARGS)>(),
const deep_launch_fn kLaunchDeep[kNumConfigs] = {nullptr, SMK_SGEMM_CONFIGS(SMK_SGEMM_DEEP_ROW)};
#undef SMK_SGEMM_DEEP_ROW

/* The half tile's launch (deep.h SgemmHalfCfg), in place of config SMK_SGEMM_HALF_OF's. */
static int launch_half(const smk_sgemm_params &q, bool vec, const SgemmSlice &s, int S, cudaStream_t st)
{
    switch (q.layout) {
    case SMK_NAIVE: return deep_layout<SgemmHalfCfg, SMK_NAIVE>(q, vec, s, S, st);
    case SMK_PAD: return deep_layout<SgemmHalfCfg, SMK_PAD>(q, vec, s, S, st);
    case SMK_SWIZZLE: return deep_layout<SgemmHalfCfg, SMK_SWIZZLE>(q, vec, s, S, st);
    default: return (int)cudaErrorInvalidValue;
    }
}

bool sgemm_deep_row(int config) { return config > 0 && config < kNumConfigs && kLaunchDeep[config] != nullptr; }
bool sgemm_half_row(int config)
{
    return config > 0 && config < kNumConfigs && strcmp(smk_sgemm_config_name(config), SMK_SGEMM_HALF_OF) == 0;
}

/* The deep pipeline's gate, pure (deep.h).  K: the depth per block; one k-tile has nothing to overlap. */
int sgemm_deep_gate(int64_t M, int64_t N, int64_t K, int splits, int config, int sms, int knob)
{
    if (knob <= 0 || !sgemm_deep_row(config) || M <= 0 || N <= 0 || K <= 0 || splits < 1 || sms < 1)
        return SGEMM_DEEP_NO;
    const int how = (knob == 3 || knob >= 5) && sgemm_half_row(config) ? SGEMM_DEEP_HALF : SGEMM_DEEP_SAME;
    if (knob == 4 || knob == 5) return how;
    if (knob == 6 && N < kDeepMinN) return SGEMM_DEEP_NO;
    const long long blocks = sgemm_grid_blocks(kFixDims[config].bm, kFixDims[config].bn, M, N) * splits;
    return K > 16 && blocks > 0 && blocks <= (long long)(knob == 2 ? 4 : 2) * sms ? how : SGEMM_DEEP_NO;
}

/* The staged epilogue's gate, pure (launch.h). */
int sgemm_epi_gate(int64_t M, int64_t N, int64_t K, int rows, int config, int knob)
{
    if (knob <= 0 || config <= 0 || config >= kNumConfigs || kLaunchEpi[config] == nullptr || M <= 0 || N <= 0)
        return 0;
    if (knob == 2) return 1;
    const bool big = M * N >= kEpiMinOutputs;
    if (knob == 3) return big && K <= 256;
    return big && K <= 64 && rows < 2;
}

/* The output rows' alignment for the gate: 2 D's rows (and C's when read) all on 128-byte lines, 1 on 16
 * bytes (ld % 4 == 0), 0 otherwise. */
static int out_rows(const smk_sgemm_params &q)
{
    auto rows = [](const void *ptr, int64_t ld) {
        return ((uintptr_t)ptr & 127) == 0 && ld % 32 == 0 ? 2 : aligned16(ptr) && ld % 4 == 0 ? 1 : 0;
    };
    const int d = rows(q.D, q.ldd), c = q.beta != 0.f ? rows(q.C, q.ldc) : 2;
    return d < c ? d : c;
}

/* One launch of config's kernel over q, kdepth deep per block: the staged epilogue where the gate says
 * (re-aligned rows where out_rows says 0), else the deep pipeline where its gate says (knob sgemm_deep), else
 * the kernel of the launch table. */
static int launch_tile(const smk_sgemm_params &q, bool vec, int64_t kdepth, const SgemmSlice &slice, int config,
                       int splits, cudaStream_t stream)
{
    const int rows = out_rows(q);
    if (sgemm_epi_gate(q.M, q.N, kdepth, rows, config, g_epi))
        return kLaunchEpi[config](q, vec, slice, splits, rows == 0, stream);
    if (g_deep > 0) {
        int sms = 0, major = 0; /* cached per device (common/launch.h) */
        const int e = device_facts(&sms, &major);
        if (e != 0) return e;
        const int how = sgemm_deep_gate(q.M, q.N, kdepth, splits, config, sms, g_deep);
        if (how == SGEMM_DEEP_HALF) return launch_half(q, vec, slice, splits, stream);
        if (how == SGEMM_DEEP_SAME) return kLaunchDeep[config](q, vec, slice, splits, stream);
    }
    return kLaunch[config](q, vec, slice, splits, stream);
}

/* Every pointer the kernel touches 16-byte aligned and every leading dimension a multiple of 4. */
static bool sgemm_vec(const smk_sgemm_params &q)
{
    bool v = aligned16(q.D) && q.ldd % 4 == 0;
    if (q.K > 0) v = v && aligned16(q.A) && q.lda % 4 == 0 && aligned16(q.B) && q.ldb % 4 == 0;
    if (q.beta != 0.f) v = v && aligned16(q.C) && q.ldc % 4 == 0;
    return v;
}

/* Validate p into q: 0 = launch q, 1 = nothing to do, negative = invalid (common/gemm_args.h: alpha == 0
 * -> K = 0, K == 0 -> alpha = 0, beta == 0 -> C = NULL).  The SGEMM's own limits: a layout, splits
 * >= 0, and sizes whose in-kernel indices fit an int with a tile to spare. */
static int sgemm_prepare(const smk_sgemm_params *p, smk_sgemm_params *q, bool *vec)
{
    if (!p) return -1;
    *q = *p;
    if (q->layout < 0 || q->layout >= SMK_NUM_LAYOUTS || q->splits < 0) return -1;
    const int64_t lim = (int64_t)INT_MAX - 256; /* in-kernel indices are int; + a tile stays < 2^31 */
    if (q->M > lim || q->N > lim || q->K > lim) return -1;
    const int st = gemm_normalise(q);
    if (st != 0) return st;
    *vec = sgemm_vec(*q);
    return 0;
}

/* The reduction's grid: a warp per G float4 groups, capped at 32 blocks per SM (a grid-stride loop
 * covers the rest). */
static unsigned reduce_blocks(int64_t M, int64_t ldw, int G, int sms)
{
    const int64_t warps = (M * (ldw / 4) + G - 1) / G, per_block = kReduceThreads / 32;
    const int64_t blocks = (warps + per_block - 1) / per_block, cap = (int64_t)sms * 32;
    return (unsigned)(blocks < cap ? blocks : cap);
}

/* The reduction of S partial tiles at ws into q's D, a programmatic dependent launch where the device
 * has them and knob 'pdl' asks for it (pdl: sm_90 and later; the GEMM kernels call pdl_allow_dependents). */
static int launch_reduce(const smk_sgemm_params &q, const float *ws, int64_t stride, int64_t ldw, int S, int sms,
                         bool pdl, cudaStream_t stream)
{
    smk_sgemm_params r = q; /* the reduction reads only W and C, writes D */
    r.K = 0;
    const int G = reduce_groups_per_warp(S);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3(reduce_blocks(q.M, ldw, G, sms));
    lc.blockDim = dim3(kReduceThreads);
    lc.dynamicSmemBytes = 0;
    lc.stream = stream;
    lc.attrs = attr;
    lc.numAttrs = pdl ? 1 : 0;
    int e = (int)(sgemm_vec(r) ? cudaLaunchKernelEx(&lc, sgemm_reduce_kernel<true>, ws, stride, ldw, S, G, q)
                               : cudaLaunchKernelEx(&lc, sgemm_reduce_kernel<false>, ws, stride, ldw, S, G, q));
    if (e == cudaSuccess) e = (int)cudaGetLastError();
    return e;
}

int sgemm_reduce_launch(const smk_sgemm_params &q, const float *ws, int64_t stride, int64_t ldw, int S, int sms,
                        bool pdl, cudaStream_t stream)
{
    return launch_reduce(q, ws, stride, ldw, S, sms, pdl, stream);
}

/* The gate, pure: whether a split launch of `config` (a TILE row) over S slices of an M x N output
 * finishes itself (fixup.cuh) at knob level `knob`: common/splitk_fixup.cuh fixup_gate_model. */
static int fixup_gate(int64_t M, int64_t N, int S, int config, int knob)
{
    if (config <= 0 || config >= kNumConfigs || kFixDims[config].bm <= 0 || kLaunchFix[config] == nullptr) return 0;
    const FixDims d = kFixDims[config];
    return fixup_gate_model(M, N, S, d.bm, d.bn, d.threads, knob);
}

/* The split's D, C as the reduction stores them: sgemm_vec without A and B. */
static bool out_vec(const smk_sgemm_params &q)
{
    smk_sgemm_params r = q;
    r.K = 0;
    return sgemm_vec(r);
}

/* Split-K: S partial tiles into a stream-ordered fp32 workspace on `stream`, then the reduction
 * applies alpha and beta into D; the workspace is freed on `stream` behind them (no synchronisation).
 * Where the gate says, the tile kernel's last block per tile reduces instead (fixup.cuh), counting on
 * the stream's counters (runtime.c smk_rt_counters; none there: the separate reduction), or (knob 3,
 * sm90) the tile's S blocks as one cluster sum it together. */
static int launch_split(const smk_sgemm_params &q, const smk_sgemm_choice &ch, int sms, bool pdl, bool sm90,
                        cudaStream_t stream)
{
    const int64_t ldw = (q.N + 3) & ~(int64_t)3, stride = q.M * ldw;
    void *ws = NULL;
    const smk_status st = smk_rt_alloc_on(&ws, (size_t)ch.splits * (size_t)stride * sizeof(float), stream);
    if (st.code != SMK_OK) return st.cuda ? st.cuda : (int)cudaErrorMemoryAllocation;
    smk_sgemm_params w = q; /* the partial tiles: D = 1 * A[:, slice] @ B[slice, :], C not read */
    w.D = (float *)ws;
    w.ldd = ldw;
    w.C = NULL;
    w.alpha = 1.f;
    w.beta = 0.f;
    const SgemmSlice slice = {(int)ch.k_chunk, stride};
    int how = fixup_gate(q.M, q.N, ch.splits, ch.config, g_fixup);
    if (how == 2 && !sm90) how = 0; /* clusters: sm_90 and later */
    unsigned *counters = how == 1 ? smk_rt_counters(stream) : NULL;
    int e;
    if (counters || how == 2) {
        const SgemmFixup fx = {counters, q.D,      q.C, q.ldd, q.ldc, q.alpha, q.beta, ch.splits,
                               reduce_groups_per_warp(ch.splits), (int)out_vec(q), g_fence, how == 2};
        e = kLaunchFix[ch.config](w, sgemm_vec(w), slice, ch.splits, fx, stream);
    } else {
        e = launch_tile(w, sgemm_vec(w), ch.k_chunk, slice, ch.config, ch.splits, stream);
        if (e == cudaSuccess) e = launch_reduce(q, (const float *)ws, stride, ldw, ch.splits, sms, pdl, stream);
    }
    smk_rt_free_on(ws, stream); /* stream-ordered: after the kernels that use it, even on failure */
    return e;
}

/* dst (rows x dpitch floats, 16-byte aligned, dpitch % 4 == 0) <- src (rows x cols, pitch spitch, any
 * 4-byte alignment); columns cols..dpitch-1 become zeros.  One thread per 16-byte destination chunk:
 * four scalar loads (consecutive threads read consecutive chunks: whole sectors per warp) and one
 * STG.128.  Nothing outside the rows is read.  No shared memory. */
__global__ void __launch_bounds__(256) sgemm_pad_rows_kernel(const float *__restrict__ src, int64_t spitch,
                                                             float *__restrict__ dst, int64_t dpitch, int64_t rows,
                                                             int64_t cols)
{
    const int64_t cpr = dpitch / 4, total = rows * cpr;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = i / cpr, c0 = (i - r * cpr) * 4;
        const float *p = src + r * spitch + c0;
        float4 v;
        v.x = c0 + 0 < cols ? __ldg(p + 0) : 0.f;
        v.y = c0 + 1 < cols ? __ldg(p + 1) : 0.f;
        v.z = c0 + 2 < cols ? __ldg(p + 2) : 0.f;
        v.w = c0 + 3 < cols ? __ldg(p + 3) : 0.f;
        *reinterpret_cast<float4 *>(dst + r * dpitch + c0) = v;
    }
}

/* Operand i (0: A, M x K; 1: B, K x N) of q copied on `stream` into a stream-ordered temporary with rows
 * padded to 16 bytes, q pointed at it. */
static int pad_operand(smk_sgemm_params *q, int i, int sms, void **tmp, cudaStream_t stream)
{
    const int64_t rows = i ? q->K : q->M, cols = i ? q->N : q->K, ld = (cols + 3) & ~(int64_t)3;
    const smk_status s = smk_rt_alloc_on(tmp, (size_t)rows * (size_t)ld * sizeof(float), stream);
    if (s.code != SMK_OK) return s.cuda ? s.cuda : (int)cudaErrorMemoryAllocation;
    const int64_t chunks = rows * (ld / 4), cap = (int64_t)sms * 8, want = (chunks + 255) / 256;
    sgemm_pad_rows_kernel<<<(unsigned)(want < cap ? want : cap), 256, 0, stream>>>(i ? q->B : q->A, i ? q->ldb : q->lda,
                                                                                (float *)*tmp, ld, rows, cols);
    if (i) q->B = (const float *)*tmp, q->ldb = ld;
    else q->A = (const float *)*tmp, q->lda = ld;
    return (int)cudaGetLastError();
}

/* The padded path (choose.cu sgemm_pad_choice): A and / or B copied to 16-byte rows, then the choice
 * runs on them with float4 loads, through the split path's aligned workspace and reduction when D or C
 * is off 16 bytes (or the choice splits K); the temporaries are freed on `stream` behind the kernels. */
static int launch_padded(const smk_sgemm_params &q, const smk_sgemm_choice &ch, int mask, int sms, bool pdl,
                         bool sm90, cudaStream_t stream)
{
    smk_sgemm_params p = q;
    void *tmp[2] = {NULL, NULL};
    int e = (int)cudaSuccess;
    if (mask & SGEMM_PAD_A) e = pad_operand(&p, 0, sms, &tmp[0], stream);
    if (e == (int)cudaSuccess && (mask & SGEMM_PAD_B)) e = pad_operand(&p, 1, sms, &tmp[1], stream);
    if (e == (int)cudaSuccess) {
        if (mask & SGEMM_PAD_D) {
            e = launch_split(p, ch, sms, pdl, sm90, stream);
        } else {
            const SgemmSlice whole = {(int)p.K, 0};
            e = launch_tile(p, sgemm_vec(p), p.K, whole, ch.config, 1, stream);
        }
    }
    smk_rt_free_on(tmp[0], stream); /* stream-ordered, NULL is a no-op */
    smk_rt_free_on(tmp[1], stream);
    return e;
}

/* The alignment facts sgemm_pad_choice takes. */
static int pad_mask(const smk_sgemm_params &q, const smk_sgemm_choice &ch, int sms)
{
    const bool a = aligned16(q.A) && q.lda % 4 == 0, b = aligned16(q.B) && q.ldb % 4 == 0;
    const bool dc = aligned16(q.D) && q.ldd % 4 == 0 && (q.beta == 0.f || (aligned16(q.C) && q.ldc % 4 == 0));
    return sgemm_pad_choice(q.M, q.N, q.K, sms, ch, a, b, dc);
}

/* Enqueue choice ch of q: the padded path where pad_mask says, the split, or one launch. */
static int launch_choice(const smk_sgemm_params &q, bool vec, const smk_sgemm_choice &ch, int sms, int major,
                         cudaStream_t stream)
{
    const int pad = !vec && sgemm_new_paths() ? pad_mask(q, ch, sms) : 0;
    const bool pdl = major >= 9 && smk_rt_pdl(); /* off by default: runtime.h says why */
    if (pad) return launch_padded(q, ch, pad, sms, pdl, major >= 9, stream);
    if (ch.splits > 1) return launch_split(q, ch, sms, pdl, major >= 9, stream);
    const SgemmSlice whole = {(int)(q.K > 0 ? q.K : 1), 0};
    return launch_tile(q, vec, q.K, whole, ch.config, 1, stream);
}

/* The model's own choice of an automatic call: the matrix-vector route (M == 1 or N == 1; M <= 4 at knob 4), the
 * narrow-N rows route (opt-in), else the chooser's tile / skinny config and split. */
static int launch_auto(const smk_sgemm_params &q, bool vec, int sms, int major, cudaStream_t stream)
{
    const bool pdl = major >= 9 && smk_rt_pdl();
    if (g_gemv > 0) {
        const SgemvRoute r = sgemv_route(q.M, q.N, q.K, sms, g_gemv);
        if (r.kind != SGEMV_NONE) return sgemv_launch(q, r, sms, pdl, stream);
    }
    if (g_rows_n > 0) { /* 2 <= N <= 32, tall A: the narrow-N rows */
        const RowsNRoute r = rows_n_route(q.M, q.N, q.K, sms, q.layout, g_rows_n);
        if (r.use) return rows_n_launch(q, r, sms, pdl, stream);
    }
    smk_sgemm_choice ch;
    sgemm_resolve(q.M, q.N, q.K, sms, 0, 0, &ch, sgemm_new_paths());
    return launch_choice(q, vec, ch, sms, major, stream);
}

int sgemm_launch_candidate(const smk_sgemm_params &q, int config, int splits, int sms, int major, cudaStream_t stream)
{
    if (config <= -100) { /* the matrix-vector route with -config - 100 K slices */
        const SgemvRoute r = sgemv_route_splits(q.M, q.N, q.K, sms, g_gemv, -config - 100);
        if (r.kind != SGEMV_NONE) return sgemv_launch(q, r, sms, major >= 9 && smk_rt_pdl(), stream);
        config = 0;
    }
    if (config == 0) return launch_auto(q, sgemm_vec(q), sms, major, stream);
    if (config < 0) { /* the narrow-N rows route at level -config */
        const RowsNRoute r = rows_n_route(q.M, q.N, q.K, sms, q.layout, -config);
        if (r.use) return rows_n_launch(q, r, sms, major >= 9 && smk_rt_pdl(), stream);
        return launch_auto(q, sgemm_vec(q), sms, major, stream); /* the route does not take q in its layout */
    }
    smk_sgemm_choice ch;
    sgemm_resolve(q.M, q.N, q.K, sms, config, splits, &ch, sgemm_new_paths());
    return launch_choice(q, sgemm_vec(q), ch, sms, major, stream);
}

} /* namespace smk */

/* Enqueue D = alpha*A@B + beta*C on `stream` with the config and K split smk::sgemm_resolve gives, or (automatic
 * calls, knob sgemm_tune) the measured winner among the model's candidates (tune.cu). */
extern "C" int smk_sgemm_launch(const smk_sgemm_params *p, cudaStream_t stream)
{
    smk_sgemm_params q;
    bool vec = false;
    const int st = smk::sgemm_prepare(p, &q, &vec);
    if (st < 0 || q.config < 0 || q.config >= smk::kNumConfigs) return (int)cudaErrorInvalidValue;
    if (st > 0) return (int)cudaSuccess;
    /* The SM count sizes the choice, the compute capability says whether the split's reduction can be
     * a dependent launch; both cached per device (common/launch.h: a launch is on the per-call path). */
    int sms = 0, major = 0;
    const int e = smk::device_facts(&sms, &major);
    if (e != 0) return e;
    if (q.config == 0 && q.splits == 0 && q.K > 0 && smk_sgemm_tune_level() > 0) { /* the measured choice (tune.cu) */
        smk_sgemm_tune_cand t;
        const int r = smk::sgemm_tune(q, sms, major, stream, &t);
        if (r < 0) return -r;
        if (r == 0) return smk::sgemm_launch_candidate(q, t.config, t.splits, sms, major, stream);
    }
    if (q.config == 0 && q.splits == 0) return smk::launch_auto(q, vec, sms, major, stream);
    smk_sgemm_choice ch;
    smk::sgemm_resolve(q.M, q.N, q.K, sms, q.config, q.splits, &ch, smk::sgemm_new_paths());
    return smk::launch_choice(q, vec, ch, sms, major, stream);
}

extern "C" void smk_sgemm_set_epi(int level) { smk::g_epi = level <= 0 ? 0 : level >= 3 ? 3 : level; }

/* 1 where a tile launch of `config` over an M x N output, K deep per block, with output rows `rows` (2 all
 * on 128-byte lines, 1 on 16 bytes, 0 neither) takes the staged epilogue at knob level `knob` (pure). */
extern "C" int smk_sgemm_epi_gate(int64_t M, int64_t N, int64_t K, int rows, int config, int knob)
{
    return smk::sgemm_epi_gate(M, N, K, rows, config, knob);
}

extern "C" void smk_sgemm_set_new_paths(int level) { smk::g_new_paths = level <= 0 ? 0 : level >= 11 ? 11 : level; }

extern "C" void smk_sgemm_set_gemv(int level) { smk::g_gemv = level <= 0 ? 0 : level >= 7 ? 7 : level; }
extern "C" void smk_sgemm_set_rows_n(int level) { smk::g_rows_n = level <= 0 ? 0 : level >= 4 ? 4 : level; }
extern "C" void smk_sgemm_set_narrow(int level) { smk::g_narrow = level <= 0 ? 0 : 1; }
extern "C" void smk_sgemm_set_tinyk(int level) { smk::g_tinyk = level <= 0 ? 0 : 1; }
extern "C" int smk_sgemm_tinyk_level(void) { return smk::g_tinyk; }
extern "C" void smk_sgemm_set_deep(int level) { smk::g_deep = level <= 0 ? 0 : level >= 6 ? 6 : level; }
extern "C" int smk_sgemm_deep_gate(int64_t M, int64_t N, int64_t K, int splits, int config, int sms, int knob)
{
    return smk::sgemm_deep_gate(M, N, K, splits, config, sms, knob);
}

extern "C" void smk_sgemm_set_fixup(int level) { smk::g_fixup = level <= 0 ? 0 : level >= 3 ? 3 : level; }
extern "C" int smk_splitk_fixup(void) { return smk::g_fixup; }
extern "C" void smk_splitk_set_fence(int mode) { smk::g_fence = mode ? 1 : 0; }
extern "C" int smk_splitk_fence(void) { return smk::g_fence; }

/* 1 where a split launch of config over S slices of M x N would finish in the tile kernel at knob
 * level `knob` (the gate, pure: no device); 0 where the separate reduction runs. */
extern "C" int smk_sgemm_fixup_gate(int64_t M, int64_t N, int S, int config, int knob)
{
    return smk::fixup_gate(M, N, S, config, knob);
}
