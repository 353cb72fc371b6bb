/*
 * test_survival.c - survival:aft and survival:cox: gradients and hessians
 * against finite differences of losses written here independently, the Cox
 * gradients against a brute-force O(n^2) evaluation, the metrics against
 * values by hand and XGBoost 3.2.0's own evaluation, label checks, the
 * interval fields and side files, and trainings that learn.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/surv_math.h"
#include "data/dataset.h"
#include "gbt.h"
#include "metric/metric.h"
#include "objective/surv_order.h"
#include "tap.h"
#include "testutil.h"

/* ---- an independent AFT loss: distributions from the C library ---------- */

static double ind_cdf(int dist, double z)
{
    if (dist == GBT_AFT_NORMAL) return 0.5 * (1.0 + erf(z / sqrt(2.0)));
    if (dist == GBT_AFT_LOGISTIC) return 1.0 / (1.0 + exp(-z));
    return -expm1(-exp(z)); /* Gumbel of minima */
}

static double ind_logpdf(int dist, double z)
{
    if (dist == GBT_AFT_NORMAL) return -0.5 * z * z - 0.5 * log(2.0 * 3.14159265358979323846);
    if (dist == GBT_AFT_LOGISTIC) return -z - 2.0 * log1p(exp(-z));
    return z - exp(z);
}

/* -log likelihood of time in [lo, hi] given log-time mean m and scale s (no clamping). */
static double ind_loss(int dist, double s, double lo, double hi, double m)
{
    if (lo == hi) return -(ind_logpdf(dist, (log(lo) - m) / s) - log(s * lo));
    {
        double Fh = isinf(hi) ? 1.0 : ind_cdf(dist, (log(hi) - m) / s);
        double Fl = lo > 0 ? ind_cdf(dist, (log(lo) - m) / s) : 0.0;
        return -log(Fh - Fl);
    }
}

static void test_aft_derivatives(void)
{
    static const double cases[][2] = {
        {1.5, 1.5}, {0.3, 0.3}, {2.0, INFINITY}, {0.0, 3.0}, {1.0, 4.0}, {0.5, 0.9}, {7.0, 7.0},
    };
    static const double margins[] = {-1.2, -0.3, 0.0, 0.4, 1.1, 2.0};
    static const double sigmas[] = {1.0, 0.6, 1.7};
    for (int dist = 0; dist < 3; dist++) {
        int checked = 0, bad = 0;
        double worst = 0.0;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            for (size_t k = 0; k < sizeof margins / sizeof margins[0]; k++)
                for (size_t q = 0; q < sizeof sigmas / sizeof sigmas[0]; q++) {
                    const double lo = cases[c][0], hi = cases[c][1], m = margins[k], s = sigmas[q];
                    const double e = 1e-4;
                    double g, h, fd_g, fd_h, l0 = ind_loss(dist, s, lo, hi, m);
                    double lp = ind_loss(dist, s, lo, hi, m + e), lm = ind_loss(dist, s, lo, hi, m - e);
                    gbt_aft_gradient(dist, s, lo, hi, m, &g, &h);
                    fd_g = (lp - lm) / (2 * e);
                    fd_h = (lp - 2 * l0 + lm) / (e * e);
                    /* only where no clamp applies */
                    if (fabs(fd_g) > 14.0 || fd_h > 14.0 || fd_h < 1e-3) continue;
                    checked++;
                    {
                        double dg = fabs(g - fd_g), dh = fabs(h - fd_h) / (fabs(fd_h) > 1 ? fabs(fd_h) : 1);
                        if (dg > worst) worst = dg;
                        if (dh > worst) worst = dh;
                        if (dg > 1e-6 || dh > 1e-4) {
                            if (bad++ < 3)
                                diag("dist %d [%g, %g] m %g s %g: g %.9g fd %.9g, h %.9g fd %.9g", dist,
                                     lo, hi, m, s, g, fd_g, h, fd_h);
                        }
                    }
                    /* the loss itself, as the metric computes it */
                    if (fabs(gbt_aft_loss(dist, s, lo, hi, m) - l0) > 1e-9 * (1 + fabs(l0))) {
                        if (bad++ < 3) diag("dist %d [%g, %g] m %g s %g: loss %.12g vs %.12g", dist, lo, hi,
                                            m, s, gbt_aft_loss(dist, s, lo, hi, m), l0);
                    }
                }
        ok(bad == 0 && checked > 80,
           "aft %s: gradient, hessian and loss = finite differences of an independent loss (%d points, "
           "worst difference %.2g)",
           dist == 0 ? "normal" : dist == 1 ? "logistic" : "extreme", checked, worst);
    }
}

