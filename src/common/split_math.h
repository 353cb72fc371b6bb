/*
 * split_math.h - leaf weights, gains and the split order: one definition
 * for every backend, in double, from exact integer sums.
 *
 * With G, H a node's gradient and hessian sums, lambda, alpha the L2 and
 * L1 penalties and T(G) = sign(G) max(|G| - alpha, 0):
 *   weight  w = -T(G) / (H + lambda), clipped to +-max_delta_step if > 0
 *   gain    T(G)^2 / (H + lambda), or, when max_delta_step clips,
 *           -(2 (G w + alpha |w|) + (H + lambda) w^2)
 *   split   gain(left) + gain(right) - gain(parent)
 * These are XGBoost's definitions (its gain omits the factor 1/2).  A
 * candidate is valid when both children have H > 0 and H >= min_child_weight.
 */
#ifndef GBT_COMMON_SPLIT_MATH_H
#define GBT_COMMON_SPLIT_MATH_H

#include "common/grad_math.h"
#include "common/types.h"

struct gbt_split_params {
    double lambda, alpha, max_delta_step, min_child_weight;
    int g_exp, h_exp;      /* fixed-point exponents of this tree's gradients */
    double g_unit, h_unit; /* 2^-g_exp and 2^-h_exp: see gbt_split_params_scale */
    /* categorical features (common/cat_math.h): XGBoost's parameters */
    int32_t max_cat_to_onehot, max_cat_threshold;
    int monotone;          /* 1: some feature is constrained (common/constraint_math.h) */
    int reserved;
    /* partition splits of categorical features (common/cat_math.h): LightGBM's parameters, 0 = off */
    double cat_smooth, cat_l2, min_data_per_group;
    /* rows per unit of hessian, LightGBM's estimate of a row count from a hessian sum: set per tree */
    double rows_per_h;
};

/*
 * Sets the exponents and their units.  Multiplying by a power of two is
 * exact, so q * unit equals gbt_dequantize(q, exp) bit for bit.
 */
GBT_SHARED void gbt_split_params_scale(struct gbt_split_params *p, int g_exp, int h_exp)
{
    p->g_exp = g_exp;
    p->h_exp = h_exp;
    p->g_unit = gbt_pow2i(-g_exp);
    p->h_unit = gbt_pow2i(-h_exp);
}

/* T(g): g shrunk towards 0 by alpha; +0 when |g| <= alpha.  No branch on the sign of g. */
GBT_SHARED double gbt_threshold_l1(double g, double alpha)
{
    const double t = fabs(g) - alpha;
    return t > 0.0 ? copysign(t, g) : 0.0;
}

GBT_SHARED double gbt_weight_of(double G, double H, const struct gbt_split_params *p)
{
    double w;
    if (!(H + p->lambda > 0.0)) return 0.0;
    w = -gbt_threshold_l1(G, p->alpha) / (H + p->lambda);
    if (p->max_delta_step > 0.0) {
        if (w > p->max_delta_step) w = p->max_delta_step;
        if (w < -p->max_delta_step) w = -p->max_delta_step;
    }
    return w;
}

/* The gain without clipping, of T = T(G): T^2 / (H + lambda). */
GBT_SHARED double gbt_plain_gain(double T, double H, double lambda)
{
    return T * T / (H + lambda);
}

GBT_SHARED double gbt_gain_of(double G, double H, const struct gbt_split_params *p)
{
    double w, aw;
    if (!(H + p->lambda > 0.0)) return 0.0;
    if (p->max_delta_step == 0.0) return gbt_plain_gain(gbt_threshold_l1(G, p->alpha), H, p->lambda);
    w = gbt_weight_of(G, H, p);
    aw = w < 0.0 ? -w : w;
    return -(2.0 * (G * w + p->alpha * aw) + (H + p->lambda) * w * w);
}

/*
 * XGBoost's weight and gain of a node as its refresh updater computes them
 * from sums of any rows: 0 for a node of H < min_child_weight or H <= 0
 * (a split's children never are: gbt_split_gain refuses them).
 */
GBT_SHARED double gbt_checked_weight(double G, double H, const struct gbt_split_params *p)
{
    return H < p->min_child_weight || H <= 0.0 ? 0.0 : gbt_weight_of(G, H, p);
}

GBT_SHARED double gbt_checked_gain(double G, double H, const struct gbt_split_params *p)
{
    return H < p->min_child_weight || H <= 0.0 ? 0.0 : gbt_gain_of(G, H, p);
}

/* The gain of a node from its fixed-point sums. */
GBT_SHARED double gbt_node_gain(struct gbt_hbin s, const struct gbt_split_params *p)
{
    return gbt_gain_of((double)s.g * p->g_unit, (double)s.h * p->h_unit, p);
}

/* The (unscaled) leaf weight of a node from its fixed-point sums. */
GBT_SHARED double gbt_node_weight(struct gbt_hbin s, const struct gbt_split_params *p)
{
    return gbt_weight_of((double)s.g * p->g_unit, (double)s.h * p->h_unit, p);
}

/*
 * The gain of splitting a node of gain parent_gain into l and r, or -inf
 * when a child has no hessian or less than min_child_weight.
 */
GBT_SHARED double gbt_split_gain(struct gbt_hbin l, struct gbt_hbin r, double parent_gain,
                                 const struct gbt_split_params *p)
{
    double hl, hr;
    if (l.h <= 0 || r.h <= 0) return -(double)INFINITY;
    hl = (double)l.h * p->h_unit;
    hr = (double)r.h * p->h_unit;
    if (hl < p->min_child_weight || hr < p->min_child_weight) return -(double)INFINITY;
    return gbt_gain_of((double)l.g * p->g_unit, hl, p) + gbt_gain_of((double)r.g * p->g_unit, hr, p) -
           parent_gain;
}

/*
 * The total order of candidates: higher gain, then lower feature, then
 * lower bin, then missing-left before missing-right.  Returns whether
 * candidate a comes before candidate b.
 */
GBT_SHARED int gbt_split_before(double gain_a, int feat_a, int bin_a, int dl_a, double gain_b,
                                int feat_b, int bin_b, int dl_b)
{
    if (gain_a != gain_b) return gain_a > gain_b;
    if (feat_a != feat_b) return feat_a < feat_b;
    if (bin_a != bin_b) return bin_a < bin_b;
    return dl_a > dl_b;
}

/*
 * The candidates of one feature with nbins value bins, in the order a scan
 * meets them: for each bin t in [0, nbins), missing-left then
 * missing-right, except missing-left at the last bin (it would leave the
 * right child empty).  The left child of (t, dl) holds the bins <= t, plus
 * the missing rows when dl.  Backends scan this set in any order and keep
 * the first candidate by gbt_split_before.
 */
GBT_SHARED int gbt_candidate_exists(int t, int dl, int nbins)
{
    return !(dl && t == nbins - 1);
}

#endif
