/*
 * model_json.c - the model file (docs/model-format.md): JSON written with
 * every float in as few digits as read back to the same bits, saved through
 * a temporary file and a rename, read back with full validation.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "data/feature_names.h"
#include "common/grad_math.h"
#include "util/json.h"
#include "util/json_write.h"
#include "objective/objective.h"
#include "util/outfile.h"
#include "util/ubjson.h"
#include "util/util.h"

#define FORMAT_NAME "gbt-model"
#define FORMAT_VERSION 1
#define FORMAT_VERSION_LINEAR 2 /* a linear model's files (older readers refuse them) */
#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- writing -------------------------------------------------------------- */

static void put_training(const char *name, const char *value, void *user)
{
    struct gbt_strbuf *sb = user;
    /* after a failed allocation the buffer may be empty (and s NULL) */
    const int first = sb->len > 0 && sb->s[sb->len - 1] == '{';
    /* values are JSON strings: constraint texts may hold quotes (names) */
    gbt__sb_printf(sb, "%s\n    \"%s\": ", first ? "" : ",", name);
    gbt__sb_json_string(sb, value);
}

/* An array member of a tree, as this format lays members out. */
#define PUT_ARRAY(sb, key, n, PUT) GBT_JSON_PUT_ARRAY(sb, ",\n      \"" key "\": ", n, PUT)

/*
 * A tree's categorical splits (docs/model-format.md): the categorical
 * nodes ascending, the size of each one's set, and the sets one after
 * another.
 */
static void put_categories(struct gbt_strbuf *sb, const struct gbt_tree *t)
{
    int first = 1;
    gbt__sb_printf(sb, ",\n      \"categories_nodes\": [");
    for (int32_t i = 0; i < t->n_nodes; i++)
        if (t->left[i] >= 0 && gbt__tree_is_cat(t, i)) {
            gbt__sb_printf(sb, first ? "%d" : ",%d", i);
            first = 0;
        }
    first = 1;
    gbt__sb_printf(sb, "],\n      \"categories_sizes\": [");
    for (int32_t i = 0; i < t->n_nodes; i++)
        if (t->left[i] >= 0 && gbt__tree_is_cat(t, i)) {
            gbt__sb_printf(sb, first ? "%d" : ",%d", t->cat_count[i]);
            first = 0;
        }
    first = 1;
    gbt__sb_printf(sb, "],\n      \"categories\": [");
    for (int32_t i = 0; i < t->n_nodes; i++)
        for (int32_t k = 0; t->left[i] >= 0 && gbt__tree_is_cat(t, i) && k < t->cat_count[i]; k++) {
            gbt__sb_printf(sb, first ? "%u" : ",%u", t->cats[t->cat_begin[i] + k]);
            first = 0;
        }
    gbt__sb_append(sb, "]", 1);
}

/* A tree; w: its weight in a dart model (NULL: none written). */
static void put_tree(struct gbt_strbuf *sb, const struct gbt_tree *t, int cls, const float *w)
{
    gbt__sb_printf(sb, "    {\n      \"class\": %d,\n      \"num_nodes\": %d", cls, t->n_nodes);
    if (w) {
        gbt__sb_printf(sb, ",\n      \"weight\": ");
        gbt__json_put_float(sb, *w, 0);
    }
    PUT_ARRAY(sb, "left", t->n_nodes, gbt__sb_printf(sb, "%d", t->left[i_]));
    PUT_ARRAY(sb, "right", t->n_nodes, gbt__sb_printf(sb, "%d", t->right[i_]));
    PUT_ARRAY(sb, "feature", t->n_nodes, gbt__sb_printf(sb, "%d", t->feature[i_]));
    PUT_ARRAY(sb, "threshold", t->n_nodes, gbt__json_put_float(sb, t->threshold[i_], 0));
    PUT_ARRAY(sb, "default_left", t->n_nodes, gbt__sb_printf(sb, "%d", t->default_left[i_]));
    PUT_ARRAY(sb, "value", t->n_nodes, gbt__json_put_float(sb, t->value[i_], 0));
    PUT_ARRAY(sb, "gain", t->n_nodes, gbt__json_put_float(sb, t->gain[i_], 0));
    PUT_ARRAY(sb, "cover", t->n_nodes, gbt__json_put_float(sb, t->cover[i_], 0));
    if (t->split_type != NULL) put_categories(sb, t);
    gbt__sb_append(sb, "\n    }", 6);
}

/* booster=gblinear: its updater's parameters, rounds and weights (model.h's layout). */
static void put_linear(struct gbt_strbuf *sb, const struct gbt_model *m, const struct gbt_params *p)
{
    static const char *const keys[] = {"updater", "feature_selector", "top_k"};
    gbt__sb_printf(sb, "  \"linear\": {");
    for (int i = 0; i < 3; i++) {
        char v[64] = "";
        gbt__params_get(p, keys[i], v, sizeof v);
        gbt__sb_printf(sb, "\"%s\": \"%s\", ", keys[i], v);
    }
    gbt__sb_printf(sb, "\"rounds\": %d,\n    \"weights\": [", m->linear_rounds);
    for (uint64_t i = 0; i < (m->num_feature + 1) * (uint64_t)m->K; i++) {
        if (i) gbt__sb_append(sb, ", ", 2);
        gbt__json_put_float(sb, m->weights[i], 0);
    }
    gbt__sb_printf(sb, "]},\n");
}

