/*
 * test_driver.c - the training driver's per-round hook
 * (gbt_booster_set_train_hook), its early-stopping settings
 * (gbt_booster_set_early_stopping) and cross validation's folds
 * (gbt_booster_train_folds).  The watched values come from a custom metric
 * that returns a scripted sequence, so where training stops, the best round
 * and the folds' means and deviations are worked out by hand below.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbt.h"
#include "tap.h"
#include "testutil.h"

enum { N = 300, M = 4, MAXR = 16 };

/* A custom metric whose value in call i is script[i] (one validation set: one call a round). */
struct script {
    const double *v;
    int calls;
    const char *rename; /* non-NULL: the name it gives itself on its first call */
    gbt_booster *b;
};

static int scripted(const double *margin, uint64_t nrow, int outputs, const gbt_dataset *data, void *user,
                    double *out)
{
    struct script *s = user;
    (void)margin, (void)nrow, (void)outputs, (void)data;
    if (s->calls == 0 && s->rename) gbt_booster_set_eval_callback(s->b, s->rename, scripted, s, 0);
    *out = s->v[s->calls++];
    return 0;
}

/* What the hook saw, round by round. */
struct seen {
    int calls, count, iter[MAXR], best[MAXR], early[MAXR], stop_at;
    double last[MAXR], std_last[MAXR], score[MAXR];
    char line0[256];
};

static int hook(gbt_booster *b, int iteration, const double *mean, const double *std, int count, const char *line,
                int best_iteration, double best_score, int early_stop, void *user)
{
    struct seen *s = user;
    (void)b;
    if (s->calls < MAXR) {
        s->iter[s->calls] = iteration;
        s->best[s->calls] = best_iteration;
        s->score[s->calls] = best_score;
        s->early[s->calls] = early_stop;
        s->last[s->calls] = count ? mean[count - 1] : NAN;
        s->std_last[s->calls] = count ? std[count - 1] : NAN;
    }
    if (s->calls == 0 && line) snprintf(s->line0, sizeof s->line0, "%s", line);
    s->count = count;
    s->calls++;
    return s->stop_at >= 0 && iteration == s->stop_at;
}

/* A round callback that asks for a stop, as a signal handler would, in the middle of a training. */
static int request_in_round(const gbt_booster *b, int rounds, void *user)
{
    (void)rounds, (void)user;
    gbt_booster_request_stop((gbt_booster *)b);
    return 0;
}

static int rounds_of(const gbt_booster *b)
{
    int n = -1;
    gbt_booster_num_rounds(b, &n);
    return n;
}

static const char *const SET[] = {"objective=reg:squarederror", "verbosity=0", "max_depth=2", "nthread=1",
                                  "eval_metric=rmse", NULL};

/* a minimised sequence: with min_delta 0.1 and 2 rounds, by hand: best 0, 1, 1, 3, 3, stop at 5 */
static const double DOWN[] = {5.0, 4.0, 3.95, 3.5, 3.45, 3.44, 3.43, 3.42, 3.41, 3.40};

