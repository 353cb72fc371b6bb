/*
 * test_quantize.c - bin cuts (exact and weighted quantiles, worked by hand
 * below with XGBoost's pruning rule; XGBoost 3.2's DMatrix.get_quantile_cut
 * gives the same cuts for these columns), bin assignment, the missing-value
 * budget and the three layouts.
 */
#include <float.h>
#include <math.h>

#include "data/dataset.h"
#include "data/quantize.h"
#include "testutil.h"

static gbt_dataset *column(const float *v, uint64_t n, const float *w)
{
    gbt_dataset *d = NULL;
    if (gbt_dataset_from_dense(v, n, 1, NAN, &d) != GBT_OK) exit(2);
    if (w && gbt_dataset_set_field(d, "weight", w, n) != GBT_OK) exit(2);
    return d;
}

static int cuts_are(const struct gbt_qmatrix *q, uint32_t f, const float *want, uint32_t n)
{
    const struct gbt_cuts *c = &q->cuts;
    if (c->nbins[f] != n) {
        diag("feature %u has %u bins, expected %u", f, c->nbins[f], n);
        return 0;
    }
    for (uint32_t b = 0; b < n; b++)
        if (c->cut[c->offset[f] + b] != want[b]) {
            diag("cut %u is %g, expected %g", b, (double)c->cut[c->offset[f] + b], (double)want[b]);
            return 0;
        }
    return 1;
}

static void test_exact_cuts(void)
{
    /* three distinct values: one bin each; each cut is the next value */
    float v[] = {3, 1, 2, 2, 1, 3, 3};
    float want[] = {2, 3, FLT_MAX};
    gbt_dataset *d = column(v, 7, NULL);
    struct gbt_qmatrix q;
    ok_call(gbt__quantize(d, 256, 1, &q), "quantize 7 rows");
    ok(cuts_are(&q, 0, want, 3), "distinct values 1,2,3 give cuts 2, 3, FLT_MAX");
    ok(q.layout == GBT_QM_DENSE8, "dense data with max_bin 256 uses one byte per cell");
    ok(gbt__qm_code(&q, 0, 0) == 2 && gbt__qm_code(&q, 1, 0) == 0 && gbt__qm_code(&q, 2, 0) == 1,
       "3 -> bin 2, 1 -> bin 0, 2 -> bin 1");
    ok(gbt__bin_of(&q.cuts, 0, 1.5f) == 0 && gbt__bin_of(&q.cuts, 0, 2.5f) == 1 &&
           gbt__bin_of(&q.cuts, 0, 0.0f) == 0 && gbt__bin_of(&q.cuts, 0, 100.0f) == 2,
       "unseen values: 1.5 -> bin 0 (below cut 2), 2.5 -> bin 1, 0 -> bin 0, 100 -> last bin");
    gbt__qmatrix_free(&q);
    gbt_dataset_free(d);
}

static void test_quantile_cuts(void)
{
    float v[10], w[10];
    float want2[] = {6, FLT_MAX}, want3[] = {4, 7, FLT_MAX};
    gbt_dataset *d;
    struct gbt_qmatrix q;
    for (int i = 0; i < 10; i++) {
        v[i] = (float)(i + 1);
        w[i] = i == 0 ? 8.0f : 1.0f;
    }
    /*
     * 10 values of weight 1 (value i has ranks [i-1, i]), 2 bins: the summary
     * keeps the first and the last and, between rank 1 (the first's rmax)
     * and rank 9 (the last's rmin), the value nearest rank 1 + 8/2 = 5:
     * twice it is 10, the first i whose next value's rmin + rmax exceeds 10
     * is value 5 (value 6: 5 + 6 = 11), and 10 is not below value 5's
     * rmin + w + value 6's rmax - w = 5 + 5, so value 6 -> cut 6
     */
    d = column(v, 10, NULL);
    ok_call(gbt__quantize(d, 2, 1, &q), "quantize with max_bin 2");
    ok(cuts_are(&q, 0, want2, 2), "equal weights: cuts 6, FLT_MAX");
    gbt__qmatrix_free(&q);
    gbt_dataset_free(d);
    /*
     * weights 8,1,...,1: value 1 has ranks [0, 8], value i > 1 [i+6, i+7].
     * 3 bins: targets between 8 and 16 at 8 + 8/3 and 8 + 16/3, doubled
     * 21.33 and 26.67.  The first: value 4 (value 5's 11 + 12 = 23 is
     * above), and 21.33 < 10 + 1 + 12 - 1 = 22 keeps value 4.  The second:
     * value 6 (value 7's 13 + 14 = 27 is above), 26.67 >= 12 + 1 + 14 - 1 =
     * 26 takes value 7.  Cuts 4, 7: the heavy value does not get a bin of
     * its own, as in XGBoost
     */
    d = column(v, 10, w);
    ok_call(gbt__quantize(d, 3, 1, &q), "quantize weighted with max_bin 3");
    ok(cuts_are(&q, 0, want3, 3), "weighted ranks: cuts 4, 7, FLT_MAX");
    gbt__qmatrix_free(&q);
    gbt_dataset_free(d);
}

