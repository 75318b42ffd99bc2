/* The fp16 / bf16 GEMM's memory-bound path (variant 0): which shapes it takes and how it splits them.
 * Plain C (gemm16_temp.c counts its workspace) and C++ (gemm16_matvec.cu launches it,
 * gemm16_plan.cu names it); a pure function of (M, N, K, mode): no CUDA, no SM count, no alignment
 * (the kernels stream A or B with 16-byte loads at any row offset, so alignment does not route).
 *
 * Three CUDA-core kernels, NO shared memory (explain() has no shared accesses to model for them):
 *   ROWS  M <= 8 (B is the stream, K x N): lane l < 31 of a warp owns 8 consecutive columns
 *         c0 + 8 l .. + 7 of TM = min(M, 8) rows; each B row is read as one aligned 16-byte chunk per
 *         lane funnel-shifted with its neighbour's (matvec.cuh); A's TM x 32 k group is one 2-byte
 *         load per lane per row, broadcast by shuffles.
 *   COLS  N <= 8 with M >= N (A is the stream, M x K): lane l < 31 holds B[k0 + 8 l + e][c] (e < 8,
 *         c < NPAD) in registers for a 248-long K slice and streams A rows as aligned 16-byte chunks
 *         (funnel-shifted likewise), 2 x R rows in flight, one reduce-scatter of shuffles per row.
 *   TINYK K <= 16 with M, N > 8 (D is the stream): the 2-byte kernel, TM = 8 rows x 8 x 32 columns
 *         (the routing before the MMA kernel: kmax == 0).
 *   MMA   K <= kmax (default 32) with M, N > 8 where smk_mv_mma_takes (level bit 8: or smk_mv_chunks_takes)
 *         says (D is the stream): tensor
 *         cores fed from registers, no shared memory.  A warp keeps B's K x 8 NT fragment panel in
 *         registers (2-byte loads, once) and walks RPW m-tiles of 16 rows: A's fragments straight from
 *         global memory (4-byte pairs where A's rows allow), KS mma.sync m16n8k16 per n-tile, the
 *         accumulators stored as the tile kernel's epilogue does (4-byte pairs where D / C allow).
 * ROWS splits K into slices of >= 32 k so that its warps reach kMvTargetWarps (4 x 132 SMs x 16),
 * bounded by the workspace (partials at most a quarter of B's bytes); with kmax > 0, where B is at
 * most 8 MiB (a call that latency, not bytes, bounds) the slices go down to 16 k without the
 * workspace bound (partials at most M / 4 of B's bytes).  COLS always slices K by 248
 * (partials N / 124 of A's bytes).  S > 1 writes fp32 partials to a workspace [S][M][N] that one
 * reduce kernel sums in a fixed order (deterministic), applying alpha, beta * C and the output
 * rounding; S == 1 applies them in the kernel.
 *
 * mode (smk_gemm16_set_matvec): 0 off (variant 0 as before: tiles, padded copies), 1 automatic (the
 * default), 2 force ROWS, 3 force COLS on every variant-0 shape (tests: both kernels take any shape),
 * 4 force MMA on every variant-0 shape with K <= 128, 5 force SKINNY on every one with N <= 32, 6 force
 * SKINNY_M on every one with M <= 32, 7 force TALL on every one with N <= 8, 8 MROW on every M <= 8 (others: automatic).  kmax
 * (smk_gemm16_set_mv_kmax, 0 or 16 .. 128): the MMA kernel's K bound under mode 1; 0 = the routing
 * before it (TINYK, ROWS slices of >= 32 k within the workspace bound). */
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
/* The MMA kernel's K bound (smemkit._testing.knobs(gemm16_mv_kmax=...)): 0, or 16 .. 128 (default
 * SMK_MV_KMAX_DEFAULT); -1 for anything else. */
extern volatile int smk_gemm16_mv_kmax;
int smk_gemm16_set_mv_kmax(int kmax);
/* The MMA kernel's 16-byte stores (knobs(gemm16_mv_v16=...)): 1 (default) where D allows them, 0 never. */
extern volatile int smk_gemm16_mv_v16;
int smk_gemm16_set_mv_v16(int on);

/* SKINNY (knobs(gemm16_mv_skinny=...)): bits, 0 (default) off; 1 the SKINNY kernel for 9 <= N <= 32,
 * M > 8, K > 16 where the MMA kernel does not take the shape (the tiles took them); 2 SKINNY for N <= 8
 * with M > 8, K > 16 (COLS took them); 4 SKINNY_M for 9 <= M <= 32, N > 32, K > 16 (the tiles); 8
 * SKINNY's B fragments as 4-byte loads transposed by movmatrix where B's rows start on 4 bytes (no
 * routing change); 16 TALL for N <= 8, M >= 1024, K > 16 (matvec_tall.h: 16-row warps, a 4-group ring, K slices
 * summed in-block; before SKINNY); 32 TALL's y chunks by quad shuffles, 6 groups in flight (no routing change);
 * 64 TALL only where M >= 4096 and 40 < K <= 768 (matvec_tall.h bit 6); 0 .. 127, -1 for anything else (smk_mv_skinny_takes, smk_mv_skinny_m_takes). */
extern volatile int smk_gemm16_mv_skinny;
int smk_gemm16_set_mv_skinny(int level);

