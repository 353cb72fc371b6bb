/*
 * objective.c - label checks, starting scores and output transforms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grad_math.h"
#include "objective/leaf_refit.h"
#include "common/rank_math.h"
#include "objective/objective.h"
#include "util/util.h"

static const char *const objective_names[] = {
#define OBJECTIVE_NAME_(id, name) name,
    GBT_OBJECTIVE_MAP(OBJECTIVE_NAME_)
#undef OBJECTIVE_NAME_
};

const char *gbt__objective_name(int obj)
{
    return obj >= 0 && obj < GBT_OBJ_COUNT ? objective_names[obj] : "?";
}

int gbt__objective_groups(int obj, int num_class, int num_alpha)
{
    if (obj == GBT_OBJ_REG_QUANTILEERROR) return num_alpha;
    return gbt_objective_is_multiclass(obj) ? num_class : 1;
}

int gbt__objective_logit_link(int obj)
{
    return obj == GBT_OBJ_REG_LOGISTIC || obj == GBT_OBJ_BINARY_LOGISTIC || obj == GBT_OBJ_BINARY_LOGITRAW;
}

int gbt__objective_log_link(int obj)
{
    return obj == GBT_OBJ_COUNT_POISSON || obj == GBT_OBJ_REG_GAMMA || obj == GBT_OBJ_REG_TWEEDIE ||
           gbt__objective_survival(obj);
}

int gbt__objective_survival(int obj)
{
    return obj == GBT_OBJ_SURVIVAL_COX || obj == GBT_OBJ_SURVIVAL_AFT;
}

void gbt__objective_default_metric(int obj, double tweedie_rho, char *buf, size_t len)
{
    const char *name;
    switch (obj) {
    case GBT_OBJ_BINARY_LOGISTIC: name = "logloss"; break;
    case GBT_OBJ_BINARY_LOGITRAW: name = "auc"; break;
    case GBT_OBJ_BINARY_HINGE: name = "error"; break;
    case GBT_OBJ_MULTI_SOFTMAX:
    case GBT_OBJ_MULTI_SOFTPROB: name = "mlogloss"; break;
    case GBT_OBJ_COUNT_POISSON: name = "poisson-nloglik"; break;
    case GBT_OBJ_REG_GAMMA: name = "gamma-nloglik"; break;
    case GBT_OBJ_REG_TWEEDIE:
        if (tweedie_rho > 1.0) {
            snprintf(buf, len, "tweedie-nloglik@%g", tweedie_rho);
            return;
        }
        name = "poisson-nloglik"; /* the Tweedie of power 1 is the Poisson; its nloglik@1 divides by 0 */
        break;
    case GBT_OBJ_REG_SQUAREDLOGERROR: name = "rmsle"; break;
    case GBT_OBJ_REG_PSEUDOHUBERERROR: name = "mphe"; break;
    case GBT_OBJ_REG_ABSOLUTEERROR: name = "mae"; break;
    case GBT_OBJ_REG_QUANTILEERROR: name = "quantile"; break;
    case GBT_OBJ_SURVIVAL_COX: name = "cox-nloglik"; break;
    case GBT_OBJ_SURVIVAL_AFT: name = "aft-nloglik"; break;
    default: name = "rmse"; break;
    }
    snprintf(buf, len, "%s", name);
}

gbt_status gbt__objective_aft_bounds(const gbt_dataset *d, const float **lo, const float **hi)
{
    RETURN_ERROR_IF((d->label_lower == NULL) != (d->label_upper == NULL), GBT_E_INVALID_ARG,
                    "survival:aft: label_%s_bound is set but label_%s_bound is not (set both, "
                    "or neither to take the labels as observed times)",
                    d->label_lower ? "lower" : "upper", d->label_lower ? "upper" : "lower");
    if (d->label_lower) {
        *lo = d->label_lower;
        *hi = d->label_upper;
        return GBT_OK;
    }
    RETURN_ERROR_IF(d->label == NULL, GBT_E_INVALID_ARG,
                    "survival:aft needs label_lower_bound and label_upper_bound (or labels: "
                    "observed times); the data has neither");
    *lo = *hi = d->label;
    return GBT_OK;
}

