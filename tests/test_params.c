/*
 * test_params.c - the parameter table: defaults, aliases, types, ranges,
 * unknown names, the eval_metric list and frozen model parameters.
 */
#include <math.h>
#include <string.h>

#include "gbt.h"
#include "tap.h"

static const char *get(gbt_booster *b, const char *name)
{
    static char buf[512];
    if (gbt_booster_get_param(b, name, buf, sizeof buf) != GBT_OK) return "<error>";
    return buf;
}

static char last_warning[512];

static void keep_warning(int level, const char *msg, void *user)
{
    (void)user;
    if (level == GBT_LOG_WARNING) snprintf(last_warning, sizeof last_warning, "%s", msg);
}

/* XGBoost configurations that carry over (issue 12). */
static void test_xgboost_names(void)
{
    gbt_booster *b;
    const char *const rounds[] = {"n_estimators", "nround", "num_boost_round", "num-round", NULL};
    char buf[32] = "";
    gbt_booster_create(&b);
    gbt_set_log_callback(keep_warning, NULL);
    ok_call(gbt_booster_set_param(b, "booster", "gbtree"), "booster=gbtree is accepted");
    ok_call(gbt_booster_set_param(b, "booster", "dart"), "booster=dart is accepted");
    ok(gbt_booster_set_param(b, "booster", "gblinear") == GBT_OK && gbt_booster_get_param(b, "eta", buf, sizeof buf) == GBT_OK &&
           strcmp(buf, "0.5") == 0,
       "booster=gblinear is accepted, with XGBoost's linear eta 0.5 when eta was not set (%s)", buf);
    ok(gbt_booster_set_param(b, "booster", "gbthree") == GBT_E_PARAM && strstr(gbt_last_error(), "gbtree|dart|gblinear"),
       "another booster is refused: %s", gbt_last_error());
    ok(gbt_booster_set_param(b, "normalize_type", "both") == GBT_E_PARAM && strstr(gbt_last_error(), "tree|forest"),
       "normalize_type is tree or forest: %s", gbt_last_error());
    ok(gbt_booster_set_param(b, "rate_drop", "1.5") == GBT_E_PARAM, "rate_drop is in [0, 1]: %s", gbt_last_error());
    ok_call(gbt_booster_set_param(b, "booster", "gbtree"), "booster=gbtree again");
    ok(gbt_booster_set_param(b, "scale_pos_weight", "3") == GBT_OK && strcmp(get(b, "scale_pos_weight"), "3") == 0,
       "scale_pos_weight is a parameter (default 1)");
    ok(gbt_booster_set_param(b, "scale_pos_weight", "0") == GBT_E_PARAM && strstr(gbt_last_error(), "(0, inf)"),
       "scale_pos_weight must be positive: %s", gbt_last_error());
    for (int i = 0; rounds[i]; i++)
        ok(gbt_booster_set_param(b, rounds[i], "100") == GBT_E_PARAM &&
               strstr(gbt_last_error(), "pass it to gbt_booster_train (gbtrain --num_round=N)"),
           "%s says where the number of rounds goes: %s", rounds[i], gbt_last_error());
    ok(gbt_booster_set_param(b, "objective", "binary:logisitc") == GBT_E_PARAM &&
           strstr(gbt_last_error(), "did you mean 'binary:logistic'?"),
       "a mistyped value gets a suggestion: %s", gbt_last_error());
    ok(gbt_booster_set_param(b, "grow_policy", "xyz") == GBT_E_PARAM && !strstr(gbt_last_error(), "did you mean"),
       "a value near no choice gets none: %s", gbt_last_error());
    last_warning[0] = '\0';
    ok_call(gbt_booster_set_param(b, "tree_method", "gpu_hist"), "tree_method=gpu_hist is accepted");
    ok(strcmp(get(b, "tree_method"), "hist") == 0 && strcmp(get(b, "device"), "cuda") == 0,
       "as hist on device cuda (%s, %s)", get(b, "tree_method"), get(b, "device"));
    ok(strstr(last_warning, "deprecated") && strstr(last_warning, "device=cuda"), "with a warning: %s",
       last_warning);
    gbt_booster_set_param(b, "device", "cuda:1");
    gbt_booster_set_param(b, "tree_method", "gpu_hist");
    ok(strcmp(get(b, "device"), "cuda:1") == 0, "gpu_hist keeps a CUDA device already chosen (%s)",
       get(b, "device"));
    for (int i = 0; i < 2; i++) {
        const char *m = i ? "approx" : "exact";
        last_warning[0] = '\0';
        gbt_booster_set_param(b, "tree_method", "auto");
        ok(gbt_booster_set_param(b, "tree_method", m) == GBT_OK && strcmp(get(b, "tree_method"), "hist") == 0,
           "tree_method=%s trains with hist", m);
        ok(strstr(last_warning, m) && strstr(last_warning, "histograms only"), "and warns: %s", last_warning);
    }
    gbt_set_log_callback(NULL, NULL);
    gbt_booster_free(b);
    /* XGBoost's learner: num_class > 1 without an objective means multi:softmax. */
    gbt_booster_create(&b);
    gbt_booster_set_param(b, "num_class", "2");
    ok(strcmp(get(b, "objective"), "multi:softmax") == 0, "num_class=2 without an objective: %s",
       get(b, "objective"));
    gbt_booster_set_param(b, "num_class", "0");
    ok(strcmp(get(b, "objective"), "reg:squarederror") == 0, "num_class=0 again: %s", get(b, "objective"));
    gbt_booster_set_param(b, "objective", "binary:logistic");
    gbt_booster_set_param(b, "num_class", "3");
    ok(strcmp(get(b, "objective"), "binary:logistic") == 0, "an objective set stays: %s", get(b, "objective"));
    gbt_booster_free(b);
}

