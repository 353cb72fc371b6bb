/*
 * test_binned.c - binned data kept with the dataset (src/data/binned.h):
 * a second training on one dataset with the same max_bin does not bin
 * again and gives the same model bytes as a dataset binned afresh; a
 * change of weights or max_bin bins again, one of labels or names does
 * not; validation sets are never binned.  The binnings are counted by the
 * dataset (binnings) and logged at verbosity 3.
 */
#include <math.h>

#include "testutil.h"
#include "data/dataset.h"

enum { N = 2000, C = 6, ROUNDS = 4 };

static float x[N * C], y[N], y2[N], w[N];

static gbt_dataset *fresh(const float *label, const float *weight)
{
    gbt_dataset *d = NULL;
    if (gbt_dataset_from_dense(x, N, C, NAN, &d) != GBT_OK || gbt_dataset_set_field(d, "label", label, N) != GBT_OK ||
        (weight && gbt_dataset_set_field(d, "weight", weight, N) != GBT_OK))
        exit(2);
    return d;
}

static gbt_booster *train(const gbt_dataset *d, const char *max_bin)
{
    const char *set[] = {"objective=binary:logistic", "max_depth=4", "nthread=2", max_bin, NULL};
    return tu_train(d, ROUNDS, set);
}

/* Trains on d and on a fresh dataset of the same fields: whether the models are the same bytes. */
static int same_as_fresh(const gbt_dataset *d, const float *label, const float *weight, const char *max_bin)
{
    gbt_dataset *f = fresh(label, weight);
    gbt_booster *a = train(d, max_bin), *b = train(f, max_bin);
    int same = a && b && tu_same_model(a, b) && f->binnings == 1;
    gbt_booster_free(a);
    gbt_booster_free(b);
    gbt_dataset_free(f);
    return same;
}

static int reused, binned;

static void count_log(int level, const char *msg, void *user)
{
    (void)level;
    (void)user;
    reused += strstr(msg, "binned data: reusing") != NULL;
    binned += strstr(msg, "binned data: binned in") != NULL;
}

static void test_reuse(void)
{
    gbt_dataset *d = fresh(y, NULL);
    gbt_booster *a = train(d, "max_bin=32"), *b;
    const char *names[C] = {"a", "b", "c", "d", "e", "f"};
    const char *verbose[] = {"objective=binary:logistic", "max_depth=4", "max_bin=32", "verbosity=3", NULL};
    ok(a && d->binnings == 1, "the first training bins the dataset");
    b = train(d, "max_bin=32");
    ok(b && d->binnings == 1, "a second booster with the same max_bin does not bin again");
    ok(tu_same_model(a, b), "and trains the same model bytes");
    gbt_booster_free(b);
    ok(same_as_fresh(d, y, NULL, "max_bin=32"), "the same bytes as a dataset binned afresh");

    gbt_set_log_callback(count_log, NULL);
    b = tu_train(d, 1, verbose);
    gbt_set_log_callback(NULL, NULL);
    ok(b && reused == 1 && binned == 0, "verbosity 3 logs the reuse (%d reused, %d binned)", reused, binned);
    gbt_booster_free(b);

    gbt_dataset_set_field(d, "label", y2, N);
    ok(same_as_fresh(d, y2, NULL, "max_bin=32") && d->binnings == 1,
       "new labels keep the binned data, and the model follows the new labels");
    gbt_dataset_set_feature_names(d, names, C);
    gbt_dataset_set_feature_names(d, NULL, 0);
    ok(same_as_fresh(d, y2, NULL, "max_bin=32") && d->binnings == 1, "feature names keep the binned data");

    ok(same_as_fresh(d, y2, NULL, "max_bin=16") && d->binnings == 2, "another max_bin bins again");
    ok(same_as_fresh(d, y2, NULL, "max_bin=32") && d->binnings == 3, "only the last binning is kept");

    gbt_dataset_set_field(d, "weight", w, N);
    ok(same_as_fresh(d, y2, w, "max_bin=32") && d->binnings == 4, "new weights bin again, with the weights");
    gbt_dataset_set_field(d, "weight", NULL, 0);
    ok(same_as_fresh(d, y2, NULL, "max_bin=32") && d->binnings == 5, "dropping the weights bins again");
    gbt_booster_free(a);
    gbt_dataset_free(d);
}

/* A booster keeps its binned data while the dataset re-bins, and after the dataset is freed. */
static void test_lifetime(void)
{
    const char *set[] = {"objective=binary:logistic", "max_depth=4", "nthread=2", "max_bin=32", NULL};
    gbt_dataset *d = fresh(y, NULL), *f = fresh(y, NULL);
    gbt_booster *a = tu_booster(set), *other, *want = train(f, "max_bin=32");
    int good = 1;
    for (int r = 0; r < 2; r++) good &= gbt_booster_update(a, d) == GBT_OK;
    other = train(d, "max_bin=16");
    for (int r = 2; r < ROUNDS; r++) good &= gbt_booster_update(a, d) == GBT_OK;
    ok(good && d->binnings == 2 && tu_same_model(a, want),
       "a training goes on with its own binned data after the dataset re-bins");
    gbt_dataset_free(d);
    gbt_booster_free(a);
    gbt_booster_free(other);
    gbt_booster_free(want);
    gbt_dataset_free(f);
}

static void test_validation(void)
{
    gbt_dataset *d = fresh(y, NULL), *v = fresh(y2, NULL);
    const gbt_dataset *valid[] = {v, d};
    const char *set[] = {"objective=binary:logistic", "max_depth=4", "nthread=2", "max_bin=32", NULL};
    gbt_booster *b = tu_booster(set);
    ok_call(gbt_booster_train(b, d, 6, valid, NULL, 2), "training with two validation sets");
    ok(d->binnings == 1 && v->binnings == 0, "6 rounds bin the training set once and the validation set never");
    gbt_booster_free(b);
    gbt_dataset_free(d);
    gbt_dataset_free(v);
}

static void test_csr(void)
{
    gbt_dataset *d = tu_to_csr(x, y, N, C);
    gbt_booster *a = train(d, "max_bin=32"), *b = train(d, "max_bin=32");
    ok(a && b && d->binnings == 1 && tu_same_model(a, b), "CSR data is binned once for two trainings");
    gbt_booster_free(a);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

int main(void)
{
    tu_data(N, C, 0.1, 1, x, y);
    for (int r = 0; r < N; r++) {
        y2[r] = 1.0f - y[r];
        w[r] = r % 7 == 0 ? 20.0f : 0.5f;
    }
    test_reuse();
    test_lifetime();
    test_validation();
    test_csr();
    return done_testing();
}
