/*
 * model_xgboost.c - XGBoost's JSON model format, the schema XGBoost 2.x and
 * 3.x write with Booster.save_model("model.json"): a model read from it
 * (model_xgboost_write.c writes it; docs/model-format.md, "XGBoost JSON").
 *
 * Both formats hold the same trees: a row goes left when its value is
 * below the threshold, to the default side when missing, and the raw score
 * is the starting score plus the leaves.  What differs is read here: the
 * starting score (XGBoost keeps base_score as a mean or probability, gbt a
 * raw score), the objective's parameters, and the one-based LIBSVM columns
 * of gbt (XGBoost takes LIBSVM indices as they are).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "common/grad_math.h"
#include "data/feature_names.h"
#include "util/json.h"
#include "objective/objective.h"
#include "util/json_write.h"
#include "util/util.h"

/* Element i of array member `key` of obj (present and long enough: read_tree checked) into el. */
static void xelement(const struct gbt_jreader *rd, int32_t obj, const char *key, int32_t i, struct gbt_jnode *el)
{
    struct gbt_jiter it = {0};
    const int32_t arr = gbt__json_member(rd->doc, obj, key);
    *el = rd->doc->n[arr];
    for (int32_t k = 0; k <= i && gbt__json_next(rd->doc, arr, &it, el); k++) continue;
}

/* Fails naming tree `tree`'s node i and pointing at its entry of array `key`. */
static gbt_status xbad_node(const struct gbt_jreader *rd, int32_t obj, uint32_t tree, int32_t i, const char *key,
                            const char *msg)
{
    struct gbt_jnode el;
    char text[256];
    xelement(rd, obj, key, i, &el);
    snprintf(text, sizeof text, "tree %u, node %d: %s (%s)", tree, (int)i, msg, key);
    return gbt__jr_fail_at(rd, &el, text);
}

/* A number given as a JSON number, a boolean, or (as XGBoost writes parameters) a string. */
static gbt_status xnumber(const struct gbt_jreader *rd, int32_t node, const struct gbt_jnode *n, double *out)
{
    char buf[64], *end;
    if (n->type == GBT_J_BOOL) {
        *out = n->len > 0 && n->text[0] == 't';
        return GBT_OK;
    }
    if (n->type == GBT_J_STRING)
        gbt__json_string(n, buf, sizeof buf);
    else if (n->type == GBT_J_NUMBER && n->len < sizeof buf)
        memcpy(buf, n->text, n->len), buf[n->len] = '\0';
    else
        return gbt__jr_fail(rd, node, "expected a number");
    /* a number in a string is written as a JSON number too (XGBoost's "1", "5E-1") */
    if (gbt__json_number_len(buf, strlen(buf)) != strlen(buf) || strlen(buf) == 0)
        return gbt__jr_fail(rd, node, "a value is not a number as JSON writes one");
    *out = gbt__strtod(buf, &end);
    if (end == buf || *end != '\0' || !isfinite(*out)) return gbt__jr_fail(rd, node, "a value is not a finite number");
    return GBT_OK;
}

/* The string member `key` of obj as a number. */
static gbt_status xparam(const struct gbt_jreader *rd, int32_t obj, const char *key, double *out)
{
    int32_t e;
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, key, GBT_J_STRING, &e));
    return xnumber(rd, e, &rd->doc->n[e], out);
}

/* The n numbers of array member `key` of obj into out. */
static gbt_status xnumbers(const struct gbt_jreader *rd, int32_t obj, const char *key, int32_t n, double *out)
{
    struct gbt_jiter it = {0};
    struct gbt_jnode el;
    int32_t e, i = 0;
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, key, GBT_J_ARRAY, &e));
    if (rd->doc->n[e].count != n) {
        char msg[96];
        snprintf(msg, sizeof msg, "\"%s\" does not have one entry per node", key);
        return gbt__jr_fail(rd, e, msg);
    }
    while (i < n && gbt__json_next(rd->doc, e, &it, &el))
        if (xnumber(rd, e, &el, &out[i++]) != GBT_OK) {
            char msg[128];
            snprintf(msg, sizeof msg, "\"%s\" entry %d is not a finite number", key, (int)(i - 1));
            return gbt__jr_fail_at(rd, &el, msg);
        }
    return GBT_OK;
}

/* The numbers of array member `key` of obj: a new array (free()) of *n. */
static gbt_status xarray(const struct gbt_jreader *rd, int32_t obj, const char *key, double **out, int32_t *n)
{
    struct gbt_jiter it = {0};
    struct gbt_jnode el;
    int32_t e, i = 0;
    *out = NULL;
    *n = 0;
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, key, GBT_J_ARRAY, &e));
    FORWARD_IF_ERROR(gbt__alloc(out, (size_t)rd->doc->n[e].count + 1, sizeof **out, 0, "XGBoost categories"));
    while (i < rd->doc->n[e].count && gbt__json_next(rd->doc, e, &it, &el)) {
        gbt_status s = xnumber(rd, e, &el, &(*out)[i++]);
        if (s != GBT_OK) {
            free(*out);
            *out = NULL;
            return s;
        }
    }
    *n = i;
    return GBT_OK;
}

/*
 * XGBoost node i (gbt node id) of a tree is categorical: its set from
 * categories_nodes, _segments, _sizes and categories (the categories that
 * go right, as in gbt).
 */
/* A tree's four category arrays, read once (on its first categorical split) for all its splits. */
struct xcats {
    int loaded;
    double *nodes, *seg, *size, *cats;
    int32_t n, nc;
};

