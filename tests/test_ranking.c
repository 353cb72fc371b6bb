/*
 * test_ranking.c - the learning-to-rank objectives and the ranking metrics.
 *
 * Gradients: gbt_rank_group_gradients (common/rank_math.h) against a
 * brute-force LambdaMART written here from the definitions: every pair of
 * documents with different labels, the metric change of swapping them
 * computed by recomputing the whole DCG or AP of the swapped ranking, the
 * pair counted when its higher position lies in the top k.  Pair sampling
 * (mean): the pair count, determinism and the seed's effect.
 *
 * Metrics: ndcg, ndcg@k, ndcg@k-, ndcg-, map, map@k, map@k-, pre@k, auc
 * per query and aucpr, with and without group weights, against the values
 * XGBoost 3.2.0 computes for the same scores (tests/ranking_expected.py
 * prints the table below), and a few values worked out by hand.
 *
 * Checks: a ranking objective without groups, bad labels, weights that
 * differ within a group: errors that name the fix or the row; weights
 * given one per query group (XGBoost's form).  Training:
 * rank:ndcg, rank:map and rank:pairwise learn on datasets/rank.*, the
 * model round-trips, and gbt_booster_eval scores per query.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rank_math.h"
#include "data/dataset.h"
#include "gbt.h"
#include "metric/metric.h"
#include "params/params.h"
#include "params/rank.h"
#include "tap.h"

/* ---- brute-force LambdaMART ------------------------------------------- */

/* Position of document a in the ranking by score descending, ties by index. */
static int position(const double *s, int n, int a)
{
    int p = 0;
    for (int i = 0; i < n; i++)
        if (s[i] > s[a] || (s[i] == s[a] && i < a)) p++;
    return p;
}

/* DCG over the whole list of the ranking given by pos[] (document -> position). */
static double full_dcg(const float *y, const int *pos, int n, int exp_gain)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d += (exp_gain ? pow(2.0, y[i]) - 1.0 : y[i]) / log2(pos[i] + 2.0);
    return d;
}

/* Average precision over the whole list (binary labels). */
static double full_ap(const float *y, const int *pos, int n)
{
    double hits = 0.0, ap = 0.0, rel = 0.0;
    for (int i = 0; i < n; i++) rel += y[i];
    for (int p = 0; p < n; p++)
        for (int i = 0; i < n; i++)
            if (pos[i] == p && y[i] > 0) {
                hits += 1.0;
                ap += hits / (p + 1.0);
            }
    return rel > 0 ? ap / rel : 0.0;
}

/* Ideal DCG of the first k labels. */
static double ideal_dcg(const float *y, int n, int k, int exp_gain)
{
    float s[64];
    double d = 0.0;
    memcpy(s, y, (size_t)n * sizeof *s);
    for (int i = 0; i < n; i++) /* selection sort, descending */
        for (int j = i + 1; j < n; j++)
            if (s[j] > s[i]) {
                float t = s[i];
                s[i] = s[j];
                s[j] = t;
            }
    for (int i = 0; i < n && i < k; i++) d += (exp_gain ? pow(2.0, s[i]) - 1.0 : s[i]) / log2(i + 2.0);
    return d;
}

static void brute_lambdas(int obj, int k, int exp_gain, int norm, int score_norm, double w,
                          const double *s, const float *y, int n, double *g, double *h)
{
    int pos[64];
    double idcg = ideal_dcg(y, n, k, exp_gain), lsum = 0.0, best = -INFINITY, worst = INFINITY;
    for (int i = 0; i < n; i++) {
        pos[i] = position(s, n, i);
        g[i] = h[i] = 0.0;
        if (s[i] > best) best = s[i];
        if (s[i] < worst) worst = s[i];
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            int sw[64];
            double dz, p, lambda;
            if (!(y[a] > y[b])) continue;
            if (pos[a] >= k && pos[b] >= k) continue; /* topk: the pair's first position in the top k */
            memcpy(sw, pos, sizeof sw);
            sw[a] = pos[b];
            sw[b] = pos[a];
            if (obj == GBT_OBJ_RANK_NDCG)
                dz = idcg > 0 ? fabs(full_dcg(y, pos, n, exp_gain) - full_dcg(y, sw, n, exp_gain)) / idcg : 0.0;
            else if (obj == GBT_OBJ_RANK_MAP)
                dz = fabs(full_ap(y, pos, n) - full_ap(y, sw, n));
            else
                dz = 1.0;
            if (score_norm && best != worst) dz /= fabs(s[a] - s[b]) + 0.01;
            p = 1.0 / (1.0 + exp(-(s[a] - s[b])));
            lambda = (p - 1.0) * dz;
            g[a] += lambda;
            g[b] -= lambda;
            h[a] += fmax(p * (1.0 - p), 1e-16) * dz * 2.0;
            h[b] += fmax(p * (1.0 - p), 1e-16) * dz * 2.0;
            lsum += -2.0 * lambda;
        }
    for (int i = 0; i < n; i++) {
        double f = norm && lsum > 0 ? log2(1.0 + lsum) / lsum : 1.0;
        g[i] *= f * w;
        h[i] *= f * w;
    }
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (1.0 + fabs(b));
}

