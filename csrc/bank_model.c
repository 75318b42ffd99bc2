/*
 * bank_model.c -- replay one warp's shared-memory instruction into wavefronts.
 *
 * Shared memory is 32 banks x 4 bytes; byte b lives in bank (b/4) % 32 at "row" b/128 (layout.h's
 * smk_bank).  One wavefront reads or writes at most one row per bank.  Every access of an
 * instruction has the same width w and is w-aligned, so lane l covers the w/4 banks of one "slot"
 * s = (b % 128) / w of row r = b / 128, and two lanes collide iff they name the same slot in
 * different rows; lanes naming the same (slot, row) are the same address (multicast on a load, one
 * write on a store).
 *
 *   degree(lanes) = max over slots of #distinct rows requested in that slot by the active lanes
 *                 = the classic "k-way bank conflict" of those lanes (1 = conflict-free, 0 = none active)
 *
 * THE RULES (each reproduces every row of its Nsight Compute table; the evidence, the hypotheses each
 * table ruled out and what the tables do not cover are in docs/BANK_MODEL.md):
 *
 *   LDS/STS of 4, 8, 16 bytes: the warp is cut into GROUPS of consecutive lanes, each costing its
 *     degree, summed.  A group is 128 / w lanes (one 32-bit register of all 32 lanes per wavefront)
 *     for stores and for loads that do not pack; 256 / w lanes (capped at 32) for a load that PACKS:
 *     every active lane pair (n, n^1) reads one address, or every active pair (n, n^2) does (the
 *     return path then delivers each word to both lanes).  RULES[][] below.
 *   LDS/STS of 1 and 2 bytes: each lane is replayed as the 4-byte word holding its byte(s), and the
 *     4-byte rule applies to those words (the bank serves one word per wavefront to any number of
 *     lanes, and merges several lanes' bytes of one word on a store).
 *   ldmatrix / stmatrix .x1/.x2/.x4 (.trans alike): one group per 8x8 matrix (lanes 8q..8q+7 give its
 *     8 row addresses of 16 bytes), each costing its degree; no merging across matrices.
 *   cp.async (LDGSTS): its count depends on the global side too; smk_bank_replay_ldgsts(_w) takes the
 *     sources (the LDGSTS rule, bank_ldgsts.c, fitted to one-instruction probes and the GEMMs' launches: docs/BANK_MODEL.md):
 *     16 bytes by sector matchings per (line, bank row, parity), 4 / 8 bytes by the STS rule; the kind
 *     without sources keeps STS.128's shared-address rule, labelled as such.
 *
 * For another GPU, measure its tables with bench/bank_probe/bank_probe.sh and replay them
 * (tests/c/test_bank_model.c); if rows disagree, adjust RULES below or the packing test in packs(),
 * and record in docs/BANK_MODEL.md which hypothesis the data chose.
 */
#include "bank_model.h"
#include "layout.h"

#include <stdio.h>
#include <string.h>

/* RULES[is_store][log2(width)] = {pass_lanes, phase_lanes}: the group size of a packing load and of
 * everything else (the table in the header comment).  Stores never pack, so their pass_lanes equals
 * phase_lanes.  Widths 1 and 2 are replayed as the 4-byte words they touch (SUB-WORD, header, as
 * measured on an H100), so their rule is width 4's: one 32-lane group.  Adjust here when refitting. */
static const smk_bank_rule RULES[2][5] = {
    /* load  */ {{32, 32}, {32, 32}, {32, 32}, {32, 16}, {16, 8}},
    /* store */ {{32, 32}, {32, 32}, {32, 32}, {16, 16}, {8, 8}},
};

static int width_index(int width)
{
    switch (width) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    default: return -1;
    }
}

const char *smk_bank_strerror(int code)
{
    switch (code) {
    case SMK_BANK_OK: return "ok";
    case SMK_BANK_E_NULL: return "address array is NULL";
    case SMK_BANK_E_WIDTH: return "width must be 1, 2, 4, 8 or 16 bytes";
    case SMK_BANK_E_KIND: return "is_store must be 0 (load) or 1 (store)";
    case SMK_BANK_E_ALIGN: return "address is not a multiple of the access width";
    case SMK_BANK_E_RANGE: return "address is beyond the shared-memory window";
    case SMK_BANK_E_INSTR: return "instruction kind unknown, or not of this width / direction";
    default: return "unknown error";
    }
}

