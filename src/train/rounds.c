/*
 * rounds.c - around a boosting round: the metrics an evaluation reports,
 * evaluation sets whose raw scores stay between rounds and are advanced by
 * the new trees only, a metric on any data (gbt_booster_eval), the best
 * round, cutting a model back to its first rounds, the custom metric's setters.  gbt_booster_train uses
 * these for its validation sets; callers
 * that drive the rounds themselves (gbt_booster_update, then
 * gbt_booster_eval_round) get the same numbers and the same model.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/rounds.h"
#include "train/margins.h"
#include "common/rank_math.h"
#include "data/dataset.h"
#include "train/dist.h"
#include "objective/objective.h"
#include "params/rank.h"
#include "util/util.h"

/* The most evaluation sets a booster keeps raw scores of; the least recently used gives way. */
#define GBT_EVAL_CACHE_MAX 16

/* ---- the metric list ------------------------------------------------------ */

/*
 * Whether higher is better for a custom metric that did not say: as for the
 * built-in metric of that name, else as XGBoost's early stopping decides,
 * by the name's start (auc, aucpr, pre, map, ndcg; mape is minimised).
 */
static int name_maximizes(const char *name)
{
    static const char *const up[] = {"auc", "aucpr", "pre", "map", "ndcg"};
    struct gbt_metric m;
    if (gbt__metric_parse(name, &m) == GBT_OK) return m.maximize;
    if (strcmp(name, "mape") == 0) return 0;
    for (size_t i = 0; i < sizeof up / sizeof up[0]; i++)
        if (strncmp(name, up[i], strlen(up[i])) == 0) return 1;
    return 0;
}

gbt_status gbt__metric_list(const gbt_booster *b, struct gbt_metric_list *out)
{
    const struct gbt_params *p = &b->params;
    int count = p->num_eval_metric ? (int)p->num_eval_metric : p->disable_default_eval_metric ? 0 : 1;
    for (int i = 0; i < count; i++) {
        struct gbt_metric *m = &out->ms[i];
        char *name = out->names[i];
        if (p->num_eval_metric)
            snprintf(name, sizeof out->names[i], "%s", p->eval_metric[i]);
        else if (gbt_objective_is_ranking((int)p->objective))
            gbt__rank_default_metric((int)p->objective, p, name, sizeof out->names[i]);
        else
            gbt__objective_default_metric((int)p->objective, p->tweedie_variance_power, name,
                                          sizeof out->names[i]);
        FORWARD_IF_ERROR(gbt__metric_parse(name, m));
        /* a ranking objective's default with sampled pairs scores whole lists, as XGBoost's */
        if (!p->num_eval_metric && gbt_objective_is_ranking((int)p->objective) &&
            p->lambdarank_pair_method == GBT_RANK_MEAN)
            m->topk = 0;
        m->huber_slope = p->huber_slope;
        m->alpha = p->quantile_alpha;
        m->nalpha = (int)p->num_quantile_alpha;
        m->aft_dist = (int)p->aft_loss_distribution;
        m->aft_sigma = p->aft_loss_distribution_scale;
        m->exp_gain = (int)p->ndcg_exp_gain;
        out->maximize[i] = m->maximize;
    }
    out->n = out->total = count;
    for (int j = 0; b->eval_fn && j < b->eval_count; j++) {
        snprintf(out->names[count + j], sizeof out->names[count + j], "%s", b->eval_names[j]);
        out->maximize[count + j] = b->eval_maximize >= 0 ? b->eval_maximize : name_maximizes(b->eval_names[j]);
        out->total++;
    }
    return GBT_OK;
}

/* ---- one set's metrics ---------------------------------------------------- */

