/*
 * test_shap.c - the outputs that explain a prediction, against values
 * computed here independently of the library: the model is read back from
 * its JSON text by a small parser of this file, and
 *   leaf ids come from walking those trees by hand;
 *   SHAP values from the definition: every subset S of the features, the
 *   game v(S) = E[f | x_S] by a cover-weighted walk (a node on a feature
 *   outside S averages its children by cover), Shapley weights
 *   |S|! (M - |S| - 1)! / M!  (trees over at most 8 features);
 *   approximate SHAP values (approx_contribs, Saabas) by walking the row's
 *   path: the bias gets the root's cover-weighted mean, each split's
 *   feature the change of that mean from the node to the row's child;
 *   SHAP interaction values from the Shapley interaction index (Lundberg
 *   et al. 2018): sum over S of |S|! (M - |S| - 2)! / (2 (M - 1)!) times
 *   v(S+i+j) - v(S+i) - v(S+j) + v(S), the diagonal the rest of phi_i;
 * and the identities: SHAP values sum to the margin on every row (1e-6
 * relative), interaction rows to the SHAP values, for every objective and
 * multi-class; round ranges: [0, k) of a model predicts what the model of
 * k rounds predicts (the same bits), [a, b) the sum of those rounds' trees.
 */
#include <float.h>
#include <math.h>

#include "testutil.h"

/* ---- the model, read from its JSON text by hand --------------------------- */

#define MAXN 512

struct jtree {
    int n, cls;
    int left[MAXN], right[MAXN], feature[MAXN], dl[MAXN];
    double threshold[MAXN], value[MAXN], cover[MAXN];
};

struct jmodel {
    int ntrees, K, nfeat;
    double base[16];
    struct jtree *t;
};

/* The n numbers of the array `"key": [...]` that comes first after p. */
static const char *numbers(const char *p, const char *key, double *out, int n)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": [", key);
    p = strstr(p, pat);
    if (p == NULL) return NULL;
    p += strlen(pat);
    for (int i = 0; i < n; i++) {
        char *e;
        out[i] = strtod(p, &e);
        if (e == p) return NULL;
        p = e;
        while (*p == ',' || *p == ' ') p++;
    }
    return p;
}

static int read_model(const gbt_booster *b, struct jmodel *m)
{
    size_t len;
    char *text = tu_model(b, &len);
    const char *p;
    double tmp[MAXN];
    memset(m, 0, sizeof *m);
    if (text == NULL) return 0;
    p = strstr(text, "\"num_feature\": ");
    m->nfeat = p ? atoi(p + 15) : 0;
    p = strstr(text, "\"base_margin\": [");
    for (m->K = 0, p = p ? p + 16 : NULL; p && m->K < 16;) {
        char *e;
        double v = strtod(p, &e);
        if (e == p) break;
        m->base[m->K++] = v;
        p = e;
        while (*p == ',' || *p == ' ') p++;
    }
    m->t = calloc(4096, sizeof *m->t);
    for (p = strstr(text, "\"trees\": ["); p && (p = strstr(p, "\"class\": ")) != NULL && m->ntrees < 4096;) {
        struct jtree *t = &m->t[m->ntrees++];
        const char *q;
        t->cls = atoi(p + 9);
        q = strstr(p, "\"num_nodes\": ");
        t->n = atoi(q + 13);
        if (t->n > MAXN) break;
        q = numbers(q, "left", tmp, t->n);
        for (int i = 0; q && i < t->n; i++) t->left[i] = (int)tmp[i];
        if (q) q = numbers(q, "right", tmp, t->n);
        for (int i = 0; q && i < t->n; i++) t->right[i] = (int)tmp[i];
        if (q) q = numbers(q, "feature", tmp, t->n);
        for (int i = 0; q && i < t->n; i++) t->feature[i] = (int)tmp[i];
        if (q) q = numbers(q, "threshold", t->threshold, t->n);
        if (q) q = numbers(q, "default_left", tmp, t->n);
        for (int i = 0; q && i < t->n; i++) t->dl[i] = (int)tmp[i];
        if (q) q = numbers(q, "value", t->value, t->n);
        if (q) q = numbers(q, "cover", t->cover, t->n);
        if (q == NULL) {
            m->ntrees = 0;
            break;
        }
        /* the file holds floats (in their shortest decimal form) */
        for (int i = 0; i < t->n; i++) {
            t->threshold[i] = (float)t->threshold[i];
            t->value[i] = (float)t->value[i];
            t->cover[i] = (float)t->cover[i];
        }
        p = q;
    }
    gbt_free(text);
    return m->ntrees > 0 && m->K > 0;
}

