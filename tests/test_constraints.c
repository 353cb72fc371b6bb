/*
 * test_constraints.c - monotone and interaction constraints and feature
 * weights, checked from the outside:
 * - monotone: predictions over a fine grid of each constrained feature
 *   (beyond the training range too) for many random rows never move against
 *   the constraint (both directions, depthwise and lossguide, several
 *   objectives); the same data without constraints does move against it,
 *   so the check can fail;
 * - interaction: every root-to-leaf path of every tree uses features that
 *   one set holds (or a single feature);
 * - feature weights: with one feature drawn per tree, the count of trees
 *   splitting on each feature over many rounds against its share of the
 *   weights (4 standard deviations), a weight 0 never drawn;
 * - bad input errors name the parameter.
 */
#include <math.h>

#include "testutil.h"
#include "train/booster.h"

#define NF 6
#define NROW 600

/* y rises with x0 and falls with x1, each with wiggles that tempt a free model. */
static gbt_dataset *mono_data(int task, float *x)
{
    float y[NROW];
    gbt_dataset *d = NULL;
    tu_seed(17);
    for (int r = 0; r < NROW; r++) {
        double z, v[NF];
        for (int f = 0; f < NF; f++) {
            x[r * NF + f] = (float)(v[f] = tu_unit() * 4.0 - 2.0);
            if (f > 1 && tu_unit() < 0.05) x[r * NF + f] = NAN;
        }
        z = v[0] + 0.8 * sin(4.0 * v[0]) - v[1] - 0.8 * cos(4.0 * v[1]) + 0.5 * v[2] * v[3] +
            0.3 * (tu_unit() - 0.5);
        y[r] = task == 0 ? (float)z : task == 1 ? (z > 0 ? 1.0f : 0.0f) : (float)(z < -1 ? 0 : z < 1 ? 1 : 2);
    }
    if (gbt_dataset_from_dense(x, NROW, NF, NAN, &d) != GBT_OK || gbt_dataset_set_field(d, "label", y, NROW) != GBT_OK) {
        diag("data: %s", gbt_last_error());
        exit(2);
    }
    return d;
}

/*
 * The number of grid steps where a prediction moves against direction dir
 * of feature f, over 60 rows of x and 201 values of f in [-3, 3].
 */
static long violations(gbt_booster *b, const float *x, int f, int dir, int K)
{
    enum { NG = 201, NR = 60 };
    static float grid[NG * NF], out[NG * 8];
    long bad = 0;
    for (int r = 0; r < NR; r++) {
        const int row = (r * 37) % NROW;
        for (int g = 0; g < NG; g++) {
            memcpy(grid + g * NF, x + row * NF, NF * sizeof(float));
            grid[g * NF + f] = (float)(-3.0 + 6.0 * g / (NG - 1));
        }
        if (gbt_booster_predict_dense(b, grid, NG, NF, NAN, GBT_PREDICT_MARGIN, out, (uint64_t)NG * K) != GBT_OK) {
            diag("predict: %s", gbt_last_error());
            return -1;
        }
        for (int g = 1; g < NG; g++)
            for (int k = 0; k < K; k++) {
                const double d = (double)out[g * K + k] - (double)out[(g - 1) * K + k];
                if (dir * d < 0) bad++;
            }
    }
    return bad;
}