gbt_status gbt__eval_metric(const gbt_booster *b, const struct gbt_metric *m, const gbt_dataset *d,
                            const double *margin, double *out)
{
    /* a multi-target model's outputs each against their own labels */
    RETURN_ERROR_IF(d->label && gbt__dataset_targets(d) != gbt__model_targets(&b->model), GBT_E_INVALID_ARG,
                    "%s has %d label(s) per row; the model has %d target(s)", d->source ? d->source : "the data",
                    gbt__dataset_targets(d), gbt__model_targets(&b->model));
    return gbt__metric_eval_data(m, b->model.objective, b->model.K, margin, d,
                                 gbt__threads(b->params.nthread), out);
}

/*
 * The custom metric (gbt_booster_set_eval_callback) of raw scores `margin`
 * on d: its values into out[0 .. *count) (room for GBT_MAX_CUSTOM_METRICS),
 * *count as many as it has after the call (it may name them in it).
 */
static gbt_status eval_custom(const gbt_booster *b, const gbt_dataset *d, const double *margin,
                              double *out, int *count)
{
    int rc = b->eval_fn(margin, d->nrow, b->model.K, d, b->eval_user, out);
    RETURN_ERROR_IF(rc != 0, GBT_E_INVALID_ARG, "custom metric '%s' failed (it returned %d)",
                    b->eval_names[0], rc);
    *count = b->eval_fn ? b->eval_count : 0;
    return GBT_OK;
}

/* Names the set in the message of a failure: a validation set of gbt_booster_train, or the data. */
static gbt_status fail_context(const struct gbt_eval_cache *c, gbt_status s)
{
    if (c->name[0]) return gbt__fail_context(s, "validation set '%s'", c->name);
    return gbt__fail_context(s, "the evaluated data");
}

/* Distributed training: every process's raw scores of a set, in process order. */
static gbt_status gather_margins(const gbt_booster *b, const struct gbt_eval_cache *c, double **out)
{
    gbt_status s = gbt__dist_agree(b->ts->dist, GBT_OK);
    if (s == GBT_OK)
        s = gbt__dist_gather_doubles(b->ts->dist, c->margin, c->d->nrow * (uint64_t)b->model.K, out);
    if (s != GBT_OK) fail_context(c, s);
    return s;
}

gbt_status gbt__eval_cache_metrics(const gbt_booster *b, const struct gbt_eval_cache *c,
                                   const struct gbt_metric_list *ml, double *out, int *total)
{
    double *allm = NULL;
    int custom = 0;
    gbt_status s = GBT_OK;
    if (ml->n > 0 && b->ts && b->ts->dist) s = gather_margins(b, c, &allm);
    for (int j = 0; j < ml->n && s == GBT_OK; j++)
        s = gbt__eval_metric(b, &ml->ms[j], allm ? c->all : c->d, allm ? allm : c->margin, &out[j]);
    if (s == GBT_OK && ml->total > ml->n) s = eval_custom(b, c->d, c->margin, &out[ml->n], &custom);
    if (s != GBT_OK) fail_context(c, s);
    *total = ml->n + custom;
    free(allm);
    return s;
}

/* ---- raw scores kept between rounds --------------------------------------- */

/* The end of filling c with d's raw scores under m's trees: on failure
   (s) the cache is emptied and s returned with its context, else c names
   what it now holds. */
static gbt_status cache_filled(struct gbt_eval_cache *c, const gbt_dataset *d, const struct gbt_model *m,
                               gbt_status s)
{
    if (s != GBT_OK) {
        gbt__eval_cache_free(c);
        return fail_context(c, s);
    }
    c->d = d;
    c->generation = d->generation;
    c->epoch = m->epoch;
    c->ntrees = m->ntrees;
    return GBT_OK;
}

