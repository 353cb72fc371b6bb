/*
 * test_binary.c - binary dataset files: a round trip keeps everything a
 * dataset holds (and trains the same model, byte for byte); the version-1
 * files of the Python package (tests/fixtures/, written by its NumPy
 * save_binary before the format moved into C) still read; every truncation
 * and every one-byte corruption of a version-2 file is refused with the
 * file's name, as are cut version-1 files, foreign files and newer versions.
 */
#include <math.h>

#include "testutil.h"

static const char *fixture(const char *name)
{
    static char p[512];
    const char *top = getenv("top_srcdir");
    snprintf(p, sizeof p, "%s/tests/fixtures/%s", top && top[0] ? top : ".", name);
    return p;
}

static int same_floats(const float *a, const float *b, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof *a) != 0) return 0;
    return 1;
}

static int field_is(const gbt_dataset *d, const char *field, const float *want, uint64_t n)
{
    const float *v;
    uint64_t len;
    return gbt_dataset_get_field(d, field, &v, &len) == GBT_OK && len == n && (n == 0 || same_floats(v, want, n));
}

static int groups_are(const gbt_dataset *d, const uint32_t *want, uint64_t n)
{
    const uint32_t *g;
    uint64_t len;
    return gbt_dataset_get_groups(d, &g, &len) == GBT_OK && len == n && (n == 0 || !memcmp(g, want, n * 4));
}

static int names_are(const gbt_dataset *d, const char *const *want, uint64_t n)
{
    const char *const *names;
    uint64_t len;
    if (gbt_dataset_get_feature_names(d, &names, &len) != GBT_OK || len != n) return 0;
    for (uint64_t i = 0; i < n; i++)
        if (strcmp(names[i], want[i]) != 0) return 0;
    return 1;
}