static int goes_left(const struct jtree *t, int i, const float *x)
{
    const float v = x[t->feature[i]];
    return isnan(v) ? t->dl[i] : (double)v < t->threshold[i];
}

static int leaf_of(const struct jtree *t, const float *x)
{
    int i = 0;
    while (t->left[i] >= 0) i = goes_left(t, i, x) ? t->left[i] : t->right[i];
    return i;
}

/* E[tree | the features in mask known] for row x. */
static double cond_value(const struct jtree *t, int i, const float *x, unsigned mask)
{
    if (t->left[i] < 0) return t->value[i];
    if (mask >> t->feature[i] & 1u) return cond_value(t, goes_left(t, i, x) ? t->left[i] : t->right[i], x, mask);
    return t->cover[t->left[i]] / t->cover[i] * cond_value(t, t->left[i], x, mask) +
           t->cover[t->right[i]] / t->cover[i] * cond_value(t, t->right[i], x, mask);
}

static double fact(int n)
{
    double f = 1;
    for (int i = 2; i <= n; i++) f *= i;
    return f;
}

/* v(S) of class k's trees for every subset S of M features: v[mask]. */
static void game(const struct jmodel *m, int k, const float *x, double *v)
{
    const int M = m->nfeat;
    for (unsigned s = 0; s < 1u << M; s++) {
        v[s] = 0;
        for (int t = 0; t < m->ntrees; t++)
            if (m->t[t].cls == k) v[s] += cond_value(&m->t[t], 0, x, s);
    }
}

/* Shapley values phi[0 .. M) of the game v, and v(empty) in phi[M]. */
static void shapley(const double *v, int M, double *phi)
{
    for (int i = 0; i < M; i++) {
        phi[i] = 0;
        for (unsigned s = 0; s < 1u << M; s++) {
            if (s >> i & 1u) continue;
            int n = __builtin_popcount(s);
            phi[i] += fact(n) * fact(M - n - 1) / fact(M) * (v[s | 1u << i] - v[s]);
        }
    }
    phi[M] = v[0];
}

/* ---- data and models ------------------------------------------------------ */

static gbt_booster *train(const float *x, const float *y, int n, int c, int rounds, const char *const *p,
                          gbt_dataset **dout)
{
    gbt_dataset *d = NULL;
    gbt_booster *b;
    if (gbt_dataset_from_dense(x, (uint64_t)n, (uint64_t)c, NAN, &d) != GBT_OK ||
        gbt_dataset_set_field(d, "label", y, (uint64_t)n) != GBT_OK) {
        diag("data: %s", gbt_last_error());
        exit(2);
    }
    b = tu_train(d, rounds, p);
    if (dout)
        *dout = d;
    else
        gbt_dataset_free(d);
    return b;
}

static float *predict(const gbt_booster *b, const gbt_dataset *d, unsigned flags, int r0, int r1, uint64_t *len)
{
    uint64_t n, l = 0;
    float *out;
    gbt_dataset_shape(d, &n, NULL);
    if (gbt_booster_predict_size_rounds(b, n, flags, r0, r1, &l) != GBT_OK) {
        diag("size: %s", gbt_last_error());
        return NULL;
    }
    out = malloc(l * sizeof *out + 1);
    if (gbt_booster_predict_rounds(b, d, flags, r0, r1, out, l) != GBT_OK) {
        diag("predict: %s", gbt_last_error());
        free(out);
        return NULL;
    }
    if (len) *len = l;
    return out;
}

