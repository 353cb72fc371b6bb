/*
 * leaf.cu - the start and the end of a tree on the row list: every row in
 * node 0 (implicitly: partition.cu), and the leaf values added to the
 * training margins of each leaf's rows (one double addition per row and
 * tree, as on the CPU).  A leaf that pruning made of a split node has a
 * stale list of its own: its value goes to the rows of the nodes below it
 * that were never split, whose lists are current (partition.cu).
 */
#include <stddef.h>

#include "cu_internal.cuh"

namespace {

using gbt_cu::TILE;
using gbt_cu::TILE_ITEMS;
using gbt_cu::TILE_THREADS;

/* Every row in node 0 (its list is implicit until it is partitioned); the other nodes empty. */
__global__ void __launch_bounds__(256, 8)
    tree_start(uint64_t n, uint64_t *node_begin, uint64_t *node_count, uint32_t max_nodes)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < max_nodes;
         i += (uint64_t)gridDim.x * blockDim.x) {
        node_begin[i] = 0;
        node_count[i] = i == 0 ? n : 0;
    }
}

/*
 * margin[row * K + cls] += value of the row's leaf, for the flattened
 * positions of the leaves (nodes never split: their lists are current);
 * ident: the root's implicit list, position p holding row p.
 */
__global__ void __launch_bounds__(TILE_THREADS, 8)
    leaf_apply(const struct gbt_leaf *leaves, int n, const uint64_t *seg_begin,
               const uint64_t *seg_prefix, const uint32_t *rows, int ident, double *margin, int K,
               int cls)
{
    const uint64_t T = seg_prefix[n], base = (uint64_t)blockIdx.x * TILE;
    if (base >= T) return;
    const uint64_t last = (base + TILE < T ? base + TILE : T) - 1;
    const int jlo = gbt_cu::seg_find(seg_prefix, 0, n - 1, base);
    const int jhi = gbt_cu::seg_find(seg_prefix, jlo, n - 1, last);
    for (int k = 0; k < TILE_ITEMS; k++) {
        const uint64_t i = base + (uint64_t)k * TILE_THREADS + threadIdx.x;
        if (i >= T) break;
        const int j = gbt_cu::seg_find(seg_prefix, jlo, jhi, i);
        const uint64_t p = seg_begin[j] + (i - seg_prefix[j]);
        const uint32_t r = ident ? (uint32_t)p : rows[p];
        margin[(uint64_t)r * (uint64_t)K + (uint64_t)cls] += leaves[j].value;
    }
}

} // namespace

using namespace gbt_cu;

extern "C" int gbt_cu_begin_tree(struct gbt_cu_ctx *c, int cls, char *msg)
{
    gbt_cu::device_scope keep;
    if (cls < 0 || cls >= c->K) return failf(msg, GBT_E_INTERNAL, "tree class %d out of range", cls);
    CU_FORWARD(use_device(c, msg));
    c->cls = cls;
    tree_start<<<grid_for(c, c->max_nodes, 256), 256, 0, c->stream>>>(c->n, c->node_begin,
                                                                      c->node_count, c->max_nodes);
    CU_LAUNCHED("tree_start");
    for (uint64_t i = 0; i < 2 * (uint64_t)c->max_nodes; i++) c->kids[i] = -1;
    c->root_fresh = 1;
    pages_recheck(c); /* each page's checksum again, once a tree */
    return 0;
}

/*
 * The leaves' values by the nodes below them that were never split (each
 * leaf's own list when it was never split): a depth-first walk of the
 * children the partitions recorded, into the staging buffer.
 */
static int frontier(struct gbt_cu_ctx *c, const struct gbt_leaf *leaves, int n, int *out_n, char *msg)
{
    stage *st = &c->stage[ST_LEAF];
    struct gbt_leaf *h = (struct gbt_leaf *)st->host;
    const size_t cap = st->cap / sizeof *h;
    int32_t *todo = c->walk;
    size_t m = 0;
    CU_FORWARD(stage_ready(c, ST_LEAF, msg));
    for (int i = 0; i < n; i++) {
        size_t top = 0;
        todo[top++] = leaves[i].node;
        while (top > 0) {
            const int32_t v = todo[--top];
            if (c->kids[2 * (size_t)v] >= 0) {
                /* a tree pushes each node once: more than max_nodes is a cycle */
                if (top + 2 > c->max_nodes)
                    return failf(msg, GBT_E_INTERNAL, "the partitions' children of node %d form a cycle", v);
                todo[top++] = c->kids[2 * (size_t)v + 1];
                todo[top++] = c->kids[2 * (size_t)v];
                continue;
            }
            if (m == cap)
                return failf(msg, GBT_E_INTERNAL, "the leaves' nodes exceed the %zu the context holds", cap);
            h[m] = leaves[i];
            h[m].node = v;
            m++;
        }
    }
    *out_n = (int)m;
    return 0;
}

extern "C" int gbt_cu_finish_tree(struct gbt_cu_ctx *c, const struct gbt_leaf *leaves, int n,
                                  char *msg)
{
    gbt_cu::device_scope keep;
    void *d_leaves;
    int m = 0;
    if (n <= 0) return 0;
    for (int i = 0; i < n; i++)
        if (leaves[i].node < 0 || (uint32_t)leaves[i].node >= c->max_nodes)
            return failf(msg, GBT_E_INTERNAL, "leaf node %d out of range", leaves[i].node);
    CU_FORWARD(use_device(c, msg));
    CU_FORWARD(frontier(c, leaves, n, &m, msg));
    CU_FORWARD(upload(c, ST_LEAF, c->stage[ST_LEAF].host, (size_t)m * sizeof *leaves, &d_leaves, msg));
    static_assert(offsetof(struct gbt_leaf, node) == 0, "node ids lead the leaves");
    CU_FORWARD(segments(c, (const int32_t *)d_leaves, (int)(sizeof *leaves / sizeof(int32_t)), m, msg));
    leaf_apply<<<c->ntiles, TILE_THREADS, 0, c->stream>>>((const struct gbt_leaf *)d_leaves, m,
                                                         c->seg_begin, c->seg_prefix, c->rows,
                                                         c->root_fresh, c->margin, c->K, c->cls);
    CU_LAUNCHED("leaf_apply");
    return 0;
}
