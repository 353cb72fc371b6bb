/*
 * tree.h - one regression tree: nodes by index, 0 the root.  A row goes to
 * left[i] when its value of feature[i] is < threshold[i], to right[i]
 * when it is not, and to the default side when it is missing.
 *
 * A categorical node (split_type[i] == 1; common/cat_math.h) holds a set
 * of categories, cats[cat_begin[i] .. cat_begin[i] + cat_count[i]),
 * ascending: a row whose value, truncated to a whole number, is one of
 * them goes right; any other value, a category never seen in training, a
 * negative or one of 2^24 and above too, goes left (XGBoost's rule);
 * missing goes to the default side.  Its threshold is 0 and unused.
 */
#ifndef GBT_TREE_H
#define GBT_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "gbt.h"

struct gbt_tree {
    int32_t n_nodes, cap;
    int32_t *left, *right; /* -1 at leaves */
    int32_t *feature;      /* -1 at leaves */
    float *threshold; /* values below it go left */
    uint8_t *default_left;
    float *value; /* leaf output (eta applied); at inner nodes the weight (no eta: XGBoost's base_weight) */
    float *gain;  /* loss reduction of the split; 0 at leaves */
    float *cover; /* hessian sum of the training rows that reached the node */
    /* categorical splits: all NULL (and ncats 0) in a tree without any */
    uint8_t *split_type; /* 0 numeric, 1 categorical */
    int32_t *cat_begin, *cat_count;
    uint32_t *cats;
    int32_t ncats, cats_cap;
};

/* Categories in splits are below this: 2^24 (GBT_CAT_LIMIT, XGBoost's limit). */
#define GBT_TREE_CAT_LIMIT 16777216u

static inline int gbt__tree_is_cat(const struct gbt_tree *t, int32_t i)
{
    return t->split_type != NULL && t->split_type[i] == 1;
}

/* Whether a present value x goes right at categorical node i (the set's membership test). */
static inline int gbt__tree_cat_right(const struct gbt_tree *t, int32_t i, float x)
{
    const uint32_t *c = t->cats + t->cat_begin[i];
    uint32_t code;
    int32_t lo = 0, hi = t->cat_count[i];
    if (!(x >= 0.0f && x < (float)GBT_TREE_CAT_LIMIT)) return 0;
    code = (uint32_t)x;
    while (lo < hi) {
        const int32_t mid = (lo + hi) / 2;
        if (c[mid] < code)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->cat_count[i] && c[lo] == code;
}

/* The child of inner node i that a row whose value of feature[i] is x (NaN: missing) goes to. */
static inline int32_t gbt__tree_next(const struct gbt_tree *t, int32_t i, float x)
{
    int right;
    if (x != x)
        right = !t->default_left[i];
    else if (gbt__tree_is_cat(t, i))
        right = gbt__tree_cat_right(t, i, x);
    else
        right = !(x < t->threshold[i]);
    return right ? t->right[i] : t->left[i];
}

/* Makes node id categorical with the n categories of cats (ascending; copied): the set's one constructor. */
gbt_status gbt__tree_set_cats(struct gbt_tree *t, int32_t id, const uint32_t *cats, int32_t n);

/* Categorical node i's categories, ascending: *n of them (the set's one iteration). */
static inline const uint32_t *gbt__tree_cats(const struct gbt_tree *t, int32_t i, int32_t *n)
{
    *n = t->cat_count[i];
    return t->cats + t->cat_begin[i];
}

/*
 * Categorical node i's set packed for prediction (common/catset.h: words
 * in proportion to its categories, not to the largest): writes it to out
 * when out is not NULL; returns its words.
 */
size_t gbt__tree_cat_packed(const struct gbt_tree *t, int32_t i, uint32_t *out);

/* A copy of src's categorical splits in dst (a tree of src's nodes, just initialised). */
gbt_status gbt__tree_copy_cats(const struct gbt_tree *src, struct gbt_tree *dst);

gbt_status gbt__tree_init(struct gbt_tree *t, int32_t cap);
/* dst (not initialised) becomes a copy of src. */
gbt_status gbt__tree_copy(const struct gbt_tree *src, struct gbt_tree *dst);
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