static gbt_status xcats_load(const struct gbt_jreader *rd, int32_t obj, struct xcats *x)
{
    int32_t ns = 0, nz = 0;
    gbt_status s = xarray(rd, obj, "categories_nodes", &x->nodes, &x->n);
    x->loaded = 1;
    if (s == GBT_OK) s = xarray(rd, obj, "categories_segments", &x->seg, &ns);
    if (s == GBT_OK) s = xarray(rd, obj, "categories_sizes", &x->size, &nz);
    if (s == GBT_OK) s = xarray(rd, obj, "categories", &x->cats, &x->nc);
    if (s == GBT_OK && (ns != x->n || nz != x->n)) s = gbt__jr_fail(rd, obj, "categories_nodes, _segments and _sizes differ in length");
    return s;
}

static void xcats_free(struct xcats *x)
{
    free(x->nodes);
    free(x->seg);
    free(x->size);
    free(x->cats);
}

/*
 * The category set of XGBoost node i (gbt's node id): found by binary
 * search, as check_cat_refs has found categories_nodes ascending (a search
 * from the start for every split made a tree's load quadratic in its
 * categorical splits).
 */
static gbt_status read_cat_node(const struct gbt_jreader *rd, int32_t obj, struct xcats *x, int32_t i, int32_t id,
                                struct gbt_tree *t)
{
    int32_t lo = 0, hi, k = -1;
    uint32_t *set = NULL;
    gbt_status s = x->loaded ? GBT_OK : xcats_load(rd, obj, x);
    for (hi = x->n - 1; s == GBT_OK && lo <= hi;) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (x->nodes[mid] == (double)i) {
            k = mid;
            break;
        }
        if (x->nodes[mid] < (double)i) lo = mid + 1;
        else hi = mid - 1;
    }
    if (s == GBT_OK && k < 0) s = gbt__jr_fail(rd, obj, "a categorical split without categories");
    if (s == GBT_OK && !(x->seg[k] >= 0 && x->size[k] >= 0 && x->seg[k] + x->size[k] <= (double)x->nc))
        s = gbt__jr_fail(rd, obj, "a categorical split's categories are out of range");
    if (s == GBT_OK) s = gbt__alloc(&set, (size_t)x->size[k] + 1, sizeof *set, 0, "XGBoost categories");
    for (int32_t c = 0; s == GBT_OK && c < (int32_t)x->size[k]; c++) {
        const double v = x->cats[(int32_t)x->seg[k] + c];
        if (!(v >= 0 && v < (double)GBT_TREE_CAT_LIMIT && v == floor(v)) || (c > 0 && v <= (double)set[c - 1]))
            s = gbt__jr_fail(rd, obj, "a categorical split's categories are not ascending whole numbers below 2^24");
        else
            set[c] = (uint32_t)v;
    }
    if (s == GBT_OK) s = gbt__tree_set_cats(t, id, set, (int32_t)x->size[k]);
    free(set);
    return s;
}

/*
 * Every node that categories_nodes names, once and in ascending order, is
 * a split whose split_type is 1 (categorical), or a leaf: a set given to a
 * numeric split would be dropped without a word (issue 38), while a leaf's
 * set is one XGBoost's pruner left behind, which XGBoost ignores too.  A
 * set moved off its split still fails: that split has none (read_cat_node).
 */
static gbt_status check_cat_refs(const struct gbt_jreader *rd, int32_t obj, int32_t nn, const double *left,
                                 const double *type)
{
    double *nodes = NULL;
    int32_t n = 0;
    gbt_status s;
    if (gbt__json_member(rd->doc, obj, "categories_nodes") < 0) return GBT_OK; /* XGBoost before categories */
    s = xarray(rd, obj, "categories_nodes", &nodes, &n);
    for (int32_t k = 0; s == GBT_OK && k < n; k++) {
        const double v = nodes[k];
        char msg[160];
        /* a leaf may keep its set: XGBoost's pruner leaves one where it removed a categorical split */
        if (!(v >= 0 && v < nn && v == floor(v)) || (left[(int32_t)v] != -1 && type[(int32_t)v] != 1) ||
            (k > 0 && !(v > nodes[k - 1]))) {
            snprintf(msg, sizeof msg,
                     "categories_nodes names node %.17g, which is neither a categorical split (split_type 1) nor "
                     "a leaf, or not once in ascending order",
                     v);
            s = gbt__jr_fail(rd, obj, msg);
        }
    }
    free(nodes);
    return s;
}

static const char *const node_arrays[] = {"left_children", "right_children", "split_indices",
                                          "split_conditions", "default_left", "base_weights",
                                          "loss_changes",  "sum_hessian",    "split_type"};
enum { NA_LEFT, NA_RIGHT, NA_FEATURE, NA_COND, NA_DEFLEFT, NA_WEIGHT, NA_GAIN, NA_COVER, NA_TYPE, NA_COUNT };

/*
 * One tree: the nodes reachable from the root.  They keep the file's ids,
 * which XGBoost's dumps and node-indexed outputs show, when those ids are
 * a numbering gbt can hold: every node reachable, children after their
 * parents (XGBoost's growers number so, left child before right, but not
 * always in breadth-first order).  Otherwise (deleted nodes that XGBoost
 * may leave in its arrays, ids reused out of order) they are numbered in
 * breadth-first order, left before right, and deleted nodes skipped.
 */
