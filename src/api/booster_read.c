/*
 * booster_read.c - gbt_booster_read_data: a data file read for a model,
 * its category-name columns coded by the model's category names.
 */
#include <string.h>

#include "data/io.h"
#include "train/booster.h"
#include "util/util.h"

/*
 * A dataset that names its categories (a binary file saved from a
 * DataFrame) holds codes of its own list: they mean the model's categories
 * only when each of its lists is the model's, code for code.
 */
static gbt_status same_categories(const struct gbt_cat_dict *model, uint64_t n, const gbt_dataset *d,
                                  const char *path)
{
    const char *text = NULL;
    struct gbt_cat_dict *own;
    gbt_status s = GBT_OK;
    FORWARD_IF_ERROR(gbt_dataset_get_category_names(d, &text));
    if (text == NULL) return GBT_OK;
    FORWARD_IF_ERROR(gbt__cat_dicts_parse(text, d->ncol, NULL, 0, &own));
    for (uint64_t f = 0; f < d->ncol && f < n && s == GBT_OK; f++) {
        int same = own[f].n == model[f].n;
        if (own[f].n == 0) continue;
        for (uint32_t i = 0; same && i < own[f].n; i++)
            same = own[f].entries[i].code == model[f].entries[i].code &&
                   gbt__cat_cmp_text(own[f].entries[i].text, own[f].entries[i].len, model[f].entries[i].text,
                                     model[f].entries[i].len) == 0;
        if (!same)
            s = gbt__fail(GBT_E_INVALID_ARG,
                          "%s: the categories of feature %llu are not the model's (another order, or others), so "
                          "its codes would mean other categories: save the data from a frame whose categories "
                          "are the model's, or give a CSV file of names",
                          path, (unsigned long long)f);
    }
    gbt__cat_dicts_free(own, d->ncol);
    return s;
}

gbt_status gbt_booster_read_data(const gbt_booster *b, const char *path, const char *options, gbt_dataset **out)
{
    struct gbt_cat_dict *cats;
    uint64_t n;
    gbt_status s;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(gbt__model_cat_dicts(&b->model, &cats, &n));
    s = gbt__dataset_read_file(path, options, cats, n, out);
    if (s == GBT_OK && cats && (s = same_categories(cats, n, *out, path)) != GBT_OK) {
        gbt_dataset_free(*out);
        *out = NULL;
    }
    gbt__cat_dicts_free(cats, n);
    return s;
}
