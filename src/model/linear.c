/*
 * linear.c - a linear model's (booster=gblinear) raw scores and
 * contributions on the host.
 *
 * A row's raw score for output k is its starting score (below) plus output k's bias
 * plus the sum of x * w over the row's present values in feature order,
 * summed in float as XGBoost's linear booster sums it (so that both give
 * the same bits); a missing value counts as 0, as XGBoost's sparse rows
 * leave it out.  Every device computes them here: it is one pass over the
 * data.
 */
#include <math.h>
#include <string.h>

#include "model/linear.h"

/* Runs BODY with f and x for each present value of row r in feature order, f < nf. */
#define FOR_ROW_VALUES(v, r, nf, BODY)                                                        \
    do {                                                                                      \
        if ((v)->dense) {                                                                     \
            const float *row_ = (v)->dense + (r) * (v)->ncol;                                 \
            const uint64_t n_ = (v)->ncol < (nf) ? (v)->ncol : (nf);                          \
            for (uint64_t f = 0; f < n_; f++) {                                               \
                const float x = row_[f];                                                      \
                if (isnan(x) || x == (v)->missing) continue;                                  \
                BODY;                                                                         \
            }                                                                                 \
        } else {                                                                              \
            for (uint64_t j_ = (v)->indptr[r]; j_ < (v)->indptr[(r) + 1]; j_++) {             \
                const uint64_t f = (v)->indices[j_];                                          \
                const float x = (v)->values[j_];                                              \
                if (f >= (nf) || isnan(x)) continue;                                          \
                BODY;                                                                         \
            }                                                                                 \
        }                                                                                     \
    } while (0)

/*
 * Row r's starting score for output k: its base_margin, else the model's
 * first starting score for every output, as XGBoost's linear booster takes
 * it (a vector intercept's first value), so that its models predict alike.
 */
static float start_score(const struct gbt_model *m, const struct gbt_dview *v, uint64_t r, int k)
{
    if (v->base_margin) return v->base_margin[r * (uint64_t)m->K + (uint64_t)k];
    return (float)m->base[0];
}

void gbt__linear_margins(const struct gbt_model *m, const struct gbt_dview *v, int nthread, double *margin)
{
    const int K = m->K;
    const uint64_t nf = m->num_feature;
    const float *w = m->weights;
    (void)nthread;
#pragma omp parallel for schedule(static) num_threads(nthread) if (v->nrow >= 4096)
    for (uint64_t r = 0; r < v->nrow; r++)
        for (int k = 0; k < K; k++) {
            float psum = w[nf * (uint64_t)K + (uint64_t)k] + start_score(m, v, r, k);
            FOR_ROW_VALUES(v, r, nf, psum += x * w[f * (uint64_t)K + (uint64_t)k]);
            margin[r * (uint64_t)K + (uint64_t)k] = (double)psum;
        }
}

void gbt__linear_contribs(const struct gbt_model *m, const struct gbt_dview *v, int nthread, float *out)
{
    const int K = m->K;
    const uint64_t nf = m->num_feature, width = nf + 1;
    const float *w = m->weights;
    (void)nthread;
#pragma omp parallel for schedule(static) num_threads(nthread) if (v->nrow >= 4096)
    for (uint64_t r = 0; r < v->nrow; r++)
        for (int k = 0; k < K; k++) {
            float *c = out + (r * (uint64_t)K + (uint64_t)k) * width;
            memset(c, 0, width * sizeof *c);
            FOR_ROW_VALUES(v, r, nf, c[f] = x * w[f * (uint64_t)K + (uint64_t)k]);
            c[nf] = w[nf * (uint64_t)K + (uint64_t)k] + start_score(m, v, r, k);
        }
}
