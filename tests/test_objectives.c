/*
 * test_objectives.c - gradients, hessians, starting scores, transforms and
 * metrics against values computed by hand (the arithmetic is in the
 * comments).
 */
#include <math.h>

#include "common/grad_math.h"
#include "dataset.h"
#include "metric.h"
#include "objective.h"
#include "testutil.h"

static void test_gradients(void)
{
    double g[3], h[3], m;
    /* squared error: g = (m - y) w = (2.5 - 1) 2 = 3, h = w = 2 */
    m = 2.5;
    gbt_row_gradients(GBT_OBJ_REG_SQUAREDERROR, 1, &m, 1, 1.0f, 2.0f, g, h, 1);
    ok(g[0] == 3.0 && h[0] == 2.0, "squarederror: g = 3, h = 2");
    /* logistic at m = 0, y = 1: p = 1/2, g = -1/2, h = 1/4 */
    m = 0.0;
    gbt_row_gradients(GBT_OBJ_BINARY_LOGISTIC, 1, &m, 1, 1.0f, 1.0f, g, h, 1);
    ok(g[0] == -0.5 && h[0] == 0.25, "logistic at 0: g = -0.5, h = 0.25");
    /* m = ln 3, y = 0: p = 3/4, g = 3/4, h = 3/16 */
    m = log(3.0);
    gbt_row_gradients(GBT_OBJ_REG_LOGISTIC, 1, &m, 1, 0.0f, 1.0f, g, h, 1);
    ok(near(g[0], 0.75, 1e-15) && near(h[0], 0.1875, 1e-15), "logistic at ln 3, y = 0: g = 0.75, h = 0.1875");
    /* far from zero the hessian is floored at 1e-16 (p (1 - p) = e^-50) */
    m = 50.0;
    gbt_row_gradients(GBT_OBJ_BINARY_LOGITRAW, 1, &m, 1, 1.0f, 1.0f, g, h, 1);
    ok(h[0] == 1e-16, "logistic hessian floor 1e-16 (got %g)", h[0]);
    {
        /* softmax of (0, ln 2, ln 3): p = (1/6, 2/6, 3/6); y = 2:
           g = (1/6, 1/3, -1/2); h = 2p(1-p) = (10/36, 4/9, 1/2) */
        double mk[3] = {0.0, log(2.0), log(3.0)};
        gbt_row_gradients(GBT_OBJ_MULTI_SOFTPROB, 3, mk, 1, 2.0f, 1.0f, g, h, 1);
        ok(near(g[0], 1.0 / 6, 1e-15) && near(g[1], 1.0 / 3, 1e-15) && near(g[2], -0.5, 1e-15),
           "softmax gradients (1/6, 1/3, -1/2)");
        ok(near(h[0], 10.0 / 36, 1e-15) && near(h[1], 4.0 / 9, 1e-15) && near(h[2], 0.5, 1e-15),
           "softmax hessians (10/36, 4/9, 1/2)");
        /* stride: class k's values land k * stride apart */
        {
            double gs[7], hs[7];
            gbt_row_gradients(GBT_OBJ_MULTI_SOFTMAX, 3, mk, 1, 2.0f, 1.0f, gs, hs, 3);
            ok(gs[0] == g[0] && gs[3] == g[1] && gs[6] == g[2], "gradients of class k are written k * stride apart");
        }
    }
}

static gbt_dataset *labelled(const float *y, const float *w, uint64_t n)
{
    float x[64];
    gbt_dataset *d = NULL;
    for (uint64_t i = 0; i < n; i++) x[i] = (float)i;
    gbt_dataset_from_dense(x, n, 1, NAN, &d);
    gbt_dataset_set_field(d, "label", y, n);
    if (w) gbt_dataset_set_field(d, "weight", w, n);
    return d;
}

static void test_base_margin(void)
{
    float y[] = {1, 1, 1, 0}, w[] = {1, 1, 1, 3}, c[] = {0, 0, 1, 2};
    double out[3];
    gbt_dataset *d = labelled(y, NULL, 4);
    /* mean 3/4 -> logit ln 3 */
    gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 1, NAN, 1.0, d, out);
    ok(near(out[0], log(3.0), 1e-15), "binary: starting score logit(3/4) = ln 3 (%.17g)", out[0]);
    gbt__objective_base_margin(GBT_OBJ_REG_SQUAREDERROR, 1, NAN, 1.0, d, out);
    ok(out[0] == 0.75, "regression: starting score is the label mean");
    gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 1, 0.25, 1.0, d, out);
    ok(near(out[0], -log(3.0), 1e-15), "base_score 0.25 -> logit ln(1/3)");
    ok(gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 1, 1.5, 1.0, d, out) == GBT_E_PARAM &&
           strstr(gbt_last_error(), "(0, 1)"),
       "base_score outside (0, 1) refused for logistic: %s", gbt_last_error());
    gbt_dataset_free(d);
    /* weights 1,1,1,3: weighted mean 3/6 = 1/2 -> logit 0 */
    d = labelled(y, w, 4);
    gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 1, NAN, 1.0, d, out);
    ok(out[0] == 0.0, "weighted mean 1/2 -> starting score 0");
    gbt_dataset_free(d);
    /* classes 0,0,1,2: frequencies 1/2, 1/4, 1/4; centred logs: (2/3) ln 2, -(1/3) ln 2, -(1/3) ln 2 */
    d = labelled(c, NULL, 4);
    gbt__objective_base_margin(GBT_OBJ_MULTI_SOFTPROB, 3, NAN, 1.0, d, out);
    ok(near(out[0], 2.0 / 3 * log(2.0), 1e-14) && near(out[1], -log(2.0) / 3, 1e-14) && near(out[2], out[1], 0),
       "multiclass: centred log class frequencies");
    gbt_dataset_free(d);
}

