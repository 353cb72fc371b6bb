/*
 * dart.h - booster=dart's rounds (dart.c): the trees a round drops, the
 * training margins without them, and the weights after the round.
 */
#ifndef GBT_DART_H
#define GBT_DART_H

#include "train/booster.h"

/* Warns when dart's parameters are set for booster=gbtree (as XGBoost warns). */
void gbt__dart_warn_unused(const struct gbt_params *p);

/*
 * Before a round's gradients (once per round; nothing outside dart):
 * draws the trees the round drops and gives the backend the margins of
 * the trees it keeps, each times its weight.  Needs train's raw values
 * when a tree is dropped or was in the rounds before.
 */
gbt_status gbt__dart_prepare(gbt_booster *b, const gbt_dataset *train);

/* After the round's trees (from index before on): their weights and the dropped trees' (dart.c). */
gbt_status gbt__dart_finish(gbt_booster *b, uint32_t before);

#endif
