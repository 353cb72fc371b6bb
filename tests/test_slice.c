/*
 * test_slice.c - gbt_dataset_slice_rows: every per-row field of the rows
 * kept, dense and CSR, groups kept and cut groups refused, empty and bad
 * ranges, the original file and line in messages, predictions unchanged.
 */
#include <math.h>

#include "data/dataset.h"
#include "testutil.h"

#define NR 7
#define NC 3
#define K 2

static int same_floats(const float *a, const float *b, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i])))) return 0;
    return 1;
}

static void test_dense(void)
{
    float x[NR * NC], y[NR], w[NR], bm[NR * K], lo[NR], up[NR];
    const char *names[NC] = {"a", "b", "c"};
    gbt_dataset *d, *s = NULL;
    const float *v;
    const char *const *got_names;
    uint64_t n, nrow, ncol, nnz = 0;
    /* the expected values: each row's own numbers, written independently of the source arrays */
    for (int r = 0; r < NR; r++) {
        for (int c = 0; c < NC; c++) x[r * NC + c] = (r + c) % 4 == 0 ? NAN : (float)(10 * r + c);
        y[r] = (float)r;
        w[r] = 0.5f * (float)(r + 1);
        bm[r * K] = (float)(100 + r);
        bm[r * K + 1] = (float)(200 + r);
        lo[r] = (float)r;
        up[r] = r == 3 ? INFINITY : (float)(r + 1);
    }
    if (gbt_dataset_from_dense(x, NR, NC, NAN, &d) != GBT_OK) diag("%s", gbt_last_error());
    gbt_dataset_set_field(d, "label", y, NR);
    gbt_dataset_set_field(d, "weight", w, NR);
    gbt_dataset_set_field(d, "base_margin", bm, NR * K);
    gbt_dataset_set_field(d, "label_lower_bound", lo, NR);
    gbt_dataset_set_field(d, "label_upper_bound", up, NR);
    gbt_dataset_set_feature_names(d, names, NC);

    ok(gbt_dataset_slice_rows(d, 2, 5, &s) == GBT_OK, "dense slice [2, 5)");
    gbt_dataset_shape(s, &nrow, &ncol);
    ok(nrow == 3 && ncol == NC, "slice shape 3 x %d (got %llu x %llu)", NC, (unsigned long long)nrow,
       (unsigned long long)ncol);
    {
        float ex[3 * NC];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < NC; c++) {
                int R = r + 2;
                ex[r * NC + c] = (R + c) % 4 == 0 ? NAN : (float)(10 * R + c);
                nnz += (R + c) % 4 != 0;
            }
        ok(s->dense && same_floats(s->dense, ex, 3 * NC) && s->nnz == nnz, "dense values and nnz of rows 2..4");
    }
    {
        const float ey[3] = {2, 3, 4}, ew[3] = {1.5f, 2, 2.5f}, ebm[6] = {102, 202, 103, 203, 104, 204};
        const float elo[3] = {2, 3, 4}, eup[3] = {3, INFINITY, 5};
        ok(gbt_dataset_get_field(s, "label", &v, &n) == GBT_OK && n == 3 && same_floats(v, ey, 3), "label");
        ok(gbt_dataset_get_field(s, "weight", &v, &n) == GBT_OK && n == 3 && same_floats(v, ew, 3), "weight");
        ok(gbt_dataset_get_field(s, "base_margin", &v, &n) == GBT_OK && n == 6 && same_floats(v, ebm, 6),
           "base_margin: K values per row");
        ok(gbt_dataset_get_field(s, "label_lower_bound", &v, &n) == GBT_OK && n == 3 && same_floats(v, elo, 3),
           "label_lower_bound");
        ok(gbt_dataset_get_field(s, "label_upper_bound", &v, &n) == GBT_OK && n == 3 && same_floats(v, eup, 3),
           "label_upper_bound");
    }
    ok(gbt_dataset_get_feature_names(s, &got_names, &n) == GBT_OK && n == NC && strcmp(got_names[0], "a") == 0 &&
           strcmp(got_names[2], "c") == 0 && (const void *)got_names != (const void *)d->feature_names,
       "feature names copied");
    ok(s->generation != d->generation, "a fresh generation");
    ok(s->groups == NULL && s->ngroups == 0, "no groups");
    {
        const uint32_t *g = (const uint32_t *)1;
        ok(gbt_dataset_get_groups(s, &g, &n) == GBT_OK && g == NULL && n == 0, "gbt_dataset_get_groups: none");
        ok(gbt_dataset_get_groups(s, NULL, &n) == GBT_E_INVALID_ARG, "gbt_dataset_get_groups: NULL refused");
    }

    /* predictions of the slice's rows are those of the same rows of the whole */
    {
        gbt_booster *b;
        float pf[NR * K], ps[3 * K];
        uint64_t len;
        gbt_booster_create(&b);
        gbt_booster_set_param(b, "objective", "reg:squarederror");
        gbt_booster_set_param(b, "verbosity", "0");
        gbt_dataset_set_field(d, "base_margin", NULL, 0);
        gbt_dataset_set_field(s, "base_margin", NULL, 0);
        if (gbt_booster_train(b, d, 3, NULL, NULL, 0) != GBT_OK) diag("%s", gbt_last_error());
        gbt_booster_predict_size(b, NR, 0, &len);
        gbt_booster_predict(b, d, 0, pf, len);
        gbt_booster_predict_size(b, 3, 0, &len);
        gbt_booster_predict(b, s, 0, ps, len);
        ok(same_floats(ps, pf + 2 * (len / 3), len), "predictions of the slice = rows 2..4 of the whole");
        gbt_booster_free(b);
    }
    gbt_dataset_free(s);

    s = NULL;
    ok(gbt_dataset_slice_rows(d, 4, 4, &s) == GBT_OK && s != NULL, "begin == end gives a dataset");
    gbt_dataset_shape(s, &nrow, &ncol);
    ok(nrow == 0 && ncol == NC, "of 0 rows and the same columns");
    gbt_dataset_free(s);
    ok(gbt_dataset_slice_rows(d, 0, NR, &s) == GBT_OK && s->nrow == NR && same_floats(s->dense, d->dense, NR * NC),
       "the whole range copies everything");
    gbt_dataset_free(s);
    s = (gbt_dataset *)1;
    ok(gbt_dataset_slice_rows(d, 5, 4, &s) == GBT_E_INVALID_ARG && s == NULL, "begin > end refused");
    ok(strstr(gbt_last_error(), "[5, 4)") != NULL, "message names the range: %s", gbt_last_error());
    ok(gbt_dataset_slice_rows(d, 0, NR + 1, &s) == GBT_E_INVALID_ARG, "end > nrow refused");
    ok(gbt_dataset_slice_rows(NULL, 0, 0, &s) == GBT_E_INVALID_ARG, "NULL dataset refused");
    ok(gbt_dataset_slice_rows(d, 0, 0, NULL) == GBT_E_INVALID_ARG, "NULL out refused");
    gbt_dataset_free(d);
}