/* A copy of the file at path in *len bytes. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = malloc(1 << 20);
    *len = f ? fread(b, 1, 1 << 20, f) : 0;
    if (f) fclose(f);
    return b;
}

static void spit(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(b, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
}

static void test_dense_round_trip(void)
{
    /* 6 rows x 3 features, feature 2 categorical; every field set */
    const float x[18] = {1, 2, 0, NAN, -3.5f, 1, 5, 6, 2, 0.25f, NAN, NAN, 9, 1e-3f, 1, -7, 8, 0};
    const float y[6] = {1, 0, 1, 0, 1, 1}, w[6] = {1, 1, 0.5f, 0.5f, 0.5f, 0.5f}; /* one weight per query group */
    const float bm[6] = {0.1f, 0, -0.2f, 0, 0, 0.3f}, fw[3] = {1, 0.5f, 2};
    const float lo[6] = {1, 2, 0, 1, 3, 1}, hi[6] = {1, INFINITY, 2, 4, 3, 9};
    const uint32_t groups[2] = {2, 4};
    const char *names[3] = {"height", "\xce\xb2" "eta", "colour"}, *types[3] = {"q", "q", "c"};
    const char *cats = "{\"2\":[\"red\",\"gr\\u00fcn\",9]}";
    const char *path = tu_write("d.gbtbin", "");
    const char *got_types[3];
    const float *dense;
    gbt_dataset *d = NULL, *e = NULL;
    int is = -1;
    gbt_dataset_from_dense(x, 6, 3, NAN, &d);
    gbt_dataset_set_field(d, "label", y, 6);
    gbt_dataset_set_field(d, "weight", w, 6);
    gbt_dataset_set_field(d, "base_margin", bm, 6);
    gbt_dataset_set_field(d, "label_lower_bound", lo, 6);
    gbt_dataset_set_field(d, "label_upper_bound", hi, 6);
    gbt_dataset_set_field(d, "feature_weights", fw, 3);
    gbt_dataset_set_groups(d, groups, 2);
    gbt_dataset_set_feature_names(d, names, 3);
    ok(gbt_dataset_set_feature_types(d, types, 3) == GBT_OK, "setup: feature 2 categorical");
    ok(gbt_dataset_set_category_names(d, "{\"1\":[\"a\"]}") == GBT_E_INVALID_ARG &&
           strstr(gbt_last_error(), "feature 1, which is numeric"),
       "category names for a numeric feature are refused (%s)", gbt_last_error());
    ok(gbt_dataset_set_category_names(d, cats) == GBT_OK, "category names for feature 2");
    {
        const char *numeric[3] = {"q", "q", "q"};
        ok(gbt_dataset_set_feature_types(d, numeric, 3) == GBT_E_INVALID_ARG &&
               strstr(gbt_last_error(), "feature 2 (colour) holds category names"),
           "a feature with names stays categorical (%s)", gbt_last_error());
    }
    ok(gbt_dataset_save_binary(d, path) == GBT_OK, "dense dataset saved (%s)", gbt_last_error());
    ok(gbt_dataset_is_binary(path, &is) == GBT_OK && is == 1, "the file is sniffed as binary");
    ok(gbt_dataset_load_binary(path, &e) == GBT_OK, "dense dataset loaded (%s)", gbt_last_error());
    if (e == NULL) return;
    gbt_dataset_get_data(e, &dense, NULL, NULL, NULL, NULL);
    ok(dense != NULL && same_floats(dense, x, 18), "the same feature values, NaN included");
    ok(field_is(e, "label", y, 6) && field_is(e, "weight", w, 6) && field_is(e, "base_margin", bm, 6),
       "label, weight and base_margin kept");
    ok(field_is(e, "label_lower_bound", lo, 6) && field_is(e, "label_upper_bound", hi, 6),
       "label bounds kept (+inf included)");
    ok(field_is(e, "feature_weights", fw, 3), "feature weights kept");
    ok(groups_are(e, groups, 2), "query groups kept");
    ok(names_are(e, names, 3), "feature names kept (UTF-8)");
    gbt_dataset_get_feature_types(e, 3, got_types);
    ok(!strcmp(got_types[0], "q") && !strcmp(got_types[1], "q") && !strcmp(got_types[2], "c"), "feature types kept");
    {
        const char *got = NULL;
        const gbt_status st = gbt_dataset_get_category_names(e, &got);
        ok(st == GBT_OK && got && !strcmp(got, cats),
           "category names kept (section CATS): %s", got ? got : "none");
    }
    {
        const char *settings[] = {"objective=rank:pairwise", "max_depth=2", "min_child_weight=0",
                                  "colsample_bynode=0.7", NULL};
        gbt_booster *a = tu_train(d, 3, settings), *b = tu_train(e, 3, settings);
        ok(a && b && tu_same_model(a, b), "a model trained on the loaded dataset is the original's, byte for byte");
        gbt_booster_free(a);
        gbt_booster_free(b);
    }
    gbt_dataset_free(e);
    e = NULL;
    ok(gbt_dataset_from_file(path, "format=csv,header=1", &e) == GBT_OK && e && names_are(e, names, 3),
       "gbt_dataset_from_file reads a binary file, whatever its options");
    gbt_dataset_free(e);
    gbt_dataset_free(d);
}

static void test_csr_round_trip(void)
{
    const uint64_t indptr[4] = {0, 2, 2, 3};
    const uint32_t indices[3] = {4, 1, 0};
    const float values[3] = {1.5f, -2, 3}, y[3] = {1, 2, 3};
    const char *path = tu_write("s.gbtbin", "");
    const uint64_t *ip;
    const uint32_t *ix;
    const float *vals, *dense;
    uint64_t nnz = 0, r = 0, c = 0;
    gbt_dataset *d = NULL, *e = NULL;
    gbt_dataset_from_csr(indptr, indices, values, 3, 5, &d);
    gbt_dataset_set_field(d, "label", y, 3);
    ok(gbt_dataset_save_binary(d, path) == GBT_OK && gbt_dataset_load_binary(path, &e) == GBT_OK,
       "sparse dataset saved and loaded (%s)", gbt_last_error());
    if (e == NULL) return;
    gbt_dataset_shape(e, &r, &c);
    gbt_dataset_get_data(e, &dense, &ip, &ix, &vals, &nnz);
    /* rows are kept with their columns ascending: row 0 is (1, -2), (4, 1.5) */
    ok(r == 3 && c == 5 && dense == NULL && nnz == 3 && ip[1] == 2 && ip[2] == 2 && ip[3] == 3 && ix[0] == 1 &&
           ix[1] == 4 && ix[2] == 0 && vals[0] == -2 && vals[1] == 1.5f && vals[2] == 3,
       "sparse: the same shape, entries and columns, still sparse");
    ok(field_is(e, "label", y, 3) && field_is(e, "weight", NULL, 0) && groups_are(e, NULL, 0) && names_are(e, NULL, 0),
       "sparse: labels kept; no weight, groups or names appear");
    gbt_dataset_free(e);
    gbt_dataset_free(d);
}

