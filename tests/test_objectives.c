/*
 * test_objectives.c - gradients, hessians, starting scores, transforms and
 * metrics against values computed by hand (the arithmetic is in the
 * comments).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "common/grad_math.h"
#include "data/dataset.h"
#include "metric/metric.h"
#include "objective/objective.h"
#include "params/params.h"
#include "testutil.h"

static const struct gbt_obj_param op = {.scale_pos = 1.0, .poisson_delta = 0.7, .huber_slope = 1.0, .tweedie_rho = 1.5, .aft_sigma = 1.0};

static void test_gradients(void)
{
    double g[3], h[3], m;
    /* squared error: g = (m - y) w = (2.5 - 1) 2 = 3, h = w = 2 */
    m = 2.5;
    gbt_row_gradients(GBT_OBJ_REG_SQUAREDERROR, &op, 1, &m, 1, 1.0f, 2.0f, g, h, 1);
    ok(g[0] == 3.0 && h[0] == 2.0, "squarederror: g = 3, h = 2");
    /* logistic at m = 0, y = 1: p = 1/2, g = -1/2, h = 1/4 */
    m = 0.0;
    gbt_row_gradients(GBT_OBJ_BINARY_LOGISTIC, &op, 1, &m, 1, 1.0f, 1.0f, g, h, 1);
    ok(g[0] == -0.5 && h[0] == 0.25, "logistic at 0: g = -0.5, h = 0.25");
    /* m = ln 3, y = 0: p = 3/4, g = 3/4, h = 3/16 */
    m = log(3.0);
    gbt_row_gradients(GBT_OBJ_REG_LOGISTIC, &op, 1, &m, 1, 0.0f, 1.0f, g, h, 1);
    ok(near(g[0], 0.75, 1e-15) && near(h[0], 0.1875, 1e-15), "logistic at ln 3, y = 0: g = 0.75, h = 0.1875");
    /* far from zero the hessian is floored at 1e-16 (p (1 - p) = e^-50) */
    m = 50.0;
    gbt_row_gradients(GBT_OBJ_BINARY_LOGITRAW, &op, 1, &m, 1, 1.0f, 1.0f, g, h, 1);
    ok(h[0] == 1e-16, "logistic hessian floor 1e-16 (got %g)", h[0]);
    {
        /* softmax of (0, ln 2, ln 3): p = (1/6, 2/6, 3/6); y = 2:
           g = (1/6, 1/3, -1/2); h = 2p(1-p) = (10/36, 4/9, 1/2) */
        double mk[3] = {0.0, log(2.0), log(3.0)};
        gbt_row_gradients(GBT_OBJ_MULTI_SOFTPROB, &op, 3, mk, 1, 2.0f, 1.0f, g, h, 1);
        ok(near(g[0], 1.0 / 6, 1e-15) && near(g[1], 1.0 / 3, 1e-15) && near(g[2], -0.5, 1e-15),
           "softmax gradients (1/6, 1/3, -1/2)");
        ok(near(h[0], 10.0 / 36, 1e-15) && near(h[1], 4.0 / 9, 1e-15) && near(h[2], 0.5, 1e-15),
           "softmax hessians (10/36, 4/9, 1/2)");
        /* stride: class k's values land k * stride apart */
        {
            double gs[7], hs[7];
            gbt_row_gradients(GBT_OBJ_MULTI_SOFTMAX, &op, 3, mk, 1, 2.0f, 1.0f, gs, hs, 3);
            ok(gs[0] == g[0] && gs[3] == g[1] && gs[6] == g[2], "gradients of class k are written k * stride apart");
        }
    }
}

/*
 * The losses of the objectives added for XGBoost compatibility, written
 * from their definitions (the gradients are their first and second
 * derivatives in the raw score m; count:poisson's hessian is the exception,
 * exp(m + max_delta_step) as XGBoost's).
 */
