/*
 * predict.c - tree traversal for prediction and for validation margins.
 *
 * Rows go in blocks of up to 64.  A block first turns its values into keys
 * (predict.h), then walks each tree laid out complete eight rows at a time,
 * in registers, so eight independent chains of loads overlap.  Deeper trees,
 * and calls whose keys would cost more than the walk they serve, walk the
 * nodes one level at a time for the whole block.  Raw scores are summed in
 * double, tree by tree in model order, the same order training uses, so a
 * prediction equals the training margin bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "objective/objective.h"
#include "model/predict.h"
#include "util/sort.h"
#include "util/util.h"

#define MAX_BLOCK GBT_KEY_STRIDE
#define ACC_DOUBLES 4096 /* accumulator per block: MAX_BLOCK rows or fewer for many classes */

void gbt__forest_free(struct gbt_forest *f)
{
    free(f->nodes);
    free(f->offset);
    free(f->depth);
    free(f->full);
    free(f->leaf);
    free(f->full_off);
    free(f->full_ok);
    free(f->cat_bits);
    memset(f, 0, sizeof *f);
}

void gbt__forest_truncate(struct gbt_forest *f, uint32_t ntrees)
{
    if (ntrees >= f->ntrees) return;
    /* the dropped trees' categorical sets are the last ones: cat_bits ends at the first of them */
    for (size_t i = f->offset[ntrees]; i < f->nodes_len; i++)
        if (f->nodes[i].feature & GBT_PNODE_CAT) { /* leaves never have the bit */
            uint32_t at;
            memcpy(&at, &f->nodes[i].value, sizeof at);
            if (at < f->cat_len) f->cat_len = at;
        }
    f->nodes_len = f->offset[ntrees];
    f->full_len = f->full_off[ntrees];
    f->ntrees = ntrees;
}

#define KEY_MISSING 0xffffffffu

/* gbt__float_key with -0 as +0 (they compare equal); NaN: KEY_MISSING. */
static inline uint32_t order_key(float x)
{
    return x != x ? KEY_MISSING : gbt__float_key(x + 0.0f);
}

/* Lays t out complete at full[full_len ...] and leaf[full_len ...] (see predict.h). */
static gbt_status append_full(struct gbt_forest *f, const struct gbt_tree *t, int depth, float w)
{
    const size_t width = (size_t)1 << depth;
    struct gbt_fnode *nodes;
    float *leaf;
    int32_t *at = NULL; /* the tree's node at each complete-tree position */
    FORWARD_IF_ERROR(gbt__reserve(&f->full, &f->full_cap, f->full_len + width, sizeof *f->full, "forest"));
    FORWARD_IF_ERROR(gbt__reserve(&f->leaf, &f->leaf_cap, f->full_len + width, sizeof *f->leaf, "forest"));
    FORWARD_IF_ERROR(gbt__alloc(&at, 2 * width, sizeof *at, 0, "forest order"));
    nodes = f->full + f->full_len;
    leaf = f->leaf + f->full_len;
    at[1] = 0;
    for (size_t h = 1; h < width; h++) {
        const int32_t i = at[h];
        if (t->left[i] >= 0) { /* thresholds are numbers (tree.c checks loaded ones) */
            nodes[h].lo = order_key(t->threshold[i]);
            nodes[h].range = (KEY_MISSING - (t->default_left[i] ? 1u : 0u)) - nodes[h].lo;
            nodes[h].key_at = (uint32_t)t->feature[i] * GBT_KEY_STRIDE;
            at[2 * h] = t->left[i];
            at[2 * h + 1] = t->right[i];
        } else {
            nodes[h].lo = 0;
            nodes[h].range = 0;
            nodes[h].key_at = 0;
            at[2 * h] = at[2 * h + 1] = i;
        }
    }
    for (size_t h = width; h < 2 * width; h++) leaf[h - width] = t->value[at[h]] * w;
    free(at);
    return GBT_OK;
}

/* Room in f->cat_bits for every categorical node of t. */
static gbt_status reserve_cat_bits(struct gbt_forest *f, const struct gbt_tree *t)
{
    size_t need = f->cat_len;
    for (int32_t i = 0; i < t->n_nodes; i++)
        if (t->left[i] >= 0 && gbt__tree_is_cat(t, i)) need += gbt__tree_cat_packed(t, i, NULL);
    if (need == f->cat_len) return GBT_OK;
    return gbt__reserve(&f->cat_bits, &f->cat_cap, need, sizeof *f->cat_bits, "forest categories");
}

