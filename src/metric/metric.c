/*
 * metric.c - rmse, mae, logloss, error, auc, mlogloss, merror, rmsle, mape,
 * mphe, poisson-nloglik, gamma-nloglik, gamma-deviance, tweedie-nloglik,
 * quantile, with XGBoost's definitions (its epsilons included); auc and
 * aucpr of a multiclass model one class against the rest.
 *
 * Each metric sees the objective's prediction: probabilities come from the
 * shared sigmoid/softmax (common/gmath.h), the log-link objectives' means
 * from exp, binary:hinge's classes 0 and 1; for binary:logitraw the margin
 * goes through the sigmoid for logloss and error, so they mean the same for
 * every binary objective.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/grad_math.h"
#include "data/dataset.h"
#include "metric/metric.h"
#include "objective/objective.h"
#include "util/sort.h"
#include "util/util.h"

#define BLOCK 8192
#define PROB_EPS 1e-16

static const struct {
    const char *name;
    int id, maximize;
} metrics[] = {
    {"rmse", GBT_METRIC_RMSE, 0},       {"mae", GBT_METRIC_MAE, 0},
    {"logloss", GBT_METRIC_LOGLOSS, 0}, {"error", GBT_METRIC_ERROR, 0},
    {"auc", GBT_METRIC_AUC, 1},         {"mlogloss", GBT_METRIC_MLOGLOSS, 0},
    {"merror", GBT_METRIC_MERROR, 0},   {"rmsle", GBT_METRIC_RMSLE, 0},
    {"mape", GBT_METRIC_MAPE, 0},       {"mphe", GBT_METRIC_MPHE, 0},
    {"poisson-nloglik", GBT_METRIC_POISSON_NLOGLIK, 0},
    {"gamma-nloglik", GBT_METRIC_GAMMA_NLOGLIK, 0},
    {"gamma-deviance", GBT_METRIC_GAMMA_DEVIANCE, 0},
    {"tweedie-nloglik", GBT_METRIC_TWEEDIE_NLOGLIK, 0},
    {"quantile", GBT_METRIC_QUANTILE, 0},
    {"cox-nloglik", GBT_METRIC_COX_NLOGLIK, 0},
    {"aft-nloglik", GBT_METRIC_AFT_NLOGLIK, 0},
    {"interval-regression-accuracy", GBT_METRIC_INTERVAL_ACC, 1},
};

const char *gbt__metric_names(void)
{
    return "rmse|mae|logloss|error|error@T|auc|mlogloss|merror|rmsle|mape|mphe|poisson-nloglik|"
           "gamma-nloglik|gamma-deviance|tweedie-nloglik@RHO|quantile|cox-nloglik|aft-nloglik|"
           "interval-regression-accuracy|aucpr|ndcg|ndcg@K|ndcg@K-|map|map@K|map@K-|pre@K";
}

gbt_status gbt__metric_parse(const char *name, struct gbt_metric *out)
{
    struct gbt_metric m = {.threshold = 0.5, .rho = 1.5, .huber_slope = 1.0, .aft_sigma = 1.0, .exp_gain = 1};
    const char *at;
    size_t len;
    gbt_status rank_status;
    CHECK_NOT_NULL(name);
    if (gbt__metric_rank_parse(name, out, &rank_status)) return rank_status;
    at = strchr(name, '@');
    len = at ? (size_t)(at - name) : strlen(name);
    for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++) {
        if (strlen(metrics[i].name) != len || strncmp(metrics[i].name, name, len) != 0) continue;
        m.id = metrics[i].id;
        m.maximize = metrics[i].maximize;
        RETURN_ERROR_IF(m.id == GBT_METRIC_TWEEDIE_NLOGLIK && !at, GBT_E_PARAM,
                        "metric '%s' needs the variance power: tweedie-nloglik@RHO, e.g. "
                        "tweedie-nloglik@1.5", name);
        if (at) {
            char *end;
            double v;
            RETURN_ERROR_IF(m.id != GBT_METRIC_ERROR && m.id != GBT_METRIC_TWEEDIE_NLOGLIK, GBT_E_PARAM,
                            "metric '%s': only error@T and tweedie-nloglik@RHO take a value", name);
            v = gbt__strtod(at + 1, &end);
            RETURN_ERROR_IF(end == at + 1 || *end != '\0' || !isfinite(v), GBT_E_PARAM,
                            "metric '%s': bad number after '@'", name);
            if (m.id == GBT_METRIC_ERROR) {
                m.threshold = v;
            } else {
                RETURN_ERROR_IF(!(v > 1.0 && v < 2.0), GBT_E_PARAM,
                                "metric '%s': the variance power must lie in (1, 2)", name);
                m.rho = v;
            }
        }
        if (out) *out = m;
        return GBT_OK;
    }
    return gbt__fail(GBT_E_PARAM, "unknown metric '%s' (one of %s)", name, gbt__metric_names());
}

/* The objective's prediction from one raw score (binary:logitraw's is the raw score). */
static double prediction(int obj, double margin)
{
    if (obj == GBT_OBJ_REG_LOGISTIC || obj == GBT_OBJ_BINARY_LOGISTIC) return gbt_sigmoid(margin);
    if (gbt__objective_log_link(obj)) return gbt_exp(margin);
    if (obj == GBT_OBJ_BINARY_HINGE) return margin > 0.0 ? 1.0 : 0.0;
    return margin;
}

