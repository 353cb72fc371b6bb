/*
 * split.c - the best split of each node: for every allowed feature, a scan
 * over its value bins evaluating the candidates of common/split_math.h.
 * Nodes and features are scanned in parallel; each node then keeps the
 * first of its features' winners by gbt_split_before, a total order, so
 * the result does not depend on the threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common/cat_math.h"
#include "common/constraint_math.h"
#include "common/split_math.h"
#include "util/error.h"
#include "util/util.h"
#include "cpu/cpu.h"

static void no_split(struct gbt_split *s)
{
    s->gain = -(double)INFINITY;
    s->feature = -1;
    s->bin = -1;
    s->default_left = 0;
    s->is_cat = 0;
    s->left.g = s->left.h = s->right.g = s->right.h = 0;
}

/* Whether candidate s comes before best (which may hold no split). */
static int before(const struct gbt_split *s, const struct gbt_split *best)
{
    return best->feature < 0 || gbt_split_before(s->gain, s->feature, s->bin, s->default_left, best->gain,
                                                 best->feature, best->bin, best->default_left);
}

/* The sums of a node's rows missing a feature: the total less the feature's nb bins fh. */
static struct gbt_hbin missing_sums(const struct gbt_hbin *fh, int nb, struct gbt_hbin total)
{
    struct gbt_hbin present = {0, 0}, miss;
    for (int t = 0; t < nb; t++) {
        present.g += fh[t].g;
        present.h += fh[t].h;
    }
    miss.g = total.g - present.g;
    miss.h = total.h - present.h;
    return miss;
}

/*
 * The best candidate of feature f in a node's histogram h; with
 * p->monotone, under the job's bounds and f's constraint c.
 */
