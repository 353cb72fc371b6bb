/*
 * test_rounds.c - rounds driven by the caller (gbt_booster_update,
 * gbt_booster_eval_round, gbt_booster_keep_rounds, gbt_booster_set_best)
 * give gbt_booster_train's model and numbers; the cached evaluation equals
 * a fresh one (gbt_booster_eval, which walks every tree) after every round,
 * after rounds are dropped and after the data changes; the metric list
 * (defaults from README's objective table); gbt_booster_transform; errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbt.h"
#include "tap.h"
#include "testutil.h"

enum { N = 600, M = 6 };

static int count(const gbt_booster *b)
{
    int n = -1;
    if (gbt_booster_metric_count(b, &n) != GBT_OK) diag("%s", gbt_last_error());
    return n;
}

/* The caller's loop: update, evaluate each set, track the last metric of the last set, stop early. */
static gbt_status my_loop(gbt_booster *b, const gbt_dataset *train, int rounds, gbt_dataset **valid,
                          int nvalid, int esr, double *first_vals)
{
    int best = -1, nm = count(b), maximize = 0;
    double best_score = NAN, vals[17];
    gbt_status s = GBT_OK;
    if (gbt_booster_metric_describe(b, nm - 1, NULL, 0, &maximize) != GBT_OK) return GBT_E_INTERNAL;
    for (int r = 0; r < rounds && s == GBT_OK; r++) {
        s = gbt_booster_update(b, train);
        for (int i = 0; i < nvalid && s == GBT_OK; i++) s = gbt_booster_eval_round(b, valid[i], vals, 17);
        if (s != GBT_OK) break;
        if (r == 0 && first_vals) memcpy(first_vals, vals, (size_t)nm * sizeof *vals);
        if (best < 0 || (maximize ? vals[nm - 1] > best_score : vals[nm - 1] < best_score)) {
            best = r;
            best_score = vals[nm - 1];
        }
        if (r - best >= esr) {
            s = gbt_booster_keep_rounds(b, best + 1);
            if (s == GBT_OK) s = gbt_booster_set_best(b, best, best_score);
            break;
        }
    }
    return s;
}

static void test_same_as_train(void)
{
    const char *set[] = {"objective=binary:logistic", "verbosity=0", "max_depth=3", "eta=0.6",
                         "eval_metric=auc", "eval_metric=logloss", "early_stopping_rounds=3",
                         "subsample=0.8", "nthread=1", NULL};
    gbt_dataset *train = tu_dataset(N, M, NAN, 1), *v1 = tu_dataset(200, M, 0.1, 1),
                *v2 = tu_dataset(150, M, NAN, 1);
    gbt_dataset *valid[] = {v1, v2};
    const char *names[] = {"a", "b"};
    gbt_booster *a = tu_booster(set), *b = tu_booster(set);
    char ia[32] = "", ib[32] = "", sa[64] = "", sb[64] = "";
    /* save_best: the driver cuts after the best round, as the caller's loop does */
    gbt_status s = gbt_booster_set_early_stopping(a, -1, NULL, NULL, -1, 0.0, 1);
    if (s == GBT_OK) s = gbt_booster_train(a, train, 200, (const gbt_dataset *const *)valid, names, 2);
    if (s == GBT_OK) s = my_loop(b, train, 200, valid, 2, 3, NULL);
    if (s != GBT_OK) diag("%s", gbt_last_error());
    gbt_booster_get_attr(a, "best_iteration", ia, sizeof ia);
    gbt_booster_get_attr(b, "best_iteration", ib, sizeof ib);
    gbt_booster_get_attr(a, "best_score", sa, sizeof sa);
    gbt_booster_get_attr(b, "best_score", sb, sizeof sb);
    ok(s == GBT_OK && ia[0] && strcmp(ia, ib) == 0 && strcmp(sa, sb) == 0,
       "update + eval_round + keep_rounds + set_best stop where gbt_booster_train (save_best) stops (best %s, %s)", ia,
       sa);
    ok(s == GBT_OK && tu_same_model(a, b), "and save the same model, byte for byte");
    /* training goes on after the cut: the training state was set up again */
    s = gbt_booster_update(a, train);
    if (s == GBT_OK) s = gbt_booster_update(b, train);
    ok(s == GBT_OK && tu_same_model(a, b), "one more round after the cut: still the same model");
    gbt_booster_free(a);
    gbt_booster_free(b);
    gbt_dataset_free(train);
    gbt_dataset_free(v1);
    gbt_dataset_free(v2);
}

