/*
 * api/sgemm.h -- the float32 SGEMM's C API (sgemm.cu): params struct, launcher (a cudaError_t), the
 * pure launch chooser, the tile-config table and the access plan.
 */
#ifndef SMK_API_SGEMM_H
#define SMK_API_SGEMM_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "api/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* D = alpha * A @ B + beta * C, all float32, row-major with leading dimensions in elements.
 * A: M x K (lda >= K), B: K x N (ldb >= N), C: M x N (ldc >= N, may be NULL when beta == 0),
 * D: M x N (ldd >= N).  C may alias D.  Any M, N, K >= 0. */
typedef struct {
    const float *A, *B, *C;
    float *D;
    int64_t M, N, K;
    int64_t lda, ldb, ldc, ldd;
    float alpha, beta;
    int layout; /* smk_layout */
    int config; /* tile config: 0 = chosen per shape and SM count, else smk_sgemm_config_name(config) */
    int splits; /* K slices (split-K): 0 = chosen per shape and SM count (smk_sgemm_choose's rule for
                 * the tile config in use), else forced; clamped to [1, ceil(K / BK)], and rounded so
                 * that every slice is a whole number of BK-deep k-tiles (the slices actually run are
                 * smk_sgemm_plan's "splits") */
} smk_sgemm_params;

/* Enqueue D = alpha*A@B + beta*C on `stream`.  With more than one K slice each block computes a
 * partial tile over its slice into an fp32 workspace allocated stream-ordered on `stream`
 * (smk_rt_alloc_on), a reduction kernel sums the slices and applies alpha and beta, and the
 * workspace is freed on `stream`: nothing synchronises.  Returns a cudaError_t (cudaErrorMemoryAllocation
 * when the workspace cannot be had). */
int smk_sgemm_launch(const smk_sgemm_params *p, cudaStream_t stream);

/* What smk_sgemm_launch runs for an M x N x K problem on a device with `sms` SMs when neither the
 * config nor the split is forced.  Pure: no CUDA call, no state; the same answer on any machine. */
typedef struct {
    int config;      /* index of the tile config (smk_sgemm_config_name), never 0 */
    int splits;      /* K slices, >= 1 and <= max(1, ceil(K / BK)) */
    int64_t k_chunk; /* depth of each slice but the last: a multiple of BK (K when splits == 1) */
} smk_sgemm_choice;
/* The launch's automatic choice at the current path level (smk_sgemm_set_new_paths).  0 on success, -1 for
 * bad arguments (negative sizes, sms < 1, NULL choice). */
int smk_sgemm_choose(int64_t M, int64_t N, int64_t K, int sms, smk_sgemm_choice *choice);
/* Tests and benchmarks (knob 'sgemm_new_paths'), a level: 4 (opt-in) adds two unmeasured chooser rules
 * (launch.h); 3, the default, runs all of issue 27's measured paths;
 * 2 those without the 2026-11-26 chooser rules (short tile for M <= 32, skinny-n split under a wave, tiny-K
 * row by fill) but with the matrix-vector rows skinny-m16 / -m32 and one M tile per skinny-m launch;
 * 1 those of the session before the matrix-vector rows (the skinny kernels' re-aligned streams on rows
 * off 16 bytes, the tiny-K kernel in the automatic choice, the padded tile path); 0 the paths before
 * issue 27, for an A/B on the same build.  Process-wide. */
void smk_sgemm_set_new_paths(int level);
/* The padded path the launch takes for the automatic choice of M x N x K on `sms` SMs when A / B / D
 * and C (when read) are (1) or are not (0) on 16 bytes with ld % 4 == 0: *mask = 1 (A copied to 16-byte
 * rows) | 2 (B) | 4 (D through the aligned workspace and the reduction), 0 none.  Pure; 0 on success,
 * -1 for bad arguments. */
int smk_sgemm_pad_choice(int64_t M, int64_t N, int64_t K, int sms, int a_aligned, int b_aligned, int dc_aligned,
                         int *mask);
/* The tile configs compiled in: index 0 is "auto"; the others can be forced (benchmarks, tests). */
int smk_sgemm_num_configs(void);
const char *smk_sgemm_config_name(int config);

/* The SGEMM's access plan (see api/plan.h): 0 on success, -1 for bad arguments.  It picks its
 * configuration (tile config and K split, as smk_sgemm_params' config and splits) as smk_sgemm_launch
 * does on a device with `sms` multiprocessors; its blocks are those of every K slice, each access's
 * repeats the k-tiles of all of them, and the config string ends in ", splits S". */
int smk_sgemm_plan(int64_t M, int64_t N, int64_t K, int layout, int sms, int config, int splits, smk_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_SGEMM_H */
