/*
 * backend_cpu.c - the CPU backend: the reference every other backend is
 * tested against.  This file holds its table, set-up, leaves and margins.
 * A dataset whose binned matrix is in pages on disk (data/pages.h) is
 * trained on without reading it whole: histogram.c and partition.c read
 * the pages in order whenever they need codes, and only the per-row state,
 * the histograms and one page are in memory.
 */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "cpu/cpu.h"

static void cpu_close(void *p)
{
    struct cpu_ctx *c = p;
    if (c == NULL) return;
    gbt__qcols_free(&c->cols);
    gbt__pages_reader_close(c->reader);
    free(c->go_left);
    free(c->margin);
    free(c->grad);
    free(c->gtmp);
    free(c->htmp);
    free(c->rows);
    free(c->rows_tmp);
    free(c->part_scratch);
    free(c->node_begin);
    free(c->node_count);
    if (c->hist)
        for (uint32_t i = 0; i < c->max_slots; i++) free(c->hist[i]);
    free(c->hist);
    free(c->scratch);
    free(c->group_ptr);
    free(c->rank_idx);
    free(c->rank_stat);
    free(c->monotone);
    free(c);
}

static gbt_status cpu_open(int ordinal, const struct gbt_train_plan *plan, void **out)
{
    struct cpu_ctx *c;
    uint64_t n = plan->nrow, nk = plan->nrow * (uint64_t)plan->num_class;
    gbt_status s;
    (void)ordinal;
    FORWARD_IF_ERROR(gbt__cpu_check_memory(plan));
    FORWARD_IF_ERROR(gbt__alloc(&c, 1, sizeof *c, 1, "CPU backend"));
    c->qm = plan->qm;
    c->nrow = n;
    c->nfeat = plan->qm->cuts.nfeat;
    c->K = plan->num_class;
    c->objective = plan->objective;
    c->nthread = plan->nthread;
    c->label = plan->label;
    c->T = plan->num_target > 1 ? plan->num_target : 1;
    c->weight = plan->weight;
    c->max_nodes = plan->max_nodes;
    c->max_slots = plan->max_slots;
    s = gbt__alloc(&c->margin, nk, sizeof(double), 0, "training margins");
    if (s == GBT_OK) s = gbt__alloc(&c->grad, nk, sizeof(struct gbt_gpair), 0, "gradients");
    if (s == GBT_OK) s = gbt__alloc(&c->gtmp, nk, sizeof(double), 0, "gradients");
    if (s == GBT_OK) s = gbt__alloc(&c->htmp, nk, sizeof(double), 0, "hessians");
    if (s == GBT_OK) s = gbt__alloc(&c->rows, n, sizeof(uint32_t), 0, "row partition");
    if (s == GBT_OK) s = gbt__alloc(&c->rows_tmp, n, sizeof(uint32_t), 0, "row partition");
    if (s == GBT_OK)
        s = gbt__alloc(&c->part_scratch, (size_t)c->nthread * GBT_CPU_CHUNK, sizeof(uint32_t), 0,
                       "row partition");
    if (s == GBT_OK) s = gbt__alloc(&c->node_begin, c->max_nodes, sizeof(uint64_t), 1, "nodes");
    if (s == GBT_OK) s = gbt__alloc(&c->node_count, c->max_nodes, sizeof(uint64_t), 1, "nodes");
    if (s == GBT_OK) s = gbt__alloc(&c->hist, c->max_slots, sizeof(*c->hist), 1, "histograms");
    if (s == GBT_OK && plan->pages) {
        /* the codes stay on disk: histograms and partition read the pages in order */
        c->pages = plan->pages;
        c->npage = gbt__pages_count(plan->pages);
        s = gbt__pages_reader_open(plan->pages, plan->qm, &c->reader);
        if (s == GBT_OK) s = gbt__alloc(&c->go_left, n ? n : 1, 1, 0, "row partition");
    } else if (s == GBT_OK) {
        s = gbt__qcols_build(plan->qm, c->nthread, &c->cols);
    }
    if (s == GBT_OK)
        s = gbt__alloc(&c->scratch, (size_t)2 * (size_t)c->nthread * plan->qm->cuts.total_slots,
                       sizeof(struct gbt_hbin), 0, "histogram scratch");
    if (s == GBT_OK && plan->group_ptr) {
        c->ngroups = plan->ngroups;
        s = gbt__alloc(&c->group_ptr, plan->ngroups + 1, sizeof(uint32_t), 0, "query groups");
        if (s == GBT_OK) memcpy(c->group_ptr, plan->group_ptr, (plan->ngroups + 1) * sizeof(uint32_t));
        if (s == GBT_OK) s = gbt__alloc(&c->rank_idx, 3 * n, sizeof(uint32_t), 0, "ranking scratch");
        if (s == GBT_OK) s = gbt__alloc(&c->rank_stat, 2 * n, sizeof(double), 0, "ranking scratch");
    }
    if (s == GBT_OK && plan->monotone) {
        s = gbt__alloc(&c->monotone, (size_t)c->nfeat + 1, 1, 0, "monotone constraints");
        if (s == GBT_OK) memcpy(c->monotone, plan->monotone, c->nfeat);
    }
    if (s != GBT_OK) {
        cpu_close(c);
        return s;
    }
    for (uint64_t r = 0; r < n; r++)
        for (int k = 0; k < c->K; k++) c->margin[(uint64_t)k * n + r] = plan->margin[r * (uint64_t)c->K + k];
    *out = c;
    return GBT_OK;
}

static int cpu_device_count(void)
{
    return 0;
}