static double loss(int obj, double m, double y, double slope, double rho)
{
    switch (obj) {
    case GBT_OBJ_COUNT_POISSON: return exp(m) - y * m;
    case GBT_OBJ_REG_GAMMA: return y * exp(-m) + m;
    case GBT_OBJ_REG_TWEEDIE: return -y * exp((1 - rho) * m) / (1 - rho) + exp((2 - rho) * m) / (2 - rho);
    case GBT_OBJ_REG_SQUAREDLOGERROR: return 0.5 * pow(log1p(m) - log1p(y), 2);
    case GBT_OBJ_REG_PSEUDOHUBERERROR: return slope * slope * (sqrt(1 + pow((m - y) / slope, 2)) - 1);
    default: return fmax(0.0, 1.0 - (2 * y - 1) * m); /* binary:hinge */
    }
}

static void test_new_gradients(void)
{
    static const int objs[] = {GBT_OBJ_COUNT_POISSON, GBT_OBJ_REG_GAMMA, GBT_OBJ_REG_TWEEDIE,
                               GBT_OBJ_REG_SQUAREDLOGERROR, GBT_OBJ_REG_PSEUDOHUBERERROR};
    static const double ms[] = {-1.3, -0.2, 0.4, 1.7}, ys[] = {0.5, 1.0, 4.0};
    const struct gbt_obj_param q = {.scale_pos = 1.0, .poisson_delta = 0.7, .huber_slope = 2.5, .tweedie_rho = 1.3, .aft_sigma = 1.0};
    for (size_t o = 0; o < sizeof objs / sizeof objs[0]; o++) {
        int good = 1;
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
            for (size_t j = 0; j < sizeof ys / sizeof ys[0]; j++) {
                const int obj = objs[o];
                const double m = ms[i], y = ys[j], e = 1e-4, w = 1.5;
                double g, h, fd1, fd2;
                if (obj == GBT_OBJ_REG_SQUAREDLOGERROR && m < -1 + 1e-3) continue;
                /* central differences: errors of order e^2 */
                fd1 = (loss(obj, m + e, y, 2.5, 1.3) - loss(obj, m - e, y, 2.5, 1.3)) / (2 * e) * w;
                fd2 = (loss(obj, m + e, y, 2.5, 1.3) - 2 * loss(obj, m, y, 2.5, 1.3) +
                       loss(obj, m - e, y, 2.5, 1.3)) / (e * e) * w;
                if (obj == GBT_OBJ_COUNT_POISSON) fd2 = exp(m + 0.7) * w;
                if (obj == GBT_OBJ_REG_SQUAREDLOGERROR && fd2 < 1e-6 * w) fd2 = 1e-6 * w;
                gbt_row_gradients(obj, &q, 1, &m, 1, (float)y, w, &g, &h, 1);
                if (!near(g, fd1, 1e-6 * (1 + fabs(fd1))) || !near(h, fd2, 1e-5 * (1 + fabs(fd2)))) {
                    diag("%s at m = %g, y = %g: g %.10g h %.10g, derivatives %.10g %.10g",
                         gbt__objective_name(obj), m, y, g, h, fd1, fd2);
                    good = 0;
                }
            }
        ok(good, "%s: gradient and hessian are the loss's derivatives", gbt__objective_name(objs[o]));
    }
    {
        /* hinge with y = 1 (t = 1): m = 0.5 < 1 -> g = -w, h = w; m = 2 -> g = 0, h = FLT_MIN w */
        double g, h, m = 0.5;
        gbt_row_gradients(GBT_OBJ_BINARY_HINGE, &q, 1, &m, 1, 1.0f, 2.0, &g, &h, 1);
        ok(g == -2.0 && h == 2.0, "hinge inside the margin: g = -w, h = w");
        m = 2.0;
        gbt_row_gradients(GBT_OBJ_BINARY_HINGE, &q, 1, &m, 1, 1.0f, 2.0, &g, &h, 1);
        ok(g == 0.0 && h == 2.0 * FLT_MIN, "hinge outside the margin: g = 0, h = FLT_MIN w");
        m = -2.0; /* y = 0: t = -1, m t = 2 >= 1 */
        gbt_row_gradients(GBT_OBJ_BINARY_HINGE, &q, 1, &m, 1, 0.0f, 1.0, &g, &h, 1);
        ok(g == 0.0, "hinge: label 0 at m = -2 is outside the margin");
    }
}

