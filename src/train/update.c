/*
 * update.c - process_type=update (update.h): XGBoost's way of changing a
 * model's trees instead of growing new ones.  When updating begins the
 * model's trees move here and the model holds none; round r then copies
 * the r-th round's trees, runs the updaters on each (refresh.c with the
 * gradients of its output, then prune.c) with eta / num_parallel_tree,
 * and appends them, so the model keeps the rounds updated so far and
 * gradients are those of the raw scores under them (XGBoost's order).
 * Everything runs on the host from the trees and the rows' values: the
 * same bytes for every device and thread count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/grad_math.h"
#include "common/rank_math.h"
#include "objective/objective.h"
#include "train/prune.h"
#include "train/refresh.h"
#include "train/update.h"
#include "util/util.h"

struct gbt_update {
    struct gbt_tree *trees; /* the model's trees when updating began */
    uint32_t ntrees;
    /* the training rows' raw scores under the model's first mtrees trees */
    double *margin;
    const gbt_dataset *d;
    uint64_t generation, epoch, len;
    uint32_t mtrees;
    double *g, *h; /* the round's gradients, class-major */
};

void gbt__update_free(gbt_booster *b)
{
    struct gbt_update *u = b->upd;
    if (u == NULL) return;
    for (uint32_t t = 0; t < u->ntrees; t++) gbt__tree_free(&u->trees[t]);
    free(u->trees);
    free(u->margin);
    free(u->g);
    free(u->h);
    free(u);
    b->upd = NULL;
}

static int refreshes(const struct gbt_params *p)
{
    return p->updater == GBT_UPDATER_REFRESH || p->updater == GBT_UPDATER_REFRESH_PRUNE;
}

gbt_status gbt__update_check(const gbt_booster *b, const gbt_dataset *train, int custom)
{
    const struct gbt_params *p = &b->params;
    const int obj = b->model.K ? b->model.objective : (int)p->objective;
    RETURN_ERROR_IF(p->booster != GBT_BOOSTER_GBTREE, GBT_E_PARAM,
                    "process_type=update updates the trees of booster=gbtree, not booster=%s",
                    p->booster == GBT_BOOSTER_DART ? "dart" : "gblinear");
    RETURN_ERROR_IF(p->updater < GBT_UPDATER_REFRESH, GBT_E_PARAM,
                    "process_type=update needs updater=refresh, prune or refresh,prune (the updaters that change "
                    "existing trees; updater=%s grows none)", p->updater ? "coord_descent" : "shotgun");
    RETURN_ERROR_IF(b->comm != NULL, GBT_E_PARAM, "process_type=update does not run distributed (MPI)");
    RETURN_ERROR_IF(refreshes(p) && !custom && (gbt_objective_is_ranking(obj) || gbt__objective_survival(obj)),
                    GBT_E_PARAM,
                    "updater=refresh computes the per-row gradients of the objective; %s's depend on other rows "
                    "(ranking and survival objectives are not refreshed; a custom objective's gradients are)",
                    gbt__objective_name(obj));
    return gbt__dataset_need_values(train, "process_type=update (the trees are walked on feature values)");
}

gbt_status gbt__update_begin(gbt_booster *b, int rounds)
{
    struct gbt_model *m = &b->model;
    struct gbt_update *u = b->upd;
    uint32_t R;
    int left;
    if (u == NULL) {
        RETURN_ERROR_IF(m->K == 0 || m->linear || m->ntrees == 0, GBT_E_STATE,
                        "process_type=update: the booster has no trees to update (continue from a model: "
                        "xgb_model in Python, --model_in for gbtrain)");
        RETURN_ERROR_IF(m->dart, GBT_E_PARAM, "process_type=update: a dart model's trees are not updated");
        RETURN_ERROR_IF(rounds > gbt__model_rounds(m), GBT_E_PARAM,
                        "process_type=update: %d rounds asked for, but the model has %d (the rounds cannot exceed "
                        "the model's, as in XGBoost)", rounds, gbt__model_rounds(m));
        FORWARD_IF_ERROR(gbt__alloc(&u, 1, sizeof *u, 1, "the update"));
        if (gbt__model_take_trees(m, &u->trees, &u->ntrees) != GBT_OK) {
            free(u);
            return GBT_E_NO_MEMORY;
        }
        m->best_iteration = -1; /* a round of the trees it named may be gone */
        b->upd = u;
    }
    R = gbt__model_round_trees(m);
    left = (int)(u->ntrees / R) - gbt__model_rounds(m);
    RETURN_ERROR_IF(rounds > left, GBT_E_PARAM,
                    "process_type=update: %d rounds asked for, but %d of the model's %u are left to update "
                    "(the rounds cannot exceed the model's, as in XGBoost)",
                    rounds, left, u->ntrees / R);
    return GBT_OK;
}

gbt_status gbt__update_margins(gbt_booster *b, const gbt_dataset *train, double *out)
{
    struct gbt_update *u;
    struct gbt_model *m = &b->model;
    struct gbt_dview v;
    const uint64_t len = train->nrow * (uint64_t)m->K;
    const int nt = gbt__threads(b->params.nthread);
    FORWARD_IF_ERROR(gbt__update_begin(b, -1));
    u = b->upd;
    gbt__dataset_view(train, &v);
    if (!(u->margin && u->d == train && u->generation == train->generation && u->epoch == m->epoch &&
          u->mtrees <= m->ntrees && u->len == len)) {
        free(u->margin);
        u->margin = NULL;
        FORWARD_IF_ERROR(gbt__alloc(&u->margin, len + 1, sizeof *u->margin, 0, "training margins"));
        gbt__model_start_margins(m, train, u->margin);
        u->d = train;
        u->generation = train->generation;
        u->epoch = m->epoch;
        u->len = len;
        u->mtrees = 0;
    }
    gbt__forest_add(&m->forest, u->mtrees, m->ntrees, m->K, &v, nt, u->margin);
    u->mtrees = m->ntrees;
    if (out) memcpy(out, u->margin, len * sizeof *out);
    return GBT_OK;
}

