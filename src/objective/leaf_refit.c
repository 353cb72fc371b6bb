/*
 * leaf_refit.c - quantiles of residuals per leaf for the objectives whose
 * leaves are refitted (leaf_refit.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "objective/leaf_refit.h"
#include "util/util.h"

static int by_value(const void *a, const void *b)
{
    const struct gbt_wvalue *x = a, *y = b;
    if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
    return (x->w > y->w) - (x->w < y->w);
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

gbt_status gbt__leaf_quantiles(const struct gbt_leaf_source *src,
                               const struct gbt_leaf_refit *rf, int cls, uint32_t max_nodes,
                               const int32_t *nodes, int n, double *out)
{
    const uint64_t nrow = rf->nrow;
    const int K = rf->K;
    uint32_t *rows = NULL;
    uint64_t *begin = NULL, *count = NULL;
    double *margin = NULL;
    struct gbt_wvalue *buf = NULL;
    uint64_t *m = NULL;
    gbt_status s;
    s = gbt__alloc(&rows, nrow ? nrow : 1, sizeof *rows, 0, "leaf refit rows");
    if (s == GBT_OK) s = gbt__alloc(&begin, max_nodes, sizeof *begin, 0, "leaf refit nodes");
    if (s == GBT_OK) s = gbt__alloc(&count, max_nodes, sizeof *count, 0, "leaf refit nodes");
    if (s == GBT_OK && rf->margin == NULL)
        s = gbt__alloc(&margin, nrow ? nrow * (uint64_t)K : 1, sizeof *margin, 0, "leaf refit margins");
    if (s == GBT_OK) s = gbt__alloc(&buf, nrow ? nrow : 1, sizeof *buf, 0, "leaf refit residuals");
    if (s == GBT_OK) s = src->read_rows(src->ctx, rows, begin, count);
    if (s == GBT_OK && rf->margin == NULL) s = src->read_margins(src->ctx, margin);
    if (s == GBT_OK) s = gbt__alloc(&m, (size_t)n + 1, sizeof *m, 0, "leaf refit counts");
    if (s == GBT_OK) {
        /* each leaf's sampled residuals, packed leaf after leaf */
        const double *mg = rf->margin ? rf->margin : margin;
        uint64_t at = 0;
        for (int i = 0; i < n; i++) {
            const uint64_t b = begin[nodes[i]], c = count[nodes[i]];
            m[i] = 0;
            for (uint64_t j = 0; j < c; j++) {
                const uint32_t r = rows[b + j];
                if (!gbt_row_sampled(rf->seed, rf->round, rf->row_base + r, rf->subsample)) continue;
                const uint64_t rk = (uint64_t)r * (uint64_t)K + (uint64_t)cls;
                buf[at].v = (double)rf->label[rf->T > 1 ? rk : r] - mg[rk];
                buf[at].w = rf->weight ? (double)rf->weight[r] : 1.0;
                at++;
                m[i]++;
            }
        }
    }
    if (s == GBT_OK && rf->gather) {
        struct gbt_wvalue *all = NULL;
        uint64_t *mall = NULL;
        s = rf->gather(rf->gather_user, buf, m, n, &all, &mall);
        if (s == GBT_OK) {
            free(buf);
            free(m);
            buf = all;
            m = mall;
        }
    }
    if (s == GBT_OK) {
        /* a multi-target model's outputs share reg:absoluteerror's alpha[0], the median */
        const double alpha = rf->alpha[rf->T > 1 ? 0 : cls];
        const int weighted = rf->weighted;
        uint64_t *first = NULL;
        s = gbt__alloc(&first, (size_t)n + 1, sizeof *first, 1, "leaf refit counts");
        if (s == GBT_OK) {
            for (int i = 0; i < n; i++) first[i + 1] = first[i] + m[i];
#pragma omp parallel for schedule(dynamic) num_threads(rf->nthread) if (n > 1)
            for (int i = 0; i < n; i++) {
                gbt__quantile_sort(buf + first[i], m[i]);
                out[i] = gbt__quantile(alpha, buf + first[i], m[i], weighted);
            }
        }
        free(first);
    }
    free(rows);
    free(begin);
    free(count);
    free(margin);
    free(buf);
    free(m);
    return s;
}
