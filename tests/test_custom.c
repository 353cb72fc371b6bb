/*
 * test_custom.c - custom objectives (gbt_booster_boost with the caller's
 * gradients, gbt_booster_train_margins) and custom metrics
 * (gbt_booster_set_eval_callback): the same model as a built-in objective
 * fed its own gradients, byte for byte; argument checks; metric values,
 * logging, early stopping and failures.  CPU vs emulated CUDA for the
 * custom path is in test_backend.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbt.h"
#include "tap.h"
#include "testutil.h"

enum { N = 700, M = 5 };

static gbt_dataset *make_data(int weighted)
{
    static float x[N * M], y[N], w[N];
    gbt_dataset *d = NULL;
    tu_seed(17);
    tu_data(N, M, NAN, 0, x, y); /* regression */
    for (int i = 0; i < N; i++) w[i] = (float)(0.5 + tu_unit());
    if (gbt_dataset_from_dense(x, N, M, NAN, &d) != GBT_OK) exit(2);
    gbt_dataset_set_field(d, "label", y, N);
    if (weighted) gbt_dataset_set_field(d, "weight", w, N);
    return d;
}

/*
 * reg:squarederror's gradients, written here: g = (margin - label) w,
 * h = w, from the booster's exact training margins.
 */
static gbt_status custom_rounds(gbt_booster *b, const gbt_dataset *d, int rounds)
{
    double m[N], g[N], h[N];
    const float *y, *w;
    uint64_t ny, nw;
    gbt_status s = GBT_OK;
    gbt_dataset_get_field(d, "label", &y, &ny);
    gbt_dataset_get_field(d, "weight", &w, &nw);
    for (int r = 0; r < rounds && s == GBT_OK; r++) {
        s = gbt_booster_train_margins(b, d, m, N);
        for (int i = 0; i < N; i++) {
            double wi = w ? (double)w[i] : 1.0;
            g[i] = (m[i] - (double)y[i]) * wi;
            h[i] = wi;
        }
        if (s == GBT_OK) s = gbt_booster_boost(b, d, g, h, N);
    }
    return s;
}

static void test_same_model(void)
{
    for (int c = 0; c < 4; c++) {
        const int weighted = c & 1, sampled = c >> 1;
        char sub[32];
        const char *set[] = {"objective=reg:squarederror", "verbosity=0", "max_depth=4", "seed=3", sub,
                             c == 3 ? "nthread=2" : "nthread=1", NULL};
        gbt_dataset *d = make_data(weighted);
        gbt_booster *a, *b;
        gbt_status s;
        snprintf(sub, sizeof sub, "subsample=%s", sampled ? "0.7" : "1");
        a = tu_booster(set);
        b = tu_booster(set);
        s = gbt_booster_train(a, d, 6, NULL, NULL, 0);
        if (s == GBT_OK) s = custom_rounds(b, d, 6);
        if (s != GBT_OK) diag("%s", gbt_last_error());
        ok(s == GBT_OK && tu_same_model(a, b),
           "custom gradients g = (m - y) w, h = w give reg:squarederror's model byte for byte%s%s%s",
           weighted ? ", weights" : "", sampled ? ", subsample 0.7" : "", c == 3 ? ", 2 threads" : "");
        gbt_booster_free(a);
        gbt_booster_free(b);
        gbt_dataset_free(d);
    }
}

