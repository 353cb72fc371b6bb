/*
 * leaf.cu - the start and the end of a tree on the row list: every row in
 * node 0, and the leaf values added to the training margins of each leaf's
 * rows (one double addition per row and tree, as on the CPU).
 */
#include <stddef.h>

#include "cu_internal.cuh"

namespace {

using gbt_cu::TILE;
using gbt_cu::TILE_ITEMS;
using gbt_cu::TILE_THREADS;

/* Every row in node 0 (the first half of the row buffer); the other nodes empty. */
__global__ void tree_start(uint32_t *rows, uint8_t *row_half, uint64_t n, uint64_t *node_begin,
                           uint64_t *node_count, uint32_t max_nodes)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        rows[i] = (uint32_t)i;
        row_half[i] = 0;
    }
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < max_nodes;
         i += (uint64_t)gridDim.x * blockDim.x) {
        node_begin[i] = 0;
        node_count[i] = i == 0 ? n : 0;
    }
}

/*
 * margin[row * K + cls] += value of the row's leaf, for the flattened
 * positions of the leaves; a position's row from the half row_half names
 * (partition.cu: a leaf may be a split node whose own list is stale).
 */
__global__ void __launch_bounds__(TILE_THREADS)
    leaf_apply(const struct gbt_leaf *leaves, int n, const uint64_t *seg_begin,
               const uint64_t *seg_prefix, const uint32_t *rows, const uint8_t *row_half,
               uint64_t nrow, double *margin, int K, int cls)
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
        uint64_t p = seg_begin[j] + (i - seg_prefix[j]);
        if (p >= nrow) p -= nrow;
        const uint32_t r = rows[row_half[p] ? p + nrow : p];
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
    tree_start<<<grid_for(c, c->n, 256), 256, 0, c->stream>>>(c->rows, c->row_half, c->n,
                                                              c->node_begin, c->node_count,
                                                              c->max_nodes);
    CU_LAUNCHED("tree_start");
    return 0;
}

extern "C" int gbt_cu_finish_tree(struct gbt_cu_ctx *c, const struct gbt_leaf *leaves, int n,
                                  char *msg)
{
    gbt_cu::device_scope keep;
    void *d_leaves;
    if (n <= 0) return 0;
    for (int i = 0; i < n; i++)
        if (leaves[i].node < 0 || (uint32_t)leaves[i].node >= c->max_nodes)
            return failf(msg, GBT_E_INTERNAL, "leaf node %d out of range", leaves[i].node);
    if ((uint32_t)n > c->seg_cap)
        return failf(msg, GBT_E_INTERNAL, "%d leaves exceed the %u the context holds", n, c->seg_cap);
    CU_FORWARD(use_device(c, msg));
    CU_FORWARD(upload(c, ST_LEAF, leaves, (size_t)n * sizeof *leaves, &d_leaves, msg));
    static_assert(offsetof(struct gbt_leaf, node) == 0, "node ids lead the leaves");
    CU_FORWARD(segments(c, (const int32_t *)d_leaves, (int)(sizeof *leaves / sizeof(int32_t)), n, msg));
    leaf_apply<<<c->ntiles, TILE_THREADS, 0, c->stream>>>((const struct gbt_leaf *)d_leaves, n,
                                                         c->seg_begin, c->seg_prefix, c->rows,
                                                         c->row_half, c->n, c->margin, c->K, c->cls);
    CU_LAUNCHED("leaf_apply");
    return 0;
}
