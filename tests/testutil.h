/*
 * testutil.h - helpers shared by the test programs: random data, training
 * with a parameter list, model bytes, temporary files.
 */
#ifndef GBT_TESTUTIL_H
#define GBT_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbt.h"
#include "tap.h"

/* A small deterministic generator (xorshift64*), independent of the library's. */
static uint64_t tu_state = 88172645463325252ull;
static void tu_seed(uint64_t s) __attribute__((unused));
static void tu_seed(uint64_t s)
{
    tu_state = s * 2654435761ull + 1;
}
static double tu_unit(void) __attribute__((unused));
static double tu_unit(void)
{
    tu_state ^= tu_state >> 12;
    tu_state ^= tu_state << 25;
    tu_state ^= tu_state >> 27;
    return (double)((tu_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/*
 * Random dense data: nrow x ncol floats, a fraction `missing` of them NaN,
 * features of mixed kinds (continuous, few distinct values), and labels for
 * the task: 0 regression, 1 binary, k >= 2 classes.
 */
static void tu_data(uint64_t nrow, uint64_t ncol, double missing, int task, float *x, float *y)
    __attribute__((unused));
static void tu_data(uint64_t nrow, uint64_t ncol, double missing, int task, float *x, float *y)
{
    for (uint64_t r = 0; r < nrow; r++) {
        double z = 0.0;
        for (uint64_t c = 0; c < ncol; c++) {
            double v = c % 3 == 2 ? (double)(int)(tu_unit() * 5) : tu_unit() * 4.0 - 2.0;
            x[r * ncol + c] = (float)v;
            z += (c % 2 ? 1.0 : -0.5) * v * (c < 4 ? 1.0 : 0.2);
            if (tu_unit() < missing) x[r * ncol + c] = NAN;
        }
        z += 0.5 * (tu_unit() - 0.5);
        if (task == 0)
            y[r] = (float)z;
        else if (task == 1)
            y[r] = z > 0 ? 1.0f : 0.0f;
        else {
            int k = (int)((z + 3.0) / 6.0 * task);
            y[r] = (float)(k < 0 ? 0 : k >= task ? task - 1 : k);
        }
    }
}

/* A dense dataset with labels from tu_data. */
static gbt_dataset *tu_dataset(uint64_t nrow, uint64_t ncol, double missing, int task)
    __attribute__((unused));
static gbt_dataset *tu_dataset(uint64_t nrow, uint64_t ncol, double missing, int task)
{
    float *x = malloc(nrow * ncol * sizeof *x), *y = malloc(nrow * sizeof *y);
    gbt_dataset *d = NULL;
    tu_data(nrow, ncol, missing, task, x, y);
    if (gbt_dataset_from_dense(x, nrow, ncol, NAN, &d) != GBT_OK ||
        gbt_dataset_set_field(d, "label", y, nrow) != GBT_OK) {
        diag("tu_dataset: %s", gbt_last_error());
        exit(2);
    }
    free(x);
    free(y);
    return d;
}

/* The same data as CSR: only present values stored. */
static gbt_dataset *tu_to_csr(const float *x, const float *y, uint64_t nrow, uint64_t ncol)
    __attribute__((unused));
static gbt_dataset *tu_to_csr(const float *x, const float *y, uint64_t nrow, uint64_t ncol)
{
    uint64_t *ptr = calloc(nrow + 1, sizeof *ptr), k = 0;
    uint32_t *idx = malloc(nrow * ncol * sizeof *idx + 4);
    float *val = malloc(nrow * ncol * sizeof *val + 4);
    gbt_dataset *d = NULL;
    for (uint64_t r = 0; r < nrow; r++) {
        for (uint64_t c = 0; c < ncol; c++)
            if (!isnan(x[r * ncol + c])) {
                idx[k] = (uint32_t)c;
                val[k++] = x[r * ncol + c];
            }
        ptr[r + 1] = k;
    }
    if (gbt_dataset_from_csr(ptr, idx, val, nrow, ncol, &d) != GBT_OK ||
        gbt_dataset_set_field(d, "label", y, nrow) != GBT_OK) {
        diag("tu_to_csr: %s", gbt_last_error());
        exit(2);
    }
    free(ptr);
    free(idx);
    free(val);
    return d;
}

/* A booster with "name=value" settings from a NULL-terminated list. */
static gbt_booster *tu_booster(const char *const *settings) __attribute__((unused));
static gbt_booster *tu_booster(const char *const *settings)
{
    gbt_booster *b = NULL;
    if (gbt_booster_create(&b) != GBT_OK) exit(2);
    for (int i = 0; settings && settings[i]; i++) {
        char name[128];
        const char *eq = strchr(settings[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - settings[i]), settings[i]);
        if (gbt_booster_set_param(b, name, eq + 1) != GBT_OK) {
            diag("tu_booster: %s", gbt_last_error());
            exit(2);
        }
    }
    return b;
}

/* Trains a new booster and returns it; NULL (and a diagnostic) on failure. */
static gbt_booster *tu_train(const gbt_dataset *d, int rounds, const char *const *settings)
    __attribute__((unused));
static gbt_booster *tu_train(const gbt_dataset *d, int rounds, const char *const *settings)
{
    gbt_booster *b = tu_booster(settings);
    if (gbt_booster_train(b, d, rounds, NULL, NULL, 0) != GBT_OK) {
        diag("tu_train: %s", gbt_last_error());
        gbt_booster_free(b);
        return NULL;
    }
    return b;
}

/* The model's JSON; caller frees with gbt_free. */
static char *tu_model(const gbt_booster *b, size_t *len) __attribute__((unused));
static char *tu_model(const gbt_booster *b, size_t *len)
{
    char *buf = NULL;
    if (b == NULL || gbt_booster_save_to_buffer(b, &buf, len) != GBT_OK) {
        *len = 0;
        return NULL;
    }
    return buf;
}

/* Whether two boosters save to the same bytes. */
static int tu_same_model(const gbt_booster *a, const gbt_booster *b) __attribute__((unused));
static int tu_same_model(const gbt_booster *a, const gbt_booster *b)
{
    size_t la, lb;
    char *ma = tu_model(a, &la), *mb = tu_model(b, &lb);
    int same = ma && mb && la == lb && memcmp(ma, mb, la) == 0;
    gbt_free(ma);
    gbt_free(mb);
    return same;
}

/* A fresh temporary directory for this test program. */
static const char *tu_tmpdir(void) __attribute__((unused));
static const char *tu_tmpdir(void)
{
    static char dir[256];
    if (dir[0] == '\0') {
        const char *base = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gbt-test-XXXXXX", base && base[0] ? base : "/tmp");
        if (mkdtemp(dir) == NULL) {
            perror("mkdtemp");
            exit(2);
        }
    }
    return dir;
}

/* Writes text to DIR/name and returns the path (a static buffer reused after 64 calls). */
static const char *tu_write(const char *name, const char *text) __attribute__((unused));
static const char *tu_write(const char *name, const char *text)
{
    static char paths[64][512];
    static int next;
    char *p = paths[next++ % 64];
    FILE *f;
    snprintf(p, 512, "%s/%s", tu_tmpdir(), name);
    f = fopen(p, "wb");
    if (f == NULL || fwrite(text, 1, strlen(text), f) != strlen(text) || fclose(f) != 0) {
        perror(p);
        exit(2);
    }
    return p;
}

/* Removes the temporary directory and its files. */
static void tu_cleanup(void) __attribute__((unused));
static void tu_cleanup(void)
{
    char cmd[600];
    if (tu_tmpdir()[0] == '\0') return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tu_tmpdir());
    if (system(cmd) != 0) diag("could not remove %s", tu_tmpdir());
}

#endif
