/*
 * test_cat_data.c - categorical features on datasets: marking them
 * (gbt_dataset_set_feature_types), the check of their values (errors that
 * name the file, line and column), slicing, and their binning (one bin per
 * category whatever max_bin, two-byte codes when a byte is too few).
 * Expected bins are counted by hand from the data written here.
 */
#include <float.h>
#include <math.h>

#include "data/dataset.h"
#include "data/quantize.h"
#include "testutil.h"

static const char *const QC[] = {"q", "c"}, *const CC[] = {"c", "c"};

static void test_types(void)
{
    float x[] = {1.5f, 0, 2.5f, 3, NAN, NAN};
    const char *got[2] = {NULL, NULL};
    const char *bad[] = {"q", "x"};
    const char *aliases[] = {"float", "c"};
    gbt_dataset *d = NULL;
    ok_call(gbt_dataset_from_dense(x, 3, 2, NAN, &d), "dense 3 x 2");
    ok_call(gbt_dataset_get_feature_types(d, 2, got), "types of a fresh dataset");
    ok(got[0] && got[1] && strcmp(got[0], "q") == 0 && strcmp(got[1], "q") == 0, "every feature numeric by default");
    ok_call(gbt_dataset_set_feature_types(d, QC, 2), "q, c: column 1 holds 0, 3 and a missing value");
    ok_call(gbt_dataset_get_feature_types(d, 2, got), "types read back");
    ok(strcmp(got[0], "q") == 0 && strcmp(got[1], "c") == 0, "types read back as q, c");
    ok(gbt_dataset_set_feature_types(d, QC, 1) == GBT_E_INVALID_ARG, "one type for two features is refused");
    ok(strstr(gbt_last_error(), "1 feature types") != NULL, "the message counts the types: %s", gbt_last_error());
    ok(gbt_dataset_set_feature_types(d, bad, 2) == GBT_E_INVALID_ARG, "type \"x\" is refused");
    ok(strstr(gbt_last_error(), "feature 1") && strstr(gbt_last_error(), "\"x\""),
       "the message names feature 1 and \"x\": %s", gbt_last_error());
    ok_call(gbt_dataset_get_feature_types(d, 2, got), "types after the refusals");
    ok(strcmp(got[1], "c") == 0, "a refused call leaves the types as they were");
    ok_call(gbt_dataset_set_feature_types(d, aliases, 2), "XGBoost's \"float\" is numeric");
    ok(gbt_dataset_get_feature_types(d, 2, got) == GBT_OK && strcmp(got[0], "float") == 0,
       "\"float\" reads back as XGBoost keeps it, \"float\"");
    ok(gbt_dataset_get_feature_types(d, 3, got) == GBT_E_INVALID_ARG, "room for 3 types of 2 features is refused");
    ok_call(gbt_dataset_set_feature_types(d, NULL, 0), "no types: all numeric again");
    ok(gbt_dataset_get_feature_types(d, 2, got) == GBT_OK && strcmp(got[1], "q") == 0, "cleared to q");
    ok(gbt_dataset_set_feature_types(d, CC, 2) == GBT_E_INVALID_ARG,
       "column 0 (1.5, 2.5) cannot be categorical");
    ok(strstr(gbt_last_error(), "row 0") && strstr(gbt_last_error(), "column 0") && strstr(gbt_last_error(), "1.5"),
       "the message names row 0, column 0 and 1.5: %s", gbt_last_error());
    gbt_dataset_free(d);
}

/* Each bad value of a categorical column of a CSV file: the error names the file, its line and the column. */
static void test_bad_values_in_file(void)
{
    static const struct {
        const char *value, *shown;
    } cases[] = {{"2.5", "2.5"}, {"-1", "-1"}, {"16777216", "16777216"}, {"1e30", "e+30"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256], want[512];
        const char *path;
        gbt_dataset *d = NULL;
        /* line 1 a header, lines 2 and 3 good rows, line 4 the bad value in column 1 */
        snprintf(text, sizeof text, "y,a,b\n0,1.5,0\n1,2,16777215\n0,3,%s\n1,4,\n", cases[i].value);
        path = tu_write("bad.csv", text);
        if (gbt_dataset_from_file(path, "format=csv,header=1,label_column=0", &d) != GBT_OK) {
            ok(0, "read %s: %s", path, gbt_last_error());
            continue;
        }
        ok(gbt_dataset_set_feature_types(d, QC, 2) == GBT_E_INVALID_ARG, "%s in a categorical column is refused",
           cases[i].value);
        snprintf(want, sizeof want, "%s:4", path);
        /* the file's column 2 (the label is column 0), as the reader's messages count: feature 1 */
        ok(strstr(gbt_last_error(), want) && strstr(gbt_last_error(), "column 2 (feature 1, b)") &&
               strstr(gbt_last_error(), cases[i].shown),
           "the message names %s, column 2 (feature 1, b) and %s: %s", want, cases[i].shown, gbt_last_error());
        gbt_dataset_free(d);
    }
}

