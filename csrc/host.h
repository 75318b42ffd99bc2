/*
 * host.h -- how NumPy bytes reach the GPU and come back: every host <-> device transfer strategy of
 * smemkit, the page-locking (registration) lock, and the host-side sizes.  No Python here:
 * dispatch.c hands over plain pointers and params structs, with the GIL released.
 */
#ifndef SMK_HOST_H
#define SMK_HOST_H

#include "api/gemm16.h"
#include "api/sgemm.h"
#include "api/transpose.h"
#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a host transpose moves its bytes (tests and benchmarks may force one):
 *   0  pageable: cudaMemcpy from / to the caller's memory as it is (the driver stages it)
 *   1  registered: the caller's buffers are page-locked in place (cudaHostRegister) for the copies
 *   2  pipelined: registered, and the matrix goes in column bands over 3 streams, so the upload of
 *      band j+1, the kernel on band j and the download of band j-1 overlap (both copy engines busy)
 *   3  staged: both sides stream through the pinned staging units of hostpool.c (worker threads copy
 *      the caller's pageable memory into a unit while the DMA of the previous one runs); the
 *      caller's memory is never page-locked
 *  -1  automatic: 3 from 1 MiB (SMK_STAGE_MIN_BYTES) when the pool lends units; otherwise (a small
 *      call, or no pinned memory to be had) 2 for C-contiguous single matrices of at least 16 MiB,
 *      else 0.  Host GEMMs know two of these: staged (mode 3, and automatic from 1 MiB when the pool
 *      lends units) and pageable (every other case).
 * The mode is process-wide (tests and benchmarks set it through _set_knob('host_mode')). */
int smk_host_set_mode(int mode); /* 0, or -1 for a mode outside [-1, 3] */

/* Host in, host out: p.in / p.out are HOST pointers to the caller's (contiguous) memory; p describes
 * the element strides of the input as the kernel will see them on the device copy.  `bytes` is the
 * size of one side (input and output have the same size).  Runs without the GIL. */
smk_status smk_host_transpose(smk_transpose_params p, size_t bytes);

/* Host in, host out SGEMM: A, B, C (NULL when beta == 0) and D are dense row-major host matrices
 * (leading dimension = column count); device rows are padded to 16 bytes so the kernel's float4
 * path applies to every shape.  Runs without the GIL. */
smk_status smk_host_sgemm(smk_sgemm_params p);

/* Device bytes smk_host_sgemm allocates for an M x N x K problem (with or without C). */
size_t smk_host_sgemm_device_bytes(int64_t M, int64_t N, int64_t K, int with_c);

/* Host in, host out tensor-core GEMM (fp16 / bf16 inputs): dense row-major host matrices; device
 * rows padded to 16 bytes, so the kernel's 16-byte cp.async path applies to every shape. */
smk_status smk_host_gemm16(smk_gemm16_params p);
size_t smk_host_gemm16_device_bytes(int64_t M, int64_t N, int64_t K, int out_esz, int with_c);

/* Physical memory of this machine in bytes (0 if unknown): a host copy larger than this can only
 * end with the operating system killing the process. */
size_t smk_host_physical_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* SMK_HOST_H */