/* Far from the data the derivatives take their limits and clamps, never NaN. */
static void test_aft_clamps(void)
{
    int bad = 0;
    for (int dist = 0; dist < 3; dist++)
        for (int c = 0; c < 4; c++)
            for (int side = -1; side <= 1; side += 2) {
                static const double lo[] = {2.0, 2.0, 0.0, 1.0}, hi[] = {2.0, INFINITY, 3.0, 4.0};
                const double m = side * 800.0;
                double g, h;
                gbt_aft_gradient(dist, 1.0, lo[c], hi[c], m, &g, &h);
                if (!(g >= -15.0 && g <= 15.0 && h >= 1e-16 && h <= 15.0)) {
                    bad++;
                    diag("dist %d case %d m %g: g %g h %g", dist, c, m, g, h);
                }
                /* a score far above the time pushes down (g > 0), far below pushes up */
                if ((c != 1 || side < 0) && (c != 2 || side > 0) && (side > 0 ? !(g > 0) : !(g < 0))) {
                    bad++;
                    diag("dist %d case %d m %g: gradient %g has the wrong sign", dist, c, m, g);
                }
            }
    {
        double g, h;
        gbt_aft_gradient(GBT_AFT_NORMAL, 1.0, 1.0, 1.0, -40.0, &g, &h);
        ok(bad == 0 && g == -15.0 && h == 1.0,
           "aft far from the data: clamped to [-15, 15] and [1e-16, 15], right signs (normal "
           "observed at m = -40: g %g, h %g)", g, h);
    }
}

/*
 * Far from the data, against XGBoost 3.2.0 (tests/xgb_ref_survival.py): the
 * gradient and hessian of one row recovered from the leaf XGBoost grows for it (two rows with the same
 * interval and base_margin m, eta 1, max_depth 1, min_child_weight 0: the
 * leaf is -G/(H + lambda); with lambda 0 and 1, g = G/2 and h = H/2 follow).
 * scale 1; rows where XGBoost's leaf did not move have g = 0 (listed as 0;
 * gbt gives |g| < 1e-20 there).  XGBoost's leaf is a float: 1e-4 relative.
 */
static void test_aft_far_vs_xgboost(void)
{
    static const struct {
        int dist;
        double lo, hi, m, g, h;
    } xgb[] = {
        {0, 2, 2, -60, -15, 1},         {0, 2, 2, 60, 15, 1},          {0, 2, INFINITY, -60, -15, 1},
        {0, 2, INFINITY, 60, 0, -1},    {0, 0, 3, -60, 0, -1},         {0, 0, 3, 60, 15, 1},
        {0, 1, 4, -60, -15, 1},         {0, 1, 4, 60, 15, 1},          {1, 2, 2, -60, -1, 1e-16},
        {1, 2, 2, 60, 1, 1e-16},        {1, 2, INFINITY, -60, -1, 1e-16}, {1, 2, INFINITY, 60, 0, -1},
        {1, 0, 3, -60, 0, -1},          {1, 0, 3, 60, 1, 1e-16},       {1, 1, 4, -60, -1, 1e-16},
        {1, 1, 4, 60, 1, 1e-16},        {2, 2, 2, -60, -15, 15},       {2, 2, 2, 60, 1, 1e-16},
        {2, 2, INFINITY, -60, -15, 15}, {2, 2, INFINITY, 60, 0, -1},   {2, 0, 3, -60, 0, -1},
        {2, 0, 3, 60, 1, 1e-16},        {2, 1, 4, -60, -15, 15},       {2, 1, 4, 60, 1, 1e-16},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof xgb / sizeof xgb[0]; i++) {
        double g, h;
        gbt_aft_gradient(xgb[i].dist, 1.0, xgb[i].lo, xgb[i].hi, xgb[i].m, &g, &h);
        if (xgb[i].h < 0 ? fabs(g) > 1e-20
                         : fabs(g - xgb[i].g) > 1e-4 * fabs(xgb[i].g) || fabs(h - xgb[i].h) > 1e-4 * xgb[i].h) {
            bad++;
            diag("dist %d [%g, %g] m %g: g %g h %g, XGBoost g %g h %g", xgb[i].dist, xgb[i].lo, xgb[i].hi,
                 xgb[i].m, g, h, xgb[i].g, xgb[i].h);
        }
    }
    ok(bad == 0, "aft 60 sigmas from the data: XGBoost 3.2.0's clamped gradients and hessians, 24 cases");
}

