/* See cuda_stub.h. */
#include "cuda_stub.h"
#include <stdlib.h>
#include <string.h>

typedef struct { void *d; size_t dp; const void *s; size_t sp, w, h; } copy_op;
#define QCAP 4096
static __thread copy_op q[QCAP];
static __thread long queued, done; /* copies queued / run on this thread's stream */

static void run_to(long pos)
{
    for (; done < pos; done++) {
        const copy_op *o = &q[done % QCAP];
        for (size_t r = 0; r < o->h; r++)
            memcpy((char *)o->d + r * o->dp, (const char *)o->s + r * o->sp, o->w);
    }
}

cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags) { (void)flags; *p = malloc(n); return *p ? cudaSuccess : cudaErrorMemoryAllocation; }
cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) { (void)flags; *e = calloc(1, sizeof **e); return *e ? cudaSuccess : cudaErrorMemoryAllocation; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { (void)s; e->pos = queued; return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t e) { run_to(e->pos); return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t s) { (void)s; run_to(queued); return cudaSuccess; }

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows,
                              enum cudaMemcpyKind kind, cudaStream_t s)
{
    (void)kind, (void)s;
    if (queued - done >= QCAP)
        run_to(queued - QCAP + 1);
    q[queued % QCAP] = (copy_op){dst, dpitch, src, spitch, width, rows};
    queued++;
    return cudaSuccess;
}
