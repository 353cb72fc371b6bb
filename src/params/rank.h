/*
 * rank.h - the host side of the learning-to-rank objectives: their checks
 * (groups, labels, per-group weights), their resolved parameters and
 * default metrics (the group offsets the backends work on are
 * gbt__dataset_group_ptr, data/dataset.h).  The gradients themselves are in common/rank_math.h.
 */
#ifndef GBT_RANK_H
#define GBT_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "common/types.h"
#include "data/dataset.h"
#include "params/params.h"

/* lambdarank_num_pair_per_sample resolved: auto is 32 for topk, 1 for mean (as XGBoost). */
uint32_t gbt__rank_num_pair(const struct gbt_params *p);

/*
 * Checks d for ranking objective obj: query groups present, every label
 * finite and >= 0 (rank:ndcg with ndcg_exp_gain: an integer <= 31;
 * rank:map: 0 or 1), and row weights equal within each group (XGBoost
 * weighs groups, not rows).  The message names the first offending row.
 */
gbt_status gbt__rank_check(int obj, const struct gbt_params *p, const gbt_dataset *d);

/* Fills the rank_* fields of op from p and d's weights. */
void gbt__rank_obj_param(const struct gbt_params *p, const gbt_dataset *d, struct gbt_obj_param *op);

/* The default metric of a ranking objective: ndcg@k / map@k for topk, ndcg / map for mean. */
void gbt__rank_default_metric(int obj, const struct gbt_params *p, char *buf, size_t len);

#endif
