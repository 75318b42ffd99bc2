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
 * RULES AS MEASURED (tests/data/bank_probe_h200.csv: 454 patterns of bench/bank_probe/gen_bank_patterns.py,
 * NVIDIA H200 / sm_90, Nsight Compute, 2026-11-22; the model reproduces every row):
 *
 *   The warp is cut into GROUPS of consecutive lanes (lane 0 first); each group costs its degree,
 *   and the instruction costs the sum (groups with no active lane cost 0).  A group is
 *
 *     phase_lanes = 128 / w lanes (32 / 16 / 8 for width 4 / 8 / 16): at most 128 bytes of register
 *         data per wavefront, i.e. one 32-bit register for all 32 lanes.  Stores always; loads
 *         unless they pack:
 *     pass_lanes = 256 / w lanes (capped at 32) for a load that PACKS: every lane pair (n, n^1) with
 *         both lanes active reads one address, or every pair (n, n^2) with both lanes active does.
 *         Such a group holds at most 128 / w distinct addresses, and the return path delivers its
 *         data twice as densely (the same word serves both lanes of each pair).
 *
 *                  packing load   otherwise (and every store)
 *     width 4      32             32                the textbook 32-bank rule
 *     width 8      32             16 (half-warps)
 *     width 16     16 (halves)     8 (quarter-warps)
 *
 *   Consequences: a full warp of consecutive words costs 1 / 2 / 4 (one register per wavefront); an
 *   8-byte broadcast load costs 1 and a 16-byte one 2 (packing halves the register count, but only
 *   once: 16-byte "share-quads", where n^1 and n^2 both hold, is still 2); a broadcast store costs
 *   2 / 4.  The packing test is over the whole warp: one non-packing pair anywhere unpacks every
 *   group (16-byte "half-conflictfree-half-bcast" = 4, not 1 + 1 + 1).  A lane whose partner is
 *   inactive never blocks packing (8-byte "active-even-compact" = 1, 16-byte = 2).  Duplicate
 *   addresses are free only inside a group: 8-byte "share-halves" (lanes l and l+16 read one of 16
 *   conflict-free words) = 2.  This matches NVIDIA's description for sm_70..75 (developer forum,
 *   "Unexpected shared memory bank conflict", forums.developer.nvidia.com/t/77228): the return
 *   bandwidth is 128 B = one register per cycle, and uniform pairs Tn==Tn^1 or Tn==Tn^2 pack the
 *   return registers 2x.
 *
 * HYPOTHESES THE MEASUREMENT RULED OUT (rows that contradict each; names are the generator's):
 *   H1  (this file before the measurement) a load pass of 256 / w lanes costs 1 whenever all its
 *       active lanes fit one wavefront, else the sum of its 128 / w-lane phases: 18 rows, e.g.
 *       8-byte ld "share-halves" measured 2 (H1 1), "bcast-alt-samebank" (0,128,0,128..) 2 (H1 4),
 *       16-byte ld "quarters-AABB" 4 (H1 2).  Fitting is not the merge criterion; lane pairing is.
 *   H1b phases merge only when they ask for the same address set: "share-pairs" 8-byte ld = 1.
 *   H2  any phases with identical address sets merge: 16-byte ld "quarters-ABBA" = 4 (H2 2),
 *       "active-q0q3-same" = 2 (H2 1).
 *   H3  a phase costs the 128-byte lines it touches: "consec-base64" = 1 / 2 / 4 (H3 2 / 4 / 8).
 *   H4  a conflicted pass is split by address over the whole pass: 8-byte ld "interleave-rows" and
 *       "perm-r0..2" = 4 (H4 2).
 *   H5  stores merge like loads: 8-byte st "bcast-0" = 2, "share-pairs" = 2; packing stores
 *       disagrees on 21 rows.
 *   U   a load costs the degree of its UNIQUE addresses over the whole warp, at least one wavefront
 *       per active 128 / w-lane group unless the whole warp reads one address: 47 rows (the 8-byte
 *       permutations measure 4, U says 2).
 *   and variants of the rule above: packing on n^1 only (4 rows: "bcast-alt-*"), on n^2 only
 *   (6 rows: "share-pairs", "quarters-disjoint-fit", "active-even-compact"), also on n^4 / n^8
 *   (10 rows: "share-quarters", "bcast-lane4-*", "quarters-AABB"...), requiring both lanes of each
 *   pair active (2 rows: "active-even-compact"), deciding packing per 256 / w-lane group (2 rows:
 *   16-byte "half-conflictfree-half-bcast*").
 *
 * NOT COVERED by the table (the rule extrapolates there): packing loads with many distinct
 * conflicting addresses (the table's conflicted packing loads are "bcast-*-samebank", 2 to 4 words
 * of one bank, and "active-even"); a warp where some pairs are half-inactive and the others agree
 * (the table has all odd lanes inactive, or fully active warps); 4-byte loads, where packing could
 * not go below one wavefront per warp and is not modelled; other GPUs (re-run bench/bank_probe/bank_probe.sh
 * there and replay).
 *
 * TENSOR-CORE KINDS (tests/data/bank_probe_tc_h100.csv: 155 patterns of
 * bench/bank_probe/bank_patterns_tc.txt, NVIDIA H100 / sm_90, Nsight Compute, 2026-11-23;
 * smk_bank_replay_kind):
 *
 *   ldmatrix .x1 / .x2 / .x4 (plain and .trans alike): the wavefronts are counted in
 *     l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld (and smsp__sass_..._op_ldsm), instructions in
 *     smsp__inst_executed_op_ldsm (not in ..._op_shared_ld).  RULE: one group per matrix (lanes
 *     8q..8q+7 = its 8 row addresses), each costing its degree (distinct bank rows asked of one
 *     16-byte slot); duplicates inside a matrix are free; no merging across matrices.  Every ldsm row
 *     of the table agrees: consecutive rows 1 / 2 / 4, k-way per phase k / 2k / 4k, one 8-way
 *     matrix + three free = 8 + 1 + 1 + 1 = 11, all lanes one address 1 / 2 / 4 (a broadcast still
 *     costs one wavefront per matrix), four matrices on the same 8 rows 4 (no merging), and the
 *     GEMM's own fragments: A BK=32 naive 16, A BK=64 / B naive 32, <2,3,2> 8 / 16, <2,3,3> 4 / 8,
 *     pad / automatic swizzle / <3,3,3> 4.
 *
 *   cp.async 16 bytes (LDGSTS): its shared-memory writes do NOT appear in ..._op_st (0 in every row)
 *     nor in l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld; the counter that moves is
 *     smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts (instructions:
 *     smsp__sass_inst_executed_op_ldgsts).  ncu's own ideal for it is one wavefront per 64 bytes (8
 *     for a full warp).  The count depends on the GLOBAL side as well as the shared one: the same
 *     destinations cost 12 in the one-instruction probe (sources 16 bytes off a 128-byte line) and 8
 *     in the GEMM (sources on 128-byte lines), so the kind without sources (SMK_BANK_KIND_CPASYNC)
 *     keeps the STS.128 shared-address rule -- labelled, not the counter -- and
 *     smk_bank_replay_ldgsts takes the sources too.
 *
 *   LDGSTS RULE (smk_bank_replay_ldgsts), fitted to ncu's per-instruction counts of the GEMM's own
 *     cp.async (H100, 2026-11-23, Source Counters; docs/GEMM16_NOTES.md).  Two SASS forms: plain
 *     LDGSTS (cp.async of 16 bytes) and LDGSTS.ZFILL (cp.async with a src-size operand), which costs
 *     exactly one more wavefront per active quarter-warp.  Each quarter-warp (8 lanes) with an active
 *     lane costs
 *         max(1, P - 1 + mixed + crossed) + zfill
 *       P        the distinct (64-byte global block, 64-byte shared block) pairs its chunks move between
 *                (a 128-byte global row copied to one 128-byte bank row: 2)
 *       mixed    1 if the chunks' 16-byte position parity (shared slot ^ global chunk, bit 0) is kept by
 *                some and flipped by others (Swizzle<2,3,2> on 128-byte rows XORs the halves differently)
 *       crossed  1 if P is 2 and the run crosses a global line or a shared bank row (a 64-byte rotation)
 *     Measured and reproduced, per instruction, plain / ZFILL: 128-byte rows copied whole (naive,
 *     Swizzle<3,3,3>, <2,3,3>) 4 / 8; <2,3,2> 8 / 12; a 16-byte rotation r between the global row
 *     and the bank row (pad's 144-byte rows in shared memory, or a 1000-element global pitch; r = 0..7
 *     in turn over eight rows) 1 + 3 + 3 + 3 + 2 + 3 + 3 + 3 = 21 per eight quarters: 10.5 / 14.5.
 *     Known miss: 64-byte tile rows (32-wide k-tiles, variants 2 / 3 / 5), measured 16 per ZFILL
 *     instruction where the rule says 12.  The isolated probe rows (bench/bank_probe/bank_patterns_tc.txt,
 *     sources 16 bytes off their lines, one instruction per launch) are not reproduced either.
 *
 * SUB-WORD LDS/STS, widths 1 and 2 (LDS.U8 / .U16, STS.U8 / .U16; issue #30).  MEASURED:
 *   tests/data/bank_probe_subword_h100.csv, 408 patterns of bench/bank_probe/bank_patterns_subword.txt
 *   (102 shapes x 1 / 2 bytes x ld / st), NVIDIA H100 / sm_90, Nsight Compute, 2026-11-25 (the same
 *   two counters as the 4/8/16-byte table; one instruction per launch).  The model reproduces every row.
 *
 *   RULE: a sub-word lane is replayed as the 4-byte word holding its byte(s); the instruction is one
 *   32-lane group costing the degree of those words -- max over banks of the distinct words (bank
 *   rows) asked of the bank; inactive lanes cost nothing.  I.e. exactly the 4-byte rule applied to
 *   (offset & ~3).  Loads and stores alike: the bank serves one word per wavefront, whole, to any
 *   number of lanes, and on a store merges the lanes' bytes into it (several bytes of one word, or the
 *   same byte from several lanes, take one wavefront).
 *
 *   Evidence (names as in the pattern file; each value holds for ld and st -- they agree on all 204
 *   address shapes -- and for 1 and 2 bytes unless two are given):
 *     lanes sharing a word are free:   consec 1, one-word-all-elems 1, bank0-1word-two-lanes 1,
 *                                      bcast-0 (32 lanes, one byte; also a store) 1, perm-within-words 1
 *     same bank, other word conflicts: two-words-samebank 2, kway{2,4,8,16}-words 2/4/8/16,
 *                                      bank0-32words-diff-elem 32, stride128 32, 2-byte stride64 32
 *     the byte lane inside the word does not matter: kway{k}-elems = kway{k}-words for every k,
 *                                      bcast-last-elem-of-word 1, consec-base1/3/127 1
 *     the whole warp is one group (no half-warp phases): consec 1 (half-warps would say 2),
 *                                      bank5-3words-lanes-0-16-31 3, even-consec-odd-samebank 17
 *     strides (1 byte / 2 bytes): 2 -> 1/1, 3 -> 1/2, 4 -> 1/2, 5 -> 2/2, 8 -> 2/4, 16 -> 4/8,
 *                                      32 -> 8/16, 33 -> 1/1, 64 -> 16/32, 65 -> 2/2, 128 -> 32/32,
 *                                      129 -> 4/2 (all = the word degree)
 *     inactive lanes: active-none 0, active-lane17 1, active-odd-stride128 16, mask-r*-rand256 2.
 *   Ruled out (rows of 408 that contradict): distinct BYTE addresses per bank (254: consec would be
 *   4 / 2), 16-lane phases (318), 8-lane phases (342), every lane its own bank access (284),
 *   8-byte banks (44: stride33, stride65, rand1024), one wavefront per 128-byte line touched (80).
 *   This is what the CUDA guide describes for sm_5x and later; Hopper's counter agrees.
 *
 * STMATRIX x1 / x2 / x4 (STSM.16.M88[.2|.4], .trans = STSM.16.MT88[.2|.4]; SMK_BANK_KIND_STSM_*).
 *   MEASURED: tests/data/bank_probe_stsm_h100.csv, 204 patterns of bench/bank_probe/bank_patterns_stsm.txt,
 *   NVIDIA H100 / sm_90, Nsight Compute, 2026-11-25; the model reproduces every row.
 *   COUNTERS: STSM's wavefronts are in l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st (STS's
 *   counter; its description lists STSM) and, equal on every row, in
 *   smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm (the SASS ..._op_st reads 0);
 *   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st = wavefronts - matrices on every row (ncu's
 *   ideal: one wavefront per matrix, as smk_bank_ideal).  Its
 *   instructions are NOT in smsp__inst_executed_op_shared_st nor smsp__sass_inst_executed_op_shared_st
 *   (0 on every row); ncu lists smsp__inst_executed_op_shared_stsm ("warp instructions executed: STSM"),
 *   which this run did not ask for (the probe named it wrongly; fixed), so the table's instructions
 *   column is empty.  (l1tex__data_pipe_lsu_wavefronts_mem_shared, all ops, reads the op_st count + 1
 *   on every row, whatever the pattern: a fixed wavefront of the launch outside LDS/STS/STSM.)
 *
 *   RULE: ldmatrix's.  One group per 8x8 matrix (lanes 8q..8q+7 give its 8 row addresses), each
 *   costing its degree over 16-byte slots (distinct bank rows asked of one slot; duplicates inside a
 *   matrix are free); no merging across matrices; lanes past 8 * matrices are ignored; .trans costs
 *   the same (it permutes elements between registers, not the rows written).
 *   Evidence: plain and .trans agree on all 102 address shapes; consecutive rows 1 / 2 / 4; a k-way
 *   conflict in every matrix (stsm-phase-{2,4,8}way) k / 2k / 4k; one 8-way matrix + free ones 8 / 9 / 11;
 *   every lane one address 1 / 2 / 4 and four matrices on the same 8 rows 2 / 4 (no merging: one group
 *   over the used lanes would say 1 -- 60 rows contradict it; 16-lane groups: 44); x1 / x2 with lanes
 *   8..31 on conflicting rows cost as their matrices alone (STS.128's quarter-warp rule over all 32
 *   lanes: 128 rows contradict); rows shared by two lanes of a matrix free (stsm-pairs-share 1 / 2 / 4);
 *   the epilogue's C tiles: naive 8 / 16 / 32, pad and automatic swizzle 1 / 2 / 4, Swizzle<3,4,3>
 *   2 / 4 / 8, <2,3,2> 4 / 8 / 16.
 *
 * ---------------------------------------------------------------------------------------------
 * MEASURED TABLES: tests/data/bank_probe_h200.csv (bench/bank_probe/bank_probe.sh on an H200, ncu
 * counters), tests/data/bank_probe_subword_h100.csv and tests/data/bank_probe_stsm_h100.csv (the same
 * script with --subword, on an H100).  Built as in tests/c/test_bank_model.c's header,
 * `/tmp/tbm tests/data/bank_probe_h200.csv tests/data/bank_probe_subword_h100.csv
 * tests/data/bank_probe_stsm_h100.csv` replays every row through this model, prints each row where
 * model != measured and a per-kind/width tally, and fails on any disagreement.  For another GPU, measure its table the same way; if rows disagree,
 * adjust RULES below or the packing test in packs(), and say here which hypothesis the data chose.
 * ---------------------------------------------------------------------------------------------
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

