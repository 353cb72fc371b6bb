/*
 * test_backend.c - every backend operation, and whole trainings, on each
 * backend against the CPU backend (the reference).
 *
 * Operations: a "tee" backend passes each call that grow.c makes to two
 * backends and compares what they give back: the gradients (exponents,
 * exact totals, every fixed-point pair), every histogram a call builds or
 * subtracts (value slots), the chosen splits (the whole structs) and, after
 * each tree, the training margins (which also check the partition: each
 * row's leaf).  Pairs:
 *   cpu against "brute", a plain single-threaded implementation written
 *   here (splits from the rows themselves, membership by node id): runs
 *   everywhere;
 *   cuda against cpu: needs a CUDA device, else "ok N # SKIP no CUDA device".
 * Cases cover every objective (the ranking ones with query groups of 1 to
 * 200 rows, topk truncated at 8 pairs or mean with seeded pairs; their
 * trainings on dense data with lambdarank_unbiased's position biases), the three binned layouts (dense uint8,
 * dense uint16 via max_bin > 256, CSR via sparse data), missing values,
 * weights, subsampling, feature masks (colsample), depthwise and lossguide,
 * L1 and max_delta_step, and (on CUDA) histograms split into several
 * feature groups and the global-memory path.
 *
 * Trainings through the public API: the same model bytes at nthread=1 and
 * nthread=2 on the CPU (always); device=cuda against device=cpu: the same
 * model bytes and the same prediction bits (dense, CSR, margins, a missing
 * sentinel, the last columns all missing; leaf ids, SHAP values, SHAP
 * interaction values and a range of rounds), or SKIP.
 * Multi-target trainings (issue 33: 3 labels a row, one output each;
 * multi-label logistic with scale_pos_weight and a base_score per
 * target, reg:absoluteerror's per-target refit) give the same bits on 1
 * and 2 threads and on the device.
 * A dataset of no rows: trained on by the CPU, refused by name for
 * training on CUDA, predicted on (nothing) by both.
 * booster=gblinear, CPU-only: device=cuda refused by name, device=auto the
 * CPU's bytes, the same bytes on 1 and 2 threads.
 * The survival objectives (issue 9), whose gradients the host computes for
 * every backend, train here with the others (survival:aft with each of its
 * three distributions); set_gradients, the operation that takes those
 * host gradients (and custom ones), is compared directly: CPU against the
 * CPU's own reg:squarederror gradients, CUDA against CPU; and a custom
 * objective boosted on CUDA must give the built-in one's CPU model.
 *
 * Built against the CUDA emulator (GBT_CUDA_EMU, as make check does on
 * every machine), the device is always there, nothing skips, and the
 * emulator must have reported no misuse of CUDA by the end.  The
 * sanitizer builds of the emulator (make check-cuda-emu-asan, -tsan) set
 * GBT_TEST_QUICK=2: the same layouts, growth policies and options for
 * three objectives (squared error, softprob: several classes, rank:ndcg:
 * its per-group kernel) instead of all; the objectives differ only in the
 * gradient math, which the full run in make check compares (binary
 * logistic's gradient kernel is squared error's with other math; the six
 * added for XGBoost's count, gamma, Tweedie, squared-log, pseudo-Huber and
 * hinge losses train with one growth policy per layout there).  It also
 * trains fewer rounds on 300 rows, or 2500 where the full run has
 * thousands (several partition tiles and histogram blocks), runs each
 * objective's kernel tests on one layout and its trainings on half of the
 * (layout, growth policy) pairs (rotating with the objective), and leaves
 * out the depth-12 tree and the 2.2M-row partition (the plain run's, whose
 * per-batch loops the emulator checks: the sanitizers' cost grows with
 * every barrier of every CUDA thread); the depth-22 trees of the
 * histogram pool train on cuda with the pool of 2 only.  1 keeps logistic too and the full
 * sizes (a deeper AddressSanitizer run by hand).  3
 * (scripts/emu-mutations.sh) also keeps
 * two objectives: squared error and softprob (one and several classes).
 *
 * GBT_TEST_PART=k/n runs the k-th of every n cases (each case of the
 * operations and trainings, each of the other groups whole), so that n
 * runs side by side share the cases: make check runs the halves
 * (tests/test_backend_1.sh, tests/test_backend_2.sh) on two cores.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "common/grad_math.h"
#include "common/rank_math.h"
#include "common/rng.h"
#include "common/split_math.h"
#include "data/dataset.h"
#include "train/grow.h"
#include "objective/leaf_refit.h"
#include "objective/objective.h"
#include "params/params.h"
#include "data/quantize.h"
#include "params/rank.h"
#include "tap.h"
#include "model/tree.h"
#ifdef GBT_CUDA_EMU
#include "gbt_emu.h"
#endif

#define SKIP_NO_DEVICE "no CUDA device"

static int have_cuda;
static int quick; /* GBT_TEST_QUICK (see above) */
static int part_k = 1, part_n = 1, part_case; /* GBT_TEST_PART (see above) */

/* Whether this run's part keeps the next case (GBT_TEST_PART). */
static int part_keeps(void)
{
    return part_case++ % part_n == part_k - 1;
}


static int objective_selected(int obj)
{
    return !quick || obj == GBT_OBJ_REG_SQUAREDERROR || obj == GBT_OBJ_MULTI_SOFTPROB ||
           (obj == GBT_OBJ_RANK_NDCG && quick < 3) || (obj == GBT_OBJ_BINARY_LOGISTIC && quick < 2);
}

/* ---- data ------------------------------------------------------------------ */

enum layout { L_DENSE8, L_DENSE16, L_CSR };

struct spec {
    const char *name;
    int obj, K, layout;
    int rows, cols, rounds;
    int weights;
    int policy;
    double subsample, colsample;
    double alpha, max_delta_step;
    double scale_pos; /* scale_pos_weight (binary objectives; else 1) */
    int small_smem; /* CUDA: a small shared-memory budget for histograms */
    int aft_dist;   /* survival:aft: aft_loss_distribution (0 normal, 1 logistic, 2 extreme) */
    int max_depth;  /* trainings: 0 for the default, 5 */
    int rank_mean;  /* ranking objectives: lambdarank_pair_method=mean (else topk) */
    int rank_unbiased; /* trainings, ranking objectives: lambdarank_unbiased (position biases) */
    const char *monotone, *interaction; /* constraints (NULL: none) */
    const char *base_score;             /* NULL: auto */
    int feature_weights;                /* 1: the data gets feature weights */
    int max_leaves; /* trainings, lossguide: 0 for 16 with max_depth 0, -1 for no limit */
    double pool_mb; /* trainings: histogram_pool_size (0: the default, -1: no limit) */
    int verbosity;  /* trainings */
    uint32_t pool_slots; /* operation cases: histogram slots (0: as many as the tree can use) */
    int max_cat_to_onehot, max_cat_threshold; /* trainings: 0 for the default */
    double cat_smooth, cat_l2, min_data_per_group; /* trainings: LightGBM's regularisation (0: off) */
    int categorical; /* categorical data (make_cat_data): max_bin 256 in every layout */
    int parallel;    /* trainings: num_parallel_tree (0: the default, 1) */
    int dart;        /* trainings: 0 gbtree; booster=dart with drops, 1 uniform and tree, 2 weighted and forest */
};

static double unit(uint64_t a, uint64_t b, uint64_t c)
{
    return gbt_unit(gbt_draw(20240611u, a, b, c));
}

/* Feature f of row r: few values, spread values, or many (> 256) distinct values. */
static float feature_value(uint64_t r, uint32_t f)
{
    double u = unit(1, r, f);
    switch (f % 3) {
    case 0: return (float)floor(u * 5.0);
    case 1: return (float)(u * 10.0 - 3.0);
    default: return (float)(floor(u * 1000.0) / 100.0);
    }
}

static gbt_dataset *make_data(const struct spec *s)
{
    const uint64_t n = (uint64_t)s->rows, m = (uint64_t)s->cols;
    float *x = NULL, *label = calloc(n, sizeof *label), *w = calloc(n, sizeof *w);
    float *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi);
    double *score = calloc(n, sizeof *score);
    gbt_dataset *d = NULL;
    gbt_status st;
    if (s->layout == L_CSR) {
        uint64_t *ptr = calloc(n + 1, sizeof *ptr), k = 0;
        uint32_t *idx = calloc(n * m, sizeof *idx);
        float *val = calloc(n * m, sizeof *val);
        for (uint64_t r = 0; r < n; r++) {
            for (uint32_t f = 0; f < m; f++) {
                if (unit(2, r, f) >= 0.15) continue;
                idx[k] = f;
                val[k] = feature_value(r, f);
                score[r] += (f % 2 ? 0.3 : -0.2) * val[k] + (f == 1 ? 1.0 : 0.0);
                k++;
            }
            ptr[r + 1] = k;
        }
        st = gbt_dataset_from_csr(ptr, idx, val, n, m, &d);
        free(ptr);
        free(idx);
        free(val);
    } else {
        x = calloc(n * m, sizeof *x);
        for (uint64_t r = 0; r < n; r++)
            for (uint32_t f = 0; f < m; f++) {
                float v = feature_value(r, f);
                if (f % 2 == 1 && unit(3, r, f) < (s->layout == L_DENSE8 ? 0.12 : 0.05)) v = NAN;
                x[r * m + f] = v;
                if (!isnan(v)) score[r] += (f % 2 ? 0.3 : -0.2) * v;
            }
        st = gbt_dataset_from_dense(x, n, m, NAN, &d);
        free(x);
    }
    if (st != GBT_OK) {
        diag("make_data: %s", gbt_last_error());
        d = NULL;
    }
    for (uint64_t r = 0; d && r < n; r++) {
        double noise = unit(4, r, 0) - 0.5;
        switch (s->obj) {
        case GBT_OBJ_REG_SQUAREDERROR: label[r] = (float)(score[r] + noise); break;
        case GBT_OBJ_REG_LOGISTIC: label[r] = (float)(1.0 / (1.0 + exp(-(score[r] + noise)))); break;
        case GBT_OBJ_BINARY_LOGISTIC:
        case GBT_OBJ_BINARY_LOGITRAW:
        case GBT_OBJ_BINARY_HINGE:
            label[r] = unit(5, r, 0) < 1.0 / (1.0 + exp(-score[r])) ? 1.0f : 0.0f;
            break;
        case GBT_OBJ_COUNT_POISSON: label[r] = (float)floor(exp(0.5 * score[r] + noise) * 2.0); break;
        case GBT_OBJ_REG_GAMMA: label[r] = (float)(exp(0.5 * score[r]) * (0.55 + noise)); break;
        case GBT_OBJ_REG_TWEEDIE:
            label[r] = unit(5, r, 0) < 0.3 ? 0.0f : (float)(exp(0.5 * score[r]) * (0.55 + noise));
            break;
        case GBT_OBJ_REG_SQUAREDLOGERROR: label[r] = (float)(exp(0.5 * score[r] + noise) - 0.5); break;
        case GBT_OBJ_REG_ABSOLUTEERROR:
        case GBT_OBJ_REG_QUANTILEERROR: /* skewed noise, 5% outliers */
            label[r] = (float)(score[r] + noise * noise * 3.0 + (unit(5, r, 0) < 0.05 ? 20.0 : 0.0));
            break;
        case GBT_OBJ_RANK_PAIRWISE:
        case GBT_OBJ_RANK_NDCG: /* graded relevance 0..4 */
            label[r] = (float)(int)floor(fmin(4.0, fmax(0.0, 0.8 * score[r] + 2.0 * noise + 1.0)));
            break;
        case GBT_OBJ_RANK_MAP: label[r] = unit(5, r, 0) < 1.0 / (1.0 + exp(-score[r])) ? 1.0f : 0.0f; break;
        case GBT_OBJ_REG_PSEUDOHUBERERROR: /* 5% outliers */
            label[r] = (float)(score[r] + noise + (unit(5, r, 0) < 0.05 ? 20.0 : 0.0));
            break;
        case GBT_OBJ_SURVIVAL_COX: /* times, 30% censored (negative), ties from the rounding */
            label[r] = (float)(floor(exp(0.4 * score[r] + noise) * 20.0) + 1.0) / 20.0f;
            if (unit(5, r, 0) < 0.3) label[r] = -label[r];
            break;
        case GBT_OBJ_SURVIVAL_AFT: { /* observed, right-, left- and interval-censored times */
            const double t = exp(0.4 * score[r] + noise), u = unit(5, r, 0);
            label[r] = (float)t;
            lo[r] = u < 0.5 ? (float)t : u < 0.7 ? (float)(0.8 * t) : u < 0.85 ? 0.0f : (float)(0.7 * t);
            hi[r] = u < 0.5 ? (float)t : u < 0.7 ? INFINITY : (float)(1.3 * t);
            break;
        }
        default:
            label[r] = (float)(((int)floor(fabs(score[r]) * 1.5) + (noise > 0.3)) % s->K);
            break;
        }
        w[r] = unit(6, r, 0) < 0.05 ? 0.0f : (float)(0.25 + 2.0 * unit(7, r, 0));
    }
    if (d && gbt_objective_is_ranking(s->obj)) {
        /* query groups of 1 to 60 rows (one of 200 when there are enough), each row the weight of its group's first */
        uint32_t *sizes = calloc(n, sizeof *sizes);
        uint64_t ng = 0, r = 0;
        while (sizes && r < n) {
            uint64_t len = ng == 3 && n > 1000 ? 200 : 1 + (uint64_t)(unit(8, ng, 0) * 60.0);
            if (len > n - r) len = n - r;
            for (uint64_t i = 1; i < len; i++) w[r + i] = w[r];
            sizes[ng++] = (uint32_t)len;
            r += len;
        }
        if (sizes == NULL || gbt_dataset_set_groups(d, sizes, ng) != GBT_OK) d = NULL;
        free(sizes);
    }
    if (d && gbt_dataset_set_field(d, "label", label, n) != GBT_OK) d = NULL;
    if (d && s->weights && gbt_dataset_set_field(d, "weight", w, n) != GBT_OK) d = NULL;
    if (d && s->obj == GBT_OBJ_SURVIVAL_AFT &&
        (gbt_dataset_set_field(d, "label_lower_bound", lo, n) != GBT_OK ||
         gbt_dataset_set_field(d, "label_upper_bound", hi, n) != GBT_OK))
        d = NULL;
    free(lo);
    free(hi);
    free(label);
    free(w);
    free(score);
    return d;
}

/* reg:quantileerror's quantiles in these tests (one output each) */
static const double test_quantiles[3] = {0.2, 0.5, 0.85};

/* Raw scores per row of an objective in these tests. */
static int outputs_of(int obj)
{
    return gbt_objective_is_multiclass(obj) || obj == GBT_OBJ_REG_QUANTILEERROR ? 3 : 1;
}

static int max_bin_of(const struct spec *s)
{
    return s->layout == L_DENSE16 && !s->categorical ? 300 : 256;
}

/* ---- the brute-force backend ------------------------------------------------ */

struct brute {
    const struct gbt_qmatrix *qm;
    uint64_t n;
    int K, obj, cls;
    const float *label, *weight;
    double *margin, *g, *h;
    struct gbt_gpair *grad;
    int32_t *node_of, *parent, *left_of, *right_of;
    uint32_t max_nodes, max_slots;
    struct gbt_hbin **hist;
    const uint32_t *group_ptr; /* the plan's (alive while the backend is open) */
    uint64_t ngroups;
};

static void brute_close(void *p)
{
    struct brute *b = p;
    if (b == NULL) return;
    free(b->margin);
    free(b->g);
    free(b->h);
    free(b->grad);
    free(b->node_of);
    free(b->parent);
    free(b->left_of);
    free(b->right_of);
    if (b->hist)
        for (uint32_t i = 0; i < b->max_slots; i++) free(b->hist[i]);
    free(b->hist);
    free(b);
}

static gbt_status brute_open(int ordinal, const struct gbt_train_plan *plan, void **out)
{
    struct brute *b = calloc(1, sizeof *b);
    const uint64_t nk = plan->nrow * (uint64_t)plan->num_class;
    (void)ordinal;
    if (b == NULL) return GBT_E_NO_MEMORY;
    b->qm = plan->qm;
    b->n = plan->nrow;
    b->K = plan->num_class;
    b->obj = plan->objective;
    b->label = plan->label;
    b->weight = plan->weight;
    b->max_nodes = plan->max_nodes;
    b->max_slots = plan->max_slots;
    b->group_ptr = plan->group_ptr;
    b->ngroups = plan->ngroups;
    b->margin = malloc(nk * sizeof *b->margin);
    b->g = malloc(nk * sizeof *b->g);
    b->h = malloc(nk * sizeof *b->h);
    b->grad = malloc(nk * sizeof *b->grad);
    b->node_of = malloc(plan->nrow * sizeof *b->node_of);
    b->parent = malloc(plan->max_nodes * sizeof *b->parent);
    b->left_of = malloc(plan->max_nodes * sizeof *b->left_of);
    b->right_of = malloc(plan->max_nodes * sizeof *b->right_of);
    b->hist = calloc(plan->max_slots, sizeof *b->hist);
    if (!b->margin || !b->g || !b->h || !b->grad || !b->node_of || !b->parent || !b->left_of ||
        !b->right_of || !b->hist) {
        brute_close(b);
        return GBT_E_NO_MEMORY;
    }
    memcpy(b->margin, plan->margin, nk * sizeof *b->margin);
    *out = b;
    return GBT_OK;
}

