/*
 * transpose/tune.cu -- knob transpose_tune: the transposes' measured choice (issue 26: configs.h's size gates were
 * fitted on an H100 and do not hold on an H200, docs/TRANSPOSE_NOTES.md "Session 49": the uint8 sector store the gate
 * takes lost on 10 of 11 shapes there, x0.59-0.92, where it had won x1.1-1.56).  A gate fitted on one chip cannot fit
 * both, so the first call of a shape whose path the defaults leave open times those paths on its own buffers, as the
 * SGEMM does (sgemm/tune.cu), and keeps the fastest for every later call of that shape on that device.
 *
 * Candidates (pure, tune_candidates): the defaults' path first; the tiled kernel without the sector store where the
 * default takes it (transpose_sector 0), or with it (level 2: every pitch, batches too) for 1- and 4-byte elements at
 * an odd output pitch the gate leaves out (2-byte elements spill in it); the tiled / skinny kernel in place of the
 * flat skinny kernel where the default takes it (transpose_flat 0), or the flat kernel's level 2 (both cases, short
 * sides to 128) where only that level takes the shape.  Calls under kTuneMinBytes, the copy route and shapes with one
 * path are not tuned.
 *
 * Timing: smemkit's event loop (event_loop.c smk_time_ops_on, the one smemkit.bench times with) on the call's stream -- each
 * candidate once untimed, then kTuneReps rounds interleaved, L2 flushed (a write of twice its size) before every timed
 * call, as the acceptance's benchmark times -- in both conflict-free layouts, "pad" and "swizzle"; a candidate's
 * time is the median of its faster one (the acceptance takes the best layout of a draw; the float32 kernels here are
 * issue bound and swizzle's XOR costs the tiled kernel more than the flat one: 1159545x77 float32 on an H200, tiled
 * pad ~241 us / swizzle 293, flat 262 / 244).  Every layout of a shape runs the winner, so a layout A/B still
 * compares one kernel.  Another path must beat the default's by kTuneMargin.  The flush buffer is allocated for the timing and freed after; where it cannot be, the call runs the
 * default untimed (and times on a later call).  Not while a stream captures a graph, nor (smemkit.autotune level 1)
 * while a CUDA tool is injected (its launches stay the defaults', which explain() predicts), nor when any transpose
 * knob is off its default (launch.cu: tests and A/Bs run the knobs' own paths).
 *
 * The launch API's entry, smk_transpose_launch_variant / smk_transpose_launch (api/transpose.h), is here: variant 0
 * asks the cache (or times) and launches through launch.cu's smk_transpose_launch_knobs with the winner's levels.
 *
 * Cost: the first call of a tuned shape runs about (1 + kTuneReps) x candidates calls and as many L2 flushes, and
 * synchronises the stream.  Results never depend on the path (every path is bit-exact).
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "api/sgemm_tune.h"
#include "api/transpose.h"
#include "api/transpose_tune.h"
#include "event_loop.h"
#include "layout.h"
#include "runtime.h"
#include "transpose/configs.h"

namespace {

constexpr int kTuneMax = 4;
constexpr int kTuneReps = 7;
constexpr double kTuneMargin = 1.03;
constexpr double kTuneMinBytes = 1 << 20; /* one matrix (or batch) of less moves in a few microseconds */
constexpr size_t kTuneSlots = 4096;       /* emptied whole when full */

std::atomic<int> g_level{1};

/* ---- candidates (pure) ------------------------------------------------------------------------------ */

int tune_candidates(const smk_transpose_params *p, int sector0, int flat0, int skinny, int copy, int gather,
                    smk_transpose_tune_cand *out, int max)
{
    const int wi = p ? width_index(p->esz) : -1;
    if (wi < 0 || max < 1 || p->rows <= 0 || p->cols <= 0 || p->batch < 0)
        return 0;
    const int64_t batch = p->batch == 0 ? 1 : p->batch, esz = p->esz;
    if ((double)batch * (double)p->rows * (double)p->cols * (double)esz < kTuneMinBytes ||
        copy_fits(p->rows, p->cols, p->in_rs, p->in_cs, p->esz, copy))
        return 0;
    const uint64_t in = (uintptr_t)p->in, o = (uintptr_t)p->out;
    const Config *v = choose(0, wi, p->rows, p->cols, p->in_rs, p->in_cs, skinny, flat0);
    const int row = (int)(v - kConfigs);
    if (v->kind == kTiled && row == kWidths[wi].shipped &&
        gather_fits(p->esz, p->rows, p->cols, p->in_rs, p->in_cs, in % esz == 0 && o % esz == 0, gather))
        return 0; /* the gather kernel (launch_config's first branch): its sector levels run the same kernel */
    int n = 0;
    out[n++] = {sector0, flat0};
    if (v->kind == kTiled && n < max) {
        if (sector_fits(wi, row, p->rows, p->cols, batch, o, sector0))
            out[n++] = {0, flat0};
        else if ((esz == 1 || esz == 4) && sector_fits(wi, row, p->rows, p->cols, batch, o, 2))
            out[n++] = {2, flat0};
    }
    if ((esz == 4 || esz == 8) && in % esz == 0 && o % esz == 0 && n < max) {
        if (v->kind == kSkinny && skinny_flat_fits(p->rows, p->cols, p->in_rs, p->in_cs, p->esz, flat0))
            out[n++] = {sector0, 0};
        else if (flat0 != 2 && skinny_flat_fits(p->rows, p->cols, p->in_rs, p->in_cs, p->esz, 2))
            out[n++] = {sector0, 2};
    }
    return n;
}

