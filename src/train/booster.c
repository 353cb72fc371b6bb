/*
 * booster.c - boosters: their life and parameters, the set-up of training
 * on a dataset and one boosting round (training runs are booster_train.c,
 * raw scores on data margins.c, prediction api/booster_predict.c, the
 * model's calls api/booster_model.c).
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/booster.h"
#include "train/dart.h"
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
#include "objective/objective.h"
#include "objective/surv_order.h"
#include "train/linear.h"
#include "train/bins.h"
#include "train/update.h"
#include "params/rank.h"
#include "util/util.h"

/* ---- booster life --------------------------------------------------------- */

static void drop_state(gbt_booster *b)
{
    struct gbt_train_state *ts = b->ts;
    if (ts == NULL) return;
    if (ts->ops && ts->ctx) ts->ops->close(ts->ctx);
    gbt__binned_release(ts->binned);
    free(ts->usable);
    gbt__constraints_free(&ts->cons);
    free(ts->hg);
    free(ts->hh);
    free(ts->hmargin);
    free(ts->cox_order);
    free(ts->dart_drop);
    free(ts->rank_bias);
    gbt__dist_free(ts->dist);
    gbt_dataset_free(ts->all);
    gbt__linear_cols_free(ts->lin);
    free(ts);
    b->ts = NULL;
}

void gbt__booster_drop_state(gbt_booster *b)
{
    drop_state(b);
}

void gbt__eval_cache_free(struct gbt_eval_cache *c)
{
    free(c->margin);
    gbt_dataset_free(c->all);
    c->margin = NULL;
    c->all = NULL;
    c->d = NULL;
}

void gbt__booster_eval_caches_free(gbt_booster *b)
{
    for (int i = 0; i < b->nevc; i++) gbt__eval_cache_free(&b->evc[i]);
    free(b->evc);
    b->evc = NULL;
    b->nevc = 0;
}

gbt_status gbt_booster_create(gbt_booster **out)
{
    gbt_booster *b;
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(gbt__alloc(&b, 1, sizeof *b, 1, "booster"));
    gbt__params_init(&b->params);
    b->model.best_iteration = -1;
    b->model.num_parallel_tree = 1;
    *out = b;
    return GBT_OK;
}

void gbt_booster_free(gbt_booster *b)
{
    if (b == NULL) return;
    drop_state(b);
    gbt__update_free(b);
    gbt__booster_eval_caches_free(b);
    gbt__model_free(&b->model);
    gbt__params_free(&b->params);
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
    if ((flags & GBT_PF_MODEL) && gbt__model_rounds(&b->model) > 0) {
        char before[64], after[64];
        gbt__params_get(&b->params, name, before, sizeof before);
        gbt__params_get(&p, name, after, sizeof after);
        RETURN_ERROR_IF(strcmp(before, after) != 0, GBT_E_STATE,
                        "cannot change '%s' from %s to %s: the booster already has %s", name, before,
                        after, b->model.linear ? "weights" : "trees");
    }
    /* process_type back to default: the trees not updated are dropped, as in XGBoost */
    if (p.process_type != GBT_PROCESS_UPDATE) gbt__update_free(b);
    b->params = p;
    if (flags & GBT_PF_REBUILD) drop_state(b);
    return GBT_OK;
}

gbt_status gbt_booster_get_param(const gbt_booster *b, const char *name, char *buf, size_t buflen)
{
    CHECK_NOT_NULL(b);
    return gbt__params_get(&b->params, name, buf, buflen);
}

gbt_status gbt_booster_num_rounds(const gbt_booster *b, int *out)
{
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(out);
    *out = gbt__model_rounds(&b->model);
    return GBT_OK;
}

int gbt__booster_threads(const gbt_booster *b)
{
    return gbt__threads(b->params.nthread);
}

/* ---- training set-up ---------------------------------------------------- */

static gbt_status check_growth(const struct gbt_params *p)
{
    RETURN_ERROR_IF(p->updater >= GBT_UPDATER_REFRESH, GBT_E_PARAM,
                    "updater=refresh and prune change the trees of a model, they grow none: set process_type=update "
                    "(and continue from a model) to use them");
    if (p->grow_policy == GBT_GROW_DEPTHWISE)
        RETURN_ERROR_IF(p->max_depth < 1, GBT_E_PARAM,
                        "grow_policy=depthwise needs max_depth >= 1 (max_depth=0 is for lossguide)");
    else
        RETURN_ERROR_IF(p->max_depth == 0 && p->max_leaves == 0, GBT_E_PARAM,
                        "grow_policy=lossguide needs max_leaves or max_depth");
    return GBT_OK;
}