int smk_bank_get_rule(int width, int is_store, smk_bank_rule *rule)
{
    int wi = width_index(width);
    if (wi < 0)
        return SMK_BANK_E_WIDTH;
    if (is_store != 0 && is_store != 1)
        return SMK_BANK_E_KIND;
    if (rule)
        *rule = RULES[is_store][wi];
    return SMK_BANK_OK;
}

int smk_bank_validate(const long long *byte_addr, int width, int is_store, char *msg, int msglen)
{
    int code = SMK_BANK_OK, lane;
    char detail[96] = "";

    if (!byte_addr) {
        code = SMK_BANK_E_NULL;
    } else if (width_index(width) < 0) {
        code = SMK_BANK_E_WIDTH;
        snprintf(detail, sizeof detail, " (got %d)", width);
    } else if (is_store != 0 && is_store != 1) {
        code = SMK_BANK_E_KIND;
        snprintf(detail, sizeof detail, " (got %d)", is_store);
    } else {
        for (lane = 0; lane < SMK_WARP_LANES; lane++) {
            long long a = byte_addr[lane];
            if (a < 0)
                continue;
            if (a & (width - 1)) { /* width is a power of two */
                code = SMK_BANK_E_ALIGN;
                snprintf(detail, sizeof detail, ": lane %d offset %lld, width %d", lane, a, width);
                break;
            }
            if (a >= SMK_BANK_MAX_BYTES) {
                code = SMK_BANK_E_RANGE;
                snprintf(detail, sizeof detail, ": lane %d offset %lld >= %lld", lane, a,
                         SMK_BANK_MAX_BYTES);
                break;
            }
        }
    }
    if (code && msg && msglen > 0)
        snprintf(msg, (size_t)msglen, "%s%s", smk_bank_strerror(code), detail);
    return code;
}

/*
 * One instruction, decoded once: lane l names (slot[l], row[l]); row < 0 = inactive.  Validation is
 * folded into the same sweep, branch-free (shifts and masks only: width is a power of two), so
 * replaying a million instructions stays well under a second.  Returns SMK_BANK_OK or the code
 * smk_bank_validate() would return (width and kind are checked by the caller).
 */
typedef struct {
    int slot[SMK_WARP_LANES];
    int row[SMK_WARP_LANES];
} decoded;

static int decode(const long long *a, int width, decoded *d)
{
    /* log2(width / 4); widths 1 and 2 name the 4-byte word they lie in (slot = its bank) */
    int lane, shift = width <= 4 ? 0 : width == 8 ? 1 : 2;
    long long misaligned = 0, beyond = 0;
    for (lane = 0; lane < SMK_WARP_LANES; lane++) {
        long long x = a[lane], act = x >= 0;
        misaligned |= act & ((x & (width - 1)) != 0);
        beyond |= act & (x >= SMK_BANK_MAX_BYTES);
        d->slot[lane] = smk_bank(x < 0 ? 0 : x) >> shift; /* [0, 128/width): bank / (width/4) */
        d->row[lane] = act ? (int)smk_bank_row(x) : -1;
    }
    if (misaligned | beyond) /* the first offending lane decides, as in smk_bank_validate */
        return smk_bank_validate(a, width, 0, NULL, 0);
    return SMK_BANK_OK;
}

/*
 * Does a load pack (header comment)?  Every lane pair (n, n^1) whose lanes are both active reads
 * one address, or every pair (n, n^2) does.  Branch-free over the 16 pairs of each kind; a pair
 * with an inactive lane never blocks.
 */
static int packs(const long long *a)
{
    int n, bad1 = 0, bad2 = 0;
    for (n = 0; n < SMK_WARP_LANES; n += 4) {
        long long x0 = a[n], x1 = a[n + 1], x2 = a[n + 2], x3 = a[n + 3];
        bad1 |= (x0 >= 0) & (x1 >= 0) & (x0 != x1);
        bad1 |= (x2 >= 0) & (x3 >= 0) & (x2 != x3);
        bad2 |= (x0 >= 0) & (x2 >= 0) & (x0 != x2);
        bad2 |= (x1 >= 0) & (x3 >= 0) & (x1 != x3);
    }
    return !bad1 || !bad2;
}

/*
 * Fast path, branch-free: 0 = no active lane, 1 = the lanes [lo, hi) fit one wavefront (every slot
 * asked for one row at most), 2 = they do not (then degree() works out how much more).  Most
 * instructions of a tuned kernel take only this.
 */
