/*
 * linear.h - a linear model's (booster=gblinear, model.h's weights) raw
 * scores and contributions on the host (linear.c).
 */
#ifndef GBT_MODEL_LINEAR_H
#define GBT_MODEL_LINEAR_H

#include <stdint.h>

#include "data/dataset.h"
#include "model/model.h"

/* margin (nrow * K) := each row's raw scores: its starting score, the bias and sum x * w (in float). */
void gbt__linear_margins(const struct gbt_model *m, const struct gbt_dview *v, int nthread, double *margin);

/*
 * XGBoost's contributions of a linear model: per row and output,
 * num_feature + 1 floats, x * w of each present feature (0 where missing)
 * and last the bias plus the starting score.
 */
void gbt__linear_contribs(const struct gbt_model *m, const struct gbt_dview *v, int nthread, float *out);

#endif
