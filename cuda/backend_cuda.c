/*
 * backend_cuda.c - the CUDA backend's table of operations (backend.h).
 *
 * Plain C: the work happens in the .cu files behind cuda/gbt_cuda.h, whose
 * calls return a status and a message; this file turns them into a
 * gbt_status and this thread's last error.  Nothing here needs a GPU to
 * compile or link; without a driver or a GPU device_count() is 0 and the
 * registry (backend.c) never opens this backend.
 */
#include <stdlib.h>

#include "data/dataset.h"
#include "util/util.h"
#include "common/cat_math.h"
#include "common/constraint_math.h"
#include "gbt_cuda.h"
#include "math_check.h"

/* A .cu call's result as a gbt_status, its message as this thread's last error. */
static gbt_status cu_result(int status, const char *msg)
{
    if (status == 0) return GBT_OK;
    return gbt__fail((gbt_status)status, "%s", msg[0] ? msg : "CUDA backend error");
}

#define CU_CALL(expr)                   \
    do {                                \
        char msg_[GBT_CU_MSG];          \
        int st_;                        \
        msg_[0] = '\0';                 \
        st_ = (expr);                   \
        return cu_result(st_, msg_);    \
    } while (0)

static int cuda_device_count(void)
{
    return gbt_cu_device_count();
}

static const char *cuda_device_error(void)
{
    return gbt_cu_device_error();
}

static gbt_status cuda_describe(int ordinal, char *name, size_t name_len, int *cc_major,
                                int *cc_minor, uint64_t *total_bytes, uint64_t *free_bytes)
{
    CU_CALL(gbt_cu_describe(ordinal, name, name_len, cc_major, cc_minor, total_bytes, free_bytes,
                            msg_));
}

static gbt_status cuda_open(int ordinal, const struct gbt_train_plan *plan, void **ctx)
{
    const struct gbt_cuts *cuts = &plan->qm->cuts;
    uint8_t *usable = NULL;
    struct gbt_cu_ctx *c = NULL;
    char msg[GBT_CU_MSG];
    double math[GBT_MATH_CHECKS];
    int st;
    FORWARD_IF_ERROR(gbt__alloc(&usable, (size_t)cuts->nfeat + 1, 1, 1, "feature flags"));
    for (uint32_t f = 0; f < cuts->nfeat; f++) {
        usable[f] = (uint8_t)gbt__feature_usable(cuts, f);
        if (usable[f] && plan->monotone && plan->monotone[f])
            usable[f] |= plan->monotone[f] > 0 ? GBT_FEAT_INC : GBT_FEAT_DEC;
        if (usable[f] && gbt__cuts_is_cat(cuts, f)) usable[f] |= GBT_FEAT_CAT;
    }
    for (int i = 0; i < GBT_MATH_CHECKS; i++) math[i] = gbt_math_check_value(i);
    msg[0] = '\0';
    st = gbt_cu_open(ordinal, plan, usable, math, &c, msg);
    free(usable);
    if (st != 0) return cu_result(st, msg);
    *ctx = c;
    return GBT_OK;
}

static void cuda_close(void *ctx)
{
    gbt_cu_close(ctx);
}

static gbt_status cuda_gradients(void *ctx, const struct gbt_grad_request *req,
                                 struct gbt_class_sums *out)
{
    CU_CALL(gbt_cu_gradients(ctx, req, out, msg_));
}

static gbt_status cuda_set_gradients(void *ctx, const double *g, const double *h,
                                     const struct gbt_max_hook *hook, struct gbt_class_sums *out)
{
    CU_CALL(gbt_cu_set_gradients(ctx, g, h, hook, out, msg_));
}

static gbt_status cuda_begin_tree(void *ctx, int cls)
{
    CU_CALL(gbt_cu_begin_tree(ctx, cls, msg_));
}

static gbt_status cuda_histograms(void *ctx, const struct gbt_hist_job *jobs, int n)
{
    CU_CALL(gbt_cu_histograms(ctx, jobs, n, msg_));
}

static gbt_status cuda_best_splits(void *ctx, const struct gbt_split_job *jobs, int n,
                                   const uint8_t *masks, const struct gbt_split_params *p,
                                   struct gbt_split *out, uint32_t *cat_sets)
{
    CU_CALL(gbt_cu_best_splits(ctx, jobs, n, masks, p, out, cat_sets, msg_));
}