/* ---- Cox ------------------------------------------------------------------- */

/* The Breslow loss: sum over events of log(sum of exp(m) over |y| >= |y_i|) - m_i. */
static double cox_loss(const double *m, const float *y, int n)
{
    double L = 0.0;
    for (int i = 0; i < n; i++) {
        double R = 0.0;
        if (!(y[i] > 0)) continue;
        for (int j = 0; j < n; j++)
            if (fabsf(y[j]) >= fabsf(y[i])) R += exp(m[j]);
        L += log(R) - m[i];
    }
    return L;
}

static void test_cox_gradients(void)
{
    /* ties at 2 (two events, one censoring) and at 4 (an event and a censoring) */
    static const float y[] = {2.0f, -1.5f, 3.0f, 2.0f, -2.0f, 0.5f, 4.0f, -4.0f, 1.0f, 2.5f};
    static const float w[] = {1.0f, 2.0f, 0.5f, 1.0f, 1.5f, 1.0f, 3.0f, 0.25f, 1.0f, 2.0f};
    double m[10] = {0.2, -0.1, 0.5, 0.0, 0.3, -0.7, 1.1, 0.4, -0.2, 0.8};
    double g[10], h[10], gw[10], hw[10], worst_g = 0, worst_h = 0;
    uint32_t *order = NULL;
    const int n = 10;
    ok_call(gbt__surv_order(y, n, &order), "cox order");
    {
        int sorted = 1;
        for (int i = 1; i < n; i++)
            if (fabsf(y[order[i - 1]]) > fabsf(y[order[i]]) ||
                (fabsf(y[order[i - 1]]) == fabsf(y[order[i]]) && order[i - 1] > order[i]))
                sorted = 0;
        ok(sorted, "cox order: by |label|, ties by row");
    }
    gbt_cox_gradients(n, order, m, y, NULL, g, h);
    gbt_cox_gradients(n, order, m, y, w, gw, hw);
    for (int i = 0; i < n; i++) {
        const double e = 1e-5, keep = m[i];
        double lp, lm, l0 = cox_loss(m, y, n);
        m[i] = keep + e;
        lp = cox_loss(m, y, n);
        m[i] = keep - e;
        lm = cox_loss(m, y, n);
        m[i] = keep;
        if (fabs(g[i] - (lp - lm) / (2 * e)) > worst_g) worst_g = fabs(g[i] - (lp - lm) / (2 * e));
        if (fabs(h[i] - (lp - 2 * l0 + lm) / (e * e)) > worst_h)
            worst_h = fabs(h[i] - (lp - 2 * l0 + lm) / (e * e));
    }
    ok(worst_g < 1e-7 && worst_h < 1e-4,
       "cox gradients and hessians = finite differences of the Breslow loss with ties (worst %.2g, %.2g)",
       worst_g, worst_h);
    {
        int same = 1;
        for (int i = 0; i < n; i++)
            if (fabs(gw[i] - g[i] * w[i]) > 1e-15 || fabs(hw[i] - h[i] * w[i]) > 1e-15) same = 0;
        ok(same, "cox with weights: each row's gradient and hessian times its weight");
    }
    free(order);
}

/* ---- metrics ------------------------------------------------------------- */

static gbt_dataset *rows_dataset(int n)
{
    float *x = calloc((size_t)n, sizeof *x);
    gbt_dataset *d = NULL;
    gbt_dataset_from_dense(x, (uint64_t)n, 1, NAN, &d);
    free(x);
    return d;
}

static double surv_metric(const char *name, int dist, double sigma, const gbt_dataset *d,
                          const double *margin)
{
    struct gbt_metric m;
    double v = NAN;
    if (gbt__metric_parse(name, &m) != GBT_OK) return NAN;
    m.aft_dist = dist;
    m.aft_sigma = sigma;
    if (gbt__metric_surv_eval(&m, d, margin, &v) != GBT_OK) diag("%s: %s", name, gbt_last_error());
    return v;
}

