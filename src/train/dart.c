/*
 * dart.c - booster=dart: dropout for boosted trees (XGBoost's DART).
 *
 * Before a round's gradients, dart_prepare draws the trees it drops: on
 * the host, from the keyed generator (common/rng.h: seed, the round, the
 * tree), so every backend and every process of a distributed training
 * draws the same ones.  The training margins are then the starting scores
 * plus the weighted trees that were not dropped, summed on the host from
 * the forest (which holds each tree's leaves times its weight) and handed
 * to the backend (write_margins).  After the round's trees, dart_finish
 * gives them their weights and scales the dropped trees' (XGBoost's
 * formulas, in its float arithmetic):
 *   k dropped, lr = eta / (trees of the round):
 *   none dropped:          new trees weigh 1, nothing else changes;
 *   normalize_type=tree:   dropped *= k / (k + lr), new = 1 / (k + lr);
 *   normalize_type=forest: dropped *= 1 / (1 + lr), new = 1 / (1 + lr).
 * A round that drops nothing after one that dropped nothing leaves the
 * backend's own margins (the sum of every tree, each of weight 1 since)
 * as they are: with rate_drop=0 dart trains gbtree's trees.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/rng.h"
#include "train/dart.h"

void gbt__dart_warn_unused(const struct gbt_params *p)
{
    char names[96] = "";
    if (p->booster == GBT_BOOSTER_DART) return;
    /* as XGBoost: the dart parameters set for gbtree change nothing, and say so */
    snprintf(names, sizeof names, "%s%s%s%s%s", p->rate_drop != 0.0 ? " rate_drop" : "",
             p->one_drop ? " one_drop" : "", p->skip_drop != 0.0 ? " skip_drop" : "",
             p->sample_type != GBT_DART_UNIFORM ? " sample_type" : "",
             p->normalize_type != GBT_DART_NORM_TREE ? " normalize_type" : "");
    if (names[0])
        gbt__log((int)p->verbosity, GBT_LOG_WARNING, "parameters not used by booster=gbtree (they apply to "
                 "booster=dart):%s", names);
}

/* Draw b of a round: the skip, then tree i at 1 + i, the one_drop pick at UINT64_MAX. */
static double unit(const struct gbt_params *p, int round, uint64_t b)
{
    return gbt_unit(gbt_draw((uint64_t)p->seed, GBT_RNG_DART, (uint64_t)round, b));
}

/* The trees the round drops, ascending, into ts->dart_drop. */
static gbt_status draw_drops(gbt_booster *b, struct gbt_train_state *ts)
{
    const struct gbt_params *p = &b->params;
    const struct gbt_model *m = &b->model;
    const int round = gbt__model_rounds(m);
    const uint32_t n = m->ntrees;
    const int weighted = p->sample_type == GBT_DART_WEIGHTED;
    double sum = 0.0;
    ts->dart_ndrop = 0;
    if (n == 0 || (p->skip_drop > 0.0 && unit(p, round, 0) < p->skip_drop)) return GBT_OK;
    free(ts->dart_drop); /* the last round's */
    FORWARD_IF_ERROR(gbt__alloc(&ts->dart_drop, n, sizeof *ts->dart_drop, 0, "dropped trees"));
    for (uint32_t t = 0; t < n; t++) sum += (double)m->weight[t];
    for (uint32_t t = 0; t < n; t++) {
        const double rate = weighted ? p->rate_drop * (double)n * (double)m->weight[t] / sum : p->rate_drop;
        if (unit(p, round, 1 + (uint64_t)t) < rate) ts->dart_drop[ts->dart_ndrop++] = t;
    }
    if (ts->dart_ndrop == 0 && p->one_drop) {
        /* one tree: uniform, or in proportion to the weights */
        const double u = unit(p, round, UINT64_MAX);
        uint32_t t = (uint32_t)(u * (double)n);
        if (weighted) {
            double acc = 0.0;
            for (t = 0; t + 1 < n; t++) {
                acc += (double)m->weight[t];
                if (u * sum < acc) break;
            }
        }
        ts->dart_drop[ts->dart_ndrop++] = t < n ? t : n - 1;
    }
    return GBT_OK;
}