gbt_status gbt__model_write_json(const struct gbt_model *m, const struct gbt_params *p,
                                 struct gbt_strbuf *sb)
{
    RETURN_ERROR_IF(m->K == 0, GBT_E_STATE, "the booster has no model to save: train or load one first");
    /* write only what loads: the loader's checks, before a byte of the model */
    FORWARD_IF_ERROR(gbt__model_check(m, "cannot save the model"));
    gbt__sb_printf(sb, "{\n  \"format\": \"%s\",\n  \"format_version\": %d,\n  \"gbt_version\": \"%s\",\n",
                   FORMAT_NAME, m->linear ? FORMAT_VERSION_LINEAR : FORMAT_VERSION, gbt_version());
    gbt__sb_printf(sb, "  \"objective\": \"%s\",\n  \"num_class\": %d,\n  \"num_feature\": %llu,\n",
                   gbt__objective_name(m->objective), m->num_class, (unsigned long long)m->num_feature);
    if (gbt__model_targets(m) > 1) gbt__sb_printf(sb, "  \"num_target\": %d,\n", m->num_target);
    if (m->nfeature_names > 0) {
        gbt__sb_printf(sb, "  \"feature_names\": [");
        for (uint64_t i = 0; i < m->nfeature_names; i++) {
            if (i) gbt__sb_append(sb, ", ", 2);
            gbt__sb_json_string(sb, m->feature_names[i]);
        }
        gbt__sb_printf(sb, "],\n");
    }
    if (m->nfeature_types > 0) {
        /* XGBoost's feature_types as the training data spelt them, one per feature (past the list: "q") */
        gbt__sb_printf(sb, "  \"feature_types\": [");
        for (uint64_t i = 0; i < m->num_feature; i++)
            gbt__sb_printf(sb, "%s\"%s\"", i ? ", " : "",
                           i < m->nfeature_types ? gbt__feature_type_name(m->feature_types[i]) : "q");
        gbt__sb_printf(sb, "],\n");
    }
    if (m->index_base != GBT_BASE_NONE)
        gbt__sb_printf(sb, "  \"libsvm_index_base\": %d,\n", m->index_base == GBT_BASE_ONE);
    if (m->layout.format == GBT_FILE_LIBSVM)
        gbt__sb_printf(sb, "  \"training_file\": {\"format\": \"libsvm\"},\n");
    if (m->layout.format == GBT_FILE_DELIMITED) {
        const char d[2] = {m->layout.delim, '\0'};
        gbt__sb_printf(sb, "  \"training_file\": {\"format\": \"%s\", \"delimiter\": ",
                       m->layout.delim == '\t' ? "tsv" : "csv");
        gbt__sb_json_string(sb, d);
        gbt__sb_printf(sb, ", \"header\": %d, \"label_column\": %lld},\n", m->layout.header,
                       (long long)m->layout.label_column);
    }
    gbt__sb_printf(sb, "  \"base_margin\": [");
    for (int k = 0; k < m->K; k++) {
        if (k) gbt__sb_append(sb, ", ", 2);
        gbt__json_put_double(sb, m->base[k]);
    }
    gbt__sb_printf(sb, "],\n");
    if (m->nattr > 0) {
        gbt__sb_printf(sb, "  \"attributes\": {");
        gbt__model_write_attrs(m, sb);
        gbt__sb_printf(sb, "},\n");
    }
    if (m->best_iteration >= 0) {
        gbt__sb_printf(sb, "  \"best_iteration\": %d,\n  \"best_score\": ", m->best_iteration);
        if (isfinite(m->best_score))
            gbt__json_put_double(sb, m->best_score);
        else
            gbt__sb_printf(sb, "null");
        gbt__sb_printf(sb, ",\n");
    }
    gbt__sb_printf(sb, "  \"training\": {");
    gbt__params_each_training(p, put_training, sb);
    gbt__sb_printf(sb, "\n  },\n");
    if (m->linear) put_linear(sb, m, p);
    gbt__sb_printf(sb, "  \"trees\": [");
    for (uint32_t t = 0; t < m->ntrees; t++) {
        gbt__sb_append(sb, t ? ",\n" : "\n", t ? 2 : 1);
        put_tree(sb, &m->trees[t], (int)(t % (uint32_t)m->K), m->dart ? &m->weight[t] : NULL);
    }
    gbt__sb_printf(sb, "\n  ]\n}\n");
    RETURN_ERROR_IF(sb->failed, GBT_E_NO_MEMORY, "out of memory writing the model");
    return GBT_OK;
}

/* ---- reading -------------------------------------------------------------- */

/* A message of fmt with key in it, at node n (NULL: none). */
static gbt_status bad_at(const struct gbt_jreader *rd, const struct gbt_jnode *n, const char *fmt, const char *key)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, key);
    return gbt__jr_fail_at(rd, n, msg);
}