static void test_hook_and_rule(void)
{
    static const int best[] = {0, 1, 1, 3, 3, 3};
    gbt_dataset *d = tu_dataset(N, M, NAN, 0), *v = tu_dataset(100, M, NAN, 0);
    const gbt_dataset *valid[] = {v};
    const char *names[] = {"v"};
    for (int save_best = 1; save_best >= 0; save_best--) {
        gbt_booster *b = tu_booster(SET);
        struct script sc = {DOWN, 0, "scripted", b};
        struct seen s = {.stop_at = -1};
        int same = 1, flags = 1;
        char attr[32] = "", score[32] = "";
        gbt_booster_set_eval_callback(b, "tmp", scripted, &sc, 0);
        gbt_booster_set_train_hook(b, hook, &s);
        ok_call(gbt_booster_set_early_stopping(b, 2, NULL, NULL, -1, 0.1, save_best), "set early stopping");
        ok_call(gbt_booster_train(b, d, 10, valid, names, 1), "train with save_best=%d", save_best);
        for (int r = 0; r < 6; r++) {
            same &= s.iter[r] == r && s.best[r] == best[r] && s.last[r] == DOWN[r] && s.std_last[r] == 0.0 &&
                    s.score[r] == DOWN[best[r]];
            flags &= s.early[r] == (r == 5);
        }
        ok(s.calls == 6 && s.count == 2, "one hook call a round, 6 rounds, 2 values (rmse, the custom metric)");
        ok(same, "the hook gets each round's value and the best round so far (0 1 1 3 3 3 by hand)");
        ok(flags, "early_stop is 1 in round 5 only");
        ok(strncmp(s.line0, "[0]\tv-rmse:", 11) == 0 && strstr(s.line0, "\tv-scripted:5.000000") != NULL &&
               strstr(s.line0, "elapsed") == NULL,
           "the line: the renamed metric, six decimals, no times ('%s')", s.line0);
        gbt_booster_get_attr(b, "best_iteration", attr, sizeof attr);
        gbt_booster_get_attr(b, "best_score", score, sizeof score);
        if (save_best)
            ok(rounds_of(b) == 4 && strcmp(attr, "3") == 0 && strcmp(score, "3.5") == 0,
               "save_best keeps rounds 0..3 and records 3, 3.5 (%d, '%s', '%s')", rounds_of(b), attr, score);
        else
            ok(rounds_of(b) == 6 && strcmp(attr, "3") == 0 && strcmp(score, "3.5") == 0,
               "save_best=0 keeps the 6 rounds and records 3, 3.5 as XGBoost (%d, '%s', '%s')", rounds_of(b), attr,
               score);
        gbt_booster_free(b);
    }
    {
        /* maximize=1 over the falling sequence: round 0 stays best, a stop after round 2 */
        gbt_booster *b = tu_booster(SET);
        struct script sc = {DOWN, 0, NULL, b};
        struct seen s = {.stop_at = -1};
        gbt_booster_set_eval_callback(b, "c", scripted, &sc, 0);
        gbt_booster_set_train_hook(b, hook, &s);
        gbt_booster_set_early_stopping(b, 2, "v", "c", 1, 0.0, 1);
        ok_call(gbt_booster_train(b, d, 10, valid, names, 1), "train with maximize=1");
        ok(s.calls == 3 && rounds_of(b) == 1, "maximize=1: stops after round 2 keeping round 0 (%d calls, %d rounds)",
           s.calls, rounds_of(b));
        gbt_booster_free(b);
    }
    for (int save_best = 0; save_best < 2; save_best++) {
        /* no stop in 5 rounds (rounds 3; best 0 1 1 3 3 by hand): save_best still cuts after round 3 when the
           training ends, as XGBoost's EarlyStopping.after_training does; without it all 5 stay */
        gbt_booster *b = tu_booster(SET);
        struct script sc = {DOWN, 0, NULL, b};
        char attr[32] = "";
        gbt_booster_set_eval_callback(b, "c", scripted, &sc, 0);
        gbt_booster_set_early_stopping(b, 3, NULL, NULL, -1, 0.1, save_best);
        ok_call(gbt_booster_train(b, d, 5, valid, names, 1), "5 rounds without a stop, save_best=%d", save_best);
        gbt_booster_get_attr(b, "best_iteration", attr, sizeof attr);
        ok(rounds_of(b) == (save_best ? 4 : 5) && strcmp(attr, "3") == 0,
           "save_best=%d: %d rounds kept, best_iteration '%s' recorded", save_best, rounds_of(b), attr);
        gbt_booster_free(b);
    }
    gbt_dataset_free(d);
    gbt_dataset_free(v);
}