static void test_csr_groups_file(void)
{
    /* 6 rows in groups of 2, 3, 1 (qid 1, 2, 3); a comment line shifts the lines */
    const char *path = tu_write("rank.libsvm",
                                "# comment\n"
                                "1 qid:1 1:0.5 3:2\n"
                                "0 qid:1 2:1\n"
                                "2 qid:2 1:1.5\n"
                                "1 qid:2 3:4 4:1\n"
                                "0 qid:2\n"
                                "3 qid:3 2:7 4:8\n");
    gbt_dataset *d = NULL, *s = NULL;
    char where[600], expect[600];
    if (gbt_dataset_from_file(path, "format=libsvm", &d) != GBT_OK) diag("%s", gbt_last_error());
    ok(d && d->indptr && d->ngroups == 3, "CSR file with 3 groups read");
    if (!d) return;
    ok(gbt_dataset_slice_rows(d, 2, 5, &s) == GBT_OK, "CSR slice [2, 5): group 1 alone");
    if (s) {
        const uint64_t eptr[4] = {0, 1, 3, 3};
        const uint32_t eidx[3] = {0, 2, 3}; /* one-based file indices 1, 3, 4 */
        const float eval[3] = {1.5f, 4, 1}, ey[3] = {2, 1, 0};
        int good = s->nrow == 3 && s->ncol == d->ncol && s->nnz == 3 && s->dense == NULL;
        for (int i = 0; good && i < 4; i++) good = s->indptr[i] == eptr[i];
        for (int i = 0; good && i < 3; i++) good = s->indices[i] == eidx[i] && s->values[i] == eval[i];
        ok(good, "indptr rebased, indices and values of rows 2..4");
        ok(same_floats(s->label, ey, 3), "labels");
        ok(s->ngroups == 1 && s->groups[0] == 3, "keeps the one group inside (size 3)");
        ok(s->index_base == d->index_base, "index base kept");
        gbt__dataset_where(s, 0, where, sizeof where);
        snprintf(expect, sizeof expect, "%s:4", path);
        ok(strcmp(where, expect) == 0, "row 0 of the slice is %s (got %s)", expect, where);
        gbt_dataset_free(s);
    }
    s = NULL;
    {
        const uint32_t *g = NULL;
        uint64_t ng = 0;
        ok(gbt_dataset_get_groups(d, &g, &ng) == GBT_OK && ng == 3 && g[0] == 2 && g[1] == 3 && g[2] == 1,
           "gbt_dataset_get_groups: 2, 3, 1");
    }
    ok(gbt_dataset_slice_rows(d, 0, 5, &s) == GBT_OK && s->ngroups == 2 && s->groups[0] == 2 && s->groups[1] == 3,
       "[0, 5) keeps groups 2, 3");
    gbt_dataset_free(s);
    ok(gbt_dataset_slice_rows(d, 5, 6, &s) == GBT_OK && s->ngroups == 1 && s->groups[0] == 1 && s->nnz == 2,
       "[5, 6): the last group");
    gbt_dataset_free(s);
    ok(gbt_dataset_slice_rows(d, 6, 6, &s) == GBT_OK && s->nrow == 0 && s->ngroups == 0 && s->indptr[0] == 0,
       "[6, 6): no rows, no groups");
    gbt_dataset_free(s);
    ok(gbt_dataset_slice_rows(d, 1, 5, &s) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "group 0") != NULL,
       "a start inside group 0 is refused: %s", gbt_last_error());
    ok(gbt_dataset_slice_rows(d, 2, 4, &s) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "group 1") != NULL,
       "an end inside group 1 is refused: %s", gbt_last_error());
    gbt_dataset_free(d);
}

