/*
 * constraint_math.h - monotone constraints in the split search: one
 * definition for every backend, as XGBoost's hist method defines them.
 *
 * Each node carries bounds [lower, upper] on its (unscaled) weight: the
 * root's are infinite.  With any monotone constraint in the model every
 * weight is the weight of split_math.h clamped to its node's bounds, and
 * every gain is the gain given that weight,
 *   gain(G, H, w) = -(2 (G w + alpha |w|) + (H + lambda) w^2),
 * the parent's from its own clamped weight.  A candidate on a feature with
 * constraint +1 is valid only when the left child's clamped weight is <=
 * the right child's (-1: >=).  When a node splits on a constrained
 * feature, with wl, wr the children's clamped weights and mid = (wl + wr)
 * / 2, the left child's upper bound becomes mid and the right child's
 * lower bound mid (+1), or the reverse (-1); the other bounds are the
 * parent's.  Every leaf of a left subtree then lies below every leaf of
 * its right sibling's, so predictions are monotone for all inputs.
 */
#ifndef GBT_COMMON_CONSTRAINT_MATH_H
#define GBT_COMMON_CONSTRAINT_MATH_H

#include "common/split_math.h"

/*
 * The CUDA backend's feature flags: bit 0 the feature can split, bit 1 a
 * constraint +1, bit 2 a constraint -1.
 */
#define GBT_FEAT_USABLE 1u
#define GBT_FEAT_INC 2u
#define GBT_FEAT_DEC 4u

GBT_SHARED int gbt_feature_constraint(unsigned flags)
{
    return (flags & GBT_FEAT_INC) ? 1 : (flags & GBT_FEAT_DEC) ? -1 : 0;
}

/*
 * The constraint that candidate (t, dl) of a feature with nbins bins and
 * constraint c obeys: c, except for the candidate that sends every present
 * value left and the missing ones right (t = nbins - 1, dl = 0), which the
 * model stores mirrored (missing left, present right: grow.c's emit) and
 * which XGBoost finds in that orientation; its order is then -c.
 */
GBT_SHARED int gbt_candidate_constraint(int c, int t, int dl, int nbins)
{
    return (t == nbins - 1 && !dl) ? -c : c;
}

/* The weight of a node with sums (G, H), clamped to [lower, upper]. */
GBT_SHARED double gbt_bounded_weight(double G, double H, const struct gbt_split_params *p,
                                     double lower, double upper)
{
    double w = gbt_weight_of(G, H, p);
    if (w < lower) w = lower;
    if (w > upper) w = upper;
    return w;
}

/* The gain of a node with sums (G, H) whose weight is w. */
GBT_SHARED double gbt_gain_given_weight(double G, double H, double w, const struct gbt_split_params *p)
{
    const double aw = w < 0.0 ? -w : w;
    if (!(H + p->lambda > 0.0)) return 0.0;
    return -(2.0 * (G * w + p->alpha * aw) + (H + p->lambda) * w * w);
}

/* A node's gain from its fixed-point sums and bounds. */
GBT_SHARED double gbt_bounded_node_gain(struct gbt_hbin s, const struct gbt_split_params *p,
                                        double lower, double upper)
{
    const double G = (double)s.g * p->g_unit, H = (double)s.h * p->h_unit;
    return gbt_gain_given_weight(G, H, gbt_bounded_weight(G, H, p, lower, upper), p);
}

/* A node's clamped weight from its fixed-point sums. */
GBT_SHARED double gbt_bounded_node_weight(struct gbt_hbin s, const struct gbt_split_params *p,
                                          double lower, double upper)
{
    return gbt_bounded_weight((double)s.g * p->g_unit, (double)s.h * p->h_unit, p, lower, upper);
}

/*
 * The gain of splitting a node with bounds [lower, upper] and gain
 * parent_gain into l and r on a feature with constraint c (-1, 0, +1),
 * or -inf when invalid (the child tests of gbt_split_gain, or the
 * children's weights in the wrong order).
 */
GBT_SHARED double gbt_bounded_split_gain(struct gbt_hbin l, struct gbt_hbin r, double parent_gain,
                                         const struct gbt_split_params *p, double lower, double upper,
                                         int c)
{
    double hl, hr, gl, gr, wl, wr;
    if (l.h <= 0 || r.h <= 0) return -(double)INFINITY;
    hl = (double)l.h * p->h_unit;
    hr = (double)r.h * p->h_unit;
    if (hl < p->min_child_weight || hr < p->min_child_weight) return -(double)INFINITY;
    gl = (double)l.g * p->g_unit;
    gr = (double)r.g * p->g_unit;
    wl = gbt_bounded_weight(gl, hl, p, lower, upper);
    wr = gbt_bounded_weight(gr, hr, p, lower, upper);
    if ((c > 0 && wl > wr) || (c < 0 && wl < wr)) return -(double)INFINITY;
    return gbt_gain_given_weight(gl, hl, wl, p) + gbt_gain_given_weight(gr, hr, wr, p) - parent_gain;
}

/*
 * The bounds of the children of a node with bounds [lower, upper] split
 * into sums l and r on a feature with constraint c: out[0..1] the left
 * child's lower and upper, out[2..3] the right child's.
 */
GBT_SHARED void gbt_child_bounds(struct gbt_hbin l, struct gbt_hbin r, const struct gbt_split_params *p,
                                 double lower, double upper, int c, double out[4])
{
    const double wl = gbt_bounded_node_weight(l, p, lower, upper);
    const double wr = gbt_bounded_node_weight(r, p, lower, upper);
    const double mid = (wl + wr) / 2.0;
    out[0] = out[2] = lower;
    out[1] = out[3] = upper;
    if (c > 0) {
        out[1] = mid;
        out[2] = mid;
    } else if (c < 0) {
        out[0] = mid;
        out[3] = mid;
    }
}

#endif