static void test_stop_and_errors(void)
{
    gbt_dataset *d = tu_dataset(N, M, NAN, 0), *v = tu_dataset(100, M, NAN, 0);
    const gbt_dataset *valid[] = {v, d};
    const char *names[] = {"a", "b"};
    gbt_booster *b = tu_booster(SET);
    struct seen s = {.stop_at = 2};
    gbt_booster_set_train_hook(b, hook, &s);
    ok_call(gbt_booster_train(b, d, 10, valid, names, 2), "a hook that stops");
    ok(s.calls == 3 && rounds_of(b) == 3 && s.count == 2, "its stop ends the training after round 2 (%d rounds)",
       rounds_of(b));
    /* a stop request made in the last round is spent with the training: the next one runs */
    s.stop_at = -1;
    s.calls = 0;
    gbt_booster_set_round_callback(b, request_in_round, NULL);
    ok_call(gbt_booster_train(b, d, 1, valid, names, 2), "a round that asks to stop, the last one");
    gbt_booster_set_round_callback(b, NULL, NULL);
    ok(gbt_booster_train(b, d, 2, valid, names, 2) == GBT_OK && s.calls == 3 && rounds_of(b) == 6,
       "the next training runs its 2 rounds (%d hook calls, %d rounds)", s.calls, rounds_of(b));
    gbt_booster_keep_rounds(b, 3);
    ok(gbt_booster_set_early_stopping(b, 2, "zzz", NULL, -1, 0.0, 1) == GBT_OK &&
           gbt_booster_train(b, d, 5, valid, names, 2) == GBT_E_INVALID_ARG &&
           strstr(gbt_last_error(), "'zzz' (there are 'a', 'b')") != NULL && rounds_of(b) == 3,
       "an unknown data name fails before any round: %s", gbt_last_error());
    ok(gbt_booster_set_early_stopping(b, 2, NULL, "nope", -1, 0.0, 1) == GBT_OK &&
           gbt_booster_train(b, d, 5, valid, names, 2) == GBT_E_INVALID_ARG &&
           strstr(gbt_last_error(), "'nope' (there are 'rmse')") != NULL && rounds_of(b) == 4,
       "an unknown metric fails after the first round: %s", gbt_last_error());
    ok(gbt_booster_set_early_stopping(b, 2, NULL, NULL, -1, 0.0, 1) == GBT_OK &&
           gbt_booster_train(b, d, 1, NULL, NULL, 0) == GBT_E_INVALID_ARG,
       "early stopping set without a validation set is refused");
    ok(gbt_booster_set_early_stopping(b, -2, NULL, NULL, -1, 0.0, 1) == GBT_E_INVALID_ARG &&
           gbt_booster_set_early_stopping(b, 1, NULL, NULL, 2, 0.0, 1) == GBT_E_INVALID_ARG &&
           gbt_booster_set_early_stopping(b, 1, NULL, NULL, -1, -0.5, 1) == GBT_E_INVALID_ARG &&
           gbt_booster_set_early_stopping(b, 1, NULL, NULL, -1, NAN, 1) == GBT_E_INVALID_ARG,
       "bad rounds, maximize and min_delta are refused");
    gbt_booster_free(b);
    gbt_dataset_free(d);
    gbt_dataset_free(v);
}

