/*
 * booster_train.c - the training driver, the one loop every caller uses
 * (gbt_booster_train, the folds of a cross validation, gbtrain, Python's
 * train/cv/fit): rounds, the validation sets' metrics (averaged over folds),
 * early stopping, the per-round log line with its time estimate, and the
 * per-round hook through which a caller's callbacks run.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metric/metric.h"
#include "train/booster.h"
#include "train/comm.h"
#include "train/rounds.h"
#include "util/util.h"

static void format_seconds(char *buf, size_t len, double s)
{
    if (s < 60)
        snprintf(buf, len, "%.1fs", s);
    else if (s < 3600)
        snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, len, "%dh%02dm", (int)(s / 3600), ((int)s / 60) % 60);
}

/* The debug line of a round: its trees' sizes and where its time went. */
static void log_round(const gbt_booster *b, int round, uint32_t first_tree, double t_trees, double t_eval)
{
    int32_t leaves = 0;
    int depth = 0;
    for (uint32_t t = first_tree; t < b->model.ntrees; t++) {
        int dt = 0;
        leaves += (b->model.trees[t].n_nodes + 1) / 2;
        if (gbt__tree_depth(&b->model.trees[t], &dt) == GBT_OK && dt > depth) depth = dt;
    }
    const struct gbt_grow_stats *h = &b->ts->hist_stats;
    gbt__log((int)b->params.verbosity, GBT_LOG_DEBUG,
             "[%d] %u tree%s, %d leaves, depth %d; gradients and trees %.3f s, metrics %.3f s; "
             "histograms: %llu built, %llu subtracted, %llu dropped from the pool of %u, %llu "
             "parents rebuilt", round,
             b->model.ntrees - first_tree, b->model.ntrees - first_tree == 1 ? "" : "s", (int)leaves, depth,
             t_trees, t_eval, (unsigned long long)h->built, (unsigned long long)h->subtracted,
             (unsigned long long)h->dropped, b->ts->max_slots, (unsigned long long)h->rebuilt);
}

double gbt__eta(double t_setup, double t_first, double now, int done, int total)
{
    if (done >= total) return 0.0;
    if (done <= 1) return (t_first - t_setup) * (total - done);
    return (now - t_first) / (done - 1) * (total - done);
}

gbt_status gbt_booster_set_round_callback(gbt_booster *b, gbt_round_fn fn, void *user)
{
    CHECK_NOT_NULL(b);
    b->round_fn = fn;
    b->round_user = user;
    return GBT_OK;
}

gbt_status gbt_booster_request_stop(gbt_booster *b)
{
    /* no error message here: the thread-local message is not for signal handlers */
    if (b == NULL) return GBT_E_INVALID_ARG;
    atomic_store(&b->stop_requested, 1);
    return GBT_OK;
}

/* Takes a stop request (gbt_booster_request_stop): this rank's, or under a communicator any rank's. */
static gbt_status take_stop(gbt_booster *b, int *stop)
{
    int64_t any = atomic_exchange(&b->stop_requested, 0);
    if (b->comm) FORWARD_IF_ERROR(b->comm->ops->allreduce_i64(b->comm->impl, &any, 1, GBT_COMM_MAX));
    *stop = any != 0;
    return GBT_OK;
}

/* Whether d has labels to train or evaluate on (survival:aft: its lower bounds). */
static int has_labels(const gbt_booster *b, const gbt_dataset *d)
{
    return d->label != NULL || (b->params.objective == GBT_OBJ_SURVIVAL_AFT && d->label_lower != NULL);
}

/* XGBoost's rule that a data URI without label_column leaves the labels out surprises. */
#define NO_LABEL_HINT                                                                                   \
    " (a CSV or TSV file read as an XGBoost URI, FILE?format=csv, has no label column unless the URI " \
    "gives one: FILE?format=csv&label_column=0)"

gbt_status gbt_booster_set_train_hook(gbt_booster *b, gbt_train_hook_fn fn, void *user)
{
    CHECK_NOT_NULL(b);
    b->hook_fn = fn;
    b->hook_user = user;
    return GBT_OK;
}

