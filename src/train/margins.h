/*
 * margins.h - a booster's raw scores on data and the checks of data
 * against its model (margins.c).
 */
#ifndef GBT_MARGINS_H
#define GBT_MARGINS_H

#include <stdint.h>

#include "train/booster.h"

/*
 * Fewer rows than this are predicted on the host even for a CUDA booster:
 * a device call costs a stream, buffers and copies, more than the host
 * needs for a small batch, and both give the same bits.
 */
#define GBT_DEVICE_PREDICT_MIN_ROWS 1024

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

/*
 * A dataset that holds only bins (d->binned_only) is routed by the trees
 * [t0, t1) on its codes when every numeric split threshold is one of its
 * cuts (or the -FLT_MAX of a split after the last bin) and every
 * categorical split is on one of its categorical features; otherwise
 * GBT_E_INVALID_ARG says which split is not (a linear model always).
 */
gbt_status gbt__booster_check_bins(const gbt_booster *b, const gbt_dataset *d, uint32_t t0, uint32_t t1);

/* Rows a block of such a dataset is turned into values for: about 16 MB of floats, a device batch at least. */
uint64_t gbt__binned_block_rows(const gbt_dataset *d);

/*
 * Rows [r0, r0 + n) of such a dataset as values in buf (n * ncol floats)
 * and the dense view *v of them, with their base margins (K a row); the
 * codes of pages on disk are read for it (a stale or corrupt page: its
 * error).
 */
gbt_status gbt__binned_view(const gbt_dataset *d, uint64_t r0, uint64_t n, int K, float *buf, struct gbt_dview *v);

/* margin (nrow * K) += the raw scores of the trees [t0, t1) on d, on the host (bins checked). */
gbt_status gbt__booster_add_margins(const gbt_booster *b, const gbt_dataset *d, uint32_t t0, uint32_t t1,
                                    double *margin);

/* The raw scores of the whole model on d (checked against the model), in a new nrow * K array. */
gbt_status gbt__booster_eval_margins(const gbt_booster *b, const gbt_dataset *d, double **out);

#endif
