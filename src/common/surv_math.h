/*
 * surv_math.h - the survival objectives' losses, gradients and hessians:
 * survival:aft (accelerated failure time) and survival:cox (Cox
 * proportional hazards, Breslow's partial likelihood).  One definition,
 * compiled by gcc and nvcc alike (GBT_SHARED); the training computes these
 * on the host for every backend (docs/decisions.md, "Survival gradients").
 *
 * AFT.  log T = m + sigma Z, with Z of density f and distribution F
 * (normal, logistic or extreme: the Gumbel of minima), m the raw score, T
 * known to lie in [lo, hi] (lo == hi: observed; hi = +inf: right-censored;
 * lo = 0: left-censored).  With z = (log t - m) / sigma:
 *   observed   loss = -log(f(z) / (sigma t))
 *              g = f'(z) / (sigma f(z))
 *              h = (f'(z)^2 - f(z) f''(z)) / (sigma f(z))^2
 *   interval   loss = -log(F(z_hi) - F(z_lo))     (F(z_hi) = 1 for hi = inf,
 *                                                  F(z_lo) = 0 for lo = 0)
 *              g = (f(z_hi) - f(z_lo)) / (sigma D),  D = F(z_hi) - F(z_lo)
 *              h = ((f_hi - f_lo)^2 - D (f'_hi - f'_lo)) / (sigma D)^2
 * As XGBoost does: the probability in a log is at least 1e-12; where the
 * fraction's denominator is below 1e-12 and the fraction is not finite
 * (the raw score is far from the data), g and h take their limits as
 * |m| -> inf (aft_limit below); then g is clipped to [-15, 15] and h to
 * [1e-16, 15].
 *
 * Cox.  y > 0 is an event at time y, y < 0 a censoring at -y.  With
 * p_i = exp(m_i) and R(t) = the sum of p over rows with |y| >= t (the risk
 * set; Breslow's rule for ties: rows of equal time share one), the loss
 * sum over events i of log R(|y_i|) - m_i has the derivatives
 *   g_i = p_i A_i - [y_i > 0]      h_i = p_i A_i - p_i^2 B_i
 *   A_i = sum over events j with |y_j| <= |y_i| of 1 / R(|y_j|)
 *   B_i = the same sum of 1 / R(|y_j|)^2
 * both times the row's weight, as XGBoost weighs them.  (XGBoost counts,
 * within a group of tied times, only the events sorted before the row;
 * its order within the group is unspecified.  docs/decisions.md.)
 */
#ifndef GBT_COMMON_SURV_MATH_H
#define GBT_COMMON_SURV_MATH_H

#include <math.h>
#include <stdint.h>

#include "common/gmath.h"

#define GBT_AFT_MIN_GRAD (-15.0)
#define GBT_AFT_MAX_GRAD 15.0
#define GBT_AFT_MIN_HESS 1e-16
#define GBT_AFT_MAX_HESS 15.0
#define GBT_AFT_EPS 1e-12

enum gbt_aft_dist { GBT_AFT_NORMAL = 0, GBT_AFT_LOGISTIC = 1, GBT_AFT_EXTREME = 2 };

/* What is known of a row's time: the four cases of the limits below. */
enum gbt_aft_censor { GBT_AFT_OBSERVED, GBT_AFT_RIGHT, GBT_AFT_LEFT, GBT_AFT_INTERVAL };

#define GBT_SQRT_2PI 2.5066282746310002

/* The density f, its distribution F and the derivatives f', f'' of a standard distribution. */
GBT_SHARED void gbt_aft_dist_eval(int dist, double z, double *f, double *F, double *df,
                                  double *d2f)
{
    if (dist == GBT_AFT_NORMAL) {
        const double p = gbt_exp(-0.5 * z * z) / GBT_SQRT_2PI;
        *f = p;
        *F = 0.5 * erfc(-z / 1.4142135623730951);
        *df = -z * p;
        *d2f = (z * z - 1.0) * p;
    } else if (dist == GBT_AFT_LOGISTIC) {
        const double w = gbt_exp(z), q = 1.0 + w;
        const double p = isinf(w) ? 0.0 : w / (q * q);
        *f = p;
        *F = isinf(w) ? 1.0 : w / q;
        *df = isinf(w) ? 0.0 : p * (1.0 - w) / q;
        *d2f = isinf(w) ? 0.0 : p * (w * w - 4.0 * w + 1.0) / (q * q);
    } else { /* extreme: F = 1 - exp(-e^z) */
        const double w = gbt_exp(z), e = gbt_exp(-w);
        const double p = isinf(w) ? 0.0 : w * e;
        *f = p;
        *F = 1.0 - e;
        *df = isinf(w) ? 0.0 : (1.0 - w) * p;
        *d2f = isinf(w) ? 0.0 : (w * w - 3.0 * w + 1.0) * p;
    }
}