/* Levels of the memory-bound path's newer mechanisms (knobs(gemm16_mv_level=...)): bits, 7 the default, 0 none;
 * 1 ROWS as smk_mv_rows_fused (8-warp blocks summing their K slices in-kernel: one launch where that is
 * enough, else 8x fewer fp32 partials for the reduce); 2 TINYK's block width by N (smk_mv_tinyk: CPL
 * columns per lane from N, not always 8); 4 the small-call latency rules (session 40, smk_mv_route_of):
 * COLS's shapes with K <= kmax to the MMA kernel, SKINNY on a small A in 8-warp blocks that sum their K
 * slices in-kernel (smk_mv_skinny_fused), and the 8-warp blocks' sums spread over their warps (one L2
 * round after the barrier, not 7); 8 (with 4; alone it changes nothing) the 8-warp SKINNY only where
 * smk_mv_skinny_fused_pays, else the 4-warp SKINNY as at level 3 (15 = 7 + it); 16 (with 1) ROWS' short slices
 * in thread-block clusters summing in-kernel (smk_mv_rows_cluster, sm_90; elsewhere the launcher routes without
 * it; 23 = 7 + it); 32 (with 1) the fused ROWS' G rounded down to one wave of resident blocks
 * (smk_mv_rows_fused_at; 55 = 23 + it, 39 = 7 + it); 64 ROWS' narrow outputs (M <= 8, N <= 124, K > 16) to
 * SKINNY_M (smk_mv_narrow_takes; 71 = 7 + it, 119 = 55 + it); 128 TINYK as TINYK16 (smk_mv_tinyk: D in aligned
 * 16-byte row chunks where D is 2-byte and C is not read; 191 = 63 + it); 256 the MMA kernel's D as aligned 16-byte row
 * chunks at any ldd / offset (r.chunks, K <= 32, 4 n-tiles) and TINYK's shapes to the MMA kernel (smk_mv_chunks_takes;
 * 319 = 63 + it); 512 / 1024 M <= 8 calls to MROW (matvec_mrow.h; 831 = 319 + 512, 1855).  1855 the default since session 45 (319 before); 0 .. 2047. */
extern volatile int smk_gemm16_mv_level;
int smk_gemm16_set_mv_level(int level);
/* The level every route of this process reads (launch, workspace queries, explain): the knob, less bit 16 where
 * the current device is older than sm_90 (no clusters there).  Without a device (the build machine) the knob as
 * set: explain() and the size queries then describe an sm_90 launch.  gemm16_matvec.cu. */
int smk_gemm16_mv_level_here(void);

enum { SMK_MV_NONE = 0, SMK_MV_ROWS = 1, SMK_MV_COLS = 2, SMK_MV_TINYK = 3, SMK_MV_MMA = 4, SMK_MV_SKINNY = 5,
       SMK_MV_SKINNY_M = 6, SMK_MV_TALL = 7, SMK_MV_MROW = 8 };

typedef struct {
    int kind;          /* SMK_MV_* */
    int tm;            /* ROWS, TINYK: rows per thread (ROWS 1 .. 8; TINYK 8); MMA: KS, k steps of 16 (1, 2, 4, 8) */
    int npad;          /* COLS: columns per warp (1, 2, 4, 8); MMA, SKINNY: NT, n-tiles of 8 per warp; SKINNY_M: M / 8 */
    int parts;         /* the reduce's parts per output (S > 1): lanes summing slices p, p + parts, ... */
    int64_t kc;        /* k values per slice */
    int64_t splits;    /* S, the K slices (1: no workspace) */
    int64_t rpw;       /* COLS: rows per warp (x 8); MMA: m-tiles of 16 per warp; SKINNY: rows (32); _M: columns (64);
                          TINYK: 1 TINYK16 (16-byte row chunks of D, level bit 7), else 0 */
    int64_t grid[3];   /* blocks of 128 threads (4 warps) */
    uint64_t ws_bytes; /* the fp32 workspace, S * M * N * 4 when S > 1, else 0, + red_bytes */
    int nw;            /* ROWS: warps per block (4; 8: the block sums its 8 K slices, mv_block_sum) */
    uint64_t red_bytes; /* nw > 4: the in-block sums' scratch, blocks x (nw - 1) x tm x 8 x 32 x 4 (spread:
                           blocks x nw x values per lane x 32 x 4) */
    int spread;        /* nw > 4: 1 the block's sums spread over its warps (level bit 2, mv_block_sum_spread) */
    int cluster;       /* ROWS: > 1 the grid's y blocks are one cluster summing its K slices (level bit 4) */
    int chunks;        /* MMA: 1 D as aligned 16-byte row chunks at any ldd / offset where D is 2-byte and C is not
                          read (level bit 8; npad 4, K <= 32: matvec_chunks.cuh), else the stores of mv_mma_nt */
} smk_mv_route;

#define SMK_MV_TARGET_WARPS 8448 /* 4 x 132 SMs x 16 warps: an H100's DRAM queues full */
#define SMK_MV_MAX_SPLITS 2048
#define SMK_MV_MMA_WARPS 2112 /* 132 SMs x 16: the MMA kernel's warps resident at once (one wave; each loads a B panel once) */
#define SMK_MV_MMA_WARPS8 1584 /* 132 x 12 for KS = 8 (3 blocks per SM: its B panel takes 64 registers) */
#define SMK_MV_KMAX_DEFAULT 32
#define SMK_MV_MMA_MAX_RPW 32 /* the automatic route's bound on m-tiles per warp (smk_mv_mma_takes) */
#define SMK_MV_KMAX_CAP 128 /* KS = 8: the deepest B panel the MMA kernel keeps in registers */
#define SMK_MV_SKINNY_ROWS 32 /* SKINNY: rows per warp (2 m-tiles of 16) */
#define SMK_MV_SKINNY_COLS 64 /* SKINNY_M: columns per warp (4 m-tiles of 16 of D^T) */
#define SMK_MV_SKINNY_WARPS 4224 /* SKINNY: warps wanted (132 SMs x 12 resident x ~2.7 waves) */
#define SMK_MV_SKINNY_KMIN 128 /* SKINNY: the shortest K slice (4 groups of 32 k) */
#define SMK_MV_SEG 248 /* a warp's segment of the stream: 31 lanes x 8 elements (lane 31 only loads) */
#define SMK_MV_SMALL_BYTES ((int64_t)8 << 20) /* a stream this small: latency, not bytes, bounds the call */

static inline int64_t smk_mv_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static inline int smk_mv_pow2(int64_t n, int cap)
{
    int p = 1;
    while (p < n && p < cap)
        p *= 2;
    return p;
}

/* ROWS geometry (grid: x column segments of 248, y groups of 4 slices, z row groups): 0 or -1.
 * fine: slices of >= 16 k without the workspace bound where B is at most 8 MiB (kmax > 0). */
