/*
 * predict.h - the forest in the form prediction reads, and the traversal.
 *
 * Each tree is an array of 16-byte nodes numbered breadth-first, so a
 * node's children are adjacent: a row at node i moves (gbt_pnode_next) to
 *     left[i] + ((x >= threshold[i]) | (x is NaN & !default_left[i]))
 * (the same decision as the tree's "x < threshold goes left, missing to
 * the default side").  A leaf points to itself with threshold NaN and
 * default_left set, so the step keeps every row there: each row takes
 * exactly `depth` steps with no test for leaves, and the rows of a block
 * advance together.
 */
#ifndef GBT_PREDICT_H
#define GBT_PREDICT_H

#include <stdint.h>
#include <string.h>

#include "common/catset.h"
#include "common/hostdev.h"
#include "data/dataset.h"
#include "model/tree.h"

struct gbt_pnode {
    int32_t left;     /* the left child (the right one follows it); a leaf: itself */
    uint32_t feature; /* bit 31: missing goes left (always set at leaves) */
    float threshold;  /* NaN at leaves */
    float value;      /* the leaf value (at internal nodes unused) */
};

#define GBT_PNODE_DL 0x80000000u
/*
 * Bit 30 of feature: a categorical node (model/tree.h).  Its threshold is
 * NaN and its value field holds, as bits, where its set starts in the
 * forest's cat_bits, packed as common/catset.h says.
 */
#define GBT_PNODE_CAT 0x40000000u
#define GBT_PNODE_FEATURE 0x3fffffffu

/* Where a row at node n goes when its value of n's feature is x (NaN: missing). */
GBT_SHARED int32_t gbt_pnode_next(const struct gbt_pnode *n, float x)
{
    return n->left + ((x >= n->threshold) | ((x != x) & !(n->feature & GBT_PNODE_DL)));
}

/* gbt_pnode_next at a categorical node, whose sets are in bits. */
GBT_SHARED int32_t gbt_pnode_cat_next(const struct gbt_pnode *n, float x, const uint32_t *bits)
{
    uint32_t at;
    if (x != x) return n->left + !(n->feature & GBT_PNODE_DL);
    if (!(x >= 0.0f && x < 16777216.0f)) return n->left;
    memcpy(&at, &n->value, sizeof at);
    return n->left + gbt_catset_has(bits + at, (uint32_t)x);
}

/* Either step. */
GBT_SHARED int32_t gbt_pnode_step(const struct gbt_pnode *n, float x, const uint32_t *bits)
{
    return (n->feature & GBT_PNODE_CAT) ? gbt_pnode_cat_next(n, x, bits) : gbt_pnode_next(n, x);
}

/*
 * The CPU batch walk compares unsigned keys instead of floats: a value's
 * key keeps the order of the floats (-0 as +0) and missing (NaN) is
 * 0xffffffff, above every number.  A row goes right at a node when
 * key - lo <= range (unsigned): lo is the threshold's key and lo + range
 * is 0xfffffffe (every number at or above the threshold) or 0xffffffff
 * (missing too) as missing goes left or right.  One subtraction and one comparison, whatever the side of
 * missing values; the same decision as gbt_pnode_next's (tests/test_predict.c
 * compares the two at equal values, signed zeros, infinities and NaN).
 */
struct gbt_fnode {
    uint32_t lo, range;
    uint32_t key_at; /* feature * GBT_KEY_STRIDE: where the row's key is */
};

/* Rows per block of keys (keys[feature * GBT_KEY_STRIDE + row]). */
#define GBT_KEY_STRIDE 64
/* Keys are used only for forests on fewer features than this. */
#define GBT_KEY_MAX_FEATURES 16384
/* Trees no deeper than this are also laid out complete for the CPU walk. */
#define GBT_FULL_DEPTH 10

struct gbt_forest {
    struct gbt_pnode *nodes;
    size_t nodes_len, nodes_cap;
    uint64_t *offset; /* first node of each tree */
    uint8_t *depth;
    /*
     * Trees of depth D <= GBT_FULL_DEPTH on features < GBT_KEY_MAX_FEATURES
     * again, complete: node h (1-based, children 2h and 2h+1) at
     * full[full_off[t] + h], and after D steps a row at h reaches
     * leaf[full_off[t] + h - 2^D].  A leaf above depth D becomes nodes that
     * send every row left and 2^(D - its depth) copies of its value.
     * Other trees take no room here (their walk uses nodes).
     */
    struct gbt_fnode *full;
    float *leaf;
    size_t full_len, full_cap, leaf_cap;
    uint64_t *full_off;
    uint32_t ntrees;
    size_t trees_cap;
    uint8_t *full_ok; /* per tree: laid out complete (no categorical node, shallow, few features) */
    uint32_t *cat_bits; /* the categorical nodes' sets (GBT_PNODE_CAT) */
    size_t cat_len, cat_cap;
    uint32_t feature_end; /* 1 + the largest feature any tree splits on */
};

/* Appends tree t with its leaf values multiplied by w (a dart tree's weight; else 1). */
gbt_status gbt__forest_append(struct gbt_forest *f, const struct gbt_tree *t, float w);
void gbt__forest_truncate(struct gbt_forest *f, uint32_t ntrees);
void gbt__forest_free(struct gbt_forest *f);

/*
 * Adds to margin (nrow x K, row-major) the leaf values of trees [t0, t1)
 * for every row of v; tree t belongs to class t % K.
 */
void gbt__forest_add(const struct gbt_forest *f, uint32_t t0, uint32_t t1, int K,
                     const struct gbt_dview *v, int nthread, double *margin);

/*
 * Predictions of the trees [t0, t1) (t0 a multiple of K): the raw scores start from the
 * row's base_margin (if v has one, nrow * K values) or from base[K], then go through the
 * objective's transform (gbt__objective_transform) into out.  Allocates
 * only scratch for keys, and walks the nodes instead if that fails.
 */
void gbt__forest_predict(const struct gbt_forest *f, uint32_t t0, uint32_t t1, int obj, int K,
                         const double *base, const struct gbt_dview *v, unsigned flags,
                         int nthread, float *out);

#endif