gbt_status gbt__booster_check_base_margin(const gbt_dataset *d, int K)
{
    RETURN_ERROR_IF(d->base_margin && d->nbase_margin != d->nrow * (uint64_t)K, GBT_E_INVALID_ARG,
                    "base_margin has %llu values; the model needs %llu (rows x %d)",
                    (unsigned long long)d->nbase_margin, (unsigned long long)(d->nrow * (uint64_t)K), K);
    return GBT_OK;
}

/* scale_pos_weight where it applies (binary objectives), else 1. */
/* The data's feature names against the model's, unless validate_features=0. */
gbt_status gbt__booster_check_names(const gbt_booster *b, const gbt_dataset *d)
{
    if (!b->params.validate_features) return GBT_OK;
    return gbt__names_match(b->model.feature_names, b->model.nfeature_names, d->feature_names,
                            d->nfeature_names, d->source ? d->source : "the data");
}

gbt_status gbt__booster_init_model(gbt_booster *b, const gbt_dataset *train, const gbt_dataset *all)
{
    struct gbt_model *m = &b->model;
    const struct gbt_params *p = &b->params;
    const struct gbt_obj_param op = gbt__params_obj_param(p);
    const int T = gbt__dataset_targets(train); /* multi-target: one output per target */
    int K = T > 1 ? T : gbt__objective_groups((int)p->objective, (int)p->num_class, (int)p->num_quantile_alpha);
    double *base;
    gbt_status s;
    if (m->K != 0) {
        RETURN_ERROR_IF(gbt__model_targets(m) != T, GBT_E_STATE,
                        "the model was trained on %d label(s) per row; the training data has %d",
                        gbt__model_targets(m), T);
        RETURN_ERROR_IF(m->objective != p->objective || m->K != K, GBT_E_STATE,
                        "the model was trained with objective %s and %d output(s); the parameters now say %s",
                        gbt__objective_name(m->objective), m->K, gbt__objective_name((int)p->objective));
        RETURN_ERROR_IF(m->linear != (p->booster == GBT_BOOSTER_GBLINEAR), GBT_E_STATE,
                        "the model is a %s model; booster=%s cannot continue it", m->linear ? "linear" : "tree",
                        m->linear ? "gbtree" : "gblinear");
        RETURN_ERROR_IF(m->num_parallel_tree != p->num_parallel_tree || m->dart != (p->booster == GBT_BOOSTER_DART),
                        GBT_E_STATE, "the model is %s with %d parallel tree(s) per round; the parameters now say "
                        "booster=%s, num_parallel_tree=%lld", m->dart ? "dart" : "gbtree", m->num_parallel_tree,
                        p->booster == GBT_BOOSTER_DART ? "dart" : "gbtree", (long long)p->num_parallel_tree);
        FORWARD_IF_ERROR(gbt__booster_check_names(b, train));
        FORWARD_IF_ERROR(gbt__model_check_types(m, train->feature_types, train->feature_types ? train->ncol : 0,
                                                train->source ? train->source : "the training data"));
        if (train->feature_types && train->ncol > m->nfeature_types) {
            uint8_t *t = realloc(m->feature_types, train->ncol);
            RETURN_ERROR_IF(t == NULL, GBT_E_NO_MEMORY, "out of memory for feature types");
            memcpy(t, train->feature_types, train->ncol);
            m->feature_types = t;
            m->nfeature_types = train->ncol;
        }
        if (train->ncol > m->num_feature) m->num_feature = train->ncol;
        if (train->nfeature_names > m->nfeature_names) {
            char **names;
            FORWARD_IF_ERROR(gbt__names_copy(&names, (const char *const *)train->feature_names,
                                             train->nfeature_names));
            gbt__names_free(m->feature_names, m->nfeature_names);
            m->feature_names = names;
            m->nfeature_names = train->nfeature_names;
        }
        /* continued training: the file it continues on (data from memory leaves the record as it is) */
        if (train->layout.format != GBT_FILE_NONE) m->layout = train->layout;
        return GBT_OK;
    }
    FORWARD_IF_ERROR(gbt__alloc(&base, (size_t)K, sizeof *base, 0, "starting scores"));
    s = gbt__objective_base_margin((int)p->objective, K, p->base_score, (int)p->num_base_score, &op, all, base);
    /* held as XGBoost's float base_score holds them: exported models load back bit for bit */
    if (s == GBT_OK) gbt__xgboost_base_round((int)p->objective, K, base);
    if (s == GBT_OK)
        s = gbt__names_copy(&m->feature_names, (const char *const *)train->feature_names,
                            train->nfeature_names);
    if (s == GBT_OK && train->feature_types) {
        s = gbt__alloc(&m->feature_types, train->ncol, 1, 0, "feature types");
        if (s == GBT_OK) {
            memcpy(m->feature_types, train->feature_types, train->ncol);
            m->nfeature_types = train->ncol;
        }
    }
    if (s != GBT_OK) {
        free(base);
        return s;
    }
    m->nfeature_names = train->nfeature_names;
    m->K = K;
    m->objective = (int)p->objective;
    m->num_class = (int)p->num_class;
    m->num_target = T;
    m->num_parallel_tree = (int)p->num_parallel_tree;
    m->dart = p->booster == GBT_BOOSTER_DART;
    m->num_feature = train->ncol;
    m->index_base = train->index_base == GBT_BASE_ONE_GUESSED ? GBT_BASE_ONE : train->index_base;
    m->layout = train->layout;
    m->base = base;
    return GBT_OK;
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
    struct gbt_params q = *p;
    const unsigned char *a = (const unsigned char *)&q;
    const size_t n1 = offsetof(struct gbt_params, nthread);
    const size_t b2 = offsetof(struct gbt_params, eval_metric), n2 = offsetof(struct gbt_params, verbosity);
    const char *texts[2] = {p->monotone_constraints, p->interaction_constraints};
    /* the constraint texts by their contents, not their addresses */
    q.monotone_constraints = q.interaction_constraints = NULL;
    for (size_t i = 0; i < n1; i++) h = (h ^ a[i]) * 1099511628211ull;
    for (size_t i = b2; i < n2; i++) h = (h ^ a[i]) * 1099511628211ull;
    for (int t = 0; t < 2; t++)
        for (const char *c = texts[t] ? texts[t] : ""; ; c++) {
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
            if (!*c) break;
        }
    return h;
}

