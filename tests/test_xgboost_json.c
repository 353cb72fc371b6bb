/*
 * test_xgboost_json.c - XGBoost's JSON model format without XGBoost: the
 * exported file has the members XGBoost's loader requires (checked against
 * the schema's required fields, written out here), reading it back gives a
 * booster predicting the same, and models XGBoost wrote (hand-made here in
 * its format) load, or are refused with a reason when gbt cannot hold them.
 * UBJSON (XGBoost's .ubj): a model encoded here with the draft's other
 * choices (short lengths, typed arrays, float64, no-ops, closed containers)
 * reads as its JSON does; the encoding gbt writes types the arrays as
 * XGBoost's loader needs; malformed bytes are refused naming the byte.
 * tests/xgboost_interop.sh checks against XGBoost itself when Python has it.
 */
#include <math.h>

#include "train/booster.h"
#include "util/json.h"
#include "testutil.h"

/* The value of path "a.b.c" (members) from node 0, or -1. */
static int32_t at(const struct gbt_jdoc *d, const char *path)
{
    char key[64];
    int32_t n = 0;
    while (*path && n >= 0) {
        size_t l = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)l, path);
        n = d->n[n].type == GBT_J_OBJECT ? gbt__json_member(d, n, key) : -1;
        path += l + (path[l] == '.');
    }
    return n;
}

/* The required members of XGBoost's JSON model schema (doc/model.schema, XGBoost 2.x/3.x). */
static void check_schema(const char *file, const char *name, int ntrees, int nout)
{
    static const char *const top[] = {"version", "learner.attributes", "learner.feature_names",
                                      "learner.feature_types", "learner.gradient_booster.name",
                                      "learner.gradient_booster.model.gbtree_model_param.num_trees",
                                      "learner.gradient_booster.model.gbtree_model_param.num_parallel_tree",
                                      "learner.gradient_booster.model.tree_info",
                                      "learner.gradient_booster.model.iteration_indptr",
                                      "learner.gradient_booster.model.trees",
                                      "learner.learner_model_param.base_score",
                                      "learner.learner_model_param.num_class",
                                      "learner.learner_model_param.num_feature",
                                      "learner.learner_model_param.num_target", "learner.objective.name"};
    static const char *const tree[] = {"id", "base_weights", "categories", "categories_nodes",
                                       "categories_segments", "categories_sizes", "default_left",
                                       "left_children", "loss_changes", "parents", "right_children",
                                       "split_conditions", "split_indices", "split_type", "sum_hessian",
                                       "tree_param"};
    FILE *f = fopen(file, "rb");
    char *text = malloc(1 << 22);
    size_t len = f && text ? fread(text, 1, (1 << 22) - 1, f) : 0;
    struct gbt_jdoc d;
    int good = len > 0;
    if (f) fclose(f);
    if (good && gbt__json_parse(text, len, file, &d) == GBT_OK) {
        int32_t trees, t, info;
        for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
            if (at(&d, top[i]) < 0) {
                diag("%s: no %s", name, top[i]);
                good = 0;
            }
        trees = at(&d, "learner.gradient_booster.model.trees");
        info = at(&d, "learner.gradient_booster.model.tree_info");
        good &= trees >= 0 && d.n[trees].count == ntrees && info >= 0 && d.n[info].count == ntrees;
        for (t = trees >= 0 ? d.n[trees].child : -1; t >= 0 && good; t = d.n[t].next)
            for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++)
                if (gbt__json_member(&d, t, tree[i]) < 0) {
                    diag("%s: a tree without %s", name, tree[i]);
                    good = 0;
                }
        {
            /* base_score: one value per output, as "[v,...]" */
            int32_t bs = at(&d, "learner.learner_model_param.base_score");
            int commas = 0;
            for (size_t i = 0; bs >= 0 && i < d.n[bs].len; i++) commas += d.n[bs].text[i] == ',';
            good &= bs >= 0 && d.n[bs].type == GBT_J_STRING && d.n[bs].text[0] == '[' && commas == nout - 1;
        }
        gbt__json_free(&d);
    } else {
        good = 0;
    }
    ok(good, "%s: the file has XGBoost's required members, %d trees, %d base scores", name, ntrees, nout);
    free(text);
}