/* Every metric of eval_round against gbt_booster_eval's fresh walk of every tree. */
static int same_as_fresh(gbt_booster *b, const gbt_dataset *d, const char *const *metrics, int nm)
{
    double vals[8], v;
    if (gbt_booster_eval_round(b, d, vals, 8) != GBT_OK) {
        diag("%s", gbt_last_error());
        return 0;
    }
    for (int j = 0; j < nm; j++) {
        if (gbt_booster_eval(b, d, metrics[j], &v) != GBT_OK || v != vals[j]) {
            diag("%s: cached %.17g, fresh %.17g", metrics[j], vals[j], v);
            return 0;
        }
    }
    return 1;
}

static void test_cache(void)
{
    const char *set[] = {"objective=multi:softprob", "num_class=3", "verbosity=0", "max_depth=3",
                         "eval_metric=mlogloss,merror", NULL};
    const char *metrics[] = {"mlogloss", "merror"};
    gbt_dataset *train = tu_dataset(N, M, NAN, 3), *v = tu_dataset(300, M, NAN, 3);
    gbt_booster *b = tu_booster(set);
    float y[300];
    int all = 1;
    for (int r = 0; r < 12 && all; r++) {
        all = gbt_booster_update(b, train) == GBT_OK;
        if (r % 3 == 2) all = all && same_as_fresh(b, v, metrics, 2); /* 3 rounds added between calls */
    }
    ok(all, "eval_round every third round equals a fresh evaluation of every tree");
    ok(gbt_booster_keep_rounds(b, 5) == GBT_OK && same_as_fresh(b, v, metrics, 2),
       "after keep_rounds(5) too (the kept scores had 12 rounds)");
    all = 1;
    for (int r = 0; r < 3 && all; r++) all = gbt_booster_update(b, train) == GBT_OK && same_as_fresh(b, v, metrics, 2);
    ok(all, "and after training on from there (8 rounds, as many as before minus 4)");
    for (int i = 0; i < 300; i++) y[i] = (float)((i * 7) % 3);
    gbt_dataset_set_field(v, "label", y, 300);
    ok(same_as_fresh(b, v, metrics, 2), "new labels on the same dataset: the metrics follow them");
    ok(gbt_booster_eval_forget(b, v) == GBT_OK && gbt_booster_eval_forget(b, NULL) == GBT_OK &&
           same_as_fresh(b, v, metrics, 2),
       "eval_forget releases the scores; the next call starts over");
    gbt_booster_free(b);
    gbt_dataset_free(train);
    gbt_dataset_free(v);
}

