/*
 * importance.c - feature importance from the trees' splits, with XGBoost's
 * definitions: weight (the number of splits on a feature), total_gain and
 * total_cover (the sums of the splits' gains and covers), gain and cover
 * (those sums over the weight).
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/util.h"

enum imp_type { IMP_WEIGHT, IMP_GAIN, IMP_COVER, IMP_TOTAL_GAIN, IMP_TOTAL_COVER };

static const char *const type_names[] = {"weight", "gain", "cover", "total_gain", "total_cover"};

gbt_status gbt__model_feature_importance(const struct gbt_model *m, const char *type, double *out,
                                         uint64_t len)
{
    int t = -1;
    CHECK_NOT_NULL(m);
    CHECK_NOT_NULL(type);
    CHECK_NOT_NULL(out);
    RETURN_ERROR_IF(m->K == 0, GBT_E_STATE, "the booster has no model: train or load one first");
    for (int i = 0; i < (int)(sizeof type_names / sizeof type_names[0]); i++)
        if (strcmp(type, type_names[i]) == 0) t = i;
    RETURN_ERROR_IF(t < 0, GBT_E_INVALID_ARG,
                    "unknown importance type '%s' (weight, gain, cover, total_gain, total_cover)", type);
    RETURN_ERROR_IF(len < m->num_feature, GBT_E_INVALID_ARG,
                    "the output holds %llu values; the model has %llu features", (unsigned long long)len,
                    (unsigned long long)m->num_feature);
    if (m->linear) {
        /* XGBoost's get_score of a linear model: the weights */
        RETURN_ERROR_IF(t != IMP_WEIGHT, GBT_E_INVALID_ARG,
                        "a linear model (booster=gblinear) has importance 'weight' only (its coefficients), "
                        "not '%s'", type);
        RETURN_ERROR_IF(m->K != 1, GBT_E_INVALID_ARG,
                        "a linear model (booster=gblinear) of %d outputs has %d coefficients per feature: "
                        "read them from its dump", m->K, m->K);
        for (uint64_t f = 0; f < m->num_feature; f++) out[f] = (double)m->weights[f];
        return GBT_OK;
    }
    {
        /* the splits are counted and summed in tree order, node order: the same bits every time */
        double *count = NULL;
        FORWARD_IF_ERROR(gbt__alloc(&count, (size_t)m->num_feature + 1, sizeof *count, 1, "importance"));
        memset(out, 0, (size_t)m->num_feature * sizeof *out);
        for (uint32_t i = 0; i < m->ntrees; i++) {
            const struct gbt_tree *tr = &m->trees[i];
            for (int32_t n = 0; n < tr->n_nodes; n++) {
                const int32_t f = tr->feature[n];
                if (tr->left[n] < 0) continue;
                count[f] += 1.0;
                if (t == IMP_GAIN || t == IMP_TOTAL_GAIN) out[f] += (double)tr->gain[n];
                if (t == IMP_COVER || t == IMP_TOTAL_COVER) out[f] += (double)tr->cover[n];
            }
        }
        for (uint64_t f = 0; f < m->num_feature; f++) {
            if (t == IMP_WEIGHT) out[f] = count[f];
            if ((t == IMP_GAIN || t == IMP_COVER) && count[f] > 0) out[f] /= count[f];
        }
        free(count);
    }
    return GBT_OK;
}
