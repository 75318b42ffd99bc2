/*
 * api/plan.h -- the shape of a kernel's shared-memory access plan: what smk_<kernel>_plan() (CPU)
 * fills for explain() and the bank model.  Each kernel family's header declares its own plan function.
 */
#ifndef SMK_API_PLAN_H
#define SMK_API_PLAN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- shared-memory access plans (CPU) -------------------------------------------------------
 * The shared-memory instructions one block of a kernel issues, replayed on the host by the kernel's
 * own index code (its thread map and smk_tile_offset), for the bank model.  Every block of a launch
 * issues the same pattern, so a launch is the block pattern times `repeats`.
 * Call once with every acc[i].addr == NULL to learn n and each n_instr; then point acc[i].addr at
 * n_instr * 32 long longs and call again to get the byte offsets (lane-major per instruction). */
#define SMK_PLAN_MAX 32
/* What instruction an smk_access is (bank_model.h's SMK_BANK_KIND_* use the same numbers):
 * LDS/STS, ldmatrix with 1 / 2 / 4 matrices (the lanes give the 16-byte row addresses), or the
 * shared-memory side of a 16-byte cp.async. */
enum { SMK_ACC_LDST = 0, SMK_ACC_LDSM_X1 = 1, SMK_ACC_LDSM_X2 = 2, SMK_ACC_LDSM_X4 = 3, SMK_ACC_CPASYNC = 4,
       SMK_ACC_CPASYNC_ZFILL = 5 /* cp.async with a src-size operand (LDGSTS.ZFILL) */ };

typedef struct {
    const char *name;  /* e.g. "tile row store" */
    int width;         /* bytes per lane: 4, 8, 16 */
    int is_store;
    int kind;          /* SMK_ACC_*: 0 (LDS/STS) unless the kernel says otherwise */
    int n_instr;       /* warp instructions in one block per repeat */
    long long repeats; /* per launch: blocks (SGEMM: the k-tiles of every block of every K slice) */
    long long *addr;   /* NULL, or n_instr * 32 byte offsets to fill (-1: the lane does not access) */
    long long *gaddr;  /* cp.async only: NULL, or n_instr * 32 global byte offsets of the lanes' 16-byte
                        * sources, relative to a 128-byte-aligned origin (-1 where addr is -1) */
} smk_access;

typedef struct {
    int n;                 /* accesses */
    smk_access acc[SMK_PLAN_MAX];
    char config[96];       /* the kernel configuration, in words */
    long long blocks;      /* blocks per launch */
    int threads;           /* threads per block */
    int smem_bytes;        /* shared memory per block */
} smk_plan;

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_PLAN_H */
