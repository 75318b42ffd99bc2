/*
 * host.h -- how NumPy bytes reach the GPU and come back: every host <-> device transfer strategy of
 * smemkit, the page-locking (registration) lock, and the host-side size checks.  No Python here:
 * module.c hands over plain pointers and params structs, with the GIL released.
 */
#ifndef SMK_HOST_H
#define SMK_HOST_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a host transpose moves its bytes (tests and benchmarks may force one):
 *   0  pageable: cudaMemcpy from / to the caller's memory as it is (the driver stages it)
 *   1  registered: the caller's buffers are page-locked in place (cudaHostRegister) for the copies
 *   2  pipelined: registered, and the matrix goes in column bands over 3 streams, so the upload of
 *      band j+1, the kernel on band j and the download of band j-1 overlap (both copy engines busy)
 *  -1  automatic: 2 for C-contiguous single matrices of at least 16 MiB, else 0 */
int smk_host_set_mode(int mode); /* 0, or -1 for a mode outside [-1, 2] */

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