static void test_arguments(void)
{
    gbt_dataset *d = make_data(0);
    const char *set[] = {"verbosity=0", NULL};
    gbt_booster *b = tu_booster(set);
    static double g[N], h[N], m[N + 1];
    int rounds = -1;
    for (int i = 0; i < N; i++) g[i] = 0.5, h[i] = 1.0;
    ok(gbt_booster_boost(b, d, g, h, N - 1) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "700"),
       "a wrong length is refused: %s", gbt_last_error());
    ok(gbt_booster_train_margins(b, d, m, N + 1) == GBT_E_INVALID_ARG, "train_margins: a wrong length is refused");
    g[123] = NAN;
    ok(gbt_booster_boost(b, d, g, h, N) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "row 123"),
       "a NaN gradient is refused, naming its row: %s", gbt_last_error());
    g[123] = 0.5;
    h[5] = INFINITY;
    ok(gbt_booster_boost(b, d, g, h, N) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "row 5") &&
           strstr(gbt_last_error(), "hessian"),
       "an infinite hessian is refused, naming its row: %s", gbt_last_error());
    h[5] = 1.0;
    ok(gbt_booster_boost(NULL, d, g, h, N) == GBT_E_INVALID_ARG && gbt_booster_boost(b, d, NULL, h, N) == GBT_E_INVALID_ARG,
       "NULL booster or gradients are refused");
    gbt_booster_num_rounds(b, &rounds);
    ok(rounds == 0, "refused calls add no round");
    {
        /* a constant gradient gives a tree of one leaf: every row moves the same */
        float p[N];
        double expect;
        ok_call(gbt_booster_boost(b, d, g, h, N), "one custom round");
        gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, p, N);
        ok_call(gbt_booster_train_margins(b, d, m, N), "train_margins after the round");
        expect = m[0];
        ok(fabs((double)p[0] - expect) < 1e-6 && fabs(p[N - 1] - p[0]) < 1e-7,
           "train_margins = the predicted raw scores (%.7f vs %.7f)", (double)p[0], expect);
    }
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/* reg:squarederror's gradients as an objective callback; user: call counter, fail on call 3 when negative. */
static int sq_objective(const double *margin, uint64_t nrow, int outputs, const gbt_dataset *data, void *user,
                        double *grad, double *hess)
{
    int *calls = user;
    const float *y, *w;
    uint64_t n, nw;
    (*calls)++;
    if (*calls < 0 || outputs != 1) return 5;
    gbt_dataset_get_field(data, "label", &y, &n);
    gbt_dataset_get_field(data, "weight", &w, &nw);
    for (uint64_t i = 0; i < nrow; i++) {
        const double wi = w ? (double)w[i] : 1.0;
        grad[i] = (margin[i] - (double)y[i]) * wi;
        hess[i] = wi;
    }
    return 0;
}

static void test_objective_callback(void)
{
    gbt_dataset *d = make_data(1);
    const gbt_dataset *valid[] = {d};
    const char *set[] = {"verbosity=0", "max_depth=3", "subsample=0.8", "early_stopping_rounds=3", NULL};
    gbt_booster *a = tu_booster(set), *b = tu_booster(set);
    int calls = 0, rounds = -1;
    gbt_status s = gbt_booster_train(a, d, 8, valid, NULL, 1);
    ok_call(gbt_booster_set_objective_callback(b, sq_objective, &calls), "set an objective callback");
    if (s == GBT_OK) s = gbt_booster_train(b, d, 8, valid, NULL, 1);
    ok(s == GBT_OK && calls == 8 && tu_same_model(a, b),
       "gbt_booster_train with it = reg:squarederror's model (weights, subsample, early stopping on; %d calls)",
       calls);
    calls = -10;
    ok(gbt_booster_update(b, d) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "returned 5"),
       "a failing objective callback stops the round: %s", gbt_last_error());
    gbt_booster_num_rounds(b, &rounds);
    ok(rounds == 8, "and adds no round (%d)", rounds);
    ok_call(gbt_booster_set_objective_callback(b, NULL, NULL), "remove it");
    ok(gbt_booster_update(b, d) == GBT_OK && calls == -9, "removed: the objective's gradients again");
    gbt_booster_free(a);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/* ---- custom metrics -------------------------------------------------------- */

struct seen {
    int calls, bad_shape;
    double last;
    int fail_at;       /* return an error on this call (0: never) */
    int worsen_after;  /* from this call on, report rising values */
};

/* RMSE of the raw scores, computed here. */
static int my_rmse(const double *margin, uint64_t nrow, int outputs, const gbt_dataset *data, void *user,
                   double *out)
{
    struct seen *s = user;
    const float *y;
    uint64_t n;
    double sum = 0.0;
    s->calls++;
    if (s->fail_at && s->calls == s->fail_at) return 7;
    gbt_dataset_get_field(data, "label", &y, &n);
    if (n != nrow || outputs != 1) s->bad_shape = 1;
    for (uint64_t i = 0; i < nrow; i++) sum += (margin[i] - y[i]) * (margin[i] - y[i]);
    *out = sqrt(sum / (double)nrow);
    if (s->worsen_after && s->calls >= s->worsen_after) *out = 100.0 + s->calls;
    s->last = *out;
    return 0;
}

