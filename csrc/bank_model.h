/*
 * bank_model.h -- how many shared-memory wavefronts one warp-wide LDS/STS costs.
 *
 * Plain C99: no CUDA, no Python.  The rules (and the hypotheses behind them) are documented at the
 * top of bank_model.c; the addresses that get replayed come from layout.h, like the kernels'.
 *
 * An "instruction" is 32 byte offsets into shared memory, one per lane, lane 0 first; a negative
 * offset marks an inactive lane (predicated off / exited).  width is the access size in bytes
 * (1 = LDS/STS.U8, 2 = .U16, 4 = LDS/STS.32, 8 = .64, 16 = .128); is_store is 0 for a load, 1 for a
 * store.
 */
#ifndef SMK_BANK_MODEL_H
#define SMK_BANK_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

#define SMK_WARP_LANES 32

/* Why an instruction was rejected.  0 is success; smk_bank_strerror() names each code. */
enum {
    SMK_BANK_OK = 0,
    SMK_BANK_E_NULL = 1,   /* byte_addr is NULL */
    SMK_BANK_E_WIDTH = 2,  /* width is not 1, 2, 4, 8 or 16 */
    SMK_BANK_E_KIND = 3,   /* is_store is not 0 or 1 */
    SMK_BANK_E_ALIGN = 4,  /* some active lane's offset is not a multiple of width */
    SMK_BANK_E_RANGE = 5   /* some active lane's offset is >= SMK_BANK_MAX_BYTES */
};

/* Largest shared-memory window a block can have on any current GPU (228 KB on Hopper), rounded up;
 * an offset beyond it is a caller bug, not an access pattern. */
#define SMK_BANK_MAX_BYTES (256LL * 1024)

/*
 * Check one instruction.  Returns SMK_BANK_OK or an SMK_BANK_E_* code; on error, when msg is not
 * NULL, writes a one-line reason naming the first offending lane into msg (at most msglen bytes,
 * always NUL-terminated).
 */
int smk_bank_validate(const long long *byte_addr, int width, int is_store, char *msg, int msglen);

/* Static text for an SMK_BANK_E_* code ("ok" for 0, "unknown error" for anything else). */
const char *smk_bank_strerror(int code);

/*
 * Wavefronts the instruction costs (0 when no lane is active).  On invalid input returns -1 and,
 * when err is not NULL, stores the SMK_BANK_E_* code in *err (SMK_BANK_OK on success).
 */
int smk_bank_wavefronts(const long long *byte_addr, int width, int is_store, int *err);

/*
 * The conflict-free cost of the same instruction: the wavefronts it would take if its distinct
 * addresses were placed in distinct banks, keeping which lanes are active and which lanes share an
 * address.  For a full warp of distinct addresses this is 1 / 2 / 4 for width 4 / 8 / 16; for a
 * broadcast it is what a broadcast costs.  wavefronts - ideal is the cost of bank conflicts.
 * Returns -1 on invalid input.
 */
int smk_bank_ideal(const long long *byte_addr, int width, int is_store);

/*
 * Batch replay: n_instr instructions of 32 lanes each, laid out as byte_addr[i*32 + lane], all of
 * one width and kind.  Writes per-instruction wavefronts to out_wavefronts and conflict-free costs
 * to out_ideal when those are not NULL.  Returns the total wavefronts, or -1 on the first invalid
 * instruction (its index goes to *bad_index when not NULL, its code to *err when not NULL).
 * Meant for the Python binding: one call, GIL released, no per-instruction overhead.
 */
long long smk_bank_replay(const long long *byte_addr, long long n_instr, int width, int is_store,
                          int *out_wavefronts, int *out_ideal, long long *bad_index, int *err);

/*
 * The rule table the model runs on, exposed so tests and the refit can print / compare it.
 * For a width and kind, the warp is cut into groups of consecutive lanes, each costing its
 * bank-conflict degree: groups of pass_lanes lanes for a load that "packs" (every pair of active
 * lanes n, n^1 reads one address, or every pair n, n^2 does), groups of phase_lanes lanes
 * otherwise.  Stores never pack (pass_lanes == phase_lanes).  Measured on an H200; see
 * bank_model.c.  (Before the measurement the same two numbers meant "a pass of pass_lanes lanes
 * that fits one wavefront costs 1, else its phases of phase_lanes lanes are summed"; the values
 * are unchanged, only the merge criterion is.)
 */
typedef struct {
    int pass_lanes;  /* lanes per group of a packing load */
    int phase_lanes; /* lanes per group otherwise: 128 bytes of register data, 128 / width */
} smk_bank_rule;

/* Returns 0 and fills *rule, or an SMK_BANK_E_* code for a bad width/kind. */
int smk_bank_get_rule(int width, int is_store, smk_bank_rule *rule);

