/*
 * model_xgboost_write.c - a gbt model written in XGBoost's JSON model
 * format (model_xgboost.c reads it; docs/model-format.md, "XGBoost JSON"),
 * and the same document encoded as UBJSON, XGBoost's .ubj.
 *
 * Both formats hold the same trees: a row goes left when its value is
 * below the threshold, to the default side when missing, and the raw score
 * is the starting score plus the leaves.  What differs is written here: the
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
#include "objective/objective.h"
#include "util/json.h"
#include "util/json_write.h"
#include "util/ubjson.h"
#include "util/util.h"

/* XGBoost's node id of "no parent". */
#define XGB_NO_PARENT 2147483647

/*
 * 1 when XGBoost keeps base_score as a probability: the logit-link
 * objectives but binary:logitraw, whose base_score is the raw score.
 */
int gbt__xgboost_base_is_probability(int obj)
{
    return gbt__objective_logit_link(obj) && obj != GBT_OBJ_BINARY_LOGITRAW;
}

/* XGBoost's bounds on a probability base_score before its logit: 1e-6 and 1 - 1e-6 in float. */
#define XGB_PROB_LO 1e-6f
#define XGB_PROB_HI (1.0f - 1e-6f)

/*
 * base_score as XGBoost keeps it, a float: a probability or, for the log
 * link, a mean; else the raw score.  A probability at a bound prints as 0
 * or 1, as XGBoost prints a degenerate estimate (all labels 0 or 1) whose
 * raw score is the bound's logit.
 */
float gbt__xgboost_base_score(int obj, double margin)
{
    if (gbt__xgboost_base_is_probability(obj)) {
        const float p = (float)(1.0 / (1.0 + exp(-margin)));
        return p <= XGB_PROB_LO ? 0.0f : p >= XGB_PROB_HI ? 1.0f : p;
    }
    if (gbt__objective_log_link(obj)) return (float)exp(margin);
    return (float)margin;
}

double gbt__xgboost_base_margin(int obj, float base_score)
{
    double v = base_score;
    if (gbt__xgboost_base_is_probability(obj)) {
        v = base_score < XGB_PROB_LO ? XGB_PROB_LO : base_score > XGB_PROB_HI ? XGB_PROB_HI : base_score;
        return log(v / (1.0 - v));
    }
    return gbt__objective_log_link(obj) ? log(v) : v;
}

void gbt__xgboost_put_base_score(struct gbt_strbuf *sb, const struct gbt_model *m)
{
    gbt__sb_append(sb, "[", 1);
    for (int k = 0; k < m->K; k++) {
        if (k) gbt__sb_append(sb, ",", 1);
        gbt__json_put_float(sb, gbt__xgboost_base_score(m->objective, m->base[k]), 1);
    }
    gbt__sb_append(sb, "]", 1);
}

void gbt__xgboost_base_round(int obj, int K, double *base)
{
    for (int k = 0; k < K; k++) base[k] = gbt__xgboost_base_margin(obj, gbt__xgboost_base_score(obj, base[k]));
}