static gbt_status read_tree(const struct gbt_jreader *rd, int32_t obj, uint32_t tree, uint64_t nfeat, struct gbt_tree *t)
{
    double *a[NA_COUNT] = {0};
    struct xcats cats = {0};
    int32_t *order = NULL, *newid = NULL, e, nn;
    double v;
    gbt_status s;
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "tree_param", GBT_J_OBJECT, &e));
    FORWARD_IF_ERROR(xparam(rd, e, "num_nodes", &v));
    if (!(v >= 1 && v <= 0x7fffffff)) return gbt__jr_fail(rd, e, "num_nodes out of range");
    nn = (int32_t)v;
    if (gbt__json_member(rd->doc, e, "size_leaf_vector") >= 0) {
        FORWARD_IF_ERROR(xparam(rd, e, "size_leaf_vector", &v));
        if (v > 1) return gbt__jr_fail(rd, e, "a multi-output tree (size_leaf_vector > 1): gbt has one output per tree");
    }
    /* the declared size against the arrays present, before it claims memory */
    for (int k = 0; k < NA_COUNT; k++) {
        FORWARD_IF_ERROR(gbt__jr_member(rd, obj, node_arrays[k], GBT_J_ARRAY, &e));
        if (rd->doc->n[e].count != nn) return gbt__jr_fail(rd, e, "a node array's length is not num_nodes");
    }
    s = GBT_OK;
    for (int k = 0; k < NA_COUNT && s == GBT_OK; k++) {
        s = gbt__alloc(&a[k], (size_t)nn, sizeof(double), 0, "XGBoost tree");
        if (s == GBT_OK) s = xnumbers(rd, obj, node_arrays[k], nn, a[k]);
    }
    /* before the splits read their sets: categories_nodes ascending, each a categorical split */
    if (s == GBT_OK) s = check_cat_refs(rd, obj, nn, a[NA_LEFT], a[NA_TYPE]);
    if (s == GBT_OK) s = gbt__alloc(&order, (size_t)nn, sizeof *order, 0, "XGBoost tree");
    if (s == GBT_OK) s = gbt__alloc(&newid, (size_t)nn, sizeof *newid, 0, "XGBoost tree");
    if (s == GBT_OK) {
        int32_t head = 0, tail = 0;
        for (int32_t i = 0; i < nn; i++) newid[i] = -1;
        order[tail] = 0;
        newid[0] = tail++;
        while (head < tail && s == GBT_OK) {
            const int32_t i = order[head++];
            const double l = a[NA_LEFT][i], r = a[NA_RIGHT][i];
            if (l == -1) continue;
            if (a[NA_TYPE][i] != 0 && a[NA_TYPE][i] != 1)
                s = xbad_node(rd, obj, tree, i, "split_type",
                              "a split_type other than 0 (numeric) or 1 (categorical)");
            else if (!(l >= 0 && l < nn && r >= 0 && r < nn) || l == r || newid[(int32_t)l] >= 0 ||
                     newid[(int32_t)r] >= 0)
                /* the right child when the left one is a fresh node in range, else the left */
                s = xbad_node(rd, obj, tree, i,
                              l >= 0 && l < nn && newid[(int32_t)l] < 0 ? "right_children" : "left_children",
                              "the children of a node do not form a tree");
            else if (!(a[NA_FEATURE][i] >= 0 && a[NA_FEATURE][i] < (double)nfeat))
                s = xbad_node(rd, obj, tree, i, "split_indices", "a split's feature index is not below num_feature");
            else {
                order[tail] = (int32_t)l;
                newid[(int32_t)l] = tail++;
                order[tail] = (int32_t)r;
                newid[(int32_t)r] = tail++;
            }
        }
        if (s == GBT_OK && tail == nn) {
            int32_t i = 0;
            while (i < nn && (a[NA_LEFT][i] == -1 || (a[NA_LEFT][i] > i && a[NA_RIGHT][i] > i))) i++;
            for (int32_t j = 0; i == nn && j < nn; j++) order[j] = newid[j] = j; /* the file's ids */
        }
        if (s == GBT_OK) s = gbt__tree_init(t, tail);
        for (int32_t j = 0; j < tail && s == GBT_OK; j++) {
            const int32_t i = order[j];
            const int leaf = a[NA_LEFT][i] == -1;
            int32_t id;
            s = gbt__tree_add(t, (float)(leaf ? a[NA_COND][i] : a[NA_WEIGHT][i]), (float)a[NA_COVER][i], &id);
            if (s != GBT_OK || leaf) continue;
            t->feature[id] = (int32_t)a[NA_FEATURE][i];
            t->left[id] = newid[(int32_t)a[NA_LEFT][i]];
            t->right[id] = newid[(int32_t)a[NA_RIGHT][i]];
            t->threshold[id] = (float)a[NA_COND][i];
            t->default_left[id] = a[NA_DEFLEFT][i] != 0;
            t->gain[id] = (float)a[NA_GAIN][i];
            if (a[NA_TYPE][i] == 1) {
                t->threshold[id] = 0.0f;
                s = read_cat_node(rd, obj, &cats, i, id, t);
            }
        }
    }
    xcats_free(&cats);
    for (int k = 0; k < NA_COUNT; k++) free(a[k]);
    free(order);
    free(newid);
    return s;
}