gbt_status gbt__forest_append(struct gbt_forest *f, const struct gbt_tree *t, float w)
{
    int depth = 0, full;
    struct gbt_pnode *nodes;
    int32_t *order = NULL, *pos = NULL, head = 0, tail = 1;
    FORWARD_IF_ERROR(gbt__tree_depth(t, &depth));
    full = depth <= GBT_FULL_DEPTH;
    RETURN_ERROR_IF(depth > 255, GBT_E_INVALID_ARG, "tree of depth %d is too deep to predict with", depth);
    for (int32_t i = 0; i < t->n_nodes; i++)
        if (t->left[i] >= 0 && (t->feature[i] >= GBT_KEY_MAX_FEATURES || gbt__tree_is_cat(t, i))) full = 0;
    FORWARD_IF_ERROR(gbt__reserve(&f->nodes, &f->nodes_cap, f->nodes_len + (size_t)t->n_nodes,
                                  sizeof *f->nodes, "forest"));
    FORWARD_IF_ERROR(gbt__reserve(&f->offset, &f->trees_cap, (size_t)f->ntrees + 1,
                                  sizeof *f->offset, "forest"));
    {
        /* depth and full_off share offset's capacity */
        const size_t cap = f->trees_cap;
        uint8_t *d = realloc(f->depth, cap);
        uint64_t *fo;
        RETURN_ERROR_IF(d == NULL, GBT_E_NO_MEMORY, "out of memory growing the forest");
        f->depth = d;
        fo = realloc(f->full_off, cap * sizeof *fo);
        RETURN_ERROR_IF(fo == NULL, GBT_E_NO_MEMORY, "out of memory growing the forest");
        f->full_off = fo;
        d = realloc(f->full_ok, cap);
        RETURN_ERROR_IF(d == NULL, GBT_E_NO_MEMORY, "out of memory growing the forest");
        f->full_ok = d;
    }
    FORWARD_IF_ERROR(reserve_cat_bits(f, t));
    if (full) FORWARD_IF_ERROR(append_full(f, t, depth, w));
    FORWARD_IF_ERROR(gbt__alloc(&order, (size_t)t->n_nodes, sizeof *order, 0, "forest order"));
    if (gbt__alloc(&pos, (size_t)t->n_nodes, sizeof *pos, 0, "forest order") != GBT_OK) {
        free(order);
        return GBT_E_NO_MEMORY;
    }
    /* breadth-first: each node's two children get consecutive places */
    order[0] = 0;
    pos[0] = 0;
    while (head < tail) {
        const int32_t i = order[head++];
        if (t->left[i] >= 0) {
            pos[t->left[i]] = tail;
            order[tail++] = t->left[i];
            pos[t->right[i]] = tail;
            order[tail++] = t->right[i];
        }
    }
    nodes = f->nodes + f->nodes_len;
    for (int32_t p = 0; p < t->n_nodes; p++) {
        const int32_t i = order[p];
        if (t->left[i] < 0) {
            nodes[p].left = p;
            nodes[p].feature = GBT_PNODE_DL;
            nodes[p].threshold = NAN;
            nodes[p].value = t->value[i] * w;
        } else if (gbt__tree_is_cat(t, i)) {
            const uint32_t at = (uint32_t)f->cat_len;
            nodes[p].left = pos[t->left[i]];
            nodes[p].feature = (uint32_t)t->feature[i] | GBT_PNODE_CAT | (t->default_left[i] ? GBT_PNODE_DL : 0u);
            nodes[p].threshold = NAN;
            memcpy(&nodes[p].value, &at, sizeof at);
            f->cat_len += gbt__tree_cat_packed(t, i, f->cat_bits + at);
            if ((uint32_t)t->feature[i] + 1 > f->feature_end) f->feature_end = (uint32_t)t->feature[i] + 1;
        } else {
            nodes[p].left = pos[t->left[i]];
            nodes[p].feature = (uint32_t)t->feature[i] | (t->default_left[i] ? GBT_PNODE_DL : 0u);
            nodes[p].threshold = t->threshold[i];
            nodes[p].value = 0.0f;
            if ((uint32_t)t->feature[i] + 1 > f->feature_end) f->feature_end = (uint32_t)t->feature[i] + 1;
        }
    }
    free(order);
    free(pos);
    f->offset[f->ntrees] = f->nodes_len;
    f->depth[f->ntrees] = (uint8_t)depth;
    f->full_ok[f->ntrees] = (uint8_t)full;
    f->full_off[f->ntrees] = f->full_len;
    if (full) f->full_len += (size_t)1 << depth;
    f->ntrees++;
    f->nodes_len += (size_t)t->n_nodes;
    return GBT_OK;
}

