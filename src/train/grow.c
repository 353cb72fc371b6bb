/*
 * grow.c - growing one tree: the same algorithm for every backend.
 *
 * depthwise: all nodes of a level are evaluated in one batch; those whose
 *   best split gains more than GBT_MIN_SPLIT_GAIN split (in node order
 *   while max_leaves allows), their rows are partitioned in one batch, and
 *   the next level's histograms are built in one batch: the child with the
 *   smaller hessian sum is built from its rows, its sibling is the parent's
 *   histogram minus it (exact: the sums are integers).
 * lossguide: the leaf of highest gain (lowest node id on ties), taken from
 *   a binary heap, splits next; its two children form the batch.
 * Histograms live in a pool of cfg->max_slots slots (histogram_pool_size).
 * A node keeps its histogram after its split is found, so that its
 * children can be had by one build and one subtraction.  When the pool is
 * full, a node's histogram is dropped (depthwise: the newest first, which
 * keeps the next parents of the level; lossguide: the oldest first, as
 * LightGBM's pool) and the children of a node without one are both built
 * from their rows.  The sums are exact integers, so a rebuilt histogram
 * equals the subtracted one bit for bit and the pool size never changes
 * the model.  Batches hold at most max_slots nodes (max_slots / 2 parents
 * for the children's histograms).
 * Then, as in XGBoost, splits whose gain is below gamma are pruned from the
 * bottom up, and every leaf gets eta * weight(G, H), or, for the objectives
 * that refit leaves, eta * the quantile of its rows' residuals
 * (leaf_refit.h; a leaf without rows keeps eta * weight(G, H)).
 *
 * Sampling of features: colsample_bytree picks round(rate * n) of the
 * usable features (at least one) by the smallest counter-based draws keyed
 * by (seed, tree); colsample_bylevel picks from those per depth, and
 * colsample_bynode per node.  With feature weights (constraints.h) the
 * draws are weighted, without replacement, as XGBoost draws them: each
 * feature's key is log(u) / max(w, 1e-6), u the draw in (0, 1), and the
 * largest keys are taken.
 *
 * Constraints: interaction constraints mask, per node, the features its
 * path does not allow (gbt__interaction_allowed); monotone constraints give
 * each node bounds on its weight (common/constraint_math.h), which the
 * split search and the leaf values keep.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cat_math.h"
#include "common/constraint_math.h"
#include "common/rng.h"
#include "train/grow.h"
#include "objective/leaf_refit.h"
#include "params/params.h"
#include "util/util.h"

struct gnode {
    int32_t depth, slot; /* slot: its histogram's, or -1 */
    int32_t left, right; /* -1 for leaves */
    int32_t parent;      /* -1 for the root */
    double lower, upper; /* bounds of the weight (monotone constraints) */
    int32_t pinned;      /* 1 while a batch uses its slot: never dropped then */
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
    /* the nodes that took a slot, in that order (entries of nodes without one are stale) */
    int32_t *held;
    size_t held_cap, held_head, nheld;
    struct gbt_grow_stats stats;
    int32_t *heap; /* lossguide: the candidate leaves, best first */
    size_t heap_cap, nheap;
    int sampling;        /* any colsample rate below 1 */
    int masked;          /* sampling or interaction constraints: best_splits gets masks */
    uint8_t *used, *allowed; /* nfeat each: interaction constraints of one node */
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
    struct sample { uint64_t draw; double key; uint32_t f; } *draws;
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

/* Weighted draws: the largest key first, then the lower feature. */
static int cmp_key(const void *a, const void *b)
{
    const struct sample *x = a, *y = b;
    if (x->key != y->key) return x->key > y->key ? -1 : 1;
    return (x->f > y->f) - (x->f < y->f);
}

