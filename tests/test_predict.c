/*
 * test_predict.c - prediction: equal to walking the trees by hand, equal
 * for dense, CSR and raw-matrix input, the missing value, fewer features
 * (refused when dense),
 * base margins, output sizes, and equal to the training margins; the
 * batch walk on keys (predict.h) at values equal to thresholds, signed
 * zeros, infinities and missing values on either side, for trees laid out
 * complete and deeper ones.
 */
#include <float.h>
#include <math.h>

#include "train/booster.h"
#include "model/predict.h"
#include "testutil.h"

/* Raw scores by walking every tree, in double, in model order. */
static double walk(const gbt_booster *b, const float *row, int k)
{
    double m = b->model.base[k];
    for (uint32_t t = (uint32_t)k; t < b->model.ntrees; t += (uint32_t)b->model.K) {
        const struct gbt_tree *tr = &b->model.trees[t];
        int32_t n = 0;
        while (tr->left[n] >= 0) {
            float v = row[tr->feature[n]];
            n = (isnan(v) ? tr->default_left[n] : v < tr->threshold[n]) ? tr->left[n] : tr->right[n];
        }
        m += (double)tr->value[n];
    }
    return m;
}

static void test_walk(void)
{
    const char *const p[] = {"objective=multi:softprob", "num_class=3", "max_depth=4", NULL};
    enum { N = 700, C = 6 };
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * 3 * sizeof *out);
    gbt_dataset *d = NULL, *csr;
    gbt_booster *b;
    int same = 1;
    tu_seed(21);
    tu_data(N, C, 0.1, 3, x, y);
    gbt_dataset_from_dense(x, N, C, NAN, &d);
    gbt_dataset_set_field(d, "label", y, N);
    b = tu_train(d, 5, p);
    ok_call(gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, out, N * 3), "predict margins");
    for (int r = 0; r < N; r++)
        for (int k = 0; k < 3; k++) same &= out[r * 3 + k] == (float)walk(b, x + r * C, k);
    ok(same, "margins equal walking each tree by hand");
    {
        float *o2 = malloc(N * 3 * sizeof *o2), *o3 = malloc(N * 3 * sizeof *o3);
        csr = tu_to_csr(x, y, N, C);
        gbt_booster_predict(b, d, 0, out, N * 3);
        ok_call(gbt_booster_predict(b, csr, 0, o2, N * 3), "predict from CSR");
        ok_call(gbt_booster_predict_dense(b, x, N, C, NAN, 0, o3, N * 3), "predict from a raw matrix");
        ok(memcmp(out, o2, N * 3 * sizeof *out) == 0 && memcmp(out, o3, N * 3 * sizeof *out) == 0,
           "dense, CSR and raw-matrix input predict the same bits");
        same = 1;
        for (int r = 0; r < N; r++) {
            double s = out[r * 3] + out[r * 3 + 1] + out[r * 3 + 2];
            same &= fabs(s - 1.0) < 1e-6;
        }
        ok(same, "softprob rows sum to 1");
        /* -999 as the missing value equals NaN */
        for (int i = 0; i < N * C; i++)
            if (isnan(x[i])) x[i] = -999.0f;
        ok_call(gbt_booster_predict_dense(b, x, N, C, -999.0f, 0, o3, N * 3), "predict with missing = -999");
        ok(memcmp(out, o3, N * 3 * sizeof *out) == 0, "missing = -999 predicts like NaN");
        /* fewer columns: refused for dense data, the rest missing for sparse data */
        {
            float *narrow = malloc(N * 4 * sizeof *narrow), *wide = malloc(N * C * sizeof *wide);
            gbt_dataset *dn = NULL, *sn;
            for (int r = 0; r < N; r++)
                for (int c = 0; c < C; c++) {
                    wide[r * C + c] = c < 4 ? x[r * C + c] : NAN;
                    if (c < 4) narrow[r * 4 + c] = x[r * C + c];
                }
            gbt_booster_predict_dense(b, wide, N, C, -999.0f, 0, o2, N * 3);
            ok(gbt_booster_predict_dense(b, narrow, N, 4, -999.0f, 0, o3, N * 3) == GBT_E_INVALID_ARG &&
                   strstr(gbt_last_error(), "4 columns but the model 6 features"),
               "a matrix of 4 of 6 columns is refused: %s", gbt_last_error());
            gbt_dataset_from_dense(narrow, N, 4, -999.0f, &dn);
            gbt_dataset_set_field(dn, "label", y, N);
            ok(gbt_booster_predict(b, dn, 0, o3, N * 3) == GBT_E_INVALID_ARG &&
                   strstr(gbt_last_error(), "4 columns but the model 6 features"),
               "a dense dataset of 4 of 6 columns is refused: %s", gbt_last_error());
            {
                double v;
                ok(gbt_booster_eval(b, dn, "mlogloss", &v) == GBT_E_INVALID_ARG &&
                       strstr(gbt_last_error(), "4 columns but the model 6 features"),
                   "and so is evaluating on it: %s", gbt_last_error());
            }
            for (int i = 0; i < N * 4; i++)
                if (narrow[i] == -999.0f) narrow[i] = NAN;
            sn = tu_to_csr(narrow, y, N, 4);
            ok_call(gbt_booster_predict(b, sn, 0, o3, N * 3), "predict CSR data of 4 of 6 columns");
            ok(memcmp(o2, o3, N * 3 * sizeof *o2) == 0, "absent sparse columns count as missing");
            ok(gbt_booster_predict_dense(b, wide, N / 7, 7, NAN, 0, o2, N * 3) == GBT_E_INVALID_ARG &&
                   strstr(gbt_last_error(), "7 features but the model only 6"),
               "more features than the model is refused: %s", gbt_last_error());
            gbt_dataset_free(dn);
            gbt_dataset_free(sn);
            free(narrow);
            free(wide);
        }
        free(o2);
        free(o3);
        gbt_dataset_free(csr);
    }
    {
        uint64_t len = 0;
        ok(gbt_booster_predict_size(b, 10, 0, &len) == GBT_OK && len == 30, "softprob: 3 values per row");
        ok(gbt_booster_predict(b, d, 0, out, N * 3 - 1) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "2100"),
           "an output one float short is refused: %s", gbt_last_error());
        ok(gbt_booster_predict_size(b, 10, 1u << 30, &len) == GBT_E_INVALID_ARG, "unknown flags are refused");
    }
    gbt_booster_free(b);
    gbt_dataset_free(d);
    free(x);
    free(y);
    free(out);
}

