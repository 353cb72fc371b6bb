/*
 * test_tree.c - trees grown on tiny data, where the right tree can be
 * worked out by hand (the arithmetic is in the comments): thresholds,
 * leaf values under lambda, alpha and max_delta_step, the learned side for
 * missing values, min_child_weight, gamma pruning, depth and leaf limits.
 *
 * Data: x = 1, 2, 3, 4 and y = 0, 0, 10, 10, squared error, base_score 0,
 * eta 1, lambda 0.  Gradients m - y: (0, 0, -10, -10), hessians 1.  The best
 * split is x < 3: left G = 0, H = 2 (weight 0), right G = -20, H = 2
 * (weight 10); gain = 0 + 400/2 - 400/4 = 100.
 */
#include <float.h>
#include <math.h>

#include "train/booster.h"
#include "testutil.h"

static const float X4[] = {1, 2, 3, 4}, Y4[] = {0, 0, 10, 10};

static gbt_dataset *data(const float *x, const float *y, uint64_t n)
{
    gbt_dataset *d = NULL;
    gbt_dataset_from_dense(x, n, 1, NAN, &d);
    gbt_dataset_set_field(d, "label", y, n);
    return d;
}

static const struct gbt_tree *first_tree(const gbt_booster *b)
{
    return b && b->model.ntrees ? &b->model.trees[0] : NULL;
}

static int predicts(const gbt_booster *b, const float *x, uint64_t n, const float *want)
{
    float out[16];
    if (b == NULL || gbt_booster_predict_dense(b, x, n, 1, NAN, 0, out, n) != GBT_OK) return 0;
    for (uint64_t i = 0; i < n; i++)
        if (out[i] != want[i]) {
            diag("row %llu: predicted %.9g, expected %.9g", (unsigned long long)i, (double)out[i], (double)want[i]);
            return 0;
        }
    return 1;
}

#define BASE "objective=reg:squarederror", "base_score=0", "eta=1", "lambda=0", "min_child_weight=0"