static gbt_status cpu_describe(int ordinal, char *name, size_t name_len, int *cc_major,
                               int *cc_minor, uint64_t *total_bytes, uint64_t *free_bytes)
{
    (void)name, (void)name_len, (void)cc_major, (void)cc_minor, (void)total_bytes,
        (void)free_bytes;
    return gbt__fail(GBT_E_NO_DEVICE, "the CPU backend has no device %d", ordinal);
}

static gbt_status cpu_begin_tree(void *p, int cls)
{
    struct cpu_ctx *c = p;
    RETURN_ERROR_IF(cls < 0 || cls >= c->K, GBT_E_INTERNAL, "tree class %d out of range", cls);
    c->cls = cls;
#pragma omp parallel for schedule(static) num_threads(c->nthread) if (c->nrow >= GBT_CPU_MIN_PARALLEL)
    for (uint64_t r = 0; r < c->nrow; r++) c->rows[r] = (uint32_t)r;
    c->node_begin[0] = 0;
    c->node_count[0] = c->nrow;
    if (c->reader) gbt__pages_reader_recheck(c->reader); /* each page's checksum again, once a tree */
    return GBT_OK;
}

static gbt_status cpu_finish_tree(void *p, const struct gbt_leaf *leaves, int n)
{
    struct cpu_ctx *c = p;
    for (int i = 0; i < n; i++)
        RETURN_ERROR_IF(leaves[i].node < 0 || (uint32_t)leaves[i].node >= c->max_nodes,
                        GBT_E_INTERNAL, "leaf node %d out of range", leaves[i].node);
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->nthread) \
    if (n > 1 && c->nrow >= GBT_CPU_MIN_PARALLEL)
    for (int i = 0; i < n; i++) {
        const uint32_t *rows = c->rows + c->node_begin[leaves[i].node];
        uint64_t cnt = c->node_count[leaves[i].node];
        double *margin = c->margin + (uint64_t)c->cls * c->nrow;
        double v = leaves[i].value;
        for (uint64_t j = 0; j < cnt; j++) margin[rows[j]] += v;
    }
    return GBT_OK;
}

static gbt_status cpu_read_margins(void *p, double *out)
{
    struct cpu_ctx *c = p;
    for (uint64_t r = 0; r < c->nrow; r++)
        for (int k = 0; k < c->K; k++) out[r * (uint64_t)c->K + k] = c->margin[(uint64_t)k * c->nrow + r];
    return GBT_OK;
}

static gbt_status cpu_write_margins(void *p, const double *in)
{
    struct cpu_ctx *c = p;
    for (uint64_t r = 0; r < c->nrow; r++)
        for (int k = 0; k < c->K; k++) c->margin[(uint64_t)k * c->nrow + r] = in[r * (uint64_t)c->K + k];
    return GBT_OK;
}

static gbt_status cpu_read_rows(void *p, uint32_t *rows, uint64_t *node_begin, uint64_t *node_count)
{
    struct cpu_ctx *c = p;
    memcpy(rows, c->rows, c->nrow * sizeof *rows);
    memcpy(node_begin, c->node_begin, c->max_nodes * sizeof *node_begin);
    memcpy(node_count, c->node_count, c->max_nodes * sizeof *node_count);
    return GBT_OK;
}

static gbt_status cpu_read_histogram(void *p, int slot, struct gbt_hbin *out)
{
    struct cpu_ctx *c = p;
    RETURN_ERROR_IF(slot < 0 || (uint32_t)slot >= c->max_slots || c->hist[slot] == NULL,
                    GBT_E_INVALID_ARG, "histogram slot %d holds nothing", slot);
    memcpy(out, c->hist[slot], c->qm->cuts.total_slots * sizeof(struct gbt_hbin));
    return GBT_OK;
}

static gbt_status cpu_write_histogram(void *p, int slot, const struct gbt_hbin *in)
{
    struct cpu_ctx *c = p;
    RETURN_ERROR_IF(slot < 0 || (uint32_t)slot >= c->max_slots || c->hist[slot] == NULL,
                    GBT_E_INVALID_ARG, "histogram slot %d holds nothing", slot);
    memcpy(c->hist[slot], in, c->qm->cuts.total_slots * sizeof(struct gbt_hbin));
    return GBT_OK;
}

static gbt_status cpu_read_gradients(void *p, int cls, struct gbt_gpair *out)
{
    struct cpu_ctx *c = p;
    RETURN_ERROR_IF(cls < 0 || cls >= c->K, GBT_E_INVALID_ARG, "class %d out of range", cls);
    memcpy(out, c->grad + (uint64_t)cls * c->nrow, c->nrow * sizeof(struct gbt_gpair));
    return GBT_OK;
}

static const struct gbt_backend_ops cpu_ops = {
    .name = "cpu",
    .stream_pages = 1,
    .device_count = cpu_device_count,
    .describe = cpu_describe,
    .open = cpu_open,
    .close = cpu_close,
    .gradients = gbt__cpu_gradients,
    .set_gradients = gbt__cpu_set_gradients,
    .begin_tree = cpu_begin_tree,
    .histograms = gbt__cpu_histograms,
    .best_splits = gbt__cpu_best_splits,
    .partition = gbt__cpu_partition,
    .finish_tree = cpu_finish_tree,
    .read_margins = cpu_read_margins,
    .write_margins = cpu_write_margins,
    .read_rows = cpu_read_rows,
    .read_histogram = cpu_read_histogram,
    .write_histogram = cpu_write_histogram,
    .read_gradients = cpu_read_gradients,
};

const struct gbt_backend_ops *gbt__backend_cpu(void)
{
    return &cpu_ops;
}
