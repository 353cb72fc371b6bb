/*
 * model_attr.c - the model's user attributes (XGBoost's Booster.set_attr):
 * string keys and values kept with the model, in the order each key was
 * first set, saved in the gbt model file and exported to XGBoost's
 * learner attributes.  The Python package keeps pandas category names
 * here ("feature_categories").
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/error.h"
#include "util/json_write.h"
#include "util/util.h"

const char *gbt__model_attr(const struct gbt_model *m, const char *key)
{
    for (uint64_t i = 0; i < m->nattr; i++)
        if (strcmp(m->attr_keys[i], key) == 0) return m->attr_values[i];
    return NULL;
}

gbt_status gbt__model_set_attr(struct gbt_model *m, const char *key, const char *value)
{
    uint64_t i = 0;
    char *v = NULL, *k = NULL;
    while (i < m->nattr && strcmp(m->attr_keys[i], key) != 0) i++;
    if (value == NULL) {
        if (i == m->nattr) return GBT_OK;
        free(m->attr_keys[i]);
        free(m->attr_values[i]);
        memmove(m->attr_keys + i, m->attr_keys + i + 1, (m->nattr - i - 1) * sizeof *m->attr_keys);
        memmove(m->attr_values + i, m->attr_values + i + 1, (m->nattr - i - 1) * sizeof *m->attr_values);
        m->nattr--;
        return GBT_OK;
    }
    FORWARD_IF_ERROR(gbt__strdup(&v, value));
    if (i < m->nattr) {
        free(m->attr_values[i]);
        m->attr_values[i] = v;
        return GBT_OK;
    }
    {
        char **keys = realloc(m->attr_keys, (size_t)(m->nattr + 1) * sizeof *keys), **values;
        if (keys != NULL) m->attr_keys = keys;
        values = keys ? realloc(m->attr_values, (size_t)(m->nattr + 1) * sizeof *values) : NULL;
        if (values != NULL) m->attr_values = values;
        if (keys == NULL || values == NULL || gbt__strdup(&k, key) != GBT_OK) {
            free(v);
            return gbt__fail(GBT_E_NO_MEMORY, "out of memory for the attribute '%s'", key);
        }
    }
    m->attr_keys[m->nattr] = k;
    m->attr_values[m->nattr++] = v;
    return GBT_OK;
}

gbt_status gbt__model_copy_attrs(struct gbt_model *dst, const struct gbt_model *src)
{
    for (uint64_t i = 0; i < src->nattr; i++)
        FORWARD_IF_ERROR(gbt__model_set_attr(dst, src->attr_keys[i], src->attr_values[i]));
    return GBT_OK;
}

void gbt__model_free_attrs(struct gbt_model *m)
{
    for (uint64_t i = 0; i < m->nattr; i++) {
        free(m->attr_keys[i]);
        free(m->attr_values[i]);
    }
    free(m->attr_keys);
    free(m->attr_values);
    m->attr_keys = m->attr_values = NULL;
    m->nattr = 0;
}

void gbt__model_write_attrs(const struct gbt_model *m, struct gbt_strbuf *sb)
{
    for (uint64_t i = 0; i < m->nattr; i++) {
        if (i) gbt__sb_append(sb, ", ", 2);
        gbt__sb_json_string(sb, m->attr_keys[i]);
        gbt__sb_append(sb, ": ", 2);
        gbt__sb_json_string(sb, m->attr_values[i]);
    }
}
