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
 *   (the k heaviest), k = 1 .. min(max_cat_threshold, m - 1), m the bins
 *   sorted (n without cat_smooth).
 * Each set is scored with missing rows left and right (only left when the
 * node has no missing rows, as numeric splits), by gbt_split_gain.
 *
 * LightGBM's regularisation of partitions, each off at 0 (gbt's default,
 * XGBoost having none of them).  Where LightGBM counts rows it estimates
 * them from hessian sums, and so does gbt (a histogram holds no counts):
 * rows(H) = round(H * rows_per_h), rows_per_h the tree's rows over its
 * hessian sum (LightGBM takes the node's; exact with unit hessians).
 * - cat_smooth: the key is -T(G)/(H + lambda + cat_smooth), and only bins
 *   with rows(H) >= cat_smooth are sorted; the others never join S (they
 *   go left with the unseen categories).
 * - cat_l2: a partition's children are scored with lambda + cat_l2 (the
 *   parent's gain keeps lambda, as in LightGBM); leaf weights keep lambda.
 * - min_data_per_group: along each direction, a prefix or suffix is scored
 *   only once the bins added since the direction's last scored one hold
 *   min_data_per_group rows, and the direction ends when the rest of the
 *   node (its missing rows included) holds fewer.
 * One-hot splits use none of them, as in LightGBM.
 *
 * The candidates are numbered (the `bin` of struct gbt_split) for the
 * total order of gbt_split_before: one-hot candidate c is c; the prefix of
 * k is k - 1, the suffix of k is n + k - 1.
 *
 * gbt_cat_best is the whole search of one feature in one node, a single
 * thread's work: the CPU backend calls it per (node, feature) task
 * (cpu/split.c), the CUDA backend per device thread (cuda/split.cu).  Its
 * sort is a heapsort of the strict total order of gbt_cat_sorts_before, so
 * the order, and the chosen set, is the same whatever the sort's method.
 */
#ifndef GBT_COMMON_CAT_MATH_H
#define GBT_COMMON_CAT_MATH_H

#include <math.h>

#include "common/constraint_math.h"
#include "common/split_math.h"

/* The CUDA backend's feature flag (beside constraint_math.h's): the feature is categorical. */
#define GBT_FEAT_CAT 8u

/* A bin and its sort key: the scratch of gbt_cat_best's sort. */
struct gbt_cat_entry {
    double key;
    uint32_t bin;
    uint32_t reserved;
};

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

/* The sort key of a bin of sums s: its leaf weight (XGBoost's CalcWeight), cat_smooth added to H. */
GBT_SHARED double gbt_cat_key(struct gbt_hbin s, const struct gbt_split_params *p)
{
    const double h = (double)s.h * p->h_unit;
    if (s.h <= 0 || h < p->min_child_weight) return 0.0;
    return gbt_weight_of((double)s.g * p->g_unit, h + p->cat_smooth, p);
}

/* The rows estimated from the fixed-point hessian sum h (LightGBM's estimate, rounded). */
GBT_SHARED double gbt_cat_rows(int64_t h, const struct gbt_split_params *p)
{
    return floor((double)h * p->h_unit * p->rows_per_h + 0.5);
}

/* Whether a bin of sums s is sorted into a partition's order (cat_smooth: rows(H) >= cat_smooth). */
GBT_SHARED int gbt_cat_sorted(struct gbt_hbin s, const struct gbt_split_params *p)
{
    return p->cat_smooth <= 0.0 || gbt_cat_rows(s.h, p) >= p->cat_smooth;
}

/*
 * min_data_per_group for a prefix or suffix of sums set, of which grp (a
 * hessian sum) joined since its direction's last scored set: 1 to score
 * it, 0 to skip it, -1 to end the direction (the rest of the node, of sums
 * total, holds fewer rows than min_data_per_group).
 */
GBT_SHARED int gbt_cat_group(struct gbt_hbin total, struct gbt_hbin set, int64_t grp, const struct gbt_split_params *p)
{
    if (p->min_data_per_group <= 0.0) return 1;
    if (gbt_cat_rows(total.h - set.h, p) < p->min_data_per_group) return -1;
    return gbt_cat_rows(grp, p) >= p->min_data_per_group;
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

GBT_SHARED int gbt_cat_entry_before(const struct gbt_cat_entry *a, const struct gbt_cat_entry *b)
{
    return gbt_cat_sorts_before(a->key, a->bin, b->key, b->bin);
}

/* Sifts e[i] down the max-heap e[0 .. n-1] (the heap's order: gbt_cat_entry_before). */
GBT_SHARED void gbt_cat_sift(struct gbt_cat_entry *e, uint32_t i, uint32_t n)
{
    for (;;) {
        uint32_t c = 2u * i + 1u, m = i;
        struct gbt_cat_entry t;
        if (c < n && gbt_cat_entry_before(&e[m], &e[c])) m = c;
        if (c + 1u < n && gbt_cat_entry_before(&e[m], &e[c + 1u])) m = c + 1u;
        if (m == i) return;
        t = e[i];
        e[i] = e[m];
        e[m] = t;
        i = m;
    }
}

/* Sorts e[0 .. n-1] ascending by gbt_cat_entry_before (a heapsort: no recursion, no scratch). */
GBT_SHARED void gbt_cat_sort(struct gbt_cat_entry *e, uint32_t n)
{
    if (n < 2) return;
    for (uint32_t i = n / 2u; i-- > 0;) gbt_cat_sift(e, i, n);
    for (uint32_t end = n - 1u; end > 0; end--) {
        const struct gbt_cat_entry t = e[0];
        e[0] = e[end];
        e[end] = t;
        gbt_cat_sift(e, 0, end);
    }
}

/*
 * Scores the set of right sums r (missing rows not counted) as candidate
 * `cand` of feature f, missing rows left then right (only left without
 * any), and keeps it in *best when it comes first by gbt_split_before.
 * With p->monotone the gain is gbt_bounded_split_gain under the node's
 * bounds with constraint 0 (a categorical feature is never constrained).
 */
GBT_SHARED void gbt_cat_consider(struct gbt_hbin r, struct gbt_hbin miss, int has_miss, struct gbt_hbin total,
                                 double lower, double upper, double parent_gain,
                                 const struct gbt_split_params *p, int32_t f, int32_t cand, struct gbt_split *best)
{
    for (int dl = 1; dl >= !has_miss; dl--) {
        struct gbt_split s;
        s.right = r;
        if (!dl) {
            s.right.g += miss.g;
            s.right.h += miss.h;
        }
        s.left.g = total.g - s.right.g;
        s.left.h = total.h - s.right.h;
        s.gain = p->monotone ? gbt_bounded_split_gain(s.left, s.right, parent_gain, p, lower, upper, 0)
                             : gbt_split_gain(s.left, s.right, parent_gain, p);
        if (s.gain == -(double)INFINITY) continue;
        s.feature = f;
        s.bin = cand;
        s.default_left = dl;
        s.is_cat = 1;
        if (best->feature < 0 || gbt_split_before(s.gain, s.feature, s.bin, s.default_left, best->gain,
                                                  best->feature, best->bin, best->default_left))
            *best = s;
    }
}

/*
 * The best candidate of categorical feature f, whose n bins' sums are
 * fh[0 .. n-1], in a node of sums `total` (bounds lower, upper with
 * p->monotone; parent_gain its gain): best->feature is -1 when none is
 * valid.  order: scratch of n entries.  bits (gbt_cat_words(n) words), when
 * not NULL, receives the set of bins the best candidate sends right.
 */
GBT_SHARED void gbt_cat_best(const struct gbt_hbin *fh, uint32_t n, int32_t f, struct gbt_hbin total, double lower,
                             double upper, double parent_gain, const struct gbt_split_params *p,
                             struct gbt_cat_entry *order, struct gbt_split *best, uint32_t *bits)
{
    struct gbt_hbin miss = total;
    int has_miss;
    uint32_t m = n; /* the bins of a partition's order */
    best->feature = -1;
    best->bin = -1;
    best->default_left = 0;
    best->is_cat = 0;
    best->gain = -(double)INFINITY;
    best->left.g = best->left.h = best->right.g = best->right.h = 0;
    for (uint32_t b = 0; b < n; b++) {
        miss.g -= fh[b].g;
        miss.h -= fh[b].h;
    }
    has_miss = !(miss.g == 0 && miss.h == 0);
    if (gbt_cat_onehot(n, p)) {
        for (uint32_t b = 0; b < n; b++)
            gbt_cat_consider(fh[b], miss, has_miss, total, lower, upper, parent_gain, p, f, (int32_t)b, best);
    } else {
        struct gbt_split_params q = *p; /* the children's parameters: cat_l2 added to lambda */
        struct gbt_hbin pre = {0, 0}, suf = {0, 0};
        int64_t grp[2] = {0, 0};       /* min_data_per_group: H since the last scored prefix, suffix */
        int live[2] = {1, 1};          /* whether the prefixes, the suffixes go on */
        uint32_t K;
        q.lambda += p->cat_l2;
        m = 0;
        for (uint32_t b = 0; b < n; b++) {
            if (!gbt_cat_sorted(fh[b], p)) continue;
            order[m].key = gbt_cat_key(fh[b], p);
            order[m].bin = b;
            order[m].reserved = 0;
            m++;
        }
        gbt_cat_sort(order, m);
        K = gbt_cat_max_k(m, p);
        for (uint32_t k = 1; k <= K; k++) {
            const struct gbt_hbin a = fh[order[k - 1].bin], z = fh[order[m - k].bin];
            int go;
            pre.g += a.g;
            pre.h += a.h;
            suf.g += z.g;
            suf.h += z.h;
            grp[0] += a.h;
            grp[1] += z.h;
            go = live[0] ? gbt_cat_group(total, pre, grp[0], p) : 0;
            live[0] = go >= 0;
            if (go > 0) {
                grp[0] = 0;
                gbt_cat_consider(pre, miss, has_miss, total, lower, upper, parent_gain, &q, f,
                                 gbt_cat_candidate(n, 0, k), best);
            }
            go = live[1] ? gbt_cat_group(total, suf, grp[1], p) : 0;
            live[1] = go >= 0;
            if (go > 0) {
                grp[1] = 0;
                gbt_cat_consider(suf, miss, has_miss, total, lower, upper, parent_gain, &q, f,
                                 gbt_cat_candidate(n, 1, k), best);
            }
        }
    }
    if (best->feature < 0 || bits == NULL) return;
    for (uint32_t w = 0; w < gbt_cat_words(n); w++) bits[w] = 0;
    if (gbt_cat_onehot(n, p)) {
        bits[(uint32_t)best->bin / 32u] |= 1u << ((uint32_t)best->bin % 32u);
    } else {
        const int suffix = (uint32_t)best->bin >= n;
        const uint32_t k = suffix ? (uint32_t)best->bin - n + 1u : (uint32_t)best->bin + 1u;
        for (uint32_t i = 0; i < k; i++) {
            const uint32_t b = order[suffix ? m - 1u - i : i].bin;
            bits[b / 32u] |= 1u << (b % 32u);
        }
    }
}

#endif