/* The round's gradients, class-major, into u->g and u->h: the caller's (row-major) or the objective's. */
static gbt_status gradients(gbt_booster *b, const gbt_dataset *train, const double *grad, const double *hess)
{
    struct gbt_update *u = b->upd;
    const struct gbt_model *m = &b->model;
    const uint64_t n = train->nrow;
    const int K = m->K, T = gbt__dataset_targets(train), nt = gbt__threads(b->params.nthread);
    const struct gbt_obj_param op = gbt__params_obj_param(&b->params);
    (void)nt; /* (a build without OpenMP) */
    free(u->g);
    free(u->h);
    u->g = u->h = NULL;
    FORWARD_IF_ERROR(gbt__alloc(&u->g, n * (uint64_t)K + 1, sizeof(double), 0, "gradients"));
    FORWARD_IF_ERROR(gbt__alloc(&u->h, n * (uint64_t)K + 1, sizeof(double), 0, "hessians"));
    if (grad) {
        for (uint64_t r = 0; r < n; r++)
            for (int k = 0; k < K; k++) {
                u->g[(uint64_t)k * n + r] = grad[r * (uint64_t)K + (uint64_t)k];
                u->h[(uint64_t)k * n + r] = hess[r * (uint64_t)K + (uint64_t)k];
            }
        return GBT_OK;
    }
    FORWARD_IF_ERROR(gbt__update_margins(b, train, NULL));
#pragma omp parallel for num_threads(nt) schedule(static) if (n >= 8192)
    for (uint64_t r = 0; r < n; r++) {
        const double w = train->weight ? (double)train->weight[r] : 1.0;
        if (T > 1)
            gbt_target_gradients(m->objective, &op, K, u->margin + r * (uint64_t)K, 1,
                                 train->label + r * (uint64_t)K, w, u->g + r, u->h + r, n);
        else
            gbt_row_gradients(m->objective, &op, K, u->margin + r * (uint64_t)K, 1, train->label[r],
                              gbt_row_weight(train->label[r], w, op.scale_pos), u->g + r, u->h + r, n);
    }
    return GBT_OK;
}

gbt_status gbt__update_round(gbt_booster *b, const gbt_dataset *train, const double *grad, const double *hess)
{
    struct gbt_model *m = &b->model;
    const struct gbt_params *p = &b->params;
    const uint32_t R = gbt__model_round_trees(m), before = m->ntrees;
    const int round = gbt__model_rounds(m);
    const float lr = (float)p->eta / (float)m->num_parallel_tree; /* XGBoost's float learning rate */
    struct gbt_refresh rf;
    struct gbt_update *u;
    gbt_status s = GBT_OK;
    FORWARD_IF_ERROR(gbt__update_begin(b, -1));
    u = b->upd;
    RETURN_ERROR_IF((uint64_t)(round + 1) * R > u->ntrees, GBT_E_PARAM,
                    "process_type=update: no trees left to update: the model had %u rounds, all updated (the "
                    "rounds cannot exceed the model's, as in XGBoost)", u->ntrees / R);
    if (refreshes(p)) {
        FORWARD_IF_ERROR(gradients(b, train, grad, hess));
        memset(&rf, 0, sizeof rf);
        rf.sp.lambda = p->lambda;
        rf.sp.alpha = p->alpha;
        rf.sp.max_delta_step = gbt__params_max_delta_step(p);
        rf.sp.min_child_weight = p->min_child_weight;
        rf.lr = lr;
        rf.refresh_leaf = (int)p->refresh_leaf;
        rf.nthread = gbt__threads(p->nthread);
    }
    for (uint32_t i = 0; i < R && s == GBT_OK; i++) {
        struct gbt_tree t;
        struct gbt_dview v;
        int32_t pruned = 0;
        s = gbt__tree_copy(&u->trees[(uint64_t)round * R + i], &t);
        if (s != GBT_OK) break;
        if (refreshes(p)) {
            /* tree i of a round is of output i % K (model.h) */
            gbt__dataset_view(train, &v);
            rf.v = &v;
            rf.g = u->g + (uint64_t)(i % (uint32_t)m->K) * train->nrow;
            rf.h = u->h + (uint64_t)(i % (uint32_t)m->K) * train->nrow;
            s = gbt__refresh_tree(&t, &rf);
        }
        if (s == GBT_OK && p->updater != GBT_UPDATER_REFRESH)
            s = gbt__prune_tree(&t, p->gamma, (int)p->max_depth, lr, &pruned);
        if (s == GBT_OK) s = gbt__model_add_tree(m, &t, 1.0f);
        if (s != GBT_OK) gbt__tree_free(&t);
        else if (pruned)
            gbt__log((int)p->verbosity, GBT_LOG_DEBUG, "round %d, tree %u: %d nodes pruned", round, i, (int)pruned);
    }
    if (s != GBT_OK) gbt__model_truncate(m, before);
    return s;
}