/* two folds whose metric is 1 + r and 3 + r in round r: means 2 + r, deviations 1; minimised, round 0 stays best */
static void test_folds(void)
{
    static const double F0[] = {1, 2, 3, 4, 5}, F1[] = {3, 4, 5, 6, 7};
    gbt_dataset *d0 = tu_dataset(N, M, NAN, 0), *d1 = tu_dataset(N, M, NAN, 0), *v0 = tu_dataset(80, M, NAN, 0),
                *v1 = tu_dataset(80, M, NAN, 0);
    const gbt_dataset *train[] = {d0, d1}, *valid[] = {v0, v1};
    const char *names[] = {"test"};
    gbt_booster *b[] = {tu_booster(SET), tu_booster(SET)};
    struct script s0 = {F0, 0, NULL, b[0]}, s1 = {F1, 0, NULL, b[1]};
    struct seen s = {.stop_at = -1};
    int same = 1;
    gbt_booster_set_eval_callback(b[0], "c", scripted, &s0, 0);
    gbt_booster_set_eval_callback(b[1], "c", scripted, &s1, 0);
    gbt_booster_set_train_hook(b[0], hook, &s);
    ok_call(gbt_booster_train_folds(b, 2, train, 5, valid, names, 1, 1), "train two folds");
    for (int r = 0; r < 5; r++) same &= s.last[r] == 2.0 + r && s.std_last[r] == 1.0 && s.best[r] == 0;
    ok(s.calls == 5 && same,
       "the hook gets the means 2..6 with deviations 1 and best round 0, once a round for both folds");
    ok(strstr(s.line0, "\ttest-c:2.000000+1.000000") != NULL, "show_stdv: the line has mean+std ('%s')", s.line0);
    ok(rounds_of(b[0]) == 5 && rounds_of(b[1]) == 5, "each fold trained 5 rounds");
    ok(gbt_booster_train_folds(b, 0, train, 5, valid, names, 1, 0) == GBT_E_INVALID_ARG, "nfold 0 is refused");
    gbt_booster_free(b[0]);
    gbt_booster_free(b[1]);
    gbt_dataset_free(d0);
    gbt_dataset_free(d1);
    gbt_dataset_free(v0);
    gbt_dataset_free(v1);
}

/*
 * A custom metric of two values named on its first call (gbt_booster_set_eval_names):
 * "a" = DOWN[i] + shift and "b" = i + shift in call i; from call grow_at on it names three.
 */
struct pairs {
    int calls, grow_at;
    double shift;
    gbt_booster *b;
};

static int two_values(const double *margin, uint64_t nrow, int outputs, const gbt_dataset *data, void *user,
                      double *out)
{
    static const char *const NAMES[] = {"a", "b", "c"};
    struct pairs *p = user;
    const int grow = p->grow_at > 0 && p->calls == p->grow_at;
    (void)margin, (void)nrow, (void)outputs, (void)data;
    if ((p->calls == 0 || grow) && gbt_booster_set_eval_names(p->b, grow ? 3 : 2, NAMES) != GBT_OK) return 1;
    out[0] = DOWN[p->calls] + p->shift;
    out[1] = p->calls + p->shift;
    if (grow) out[2] = 0.0;
    p->calls++;
    return 0;
}

