/*
 * gemm16_model.c -- CPU checks of the tensor-core GEMM's bank model, driven by tests/test_gemm16_model.py
 * (built there with cc; no CUDA, no Python).
 *
 *   gemm16_model table CSV          replay tests/data/bank_probe_tc_<gpu>.csv through
 *                                   smk_bank_wavefronts_kind; one line per row: "kind model measured name"
 *   gemm16_model swizzle C V E      smk_tile_swizzle of a tile with 2^C columns, 2^V-element vectors,
 *                                   2^E-byte elements: "b m s"
 *   gemm16_model frag LAYOUT C B M S T   wavefronts of the GEMM's fragment ldmatrix.x4 (csrc/gemm16/smem.cuh
 *                                   Map::a_ldsm / b_ldsm, lane l -> row l & 15, column 8 (l >> 4)) on a
 *                                   tile of 2^C 2-byte columns, layout 0/1/2, explicit Swizzle<B,M,S>
 *                                   (0 0 0 = automatic), T rows down (0 or 16): "wavefronts ideal"
 *   gemm16_model chunk LAYOUT C B M S    the cp.async store of the A tile (lane l -> row l / (2^C/8),
 *                                   column 8 (l % (2^C/8))): "wavefronts ideal" by the CPASYNC rule
 *
 * Build: cc -std=c99 -Icsrc tests/c/gemm16_model.c csrc/bank_model.c -o /tmp/gemm16_model
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_model.h"
#include "layout.h"

static int kind_of(const char *k)
{
    if (!strncmp(k, "ldsm1", 5)) return SMK_BANK_KIND_LDSM_X1;
    if (!strncmp(k, "ldsm2", 5)) return SMK_BANK_KIND_LDSM_X2;
    if (!strncmp(k, "ldsm4", 5)) return SMK_BANK_KIND_LDSM_X4;
    if (!strcmp(k, "cpasync")) return SMK_BANK_KIND_CPASYNC;
    return -1;
}

static int table(const char *path)
{
    char line[4096];
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 2;
    }
    if (!fgets(line, sizeof line, f)) { /* header */
        fclose(f);
        return 2;
    }
    while (fgets(line, sizeof line, f)) {
        char kind[16], *p = line, *q;
        long long a[32];
        int width, measured, inst, k, i, err = 0, wf;
        width = (int)strtol(p, &q, 10);
        p = q + 1;
        q = strchr(p, ',');
        if (!q || q - p >= (long)sizeof kind) continue;
        memcpy(kind, p, (size_t)(q - p));
        kind[q - p] = 0;
        p = q + 1;
        for (i = 0; i < 32; i++)
            a[i] = strtoll(p, &p, 10);
        p++; /* ',' */
        measured = (int)strtol(p, &p, 10);
        p++;
        inst = (int)strtol(p, &p, 10);
        p++;
        p[strcspn(p, "\r\n")] = 0;
        k = kind_of(kind);
        if (k < 0 || width != 16 || inst != 1) continue;
        wf = smk_bank_wavefronts_kind(a, k, 16, k == SMK_BANK_KIND_CPASYNC, &err);
        printf("%s %d %d %s\n", kind, wf, measured, p);
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "table"))
        return table(argv[2]);
    if (argc == 5 && !strcmp(argv[1], "swizzle")) {
        smk_tile t = {SMK_SWIZZLE, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), 0, 0, 0};
        smk_swz z = smk_tile_swizzle(t);
        printf("%d %d %d\n", z.b, z.m, z.s);
        return 0;
    }
    if ((argc == 8 && !strcmp(argv[1], "frag")) || (argc == 7 && !strcmp(argv[1], "chunk"))) {
        smk_tile t = {atoi(argv[2]), atoi(argv[3]), 3, 1, atoi(argv[4]), atoi(argv[5]), atoi(argv[6])};
        long long a[32];
        int l, err = 0, wf, kind = argv[1][0] == 'f' ? SMK_BANK_KIND_LDSM_X4 : SMK_BANK_KIND_CPASYNC;
        int down = argc == 8 ? atoi(argv[7]) : 0, per_row = (1 << t.log2_cols) / 8;
        for (l = 0; l < 32; l++) {
            int r = kind == SMK_BANK_KIND_LDSM_X4 ? down + (l & 15) : l / per_row;
            int c = kind == SMK_BANK_KIND_LDSM_X4 ? 8 * (l >> 4) : 8 * (l % per_row);
            a[l] = 2LL * smk_tile_offset(t, r, c);
        }
        wf = smk_bank_wavefronts_kind(a, kind, 16, kind == SMK_BANK_KIND_CPASYNC, &err);
        if (err) {
            fprintf(stderr, "%s\n", smk_bank_strerror(err));
            return 1;
        }
        {
            int ideal = 0;
            smk_bank_replay_kind(a, 1, kind, 16, kind == SMK_BANK_KIND_CPASYNC, NULL, &ideal, NULL, &err);
            printf("%d %d\n", wf, ideal);
        }
        return 0;
    }
    fprintf(stderr, "usage: see the header comment\n");
    return 2;
}
