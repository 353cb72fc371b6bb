/*
 * booster_read.c - gbt_booster_read_data: a data file read for a model,
 * its category-name columns coded by the model's category names.
 */
#include "data/io.h"
#include "train/booster.h"
#include "util/util.h"

gbt_status gbt_booster_read_data(const gbt_booster *b, const char *path, const char *options, gbt_dataset **out)
{
    struct gbt_cat_dict *cats;
    uint64_t n;
    gbt_status s;
    CHECK_NOT_NULL(b);
    FORWARD_IF_ERROR(gbt__model_cat_dicts(&b->model, &cats, &n));
    s = gbt__dataset_read_file(path, options, cats, n, out);
    gbt__cat_dicts_free(cats, n);
    return s;
}