/* The objective object: its name and XGBoost's parameter block for it. */
static gbt_status put_objective(struct gbt_strbuf *sb, const struct gbt_model *m, const struct gbt_params *p)
{
    const int obj = m->objective;
    const char *name = gbt__objective_name(obj);
    gbt__sb_printf(sb, "\"objective\":{\"name\":\"%s\"", name);
    switch (obj) {
    case GBT_OBJ_REG_SQUAREDERROR:
    case GBT_OBJ_REG_LOGISTIC:
    case GBT_OBJ_BINARY_LOGISTIC:
    case GBT_OBJ_BINARY_LOGITRAW:
    case GBT_OBJ_REG_GAMMA:
        gbt__sb_printf(sb, ",\"reg_loss_param\":{\"scale_pos_weight\":\"");
        gbt__json_put_double(sb, p->scale_pos_weight);
        gbt__sb_printf(sb, "\"}");
        break;
    case GBT_OBJ_MULTI_SOFTMAX:
    case GBT_OBJ_MULTI_SOFTPROB:
        gbt__sb_printf(sb, ",\"softmax_multiclass_param\":{\"num_class\":\"%d\"}", m->num_class);
        break;
    case GBT_OBJ_COUNT_POISSON:
        gbt__sb_printf(sb, ",\"poisson_regression_param\":{\"max_delta_step\":\"");
        gbt__json_put_double(sb, isnan(p->max_delta_step) ? 0.7 : p->max_delta_step);
        gbt__sb_printf(sb, "\"}");
        break;
    case GBT_OBJ_REG_TWEEDIE:
        gbt__sb_printf(sb, ",\"tweedie_regression_param\":{\"tweedie_variance_power\":\"");
        gbt__json_put_double(sb, p->tweedie_variance_power);
        gbt__sb_printf(sb, "\"}");
        break;
    case GBT_OBJ_REG_PSEUDOHUBERERROR:
        gbt__sb_printf(sb, ",\"pseudo_huber_param\":{\"huber_slope\":\"");
        gbt__json_put_double(sb, p->huber_slope);
        gbt__sb_printf(sb, "\"}");
        break;
    case GBT_OBJ_REG_QUANTILEERROR:
        gbt__sb_printf(sb, ",\"quantile_loss_param\":{\"quantile_alpha\":\"[");
        for (int64_t i = 0; i < p->num_quantile_alpha; i++) {
            if (i) gbt__sb_append(sb, ",", 1);
            gbt__json_put_double(sb, p->quantile_alpha[i]);
        }
        gbt__sb_printf(sb, "]\"}");
        break;
    case GBT_OBJ_SURVIVAL_AFT: {
        static const char *const dist[] = {"normal", "logistic", "extreme"};
        gbt__sb_printf(sb, ",\"aft_loss_param\":{\"aft_loss_distribution\":\"%s\","
                           "\"aft_loss_distribution_scale\":\"",
                       dist[p->aft_loss_distribution]);
        gbt__json_put_double(sb, p->aft_loss_distribution_scale);
        gbt__sb_printf(sb, "\"}");
        break;
    }
    case GBT_OBJ_RANK_PAIRWISE:
    case GBT_OBJ_RANK_NDCG:
    case GBT_OBJ_RANK_MAP:
        /* XGBoost writes 4294967295 for an unset (automatic) number of pairs */
        gbt__sb_printf(sb, ",\"lambdarank_param\":{\"lambdarank_bias_norm\":\"");
        gbt__json_put_double(sb, p->lambdarank_bias_norm);
        gbt__sb_printf(sb, "\",\"lambdarank_normalization\":\"%d\",\"lambdarank_num_pair_per_sample\":\"",
                       (int)p->lambdarank_normalization);
        if (isnan(p->lambdarank_num_pair_per_sample))
            gbt__sb_printf(sb, "4294967295");
        else
            gbt__json_put_double(sb, p->lambdarank_num_pair_per_sample);
        gbt__sb_printf(sb, "\",\"lambdarank_pair_method\":\"%s\",\"lambdarank_score_normalization\":\"%d\","
                           "\"lambdarank_unbiased\":\"%d\",\"ndcg_exp_gain\":\"%d\"}",
                       p->lambdarank_pair_method ? "mean" : "topk", (int)p->lambdarank_score_normalization,
                       (int)p->lambdarank_unbiased, (int)p->ndcg_exp_gain);
        /* XGBoost's reader wants the position biases; they take no part in prediction, and
           its training estimates them afresh */
        if (p->lambdarank_unbiased) gbt__sb_printf(sb, ",\"ti+\":[],\"tj-\":[]");
        break;
    case GBT_OBJ_BINARY_HINGE:
    case GBT_OBJ_REG_SQUAREDLOGERROR:
    case GBT_OBJ_REG_ABSOLUTEERROR:
    case GBT_OBJ_SURVIVAL_COX:
        break;
    default:
        return gbt__fail(GBT_E_INVALID_ARG,
                         "objective %s has no XGBoost JSON form that gbt writes; the model is not exported",
                         name);
    }
    gbt__sb_append(sb, "}", 1);
    return GBT_OK;
}

