/*
 * common/debug.cu -- the runtime's test hook: a kernel that faults on purpose, so the tests can check
 * that a sticky CUDA error (an illegal address) poisons smemkit for the rest of the process instead of
 * being "recovered".  Belongs to no kernel family; reached only through smemkit._C._debug_fault().
 */
#include <cuda_runtime.h>

#include "api/debug.h"

namespace {
__global__ void illegal_store_kernel(int *p) { p[threadIdx.x] = 1; }
} // namespace

extern "C" int smk_debug_fault_launch(cudaStream_t stream)
{
    /* an address no allocation has: the store raises cudaErrorIllegalAddress at the next sync */
    illegal_store_kernel<<<1, 32, 0, stream>>>(reinterpret_cast<int *>(0x8));
    return (int)cudaGetLastError();
}