static inline int smk_mv_rows(int64_t M, int64_t N, int64_t K, int fine, smk_mv_route *r)
{
    r->kind = SMK_MV_ROWS;
    r->tm = M < 8 ? (int)M : 8;
    const int64_t rg = smk_mv_cdiv(M, r->tm), cw = smk_mv_cdiv(N, SMK_MV_SEG);
    const int small = fine && K * N * 2 <= ((int64_t)8 << 20);
    const int64_t gran = small ? 16 : 32; /* a multiple of the kernel's UK (4, 8) */
    int64_t s = smk_mv_cdiv(SMK_MV_TARGET_WARPS, rg * cw);
    const int64_t by_k = smk_mv_cdiv(K, gran), by_ws = small ? by_k : K / (8 * M); /* partials <= B / 4 */
    if (s > by_k) s = by_k;
    if (s > by_ws) s = by_ws;
    if (s > SMK_MV_MAX_SPLITS) s = SMK_MV_MAX_SPLITS;
    if (s < 1) s = 1;
    r->kc = smk_mv_cdiv(smk_mv_cdiv(K, s), gran) * gran;
    r->splits = smk_mv_cdiv(K, r->kc);
    r->grid[0] = cw, r->grid[1] = smk_mv_cdiv(r->splits, 4), r->grid[2] = rg;
    return cw > 0x7fffffffLL || r->grid[1] > 65535 || rg > 65535 ? -1 : 0;
}

/* ROWS with 8-warp blocks (gemm16_mv_level bit 0; grid: x column segments of 248, y groups G of 8
 * K slices, z row groups; matvec_sum.cuh): the block's 8 warps sum their slices in-kernel, so G == 1 is
 * one launch and G > 1 leaves G (not 8 G) fp32 partials to the reduce.  Why (seed-113 draws, H100): the
 * ROWS kernel is latency-bound where few warps walk long K slices, and a split's reduce is a second
 * launch (~2 us: 6x7250x49 bf16 6.7 + 1.9 us against cuBLAS's 2.8).  Rule, in latency rounds (a round:
 * 2 UK B rows per warp, the double-buffered loads): G targets one wave of SMK_MV_FUSED_BLOCKS blocks
 * (ptxas: 117 .. 153 registers x 256 threads, one block per SM), each slice at least one round (2 UK k);
 * one launch (G = 1) unless its rounds exceed G's by more than SMK_MV_LAUNCH_ROUNDS (a launch's cost in
 * rounds).  Unmeasured: the lead's A/B decides.  0 or -1. */
#define SMK_MV_FUSED_NW 8
#define SMK_MV_FUSED_BLOCKS 132
#define SMK_MV_LAUNCH_ROUNDS 2
static inline int64_t smk_mv_fused_rounds(int64_t K, int64_t g, int uk)
{
    return smk_mv_cdiv(smk_mv_cdiv(K, SMK_MV_FUSED_NW * g), 2 * uk);
}
/* onewave (gemm16_mv_level bit 5, value 32): G rounded down where rounding up would spill the grid past the
 * blocks resident at once (smk_mv_fused_per_sm x 132).  Why (seeds 151 / 153, level 7, H100): ROWS kernels
 * with TM = 3, 4, 7, 8 (137-155 registers: one 256-thread block per SM) and G = cdiv(132, cw rg) ran 140-171
 * blocks, a second wave of 8-39 blocks as long as the first: 7x4359x38673 fp16 144 blocks 319 us (0.82),
 * 4x14057x1104 bf16 171 blocks 27.6 us (0.49), 8x5091x8539 147 (0.91), 4x4423x12536 144 (1.00), while the
 * 132-block grids ran 1.2-2.4x cuBLAS (8x10850x4507, 3x5417x9483).  Unmeasured: the lead's A/B decides. */
static inline int smk_mv_fused_per_sm(int tm)
{
    return tm == 3 || tm == 4 || tm >= 7 ? 1 : 2; /* ptxas sm_90: 137-155 registers, else 116-128 */
}
static inline int smk_mv_rows_fused_at(int64_t M, int64_t N, int64_t K, int onewave, smk_mv_route *r)
{
    r->kind = SMK_MV_ROWS;
    r->tm = M < 8 ? (int)M : 8;
    r->nw = SMK_MV_FUSED_NW;
    const int uk = r->tm > 4 ? 4 : 8; /* matvec.cuh mv_rows_kernel's UK */
    const int64_t rg = smk_mv_cdiv(M, r->tm), cw = smk_mv_cdiv(N, SMK_MV_SEG);
    const int64_t gmax = smk_mv_cdiv(K, SMK_MV_FUSED_NW * 2 * uk);
    int64_t g = smk_mv_cdiv(SMK_MV_FUSED_BLOCKS, rg * cw);
    if (onewave && g * rg * cw > (int64_t)smk_mv_fused_per_sm(r->tm) * SMK_MV_FUSED_BLOCKS)
        g = (int64_t)smk_mv_fused_per_sm(r->tm) * SMK_MV_FUSED_BLOCKS / (rg * cw);
    if (g > gmax) g = gmax;
    if (g > SMK_MV_MAX_SPLITS / SMK_MV_FUSED_NW) g = SMK_MV_MAX_SPLITS / SMK_MV_FUSED_NW;
    if (g < 1) g = 1;
    if (g > 1 && smk_mv_fused_rounds(K, 1, uk) <= smk_mv_fused_rounds(K, g, uk) + SMK_MV_LAUNCH_ROUNDS)
        g = 1;
    r->kc = smk_mv_cdiv(smk_mv_cdiv(K, SMK_MV_FUSED_NW * g), uk) * uk;
    r->splits = smk_mv_cdiv(smk_mv_cdiv(K, r->kc), SMK_MV_FUSED_NW);
    r->grid[0] = cw, r->grid[1] = r->splits, r->grid[2] = rg;
    r->red_bytes = (uint64_t)cw * (uint64_t)r->splits * (uint64_t)rg * (SMK_MV_FUSED_NW - 1) * (uint64_t)r->tm * 1024u;
    return cw > 0x7fffffffLL || r->grid[1] > 65535 || rg > 65535 ? -1 : 0;
}
static inline int smk_mv_rows_fused(int64_t M, int64_t N, int64_t K, smk_mv_route *r)
{
    return smk_mv_rows_fused_at(M, N, K, 0, r);
}