gbt_status gbt__objective_check_aft(const gbt_dataset *d)
{
    const float *lo, *hi;
    char where[512];
    FORWARD_IF_ERROR(gbt__objective_aft_bounds(d, &lo, &hi));
    for (uint64_t r = 0; r < d->nrow; r++) {
        const char *bad = NULL;
        if (!(lo[r] >= 0.0f)) bad = "the lower bound is negative";
        else if (!(hi[r] >= lo[r])) bad = "the upper bound is below the lower bound";
        else if (lo[r] == hi[r] && !(lo[r] > 0.0f)) bad = "an observed time (lower = upper) must be positive";
        if (bad) {
            gbt__dataset_where(d, r, where, sizeof where);
            return gbt__fail(GBT_E_FORMAT,
                             "%s: survival:aft time interval [%g, %g]: %s (0 <= lower <= upper, "
                             "upper may be inf)", where, (double)lo[r], (double)hi[r], bad);
        }
    }
    return GBT_OK;
}

int gbt__objective_multi_target(int obj)
{
    return !gbt_objective_is_multiclass(obj) && obj != GBT_OBJ_REG_QUANTILEERROR &&
           !gbt__objective_survival(obj) && !gbt_objective_is_ranking(obj);
}

gbt_status gbt__objective_check(int obj, int num_class, const gbt_dataset *d)
{
    const char *name = gbt__objective_name(obj);
    const int T = gbt__dataset_targets(d);
    char where[512];
    RETURN_ERROR_IF(T > 1 && !gbt__objective_multi_target(obj), GBT_E_PARAM,
                    "the labels have %d targets per row, but objective %s takes one label per row "
                    "(multi-target objectives: reg:*, binary:*, count:poisson; not multi:*, "
                    "reg:quantileerror, survival:* or rank:*)", T, name);
    if (gbt_objective_is_multiclass(obj)) {
        RETURN_ERROR_IF(num_class < 2, GBT_E_PARAM, "objective %s needs num_class >= 2 (it is %d)",
                        name, num_class);
    } else {
        RETURN_ERROR_IF(num_class > 1, GBT_E_PARAM,
                        "num_class=%d is set, but objective %s is not multiclass (use multi:softprob)",
                        num_class, name);
    }
    if (obj == GBT_OBJ_SURVIVAL_AFT) return gbt__objective_check_aft(d);
    RETURN_ERROR_IF(d->label == NULL, GBT_E_INVALID_ARG, "the training data has no labels");
    for (uint64_t i = 0; i < d->nrow * (uint64_t)T; i++) {
        const uint64_t r = i / (uint64_t)T;
        float y = d->label[i];
        const char *bad = NULL, *hint = "";
        switch (obj) {
        case GBT_OBJ_REG_LOGISTIC:
            if (!(y >= 0.0f && y <= 1.0f)) bad = "is outside [0, 1]";
            break;
        case GBT_OBJ_BINARY_LOGISTIC:
        case GBT_OBJ_BINARY_LOGITRAW:
        case GBT_OBJ_BINARY_HINGE:
            if (y != 0.0f && y != 1.0f) {
                bad = "is not 0 or 1";
                hint = "; binary objectives take labels 0 and 1: map -1/+1 labels to 0/1 "
                       "with (y + 1) / 2, or use multi:softprob with num_class for more classes";
            }
            break;
        case GBT_OBJ_MULTI_SOFTMAX:
        case GBT_OBJ_MULTI_SOFTPROB:
            if (!(y >= 0.0f) || y != floorf(y)) bad = "is not a class number 0, 1, 2, ...";
            else if (y >= (float)num_class) bad = "is not below num_class";
            break;
        case GBT_OBJ_COUNT_POISSON:
        case GBT_OBJ_REG_TWEEDIE:
            if (!(y >= 0.0f)) bad = "is negative (the labels must be counts or amounts >= 0)";
            break;
        case GBT_OBJ_REG_GAMMA:
            if (!(y > 0.0f)) bad = "is not positive (gamma regression needs labels > 0)";
            break;
        case GBT_OBJ_REG_SQUAREDLOGERROR:
            if (!(y > -1.0f)) bad = "is not above -1 (the loss takes log(1 + label))";
            break;
        case GBT_OBJ_SURVIVAL_COX:
            if (y == 0.0f)
                bad = "is 0 (survival:cox takes the time of an event as a positive label, "
                      "the time of a censoring as a negative one)";
            break;
        default:
            break;
        }
        if (bad) {
            char target[32] = "";
            if (T > 1) snprintf(target, sizeof target, " (target %d)", (int)(i % (uint64_t)T));
            gbt__dataset_where(d, r, where, sizeof where);
            return gbt__fail(GBT_E_FORMAT, "%s: label %g%s %s for %s%s", where, (double)y, target, bad, name,
                             hint);
        }
    }
    return GBT_OK;
}