static void test_sparse_and_slice(void)
{
    /* CSR rows: {0: 7}, {1: 2.5}, {0: 0, 1: 1}; column 0 categorical, column 1 numeric */
    float x[] = {7, NAN, NAN, 2.5f, 0, 1};
    float y[] = {0, 1, 0};
    const char *const CQ[] = {"c", "q"};
    const char *got[2];
    gbt_dataset *d = tu_to_csr(x, y, 3, 2), *s = NULL;
    ok_call(gbt_dataset_set_feature_types(d, CQ, 2), "CSR: c, q");
    ok(gbt_dataset_set_feature_types(d, QC, 2) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "row 1") &&
           strstr(gbt_last_error(), "column 1"),
       "CSR: 2.5 at row 1, column 1 is named: %s", gbt_last_error());
    ok_call(gbt_dataset_slice_rows(d, 1, 3, &s), "slice rows 1 and 2");
    ok(gbt_dataset_get_feature_types(s, 2, got) == GBT_OK && strcmp(got[0], "c") == 0 && strcmp(got[1], "q") == 0,
       "the slice keeps the types c, q");
    gbt_dataset_free(s);
    gbt_dataset_free(d);
}

static void test_binning(void)
{
    /*
     * Column 0 categorical with categories 9, 0, 300, 5 and a missing
     * value; column 1 numeric.  At max_bin 2 the numeric column gets 2
     * bins, the categorical one a bin per category: 0, 5, 9, 300.
     */
    float x[] = {9, 1, 0, 2, 300, 3, 5, 4, NAN, 5, 9, 6, 0, 7, 300, 8};
    const char *const CQ[] = {"c", "q"};
    const uint32_t want_cat[] = {0, 5, 9, 300}, want_code[] = {2, 0, 3, 1, 4, 2, 0, 3};
    gbt_dataset *d = NULL;
    struct gbt_qmatrix q;
    int codes_ok = 1, cats_ok = 1;
    ok_call(gbt_dataset_from_dense(x, 8, 2, NAN, &d), "dense 8 x 2");
    ok_call(gbt_dataset_set_feature_types(d, CQ, 2), "c, q");
    ok_call(gbt__quantize(d, 2, 1, &q), "quantize at max_bin 2");
    ok(gbt__cuts_is_cat(&q.cuts, 0) && !gbt__cuts_is_cat(&q.cuts, 1), "feature 0 categorical, feature 1 not");
    ok(q.cuts.nbins[0] == 4, "4 categories, 4 bins, above max_bin 2 (got %u)", q.cuts.nbins[0]);
    ok(q.cuts.nbins[1] == 2, "the numeric feature keeps max_bin 2 (got %u)", q.cuts.nbins[1]);
    for (uint32_t b = 0; b < 4 && q.cuts.nbins[0] == 4; b++) cats_ok &= q.cuts.category[q.cuts.offset[0] + b] == want_cat[b];
    ok(cats_ok, "bins hold categories 0, 5, 9, 300 in order");
    for (uint64_t r = 0; r < 8; r++) codes_ok &= gbt__qm_code(&q, r, 0) == want_code[r];
    ok(codes_ok, "rows bin to their categories; the missing row to the missing code 4");
    gbt__qmatrix_free(&q);
    gbt_dataset_free(d);
}

static void test_wide_categories(void)
{
    /* 300 categories (0, 2, ..., 598) and a missing value: more than a byte's codes */
    enum { N = 301 };
    static float x[N];
    const char *const C[] = {"c"};
    gbt_dataset *d = NULL;
    struct gbt_qmatrix q;
    int codes_ok = 1;
    for (int i = 0; i < N; i++) x[i] = i < 300 ? (float)(2 * (299 - i)) : NAN;
    ok_call(gbt_dataset_from_dense(x, N, 1, NAN, &d), "dense 301 x 1");
    ok_call(gbt_dataset_set_feature_types(d, C, 1), "c");
    ok_call(gbt__quantize(d, 256, 1, &q), "quantize at max_bin 256");
    ok(q.layout == GBT_QM_DENSE16, "300 categories and missing: two-byte codes");
    ok(q.cuts.nbins[0] == 300, "300 bins (got %u)", q.cuts.nbins[0]);
    for (int i = 0; i < N; i++) codes_ok &= gbt__qm_code(&q, (uint64_t)i, 0) == (uint32_t)(i < 300 ? 299 - i : 300);
    ok(codes_ok, "category 2k in bin k, the missing row in code 300");
    gbt__qmatrix_free(&q);
    gbt_dataset_free(d);
}

static void test_too_many_categories(void)
{
    enum { N = 65536 };
    float *x = malloc(N * sizeof *x);
    const char *const C[] = {"c"};
    gbt_dataset *d = NULL;
    struct gbt_qmatrix q;
    if (x == NULL) exit(2);
    for (int i = 0; i < N; i++) x[i] = (float)i;
    ok_call(gbt_dataset_from_dense(x, N, 1, NAN, &d), "dense 65536 x 1");
    ok_call(gbt_dataset_set_feature_types(d, C, 1), "65536 distinct categories are each valid");
    ok(gbt__quantize(d, 256, 1, &q) == GBT_E_INVALID_ARG, "65536 distinct categories are too many to bin");
    ok(strstr(gbt_last_error(), "feature 0") && strstr(gbt_last_error(), "65536") &&
           strstr(gbt_last_error(), "65535"),
       "the message names the feature, the count and the limit: %s", gbt_last_error());
    gbt_dataset_free(d);
    free(x);
}

int main(void)
{
    test_types();
    test_bad_values_in_file();
    test_sparse_and_slice();
    test_binning();
    test_wide_categories();
    test_too_many_categories();
    tu_cleanup();
    return done_testing();
}
