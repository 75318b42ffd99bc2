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
        for (long long *buf : bufs) {
            if (!buf)
                continue;
            for (int n = cnt - 1; n >= 0; n--)
                for (int i = r - 1; i >= 0; i--)
                    for (int lane = 31; lane >= 0; lane--) {
                        const long long v = buf[(long long)n * 32 + lane];
                        const int o = ((i + (lane >> 3)) & (r - 1)) * w; /* load_narrow.cuh piece_off */
                        buf[((long long)n * r + i) * 32 + lane] = v < 0 ? -1 : v + o;
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
