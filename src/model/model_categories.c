/*
 * model_categories.c - the model's category names: the user attribute
 * "feature_categories" (a JSON object, feature index -> the feature's
 * categories in code order, as the Python package records a training
 * frame's pandas categories and as XGBoost's cats.enc is read) made into
 * one lookup per feature for the data readers (data/categories.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/error.h"
#include "util/json.h"
#include "util/util.h"

void gbt__model_cat_dicts_free(struct gbt_cat_dict *d, uint64_t n)
{
    for (uint64_t f = 0; d && f < n; f++) gbt__cat_dict_free(&d[f]);
    free(d);
}

/* Adds the category of JSON node el (a string, a number or a bool) to d. */
static gbt_status add_category(struct gbt_cat_dict *d, const struct gbt_jnode *el)
{
    if (el->type == GBT_J_NUMBER) return gbt__cat_dict_add(d, el->text, el->len, 1);
    if (el->type == GBT_J_BOOL) {
        /* as pandas writes a bool category (Python's str) */
        const int yes = el->len == 4;
        return gbt__cat_dict_add(d, yes ? "True" : "False", yes ? 4 : 5, 0);
    }
    if (el->type == GBT_J_STRING) {
        char *text;
        gbt_status s;
        FORWARD_IF_ERROR(gbt__alloc(&text, el->len + 1, 1, 0, "a category name"));
        gbt__json_string(el, text, el->len + 1);
        s = gbt__cat_dict_add(d, text, strlen(text), 0);
        free(text);
        return s;
    }
    return gbt__fail(GBT_E_FORMAT, "a category is not a string, a number or a bool");
}

static gbt_status read_dicts(const struct gbt_model *m, const struct gbt_jdoc *doc, struct gbt_cat_dict *d)
{
    RETURN_ERROR_IF(doc->n[0].type != GBT_J_OBJECT, GBT_E_FORMAT, "not a JSON object");
    for (int32_t e = doc->n[0].child; e >= 0; e = doc->n[e].next) {
        const struct gbt_jnode *mem = &doc->n[e];
        char key[24], *end;
        unsigned long long f;
        struct gbt_jiter it = {0};
        struct gbt_jnode el;
        snprintf(key, sizeof key, "%.*s", (int)(mem->key_len < 23 ? mem->key_len : 23), mem->key);
        f = strtoull(key, &end, 10);
        RETURN_ERROR_IF(key[0] < '0' || key[0] > '9' || *end != '\0' || mem->key_len >= 23 || f >= m->num_feature,
                        GBT_E_FORMAT, "'%s' is not a feature of the model's %llu", key,
                        (unsigned long long)m->num_feature);
        RETURN_ERROR_IF(!gbt__model_is_cat(m, f), GBT_E_FORMAT, "categories for feature %llu, which is numeric", f);
        RETURN_ERROR_IF(mem->type != GBT_J_ARRAY, GBT_E_FORMAT, "feature %llu: not a list of categories", f);
        RETURN_ERROR_IF(d[f].n > 0, GBT_E_FORMAT, "feature %llu is listed twice", f);
        while (gbt__json_next(doc, e, &it, &el)) FORWARD_IF_ERROR(add_category(&d[f], &el));
        FORWARD_IF_ERROR(gbt__cat_dict_finish(&d[f], f));
    }
    return GBT_OK;
}

gbt_status gbt__model_cat_dicts(const struct gbt_model *m, struct gbt_cat_dict **out, uint64_t *n)
{
    const char *text = gbt__model_attr(m, "feature_categories");
    struct gbt_jdoc doc = {0};
    struct gbt_cat_dict *d;
    gbt_status s;
    *out = NULL;
    *n = 0;
    if (text == NULL || m->num_feature == 0) return GBT_OK;
    FORWARD_IF_ERROR(gbt__alloc(&d, m->num_feature, sizeof *d, 1, "category names"));
    s = gbt__json_parse(text, strlen(text), "feature_categories", &doc);
    if (s == GBT_OK) s = read_dicts(m, &doc, d);
    gbt__json_free(&doc);
    if (s != GBT_OK) {
        gbt__model_cat_dicts_free(d, m->num_feature);
        return gbt__fail_context(s, "the model's attribute feature_categories");
    }
    *out = d;
    *n = m->num_feature;
    return GBT_OK;
}
