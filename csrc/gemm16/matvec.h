/* The fp16 / bf16 GEMM's memory-bound path (variant 0): which shapes it takes and how it splits them.
 * Plain C (gemm16_temp.c counts its workspace) and C++ (gemm16_matvec.cu launches it,
 * gemm16_plan.cu names it); a pure function of (M, N, K, mode): no CUDA, no SM count, no alignment
 * (the kernels read A and B with 2-byte loads at any alignment, so alignment does not route).
 *
 * Two CUDA-core kernels, NO shared memory (explain() has no shared accesses to model for them):
 *   ROWS  lanes along N: each thread owns CPL columns c0 + lane + 32 j (j < CPL) and TM rows of D,
 *         streams B's K x N rows (every warp load 64 contiguous bytes), reads A[m][k] as warp-uniform
 *         broadcast loads; for M <= 32 (B is the stream) and for K <= 16 at any M (D is the stream:
 *         writing it is the whole cost; TM = 8 rows per thread).
 *   COLS  lanes along K: a warp holds a 32 J-long k-chunk of B (J x NPAD values in registers) and
 *         streams rows of A (64 contiguous bytes per load), reducing each row's NPAD dot products
 *         with a shuffle butterfly; for N <= 8 with M >= N (A is the stream).
 * Either splits K into S slices when its own warps would not fill the GPU (kMvTargetWarps, sized for
 * H100-class parts: 132 SMs x 32 warps); S > 1 writes fp32 partials to a workspace [S][M][N] that one
 * reduce kernel sums in a fixed order (deterministic), applying alpha, beta * C and the output
 * rounding; S == 1 applies them in the kernel.
 *
 * mode (smk_gemm16_set_matvec): 0 off (variant 0 as before: tiles, padded copies), 1 automatic (the
 * default), 2 force ROWS, 3 force COLS on every variant-0 shape (tests: both kernels take any shape). */
#ifndef SMK_GEMM16_MATVEC_H
#define SMK_GEMM16_MATVEC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The mode (smemkit._testing.knobs(gemm16_matvec=...)): 0 off, 1 automatic (default), 2 force ROWS,
 * 3 force COLS; smk_gemm16_set_matvec returns -1 for anything else.  Process-wide, read at launch
 * and by smk_gemm16_temp_bytes(_shape). */
extern volatile int smk_gemm16_matvec_mode;
int smk_gemm16_set_matvec(int mode);

enum { SMK_MV_NONE = 0, SMK_MV_ROWS = 1, SMK_MV_COLS = 2 };

typedef struct {
    int kind;          /* SMK_MV_* */
    int tm, cpl;       /* ROWS: rows per thread (1, 2, 4, 8, 16, 32), columns per lane (4 or 8) */
    int npad;          /* COLS: columns per warp (1, 2, 4, 8); J = 64 / npad k values per lane */
    int64_t kc;        /* k values per slice */
    int64_t splits;    /* S, the K slices (1: no workspace) */
    int64_t rpw;       /* COLS: rows per warp */
    int64_t grid[3];   /* blocks of 128 threads (4 warps) */
    uint64_t ws_bytes; /* the fp32 workspace, S * M * N * 4 when S > 1, else 0 */
} smk_mv_route;

#define SMK_MV_TARGET_WARPS 4096 /* warps that keep an H100's DRAM busy (132 SMs x ~32) */
#define SMK_MV_MAX_SPLITS 1024

static inline int64_t smk_mv_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static inline int smk_mv_pow2(int64_t n, int cap)
{
    int p = 1;
    while (p < n && p < cap)
        p *= 2;
    return p;
}

/* ROWS geometry for M x N x K: 0, or -1 when the grid does not fit. */
static inline int smk_mv_rows(int64_t M, int64_t N, int64_t K, smk_mv_route *r)
{
    r->kind = SMK_MV_ROWS;
    r->tm = K <= 16 && M > 32 ? 8 : smk_mv_pow2(M, 32);
    r->cpl = r->tm >= 32 ? 4 : 8;
    const int64_t wcols = 32 * (int64_t)r->cpl, rg = smk_mv_cdiv(M, r->tm), cg = smk_mv_cdiv(N, 4 * wcols);
    const int64_t warps = rg * smk_mv_cdiv(N, wcols);
    int64_t s = smk_mv_cdiv(SMK_MV_TARGET_WARPS, warps);
    const int64_t by_k = K / 64, by_ws = K / (4 * M); /* slices of >= 64 k; partials <= half of B's bytes */
    if (s > by_k) s = by_k;
    if (s > by_ws) s = by_ws;
    if (s > SMK_MV_MAX_SPLITS) s = SMK_MV_MAX_SPLITS;
    if (s < 1) s = 1;
    r->kc = (smk_mv_cdiv(K, s) + 7) / 8 * 8;
    r->splits = smk_mv_cdiv(K, r->kc);
    r->grid[0] = rg * cg, r->grid[1] = 1, r->grid[2] = r->splits;
    return r->grid[0] > 0x7fffffffLL ? -1 : 0;
}

/* COLS geometry: 0, or -1 when the grid does not fit. */
static inline int smk_mv_cols(int64_t M, int64_t N, int64_t K, smk_mv_route *r)
{
    r->kind = SMK_MV_COLS;
    r->npad = smk_mv_pow2(N, 8);
    r->kc = 32 * (64 / r->npad);
    r->splits = smk_mv_cdiv(K, r->kc);
    const int64_t cg = smk_mv_cdiv(N, r->npad), per = M * r->splits * cg; /* warp-rows */
    r->rpw = per > 4 * SMK_MV_TARGET_WARPS ? smk_mv_cdiv(per, 4 * SMK_MV_TARGET_WARPS) : 1;
    r->grid[0] = smk_mv_cdiv(smk_mv_cdiv(M, r->rpw), 4), r->grid[1] = r->splits, r->grid[2] = cg;
    return r->grid[0] > 0x7fffffffLL || r->grid[1] > 65535 || r->grid[2] > 65535 ? -1 : 0;
}

/* The route of a variant-0 M x N x K call (after the BLAS normalisation: K == 0 means A and B are not
 * read) under `mode`: 1 and *r filled when the memory-bound path takes it, else 0. */
static inline int smk_mv_route_of(int64_t M, int64_t N, int64_t K, int mode, smk_mv_route *r)
{
    smk_mv_route z = {0};
    *r = z;
    if (mode <= 0 || M <= 0 || N <= 0 || K <= 0)
        return 0;
    int rc;
    if (mode == 2)
        rc = smk_mv_rows(M, N, K, r);
    else if (mode == 3)
        rc = smk_mv_cols(M, N, K, r);
    else if (N <= 8 && M >= N)
        rc = smk_mv_cols(M, N, K, r);
    else if (M <= 32 || K <= 16)
        rc = smk_mv_rows(M, N, K, r);
    else
        return 0;
    if (rc != 0) {
        *r = z;
        return 0;
    }
    r->ws_bytes = r->splits > 1 ? (uint64_t)r->splits * (uint64_t)M * (uint64_t)N * 4u : 0;
    return 1;
}

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
#include "api/gemm16.h"
namespace smk {
namespace g16 {
/* gemm16_matvec.cu: whether variant-0 params q (after prepare) take the path (*r its geometry), and
 * the launch (workspace, kernel, reduce) on `stream`. */
bool mv_route(const smk_gemm16_params &q, smk_mv_route *r);
int mv_launch(const smk_gemm16_params &q, const smk_mv_route &r, int sms, cudaStream_t stream);
} /* namespace g16 */
} /* namespace smk */
#endif

#endif /* SMK_GEMM16_MATVEC_H */
