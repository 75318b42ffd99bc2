/*
 * gemm16_temp.c -- the device bytes smk_gemm16_launch borrows, from the shape alone (api/gemm16.h).
 *
 * Variant 0 feeds cp.async, which moves 16 aligned bytes, so an A or B whose rows do not start on 16
 * bytes (a base off 16 bytes, or a leading dimension that is not a multiple of 8 two-byte elements)
 * is first copied into a stream-ordered temporary whose rows are padded to a multiple of 8 elements
 * (gemm16.cu: pad_mask, launch_padded); the other variants read such rows in place through
 * registers.  Nothing is copied when A and B are not read (K == 0; the launcher also reads alpha == 0
 * as K == 0), when M or N is 0, or when both operands' rows are aligned (the kernel's 16-byte path
 * applies as they are).  C and D are never copied.
 *
 * The callers' size checks (rules.c, bench.c) ask here instead of building an smk_gemm16_params with
 * made-up pointers for smk_gemm16_temp_bytes (gemm16.cu), which answers the same for valid params.
 */
#include <stdint.h>

#include "api/gemm16.h"
#include "gemm16/matvec.h"

static int64_t pad8(int64_t n) { return (n + 7) & ~(int64_t)7; }

/* rows x (cols padded to 8) two-byte elements, saturating at SIZE_MAX. */
static size_t padded_bytes(int64_t rows, int64_t cols)
{
    const uint64_t r = (uint64_t)rows, w = 2 * (uint64_t)pad8(cols);
    return (w && r > SIZE_MAX / w) ? SIZE_MAX : (size_t)(r * w);
}

size_t smk_gemm16_temp_bytes_shape(int64_t M, int64_t N, int64_t K, int variant, int a_rows_aligned,
                                   int b_rows_aligned)
{
    size_t a = 0, b = 0;
    smk_mv_route r;
    if (variant == 0 && smk_mv_route_of(M, N, K, smk_gemm16_matvec_mode, &r)) /* gemm16/matvec.h */
        return r.ws_bytes > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)r.ws_bytes;
    if (M <= 0 || N <= 0 || K <= 0 || variant != 0 || (a_rows_aligned && b_rows_aligned))
        return 0;
    if (!a_rows_aligned)
        a = padded_bytes(M, K);
    if (!b_rows_aligned)
        b = padded_bytes(K, N);
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}
