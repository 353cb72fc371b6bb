/*
 * tree.c - storage and checks of one tree.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/catset.h"
#include "model/tree.h"
#include "util/util.h"

void gbt__tree_free(struct gbt_tree *t)
{
    free(t->left);
    free(t->right);
    free(t->feature);
    free(t->threshold);
    free(t->default_left);
    free(t->value);
    free(t->gain);
    free(t->cover);
    free(t->split_type);
    free(t->cat_begin);
    free(t->cat_count);
    free(t->cats);
    memset(t, 0, sizeof *t);
}

gbt_status gbt__tree_init(struct gbt_tree *t, int32_t cap)
{
    gbt_status s;
    memset(t, 0, sizeof *t);
    if (cap < 1) cap = 1;
    s = gbt__alloc(&t->left, (size_t)cap, sizeof(int32_t), 0, "tree");
    if (s == GBT_OK) s = gbt__alloc(&t->right, (size_t)cap, sizeof(int32_t), 0, "tree");
    if (s == GBT_OK) s = gbt__alloc(&t->feature, (size_t)cap, sizeof(int32_t), 0, "tree");
    if (s == GBT_OK) s = gbt__alloc(&t->threshold, (size_t)cap, sizeof(float), 0, "tree");
    if (s == GBT_OK) s = gbt__alloc(&t->default_left, (size_t)cap, 1, 0, "tree");
    if (s == GBT_OK) s = gbt__alloc(&t->value, (size_t)cap, sizeof(float), 0, "tree");
    if (s == GBT_OK) s = gbt__alloc(&t->gain, (size_t)cap, sizeof(float), 0, "tree");
    if (s == GBT_OK) s = gbt__alloc(&t->cover, (size_t)cap, sizeof(float), 0, "tree");
    if (s != GBT_OK) {
        gbt__tree_free(t);
        return s;
    }
    t->cap = cap;
    return GBT_OK;
}

gbt_status gbt__tree_add(struct gbt_tree *t, float value, float cover, int32_t *id)
{
    int32_t i = t->n_nodes;
    RETURN_ERROR_IF(i >= t->cap, GBT_E_INTERNAL, "tree is full (%d nodes)", t->cap);
    t->left[i] = t->right[i] = t->feature[i] = -1;
    t->threshold[i] = 0.0f;
    t->default_left[i] = 0;
    t->value[i] = value;
    t->gain[i] = 0.0f;
    t->cover[i] = cover;
    if (t->split_type) {
        t->split_type[i] = 0;
        t->cat_begin[i] = t->cat_count[i] = 0;
    }
    t->n_nodes++;
    *id = i;
    return GBT_OK;
}

gbt_status gbt__tree_set_cats(struct gbt_tree *t, int32_t id, const uint32_t *cats, int32_t n)
{
    RETURN_ERROR_IF(id < 0 || id >= t->n_nodes || n < 0, GBT_E_INTERNAL, "categories of node %d", id);
    if (t->split_type == NULL) {
        /* all three or none: split_type set means the others are there */
        uint8_t *type = NULL;
        int32_t *begin = NULL, *count = NULL;
        gbt_status s = gbt__alloc(&type, (size_t)t->cap, 1, 1, "tree categories");
        if (s == GBT_OK) s = gbt__alloc(&begin, (size_t)t->cap, sizeof(int32_t), 1, "tree categories");
        if (s == GBT_OK) s = gbt__alloc(&count, (size_t)t->cap, sizeof(int32_t), 1, "tree categories");
        if (s != GBT_OK) {
            free(type);
            free(begin);
            free(count);
            return s;
        }
        t->split_type = type;
        t->cat_begin = begin;
        t->cat_count = count;
    }
    RETURN_ERROR_IF(n > INT32_MAX - t->ncats, GBT_E_INVALID_ARG, "too many categories in one tree");
    {
        size_t cap = (size_t)t->cats_cap;
        FORWARD_IF_ERROR(gbt__reserve(&t->cats, &cap, (size_t)t->ncats + (size_t)n + 1, sizeof *t->cats,
                                      "tree categories"));
        t->cats_cap = (int32_t)(cap > INT32_MAX ? INT32_MAX : cap);
    }
    if (n) memcpy(t->cats + t->ncats, cats, (size_t)n * sizeof *cats);
    t->split_type[id] = 1;
    t->cat_begin[id] = t->ncats;
    t->cat_count[id] = n;
    t->threshold[id] = 0.0f;
    t->ncats += n;
    return GBT_OK;
}

size_t gbt__tree_cat_packed(const struct gbt_tree *t, int32_t i, uint32_t *out)
{
    int32_t n;
    const uint32_t *c = gbt__tree_cats(t, i, &n);
    if (out != NULL) gbt_catset_pack(c, (uint32_t)n, out);
    return gbt_catset_words(c, (uint32_t)n);
}