/* Files written by the Python package's NumPy save_binary (format version 1). */
static void test_version_1(void)
{
    const float x[12] = {1, 2, 3, 4, NAN, 6, 7, 8, 9, -1, 0.5f, 2};
    const float y[4] = {0, 1, 0, 1}, w[4] = {1, 2, 3, 4}, bm[4] = {0.5f, 0, 0, -0.5f};
    const uint32_t groups[2] = {1, 3};
    const char *names[3] = {"a", "b\xc3\xa9", "c"};
    const float *dense, *vals;
    const uint64_t *ip;
    const uint32_t *ix;
    uint64_t nnz = 0, r = 0, c = 0;
    gbt_dataset *d = NULL;
    int is = 0;
    ok(gbt_dataset_is_binary(fixture("dense_v1.buffer"), &is) == GBT_OK && is == 1, "version 1 is sniffed");
    ok(gbt_dataset_load_binary(fixture("dense_v1.buffer"), &d) == GBT_OK, "version-1 dense file read (%s)",
       gbt_last_error());
    if (d) {
        gbt_dataset_shape(d, &r, &c);
        gbt_dataset_get_data(d, &dense, NULL, NULL, NULL, NULL);
        ok(r == 4 && c == 3 && dense && same_floats(dense, x, 12), "v1: the feature values");
        ok(field_is(d, "label", y, 4) && field_is(d, "weight", w, 4) && field_is(d, "base_margin", bm, 4),
           "v1: label, weight, base_margin");
        ok(groups_are(d, groups, 2) && names_are(d, names, 3), "v1: groups and names (UTF-32 to UTF-8)");
    }
    gbt_dataset_free(d);
    d = NULL;
    ok(gbt_dataset_from_file(fixture("csr_v1.buffer"), NULL, &d) == GBT_OK, "version-1 sparse file read (%s)",
       gbt_last_error());
    if (d) {
        const float y3[3] = {1, 2, 3};
        gbt_dataset_shape(d, &r, &c);
        gbt_dataset_get_data(d, &dense, &ip, &ix, &vals, &nnz);
        ok(r == 3 && c == 4 && !dense && nnz == 3 && ip[1] == 1 && ip[2] == 3 && ip[3] == 3 && ix[0] == 1 &&
               vals[0] == 1.5f && ix[1] == 0 && vals[1] == 2 && ix[2] == 3 && vals[2] == 3 && field_is(d, "label", y3, 3),
           "v1: the sparse entries and labels");
    }
    gbt_dataset_free(d);
}

/* Loading path must fail with status, no dataset, and a message holding the path and needle. */
static int refused(const char *path, gbt_status status, const char *needle)
{
    gbt_dataset *d = (gbt_dataset *)1;
    const gbt_status s = gbt_dataset_load_binary(path, &d);
    const char *msg = gbt_last_error();
    if (s == status && d == (gbt_dataset *)1 && strstr(msg, path) && (!needle || strstr(msg, needle))) return 1;
    diag("%s: status %d, message \"%s\"", path, (int)s, msg);
    return 0;
}

