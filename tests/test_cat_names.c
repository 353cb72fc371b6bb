/*
 * test_cat_names.c - gbt_booster_read_data: a CSV file's category names
 * read as the codes of the model's feature_categories (the Python
 * package's record of pandas categories), expected codes written by hand;
 * unseen names, numbers and bools; bad category lists refused.
 */
#include <math.h>

#include "testutil.h"

/* A model of one round on 2 features, feature 1 categorical (codes 0..3), with the given category list. */
static gbt_booster *model_with(const char *categories)
{
    const float x[16] = {0, 0, 1, 1, 2, 2, 3, 3, 0, 1, 1, 0, 2, 3, 3, 2};
    const float y[8] = {0, 1, 0, 1, 1, 0, 1, 0};
    const char *types[2] = {"q", "c"}, *settings[] = {"max_depth=2", "min_child_weight=0", NULL};
    gbt_dataset *d = NULL;
    gbt_booster *b;
    gbt_dataset_from_dense(x, 8, 2, NAN, &d);
    gbt_dataset_set_field(d, "label", y, 8);
    gbt_dataset_set_feature_types(d, types, 2);
    b = tu_train(d, 1, settings);
    gbt_dataset_free(d);
    if (b && categories && gbt_booster_set_attr(b, "feature_categories", categories) != GBT_OK) {
        diag("set_attr: %s", gbt_last_error());
        gbt_booster_free(b);
        return NULL;
    }
    return b;
}

/* Feature 1's values read from a CSV of `text` (no label column) for b, into got[n]. */
static int read_codes(gbt_booster *b, const char *text, float *got, int n)
{
    const char *path = tu_write("names.csv", text);
    const float *dense;
    gbt_dataset *d = NULL;
    if (gbt_booster_read_data(b, path, "format=csv,label_column=-1", &d) != GBT_OK) {
        diag("read: %s", gbt_last_error());
        return 0;
    }
    gbt_dataset_get_data(d, &dense, NULL, NULL, NULL, NULL);
    for (int i = 0; i < n; i++) got[i] = dense[2 * i + 1];
    gbt_dataset_free(d);
    return 1;
}

static int codes_are(const float *got, const float *want, int n)
{
    for (int i = 0; i < n; i++)
        if (!(got[i] == want[i] || (isnan(got[i]) && isnan(want[i])))) return 0;
    return 1;
}

int main(void)
{
    float got[8];
    gbt_booster *b = model_with("{\"1\": [\"violet\", \"red\", \"gr\\u00fcn\", \"blue\"]}");
    /* violet 0, red 1, grün 2, blue 3; pink unseen: 4 (one past the list); empty and NA missing */
    const float want[7] = {3, 1, 4, 0, NAN, 2, NAN};
    ok(b && read_codes(b, "0.5,blue\n1,red\n2,pink\n3,violet\n4,\n5,\"gr\xc3\xbcn\"\n6,NA\n", got, 7) &&
           codes_are(got, want, 7),
       "names become their positions in the model's list; unseen 4; empty and NA missing");
    gbt_booster_free(b);
    b = model_with("{\"1\": [10, 2.5, 7, true]}");
    {
        const float want2[6] = {0, 1, 2, 0, 3, 4};
        ok(b && read_codes(b, "0,10\n0,2.5\n0,7\n0,10.0\n0,True\n0,3\n", got, 6) && codes_are(got, want2, 6),
           "number categories match by value (10.0 is 10), True the bool, 3 is unseen");
    }
    gbt_booster_free(b);
    b = model_with(NULL);
    {
        const float want3[2] = {3, 1};
        ok(b && read_codes(b, "0,3\n0,1\n", got, 2) && codes_are(got, want3, 2),
           "without a category list, fields are codes as before");
    }
    gbt_booster_free(b);
    {
        static const char *const bad[][2] = {{"{\"0\": [\"a\"]}", "numeric"},
                                             {"{\"1\": [\"a\", \"a\"]}", "twice"},
                                             {"{\"7\": [\"a\"]}", "not a feature"},
                                             {"[1]", "not a JSON object"},
                                             {"{\"1\": [[1]]}", "not a string"}};
        for (int i = 0; i < 5; i++) {
            gbt_dataset *d = NULL;
            gbt_status s;
            b = model_with(bad[i][0]);
            s = b ? gbt_booster_read_data(b, tu_write("x.csv", "0,a\n"), "format=csv,label_column=-1", &d)
                  : GBT_E_INVALID_ARG;
            ok(s == GBT_E_FORMAT && d == NULL && strstr(gbt_last_error(), "feature_categories") &&
                   strstr(gbt_last_error(), bad[i][1]),
               "a bad list %s is refused: %s", bad[i][0], gbt_last_error());
            gbt_booster_free(b);
        }
    }
    tu_cleanup();
    return done_testing();
}
