/*
 * rank_math.h - the gradients of the learning-to-rank objectives
 * (rank:pairwise, rank:ndcg, rank:map: LambdaMART as in XGBoost 2 and
 * later), one query group at a time.  One definition for every backend: the
 * CPU loops over groups in parallel, the CUDA backend runs one thread per
 * group; both call gbt_rank_group_gradients.
 *
 * For one group of n documents with margins s and labels y:
 *   1. the model's ranking: positions 0..n-1 by s descending (ties: the
 *      lower row first), a stable merge sort;
 *   2. pairs of positions (i, j): topk: every i < min(n, k) with every
 *      j > i; mean: for each document, k partners drawn uniformly among
 *      the documents of another label (draws of common/rng.h keyed by
 *      (seed, round * 2^32 + group, index), so any thread or device draws
 *      the same pairs);
 *   3. for each pair with different labels, hi the position of the higher
 *      label, lo the other:
 *        dZ = 1 (pairwise), |delta NDCG| of swapping hi and lo (ndcg:
 *        gain 2^y - 1 or y, discount 1 / log2(2 + position), divided by
 *        the ideal DCG of the first k labels (topk) or all (mean)), or
 *        |delta AP| of the swap (map, binary labels);
 *        with lambdarank_score_normalization, and the group's scores not
 *        all equal: dZ /= |s_hi - s_lo| + 0.01;
 *        p = sigmoid(s_hi - s_lo), lambda = (p - 1) dZ,
 *        hess = max(p (1 - p), 1e-16) dZ 2;
 *        g[hi] += lambda, g[lo] -= lambda, h[hi] += hess, h[lo] += hess;
 *   4. lambdarank_normalization: mean: times 1 / k; topk: times
 *      log2(1 + L) / L with L = the sum of -2 lambda over the pairs (L > 0);
 *   4b. lambdarank_unbiased (Unbiased LambdaMART, XGBoost's extended
 *      IPW): with the position biases ti+ and tj- of the last round
 *      (struct gbt_rank_bias; a document's position is its row's place in
 *      the group as given, the order the clicks were shown in), a pair
 *      whose rows ih (higher label) and il both lie in the first npos
 *      positions has lambda and hess divided by ti+[ih] tj-[il], and adds
 *      its cost log(1 / (1 - p)) dZ: li[ih] += cost / tj-[il],
 *      lj[il] += cost / ti+[ih] (the host sums them over the groups and
 *      sets ti+[i] = (li[i] / li[0])^(1 / (1 + lambdarank_bias_norm)),
 *      tj- alike, for the next round: train/booster.c);
 *   5. times the group's weight (op->rank_wnorm folds in the weights'
 *      normalisation, groups / sum of group weights, as XGBoost's).
 * Rows that the row subsample leaves out get 0 afterwards.
 */
#ifndef GBT_COMMON_RANK_MATH_H
#define GBT_COMMON_RANK_MATH_H

#include <stdint.h>

#include "common/gmath.h"
#include "common/rng.h"
#include "common/types.h"

enum gbt_rank_pair_method { GBT_RANK_TOPK = 0, GBT_RANK_MEAN = 1 };

#define GBT_RANK_MAX_EXP_LABEL 31 /* ndcg with exp gain: labels 0..31 (2^y - 1 fits 32 bits) */

GBT_SHARED int gbt_objective_is_ranking(int obj)
{
    return obj == GBT_OBJ_RANK_PAIRWISE || obj == GBT_OBJ_RANK_NDCG || obj == GBT_OBJ_RANK_MAP;
}

GBT_SHARED double gbt_log2(double x)
{
    return gbt_log(x) / 0.69314718055994530942;
}

/* The NDCG discount of a position: 1 / log2(position + 2). */
GBT_SHARED double gbt_rank_discount(uint32_t pos)
{
    return 1.0 / gbt_log2((double)pos + 2.0);
}

/* The NDCG gain of a label: 2^y - 1 with exp_gain (y an integer in 0..31), else y. */
GBT_SHARED double gbt_rank_gain(float y, int exp_gain)
{
    if (!exp_gain) return (double)y;
    return gbt_pow2i((int)y) - 1.0;
}

