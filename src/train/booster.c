/*
 * booster.c - boosters: parameters, training rounds, validation and early
 * stopping, evaluation and prediction.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/booster.h"
#include "train/comm.h"
#include "train/dist.h"
#include "common/grad_math.h"
#include "common/rng.h"
#include "common/surv_math.h"
#include "common/rank_math.h"
#include "data/dataset.h"
#include "data/feature_names.h"
#include "train/grow.h"
#include "objective/leaf_refit.h"
#include "objective/metric.h"
#include "objective/objective.h"
#include "model/shap.h"
#include "objective/surv_order.h"
#include "objective/rank.h"
#include "train/rounds.h"
#include "util/util.h"

/* ---- booster life --------------------------------------------------------- */

static void drop_state(gbt_booster *b)
{
    struct gbt_train_state *ts = b->ts;
    if (ts == NULL) return;
    if (ts->ops && ts->ctx) ts->ops->close(ts->ctx);
    gbt__qmatrix_free(&ts->qm);
    free(ts->usable);
    free(ts->hg);
    free(ts->hh);
    free(ts->hmargin);
    free(ts->cox_order);
    gbt__dist_free(ts->dist);
    gbt_dataset_free(ts->all);
    free(ts);
    b->ts = NULL;
}

void gbt__booster_drop_state(gbt_booster *b)
{
    drop_state(b);
}

gbt_status gbt_booster_create(gbt_booster **out)
{
    gbt_booster *b;
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(gbt__alloc(&b, 1, sizeof *b, 1, "booster"));
    gbt__params_init(&b->params);
    b->model.best_iteration = -1;
    *out = b;
    return GBT_OK;
}

void gbt_booster_free(gbt_booster *b)
{
    if (b == NULL) return;
    drop_state(b);
    gbt__booster_eval_caches_free(b);
    gbt__model_free(&b->model);
    gbt__comm_free(b->comm);
    free(b);
}

gbt_status gbt_booster_set_mpi_comm(gbt_booster *b, const void *mpi_comm)
{
    CHECK_NOT_NULL(b);
#ifdef GBT_WITH_MPI
    {
        struct gbt_comm *c;
        FORWARD_IF_ERROR(gbt__comm_mpi(mpi_comm, &c));
        drop_state(b);
        gbt__comm_free(b->comm);
        b->comm = c;
        return GBT_OK;
    }
#else
    (void)mpi_comm;
    return gbt__fail(GBT_E_INVALID_ARG, "this gbt was built without MPI (configure --with-mpi, "
                                        "with libopenmpi-dev installed)");
#endif
}

gbt_status gbt_booster_set_param(gbt_booster *b, const char *name, const char *value)
{
    struct gbt_params p;
    int flags = 0;
    CHECK_NOT_NULL(b);
    p = b->params;
    FORWARD_IF_ERROR(gbt__params_set(&p, name, value, &flags));
    if ((flags & GBT_PF_MODEL) && b->model.ntrees > 0) {
        char before[64], after[64];
        gbt__params_get(&b->params, name, before, sizeof before);
        gbt__params_get(&p, name, after, sizeof after);
        RETURN_ERROR_IF(strcmp(before, after) != 0, GBT_E_STATE,
                        "cannot change '%s' from %s to %s: the booster already has trees", name,
                        before, after);
    }
    b->params = p;
    if (flags & GBT_PF_REBUILD) drop_state(b);
    return GBT_OK;
}

gbt_status gbt_booster_get_param(const gbt_booster *b, const char *name, char *buf, size_t buflen)
{
    CHECK_NOT_NULL(b);
    return gbt__params_get(&b->params, name, buf, buflen);
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
    } else {
        return gbt__fail(GBT_E_INVALID_ARG,
                         "unknown attribute '%s' (device, best_iteration, best_score, num_feature, "
                         "num_trees)", key);
    }
    RETURN_ERROR_IF(strlen(tmp) + 1 > buflen, GBT_E_INVALID_ARG, "buffer of %zu bytes is too small",
                    buflen);
    memcpy(buf, tmp, strlen(tmp) + 1);
    return GBT_OK;
}

gbt_status gbt_booster_num_rounds(const gbt_booster *b, int *out)
{
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(out);
    *out = b->model.K ? (int)(b->model.ntrees / (uint32_t)b->model.K) : 0;
    return GBT_OK;
}

static int threads(const gbt_booster *b)
{
    return gbt__threads(b->params.nthread);
}

/* ---- training set-up ---------------------------------------------------- */

static gbt_status check_growth(const struct gbt_params *p)
{
    if (p->grow_policy == GBT_GROW_DEPTHWISE)
        RETURN_ERROR_IF(p->max_depth < 1, GBT_E_PARAM,
                        "grow_policy=depthwise needs max_depth >= 1 (max_depth=0 is for lossguide)");
    else
        RETURN_ERROR_IF(p->max_depth == 0 && p->max_leaves == 0, GBT_E_PARAM,
                        "grow_policy=lossguide needs max_leaves or max_depth");
    return GBT_OK;
}

static gbt_status check_base_margin(const gbt_dataset *d, int K)
{
    RETURN_ERROR_IF(d->base_margin && d->nbase_margin != d->nrow * (uint64_t)K, GBT_E_INVALID_ARG,
                    "base_margin has %llu values; the model needs %llu (rows x %d)",
                    (unsigned long long)d->nbase_margin, (unsigned long long)(d->nrow * (uint64_t)K), K);
    return GBT_OK;
}

/* scale_pos_weight where it applies (binary objectives), else 1. */
static double scale_pos(const struct gbt_params *p)
{
    const int binary = p->objective == GBT_OBJ_BINARY_LOGISTIC || p->objective == GBT_OBJ_BINARY_LOGITRAW;
    return binary ? p->scale_pos_weight : 1.0;
}

/* max_delta_step resolved: auto is 0.7 for count:poisson (as XGBoost), else 0. */
static double max_delta_step(const struct gbt_params *p)
{
    if (!isnan(p->max_delta_step)) return p->max_delta_step;
    return p->objective == GBT_OBJ_COUNT_POISSON ? 0.7 : 0.0;
}

/* The objective's parameters for the backends' gradients. */
static struct gbt_obj_param obj_param(const struct gbt_params *p)
{
    struct gbt_obj_param op;
    /* zeroed whole: the padding too travels to the device as a kernel argument */
    memset(&op, 0, sizeof op);
    op.scale_pos = scale_pos(p);
    op.poisson_delta = max_delta_step(p);
    op.huber_slope = p->huber_slope;
    op.tweedie_rho = p->tweedie_variance_power;
    if (p->objective == GBT_OBJ_REG_QUANTILEERROR)
        memcpy(op.alpha, p->quantile_alpha, (size_t)p->num_quantile_alpha * sizeof op.alpha[0]);
    else
        op.alpha[0] = 0.5;
    op.aft_dist = (int)p->aft_loss_distribution;
    op.aft_sigma = p->aft_loss_distribution_scale;
    return op;
}

