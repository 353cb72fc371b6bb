/*
 * linear.c - booster=gblinear: XGBoost's linear booster, trained by
 * coordinate descent on the raw feature values.
 *
 * Each round takes the objective's gradients at the current raw scores
 * (model/linear.c; every objective, ranking per query group and survival
 * as the tree training computes them), in float as XGBoost keeps them, then
 *   1. each output's bias moves by eta * -G / H (G, H: the sums of the
 *      gradients and hessians of rows with h >= 0), and the gradients
 *      follow (g += h * dbias);
 *   2. the features, in the order feature_selector gives, each move by
 *      eta * delta with delta the elastic-net Newton step of
 *      G = sum g x, H = sum h x^2 (floats summed in double):
 *        H < 1e-5: 0;  otherwise with G' = G + lambda w, H' = H + lambda,
 *        w - G'/H' >= 0: max(-(G' + alpha) / H', -w),  else min(-(G' - alpha) / H', -w)
 *      (a step never crosses 0), lambda and alpha multiplied by the sum of
 *      the row weights (the row count without weights), and the
 *      gradients follow: g += h * x * dw.
 * updater=coord_descent runs the outputs outer and the features inner,
 * updater=shotgun (XGBoost's default) the features outer and the outputs
 * inner, skipping a zero step.  XGBoost's shotgun updates features in
 * parallel threads racing on the gradients; gbt runs that loop in order,
 * which is XGBoost's result with nthread=1, so the model never depends on
 * the thread count.  A missing value counts as 0 (it is left out of the
 * column, as from XGBoost's sparse columns).  The data must hold its raw
 * values: a dataset kept as bins only is refused.  Training runs on the
 * CPU: device=cuda is refused, device=auto goes on on the CPU with a note.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grad_math.h"
#include "common/rank_math.h"
#include "common/rng.h"
#include "model/linear.h"
#include "common/surv_math.h"
#include "objective/objective.h"
#include "objective/surv_order.h"
#include "params/rank.h"
#include "train/booster.h"
#include "train/linear.h"
#include "util/util.h"

/* The training data by column: the rows and values present in column f at ptr[f] .. ptr[f + 1]. */
struct gbt_linear_cols {
    uint64_t *ptr;
    uint32_t *row;
    float *val;
    double sum_weight; /* the row weights' sum (the row count without weights, or when it is 0) */
};

void gbt__linear_cols_free(struct gbt_linear_cols *c)
{
    if (c == NULL) return;
    free(c->ptr);
    free(c->row);
    free(c->val);
    free(c);
}

/* Whether the dataset's value x is present (not NaN, not its missing marker). */
static int present(const struct gbt_dview *v, float x)
{
    return !isnan(x) && !(v->dense && x == v->missing);
}

static gbt_status build_cols(const gbt_dataset *d, uint64_t nf, struct gbt_linear_cols **out)
{
    struct gbt_dview v;
    struct gbt_linear_cols *c;
    uint64_t *fill = NULL;
    gbt_status s;
    gbt__dataset_view(d, &v);
    FORWARD_IF_ERROR(gbt__alloc(&c, 1, sizeof *c, 1, "linear columns"));
    s = gbt__alloc(&c->ptr, nf + 1, sizeof *c->ptr, 1, "linear columns");
    if (s == GBT_OK) s = gbt__alloc(&fill, nf + 1, sizeof *fill, 1, "linear columns");
    for (uint64_t r = 0; s == GBT_OK && r < v.nrow; r++) {
        if (v.dense) {
            for (uint64_t f = 0; f < v.ncol && f < nf; f++)
                if (present(&v, v.dense[r * v.ncol + f])) c->ptr[f + 1]++;
        } else {
            for (uint64_t j = v.indptr[r]; j < v.indptr[r + 1]; j++)
                if (v.indices[j] < nf && present(&v, v.values[j])) c->ptr[v.indices[j] + 1]++;
        }
    }
    for (uint64_t f = 0; s == GBT_OK && f < nf; f++) c->ptr[f + 1] += c->ptr[f];
    if (s == GBT_OK) s = gbt__alloc(&c->row, c->ptr[nf] + 1, sizeof *c->row, 0, "linear columns");
    if (s == GBT_OK) s = gbt__alloc(&c->val, c->ptr[nf] + 1, sizeof *c->val, 0, "linear columns");
    if (s == GBT_OK) memcpy(fill, c->ptr, (nf + 1) * sizeof *fill);
    for (uint64_t r = 0; s == GBT_OK && r < v.nrow; r++) {
        if (v.dense) {
            for (uint64_t f = 0; f < v.ncol && f < nf; f++) {
                const float x = v.dense[r * v.ncol + f];
                if (!present(&v, x)) continue;
                c->row[fill[f]] = (uint32_t)r;
                c->val[fill[f]++] = x;
            }
        } else {
            for (uint64_t j = v.indptr[r]; j < v.indptr[r + 1]; j++) {
                const uint64_t f = v.indices[j];
                if (f >= nf || !present(&v, v.values[j])) continue;
                c->row[fill[f]] = (uint32_t)r;
                c->val[fill[f]++] = v.values[j];
            }
        }
    }
    c->sum_weight = 0.0;
    for (uint64_t r = 0; d->weight && r < d->nrow; r++) c->sum_weight += (double)d->weight[r];
    if (c->sum_weight == 0.0) c->sum_weight = (double)d->nrow;
    free(fill);
    if (s != GBT_OK) {
        gbt__linear_cols_free(c);
        return s;
    }
    *out = c;
    return GBT_OK;
}

