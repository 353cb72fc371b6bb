/*
 * test_cat_train.c - training on categorical features on the CPU: the
 * root split of one round checked against a brute force over every set
 * of categories (leaf values -G/(H + lambda) computed here from the
 * labels), one-hot below max_cat_to_onehot, max_cat_threshold, LightGBM's
 * cat_smooth, cat_l2 and min_data_per_group (by hand), where unseen and invalid categories go, the model file, dumps, slicing,
 * continued training, lossguide and thread counts.
 */
#include <float.h>
#include <math.h>

#include "testutil.h"

#define NCAT 6
#define PER 4   /* rows per category */
#define NMISS 3 /* rows with the category missing */
#define NROW (NCAT * PER + NMISS)

static const char *const C1[] = {"c"};

/* Labels of category c (row k of it) and of the missing rows: well apart, not ordered by code. */
static float label_of(int c, int k)
{
    static const float mean[NCAT] = {2.0f, -1.0f, 3.5f, 0.5f, -2.5f, 1.0f};
    return mean[c] + 0.25f * (float)(k % 2);
}

static gbt_dataset *cat_data(int ncat, float *x, float *y)
{
    gbt_dataset *d = NULL;
    int r = 0;
    for (int c = 0; c < ncat; c++)
        for (int k = 0; k < PER; k++, r++) {
            x[r] = (float)c;
            y[r] = label_of(c, k);
        }
    for (int k = 0; k < NMISS; k++, r++) {
        x[r] = NAN;
        y[r] = 1.75f;
    }
    if (gbt_dataset_from_dense(x, (uint64_t)r, 1, NAN, &d) != GBT_OK ||
        gbt_dataset_set_field(d, "label", y, (uint64_t)r) != GBT_OK ||
        gbt_dataset_set_feature_types(d, C1, 1) != GBT_OK) {
        diag("cat_data: %s", gbt_last_error());
        exit(2);
    }
    return d;
}

/*
 * The best split by brute force: squared error from base 0 (g = -y, h = 1),
 * lambda 1, every nonempty proper set S of the ncat categories sent right
 * (with |S| <= maxset), missing rows left or right.  Writes each
 * category's side (1 right) and the two leaf values.
 */
static void brute(int ncat, int maxset, const float *y, int *right, int *miss_right, double *lv, double *rv)
{
    double G[NCAT] = {0}, H[NCAT] = {0}, Gm = 0, Hm = NMISS, Gt, Ht, best = -INFINITY;
    int r = 0;
    for (int c = 0; c < ncat; c++)
        for (int k = 0; k < PER; k++, r++) {
            G[c] -= y[r];
            H[c] += 1;
        }
    for (int k = 0; k < NMISS; k++, r++) Gm -= y[r];
    Gt = Gm;
    Ht = Hm;
    for (int c = 0; c < ncat; c++) {
        Gt += G[c];
        Ht += H[c];
    }
    for (unsigned S = 1; S + 1 < (1u << ncat); S++) {
        if (__builtin_popcount(S) > maxset) continue;
        for (int mr = 0; mr <= 1; mr++) {
            double GR = mr ? Gm : 0, HR = mr ? Hm : 0, GL, HL, gain;
            for (int c = 0; c < ncat; c++)
                if (S >> c & 1) {
                    GR += G[c];
                    HR += H[c];
                }
            GL = Gt - GR;
            HL = Ht - HR;
            gain = GL * GL / (HL + 1) + GR * GR / (HR + 1) - Gt * Gt / (Ht + 1);
            if (gain > best + 1e-9) {
                best = gain;
                for (int c = 0; c < ncat; c++) right[c] = S >> c & 1;
                *miss_right = mr;
                *lv = -GL / (HL + 1);
                *rv = -GR / (HR + 1);
            }
        }
    }
}

static const char *const ONE_SPLIT[] = {"base_score=0", "eta=1", "max_depth=1", "lambda=1",
                                        "min_child_weight=0", "nthread=1", NULL};

/* Predictions of each category 0 .. n-1 and of a missing value, from a one-column model. */
static void predict_codes(gbt_booster *b, int n, float *out)
{
    float x[NCAT + 1];
    for (int c = 0; c < n; c++) x[c] = (float)c;
    x[n] = NAN;
    if (gbt_booster_predict_dense(b, x, (uint64_t)n + 1, 1, NAN, 0, out, (uint64_t)n + 1) != GBT_OK) {
        diag("predict: %s", gbt_last_error());
        for (int c = 0; c <= n; c++) out[c] = NAN;
    }
}

static int sides_match(const float *pred, int n, const int *right, int miss_right, double lv, double rv)
{
    int good = 1;
    for (int c = 0; c < n; c++) {
        const double want = right[c] ? rv : lv;
        if (fabs(pred[c] - want) > 1e-5) {
            diag("category %d predicts %g, brute force %g (%s)", c, (double)pred[c], want, right[c] ? "right" : "left");
            good = 0;
        }
    }
    if (fabs(pred[n] - (miss_right ? rv : lv)) > 1e-5) {
        diag("missing predicts %g, brute force %g", (double)pred[n], miss_right ? rv : lv);
        good = 0;
    }
    return good;
}

