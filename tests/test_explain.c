/*
 * test_explain.c - feature names, feature importance, dumps, slicing and
 * continued training through the public API: importance and dumps of a
 * model written here by hand and of one trained on 8 rows whose split is
 * worked out by hand; continued training against uninterrupted training,
 * byte for byte (tests/test_backend.c does the same across devices).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbt.h"
#include "tap.h"
#include "testutil.h"

/*
 * Two trees over features a, b, c.  Tree 0 splits on a (gain 10, cover 8)
 * then c (gain 4, cover 5); tree 1 on a (gain 6, cover 8).  So a: weight
 * 2, total_gain 16, gain 8, total_cover 16, cover 8; b: nothing; c: weight
 * 1, gain and total_gain 4, cover and total_cover 5.
 */
#define HAND_TREES                                                                             \
    "\"trees\": [\n"                                                                           \
    "{\"class\": 0, \"num_nodes\": 5, \"left\": [1,3,-1,-1,-1], \"right\": [2,4,-1,-1,-1],\n"  \
    " \"feature\": [0,2,-1,-1,-1], \"threshold\": [1.5,0.25,0,0,0], \"default_left\": [1,0,0,0,0],\n" \
    " \"value\": [0.1,0.05,0.3,-0.1,0.2], \"gain\": [10,4,0,0,0], \"cover\": [8,5,3,2,3]},\n"   \
    "{\"class\": 0, \"num_nodes\": 3, \"left\": [1,-1,-1], \"right\": [2,-1,-1],\n"             \
    " \"feature\": [0,-1,-1], \"threshold\": [2.5,0,0], \"default_left\": [0,0,0],\n"          \
    " \"value\": [0,-0.2,0.1], \"gain\": [6,0,0], \"cover\": [8,4,4]}]}\n"

#define HAND_HEAD                                                                              \
    "{\"format\": \"gbt-model\", \"format_version\": 1, \"gbt_version\": \"0.1.0\",\n"         \
    " \"objective\": \"reg:squarederror\", \"num_class\": 0, \"num_feature\": 3,\n"

static const char hand_named[] = HAND_HEAD " \"feature_names\": [\"a\", \"b\", \"c\"],\n"
                                           " \"base_margin\": [0.5], \"training\": {},\n" HAND_TREES;
/* as models from before feature names: no "feature_names" */
static const char hand_old[] = HAND_HEAD " \"base_margin\": [0.5], \"training\": {},\n" HAND_TREES;

static gbt_booster *load_text(const char *text)
{
    gbt_booster *b = NULL;
    if (gbt_booster_load_from_buffer(text, strlen(text), &b) != GBT_OK) diag("load: %s", gbt_last_error());
    return b;
}

static char *dump(const gbt_booster *b, const char *format, int tree, int stats)
{
    char *out = NULL;
    size_t len = 0;
    if (gbt_booster_dump(b, format, tree, stats, &out, &len) != GBT_OK) {
        diag("dump: %s", gbt_last_error());
        return NULL;
    }
    if (strlen(out) != len) diag("dump: length %zu but %zu bytes of text", len, strlen(out));
    return out;
}

/* ok() on a dump against the text expected, showing both when they differ. */
static void same_text(char *got, const char *want, const char *what)
{
    if (!ok(got && strcmp(got, want) == 0, "%s", what)) diag("got:\n%s\nwanted:\n%s", got ? got : "(null)", want);
    gbt_free(got);
}

static void test_hand_importance(void)
{
    gbt_booster *b = load_text(hand_named);
    double v[4] = {-1, -1, -1, -7};
    static const struct {
        const char *type;
        double a, b, c;
    } want[] = {{"weight", 2, 0, 1},      {"gain", 8, 0, 4},          {"cover", 8, 0, 5},
                {"total_gain", 16, 0, 4}, {"total_cover", 16, 0, 5}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        gbt_status s = gbt_booster_feature_importance(b, want[i].type, v, 4);
        ok(s == GBT_OK && v[0] == want[i].a && v[1] == want[i].b && v[2] == want[i].c && v[3] == -7,
           "importance %s of the hand model: a %g, b %g, c %g (the 4th slot untouched)", want[i].type, v[0],
           v[1], v[2]);
    }
    ok(gbt_booster_feature_importance(b, "split", v, 4) == GBT_E_INVALID_ARG &&
           strstr(gbt_last_error(), "weight, gain, cover, total_gain, total_cover") != NULL,
       "an unknown importance type is refused, listing the types: %s", gbt_last_error());
    ok(gbt_booster_feature_importance(b, "gain", v, 2) == GBT_E_INVALID_ARG,
       "an output shorter than the features is refused: %s", gbt_last_error());
    gbt_booster_free(b);
}

