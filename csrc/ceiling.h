/*
 * ceiling.h -- the benchmark's ceilings: cuBLAS through dlopen (ceiling.c), so importing smemkit never
 * needs cuBLAS.  SGEMM against cublasSgemm (full fp32, no TF32), the tensor-core GEMM against
 * cublasGemmEx of the same precision.
 */
#ifndef SMK_CEILING_H
#define SMK_CEILING_H

#include <cuda_runtime_api.h>

#include "api/gemm16.h"
#include "api/sgemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Load cuBLAS once (call with the GIL held) and make the current device's handle (one handle per
 * device: a handle is bound to the device it was made on).  1 if usable; otherwise 0 and *why says
 * why; *path names the library found.  The calls below use the current device's handle, under its
 * lock (-2: a device index past the table). */
int smk_cublas_load(const char **why, const char **path);
/* Row-major D = alpha*A@B + beta*D (layout / config / splits ignored); cuBLAS status, -1 if not loaded. */
int smk_cublas_sgemm(const smk_sgemm_params *p, cudaStream_t stream);
/* cublasGemmEx, CUDA_R_16F / CUDA_R_16BF inputs, CUBLAS_COMPUTE_32F, output 16F/16BF or 32F as
 * p->out_f32 says; layout / swizzle / variant ignored.  When beta != 0 and C != D, C is copied into
 * D first (cuBLAS updates in place).  cuBLAS status (0 = ok), -1 if cuBLAS / cublasGemmEx is not
 * loaded, -3 for sizes beyond cuBLAS's int interface, 1000 + cudaError_t if the copy fails. */
int smk_cublas_gemm16(const smk_gemm16_params *p, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SMK_CEILING_H */
