/*
 * grad_math.h - per-row gradients and hessians of every objective, in
 * double, and their fixed-point form.  One definition for every backend.
 *
 * Formulas (margin m, label y, weight w, p the predicted probability; for
 * binary objectives w includes scale_pos_weight, see gbt_row_weight):
 *   reg:squarederror             g = (m - y) w           h = w
 *   reg:logistic, binary:*       g = (p - y) w           h = max(p (1 - p), 1e-16) w
 *   multi:* (softmax over K)     g_k = (p_k - [y = k]) w h_k = max(2 p_k (1 - p_k), 1e-16) w
 *
 * Fixed point: per class and round, with M the largest |g| (or h) over all
 * rows, the exponent e = 30 - E where M = f 2^E, 0.5 <= f < 1, so that
 * every |q| = |round(g 2^e)| <= 2^30 and sums over fewer than 2^32 rows fit
 * in int64.  M is order-free, so every backend and thread count agrees.
 */
#ifndef GBT_COMMON_GRAD_MATH_H
#define GBT_COMMON_GRAD_MATH_H

#include <stdint.h>
#include <string.h>

#include "gmath.h"
#include "types.h"

#define GBT_HESS_EPS 1e-16

GBT_SHARED int gbt_objective_is_multiclass(int obj)
{
    return obj == GBT_OBJ_MULTI_SOFTMAX || obj == GBT_OBJ_MULTI_SOFTPROB;
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
 * The gradient and hessian of one row for the objectives with one output:
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

/*
 * Gradients of one row for every class.  Class k's raw score is
 * margin[k * mstride]; g[k * stride] and h[k * stride] receive its values.
 */
GBT_SHARED void gbt_row_gradients(int obj, int K, const double *margin, uint64_t mstride,
                                  float label, double weight, double *g, double *h, uint64_t stride)
{
    double w = weight, y = (double)label;
    if (!gbt_objective_is_multiclass(obj)) {
        gbt_scalar_gradient(obj == GBT_OBJ_REG_SQUAREDERROR, margin[0], y, w, g, h);
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
