/*
 * refresh.c - XGBoost's refresh updater on one tree (refresh.h).
 *
 * Each row walks the tree on its feature values to its leaf, whose fixed-
 * point sums take the row's gradient and hessian (per thread, then added:
 * integers, so the order does not matter); an inner node's sums are its
 * children's.  The exponents come from the largest |g| and |h| of the
 * rows, as the backends' (common/grad_math.h).  Values, gains and covers
 * are rounded to float as XGBoost keeps them; a leaf's value is its float
 * weight times the float learning rate, XGBoost's product.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common/grad_math.h"
#include "train/refresh.h"
#include "util/util.h"

/* Row r's values of the first nfeat features into x (NaN where missing). */
static void row_values(const struct gbt_dview *v, uint64_t r, uint64_t nfeat, float *x)
{
    if (v->dense) {
        for (uint64_t f = 0; f < nfeat; f++) x[f] = f < v->ncol ? v->dense[r * v->ncol + f] : NAN;
        return;
    }
    for (uint64_t f = 0; f < nfeat; f++) x[f] = NAN;
    for (uint64_t p = v->indptr[r]; p < v->indptr[r + 1]; p++)
        if (v->indices[p] < nfeat) x[v->indices[p]] = v->values[p];
}

static int32_t leaf_of(const struct gbt_tree *t, const float *x)
{
    int32_t i = 0;
    while (t->left[i] >= 0) i = gbt__tree_next(t, i, x[t->feature[i]]);
    return i;
}

static float to_float(double v)
{
    return v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : (float)v;
}

gbt_status gbt__refresh_tree(struct gbt_tree *t, const struct gbt_refresh *r)
{
    const struct gbt_dview *v = r->v;
    const int32_t n = t->n_nodes;
    const int T = r->nthread > 0 ? r->nthread : 1;
    uint64_t nfeat = 1;
    double gmax = 0.0, hmax = 0.0, gs, hs;
    int ge, he, failed = 0;
    struct gbt_hbin *sum = NULL;
    for (int32_t i = 0; i < n; i++)
        if (t->left[i] >= 0 && (uint64_t)t->feature[i] + 1 > nfeat) nfeat = (uint64_t)t->feature[i] + 1;
    for (uint64_t i = 0; i < v->nrow; i++) {
        const double ag = fabs(r->g[i]), ah = fabs(r->h[i]);
        gmax = ag > gmax ? ag : gmax;
        hmax = ah > hmax ? ah : hmax;
    }
    ge = gbt_quant_exponent(gmax);
    he = gbt_quant_exponent(hmax);
    gs = gbt_quant_scale(ge);
    hs = gbt_quant_scale(he);
    FORWARD_IF_ERROR(gbt__alloc(&sum, (size_t)T * (size_t)n, sizeof *sum, 1, "refresh sums"));
#pragma omp parallel num_threads(T) if (v->nrow >= 8192)
    {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        struct gbt_hbin *mine = sum + (size_t)tid * (size_t)n;
        float *x = malloc(nfeat * sizeof *x);
        if (x == NULL) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (uint64_t row = 0; row < v->nrow; row++) {
            int32_t leaf;
            if (x == NULL) continue;
            row_values(v, row, nfeat, x);
            leaf = leaf_of(t, x);
            mine[leaf].g += gbt_quantize_scaled(r->g[row], gs);
            mine[leaf].h += gbt_quantize_scaled(r->h[row], hs);
        }
        free(x);
    }
    if (failed) {
        free(sum);
        return gbt__fail(GBT_E_NO_MEMORY, "out of memory for a row's values (refresh)");
    }
    for (int k = 1; k < T; k++)
        for (int32_t i = 0; i < n; i++) {
            sum[i].g += sum[(size_t)k * n + i].g;
            sum[i].h += sum[(size_t)k * n + i].h;
        }
    /* children come after their parents: a backward pass gives the inner nodes their sums */
    for (int32_t i = n - 1; i >= 0; i--)
        if (t->left[i] >= 0) {
            sum[i].g = sum[t->left[i]].g + sum[t->right[i]].g;
            sum[i].h = sum[t->left[i]].h + sum[t->right[i]].h;
        }
    for (int32_t i = 0; i < n; i++) {
        const double G = gbt_dequantize(sum[i].g, ge), H = gbt_dequantize(sum[i].h, he);
        const float w = to_float(gbt_checked_weight(G, H, &r->sp));
        t->cover[i] = to_float(H);
        if (t->left[i] >= 0) {
            const struct gbt_hbin L = sum[t->left[i]], R = sum[t->right[i]];
            t->value[i] = w;
            t->gain[i] = to_float(gbt_checked_gain(gbt_dequantize(L.g, ge), gbt_dequantize(L.h, he), &r->sp) +
                                  gbt_checked_gain(gbt_dequantize(R.g, ge), gbt_dequantize(R.h, he), &r->sp) -
                                  gbt_checked_gain(G, H, &r->sp));
        } else if (r->refresh_leaf) {
            t->value[i] = w * r->lr;
        }
    }
    free(sum);
    return GBT_OK;
}
