/*
 * ceiling.c -- cuBLAS as the benchmark's ceiling (see ceiling.h), loaded at run time with dlopen so that
 * importing smemkit never needs cuBLAS.  Plain C; cuBLAS's few entry points are declared here by
 * their documented C signatures (cublas_api.h), so the build needs no cuBLAS headers either.
 */
#include "ceiling.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*create_fn)(void **handle);
typedef int (*setstream_fn)(void *handle, cudaStream_t stream);
typedef int (*setmath_fn)(void *handle, int mode);
typedef int (*sgemm_fn)(void *handle, int transa, int transb, int m, int n, int k, const float *alpha,
                        const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc);

typedef int (*gemmex_fn)(void *handle, int transa, int transb, int m, int n, int k, const void *alpha,
                         const void *A, int Atype, int lda, const void *B, int Btype, int ldb, const void *beta,
                         void *C, int Ctype, int ldc, int computeType, int algo);

/* cublas_api.h / library_types.h values */
enum { CUBLAS_OP_N = 0, CUBLAS_DEFAULT_MATH = 0 };
enum { SMK_CUDA_R_32F = 0, SMK_CUDA_R_16F = 2, SMK_CUDA_R_16BF = 14, SMK_CUBLAS_COMPUTE_32F = 68,
       SMK_CUBLAS_GEMM_DEFAULT = -1 };

/* A cuBLAS handle belongs to the device current when it was created: one per device, made on first use
 * there.  A handle is not safe for two threads at once (its stream is state), so each call holds its
 * device's lock from cublasSetStream to the enqueue. */
#define SMK_CUBLAS_MAX_DEVICES 64

static struct {
    int tried, ok;
    void *lib;
    void *handle[SMK_CUBLAS_MAX_DEVICES];
    pthread_mutex_t lock[SMK_CUBLAS_MAX_DEVICES];
    create_fn create;
    setmath_fn set_math;
    setstream_fn set_stream;
    sgemm_fn sgemm;
    gemmex_fn gemmex; /* NULL if this cuBLAS lacks it: smk_cublas_gemm16 then returns -1 */
    char why[256];
    char path[256];
} g;

/* The current device's handle (created there on first use, full fp32 math: no TF32) and its lock held,
 * or NULL (nothing held; *rc says why: -1 none loaded, -2 device out of range, a cuBLAS status). */
static void *device_handle(int *dev, int *rc)
{
    void *h = NULL;
    *rc = -1;
    if (!g.ok)
        return NULL;
    if (cudaGetDevice(dev) != cudaSuccess || *dev < 0 || *dev >= SMK_CUBLAS_MAX_DEVICES) {
        (void)cudaGetLastError();
        *rc = -2;
        return NULL;
    }
    pthread_mutex_lock(&g.lock[*dev]);
    if (!g.handle[*dev] && (*rc = g.create(&h)) == 0 && (*rc = g.set_math(h, CUBLAS_DEFAULT_MATH)) == 0)
        g.handle[*dev] = h;
    if (!g.handle[*dev]) {
        pthread_mutex_unlock(&g.lock[*dev]);
        return NULL;
    }
    *rc = 0;
    return g.handle[*dev];
}

static void load_library(void)
{
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", NULL};
    const char *home = getenv("CUDA_HOME");
    char buf[512];
    int i;
    for (i = 0; names[i] && !g.lib; i++) {
        g.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!g.lib && home) {
            snprintf(buf, sizeof buf, "%s/lib64/%s", home, names[i]);
            g.lib = dlopen(buf, RTLD_NOW | RTLD_LOCAL);
        }
        if (!g.lib) {
            snprintf(buf, sizeof buf, "/usr/local/cuda/lib64/%s", names[i]);
            g.lib = dlopen(buf, RTLD_NOW | RTLD_LOCAL);
        }
        if (g.lib)
            snprintf(g.path, sizeof g.path, "%s", names[i]);
    }
    if (!g.lib) {
        snprintf(g.why, sizeof g.why, "cuBLAS not found (dlopen libcublas.so.13/.12: %s)", dlerror());
        return;
    }
    g.create = (create_fn)dlsym(g.lib, "cublasCreate_v2");
    g.set_math = (setmath_fn)dlsym(g.lib, "cublasSetMathMode");
    g.set_stream = (setstream_fn)dlsym(g.lib, "cublasSetStream_v2");
    g.sgemm = (sgemm_fn)dlsym(g.lib, "cublasSgemm_v2");
    g.gemmex = (gemmex_fn)dlsym(g.lib, "cublasGemmEx");
    if (!g.create || !g.set_math || !g.set_stream || !g.sgemm)
        snprintf(g.why, sizeof g.why, "cuBLAS found but an entry point is missing");
    else
        g.ok = 1;
}