/* The weights of a model continued on data with more features: the new ones 0, the biases kept. */
static gbt_status fit_weights(struct gbt_model *m, uint64_t had)
{
    const uint64_t K = (uint64_t)m->K;
    float *w;
    if (m->weights == NULL) return gbt__model_linear_init(m);
    if (had == m->num_feature) return GBT_OK;
    FORWARD_IF_ERROR(gbt__alloc(&w, (m->num_feature + 1) * K, sizeof *w, 1, "linear weights"));
    memcpy(w, m->weights, had * K * sizeof *w);
    memcpy(w + m->num_feature * K, m->weights + had * K, K * sizeof *w);
    free(m->weights);
    m->weights = w;
    return GBT_OK;
}

/* What booster=gblinear cannot train, with the reason. */
static gbt_status check_linear(const gbt_booster *b, const gbt_dataset *train)
{
    const struct gbt_params *p = &b->params;
    int kind = GBT_DEVICE_AUTO;
    RETURN_ERROR_IF(b->comm != NULL, GBT_E_PARAM,
                    "booster=gblinear does not train distributed (MPI): train it in one process");
    RETURN_ERROR_IF(p->updater > GBT_LINEAR_COORD_DESCENT || p->process_type == GBT_PROCESS_UPDATE, GBT_E_PARAM,
                    "booster=gblinear takes updater=shotgun or coord_descent and process_type=default; "
                    "updater=refresh and prune with process_type=update change the trees of booster=gbtree");
    RETURN_ERROR_IF(p->updater == GBT_LINEAR_SHOTGUN && p->feature_selector >= GBT_SELECT_RANDOM,
                    GBT_E_PARAM,
                    "updater=shotgun supports feature_selector cyclic and shuffle (as in XGBoost); "
                    "use updater=coord_descent for random, greedy or thrifty");
    RETURN_ERROR_IF(p->lambdarank_unbiased, GBT_E_PARAM,
                    "lambdarank_unbiased (position-bias estimation) is built for booster=gbtree and dart, "
                    "not gblinear");
    FORWARD_IF_ERROR(gbt__device_parse(p->device, &kind, NULL));
    RETURN_ERROR_IF(kind == GBT_DEVICE_CUDA, GBT_E_PARAM,
                    "booster=gblinear trains on the CPU only: set device=cpu (or auto, which trains "
                    "it on the CPU)");
    return gbt__dataset_need_values(train, "booster=gblinear (it fits the raw feature values, "
                                           "which a dataset kept as bins no longer has)");
}