static void test_hand_dumps(void)
{
    gbt_booster *b = load_text(hand_named), *old = load_text(hand_old);
    char **names = NULL;
    uint64_t n = 0;
    char *out;
    size_t len;
    same_text(dump(b, "text", -1, 1),
              "booster[0]:\n"
              "0:[a<1.5] yes=1,no=2,missing=1,gain=10,cover=8\n"
              "\t1:[c<0.25] yes=3,no=4,missing=4,gain=4,cover=5\n"
              "\t\t3:leaf=-0.1,cover=2\n"
              "\t\t4:leaf=0.2,cover=3\n"
              "\t2:leaf=0.3,cover=3\n"
              "booster[1]:\n"
              "0:[a<2.5] yes=1,no=2,missing=2,gain=6,cover=8\n"
              "\t1:leaf=-0.2,cover=4\n"
              "\t2:leaf=0.1,cover=4\n",
              "text dump with stats, every tree: XGBoost's lines, depth first, yes child first");
    same_text(dump(b, "text", 1, 0),
              "booster[1]:\n0:[a<2.5] yes=1,no=2,missing=2\n\t1:leaf=-0.2\n\t2:leaf=0.1\n",
              "text dump of tree 1 without stats");
    same_text(dump(b, "json", 1, 1),
              "[\n"
              "  { \"nodeid\": 0, \"depth\": 0, \"split\": \"a\", \"split_condition\": 2.5, \"yes\": 1, \"no\": 2, "
              "\"missing\": 2, \"gain\": 6, \"cover\": 8, \"children\": [\n"
              "    { \"nodeid\": 1, \"leaf\": -0.2, \"cover\": 4 },\n"
              "    { \"nodeid\": 2, \"leaf\": 0.1, \"cover\": 4 }\n"
              "  ]}\n"
              "]\n",
              "JSON dump of tree 1 with stats");
    same_text(dump(b, "dot", 1, 0),
              "digraph booster1 {\n"
              "    graph [rankdir=TB]\n"
              "    node [fontname=\"Helvetica\"]\n"
              "    t1n0 [label=\"a<2.5\" shape=box]\n"
              "    t1n0 -> t1n1 [label=\"yes\" color=\"#0000FF\"]\n"
              "    t1n0 -> t1n2 [label=\"no, missing\" color=\"#FF0000\"]\n"
              "    t1n1 [label=\"leaf=-0.2\" shape=ellipse]\n"
              "    t1n2 [label=\"leaf=0.1\" shape=ellipse]\n"
              "}\n",
              "DOT dump of tree 1");
    out = dump(b, "dot", -1, 1);
    ok(out && strstr(out, "subgraph cluster_0 {") && strstr(out, "subgraph cluster_1 {") &&
           strstr(out, "t0n1 [label=\"c<0.25\\ngain=4\\ncover=5\" shape=box]"),
       "DOT dump of every tree: a cluster per tree, stats in the labels");
    gbt_free(out);
    out = dump(b, "json", -1, 0);
    ok(out && strncmp(out, "[\n  { \"nodeid\": 0", 17) == 0 && strstr(out, "  ]},\n  { \"nodeid\": 0, \"depth\": 0, \"split\": \"a\", \"split_condition\": 2.5"),
       "JSON dump of every tree: an array of two trees");
    gbt_free(out);
    ok(gbt_booster_dump(b, "text", 2, 0, &out, &len) == GBT_E_INVALID_ARG &&
           strstr(gbt_last_error(), "tree 2 does not exist: the model has 2 trees") != NULL,
       "a tree out of range is refused: %s", gbt_last_error());
    ok(gbt_booster_dump(b, "text", -2, 0, &out, &len) == GBT_E_INVALID_ARG, "tree -2 is refused");
    ok(gbt_booster_dump(b, "svg", 0, 0, &out, &len) == GBT_E_INVALID_ARG &&
           strstr(gbt_last_error(), "text, json, dot") != NULL,
       "an unknown format is refused: %s", gbt_last_error());
    ok(gbt_booster_feature_names(b, &names, &n) == GBT_OK && n == 3 && strcmp(names[0], "a") == 0 &&
           strcmp(names[2], "c") == 0,
       "the hand model's feature names: a, b, c");
    gbt_free(names);
    ok(gbt_booster_feature_names(old, &names, &n) == GBT_OK && n == 3 && strcmp(names[0], "f0") == 0 &&
           strcmp(names[2], "f2") == 0,
       "a model without names (as before feature names) loads; its features are f0, f1, f2");
    gbt_free(names);
    {
        const char *const renamed[3] = {"x", "y", "z"}, *const bad[3] = {"x", "x", "z"};
        ok(gbt_booster_set_feature_names(old, renamed, 2) == GBT_E_INVALID_ARG &&
               strstr(gbt_last_error(), "2 names for a model of 3 features") != NULL &&
               gbt_booster_set_feature_names(old, bad, 3) == GBT_E_INVALID_ARG,
           "renaming with another count or a repeated name is refused: %s", gbt_last_error());
        ok(gbt_booster_set_feature_names(old, renamed, 3) == GBT_OK &&
               gbt_booster_feature_names(old, &names, &n) == GBT_OK && n == 3 && strcmp(names[2], "z") == 0,
           "the model's features renamed x, y, z");
        gbt_free(names);
        same_text(dump(old, "text", 1, 0), "booster[1]:\n0:[x<2.5] yes=1,no=2,missing=2\n\t1:leaf=-0.2\n\t2:leaf=0.1\n",
                  "the dump says x");
        ok(gbt_booster_set_feature_names(old, NULL, 0) == GBT_OK &&
               gbt_booster_feature_names(old, &names, &n) == GBT_OK && n == 3 && strcmp(names[0], "f0") == 0,
           "the names dropped: f0, f1, f2 again");
        gbt_free(names);
    }
    same_text(dump(old, "text", 1, 0), "booster[1]:\n0:[f0<2.5] yes=1,no=2,missing=2\n\t1:leaf=-0.2\n\t2:leaf=0.1\n",
              "its dump says f0");
    {
        size_t l1, l2;
        char *m1 = tu_model(b, &l1), *m2 = NULL;
        gbt_booster *again = m1 ? load_text(m1) : NULL;
        m2 = again ? tu_model(again, &l2) : NULL;
        ok(m1 && strstr(m1, "\"feature_names\": [\"a\", \"b\", \"c\"],\n") && m2 && l1 == l2 &&
               memcmp(m1, m2, l1) == 0,
           "the names are saved (\"feature_names\") and load back to the same bytes");
        gbt_free(m1);
        gbt_free(m2);
        gbt_booster_free(again);
    }
    gbt_booster_free(b);
    gbt_booster_free(old);
}