/* The objective and its parameters, as training parameters of b. */
static gbt_status read_objective(const struct gbt_jreader *rd, int32_t learner, struct gbt_params *p)
{
    static const struct {
        const char *block, *key, *param;
    } params[] = {
        {"reg_loss_param", "scale_pos_weight", "scale_pos_weight"},
        {"softmax_multiclass_param", "num_class", "num_class"},
        {"poisson_regression_param", "max_delta_step", "max_delta_step"},
        {"tweedie_regression_param", "tweedie_variance_power", "tweedie_variance_power"},
        {"pseudo_huber_param", "huber_slope", "huber_slope"},
        {"quantile_loss_param", "quantile_alpha", "quantile_alpha"},
        {"aft_loss_param", "aft_loss_distribution", "aft_loss_distribution"},
        {"aft_loss_param", "aft_loss_distribution_scale", "aft_loss_distribution_scale"},
        {"lambdarank_param", "lambdarank_pair_method", "lambdarank_pair_method"},
        {"lambdarank_param", "lambdarank_num_pair_per_sample", "lambdarank_num_pair_per_sample"},
        {"lambdarank_param", "lambdarank_normalization", "lambdarank_normalization"},
        {"lambdarank_param", "lambdarank_score_normalization", "lambdarank_score_normalization"},
        {"lambdarank_param", "ndcg_exp_gain", "ndcg_exp_gain"},
        {"lambdarank_param", "lambdarank_unbiased", "lambdarank_unbiased"},
        {"lambdarank_param", "lambdarank_bias_norm", "lambdarank_bias_norm"},
    };
    int32_t obj, e;
    char name[64], value[GBT_MAX_QUANTILES * 32];
    FORWARD_IF_ERROR(gbt__jr_member(rd, learner, "objective", GBT_J_OBJECT, &obj));
    FORWARD_IF_ERROR(gbt__jr_member(rd, obj, "name", GBT_J_STRING, &e));
    gbt__json_string(&rd->doc->n[e], name, sizeof name);
    if (gbt__params_set(p, "objective", name, NULL) != GBT_OK) {
        char msg[160];
        snprintf(msg, sizeof msg, "objective \"%s\" is not one gbt trains", name);
        return gbt__jr_fail(rd, e, msg);
    }
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        int32_t blk = gbt__json_member(rd->doc, obj, params[i].block);
        if (blk < 0 || rd->doc->n[blk].type != GBT_J_OBJECT) continue;
        e = gbt__json_member(rd->doc, blk, params[i].key);
        if (e < 0 || rd->doc->n[e].type != GBT_J_STRING) continue;
        gbt__json_string(&rd->doc->n[e], value, sizeof value);
        if (strcmp(params[i].key, "lambdarank_num_pair_per_sample") == 0 && strcmp(value, "4294967295") == 0)
            strcpy(value, "auto"); /* XGBoost's "not set" */
        if (gbt__params_set(p, params[i].param, value, NULL) != GBT_OK) {
            char where[300];
            return gbt__fail_context(GBT_E_FORMAT, "%s: XGBoost model", gbt__jr_where(rd, e, where, sizeof where));
        }
    }
    return GBT_OK;
}

/*
 * The raw starting scores from base_score, in its exact forms: one number
 * ("5E-1") or a bracketed list of numbers separated by commas ("[5E-1]",
 * "[1.08708E0,2E0]"; JSON whitespace allowed around them), each a JSON
 * number, a mean or probability.
 */
