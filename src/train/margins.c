/*
 * margins.c - a booster's raw scores on data (on its CUDA device for large
 * batches, else on the host) and the checks of data against its model; the
 * evaluation sets (rounds.c) and the prediction calls (api/booster_predict.c)
 * use them.
 *
 * A dataset that holds only bins (made from an iterator) is routed on its
 * codes: when every split threshold of the trees is one of its cuts
 * (gbt__booster_check_bins, bins.c), each bin's value (data/binned_values.c) goes
 * where every value of the bin goes, so blocks of rows turned into those
 * values take the walks of feature values, on the host and on the device,
 * with the bits of the rows' own values.
 */
#include <stdlib.h>
#include <string.h>

#include "data/binned.h"
#include "data/dataset.h"
#include "model/linear.h"
#include "train/booster.h"
#include "train/margins.h"
#include "util/util.h"

/*
 * The raw scores of the whole model for v computed on the booster's CUDA
 * device, when its `device` parameter resolves to one, the backend predicts
 * there and the batch is large enough: *out is a new nrow * K array.
 * Otherwise *out is NULL and the caller walks the trees on the host; both
 * give the same bits.  With device=auto a failure on the device is logged
 * and the host walks the trees instead.
 */
gbt_status gbt__booster_device_margins(const gbt_booster *b, const struct gbt_dview *v, uint32_t t0,
                                      uint32_t t1, double **out)
{
    const struct gbt_model *m = &b->model;
    const struct gbt_backend_ops *ops;
    int ordinal;
    gbt_status s;
    *out = NULL;
    if (m->linear) {
        /* a linear model's scores: one pass on the host, whatever the device (model/linear.c) */
        FORWARD_IF_ERROR(gbt__alloc(out, v->nrow * (uint64_t)m->K + 1, sizeof **out, 0, "margins"));
        gbt__linear_margins(m, v, gbt__booster_threads(b), *out);
        return GBT_OK;
    }
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
gbt_status gbt__booster_check_features(const struct gbt_model *m, uint64_t ncol, int dense)
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
gbt_status gbt__booster_check_index_base(const struct gbt_model *m, const gbt_dataset *d)
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

/* gbt__booster_eval_margins of a dataset that holds only bins: block by block, on the device when it can. */
static gbt_status binned_margins(const gbt_booster *b, const gbt_dataset *d, double *margin)
{
    const struct gbt_model *m = &b->model;
    const uint64_t block = gbt__binned_block_rows(d), K = (uint64_t)m->K;
    struct gbt_dview v;
    float *buf = NULL;
    gbt_status s = gbt__booster_check_bins(b, d, 0, m->ntrees);
    if (s == GBT_OK) s = gbt__alloc(&buf, block * d->ncol, sizeof *buf, 0, "binned rows' values");
    for (uint64_t r0 = 0; s == GBT_OK && r0 < d->nrow; r0 += block) {
        const uint64_t n = d->nrow - r0 < block ? d->nrow - r0 : block;
        double *dev = NULL;
        s = gbt__binned_view(d, r0, n, m->K, buf, &v);
        if (s == GBT_OK) s = gbt__booster_device_margins(b, &v, 0, m->ntrees, &dev);
        if (s == GBT_OK && dev) memcpy(margin + r0 * K, dev, n * K * sizeof *dev);
        else if (s == GBT_OK)
            gbt__forest_add(&m->forest, 0, m->ntrees, m->K, &v, gbt__booster_threads(b), margin + r0 * K);
        free(dev);
    }
    free(buf);
    return s;
}

gbt_status gbt__booster_eval_margins(const gbt_booster *b, const gbt_dataset *d, double **out)
{
    const struct gbt_model *m = &b->model;
    struct gbt_dview v;
    double *margin;
    if (d->binned_only) {
        gbt_status s;
        FORWARD_IF_ERROR(gbt__booster_check_index_base(m, d));
        FORWARD_IF_ERROR(gbt__booster_check_names(b, d));
        FORWARD_IF_ERROR(gbt__booster_check_base_margin(d, m->K));
        FORWARD_IF_ERROR(gbt__alloc(&margin, d->nrow * (uint64_t)m->K, sizeof *margin, 0, "margins"));
        gbt__model_start_margins(m, d, margin);
        s = binned_margins(b, d, margin);
        if (s != GBT_OK) {
            free(margin);
            return s;
        }
        *out = margin;
        return GBT_OK;
    }
    FORWARD_IF_ERROR(gbt__booster_check_features(m, d->ncol, d->dense != NULL));
    FORWARD_IF_ERROR(gbt__booster_check_index_base(m, d));
    FORWARD_IF_ERROR(gbt__booster_check_names(b, d));
    FORWARD_IF_ERROR(gbt__booster_check_base_margin(d, m->K));
    gbt__dataset_view(d, &v);
    FORWARD_IF_ERROR(gbt__booster_device_margins(b, &v, 0, m->ntrees, &margin));
    if (margin == NULL) {
        FORWARD_IF_ERROR(gbt__alloc(&margin, d->nrow * (uint64_t)m->K, sizeof *margin, 0, "margins"));
        gbt__model_start_margins(m, d, margin);
        gbt__forest_add(&m->forest, 0, m->ntrees, m->K, &v, gbt__booster_threads(b), margin);
    }
    *out = margin;
    return GBT_OK;
}