static void test_label_checks(void)
{
    float yb[] = {0, 1, 2}, yc[] = {0, 1.5f, 1}, yr[] = {0, 1.2f, 0.5f};
    gbt_dataset *d = labelled(yb, NULL, 3);
    ok(gbt__objective_check(GBT_OBJ_BINARY_LOGISTIC, 0, d) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 2") &&
           strstr(gbt_last_error(), "not 0 or 1"),
       "binary label 2 refused: %s", gbt_last_error());
    ok(gbt__objective_check(GBT_OBJ_MULTI_SOFTMAX, 2, d) == GBT_E_FORMAT && strstr(gbt_last_error(), "num_class"),
       "class label 2 with num_class 2 refused: %s", gbt_last_error());
    ok(gbt__objective_check(GBT_OBJ_MULTI_SOFTMAX, 3, d) == GBT_OK, "class labels 0..2 with num_class 3 accepted");
    ok(gbt__objective_check(GBT_OBJ_MULTI_SOFTMAX, 0, d) == GBT_E_PARAM, "multiclass without num_class refused");
    ok(gbt__objective_check(GBT_OBJ_BINARY_LOGISTIC, 3, d) == GBT_E_PARAM, "num_class with a binary objective refused");
    gbt_dataset_free(d);
    d = labelled(yc, NULL, 3);
    ok(gbt__objective_check(GBT_OBJ_MULTI_SOFTPROB, 3, d) == GBT_E_FORMAT, "class label 1.5 refused");
    gbt_dataset_free(d);
    d = labelled(yr, NULL, 3);
    ok(gbt__objective_check(GBT_OBJ_REG_LOGISTIC, 0, d) == GBT_E_FORMAT && strstr(gbt_last_error(), "[0, 1]"),
       "reg:logistic label 1.2 refused");
    ok(gbt__objective_check(GBT_OBJ_REG_SQUAREDERROR, 0, d) == GBT_OK, "any finite label for squarederror");
    gbt_dataset_free(d);
}

static void test_transforms(void)
{
    double m[3] = {0.0, log(2.0), log(3.0)};
    float out[3];
    gbt__objective_transform(GBT_OBJ_MULTI_SOFTPROB, 3, m, 0, out);
    ok(near(out[0], 1.0 / 6, 1e-7) && near(out[1], 1.0 / 3, 1e-7) && near(out[2], 0.5, 1e-7), "softprob gives probabilities");
    gbt__objective_transform(GBT_OBJ_MULTI_SOFTMAX, 3, m, 0, out);
    ok(out[0] == 2.0f, "softmax gives the class of the largest score");
    gbt__objective_transform(GBT_OBJ_MULTI_SOFTMAX, 3, m, GBT_PREDICT_MARGIN, out);
    ok(out[1] == (float)log(2.0), "margin flag gives the raw scores");
    gbt__objective_transform(GBT_OBJ_BINARY_LOGISTIC, 1, m + 2, 0, out);
    ok(near(out[0], 0.75, 1e-7), "logistic gives sigmoid(ln 3) = 0.75");
    gbt__objective_transform(GBT_OBJ_BINARY_LOGITRAW, 1, m + 2, 0, out);
    ok(out[0] == (float)log(3.0), "logitraw gives the raw score");
    ok(gbt__objective_outputs(GBT_OBJ_MULTI_SOFTPROB, 3, 0) == 3 && gbt__objective_outputs(GBT_OBJ_MULTI_SOFTMAX, 3, 0) == 1 &&
           gbt__objective_outputs(GBT_OBJ_MULTI_SOFTMAX, 3, GBT_PREDICT_MARGIN) == 3,
       "outputs per row: softprob K, softmax 1, margins K");
}

static double metric(const char *name, int obj, int K, const double *m, const float *y, const float *w, uint64_t n)
{
    struct gbt_metric mt;
    double v = -12345;
    if (gbt__metric_parse(name, &mt) != GBT_OK || gbt__metric_eval(&mt, obj, K, m, y, w, n, 2, &v) != GBT_OK)
        diag("%s: %s", name, gbt_last_error());
    return v;
}