/*
 * A model of 0 rounds (gbtrain --num_round=0, or an interrupted training's
 * input): every output is empty, not an error (issue 38, finding 6: the
 * dumps failed with "out of memory writing the dump").
 */
static void test_empty_model(void)
{
    static const char empty[] = HAND_HEAD " \"feature_names\": [\"a\", \"b\", \"c\"],\n"
                                          " \"base_margin\": [0.5], \"training\": {},\n \"trees\": []}\n";
    gbt_booster *b = load_text(empty);
    static const char *const types[] = {"weight", "gain", "cover", "total_gain", "total_cover"};
    double v[3];
    char *out = NULL;
    size_t len = 7;
    int rounds = -1;
    ok(b && gbt_booster_num_rounds(b, &rounds) == GBT_OK && rounds == 0, "a model of 0 trees loads (rounds %d)",
       rounds);
    if (b == NULL) return;
    ok(gbt_booster_dump(b, "text", -1, 0, &out, &len) == GBT_OK && out && out[0] == '\0' && len == 0,
       "its text dump is the empty string (%s)", out ? "" : gbt_last_error());
    gbt_free(out);
    out = NULL;
    ok(gbt_booster_dump(b, "text", -1, 1, &out, &len) == GBT_OK && out && len == 0,
       "with stats too (%s)", out ? "" : gbt_last_error());
    gbt_free(out);
    out = NULL;
    /* an array of no trees: '[', white space, ']' */
    ok(gbt_booster_dump(b, "json", -1, 0, &out, &len) == GBT_OK && out && out[0] == '[' &&
           out[strspn(out + 1, " \n") + 1] == ']' && strlen(out) == len,
       "its JSON dump is an empty array (%s)", out ? out : gbt_last_error());
    gbt_free(out);
    out = NULL;
    ok(gbt_booster_dump(b, "dot", -1, 0, &out, &len) == GBT_OK && out && strncmp(out, "digraph", 7) == 0 &&
           strstr(out, "->") == NULL && len > 2 && strcmp(out + len - 2, "}\n") == 0,
       "its DOT dump is a graph of no nodes (%s)", out ? "" : gbt_last_error());
    gbt_free(out);
    out = NULL;
    ok(gbt_booster_dump(b, "text", 0, 0, &out, &len) == GBT_E_INVALID_ARG, "tree 0 does not exist: %s",
       gbt_last_error());
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        v[0] = v[1] = v[2] = -1;
        ok(gbt_booster_feature_importance(b, types[i], v, 3) == GBT_OK && v[0] == 0 && v[1] == 0 && v[2] == 0,
           "its importance (%s) is 0 for every feature", types[i]);
    }
    gbt_booster_free(b);
}