/* ---- leaf ids -------------------------------------------------------------- */

static void test_leaves(void)
{
    const char *const p[] = {"objective=multi:softprob", "num_class=3", "max_depth=5", "verbosity=0", NULL};
    enum { N = 500, C = 7, R = 4 };
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y);
    gbt_dataset *d, *csr;
    gbt_booster *b;
    struct jmodel m = {0};
    uint64_t len = 0, n2;
    float *leaf, *leaf_csr, *part;
    int same = 1, nontrivial = 0;
    tu_seed(5);
    tu_data(N, C, 0.15, 3, x, y);
    b = train(x, y, N, C, R, p, &d);
    csr = tu_to_csr(x, y, N, C);
    ok(b && read_model(b, &m) && m.ntrees == 3 * R, "a multi:softprob model of %d trees read from its JSON", 3 * R);
    leaf = predict(b, d, GBT_PREDICT_LEAF, 0, 0, &len);
    ok(leaf && len == (uint64_t)N * 3 * R, "GBT_PREDICT_LEAF writes a float per tree and row (%llu)",
       (unsigned long long)len);
    for (int r = 0; leaf && r < N; r++)
        for (int t = 0; t < m.ntrees; t++) {
            int id = leaf_of(&m.t[t], x + r * C);
            same &= leaf[r * m.ntrees + t] == (float)id;
            nontrivial |= id > 2;
        }
    ok(leaf && same && nontrivial, "leaf ids are the node ids of the model JSON reached walking each tree by hand");
    leaf_csr = predict(b, csr, GBT_PREDICT_LEAF | GBT_PREDICT_MARGIN, 0, 0, NULL);
    ok(leaf && leaf_csr && memcmp(leaf, leaf_csr, len * sizeof *leaf) == 0,
       "the same leaf ids from CSR input (and with GBT_PREDICT_MARGIN, which changes nothing)");
    part = predict(b, d, GBT_PREDICT_LEAF, 1, 3, &n2);
    same = part && n2 == (uint64_t)N * 3 * 2;
    for (int r = 0; same && r < N; r++) same &= memcmp(part + r * 6, leaf + r * 12 + 3, 6 * sizeof *part) == 0;
    ok(same, "leaf ids of rounds [1, 3): the columns of those rounds' trees");
    free(part);
    free(leaf);
    free(leaf_csr);
    free(m.t);
    gbt_booster_free(b);
    gbt_dataset_free(d);
    gbt_dataset_free(csr);
    free(x);
    free(y);
}

/* ---- SHAP values against the definition -------------------------------- */

/* GBT_TEST_QUICK >= 2 (the valgrind run): fewer rows checked against the
 * definition and summed, and shallower trees in the thread check; the same
 * properties. */
static int quick;