/*
 * Sorts idx[0..n) stably by key descending: key(i) = margin[idx[i]] when
 * by_label is 0, label[idx[i]] otherwise.  tmp holds n entries.  Bottom-up
 * merge sort: no recursion and no allocation, so a device thread runs it.
 */
GBT_SHARED void gbt_rank_sort(uint32_t *idx, uint32_t *tmp, uint32_t n, const double *margin,
                              const float *label, int by_label)
{
    uint32_t *a = idx, *b = tmp;
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n;
            uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                double ki = by_label ? (double)label[a[i]] : margin[a[i]];
                double kj = by_label ? (double)label[a[j]] : margin[a[j]];
                /* j goes first only when strictly larger: stable */
                b[k++] = kj > ki ? a[j++] : a[i++];
            }
            while (i < mid) b[k++] = a[i++];
            while (j < hi) b[k++] = a[j++];
        }
        {
            uint32_t *t = a;
            a = b;
            b = t;
        }
        if (width > n / 2) break;
    }
    if (a != idx)
        for (uint32_t i = 0; i < n; i++) idx[i] = a[i];
}

/* The working memory of one group: index arrays and the MAP statistics. */
struct gbt_rank_scratch {
    uint32_t *order;  /* n: row (within the group) at each model position */
    uint32_t *tmp;    /* n: sort scratch */
    uint32_t *lorder; /* n: mean: model positions by label descending; ndcg: rows by label */
    double *nrel;     /* n: map: relevant documents at positions 0..i */
    double *acc;      /* n: map: sum of y / (position + 1) over positions 0..i */
};

/* |delta NDCG| of swapping positions hi and lo (labels yh, yl) given 1 / IDCG. */
GBT_SHARED double gbt_rank_delta_ndcg(float yh, float yl, uint32_t hi, uint32_t lo, double inv_idcg,
                                      int exp_gain)
{
    const double gh = gbt_rank_gain(yh, exp_gain), gl = gbt_rank_gain(yl, exp_gain);
    const double dh = gbt_rank_discount(hi), dl = gbt_rank_discount(lo);
    const double d = (gh * dh + gl * dl - (gl * dh + gh * dl)) * inv_idcg;
    return d < 0 ? -d : d;
}

/*
 * |delta AP| of swapping positions p < q with binary labels yp != yq,
 * given the cumulative relevant counts and sums of y / (position + 1).
 */
GBT_SHARED double gbt_rank_delta_map(float yp, float yq, uint32_t p, uint32_t q, const double *nrel,
                                     const double *acc, double total)
{
    const double rp = (double)p + 1.0, rq = (double)q + 1.0;
    const double np = nrel[p], mq = nrel[q], between = acc[q - 1] - acc[p];
    double d;
    if (yp < yq) /* a relevant document moves up from q to p */
        d = (mq / rq - (np + 1.0) / rp - between) / total;
    else /* a relevant document moves down from p to q */
        d = (np / rp - mq / rq + between) / total;
    return d < 0 ? -d : d;
}

/* The pair number k of the document at label-order index p (mean): its partner's label-order index. */
GBT_SHARED uint32_t gbt_rank_partner(uint64_t seed, int round, uint64_t group, uint32_t p,
                                     uint32_t k, uint32_t num_pair, uint32_t left, uint32_t right,
                                     uint32_t bucket_end)
{
    const uint64_t d = gbt_draw(seed, GBT_RNG_RANK_PAIRS, ((uint64_t)(uint32_t)round << 32) | group,
                                (uint64_t)p * num_pair + k);
    uint32_t r = (uint32_t)(gbt_unit(d) * (double)(left + right));
    if (r >= left + right) r = left + right - 1;
    return r < left ? r : r - left + bucket_end;
}

/*
 * lambdarank_unbiased: the position biases of the last round (npos each,
 * 1 in the first round) and this round's per-row sums for one group (li
 * and lj point at the group's first row).
 */
struct gbt_rank_bias {
    const double *tplus, *tminus;
    double *li, *lj;
    uint32_t npos;
};

#define GBT_RANK_EPS 1e-16