static void test_bad_model_names(void)
{
    static const char *const bad[] = {"[\"a\", \"b\", \"a\"]", "[\"a\", \"b\", \"c\", \"d\"]",
                                      "[\"a\", \"x[1]\", \"c\"]", "[\"a\", 7, \"c\"]", "[\"a\", \"\", \"c\"]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[4096];
        gbt_booster *b = NULL;
        gbt_status s;
        snprintf(text, sizeof text, HAND_HEAD " \"feature_names\": %s,\n \"base_margin\": [0.5], \"training\": {},\n" HAND_TREES,
                 bad[i]);
        s = gbt_booster_load_from_buffer(text, strlen(text), &b);
        ok(s == GBT_E_FORMAT && b == NULL && strstr(gbt_last_error(), "model:3") != NULL,
           "model with feature_names %s is refused at its line: %s", bad[i], gbt_last_error());
        gbt_booster_free(b);
    }
}

/*
 * 8 rows, x = 0..7, y = 0 for x < 4 and 1 above; squared error, base 0.5,
 * lambda 0, eta 1: every gradient is +-0.5 and every hessian 1.  The split
 * between 3 and 4 sends G = 2, H = 4 left and G = -2, H = 4 right, a gain
 * (XGBoost's, without the 1/2) of 2^2/4 + 2^2/4 - 0^2/8 = 2, leaves -0.5
 * and 0.5, covers 8, 4 and 4.
 */
