/*
 * dataset_names.c - a dataset's feature names and its categories' names:
 * the C API's set and get (the lists themselves are feature_names.c's and
 * categories.c's).
 */
#include <stdlib.h>

#include "data/categories.h"
#include "data/dataset.h"
#include "data/feature_names.h"
#include "util/util.h"

gbt_status gbt_dataset_set_feature_names(gbt_dataset *d, const char *const *names, uint64_t n)
{
    char **copy;
    CHECK_NOT_NULL(d);
    RETURN_ERROR_IF(n != 0 && n != d->ncol, GBT_E_INVALID_ARG,
                    "%llu feature names for a dataset of %llu features", (unsigned long long)n,
                    (unsigned long long)d->ncol);
    FORWARD_IF_ERROR(gbt__names_check(names, n, "gbt_dataset_set_feature_names"));
    FORWARD_IF_ERROR(gbt__names_copy(&copy, names, n));
    gbt__names_free(d->feature_names, d->nfeature_names);
    d->feature_names = copy;
    d->nfeature_names = n;
    gbt__dataset_touch_keep(d);
    return GBT_OK;
}

gbt_status gbt_dataset_get_feature_names(const gbt_dataset *d, const char *const **names, uint64_t *n)
{
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(names);
    CHECK_NOT_NULL(n);
    *names = (const char *const *)d->feature_names;
    *n = d->nfeature_names;
    return GBT_OK;
}

gbt_status gbt_dataset_set_category_names(gbt_dataset *d, const char *json)
{
    struct gbt_cat_dict *dicts;
    char *copy = NULL;
    CHECK_NOT_NULL(d);
    if (json) {
        gbt_status s = gbt__cat_dicts_parse(json, d->ncol, d->feature_types ? d->feature_types : (const uint8_t *)"",
                                            d->feature_types ? d->ncol : 0, &dicts);
        if (s != GBT_OK) return gbt__fail_context(s == GBT_E_FORMAT ? GBT_E_INVALID_ARG : s, "gbt_dataset_set_category_names");
        gbt__cat_dicts_free(dicts, d->ncol);
        FORWARD_IF_ERROR(gbt__strdup(&copy, json));
    }
    free(d->category_names);
    d->category_names = copy;
    return GBT_OK;
}

gbt_status gbt_dataset_get_category_names(const gbt_dataset *d, const char **json)
{
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(json);
    *json = d->category_names;
    return GBT_OK;
}