/* The data's feature names against the model's, unless validate_features=0. */
static gbt_status check_names(const gbt_booster *b, const gbt_dataset *d)
{
    if (!b->params.validate_features) return GBT_OK;
    return gbt__names_match(b->model.feature_names, b->model.nfeature_names, d->feature_names,
                            d->nfeature_names, d->source ? d->source : "the data");
}

/* Fixes the model's objective, classes, starting scores and features on first training. */
/* all: the labels the starting score comes from (every process's when distributed) */
static gbt_status init_model(gbt_booster *b, const gbt_dataset *train, const gbt_dataset *all)
{
    struct gbt_model *m = &b->model;
    const struct gbt_params *p = &b->params;
    const struct gbt_obj_param op = obj_param(p);
    int K = gbt__objective_groups((int)p->objective, (int)p->num_class, (int)p->num_quantile_alpha);
    double *base;
    gbt_status s;
    if (m->K != 0) {
        RETURN_ERROR_IF(m->objective != p->objective || m->K != K, GBT_E_STATE,
                        "the model was trained with objective %s and %d output(s); the parameters now say %s",
                        gbt__objective_name(m->objective), m->K, gbt__objective_name((int)p->objective));
        FORWARD_IF_ERROR(check_names(b, train));
        if (train->ncol > m->num_feature) m->num_feature = train->ncol;
        if (train->nfeature_names > m->nfeature_names) {
            char **names;
            FORWARD_IF_ERROR(gbt__names_copy(&names, (const char *const *)train->feature_names,
                                             train->nfeature_names));
            gbt__names_free(m->feature_names, m->nfeature_names);
            m->feature_names = names;
            m->nfeature_names = train->nfeature_names;
        }
        return GBT_OK;
    }
    FORWARD_IF_ERROR(gbt__alloc(&base, (size_t)K, sizeof *base, 0, "starting scores"));
    s = gbt__objective_base_margin((int)p->objective, K, p->base_score, &op, all, base);
    if (s == GBT_OK)
        s = gbt__names_copy(&m->feature_names, (const char *const *)train->feature_names,
                            train->nfeature_names);
    if (s != GBT_OK) {
        free(base);
        return s;
    }
    m->nfeature_names = train->nfeature_names;
    m->K = K;
    m->objective = (int)p->objective;
    m->num_class = (int)p->num_class;
    m->num_feature = train->ncol;
    m->index_base = train->index_base == GBT_BASE_ONE_GUESSED ? GBT_BASE_ONE : train->index_base;
    m->base = base;
    return GBT_OK;
}

static void fill_start_margins(const struct gbt_model *m, const gbt_dataset *d, double *margin)
{
    const uint64_t n = d->nrow * (uint64_t)m->K;
    for (uint64_t i = 0; i < n; i++)
        margin[i] = d->base_margin ? (double)d->base_margin[i] : m->base[i % (uint64_t)m->K];
}

/* What distributed training cannot do, refused on every process alike. */
static gbt_status dist_refused(const gbt_booster *b)
{
    RETURN_ERROR_IF(b->eval_fn != NULL, GBT_E_PARAM,
                    "a custom metric sees one process's rows: it cannot decide a distributed training");
    return GBT_OK;
}

/* FNV-1a of the parameters that decide the model (not nthread, device, verbosity) */
static uint64_t params_digest(const struct gbt_params *p)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *a = (const unsigned char *)p;
    const size_t n1 = offsetof(struct gbt_params, nthread);
    const size_t b2 = offsetof(struct gbt_params, eval_metric), n2 = offsetof(struct gbt_params, verbosity);
    for (size_t i = 0; i < n1; i++) h = (h ^ a[i]) * 1099511628211ull;
    for (size_t i = b2; i < n2; i++) h = (h ^ a[i]) * 1099511628211ull;
    return h;
}

/* The device parameter is "auto": a CUDA device that fails gives way to the CPU. */
static int device_auto(const char *device)
{
    int kind = -1;
    return gbt__device_parse(device, &kind, NULL) == GBT_OK && kind == GBT_DEVICE_AUTO;
}

