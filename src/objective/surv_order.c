/*
 * surv_order.c - the row order of survival:cox (see surv_order.h).
 */
#include <math.h>
#include <stdlib.h>

#include "objective/surv_order.h"
#include "util/util.h"

struct keyed {
    float t;
    uint32_t row;
};

static int by_time_then_row(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

gbt_status gbt__surv_order(const float *label, uint64_t n, uint32_t **out)
{
    struct keyed *k;
    uint32_t *order;
    FORWARD_IF_ERROR(gbt__alloc(&k, n ? n : 1, sizeof *k, 0, "survival order"));
    if (gbt__alloc(&order, n ? n : 1, sizeof *order, 0, "survival order") != GBT_OK) {
        free(k);
        return GBT_E_NO_MEMORY;
    }
    for (uint64_t r = 0; r < n; r++) {
        k[r].t = fabsf(label[r]);
        k[r].row = (uint32_t)r;
    }
    qsort(k, n, sizeof *k, by_time_then_row);
    for (uint64_t r = 0; r < n; r++) order[r] = k[r].row;
    free(k);
    *out = order;
    return GBT_OK;
}
