/* The CUDA runtime calls of csrc/hostpool.c, emulated on the CPU (cuda_stub.c).  Each thread has one
 * in-order "stream": an async copy is only queued, and runs when an event recorded after it, or the
 * stream, is synchronised -- so a host write into a staging unit that races a queued DMA reads or
 * writes the wrong bytes and the test sees it. */
#pragma once
#include <stddef.h>
typedef int cudaError_t;
typedef void *cudaStream_t;
typedef struct smk_stub_event { long pos; } *cudaEvent_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
#define cudaHostAllocPortable 1
#define cudaEventDisableTiming 2
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaGetLastError(void);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows,
                              enum cudaMemcpyKind kind, cudaStream_t s);