static void rank_group(int obj, const struct gbt_obj_param *op, uint64_t seed, int round, int n,
                       const double *s, const float *y, double w, double *g, double *h)
{
    uint32_t idx[3 * 64];
    double st[2 * 64];
    struct gbt_rank_scratch sc = {idx, idx + n, idx + 2 * n, st, st + n};
    gbt_rank_group_gradients(obj, op, seed, round, 0, (uint32_t)n, s, y, w, &sc, NULL, g, h);
}

static void test_gradients(void)
{
    /* 9 documents, a tie in score, graded labels; binary labels for map */
    static const double s[9] = {0.3, -0.5, 1.2, 0.3, 0.0, 2.1, -1.0, 0.7, 0.3};
    static const float graded[9] = {2, 0, 1, 3, 0, 1, 4, 0, 2};
    static const float binary[9] = {1, 0, 0, 1, 0, 1, 1, 0, 0};
    static const int objs[3] = {GBT_OBJ_RANK_PAIRWISE, GBT_OBJ_RANK_NDCG, GBT_OBJ_RANK_MAP};
    static const int ks[3] = {32, 3, 1};
    for (int o = 0; o < 3; o++)
        for (int ki = 0; ki < 3; ki++)
            for (int variant = 0; variant < 4; variant++) {
                struct gbt_obj_param op;
                const float *y = objs[o] == GBT_OBJ_RANK_MAP ? binary : graded;
                double g[9], h[9], bg[9], bh[9];
                int good = 1;
                memset(&op, 0, sizeof op);
                op.rank_method = GBT_RANK_TOPK;
                op.rank_num_pair = (uint32_t)ks[ki];
                op.rank_exp_gain = variant != 3;
                op.rank_normalization = variant != 1;
                op.rank_score_norm = variant != 2;
                op.rank_wnorm = 1.0;
                rank_group(objs[o], &op, 0, 0, 9, s, y, 1.5, g, h);
                brute_lambdas(objs[o], ks[ki], op.rank_exp_gain, op.rank_normalization, op.rank_score_norm,
                              1.5, s, y, 9, bg, bh);
                for (int i = 0; i < 9; i++) {
                    if (!close_to(g[i], bg[i]) || !close_to(h[i], bh[i])) {
                        diag("row %d: g %.17g vs %.17g, h %.17g vs %.17g", i, g[i], bg[i], h[i], bh[i]);
                        good = 0;
                    }
                }
                ok(good, "%s topk k=%d%s%s%s: gradients = brute force over pairs",
                   objs[o] == GBT_OBJ_RANK_PAIRWISE ? "rank:pairwise"
                   : objs[o] == GBT_OBJ_RANK_NDCG   ? "rank:ndcg"
                                                    : "rank:map",
                   ks[ki], variant == 1 ? ", no normalization" : "",
                   variant == 2 ? ", no score normalization" : "", variant == 3 ? ", linear gain" : "");
            }
    {
        /* equal scores (the first round): no score normalization, sigmoid 1/2 */
        static const double z[4] = {0, 0, 0, 0};
        static const float y[4] = {0, 1, 0, 2};
        struct gbt_obj_param op;
        double g[4], h[4];
        memset(&op, 0, sizeof op);
        op.rank_num_pair = 32;
        op.rank_score_norm = 1;
        op.rank_wnorm = 1.0;
        rank_group(GBT_OBJ_RANK_PAIRWISE, &op, 0, 0, 4, z, y, 1.0, g, h);
        /* by hand: 5 pairs with different labels, each lambda -1/2, hessian 1/2 per side */
        ok(g[3] == -1.5 && g[1] == -0.5 && g[0] == 1.0 && g[2] == 1.0 && h[3] == 1.5 &&
               h[1] == 1.5 && h[0] == 1.0 && h[2] == 1.0,
           "rank:pairwise at equal scores, by hand: g = (1, -0.5, 1, -1.5), h = (1, 1.5, 1, 1.5)");
    }
    {
        /* mean: k pairs per document with a partner of another label, seeded */
        static const float y[12] = {0, 1, 0, 2, 1, 0, 0, 3, 1, 0, 2, 0};
        double z[12] = {0}, g[12], h[12], g2[12], h2[12], g3[12], h3[12], hs = 0.0, gs = 0.0;
        struct gbt_obj_param op;
        int same = 1, differ = 0;
        memset(&op, 0, sizeof op);
        op.rank_method = GBT_RANK_MEAN;
        op.rank_num_pair = 3;
        op.rank_wnorm = 1.0;
        rank_group(GBT_OBJ_RANK_PAIRWISE, &op, 42, 5, 12, z, y, 1.0, g, h);
        rank_group(GBT_OBJ_RANK_PAIRWISE, &op, 42, 5, 12, z, y, 1.0, g2, h2);
        rank_group(GBT_OBJ_RANK_PAIRWISE, &op, 42, 6, 12, z, y, 1.0, g3, h3);
        for (int i = 0; i < 12; i++) {
            hs += h[i];
            gs += g[i];
            same &= g[i] == g2[i] && h[i] == h2[i];
            differ |= g[i] != g3[i];
        }
        /* every pair has different labels: 12 documents x 3 pairs, each adding 2 x 1/2 to the hessians */
        ok(hs == 36.0 && fabs(gs) < 1e-12, "mean: 12 x 3 sampled pairs (hessian sum %g, gradient sum %g)", hs, gs);
        ok(same && differ, "mean: the same pairs for the same (seed, round, group), others for another round");
        op.rank_normalization = 1;
        rank_group(GBT_OBJ_RANK_PAIRWISE, &op, 42, 5, 12, z, y, 1.0, g2, h2);
        ok(fabs(g2[3] - g[3] / 3.0) < 1e-15 && fabs(h2[7] - h[7] / 3.0) < 1e-15,
           "mean with lambdarank_normalization: gradients / k");
    }
}