static gbt_status build_state(gbt_booster *b, const gbt_dataset *train)
{
    const struct gbt_params *p = &b->params;
    struct gbt_model *m = &b->model;
    struct gbt_train_state *ts = NULL;
    struct gbt_train_plan plan;
    struct gbt_dview view;
    double *margin = NULL;
    uint32_t *group_ptr = NULL;
    uint64_t ngroups = 0;
    const int nt = threads(b);
    gbt_status s;
    double t0 = gbt__now(), t_open;

    drop_state(b);
    s = check_growth(p);
    if (s == GBT_OK) s = gbt__objective_check((int)p->objective, (int)p->num_class, train);
    if (s == GBT_OK && gbt_objective_is_ranking((int)p->objective))
        s = gbt__rank_check((int)p->objective, p, train);
    if (s == GBT_OK) s = gbt__alloc(&ts, 1, sizeof *ts, 1, "training state");
    if (b->comm) {
        /* from here on, every failure is agreed on: the other processes stop too */
        struct gbt_dist *dd = NULL;
        s = gbt__dist_open(b->comm, s, train->nrow, train->ngroups, &dd);
        if (s == GBT_OK) {
            ts->dist = dd;
            s = gbt__dist_agree(dd, dist_refused(b));
        }
        if (s == GBT_OK) s = gbt__dist_check_same(ts->dist, train->ncol, params_digest(p));
        if (s == GBT_OK) s = gbt__dist_gather_labels(ts->dist, train, &ts->all);
    }
    if (s == GBT_OK) s = init_model(b, train, ts->all ? ts->all : train);
    if (s == GBT_OK) s = check_base_margin(train, m->K);
    if (s == GBT_OK) {
        ts->data_generation = train->generation;
        s = gbt__device_resolve(p->device, (int)p->verbosity, &ts->ops, &ts->ordinal);
    }
    if (s == GBT_OK && ts->dist && ts->ordinal >= 0 && strchr(p->device, ':') == NULL) {
        /* device=cuda (or auto) without a number: the processes of one machine take its GPUs in turn */
        const int n = ts->ops->device_count();
        if (n > 0) ts->ordinal = b->comm->local_rank % n;
    }
    if (ts && ts->dist) s = gbt__dist_agree(ts->dist, s);
    if (s == GBT_OK)
        s = ts->dist ? gbt__dist_quantize(ts->dist, train, (int)p->max_bin, nt, &ts->qm)
                     : gbt__quantize(train, (int)p->max_bin, nt, &ts->qm);
    if (s == GBT_OK) s = gbt__alloc(&ts->usable, ts->qm.cuts.nfeat + 1, 1, 0, "feature flags");
    if (s == GBT_OK) {
        for (uint32_t f = 0; f < ts->qm.cuts.nfeat; f++) ts->usable[f] = (uint8_t)gbt__feature_usable(&ts->qm.cuts, f);
        gbt__grow_limits((int)p->grow_policy, (int)p->max_depth, (int)p->max_leaves,
                         ts->dist ? ts->dist->nrow_total : train->nrow,
                         &ts->max_nodes, &ts->max_slots);
        s = gbt__alloc(&margin, train->nrow * (uint64_t)m->K, sizeof *margin, 0, "margins");
    }
    if (s == GBT_OK && gbt_objective_is_ranking(m->objective))
        s = gbt__dataset_group_ptr(train, &group_ptr, &ngroups);
    t_open = gbt__now();
    if (s == GBT_OK) {
        fill_start_margins(m, train, margin);
        gbt__dataset_view(train, &view);
        gbt__forest_add(&m->forest, 0, m->ntrees, m->K, &view, nt, margin);
        memset(&plan, 0, sizeof plan);
        plan.qm = &ts->qm;
        plan.label = train->label;
        plan.weight = train->weight;
        plan.margin = margin;
        plan.nrow = train->nrow;
        plan.num_class = m->K;
        plan.objective = m->objective;
        plan.group_ptr = group_ptr;
        plan.ngroups = ngroups;
        plan.max_nodes = ts->max_nodes;
        plan.max_slots = ts->max_slots;
        plan.nthread = nt;
        plan.no_column_sampling = !(p->colsample_bytree < 1.0 || p->colsample_bylevel < 1.0 ||
                                    p->colsample_bynode < 1.0);
        s = ts->ops->open(ts->ordinal, &plan, &ts->ctx);
        if (s != GBT_OK && ts->ordinal >= 0 && device_auto(p->device)) {
            /* the same model on the CPU: unsupported architecture, busy or too small a GPU */
            gbt__log((int)p->verbosity, GBT_LOG_WARNING,
                     "device=auto: cannot train on cuda:%d (%s); training on the CPU", ts->ordinal,
                     gbt_last_error());
            ts->ops = gbt__backend_cpu();
            ts->ordinal = -1;
            s = ts->ops->open(ts->ordinal, &plan, &ts->ctx);
        }
    }
    free(margin);
    free(group_ptr);
    if (ts && ts->dist) {
        s = gbt__dist_agree(ts->dist, s);
        if (s == GBT_OK) {
            ts->dist->K = m->K;
            ts->dist->total_slots = ts->qm.cuts.total_slots;
            gbt__dist_wrap(ts->dist, &ts->ops, &ts->ctx);
        }
    }
    if (s != GBT_OK) {
        b->ts = ts;
        drop_state(b);
        return s;
    }
    b->ts = ts;
    if (ts->ordinal >= 0)
        snprintf(b->device_used, sizeof b->device_used, "cuda:%d", ts->ordinal);
    else
        snprintf(b->device_used, sizeof b->device_used, "cpu");
    gbt__log((int)p->verbosity, GBT_LOG_INFO,
             "training on %s: %llu rows, %u features, %u bins (%s layout), set-up %.3f s",
             b->device_used, (unsigned long long)train->nrow, ts->qm.cuts.nfeat,
             ts->qm.cuts.total_slots,
             ts->qm.layout == GBT_QM_CSR ? "sparse" : "dense", gbt__now() - t0);
    gbt__log((int)p->verbosity, GBT_LOG_DEBUG,
             "set-up: bin cuts and binned matrix %.3f s, starting scores and backend %.3f s; %d thread%s, "
             "at most %u nodes per tree", t_open - t0, gbt__now() - t_open, nt, nt == 1 ? "" : "s", ts->max_nodes);
    return GBT_OK;
}

static void grow_config(const gbt_booster *b, struct gbt_grow_config *cfg)
{
    const struct gbt_params *p = &b->params;
    memset(cfg, 0, sizeof *cfg);
    cfg->policy = (int)p->grow_policy;
    cfg->max_depth = (int)p->max_depth;
    cfg->max_leaves = (int)p->max_leaves;
    cfg->eta = p->eta;
    cfg->gamma = p->gamma;
    cfg->sp.lambda = p->lambda;
    cfg->sp.alpha = p->alpha;
    cfg->sp.max_delta_step = max_delta_step(p);
    cfg->sp.min_child_weight = p->min_child_weight;
    cfg->colsample_bytree = p->colsample_bytree;
    cfg->colsample_bylevel = p->colsample_bylevel;
    cfg->colsample_bynode = p->colsample_bynode;
    cfg->seed = (uint64_t)p->seed;
    cfg->cuts = &b->ts->qm.cuts;
    cfg->usable = b->ts->usable;
    cfg->max_nodes = b->ts->max_nodes;
    cfg->max_slots = b->ts->max_slots;
}

/* ---- gradients computed on the host: survival and custom objectives ---- */

/* The global index of this process's first training row (0 in one process). */
static uint64_t row_base(const gbt_booster *b)
{
    return b->ts && b->ts->dist ? b->ts->dist->row_base : 0;
}

/* The host buffers of the training state (nrow * K doubles each), allocated once. */
static gbt_status host_buffers(struct gbt_train_state *ts, uint64_t n)
{
    if (ts->hg) return GBT_OK;
    FORWARD_IF_ERROR(gbt__alloc(&ts->hg, n ? n : 1, sizeof(double), 0, "gradients"));
    FORWARD_IF_ERROR(gbt__alloc(&ts->hh, n ? n : 1, sizeof(double), 0, "hessians"));
    return gbt__alloc(&ts->hmargin, n ? n : 1, sizeof(double), 0, "training margins");
}

/*
 * survival:cox in distributed training: a row's gradient depends on every
 * row with a later time, so each process computes them all from every
 * process's margins (ts->hmargin: this process's n) and keeps its own.
 */
static gbt_status cox_distributed(gbt_booster *b, uint64_t n)
{
    struct gbt_train_state *ts = b->ts;
    const gbt_dataset *all = ts->all;
    double *m = NULL, *g = NULL, *h = NULL;
    gbt_status s = gbt__dist_gather_doubles(ts->dist, ts->hmargin, n, &m);
    if (s == GBT_OK && ts->cox_order == NULL) s = gbt__surv_order(all->label, all->nrow, &ts->cox_order);
    if (s == GBT_OK) s = gbt__alloc(&g, all->nrow ? all->nrow : 1, sizeof *g, 0, "gradients");
    if (s == GBT_OK) s = gbt__alloc(&h, all->nrow ? all->nrow : 1, sizeof *h, 0, "hessians");
    if (s == GBT_OK) {
        gbt_cox_gradients(all->nrow, ts->cox_order, m, all->label, all->weight, g, h);
        memcpy(ts->hg, g + ts->dist->row_base, n * sizeof *g);
        memcpy(ts->hh, h + ts->dist->row_base, n * sizeof *h);
    }
    free(m);
    free(g);
    free(h);
    return s;
}