static void test_metrics(void)
{
    /*
     * The reference values are XGBoost 3.2.0's evaluation of these raw
     * scores given as base_margin (xgb.train with eta=0, max_depth=1, one
     * round, then Booster.eval), printed with 17 digits by
     * tests/xgb_ref_survival.py:
     *   d = xgb.DMatrix(zeros((8, 1)), base_margin=m[, weight=w])
     *   d.set_float_info('label_lower_bound', lo); ... 'label_upper_bound', hi
     *   xgb.train({'objective': 'survival:aft', 'aft_loss_distribution': dist,
     *              'eval_metric': ['aft-nloglik', 'interval-regression-accuracy'],
     *              'eta': 0.0, 'max_depth': 1}, d, 1).eval(d)
     * (XGBoost 3.2.0's aft-nloglik ignores aft_loss_distribution_scale: its
     * value is the same for 0.7 and 2.0 as for 1; gbt's uses it, checked
     * against the independent loss below.)
     */
    static const float lo[] = {1.0f, 2.0f, 0.5f, 0.0f, 3.0f, 0.7f, 4.0f, 1.5f};
    static const float hi[] = {1.0f, INFINITY, 0.5f, 2.0f, 6.0f, INFINITY, 4.0f, 2.5f};
    static const float mf[] = {0.1f, 0.3f, -0.4f, 0.2f, 1.5f, -2.0f, 1.2f, 0.6f};
    static const float w[] = {1.0f, 2.0f, 0.5f, 1.0f, 1.5f, 1.0f, 3.0f, 0.25f};
    static const double xgb_nll[2][3] = {
        {1.35606196923570743, 1.48976135907362628, 1.71221727974773685},
        {1.54812812280062628, 1.69421596869867064, 1.87761753855601055},
    };
    static const double xgb_acc[2] = {0.37500000000000000, 0.26829268292682928};
    double m[8];
    gbt_dataset *d = rows_dataset(8);
    for (int i = 0; i < 8; i++) m[i] = (double)mf[i];
    ok_call(gbt_dataset_set_field(d, "label_lower_bound", lo, 8), "set label_lower_bound");
    ok_call(gbt_dataset_set_field(d, "label_upper_bound", hi, 8), "set label_upper_bound (with inf)");
    for (int weighted = 0; weighted < 2; weighted++) {
        if (weighted) gbt_dataset_set_field(d, "weight", w, 8);
        for (int dist = 0; dist < 3; dist++) {
            double v = surv_metric("aft-nloglik", dist, 1.0, d, m);
            ok(fabs(v - xgb_nll[weighted][dist]) < 1e-6,
               "aft-nloglik %s%s = XGBoost 3.2.0's: %.9f vs %.9f",
               dist == 0 ? "normal" : dist == 1 ? "logistic" : "extreme", weighted ? " weighted" : "", v,
               xgb_nll[weighted][dist]);
        }
        {
            double v = surv_metric("interval-regression-accuracy", 0, 1.0, d, m);
            ok(fabs(v - xgb_acc[weighted]) < 1e-12,
               "interval-regression-accuracy%s = XGBoost 3.2.0's: %.9f vs %.9f", weighted ? " weighted" : "",
               v, xgb_acc[weighted]);
        }
    }
    {
        /* by hand: exp(m) in [lo, hi] for rows 1 (1.35 in [2, inf)? no), ... weighted 11/41 */
        double by_hand = 0.0, tot = 0.0;
        for (int i = 0; i < 8; i++) {
            double p = exp(m[i]);
            by_hand += w[i] * (p >= lo[i] && p <= hi[i]);
            tot += w[i];
        }
        ok(fabs(by_hand / tot - 11.0 / 41.0) < 1e-15, "interval accuracy by hand: 11/41 (rows 3, 4 and 6 inside)");
    }
    {
        /* a scale other than 1: the weighted mean of the independent loss */
        double sum = 0.0, tot = 0.0, v = surv_metric("aft-nloglik", GBT_AFT_LOGISTIC, 0.7, d, m);
        for (int i = 0; i < 8; i++) {
            sum += w[i] * ind_loss(GBT_AFT_LOGISTIC, 0.7, lo[i], hi[i], m[i]);
            tot += w[i];
        }
        ok(fabs(v - sum / tot) < 1e-9, "aft-nloglik logistic sigma 0.7 = the independent loss: %.9f vs %.9f", v,
           sum / tot);
    }
    gbt_dataset_free(d);

    {
        /*
         * cox-nloglik: XGBoost 3.2.0 on these labels and raw scores
         * (xgb.train({'objective': 'survival:cox', 'eval_metric': 'cox-nloglik', 'eta': 0.0,
         * 'max_depth': 1}, DMatrix(zeros((9, 1)), label=y, base_margin=mc), 1).eval(...))
         * gives 1.98049436671079193.
         */
        static const float y[] = {2.0f, -1.5f, 3.0f, 2.0f, -2.0f, 0.5f, 4.0f, -4.0f, 1.0f};
        static const float mc[] = {0.2f, -0.1f, 0.5f, 0.0f, 0.3f, -0.7f, 1.1f, 0.4f, -0.2f};
        double mm[9], v, brute = 0.0;
        int events = 0;
        gbt_dataset *dc = rows_dataset(9);
        for (int i = 0; i < 9; i++) mm[i] = (double)mc[i];
        gbt_dataset_set_field(dc, "label", y, 9);
        v = surv_metric("cox-nloglik", 0, 1.0, dc, mm);
        ok(fabs(v - 1.98049436671079193) < 1e-6, "cox-nloglik = XGBoost 3.2.0's: %.9f vs 1.980494367", v);
        for (int i = 0; i < 9; i++)
            if (y[i] > 0) events++;
        brute = cox_loss(mm, y, 9) / events;
        ok(fabs(v - brute) < 1e-12, "cox-nloglik = the brute-force Breslow loss per event: %.12f vs %.12f", v,
           brute);
        gbt_dataset_free(dc);
    }
}

