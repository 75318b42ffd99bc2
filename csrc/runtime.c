/*
 * runtime.c -- device memory, streams, events and error mapping for smemkit.  Plain C on the CUDA
 * runtime API (cudart is linked statically, so importing the extension needs no driver).
 *
 * Every function returns an smk_status and never exits.  All work goes on the calling thread's
 * per-thread default stream, so Python threads calling in parallel do not serialise on one stream,
 * and device memory comes from the stream-ordered pool (cudaMallocAsync): a call costs no
 * cudaMalloc/cudaFree round trip once the pool is warm.
 *
 * Sticky errors (an illegal address, a failed launch, ...) corrupt the device's CUDA context for the
 * life of the process.  The first one is remembered for that device; from then on every call there
 * fails with SMK_E_POISONED naming it, instead of pretending to recover (other devices have contexts
 * of their own and carry on).  Everything else kept here is per device too (readiness, the pool);
 * the device is always the calling thread's current one, which a call's guard (smk_rt_enter_device)
 * has set to its operands' device.
 */
#include "runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-device state: the first sticky error each device reported, its readiness and its memory pool.  A
 * sticky error is NOT confined to its device: CUDA documents an illegal address (and its kin) as leaving
 * the process inconsistent, "any further CUDA work will return the same error", and on two H100s
 * (2026-11-27, tests/test_multi_gpu.py's sticky test) a fault on GPU 1 made the next launch on GPU 0
 * fail with it too, so that device is then flagged as well.  Indexed by the calling thread's
 * current device; devices past SMK_RT_MAX_DEVICES share the last slot (correct, only less cached:
 * ready is then never remembered for them). */
#define SMK_RT_MAX_DEVICES 64
static volatile int g_sticky[SMK_RT_MAX_DEVICES + 1];  /* the first sticky cudaError_t, 0 while healthy */
static volatile int g_ready[SMK_RT_MAX_DEVICES + 1];   /* context created, pool configured */
static volatile int g_pool_ok[SMK_RT_MAX_DEVICES + 1]; /* supports stream-ordered allocation */
static volatile int g_poison = 0; /* tests: fill outputs with 0xFF before kernels (every device) */
static volatile int g_pdl = 0;    /* knob 'pdl': split-K reductions as programmatic dependent launches */

/* The state slot of the calling thread's current device (cudaGetDevice is a thread-local read). */
static int slot(void)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        dev = 0;
    }
    return dev >= 0 && dev < SMK_RT_MAX_DEVICES ? dev : SMK_RT_MAX_DEVICES;
}

/* Keep up to this much freed memory in the pool between calls (smk_rt_trim() releases it). */
#define SMK_POOL_KEEP_BYTES ((uint64_t)1 << 30)

static smk_status ok(void)
{
    smk_status s = {SMK_OK, 0, 0, NULL};
    return s;
}

/* A failed device switch is not recorded as sticky: smk_rt_fail would charge it to the device that is
 * still current, not to the one the switch was for. */
static smk_status switch_failed(cudaError_t e, const char *where)
{
    smk_status s = {SMK_E_CUDA, (int)e, 0, where};
    (void)cudaGetLastError();
    return s;
}

int smk_rt_is_sticky(int e)
{
    switch ((cudaError_t)e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorContextIsDestroyed:
        return 1;
    default:
        return 0;
    }
}

const char *smk_rt_error_name(int e) { return cudaGetErrorName((cudaError_t)e); }
const char *smk_rt_error_string(int e) { return cudaGetErrorString((cudaError_t)e); }

smk_status smk_rt_fail(int e, const char *where)
{
    smk_status s = {SMK_E_CUDA, e, 0, where};
    if (smk_rt_is_sticky(e)) {
        const int d = slot();
        if (!g_sticky[d])
            g_sticky[d] = e;
    } else {
        (void)cudaGetLastError(); /* a non-sticky error must not leak into the next call */
    }
    return s;
}

static int no_device_error(cudaError_t e)
{
    return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInitializationError ||
           e == cudaErrorSystemDriverMismatch || e == cudaErrorCompatNotSupportedOnDevice ||
           e == cudaErrorDevicesUnavailable || e == cudaErrorStubLibrary ||
           e == cudaErrorSystemNotReady || e == cudaErrorNotSupported ||
           e == cudaErrorUnsupportedPtxVersion || e == cudaErrorNoKernelImageForDevice;
}

