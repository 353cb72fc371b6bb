/*
 * grow.c - growing one tree: the same algorithm for every backend.
 *
 * depthwise: all nodes of a level are evaluated in one batch; those whose
 *   best split gains more than GBT_MIN_SPLIT_GAIN split (in node order
 *   while max_leaves allows), their rows are partitioned in one batch, and
 *   the next level's histograms are built in one batch: the child with the
 *   smaller hessian sum is built from its rows, its sibling is the parent's
 *   histogram minus it (exact: the sums are integers).
 * lossguide: the leaf of highest gain (lowest node id on ties) splits
 *   next; its two children form the batch.
 * Then, as in XGBoost, splits whose gain is below gamma are pruned from the
 * bottom up, and every leaf gets eta * weight(G, H), or, for the objectives
 * that refit leaves, eta * the quantile of its rows' residuals
 * (leaf_refit.h; a leaf without rows keeps eta * weight(G, H)).
 *
 * Sampling of features: colsample_bytree picks round(rate * n) of the
 * usable features (at least one) by the smallest counter-based draws keyed
 * by (seed, tree); colsample_bylevel picks from those per depth, and
 * colsample_bynode per node.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cat_math.h"
#include "common/rng.h"
#include "train/grow.h"
#include "objective/leaf_refit.h"
#include "objective/params.h"
#include "util/util.h"

struct gnode {
    int32_t depth, slot;
    int32_t left, right; /* -1 for leaves */
    struct gbt_hbin sum;
    struct gbt_split split;
};

struct grower {
    const struct gbt_backend_ops *ops;
    void *ctx;
    const struct gbt_grow_config *cfg;
    struct gbt_split_params sp;
    uint32_t nfeat;
    struct gnode *nodes;
    int32_t n_nodes;
    size_t nodes_cap;
    int32_t *free_slots;
    int32_t nfree;
    int sampling;        /* any colsample rate below 1 */
    uint8_t *tree_mask;  /* nfeat */
    uint8_t *level_mask; /* nfeat */
    int32_t level_depth; /* depth level_mask was drawn for */
    uint8_t *masks;      /* one row of nfeat per job */
    size_t masks_cap;
    struct gbt_split_job *sjobs;
    struct gbt_split *splits;
    /* categorical splits: words per set; the sets of a batch; each node's set, by node id */
    uint32_t cat_words;
    uint32_t *cat_batch, *node_cats;
    size_t cat_batch_cap, node_cats_cap;
    struct gbt_hist_job *hjobs;
    struct gbt_partition_job *pjobs;
    size_t sjobs_cap, splits_cap, hjobs_cap, pjobs_cap;
    struct sample { uint64_t draw; uint32_t f; } *draws;
};

void gbt__grow_limits(int policy, int max_depth, int max_leaves, uint64_t nrow,
                      uint32_t *max_nodes, uint32_t *max_slots)
{
    uint64_t nodes = 2 * nrow - 1, slots = nrow;
    if (max_depth > 0 && max_depth < 31) {
        uint64_t by_depth = ((uint64_t)1 << (max_depth + 1)) - 1;
        uint64_t level = (uint64_t)1 << (max_depth - 1);
        if (by_depth < nodes) nodes = by_depth;
        if (level < slots) slots = level;
    }
    if (max_leaves > 0) {
        if (2 * (uint64_t)max_leaves - 1 < nodes) nodes = 2 * (uint64_t)max_leaves - 1;
        if ((uint64_t)max_leaves < slots) slots = (uint64_t)max_leaves;
    }
    (void)policy;
    if (nodes > 0x7fffffffu) nodes = 0x7fffffffu;
    if (slots < 1) slots = 1;
    if (slots > nodes) slots = nodes;
    *max_nodes = (uint32_t)nodes;
    *max_slots = (uint32_t)slots;
}

static int cmp_sample(const void *a, const void *b)
{
    const struct sample *x = a, *y = b;
    if (x->draw != y->draw) return x->draw < y->draw ? -1 : 1;
    return (x->f > y->f) - (x->f < y->f);
}

