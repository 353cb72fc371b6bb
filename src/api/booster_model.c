/*
 * booster_model.c - the C API's calls on a booster's model: saving and
 * loading (gbt and XGBoost JSON, XGBoost's UBJSON), dumps, feature importance and names,
 * slicing, attributes (the booster's facts and the user's).  Each checks
 * its arguments and hands the model (and, where the format holds them, the
 * parameters) to src/model/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "train/booster.h"
#include "util/util.h"

gbt_status gbt_booster_save_to_buffer(const gbt_booster *b, char **buf, size_t *len)
{
    return gbt_booster_save_to_buffer_format(b, GBT_MODEL_GBT, buf, len);
}

gbt_status gbt_booster_save_to_buffer_format(const gbt_booster *b, int format, char **buf, size_t *len)
{
    struct gbt_strbuf sb = {0};
    gbt_status s;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(buf);
    CHECK_NOT_NULL(len);
    s = gbt__model_write(&b->model, &b->params, format, &sb);
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
    return gbt__model_save(&b->model, &b->params, path, GBT_MODEL_GBT);
}

gbt_status gbt_booster_save_format(const gbt_booster *b, const char *path, int format)
{
    CHECK_NOT_NULL(b);
    return gbt__model_save(&b->model, &b->params, path, format);
}

gbt_status gbt_booster_save_xgboost(const gbt_booster *b, const char *path)
{
    CHECK_NOT_NULL(b);
    return gbt__model_save(&b->model, &b->params, path, GBT_MODEL_XGBOOST);
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

gbt_status gbt_booster_feature_types(const gbt_booster *b, uint64_t n, const char **types)
{
    const struct gbt_model *m;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(types);
    m = &b->model;
    RETURN_ERROR_IF(m->K == 0, GBT_E_STATE, "gbt_booster_feature_types: the booster has no model yet");
    RETURN_ERROR_IF(n != m->num_feature, GBT_E_INVALID_ARG,
                    "gbt_booster_feature_types: room for %llu types for a model of %llu features",
                    (unsigned long long)n, (unsigned long long)m->num_feature);
    for (uint64_t f = 0; f < n; f++) types[f] = gbt__feature_type_name(f < m->nfeature_types ? m->feature_types[f] : 0);
    return GBT_OK;
}

gbt_status gbt_booster_set_feature_names(gbt_booster *b, const char *const *names, uint64_t n)
{
    CHECK_NOT_NULL(b);
    return gbt__model_set_feature_names(&b->model, names, n);
}

gbt_status gbt_booster_slice(const gbt_booster *b, int begin, int end, gbt_booster **out)
{
    return gbt_booster_slice_step(b, begin, end, 1, out);
}

gbt_status gbt_booster_slice_step(const gbt_booster *b, int begin, int end, int step, gbt_booster **out)
{
    gbt_booster *s = NULL;
    gbt_status st;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(gbt_booster_create(&s));
    gbt__params_free(&s->params);
    st = gbt__params_copy(&s->params, &b->params);
    if (st == GBT_OK) st = gbt__model_slice(&b->model, begin, end, step, &s->model);
    if (st != GBT_OK) {
        gbt_booster_free(s);
        return st;
    }
    *out = s;
    return GBT_OK;
}

/* The facts gbt_booster_get_attr reports, which gbt_booster_set_attr cannot set. */
static int is_fact(const char *key)
{
    static const char *const facts[] = {"device", "best_iteration", "best_score", "num_feature", "num_trees",
                                        "num_target", "training_file", "base_score"};
    for (size_t i = 0; i < sizeof facts / sizeof *facts; i++)
        if (strcmp(key, facts[i]) == 0) return 1;
    return 0;
}

gbt_status gbt_booster_set_attr(gbt_booster *b, const char *key, const char *value)
{
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(key);
    RETURN_ERROR_IF(key[0] == '\0', GBT_E_INVALID_ARG, "an attribute's name is not empty");
    RETURN_ERROR_IF(is_fact(key), GBT_E_INVALID_ARG,
                    "attribute '%s' is a fact the booster keeps itself; it cannot be set (%s)", key,
                    strcmp(key, "best_iteration") == 0 || strcmp(key, "best_score") == 0 ? "gbt_booster_set_best sets it"
                                                                                          : "read-only");
    return gbt__model_set_attr(&b->model, key, value);
}

