/* Variant 0's padded temporaries for unaligned rows.
 *
 * cp.async moves 16 aligned bytes, so a row that does not start on 16 bytes (a base off 16 bytes or a
 * leading dimension that is not a multiple of 8 elements: 4097x4095x4093, a slice x[:, 1:]) cannot
 * feed it.  Variant 0 copies such an operand, on the caller's stream, into a stream-ordered temporary
 * whose rows are padded to a multiple of 8 elements, runs the aligned kernel on it, and frees the
 * temporary behind the kernel, when smk_gemm16_choose (gemm16_choose.c) finds the copies cheaper than
 * the register-staged path in place (the two compared: docs/GEMM16_NOTES.md, "Unaligned rows: padded
 * copies (variant 0)"); variants 1..9 always read in place.  C and D are read and written by the
 * epilogue from registers (pairs where aligned, else single elements) and are never copied.
 * smk_gemm16_temp_bytes() is the bytes, for the callers' size checks. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "common/launch.h"
#include "dispatch.h"
#include "api/gemm16.h"
#include "runtime.h"
#include "unaligned.cuh"

namespace smk {
namespace g16 {

static int64_t pad8(int64_t n) { return (n + 7) & ~(int64_t)7; }

int pad_mask(const smk_gemm16_params &q, bool vec)
{
    if (vec)
        return 0;
    return (rows_aligned(q.A, q.lda) ? 0 : 1) | (rows_aligned(q.B, q.ldb) ? 0 : 2);
}

static size_t mul_sat(int64_t a, int64_t b)
{
    const uint64_t x = (uint64_t)a, y = (uint64_t)b;
    return (a < 0 || b < 0 || (y && x > SIZE_MAX / y)) ? SIZE_MAX : (size_t)(x * y);
}
/* dst (rows x dpitch, 16-byte aligned, dpitch a multiple of 8) <- src (rows x cols, row pitch
 * spitch elements, any 2-byte alignment); columns cols..dpitch-1 become zeros.  One thread per
 * 16-byte destination chunk: a chunk whose two surrounding aligned 16-byte source blocks lie inside
 * its source row is read as those blocks and funnel-shifted; a row's ragged ends are read as single
 * elements.  (So nothing outside the rows is ever read.) */
__global__ void __launch_bounds__(256) pad_rows_kernel(const unsigned short *__restrict__ src, int64_t spitch,
                                                       unsigned short *__restrict__ dst, int64_t dpitch, int64_t rows,
                                                       int64_t cols)
{
    const int64_t cpr = dpitch / 8, total = rows * cpr;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = i / cpr, c0 = (i - r * cpr) * 8;
        const unsigned short *row = src + r * spitch, *p = row + c0;
        const int64_t left = cols - c0;
        const int valid = left <= 0 ? 0 : left >= 8 ? 8 : (int)left;
        const uintptr_t a = (uintptr_t)p, sh = a & 15, lo = a - sh;
        const bool fast = valid == 8 && lo >= (uintptr_t)row && lo + (sh ? 32 : 16) <= (uintptr_t)(row + cols);
        const uint4 v = load8(p, valid, fast);
        *(uint4 *)(dst + r * dpitch + c0) = v;
    }
}

static int pad_copy(const void *src, int64_t spitch, void *dst, int64_t dpitch, int64_t rows, int64_t cols,
                    cudaStream_t stream)
{
    const int64_t chunks = rows * (dpitch / 8);
    if (chunks <= 0)
        return (int)cudaSuccess;
    int sms = 0;
    const int e = device_facts(&sms, NULL);
    if (e)
        return e;
    const int64_t cap = (int64_t)sms * 8, want = (chunks + 255) / 256; /* grid-stride past 8 blocks per SM */
    pad_rows_kernel<<<(unsigned)(want < cap ? want : cap), 256, 0, stream>>>(
        (const unsigned short *)src, spitch, (unsigned short *)dst, dpitch, rows, cols);
    return (int)cudaGetLastError();
}

/* A and / or B (mask) copied on `stream` into padded stream-ordered temporaries (tmp[0] for A, tmp[1]
 * for B, NULL where not copied), q pointed at them; the caller launches on q, then free_padded(tmp)
 * on `stream` whatever happened (stream-ordered: after the kernel that reads them). */
int pad_operands(smk_gemm16_params *q, int mask, void *tmp[2], cudaStream_t stream)
{
    int e = (int)cudaSuccess;
    for (int i = 0; i < 2 && e == (int)cudaSuccess; i++) {
        if (!(mask & (1 << i)))
            continue;
        const int64_t rows = i ? q->K : q->M, cols = i ? q->N : q->K, ld = pad8(cols);
        const smk_status s = smk_rt_alloc_on(&tmp[i], mul_sat(rows, 2 * ld), stream);
        if (s.code != SMK_OK) {
            e = s.cuda ? s.cuda : (int)cudaErrorMemoryAllocation;
            break;
        }
        e = pad_copy(i ? q->B : q->A, i ? q->ldb : q->lda, tmp[i], ld, rows, cols, stream);
        if (i)
            q->B = tmp[i], q->ldb = ld;
        else
            q->A = tmp[i], q->lda = ld;
    }
    return e;
}

void free_padded(void *tmp[2], cudaStream_t stream)
{
    smk_rt_free_on(tmp[0], stream);
    smk_rt_free_on(tmp[1], stream);
}

} /* namespace g16 */
} /* namespace smk */
