/*
 * test_refit.c - reg:absoluteerror and reg:quantileerror: their gradients,
 * quantile_alpha, the quantiles that start the model and refit its
 * leaves, the quantile metric, and whole trainings against XGBoost 3.2.0.
 *
 * Expected values are worked out by hand in the comments, computed here by
 * a sort written for the test, or printed by XGBoost 3.2.0 on the same
 * data and parameters (the script is in each comment).
 */
#include <math.h>

#include "common/grad_math.h"
#include "data/dataset.h"
#include "objective/leaf_refit.h"
#include "metric/metric.h"
#include "objective/objective.h"
#include "params/params.h"
#include "testutil.h"

static void test_gradients(void)
{
    struct gbt_obj_param op = {.scale_pos = 1.0, .huber_slope = 1.0, .tweedie_rho = 1.5, .aft_sigma = 1.0, .alpha = {0.5}};
    double g[3], h[3], m = 2.5, mq[3] = {1.0, 4.0, 3.0};
    /* absolute error: g = sign(m - y) w, h = w */
    gbt_row_gradients(GBT_OBJ_REG_ABSOLUTEERROR, &op, 1, &m, 1, 1.0f, 2.0f, g, h, 1);
    ok(g[0] == 2.0 && h[0] == 2.0, "absoluteerror above the label: g = w = 2, h = 2");
    gbt_row_gradients(GBT_OBJ_REG_ABSOLUTEERROR, &op, 1, &m, 1, 4.0f, 2.0f, g, h, 1);
    ok(g[0] == -2.0 && h[0] == 2.0, "absoluteerror below the label: g = -2");
    gbt_row_gradients(GBT_OBJ_REG_ABSOLUTEERROR, &op, 1, &m, 1, 2.5f, 2.0f, g, h, 1);
    ok(g[0] == 0.0 && h[0] == 2.0, "absoluteerror at the label: g = 0");
    /* quantiles 0.1, 0.5, 0.9 at y = 3 and raw scores 1, 4, 3 (weight 2):
       below: -alpha w = -0.2; above: (1 - alpha) w = 1; at: (1 - 0.9) 2 = 0.2 */
    op.alpha[0] = 0.1, op.alpha[1] = 0.5, op.alpha[2] = 0.9;
    gbt_row_gradients(GBT_OBJ_REG_QUANTILEERROR, &op, 3, mq, 1, 3.0f, 2.0f, g, h, 1);
    ok(near(g[0], -0.2, 1e-15) && near(g[1], 1.0, 1e-15) && near(g[2], 0.2, 1e-15) && h[0] == 2.0 &&
           h[1] == 2.0 && h[2] == 2.0,
       "quantileerror: g = (-0.2, 1, 0.2), h = 2 (got %g %g %g)", g[0], g[1], g[2]);
    ok(gbt_objective_refits_leaves(GBT_OBJ_REG_ABSOLUTEERROR) &&
           gbt_objective_refits_leaves(GBT_OBJ_REG_QUANTILEERROR) &&
           !gbt_objective_refits_leaves(GBT_OBJ_REG_PSEUDOHUBERERROR),
       "only absoluteerror and quantileerror refit their leaves");
}

static double q_of(double alpha, const double *v, const double *w, uint64_t n)
{
    struct gbt_wvalue s[16];
    for (uint64_t i = 0; i < n; i++) s[i].v = v[i], s[i].w = w ? w[i] : 1.0;
    gbt__quantile_sort(s, n);
    return gbt__quantile(alpha, s, n, w != NULL);
}

static void test_quantiles(void)
{
    const double v[] = {4, 1, 3, 2}, v3[] = {3, 1, 2}, w3[] = {2, 1, 1};
    /* NIST, n = 4: alpha 0.5 -> position 2.5 -> 2 + 0.5 (3 - 2) = 2.5; 0.3 -> 1.5 -> 1.5;
       0.2 <= 1/5 -> the least, 1; 0.8 >= 4/5 -> the largest, 4; 0.7 -> 3.5 -> 3.5 */
    ok(q_of(0.5, v, NULL, 4) == 2.5, "median of 1..4 = 2.5");
    ok(q_of(0.3, v, NULL, 4) == 1.5, "quantile 0.3 of 1..4 = 1.5");
    ok(q_of(0.2, v, NULL, 4) == 1.0 && q_of(0.8, v, NULL, 4) == 4.0, "quantiles 0.2 and 0.8 of 1..4: the ends");
    ok(near(q_of(0.7, v, NULL, 4), 3.5, 1e-15), "quantile 0.7 of 1..4 = 3.5");
    /* weighted (values 1, 2, 3 weighing 1, 1, 2; total 4): 0.5 -> cumulative 1, 2 reaches 2 -> 2;
       0.6 -> 2.4 -> 3; 0.25 -> 1 -> 1 */
    ok(q_of(0.5, v3, w3, 3) == 2.0 && q_of(0.6, v3, w3, 3) == 3.0 && q_of(0.25, v3, w3, 3) == 1.0,
       "weighted quantiles 0.25, 0.5, 0.6 of (1, 2, 3) weighing (1, 1, 2) = 1, 2, 3");
    ok(isnan(q_of(0.5, v, NULL, 0)), "the quantile of nothing is NaN");
    ok(q_of(0.5, v3, NULL, 1) == 3.0, "the quantile of one value is that value");
}