static void test_missing_and_layouts(void)
{
    enum { N = 600 };
    float *x = malloc(N * 2 * sizeof *x);
    gbt_dataset *d;
    struct gbt_qmatrix q;
    for (int r = 0; r < N; r++) {
        x[r * 2] = (float)(r % 300);           /* 300 distinct values, no missing */
        x[r * 2 + 1] = r % 7 == 0 ? NAN : (float)(r % 300);
    }
    d = NULL;
    gbt_dataset_from_dense(x, N, 2, NAN, &d);
    ok_call(gbt__quantize(d, 256, 2, &q), "quantize 600 x 2");
    ok(q.cuts.nbins[0] <= 256 && q.cuts.nbins[0] >= 250, "a feature without missing values gets up to 256 bins (%u)",
       q.cuts.nbins[0]);
    ok(q.cuts.nbins[1] <= 255, "a feature with missing values keeps a code for them: %u <= 255 bins",
       q.cuts.nbins[1]);
    ok(q.cuts.has_missing[1] && !q.cuts.has_missing[0], "missing values are noticed per feature");
    ok(gbt__qm_code(&q, 0, 1) == q.cuts.nbins[1], "a missing value gets code nbins");
    ok(q.cuts.offset[1] == q.cuts.nbins[0] + 1 && q.cuts.total_slots == q.cuts.nbins[0] + q.cuts.nbins[1] + 2,
       "each feature owns its value bins plus one missing slot");
    gbt__qmatrix_free(&q);
    ok_call(gbt__quantize(d, 1000, 2, &q), "quantize with max_bin 1000");
    ok(q.layout == GBT_QM_DENSE16 && q.cuts.nbins[0] == 300, "max_bin > 256 uses two bytes per cell, 300 bins");
    gbt__qmatrix_free(&q);
    gbt_dataset_free(d);
    free(x);
}

static void test_sparse_layout(void)
{
    enum { N = 200, C = 10 };
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y);
    gbt_dataset *dense = NULL, *csr;
    struct gbt_qmatrix qd, qc;
    int same_cuts = 1, same_codes = 1;
    for (int r = 0; r < N; r++) {
        y[r] = 0;
        for (int c = 0; c < C; c++) x[r * C + c] = (r * 7 + c * 3) % 10 == 0 ? (float)((r + c) % 13) : NAN;
    }
    gbt_dataset_from_dense(x, N, C, NAN, &dense);
    csr = tu_to_csr(x, y, N, C);
    ok_call(gbt__quantize(dense, 256, 1, &qd), "quantize sparse data given dense");
    ok_call(gbt__quantize(csr, 256, 2, &qc), "quantize the same data given as CSR");
    ok(qd.layout == GBT_QM_CSR && qc.layout == GBT_QM_CSR, "data 10%% present is binned as CSR");
    for (int c = 0; c < C; c++) {
        same_cuts &= qd.cuts.nbins[c] == qc.cuts.nbins[c];
        for (uint32_t b = 0; same_cuts && b < qd.cuts.nbins[c]; b++)
            same_cuts &= qd.cuts.cut[qd.cuts.offset[c] + b] == qc.cuts.cut[qc.cuts.offset[c] + b];
    }
    for (int r = 0; r < N; r++)
        for (int c = 0; c < C; c++) {
            uint32_t code = gbt__qm_code(&qc, (uint64_t)r, (uint32_t)c);
            same_codes &= code == gbt__qm_code(&qd, (uint64_t)r, (uint32_t)c);
            same_codes &= isnan(x[r * C + c]) ? code == qc.cuts.nbins[c]
                                              : code == gbt__bin_of(&qc.cuts, (uint32_t)c, x[r * C + c]);
        }
    ok(same_cuts, "dense and CSR input give the same cuts, whatever the thread count");
    ok(same_codes, "CSR codes: present values get their bin, absent ones the missing code");
    gbt__qmatrix_free(&qd);
    gbt__qmatrix_free(&qc);
    gbt_dataset_free(dense);
    gbt_dataset_free(csr);
    free(x);
    free(y);
}