int candidates_now(const smk_transpose_params *p, smk_transpose_tune_cand *out, int max)
{
    return tune_candidates(p, smk_transpose_sector_mode(), smk_transpose_flat_mode(), smk_transpose_skinny_mode(),
                           smk_transpose_copy_mode(), smk_transpose_gather_mode(), out, max);
}

/* ---- the cache -------------------------------------------------------------------------------------- */

struct Key {
    int device, esz, flags;
    int64_t rows, cols, batch, in_rs, in_cs, in_bs;
    bool operator==(const Key &k) const
    {
        return device == k.device && esz == k.esz && flags == k.flags && rows == k.rows && cols == k.cols &&
               batch == k.batch && in_rs == k.in_rs && in_cs == k.in_cs && in_bs == k.in_bs;
    }
};

struct KeyHash {
    size_t operator()(const Key &k) const
    {
        uint64_t h = 1469598103934665603ull;
        const int64_t v[9] = {k.device, k.esz, k.flags, k.rows, k.cols, k.batch, k.in_rs, k.in_cs, k.in_bs};
        for (int64_t x : v)
            h = (h ^ (uint64_t)x) * 1099511628211ull;
        return (size_t)h;
    }
};

std::unordered_map<Key, smk_transpose_tune_entry, KeyHash> g_cache;
std::mutex g_mu;
std::mutex g_timing; /* one shape timed at a time */

Key key_of(const smk_transpose_params *p, int device)
{
    const int64_t batch = p->batch == 0 ? 1 : p->batch;
    return Key{device, p->esz, (int)((uintptr_t)p->in & 31) | (int)(((uintptr_t)p->out & 31) << 5), p->rows, p->cols,
               batch, p->in_rs, p->in_cs, batch > 1 ? p->in_bs : 0};
}

bool cache_find(const Key &k, smk_transpose_tune_entry *e)
{
    std::lock_guard<std::mutex> lock(g_mu);
    const auto it = g_cache.find(k);
    if (it == g_cache.end())
        return false;
    *e = it->second;
    return true;
}

void cache_store(const Key &k, const smk_transpose_tune_entry &e)
{
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_cache.size() >= kTuneSlots)
        g_cache.clear();
    g_cache[k] = e;
}

smk_transpose_tune_entry entry_of(const Key &k, smk_transpose_tune_cand win, double best, double model, int timed)
{
    smk_transpose_tune_entry e;
    memset(&e, 0, sizeof e);
    e.device = k.device, e.rows = k.rows, e.cols = k.cols, e.batch = k.batch;
    e.in_rs = k.in_rs, e.in_cs = k.in_cs, e.in_bs = k.in_bs, e.esz = k.esz, e.flags = k.flags;
    e.win = win, e.best_us = best, e.model_us = model, e.timed = timed;
    return e;
}

/* ---- timing ----------------------------------------------------------------------------------------- */

struct Trial {
    smk_transpose_params p;
    smk_transpose_tune_cand c;
};

int trial_launch(void *ctx, cudaStream_t stream)
{
    const Trial *t = static_cast<const Trial *>(ctx);
    return smk_transpose_launch_knobs(&t->p, 0, t->c.sector, t->c.flat, stream);
}

/* Time c[0..n) on *p, each in the two conflict-free layouts (pad, swizzle); *best the winner's index, us[] each
 * candidate's faster layout's median.  An smk_status (SMK_E_NOMEM: the flush did not fit, nothing ran). */
smk_status time_candidates(const smk_transpose_params *p, const smk_transpose_tune_cand *c, int n,
                           cudaStream_t stream, int *best, double *us)
{
    constexpr int kLayouts[2] = {SMK_PAD, SMK_SWIZZLE};
    Trial trial[2 * kTuneMax];
    smk_timed_op ops[2 * kTuneMax];
    float ms[2 * kTuneMax * kTuneReps];
    int sms = 0, l2 = 0, major = 0, minor = 0;
    smk_status s = smk_rt_device_info(&sms, &l2, &major, &minor);
    if (s.code != SMK_OK)
        return s;
    for (int i = 0; i < 2 * n; i++) {
        trial[i] = {*p, c[i / 2]};
        trial[i].p.layout = kLayouts[i % 2];
        ops[i] = {trial_launch, &trial[i]};
    }
    s = smk_time_ops_on(ops, 2 * n, 1, kTuneReps, 2 * (size_t)(l2 > 0 ? l2 : 0), &stream, ms);
    if (s.code != SMK_OK)
        return s;
    *best = 0;
    for (int i = 0; i < n; i++) {
        double m[2];
        for (int k = 0; k < 2; k++) {
            float *t = ms + (2 * i + k) * kTuneReps;
            std::sort(t, t + kTuneReps);
            m[k] = 1000.0 * t[kTuneReps / 2];
        }
        us[i] = std::min(m[0], m[1]);
        if (us[i] < us[*best])
            *best = i;
    }
    if (us[0] <= kTuneMargin * us[*best])
        *best = 0;
    return s;
}

