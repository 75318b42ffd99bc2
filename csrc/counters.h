/* counters.h -- the arrival counters of split-K's fused fixups (sgemm/fixup.cuh): a buffer of
 * SMK_RT_COUNTERS unsigned zeros per (host thread, device, stream), allocated and zeroed on that stream
 * the first time it is asked for, then kept for the life of the process.  Every kernel that counts on
 * it leaves it zero again (the last block of a tile resets its counter), and the kernels that share a
 * buffer are ordered by their stream, so none of them sees another's counts.  Per host thread as well
 * as per stream handle: cudaStreamPerThread is one handle for every thread's own stream.  Plain C. */
#ifndef SMK_COUNTERS_H
#define SMK_COUNTERS_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Counters per buffer: a split launch with more tiles takes the separate reduction (the gates). */
#define SMK_RT_COUNTERS 4096

/* The buffer of (this thread, the current device, stream), or NULL where there is none to give: the
 * stream is being captured and has none yet (an allocation is not capturable), the table of this thread
 * is full, or the allocation failed (the caller then launches its separate reduction; nothing raises:
 * the 16 KB are not part of a call's own memory, which the size checks count). */
unsigned *smk_rt_counters(cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
