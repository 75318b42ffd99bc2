/*
 * counters.c -- the arrival counters of split-K's fused fixups (counters.h says what they are for).
 *
 * A small table per host thread (thread-local, so no lock) of (device, stream) -> buffer.  The buffer
 * is zeroed by a cudaMemsetAsync on its own stream, so the first kernel that counts on it (enqueued
 * after this returns) sees zeros whatever the stream's flags (a non-blocking stream would not wait for
 * a memset on the legacy stream).  Buffers are never freed: 16 KB per (thread, device, stream) that ever
 * ran a fused split.  A stream destroyed and its handle reused by a new stream keeps the buffer, which
 * its old kernels left zero.
 */
#include "counters.h"

#include <stddef.h>

#define SMK_COUNTER_SLOTS 32

typedef struct {
    int dev;
    cudaStream_t stream;
    unsigned *buf;
} counter_slot;

static _Thread_local counter_slot g_slots[SMK_COUNTER_SLOTS];
static _Thread_local int g_used;

unsigned *smk_rt_counters(cudaStream_t stream)
{
    int dev = 0, i;
    enum cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    void *p = NULL;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    for (i = 0; i < g_used; ++i)
        if (g_slots[i].dev == dev && g_slots[i].stream == stream)
            return g_slots[i].buf;
    if (g_used == SMK_COUNTER_SLOTS)
        return NULL;
    if (cudaStreamIsCapturing(stream, &cap) != cudaSuccess || cap != cudaStreamCaptureStatusNone) {
        (void)cudaGetLastError();
        return NULL;
    }
    if (cudaMalloc(&p, SMK_RT_COUNTERS * sizeof(unsigned)) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    if (cudaMemsetAsync(p, 0, SMK_RT_COUNTERS * sizeof(unsigned), stream) != cudaSuccess) {
        (void)cudaGetLastError();
        (void)cudaFree(p);
        return NULL;
    }
    g_slots[g_used].dev = dev;
    g_slots[g_used].stream = stream;
    g_slots[g_used].buf = (unsigned *)p;
    ++g_used;
    return (unsigned *)p;
}