/* One pair of model positions a, b: adds its lambdas; returns the pair's -2 lambda (0: no pair). */
GBT_SHARED double gbt_rank_pair(int obj, const struct gbt_obj_param *op, uint32_t a, uint32_t b,
                                const struct gbt_rank_scratch *s, uint32_t n, const double *margin,
                                const float *label, double inv_idcg, const struct gbt_rank_bias *ub,
                                double *g, double *h)
{
    const uint32_t *order = s->order;
    uint32_t hi = a, lo = b;
    float yh, yl;
    double sh, sl, dz, p, lambda, hess, hh;
    if (label[order[a]] == label[order[b]]) return 0.0;
    if (label[order[a]] < label[order[b]]) {
        hi = b;
        lo = a;
    }
    yh = label[order[hi]];
    yl = label[order[lo]];
    sh = margin[order[hi]];
    sl = margin[order[lo]];
    if (obj == GBT_OBJ_RANK_NDCG) {
        dz = gbt_rank_delta_ndcg(yh, yl, hi, lo, inv_idcg, op->rank_exp_gain);
    } else if (obj == GBT_OBJ_RANK_MAP) {
        if (hi < lo)
            dz = gbt_rank_delta_map(yh, yl, hi, lo, s->nrel, s->acc, s->nrel[n - 1]);
        else
            dz = gbt_rank_delta_map(yl, yh, lo, hi, s->nrel, s->acc, s->nrel[n - 1]);
    } else {
        dz = 1.0;
    }
    if (op->rank_score_norm && margin[order[0]] != margin[order[n - 1]]) {
        double diff = sh - sl;
        dz /= (diff < 0 ? -diff : diff) + 0.01;
    }
    p = gbt_sigmoid(sh - sl);
    lambda = (p - 1.0) * dz;
    hh = p * (1.0 - p);
    hess = (hh < GBT_RANK_EPS ? GBT_RANK_EPS : hh) * dz * 2.0;
    if (ub && order[hi] < ub->npos && order[lo] < ub->npos) {
        const uint32_t ih = order[hi], il = order[lo];
        /* log(1 / (1 - sigmoid(x))) = log(1 + e^x), finite for any x */
        const double x = sh - sl;
        const double cost = ((x > 0.0 ? x : 0.0) + gbt_log1p(gbt_exp(x > 0.0 ? -x : x))) * dz;
        if (ub->tplus[ih] >= GBT_RANK_EPS && ub->tminus[il] >= GBT_RANK_EPS) {
            lambda /= ub->tplus[ih] * ub->tminus[il];
            hess /= ub->tplus[ih] * ub->tminus[il];
        }
        if (ub->tminus[il] >= GBT_RANK_EPS) ub->li[ih] += cost / ub->tminus[il];
        if (ub->tplus[ih] >= GBT_RANK_EPS) ub->lj[il] += cost / ub->tplus[ih];
    }
    g[order[hi]] += lambda;
    h[order[hi]] += hess;
    g[order[lo]] -= lambda;
    h[order[lo]] += hess;
    return -2.0 * lambda;
}

/*
 * Gradients of one group of n rows (margin, label, g and h point at its
 * first row) for round `round`; w is the group's weight times
 * op->rank_wnorm.  s holds n entries in each array.  ub: NULL, or
 * (lambdarank_unbiased) the biases, and li and lj of the group's rows,
 * which this sets.
 */