/* ---- metrics ------------------------------------------------------------- */

/* The data of tests/ranking_expected.py. */
static const uint32_t sizes[5] = {4, 6, 5, 2, 3};
static const double score[20] = {0.5, -0.2, 0.5, 1.0, 0.1, 0.9, -0.3, 0.4, 0.4, 0.0,
                                 2.0, 1.0, 0.0, -1.0, 0.5, 0.3, 0.2, 0.7, -0.1, 0.2};
static const float grade[20] = {1, 0, 2, 0, 3, 0, 1, 2, 0, 1, 0, 0, 0, 0, 0, 1, 0, 2, 0, 1};
static const float group_w[5] = {1.0f, 2.0f, 0.5f, 1.5f, 3.0f};

/*
 * XGBoost 3.2.0's Booster.eval of these scores (as base_margin, 0 rounds;
 * weights per group): python3 tests/ranking_expected.py.  labels:
 * "grade" or "binary" (grade >= 1); mode 0: groups, exp gain; 1: groups,
 * ndcg_exp_gain=false; 2: no groups (binary:logistic).
 */
static const struct {
    const char *metric, *labels;
    int weighted, mode;
    double value;
} xgb[] = {
    {"ndcg", "grade", 0, 0, 0.83241913260847622},
    {"ndcg", "grade", 1, 0, 0.90466358183113016},
    {"ndcg@3", "grade", 0, 0, 0.75767956266724446},
    {"ndcg@3", "grade", 1, 0, 0.81123911940459048},
    {"ndcg@3-", "grade", 0, 0, 0.55767956266724439},
    {"ndcg@3-", "grade", 1, 0, 0.68623911940459048},
    {"ndcg-", "grade", 0, 0, 0.63241913260847615},
    {"ndcg-", "grade", 1, 0, 0.77966358183113016},
    {"ndcg@1", "grade", 0, 0, 0.59999999999999998},
    {"ndcg@1", "grade", 1, 0, 0.6875},
    {"auc", "grade", 0, 0, 0.64583333333333337},
    {"auc", "grade", 1, 0, 0.64583333333333337},
    {"ndcg@3", "grade", 0, 1, 0.77697984962903832},
    {"ndcg", "binary", 0, 0, 0.87958642527353992},
    {"ndcg", "binary", 1, 0, 0.95030473113976588},
    {"ndcg@3", "binary", 0, 0, 0.79790166291662723},
    {"ndcg@3", "binary", 1, 0, 0.8481987781936251},
    {"ndcg@3-", "binary", 0, 0, 0.59790166291662727},
    {"ndcg@3-", "binary", 1, 0, 0.7231987781936251},
    {"ndcg-", "binary", 0, 0, 0.67958642527353985},
    {"ndcg-", "binary", 1, 0, 0.82530473113976588},
    {"ndcg@1", "binary", 0, 0, 0.59999999999999998},
    {"ndcg@1", "binary", 1, 0, 0.6875},
    {"map", "binary", 0, 0, 0.83000000000000007},
    {"map", "binary", 1, 0, 0.83958333333333335},
    {"map@2", "binary", 0, 0, 0.69999999999999996},
    {"map@2", "binary", 1, 0, 0.71875},
    {"map@2-", "binary", 0, 0, 0.5},
    {"map@2-", "binary", 1, 0, 0.65625},
    {"pre@2", "binary", 0, 0, 0.5},
    {"pre@2", "binary", 1, 0, 0.65625},
    {"pre@5", "binary", 0, 0, 0.45333333333333331},
    {"pre@5", "binary", 1, 0, 0.55625000000000002},
    {"aucpr", "binary", 0, 0, 0.7276142493360539},
    {"aucpr", "binary", 1, 0, 0.7276142493360539},
    {"auc", "binary", 0, 0, 0.62916666666666665},
    {"auc", "binary", 1, 0, 0.62916666666666665},
    {"ndcg@3", "binary", 0, 1, 0.79790166291662723},
    {"aucpr", "binary", 0, 2, 0.38055755311604},
    {"auc", "binary", 0, 2, 0.43939393939393939},
};

