/*
 * runtime.h -- the ground floor: status codes, device readiness and sticky-error poisoning, device
 * memory (stream-ordered), copies, the output poisoning tests ask for, device facts (runtime.c).
 * No Python, no kernel: each kernel family's C API is its own header under api/ (api/transpose.h,
 * api/sgemm.h, api/gemm16.h, api/plan.h, api/debug.h).
 *
 * Rules: no function calls exit(); every CUDA call is checked; a failure comes back as an smk_status.
 * (Launchers in api/ return the first cudaError_t they saw and leave nothing allocated behind them.)
 */
#ifndef SMK_RUNTIME_H
#define SMK_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status of a runtime operation ---------------------------------------------------------- */
enum {
    SMK_OK = 0,
    SMK_E_CUDA = 1,     /* a CUDA call failed: .cuda holds the cudaError_t */
    SMK_E_NOMEM = 2,    /* device allocation of .bytes failed */
    SMK_E_NODEVICE = 3, /* no usable GPU / driver: .cuda holds why */
    SMK_E_POISONED = 4, /* an earlier sticky error killed the context: .cuda holds that error */
};

typedef struct {
    int code;          /* SMK_OK, SMK_E_* */
    int cuda;          /* cudaError_t when relevant */
    size_t bytes;      /* bytes requested for SMK_E_NOMEM */
    const char *where; /* static string naming the step that failed */
} smk_status;

/* Make sure a usable device exists and the context is healthy (cheap after the first call). */
smk_status smk_rt_ready(void);
/* Record a CUDA error seen by a caller: maps it to a status and remembers sticky errors. */
smk_status smk_rt_fail(int cuda_err, const char *where);
/* Is this cudaError_t one that corrupts the context for good? */
int smk_rt_is_sticky(int cuda_err);
const char *smk_rt_error_name(int cuda_err);
const char *smk_rt_error_string(int cuda_err);
/* The sentence a caller shows for SMK_E_NODEVICE, into buf (always terminated): what is missing (no
 * NVIDIA driver at all / a driver older than the runtime smemkit was built with / a driver that sees no
 * GPU), that the kernels need a GPU and that the CPU side (bank model, explain, maps) does not. */
void smk_rt_no_device_text(int cuda_err, char *buf, size_t n);
/* 1 if a device is present and usable; never raises, never initialises more than needed. */
int smk_rt_device_count(void);
/* Device name of the current device into buf (empty on failure). */
void smk_rt_device_name(char *buf, size_t n);

static inline smk_status smk_ok(void)
{
    smk_status s = {0, 0, 0, 0};
    return s;
}

/* Device memory on the calling thread's per-thread stream (stream-ordered pool allocator). */
smk_status smk_rt_alloc(void **p, size_t bytes);
void smk_rt_free(void *p); /* NULL is fine; never fails visibly (errors are recorded) */
/* The same, ordered on a caller's stream (device arrays: temporaries live on the caller's stream). */
smk_status smk_rt_alloc_on(void **p, size_t bytes, cudaStream_t stream);
void smk_rt_free_on(void *p, cudaStream_t stream);
smk_status smk_rt_h2d(void *dst, const void *src, size_t bytes);
smk_status smk_rt_d2h(void *dst, const void *src, size_t bytes);
smk_status smk_rt_sync(void);
/* Row-pitched copies: `rows` rows of `row_bytes`, source/destination rows `*_pitch` bytes apart. */
smk_status smk_rt_h2d_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t row_bytes, size_t rows);
smk_status smk_rt_d2h_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t row_bytes, size_t rows);
/* Tests set this: every kernel output buffer is filled with 0xFF bytes (NaN for floats) first, so
 * an element the kernel forgets to write cannot pass a bit-exact comparison. */
void smk_rt_set_poison(int on);
int smk_rt_poisoning(void);
/* Programmatic dependent launches (knob 'pdl'; 0, the default: off).  A split-K reduction launched as a
 * dependent of its GEMM starts while the GEMM's last blocks run and waits in griddepcontrol.wait; that wait
 * is device time of the reduction kernel, so a profiler that sums every kernel's device time (the issues'
 * acceptance method) counts the overlap twice: measured on the H100, 19x16149x5746 SGEMM, reduction
 * 263 us "device time" beside a 551 us GEMM whose events time the whole call at 566 us. */
void smk_rt_set_pdl(int on);
int smk_rt_pdl(void);
/* Fill `bytes` of an output buffer with 0xFF if poisoning is on; SMK_OK otherwise. */
smk_status smk_rt_poison(void *dst, size_t bytes);
smk_status smk_rt_poison_on(void *dst, size_t bytes, cudaStream_t stream);
cudaStream_t smk_rt_stream(void);
/* Map a launcher's cudaError_t to a status (SMK_OK for cudaSuccess). */
smk_status smk_rt_check_launch(int cuda_err, const char *where);
/* Release the pool's cached device memory back to the driver (the current device's pool). */
smk_status smk_rt_trim(void);
/* The same for every device this process has made ready (smk_rt_ready), the current device put back. */
smk_status smk_rt_trim_all(void);
/* Run on device `dev` (a PyTorch tensor's): *prev gets the device to put back, -1 when dev is already
 * current (or dev < 0: nothing to switch).  smk_rt_leave_device(prev) restores it (never fails visibly). */
smk_status smk_rt_enter_device(int dev, int *prev);
void smk_rt_leave_device(int prev);
/* 1 when device dev's primary context exists (or the driver cannot say), 0 when it does not: putting
 * such a device back with cudaSetDevice would create a context (memory on that GPU) for nothing. */
int smk_rt_has_context(int dev);
/* Check that ptr is device (or managed) memory on the current device; *dev gets its device.
 * SMK_OK, or SMK_E_CUDA with .where saying what is wrong (host memory, other device). */
smk_status smk_rt_check_device_ptr(const void *ptr, int *dev, int *current);
/* Free and total device memory in bytes (cudaMemGetInfo). */
smk_status smk_rt_mem_info(size_t *free_bytes, size_t *total_bytes);
/* SMs, L2 bytes and compute capability of the current device. */
smk_status smk_rt_device_info(int *sms, int *l2_bytes, int *cc_major, int *cc_minor);

#ifdef __cplusplus
}
#endif

#endif /* SMK_RUNTIME_H */
