/*
 * prune.c - XGBoost's prune updater on one tree (prune.h).
 *
 * XGBoost walks the leaves and collapses a leaf's parent while both its
 * children are leaves and the split needs pruning; which splits go does not
 * depend on the order, so one backward pass (children come after their
 * parents) collapses the same ones.
 */
#include <stdlib.h>
#include <string.h>

#include "train/prune.h"
#include "util/util.h"

/* The nodes of t reachable through inner nodes (leaf[i]: i is a leaf now), breadth-first, into out. */
static gbt_status renumber(const struct gbt_tree *t, const uint8_t *leaf, const float *value, struct gbt_tree *out)
{
    int32_t *order = NULL, head = 0, tail = 1;
    gbt_status s = gbt__alloc(&order, (size_t)t->n_nodes, sizeof *order, 0, "pruned tree");
    if (s == GBT_OK) s = gbt__tree_init(out, t->n_nodes);
    if (s != GBT_OK) {
        free(order);
        return s;
    }
    order[0] = 0;
    while (head < tail && s == GBT_OK) {
        const int32_t i = order[head];
        int32_t id;
        s = gbt__tree_add(out, value[i], t->cover[i], &id);
        if (s == GBT_OK && !leaf[i]) {
            out->left[id] = tail;
            out->right[id] = tail + 1;
            out->feature[id] = t->feature[i];
            out->threshold[id] = t->threshold[i];
            out->default_left[id] = t->default_left[i];
            out->gain[id] = t->gain[i];
            if (gbt__tree_is_cat(t, i)) {
                int32_t n;
                const uint32_t *c = gbt__tree_cats(t, i, &n);
                s = gbt__tree_set_cats(out, id, c, n);
            }
            order[tail++] = t->left[i];
            order[tail++] = t->right[i];
        }
        head++;
    }
    free(order);
    if (s != GBT_OK) gbt__tree_free(out);
    return s;
}

gbt_status gbt__prune_tree(struct gbt_tree *t, double gamma, int max_depth, float lr, int32_t *pruned)
{
    const int32_t n = t->n_nodes;
    const float fgamma = (float)gamma; /* XGBoost's min_split_loss is a float */
    uint8_t *leaf = NULL;
    int32_t *depth = NULL, removed = 0;
    float *value = NULL;
    struct gbt_tree out;
    gbt_status s = gbt__alloc(&leaf, (size_t)n, 1, 0, "pruning");
    if (s == GBT_OK) s = gbt__alloc(&depth, (size_t)n, sizeof *depth, 0, "pruning");
    if (s == GBT_OK) s = gbt__alloc(&value, (size_t)n, sizeof *value, 0, "pruning");
    *pruned = 0;
    if (s != GBT_OK) {
        free(leaf);
        free(depth);
        free(value);
        return s;
    }
    depth[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        leaf[i] = t->left[i] < 0;
        value[i] = t->value[i];
        if (!leaf[i]) depth[t->left[i]] = depth[t->right[i]] = depth[i] + 1;
    }
    for (int32_t i = n - 1; i >= 0; i--) {
        if (leaf[i] || !leaf[t->left[i]] || !leaf[t->right[i]]) continue;
        if ((double)t->gain[i] < (double)fgamma || (max_depth > 0 && depth[i] + 1 > max_depth)) {
            leaf[i] = 1;
            value[i] = lr * t->value[i];
            removed += 2;
        }
    }
    if (removed > 0) s = renumber(t, leaf, value, &out);
    if (removed > 0 && s == GBT_OK) {
        /* the new leaves keep their cover; a leaf's gain is 0 (tree.h) */
        gbt__tree_free(t);
        *t = out;
        *pruned = removed;
    }
    free(leaf);
    free(depth);
    free(value);
    return s;
}
