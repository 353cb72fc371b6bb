/*
 * test_catset.c - categorical splits' sets in the packed form that
 * prediction reads (common/catset.h): every shape of set (empty, one
 * category, dense runs, sparse sets up to 2^24 - 1) answers membership as
 * bsearch over its categories does, in words proportional to its
 * categories; and a model whose sets hold 16777215 predicts, gives leaf
 * ids and SHAP values as its trees walked by hand say.
 */
#include <math.h>
#include <stdint.h>

#include "common/catset.h"
#include "testutil.h"

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The reference: the C library's bsearch over the categories. */
static int scan(const uint32_t *c, uint32_t n, uint32_t code)
{
    return n > 0 && bsearch(&code, c, n, sizeof *c, cmp_u32) != NULL;
}

static uint32_t rng_state = 12345u;
static uint32_t rnd(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

/* Packs c (n ascending) and checks membership near every category and both ends; 1 if all agree. */
static int check_set(const uint32_t *c, uint32_t n, const char *what, uint32_t *words_out)
{
    static uint32_t packed[70000];
    const uint32_t words = gbt_catset_words(c, n);
    uint32_t bad = 0, probes = 0;
    if (words > n + GBT_CATSET_SLACK + 3 || words > sizeof packed / sizeof packed[0] - 1) {
        diag("%s: %u categories take %u words", what, n, words);
        return 0;
    }
    packed[words] = 0xdeadbeefu;
    gbt_catset_pack(c, n, packed);
    if (packed[words] != 0xdeadbeefu) {
        diag("%s: the packing wrote past its %u words", what, words);
        return 0;
    }
    for (uint32_t k = 0; k <= n; k++) {
        const uint32_t mid = k < n ? c[k] : 0u;
        for (int64_t d = -40; d <= 40; d++) {
            const int64_t code = (int64_t)mid + d;
            if (code < 0 || code >= 16777216) continue;
            probes++;
            if (gbt_catset_has(packed, (uint32_t)code) != scan(c, n, (uint32_t)code)) {
                if (bad++ < 3) diag("%s: category %lld disagrees", what, (long long)code);
            }
        }
    }
    for (uint32_t code = 16777215u - 70; code < 16777216u; code++, probes++)
        if (gbt_catset_has(packed, code) != scan(c, n, code) && bad++ < 3) diag("%s: category %u disagrees", what, code);
    *words_out = words;
    return bad == 0 && probes > 0;
}

/* check_set, and the words the packed set takes. */
static void shape(const uint32_t *c, uint32_t n, const char *what, uint32_t want)
{
    uint32_t w = 0;
    const int good = check_set(c, n, what, &w);
    ok(good && w == want, "%s: membership as bsearch says, in %u words (%u expected)", what, w, want);
}

static void test_shapes(void)
{
    static uint32_t c[65536];
    uint32_t w = 0;
    const uint32_t one_top[] = {16777215u}, two_ends[] = {0u, 16777215u}, low[] = {0u}, edge[] = {31u, 32u},
                   three[] = {3u, 40u, 1000u};
    shape(c, 0, "the empty set: an empty list", 2);
    shape(low, 1, "{0}: a bitmap of one word", 4);
    shape(one_top, 1, "{16777215}: a bitmap of one word at its own offset, not 524288 words", 4);
    shape(two_ends, 2, "{0, 16777215}: a list", 4);
    shape(edge, 2, "{31, 32}: a bitmap of two words", 5);
    shape(three, 3, "{3, 40, 1000}: a bitmap of 32 words", 35);
    for (uint32_t k = 0; k < 64; k++) c[k] = 16777152u + k;
    shape(c, 64, "the last 64 categories: a bitmap of 2 words", 5);
    /* random sets: dense runs, sparse sets, and both sides of the bitmap's limit */
    {
        int all = 1;
        uint32_t most = 0;
        for (int r = 0; r < 300 && all; r++) {
            const uint32_t n = 1 + rnd() % (r < 100 ? 64 : 600);
            const uint32_t step = r % 3 == 0 ? 1 + rnd() % 3 : r % 3 == 1 ? 1 + rnd() % 200 : 1 + rnd() % 8000;
            uint32_t at = rnd() % 1000000u, k;
            for (k = 0; k < n && at < 16777216u; k++) {
                c[k] = at;
                at += 1 + rnd() % step;
            }
            all = check_set(c, k, "a random set", &w);
            if (w > most) most = w;
        }
        ok(all, "300 random sets of 1 to 600 categories (steps up to 8000): membership as bsearch says, "
                "at most n + %u words (largest %u)", GBT_CATSET_SLACK + 3, most);
    }
    for (uint32_t k = 0; k < 65535; k++) c[k] = k * 256u;
    shape(c, 65535, "65,535 categories 256 apart (to 16776960): a list, not a bitmap of 524288 words", 65537);
}

/*
 * An XGBoost model of one tree on 2 categorical features: node 0 splits
 * f0 on {3, 16777215}, its left child f1 on the even codes 0..40, its
 * right child f0 on {16777215}; leaves 3..6 hold 1, 2, 3, 4 (a category
 * of the set goes right, missing left).
 */
static const char *model_json(void)
{
    return "{\"learner\":{\"attributes\":{},\"feature_names\":[],\"feature_types\":[\"c\",\"c\"],"
           "\"gradient_booster\":{\"model\":{\"gbtree_model_param\":{\"num_parallel_tree\":\"1\",\"num_trees\":\"1\"},"
           "\"iteration_indptr\":[0,1],\"tree_info\":[0],\"trees\":[{"
           "\"base_weights\":[0,0,0,1,2,3,4],"
           "\"categories\":[3,16777215,0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,16777215],"
           "\"categories_nodes\":[0,1,2],\"categories_segments\":[0,2,23],\"categories_sizes\":[2,21,1],"
           "\"default_left\":[1,1,1,0,0,0,0],\"id\":0,\"left_children\":[1,3,5,-1,-1,-1,-1],"
           "\"loss_changes\":[3,2,1,0,0,0,0],\"parents\":[2147483647,0,0,1,1,2,2],"
           "\"right_children\":[2,4,6,-1,-1,-1,-1],\"split_conditions\":[0,0,0,1,2,3,4],"
           "\"split_indices\":[0,1,0,0,0,0,0],\"split_type\":[1,1,1,0,0,0,0],"
           "\"sum_hessian\":[8,4,4,2,2,2,2],"
           "\"tree_param\":{\"num_deleted\":\"0\",\"num_feature\":\"2\",\"num_nodes\":\"7\",\"size_leaf_vector\":\"1\"}}]},"
           "\"name\":\"gbtree\"},\"learner_model_param\":{\"base_score\":\"0E0\",\"boost_from_average\":\"0\","
           "\"num_class\":\"0\",\"num_feature\":\"2\",\"num_target\":\"1\"},"
           "\"objective\":{\"name\":\"reg:squarederror\",\"reg_loss_param\":{\"scale_pos_weight\":\"1\"}}},"
           "\"version\":[3,2,0]}";
}

/* The category a value means (its whole part), or -1 for none (negative, 2^24 and above). */
static int64_t code_of(float x)
{
    return x >= 0.0f && x < 16777216.0f ? (int64_t)x : -1;
}

/* The leaf id the tree above sends (a, b) to, walked by hand. */
static int leaf_of(float a, float b)
{
    const int64_t ca = code_of(a), cb = code_of(b);
    if (isnan(a) || !(ca == 3 || ca == 16777215)) /* node 0: left, to node 1 on f1 */
        return !isnan(b) && cb >= 0 && cb <= 40 && cb % 2 == 0 ? 4 : 3;
    return ca == 16777215 ? 6 : 5; /* node 2 */
}

static void test_model(void)
{
    static const float codes[] = {0, 1, 2, 2.5f, 3, 3.9f, 4, 31, 32, 40, 41, 42, 1000, 16777214, 16777215,
                                  16777216, 3e9f, -1, -0.5f, NAN};
    enum { NC = sizeof codes / sizeof codes[0], NR = NC * NC };
    static float x[NR * 2], pred[NR], leaf[NR], contrib[NR * 3];
    const char *js = model_json();
    gbt_booster *b = NULL;
    int bad_pred = 0, bad_leaf = 0, bad_sum = 0;
    for (int i = 0; i < NC; i++)
        for (int j = 0; j < NC; j++) {
            x[2 * (i * NC + j)] = codes[i];
            x[2 * (i * NC + j) + 1] = codes[j];
        }
    ok_call(gbt_booster_load_from_buffer(js, strlen(js), &b), "an XGBoost model whose sets hold 16777215 loads");
    ok_call(gbt_booster_predict_dense(b, x, NR, 2, NAN, GBT_PREDICT_MARGIN, pred, NR), "predict");
    ok_call(gbt_booster_predict_dense(b, x, NR, 2, NAN, GBT_PREDICT_LEAF, leaf, NR), "leaf ids");
    ok_call(gbt_booster_predict_dense(b, x, NR, 2, NAN, GBT_PREDICT_CONTRIBS, contrib, (uint64_t)NR * 3),
            "SHAP values");
    for (int r = 0; r < NR; r++) {
        const int l = leaf_of(x[2 * r], x[2 * r + 1]);
        if (pred[r] != (float)(l - 2) && bad_pred++ < 3)
            diag("row (%g, %g): predicted %g, the walk by hand gives %d", (double)x[2 * r], (double)x[2 * r + 1],
                 (double)pred[r], l - 2);
        if (leaf[r] != (float)l && bad_leaf++ < 3)
            diag("row (%g, %g): leaf %g, the walk by hand gives %d", (double)x[2 * r], (double)x[2 * r + 1],
                 (double)leaf[r], l);
        if (fabs((double)contrib[3 * r] + contrib[3 * r + 1] + contrib[3 * r + 2] - (l - 2)) > 1e-5 && bad_sum++ < 3)
            diag("row %d: SHAP values sum to %g, not %d", r, (double)contrib[3 * r] + contrib[3 * r + 1] + contrib[3 * r + 2],
                 l - 2);
    }
    ok(bad_pred == 0, "%d rows of codes 0 .. 2^24 - 1, beyond, negative and missing predict the leaf of the walk by hand "
                      "(%d differ)", NR, bad_pred);
    ok(bad_leaf == 0, "and reach its leaf id (%d differ)", bad_leaf);
    ok(bad_sum == 0, "and their SHAP values sum to that leaf (%d differ)", bad_sum);
    gbt_booster_free(b);
}

int main(void)
{
    test_shapes();
    test_model();
    return done_testing();
}