static void test_several_values(void)
{
    static const char *const BAD[] = {"x", ""};
    gbt_dataset *d = tu_dataset(N, M, NAN, 0), *d1 = tu_dataset(N, M, NAN, 0), *v = tu_dataset(100, M, NAN, 0),
                *v1 = tu_dataset(100, M, NAN, 0);
    const gbt_dataset *valid[] = {v, v1}, *train[] = {d, d1};
    const char *names[] = {"v"};
    char name[8] = "";
    int n = 0, same = 1;
    gbt_booster *b = tu_booster(SET), *f[2];
    struct pairs p = {0, 0, 0.0, b}, q;
    struct seen s = {.stop_at = -1};
    ok(gbt_booster_set_eval_names(b, 1, BAD) == GBT_E_STATE, "naming values without a custom metric is refused");
    gbt_booster_set_eval_callback(b, "tmp", two_values, &p, 0);
    ok(gbt_booster_set_eval_names(b, 0, BAD) == GBT_E_INVALID_ARG &&
           gbt_booster_set_eval_names(b, GBT_MAX_CUSTOM_METRICS + 1, BAD) == GBT_E_INVALID_ARG &&
           gbt_booster_set_eval_names(b, 2, BAD) == GBT_E_INVALID_ARG,
       "a count of 0 or over GBT_MAX_CUSTOM_METRICS and an empty name are refused");
    gbt_booster_set_train_hook(b, hook, &s);
    /* by default the last value ("b" = 0, 1, 2, ... minimised) decides: round 0 stays best, a stop after round 2 */
    gbt_booster_set_early_stopping(b, 2, NULL, NULL, -1, 0.0, 1);
    ok_call(gbt_booster_train(b, d, 10, valid, names, 1), "train with a metric of two values");
    for (int r = 0; r < 3; r++) same &= s.last[r] == r && s.best[r] == 0;
    ok(s.calls == 3 && s.count == 3 && same && rounds_of(b) == 1,
       "the hook gets rmse, a, b; b decides: stop after round 2 keeping round 0 (%d calls, %d values, %d rounds)",
       s.calls, s.count, rounds_of(b));
    ok(strstr(s.line0, "\tv-a:5.000000\tv-b:0.000000") != NULL, "the line shows both values ('%s')", s.line0);
    same = gbt_booster_metric_count(b, &n) == GBT_OK &&
           gbt_booster_metric_describe(b, 1, name, sizeof name, NULL) == GBT_OK;
    ok(same && n == 3 && strcmp(name, "a") == 0, "the booster describes 3 metrics, the second named 'a' (%d, '%s')",
       n, name);
    /* metric_name picks the first value: DOWN with min_delta 0.1 stops after round 5, best round 3 */
    gbt_booster_keep_rounds(b, 0);
    p.calls = 0;
    s = (struct seen){.stop_at = -1};
    gbt_booster_set_early_stopping(b, 2, NULL, "a", -1, 0.1, 1);
    ok_call(gbt_booster_train(b, d, 10, valid, names, 1), "train watching 'a'");
    ok(s.calls == 6 && s.best[5] == 3 && rounds_of(b) == 4,
       "metric_name 'a': stop after round 5 keeping rounds 0..3 (%d calls, %d rounds)", s.calls, rounds_of(b));
    /* a metric whose count changes during the training fails it */
    gbt_booster_keep_rounds(b, 0);
    gbt_booster_set_early_stopping(b, 0, NULL, NULL, -1, 0.0, 1);
    p.calls = 0;
    p.grow_at = 2;
    ok(gbt_booster_train(b, d, 5, valid, names, 1) == GBT_E_STATE && strstr(gbt_last_error(), "changed") &&
           rounds_of(b) == 3,
       "a count that changes in round 2 fails the training there: %s", gbt_last_error());
    gbt_booster_free(b);
    /* two folds: fold 1's values are fold 0's + 2; each value's mean is +1, its deviation 1 */
    f[0] = tu_booster(SET);
    f[1] = tu_booster(SET);
    p = (struct pairs){0, 0, 0.0, f[0]};
    q = (struct pairs){0, 0, 2.0, f[1]};
    s = (struct seen){.stop_at = -1};
    gbt_booster_set_eval_callback(f[0], "c", two_values, &p, 0);
    gbt_booster_set_eval_callback(f[1], "c", two_values, &q, 0);
    gbt_booster_set_train_hook(f[0], hook, &s);
    ok_call(gbt_booster_train_folds(f, 2, train, 3, valid, names, 1, 1), "train two folds");
    same = s.calls == 3 && s.count == 3;
    for (int r = 0; r < 3; r++) same &= s.last[r] == r + 1.0 && s.std_last[r] == 1.0;
    ok(same && strstr(s.line0, "\tv-a:6.000000+1.000000\tv-b:1.000000+1.000000"),
       "folds: each value averaged ('%s')", s.line0);
    gbt_booster_free(f[0]);
    gbt_booster_free(f[1]);
    gbt_dataset_free(d);
    gbt_dataset_free(d1);
    gbt_dataset_free(v);
    gbt_dataset_free(v1);
}

int main(void)
{
    test_hook_and_rule();
    test_stop_and_errors();
    test_folds();
    test_several_values();
    return done_testing();
}
