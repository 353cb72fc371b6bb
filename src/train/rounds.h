/*
 * rounds.h - what happens around a boosting round, shared by the training
 * loop (gbt_booster_train) and callers that drive the rounds themselves
 * (gbt_booster_update with gbt_booster_eval_round, the Python package):
 * the metric list, raw scores of evaluation sets kept between rounds and
 * advanced by the new trees only, the metrics of one set, and recording
 * the best round.
 */
#ifndef GBT_ROUNDS_H
#define GBT_ROUNDS_H

#include <stdint.h>

#include "train/booster.h"
#include "metric/metric.h"

/* The metrics of an evaluation: eval_metric's (or the objective's default), then the custom one. */
struct gbt_metric_list {
    struct gbt_metric ms[GBT_MAX_METRICS];
    char names[GBT_MAX_METRICS + 1][64];
    int maximize[GBT_MAX_METRICS + 1];
    int n;     /* built-in metrics: ms[0 .. n) */
    int total; /* n, plus 1 with a custom metric (gbt_booster_set_eval_callback) */
};

gbt_status gbt__metric_list(const gbt_booster *b, struct gbt_metric_list *out);

/*
 * Brings c's raw scores of d up to the model's trees: every tree when c is
 * empty, d changed or the model lost trees since (its epoch moved), else
 * the trees added since the last call only.
 */
gbt_status gbt__eval_cache_sync(const gbt_booster *b, struct gbt_eval_cache *c, const gbt_dataset *d);

/* Every metric of ml on c's set (synced), in order, into out[0 .. ml->total). */
gbt_status gbt__eval_cache_metrics(const gbt_booster *b, const struct gbt_eval_cache *c,
                                   const struct gbt_metric_list *ml, double *out);

/* One built-in metric of raw scores `margin` on d (the survival ones read d's times). */
gbt_status gbt__eval_metric(const gbt_booster *b, const struct gbt_metric *m, const gbt_dataset *d,
                            const double *margin, double *out);


/* The booster's own caches (gbt_booster_eval_round), freed with it. */
void gbt__booster_eval_caches_free(gbt_booster *b);

#endif