static void test_hand_trained(void)
{
    static const float x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, y[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    static const char *const set[] = {"objective=reg:squarederror", "eta=1", "lambda=0", "max_depth=1",
                                      "min_child_weight=0", "base_score=0.5", "verbosity=0", NULL};
    gbt_dataset *d = NULL;
    gbt_booster *b;
    const char *const names[1] = {"x"};
    double v[1];
    if (gbt_dataset_from_dense(x, 8, 1, NAN, &d) != GBT_OK || gbt_dataset_set_field(d, "label", y, 8) != GBT_OK ||
        gbt_dataset_set_feature_names(d, names, 1) != GBT_OK)
        diag("data: %s", gbt_last_error());
    b = tu_train(d, 1, set);
    same_text(b ? dump(b, "text", 0, 1) : NULL,
              "booster[0]:\n0:[x<4] yes=1,no=2,missing=1,gain=2,cover=8\n\t1:leaf=-0.5,cover=4\n\t2:leaf=0.5,cover=4\n",
              "8 rows: the split at 4, gain 2, leaves -0.5 and 0.5, covers 8, 4, 4 as worked out by hand");
    ok(b && gbt_booster_feature_importance(b, "gain", v, 1) == GBT_OK && v[0] == 2.0, "its gain importance is 2");
    ok(b && gbt_booster_feature_importance(b, "total_cover", v, 1) == GBT_OK && v[0] == 8.0,
       "its total_cover importance is 8");
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

static void test_dataset_names(void)
{
    gbt_dataset *d = tu_dataset(200, 3, 0.1, 1), *other = tu_dataset(50, 3, 0.0, 1);
    const char *const names[3] = {"age", "income", "score"}, *const renamed[3] = {"age", "salary", "score"};
    const char *const dup[3] = {"a", "b", "a"}, *const bracket[3] = {"a", "b<2", "c"};
    const char *const *got;
    static const char *const set[] = {"objective=binary:logistic", "max_depth=3", "verbosity=0", NULL};
    gbt_booster *b;
    char **bn = NULL;
    uint64_t n = 0;
    float out[200];
    double metric;
    ok(gbt_dataset_set_feature_names(d, names, 2) == GBT_E_INVALID_ARG, "2 names for 3 features are refused: %s",
       gbt_last_error());
    ok(gbt_dataset_set_feature_names(d, dup, 3) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "'a' appears twice"),
       "a repeated name is refused: %s", gbt_last_error());
    ok(gbt_dataset_set_feature_names(d, bracket, 3) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "'b<2'"),
       "a name with '<' is refused: %s", gbt_last_error());
    ok(gbt_dataset_get_feature_names(d, &got, &n) == GBT_OK && got == NULL && n == 0, "(and the data still has no names)");
    ok_call(gbt_dataset_set_feature_names(d, names, 3), "3 names for 3 features");
    ok(gbt_dataset_get_feature_names(d, &got, &n) == GBT_OK && n == 3 && strcmp(got[1], "income") == 0,
       "they read back");
    b = tu_train(d, 3, set);
    ok(b && gbt_booster_feature_names(b, &bn, &n) == GBT_OK && n == 3 && strcmp(bn[1], "income") == 0,
       "the model keeps the training data's names");
    gbt_free(bn);
    if (b == NULL) return;
    ok_call(gbt_booster_predict(b, other, 0, out, 50), "data without names predicts (nothing to compare)");
    ok_call(gbt_dataset_set_feature_names(other, names, 3), "the same names on other data");
    ok_call(gbt_booster_predict(b, other, 0, out, 50), "data with the model's names predicts");
    ok_call(gbt_dataset_set_feature_names(other, renamed, 3), "other names on it");
    ok(gbt_booster_predict(b, other, 0, out, 50) == GBT_E_INVALID_ARG &&
           strstr(gbt_last_error(), "feature 1 is 'salary' in the data but 'income' in the model") &&
           strstr(gbt_last_error(), "validate_features=0"),
       "prediction on data named otherwise is refused, naming the first feature that differs: %s", gbt_last_error());
    ok(gbt_booster_eval(b, other, "logloss", &metric) == GBT_E_INVALID_ARG, "and so is evaluation");
    ok(gbt_booster_train(b, other, 1, NULL, NULL, 0) == GBT_E_INVALID_ARG, "and further training on it");
    ok_call(gbt_booster_set_param(b, "validate_features", "0"), "validate_features=0");
    ok_call(gbt_booster_predict(b, other, 0, out, 50), "then the names are not compared");
    ok(gbt_booster_set_param(b, "validate_features", "2") == GBT_E_PARAM, "validate_features=2 is refused");
    gbt_booster_free(b);
    gbt_dataset_free(d);
    gbt_dataset_free(other);
}