/* Load cuBLAS once (call with the GIL held) and make the current device's handle.  1 if usable;
 * otherwise 0 and *why says why. */
int smk_cublas_load(const char **why, const char **path)
{
    int i, dev = 0, rc = 0;
    if (!g.tried) {
        g.tried = 1;
        for (i = 0; i < SMK_CUBLAS_MAX_DEVICES; i++)
            pthread_mutex_init(&g.lock[i], NULL);
        load_library();
    }
    if (g.ok && device_handle(&dev, &rc))
        pthread_mutex_unlock(&g.lock[dev]);
    else if (g.ok)
        snprintf(g.why, sizeof g.why, rc == -2 ? "cuBLAS: no handle for this device (index past %d)"
                 : "cublasCreate / cublasSetMathMode failed with status %d", rc == -2 ? SMK_CUBLAS_MAX_DEVICES : rc);
    if (why)
        *why = g.ok && rc == 0 ? "" : g.why;
    if (path)
        *path = g.path;
    return g.ok && rc == 0;
}

/* Row-major D = alpha*A@B + beta*D through column-major cuBLAS (D^T = B^T A^T).  cuBLAS status. */
int smk_cublas_sgemm(const smk_sgemm_params *p, cudaStream_t stream)
{
    int rc, dev = 0;
    void *h = device_handle(&dev, &rc);
    if (!h)
        return rc;
    rc = g.set_stream(h, stream);
    if (rc == 0)
        rc = g.sgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)p->N, (int)p->M, (int)p->K, &p->alpha, p->B, (int)p->ldb, p->A,
                     (int)p->lda, &p->beta, p->D, (int)p->ldd);
    pthread_mutex_unlock(&g.lock[dev]);
    return rc;
}

/* Row-major D = alpha*A@B + beta*C for 2-byte inputs through cublasGemmEx (column-major D^T = B^T A^T,
 * as smk_cublas_sgemm), fp32 compute.  cuBLAS updates its C in place, so when beta != 0 and C is not
 * D, C is first copied into D on the same stream (part of the call's cost).  cuBLAS status, -1 if
 * cuBLAS (or cublasGemmEx) is not loaded, -3 for arguments cuBLAS's int interface cannot take, or a
 * cudaError_t + 1000 if the copy fails. */
int smk_cublas_gemm16(const smk_gemm16_params *p, cudaStream_t stream)
{
    int rc, in_t, out_t, dev = 0;
    void *h = NULL;
    size_t osz;
    if (!g.ok || !g.gemmex)
        return -1;
    if (!p || (p->dtype != 0 && p->dtype != 1) || p->M < 0 || p->N < 0 || p->K < 0 || p->M > INT32_MAX ||
        p->N > INT32_MAX || p->K > INT32_MAX || p->lda > INT32_MAX || p->ldb > INT32_MAX || p->ldd > INT32_MAX)
        return -3;
    if (p->M == 0 || p->N == 0)
        return 0;
    in_t = p->dtype == 1 ? SMK_CUDA_R_16BF : SMK_CUDA_R_16F;
    out_t = p->out_f32 ? SMK_CUDA_R_32F : in_t;
    osz = p->out_f32 ? 4 : 2;
    if (p->beta != 0.f && p->C != p->D) {
        int e = (int)cudaMemcpy2DAsync(p->D, (size_t)p->ldd * osz, p->C, (size_t)p->ldc * osz, (size_t)p->N * osz,
                                       (size_t)p->M, cudaMemcpyDeviceToDevice, stream);
        if (e != 0)
            return 1000 + e;
    }
    if (!(h = device_handle(&dev, &rc)))
        return rc;
    rc = g.set_stream(h, stream);
    if (rc == 0)
        rc = g.gemmex(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)p->N, (int)p->M, (int)p->K, &p->alpha, p->B, in_t,
                      (int)(p->ldb > 0 ? p->ldb : 1), p->A, in_t, (int)(p->lda > 0 ? p->lda : 1), &p->beta, p->D, out_t,
                      (int)p->ldd, SMK_CUBLAS_COMPUTE_32F, SMK_CUBLAS_GEMM_DEFAULT);
    pthread_mutex_unlock(&g.lock[dev]);
    return rc;
}
