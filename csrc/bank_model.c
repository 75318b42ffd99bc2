/*
 * bank_model.c -- replay one warp's shared-memory instruction into wavefronts.
 *
 * Shared memory is 32 banks x 4 bytes; byte b lives in bank (b/4) % 32 at "row" b/128 (layout.h's
 * smk_bank).  One wavefront reads or writes at most one row per bank.  Every access of an
 * instruction has the same width w in {4, 8, 16} and is w-aligned, so lane l covers the w/4 banks of
 * one "slot" s = (b % 128) / w of row r = b / 128, and two lanes collide iff they name the same slot
 * in different rows; lanes naming the same (slot, row) are the same address (multicast on a load,
 * one write on a store).
 *
 *   degree(lanes) = max over slots of #distinct rows requested in that slot by the active lanes
 *                 = the classic "k-way bank conflict" of those lanes (1 = conflict-free, 0 = none active)
 *
 * RULES (hypothesis H1, fits every fact we have; tests/c/test_bank_model.c checks them):
 *
 *   The lanes of a warp are processed in PASSES of pass_lanes consecutive lanes (lane 0 first).
 *   A pass whose active lanes have degree <= 1 ("fits": every bank asked for one row at most) costs
 *   1 wavefront.  A pass that does not fit is split into PHASES of phase_lanes consecutive lanes,
 *   and costs the sum of the phases' degrees.  Passes with no active lane cost 0.
 *
 *                  pass_lanes           phase_lanes
 *     width 4      32 (ld and st)       32             the textbook 32-bank rule
 *     width 8 ld   32                   16 (half-warp)
 *     width 8 st   16                   16
 *     width 16 ld  16                    8 (quarter-warp)
 *     width 16 st   8                    8
 *
 *   i.e. phase_lanes = 128 / w (a phase can move at most one 128-byte bank row: 32 banks x 4 B), and
 *   for loads pass_lanes = 256 / w (at most 256 bytes of register data come back per wavefront, so a
 *   broadcast of 8 bytes reaches all 32 lanes at once but one of 16 bytes reaches only 16 lanes).
 *   Stores never combine phases: each phase is written in its own wavefront(s).
 *
 * Why (facts measured on H200 with Nsight Compute, wavefronts per instruction):
 *   8-byte broadcast load = 1      -> a load pass of 8-byte lanes spans the whole warp (not 2 halves)
 *   8-byte broadcast store = 2     -> stores do not merge the half-warps
 *   16-byte broadcast load = 2     -> a 16-byte load pass spans 16 lanes, not 32
 *   16-byte broadcast store = 4    -> 16-byte stores go quarter-warp by quarter-warp
 *   random permutation of 32 consecutive 8-byte words, load = 4 (!)
 *                                  -> a conflicted pass is split BY LANE (half-warps), not by
 *                                     address: a "unique 128-byte rows" or "per-bank distinct rows
 *                                     over the warp" model says 2; half-warps each holding ~8 words
 *                                     of both rows with slot collisions give 2 + 2 = 4
 *   full-warp minimums 1 / 2 / 4   -> consecutive 8-byte words: two half-warps, each conflict-free
 *
 * Hypotheses the probe (bench/bank_patterns.txt, pattern names in quotes) tells apart; the numbers
 * are wavefronts per instruction under each hypothesis:
 *   H1  the rules above.
 *   H1b a load pass merges its phases only when they ask for the SAME address set:
 *       8-byte ld "share-pairs" (lanes 0-15 read words 0..7, lanes 16-31 words 8..15: 128 bytes,
 *       conflict-free): H1 1, H1b 2.  "halves-same-set-perm": both 1.
 *   H2  ANY phases with identical address sets merge, not only the phases of one pass:
 *       16-byte ld "quarters-ABBA": H1 4, H2 2;  "active-q0q3-same": H1 2, H2 1.
 *   H3  a phase costs the number of 128-byte LINES it touches, not its bank-conflict degree:
 *       "consec-base64" (consecutive, starting mid-row): H1 1 / 2 / 4 for width 4 / 8 / 16, H3 2 / 4 / 8
 *       (the textbook 4-byte rule already says 1 for width 4; widths 8 and 16 are the open question).
 *   H4  a conflicted pass is split BY ADDRESS (one wavefront per distinct row per bank over the whole
 *       pass) instead of by lane: 8-byte ld "interleave-rows" (even lanes words 0..15, odd lanes
 *       16..31): H1 4, H4 2.  "perm-within-halves": both 2; "perm-r0..2": H1 4, H4 2 (the H200
 *       measured 4, so H4 is already unlikely; the probe confirms it on more patterns).
 *   H5  stores merge phases like loads when the pass fits: 8-byte st "share-pairs", "bcast-*":
 *       H1 2, H5 1 (H200 broadcast store = 2 says no for broadcasts).
 *   Every pattern is measured for ld and st and for all three widths, and the k-way, stride,
 *   random-window and layout.h tile patterns check the degree arithmetic itself.
 *
 * ---------------------------------------------------------------------------------------------
 * MEASURED TABLE: tests/data/bank_probe_h100.csv (bench/bank_probe.sh on an H100, ncu counters).
 * Built as in tests/c/test_bank_model.c's header, `/tmp/tbm tests/data/bank_probe_h100.csv` replays
 * every row through this model, prints each row where model != measured and a per-width/kind tally,
 * and fails on any disagreement.  If rows disagree, adjust RULES
 * below (pass/phase lanes per width and kind) or, if no table entry fits, the cost function in
 * pass_cost(); the header comment above must then say which hypothesis the data chose.
 * ---------------------------------------------------------------------------------------------
 */
