/*
 * metric.h - evaluation metrics, computed on the host from raw scores in a
 * fixed order (fixed-size blocks summed in block order), so a metric, and
 * early stopping with it, never depends on the thread count or device.
 */
#ifndef GBT_METRIC_H
#define GBT_METRIC_H

#include <stdint.h>

#include "gbt.h"

enum gbt_metric_id {
    GBT_METRIC_RMSE,
    GBT_METRIC_MAE,
    GBT_METRIC_LOGLOSS,
    GBT_METRIC_ERROR,
    GBT_METRIC_AUC,
    GBT_METRIC_MLOGLOSS,
    GBT_METRIC_MERROR,
    GBT_METRIC_RMSLE,
    GBT_METRIC_MAPE,
    GBT_METRIC_MPHE,
    GBT_METRIC_POISSON_NLOGLIK,
    GBT_METRIC_GAMMA_NLOGLIK,
    GBT_METRIC_GAMMA_DEVIANCE,
    GBT_METRIC_TWEEDIE_NLOGLIK,
    GBT_METRIC_QUANTILE,
    GBT_METRIC_COX_NLOGLIK,   /* survival: metric_surv.c */
    GBT_METRIC_AFT_NLOGLIK,
    GBT_METRIC_INTERVAL_ACC,
    /* metric_rank.c: per query group */
    GBT_METRIC_NDCG,
    GBT_METRIC_MAP,
    GBT_METRIC_PRE,
    GBT_METRIC_AUCPR
};

struct gbt_metric {
    int id;
    double threshold;   /* error@T; 0.5 by default */
    double rho;         /* tweedie-nloglik@rho */
    double huber_slope; /* mphe: the booster's huber_slope; 1 by default */
    int maximize;       /* higher is better */
    /* quantile: the booster's quantile_alpha, one per raw score (NULL: 0.5) */
    const double *alpha;
    int nalpha;
    int aft_dist;       /* aft-nloglik: the booster's aft_loss_distribution */
    double aft_sigma;   /* aft-nloglik: the booster's aft_loss_distribution_scale; 1 by default */
    uint32_t topk;      /* ndcg@k, map@k, pre@k: k; 0: every position */
    int minus;          /* ndcg@k-, map@k-: a query without relevant documents scores 0, not 1 */
    int exp_gain;       /* ndcg: gain 2^y - 1 (1) or y (0); the booster's ndcg_exp_gain */
};

/* Parses "auc", "error@0.3", "tweedie-nloglik@1.5", ...; out may be NULL to only validate. */
gbt_status gbt__metric_parse(const char *name, struct gbt_metric *out);

/* Every metric name, '|'-separated, for help texts. */
const char *gbt__metric_names(void);

/*
 * The metric of raw scores `margin` (nrow x K) under objective `obj`
 * against labels and optional weights.  NaN when undefined (AUC with one
 * class, zero total weight).
 */
gbt_status gbt__metric_eval(const struct gbt_metric *m, int obj, int K, const double *margin,
                            const float *label, const float *weight, uint64_t nrow, int nthread,
                            double *out);

/* 1 for cox-nloglik, aft-nloglik and interval-regression-accuracy (gbt__metric_surv_eval). */
int gbt__metric_survival(int id);

/*
 * A survival metric of raw scores `margin` (nrow values) against d's
 * labels (cox-nloglik) or time intervals (aft-nloglik and
 * interval-regression-accuracy: label_lower_bound and label_upper_bound,
 * else the labels as observed times), computed in a fixed order:
 *   cox-nloglik   the negative log of Breslow's partial likelihood per event
 *                 of the hazard ratios exp(margin) (unweighted, as XGBoost)
 *   aft-nloglik   the weighted mean of the AFT loss (common/surv_math.h)
 *   interval-regression-accuracy
 *                 the weighted fraction of rows whose exp(margin) lies in
 *                 [lower, upper]
 */
gbt_status gbt__metric_surv_eval(const struct gbt_metric *m, const gbt_dataset *d,
                                 const double *margin, double *out);

/*
 * metric_rank.c: parses ndcg, ndcg@k, ndcg@k-, ndcg-, map (the same forms),
 * pre@k and aucpr into *out (NULL: only validate).  Returns 1 when name is
 * one of them (*status says whether it parsed), 0 otherwise.
 */
int gbt__metric_rank_parse(const char *name, struct gbt_metric *out, gbt_status *status);

/* 1 for the metrics that metric_rank.c computes (ndcg, map, pre, aucpr). */
int gbt__metric_is_rank(int id);

/*
 * The metric over query groups (group g is rows [group_ptr[g],
 * group_ptr[g + 1]); group_ptr NULL: one group of all rows), in group
 * order on one thread: ndcg, map, pre, aucpr, and auc per group; each
 * group weighs the weight of its first row (XGBoost weighs groups).
 */
gbt_status gbt__metric_rank_eval(const struct gbt_metric *m, const double *margin,
                                 const float *label, const float *weight,
                                 const uint32_t *group_ptr, uint64_t ngroups, uint64_t nrow,
                                 double *out);

/*
 * The one dispatcher of a metric on dataset d (metric.c): the survival
 * metrics by gbt__metric_surv_eval (K 1), the ranking metrics per query
 * group (one group without groups), auc per group when d has more than
 * one, and gbt__metric_eval otherwise.
 */
struct gbt_dataset;
gbt_status gbt__metric_eval_data(const struct gbt_metric *m, int obj, int K, const double *margin,
                                 const struct gbt_dataset *d, int nthread, double *out);

#endif