static gbt_dataset *metric_data(const float *label, int groups, int weighted)
{
    gbt_dataset *d = NULL;
    float x[20], w[20];
    for (int i = 0, r = 0; i < 5; i++)
        for (uint32_t j = 0; j < sizes[i]; j++, r++) w[r] = group_w[i];
    for (int r = 0; r < 20; r++) x[r] = (float)r;
    if (gbt_dataset_from_dense(x, 20, 1, NAN, &d) != GBT_OK) return NULL;
    gbt_dataset_set_field(d, "label", label, 20);
    if (weighted) gbt_dataset_set_field(d, "weight", w, 20);
    if (groups) gbt_dataset_set_groups(d, sizes, 5);
    return d;
}

static void test_metrics_xgboost(void)
{
    float binary[20];
    for (int r = 0; r < 20; r++) binary[r] = grade[r] >= 1 ? 1.0f : 0.0f;
    for (size_t i = 0; i < sizeof xgb / sizeof xgb[0]; i++) {
        const float *label = strcmp(xgb[i].labels, "grade") == 0 ? grade : binary;
        gbt_dataset *d = metric_data(label, xgb[i].mode != 2, xgb[i].weighted);
        struct gbt_metric m;
        double v = NAN;
        gbt_status s = gbt__metric_parse(xgb[i].metric, &m);
        m.exp_gain = xgb[i].mode != 1;
        if (s == GBT_OK && d)
            s = gbt__metric_eval_data(&m, xgb[i].mode == 2 ? GBT_OBJ_BINARY_LOGISTIC : GBT_OBJ_RANK_PAIRWISE,
                                      1, score, d, 2, &v);
        if (s != GBT_OK) diag("%s", gbt_last_error());
        ok(s == GBT_OK && fabs(v - xgb[i].value) <= 1e-6, "%s on %s labels%s%s = XGBoost's %.6f (%.9f)",
           xgb[i].metric, xgb[i].labels, xgb[i].weighted ? ", group weights" : "",
           xgb[i].mode == 1 ? ", ndcg_exp_gain=false" : xgb[i].mode == 2 ? ", no groups" : "",
           xgb[i].value, v);
        gbt_dataset_free(d);
    }
}

static double eval1(const char *name, const double *s, const float *y, const uint32_t *ptr, uint64_t ng,
                    uint64_t n)
{
    struct gbt_metric m;
    double v = NAN;
    if (gbt__metric_parse(name, &m) != GBT_OK) return NAN;
    if (gbt__metric_rank_eval(&m, s, y, NULL, ptr, ng, n, &v) != GBT_OK) return NAN;
    return v;
}

