/*
 * leaf_refit.h - the leaves of reg:absoluteerror and reg:quantileerror, as
 * XGBoost's adaptive trees set them: after a tree is grown, each leaf takes
 * eta times the alpha-quantile of its rows' residuals (label - margin).
 *
 * The quantile is XGBoost's: without weights the interpolated one of NIST's
 * handbook (position alpha (n + 1), the first or last value outside
 * [1 / (n + 1), n / (n + 1)]); with weights the least value whose
 * cumulative weight reaches alpha times the total (no interpolation).
 * Both backends give the host the same rows and margins, and the host
 * computes every quantile, so the leaves are the same bits on each.
 */
#ifndef GBT_LEAF_REFIT_H
#define GBT_LEAF_REFIT_H

#include <stdint.h>

#include "gbt.h"

/* A value and its weight. */
struct gbt_wvalue {
    double v, w;
};

/* What refitting the leaves of one round's trees needs. */
struct gbt_leaf_refit {
    const double *alpha;   /* K: the quantile the leaves of class k's trees take (multi-target: alpha[0]) */
    const float *label;    /* nrow * T, row-major: output k of a multi-target model refits to label k */
    int T;                 /* labels per row: K (multi-target) or 1 */
    const float *weight;   /* nrow, or NULL: every weight 1 */
    int weighted;          /* weighted step quantiles, else interpolated ones */
    uint64_t nrow;
    int K;
    int nthread;
    /* rows that gbt_row_sampled leaves out of this round do not count */
    uint64_t seed;
    int round;
    double subsample;
    uint64_t row_base; /* the global index of row 0 (distributed training; else 0) */
    /*
     * The margins at the start of the round (nrow * K, row-major), which
     * every parallel tree of the round refits against; NULL: the source's
     * current margins (one tree per class and round).
     */
    const double *margin;
    /*
     * Distributed training (dist.c), else NULL: gathers the n leaves'
     * values of every process (leaf i's m[i] values at v + sum of m[<i]):
     * *all (free()) holds leaf after leaf, each leaf's values process after
     * process, and *mall (free()) each leaf's count.
     */
    gbt_status (*gather)(void *user, const struct gbt_wvalue *v, const uint64_t *m, int n,
                         struct gbt_wvalue **all, uint64_t **mall);
    void *gather_user;
};


/*
 * Sorts n values ascending, equal values by weight: one order whatever the
 * order they came in (the weighted quantile's running sums depend on it).
 */
void gbt__quantile_sort(struct gbt_wvalue *s, uint64_t n);

/*
 * The alpha-quantile of n sorted values: with `weighted` the weighted step
 * quantile, else the interpolated one (the weights unused).  NaN when n is 0.
 */
double gbt__quantile(double alpha, const struct gbt_wvalue *s, uint64_t n, int weighted);

/*
 * Where the grown tree's rows and the training margins come from: the
 * backend's read_rows and read_margins (backend.h) on its context.
 */
struct gbt_leaf_source {
    gbt_status (*read_rows)(void *ctx, uint32_t *rows, uint64_t *node_begin, uint64_t *node_count);
    gbt_status (*read_margins)(void *ctx, double *out);
    void *ctx;
};

/*
 * For the n leaves nodes[i] (the grower's node ids) of the tree of class
 * cls just grown on src, before its leaf values reach the margins:
 * out[i] = the alpha-quantile of label - margin over the leaf's rows, NaN
 * for a leaf without rows.
 */
gbt_status gbt__leaf_quantiles(const struct gbt_leaf_source *src,
                               const struct gbt_leaf_refit *rf, int cls, uint32_t max_nodes,
                               const int32_t *nodes, int n, double *out);

#endif