/* The per-row loss of the pointwise metrics. */
static double row_loss(const struct gbt_metric *m, int obj, int K, const double *mg, float label)
{
    double y = label;
    switch (m->id) {
    case GBT_METRIC_RMSE:
    case GBT_METRIC_MAE: {
        double d = prediction(obj, mg[0]) - y;
        return m->id == GBT_METRIC_RMSE ? d * d : fabs(d);
    }
    case GBT_METRIC_RMSLE: { /* as XGBoost: a prediction at or below -1 gives inf or NaN */
        double d = log1p(prediction(obj, mg[0])) - log1p(y);
        return d * d;
    }
    case GBT_METRIC_MAPE: return fabs((y - prediction(obj, mg[0])) / y);
    case GBT_METRIC_MPHE: {
        double s = m->huber_slope, z = (prediction(obj, mg[0]) - y) / s;
        return s * s * (sqrt(1.0 + z * z) - 1.0);
    }
    case GBT_METRIC_POISSON_NLOGLIK: {
        double p = prediction(obj, mg[0]);
        if (p < PROB_EPS) p = PROB_EPS;
        return lgamma(y + 1.0) + p - log(p) * y;
    }
    case GBT_METRIC_GAMMA_NLOGLIK: {
        double p = prediction(obj, mg[0]);
        return y / p + log(p);
    }
    case GBT_METRIC_GAMMA_DEVIANCE: {
        double t = (y + 1e-6) / (prediction(obj, mg[0]) + 1e-6);
        return 2.0 * (t - log(t) - 1.0);
    }
    case GBT_METRIC_TWEEDIE_NLOGLIK: {
        double lp = log(prediction(obj, mg[0])), rho = m->rho;
        return -y * exp((1.0 - rho) * lp) / (1.0 - rho) + exp((2.0 - rho) * lp) / (2.0 - rho);
    }
    case GBT_METRIC_QUANTILE: { /* the pinball loss, averaged over the quantiles */
        double sum = 0.0;
        for (int k = 0; k < K; k++) {
            const double a = m->alpha ? m->alpha[k] : 0.5, d = y - mg[k];
            sum += d >= 0.0 ? a * d : (a - 1.0) * d;
        }
        return sum / K;
    }
    case GBT_METRIC_LOGLOSS: {
        double p = gbt__objective_logit_link(obj) ? gbt_sigmoid(mg[0]) : mg[0];
        if (p < PROB_EPS) p = PROB_EPS;
        if (p > 1.0 - PROB_EPS) p = 1.0 - PROB_EPS;
        return -(y * log(p) + (1.0 - y) * log(1.0 - p));
    }
    case GBT_METRIC_ERROR: {
        double p = gbt__objective_logit_link(obj) ? gbt_sigmoid(mg[0]) : mg[0];
        return (p > m->threshold) != (y > 0.5);
    }
    case GBT_METRIC_MLOGLOSS: {
        double mx = mg[0], sum = 0.0, p;
        for (int k = 1; k < K; k++)
            if (mg[k] > mx) mx = mg[k];
        for (int k = 0; k < K; k++) sum += gbt_exp(mg[k] - mx);
        p = gbt_exp(mg[(int)label] - mx) / sum;
        return -log(p < PROB_EPS ? PROB_EPS : p);
    }
    default: { /* merror */
        int best = 0;
        for (int k = 1; k < K; k++)
            if (mg[k] > mg[best]) best = k;
        return best != (int)label;
    }
    }
}