static void test_metrics_by_hand(void)
{
    /* one query: scores order the rows 2, 0, 1; labels 2, 0, 1 at rows 0, 1, 2 */
    static const double s[3] = {0.5, 0.1, 0.9};
    static const float y[3] = {2, 0, 1};
    static const float yb[3] = {1, 0, 1};
    static const uint32_t one[2] = {0, 3};
    /* DCG = 1/log2(2) + 3/log2(3); IDCG = 3 + 1/log2(3) */
    const double dcg = 1.0 + 3.0 / log2(3.0), idcg = 3.0 + 1.0 / log2(3.0);
    ok(fabs(eval1("ndcg", s, y, one, 1, 3) - dcg / idcg) < 1e-15, "ndcg of one query by hand");
    /* @1: gain 1 over 3 */
    ok(fabs(eval1("ndcg@1", s, y, one, 1, 3) - 1.0 / 3.0) < 1e-15, "ndcg@1 by hand");
    /* relevant at positions 1 and 2 of 3: (1/1 + 2/2) / 2 = 1 */
    ok(eval1("map", s, yb, one, 1, 3) == 1.0, "map by hand: both relevant rows first");
    /* pre@2: both of the first two relevant; pre@3: 2 of 3 */
    ok(eval1("pre@2", s, yb, one, 1, 3) == 1.0 && fabs(eval1("pre@3", s, yb, one, 1, 3) - 2.0 / 3.0) < 1e-15,
       "pre@2 and pre@3 by hand");
    /* auc of the query: pairs by label (2,0) (2,1) (1,0): 1, 0, 1 -> 2/3 */
    ok(fabs(eval1("aucpr", s, yb, one, 1, 3) - 1.0) < 1e-15, "aucpr of a perfect ranking: 1");
    {
        struct gbt_metric m;
        double v = NAN;
        gbt__metric_parse("auc", &m);
        gbt__metric_rank_eval(&m, s, y, NULL, one, 1, 3, &v);
        ok(fabs(v - 2.0 / 3.0) < 1e-15, "auc per query by hand: 2 of 3 pairs ordered (%g)", v);
    }
}

static void test_metric_names(void)
{
    static const char *good[] = {"ndcg", "ndcg@5", "ndcg@5-", "ndcg-", "map", "map@10", "map@3-",
                                 "map-", "pre@5", "pre", "aucpr"};
    static const char *bad[] = {"ndcg@", "ndcg@0", "ndcg@x", "ndcg@5--", "pre@5-", "aucpr@3", "ndcgx",
                                "mapx"};
    struct gbt_metric m;
    int all = 1;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) all &= gbt__metric_parse(good[i], NULL) == GBT_OK;
    ok(all, "ranking metric names parse");
    all = 1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) all &= gbt__metric_parse(bad[i], NULL) != GBT_OK;
    ok(all, "malformed ranking metric names are refused");
    ok(gbt__metric_parse("ndcg@7-", &m) == GBT_OK && m.topk == 7 && m.minus && m.maximize &&
           gbt__metric_parse("map", &m) == GBT_OK && m.topk == 32 && !m.minus,
       "ndcg@7- is k=7 with '-'; map without @k is map@32, as XGBoost");
}

/* ---- checks --------------------------------------------------------------- */

static gbt_status train_on(gbt_dataset *d, const char *obj, const char *extra_name, const char *extra_value)
{
    gbt_booster *b = NULL;
    gbt_status s = gbt_booster_create(&b);
    if (s == GBT_OK) s = gbt_booster_set_param(b, "objective", obj);
    if (s == GBT_OK) s = gbt_booster_set_param(b, "verbosity", "0");
    if (s == GBT_OK && extra_name) s = gbt_booster_set_param(b, extra_name, extra_value);
    if (s == GBT_OK) s = gbt_booster_train(b, d, 1, NULL, NULL, 0);
    gbt_booster_free(b);
    return s;
}

