/*
 * test_training.c - training behaviour: every objective lowers its loss,
 * validation metrics and early stopping (the booster keeps the best round),
 * weights and base margins honoured, frozen model parameters, and a
 * dataset or parameter change between rounds; booster=gblinear against
 * XGBoost's numbers.
 */
#include <math.h>

#include "train/booster.h"
#include "testutil.h"

static double eval(const gbt_booster *b, const gbt_dataset *d, const char *metric)
{
    double v = NAN;
    if (gbt_booster_eval(b, d, metric, &v) != GBT_OK) diag("eval %s: %s", metric, gbt_last_error());
    return v;
}

static void test_objectives(void)
{
    static const struct {
        const char *objective, *metric;
        int task;
    } cases[] = {
        {"reg:squarederror", "rmse", 0},   {"reg:logistic", "rmse", 1},      {"binary:logistic", "logloss", 1},
        {"binary:logitraw", "logloss", 1}, {"multi:softmax", "mlogloss", 3}, {"multi:softprob", "merror", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char obj[64], nc[32];
        const char *const p[] = {obj, nc, "max_depth=4", NULL};
        gbt_dataset *d;
        gbt_booster *b1, *b20;
        double l1, l20;
        snprintf(obj, sizeof obj, "objective=%s", cases[i].objective);
        snprintf(nc, sizeof nc, "num_class=%d", cases[i].task > 1 ? cases[i].task : 0);
        tu_seed(40 + i);
        d = tu_dataset(2000, 6, 0.05, cases[i].task);
        b1 = tu_train(d, 1, p);
        b20 = tu_train(d, 20, p);
        l1 = eval(b1, d, cases[i].metric);
        l20 = eval(b20, d, cases[i].metric);
        ok(b1 && b20 && l20 < l1, "%s: training %s falls from %.4f (1 round) to %.4f (20 rounds)", cases[i].objective,
           cases[i].metric, l1, l20);
        gbt_booster_free(b1);
        gbt_booster_free(b20);
        gbt_dataset_free(d);
    }
}

static int early_lines;
static void count_lines(int level, const char *msg, void *user)
{
    (void)level;
    (void)user;
    if (strstr(msg, "early stop")) early_lines++;
}

static void test_early_stopping(void)
{
    /* a tiny noisy training set and eta 1 overfit fast, so validation logloss turns up */
    const char *const p[] = {"objective=binary:logistic", "eta=1", "max_depth=6", "min_child_weight=0",
                             "eval_metric=auc", "eval_metric=logloss", "early_stopping_rounds=3", "verbosity=2", NULL};
    gbt_dataset *tr, *va;
    const gbt_dataset *valid[1];
    const char *names[1] = {"va"};
    gbt_booster *b, *ref;
    char best[32] = "", score[64] = "";
    int rounds = -1;
    tu_seed(50);
    tr = tu_dataset(150, 8, 0, 1);
    va = tu_dataset(2000, 8, 0, 1);
    valid[0] = va;
    b = tu_booster(p);
    gbt_set_log_callback(count_lines, NULL);
    ok_call(gbt_booster_train(b, tr, 200, valid, names, 1), "train with early stopping");
    gbt_set_log_callback(NULL, NULL);
    gbt_booster_num_rounds(b, &rounds);
    ok(rounds > 0 && rounds < 200, "training stopped early after %d rounds", rounds);
    ok(early_lines == 1, "the stop is logged");
    /* XGBoost 3.2's rule: every round stays, the best one is recorded; the stop comes 3 rounds after it */
    ok(gbt_booster_get_attr(b, "best_iteration", best, sizeof best) == GBT_OK && atoi(best) == rounds - 4,
       "best_iteration %s is 3 rounds before the last of the %d kept", best, rounds);
    {
        /* the best round's logloss by a fresh evaluation of the model cut there */
        gbt_booster *cut = NULL;
        ok(gbt_booster_slice(b, 0, atoi(best) + 1, &cut) == GBT_OK &&
               gbt_booster_get_attr(b, "best_score", score, sizeof score) == GBT_OK &&
               fabs(atof(score) - eval(cut, va, "logloss")) < 1e-12,
           "best_score %s is the validation logloss of rounds 0..best (the last metric decides)", score);
        gbt_booster_free(cut);
    }
    {
        /* the model is exactly the model of that many rounds */
        const char *const q[] = {"objective=binary:logistic", "eta=1", "max_depth=6", "min_child_weight=0", NULL};
        ref = tu_train(tr, rounds, q);
        float pa[2000], pb[2000];
        gbt_booster_predict(b, va, 0, pa, 2000);
        gbt_booster_predict(ref, va, 0, pb, 2000);
        ok(memcmp(pa, pb, sizeof pa) == 0, "it predicts exactly as a model trained for %d rounds", rounds);
        gbt_booster_free(ref);
    }
    {
        /* the attributes survive saving */
        char *buf;
        size_t len;
        gbt_booster *c = NULL;
        char best2[32] = "";
        buf = tu_model(b, &len);
        gbt_booster_load_from_buffer(buf, len, &c);
        ok(c && gbt_booster_get_attr(c, "best_iteration", best2, sizeof best2) == GBT_OK && strcmp(best, best2) == 0,
           "best_iteration is saved with the model");
        gbt_free(buf);
        gbt_booster_free(c);
    }
    gbt_booster_free(b);
    {
        /* without validation data early stopping does nothing */
        b = tu_booster(p);
        gbt_booster_set_param(b, "verbosity", "0");
        gbt_booster_train(b, tr, 15, NULL, NULL, 0);
        gbt_booster_num_rounds(b, &rounds);
        ok(rounds == 15 && gbt_booster_get_attr(b, "best_iteration", best, sizeof best) == GBT_E_STATE,
           "without validation data all 15 rounds stay and no best round is recorded");
        gbt_booster_free(b);
    }
    gbt_dataset_free(tr);
    gbt_dataset_free(va);
}

static void test_weights_and_margins(void)
{
    const char *const p[] = {"objective=reg:squarederror", "max_depth=3", "base_score=0", NULL};
    enum { N = 1000, C = 4 };
    float *x = malloc(2 * N * C * sizeof *x), *y = malloc(2 * N * sizeof *y), *w = malloc(N * sizeof *w);
    float *pa = malloc(N * sizeof *pa), *pb = malloc(N * sizeof *pb);
    gbt_dataset *weighted = NULL, *doubled = NULL, *d;
    gbt_booster *a, *b;
    double worst = 0;
    tu_seed(60);
    tu_data(N, C, 0, 0, x, y);
    /* weight 2 on the first half equals those rows appearing twice (up to fixed-point rounding) */
    for (int i = 0; i < N; i++) w[i] = i < N / 2 ? 2.0f : 1.0f;
    gbt_dataset_from_dense(x, N, C, NAN, &weighted);
    gbt_dataset_set_field(weighted, "label", y, N);
    gbt_dataset_set_field(weighted, "weight", w, N);
    memcpy(x + N * C, x, (N / 2) * C * sizeof *x);
    memcpy(y + N, y, (N / 2) * sizeof *y);
    gbt_dataset_from_dense(x, N + N / 2, C, NAN, &doubled);
    gbt_dataset_set_field(doubled, "label", y, N + N / 2);
    a = tu_train(weighted, 10, p);
    b = tu_train(doubled, 10, p);
    gbt_booster_predict(a, weighted, 0, pa, N);
    gbt_booster_predict(b, weighted, 0, pb, N);
    for (int i = 0; i < N; i++) worst = fmax(worst, fabs(pa[i] - pb[i]));
    ok(worst < 1e-4, "weight 2 trains the model of duplicated rows (largest difference %.2g)", worst);
    gbt_booster_free(a);
    gbt_booster_free(b);
    /* a base_margin of c trains like base_score = c */
    {
        const char *const q[] = {"objective=reg:squarederror", "max_depth=3", "base_score=1.5", NULL};
        float *bm = malloc(N * sizeof *bm);
        for (int i = 0; i < N; i++) bm[i] = 1.5f;
        d = tu_dataset(N, C, 0, 0);
        a = tu_train(d, 5, q);
        gbt_booster_predict(a, d, 0, pa, N);
        gbt_dataset_set_field(d, "base_margin", bm, N);
        b = tu_train(d, 5, p);
        gbt_booster_predict(b, d, 0, pb, N);
        ok(memcmp(pa, pb, N * sizeof *pa) == 0, "base_margin 1.5 trains and predicts like base_score 1.5");
        gbt_booster_free(a);
        gbt_booster_free(b);
        gbt_dataset_free(d);
        free(bm);
    }
    gbt_dataset_free(weighted);
    gbt_dataset_free(doubled);
    free(x);
    free(y);
    free(w);
    free(pa);
    free(pb);
}

/* Parameters that would make the margins overflow stop with a message, not undefined behaviour. */
static void test_divergence(void)
{
    const char *const p[] = {"objective=reg:squarederror", "eta=1e30", NULL};
    gbt_dataset *d;
    gbt_booster *b = tu_booster(p);
    tu_seed(70);
    d = tu_dataset(500, 3, 0, 0);
    /* round 1 leaves ~1e30, round 2 ~1e60: beyond float */
    ok(gbt_booster_train(b, d, 5, NULL, NULL, 0) == GBT_E_PARAM && strstr(gbt_last_error(), "eta"),
       "eta=1e30 stops training with a message: %s", gbt_last_error());
    {
        int n = -1;
        char *text = NULL;
        size_t len = 0;
        gbt_booster *back = NULL;
        gbt_booster_num_rounds(b, &n);
        ok(n == 1, "the booster keeps the one round that completed (%d)", n);
        ok(gbt_booster_save_to_buffer(b, &text, &len) == GBT_OK &&
               gbt_booster_load_from_buffer(text, len, &back) == GBT_OK,
           "and that model saves and loads");
        gbt_free(text);
        gbt_booster_free(back);
    }
    gbt_booster_free(b);
    b = tu_booster(NULL);
    ok(gbt_booster_set_param(b, "base_score", "1e300") == GBT_E_PARAM,
       "base_score=1e300 (beyond float) is refused: %s", gbt_last_error());
    ok_call(gbt_booster_set_param(b, "base_score", "-3e38"), "base_score=-3e38 (a float) is accepted");
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

static void test_state(void)
{
    const char *const p[] = {"objective=binary:logistic", "max_depth=3", NULL};
    gbt_dataset *d, *e;
    gbt_booster *b, *c;
    int n;
    tu_seed(70);
    d = tu_dataset(800, 5, 0, 1);
    e = tu_dataset(800, 5, 0, 1);
    b = tu_train(d, 2, p);
    ok(gbt_booster_set_param(b, "objective", "reg:squarederror") == GBT_E_STATE && strstr(gbt_last_error(), "already has trees"),
       "the objective cannot change once there are trees: %s", gbt_last_error());
    ok(gbt_booster_set_param(b, "objective", "binary:logistic") == GBT_OK, "setting the same objective is fine");
    ok(gbt_booster_set_param(b, "eta", "0.05") == GBT_OK && gbt_booster_update(b, d) == GBT_OK,
       "eta can change between rounds");
    ok(gbt_booster_set_param(b, "max_depth", "2") == GBT_OK && gbt_booster_update(b, d) == GBT_OK,
       "max_depth can change between rounds (the set-up is rebuilt)");
    ok_call(gbt_booster_update(b, e), "a round on another dataset");
    gbt_booster_num_rounds(b, &n);
    ok(n == 5, "the booster counts 5 rounds");
    {
        /* changing the labels of the dataset is noticed */
        float *y = malloc(800 * sizeof *y);
        for (int i = 0; i < 800; i++) y[i] = i % 3 == 0 ? 2.0f : 0.0f;
        gbt_dataset_set_field(e, "label", y, 800);
        ok(gbt_booster_update(b, e) == GBT_E_FORMAT && strstr(gbt_last_error(), "not 0 or 1"),
           "new labels are checked again: %s", gbt_last_error());
        gbt_booster_num_rounds(b, &n);
        ok(n == 5 && gbt_booster_update(b, d) == GBT_OK, "the failure leaves the booster usable");
        free(y);
    }
    c = tu_booster(p);
    gbt_booster_set_param(c, "eval_metric", "mlogloss");
    {
        const gbt_dataset *valid[1] = {d};
        ok(gbt_booster_train(c, d, 3, valid, NULL, 1) == GBT_E_PARAM && strstr(gbt_last_error(), "mlogloss"),
           "a metric that does not fit the objective stops training with a message: %s", gbt_last_error());
    }
    gbt_booster_free(c);
    gbt_booster_free(b);
    gbt_dataset_free(d);
    gbt_dataset_free(e);
}

/*
 * scale_pos_weight=2.5 multiplies the weight of rows labelled 1: the model
 * predicts the same bits as one trained with those rows' weights multiplied
 * by 2.5 (weights 1 and 2, so the products are exact), with and without
 * row subsampling and for both binary objectives.  Features take few
 * distinct values, so that each has its own bin whatever the weights of
 * the bin cuts' quantiles.
 */
static void test_scale_pos_weight(void)
{
    enum { N = 1500, C = 5 };
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y), *w = malloc(N * sizeof *w);
    float *ws = malloc(N * sizeof *ws), *pa = malloc(N * sizeof *pa), *pb = malloc(N * sizeof *pb);
    gbt_dataset *plain = NULL, *scaled = NULL;
    tu_seed(61);
    tu_data(N, C, 0.05, 1, x, y);
    for (int i = 0; i < N * C; i++) x[i] = floorf(x[i] * 8.0f) / 8.0f;
    for (int i = 0; i < N; i++) {
        w[i] = i % 3 == 0 ? 2.0f : 1.0f;
        ws[i] = y[i] == 1.0f ? w[i] * 2.5f : w[i];
    }
    gbt_dataset_from_dense(x, N, C, NAN, &plain);
    gbt_dataset_set_field(plain, "label", y, N);
    gbt_dataset_set_field(plain, "weight", w, N);
    gbt_dataset_from_dense(x, N, C, NAN, &scaled);
    gbt_dataset_set_field(scaled, "label", y, N);
    gbt_dataset_set_field(scaled, "weight", ws, N);
    for (int c = 0; c < 3; c++) {
        const char *obj = c == 1 ? "objective=binary:logitraw" : "objective=binary:logistic";
        const char *sub = c == 2 ? "subsample=0.7" : "subsample=1";
        const char *const pa_set[] = {obj, sub, "max_depth=4", "scale_pos_weight=2.5", NULL};
        const char *const pb_set[] = {obj, sub, "max_depth=4", NULL};
        gbt_booster *a = tu_train(plain, 6, pa_set), *b = tu_train(scaled, 6, pb_set), *u;
        ok(a && b && gbt_booster_predict(a, plain, GBT_PREDICT_MARGIN, pa, N) == GBT_OK &&
               gbt_booster_predict(b, plain, GBT_PREDICT_MARGIN, pb, N) == GBT_OK &&
               memcmp(pa, pb, N * sizeof *pa) == 0,
           "%s, %s: scale_pos_weight=2.5 equals weighting the positive rows 2.5 times", obj, sub);
        u = tu_train(plain, 6, pb_set);
        ok(u && gbt_booster_predict(u, plain, GBT_PREDICT_MARGIN, pb, N) == GBT_OK &&
               memcmp(pa, pb, N * sizeof *pa) != 0,
           "(and differs from the model without it)");
        gbt_booster_free(a);
        gbt_booster_free(b);
        gbt_booster_free(u);
    }
    {
        const char *const reg[] = {"objective=reg:squarederror", "scale_pos_weight=2", NULL};
        gbt_booster *r = tu_booster(reg);
        ok(gbt_booster_train(r, plain, 1, NULL, NULL, 0) == GBT_E_PARAM &&
               strstr(gbt_last_error(), "scale_pos_weight applies to binary:logistic and binary:logitraw"),
           "scale_pos_weight with another objective is refused: %s", gbt_last_error());
        gbt_booster_free(r);
    }
    gbt_dataset_free(plain);
    gbt_dataset_free(scaled);
    free(x);
    free(y);
    free(w);
    free(ws);
    free(pa);
    free(pb);
}

/* The time estimate comes from training rounds only: set-up before round 0 never counts. */
static void test_eta(void)
{
    /* set-up took 100 s, round 0 took 2 s, the next 4 rounds 1 s each */
    ok(near(gbt__eta(100.0, 102.0, 102.0, 1, 10), 18.0, 1e-12),
       "after round 0: its own time (2 s) times the 9 rounds left, not the set-up's 100 s");
    ok(near(gbt__eta(100.0, 102.0, 106.0, 5, 10), 5.0, 1e-12),
       "later: the mean of the rounds after the first (1 s) times the 5 left");
    ok(gbt__eta(100.0, 102.0, 110.0, 10, 10) == 0.0, "nothing left after the last round");
}

/*
 * booster=gblinear against XGBoost 3.2 (xgb.train with booster=gblinear,
 * updater=coord_descent, lambda=0.1, alpha=0.01, nthread=1, 3 rounds, on
 * the rows below with these weights): its weights, bias, base_score and raw
 * scores (NaN is missing, counted as 0); and a linear model is refused
 * what it has not (leaves, slices, a tree booster on it).
 */
static void test_linear(void)
{
    static const float x[8 * 3] = {1, 0.5f, -2, 0, 1.5f, 1, 2, NAN, 0.5f, -1, 2, 1,
                                   0.5f, -1, NAN, 1.5f, 0, -1, -0.5f, 1, 2, 3, -2, 0};
    static const float y[8] = {1.0f, 2.5f, 0.5f, 3.0f, -1.0f, 0.0f, 2.0f, -0.5f};
    static const float w[8] = {1, 2, 1, 0.5f, 1, 1, 3, 1};
    static const double xgb_margin[8] = {0.7989465594291687, 2.088984727859497, 0.5073548555374146,
                                         2.7115743160247803, 0.4291611909866333, 0.48492541909217834,
                                         2.1273021697998047, -0.9921873807907104};
    gbt_dataset *d = NULL;
    gbt_booster *b = NULL, *sl = NULL;
    double m[8], worst = 0.0;
    float leaf[8];
    char dump[256] = "", *text = NULL;
    size_t len = 0;
    gbt_status s = gbt_dataset_from_dense(x, 8, 3, NAN, &d);
    if (s == GBT_OK) s = gbt_dataset_set_field(d, "label", y, 8);
    if (s == GBT_OK) s = gbt_dataset_set_field(d, "weight", w, 8);
    if (s == GBT_OK) s = gbt_booster_create(&b);
    if (s == GBT_OK) s = gbt_booster_set_param(b, "booster", "gblinear");
    if (s == GBT_OK) s = gbt_booster_set_param(b, "updater", "coord_descent");
    if (s == GBT_OK) s = gbt_booster_set_param(b, "lambda", "0.1");
    if (s == GBT_OK) s = gbt_booster_set_param(b, "alpha", "0.01");
    for (int r = 0; r < 3 && s == GBT_OK; r++) s = gbt_booster_update(b, d);
    if (s == GBT_OK) s = gbt_booster_train_margins(b, d, m, 8);
    for (int i = 0; i < 8 && s == GBT_OK; i++)
        if (fabs(m[i] - xgb_margin[i]) > worst) worst = fabs(m[i] - xgb_margin[i]);
    ok(s == GBT_OK && worst <= 1e-6, "gblinear: XGBoost's raw scores after 3 rounds (largest difference %g)%s%s",
       worst, s ? ": " : "", s ? gbt_last_error() : "");
    if (s == GBT_OK) s = gbt_booster_dump(b, "text", -1, 0, &text, &len);
    if (s == GBT_OK) snprintf(dump, sizeof dump, "%s", text);
    gbt_free(text);
    ok(strcmp(dump, "bias:\n-0.0446436\nweight:\n-0.352339\n0.540502\n0.132399\n") == 0,
       "gblinear: XGBoost's dump of its bias and weights (%zu bytes)", strlen(dump));
    ok(b && gbt_booster_predict(b, d, GBT_PREDICT_LEAF, leaf, 8) == GBT_E_INVALID_ARG &&
           strstr(gbt_last_error(), "no leaves"),
       "gblinear: leaf ids refused (%s)", gbt_last_error());
    ok(b && gbt_booster_slice(b, 0, 1, &sl) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "cannot be sliced"),
       "gblinear: slicing refused (%s)", gbt_last_error());
    ok(b && gbt_booster_set_param(b, "booster", "gbtree") == GBT_E_STATE, "gblinear: the booster kind is frozen (%s)",
       gbt_last_error());
    gbt_booster_free(sl);
    gbt_booster_free(b);
    b = NULL;
    s = gbt_booster_create(&b);
    if (s == GBT_OK) s = gbt_booster_set_param(b, "booster", "gblinear");
    if (s == GBT_OK) s = gbt_booster_set_param(b, "objective", "rank:ndcg");
    if (s == GBT_OK) s = gbt_booster_set_param(b, "lambdarank_unbiased", "true");
    ok(s == GBT_OK && gbt_booster_update(b, d) == GBT_E_PARAM && strstr(gbt_last_error(), "lambdarank_unbiased"),
       "gblinear: lambdarank_unbiased refused by name (%s)", gbt_last_error());
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

int main(void)
{
    test_eta();
    test_objectives();
    test_early_stopping();
    test_weights_and_margins();
    test_state();
    test_scale_pos_weight();
    test_divergence();
    test_linear();
    return done_testing();
}
