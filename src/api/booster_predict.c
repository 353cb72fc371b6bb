/*
 * booster_predict.c - the prediction calls of the C API (values, margins,
 * leaf ids, SHAP), on the booster's CUDA device for large batches, else on
 * the host (the raw scores and the data's checks: margins.c).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "data/feature_names.h"
#include "model/linear.h"
#include "model/shap.h"
#include "metric/metric.h"
#include "objective/objective.h"
#include "train/booster.h"
#include "train/margins.h"
#include "util/util.h"

/* ---- prediction --------------------------------------------------------- */

static gbt_status check_model(const gbt_booster *b)
{
    RETURN_ERROR_IF(b->model.K == 0, GBT_E_STATE, "the booster has no model: train or load one first");
    return GBT_OK;
}

#define EXPLAIN_FLAGS (GBT_PREDICT_LEAF | GBT_PREDICT_CONTRIBS | GBT_PREDICT_INTERACTIONS)

/* The explanation a prediction's flags ask for (enum gbt_explain_kind), or 0. */
static int explain_kind(unsigned flags)
{
    return (flags & GBT_PREDICT_LEAF) ? GBT_EXPLAIN_LEAF
           : (flags & GBT_PREDICT_CONTRIBS) ? ((flags & GBT_PREDICT_APPROX) ? GBT_EXPLAIN_APPROX : GBT_EXPLAIN_CONTRIBS)
           : (flags & GBT_PREDICT_INTERACTIONS) ? GBT_EXPLAIN_INTERACTIONS
                                                : 0;
}

/* Checks flags and the rounds [r0, r1) (r1 0: the last), and gives the trees [*t0, *t1). */
static gbt_status check_prediction(const gbt_booster *b, unsigned flags, int r0, int r1, uint32_t *t0,
                                   uint32_t *t1)
{
    const unsigned known = GBT_PREDICT_MARGIN | GBT_PREDICT_APPROX | EXPLAIN_FLAGS, ex = flags & EXPLAIN_FLAGS;
    const uint32_t K = gbt__model_round_trees(&b->model), rounds = (uint32_t)gbt__model_rounds(&b->model);
    RETURN_ERROR_IF(flags & ~known, GBT_E_INVALID_ARG, "unknown prediction flags 0x%x", flags);
    RETURN_ERROR_IF(ex & (ex - 1), GBT_E_INVALID_ARG,
                    "prediction flags 0x%x ask for more than one of leaf ids, SHAP values and SHAP "
                    "interaction values", flags);
    RETURN_ERROR_IF((flags & GBT_PREDICT_APPROX) && ex != GBT_PREDICT_CONTRIBS && ex != GBT_PREDICT_INTERACTIONS,
                    GBT_E_INVALID_ARG,
                    "prediction flags 0x%x: GBT_PREDICT_APPROX (approx_contribs) approximates SHAP values: it "
                    "goes with GBT_PREDICT_CONTRIBS (pred_contribs) or GBT_PREDICT_INTERACTIONS only", flags);
    if (r1 == 0) r1 = (int)rounds;
    RETURN_ERROR_IF(b->model.linear && ex && ex != GBT_PREDICT_CONTRIBS, GBT_E_INVALID_ARG,
                    "a linear model (booster=gblinear) has no leaves and no SHAP interaction values; "
                    "its contributions are x * w (GBT_PREDICT_CONTRIBS)");
    RETURN_ERROR_IF(b->model.linear && (r0 != 0 || r1 < 0 || (uint32_t)r1 > rounds), GBT_E_INVALID_ARG,
                    "a linear model (booster=gblinear) predicts with all its %u rounds, as in XGBoost: "
                    "rounds [%d, %d) cannot be taken apart (a range must start at 0)", rounds, r0, r1);
    if (b->model.linear && (uint32_t)r1 < rounds)
        gbt__log((int)b->params.verbosity, GBT_LOG_WARNING,
                 "a linear model (booster=gblinear) predicts with all its %u rounds: the end of rounds [0, %d) "
                 "is ignored, as XGBoost ignores it", rounds, r1);
    if (b->model.linear) r1 = r0 = 0; /* no trees */
    RETURN_ERROR_IF(r0 < 0 || r0 > r1 || (uint32_t)r1 > rounds, GBT_E_INVALID_ARG,
                    "rounds [%d, %d) are not a range of the model's %u rounds", r0, r1, rounds);
    *t0 = (uint32_t)r0 * K;
    *t1 = (uint32_t)r1 * K;
    return GBT_OK;
}