static inline float csr_value(const struct gbt_dview *v, uint64_t r, uint32_t f)
{
    uint64_t lo = v->indptr[r], hi = v->indptr[r + 1];
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (v->indices[mid] < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < v->indptr[r + 1] && v->indices[lo] == f) ? v->values[lo] : NAN;
}

static inline float dense_value(const struct gbt_dview *v, uint64_t r, uint32_t f)
{
    float x;
    if (f >= v->ncol) return NAN;
    x = v->dense[r * v->ncol + f];
    return x == v->missing ? NAN : x;
}

/* Dense data with every model feature present as a column and NaN as missing. */
static inline float dense_value_fast(const struct gbt_dview *v, uint64_t r, uint32_t f)
{
    return v->dense[r * v->ncol + f];
}

/* The keys of rows r0 .. r0+nb-1: keys[f * GBT_KEY_STRIDE + j] for f < fe. */
static void fill_keys(const struct gbt_dview *v, uint32_t fe, uint64_t r0, int nb, uint32_t *keys)
{
    if (v->dense == NULL) {
        for (uint32_t f = 0; f < fe; f++)
            for (int j = 0; j < nb; j++) keys[(size_t)f * GBT_KEY_STRIDE + (size_t)j] = KEY_MISSING;
        for (int j = 0; j < nb; j++)
            for (uint64_t p = v->indptr[r0 + (uint64_t)j]; p < v->indptr[r0 + (uint64_t)j + 1]; p++)
                if (v->indices[p] < fe)
                    keys[(size_t)v->indices[p] * GBT_KEY_STRIDE + (size_t)j] = order_key(v->values[p]);
        return;
    }
    for (uint32_t f = 0; f < fe; f++)
        for (int j = 0; j < nb; j++)
            keys[(size_t)f * GBT_KEY_STRIDE + (size_t)j] = order_key(dense_value(v, r0 + (uint64_t)j, f));
}

static inline uint32_t full_step(const struct gbt_fnode *full, const uint32_t *keys, uint32_t h)
{
    const struct gbt_fnode *n = full + h;
    return 2 * h + (keys[n->key_at] - n->lo <= n->range);
}

/*
 * Adds a complete tree of depth `depth` (leaves at leaf[0 .. 2^depth)) to
 * acc[j * K] for the nb rows of keys.  Eight rows are walked at a time in
 * registers: their eight chains of dependent loads are independent, so
 * they overlap.
 */
static void walk_full(const struct gbt_fnode *full, const float *leaf, int depth,
                      const uint32_t *keys, int nb, int K, double *acc)
{
    const uint32_t first = 1u << depth; /* the position of leaf 0 */
    int j = 0;
    for (; j + 8 <= nb; j += 8) {
        const uint32_t *kb = keys + j;
        uint32_t h0 = 1, h1 = 1, h2 = 1, h3 = 1, h4 = 1, h5 = 1, h6 = 1, h7 = 1;
        double *a = acc + (size_t)j * (size_t)K;
        for (int d = 0; d < depth; d++) {
            h0 = full_step(full, kb + 0, h0);
            h1 = full_step(full, kb + 1, h1);
            h2 = full_step(full, kb + 2, h2);
            h3 = full_step(full, kb + 3, h3);
            h4 = full_step(full, kb + 4, h4);
            h5 = full_step(full, kb + 5, h5);
            h6 = full_step(full, kb + 6, h6);
            h7 = full_step(full, kb + 7, h7);
        }
        a[0] += (double)leaf[h0 - first];
        a[K] += (double)leaf[h1 - first];
        a[2 * K] += (double)leaf[h2 - first];
        a[3 * K] += (double)leaf[h3 - first];
        a[4 * K] += (double)leaf[h4 - first];
        a[5 * K] += (double)leaf[h5 - first];
        a[6 * K] += (double)leaf[h6 - first];
        a[7 * K] += (double)leaf[h7 - first];
    }
    for (; j < nb; j++) {
        uint32_t h = 1;
        for (int d = 0; d < depth; d++) h = full_step(full, keys + j, h);
        acc[(size_t)j * (size_t)K] += (double)leaf[h - first];
    }
}