static gbt_status check_fit(const struct gbt_metric *m, int K, const float *label, uint64_t n)
{
    const int multi = m->id == GBT_METRIC_MLOGLOSS || m->id == GBT_METRIC_MERROR;
    if (m->id == GBT_METRIC_QUANTILE) {
        const int nalpha = m->alpha ? m->nalpha : 1;
        RETURN_ERROR_IF(K != nalpha, GBT_E_PARAM,
                        "the quantile metric needs one raw score per quantile_alpha (%d); the model "
                        "has %d per row", nalpha, K);
        return GBT_OK;
    }
    RETURN_ERROR_IF(multi && K < 2, GBT_E_PARAM,
                    "%s needs a multiclass objective", m->id == GBT_METRIC_MLOGLOSS ? "mlogloss" : "merror");
    RETURN_ERROR_IF(!multi && K > 1, GBT_E_PARAM,
                    "this metric needs one score per row (the model has %d); use mlogloss or merror "
                    "for multiclass, quantile for several quantiles", K);
    for (uint64_t r = 0; r < n; r++) {
        float y = label[r];
        if (multi && (!(y >= 0) || y != floorf(y) || y >= (float)K))
            return gbt__fail(GBT_E_FORMAT, "row %llu: label %g is not a class below %d",
                             (unsigned long long)r, (double)y, K);
        if ((m->id == GBT_METRIC_AUC || m->id == GBT_METRIC_LOGLOSS) && !(y >= 0 && y <= 1))
            return gbt__fail(GBT_E_FORMAT, "row %llu: label %g is outside [0, 1] for this metric",
                             (unsigned long long)r, (double)y);
        if ((m->id == GBT_METRIC_POISSON_NLOGLIK || m->id == GBT_METRIC_TWEEDIE_NLOGLIK) && !(y >= 0))
            return gbt__fail(GBT_E_FORMAT, "row %llu: label %g is negative; this metric takes counts or amounts >= 0",
                             (unsigned long long)r, (double)y);
        if ((m->id == GBT_METRIC_GAMMA_NLOGLIK || m->id == GBT_METRIC_GAMMA_DEVIANCE) && !(y > 0))
            return gbt__fail(GBT_E_FORMAT, "row %llu: label %g is not positive, as the gamma metrics need",
                             (unsigned long long)r, (double)y);
        if (m->id == GBT_METRIC_RMSLE && !(y > -1))
            return gbt__fail(GBT_E_FORMAT, "row %llu: label %g is not above -1, as rmsle needs",
                             (unsigned long long)r, (double)y);
        if (m->id == GBT_METRIC_MAPE && y == 0)
            return gbt__fail(GBT_E_FORMAT, "row %llu: label 0: mape divides by the label",
                             (unsigned long long)r);
    }
    return GBT_OK;
}

/* Weighted AUC with ties counted as half; fractional labels weigh both classes. */
static gbt_status auc(const double *margin, const float *label, const float *weight, uint64_t n,
                      double *out)
{
    uint64_t *key = NULL, *ktmp = NULL;
    uint32_t *idx = NULL, *itmp = NULL;
    double pos = 0.0, neg = 0.0, area = 0.0;
    gbt_status s = gbt__alloc(&key, n, sizeof *key, 0, "AUC");
    if (s == GBT_OK) s = gbt__alloc(&ktmp, n, sizeof *ktmp, 0, "AUC");
    if (s == GBT_OK) s = gbt__alloc(&idx, n, sizeof *idx, 0, "AUC");
    if (s == GBT_OK) s = gbt__alloc(&itmp, n, sizeof *itmp, 0, "AUC");
    if (s == GBT_OK) {
        for (uint64_t i = 0; i < n; i++) {
            key[i] = gbt__double_key(margin[i] == 0.0 ? 0.0 : margin[i]);
            idx[i] = (uint32_t)i;
        }
        gbt__radix_sort64(key, idx, n, ktmp, itmp);
        for (uint64_t i = 0; i < n;) {
            double gp = 0.0, gn = 0.0;
            uint64_t j = i;
            for (; j < n && key[j] == key[i]; j++) {
                double w = weight ? weight[idx[j]] : 1.0, y = label[idx[j]];
                gp += w * y;
                gn += w * (1.0 - y);
            }
            area += gp * neg + 0.5 * gp * gn;
            pos += gp;
            neg += gn;
            i = j;
        }
        *out = (pos > 0 && neg > 0) ? area / (pos * neg) : NAN;
    }
    free(key);
    free(ktmp);
    free(idx);
    free(itmp);
    return s;
}