/* out := round(rate * |in|) (>= 1) features of `in` with the smallest draws. */
static void sample_features(struct grower *g, const uint8_t *in, uint8_t *out, double rate,
                            uint64_t stream, uint64_t key)
{
    uint32_t m = 0, k;
    if (rate >= 1.0) {
        memcpy(out, in, g->nfeat);
        return;
    }
    for (uint32_t f = 0; f < g->nfeat; f++) {
        out[f] = 0;
        if (!in[f]) continue;
        g->draws[m].draw = gbt_draw(g->cfg->seed, stream, key, f);
        g->draws[m].f = f;
        m++;
    }
    if (m == 0) return;
    k = (uint32_t)floor(rate * (double)m + 0.5);
    if (k < 1) k = 1;
    qsort(g->draws, m, sizeof *g->draws, cmp_sample);
    for (uint32_t i = 0; i < k; i++) out[g->draws[i].f] = 1;
}

static gbt_status alloc_slot(struct grower *g, int32_t *slot)
{
    RETURN_ERROR_IF(g->nfree == 0, GBT_E_INTERNAL, "out of histogram slots");
    *slot = g->free_slots[--g->nfree];
    return GBT_OK;
}

static void release_slot(struct grower *g, int32_t node)
{
    if (g->nodes[node].slot >= 0) g->free_slots[g->nfree++] = g->nodes[node].slot;
    g->nodes[node].slot = -1;
}

static gbt_status new_node(struct grower *g, int32_t depth, struct gbt_hbin sum, int32_t *id)
{
    RETURN_ERROR_IF((uint32_t)g->n_nodes >= g->cfg->max_nodes, GBT_E_INTERNAL,
                    "tree outgrew %u nodes", g->cfg->max_nodes);
    FORWARD_IF_ERROR(gbt__reserve(&g->nodes, &g->nodes_cap, (size_t)g->n_nodes + 1,
                                  sizeof *g->nodes, "tree nodes"));
    *id = g->n_nodes++;
    g->nodes[*id].depth = depth;
    g->nodes[*id].slot = -1;
    g->nodes[*id].left = g->nodes[*id].right = -1;
    g->nodes[*id].sum = sum;
    g->nodes[*id].split.feature = -1;
    return GBT_OK;
}

/* Best splits of the listed nodes (which hold histograms), in one batch. */
static gbt_status evaluate(struct grower *g, const int32_t *ids, int n)
{
    const struct gbt_grow_config *cfg = g->cfg;
    FORWARD_IF_ERROR(gbt__reserve(&g->sjobs, &g->sjobs_cap, (size_t)n, sizeof *g->sjobs, "split jobs"));
    FORWARD_IF_ERROR(gbt__reserve(&g->splits, &g->splits_cap, (size_t)n, sizeof *g->splits, "splits"));
    if (g->sampling)
        FORWARD_IF_ERROR(gbt__reserve(&g->masks, &g->masks_cap, (size_t)n * g->nfeat, 1, "feature masks"));
    for (int i = 0; i < n; i++) {
        const struct gnode *nd = &g->nodes[ids[i]];
        g->sjobs[i].node = ids[i];
        g->sjobs[i].slot = nd->slot;
        g->sjobs[i].total = nd->sum;
        if (g->sampling) {
            if (nd->depth != g->level_depth) {
                sample_features(g, g->tree_mask, g->level_mask, cfg->colsample_bylevel,
                                GBT_RNG_LEVEL_COLS, cfg->tree_index * 64 + (uint64_t)nd->depth);
                g->level_depth = nd->depth;
            }
            sample_features(g, g->level_mask, g->masks + (size_t)i * g->nfeat,
                            cfg->colsample_bynode, GBT_RNG_NODE_COLS,
                            (cfg->tree_index << 32) | (uint64_t)ids[i]);
        }
    }
    if (g->cat_words) {
        FORWARD_IF_ERROR(gbt__reserve(&g->cat_batch, &g->cat_batch_cap, (size_t)n * g->cat_words,
                                      sizeof *g->cat_batch, "category sets"));
        FORWARD_IF_ERROR(gbt__reserve(&g->node_cats, &g->node_cats_cap, (size_t)g->n_nodes * g->cat_words,
                                      sizeof *g->node_cats, "category sets"));
    }
    FORWARD_IF_ERROR(g->ops->best_splits(g->ctx, g->sjobs, n, g->sampling ? g->masks : NULL,
                                         &g->sp, g->splits, g->cat_words ? g->cat_batch : NULL));
    for (int i = 0; i < n; i++) {
        g->nodes[ids[i]].split = g->splits[i];
        if (g->splits[i].feature >= 0 && g->splits[i].is_cat)
            memcpy(g->node_cats + (size_t)ids[i] * g->cat_words, g->cat_batch + (size_t)i * g->cat_words,
                   g->cat_words * sizeof *g->node_cats);
    }
    return GBT_OK;
}