/*
 * Adds trees [t0, t1) to acc for rows r0 .. r0+nb-1: acc[j * K + t % K].
 * With keys (the block's, from fill_keys), trees laid out complete walk
 * those; the others, and every tree without keys, walk the nodes.
 */
#define DEFINE_BLOCK(NAME, GET)                                                             \
    static void NAME(const struct gbt_forest *fo, uint32_t t0, uint32_t t1, int K,          \
                     const struct gbt_dview *v, uint64_t r0, int nb, const uint32_t *keys,  \
                     double *acc)                                                           \
    {                                                                                       \
        int32_t idx[MAX_BLOCK];                                                             \
        for (uint32_t t = t0; t < t1; t++) {                                                \
            const struct gbt_pnode *nodes = fo->nodes + fo->offset[t];                      \
            const int depth = fo->depth[t], k = (int)(t % (uint32_t)K);                     \
            if (keys != NULL && fo->full_ok[t]) {                                           \
                walk_full(fo->full + fo->full_off[t], fo->leaf + fo->full_off[t], depth, keys, nb, K, \
                          acc + k);                                                         \
                continue;                                                                   \
            }                                                                               \
            for (int j = 0; j < nb; j++) idx[j] = 0;                                        \
            for (int d = 0; d < depth; d++) {                                               \
                for (int j = 0; j < nb; j++) {                                              \
                    const struct gbt_pnode *n = nodes + idx[j];                             \
                    idx[j] = gbt_pnode_step(n, GET(v, r0 + (uint64_t)j, n->feature & GBT_PNODE_FEATURE), \
                                            fo->cat_bits);                                  \
                }                                                                           \
            }                                                                               \
            for (int j = 0; j < nb; j++) acc[j * K + k] += (double)nodes[idx[j]].value;     \
        }                                                                                   \
    }

DEFINE_BLOCK(block_dense_fast, dense_value_fast)
DEFINE_BLOCK(block_dense, dense_value)
DEFINE_BLOCK(block_csr, csr_value)

/*
 * One row: its walk through one tree is a chain of dependent loads, so
 * LANES trees are walked side by side (a shallower tree's extra steps stay
 * on its leaf).  Leaf values are still added in tree order.
 */
#define LANES 8
#define DEFINE_ROW(NAME, GET)                                                                   \
    static void NAME(const struct gbt_forest *fo, uint32_t t0, uint32_t t1, int K,             \
                     const struct gbt_dview *v, uint64_t r0, int nb, const uint32_t *keys,     \
                     double *acc)                                                              \
    {                                                                                          \
        (void)nb;                                                                              \
        (void)keys;                                                                            \
        for (uint32_t t = t0; t < t1; t += LANES) {                                            \
            const uint32_t nt = t1 - t < LANES ? t1 - t : LANES;                               \
            const struct gbt_pnode *nodes[LANES];                                              \
            int32_t idx[LANES];                                                                \
            int depth = 0;                                                                     \
            for (uint32_t u = 0; u < nt; u++) {                                                \
                nodes[u] = fo->nodes + fo->offset[t + u];                                      \
                idx[u] = 0;                                                                    \
                if (fo->depth[t + u] > depth) depth = fo->depth[t + u];                        \
            }                                                                                  \
            for (int d = 0; d < depth; d++)                                                    \
                for (uint32_t u = 0; u < nt; u++) {                                            \
                    const struct gbt_pnode *n = nodes[u] + idx[u];                             \
                    idx[u] = gbt_pnode_step(n, GET(v, r0, n->feature & GBT_PNODE_FEATURE), fo->cat_bits); \
                }                                                                              \
            for (uint32_t u = 0; u < nt; u++) acc[(t + u) % (uint32_t)K] += (double)nodes[u][idx[u]].value; \
        }                                                                                      \
    }

DEFINE_ROW(row_dense_fast, dense_value_fast)
DEFINE_ROW(row_dense, dense_value)
DEFINE_ROW(row_csr, csr_value)

typedef void (*block_fn)(const struct gbt_forest *, uint32_t, uint32_t, int,
                         const struct gbt_dview *, uint64_t, int, const uint32_t *, double *);

