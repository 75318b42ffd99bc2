/*
 * sgemm/choose_pad.cu -- the SGEMM chooser's padded path (choose.h sgemm_pad_choice): whether a launch whose rows
 * are off 16 bytes copies them padded first (float4 rows for the tile kernel) or runs the scalar path, priced
 * against the model of choose.cu (choose_model.h).  Host code only, pure.
 */
#include <math.h>
#include <stdint.h>

#include "api/sgemm.h"
#include "sgemm/choose.h"
#include "sgemm/choose_model.h"
#include "sgemm/configs.h"
#include "sgemm/launch.h"

namespace smk {

/* The padded path's constants: copies at kPadBytesPerNs (read + write, DRAM), paid when under kPadShare
 * of the GEMM's modelled time (the tile kernel's scalar path issues 4 LDG.32 per float4 of A and B:
 * dense calls with K or N off 4 ran about 0.8 of the same shapes on padded rows, docs/RESULTS.md), and
 * temporaries of at most kPadMaxBytes. */
constexpr double kPadBytesPerNs = 2500.0, kPadShare = 0.1;
/* Each kernel the padded path adds (a copy per padded operand; the reduction when D goes through the
 * workspace unsplit), with its stream-ordered allocation, priced as a fixed launch cost: on the H100's
 * random draws of 2026-11-25 (docs/SGEMM_NOTES.md, "Shapes users bring") the padded path added 4-10 us to
 * calls of 7-20 us (2-3 added kernels), which byte pricing alone let through. */
constexpr double kPadLaunchNs = 3000.0;
constexpr double kPadMaxBytes = 1024.0 * 1024.0 * 1024.0;

/* Level 10 (opt-in): the padded path against the scalar path's price.  Seed 112 (H100, level 7): of the 34 draws
 * with K < 64 and M N >= 2^18 on one kernel, the 29 on the scalar path (any operand off 16 bytes: the kernel's VEC
 * is all or nothing) wrote D at a median 541 GB/s (geomean 0.85 of cuBLAS; 419x5652x30 0.54 with only A's rows
 * off 16 bytes), the 5 on float4 rows at 2093 GB/s (1.13).  Level 3's rule pads only where the copies cost under
 * kPadShare of the model's time, which has no D-write term and prices both paths alike, so a 12 KB copy of A
 * (one added kernel, priced 3 us) did not pay against a 20 us call.  Here:
 *   scalar:  max(model + (kScalarSlow - 1) x its kernel work, launch + D bytes / kScalarDBytesPerNs)
 *   padded:  max(model, launch + D bytes / kVecDBytesPerNs) + the copies' bytes + kPadKernelNs per added kernel
 * and the padded path is taken when cheaper (temporaries within kPadMaxBytes).  kScalarSlow: the 0.8 of
 * docs/RESULTS.md; kPadKernelNs: the 2-3 us of device time each added kernel took (docs/SGEMM_NOTES.md). */
constexpr double kScalarSlow = 1.25, kScalarDBytesPerNs = 540.0, kVecDBytesPerNs = 2000.0, kPadKernelNs = 2500.0;

static bool sgemm_pad_pays10(int64_t M, int64_t N, int64_t splits, double gemm_ns, double moved, int launches)
{
    const double d_bytes = 4.0 * (double)M * (double)N;
    /* the slower loads stretch the kernel's work, not the model's launch and split terms */
    const double core = fmax(0.0, gemm_ns - kLaunchNs - (splits > 1 ? kSplitNs : 0.0));
    const double scalar = fmax(gemm_ns + (kScalarSlow - 1.0) * core, kLaunchNs + d_bytes / kScalarDBytesPerNs);
    const double padded = fmax(gemm_ns, kLaunchNs + d_bytes / kVecDBytesPerNs) + moved / kPadBytesPerNs +
                          launches * kPadKernelNs;
    return padded < scalar;
}

int sgemm_pad_choice(int64_t M, int64_t N, int64_t K, int sms, const smk_sgemm_choice &ch, bool a_al, bool b_al,
                     bool dc_al, int level)
{
    level = level < 0 ? sgemm_new_paths() : level;
    if (ch.config <= 0 || ch.config >= kNumConfigs || kConfigs[ch.config].kind != SGEMM_TILE || K <= 0 || M <= 0 ||
        N <= 0 || (a_al && b_al && dc_al))
        return 0;
    const double r4k = (double)((K + 3) & ~(int64_t)3), r4n = (double)((N + 3) & ~(int64_t)3);
    int mask = (a_al ? 0 : SGEMM_PAD_A) | (b_al ? 0 : SGEMM_PAD_B) | (dc_al && ch.splits == 1 ? 0 : SGEMM_PAD_D);
    double temp = 0, moved = 0; /* temporaries' bytes; bytes the padded path adds */
    if (mask & SGEMM_PAD_A) temp += 4.0 * M * r4k, moved += 4.0 * M * K + 4.0 * M * r4k;
    if (mask & SGEMM_PAD_B) temp += 4.0 * K * r4n, moved += 4.0 * K * N + 4.0 * K * r4n;
    if ((mask & SGEMM_PAD_D) && ch.splits == 1) /* D' written and read back (a split pays it already) */
        temp += 4.0 * M * r4n, moved += 8.0 * M * r4n;
    const double gemm_ns = sgemm_model_ns(kConfigs[ch.config], M, N, K, sms, ch.splits, 3);
    const int launches = !!(mask & SGEMM_PAD_A) + !!(mask & SGEMM_PAD_B) + ((mask & SGEMM_PAD_D) && ch.splits == 1);
    if (temp > kPadMaxBytes) return 0;
    if (level == 10) return sgemm_pad_pays10(M, N, ch.splits, gemm_ns, moved, launches) ? mask : 0;
    if (moved / kPadBytesPerNs + launches * kPadLaunchNs > kPadShare * gemm_ns) return 0;
    return mask;
}

} /* namespace smk */
