/*
 * booster_predict.c - a booster's raw scores on data (on its CUDA device
 * for large batches, else on the host), its metrics on data, and the
 * prediction calls of the C API (values, margins, leaf ids, SHAP).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "data/feature_names.h"
#include "model/shap.h"
#include "metric/metric.h"
#include "objective/objective.h"
#include "train/booster.h"
#include "util/util.h"

/* ---- raw scores of the whole model -------------------------------------- */

/*
 * Fewer rows than this are predicted on the host even for a CUDA booster:
 * a device call costs a stream, buffers and copies, more than the host
 * needs for a small batch, and both give the same bits.
 */
#define GBT_DEVICE_PREDICT_MIN_ROWS 1024

/*
 * The raw scores of the whole model for v computed on the booster's CUDA
 * device, when its `device` parameter resolves to one, the backend predicts
 * there and the batch is large enough: *out is a new nrow * K array.
 * Otherwise *out is NULL and the caller walks the trees on the host; both
 * give the same bits.  With device=auto a failure on the device is logged
 * and the host walks the trees instead.
 */
static gbt_status device_margins(const gbt_booster *b, const struct gbt_dview *v, uint32_t t0,
                                 uint32_t t1, double **out)
{
    const struct gbt_model *m = &b->model;
    const struct gbt_backend_ops *ops;
    int ordinal;
    gbt_status s;
    *out = NULL;
    FORWARD_IF_ERROR(gbt__device_resolve(b->params.device, 0, &ops, &ordinal));
    if (ordinal < 0 || ops->predict_margins == NULL || v->nrow < GBT_DEVICE_PREDICT_MIN_ROWS)
        return GBT_OK;
    FORWARD_IF_ERROR(gbt__alloc(out, v->nrow * (uint64_t)m->K, sizeof **out, 0, "margins"));
    s = ops->predict_margins(ordinal, &m->forest, t0, t1, m->K, m->base, v, *out);
    if (s != GBT_OK) {
        free(*out);
        *out = NULL;
        if (gbt__booster_device_auto(b->params.device)) {
            gbt__log((int)b->params.verbosity, GBT_LOG_WARNING,
                     "device=auto: cannot predict on cuda:%d (%s); predicting on the CPU", ordinal,
                     gbt_last_error());
            s = GBT_OK;
        }
    }
    return s;
}

/*
 * Data to predict must have the model's features: dense data (a matrix,
 * CSV, TSV) every one of them, sparse data (CSR, LIBSVM) no more of them.
 */
static gbt_status check_features(const struct gbt_model *m, uint64_t ncol, int dense)
{
    RETURN_ERROR_IF(ncol > m->num_feature, GBT_E_INVALID_ARG,
                    "the data has %llu features but the model only %llu (%s)",
                    (unsigned long long)ncol, (unsigned long long)m->num_feature,
                    dense ? "is the label or another column read as a feature? label_column says "
                            "where the label is"
                          : "a one-based LIBSVM file read as zero-based? indexing_mode=1 says it is "
                            "one-based");
    RETURN_ERROR_IF(dense && ncol < m->num_feature, GBT_E_INVALID_ARG,
                    "the data has %llu columns but the model %llu features; dense data must "
                    "have a column for every feature (NaN where a value is missing)",
                    (unsigned long long)ncol, (unsigned long long)m->num_feature);
    return GBT_OK;
}

/*
 * A LIBSVM file without index 0 reads as one-based; that guess is refused
 * for a model that was not trained on a one-based file, where the file may
 * as well be a zero-based one whose first feature never appears.
 */
static gbt_status check_index_base(const struct gbt_model *m, const gbt_dataset *d)
{
    RETURN_ERROR_IF(d->index_base == GBT_BASE_ONE_GUESSED && m->index_base != GBT_BASE_ONE,
                    GBT_E_INVALID_ARG,
                    "%s has no feature index 0, so it reads as one-based LIBSVM, but the model was "
                    "trained on %s; say which it is with indexing_mode=0 or indexing_mode=1",
                    d->source ? d->source : "the data",
                    m->index_base == GBT_BASE_ZERO ? "a zero-based LIBSVM file"
                                                   : "dense data (columns from 0)");
    return GBT_OK;
}

gbt_status gbt__booster_eval_margins(const gbt_booster *b, const gbt_dataset *d, double **out)
{
    const struct gbt_model *m = &b->model;
    struct gbt_dview v;
    double *margin;
    FORWARD_IF_ERROR(check_features(m, d->ncol, d->dense != NULL));
    FORWARD_IF_ERROR(check_index_base(m, d));
    FORWARD_IF_ERROR(gbt__booster_check_names(b, d));
    FORWARD_IF_ERROR(gbt__booster_check_base_margin(d, m->K));
    gbt__dataset_view(d, &v);
    FORWARD_IF_ERROR(device_margins(b, &v, 0, m->ntrees, &margin));
    if (margin == NULL) {
        FORWARD_IF_ERROR(gbt__alloc(&margin, d->nrow * (uint64_t)m->K, sizeof *margin, 0, "margins"));
        gbt__booster_start_margins(m, d, margin);
        gbt__forest_add(&m->forest, 0, m->ntrees, m->K, &v, gbt__booster_threads(b), margin);
    }
    *out = margin;
    return GBT_OK;
}

/* ---- evaluation and prediction ------------------------------------------ */

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
           : (flags & GBT_PREDICT_CONTRIBS) ? GBT_EXPLAIN_CONTRIBS
           : (flags & GBT_PREDICT_INTERACTIONS) ? GBT_EXPLAIN_INTERACTIONS
                                                : 0;
}

/* Checks flags and the rounds [r0, r1) (r1 0: the last), and gives the trees [*t0, *t1). */
static gbt_status check_prediction(const gbt_booster *b, unsigned flags, int r0, int r1, uint32_t *t0,
                                   uint32_t *t1)
{
    const unsigned known = GBT_PREDICT_MARGIN | EXPLAIN_FLAGS, ex = flags & EXPLAIN_FLAGS;
    const uint32_t K = (uint32_t)b->model.K, rounds = b->model.ntrees / K;
    RETURN_ERROR_IF(flags & ~known, GBT_E_INVALID_ARG, "unknown prediction flags 0x%x", flags);
    RETURN_ERROR_IF(ex & (ex - 1), GBT_E_INVALID_ARG,
                    "prediction flags 0x%x ask for more than one of leaf ids, SHAP values and SHAP "
                    "interaction values", flags);
    if (r1 == 0) r1 = (int)rounds;
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
    FORWARD_IF_ERROR(check_features(&b->model, v->ncol, v->dense != NULL));
    RETURN_ERROR_IF(v->base_margin && v->nbase_margin != v->nrow * (uint64_t)b->model.K,
                    GBT_E_INVALID_ARG, "base_margin has %llu values; the model needs %llu (rows x %d)",
                    (unsigned long long)v->nbase_margin,
                    (unsigned long long)(v->nrow * (uint64_t)b->model.K), b->model.K);
    if (explain_kind(flags)) return explain_view(b, v, explain_kind(flags), t0, t1, out);
    {
        double *margin;
        FORWARD_IF_ERROR(device_margins(b, v, t0, t1, &margin));
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

gbt_status gbt_booster_predict_rounds(const gbt_booster *b, const gbt_dataset *d, unsigned flags,
                                      int round_begin, int round_end, float *out, uint64_t out_len)
{
    struct gbt_dview v;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(d);
    FORWARD_IF_ERROR(check_model(b));
    FORWARD_IF_ERROR(check_index_base(&b->model, d));
    FORWARD_IF_ERROR(gbt__booster_check_names(b, d));
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
