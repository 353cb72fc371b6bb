/*
 * gradient.c - per-row gradients from the shared math (common/grad_math.h),
 * row subsampling, and their fixed-point form.
 *
 * Two passes: gradients in double and each class's largest magnitude (a max
 * is order-free), then quantisation and exact integer totals.  The simple
 * one-output objectives (squared error, logistic) without subsampling take
 * a loop that vectorises (the shared
 * math is branch-free; the build's -fno-trapping-math lets gcc turn its
 * selects into blends).  gbt__cpu_set_gradients quantises gradients that
 * the host computed (custom and survival objectives) the same way.
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common/grad_math.h"
#include "common/rank_math.h"
#include "common/rng.h"
#include "util/util.h"
#include "cpu/cpu.h"

#define BLOCK 4096 /* rows per work item of the vectorised loop */

/*
 * Rows [lo, hi) of a one-output objective, every row in, with row weights
 * (weighted_rows) or without (unit_rows); the maxima are raised in place.
 */
#define SCALAR_ROWS(NAME, WEIGHT)                                                              \
    static void NAME(const struct cpu_ctx *c, int squared, double spw, uint64_t lo, uint64_t hi, \
                     double *gmax, double *hmax)                                               \
    {                                                                                          \
        const double *restrict m = c->margin;                                                  \
        const float *restrict y = c->label, *restrict weight = c->weight;                      \
        double *restrict gs = c->gtmp, *restrict hs = c->htmp;                                 \
        double gm = *gmax, hm = *hmax;                                                         \
        (void)weight;                                                                          \
        _Pragma("omp simd reduction(max : gm, hm)")                                            \
        for (uint64_t r = lo; r < hi; r++) {                                                   \
            double g, h, ag, ah;                                                               \
            gbt_scalar_gradient(squared, m[r], (double)y[r], WEIGHT, &g, &h);                  \
            gs[r] = g;                                                                         \
            hs[r] = h;                                                                         \
            ag = g < 0 ? -g : g;                                                               \
            ah = h < 0 ? -h : h;                                                               \
            gm = ag > gm ? ag : gm;                                                            \
            hm = ah > hm ? ah : hm;                                                            \
        }                                                                                      \
        *gmax = gm;                                                                            \
        *hmax = hm;                                                                            \
    }
SCALAR_ROWS(weighted_rows, gbt_row_weight(y[r], (double)weight[r], spw))
SCALAR_ROWS(unit_rows, gbt_row_weight(y[r], 1.0, spw))

/*
 * The ranking objectives: each query group's gradients into gtmp and htmp
 * (groups in parallel: each writes only its own rows), then 0 for rows the
 * subsample leaves out.
 */
static gbt_status rank_gradients(struct cpu_ctx *c, const struct gbt_grad_request *req)
{
    const uint64_t n = c->nrow;
    RETURN_ERROR_IF(c->group_ptr == NULL, GBT_E_INTERNAL, "ranking objective without query groups");
#pragma omp parallel for schedule(dynamic, 16) num_threads(c->nthread) if (n >= GBT_CPU_MIN_PARALLEL)
    for (uint64_t g = 0; g < c->ngroups; g++) {
        const uint32_t b = c->group_ptr[g], cnt = c->group_ptr[g + 1] - b;
        struct gbt_rank_scratch s;
        struct gbt_rank_bias ub;
        double w = (c->weight ? (double)c->weight[b] : 1.0) * req->obj.rank_wnorm;
        ub.tplus = req->rank_tplus;
        ub.tminus = req->rank_tminus;
        ub.li = req->rank_li ? req->rank_li + b : NULL;
        ub.lj = req->rank_lj ? req->rank_lj + b : NULL;
        ub.npos = req->obj.rank_npos;
        s.order = c->rank_idx + b;
        s.tmp = c->rank_idx + n + b;
        s.lorder = c->rank_idx + 2 * n + b;
        s.nrel = c->rank_stat + b;
        s.acc = c->rank_stat + n + b;
        gbt_rank_group_gradients(c->objective, &req->obj, req->seed, req->round, req->group_base + g, cnt,
                                 c->margin + b, c->label + b, w, &s, ub.npos ? &ub : NULL, c->gtmp + b,
                                 c->htmp + b);
        for (uint32_t i = 0; i < cnt; i++)
            if (!gbt_row_sampled((uint64_t)req->seed, req->round, req->row_base + b + i, req->subsample)) {
                c->gtmp[b + i] = 0.0;
                c->htmp[b + i] = 0.0;
            }
    }
    return GBT_OK;
}