static void test_stump(void)
{
    const char *const p[] = {BASE, "max_depth=1", NULL};
    gbt_dataset *d = data(X4, Y4, 4);
    gbt_booster *b = tu_train(d, 1, p);
    const struct gbt_tree *t = first_tree(b);
    const float probe[] = {2.9f, 3.0f, -100.0f, 100.0f}, want[] = {0, 10, 0, 10};
    ok(t && t->n_nodes == 3 && t->feature[0] == 0 && t->threshold[0] == 3.0f,
       "one split: x < 3 (threshold is the smallest value on the right)");
    ok(t && t->left[0] == 1 && t->right[0] == 2 && t->value[1] == 0.0f && t->value[2] == 10.0f,
       "leaves 0 and 10");
    ok(t && t->gain[0] == 100.0f, "split gain 100 (got %g)", t ? (double)t->gain[0] : -1.0);
    ok(t && t->cover[0] == 4.0f && t->cover[1] == 2.0f, "cover is the hessian sum: 4 at the root, 2 left");
    ok(predicts(b, X4, 4, Y4), "training rows predicted exactly");
    ok(predicts(b, probe, 4, want), "2.9 goes left, 3 goes right, out-of-range values to the ends");
    ok(t && gbt__tree_validate(t, 1, "tree") == GBT_OK, "the tree passes the model checks");
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

static void test_regularisation(void)
{
    gbt_dataset *d = data(X4, Y4, 4);
    const float x[] = {1, 4};
    /* lambda 2: right weight 20 / (2 + 2) = 5, left 0 */
    {
        const char *const p[] = {BASE, "max_depth=1", "lambda=2", NULL};
        const float want[] = {0, 5};
        gbt_booster *b = tu_train(d, 1, p);
        ok(predicts(b, x, 2, want), "lambda 2: right leaf 20/4 = 5");
        gbt_booster_free(b);
    }
    /* alpha 4: T(-20) = -16, weight 16 / 2 = 8 */
    {
        const char *const p[] = {BASE, "max_depth=1", "alpha=4", NULL};
        const float want[] = {0, 8};
        gbt_booster *b = tu_train(d, 1, p);
        ok(predicts(b, x, 2, want), "alpha 4: right leaf (20 - 4)/2 = 8");
        gbt_booster_free(b);
    }
    /* max_delta_step 2: weight 10 clipped to 2 */
    {
        const char *const p[] = {BASE, "max_depth=1", "max_delta_step=2", NULL};
        const float want[] = {0, 2};
        gbt_booster *b = tu_train(d, 1, p);
        ok(predicts(b, x, 2, want), "max_delta_step 2 clips the right leaf to 2");
        gbt_booster_free(b);
    }
    /* eta 0.5 halves the leaves */
    {
        const char *const p[] = {BASE, "max_depth=1", "eta=0.5", NULL};
        const float want[] = {0, 5};
        gbt_booster *b = tu_train(d, 1, p);
        ok(predicts(b, x, 2, want), "eta 0.5: right leaf 5");
        gbt_booster_free(b);
    }
    gbt_dataset_free(d);
}

static void test_limits(void)
{
    gbt_dataset *d = data(X4, Y4, 4);
    /* min_child_weight 3: no side of any split holds a hessian of 3 -> one leaf, -G/H = 20/4 = 5 */
    {
        const char *const p[] = {BASE, "max_depth=3", "min_child_weight=3", NULL};
        const float want[] = {5, 5, 5, 5};
        gbt_booster *b = tu_train(d, 1, p);
        ok(first_tree(b) && first_tree(b)->n_nodes == 1 && predicts(b, X4, 4, want),
           "min_child_weight 3 keeps the root a leaf of value 5");
        gbt_booster_free(b);
    }
    /* gamma below the gain of 100 keeps the split, above it prunes it */
    {
        const char *const keep[] = {BASE, "max_depth=1", "gamma=99", NULL};
        const char *const cut[] = {BASE, "max_depth=1", "gamma=101", NULL};
        gbt_booster *a = tu_train(d, 1, keep), *b = tu_train(d, 1, cut);
        ok(first_tree(a) && first_tree(a)->n_nodes == 3, "gamma 99 < gain 100 keeps the split");
        ok(first_tree(b) && first_tree(b)->n_nodes == 1, "gamma 101 > gain 100 prunes it");
        gbt_booster_free(a);
        gbt_booster_free(b);
    }
    gbt_dataset_free(d);
}

static void test_missing(void)
{
    /* x = 1, 2, 3, NaN with y = 0, 0, 10, 10: the missing row belongs right */
    const float xr[] = {1, 2, 3, NAN}, xl[] = {1, NAN, 3, 4};
    const char *const p[] = {BASE, "max_depth=1", NULL};
    gbt_dataset *d = data(xr, Y4, 4);
    gbt_booster *b = tu_train(d, 1, p);
    const struct gbt_tree *t = first_tree(b);
    const float probe[] = {NAN}, ten[] = {10}, zero[] = {0};
    ok(t && t->threshold[0] == 3.0f && t->default_left[0] == 0 && predicts(b, probe, 1, ten),
       "x < 3 with missing values sent right, as learned");
    gbt_booster_free(b);
    gbt_dataset_free(d);
    d = data(xl, Y4, 4);
    b = tu_train(d, 1, p);
    t = first_tree(b);
    ok(t && t->threshold[0] == 3.0f && t->default_left[0] == 1 && predicts(b, probe, 1, zero),
       "x < 3 with missing values sent left, as learned");
    gbt_booster_free(b);
    gbt_dataset_free(d);
    {
        /*
         * present vs missing: x = 1, 2, NaN, NaN; every present value, FLT_MAX
         * too, on one side: stored mirrored, x >= -FLT_MAX right, missing left
         */
        const float xm[] = {1, 2, NAN, NAN}, big[] = {1e30f, FLT_MAX, NAN};
        const float want[] = {0, 0, 10};
        d = data(xm, Y4, 4);
        b = tu_train(d, 1, p);
        t = first_tree(b);
        ok(t && t->threshold[0] == -FLT_MAX && t->default_left[0] == 1 && predicts(b, big, 3, want),
           "a present-versus-missing split (threshold -FLT_MAX, mirrored): 1e30 and FLT_MAX with 1, missing apart");
        gbt_booster_free(b);
        gbt_dataset_free(d);
    }
}

static void test_growth(void)
{
    /* x = 1..8, y = 0,0,0,0,10,10,14,14: root x < 5 (gain 1600/4 + ... ), then only the right side can gain */
    const float x[] = {1, 2, 3, 4, 5, 6, 7, 8}, y[] = {0, 0, 0, 0, 10, 10, 14, 14};
    const float want3[] = {0, 0, 0, 0, 10, 10, 14, 14}, want2[] = {0, 0, 0, 0, 12, 12, 12, 12};
    gbt_dataset *d = data(x, y, 8);
    {
        const char *const p[] = {BASE, "grow_policy=lossguide", "max_leaves=3", "max_depth=0", NULL};
        gbt_booster *b = tu_train(d, 1, p);
        ok(first_tree(b) && first_tree(b)->n_nodes == 5 && predicts(b, x, 8, want3),
           "lossguide, 3 leaves: x < 5, then x < 7 on the right");
        gbt_booster_free(b);
    }
    {
        const char *const p[] = {BASE, "grow_policy=lossguide", "max_leaves=2", "max_depth=0", NULL};
        gbt_booster *b = tu_train(d, 1, p);
        ok(first_tree(b) && first_tree(b)->n_nodes == 3 && predicts(b, x, 8, want2),
           "lossguide, 2 leaves: only x < 5 (right leaf 12)");
        gbt_booster_free(b);
    }
    {
        const char *const p[] = {BASE, "max_depth=1", NULL};
        gbt_booster *b = tu_train(d, 1, p);
        ok(first_tree(b) && first_tree(b)->n_nodes == 3, "depthwise max_depth 1: one split");
        gbt_booster_free(b);
    }
    {
        const char *const p[] = {BASE, "max_depth=3", "max_leaves=2", NULL};
        gbt_booster *b = tu_train(d, 1, p);
        ok(first_tree(b) && first_tree(b)->n_nodes == 3, "depthwise honours max_leaves 2");
        gbt_booster_free(b);
    }
    {
        const char *const p[] = {BASE, "max_depth=0", NULL};
        gbt_booster *b = tu_booster(p);
        ok(gbt_booster_update(b, d) == GBT_E_PARAM && strstr(gbt_last_error(), "max_depth"),
           "depthwise with max_depth 0 is refused: %s", gbt_last_error());
        gbt_booster_free(b);
    }
    {
        const char *const p[] = {BASE, "grow_policy=lossguide", "max_depth=0", "max_leaves=0", NULL};
        gbt_booster *b = tu_booster(p);
        ok(gbt_booster_update(b, d) == GBT_E_PARAM, "lossguide without any limit is refused");
        gbt_booster_free(b);
    }
    gbt_dataset_free(d);
}

static void test_structure(void)
{
    /* on random data: children follow their parent, in pairs, and depth stays within max_depth */
    const char *const p[] = {"objective=binary:logistic", "max_depth=4", NULL};
    gbt_dataset *d;
    gbt_booster *b;
    int good = 1;
    tu_seed(3);
    d = tu_dataset(2000, 6, 0.05, 1);
    b = tu_train(d, 5, p);
    for (uint32_t i = 0; b && i < b->model.ntrees; i++) {
        const struct gbt_tree *t = &b->model.trees[i];
        int dep = 99;
        good &= gbt__tree_validate(t, 6, "tree") == GBT_OK && gbt__tree_depth(t, &dep) == GBT_OK && dep <= 4;
        for (int32_t n = 0; n < t->n_nodes; n++)
            if (t->left[n] >= 0) good &= t->right[n] == t->left[n] + 1;
    }
    ok(b && good, "trees are valid, siblings adjacent, depth <= 4");
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

int main(void)
{
    test_stump();
    test_regularisation();
    test_limits();
    test_missing();
    test_growth();
    test_structure();
    return done_testing();
}
