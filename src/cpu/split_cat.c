/*
 * split_cat.c - the best split of a categorical feature in a node's
 * histogram on the CPU: gbt_cat_best of common/cat_math.h (the one
 * definition the CUDA backend runs too) on the feature's bins.
 */
#include "common/cat_math.h"
#include "cpu/cpu.h"

void gbt__cpu_best_of_cat(const struct gbt_cuts *cuts, const struct gbt_hbin *h, uint32_t f,
                          const struct gbt_split_job *job, double parent_gain, const struct gbt_split_params *p,
                          struct gbt_cat_entry *order, struct gbt_split *best, uint32_t *bits)
{
    gbt_cat_best(h + cuts->offset[f], cuts->nbins[f], (int32_t)f, job->total, job->lower, job->upper, parent_gain,
                 p, order, best, bits);
}