/*
 * Each class's exponents from the largest |g| and |h| over the T threads'
 * maxima (T * K each), through the distributed hook when there is one.
 */
static gbt_status exponents(const double *gmax, const double *hmax, int T, int K,
                            const struct gbt_max_hook *hook, struct gbt_class_sums *out)
{
    double *m;
    gbt_status s;
    FORWARD_IF_ERROR(gbt__alloc(&m, 2 * (size_t)K, sizeof *m, 1, "gradient maxima"));
    for (int k = 0; k < K; k++)
        for (int i = 0; i < T; i++) {
            if (gmax[(size_t)i * K + k] > m[k]) m[k] = gmax[(size_t)i * K + k];
            if (hmax[(size_t)i * K + k] > m[K + k]) m[K + k] = hmax[(size_t)i * K + k];
        }
    s = hook ? hook->reduce(hook->user, m, 2 * K) : GBT_OK;
    for (int k = 0; k < K && s == GBT_OK; k++) {
        out[k].g_exp = gbt_quant_exponent(m[k]);
        out[k].h_exp = gbt_quant_exponent(m[K + k]);
    }
    free(m);
    return s;
}

gbt_status gbt__cpu_gradients(void *p, const struct gbt_grad_request *req,
                              struct gbt_class_sums *out)
{
    struct cpu_ctx *c = p;
    const int K = c->K, T = c->nthread;
    const uint64_t n = c->nrow;
    double *gmax = NULL, *hmax = NULL;
    struct gbt_hbin *part = NULL;
    const int rank = gbt_objective_is_ranking(c->objective);
    gbt_status s;
    if (rank) FORWARD_IF_ERROR(rank_gradients(c, req));
    s = gbt__alloc(&gmax, (size_t)T * K, sizeof(double), 1, "gradient maxima");
    if (s == GBT_OK) s = gbt__alloc(&hmax, (size_t)T * K, sizeof(double), 1, "hessian maxima");
    if (s == GBT_OK) s = gbt__alloc(&part, (size_t)T * K, sizeof *part, 1, "gradient sums");
    if (s != GBT_OK) {
        free(gmax);
        free(hmax);
        return s;
    }
#pragma omp parallel num_threads(T) if ((uint64_t)K * n >= GBT_CPU_MIN_PARALLEL)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        double *gm = gmax + (size_t)t * K, *hm = hmax + (size_t)t * K;
        if (rank) {
#pragma omp for schedule(static)
            for (uint64_t r = 0; r < n; r++) {
                double g = c->gtmp[r], h = c->htmp[r];
                if (g < 0) g = -g;
                if (h < 0) h = -h;
                if (g > gm[0]) gm[0] = g;
                if (h > hm[0]) hm[0] = h;
            }
        } else if (K == 1 && req->subsample >= 1.0 && gbt_objective_is_simple(c->objective)) {
            const int squared = c->objective == GBT_OBJ_REG_SQUAREDERROR;
#pragma omp for schedule(static)
            for (uint64_t b = 0; b < (n + BLOCK - 1) / BLOCK; b++) {
                const uint64_t lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
                if (c->weight)
                    weighted_rows(c, squared, req->obj.scale_pos, lo, hi, gm, hm);
                else
                    unit_rows(c, squared, req->obj.scale_pos, lo, hi, gm, hm);
            }
        } else {
#pragma omp for schedule(static)
            for (uint64_t r = 0; r < n; r++) {
                const int in = gbt_row_sampled((uint64_t)req->seed, req->round, req->row_base + r, req->subsample);
                if (c->T > 1) {
                    gbt_target_gradients(c->objective, &req->obj, K, c->margin + r, n, c->label + r * (uint64_t)K,
                                         in && c->weight ? c->weight[r] : in ? 1.0 : 0.0, c->gtmp + r, c->htmp + r,
                                         n);
                } else {
                    double w = gbt_row_weight(c->label[r], c->weight ? c->weight[r] : 1.0, req->obj.scale_pos);
                    gbt_row_gradients(c->objective, &req->obj, K, c->margin + r, n, c->label[r], in ? w : 0.0,
                                      c->gtmp + r, c->htmp + r, n);
                }
                for (int k = 0; k < K; k++) {
                    double g = c->gtmp[(uint64_t)k * n + r], h = c->htmp[(uint64_t)k * n + r];
                    if (g < 0) g = -g;
                    if (h < 0) h = -h;
                    if (g > gm[k]) gm[k] = g;
                    if (h > hm[k]) hm[k] = h;
                }
            }
        }
    }
    s = exponents(gmax, hmax, T, K, req->max_hook, out);
    if (s != GBT_OK) {
        free(gmax);
        free(hmax);
        free(part);
        return s;
    }