static void test_monotone(void)
{
    static const char *const objectives[] = {"reg:squarederror", "binary:logistic", "multi:softprob",
                                             "reg:absoluteerror"};
    static const int tasks[] = {0, 1, 2, 0};
    static float x[NROW * NF];
    for (int o = 0; o < 4; o++)
        for (int pol = 0; pol < 2; pol++) {
            const int K = tasks[o] == 2 ? 3 : 1;
            gbt_dataset *d = mono_data(tasks[o], x);
            char obj[64], policy[64], nc[32];
            const char *cons = (o + pol) % 2 ? "monotone_constraints=(1,-1,0,0,0,0)"
                                             : "monotone_constraints={f1:-1,\"f0\":1}";
            const char *settings[] = {obj, policy, pol ? "max_leaves=24" : "max_depth=6", "max_depth=0",
                                      nc, "eta=0.3", "verbosity=0", "max_bin=64", cons, NULL};
            gbt_booster *b, *free_b;
            long v0, v1, f0, f1;
            snprintf(obj, sizeof obj, "objective=%s", objectives[o]);
            snprintf(policy, sizeof policy, "grow_policy=%s", pol ? "lossguide" : "depthwise");
            snprintf(nc, sizeof nc, "num_class=%d", K == 3 ? 3 : 0);
            if (!pol) settings[3] = "max_leaves=0";
            b = tu_train(d, 30, settings);
            settings[8] = NULL;
            free_b = tu_train(d, 30, settings);
            v0 = b ? violations(b, x, 0, 1, K) : -1;
            v1 = b ? violations(b, x, 1, -1, K) : -1;
            f0 = free_b ? violations(free_b, x, 0, 1, K) : -1;
            f1 = free_b ? violations(free_b, x, 1, -1, K) : -1;
            ok(v0 == 0 && v1 == 0, "%s %s %s: predictions rise with f0 and fall with f1 over the grid "
               "(%ld, %ld steps against)", objectives[o], pol ? "lossguide" : "depthwise", cons, v0, v1);
            /* (the L1 objective's leaves barely move with few rows per leaf: not asserted there) */
            if (o != 3)
                ok(f0 > 0 || f1 > 0, "%s %s unconstrained: the check can fail (%ld, %ld steps against)",
                   objectives[o], pol ? "lossguide" : "depthwise", f0, f1);
            gbt_booster_free(b);
            gbt_booster_free(free_b);
            gbt_dataset_free(d);
        }
}

/* Marks in *bad a path from node n (features `used` above it) outside every set. */
static void walk(const struct gbt_tree *t, int32_t n, unsigned used, const unsigned *sets, int nsets, int *bad)
{
    int single, inside = 0;
    if (t->left[n] < 0) return;
    used |= 1u << t->feature[n];
    single = (used & (used - 1)) == 0;
    for (int s = 0; s < nsets; s++) inside |= (used & ~sets[s]) == 0;
    if (!single && !inside) (*bad)++;
    walk(t, t->left[n], used, sets, nsets, bad);
    walk(t, t->right[n], used, sets, nsets, bad);
}

static void test_interaction(void)
{
    static float x[NROW * NF];
    static const struct {
        const char *text;
        unsigned sets[3];
        int nsets;
    } cases[] = {
        {"[[0,1],[2,3,4]]", {0x3, 0x1c}, 2},
        {"[[\"f0\", f2], [f1, f3, f5], [4]]", {0x5, 0x2a, 0x10}, 3},
        {"[[0, 2], [0, 3], [1, 2, 3]]", {0x5, 0x9, 0xe}, 3},
    };
    for (int c = 0; c < 3; c++)
        for (int pol = 0; pol < 2; pol++) {
            gbt_dataset *d = mono_data(0, x);
            char cons[128];
            const char *settings[] = {pol ? "grow_policy=lossguide" : "grow_policy=depthwise",
                                      pol ? "max_leaves=20" : "max_depth=5", "verbosity=0",
                                      "colsample_bynode=0.8", cons, NULL};
            gbt_booster *b;
            int bad = 0, splits = 0;
            snprintf(cons, sizeof cons, "interaction_constraints=%s", cases[c].text);
            b = tu_train(d, 20, settings);
            for (uint32_t t = 0; b && t < b->model.ntrees; t++) {
                walk(&b->model.trees[t], 0, 0, cases[c].sets, cases[c].nsets, &bad);
                for (int32_t n = 0; n < b->model.trees[t].n_nodes; n++) splits += b->model.trees[t].left[n] >= 0;
            }
            ok(b && bad == 0 && splits > 100, "%s %s: every path stays inside one set (%d splits, %d outside)",
               cases[c].text, pol ? "lossguide" : "depthwise", splits, bad);
            gbt_booster_free(b);
            gbt_dataset_free(d);
        }
}