static gbt_status bad(const struct gbt_jreader *rd, int32_t node, const char *fmt, const char *key)
{
    return bad_at(rd, node >= 0 ? &rd->doc->n[node] : NULL, fmt, key);
}

static gbt_status number_text(const struct gbt_jreader *rd, const struct gbt_jnode *n, char *buf, size_t len)
{
    if (n->type != GBT_J_NUMBER || n->len + 1 > len) return bad_at(rd, n, "expected a number%s", "");
    memcpy(buf, n->text, n->len);
    buf[n->len] = '\0';
    return GBT_OK;
}

static gbt_status get_int(const struct gbt_jreader *rd, const struct gbt_jnode *n, long long lo, long long hi,
                          long long *out)
{
    char buf[64], *end;
    long long v;
    FORWARD_IF_ERROR(number_text(rd, n, buf, sizeof buf));
    errno = 0;
    v = strtoll(buf, &end, 10);
    if (*end != '\0' || errno || v < lo || v > hi) return bad_at(rd, n, "integer out of range: %s", buf);
    *out = v;
    return GBT_OK;
}

static gbt_status get_float(const struct gbt_jreader *rd, const struct gbt_jnode *n, float *out)
{
    char buf[64], *end;
    FORWARD_IF_ERROR(number_text(rd, n, buf, sizeof buf));
    *out = gbt__strtof(buf, &end);
    if (*end != '\0') return bad_at(rd, n, "bad number %s", buf);
    return GBT_OK;
}

static gbt_status get_double(const struct gbt_jreader *rd, const struct gbt_jnode *n, double *out)
{
    char buf[64], *end;
    FORWARD_IF_ERROR(number_text(rd, n, buf, sizeof buf));
    *out = gbt__strtod(buf, &end);
    if (*end != '\0' || !isfinite(*out)) return bad_at(rd, n, "bad number %s", buf);
    return GBT_OK;
}

/* The array member `key` of obj, which must have n elements. */
static gbt_status array_of(const struct gbt_jreader *rd, int32_t obj, const char *key, int32_t n, int32_t *arr)
{
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, key, GBT_J_ARRAY, arr));
    if (rd->doc->n[*arr].count != n) return bad(rd, *arr, "\"%s\" has the wrong number of elements", key);
    return GBT_OK;
}

/* The optional categorical splits of a tree (put_categories); model_check.c checks the sets. */
static gbt_status read_categories(const struct gbt_jreader *rd, int32_t obj, struct gbt_tree *t)
{
    const struct gbt_jdoc *d = rd->doc;
    const int32_t nodes = gbt__json_member(d, obj, "categories_nodes");
    int32_t sizes, cats, nc;
    struct gbt_jiter in, is, ic;
    struct gbt_jnode en, es, ec;
    uint32_t *buf = NULL;
    long long prev = -1;
    gbt_status s = GBT_OK;
    if (nodes < 0) return GBT_OK;
    if (d->n[nodes].type != GBT_J_ARRAY) return bad(rd, nodes, "\"%s\" has the wrong type", "categories_nodes");
    nc = d->n[nodes].count;
    FORWARD_IF_ERROR(array_of(rd, obj, "categories_sizes", nc, &sizes));
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "categories", GBT_J_ARRAY, &cats));
    FORWARD_IF_ERROR(gbt__alloc(&buf, (size_t)d->n[cats].count + 1, sizeof *buf, 0, "tree categories"));
    memset(&in, 0, sizeof in);
    memset(&is, 0, sizeof is);
    memset(&ic, 0, sizeof ic);
    for (int32_t k = 0; k < nc && s == GBT_OK && gbt__json_next(d, nodes, &in, &en) &&
                        gbt__json_next(d, sizes, &is, &es);
         k++) {
        long long node, size;
        s = get_int(rd, &en, prev + 1, (long long)t->n_nodes - 1, &node);
        if (s == GBT_OK) s = get_int(rd, &es, 0, d->n[cats].count, &size);
        for (long long c = 0; s == GBT_OK && c < size; c++) {
            long long v;
            if (!gbt__json_next(d, cats, &ic, &ec)) {
                s = bad(rd, cats, "\"%s\" is shorter than categories_sizes says", "categories");
                break;
            }
            s = get_int(rd, &ec, 0, (long long)GBT_TREE_CAT_LIMIT - 1, &v);
            buf[c] = (uint32_t)v;
        }
        if (s == GBT_OK) s = gbt__tree_set_cats(t, (int32_t)node, buf, (int32_t)size);
        prev = node;
    }
    if (s == GBT_OK && gbt__json_next(d, cats, &ic, &ec))
        s = bad(rd, cats, "\"%s\" is longer than categories_sizes says", "categories");
    free(buf);
    return s;
}

static const char *const tree_arrays[] = {"left", "right", "feature", "default_left",
                                          "threshold", "value", "gain", "cover"};

