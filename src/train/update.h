/*
 * update.h - process_type=update (update.c): each round takes the trees of
 * that round of the model the booster held when updating began, changes
 * them with the updaters (refresh.c, prune.c) and appends them; no tree is
 * grown.  On the host, whatever the device.
 */
#ifndef GBT_UPDATE_H
#define GBT_UPDATE_H

#include "train/booster.h"

/* Drops the booster's update (the trees not updated yet are lost, as in XGBoost). */
void gbt__update_free(gbt_booster *b);

/* What updating needs of the parameters and of train; custom: the gradients come from the caller. */
gbt_status gbt__update_check(const gbt_booster *b, const gbt_dataset *train, int custom);

/*
 * Begins the update when none is under way: the model's trees become the
 * trees to update and the model has none (its best iteration is dropped).
 * rounds >= 0: GBT_E_PARAM when fewer rounds than that are left to update.
 */
gbt_status gbt__update_begin(gbt_booster *b, int rounds);

/* The raw scores of train (nrow * K, row-major) under the trees updated so far. */
gbt_status gbt__update_margins(gbt_booster *b, const gbt_dataset *train, double *out);

/*
 * One round: the next round's trees updated with the gradients grad and
 * hess (nrow * K, row-major; NULL: the objective's at the raw scores of
 * gbt__update_margins) and appended to the model.
 */
gbt_status gbt__update_round(gbt_booster *b, const gbt_dataset *train, const double *grad, const double *hess);

#endif
