/*
 * grad_math.h - per-row gradients and hessians of every objective, in
 * double, and their fixed-point form.  One definition for every backend.
 *
 * Formulas (margin m, label y, weight w, p the predicted probability; for
 * binary objectives w includes scale_pos_weight, see gbt_row_weight; the
 * parameters come in struct gbt_obj_param):
 *   reg:squarederror             g = (m - y) w           h = w
 *   reg:logistic, binary:*       g = (p - y) w           h = max(p (1 - p), 1e-16) w
 *   multi:* (softmax over K)     g_k = (p_k - [y = k]) w h_k = max(2 p_k (1 - p_k), 1e-16) w
 *   count:poisson                g = (e^m - y) w         h = e^(m + poisson_delta) w
 *   reg:gamma                    g = (1 - y e^-m) w      h = y e^-m w
 *   reg:tweedie (rho)            g = (-y a + b) w        h = (-y (1 - rho) a + (2 - rho) b) w
 *                                with a = e^((1 - rho) m), b = e^((2 - rho) m)
 *   reg:squaredlogerror          with q = max(m, -1 + 1e-6), d = log1p(q) - log1p(y):
 *                                g = d / (q + 1) w       h = max((1 - d) / (q + 1)^2, 1e-6) w
 *   reg:pseudohubererror (slope) with z = m - y, s = sqrt(1 + (z / slope)^2):
 *                                g = z / s w             h = slope^2 / ((slope^2 + z^2) s) w
 *   binary:hinge                 with t = 2y - 1: m t < 1: g = -t w, h = w; else g = 0, h = FLT_MIN w
 *   reg:absoluteerror            g = sign(m - y) w       h = w
 *   reg:quantileerror (alpha_k)  output k: g = (m_k >= y ? 1 - alpha_k : -alpha_k) w, h = w
 * With T labels per row (multi-target), output k takes the one-output
 * formula of its own label y_k (gbt_target_gradients).
 * These are XGBoost's definitions.  The last two refit their leaves after
 * each tree (leaf_refit.c): these gradients only choose the splits.
 *
 * Fixed point: per class and round, with M the largest |g| (or h) over all
 * rows, the exponent e = 30 - E where M = f 2^E, 0.5 <= f < 1, so that
 * every |q| = |round(g 2^e)| <= 2^30 and sums over fewer than 2^32 rows fit
 * in int64.  M is order-free, so every backend and thread count agrees.
 */
#ifndef GBT_COMMON_GRAD_MATH_H
#define GBT_COMMON_GRAD_MATH_H

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "common/gmath.h"
#include "common/types.h"

#define GBT_HESS_EPS 1e-16

GBT_SHARED int gbt_objective_is_multiclass(int obj)
{
    return obj == GBT_OBJ_MULTI_SOFTMAX || obj == GBT_OBJ_MULTI_SOFTPROB;
}

/*
 * 1: after each tree the objective sets every leaf to eta times a quantile
 * of its rows' residuals (leaf_refit.c), as XGBoost's adaptive trees do.
 */
GBT_SHARED int gbt_objective_refits_leaves(int obj)
{
    return obj == GBT_OBJ_REG_ABSOLUTEERROR || obj == GBT_OBJ_REG_QUANTILEERROR;
}

/*
 * A row's weight in the gradients: its weight, times scale_pos for a row
 * labelled 1 (scale_pos is 1 but for binary objectives).  Exact when
 * scale_pos is 1.
 */
GBT_SHARED double gbt_row_weight(float label, double weight, double scale_pos)
{
    return label == 1.0f ? weight * scale_pos : weight;
}

/*
 * The gradient and hessian of one row for the simple objectives (below):
 * squared error when `squared`, else the logistic loss.  Branch-free, so
 * that a loop over rows vectorises.
 */
GBT_SHARED void gbt_scalar_gradient(int squared, double margin, double y, double w, double *g,
                                    double *h)
{
    if (squared) {
        *g = (margin - y) * w;
        *h = w;
    } else {
        const double p = gbt_sigmoid(margin), hh = p * (1.0 - p);
        *g = (p - y) * w;
        *h = (hh < GBT_HESS_EPS ? GBT_HESS_EPS : hh) * w;
    }
}

/* 1: gbt_scalar_gradient computes the objective's gradients (the loops that vectorise). */
GBT_SHARED int gbt_objective_is_simple(int obj)
{
    return obj == GBT_OBJ_REG_SQUAREDERROR || obj == GBT_OBJ_REG_LOGISTIC ||
           obj == GBT_OBJ_BINARY_LOGISTIC || obj == GBT_OBJ_BINARY_LOGITRAW;
}