/* An array member of a tree, as XGBoost lays members out. */
#define PUT_ARRAY(sb, key, n, PUT) GBT_JSON_PUT_ARRAY(sb, ",\"" key "\":", n, PUT)

/*
 * XGBoost's categorical splits of a tree: the categorical nodes
 * ascending, each one's offset and count in "categories", which holds
 * each set ascending: the categories that go right, as in gbt.
 */
static void put_categories(struct gbt_strbuf *sb, const struct gbt_tree *t)
{
    int32_t at = 0, first = 1;
    gbt__sb_printf(sb, ",\"categories\":[");
    for (int32_t i = 0; i < t->n_nodes; i++)
        for (int32_t k = 0; t->left[i] >= 0 && gbt__tree_is_cat(t, i) && k < t->cat_count[i]; k++) {
            gbt__sb_printf(sb, first ? "%u" : ",%u", t->cats[t->cat_begin[i] + k]);
            first = 0;
        }
    gbt__sb_printf(sb, "],\"categories_nodes\":[");
    first = 1;
    for (int32_t i = 0; i < t->n_nodes; i++)
        if (t->left[i] >= 0 && gbt__tree_is_cat(t, i)) {
            gbt__sb_printf(sb, first ? "%d" : ",%d", i);
            first = 0;
        }
    gbt__sb_printf(sb, "],\"categories_segments\":[");
    first = 1;
    for (int32_t i = 0; i < t->n_nodes; i++)
        if (t->left[i] >= 0 && gbt__tree_is_cat(t, i)) {
            gbt__sb_printf(sb, first ? "%d" : ",%d", at);
            at += t->cat_count[i];
            first = 0;
        }
    gbt__sb_printf(sb, "],\"categories_sizes\":[");
    first = 1;
    for (int32_t i = 0; i < t->n_nodes; i++)
        if (t->left[i] >= 0 && gbt__tree_is_cat(t, i)) {
            gbt__sb_printf(sb, first ? "%d" : ",%d", t->cat_count[i]);
            first = 0;
        }
    gbt__sb_append(sb, "]", 1);
}

/* XGBoost's type code of an int64 array (its JSON value kinds), the dtype of pandas' integer categories. */
#define XGB_I64_ARRAY 15

/* One feature's categories in code order: by[code] is its entry in d. */
static gbt_status by_code(const struct gbt_cat_dict *d, const struct gbt_cat_entry ***by)
{
    FORWARD_IF_ERROR(gbt__alloc(by, d->n, sizeof **by, 0, "the categories in code order"));
    for (uint32_t i = 0; i < d->n; i++) (*by)[d->entries[i].code] = &d->entries[i];
    return GBT_OK;
}

static int cmp_value(const void *x, const void *y)
{
    const struct gbt_cat_entry *a = *(const struct gbt_cat_entry *const *)x, *b = *(const struct gbt_cat_entry *const *)y;
    return (a->value > b->value) - (a->value < b->value);
}

/*
 * One feature's entry of cats.enc, as XGBoost 3.2 writes a pandas
 * column's categories: names as {"offsets", "values"} (the bytes of every
 * name, offsets[k] where name k starts), whole numbers as {"type", "values"}
 * with the int64 type (pandas' integer categories; XGBoost refuses a frame
 * whose categories have another type).  Names must be ASCII: XGBoost 3.2
 * counts other names' offsets in characters (model_xgboost.c), so it could
 * match no frame against them.
 */