/*
 * survival:cox and survival:aft: the gradients from the training margins,
 * on the host in one fixed order (common/surv_math.h), for every backend;
 * rows left out by subsample get 0, as in the backends' gradients.
 */
static gbt_status survival_gradients(gbt_booster *b, const gbt_dataset *train,
                                     const struct gbt_grad_request *req, struct gbt_class_sums *out)
{
    struct gbt_train_state *ts = b->ts;
    const uint64_t n = train->nrow;
    FORWARD_IF_ERROR(host_buffers(ts, n));
    FORWARD_IF_ERROR(ts->ops->read_margins(ts->ctx, ts->hmargin));
    if (b->model.objective == GBT_OBJ_SURVIVAL_COX && ts->dist) {
        FORWARD_IF_ERROR(cox_distributed(b, n));
    } else if (b->model.objective == GBT_OBJ_SURVIVAL_COX) {
        if (ts->cox_order == NULL) FORWARD_IF_ERROR(gbt__surv_order(train->label, n, &ts->cox_order));
        gbt_cox_gradients(n, ts->cox_order, ts->hmargin, train->label, train->weight, ts->hg, ts->hh);
    } else {
        const float *lo, *hi;
        FORWARD_IF_ERROR(gbt__objective_aft_bounds(train, &lo, &hi));
        for (uint64_t r = 0; r < n; r++) {
            const double w = train->weight ? (double)train->weight[r] : 1.0;
            double g, h;
            gbt_aft_gradient(req->obj.aft_dist, req->obj.aft_sigma, (double)lo[r], (double)hi[r],
                             ts->hmargin[r], &g, &h);
            ts->hg[r] = g * w;
            ts->hh[r] = h * w;
        }
    }
    for (uint64_t r = 0; r < n; r++) {
        if (!gbt_row_sampled(req->seed, req->round, row_base(b) + r, req->subsample)) ts->hg[r] = ts->hh[r] = 0.0;
        RETURN_ERROR_IF(!isfinite(ts->hg[r]) || !isfinite(ts->hh[r]), GBT_E_INVALID_ARG,
                        "%s: the gradient of row %llu is not finite at raw score %g (the scores "
                        "overflow exp; a smaller eta or max_delta_step keeps them in range)",
                        gbt__objective_name(b->model.objective), (unsigned long long)r, ts->hmargin[r]);
    }
    return ts->ops->set_gradients(ts->ctx, ts->hg, ts->hh, NULL, out);
}

/*
 * One round: the gradients (the caller's grad and hess, row-major, when
 * not NULL; else the objective's), then a tree per class.
 */
static gbt_status boost_round(gbt_booster *b, const gbt_dataset *train, const double *grad,
                              const double *hess)
{
    struct gbt_grow_config cfg;
    struct gbt_class_sums *sums = NULL;
    struct gbt_grad_request req;
    struct gbt_leaf_refit refit;
    const uint32_t before = b->model.ntrees;
    gbt_status s;
    int K;
    K = b->model.K;
    grow_config(b, &cfg);
    req.round = (int)(b->model.ntrees / (uint32_t)K);
    req.seed = (uint64_t)b->params.seed;
    req.subsample = b->params.subsample;
    req.obj = obj_param(&b->params);
    req.row_base = req.group_base = 0; /* the distributed backend numbers its rows itself */
    req.max_hook = NULL;
    /* the built-in objective's refit; a custom objective's leaves stay its Newton steps */
    if (grad == NULL && gbt_objective_refits_leaves(b->model.objective)) {
        refit.alpha = req.obj.alpha;
        refit.label = train->label;
        refit.weight = train->weight;
        refit.weighted = (b->ts->all ? b->ts->all->weight : train->weight) != NULL;
        refit.row_base = row_base(b);
        refit.gather = b->ts->dist ? gbt__dist_gather_leaves : NULL;
        refit.gather_user = b->ts->dist;
        refit.nrow = train->nrow;
        refit.K = K;
        refit.nthread = threads(b);
        refit.seed = req.seed;
        refit.round = req.round;
        refit.subsample = req.subsample;
        cfg.refit = &refit;
    }
    if (gbt_objective_is_ranking(b->model.objective))
        gbt__rank_obj_param(&b->params, b->ts->all ? b->ts->all : train, &req.obj);
    s = gbt__alloc(&sums, (size_t)K, sizeof *sums, 0, "class sums");
    if (s == GBT_OK && grad) {
        const uint64_t n = train->nrow;
        s = host_buffers(b->ts, n * (uint64_t)K);
        for (uint64_t r = 0; r < n && s == GBT_OK; r++) {
            const int in = gbt_row_sampled(req.seed, req.round, row_base(b) + r, req.subsample);
            for (int k = 0; k < K; k++) {
                b->ts->hg[(uint64_t)k * n + r] = in ? grad[r * (uint64_t)K + k] : 0.0;
                b->ts->hh[(uint64_t)k * n + r] = in ? hess[r * (uint64_t)K + k] : 0.0;
            }
        }
        if (s == GBT_OK) s = b->ts->ops->set_gradients(b->ts->ctx, b->ts->hg, b->ts->hh, NULL, sums);
    } else if (s == GBT_OK && gbt__objective_survival(b->model.objective)) {
        s = survival_gradients(b, train, &req, sums);
    } else if (s == GBT_OK) {
        s = b->ts->ops->gradients(b->ts->ctx, &req, sums);
    }
    for (int k = 0; k < K && s == GBT_OK; k++) {
        struct gbt_tree tree;
        cfg.tree_index = (uint64_t)req.round * (uint64_t)K + (uint64_t)k;
        s = gbt__grow_tree(b->ts->ops, b->ts->ctx, &cfg, k, &sums[k], &tree);
        if (s == GBT_OK) {
            s = gbt__model_add_tree(&b->model, &tree);
            if (s != GBT_OK) gbt__tree_free(&tree);
        }
    }
    free(sums);
    /* distributed: no process leaves the round before every process has finished it */
    if (b->ts && b->ts->dist) s = gbt__dist_agree(b->ts->dist, s);
    if (s != GBT_OK) {
        /* the backend may hold part of a round: drop it and start over next time */
        gbt__model_truncate(&b->model, before);
        drop_state(b);
    }
    return s;
}