uint32_t gbt__hist_pool_slots(double pool_mb, uint32_t total_bins)
{
    double n;
    if (!(pool_mb > 0)) return UINT32_MAX;
    n = floor(pool_mb * 1048576.0 / (16.0 * (total_bins ? total_bins : 1)));
    if (n < 2) return 2;
    return n >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)n;
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
        if (g->cfg->cons && g->cfg->cons->weights) {
            const double w = g->cfg->cons->weights[f], u = gbt_unit(g->draws[m].draw) + 0x1p-54;
            g->draws[m].key = log(u) / (w > 1e-6 ? w : 1e-6);
        }
        m++;
    }
    if (m == 0) return;
    k = (uint32_t)floor(rate * (double)m + 0.5);
    if (k < 1) k = 1;
    qsort(g->draws, m, sizeof *g->draws, g->cfg->cons && g->cfg->cons->weights ? cmp_key : cmp_sample);
    for (uint32_t i = 0; i < k; i++) out[g->draws[i].f] = 1;
}

static void release_slot(struct grower *g, int32_t node)
{
    if (g->nodes[node].slot >= 0) g->free_slots[g->nfree++] = g->nodes[node].slot;
    g->nodes[node].slot = -1;
}

static int droppable(const struct grower *g, int32_t node)
{
    return g->nodes[node].slot >= 0 && !g->nodes[node].pinned;
}

/*
 * Frees a slot by dropping a histogram that no batch is using: the newest
 * (depthwise) or the oldest (lossguide) of the held ones.
 */
static gbt_status drop_one(struct grower *g)
{
    if (g->cfg->policy == GBT_GROW_LOSSGUIDE) {
        while (g->held_head < g->nheld && g->nodes[g->held[g->held_head]].slot < 0) g->held_head++;
        for (size_t i = g->held_head; i < g->nheld; i++)
            if (droppable(g, g->held[i])) {
                release_slot(g, g->held[i]);
                g->stats.dropped++;
                return GBT_OK;
            }
    } else {
        while (g->nheld > g->held_head && g->nodes[g->held[g->nheld - 1]].slot < 0) g->nheld--;
        for (size_t i = g->nheld; i-- > g->held_head;)
            if (droppable(g, g->held[i])) {
                release_slot(g, g->held[i]);
                g->stats.dropped++;
                return GBT_OK;
            }
    }
    return gbt__fail(GBT_E_INTERNAL, "the histogram pool of %u slots is too small for a batch",
                     g->cfg->max_slots);
}

/* Gives node a slot (taking one from another node when the pool is full), pinned. */
static gbt_status take_slot(struct grower *g, int32_t node)
{
    if (g->nfree == 0) FORWARD_IF_ERROR(drop_one(g));
    FORWARD_IF_ERROR(gbt__reserve(&g->held, &g->held_cap, g->nheld + 1, sizeof *g->held, "histogram pool"));
    g->nodes[node].slot = g->free_slots[--g->nfree];
    g->nodes[node].pinned = 1;
    g->held[g->nheld++] = node;
    return GBT_OK;
}