/* gbt_log and gbt_log1p (the shared math of squaredlogerror) against the C library. */
static void test_shared_log(void)
{
    uint64_t state = 88172645463325252ull;
    double worst = 0.0, worst1p = 0.0;
    for (int i = 0; i < 200000; i++) {
        double x, u;
        uint64_t bits;
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bits = state & 0x7fefffffffffffffull; /* any positive finite double, subnormals included */
        memcpy(&x, &bits, sizeof x);
        if (x == 0) continue;
        worst = fmax(worst, fabs(gbt_log(x) - log(x)) / fmax(fabs(log(x)), 1e-300));
        u = (double)(state >> 11) / 9007199254740992.0 * 10.0 - 0.999; /* (-0.999, 9) */
        if (i % 3 == 0) u *= 1e-9;
        worst1p = fmax(worst1p, fabs(gbt_log1p(u) - log1p(u)) / fmax(fabs(log1p(u)), 1e-300));
    }
    ok(worst < 4.5e-16, "gbt_log within 2 ulp of log over 200000 doubles (worst relative error %.3g)", worst);
    ok(worst1p < 9e-16, "gbt_log1p within 4 ulp of log1p (worst relative error %.3g)", worst1p);
    ok(gbt_log(1.0) == 0.0 && gbt_log(0.0) == -INFINITY && isnan(gbt_log(-1.0)) && gbt_log(INFINITY) == INFINITY &&
           isnan(gbt_log(NAN)) && gbt_log1p(0.0) == 0.0 && gbt_log1p(-1.0) == -INFINITY,
       "gbt_log and gbt_log1p at 1, 0, -1, inf and NaN");
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
    gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 1, NULL, 0, &op, d, out);
    ok(near(out[0], log(3.0), 1e-15), "binary: starting score logit(3/4) = ln 3 (%.17g)", out[0]);
    gbt__objective_base_margin(GBT_OBJ_REG_SQUAREDERROR, 1, NULL, 0, &op, d, out);
    ok(out[0] == 0.75, "regression: starting score is the label mean");
    gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 1, (const double[]){0.25}, 1, &op, d, out);
    ok(near(out[0], -log(3.0), 1e-15), "base_score 0.25 -> logit ln(1/3)");
    ok(gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 1, (const double[]){1.5}, 1, &op, d, out) == GBT_E_PARAM &&
           strstr(gbt_last_error(), "[0, 1]"),
       "base_score outside [0, 1] refused for logistic: %s", gbt_last_error());
    /* XGBoost takes 0 and 1 (all labels alike) and bounds them to [1e-6, 1 - 1e-6] */
    gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 2, (const double[]){0.0}, 1, &op, NULL, out);
    ok(near(out[0], log(1e-6 / (1 - 1e-6)), 1e-12) && out[1] == out[0], "base_score 0 -> logit(1e-6) for each output");
    /* one value per output: a multi-class model's are raw scores (XGBoost's), others' go through the link */
    gbt__objective_base_margin(GBT_OBJ_MULTI_SOFTPROB, 3, (const double[]){0.1, -2, 0.5}, 3, &op, d, out);
    ok(out[0] == 0.1 && out[1] == -2 && out[2] == 0.5, "multiclass: a given base_score list is the raw scores");
    ok(gbt__objective_base_margin(GBT_OBJ_MULTI_SOFTPROB, 3, (const double[]){0.1, 0.2}, 2, &op, d, out) == GBT_E_PARAM &&
           strstr(gbt_last_error(), "2 values; the model has 3 output(s)"),
       "base_score of 2 values for 3 classes refused: %s", gbt_last_error());
    gbt_dataset_free(d);
    {
        /* two targets (rows (1, 0), (1, 0), (0, 1), (1, 1)): means 3/4 and 1/2 -> ln 3 and 0; given
           [0.25, 0.5] -> ln(1/3) and 0; given 0.25 for both */
        const float y2[] = {1, 0, 1, 0, 0, 1, 1, 1};
        d = labelled(y, NULL, 4);
        gbt_dataset_set_field(d, "label", y2, 8);
        gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 2, NULL, 0, &op, d, out);
        ok(near(out[0], log(3.0), 1e-15) && out[1] == 0.0, "two targets: each one's logit mean");
        gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 2, (const double[]){0.25, 0.5}, 2, &op, d, out);
        ok(near(out[0], -log(3.0), 1e-15) && out[1] == 0.0, "two targets: base_score [0.25, 0.5] -> ln(1/3), 0");
        gbt__objective_base_margin(GBT_OBJ_REG_SQUAREDERROR, 2, (const double[]){0.25}, 1, &op, d, out);
        ok(out[0] == 0.25 && out[1] == 0.25, "two targets: one base_score for both");
        gbt_dataset_free(d);
    }
    /* weights 1,1,1,3: weighted mean 3/6 = 1/2 -> logit 0 */
    d = labelled(y, w, 4);
    gbt__objective_base_margin(GBT_OBJ_BINARY_LOGISTIC, 1, NULL, 0, &op, d, out);
    ok(out[0] == 0.0, "weighted mean 1/2 -> starting score 0");
    gbt_dataset_free(d);
    /* classes 0,0,1,2: frequencies 1/2, 1/4, 1/4; centred logs: (2/3) ln 2, -(1/3) ln 2, -(1/3) ln 2 */
    d = labelled(c, NULL, 4);
    gbt__objective_base_margin(GBT_OBJ_MULTI_SOFTPROB, 3, NULL, 0, &op, d, out);
    ok(near(out[0], 2.0 / 3 * log(2.0), 1e-14) && near(out[1], -log(2.0) / 3, 1e-14) && near(out[2], out[1], 0),
       "multiclass: centred log class frequencies");
    gbt_dataset_free(d);
    {
        /* counts 1, 2, 3, 6: mean 3 -> log 3; squaredlogerror on 0, e - 1, e^2 - 1: mean log1p 1 -> e - 1;
           pseudohuber on 1, 5, 2, 100: weighted median 2 (1 and 2 weigh half); hinge: 0 */
        const float yc2[] = {1, 2, 3, 6}, ys[] = {0, (float)(2.718281828459045 - 1), (float)(2.718281828459045 * 2.718281828459045 - 1)},
                    yh[] = {1, 5, 2, 100}, wh[] = {1, 1, 1, 1};
        d = labelled(yc2, NULL, 4);
        gbt__objective_base_margin(GBT_OBJ_COUNT_POISSON, 1, NULL, 0, &op, d, out);
        ok(near(out[0], log(3.0), 1e-15), "count:poisson: starting score log(mean) = log 3");
        gbt__objective_base_margin(GBT_OBJ_REG_GAMMA, 1, (const double[]){2.0}, 1, &op, d, out);
        ok(near(out[0], log(2.0), 1e-15), "reg:gamma: base_score 2 -> raw score log 2");
        ok(gbt__objective_base_margin(GBT_OBJ_REG_TWEEDIE, 1, (const double[]){-1.0}, 1, &op, d, out) == GBT_E_PARAM,
           "reg:tweedie: base_score -1 refused: %s", gbt_last_error());
        gbt__objective_base_margin(GBT_OBJ_BINARY_HINGE, 1, NULL, 0, &op, d, out);
        ok(out[0] == 0.0, "binary:hinge: starting score 0");
        gbt_dataset_free(d);
        d = labelled(ys, NULL, 3);
        gbt__objective_base_margin(GBT_OBJ_REG_SQUAREDLOGERROR, 1, NULL, 0, &op, d, out);
        ok(near(out[0], 2.718281828459045 - 1, 1e-6), "reg:squaredlogerror: starting score exp(mean log1p) - 1 = e - 1 (%.9g)", out[0]);
        gbt_dataset_free(d);
        d = labelled(yh, wh, 4);
        gbt__objective_base_margin(GBT_OBJ_REG_PSEUDOHUBERERROR, 1, NULL, 0, &op, d, out);
        ok(out[0] == 2.0, "reg:pseudohubererror: starting score the weighted median 2 (%g)", out[0]);
        gbt_dataset_free(d);
    }
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
    {
        const float yn[] = {3, 0, -1}, yz[] = {2, 0.5f, 0}, ym[] = {0, -1, 3};
        d = labelled(yn, NULL, 3);
        ok(gbt__objective_check(GBT_OBJ_COUNT_POISSON, 0, d) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 2") &&
               strstr(gbt_last_error(), "negative"),
           "count:poisson: label -1 refused, naming the row: %s", gbt_last_error());
        ok(gbt__objective_check(GBT_OBJ_REG_TWEEDIE, 0, d) == GBT_E_FORMAT, "reg:tweedie: label -1 refused");
        gbt_dataset_free(d);
        d = labelled(yz, NULL, 3);
        ok(gbt__objective_check(GBT_OBJ_COUNT_POISSON, 0, d) == GBT_OK, "count:poisson: label 0 accepted");
        ok(gbt__objective_check(GBT_OBJ_REG_GAMMA, 0, d) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 2") &&
               strstr(gbt_last_error(), "positive"),
           "reg:gamma: label 0 refused: %s", gbt_last_error());
        gbt_dataset_free(d);
        d = labelled(ym, NULL, 3);
        ok(gbt__objective_check(GBT_OBJ_REG_SQUAREDLOGERROR, 0, d) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 1"),
           "reg:squaredlogerror: label -1 refused: %s", gbt_last_error());
        ok(gbt__objective_check(GBT_OBJ_BINARY_HINGE, 0, d) == GBT_E_FORMAT, "binary:hinge: label -1 refused");
        gbt_dataset_free(d);
    }
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
    gbt__objective_transform(GBT_OBJ_COUNT_POISSON, 1, m + 2, 0, out);
    ok(near(out[0], 3.0, 1e-6), "count:poisson gives exp(ln 3) = 3");
    gbt__objective_transform(GBT_OBJ_REG_TWEEDIE, 1, m + 1, 0, out);
    ok(near(out[0], 2.0, 1e-6), "reg:tweedie gives exp(ln 2) = 2");
    {
        const double hm[] = {-0.2, 0.0, 0.3};
        float o3[3];
        for (int i = 0; i < 3; i++) gbt__objective_transform(GBT_OBJ_BINARY_HINGE, 1, hm + i, 0, o3 + i);
        ok(o3[0] == 0.0f && o3[1] == 0.0f && o3[2] == 1.0f, "binary:hinge gives 1 for a positive raw score, else 0");
    }
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

