/*
 * split.c - the best split of each node: for every allowed feature, a scan
 * over its value bins evaluating the candidates of common/split_math.h.
 * Nodes and features are scanned in parallel; each node then keeps the
 * first of its features' winners by gbt_split_before, a total order, so
 * the result does not depend on the threads.
 */
#include <math.h>
#include <stdlib.h>

#include "../common/split_math.h"
#include "../error.h"
#include "../util.h"
#include "cpu.h"

static void no_split(struct gbt_split *s)
{
    s->gain = -(double)INFINITY;
    s->feature = -1;
    s->bin = -1;
    s->default_left = 0;
    s->reserved = 0;
    s->left.g = s->left.h = s->right.g = s->right.h = 0;
}

/* Whether candidate s comes before best (which may hold no split). */
static int before(const struct gbt_split *s, const struct gbt_split *best)
{
    return best->feature < 0 || gbt_split_before(s->gain, s->feature, s->bin, s->default_left, best->gain,
                                                 best->feature, best->bin, best->default_left);
}

/* The best candidate of feature f in a node's histogram h. */
static void best_of_feature(const struct gbt_cuts *cuts, const struct gbt_hbin *h, uint32_t f,
                            struct gbt_hbin total, double parent_gain, const struct gbt_split_params *p,
                            struct gbt_split *best)
{
    const int nb = (int)cuts->nbins[f];
    const struct gbt_hbin *fh = h + cuts->offset[f];
    struct gbt_hbin present = {0, 0}, miss, cum = {0, 0};
    no_split(best);
    for (int t = 0; t < nb; t++) {
        present.g += fh[t].g;
        present.h += fh[t].h;
    }
    miss.g = total.g - present.g;
    miss.h = total.h - present.h;
    /*
     * Without missing rows both sides of a bin have the same sums, so the
     * same gain, and missing-left wins the tie: only it needs scoring (and
     * the last bin then leaves nothing on the right).
     */
    const int dl_last = (miss.g == 0 && miss.h == 0) ? 1 : 0;
    for (int t = 0; t < nb; t++) {
        cum.g += fh[t].g;
        cum.h += fh[t].h;
        for (int dl = 1; dl >= dl_last; dl--) {
            struct gbt_split s;
            if (!gbt_candidate_exists(t, dl, nb)) continue;
            s.left = cum;
            if (dl) {
                s.left.g += miss.g;
                s.left.h += miss.h;
            }
            s.right.g = total.g - s.left.g;
            s.right.h = total.h - s.left.h;
            s.gain = gbt_split_gain(s.left, s.right, parent_gain, p);
            if (s.gain == -(double)INFINITY) continue;
            s.feature = (int32_t)f;
            s.bin = t;
            s.default_left = dl;
            s.reserved = 0;
            if (before(&s, best)) *best = s;
        }
    }
}

gbt_status gbt__cpu_best_splits(void *ctx, const struct gbt_split_job *jobs, int n,
                                const uint8_t *masks, const struct gbt_split_params *sp,
                                struct gbt_split *out)
{
    struct cpu_ctx *c = ctx;
    const struct gbt_cuts *cuts = &c->qm->cuts;
    const uint32_t nf = c->nfeat;
    struct gbt_split *per = NULL;
    double *parent = NULL;
    uint64_t chunk;
    gbt_status s;
    for (int j = 0; j < n; j++)
        RETURN_ERROR_IF(jobs[j].slot < 0 || (uint32_t)jobs[j].slot >= c->max_slots ||
                            c->hist[jobs[j].slot] == NULL,
                        GBT_E_INTERNAL, "split of an empty histogram slot %d", jobs[j].slot);
    s = gbt__alloc(&per, (size_t)n * nf + 1, sizeof *per, 0, "split candidates");
    if (s == GBT_OK) s = gbt__alloc(&parent, (size_t)n, sizeof *parent, 0, "node gains");
    if (s != GBT_OK) {
        free(per);
        return s;
    }
    for (int j = 0; j < n; j++) parent[j] = gbt_node_gain(jobs[j].total, sp);
    /* items handed out at a time: 64 (dispatch costs), fewer when there are few items */
    chunk = (uint64_t)n * nf / (4 * (uint64_t)c->nthread);
    chunk = chunk < 1 ? 1 : chunk > 64 ? 64 : chunk;
#pragma omp parallel for schedule(dynamic, chunk) num_threads(c->nthread) if ((uint64_t)n * nf > 8)
    for (uint64_t i = 0; i < (uint64_t)n * nf; i++) {
        const int j = (int)(i / nf);
        const uint32_t f = (uint32_t)(i % nf);
        if ((masks && !masks[(size_t)j * nf + f]) || !gbt__feature_usable(cuts, f))
            no_split(&per[i]);
        else
            best_of_feature(cuts, c->hist[jobs[j].slot], f, jobs[j].total, parent[j], sp, &per[i]);
    }
    for (int j = 0; j < n; j++) {
        no_split(&out[j]);
        for (uint32_t f = 0; f < nf; f++) {
            const struct gbt_split *cand = &per[(size_t)j * nf + f];
            if (cand->feature >= 0 && before(cand, &out[j])) out[j] = *cand;
        }
    }
    free(per);
    free(parent);
    return GBT_OK;
}