static void round_trip(const char *name, const char *const *settings, int task, int rounds)
{
    enum { N = 300, F = 6 };
    float *x = malloc(N * F * sizeof *x), y[N];
    gbt_dataset *d = NULL;
    gbt_booster *b, *back = NULL;
    char file[512];
    uint64_t len = 0;
    float *p1 = NULL, *p2 = NULL;
    int K = 1, same = 0;
    tu_seed(7);
    tu_data(N, F, 0.1, task, x, y);
    gbt_dataset_from_dense(x, N, F, NAN, &d);
    gbt_dataset_set_field(d, "label", y, N);
    b = tu_train(d, rounds, settings);
    snprintf(file, sizeof file, "%s/%s.json", tu_tmpdir(), name);
    if (b) {
        K = b->model.K;
        ok(gbt_booster_save_xgboost(b, file) == GBT_OK, "%s: exported", name);
        check_schema(file, name, rounds * K, K);
        if (gbt_booster_load(file, &back) != GBT_OK) diag("%s", gbt_last_error());
        ok(back != NULL, "%s: the export loads back", name);
    }
    if (back && gbt_booster_predict_size(b, N, GBT_PREDICT_MARGIN, &len) == GBT_OK) {
        p1 = malloc(len * sizeof *p1);
        p2 = malloc(len * sizeof *p2);
        same = gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, p1, len) == GBT_OK &&
               gbt_booster_predict(back, d, GBT_PREDICT_MARGIN, p2, len) == GBT_OK;
        /* the starting scores pass through a float probability or mean: float precision */
        for (uint64_t i = 0; same && i < len; i++)
            if (!(fabs(p1[i] - p2[i]) <= 1e-6 * (fabs(p1[i]) > 1 ? fabs(p1[i]) : 1))) {
                diag("%s: raw score %llu: %.9g vs %.9g", name, (unsigned long long)i, p1[i], p2[i]);
                same = 0;
            }
    }
    ok(same && back->model.objective == b->model.objective && back->model.K == K &&
           back->model.ntrees == b->model.ntrees,
       "%s: the loaded export predicts the same raw scores (%llu values)", name, (unsigned long long)len);
    free(p1);
    free(p2);
    free(x);
    gbt_booster_free(b);
    gbt_booster_free(back);
    gbt_dataset_free(d);
}

/* A one-tree XGBoost model with the given pieces, in XGBoost's layout. */
static const char *xgb_model(char *buf, size_t len, const char *objective, const char *booster,
                             const char *split_type, const char *left, const char *parallel)
{
    snprintf(buf, len,
             "{\"learner\":{\"attributes\":{},\"feature_names\":[],\"feature_types\":[],"
             "\"gradient_booster\":{\"model\":{\"gbtree_model_param\":{\"num_parallel_tree\":\"%s\","
             "\"num_trees\":\"1\"},\"iteration_indptr\":[0,1],\"tree_info\":[0],\"trees\":[{\"base_weights\":"
             "[0.0,-0.5,0.25],\"categories\":[],\"categories_nodes\":[],\"categories_segments\":[],"
             "\"categories_sizes\":[],\"default_left\":[1,0,0],\"id\":0,\"left_children\":[%s,-1,-1],"
             "\"loss_changes\":[3.0,0.0,0.0],\"parents\":[2147483647,0,0],\"right_children\":[2,-1,-1],"
             "\"split_conditions\":[1.5,-0.5,0.25],\"split_indices\":[1,0,0],\"split_type\":[%s,0,0],"
             "\"sum_hessian\":[10.0,4.0,6.0],\"tree_param\":{\"num_deleted\":\"0\",\"num_feature\":\"2\","
             "\"num_nodes\":\"3\",\"size_leaf_vector\":\"1\"}}]},\"name\":\"%s\"},"
             "\"learner_model_param\":{\"base_score\":\"[2E-1]\",\"boost_from_average\":\"1\","
             "\"num_class\":\"0\",\"num_feature\":\"2\",\"num_target\":\"1\"},"
             "\"objective\":{\"name\":\"%s\",\"reg_loss_param\":{\"scale_pos_weight\":\"1\"}}},"
             "\"version\":[3,2,0]}",
             parallel, left, split_type, booster, objective);
    return buf;
}

