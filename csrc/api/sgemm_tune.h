/*
 * api/sgemm_tune.h -- the SGEMM's measured choice (csrc/sgemm/tune.cu): on the first automatic call of a shape the
 * model's candidates are timed on the call's own operands and stream, and the fastest is cached per device.
 * Its own header, so the kernels that include api/sgemm.h do not recompile for it.
 */
#ifndef SMK_API_SGEMM_TUNE_H
#define SMK_API_SGEMM_TUNE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Knob 'sgemm_tune' (process-wide): 0 off (the model's choice, as before); 1 (the default, unless the environment
 * sets SMEMKIT_AUTOTUNE=0 before the first SGEMM) measured, but not while a CUDA tool is injected into the process
 * (an injection library in the process's maps, or CUDA_INJECTION64_PATH: Nsight Compute and compute-sanitizer
 * measured, Nsight Systems by its library's name), whose launches stay the model's
 * (what explain() predicts); 2 measured always. */
void smk_sgemm_set_tune(int level);
int smk_sgemm_tune_level(void);
/* 1 when a CUDA tool is injected into the process (the test level 1 of the switch makes; asked once). */
int smk_cuda_tool_attached(void);

/* One candidate of a shape: config >= 1 a forced tile config (smk_sgemm_config_name) and `splits` K slices (as
 * smk_sgemm_params' config and splits); config 0 the model's own choice; -99..-1 the narrow-N rows route
 * (csrc/sgemm/rows_n.h) at knob level -config; <= -100 the matrix-vector route (csrc/sgemm/gemv.h) with -config - 100
 * K slices; price: the model's time in ns (0 where none). */
typedef struct {
    int config;
    int splits;
    double price;
} smk_sgemm_tune_cand;

/* The candidates a tuned call of M x N x K on `sms` SMs (layout: rows_n's) times, the model's choice first;
 * returns their number (0: the shape is not tuned, e.g. the tiny-K route; at most `max`).  Pure. */
int smk_sgemm_tune_candidates(int64_t M, int64_t N, int64_t K, int sms, int layout, smk_sgemm_tune_cand *out,
                              int max);

/* One entry of the cache: the device and shape, the alignment flags of the key (1 A, 2 B, 4 D and C on 16-byte
 * rows, 8 beta != 0), the winner (config 0: the model's choice) and the measured microseconds of the winner and of
 * the model's choice, the candidates timed. */
typedef struct {
    int device;
    int64_t M, N, K;
    int flags;
    int config, splits;
    double best_us, model_us;
    int timed;
} smk_sgemm_tune_entry;

/* Copies up to `max` entries into out; returns how many the cache holds. */
int smk_sgemm_tune_entries(smk_sgemm_tune_entry *out, int max);
void smk_sgemm_tune_clear(void);
/* Pin candidate (config, splits) as the current device's winner for M x N x K with alignment flags `flags` (-1: every
 * flag combination), as if it had been measured (tests; a cudaError_t). */
int smk_sgemm_tune_pin(int64_t M, int64_t N, int64_t K, int flags, int config, int splits);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_SGEMM_TUNE_H */