static void test_param(void)
{
    struct gbt_params p;
    char buf[256];
    gbt__params_init(&p);
    ok(p.num_quantile_alpha == 1 && p.quantile_alpha[0] == 0.5, "quantile_alpha defaults to 0.5");
    ok(gbt__params_set(&p, "quantile_alpha", "[0.1, 0.5, 0.9]", NULL) == GBT_OK && p.num_quantile_alpha == 3 &&
           p.quantile_alpha[0] == 0.1 && p.quantile_alpha[2] == 0.9,
       "quantile_alpha takes XGBoost's list [0.1, 0.5, 0.9]");
    ok(gbt__params_get(&p, "quantile_alpha", buf, sizeof buf) == GBT_OK && strcmp(buf, "0.1,0.5,0.9") == 0,
       "and gives it back as 0.1,0.5,0.9 (%s)", buf);
    ok(gbt__params_set(&p, "quantile_alpha", "0.25,0.75", NULL) == GBT_OK && p.num_quantile_alpha == 2,
       "a comma list");
    ok(gbt__params_set(&p, "quantile_alpha", "0.3", NULL) == GBT_OK && p.num_quantile_alpha == 1 &&
           p.quantile_alpha[0] == 0.3,
       "one number");
    ok(gbt__params_set(&p, "quantile_alpha", "[0.1, 0.5", NULL) == GBT_E_PARAM &&
           strstr(gbt_last_error(), "quantile_alpha") && p.num_quantile_alpha == 1 && p.quantile_alpha[0] == 0.3,
       "an unclosed list is refused and changes nothing: %s", gbt_last_error());
    ok(gbt__params_set(&p, "quantile_alpha", "0.5,1.5", NULL) == GBT_E_PARAM, "1.5 is refused: %s", gbt_last_error());
    ok(gbt__params_set(&p, "quantile_alpha", "0.5,,0.7", NULL) == GBT_E_PARAM, "an empty entry is refused");
    ok(gbt__params_set(&p, "quantile_alpha", "", NULL) == GBT_E_PARAM, "an empty value is refused");
    {
        char many[512] = "";
        for (int i = 0; i <= GBT_MAX_QUANTILES; i++) strcat(many, i ? ",0.5" : "0.5");
        ok(gbt__params_set(&p, "quantile_alpha", many, NULL) == GBT_E_PARAM,
           "more than %d quantiles refused: %s", GBT_MAX_QUANTILES, gbt_last_error());
    }
}

static gbt_dataset *dataset(const float *x, const float *y, const float *w, uint64_t n)
{
    gbt_dataset *d = NULL;
    if (gbt_dataset_from_dense(x, n, 1, NAN, &d) != GBT_OK) return NULL;
    gbt_dataset_set_field(d, "label", y, n);
    if (w) gbt_dataset_set_field(d, "weight", w, n);
    return d;
}

