/*
 * leaf_refit.c - quantiles of residuals per leaf for the objectives whose
 * leaves are refitted (leaf_refit.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "leaf_refit.h"
#include "util.h"

static int by_value(const void *a, const void *b)
{
    const double x = ((const struct gbt_wvalue *)a)->v, y = ((const struct gbt_wvalue *)b)->v;
    return (x > y) - (x < y);
}

void gbt__quantile_sort(struct gbt_wvalue *s, uint64_t n)
{
    qsort(s, n, sizeof *s, by_value);
}

double gbt__quantile(double alpha, const struct gbt_wvalue *s, uint64_t n, int weighted)
{
    if (n == 0) return NAN;
    if (weighted) {
        double total = 0.0, run = 0.0, thresh;
        uint64_t i = 0;
        for (uint64_t j = 0; j < n; j++) total += s[j].w;
        thresh = total * alpha;
        /* the first value whose cumulative weight is not below the threshold */
        for (; i + 1 < n; i++) {
            run += s[i].w;
            if (!(run < thresh)) break;
        }
        return s[i].v;
    } else {
        const double dn = (double)n, x = alpha * (dn + 1.0);
        uint64_t k;
        double d;
        if (alpha <= 1.0 / (dn + 1.0)) return s[0].v;
        if (alpha >= dn / (dn + 1.0)) return s[n - 1].v;
        k = (uint64_t)floor(x) - 1;
        d = x - 1.0 - (double)k;
        return s[k].v + d * (s[k + 1].v - s[k].v);
    }
}

gbt_status gbt__leaf_quantiles(const struct gbt_backend_ops *ops, void *ctx,
                               const struct gbt_leaf_refit *rf, int cls, uint32_t max_nodes,
                               const int32_t *nodes, int n, double *out)
{
    const uint64_t nrow = rf->nrow;
    const int K = rf->K;
    uint32_t *rows = NULL;
    uint64_t *begin = NULL, *count = NULL;
    double *margin = NULL;
    struct gbt_wvalue *buf = NULL;
    gbt_status s;
    s = gbt__alloc(&rows, nrow ? nrow : 1, sizeof *rows, 0, "leaf refit rows");
    if (s == GBT_OK) s = gbt__alloc(&begin, max_nodes, sizeof *begin, 0, "leaf refit nodes");
    if (s == GBT_OK) s = gbt__alloc(&count, max_nodes, sizeof *count, 0, "leaf refit nodes");
    if (s == GBT_OK) s = gbt__alloc(&margin, nrow ? nrow * (uint64_t)K : 1, sizeof *margin, 0, "leaf refit margins");
    if (s == GBT_OK) s = gbt__alloc(&buf, nrow ? nrow : 1, sizeof *buf, 0, "leaf refit residuals");
    if (s == GBT_OK) s = ops->read_rows(ctx, rows, begin, count);
    if (s == GBT_OK) s = ops->read_margins(ctx, margin);
    if (s == GBT_OK) {
        const double alpha = rf->alpha[cls];
#pragma omp parallel for schedule(dynamic) num_threads(rf->nthread) if (n > 1)
        for (int i = 0; i < n; i++) {
            const uint64_t b = begin[nodes[i]], c = count[nodes[i]];
            struct gbt_wvalue *v = buf + b;
            uint64_t m = 0;
            for (uint64_t j = 0; j < c; j++) {
                const uint32_t r = rows[b + j];
                if (!gbt_row_sampled(rf->seed, rf->round, r, rf->subsample)) continue;
                v[m].v = (double)rf->label[r] - margin[(uint64_t)r * (uint64_t)K + (uint64_t)cls];
                v[m].w = rf->weight ? (double)rf->weight[r] : 1.0;
                m++;
            }
            gbt__quantile_sort(v, m);
            out[i] = gbt__quantile(alpha, v, m, rf->weight != NULL);
        }
    }
    free(rows);
    free(begin);
    free(count);
    free(margin);
    free(buf);
    return s;
}