struct wlabel {
    float y;
    double w;
};

static int by_label(const void *a, const void *b)
{
    const float x = ((const struct wlabel *)a)->y, y = ((const struct wlabel *)b)->y;
    return (x > y) - (x < y);
}

/* The weighted median of d's labels: the least label whose rows and those below weigh half. */
static gbt_status weighted_median(const gbt_dataset *d, double *out)
{
    struct wlabel *v;
    double total = 0.0, run = 0.0;
    uint64_t r = 0;
    FORWARD_IF_ERROR(gbt__alloc(&v, d->nrow, sizeof *v, 0, "labels"));
    for (uint64_t i = 0; i < d->nrow; i++) {
        v[i].y = d->label[i];
        v[i].w = d->weight ? d->weight[i] : 1.0;
        total += v[i].w;
    }
    qsort(v, d->nrow, sizeof *v, by_label);
    while (r + 1 < d->nrow && (run += v[r].w) < 0.5 * total) r++;
    *out = d->nrow ? v[r].y : 0.0;
    free(v);
    return GBT_OK;
}

/*
 * base_score=auto of a one-output objective: the constant that minimises
 * the objective's loss over d where that has a closed form (the weighted
 * label mean; for reg:squaredlogerror exp(mean log(1 + y)) - 1), the
 * weighted median for reg:pseudohubererror, 0 for binary:hinge (the
 * decision boundary) and for the ranking objectives.
 */
static gbt_status auto_base_score(int obj, double scale_pos, const gbt_dataset *d, double *out)
{
    const int logistic = gbt__objective_logit_link(obj);
    const double none = logistic ? 0.5 : gbt__objective_log_link(obj) ? 1.0 : 0.0;
    double sw = 0.0, swy = 0.0;
    *out = none;
    if (obj == GBT_OBJ_SURVIVAL_COX || obj == GBT_OBJ_SURVIVAL_AFT) {
        *out = obj == GBT_OBJ_SURVIVAL_COX ? 1.0 : 0.5; /* XGBoost's: a hazard ratio of 1; a time of 0.5 */
        return GBT_OK;
    }
    if (d == NULL || d->nrow == 0 || obj == GBT_OBJ_BINARY_HINGE) return GBT_OK;
    if (gbt_objective_is_ranking(obj)) return GBT_OK; /* scores only order a query's rows: 0 */
    if (obj == GBT_OBJ_REG_PSEUDOHUBERERROR) return weighted_median(d, out);
    for (uint64_t r = 0; r < d->nrow; r++) {
        double w = gbt_row_weight(d->label[r], d->weight ? d->weight[r] : 1.0, scale_pos);
        sw += w;
        swy += w * (obj == GBT_OBJ_REG_SQUAREDLOGERROR ? log1p(d->label[r]) : d->label[r]);
    }
    if (sw > 0) *out = obj == GBT_OBJ_REG_SQUAREDLOGERROR ? expm1(swy / sw) : swy / sw;
    return GBT_OK;
}

