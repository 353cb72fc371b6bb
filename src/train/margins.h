/*
 * margins.h - a booster's raw scores on data and the checks of data
 * against its model (margins.c).
 */
#ifndef GBT_MARGINS_H
#define GBT_MARGINS_H

#include <stdint.h>

#include "train/bins.h"
#include "train/booster.h"

/*
 * The raw scores of the trees [t0, t1) for v computed on the booster's CUDA
 * device, when its `device` parameter resolves to one, the backend predicts
 * there and the batch is large enough: *out is a new nrow * K array.
 * Otherwise *out is NULL and the caller walks the trees on the host.
 */
gbt_status gbt__booster_device_margins(const gbt_booster *b, const struct gbt_dview *v, uint32_t t0,
                                      uint32_t t1, double **out);

/* Data to predict must have the model's features (all of them when dense, no more when sparse). */
gbt_status gbt__booster_check_features(const struct gbt_model *m, uint64_t ncol, int dense);

/* A LIBSVM file guessed one-based only for a model trained on a one-based file. */
gbt_status gbt__booster_check_index_base(const struct gbt_model *m, const gbt_dataset *d);

/* The raw scores of the whole model on d (checked against the model), in a new nrow * K array. */
gbt_status gbt__booster_eval_margins(const gbt_booster *b, const gbt_dataset *d, double **out);

#endif