static int fits(const decoded *d, int lo, int hi)
{
    int first[SMK_NUM_BANKS + 1]; /* [SMK_NUM_BANKS]: a dump for inactive lanes */
    unsigned seen = 0, conflict = 0;
    int lane;
    for (lane = lo; lane < hi; lane++) {
        int row = d->row[lane], slot = row >= 0 ? d->slot[lane] : SMK_NUM_BANKS;
        unsigned bit = row >= 0 ? 1u << slot : 0u, was = seen & bit;
        int prev = was ? first[slot] : row;
        conflict |= (unsigned)(prev != row);
        first[slot] = prev;
        seen |= bit;
    }
    return seen ? 1 + (conflict != 0) : 0;
}

/* degree of the lanes [lo, hi): max over slots of distinct rows (0 = no active lane). */
static int degree(const decoded *d, int lo, int hi)
{
    int rows[SMK_NUM_BANKS][SMK_WARP_LANES];
    int cnt[SMK_NUM_BANKS];
    unsigned seen = 0;
    int lane, k, deg = 0;
    int f = fits(d, lo, hi);
    if (f < 2)
        return f;
    for (lane = lo; lane < hi; lane++) {
        int slot = d->slot[lane], row = d->row[lane];
        if (row < 0)
            continue;
        if (!(seen >> slot & 1u)) {
            seen |= 1u << slot;
            rows[slot][0] = row;
            cnt[slot] = 1;
            continue;
        }
        for (k = 0; k < cnt[slot] && rows[slot][k] != row; k++)
            ;
        if (k == cnt[slot]) {
            rows[slot][k] = row;
            if (++cnt[slot] > deg)
                deg = cnt[slot];
        }
    }
    return deg > 1 ? deg : 1; /* fits() said some lane is active */
}

/*
 * Both costs of one instruction; returns the validation code (costs are set only on success).
 * wavefronts = sum over groups of their degree; ideal = the number of groups with an active lane:
 * the group size depends only on which lanes are active and which share an address, and a group
 * never holds more distinct addresses than one 128-byte row has slots (128 / w lanes, or pairs
 * sharing one address when it packs), so placed in distinct banks each active group costs 1.
 */
static int costs(const long long *a, int width, int is_store, int *wf, int *ideal)
{
    int wi = width_index(width), lo, w = 0, i = 0, code, group;
    smk_bank_rule rule;
    decoded d;
    if (!a)
        return SMK_BANK_E_NULL;
    if (wi < 0)
        return SMK_BANK_E_WIDTH;
    if (is_store != 0 && is_store != 1)
        return SMK_BANK_E_KIND;
    code = decode(a, width, &d);
    if (code)
        return code;
    rule = RULES[is_store][wi];
    /* packs() compares byte addresses: only widths 8 and 16 have pass_lanes > phase_lanes */
    group = rule.pass_lanes > rule.phase_lanes && packs(a) ? rule.pass_lanes : rule.phase_lanes;
    for (lo = 0; lo < SMK_WARP_LANES; lo += group) {
        int g = degree(&d, lo, lo + group);
        w += g;
        i += g > 0;
    }
    *wf = w;
    *ideal = i;
    return SMK_BANK_OK;
}

int smk_bank_wavefronts(const long long *byte_addr, int width, int is_store, int *err)
{
    int wf = -1, ideal, code = costs(byte_addr, width, is_store, &wf, &ideal);
    if (err)
        *err = code;
    return code ? -1 : wf;
}

int smk_bank_ideal(const long long *byte_addr, int width, int is_store)
{
    int wf, ideal = -1;
    return costs(byte_addr, width, is_store, &wf, &ideal) ? -1 : ideal;
}

static int kind_costs(const long long *byte_addr, int kind, int *wavefronts, int *ideal);

/* The instructions one by one (code: the argument check's verdict), for every kind. */
static long long replay_loop(const long long *byte_addr, long long n_instr, int kind, int width, int is_store,
                             int code, int *out_wavefronts, int *out_ideal, long long *bad_index, int *err)
{
    long long i, total = 0;
    for (i = 0; code == SMK_BANK_OK && i < n_instr; i++) {
        const long long *a = byte_addr + i * SMK_WARP_LANES;
        int wf, ideal;
        code = kind == SMK_BANK_KIND_LDST ? costs(a, width, is_store, &wf, &ideal) : kind_costs(a, kind, &wf, &ideal);
        if (code) {
            if (bad_index)
                *bad_index = i;
            break;
        }
        if (out_wavefronts)
            out_wavefronts[i] = wf;
        if (out_ideal)
            out_ideal[i] = ideal;
        total += wf;
    }
    if (err)
        *err = code;
    return code ? -1 : total;
}