static void test_errors(void)
{
    const char *good = tu_write("good.gbtbin", ""), *bad = tu_write("bad.gbtbin", "");
    const float x[6] = {1, 2, 3, 4, 5, 6}, y[2] = {0, 1};
    const char *names[3] = {"u", "v", "w"};
    unsigned char *b, *v1;
    size_t len, len1, prefix_bad = 0, flip_bad = 0, v1_bad = 0;
    gbt_dataset *d = NULL;
    int is = 1;
    gbt_dataset_from_dense(x, 2, 3, NAN, &d);
    gbt_dataset_set_field(d, "label", y, 2);
    gbt_dataset_set_feature_names(d, names, 3);
    gbt_dataset_save_binary(d, good);
    gbt_dataset_free(d);
    b = slurp(good, &len);
    for (size_t n = 0; n < len; n++) {
        spit(bad, b, n);
        prefix_bad += refused(bad, GBT_E_FORMAT, n < 9 ? "not a gbt binary dataset" : "truncated") ? 0 : 1;
    }
    ok(len > 60 && prefix_bad == 0, "each of the %zu truncations of a version-2 file is refused as truncated", len);
    for (size_t i = 0; i < len; i++) {
        b[i] ^= 0x10;
        spit(bad, b, len);
        flip_bad += refused(bad, GBT_E_FORMAT, NULL) ? 0 : 1;
        b[i] ^= 0x10;
    }
    ok(flip_bad == 0, "each one-byte corruption of the %zu bytes is refused", len);
    b[len - 4] ^= 1; /* the stored checksum */
    spit(bad, b, len);
    ok(refused(bad, GBT_E_FORMAT, "checksum"), "a wrong checksum is named");
    b[len - 4] ^= 1;
    memcpy(b + len, "x", 1);
    spit(bad, b, len + 1);
    ok(refused(bad, GBT_E_FORMAT, "after section END"), "bytes after the end are refused");
    v1 = slurp(fixture("dense_v1.buffer"), &len1);
    /* every cut in the first entry (its ZIP header, ZIP64 sizes, .npy header, data), then every 17th */
    for (size_t n = 9; n < len1; n += n < 220 ? 1 : 17) {
        spit(bad, v1, n);
        v1_bad += refused(bad, GBT_E_FORMAT, NULL) ? 0 : 1;
    }
    ok(len1 > 1000 && v1_bad == 0, "truncations of a version-1 file are refused");
    {
        /* a byte of the dense array's data: just after the end of its .npy header */
        size_t at = 0;
        while (at + 9 < len1 && memcmp(v1 + at, "dense.npy", 9) != 0) at++;
        while (at < len1 && v1[at] != '\n') at++;
        v1[at + 1] ^= 0x40;
    }
    spit(bad, v1, len1);
    ok(refused(bad, GBT_E_FORMAT, "checksum"), "version 1: a corrupted array fails its entry's checksum");
    memcpy(b, "GBTDMAT7\n", 9);
    spit(bad, b, len);
    ok(refused(bad, GBT_E_FORMAT, "format version 7"), "a newer version is named");
    ok(refused(tu_write("foreign.csv", "1,2,3\n"), GBT_E_FORMAT, "not a gbt binary dataset"),
       "a text file is not a binary dataset");
    ok(gbt_dataset_is_binary(tu_write("foreign.csv", "1,2,3\n"), &is) == GBT_OK && is == 0,
       "a text file is not sniffed as binary");
    ok(refused(tu_write("empty.gbtbin", ""), GBT_E_FORMAT, "not a gbt binary dataset"),
       "an empty file is refused");
    ok(gbt_dataset_load_binary("/nonexistent/x.gbtbin", &d) == GBT_E_IO && strstr(gbt_last_error(), "/nonexistent"),
       "a missing file is GBT_E_IO naming it");
    ok(gbt_dataset_save_binary(NULL, good) == GBT_E_INVALID_ARG, "saving NULL is refused");
    free(b);
    free(v1);
}

int main(void)
{
    test_dense_round_trip();
    test_csr_round_trip();
    test_version_1();
    test_errors();
    tu_cleanup();
    return done_testing();
}
