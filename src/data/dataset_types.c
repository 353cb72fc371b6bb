/*
 * dataset_types.c - a dataset's feature types (numeric or categorical):
 * the C API's set and get, and the check of categorical values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/categories.h"
#include "data/dataset.h"
#include "data/feature_names.h"
#include "util/util.h"

static const char *const type_names[GBT_FT_COUNT] = {"q", "c", "int", "float", "i"};

const char *gbt__feature_type_name(unsigned t)
{
    return t < GBT_FT_COUNT ? type_names[t] : NULL;
}

int gbt__feature_type_parse(const char *text)
{
    for (int t = 0; text != NULL && t < GBT_FT_COUNT; t++)
        if (strcmp(text, type_names[t]) == 0) return t;
    return -1;
}

/* Whether v is a category: a whole number in [0, GBT_CAT_LIMIT). */
static int is_category(float v)
{
    return v >= 0.0f && v < (float)GBT_CAT_LIMIT && floorf(v) == v;
}

static gbt_status bad_value(const gbt_dataset *d, uint64_t r, uint64_t f, float v)
{
    char where[512], name[32];
    const char *nm;
    gbt__dataset_where(d, r, where, sizeof where);
    nm = gbt__name_of(d->feature_names, d->nfeature_names, f, name, sizeof name);
    /* a CSV/TSV file's column counts the label, as its reader's messages and label_column do */
    if (d->layout.format == GBT_FILE_DELIMITED && d->layout.label_column >= 0)
        return gbt__fail(GBT_E_INVALID_ARG,
                         "%s: column %llu (feature %llu, %s) is categorical but holds %.9g; a category is a whole "
                         "number from 0 to %u",
                         where, (unsigned long long)(f + (f >= (uint64_t)d->layout.label_column)),
                         (unsigned long long)f, nm, (double)v, GBT_CAT_LIMIT - 1);
    return gbt__fail(GBT_E_INVALID_ARG,
                     "%s: column %llu (%s) is categorical but holds %.9g; a category is a whole number "
                     "from 0 to %u",
                     where, (unsigned long long)f, nm, (double)v, GBT_CAT_LIMIT - 1);
}

gbt_status gbt__dataset_check_categories(const gbt_dataset *d)
{
    if (d->feature_types == NULL) return GBT_OK;
    for (uint64_t r = 0; r < d->nrow; r++) {
        if (d->dense) {
            const float *row = d->dense + r * d->ncol;
            for (uint64_t f = 0; f < d->ncol; f++)
                if (d->feature_types[f] == GBT_FT_CATEGORICAL && !isnan(row[f]) && !is_category(row[f]))
                    return bad_value(d, r, f, row[f]);
        } else {
            for (uint64_t i = d->indptr[r]; i < d->indptr[r + 1]; i++) {
                const uint32_t f = d->indices[i];
                if (d->feature_types[f] == GBT_FT_CATEGORICAL && !is_category(d->values[i]))
                    return bad_value(d, r, f, d->values[i]);
            }
        }
    }
    return GBT_OK;
}

gbt_status gbt_dataset_set_feature_types(gbt_dataset *d, const char *const *types, uint64_t n)
{
    uint8_t *t = NULL, *old;
    int any_typed = 0;
    gbt_status s;
    CHECK_NOT_NULL(d);
    FORWARD_IF_ERROR(gbt__dataset_need_values(d, "gbt_dataset_set_feature_types (binning reads the types)"));
    RETURN_ERROR_IF(n != 0 && n != d->ncol, GBT_E_INVALID_ARG,
                    "gbt_dataset_set_feature_types: %llu feature types for a dataset of %llu features",
                    (unsigned long long)n, (unsigned long long)d->ncol);
    RETURN_ERROR_IF(n != 0 && types == NULL, GBT_E_INVALID_ARG,
                    "gbt_dataset_set_feature_types: types is NULL");
    if (n) FORWARD_IF_ERROR(gbt__alloc(&t, n, 1, 0, "feature types"));
    for (uint64_t f = 0; f < n; f++) {
        const int k = gbt__feature_type_parse(types[f]);
        if (k < 0) {
            free(t);
            return gbt__fail(GBT_E_INVALID_ARG,
                             "gbt_dataset_set_feature_types: feature %llu has type \"%s\"; a type is \"q\" "
                             "(numeric; also \"float\", \"int\", \"i\") or \"c\" (categorical)",
                             (unsigned long long)f, types[f] ? types[f] : "(null)");
        }
        t[f] = (uint8_t)k;
        any_typed |= k != GBT_FT_NUMERIC;
    }
    /* features whose categories the data names stay categorical */
    if (d->category_names) {
        struct gbt_cat_dict *dicts;
        if ((s = gbt__cat_dicts_parse(d->category_names, d->ncol, NULL, 0, &dicts)) != GBT_OK) {
            free(t);
            return s;
        }
        for (uint64_t f = 0; f < d->ncol; f++)
            if (dicts[f].n && !(t && t[f] == GBT_FT_CATEGORICAL)) {
                char name[32];
                s = gbt__fail(GBT_E_INVALID_ARG,
                              "gbt_dataset_set_feature_types: %s: feature %llu (%s) holds category names (such as "
                              "'%s'), so it must be categorical (\"c\")",
                              d->source ? d->source : "the dataset", (unsigned long long)f,
                              gbt__name_of(d->feature_names, d->nfeature_names, f, name, sizeof name),
                              dicts[f].entries[0].text);
                gbt__cat_dicts_free(dicts, d->ncol);
                free(t);
                return s;
            }
        gbt__cat_dicts_free(dicts, d->ncol);
    }
    /* a dataset of "q" features only keeps no table: it is the same dataset as before */
    if (!any_typed) {
        free(t);
        t = NULL;
    }
    old = d->feature_types;
    d->feature_types = t;
    s = gbt__dataset_check_categories(d);
    if (s != GBT_OK) {
        d->feature_types = old;
        free(t);
        return s;
    }
    free(old);
    gbt__dataset_touch(d);
    return GBT_OK;
}

gbt_status gbt_dataset_get_feature_types(const gbt_dataset *d, uint64_t n, const char **types)
{
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(types);
    RETURN_ERROR_IF(n != d->ncol, GBT_E_INVALID_ARG,
                    "gbt_dataset_get_feature_types: room for %llu types for a dataset of %llu features",
                    (unsigned long long)n, (unsigned long long)d->ncol);
    for (uint64_t f = 0; f < n; f++) types[f] = d->feature_types ? type_names[d->feature_types[f]] : "q";
    return GBT_OK;
}