long long smk_bank_replay(const long long *byte_addr, long long n_instr, int width, int is_store,
                          int *out_wavefronts, int *out_ideal, long long *bad_index, int *err)
{
    int code = SMK_BANK_OK;
    if (bad_index)
        *bad_index = -1;
    if (!byte_addr && n_instr > 0)
        code = SMK_BANK_E_NULL;
    else if (width_index(width) < 0)
        code = SMK_BANK_E_WIDTH;
    else if (is_store != 0 && is_store != 1)
        code = SMK_BANK_E_KIND;
    return replay_loop(byte_addr, n_instr, SMK_BANK_KIND_LDST, width, is_store, code, out_wavefronts, out_ideal,
                       bad_index, err);
}

/* ---- tensor-core kinds: ldmatrix, stmatrix and the shared side of cp.async ---------------------
 * RULES AS MEASURED: see the "TENSOR-CORE KINDS" and "STMATRIX" paragraphs in the header comment. */
static const smk_bank_kind_rule KIND_RULES[SMK_BANK_NUM_KINDS] = {
    /* LDST: not used (smk_bank_get_rule) */ {32, 32},
    /* LDSM_X1 */ {8, 8},
    /* LDSM_X2 */ {16, 8},
    /* LDSM_X4 */ {32, 8},
    /* CPASYNC */ {32, 8},
    /* CPASYNC_ZFILL */ {32, 8},
    /* STSM_X1 (measured: = LDSM_X1) */ {8, 8},
    /* STSM_X2 (measured: = LDSM_X2) */ {16, 8},
    /* STSM_X4 (measured: = LDSM_X4) */ {32, 8},
};

int smk_bank_get_kind_rule(int kind, smk_bank_kind_rule *rule)
{
    if (kind < 0 || kind >= SMK_BANK_NUM_KINDS)
        return SMK_BANK_E_INSTR;
    if (rule)
        *rule = KIND_RULES[kind];
    return SMK_BANK_OK;
}

static int kind_costs(const long long *a, int kind, int *wf, int *ideal)
{
    long long masked[SMK_WARP_LANES];
    const smk_bank_kind_rule r = KIND_RULES[kind];
    int lane, lo, w = 0, i = 0, code;
    decoded d;
    if (!a)
        return SMK_BANK_E_NULL;
    for (lane = 0; lane < SMK_WARP_LANES; lane++)
        masked[lane] = lane < r.lanes ? a[lane] : -1; /* ld/stmatrix ignore lanes past their matrices */
    code = decode(masked, 16, &d);
    if (code)
        return code;
    for (lo = 0; lo < r.lanes; lo += r.group_lanes) {
        int g = degree(&d, lo, lo + r.group_lanes);
        w += g;
        i += g > 0;
    }
    *wf = w;
    *ideal = i;
    return SMK_BANK_OK;
}

static int kind_ok(int kind, int width, int is_store)
{
    if (kind == SMK_BANK_KIND_LDST)
        return 1;
    if (kind < 0 || kind >= SMK_BANK_NUM_KINDS || width != 16)
        return 0;
    return kind == SMK_BANK_KIND_CPASYNC || kind == SMK_BANK_KIND_CPASYNC_ZFILL || kind >= SMK_BANK_KIND_STSM_X1
               ? is_store == 1
               : is_store == 0;
}

long long smk_bank_replay_kind(const long long *byte_addr, long long n_instr, int kind, int width, int is_store,
                               int *out_wavefronts, int *out_ideal, long long *bad_index, int *err)
{
    int code = SMK_BANK_OK;
    if (kind == SMK_BANK_KIND_LDST)
        return smk_bank_replay(byte_addr, n_instr, width, is_store, out_wavefronts, out_ideal, bad_index, err);
    if (bad_index)
        *bad_index = -1;
    if (!kind_ok(kind, width, is_store))
        code = SMK_BANK_E_INSTR;
    else if (!byte_addr && n_instr > 0)
        code = SMK_BANK_E_NULL;
    return replay_loop(byte_addr, n_instr, kind, width, is_store, code, out_wavefronts, out_ideal, bad_index, err);
}

int smk_bank_wavefronts_kind(const long long *byte_addr, int kind, int width, int is_store, int *err)
{
    int wf = -1;
    long long t = smk_bank_replay_kind(byte_addr, 1, kind, width, is_store, &wf, NULL, NULL, err);
    return t < 0 ? -1 : wf;
}

/* cp.async with global sources (the LDGSTS RULE): bank_ldgsts.c. */