gbt_status gbt__dart_prepare(gbt_booster *b, const gbt_dataset *train)
{
    struct gbt_train_state *ts = b->ts;
    const struct gbt_model *m = &b->model;
    struct gbt_dview v;
    double *margin = NULL;
    uint32_t from = 0;
    gbt_status s;
    if (!m->dart || ts->dart_ready) return GBT_OK;
    FORWARD_IF_ERROR(draw_drops(b, ts));
    ts->dart_ready = 1;
    if (ts->dart_ndrop == 0 && !ts->dart_stale) return GBT_OK;
    /* the trees are summed from the raw values (the backend's margins cannot take a tree out) */
    FORWARD_IF_ERROR(gbt__dataset_need_values(train, "booster=dart (each round sums the trees it keeps)"));
    s = gbt__alloc(&margin, train->nrow * (uint64_t)m->K + 1, sizeof *margin, 0, "dart margins");
    if (s != GBT_OK) return s;
    gbt__model_start_margins(m, train, margin);
    gbt__dataset_view(train, &v);
    for (uint32_t i = 0; i <= ts->dart_ndrop; i++) {
        const uint32_t to = i < ts->dart_ndrop ? ts->dart_drop[i] : m->ntrees;
        gbt__forest_add(&m->forest, from, to, m->K, &v, gbt__threads(b->params.nthread), margin);
        from = to + 1;
    }
    s = ts->ops->write_margins(ts->ctx, margin);
    free(margin);
    /* until a round without drops follows one without drops, the backend's sums are not the model's */
    ts->dart_stale = 1;
    return s;
}

gbt_status gbt__dart_finish(gbt_booster *b, uint32_t before)
{
    struct gbt_train_state *ts = b->ts;
    struct gbt_model *m = &b->model;
    const uint32_t added = m->ntrees - before, k = ts->dart_ndrop;
    /* XGBoost's float arithmetic: lr and the factors are floats, k + lr a float sum */
    const float lr = (float)((double)(float)b->params.eta / (double)added);
    float factor, fresh, *old = NULL;
    gbt_status s;
    if (!m->dart) return GBT_OK;
    ts->dart_ready = 0;
    ts->dart_stale = k > 0;
    if (k == 0) return GBT_OK;
    if (b->params.normalize_type == GBT_DART_NORM_FOREST) {
        factor = fresh = (float)(1.0 / (1.0 + (double)lr));
    } else {
        const float den = (float)k + lr;
        factor = (float)((double)k / (double)den);
        fresh = (float)(1.0 / (double)den);
    }
    /* the dropped trees' weights before, to put back if the forest cannot be laid out again */
    FORWARD_IF_ERROR(gbt__alloc(&old, k, sizeof *old, 0, "dart weights"));
    for (uint32_t i = 0; i < k; i++) {
        old[i] = m->weight[ts->dart_drop[i]];
        m->weight[ts->dart_drop[i]] *= factor;
    }
    for (uint32_t t = before; t < m->ntrees; t++) m->weight[t] = fresh;
    s = gbt__model_reweigh(m, ts->dart_drop[0]);
    if (s != GBT_OK) {
        /* the caller drops the round's trees: the model goes back to the weights before it (out of
           memory again: the trees the forest lacks go too, so that prediction never reads past it) */
        for (uint32_t i = 0; i < k; i++) m->weight[ts->dart_drop[i]] = old[i];
        for (uint32_t t = before; t < m->ntrees; t++) m->weight[t] = 1.0f;
        if (gbt__model_reweigh(m, ts->dart_drop[0]) != GBT_OK) gbt__model_truncate(m, ts->dart_drop[0]);
    }
    free(old);
    return s;
}