/* Tree `index` as the file has it (model_check.c checks it once the model is read); *w its dart weight. */
static gbt_status read_tree(const struct gbt_jreader *rd, int32_t obj, const struct gbt_model *m, uint32_t index,
                            struct gbt_tree *t, float *w)
{
    const int K = m->K;
    const struct gbt_jdoc *d = rd->doc;
    long long n, cls;
    int32_t e;
    int32_t nn;
    struct gbt_jiter it;
    struct gbt_jnode el;
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "num_nodes", GBT_J_NUMBER, &e));
    FORWARD_IF_ERROR(get_int(rd, &d->n[e], 1, 0x7fffffff, &n));
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "class", GBT_J_NUMBER, &e));
    FORWARD_IF_ERROR(get_int(rd, &d->n[e], 0, K - 1, &cls));
    if (cls != (long long)(index % (uint32_t)K)) return bad(rd, e, "tree class out of order%s", "");
    /* a dart model's trees carry their weights; other models' none */
    e = gbt__json_member(d, obj, "weight");
    *w = 1.0f;
    if (m->dart && e < 0) return bad(rd, obj, "a tree of a dart model has no \"weight\"%s", "");
    if (!m->dart && e >= 0) return bad(rd, e, "a tree has a \"weight\" but the model is not dart (booster)%s", "");
    if (e >= 0) {
        FORWARD_IF_ERROR(get_float(rd, &d->n[e], w));
        if (!isfinite(*w)) return bad(rd, e, "a tree's weight is not a finite number%s", "");
    }
    nn = (int32_t)n;
    /* the declared size against the arrays present, before it claims memory */
    for (size_t k = 0; k < sizeof tree_arrays / sizeof tree_arrays[0]; k++)
        FORWARD_IF_ERROR(array_of(rd, obj, tree_arrays[k], nn, &e));
    FORWARD_IF_ERROR(gbt__tree_init(t, nn));
    t->n_nodes = nn;
#define READ_INTS(key, arr, lo, hi)                                     \
    do {                                                                \
        FORWARD_IF_ERROR(array_of(rd, obj, key, nn, &e));               \
        memset(&it, 0, sizeof it);                                      \
        for (int32_t i = 0; i < nn && gbt__json_next(d, e, &it, &el); i++) { \
            long long v;                                                \
            FORWARD_IF_ERROR(get_int(rd, &el, lo, hi, &v));             \
            arr[i] = v;                                                 \
        }                                                               \
    } while (0)
#define READ_FLOATS(key, arr)                                           \
    do {                                                                \
        FORWARD_IF_ERROR(array_of(rd, obj, key, nn, &e));               \
        memset(&it, 0, sizeof it);                                      \
        for (int32_t i = 0; i < nn && gbt__json_next(d, e, &it, &el); i++) \
            FORWARD_IF_ERROR(get_float(rd, &el, &arr[i]));              \
    } while (0)
    READ_INTS("left", t->left, -1, 0x7fffffff);
    READ_INTS("right", t->right, -1, 0x7fffffff);
    READ_INTS("feature", t->feature, -1, 0x7fffffff);
    READ_INTS("default_left", t->default_left, 0, 1);
    READ_FLOATS("threshold", t->threshold);
    READ_FLOATS("value", t->value);
    READ_FLOATS("gain", t->gain);
    READ_FLOATS("cover", t->cover);
#undef READ_INTS
#undef READ_FLOATS
    return read_categories(rd, obj, t);
}

/*
 * The optional "feature_types": XGBoost's spelling of each feature's type, "q", "c",
 * "int", "float" or "i" (gbt writes one for each; older files may hold fewer).
 */
static gbt_status read_types(const struct gbt_jreader *rd, int32_t arr, struct gbt_model *m)
{
    const struct gbt_jdoc *d = rd->doc;
    char buf[8];
    uint64_t n = 0;
    if (d->n[arr].type != GBT_J_ARRAY) return bad(rd, arr, "\"%s\" has the wrong type", "feature_types");
    /* fewer: gbt before 0.1 wrote a short list after continued training on wider data (the rest numeric) */
    if ((uint64_t)d->n[arr].count > m->num_feature)
        return bad(rd, arr, "\"feature_types\" has more types than features (num_feature)%s", "");
    FORWARD_IF_ERROR(gbt__alloc(&m->feature_types, (size_t)d->n[arr].count + 1, 1, 1, "feature types"));
    for (int32_t c = d->n[arr].child; c >= 0; c = d->n[c].next) {
        int t = -1;
        if (d->n[c].type == GBT_J_STRING) {
            gbt__json_string(&d->n[c], buf, sizeof buf);
            t = gbt__feature_type_parse(buf);
        }
        if (t < 0) return bad(rd, c, "a feature type is \"q\", \"c\", \"int\", \"float\" or \"i\"%s", "");
        m->feature_types[n++] = (uint8_t)t;
    }
    m->nfeature_types = n;
    return GBT_OK;
}