static void check_brute(const char *what, const char *const *p, int C, int task, int rounds, int inter)
{
    enum { N = 300 };
    const int T = quick >= 2 ? 8 : 40;
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y);
    gbt_dataset *d;
    gbt_booster *b;
    struct jmodel m = {0};
    float *phi, *ia = NULL, *ap = NULL;
    uint64_t len = 0, ilen = 0, alen = 0;
    double *v = malloc(sizeof(double) << C), *want = malloc((C + 1) * sizeof *want), worst = 0, worst_i = 0,
           worst_a = 0, *sa = malloc((C + 1) * sizeof *sa);
    int K, good;
    tu_seed(77 + (uint64_t)C);
    tu_data(N, C, 0.1, task, x, y);
    b = train(x, y, N, C, rounds, p, &d);
    good = b && read_model(b, &m) && m.nfeat == C;
    K = good ? m.K : 1;
    phi = good ? predict(b, d, GBT_PREDICT_CONTRIBS, 0, 0, &len) : NULL;
    if (inter && good) ia = predict(b, d, GBT_PREDICT_INTERACTIONS, 0, 0, &ilen);
    if (good) ap = predict(b, d, GBT_PREDICT_CONTRIBS | GBT_PREDICT_APPROX, 0, 0, &alen);
    good = good && phi && len == (uint64_t)N * K * (C + 1) && ap && alen == len &&
           (!inter || (ia && ilen == (uint64_t)N * K * (C + 1) * (C + 1)));
    for (int r = 0; good && r < T; r++)
        for (int k = 0; k < K; k++) {
            const float *row = phi + ((uint64_t)r * K + k) * (C + 1);
            game(&m, k, x + r * C, v);
            shapley(v, C, want);
            want[C] += m.base[k];
            for (int j = 0; j <= C; j++) {
                double e = fabs(row[j] - want[j]) / (fabs(want[j]) > 1 ? fabs(want[j]) : 1);
                if (e > worst) worst = e;
            }
            /* Saabas: the node means (every feature unknown) along the row's path */
            memset(sa, 0, (C + 1) * sizeof *sa);
            sa[C] = m.base[k];
            for (int u = 0; u < m.ntrees; u++) {
                const struct jtree *t = &m.t[u];
                int i = 0;
                if (t->cls != k) continue;
                sa[C] += cond_value(t, 0, x + r * C, 0);
                while (t->left[i] >= 0) {
                    const int c = goes_left(t, i, x + r * C) ? t->left[i] : t->right[i];
                    sa[t->feature[i]] += cond_value(t, c, x + r * C, 0) - cond_value(t, i, x + r * C, 0);
                    i = c;
                }
            }
            for (int j = 0; j <= C; j++) {
                const double e =
                    fabs(ap[((uint64_t)r * K + k) * (C + 1) + j] - sa[j]) / (fabs(sa[j]) > 1 ? fabs(sa[j]) : 1);
                if (e > worst_a) worst_a = e;
            }
            if (!inter) continue;
            for (int i = 0; i < C; i++) {
                const float *irow = ia + (((uint64_t)r * K + k) * (C + 1) + i) * (C + 1);
                double off = 0;
                for (int j = 0; j < C; j++) {
                    double w = 0;
                    if (j == i) continue;
                    for (unsigned s = 0; s < 1u << C; s++) {
                        int n;
                        if ((s >> i & 1u) || (s >> j & 1u)) continue;
                        n = __builtin_popcount(s);
                        w += fact(n) * fact(C - n - 2) / (2 * fact(C - 1)) *
                             (v[s | 1u << i | 1u << j] - v[s | 1u << i] - v[s | 1u << j] + v[s]);
                    }
                    off += w;
                    if (fabs(irow[j] - w) / (fabs(w) > 1 ? fabs(w) : 1) > worst_i)
                        worst_i = fabs(irow[j] - w) / (fabs(w) > 1 ? fabs(w) : 1);
                }
                {
                    double dd = want[i] - off;
                    if (fabs(irow[i] - dd) / (fabs(dd) > 1 ? fabs(dd) : 1) > worst_i)
                        worst_i = fabs(irow[i] - dd) / (fabs(dd) > 1 ? fabs(dd) : 1);
                    if (irow[C] != 0.0f) worst_i = 1;
                }
            }
        }
    ok(good && worst <= 1e-6, "%s: SHAP values of %d rows = Shapley values from all %d subsets (worst relative "
       "error %.2g)", what, T, 1 << C, worst);
    ok(good && worst_a <= 1e-6, "%s: approx_contribs = Saabas' path attributions of the node means (worst %.2g)",
       what, worst_a);
    if (inter) {
        ok(good && worst_i <= 1e-6, "%s: SHAP interaction values = Shapley interaction index (worst %.2g)", what,
           worst_i);
        /* XGBoost 3.2's approximate interactions (checked there): the approximate values on the diagonal */
        uint64_t dlen = 0, off = 0;
        float *di = good ? predict(b, d, GBT_PREDICT_INTERACTIONS | GBT_PREDICT_APPROX, 0, 0, &dlen) : NULL;
        int diag_ok = di && dlen == ilen;
        for (uint64_t q = 0; diag_ok && q < (uint64_t)N * K; q++)
            for (int i = 0; i <= C; i++)
                for (int j = 0; j <= C; j++) {
                    const float got = di[(q * (C + 1) + i) * (C + 1) + j];
                    if (i == j ? got != ap[q * (C + 1) + i] : got != 0) off++;
                }
        ok(diag_ok && off == 0, "%s: approximate interactions are the approximate values on the diagonal "
           "(%llu entries off)", what, (unsigned long long)off);
        free(di);
        ok(gbt_booster_predict_size(b, 1, GBT_PREDICT_APPROX, &alen) == GBT_E_INVALID_ARG &&
               strstr(gbt_last_error(), "goes with GBT_PREDICT_CONTRIBS"),
           "%s: GBT_PREDICT_APPROX alone is refused: %s", what, gbt_last_error());
    }
    free(ap);
    free(sa);
    free(phi);
    free(ia);
    free(v);
    free(want);
    free(m.t);
    gbt_booster_free(b);
    gbt_dataset_free(d);
    free(x);
    free(y);
}