gbt_status gbt__linear_setup(gbt_booster *b, const gbt_dataset *train)
{
    struct gbt_model *m = &b->model;
    const uint64_t had = m->num_feature;
    struct gbt_train_state *ts = NULL;
    const struct gbt_backend_ops *ops;
    int ordinal = -1;
    gbt_status s;
    gbt__booster_drop_state(b);
    FORWARD_IF_ERROR(check_linear(b, train));
    FORWARD_IF_ERROR(gbt__objective_check((int)b->params.objective, (int)b->params.num_class, train));
    if (gbt_objective_is_ranking((int)b->params.objective))
        FORWARD_IF_ERROR(gbt__rank_check((int)b->params.objective, &b->params, train));
    FORWARD_IF_ERROR(gbt__booster_init_model(b, train, train));
    FORWARD_IF_ERROR(gbt__booster_check_base_margin(train, m->K));
    FORWARD_IF_ERROR(fit_weights(m, had));
    if (gbt__booster_device_auto(b->params.device) && gbt__device_resolve("auto", 0, &ops, &ordinal) == GBT_OK &&
        ordinal >= 0)
        gbt__log((int)b->params.verbosity, GBT_LOG_INFO,
                 "device=auto: booster=gblinear trains on the CPU (it has no CUDA implementation)");
    FORWARD_IF_ERROR(gbt__alloc(&ts, 1, sizeof *ts, 1, "training state"));
    s = build_cols(train, m->num_feature, &ts->lin);
    if (s == GBT_OK) s = gbt__alloc(&ts->hg, train->nrow * (uint64_t)m->K + 1, sizeof(double), 0, "gradients");
    if (s == GBT_OK) s = gbt__alloc(&ts->hh, train->nrow * (uint64_t)m->K + 1, sizeof(double), 0, "hessians");
    if (s == GBT_OK) s = gbt__alloc(&ts->hmargin, train->nrow * (uint64_t)m->K + 1, sizeof(double), 0, "margins");
    ts->data_generation = train->generation;
    b->ts = ts;
    if (s != GBT_OK) {
        gbt__booster_drop_state(b);
        return s;
    }
    snprintf(b->device_used, sizeof b->device_used, "cpu");
    return GBT_OK;
}

gbt_status gbt__linear_train_margins(const gbt_booster *b, const gbt_dataset *train, double *out)
{
    struct gbt_dview v;
    gbt__dataset_view(train, &v);
    gbt__linear_margins(&b->model, &v, gbt__booster_threads(b), out);
    return GBT_OK;
}

/* ---- one round ------------------------------------------------------------ */

struct round {
    const struct gbt_linear_cols *c;
    float *g, *h;   /* nrow * K, row-major, XGBoost's float gradient pairs */
    float *w;       /* the model's weights */
    uint64_t nf;
    int K;
    double eta, alpha, lambda; /* alpha and lambda times the weight sum */
};

static double coordinate_delta(double G, double H, double w, double alpha, double lambda)
{
    double g2, h2;
    if (H < 1e-5f) return 0.0;
    g2 = G + lambda * w;
    h2 = H + lambda;
    if (w - g2 / h2 >= 0.0) return fmax(-(g2 + alpha) / h2, -w);
    return fmin(-(g2 - alpha) / h2, -w);
}

/* Feature f's sums of g x and h x^2 over output k's rows with h >= 0. */
static void feature_sums(const struct round *R, uint64_t f, int k, double *G, double *H)
{
    double sg = 0.0, sh = 0.0;
    for (uint64_t j = R->c->ptr[f]; j < R->c->ptr[f + 1]; j++) {
        const uint64_t i = (uint64_t)R->c->row[j] * (uint64_t)R->K + (uint64_t)k;
        const float x = R->c->val[j];
        if (R->h[i] < 0.0f) continue;
        sg += (double)(R->g[i] * x);
        sh += (double)(R->h[i] * x * x);
    }
    *G = sg;
    *H = sh;
}

/* The step of feature f for output k; returns it (0: nothing changed). */
static float update_feature(struct round *R, uint64_t f, int k)
{
    double G, H;
    float *w = &R->w[f * (uint64_t)R->K + (uint64_t)k], dw;
    feature_sums(R, f, k, &G, &H);
    dw = (float)(R->eta * coordinate_delta(G, H, (double)*w, R->alpha, R->lambda));
    if (dw == 0.0f) return 0.0f;
    *w += dw;
    for (uint64_t j = R->c->ptr[f]; j < R->c->ptr[f + 1]; j++) {
        const uint64_t i = (uint64_t)R->c->row[j] * (uint64_t)R->K + (uint64_t)k;
        if (R->h[i] < 0.0f) continue;
        R->g[i] += R->h[i] * R->c->val[j] * dw;
    }
    return dw;
}