/* ---- labels, fields, side files ------------------------------------------ */

static gbt_status train_on(gbt_dataset *d, const char *objective, int rounds, gbt_booster **out)
{
    char o[64];
    const char *set[] = {o, "verbosity=0", "nthread=1", NULL};
    gbt_booster *b;
    snprintf(o, sizeof o, "objective=%s", objective);
    b = tu_booster(set);
    gbt_status s = b ? GBT_OK : GBT_E_INTERNAL;
    if (s == GBT_OK) s = gbt_booster_train(b, d, rounds, NULL, NULL, 0);
    if (out && s == GBT_OK)
        *out = b;
    else
        gbt_booster_free(b);
    return s;
}

static void test_checks(void)
{
    gbt_dataset *d = rows_dataset(4);
    const float bad_cox[] = {1.0f, -2.0f, 0.0f, 3.0f};
    const float lo[] = {1.0f, 2.0f, 3.0f, 1.0f}, hi_bad[] = {1.0f, 1.5f, 4.0f, 2.0f};
    const float zero[] = {1.0f, 0.0f, 2.0f, 3.0f};
    const float neg[] = {1.0f, -1.0f, 2.0f, 3.0f}, inf[] = {1.0f, INFINITY, 2.0f, 3.0f};
    const float *got;
    uint64_t n = 0;
    gbt_dataset_set_field(d, "label", bad_cox, 4);
    ok(train_on(d, "survival:cox", 1, NULL) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 2") &&
           strstr(gbt_last_error(), "survival:cox"),
       "survival:cox: a zero label is refused, naming row 2: %s", gbt_last_error());
    gbt_dataset_set_field(d, "label_lower_bound", lo, 4);
    ok(train_on(d, "survival:aft", 1, NULL) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "label_upper_bound"),
       "survival:aft: one bound without the other is refused: %s", gbt_last_error());
    gbt_dataset_set_field(d, "label_upper_bound", hi_bad, 4);
    ok(train_on(d, "survival:aft", 1, NULL) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 1") &&
           strstr(gbt_last_error(), "upper bound is below"),
       "survival:aft: upper < lower is refused, naming row 1: %s", gbt_last_error());
    gbt_dataset_set_field(d, "label_lower_bound", NULL, 0);
    gbt_dataset_set_field(d, "label_upper_bound", NULL, 0);
    gbt_dataset_set_field(d, "label", zero, 4);
    ok(train_on(d, "survival:aft", 1, NULL) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 1") &&
           strstr(gbt_last_error(), "observed time"),
       "survival:aft with labels as times: a time of 0 is refused, naming row 1: %s", gbt_last_error());
    ok(gbt_dataset_set_field(d, "label_lower_bound", neg, 4) == GBT_E_FORMAT,
       "label_lower_bound: negative values are refused: %s", gbt_last_error());
    ok(gbt_dataset_set_field(d, "label_lower_bound", inf, 4) == GBT_E_FORMAT,
       "label_lower_bound: inf is refused: %s", gbt_last_error());
    {
        /* -inf: no lower bound, left-censored as 0 (XGBoost's reading) */
        const float minf[] = {1.0f, -INFINITY, 2.0f, 3.0f};
        ok(gbt_dataset_set_field(d, "label_lower_bound", minf, 4) == GBT_OK &&
               gbt_dataset_get_field(d, "label_lower_bound", &got, &n) == GBT_OK && n == 4 && got[1] == 0.0f &&
               got[0] == 1.0f,
           "label_lower_bound takes -inf as 0 (left-censored)");
        gbt_dataset_set_field(d, "label_lower_bound", NULL, 0);
    }
    ok(gbt_dataset_set_field(d, "label_upper_bound", inf, 4) == GBT_OK &&
           gbt_dataset_get_field(d, "label_upper_bound", &got, &n) == GBT_OK && n == 4 && isinf(got[1]),
       "label_upper_bound takes +inf and reads back");
    gbt_dataset_free(d);
}