static void test_checks(void)
{
    float y[20];
    gbt_dataset *d;
    gbt_status s;
    memcpy(y, grade, sizeof y);
    d = metric_data(y, 0, 0);
    s = train_on(d, "rank:ndcg", NULL, NULL);
    ok(s == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "needs query groups") &&
           strstr(gbt_last_error(), "gbt_dataset_set_groups") && strstr(gbt_last_error(), ".group"),
       "rank:ndcg without groups: an error that names the fix (%s)", gbt_last_error());
    gbt_dataset_free(d);

    y[7] = -1.0f;
    d = metric_data(y, 1, 0);
    s = train_on(d, "rank:pairwise", NULL, NULL);
    ok(s == GBT_E_FORMAT && strstr(gbt_last_error(), "row 7") && strstr(gbt_last_error(), "label -1"),
       "a negative relevance: error naming row 7 (%s)", gbt_last_error());
    gbt_dataset_free(d);

    memcpy(y, grade, sizeof y);
    y[4] = 32.0f;
    d = metric_data(y, 1, 0);
    ok(train_on(d, "rank:ndcg", NULL, NULL) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 4") &&
           strstr(gbt_last_error(), "ndcg_exp_gain=false"),
       "rank:ndcg with exp gain: label 32 refused, naming row 4 and ndcg_exp_gain=false (%s)",
       gbt_last_error());
    ok(train_on(d, "rank:ndcg", "ndcg_exp_gain", "false") == GBT_OK, "... and accepted with ndcg_exp_gain=false");
    ok(train_on(d, "rank:pairwise", NULL, NULL) == GBT_OK, "rank:pairwise takes label 32");
    gbt_dataset_free(d);

    memcpy(y, grade, sizeof y);
    d = metric_data(y, 1, 0);
    ok(train_on(d, "rank:map", NULL, NULL) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 2") &&
           strstr(gbt_last_error(), "not 0 or 1"),
       "rank:map with graded labels: error naming row 2, the first label above 1 (%s)", gbt_last_error());
    gbt_dataset_free(d);

    {
        float w[20];
        for (int r = 0; r < 20; r++) w[r] = 1.0f;
        w[9] = 2.0f; /* row 9 is in group 1, rows 4..9 */
        d = metric_data(grade, 1, 0);
        gbt_dataset_set_field(d, "weight", w, 20);
        ok(train_on(d, "rank:ndcg", NULL, NULL) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 9") &&
               strstr(gbt_last_error(), "group 1") &&
               strstr(gbt_last_error(), "equal to the number of query groups"),
           "a weight that differs within a query: error naming row 9 and XGBoost's rule (%s)",
           gbt_last_error());
        gbt_dataset_free(d);
    }
    {
        /* weights per query group (XGBoost's form): each group's rows take its weight */
        const float *got = NULL;
        uint64_t n = 0;
        int same = 1;
        d = metric_data(grade, 0, 0);
        ok(gbt_dataset_set_field(d, "weight", group_w, 5) == GBT_E_INVALID_ARG &&
               strstr(gbt_last_error(), "set the groups first"),
           "5 weights for 20 rows without groups: error saying to set the groups first (%s)",
           gbt_last_error());
        gbt_dataset_set_groups(d, sizes, 5);
        ok(gbt_dataset_set_field(d, "weight", group_w, 5) == GBT_OK &&
               gbt_dataset_get_field(d, "weight", &got, &n) == GBT_OK && n == 20,
           "5 weights for the 5 query groups are taken, read back one per row");
        for (int i = 0, r = 0; i < 5 && got; i++)
            for (uint32_t j = 0; j < sizes[i]; j++, r++) same &= got[r] == group_w[i];
        ok(same && train_on(d, "rank:ndcg", NULL, NULL) == GBT_OK,
           "every row of a group has the group's weight, and rank:ndcg trains on them");
        ok(gbt_dataset_set_field(d, "weight", group_w, 4) == GBT_E_INVALID_ARG &&
               strstr(gbt_last_error(), "4 values") && strstr(gbt_last_error(), "query groups"),
           "4 weights for 5 groups and 20 rows: error (%s)", gbt_last_error());
        gbt_dataset_free(d);
    }
    {
        struct gbt_params p;
        char buf[32];
        gbt__params_init(&p);
        gbt__rank_default_metric(GBT_OBJ_RANK_NDCG, &p, buf, sizeof buf);
        ok(strcmp(buf, "ndcg@32") == 0, "rank:ndcg's default metric: ndcg@32 (%s)", buf);
        gbt__params_set(&p, "lambdarank_pair_method", "mean", NULL);
        gbt__rank_default_metric(GBT_OBJ_RANK_MAP, &p, buf, sizeof buf);
        ok(strcmp(buf, "map") == 0 && gbt__rank_num_pair(&p) == 1,
           "rank:map with mean: map, one pair per document (%s)", buf);
        ok(gbt__params_set(&p, "ndcg_exp_gain", "maybe", NULL) == GBT_E_PARAM &&
               gbt__params_set(&p, "lambdarank_pair_method", "all", NULL) == GBT_E_PARAM &&
               gbt__params_set(&p, "lambdarank_num_pair_per_sample", "0", NULL) == GBT_E_PARAM,
           "bad ranking parameters are refused");
    }
}

/* ---- training --------------------------------------------------------------- */