static gbt_status read_base(const struct gbt_jreader *rd, int32_t e, int obj, int K, double *base)
{
    char *text, *p, *end;
    int n = 0;
    const int list = rd->doc->n[e].len > 0 && rd->doc->n[e].text[0] == '[';
    gbt_status s = GBT_OK;
    FORWARD_IF_ERROR(gbt__alloc(&text, rd->doc->n[e].len + 1, 1, 0, "base_score"));
    gbt__json_string(&rd->doc->n[e], text, rd->doc->n[e].len + 1);
    p = text + list;
    for (;;) {
        size_t len;
        double v;
        while (list && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
        len = gbt__json_number_len(p, strlen(p));
        if (len == 0 || n == K) {
            s = gbt__jr_fail(rd, e, n == K ? "base_score has more values than outputs"
                                   : "base_score is not a number or a bracketed list of numbers");
            break;
        }
        /* XGBoost reads base_score as a float */
        v = (float)gbt__strtod(p, &end);
        if (end != p + len || !isfinite(v)) {
            s = gbt__jr_fail(rd, e, "base_score is not a finite number");
            break;
        }
        if (gbt__xgboost_base_is_probability(obj) && !(v >= 0 && v <= 1)) {
            s = gbt__jr_fail(rd, e, "base_score of a logistic objective is not in [0, 1]");
            break;
        }
        if (gbt__objective_log_link(obj) && !(v > 0)) {
            s = gbt__jr_fail(rd, e, "base_score of a log-link objective is not positive");
            break;
        }
        base[n++] = gbt__xgboost_base_margin(obj, (float)v);
        p += len;
        while (list && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
        if (list && *p == ',') {
            p++;
            continue;
        }
        if (list ? !(p[0] == ']' && p[1] == '\0') : *p != '\0')
            s = gbt__jr_fail(rd, e, "base_score is not a number or a bracketed list of numbers");
        break;
    }
    free(text);
    FORWARD_IF_ERROR(s);
    if (n != 1 && n != K) return gbt__jr_fail(rd, e, "base_score has neither one value nor one per output");
    for (int k = n; k < K; k++) base[k] = base[0];
    return GBT_OK;
}

/* learner.feature_names, when present and not empty: one per feature, XGBoost's rules. */
static gbt_status read_names(const struct gbt_jreader *rd, int32_t learner, struct gbt_model *m)
{
    const struct gbt_jdoc *d = rd->doc;
    int32_t arr = gbt__json_member(d, learner, "feature_names");
    uint64_t n = 0;
    char buf[GBT_FEATURE_NAME_MAX + 2];
    gbt_status s = GBT_OK;
    if (arr < 0 || d->n[arr].type != GBT_J_ARRAY || d->n[arr].count == 0) return GBT_OK;
    if ((uint64_t)d->n[arr].count != m->num_feature) return gbt__jr_fail(rd, arr, "feature_names is not one name per feature");
    FORWARD_IF_ERROR(gbt__alloc(&m->feature_names, (size_t)d->n[arr].count, sizeof(char *), 1, "feature names"));
    for (int32_t c = d->n[arr].child; c >= 0 && s == GBT_OK; c = d->n[c].next) {
        if (d->n[c].type != GBT_J_STRING || d->n[c].len > 6 * GBT_FEATURE_NAME_MAX)
            return gbt__jr_fail(rd, c, "a feature name is not a string of at most 255 bytes");
        gbt__json_string(&d->n[c], buf, sizeof buf);
        s = gbt__strdup(&m->feature_names[n], buf);
        if (s == GBT_OK) m->nfeature_names = ++n;
    }
    if (s == GBT_OK) {
        char where[300], at[300];
        snprintf(where, sizeof where, "%s: XGBoost model: feature_names", gbt__jr_where(rd, arr, at, sizeof at));
        if (gbt__names_check((const char *const *)m->feature_names, n, where) != GBT_OK) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", gbt_last_error());
            s = gbt__fail(GBT_E_FORMAT, "%s", msg);
        }
    }
    return s;
}

/* learner.feature_types, when present and not empty: one per feature, "c" categorical, q, int, float, i numeric. */
static gbt_status read_types(const struct gbt_jreader *rd, int32_t learner, struct gbt_model *m)
{
    const struct gbt_jdoc *d = rd->doc;
    int32_t arr = gbt__json_member(d, learner, "feature_types");
    uint64_t n = 0;
    int any = 0;
    char buf[16];
    if (arr < 0 || d->n[arr].type != GBT_J_ARRAY || d->n[arr].count == 0) return GBT_OK;
    if ((uint64_t)d->n[arr].count != m->num_feature) return gbt__jr_fail(rd, arr, "feature_types is not one type per feature");
    m->types_declared = 1;
    FORWARD_IF_ERROR(gbt__alloc(&m->feature_types, (size_t)d->n[arr].count, 1, 1, "feature types"));
    for (int32_t c = d->n[arr].child; c >= 0; c = d->n[c].next) {
        if (d->n[c].type != GBT_J_STRING) return gbt__jr_fail(rd, c, "a feature type is not a string");
        gbt__json_string(&d->n[c], buf, sizeof buf);
        /* XGBoost's own rule (ParseFeatureType); the spelling is kept */
        const int t = gbt__feature_type_parse(buf);
        if (t < 0) return gbt__jr_fail(rd, c, "a feature type is not one of q, c, int, float and i");
        m->feature_types[n++] = (uint8_t)t;
        any |= t != GBT_FT_NUMERIC;
    }
    m->nfeature_types = n;
    if (!any) {
        free(m->feature_types);
        m->feature_types = NULL;
        m->nfeature_types = 0;
    }
    return GBT_OK;
}

/*
 * One feature's categories of XGBoost's cats.enc (el, an object) as a JSON
 * list into sb: strings from {"offsets", "values"} (values the bytes of
 * every category, offsets[k] where category k starts, one more offset than
 * categories), numbers from {"type", "values"}.  *n: the categories.
 * Names must be ASCII: XGBoost 3.2 writes the offsets of other names in
 * characters but their values in bytes (and cuts the values short), so
 * they cannot be read back; recoding frames by wrong names would give
 * wrong predictions without a word, so such a model is refused.
 */
static gbt_status put_enc(const struct gbt_jreader *rd, int32_t el, struct gbt_strbuf *sb, int32_t *n)
{
    double *off = NULL, *val = NULL;
    int32_t noff = 0, nval = 0;
    char *text = NULL;
    gbt_status s = xarray(rd, el, "values", &val, &nval);
    *n = 0;
    if (s == GBT_OK && gbt__json_member(rd->doc, el, "offsets") >= 0) s = xarray(rd, el, "offsets", &off, &noff);
    if (s == GBT_OK && nval > 0 && noff > 0) {
        /* strings */
        if (off[0] != 0 || off[noff - 1] != nval) s = gbt__jr_fail(rd, el, "cats.enc: offsets do not cover the values");
        if (s == GBT_OK) s = gbt__alloc(&text, (size_t)nval + 1, 1, 0, "XGBoost category names");
        for (int32_t k = 0; s == GBT_OK && k + 1 < noff; k++) {
            size_t len = 0;
            if (!(off[k] >= 0 && off[k] <= off[k + 1] && off[k + 1] <= nval && off[k + 1] == floor(off[k + 1]))) {
                s = gbt__jr_fail(rd, el, "cats.enc: offsets are not whole numbers rising to the values' count");
                break;
            }
            for (int32_t i = (int32_t)off[k]; i < (int32_t)off[k + 1]; i++) {
                if (!(val[i] >= 1 && val[i] <= 127 && val[i] == floor(val[i]))) {
                    s = gbt__jr_fail(rd, el,
                             val[i] < 0 || val[i] > 127
                                 ? "cats.enc: a category name that is not ASCII (XGBoost writes such names' offsets "
                                   "in characters and their bytes in bytes: they cannot be read back)"
                                 : "cats.enc: a category's byte is not 1 to 127");
                    break;
                }
                text[len++] = (char)val[i];
            }
            text[len] = '\0';
            if (s != GBT_OK) break;
            if (k) gbt__sb_append(sb, ",", 1);
            gbt__sb_json_string(sb, text);
        }
        *n = noff - 1;
    } else if (s == GBT_OK && nval > 0) {
        /* numbers */
        for (int32_t i = 0; i < nval; i++) {
            char buf[40];
            gbt__format_double(buf, sizeof buf, val[i]);
            gbt__sb_printf(sb, i ? ",%s" : "%s", buf);
        }
        *n = nval;
    }
    free(off);
    free(val);
    free(text);
    return s;
}

/*
 * XGBoost 3.1+ keeps, for categories it encoded itself (pandas categories),
 * their values under model.cats.enc, one entry per feature; its trees then
 * name positions in those lists.  gbt keeps them as the model attribute
 * "feature_categories" (feature index -> the categories in code order), the
 * Python package's record of a training frame's categories, so that a
 * frame is recoded as XGBoost recodes it, and gbt_booster_read_data codes a
 * CSV file's category names by it (model_categories.c).
 */
static gbt_status read_cats(const struct gbt_jreader *rd, int32_t model, struct gbt_model *m)
{
    const int32_t cats = gbt__json_member(rd->doc, model, "cats");
    struct gbt_strbuf sb = {0};
    int32_t enc, e, f = 0, written = 0;
    gbt_status s = GBT_OK;
    if (cats < 0 || rd->doc->n[cats].type != GBT_J_OBJECT) return GBT_OK;
    enc = gbt__json_member(rd->doc, cats, "enc");
    if (enc < 0 || rd->doc->n[enc].type != GBT_J_ARRAY || rd->doc->n[enc].count == 0) return GBT_OK;
    if ((uint64_t)rd->doc->n[enc].count != m->num_feature)
        return gbt__jr_fail(rd, enc, "cats.enc does not have one entry per feature");
    gbt__sb_append(&sb, "{", 1);
    for (e = rd->doc->n[enc].child; e >= 0 && s == GBT_OK; e = rd->doc->n[e].next, f++) {
        const size_t mark = sb.len;
        int32_t n = 0;
        if (rd->doc->n[e].type != GBT_J_OBJECT) {
            s = gbt__jr_fail(rd, e, "cats.enc: an entry is not an object");
            break;
        }
        gbt__sb_printf(&sb, "%s\"%d\":[", written ? "," : "", (int)f);
        s = put_enc(rd, e, &sb, &n);
        if (s == GBT_OK && n > 0 && !gbt__model_is_cat(m, (uint64_t)f))
            s = gbt__jr_fail(rd, e, "cats.enc: categories for a feature whose type is not \"c\"");
        if (n == 0)
            sb.len = mark; /* a numeric feature */
        else {
            gbt__sb_append(&sb, "]", 1);
            written++;
        }
    }
    gbt__sb_append(&sb, "}", 1);
    if (s == GBT_OK && sb.failed) s = gbt__fail(GBT_E_NO_MEMORY, "out of memory reading XGBoost's categories");
    if (s == GBT_OK && written > 0) s = gbt__model_set_attr(m, "feature_categories", sb.s);
    free(sb.s);
    return s;
}

/*
 * gbtree_model_param.num_trees and iteration_indptr, where present, against
 * the trees: XGBoost reads the rounds from them, gbt from tree_info.
 */
static gbt_status check_counts(const struct gbt_jreader *rd, int32_t model, uint32_t rounds, uint32_t K)
{
    int32_t e = gbt__json_member(rd->doc, model, "gbtree_model_param");
    double v, *ptr = NULL;
    int32_t n = 0;
    gbt_status s = GBT_OK;
    if (e >= 0 && rd->doc->n[e].type == GBT_J_OBJECT && gbt__json_member(rd->doc, e, "num_trees") >= 0) {
        FORWARD_IF_ERROR(xparam(rd, e, "num_trees", &v));
        if (v != (double)rounds * K) return gbt__jr_fail(rd, e, "num_trees is not the number of trees");
    }
    if (gbt__json_member(rd->doc, model, "iteration_indptr") < 0) return GBT_OK;
    FORWARD_IF_ERROR(xarray(rd, model, "iteration_indptr", &ptr, &n));
    if ((uint32_t)n != rounds + 1) s = gbt__jr_fail(rd, model, "iteration_indptr does not have one entry per round and one more");
    for (int32_t r = 0; s == GBT_OK && r < n; r++)
        if (ptr[r] != (double)r * K)
            s = gbt__jr_fail(rd, model, "iteration_indptr is not num_parallel_tree trees per output and round");
    free(ptr);
    return s;
}

/* A gblinear model ("model"): its rounds and (num_feature + 1) x outputs weights, XGBoost's layout as model.h's. */
static gbt_status read_linear(const struct gbt_jreader *rd, int32_t model, struct gbt_model *m, struct gbt_params *p)
{
    const struct gbt_jdoc *doc = rd->doc;
    const uint64_t n = (m->num_feature + 1) * (uint64_t)m->K;
    struct gbt_jiter it = {0};
    struct gbt_jnode el;
    int32_t w;
    double v;
    if ((w = gbt__json_member(doc, model, "boosted_rounds")) >= 0) {
        FORWARD_IF_ERROR(xnumber(rd, w, &doc->n[w], &v));
        if (!(v >= 0 && v <= 0x7fffffff) || v != floor(v)) return gbt__jr_fail(rd, model, "boosted_rounds is not a count");
        m->linear_rounds = (int)v;
    }
    FORWARD_IF_ERROR(gbt__jr_member(rd, model, "weights", GBT_J_ARRAY, &w));
    if ((uint64_t)doc->n[w].count != n) return gbt__jr_fail(rd, w, "the gblinear weights are not (num_feature + 1) x outputs");
    FORWARD_IF_ERROR(gbt__model_linear_init(m));
    for (uint64_t i = 0; i < n && gbt__json_next(doc, w, &it, &el); i++) {
        FORWARD_IF_ERROR(xnumber(rd, w, &el, &v));
        m->weights[i] = (float)v;
    }
    /* as set by name: eta and lambda take the linear booster's defaults (the file holds neither) */
    return gbt__params_set(p, "booster", "gblinear", NULL);
}

/* The end of reading a model (status s so far): the learner's early stop, the checks, the forest. */
static gbt_status finish(const struct gbt_jreader *rdp, int32_t learner, struct gbt_model *m, gbt_status s)
{
    const struct gbt_jreader rd = *rdp;
    const struct gbt_jdoc *doc = rd.doc;
    const char *what = rd.what;
    double v;
    int32_t e;
    e = gbt__json_member(doc, learner, "attributes");
    /* an early stop of a round the model holds (XGBoost keeps the attribute of a model sliced shorter) */
    if (s == GBT_OK && e >= 0 && gbt__json_member(doc, e, "best_iteration") >= 0 &&
        xparam(&rd, e, "best_iteration", &v) == GBT_OK && v >= 0 && v < (double)gbt__model_rounds(m)) {
        m->best_iteration = (int)v;
        if (gbt__json_member(doc, e, "best_score") < 0 || xparam(&rd, e, "best_score", &m->best_score) != GBT_OK)
            m->best_score = NAN;
    }
    if (s == GBT_OK) s = gbt__model_check(m, what);
    if (s == GBT_OK) s = gbt__model_index_trees(m);
    return s;
}

/* The learner's gbtree (or, m->linear, gblinear) booster gb; wdrop: a dart model's nw weights (XGBoost's tree order), else NULL. */
static gbt_status read_booster(const struct gbt_jreader *rdp, int32_t learner, int32_t gb, struct gbt_model *m,
                               struct gbt_params *p, const double *wdrop, int32_t nw)
{
    const struct gbt_jreader rd = *rdp;
    const struct gbt_jdoc *doc = rd.doc;
    int32_t model, e, trees, info;
    double v;
    struct gbt_jiter it = {0};
    struct gbt_jnode el;
    uint32_t index = 0, R, *place = NULL;
    struct gbt_tree *read = NULL;
    gbt_status s = GBT_OK;
    FORWARD_IF_ERROR(read_objective(&rd, learner, p));
    FORWARD_IF_ERROR(gbt__jr_member(&rd, learner, "learner_model_param", GBT_J_OBJECT, &e));
    FORWARD_IF_ERROR(xparam(&rd, e, "num_feature", &v));
    if (!(v >= 1 && v <= GBT_MAX_FEATURES)) return gbt__jr_fail(&rd, e, "num_feature out of range");
    m->num_feature = (uint64_t)v;
    FORWARD_IF_ERROR(xparam(&rd, e, "num_class", &v));
    if (gbt_objective_is_multiclass((int)p->objective) != (v >= 2) || v > GBT_MAX_CLASSES || v < 0 || v != floor(v))
        return gbt__jr_fail(&rd, e, "num_class does not fit the objective");
    m->objective = (int)p->objective;
    m->num_class = (int)v;
    p->num_class = m->num_class;
    m->K = gbt__objective_groups(m->objective, m->num_class, (int)p->num_quantile_alpha);
    /*
     * XGBoost's outputs are num_target (1 for a multi-class model; one per
     * quantile): more than one for another objective is a multi-target model
     */
    if (gbt__json_member(doc, e, "num_target") >= 0) {
        FORWARD_IF_ERROR(xparam(&rd, e, "num_target", &v));
        if (m->K == 1 && v > 1 && v <= GBT_MAX_TARGETS && v == floor(v) && gbt__objective_multi_target(m->objective)) {
            m->K = (int)v;
            m->num_target = (int)v;
        } else if (v != (gbt_objective_is_multiclass(m->objective) ? 1 : m->K)) {
            return gbt__jr_fail(&rd, e, "num_target is not the number of outputs of the objective");
        }
    }
    m->index_base = GBT_BASE_ZERO; /* XGBoost reads LIBSVM indices as they are */
    FORWARD_IF_ERROR(gbt__alloc(&m->base, (size_t)m->K, sizeof *m->base, 0, "starting scores"));
    {
        int32_t bs;
        FORWARD_IF_ERROR(gbt__jr_member(&rd, e, "base_score", GBT_J_STRING, &bs));
        FORWARD_IF_ERROR(read_base(&rd, bs, m->objective, m->K, m->base));
    }
    FORWARD_IF_ERROR(read_names(&rd, learner, m));
    FORWARD_IF_ERROR(read_types(&rd, learner, m));
    FORWARD_IF_ERROR(gbt__jr_member(&rd, gb, "model", GBT_J_OBJECT, &model));
    if (m->linear) return finish(&rd, learner, m, read_linear(&rd, model, m, p));
    FORWARD_IF_ERROR(read_cats(&rd, model, m));
    e = gbt__json_member(doc, model, "gbtree_model_param");
    m->num_parallel_tree = 1;
    if (e >= 0 && gbt__json_member(doc, e, "num_parallel_tree") >= 0) {
        FORWARD_IF_ERROR(xparam(&rd, e, "num_parallel_tree", &v));
        if (!(v >= 1 && v <= 1 << 20) || v != floor(v) || v * m->K > UINT32_MAX)
            return gbt__jr_fail(&rd, e, "num_parallel_tree is not a count of trees per output and round");
        m->num_parallel_tree = (int)v;
        p->num_parallel_tree = (int64_t)v;
    }
    R = gbt__model_round_trees(m);
    FORWARD_IF_ERROR(gbt__jr_member(&rd, model, "trees", GBT_J_ARRAY, &trees));
    FORWARD_IF_ERROR(gbt__jr_member(&rd, model, "tree_info", GBT_J_ARRAY, &info));
    if (doc->n[trees].count != doc->n[info].count || doc->n[trees].count % R != 0)
        return gbt__jr_fail(&rd, trees, "the trees do not come num_parallel_tree per output and round");
    if (m->dart && nw != doc->n[trees].count) return gbt__jr_fail(&rd, trees, "weight_drop does not have one weight per tree");
    for (int32_t j = 0; j < nw; j++)
        if (!isfinite((float)wdrop[j])) return gbt__jr_fail(&rd, trees, "a weight_drop is not a finite float");
    /* a round's trees class by class, num_parallel_tree each: XGBoost's order */
    while (gbt__json_next(doc, info, &it, &el)) {
        FORWARD_IF_ERROR(xnumber(&rd, info, &el, &v));
        if (v != (double)(index++ % R / (uint32_t)m->num_parallel_tree))
            return gbt__jr_fail(&rd, info, "tree_info is not in round order");
    }
    FORWARD_IF_ERROR(check_counts(&rd, model, doc->n[trees].count / R, R));
    index = 0;
    /* read in XGBoost's order, appended in the model's (model.h) */
    s = gbt__alloc(&read, (size_t)doc->n[trees].count + 1, sizeof *read, 1, "trees");
    if (s == GBT_OK) s = gbt__alloc(&place, (size_t)doc->n[trees].count + 1, sizeof *place, 0, "tree order");
    for (e = doc->n[trees].child; e >= 0 && s == GBT_OK; e = doc->n[e].next, index++) {
        int32_t id = doc->n[e].type == GBT_J_OBJECT ? gbt__json_member(doc, e, "id") : -1;
        /* XGBoost places a tree by its id: one out of place would belong to another output there */
        if (id >= 0 && (xnumber(&rd, id, &doc->n[id], &v) != GBT_OK || v != (double)index))
            s = gbt__jr_fail(&rd, id, "a tree's \"id\" is not its place in \"trees\"");
        if (s == GBT_OK) s = read_tree(&rd, e, index, m->num_feature, &read[index]);
        if (s == GBT_OK) place[gbt__model_tree_of_xgboost(m, index)] = index;
    }
    for (uint32_t t = 0; s == GBT_OK && t < index; t++)
        s = gbt__model_append_tree(m, &read[place[t]], wdrop ? (float)wdrop[place[t]] : 1.0f);
    for (uint32_t j = 0; read && j < (uint32_t)doc->n[trees].count; j++) gbt__tree_free(&read[j]);
    free(read);
    free(place);
    return finish(&rd, learner, m, s);
}

gbt_status gbt__model_read_xgboost(const struct gbt_jdoc *doc, const char *what, struct gbt_model *m,
                                   struct gbt_params *p)
{
    const struct gbt_jreader rd = {doc, what, "XGBoost model: "};
    int32_t learner, gb, e, nw = 0;
    char text[64];
    double *wdrop = NULL;
    gbt_status s = GBT_OK;
    FORWARD_IF_ERROR(gbt__jr_member(&rd, 0, "learner", GBT_J_OBJECT, &learner));
    FORWARD_IF_ERROR(gbt__jr_member(&rd, learner, "gradient_booster", GBT_J_OBJECT, &gb));
    FORWARD_IF_ERROR(gbt__jr_member(&rd, gb, "name", GBT_J_STRING, &e));
    gbt__json_string(&doc->n[e], text, sizeof text);
    if (strcmp(text, "dart") == 0) {
        /* {"name": "dart", "gbtree": {the gbtree booster}, "weight_drop": [one weight per tree]} */
        m->dart = 1;
        p->booster = GBT_BOOSTER_DART;
        FORWARD_IF_ERROR(xarray(&rd, gb, "weight_drop", &wdrop, &nw));
        s = gbt__jr_member(&rd, gb, "gbtree", GBT_J_OBJECT, &gb);
        if (s == GBT_OK) s = gbt__jr_member(&rd, gb, "name", GBT_J_STRING, &e);
        if (s == GBT_OK) gbt__json_string(&doc->n[e], text, sizeof text);
        if (s != GBT_OK) {
            free(wdrop);
            return s;
        }
    }
    m->linear = !m->dart && strcmp(text, "gblinear") == 0;
    if (strcmp(text, "gbtree") != 0 && !m->linear) {
        char msg[160];
        free(wdrop);
        snprintf(msg, sizeof msg, "booster \"%s\": gbt reads gbtree, dart and gblinear models only", text);
        return gbt__jr_fail(&rd, e, msg);
    }
    s = read_booster(&rd, learner, gb, m, p, wdrop, nw);
    free(wdrop);
    return s;
}