/* The optional "feature_names": at most num_feature strings, checked as gbt_dataset_set_feature_names does. */
static gbt_status read_names(const struct gbt_jreader *rd, int32_t arr, struct gbt_model *m)
{
    const struct gbt_jdoc *d = rd->doc;
    char buf[GBT_FEATURE_NAME_MAX + 2];
    uint64_t n = 0;
    gbt_status s = GBT_OK;
    if (d->n[arr].type != GBT_J_ARRAY) return bad(rd, arr, "\"%s\" has the wrong type", "feature_names");
    if ((uint64_t)d->n[arr].count > m->num_feature)
        return bad(rd, arr, "more feature names than features%s", "");
    FORWARD_IF_ERROR(gbt__alloc(&m->feature_names, (size_t)d->n[arr].count + 1, sizeof(char *), 1,
                                "feature names"));
    for (int32_t c = d->n[arr].child; c >= 0 && s == GBT_OK; c = d->n[c].next) {
        if (d->n[c].type != GBT_J_STRING || d->n[c].len > 6 * GBT_FEATURE_NAME_MAX) {
            s = bad(rd, c, "feature names must be strings of at most %s bytes", "255");
            break;
        }
        gbt__json_string(&d->n[c], buf, sizeof buf);
        s = gbt__strdup(&m->feature_names[n], buf);
        if (s == GBT_OK) m->nfeature_names = ++n;
    }
    if (s == GBT_OK) {
        char what[300];
        s = gbt__names_check((const char *const *)m->feature_names, n, gbt__jr_where(rd, arr, what, sizeof what));
        if (s != GBT_OK) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", gbt_last_error());
            s = gbt__fail(GBT_E_FORMAT, "%s", msg);
        }
    }
    return s;
}

/* The optional "attributes": an object of strings (gbt_booster_set_attr). */
static gbt_status read_attrs(const struct gbt_jreader *rd, int32_t obj, struct gbt_model *m)
{
    const struct gbt_jdoc *d = rd->doc;
    gbt_status s = GBT_OK;
    if (d->n[obj].type != GBT_J_OBJECT) return bad(rd, obj, "\"%s\" has the wrong type", "attributes");
    for (int32_t c = d->n[obj].child; c >= 0 && s == GBT_OK; c = d->n[c].next) {
        struct gbt_jnode key = d->n[c];
        char *k = NULL, *v = NULL;
        if (d->n[c].type != GBT_J_STRING) return bad(rd, c, "an attribute's value is a string%s", "");
        key.text = d->n[c].key;
        key.len = d->n[c].key_len;
        s = gbt__alloc(&k, key.len + 1, 1, 0, "attributes");
        if (s == GBT_OK) s = gbt__alloc(&v, d->n[c].len + 1, 1, 0, "attributes");
        if (s == GBT_OK) {
            gbt__json_string(&key, k, key.len + 1);
            gbt__json_string(&d->n[c], v, d->n[c].len + 1);
            s = gbt__model_set_attr(m, k, v);
        }
        free(k);
        free(v);
    }
    return s;
}

/* "training_file": {"format": "csv", "delimiter": ",", "header": 0, "label_column": 0} */
static gbt_status read_layout(const struct gbt_jreader *rd, int32_t obj, struct gbt_model *m)
{
    const struct gbt_jdoc *d = rd->doc;
    struct gbt_file_layout *l = &m->layout;
    char text[16];
    int32_t e;
    long long v;
    if (d->n[obj].type != GBT_J_OBJECT) return bad(rd, obj, "\"%s\" has the wrong type", "training_file");
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "format", GBT_J_STRING, &e));
    gbt__json_string(&d->n[e], text, sizeof text);
    if (strcmp(text, "libsvm") == 0) {
        l->format = GBT_FILE_LIBSVM;
        return GBT_OK;
    }
    if (strcmp(text, "csv") != 0 && strcmp(text, "tsv") != 0)
        return bad(rd, e, "training_file format \"%s\" is not libsvm, csv or tsv", text);
    l->format = GBT_FILE_DELIMITED;
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "delimiter", GBT_J_STRING, &e));
    gbt__json_string(&d->n[e], text, sizeof text);
    if (strlen(text) != 1 || strchr(",\t;|:", text[0]) == NULL)
        return bad(rd, e, "training_file delimiter \"%s\" is not one of , tab ; | :", text);
    l->delim = text[0];
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "header", GBT_J_NUMBER, &e));
    FORWARD_IF_ERROR(get_int(rd, &d->n[e], 0, 1, &v));
    l->header = (int)v;
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "label_column", GBT_J_NUMBER, &e));
    FORWARD_IF_ERROR(get_int(rd, &d->n[e], -1, GBT_MAX_FEATURES, &v));
    l->label_column = v;
    return GBT_OK;
}

