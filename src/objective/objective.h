/*
 * objective.h - what an objective means on the host: which labels it
 * accepts, its starting score, its default metric and how raw scores
 * become predictions.  Per-row gradients live in common/grad_math.h.
 */
#ifndef GBT_OBJECTIVE_H
#define GBT_OBJECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "common/types.h"
#include "data/dataset.h"

/* The objective's name ("binary:logistic"), "?" outside the objectives. */
const char *gbt__objective_name(int obj);

/*
 * Raw scores per row: num_class for multiclass objectives, num_alpha (the
 * quantiles of quantile_alpha) for reg:quantileerror, else 1.
 */
int gbt__objective_groups(int obj, int num_class, int num_alpha);

/* 1 for the objectives whose raw score is a logit: reg:logistic, binary:logistic, binary:logitraw. */
int gbt__objective_logit_link(int obj);

/*
 * 1 for the objectives whose prediction is exp(raw score): count:poisson,
 * reg:gamma, reg:tweedie, survival:cox (hazard ratios), survival:aft (times).
 */
int gbt__objective_log_link(int obj);

/* 1 for survival:cox and survival:aft, whose gradients the host computes (booster.c). */
int gbt__objective_survival(int obj);

/*
 * survival:aft's time intervals of d: label_lower_bound and
 * label_upper_bound, or, when neither is set, the labels as both (observed
 * times).  GBT_E_INVALID_ARG when only one bound is set or nothing is.
 */
gbt_status gbt__objective_aft_bounds(const gbt_dataset *d, const float **lo, const float **hi);

/* Checks survival:aft's intervals: 0 <= lower <= upper, lower > 0 when they are equal. */
gbt_status gbt__objective_check_aft(const gbt_dataset *d);

/* The metric used when eval_metric is empty ("tweedie-nloglik@1.5" names rho). */
void gbt__objective_default_metric(int obj, double tweedie_rho, char *buf, size_t len);

/*
 * 1 for the objectives that take several labels per row (multi-target:
 * output k fits target k's labels with the one-output gradients).
 */
int gbt__objective_multi_target(int obj);

/* Checks the objective's configuration (num_class), d's targets and every label of d. */
gbt_status gbt__objective_check(int obj, int num_class, const gbt_dataset *d);

/*
 * The initial raw score of each of the K outputs: from base_score when it is
 * given (ngiven values: 1 for every output or K, one each; a multiclass
 * model's are raw scores, as XGBoost takes them; a logistic one's may be 0
 * or 1 and is then clamped to [1e-6, 1 - 1e-6]), else (ngiven 0) from the
 * labels, each target's from its own: the weighted mean (as a logit for
 * the logistic objectives, a log for the log-link ones; rows labelled 1
 * weigh scale_pos times their weight, as in the gradients), for
 * reg:squaredlogerror exp(mean log(1 + y)) - 1, for reg:pseudohubererror
 * the weighted median, for binary:hinge 0, for reg:absoluteerror and
 * reg:quantileerror each group's quantile op->alpha[k] of the labels (as
 * leaf_refit.h computes quantiles), for survival:cox log 1 and for
 * survival:aft log 0.5 (XGBoost's), or, for multiclass, the centred log of
 * the weighted class frequencies.  op gives scale_pos and the quantiles.
 */
gbt_status gbt__objective_base_margin(int obj, int K, const double *given, int ngiven,
                                      const struct gbt_obj_param *op, const gbt_dataset *d, double *out);

/* Floats a prediction writes per row. */
int gbt__objective_outputs(int obj, int K, unsigned flags);

/* Turns one row's K raw scores into its outputs (see gbt_booster_predict). */
void gbt__objective_transform(int obj, int K, const double *margin, unsigned flags, float *out);

#endif
