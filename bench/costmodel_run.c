/*
 * costmodel_run.c - bench/costmodel.py's driver, linked with the CUDA
 * emulator's counting build (make cuda-emu-cost; tests/cuda-emu/README.md).
 *
 *   costmodel_run X.f32 y.f32 ROWS COLS ROUNDS [name=value ...]
 *
 * Reads the first ROWS rows of a row-major float32 matrix of COLS columns
 * and their float32 labels (bench/gen_workload's raw files), trains ROUNDS
 * rounds with device=cuda on the emulated device through the public API
 * (name=value: gbt_booster_set_param), and writes to stdout, one line each:
 *   setup <json>     the counters of the dataset and booster creation
 *   round R <json>   the counters of round R (gbt_booster_update), 1-based
 *   tree R <json>    that round's tree (gbt_booster_dump, format json)
 * where <json> is gbt_emu_cost_take's object.  Exit status 1 on any error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "gbt.h"
#include "gbt_emu.h"

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "costmodel_run: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void check(gbt_status s, const char *what)
{
    if (s != GBT_OK) die(what, gbt_last_error());
}

static void *read_prefix(const char *path, size_t bytes)
{
    FILE *f = fopen(path, "rb");
    void *p = malloc(bytes ? bytes : 1);
    if (f == NULL) die("cannot open", path);
    if (p == NULL) die("out of memory for", path);
    if (fread(p, 1, bytes, f) != bytes) die("file shorter than ROWS x COLS floats", path);
    fclose(f);
    return p;
}

static unsigned long long number(const char *s, const char *what)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v == 0) die("not a positive number", what);
    return v;
}

int main(int argc, char **argv)
{
    gbt_dataset *d = NULL;
    gbt_booster *b = NULL;
    if (argc < 6) {
        fprintf(stderr, "usage: costmodel_run X.f32 y.f32 ROWS COLS ROUNDS [name=value ...]\n");
        return 2;
    }
    const unsigned long long rows = number(argv[3], "ROWS"), cols = number(argv[4], "COLS");
    const int rounds = (int)number(argv[5], "ROUNDS");
    float *x = read_prefix(argv[1], rows * cols * sizeof(float));
    float *y = read_prefix(argv[2], rows * sizeof(float));
    check(gbt_dataset_from_dense(x, rows, cols, NAN, &d), "gbt_dataset_from_dense");
    check(gbt_dataset_set_field(d, "label", y, rows), "gbt_dataset_set_field label");
    check(gbt_booster_create(&b), "gbt_booster_create");
    check(gbt_booster_set_param(b, "device", "cuda"), "device=cuda");
    for (int i = 6; i < argc; i++) {
        char name[128];
        const char *eq = strchr(argv[i], '=');
        if (eq == NULL || (size_t)(eq - argv[i]) >= sizeof name) die("not name=value", argv[i]);
        memcpy(name, argv[i], (size_t)(eq - argv[i]));
        name[eq - argv[i]] = '\0';
        check(gbt_booster_set_param(b, name, eq + 1), argv[i]);
    }
    fputs("setup ", stdout);
    if (gbt_emu_cost_take(stdout) != 0) die("not linked with the counting build (make cuda-emu-cost)", NULL);
    for (int r = 1; r <= rounds; r++) {
        char *dump = NULL;
        size_t len = 0;
        check(gbt_booster_update(b, d), "gbt_booster_update");
        printf("round %d ", r);
        gbt_emu_cost_take(stdout);
        check(gbt_booster_dump(b, "json", r - 1, 0, &dump, &len), "gbt_booster_dump");
        printf("tree %d ", r);
        for (size_t i = 0; i < len; i++) putchar(dump[i] == '\n' ? ' ' : dump[i]); /* one line */
        putchar('\n');
        gbt_free(dump);
        fflush(stdout);
    }
    gbt_booster_free(b);
    gbt_dataset_free(d);
    free(x);
    free(y);
    return 0;
}
