/*
 * test_determinism.c - the same training gives byte-identical model files
 * for any thread count and on every repetition, sampling included; another
 * seed gives another model.
 */
#include <math.h>

#include "testutil.h"

struct config {
    const char *what;
    int task; /* 0 regression, 1 binary, k classes */
    int sparse;
    const char *settings[12];
};

static const struct config configs[] = {
    {"binary depthwise, missing values", 1, 0, {"objective=binary:logistic", "max_depth=6", NULL}},
    {"binary lossguide", 1, 0, {"objective=binary:logistic", "grow_policy=lossguide", "max_leaves=31", "max_depth=0", NULL}},
    {"regression with subsample and all colsamples", 0, 0,
     {"objective=reg:squarederror", "subsample=0.6", "colsample_bytree=0.8", "colsample_bylevel=0.7",
      "colsample_bynode=0.6", "seed=17", NULL}},
    {"softprob 4 classes, sparse", 4, 1, {"objective=multi:softprob", "num_class=4", "max_depth=4", NULL}},
    {"logitraw, weights, alpha, gamma, max_bin 300", 1, 0,
     {"objective=binary:logitraw", "alpha=0.5", "gamma=0.2", "max_bin=300", NULL}},
};

static gbt_dataset *make(const struct config *c)
{
    enum { N = 20000, C = 9 }; /* above GBT_CPU_MIN_PARALLEL rows: every parallel loop runs threaded */
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y), *w = malloc(N * sizeof *w);
    gbt_dataset *d = NULL;
    tu_seed(99);
    tu_data(N, C, c->sparse ? 0.8 : 0.05, c->task, x, y);
    for (int i = 0; i < N; i++) w[i] = (float)(0.25 + tu_unit());
    if (c->sparse) {
        d = tu_to_csr(x, y, N, C);
    } else {
        gbt_dataset_from_dense(x, N, C, NAN, &d);
        gbt_dataset_set_field(d, "label", y, N);
        gbt_dataset_set_field(d, "weight", w, N);
    }
    free(x);
    free(y);
    free(w);
    return d;
}

static gbt_booster *train(const struct config *c, gbt_dataset *d, const char *nthread, const char *seed)
{
    gbt_booster *b = tu_booster(c->settings);
    gbt_booster_set_param(b, "nthread", nthread);
    if (seed) gbt_booster_set_param(b, "seed", seed);
    if (gbt_booster_train(b, d, 8, NULL, NULL, 0) != GBT_OK) {
        diag("%s: %s", c->what, gbt_last_error());
        gbt_booster_free(b);
        return NULL;
    }
    return b;
}

int main(void)
{
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        const struct config *c = &configs[i];
        gbt_dataset *d = make(c);
        gbt_booster *one = train(c, d, "1", NULL), *two = train(c, d, "2", NULL), *five = train(c, d, "5", NULL);
        gbt_booster *again = train(c, d, "2", NULL);
        ok(one && tu_same_model(one, two) && tu_same_model(one, five), "%s: nthread 1, 2 and 5 give the same bytes", c->what);
        ok(tu_same_model(two, again), "%s: a repeated run gives the same bytes", c->what);
        if (strstr(c->settings[1] ? c->settings[1] : "", "subsample")) {
            gbt_booster *other = train(c, d, "2", "18");
            ok(other && !tu_same_model(two, other), "%s: another seed samples another model", c->what);
            gbt_booster_free(other);
        }
        gbt_booster_free(one);
        gbt_booster_free(two);
        gbt_booster_free(five);
        gbt_booster_free(again);
        gbt_dataset_free(d);
    }
    return done_testing();
}