/* ROWS in clusters (gemm16_mv_level bit 4, value 16, with bit 0; grid: x column segments of 248, y the C blocks of
 * one cluster, z row groups; matvec_sum.cuh mv_cluster_sum_spread): the 8 warps of C blocks (one thread-block
 * cluster, sm_90) walk 8 C K slices of the same 248 x TM outputs and sum them in-kernel through a global scratch
 * ordered by the cluster barrier: one launch, C times the SMs of smk_mv_rows_fused's G == 1 grid.  Why (seeds
 * 151 / 153, H100, the ratio to cuBLAS): short-K ROWS calls ran one 8-warp block per column segment, cw of 132
 * SMs busy, each issuing every B row's ~100 warp instructions (funnel shifts, A shuffles, 8 TM FMAs) with 8
 * warps to hide the latencies: 8x4585x165 bf16 19 blocks 12.4 us (0.34), 2x1944x288 8 blocks 7.7 us (0.34),
 * 6x4099x46 17 blocks 6.3 us (0.40); or G > 1 paid the reduce's launch (6x8161x221 7.5 + 2.0 us, 0.46).
 * Rule: B at most SMK_MV_SMALL_BYTES (latency, not bytes, bounds the call); C = min(8, cdiv(K, 8
 * SMK_MV_CLUSTER_KMIN)) (a warp's slice about SMK_MV_CLUSTER_KMIN k or more: its partial sums, TM x 8 floats
 * per lane stored and loaded through L2, cost about as much as that many B rows), lowered until its clusters
 * fit one wave (cw rg <= smk_mv_cluster_cap(C): 8 GPCs of 16 SMs, one 256-thread block per SM); taken where
 * C >= 2 and the fused route's G <= 2 C (fewer SMs than G's grid, but no reduce launch).  Slices of cdiv(K, 8 C) k, any length
 * (the kernel stops at the slice's end within its UK rows).  Unmeasured: the lead's A/B decides.  0 and
 * r->cluster > 1 where taken; 0 with the fused route where not; -1 as smk_mv_rows_fused. */
#define SMK_MV_CLUSTER_MAX 8
#define SMK_MV_CLUSTER_KMIN 4
static inline int64_t smk_mv_cluster_cap(int64_t c)
{
    return 8 * (16 / c);
}
static inline int smk_mv_rows_cluster(int64_t M, int64_t N, int64_t K, int onewave, smk_mv_route *r)
{
    if (smk_mv_rows_fused_at(M, N, K, onewave, r) != 0)
        return -1;
    const int64_t units = r->grid[0] * r->grid[2];
    int64_t c = smk_mv_cdiv(K, SMK_MV_FUSED_NW * SMK_MV_CLUSTER_KMIN);
    if (c > SMK_MV_CLUSTER_MAX) c = SMK_MV_CLUSTER_MAX;
    while (c > 1 && units > smk_mv_cluster_cap(c))
        c--;
    if (K * N * 2 > SMK_MV_SMALL_BYTES || c < 2 || r->splits > 2 * c)
        return 0;
    r->cluster = (int)c;
    r->spread = 1;
    r->kc = smk_mv_cdiv(K, SMK_MV_FUSED_NW * c);
    r->splits = 1;
    r->grid[1] = c;
    r->red_bytes = (uint64_t)units * (uint64_t)c * SMK_MV_FUSED_NW * (uint64_t)r->tm * 8u * 128u;
    return 0;
}

/* COLS geometry (grid: x blocks of 4 warps along M, y slices, z column groups): 0 or -1. */
static inline int smk_mv_cols(int64_t M, int64_t N, int64_t K, smk_mv_route *r)
{
    r->kind = SMK_MV_COLS;
    r->npad = smk_mv_pow2(N < 8 ? N : 8, 8);
    r->kc = SMK_MV_SEG;
    r->splits = smk_mv_cdiv(K, r->kc);
    const int64_t cg = smk_mv_cdiv(N, r->npad), items = M * r->splits * cg; /* warp-rows */
    r->rpw = smk_mv_cdiv(smk_mv_cdiv(items, SMK_MV_TARGET_WARPS), 8) * 8;
    r->grid[0] = smk_mv_cdiv(smk_mv_cdiv(M, r->rpw), 4), r->grid[1] = r->splits, r->grid[2] = cg;
    return r->grid[0] > 0x7fffffffLL || r->grid[1] > 65535 || r->grid[2] > 65535 ? -1 : 0;
}

/* TINYK geometry (the 2-byte kernel, 8 rows x CPL x 32 columns per thread, no split; npad = CPL): 0 or
 * -1.  CPL = 8 (a block: 1024 columns); with `bywidth` (gemm16_mv_level bit 1) the smallest of 1, 2, 4, 8
 * whose 4 warps x 32 CPL columns cover N, or 8: a block of 1024 columns on N = 155 (7972x155x8 fp16,
 * 16.5 us against cuBLAS's 4.3) loads and converts A and multiplies for 85% idle columns.
 * `chunks` (gemm16_mv_level bit 7, value 128): rpw = 1, TINYK16 (gemm16_tinyk.cu: a warp writes 8 rows
 * x SMK_MV_TK16_COLS columns of D as aligned 16-byte row chunks; the grid: its warps, 4 per block);
 * where D is fp32 or C is read the launcher runs the 2-byte kernel on cdiv(M, 8) x cdiv(N, 128 CPL). */
#define SMK_MV_TK16_COLS 256 /* TINYK16: columns per warp (32 lanes x 8) */
static inline int smk_mv_tinyk(int64_t M, int64_t N, int64_t K, int bywidth, int chunks, smk_mv_route *r)
{
    r->kind = SMK_MV_TINYK;
    r->tm = 8;
    r->npad = bywidth ? smk_mv_pow2(smk_mv_cdiv(N, 128), 8) : 8;
    r->kc = K;
    r->splits = 1;
    r->rpw = chunks ? 1 : 0;
    r->grid[0] = chunks ? smk_mv_cdiv(smk_mv_cdiv(M, 8) * smk_mv_cdiv(N, SMK_MV_TK16_COLS), 4)
                        : smk_mv_cdiv(M, 8) * smk_mv_cdiv(N, 128 * r->npad);
    r->grid[1] = 1, r->grid[2] = 1;
    return smk_mv_cdiv(M, 8) * smk_mv_cdiv(N, 128 * r->npad) > 0x7fffffffLL ? -1 : 0;
}