gbt_status gbt_booster_set_early_stopping(gbt_booster *b, int rounds, const char *data_name,
                                          const char *metric_name, int maximize, double min_delta,
                                          int save_best)
{
    CHECK_NOT_NULL(b);
    RETURN_ERROR_IF(rounds < -1, GBT_E_INVALID_ARG, "early stopping rounds must be -1 (the "
                    "early_stopping_rounds parameter), 0 (none) or more; got %d", rounds);
    RETURN_ERROR_IF(maximize < -1 || maximize > 1, GBT_E_INVALID_ARG,
                    "maximize must be -1 (the metric's own), 0 or 1; got %d", maximize);
    RETURN_ERROR_IF(!(min_delta >= 0.0) || isinf(min_delta), GBT_E_INVALID_ARG,
                    "min_delta must be a finite number >= 0; got %g", min_delta);
    RETURN_ERROR_IF(data_name && strlen(data_name) >= sizeof b->es_data, GBT_E_INVALID_ARG,
                    "the data name to watch has more than %zu characters", sizeof b->es_data - 1);
    RETURN_ERROR_IF(metric_name && strlen(metric_name) >= sizeof b->es_metric, GBT_E_INVALID_ARG,
                    "the metric name to watch has more than %zu characters", sizeof b->es_metric - 1);
    b->es_rounds = rounds;
    b->es_maximize = maximize;
    b->es_min_delta = min_delta;
    b->es_save_best = save_best != 0;
    snprintf(b->es_data, sizeof b->es_data, "%s", data_name ? data_name : "");
    snprintf(b->es_metric, sizeof b->es_metric, "%s", metric_name ? metric_name : "");
    b->es_set = 1;
    return GBT_OK;
}

/* The training data and validation sets of every fold, checked before anything is set up. */
static gbt_status check_data(gbt_booster *const *bs, int nb, const gbt_dataset *const *train,
                             const gbt_dataset *const *valid, const char *const *valid_names,
                             int num_valid)
{
    for (int f = 0; f < nb; f++) {
        const gbt_dataset *t = train[f];
        RETURN_ERROR_IF(bs[f] == NULL, GBT_E_INVALID_ARG, "booster of fold %d is NULL", f);
        RETURN_ERROR_IF(t == NULL, GBT_E_INVALID_ARG, "the training data%s is NULL", nb > 1 ? " of a fold" : "");
        /* the training data first: it is often an evaluation set too ("train") */
        RETURN_ERROR_IF(!has_labels(bs[f], t), GBT_E_INVALID_ARG, "the training data%s%s%s has no labels%s",
                        t->source ? " '" : "", t->source ? t->source : "", t->source ? "'" : "", NO_LABEL_HINT);
        for (int i = 0; i < num_valid; i++) {
            const gbt_dataset *v = valid[(size_t)f * (size_t)num_valid + (size_t)i];
            const char *n = valid_names ? valid_names[i] : NULL;
            RETURN_ERROR_IF(v == NULL, GBT_E_INVALID_ARG, "validation set %d is NULL", i);
            RETURN_ERROR_IF(!has_labels(bs[f], v), GBT_E_INVALID_ARG, "validation set %d%s%s%s has no labels%s",
                            i, n ? " ('" : "", n ? n : "", n ? "')" : "", NO_LABEL_HINT);
        }
    }
    return GBT_OK;
}

/* What early stopping watches and when it stops (gbt_booster_set_early_stopping, early_stopping_rounds). */
struct stop_rule {
    int rounds;      /* 0: no early stopping */
    int set, metric; /* the watched value: set and metric index; metric -1 until the first round */
    int maximize;
    double min_delta;
    int save_best;  /* keep rounds 0..best only when the training ends */
    int best_round; /* -1 until a round is scored */
    double best;
};

