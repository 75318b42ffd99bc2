/* csrc/hostpool.c on the CPU (tests/test_host_path.py builds and runs it): the pinned staging pool and
 * its staged copies against a CUDA stand-in whose copies run late (cuda_stub.h).  Checks that every
 * byte arrives for row groups, split rows, pitched rows and one to four units; that two uploads in a
 * row through one set (the host GEMM path) do not clobber each other; 16 threads at once, first under
 * the default cap, then under a cap of one unit (they must wait for each other); that the pool never
 * holds more than its cap and that trimming empties it.  Prints OK and exits 0 when all hold. */
#include "hostpool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(size_t width, size_t rows, size_t sp, size_t dp, int nunits)
{
    smk_stage_set set;
    unsigned char *src, *dev, *back, *src2, *dev2;
    size_t r, i;
    int bad = 0;
    if (smk_stage_acquire(&set, nunits) < 1) {
        printf("acquire failed\n");
        return 1;
    }
    src = malloc(sp * rows + 1), dev = calloc(dp * rows + 1, 1), back = calloc(sp * rows + 1, 1);
    src2 = malloc(sp * rows + 1), dev2 = calloc(dp * rows + 1, 1);
    for (i = 0; i < sp * rows; i++) {
        src[i] = (unsigned char)(i * 2654435761u >> 13);
        src2[i] = (unsigned char)(i * 40503u >> 7);
    }
    smk_stage_h2d(&set, dev, dp, src, sp, width, rows, 0);
    smk_stage_h2d(&set, dev2, dp, src2, sp, width, rows, 0); /* through the same units, right after */
    cudaStreamSynchronize(0);
    for (r = 0; r < rows; r++)
        bad |= memcmp(dev + r * dp, src + r * sp, width) != 0 || memcmp(dev2 + r * dp, src2 + r * sp, width) != 0;
    smk_stage_d2h(&set, back, sp, dev, dp, width, rows, 0);
    for (r = 0; r < rows; r++)
        bad |= memcmp(back + r * sp, src + r * sp, width) != 0;
    smk_stage_release(&set);
    if (bad)
        printf("wrong bytes: width %zu rows %zu pitches %zu / %zu, %d units\n", width, rows, sp, dp, nunits);
    free(src), free(dev), free(back), free(src2), free(dev2);
    return bad;
}

static void *worker(void *arg)
{
    long bad = 0;
    int i;
    (void)arg;
    for (i = 0; i < 12; i++)
        bad |= check(3000 + i * 7, 1000 + i, 3100 + i * 7, 3008 + i * 8, 1 + i % 4);
    return (void *)bad;
}

static int run_threads(void)
{
    pthread_t t[16];
    int i, bad = 0;
    for (i = 0; i < 16; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (i = 0; i < 16; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad |= r != NULL;
    }
    return bad;
}

int main(void)
{
    const size_t widths[] = {1, 3, 100, 4096, 262144, 262145, (size_t)8 << 20, ((size_t)8 << 20) + 5, (size_t)33 << 20};
    const size_t rowss[] = {1, 2, 7, 1000};
    size_t held, in_use, cap, peak;
    int a, b, n, bad = 0;
    for (a = 0; a < 9; a++)
        for (b = 0; b < 4; b++)
            if (widths[a] * rowss[b] <= ((size_t)80 << 20))
                for (n = 1; n <= 4; n++)
                    bad |= check(widths[a], rowss[b], widths[a] + (b & 1) * 13, widths[a] + 16, n);
    bad |= run_threads();
    smk_stage_info(&held, &in_use, &cap, &peak);
    printf("default cap: held %zu MiB, in use %zu, cap %zu MiB, peak %zu MiB, %d copy threads\n", held >> 20,
           in_use, cap >> 20, peak >> 20, smk_par_threads());
    bad |= in_use != 0 || peak > cap || held > cap;
    smk_stage_set_cap(SMK_STAGE_UNIT_BYTES);
    bad |= run_threads();
    smk_stage_info(&held, &in_use, &cap, &peak);
    printf("one-unit cap: held %zu MiB, in use %zu\n", held >> 20, in_use);
    bad |= in_use != 0 || held > SMK_STAGE_UNIT_BYTES;
    smk_stage_trim();
    smk_stage_info(&held, &in_use, &cap, &peak);
    bad |= held != 0;
    printf(bad ? "FAILED\n" : "OK\n");
    return bad;
}
