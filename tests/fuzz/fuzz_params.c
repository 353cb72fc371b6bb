/*
 * fuzz_params.c - the parameters.  The input is lines "name=value"; a name
 * that starts with a byte below 0x20 picks a real parameter (or alias) by
 * that byte.  Each is set with gbt_booster_set_param: a refusal must say
 * why, leave the booster as it was (its saved parameters unchanged), and
 * reading a parameter back must work.  Then two rounds of training on a
 * fixed small dataset must succeed or fail with a message, and a model
 * that trained must save and load.
 */
#include <math.h>

#include "fuzz_common.h"

static gbt_dataset *train;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    enum { N = 48, F = 3 };
    float x[N * F], y[N];
    uint32_t groups[] = {16, 16, 16};
    (void)argc, (void)argv;
    gbt_set_log_callback(fuzz_quiet, NULL);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < F; j++) x[i * F + j] = (i * 7 + j * 13) % 11 == 0 ? NAN : (float)((i * (j + 3)) % 17);
        y[i] = (float)(i % 3);
    }
    if (gbt_dataset_from_dense(x, N, F, NAN, &train) != GBT_OK) abort();
    if (gbt_dataset_set_field(train, "label", y, N) != GBT_OK) abort();
    if (gbt_dataset_set_groups(train, groups, 3) != GBT_OK) abort();
    return 0;
}

static char *saved_params(const gbt_booster *b)
{
    static const char *const names[] = {"objective", "eta", "max_depth", "max_bin", "lambda", "nthread", "seed"};
    size_t cap = 4096, len = 0;
    char *all = malloc(cap);
    FUZZ_ASSERT(all);
    all[0] = '\0';
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char v[512];
        FUZZ_ASSERT(gbt_booster_get_param(b, names[k], v, sizeof v) == GBT_OK);
        len += (size_t)snprintf(all + len, cap - len, "%s=%s;", names[k], v);
        FUZZ_ASSERT(len < cap);
    }
    return all;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gbt_booster *b = NULL;
    char *text = malloc(size + 1), *line, *save = NULL;
    gbt_status s;
    int np = gbt_param_count();
    FUZZ_ASSERT(text && np > 0);
    memcpy(text, data, size);
    text[size] = '\0';
    FUZZ_ASSERT(gbt_booster_create(&b) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_set_param(b, "device", "cpu") == GBT_OK);
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '='), *before, *after;
        const char *name = line, *value = eq ? eq + 1 : "";
        if (eq) *eq = '\0';
        if ((unsigned char)line[0] < 0x20 && line[0] != '\0') {
            const char *n = NULL;
            FUZZ_ASSERT(gbt_param_describe((unsigned char)line[0] % np, &n, NULL, NULL, NULL, NULL, NULL) == GBT_OK);
            name = n;
        }
        /* 4096 threads are allowed but cost the fuzzer's time, not coverage */
        if (strcmp(name, "device") == 0 || strstr(name, "thread") || strcmp(name, "n_jobs") == 0) continue;
        before = saved_params(b);
        s = gbt_booster_set_param(b, name, value);
        after = saved_params(b);
        if (s != GBT_OK) {
            FUZZ_ASSERT(FUZZ_FAILED_WITH_MESSAGE(s));
            FUZZ_ASSERT(strcmp(before, after) == 0);
        }
        free(before);
        free(after);
    }
    free(text);
    FUZZ_ASSERT(gbt_booster_set_param(b, "nthread", "1") == GBT_OK);
    s = gbt_booster_train(b, train, 2, NULL, NULL, 0);
    FUZZ_ASSERT(s == GBT_OK || FUZZ_FAILED_WITH_MESSAGE(s));
    if (s == GBT_OK) {
        char *buf = NULL;
        size_t len = 0;
        gbt_booster *c = NULL;
        FUZZ_ASSERT(gbt_booster_save_to_buffer(b, &buf, &len) == GBT_OK);
        FUZZ_ASSERT(gbt_booster_load_from_buffer(buf, len, &c) == GBT_OK);
        gbt_booster_free(c);
        gbt_free(buf);
    }
    gbt_booster_free(b);
    return 0;
}