static void test_xgboost_written(void)
{
    char buf[4096];
    gbt_booster *b = NULL;
    const char *m = xgb_model(buf, sizeof buf, "binary:logistic", "gbtree", "0", "1", "1");
    /* rows: feature 1 = 1 (< 1.5: left, -0.5), 2 (right, 0.25), missing (default left) */
    const float x[] = {0, 1, 0, 2, 0, NAN};
    float out[3];
    if (gbt_booster_load_from_buffer(m, strlen(m), &b) != GBT_OK) diag("%s", gbt_last_error());
    ok(b != NULL, "a model in XGBoost's JSON format loads");
    if (b) {
        /* base_score 0.2 is a probability: the raw score starts at log(0.2 / 0.8) */
        const double base = log(0.25);
        gbt_status st = gbt_booster_predict_dense(b, x, 3, 2, NAN, GBT_PREDICT_MARGIN, out, 3);
        ok(st == GBT_OK && fabs(out[0] - (base - 0.5)) < 1e-6 && fabs(out[1] - (base + 0.25)) < 1e-6 &&
               fabs(out[2] - (base - 0.5)) < 1e-6,
           "it predicts logit(0.2) + the leaf, missing to the default side (%g %g %g)", out[0], out[1], out[2]);
        gbt_booster_free(b);
        b = NULL;
    }
    m = xgb_model(buf, sizeof buf, "binary:logistic", "dart", "0", "1", "1");
    ok(gbt_booster_load_from_buffer(m, strlen(m), &b) == GBT_E_FORMAT && strstr(gbt_last_error(), "weight_drop"),
       "a dart booster without its weights and gbtree inside is refused: %s", gbt_last_error());
    m = xgb_model(buf, sizeof buf, "binary:logistic", "gblinear", "0", "1", "1");
    ok(gbt_booster_load_from_buffer(m, strlen(m), &b) == GBT_E_FORMAT && strstr(gbt_last_error(), "weights"),
       "a gblinear booster without its weights is refused: %s", gbt_last_error());
    m = xgb_model(buf, sizeof buf, "binary:logistic", "gbtree", "1", "1", "1");
    ok(gbt_booster_load_from_buffer(m, strlen(m), &b) == GBT_E_FORMAT && strstr(gbt_last_error(), "categorical"),
       "a categorical split is refused: %s", gbt_last_error());
    m = xgb_model(buf, sizeof buf, "binary:logistic", "gbtree", "0", "0", "1");
    ok(gbt_booster_load_from_buffer(m, strlen(m), &b) == GBT_E_FORMAT && strstr(gbt_last_error(), "tree"),
       "a node that is its own child is refused: %s", gbt_last_error());
    m = xgb_model(buf, sizeof buf, "binary:logistic", "gbtree", "0", "1", "4");
    ok(gbt_booster_load_from_buffer(m, strlen(m), &b) == GBT_E_FORMAT &&
           strstr(gbt_last_error(), "num_parallel_tree per output and round"),
       "num_parallel_tree=4 with one tree is refused: %s", gbt_last_error());
    m = xgb_model(buf, sizeof buf, "binary:logistic", "gbtree", "0", "1", "0");
    ok(gbt_booster_load_from_buffer(m, strlen(m), &b) == GBT_E_FORMAT && strstr(gbt_last_error(), "num_parallel_tree"),
       "num_parallel_tree=0 is refused: %s", gbt_last_error());
    m = xgb_model(buf, sizeof buf, "rank:softmax", "gbtree", "0", "1", "1");
    ok(gbt_booster_load_from_buffer(m, strlen(m), &b) == GBT_E_FORMAT && strstr(gbt_last_error(), "rank:softmax"),
       "an objective gbt does not have is refused by name: %s", gbt_last_error());
    ok(b == NULL, "nothing is returned on a refusal");
}