static void test_constant_and_zero(void)
{
    float x[] = {5, 0.0f, 5, -0.0f, 5, NAN, 5, 0.0f};
    gbt_dataset *d = NULL;
    struct gbt_qmatrix q;
    gbt_dataset_from_dense(x, 4, 2, NAN, &d);
    ok_call(gbt__quantize(d, 256, 1, &q), "quantize constant columns");
    ok(q.cuts.nbins[0] == 1 && !gbt__feature_usable(&q.cuts, 0), "a constant feature has one bin and cannot split");
    ok(q.cuts.nbins[1] == 1 && gbt__feature_usable(&q.cuts, 1),
       "-0 and +0 are one value; with a missing value the feature can still split (present vs missing)");
    gbt__qmatrix_free(&q);
    gbt_dataset_free(d);
}

/* The column-major copy holds, for every row and feature, the row-major code. */
static int columns_agree(const struct gbt_qmatrix *q, const struct gbt_qcols *k)
{
    const uint32_t nf = q->cuts.nfeat;
    int same = 1;
    for (uint32_t f = 0; f < nf; f++) {
        const uint64_t off = k->col_off[f], cn = k->col_off[f + 1] - off;
        uint64_t pos = 0;
        for (uint64_t r = 0; r < q->nrow; r++) {
            uint32_t code;
            if (k->col_dense[f]) {
                code = k->col_code8 ? k->col_code8[off + r] : k->col_code[off + r];
            } else {
                while (pos < cn && k->col_row[off + pos] < r) pos++;
                code = (pos < cn && k->col_row[off + pos] == r) ? k->col_code[off + pos] : q->cuts.nbins[f];
            }
            same &= code == gbt__qm_code(q, r, f);
        }
    }
    return same;
}

static void test_columns(void)
{
    enum { N = 400, C = 10 };
    float *x = malloc(N * C * sizeof *x), *y = calloc(N, sizeof *y);
    gbt_dataset *dense = NULL, *csr;
    struct gbt_qmatrix q;
    struct gbt_qcols k;
    int dense_col = 0, sparse_col = 0;
    tu_seed(17);
    /* column 0 present in every row, column 1 in half, the rest rarely: the CSR layout */
    for (int r = 0; r < N; r++)
        for (int c = 0; c < C; c++)
            x[r * C + c] = (c == 0 || (c == 1 && r % 2) || tu_unit() < 0.05) ? (float)((r * 7 + c) % 11) : NAN;
    csr = tu_to_csr(x, y, N, C);
    ok_call(gbt__quantize(csr, 256, 2, &q), "quantize sparse data with common and rare features");
    ok_call(gbt__qcols_build(&q, 2, &k), "its column copy");
    for (int c = 0; c < C; c++) {
        dense_col += k.col_dense[c];
        sparse_col += !k.col_dense[c];
    }
    ok(q.layout == GBT_QM_CSR && k.col_dense[0] && k.col_dense[1] && sparse_col == C - 2,
       "CSR layout: features in a quarter of the rows or more get dense columns (%d dense, %d sparse)",
       dense_col, sparse_col);
    ok(columns_agree(&q, &k), "the column copy agrees with every row's code (CSR layout)");
    gbt__qcols_free(&k);
    gbt__qmatrix_free(&q);
    gbt_dataset_free(csr);
    tu_seed(18);
    dense = tu_dataset(N, C, 0.1, 1);
    ok_call(gbt__quantize(dense, 256, 2, &q), "quantize dense data");
    ok_call(gbt__qcols_build(&q, 2, &k), "its column copy");
    ok(k.col_code8 != NULL && columns_agree(&q, &k), "the one-byte column copy agrees with the codes");
    gbt__qcols_free(&k);
    gbt__qmatrix_free(&q);
    ok_call(gbt__quantize(dense, 300, 2, &q), "quantize dense data with max_bin 300");
    ok_call(gbt__qcols_build(&q, 1, &k), "its column copy");
    ok(k.col_code != NULL && columns_agree(&q, &k), "the two-byte column copy agrees with the codes");
    gbt__qcols_free(&k);
    gbt__qmatrix_free(&q);
    gbt_dataset_free(dense);
    free(x);
    free(y);
}

/*
 * More rows than one block of the transpose (32768): the columns are
 * filled block by block over threads.  Feature 0 has 50 distinct values,
 * fewer than max_bin, so its cuts are those values (the smallest left
 * out) and FLT_MAX, by hand; the weighted features' cuts, which sum
 * weights in row order, are the same with 1 and 3 threads and from the
 * same data given as CSR.
 */