gbt_status gbt__tree_copy(const struct gbt_tree *src, struct gbt_tree *dst)
{
    const size_t n = (size_t)src->n_nodes;
    FORWARD_IF_ERROR(gbt__tree_init(dst, src->n_nodes));
    memcpy(dst->left, src->left, n * sizeof *dst->left);
    memcpy(dst->right, src->right, n * sizeof *dst->right);
    memcpy(dst->feature, src->feature, n * sizeof *dst->feature);
    memcpy(dst->threshold, src->threshold, n * sizeof *dst->threshold);
    memcpy(dst->default_left, src->default_left, n * sizeof *dst->default_left);
    memcpy(dst->value, src->value, n * sizeof *dst->value);
    memcpy(dst->gain, src->gain, n * sizeof *dst->gain);
    memcpy(dst->cover, src->cover, n * sizeof *dst->cover);
    dst->n_nodes = src->n_nodes;
    return gbt__tree_copy_cats(src, dst);
}

gbt_status gbt__tree_copy_cats(const struct gbt_tree *src, struct gbt_tree *dst)
{
    for (int32_t i = 0; i < src->n_nodes; i++)
        if (gbt__tree_is_cat(src, i))
            FORWARD_IF_ERROR(gbt__tree_set_cats(dst, i, src->cats + src->cat_begin[i], src->cat_count[i]));
    return GBT_OK;
}

gbt_status gbt__tree_depth(const struct gbt_tree *t, int *depth)
{
    /* children come after their parent, so one backward pass suffices */
    int *d;
    FORWARD_IF_ERROR(gbt__alloc(&d, (size_t)t->n_nodes + 1, sizeof(int), 1, "tree depths"));
    for (int32_t i = t->n_nodes - 1; i >= 0; i--)
        if (t->left[i] >= 0) {
            int a = d[t->left[i]], b = d[t->right[i]];
            d[i] = 1 + (a > b ? a : b);
        }
    *depth = d[0];
    free(d);
    return GBT_OK;
}

/* Categorical node i's categories: in range of cats, ascending, below the limit. */
static int cats_ok(const struct gbt_tree *t, int32_t i)
{
    const int32_t b = t->cat_begin[i], n = t->cat_count[i];
    if (b < 0 || n < 0 || b > t->ncats || n > t->ncats - b) return 0;
    for (int32_t k = 0; k < n; k++)
        if (t->cats[b + k] >= GBT_TREE_CAT_LIMIT || (k > 0 && t->cats[b + k] <= t->cats[b + k - 1])) return 0;
    return 1;
}

gbt_status gbt__tree_validate(const struct gbt_tree *t, uint64_t nfeat, const char *what)
{
    uint8_t *seen;
    gbt_status s = GBT_OK;
    RETURN_ERROR_IF(t->n_nodes < 1, GBT_E_FORMAT, "%s: no nodes", what);
    FORWARD_IF_ERROR(gbt__alloc(&seen, (size_t)t->n_nodes, 1, 1, "tree check"));
    for (int32_t i = 0; i < t->n_nodes && s == GBT_OK; i++) {
        int32_t l = t->left[i], r = t->right[i];
        if (!isfinite(t->value[i]))
            s = gbt__fail(GBT_E_FORMAT, "%s: node %d has a value that is not finite", what, i);
        else if (!isfinite(t->cover[i]))
            s = gbt__fail(GBT_E_FORMAT, "%s: node %d has a cover that is not finite", what, i);
        /* leaves too: every number is written, and JSON has no infinity (fuzz_model) */
        else if (!isfinite(t->threshold[i]))
            s = gbt__fail(GBT_E_FORMAT, "%s: node %d has a threshold that is not finite", what, i);
        else if (!isfinite(t->gain[i]))
            s = gbt__fail(GBT_E_FORMAT, "%s: node %d has a gain that is not finite", what, i);
        else if ((l < 0) != (r < 0))
            s = gbt__fail(GBT_E_FORMAT, "%s: node %d has one child", what, i);
        else if (l < 0)
            continue;
        else if (l <= i || r <= i || l >= t->n_nodes || r >= t->n_nodes || l == r)
            s = gbt__fail(GBT_E_FORMAT, "%s: node %d has children %d and %d out of order or range",
                          what, i, l, r);
        else if (seen[l] || seen[r])
            s = gbt__fail(GBT_E_FORMAT, "%s: node %d or %d has two parents", what, l, r);
        else if (t->feature[i] < 0 || (uint64_t)t->feature[i] >= nfeat)
            s = gbt__fail(GBT_E_FORMAT, "%s: node %d splits on feature %d of %llu", what, i,
                          t->feature[i], (unsigned long long)nfeat);
        else if (gbt__tree_is_cat(t, i) && !cats_ok(t, i))
            s = gbt__fail(GBT_E_FORMAT,
                          "%s: node %d has categories that are not ascending whole numbers below %u", what, i,
                          GBT_TREE_CAT_LIMIT);
        else
            seen[l] = seen[r] = 1;
    }
    for (int32_t i = 1; i < t->n_nodes && s == GBT_OK; i++)
        if (!seen[i]) s = gbt__fail(GBT_E_FORMAT, "%s: node %d is not reachable", what, i);
    free(seen);
    return s;
}