static gbt_status brute_gradients(void *p, const struct gbt_grad_request *req,
                                  struct gbt_class_sums *out)
{
    struct brute *b = p;
    const uint64_t n = b->n;
    if (gbt_objective_is_ranking(b->obj)) {
        /* the shared per-group math, one group after another */
        uint32_t *idx = malloc(3 * n * sizeof *idx + 1);
        double *st = malloc(2 * n * sizeof *st + 1);
        if (idx == NULL || st == NULL || b->group_ptr == NULL) {
            free(idx);
            free(st);
            return GBT_E_NO_MEMORY;
        }
        for (uint64_t g = 0; g < b->ngroups; g++) {
            const uint32_t s0 = b->group_ptr[g], cnt = b->group_ptr[g + 1] - s0;
            struct gbt_rank_scratch sc = {idx + s0, idx + n + s0, idx + 2 * n + s0, st + s0, st + n + s0};
            gbt_rank_group_gradients(b->obj, &req->obj, req->seed, req->round, g, cnt, b->margin + s0,
                                     b->label + s0,
                                     (b->weight ? b->weight[s0] : 1.0) * req->obj.rank_wnorm, &sc,
                                     NULL, b->g + s0, b->h + s0);
        }
        for (uint64_t r = 0; r < n; r++)
            if (!gbt_row_sampled(req->seed, req->round, r, req->subsample)) b->g[r] = b->h[r] = 0.0;
        free(idx);
        free(st);
    }
    for (uint64_t r = 0; r < n && !gbt_objective_is_ranking(b->obj); r++) {
        double w = gbt_row_weight(b->label[r], b->weight ? b->weight[r] : 1.0, req->obj.scale_pos);
        if (!gbt_row_sampled(req->seed, req->round, r, req->subsample)) w = 0.0;
        gbt_row_gradients(b->obj, &req->obj, b->K, b->margin + r * (uint64_t)b->K, 1, b->label[r], w,
                          b->g + r, b->h + r, n);
    }
    for (int k = 0; k < b->K; k++) {
        double gm = 0.0, hm = 0.0;
        for (uint64_t r = 0; r < n; r++) {
            double g = fabs(b->g[(uint64_t)k * n + r]), h = fabs(b->h[(uint64_t)k * n + r]);
            if (g > gm) gm = g;
            if (h > hm) hm = h;
        }
        out[k].g_exp = gbt_quant_exponent(gm);
        out[k].h_exp = gbt_quant_exponent(hm);
        out[k].total.g = out[k].total.h = 0;
        for (uint64_t r = 0; r < n; r++) {
            struct gbt_gpair *q = &b->grad[(uint64_t)k * n + r];
            q->g = gbt_quantize(b->g[(uint64_t)k * n + r], out[k].g_exp);
            q->h = gbt_quantize(b->h[(uint64_t)k * n + r], out[k].h_exp);
            out[k].total.g += q->g;
            out[k].total.h += q->h;
        }
    }
    return GBT_OK;
}

static gbt_status brute_begin_tree(void *p, int cls)
{
    struct brute *b = p;
    b->cls = cls;
    for (uint64_t r = 0; r < b->n; r++) b->node_of[r] = 0;
    for (uint32_t i = 0; i < b->max_nodes; i++) b->parent[i] = b->left_of[i] = b->right_of[i] = -1;
    return GBT_OK;
}

static gbt_status brute_histograms(void *p, const struct gbt_hist_job *jobs, int n)
{
    struct brute *b = p;
    const struct gbt_cuts *c = &b->qm->cuts;
    const struct gbt_gpair *gp = b->grad + (uint64_t)b->cls * b->n;
    for (int j = 0; j < n; j++) {
        struct gbt_hbin *h;
        if (jobs[j].op != GBT_HIST_BUILD) continue;
        if (b->hist[jobs[j].slot] == NULL)
            b->hist[jobs[j].slot] = malloc(c->total_slots * sizeof(struct gbt_hbin));
        h = b->hist[jobs[j].slot];
        if (h == NULL) return GBT_E_NO_MEMORY;
        memset(h, 0, c->total_slots * sizeof *h);
        for (uint64_t r = 0; r < b->n; r++) {
            if (b->node_of[r] != jobs[j].node) continue;
            for (uint32_t f = 0; f < c->nfeat; f++) {
                uint32_t code = gbt__qm_code(b->qm, r, f);
                h[c->offset[f] + code].g += gp[r].g;
                h[c->offset[f] + code].h += gp[r].h;
            }
        }
    }
    for (int j = 0; j < n; j++) {
        if (jobs[j].op != GBT_HIST_SUBTRACT) continue;
        for (uint32_t i = 0; i < c->total_slots; i++) {
            b->hist[jobs[j].slot][i].g -= b->hist[jobs[j].src][i].g;
            b->hist[jobs[j].slot][i].h -= b->hist[jobs[j].src][i].h;
        }
    }
    return GBT_OK;
}

/* Splits from the node's rows (not from the histograms), candidates in scan order. */
static gbt_status brute_best_splits(void *p, const struct gbt_split_job *jobs, int n,
                                    const uint8_t *masks, const struct gbt_split_params *sp,
                                    struct gbt_split *out, uint32_t *cat_sets)
{
    struct brute *b = p;
    (void)cat_sets; /* numeric features only */
    const struct gbt_cuts *c = &b->qm->cuts;
    const struct gbt_gpair *gp = b->grad + (uint64_t)b->cls * b->n;
    struct gbt_hbin *bins = malloc((c->total_slots + 1) * sizeof *bins);
    if (bins == NULL) return GBT_E_NO_MEMORY;
    for (int j = 0; j < n; j++) {
        const struct gbt_hbin total = jobs[j].total;
        const double parent_gain = gbt_node_gain(total, sp);
        struct gbt_split *best = &out[j];
        memset(best, 0, sizeof *best);
        best->gain = -(double)INFINITY;
        best->feature = -1;
        best->bin = -1;
        for (uint32_t f = 0; f < c->nfeat; f++) {
            const int nb = (int)c->nbins[f];
            struct gbt_hbin present = {0, 0}, cum = {0, 0};
            if ((masks && !masks[(size_t)j * c->nfeat + f]) || !gbt__feature_usable(c, f)) continue;
            memset(bins, 0, (size_t)(nb + 1) * sizeof *bins);
            for (uint64_t r = 0; r < b->n; r++) {
                uint32_t code;
                if (b->node_of[r] != jobs[j].node) continue;
                code = gbt__qm_code(b->qm, r, f);
                bins[code].g += gp[r].g;
                bins[code].h += gp[r].h;
            }
            for (int t = 0; t < nb; t++) {
                present.g += bins[t].g;
                present.h += bins[t].h;
            }
            for (int t = 0; t < nb; t++) {
                cum.g += bins[t].g;
                cum.h += bins[t].h;
                for (int dl = 1; dl >= 0; dl--) {
                    struct gbt_hbin l = cum, r;
                    double gain;
                    if (!gbt_candidate_exists(t, dl, nb)) continue;
                    if (dl) {
                        l.g += total.g - present.g;
                        l.h += total.h - present.h;
                    }
                    r.g = total.g - l.g;
                    r.h = total.h - l.h;
                    gain = gbt_split_gain(l, r, parent_gain, sp);
                    if (gain == -(double)INFINITY) continue;
                    if (best->feature >= 0 &&
                        !gbt_split_before(gain, (int)f, t, dl, best->gain, best->feature, best->bin,
                                          best->default_left))
                        continue;
                    best->gain = gain;
                    best->feature = (int32_t)f;
                    best->bin = t;
                    best->default_left = dl;
                    best->left = l;
                    best->right = r;
                }
            }
        }
    }
    free(bins);
    return GBT_OK;
}

static gbt_status brute_partition(void *p, const struct gbt_partition_job *jobs, int n)
{
    struct brute *b = p;
    const struct gbt_cuts *c = &b->qm->cuts;
    for (int j = 0; j < n; j++) {
        const struct gbt_partition_job *jb = &jobs[j];
        b->parent[jb->left] = b->parent[jb->right] = jb->node;
        b->left_of[jb->node] = jb->left;
        b->right_of[jb->node] = jb->right;
        for (uint64_t r = 0; r < b->n; r++) {
            uint32_t code;
            int left;
            if (b->node_of[r] != jb->node) continue;
            code = gbt__qm_code(b->qm, r, (uint32_t)jb->feature);
            left = code == c->nbins[jb->feature] ? jb->default_left : code <= (uint32_t)jb->bin;
            b->node_of[r] = left ? jb->left : jb->right;
        }
    }
    return GBT_OK;
}

/* A leaf may be an inner node whose split was pruned: its rows sit in its descendants. */
static gbt_status brute_finish_tree(void *p, const struct gbt_leaf *leaves, int n)
{
    struct brute *b = p;
    double *value = malloc(b->max_nodes * sizeof *value);
    uint8_t *is_leaf = calloc(b->max_nodes, 1);
    if (value == NULL || is_leaf == NULL) {
        free(value);
        free(is_leaf);
        return GBT_E_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        is_leaf[leaves[i].node] = 1;
        value[leaves[i].node] = leaves[i].value;
    }
    for (uint64_t r = 0; r < b->n; r++) {
        int32_t node = b->node_of[r];
        while (node >= 0 && !is_leaf[node]) node = b->parent[node];
        if (node >= 0) b->margin[r * (uint64_t)b->K + (uint64_t)b->cls] += value[node];
    }
    free(value);
    free(is_leaf);
    return GBT_OK;
}

static gbt_status brute_read_margins(void *p, double *out)
{
    struct brute *b = p;
    memcpy(out, b->margin, b->n * (uint64_t)b->K * sizeof *out);
    return GBT_OK;
}

/* 1 when `node` is `anc` or below it. */
static int brute_under(const struct brute *b, int32_t node, int32_t anc)
{
    while (node >= 0 && node != anc) node = b->parent[node];
    return node == anc;
}

/*
 * The row list from the tree itself: node 0 holds every row in row order,
 * a split node its left child's rows then its right child's, each in row
 * order (what a stable partition gives).
 */
static void brute_place(const struct brute *b, int32_t node, uint64_t begin, uint32_t *rows,
                        uint64_t *node_begin, uint64_t *node_count)
{
    uint64_t k = begin;
    node_begin[node] = begin;
    for (uint64_t r = 0; r < b->n; r++)
        if (brute_under(b, b->node_of[r], node)) rows[k++] = (uint32_t)r;
    node_count[node] = k - begin;
    if (b->left_of[node] < 0) return;
    brute_place(b, b->left_of[node], begin, rows, node_begin, node_count);
    brute_place(b, b->right_of[node], begin + node_count[b->left_of[node]], rows, node_begin,
                node_count);
}

static gbt_status brute_read_rows(void *p, uint32_t *rows, uint64_t *node_begin, uint64_t *node_count)
{
    struct brute *b = p;
    memset(node_begin, 0, b->max_nodes * sizeof *node_begin);
    memset(node_count, 0, b->max_nodes * sizeof *node_count);
    brute_place(b, 0, 0, rows, node_begin, node_count);
    return GBT_OK;
}

static gbt_status brute_read_histogram(void *p, int slot, struct gbt_hbin *out)
{
    struct brute *b = p;
    if (b->hist[slot] == NULL) return GBT_E_INVALID_ARG;
    memcpy(out, b->hist[slot], b->qm->cuts.total_slots * sizeof *out);
    return GBT_OK;
}

static gbt_status brute_read_gradients(void *p, int cls, struct gbt_gpair *out)
{
    struct brute *b = p;
    memcpy(out, b->grad + (uint64_t)cls * b->n, b->n * sizeof *out);
    return GBT_OK;
}

static const struct gbt_backend_ops brute_ops = {
    .name = "brute",
    .open = brute_open,
    .close = brute_close,
    .gradients = brute_gradients,
    .begin_tree = brute_begin_tree,
    .histograms = brute_histograms,
    .best_splits = brute_best_splits,
    .partition = brute_partition,
    .finish_tree = brute_finish_tree,
    .read_margins = brute_read_margins,
    .read_rows = brute_read_rows,
    .read_histogram = brute_read_histogram,
    .read_gradients = brute_read_gradients,
};

/* ---- the tee backend ---------------------------------------------------------- */

struct tee {
    const struct gbt_backend_ops *ops[2];
    void *ctx[2];
    const struct gbt_qmatrix *qm;
    uint64_t n;
    int K;
    uint32_t max_slots;
    int mismatches;
    char first[512];
    long calls[6]; /* gradients, histograms, hist slots compared, best_splits, nodes, trees */
    struct gbt_hbin *h0, *h1;
    double *m0, *m1;
    struct gbt_gpair *g0, *g1;
    struct gbt_split *s1;
    struct gbt_class_sums *c1;
    uint32_t max_nodes;
    int32_t *kids; /* 2 max_nodes: each node's children once partitioned in this tree, -1 before */
};