/* Defaults as README's objective table and XGBoost document them. */
static void test_metric_list(void)
{
    static const struct {
        const char *obj, *name;
        int maximize;
    } cases[] = {
        {"reg:squarederror", "rmse", 0},       {"binary:logistic", "logloss", 0},
        {"binary:logitraw", "auc", 1},         {"multi:softprob", "mlogloss", 0},
        {"count:poisson", "poisson-nloglik", 0}, {"reg:absoluteerror", "mae", 0},
        {"rank:ndcg", "ndcg@32", 1},           {"rank:pairwise", "ndcg@32", 1},
        {"rank:map", "map@32", 1},             {"survival:cox", "cox-nloglik", 0},
        {"survival:aft", "aft-nloglik", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gbt_booster *b = tu_booster(NULL);
        char name[64] = "";
        int max = -1;
        gbt_booster_set_param(b, "objective", cases[i].obj);
        if (strncmp(cases[i].obj, "multi", 5) == 0) gbt_booster_set_param(b, "num_class", "3");
        gbt_booster_metric_describe(b, 0, name, sizeof name, &max);
        ok(count(b) == 1 && strcmp(name, cases[i].name) == 0 && max == cases[i].maximize,
           "%s: default metric %s, %s is better", cases[i].obj, name, max ? "higher" : "lower");
        gbt_booster_free(b);
    }
    {
        gbt_booster *b = tu_booster(NULL);
        char name[64] = "";
        int max = -1;
        gbt_booster_set_param(b, "disable_default_eval_metric", "1");
        ok(count(b) == 0, "disable_default_eval_metric=1: no metric");
        gbt_booster_set_param(b, "eval_metric", "error@0.7,aucpr");
        gbt_booster_metric_describe(b, 1, name, sizeof name, &max);
        ok(count(b) == 2 && strcmp(name, "aucpr") == 0 && max == 1, "eval_metric's list: aucpr second, maximised");
        ok(gbt_booster_metric_describe(b, 2, name, sizeof name, &max) == GBT_E_INVALID_ARG,
           "metric 2 of 2 is GBT_E_INVALID_ARG (%s)", gbt_last_error());
        ok(gbt_booster_metric_describe(b, 0, name, 4, &max) == GBT_E_INVALID_ARG,
           "a name buffer too small is GBT_E_INVALID_ARG (%s)", gbt_last_error());
        gbt_booster_free(b);
    }
}

static int half_rmse(const double *margin, uint64_t nrow, int outputs, const gbt_dataset *data, void *user,
                     double *out)
{
    const float *y;
    uint64_t n;
    double s = 0;
    (void)outputs;
    (void)user;
    gbt_dataset_get_field(data, "label", &y, &n);
    for (uint64_t i = 0; i < nrow; i++) s += (margin[i] - y[i]) * (margin[i] - y[i]);
    *out = 0.5 * sqrt(s / (double)nrow);
    return 0;
}

static void test_custom_metric(void)
{
    const char *set[] = {"objective=reg:squarederror", "verbosity=0", "max_depth=2", NULL};
    gbt_dataset *train = tu_dataset(N, M, NAN, 0);
    gbt_booster *b = tu_booster(set);
    double vals[4] = {0}, rmse = 0;
    char name[64] = "";
    int max = -1;
    gbt_booster_set_eval_callback(b, "half-rmse", half_rmse, NULL, 1);
    gbt_booster_metric_describe(b, 1, name, sizeof name, &max);
    ok(count(b) == 2 && strcmp(name, "half-rmse") == 0 && max == 1,
       "a custom metric comes last, with its name and direction");
    gbt_booster_update(b, train);
    gbt_booster_update(b, train);
    gbt_booster_eval(b, train, "rmse", &rmse);
    ok(gbt_booster_eval_round(b, train, vals, 4) == GBT_OK && vals[0] == rmse &&
           fabs(vals[1] - 0.5 * rmse) <= 1e-12 * rmse,
       "eval_round computes it after the built-in ones (%g = rmse / 2)", vals[1]);
    ok(gbt_booster_eval_round(b, train, vals, 1) == GBT_E_INVALID_ARG,
       "an output shorter than the metrics is GBT_E_INVALID_ARG (%s)", gbt_last_error());
    gbt_booster_free(b);
    gbt_dataset_free(train);
}

static void test_best_and_keep(void)
{
    const char *set[] = {"objective=binary:logistic", "verbosity=0", "max_depth=2", NULL};
    gbt_dataset *train = tu_dataset(N, M, NAN, 1);
    gbt_booster *b = tu_booster(set), *sliced = NULL, *empty = tu_booster(NULL);
    char buf[32] = "";
    double vals[2];
    int rounds = -1;
    ok(gbt_booster_eval_round(empty, train, vals, 2) == GBT_E_STATE,
       "eval_round without a model is GBT_E_STATE (%s)", gbt_last_error());
    for (int r = 0; r < 6; r++) gbt_booster_update(b, train);
    ok(gbt_booster_set_best(b, 6, 0.5) == GBT_E_INVALID_ARG && gbt_booster_set_best(b, -2, 0.5) == GBT_E_INVALID_ARG,
       "set_best refuses a round the model does not have (%s)", gbt_last_error());
    ok(gbt_booster_set_best(b, 4, 0.25) == GBT_OK && gbt_booster_get_attr(b, "best_iteration", buf, sizeof buf) == GBT_OK &&
           strcmp(buf, "4") == 0,
       "set_best(4) is what get_attr reads");
    ok(gbt_booster_keep_rounds(b, 7) == GBT_E_INVALID_ARG, "keep_rounds(7) of 6 rounds is GBT_E_INVALID_ARG (%s)",
       gbt_last_error());
    gbt_booster_slice(b, 0, 3, &sliced);
    ok(gbt_booster_keep_rounds(b, 3) == GBT_OK && gbt_booster_num_rounds(b, &rounds) == GBT_OK && rounds == 3 &&
           sliced && tu_same_model(b, sliced),
       "keep_rounds(3) leaves gbt_booster_slice(0, 3)'s model; the best round 4 is gone with its round");
    ok(gbt_booster_set_best(b, -1, 0) == GBT_OK && gbt_booster_get_attr(b, "best_iteration", buf, sizeof buf) == GBT_E_STATE,
       "set_best(-1) removes the record");
    {
        double m[N];
        float p[N], t[N];
        gbt_booster_train_margins(b, train, m, N);
        gbt_booster_predict(b, train, 0, p, N);
        ok(gbt_booster_transform(b, m, N, t, N) == GBT_OK && memcmp(p, t, sizeof p) == 0,
           "transform of the training margins gives gbt_booster_predict's probabilities");
        ok(gbt_booster_transform(b, m, N, t, N - 1) == GBT_E_INVALID_ARG,
           "transform into too short an output is GBT_E_INVALID_ARG (%s)", gbt_last_error());
    }
    gbt_booster_free(b);
    gbt_booster_free(sliced);
    gbt_booster_free(empty);
    gbt_dataset_free(train);
}

/* Round callback: records the rounds it saw; asks to stop (request or return value) at a given round. */
struct stopper {
    gbt_booster *b;
    int seen[64], nseen, request_at, return_at;
};

static int on_round(const gbt_booster *b, int rounds, void *user)
{
    struct stopper *st = user;
    (void)b;
    if (st->nseen < 64) st->seen[st->nseen++] = rounds;
    if (rounds == st->request_at) gbt_booster_request_stop(st->b);
    return rounds == st->return_at;
}

/*
 * Issue 27: gbt_booster_request_stop ends gbt_booster_train after the round
 * in progress with the finished rounds kept; the round callback sees every
 * round and can stop the training; the model equals that many rounds
 * trained at once.
 */
static void test_stop(void)
{
    gbt_dataset *d;
    gbt_booster *b, *ref;
    struct stopper st;
    char *m1 = NULL, *m2 = NULL;
    size_t l1 = 0, l2 = 0;
    int n = -1, seq = 1;
    tu_seed(7);
    d = tu_dataset(N, M, 0, 0);
    gbt_booster_create(&b);
    gbt_booster_set_param(b, "verbosity", "0");
    ok(gbt_booster_request_stop(NULL) == GBT_E_INVALID_ARG, "gbt_booster_request_stop(NULL) is refused");
    ok(gbt_booster_request_stop(b) == GBT_OK && gbt_booster_train(b, d, 5, NULL, NULL, 0) == GBT_OK &&
           gbt_booster_num_rounds(b, &n) == GBT_OK && n == 0,
       "a request before training stops it before its first round");
    memset(&st, 0, sizeof st);
    st.b = b;
    st.request_at = 3;
    st.return_at = -1;
    gbt_booster_set_round_callback(b, on_round, &st);
    ok(gbt_booster_train(b, d, 10, NULL, NULL, 0) == GBT_OK && gbt_booster_num_rounds(b, &n) == GBT_OK && n == 3,
       "a request during round 3 (the request is spent: this training ran): 3 rounds kept");
    for (int i = 0; i < st.nseen; i++) seq &= st.seen[i] == i + 1;
    ok(st.nseen == 3 && seq, "the callback saw rounds 1, 2, 3 (%d calls)", st.nseen);
    st.nseen = 0;
    st.request_at = -1;
    st.return_at = 5;
    ok(gbt_booster_train(b, d, 10, NULL, NULL, 0) == GBT_OK && gbt_booster_num_rounds(b, &n) == GBT_OK && n == 5,
       "the callback's non-zero return after round 5 (the model's rounds) stops there");
    ok(st.nseen == 2 && st.seen[0] == 4 && st.seen[1] == 5, "continued training: the callback counts the model's rounds");
    gbt_booster_set_round_callback(b, NULL, NULL);
    gbt_booster_create(&ref);
    gbt_booster_set_param(ref, "verbosity", "0");
    gbt_booster_train(ref, d, 5, NULL, NULL, 0);
    ok(gbt_booster_save_to_buffer(b, &m1, &l1) == GBT_OK && gbt_booster_save_to_buffer(ref, &m2, &l2) == GBT_OK &&
           l1 == l2 && memcmp(m1, m2, l1) == 0,
       "the stopped and continued model is the model of 5 rounds at once, byte for byte");
    free(m1);
    free(m2);
    gbt_booster_free(ref);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

int main(void)
{
    test_same_as_train();
    test_cache();
    test_metric_list();
    test_custom_metric();
    test_best_and_keep();
    test_stop();
    return done_testing();
}