/*
 * Values from a small set, so thresholds equal data values; -0 and +0 are
 * both present, and NaN.  Trees of depth up to 14: some deeper than
 * GBT_FULL_DEPTH (walked on nodes), then some of depth 6 (walked on
 * keys).  Training
 * data cannot hold infinities, raw matrices to predict can: the largest
 * and smallest values become infinities there.
 */
static void test_walk_edges(void)
{
    static const float vals[] = {-5.0f, -2.0f, -1.0f, -0.0f, 0.0f, 0.5f, 1.0f, 3.0f, 5.0f, NAN};
    const char *const p[] = {"objective=reg:squarederror", "max_depth=14", "min_child_weight=0",
                             "eta=0.5", "lambda=0.01", NULL};
    enum { N = 3001, C = 5 };
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out),
          *o2 = malloc(N * sizeof *o2);
    gbt_dataset *d = NULL, *csr;
    gbt_booster *b;
    int same = 1, deep = 0, shallow = 0, at_zero = 0;
    tu_seed(24);
    for (int r = 0; r < N; r++) {
        double s = 0;
        for (int c = 0; c < C; c++) {
            float v = vals[(int)(tu_unit() * 10) % 10];
            x[r * C + c] = v;
            s += isnan(v) ? 0.3 * c : (signbit(v) ? -1.0 : 1.0) * (c + 1) + (fabsf(v) == 5.0f ? 2.0 : 0.0);
        }
        y[r] = (float)(s + tu_unit());
    }
    gbt_dataset_from_dense(x, N, C, NAN, &d);
    gbt_dataset_set_field(d, "label", y, N);
    b = tu_train(d, 6, p);
    if (!ok(b != NULL, "train trees of depth up to 14")) {
        diag("%s", gbt_last_error());
        b = tu_booster(NULL);
    }
    gbt_booster_set_param(b, "max_depth", "6");
    for (int i = 0; i < 6; i++) gbt_booster_update(b, d);
    for (uint32_t t = 0; t < b->model.ntrees; t++) {
        const struct gbt_tree *tr = &b->model.trees[t];
        int dep = 0;
        gbt__tree_depth(tr, &dep);
        deep |= dep > GBT_FULL_DEPTH;
        shallow |= dep <= GBT_FULL_DEPTH;
        for (int32_t i = 0; i < tr->n_nodes; i++) at_zero |= tr->left[i] >= 0 && tr->threshold[i] == 0.0f;
    }
    ok(deep && shallow, "the model has trees deeper than %d and trees no deeper", GBT_FULL_DEPTH);
    ok(at_zero, "some split has threshold 0, so -0 and +0 rows meet it");
    ok_call(gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, out, N), "predict the batch");
    for (int r = 0; r < N; r++) same &= out[r] == (float)walk(b, x + r * C, 0);
    ok(same, "batch predictions equal walking each tree by hand");
    same = 1;
    for (int r = 0; r < N; r += 7) {
        gbt_booster_predict_dense(b, x + r * C, 1, C, NAN, GBT_PREDICT_MARGIN, o2, 1);
        same &= o2[0] == out[r];
    }
    ok(same, "one-row predictions equal the batch's");
    csr = tu_to_csr(x, y, N, C);
    ok_call(gbt_booster_predict(b, csr, GBT_PREDICT_MARGIN, o2, N), "predict from CSR");
    ok(memcmp(out, o2, N * sizeof *out) == 0, "CSR input predicts the same bits");
    for (int i = 0; i < N * C; i++)
        if (isnan(x[i])) x[i] = -999.0f;
    ok_call(gbt_booster_predict_dense(b, x, N, C, -999.0f, GBT_PREDICT_MARGIN, o2, N), "predict with missing = -999");
    ok(memcmp(out, o2, N * sizeof *out) == 0, "missing = -999 predicts like NaN");
    for (int i = 0; i < N * C; i++) {
        if (x[i] == -999.0f) x[i] = NAN;
        if (fabsf(x[i]) == 5.0f) x[i] = copysignf(INFINITY, x[i]);
    }
    ok_call(gbt_booster_predict_dense(b, x, N, C, NAN, GBT_PREDICT_MARGIN, o2, N), "predict with infinities");
    same = 1;
    for (int r = 0; r < N; r++) same &= o2[r] == (float)walk(b, x + r * C, 0);
    ok(same, "with infinities too, batch predictions equal walking each tree by hand");
    gbt_booster_free(b);
    gbt_dataset_free(d);
    gbt_dataset_free(csr);
    free(x);
    free(y);
    free(out);
    free(o2);
}