static gbt_status read_header(const struct gbt_jreader *rd, struct gbt_model *m, struct gbt_params *p,
                              int32_t root)
{
    const struct gbt_jdoc *d = rd->doc;
    char text[128];
    int32_t e;
    long long v;
    struct gbt_jiter it = {0};
    struct gbt_jnode el;
    e = gbt__json_member(d, root, "format");
    if (d->n[root].type == GBT_J_OBJECT && e < 0) {
        /* XGBoost's JSON models are {"learner": {...}, "version": [3, 1, 0]}: one without its learner is damaged */
        const int32_t ver = gbt__json_member(d, root, "version");
        if (ver >= 0 && d->n[ver].type == GBT_J_ARRAY)
            return gbt__fail(GBT_E_FORMAT,
                             "%s: an XGBoost JSON model by its \"version\" array, but it has no \"learner\" object: "
                             "a damaged XGBoost model (a gbt model has \"format\": \"%s\")",
                             rd->what, FORMAT_NAME);
        return bad(rd, -1, "a JSON object that is neither a gbt model (no \"format\": \"%s\") nor an XGBoost JSON "
                   "model (no \"learner\" and \"version\")", FORMAT_NAME);
    }
    if (d->n[root].type != GBT_J_OBJECT || e < 0 || d->n[e].type != GBT_J_STRING)
        return bad(rd, -1, "not a gbt model (no \"format\": \"%s\")", FORMAT_NAME);
    gbt__json_string(&d->n[e], text, sizeof text);
    if (strcmp(text, FORMAT_NAME) != 0) return bad(rd, e, "not a gbt model (format \"%s\")", text);
    FORWARD_IF_ERROR(gbt__jr_member(rd, root, "format_version", GBT_J_NUMBER, &e));
    FORWARD_IF_ERROR(get_int(rd, &d->n[e], 0, 1 << 30, &v));
    if (v > FORMAT_VERSION_LINEAR) {
        snprintf(text, sizeof text, "%lld", v);
        return bad(rd, e, "format version %s is newer than this gbt reads (" STR(FORMAT_VERSION_LINEAR) ")", text);
    }
    /* training parameters first: objective and num_class are among them */
    FORWARD_IF_ERROR(gbt__jr_member(rd, root, "training", GBT_J_OBJECT, &e));
    for (int32_t c = d->n[e].child; c >= 0; c = d->n[c].next) {
        char key[64], val[GBT_CONSTRAINT_TEXT_MAX], where[300];
        if (d->n[c].type != GBT_J_STRING) return bad(rd, c, "training parameter values must be strings%s", "");
        snprintf(key, sizeof key, "%.*s", (int)d->n[c].key_len, d->n[c].key);
        gbt__json_string(&d->n[c], val, sizeof val);
        if (gbt__params_set(p, key, val, NULL) != GBT_OK)
            return gbt__fail_context(GBT_E_FORMAT, "%s", gbt__jr_where(rd, c, where, sizeof where));
    }
    FORWARD_IF_ERROR(gbt__jr_member(rd, root, "objective", GBT_J_STRING, &e));
    gbt__json_string(&d->n[e], text, sizeof text);
    if (strcmp(text, gbt__objective_name((int)p->objective)) != 0)
        return bad(rd, e, "objective \"%s\" disagrees with the training parameters", text);
    m->objective = (int)p->objective;
    FORWARD_IF_ERROR(gbt__jr_member(rd, root, "num_class", GBT_J_NUMBER, &e));
    FORWARD_IF_ERROR(get_int(rd, &d->n[e], 0, GBT_MAX_CLASSES, &v));
    m->num_class = (int)v;
    m->K = gbt__objective_groups(m->objective, m->num_class, (int)p->num_quantile_alpha);
    e = gbt__json_member(d, root, "num_target"); /* multi-target models only: one output per target */
    if (e >= 0) {
        FORWARD_IF_ERROR(get_int(rd, &d->n[e], 1, GBT_MAX_TARGETS, &v));
        if (v > 1 && !gbt__objective_multi_target(m->objective))
            return bad(rd, e, "num_target does not fit the objective%s", "");
        m->num_target = (int)v;
        if (v > 1) m->K = (int)v;
    }
    m->num_parallel_tree = (int)p->num_parallel_tree; /* a training parameter; 1 in older files */
    m->dart = p->booster == GBT_BOOSTER_DART;         /* a training parameter; absent (gbtree) in older files */
    if (gbt_objective_is_multiclass(m->objective) ? m->num_class < 2 : m->num_class > 1)
        return bad(rd, e, "num_class does not fit the objective%s", "");
    FORWARD_IF_ERROR(gbt__jr_member(rd, root, "num_feature", GBT_J_NUMBER, &e));
    FORWARD_IF_ERROR(get_int(rd, &d->n[e], 0, GBT_MAX_FEATURES, &v));
    m->num_feature = (uint64_t)v;
    e = gbt__json_member(d, root, "feature_names");
    if (e >= 0) FORWARD_IF_ERROR(read_names(rd, e, m));
    e = gbt__json_member(d, root, "feature_types");
    if (e >= 0) FORWARD_IF_ERROR(read_types(rd, e, m));
    FORWARD_IF_ERROR(array_of(rd, root, "base_margin", m->K, &e));
    FORWARD_IF_ERROR(gbt__alloc(&m->base, (size_t)m->K, sizeof *m->base, 0, "starting scores"));
    for (int k = 0; k < m->K && gbt__json_next(d, e, &it, &el); k++) FORWARD_IF_ERROR(get_double(rd, &el, &m->base[k]));
    e = gbt__json_member(d, root, "libsvm_index_base");
    if (e >= 0) {
        FORWARD_IF_ERROR(get_int(rd, &d->n[e], 0, 1, &v));
        m->index_base = v ? GBT_BASE_ONE : GBT_BASE_ZERO;
    }
    e = gbt__json_member(d, root, "training_file");
    if (e >= 0) FORWARD_IF_ERROR(read_layout(rd, e, m));
    e = gbt__json_member(d, root, "attributes");
    if (e >= 0) FORWARD_IF_ERROR(read_attrs(rd, e, m));
    e = gbt__json_member(d, root, "best_iteration");
    if (e >= 0) {
        int32_t s;
        FORWARD_IF_ERROR(get_int(rd, &d->n[e], 0, 0x7fffffff, &v));
        m->best_iteration = (int)v;
        s = gbt__json_member(d, root, "best_score");
        m->best_score = NAN;
        if (s >= 0 && d->n[s].type != GBT_J_NULL) FORWARD_IF_ERROR(get_double(rd, &d->n[s], &m->best_score));
    }
    return GBT_OK;
}

