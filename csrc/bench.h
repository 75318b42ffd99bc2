/*
 * bench.h -- THE timing loop of smemkit.  Every figure smemkit reports (smemkit.bench, python -m
 * smemkit, the bench/ scripts) comes from smk_bench_run: device-resident random data, CUDA events,
 * warm-up, an L2 flush before every timed launch, the layouts and their ceiling interleaved
 * A B C ceiling A B C ..., so clock drift hits all of them alike.  No Python here.
 */
#ifndef SMK_BENCH_H
#define SMK_BENCH_H

#include "event_loop.h"
#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SMK_OP_TRANSPOSE = 0, SMK_OP_SGEMM = 1, SMK_OP_GEMM16 = 2, SMK_NUM_OPS = 3 };
#define SMK_BENCH_MAX_LAYOUTS 8

typedef struct {
    int op;                /* SMK_OP_* */
    int64_t dims[3];       /* transpose: rows, cols, batch (0 = 1); sgemm, gemm16: M, N, K */
    int esz;               /* transpose: bytes per element; gemm16: 0 fp16, 1 bf16 (dtype) */
    int nlayouts;          /* 0 .. SMK_BENCH_MAX_LAYOUTS */
    int layouts[SMK_BENCH_MAX_LAYOUTS]; /* smk_layout of each timed kernel */
    int swz[SMK_BENCH_MAX_LAYOUTS][3];  /* gemm16: an explicit Swizzle<B,M,S> per layout (0,0,0: none) */
    int config;            /* transpose: tile variant; sgemm: tile config (0 = chosen per shape); gemm16: variant */
    int splits;            /* sgemm: K slices (0 = chosen per shape, smk_sgemm_params.splits) */
    int ceiling;           /* also time the ceiling (D2D copy / cuBLAS) */
    int warmup, reps;      /* untimed rounds; timed rounds (>= 1) */
    size_t flush_bytes;    /* bytes written before each timed launch to evict L2 (0: none) */
} smk_bench_spec;

typedef struct {
    int have_ceiling;      /* the ceiling was timed: its times follow the layouts' */
    const char *ceiling;   /* "copy" or "cublas", NULL when not timed */
    const char *why;       /* why the ceiling was not timed ("" when it was) */
    const char *path;      /* the ceiling's library when it is cuBLAS */
} smk_bench_info;

/* Bytes of device memory a run of `spec` allocates (inputs, output, flush buffer, and the tensor-core
 * GEMM launcher's padded copies of unaligned rows). */
size_t smk_bench_device_bytes(const smk_bench_spec *spec);

/* Validate spec: NULL when it is runnable, else a static message naming the bad field. */
const char *smk_bench_check(const smk_bench_spec *spec);

/* Time it.  times_ms[i * reps + r] is the r-th time of kernel i: the layouts in order, then the
 * ceiling when info->have_ceiling.  Needs (nlayouts + 1) * reps floats. */
smk_status smk_bench_run(const smk_bench_spec *spec, float *times_ms, smk_bench_info *info);

#ifdef __cplusplus
}
#endif

#endif /* SMK_BENCH_H */