static void mismatch(struct tee *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(struct tee *t, const char *fmt, ...)
{
    va_list ap;
    if (t->mismatches++ > 0) return;
    va_start(ap, fmt);
    vsnprintf(t->first, sizeof t->first, fmt, ap);
    va_end(ap);
}

/* Both statuses: equal, or a mismatch; the first failure is returned. */
static gbt_status both(struct tee *t, gbt_status a, gbt_status b, const char *what)
{
    if (a != b) mismatch(t, "%s: status %d on %s, %d on %s (%s)", what, a, t->ops[0]->name, b,
                         t->ops[1]->name, gbt_last_error());
    return a != GBT_OK ? a : b;
}

static gbt_status tee_gradients(void *p, const struct gbt_grad_request *req,
                                struct gbt_class_sums *out)
{
    struct tee *t = p;
    gbt_status s = both(t, t->ops[0]->gradients(t->ctx[0], req, out),
                        t->ops[1]->gradients(t->ctx[1], req, t->c1), "gradients");
    t->calls[0]++;
    if (s != GBT_OK) return s;
    for (int k = 0; k < t->K; k++) {
        if (memcmp(&out[k], &t->c1[k], sizeof out[k]) != 0)
            mismatch(t, "round %d class %d: exponents %d/%d vs %d/%d, totals %lld/%lld vs %lld/%lld",
                     req->round, k, out[k].g_exp, out[k].h_exp, t->c1[k].g_exp, t->c1[k].h_exp,
                     (long long)out[k].total.g, (long long)out[k].total.h,
                     (long long)t->c1[k].total.g, (long long)t->c1[k].total.h);
        s = both(t, t->ops[0]->read_gradients(t->ctx[0], k, t->g0),
                 t->ops[1]->read_gradients(t->ctx[1], k, t->g1), "read_gradients");
        if (s != GBT_OK) return s;
        for (uint64_t r = 0; r < t->n; r++)
            if (t->g0[r].g != t->g1[r].g || t->g0[r].h != t->g1[r].h) {
                mismatch(t, "round %d class %d row %llu: pair (%d, %d) vs (%d, %d)", req->round, k,
                         (unsigned long long)r, t->g0[r].g, t->g0[r].h, t->g1[r].g, t->g1[r].h);
                break;
            }
    }
    return GBT_OK;
}

static gbt_status tee_begin_tree(void *p, int cls)
{
    struct tee *t = p;
    for (uint64_t i = 0; i < 2 * (uint64_t)t->max_nodes; i++) t->kids[i] = -1;
    return both(t, t->ops[0]->begin_tree(t->ctx[0], cls), t->ops[1]->begin_tree(t->ctx[1], cls),
                "begin_tree");
}

static gbt_status tee_histograms(void *p, const struct gbt_hist_job *jobs, int n)
{
    struct tee *t = p;
    const struct gbt_cuts *c = &t->qm->cuts;
    gbt_status s = both(t, t->ops[0]->histograms(t->ctx[0], jobs, n),
                        t->ops[1]->histograms(t->ctx[1], jobs, n), "histograms");
    t->calls[1]++;
    if (s != GBT_OK) return s;
    for (int j = 0; j < n; j++) {
        s = both(t, t->ops[0]->read_histogram(t->ctx[0], jobs[j].slot, t->h0),
                 t->ops[1]->read_histogram(t->ctx[1], jobs[j].slot, t->h1), "read_histogram");
        if (s != GBT_OK) return s;
        t->calls[2]++;
        for (uint32_t f = 0; f < c->nfeat; f++)
            for (uint32_t b = 0; b < c->nbins[f]; b++) {
                const uint32_t i = c->offset[f] + b;
                if (t->h0[i].g != t->h1[i].g || t->h0[i].h != t->h1[i].h) {
                    mismatch(t, "%s job of node %d, slot %d, feature %u bin %u: (%lld, %lld) vs (%lld, %lld)",
                             jobs[j].op == GBT_HIST_BUILD ? "build" : "subtract", jobs[j].node,
                             jobs[j].slot, f, b, (long long)t->h0[i].g, (long long)t->h0[i].h,
                             (long long)t->h1[i].g, (long long)t->h1[i].h);
                    f = c->nfeat;
                    break;
                }
            }
    }
    return GBT_OK;
}

static gbt_status tee_best_splits(void *p, const struct gbt_split_job *jobs, int n,
                                  const uint8_t *masks, const struct gbt_split_params *sp,
                                  struct gbt_split *out, uint32_t *cat_sets)
{
    struct tee *t = p;
    /* numeric features only (categorical ones are test_cat_train's) */
    gbt_status s = both(t, t->ops[0]->best_splits(t->ctx[0], jobs, n, masks, sp, out, cat_sets),
                        t->ops[1]->best_splits(t->ctx[1], jobs, n, masks, sp, t->s1, cat_sets), "best_splits");
    t->calls[3]++;
    t->calls[4] += n;
    if (s != GBT_OK) return s;
    for (int j = 0; j < n; j++)
        if (memcmp(&out[j], &t->s1[j], sizeof out[j]) != 0) {
            mismatch(t, "split of node %d: feature %d bin %d dl %d gain %.17g vs feature %d bin %d dl %d gain %.17g",
                     jobs[j].node, out[j].feature, out[j].bin, out[j].default_left, out[j].gain,
                     t->s1[j].feature, t->s1[j].bin, t->s1[j].default_left, t->s1[j].gain);
            break;
        }
    return GBT_OK;
}

static gbt_status tee_partition(void *p, const struct gbt_partition_job *jobs, int n)
{
    struct tee *t = p;
    for (int j = 0; j < n; j++) {
        t->kids[2 * (size_t)jobs[j].node] = jobs[j].left;
        t->kids[2 * (size_t)jobs[j].node + 1] = jobs[j].right;
    }
    return both(t, t->ops[0]->partition(t->ctx[0], jobs, n), t->ops[1]->partition(t->ctx[1], jobs, n),
                "partition");
}

static gbt_status tee_finish_tree(void *p, const struct gbt_leaf *leaves, int n)
{
    struct tee *t = p;
    gbt_status s = both(t, t->ops[0]->finish_tree(t->ctx[0], leaves, n),
                        t->ops[1]->finish_tree(t->ctx[1], leaves, n), "finish_tree");
    t->calls[5]++;
    if (s != GBT_OK) return s;
    s = both(t, t->ops[0]->read_margins(t->ctx[0], t->m0), t->ops[1]->read_margins(t->ctx[1], t->m1),
             "read_margins");
    if (s != GBT_OK) return s;
    for (uint64_t i = 0; i < t->n * (uint64_t)t->K; i++)
        if (memcmp(&t->m0[i], &t->m1[i], sizeof(double)) != 0) {
            mismatch(t, "tree %ld: margin %llu is %.17g vs %.17g", t->calls[5], (unsigned long long)i,
                     t->m0[i], t->m1[i]);
            break;
        }
    return GBT_OK;
}

static gbt_status tee_read_margins(void *p, double *out)
{
    struct tee *t = p;
    gbt_status s = both(t, t->ops[0]->read_margins(t->ctx[0], out),
                        t->ops[1]->read_margins(t->ctx[1], t->m1), "read_margins");
    if (s == GBT_OK && memcmp(out, t->m1, t->n * (uint64_t)t->K * sizeof *out) != 0)
        mismatch(t, "read_margins: the margins differ before tree %ld", t->calls[5] + 1);
    return s;
}

static int by_row(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/*
 * Every node of the tree has the same range on both, and the same rows in
 * it, in any order (a partition need not be stable: backend.h); compared
 * on the nodes never split, whose ranges cover every position.
 */
static gbt_status tee_read_rows(void *p, uint32_t *rows, uint64_t *node_begin, uint64_t *node_count)
{
    struct tee *t = p;
    uint32_t *r0 = malloc(t->n * sizeof *r0 + 1), *r1 = malloc(t->n * sizeof *r1 + 1);
    uint64_t *b1 = malloc(t->max_nodes * sizeof *b1), *c1 = malloc(t->max_nodes * sizeof *c1);
    uint8_t *in_tree = calloc(t->max_nodes, 1);
    gbt_status s = r0 && r1 && b1 && c1 && in_tree ? GBT_OK : GBT_E_NO_MEMORY;
    if (s == GBT_OK)
        s = both(t, t->ops[0]->read_rows(t->ctx[0], rows, node_begin, node_count),
                 t->ops[1]->read_rows(t->ctx[1], r1, b1, c1), "read_rows");
    if (s == GBT_OK) {
        memcpy(r0, rows, t->n * sizeof *r0);
        in_tree[0] = 1;
        for (uint32_t i = 0; i < t->max_nodes && t->mismatches == 0; i++) {
            if (!in_tree[i]) continue;
            if (node_begin[i] != b1[i] || node_count[i] != c1[i] || node_begin[i] + node_count[i] > t->n) {
                mismatch(t, "read_rows: node %u has rows [%llu, +%llu) vs [%llu, +%llu) in tree %ld", i,
                         (unsigned long long)node_begin[i], (unsigned long long)node_count[i],
                         (unsigned long long)b1[i], (unsigned long long)c1[i], t->calls[5] + 1);
            } else if (t->kids[2 * (size_t)i] >= 0) {
                in_tree[t->kids[2 * (size_t)i]] = in_tree[t->kids[2 * (size_t)i + 1]] = 1;
            } else {
                qsort(r0 + node_begin[i], node_count[i], sizeof *r0, by_row);
                qsort(r1 + node_begin[i], node_count[i], sizeof *r1, by_row);
                if (memcmp(r0 + node_begin[i], r1 + node_begin[i], node_count[i] * sizeof *r0) != 0)
                    mismatch(t, "read_rows: node %u holds other rows in tree %ld", i, t->calls[5] + 1);
            }
        }
    }
    free(r0);
    free(r1);
    free(b1);
    free(c1);
    free(in_tree);
    return s;
}

static const struct gbt_backend_ops tee_ops = {
    .name = "tee",
    .gradients = tee_gradients,
    .begin_tree = tee_begin_tree,
    .histograms = tee_histograms,
    .best_splits = tee_best_splits,
    .partition = tee_partition,
    .finish_tree = tee_finish_tree,
    .read_margins = tee_read_margins,
    .read_rows = tee_read_rows,
};

/* ---- operation cases --------------------------------------------------------- */

static void grow_setup(const struct spec *s, const struct gbt_qmatrix *qm, const uint8_t *usable,
                       struct gbt_grow_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->policy = s->policy;
    cfg->max_depth = s->policy == GBT_GROW_DEPTHWISE ? 4 : 0;
    cfg->max_leaves = s->policy == GBT_GROW_DEPTHWISE ? 0 : 12;
    cfg->eta = 0.3;
    cfg->gamma = 0.05;
    cfg->sp.lambda = 1.0;
    cfg->sp.alpha = s->alpha;
    cfg->sp.max_delta_step = s->max_delta_step;
    cfg->sp.min_child_weight = 0.5;
    cfg->colsample_bytree = s->colsample < 1.0 ? 0.8 : 1.0;
    cfg->colsample_bylevel = s->colsample < 1.0 ? 0.9 : 1.0;
    cfg->colsample_bynode = s->colsample;
    cfg->seed = 7;
    cfg->cuts = &qm->cuts;
    cfg->usable = usable;
    gbt__grow_limits(cfg->policy, cfg->max_depth, cfg->max_leaves, qm->nrow, &cfg->max_nodes,
                     &cfg->max_slots);
    if (s->pool_slots && s->pool_slots < cfg->max_slots) cfg->max_slots = s->pool_slots;
}

/*
 * Runs s->rounds rounds of grow.c on backends a and b through the tee;
 * returns 1 when every call agreed, 0 otherwise (with a diagnostic).
 */
static int run_ops(const struct spec *s, const gbt_dataset *d, const struct gbt_qmatrix *qm,
                   const struct gbt_backend_ops *a, int ordinal_a,
                   const struct gbt_backend_ops *b, int ordinal_b)
{
    struct tee t;
    struct gbt_grow_config cfg;
    struct gbt_train_plan plan;
    struct gbt_class_sums *sums = calloc((size_t)s->K, sizeof *sums);
    uint8_t *usable = calloc(qm->cuts.nfeat + 1, 1);
    double *margin = NULL, base[16];
    gbt_status st = GBT_OK;
    const uint64_t n = qm->nrow;
    /* the objectives' parameters away from their defaults */
    struct gbt_obj_param op = {.scale_pos = s->scale_pos, .poisson_delta = 0.7, .huber_slope = 2.5,
                               .tweedie_rho = 1.3, .aft_sigma = 1.0};
    struct gbt_leaf_refit refit;
    int good;
    uint32_t *group_ptr = NULL;
    uint64_t ngroups = 0;
    struct gbt_params rp;

    memset(&t, 0, sizeof t);
    for (uint32_t f = 0; f < qm->cuts.nfeat; f++) usable[f] = (uint8_t)gbt__feature_usable(&qm->cuts, f);
    grow_setup(s, qm, usable, &cfg);
    if (s->obj == GBT_OBJ_REG_QUANTILEERROR)
        memcpy(op.alpha, test_quantiles, (size_t)s->K * sizeof op.alpha[0]);
    else
        op.alpha[0] = 0.5; /* reg:absoluteerror's median */
    memset(&refit, 0, sizeof refit);
    refit.alpha = op.alpha;
    refit.label = d->label;
    refit.weight = s->weights ? d->weight : NULL;
    refit.weighted = refit.weight != NULL;
    refit.nrow = n;
    refit.K = s->K;
    refit.nthread = 2;
    refit.seed = 7;
    refit.subsample = s->subsample;
    if (gbt_objective_refits_leaves(s->obj)) cfg.refit = &refit;
    st = gbt__objective_base_margin(s->obj, s->K, NULL, 0, &op, d, base);
    margin = malloc(n * (uint64_t)s->K * sizeof *margin);
    for (uint64_t i = 0; margin && i < n * (uint64_t)s->K; i++) margin[i] = base[i % (uint64_t)s->K];
    memset(&plan, 0, sizeof plan);
    plan.qm = qm;
    plan.label = d->label;
    plan.weight = s->weights ? d->weight : NULL;
    plan.margin = margin;
    plan.nrow = n;
    plan.num_class = s->K;
    plan.objective = s->obj;
    plan.max_nodes = cfg.max_nodes;
    plan.max_slots = cfg.max_slots;
    plan.nthread = 2;
    gbt__params_init(&rp);
    if (gbt_objective_is_ranking(s->obj)) {
        if (st == GBT_OK) st = gbt__dataset_group_ptr(d, &group_ptr, &ngroups);
        plan.group_ptr = group_ptr;
        plan.ngroups = ngroups;
        /* mean with 3 pairs, or topk truncated at 8 (groups are up to 200 rows) */
        rp.lambdarank_pair_method = s->rank_mean ? GBT_RANK_MEAN : GBT_RANK_TOPK;
        rp.lambdarank_num_pair_per_sample = s->rank_mean ? 3 : 8;
        rp.lambdarank_score_normalization = !s->weights;
    }

    t.ops[0] = a;
    t.ops[1] = b;
    t.qm = qm;
    t.n = n;
    t.K = s->K;
    t.max_slots = cfg.max_slots;
    t.max_nodes = cfg.max_nodes;
    t.h0 = malloc(qm->cuts.total_slots * sizeof *t.h0 + 16);
    t.h1 = malloc(qm->cuts.total_slots * sizeof *t.h1 + 16);
    t.m0 = malloc(n * (uint64_t)s->K * sizeof *t.m0);
    t.m1 = malloc(n * (uint64_t)s->K * sizeof *t.m1);
    t.g0 = malloc(n * sizeof *t.g0);
    t.g1 = malloc(n * sizeof *t.g1);
    t.s1 = malloc(cfg.max_slots * sizeof *t.s1);
    t.c1 = malloc((size_t)s->K * sizeof *t.c1);
    t.kids = malloc(2 * (size_t)cfg.max_nodes * sizeof *t.kids);
    if (st == GBT_OK && t.kids == NULL) st = GBT_E_NO_MEMORY;
    if (st == GBT_OK) st = a->open(ordinal_a, &plan, &t.ctx[0]);
    if (st == GBT_OK) {
        if (s->small_smem) setenv("GBT_CUDA_HIST_SMEM_BYTES", "4000", 1);
        st = b->open(ordinal_b, &plan, &t.ctx[1]);
        unsetenv("GBT_CUDA_HIST_SMEM_BYTES");
    }
    for (int round = 0; round < s->rounds && st == GBT_OK; round++) {
        struct gbt_grad_request req = {.round = round, .seed = 7, .subsample = s->subsample, .obj = op};
        if (gbt_objective_is_ranking(s->obj)) gbt__rank_obj_param(&rp, s->weights ? d : NULL, &req.obj);
        refit.round = round;
        st = tee_gradients(&t, &req, sums);
        for (int k = 0; k < s->K && st == GBT_OK; k++) {
            struct gbt_tree tree;
            cfg.tree_index = (uint64_t)round * (uint64_t)s->K + (uint64_t)k;
            memset(&tree, 0, sizeof tree);
            st = gbt__grow_tree(&tee_ops, &t, &cfg, k, &sums[k], &tree);
            gbt__tree_free(&tree);
        }
    }
    if (st != GBT_OK) diag("%s: %s vs %s failed: %s", s->name, a->name, b->name, gbt_last_error());
    if (t.mismatches) diag("%s: %s vs %s: %d mismatch(es), first: %s", s->name, a->name, b->name,
                           t.mismatches, t.first);
    good = st == GBT_OK && t.mismatches == 0 && t.calls[5] == (long)s->rounds * s->K;
    if (good)
        diag("%s: %s = %s over %ld gradient, %ld histogram (%ld slots), %ld split (%ld nodes) calls, %ld trees",
             s->name, a->name, b->name, t.calls[0], t.calls[1], t.calls[2], t.calls[3], t.calls[4],
             t.calls[5]);
    if (t.ctx[0]) a->close(t.ctx[0]);
    if (t.ctx[1]) b->close(t.ctx[1]);
    free(t.h0);
    free(t.h1);
    free(t.m0);
    free(t.m1);
    free(t.g0);
    free(t.g1);
    free(t.s1);
    free(t.c1);
    free(t.kids);
    free(sums);
    free(usable);
    free(margin);
    free(group_ptr);
    return good;
}

static const char *layout_name(int l)
{
    return l == L_DENSE8 ? "dense8" : l == L_DENSE16 ? "dense16" : "csr";
}

static int is_binary(int obj)
{
    return obj == GBT_OBJ_BINARY_LOGISTIC || obj == GBT_OBJ_BINARY_LOGITRAW;
}

static const char *obj_name(int obj)
{
    static const char *names[] = {
#define OBJ_NAME_(id, name) name,
        GBT_OBJECTIVE_MAP(OBJ_NAME_)
#undef OBJ_NAME_
    };
    return names[obj];
}

/*
 * Whether GBT_TEST_QUICK >= 2 (ThreadSanitizer) keeps a case: the kernel
 * tests (policy -1) of an objective on one layout, its trainings on half of
 * the (layout, growth policy) pairs; the pairs rotate with the objective,
 * so every kernel still runs on every layout and policy.
 */
static int quick_keeps(int obj, int layout, int policy)
{
    if (quick < 2) return 1;
    return policy < 0 ? (obj + layout) % 3 == 0 : (obj + layout + policy) % 2 == 0;
}

/* Rows and rounds of a case at this quick level. */
static void scale_case(struct spec *s)
{
    if (quick < 2) return;
    s->rows = s->rows > 2000 ? 2500 : 300;
    s->rounds = s->rounds > 2 ? 2 : s->rounds;
}

static void test_ops(void)
{
    static const int layouts[] = {GBT_QM_DENSE8, GBT_QM_DENSE16, GBT_QM_CSR};
    for (int obj = 0; obj < GBT_OBJ_COUNT; obj++)
        for (int l = 0; l < 3 && objective_selected(obj) && !gbt__objective_survival(obj); l++) {
            /* (the survival objectives' gradients come through set_gradients: test_set_gradients) */
            const int i = obj * 3 + l;
            if (!quick_keeps(obj, l, -1) || !part_keeps()) continue;
            struct spec s;
            char name[160];
            gbt_dataset *d;
            struct gbt_qmatrix qm;
            memset(&s, 0, sizeof s);
            s.obj = obj;
            s.K = outputs_of(obj);
            s.layout = l;
            s.rows = i % 5 == 2 ? 5000 : 700;
            s.cols = i % 4 == 1 ? 40 : i % 8 == 3 ? 28 : 9; /* 28, 40: CUDA pads rows of codes */
            s.rounds = s.K > 1 ? 2 : 3;
            scale_case(&s);
            s.weights = i % 2;
            s.policy = i % 3 == 1 ? GBT_GROW_LOSSGUIDE : GBT_GROW_DEPTHWISE;
            s.subsample = i % 4 == 0 ? 0.7 : 1.0;
            s.colsample = i % 3 == 2 ? 0.6 : 1.0;
            s.alpha = i % 5 == 3 ? 0.2 : 0.0;
            s.max_delta_step = i % 7 == 4 ? 0.7 : 0.0;
            s.scale_pos = is_binary(obj) && i % 3 == 0 ? 3.0 : 1.0;
            s.small_smem = i % 2 == 0;
            s.rank_mean = gbt_objective_is_ranking(obj) && l == 1;
            snprintf(name, sizeof name, "%s%s %s %dx%d%s %s%s%s%s%s%s%s", obj_name(obj),
                     s.rank_mean ? " mean" : "", layout_name(l), s.rows, s.cols,
                     s.weights ? " weights" : "",
                     s.policy == GBT_GROW_LOSSGUIDE ? "lossguide" : "depthwise",
                     s.subsample < 1 ? " subsample" : "", s.colsample < 1 ? " colsample" : "",
                     s.alpha > 0 ? " alpha" : "", s.max_delta_step > 0 ? " max_delta_step" : "",
                     s.scale_pos != 1 ? " scale_pos_weight" : "", s.small_smem ? " small-smem" : "");
            s.name = name;
            d = make_data(&s);
            if (d == NULL || gbt__quantize(d, max_bin_of(&s), 2, &qm) != GBT_OK) {
                ok(0, "ops cpu = brute: %s (set-up failed: %s)", name, gbt_last_error());
                skip(SKIP_NO_DEVICE);
                gbt_dataset_free(d);
                continue;
            }
            if (qm.layout != layouts[l]) diag("%s: binned as layout %d, not %d", name, qm.layout, layouts[l]);
            ok(qm.layout == layouts[l] &&
                   run_ops(&s, d, &qm, gbt__backend_cpu(), -1, &brute_ops, -1),
               "ops cpu = brute: %s", name);
            if (have_cuda)
                ok(run_ops(&s, d, &qm, gbt__backend_cpu(), -1, gbt__backend_cuda(), 0),
                   "ops cuda = cpu: %s", name);
            else
                skip(SKIP_NO_DEVICE);
            gbt__qmatrix_free(&qm);
            gbt_dataset_free(d);
        }
}

/* ---- whole trainings -------------------------------------------------------------- */

static gbt_status set(gbt_booster *b, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static gbt_status set(gbt_booster *b, const char *name, const char *fmt, ...)
{
    char v[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    return gbt_booster_set_param(b, name, v);
}

static gbt_status train(const struct spec *s, const gbt_dataset *d, const char *device, int nthread,
                        gbt_booster **out, char **buf, size_t *len)
{
    gbt_booster *b = NULL;
    gbt_status st = gbt_booster_create(&b);
    const gbt_dataset *valid[1] = {d};
    *out = NULL;
    *buf = NULL;
    if (st == GBT_OK) st = set(b, "objective", "%s", obj_name(s->obj));
    if (st == GBT_OK && gbt_objective_is_multiclass(s->obj)) st = set(b, "num_class", "%d", s->K);
    if (st == GBT_OK) st = set(b, "device", "%s", device);
    if (st == GBT_OK) st = set(b, "nthread", "%d", nthread);
    if (st == GBT_OK) st = set(b, "max_bin", "%d", max_bin_of(s));
    if (st == GBT_OK) st = set(b, "grow_policy", "%s", s->policy == GBT_GROW_LOSSGUIDE ? "lossguide" : "depthwise");
    if (st == GBT_OK)
        st = set(b, "max_depth", "%d",
                 s->policy == GBT_GROW_LOSSGUIDE && s->max_leaves == 0 ? 0 : s->max_depth ? s->max_depth : 5);
    if (st == GBT_OK && s->policy == GBT_GROW_LOSSGUIDE)
        st = set(b, "max_leaves", "%d", s->max_leaves == 0 ? 16 : s->max_leaves < 0 ? 0 : s->max_leaves);
    if (st == GBT_OK && s->pool_mb != 0) st = set(b, "histogram_pool_size", "%g", s->pool_mb < 0 ? 0.0 : s->pool_mb);
    if (st == GBT_OK) st = set(b, "subsample", "%g", s->subsample);
    if (st == GBT_OK) st = set(b, "colsample_bynode", "%g", s->colsample);
    if (st == GBT_OK) st = set(b, "colsample_bytree", "%g", s->colsample < 1 ? 0.8 : 1.0);
    if (st == GBT_OK) st = set(b, "alpha", "%g", s->alpha);
    if (st == GBT_OK && s->max_delta_step > 0) st = set(b, "max_delta_step", "%g", s->max_delta_step);
    if (st == GBT_OK && s->obj == GBT_OBJ_REG_TWEEDIE) st = set(b, "tweedie_variance_power", "%g", 1.3);
    if (st == GBT_OK && s->obj == GBT_OBJ_REG_PSEUDOHUBERERROR) st = set(b, "huber_slope", "%g", 2.5);
    if (st == GBT_OK && s->obj == GBT_OBJ_REG_QUANTILEERROR)
        st = set(b, "quantile_alpha", "%g,%g,%g", test_quantiles[0], test_quantiles[1], test_quantiles[2]);
    if (st == GBT_OK && s->scale_pos != 1) st = set(b, "scale_pos_weight", "%g", s->scale_pos);
    if (st == GBT_OK && s->obj == GBT_OBJ_SURVIVAL_AFT) {
        static const char *const dists[] = {"normal", "logistic", "extreme"};
        st = set(b, "aft_loss_distribution", "%s", dists[s->aft_dist]);
        if (st == GBT_OK) st = set(b, "aft_loss_distribution_scale", "%g", s->aft_dist == 1 ? 0.8 : 1.2);
    }
    if (st == GBT_OK && s->rank_mean) st = set(b, "lambdarank_pair_method", "mean");
    if (st == GBT_OK && s->rank_mean) st = set(b, "lambdarank_num_pair_per_sample", "%d", 2);
    if (st == GBT_OK && s->rank_unbiased) st = set(b, "lambdarank_unbiased", "true");
    if (st == GBT_OK && s->base_score) st = set(b, "base_score", "%s", s->base_score);
    if (st == GBT_OK && s->monotone) st = set(b, "monotone_constraints", "%s", s->monotone);
    if (st == GBT_OK && s->interaction) st = set(b, "interaction_constraints", "%s", s->interaction);
    if (st == GBT_OK && s->max_cat_to_onehot) st = set(b, "max_cat_to_onehot", "%d", s->max_cat_to_onehot);
    if (st == GBT_OK && s->max_cat_threshold) st = set(b, "max_cat_threshold", "%d", s->max_cat_threshold);
    if (st == GBT_OK && s->cat_smooth > 0) st = set(b, "cat_smooth", "%g", s->cat_smooth);
    if (st == GBT_OK && s->cat_l2 > 0) st = set(b, "cat_l2", "%g", s->cat_l2);
    if (st == GBT_OK && s->min_data_per_group > 0) st = set(b, "min_data_per_group", "%g", s->min_data_per_group);
    if (st == GBT_OK && s->parallel) st = set(b, "num_parallel_tree", "%d", s->parallel);
    if (st == GBT_OK && s->dart) st = set(b, "booster", "dart");
    if (st == GBT_OK && s->dart) st = set(b, "rate_drop", "%g", 0.3);
    if (st == GBT_OK && s->dart) st = set(b, "skip_drop", "%g", 0.2);
    if (st == GBT_OK && s->dart) st = set(b, "one_drop", "1");
    if (st == GBT_OK && s->dart == 2) st = set(b, "sample_type", "weighted");
    if (st == GBT_OK && s->dart == 2) st = set(b, "normalize_type", "forest");
    if (st == GBT_OK) st = set(b, "seed", "%d", 11);
    if (st == GBT_OK) st = set(b, "verbosity", "%d", s->verbosity);
    if (st == GBT_OK) st = gbt_booster_train(b, d, s->rounds, valid, NULL, 1);
    if (st == GBT_OK) st = gbt_booster_save_to_buffer(b, buf, len);
    if (st != GBT_OK) {
        gbt_booster_free(b);
        return st;
    }
    *out = b;
    return GBT_OK;
}

/*
 * Predictions of b on d (dense data also through predict_dense) on the
 * booster's device; then leaf ids, SHAP values and the margins of rounds
 * [1, 2), and (dense data, up to 1100 rows) SHAP interaction values.
 */
static gbt_status predict_all(gbt_booster *b, const gbt_dataset *d, float **out, uint64_t *len)
{
    uint64_t n = 0, m = 0, l1 = 0, l2 = 0, l3 = 0, l4 = 0, l5 = 0, l6 = 0, l7 = 0, l8 = 0, ni;
    float *p;
    gbt_status st;
    gbt_dataset_shape(d, &n, &m);
    ni = n < 1100 ? n : 1100;
    st = gbt_booster_predict_size(b, n, 0, &l1);
    if (st == GBT_OK) st = gbt_booster_predict_size(b, n, GBT_PREDICT_MARGIN, &l2);
    if (st == GBT_OK) st = gbt_booster_predict_size(b, n, GBT_PREDICT_LEAF, &l5);
    if (st == GBT_OK) st = gbt_booster_predict_size(b, n, GBT_PREDICT_CONTRIBS, &l6);
    if (st == GBT_OK) st = gbt_booster_predict_size_rounds(b, n, GBT_PREDICT_MARGIN, 1, 2, &l7);
    if (st == GBT_OK && d->dense && quick < 2)
        st = gbt_booster_predict_size(b, ni, GBT_PREDICT_INTERACTIONS, &l8);
    if (st != GBT_OK) return st;
    if (d->dense) l3 = l1, l4 = l1;
    p = calloc(l1 + l2 + l3 + l4 + l5 + l6 + l7 + l8 + 1, sizeof *p);
    if (p == NULL) return GBT_E_NO_MEMORY;
    st = gbt_booster_predict(b, d, 0, p, l1);
    if (st == GBT_OK) st = gbt_booster_predict(b, d, GBT_PREDICT_MARGIN, p + l1, l2);
    if (st == GBT_OK && d->dense) {
        /* NaN replaced by a sentinel; the last two columns missing (NaN) */
        float *x = malloc(n * m * sizeof *x + 1), *y = malloc(n * m * sizeof *y + 1);
        st = x && y ? GBT_OK : GBT_E_NO_MEMORY;
        for (uint64_t i = 0; st == GBT_OK && i < n * m; i++) x[i] = isnan(d->dense[i]) ? -999.0f : d->dense[i];
        for (uint64_t r = 0; st == GBT_OK && r < n; r++)
            for (uint64_t f = 0; f < m; f++) y[r * m + f] = f + 2 < m ? d->dense[r * m + f] : NAN;
        if (st == GBT_OK) st = gbt_booster_predict_dense(b, x, n, m, -999.0f, 0, p + l1 + l2, l3);
        if (st == GBT_OK) st = gbt_booster_predict_dense(b, y, n, m, NAN, 0, p + l1 + l2 + l3, l4);
        if (st == GBT_OK && l8)
            st = gbt_booster_predict_dense(b, x, ni, m, -999.0f, GBT_PREDICT_INTERACTIONS,
                                           p + l1 + l2 + l3 + l4 + l5 + l6 + l7, l8);
        free(x);
        free(y);
    }
    if (st == GBT_OK) st = gbt_booster_predict(b, d, GBT_PREDICT_LEAF, p + l1 + l2 + l3 + l4, l5);
    if (st == GBT_OK) st = gbt_booster_predict(b, d, GBT_PREDICT_CONTRIBS, p + l1 + l2 + l3 + l4 + l5, l6);
    if (st == GBT_OK)
        st = gbt_booster_predict_rounds(b, d, GBT_PREDICT_MARGIN, 1, 2, p + l1 + l2 + l3 + l4 + l5 + l6, l7);
    if (st != GBT_OK) {
        free(p);
        return st;
    }
    *out = p;
    *len = l1 + l2 + l3 + l4 + l5 + l6 + l7 + l8;
    return GBT_OK;
}

/*
 * The device half of a case: s trained on d with device=cuda gives the CPU
 * model's bytes (m_cpu, n_cpu; st_cpu the CPU training's status), on
 * cuda:0; with `predict`, the CPU booster b_cpu predicts d (predict_all)
 * the same on the CPU and on the device.  Skips its checks without a device.
 */
static void cuda_equals_cpu(const struct spec *s, const gbt_dataset *d, gbt_status st_cpu, gbt_booster *b_cpu,
                            const char *m_cpu, size_t n_cpu, int predict)
{
    gbt_booster *bc = NULL;
    char *mc = NULL, dev[32] = "";
    size_t nc = 0;
    float *pc = NULL, *pg = NULL;
    uint64_t lc = 0, lg = 0;
    gbt_status sc;
    if (!have_cuda) {
        skip(SKIP_NO_DEVICE);
        if (predict) skip(SKIP_NO_DEVICE);
        return;
    }
    sc = train(s, d, "cuda", 2, &bc, &mc, &nc);
    if (sc != GBT_OK) diag("%s on cuda: %s", s->name, gbt_last_error());
    if (sc == GBT_OK) gbt_booster_get_attr(bc, "device", dev, sizeof dev);
    ok(st_cpu == GBT_OK && sc == GBT_OK && strcmp(dev, "cuda:0") == 0 && nc == n_cpu && memcmp(mc, m_cpu, n_cpu) == 0,
       "train device=cuda = device=cpu (%zu bytes, on %s): %s", nc, dev, s->name);
    gbt_free(mc);
    gbt_booster_free(bc);
    if (!predict) return;
    /* the CPU booster predicting on the CPU, then on the device */
    sc = b_cpu ? predict_all(b_cpu, d, &pc, &lc) : GBT_E_INTERNAL;
    if (sc == GBT_OK) sc = gbt_booster_set_param(b_cpu, "device", "cuda");
    if (sc == GBT_OK) sc = predict_all(b_cpu, d, &pg, &lg);
    if (sc != GBT_OK) diag("%s predictions: %s", s->name, gbt_last_error());
    ok(sc == GBT_OK && lc == lg && memcmp(pc, pg, lc * sizeof *pc) == 0,
       "predict, leaf ids, SHAP%s on cuda = on cpu (%llu values): %s",
       d->dense && quick < 2 ? " and interactions" : "", (unsigned long long)lc, s->name);
    free(pc);
    free(pg);
}

/*
 * Multi-target trainings (3 labels per row, one output each): multi-label
 * binary:logistic with weights, scale_pos_weight, subsampling and a given
 * intercept per target (base_score=[0.2,0.5,0.9]), and
 * reg:absoluteerror (each target's leaves refit to its own median): the
 * same bits on 1 and 2 threads and on the device, predictions included.
 */
static void test_multi_target(void)
{
    static const int objs[2] = {GBT_OBJ_BINARY_LOGISTIC, GBT_OBJ_REG_ABSOLUTEERROR};
    for (int i = 0; i < 2; i++) {
        struct spec s;
        gbt_dataset *d;
        gbt_booster *b1 = NULL, *b2 = NULL;
        char *m1 = NULL, *m2 = NULL;
        size_t n1 = 0, n2 = 0;
        float *y;
        gbt_status st;
        memset(&s, 0, sizeof s);
        s.name = i == 0 ? "multi-label binary:logistic" : "multi-target reg:absoluteerror";
        s.obj = objs[i];
        s.K = 3;
        s.layout = L_CSR; /* dense data would add SHAP interactions: costly on the emulator */
        s.rows = 300;
        s.cols = 6;
        s.rounds = 2;
        s.max_depth = 3;
        s.weights = 1;
        s.policy = i == 0 ? GBT_GROW_DEPTHWISE : GBT_GROW_LOSSGUIDE;
        s.subsample = 0.8;
        s.colsample = 1.0;
        s.scale_pos = i == 0 ? 2.0 : 1.0;
        s.base_score = i == 0 ? "[0.2,0.5,0.9]" : NULL;
        d = make_data(&s);
        y = d ? malloc(3 * d->nrow * sizeof *y) : NULL;
        st = y ? GBT_OK : GBT_E_NO_MEMORY;
        for (uint64_t r = 0; st == GBT_OK && r < d->nrow; r++) {
            /* target 0 the data's label; 1 and 2 partly its, partly noise */
            const float l = d->label[r], u = (float)unit(r, 3, 17);
            y[3 * r] = l;
            y[3 * r + 1] = i == 0 ? (u < 0.8f ? 1.0f - l : l) : 2.0f * l + u;
            y[3 * r + 2] = i == 0 ? (u < 0.5f ? 1.0f : 0.0f) : -l;
        }
        if (st == GBT_OK) st = gbt_dataset_set_field(d, "label", y, 3 * d->nrow);
        if (st == GBT_OK) st = train(&s, d, "cpu", 1, &b1, &m1, &n1);
        if (st == GBT_OK) st = train(&s, d, "cpu", 2, &b2, &m2, &n2);
        if (st != GBT_OK) diag("%s: %s", s.name, gbt_last_error());
        ok(st == GBT_OK && n1 == n2 && memcmp(m1, m2, n1) == 0 && strstr(m1, "\"num_target\": 3") != NULL &&
               (i == 1 || strstr(m1, "\"base_score\": \"0.2,0.5,0.9\"") != NULL),
           "%s: nthread=1 = nthread=2 (%zu bytes, num_target 3)", s.name, n1);
        cuda_equals_cpu(&s, d, st, b1, m1, n1, 1);
        gbt_free(m1);
        gbt_free(m2);
        gbt_booster_free(b1);
        gbt_booster_free(b2);
        free(y);
        gbt_dataset_free(d);
    }
}

/*
 * A dataset of no rows (XGBoost takes one): trained on and evaluated on
 * by the CPU, each tree a single leaf of 0; the CUDA backend refuses to
 * train on it by name, and predicts on it what the CPU does (nothing).
 */
static void test_empty(void)
{
    struct spec s;
    gbt_dataset *d = NULL;
    gbt_booster *b = NULL;
    char *m = NULL;
    size_t n = 0;
    float none[1] = {0.0f};
    int rounds = 0;
    gbt_status st;
    memset(&s, 0, sizeof s);
    s.name = "0 rows";
    s.obj = GBT_OBJ_REG_SQUAREDERROR;
    s.K = 1;
    s.layout = L_DENSE8;
    s.rounds = 2;
    s.max_depth = 3;
    s.policy = GBT_GROW_DEPTHWISE;
    s.subsample = 1.0;
    s.colsample = 1.0;
    s.scale_pos = 1.0;
    st = gbt_dataset_from_dense(none, 0, 4, NAN, &d);
    if (st == GBT_OK) st = gbt_dataset_set_field(d, "label", none, 0);
    if (st == GBT_OK) st = train(&s, d, "cpu", 1, &b, &m, &n);
    if (st != GBT_OK) diag("%s: %s", s.name, gbt_last_error());
    if (st == GBT_OK) st = gbt_booster_num_rounds(b, &rounds);
    ok(st == GBT_OK && rounds == 2, "%s: trains 2 rounds on the cpu (%d; %zu bytes)", s.name, rounds, n);
    if (have_cuda) {
        gbt_booster *bc = NULL;
        char *mc = NULL;
        size_t nc = 0;
        float *pc = NULL, *pg = NULL;
        uint64_t lc = 1, lg = 1;
        gbt_status sc = train(&s, d, "cuda", 1, &bc, &mc, &nc);
        ok(sc == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "no rows with device=cpu") != NULL,
           "%s: device=cuda refuses to train: %s", s.name, gbt_last_error());
        sc = b ? predict_all(b, d, &pc, &lc) : GBT_E_INTERNAL;
        if (sc == GBT_OK) sc = gbt_booster_set_param(b, "device", "cuda");
        if (sc == GBT_OK) sc = predict_all(b, d, &pg, &lg);
        if (sc != GBT_OK) diag("%s predictions: %s", s.name, gbt_last_error());
        ok(sc == GBT_OK && lc == 0 && lg == 0, "%s: predictions on cuda and cpu, none", s.name);
        free(pc);
        free(pg);
        gbt_free(mc);
        gbt_booster_free(bc);
    } else {
        skip(SKIP_NO_DEVICE);
        skip(SKIP_NO_DEVICE);
    }
    gbt_free(m);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/*
 * Constrained trainings (monotone, interaction, feature weights with
 * column sampling): the same bits on 1 and 2 threads and on the device.
 */
static void test_constrained(void)
{
    static const struct {
        int obj, policy, layout;
        const char *monotone, *interaction;
        int feature_weights;
        double alpha, max_delta_step;
    } cases[] = {
        {GBT_OBJ_REG_SQUAREDERROR, GBT_GROW_DEPTHWISE, L_DENSE8, "(1,-1,0,0,1,0,0,-1,0)", NULL, 0, 0, 0},
        {GBT_OBJ_REG_SQUAREDERROR, GBT_GROW_LOSSGUIDE, L_CSR, "{f1:1,f3:-1}", "[[0,1,2],[2,3,4,5],[6,7,8]]", 1, 0, 0},
        {GBT_OBJ_BINARY_LOGISTIC, GBT_GROW_LOSSGUIDE, L_DENSE16, "(0,1,0,0,0,0,0,0,-1)", NULL, 1, 0.2, 0.7},
        {GBT_OBJ_MULTI_SOFTPROB, GBT_GROW_DEPTHWISE, L_CSR, "(-1,0,0,1,0,0,0,0,0)", "[[0,3],[1,2,4,5,6,7,8]]", 0, 0, 0},
        {GBT_OBJ_REG_QUANTILEERROR, GBT_GROW_DEPTHWISE, L_DENSE8, "(1,0,0,0,0,0,0,0,0)", "[[0,1],[1,2,3,4]]", 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct spec s;
        char name[200];
        gbt_dataset *d;
        gbt_booster *b1 = NULL, *b2 = NULL;
        char *m1 = NULL, *m2 = NULL;
        size_t n1 = 0, n2 = 0;
        gbt_status st;
        if (!objective_selected(cases[i].obj)) continue;
        memset(&s, 0, sizeof s);
        s.obj = cases[i].obj;
        s.K = gbt_objective_is_multiclass(s.obj) ? 4 : outputs_of(s.obj);
        s.layout = cases[i].layout;
        s.rows = i == 1 ? 4000 : 900;
        s.cols = 9;
        s.rounds = 4;
        scale_case(&s);
        s.weights = (int)i % 2;
        s.policy = cases[i].policy;
        s.subsample = 1.0;
        s.colsample = cases[i].feature_weights ? 0.6 : 1.0;
        s.alpha = cases[i].alpha;
        s.max_delta_step = cases[i].max_delta_step;
        s.scale_pos = 1.0;
        s.monotone = cases[i].monotone;
        s.interaction = cases[i].interaction;
        snprintf(name, sizeof name, "%s %s %s %dx%d monotone %s%s%s%s", obj_name(s.obj),
                 s.policy == GBT_GROW_LOSSGUIDE ? "lossguide" : "depthwise", layout_name(s.layout), s.rows,
                 s.cols, s.monotone, s.interaction ? " interaction " : "", s.interaction ? s.interaction : "",
                 cases[i].feature_weights ? " feature_weights" : "");
        s.name = name;
        d = make_data(&s);
        if (d && cases[i].feature_weights) {
            const float fw[9] = {1, 0.5, 2, 3, 0, 1, 4, 0.25, 1};
            if (gbt_dataset_set_field(d, "feature_weights", fw, 9) != GBT_OK) diag("%s", gbt_last_error());
        }
        st = d ? train(&s, d, "cpu", 1, &b1, &m1, &n1) : GBT_E_INTERNAL;
        if (st == GBT_OK) st = train(&s, d, "cpu", 2, &b2, &m2, &n2);
        if (st != GBT_OK) diag("%s: %s", name, gbt_last_error());
        ok(st == GBT_OK && n1 == n2 && memcmp(m1, m2, n1) == 0, "train nthread=1 = nthread=2 (%zu bytes): %s",
           n1, name);
        cuda_equals_cpu(&s, d, st, b2, m2, n2, 0);
        gbt_free(m1);
        gbt_free(m2);
        gbt_booster_free(b1);
        gbt_booster_free(b2);
        gbt_dataset_free(d);
    }
}

/*
 * Data with categorical features (6 columns): f0, f3 numeric; f1 3
 * categories (one-hot at the default max_cat_to_onehot), f2 40 scattered
 * codes, f4 `big` categories (above 255: 16-bit codes), f5 7 categories
 * without missing values.  Each category adds its own effect to the label,
 * so partition splits pay.  Dense data has missing values in f1, f2, f4;
 * CSR data leaves 80% of the cells out (binned in the CSR layout).
 */
static gbt_dataset *make_cat_data(const struct spec *s, uint32_t big)
{
    static const char *const types[6] = {"q", "c", "c", "q", "c", "c"};
    const uint64_t n = (uint64_t)s->rows, m = 6;
    float *x = calloc(n * m, sizeof *x), *label = calloc(n, sizeof *label), *w = calloc(n, sizeof *w);
    gbt_dataset *d = NULL;
    gbt_status st = x && label && w ? GBT_OK : GBT_E_NO_MEMORY;
    for (uint64_t r = 0; st == GBT_OK && r < n; r++) {
        double score = 0;
        for (uint32_t f = 0; f < m; f++) {
            const double u = unit(21, r, f);
            float v;
            switch (f) {
            case 1: v = (float)floor(u * 3.0); break;
            case 2: v = (float)(5.0 * floor(u * 40.0) + 1.0); break;
            case 4: v = (float)((r * 37 + 11) % big); break; /* every category once in `big` rows */
            case 5: v = (float)floor(u * 7.0); break;
            default: v = (float)(u * 10.0 - 3.0); break;
            }
            if ((f == 1 || f == 2 || f == 4) && unit(22, r, f) < 0.08) v = NAN;
            if (s->layout == L_CSR && unit(23, r, f) < 0.8) v = NAN;
            x[r * m + f] = v;
            if (isnan(v)) score += f == 2 ? 0.7 : 0.0;
            else if (f == 0 || f == 3) score += (f ? 0.2 : -0.15) * v;
            else score += (f == 1 ? 3.0 : 1.0) * (2.0 * unit(24, (uint64_t)v, f) - 1.0);
        }
        {
            const double noise = unit(25, r, 0) - 0.5;
            switch (s->obj) {
            case GBT_OBJ_BINARY_LOGISTIC: label[r] = unit(26, r, 0) < 1.0 / (1.0 + exp(-2.0 * score)) ? 1.0f : 0.0f; break;
            case GBT_OBJ_MULTI_SOFTPROB: label[r] = (float)(((int)floor(fabs(score) * 2.0) + (noise > 0.3)) % s->K); break;
            default: label[r] = (float)(score + noise); break;
            }
        }
        w[r] = (float)(0.25 + 2.0 * unit(27, r, 0));
    }
    if (st == GBT_OK && s->layout == L_CSR) {
        uint64_t *ptr = calloc(n + 1, sizeof *ptr), k = 0;
        uint32_t *idx = calloc(n * m, sizeof *idx);
        float *val = calloc(n * m, sizeof *val);
        st = ptr && idx && val ? GBT_OK : GBT_E_NO_MEMORY;
        for (uint64_t r = 0; st == GBT_OK && r < n; r++) {
            for (uint32_t f = 0; f < m; f++)
                if (!isnan(x[r * m + f])) {
                    idx[k] = f;
                    val[k++] = x[r * m + f];
                }
            ptr[r + 1] = k;
        }
        if (st == GBT_OK) st = gbt_dataset_from_csr(ptr, idx, val, n, m, &d);
        free(ptr);
        free(idx);
        free(val);
    } else if (st == GBT_OK) {
        st = gbt_dataset_from_dense(x, n, m, NAN, &d);
    }
    if (st == GBT_OK) st = gbt_dataset_set_feature_types(d, types, m);
    if (st == GBT_OK) st = gbt_dataset_set_field(d, "label", label, n);
    if (st == GBT_OK && s->weights) st = gbt_dataset_set_field(d, "weight", w, n);
    if (st != GBT_OK) {
        diag("make_cat_data: %s", gbt_last_error());
        gbt_dataset_free(d);
        d = NULL;
    }
    free(x);
    free(label);
    free(w);
    return d;
}

/*
 * Categorical splits in a text dump ("[f2:{1,6}]"): those on f1 (3
 * categories, below every max_cat_to_onehot here: one-hot), and those whose
 * set holds several categories (partitions).
 */
static void count_cat_splits(const char *dump, int *onehot, int *several)
{
    *onehot = *several = 0;
    for (const char *p = strstr(dump, ":{"); p; p = strstr(p + 2, ":{")) {
        const char *end = strchr(p, '}'), *comma = strchr(p, ',');
        if (p - dump >= 3 && memcmp(p - 3, "[f1", 3) == 0) (*onehot)++;
        if (end && comma && comma < end) (*several)++;
    }
}

/*
 * Categorical features (issue 23): training on the emulated device (its
 * binning, split search, partition) gives the CPU's model byte for byte,
 * with XGBoost's parameters and with LightGBM's regularisation (issue 33);
 * the CPU's model predicts, gives leaf ids, SHAP values and interactions
 * on the device as on the CPU.
 */
static void test_categorical(void)
{
    static const struct {
        int obj, policy, layout, big, onehot, threshold;
        const char *monotone;
        double colsample, alpha, max_delta_step;
        double cat_smooth, cat_l2, min_data_per_group; /* LightGBM's regularisation */
    } cases[] = {
        {GBT_OBJ_REG_SQUAREDERROR, GBT_GROW_DEPTHWISE, L_DENSE8, 200, 0, 0, NULL, 1, 0, 0, 0, 0, 0},
        {GBT_OBJ_BINARY_LOGISTIC, GBT_GROW_LOSSGUIDE, L_DENSE16, 300, 0, 6, NULL, 1, 0, 0, 0, 0, 0},
        {GBT_OBJ_MULTI_SOFTPROB, GBT_GROW_DEPTHWISE, L_CSR, 300, 8, 0, NULL, 0.7, 0, 0, 0, 0, 0},
        {GBT_OBJ_REG_SQUAREDERROR, GBT_GROW_LOSSGUIDE, L_DENSE8, 120, 0, 3, "(1,0,0,-1,0,0)", 1, 0.1, 0.5, 0, 0, 0},
        {GBT_OBJ_MULTI_SOFTPROB, GBT_GROW_DEPTHWISE, L_DENSE8, 200, 0, 16, NULL, 1, 0, 0, 2, 1, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct spec s;
        char name[260], reg[80] = "";
        gbt_dataset *d;
        gbt_booster *b1 = NULL;
        char *m1 = NULL, *dump = NULL;
        size_t n1 = 0, nj = 0;
        int ncat = 0, nset = 0;
        gbt_status st;
        if (!objective_selected(cases[i].obj)) continue;
        memset(&s, 0, sizeof s);
        s.obj = cases[i].obj;
        s.K = gbt_objective_is_multiclass(s.obj) ? 3 : 1;
        s.layout = cases[i].layout;
        /* the sanitizer runs (GBT_TEST_QUICK 1 and 2): fewer rows and rounds, the same cases */
        s.rows = quick >= 2 ? 300 : quick ? 500 : 1200;
        s.cols = 6;
        s.rounds = quick ? 2 : 3;
        s.weights = (int)i % 2;
        s.policy = cases[i].policy;
        s.subsample = 1.0;
        s.colsample = cases[i].colsample;
        s.alpha = cases[i].alpha;
        s.max_delta_step = cases[i].max_delta_step;
        s.scale_pos = 1.0;
        s.monotone = cases[i].monotone;
        s.max_cat_to_onehot = cases[i].onehot;
        s.max_cat_threshold = cases[i].threshold;
        s.cat_smooth = cases[i].cat_smooth;
        s.cat_l2 = cases[i].cat_l2;
        s.min_data_per_group = cases[i].min_data_per_group;
        if (s.cat_smooth > 0 || s.cat_l2 > 0 || s.min_data_per_group > 0)
            snprintf(reg, sizeof reg, ", cat_smooth %g, cat_l2 %g, min_data_per_group %g", s.cat_smooth, s.cat_l2,
                     s.min_data_per_group);
        s.pool_mb = i == 3 ? 0.0001 : 0; /* the fourth case: the smallest histogram pool (histograms dropped, built again) */
        snprintf(name, sizeof name, "categorical %s %s %s %dx6, %d categories, max_cat_to_onehot %d, "
                 "max_cat_threshold %d%s%s%s%s", obj_name(s.obj), s.policy == GBT_GROW_LOSSGUIDE ? "lossguide" : "depthwise",
                 layout_name(s.layout), s.rows, cases[i].big, s.max_cat_to_onehot ? s.max_cat_to_onehot : 4,
                 s.max_cat_threshold ? s.max_cat_threshold : 64, s.monotone ? " monotone " : "",
                 s.monotone ? s.monotone : "", s.pool_mb > 0 ? ", histogram_pool_size 0.0001" : "",
                 reg);
        s.name = name;
        s.categorical = 1;
        d = make_cat_data(&s, (uint32_t)cases[i].big);
        {
            /* max_bin 256: the uint16 layout comes from the categories alone */
            struct gbt_qmatrix q;
            const int want = s.layout == L_DENSE8 ? GBT_QM_DENSE8 : s.layout == L_DENSE16 ? GBT_QM_DENSE16 : GBT_QM_CSR;
            int got = -1;
            if (d && gbt__quantize(d, max_bin_of(&s), 1, &q) == GBT_OK) {
                got = q.layout;
                gbt__qmatrix_free(&q);
            }
            ok(got == want, "the data bins in the %s layout (%d): %s", layout_name(s.layout), got, name);
        }
        st = d ? train(&s, d, "cpu", 1, &b1, &m1, &n1) : GBT_E_INTERNAL;
        if (st != GBT_OK) diag("%s: %s", name, gbt_last_error());
        if (st == GBT_OK) st = gbt_booster_dump(b1, "text", -1, 0, &dump, &nj);
        if (st == GBT_OK) count_cat_splits(dump, &ncat, &nset);
        /* the case tests what it says: one-category and several-category splits */
        ok(st == GBT_OK && ncat >= 1 && nset >= 2,
           "the CPU model has %d one-hot splits (f1) and %d partition splits of several categories: %s", ncat, nset,
           name);
        cuda_equals_cpu(&s, d, st, b1, m1, n1, 1);
        gbt_free(m1);
        gbt_free(dump);
        gbt_booster_free(b1);
        gbt_dataset_free(d);
    }
}

/*
 * Category sets of every packed shape (common/catset.h): sorted lists
 * ({3, 16777215}), bitmaps from 0 and bitmaps at their own offset near
 * 2^24, in an XGBoost model of 2 trees; predictions, leaf ids and SHAP
 * values on the device equal the CPU's, bit for bit, on codes around them.
 */
static void test_sparse_sets(void)
{
    static const char *tree =
        "{\"base_weights\":[0,0,0,%d,%d,%d,%d],\"categories\":[%s],\"categories_nodes\":[0,1,2],"
        "\"categories_segments\":[0,%d,%d],\"categories_sizes\":[%d,%d,%d],\"default_left\":[1,0,1,0,0,0,0],"
        "\"id\":%d,\"left_children\":[1,3,5,-1,-1,-1,-1],\"loss_changes\":[3,2,1,0,0,0,0],"
        "\"parents\":[2147483647,0,0,1,1,2,2],\"right_children\":[2,4,6,-1,-1,-1,-1],"
        "\"split_conditions\":[0,0,0,%d,%d,%d,%d],\"split_indices\":[%d,%d,%d,0,0,0,0],\"split_type\":[1,1,1,0,0,0,0],"
        "\"sum_hessian\":[8,4,4,2,2,2,2],\"tree_param\":{\"num_deleted\":\"0\",\"num_feature\":\"4\",\"num_nodes\":\"7\","
        "\"size_leaf_vector\":\"1\"}}";
    static const float codes[] = {0, 2, 3, 5, 31, 40, 41, 1000000, 1000001, 1000040, 9000000, 16777183, 16777184,
                                  16777187, 16777200, 16777214, 16777215, 16777216, -1, NAN};
    enum { NC = sizeof codes / sizeof codes[0], NR = NC * NC };
    char t0[1024], t1[1024], js[4096], c1[400];
    float *x = malloc(NR * 4 * sizeof *x), *pc = NULL, *pg = NULL;
    uint64_t lc = 0, lg = 0;
    gbt_booster *b = NULL;
    gbt_dataset *d = NULL;
    gbt_status st;
    int at = 0;
    if (!have_cuda) {
        skip(SKIP_NO_DEVICE);
        free(x);
        return;
    }
    /* tree 1's sets: {1000000, 1000001, 1000040} (a bitmap at its offset), {5, 9000000, 16777200} (a list),
       every third code from 16777184 (a bitmap of the last word) */
    at = snprintf(c1, sizeof c1, "1000000,1000001,1000040,5,9000000,16777200");
    for (int k = 16777184; k < 16777216; k += 3) at += snprintf(c1 + at, sizeof c1 - (size_t)at, ",%d", k);
    snprintf(t0, sizeof t0, tree, 1, 2, 3, 4,
             "3,16777215,0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,16777215", 2, 23, 2, 21, 1, 0, 1, 2,
             3, 4, 0, 1, 0);
    snprintf(t1, sizeof t1, tree, 10, 20, 30, 40, c1, 3, 6, 3, 3, 11, 1, 10, 20, 30, 40, 1, 0, 1);
    snprintf(js, sizeof js,
             "{\"learner\":{\"attributes\":{},\"feature_names\":[],\"feature_types\":[\"c\",\"c\",\"q\",\"q\"],"
             "\"gradient_booster\":{\"model\":{\"gbtree_model_param\":{\"num_parallel_tree\":\"1\",\"num_trees\":\"2\"},"
             "\"iteration_indptr\":[0,1,2],\"tree_info\":[0,0],\"trees\":[%s,%s]},\"name\":\"gbtree\"},"
             "\"learner_model_param\":{\"base_score\":\"5E-1\",\"boost_from_average\":\"0\",\"num_class\":\"0\","
             "\"num_feature\":\"4\",\"num_target\":\"1\"},\"objective\":{\"name\":\"reg:squarederror\","
             "\"reg_loss_param\":{\"scale_pos_weight\":\"1\"}}},\"version\":[3,2,0]}",
             t0, t1);
    for (int i = 0; x && i < NR; i++) {
        x[4 * i] = codes[i / NC];
        x[4 * i + 1] = codes[i % NC];
        x[4 * i + 2] = x[4 * i + 3] = 0.0f;
    }
    st = x ? gbt_booster_load_from_buffer(js, strlen(js), &b) : GBT_E_NO_MEMORY;
    if (st == GBT_OK) st = gbt_dataset_from_dense(x, NR, 4, NAN, &d);
    if (st == GBT_OK) st = gbt_booster_set_param(b, "device", "cpu");
    if (st == GBT_OK) st = predict_all(b, d, &pc, &lc);
    if (st == GBT_OK) st = gbt_booster_set_param(b, "device", "cuda");
    if (st == GBT_OK) st = predict_all(b, d, &pg, &lg);
    if (st != GBT_OK) diag("sparse category sets: %s", gbt_last_error());
    ok(st == GBT_OK && lc == lg && lc > 0 && memcmp(pc, pg, lc * sizeof *pc) == 0,
       "category sets as lists and as bitmaps at their offsets near 2^24: predict, leaf ids, SHAP on cuda = on cpu "
       "(%llu values)", (unsigned long long)lc);
    free(pc);
    free(pg);
    free(x);
    gbt_dataset_free(d);
    gbt_booster_free(b);
}

static void test_trainings(void)
{
    int i = 0, aft_cases = 0;
    for (int obj = 0; obj < GBT_OBJ_COUNT; obj++)
        for (int pol = 0; pol < 2; pol++)
            for (int l = 0; l < 3; l++, i++) {
                struct spec s;
                char name[160];
                gbt_dataset *d;
                gbt_booster *b1 = NULL, *b2 = NULL;
                char *m1 = NULL, *m2 = NULL;
                size_t n1 = 0, n2 = 0;
                gbt_status st;
                if (l == L_DENSE16 && obj % 2 == 1) continue; /* dense16 for half the objectives */
                /* the objectives after the first six only change the gradients: one policy per layout */
                /* (survival:aft: both policies, for its three distributions) */
                if (obj >= GBT_OBJ_COUNT_POISSON && obj != GBT_OBJ_SURVIVAL_AFT && (obj + l) % 2 != pol)
                    continue;
                if (!objective_selected(obj) || !quick_keeps(obj, l, pol)) continue;
                memset(&s, 0, sizeof s);
                s.obj = obj;
                s.K = gbt_objective_is_multiclass(obj) ? 4 : outputs_of(obj);
                s.layout = l;
                s.rows = i % 4 == 3 ? 6000 : 900;
                s.cols = 11;
                s.rounds = 4;
                scale_case(&s);
                s.weights = i % 2;
                s.policy = pol ? GBT_GROW_LOSSGUIDE : GBT_GROW_DEPTHWISE;
                s.subsample = i % 3 == 0 ? 0.8 : 1.0;
                s.colsample = i % 3 == 1 ? 0.7 : 1.0;
                s.alpha = i % 5 == 2 ? 0.1 : 0.0;
                s.max_delta_step = i % 6 == 5 ? 0.5 : 0.0;
                s.scale_pos = is_binary(obj) && i % 2 == 0 ? 2.5 : 1.0;
                if (obj == GBT_OBJ_SURVIVAL_AFT) s.aft_dist = aft_cases++ % 3;
                if (!part_keeps()) continue;
                s.rank_mean = gbt_objective_is_ranking(obj) && pol == 1;
                s.rank_unbiased = gbt_objective_is_ranking(obj) && l != L_CSR;
                snprintf(name, sizeof name, "%s%s%s %s %s %dx%d%s%s%s%s", obj_name(obj),
                         s.rank_unbiased ? " unbiased" : "",
                         s.rank_mean                 ? " mean"
                         : obj != GBT_OBJ_SURVIVAL_AFT ? ""
                         : s.aft_dist == 0           ? " normal"
                         : s.aft_dist == 1           ? " logistic"
                                                     : " extreme",
                         pol ? "lossguide" : "depthwise", layout_name(l), s.rows, s.cols,
                         s.weights ? " weights" : "", s.subsample < 1 ? " subsample" : "",
                         s.colsample < 1 ? " colsample" : "", s.scale_pos != 1 ? " scale_pos_weight" : "");
                s.name = name;
                d = make_data(&s);
                st = d ? train(&s, d, "cpu", 1, &b1, &m1, &n1) : GBT_E_INTERNAL;
                if (st == GBT_OK) st = train(&s, d, "cpu", 2, &b2, &m2, &n2);
                if (st != GBT_OK) diag("%s: %s", name, gbt_last_error());
                ok(st == GBT_OK && n1 == n2 && memcmp(m1, m2, n1) == 0,
                   "train nthread=1 = nthread=2 (%zu bytes): %s", n1, name);
                cuda_equals_cpu(&s, d, st, b2, m2, n2, 1);
                gbt_free(m1);
                gbt_free(m2);
                gbt_booster_free(b1);
                gbt_booster_free(b2);
                gbt_dataset_free(d);
            }
}

/*
 * More than 1024 partition tiles (2048 rows each): the device's tile scan
 * carries its prefix from one chunk of 1024 tiles to the next, and its
 * CUB storage is reused across chunks.
 */
static void test_many_tiles(void)
{
    struct spec s;
    gbt_dataset *d;
    struct gbt_qmatrix qm;
    memset(&s, 0, sizeof s);
    s.obj = GBT_OBJ_REG_SQUAREDERROR;
    s.K = 1;
    s.layout = L_DENSE8;
    s.rows = 1100 * 2048;
    s.cols = 3;
    s.rounds = 1;
    s.policy = GBT_GROW_DEPTHWISE;
    s.subsample = s.colsample = 1.0;
    s.scale_pos = 1.0;
    s.name = "many tiles";
    d = make_data(&s);
    if (d == NULL || gbt__quantize(d, max_bin_of(&s), 2, &qm) != GBT_OK) {
        ok(0, "ops cuda = cpu on %d rows (1100 partition tiles): set-up failed: %s", s.rows, gbt_last_error());
        gbt_dataset_free(d);
        return;
    }
    if (have_cuda)
        ok(run_ops(&s, d, &qm, gbt__backend_cpu(), -1, gbt__backend_cuda(), 0),
           "ops cuda = cpu on %d rows (1100 partition tiles)", s.rows);
    else
        skip(SKIP_NO_DEVICE);
    gbt__qmatrix_free(&qm);
    gbt_dataset_free(d);
}

/*
 * A deep depthwise tree: levels of more than 1024 nodes, so that the
 * device's per-batch loops (segments, partition) take several turns.
 */
static void test_deep_tree(void)
{
    struct spec s;
    gbt_dataset *d;
    gbt_booster *b1 = NULL, *bc = NULL;
    char *m1 = NULL, *mc = NULL;
    size_t n1 = 0, nc = 0;
    gbt_status st, sc = GBT_E_INTERNAL;
    memset(&s, 0, sizeof s);
    s.obj = GBT_OBJ_REG_SQUAREDERROR;
    s.K = 1;
    s.layout = L_DENSE8;
    s.rows = 8000; /* 4000 rows give no level above 1024 nodes; 8000 give one of 1738 */
    s.cols = 11;
    s.rounds = 1;
    s.policy = GBT_GROW_DEPTHWISE;
    s.subsample = s.colsample = 1.0;
    s.max_depth = 12;
    s.scale_pos = 1.0;
    s.name = "deep";
    d = make_data(&s);
    st = d ? train(&s, d, "cpu", 2, &b1, &m1, &n1) : GBT_E_INTERNAL;
    if (st == GBT_OK && have_cuda) sc = train(&s, d, "cuda", 2, &bc, &mc, &nc);
    if (st != GBT_OK || sc != GBT_OK) diag("deep tree: %s", gbt_last_error());
    if (have_cuda)
        ok(st == GBT_OK && sc == GBT_OK && nc == n1 && memcmp(mc, m1, n1) == 0,
           "a depth-12 tree on %d rows (levels of more than 1024 nodes): device=cuda = device=cpu "
           "(%zu bytes)",
           s.rows, n1);
    else
        skip(SKIP_NO_DEVICE);
    gbt_free(m1);
    gbt_free(mc);
    gbt_booster_free(b1);
    gbt_booster_free(bc);
    gbt_dataset_free(d);
}

/* The debug lines' histogram counters, summed over a training (gbt_set_log_callback). */
struct hist_log {
    unsigned long long built, subtracted, dropped, rebuilt;
    unsigned pool, bins;
    int lines;
};

static void count_hist_log(int level, const char *msg, void *user)
{
    struct hist_log *h = user;
    const char *p = strstr(msg, "histograms: ");
    unsigned long long b, s, d, r;
    unsigned pool;
    const char *q = strstr(msg, "training on ");
    unsigned long long rows;
    unsigned nfeat;
    char dev[32];
    (void)level;
    if (q) (void)sscanf(q, "training on %31[^:]: %llu rows, %u features, %u bins", dev, &rows, &nfeat, &h->bins);
    if (p && sscanf(p, "histograms: %llu built, %llu subtracted, %llu dropped from the pool of %u, %llu "
                       "parents rebuilt", &b, &s, &d, &pool, &r) == 5) {
        h->built += b;
        h->subtracted += s;
        h->dropped += d;
        h->rebuilt += r;
        h->pool = pool;
        h->lines++;
    }
}

/* A training of s on device with histogram_pool_size pool_mb, and its histogram counters. */
static gbt_status train_logged(struct spec *s, const gbt_dataset *d, const char *device, double pool_mb,
                               struct hist_log *h, char **buf, size_t *len)
{
    gbt_booster *b = NULL;
    gbt_status st;
    memset(h, 0, sizeof *h);
    s->pool_mb = pool_mb;
    s->verbosity = 3;
    gbt_set_log_callback(count_hist_log, h);
    st = train(s, d, device, 2, &b, buf, len);
    gbt_set_log_callback(NULL, NULL);
    s->verbosity = 0;
    gbt_booster_free(b);
    return st;
}

/*
 * The histogram pool (histogram_pool_size): trees of depth 22, depthwise
 * and lossguide without a leaf limit, give the model of an unbounded pool
 * when the pool holds 2 histograms or 20 (the dropped parents' children
 * both built: integer sums make a rebuilt histogram equal the subtracted
 * one), on the CPU and on CUDA; a device too small for an unbounded pool
 * says so with the pool's numbers, and trains with a small one.  Then the
 * operations of grow.c with pools of 2 and 3 slots, histogram by
 * histogram: CPU = brute force, CUDA = CPU.
 */
static void test_pool(void)
{
    for (int pol = 0; pol < 2; pol++) {
        struct spec s;
        gbt_dataset *d;
        gbt_booster *b = NULL;
        char *ref = NULL, *m = NULL, name[64];
        size_t nref = 0, nm = 0;
        struct hist_log h;
        gbt_status st;
        memset(&s, 0, sizeof s);
        s.obj = GBT_OBJ_REG_SQUAREDERROR;
        s.K = 1;
        s.layout = L_DENSE8;
        /* 500 rows: 292 histograms (depthwise), each pool still dropping (560 and 396 dropped with the
           pools of 2 and 16); 1500 rows (830 histograms) cost three times as much to emulate */
        s.rows = 500;
        s.cols = 7;
        s.rounds = 2;
        s.policy = pol ? GBT_GROW_LOSSGUIDE : GBT_GROW_DEPTHWISE;
        s.subsample = 1.0;
        s.colsample = pol ? 0.8 : 1.0;
        s.scale_pos = 1.0;
        s.max_depth = 22;
        s.max_leaves = -1;
        snprintf(name, sizeof name, "%s max_depth=22%s", pol ? "lossguide" : "depthwise",
                 pol ? " max_leaves=0 colsample_bynode=0.8" : "");
        s.name = name;
        d = make_data(&s);
        st = d ? train_logged(&s, d, "cpu", -1, &h, &ref, &nref) : GBT_E_INTERNAL;
        if (st != GBT_OK) diag("%s: %s", name, gbt_last_error());
        ok(st == GBT_OK && h.lines == s.rounds && h.dropped == 0 && h.rebuilt == 0 && h.subtracted > 100,
           "%s, no pool limit: %llu histograms built, %llu subtracted, none dropped", name, h.built,
           h.subtracted);
        for (int k = 0; k < 2 && st == GBT_OK; k++) {
            /* 0.0001 MB: the 2 slots of the smallest pool; 0.25 MB: some 20 slots */
            const double mb = k ? 0.25 : 0.0001;
            gbt_status sk = train_logged(&s, d, "cpu", mb, &h, &m, &nm);
            /* the documented formula: max(2, floor(MB * 2^20 / (16 * bins))) */
            const double want = h.bins ? floor(mb * 1048576.0 / (16.0 * h.bins)) : -1;
            if (sk != GBT_OK) diag("%s: %s", name, gbt_last_error());
            ok(sk == GBT_OK && nm == nref && memcmp(m, ref, nref) == 0 && h.rebuilt > 0 &&
                   h.pool == (want < 2 ? 2u : (unsigned)want),
               "%s, a pool of %u histograms (histogram_pool_size=%g): the same model (%zu bytes), "
               "%llu dropped, the children of %llu parents both built",
               name, h.pool, mb, nm, h.dropped, h.rebuilt);
            gbt_free(m);
            m = NULL;
            if (!have_cuda) {
                skip(SKIP_NO_DEVICE);
                continue;
            }
            if (k && quick >= 2) { /* the sanitizers: the pool of 2, which drops and rebuilds, is the path to check */
                skip("GBT_TEST_QUICK=%d: a depth-22 tree with the default pool on cuda runs in the plain run", quick);
                continue;
            }
            sk = train_logged(&s, d, "cuda", k ? 0 : 0.0001, &h, &m, &nm);
            if (sk != GBT_OK) diag("%s on cuda: %s", name, gbt_last_error());
            ok(sk == GBT_OK && nm == nref && memcmp(m, ref, nref) == 0 && (k || h.rebuilt > 0),
               "%s on cuda, %s: the CPU's model (%zu bytes)", name,
               k ? "the default pool" : "a pool of 2 histograms", nm);
            gbt_free(m);
            m = NULL;
        }
        if (have_cuda && st == GBT_OK) {
            /* 21 MB free: training with the unbounded pool (500 histograms of 16 * bins bytes, one per
               row) needs about 25 MB, with a 1 MB pool about 18 */
            char free_bytes[32], slots[48];
            snprintf(free_bytes, sizeof free_bytes, "%d", 21000000);
            snprintf(slots, sizeof slots, "a histogram pool of %d slots", s.rows);
            setenv("GBT_CUDA_FAKE_FREE_BYTES", free_bytes, 1);
            s.pool_mb = -1;
            st = train(&s, d, "cuda", 2, &b, &m, &nm);
            ok(st == GBT_E_DEVICE && strstr(gbt_last_error(), slots) &&
                   strstr(gbt_last_error(), "lower histogram_pool_size"),
               "%s on a cuda device with %s bytes free and no pool limit: refused (%s)", name, free_bytes,
               gbt_last_error());
            gbt_booster_free(b);
            b = NULL;
            gbt_free(m);
            m = NULL;
            s.pool_mb = 1;
            st = quick >= 2 ? GBT_OK : train(&s, d, "cuda", 2, &b, &m, &nm);
            if (st != GBT_OK) diag("%s: %s", name, gbt_last_error());
            if (quick >= 2)
                skip("GBT_TEST_QUICK=%d: the 21 MB device's training with a 1 MB pool runs in the plain run", quick);
            else
                ok(st == GBT_OK && nm == nref && memcmp(m, ref, nref) == 0,
                   "%s on a cuda device with 21 MB free, histogram_pool_size=1: the CPU's model", name);
            unsetenv("GBT_CUDA_FAKE_FREE_BYTES");
            gbt_booster_free(b);
            gbt_free(m);
        } else {
            skip(SKIP_NO_DEVICE);
            skip(SKIP_NO_DEVICE);
        }
        gbt_free(ref);
        gbt_dataset_free(d);
    }
    for (int c = 0; c < 4; c++) {
        struct spec s;
        char name[96];
        gbt_dataset *d;
        struct gbt_qmatrix qm;
        memset(&s, 0, sizeof s);
        s.obj = c == 3 ? GBT_OBJ_BINARY_LOGISTIC : GBT_OBJ_REG_SQUAREDERROR;
        s.K = 1;
        s.layout = c == 2 ? L_CSR : L_DENSE8;
        s.rows = 900;
        s.cols = 9;
        s.rounds = 2;
        s.weights = c % 2;
        s.policy = c % 2 ? GBT_GROW_LOSSGUIDE : GBT_GROW_DEPTHWISE;
        s.subsample = 1.0;
        s.colsample = c == 1 ? 0.7 : 1.0;
        s.scale_pos = 1.0;
        s.small_smem = c == 0;
        s.pool_slots = c < 2 ? 2 : 3;
        snprintf(name, sizeof name, "%s %s, a pool of %u histograms", s.policy ? "lossguide" : "depthwise",
                 layout_name(s.layout), s.pool_slots);
        s.name = name;
        d = make_data(&s);
        if (d == NULL || gbt__quantize(d, max_bin_of(&s), 2, &qm) != GBT_OK) {
            ok(0, "ops cpu = brute: %s (set-up failed: %s)", name, gbt_last_error());
            skip(SKIP_NO_DEVICE);
            gbt_dataset_free(d);
            continue;
        }
        ok(run_ops(&s, d, &qm, gbt__backend_cpu(), -1, &brute_ops, -1), "ops cpu = brute: %s", name);
        if (have_cuda)
            ok(run_ops(&s, d, &qm, gbt__backend_cpu(), -1, gbt__backend_cuda(), 0), "ops cuda = cpu: %s", name);
        else
            skip(SKIP_NO_DEVICE);
        gbt__qmatrix_free(&qm);
        gbt_dataset_free(d);
    }
}

/*
 * Continued training: k rounds on one device, saved, loaded (or sliced to
 * k rounds from the whole training) and trained for the rest on the other
 * give the bytes of the uninterrupted training on the CPU; also for rounds
 * of several parallel trees (a leaf-refitting objective among them, whose
 * parallel trees refit against the round's starting margins), and for
 * booster=dart (its drops drawn on the host, the margins without them
 * handed to each backend; the weights of a slice are those after every
 * round, so its continuation differs and is not compared).
 */
static void test_continued(void)
{
    static const struct {
        int obj, K, policy;
        double subsample, colsample;
        int parallel, dart;
    } cases[] = {{GBT_OBJ_BINARY_LOGISTIC, 1, GBT_GROW_DEPTHWISE, 0.8, 0.7, 0, 0},
                 {GBT_OBJ_MULTI_SOFTPROB, 3, GBT_GROW_LOSSGUIDE, 0.9, 0.8, 0, 0},
                 {GBT_OBJ_MULTI_SOFTPROB, 3, GBT_GROW_DEPTHWISE, 0.8, 0.8, 2, 0},
                 {GBT_OBJ_REG_ABSOLUTEERROR, 1, GBT_GROW_DEPTHWISE, 0.8, 0.8, 3, 0},
                 {GBT_OBJ_BINARY_LOGISTIC, 1, GBT_GROW_LOSSGUIDE, 0.8, 0.8, 0, 2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct spec s;
        gbt_dataset *d;
        gbt_booster *full = NULL, *part = NULL, *loaded = NULL, *sliced = NULL;
        char *mf = NULL, *mp = NULL, *ml = NULL, *ms = NULL;
        size_t nf = 0, np = 0, nl = 0, nsl = 0;
        gbt_status st;
        const char *dev_first = have_cuda ? "cuda" : "cpu", *dev_rest = have_cuda ? "cuda" : "cpu";
        memset(&s, 0, sizeof s);
        s.obj = cases[c].obj;
        s.K = cases[c].K;
        s.layout = L_DENSE8;
        s.rows = quick >= 2 || cases[c].dart ? 300 : 1500; /* dart: each round sums every tree on the host */
        s.cols = 7;
        s.policy = cases[c].policy;
        s.subsample = cases[c].subsample;
        s.colsample = cases[c].colsample;
        s.parallel = cases[c].parallel;
        s.dart = cases[c].dart;
        s.scale_pos = 1.0;
        s.name = "continued";
        d = make_data(&s);
        s.rounds = 5;
        st = d ? train(&s, d, "cpu", 2, &full, &mf, &nf) : GBT_E_INTERNAL;
        s.rounds = 2;
        if (st == GBT_OK) st = train(&s, d, dev_first, 2, &part, &mp, &np);
        if (st == GBT_OK) st = gbt_booster_load_from_buffer(mp, np, &loaded);
        if (st == GBT_OK) st = gbt_booster_slice(full, 0, 2, &sliced);
        for (int k = 0; k < (s.dart ? 1 : 2) && st == GBT_OK; k++) {
            gbt_booster *b = k ? sliced : loaded;
            const gbt_dataset *valid[1] = {d};
            st = set(b, "device", "%s", dev_rest);
            if (st == GBT_OK) st = set(b, "nthread", "%d", 3);
            if (st == GBT_OK) st = set(b, "verbosity", "%d", 0);
            if (st == GBT_OK) st = gbt_booster_train(b, d, 3, valid, NULL, 1);
            if (st == GBT_OK) st = gbt_booster_save_to_buffer(b, k ? &ms : &ml, k ? &nsl : &nl);
        }
        if (st != GBT_OK) diag("continued training: %s", gbt_last_error());
        ok(st == GBT_OK && nl == nf && memcmp(ml, mf, nf) == 0,
           "%s, %s, num_parallel_tree %d%s: 2 rounds on %s, saved, loaded, 3 more on %s = 5 rounds on cpu (%zu bytes)",
           obj_name(s.obj), s.policy == GBT_GROW_LOSSGUIDE ? "lossguide" : "depthwise", s.parallel ? s.parallel : 1,
           s.dart ? ", dart" : "", dev_first, dev_rest, nf);
        if (!s.dart)
            ok(st == GBT_OK && nsl == nf && memcmp(ms, mf, nf) == 0,
           "%s, num_parallel_tree %d: rounds [0, 2) sliced from the 5 rounds, 3 more on %s = the 5 rounds",
           obj_name(s.obj), s.parallel ? s.parallel : 1, dev_rest);
        gbt_free(mf);
        gbt_free(mp);
        gbt_free(ml);
        gbt_free(ms);
        gbt_booster_free(full);
        gbt_booster_free(part);
        gbt_booster_free(loaded);
        gbt_booster_free(sliced);
        gbt_dataset_free(d);
    }
}

/*
 * process_type=update (refresh, then prune) runs on the host whatever the
 * device: the trees of a CPU model updated on cuda with 3 threads are the
 * bytes of the CPU's on 1 thread (softprob with 2 parallel trees: three
 * outputs' gradients, eta / 2, CSR rows walked on their values; updated on
 * other, weighted rows).
 */
static void test_update(void)
{
    struct spec s;
    gbt_dataset *d, *d2;
    gbt_booster *orig = NULL, *u[2] = {NULL, NULL};
    char *mo = NULL, *mu[2] = {NULL, NULL};
    size_t no = 0, nu[2] = {0, 0};
    int rounds[2] = {0, 0};
    gbt_status st;
    memset(&s, 0, sizeof s);
    s.obj = GBT_OBJ_MULTI_SOFTPROB;
    s.K = 3;
    s.layout = L_CSR;
    s.rows = 300;
    s.cols = 6;
    s.policy = GBT_GROW_LOSSGUIDE;
    s.subsample = 1.0;
    s.colsample = 1.0;
    s.parallel = 2;
    s.scale_pos = 1.0;
    s.name = "update";
    s.rounds = 3;
    d = make_data(&s);
    s.rows = 400; /* the data updated on: more rows, weighted */
    s.weights = 1;
    d2 = make_data(&s);
    st = d && d2 ? train(&s, d, "cpu", 2, &orig, &mo, &no) : GBT_E_INTERNAL;
    for (int k = 0; k < 2 && st == GBT_OK; k++) {
        st = gbt_booster_load_from_buffer(mo, no, &u[k]);
        if (st == GBT_OK) st = set(u[k], "device", "%s", k && have_cuda ? "cuda" : "cpu");
        if (st == GBT_OK) st = set(u[k], "nthread", "%d", k ? 3 : 1);
        if (st == GBT_OK) st = set(u[k], "verbosity", "%d", 0);
        if (st == GBT_OK) st = set(u[k], "process_type", "update");
        if (st == GBT_OK) st = set(u[k], "updater", "refresh,prune");
        if (st == GBT_OK) st = set(u[k], "gamma", "%g", 0.5);
        if (st == GBT_OK) st = gbt_booster_train(u[k], d2, 2, NULL, NULL, 0);
        if (st == GBT_OK) st = gbt_booster_num_rounds(u[k], &rounds[k]);
        if (st == GBT_OK) st = gbt_booster_save_to_buffer(u[k], &mu[k], &nu[k]);
    }
    if (st != GBT_OK) diag("update: %s", gbt_last_error());
    ok(st == GBT_OK && rounds[0] == 2 && rounds[1] == 2 && nu[0] == nu[1] && memcmp(mu[0], mu[1], nu[0]) == 0 &&
           (nu[0] != no || memcmp(mu[0], mo, no) != 0),
       "process_type=update, updater=refresh,prune: 2 of 3 rounds updated on %s (3 threads) = on cpu (1 thread), "
       "%zu bytes, not the original's", have_cuda ? "cuda" : "cpu", nu[0]);
    gbt_free(mo);
    for (int k = 0; k < 2; k++) {
        gbt_free(mu[k]);
        gbt_booster_free(u[k]);
    }
    gbt_booster_free(orig);
    gbt_dataset_free(d);
    gbt_dataset_free(d2);
}

/*
 * set_gradients (custom and survival objectives): the CPU backend given
 * reg:squarederror's gradients m - y, 1 as doubles stores what its own
 * gradients op does, and the CUDA backend stores the CPU's pairs and sums
 * for any doubles (here K = 3 classes of mixed signs, zeros, magnitudes).
 */
static void test_set_gradients(void)
{
    for (int K = 1; K <= 3; K += 2) {
        struct spec s;
        struct gbt_qmatrix qm;
        struct gbt_train_plan plan;
        gbt_dataset *d;
        void *cpu = NULL, *cu = NULL;
        double *margin, *g, *h;
        struct gbt_class_sums sa[3], sb[3], sc[3];
        struct gbt_gpair *qa, *qb, *qc;
        uint64_t n;
        int same_builtin = 1, same_cuda = 1;
        gbt_status st;
        memset(&s, 0, sizeof s);
        s.obj = K == 1 ? GBT_OBJ_REG_SQUAREDERROR : GBT_OBJ_MULTI_SOFTPROB;
        s.K = K;
        s.layout = L_DENSE8;
        s.rows = 3000;
        s.cols = 6;
        d = make_data(&s);
        if (d == NULL || gbt__quantize(d, 256, 2, &qm) != GBT_OK) {
            ok(0, "set_gradients K=%d: set-up failed: %s", K, gbt_last_error());
            gbt_dataset_free(d);
            continue;
        }
        n = qm.nrow;
        margin = malloc(n * K * sizeof *margin);
        g = malloc(n * K * sizeof *g);
        h = malloc(n * K * sizeof *h);
        qa = malloc(n * K * sizeof *qa);
        qb = malloc(n * K * sizeof *qb);
        qc = malloc(n * K * sizeof *qc);
        for (uint64_t i = 0; i < n * (uint64_t)K; i++) margin[i] = 0.25 * unit(9, i, 0) - 0.1;
        memset(&plan, 0, sizeof plan);
        plan.qm = &qm;
        plan.label = d->label;
        plan.margin = margin;
        plan.nrow = n;
        plan.num_class = K;
        plan.objective = s.obj;
        plan.max_nodes = 64;
        plan.max_slots = 8;
        plan.nthread = 2;
        plan.no_column_sampling = 1;
        st = gbt__backend_cpu()->open(-1, &plan, &cpu);
        if (st == GBT_OK && K == 1) {
            struct gbt_grad_request req = {.round = 0, .seed = 7, .subsample = 1.0, .obj = {.scale_pos = 1.0, .huber_slope = 1.0, .tweedie_rho = 1.5, .aft_sigma = 1.0}};
            st = gbt__backend_cpu()->gradients(cpu, &req, sa);
            if (st == GBT_OK) st = gbt__backend_cpu()->read_gradients(cpu, 0, qa);
            for (uint64_t r = 0; r < n; r++) {
                g[r] = margin[r] - (double)d->label[r];
                h[r] = 1.0;
            }
        } else {
            for (uint64_t i = 0; i < n * (uint64_t)K; i++) {
                const double u = unit(10, i, 0);
                g[i] = u < 0.1 ? 0.0 : (u - 0.5) * (i % 7 == 0 ? 1e3 : 1.0);
                h[i] = u < 0.05 ? 0.0 : unit(11, i, 0) * (i % 5 == 0 ? 50.0 : 1.0);
            }
        }
        if (st == GBT_OK) st = gbt__backend_cpu()->set_gradients(cpu, g, h, NULL, sb);
        for (int k = 0; k < K && st == GBT_OK; k++) st = gbt__backend_cpu()->read_gradients(cpu, k, qb + (uint64_t)k * n);
        if (st != GBT_OK) diag("set_gradients K=%d: %s", K, gbt_last_error());
        if (K == 1)
            same_builtin = st == GBT_OK && memcmp(qa, qb, n * sizeof *qa) == 0 && sa[0].g_exp == sb[0].g_exp &&
                           sa[0].h_exp == sb[0].h_exp && sa[0].total.g == sb[0].total.g &&
                           sa[0].total.h == sb[0].total.h;
        if (K == 1)
            ok(same_builtin, "set_gradients on the cpu: m - y and 1 as doubles = reg:squarederror's own pairs and sums");
        if (have_cuda) {
            st = gbt__backend_cuda()->open(0, &plan, &cu);
            if (st == GBT_OK) st = gbt__backend_cuda()->set_gradients(cu, g, h, NULL, sc);
            for (int k = 0; k < K && st == GBT_OK; k++)
                st = gbt__backend_cuda()->read_gradients(cu, k, qc + (uint64_t)k * n);
            if (st != GBT_OK) diag("set_gradients on cuda: %s", gbt_last_error());
            same_cuda = st == GBT_OK && memcmp(qb, qc, n * K * sizeof *qb) == 0;
            for (int k = 0; k < K && same_cuda; k++)
                same_cuda = sb[k].g_exp == sc[k].g_exp && sb[k].h_exp == sc[k].h_exp &&
                            sb[k].total.g == sc[k].total.g && sb[k].total.h == sc[k].total.h;
            ok(same_cuda, "set_gradients K=%d: cuda = cpu (pairs, exponents, totals)", K);
            if (cu) gbt__backend_cuda()->close(cu);
        } else {
            skip(SKIP_NO_DEVICE);
        }
        if (cpu) gbt__backend_cpu()->close(cpu);
        free(margin);
        free(g);
        free(h);
        free(qa);
        free(qb);
        free(qc);
        gbt__qmatrix_free(&qm);
        gbt_dataset_free(d);
    }
}

/*
 * Leaf ids, SHAP values, their approximation (approx_contribs) and SHAP
 * interaction values of deeper trees (depth 8, 3 classes, missing values)
 * on the device against the CPU, for dense and CSR rows (the
 * approximation dense only): the same bits, and (emulated) the kernels
 * did run.
 * GBT_TEST_QUICK >= 2 leaves the interaction values out.
 */
static void test_explain(void)
{
    enum { N = 1100, C = 10 };
    static const unsigned kinds[] = {GBT_PREDICT_LEAF, GBT_PREDICT_CONTRIBS, GBT_PREDICT_INTERACTIONS,
                                     GBT_PREDICT_CONTRIBS | GBT_PREDICT_APPROX};
    static const char *const names[] = {"leaf ids", "SHAP values", "SHAP interaction values",
                                        "approximate SHAP values (approx_contribs)"};
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y);
    uint64_t *ptr = calloc(N + 1, sizeof *ptr), nnz = 0, st_state = 12345;
    uint32_t *idx = malloc(N * C * sizeof *idx);
    float *val = malloc(N * C * sizeof *val);
    gbt_dataset *d = NULL, *csr = NULL;
    gbt_booster *b = NULL;
    gbt_status st;
    for (int r = 0; r < N; r++) {
        double z = 0;
        for (int c = 0; c < C; c++) {
            double u;
            st_state = st_state * 6364136223846793005ull + 1442695040888963407ull;
            u = (double)(st_state >> 11) / 9007199254740992.0;
            x[r * C + c] = u < 0.1 ? NAN : (float)(u * 8.0 - 4.0);
            if (!isnan(x[r * C + c])) {
                z += (c % 2 ? 1.0 : -0.7) * x[r * C + c];
                idx[nnz] = (uint32_t)c;
                val[nnz++] = x[r * C + c];
            }
        }
        ptr[r + 1] = nnz;
        y[r] = (float)(z > 1.0 ? 2 : z > -1.0 ? 1 : 0);
    }
    st = gbt_dataset_from_dense(x, N, C, NAN, &d);
    if (st == GBT_OK) st = gbt_dataset_set_field(d, "label", y, N);
    if (st == GBT_OK) st = gbt_dataset_from_csr(ptr, idx, val, N, C, &csr);
    if (st == GBT_OK) st = gbt_booster_create(&b);
    if (st == GBT_OK) st = gbt_booster_set_param(b, "objective", "multi:softprob");
    if (st == GBT_OK) st = gbt_booster_set_param(b, "num_class", "3");
    if (st == GBT_OK) st = gbt_booster_set_param(b, "max_depth", "8");
    if (st == GBT_OK) st = gbt_booster_set_param(b, "verbosity", "0");
    /* trained on the CPU: what is compared is the explaining kernels (the
       trainings' equality is test_trainings'), and under ThreadSanitizer an
       emulated depth-8 training of three classes costs minutes */
    if (st == GBT_OK) st = gbt_booster_set_param(b, "device", "cpu");
    if (st == GBT_OK) st = gbt_booster_train(b, d, 3, NULL, NULL, 0);
    if (st != GBT_OK) diag("explain set-up: %s", gbt_last_error());
    for (int i = 0; i < 8; i++) {
        const unsigned fl = kinds[i % 4];
        const gbt_dataset *data = i < 4 ? d : csr;
        uint64_t len = 0;
        float *pc = NULL, *pg = NULL;
        gbt_status sc = st;
        long launches = 0;
        if (fl == GBT_PREDICT_INTERACTIONS && quick >= 2) continue; /* ThreadSanitizer: too slow */
        if (i == 7) continue; /* the approximation walks the rows the others densify: dense rows suffice */
        if (!have_cuda) {
            skip(SKIP_NO_DEVICE);
            continue;
        }
        if (sc == GBT_OK) sc = gbt_booster_predict_size(b, N, fl, &len);
        if (sc == GBT_OK) {
            pc = malloc(len * sizeof *pc + 1);
            pg = malloc(len * sizeof *pg + 1);
            sc = pc && pg ? GBT_OK : GBT_E_NO_MEMORY;
        }
        if (sc == GBT_OK) sc = gbt_booster_set_param(b, "device", "cpu");
        if (sc == GBT_OK) sc = gbt_booster_predict(b, data, fl, pc, len);
        if (sc == GBT_OK) sc = gbt_booster_set_param(b, "device", "cuda");
#ifdef GBT_CUDA_EMU
        launches = gbt_emu_calls("launch");
#endif
        if (sc == GBT_OK) sc = gbt_booster_predict(b, data, fl, pg, len);
#ifdef GBT_CUDA_EMU
        launches = gbt_emu_calls("launch") - launches;
#else
        launches = 1;
#endif
        if (sc != GBT_OK) diag("explain: %s", gbt_last_error());
        ok(sc == GBT_OK && launches > 0 && memcmp(pc, pg, len * sizeof *pc) == 0,
           "%s of a depth-8 multi:softprob model, %s rows: cuda = cpu (%llu values, %ld launches)",
           names[i % 4], i < 4 ? "dense" : "CSR", (unsigned long long)len, launches);
        free(pc);
        free(pg);
    }
    gbt_booster_free(b);
    gbt_dataset_free(d);
    gbt_dataset_free(csr);
    free(x);
    free(y);
    free(ptr);
    free(idx);
    free(val);
}

/*
 * A custom objective through the public API: reg:squarederror's gradients
 * (m - y) w and w, from gbt_booster_train_margins, boosted on device=cuda,
 * give the built-in objective's model trained on the cpu, byte for byte.
 */
static void test_custom_training(void)
{
    struct spec s;
    gbt_dataset *d;
    gbt_booster *cpu = NULL, *cu = NULL;
    char *mc = NULL, *mg = NULL;
    size_t nc = 0, ng = 0;
    gbt_status st;
    if (!have_cuda) {
        skip(SKIP_NO_DEVICE);
        return;
    }
    memset(&s, 0, sizeof s);
    s.obj = GBT_OBJ_REG_SQUAREDERROR;
    s.K = 1;
    s.layout = L_CSR;
    s.rows = 2500;
    s.cols = 9;
    s.rounds = quick >= 2 ? 2 : 4; /* ThreadSanitizer: 2 */
    s.weights = 1;
    s.policy = GBT_GROW_LOSSGUIDE;
    s.subsample = 0.8;
    s.colsample = 1.0;
    s.scale_pos = 1.0;
    d = make_data(&s);
    st = d ? train(&s, d, "cpu", 2, &cpu, &mc, &nc) : GBT_E_INTERNAL;
    if (st == GBT_OK) {
        const uint64_t n = d->nrow;
        double *m = malloc(n * sizeof *m), *g = malloc(n * sizeof *g), *h = malloc(n * sizeof *h);
        const int rounds = s.rounds;
        s.rounds = 0;
        st = train(&s, d, "cuda", 2, &cu, &mg, &ng); /* the same parameters, no round yet */
        gbt_free(mg);
        mg = NULL;
        for (int r = 0; r < rounds && st == GBT_OK; r++) {
            st = gbt_booster_train_margins(cu, d, m, n);
            for (uint64_t i = 0; i < n; i++) {
                g[i] = (m[i] - (double)d->label[i]) * (double)d->weight[i];
                h[i] = (double)d->weight[i];
            }
            if (st == GBT_OK) st = gbt_booster_boost(cu, d, g, h, n);
        }
        if (st == GBT_OK) st = gbt_booster_save_to_buffer(cu, &mg, &ng);
        free(m);
        free(g);
        free(h);
    }
    if (st != GBT_OK) diag("custom training: %s", gbt_last_error());
    {
        char dev[32] = "";
        if (cu) gbt_booster_get_attr(cu, "device", dev, sizeof dev);
        ok(st == GBT_OK && strcmp(dev, "cuda:0") == 0 && nc == ng && memcmp(mc, mg, nc) == 0,
           "custom gradients on %s = reg:squarederror on cpu (%zu bytes; csr, weights, subsample, lossguide)",
           dev, ng);
    }
    gbt_free(mc);
    gbt_free(mg);
    gbt_booster_free(cpu);
    gbt_booster_free(cu);
    gbt_dataset_free(d);
}

/*
 * booster=gblinear is CPU-only (train/linear.c): device=cuda refuses it by
 * name, device=auto trains it on the CPU to device=cpu's model bytes, and
 * the bytes do not depend on the thread count (shuffle: seeded draws).
 */
static gbt_status train_linear(const gbt_dataset *d, const char *device, int nthread, char **buf, size_t *len,
                               char *used, size_t used_len)
{
    gbt_booster *b = NULL;
    gbt_status st = gbt_booster_create(&b);
    *buf = NULL;
    if (st == GBT_OK) st = set(b, "booster", "gblinear");
    if (st == GBT_OK) st = set(b, "objective", "multi:softprob");
    if (st == GBT_OK) st = set(b, "num_class", "3");
    if (st == GBT_OK) st = set(b, "updater", "coord_descent");
    if (st == GBT_OK) st = set(b, "feature_selector", "shuffle");
    if (st == GBT_OK) st = set(b, "alpha", "0.01");
    if (st == GBT_OK) st = set(b, "device", "%s", device);
    if (st == GBT_OK) st = set(b, "nthread", "%d", nthread);
    if (st == GBT_OK) st = set(b, "verbosity", "0");
    for (int r = 0; r < 3 && st == GBT_OK; r++) st = gbt_booster_update(b, d);
    if (st == GBT_OK) st = gbt_booster_save_to_buffer(b, buf, len);
    if (st == GBT_OK) gbt_booster_get_attr(b, "device", used, used_len);
    gbt_booster_free(b);
    return st;
}

static void test_linear(void)
{
    enum { ROWS = 600, COLS = 7 };
    float *x = malloc(ROWS * COLS * sizeof *x), *y = malloc(ROWS * sizeof *y);
    gbt_dataset *d = NULL;
    char *cpu = NULL, *one = NULL, *aut = NULL, *cu = NULL, dev[32] = "", dev_auto[32] = "";
    size_t ncpu = 0, none = 0, naut = 0, ncu = 0;
    gbt_status st, st_cu;
    for (uint64_t r = 0; r < ROWS; r++) {
        for (uint32_t f = 0; f < COLS; f++) x[r * COLS + f] = feature_value(r, f);
        y[r] = (float)((r * 7 + (uint64_t)(x[r * COLS] > 0.5f)) % 3);
    }
    st = gbt_dataset_from_dense(x, ROWS, COLS, NAN, &d);
    if (st == GBT_OK) st = gbt_dataset_set_field(d, "label", y, ROWS);
    if (st == GBT_OK) st = train_linear(d, "cpu", 2, &cpu, &ncpu, dev, sizeof dev);
    ok(st == GBT_OK && strcmp(dev, "cpu") == 0, "gblinear trains on the cpu (%s)",
       st == GBT_OK ? dev : gbt_last_error());
    st = train_linear(d, "cpu", 1, &one, &none, dev, sizeof dev);
    ok(st == GBT_OK && none == ncpu && memcmp(one, cpu, ncpu) == 0,
       "gblinear: the same model bytes on 1 and 2 threads (%zu bytes; shuffle, softprob)", none);
    st = train_linear(d, "auto", 2, &aut, &naut, dev_auto, sizeof dev_auto);
    ok(st == GBT_OK && strcmp(dev_auto, "cpu") == 0 && naut == ncpu && memcmp(aut, cpu, ncpu) == 0,
       "gblinear with device=auto trains on the cpu, to device=cpu's bytes (%s)", dev_auto);
    st_cu = train_linear(d, "cuda", 2, &cu, &ncu, dev, sizeof dev);
    ok(st_cu == GBT_E_PARAM && strstr(gbt_last_error(), "gblinear trains on the CPU only") != NULL,
       "gblinear with device=cuda is refused by name: %s", gbt_last_error());
    gbt_free(cpu);
    gbt_free(one);
    gbt_free(aut);
    gbt_free(cu);
    gbt_dataset_free(d);
    free(x);
    free(y);
}

int main(void)
{
    have_cuda = gbt__backend_cuda() != NULL && gbt_device_count() > 0;
    quick = getenv("GBT_TEST_QUICK") ? atoi(getenv("GBT_TEST_QUICK")) : 0;
    if (getenv("GBT_TEST_PART") &&
        (sscanf(getenv("GBT_TEST_PART"), "%d/%d", &part_k, &part_n) != 2 || part_n < 1 || part_k < 1 ||
         part_k > part_n)) {
        fprintf(stderr, "test_backend: GBT_TEST_PART=%s: expected k/n with 1 <= k <= n\n", getenv("GBT_TEST_PART"));
        return 2;
    }
    if (part_n > 1) diag("GBT_TEST_PART=%d/%d: every %d-th case from the %d-th", part_k, part_n, part_n, part_k);
    if (quick) diag("GBT_TEST_QUICK=%d: %s objectives of %d%s", quick, quick >= 3 ? "two" : quick == 2 ? "three" : "four",
                    (int)GBT_OBJ_COUNT, quick >= 2 ? ", 300 or 2500 rows, at most 2 rounds, no depth-12 tree" : "");
    diag("CUDA backend %s; %d CUDA device(s)", gbt__backend_cuda() ? "compiled in" : "not compiled in",
         gbt_device_count());
#ifdef GBT_CUDA_EMU
    ok(have_cuda, "the emulated CUDA device is there (scheduling seed %llu)", gbt_emu_seed());
#endif
    test_ops();
    if (part_keeps()) test_set_gradients();
    test_trainings();
    if (part_keeps()) test_constrained();
    if (part_keeps()) test_categorical();
    if (part_keeps()) test_sparse_sets();
    /* GBT_EMU_INTERLEAVE (tests/cuda_interleave.sh): the continuations' kernels are the trainings' (the
     * atomic ones: gradient totals, histograms, partition, cuts), whose interleavings test_trainings
     * checks; what the continuations add (the saved, loaded or sliced state, the margins of parallel
     * trees, dart's drops) does not depend on the order of atomics, and the plain and sanitizer runs
     * check it */
    if (getenv("GBT_EMU_INTERLEAVE"))
        skip("GBT_EMU_INTERLEAVE: the continued trainings run without interleaving (their kernels' "
             "interleavings are the trainings')");
    else if (part_keeps())
        test_continued();
    if (part_keeps()) test_update();
    if (part_keeps()) test_explain();
    if (part_keeps()) test_custom_training();
    if (part_keeps()) test_multi_target();
    if (part_keeps()) test_empty();
    if (part_keeps()) test_pool();
    if (part_keeps()) test_linear();
    if (quick < 2) {
        if (part_keeps()) test_deep_tree();
        if (part_keeps()) test_many_tiles();
    }
#ifdef GBT_CUDA_EMU
    ok(gbt_emu_reports() == 0, "the emulator reported no misuse of CUDA (%d reports; the last: %s)",
       gbt_emu_reports(), gbt_emu_reports() ? gbt_emu_last_report() : "none");
#endif
    return done_testing();
}