static void update_bias(struct round *R, uint64_t nrow, int k)
{
    const uint64_t K = (uint64_t)R->K;
    double sg = 0.0, sh = 0.0;
    float db;
    for (uint64_t r = 0; r < nrow; r++) {
        if (R->h[r * K + (uint64_t)k] < 0.0f) continue;
        sg += (double)R->g[r * K + (uint64_t)k];
        sh += (double)R->h[r * K + (uint64_t)k];
    }
    db = sh > 0.0 ? (float)(R->eta * (-sg / sh)) : 0.0f;
    R->w[R->nf * K + (uint64_t)k] += db;
    for (uint64_t r = 0; r < nrow; r++)
        if (R->h[r * K + (uint64_t)k] >= 0.0f) R->g[r * K + (uint64_t)k] += R->h[r * K + (uint64_t)k] * db;
}

/* A feature and its step, for thrifty's order: decreasing |step|, ties lower index first. */
struct keyed {
    double step;
    uint32_t f;
};

static int by_step(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    const double u = fabs(x->step), v = fabs(y->step);
    return u > v ? -1 : u < v ? 1 : (x->f > y->f) - (x->f < y->f);
}

/* Output k's steps of every feature at the current gradients into step[]. */
static void all_steps(const struct round *R, int k, double *step)
{
    for (uint64_t f = 0; f < R->nf; f++) {
        double G, H;
        feature_sums(R, f, k, &G, &H);
        step[f] = coordinate_delta(G, H, (double)R->w[f * (uint64_t)R->K + (uint64_t)k], R->alpha, R->lambda);
    }
}

/* The features of the round in the order of the selector (order: nf, or nf * K for thrifty). */
static gbt_status order_features(const struct gbt_params *p, const struct round *R, int round, uint32_t *order,
                                 double *step)
{
    const uint64_t nf = R->nf;
    for (int k = 0; k < (p->feature_selector == GBT_SELECT_THRIFTY ? R->K : 1); k++) {
        uint32_t *o = order + (uint64_t)k * nf;
        for (uint64_t f = 0; f < nf; f++) o[f] = (uint32_t)f;
        if (p->feature_selector == GBT_SELECT_SHUFFLE) {
            /* Fisher-Yates from the counter-based draws of (seed, round, position) */
            for (uint64_t i = nf; i > 1; i--) {
                const uint64_t j = gbt_draw((uint64_t)p->seed, GBT_RNG_LINEAR_ORDER, (uint64_t)round, i - 1) % i;
                const uint32_t t = o[i - 1];
                o[i - 1] = o[j];
                o[j] = t;
            }
        } else if (p->feature_selector == GBT_SELECT_THRIFTY) {
            struct keyed *ks;
            FORWARD_IF_ERROR(gbt__alloc(&ks, nf + 1, sizeof *ks, 0, "feature order"));
            all_steps(R, k, step);
            for (uint64_t f = 0; f < nf; f++) {
                ks[f].step = step[f];
                ks[f].f = (uint32_t)f;
            }
            qsort(ks, nf, sizeof *ks, by_step);
            for (uint64_t f = 0; f < nf; f++) o[f] = ks[f].f;
            free(ks);
        }
    }
    return GBT_OK;
}

/* Output k's i-th feature of the round (-1: none more), as XGBoost's selectors choose them. */
static int64_t next_feature(const struct gbt_params *p, struct round *R, int round, const uint32_t *order,
                            double *step, int k, uint64_t i)
{
    const uint64_t top = p->top_k > 0 ? (uint64_t)p->top_k : UINT64_MAX;
    switch (p->feature_selector) {
    case GBT_SELECT_RANDOM:
        return (int64_t)(gbt_draw((uint64_t)p->seed, GBT_RNG_LINEAR_PICK,
                                  ((uint64_t)round << 32) + (uint64_t)k, i) % R->nf);
    case GBT_SELECT_GREEDY: {
        uint64_t best = 0;
        float best_step = 0.0f;
        /* as XGBoost: top_k features, and never all of them */
        if (i >= top || i + 1 == R->nf) return -1;
        all_steps(R, k, step);
        for (uint64_t f = 0; f < R->nf; f++) {
            const float a = fabsf((float)step[f]);
            if (a > best_step) {
                best_step = a;
                best = f;
            }
        }
        return (int64_t)best;
    }
    case GBT_SELECT_THRIFTY:
        if (i >= top || i + 1 == R->nf) return -1;
        return order[(uint64_t)k * R->nf + i];
    default:
        return order[i];
    }
}