/* ---- UBJSON ---- */

static void ub_byte(struct gbt_strbuf *sb, int c)
{
    const char b = (char)c;
    gbt__sb_append(sb, &b, 1);
}

/* A string or key: 'U' length (uint8) and the text, which here has no escapes. */
static void ub_text(struct gbt_strbuf *sb, const char *text, size_t len)
{
    ub_byte(sb, 'U');
    ub_byte(sb, (int)len);
    gbt__sb_append(sb, text, len);
}

static void ub_be(struct gbt_strbuf *sb, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--) ub_byte(sb, (int)(v >> (8 * i) & 0xff));
}

/*
 * The JSON document node as UBJSON with the choices XGBoost does not make:
 * objects and arrays closed by '}' and ']' after a no-op 'N', int8 lengths,
 * int32 integers, float64 reals, arrays of numbers typed ('$l' or '$D')
 * with a uint8 count.
 */
static void ub_node(struct gbt_strbuf *sb, const struct gbt_jdoc *d, int32_t id)
{
    const struct gbt_jnode *n = &d->n[id];
    struct gbt_jiter it = {0};
    struct gbt_jnode el;
    int real = 0;
    switch (n->type) {
    case GBT_J_NULL: ub_byte(sb, 'Z'); return;
    case GBT_J_BOOL: ub_byte(sb, n->text[0] == 't' ? 'T' : 'F'); return;
    case GBT_J_STRING: ub_byte(sb, 'S'); ub_text(sb, n->text, n->len); return;
    case GBT_J_NUMBER: {
        double v = strtod(n->text, NULL);
        uint64_t u;
        if (memchr(n->text, '.', n->len) || memchr(n->text, 'E', n->len)) {
            memcpy(&u, &v, sizeof u);
            ub_byte(sb, 'D');
            ub_be(sb, u, 8);
        } else {
            ub_byte(sb, 'l');
            ub_be(sb, (uint32_t)(int32_t)v, 4);
        }
        return;
    }
    case GBT_J_OBJECT:
        ub_byte(sb, '{');
        for (int32_t c = n->child; c >= 0; c = d->n[c].next) {
            ub_text(sb, d->n[c].key, d->n[c].key_len);
            ub_node(sb, d, c);
        }
        gbt__sb_append(sb, "N}", 2);
        return;
    default:
        if (!n->packed) {
            ub_byte(sb, '[');
            for (int32_t c = n->child; c >= 0; c = d->n[c].next) ub_node(sb, d, c);
            gbt__sb_append(sb, "N]", 2);
            return;
        }
        while (gbt__json_next(d, id, &it, &el)) real |= memchr(el.text, '.', el.len) != NULL;
        gbt__sb_append(sb, real ? "[$D#U" : "[$l#U", 5);
        ub_byte(sb, n->count);
        memset(&it, 0, sizeof it);
        while (gbt__json_next(d, id, &it, &el)) {
            double v = strtod(el.text, NULL);
            uint64_t u;
            memcpy(&u, &v, sizeof u);
            if (real)
                ub_be(sb, u, 8);
            else
                ub_be(sb, (uint32_t)(int32_t)v, 4);
        }
    }
}

/* Whether the n bytes at `what` occur in buf[0..len). */
static int has_bytes(const char *buf, size_t len, const char *what, size_t n)
{
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(buf + i, what, n) == 0) return 1;
    return 0;
}