/* ndcg@10 of predictions p on d, computed here: per query, the DCG of the first 10 over the ideal. */
static double my_ndcg10(const gbt_dataset *d, const float *p)
{
    double sum = 0.0;
    uint64_t r0 = 0;
    for (uint64_t g = 0; g < d->ngroups; g++) {
        const int n = (int)d->groups[g];
        double ideal;
        int pos[64];
        float y[64];
        for (int i = 0; i < n && i < 64; i++) {
            double better = 0;
            y[i] = d->label[r0 + i];
            for (int j = 0; j < n; j++)
                if (p[r0 + j] > p[r0 + i] || (p[r0 + j] == p[r0 + i] && j < i)) better++;
            pos[i] = (int)better;
        }
        ideal = ideal_dcg(y, n, 10, 1);
        {
            double dcg = 0.0;
            for (int i = 0; i < n; i++)
                if (pos[i] < 10) dcg += (pow(2.0, y[i]) - 1.0) / log2(pos[i] + 2.0);
            sum += ideal > 0 ? dcg / ideal : 1.0;
        }
        r0 += (uint64_t)n;
    }
    return sum / (double)d->ngroups;
}

static char last_line[256];

static void keep_line(int level, const char *msg, void *user)
{
    (void)level, (void)user;
    if (msg[0] == '[') snprintf(last_line, sizeof last_line, "%s", msg);
}

/* ndcg over whole lists (no truncation) of predictions p on d, computed here. */
static double my_ndcg_all(const gbt_dataset *d, const float *p)
{
    double sum = 0.0;
    uint64_t r0 = 0;
    for (uint64_t g = 0; g < d->ngroups; g++) {
        const int n = (int)d->groups[g];
        float y[64];
        double dcg = 0.0, ideal;
        for (int i = 0; i < n; i++) y[i] = d->label[r0 + i];
        ideal = ideal_dcg(y, n, n, 1);
        for (int i = 0; i < n; i++) {
            int better = 0;
            for (int j = 0; j < n; j++)
                if (p[r0 + j] > p[r0 + i] || (p[r0 + j] == p[r0 + i] && j < i)) better++;
            dcg += (pow(2.0, y[i]) - 1.0) / log2(better + 2.0);
        }
        sum += ideal > 0 ? dcg / ideal : 1.0;
        r0 += (uint64_t)n;
    }
    return sum / (double)d->ngroups;
}

/* With sampled pairs the default metric is "ndcg" over whole lists (XGBoost's), not ndcg@32. */
static void test_default_metric_mean(gbt_dataset *dt, gbt_dataset *dv)
{
    gbt_booster *b = NULL;
    const gbt_dataset *valid[1] = {dv};
    const char *names[1] = {"v"};
    float *p = malloc(dv->nrow * sizeof *p);
    double printed = NAN, mine = NAN;
    gbt_status s = gbt_booster_create(&b);
    if (s == GBT_OK) s = gbt_booster_set_param(b, "objective", "rank:ndcg");
    if (s == GBT_OK) s = gbt_booster_set_param(b, "lambdarank_pair_method", "mean");
    if (s == GBT_OK) s = gbt_booster_set_param(b, "verbosity", "2");
    gbt_set_log_callback(keep_line, NULL);
    if (s == GBT_OK) s = gbt_booster_train(b, dt, 2, valid, names, 1);
    gbt_set_log_callback(NULL, NULL);
    if (s == GBT_OK) s = gbt_booster_predict(b, dv, 0, p, dv->nrow);
    if (s == GBT_OK && sscanf(last_line, "[1]\tv-ndcg:%lf", &printed) == 1) mine = my_ndcg_all(dv, p);
    ok(s == GBT_OK && fabs(printed - mine) < 1e-6,
       "rank:ndcg with mean: the default metric 'ndcg' scores whole lists (%.6f printed, %.6f computed here)",
       printed, mine);
    free(p);
    gbt_booster_free(b);
}