/*
 * The metrics added for XGBoost's objectives, against XGBoost 3.2's own
 * evaluation of the same raw scores (a booster trained one round with eta=0
 * on base_margin m, weights w; xgboost.Booster.eval printed these).
 */
static void test_xgboost_metrics(void)
{
    static const float y[] = {0.5f, 1.5f, 3.5f, 2.5f, 0.5f, 6.5f}, w[] = {1, 2, 0.5f, 1, 3, 1};
    static const double m[] = {-0.3, 0.2, 1.1, 0.9, -1.0, 1.7}, m2[] = {-0.3, 0.2, 1.1, 0.9, -0.5, 1.7};
    static const struct {
        const char *metric;
        int obj;
        const double *m;
        double slope, xgb;
    } c[] = {
        {"poisson-nloglik", GBT_OBJ_COUNT_POISSON, m, 1, 1.12898109940921554},
        {"gamma-nloglik", GBT_OBJ_REG_GAMMA, m, 1, 1.20528656945509072},
        {"gamma-deviance", GBT_OBJ_REG_GAMMA, m, 1, 0.06873381839079015},
        {"tweedie-nloglik@1.5", GBT_OBJ_REG_TWEEDIE, m, 1, 4.89780431635239566},
        {"tweedie-nloglik@1.2", GBT_OBJ_REG_TWEEDIE, m, 1, 9.57288542915792995},
        {"rmsle", GBT_OBJ_REG_SQUAREDLOGERROR, m2, 1, 0.90661206083322465},
        {"mphe", GBT_OBJ_REG_PSEUDOHUBERERROR, m, 1, 1.12459439389845905},
        {"mphe", GBT_OBJ_REG_PSEUDOHUBERERROR, m, 2.5, 1.72643254434361171},
        {"mape", GBT_OBJ_REG_SQUAREDERROR, m, 1, 1.65348846421522255},
        {"rmse", GBT_OBJ_COUNT_POISSON, m, 1, 0.41201585272652153},
        {"mae", GBT_OBJ_COUNT_POISSON, m, 1, 0.29514596041511088},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct gbt_metric mt;
        double v = -1;
        if (gbt__metric_parse(c[i].metric, &mt) == GBT_OK) {
            mt.huber_slope = c[i].slope;
            if (gbt__metric_eval(&mt, c[i].obj, 1, c[i].m, y, w, 6, 1, &v) != GBT_OK) diag("%s", gbt_last_error());
        }
        ok(fabs(v - c[i].xgb) <= 1e-6 * fabs(c[i].xgb), "%s (%s, slope %g) = %.9g, XGBoost %.9g", c[i].metric,
           gbt__objective_name(c[i].obj), c[i].slope, v, c[i].xgb);
    }
    {
        struct gbt_metric mt;
        double v;
        ok(gbt__metric_parse("tweedie-nloglik", &mt) == GBT_E_PARAM && strstr(gbt_last_error(), "@"),
           "tweedie-nloglik without @RHO refused: %s", gbt_last_error());
        ok(gbt__metric_parse("tweedie-nloglik@2", &mt) == GBT_E_PARAM, "tweedie-nloglik@2 refused");
        gbt__metric_parse("gamma-deviance", &mt);
        ok(gbt__metric_eval(&mt, GBT_OBJ_REG_GAMMA, 1, m, (const float[]){1, 0, 1, 1, 1, 1}, NULL, 6, 1, &v) ==
                   GBT_E_FORMAT && strstr(gbt_last_error(), "row 1"),
           "gamma-deviance with a label 0 refused: %s", gbt_last_error());
        {
            char name[32];
            gbt__objective_default_metric(GBT_OBJ_REG_TWEEDIE, 1.3, name, sizeof name);
            ok(strcmp(name, "tweedie-nloglik@1.3") == 0, "reg:tweedie's default metric names rho: %s", name);
            gbt__objective_default_metric(GBT_OBJ_COUNT_POISSON, 1.5, name, sizeof name);
            ok(strcmp(name, "poisson-nloglik") == 0, "count:poisson's default metric: %s", name);
        }
    }
}