smk_status smk_rt_ready(void)
{
    smk_status s = ok();
    cudaError_t e;
    int n = 0, dev = 0, pools = 0;
    const int d = slot();

    if (g_sticky[d]) {
        s.code = SMK_E_POISONED;
        s.cuda = g_sticky[d];
        s.where = "an earlier call";
        return s;
    }
    if (g_ready[d])
        return s;
    e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        (void)cudaGetLastError();
        s.code = SMK_E_NODEVICE;
        s.cuda = e != cudaSuccess ? (int)e : (int)cudaErrorNoDevice;
        s.where = "cudaGetDeviceCount";
        return s;
    }
    e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaFree(NULL); /* creates the primary context now, so failures surface here */
    if (e != cudaSuccess) {
        if (no_device_error(e)) {
            (void)cudaGetLastError();
            s.code = SMK_E_NODEVICE;
            s.cuda = e;
            s.where = "creating the CUDA context";
            return s;
        }
        return smk_rt_fail(e, "creating the CUDA context");
    }
    e = cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, dev);
    if (e != cudaSuccess)
        return smk_rt_fail(e, "cudaDeviceGetAttribute");
    if (pools) {
        cudaMemPool_t pool;
        uint64_t keep = SMK_POOL_KEEP_BYTES;
        e = cudaDeviceGetDefaultMemPool(&pool, dev);
        if (e == cudaSuccess)
            e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
        if (e != cudaSuccess)
            return smk_rt_fail(e, "configuring the memory pool");
        g_pool_ok[d] = 1;
    }
    g_ready[d] = d < SMK_RT_MAX_DEVICES;
    return s;
}

void smk_rt_no_device_text(int e, char *buf, size_t n)
{
    int drv = 0;
    char why[200];
    if (n == 0)
        return;
    /* cudaDriverGetVersion reports 0 when libcuda.so.1 cannot be loaded: the runtime then says
     * cudaErrorInsufficientDriver, whose text ("driver version is insufficient") sends people to upgrade
     * a driver that is not there */
    if (cudaDriverGetVersion(&drv) != cudaSuccess)
        drv = 0;
    (void)cudaGetLastError();
    if (drv == 0)
        snprintf(why, sizeof why, "no NVIDIA driver was found (libcuda.so.1 is not installed or not loadable)");
    else if (e == cudaErrorInsufficientDriver)
        snprintf(why, sizeof why, "the NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d runtime smemkit "
                 "was built with: update the driver", drv / 1000, drv % 1000 / 10, CUDART_VERSION / 1000,
                 CUDART_VERSION % 1000 / 10);
    else if (e == cudaErrorNoDevice)
        snprintf(why, sizeof why, "the NVIDIA driver sees no GPU (check nvidia-smi and CUDA_VISIBLE_DEVICES)");
    else
        snprintf(why, sizeof why, "%s: %s", cudaGetErrorName((cudaError_t)e), cudaGetErrorString((cudaError_t)e));
    snprintf(buf, n, "no usable GPU was found: %s.  smemkit's kernels (transpose, sgemm, gemm, bench, timeit) "
             "need an NVIDIA GPU; the bank model, explain(), bank_map() and the plots work without one "
             "(smemkit.is_available() tells which)", why);
}

int smk_rt_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

void smk_rt_device_name(char *buf, size_t n)
{
    struct cudaDeviceProp prop;
    int dev = 0;
    if (n == 0)
        return;
    buf[0] = '\0';
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    strncpy(buf, prop.name, n - 1);
    buf[n - 1] = '\0';
}

cudaStream_t smk_rt_stream(void) { return cudaStreamPerThread; }

smk_status smk_rt_alloc(void **p, size_t bytes) { return smk_rt_alloc_on(p, bytes, cudaStreamPerThread); }

smk_status smk_rt_alloc_on(void **p, size_t bytes, cudaStream_t stream)
{
    smk_status s = ok();
    cudaError_t e;
    *p = NULL;
    if (bytes == 0)
        return s;
    e = g_pool_ok[slot()] ? cudaMallocAsync(p, bytes, stream) : cudaMalloc(p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        *p = NULL;
        s.code = SMK_E_NOMEM;
        s.cuda = e;
        s.bytes = bytes;
        s.where = "allocating device memory";
        return s;
    }
    if (e != cudaSuccess) {
        *p = NULL;
        return smk_rt_fail(e, "allocating device memory");
    }
    return s;
}