/* The "linear" object: booster=gblinear's parameters, rounds and weights. */
static gbt_status read_linear(const struct gbt_jreader *rd, int32_t obj, struct gbt_model *m, struct gbt_params *p)
{
    static const char *const keys[] = {"updater", "feature_selector", "top_k"};
    const struct gbt_jdoc *d = rd->doc;
    const uint64_t n = (m->num_feature + 1) * (uint64_t)m->K;
    struct gbt_jiter it = {0};
    struct gbt_jnode el;
    int32_t e;
    long long v;
    char text[64];
    RETURN_ERROR_IF(d->n[obj].type != GBT_J_OBJECT, GBT_E_FORMAT, "%s:%u: \"linear\" must be an object", rd->what,
                    d->n[obj].line);
    for (int i = 0; i < 3; i++) {
        FORWARD_IF_ERROR(gbt__jr_member(rd, obj, keys[i], GBT_J_STRING, &e));
        gbt__json_string(&d->n[e], text, sizeof text);
        if (gbt__params_set(p, keys[i], text, NULL) != GBT_OK)
            return gbt__fail_context(GBT_E_FORMAT, "%s:%u", rd->what, d->n[e].line);
    }
    if (gbt__params_set(p, "booster", "gblinear", NULL) != GBT_OK) return gbt__fail_context(GBT_E_FORMAT, "%s", rd->what);
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "rounds", GBT_J_NUMBER, &e));
    FORWARD_IF_ERROR(get_int(rd, &d->n[e], 0, 0x7fffffff, &v));
    m->linear_rounds = (int)v;
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "weights", GBT_J_ARRAY, &e));
    if ((uint64_t)d->n[e].count != n) return bad(rd, e, "the linear weights are not (num_feature + 1) x outputs%s", "");
    FORWARD_IF_ERROR(gbt__model_linear_init(m));
    for (uint64_t i = 0; i < n && gbt__json_next(d, e, &it, &el); i++) FORWARD_IF_ERROR(get_float(rd, &el, &m->weights[i]));
    return GBT_OK;
}

gbt_status gbt__model_read_json(const char *text, size_t len, const char *what, struct gbt_model *m,
                                struct gbt_params *p)
{
    struct gbt_jdoc doc;
    struct gbt_jreader rd = {&doc, what, ""};
    int32_t trees, e;
    uint32_t index = 0;
    gbt_status s;
    if (gbt__ubjson_sniff(text, len)) {
        FORWARD_IF_ERROR(gbt__ubjson_parse(text, len, what, &doc));
    } else {
        FORWARD_IF_ERROR(gbt__model_sniff(text, len, what));
        FORWARD_IF_ERROR(gbt__json_parse(text, len, what, &doc));
    }
    if (doc.n[0].type == GBT_J_OBJECT && gbt__json_member(&doc, 0, "format") < 0 &&
        gbt__json_member(&doc, 0, "learner") >= 0) {
        s = gbt__model_read_xgboost(&doc, what, m, p);
        gbt__json_free(&doc);
        return s;
    }
    s = read_header(&rd, m, p, 0);
    if (s == GBT_OK && gbt__json_member(&doc, 0, "linear") >= 0) s = read_linear(&rd, gbt__json_member(&doc, 0, "linear"), m, p);
    if (s == GBT_OK) s = gbt__jr_member(&rd, 0, "trees", GBT_J_ARRAY, &trees);
    if (s == GBT_OK && doc.n[trees].count % m->K != 0)
        s = bad(&rd, trees, "the number of trees is not a multiple of the classes%s", "");
    for (e = s == GBT_OK ? doc.n[trees].child : -1; e >= 0 && s == GBT_OK; e = doc.n[e].next, index++) {
        struct gbt_tree t;
        float w = 1.0f;
        memset(&t, 0, sizeof t);
        if (doc.n[e].type != GBT_J_OBJECT)
            s = bad(&rd, e, "trees must be objects%s", "");
        else
            s = read_tree(&rd, e, m, index, &t, &w);
        if (s == GBT_OK) s = gbt__model_append_tree(m, &t, w);
        gbt__tree_free(&t);
    }
    if (s == GBT_OK && m->linear && m->ntrees > 0) s = bad(&rd, trees, "a linear model has no trees%s", "");
    gbt__json_free(&doc);
    if (s == GBT_OK) s = gbt__model_check(m, what);
    if (s == GBT_OK) s = gbt__model_index_trees(m);
    return s;
}