static void test_feature_weights(void)
{
    enum { ROUNDS = 900 };
    static const float w[NF] = {1, 2, 3, 0, 4, 6};
    static float x[NROW * NF];
    float y[NROW];
    const char *settings[] = {"max_depth=1", "colsample_bytree=0.1667", "verbosity=0", "seed=5", "eta=0.01", NULL};
    gbt_dataset *d = NULL;
    gbt_booster *b;
    long count[NF] = {0};
    int good = 1;
    tu_seed(3);
    /* every feature alone explains the label well: a tree splits on the one feature it draws */
    for (int r = 0; r < NROW; r++) {
        double z = 0;
        for (int f = 0; f < NF; f++) z += x[r * NF + f] = (float)(tu_unit() * 2 - 1);
        y[r] = (float)z;
    }
    if (gbt_dataset_from_dense(x, NROW, NF, NAN, &d) != GBT_OK || gbt_dataset_set_field(d, "label", y, NROW) != GBT_OK) {
        diag("data: %s", gbt_last_error());
        exit(2);
    }
    ok(gbt_dataset_set_field(d, "feature_weights", w, NF) == GBT_OK, "feature_weights set");
    b = tu_train(d, ROUNDS, settings);
    for (uint32_t t = 0; b && t < b->model.ntrees; t++)
        if (b->model.trees[t].left[0] >= 0) count[b->model.trees[t].feature[0]]++;
    for (int f = 0; f < NF; f++) {
        const double p = w[f] / 16.0, mean = ROUNDS * p, sd = sqrt(ROUNDS * p * (1 - p));
        const int fine = fabs((double)count[f] - mean) <= 4 * sd + 1;
        diag("feature %d: weight %g, %ld trees (expected %.1f +- %.1f)", f, (double)w[f], count[f], mean, sd);
        good &= fine;
    }
    ok(b && good, "trees per feature follow the weights (1,2,3,0,4,6) over %d rounds", ROUNDS);
    ok(count[3] == 0, "a feature of weight 0 is never drawn while others are left (%ld)", count[3]);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/* Training with one parameter set fails with a message holding `want`. */
static void fails_with(gbt_dataset *d, const char *param, const char *value, const char *want)
{
    gbt_booster *b = tu_booster((const char *const[]){"verbosity=0", NULL});
    gbt_status s = gbt_booster_set_param(b, param, value);
    if (s == GBT_OK) s = gbt_booster_train(b, d, 1, NULL, NULL, 0);
    ok(s != GBT_OK && strstr(gbt_last_error(), want) != NULL, "%s=%s: refused (%s)", param, value,
       s != GBT_OK ? gbt_last_error() : "accepted");
    gbt_booster_free(b);
}

/* A list shorter than the features leaves the rest 0, as XGBoost pads it: the same trees. */
static void test_short_list(void)
{
    static float x[NROW * NF];
    static float p_short[NROW], p_full[NROW];
    gbt_dataset *d = mono_data(0, x);
    const char *settings[] = {"verbosity=0", "max_bin=64", "monotone_constraints=(1,-1)", NULL};
    gbt_booster *a = tu_train(d, 5, settings), *b;
    settings[2] = "monotone_constraints=[1,-1,0,0,0,0]";
    b = tu_train(d, 5, settings);
    ok(a && b && gbt_booster_predict(a, d, GBT_PREDICT_MARGIN, p_short, NROW) == GBT_OK &&
           gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, p_full, NROW) == GBT_OK &&
           memcmp(p_short, p_full, sizeof p_short) == 0,
       "monotone_constraints=(1,-1) on 6 features trains as (1,-1,0,0,0,0) (%s)", a ? "" : gbt_last_error());
    gbt_booster_free(a);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

static void test_errors(void)
{
    static float x[NROW * NF];
    gbt_dataset *d = mono_data(0, x);
    const float neg[NF] = {1, -1, 1, 1, 1, 1}, zero[NF] = {0}, nan_w[NF] = {1, NAN, 1, 1, 1, 1};
    fails_with(d, "monotone_constraints", "(1,0,-1,0,0,0,1)", "7 values for 6 features");
    fails_with(d, "monotone_constraints", "(1,0,2,0,0,0)", "monotone_constraints");
    fails_with(d, "monotone_constraints", "[1,0,0,0,0,0", "monotone_constraints");
    fails_with(d, "monotone_constraints", "{age:1}", "unknown feature name 'age'");
    fails_with(d, "monotone_constraints", "{f0:x}", "monotone_constraints");
    fails_with(d, "interaction_constraints", "[[0,1],[2,9]]", "interaction_constraints");
    fails_with(d, "interaction_constraints", "[[0,1],[-1]]", "interaction_constraints");
    fails_with(d, "interaction_constraints", "[[0,1],[income]]", "unknown feature name 'income'");
    fails_with(d, "interaction_constraints", "[0,1]", "interaction_constraints");
    ok(gbt_dataset_set_field(d, "feature_weights", neg, NF) != GBT_OK &&
           strstr(gbt_last_error(), "feature_weights") && strstr(gbt_last_error(), "negative"),
       "negative feature weight refused (%s)", gbt_last_error());
    ok(gbt_dataset_set_field(d, "feature_weights", zero, NF) != GBT_OK &&
           strstr(gbt_last_error(), "feature_weights"),
       "all-zero feature weights refused (%s)", gbt_last_error());
    ok(gbt_dataset_set_field(d, "feature_weights", nan_w, NF) != GBT_OK && strstr(gbt_last_error(), "feature_weights"),
       "NaN feature weight refused (%s)", gbt_last_error());
    ok(gbt_dataset_set_field(d, "feature_weights", neg, NF - 1) != GBT_OK &&
           strstr(gbt_last_error(), "feature_weights"),
       "feature weights of the wrong length refused (%s)", gbt_last_error());
    gbt_dataset_free(d);
}

/* Constraints are saved with the model and read back; names resolve against the data's names. */
static void test_model_file(void)
{
    static float x[NROW * NF];
    gbt_dataset *d = mono_data(0, x);
    const char *names[NF] = {"age", "debt", "c", "d", "e", "f"};
    const char *settings[] = {"verbosity=0", "monotone_constraints={age:1, \"debt\": -1}",
                              "interaction_constraints=[[age, debt], [c, d, e, f]]", NULL};
    gbt_booster *b, *c = NULL;
    char *buf = NULL, mono[256] = "", inter[256] = "";
    size_t len = 0;
    gbt_dataset_set_feature_names(d, names, NF);
    b = tu_train(d, 5, settings);
    if (b && gbt_booster_save_to_buffer(b, &buf, &len) == GBT_OK &&
        gbt_booster_load_from_buffer(buf, len, &c) == GBT_OK) {
        gbt_booster_get_param(c, "monotone_constraints", mono, sizeof mono);
        gbt_booster_get_param(c, "interaction_constraints", inter, sizeof inter);
    }
    ok(strcmp(mono, "{age:1, \"debt\": -1}") == 0 && strcmp(inter, "[[age, debt], [c, d, e, f]]") == 0,
       "the model file keeps both constraints (%s; %s)", mono, inter);
    ok(b && violations(b, x, 0, 1, 1) == 0 && violations(b, x, 1, -1, 1) == 0,
       "constraints by name are monotone too");
    gbt_free(buf);
    gbt_booster_free(b);
    gbt_booster_free(c);
    gbt_dataset_free(d);
}

int main(void)
{
    test_monotone();
    test_short_list();
    test_interaction();
    test_feature_weights();
    test_errors();
    test_model_file();
    return done_testing();
}