static void test_side_files(void)
{
    char path[1024];
    gbt_dataset *d = NULL;
    const float *lo = NULL, *hi = NULL;
    uint64_t nl = 0, nh = 0;
    snprintf(path, sizeof path, "%s", tu_write("surv.csv", "0,1\n0,2\n0,3\n"));
    tu_write("surv.csv.lower", "1\n2.5\n0\n");
    tu_write("surv.csv.upper", "1\ninf\n4\n");
    ok_call(gbt_dataset_from_file(path, "label_column=0", &d), "read a CSV with .lower and .upper side files");
    if (d) {
        gbt_dataset_get_field(d, "label_lower_bound", &lo, &nl);
        gbt_dataset_get_field(d, "label_upper_bound", &hi, &nh);
    }
    ok(nl == 3 && nh == 3 && lo[1] == 2.5f && lo[2] == 0.0f && hi[0] == 1.0f && isinf(hi[1]) && hi[2] == 4.0f,
       "FILE.lower and FILE.upper become label_lower_bound and label_upper_bound (inf read)");
    gbt_dataset_free(d);
    tu_write("surv.csv.lower", "1\n2.5\n-inf\n");
    ok(gbt_dataset_from_file(path, "label_column=0", &d) == GBT_OK &&
           gbt_dataset_get_field(d, "label_lower_bound", &lo, &nl) == GBT_OK && nl == 3 && lo[2] == 0.0f,
       "-inf in FILE.lower is a left-censored 0");
    gbt_dataset_free(d);
    tu_write("surv.csv.upper", "1\n-inf\n4\n");
    ok(gbt_dataset_from_file(path, "label_column=0", &d) == GBT_E_FORMAT, "-inf in FILE.upper is refused: %s",
       gbt_last_error());
    tu_write("surv.csv.upper", "1\ninf\n4\n");
    tu_write("surv.csv.lower", "1\n-2\n0\n");
    ok(gbt_dataset_from_file(path, "label_column=0", &d) == GBT_E_FORMAT, "a negative lower bound in FILE.lower is refused: %s",
       gbt_last_error());
}

/* ---- training -------------------------------------------------------------- */

/*
 * Times log T = x0 - 0.5 x1 + noise, censored at random (right-censored
 * at a time below the true one): trainings lower their loss well below
 * the constant model's.
 */
