/*
 * test_bank_model.c -- unit test of csrc/bank_model.c (plain C, no framework).
 *
 * Build and run (from the repository root):
 *   gcc -std=c99 -Wall -Wextra -Werror -Icsrc tests/c/test_bank_model.c csrc/bank_model.c -o /tmp/tbm && /tmp/tbm
 * Against the measured tables (bench/bank_probe/bank_probe.sh on a GPU, copied to tests/data/):
 *   /tmp/tbm tests/data/bank_probe_h200.csv tests/data/bank_probe_subword_h100.csv tests/data/bank_probe_stsm_h100.csv
 * which replays every measured row through the model and fails on any disagreement.  Kinds: ld, st
 * (any width), ldsm1/2/4[t] and stsm1/2/4[t] (width 16); any other kind fails (cpasync needs its
 * sources: tests/test_bank_model.py).
 *
 * Addresses of the tile cases come from layout.h's smk_tile_offset, like the kernels'.  Prints one
 * line per failed check and a closing "N passed, N failed"; exit status 0 iff nothing failed.
 */
#include "bank_model.h"
#include "layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int n_pass, n_fail;

#define CHECK_EQ(got, want, ...)                                                                   \
    do {                                                                                           \
        long long g_ = (got), w_ = (want);                                                         \
        if (g_ == w_) {                                                                            \
            n_pass++;                                                                              \
        } else {                                                                                   \
            n_fail++;                                                                              \
            printf("FAIL %s:%d: got %lld, want %lld: ", __FILE__, __LINE__, g_, w_);               \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static const char *LNAME[SMK_NUM_LAYOUTS] = {"naive", "pad", "swizzle"};

/* Small deterministic PRNG (xorshift64*), so the test is the same everywhere. */
static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;
static unsigned long long rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static void shuffle(int *v, int n)
{
    int i;
    for (i = n - 1; i > 0; i--) {
        int j = (int)(rng() % (unsigned long long)(i + 1)), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* wavefronts with a check that the input was valid */
static int wf(const long long *a, int width, int is_store)
{
    int err = -1, w = smk_bank_wavefronts(a, width, is_store, &err);
    if (err != SMK_BANK_OK) {
        n_fail++;
        printf("FAIL: unexpected error %d (%s)\n", err, smk_bank_strerror(err));
    }
    return w;
}

/* lane i accesses element (lane * stride + base) of `width` bytes */
static void linear(long long *a, int width, int stride, int base)
{
    int l;
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = (long long)(l * stride + base) * width;
}

static void test_tiles(void)
{
    long long a[SMK_WARP_LANES];
    int lay, c, i, l, k;
    /* 32x32 fp32 transpose tile, column read (lane i reads (i, c)): naive 32-way, pad/swizzle free */
    for (lay = 0; lay < SMK_NUM_LAYOUTS; lay++) {
        smk_tile t = {lay, 5, 0, 2, 0, 0, 0}; /* 0,0,0: automatic swizzle */
        for (c = 0; c < 32; c++) {
            for (l = 0; l < SMK_WARP_LANES; l++)
                a[l] = (long long)smk_tile_offset(t, l, c) << t.log2_esz;
            CHECK_EQ(wf(a, 4, 0), lay == SMK_NAIVE ? 32 : 1, "tile32 fp32 col %d %s ld", c, LNAME[lay]);
            CHECK_EQ(wf(a, 4, 1), lay == SMK_NAIVE ? 32 : 1, "tile32 fp32 col %d %s st", c, LNAME[lay]);
            CHECK_EQ(smk_bank_ideal(a, 4, 0), 1, "tile32 fp32 col %d %s ideal", c, LNAME[lay]);
        }
    }
    /* 32x32 fp64 tile, column read: two half-warp phases; Swizzle<4,0,5> and the 8-byte pad keep
     * each half conflict-free, naive is 16-way in each half */
    for (lay = 0; lay < SMK_NUM_LAYOUTS; lay++) {
        smk_tile t = {lay, 5, 0, 3, 0, 0, 0}; /* 0,0,0: automatic swizzle */
        for (c = 0; c < 32; c += 5) {
            for (l = 0; l < SMK_WARP_LANES; l++)
                a[l] = (long long)smk_tile_offset(t, l, c) << t.log2_esz;
            CHECK_EQ(wf(a, 8, 0), lay == SMK_NAIVE ? 32 : 2, "tile32 fp64 col %d %s ld", c, LNAME[lay]);
            CHECK_EQ(smk_bank_ideal(a, 8, 0), 2, "tile32 fp64 col %d %s ideal", c, LNAME[lay]);
        }
    }
    /* BK x 32 fp32 tile read as float4 down a column (lane i reads (i, 4j)): four quarter-warp
     * phases; Swizzle<3,2,3> / 4-element pad: 4; naive: 8-way in each quarter */
    for (lay = 0; lay < SMK_NUM_LAYOUTS; lay++) {
        smk_tile t = {lay, 5, 2, 2, 0, 0, 0}; /* 0,0,0: automatic swizzle */
        for (c = 0; c < 32; c += 4) {
            for (l = 0; l < SMK_WARP_LANES; l++)
                a[l] = (long long)smk_tile_offset(t, l, c) << t.log2_esz;
            CHECK_EQ(wf(a, 16, 0), lay == SMK_NAIVE ? 32 : 4, "tile32 float4 col %d %s ld", c, LNAME[lay]);
            CHECK_EQ(wf(a, 16, 1), lay == SMK_NAIVE ? 32 : 4, "tile32 float4 col %d %s st", c, LNAME[lay]);
        }
    }
    /* The article's warp-tiled SGEMM, A tile stored transposed (As[k][m], BM = 64, float4 tiles):
     * lane l stores element i of its float4 to (k = (l%2)*4 + i, m = l/2).  Naive: lanes 2j and 2j+1
     * hit bank j in rows k and k+4 -> 2-way; pad and swizzle move the odd lanes 16 banks away. */
    for (lay = 0; lay < SMK_NUM_LAYOUTS; lay++) {
        smk_tile t = {lay, 6, 2, 2, 0, 0, 0}; /* 0,0,0: automatic swizzle */
        for (i = 0; i < 4; i++) {
            for (l = 0; l < SMK_WARP_LANES; l++)
                a[l] = (long long)smk_tile_offset(t, (l % 2) * 4 + i, l / 2) << t.log2_esz;
            CHECK_EQ(wf(a, 4, 1), lay == SMK_NAIVE ? 2 : 1, "sgemm A store i=%d %s", i, LNAME[lay]);
            CHECK_EQ(smk_bank_ideal(a, 4, 1), 1, "sgemm A store i=%d %s ideal", i, LNAME[lay]);
        }
    }
    /* smk_tile_linear is smk_tile_offset of the row-major element (the flat buffers of the skinny transposes):
     * every layout, row length, vector and element width, the automatic swizzle and named ones */
    for (lay = 0; lay < SMK_NUM_LAYOUTS; lay++)
        for (c = 0; c <= 9; c++)
            for (l = 0; l <= 2 && l <= c; l++)
                for (k = 0; k < 4; k++) {
                    const smk_tile t = {lay, c, l, k, k == 3 ? 2 : 0, k == 3 ? l : 0, k == 3 ? c - l : 0};
                    int bad = -1;
                    for (i = 0; i < 1 << 14 && bad < 0; i += 1 + (i >> 10))
                        if (smk_tile_linear(t, i) != smk_tile_offset(t, i >> c, i & ((1 << c) - 1)))
                            bad = i;
                    CHECK_EQ(bad, -1, "tile_linear %s cols 2^%d vec 2^%d esz 2^%d", LNAME[lay], c, l, k);
                }
}

static void test_basics(void)
{
    long long a[SMK_WARP_LANES];
    int w, st, l, k, s;
    static const int widths[3] = {4, 8, 16};
    /* full-warp minimums (consecutive elements): 1 / 2 / 4 for loads and stores, = ideal */
    for (w = 0; w < 3; w++)
        for (st = 0; st < 2; st++) {
            linear(a, widths[w], 1, 0);
            CHECK_EQ(wf(a, widths[w], st), 1 << w, "consecutive width %d store %d", widths[w], st);
            CHECK_EQ(smk_bank_ideal(a, widths[w], st), 1 << w, "consecutive ideal width %d", widths[w]);
            /* starting half-way into a bank row changes nothing: banks, not 128-byte lines */
            linear(a, widths[w], 1, 64 / widths[w]);
            CHECK_EQ(wf(a, widths[w], st), 1 << w, "consecutive+64B width %d store %d", widths[w], st);
        }
    /* H200 facts: broadcasts */
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = 5 * 128 + 48;
    CHECK_EQ(wf(a, 4, 0), 1, "4-byte broadcast load");
    CHECK_EQ(wf(a, 4, 1), 1, "4-byte broadcast store");
    CHECK_EQ(wf(a, 8, 0), 1, "8-byte broadcast load");
    CHECK_EQ(wf(a, 8, 1), 2, "8-byte broadcast store");
    CHECK_EQ(wf(a, 16, 0), 2, "16-byte broadcast load");
    CHECK_EQ(wf(a, 16, 1), 4, "16-byte broadcast store");
    CHECK_EQ(smk_bank_ideal(a, 8, 0), 1, "8-byte broadcast load ideal");
    CHECK_EQ(smk_bank_ideal(a, 8, 1), 2, "8-byte broadcast store ideal");
    CHECK_EQ(smk_bank_ideal(a, 16, 0), 2, "16-byte broadcast load ideal");
    CHECK_EQ(smk_bank_ideal(a, 16, 1), 4, "16-byte broadcast store ideal");
    /* H200 fact: a random permutation of 32 consecutive 8-byte words loads in 4 wavefronts */
    for (k = 0; k < 20; k++) {
        int perm[SMK_WARP_LANES];
        for (l = 0; l < SMK_WARP_LANES; l++)
            perm[l] = l;
        shuffle(perm, SMK_WARP_LANES);
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = 8LL * perm[l];
        CHECK_EQ(wf(a, 8, 0), 4, "8-byte random permutation %d", k);
        CHECK_EQ(smk_bank_ideal(a, 8, 0), 2, "8-byte random permutation %d ideal", k);
    }
    /* k-way conflicts on 4-byte words: lane l -> row l % k, bank l / k */
    for (k = 1; k <= 32; k *= 2) {
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = 128LL * (l % k) + 4 * (l / k);
        CHECK_EQ(wf(a, 4, 0), k, "4-byte %d-way", k);
        CHECK_EQ(wf(a, 4, 1), k, "4-byte %d-way store", k);
    }
    /* strides of 4-byte words: conflict degree gcd(stride, 32) */
    for (s = 1; s <= 64; s++) {
        int g = s, b = 32;
        while (b) {
            int t = g % b;
            g = b;
            b = t;
        }
        linear(a, 4, s, 0);
        CHECK_EQ(wf(a, 4, 0), g, "4-byte stride %d", s);
    }
    /* multicast: two addresses in one bank read by 16 lanes each -> 2; in different banks -> 1 */
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = (l % 2) * 128;
    CHECK_EQ(wf(a, 4, 0), 2, "two same-bank words, 16 lanes each");
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = (l % 2) * 64;
    CHECK_EQ(wf(a, 4, 0), 1, "two different-bank words, 16 lanes each");
    CHECK_EQ(wf(a, 8, 0), 1, "two different-bank 8-byte words, 16 lanes each");
    CHECK_EQ(wf(a, 8, 1), 2, "two different-bank 8-byte words stored, 16 lanes each");
    /* inactive lanes */
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = -1;
    CHECK_EQ(wf(a, 4, 0), 0, "no active lane");
    CHECK_EQ(smk_bank_ideal(a, 16, 1), 0, "no active lane ideal");
    a[17] = 16 * 17;
    CHECK_EQ(wf(a, 16, 0), 1, "one active lane width 16");
    CHECK_EQ(wf(a, 16, 1), 1, "one active lane width 16 store");
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = l < 16 ? 8LL * l : -1;
    CHECK_EQ(wf(a, 8, 0), 1, "half-warp of consecutive 8-byte words");
    CHECK_EQ(wf(a, 8, 1), 1, "half-warp of consecutive 8-byte words stored");
    /* discriminators between the pre-measurement hypotheses (see bank_model.c) */
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = l < 16 ? 8LL * (l / 2) : 8LL * (8 + (l - 16) / 2);
    CHECK_EQ(wf(a, 8, 0), 1, "halves-disjoint-fit 8-byte load (lanes n, n^1 share: packs)");
    CHECK_EQ(wf(a, 8, 1), 2, "halves-disjoint-fit 8-byte store");
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = l % 2 == 0 ? 8LL * (l / 2) : 8LL * (16 + l / 2);
    CHECK_EQ(wf(a, 8, 0), 4, "interleave-rows 8-byte load (split by lane)");
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = 16LL * (8 * ((l / 8 == 1 || l / 8 == 2) ? 1 : 0) + l % 8);
    CHECK_EQ(wf(a, 16, 0), 4, "quarters-ABBA 16-byte load");
    /* H200 measurements (tests/data/bank_probe_h200.csv) that decide the packing rule */
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = 8LL * (l % 16); /* both halves read the same 16 conflict-free words: no packing */
    CHECK_EQ(wf(a, 8, 0), 2, "share-halves 8-byte load");
    CHECK_EQ(smk_bank_ideal(a, 8, 0), 2, "share-halves 8-byte load ideal");
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = (l % 2) * 128; /* n == n^2: packs; 2 words of one bank over the whole warp */
    CHECK_EQ(wf(a, 8, 0), 2, "bcast-alt-samebank 8-byte load");
    CHECK_EQ(wf(a, 16, 0), 4, "bcast-alt-samebank 16-byte load");
    CHECK_EQ(wf(a, 8, 1), 4, "bcast-alt-samebank 8-byte store");
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = 32LL * (l % 4); /* neither n^1 nor n^2 pairs agree */
    CHECK_EQ(wf(a, 8, 0), 2, "bcast-lane4-diffbank 8-byte load");
    CHECK_EQ(wf(a, 16, 0), 4, "bcast-lane4-diffbank 16-byte load");
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = l % 2 ? -1 : 8LL * (l / 2); /* partners inactive: packs */
    CHECK_EQ(wf(a, 8, 0), 1, "active-even-compact 8-byte load");
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = 16LL * (l < 16 ? l : 16); /* lanes 16..31 pack, lanes 0..15 do not: the warp does not */
    CHECK_EQ(wf(a, 16, 0), 4, "half-conflictfree-half-bcast 16-byte load");
    CHECK_EQ(smk_bank_ideal(a, 16, 0), 4, "half-conflictfree-half-bcast 16-byte load ideal");
}

static void test_validation(void)
{
    long long a[SMK_WARP_LANES];
    char msg[128];
    int err = 0;
    linear(a, 8, 1, 0);
    CHECK_EQ(smk_bank_validate(a, 8, 0, msg, sizeof msg), SMK_BANK_OK, "valid");
    CHECK_EQ(smk_bank_validate(a, 3, 0, msg, sizeof msg), SMK_BANK_E_WIDTH, "width 3");
    CHECK_EQ(smk_bank_validate(a, 8, 2, msg, sizeof msg), SMK_BANK_E_KIND, "kind 2");
    CHECK_EQ(smk_bank_validate(NULL, 8, 0, msg, sizeof msg), SMK_BANK_E_NULL, "NULL");
    a[5] = 44;
    CHECK_EQ(smk_bank_validate(a, 8, 0, msg, sizeof msg), SMK_BANK_E_ALIGN, "unaligned");
    CHECK_EQ(strstr(msg, "lane 5") != NULL, 1, "message names the lane: %s", msg);
    CHECK_EQ(smk_bank_wavefronts(a, 8, 0, &err), -1, "wavefronts of unaligned");
    CHECK_EQ(err, SMK_BANK_E_ALIGN, "err of unaligned");
    CHECK_EQ(smk_bank_ideal(a, 8, 0), -1, "ideal of unaligned");
    CHECK_EQ(smk_bank_wavefronts(a, 4, 0, &err), 2, "44 is fine for width 4 (lanes 16..31 hit row 1: 2-way)");
    a[5] = -7; /* any negative value is an inactive lane */
    CHECK_EQ(smk_bank_validate(a, 8, 0, msg, sizeof msg), SMK_BANK_OK, "negative = inactive");
    a[9] = SMK_BANK_MAX_BYTES;
    CHECK_EQ(smk_bank_validate(a, 8, 0, msg, sizeof msg), SMK_BANK_E_RANGE, "out of range");
    CHECK_EQ(smk_bank_wavefronts(a, 16, 1, NULL), -1, "NULL err pointer is allowed");
    {
        smk_bank_rule r;
        CHECK_EQ(smk_bank_get_rule(8, 0, &r), SMK_BANK_OK, "rule 8 ld");
        CHECK_EQ(r.pass_lanes * 10 + r.phase_lanes, 32 * 10 + 16, "rule 8 ld lanes");
        CHECK_EQ(smk_bank_get_rule(3, 0, &r), SMK_BANK_E_WIDTH, "rule width 3");
        CHECK_EQ(smk_bank_get_rule(2, 1, &r), SMK_BANK_OK, "rule width 2 st");
        CHECK_EQ(smk_bank_get_rule(32, 0, &r), SMK_BANK_E_WIDTH, "rule width 32");
    }
    {
        /* sub-word accesses (measured on an H100: the 4-byte words they lie in, one 32-lane group) */
        int l;
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = l;
        CHECK_EQ(wf(a, 1, 0), 1, "32 consecutive bytes");
        CHECK_EQ(smk_bank_validate(a, 2, 0, msg, sizeof msg), SMK_BANK_E_ALIGN, "odd offset, width 2");
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = (long long)(l % 4) * 128 + l / 4; /* 4 words of bank 0, bytes 0..7 of each */
        CHECK_EQ(wf(a, 1, 1), 4, "bytes 0..7 of 4 rows: banks 0 and 1 each asked for 4 words");
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = (long long)l * 128 + 2 * (l % 2); /* 32 words of bank 0 */
        CHECK_EQ(wf(a, 2, 0), 32, "half-words of 32 rows of bank 0");
        CHECK_EQ(smk_bank_ideal(a, 2, 0), 1, "ideal of a sub-word access");
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = 2 * (l % 16) + 512 * (l / 16); /* halves: 8 words of row 0, then of row 4 */
        CHECK_EQ(wf(a, 2, 1), 2, "two half-warps on the same banks, other rows: one 32-lane group, 2-way");
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = l;
        CHECK_EQ(wf(a, 1, 1), 1, "32 consecutive bytes stored: one group (half-warp phases would say 2)");
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = 256 + 3; /* one byte from all 32 lanes */
        CHECK_EQ(wf(a, 1, 1), 1, "32 lanes store one byte");
    }
    {
        /* stmatrix (measured on an H100: ldmatrix's rule) */
        int l, err = 0;
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = (long long)(l % 8) * 128 + (l / 8) * 16; /* each matrix: 8 rows of one slot */
        CHECK_EQ(smk_bank_wavefronts_kind(a, SMK_BANK_KIND_STSM_X4, 16, 1, &err), 32, "stmatrix.x4 8-way");
        CHECK_EQ(smk_bank_wavefronts_kind(a, SMK_BANK_KIND_STSM_X1, 16, 1, &err), 8, "stmatrix.x1 8-way");
        CHECK_EQ(smk_bank_wavefronts_kind(a, SMK_BANK_KIND_STSM_X2, 16, 0, &err), -1, "stmatrix as a load");
        CHECK_EQ(err, SMK_BANK_E_INSTR, "stmatrix as a load: err");
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = 16LL * l;
        CHECK_EQ(smk_bank_wavefronts_kind(a, SMK_BANK_KIND_STSM_X4, 16, 1, &err), 4, "stmatrix.x4 consecutive");
        CHECK_EQ(smk_bank_wavefronts_kind(a, SMK_BANK_KIND_STSM_X2, 8, 1, &err), -1, "stmatrix width 8");
        CHECK_EQ(smk_bank_wavefronts_kind(a, SMK_BANK_KIND_STSM_X1, 16, 1, &err), 1,
                 "stmatrix.x1: lanes 8..31 (rows 1..3 of the same slots) are not its addresses");
        for (l = 0; l < SMK_WARP_LANES; l++)
            a[l] = 384; /* every lane one row */
        CHECK_EQ(smk_bank_wavefronts_kind(a, SMK_BANK_KIND_STSM_X4, 16, 1, &err), 4,
                 "stmatrix.x4 on one row: a wavefront per matrix, no merging");
    }
}

/* Random instructions: 8 KB window, ~1/8 inactive lanes, sometimes many lanes on few addresses. */
static void random_instr(long long *a, int width)
{
    int l, span = (int)(rng() % 3);
    long long slots = span == 0 ? 32 : span == 1 ? 256 : 8192 / width;
    for (l = 0; l < SMK_WARP_LANES; l++)
        a[l] = (rng() % 8 == 0) ? -1 : (long long)(rng() % (unsigned long long)slots) * width;
}

static void test_replay_and_speed(void)
{
    enum { N = 1000000 };
    long long *a = malloc(sizeof(long long) * SMK_WARP_LANES * (size_t)N);
    int *out = malloc(sizeof(int) * (size_t)N), *ideal = malloc(sizeof(int) * (size_t)N);
    long long i, total, bad = 0, sum = 0;
    int err = 0, w, bad_rule = 0;
    static const int widths[3] = {4, 8, 16};
    if (!a || !out || !ideal) {
        printf("FAIL: out of memory\n");
        n_fail++;
        free(a);
        free(out);
        free(ideal);
        return;
    }
    for (w = 0; w < 3; w++) {
        clock_t t0;
        double secs;
        for (i = 0; i < N; i++)
            random_instr(a + i * SMK_WARP_LANES, widths[w]);
        t0 = clock();
        total = smk_bank_replay(a, N, widths[w], w == 1, out, ideal, &bad, &err);
        secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        printf("replay: %d instructions of width %d in %.3f s = %.2f M instr/s (%.3f wavefronts each)\n",
               N, widths[w], secs, N / secs / 1e6, (double)total / N);
        CHECK_EQ(err, SMK_BANK_OK, "replay error");
        /* a guard against blow-ups only (CPU time, any -O level); -O2 does ~1-2 M instr/s here
         * on this worst case (random 8 KB windows: nearly every pass conflicts), ~4 M on
         * conflict-free instructions */
        CHECK_EQ(secs < 10.0, 1, "1e6 instructions of width %d took %.3f s", widths[w], secs);
        /* the batch agrees with the single-instruction calls; wavefronts >= ideal always */
        sum = 0;
        for (i = 0; i < N; i++) {
            sum += out[i];
            if (out[i] < ideal[i])
                bad_rule++;
            if (i % 1000 == 0) {
                CHECK_EQ(out[i], smk_bank_wavefronts(a + i * SMK_WARP_LANES, widths[w], w == 1, NULL),
                         "replay vs single, instr %lld", i);
                CHECK_EQ(ideal[i], smk_bank_ideal(a + i * SMK_WARP_LANES, widths[w], w == 1),
                         "replay ideal vs single, instr %lld", i);
            }
        }
        CHECK_EQ(sum, total, "replay total");
        CHECK_EQ(bad_rule, 0, "instructions with wavefronts < ideal");
    }
    a[3 * SMK_WARP_LANES + 2] = 2; /* misaligned for width 4 in instruction 3 */
    CHECK_EQ(smk_bank_replay(a, 10, 4, 0, NULL, NULL, &bad, &err), -1, "replay of bad input");
    CHECK_EQ(bad, 3, "replay names the bad instruction");
    CHECK_EQ(err, SMK_BANK_E_ALIGN, "replay error code");
    free(a);
    free(out);
    free(ideal);
}

/*
 * MEASURED TABLE: replay tests/data/bank_probe_<gpu>.csv (bench/bank_probe/bank_probe.sh) through the model.
 * Columns: width,kind,addresses,wavefronts,instructions,name[,more counters].  Every disagreement is
 * printed, with a tally per kind and width.
 */

/* "ld" / "st" -> LDST; "ldsm1".."ldsm4t" / "stsm1".."stsm4t" -> their kind (.trans costs the same); -1 else */
static int table_kind(const char *k, int *is_store)
{
    int x;
    *is_store = k[0] == 's';
    if (!strcmp(k, "ld") || !strcmp(k, "st"))
        return SMK_BANK_KIND_LDST;
    if (strncmp(k, "ldsm", 4) && strncmp(k, "stsm", 4))
        return -1;
    x = k[4] - '0';
    if ((x != 1 && x != 2 && x != 4) || (k[5] && strcmp(k + 5, "t")))
        return -1;
    if (k[0] == 'l')
        return x == 1 ? SMK_BANK_KIND_LDSM_X1 : x == 2 ? SMK_BANK_KIND_LDSM_X2 : SMK_BANK_KIND_LDSM_X4;
    return x == 1 ? SMK_BANK_KIND_STSM_X1 : x == 2 ? SMK_BANK_KIND_STSM_X2 : SMK_BANK_KIND_STSM_X4;
}

static void test_measured(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    /* [kind][is_store][width index][ok, bad] */
    int rows = 0, bad = 0, per[SMK_BANK_NUM_KINDS][2][5][2];
    static const char *KNAME[SMK_BANK_NUM_KINDS] = {"ld/st", "ldsm.x1", "ldsm.x2", "ldsm.x4", "cpasync",
                                                    "cpasync.zfill", "stsm.x1", "stsm.x2", "stsm.x4"};
    memset(per, 0, sizeof per);
    if (!f) {
        printf("FAIL: cannot open %s\n", path);
        n_fail++;
        return;
    }
    while (fgets(line, sizeof line, f)) {
        char *fld[6] = {0}, *p = line;
        int nf = 0, width, is_store, kind, wi, l, model, measured, err = 0;
        long long a[SMK_WARP_LANES];
        char *end;
        if (!strncmp(line, "width,", 6))
            continue;
        /* split on commas; strip the quotes a CSV writer may add */
        while (nf < 6) {
            if (*p == '"') {
                fld[nf++] = ++p;
                p = strchr(p, '"');
                if (!p)
                    break;
                *p++ = 0;
            } else {
                fld[nf++] = p;
                p += strcspn(p, ",\r\n");
            }
            if (*p != ',')
                break;
            *p++ = 0;
        }
        if (p && *p)
            *p = 0; /* the newline (or the comma before more counters) after the last field read */
        if (nf < 5 || !*fld[3])
            continue; /* not measured */
        width = atoi(fld[0]);
        kind = table_kind(fld[1], &is_store);
        if (kind < 0) {
            printf("FAIL: %s: unknown kind %s\n", path, fld[1]);
            n_fail++;
            continue;
        }
        p = fld[2];
        for (l = 0; l < SMK_WARP_LANES; l++) {
            a[l] = strtoll(p, &end, 10);
            p = end;
        }
        measured = atoi(fld[3]);
        model = smk_bank_wavefronts_kind(a, kind, width, is_store, &err);
        rows++;
        wi = width == 1 ? 0 : width == 2 ? 1 : width == 4 ? 2 : width == 8 ? 3 : width == 16 ? 4 : -1;
        if (wi >= 0)
            per[kind][is_store][wi][model != measured]++;
        if (model != measured) {
            bad++;
            printf("MISMATCH %2d %-6s %-36s measured %2d model %2d (err %d)  [%s]\n", width, fld[1],
                   nf > 5 ? fld[5] : "", measured, model, err, fld[2]);
        }
    }
    fclose(f);
    {
        int k, s, w;
        for (k = 0; k < SMK_BANK_NUM_KINDS; k++)
            for (s = 0; s < 2; s++)
                for (w = 0; w < 5; w++)
                    if (per[k][s][w][0] + per[k][s][w][1])
                        printf("measured %s %s width %2d: %d rows agree, %d disagree\n", KNAME[k],
                               s ? "st" : "ld", w < 2 ? w + 1 : 4 << (w - 2), per[k][s][w][0], per[k][s][w][1]);
    }
    CHECK_EQ(rows > 0, 1, "%s has measured rows", path);
    CHECK_EQ(bad, 0, "rows of %s where the model disagrees", path);
}

int main(int argc, char **argv)
{
    test_tiles();
    test_basics();
    test_validation();
    if (argc > 1) {
        int i;
        for (i = 1; i < argc; i++)
            test_measured(argv[i]);
    } else
        test_replay_and_speed();
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
