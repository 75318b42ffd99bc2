/*
 * bank_ldgsts.c -- the LDGSTS RULE: a warp's cp.async instruction into wavefronts from its shared destinations
 * AND its global sources (smk_bank_replay_ldgsts / _w, declared in bank_model.h; the evidence and the
 * probes in docs/BANK_MODEL.md).  The shared side's STS rule is bank_model.c's.
 */
#include "bank_model.h"

#include <stddef.h>

/* ---- cp.async with global sources (the LDGSTS RULE, docs/BANK_MODEL.md) -------------------------
 * 16 bytes (cp.async.cg, LDGSTS.128): the warp's chunks split by (global line, shared bank row, 16-byte
 * parity flip h = bit 4 of s ^ g), lanes of different quarter-warps in one part where they move their data
 * by the same amount mod 128 (session 46: the SGEMM deep kernel's B rows, a warp's four quarters over one
 * global row, join; rows adjacent in a line at different shifts do not); each part is a bipartite graph between the global
 * 32-byte sectors and the shared 32-byte bank groups it moves data between (one edge per distinct pair)
 * and costs its largest degree (the fewest sector -> group matchings covering it: a wavefront moves each
 * sector of one line into at most one group of one bank row, every chunk halves kept or every one
 * swapped), the edges that move a whole sector (both 16-byte halves) and those that move one half
 * counted apart (session 46: a wavefront moves whole sectors or half sectors, never both -- the rows
 * rotated by an odd chunk count on both sides); the warp costs the sum, plus one per active quarter-warp
 * for the ZFILL form.  ZFILL only: lanes of one quarter-warp reading the same 16-byte source go in rounds
 * (the k-th such lane in round k), each round costed alone, plus one per round past a quarter's first
 * (session 47: session 46's 38 duplicate patterns 26 exact, the rest 1-2 wavefronts under; 32 held-out
 * random ones within -13% .. +5%).
 * 4 and 8 bytes (cp.async.ca, LDGSTS.32 / .64, the narrow copies; session 46): per 128 / W-lane group
 * (the warp / each half-warp), the STS rule of the width on the shared addresses plus, for the most lanes
 * c that read one 4-byte word position of a 128-byte global line (g mod 128; lanes reading the same word
 * count each), c - 1 (a wavefront carries each position of the line once); the ZFILL form costs the same.
 * A lane with src-size 0 (source -1) writes its zeros (the STS side) and reads nothing.
 * Measured: tests/data/ldgsts_probe_h100.csv, ldgsts_probe_s46_h100.csv (the SGEMM deep kernel's copies,
 * 3033x12x1054's every narrow copy, duplicated and zero-filled lanes), ldgsts_probe_s47_deep_h100.csv (every
 * replayed copy of eight deep launches), ldgsts_probe_s47_dup_h200.csv (random duplicate sources).  These are
 * one instruction launched alone; inside a running launch 16-byte copies can read otherwise (docs/BANK_MODEL.md,
 * "LDGSTS in a running launch"). */

typedef struct {
    long long key, src, dst;
    int half; /* bit 4 of the global address: which half of its sector the chunk is */
} ldgsts_edge;

/* Largest degree among the distinct (src, dst) edges of one key in e[0..n) (n <= 32). */
static int ldgsts_part(const ldgsts_edge *e, int n, long long key)
{
    int i, j, best = 0;
    for (i = 0; i < n; i++) {
        int ds = 0, dd = 0;
        if (e[i].key != key)
            continue;
        for (j = 0; j < n; j++) {
            int k, dup = 0;
            if (e[j].key != key)
                continue;
            for (k = 0; k < j && !dup; k++) /* count each distinct edge once */
                dup = e[k].key == key && e[k].src == e[j].src && e[k].dst == e[j].dst;
            if (dup)
                continue;
            ds += e[j].src == e[i].src;
            dd += e[j].dst == e[i].dst;
        }
        best = ds > best ? ds : best;
        best = dd > best ? dd : best;
    }
    return best;
}

