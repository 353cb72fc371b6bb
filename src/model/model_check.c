/*
 * model_check.c - the semantic checks of a model: what must hold of a
 * model before gbt predicts with it, whatever built it.  Every loader
 * (model_json.c for the gbt format, model_xgboost.c for XGBoost's JSON,
 * from a file or a buffer) reads the text, checking its syntax, and calls
 * gbt__model_check once before the trees are laid out for prediction;
 * the writers call it before they write a byte, so a file gbt writes is
 * one it loads.
 *
 * The checks: the outputs and classes against the objective, finite
 * starting scores, no more feature names or types than features, one
 * tree per output and round, an early stop inside the rounds; each tree's
 * shape and numbers (tree.c's gbt__tree_validate: children in range
 * forming one tree, every feature index below num_feature); categorical
 * sets only at splits, never empty; where the model declares feature
 * types, a categorical split only on a feature it declares categorical
 * ("c") and a numeric split only on one it declares numeric (a feature
 * past a short list is numeric).  A model that declares no types is
 * taken as its splits say: XGBoost writes "feature_types": [] for a
 * categorical model trained through its C API, and loads it.
 */
#include <math.h>
#include <stdio.h>

#include "common/grad_math.h"
#include "data/feature_names.h"
#include "model/model.h"
#include "objective/objective.h"
#include "util/util.h"

static gbt_status check_header(const struct gbt_model *m, const char *what)
{
    const uint32_t K = m->K > 0 && m->num_parallel_tree > 0 ? gbt__model_round_trees(m) : 1;
    RETURN_ERROR_IF(m->K < 1 || m->base == NULL, GBT_E_FORMAT, "%s: the model has no outputs", what);
    RETURN_ERROR_IF(m->num_parallel_tree < 1 || (uint64_t)m->K * (uint64_t)m->num_parallel_tree > UINT32_MAX,
                    GBT_E_FORMAT, "%s: num_parallel_tree %d is not a count of trees per output and round", what,
                    m->num_parallel_tree);
    if (gbt_objective_is_multiclass(m->objective))
        RETURN_ERROR_IF(m->num_class < 2 || m->num_class != m->K, GBT_E_FORMAT,
                        "%s: num_class %d does not fit a multi-class objective with %d outputs", what,
                        m->num_class, m->K);
    else
        RETURN_ERROR_IF(m->num_class > 1 || m->num_class < 0, GBT_E_FORMAT,
                        "%s: num_class %d with an objective that is not multi-class", what, m->num_class);
    RETURN_ERROR_IF(m->num_target > 1 && (m->num_target != m->K || !gbt__objective_multi_target(m->objective)),
                    GBT_E_FORMAT, "%s: num_target %d does not fit objective %s with %d outputs", what,
                    m->num_target, gbt__objective_name(m->objective), m->K);
    for (int k = 0; k < m->K; k++)
        RETURN_ERROR_IF(!isfinite(m->base[k]), GBT_E_FORMAT, "%s: the starting score of output %d is not finite",
                        what, k);
    RETURN_ERROR_IF(m->num_feature > GBT_MAX_FEATURES, GBT_E_FORMAT, "%s: num_feature %llu is above %llu", what,
                    (unsigned long long)m->num_feature, (unsigned long long)GBT_MAX_FEATURES);
    RETURN_ERROR_IF(m->nfeature_names > m->num_feature, GBT_E_FORMAT,
                    "%s: %llu feature names for %llu features", what, (unsigned long long)m->nfeature_names,
                    (unsigned long long)m->num_feature);
    RETURN_ERROR_IF(m->nfeature_types > m->num_feature, GBT_E_FORMAT,
                    "%s: %llu feature types for %llu features", what, (unsigned long long)m->nfeature_types,
                    (unsigned long long)m->num_feature);
    for (uint64_t f = 0; f < m->nfeature_types; f++)
        RETURN_ERROR_IF(m->feature_types[f] >= GBT_FT_COUNT, GBT_E_FORMAT, "%s: feature %llu has an unknown type", what,
                        (unsigned long long)f);
    RETURN_ERROR_IF(m->ntrees % K != 0, GBT_E_FORMAT,
                    "%s: %u trees are not num_parallel_tree (%d) per output (%d) and round", what, m->ntrees,
                    m->num_parallel_tree, m->K);
    RETURN_ERROR_IF(m->best_iteration < -1 || m->best_iteration >= gbt__model_rounds(m), GBT_E_FORMAT,
                    "%s: best_iteration %d is not a round of the model (0 to %d)", what, m->best_iteration,
                    gbt__model_rounds(m) - 1);
    return GBT_OK;
}

/* The kind of each node of t against its place (split or leaf) and its feature's type in m. */
static gbt_status check_splits(const struct gbt_model *m, const struct gbt_tree *t, const char *what)
{
    /* sets at leaves first: a set moved off its split leaves that split numeric, the lesser symptom */
    for (int32_t i = 0; i < t->n_nodes; i++)
        RETURN_ERROR_IF(t->left[i] < 0 && gbt__tree_is_cat(t, i), GBT_E_FORMAT,
                        "%s: node %d is a leaf but has a set of categories (categories_nodes names only splits)",
                        what, i);
    for (int32_t i = 0; i < t->n_nodes; i++) {
        const int cat = gbt__tree_is_cat(t, i);
        char name[64], buf[32];
        uint64_t f;
        RETURN_ERROR_IF(t->default_left[i] > 1, GBT_E_FORMAT, "%s: node %d: default_left is not 0 or 1", what, i);
        if (t->left[i] < 0) continue;
        f = (uint64_t)t->feature[i];
        snprintf(name, sizeof name, "%s", gbt__name_of(m->feature_names, m->nfeature_names, f, buf, sizeof buf));
        RETURN_ERROR_IF(cat && t->cat_count[i] < 1, GBT_E_FORMAT,
                        "%s: node %d is a categorical split with no categories", what, i);
        /* a model that declares no types at all (XGBoost's C API writes such) types no feature */
        RETURN_ERROR_IF(cat && (m->nfeature_types > 0 || m->types_declared) && !gbt__model_is_cat(m, f), GBT_E_FORMAT,
                        "%s: node %d is a categorical split on feature %llu (%s), which the model's feature_types "
                        "do not declare categorical (\"c\")",
                        what, i, (unsigned long long)f, name);
        RETURN_ERROR_IF(!cat && gbt__model_is_cat(m, f), GBT_E_FORMAT,
                        "%s: node %d is a numeric split (< %.9g) on feature %llu (%s), which the model's "
                        "feature_types declare categorical (\"c\")",
                        what, i, (double)t->threshold[i], (unsigned long long)f, name);
    }
    return GBT_OK;
}

gbt_status gbt__model_check(const struct gbt_model *m, const char *what)
{
    FORWARD_IF_ERROR(check_header(m, what));
    for (uint32_t k = 0; k < m->ntrees; k++) {
        char where[4200];
        snprintf(where, sizeof where, "%s: tree %u", what, k);
        FORWARD_IF_ERROR(gbt__tree_validate(&m->trees[k], m->num_feature, where));
        FORWARD_IF_ERROR(check_splits(m, &m->trees[k], where));
    }
    return GBT_OK;
}