static void test_csv_header(void)
{
    const char *p = tu_write("h.csv", "y,age,\"income\", score\n1,30,2,3\n0,40,5,6\n");
    const char *q = tu_write("bad.csv", "y,age,age\n1,2,3\n");
    const char *r = tu_write("short.csv", "y,age\n1,2,3\n");
    gbt_dataset *d = NULL;
    const char *const *got;
    uint64_t n = 0;
    ok(gbt_dataset_from_file(p, "header=1", &d) == GBT_OK && gbt_dataset_get_feature_names(d, &got, &n) == GBT_OK &&
           n == 3 && strcmp(got[0], "age") == 0 && strcmp(got[1], "income") == 0 && strcmp(got[2], "score") == 0,
       "a CSV header names the features (the label's column left out, quotes and blanks trimmed)");
    gbt_dataset_free(d);
    d = NULL;
    ok(gbt_dataset_from_file(p, "header=1,label_column=2", &d) == GBT_OK &&
           gbt_dataset_get_feature_names(d, &got, &n) == GBT_OK && n == 3 && strcmp(got[0], "y") == 0 &&
           strcmp(got[1], "age") == 0 && strcmp(got[2], "score") == 0,
       "label_column=2: the other columns' names");
    gbt_dataset_free(d);
    d = NULL;
    ok(gbt_dataset_from_file(p, "header=0,label_column=0,format=csv", &d) == GBT_E_FORMAT, "(without header=1 the names are data)");
    gbt_dataset_free(d);
    d = NULL;
    ok(gbt_dataset_from_file(q, "header=1", &d) == GBT_E_FORMAT && strstr(gbt_last_error(), "bad.csv:1") &&
           strstr(gbt_last_error(), "'age' appears twice"),
       "a header naming two columns alike is refused at its line: %s", gbt_last_error());
    ok(gbt_dataset_from_file(r, "header=1", &d) == GBT_E_FORMAT && strstr(gbt_last_error(), "short.csv:1") &&
           strstr(gbt_last_error(), "the header has 2 names but line 2 has 3 fields"),
       "a header of the wrong length is refused: %s", gbt_last_error());
}

static void test_slice(void)
{
    gbt_dataset *d = tu_dataset(300, 5, 0.05, 3);
    static const char *const set[] = {"objective=multi:softprob", "num_class=3", "max_depth=3", "verbosity=0", NULL};
    gbt_booster *b = tu_train(d, 6, set), *s = NULL;
    int rounds = 0, same = 1;
    char buf[32];
    ok_call(b ? gbt_booster_slice(b, 2, 5, &s) : GBT_E_INTERNAL, "slice rounds [2, 5) of 6");
    ok(s && gbt_booster_num_rounds(s, &rounds) == GBT_OK && rounds == 3 &&
           gbt_booster_get_attr(s, "num_trees", buf, sizeof buf) == GBT_OK && strcmp(buf, "9") == 0,
       "the slice has 3 rounds, 9 trees (3 classes)");
    for (int t = 0; s && t < 9; t++) {
        char *a = dump(s, "json", t, 1), *w = dump(b, "json", 6 + t, 1);
        same &= a && w && strcmp(a, w) == 0;
        gbt_free(a);
        gbt_free(w);
    }
    ok(s && same, "its tree t is tree 6 + t of the model (JSON dumps with stats equal)");
    if (b) {
        gbt_booster *x = NULL;
        ok(gbt_booster_slice(b, 3, 3, &x) == GBT_E_INVALID_ARG && x == NULL, "an empty range is refused: %s",
           gbt_last_error());
        ok(gbt_booster_slice(b, -1, 2, &x) == GBT_E_INVALID_ARG, "a negative begin is refused");
        ok(gbt_booster_slice(b, 0, 7, &x) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "6 rounds"),
           "an end past the rounds is refused: %s", gbt_last_error());
        /* XGBoost's booster[1:6:2]: rounds 1, 3, 5 */
        same = gbt_booster_slice_step(b, 1, 6, 2, &x) == GBT_OK && gbt_booster_num_rounds(x, &rounds) == GBT_OK &&
               rounds == 3;
        for (int t = 0; same && t < 9; t++) {
            char *a = dump(x, "json", t, 1), *w = dump(b, "json", (1 + 2 * (t / 3)) * 3 + t % 3, 1);
            same &= a && w && strcmp(a, w) == 0;
            gbt_free(a);
            gbt_free(w);
        }
        ok(same, "slice_step(1, 6, 2) holds rounds 1, 3, 5 (JSON dumps with stats equal)");
        gbt_booster_free(x);
        x = NULL;
        ok(gbt_booster_slice_step(b, 0, 2, 0, &x) == GBT_E_INVALID_ARG && x == NULL &&
               strstr(gbt_last_error(), ">= 1"), "a step of 0 is refused: %s", gbt_last_error());
    }
    gbt_booster_free(s);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/* Trains k rounds, saves, loads (from a file or a buffer), sets the same parameters, trains n - k more. */