/* MMA geometry (grid: x blocks of 4 warps; warp w = blockIdx.x * 4 + warp takes column group
 * w % ncg (8 NT columns) and m-tiles (w / ncg) * rpw ..; ncg = cdiv(N, 8 NT)): 0 or -1 (K > 128). */
static inline int64_t smk_mv_mma_rpw(int64_t M, int64_t N, int64_t K)
{
    const int64_t ncg = smk_mv_cdiv(N, 8 * (N <= 16 ? 2 : 4)), mt = smk_mv_cdiv(M, 16);
    return smk_mv_cdiv(mt * ncg, K > 64 ? SMK_MV_MMA_WARPS8 : SMK_MV_MMA_WARPS);
}
static inline int smk_mv_mma(int64_t M, int64_t N, int64_t K, smk_mv_route *r)
{
    r->kind = SMK_MV_MMA;
    r->tm = K <= 16 ? 1 : K <= 32 ? 2 : K <= 64 ? 4 : 8;
    r->npad = N <= 16 ? 2 : 4;
    r->kc = K;
    r->splits = 1;
    const int64_t ncg = smk_mv_cdiv(N, 8 * r->npad), mt = smk_mv_cdiv(M, 16);
    r->rpw = smk_mv_mma_rpw(M, N, K);
    r->grid[0] = smk_mv_cdiv(ncg * smk_mv_cdiv(mt, r->rpw), 4), r->grid[1] = 1, r->grid[2] = 1;
    return K > SMK_MV_KMAX_CAP || r->grid[0] > 0x7fffffffLL ? -1 : 0;
}

/* SKINNY / SKINNY_M K split (grid: x groups of 4 warps, `units` warps along the output, y K slices): S
 * slices of a multiple of 32 k (at least SMK_MV_SKINNY_KMIN) so that the warps reach SMK_MV_SKINNY_WARPS,
 * the fp32 partials at most an eighth of the stream's bytes (S M N 4 <= `stream` elements x 2 / 8) or 4
 * MiB (a small call: latency, not bytes, bounds it). */
static inline void smk_mv_skinny_split(int64_t units, int64_t M, int64_t N, int64_t K, int64_t stream, smk_mv_route *r)
{
    int64_t s = smk_mv_cdiv(SMK_MV_SKINNY_WARPS, units);
    const int64_t by_k = K / SMK_MV_SKINNY_KMIN, ws_cap = stream / 4 > (4 << 20) ? stream / 4 : (4 << 20);
    const int64_t by_ws = ws_cap / (M * N * 4);
    if (s > by_k) s = by_k;
    if (s > by_ws) s = by_ws;
    if (s > SMK_MV_MAX_SPLITS) s = SMK_MV_MAX_SPLITS;
    if (s < 1) s = 1;
    r->kc = smk_mv_cdiv(smk_mv_cdiv(K, s), 32) * 32;
    r->splits = smk_mv_cdiv(K, r->kc);
    r->grid[0] = smk_mv_cdiv(units, 4), r->grid[1] = r->splits, r->grid[2] = 1;
}

/* SKINNY geometry (N <= 32, A the stream; gemm16_skinny.cu): a warp takes 32 rows x all N.  0 or -1. */
static inline int smk_mv_skinny(int64_t M, int64_t N, int64_t K, smk_mv_route *r)
{
    r->kind = SMK_MV_SKINNY;
    r->npad = (int)smk_mv_cdiv(N, 8);
    r->rpw = SMK_MV_SKINNY_ROWS;
    smk_mv_skinny_split(smk_mv_cdiv(M, SMK_MV_SKINNY_ROWS), M, N, K, M * K, r);
    return N > 32 || r->grid[0] > 0x7fffffffLL ? -1 : 0;
}

/* SKINNY_M geometry (M <= 32, B the stream; gemm16_skinny.cu): a warp takes 64 columns x all M.  0 or -1. */
static inline int smk_mv_skinny_m(int64_t M, int64_t N, int64_t K, smk_mv_route *r)
{
    r->kind = SMK_MV_SKINNY_M;
    r->npad = (int)smk_mv_cdiv(M, 8);
    r->rpw = SMK_MV_SKINNY_COLS;
    smk_mv_skinny_split(smk_mv_cdiv(N, SMK_MV_SKINNY_COLS), M, N, K, N * K, r);
    return M > 32 || r->grid[0] > 0x7fffffffLL ? -1 : 0;
}

/* SKINNY in 8-warp blocks (gemm16_mv_level bit 2, value 4; grid: x row groups of 32, y groups G of 8 K slices):
 * the block's warps walk 8 K slices of the same 32 rows and sum them in-kernel (mv_block_sum_spread), so
 * G == 1 is one launch.  Why (session 40, seed-125 draws, H100): on a small A the 4-warp SKINNY walks a
 * warp's whole K slice in series, one 32-k group per global round trip (2466x2x218 bf16: 78 warps x 7
 * rounds, 9.2 us against cuBLAS's 3.5), or splits K into a second launch (1218x6x302: 8.4 + 1.9 us
 * against 4.4).  Rule, in rounds (a round: one 32-k group per warp): G as smk_mv_rows_fused picks it
 * (one wave of SMK_MV_FUSED_BLOCKS blocks, each slice at least one group; G == 1 unless its rounds
 * exceed G's by more than SMK_MV_LAUNCH_ROUNDS).  Taken where A is at most SMK_MV_SMALL_BYTES (the
 * call is latency, not bytes; the blocks' scratch, 32 N_pad x 8 x 4 bytes per block, stays in L2).
 * 0 or -1. */