static void test_xgboost_ubjson(void)
{
#define BYTES(s) s, sizeof s - 1
    static const struct {
        const char *bytes;
        size_t len;
        const char *msg;
    } bad[] = {
        {BYTES("{i\x07learner[#L\x7f\xff\xff\xff\xff\xff\xff\xff"),
         "UBJSON: element count 9223372036854775807 is more than the 0 bytes left can hold (byte 12)"},
        {BYTES("{i\x07learner[$d#l\x10\0\0\0\0\0}"),
         "UBJSON: element count 268435456 is more than the 3 bytes left can hold (byte 14)"},
        {BYTES("{i\x07learner{#U\x05Z}"), "UBJSON: member count 5 is more than the 2 bytes left can hold (byte 12)"},
        {BYTES("{i\x07learnerSi\xff}"), "UBJSON: string length -1 is negative (byte 11)"},
        {BYTES("{i\x07learnerSi\x02\xc3\x28}"), "UBJSON: a string is not valid UTF-8 (byte 13)"},
        {BYTES("{i\x07learnerd\x7f\xc0\0\0}"),
         "UBJSON: a NaN or infinite number, which a JSON document cannot hold (byte 10)"},
        {BYTES("{i\x07learnerQ}"), "UBJSON: unknown type marker 0x51 (byte 10)"},
        {BYTES("{i\x07learnerZ}xx"), "UBJSON: bytes after the end of the document (byte 12)"},
        {BYTES("{i\x07learnerl\0\x01"), "UBJSON: a number is cut short (byte 13: the data ends early"},
        {BYTES("{i\x07learner[i\x01"), "UBJSON: the data ends inside an array (byte 13: the data ends early"},
        {BYTES("{i\x07learner[$Z#i\x03}"),
         "UBJSON: typed containers of null, true or false are not supported (byte 12)"},
        {BYTES("{i\x07learner[$d}"), "UBJSON: a typed container without a count ('#') (byte 13)"},
        {BYTES("{d\x07learnerZ}"), "model:1: expected a member name (byte 1)"}, /* not UBJSON: read as JSON */
    };
    char deep[80] = "{i\x01" "a";
    char buf[4096];
    const char *m = xgb_model(buf, sizeof buf, "binary:logistic", "gbtree", "0", "1", "1");
    const float x[] = {0, 1, 0, 2, 0, NAN};
    const double base = log(0.25);
    struct gbt_jdoc d;
    struct gbt_strbuf ub = {0};
    gbt_booster *b = NULL, *again = NULL;
    char *w1 = NULL, *w2 = NULL;
    size_t l1 = 0, l2 = 0;
    float out[3] = {0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gbt_status st = gbt_booster_load_from_buffer(bad[i].bytes, bad[i].len, &b);
        ok(st == GBT_E_FORMAT && b == NULL && strstr(gbt_last_error(), bad[i].msg),
           "malformed UBJSON %zu is refused at its byte: %s", i, gbt_last_error());
    }
    /* arrays in arrays: the 65th level (byte 4 + 64) is one too deep, as in JSON */
    memset(deep + 4, '[', sizeof deep - 4);
    ok(gbt_booster_load_from_buffer(deep, sizeof deep, &b) == GBT_E_FORMAT &&
           strstr(gbt_last_error(), "UBJSON: nesting too deep (byte 68)"),
       "UBJSON nested too deep is refused: %s", gbt_last_error());
    /* test_xgboost_written's model, encoded here */
    if (gbt__json_parse(m, strlen(m), "model", &d) == GBT_OK) {
        ub_node(&ub, &d, 0);
        gbt__json_free(&d);
    }
    if (gbt_booster_load_from_buffer(ub.s, ub.len, &b) != GBT_OK) diag("%s", gbt_last_error());
    ok(b != NULL && gbt_booster_predict_dense(b, x, 3, 2, NAN, GBT_PREDICT_MARGIN, out, 3) == GBT_OK,
       "the model in UBJSON (typed arrays, short lengths, float64, no-ops) loads");
    ok(fabs(out[0] - (base - 0.5)) < 1e-6 && fabs(out[1] - (base + 0.25)) < 1e-6 &&
           fabs(out[2] - (base - 0.5)) < 1e-6,
       "and predicts as its JSON does: logit(0.2) + the leaf (%g %g %g)", out[0],
       out[1], out[2]);
    if (b && gbt_booster_save_to_buffer_format(b, GBT_MODEL_XGBOOST_UBJ, &w1, &l1) == GBT_OK &&
        gbt_booster_load_from_buffer(w1, l1, &again) == GBT_OK)
        gbt_booster_save_to_buffer_format(again, GBT_MODEL_XGBOOST_UBJ, &w2, &l2);
    /* XGBoost reads a tree's arrays typed when "parents" is, as its writer types them; tree_info untyped */
    ok(w1 && has_bytes(w1, l1, BYTES("{L\0\0\0\0\0\0\0\x07learner{")) &&
           has_bytes(w1, l1, BYTES("\x07parents[$l#L\0\0\0\0\0\0\0\x03")) &&
           has_bytes(w1, l1, BYTES("\x10split_conditions[$d#L")) &&
           has_bytes(w1, l1, BYTES("\x0c" "default_left[$U#L")) &&
           has_bytes(w1, l1, BYTES("\x13" "categories_segments[$L#L")) && has_bytes(w1, l1, BYTES("\x09tree_info[#L")),
       "gbt's UBJSON types the tree's arrays as XGBoost does (%zu bytes)", l1);
    ok(w2 && l1 == l2 && memcmp(w1, w2, l1) == 0, "read and written again, it is the same bytes");
    ok(gbt_booster_save_to_buffer_format(b, 7, &w2, &l2) == GBT_E_INVALID_ARG &&
           strstr(gbt_last_error(), "unknown model format 7"),
       "an unknown format is refused: %s", gbt_last_error());
#undef BYTES
    free(ub.s);
    gbt_free(w1);
    gbt_free(w2);
    gbt_booster_free(b);
    gbt_booster_free(again);
}

