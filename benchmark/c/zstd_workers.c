/*
 * Does zstd's own multithreading (ZSTD_c_nbWorkers, ZSTD_c_jobSize) make one message compress sooner?
 * It is the one way a sender could bring a second core to a single large message, so it decides
 * whether the pipeline's 1 MiB case can go faster than one core compresses.
 *
 * For one payload file, each configuration below compresses the whole file with ZSTD_compress2 on a
 * reused ZSTD_CCtx at level 3, as ZstdCompressor does when it has workers. Configurations take turns in rounds (each round
 * runs every configuration once, ITERATIONS calls each), so that a burst of load on the shared VM hits
 * all of them; per configuration it prints the median wall time per call, the median ratio of its
 * speed to the single-threaded one taken round by round, the process CPU time per wall time during its
 * calls (about 1 when only one core works, up to 2 on two cores), and the frame size.
 *
 * Configurations: workers=0 (the calling thread compresses); workers=2 with zstd's default job size
 * (at level 3 it is 4 MiB or more, so one job for inputs up to that); workers=2 with 512 KiB jobs
 * (ZSTDMT_JOBSIZE_MIN, the smallest zstd accepts: a 1 MiB message is two jobs); workers=2 with 1 MiB jobs.
 *
 * Build: gcc -O2 -o zstd_workers zstd_workers.c -lzstd
 * Usage: zstd_workers PAYLOAD_FILE ROUNDS ITERATIONS
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zstd.h>

#define CONFIGS 4

static const struct { int workers; int job_size; const char *name; } configs[CONFIGS] = {
    {0, 0, "workers=0"},
    {2, 0, "workers=2 jobSize=default"},
    {2, 512 * 1024, "workers=2 jobSize=512KiB"},
    {2, 1024 * 1024, "workers=2 jobSize=1MiB"},
};

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *values, int n) {
    qsort(values, (size_t) n, sizeof(double), by_value);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static void check(size_t result, const char *what) {
    if (ZSTD_isError(result)) {
        fprintf(stderr, "%s: %s\n", what, ZSTD_getErrorName(result));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s PAYLOAD_FILE ROUNDS ITERATIONS\n", argv[0]);
        return 2;
    }
    int rounds = atoi(argv[2]), iterations = atoi(argv[3]);
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL || rounds < 1 || iterations < 1) {
        fprintf(stderr, "cannot read %s, or ROUNDS/ITERATIONS below 1\n", argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    size_t size = (size_t) ftell(f);
    rewind(f);
    char *src = malloc(size);
    if (src == NULL || fread(src, 1, size, f) != size) {
        fprintf(stderr, "cannot read %zu bytes of %s\n", size, argv[1]);
        return 2;
    }
    fclose(f);
    size_t capacity = ZSTD_compressBound(size);
    char *dst = malloc(capacity);

    ZSTD_CCtx *cctx[CONFIGS];
    size_t frame[CONFIGS];
    for (int c = 0; c < CONFIGS; c++) {
        cctx[c] = ZSTD_createCCtx();
        check(ZSTD_CCtx_setParameter(cctx[c], ZSTD_c_compressionLevel, 3), "compressionLevel");
        check(ZSTD_CCtx_setParameter(cctx[c], ZSTD_c_contentSizeFlag, 1), "contentSizeFlag");
        check(ZSTD_CCtx_setParameter(cctx[c], ZSTD_c_nbWorkers, configs[c].workers), "nbWorkers");
        if (configs[c].job_size > 0) {
            check(ZSTD_CCtx_setParameter(cctx[c], ZSTD_c_jobSize, configs[c].job_size), "jobSize");
        }
        frame[c] = ZSTD_compress2(cctx[c], dst, capacity, src, size); /* warm-up, and the frame size */
        check(frame[c], "ZSTD_compress2");
    }

    double *wall = malloc(sizeof(double) * (size_t) rounds * CONFIGS);
    double *cpu = malloc(sizeof(double) * (size_t) rounds * CONFIGS);
    for (int r = 0; r < rounds; r++) {
        for (int c = 0; c < CONFIGS; c++) {
            double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
            for (int i = 0; i < iterations; i++) {
                check(ZSTD_compress2(cctx[c], dst, capacity, src, size), "ZSTD_compress2");
            }
            double w = seconds(CLOCK_MONOTONIC) - w0;
            wall[r * CONFIGS + c] = w / iterations;
            cpu[r * CONFIGS + c] = (seconds(CLOCK_PROCESS_CPUTIME_ID) - c0) / w;
        }
    }

    printf("libzstd=%s payload=%s bytes=%zu rounds=%d iterations=%d\n", ZSTD_versionString(), argv[1], size,
           rounds, iterations);
    for (int c = 0; c < CONFIGS; c++) {
        double ms[rounds], speed[rounds], load[rounds];
        for (int r = 0; r < rounds; r++) {
            ms[r] = wall[r * CONFIGS + c] * 1e3;
            speed[r] = wall[r * CONFIGS] / wall[r * CONFIGS + c];
            load[r] = cpu[r * CONFIGS + c];
        }
        double lo = speed[0], hi = speed[0];
        for (int r = 1; r < rounds; r++) {
            lo = speed[r] < lo ? speed[r] : lo;
            hi = speed[r] > hi ? speed[r] : hi;
        }
        printf("%-26s ms_per_call=%.3f speed_vs_workers0=%.2f (%.2f-%.2f) cpu_per_wall=%.2f frame_bytes=%zu\n",
               configs[c].name, median(ms, rounds), median(speed, rounds), lo, hi, median(load, rounds), frame[c]);
    }
    for (int c = 0; c < CONFIGS; c++) {
        ZSTD_freeCCtx(cctx[c]);
    }
    free(wall);
    free(cpu);
    free(dst);
    free(src);
    return 0;
}