static void best_of_feature(const struct gbt_cuts *cuts, const struct gbt_hbin *h, uint32_t f,
                            const struct gbt_split_job *job, double parent_gain,
                            const struct gbt_split_params *p, int c, struct gbt_split *best)
{
    const struct gbt_hbin total = job->total;
    const int nb = (int)cuts->nbins[f];
    const struct gbt_hbin *fh = h + cuts->offset[f];
    struct gbt_hbin miss, cum = {0, 0};
    no_split(best);
    miss = missing_sums(fh, nb, total);
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
            s.gain = p->monotone ? gbt_bounded_split_gain(s.left, s.right, parent_gain, p, job->lower,
                                                          job->upper, gbt_candidate_constraint(c, t, dl, nb))
                                 : gbt_split_gain(s.left, s.right, parent_gain, p);
            if (s.gain == -(double)INFINITY) continue;
            s.feature = (int32_t)f;
            s.bin = t;
            s.default_left = dl;
            s.is_cat = 0;
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
 * first best in scan order, without branches.
 */
#define SCAN_BINS 128

struct scan_side {
    double lg[SCAN_BINS], lh[SCAN_BINS], rg[SCAN_BINS], rh[SCAN_BINS], gain[SCAN_BINS];
};

/* The gains of a run's n candidates on one side of missing values. */
static void side_gains(struct scan_side *c, int n, double parent_gain, const struct gbt_split_params *p)
{
    const double lambda = p->lambda, mcw = p->min_child_weight;
#pragma omp simd
    for (int i = 0; i < n; i++) {
        /* the h > 0 tests of gbt_split_gain: a power-of-two scale keeps the sign */
        const int valid = (c->lh[i] > 0.0) & (c->rh[i] > 0.0) & (c->lh[i] >= mcw) & (c->rh[i] >= mcw);
        const double g = gbt_plain_gain(c->lg[i], c->lh[i], lambda) + gbt_plain_gain(c->rg[i], c->rh[i], lambda) -
                         parent_gain;
        c->gain[i] = valid ? g : -(double)INFINITY;
    }
}

static inline void side_sums(struct scan_side *c, int i, struct gbt_hbin l, struct gbt_hbin total,
                             const struct gbt_split_params *p)
{
    c->lg[i] = (double)l.g * p->g_unit;
    c->lh[i] = (double)l.h * p->h_unit;
    c->rg[i] = (double)(total.g - l.g) * p->g_unit;
    c->rh[i] = (double)(total.h - l.h) * p->h_unit;
}

static void best_of_feature_plain(const struct gbt_cuts *cuts, const struct gbt_hbin *h, uint32_t f,
                                  struct gbt_hbin total, double parent_gain,
                                  const struct gbt_split_params *p, struct gbt_split *best)
{
    const int nb = (int)cuts->nbins[f];
    const struct gbt_hbin *fh = h + cuts->offset[f];
    struct gbt_hbin miss, cum = {0, 0};
    struct scan_side ml, mr; /* missing left, missing right */
    double best_gain = -(double)INFINITY;
    int best_t = -1, best_dl = 0;
    no_split(best);
    miss = missing_sums(fh, nb, total);
    /* without missing rows only missing-left is scored (see best_of_feature) */
    const int both = !(miss.g == 0 && miss.h == 0);
    for (int t0 = 0; t0 < nb; t0 += SCAN_BINS) {
        const int n = nb - t0 < SCAN_BINS ? nb - t0 : SCAN_BINS;
        for (int i = 0; i < n; i++) {
            cum.g += fh[t0 + i].g;
            cum.h += fh[t0 + i].h;
            side_sums(&ml, i, (struct gbt_hbin){cum.g + miss.g, cum.h + miss.h}, total, p);
            if (both) side_sums(&mr, i, cum, total, p);
        }
        side_gains(&ml, n, parent_gain, p);
        if (both) side_gains(&mr, n, parent_gain, p);
        if (t0 + n == nb) ml.gain[n - 1] = -(double)INFINITY; /* gbt_candidate_exists */
        for (int i = 0; i < n; i++) {
            int take = ml.gain[i] > best_gain;
            best_gain = take ? ml.gain[i] : best_gain;
            best_t = take ? t0 + i : best_t;
            best_dl = take ? 1 : best_dl;
            if (both) {
                take = mr.gain[i] > best_gain;
                best_gain = take ? mr.gain[i] : best_gain;
                best_t = take ? t0 + i : best_t;
                best_dl = take ? 0 : best_dl;
            }
        }
    }
    if (best_t >= 0) {
        struct gbt_hbin l = {0, 0};
        for (int i = 0; i <= best_t; i++) {
            l.g += fh[i].g;
            l.h += fh[i].h;
        }
        if (best_dl) {
            l.g += miss.g;
            l.h += miss.h;
        }
        best->left = l;
        best->right.g = total.g - l.g;
        best->right.h = total.h - l.h;
        best->gain = best_gain;
        best->feature = (int32_t)f;
        best->bin = best_t;
        best->default_left = best_dl;
    }
}

gbt_status gbt__cpu_best_splits(void *ctx, const struct gbt_split_job *jobs, int n,
                                const uint8_t *masks, const struct gbt_split_params *sp,
                                struct gbt_split *out, uint32_t *cat_sets)
{
    struct cpu_ctx *c = ctx;
    const struct gbt_cuts *cuts = &c->qm->cuts;
    const uint32_t nf = c->nfeat, words = gbt__cuts_cat_words(cuts);
    const int nt = c->nthread;
    struct gbt_split *per = NULL;
    double *parent = NULL;
    /* categorical features: each thread's sets of its best per node, a candidate's set, sort scratch */
    uint32_t *per_bits = NULL, *cand_bits = NULL;
    struct gbt_cat_entry *order = NULL;
    uint64_t chunk;
    gbt_status s;
    for (int j = 0; j < n; j++)
        RETURN_ERROR_IF(jobs[j].slot < 0 || (uint32_t)jobs[j].slot >= c->max_slots ||
                            c->hist[jobs[j].slot] == NULL,
                        GBT_E_INTERNAL, "split of an empty histogram slot %d", jobs[j].slot);
    /*
     * Each thread keeps its best candidate of each node (memory follows
     * threads x nodes, not nodes x features: R3); the order is total, so
     * merging them gives the same winner for any thread count.
     */
    RETURN_ERROR_IF(words > 0 && cat_sets == NULL, GBT_E_INTERNAL, "categorical splits without room for their sets");
    s = gbt__alloc(&per, (size_t)nt * n, sizeof *per, 0, "split candidates");
    if (s == GBT_OK) s = gbt__alloc(&parent, (size_t)n, sizeof *parent, 0, "node gains");
    if (s == GBT_OK && words > 0) {
        s = gbt__alloc(&per_bits, (size_t)nt * n * words, sizeof *per_bits, 0, "category sets");
        if (s == GBT_OK) s = gbt__alloc(&cand_bits, (size_t)nt * words, sizeof *cand_bits, 0, "category sets");
        if (s == GBT_OK) s = gbt__alloc(&order, (size_t)nt * words * 32, sizeof *order, 0, "category order");
    }
    if (s != GBT_OK) {
        free(per);
        free(parent);
        free(per_bits);
        free(cand_bits);
        free(order);
        return s;
    }
    for (size_t i = 0; i < (size_t)nt * n; i++) no_split(&per[i]);
    for (int j = 0; j < n; j++)
        parent[j] = sp->monotone ? gbt_bounded_node_gain(jobs[j].total, sp, jobs[j].lower, jobs[j].upper)
                                 : gbt_node_gain(jobs[j].total, sp);
    /* items handed out at a time: 64 (dispatch costs), fewer when there are few items */
    chunk = (uint64_t)n * nf / (4 * (uint64_t)nt);
    chunk = chunk < 1 ? 1 : chunk > 64 ? 64 : chunk;
#pragma omp parallel num_threads(nt) if ((uint64_t)n * nf > 8)
    {
        struct gbt_split *mine = per;
        size_t t = 0;
#ifdef _OPENMP
        t = (size_t)omp_get_thread_num();
        mine += t * n;
#endif
#pragma omp for schedule(dynamic, chunk)
        for (uint64_t i = 0; i < (uint64_t)n * nf; i++) {
            const int j = (int)(i / nf);
            const uint32_t f = (uint32_t)(i % nf);
            struct gbt_split cand;
            if ((masks && !masks[(size_t)j * nf + f]) || !gbt__feature_usable(cuts, f)) continue;
            if (gbt__cuts_is_cat(cuts, f)) {
                uint32_t *bits = cand_bits + t * words;
                gbt__cpu_best_of_cat(cuts, c->hist[jobs[j].slot], f, &jobs[j], parent[j], sp,
                                     order + t * words * 32, &cand, bits);
                if (cand.feature >= 0 && before(&cand, &mine[j])) {
                    mine[j] = cand;
                    memcpy(per_bits + (t * n + (size_t)j) * words, bits, words * sizeof *bits);
                }
                continue;
            }
            if (sp->alpha == 0.0 && sp->max_delta_step == 0.0 && !sp->monotone)
                best_of_feature_plain(cuts, c->hist[jobs[j].slot], f, jobs[j].total, parent[j], sp, &cand);
            else
                best_of_feature(cuts, c->hist[jobs[j].slot], f, &jobs[j], parent[j], sp,
                                c->monotone ? c->monotone[f] : 0, &cand);
            if (cand.feature >= 0 && before(&cand, &mine[j])) mine[j] = cand;
        }
    }
    for (int j = 0; j < n; j++) {
        no_split(&out[j]);
        for (int t = 0; t < nt; t++) {
            const struct gbt_split *cand = &per[(size_t)t * n + j];
            if (cand->feature >= 0 && before(cand, &out[j])) {
                out[j] = *cand;
                if (cand->is_cat)
                    memcpy(cat_sets + (size_t)j * words, per_bits + ((size_t)t * n + (size_t)j) * words,
                           words * sizeof *cat_sets);
            }
        }
    }
    free(per);
    free(parent);
    free(per_bits);
    free(cand_bits);
    free(order);
    return GBT_OK;
}
