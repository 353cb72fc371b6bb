/*
 * slice.c - a model holding rounds begin, begin + step, ... below end of
 * another: its trees of those rounds (every class and parallel tree of a
 * round), its starting scores and feature names.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "data/feature_names.h"
#include "util/util.h"

static gbt_status copy_rounds(const struct gbt_model *src, int begin, int end, int step, struct gbt_model *m)
{
    const uint32_t K = (uint32_t)src->K, R = gbt__model_round_trees(src);
    m->K = src->K;
    m->num_parallel_tree = src->num_parallel_tree;
    m->dart = src->dart;
    m->objective = src->objective;
    m->num_class = src->num_class;
    m->num_target = src->num_target;
    m->num_feature = src->num_feature;
    m->index_base = src->index_base;
    m->layout = src->layout;
    FORWARD_IF_ERROR(gbt__alloc(&m->base, (size_t)K, sizeof *m->base, 0, "starting scores"));
    memcpy(m->base, src->base, K * sizeof *m->base);
    FORWARD_IF_ERROR(gbt__names_copy(&m->feature_names, (const char *const *)src->feature_names,
                                     src->nfeature_names));
    m->nfeature_names = src->nfeature_names;
    if (src->nfeature_types) {
        FORWARD_IF_ERROR(gbt__alloc(&m->feature_types, src->nfeature_types, 1, 0, "feature types"));
        memcpy(m->feature_types, src->feature_types, src->nfeature_types);
        m->nfeature_types = src->nfeature_types;
    }
    FORWARD_IF_ERROR(gbt__model_copy_attrs(m, src));
    for (int r = begin; r < end; r += step)
        for (uint32_t t = (uint32_t)r * R; t < (uint32_t)(r + 1) * R; t++) {
            struct gbt_tree tree;
            gbt_status s = gbt__tree_copy(&src->trees[t], &tree);
            if (s == GBT_OK) s = gbt__model_add_tree(m, &tree, gbt__model_weight(src, t));
            gbt__tree_free(&tree);
            FORWARD_IF_ERROR(s);
        }
    if (src->best_iteration >= begin && src->best_iteration < end && (src->best_iteration - begin) % step == 0) {
        m->best_iteration = (src->best_iteration - begin) / step;
        m->best_score = src->best_score;
    }
    return GBT_OK;
}

gbt_status gbt__model_slice(const struct gbt_model *src, int begin, int end, int step, struct gbt_model *out)
{
    int rounds;
    CHECK_NOT_NULL(src);
    CHECK_NOT_NULL(out);
    RETURN_ERROR_IF(src->K == 0, GBT_E_STATE, "the booster has no model: train or load one first");
    RETURN_ERROR_IF(src->linear, GBT_E_INVALID_ARG,
                    "a linear model (booster=gblinear) cannot be sliced: its rounds are summed into one set "
                    "of weights (XGBoost refuses it too)");
    rounds = gbt__model_rounds(src);
    RETURN_ERROR_IF(begin < 0 || end <= begin || end > rounds, GBT_E_INVALID_ARG,
                    "rounds [%d, %d) are not a range of the model's %d rounds (0 <= begin < end <= %d)",
                    begin, end, rounds, rounds);
    RETURN_ERROR_IF(step < 1, GBT_E_INVALID_ARG, "a slice's step must be >= 1, got %d", step);
    return copy_rounds(src, begin, end, step, out);
}