void smk_rt_free(void *p) { smk_rt_free_on(p, cudaStreamPerThread); }

void smk_rt_free_on(void *p, cudaStream_t stream)
{
    cudaError_t e;
    if (!p)
        return;
    e = g_pool_ok[slot()] ? cudaFreeAsync(p, stream) : cudaFree(p);
    if (e != cudaSuccess)
        (void)smk_rt_fail(e, "freeing device memory");
}

smk_status smk_rt_trim(void)
{
    cudaMemPool_t pool;
    int dev = 0;
    cudaError_t e;
    smk_status s = smk_rt_ready();
    if (s.code != SMK_OK || !g_pool_ok[slot()])
        return s;
    e = cudaStreamSynchronize(cudaStreamPerThread);
    if (e == cudaSuccess)
        e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetDefaultMemPool(&pool, dev);
    if (e == cudaSuccess)
        e = cudaMemPoolTrimTo(pool, 0);
    return e == cudaSuccess ? s : smk_rt_fail(e, "trimming the memory pool");
}

/* empty_cache(): every device this process made ready, each under a device switch put back after (the
 * first failure is returned; the other devices are still trimmed). */
smk_status smk_rt_trim_all(void)
{
    smk_status s = ok(), t;
    int prev = 0, d;
    cudaError_t e = cudaGetDevice(&prev);
    if (e != cudaSuccess)
        return switch_failed(e, "cudaGetDevice");
    for (d = 0; d < SMK_RT_MAX_DEVICES; d++) {
        if (!g_ready[d] || g_sticky[d])
            continue;
        if ((e = cudaSetDevice(d)) != cudaSuccess) {
            t = switch_failed(e, "cudaSetDevice");
        } else {
            t = smk_rt_trim();
        }
        if (s.code == SMK_OK)
            s = t;
    }
    if ((e = cudaSetDevice(prev)) != cudaSuccess && s.code == SMK_OK)
        s = switch_failed(e, "cudaSetDevice (restoring the current device)");
    return s;
}

smk_status smk_rt_enter_device(int dev, int *prev)
{
    smk_status s = ok();
    int cur = -1;
    cudaError_t e;
    *prev = -1;
    if (dev < 0)
        return s;
    if ((e = cudaGetDevice(&cur)) != cudaSuccess)
        return switch_failed(e, "cudaGetDevice");
    if (cur == dev)
        return s;
    if (dev < SMK_RT_MAX_DEVICES && g_sticky[dev]) { /* that device's context is dead: do not touch it */
        s.code = SMK_E_POISONED;
        s.cuda = g_sticky[dev];
        s.where = "an earlier call";
        return s;
    }
    if ((e = cudaSetDevice(dev)) != cudaSuccess)
        return switch_failed(e, "cudaSetDevice (the operands' device)");
    *prev = cur;
    return s;
}

typedef int (*ctx_state_fn)(int dev, unsigned int *flags, int *active); /* cuDevicePrimaryCtxGetState */

int smk_rt_has_context(int dev)
{
    static ctx_state_fn fn = NULL;
    static volatile int looked = 0;
    unsigned int flags = 0;
    int active = 1; /* cannot tell: say yes (putting the device back is then the safe default) */
    if (!looked) {
#if CUDART_VERSION >= 12050 /* cudaGetDriverEntryPointByVersion; older runtimes: cannot tell */
        void *p = NULL;
        enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxGetState", &p, 12000, cudaEnableDefault, &q) ==
                cudaSuccess && q == cudaDriverEntryPointSuccess)
            fn = (ctx_state_fn)p;
        else
            (void)cudaGetLastError();
#endif
        looked = 1;
    }
    if (fn && fn(dev, &flags, &active) != 0)
        active = 1;
    return active != 0;
}

void smk_rt_leave_device(int prev)
{
    cudaError_t e = prev >= 0 ? cudaSetDevice(prev) : cudaSuccess;
    if (e != cudaSuccess)
        (void)switch_failed(e, "cudaSetDevice (restoring the current device)");
}