/* The checks of every training call, and the training state for `train`. */
static gbt_status ready_to_train(gbt_booster *b, const gbt_dataset *train)
{
    RETURN_ERROR_IF(b->params.scale_pos_weight != 1.0 && scale_pos(&b->params) == 1.0, GBT_E_PARAM,
                    "scale_pos_weight applies to binary:logistic and binary:logitraw, not to %s",
                    gbt__objective_name((int)b->params.objective));
    if (b->ts == NULL || b->ts->data_generation != train->generation)
        FORWARD_IF_ERROR(build_state(b, train));
    return GBT_OK;
}

/* One round from the objective callback's gradients (gbt_booster_set_objective_callback). */
static gbt_status callback_round(gbt_booster *b, const gbt_dataset *train)
{
    const uint64_t len = train->nrow * (uint64_t)b->model.K;
    double *m = NULL, *g = NULL, *h = NULL;
    gbt_status s = gbt__alloc(&m, len ? len : 1, sizeof *m, 0, "training margins");
    if (s == GBT_OK) s = gbt__alloc(&g, len ? len : 1, sizeof *g, 0, "gradients");
    if (s == GBT_OK) s = gbt__alloc(&h, len ? len : 1, sizeof *h, 0, "hessians");
    if (s == GBT_OK) s = b->ts->ops->read_margins(b->ts->ctx, m);
    if (s == GBT_OK) {
        int rc = b->obj_fn(m, train->nrow, b->model.K, train, b->obj_user, g, h);
        if (rc != 0) s = gbt__fail(GBT_E_INVALID_ARG, "the custom objective failed (it returned %d)", rc);
    }
    if (s == GBT_OK) s = gbt_booster_boost(b, train, g, h, len);
    free(m);
    free(g);
    free(h);
    return s;
}

gbt_status gbt_booster_update(gbt_booster *b, const gbt_dataset *train)
{
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(train);
    FORWARD_IF_ERROR(ready_to_train(b, train));
    if (b->obj_fn) return callback_round(b, train);
    return boost_round(b, train, NULL, NULL);
}

gbt_status gbt_booster_set_objective_callback(gbt_booster *b, gbt_objective_fn fn, void *user)
{
    CHECK_NOT_NULL(b);
    b->obj_fn = fn;
    b->obj_user = fn ? user : NULL;
    return GBT_OK;
}

gbt_status gbt_booster_train_margins(gbt_booster *b, const gbt_dataset *train, double *out,
                                     uint64_t len)
{
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(train);
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(ready_to_train(b, train));
    RETURN_ERROR_IF(len != train->nrow * (uint64_t)b->model.K, GBT_E_INVALID_ARG,
                    "the output holds %llu doubles; the margins are %llu (rows x %d)",
                    (unsigned long long)len, (unsigned long long)(train->nrow * (uint64_t)b->model.K),
                    b->model.K);
    return b->ts->ops->read_margins(b->ts->ctx, out);
}

gbt_status gbt_booster_boost(gbt_booster *b, const gbt_dataset *train, const double *grad,
                             const double *hess, uint64_t len)
{
    uint64_t need;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(train);
    CHECK_NOT_NULL(grad);
    CHECK_NOT_NULL(hess);
    FORWARD_IF_ERROR(ready_to_train(b, train));
    need = train->nrow * (uint64_t)b->model.K;
    RETURN_ERROR_IF(len != need, GBT_E_INVALID_ARG,
                    "%llu gradients given; the training data needs %llu (rows x %d outputs)",
                    (unsigned long long)len, (unsigned long long)need, b->model.K);
    for (uint64_t i = 0; i < len; i++)
        RETURN_ERROR_IF(!isfinite(grad[i]) || !isfinite(hess[i]), GBT_E_INVALID_ARG,
                        "row %llu, output %d: the %s %g is not finite",
                        (unsigned long long)(i / (uint64_t)b->model.K), (int)(i % (uint64_t)b->model.K),
                        isfinite(grad[i]) ? "hessian" : "gradient", isfinite(grad[i]) ? hess[i] : grad[i]);
    return boost_round(b, train, grad, hess);
}

gbt_status gbt_booster_set_eval_callback(gbt_booster *b, const char *name, gbt_eval_fn fn,
                                         void *user, int maximize)
{
    CHECK_NOT_NULL(b);
    if (fn == NULL) {
        b->eval_fn = NULL;
        b->eval_user = NULL;
        b->eval_name[0] = '\0';
        return GBT_OK;
    }
    CHECK_NOT_NULL(name);
    RETURN_ERROR_IF(name[0] == '\0' || strlen(name) >= sizeof b->eval_name, GBT_E_INVALID_ARG,
                    "a custom metric's name must have 1 to %zu characters", sizeof b->eval_name - 1);
    b->eval_fn = fn;
    b->eval_user = user;
    b->eval_maximize = maximize != 0;
    snprintf(b->eval_name, sizeof b->eval_name, "%s", name);
    return GBT_OK;
}

/* ---- validation, early stopping ---------------------------------------- */

/*
 * Fewer rows than this are predicted on the host even for a CUDA booster:
 * a device call costs a stream, buffers and copies, more than the host
 * needs for a small batch, and both give the same bits.
 */
#define GBT_DEVICE_PREDICT_MIN_ROWS 1024

/*
 * The raw scores of the whole model for v computed on the booster's CUDA
 * device, when its `device` parameter resolves to one, the backend predicts
 * there and the batch is large enough: *out is a new nrow * K array.
 * Otherwise *out is NULL and the caller walks the trees on the host; both
 * give the same bits.  With device=auto a failure on the device is logged
 * and the host walks the trees instead.
 */
static gbt_status device_margins(const gbt_booster *b, const struct gbt_dview *v, uint32_t t0,
                                 uint32_t t1, double **out)
{
    const struct gbt_model *m = &b->model;
    const struct gbt_backend_ops *ops;
    int ordinal;
    gbt_status s;
    *out = NULL;
    FORWARD_IF_ERROR(gbt__device_resolve(b->params.device, 0, &ops, &ordinal));
    if (ordinal < 0 || ops->predict_margins == NULL || v->nrow < GBT_DEVICE_PREDICT_MIN_ROWS)
        return GBT_OK;
    FORWARD_IF_ERROR(gbt__alloc(out, v->nrow * (uint64_t)m->K, sizeof **out, 0, "margins"));
    s = ops->predict_margins(ordinal, &m->forest, t0, t1, m->K, m->base, v, *out);
    if (s != GBT_OK) {
        free(*out);
        *out = NULL;
        if (device_auto(b->params.device)) {
            gbt__log((int)b->params.verbosity, GBT_LOG_WARNING,
                     "device=auto: cannot predict on cuda:%d (%s); predicting on the CPU", ordinal,
                     gbt_last_error());
            s = GBT_OK;
        }
    }
    return s;
}

/*
 * Data to predict must have the model's features: dense data (a matrix,
 * CSV, TSV) every one of them, sparse data (CSR, LIBSVM) no more of them.
 */