static int splittable(const struct gnode *nd)
{
    return nd->split.feature >= 0 && nd->split.gain > GBT_MIN_SPLIT_GAIN;
}

/* Creates the children of the listed nodes and partitions their rows. */
static gbt_status split_nodes(struct grower *g, const int32_t *ids, int n)
{
    FORWARD_IF_ERROR(gbt__reserve(&g->pjobs, &g->pjobs_cap, (size_t)n, sizeof *g->pjobs, "partition jobs"));
    for (int i = 0; i < n; i++) {
        struct gnode *nd = &g->nodes[ids[i]];
        int32_t l, r;
        FORWARD_IF_ERROR(new_node(g, nd->depth + 1, nd->split.left, &l));
        FORWARD_IF_ERROR(new_node(g, nd->depth + 1, nd->split.right, &r));
        nd = &g->nodes[ids[i]];
        nd->left = l;
        nd->right = r;
        g->pjobs[i].node = ids[i];
        g->pjobs[i].left = l;
        g->pjobs[i].right = r;
        g->pjobs[i].feature = nd->split.feature;
        g->pjobs[i].bin = nd->split.bin;
        g->pjobs[i].default_left = nd->split.default_left;
        g->pjobs[i].is_cat = nd->split.is_cat;
        g->pjobs[i].cat_set = nd->split.is_cat ? g->node_cats + (size_t)ids[i] * g->cat_words : NULL;
    }
    return g->ops->partition(g->ctx, g->pjobs, n);
}

/*
 * Histograms of the children of the listed (split) nodes: the lighter child
 * is built into a new slot, the heavier one takes the parent's slot.
 */
static gbt_status child_histograms(struct grower *g, const int32_t *ids, int n)
{
    int nj = 0;
    FORWARD_IF_ERROR(gbt__reserve(&g->hjobs, &g->hjobs_cap, (size_t)2 * n, sizeof *g->hjobs, "histogram jobs"));
    for (int i = 0; i < n; i++) {
        struct gnode *p = &g->nodes[ids[i]];
        int32_t small = p->left, big = p->right, slot = -1;
        if (g->nodes[p->right].sum.h < g->nodes[p->left].sum.h) {
            small = p->right;
            big = p->left;
        }
        FORWARD_IF_ERROR(alloc_slot(g, &slot));
        g->nodes[small].slot = slot;
        g->nodes[big].slot = p->slot;
        p->slot = -1;
        g->hjobs[nj++] = (struct gbt_hist_job){GBT_HIST_BUILD, small, slot, -1};
        g->hjobs[nj++] = (struct gbt_hist_job){GBT_HIST_SUBTRACT, big, g->nodes[big].slot, slot};
    }
    return g->ops->histograms(g->ctx, g->hjobs, nj);
}

static gbt_status root(struct grower *g, const struct gbt_class_sums *sums)
{
    int32_t id = 0, slot = -1;
    struct gbt_hist_job job;
    FORWARD_IF_ERROR(new_node(g, 0, sums->total, &id));
    FORWARD_IF_ERROR(alloc_slot(g, &slot));
    g->nodes[id].slot = slot;
    job = (struct gbt_hist_job){GBT_HIST_BUILD, id, slot, -1};
    return g->ops->histograms(g->ctx, &job, 1);
}

static int depth_allows_split(const struct gbt_grow_config *cfg, int depth)
{
    return cfg->max_depth == 0 || depth < cfg->max_depth;
}

static gbt_status grow_depthwise(struct grower *g, int32_t **level_p, size_t *level_cap,
                                 int32_t **next_p, size_t *next_cap)
{
    const struct gbt_grow_config *cfg = g->cfg;
    int32_t *level = *level_p, *next = *next_p;
    int nlevel = 1, nleaves = 1;
    level[0] = 0;
    for (int depth = 0; nlevel > 0 && depth_allows_split(cfg, depth); depth++) {
        int nsplit = 0, nnext = 0;
        FORWARD_IF_ERROR(evaluate(g, level, nlevel));
        for (int i = 0; i < nlevel; i++) {
            if (splittable(&g->nodes[level[i]]) && (cfg->max_leaves == 0 || nleaves < cfg->max_leaves)) {
                level[nsplit++] = level[i];
                nleaves++;
            } else {
                release_slot(g, level[i]);
            }
        }
        if (nsplit == 0) break;
        FORWARD_IF_ERROR(gbt__reserve(next_p, next_cap, (size_t)2 * nsplit, sizeof *next, "node lists"));
        next = *next_p;
        FORWARD_IF_ERROR(split_nodes(g, level, nsplit));
        if (depth_allows_split(cfg, depth + 1)) {
            FORWARD_IF_ERROR(child_histograms(g, level, nsplit));
        } else {
            for (int i = 0; i < nsplit; i++) release_slot(g, level[i]);
        }
        for (int i = 0; i < nsplit; i++) {
            next[nnext++] = g->nodes[level[i]].left;
            next[nnext++] = g->nodes[level[i]].right;
        }
        {
            int32_t *t = *level_p;
            size_t tc = *level_cap;
            *level_p = *next_p;
            *level_cap = *next_cap;
            *next_p = t;
            *next_cap = tc;
            level = *level_p;
            next = *next_p;
        }
        nlevel = depth_allows_split(cfg, depth + 1) ? nnext : 0;
    }
    for (int i = 0; i < nlevel; i++) release_slot(g, level[i]);
    return GBT_OK;
}