static gbt_status stop_rule_init(const gbt_booster *b, int num_valid, const char *const *names,
                                 const struct gbt_metric_list *ml, struct stop_rule *r)
{
    const int explicit_rounds = b->es_set && b->es_rounds >= 0;
    r->rounds = explicit_rounds ? b->es_rounds : (int)b->params.early_stopping_rounds;
    r->set = num_valid - 1;
    r->metric = -1;
    r->maximize = b->es_set ? b->es_maximize : -1;
    r->min_delta = b->es_set ? b->es_min_delta : 0.0;
    r->save_best = b->es_set && b->es_save_best;
    r->best_round = -1;
    r->best = NAN;
    /* the parameter alone (gbtrain without validation sets) asks for nothing; an explicit rule does */
    RETURN_ERROR_IF(r->rounds > 0 && num_valid == 0 && (explicit_rounds || b->es_data[0] || b->es_metric[0]),
                    GBT_E_INVALID_ARG, "early stopping needs at least one validation set");
    /* XGBoost: "`save_best` is not applicable to the current booster" (a linear model has no rounds to cut) */
    RETURN_ERROR_IF(r->rounds > 0 && r->save_best && b->params.booster == GBT_BOOSTER_GBLINEAR, GBT_E_PARAM,
                    "early stopping's `save_best` is not applicable to booster=gblinear: its rounds add up "
                    "to one set of weights that cannot be cut back to the best round");
    RETURN_ERROR_IF(r->rounds > 0 && num_valid > 0 && ml->total == 0, GBT_E_PARAM,
                    "early_stopping_rounds needs a metric: disable_default_eval_metric leaves none "
                    "without eval_metric or a custom metric");
    if (b->es_set && b->es_data[0] && num_valid > 0) {
        struct gbt_strbuf all = {0};
        r->set = -1;
        for (int i = 0; i < num_valid; i++) {
            char def[32];
            const char *n = names && names[i] ? names[i] : (snprintf(def, sizeof def, "valid%d", i), def);
            if (strcmp(n, b->es_data) == 0) r->set = i;
            gbt__sb_printf(&all, "%s'%s'", i ? ", " : "", n);
        }
        if (r->set < 0) {
            gbt__fail(GBT_E_INVALID_ARG, "early stopping: no validation set named '%s' (there are %s)",
                           b->es_data, all.s ? all.s : "none");
            free(all.s);
            return GBT_E_INVALID_ARG;
        }
        free(all.s);
    }
    return GBT_OK;
}

/*
 * Finds the watched metric once the first round named every metric (a custom
 * metric may rename itself on its first call): the last, or the one asked for.
 */
static gbt_status stop_rule_metric(const gbt_booster *b, const struct gbt_metric_list *ml, struct stop_rule *r)
{
    if (r->metric >= 0 || ml->total == 0) return GBT_OK;
    r->metric = ml->total - 1;
    if (b->es_set && b->es_metric[0]) {
        struct gbt_strbuf all = {0};
        r->metric = -1;
        for (int j = 0; j < ml->total; j++) {
            if (strcmp(ml->names[j], b->es_metric) == 0) r->metric = j;
            gbt__sb_printf(&all, "%s'%s'", j ? ", " : "", ml->names[j]);
        }
        if (r->metric < 0) {
            gbt__fail(GBT_E_INVALID_ARG, "early stopping: no metric '%s' (there are %s)", b->es_metric,
                           all.s ? all.s : "none");
            free(all.s);
            return GBT_E_INVALID_ARG;
        }
        free(all.s);
    }
    if (r->maximize < 0) r->maximize = ml->maximize[r->metric];
    return GBT_OK;
}

/*
 * Whether metric j's name comes again later in the list (a custom metric
 * named as a built-in one): the line shows each name once, with the later
 * value, as XGBoost's monitor prints the last value kept under a name; the
 * hook and the history still get every value, as XGBoost's does.
 */
static int shadowed(const struct gbt_metric_list *ml, int j)
{
    for (int i = j + 1; i < ml->total; i++)
        if (strcmp(ml->names[i], ml->names[j]) == 0) return 1;
    return 0;
}

/*
 * Takes the round's watched value; whether early stopping ends the training
 * after round `round`.  *improved: the round is the new best one.
 */
static int stop_rule_round(struct stop_rule *r, int round, double score, int *improved)
{
    *improved = r->best_round < 0 || (r->maximize ? score - r->best > r->min_delta : r->best - score > r->min_delta);
    if (*improved) {
        r->best = score;
        r->best_round = round;
    }
    return r->rounds > 0 && round - r->best_round >= r->rounds;
}