smk_status smk_rt_check_device_ptr(const void *ptr, int *dev, int *current)
{
    struct cudaPointerAttributes attr;
    cudaError_t e;
    smk_status s = ok();
    *dev = -1;
    *current = -1;
    memset(&attr, 0, sizeof attr);
    e = cudaGetDevice(current);
    if (e == cudaSuccess) {
        e = cudaPointerGetAttributes(&attr, ptr);
        if (e == cudaErrorInvalidValue) { /* an address the driver has never heard of (a bogus pointer) */
            (void)cudaGetLastError();
            attr.type = cudaMemoryTypeUnregistered;
            attr.device = -1;
            e = cudaSuccess;
        }
    }
    if (e != cudaSuccess)
        return smk_rt_fail(e, "inspecting a device pointer");
    *dev = attr.device;
    if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged) {
        s.code = SMK_E_CUDA;
        s.cuda = cudaErrorInvalidValue;
        s.where = "not device memory";
    }
    return s;
}

smk_status smk_rt_device_info(int *sms, int *l2_bytes, int *cc_major, int *cc_minor)
{
    int dev = 0;
    cudaError_t e;
    smk_status s = smk_rt_ready();
    if (s.code != SMK_OK)
        return s;
    e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(l2_bytes, cudaDevAttrL2CacheSize, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(cc_major, cudaDevAttrComputeCapabilityMajor, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(cc_minor, cudaDevAttrComputeCapabilityMinor, dev);
    return e == cudaSuccess ? s : smk_rt_fail(e, "reading device attributes");
}

smk_status smk_rt_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    smk_status s = smk_rt_ready();
    cudaError_t e;
    if (s.code != SMK_OK)
        return s;
    e = cudaMemGetInfo(free_bytes, total_bytes);
    return e == cudaSuccess ? s : smk_rt_fail(e, "querying device memory");
}

smk_status smk_rt_h2d(void *dst, const void *src, size_t bytes)
{
    cudaError_t e;
    if (bytes == 0)
        return ok();
    e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cudaStreamPerThread);
    return e == cudaSuccess ? ok() : smk_rt_fail(e, "copying host to device");
}

smk_status smk_rt_d2h(void *dst, const void *src, size_t bytes)
{
    cudaError_t e;
    if (bytes == 0)
        return ok();
    e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, cudaStreamPerThread);
    return e == cudaSuccess ? ok() : smk_rt_fail(e, "copying device to host");
}

static smk_status copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t row_bytes, size_t rows,
                          enum cudaMemcpyKind kind, const char *where)
{
    cudaError_t e;
    if (row_bytes == 0 || rows == 0)
        return ok();
    e = cudaMemcpy2DAsync(dst, dpitch, src, spitch, row_bytes, rows, kind, cudaStreamPerThread);
    return e == cudaSuccess ? ok() : smk_rt_fail(e, where);
}

smk_status smk_rt_h2d_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t row_bytes, size_t rows)
{
    return copy_2d(dst, dpitch, src, spitch, row_bytes, rows, cudaMemcpyHostToDevice, "copying host to device");
}

smk_status smk_rt_d2h_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t row_bytes, size_t rows)
{
    return copy_2d(dst, dpitch, src, spitch, row_bytes, rows, cudaMemcpyDeviceToHost, "copying device to host");
}

smk_status smk_rt_sync(void)
{
    cudaError_t e = cudaStreamSynchronize(cudaStreamPerThread);
    return e == cudaSuccess ? ok() : smk_rt_fail(e, "synchronising the stream");
}

void smk_rt_set_poison(int on) { g_poison = on != 0; }
int smk_rt_poisoning(void) { return g_poison; }
void smk_rt_set_pdl(int on) { g_pdl = on != 0; }
int smk_rt_pdl(void) { return g_pdl; }

smk_status smk_rt_poison(void *dst, size_t bytes) { return smk_rt_poison_on(dst, bytes, cudaStreamPerThread); }

smk_status smk_rt_poison_on(void *dst, size_t bytes, cudaStream_t stream)
{
    cudaError_t e;
    if (!g_poison || bytes == 0)
        return ok();
    e = cudaMemsetAsync(dst, 0xff, bytes, stream);
    return e == cudaSuccess ? ok() : smk_rt_fail(e, "poisoning an output buffer");
}

smk_status smk_rt_check_launch(int e, const char *where)
{
    return e == cudaSuccess ? ok() : smk_rt_fail(e, where);
}