gbt_status gbt__eval_cache_sync(const gbt_booster *b, struct gbt_eval_cache *c, const gbt_dataset *d)
{
    const struct gbt_model *m = &b->model;
    gbt_status s;
    if (c->margin && (c->d != d || c->generation != d->generation || c->epoch != m->epoch ||
                      c->ntrees > m->ntrees)) {
        free(c->margin);
        gbt_dataset_free(c->all);
        c->margin = NULL;
        c->all = NULL;
    }
    if (d->binned_only && b->ts && b->ts->data_generation == d->generation) {
        /* the training data held as bins only: its raw scores are the training state's */
        s = c->margin ? GBT_OK : gbt__alloc(&c->margin, d->nrow * (uint64_t)m->K + 1, sizeof *c->margin, 0, "margins");
        if (s == GBT_OK) s = b->ts->ops->read_margins(b->ts->ctx, c->margin);
        if (b->ts->dist && c->all == NULL) {
            /* distributed (every process's dataset from batches): every process's labels, once */
            s = gbt__dist_agree(b->ts->dist, s);
            if (s == GBT_OK) s = gbt__dist_gather_labels(b->ts->dist, d, &c->all);
        }
        return cache_filled(c, d, m, s);
    }
    if (c->margin) {
        s = gbt__booster_add_margins(b, d, c->ntrees, m->ntrees, gbt__booster_threads(b), c->margin);
        if (s != GBT_OK) return cache_filled(c, d, m, s);
        c->ntrees = m->ntrees;
        return GBT_OK;
    }
    s = gbt__booster_eval_margins(b, d, &c->margin);
    if (b->ts && b->ts->dist) {
        /* every process's labels of the set, once: the metrics are computed over all rows */
        s = gbt__dist_agree(b->ts->dist, s);
        if (s == GBT_OK) s = gbt__dist_gather_labels(b->ts->dist, d, &c->all);
    }
    return cache_filled(c, d, m, s);
}

/* The booster's cache of d: the one it has, else a free or the least recently used one. */
static gbt_status find_cache(gbt_booster *b, const gbt_dataset *d, struct gbt_eval_cache **out)
{
    struct gbt_eval_cache *c = NULL;
    for (int i = 0; i < b->nevc && c == NULL; i++)
        if (b->evc[i].margin && b->evc[i].d == d) c = &b->evc[i];
    for (int i = 0; i < b->nevc && c == NULL; i++)
        if (b->evc[i].margin == NULL) c = &b->evc[i];
    if (c == NULL && b->nevc < GBT_EVAL_CACHE_MAX) {
        struct gbt_eval_cache *grown = realloc(b->evc, (size_t)(b->nevc + 1) * sizeof *grown);
        RETURN_ERROR_IF(grown == NULL, GBT_E_NO_MEMORY, "out of memory for an evaluation set");
        b->evc = grown;
        c = &b->evc[b->nevc++];
        memset(c, 0, sizeof *c);
    }
    if (c == NULL) {
        c = &b->evc[0];
        for (int i = 1; i < b->nevc; i++)
            if (b->evc[i].used < c->used) c = &b->evc[i];
        gbt__eval_cache_free(c);
    }
    c->name[0] = '\0';
    c->used = ++b->evc_clock;
    *out = c;
    return GBT_OK;
}

/* ---- the public calls ----------------------------------------------------- */

gbt_status gbt_booster_metric_count(const gbt_booster *b, int *out)
{
    struct gbt_metric_list ml;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(gbt__metric_list(b, &ml));
    *out = ml.total;
    return GBT_OK;
}

gbt_status gbt_booster_metric_describe(const gbt_booster *b, int i, char *name, size_t len, int *maximize)
{
    struct gbt_metric_list ml;
    CHECK_NOT_NULL(b);
    FORWARD_IF_ERROR(gbt__metric_list(b, &ml));
    RETURN_ERROR_IF(i < 0 || i >= ml.total, GBT_E_INVALID_ARG, "metric %d: the booster has %d metric%s", i,
                    ml.total, ml.total == 1 ? "" : "s");
    if (name) {
        RETURN_ERROR_IF(strlen(ml.names[i]) + 1 > len, GBT_E_INVALID_ARG,
                        "buffer of %zu bytes is too small for metric name '%s'", len, ml.names[i]);
        memcpy(name, ml.names[i], strlen(ml.names[i]) + 1);
    }
    if (maximize) *maximize = ml.maximize[i];
    return GBT_OK;
}