GBT_SHARED double gbt_aft_clip(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/*
 * The limits of g (which = 0) or h (which = 1) as the raw score leaves the
 * data: far below it when `below` (z -> +inf), far above otherwise.  They
 * follow from the formulas above (clipped afterwards).
 */
GBT_SHARED double gbt_aft_limit(int dist, int censor, int below, double sigma, int which)
{
    const double inv = 1.0 / sigma, inv2 = inv * inv;
    switch (dist) {
    case GBT_AFT_NORMAL:
        /* -log f, -log(1 - F) and -log F grow as z^2 / 2 on their unbounded side */
        if (which == 0) {
            if (censor == GBT_AFT_RIGHT && !below) return 0.0;
            if (censor == GBT_AFT_LEFT && below) return 0.0;
            return below ? GBT_AFT_MIN_GRAD : GBT_AFT_MAX_GRAD;
        }
        if (censor == GBT_AFT_RIGHT && !below) return GBT_AFT_MIN_HESS;
        if (censor == GBT_AFT_LEFT && below) return GBT_AFT_MIN_HESS;
        return inv2;
    case GBT_AFT_LOGISTIC:
        /* the loss grows linearly: slope 1/sigma, curvature 0 */
        if (which == 1) return GBT_AFT_MIN_HESS;
        if (censor == GBT_AFT_RIGHT && !below) return 0.0;
        if (censor == GBT_AFT_LEFT && below) return 0.0;
        return below ? -inv : inv;
    default:
        /* extreme: e^z (doubly exponential) above the data, linear below it */
        if (below) {
            if (censor == GBT_AFT_LEFT) return which == 0 ? 0.0 : GBT_AFT_MIN_HESS;
            return which == 0 ? GBT_AFT_MIN_GRAD : GBT_AFT_MAX_HESS;
        }
        if (censor == GBT_AFT_RIGHT) return which == 0 ? 0.0 : GBT_AFT_MIN_HESS;
        return which == 0 ? inv : GBT_AFT_MIN_HESS;
    }
}

/* The AFT loss of one row: raw score m, time in [lo, hi] (hi may be +inf), scale sigma. */
GBT_SHARED double gbt_aft_loss(int dist, double sigma, double lo, double hi, double m)
{
    double f, F, df, d2f;
    if (lo == hi) {
        const double z = (gbt_log(lo) - m) / sigma;
        double v;
        gbt_aft_dist_eval(dist, z, &f, &F, &df, &d2f);
        v = f / (sigma * lo);
        return -gbt_log(v > GBT_AFT_EPS ? v : GBT_AFT_EPS);
    } else {
        double Fhi = 1.0, Flo = 0.0, v;
        if (!isinf(hi)) gbt_aft_dist_eval(dist, (gbt_log(hi) - m) / sigma, &f, &Fhi, &df, &d2f);
        if (lo > 0.0) gbt_aft_dist_eval(dist, (gbt_log(lo) - m) / sigma, &f, &Flo, &df, &d2f);
        v = Fhi - Flo;
        return -gbt_log(v > GBT_AFT_EPS ? v : GBT_AFT_EPS);
    }
}

/* The AFT gradient and hessian of one row (before its weight). */
GBT_SHARED void gbt_aft_gradient(int dist, double sigma, double lo, double hi, double m, double *g,
                                 double *h)
{
    double num_g, num_h, den, gv, hv;
    int censor, below;
    if (lo == hi) {
        const double z = (gbt_log(lo) - m) / sigma;
        double f, F, df, d2f;
        gbt_aft_dist_eval(dist, z, &f, &F, &df, &d2f);
        censor = GBT_AFT_OBSERVED;
        below = z > 0.0;
        num_g = df;
        num_h = df * df - f * d2f;
        den = sigma * f;
        gv = num_g / den;
        hv = num_h / (den * den);
    } else {
        double fhi = 0.0, Fhi = 1.0, dfhi = 0.0, flo = 0.0, Flo = 0.0, dflo = 0.0, d2f;
        double zhi = 0.0, zlo = 0.0, D;
        if (!isinf(hi)) {
            zhi = (gbt_log(hi) - m) / sigma;
            gbt_aft_dist_eval(dist, zhi, &fhi, &Fhi, &dfhi, &d2f);
        }
        if (lo > 0.0) {
            zlo = (gbt_log(lo) - m) / sigma;
            gbt_aft_dist_eval(dist, zlo, &flo, &Flo, &dflo, &d2f);
        }
        if (isinf(hi)) {
            censor = GBT_AFT_RIGHT;
            below = zlo > 0.0;
        } else if (!(lo > 0.0)) {
            censor = GBT_AFT_LEFT;
            below = zhi > 0.0;
        } else {
            censor = GBT_AFT_INTERVAL;
            below = zlo > 0.0;
        }
        D = Fhi - Flo;
        den = sigma * D;
        num_g = fhi - flo;
        num_h = num_g * num_g - D * (dfhi - dflo);
        gv = num_g / den;
        hv = num_h / (den * den);
    }
    if (den < GBT_AFT_EPS && !isfinite(gv)) gv = gbt_aft_limit(dist, censor, below, sigma, 0);
    if (den < GBT_AFT_EPS && !isfinite(hv)) hv = gbt_aft_limit(dist, censor, below, sigma, 1);
    *g = gbt_aft_clip(gv, GBT_AFT_MIN_GRAD, GBT_AFT_MAX_GRAD);
    *h = gbt_aft_clip(hv, GBT_AFT_MIN_HESS, GBT_AFT_MAX_HESS);
}

/*
 * Cox gradients of every row: order[0..n) lists the rows by |label|
 * ascending (ties by row number), margin/label/weight are indexed by row
 * (weight NULL: all 1), g and h receive each row's values.  Rows of equal
 * time form one group: they share one risk set and every event of the
 * group counts for all of them (the exact derivatives of Breslow's
 * likelihood, whatever the order within a group).  One pass in the order,
 * so every caller gets the same bits.
 */
GBT_SHARED void gbt_cox_gradients(uint64_t n, const uint32_t *order, const double *margin,
                                  const float *label, const float *weight, double *g, double *h)
{
    double risk = 0.0, A = 0.0, B = 0.0;
    uint64_t i = 0;
    for (uint64_t k = 0; k < n; k++) {
        h[order[k]] = gbt_exp(margin[order[k]]); /* p, until the group's turn */
        risk += h[order[k]];
    }
    while (i < n) {
        const float t = fabsf(label[order[i]]);
        uint64_t j = i, events = 0;
        while (j < n && fabsf(label[order[j]]) == t) events += label[order[j++]] > 0.0f;
        if (events) {
            A += (double)events / risk;
            B += (double)events / (risk * risk);
        }
        for (uint64_t k = i; k < j; k++) {
            const uint32_t r = order[k];
            const double p = h[r], w = weight ? (double)weight[r] : 1.0;
            g[r] = (p * A - (label[r] > 0.0f ? 1.0 : 0.0)) * w;
            h[r] = (p * A - p * p * B) * w;
            risk -= p; /* the group leaves the risk set after its time */
        }
        i = j;
    }
}

/*
 * The Cox negative log partial likelihood per event of predictions pred
 * (hazard ratios exp(margin)) in the same order: sum over events of
 * log R(t_i) - log pred_i, divided by the number of events (unweighted, as
 * XGBoost's cox-nloglik); NaN without events.
 */
GBT_SHARED double gbt_cox_nloglik(uint64_t n, const uint32_t *order, const double *pred,
                                  const float *label)
{
    double risk = 0.0, pending = 0.0, out = 0.0;
    uint64_t events = 0;
    for (uint64_t i = 0; i < n; i++) risk += pred[order[i]];
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t r = order[i];
        const double y = (double)label[r];
        if (y > 0) {
            out -= gbt_log(pred[r]) - gbt_log(risk);
            events++;
        }
        pending += pred[r];
        if (i + 1 == n || fabs(y) < fabs((double)label[order[i + 1]])) {
            risk -= pending;
            pending = 0.0;
        }
    }
    return events ? out / (double)events : (double)NAN;
}

#endif