static void test_brute(void)
{
    const char *const reg[] = {"max_depth=6", "eta=0.5", "verbosity=0", NULL};
    const char *const bin[] = {"objective=binary:logistic", "max_depth=4", "base_score=0.3", "verbosity=0", NULL};
    const char *const mc[] = {"objective=multi:softprob", "num_class=3", "max_depth=3", "verbosity=0", NULL};
    const char *const lg[] = {"grow_policy=lossguide", "max_leaves=12", "max_depth=0", "verbosity=0", NULL};
    const char *const tiny[] = {"max_depth=3", "eta=0.7", "verbosity=0", NULL};
    check_brute("reg:squarederror, depth 6, 8 features", reg, 8, 0, 5, 0);
    check_brute("binary:logistic, depth 4, 6 features", bin, 6, 1, 6, 0);
    check_brute("multi:softprob, 3 classes, 5 features", mc, 5, 3, 3, 1);
    check_brute("lossguide, 7 features", lg, 7, 0, 3, 0);
    check_brute("tiny model, 4 features", tiny, 4, 0, 3, 1);
}

/* ---- sums, every objective ------------------------------------------------ */

static void test_sums(void)
{
    static const char *const objs[] = {
        "reg:squarederror", "reg:logistic", "binary:logistic", "binary:logitraw", "multi:softmax",
        "multi:softprob", "count:poisson", "reg:gamma", "reg:tweedie", "reg:squaredlogerror",
        "reg:pseudohubererror", "binary:hinge"};
    enum { C = 12 };
    const int N = quick >= 2 ? 100 : 400;
    for (size_t o = 0; o < sizeof objs / sizeof *objs; o++) {
        char obj[64];
        const int mc = strncmp(objs[o], "multi", 5) == 0;
        const int task = mc ? 4 : strstr(objs[o], "logi") || strstr(objs[o], "hinge") ? 1 : 0;
        const char *const p[] = {obj, mc ? "num_class=4" : "verbosity=0", "max_depth=5", "verbosity=0", NULL};
        float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y);
        gbt_dataset *d, *csr;
        gbt_booster *b;
        float *margin, *phi, *phi_csr, *ia = NULL;
        uint64_t len = 0;
        const int K = mc ? 4 : 1;
        double worst = 0, worst_i = 0;
        int good;
        snprintf(obj, sizeof obj, "objective=%s", objs[o]);
        tu_seed(300 + o);
        tu_data(N, C, 0.2, task, x, y);
        for (int r = 0; r < N; r++)
            if (!mc && !(task == 1)) y[r] = fabsf(y[r]) + 0.5f; /* positive labels for the log links */
        b = train(x, y, N, C, 6, p, &d);
        csr = tu_to_csr(x, y, N, C);
        margin = b ? predict(b, d, GBT_PREDICT_MARGIN, 0, 0, NULL) : NULL;
        phi = b ? predict(b, d, GBT_PREDICT_CONTRIBS, 0, 0, &len) : NULL;
        phi_csr = b ? predict(b, csr, GBT_PREDICT_CONTRIBS, 0, 0, NULL) : NULL;
        if (o % 4 == 0 || mc) ia = b ? predict(b, d, GBT_PREDICT_INTERACTIONS, 0, 0, NULL) : NULL;
        good = margin && phi && phi_csr && len == (uint64_t)N * K * (C + 1) && (ia || !(o % 4 == 0 || mc));
        for (int r = 0; good && r < N; r++)
            for (int k = 0; k < K; k++) {
                const float *row = phi + ((uint64_t)r * K + k) * (C + 1);
                double s = 0, e;
                for (int j = 0; j <= C; j++) s += row[j];
                e = fabs(s - margin[r * K + k]) / (fabs(margin[r * K + k]) > 1 ? fabs(margin[r * K + k]) : 1);
                if (e > worst) worst = e;
                for (int i = 0; ia && i <= C; i++) {
                    const float *irow = ia + (((uint64_t)r * K + k) * (C + 1) + i) * (C + 1);
                    double si = 0;
                    for (int j = 0; j <= C; j++) si += irow[j];
                    e = fabs(si - row[i]) / (fabs(row[i]) > 1 ? fabs(row[i]) : 1);
                    if (e > worst_i) worst_i = e;
                }
            }
        ok(good && worst <= 1e-6 && memcmp(phi, phi_csr, len * sizeof *phi) == 0,
           "%s: SHAP values sum to the margin on every row (worst relative error %.2g), dense = CSR", objs[o],
           worst);
        if (ia) ok(worst_i <= 1e-6, "%s: interaction rows sum to the SHAP values (worst %.2g)", objs[o], worst_i);
        free(margin);
        free(phi);
        free(phi_csr);
        free(ia);
        gbt_booster_free(b);
        gbt_dataset_free(d);
        gbt_dataset_free(csr);
        free(x);
        free(y);
    }
}