static inline int64_t smk_mv_skinny_fused_rounds(int64_t K, int64_t g)
{
    return smk_mv_cdiv(K, SMK_MV_FUSED_NW * g * 32);
}
static inline int smk_mv_skinny_fused(int64_t M, int64_t N, int64_t K, smk_mv_route *r)
{
    r->kind = SMK_MV_SKINNY;
    r->npad = (int)smk_mv_cdiv(N, 8);
    r->rpw = SMK_MV_SKINNY_ROWS;
    r->nw = SMK_MV_FUSED_NW;
    r->spread = 1;
    const int64_t rg = smk_mv_cdiv(M, SMK_MV_SKINNY_ROWS), gmax = smk_mv_cdiv(K, SMK_MV_FUSED_NW * 32);
    int64_t g = smk_mv_cdiv(SMK_MV_FUSED_BLOCKS, rg);
    if (g > gmax) g = gmax;
    if (g > SMK_MV_MAX_SPLITS / SMK_MV_FUSED_NW) g = SMK_MV_MAX_SPLITS / SMK_MV_FUSED_NW;
    if (g < 1) g = 1;
    if (g > 1 && smk_mv_skinny_fused_rounds(K, 1) <= smk_mv_skinny_fused_rounds(K, g) + SMK_MV_LAUNCH_ROUNDS)
        g = 1;
    r->kc = smk_mv_cdiv(smk_mv_cdiv(K, SMK_MV_FUSED_NW * g), 32) * 32;
    r->splits = smk_mv_cdiv(smk_mv_cdiv(K, r->kc), SMK_MV_FUSED_NW);
    r->grid[0] = rg, r->grid[1] = r->splits, r->grid[2] = 1;
    r->red_bytes = (uint64_t)rg * (uint64_t)r->splits * SMK_MV_FUSED_NW * 8u * (uint64_t)r->npad * 128u;
    return N > 32 || rg > 0x7fffffffLL || r->splits > 65535 ? -1 : 0;
}

/* Whether gemm16_mv_skinny = level (bits) gives M x N x K to SKINNY (M > 8, K > 16, N <= 32: bit 0
 * for 9 <= N <= 32, where the 64-wide tiles padded N to 64 and split K; bit 1 for N <= 8, COLS's) or to
 * SKINNY_M (bit 2: 9 <= M <= 32, N > 32, K > 16, the tiles' too).  Asked after ROWS and the MMA kernel
 * declined (bit 1: before COLS).  Unmeasured as a rule: the lead's A/B decides. */
static inline int smk_mv_skinny_takes(int64_t M, int64_t N, int64_t K, int level)
{
    if (M <= 8 || N > 32 || K <= 16)
        return 0;
    return N > 8 ? (level & 1) != 0 : (level & 2) != 0;
}
static inline int smk_mv_skinny_m_takes(int64_t M, int64_t N, int64_t K, int level)
{
    return (level & 4) != 0 && M > 8 && M <= 32 && N > 32 && K > 16;
}

/* Whether the automatic route gives M x N x K (M, N > 8) to the MMA kernel (kmax > 0, K <= kmax).
 * Measured (H100, GEMM16_NOTES 2026-11-26, same-run A/B against TINYK and the tiles): its stores are
 * what it is worth.  With 16-byte stores (N % 8 == 0: a dense D's rows on 16 bytes) it writes a big D
 * faster than TINYK; with 4-byte pairs (N even) or 2-byte stores (N odd) on a big D it runs at 0.3-0.4
 * TB/s, where TINYK's warp-wide 2-byte stores reach 1.5 TB/s.  On a small D (<= 2^20 elements: the call
 * is latency, not bytes) it beats TINYK (whose 1024-column blocks idle where N is small) whatever the
 * stores, as it does for even N up to 256.  For 17 <= K <= 32 it beats the tile kernel's 64-deep
 * k-tile only on write-bound outputs with at least pair stores: N even, M N >= 2^21.  Deeper K
 * (33 .. 64) is compute-bound in it (16 dependent mma per m-tile at 16 warps per SM): measured slower
 * than the tiles except on a few big even-N outputs, so kmax defaults to 32.  And only while each warp
 * walks at most 32 m-tiles (SMK_MV_MMA_MAX_RPW): it won at 14 .. 32 (4352x7712x1, 2917x5082x18,
 * 7905x3536x28, 8539x3822x17, 2252x15128x46) and lost at 63 .. 213 (9847x6886x38 even, 13097x9696x55
 * with 16-byte stores at 0.28 TB/s, 15011x15303x2): warps walking long narrow strips of D scatter its
 * writes (not measured in isolation; an order whose write front sweeps D row-major is the next step). */
static inline int smk_mv_mma_takes(int64_t M, int64_t N, int64_t K, int kmax)
{
    if (kmax <= 0 || K > kmax || smk_mv_mma_rpw(M, N, K) > SMK_MV_MMA_MAX_RPW)
        return 0;
    const int64_t mn = M * N;
    if (K <= 16)
        return N % 8 == 0 || mn <= ((int64_t)1 << 20) || (N % 2 == 0 && N <= 256);
    return N % 2 == 0 && mn >= ((int64_t)1 << 21);
}

/* Whether the 8-warp SKINNY pays on M x N x K (gemm16_mv_level bit 3, value 8, read with bit 2): every warp
 * of the block has a K slice (K > 8 x 32: a short K leaves ceil(K / 32) of the 8 warps busy, the rest
 * holding the SM's slots through the block's barrier and scratch round), or the 4-warp grid would leave
 * most SMs idle (ceil(M / 128) 4-warp blocks <= a quarter of SMK_MV_FUSED_BLOCKS: M <= 4224).  Why
 * (session 40, level 3 -> 7 on seeds 151 / 153, H100, ratio to cuBLAS, GEMM16_NOTES "Level 7 measured"):
 * the one-launch SKINNY lost on a tall A with a short K, where the 4-warp SKINNY already had 50-120 blocks
 * and at most two 32-k rounds per warp: 10120x6x49 bf16 0.88 -> 0.46, 9448x4x91 0.92 -> 0.58, 9279x5x84
 * 0.63 -> 0.41, 15198x7x134 0.80 -> 0.57, 6521x5x35 1.40 -> 1.03; the short-K winners had a small M
 * (3325x5x113 0.76 -> 1.46, 4152x8x131 0.69 -> 1.63: 27 and 33 4-warp blocks) or K > 256 (3159x5x293,
 * 1005x3x356, 42x8x31994, 127x7x2860, 231x6x2458, 100x7x4957), all of which the rule keeps.  N does not
 * enter (the warps' work per k is N-independent at N <= 32).  Unmeasured as a rule: fitted on those two
 * seeds' draws; the lead's held-out A/B (level 15 against 7) decides. */