static gbt_status grow_lossguide(struct grower *g, int32_t **cand_p, size_t *cand_cap)
{
    int32_t *cand = *cand_p;
    const struct gbt_grow_config *cfg = g->cfg;
    int ncand = 0, nleaves = 1;
    int32_t zero = 0;
    if (depth_allows_split(cfg, 0)) {
        FORWARD_IF_ERROR(evaluate(g, &zero, 1));
        if (splittable(&g->nodes[0])) cand[ncand++] = 0;
    }
    while (ncand > 0 && (cfg->max_leaves == 0 || nleaves < cfg->max_leaves)) {
        int best = 0;
        int32_t id, kids[2];
        for (int i = 1; i < ncand; i++) {
            const struct gbt_split *a = &g->nodes[cand[i]].split, *b = &g->nodes[cand[best]].split;
            if (a->gain > b->gain || (a->gain == b->gain && cand[i] < cand[best])) best = i;
        }
        id = cand[best];
        cand[best] = cand[--ncand];
        FORWARD_IF_ERROR(split_nodes(g, &id, 1));
        nleaves++;
        kids[0] = g->nodes[id].left;
        kids[1] = g->nodes[id].right;
        if (!depth_allows_split(cfg, g->nodes[id].depth + 1)) {
            release_slot(g, id);
            continue;
        }
        FORWARD_IF_ERROR(child_histograms(g, &id, 1));
        FORWARD_IF_ERROR(evaluate(g, kids, 2));
        FORWARD_IF_ERROR(gbt__reserve(cand_p, cand_cap, (size_t)ncand + 2, sizeof *cand, "candidates"));
        cand = *cand_p;
        for (int k = 0; k < 2; k++) {
            if (splittable(&g->nodes[kids[k]]))
                cand[ncand++] = kids[k];
            else
                release_slot(g, kids[k]);
        }
    }
    for (int i = 0; i < ncand; i++) release_slot(g, cand[i]);
    release_slot(g, 0);
    return GBT_OK;
}

/* XGBoost's pruning: collapse splits below gamma whose children are leaves, bottom up. */
static void prune(struct grower *g)
{
    for (int32_t i = g->n_nodes - 1; i >= 0; i--) {
        struct gnode *nd = &g->nodes[i];
        if (nd->left < 0) continue;
        if (g->nodes[nd->left].left < 0 && g->nodes[nd->right].left < 0 &&
            nd->split.gain < g->cfg->gamma)
            nd->left = nd->right = -1;
    }
}

/* v as a float, saturated at +-FLT_MAX: gain and cover only describe the model. */
static float saturate(double v)
{
    return v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : (float)v;
}

/* Tree node id holds grower node i's categorical split: the categories of its set of bins. */
static gbt_status cat_node(const struct grower *g, int32_t i, int32_t id, struct gbt_tree *out)
{
    const struct gbt_cuts *c = g->cfg->cuts;
    const int32_t f = g->nodes[i].split.feature;
    const uint32_t *bits = g->node_cats + (size_t)i * g->cat_words;
    uint32_t *cats = NULL, n = 0;
    gbt_status s = gbt__alloc(&cats, c->nbins[f] + 1, sizeof *cats, 0, "split categories");
    if (s != GBT_OK) return s;
    for (uint32_t b = 0; b < c->nbins[f]; b++)
        if (gbt_cat_bit(bits, b)) cats[n++] = c->category[c->offset[f] + b];
    s = gbt__tree_set_cats(out, id, cats, n);
    free(cats);
    return s;
}

