/*
 * cat_math.h - splits of categorical features: one definition for every
 * backend, from the exact integer sums of a node's histogram.
 *
 * A categorical feature has one value bin per category (data/quantize.h).
 * A split sends the rows whose bin is in a set S right, every other
 * category (and, in prediction, a category never seen in training) left,
 * and missing rows to the learned default side: XGBoost's rule, whose
 * stored categories go right.
 *
 * With n bins, as XGBoost:
 * - n < max_cat_to_onehot: one-hot, S = {c}, one candidate per bin c.
 * - else a partition: the bins sorted by their leaf weight (gbt_cat_key:
 *   -T(G)/(H + lambda) from the exact sums, 0 when H is below
 *   min_child_weight), ties by the lower bin (that is, the lower
 *   category); S is a prefix of that order (the k lightest) or a suffix
 *   (the k heaviest), k = 1 .. min(max_cat_threshold, n - 1).
 * Each set is scored with missing rows left and right (only left when the
 * node has no missing rows, as numeric splits), by gbt_split_gain.
 *
 * The candidates are numbered (the `bin` of struct gbt_split) for the
 * total order of gbt_split_before: one-hot candidate c is c; the prefix of
 * k is k - 1, the suffix of k is n + k - 1.
 */
#ifndef GBT_COMMON_CAT_MATH_H
#define GBT_COMMON_CAT_MATH_H

#include "common/split_math.h"

/* Whether a categorical feature of n bins splits one-hot. */
GBT_SHARED int gbt_cat_onehot(uint32_t n, const struct gbt_split_params *p)
{
    return (int64_t)n < (int64_t)p->max_cat_to_onehot;
}

/* The longest prefix or suffix a partition of n bins takes. */
GBT_SHARED uint32_t gbt_cat_max_k(uint32_t n, const struct gbt_split_params *p)
{
    const uint32_t t = p->max_cat_threshold > 0 ? (uint32_t)p->max_cat_threshold : 1u;
    return n < 2 ? 0 : (t < n - 1 ? t : n - 1);
}

/* The sort key of a bin of sums s: its leaf weight (XGBoost's CalcWeight). */
GBT_SHARED double gbt_cat_key(struct gbt_hbin s, const struct gbt_split_params *p)
{
    const double h = (double)s.h * p->h_unit;
    if (s.h <= 0 || h < p->min_child_weight) return 0.0;
    return gbt_weight_of((double)s.g * p->g_unit, h, p);
}

/* Whether bin a (key ka) sorts before bin b (key kb): lower key, then lower bin. */
GBT_SHARED int gbt_cat_sorts_before(double ka, uint32_t a, double kb, uint32_t b)
{
    if (ka != kb) return ka < kb;
    return a < b;
}

/* The number of a partition candidate: the prefix (suffix 0) or suffix (1) of k bins out of n. */
GBT_SHARED int32_t gbt_cat_candidate(uint32_t n, int suffix, uint32_t k)
{
    return (int32_t)(suffix ? n + k - 1 : k - 1);
}

/* Words of a bitset over n bins. */
GBT_SHARED uint32_t gbt_cat_words(uint32_t n)
{
    return (n + 31u) / 32u;
}

GBT_SHARED int gbt_cat_bit(const uint32_t *bits, uint32_t b)
{
    return (int)((bits[b / 32u] >> (b % 32u)) & 1u);
}

#endif