/*
 * Instruction kinds beyond LDS/STS (the same numbers as api/plan.h's SMK_ACC_*):
 *   SMK_BANK_KIND_LDST     LDS / STS of `width` bytes: everything above (is_store says which).
 *   SMK_BANK_KIND_LDSM_X1/X2/X4   ldmatrix.m8n8.x1/.x2/.x4 (.trans alike: it changes which register
 *            gets which element, not the addresses): lane 8q + i gives the 16-byte address of row i
 *            of matrix q; lanes past 8 * matrices are ignored (their offsets are not checked and may
 *            be anything, -1 included).  width must be 16, is_store 0.  Never predicated per lane.
 *   SMK_BANK_KIND_CPASYNC  the shared-memory write of a 16-byte cp.async (LDGSTS): width 16,
 *            is_store 1; a negative offset = lane predicated off.
 *   SMK_BANK_KIND_CPASYNC_ZFILL  the same with a src-size operand (LDGSTS.ZFILL): costs one more
 *            wavefront per active quarter-warp (smk_bank_replay_ldgsts); without sources as CPASYNC.
 *   SMK_BANK_KIND_STSM_X1/X2/X4   stmatrix.m8n8.x1/.x2/.x4 (.trans alike), sm_90: the lanes give
 *            row addresses exactly as for ldmatrix; width 16, is_store 1.  Measured on an H100
 *            (tests/data/bank_probe_stsm_h100.csv): ldmatrix's rule; runtime.h has no SMK_ACC_* for it yet.
 * The measured rules are in bank_model.c's header (smk_bank_get_kind_rule returns them).
 */
enum {
    SMK_BANK_KIND_LDST = 0,
    SMK_BANK_KIND_LDSM_X1 = 1,
    SMK_BANK_KIND_LDSM_X2 = 2,
    SMK_BANK_KIND_LDSM_X4 = 3,
    SMK_BANK_KIND_CPASYNC = 4,
    SMK_BANK_KIND_CPASYNC_ZFILL = 5,
    SMK_BANK_KIND_STSM_X1 = 6,
    SMK_BANK_KIND_STSM_X2 = 7,
    SMK_BANK_KIND_STSM_X4 = 8,
    SMK_BANK_NUM_KINDS = 9
};
#define SMK_BANK_E_INSTR 6 /* unknown instruction kind, or a width / direction it does not have */

/* The rule of a tensor-core kind: the warp's used lanes (`lanes`: 8, 16 or 32) are cut into groups
 * of `group_lanes` consecutive lanes, each costing its bank-conflict degree (distinct 128-byte bank
 * rows asked of one 16-byte slot; duplicates inside a group are free); the instruction costs the
 * sum.  For LDST kinds this is smk_bank_get_rule's table instead. */
typedef struct {
    int lanes;       /* lanes whose addresses count */
    int group_lanes; /* lanes per wavefront group */
} smk_bank_kind_rule;
int smk_bank_get_kind_rule(int kind, smk_bank_kind_rule *rule);

/* smk_bank_replay for any kind: kind SMK_BANK_KIND_LDST is exactly smk_bank_replay(); the others
 * need width 16 and their own direction (LDSM: is_store 0; CPASYNC, STSM: is_store 1), else -1 with
 * *err = SMK_BANK_E_INSTR.  Same outputs as smk_bank_replay. */
long long smk_bank_replay_kind(const long long *byte_addr, long long n_instr, int kind, int width, int is_store,
                               int *out_wavefronts, int *out_ideal, long long *bad_index, int *err);
/* One instruction of any kind: wavefronts, or -1 (err as above). */
int smk_bank_wavefronts_kind(const long long *byte_addr, int kind, int width, int is_store, int *err);

/* cp.async (LDGSTS) with its lanes' global sources: the rule measured on the probe and the GEMM's own
 * counts (the LDGSTS RULE in bank_model.c, docs/BANK_MODEL.md).  saddr as for SMK_BANK_KIND_CPASYNC (16-byte aligned shared
 * offsets, negative = lane off); gaddr: the same lanes' global byte offsets from any 128-byte-aligned
 * origin (>= 0 where the lane reads, -1 where it is on with src-size 0: it writes zeros and reads
 * nothing; their 128-byte lines, 32-byte sectors and 16-byte position matter); zfill: the LDGSTS.ZFILL form
 * (cp.async with a src-size operand).  Ideal: one wavefront per active quarter-warp (two with zfill).  Same outputs and errors as
 * smk_bank_replay (SMK_BANK_E_RANGE also for a gaddr below -1 on an active lane). */
long long smk_bank_replay_ldgsts(const long long *saddr, const long long *gaddr, long long n_instr, int zfill,
                                 int *out_wavefronts, int *out_ideal, long long *bad_index, int *err);
/* The same for a cp.async of `width` bytes (4 / 8: cp.async.ca, LDGSTS.32 / .64, costed per 128 / width-lane
 * group by the larger of the STS rule of that width on saddr and the most distinct global 4-byte words
 * read at one word position of a 128-byte line, the ZFILL form alike, ideal the STS ideal; 16:
 * smk_bank_replay_ldgsts).  Another width: -1, *err = SMK_BANK_E_WIDTH. */
long long smk_bank_replay_ldgsts_w(const long long *saddr, const long long *gaddr, long long n_instr, int zfill,
                                   int width, int *out_wavefronts, int *out_ideal, long long *bad_index, int *err);

#ifdef __cplusplus
}
#endif

#endif /* SMK_BANK_MODEL_H */