/* Whether this call may be timed (the switches on): no tool (level 1), no graph capture.  1 yes, 0 no, < 0
 * -cudaError. */
int may_time(cudaStream_t stream)
{
    if (smk_sgemm_tune_level() == 1 && smk_cuda_tool_attached())
        return 0;
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    const cudaError_t e = cudaStreamIsCapturing(stream, &cap);
    if (e != cudaSuccess)
        return -(int)e;
    return cap == cudaStreamCaptureStatusNone ? 1 : 0;
}

} // namespace

extern "C" void smk_transpose_set_tune(int level) { g_level.store(level <= 0 ? 0 : 1); }

extern "C" int smk_transpose_tune_level(void) { return g_level.load(); }

extern "C" int smk_transpose_tune_candidates(const smk_transpose_params *p, smk_transpose_tune_cand *out, int max)
{
    return out ? candidates_now(p, out, max) : 0;
}

extern "C" int smk_transpose_tune(const smk_transpose_params *p, cudaStream_t stream, int *sector, int *flat)
{
    smk_transpose_tune_cand c[kTuneMax];
    const int n = candidates_now(p, c, kTuneMax);
    if (n <= 1)
        return 0;
    int device = 0;
    cudaError_t ce = cudaGetDevice(&device);
    if (ce != cudaSuccess)
        return (int)ce;
    if (smk_sgemm_tune_level() <= 0 || g_level.load() <= 0) /* switched off: the defaults (the cache is kept) */
        return 0;
    const Key key = key_of(p, device);
    smk_transpose_tune_entry hit;
    if (cache_find(key, &hit)) {
        *sector = hit.win.sector, *flat = hit.win.flat;
        return 0;
    }
    const int ok = may_time(stream);
    if (ok <= 0)
        return -ok;
    double us[kTuneMax] = {0};
    int best = 0;
    smk_status s;
    {
        std::lock_guard<std::mutex> lock(g_timing);
        s = time_candidates(p, c, n, stream, &best, us);
    }
    if (s.code != SMK_OK) { /* a sticky error ends the call; else the default runs, timed again later if the */
        if (s.cuda != 0 && smk_rt_is_sticky(s.cuda)) /* flush did not fit, never if a candidate failed */
            return (int)s.cuda;
        if (s.code != SMK_E_NOMEM)
            cache_store(key, entry_of(key, c[0], 0.0, 0.0, 0));
        return 0;
    }
    cache_store(key, entry_of(key, c[best], us[best], us[0], n));
    if (smk_rt_poisoning()) { /* tests: the winner's launch must write every output again */
        const double bytes = (double)key.batch * (double)p->rows * (double)p->cols * (double)p->esz;
        s = smk_rt_poison_on(p->out, (size_t)bytes, stream);
        if (s.code != SMK_OK)
            return s.cuda ? (int)s.cuda : (int)cudaErrorUnknown;
    }
    *sector = c[best].sector, *flat = c[best].flat;
    return 0;
}

extern "C" int smk_transpose_tune_entries(smk_transpose_tune_entry *out, int max)
{
    std::lock_guard<std::mutex> lock(g_mu);
    int n = 0;
    for (const auto &kv : g_cache) {
        if (out && n < max)
            out[n] = kv.second;
        n++;
    }
    return n;
}

extern "C" void smk_transpose_tune_clear(void)
{
    std::lock_guard<std::mutex> lock(g_mu);
    g_cache.clear();
}

extern "C" int smk_transpose_tune_pin(const smk_transpose_params *p, int sector, int flat)
{
    int device = 0;
    const cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess)
        return (int)e;
    if (!p)
        return (int)cudaErrorInvalidValue;
    const Key key = key_of(p, device);
    cache_store(key, entry_of(key, smk_transpose_tune_cand{sector, flat}, 0.0, 0.0, 0));
    return 0;
}

/* The launch API's entry (api/transpose.h): variant 0 with every knob at its default takes the measured choice. */
extern "C" int smk_transpose_launch_variant(const smk_transpose_params *p, int variant, cudaStream_t stream)
{
    int sector = -1, flat = -1;
    if (variant == 0 && p && smk_transpose_knobs_default()) {
        const int e = smk_transpose_tune(p, stream, &sector, &flat);
        if (e != 0)
            return e;
    }
    return smk_transpose_launch_knobs(p, variant, sector, flat, stream);
}

extern "C" int smk_transpose_launch(const smk_transpose_params *p, cudaStream_t stream)
{
    return smk_transpose_launch_variant(p, 0, stream);
}