static void test_training(void)
{
    const char *dir = getenv("GBT_DATASETS") ? getenv("GBT_DATASETS") : "datasets";
    char tr[512], te[512];
    gbt_dataset *dt = NULL, *dv = NULL;
    static const char *objs[3] = {"rank:ndcg", "rank:pairwise", "rank:map"};
    snprintf(tr, sizeof tr, "%s/rank.train.libsvm", dir);
    snprintf(te, sizeof te, "%s/rank.test.libsvm", dir);
    if (gbt_dataset_from_file(tr, "", &dt) != GBT_OK || gbt_dataset_from_file(te, "", &dv) != GBT_OK) {
        ok(0, "read the ranking set: %s", gbt_last_error());
        gbt_dataset_free(dt);
        return;
    }
    ok(dt->ngroups == 400 && dv->ngroups == 400, "the ranking set has 400 and 400 queries (qid:)");
    test_default_metric_mean(dt, dv);
    {
        /* 8930 rows: enough for the CPU backend to spread the queries over threads */
        char *m[2] = {NULL, NULL};
        size_t len[2] = {0, 0};
        gbt_status s = GBT_OK;
        for (int t = 0; t < 2 && s == GBT_OK; t++) {
            gbt_booster *b = NULL;
            char nt[16];
            snprintf(nt, sizeof nt, "%d", t + 1);
            s = gbt_booster_create(&b);
            if (s == GBT_OK) s = gbt_booster_set_param(b, "objective", "rank:ndcg");
            if (s == GBT_OK) s = gbt_booster_set_param(b, "lambdarank_pair_method", "mean");
            if (s == GBT_OK) s = gbt_booster_set_param(b, "lambdarank_num_pair_per_sample", "3");
            if (s == GBT_OK) s = gbt_booster_set_param(b, "subsample", "0.8");
            if (s == GBT_OK) s = gbt_booster_set_param(b, "nthread", nt);
            if (s == GBT_OK) s = gbt_booster_set_param(b, "device", "cpu");
            if (s == GBT_OK) s = gbt_booster_set_param(b, "verbosity", "0");
            if (s == GBT_OK) s = gbt_booster_train(b, dt, 5, NULL, NULL, 0);
            if (s == GBT_OK) s = gbt_booster_save_to_buffer(b, &m[t], &len[t]);
            gbt_booster_free(b);
        }
        ok(s == GBT_OK && len[0] == len[1] && memcmp(m[0], m[1], len[0]) == 0,
           "rank:ndcg with sampled pairs on 8930 rows: the same model bytes at nthread=1 and 2 (%zu bytes)", len[0]);
        gbt_free(m[0]);
        gbt_free(m[1]);
    }
    for (int o = 0; o < 3; o++) {
        gbt_booster *b = NULL, *b2 = NULL;
        float *p = NULL, *p2 = NULL;
        double first = NAN, last = NAN, mine;
        char *buf = NULL;
        size_t len = 0;
        gbt_status s;
        const int map = o == 2;
        if (map) { /* binary relevance for rank:map: grades 2 and up */
            for (uint64_t r = 0; r < dt->nrow; r++) dt->label[r] = dt->label[r] >= 2 ? 1.0f : 0.0f;
            for (uint64_t r = 0; r < dv->nrow; r++) dv->label[r] = dv->label[r] >= 2 ? 1.0f : 0.0f;
        }
        s = gbt_booster_create(&b);
        if (s == GBT_OK) s = gbt_booster_set_param(b, "objective", objs[o]);
        if (s == GBT_OK) s = gbt_booster_set_param(b, "verbosity", "0");
        if (s == GBT_OK) s = gbt_booster_set_param(b, "eta", "0.2");
        if (s == GBT_OK) s = gbt_booster_train(b, dt, 1, NULL, NULL, 0);
        if (s == GBT_OK) s = gbt_booster_eval(b, dv, map ? "map@10" : "ndcg@10", &first);
        if (s == GBT_OK) s = gbt_booster_train(b, dt, 29, NULL, NULL, 0);
        if (s == GBT_OK) s = gbt_booster_eval(b, dv, map ? "map@10" : "ndcg@10", &last);
        if (s != GBT_OK) diag("%s: %s", objs[o], gbt_last_error());
        ok(s == GBT_OK && last > first && last > (map ? 0.6 : 0.8),
           "%s learns: test %s %.4f after 1 round, %.4f after 30", objs[o], map ? "map@10" : "ndcg@10", first, last);
        p = malloc(dv->nrow * sizeof *p);
        p2 = malloc(dv->nrow * sizeof *p2);
        if (s == GBT_OK) s = gbt_booster_predict(b, dv, 0, p, dv->nrow);
        if (s == GBT_OK && !map) {
            mine = my_ndcg10(dv, p);
            ok(fabs(mine - last) < 1e-12, "%s: gbt_booster_eval scores per query (%.9f = %.9f computed here)",
               objs[o], last, mine);
        }
        if (s == GBT_OK) s = gbt_booster_save_to_buffer(b, &buf, &len);
        if (s == GBT_OK) s = gbt_booster_load_from_buffer(buf, len, &b2);
        if (s == GBT_OK) s = gbt_booster_predict(b2, dv, 0, p2, dv->nrow);
        ok(s == GBT_OK && memcmp(p, p2, dv->nrow * sizeof *p) == 0, "%s: the saved model predicts the same", objs[o]);
        gbt_free(buf);
        free(p);
        free(p2);
        gbt_booster_free(b);
        gbt_booster_free(b2);
    }
    gbt_dataset_free(dt);
    gbt_dataset_free(dv);
}

int main(void)
{
    test_gradients();
    test_metrics_xgboost();
    test_metrics_by_hand();
    test_metric_names();
    test_checks();
    test_training();
    return done_testing();
}