static inline int smk_mv_skinny_fused_pays(int64_t M, int64_t N, int64_t K)
{
    (void)N;
    return K > SMK_MV_FUSED_NW * 32 || smk_mv_cdiv(M, 4 * SMK_MV_SKINNY_ROWS) <= SMK_MV_FUSED_BLOCKS / 4;
}

/* SKINNY under gemm16_mv_level: bit 2 and A at most SMK_MV_SMALL_BYTES the 8-warp blocks (with bit 3:
 * only where smk_mv_skinny_fused_pays), else 4. */
static inline int smk_mv_skinny_level(int64_t M, int64_t N, int64_t K, int level, smk_mv_route *r)
{
    if ((level & 4) && M * K * 2 <= SMK_MV_SMALL_BYTES && (!(level & 8) || smk_mv_skinny_fused_pays(M, N, K)))
        return smk_mv_skinny_fused(M, N, K, r);
    return smk_mv_skinny(M, N, K, r);
}

/* The route of a variant-0 M x N x K call (after the BLAS normalisation: K == 0 means A and B are not
 * read) under `mode` and `kmax`: 1 and *r filled when the memory-bound path takes it, else 0.
 * Automatic: (skinny bit 1: N <= 8, M > 8, K > 16 SKINNY) N <= 8 (M >= N) COLS, M <= 8 ROWS, then MMA
 * where smk_mv_mma_takes says, SKINNY / SKINNY_M where smk_mv_skinny(_m)_takes say, MMA where
 * smk_mv_chunks_takes says (level bit 8), else K <= 16 TINYK; the rest stays with the tile kernel. */
/* ROWS' narrow outputs to SKINNY_M (gemm16_mv_level bit 6, value 64): M <= 8 with N <= SMK_MV_SEG / 2 (a ROWS
 * warp's 248-column segment at most half used: lanes past N / 8 load nothing and multiply zeros) and K > 16.
 * Why (seeds 151 / 153, level 7, H100): such calls have K >= 1057 by the law (M N K >= 2^20), and ROWS walks them
 * with ~165 warp instructions per B row of at most 124 useful columns: 5x27x57290 fp16 19.0 + 2.2 us (0.47),
 * 8x15x26937 fp16 0.50, 7x89x3611 bf16 0.68, 4x42x10947 fp16 0.69, 1x100x25526 bf16 0.70, 5x49x13097 0.83 (but
 * 2x61x17517 1.14).  SKINNY_M (gemm16_skinny.cu: D^T = B^T A^T on tensor cores, 64 columns x all M per warp, B
 * in 16-byte row chunks 4 rows per instruction, K split into >= 128-k slices) streams the same bytes with a
 * few instructions per 32 k.  Unmeasured for M <= 8 (GPU-tested there under gemm16_matvec=6): the lead's A/B
 * (level 71 against 7) decides. */
static inline int smk_mv_narrow_takes(int64_t M, int64_t N, int64_t K, int level)
{
    return (level & 64) != 0 && M <= 8 && N <= SMK_MV_SEG / 2 && K > 16;
}
/* TINYK's shapes to the MMA kernel with its 16-byte row chunks (gemm16_mv_level bit 8, value 256; asked where the
 * automatic route would take TINYK: K <= 16, M, N > 8, smk_mv_mma_takes declined: odd N, or N % 8 != 0 with N > 256 and
 * M N > 2^20).  Why (H100, Nsight Compute, session 42): TINYK is issue-bound on ~20 instructions per output
 * (9120x1485x16 fp16: 66 us, SM 54%, DRAM 2%, 168 registers, 17% occupancy; H200 seed 171: 9120x1485x16 0.44,
 * 7171x726x16 0.51, 1054x12706x15 0.52, 5636x757x11 0.61, 602x9876x12 0.62), and the MMA kernel lost there only on its
 * 4-byte / 2-byte stores (smk_mv_mma_takes); with the chunks a warp writes 16 rows x 4 aligned 16-byte chunks per
 * m-tile (the edges of D's rows element by element), ~6 instructions per output.  Kept to the MMA kernel's
 * m-tiles per warp bound (SMK_MV_MMA_MAX_RPW) and kmax > 0 (kmax 0: the routing before the MMA kernel).
 * Measured (lead, H100, seed 180, level 319 against 63): 26 draws moved, 13 won; the wins at K 6..16 on wide D
 * (3182x581x12 0.48 -> 0.88, 1257x2667x6 0.54 -> 0.73, 5082x849x10 0.62 -> 0.74), the losses at K <= 3 (6117x1434x1
 * 1.03 -> 0.77, 11598x2929x2, 238x11891x3: TINYK's few FMAs a row are cheap), and on narrow D (7361x68x7) and short
 * M (28x14206x13), which the MMA kernel already ran (their loss is the chunk stores').  So TINYK keeps K <
 * SMK_MV_CHUNKS_KMIN and, as a precaution from those two, N < SMK_MV_CHUNKS_NMIN and M < SMK_MV_CHUNKS_MMIN.  Held out
 * (seed 181, H100, with these cuts): 19 draws moved against level 63, 17 won, x1.26. */
