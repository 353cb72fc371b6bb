/*
 * construct_time.c - times building a dataset from a dense float matrix
 * (gbt_dataset_from_dense) and binning it (gbt__quantize, max_bin 256) on
 * a raw float32 file written by gen_workload; prints one JSON line.  Built
 * against one source tree by bench/construct.py, which pairs it with
 * LightGBM's Dataset.construct() on the same data (docs/perf-notes.md).
 *
 *   construct_time X_train.f32 NROW NCOL NTHREAD
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/quantize.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    FILE *f;
    float *x;
    uint64_t nrow, ncol;
    int nthread;
    gbt_dataset *d = NULL;
    struct gbt_qmatrix q;
    double t0, t1, t2, tc;
    float *copy;
    volatile float sink;
    if (argc != 5) {
        fprintf(stderr, "usage: construct_time X_train.f32 NROW NCOL NTHREAD\n");
        return 2;
    }
    nrow = strtoull(argv[2], NULL, 10);
    ncol = strtoull(argv[3], NULL, 10);
    nthread = atoi(argv[4]);
    x = malloc(nrow * ncol * sizeof *x);
    f = fopen(argv[1], "rb");
    if (x == NULL || f == NULL || fread(x, sizeof *x, nrow * ncol, f) != nrow * ncol) {
        fprintf(stderr, "construct_time: cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    /* the floor of construction: a fresh buffer of the same size, written once by memcpy */
    tc = now();
    copy = malloc(nrow * ncol * sizeof *copy);
    if (copy == NULL) return 1;
    memcpy(copy, x, nrow * ncol * sizeof *x);
    sink = copy[nrow * ncol / 2];
    tc = now() - tc;
    free(copy);
    t0 = now();
    if (gbt_dataset_from_dense(x, nrow, ncol, NAN, &d) != GBT_OK) return 1;
    t1 = now();
    if (gbt__quantize(d, 256, nthread, &q) != GBT_OK) return 1;
    t2 = now();
    printf("{\"memcpy_s\": %.4f, \"construct_s\": %.4f, \"bin_s\": %.4f, \"total_s\": %.4f, \"bins\": %u}\n", tc,
           t1 - t0, t2 - t1, t2 - t0, q.cuts.total_slots);
    gbt__qmatrix_free(&q);
    gbt_dataset_free(d);
    free(x);
    (void)sink;
    return 0;
}