/*
 * The ranking objectives' gradients (one output): each query group's, as
 * the CPU backend computes them (common/rank_math.h), pairs drawn with
 * (seed, round).
 */
static gbt_status rank_gradients(gbt_booster *b, const gbt_dataset *train, double *g, double *h)
{
    const uint64_t n = train->nrow;
    struct gbt_obj_param op = gbt__params_obj_param(&b->params);
    uint32_t *gp = NULL, *idx = NULL;
    double *stat = NULL;
    uint64_t ng = 0;
    gbt_status s = gbt__dataset_group_ptr(train, &gp, &ng);
    if (s == GBT_OK) s = gbt__alloc(&idx, 3 * n + 1, sizeof *idx, 0, "ranking scratch");
    if (s == GBT_OK) s = gbt__alloc(&stat, 2 * n + 1, sizeof *stat, 0, "ranking scratch");
    if (s == GBT_OK) gbt__rank_obj_param(&b->params, train, &op);
    for (uint64_t q = 0; s == GBT_OK && q < ng; q++) {
        const uint32_t r0 = gp[q], cnt = gp[q + 1] - r0;
        const double w = (train->weight ? (double)train->weight[r0] : 1.0) * op.rank_wnorm;
        struct gbt_rank_scratch sc = {idx + r0, idx + n + r0, idx + 2 * n + r0, stat + r0, stat + n + r0};
        gbt_rank_group_gradients(b->model.objective, &op, (uint64_t)b->params.seed, b->model.linear_rounds, q, cnt,
                                 b->ts->hmargin + r0, train->label + r0, w, &sc, NULL, g + r0, h + r0);
    }
    free(gp);
    free(idx);
    free(stat);
    return s;
}

/* The survival objectives' gradients (one output), as the tree training's (common/surv_math.h). */
static gbt_status survival_gradients(gbt_booster *b, const gbt_dataset *train, double *g, double *h)
{
    struct gbt_train_state *ts = b->ts;
    const uint64_t n = train->nrow;
    const float *lo, *hi;
    if (b->model.objective == GBT_OBJ_SURVIVAL_COX) {
        if (ts->cox_order == NULL) FORWARD_IF_ERROR(gbt__surv_order(train->label, n, &ts->cox_order));
        gbt_cox_gradients(n, ts->cox_order, ts->hmargin, train->label, train->weight, g, h);
        return GBT_OK;
    }
    FORWARD_IF_ERROR(gbt__objective_aft_bounds(train, &lo, &hi));
    for (uint64_t r = 0; r < n; r++) {
        const double w = train->weight ? (double)train->weight[r] : 1.0;
        gbt_aft_gradient((int)b->params.aft_loss_distribution, b->params.aft_loss_distribution_scale,
                         (double)lo[r], (double)hi[r], ts->hmargin[r], &g[r], &h[r]);
        g[r] *= w;
        h[r] *= w;
    }
    return GBT_OK;
}