static gbt_status check_features(const struct gbt_model *m, uint64_t ncol, int dense)
{
    RETURN_ERROR_IF(ncol > m->num_feature, GBT_E_INVALID_ARG,
                    "the data has %llu features but the model only %llu (%s)",
                    (unsigned long long)ncol, (unsigned long long)m->num_feature,
                    dense ? "is the label or another column read as a feature? label_column says "
                            "where the label is"
                          : "a one-based LIBSVM file read as zero-based? indexing_mode=1 says it is "
                            "one-based");
    RETURN_ERROR_IF(dense && ncol < m->num_feature, GBT_E_INVALID_ARG,
                    "the data has %llu columns but the model %llu features; dense data must "
                    "have a column for every feature (NaN where a value is missing)",
                    (unsigned long long)ncol, (unsigned long long)m->num_feature);
    return GBT_OK;
}

/*
 * A LIBSVM file without index 0 reads as one-based; that guess is refused
 * for a model that was not trained on a one-based file, where the file may
 * as well be a zero-based one whose first feature never appears.
 */
static gbt_status check_index_base(const struct gbt_model *m, const gbt_dataset *d)
{
    RETURN_ERROR_IF(d->index_base == GBT_BASE_ONE_GUESSED && m->index_base != GBT_BASE_ONE,
                    GBT_E_INVALID_ARG,
                    "%s has no feature index 0, so it reads as one-based LIBSVM, but the model was "
                    "trained on %s; say which it is with indexing_mode=0 or indexing_mode=1",
                    d->source ? d->source : "the data",
                    m->index_base == GBT_BASE_ZERO ? "a zero-based LIBSVM file"
                                                   : "dense data (columns from 0)");
    return GBT_OK;
}

gbt_status gbt__booster_eval_margins(const gbt_booster *b, const gbt_dataset *d, double **out)
{
    const struct gbt_model *m = &b->model;
    struct gbt_dview v;
    double *margin;
    FORWARD_IF_ERROR(check_features(m, d->ncol, d->dense != NULL));
    FORWARD_IF_ERROR(check_index_base(m, d));
    FORWARD_IF_ERROR(check_names(b, d));
    FORWARD_IF_ERROR(check_base_margin(d, m->K));
    gbt__dataset_view(d, &v);
    FORWARD_IF_ERROR(device_margins(b, &v, 0, m->ntrees, &margin));
    if (margin == NULL) {
        FORWARD_IF_ERROR(gbt__alloc(&margin, d->nrow * (uint64_t)m->K, sizeof *margin, 0, "margins"));
        fill_start_margins(m, d, margin);
        gbt__forest_add(&m->forest, 0, m->ntrees, m->K, &v, threads(b), margin);
    }
    *out = margin;
    return GBT_OK;
}

static void format_seconds(char *buf, size_t len, double s)
{
    if (s < 60)
        snprintf(buf, len, "%.1fs", s);
    else if (s < 3600)
        snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, len, "%dh%02dm", (int)(s / 3600), ((int)s / 60) % 60);
}

/* The debug line of a round: its trees' sizes and where its time went. */
static void log_round(const gbt_booster *b, int round, uint32_t first_tree, double t_trees, double t_eval)
{
    int32_t leaves = 0;
    int depth = 0;
    for (uint32_t t = first_tree; t < b->model.ntrees; t++) {
        int dt = 0;
        leaves += (b->model.trees[t].n_nodes + 1) / 2;
        if (gbt__tree_depth(&b->model.trees[t], &dt) == GBT_OK && dt > depth) depth = dt;
    }
    gbt__log((int)b->params.verbosity, GBT_LOG_DEBUG,
             "[%d] %u tree%s, %d leaves, depth %d; gradients and trees %.3f s, metrics %.3f s", round,
             b->model.ntrees - first_tree, b->model.ntrees - first_tree == 1 ? "" : "s", (int)leaves, depth,
             t_trees, t_eval);
}

double gbt__eta(double t_setup, double t_first, double now, int done, int total)
{
    if (done >= total) return 0.0;
    if (done <= 1) return (t_first - t_setup) * (total - done);
    return (now - t_first) / (done - 1) * (total - done);
}

