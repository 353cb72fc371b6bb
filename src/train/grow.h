/*
 * grow.h - growing one tree through a backend (the algorithm is the same
 * for every backend; see backend.h for the calls it makes).
 */
#ifndef GBT_GROW_H
#define GBT_GROW_H

#include <stdint.h>

#include "backend.h"
#include "model/tree.h"
#include "params/constraints.h"

/* A split must reduce the loss by more than this (XGBoost's kRtEps). */
#define GBT_MIN_SPLIT_GAIN 1e-6

/* What happened to histograms while growing (added to by gbt__grow_tree). */
struct gbt_grow_stats {
    uint64_t built;      /* BUILD jobs: histograms summed from rows */
    uint64_t subtracted; /* SUBTRACT jobs: a parent's minus its lighter child's */
    uint64_t rebuilt;    /* parents without a histogram: both children built */
    uint64_t dropped;    /* histograms dropped because the pool was full */
};

struct gbt_grow_config {
    int policy; /* enum gbt_grow_policy */
    int max_depth, max_leaves; /* 0: no limit (not both, and depthwise needs max_depth) */
    double eta, gamma;
    struct gbt_split_params sp; /* exponents, units and rows_per_h are set per tree from its class sums */
    double rows;                /* the rows a tree is grown on (all processes'; times subsample) */
    double colsample_bytree, colsample_bylevel, colsample_bynode;
    uint64_t seed;
    uint64_t tree_index; /* round * num_class + class: keys the feature sampling */
    const struct gbt_cuts *cuts;
    const uint8_t *usable; /* nfeat: features that can split */
    /* monotone and interaction constraints, feature weights (sp.monotone set with monotone) */
    const struct gbt_constraints *cons;
    uint32_t max_nodes;
    uint32_t max_slots; /* the histogram pool: slots, and the most nodes in one batch */
    struct gbt_grow_stats *stats; /* NULL, or counters to add to */
    /* NULL: leaves take eta * weight(G, H); else the quantiles of leaf_refit.h */
    const struct gbt_leaf_refit *refit;
};

/* The node and histogram-slot counts a configuration may need for n rows. */
void gbt__grow_limits(int policy, int max_depth, int max_leaves, uint64_t nrow,
                      uint32_t *max_nodes, uint32_t *max_slots);

/*
 * The histogram slots that histogram_pool_size (MB; <= 0: no limit) allows
 * for histograms of total_bins bins (16 bytes each): max(2, floor(MB *
 * 2^20 / (16 * total_bins))), UINT32_MAX without a limit.
 */
uint32_t gbt__hist_pool_slots(double pool_mb, uint32_t total_bins);

struct gbt_leaf_refit;

/*
 * Grows the tree of class cls on the backend context and adds its leaf
 * values to the backend's margins.  out is initialised here, and holds
 * nothing to free on failure.
 */
gbt_status gbt__grow_tree(const struct gbt_backend_ops *ops, void *ctx,
                          const struct gbt_grow_config *cfg, int cls,
                          const struct gbt_class_sums *sums, struct gbt_tree *out);

#endif