gbt_status gbt_booster_attributes(const gbt_booster *b, char **json)
{
    struct gbt_strbuf sb = {0};
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(json);
    gbt__sb_append(&sb, "{", 1);
    gbt__model_write_attrs(&b->model, &sb);
    gbt__sb_append(&sb, "}", 1);
    if (sb.failed) {
        free(sb.s);
        return gbt__fail(GBT_E_NO_MEMORY, "out of memory for the attributes");
    }
    *json = sb.s;
    return GBT_OK;
}

gbt_status gbt_booster_get_attr(const gbt_booster *b, const char *key, char *buf, size_t buflen)
{
    char tmp[64];
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(key);
    CHECK_NOT_NULL(buf);
    if (strcmp(key, "device") == 0) {
        RETURN_ERROR_IF(b->device_used[0] == '\0', GBT_E_STATE, "the booster has not trained yet");
        snprintf(tmp, sizeof tmp, "%s", b->device_used);
    } else if (strcmp(key, "best_iteration") == 0 || strcmp(key, "best_score") == 0) {
        RETURN_ERROR_IF(b->model.best_iteration < 0, GBT_E_STATE, "no early stop is recorded");
        if (key[5] == 'i')
            snprintf(tmp, sizeof tmp, "%d", b->model.best_iteration);
        else
            gbt__format_double(tmp, sizeof tmp, b->model.best_score);
    } else if (strcmp(key, "num_feature") == 0) {
        RETURN_ERROR_IF(b->model.K == 0, GBT_E_STATE, "the booster has no model yet");
        snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)b->model.num_feature);
    } else if (strcmp(key, "num_trees") == 0) {
        RETURN_ERROR_IF(b->model.K == 0, GBT_E_STATE, "the booster has no model yet");
        snprintf(tmp, sizeof tmp, "%u", b->model.ntrees);
    } else if (strcmp(key, "num_target") == 0) {
        RETURN_ERROR_IF(b->model.K == 0, GBT_E_STATE, "the booster has no model yet");
        snprintf(tmp, sizeof tmp, "%d", gbt__model_targets(&b->model));
    } else if (strcmp(key, "base_score") == 0) {
        struct gbt_strbuf sb = {0};
        gbt_status s = GBT_OK;
        RETURN_ERROR_IF(b->model.K == 0, GBT_E_STATE, "the booster has no model yet");
        gbt__xgboost_put_base_score(&sb, &b->model);
        if (sb.failed) s = gbt__fail(GBT_E_NO_MEMORY, "out of memory for base_score");
        else if (sb.len + 1 > buflen)
            s = gbt__fail(GBT_E_INVALID_ARG, "buffer of %zu bytes is too small for base_score (%zu bytes)", buflen,
                          sb.len + 1);
        else memcpy(buf, sb.s, sb.len + 1);
        free(sb.s);
        return s;
    } else if (strcmp(key, "training_file") == 0) {
        RETURN_ERROR_IF(b->model.layout.format == GBT_FILE_NONE, GBT_E_STATE,
                        "the model does not record a training file (trained on data from memory, or saved "
                        "before models recorded it)");
        gbt__layout_options(&b->model.layout, tmp, sizeof tmp);
    } else {
        /* a user attribute (gbt_booster_set_attr) */
        const char *v = gbt__model_attr(&b->model, key);
        RETURN_ERROR_IF(v == NULL, GBT_E_INVALID_ARG,
                        "unknown attribute '%s' (device, best_iteration, best_score, num_feature, num_trees, "
                        "num_target, base_score, training_file, or one set by gbt_booster_set_attr)", key);
        RETURN_ERROR_IF(strlen(v) + 1 > buflen, GBT_E_INVALID_ARG,
                        "buffer of %zu bytes is too small for attribute '%s' (%zu bytes)", buflen, key,
                        strlen(v) + 1);
        memcpy(buf, v, strlen(v) + 1);
        return GBT_OK;
    }
    RETURN_ERROR_IF(strlen(tmp) + 1 > buflen, GBT_E_INVALID_ARG, "buffer of %zu bytes is too small",
                    buflen);
    memcpy(buf, tmp, strlen(tmp) + 1);
    return GBT_OK;
}

gbt_status gbt_booster_rank_position_bias(const gbt_booster *b, double *ti_plus, double *tj_minus,
                                          uint32_t cap, uint32_t *npos)
{
    const struct gbt_train_state *ts;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(npos);
    ts = b->ts;
    *npos = ts && ts->rank_bias ? ts->rank_npos : 0;
    for (uint32_t i = 0; i < *npos && i < cap; i++) {
        if (ti_plus) ti_plus[i] = ts->rank_bias[i];
        if (tj_minus) tj_minus[i] = ts->rank_bias[*npos + i];
    }
    return GBT_OK;
}