/* A base margin replaces the base score in the bias term. */
static void test_base_margin(void)
{
    const char *const p[] = {"max_depth=3", "verbosity=0", NULL};
    enum { N = 200, C = 5 };
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y), bm[N];
    gbt_dataset *d;
    gbt_booster *b;
    float *a, *m2, *c;
    int good = 1;
    tu_seed(9);
    tu_data(N, C, 0.0, 0, x, y);
    b = train(x, y, N, C, 4, p, &d);
    a = predict(b, d, GBT_PREDICT_CONTRIBS, 0, 0, NULL);
    for (int r = 0; r < N; r++) bm[r] = (float)(r % 7) - 3.0f;
    gbt_dataset_set_field(d, "base_margin", bm, N);
    c = predict(b, d, GBT_PREDICT_CONTRIBS, 0, 0, NULL);
    m2 = predict(b, d, GBT_PREDICT_MARGIN, 0, 0, NULL);
    good = a && c && m2;
    for (int r = 0; good && r < N; r++) {
        double s = 0;
        good &= memcmp(a + r * (C + 1), c + r * (C + 1), C * sizeof *a) == 0;
        for (int j = 0; j <= C; j++) s += c[r * (C + 1) + j];
        good &= fabs(s - m2[r]) <= 1e-6 * (fabs(m2[r]) > 1 ? fabs(m2[r]) : 1);
    }
    ok(good, "a base margin moves only the bias term, and the values still sum to the margin");
    free(a);
    free(c);
    free(m2);
    gbt_booster_free(b);
    gbt_dataset_free(d);
    free(x);
    free(y);
}

/* ---- round ranges ----------------------------------------------------------- */

