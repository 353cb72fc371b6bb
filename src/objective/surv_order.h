/*
 * surv_order.h - the row order of survival:cox: by |label| ascending, ties
 * by row number, so that the order (and with it the Breslow sums) is the
 * same on every run, thread count and backend.
 */
#ifndef GBT_SURV_ORDER_H
#define GBT_SURV_ORDER_H

#include <stdint.h>

#include "gbt.h"

/* A new array (free it) of the n row numbers in that order. */
gbt_status gbt__surv_order(const float *label, uint64_t n, uint32_t **out);

#endif