static gbt_status put_enc(struct gbt_strbuf *sb, const struct gbt_cat_dict *d, uint64_t f,
                          const struct gbt_cat_entry *const *by)
{
    size_t at = 0;
    if (d->n == 0) {
        gbt__sb_printf(sb, "{\"offsets\":[],\"values\":[]}");
        return GBT_OK;
    }
    RETURN_ERROR_IF(d->nnum != 0 && d->nnum != d->n, GBT_E_INVALID_ARG,
                    "cannot export the model: feature %llu has both number and name categories, which XGBoost "
                    "cannot hold", (unsigned long long)f);
    if (d->nnum) {
        gbt__sb_printf(sb, "{\"type\":%d,\"values\":[", XGB_I64_ARRAY);
        for (uint32_t k = 0; k < d->n; k++) {
            const double v = by[k]->value;
            RETURN_ERROR_IF(!(v == floor(v) && fabs(v) < 9.2e18), GBT_E_INVALID_ARG,
                            "cannot export the model: feature %llu has the category %s, which is not a whole "
                            "number (XGBoost takes integer or string categories)", (unsigned long long)f,
                            by[k]->text);
            gbt__sb_printf(sb, k ? ",%lld" : "%lld", (long long)v);
        }
        gbt__sb_append(sb, "]}", 2);
        return GBT_OK;
    }
    gbt__sb_printf(sb, "{\"offsets\":[0");
    for (uint32_t k = 0; k < d->n; k++) {
        for (size_t i = 0; i < by[k]->len; i++)
            RETURN_ERROR_IF((unsigned char)by[k]->text[i] > 127, GBT_E_INVALID_ARG,
                            "cannot export the model: feature %llu's category '%s' is not ASCII, and XGBoost 3.2 "
                            "reads such names from its JSON wrongly", (unsigned long long)f, by[k]->text);
        at += by[k]->len;
        gbt__sb_printf(sb, ",%zu", at);
    }
    gbt__sb_printf(sb, "],\"values\":[");
    for (uint32_t k = 0, first = 1; k < d->n; k++)
        for (size_t i = 0; i < by[k]->len; i++, first = 0)
            gbt__sb_printf(sb, first ? "%d" : ",%d", by[k]->text[i]);
    gbt__sb_append(sb, "]}", 2);
    return GBT_OK;
}

/*
 * model.cats: the category names of the attribute feature_categories
 * (model_categories.c) as XGBoost 3.2 keeps a pandas frame's, so that
 * XGBoost codes a frame by them as gbt's Python does: "enc" one entry per
 * feature (empty for a numeric one), "feature_segments" where each
 * feature's categories start among all, "sorted_idx" each feature's codes
 * in the order of their values (bytes or numbers), which XGBoost searches.
 * A model without names writes XGBoost's empty cats.
 */
static gbt_status put_cats(struct gbt_strbuf *sb, const struct gbt_model *m, int shift)
{
    struct gbt_cat_dict *d = NULL;
    const struct gbt_cat_entry **by = NULL;
    uint64_t n = 0, total = 0;
    gbt_status s = gbt__model_cat_dicts(m, &d, &n);
    if (s != GBT_OK) return gbt__fail_context(s, "cannot export the model");
    if (d == NULL) {
        gbt__sb_printf(sb, "\"cats\":{\"enc\":[],\"feature_segments\":[],\"sorted_idx\":[]}");
        return GBT_OK;
    }
    gbt__sb_printf(sb, "\"cats\":{\"enc\":[%s", shift ? "{\"offsets\":[],\"values\":[]}" : "");
    for (uint64_t f = 0; s == GBT_OK && f < n; f++) {
        if (f || shift) gbt__sb_append(sb, ",", 1);
        s = by_code(&d[f], &by);
        if (s == GBT_OK) s = put_enc(sb, &d[f], f, by);
        free(by);
        by = NULL;
    }
    gbt__sb_printf(sb, "],\"feature_segments\":[0%s", shift ? ",0" : "");
    for (uint64_t f = 0; f < n; f++) gbt__sb_printf(sb, ",%llu", (unsigned long long)(total += d[f].n));
    gbt__sb_printf(sb, "],\"sorted_idx\":[");
    total = 0;
    for (uint64_t f = 0; s == GBT_OK && f < n; f++) {
        /* names: the dictionary's own order (bytes); numbers: sorted by value */
        if (d[f].nnum) {
            s = by_code(&d[f], &by);
            if (s == GBT_OK) qsort(by, d[f].n, sizeof *by, cmp_value);
        }
        for (uint32_t i = 0; s == GBT_OK && i < d[f].n; i++, total++)
            gbt__sb_printf(sb, total ? ",%u" : "%u", d[f].nnum ? by[i]->code : d[f].entries[i].code);
        free(by);
        by = NULL;
    }
    gbt__sb_append(sb, "]}", 2);
    gbt__cat_dicts_free(d, n);
    return s;
}

