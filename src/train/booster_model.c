/*
 * booster_model.c - the C API's calls on a booster's model: saving and
 * loading (gbt and XGBoost JSON), dumps, feature importance and names,
 * slicing.  Each checks its arguments and hands the model (and, where the
 * format holds them, the parameters) to src/model/.
 */
#include <stdlib.h>

#include "model/model.h"
#include "train/booster.h"
#include "util/util.h"

gbt_status gbt_booster_save_to_buffer(const gbt_booster *b, char **buf, size_t *len)
{
    struct gbt_strbuf sb = {0};
    gbt_status s;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(buf);
    CHECK_NOT_NULL(len);
    s = gbt__model_write_json(&b->model, &b->params, &sb);
    if (s != GBT_OK) {
        free(sb.s);
        return s;
    }
    *buf = sb.s;
    *len = sb.len;
    return GBT_OK;
}

gbt_status gbt_booster_save(const gbt_booster *b, const char *path)
{
    CHECK_NOT_NULL(b);
    return gbt__model_save(&b->model, &b->params, path, 0);
}

gbt_status gbt_booster_save_xgboost(const gbt_booster *b, const char *path)
{
    CHECK_NOT_NULL(b);
    return gbt__model_save(&b->model, &b->params, path, 1);
}

gbt_status gbt_booster_load_from_buffer(const char *buf, size_t len, gbt_booster **out)
{
    gbt_booster *b;
    gbt_status s;
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(buf);
    FORWARD_IF_ERROR(gbt_booster_create(&b));
    s = gbt__model_read_json(buf, len, "model", &b->model, &b->params);
    if (s != GBT_OK) {
        gbt_booster_free(b);
        return s;
    }
    *out = b;
    return GBT_OK;
}

gbt_status gbt_booster_load(const char *path, gbt_booster **out)
{
    gbt_booster *b;
    gbt_status s;
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(path);
    FORWARD_IF_ERROR(gbt_booster_create(&b));
    s = gbt__model_load(path, &b->model, &b->params);
    if (s != GBT_OK) {
        gbt_booster_free(b);
        return s;
    }
    *out = b;
    return GBT_OK;
}

gbt_status gbt_booster_dump(const gbt_booster *b, const char *format, int tree, int with_stats,
                            char **out, size_t *len)
{
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(format);
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(len);
    return gbt__model_dump(&b->model, format, tree, with_stats, out, len);
}

gbt_status gbt_booster_feature_importance(const gbt_booster *b, const char *type, double *out,
                                          uint64_t len)
{
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(type);
    CHECK_NOT_NULL(out);
    return gbt__model_feature_importance(&b->model, type, out, len);
}

gbt_status gbt_booster_feature_names(const gbt_booster *b, char ***names, uint64_t *n)
{
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(names);
    CHECK_NOT_NULL(n);
    return gbt__model_feature_names(&b->model, names, n);
}

gbt_status gbt_booster_slice(const gbt_booster *b, int begin, int end, gbt_booster **out)
{
    gbt_booster *s = NULL;
    gbt_status st;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(gbt_booster_create(&s));
    gbt__params_free(&s->params);
    st = gbt__params_copy(&s->params, &b->params);
    if (st == GBT_OK) st = gbt__model_slice(&b->model, begin, end, &s->model);
    if (st != GBT_OK) {
        gbt_booster_free(s);
        return st;
    }
    *out = s;
    return GBT_OK;
}