static void test_base_margin(void)
{
    const char *const p[] = {"objective=binary:logistic", "max_depth=3", NULL};
    gbt_dataset *d;
    gbt_booster *b;
    uint64_t n = 400;
    float *bm = malloc(n * sizeof *bm), *plain = malloc(n * sizeof *plain), *with = malloc(n * sizeof *with);
    int same = 1;
    tu_seed(22);
    d = tu_dataset(n, 4, 0, 1);
    b = tu_train(d, 4, p);
    gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, plain, n);
    for (uint64_t i = 0; i < n; i++) bm[i] = (float)(i % 5) - 2.0f;
    gbt_dataset_set_field(d, "base_margin", bm, n);
    ok_call(gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, with, n), "predict with base_margin");
    for (uint64_t i = 0; i < n; i++) {
        double want = (double)bm[i] + ((double)plain[i] - b->model.base[0]);
        same &= fabs(with[i] - want) < 1e-5;
    }
    ok(same, "base_margin replaces the starting score");
    ok(gbt_dataset_set_field(d, "base_margin", bm, 7) == GBT_E_INVALID_ARG,
       "base_margin of 7 values for 400 rows is refused");
    gbt_booster_free(b);
    gbt_dataset_free(d);
    free(bm);
    free(plain);
    free(with);
}

static void test_training_margins(void)
{
    /* after training, predicting the training data gives the training margins bit for bit */
    const char *const p[] = {"objective=reg:squarederror", "max_depth=5", "subsample=0.8", NULL};
    gbt_dataset *d;
    gbt_booster *b;
    uint64_t n = 900;
    double *train_m = malloc(n * sizeof *train_m);
    float *pred = malloc(n * sizeof *pred);
    int same = 1;
    tu_seed(23);
    d = tu_dataset(n, 5, 0.1, 0);
    b = tu_booster(p);
    for (int i = 0; i < 6; i++) gbt_booster_update(b, d);
    ok(b->ts != NULL && b->ts->ops->read_margins(b->ts->ctx, train_m) == GBT_OK, "read the training margins");
    gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, pred, n);
    for (uint64_t i = 0; i < n; i++) same &= pred[i] == (float)train_m[i];
    ok(same, "predictions on the training data equal the training margins");
    gbt_booster_free(b);
    gbt_dataset_free(d);
    free(train_m);
    free(pred);
}