/* The 16-byte rule's cost of the lanes whose round is r (rnd[lane] == r; round 1 holds every lane that reads a
 * chunk no earlier lane of its quarter-warp read). */
static int ldgsts16_round(const long long *sa, const long long *ga, const int *rnd, int r)
{
    ldgsts_edge e[SMK_WARP_LANES];
    int whole[SMK_WARP_LANES];
    int lane, cost = 0, n = 0, i, j;
    int lanes[SMK_WARP_LANES], root[SMK_WARP_LANES];
    long long shift[SMK_WARP_LANES];
    for (lane = 0; lane < SMK_WARP_LANES; lane++) {
        const long long s = sa[lane], g = ga[lane];
        if (s < 0 || g < 0 || rnd[lane] != r)
            continue; /* off, src-size 0 (it writes zeros, reads nothing: no part of the global side), another round */
        e[n].key = ((g >> 7) * 8192 + (s >> 7)) * 2 + (((s ^ g) >> 4) & 1);
        e[n].src = g >> 5;
        e[n].half = (int)((g >> 4) & 1);
        e[n].dst = s >> 5;
        lanes[n] = lane;
        shift[n] = ((s - g) % 128 + 128) % 128;
        root[n] = n;
        n++;
    }
    /* The parts (session 46): chunks of one (line, bank row, h), joined within a quarter-warp whatever each
     * moves by, and across quarters where they move by the same amount mod 128 (the deep SGEMM's B rows, four
     * quarters over one row, join; 8215x769x56 pad's tile rows of 112 bytes, adjacent in a line and a bank
     * row at different shifts, do not).  Each part is named by its first chunk. */
    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++)
            if (e[j].key == e[i].key && (lanes[j] >> 3 == lanes[i] >> 3 || shift[j] == shift[i])) {
                int a = root[i], b = root[j], k;
                if (a == b)
                    continue;
                for (k = 0; k < n; k++) /* union: relabel a's chunks (n <= 32) */
                    if (root[k] == a)
                        root[k] = b;
            }
    for (i = 0; i < n; i++)
        e[i].key = root[i];
    for (i = 0; i < n; i++) { /* whole-sector edges (both halves on the edge) apart from half ones */
        whole[i] = 0;
        for (j = 0; j < n && !whole[i]; j++)
            whole[i] = e[j].key == e[i].key && e[j].src == e[i].src && e[j].dst == e[i].dst && e[j].half != e[i].half;
    }
    for (i = 0; i < n; i++)
        e[i].key = e[i].key * 2 + whole[i];
    for (i = 0; i < n; i++) { /* each key once, at its first edge */
        for (j = 0; j < i && e[j].key != e[i].key; j++)
            ;
        if (j == i)
            cost += ldgsts_part(e, n, e[i].key);
    }
    return cost;
}

/* ZFILL form: lanes of a quarter-warp that read one 16-byte source (session 47, from session 46's probes) go in
 * rounds, the k-th lane of the quarter on a chunk in round k; each round is costed by the rule alone, and each
 * round past the first of a quarter adds one wavefront (8 lanes of a quarter on one chunk: 2 x 8 - 1).  Judged on
 * 32 random ZFILL patterns it was not built from (seed 4701): mean |error| 4.3%, -13% .. +5%, where the rule
 * without rounds was 35% under.  The plain form's duplicates cost less (26-32 a warp where the rounds say 30-51):
 * there the rule stays without rounds, 10% under on the 32 plain patterns of that seed (0 .. -27%). */