static void test_rounds(void)
{
    const char *const p[] = {"objective=multi:softprob", "num_class=3", "max_depth=4", "verbosity=0", NULL};
    enum { N = 600, C = 6, R = 7, k = 3 };
    static const unsigned flags[] = {0, GBT_PREDICT_MARGIN, GBT_PREDICT_LEAF, GBT_PREDICT_CONTRIBS,
                                     GBT_PREDICT_INTERACTIONS};
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y);
    gbt_dataset *d, *csr;
    gbt_booster *full, *part;
    struct jmodel m = {0};
    uint64_t l = 0;
    int rounds = 0;
    tu_seed(31);
    tu_data(N, C, 0.1, 3, x, y);
    full = train(x, y, N, C, R, p, &d);
    part = train(x, y, N, C, k, p, NULL);
    csr = tu_to_csr(x, y, N, C);
    gbt_booster_num_rounds(full, &rounds);
    for (size_t f = 0; f < sizeof flags / sizeof *flags; f++) {
        uint64_t l1 = 0, l2 = 0, l3 = 0;
        float *a = predict(full, d, flags[f], 0, k, &l1), *b = predict(part, d, flags[f], 0, 0, &l2);
        float *c = predict(full, csr, flags[f], 0, k, &l3);
        ok(a && b && c && l1 == l2 && l1 == l3 && memcmp(a, b, l1 * sizeof *a) == 0 &&
               memcmp(a, c, l1 * sizeof *a) == 0,
           "flags 0x%x: rounds [0, %d) of a %d-round model = the model trained for %d rounds (%llu floats, the "
           "same bits, dense and CSR)",
           flags[f], k, R, k, (unsigned long long)l1);
        free(a);
        free(b);
        free(c);
    }
    {
        float *all = predict(full, d, GBT_PREDICT_MARGIN, 0, 0, &l), *all2 = predict(full, d, GBT_PREDICT_MARGIN, 0, R, NULL);
        float *mid = predict(full, d, GBT_PREDICT_MARGIN, 2, 5, NULL), *none = predict(full, d, GBT_PREDICT_MARGIN, 4, 4, NULL);
        float *tail = predict(full, d, 0, 5, 0, NULL);
        float *dense = malloc((size_t)N * 3 * sizeof *dense);
        int same = all && all2 && mid && none && tail && read_model(full, &m) && memcmp(all, all2, l * sizeof *all) == 0;
        for (int r = 0; same && r < N; r++)
            for (int c = 0; c < 3; c++) {
                double s = m.base[c], z = m.base[c];
                for (int t = 2 * 3; t < 5 * 3; t++)
                    if (m.t[t].cls == c) s += m.t[t].value[leaf_of(&m.t[t], x + r * C)];
                same &= mid[r * 3 + c] == (float)s && none[r * 3 + c] == (float)z;
            }
        ok(same, "margins of rounds [2, 5) = the base score plus those rounds' trees walked by hand; [4, 4) = the "
                 "base score; (0, R) = (0, 0)");
        ok(gbt_booster_predict_dense_rounds(full, x, N, C, NAN, GBT_PREDICT_MARGIN, 2, 5, dense, (uint64_t)N * 3) ==
                   GBT_OK &&
               mid && memcmp(dense, mid, (size_t)N * 3 * sizeof *dense) == 0,
           "gbt_booster_predict_dense_rounds = gbt_booster_predict_rounds");
        free(all);
        free(all2);
        free(mid);
        free(none);
        free(tail);
        free(dense);
        free(m.t);
    }
    {
        float out[64];
        uint64_t len;
        ok(gbt_booster_predict_size_rounds(full, 1, 0, 3, 2, &len) == GBT_E_INVALID_ARG &&
               gbt_booster_predict_size_rounds(full, 1, 0, 0, R + 1, &len) == GBT_E_INVALID_ARG &&
               gbt_booster_predict_size_rounds(full, 1, 0, -1, 2, &len) == GBT_E_INVALID_ARG &&
               gbt_booster_predict_rounds(full, d, 0, 2, 1, out, 64) == GBT_E_INVALID_ARG,
           "ranges that are not [begin, end) within the rounds are GBT_E_INVALID_ARG (%s)", gbt_last_error());
        ok(gbt_booster_predict_size(full, 1, GBT_PREDICT_LEAF | GBT_PREDICT_CONTRIBS, &len) == GBT_E_INVALID_ARG &&
               gbt_booster_predict_size(full, 1, 32u, &len) == GBT_E_INVALID_ARG,
           "two explanation flags at once, and unknown flags, are GBT_E_INVALID_ARG (%s)", gbt_last_error());
        ok(gbt_booster_predict_size(full, 10, GBT_PREDICT_LEAF, &len) == GBT_OK && len == 10u * 3 * R &&
               gbt_booster_predict_size_rounds(full, 10, GBT_PREDICT_LEAF, 1, 3, &len) == GBT_OK && len == 10u * 3 * 2 &&
               gbt_booster_predict_size(full, 10, GBT_PREDICT_CONTRIBS, &len) == GBT_OK && len == 10u * 3 * (C + 1) &&
               gbt_booster_predict_size(full, 10, GBT_PREDICT_INTERACTIONS, &len) == GBT_OK &&
               len == 10u * 3 * (C + 1) * (C + 1),
           "sizes: leaf ids K * rounds, SHAP values K * (F + 1), interactions K * (F + 1)^2 per row");
        ok(gbt_booster_predict(full, d, GBT_PREDICT_CONTRIBS, out, 64) == GBT_E_INVALID_ARG,
           "an output too small for SHAP values is GBT_E_INVALID_ARG");
    }
    gbt_booster_free(full);
    gbt_booster_free(part);
    gbt_dataset_free(d);
    gbt_dataset_free(csr);
    free(x);
    free(y);
}