int main(void)
{
    gbt_booster *b;
    char small[2];
    int n = gbt_param_count(), found_eta = 0;

    ok_call(gbt_booster_create(&b), "create a booster");
    ok(strcmp(get(b, "eta"), "0.3") == 0, "eta defaults to 0.3 (%s)", get(b, "eta"));
    ok(strcmp(get(b, "max_depth"), "6") == 0, "max_depth defaults to 6");
    ok(strcmp(get(b, "max_bin"), "256") == 0, "max_bin defaults to 256");
    ok(strcmp(get(b, "objective"), "reg:squarederror") == 0, "objective defaults to reg:squarederror");
    ok(strcmp(get(b, "device"), "auto") == 0, "device defaults to auto");
    ok(strcmp(get(b, "base_score"), "auto") == 0, "base_score defaults to auto");

    ok_call(gbt_booster_set_param(b, "learning_rate", "0.05"), "alias learning_rate sets eta");
    ok(strcmp(get(b, "eta"), "0.05") == 0, "eta is now 0.05 (%s)", get(b, "eta"));
    ok_call(gbt_booster_set_param(b, "reg-lambda", "2.5"), "'-' and '_' are the same (reg-lambda)");
    ok(strcmp(get(b, "lambda"), "2.5") == 0, "lambda is now 2.5");
    ok_call(gbt_booster_set_param(b, "min_split_loss", "0.5"), "alias min_split_loss sets gamma");
    ok(strcmp(get(b, "gamma"), "0.5") == 0, "gamma is now 0.5");

    ok(gbt_booster_set_param(b, "max_dept", "3") == GBT_E_PARAM, "unknown name is GBT_E_PARAM");
    ok(strstr(gbt_last_error(), "max_dept") && strstr(gbt_last_error(), "did you mean 'max_depth'"),
       "message names it and the closest valid name: %s", gbt_last_error());
    ok(gbt_booster_set_param(b, "max_depth", "deep") == GBT_E_PARAM, "wrong type is refused");
    ok(strstr(gbt_last_error(), "integer") && strstr(gbt_last_error(), "[0, 63]"),
       "message gives the type and range: %s", gbt_last_error());
    ok(gbt_booster_set_param(b, "subsample", "0") == GBT_E_PARAM, "subsample=0 is out of (0, 1]");
    ok(strstr(gbt_last_error(), "(0, 1]") != NULL, "message gives the open range: %s", gbt_last_error());
    ok(gbt_booster_set_param(b, "subsample", "1.5") == GBT_E_PARAM, "subsample=1.5 is refused");
    ok(gbt_booster_set_param(b, "eta", "nan") == GBT_E_PARAM, "eta=nan is refused");
    ok(gbt_booster_set_param(b, "max_depth", "4.5") == GBT_E_PARAM, "max_depth=4.5 is refused");
    ok(strcmp(get(b, "max_depth"), "6") == 0, "a refused value leaves the parameter unchanged");
    ok(gbt_booster_set_param(b, "objective", "reg:nonexistent") == GBT_E_PARAM, "unknown objective refused");
    ok(strstr(gbt_last_error(), "binary:logistic") != NULL, "message lists the objectives");
    ok(gbt_booster_set_param(b, "grow_policy", "lossguide") == GBT_OK, "grow_policy=lossguide");
    ok(gbt_booster_set_param(b, "device", "cuda:x") == GBT_E_PARAM, "device=cuda:x refused");
    ok(gbt_booster_set_param(b, "device", "cuda:1") == GBT_OK, "device=cuda:1 is a valid setting");
    ok(gbt_booster_set_param(b, "base_score", "0.25") == GBT_OK && strcmp(get(b, "base_score"), "0.25") == 0,
       "base_score takes a number");
    ok(gbt_booster_set_param(b, "base_score", "[0.5, -1e3, 2]") == GBT_OK &&
           strcmp(get(b, "base_score"), "0.5,-1000,2") == 0 && gbt_booster_set_param(b, "base_score", "auto") == GBT_OK &&
           strcmp(get(b, "base_score"), "auto") == 0,
       "base_score takes a list of one per output, and auto again");
    ok(gbt_booster_set_param(b, "base_score", "[0.5, nan]") == GBT_E_PARAM, "base_score [0.5, nan] refused: %s",
       gbt_last_error());

    ok_call(gbt_booster_set_param(b, "eval_metric", "auc"), "eval_metric=auc");
    ok_call(gbt_booster_set_param(b, "eval_metric", "logloss,error@0.7"), "eval_metric adds a list");
    ok_call(gbt_booster_set_param(b, "eval_metric", "auc"), "a repeated metric is not added twice");
    ok(strcmp(get(b, "eval_metric"), "auc,logloss,error@0.7") == 0, "eval_metric accumulates (%s)",
       get(b, "eval_metric"));
    ok(gbt_booster_set_param(b, "eval_metric", "not-a-metric") == GBT_E_PARAM, "unknown metric refused");
    ok(gbt_booster_set_param(b, "eval_metric", "auc@3") == GBT_E_PARAM, "threshold on auc refused");
    ok_call(gbt_booster_set_param(b, "eval_metric", ""), "empty eval_metric clears the list");
    ok(strcmp(get(b, "eval_metric"), "") == 0, "eval_metric is empty");

    ok(gbt_booster_get_param(b, "eta", small, sizeof small) == GBT_E_INVALID_ARG,
       "get_param into a too-small buffer fails");
    ok(gbt_booster_get_param(b, "nope", small, sizeof small) == GBT_E_PARAM, "get_param of unknown name");
    ok(gbt_booster_set_param(NULL, "eta", "1") == GBT_E_INVALID_ARG, "NULL booster is refused");
    ok(gbt_booster_set_param(b, NULL, "1") == GBT_E_INVALID_ARG, "NULL name is refused");
    ok(gbt_booster_set_param(b, "eta", NULL) == GBT_E_INVALID_ARG, "NULL value is refused");

    ok(n > 20, "the table has %d parameters", n);
    for (int i = 0; i < n; i++) {
        const char *name, *aliases, *type, *deflt, *range, *help;
        if (gbt_param_describe(i, &name, &aliases, &type, &deflt, &range, &help) != GBT_OK) break;
        if (strcmp(name, "eta") == 0)
            found_eta = strcmp(aliases, "learning_rate") == 0 && strcmp(deflt, "0.3") == 0 &&
                        strcmp(range, "[0, inf)") == 0 && strcmp(type, "double") == 0 && help[0];
    }
    ok(found_eta, "gbt_param_describe gives eta's alias, default, range, type and help");
    ok(gbt_param_describe(n, NULL, NULL, NULL, NULL, NULL, NULL) == GBT_E_INVALID_ARG,
       "describe past the end is refused");
    gbt_booster_free(b);
    gbt_booster_free(NULL);
    test_xgboost_names();
    return done_testing();
}