static void test_blocked_transpose(void)
{
    enum { N = 100000, C = 3 };
    float *x = malloc(N * C * sizeof *x), *y = calloc(N, sizeof *y), *w = malloc(N * sizeof *w);
    gbt_dataset *d = NULL, *csr;
    struct gbt_qmatrix a, b, s;
    int exact = 1;
    tu_seed(23);
    for (int r = 0; r < N; r++) {
        x[r * C] = (float)((r * 7) % 50);
        x[r * C + 1] = tu_unit() < 0.1 ? NAN : (float)(int)(tu_unit() * 3000);
        x[r * C + 2] = r % 3 == 0 ? NAN : (float)tu_unit();
        w[r] = (float)(0.1 + tu_unit());
    }
    gbt_dataset_from_dense(x, N, C, NAN, &d);
    csr = tu_to_csr(x, y, N, C);
    gbt_dataset_set_field(d, "weight", w, N);
    gbt_dataset_set_field(csr, "weight", w, N);
    ok_call(gbt__quantize(d, 64, 1, &a), "quantize 100,000 weighted rows on 1 thread");
    ok_call(gbt__quantize(d, 64, 3, &b), "on 3 threads");
    ok_call(gbt__quantize(csr, 64, 3, &s), "the same rows as CSR");
    exact = a.cuts.nbins[0] == 50;
    for (uint32_t i = 0; exact && i < 50; i++) exact &= a.cuts.cut[i] == (i < 49 ? (float)(i + 1) : FLT_MAX);
    ok(exact, "50 distinct values: 50 bins, cut at each value above the smallest");
    ok(a.cuts.total_slots == b.cuts.total_slots && a.cuts.total_slots == s.cuts.total_slots &&
           memcmp(a.cuts.cut, b.cuts.cut, a.cuts.total_slots * sizeof(float)) == 0 &&
           memcmp(a.cuts.cut, s.cuts.cut, a.cuts.total_slots * sizeof(float)) == 0 &&
           memcmp(a.codes8, b.codes8, (size_t)N * C) == 0,
       "weighted cuts and codes: the same bits on 1 and 3 threads and from CSR");
    gbt__qmatrix_free(&a);
    gbt__qmatrix_free(&b);
    gbt__qmatrix_free(&s);
    gbt_dataset_free(d);
    gbt_dataset_free(csr);
    free(x);
    free(y);
    free(w);
}

static void test_thread_invariance(void)
{
    gbt_dataset *d;
    struct gbt_qmatrix a, b;
    int same = 1;
    tu_seed(5);
    d = tu_dataset(3000, 7, 0.05, 1);
    gbt__quantize(d, 64, 1, &a);
    gbt__quantize(d, 64, 3, &b);
    same = a.cuts.total_slots == b.cuts.total_slots &&
           memcmp(a.cuts.cut, b.cuts.cut, a.cuts.total_slots * sizeof(float)) == 0 &&
           memcmp(a.codes8, b.codes8, 3000 * 7) == 0;
    ok(same, "cuts and codes do not depend on the thread count");
    gbt__qmatrix_free(&a);
    gbt__qmatrix_free(&b);
    gbt_dataset_free(d);
}

/*
 * Weights are summed exactly (fixed-point integers, common/cuts.h), so the
 * order of the rows cannot change a cut: 40 values, each in 13 rows, one
 * row of weight 1e17 and twelve of weight 1 (as doubles, 1e17 + 1 + ... + 1
 * = 1e17 but 1 + ... + 1 + 1e17 = 1e17 + 16), the big row first in one
 * dataset and last in the other, binned on 1 and 2 threads.
 */
static void test_weight_order(void)
{
    enum { V = 40, R = 13, N = V * R };
    static float x1[N], w1[N], x2[N], w2[N];
    struct gbt_qmatrix a, b;
    gbt_dataset *d1, *d2;
    for (int v = 0; v < V; v++)
        for (int k = 0; k < R; k++) {
            x1[v * R + k] = x2[v * R + k] = (float)v;
            w1[v * R + k] = k == 0 ? 1e17f : 1.0f;
            w2[v * R + k] = k == R - 1 ? 1e17f : 1.0f;
        }
    d1 = column(x1, N, w1);
    d2 = column(x2, N, w2);
    ok_call(gbt__quantize(d1, 7, 1, &a), "quantize weighted rows, the heavy row first");
    ok_call(gbt__quantize(d2, 7, 2, &b), "quantize the same rows, the heavy row last");
    ok(a.cuts.nbins[0] == b.cuts.nbins[0] &&
           memcmp(a.cuts.cut, b.cuts.cut, a.cuts.nbins[0] * sizeof(float)) == 0,
       "the order of the rows does not change the cuts (%u and %u cuts)", a.cuts.nbins[0], b.cuts.nbins[0]);
    gbt__qmatrix_free(&a);
    gbt__qmatrix_free(&b);
    gbt_dataset_free(d1);
    gbt_dataset_free(d2);
}

int main(void)
{
    test_exact_cuts();
    test_quantile_cuts();
    test_missing_and_layouts();
    test_sparse_layout();
    test_constant_and_zero();
    test_columns();
    test_blocked_transpose();
    test_thread_invariance();
    test_weight_order();
    return done_testing();
}
