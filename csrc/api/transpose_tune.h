/*
 * api/transpose_tune.h -- the transposes' measured choice (csrc/transpose/tune.cu): on the first automatic call of a
 * shape whose path the knobs' defaults leave open (the sector store or not, the flat skinny kernel or not), those
 * paths are timed on the call's own buffers and stream, and the fastest is cached per device.  Its own header, so
 * the kernels that include api/transpose.h do not recompile for it.
 */
#ifndef SMK_API_TRANSPOSE_TUNE_H
#define SMK_API_TRANSPOSE_TUNE_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "api/transpose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Knob 'transpose_tune' (process-wide): 1 (the default) measured where smemkit.autotune() is on (the SGEMM's switch,
 * smk_sgemm_tune_level: level 1 not while a CUDA tool is injected, 2 always); 0 the knobs' own paths. */
void smk_transpose_set_tune(int level);
int smk_transpose_tune_level(void);

/* A launch of `variant` (as smk_transpose_launch_variant) under the knobs as they are, never tuned (launch.cu): sector /
 * flat -1 the process's knob, else that level of transpose_sector / transpose_flat.  smk_transpose_launch_variant
 * (tune.cu) calls it with the measured choice's levels. */
int smk_transpose_launch_knobs(const smk_transpose_params *p, int variant, int sector, int flat, cudaStream_t stream);
/* 1 when every transpose knob is at its default (only then is a call tuned). */
int smk_transpose_knobs_default(void);

/* One candidate: the levels of transpose_sector and transpose_flat it runs under. */
typedef struct {
    int sector, flat;
} smk_transpose_tune_cand;

/* The candidates a tuned call of *p times (the pointers' 32-byte residues count, not their targets), the knobs'
 * defaults first; returns their number (<= 1: the call is not tuned; at most `max`).  Pure. */
int smk_transpose_tune_candidates(const smk_transpose_params *p, smk_transpose_tune_cand *out, int max);

/* Where a tuned call of *p on `stream` should run: *sector / *flat the winner's levels (the defaults where nothing
 * is timed, the call is not tuned or a candidate failed to launch).  Times the candidates on the first call of a
 * shape (its output written by each); later calls read the cache.  Returns a cudaError_t (a sticky error only). */
int smk_transpose_tune(const smk_transpose_params *p, cudaStream_t stream, int *sector, int *flat);

/* One entry of the cache: the device, the shape (rows, cols, batch, element strides, element size), flags = the input's
 * 32-byte residue | the output's << 5, the winner and the median microseconds of the winner and the default (0 where
 * nothing was timed), the candidates timed. */
typedef struct {
    int device;
    int64_t rows, cols, batch, in_rs, in_cs, in_bs;
    int esz, flags;
    smk_transpose_tune_cand win;
    double best_us, model_us;
    int timed;
} smk_transpose_tune_entry;

int smk_transpose_tune_entries(smk_transpose_tune_entry *out, int max);
void smk_transpose_tune_clear(void);
/* Pin (sector, flat) as the current device's winner for *p's shape and residues, as if measured (tests; a
 * cudaError_t). */
int smk_transpose_tune_pin(const smk_transpose_params *p, int sector, int flat);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_TRANSPOSE_TUNE_H */