/* gbt_dataset_get_data gives back what the dataset was made from. */
static void test_get_data(void)
{
    const float x[6] = {1, NAN, 3, 4, 5, 0};
    gbt_dataset *d = NULL;
    const float *dense = NULL, *values = NULL;
    const uint64_t *indptr = NULL;
    const uint32_t *indices = NULL;
    uint64_t nnz = 99;
    ok(gbt_dataset_from_dense(x, 2, 3, NAN, &d) == GBT_OK, "dense 2 x 3");
    ok(gbt_dataset_get_data(d, &dense, &indptr, &indices, &values, &nnz) == GBT_OK && dense && !indptr &&
           !indices && !values && nnz == 0, "dense: the matrix, no CSR arrays");
    ok(dense && same_floats(dense, x, 6), "dense values as given (NaN kept)");
    gbt_dataset_free(d);

    const uint64_t ip[3] = {0, 2, 3};
    const uint32_t ix[3] = {2, 0, 1};
    const float v[3] = {7, 8, 9};
    d = NULL;
    ok(gbt_dataset_from_csr(ip, ix, v, 2, 4, &d) == GBT_OK, "CSR 2 x 4");
    ok(gbt_dataset_get_data(d, &dense, &indptr, &indices, &values, &nnz) == GBT_OK && !dense && indptr &&
           nnz == 3, "CSR: no dense matrix, 3 entries");
    if (indptr && indices && values) {
        /* columns ascending within a row: row 0 is (0: 8), (2: 7) */
        ok(indptr[0] == 0 && indptr[1] == 2 && indptr[2] == 3, "indptr");
        ok(indices[0] == 0 && indices[1] == 2 && indices[2] == 1, "indices sorted within rows");
        ok(values[0] == 8 && values[1] == 7 && values[2] == 9, "values follow their columns");
    }
    ok(gbt_dataset_get_data(d, NULL, NULL, NULL, NULL, NULL) == GBT_OK, "every out pointer may be NULL");
    ok(gbt_dataset_get_data(NULL, &dense, NULL, NULL, NULL, NULL) == GBT_E_INVALID_ARG, "NULL dataset refused");
    gbt_dataset_free(d);
}

int main(void)
{
    test_dense();
    test_csr_groups_file();
    test_get_data();
    tu_cleanup();
    return done_testing();
}
