/*
 * test_accuracy.c - accuracy on the bundled real datasets with the
 * settings of the comparison in bench/accuracy.py (max_depth 6, eta 0.1,
 * 100 rounds, max_bin 256).  The references are XGBoost 3.2.0's test
 * scores on the same splits, measured by that script (docs/accuracy.md);
 * gbt must be no worse than them by more than issue 2's tolerance: 0.005
 * for AUC, logloss and RMSE, 1.5% for mlogloss.
 */
#include <math.h>

#include "testutil.h"

static gbt_dataset *load(const char *name)
{
    char path[1024];
    const char *dir = getenv("GBT_DATASETS");
    gbt_dataset *d = NULL;
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "datasets", name);
    if (gbt_dataset_from_file(path, NULL, &d) != GBT_OK) diag("%s", gbt_last_error());
    return d;
}

static void run(const char *name, const char *objective, const char *num_class, const char *metric,
                double reference, double tolerance, int higher_is_better)
{
    char tr_name[128], te_name[128];
    const char *const p[] = {objective, num_class, "max_depth=6", "eta=0.1", "max_bin=256", NULL};
    gbt_dataset *tr, *te;
    gbt_booster *b;
    double v = NAN;
    snprintf(tr_name, sizeof tr_name, "%s.train.csv", name);
    snprintf(te_name, sizeof te_name, "%s.test.csv", name);
    tr = load(tr_name);
    te = load(te_name);
    if (tr == NULL || te == NULL) {
        ok(0, "%s: datasets load", name);
        return;
    }
    b = tu_train(tr, 100, p);
    if (b) gbt_booster_eval(b, te, metric, &v);
    ok(b && (higher_is_better ? v >= reference - tolerance : v <= reference + tolerance),
       "%s: test %s %.5f (XGBoost %.5f, tolerance %g)", name, metric, v, reference, tolerance);
    gbt_booster_free(b);
    gbt_dataset_free(tr);
    gbt_dataset_free(te);
}

int main(void)
{
    run("breast_cancer", "objective=binary:logistic", "num_class=0", "auc", 0.99152, 0.005, 1);
    run("breast_cancer", "objective=binary:logistic", "num_class=0", "logloss", 0.09963, 0.005, 0);
    run("digits", "objective=multi:softprob", "num_class=10", "mlogloss", 0.12792, 0.015 * 0.12792, 0);
    run("digits", "objective=multi:softprob", "num_class=10", "merror", 0.04667, 0.01, 0);
    run("diabetes", "objective=reg:squarederror", "num_class=0", "rmse", 62.23291, 0.005, 0);
    return done_testing();
}