static gbt_status put_tree(struct gbt_strbuf *sb, const struct gbt_tree *t, uint32_t id, uint64_t nfeat,
                           int shift)
{
    int32_t *parent;
    const int32_t n = t->n_nodes;
    FORWARD_IF_ERROR(gbt__alloc(&parent, (size_t)n, sizeof *parent, 0, "tree parents"));
    for (int32_t i = 0; i < n; i++) parent[i] = XGB_NO_PARENT;
    for (int32_t i = 0; i < n; i++)
        if (t->left[i] >= 0) parent[t->left[i]] = parent[t->right[i]] = i;
    gbt__sb_printf(sb, "{\"id\":%u", id);
    PUT_ARRAY(sb, "base_weights", n, gbt__json_put_float(sb, t->value[i_], 1));
    put_categories(sb, t);
    PUT_ARRAY(sb, "default_left", n, gbt__sb_printf(sb, "%d", t->left[i_] >= 0 && t->default_left[i_]));
    PUT_ARRAY(sb, "left_children", n, gbt__sb_printf(sb, "%d", t->left[i_]));
    PUT_ARRAY(sb, "loss_changes", n, gbt__json_put_float(sb, t->gain[i_], 1));
    PUT_ARRAY(sb, "parents", n, gbt__sb_printf(sb, "%d", parent[i_]));
    PUT_ARRAY(sb, "right_children", n, gbt__sb_printf(sb, "%d", t->right[i_]));
    /* a leaf's value takes the place of the threshold, as in XGBoost */
    PUT_ARRAY(sb, "split_conditions", n, gbt__json_put_float(sb, t->left[i_] >= 0 ? t->threshold[i_] : t->value[i_], 1));
    PUT_ARRAY(sb, "split_indices", n, gbt__sb_printf(sb, "%d", t->left[i_] >= 0 ? t->feature[i_] + shift : 0));
    PUT_ARRAY(sb, "split_type", n, gbt__sb_append(sb, t->left[i_] >= 0 && gbt__tree_is_cat(t, i_) ? "1" : "0", 1));
    PUT_ARRAY(sb, "sum_hessian", n, gbt__json_put_float(sb, t->cover[i_], 1));
    gbt__sb_printf(sb, ",\"tree_param\":{\"num_deleted\":\"0\",\"num_feature\":\"%llu\",\"num_nodes\":\"%d\","
                       "\"size_leaf_vector\":\"1\"}}",
                   (unsigned long long)nfeat, n);
    free(parent);
    return GBT_OK;
}

static void put_linear(struct gbt_strbuf *sb, const struct gbt_model *m, int shift);
static gbt_status put_learner_tail(struct gbt_strbuf *sb, const struct gbt_model *m, const struct gbt_params *p,
                                   uint64_t nfeat);

