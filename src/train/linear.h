/*
 * linear.h - booster=gblinear's training (linear.c): set-up on a dataset
 * and one round of coordinate descent.
 */
#ifndef GBT_TRAIN_LINEAR_H
#define GBT_TRAIN_LINEAR_H

#include "train/booster.h"

struct gbt_linear_cols;
void gbt__linear_cols_free(struct gbt_linear_cols *c);

/* gbt__booster_build_state for booster=gblinear: the checks, the model, the data by column. */
gbt_status gbt__linear_setup(gbt_booster *b, const gbt_dataset *train);

/* One round: the caller's gradients (grad, hess: nrow * K, row-major) or, when NULL, the objective's. */
gbt_status gbt__linear_round(gbt_booster *b, const gbt_dataset *train, const double *grad, const double *hess);

/* The training rows' raw scores (nrow * K) under the model as it is. */
gbt_status gbt__linear_train_margins(const gbt_booster *b, const gbt_dataset *train, double *out);

#endif