static void continued(const char *what, gbt_dataset *d, const char *const *set, int n, int k, int via_file)
{
    gbt_booster *full = tu_train(d, n, set), *part = tu_train(d, k, set), *loaded = NULL;
    char *m = NULL;
    size_t len = 0;
    gbt_status s = part ? GBT_OK : GBT_E_INTERNAL;
    if (s == GBT_OK && via_file) {
        char path[512];
        snprintf(path, sizeof path, "%s/part.model", tu_tmpdir());
        s = gbt_booster_save(part, path);
        if (s == GBT_OK) s = gbt_booster_load(path, &loaded);
    } else if (s == GBT_OK) {
        s = gbt_booster_save_to_buffer(part, &m, &len);
        if (s == GBT_OK) s = gbt_booster_load_from_buffer(m, len, &loaded);
    }
    for (int i = 0; set[i] && s == GBT_OK; i++) {
        char name[64];
        const char *eq = strchr(set[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - set[i]), set[i]);
        s = gbt_booster_set_param(loaded, name, eq + 1);
    }
    if (s == GBT_OK) s = gbt_booster_train(loaded, d, n - k, NULL, NULL, 0);
    if (s != GBT_OK) diag("%s: %s", what, gbt_last_error());
    ok(s == GBT_OK && full && tu_same_model(full, loaded),
       "%s: %d rounds = %d, saved%s, loaded, %d more (byte-identical models)", what, n, k,
       via_file ? " to a file" : "", n - k);
    gbt_free(m);
    gbt_booster_free(full);
    gbt_booster_free(part);
    gbt_booster_free(loaded);
}

static void test_continued(void)
{
    static const char *const bin[] = {"objective=binary:logistic", "subsample=0.7", "colsample_bytree=0.8",
                                      "colsample_bynode=0.6", "max_depth=4", "seed=5", "nthread=3",
                                      "verbosity=0", NULL};
    static const char *const multi[] = {"objective=multi:softprob", "num_class=3", "grow_policy=lossguide",
                                        "max_depth=0", "max_leaves=9", "subsample=0.8", "eta=0.2",
                                        "verbosity=0", NULL};
    static const char *const reg[] = {"objective=reg:squarederror", "colsample_bylevel=0.5", "alpha=0.1",
                                      "nthread=1", "verbosity=0", NULL};
    gbt_dataset *db = tu_dataset(600, 6, 0.1, 1), *dm = tu_dataset(500, 5, 0.0, 3), *dr;
    {
        float *x = malloc(700 * 7 * sizeof *x), *y = malloc(700 * sizeof *y);
        tu_data(700, 7, 0.3, 0, x, y);
        dr = tu_to_csr(x, y, 700, 7);
        free(x);
        free(y);
    }
    continued("binary:logistic, row and column sampling", db, bin, 7, 3, 0);
    continued("binary:logistic, the same via a file", db, bin, 7, 1, 1);
    continued("multi:softprob, lossguide", dm, multi, 5, 2, 0);
    continued("reg:squarederror on sparse data, base score from the labels", dr, reg, 6, 4, 0);
    gbt_dataset_free(db);
    gbt_dataset_free(dm);
    gbt_dataset_free(dr);
}

int main(void)
{
    test_hand_importance();
    test_hand_dumps();
    test_empty_model();
    test_bad_model_names();
    test_hand_trained();
    test_dataset_names();
    test_csv_header();
    test_slice();
    test_continued();
    tu_cleanup();
    return done_testing();
}