/* g, h (nrow * K, row-major) := the round's gradients: the caller's, else the objective's. */
static gbt_status round_gradients(gbt_booster *b, const gbt_dataset *train, const double *grad,
                                  const double *hess, float *g, float *h)
{
    struct gbt_train_state *ts = b->ts;
    const struct gbt_obj_param op = gbt__params_obj_param(&b->params);
    const int K = b->model.K, obj = b->model.objective, T = gbt__dataset_targets(train);
    const uint64_t len = train->nrow * (uint64_t)K;
    if (grad == NULL) {
        FORWARD_IF_ERROR(gbt__linear_train_margins(b, train, ts->hmargin));
        if (gbt_objective_is_ranking(obj))
            FORWARD_IF_ERROR(rank_gradients(b, train, ts->hg, ts->hh));
        else if (gbt__objective_survival(obj))
            FORWARD_IF_ERROR(survival_gradients(b, train, ts->hg, ts->hh));
        for (uint64_t r = 0; r < train->nrow && !gbt_objective_is_ranking(obj) && !gbt__objective_survival(obj); r++) {
            const double rw = train->weight ? train->weight[r] : 1.0;
            if (T > 1) { /* multi-target: output k fits label k of the row */
                gbt_target_gradients(obj, &op, T, ts->hmargin + r * (uint64_t)K, 1, train->label + r * (uint64_t)T, rw,
                                     ts->hg + r * (uint64_t)K, ts->hh + r * (uint64_t)K, 1);
                continue;
            }
            gbt_row_gradients(obj, &op, K, ts->hmargin + r * (uint64_t)K, 1, train->label[r],
                              gbt_row_weight(train->label[r], rw, op.scale_pos), ts->hg + r * (uint64_t)K,
                              ts->hh + r * (uint64_t)K, 1);
        }
        grad = ts->hg;
        hess = ts->hh;
    }
    for (uint64_t i = 0; i < len; i++) {
        RETURN_ERROR_IF(!isfinite(grad[i]) || !isfinite(hess[i]), GBT_E_INVALID_ARG,
                        "%s: the gradient of row %llu is not finite (the scores overflow exp; a "
                        "smaller eta keeps them in range)", gbt__objective_name(obj),
                        (unsigned long long)(i / (uint64_t)K));
        g[i] = (float)grad[i];
        h[i] = (float)hess[i];
    }
    return GBT_OK;
}

gbt_status gbt__linear_round(gbt_booster *b, const gbt_dataset *train, const double *grad, const double *hess)
{
    const struct gbt_params *p = &b->params;
    struct gbt_model *m = &b->model;
    const uint64_t n = train->nrow, nf = m->num_feature, len = n * (uint64_t)m->K;
    const int K = m->K, round = m->linear_rounds;
    const int shotgun = p->updater == GBT_LINEAR_SHOTGUN;
    struct round R;
    uint32_t *order = NULL;
    double *step = NULL;
    gbt_status s;
    memset(&R, 0, sizeof R);
    s = gbt__alloc(&R.g, len + 1, sizeof *R.g, 0, "gradients");
    if (s == GBT_OK) s = gbt__alloc(&R.h, len + 1, sizeof *R.h, 0, "hessians");
    if (s == GBT_OK) s = gbt__alloc(&order, nf * (uint64_t)K + 1, sizeof *order, 0, "feature order");
    if (s == GBT_OK) s = gbt__alloc(&step, nf + 1, sizeof *step, 0, "feature steps");
    if (s == GBT_OK) s = round_gradients(b, train, grad, hess, R.g, R.h);
    if (s == GBT_OK) {
        R.c = b->ts->lin;
        R.w = m->weights;
        R.nf = nf;
        R.K = K;
        R.eta = p->eta;
        R.alpha = p->alpha * R.c->sum_weight;
        R.lambda = p->lambda * R.c->sum_weight;
        for (int k = 0; k < K; k++) update_bias(&R, n, k);
        s = order_features(p, &R, round, order, step);
    }
    if (s == GBT_OK && shotgun) {
        for (uint64_t i = 0; i < nf; i++) {
            const int64_t f = next_feature(p, &R, round, order, step, 0, i);
            if (f < 0) break;
            for (int k = 0; k < K; k++) update_feature(&R, (uint64_t)f, k);
        }
    } else if (s == GBT_OK) {
        for (int k = 0; k < K; k++)
            for (uint64_t i = 0; i < nf; i++) {
                const int64_t f = next_feature(p, &R, round, order, step, k, i);
                if (f < 0) break;
                update_feature(&R, (uint64_t)f, k);
            }
    }
    if (s == GBT_OK) {
        m->linear_rounds++;
        m->epoch++; /* the raw scores kept for evaluation sets are stale */
    }
    free(R.g);
    free(R.h);
    free(order);
    free(step);
    return s;
}
