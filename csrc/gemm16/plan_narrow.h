/* explain() for the narrow cp.async kernel (load_narrow.cuh, knob gemm16_narrow_async): the cp.async
 * kernel's plan (gemm16_plan.cu, the same fill classes, fragments and prefetch; the rows at their own
 * pitch, K and N) with each copy of an operand whose rows are W-byte aligned (W = 4, 8) split into the
 * 16 / W instructions the kernel issues: a lane's piece i at the chunk's shared and global offsets +
 * ((i + lane / 8) % (16 / W)) * W (load_narrow.cuh piece_off).  They stay cp.async (kind and form kept,
 * width W): ncu counts a 4- / 8-byte cp.async as LDGSTS (smsp__sass_inst_executed_op_ldgsts, its
 * wavefronts in ..._op_ldgsts; docs/GEMM16_NOTES.md, "Session 45"), costed by bank_model.c's LDGSTS
 * rule from both sides.  Included by gemm16_plan.cu alone. */
#ifndef SMK_GEMM16_PLAN_NARROW_H
#define SMK_GEMM16_PLAN_NARROW_H

#include <stdio.h>
#include <string.h>

#include "api/plan.h"

namespace smk {
namespace g16 {

/* The widest cp.async a dense row of `cols` 2-byte elements from a 16-byte-aligned allocation allows. */
inline int dense_width(int64_t cols) { return cols % 8 == 0 ? 16 : cols % 4 == 0 ? 8 : cols % 2 == 0 ? 4 : 2; }

/* A narrow access's name: the cp.async class's with the width said (static storage, one per class
 * name and width; the plan's names are static strings, so their addresses are the keys). */
inline const char *narrow_name(const char *name, int w)
{
    static const char *keys[2 * SMK_PLAN_MAX];
    static char names[2 * SMK_PLAN_MAX][128];
    int i = 0;
    for (; i < 2 * SMK_PLAN_MAX && keys[i]; i++)
        if (keys[i] == name && names[i][0] == (w == 8 ? '8' : '4'))
            return names[i] + 1;
    if (i == 2 * SMK_PLAN_MAX)
        return name;
    keys[i] = name;
    snprintf(names[i], sizeof names[i], "%c%s [cp.async.ca %d B x%d]", w == 8 ? '8' : '4', name, w, 16 / w);
    return names[i] + 1;
}

/* A cp.async source whose 16-byte chunk holds only `bytes` (0..15) bytes of the row (the rest past K or N):
 * the offset with the length in bits 56..60 (offsets stay below 2^56), so that the narrow split below can
 * give the pieces past it src-size 0 (load_narrow.cuh chunk_part: source -1 for the bank model); every
 * mark is stripped before the plan leaves smk_gemm16_plan (strip_partial_marks). */
inline long long partial_mark(long long g, int bytes) { return g | ((long long)(bytes + 1) << 56); }
inline int partial_bytes(long long v) { return v < 0 || !(v >> 56) ? 16 : (int)(v >> 56) - 1; }
inline long long partial_off(long long v) { return v < 0 ? v : v & ((1LL << 56) - 1); }

/* The marks of partial_mark off every cp.async source of plan (the 16-byte copies read the chunk's bytes
 * in range: their source is the chunk's offset; a chunk with none in range is not issued). */
inline void strip_partial_marks(smk_plan *plan)
{
    for (int a = 0; a < plan->n; a++) {
        smk_access *acc = &plan->acc[a];
        if (!acc->gaddr)
            continue;
        for (long long i = 0; i < (long long)acc->n_instr * 32; i++)
            acc->gaddr[i] = partial_off(acc->gaddr[i]);
    }
}

/* Each A (B) cp.async access of plan split into W = wa (wb) byte pieces, where that width is 4 or 8;
 * addresses (when given) expanded in place, from the back: instruction n's copy i becomes instruction
 * n * (16 / W) + i (the buffers hold n_instr * 32 entries of the expanded count).  threadIdx.x >> 3 of
 * piece_off is lane >> 3 here: warps are 32 threads, so the rotation (mod 16 / W <= 4) is the lane's. */
inline void narrow_accesses(smk_plan *plan, int wa, int wb)
{
    for (int a = 0; a < plan->n; a++) {
        smk_access *acc = &plan->acc[a];
        if ((acc->kind != SMK_ACC_CPASYNC && acc->kind != SMK_ACC_CPASYNC_ZFILL) || acc->width != 16)
            continue; /* not a copy, or already split */
        const int w = strncmp(acc->name, "A-tile", 6) == 0 ? wa : wb;
        if (w != 4 && w != 8)
            continue;
        const int r = 16 / w, cnt = acc->n_instr;
        long long *const bufs[2] = {acc->addr, acc->gaddr};
        for (int b = 0; b < 2; b++) {
            long long *const buf = bufs[b];
            if (!buf)
                continue;
            for (int n = cnt - 1; n >= 0; n--)
                for (int i = r - 1; i >= 0; i--)
                    for (int lane = 31; lane >= 0; lane--) {
                        const long long v = buf[(long long)n * 32 + lane];
                        const int o = ((i + (lane >> 3)) & (r - 1)) * w; /* load_narrow.cuh piece_off */
                        long long out = v < 0 ? -1 : v + o;
                        if (b == 1 && v >= 0) /* the source: -1 (src-size 0) for a piece past the row */
                            out = o >= partial_bytes(v) ? -1 : partial_off(v) + o;
                        buf[((long long)n * r + i) * 32 + lane] = out;
                    }
        }
        acc->name = narrow_name(acc->name, w);
        acc->width = w; /* the kind (cp.async / cp.async.zfill) stays: LDGSTS of W bytes */
        acc->n_instr = cnt * r;
    }
}

} /* namespace g16 */
} /* namespace smk */

#endif