GBT_SHARED void gbt_rank_group_gradients(int obj, const struct gbt_obj_param *op, uint64_t seed,
                                         int round, uint64_t group, uint32_t n,
                                         const double *margin, const float *label, double w,
                                         const struct gbt_rank_scratch *s,
                                         const struct gbt_rank_bias *ub, double *g, double *h)
{
    const uint32_t k = op->rank_num_pair;
    const int topk = op->rank_method == GBT_RANK_TOPK;
    double inv_idcg = 0.0, sum_lambda = 0.0, norm = 1.0;
    for (uint32_t i = 0; i < n; i++) {
        g[i] = 0.0;
        h[i] = 0.0;
        s->order[i] = i;
        if (ub) {
            ub->li[i] = 0.0;
            ub->lj[i] = 0.0;
        }
    }
    if (n < 2) return;
    gbt_rank_sort(s->order, s->tmp, n, margin, label, 0);
    if (obj == GBT_OBJ_RANK_NDCG) {
        /* the ideal DCG: labels descending, the first k of them (topk) or all */
        double idcg = 0.0;
        const uint32_t m = topk && k < n ? k : n;
        for (uint32_t i = 0; i < n; i++) s->lorder[i] = i;
        gbt_rank_sort(s->lorder, s->tmp, n, margin, label, 1);
        for (uint32_t i = 0; i < m; i++)
            idcg += gbt_rank_discount(i) * gbt_rank_gain(label[s->lorder[i]], op->rank_exp_gain);
        inv_idcg = idcg == 0.0 ? 0.0 : 1.0 / idcg;
    } else if (obj == GBT_OBJ_RANK_MAP) {
        for (uint32_t i = 0; i < n; i++) {
            const double y = (double)label[s->order[i]];
            s->nrel[i] = (i ? s->nrel[i - 1] : 0.0) + y;
            s->acc[i] = (i ? s->acc[i - 1] : 0.0) + y / ((double)i + 1.0);
        }
    }
    if (topk) {
        const uint32_t m = k < n ? k : n;
        for (uint32_t i = 0; i < m; i++)
            for (uint32_t j = i + 1; j < n; j++)
                sum_lambda += gbt_rank_pair(obj, op, i, j, s, n, margin, label, inv_idcg, ub, g, h);
    } else {
        /* lorder: model positions sorted by their label, descending; buckets of equal labels */
        for (uint32_t i = 0; i < n; i++) s->lorder[i] = s->order[i];
        gbt_rank_sort(s->lorder, s->tmp, n, margin, label, 1);
        /* back from rows to model positions: tmp[row] = position */
        for (uint32_t i = 0; i < n; i++) s->tmp[s->order[i]] = i;
        for (uint32_t i = 0; i < n; i++) s->lorder[i] = s->tmp[s->lorder[i]];
        for (uint32_t i = 0; i < n;) {
            uint32_t j = i + 1;
            const float yi = label[s->order[s->lorder[i]]];
            while (j < n && label[s->order[s->lorder[j]]] == yi) j++;
            if (i + (n - j) > 0)
                for (uint32_t p = i; p < j; p++)
                    for (uint32_t t = 0; t < k; t++) {
                        uint32_t q = gbt_rank_partner(seed, round, group, p, t, k, i, n - j, j);
                        sum_lambda += gbt_rank_pair(obj, op, s->lorder[p], s->lorder[q], s, n,
                                                    margin, label, inv_idcg, ub, g, h);
                    }
            i = j;
        }
    }
    if (op->rank_normalization) {
        if (!topk)
            norm = 1.0 / (double)k;
        else if (sum_lambda > 0.0)
            norm = gbt_log2(1.0 + sum_lambda) / sum_lambda;
    }
    for (uint32_t i = 0; i < n; i++) {
        g[i] = g[i] * norm * w;
        h[i] = h[i] * norm * w;
    }
}

/* x^reg for x >= 0 and 0 < reg <= 1, from gmath.h's exp and log. */
GBT_SHARED double gbt_rank_root(double x, double reg)
{
    return x > 0.0 ? gbt_exp(reg * gbt_log(x)) : 0.0;
}

/*
 * lambdarank_unbiased, after a round: ti+[i] = (li[i] / li[0])^reg and
 * tj-[i] = (lj[i] / lj[0])^reg with reg = 1 / (1 + lambdarank_bias_norm)
 * (eq. 30 and 31 of Unbiased LambdaMART, normalised as XGBoost does), each
 * left as it was while its position 0's sum is below GBT_RANK_EPS.
 */
GBT_SHARED void gbt_rank_bias_update(const double *li, const double *lj, uint32_t npos, double reg,
                                     double *tplus, double *tminus)
{
    for (uint32_t i = 0; i < npos; i++) {
        if (li[0] >= GBT_RANK_EPS) tplus[i] = gbt_rank_root(li[i] / li[0], reg);
        if (lj[0] >= GBT_RANK_EPS) tminus[i] = gbt_rank_root(lj[i] / lj[0], reg);
    }
}

#endif
