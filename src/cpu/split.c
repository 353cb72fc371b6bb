/*
 * split.c - the best split of each node: for every allowed feature, a scan
 * over its value bins evaluating the candidates of common/split_math.h,
 * keeping the first in the order gbt_split_before defines.
 */
#include <math.h>

#include "../common/split_math.h"
#include "../error.h"
#include "cpu.h"

static void best_of_node(const struct cpu_ctx *c, const struct gbt_split_job *job,
                         const uint8_t *mask, const struct gbt_split_params *p,
                         struct gbt_split *best)
{
    const struct gbt_cuts *cuts = &c->qm->cuts;
    const struct gbt_hbin *h = c->hist[job->slot];
    const struct gbt_hbin total = job->total;
    const double parent_gain = gbt_node_gain(total, p);
    best->gain = -(double)INFINITY;
    best->feature = -1;
    best->bin = -1;
    best->default_left = 0;
    best->reserved = 0;
    best->left.g = best->left.h = best->right.g = best->right.h = 0;
    for (uint32_t f = 0; f < c->nfeat; f++) {
        const int nb = (int)cuts->nbins[f];
        const struct gbt_hbin *fh = h + cuts->offset[f];
        struct gbt_hbin present = {0, 0}, miss, cum = {0, 0};
        if ((mask && !mask[f]) || !gbt__feature_usable(cuts, f)) continue;
        for (int t = 0; t < nb; t++) {
            present.g += fh[t].g;
            present.h += fh[t].h;
        }
        miss.g = total.g - present.g;
        miss.h = total.h - present.h;
        for (int t = 0; t < nb; t++) {
            cum.g += fh[t].g;
            cum.h += fh[t].h;
            for (int dl = 1; dl >= 0; dl--) {
                struct gbt_hbin l = cum, r;
                double gain;
                if (!gbt_candidate_exists(t, dl, nb)) continue;
                if (dl) {
                    l.g += miss.g;
                    l.h += miss.h;
                }
                r.g = total.g - l.g;
                r.h = total.h - l.h;
                gain = gbt_split_gain(l, r, parent_gain, p);
                if (gain == -(double)INFINITY) continue;
                if (best->feature >= 0 &&
                    !gbt_split_before(gain, (int)f, t, dl, best->gain, best->feature, best->bin,
                                      best->default_left))
                    continue;
                best->gain = gain;
                best->feature = (int32_t)f;
                best->bin = t;
                best->default_left = dl;
                best->left = l;
                best->right = r;
            }
        }
    }
}

gbt_status gbt__cpu_best_splits(void *p, const struct gbt_split_job *jobs, int n,
                                const uint8_t *masks, const struct gbt_split_params *sp,
                                struct gbt_split *out)
{
    struct cpu_ctx *c = p;
    for (int j = 0; j < n; j++)
        RETURN_ERROR_IF(jobs[j].slot < 0 || (uint32_t)jobs[j].slot >= c->max_slots ||
                            c->hist[jobs[j].slot] == NULL,
                        GBT_E_INTERNAL, "split of an empty histogram slot %d", jobs[j].slot);
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->nthread)
    for (int j = 0; j < n; j++)
        best_of_node(c, &jobs[j], masks ? masks + (size_t)j * c->nfeat : NULL, sp, &out[j]);
    return GBT_OK;
}