static gbt_status size_of(const gbt_booster *b, uint64_t nrow, unsigned flags, uint32_t t0, uint32_t t1,
                          uint64_t *out_len)
{
    const int kind = explain_kind(flags);
    const uint64_t width = kind ? gbt__explain_width(&b->model, kind, t0, t1)
                                : (uint64_t)gbt__objective_outputs(b->model.objective, b->model.K, flags);
    RETURN_ERROR_IF(width && nrow > UINT64_MAX / sizeof(float) / width, GBT_E_INVALID_ARG,
                    "%llu rows of %llu outputs are more floats than memory can hold",
                    (unsigned long long)nrow, (unsigned long long)width);
    RETURN_ERROR_IF(kind == GBT_EXPLAIN_INTERACTIONS && b->model.num_feature >= (uint64_t)1 << 24,
                    GBT_E_INVALID_ARG, "SHAP interaction values of %llu features are too many",
                    (unsigned long long)b->model.num_feature);
    *out_len = nrow * width;
    return GBT_OK;
}

gbt_status gbt_booster_predict_size_rounds(const gbt_booster *b, uint64_t nrow, unsigned flags,
                                           int round_begin, int round_end, uint64_t *out_len)
{
    uint32_t t0, t1;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(out_len);
    FORWARD_IF_ERROR(check_model(b));
    FORWARD_IF_ERROR(check_prediction(b, flags, round_begin, round_end, &t0, &t1));
    return size_of(b, nrow, flags, t0, t1, out_len);
}

gbt_status gbt_booster_predict_size(const gbt_booster *b, uint64_t nrow, unsigned flags,
                                    uint64_t *out_len)
{
    return gbt_booster_predict_size_rounds(b, nrow, flags, 0, 0, out_len);
}

/*
 * Leaf ids or SHAP values on the booster's CUDA device when it resolves to
 * one and the batch is large enough, else (or, with device=auto, after a
 * failure there) on the CPU.
 */
static gbt_status explain_view(const gbt_booster *b, const struct gbt_dview *v, int kind, uint32_t t0,
                               uint32_t t1, float *out)
{
    const struct gbt_backend_ops *ops;
    int ordinal;
    gbt_status s;
    if (b->model.linear) {
        /* on the host whatever the device, as the linear model's raw scores (margins.c) */
        gbt__linear_contribs(&b->model, v, gbt__booster_threads(b), out);
        return GBT_OK;
    }
    FORWARD_IF_ERROR(gbt__device_resolve(b->params.device, 0, &ops, &ordinal));
    if (ordinal < 0 || ops->predict_explain == NULL || v->nrow < GBT_DEVICE_PREDICT_MIN_ROWS) ops = NULL;
    s = gbt__explain(&b->model, v, kind, t0, t1, gbt__booster_threads(b), ops ? ops->predict_explain : NULL, ordinal, out);
    if (s != GBT_OK && ops != NULL && gbt__booster_device_auto(b->params.device)) {
        gbt__log((int)b->params.verbosity, GBT_LOG_WARNING,
                 "device=auto: cannot predict on cuda:%d (%s); predicting on the CPU", ordinal,
                 gbt_last_error());
        s = gbt__explain(&b->model, v, kind, t0, t1, gbt__booster_threads(b), NULL, -1, out);
    }
    return s;
}

/*
 * XGBoost's approximate interaction values: Saabas' contributions do not
 * depend on conditioning on a feature, so its off-diagonal differences are
 * 0 and each block is the diagonal matrix of the approximate contributions.
 * They are computed into the front of out (K blocks of w per row) and
 * spread from the last block back, each block's w*w floats starting past
 * the w of every block before it.
 */
static gbt_status approx_interactions(const gbt_booster *b, const struct gbt_dview *v, uint32_t t0, uint32_t t1,
                                      float *out)
{
    const uint64_t w = b->model.num_feature + 1, blocks = v->nrow * (uint64_t)b->model.K;
    float *row = NULL;
    FORWARD_IF_ERROR(explain_view(b, v, GBT_EXPLAIN_APPROX, t0, t1, out));
    FORWARD_IF_ERROR(gbt__alloc(&row, w, sizeof *row, 0, "approximate interaction values"));
    for (uint64_t k = blocks; k-- > 0;) {
        float *dst = out + k * w * w;
        memcpy(row, out + k * w, w * sizeof *row);
        memset(dst, 0, w * w * sizeof *dst);
        for (uint64_t i = 0; i < w; i++) dst[i * w + i] = row[i];
    }
    free(row);
    return GBT_OK;
}