static void test_base_score(void)
{
    const float x[] = {0, 0, 0, 0, 0}, y[] = {7, 1, 4, 10, 2}, w[] = {1, 1, 3, 1, 1};
    gbt_dataset *d = dataset(x, y, NULL, 5), *dw = dataset(x, y, w, 5);
    struct gbt_obj_param op = {.scale_pos = 1.0, .huber_slope = 1.0, .tweedie_rho = 1.5, .aft_sigma = 1.0, .alpha = {0.5}};
    double out[3] = {0, 0, 0};
    /* labels 1 2 4 7 10: median (position 3) 4 */
    gbt__objective_base_margin(GBT_OBJ_REG_ABSOLUTEERROR, 1, NULL, 0, &op, d, out);
    ok(out[0] == 4.0, "absoluteerror starts at the median 4 (%g)", out[0]);
    /* alpha 0.25: position 1.5 -> 1.5; 0.9 >= 5/6 -> 10; 0.6: position 3.6 -> 4 + 0.6 (7 - 4) = 5.8 */
    op.alpha[0] = 0.25, op.alpha[1] = 0.9, op.alpha[2] = 0.6;
    gbt__objective_base_margin(GBT_OBJ_REG_QUANTILEERROR, 3, NULL, 0, &op, d, out);
    ok(out[0] == 1.5 && out[1] == 10.0 && near(out[2], 5.8, 1e-15),
       "quantileerror starts each output at its quantile: 1.5, 10, 5.8 (%g %g %g)", out[0], out[1], out[2]);
    /* weighted: 1 2 4 7 10 weighing 1 1 3 1 1 (total 7); 0.25 -> 1.75 -> 2; 0.9 -> 6.3 -> 10; 0.6 -> 4.2 -> 4 */
    gbt__objective_base_margin(GBT_OBJ_REG_QUANTILEERROR, 3, NULL, 0, &op, dw, out);
    ok(out[0] == 2.0 && out[1] == 10.0 && out[2] == 4.0, "weighted: 2, 10, 4 (%g %g %g)", out[0], out[1], out[2]);
    gbt__objective_base_margin(GBT_OBJ_REG_QUANTILEERROR, 3, (const double[]){3.25}, 1, &op, d, out);
    ok(out[0] == 3.25 && out[1] == 3.25 && out[2] == 3.25, "base_score=3.25 starts every output there");
    gbt_dataset_free(d);
    gbt_dataset_free(dw);
}

/*
 * The quantile metric of fixed raw scores against XGBoost 3.2.0's own
 * evaluation: a booster of objective reg:quantileerror trained one round
 * with eta=0, base_score=0 on DMatrix(X, y, weight=w, base_margin=m),
 * then Booster.eval.
 */
static void test_metric(void)
{
    static const float y[] = {0.5f, 1.5f, 3.5f, 2.5f, 0.5f, 6.5f}, w[] = {1, 2, 0.5f, 1, 3, 1};
    static const double m[] = {-0.3, 0.2, 1.1, 0.9, -1.0, 1.7};
    static const double a1[] = {0.3}, a2[] = {0.25, 0.75};
    double m2[12], v = -1;
    struct gbt_metric mt;
    for (int i = 0; i < 6; i++) m2[2 * i] = m[i], m2[2 * i + 1] = 2 * m[i] + 1;
    ok(gbt__metric_parse("quantile", &mt) == GBT_OK && !mt.maximize, "quantile is a metric to minimise");
    /* every residual is positive: 0.3 (0.8 + 2.6 + 1.2 + 1.6 + 4.5 + 4.8) / 8.5 = 4.65 / 8.5 */
    mt.alpha = a1;
    mt.nalpha = 1;
    gbt__metric_eval(&mt, GBT_OBJ_REG_QUANTILEERROR, 1, m, y, w, 6, 1, &v);
    ok(near(v, 4.65 / 8.5, 1e-15) && fabs(v - 0.54705884176142072) <= 1e-6 * 0.547,
       "quantile@0.3 = 4.65 / 8.5 = %.9g (XGBoost 0.547058842)", v);
    mt.alpha = a2;
    mt.nalpha = 2;
    gbt__metric_eval(&mt, GBT_OBJ_REG_QUANTILEERROR, 2, m2, y, w, 6, 2, &v);
    ok(fabs(v - 0.54338235145106040) <= 1e-6 * 0.543, "quantile of [0.25, 0.75] = %.9g (XGBoost 0.543382351)", v);
    ok(gbt__metric_eval(&mt, GBT_OBJ_REG_QUANTILEERROR, 1, m, y, w, 6, 1, &v) == GBT_E_PARAM &&
           strstr(gbt_last_error(), "quantile_alpha"),
       "two quantiles on one raw score refused: %s", gbt_last_error());
    {
        char name[32];
        gbt__objective_default_metric(GBT_OBJ_REG_ABSOLUTEERROR, 1.5, name, sizeof name);
        ok(strcmp(name, "mae") == 0, "absoluteerror's default metric is mae");
        gbt__objective_default_metric(GBT_OBJ_REG_QUANTILEERROR, 1.5, name, sizeof name);
        ok(strcmp(name, "quantile") == 0, "quantileerror's default metric is quantile");
    }
}

/* The interpolated quantile, written again for the check: an insertion sort and NIST's rule. */
static double ref_quantile(double alpha, double *v, int n)
{
    double x, d;
    int k;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    if (alpha <= 1.0 / (n + 1)) return v[0];
    if (alpha >= (double)n / (n + 1)) return v[n - 1];
    x = alpha * (n + 1);
    k = (int)x - 1;
    d = x - 1 - k;
    return v[k] + d * (v[k + 1] - v[k]);
}

