/*
 * booster_train.c - gbt_booster_train: rounds with validation sets, their
 * metrics, early stopping, and the per-round log with its time estimate.
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

gbt_status gbt_booster_train(gbt_booster *b, const gbt_dataset *train, int num_rounds,
                             const gbt_dataset *const *valid, const char *const *valid_names,
                             int num_valid)
{
    struct gbt_metric_list ml;
    struct gbt_eval_cache *sets = NULL;
    double vals[GBT_MAX_METRICS + 1];
    int best_round = -1, last_round = -1, verb, last_maximize = 0, stopped = 0, ndone = 0;
    const char *last_name = "";
    double best = NAN, start = gbt__now(), t_setup, t_first = 0.0;
    uint64_t bytes_setup;
    gbt_status s = GBT_OK;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(train);
    RETURN_ERROR_IF(num_rounds < 0, GBT_E_INVALID_ARG, "num_rounds is negative (%d)", num_rounds);
    RETURN_ERROR_IF(num_valid < 0 || (num_valid > 0 && valid == NULL), GBT_E_INVALID_ARG,
                    "num_valid is %d but valid is %s", num_valid, valid ? "set" : "NULL");
    /* the training data first: it is often an evaluation set too ("train") */
    RETURN_ERROR_IF(!has_labels(b, train), GBT_E_INVALID_ARG, "the training data%s%s%s has no labels%s",
                    train->source ? " '" : "", train->source ? train->source : "", train->source ? "'" : "",
                    NO_LABEL_HINT);
    for (int i = 0; i < num_valid; i++) {
        RETURN_ERROR_IF(valid[i] == NULL, GBT_E_INVALID_ARG, "validation set %d is NULL", i);
        RETURN_ERROR_IF(!has_labels(b, valid[i]), GBT_E_INVALID_ARG, "validation set %d%s%s%s has no labels%s", i,
                        valid_names && valid_names[i] ? " ('" : "", valid_names && valid_names[i] ? valid_names[i] : "",
                        valid_names && valid_names[i] ? "')" : "", NO_LABEL_HINT);
    }
    verb = (int)b->params.verbosity;
    FORWARD_IF_ERROR(gbt__metric_list(b, &ml));
    RETURN_ERROR_IF(b->params.early_stopping_rounds > 0 && num_valid > 0 && ml.total == 0, GBT_E_PARAM,
                    "early_stopping_rounds needs a metric: disable_default_eval_metric leaves none "
                    "without eval_metric or a custom metric");
    /* the last metric decides early stopping: the custom one when there is one */
    if (ml.total > 0) {
        last_maximize = ml.maximize[ml.total - 1];
        last_name = ml.names[ml.total - 1];
    }
    if (b->ts == NULL || b->ts->data_generation != train->generation)
        FORWARD_IF_ERROR(gbt__booster_build_state(b, train));
    if (num_valid > 0) FORWARD_IF_ERROR(gbt__alloc(&sets, (size_t)num_valid, sizeof *sets, 1, "validation sets"));
    for (int i = 0; i < num_valid && s == GBT_OK; i++) {
        if (valid_names && valid_names[i])
            snprintf(sets[i].name, sizeof sets[i].name, "%s", valid_names[i]);
        else
            snprintf(sets[i].name, sizeof sets[i].name, "valid%d", i);
        s = gbt__eval_cache_sync(b, &sets[i], valid[i]);
    }
    t_setup = gbt__now();
    bytes_setup = b->comm ? b->comm->bytes : 0;
    for (int r = 0; r < num_rounds && s == GBT_OK; r++) {
        const uint32_t t0 = b->model.ntrees;
        const int round = b->model.K ? (int)(t0 / (uint32_t)b->model.K) : 0;
        struct gbt_strbuf line = {0};
        double last = NAN, t_round = gbt__now(), t_eval;
        /* a stop request (a signal handler's) ends the training between rounds */
        s = take_stop(b, &stopped);
        if (s != GBT_OK || stopped) break;
        s = gbt_booster_update(b, train);
        if (s != GBT_OK) break;
        ndone++;
        last_round = round;
        t_eval = gbt__now();
        gbt__sb_printf(&line, "[%d]", round);
        for (int i = 0; i < num_valid && s == GBT_OK; i++) {
            s = gbt__eval_cache_sync(b, &sets[i], valid[i]);
            if (s == GBT_OK) s = gbt__eval_cache_metrics(b, &sets[i], &ml, vals);
            for (int j = 0; j < ml.total && s == GBT_OK; j++) {
                gbt__sb_printf(&line, "\t%s-%s:%.6f", sets[i].name, ml.names[j], vals[j]);
                last = vals[j];
            }
        }
        if (s == GBT_OK) {
            const double now = gbt__now();
            char e1[32], e2[32];
            if (r == 0) t_first = now;
            format_seconds(e1, sizeof e1, now - start);
            format_seconds(e2, sizeof e2, gbt__eta(t_setup, t_first, now, r + 1, num_rounds));
            gbt__sb_printf(&line, "\t(%s elapsed, %s left)", e1, e2);
            if (!line.failed) gbt__log(verb, GBT_LOG_INFO, "%s", line.s);
            if (verb >= GBT_LOG_DEBUG) log_round(b, round, t0, t_eval - t_round, gbt__now() - t_eval);
        }
        free(line.s);
        if (s == GBT_OK && b->round_fn && b->round_fn(b, round + 1, b->round_user) != 0) {
            stopped = -1; /* the callback's stop */
            break;
        }
        if (s != GBT_OK || num_valid == 0 || ml.total == 0) continue;
        if (best_round < 0 || (last_maximize ? last > best : last < best)) {
            best = last;
            best_round = round;
        }
        if (b->params.early_stopping_rounds > 0 && round - best_round >= b->params.early_stopping_rounds) {
            gbt__log(verb, GBT_LOG_INFO,
                     "early stop: %s-%s did not improve for %lld rounds; keeping rounds 0..%d",
                     sets[num_valid - 1].name, last_name, (long long)b->params.early_stopping_rounds, best_round);
            s = gbt_booster_keep_rounds(b, best_round + 1);
            if (s == GBT_OK) s = gbt_booster_set_best(b, best_round, best);
            break;
        }
    }
    if (s == GBT_OK) {
        char e1[32];
        format_seconds(e1, sizeof e1, gbt__now() - start);
        if (stopped > 0)
            gbt__log(verb, GBT_LOG_INFO, "stopped on request after %d rounds (%d of %d asked for) in %s",
                     (int)(b->model.K ? b->model.ntrees / (uint32_t)b->model.K : 0), ndone,
                     num_rounds, e1);
        else if (best_round >= 0)
            gbt__log(verb, GBT_LOG_INFO, "trained %d rounds in %s; best round %d: %s-%s = %.6f",
                     last_round + 1, e1, best_round, sets[num_valid - 1].name, last_name, best);
        else
            gbt__log(verb, GBT_LOG_INFO, "trained %d rounds in %s", stopped ? ndone : num_rounds,
                     e1);
        if (b->comm && last_round >= 0)
            gbt__log(verb, GBT_LOG_INFO,
                     "rank %d of %d: %.3f MB exchanged in set-up, %.3f MB per round (this process's part of "
                     "every exchange)", b->comm->rank, b->comm->size, (double)bytes_setup / 1e6,
                     (double)(b->comm->bytes - bytes_setup) / 1e6 / (last_round + 1));
    }
    for (int i = 0; i < num_valid; i++) gbt__eval_cache_free(&sets[i]);
    free(sets);
    return s;
}