/* ---- cp.async with global sources (the LDGSTS RULE above) ------------------------------------------ */

static int ldgsts_one(const long long *sa, const long long *ga, int zfill, int *ideal)
{
    int q, lane, cost = 0, quarters = 0;
    for (q = 0; q < SMK_WARP_LANES / 8; q++) {
        long long pair_s[8], pair_g[8], line0 = -1, row0 = -1;
        int npair = 0, par = 0, split = 0, active = 0, i;
        for (lane = 8 * q; lane < 8 * q + 8; lane++) {
            const long long s = sa[lane], g = ga[lane];
            if (s < 0)
                continue;
            active = 1;
            for (i = 0; i < npair && !(pair_s[i] == (s >> 6) && pair_g[i] == (g >> 6)); i++)
                ;
            if (i == npair) {
                pair_s[npair] = s >> 6;
                pair_g[npair++] = g >> 6;
            }
            par |= 1 << (((s >> 4) ^ (g >> 4)) & 1);
            if (line0 < 0)
                line0 = g >> 7, row0 = s >> 7;
            else if ((g >> 7) != line0 || (s >> 7) != row0)
                split = 1;
        }
        if (!active)
            continue;
        quarters++;
        i = npair - 1 + (par == 3) + (npair == 2 && split);
        cost += (i < 1 ? 1 : i) + (zfill ? 1 : 0);
    }
    if (ideal)
        *ideal = quarters * (zfill ? 2 : 1);
    return cost;
}