/* The same outputs on 1 and 3 threads, and from a loaded model. */
static void test_threads(void)
{
    /* interaction values cost depth^2 per leaf: depth 4 when quick */
    const char *const p[] = {quick >= 2 ? "max_depth=4" : "max_depth=6", "verbosity=0", "nthread=1", NULL};
    enum { N = 2000, C = 9 };
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y);
    gbt_dataset *d;
    gbt_booster *b, *b2 = NULL;
    char *buf;
    size_t len;
    float *a, *c, *e;
    uint64_t l = 0;
    tu_seed(4);
    tu_data(N, C, 0.1, 0, x, y);
    b = train(x, y, N, C, 8, p, &d);
    a = predict(b, d, GBT_PREDICT_INTERACTIONS, 0, 0, &l);
    gbt_booster_set_param(b, "nthread", "3");
    c = predict(b, d, GBT_PREDICT_INTERACTIONS, 0, 0, NULL);
    buf = tu_model(b, &len);
    gbt_booster_load_from_buffer(buf, len, &b2);
    e = b2 ? predict(b2, d, GBT_PREDICT_INTERACTIONS, 0, 0, NULL) : NULL;
    ok(a && c && e && memcmp(a, c, l * sizeof *a) == 0 && memcmp(a, e, l * sizeof *a) == 0,
       "interaction values: the same bits on 1 and 3 threads and from the saved model");
    gbt_free(buf);
    free(a);
    free(c);
    free(e);
    gbt_booster_free(b);
    gbt_booster_free(b2);
    gbt_dataset_free(d);
    free(x);
    free(y);
}

int main(void)
{
    quick = getenv("GBT_TEST_QUICK") ? atoi(getenv("GBT_TEST_QUICK")) : 0;
    if (quick >= 2) diag("GBT_TEST_QUICK=%d: fewer rows in the brute-force and sum checks", quick);
    test_leaves();
    test_brute();
    test_sums();
    test_base_margin();
    test_rounds();
    test_threads();
    return done_testing();
}