gbt_status gbt__model_write_xgboost(const struct gbt_model *m, const struct gbt_params *p,
                                    struct gbt_strbuf *sb)
{
    const int shift = m->index_base == GBT_BASE_ONE; /* column c was LIBSVM index c + 1 */
    const uint64_t nfeat = m->num_feature + (uint64_t)shift;
    const uint32_t rounds = (uint32_t)gbt__model_rounds(m), P = (uint32_t)m->num_parallel_tree;
    RETURN_ERROR_IF(m->K == 0, GBT_E_STATE, "the booster has no model to save: train or load one first");
    /* export only what loads: the loaders' checks, before a byte of the model */
    FORWARD_IF_ERROR(gbt__model_check(m, "cannot export the model"));
    gbt__sb_printf(sb, "{\"learner\":{\"attributes\":{");
    if (m->best_iteration >= 0) {
        gbt__sb_printf(sb, "\"best_iteration\":\"%d\"", m->best_iteration);
        if (isfinite(m->best_score)) {
            gbt__sb_printf(sb, ",\"best_score\":\"");
            gbt__json_put_double(sb, m->best_score);
            gbt__sb_append(sb, "\"", 1);
        }
    }
    /* the constraints the model was trained with, as XGBoost's string attributes */
    {
        int first = m->best_iteration < 0;
        const char *const cons[2][2] = {
            {"monotone_constraints", p && p->monotone_constraints ? p->monotone_constraints : ""},
            {"interaction_constraints", p && p->interaction_constraints ? p->interaction_constraints : ""}};
        for (int i = 0; i < 2; i++) {
            if (!cons[i][1][0]) continue;
            gbt__sb_printf(sb, "%s\"%s\":", first ? "" : ",", cons[i][0]);
            gbt__sb_json_string(sb, cons[i][1]);
            first = 0;
        }
        /* the user attributes (gbt_booster_set_attr), but for names the lines above wrote */
        for (uint64_t i = 0; i < m->nattr; i++) {
            const char *k = m->attr_keys[i];
            if (strcmp(k, "best_iteration") == 0 || strcmp(k, "best_score") == 0 ||
                (strcmp(k, cons[0][0]) == 0 && cons[0][1][0]) || (strcmp(k, cons[1][0]) == 0 && cons[1][1][0]))
                continue;
            gbt__sb_printf(sb, "%s", first ? "" : ",");
            gbt__sb_json_string(sb, k);
            gbt__sb_append(sb, ":", 1);
            gbt__sb_json_string(sb, m->attr_values[i]);
            first = 0;
        }
    }
    /* names for every feature or none, as XGBoost keeps them; types likewise (as the training data spelt them) */
    gbt__sb_printf(sb, "},\"feature_names\":[");
    for (uint64_t i = 0; m->nfeature_names > 0 && !shift && i < m->num_feature; i++) {
        char buf[32];
        if (i) gbt__sb_append(sb, ",", 1);
        gbt__sb_json_string(sb, gbt__name_of(m->feature_names, m->nfeature_names, i, buf, sizeof buf));
    }
    gbt__sb_printf(sb, "],\"feature_types\":[");
    for (uint64_t i = 0; m->nfeature_types > 0 && i < nfeat; i++)
        gbt__sb_printf(sb, "%s\"%s\"", i ? "," : "",
                       i >= (uint64_t)shift && i - shift < m->nfeature_types
                           ? gbt__feature_type_name(m->feature_types[i - shift]) : "q");
    gbt__sb_printf(sb, "],");
    if (m->linear) {
        gbt__sb_printf(sb, "\"gradient_booster\":{\"model\":{");
        put_linear(sb, m, shift);
        return put_learner_tail(sb, m, p, nfeat);
    }
    /* a dart model: {"name": "dart", "gbtree": {the gbtree booster}, "weight_drop": [...]} */
    gbt__sb_printf(sb, "\"gradient_booster\":{%s\"model\":{", m->dart ? "\"name\":\"dart\",\"gbtree\":{" : "");
    FORWARD_IF_ERROR(put_cats(sb, m, shift));
    gbt__sb_printf(sb, ",\"gbtree_model_param\":{\"num_parallel_tree\":\"%u\",\"num_trees\":\"%u\"}", P,
                   m->ntrees);
    gbt__sb_printf(sb, ",\"iteration_indptr\":[");
    for (uint32_t r = 0; r <= rounds; r++) gbt__sb_printf(sb, r ? ",%u" : "%u", r * gbt__model_round_trees(m));
    /* XGBoost's order: a round's trees class by class, each class's parallel trees together */
    gbt__sb_printf(sb, "],\"tree_info\":[");
    for (uint32_t j = 0; j < m->ntrees; j++) gbt__sb_printf(sb, j ? ",%u" : "%u", gbt__model_tree_of_xgboost(m, j) % (uint32_t)m->K);
    gbt__sb_printf(sb, "],\"trees\":[");
    for (uint32_t j = 0; j < m->ntrees; j++) {
        if (j) gbt__sb_append(sb, ",", 1);
        FORWARD_IF_ERROR(put_tree(sb, &m->trees[gbt__model_tree_of_xgboost(m, j)], j, nfeat, shift));
    }
    gbt__sb_printf(sb, "]},\"name\":\"gbtree\"}");
    if (m->dart) {
        gbt__sb_printf(sb, ",\"weight_drop\":[");
        for (uint32_t j = 0; j < m->ntrees; j++) {
            if (j) gbt__sb_append(sb, ",", 1);
            gbt__json_put_float(sb, m->weight[gbt__model_tree_of_xgboost(m, j)], 1);
        }
        gbt__sb_printf(sb, "]}");
    }
    gbt__sb_printf(sb, ",");
    return put_learner_tail(sb, m, p, nfeat);
}

