/*
 * model.c - the model: its trees (in the tree form and the prediction
 * form), its starting scores and feature names.  Its readers and writers
 * are model_json.c, model_xgboost.c, dump.c, importance.c and slice.c.
 */
#include <stdlib.h>
#include <string.h>

#include "data/feature_names.h"
#include "model/model.h"
#include "util/util.h"

/* Room for one more tree (and its weight in a dart model). */
static gbt_status reserve_tree(struct gbt_model *m)
{
    const size_t cap = m->trees_cap;
    FORWARD_IF_ERROR(gbt__reserve(&m->trees, &m->trees_cap, (size_t)m->ntrees + 1,
                                  sizeof *m->trees, "model trees"));
    if (m->dart && (m->weight == NULL || m->trees_cap != cap)) {
        float *w = realloc(m->weight, m->trees_cap * sizeof *w);
        RETURN_ERROR_IF(w == NULL, GBT_E_NO_MEMORY, "out of memory for the tree weights");
        m->weight = w;
    }
    return GBT_OK;
}

static void put_tree(struct gbt_model *m, struct gbt_tree *t, float w)
{
    if (m->dart) m->weight[m->ntrees] = w;
    m->trees[m->ntrees++] = *t;
    memset(t, 0, sizeof *t);
}

gbt_status gbt__model_add_tree(struct gbt_model *m, struct gbt_tree *t, float w)
{
    FORWARD_IF_ERROR(reserve_tree(m));
    FORWARD_IF_ERROR(gbt__forest_append(&m->forest, t, m->dart ? w : 1.0f));
    put_tree(m, t, w);
    return GBT_OK;
}

gbt_status gbt__model_append_tree(struct gbt_model *m, struct gbt_tree *t, float w)
{
    FORWARD_IF_ERROR(reserve_tree(m));
    put_tree(m, t, w);
    return GBT_OK;
}

gbt_status gbt__model_index_trees(struct gbt_model *m)
{
    while (m->forest.ntrees < m->ntrees) {
        const uint32_t t = m->forest.ntrees;
        FORWARD_IF_ERROR(gbt__forest_append(&m->forest, &m->trees[t], gbt__model_weight(m, t)));
    }
    return GBT_OK;
}

gbt_status gbt__model_reweigh(struct gbt_model *m, uint32_t from)
{
    if (from >= m->ntrees) return GBT_OK;
    m->epoch++;
    gbt__forest_truncate(&m->forest, from);
    return gbt__model_index_trees(m);
}

gbt_status gbt__model_check_types(const struct gbt_model *m, const uint8_t *types, uint64_t ntypes,
                                  const char *what)
{
    const uint64_t n = m->nfeature_types > ntypes ? m->nfeature_types : ntypes;
    for (uint64_t f = 0; f < n; f++) {
        const int mc = gbt__model_is_cat(m, f), dc = f < ntypes && types[f] == 1;
        char buf[32];
        if (mc != dc)
            return gbt__fail(GBT_E_INVALID_ARG,
                             "%s: feature %llu (%s) is %s, but the model treats it as %s (feature types must "
                             "match the model's)",
                             what, (unsigned long long)f,
                             gbt__name_of(m->feature_names, m->nfeature_names, f, buf, sizeof buf),
                             dc ? "categorical" : "numeric", mc ? "categorical" : "numeric");
    }
    return GBT_OK;
}

void gbt__model_start_margins(const struct gbt_model *m, const gbt_dataset *d, double *margin)
{
    const uint64_t n = d->nrow * (uint64_t)m->K;
    for (uint64_t i = 0; i < n; i++)
        margin[i] = d->base_margin ? (double)d->base_margin[i] : m->base[i % (uint64_t)m->K];
}

void gbt__model_truncate(struct gbt_model *m, uint32_t ntrees)
{
    if (m->ntrees > ntrees) m->epoch++;
    while (m->ntrees > ntrees) gbt__tree_free(&m->trees[--m->ntrees]);
    gbt__forest_truncate(&m->forest, ntrees);
}

gbt_status gbt__model_take_trees(struct gbt_model *m, struct gbt_tree **out, uint32_t *n)
{
    FORWARD_IF_ERROR(gbt__alloc(out, (size_t)m->ntrees + 1, sizeof **out, 0, "the trees to update"));
    memcpy(*out, m->trees, (size_t)m->ntrees * sizeof **out);
    *n = m->ntrees;
    m->ntrees = 0;
    m->epoch++;
    gbt__forest_truncate(&m->forest, 0);
    return GBT_OK;
}

void gbt__model_free(struct gbt_model *m)
{
    const uint64_t epoch = m->epoch + 1;
    gbt__model_truncate(m, 0);
    free(m->trees);
    free(m->weight);
    free(m->base);
    gbt__names_free(m->feature_names, m->nfeature_names);
    free(m->feature_types);
    free(m->weights);
    gbt__model_free_attrs(m);
    gbt__forest_free(&m->forest);
    memset(m, 0, sizeof *m);
    m->best_iteration = -1;
    m->num_parallel_tree = 1;
    m->epoch = epoch;
}

gbt_status gbt__model_linear_init(struct gbt_model *m)
{
    const uint64_t n = (m->num_feature + 1) * (uint64_t)m->K;
    float *w;
    FORWARD_IF_ERROR(gbt__alloc(&w, n, sizeof *w, 1, "linear weights"));
    free(m->weights);
    m->weights = w;
    m->linear = 1;
    return GBT_OK;
}

gbt_status gbt__model_set_feature_names(struct gbt_model *m, const char *const *names, uint64_t n)
{
    char **copy = NULL;
    RETURN_ERROR_IF(m->K == 0, GBT_E_STATE, "the booster has no model: train or load one first");
    RETURN_ERROR_IF(n != 0 && n != m->num_feature, GBT_E_INVALID_ARG,
                    "gbt_booster_set_feature_names: %llu names for a model of %llu features",
                    (unsigned long long)n, (unsigned long long)m->num_feature);
    if (n) {
        CHECK_NOT_NULL(names);
        FORWARD_IF_ERROR(gbt__names_check(names, n, "gbt_booster_set_feature_names"));
        FORWARD_IF_ERROR(gbt__names_copy(&copy, names, n));
    }
    gbt__names_free(m->feature_names, m->nfeature_names);
    m->feature_names = copy;
    m->nfeature_names = n;
    return GBT_OK;
}

gbt_status gbt__model_feature_names(const struct gbt_model *m, char ***names, uint64_t *n)
{
    size_t bytes;
    char **v, *p, buf[32];
    CHECK_NOT_NULL(names);
    CHECK_NOT_NULL(n);
    RETURN_ERROR_IF(m->K == 0, GBT_E_STATE, "the booster has no model: train or load one first");
    /* one block: the pointers, then the names */
    bytes = (size_t)m->num_feature * sizeof(char *) + 1;
    for (uint64_t i = 0; i < m->num_feature; i++)
        bytes += strlen(gbt__name_of(m->feature_names, m->nfeature_names, i, buf, sizeof buf)) + 1;
    FORWARD_IF_ERROR(gbt__alloc(&p, bytes, 1, 0, "feature names"));
    v = (char **)(void *)p;
    p += (size_t)m->num_feature * sizeof(char *);
    for (uint64_t i = 0; i < m->num_feature; i++) {
        const char *name = gbt__name_of(m->feature_names, m->nfeature_names, i, buf, sizeof buf);
        const size_t len = strlen(name) + 1;
        memcpy(p, name, len);
        v[i] = p;
        p += len;
    }
    *names = v;
    *n = m->num_feature;
    return GBT_OK;
}
