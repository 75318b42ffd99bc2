/*
 * hostpool.h -- the host side's two shared resources: a pool of page-locked (pinned) staging units
 * that outlive a call, and a few worker threads that copy between the caller's pageable memory and
 * those units while the copy engines move the previous unit.  No Python here; nothing exits.
 *
 * A call takes a set of units (all or nothing, waiting while other calls hold the pool's cap),
 * streams its bytes through them, and gives them back; smemkit.empty_cache() frees the idle ones.
 */
#ifndef SMK_HOSTPOOL_H
#define SMK_HOSTPOOL_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMK_STAGE_UNIT_BYTES ((size_t)8 << 20) /* one pinned staging unit */
#define SMK_STAGE_SET_MAX 4                    /* units one call streams through */

typedef struct {
    void *unit[SMK_STAGE_SET_MAX];
    int n; /* units held (0: none; the caller takes another path) */
    /* Unit u may still be read or written by a DMA until ev[u] (pending[u]): the host waits for it
     * before touching the unit, across copies of one call too.  Events are made on first use. */
    cudaEvent_t ev[SMK_STAGE_SET_MAX];
    unsigned char pending[SMK_STAGE_SET_MAX];
    int n_ev;
    int next; /* the unit the next piece goes through (round robin over the call's copies) */
} smk_stage_set;

/* Take up to `want` units (1..SMK_STAGE_SET_MAX).  Waits while the pool is at its cap and other calls
 * hold units; allocates new units (cudaHostAlloc) below the cap.  Returns the number taken: 0 when
 * staging is off (cap 0) or pinned memory cannot be had -- never an error, the caller falls back. */
int smk_stage_acquire(smk_stage_set *set, int want);
/* Wait for the DMAs still using the units, then give them back.  Safe on any set (n == 0 too). */
void smk_stage_release(smk_stage_set *set);
/* Free the idle units (smemkit.empty_cache); units in use are kept until they come back. */
void smk_stage_trim(void);
/* Pool cap in bytes (rounded down to whole units, at least 0); default SMK_STAGE_CAP_DEFAULT. */
#define SMK_STAGE_CAP_DEFAULT ((size_t)128 << 20)
void smk_stage_set_cap(size_t bytes);
/* Bytes held (idle + in use), bytes in use, cap, the most bytes ever held at once. */
void smk_stage_info(size_t *held, size_t *in_use, size_t *cap, size_t *peak);

/* Run fn(ctx, i) for i in [0, n) on the worker threads and the caller; returns when all are done.
 * Many callers may share the workers at once (each also works on its own tasks, so none starves). */
void smk_par_for(size_t n, void (*fn)(void *ctx, size_t i), void *ctx);
int smk_par_threads(void); /* worker threads + the caller */

/* Host -> device through the set: `rows` rows of `width` bytes from src (rows `spitch` apart,
 * pageable) to dst (device, rows `dpitch` apart), on `stream`.  The host copies of one unit overlap
 * the DMA of the previous ones.  Returns once src has been read (the last DMAs may still be running:
 * later work on `stream` is ordered after them, and the set's events guard the units).  Every copy
 * through one set must use the same stream. */
smk_status smk_stage_h2d(smk_stage_set *set, void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t rows, cudaStream_t stream);
/* Device -> host likewise; returns when dst holds every byte. */
smk_status smk_stage_d2h(smk_stage_set *set, void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t rows, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SMK_HOSTPOOL_H */
