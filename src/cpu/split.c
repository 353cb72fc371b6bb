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

/*
 * best_of_feature for the common parameters (alpha = 0, max_delta_step = 0),
 * where a child's gain is gbt_plain_gain (T(G) = G): the same candidates,
 * the same arithmetic and so the same bits, arranged so the divisions
 * vectorise.  Bins go in runs of SCAN_BINS: first the children's sums of
 * every candidate of the run (integer prefix sums, converted as
 * gbt_split_gain converts them), then all their gains at once, then the
 * first best in scan order.
 */
#define SCAN_BINS 128
static void best_of_feature_plain(const struct gbt_cuts *cuts, const struct gbt_hbin *h, uint32_t f,
                                  struct gbt_hbin total, double parent_gain,
                                  const struct gbt_split_params *p, struct gbt_split *best)
{
    const int nb = (int)cuts->nbins[f];
    const struct gbt_hbin *fh = h + cuts->offset[f];
    struct gbt_hbin present = {0, 0}, miss, cum = {0, 0};
    /* candidate 2i: bin t0 + i with missing left; 2i + 1: missing right */
    double lg[2 * SCAN_BINS], lh[2 * SCAN_BINS], rg[2 * SCAN_BINS], rh[2 * SCAN_BINS], gain[2 * SCAN_BINS];
    const double lambda = p->lambda, mcw = p->min_child_weight;
    double best_gain = -(double)INFINITY;
    int best_c = -1;
    no_split(best);
    for (int t = 0; t < nb; t++) {
        present.g += fh[t].g;
        present.h += fh[t].h;
    }
    miss.g = total.g - present.g;
    miss.h = total.h - present.h;
    const int dl_last = (miss.g == 0 && miss.h == 0) ? 1 : 0;
    for (int t0 = 0; t0 < nb; t0 += SCAN_BINS) {
        const int n = nb - t0 < SCAN_BINS ? nb - t0 : SCAN_BINS;
        for (int i = 0; i < n; i++) {
            struct gbt_hbin l;
            cum.g += fh[t0 + i].g;
            cum.h += fh[t0 + i].h;
            l.g = cum.g + miss.g;
            l.h = cum.h + miss.h;
            lg[2 * i] = (double)l.g * p->g_unit;
            lh[2 * i] = (double)l.h * p->h_unit;
            rg[2 * i] = (double)(total.g - l.g) * p->g_unit;
            rh[2 * i] = (double)(total.h - l.h) * p->h_unit;
            lg[2 * i + 1] = (double)cum.g * p->g_unit;
            lh[2 * i + 1] = (double)cum.h * p->h_unit;
            rg[2 * i + 1] = (double)(total.g - cum.g) * p->g_unit;
            rh[2 * i + 1] = (double)(total.h - cum.h) * p->h_unit;
        }
#pragma omp simd
        for (int c = 0; c < 2 * n; c++) {
            /* the h > 0 tests of gbt_split_gain: a power-of-two scale keeps the sign */
            const int valid = (lh[c] > 0.0) & (rh[c] > 0.0) & (lh[c] >= mcw) & (rh[c] >= mcw);
            const double g = gbt_plain_gain(lg[c], lh[c], lambda) + gbt_plain_gain(rg[c], rh[c], lambda) - parent_gain;
            gain[c] = valid ? g : -(double)INFINITY;
        }
        for (int c = 0; c < 2 * n; c++) {
            const int t = t0 + c / 2, dl = !(c & 1);
            if (dl < dl_last || !gbt_candidate_exists(t, dl, nb)) continue;
            if (gain[c] > best_gain) {
                best_gain = gain[c];
                best_c = 2 * t + (c & 1);
            }
        }
    }
    if (best_c >= 0) {
        const int t = best_c / 2, dl = !(best_c & 1);
        struct gbt_hbin l = {0, 0};
        for (int i = 0; i <= t; i++) {
            l.g += fh[i].g;
            l.h += fh[i].h;
        }
        if (dl) {
            l.g += miss.g;
            l.h += miss.h;
        }
        best->left = l;
        best->right.g = total.g - l.g;
        best->right.h = total.h - l.h;
        best->gain = best_gain;
        best->feature = (int32_t)f;
        best->bin = t;
        best->default_left = dl;
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
        else if (sp->alpha == 0.0 && sp->max_delta_step == 0.0)
            best_of_feature_plain(cuts, c->hist[jobs[j].slot], f, jobs[j].total, parent[j], sp, &per[i]);
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
