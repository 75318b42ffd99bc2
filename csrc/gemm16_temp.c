/*
 * gemm16_temp.c -- the device bytes smk_gemm16_launch borrows, from the shape alone (api/gemm16.h).
 *
 * Variant 0 runs what smk_gemm16_choose (gemm16_choose.c) says: an A or B whose rows do not start on
 * 16 bytes (a base off 16 bytes, or a leading dimension that is not a multiple of 8 two-byte elements)
 * is either copied into a stream-ordered temporary whose rows are padded to a multiple of 8 elements
 * or read in place, and a split K adds the fp32 workspace of its partial tiles: both depend on the SM
 * count (sms <= 0: 132, an H100's).  The variant before #28 (the last number) copies every unaligned
 * operand and never splits; the other variants read such rows in place through registers.  Nothing is
 * borrowed when A and B are not read (K == 0; the launcher also reads alpha == 0 as K == 0) or when M
 * or N is 0.  C and D are never copied.  The gemm16_kernel knob's levels 3 and 4 add the wgmma kernel's
 * padded copies (smk_gemm16_wgmma_temp_bytes below: the larger of the two routes is answered).
 *
 * The callers' size checks (rules.c, bench.c) ask here instead of building an smk_gemm16_params with
 * made-up pointers for smk_gemm16_temp_bytes (gemm16.cu), which answers the same for valid params.
 */
#include <stdint.h>

#include "api/gemm16.h"
#include "api/wgmma.h"
#include "gemm16/matvec.h"
#include "layout.h"

/* Under the gemm16_kernel knob's levels 3 and 4 the wgmma kernel reads padded copies of the unaligned
 * operands (gemm16_launch.cu wgmma_padded) where smk_gemm16_kernel_for_ab takes the shape.  The call's
 * layout and device are not known here: the rule is asked for layout "swizzle" on a 9.0 device of `sms`
 * SMs, and the callers take the larger of this and the mma.sync route's bytes (an upper bound where
 * mma.sync runs after all). */
size_t smk_gemm16_wgmma_temp_bytes(int64_t M, int64_t N, int64_t K, int variant, int a_rows_aligned,
                                   int b_rows_aligned, int sms)
{
    smk_gemm16_choice ch;
    const int knob = smk_gemm16_kernel();
    if (knob < 3 || (a_rows_aligned && b_rows_aligned) || M <= 0 || N <= 0 || K <= 0 ||
        !smk_gemm16_kernel_for_ab(knob, variant, M, N, K, SMK_SWIZZLE, 0, 0, 0, a_rows_aligned, b_rows_aligned, 9, 0,
                                  sms > 0 ? sms : 132))
        return 0;
    ch.splits = 1;
    ch.pad_a = !a_rows_aligned;
    ch.pad_b = !b_rows_aligned;
    return smk_gemm16_choice_bytes(M, N, K, &ch, NULL, NULL);
}

/* The mma.sync route's bytes (the memory-bound path's workspace, or the chooser's copies and split). */
static size_t mma_bytes(int64_t M, int64_t N, int64_t K, int variant, int a_rows_aligned, int b_rows_aligned,
                        int sms)
{
    smk_gemm16_choice ch;
    smk_mv_route r;
    if (variant == 0 && smk_mv_route_epi(M, N, K, smk_gemm16_matvec_mode, smk_gemm16_mv_kmax, smk_gemm16_mv_skinny,
                                         smk_gemm16_epi, &r)) /* gemm16/matvec.h; a 2-byte D, beta == 0 */
        return r.ws_bytes > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)r.ws_bytes;
    if (M <= 0 || N <= 0 || K <= 0)
        return 0;
    if (variant == SMK_GEMM16_VARIANT_PRE28) { /* before #28: every unaligned operand copied, no split */
        ch.splits = 1;
        ch.pad_a = !a_rows_aligned;
        ch.pad_b = !b_rows_aligned;
    } else if (variant == 0) {
        smk_gemm16_choose(M, N, K, sms > 0 ? sms : 132, a_rows_aligned, b_rows_aligned, &ch);
        smk_gemm16_staged_unsplit(smk_gemm16_staged, M, N, K, (!a_rows_aligned && !ch.pad_a) || (!b_rows_aligned && !ch.pad_b),
                                  sms > 0 ? sms : 132, &ch); /* knob gemm16_staged 2: no workspace */
    } else {
        return 0;
    }
    return smk_gemm16_choice_bytes(M, N, K, &ch, NULL, NULL);
}

size_t smk_gemm16_temp_bytes_shape(int64_t M, int64_t N, int64_t K, int variant, int a_rows_aligned,
                                   int b_rows_aligned, int sms)
{
    const size_t m = mma_bytes(M, N, K, variant, a_rows_aligned, b_rows_aligned, sms);
    const size_t w = smk_gemm16_wgmma_temp_bytes(M, N, K, variant, a_rows_aligned, b_rows_aligned, sms);
    return m > w ? m : w;
}