gbt_status gbt_booster_eval_round(gbt_booster *b, const gbt_dataset *d, double *out, int len)
{
    struct gbt_metric_list ml;
    struct gbt_eval_cache *c = NULL;
    double row[GBT_METRIC_ROW];
    int total = 0;
    gbt_status s;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(d);
    RETURN_ERROR_IF(b->model.K == 0, GBT_E_STATE, "the booster has no model: train or load one first");
    FORWARD_IF_ERROR(gbt__metric_list(b, &ml));
    RETURN_ERROR_IF(len < ml.total || (ml.total > 0 && out == NULL), GBT_E_INVALID_ARG,
                    "the output holds %d values; the booster has %d metrics (gbt_booster_metric_count)",
                    out ? len : 0, ml.total);
    RETURN_ERROR_IF(d->label == NULL && !(b->model.objective == GBT_OBJ_SURVIVAL_AFT && d->label_lower),
                    GBT_E_INVALID_ARG, "the data has no labels to evaluate against");
    FORWARD_IF_ERROR(find_cache(b, d, &c));
    s = gbt__eval_cache_sync(b, c, d);
    if (s == GBT_OK) s = gbt__eval_cache_metrics(b, c, &ml, row, &total);
    /* a custom metric that named more values in its call needs the room for them */
    RETURN_ERROR_IF(s == GBT_OK && total > len, GBT_E_INVALID_ARG,
                    "the output holds %d values; the custom metric named its values and the booster now has "
                    "%d metrics (gbt_booster_metric_count)", len, total);
    if (s == GBT_OK && total > 0) memcpy(out, row, (size_t)total * sizeof *row);
    return s;
}

gbt_status gbt_booster_eval_forget(gbt_booster *b, const gbt_dataset *d)
{
    CHECK_NOT_NULL(b);
    if (d == NULL) {
        gbt__booster_eval_caches_free(b);
        return GBT_OK;
    }
    for (int i = 0; i < b->nevc; i++)
        if (b->evc[i].margin && b->evc[i].d == d) gbt__eval_cache_free(&b->evc[i]);
    return GBT_OK;
}

static int rounds_of(const gbt_booster *b)
{
    return gbt__model_rounds(&b->model);
}

gbt_status gbt_booster_set_best(gbt_booster *b, int iteration, double score)
{
    CHECK_NOT_NULL(b);
    RETURN_ERROR_IF(iteration < -1 || iteration >= rounds_of(b), GBT_E_INVALID_ARG,
                    "best iteration %d is not a round of the model (0 to %d, or -1 for none)", iteration,
                    rounds_of(b) - 1);
    b->model.best_iteration = iteration;
    b->model.best_score = iteration >= 0 ? score : 0.0;
    return GBT_OK;
}

gbt_status gbt_booster_keep_rounds(gbt_booster *b, int rounds)
{
    const int have = rounds_of(b);
    CHECK_NOT_NULL(b);
    RETURN_ERROR_IF(rounds < 0 || rounds > have, GBT_E_INVALID_ARG,
                    "cannot keep %d rounds of a model of %d", rounds, have);
    if (rounds == have) return GBT_OK;
    gbt__model_truncate(&b->model, (uint32_t)rounds * gbt__model_round_trees(&b->model));
    if (b->model.best_iteration >= rounds) b->model.best_iteration = -1;
    /* the training state's raw scores include the dropped trees: set up again next round */
    gbt__booster_drop_state(b);
    return GBT_OK;
}