static block_fn pick_block(const struct gbt_forest *f, const struct gbt_dview *v)
{
    const int one = v->nrow == 1;
    if (v->dense == NULL) return one ? row_csr : block_csr;
    if (isnan(v->missing) && v->ncol > 0 && v->ncol >= f->feature_end)
        return one ? row_dense_fast : block_dense_fast;
    return one ? row_dense : block_dense;
}

static int rows_per_block(int K)
{
    int b = ACC_DOUBLES / K;
    return b > MAX_BLOCK ? MAX_BLOCK : (b < 1 ? 1 : b);
}

/*
 * Whether blocks of v walking trees [t0, t1) take keys: only for batches,
 * and only when making them (a key per feature and row) costs less than
 * the walk on them (a step per level, complete tree and row).
 */
static int use_keys(const struct gbt_forest *f, uint32_t t0, uint32_t t1, const struct gbt_dview *v)
{
    uint64_t steps = 0;
    if (v->nrow < 2 || f->feature_end == 0 || f->feature_end >= GBT_KEY_MAX_FEATURES) return 0;
    for (uint32_t t = t0; t < t1 && steps < f->feature_end; t++)
        if (f->full_ok[t]) steps += f->depth[t];
    return steps >= f->feature_end;
}

static uint32_t *alloc_keys(const struct gbt_forest *f, int wanted)
{
    return wanted ? malloc((size_t)f->feature_end * GBT_KEY_STRIDE * sizeof(uint32_t)) : NULL;
}

void gbt__forest_add(const struct gbt_forest *f, uint32_t t0, uint32_t t1, int K,
                     const struct gbt_dview *v, int nthread, double *margin)
{
    const int B = rows_per_block(K);
    const uint64_t nblocks = (v->nrow + (uint64_t)B - 1) / (uint64_t)B;
    const int keyed = use_keys(f, t0, t1, v);
    block_fn fn = pick_block(f, v);
    if (t1 <= t0) return;
#pragma omp parallel num_threads(nthread) if (nblocks > 1)
    {
        uint32_t *keys = alloc_keys(f, keyed);
#pragma omp for schedule(static)
        for (uint64_t b = 0; b < nblocks; b++) {
            uint64_t r0 = b * (uint64_t)B;
            int nb = (int)(v->nrow - r0 < (uint64_t)B ? v->nrow - r0 : (uint64_t)B);
            if (keys != NULL) fill_keys(v, f->feature_end, r0, nb, keys);
            fn(f, t0, t1, K, v, r0, nb, keys, margin + r0 * (uint64_t)K);
        }
        free(keys);
    }
}

void gbt__forest_predict(const struct gbt_forest *f, uint32_t t0, uint32_t t1, int obj, int K,
                         const double *base, const struct gbt_dview *v, unsigned flags,
                         int nthread, float *out)
{
    const int B = rows_per_block(K);
    const int width = gbt__objective_outputs(obj, K, flags);
    const uint64_t nblocks = (v->nrow + (uint64_t)B - 1) / (uint64_t)B;
    const int row_base = v->base_margin != NULL;
    const int keyed = use_keys(f, t0, t1, v);
    block_fn fn = pick_block(f, v);
#pragma omp parallel num_threads(nthread) if (nblocks > 1)
    {
        uint32_t *keys = alloc_keys(f, keyed);
#pragma omp for schedule(static)
        for (uint64_t b = 0; b < nblocks; b++) {
            double acc[ACC_DOUBLES];
            uint64_t r0 = b * (uint64_t)B;
            int nb = (int)(v->nrow - r0 < (uint64_t)B ? v->nrow - r0 : (uint64_t)B);
            for (int j = 0; j < nb; j++)
                for (int k = 0; k < K; k++) {
                    uint64_t r = r0 + (uint64_t)j;
                    acc[j * K + k] = row_base ? (double)v->base_margin[r * (uint64_t)K + k] : base[k];
                }
            if (keys != NULL) fill_keys(v, f->feature_end, r0, nb, keys);
            fn(f, t0, t1, K, v, r0, nb, keys, acc);
            for (int j = 0; j < nb; j++)
                gbt__objective_transform(obj, K, acc + j * K, flags, out + (r0 + (uint64_t)j) * (uint64_t)width);
        }
        free(keys);
    }
}