#define SMK_MV_CHUNKS_KMIN 4
#define SMK_MV_CHUNKS_NMIN 128
#define SMK_MV_CHUNKS_MMIN 32
static inline int smk_mv_chunks_takes(int64_t M, int64_t N, int64_t K, int kmax, int level)
{
    return (level & 256) != 0 && kmax > 0 && K >= SMK_MV_CHUNKS_KMIN && K <= 16 && M >= SMK_MV_CHUNKS_MMIN &&
           N >= SMK_MV_CHUNKS_NMIN && smk_mv_mma_rpw(M, N, K) <= SMK_MV_MMA_MAX_RPW;
}
#include "matvec_tall.h"
static inline int smk_mv_rows_level(int64_t M, int64_t N, int64_t K, int kmax, int level, smk_mv_route *r)
{
    if ((level & 1) && (level & 16))
        return smk_mv_rows_cluster(M, N, K, (level & 32) != 0, r);
    return (level & 1) ? smk_mv_rows_fused_at(M, N, K, (level & 32) != 0, r) : smk_mv_rows(M, N, K, kmax > 0, r);
}
#include "matvec_mrow.h" /* MROW: after smk_mv_rows_level, which it asks */
static inline int smk_mv_route_of(int64_t M, int64_t N, int64_t K, int mode, int kmax, int skinny, int level,
                                  smk_mv_route *r)
{
    smk_mv_route z = {0};
    *r = z;
    if (mode <= 0 || M <= 0 || N <= 0 || K <= 0)
        return 0;
    int rc;
    if (mode == 2)
        rc = smk_mv_rows_level(M, N, K, kmax, level, r);
    else if (mode == 3)
        rc = smk_mv_cols(M, N, K, r);
    else if (mode == 4 && K <= SMK_MV_KMAX_CAP)
        rc = smk_mv_mma(M, N, K, r);
    else if (mode == 5 && N <= 32)
        rc = smk_mv_skinny_level(M, N, K, level, r);
    else if (mode == 6 && M <= 32)
        rc = smk_mv_skinny_m(M, N, K, r);
    else if (mode == 8 && M <= 8)
        rc = smk_mv_mrow(M, N, K, r);
    else if ((mode == 7 && N <= 8) || smk_mv_tall_takes(M, N, K, skinny))
        rc = smk_mv_tall(M, N, K, r);
    else if (N <= 8 && smk_mv_skinny_takes(M, N, K, skinny))
        rc = smk_mv_skinny_level(M, N, K, level, r);
    else if (N <= 8 && M >= N && (level & 4) && M > 8 && K <= kmax)
        rc = smk_mv_mma(M, N, K, r); /* COLS's 248-k segments would hold <= kmax / 8 loading lanes */
    else if (N <= 8 && M >= N)
        rc = smk_mv_cols(M, N, K, r);
    else if (M <= 8 && smk_mv_narrow_takes(M, N, K, level))
        rc = smk_mv_skinny_m(M, N, K, r);
    else if (M <= 8)
        rc = smk_mv_rows_or_mrow(M, N, K, kmax, level, r);
    else if (smk_mv_mma_takes(M, N, K, kmax))
        rc = smk_mv_mma(M, N, K, r);
    else if (smk_mv_skinny_takes(M, N, K, skinny))
        rc = smk_mv_skinny_level(M, N, K, level, r);
    else if (smk_mv_skinny_m_takes(M, N, K, skinny))
        rc = smk_mv_skinny_m(M, N, K, r);
    else if (smk_mv_chunks_takes(M, N, K, kmax, level))
        rc = smk_mv_mma(M, N, K, r);
    else if (K <= 16)
        rc = smk_mv_tinyk(M, N, K, (level & 2) != 0, (level & 128) != 0, r);
    else
        return 0;
    if (rc != 0) {
        *r = z;
        return 0;
    }
    r->parts = r->splits > 1 ? smk_mv_pow2(smk_mv_cdiv(r->splits, 8), 32) : 1;
    r->chunks = r->kind == SMK_MV_MMA && (level & 256) && r->npad == 4 && K <= 32;
    if (r->nw == 0)
        r->nw = 4;
    if (r->kind == SMK_MV_ROWS && r->nw > 4 && (level & 4) && r->cluster < 2) { /* the sums spread: every warp writes its values */
        r->spread = 1;
        r->red_bytes = r->red_bytes / (SMK_MV_FUSED_NW - 1) * SMK_MV_FUSED_NW;
    }
    r->ws_bytes = (r->splits > 1 ? (uint64_t)r->splits * (uint64_t)M * (uint64_t)N * 4u : 0) + r->red_bytes;
    return 1;
}

/* The route under the gemm16_epi knob (api/gemm16.h smk_gemm16_epi; epi = its level where D is 2-byte
 * and beta == 0, else 0): level 3 gives TINYK's write-bound shapes (K >= 4, M N >= 2^20, where TINYK's
 * 2-byte stores ran at 0.2 .. 0.8 TB/s against cuBLAS's 0.6 .. 1.4: session 38's seed-82 draws) to the
 * tile kernel, whose staged epilogue writes D in 16-byte row chunks; every other level routes as
 * smk_mv_route_of (with the gemm16_mv_level knob). */
static inline int smk_mv_route_epi_at(int64_t M, int64_t N, int64_t K, int mode, int kmax, int skinny, int epi,
                                      int level, smk_mv_route *r)
{
    if (!smk_mv_route_of(M, N, K, mode, kmax, skinny, level, r))
        return 0;
    if (epi == 3 && mode == 1 && r->kind == SMK_MV_TINYK && K >= 4 && M * N >= ((int64_t)1 << 20)) {
        smk_mv_route z = {0};
        *r = z;
        return 0;
    }
    return 1;
}
static inline int smk_mv_route_epi(int64_t M, int64_t N, int64_t K, int mode, int kmax, int skinny, int epi,
                                   smk_mv_route *r)
{
    return smk_mv_route_epi_at(M, N, K, mode, kmax, skinny, epi, smk_gemm16_mv_level_here(), r);
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
/* gemm16_skinny.cu: the SKINNY / SKINNY_M kernel (ws: the partials when r.splits > 1). */
void mv_skinny_m_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t stream);
void mv_skinny_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t stream);
void mv_tall_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t stream); /* TALL (ws: scratch) */
/* gemm16_mrow.cu: MROW (ws: the partials when r.splits > 1). */
void mv_mrow_launch(const smk_gemm16_params &q, const smk_mv_route &r, float *ws, cudaStream_t stream);
/* gemm16_tinyk.cu: TINYK16 (r.rpw == 1) where D is 2-byte and C is not read; false (nothing launched) else. */
bool mv_tinyk16_launch(const smk_gemm16_params &q, const smk_mv_route &r, cudaStream_t stream);
} /* namespace g16 */
} /* namespace smk */
#endif

#endif /* SMK_GEMM16_MATVEC_H */