#pragma omp parallel num_threads(T) if ((uint64_t)K * n >= GBT_CPU_MIN_PARALLEL)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        for (int k = 0; k < K; k++) {
            const double gsc = gbt_quant_scale(out[k].g_exp), hsc = gbt_quant_scale(out[k].h_exp);
            const double *gs = c->gtmp + (uint64_t)k * n, *hs = c->htmp + (uint64_t)k * n;
            struct gbt_gpair *q = c->grad + (uint64_t)k * n;
            struct gbt_hbin sum = {0, 0};
#pragma omp for schedule(static)
            for (uint64_t r = 0; r < n; r++) {
                q[r].g = gbt_quantize_scaled(gs[r], gsc);
                q[r].h = gbt_quantize_scaled(hs[r], hsc);
                sum.g += q[r].g;
                sum.h += q[r].h;
            }
            part[(size_t)t * K + k] = sum;
        }
    }
    for (int k = 0; k < K; k++) {
        out[k].total.g = 0;
        out[k].total.h = 0;
        for (int i = 0; i < T; i++) {
            out[k].total.g += part[(size_t)i * K + k].g;
            out[k].total.h += part[(size_t)i * K + k].h;
        }
    }
    free(gmax);
    free(hmax);
    free(part);
    return GBT_OK;
}

gbt_status gbt__cpu_set_gradients(void *p, const double *g, const double *h,
                                  const struct gbt_max_hook *hook, struct gbt_class_sums *out)
{
    struct cpu_ctx *c = p;
    const uint64_t n = c->nrow;
    const int K = c->K;
    double *m;
    gbt_status s;
    FORWARD_IF_ERROR(gbt__alloc(&m, 2 * (size_t)K, sizeof *m, 1, "gradient maxima"));
    for (int k = 0; k < K; k++) {
        const double *gs = g + (uint64_t)k * n, *hs = h + (uint64_t)k * n;
        for (uint64_t r = 0; r < n; r++) {
            /* as the gradients above: NaN never wins, the max is order-free */
            double ag = gs[r] < 0 ? -gs[r] : gs[r], ah = hs[r] < 0 ? -hs[r] : hs[r];
            if (ag > m[k]) m[k] = ag;
            if (ah > m[K + k]) m[K + k] = ah;
        }
    }
    s = hook ? hook->reduce(hook->user, m, 2 * K) : GBT_OK;
    for (int k = 0; k < K && s == GBT_OK; k++) {
        const double *gs = g + (uint64_t)k * n, *hs = h + (uint64_t)k * n;
        struct gbt_gpair *q = c->grad + (uint64_t)k * n;
        double gsc, hsc;
        int64_t sg = 0, sh = 0;
        out[k].g_exp = gbt_quant_exponent(m[k]);
        out[k].h_exp = gbt_quant_exponent(m[K + k]);
        gsc = gbt_quant_scale(out[k].g_exp);
        hsc = gbt_quant_scale(out[k].h_exp);
#pragma omp parallel for schedule(static) num_threads(c->nthread) reduction(+ : sg, sh) \
    if (n >= GBT_CPU_MIN_PARALLEL)
        for (uint64_t r = 0; r < n; r++) {
            q[r].g = gbt_quantize_scaled(gs[r], gsc);
            q[r].h = gbt_quantize_scaled(hs[r], hsc);
            sg += q[r].g;
            sh += q[r].h;
        }
        out[k].total.g = sg;
        out[k].total.h = sh;
    }
    free(m);
    return s;
}
