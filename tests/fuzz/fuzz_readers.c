/*
 * fuzz_readers.c - the dataset readers: every format, the side files and
 * the options.  The input's first two bytes choose the options; the rest
 * is split at each "\n#~\n" into the data file, PATH.weight,
 * PATH.base_margin and PATH.group, written to files of a private
 * directory.  A read that fails must say why and return no dataset; one
 * that succeeds must give a dataset whose shape and fields are consistent
 * and that trains one small round (or fails with a message).
 */
#include <math.h>
#include <unistd.h>

#include "fuzz_common.h"

static char dir[64];

static const char *const side[] = {"", ".weight", ".base_margin", ".group"};

/* Removes the private directory and its files when the fuzzer exits. */
static void remove_dir(void)
{
    char path[128];
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/data%s", dir, side[k]);
        unlink(path);
    }
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    gbt_set_log_callback(fuzz_quiet, NULL);
    snprintf(dir, sizeof dir, "/tmp/gbt-fuzz-readers-XXXXXX");
    if (!mkdtemp(dir)) abort();
    atexit(remove_dir);
    return 0;
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    FUZZ_ASSERT(f != NULL);
    FUZZ_ASSERT(fwrite(p, 1, n, f) == n);
    FUZZ_ASSERT(fclose(f) == 0);
}

static const uint8_t *find_sep(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(p + i, "\n#~\n", 4) == 0) return p + i;
    return NULL;
}

static void options_of(unsigned a, unsigned b, char *opt, size_t len)
{
    static const char *const formats[] = {"", "format=libsvm,", "format=csv,", "format=tsv,"};
    static const char *const labels[] = {"", "label_column=-1,", "label_column=1,", "label_column=auto,features=2,"};
    static const char *const indexing[] = {"", "indexing_mode=0,", "indexing_mode=1,", "indexing_mode=auto,"};
    snprintf(opt, len, "%s%s%s%s%s%s", formats[a & 3], labels[(a >> 2) & 3], indexing[(a >> 4) & 3],
             a & 64 ? "header=1," : "", a & 128 ? "missing=-999," : "", b & 1 ? "side_files=0" : "side_files=1");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4][128], opt[160];
    gbt_dataset *d = NULL;
    unsigned a, b;
    uint64_t nrow = 0, ncol = 0;
    gbt_status s;
    if (size < 2) return 0;
    a = data[0], b = data[1];
    data += 2, size -= 2;
    options_of(a, b, opt, sizeof opt);
    for (int k = 0; k < 4; k++) {
        snprintf(path[k], sizeof path[k], "%s/data%s", dir, side[k]);
        unlink(path[k]);
    }
    for (int k = 0; k < 4 && data; k++) {
        const uint8_t *sep = k < 3 ? find_sep(data, size) : NULL;
        size_t n = sep ? (size_t)(sep - data) : size;
        write_file(path[k], data, n);
        if (sep) {
            size -= n + 4;
            data = sep + 4;
        } else {
            data = NULL;
        }
    }
    s = gbt_dataset_from_file(path[0], opt, &d);
    if (s != GBT_OK) {
        FUZZ_ASSERT(FUZZ_FAILED_WITH_MESSAGE(s));
        FUZZ_ASSERT(d == NULL);
        return 0;
    }
    FUZZ_ASSERT(gbt_dataset_shape(d, &nrow, &ncol) == GBT_OK);
    FUZZ_ASSERT(nrow >= 1 && ncol >= 1);
    {
        static const char *const fields[] = {"label", "weight", "base_margin"};
        for (int k = 0; k < 3; k++) {
            const float *v = NULL;
            uint64_t n = 0;
            FUZZ_ASSERT(gbt_dataset_get_field(d, fields[k], &v, &n) == GBT_OK);
            FUZZ_ASSERT(n == 0 || n % nrow == 0);
            for (uint64_t i = 0; i < n; i++) FUZZ_ASSERT(isfinite(v[i]));
        }
    }
    if (nrow <= 4096 && ncol <= 4096) {
        gbt_booster *bo = NULL;
        FUZZ_ASSERT(gbt_booster_create(&bo) == GBT_OK);
        FUZZ_ASSERT(gbt_booster_set_param(bo, "nthread", "1") == GBT_OK);
        FUZZ_ASSERT(gbt_booster_set_param(bo, "max_depth", "3") == GBT_OK);
        FUZZ_ASSERT(gbt_booster_set_param(bo, "max_bin", "16") == GBT_OK);
        FUZZ_ASSERT(gbt_booster_set_param(bo, "device", "cpu") == GBT_OK);
        if (b & 2) FUZZ_ASSERT(gbt_booster_set_param(bo, "objective", "binary:logistic") == GBT_OK);
        s = gbt_booster_update(bo, d);
        FUZZ_ASSERT(s == GBT_OK || FUZZ_FAILED_WITH_MESSAGE(s));
        gbt_booster_free(bo);
    }
    gbt_dataset_free(d);
    return 0;
}
