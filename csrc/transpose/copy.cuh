/*
 * transpose/copy.cuh -- the copy route (configs.h's copy_fits, knob transpose_copy): a batch of 1 x n or n x 1
 * matrices whose elements are contiguous along n is transposed by copying its bytes.  One run of bytes (a
 * single matrix, or a batch whose matrices follow each other) moves through copy_kernel: 16-byte words where
 * the two bases agree modulo 16, the unaligned head and tail byte by byte; any other case through the copy
 * engine (cudaMemcpyAsync / cudaMemcpy2DAsync for a batch stride wider than a matrix).  No shared memory,
 * so the three layouts run the same code and explain() shows no access.
 */
#ifndef SMK_TRANSPOSE_COPY_CUH
#define SMK_TRANSPOSE_COPY_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "api/transpose.h"
#include "transpose/configs.h"

namespace {

/* How a copy-route call moves: 0 not at all here (the kernels' route), 1 copy_kernel over `bytes` from the
 * pointers' common 16-byte phase, 2 cudaMemcpyAsync of `bytes`, 3 cudaMemcpy2DAsync (a batch stride of `pitch`
 * bytes, `bytes` per matrix, `height` matrices).  Pure in the params (pointers included). */
struct CopyPlan {
    int how;
    int64_t bytes, pitch, height;
};

inline CopyPlan copy_plan(const smk_transpose_params *p, int64_t batch)
{
    const int64_t n = p->rows * p->cols, run = n * p->esz;
    CopyPlan c = {0, 0, 0, 0};
    if (batch == 1 || p->in_bs == n) {
        const uintptr_t phase = ((uintptr_t)p->in ^ (uintptr_t)p->out) & 15;
        c.how = phase == 0 ? 1 : 2;
        c.bytes = run * batch;
    } else if (p->in_bs > n && p->in_bs <= INT32_MAX / p->esz) {
        c.how = 3;
        c.bytes = run;
        c.pitch = p->in_bs * p->esz;
        c.height = batch;
    }
    return c;
}

/* Moves `words` 16-byte words from in to out (both 16-byte aligned), kCopyWords a thread, and block 0 also the
 * `head` bytes before them and the `tail` bytes after them. */
__global__ void __launch_bounds__(kCopyThreads) copy_kernel(const unsigned char *__restrict__ in,
                                                            unsigned char *__restrict__ out, int64_t head,
                                                            int64_t words, int64_t tail)
{
    const uint4 *src = reinterpret_cast<const uint4 *>(in + head);
    uint4 *dst = reinterpret_cast<uint4 *>(out + head);
    const int64_t w0 = ((int64_t)blockIdx.x * kCopyWords) * kCopyThreads + threadIdx.x;
    uint4 v[kCopyWords];
#pragma unroll
    for (int i = 0; i < kCopyWords; i++) {
        const int64_t w = w0 + (int64_t)i * kCopyThreads;
        if (w < words)
            v[i] = src[w];
    }
#pragma unroll
    for (int i = 0; i < kCopyWords; i++) {
        const int64_t w = w0 + (int64_t)i * kCopyThreads;
        if (w < words)
            dst[w] = v[i];
    }
    if (blockIdx.x == 0 && threadIdx.x < 32) {
        const int64_t end = head + words * 16;
        for (int64_t b = threadIdx.x; b < head; b += 32)
            out[b] = in[b];
        for (int64_t b = threadIdx.x; b < tail; b += 32)
            out[end + b] = in[end + b];
    }
}

/* Enqueues the copy of `c` (how != 0) on `stream`. */
inline cudaError_t launch_copy(const smk_transpose_params *p, const CopyPlan &c, cudaStream_t stream)
{
    if (c.how == 2)
        return cudaMemcpyAsync(p->out, p->in, (size_t)c.bytes, cudaMemcpyDeviceToDevice, stream);
    if (c.how == 3)
        return cudaMemcpy2DAsync(p->out, (size_t)c.bytes, p->in, (size_t)c.pitch, (size_t)c.bytes, (size_t)c.height,
                                 cudaMemcpyDeviceToDevice, stream);
    const int64_t mis = (int64_t)((uintptr_t)p->in & 15);
    const int64_t head = mis == 0 ? 0 : (16 - mis < c.bytes ? 16 - mis : c.bytes);
    const int64_t words = (c.bytes - head) / 16, tail = c.bytes - head - words * 16;
    const int64_t blocks = copy_blocks(words * 16);
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    copy_kernel<<<(unsigned)blocks, kCopyThreads, 0, stream>>>(static_cast<const unsigned char *>(p->in),
                                                               static_cast<unsigned char *>(p->out), head, words, tail);
    return cudaGetLastError();
}

} // namespace

#endif /* SMK_TRANSPOSE_COPY_CUH */