/* A gblinear model's "model": XGBoost's layout (model.h's), a zero weight for LIBSVM's unused index 0. */
static void put_linear(struct gbt_strbuf *sb, const struct gbt_model *m, int shift)
{
    const uint64_t K = (uint64_t)m->K;
    gbt__sb_printf(sb, "\"boosted_rounds\":%d,\"weights\":[", m->linear_rounds);
    for (uint64_t i = 0; i < (m->num_feature + 1 + (uint64_t)shift) * K; i++) {
        const uint64_t f = i / K, k = i % K;
        const float w = f < (uint64_t)shift ? 0.0f : m->weights[(f - (uint64_t)shift) * K + k];
        if (i) gbt__sb_append(sb, ",", 1);
        gbt__json_put_float(sb, w, 1); /* XGBoost reads a weight written as an integer as an error */
    }
    gbt__sb_printf(sb, "]},\"name\":\"gblinear\"},");
}

/* The learner's model parameters, objective and version, after the booster. */
static gbt_status put_learner_tail(struct gbt_strbuf *sb, const struct gbt_model *m, const struct gbt_params *p,
                                   uint64_t nfeat)
{
    gbt__sb_printf(sb, "\"learner_model_param\":{\"base_score\":\"");
    gbt__xgboost_put_base_score(sb, m);
    /* several outputs are classes for multi:*, targets (one per quantile) otherwise */
    /* boost_from_average 0: the intercept was given (XGBoost's mark of a user's base_score) */
    gbt__sb_printf(sb, "\",\"boost_from_average\":\"%d\",\"num_class\":\"%d\",\"num_feature\":\"%llu\","
                       "\"num_target\":\"%d\"},",
                   p->num_base_score == 0, gbt_objective_is_multiclass(m->objective) ? m->num_class : 0, (unsigned long long)nfeat,
                   gbt_objective_is_multiclass(m->objective) ? 1 : m->K);
    FORWARD_IF_ERROR(put_objective(sb, m, p));
    gbt__sb_printf(sb, "},\"version\":[3,1,0]}\n");
    RETURN_ERROR_IF(sb->failed, GBT_E_NO_MEMORY, "out of memory writing the model");
    return GBT_OK;
}

/*
 * The arrays of a tree that XGBoost writes typed in UBJSON, and reads
 * typed there (all of them when "parents" is), with their element types.
 */
static const struct gbt_ubj_typed xgb_typed[] = {
    {"base_weights", 'd'},  {"categories", 'l'},      {"categories_nodes", 'l'}, {"categories_segments", 'L'},
    {"categories_sizes", 'L'}, {"default_left", 'U'}, {"left_children", 'l'},    {"loss_changes", 'd'},
    {"parents", 'l'},       {"right_children", 'l'},  {"split_conditions", 'd'}, {"split_indices", 'l'},
    {"split_type", 'U'},    {"sum_hessian", 'd'}};

gbt_status gbt__model_write_xgboost_ubj(const struct gbt_model *m, const struct gbt_params *p,
                                        struct gbt_strbuf *sb)
{
    struct gbt_strbuf text = {0};
    struct gbt_jdoc doc;
    /* one document, two encodings: the JSON text, parsed, encoded again */
    gbt_status s = gbt__model_write_xgboost(m, p, &text);
    if (s == GBT_OK) s = gbt__json_parse(text.s, text.len, "the XGBoost model", &doc);
    if (s == GBT_OK) {
        s = gbt__ubjson_write(&doc, xgb_typed, sizeof xgb_typed / sizeof xgb_typed[0], sb);
        gbt__json_free(&doc);
    }
    free(text.s);
    return s;
}