/* The gradient and hessian of one row for the one-output objectives that are not simple. */
GBT_SHARED void gbt_other_gradient(int obj, const struct gbt_obj_param *op, double m, double y,
                                   double w, double *g, double *h)
{
    switch (obj) {
    case GBT_OBJ_COUNT_POISSON:
        *g = (gbt_exp(m) - y) * w;
        *h = gbt_exp(m + op->poisson_delta) * w;
        return;
    case GBT_OBJ_REG_GAMMA: {
        const double r = y * gbt_exp(-m);
        *g = (1.0 - r) * w;
        *h = r * w;
        return;
    }
    case GBT_OBJ_REG_TWEEDIE: {
        const double rho = op->tweedie_rho;
        const double a = gbt_exp((1.0 - rho) * m), b = gbt_exp((2.0 - rho) * m);
        *g = (-y * a + b) * w;
        *h = (-y * (1.0 - rho) * a + (2.0 - rho) * b) * w;
        return;
    }
    case GBT_OBJ_REG_SQUAREDLOGERROR: {
        const double q = m < -1.0 + 1e-6 ? -1.0 + 1e-6 : m;
        const double d = gbt_log1p(q) - gbt_log1p(y), hh = (1.0 - d) / ((q + 1.0) * (q + 1.0));
        *g = d / (q + 1.0) * w;
        *h = (hh < 1e-6 ? 1e-6 : hh) * w;
        return;
    }
    case GBT_OBJ_REG_PSEUDOHUBERERROR: {
        const double slope = op->huber_slope, z = m - y, zs = z / slope;
        const double s = sqrt(1.0 + zs * zs);
        *g = z / s * w;
        *h = slope * slope / ((slope * slope + z * z) * s) * w;
        return;
    }
    default: { /* binary:hinge */
        const double t = y > 0.5 ? 1.0 : -1.0;
        *g = m * t < 1.0 ? -t * w : 0.0;
        *h = m * t < 1.0 ? w : (double)FLT_MIN * w;
        return;
    }
    }
}

/*
 * Gradients of one row for every class.  Class k's raw score is
 * margin[k * mstride]; g[k * stride] and h[k * stride] receive its values.
 */
GBT_SHARED void gbt_row_gradients(int obj, const struct gbt_obj_param *op, int K,
                                  const double *margin, uint64_t mstride, float label,
                                  double weight, double *g, double *h, uint64_t stride)
{
    double w = weight, y = (double)label;
    if (gbt_objective_is_simple(obj)) {
        gbt_scalar_gradient(obj == GBT_OBJ_REG_SQUAREDERROR, margin[0], y, w, g, h);
    } else if (obj == GBT_OBJ_REG_ABSOLUTEERROR) {
        const double z = margin[0] - y;
        *g = (double)((z > 0.0) - (z < 0.0)) * w;
        *h = w;
    } else if (obj == GBT_OBJ_REG_QUANTILEERROR) {
        for (int k = 0; k < K; k++) {
            const double a = op->alpha[k];
            g[(uint64_t)k * stride] = (margin[(uint64_t)k * mstride] >= y ? 1.0 - a : -a) * w;
            h[(uint64_t)k * stride] = w;
        }
    } else if (!gbt_objective_is_multiclass(obj)) {
        gbt_other_gradient(obj, op, margin[0], y, w, g, h);
    } else {
        double mx = margin[0], sum = 0.0;
        int yi = (int)label;
        for (int k = 1; k < K; k++)
            if (margin[(uint64_t)k * mstride] > mx) mx = margin[(uint64_t)k * mstride];
        /* each class's exp once, kept in g until the sum is known */
        for (int k = 0; k < K; k++) {
            g[(uint64_t)k * stride] = gbt_exp(margin[(uint64_t)k * mstride] - mx);
            sum += g[(uint64_t)k * stride];
        }
        for (int k = 0; k < K; k++) {
            double p = g[(uint64_t)k * stride] / sum;
            double hh = 2.0 * p * (1.0 - p);
            g[(uint64_t)k * stride] = (p - (k == yi ? 1.0 : 0.0)) * w;
            h[(uint64_t)k * stride] = (hh < GBT_HESS_EPS ? GBT_HESS_EPS : hh) * w;
        }
    }
}

/*
 * Multi-target: output k of a row fits the row's label y[k] with the
 * one-output gradients, its weight (weight, times scale_pos where y[k] is 1,
 * as gbt_row_weight) per target, as XGBoost's element-wise objectives.
 */
GBT_SHARED void gbt_target_gradients(int obj, const struct gbt_obj_param *op, int T, const double *margin,
                                     uint64_t mstride, const float *y, double weight, double *g, double *h,
                                     uint64_t stride)
{
    for (int k = 0; k < T; k++)
        gbt_row_gradients(obj, op, 1, margin + (uint64_t)k * mstride, 1, y[k],
                          gbt_row_weight(y[k], weight, op->scale_pos), g + (uint64_t)k * stride,
                          h + (uint64_t)k * stride, 1);
}

/* The fixed-point exponent for values whose largest magnitude is maxabs. */
GBT_SHARED int gbt_quant_exponent(double maxabs)
{
    uint64_t bits;
    int biased;
    if (!(maxabs > 0.0)) return 0;
    memcpy(&bits, &maxabs, sizeof bits);
    biased = (int)((bits >> 52) & 0x7ff);
    if (biased == 0) return 1000; /* subnormal: everything rounds to zero */
    /* maxabs = f 2^E with 0.5 <= f < 1 and E = biased - 1022 */
    {
        int e = 30 - (biased - 1022);
        return e > 1000 ? 1000 : e;
    }
}

/* The scale of an exponent: 2^exponent, exact (exponents lie in [-994, 1000]). */
GBT_SHARED double gbt_quant_scale(int exponent)
{
    return gbt_pow2i(exponent);
}

/* v in fixed point: round(v 2^e), given scale = gbt_quant_scale(e); the product is exact. */
GBT_SHARED int32_t gbt_quantize_scaled(double v, double scale)
{
    return (int32_t)(int64_t)(v * scale + copysign(0.5, v));
}

GBT_SHARED int32_t gbt_quantize(double v, int exponent)
{
    return gbt_quantize_scaled(v, gbt_quant_scale(exponent));
}

GBT_SHARED double gbt_dequantize(int64_t q, int exponent)
{
    return gbt_ldexp((double)q, -exponent);
}

#endif
