/*
 * predict.c - tree traversal for prediction and for validation margins.
 *
 * Rows go in blocks; within a block every row walks a tree one level at a
 * time, so the block's independent loads overlap.  Raw scores are summed in
 * double, tree by tree in model order, the same order training uses, so a
 * prediction equals the training margin bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "objective.h"
#include "predict.h"
#include "util.h"

#define MAX_BLOCK 64
#define ACC_DOUBLES 4096 /* accumulator per block: MAX_BLOCK rows or fewer for many classes */

void gbt__forest_free(struct gbt_forest *f)
{
    free(f->nodes);
    free(f->offset);
    free(f->depth);
    memset(f, 0, sizeof *f);
}

void gbt__forest_truncate(struct gbt_forest *f, uint32_t ntrees)
{
    if (ntrees >= f->ntrees) return;
    f->nodes_len = f->offset[ntrees];
    f->ntrees = ntrees;
}

gbt_status gbt__forest_append(struct gbt_forest *f, const struct gbt_tree *t)
{
    int depth = gbt__tree_depth(t);
    struct gbt_pnode *nodes;
    int32_t *order = NULL, *pos = NULL, head = 0, tail = 1;
    RETURN_ERROR_IF(depth > 255, GBT_E_INVALID_ARG, "tree of depth %d is too deep to predict with", depth);
    FORWARD_IF_ERROR(gbt__reserve(&f->nodes, &f->nodes_cap, f->nodes_len + (size_t)t->n_nodes,
                                  sizeof *f->nodes, "forest"));
    FORWARD_IF_ERROR(gbt__reserve(&f->offset, &f->trees_cap, (size_t)f->ntrees + 1,
                                  sizeof *f->offset, "forest"));
    {
        size_t cap = f->trees_cap;
        /* depth shares offset's capacity */
        uint8_t *d = realloc(f->depth, cap);
        RETURN_ERROR_IF(d == NULL, GBT_E_NO_MEMORY, "out of memory growing the forest");
        f->depth = d;
    }
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
            nodes[p].value = t->value[i];
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

/*
 * Adds trees [t0, t1) to acc for rows r0 .. r0+nb-1: acc[j * K + t % K].
 */
#define DEFINE_BLOCK(NAME, GET)                                                             \
    static void NAME(const struct gbt_forest *fo, uint32_t t0, uint32_t t1, int K,          \
                     const struct gbt_dview *v, uint64_t r0, int nb, double *acc)           \
    {                                                                                       \
        int32_t idx[MAX_BLOCK];                                                             \
        for (uint32_t t = t0; t < t1; t++) {                                                \
            const struct gbt_pnode *nodes = fo->nodes + fo->offset[t];                      \
            const int depth = fo->depth[t], k = (int)(t % (uint32_t)K);                     \
            for (int j = 0; j < nb; j++) idx[j] = 0;                                        \
            for (int d = 0; d < depth; d++) {                                               \
                for (int j = 0; j < nb; j++) {                                              \
                    const struct gbt_pnode *n = nodes + idx[j];                             \
                    idx[j] = gbt_pnode_next(n, GET(v, r0 + (uint64_t)j, n->feature & ~GBT_PNODE_DL)); \
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
                     const struct gbt_dview *v, uint64_t r0, int nb, double *acc)              \
    {                                                                                          \
        (void)nb;                                                                              \
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
                    idx[u] = gbt_pnode_next(n, GET(v, r0, n->feature & ~GBT_PNODE_DL));        \
                }                                                                              \
            for (uint32_t u = 0; u < nt; u++) acc[(t + u) % (uint32_t)K] += (double)nodes[u][idx[u]].value; \
        }                                                                                      \
    }

DEFINE_ROW(row_dense_fast, dense_value_fast)
DEFINE_ROW(row_dense, dense_value)
DEFINE_ROW(row_csr, csr_value)

typedef void (*block_fn)(const struct gbt_forest *, uint32_t, uint32_t, int,
                         const struct gbt_dview *, uint64_t, int, double *);

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

void gbt__forest_add(const struct gbt_forest *f, uint32_t t0, uint32_t t1, int K,
                     const struct gbt_dview *v, int nthread, double *margin)
{
    const int B = rows_per_block(K);
    const uint64_t nblocks = (v->nrow + (uint64_t)B - 1) / (uint64_t)B;
    block_fn fn = pick_block(f, v);
    if (t1 <= t0) return;
#pragma omp parallel for schedule(static) num_threads(nthread) if (nblocks > 1)
    for (uint64_t b = 0; b < nblocks; b++) {
        uint64_t r0 = b * (uint64_t)B;
        int nb = (int)(v->nrow - r0 < (uint64_t)B ? v->nrow - r0 : (uint64_t)B);
        fn(f, t0, t1, K, v, r0, nb, margin + r0 * (uint64_t)K);
    }
}

void gbt__forest_predict(const struct gbt_forest *f, uint32_t ntrees, int obj, int K,
                         const double *base, const struct gbt_dview *v, unsigned flags,
                         int nthread, float *out)
{
    const int B = rows_per_block(K);
    const int width = gbt__objective_outputs(obj, K, flags);
    const uint64_t nblocks = (v->nrow + (uint64_t)B - 1) / (uint64_t)B;
    const int row_base = v->base_margin != NULL;
    block_fn fn = pick_block(f, v);
#pragma omp parallel for schedule(static) num_threads(nthread) if (nblocks > 1)
    for (uint64_t b = 0; b < nblocks; b++) {
        double acc[ACC_DOUBLES];
        uint64_t r0 = b * (uint64_t)B;
        int nb = (int)(v->nrow - r0 < (uint64_t)B ? v->nrow - r0 : (uint64_t)B);
        for (int j = 0; j < nb; j++)
            for (int k = 0; k < K; k++) {
                uint64_t r = r0 + (uint64_t)j;
                acc[j * K + k] = row_base ? (double)v->base_margin[r * (uint64_t)K + k] : base[k];
            }
        fn(f, 0, ntrees, K, v, r0, nb, acc);
        for (int j = 0; j < nb; j++)
            gbt__objective_transform(obj, K, acc + j * K, flags, out + (r0 + (uint64_t)j) * (uint64_t)width);
    }
}