static gbt_status cuda_partition(void *ctx, const struct gbt_partition_job *jobs, int n)
{
    CU_CALL(gbt_cu_partition(ctx, jobs, n, msg_));
}

static gbt_status cuda_finish_tree(void *ctx, const struct gbt_leaf *leaves, int n)
{
    CU_CALL(gbt_cu_finish_tree(ctx, leaves, n, msg_));
}

static gbt_status cuda_read_margins(void *ctx, double *out)
{
    CU_CALL(gbt_cu_read_margins(ctx, out, msg_));
}

static gbt_status cuda_write_margins(void *ctx, const double *in)
{
    CU_CALL(gbt_cu_write_margins(ctx, in, msg_));
}

static gbt_status cuda_read_rows(void *ctx, uint32_t *rows, uint64_t *node_begin, uint64_t *node_count)
{
    CU_CALL(gbt_cu_read_rows(ctx, rows, node_begin, node_count, msg_));
}

static gbt_status cuda_read_histogram(void *ctx, int slot, struct gbt_hbin *out)
{
    CU_CALL(gbt_cu_read_histogram(ctx, slot, out, msg_));
}

static gbt_status cuda_write_histogram(void *ctx, int slot, const struct gbt_hbin *in)
{
    CU_CALL(gbt_cu_write_histogram(ctx, slot, in, msg_));
}

static gbt_status cuda_read_gradients(void *ctx, int cls, struct gbt_gpair *out)
{
    CU_CALL(gbt_cu_read_gradients(ctx, cls, out, msg_));
}

static gbt_status cuda_predict_margins(int ordinal, const struct gbt_forest *f, uint32_t t0,
                                       uint32_t t1, int K, const double *base,
                                       const struct gbt_dview *v, double *margin_out)
{
    CU_CALL(gbt_cu_predict_margins(ordinal, f, t0, t1, K, base, v, margin_out, msg_));
}

static gbt_status cuda_predict_explain(int ordinal, const struct gbt_shap_forest *f, int kind,
                                       const float *x, const double *base, uint64_t nrow, float *out)
{
    CU_CALL(gbt_cu_predict_explain(ordinal, f, kind, x, base, nrow, out, msg_));
}

static gbt_status cuda_quantize(int ordinal, const gbt_dataset *d, int max_bin, struct gbt_qmatrix *out)
{
    struct gbt_cu_qinput in;
    uint8_t *is_cat = NULL;
    char msg[GBT_CU_MSG];
    int st;
    for (uint64_t f = 0; f < d->ncol; f++)
        if (gbt__dataset_is_cat(d, f)) {
            if (is_cat == NULL) FORWARD_IF_ERROR(gbt__alloc(&is_cat, (size_t)d->ncol, 1, 1, "categorical flags"));
            is_cat[f] = 1;
        }
    in.nrow = d->nrow;
    in.ncol = d->ncol;
    in.nnz = d->nnz;
    in.dense = d->dense;
    in.indptr = d->indptr;
    in.indices = d->indices;
    in.values = d->values;
    in.weight = d->weight;
    in.max_bin = max_bin;
    in.layout = gbt__qm_layout(d->nrow, d->ncol, d->nnz, max_bin);
    in.max_weight = gbt__max_weight(d->weight, d->nrow, 1);
    in.is_cat = is_cat;
    msg[0] = '\0';
    st = gbt_cu_quantize(ordinal, &in, out, msg);
    free(is_cat);
    return cu_result(st, msg);
}

const struct gbt_backend_ops gbt__cuda_ops = {
    .name = "cuda",
    .stream_pages = 1,
    .device_count = cuda_device_count,
    .device_error = cuda_device_error,
    .describe = cuda_describe,
    .open = cuda_open,
    .close = cuda_close,
    .gradients = cuda_gradients,
    .set_gradients = cuda_set_gradients,
    .begin_tree = cuda_begin_tree,
    .histograms = cuda_histograms,
    .best_splits = cuda_best_splits,
    .partition = cuda_partition,
    .finish_tree = cuda_finish_tree,
    .read_margins = cuda_read_margins,
    .write_margins = cuda_write_margins,
    .read_rows = cuda_read_rows,
    .read_histogram = cuda_read_histogram,
    .write_histogram = cuda_write_histogram,
    .read_gradients = cuda_read_gradients,
    .predict_margins = cuda_predict_margins,
    .predict_explain = cuda_predict_explain,
    .quantize = cuda_quantize,
};