/* Each group's quantile op->alpha[k] of d's labels (weighted when d has weights). */
static gbt_status label_quantiles(const struct gbt_obj_param *op, int K, const gbt_dataset *d,
                                  double *out)
{
    struct gbt_wvalue *v;
    FORWARD_IF_ERROR(gbt__alloc(&v, d->nrow, sizeof *v, 0, "labels"));
    for (uint64_t r = 0; r < d->nrow; r++) {
        v[r].v = d->label[r];
        v[r].w = d->weight ? d->weight[r] : 1.0;
    }
    gbt__quantile_sort(v, d->nrow);
    for (int k = 0; k < K; k++) out[k] = gbt__quantile(op->alpha[k], v, d->nrow, d->weight != NULL);
    free(v);
    return GBT_OK;
}

/*
 * One output's starting score from base_score v (NaN: estimated from d's
 * labels).  A logistic objective's base_score may be 0 or 1 (a degenerate
 * estimate, all labels alike, as XGBoost allows it): it is clamped to
 * [1e-6, 1 - 1e-6] as an estimate is.
 */
static gbt_status one_base_margin(int obj, double v, double scale_pos, const gbt_dataset *d, double *out)
{
    const int logistic = gbt__objective_logit_link(obj);
    const int log_link = gbt__objective_log_link(obj);
    if (isnan(v)) {
        FORWARD_IF_ERROR(auto_base_score(obj, scale_pos, d, &v));
        if (log_link && v < 1e-6) v = 1e-6;
    } else if (logistic) {
        RETURN_ERROR_IF(!(v >= 0.0 && v <= 1.0), GBT_E_PARAM, "base_score=%g must lie in [0, 1] for %s", v,
                        gbt__objective_name(obj));
    } else if (log_link) {
        RETURN_ERROR_IF(!(v > 0.0), GBT_E_PARAM,
                        "base_score=%g must be positive for %s (it is a mean; the raw score is its log)", v,
                        gbt__objective_name(obj));
    } else if (obj == GBT_OBJ_REG_SQUAREDLOGERROR) {
        RETURN_ERROR_IF(!(v > -1.0), GBT_E_PARAM, "base_score=%g must be above -1 for %s", v,
                        gbt__objective_name(obj));
    }
    if (logistic) {
        if (v < 1e-6) v = 1e-6;
        if (v > 1 - 1e-6) v = 1 - 1e-6;
    }
    *out = logistic ? log(v / (1.0 - v)) : log_link ? log(v) : v;
    return GBT_OK;
}

/* The centred log of the weighted class frequencies of d (multiclass). */
static gbt_status class_base_margins(int K, const gbt_dataset *d, double *out)
{
    double *freq, mean = 0.0, total = 0.0;
    FORWARD_IF_ERROR(gbt__alloc(&freq, (size_t)K, sizeof *freq, 1, "class frequencies"));
    for (uint64_t r = 0; r < d->nrow; r++) {
        double w = d->weight ? d->weight[r] : 1.0;
        freq[(int)d->label[r]] += w;
        total += w;
    }
    for (int k = 0; k < K; k++) {
        double p = total > 0 ? freq[k] / total : 1.0 / K;
        if (p < 1e-16) p = 1e-16;
        out[k] = log(p);
        mean += out[k];
    }
    mean /= K;
    for (int k = 0; k < K; k++) out[k] -= mean;
    free(freq);
    return GBT_OK;
}