static char logged[4096];
static void capture(int level, const char *msg, void *user)
{
    (void)level, (void)user;
    if (strstr(msg, "[2]")) snprintf(logged, sizeof logged, "%s", msg);
}

static void test_metric(void)
{
    gbt_dataset *d = make_data(0);
    const gbt_dataset *valid[] = {d};
    const char *names[] = {"train"};
    const char *set[] = {"verbosity=2", "eval_metric=rmse", NULL};
    struct seen s;
    char best[32] = "";
    double rmse = NAN;
    gbt_booster *b = tu_booster(set);
    memset(&s, 0, sizeof s);
    ok(gbt_booster_set_eval_callback(b, "", my_rmse, &s, 0) == GBT_E_INVALID_ARG, "an empty metric name is refused");
    ok_call(gbt_booster_set_eval_callback(b, "myrmse", my_rmse, &s, 0), "set a custom metric");
    gbt_set_log_callback(capture, NULL);
    ok_call(gbt_booster_train(b, d, 5, valid, names, 1), "train 5 rounds with it");
    gbt_set_log_callback(NULL, NULL);
    gbt_booster_eval(b, d, "rmse", &rmse);
    ok(s.calls == 5 && !s.bad_shape, "called once a round with nrow rows and 1 output (%d calls)", s.calls);
    ok(fabs(s.last - rmse) < 1e-9, "its value after the last round = the built-in rmse (%.9f vs %.9f)", s.last, rmse);
    ok(strstr(logged, "train-rmse:") && strstr(logged, "train-myrmse:"),
       "logged after the eval_metric ones: %s", logged);
    gbt_booster_free(b);

    {
        /* it decides early stopping: worse from the 4th round on */
        const char *set2[] = {"verbosity=0", "early_stopping_rounds=2", NULL};
        b = tu_booster(set2);
        memset(&s, 0, sizeof s);
        s.worsen_after = 4;
        gbt_booster_set_eval_callback(b, "myrmse", my_rmse, &s, 0);
        ok_call(gbt_booster_train(b, d, 20, valid, names, 1), "train with early stopping on the custom metric");
        gbt_booster_get_attr(b, "best_iteration", best, sizeof best);
        ok(strcmp(best, "2") == 0 && s.calls == 5, "it stops 2 rounds after its best (round %s, %d calls)", best,
           s.calls);
        gbt_booster_free(b);
    }
    {
        /* maximize: the rising values are better, so no stop */
        const char *set2[] = {"verbosity=0", "early_stopping_rounds=2", NULL};
        int rounds = 0;
        b = tu_booster(set2);
        memset(&s, 0, sizeof s);
        s.worsen_after = 1;
        gbt_booster_set_eval_callback(b, "up", my_rmse, &s, 1);
        gbt_booster_train(b, d, 6, valid, names, 1);
        gbt_booster_num_rounds(b, &rounds);
        ok(rounds == 6, "maximize=1: rising values do not stop the training (%d rounds)", rounds);
        gbt_booster_free(b);
    }
    {
        const char *set2[] = {"verbosity=0", NULL};
        int rounds = -1;
        b = tu_booster(set2);
        memset(&s, 0, sizeof s);
        s.fail_at = 3;
        gbt_booster_set_eval_callback(b, "myrmse", my_rmse, &s, 0);
        ok(gbt_booster_train(b, d, 6, valid, names, 1) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "myrmse") &&
               strstr(gbt_last_error(), "7"),
           "a failing metric stops the training: %s", gbt_last_error());
        gbt_booster_num_rounds(b, &rounds);
        ok(rounds == 3, "keeping the rounds that completed (%d)", rounds);
        ok_call(gbt_booster_set_eval_callback(b, NULL, NULL, NULL, 0), "remove the custom metric");
        s.calls = 0;
        ok(gbt_booster_train(b, d, 1, valid, names, 1) == GBT_OK && s.calls == 0, "removed: not called");
        gbt_booster_free(b);
    }
    gbt_dataset_free(d);
}

int main(void)
{
    test_same_model();
    test_arguments();
    test_objective_callback();
    test_metric();
    tu_cleanup();
    return done_testing();
}