#include "bank_model.h"
#include "layout.h"

#include <stdio.h>
#include <string.h>

/* RULES[is_store][log2(width) - 2]: the table in the header comment.  Adjust here when refitting. */
static const smk_bank_rule RULES[2][3] = {
    /* load  */ {{32, 32}, {32, 16}, {16, 8}},
    /* store */ {{32, 32}, {16, 16}, {8, 8}},
};

#define SMK_ROW_BYTES (SMK_NUM_BANKS * SMK_BANK_BYTES) /* 128: one row of all banks */

static int width_index(int width)
{
    switch (width) {
    case 4: return 0;
    case 8: return 1;
    case 16: return 2;
    default: return -1;
    }
}

const char *smk_bank_strerror(int code)
{
    switch (code) {
    case SMK_BANK_OK: return "ok";
    case SMK_BANK_E_NULL: return "address array is NULL";
    case SMK_BANK_E_WIDTH: return "width must be 4, 8 or 16 bytes";
    case SMK_BANK_E_KIND: return "is_store must be 0 (load) or 1 (store)";
    case SMK_BANK_E_ALIGN: return "address is not a multiple of the access width";
    case SMK_BANK_E_RANGE: return "address is beyond the shared-memory window";
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
    int lane, shift = width == 4 ? 0 : width == 8 ? 1 : 2; /* log2(width / 4) */
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

#define SMK_MAX_PHASES 4 /* phases per pass: pass_lanes / phase_lanes <= 4 in RULES */

/*
 * One sweep over the lanes of a pass [lo, lo + pass_lanes) that yields the conflict degree of the
 * pass and of each of its phases (degree = max over slots of distinct rows; 0 = no active lane) and
 * the number of distinct addresses in the pass.  Each distinct (slot, row) is an entry that remembers
 * which phases asked for it; a slot holds at most 32 entries (one per lane).
 */
typedef struct {
    int deg, distinct;
    int phase_deg[SMK_MAX_PHASES];
} pass_info;

static void analyze(const decoded *d, int lo, smk_bank_rule rule, int want_phases, pass_info *out)
{
    int rows[SMK_NUM_BANKS][SMK_WARP_LANES];
    unsigned char pmask[SMK_NUM_BANKS][SMK_WARP_LANES];
    int cnt[SMK_NUM_BANKS];
    unsigned seen = 0;
    int lane, k, deg = 0, nd = 0, nph = rule.pass_lanes / rule.phase_lanes, pshift = 0;
    while ((1 << pshift) < rule.phase_lanes) /* phase_lanes is a power of two: no division per lane */
        pshift++;
    for (lane = lo; lane < lo + rule.pass_lanes; lane++) {
        int slot = d->slot[lane], row = d->row[lane];
        unsigned char ph = (unsigned char)(1u << ((lane - lo) >> pshift));
        if (row < 0)
            continue;
        if (!(seen >> slot & 1u)) {
            seen |= 1u << slot;
            rows[slot][0] = row;
            pmask[slot][0] = ph;
            cnt[slot] = 1;
            nd++;
            continue;
        }
        for (k = 0; k < cnt[slot] && rows[slot][k] != row; k++)
            ;
        if (k < cnt[slot]) {
            pmask[slot][k] |= ph;
        } else {
            rows[slot][k] = row;
            pmask[slot][k] = ph;
            cnt[slot]++;
            nd++;
            if (cnt[slot] > deg)
                deg = cnt[slot];
        }
    }
    out->deg = seen ? (deg > 1 ? deg : 1) : 0;
    out->distinct = nd;
    for (k = 0; k < SMK_MAX_PHASES; k++)
        out->phase_deg[k] = 0;
    if (!want_phases || out->deg == 0)
        return;
    while (seen) { /* per phase: max over slots of entries that phase asked for */
        int slot = 0, p, e;
        while (!(seen >> slot & 1u))
            slot++;
        seen &= ~(1u << slot);
        for (p = 0; p < nph; p++) {
            int c = 0;
            for (e = 0; e < cnt[slot]; e++)
                c += pmask[slot][e] >> p & 1u;
            if (c > out->phase_deg[p])
                out->phase_deg[p] = c;
        }
    }
}

/*
 * Fast path, branch-free: 0 = no active lane, 1 = the lanes [lo, hi) fit one wavefront (every slot
 * asked for one row at most), 2 = they do not (then analyze() works out how much more).  Most
 * instructions of a tuned kernel take only this.
 */
static int fits(const decoded *d, int lo, int hi)
{
    int first[SMK_NUM_BANKS];
    unsigned seen = 0, conflict = 0;
    int lane;
    for (lane = lo; lane < hi; lane++) {
        int slot = d->slot[lane], row = d->row[lane];
        unsigned bit = (row >= 0 ? 1u : 0u) << slot, was = seen & bit;
        int prev = was ? first[slot] : row;
        conflict |= (unsigned)(prev != row);
        first[slot] = prev;
        seen |= bit;
    }
    return seen ? 1 + (conflict != 0) : 0;
}

/* The rule of the header comment for one pass [lo, lo + rule.pass_lanes).  *ideal_out gets the
 * conflict-free cost of the same pass (see smk_bank_ideal). */
static int pass_cost(const decoded *d, int lo, smk_bank_rule rule, int width, int *ideal_out)
{
    pass_info pi;
    int p, cost = 0, ideal = 0, split = rule.phase_lanes < rule.pass_lanes;
    int f = fits(d, lo, lo + rule.pass_lanes);
    if (f < 2) {
        *ideal_out = f;
        return f;
    }
    analyze(d, lo, rule, split, &pi);
    if (pi.deg <= 1 || !split) {
        *ideal_out = pi.deg > 0;
        return pi.deg;
    }
    for (p = 0; p < rule.pass_lanes / rule.phase_lanes; p++) {
        cost += pi.phase_deg[p];
        ideal += pi.phase_deg[p] > 0;
    }
    /* Placed conflict-free, the distinct addresses fit one wavefront iff they total <= 128 bytes;
     * otherwise each active phase (<= 128 bytes of distinct data) can be conflict-free on its own. */
    *ideal_out = pi.distinct * width <= SMK_ROW_BYTES ? 1 : ideal;
    return cost;
}

/* Both costs of one instruction; returns the validation code (costs are set only on success). */
static int costs(const long long *a, int width, int is_store, int *wf, int *ideal)
{
    int wi = width_index(width), lo, w = 0, i = 0, code;
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
    for (lo = 0; lo < SMK_WARP_LANES; lo += rule.pass_lanes) {
        int pi;
        w += pass_cost(&d, lo, rule, width, &pi);
        i += pi;
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

long long smk_bank_replay(const long long *byte_addr, long long n_instr, int width, int is_store,
                          int *out_wavefronts, int *out_ideal, long long *bad_index, int *err)
{
    long long i, total = 0;
    int code = SMK_BANK_OK;
    if (bad_index)
        *bad_index = -1;
    if (!byte_addr && n_instr > 0)
        code = SMK_BANK_E_NULL;
    else if (width_index(width) < 0)
        code = SMK_BANK_E_WIDTH;
    else if (is_store != 0 && is_store != 1)
        code = SMK_BANK_E_KIND;
    for (i = 0; code == SMK_BANK_OK && i < n_instr; i++) {
        const long long *a = byte_addr + i * SMK_WARP_LANES;
        int wf, ideal;
        code = costs(a, width, is_store, &wf, &ideal);
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