/* m with the first `from` replaced by `to`, into buf. */
static const char *replaced(char *buf, size_t len, const char *m, const char *from, const char *to)
{
    const char *at = strstr(m, from);
    if (at == NULL) return m;
    snprintf(buf, len, "%.*s%s%s", (int)(at - m), m, to, at + strlen(from));
    return buf;
}

/* Loads m with the first `from` replaced by `to` (the text in buf). */
static gbt_status load_edited(char *buf, size_t len, const char *m, const char *from, const char *to, gbt_booster **b)
{
    replaced(buf, len, m, from, to);
    return gbt_booster_load_from_buffer(buf, strlen(buf), b);
}

/*
 * Numbers of an XGBoost model exactly as XGBoost writes them (issue 26):
 * base_score is one number or a bracketed list of numbers; numbers in
 * strings and arrays are RFC 8259 numbers; num_feature within the limit.
 */
static void test_xgboost_strict(void)
{
    static const char *const good_base[] = {"2E-1", "[2E-1]", "0.2", "[ 2E-1 ]", "[2.0E-1]"};
    static const char *const bad_base[] = {"[2E-1 7]", "[2E-1,]", "[2E-1", "2E-1]", "0x1p-3", "[]", ".2",
                                           "02E-1", "2E-1,3E-1", "[2E-1][3E-1]", " 2E-1", "[+2E-1]", ""};
    char buf[4096], edited[4200], from[64];
    const char *m = xgb_model(buf, sizeof buf, "binary:logistic", "gbtree", "0", "1", "1");
    gbt_booster *b = NULL;
    float out = 0;
    const float x[] = {0, 1};
    for (size_t i = 0; i < sizeof good_base / sizeof *good_base; i++) {
        char to[64];
        snprintf(to, sizeof to, "\"base_score\":\"%s\"", good_base[i]);
        b = NULL;
        ok(load_edited(edited, sizeof edited, m, "\"base_score\":\"[2E-1]\"", to, &b) == GBT_OK &&
               gbt_booster_predict_dense(b, x, 1, 2, NAN, GBT_PREDICT_MARGIN, &out, 1) == GBT_OK &&
               fabs(out - (log(0.25) - 0.5)) < 1e-6,
           "base_score \"%s\" loads as 0.2 (margin %g)", good_base[i], out);
        gbt_booster_free(b);
    }
    for (size_t i = 0; i < sizeof bad_base / sizeof *bad_base; i++) {
        char to[64];
        snprintf(to, sizeof to, "\"base_score\":\"%s\"", bad_base[i]);
        b = NULL;
        ok(load_edited(edited, sizeof edited, m, "\"base_score\":\"[2E-1]\"", to, &b) == GBT_E_FORMAT &&
               strstr(gbt_last_error(), "base_score") && strstr(gbt_last_error(), "(byte ") && b == NULL,
           "base_score \"%s\" is refused: %s", bad_base[i], gbt_last_error());
    }
    /* all labels 0: XGBoost 3.2 writes base_score 0 and takes the logit of its bound 1e-6 (float) */
    b = NULL;
    out = 0;
    if (load_edited(edited, sizeof edited, m, "\"base_score\":\"[2E-1]\"", "\"base_score\":\"[0E0]\"", &b) == GBT_OK)
        gbt_booster_predict_dense(b, x, 1, 2, NAN, GBT_PREDICT_MARGIN, &out, 1);
    ok(fabs(out - (log((double)1e-6f / (1 - (double)1e-6f)) - 0.5)) < 1e-6,
       "base_score 0 of binary:logistic loads as the logit of 1e-6 (margin %g)", out);
    gbt_booster_free(b);
    /* a vector intercept, as XGBoost 3 writes it for reg:squarederror */
    m = xgb_model(buf, sizeof buf, "reg:squarederror", "gbtree", "0", "1", "1");
    b = NULL;
    ok(load_edited(edited, sizeof edited, m, "[2E-1]", "[1.08708E0]", &b) ==
               GBT_OK &&
           gbt_booster_predict_dense(b, x, 1, 2, NAN, GBT_PREDICT_MARGIN, &out, 1) == GBT_OK &&
           fabs(out - (1.08708 - 0.5)) < 1e-6,
       "base_score \"[1.08708E0]\" loads (margin %g)", out);
    gbt_booster_free(b);
    b = NULL;
    ok(load_edited(edited, sizeof edited, m, "[2E-1]", "[1.08708 7]", &b) ==
               GBT_E_FORMAT && b == NULL,
       "base_score \"[1.08708 7]\" is refused: %s", gbt_last_error());
    /* num_feature: the limit, 16777215, and one more */
    m = xgb_model(buf, sizeof buf, "binary:logistic", "gbtree", "0", "1", "1");
    snprintf(from, sizeof from, "\"num_feature\":\"2\",\"num_target\"");
    b = NULL;
    ok(load_edited(edited, sizeof edited, m, from, "\"num_feature\":\"16777215\",\"num_target\"", &b) == GBT_OK,
       "num_feature 16777215 loads");
    gbt_booster_free(b);
    b = NULL;
    ok(load_edited(edited, sizeof edited, m, from, "\"num_feature\":\"16777216\",\"num_target\"", &b) == GBT_E_FORMAT &&
           strstr(gbt_last_error(), "num_feature") && b == NULL,
       "num_feature 16777216 is refused: %s", gbt_last_error());
    ok(load_edited(edited, sizeof edited, m, from, "\"num_feature\":\"0x2\",\"num_target\"", &b) == GBT_E_FORMAT && b == NULL,
       "num_feature \"0x2\" is refused: %s", gbt_last_error());
    /* numbers in arrays: a split condition with a leading zero */
    ok(load_edited(edited, sizeof edited, m, "[1.5,-0.5,0.25]", "[01.5,-0.5,0.25]", &b) == GBT_E_FORMAT && strstr(gbt_last_error(), "bad number") &&
           strstr(gbt_last_error(), "(byte ") && b == NULL,
       "a split condition 01.5 is refused: %s", gbt_last_error());
}