static void test_metrics(void)
{
    const double reg[] = {1, 2, 3};
    const float ones[] = {1, 1, 1}, w12[] = {1, 1, 2};
    const double lm[] = {0, log(3.0), -1};
    const float yl[] = {1, 0, 0}, ye[] = {1, 1, 0};
    /* rmse sqrt((0 + 1 + 4) / 3); mae 1; weighted (1,1,2): mae (0+1+4)/4, rmse sqrt((0+1+8)/4) */
    ok(near(metric("rmse", GBT_OBJ_REG_SQUAREDERROR, 1, reg, ones, NULL, 3), sqrt(5.0 / 3), 1e-15), "rmse = sqrt(5/3)");
    ok(near(metric("mae", GBT_OBJ_REG_SQUAREDERROR, 1, reg, ones, NULL, 3), 1.0, 1e-15), "mae = 1");
    ok(near(metric("mae", GBT_OBJ_REG_SQUAREDERROR, 1, reg, ones, w12, 3), 1.25, 1e-15), "weighted mae = 1.25");
    ok(near(metric("rmse", GBT_OBJ_REG_SQUAREDERROR, 1, reg, ones, w12, 3), 1.5, 1e-15), "weighted rmse = 1.5");
    /* logloss of p = (1/2, 3/4) against (1, 0): (ln 2 + ln 4) / 2 */
    ok(near(metric("logloss", GBT_OBJ_BINARY_LOGISTIC, 1, lm, yl, NULL, 2), 1.5 * log(2.0), 1e-14), "logloss = 1.5 ln 2");
    /* error at 0.5: p = 0.5 (not > 0.5, label 1: wrong), 0.75 (right), 0.27 (right) -> 1/3 */
    ok(near(metric("error", GBT_OBJ_BINARY_LOGISTIC, 1, lm, ye, NULL, 3), 1.0 / 3, 1e-15), "error = 1/3");
    ok(near(metric("error@0.8", GBT_OBJ_BINARY_LOGISTIC, 1, lm, ye, NULL, 3), 2.0 / 3, 1e-15), "error@0.8 = 2/3");
    {
        /* AUC: scores .1 .4 .35 .8, labels 0 0 1 1: 3 of 4 pairs ordered -> 0.75 */
        const double s[] = {0.1, 0.4, 0.35, 0.8}, t[] = {0.5, 0.5, 0.2, 0.9};
        const float y[] = {0, 0, 1, 1}, yt[] = {1, 0, 0, 1}, wt[] = {2, 1, 1, 1};
        ok(near(metric("auc", GBT_OBJ_BINARY_LOGITRAW, 1, s, y, NULL, 4), 0.75, 1e-15), "auc = 0.75");
        /* ties count one half: (.5 vs .5) 1/2 + 1 + 1 + 1 = 3.5 of 4 */
        ok(near(metric("auc", GBT_OBJ_BINARY_LOGITRAW, 1, t, yt, NULL, 4), 0.875, 1e-15), "auc with a tie = 0.875");
        /* weights 2,1,1,1: pairs 2*(1/2) + 2*1 + 1*1 + 1*1 = 5 of 3*2 */
        ok(near(metric("auc", GBT_OBJ_BINARY_LOGITRAW, 1, t, yt, wt, 4), 5.0 / 6, 1e-15), "weighted auc = 5/6");
        ok(isnan(metric("auc", GBT_OBJ_BINARY_LOGITRAW, 1, s, ones, NULL, 3)), "auc of one class is NaN");
    }
    {
        /* mlogloss: (0,0) label 0 -> ln 2; (ln 3, 0) label 1 -> ln 4 */
        const double mm[] = {0, 0, log(3.0), 0}, me[] = {1, 0, 0, 2, 3, 1};
        const float y[] = {0, 1}, z[] = {0, 0, 0};
        ok(near(metric("mlogloss", GBT_OBJ_MULTI_SOFTPROB, 2, mm, y, NULL, 2), 1.5 * log(2.0), 1e-14), "mlogloss = 1.5 ln 2");
        ok(near(metric("merror", GBT_OBJ_MULTI_SOFTMAX, 2, me, z, NULL, 3), 1.0 / 3, 1e-15), "merror = 1/3");
    }
    {
        struct gbt_metric mt;
        double v;
        ok(gbt__metric_parse("ndcg", &mt) == GBT_E_PARAM, "unknown metric refused");
        ok(gbt__metric_parse("error@x", &mt) == GBT_E_PARAM, "bad threshold refused");
        gbt__metric_parse("mlogloss", &mt);
        ok(gbt__metric_eval(&mt, GBT_OBJ_BINARY_LOGISTIC, 1, lm, yl, NULL, 2, 1, &v) == GBT_E_PARAM,
           "mlogloss on a binary model refused");
        gbt__metric_parse("auc", &mt);
        ok(gbt__metric_eval(&mt, GBT_OBJ_MULTI_SOFTPROB, 2, lm, yl, NULL, 1, 1, &v) == GBT_E_PARAM,
           "auc on a multiclass model refused");
    }
}

int main(void)
{
    test_gradients();
    test_base_margin();
    test_label_checks();
    test_transforms();
    test_metrics();
    return done_testing();
}