/*
 * Values at the ends of float and next to each other: training (on bins)
 * and prediction (on thresholds) must send every row the same way.  Each
 * case has 40 rows, label 1 with value a, label 0 with value b.
 */
static void test_float_edges(void)
{
    const float big = FLT_MAX, below = nextafterf(FLT_MAX, 0.0f), low = -FLT_MAX,
                above = nextafterf(-FLT_MAX, 0.0f);
    static const char *const names[] = {"FLT_MAX vs missing",      "FLT_MAX vs -FLT_MAX",
                                        "below FLT_MAX vs FLT_MAX", "-FLT_MAX vs the next float up",
                                        "-FLT_MAX vs missing",     "missing vs FLT_MAX"};
    const float a[] = {big, big, below, low, low, NAN}, b[] = {NAN, low, big, above, NAN, big};
    const char *const p[] = {"objective=binary:logistic", "max_depth=1", "min_child_weight=0", NULL};
    enum { N = 40 };
    for (int c = 0; c < 6; c++) {
        float x[N], y[N], pred[N];
        double train_m[N];
        gbt_dataset *d = NULL;
        gbt_booster *bo = tu_booster(p);
        int same = 1;
        float lo1 = INFINITY, hi0 = -INFINITY;
        for (int i = 0; i < N; i++) {
            y[i] = (float)(i % 2);
            x[i] = i % 2 ? a[c] : b[c];
        }
        gbt_dataset_from_dense(x, N, 1, NAN, &d);
        gbt_dataset_set_field(d, "label", y, N);
        for (int r = 0; r < 3; r++) gbt_booster_update(bo, d);
        ok(bo->ts != NULL && bo->ts->ops->read_margins(bo->ts->ctx, train_m) == GBT_OK &&
               gbt_booster_predict(bo, d, GBT_PREDICT_MARGIN, pred, N) == GBT_OK,
           "%s: trains and predicts", names[c]);
        for (int i = 0; i < N; i++) {
            same &= pred[i] == (float)train_m[i];
            if (y[i] > 0 && pred[i] < lo1) lo1 = pred[i];
            if (y[i] == 0 && pred[i] > hi0) hi0 = pred[i];
        }
        ok(same, "%s: predictions equal the training margins", names[c]);
        ok(lo1 > hi0, "%s: the classes are separated (AUC 1): %g > %g", names[c], lo1, hi0);
        gbt_booster_free(bo);
        gbt_dataset_free(d);
    }
}

static void test_size_overflow(void)
{
    const char *const p[] = {"objective=multi:softprob", "num_class=3", "max_depth=2", NULL};
    gbt_dataset *d = tu_dataset(300, 3, 0, 3);
    gbt_booster *b = tu_train(d, 1, p);
    uint64_t len = 0;
    /* (2^64 + 2) / 3 rows x 3 classes wraps around to 2 floats in 64 bits */
    ok(b && gbt_booster_predict_size(b, 0x5555555555555556ull, 0, &len) == GBT_E_INVALID_ARG && len == 0,
       "a row count whose output overflows is refused: %s", gbt_last_error());
    ok(b && gbt_booster_predict_size(b, 1000, 0, &len) == GBT_OK && len == 3000, "1000 rows x 3 classes: 3000 floats");
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

static void test_no_model(void)
{
    gbt_booster *b;
    float out[4], x[4] = {0};
    uint64_t len;
    gbt_booster_create(&b);
    ok(gbt_booster_predict_dense(b, x, 1, 4, NAN, 0, out, 4) == GBT_E_STATE && strstr(gbt_last_error(), "no model"),
       "predicting without a model is refused: %s", gbt_last_error());
    ok(gbt_booster_predict_size(b, 1, 0, &len) == GBT_E_STATE, "so is asking for the size");
    gbt_booster_free(b);
}

int main(void)
{
    test_walk();
    test_walk_edges();
    test_base_margin();
    test_training_margins();
    test_float_edges();
    test_size_overflow();
    test_no_model();
    return done_testing();
}
