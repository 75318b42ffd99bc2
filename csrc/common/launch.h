/* Host-side launch helpers shared by every kernel family (C++: included by the .cu launchers only).
 *
 *   device_facts   multiprocessor count and compute capability of the current device, cached per
 *                  device (every GEMM call reads them to choose its tiles and split)
 *   smem_optin     a kernel's opt-in to more than 48 KB of dynamic shared memory, once per kernel and
 *                  device (cudaFuncSetAttribute is per device: a process that switches devices opts in
 *                  again there)
 *   aligned16      whether a pointer can feed 16-byte vector accesses
 *
 * Every function returns a cudaError_t as int (0 = cudaSuccess), as the launchers do. */
#ifndef SMK_COMMON_LAUNCH_H
#define SMK_COMMON_LAUNCH_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace smk {

constexpr int kMaxCachedDevices = 64;

/* SMs and compute-capability major of the current device.  Cached per device: a benign race, every
 * writer stores the same values, and a reader that sees sms before major reads major again. */
inline int device_facts(int *sms, int *cc_major)
{
    static int sms_of[kMaxCachedDevices], major_of[kMaxCachedDevices];
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    const bool cached = dev >= 0 && dev < kMaxCachedDevices;
    if (cached && sms_of[dev] > 0 && major_of[dev] > 0) {
        *sms = sms_of[dev];
        if (cc_major) *cc_major = major_of[dev];
        return 0;
    }
    int s = 0, m = 0;
    e = cudaDeviceGetAttribute(&s, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&m, cudaDevAttrComputeCapabilityMajor, dev);
    if (e != cudaSuccess) return (int)e;
    if (cached) {
        major_of[dev] = m;
        sms_of[dev] = s;
    }
    *sms = s;
    if (cc_major) *cc_major = m;
    return 0;
}

/* Opt Kernel in to `bytes` of dynamic shared memory where that is over the 48 KB default:
 * smk::smem_optin<my_kernel<...>>(bytes).  The kernel is a template argument, not a function argument,
 * so the static mask is per kernel (bit d: done on device d; a benign race, every writer sets the same
 * bit): keyed on the kernel's type instead, every kernel of one signature would share one mask and all
 * but the first to launch would skip their opt-in.  Devices past the mask's 64 bits opt in on every
 * launch. */
template <auto Kernel>
inline int smem_optin(size_t bytes)
{
    if (bytes <= 48 * 1024) return 0;
    static unsigned long long opted;
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    const unsigned long long bit = dev >= 0 && dev < kMaxCachedDevices ? 1ull << dev : 0;
    if (bit && (opted & bit)) return 0;
    e = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != cudaSuccess) return (int)e;
    opted |= bit;
    return 0;
}

inline bool aligned16(const void *ptr) { return ((uintptr_t)ptr & 15u) == 0; }

} /* namespace smk */

#endif