long long smk_bank_replay_ldgsts(const long long *saddr, const long long *gaddr, long long n_instr, int zfill,
                                 int *out_wavefronts, int *out_ideal, long long *bad_index, int *err)
{
    long long i, total = 0;
    int lane;
    if (bad_index)
        *bad_index = -1;
    if (err)
        *err = SMK_BANK_OK;
    if ((!saddr || !gaddr) && n_instr > 0) {
        if (err)
            *err = SMK_BANK_E_NULL;
        return -1;
    }
    for (i = 0; i < n_instr; i++) {
        const long long *sa = saddr + i * SMK_WARP_LANES, *ga = gaddr + i * SMK_WARP_LANES;
        int code = smk_bank_validate(sa, 16, 1, NULL, 0), wf, idl = 0;
        for (lane = 0; lane < SMK_WARP_LANES && code == SMK_BANK_OK; lane++)
            if (sa[lane] >= 0 && ga[lane] < 0)
                code = SMK_BANK_E_RANGE;
        if (code != SMK_BANK_OK) {
            if (bad_index)
                *bad_index = i;
            if (err)
                *err = code;
            return -1;
        }
        wf = ldgsts_one(sa, ga, zfill, &idl);
        if (out_wavefronts)
            out_wavefronts[i] = wf;
        if (out_ideal)
            out_ideal[i] = idl;
        total += wf;
    }
    return total;
}
