/*
 * refresh.h - XGBoost's refresh updater (process_type=update,
 * updater=refresh) on one tree: every node's statistics recomputed from
 * the gradients of the rows that reach it, on the host (refresh.c).
 */
#ifndef GBT_REFRESH_H
#define GBT_REFRESH_H

#include "common/split_math.h"
#include "data/dataset.h"
#include "model/tree.h"

struct gbt_refresh {
    const struct gbt_dview *v; /* the rows, walked on their feature values */
    const double *g, *h;       /* the tree's output's gradient and hessian of each row */
    struct gbt_split_params sp; /* lambda, alpha, max_delta_step, min_child_weight */
    float lr;                  /* eta / num_parallel_tree, in float as XGBoost's */
    int refresh_leaf;          /* 1: leaf values become lr times the new weight */
    int nthread;
};

/*
 * Sets each node's cover to its rows' hessian sum H, an inner node's value
 * to its weight w(G, H) and gain to gain(left) + gain(right) - gain(node)
 * (common/split_math.h's gbt_checked_weight and gbt_checked_gain); with
 * refresh_leaf a leaf's value to lr * w.  The sums are of the gradients in
 * fixed point (common/grad_math.h), so exact for any thread count.
 */
gbt_status gbt__refresh_tree(struct gbt_tree *t, const struct gbt_refresh *r);

#endif