/*
 * XGBoost's own category encoding (cats.enc, from pandas categories) becomes
 * the feature_categories attribute; the expected texts are written by hand
 * from the bytes and offsets.
 */
static void test_xgboost_cats(void)
{
    char buf[4096], buf2[4096], buf3[4096], attr[256];
    gbt_booster *b = NULL;
    /* the root splits on categorical feature 1 (category 1 goes right) */
    const char *m = xgb_model(buf3, sizeof buf3, "binary:logistic", "gbtree", "1", "1", "1");
    m = replaced(buf, sizeof buf, m,
                 "\"categories\":[],\"categories_nodes\":[],\"categories_segments\":[],\"categories_sizes\":[]",
                 "\"categories\":[1],\"categories_nodes\":[0],\"categories_segments\":[0],\"categories_sizes\":[1]");
    m = replaced(buf2, sizeof buf2, m, "\"feature_types\":[]", "\"feature_types\":[\"float\",\"c\"]");
    /* feature 1's categories "a", "bc" and "de" */
    m = replaced(buf, sizeof buf, m, "\"model\":{",
                 "\"model\":{\"cats\":{\"enc\":[{\"offsets\":[],\"values\":[]},{\"offsets\":[0,1,3,5],"
                 "\"values\":[97,98,99,100,101]}],\"feature_segments\":[0,0,3],\"sorted_idx\":[0,1,2]},");
    {
        const int loaded = gbt_booster_load_from_buffer(m, strlen(m), &b) == GBT_OK &&
                           gbt_booster_get_attr(b, "feature_categories", attr, sizeof attr) == GBT_OK;
        ok(loaded && strcmp(attr, "{\"1\":[\"a\",\"bc\",\"de\"]}") == 0,
           "XGBoost's string categories become feature_categories: %s", loaded ? attr : gbt_last_error());
    }
    gbt_booster_free(b);
    b = NULL;
    {
        const char *n = replaced(buf2, sizeof buf2, m, "{\"offsets\":[0,1,3,5],\"values\":[97,98,99,100,101]}",
                                 "{\"type\":15,\"values\":[3,7,11]}");
        const int loaded = gbt_booster_load_from_buffer(n, strlen(n), &b) == GBT_OK &&
                           gbt_booster_get_attr(b, "feature_categories", attr, sizeof attr) == GBT_OK;
        ok(loaded && strcmp(attr, "{\"1\":[3,7,11]}") == 0, "XGBoost's numeric categories too: %s",
           loaded ? attr : gbt_last_error());
        gbt_booster_free(b);
        b = NULL;
    }
    ok(load_edited(buf2, sizeof buf2, m, "[0,1,3,5]", "[0,1,3,9]", &b) == GBT_E_FORMAT &&
           strstr(gbt_last_error(), "cats.enc"),
       "offsets past the values are refused: %s", gbt_last_error());
    ok(load_edited(buf2, sizeof buf2, m, "[0,1,3,5]", "[0,9,3,5]", &b) == GBT_E_FORMAT &&
           strstr(gbt_last_error(), "cats.enc"),
       "offsets that fall back are refused: %s", gbt_last_error());
    /* "d\xc3\xa9" (d, e-acute) as XGBoost 3.2 writes it: offsets in characters, the bytes as signed
       chars cut at the last offset */
    ok(load_edited(buf2, sizeof buf2, m, "99,100,101]", "99,100,-61]", &b) == GBT_E_FORMAT &&
           strstr(gbt_last_error(), "not ASCII"),
       "a category name that is not ASCII is refused: %s", gbt_last_error());
    ok(load_edited(buf2, sizeof buf2, m, "[\"float\",\"c\"]", "[\"float\",\"float\"]", &b) == GBT_E_FORMAT &&
           strstr(gbt_last_error(), "not \"c\""),
       "categories for a numeric feature are refused: %s", gbt_last_error());
    ok(b == NULL, "nothing is returned on a refusal");
}

int main(void)
{
    {
        const char *const p[] = {"objective=binary:logistic", "max_depth=3", NULL};
        round_trip("binary-logistic", p, 1, 5);
    }
    {
        const char *const p[] = {"objective=multi:softprob", "num_class=3", "grow_policy=lossguide",
                                 "max_leaves=6", NULL};
        round_trip("multi-softprob", p, 3, 4);
    }
    {
        const char *const p[] = {"objective=reg:quantileerror", "quantile_alpha=0.2,0.8", NULL};
        round_trip("quantile", p, 0, 3);
    }
    {
        const char *const p[] = {"objective=count:poisson", NULL};
        round_trip("poisson", p, 4, 3);
    }
    {
        const char *const p[] = {"objective=reg:pseudohubererror", "huber_slope=2", NULL};
        round_trip("pseudohuber", p, 0, 3);
    }
    test_xgboost_written();
    test_xgboost_strict();
    test_xgboost_cats();
    test_xgboost_ubjson();
    tu_cleanup();
    return done_testing();
}