/* params_digest with the data's feature weights: every process must draw features alike. */
static uint64_t training_digest(const struct gbt_params *p, const gbt_dataset *train)
{
    uint64_t h = params_digest(p);
    const unsigned char *a = (const unsigned char *)train->feature_weights;
    for (size_t i = 0; a && i < train->ncol * sizeof(float); i++) h = (h ^ a[i]) * 1099511628211ull;
    return h;
}

/* The device parameter is "auto": a CUDA device that fails gives way to the CPU. */
int gbt__booster_device_auto(const char *device)
{
    int kind = -1;
    return gbt__device_parse(device, &kind, NULL) == GBT_OK && kind == GBT_DEVICE_AUTO;
}

gbt_status gbt__booster_build_state(gbt_booster *b, const gbt_dataset *train)
{
    const struct gbt_params *p = &b->params;
    struct gbt_model *m = &b->model;
    struct gbt_train_state *ts = NULL;
    struct gbt_train_plan plan;
    double *margin = NULL;
    uint32_t *group_ptr = NULL;
    uint64_t ngroups = 0;
    const int nt = gbt__booster_threads(b);
    gbt_status s;
    double t0 = gbt__now(), t_open;

    if (p->booster == GBT_BOOSTER_GBLINEAR) return gbt__linear_setup(b, train);
    drop_state(b);
    s = check_growth(p);
    gbt__dart_warn_unused(p);
    if (s == GBT_OK) s = gbt__objective_check((int)p->objective, (int)p->num_class, train);
    if (s == GBT_OK && train->nrow == 0) /* as XGBoost's "Empty dataset" warning */
        gbt__log((int)p->verbosity, GBT_LOG_WARNING,
                 "the training data has no rows: every tree is a single leaf of 0");
    if (s == GBT_OK && gbt_objective_is_ranking((int)p->objective))
        s = gbt__rank_check((int)p->objective, p, train);
    /* training on from trees over a dataset of bins: its starting scores need every threshold to be a cut */
    if (s == GBT_OK && m->ntrees > 0 && train->binned_only) s = gbt__booster_check_bins(b, train, 0, m->ntrees);
    if (s == GBT_OK) s = gbt__alloc(&ts, 1, sizeof *ts, 1, "training state");
    if (b->comm) {
        /* from here on, every failure is agreed on: the other processes stop too */
        struct gbt_dist *dd = NULL;
        s = gbt__dist_open(b->comm, s, train->nrow, train->ngroups, &dd);
        if (s == GBT_OK) {
            ts->dist = dd;
            s = gbt__dist_agree(dd, dist_refused(b));
        }
        if (s == GBT_OK) s = gbt__dist_check_same(ts->dist, train->ncol, training_digest(p, train));
        if (s == GBT_OK) s = gbt__dist_check_categories(ts->dist, train->category_names, train->ncol);
        if (s == GBT_OK) s = gbt__dist_gather_labels(ts->dist, train, &ts->all);
    }
    if (s == GBT_OK) s = gbt__booster_init_model(b, train, ts->all ? ts->all : train);
    if (s == GBT_OK) s = gbt__booster_check_base_margin(train, m->K);
    if (s == GBT_OK) {
        ts->data_generation = train->generation;
        s = gbt__device_resolve(p->device, (int)p->verbosity, &ts->ops, &ts->ordinal);
    }
    if (s == GBT_OK && ts->dist && ts->ordinal >= 0 && strchr(p->device, ':') == NULL) {
        /* device=cuda (or auto) without a number: the processes of one machine take its GPUs in turn */
        const int n = ts->ops->device_count();
        if (n > 0) ts->ordinal = b->comm->local_rank % n;
    }
    /*
     * distributed: the cuts depend on every process's rows, so the data is binned for this training only
     * (a dataset from batches: binned so when it was made over the processes)
     */
    if (ts && ts->dist) s = gbt__dist_agree(ts->dist, s);
    if (s == GBT_OK && ts->dist) {
        s = gbt__dist_binned(ts->dist, train, (int)p->max_bin, nt, (int)p->verbosity, ts->ops->stream_pages,
                             &ts->binned);
    } else if (s == GBT_OK && (s = gbt__binned_check_local(train)) == GBT_OK) {
        /* a device that bins (backend.h's quantize) bins there: the same bytes as the host's */
        struct gbt_binner by = {ts->ops->quantize, ts->ordinal, ts->ops->name, ts->ops->stream_pages};
        s = gbt__binned_get(train, (int)p->max_bin, nt, (int)p->verbosity, &by, &ts->binned);
        if (s != GBT_OK && by.quantize && gbt__booster_device_auto(p->device)) {
            /* as when opening fails below: device=auto goes on with the CPU, whose binning is the same */
            gbt__log((int)p->verbosity, GBT_LOG_WARNING,
                     "device=auto: cannot bin on %s:%d (%s); training on the CPU", by.name, ts->ordinal,
                     gbt_last_error());
            ts->ops = gbt__backend_cpu();
            ts->ordinal = -1;
            by = (struct gbt_binner){NULL, -1, ts->ops->name, ts->ops->stream_pages};
            s = gbt__binned_get(train, (int)p->max_bin, nt, (int)p->verbosity, &by, &ts->binned);
        }
    }
    if (s == GBT_OK) ts->qm = &ts->binned->qm;
    if (s == GBT_OK)
        s = gbt__constraints_resolve(p->monotone_constraints ? p->monotone_constraints : "",
                                     p->interaction_constraints ? p->interaction_constraints : "",
                                     ts->qm->cuts.nfeat,
                                     train->feature_names, train->nfeature_names, train->feature_weights,
                                     train->feature_weights ? train->ncol : 0, &ts->cons);
    for (uint32_t f = 0; s == GBT_OK && ts->cons.monotone && f < ts->qm->cuts.nfeat; f++) {
        /* categories have no order: a constraint on one would order the two sides of a split (docs/decisions.md) */
        char buf[32];
        if (ts->cons.monotone[f] != 0 && gbt__cuts_is_cat(&ts->qm->cuts, f))
            s = gbt__fail(GBT_E_PARAM,
                          "monotone_constraints: feature %u (%s) is categorical; monotone constraints apply to "
                          "numeric features only (give it 0)",
                          f, gbt__name_of(train->feature_names, train->nfeature_names, f, buf, sizeof buf));
    }
    if (s == GBT_OK) s = gbt__alloc(&ts->usable, ts->qm->cuts.nfeat + 1, 1, 0, "feature flags");
    if (s == GBT_OK) {
        for (uint32_t f = 0; f < ts->qm->cuts.nfeat; f++) ts->usable[f] = (uint8_t)gbt__feature_usable(&ts->qm->cuts, f);
        gbt__grow_limits((int)p->grow_policy, (int)p->max_depth, (int)p->max_leaves,
                         ts->dist ? ts->dist->nrow_total : train->nrow,
                         &ts->max_nodes, &ts->max_slots);
        {
            /* histogram_pool_size bounds the slots (and so the nodes of one batch) */
            const uint32_t pool = gbt__hist_pool_slots(p->histogram_pool_size, ts->qm->cuts.total_slots);
            if (pool < ts->max_slots) ts->max_slots = pool;
        }
        s = gbt__alloc(&margin, train->nrow * (uint64_t)m->K, sizeof *margin, 0, "margins");
    }
    if (s == GBT_OK && gbt_objective_is_ranking(m->objective))
        s = gbt__dataset_group_ptr(train, &group_ptr, &ngroups);
    t_open = gbt__now();
    if (s == GBT_OK) {
        gbt__model_start_margins(m, train, margin);
        s = gbt__booster_add_margins(b, train, 0, m->ntrees, nt, margin);
    }
    if (s == GBT_OK) {
        memset(&plan, 0, sizeof plan);
        plan.qm = ts->qm;
        plan.pages = ts->binned->pages;
        plan.label = train->label;
        plan.num_target = gbt__dataset_targets(train);
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
        /* interaction constraints come to the backends as feature masks */
        plan.no_column_sampling = !(p->colsample_bytree < 1.0 || p->colsample_bylevel < 1.0 ||
                                    p->colsample_bynode < 1.0) && ts->cons.sets == NULL;
        plan.monotone = ts->cons.monotone;
        s = ts->ops->open(ts->ordinal, &plan, &ts->ctx);
        if (s != GBT_OK && ts->ordinal >= 0 && gbt__booster_device_auto(p->device)) {
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
            ts->dist->total_slots = ts->qm->cuts.total_slots;
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
             b->device_used, (unsigned long long)train->nrow, ts->qm->cuts.nfeat,
             ts->qm->cuts.total_slots,
             ts->qm->layout == GBT_QM_CSR ? "sparse" : "dense", gbt__now() - t0);
    gbt__log((int)p->verbosity, GBT_LOG_DEBUG,
             "set-up: bin cuts and binned matrix %.3f s, starting scores and backend %.3f s; %d thread%s, "
             "at most %u nodes per tree, a histogram pool of %u slots (%.1f MB)", t_open - t0,
             gbt__now() - t_open, nt, nt == 1 ? "" : "s", ts->max_nodes, ts->max_slots,
             (double)ts->max_slots * ts->qm->cuts.total_slots * sizeof(struct gbt_hbin) / 1048576.0);
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
    cfg->sp.max_delta_step = gbt__params_max_delta_step(p);
    cfg->sp.min_child_weight = p->min_child_weight;
    cfg->sp.max_cat_to_onehot = (int32_t)p->max_cat_to_onehot;
    cfg->sp.max_cat_threshold = (int32_t)p->max_cat_threshold;
    cfg->sp.cat_smooth = p->cat_smooth;
    cfg->sp.cat_l2 = p->cat_l2;
    cfg->sp.min_data_per_group = p->min_data_per_group;
    cfg->colsample_bytree = p->colsample_bytree;
    cfg->colsample_bylevel = p->colsample_bylevel;
    cfg->colsample_bynode = p->colsample_bynode;
    cfg->seed = (uint64_t)p->seed;
    cfg->cuts = &b->ts->qm->cuts;
    cfg->usable = b->ts->usable;
    cfg->cons = &b->ts->cons;
    cfg->sp.monotone = b->ts->cons.monotone != NULL;
    cfg->max_nodes = b->ts->max_nodes;
    cfg->max_slots = b->ts->max_slots;
    cfg->stats = &b->ts->hist_stats;
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

/* The gradients of req into the backend: the caller's (grad, hess: row-major) or the objective's. */
static gbt_status round_gradients(gbt_booster *b, const gbt_dataset *train, const double *grad,
                                  const double *hess, const struct gbt_grad_request *req,
                                  struct gbt_class_sums *sums)
{
    const int K = b->model.K;
    if (grad) {
        const uint64_t n = train->nrow;
        FORWARD_IF_ERROR(host_buffers(b->ts, n * (uint64_t)K));
        for (uint64_t r = 0; r < n; r++) {
            const int in = gbt_row_sampled(req->seed, req->round, row_base(b) + r, req->subsample);
            for (int k = 0; k < K; k++) {
                b->ts->hg[(uint64_t)k * n + r] = in ? grad[r * (uint64_t)K + k] : 0.0;
                b->ts->hh[(uint64_t)k * n + r] = in ? hess[r * (uint64_t)K + k] : 0.0;
            }
        }
        return b->ts->ops->set_gradients(b->ts->ctx, b->ts->hg, b->ts->hh, NULL, sums);
    }
    if (gbt__objective_survival(b->model.objective)) return survival_gradients(b, train, req, sums);
    return b->ts->ops->gradients(b->ts->ctx, req, sums);
}

/*
 * lambdarank_unbiased: the round's request takes the position biases (1
 * while training starts) and room for each row's li and lj.
 */
static gbt_status rank_bias_request(gbt_booster *b, const gbt_dataset *train, struct gbt_grad_request *req)
{
    struct gbt_train_state *ts = b->ts;
    const uint32_t np = req->obj.rank_npos;
    if (ts->rank_bias == NULL || ts->rank_npos != np) {
        free(ts->rank_bias);
        ts->rank_bias = NULL;
        FORWARD_IF_ERROR(gbt__alloc(&ts->rank_bias, 2 * (size_t)np + 2 * train->nrow, sizeof(double), 0,
                                    "position biases"));
        ts->rank_npos = np;
        for (uint32_t i = 0; i < 2 * np; i++) ts->rank_bias[i] = 1.0;
    }
    req->rank_tplus = ts->rank_bias;
    req->rank_tminus = ts->rank_bias + np;
    req->rank_li = ts->rank_bias + 2 * (size_t)np;
    req->rank_lj = req->rank_li + train->nrow;
    return GBT_OK;
}

/*
 * lambdarank_unbiased after a round's gradients: each position's li and lj
 * summed over the queries (every process's) in fixed point, so that the sums
 * are exact and the same for any split of the data, then the new ti+ and tj-.
 */
static gbt_status rank_bias_update(gbt_booster *b, const gbt_dataset *train)
{
    struct gbt_train_state *ts = b->ts;
    const uint32_t np = ts->rank_npos;
    const double *li = ts->rank_bias + 2 * (size_t)np, *lj = li + train->nrow;
    double m[2] = {0.0, 0.0}, *sum = NULL;
    int64_t *q = NULL;
    uint64_t r = 0;
    int e[2];
    gbt_status s = gbt__alloc(&q, 2 * (size_t)np, sizeof *q, 1, "position bias sums");
    if (s == GBT_OK) s = gbt__alloc(&sum, 2 * (size_t)np, sizeof *sum, 0, "position bias sums");
    for (uint64_t g = 0; g < train->ngroups && s == GBT_OK; r += train->groups[g], g++)
        for (uint32_t i = 0; i < train->groups[g] && i < np; i++) {
            m[0] = fabs(li[r + i]) > m[0] ? fabs(li[r + i]) : m[0];
            m[1] = fabs(lj[r + i]) > m[1] ? fabs(lj[r + i]) : m[1];
        }
    if (s == GBT_OK && ts->dist) s = gbt__dist_max_sum(ts->dist, m, 2, NULL, 0);
    e[0] = gbt_quant_exponent(m[0]);
    e[1] = gbt_quant_exponent(m[1]);
    r = 0;
    for (uint64_t g = 0; g < train->ngroups && s == GBT_OK; r += train->groups[g], g++)
        for (uint32_t i = 0; i < train->groups[g] && i < np; i++) {
            q[i] += gbt_quantize(li[r + i], e[0]);
            q[np + i] += gbt_quantize(lj[r + i], e[1]);
        }
    if (s == GBT_OK && ts->dist) s = gbt__dist_max_sum(ts->dist, NULL, 0, q, 2 * (size_t)np);
    for (uint32_t i = 0; i < np && s == GBT_OK; i++) {
        sum[i] = gbt_dequantize(q[i], e[0]);
        sum[np + i] = gbt_dequantize(q[np + i], e[1]);
    }
    if (s == GBT_OK)
        gbt_rank_bias_update(sum, sum + np, np, 1.0 / (1.0 + b->params.lambdarank_bias_norm), ts->rank_bias,
                             ts->rank_bias + np);
    free(q);
    free(sum);
    return s;
}

/*
 * One round: the gradients, then num_parallel_tree (P) trees per class, each with eta / P (XGBoost's
 * share), stored parallel index first (model.h), sharing the gradients; with subsample < 1 tree p draws
 * its rows with the key round * P + p (the round when P is 1) and fits the gradients of the round's
 * starting margins, given back to the backend for that; the margins take the trees one after another.
 */
static gbt_status boost_round(gbt_booster *b, const gbt_dataset *train, const double *grad,
                              const double *hess)
{
    struct gbt_grow_config cfg;
    struct gbt_class_sums *sums = NULL;
    double *start = NULL, *cur = NULL;
    struct gbt_grad_request req;
    struct gbt_leaf_refit refit;
    const uint32_t before = b->model.ntrees;
    const int P = b->model.num_parallel_tree, K = b->model.K, round = gbt__model_rounds(&b->model);
    const int sampled = P > 1 && b->params.subsample < 1.0;
    const uint64_t len = train->nrow * (uint64_t)K;
    gbt_status s;
    if (b->params.booster == GBT_BOOSTER_GBLINEAR) return gbt__linear_round(b, train, grad, hess);
    grow_config(b, &cfg);
    cfg.eta /= (double)P;
    cfg.rows = (double)(b->ts->dist ? b->ts->dist->nrow_total : train->nrow) * b->params.subsample;
    memset(&b->ts->hist_stats, 0, sizeof b->ts->hist_stats);
    req.round = round;
    req.seed = (uint64_t)b->params.seed;
    req.subsample = b->params.subsample;
    req.obj = gbt__params_obj_param(&b->params);
    req.row_base = req.group_base = 0; /* the distributed backend numbers its rows itself */
    req.max_hook = NULL;
    req.rank_tplus = req.rank_tminus = NULL;
    req.rank_li = req.rank_lj = NULL;
    /* the built-in objective's refit; a custom objective's leaves stay its Newton steps */
    if (grad == NULL && gbt_objective_refits_leaves(b->model.objective)) {
        refit.alpha = req.obj.alpha;
        refit.label = train->label;
        refit.T = gbt__dataset_targets(train);
        refit.weight = train->weight;
        refit.weighted = (b->ts->all ? b->ts->all->weight : train->weight) != NULL;
        refit.row_base = row_base(b);
        refit.gather = b->ts->dist ? gbt__dist_gather_leaves : NULL;
        refit.gather_user = b->ts->dist;
        refit.nrow = train->nrow;
        refit.K = K;
        refit.nthread = gbt__booster_threads(b);
        refit.seed = req.seed;
        refit.round = req.round;
        refit.subsample = req.subsample;
        refit.margin = NULL;
        cfg.refit = &refit;
    }
    if (gbt_objective_is_ranking(b->model.objective))
        gbt__rank_obj_param(&b->params, b->ts->all ? b->ts->all : train, &req.obj);
    s = gbt__alloc(&sums, (size_t)K, sizeof *sums, 0, "class sums");
    if (s == GBT_OK && req.obj.rank_npos && grad == NULL) s = rank_bias_request(b, train, &req);
    else req.obj.rank_npos = 0;
    /* the round's starting margins: parallel trees refit against them, and fit their gradients */
    if (s == GBT_OK && P > 1 && (cfg.refit || sampled)) {
        s = gbt__alloc(&start, len ? len : 1, sizeof *start, 0, "the round's margins");
        if (s == GBT_OK) s = b->ts->ops->read_margins(b->ts->ctx, start);
        refit.margin = start;
    }
    if (s == GBT_OK && sampled) s = gbt__alloc(&cur, len ? len : 1, sizeof *cur, 0, "the round's margins");
    for (int p = 0; p < P && s == GBT_OK; p++) {
        if (p == 0 || sampled) {
            req.round = sampled ? round * P + p : round;
            refit.round = req.round;
            if (p > 0) s = b->ts->ops->write_margins(b->ts->ctx, start);
            if (s == GBT_OK) s = round_gradients(b, train, grad, hess, &req, sums);
            if (s == GBT_OK && p > 0) s = b->ts->ops->write_margins(b->ts->ctx, cur);
        }
        for (int k = 0; k < K && s == GBT_OK; k++) {
            struct gbt_tree tree;
            cfg.tree_index = ((uint64_t)round * (uint64_t)P + (uint64_t)p) * (uint64_t)K + (uint64_t)k;
            s = gbt__grow_tree(b->ts->ops, b->ts->ctx, &cfg, k, &sums[k], &tree);
            if (s == GBT_OK) {
                s = gbt__model_add_tree(&b->model, &tree, 1.0f);
                if (s != GBT_OK) gbt__tree_free(&tree);
            }
        }
        if (s == GBT_OK && sampled && p + 1 < P) s = b->ts->ops->read_margins(b->ts->ctx, cur);
    }
    if (s == GBT_OK && req.obj.rank_npos) s = rank_bias_update(b, train);
    free(sums);
    free(start);
    free(cur);
    if (s == GBT_OK) s = gbt__dart_finish(b, before);
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
    RETURN_ERROR_IF(b->params.scale_pos_weight != 1.0 && gbt__params_scale_pos(&b->params) == 1.0, GBT_E_PARAM,
                    "scale_pos_weight applies to binary:logistic and binary:logitraw, not to %s",
                    gbt__objective_name((int)b->params.objective));
    if (b->ts == NULL || b->ts->data_generation != train->generation)
        FORWARD_IF_ERROR(gbt__booster_build_state(b, train));
    return gbt__dart_prepare(b, train);
}

gbt_status gbt__booster_ready_update(gbt_booster *b, const gbt_dataset *train, int custom, int rounds)
{
    FORWARD_IF_ERROR(gbt__update_check(b, train, custom || b->obj_fn != NULL));
    if (b->model.K != 0) { /* without a model, gbt__update_begin says so */
        FORWARD_IF_ERROR(gbt__booster_init_model(b, train, train));
        FORWARD_IF_ERROR(gbt__booster_check_base_margin(train, b->model.K));
    }
    return gbt__update_begin(b, rounds);
}

/* ready_to_train, or with process_type=update gbt__booster_ready_update. */
static gbt_status ready(gbt_booster *b, const gbt_dataset *train, int custom)
{
    if (b->params.process_type != GBT_PROCESS_UPDATE) return ready_to_train(b, train);
    return gbt__booster_ready_update(b, train, custom, -1);
}

/* One round from the objective callback's gradients (gbt_booster_set_objective_callback). */
static gbt_status callback_round(gbt_booster *b, const gbt_dataset *train)
{
    const uint64_t len = train->nrow * (uint64_t)b->model.K;
    double *m = NULL, *g = NULL, *h = NULL;
    gbt_status s = gbt__alloc(&m, len ? len : 1, sizeof *m, 0, "training margins");
    if (s == GBT_OK) s = gbt__alloc(&g, len ? len : 1, sizeof *g, 0, "gradients");
    if (s == GBT_OK) s = gbt__alloc(&h, len ? len : 1, sizeof *h, 0, "hessians");
    if (s == GBT_OK) s = gbt_booster_train_margins(b, train, m, len);
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
    FORWARD_IF_ERROR(ready(b, train, 0));
    if (b->obj_fn) return callback_round(b, train);
    if (b->params.process_type == GBT_PROCESS_UPDATE) return gbt__update_round(b, train, NULL, NULL);
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
    FORWARD_IF_ERROR(ready(b, train, 0));
    RETURN_ERROR_IF(len != train->nrow * (uint64_t)b->model.K, GBT_E_INVALID_ARG,
                    "the output holds %llu doubles; the margins are %llu (rows x %d)",
                    (unsigned long long)len, (unsigned long long)(train->nrow * (uint64_t)b->model.K),
                    b->model.K);
    if (b->params.process_type == GBT_PROCESS_UPDATE) return gbt__update_margins(b, train, out);
    if (b->params.booster == GBT_BOOSTER_GBLINEAR) return gbt__linear_train_margins(b, train, out);
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
    FORWARD_IF_ERROR(ready(b, train, 1));
    need = train->nrow * (uint64_t)b->model.K;
    RETURN_ERROR_IF(len != need, GBT_E_INVALID_ARG,
                    "%llu gradients given; the training data needs %llu (rows x %d outputs)",
                    (unsigned long long)len, (unsigned long long)need, b->model.K);
    for (uint64_t i = 0; i < len; i++)
        RETURN_ERROR_IF(!isfinite(grad[i]) || !isfinite(hess[i]), GBT_E_INVALID_ARG,
                        "row %llu, output %d: the %s %g is not finite",
                        (unsigned long long)(i / (uint64_t)b->model.K), (int)(i % (uint64_t)b->model.K),
                        isfinite(grad[i]) ? "hessian" : "gradient", isfinite(grad[i]) ? hess[i] : grad[i]);
    if (b->params.process_type == GBT_PROCESS_UPDATE) return gbt__update_round(b, train, grad, hess);
    return boost_round(b, train, grad, hess);
}