/* Mean and population standard deviation over the folds, summed in fold order. */
static void fold_stats(const double *all, int nb, int count, double *mean, double *sd)
{
    for (int k = 0; k < count; k++) {
        double sum = 0.0, sq = 0.0;
        for (int f = 0; f < nb; f++) sum += all[(size_t)f * (size_t)count + (size_t)k];
        mean[k] = sum / nb;
        for (int f = 0; f < nb; f++) {
            const double d = all[(size_t)f * (size_t)count + (size_t)k] - mean[k];
            sq += d * d;
        }
        sd[k] = sqrt(sq / nb);
    }
}

/*
 * The one training loop: nb boosters (one, or the folds of a cross
 * validation) train round by round on train[f]; each round every fold is
 * evaluated on its num_valid sets, the values are averaged over the folds,
 * logged, given to the round callback and the hook of bs[0], and early
 * stopping watches the averages.
 */
static gbt_status drive(gbt_booster *const *bs, int nb, const gbt_dataset *const *train, int num_rounds,
                        const gbt_dataset *const *valid, const char *const *valid_names, int num_valid,
                        int show_stdv)
{
    gbt_booster *const b = bs[0];
    struct gbt_metric_list *mls = NULL;
    struct gbt_eval_cache *sets = NULL;
    struct stop_rule rule = {.set = -1, .metric = -1, .best_round = -1, .best = NAN};
    double *raw = NULL, *all = NULL, *mean = NULL, *sd = NULL;
    int last_round = -1, verb, stopped = 0, ndone = 0, count = -1, total = 0;
    double start = gbt__now(), t_setup, t_first = 0.0;
    uint64_t bytes_setup;
    gbt_status s = GBT_OK;
    RETURN_ERROR_IF(num_rounds < 0, GBT_E_INVALID_ARG, "num_rounds is negative (%d)", num_rounds);
    RETURN_ERROR_IF(num_valid < 0 || (num_valid > 0 && valid == NULL), GBT_E_INVALID_ARG,
                    "num_valid is %d but valid is %s", num_valid, valid ? "set" : "NULL");
    FORWARD_IF_ERROR(check_data(bs, nb, train, valid, valid_names, num_valid));
    verb = (int)b->params.verbosity;
    FORWARD_IF_ERROR(gbt__alloc(&mls, (size_t)nb, sizeof *mls, 1, "metric lists"));
    for (int f = 0; f < nb && s == GBT_OK; f++) {
        s = gbt__metric_list(bs[f], &mls[f]);
        if (s == GBT_OK && mls[f].total != mls[0].total)
            s = gbt__fail(GBT_E_PARAM, "fold %d reports %d metrics but fold 0 reports %d", f, mls[f].total,
                          mls[0].total);
    }
    if (s == GBT_OK) s = stop_rule_init(b, num_valid, valid_names, &mls[0], &rule);
    for (int f = 0; f < nb && s == GBT_OK; f++)
        if (bs[f]->params.process_type == GBT_PROCESS_UPDATE) { /* no backend: update.c, on the host */
            s = gbt__booster_ready_update(bs[f], train[f], 0, num_rounds);
        } else if (bs[f]->ts == NULL || bs[f]->ts->data_generation != train[f]->generation)
            s = gbt__booster_build_state(bs[f], train[f]);
    if (s == GBT_OK && num_valid > 0)
        s = gbt__alloc(&sets, (size_t)nb * (size_t)num_valid, sizeof *sets, 1, "validation sets");
    /* room for every value a set may give: a custom metric may name several in its first call */
    if (s == GBT_OK && num_valid > 0) {
        const size_t row = (size_t)num_valid * GBT_METRIC_ROW;
        s = gbt__alloc(&raw, (size_t)nb * row, sizeof *raw, 0, "metric values");
        if (s == GBT_OK) s = gbt__alloc(&all, (size_t)nb * row, sizeof *all, 0, "metric values");
    }
    if (s == GBT_OK) s = gbt__alloc(&mean, (size_t)num_valid * GBT_METRIC_ROW + 1, sizeof *mean, 1, "metric means");
    if (s == GBT_OK) s = gbt__alloc(&sd, (size_t)num_valid * GBT_METRIC_ROW + 1, sizeof *sd, 1, "metric deviations");
    for (int k = 0; k < nb * num_valid && s == GBT_OK; k++) {
        const int i = k % num_valid;
        if (valid_names && valid_names[i])
            snprintf(sets[k].name, sizeof sets[k].name, "%s", valid_names[i]);
        else
            snprintf(sets[k].name, sizeof sets[k].name, "valid%d", i);
        s = gbt__eval_cache_sync(bs[k / num_valid], &sets[k], valid[k]);
    }
    t_setup = gbt__now();
    bytes_setup = b->comm ? b->comm->bytes : 0;
    for (int r = 0; r < num_rounds && s == GBT_OK; r++) {
        const uint32_t t0 = b->model.ntrees;
        const int round = gbt__model_rounds(&b->model);
        struct gbt_strbuf line = {0};
        double t_round = gbt__now(), t_eval;
        int early = 0, improved = 0;
        /* a stop request (a signal handler's) ends the training between rounds */
        s = take_stop(b, &stopped);
        if (s != GBT_OK || stopped) break;
        for (int f = 0; f < nb && s == GBT_OK; f++) s = gbt_booster_update(bs[f], train[f]);
        if (s != GBT_OK) break;
        ndone++;
        last_round = round;
        t_eval = gbt__now();
        for (int k = 0; k < nb * num_valid && s == GBT_OK; k++) {
            const int f = k / num_valid;
            int got = 0;
            s = gbt__eval_cache_sync(bs[f], &sets[k], valid[k]);
            if (s == GBT_OK)
                s = gbt__eval_cache_metrics(bs[f], &sets[k], &mls[f], raw + (size_t)k * GBT_METRIC_ROW, &got);
            if (s == GBT_OK && k == 0 && count < 0) total = got; /* a custom metric may have named its values */
            if (s == GBT_OK && got != total)
                s = gbt__fail(GBT_E_STATE, "the metrics changed during training: %d values on validation set "
                              "'%s' of fold %d, %d before", got, sets[k].name, f, total);
        }
        /* the names as they are now: a custom metric may have renamed itself */
        for (int f = 0; f < nb && s == GBT_OK; f++) {
            s = gbt__metric_list(bs[f], &mls[f]);
            if (s == GBT_OK && num_valid > 0 && mls[f].total != total)
                s = gbt__fail(GBT_E_STATE, "the metrics changed during training: fold %d names %d, its values "
                              "were %d", f, mls[f].total, total);
        }
        if (s == GBT_OK && count < 0) count = num_valid * mls[0].total;
        if (s == GBT_OK) s = stop_rule_metric(b, &mls[0], &rule);
        if (s != GBT_OK) break;
        for (int k = 0; k < nb * num_valid; k++)
            memcpy(all + (size_t)k * (size_t)total, raw + (size_t)k * GBT_METRIC_ROW, (size_t)total * sizeof *raw);
        if (count > 0) fold_stats(all, nb, count, mean, sd);
        if (num_valid > 0 && mls[0].total > 0)
            early = stop_rule_round(&rule, round, mean[rule.set * mls[0].total + rule.metric], &improved);
        /* as XGBoost's EarlyStopping: the model records each new best round as it comes */
        for (int f = 0; f < nb && s == GBT_OK && improved && rule.rounds > 0; f++)
            s = gbt_booster_set_best(bs[f], rule.best_round, rule.best);
        if (s != GBT_OK) break;
        gbt__sb_printf(&line, "[%d]", round);
        for (int k = 0; k < count; k++) {
            if (shadowed(&mls[0], k % mls[0].total)) continue;
            gbt__sb_printf(&line, "\t%s-%s:%.6f", sets[k / mls[0].total].name, mls[0].names[k % mls[0].total],
                           mean[k]);
            if (show_stdv) gbt__sb_printf(&line, "+%.6f", sd[k]);
        }
        {
            const double now = gbt__now();
            char e1[32], e2[32];
            if (r == 0) t_first = now;
            format_seconds(e1, sizeof e1, now - start);
            format_seconds(e2, sizeof e2, gbt__eta(t_setup, t_first, now, r + 1, num_rounds));
            if (!line.failed) gbt__log(verb, GBT_LOG_INFO, "%s\t(%s elapsed, %s left)", line.s, e1, e2);
            if (verb >= GBT_LOG_DEBUG && b->ts) log_round(b, round, t0, t_eval - t_round, gbt__now() - t_eval);
        }
        if (b->round_fn && b->round_fn(b, round + 1, b->round_user) != 0) stopped = -1; /* its stop */
        if (b->hook_fn && b->hook_fn(b, round, mean, sd, count, line.failed ? NULL : line.s, rule.best_round,
                                     rule.best, early, b->hook_user) != 0)
            stopped = -1;
        /* under a communicator a callback may stop one rank only: its stop becomes a request, which
           the next round's take_stop shares, so every rank stops after this round */
        if (stopped && b->comm) {
            atomic_store(&b->stop_requested, 1);
            stopped = 0;
        }
        free(line.s);
        if (early) {
            gbt__log(verb, GBT_LOG_INFO, "early stop: %s-%s did not improve for %d rounds; best round %d",
                     sets[rule.set].name, mls[0].names[rule.metric], rule.rounds, rule.best_round);
            stopped = 0;
            break;
        }
        if (stopped) break;
    }
    /* save_best (XGBoost's EarlyStopping(save_best=True)): however the training ended, only rounds 0..best stay */
    if (s == GBT_OK && rule.rounds > 0 && rule.save_best && rule.best_round >= 0 && last_round > rule.best_round) {
        gbt__log(verb, GBT_LOG_INFO, "save_best: keeping rounds 0..%d of %d", rule.best_round, last_round + 1);
        for (int f = 0; f < nb && s == GBT_OK; f++) s = gbt_booster_keep_rounds(bs[f], rule.best_round + 1);
    }
    /* a request made during a training that ended by itself (after its last check) is spent with it */
    if (ndone > 0) atomic_store(&b->stop_requested, 0);
    if (s == GBT_OK) {
        char e1[32];
        format_seconds(e1, sizeof e1, gbt__now() - start);
        if (stopped > 0)
            gbt__log(verb, GBT_LOG_INFO, "stopped on request after %d rounds (%d of %d asked for) in %s",
                     gbt__model_rounds(&b->model), ndone, num_rounds, e1);
        else if (rule.best_round >= 0)
            gbt__log(verb, GBT_LOG_INFO, "trained %d rounds in %s; best round %d: %s-%s = %.6f", last_round + 1,
                     e1, rule.best_round, sets[rule.set].name, mls[0].names[rule.metric], rule.best);
        else
            gbt__log(verb, GBT_LOG_INFO, "trained %d rounds in %s", stopped ? ndone : num_rounds, e1);
        if (b->comm && last_round >= 0)
            gbt__log(verb, GBT_LOG_INFO,
                     "rank %d of %d: %.3f MB exchanged in set-up, %.3f MB per round (this process's part of "
                     "every exchange)", b->comm->rank, b->comm->size, (double)bytes_setup / 1e6,
                     (double)(b->comm->bytes - bytes_setup) / 1e6 / (last_round + 1));
    }
    for (int k = 0; sets && k < nb * num_valid; k++) gbt__eval_cache_free(&sets[k]);
    free(sets);
    free(raw);
    free(all);
    free(mean);
    free(sd);
    free(mls);
    return s;
}

gbt_status gbt_booster_train(gbt_booster *b, const gbt_dataset *train, int num_rounds,
                             const gbt_dataset *const *valid, const char *const *valid_names,
                             int num_valid)
{
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(train);
    return drive(&b, 1, &train, num_rounds, valid, valid_names, num_valid, 0);
}

gbt_status gbt_booster_train_folds(gbt_booster *const *folds, int nfold, const gbt_dataset *const *train,
                                   int num_rounds, const gbt_dataset *const *valid,
                                   const char *const *valid_names, int num_valid, int show_stdv)
{
    CHECK_NOT_NULL(folds);
    CHECK_NOT_NULL(train);
    RETURN_ERROR_IF(nfold < 1, GBT_E_INVALID_ARG, "nfold must be at least 1; got %d", nfold);
    for (int f = 0; f < nfold; f++)
        RETURN_ERROR_IF(folds[f] && folds[f]->comm, GBT_E_INVALID_ARG,
                        "cross validation under a communicator is not supported (fold %d)", f);
    return drive(folds, nfold, train, num_rounds, valid, valid_names, num_valid, show_stdv != 0);
}