/*
 * One round of one split: each leaf is eta times the quantile of its rows'
 * residuals from the starting score, whatever its Newton weight.
 */
static void test_leaf_values(void)
{
    enum { N = 40 };
    float x[N], y[N], pred[2 * N];
    double base, left[N], right[N], res[N];
    int nl = 0, nr = 0;
    gbt_dataset *d;
    gbt_booster *b = NULL;
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 10);
        y[i] = (float)((i % 10 < 5 ? 1.0 : 20.0) + (i * 7 % 13) * (i % 3 ? 0.5 : 2.0));
        res[i] = y[i];
    }
    d = dataset(x, y, NULL, N);
    {
        const char *const p[] = {"objective=reg:quantileerror", "quantile_alpha=0.3,0.8", "max_depth=1",
                                 "eta=0.5", "lambda=1", NULL};
        b = tu_train(d, 1, p);
    }
    ok(b != NULL, "reg:quantileerror trains one round");
    if (b && gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, pred, 2 * N) == GBT_OK) {
        for (int k = 0; k < 2; k++) {
            const double alpha = k ? 0.8 : 0.3;
            double lq, rq;
            int good = 1;
            for (int i = 0; i < N; i++) res[i] = y[i];
            base = ref_quantile(alpha, res, N);
            /* the split is x < 5 (the only one that separates the two levels of y) */
            nl = nr = 0;
            for (int i = 0; i < N; i++) {
                if (x[i] < 5) left[nl++] = y[i] - base;
                else right[nr++] = y[i] - base;
            }
            lq = base + 0.5 * ref_quantile(alpha, left, nl);
            rq = base + 0.5 * ref_quantile(alpha, right, nr);
            for (int i = 0; i < N; i++)
                good &= fabs(pred[2 * i + k] - (x[i] < 5 ? lq : rq)) <= 1e-5 * fabs(x[i] < 5 ? lq : rq);
            ok(good, "quantile %g: leaves at base + eta * quantile of residuals (%.6g, %.6g; got %.6g, %.6g)",
               alpha, lq, rq, (double)pred[k], (double)pred[2 * (N - 1) + k]);
        }
    }
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

static gbt_dataset *load(const char *name)
{
    char path[1024];
    const char *dir = getenv("GBT_DATASETS");
    gbt_dataset *d = NULL;
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "datasets", name);
    if (gbt_dataset_from_file(path, NULL, &d) != GBT_OK) diag("%s", gbt_last_error());
    return d;
}

/*
 * Whole trainings on the bundled diabetes data: the same trees as XGBoost
 * 3.2.0, so the same test scores to float precision.  The references are
 * xgboost.train({objective, quantile_alpha, max_depth: 3, eta: 0.3,
 * max_bin: 256, tree_method: hist}, DMatrix(train), 20,
 * evals=[(DMatrix(test), "test")]), the last round's value.
 */
static void test_xgboost(void)
{
    static const struct {
        const char *objective, *alpha, *metric;
        double xgb;
    } c[] = {
        {"objective=reg:absoluteerror", "quantile_alpha=0.5", "mae", 46.4153948350},
        {"objective=reg:quantileerror", "quantile_alpha=[0.1, 0.5, 0.9]", "quantile", 14.4476578328},
        {"objective=reg:quantileerror", "quantile_alpha=0.8", "quantile", 17.4616525452},
    };
    gbt_dataset *tr = load("diabetes.train.csv"), *te = load("diabetes.test.csv");
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *const p[] = {c[i].objective, c[i].alpha, "max_depth=3", "eta=0.3", "max_bin=256", NULL};
        gbt_booster *b = tr && te ? tu_train(tr, 20, p) : NULL;
        double v = NAN;
        if (b) gbt_booster_eval(b, te, c[i].metric, &v);
        ok(fabs(v - c[i].xgb) <= 1e-5 * c[i].xgb, "diabetes %s %s: test %s %.10g, XGBoost %.10g",
           c[i].objective + 10, c[i].alpha + 15, c[i].metric, v, c[i].xgb);
        gbt_booster_free(b);
    }
    gbt_dataset_free(tr);
    gbt_dataset_free(te);
}

int main(void)
{
    test_gradients();
    test_quantiles();
    test_param();
    test_base_score();
    test_metric();
    test_leaf_values();
    test_xgboost();
    return done_testing();
}