/*
 * auc and aucpr of a multiclass model, as XGBoost defines them: each
 * class's binary metric of its softmax probability (as float, as the
 * prediction gives it) against label == class; auc averages them weighted
 * by the classes' weight of rows, aucpr unweighted; NaN when a class has no
 * rows or every row (auc), or no row or no other row (aucpr).
 */
static gbt_status one_vs_rest(const struct gbt_metric *m, int K, const double *margin, const float *label,
                              const float *weight, uint64_t n, double *out)
{
    float *prob = NULL, *is = NULL;
    double *score = NULL, sum = 0.0, wsum = 0.0;
    gbt_status s = GBT_OK;
    for (uint64_t r = 0; r < n; r++)
        if (!(label[r] >= 0) || label[r] != floorf(label[r]) || label[r] >= (float)K)
            return gbt__fail(GBT_E_FORMAT, "row %llu: label %g is not a class below %d",
                             (unsigned long long)r, (double)label[r], K);
    s = gbt__alloc(&prob, n * (uint64_t)K + 1, sizeof *prob, 0, "metric");
    if (s == GBT_OK) s = gbt__alloc(&is, n + 1, sizeof *is, 0, "metric");
    if (s == GBT_OK) s = gbt__alloc(&score, n + 1, sizeof *score, 0, "metric");
    for (uint64_t r = 0; r < n && s == GBT_OK; r++)
        gbt__objective_transform(GBT_OBJ_MULTI_SOFTPROB, K, margin + r * (uint64_t)K, 0, prob + r * (uint64_t)K);
    for (int c = 0; c < K && s == GBT_OK; c++) {
        double pos = 0.0, neg = 0.0, v = NAN;
        for (uint64_t r = 0; r < n; r++) {
            const double w = weight ? (double)weight[r] : 1.0;
            is[r] = label[r] == (float)c ? 1.0f : 0.0f;
            score[r] = (double)prob[r * (uint64_t)K + (uint64_t)c];
            pos += w * is[r];
            neg += w * (1.0 - is[r]);
        }
        if (m->id == GBT_METRIC_AUC) {
            if (pos > 0 && neg > 0) s = auc(score, is, weight, n, &v);
            sum += v * pos;
            wsum += pos;
        } else {
            s = gbt__metric_rank_eval(m, score, is, weight, NULL, 1, n, &v);
            sum += v;
            wsum += 1.0;
        }
    }
    *out = s == GBT_OK && wsum > 0 ? sum / wsum : NAN;
    free(prob);
    free(is);
    free(score);
    return s;
}

gbt_status gbt__metric_eval(const struct gbt_metric *m, int obj, int K, const double *margin,
                            const float *label, const float *weight, uint64_t nrow, int nthread,
                            double *out)
{
    uint64_t nblocks = (nrow + BLOCK - 1) / BLOCK;
    double *bl = NULL, *bw = NULL, loss = 0.0, wsum = 0.0;
    RETURN_ERROR_IF(gbt__metric_survival(m->id), GBT_E_INTERNAL,
                    "survival metrics are computed by gbt__metric_surv_eval");
    CHECK_NOT_NULL(label);
    if ((m->id == GBT_METRIC_AUC || m->id == GBT_METRIC_AUCPR) && K > 1) {
        RETURN_ERROR_IF(!gbt_objective_is_multiclass(obj), GBT_E_PARAM,
                        "%s needs one score per row or a multiclass objective (the model has %d scores per row)",
                        m->id == GBT_METRIC_AUC ? "auc" : "aucpr", K);
        return one_vs_rest(m, K, margin, label, weight, nrow, out);
    }
    if (gbt__metric_is_rank(m->id)) {
        RETURN_ERROR_IF(K > 1, GBT_E_PARAM, "this metric needs one score per row");
        return gbt__metric_rank_eval(m, margin, label, weight, NULL, 1, nrow, out);
    }
    FORWARD_IF_ERROR(check_fit(m, K, label, nrow));
    if (m->id == GBT_METRIC_AUC) return auc(margin, label, weight, nrow, out);
    FORWARD_IF_ERROR(gbt__alloc(&bl, nblocks, sizeof *bl, 0, "metric"));
    if (gbt__alloc(&bw, nblocks, sizeof *bw, 0, "metric") != GBT_OK) {
        free(bl);
        return GBT_E_NO_MEMORY;
    }
#pragma omp parallel for schedule(static) num_threads(nthread) if (nblocks > 1)
    for (uint64_t b = 0; b < nblocks; b++) {
        uint64_t end = (b + 1) * BLOCK < nrow ? (b + 1) * BLOCK : nrow;
        double l = 0.0, w = 0.0;
        for (uint64_t r = b * BLOCK; r < end; r++) {
            double wr = weight ? weight[r] : 1.0;
            l += wr * row_loss(m, obj, K, margin + r * K, label[r]);
            w += wr;
        }
        bl[b] = l;
        bw[b] = w;
    }
    for (uint64_t b = 0; b < nblocks; b++) {
        loss += bl[b];
        wsum += bw[b];
    }
    free(bl);
    free(bw);
    loss = wsum > 0 ? loss / wsum : NAN;
    *out = m->id == GBT_METRIC_RMSE || m->id == GBT_METRIC_RMSLE ? sqrt(loss) : loss;
    return GBT_OK;
}