static void test_partition_vs_brute(void)
{
    float x[NROW], y[NROW], pred[NCAT + 1];
    int right[NCAT], mr = 0;
    double lv = 0, rv = 0;
    gbt_dataset *d = cat_data(NCAT, x, y);
    gbt_booster *b = tu_train(d, 1, ONE_SPLIT);
    brute(NCAT, NCAT, y, right, &mr, &lv, &rv);
    ok(b != NULL, "6 categories: one round of depth 1 trains");
    if (b) {
        predict_codes(b, NCAT, pred);
        ok(sides_match(pred, NCAT, right, mr, lv, rv),
           "the partition split is the best of all 62 sets and both missing sides (brute force)");
    }
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

static void test_onehot_vs_brute(void)
{
    /* 3 categories < max_cat_to_onehot 4: one category against the rest */
    float x[NROW], y[NROW], pred[NCAT + 1];
    int right[NCAT], mr = 0;
    double lv = 0, rv = 0;
    gbt_dataset *d = cat_data(3, x, y);
    gbt_booster *b = tu_train(d, 1, ONE_SPLIT);
    brute(3, 1, y, right, &mr, &lv, &rv);
    ok(b != NULL, "3 categories: trains");
    if (b) {
        predict_codes(b, 3, pred);
        ok(sides_match(pred, 3, right, mr, lv, rv), "one-hot: the best single category against the rest");
    }
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

static void test_threshold(void)
{
    /* max_cat_threshold=1: the partition sends one category right; brute force over single categories */
    const char *const set[] = {"base_score=0", "eta=1", "max_depth=1", "lambda=1", "min_child_weight=0",
                               "max_cat_threshold=1", NULL};
    float x[NROW], y[NROW], pred[NCAT + 1];
    int right[NCAT], mr = 0, nright = 0;
    double lv = 0, rv = 0;
    gbt_dataset *d = cat_data(NCAT, x, y);
    gbt_booster *b = tu_train(d, 1, set);
    brute(NCAT, 1, y, right, &mr, &lv, &rv);
    if (b) {
        predict_codes(b, NCAT, pred);
        for (int c = 0; c < NCAT; c++) nright += fabs(pred[c] - rv) < 1e-5;
        ok(nright == 1 && sides_match(pred, NCAT, right, mr, lv, rv),
           "max_cat_threshold=1: one category right, the best one (brute force)");
    } else {
        ok(0, "max_cat_threshold=1 trains");
    }
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

static void test_unseen_and_dump(void)
{
    float x[NROW], y[NROW], pred[NCAT + 1], odd[4], op[4];
    int right[NCAT], mr = 0;
    double lv = 0, rv = 0;
    char *dump = NULL, want[64];
    size_t len = 0;
    gbt_dataset *d = cat_data(NCAT, x, y);
    gbt_booster *b = tu_train(d, 1, ONE_SPLIT);
    brute(NCAT, NCAT, y, right, &mr, &lv, &rv);
    if (b == NULL) {
        ok(0, "trains");
        gbt_dataset_free(d);
        return;
    }
    /* 7 (never seen), -1, 2^24 and 1e30 are not in any set: left, as XGBoost */
    odd[0] = 7;
    odd[1] = -1;
    odd[2] = 16777216.0f;
    odd[3] = 1e30f;
    ok_call(gbt_booster_predict_dense(b, odd, 4, 1, NAN, 0, op, 4), "predict unseen and invalid categories");
    ok(fabs(op[0] - lv) < 1e-5 && fabs(op[1] - lv) < 1e-5 && fabs(op[2] - lv) < 1e-5 && fabs(op[3] - lv) < 1e-5,
       "unseen category 7, -1, 2^24 and 1e30 go left (%g %g %g %g, left %g)", (double)op[0], (double)op[1],
       (double)op[2], (double)op[3], lv);
    /* 2.5 is truncated to 2, as XGBoost reads a category */
    odd[0] = 2.5f;
    ok_call(gbt_booster_predict_dense(b, odd, 1, 1, NAN, 0, op, 1), "predict 2.5");
    predict_codes(b, NCAT, pred);
    ok(op[0] == pred[2], "2.5 predicts as category 2");
    /* the text dump names the set of the right child */
    {
        int n = 0;
        n += snprintf(want + n, sizeof want - (size_t)n, "0:[f0:{");
        for (int c = 0, first = 1; c < NCAT; c++)
            if (right[c]) {
                n += snprintf(want + n, sizeof want - (size_t)n, first ? "%d" : ",%d", c);
                first = 0;
            }
        snprintf(want + n, sizeof want - (size_t)n, "}] yes=2,no=1,missing=%d", mr ? 2 : 1);
    }
    ok_call(gbt_booster_dump(b, "text", 0, 0, &dump, &len), "text dump");
    ok(dump && strstr(dump, want), "the text dump shows %s", want);
    gbt_free(dump);
    dump = NULL;
    ok_call(gbt_booster_dump(b, "json", 0, 0, &dump, &len), "json dump");
    ok(dump && strstr(dump, "\"split_condition\": ["), "the json dump gives the categories as a list");
    gbt_free(dump);
    dump = NULL;
    ok_call(gbt_booster_dump(b, "dot", 0, 0, &dump, &len), "dot dump");
    ok(dump && strstr(dump, "f0 in {"), "the dot dump labels the node f0 in {...}");
    gbt_free(dump);
    /* leaf ids: the dump's right child (2) for the set, the left (1) for the rest */
    {
        float xs[NCAT + 1], leaf[NCAT + 1], phi[2 * (NCAT + 1)];
        int good = 1;
        double HL = 0, HR = 0, base;
        for (int c = 0; c < NCAT; c++) xs[c] = (float)c;
        xs[NCAT] = NAN;
        ok_call(gbt_booster_predict_dense(b, xs, NCAT + 1, 1, NAN, GBT_PREDICT_LEAF, leaf, NCAT + 1), "leaf ids");
        for (int c = 0; c <= NCAT; c++) {
            const int r = c < NCAT ? right[c] : mr;
            good &= leaf[c] == (r ? 2.0f : 1.0f);
        }
        ok(good, "leaf ids: 2 for the categories of the set, 1 for the others, missing to its side");
        /*
         * SHAP of a one-split tree on one feature: the prediction less the
         * cover-weighted mean of the two leaves (covers: the rows of each side)
         */
        for (int c = 0; c < NCAT; c++) *(right[c] ? &HR : &HL) += PER;
        *(mr ? &HR : &HL) += NMISS;
        base = (HL * lv + HR * rv) / (HL + HR);
        ok_call(gbt_booster_predict_dense(b, xs, NCAT + 1, 1, NAN, GBT_PREDICT_CONTRIBS, phi, 2 * (NCAT + 1)),
                "SHAP values");
        good = 1;
        for (int c = 0; c <= NCAT; c++) {
            const double want = ((c < NCAT ? right[c] : mr) ? rv : lv) - base;
            good &= fabs(phi[2 * c] - want) < 1e-5 && fabs(phi[2 * c + 1] - base) < 1e-5;
        }
        ok(good, "SHAP: each row's value is its leaf less the mean %.5g, the bias that mean", base);
    }
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/* A bigger set: 40 categories and a numeric column, several rounds. */
static gbt_dataset *mixed_data(uint64_t n, float *x, float *y)
{
    gbt_dataset *d = NULL;
    const char *const QC[] = {"q", "c"};
    tu_seed(7);
    for (uint64_t r = 0; r < n; r++) {
        const int c = (int)(tu_unit() * 40);
        x[2 * r] = (float)tu_unit();
        x[2 * r + 1] = r % 17 == 0 ? NAN : (float)c;
        y[r] = (float)(sin((double)c * 1.7) + x[2 * r] + 0.1 * tu_unit());
    }
    if (gbt_dataset_from_dense(x, n, 2, NAN, &d) != GBT_OK || gbt_dataset_set_field(d, "label", y, n) != GBT_OK ||
        gbt_dataset_set_feature_types(d, QC, 2) != GBT_OK) {
        diag("mixed_data: %s", gbt_last_error());
        exit(2);
    }
    return d;
}

static void test_model_round_trip(void)
{
    enum { N = 600 };
    static float x[2 * N], y[N], p1[N], p2[N], p3[N];
    const char *const s1[] = {"nthread=1", "max_depth=4", NULL}, *const s2[] = {"nthread=2", "max_depth=4", NULL};
    const char *const lg[] = {"grow_policy=lossguide", "max_leaves=12", "max_depth=0", NULL};
    gbt_dataset *d = mixed_data(N, x, y);
    gbt_booster *a = tu_train(d, 8, s1), *b = tu_train(d, 8, s2), *c = NULL, *sl = NULL, *h = NULL, *l = NULL;
    char *buf = NULL;
    size_t len = 0;
    double se = 0, var = 0, mean = 0;
    ok(a && b && tu_same_model(a, b), "1 and 2 threads train the same model bytes");
    if (a == NULL) goto out;
    ok_call(gbt_booster_predict(a, d, 0, p1, N), "predict");
    for (int i = 0; i < N; i++) mean += y[i] / N;
    for (int i = 0; i < N; i++) {
        se += (p1[i] - y[i]) * (p1[i] - y[i]);
        var += (y[i] - mean) * (y[i] - mean);
    }
    ok(se < 0.1 * var, "8 rounds fit a per-category effect: squared error %.3g < 10%% of variance %.3g", se, var);
    {
        /* SHAP values sum to the margin; interaction rows sum to the SHAP values */
        static float phi[3 * N], inter[9 * N];
        double worst = 0, worst_i = 0;
        ok_call(gbt_booster_predict(a, d, GBT_PREDICT_CONTRIBS, phi, 3 * N), "SHAP values of 8 rounds");
        ok_call(gbt_booster_predict(a, d, GBT_PREDICT_INTERACTIONS, inter, 9 * N), "SHAP interactions");
        for (int i = 0; i < N; i++) {
            const double e = fabs((double)phi[3 * i] + phi[3 * i + 1] + phi[3 * i + 2] - p1[i]);
            worst = e > worst ? e : worst;
            for (int j = 0; j < 3; j++) {
                const float *row = inter + 9 * i + 3 * j;
                const double ei = fabs((double)row[0] + row[1] + row[2] - phi[3 * i + j]);
                worst_i = ei > worst_i ? ei : worst_i;
            }
        }
        ok(worst < 1e-4, "SHAP values sum to the prediction (worst %.2g)", worst);
        ok(worst_i < 1e-4, "interaction rows sum to the SHAP values (worst %.2g)", worst_i);
    }
    {
        /* importance "weight": the splits on each feature, counted here in the text dump */
        double imp[2] = {0, 0};
        char *dump = NULL;
        size_t dl = 0;
        int nq = 0, nc = 0;
        ok_call(gbt_booster_feature_importance(a, "weight", imp, 2), "importance");
        ok_call(gbt_booster_dump(a, "text", -1, 0, &dump, &dl), "text dump");
        for (const char *q = dump; q && (q = strstr(q, ":[f")) != NULL; q += 3) {
            if (q[3] == '0' && q[4] == '<') nq++;
            if (q[3] == '1' && q[4] == ':') nc++;
        }
        ok(nc > 0 && imp[0] == nq && imp[1] == nc,
           "importance weight counts the categorical splits (%g = %d) and the numeric ones (%g = %d)", imp[1], nc,
           imp[0], nq);
        gbt_free(dump);
    }
    ok_call(gbt_booster_save_to_buffer(a, &buf, &len), "save");
    ok(buf && strstr(buf, "\"categories_nodes\"") && strstr(buf, "\"categories\""),
       "the model file holds the categorical splits");
    ok(buf && strstr(buf, "\"feature_types\": [\"q\", \"c\"]"), "and the feature types q, c");
    ok_call(gbt_booster_load_from_buffer(buf, len, &c), "load");
    if (c) {
        ok_call(gbt_booster_predict(c, d, 0, p2, N), "predict with the loaded model");
        ok(memcmp(p1, p2, sizeof p1) == 0, "the loaded model predicts the same bits");
        ok(tu_same_model(a, c), "and saves to the same bytes");
    }
    ok_call(gbt_booster_slice(a, 0, 4, &sl), "slice rounds [0, 4)");
    if (sl) {
        h = tu_train(d, 4, s1);
        ok(h && tu_same_model(sl, h), "the slice of 4 rounds saves as a 4-round training");
        /* continued training: 4 more rounds on the 4-round model give the 8-round model */
        if (h && gbt_booster_train(h, d, 4, NULL, NULL, 0) == GBT_OK)
            ok(tu_same_model(h, a), "4 + 4 rounds give the model of 8");
        else
            ok(0, "continued training: %s", gbt_last_error());
    }
    {
        /* continued training on data whose types differ from the model's is refused */
        const char *const QQ[] = {"q", "q"};
        gbt_dataset *num = mixed_data(N, x, y);
        ok_call(gbt_dataset_set_feature_types(num, QQ, 2), "the same data, every feature numeric");
        ok(c && gbt_booster_train(c, num, 1, NULL, NULL, 0) == GBT_E_INVALID_ARG &&
               strstr(gbt_last_error(), "feature 1 (f1) is numeric, but the model treats it as categorical"),
           "continued training on numeric data is refused: %s", gbt_last_error());
        gbt_dataset_free(num);
    }
    l = tu_train(d, 5, lg);
    ok(l != NULL, "lossguide trains on categorical data");
    if (l) {
        ok_call(gbt_booster_predict(l, d, 0, p3, N), "lossguide predicts");
        ok(isfinite(p3[0]), "lossguide predictions are numbers");
    }
out:
    gbt_free(buf);
    gbt_booster_free(a);
    gbt_booster_free(b);
    gbt_booster_free(c);
    gbt_booster_free(sl);
    gbt_booster_free(h);
    gbt_booster_free(l);
    gbt_dataset_free(d);
}

static void test_xgboost_export(void)
{
    enum { N = 200 };
    static float x[2 * N], y[N];
    gbt_dataset *d = mixed_data(N, x, y);
    gbt_booster *a = tu_train(d, 2, NULL);
    char *buf = NULL;
    size_t len = 0;
    if (a == NULL) {
        ok(0, "trains");
        gbt_dataset_free(d);
        return;
    }
    {
        char path[600];
        FILE *f;
        snprintf(path, sizeof path, "%s/xgb.json", tu_tmpdir());
        static char text[1 << 20];
        size_t got = 0;
        ok_call(gbt_booster_save_xgboost(a, path), "XGBoost export of categorical splits");
        f = fopen(path, "r");
        if (f) {
            got = fread(text, 1, sizeof text - 1, f);
            fclose(f);
        }
        text[got] = '\0';
        ok(strstr(text, "\"feature_types\":[\"q\",\"c\"]") && strstr(text, "\"split_type\":[1") &&
               strstr(text, "\"categories_nodes\":[0"),
           "the export names the types and the root's categorical split (tests/xgboost_cat.py loads it in XGBoost)");
    }
    (void)buf;
    (void)len;
    gbt_booster_free(a);
    gbt_dataset_free(d);
}

/*
 * Sparse data (binned as CSR): every leaf's cover, the hessian sum the
 * partition of the rows gave (squared error: a row count), equals the rows
 * that prediction's tree walk sends there (leaf ids).
 */
static void test_sparse_partition(void)
{
    enum { N = 3000, F = 6, T = 3 };
    static float x[N * F], y[N], leaf[N * T];
    const char *types[F] = {"c", "q", "q", "c", "q", "q"};
    const char *const set[] = {"max_depth=3", "min_child_weight=0", "nthread=2", NULL};
    gbt_dataset *d;
    gbt_booster *b;
    char *dump = NULL;
    size_t len = 0;
    int good = 1, leaves = 0;
    tu_seed(5);
    for (int r = 0; r < N; r++) {
        for (int f = 0; f < F; f++) {
            const int present = tu_unit() < 0.15;
            x[r * F + f] = !present ? NAN : (f == 0 || f == 3) ? (float)(int)(tu_unit() * (f ? 300 : 30))
                                                              : (float)tu_unit();
        }
        y[r] = (float)((isnan(x[r * F]) ? 0.5 : sin(x[r * F] * 1.9)) + (isnan(x[r * F + 3]) ? 0 : fmod(x[r * F + 3], 7.0) / 7));
    }
    d = tu_to_csr(x, y, N, F);
    ok_call(gbt_dataset_set_feature_types(d, types, F), "sparse data: c, q, q, c, q, q");
    b = tu_train(d, T, set);
    if (b == NULL) {
        ok(0, "sparse categorical data trains");
        gbt_dataset_free(d);
        return;
    }
    ok_call(gbt_booster_predict(b, d, GBT_PREDICT_LEAF, leaf, N * T), "leaf ids of the training rows");
    ok_call(gbt_booster_dump(b, "json", -1, 1, &dump, &len), "json dump with covers");
    {
        /* the trees' dumps follow each other: "[" opens the array, then one object per tree */
        const char *p = dump;
        int t = -1;
        while (p && (p = strstr(p, "\"nodeid\": ")) != NULL) {
            int id;
            float cover;
            const char *q = p;
            if (sscanf(p, "\"nodeid\": %d", &id) != 1) break;
            if (id == 0) t++;
            p += 10;
            if (strncmp(strchr(q, ',') + 2, "\"leaf\"", 6) != 0) continue;
            if (sscanf(strstr(q, "\"cover\": "), "\"cover\": %g", &cover) != 1) break;
            {
                int count = 0;
                for (int r = 0; r < N; r++) count += leaf[r * T + t] == (float)id;
                if ((float)count != cover) {
                    diag("tree %d leaf %d: cover %g, %d rows", t, id, (double)cover, count);
                    good = 0;
                }
                leaves++;
            }
        }
    }
    ok(good && leaves > 3 * T, "every leaf's cover is the number of rows prediction sends there (%d leaves)", leaves);
    gbt_free(dump);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/* The features the splits of tree t use (bit f), and whether any is categorical. */
static unsigned tree_features(const gbt_booster *b, int t, int *any_cat)
{
    char *dump = NULL;
    size_t len = 0;
    unsigned used = 0;
    if (gbt_booster_dump(b, "text", t, 0, &dump, &len) != GBT_OK) return ~0u;
    for (const char *p = dump; (p = strstr(p, "[f")) != NULL; p += 2) {
        const char *e = p + 2;
        used |= 1u << atoi(e);
        while (*e >= '0' && *e <= '9') e++;
        if (*e == ':') *any_cat = 1; /* "[f1:{0,2}]"; numeric nodes read "[f0<0.5]" */
    }
    gbt_free(dump);
    return used;
}

/*
 * Categorical features with the constraints of issue 24 and the binned
 * data kept with the dataset: a monotone constraint on a categorical
 * feature is refused; one on a numeric feature holds next to categorical
 * splits (checked on a grid); interaction constraints and feature weights
 * decide which features split as for numeric ones; changing the types
 * bins the data again.
 */
static void test_constraints_and_kept_bins(void)
{
    enum { N = 600, T = 6 };
    static float x[2 * N], y[N], grid[2 * 41 * 24], pg[41 * 24];
    const char *const QQ[] = {"q", "q"}, *const QC[] = {"q", "c"};
    gbt_dataset *d = mixed_data(N, x, y), *dq = NULL;
    gbt_booster *b = NULL, *m = NULL, *q1 = NULL, *q2 = NULL, *c2 = NULL;
    int any_cat = 0, good = 1;
    /* a monotone constraint on the categorical feature: refused, naming it */
    {
        const char *const mc[] = {"monotone_constraints=(0,1)", NULL};
        b = tu_booster(mc);
        ok(gbt_booster_train(b, d, 2, NULL, NULL, 0) == GBT_E_PARAM &&
               strstr(gbt_last_error(), "feature 1 (f1) is categorical") != NULL,
           "monotone_constraints on a categorical feature is refused: %s", gbt_last_error());
        gbt_booster_free(b);
    }
    /* +1 on the numeric feature: every category's predictions rise with it */
    {
        const char *const mc[] = {"monotone_constraints=(1,0)", "max_depth=4", NULL};
        m = tu_train(d, T, mc);
        ok(m != NULL, "monotone_constraints on the numeric feature next to a categorical one trains");
        for (int t = 0; m && t < T; t++) tree_features(m, t, &any_cat);
        ok(any_cat, "the constrained model has categorical splits");
        for (int c = 0; c <= 40; c++)
            for (int i = 0; i < 24; i++) {
                grid[2 * (c * 24 + i)] = -0.1f + 0.05f * (float)i;
                grid[2 * (c * 24 + i) + 1] = c == 40 ? NAN : (float)c;
            }
        ok_call(m ? gbt_booster_predict_dense(m, grid, 41 * 24, 2, NAN, 0, pg, 41 * 24) : GBT_E_INTERNAL,
                "predict the grid");
        for (int c = 0; c <= 40; c++)
            for (int i = 1; i < 24; i++) good &= pg[c * 24 + i] >= pg[c * 24 + i - 1];
        ok(good, "predictions never fall as the numeric feature rises, for each category and missing");
        gbt_booster_free(m);
    }
    /* interaction sets [[0],[1]]: no tree mixes the two features */
    {
        const char *const ic[] = {"interaction_constraints=[[0],[1]]", "max_depth=4", NULL};
        unsigned mixed = 0, seen = 0;
        any_cat = 0;
        b = tu_train(d, T, ic);
        for (int t = 0; b && t < T; t++) {
            const unsigned u = tree_features(b, t, &any_cat);
            mixed |= u == 3u;
            seen |= u;
        }
        ok(b && !mixed && seen == 3u && any_cat,
           "interaction_constraints [[0],[1]]: each tree splits on one feature, categorical trees among them");
        gbt_booster_free(b);
    }
    /* feature weights with one feature drawn per node: weight 0 is drawn only after the positive one */
    for (int k = 0; k < 2; k++) {
        const float fw[2][2] = {{1.0f, 0.0f}, {0.0f, 1.0f}};
        const char *const cs[] = {"colsample_bynode=0.5", "max_depth=3", NULL};
        unsigned seen = 0;
        any_cat = 0;
        ok_call(gbt_dataset_set_field(d, "feature_weights", fw[k], 2), "feature_weights");
        b = tu_train(d, T, cs);
        for (int t = 0; b && t < T; t++) seen |= tree_features(b, t, &any_cat);
        ok(b && seen == (k ? 2u : 1u) && any_cat == k, "feature_weights (%g, %g): only feature %d splits",
           (double)fw[k][0], (double)fw[k][1], k);
        gbt_booster_free(b);
    }
    ok_call(gbt_dataset_set_field(d, "feature_weights", NULL, 0), "feature_weights removed");
    /* the histogram pool: 2 histograms (the others rebuilt from their rows) give the unbounded pool's model */
    for (int pol = 0; pol < 2; pol++) {
        const char *const big[] = {pol ? "grow_policy=lossguide" : "grow_policy=depthwise", "max_depth=8",
                                   "histogram_pool_size=-1", NULL};
        const char *const small[] = {big[0], "max_depth=8", "histogram_pool_size=0.00001", NULL};
        gbt_booster *u = tu_train(d, T, big), *p2 = tu_train(d, T, small);
        any_cat = 0;
        for (int t = 0; u && t < T; t++) tree_features(u, t, &any_cat);
        ok(u && p2 && any_cat && tu_same_model(u, p2),
           "%s: a pool of 2 histograms gives the unbounded pool's categorical model",
           pol ? "lossguide" : "depthwise");
        gbt_booster_free(u);
        gbt_booster_free(p2);
    }
    /*
     * The binned data kept with the dataset: training, then other types on
     * the same dataset, trains as a fresh dataset of those types does
     * (the categorical bins are not reused), and back again.
     */
    {
        const char *const s2[] = {"max_depth=4", NULL};
        b = tu_train(d, T, s2);
        ok_call(gbt_dataset_set_feature_types(d, QQ, 2), "types q,q on the trained dataset");
        q1 = tu_train(d, T, s2);
        if (gbt_dataset_from_dense(x, N, 2, NAN, &dq) != GBT_OK || gbt_dataset_set_field(dq, "label", y, N) != GBT_OK)
            exit(2);
        q2 = tu_train(dq, T, s2);
        ok(q1 && q2 && tu_same_model(q1, q2) && !tu_same_model(b, q1),
           "after set_feature_types(q,q) the dataset trains as fresh numeric data, not on its kept categorical bins");
        ok_call(gbt_dataset_set_feature_types(d, QC, 2), "types q,c again");
        c2 = tu_train(d, T, s2);
        ok(c2 && tu_same_model(b, c2), "and with q,c again the categorical model");
    }
    gbt_booster_free(b);
    gbt_booster_free(q1);
    gbt_booster_free(q2);
    gbt_booster_free(c2);
    gbt_dataset_free(dq);
    gbt_dataset_free(d);
}

/*
 * LightGBM's regularisation of partitions (cat_smooth, cat_l2,
 * min_data_per_group) and max_cat_threshold, on one-feature sets of
 * categories with a constant label each: squared error from base 0 with
 * lambda 0, eta 1 and depth 1, so each category predicts the mean label of
 * its side and a category's key is (its label sum) / (rows + cat_smooth).
 * Expected sides and values computed by hand (below) or by brute force.
 */
struct catset {
    int n;
    int rows[6];
    float mean[6];
    float weight; /* of every row (0: none) */
};

/* 4 categories: rows 4, 4, 4, 16 and labels 1, 3, 4, 2 (sums 4, 12, 16, 32; 28 rows, 64 in all). */
static const struct catset SET_A = {4, {4, 4, 4, 16}, {1, 3, 4, 2}, 0};
/* SET_A and category 4: 2 rows of label -2 (30 rows, 60 in all). */
static const struct catset SET_B = {5, {4, 4, 4, 16, 2}, {1, 3, 4, 2, -2}, 0};
/* SET_B with weights 0.5: hessians 0.5, 2 rows per unit of hessian */
static const struct catset SET_BW = {5, {4, 4, 4, 16, 2}, {1, 3, 4, 2, -2}, 0.5f};
/* 6 categories of 4 rows: unlimited, the best partition is {2, 4, 5} against {0, 1, 3} */
static const struct catset SET_C = {6, {4, 4, 4, 4, 4, 4}, {1, 4, -2, 2, 0, -1}, 0};

static gbt_booster *train_catset(const struct catset *cs, const char *extra, const char *extra2)
{
    static float x[64], y[64], w[64];
    const char *set[] = {"base_score=0", "eta=1", "max_depth=1", "lambda=0", "min_child_weight=0", "nthread=1",
                         extra, extra2, NULL};
    gbt_dataset *d = NULL;
    gbt_booster *b;
    int r = 0;
    for (int c = 0; c < cs->n; c++)
        for (int k = 0; k < cs->rows[c]; k++, r++) {
            x[r] = (float)c;
            y[r] = cs->mean[c];
            w[r] = cs->weight;
        }
    if (gbt_dataset_from_dense(x, (uint64_t)r, 1, NAN, &d) != GBT_OK ||
        gbt_dataset_set_field(d, "label", y, (uint64_t)r) != GBT_OK ||
        (cs->weight > 0 && gbt_dataset_set_field(d, "weight", w, (uint64_t)r) != GBT_OK) ||
        gbt_dataset_set_feature_types(d, C1, 1) != GBT_OK) {
        diag("train_catset: %s", gbt_last_error());
        exit(2);
    }
    b = tu_train(d, 1, set);
    gbt_dataset_free(d);
    return b;
}

/*
 * Whether the one-split model of cs (trained with extra, extra2) predicts
 * want[c] for each category c and want[cs->n] for the unseen category 7.
 */
static int catset_predicts(const struct catset *cs, const char *extra, const char *extra2, const double *want)
{
    gbt_booster *b = train_catset(cs, extra, extra2);
    float x[7], p[7];
    int good = b != NULL;
    for (int c = 0; c < cs->n; c++) x[c] = (float)c;
    x[cs->n] = 7.0f;
    if (b && gbt_booster_predict_dense(b, x, (uint64_t)cs->n + 1, 1, NAN, 0, p, (uint64_t)cs->n + 1) != GBT_OK) {
        diag("predict: %s", gbt_last_error());
        good = 0;
    }
    for (int c = 0; b && good && c <= cs->n; c++)
        if (fabs(p[c] - want[c]) > 1e-5) {
            diag("%s %s: %s %d predicts %g, expected %g", extra ? extra : "", extra2 ? extra2 : "",
                 c < cs->n ? "category" : "unseen category 7 (as", c < cs->n ? c : cs->n, (double)p[c], want[c]);
            good = 0;
        }
    gbt_booster_free(b);
    return good;
}

/* The gain of the root split in b's JSON dump, or NaN. */
static double root_gain(gbt_booster *b)
{
    char *dump = NULL;
    size_t len = 0;
    const char *g;
    double v = NAN;
    if (b && gbt_booster_dump(b, "json", 0, 1, &dump, &len) == GBT_OK && (g = strstr(dump, "\"gain\": ")) != NULL)
        v = strtod(g + 8, NULL);
    gbt_free(dump);
    return v;
}

static void test_lightgbm_regularisation(void)
{
    /*
     * SET_A, defaults: sorted by mean 0 (1), 3 (2), 1 (3), 2 (4); the best
     * cut {0, 3} | {1, 2}: 36^2/20 + 28^2/8 - 64^2/28 = 16.514 (means 1.8, 3.5).
     * cat_smooth=4: keys 4/8, 12/8, 16/8, 32/20 sort 0, 1, 3, 2, where
     * {0, 3} is no longer a cut; the best is {2} | {0, 1, 3}: 16^2/4 +
     * 48^2/24 - 64^2/28 = 13.714 (means 4, 2), found first as the prefix
     * {0, 1, 3}: that set goes right, and 7 left with 2.
     */
    const double a_plain[] = {1.8, 3.5, 3.5, 1.8, 3.5}, a_smooth[] = {2, 2, 4, 2, 4};
    /*
     * SET_B, defaults: the best {4} | rest: 4^2/2 + 64^2/28 - 60^2/30 =
     * 34.286 (means -2 and 16/7).  cat_smooth=4: category 4 (2 rows < 4)
     * leaves the order and stays left with unseen categories; the order 0,
     * 1, 3, 2 of SET_A; the best {1, 2, 3} right: 60^2/24 + 0^2/6 -
     * 60^2/30 = 30 (means 2.5 and 0; 7 goes left: 0).
     * min_data_per_group=3 (no smoothing): {4} (2 rows) is never scored, nor
     * is its complement (the rest would hold 2); the best of the rest is
     * {0, 4} | {1, 2, 3} again, 30, now with the set {4, 0} (the prefix of
     * 2 of the order 4, 0, 3, 1, 2) right, so 7 goes left with 1, 2, 3: 2.5.
     */
    const double b_plain[] = {16.0 / 7, 16.0 / 7, 16.0 / 7, 16.0 / 7, -2, 16.0 / 7},
                 b_smooth[] = {0, 2.5, 2.5, 2.5, 0, 0}, b_group[] = {0, 2.5, 2.5, 2.5, 0, 2.5};
    ok(catset_predicts(&SET_A, NULL, NULL, a_plain), "4 categories: the best cut of the order by mean (by hand)");
    ok(catset_predicts(&SET_A, "cat_smooth=4", NULL, a_smooth),
       "cat_smooth=4 reorders the categories by sum/(rows + 4), and the best cut becomes {2} | {0, 1, 3} (by hand)");
    ok(catset_predicts(&SET_B, NULL, NULL, b_plain), "5 categories: {4} against the rest (by hand)");
    ok(catset_predicts(&SET_B, "cat_smooth=4", NULL, b_smooth),
       "cat_smooth=4: category 4 of 2 rows is left out of the order and stays left with unseen ones (by hand)");
    ok(catset_predicts(&SET_B, "min_data_per_group=3", NULL, b_group),
       "min_data_per_group=3: the set {4} of 2 rows is not scored; {0, 4} right instead (by hand)");
    /*
     * Rows, not hessian sums: SET_B with weights 0.5 (the same leaf values)
     * and min_data_per_group=5 scores {4, 0} (6 rows), {2, 1} (8) and {2,
     * 1, 3} (16 rows, 6 left) and finds {4, 0} again; read as hessian sums
     * (half the rows) no set would be scored, and no split made.
     */
    ok(catset_predicts(&SET_BW, "min_data_per_group=5", NULL, b_group),
       "min_data_per_group counts rows estimated from hessians: weights 0.5, 5 rows (by hand)");
    {
        /*
         * cat_l2=1 (SET_A): the children's gains with lambda 0 + 1, the
         * parent's with 0: {0, 3} | {1, 2} stays best, 36^2/21 + 28^2/9 -
         * 64^2/28 = 2.5397 (against 16.514 without); leaf values keep lambda.
         */
        const double want = 1296.0 / 21 + 784.0 / 9 - 4096.0 / 28, plain = 1296.0 / 20 + 784.0 / 8 - 4096.0 / 28;
        gbt_booster *b0 = train_catset(&SET_A, NULL, NULL), *b1 = train_catset(&SET_A, "cat_l2=1", NULL);
        const double g0 = root_gain(b0), g1 = root_gain(b1);
        ok(fabs(g0 - plain) < 1e-4 && fabs(g1 - want) < 1e-4,
           "cat_l2=1: the split's gain is 36^2/21 + 28^2/9 - 64^2/28 = %.5f (%.5f), %.5f without (%.5f)", want, g1,
           plain, g0);
        gbt_booster_free(b0);
        gbt_booster_free(b1);
        ok(catset_predicts(&SET_A, "cat_l2=1", NULL, a_plain), "cat_l2=1: the same sides, leaf values with lambda");
    }
    {
        /* max_cat_threshold=2 on SET_C: the best set of at most 2 categories, by brute force over all of them */
        double want[7], best = -INFINITY, G = 0, H = 0;
        unsigned best_s = 0;
        for (int c = 0; c < SET_C.n; c++) {
            G += SET_C.rows[c] * (double)SET_C.mean[c];
            H += SET_C.rows[c];
        }
        for (unsigned S = 1; S + 1 < 1u << SET_C.n; S++) {
            double gr = 0, hr = 0, gain;
            if (__builtin_popcount(S) > 2) continue;
            for (int c = 0; c < SET_C.n; c++)
                if (S >> c & 1) {
                    gr += SET_C.rows[c] * (double)SET_C.mean[c];
                    hr += SET_C.rows[c];
                }
            gain = gr * gr / hr + (G - gr) * (G - gr) / (H - hr);
            if (gain > best + 1e-9) {
                best = gain;
                best_s = S;
            }
        }
        {
            double gr = 0, hr = 0;
            for (int c = 0; c < SET_C.n; c++)
                if (best_s >> c & 1) {
                    gr += SET_C.rows[c] * (double)SET_C.mean[c];
                    hr += SET_C.rows[c];
                }
            for (int c = 0; c < SET_C.n; c++) want[c] = best_s >> c & 1 ? gr / hr : (G - gr) / (H - hr);
            want[SET_C.n] = (G - gr) / (H - hr); /* unseen: left, with the categories not in the set */
        }
        const double c_plain[] = {7.0 / 3, 7.0 / 3, -1, 7.0 / 3, -1, -1, 7.0 / 3};
        ok(catset_predicts(&SET_C, NULL, NULL, c_plain), "6 categories: {2, 4, 5} | {0, 1, 3} without a limit (by hand)");
        ok(catset_predicts(&SET_C, "max_cat_threshold=2", NULL, want),
           "max_cat_threshold=2: the best set of at most 2 categories (brute force: set %#x)", best_s);
    }
}

int main(void)
{
    test_partition_vs_brute();
    test_onehot_vs_brute();
    test_threshold();
    test_lightgbm_regularisation();
    test_unseen_and_dump();
    test_model_round_trip();
    test_xgboost_export();
    test_sparse_partition();
    test_constraints_and_kept_bins();
    tu_cleanup();
    return done_testing();
}
