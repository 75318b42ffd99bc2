/*
 * event_loop.c -- the event loop every smemkit time comes from (event_loop.h): smk_bench_run's tables
 * (bench.c), smemkit.timeit (module_timer.c) and the transposes' measured choice (transpose/tune.cu).
 */
#include "event_loop.h"

#include <stdlib.h>

static smk_status ok(void)
{
    smk_status s = {SMK_OK, 0, 0, NULL};
    return s;
}

/* ---- the event loop ------------------------------------------------------------------------------ */

static smk_status record_rounds(const smk_timed_op *ops, int nops, int warmup, int reps, void *flush,
                                size_t flush_bytes, cudaEvent_t *ev, cudaStream_t st)
{
    cudaError_t e = cudaSuccess;
    int i, r;
    for (r = 0; r < warmup; r++)
        for (i = 0; i < nops; i++)
            if ((e = (cudaError_t)ops[i].launch(ops[i].ctx, st)) != cudaSuccess)
                return smk_rt_fail(e, "timing a kernel");
    /* interleaved A B C A B C ..., each preceded by an L2 flush when asked: drift hits all alike */
    for (r = 0; r < reps; r++)
        for (i = 0; i < nops; i++) {
            cudaEvent_t *pair = &ev[2 * (r * nops + i)];
            if ((flush && (e = cudaMemsetAsync(flush, r & 0xff, flush_bytes, st)) != cudaSuccess) ||
                (e = cudaEventRecord(pair[0], st)) != cudaSuccess ||
                (e = (cudaError_t)ops[i].launch(ops[i].ctx, st)) != cudaSuccess ||
                (e = cudaEventRecord(pair[1], st)) != cudaSuccess)
                return smk_rt_fail(e, "timing a kernel");
        }
    return ok();
}

smk_status smk_time_ops(const smk_timed_op *ops, int nops, int warmup, int reps, size_t flush_bytes,
                        float *times_ms)
{
    return smk_time_ops_on(ops, nops, warmup, reps, flush_bytes, NULL, times_ms);
}

smk_status smk_time_ops_on(const smk_timed_op *ops, int nops, int warmup, int reps, size_t flush_bytes,
                           const cudaStream_t *stream, float *times_ms)
{
    smk_status s = ok();
    cudaEvent_t *ev = NULL;
    void *flush = NULL;
    cudaStream_t st = NULL; /* an explicit stream: cuBLAS (its own runtime) sees the same one */
    cudaError_t e = cudaSuccess;
    int i, r, created = 0;

    if (nops <= 0 || reps <= 0 || warmup < 0)
        return smk_rt_fail(cudaErrorInvalidValue, "timing arguments");
    if (flush_bytes && (s = smk_rt_alloc(&flush, flush_bytes)).code != SMK_OK)
        return s;
    /* everything before (allocation, filling) is ordered on the per-thread stream: finish it */
    if (stream)
        st = *stream;
    if ((e = cudaStreamSynchronize(cudaStreamPerThread)) != cudaSuccess ||
        (!stream && (e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)) != cudaSuccess)) {
        smk_rt_free(flush);
        return smk_rt_fail(e, "creating the timing stream");
    }
    /* two events per timed launch, all recorded before one final synchronisation */
    ev = (cudaEvent_t *)calloc((size_t)2 * nops * reps, sizeof(cudaEvent_t));
    if (!ev) {
        s.code = SMK_E_NOMEM;
        s.where = "host memory for events";
    }
    for (created = 0; s.code == SMK_OK && created < 2 * nops * reps; created++)
        if ((e = cudaEventCreate(&ev[created])) != cudaSuccess)
            s = smk_rt_fail(e, "creating events");
    if (s.code == SMK_OK)
        s = record_rounds(ops, nops, warmup, reps, flush, flush_bytes, ev, st);
    if (s.code == SMK_OK && (e = cudaStreamSynchronize(st)) != cudaSuccess)
        s = smk_rt_fail(e, "timing a kernel");
    for (r = 0; r < reps && s.code == SMK_OK; r++)
        for (i = 0; i < nops && s.code == SMK_OK; i++) {
            cudaEvent_t *pair = &ev[2 * (r * nops + i)];
            if ((e = cudaEventElapsedTime(&times_ms[i * reps + r], pair[0], pair[1])) != cudaSuccess)
                s = smk_rt_fail(e, "reading event times");
        }
    if (s.code != SMK_OK && !smk_rt_is_sticky(s.cuda))
        (void)cudaStreamSynchronize(st); /* nothing of ours may still run when the buffers are freed */
    for (i = 0; i < created; i++)
        (void)cudaEventDestroy(ev[i]);
    free(ev);
    if (!stream)
        (void)cudaStreamDestroy(st);
    smk_rt_free(flush);
    return s;
}
