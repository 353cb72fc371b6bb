/*
 * metric_surv.c - the survival metrics: cox-nloglik, aft-nloglik and
 * interval-regression-accuracy, with XGBoost's definitions (see metric.h),
 * from the shared math of common/surv_math.h.  Sums run over the rows in
 * one fixed order on the host, so the values do not depend on the thread
 * count or the device.
 */
#include <math.h>
#include <stdlib.h>

#include "common/surv_math.h"
#include "data/dataset.h"
#include "metric/metric.h"
#include "objective/objective.h"
#include "objective/surv_order.h"
#include "util/util.h"

int gbt__metric_survival(int id)
{
    return id == GBT_METRIC_COX_NLOGLIK || id == GBT_METRIC_AFT_NLOGLIK || id == GBT_METRIC_INTERVAL_ACC;
}

static gbt_status cox_nloglik(const gbt_dataset *d, const double *margin, double *out)
{
    uint32_t *order = NULL;
    double *pred = NULL;
    gbt_status s;
    RETURN_ERROR_IF(d->label == NULL, GBT_E_INVALID_ARG, "cox-nloglik needs labels (times, negative when censored)");
    s = gbt__surv_order(d->label, d->nrow, &order);
    if (s == GBT_OK) s = gbt__alloc(&pred, d->nrow, sizeof *pred, 0, "predictions");
    if (s == GBT_OK) {
        for (uint64_t r = 0; r < d->nrow; r++) pred[r] = gbt_exp(margin[r]);
        *out = gbt_cox_nloglik(d->nrow, order, pred, d->label);
    }
    free(order);
    free(pred);
    return s;
}

gbt_status gbt__metric_surv_eval(const struct gbt_metric *m, const gbt_dataset *d,
                                 const double *margin, double *out)
{
    const float *lo, *hi;
    double sum = 0.0, wsum = 0.0;
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(margin);
    CHECK_NOT_NULL(out);
    if (m->id == GBT_METRIC_COX_NLOGLIK) return cox_nloglik(d, margin, out);
    FORWARD_IF_ERROR(gbt__objective_check_aft(d));
    FORWARD_IF_ERROR(gbt__objective_aft_bounds(d, &lo, &hi));
    for (uint64_t r = 0; r < d->nrow; r++) {
        const double w = d->weight ? (double)d->weight[r] : 1.0;
        double v;
        if (m->id == GBT_METRIC_AFT_NLOGLIK) {
            v = gbt_aft_loss(m->aft_dist, m->aft_sigma, (double)lo[r], (double)hi[r], margin[r]);
        } else {
            const double p = gbt_exp(margin[r]);
            v = p >= (double)lo[r] && p <= (double)hi[r] ? 1.0 : 0.0;
        }
        sum += w * v;
        wsum += w;
    }
    *out = wsum > 0 ? sum / wsum : (double)NAN;
    return GBT_OK;
}
