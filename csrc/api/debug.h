/*
 * api/debug.h -- the testing aid of common/debug.cu: a kernel that faults on purpose, so the tests can see a
 * sticky error poison the context (smemkit._C._debug_fault, run in a subprocess).
 */
#ifndef SMK_API_DEBUG_H
#define SMK_API_DEBUG_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tests only: launch a kernel that stores to an illegal address; returns the launch's cudaError_t. */
int smk_debug_fault_launch(cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_DEBUG_H */