static void make_survival(int n, float *x, float *y_cox, float *lo, float *hi)
{
    for (int i = 0; i < n; i++) {
        double a = tu_unit() * 2 - 1, b = tu_unit() * 2 - 1, e = (tu_unit() - 0.5) * 0.6;
        double t = exp(1.5 * a - 0.8 * b + e), c = tu_unit() < 0.3 ? t * (0.3 + 0.6 * tu_unit()) : -1;
        x[2 * i] = (float)a;
        x[2 * i + 1] = (float)b;
        if (c > 0) {
            y_cox[i] = -(float)c;
            lo[i] = (float)c;
            hi[i] = INFINITY;
        } else {
            y_cox[i] = (float)t;
            lo[i] = hi[i] = (float)t;
        }
    }
}

static void test_training(void)
{
    enum { N = 600 };
    static float x[2 * N], yc[N], lo[N], hi[N];
    gbt_dataset *d = NULL;
    tu_seed(5);
    make_survival(N, x, yc, lo, hi);
    gbt_dataset_from_dense(x, N, 2, NAN, &d);
    gbt_dataset_set_field(d, "label", yc, N);
    gbt_dataset_set_field(d, "label_lower_bound", lo, N);
    gbt_dataset_set_field(d, "label_upper_bound", hi, N);
    for (int o = 0; o < 4; o++) {
        static const char *const dists[] = {"normal", "logistic", "extreme"};
        const char *obj = o == 3 ? "survival:cox" : "survival:aft", *metric = o == 3 ? "cox-nloglik" : "aft-nloglik";
        char so[64], sd[64];
        const char *set[] = {so, sd, "verbosity=0", "max_depth=3", NULL};
        gbt_booster *b0, *b;
        double v0 = NAN, v = NAN;
        static float p[N];
        gbt_status s;
        snprintf(so, sizeof so, "objective=%s", obj);
        snprintf(sd, sizeof sd, "aft_loss_distribution=%s", o < 3 ? dists[o] : "normal");
        b0 = tu_booster(set);
        b = tu_booster(set);
        s = gbt_booster_train(b0, d, 0, NULL, NULL, 0);
        if (s == GBT_OK) s = gbt_booster_update(b0, d); /* one round with eta 0.3 still near the start */
        if (s == GBT_OK) s = gbt_booster_eval(b0, d, metric, &v0);
        if (s == GBT_OK) s = gbt_booster_train(b, d, 40, NULL, NULL, 0);
        if (s == GBT_OK) s = gbt_booster_eval(b, d, metric, &v);
        if (s == GBT_OK) s = gbt_booster_predict(b, d, 0, p, N);
        if (s != GBT_OK) diag("%s: %s", obj, gbt_last_error());
        ok(s == GBT_OK && v < 0.9 * v0 && p[0] > 0,
           "%s%s%s learns: %s %.4f after 1 round, %.4f after 40; predictions positive (%g)", obj,
           o < 3 ? " " : "", o < 3 ? dists[o] : "", metric, v0, v, (double)p[0]);
        gbt_booster_free(b0);
        gbt_booster_free(b);
    }
    {
        /* the defaults: metric, base score, transform */
        const char *set[] = {"objective=survival:aft", "verbosity=0", NULL};
        gbt_booster *b = tu_booster(set);
        static float pm[N], pp[N];
        gbt_booster_train(b, d, 0, NULL, NULL, 0);
        gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, pm, N);
        gbt_booster_predict(b, d, 0, pp, N);
        ok(pm[0] == (float)log(0.5) && pp[0] == 0.5f, "survival:aft starts at base_score 0.5: raw log 0.5, prediction 0.5 (%g, %g)", (double)pm[0], (double)pp[0]);
        gbt_booster_free(b);
    }
    {
        const char *set[] = {"objective=survival:cox", "verbosity=0", NULL};
        gbt_booster *b = tu_booster(set);
        static float pm[N], pp[N];
        gbt_booster_train(b, d, 0, NULL, NULL, 0);
        gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, pm, N);
        gbt_booster_predict(b, d, 0, pp, N);
        ok(pm[N - 1] == 0.0f && pp[N - 1] == 1.0f, "survival:cox starts at a hazard ratio of 1 (raw 0)");
        gbt_booster_free(b);
    }
    gbt_dataset_free(d);
}

int main(void)
{
    test_aft_derivatives();
    test_aft_clamps();
    test_aft_far_vs_xgboost();
    test_cox_gradients();
    test_metrics();
    test_checks();
    test_side_files();
    test_training();
    tu_cleanup();
    return done_testing();
}
