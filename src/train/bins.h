/*
 * bins.h - a booster's trees over a dataset that holds only bins
 * (bins.c).
 */
#ifndef GBT_BINS_H
#define GBT_BINS_H

#include <stdint.h>

#include "train/booster.h"

/*
 * Fewer rows than this are predicted on the host even for a CUDA booster:
 * a device call costs a stream, buffers and copies, more than the host
 * needs for a small batch, and both give the same bits.
 */
#define GBT_DEVICE_PREDICT_MIN_ROWS 1024

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

/* margin (nrow * K) += the raw scores of the trees [t0, t1) on d, on the host on nthread threads (bins checked). */
gbt_status gbt__booster_add_margins(const gbt_booster *b, const gbt_dataset *d, uint32_t t0, uint32_t t1,
                                    int nthread, double *margin);

#endif
