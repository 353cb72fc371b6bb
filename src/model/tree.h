/*
 * tree.h - one regression tree: nodes by index, 0 the root.  A row goes to
 * left[i] when its value of feature[i] is < threshold[i], to right[i]
 * when it is not, and to the default side when it is missing.
 */
#ifndef GBT_TREE_H
#define GBT_TREE_H

#include <stdint.h>

#include "gbt.h"

struct gbt_tree {
    int32_t n_nodes, cap;
    int32_t *left, *right; /* -1 at leaves */
    int32_t *feature;      /* -1 at leaves */
    float *threshold; /* values below it go left */
    uint8_t *default_left;
    float *value; /* leaf output (eta applied); at internal nodes the weight it would have */
    float *gain;  /* loss reduction of the split; 0 at leaves */
    float *cover; /* hessian sum of the training rows that reached the node */
};

gbt_status gbt__tree_init(struct gbt_tree *t, int32_t cap);
void gbt__tree_free(struct gbt_tree *t);

/* Appends a leaf node with the given value and cover; its index in *id. */
gbt_status gbt__tree_add(struct gbt_tree *t, float value, float cover, int32_t *id);

/* The number of edges on the longest root-to-leaf path, in *depth. */
gbt_status gbt__tree_depth(const struct gbt_tree *t, int *depth);

/*
 * Checks that t is a tree over nfeat features: children in range and after
 * their parent, every node but the root the child of exactly one node,
 * finite thresholds, values, gains and covers.  Messages start with `what`.
 */
gbt_status gbt__tree_validate(const struct gbt_tree *t, uint64_t nfeat, const char *what);

#endif