/*
 * Writes the reachable nodes, in id order, into the tree; sends leaf values
 * to the backend.  refit (NULL: none) holds, per node id, the quantile that
 * replaces the leaf's weight, NaN to keep the weight.
 */
static gbt_status emit(struct grower *g, const double *refit, struct gbt_tree *out)
{
    const struct gbt_grow_config *cfg = g->cfg;
    const struct gbt_cuts *c = cfg->cuts;
    int32_t *newid = NULL, k = 0;
    struct gbt_leaf *leaves = NULL;
    int nleaves = 0;
    gbt_status s;
    s = gbt__alloc(&newid, (size_t)g->n_nodes, sizeof *newid, 0, "tree ids");
    if (s == GBT_OK) s = gbt__alloc(&leaves, (size_t)g->n_nodes, sizeof *leaves, 0, "leaves");
    if (s == GBT_OK) s = gbt__tree_init(out, g->n_nodes);
    if (s != GBT_OK) {
        free(newid);
        free(leaves);
        return s;
    }
    /* children come after their parents: one pass marks the reachable nodes */
    for (int32_t i = 0; i < g->n_nodes; i++) newid[i] = i == 0 ? 0 : -1;
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (newid[i] >= 0 && g->nodes[i].left >= 0) newid[g->nodes[i].left] = newid[g->nodes[i].right] = 0;
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (newid[i] >= 0) newid[i] = k++;
    for (int32_t i = 0; i < g->n_nodes && s == GBT_OK; i++) {
        const struct gnode *nd = &g->nodes[i];
        const double v = cfg->eta * (refit && nd->left < 0 && !isnan(refit[i])
                                         ? refit[i]
                                         : gbt_node_weight(nd->sum, &g->sp));
        float value;
        int32_t id;
        if (newid[i] < 0) continue;
        /* a value beyond float would make the margins infinite (docs/decisions.md) */
        if (!(fabs(v) <= FLT_MAX)) {
            s = gbt__fail(GBT_E_PARAM,
                          "a leaf value of %g overflows: the margins diverge; lower eta (%g) or "
                          "base_score, or scale the labels",
                          v, cfg->eta);
            break;
        }
        value = (float)v;
        s = gbt__tree_add(out, value, saturate((double)nd->sum.h * g->sp.h_unit), &id);
        if (s != GBT_OK) break;
        if (nd->left >= 0) {
            const int32_t f = nd->split.feature;
            out->feature[id] = f;
            out->gain[id] = saturate(nd->split.gain);
            if (nd->split.is_cat) {
                /* the set's categories go right (common/cat_math.h) */
                out->left[id] = newid[nd->left];
                out->right[id] = newid[nd->right];
                out->default_left[id] = (uint8_t)nd->split.default_left;
                s = cat_node(g, i, id, out);
            } else if ((uint32_t)nd->split.bin + 1 < c->nbins[f]) {
                out->left[id] = newid[nd->left];
                out->right[id] = newid[nd->right];
                out->threshold[id] = c->cut[c->offset[f] + (uint32_t)nd->split.bin];
                out->default_left[id] = (uint8_t)nd->split.default_left;
            } else {
                /*
                 * After the last bin every present value goes left, FLT_MAX
                 * included, and no float threshold is above FLT_MAX: the
                 * node is stored mirrored, every present value >= -FLT_MAX
                 * going right (docs/decisions.md).
                 */
                out->left[id] = newid[nd->right];
                out->right[id] = newid[nd->left];
                out->threshold[id] = -FLT_MAX;
                out->default_left[id] = (uint8_t)!nd->split.default_left;
            }
        } else {
            leaves[nleaves].node = i;
            leaves[nleaves].reserved = 0;
            leaves[nleaves].value = (double)value;
            nleaves++;
        }
    }
    if (s == GBT_OK) s = g->ops->finish_tree(g->ctx, leaves, nleaves);
    if (s != GBT_OK) gbt__tree_free(out);
    free(newid);
    free(leaves);
    return s;
}

/*
 * The refitted values of the reachable leaves, by node id (NaN elsewhere),
 * in *out (NULL when the configuration refits nothing).
 */