gbt_status gbt_booster_transform(const gbt_booster *b, const double *margin, uint64_t nrow, float *out,
                                 uint64_t out_len)
{
    int K, width;
    CHECK_NOT_NULL(b);
    RETURN_ERROR_IF(b->model.K == 0, GBT_E_STATE, "the booster has no model: train or load one first");
    K = b->model.K;
    width = gbt__objective_outputs(b->model.objective, K, 0);
    RETURN_ERROR_IF(nrow > 0 && (margin == NULL || out == NULL), GBT_E_INVALID_ARG,
                    "margin and out must not be NULL");
    RETURN_ERROR_IF(out_len < nrow * (uint64_t)width, GBT_E_INVALID_ARG,
                    "the output holds %llu floats; %llu rows need %llu", (unsigned long long)out_len,
                    (unsigned long long)nrow, (unsigned long long)(nrow * (uint64_t)width));
    for (uint64_t r = 0; r < nrow; r++)
        gbt__objective_transform(b->model.objective, K, margin + r * (uint64_t)K, 0, out + r * (uint64_t)width);
    return GBT_OK;
}

gbt_status gbt_booster_eval(const gbt_booster *b, const gbt_dataset *d, const char *metric,
                            double *out)
{
    struct gbt_metric m;
    double *margin;
    gbt_status s;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(metric);
    CHECK_NOT_NULL(out);
    RETURN_ERROR_IF(b->model.K == 0, GBT_E_STATE, "the booster has no model: train or load one first");
    FORWARD_IF_ERROR(gbt__metric_parse(metric, &m));
    m.huber_slope = b->params.huber_slope;
    m.alpha = b->params.quantile_alpha;
    m.nalpha = (int)b->params.num_quantile_alpha;
    m.aft_dist = (int)b->params.aft_loss_distribution;
    m.aft_sigma = b->params.aft_loss_distribution_scale;
    m.exp_gain = (int)b->params.ndcg_exp_gain;
    RETURN_ERROR_IF(d->label == NULL && !(gbt__metric_survival(m.id) && d->label_lower),
                    GBT_E_INVALID_ARG, "the data has no labels to evaluate against");
    FORWARD_IF_ERROR(gbt__booster_eval_margins(b, d, &margin));
    s = gbt__eval_metric(b, &m, d, margin, out);
    free(margin);
    return s;
}

gbt_status gbt_booster_set_eval_callback(gbt_booster *b, const char *name, gbt_eval_fn fn,
                                         void *user, int maximize)
{
    CHECK_NOT_NULL(b);
    if (fn == NULL) {
        b->eval_fn = NULL;
        b->eval_user = NULL;
        b->eval_count = 0;
        return GBT_OK;
    }
    CHECK_NOT_NULL(name);
    RETURN_ERROR_IF(name[0] == '\0' || strlen(name) >= sizeof b->eval_names[0], GBT_E_INVALID_ARG,
                    "a custom metric's name must have 1 to %zu characters", sizeof b->eval_names[0] - 1);
    b->eval_fn = fn;
    b->eval_user = user;
    b->eval_maximize = maximize < 0 ? -1 : maximize != 0;
    b->eval_count = 1;
    snprintf(b->eval_names[0], sizeof b->eval_names[0], "%s", name);
    return GBT_OK;
}

gbt_status gbt_booster_set_eval_names(gbt_booster *b, int count, const char *const *names)
{
    CHECK_NOT_NULL(b);
    RETURN_ERROR_IF(b->eval_fn == NULL, GBT_E_STATE,
                    "no custom metric to name: set one with gbt_booster_set_eval_callback first");
    RETURN_ERROR_IF(count < 1 || count > GBT_MAX_CUSTOM_METRICS, GBT_E_INVALID_ARG,
                    "a custom metric reports 1 to %d values; got %d", GBT_MAX_CUSTOM_METRICS, count);
    CHECK_NOT_NULL(names);
    for (int i = 0; i < count; i++)
        RETURN_ERROR_IF(names[i] == NULL || names[i][0] == '\0' || strlen(names[i]) >= sizeof b->eval_names[0],
                        GBT_E_INVALID_ARG, "custom metric value %d: a name must have 1 to %zu characters", i,
                        sizeof b->eval_names[0] - 1);
    for (int i = 0; i < count; i++) snprintf(b->eval_names[i], sizeof b->eval_names[i], "%s", names[i]);
    b->eval_count = count;
    return GBT_OK;
}