gbt_status gbt__objective_base_margin(int obj, int K, const double *given, int ngiven,
                                      const struct gbt_obj_param *op, const gbt_dataset *d, double *out)
{
    const int T = d != NULL ? gbt__dataset_targets(d) : 1;
    gbt_dataset col;
    float *y = NULL;
    gbt_status s = GBT_OK;
    RETURN_ERROR_IF(ngiven > 1 && ngiven != K, GBT_E_PARAM,
                    "base_score has %d values; the model has %d output(s) (%s): give one value for all or one "
                    "per output", ngiven, K, gbt_objective_is_multiclass(obj) ? "classes" : "targets");
    const int refits = gbt_objective_refits_leaves(obj);
    if (gbt_objective_is_multiclass(obj) || (refits && T == 1)) {
        /* multiclass: raw scores, as XGBoost takes them; quantiles: the labels' scale */
        for (int k = 0; k < K; k++) out[k] = ngiven ? given[ngiven > 1 ? k : 0] : 0.0;
        if (ngiven || d == NULL || d->nrow == 0) return GBT_OK;
        return refits ? label_quantiles(op, K, d, out) : class_base_margins(K, d, out);
    }
    if (T > 1) { /* each target's from its own labels (XGBoost 3's vector intercept) */
        FORWARD_IF_ERROR(gbt__alloc(&y, d->nrow ? d->nrow : 1, sizeof *y, 0, "a target's labels"));
        col = *d; /* a read-only view of d with target k's labels */
        col.label = y;
        col.ntarget = 0;
    }
    for (int k = 0; k < K && s == GBT_OK; k++) {
        if (y)
            for (uint64_t r = 0; r < d->nrow; r++) y[r] = d->label[r * (uint64_t)T + (uint64_t)k];
        /* the outputs of a one-target model (or of one loaded without data) start alike */
        const double v = ngiven ? given[ngiven > 1 ? k : 0] : NAN;
        if (k > 0 && !y && ngiven <= 1) out[k] = out[0];
        else if (refits && isnan(v) && d->nrow > 0) s = label_quantiles(op, 1, &col, out + k); /* alpha[0] */
        else if (refits) out[k] = isnan(v) ? 0.0 : v;
        else s = one_base_margin(obj, v, op->scale_pos, y ? &col : d, out + k);
    }
    free(y);
    return s;
}

int gbt__objective_outputs(int obj, int K, unsigned flags)
{
    /* one output per quantile or target; multi:softmax's class unless margins are asked for */
    if (obj == GBT_OBJ_MULTI_SOFTMAX && !(flags & GBT_PREDICT_MARGIN)) return 1;
    return K;
}

/* One output of an objective whose outputs are independent (one per target or quantile). */
static float transform_one(int obj, double m)
{
    switch (obj) {
    case GBT_OBJ_REG_LOGISTIC:
    case GBT_OBJ_BINARY_LOGISTIC: return (float)gbt_sigmoid(m);
    case GBT_OBJ_COUNT_POISSON:
    case GBT_OBJ_REG_GAMMA:
    case GBT_OBJ_REG_TWEEDIE:
    case GBT_OBJ_SURVIVAL_COX:
    case GBT_OBJ_SURVIVAL_AFT: return (float)gbt_exp(m);
    case GBT_OBJ_BINARY_HINGE: return m > 0.0 ? 1.0f : 0.0f;
    default: return (float)m;
    }
}

void gbt__objective_transform(int obj, int K, const double *m, unsigned flags, float *out)
{
    if (flags & GBT_PREDICT_MARGIN) {
        for (int k = 0; k < K; k++) out[k] = (float)m[k];
        return;
    }
    if (obj == GBT_OBJ_MULTI_SOFTMAX) {
        int best = 0;
        for (int k = 1; k < K; k++)
            if (m[k] > m[best]) best = k;
        out[0] = (float)best;
    } else if (obj == GBT_OBJ_MULTI_SOFTPROB) {
        double mx = m[0], sum = 0.0;
        for (int k = 1; k < K; k++)
            if (m[k] > mx) mx = m[k];
        for (int k = 0; k < K; k++) sum += gbt_exp(m[k] - mx);
        for (int k = 0; k < K; k++) out[k] = (float)(gbt_exp(m[k] - mx) / sum);
    } else {
        for (int k = 0; k < K; k++) out[k] = transform_one(obj, m[k]);
    }
}