static gbt_status refit_leaves(struct grower *g, int cls, double **out)
{
    const struct gbt_grow_config *cfg = g->cfg;
    int32_t *leaves = NULL, n = 0;
    uint8_t *reach = NULL;
    double *q = NULL, *values = NULL;
    gbt_status s;
    *out = NULL;
    if (cfg->refit == NULL) return GBT_OK;
    s = gbt__alloc(&reach, (size_t)g->n_nodes, 1, 1, "leaf refit");
    if (s == GBT_OK) s = gbt__alloc(&leaves, (size_t)g->n_nodes, sizeof *leaves, 0, "leaf refit");
    if (s == GBT_OK) s = gbt__alloc(&q, (size_t)g->n_nodes, sizeof *q, 0, "leaf refit");
    if (s == GBT_OK) s = gbt__alloc(&values, (size_t)g->n_nodes, sizeof *values, 0, "leaf refit");
    if (s == GBT_OK) {
        reach[0] = 1;
        for (int32_t i = 0; i < g->n_nodes; i++) {
            values[i] = NAN;
            if (!reach[i]) continue;
            if (g->nodes[i].left >= 0)
                reach[g->nodes[i].left] = reach[g->nodes[i].right] = 1;
            else
                leaves[n++] = i;
        }
        const struct gbt_leaf_source src = {g->ops->read_rows, g->ops->read_margins, g->ctx};
        s = gbt__leaf_quantiles(&src, cfg->refit, cls, cfg->max_nodes, leaves, n, q);
    }
    if (s == GBT_OK) {
        for (int32_t j = 0; j < n; j++) values[leaves[j]] = q[j];
        *out = values;
    } else {
        free(values);
    }
    free(reach);
    free(leaves);
    free(q);
    return s;
}

static void grower_free(struct grower *g)
{
    free(g->nodes);
    free(g->free_slots);
    free(g->tree_mask);
    free(g->level_mask);
    free(g->masks);
    free(g->sjobs);
    free(g->splits);
    free(g->hjobs);
    free(g->pjobs);
    free(g->draws);
    free(g->cat_batch);
    free(g->node_cats);
}

gbt_status gbt__grow_tree(const struct gbt_backend_ops *ops, void *ctx,
                          const struct gbt_grow_config *cfg, int cls,
                          const struct gbt_class_sums *sums, struct gbt_tree *out)
{
    struct grower g;
    int32_t *a = NULL, *b = NULL;
    size_t acap = 0, bcap = 0;
    gbt_status s;
    memset(&g, 0, sizeof g);
    g.ops = ops;
    g.ctx = ctx;
    g.cfg = cfg;
    g.sp = cfg->sp;
    gbt_split_params_scale(&g.sp, sums->g_exp, sums->h_exp);
    g.nfeat = cfg->cuts->nfeat;
    g.cat_words = gbt__cuts_cat_words(cfg->cuts);
    g.level_depth = -1;
    g.sampling = cfg->colsample_bytree < 1.0 || cfg->colsample_bylevel < 1.0 ||
                 cfg->colsample_bynode < 1.0;
    s = gbt__alloc(&g.free_slots, cfg->max_slots, sizeof *g.free_slots, 0, "slots");
    if (s == GBT_OK) s = gbt__reserve(&a, &acap, 16, sizeof *a, "node lists");
    if (s == GBT_OK) s = gbt__reserve(&b, &bcap, 16, sizeof *b, "node lists");
    if (s == GBT_OK && g.sampling) {
        s = gbt__alloc(&g.tree_mask, g.nfeat + 1, 1, 0, "feature masks");
        if (s == GBT_OK) s = gbt__alloc(&g.level_mask, g.nfeat + 1, 1, 0, "feature masks");
        if (s == GBT_OK) s = gbt__alloc(&g.draws, g.nfeat + 1, sizeof *g.draws, 0, "feature draws");
        if (s == GBT_OK)
            sample_features(&g, cfg->usable, g.tree_mask, cfg->colsample_bytree,
                            GBT_RNG_TREE_COLS, cfg->tree_index);
    }
    if (s == GBT_OK) {
        for (uint32_t i = 0; i < cfg->max_slots; i++)
            g.free_slots[i] = (int32_t)(cfg->max_slots - 1 - i);
        g.nfree = (int32_t)cfg->max_slots;
        s = ops->begin_tree(ctx, cls);
    }
    if (s == GBT_OK) s = root(&g, sums);
    if (s == GBT_OK)
        s = cfg->policy == GBT_GROW_LOSSGUIDE ? grow_lossguide(&g, &a, &acap)
                                              : grow_depthwise(&g, &a, &acap, &b, &bcap);
    if (s == GBT_OK) {
        double *refit = NULL;
        prune(&g);
        s = refit_leaves(&g, cls, &refit);
        if (s == GBT_OK) s = emit(&g, refit, out);
        free(refit);
    }
    free(a);
    free(b);
    grower_free(&g);
    return s;
}