static int ldgsts16(const long long *sa, const long long *ga, int zfill, int *ideal)
{
    int rnd[SMK_WARP_LANES];
    int q, lane, cost = 0, quarters = 0, rounds = 1, r;
    for (q = 0; q < SMK_WARP_LANES / 8; q++) { /* ZFILL and the ideal: per active quarter-warp */
        int on = 0, most = 0;
        for (lane = 8 * q; lane < 8 * q + 8; lane++) {
            int other;
            on |= sa[lane] >= 0;
            rnd[lane] = 1;
            if (!zfill || sa[lane] < 0 || ga[lane] < 0)
                continue; /* the plain form: no rounds (they over-count it, below) */
            for (other = 8 * q; other < lane; other++)
                rnd[lane] += sa[other] >= 0 && ga[other] == ga[lane];
            most = rnd[lane] > most ? rnd[lane] : most;
        }
        quarters += on;
        cost += most > 1 ? most - 1 : 0;
        rounds = most > rounds ? most : rounds;
    }
    for (r = 1; r <= rounds; r++)
        cost += ldgsts16_round(sa, ga, rnd, r);
    if (ideal)
        *ideal = quarters * (zfill ? 2 : 1);
    return cost + (zfill ? quarters : 0);
}

static int ldgsts_narrow(const long long *sa, const long long *ga, int width, int *ideal)
{
    const int glanes = 128 / width;
    int cost = 0, idl_all = 0, lo, lane;
    for (lo = 0; lo < SMK_WARP_LANES; lo += glanes) {
        long long part[SMK_WARP_LANES];
        int seen[32] = {0}, wf = 0, idl = 0, deg = 1, on = 0, b;
        for (lane = 0; lane < SMK_WARP_LANES; lane++) {
            const int in = lane >= lo && lane < lo + glanes && sa[lane] >= 0;
            part[lane] = in ? sa[lane] : -1;
            on |= in;
            for (b = 0; in && ga[lane] >= 0 && b < width; b += 4) { /* its 4-byte words' positions in their lines */
                const int p = (int)(((ga[lane] + b) >> 2) & 31);
                deg = ++seen[p] > deg ? seen[p] : deg;
            }
        }
        if (!on)
            continue;
        (void)smk_bank_replay(part, 1, width, 1, &wf, &idl, NULL, NULL); /* the STS rule (bank_model.c) */
        cost += wf + deg - 1;
        idl_all += idl;
    }
    if (ideal)
        *ideal = idl_all;
    return cost;
}

long long smk_bank_replay_ldgsts_w(const long long *saddr, const long long *gaddr, long long n_instr, int zfill,
                                   int width, int *out_wavefronts, int *out_ideal, long long *bad_index, int *err)
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
    if (width != 4 && width != 8 && width != 16) {
        if (err)
            *err = SMK_BANK_E_WIDTH;
        return -1;
    }
    for (i = 0; i < n_instr; i++) {
        const long long *sa = saddr + i * SMK_WARP_LANES, *ga = gaddr + i * SMK_WARP_LANES;
        int code = smk_bank_validate(sa, width, 1, NULL, 0), wf, idl = 0;
        for (lane = 0; lane < SMK_WARP_LANES && code == SMK_BANK_OK; lane++)
            if (sa[lane] >= 0 && ga[lane] < -1)
                code = SMK_BANK_E_RANGE; /* -1: src-size 0 (a zero-filled lane) */
        if (code != SMK_BANK_OK) {
            if (bad_index)
                *bad_index = i;
            if (err)
                *err = code;
            return -1;
        }
        wf = width == 16 ? ldgsts16(sa, ga, zfill, &idl) : ldgsts_narrow(sa, ga, width, &idl);
        if (out_wavefronts)
            out_wavefronts[i] = wf;
        if (out_ideal)
            out_ideal[i] = idl;
        total += wf;
    }
    return total;
}

long long smk_bank_replay_ldgsts(const long long *saddr, const long long *gaddr, long long n_instr, int zfill,
                                 int *out_wavefronts, int *out_ideal, long long *bad_index, int *err)
{
    return smk_bank_replay_ldgsts_w(saddr, gaddr, n_instr, zfill, 16, out_wavefronts, out_ideal, bad_index, err);
}