/*
 * Multi-target data (T labels per row): a pointwise metric over every
 * (row, target) pair with the row's weight, as XGBoost's element-wise
 * metrics (rmse is the root of the mean over all n T squared errors).
 */
static gbt_status targets_eval(const struct gbt_metric *m, int obj, int K, const double *margin,
                               const struct gbt_dataset *d, int nthread, double *out)
{
    const uint64_t T = (uint64_t)gbt__dataset_targets(d);
    float *w = NULL;
    gbt_status s;
    RETURN_ERROR_IF((uint64_t)K != T, GBT_E_INVALID_ARG,
                    "the data has %llu labels per row but the model has %d outputs", (unsigned long long)T, K);
    RETURN_ERROR_IF(m->id == GBT_METRIC_AUC || m->id == GBT_METRIC_AUCPR || m->id == GBT_METRIC_MLOGLOSS ||
                        m->id == GBT_METRIC_MERROR || gbt__metric_is_rank(m->id),
                    GBT_E_PARAM, "this metric takes one label per row; multi-target data (%llu labels per "
                    "row) takes the pointwise metrics (rmse, mae, logloss, error, ...)", (unsigned long long)T);
    if (d->weight) {
        FORWARD_IF_ERROR(gbt__alloc(&w, d->nrow * T + 1, sizeof *w, 0, "metric"));
        for (uint64_t i = 0; i < d->nrow * T; i++) w[i] = d->weight[i / T];
    }
    s = gbt__metric_eval(m, obj, 1, margin, d->label, w, d->nrow * T, nthread, out);
    free(w);
    return s;
}

gbt_status gbt__metric_eval_data(const struct gbt_metric *m, int obj, int K, const double *margin,
                                 const struct gbt_dataset *d, int nthread, double *out)
{
    const int grouped = d->groups && d->ngroups > 0;
    uint32_t *ptr = NULL;
    uint64_t ng = 0;
    gbt_status s;
    if (gbt__metric_survival(m->id)) {
        RETURN_ERROR_IF(K != 1, GBT_E_PARAM, "survival metrics need one score per row");
        return gbt__metric_surv_eval(m, d, margin, out);
    }
    RETURN_ERROR_IF(d->label == NULL, GBT_E_INVALID_ARG, "the data has no labels to evaluate against");
    if (gbt__dataset_targets(d) > 1) return targets_eval(m, obj, K, margin, d, nthread, out);
    if (!(gbt__metric_is_rank(m->id) || (m->id == GBT_METRIC_AUC && grouped)) ||
        (K > 1 && (m->id == GBT_METRIC_AUC || m->id == GBT_METRIC_AUCPR)))
        return gbt__metric_eval(m, obj, K, margin, d->label, d->weight, d->nrow, nthread, out);
    RETURN_ERROR_IF(K > 1, GBT_E_PARAM, "this metric needs one score per row");
    if (!grouped) return gbt__metric_rank_eval(m, margin, d->label, d->weight, NULL, 1, d->nrow, out);
    FORWARD_IF_ERROR(gbt__dataset_group_ptr(d, &ptr, &ng));
    s = gbt__metric_rank_eval(m, margin, d->label, d->weight, ptr, ng, d->nrow, out);
    free(ptr);
    return s;
}