static gbt_status predict_view(const gbt_booster *b, const struct gbt_dview *v, unsigned flags, int r0,
                               int r1, float *out, uint64_t out_len)
{
    uint64_t need;
    uint32_t t0, t1;
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(check_prediction(b, flags, r0, r1, &t0, &t1));
    FORWARD_IF_ERROR(size_of(b, v->nrow, flags, t0, t1, &need));
    RETURN_ERROR_IF(out_len < need, GBT_E_INVALID_ARG,
                    "the output holds %llu floats; %llu rows need %llu", (unsigned long long)out_len,
                    (unsigned long long)v->nrow, (unsigned long long)need);
    FORWARD_IF_ERROR(gbt__booster_check_features(&b->model, v->ncol, v->dense != NULL));
    RETURN_ERROR_IF(v->base_margin && v->nbase_margin != v->nrow * (uint64_t)b->model.K,
                    GBT_E_INVALID_ARG, "base_margin has %llu values; the model needs %llu (rows x %d)",
                    (unsigned long long)v->nbase_margin,
                    (unsigned long long)(v->nrow * (uint64_t)b->model.K), b->model.K);
    if ((flags & GBT_PREDICT_INTERACTIONS) && (flags & GBT_PREDICT_APPROX))
        return approx_interactions(b, v, t0, t1, out);
    if (explain_kind(flags)) return explain_view(b, v, explain_kind(flags), t0, t1, out);
    {
        double *margin;
        FORWARD_IF_ERROR(gbt__booster_device_margins(b, v, t0, t1, &margin));
        if (margin) {
            const int K = b->model.K;
            const uint64_t width = (uint64_t)gbt__objective_outputs(b->model.objective, K, flags);
            for (uint64_t r = 0; r < v->nrow; r++)
                gbt__objective_transform(b->model.objective, K, margin + r * (uint64_t)K, flags,
                                         out + r * width);
            free(margin);
            return GBT_OK;
        }
    }
    gbt__forest_predict(&b->model.forest, t0, t1, b->model.objective, b->model.K, b->model.base, v, flags,
                        gbt__booster_threads(b), out);
    return GBT_OK;
}

/*
 * A dataset that holds only bins (made from an iterator), when the trees
 * route its codes (margins.c): block by block, each block's bins as
 * values, as any rows.
 */
static gbt_status predict_binned(const gbt_booster *b, const gbt_dataset *d, unsigned flags, int r0, int r1,
                                 float *out, uint64_t out_len)
{
    const uint64_t block = gbt__binned_block_rows(d);
    uint64_t need, width;
    uint32_t t0, t1;
    struct gbt_dview v;
    float *buf = NULL;
    gbt_status s = GBT_OK;
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(check_prediction(b, flags, r0, r1, &t0, &t1));
    FORWARD_IF_ERROR(size_of(b, d->nrow, flags, t0, t1, &need));
    RETURN_ERROR_IF(out_len < need, GBT_E_INVALID_ARG, "the output holds %llu floats; %llu rows need %llu",
                    (unsigned long long)out_len, (unsigned long long)d->nrow, (unsigned long long)need);
    FORWARD_IF_ERROR(gbt__booster_check_base_margin(d, b->model.K));
    FORWARD_IF_ERROR(gbt__booster_check_bins(b, d, t0, t1));
    width = need / d->nrow;
    FORWARD_IF_ERROR(gbt__alloc(&buf, block * d->ncol, sizeof *buf, 0, "binned rows' values"));
    for (uint64_t a = 0; s == GBT_OK && a < d->nrow; a += block) {
        const uint64_t n = d->nrow - a < block ? d->nrow - a : block;
        s = gbt__binned_view(d, a, n, b->model.K, buf, &v);
        if (s == GBT_OK) s = predict_view(b, &v, flags, r0, r1, out + a * width, n * width);
    }
    free(buf);
    return s;
}

gbt_status gbt_booster_predict_rounds(const gbt_booster *b, const gbt_dataset *d, unsigned flags,
                                      int round_begin, int round_end, float *out, uint64_t out_len)
{
    struct gbt_dview v;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(d);
    FORWARD_IF_ERROR(check_model(b));
    FORWARD_IF_ERROR(gbt__booster_check_index_base(&b->model, d));
    FORWARD_IF_ERROR(gbt__booster_check_names(b, d));
    if (d->binned_only) return predict_binned(b, d, flags, round_begin, round_end, out, out_len);
    gbt__dataset_view(d, &v);
    return predict_view(b, &v, flags, round_begin, round_end, out, out_len);
}

gbt_status gbt_booster_predict(const gbt_booster *b, const gbt_dataset *d, unsigned flags,
                               float *out, uint64_t out_len)
{
    return gbt_booster_predict_rounds(b, d, flags, 0, 0, out, out_len);
}

gbt_status gbt_booster_predict_dense_rounds(const gbt_booster *b, const float *data, uint64_t nrow,
                                            uint64_t ncol, float missing, unsigned flags, int round_begin,
                                            int round_end, float *out, uint64_t out_len)
{
    struct gbt_dview v;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(data);
    FORWARD_IF_ERROR(check_model(b));
    memset(&v, 0, sizeof v);
    v.nrow = nrow;
    v.ncol = ncol;
    v.dense = data;
    v.missing = missing;
    return predict_view(b, &v, flags, round_begin, round_end, out, out_len);
}

gbt_status gbt_booster_predict_dense(const gbt_booster *b, const float *data, uint64_t nrow,
                                     uint64_t ncol, float missing, unsigned flags, float *out,
                                     uint64_t out_len)
{
    return gbt_booster_predict_dense_rounds(b, data, nrow, ncol, missing, flags, 0, 0, out, out_len);
}