/* node takes over the slot of `from` (pinned). */
static gbt_status inherit_slot(struct grower *g, int32_t node, int32_t from)
{
    FORWARD_IF_ERROR(gbt__reserve(&g->held, &g->held_cap, g->nheld + 1, sizeof *g->held, "histogram pool"));
    g->nodes[node].slot = g->nodes[from].slot;
    g->nodes[node].pinned = 1;
    g->nodes[from].slot = -1;
    g->held[g->nheld++] = node;
    return GBT_OK;
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
    g->nodes[*id].pinned = 0;
    g->nodes[*id].left = g->nodes[*id].right = -1;
    g->nodes[*id].parent = -1;
    g->nodes[*id].lower = -(double)INFINITY;
    g->nodes[*id].upper = (double)INFINITY;
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
    if (g->masked)
        FORWARD_IF_ERROR(gbt__reserve(&g->masks, &g->masks_cap, (size_t)n * g->nfeat, 1, "feature masks"));
    for (int i = 0; i < n; i++) {
        const struct gnode *nd = &g->nodes[ids[i]];
        uint8_t *mask = g->masked ? g->masks + (size_t)i * g->nfeat : NULL;
        g->sjobs[i].node = ids[i];
        g->sjobs[i].slot = nd->slot;
        g->sjobs[i].total = nd->sum;
        g->sjobs[i].lower = nd->lower;
        g->sjobs[i].upper = nd->upper;
        if (g->masked && !g->sampling) memcpy(mask, cfg->usable, g->nfeat);
        if (g->sampling) {
            if (nd->depth != g->level_depth) {
                sample_features(g, g->tree_mask, g->level_mask, cfg->colsample_bylevel,
                                GBT_RNG_LEVEL_COLS, cfg->tree_index * 64 + (uint64_t)nd->depth);
                g->level_depth = nd->depth;
            }
            sample_features(g, g->level_mask, mask, cfg->colsample_bynode, GBT_RNG_NODE_COLS,
                            (cfg->tree_index << 32) | (uint64_t)ids[i]);
        }
        if (cfg->cons && cfg->cons->sets) {
            memset(g->used, 0, g->nfeat);
            for (int32_t a = nd->parent; a >= 0; a = g->nodes[a].parent) g->used[g->nodes[a].split.feature] = 1;
            gbt__interaction_allowed(cfg->cons, g->used, g->allowed);
            for (uint32_t f = 0; f < g->nfeat; f++) mask[f] &= g->allowed[f];
        }
    }
    if (g->cat_words) {
        FORWARD_IF_ERROR(gbt__reserve(&g->cat_batch, &g->cat_batch_cap, (size_t)n * g->cat_words,
                                      sizeof *g->cat_batch, "category sets"));
        FORWARD_IF_ERROR(gbt__reserve(&g->node_cats, &g->node_cats_cap, (size_t)g->n_nodes * g->cat_words,
                                      sizeof *g->node_cats, "category sets"));
    }
    FORWARD_IF_ERROR(g->ops->best_splits(g->ctx, g->sjobs, n, g->masked ? g->masks : NULL,
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
        g->nodes[l].parent = g->nodes[r].parent = ids[i];
        g->nodes[l].lower = g->nodes[r].lower = nd->lower;
        g->nodes[l].upper = g->nodes[r].upper = nd->upper;
        if (g->sp.monotone) {
            double b[4];
            const int32_t f = nd->split.feature;
            gbt_child_bounds(nd->split.left, nd->split.right, &g->sp, nd->lower, nd->upper,
                             gbt_candidate_constraint(g->cfg->cons->monotone[f], nd->split.bin,
                                                      nd->split.default_left, (int)g->cfg->cuts->nbins[f]),
                             b);
            g->nodes[l].lower = b[0];
            g->nodes[l].upper = b[1];
            g->nodes[r].lower = b[2];
            g->nodes[r].upper = b[3];
        }
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
 * Histograms of the children of the listed (split) nodes, at most half the
 * pool's slots of them: the lighter child is built into a new slot and the
 * heavier one takes the parent's slot, the parent's histogram minus the
 * lighter one; a parent whose histogram was dropped has both built.
 */
static gbt_status child_histograms(struct grower *g, const int32_t *ids, int n)
{
    int nj = 0;
    gbt_status s = GBT_OK;
    int need = 0;
    FORWARD_IF_ERROR(gbt__reserve(&g->hjobs, &g->hjobs_cap, (size_t)2 * n, sizeof *g->hjobs, "histogram jobs"));
    for (int i = 0; i < n; i++) {
        g->nodes[ids[i]].pinned = 1;
        need += g->nodes[ids[i]].slot >= 0 ? 1 : 2;
    }
    /* the slots first, so that no drop has to look past this batch's children */
    while (g->nfree < need && s == GBT_OK) s = drop_one(g);
    for (int i = 0; i < n && s == GBT_OK; i++) {
        const struct gnode *p = &g->nodes[ids[i]];
        const int32_t id = ids[i];
        int32_t small = p->left, big = p->right;
        if (g->nodes[p->right].sum.h < g->nodes[p->left].sum.h) {
            small = p->right;
            big = p->left;
        }
        s = take_slot(g, small);
        if (s != GBT_OK) break;
        g->hjobs[nj++] = (struct gbt_hist_job){GBT_HIST_BUILD, small, g->nodes[small].slot, -1};
        if (g->nodes[id].slot >= 0) {
            s = inherit_slot(g, big, id);
            g->hjobs[nj++] = (struct gbt_hist_job){GBT_HIST_SUBTRACT, big, g->nodes[big].slot,
                                                   g->nodes[small].slot};
            g->stats.subtracted++;
        } else {
            s = take_slot(g, big);
            g->hjobs[nj++] = (struct gbt_hist_job){GBT_HIST_BUILD, big, g->nodes[big].slot, -1};
            g->stats.rebuilt++;
            g->stats.built++;
        }
        g->stats.built++;
    }
    if (s == GBT_OK) s = g->ops->histograms(g->ctx, g->hjobs, nj);
    for (int i = 0; i < n; i++) {
        g->nodes[ids[i]].pinned = 0;
        if (g->nodes[ids[i]].left >= 0)
            g->nodes[g->nodes[ids[i]].left].pinned = g->nodes[g->nodes[ids[i]].right].pinned = 0;
    }
    return s;
}

static gbt_status root(struct grower *g, const struct gbt_class_sums *sums)
{
    int32_t id = 0;
    struct gbt_hist_job job;
    FORWARD_IF_ERROR(new_node(g, 0, sums->total, &id));
    FORWARD_IF_ERROR(take_slot(g, id));
    g->nodes[id].pinned = 0;
    g->stats.built++;
    job = (struct gbt_hist_job){GBT_HIST_BUILD, id, g->nodes[id].slot, -1};
    return g->ops->histograms(g->ctx, &job, 1);
}

static int depth_allows_split(const struct gbt_grow_config *cfg, int depth)
{
    return cfg->max_depth == 0 || depth < cfg->max_depth;
}

/* Partitions the rows of the listed nodes, in batches of at most max_slots. */
static gbt_status split_all(struct grower *g, const int32_t *ids, int n)
{
    const int cap = (int)g->cfg->max_slots;
    for (int k = 0; k < n; k += cap) FORWARD_IF_ERROR(split_nodes(g, ids + k, n - k < cap ? n - k : cap));
    return GBT_OK;
}

static gbt_status grow_depthwise(struct grower *g, int32_t **level_p, size_t *level_cap,
                                 int32_t **next_p, size_t *next_cap)
{
    const struct gbt_grow_config *cfg = g->cfg;
    const int half = cfg->max_slots > 1 ? (int)(cfg->max_slots / 2) : 1;
    int32_t *level = *level_p, *next = *next_p;
    int nlevel = 1, nleaves = 1;
    level[0] = 0;
    FORWARD_IF_ERROR(evaluate(g, level, 1));
    for (int depth = 0; nlevel > 0 && depth_allows_split(cfg, depth); depth++) {
        int nsplit = 0, nnext = 0;
        /* the level's nodes hold their best splits (and histograms, unless dropped) */
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
        FORWARD_IF_ERROR(split_all(g, level, nsplit));
        for (int i = 0; i < nsplit; i++) {
            next[nnext++] = g->nodes[level[i]].left;
            next[nnext++] = g->nodes[level[i]].right;
        }
        if (depth_allows_split(cfg, depth + 1)) {
            for (int k = 0; k < nsplit; k += half) {
                const int c = nsplit - k < half ? nsplit - k : half;
                FORWARD_IF_ERROR(child_histograms(g, level + k, c));
                FORWARD_IF_ERROR(evaluate(g, next + 2 * k, 2 * c));
            }
        } else {
            for (int i = 0; i < nsplit; i++) release_slot(g, level[i]);
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

/* Lossguide's order: higher gain first, then the lower node id. */
static int before(const struct grower *g, int32_t a, int32_t b)
{
    const double ga = g->nodes[a].split.gain, gb = g->nodes[b].split.gain;
    return ga > gb || (ga == gb && a < b);
}

static gbt_status heap_push(struct grower *g, int32_t id)
{
    size_t i;
    FORWARD_IF_ERROR(gbt__reserve(&g->heap, &g->heap_cap, g->nheap + 1, sizeof *g->heap, "candidates"));
    i = g->nheap++;
    while (i > 0 && before(g, id, g->heap[(i - 1) / 2])) {
        g->heap[i] = g->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    g->heap[i] = id;
    return GBT_OK;
}

static int32_t heap_pop(struct grower *g)
{
    const int32_t top = g->heap[0], last = g->heap[--g->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= g->nheap) break;
        if (c + 1 < g->nheap && before(g, g->heap[c + 1], g->heap[c])) c++;
        if (!before(g, g->heap[c], last)) break;
        g->heap[i] = g->heap[c];
        i = c;
    }
    if (g->nheap > 0) g->heap[i] = last;
    return top;
}

static gbt_status grow_lossguide(struct grower *g)
{
    const struct gbt_grow_config *cfg = g->cfg;
    int nleaves = 1;
    int32_t zero = 0;
    if (depth_allows_split(cfg, 0)) {
        FORWARD_IF_ERROR(evaluate(g, &zero, 1));
        if (splittable(&g->nodes[0])) FORWARD_IF_ERROR(heap_push(g, 0));
    }
    while (g->nheap > 0 && (cfg->max_leaves == 0 || nleaves < cfg->max_leaves)) {
        const int32_t id = heap_pop(g);
        int32_t kids[2];
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
        for (int k = 0; k < 2; k++) {
            if (splittable(&g->nodes[kids[k]]))
                FORWARD_IF_ERROR(heap_push(g, kids[k]));
            else
                release_slot(g, kids[k]);
        }
    }
    for (size_t i = 0; i < g->nheap; i++) release_slot(g, g->heap[i]);
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
 * A node's value before eta: its refitted value q (NaN: none) or its
 * weight; with monotone constraints, clamped to its bounds.
 */
static double leaf_weight(const struct grower *g, const struct gnode *nd, double q)
{
    double w;
    if (!g->sp.monotone) return nd->left < 0 && !isnan(q) ? q : gbt_node_weight(nd->sum, &g->sp);
    w = nd->left < 0 && !isnan(q) ? q : gbt_bounded_node_weight(nd->sum, &g->sp, nd->lower, nd->upper);
    return w < nd->lower ? nd->lower : w > nd->upper ? nd->upper : w;
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
        /* a leaf holds eta times its weight, an inner node its weight (XGBoost's base_weight, which its
           pruner turns into a leaf of eta times it: prune.c) */
        const double w = leaf_weight(g, nd, refit ? refit[i] : NAN), v = nd->left < 0 ? cfg->eta * w : w;
        float value;
        int32_t id;
        if (newid[i] < 0) continue;
        /* a value beyond float would make the margins infinite (docs/decisions.md) */
        if (nd->left < 0 && !(fabs(v) <= FLT_MAX)) {
            s = gbt__fail(GBT_E_PARAM,
                          "a leaf value of %g overflows: the margins diverge; lower eta (%g) or "
                          "base_score, or scale the labels",
                          v, cfg->eta);
            break;
        }
        value = nd->left < 0 ? (float)v : saturate(v);
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
    free(g->used);
    free(g->allowed);
    free(g->held);
    free(g->heap);
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
    g.sp.rows_per_h = sums->total.h > 0 ? cfg->rows / ((double)sums->total.h * g.sp.h_unit) : 0.0;
    g.nfeat = cfg->cuts->nfeat;
    g.cat_words = gbt__cuts_cat_words(cfg->cuts);
    g.level_depth = -1;
    g.sampling = cfg->colsample_bytree < 1.0 || cfg->colsample_bylevel < 1.0 ||
                 cfg->colsample_bynode < 1.0;
    g.masked = g.sampling || (cfg->cons && cfg->cons->sets);
    s = gbt__alloc(&g.free_slots, cfg->max_slots, sizeof *g.free_slots, 0, "slots");
    if (s == GBT_OK) s = gbt__reserve(&a, &acap, 16, sizeof *a, "node lists");
    if (s == GBT_OK) s = gbt__reserve(&b, &bcap, 16, sizeof *b, "node lists");
    if (s == GBT_OK && cfg->cons && cfg->cons->sets) {
        s = gbt__alloc(&g.used, g.nfeat + 1, 1, 0, "interaction constraints");
        if (s == GBT_OK) s = gbt__alloc(&g.allowed, g.nfeat + 1, 1, 0, "interaction constraints");
    }
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
        s = cfg->policy == GBT_GROW_LOSSGUIDE ? grow_lossguide(&g)
                                              : grow_depthwise(&g, &a, &acap, &b, &bcap);
    if (cfg->stats) {
        cfg->stats->built += g.stats.built;
        cfg->stats->subtracted += g.stats.subtracted;
        cfg->stats->rebuilt += g.stats.rebuilt;
        cfg->stats->dropped += g.stats.dropped;
    }
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
