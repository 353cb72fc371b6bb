/*
 * model_categories.c - the model's category names: the user attribute
 * "feature_categories" (a JSON object, feature index -> the feature's
 * categories in code order, as the Python package records a training
 * frame's pandas categories and as XGBoost's cats.enc is read) made into
 * one lookup per feature for the data readers (data/categories.h).
 */
#include <string.h>

#include "model/model.h"
#include "util/util.h"

gbt_status gbt__model_cat_dicts(const struct gbt_model *m, struct gbt_cat_dict **out, uint64_t *n)
{
    const char *text = gbt__model_attr(m, "feature_categories");
    gbt_status s;
    *out = NULL;
    *n = 0;
    if (text == NULL || m->num_feature == 0) return GBT_OK;
    s = gbt__cat_dicts_parse(text, m->num_feature, m->feature_types ? m->feature_types : (const uint8_t *)"",
                             m->nfeature_types, out);
    if (s != GBT_OK) return gbt__fail_context(s, "the model's attribute feature_categories");
    *n = m->num_feature;
    return GBT_OK;
}