gbt_status gbt_booster_train(gbt_booster *b, const gbt_dataset *train, int num_rounds,
                             const gbt_dataset *const *valid, const char *const *valid_names,
                             int num_valid)
{
    struct gbt_metric_list ml;
    struct gbt_eval_cache *sets = NULL;
    double vals[GBT_MAX_METRICS + 1];
    int best_round = -1, last_round = -1, verb, last_maximize = 0;
    const char *last_name = "";
    double best = NAN, start = gbt__now(), t_setup, t_first = 0.0;
    uint64_t bytes_setup;
    gbt_status s = GBT_OK;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(train);
    RETURN_ERROR_IF(num_rounds < 0, GBT_E_INVALID_ARG, "num_rounds is negative (%d)", num_rounds);
    RETURN_ERROR_IF(num_valid < 0 || (num_valid > 0 && valid == NULL), GBT_E_INVALID_ARG,
                    "num_valid is %d but valid is %s", num_valid, valid ? "set" : "NULL");
    for (int i = 0; i < num_valid; i++) {
        RETURN_ERROR_IF(valid[i] == NULL, GBT_E_INVALID_ARG, "validation set %d is NULL", i);
        RETURN_ERROR_IF(valid[i]->label == NULL &&
                            !(b->params.objective == GBT_OBJ_SURVIVAL_AFT && valid[i]->label_lower),
                        GBT_E_INVALID_ARG, "validation set %d has no labels", i);
    }
    verb = (int)b->params.verbosity;
    FORWARD_IF_ERROR(gbt__metric_list(b, &ml));
    RETURN_ERROR_IF(b->params.early_stopping_rounds > 0 && num_valid > 0 && ml.total == 0, GBT_E_PARAM,
                    "early_stopping_rounds needs a metric: disable_default_eval_metric leaves none "
                    "without eval_metric or a custom metric");
    /* the last metric decides early stopping: the custom one when there is one */
    if (ml.total > 0) {
        last_maximize = ml.maximize[ml.total - 1];
        last_name = ml.names[ml.total - 1];
    }
    if (b->ts == NULL || b->ts->data_generation != train->generation)
        FORWARD_IF_ERROR(build_state(b, train));
    if (num_valid > 0) FORWARD_IF_ERROR(gbt__alloc(&sets, (size_t)num_valid, sizeof *sets, 1, "validation sets"));
    for (int i = 0; i < num_valid && s == GBT_OK; i++) {
        if (valid_names && valid_names[i])
            snprintf(sets[i].name, sizeof sets[i].name, "%s", valid_names[i]);
        else
            snprintf(sets[i].name, sizeof sets[i].name, "valid%d", i);
        s = gbt__eval_cache_sync(b, &sets[i], valid[i]);
    }
    t_setup = gbt__now();
    bytes_setup = b->comm ? b->comm->bytes : 0;
    for (int r = 0; r < num_rounds && s == GBT_OK; r++) {
        const uint32_t t0 = b->model.ntrees;
        const int round = (int)(t0 / (uint32_t)b->model.K);
        struct gbt_strbuf line = {0};
        double last = NAN, t_round = gbt__now(), t_eval;
        s = gbt_booster_update(b, train);
        if (s != GBT_OK) break;
        last_round = round;
        t_eval = gbt__now();
        gbt__sb_printf(&line, "[%d]", round);
        for (int i = 0; i < num_valid && s == GBT_OK; i++) {
            s = gbt__eval_cache_sync(b, &sets[i], valid[i]);
            if (s == GBT_OK) s = gbt__eval_cache_metrics(b, &sets[i], &ml, vals);
            for (int j = 0; j < ml.total && s == GBT_OK; j++) {
                gbt__sb_printf(&line, "\t%s-%s:%.6f", sets[i].name, ml.names[j], vals[j]);
                last = vals[j];
            }
        }
        if (s == GBT_OK) {
            const double now = gbt__now();
            char e1[32], e2[32];
            if (r == 0) t_first = now;
            format_seconds(e1, sizeof e1, now - start);
            format_seconds(e2, sizeof e2, gbt__eta(t_setup, t_first, now, r + 1, num_rounds));
            gbt__sb_printf(&line, "\t(%s elapsed, %s left)", e1, e2);
            if (!line.failed) gbt__log(verb, GBT_LOG_INFO, "%s", line.s);
            if (verb >= GBT_LOG_DEBUG) log_round(b, round, t0, t_eval - t_round, gbt__now() - t_eval);
        }
        free(line.s);
        if (s != GBT_OK || num_valid == 0 || ml.total == 0) continue;
        if (best_round < 0 || (last_maximize ? last > best : last < best)) {
            best = last;
            best_round = round;
        }
        if (b->params.early_stopping_rounds > 0 && round - best_round >= b->params.early_stopping_rounds) {
            gbt__log(verb, GBT_LOG_INFO,
                     "early stop: %s-%s did not improve for %lld rounds; keeping rounds 0..%d",
                     sets[num_valid - 1].name, last_name, (long long)b->params.early_stopping_rounds, best_round);
            s = gbt_booster_keep_rounds(b, best_round + 1);
            if (s == GBT_OK) s = gbt_booster_set_best(b, best_round, best);
            break;
        }
    }
    if (s == GBT_OK) {
        char e1[32];
        format_seconds(e1, sizeof e1, gbt__now() - start);
        if (best_round >= 0)
            gbt__log(verb, GBT_LOG_INFO, "trained %d rounds in %s; best round %d: %s-%s = %.6f",
                     last_round + 1, e1, best_round, sets[num_valid - 1].name, last_name, best);
        else
            gbt__log(verb, GBT_LOG_INFO, "trained %d rounds in %s", num_rounds, e1);
        if (b->comm && last_round >= 0)
            gbt__log(verb, GBT_LOG_INFO,
                     "rank %d of %d: %.3f MB exchanged in set-up, %.3f MB per round (this process's part of "
                     "every exchange)", b->comm->rank, b->comm->size, (double)bytes_setup / 1e6,
                     (double)(b->comm->bytes - bytes_setup) / 1e6 / (last_round + 1));
    }
    for (int i = 0; i < num_valid; i++) gbt__eval_cache_free(&sets[i]);
    free(sets);
    return s;
}

/* ---- evaluation and prediction ------------------------------------------ */

static gbt_status check_model(const gbt_booster *b)
{
    RETURN_ERROR_IF(b->model.K == 0, GBT_E_STATE, "the booster has no model: train or load one first");
    return GBT_OK;
}

gbt_status gbt_booster_eval(const gbt_booster *b, const gbt_dataset *d, const char *metric,
                            double *out)
{
    struct gbt_metric m;
    double *margin;
    gbt_status s;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(metric);
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(check_model(b));
    FORWARD_IF_ERROR(gbt__metric_parse(metric, &m));
    m.huber_slope = b->params.huber_slope;
    m.alpha = b->params.quantile_alpha;
    m.nalpha = (int)b->params.num_quantile_alpha;
    m.aft_dist = (int)b->params.aft_loss_distribution;
    m.aft_sigma = b->params.aft_loss_distribution_scale;
    m.exp_gain = (int)b->params.ndcg_exp_gain;
    RETURN_ERROR_IF(d->label == NULL && !(gbt__metric_survival(m.id) && d->label_lower),
                    GBT_E_INVALID_ARG, "the data has no labels to evaluate against");
    FORWARD_IF_ERROR(gbt__booster_eval_margins(b, d, &margin));
    s = gbt__eval_metric(b, &m, d, margin, out);
    free(margin);
    return s;
}

#define EXPLAIN_FLAGS (GBT_PREDICT_LEAF | GBT_PREDICT_CONTRIBS | GBT_PREDICT_INTERACTIONS)

/* The explanation a prediction's flags ask for (enum gbt_explain_kind), or 0. */
static int explain_kind(unsigned flags)
{
    return (flags & GBT_PREDICT_LEAF) ? GBT_EXPLAIN_LEAF
           : (flags & GBT_PREDICT_CONTRIBS) ? GBT_EXPLAIN_CONTRIBS
           : (flags & GBT_PREDICT_INTERACTIONS) ? GBT_EXPLAIN_INTERACTIONS
                                                : 0;
}

/* Checks flags and the rounds [r0, r1) (r1 0: the last), and gives the trees [*t0, *t1). */
static gbt_status check_prediction(const gbt_booster *b, unsigned flags, int r0, int r1, uint32_t *t0,
                                   uint32_t *t1)
{
    const unsigned known = GBT_PREDICT_MARGIN | EXPLAIN_FLAGS, ex = flags & EXPLAIN_FLAGS;
    const uint32_t K = (uint32_t)b->model.K, rounds = b->model.ntrees / K;
    RETURN_ERROR_IF(flags & ~known, GBT_E_INVALID_ARG, "unknown prediction flags 0x%x", flags);
    RETURN_ERROR_IF(ex & (ex - 1), GBT_E_INVALID_ARG,
                    "prediction flags 0x%x ask for more than one of leaf ids, SHAP values and SHAP "
                    "interaction values", flags);
    if (r1 == 0) r1 = (int)rounds;
    RETURN_ERROR_IF(r0 < 0 || r0 > r1 || (uint32_t)r1 > rounds, GBT_E_INVALID_ARG,
                    "rounds [%d, %d) are not a range of the model's %u rounds", r0, r1, rounds);
    *t0 = (uint32_t)r0 * K;
    *t1 = (uint32_t)r1 * K;
    return GBT_OK;
}