/* ---- files and buffers ---------------------------------------------------- */

gbt_status gbt__model_write(const struct gbt_model *m, const struct gbt_params *p, int format,
                            struct gbt_strbuf *sb)
{
    switch (format) {
    case GBT_MODEL_GBT: return gbt__model_write_json(m, p, sb);
    case GBT_MODEL_XGBOOST: return gbt__model_write_xgboost(m, p, sb);
    case GBT_MODEL_XGBOOST_UBJ: return gbt__model_write_xgboost_ubj(m, p, sb);
    default:
        return gbt__fail(GBT_E_INVALID_ARG, "unknown model format %d (GBT_MODEL_GBT, GBT_MODEL_XGBOOST or "
                         "GBT_MODEL_XGBOOST_UBJ)", format);
    }
}

/*
 * Writes the model in `format` to path by outfile.h's rules: a temporary
 * file renamed over a regular file (links followed), a device, FIFO or
 * socket written in place.
 */
gbt_status gbt__model_save(const struct gbt_model *m, const struct gbt_params *p, const char *path, int format)
{
    struct gbt_strbuf sb = {0};
    struct gbt_outfile out;
    char msg[4400];
    gbt_status s;
    int r;
    CHECK_NOT_NULL(m);
    CHECK_NOT_NULL(path);
    RETURN_ERROR_IF(strlen(path) > 4000, GBT_E_INVALID_ARG, "path is too long");
    s = gbt__model_write(m, p, format, &sb);
    if (s == GBT_OK && (r = gbt__outfile_open(&out, path, msg, sizeof msg)) != 0)
        s = gbt__fail(r == -2 ? GBT_E_NO_MEMORY : GBT_E_IO, "%s", msg);
    if (s == GBT_OK) {
        if (gbt__outfile_write(&out, path, sb.s, sb.len, msg, sizeof msg) != 0) {
            gbt__outfile_abort(&out);
            s = gbt__fail(GBT_E_IO, "%s", msg);
        } else if (gbt__outfile_commit(&out, path, msg, sizeof msg) != 0) {
            s = gbt__fail(GBT_E_IO, "%s", msg);
        }
    }
    free(sb.s);
    return s;
}

/*
 * A byte that no model file holds: a control character other than the
 * whitespace of JSON (also invalid inside strings).  Stops the reading of
 * /dev/zero, binary files and the like at the first such byte.
 */
static const char *not_json(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] < 0x20 && p[i] != '\n' && p[i] != '\t' && p[i] != '\r') return p + i;
    return NULL;
}

gbt_status gbt__model_load(const char *path, struct gbt_model *m, struct gbt_params *p)
{
    FILE *f;
    char *text = NULL;
    size_t len = 0, cap = 0;
    gbt_status s = GBT_OK;
    struct stat st;
    CHECK_NOT_NULL(path);
    f = fopen(path, "rb");
    /* fopen allocates the FILE: ENOMEM is out of memory, not a file's problem */
    RETURN_ERROR_IF(f == NULL, errno == ENOMEM ? GBT_E_NO_MEMORY : GBT_E_IO, "cannot open '%s': %s", path,
                    strerror(errno));
    /* a regular file is read into a buffer of its size (and one byte to see the end) */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size < GBT_JSON_MAX_BYTES)
        s = gbt__reserve(&text, &cap, (size_t)st.st_size + 1, 1, "model text");
    while (s == GBT_OK) {
        size_t got;
        const char *odd;
        if (len == cap) s = gbt__reserve(&text, &cap, len + 65536, 1, "model text");
        if (s != GBT_OK) break;
        got = fread(text + len, 1, cap - len, f);
        /* UBJSON (XGBoost's .ubj) is binary: read to the end */
        if (!gbt__ubjson_sniff(text, len + got) && (odd = not_json(text + len, got)) != NULL) {
            /* a binary file of a known kind (XGBoost UBJSON, ...) is named; others get the byte */
            s = gbt__model_sniff(text, len + got, path);
            if (s == GBT_OK)
                s = gbt__fail(GBT_E_FORMAT, "%s: not a gbt model (byte 0x%02x at offset %zu is not JSON text)",
                              path, (unsigned)(unsigned char)*odd, (size_t)(odd - text));
            break;
        }
        len += got;
        if (len > GBT_JSON_MAX_BYTES) {
            s = gbt__fail(GBT_E_FORMAT, "%s: not a gbt model (larger than %llu bytes)", path,
                          (unsigned long long)GBT_JSON_MAX_BYTES);
            break;
        }
        if (got == 0) {
            if (ferror(f)) s = gbt__fail(GBT_E_IO, "cannot read '%s': %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (s == GBT_OK && len == 0) s = gbt__fail(GBT_E_FORMAT, "%s: the file is empty", path);
    if (s == GBT_OK) s = gbt__model_read_json(text, len, path, m, p);
    free(text);
    return s;
}
