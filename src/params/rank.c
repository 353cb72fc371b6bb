/*
 * rank.c - checks, parameters, default metrics and group offsets of the
 * learning-to-rank objectives (see rank.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/rank_math.h"
#include "objective/objective.h"
#include "params/rank.h"
#include "util/util.h"

uint32_t gbt__rank_num_pair(const struct gbt_params *p)
{
    if (!isnan(p->lambdarank_num_pair_per_sample)) return (uint32_t)p->lambdarank_num_pair_per_sample;
    return p->lambdarank_pair_method == GBT_RANK_MEAN ? 1u : 32u;
}

gbt_status gbt__rank_check(int obj, const struct gbt_params *p, const gbt_dataset *d)
{
    const char *name = gbt__objective_name(obj);
    const int exp_gain = obj == GBT_OBJ_RANK_NDCG && p->ndcg_exp_gain;
    char where[512];
    uint64_t r = 0;
    RETURN_ERROR_IF(d->groups == NULL || d->ngroups == 0, GBT_E_INVALID_ARG,
                    "objective %s needs query groups: give FILE.group (group sizes) or FILE.query "
                    "(a query id per row) next to the data file, qid: in a LIBSVM file, or call "
                    "gbt_dataset_set_groups",
                    name);
    RETURN_ERROR_IF(!isnan(p->lambdarank_num_pair_per_sample) &&
                        p->lambdarank_num_pair_per_sample != floor(p->lambdarank_num_pair_per_sample),
                    GBT_E_PARAM, "lambdarank_num_pair_per_sample=%g is not a whole number",
                    p->lambdarank_num_pair_per_sample);
    for (uint64_t g = 0; g < d->ngroups; g++) {
        const uint64_t first = r;
        for (uint32_t i = 0; i < d->groups[g]; i++, r++) {
            const float y = d->label[r];
            const char *bad = NULL;
            if (!(y >= 0.0f) || isinf(y))
                bad = "is not a finite relevance >= 0";
            else if (exp_gain && (y != floorf(y) || y > (float)GBT_RANK_MAX_EXP_LABEL))
                bad = "is not a whole number in 0..31, as the gain 2^label - 1 of ndcg_exp_gain=true "
                      "needs (Set `ndcg_exp_gain` to false to use custom DCG gain: with ndcg_exp_gain=false "
                      "the gain is the label)";
            else if (obj == GBT_OBJ_RANK_MAP && y != 0.0f && y != 1.0f)
                bad = "is not 0 or 1 (rank:map takes binary relevance)";
            if (bad) {
                gbt__dataset_where(d, r, where, sizeof where);
                return gbt__fail(GBT_E_FORMAT, "%s: label %g %s for %s", where, (double)y, bad, name);
            }
            if (d->weight && d->weight[r] != d->weight[first]) {
                gbt__dataset_where(d, r, where, sizeof where);
                return gbt__fail(GBT_E_FORMAT,
                                 "%s: weight %g differs from %g of the first row of its query group "
                                 "(group %llu); %s weighs whole groups: Size of weight must equal "
                                 "to the number of query groups when ranking group is used (one "
                                 "weight per group; per-row weights must be equal within a group)",
                                 where, (double)d->weight[r], (double)d->weight[first],
                                 (unsigned long long)g, name);
            }
        }
    }
    return GBT_OK;
}

void gbt__rank_obj_param(const struct gbt_params *p, const gbt_dataset *d, struct gbt_obj_param *op)
{
    double sw = 0.0;
    op->rank_num_pair = gbt__rank_num_pair(p);
    op->rank_method = (int32_t)p->lambdarank_pair_method;
    op->rank_exp_gain = (int32_t)p->ndcg_exp_gain;
    op->rank_normalization = (int32_t)p->lambdarank_normalization;
    op->rank_score_norm = (int32_t)p->lambdarank_score_normalization;
    op->rank_wnorm = 1.0;
    op->rank_npos = 0;
    if (p->lambdarank_unbiased && d) {
        /* the positions tracked: the first k (topk) or 32 (mean), no more than the largest query */
        uint32_t most = 0, want = p->lambdarank_pair_method == GBT_RANK_TOPK ? op->rank_num_pair : 32u;
        for (uint64_t g = 0; g < d->ngroups; g++)
            if (d->groups[g] > most) most = d->groups[g];
        op->rank_npos = want < most ? want : most;
    }
    if (d && d->weight && d->ngroups) {
        /* XGBoost's normalisation: the number of groups over the sum of the groups' weights */
        uint64_t r = 0;
        for (uint64_t g = 0; g < d->ngroups; r += d->groups[g], g++) sw += d->weight[r];
        op->rank_wnorm = sw > 0.0 ? (double)d->ngroups / sw : 1.0;
    }
}

void gbt__rank_default_metric(int obj, const struct gbt_params *p, char *buf, size_t len)
{
    const char *base = obj == GBT_OBJ_RANK_MAP ? "map" : "ndcg";
    if (p->lambdarank_pair_method == GBT_RANK_TOPK)
        snprintf(buf, len, "%s@%u", base, (unsigned)gbt__rank_num_pair(p));
    else
        snprintf(buf, len, "%s", base);
}