static gbt_status size_of(const gbt_booster *b, uint64_t nrow, unsigned flags, uint32_t t0, uint32_t t1,
                          uint64_t *out_len)
{
    const int kind = explain_kind(flags);
    const uint64_t width = kind ? gbt__explain_width(&b->model, kind, t0, t1)
                                : (uint64_t)gbt__objective_outputs(b->model.objective, b->model.K, flags);
    RETURN_ERROR_IF(width && nrow > UINT64_MAX / sizeof(float) / width, GBT_E_INVALID_ARG,
                    "%llu rows of %llu outputs are more floats than memory can hold",
                    (unsigned long long)nrow, (unsigned long long)width);
    RETURN_ERROR_IF(kind == GBT_EXPLAIN_INTERACTIONS && b->model.num_feature >= (uint64_t)1 << 24,
                    GBT_E_INVALID_ARG, "SHAP interaction values of %llu features are too many",
                    (unsigned long long)b->model.num_feature);
    *out_len = nrow * width;
    return GBT_OK;
}

gbt_status gbt_booster_predict_size_rounds(const gbt_booster *b, uint64_t nrow, unsigned flags,
                                           int round_begin, int round_end, uint64_t *out_len)
{
    uint32_t t0, t1;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(out_len);
    FORWARD_IF_ERROR(check_model(b));
    FORWARD_IF_ERROR(check_prediction(b, flags, round_begin, round_end, &t0, &t1));
    return size_of(b, nrow, flags, t0, t1, out_len);
}

gbt_status gbt_booster_predict_size(const gbt_booster *b, uint64_t nrow, unsigned flags,
                                    uint64_t *out_len)
{
    return gbt_booster_predict_size_rounds(b, nrow, flags, 0, 0, out_len);
}

/*
 * Leaf ids or SHAP values on the booster's CUDA device when it resolves to
 * one and the batch is large enough, else (or, with device=auto, after a
 * failure there) on the CPU.
 */
static gbt_status explain_view(const gbt_booster *b, const struct gbt_dview *v, int kind, uint32_t t0,
                               uint32_t t1, float *out)
{
    const struct gbt_backend_ops *ops;
    int ordinal;
    gbt_status s;
    FORWARD_IF_ERROR(gbt__device_resolve(b->params.device, 0, &ops, &ordinal));
    if (ordinal < 0 || ops->predict_explain == NULL || v->nrow < GBT_DEVICE_PREDICT_MIN_ROWS) ops = NULL;
    s = gbt__explain(&b->model, v, kind, t0, t1, threads(b), ops ? ops->predict_explain : NULL, ordinal, out);
    if (s != GBT_OK && ops != NULL && device_auto(b->params.device)) {
        gbt__log((int)b->params.verbosity, GBT_LOG_WARNING,
                 "device=auto: cannot predict on cuda:%d (%s); predicting on the CPU", ordinal,
                 gbt_last_error());
        s = gbt__explain(&b->model, v, kind, t0, t1, threads(b), NULL, -1, out);
    }
    return s;
}

static gbt_status predict_view(const gbt_booster *b, const struct gbt_dview *v, unsigned flags, int r0,
                               int r1, float *out, uint64_t out_len)
{
    uint64_t need;
    uint32_t t0, t1;
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(check_prediction(b, flags, r0, r1, &t0, &t1));
    FORWARD_IF_ERROR(size_of(b, v->nrow, flags, t0, t1, &need));
    RETURN_ERROR_IF(out_len < need, GBT_E_INVALID_ARG,
                    "the output holds %llu floats; %llu rows need %llu", (unsigned long long)out_len,
                    (unsigned long long)v->nrow, (unsigned long long)need);
    FORWARD_IF_ERROR(check_features(&b->model, v->ncol, v->dense != NULL));
    RETURN_ERROR_IF(v->base_margin && v->nbase_margin != v->nrow * (uint64_t)b->model.K,
                    GBT_E_INVALID_ARG, "base_margin has %llu values; the model needs %llu (rows x %d)",
                    (unsigned long long)v->nbase_margin,
                    (unsigned long long)(v->nrow * (uint64_t)b->model.K), b->model.K);
    if (explain_kind(flags)) return explain_view(b, v, explain_kind(flags), t0, t1, out);
    {
        double *margin;
        FORWARD_IF_ERROR(device_margins(b, v, t0, t1, &margin));
        if (margin) {
            const int K = b->model.K;
            const uint64_t width = (uint64_t)gbt__objective_outputs(b->model.objective, K, flags);
            for (uint64_t r = 0; r < v->nrow; r++)
                gbt__objective_transform(b->model.objective, K, margin + r * (uint64_t)K, flags,
                                         out + r * width);
            free(margin);
            return GBT_OK;
        }
    }
    gbt__forest_predict(&b->model.forest, t0, t1, b->model.objective, b->model.K, b->model.base, v, flags,
                        threads(b), out);
    return GBT_OK;
}

gbt_status gbt_booster_predict_rounds(const gbt_booster *b, const gbt_dataset *d, unsigned flags,
                                      int round_begin, int round_end, float *out, uint64_t out_len)
{
    struct gbt_dview v;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(d);
    FORWARD_IF_ERROR(check_model(b));
    FORWARD_IF_ERROR(check_index_base(&b->model, d));
    FORWARD_IF_ERROR(check_names(b, d));
    gbt__dataset_view(d, &v);
    return predict_view(b, &v, flags, round_begin, round_end, out, out_len);
}

gbt_status gbt_booster_predict(const gbt_booster *b, const gbt_dataset *d, unsigned flags,
                               float *out, uint64_t out_len)
{
    return gbt_booster_predict_rounds(b, d, flags, 0, 0, out, out_len);
}

gbt_status gbt_booster_predict_dense_rounds(const gbt_booster *b, const float *data, uint64_t nrow,
                                            uint64_t ncol, float missing, unsigned flags, int round_begin,
                                            int round_end, float *out, uint64_t out_len)
{
    struct gbt_dview v;
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(data);
    FORWARD_IF_ERROR(check_model(b));
    memset(&v, 0, sizeof v);
    v.nrow = nrow;
    v.ncol = ncol;
    v.dense = data;
    v.missing = missing;
    return predict_view(b, &v, flags, round_begin, round_end, out, out_len);
}

gbt_status gbt_booster_predict_dense(const gbt_booster *b, const float *data, uint64_t nrow,
                                     uint64_t ncol, float missing, unsigned flags, float *out,
                                     uint64_t out_len)
{
    return gbt_booster_predict_dense_rounds(b, data, nrow, ncol, missing, flags, 0, 0, out, out_len);
}
