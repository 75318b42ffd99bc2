/*
 * event_loop.h -- the event loop of smemkit's timing (event_loop.c): ops enqueued in interleaved rounds between
 * CUDA events, each optionally after an L2 flush.  bench.h's tables, smemkit.timeit and the transposes' measured
 * choice all time through it.  No Python here.
 */
#ifndef SMK_EVENT_LOOP_H
#define SMK_EVENT_LOOP_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Something to time: enqueue one run on `stream`, return a cudaError_t. */
typedef struct {
    int (*launch)(void *ctx, cudaStream_t stream);
    void *ctx;
} smk_timed_op;

/* The event loop itself: `warmup` untimed rounds, then `reps` rounds of op0 op1 ... interleaved, each
 * op optionally preceded by a write of `flush_bytes` that evicts L2. */
smk_status smk_time_ops(const smk_timed_op *ops, int nops, int warmup, int reps, size_t flush_bytes,
                        float *times_ms);
/* The same loop on a caller's stream (`*stream`; NULL: a fresh non-blocking stream of its own, as
 * smk_time_ops): smemkit.timeit times a user's callable on the stream its library enqueues on, so the
 * events bracket that work and nothing is timed any differently from bench's kernels.  The caller's
 * stream is synchronised at the end, never destroyed. */
smk_status smk_time_ops_on(const smk_timed_op *ops, int nops, int warmup, int reps, size_t flush_bytes,
                           const cudaStream_t *stream, float *times_ms);

#ifdef __cplusplus
}
#endif

#endif /* SMK_EVENT_LOOP_H */