/*
 * Multiclass auc (XGBoost's: each class against the rest on its softmax
 * probability, weighted by the class's weight of rows) against a brute
 * force over the pairs here; aucpr the plain mean of the classes' binary
 * aucpr; a class without rows makes both NaN.
 */
static void test_multiclass_auc(void)
{
    enum { N = 7, K = 3 };
    const double m[N * K] = {2, 0, 0, 0.5, 1, 0, 0, 0, 1.5, 1, 1, 0, 0, 2, 0.5, 0.2, 0.1, 1, 1, 0, 0};
    const float y[N] = {0, 1, 2, 0, 1, 2, 1}, w[N] = {1, 2, 1, 0.5, 1, 3, 1}, y01[N] = {0, 1, 0, 0, 1, 0, 1};
    double want[2] = {0, 0}, pr = 0;
    for (int weighted = 0; weighted < 2; weighted++) {
        double sum = 0, psum = 0;
        for (int c = 0; c < K; c++) {
            double p[N], area = 0, pos = 0, neg = 0;
            for (int i = 0; i < N; i++) {
                double z = 0;
                for (int k = 0; k < K; k++) z += exp(m[i * K + k]);
                p[i] = (float)(exp(m[i * K + c]) / z);
            }
            for (int i = 0; i < N; i++)
                for (int j = 0; j < N; j++) {
                    const double wi = weighted ? w[i] : 1, wj = weighted ? w[j] : 1;
                    if (y[i] != c || y[j] == c) continue;
                    area += wi * wj * (p[i] > p[j] ? 1.0 : p[i] == p[j] ? 0.5 : 0.0);
                }
            for (int i = 0; i < N; i++) *(y[i] == c ? &pos : &neg) += weighted ? w[i] : 1;
            sum += area / (pos * neg) * pos;
            psum += pos;
        }
        want[weighted] = sum / psum;
    }
    ok(near(metric("auc", GBT_OBJ_MULTI_SOFTPROB, K, m, y, NULL, N), want[0], 1e-12),
       "multiclass auc = the brute force's %.6f", want[0]);
    ok(near(metric("auc", GBT_OBJ_MULTI_SOFTMAX, K, m, y, w, N), want[1], 1e-12),
       "weighted multiclass auc (multi:softmax) = the brute force's %.6f", want[1]);
    {
        /* each class's aucpr on its probabilities (binary aucpr is tested against XGBoost in test_ranking.c) */
        double p1[N];
        for (int c = 0; c < K; c++) {
            for (int i = 0; i < N; i++) {
                double z = 0;
                for (int k = 0; k < K; k++) z += exp(m[i * K + k]);
                p1[i] = (double)(float)(exp(m[i * K + c]) / z);
            }
            float yc[N];
            for (int i = 0; i < N; i++) yc[i] = y[i] == c;
            pr += metric("aucpr", GBT_OBJ_BINARY_LOGITRAW, 1, p1, yc, w, N) / K;
        }
        ok(near(metric("aucpr", GBT_OBJ_MULTI_SOFTPROB, K, m, y, w, N), pr, 1e-12),
           "multiclass aucpr = the mean of the classes' aucpr (%.6f)", pr);
    }
    ok(isnan(metric("auc", GBT_OBJ_MULTI_SOFTPROB, K, m, y01, NULL, N)) &&
           isnan(metric("aucpr", GBT_OBJ_MULTI_SOFTPROB, K, m, y01, NULL, N)),
       "a class without rows makes multiclass auc and aucpr NaN");
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
        ok(gbt__metric_parse("not-a-metric", &mt) == GBT_E_PARAM, "unknown metric refused");
        ok(gbt__metric_parse("error@x", &mt) == GBT_E_PARAM, "bad threshold refused");
        gbt__metric_parse("mlogloss", &mt);
        ok(gbt__metric_eval(&mt, GBT_OBJ_BINARY_LOGISTIC, 1, lm, yl, NULL, 2, 1, &v) == GBT_E_PARAM,
           "mlogloss on a binary model refused");
        gbt__metric_parse("auc", &mt);
        ok(gbt__metric_eval(&mt, GBT_OBJ_REG_QUANTILEERROR, 2, lm, yl, NULL, 1, 1, &v) == GBT_E_PARAM,
           "auc on two quantiles refused");
    }
    test_multiclass_auc();
}

int main(void)
{
    test_gradients();
    test_new_gradients();
    test_shared_log();
    test_base_margin();
    test_label_checks();
    test_transforms();
    test_metrics();
    test_xgboost_metrics();
    return done_testing();
}
