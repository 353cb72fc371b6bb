/*
 * bins.c - a booster's trees over a dataset that holds only bins (made
 * from an iterator or an array's bins): the check that every split
 * threshold is one of its cuts, its rows turned into values a block at a
 * time, and the trees' raw scores on the host.  It reads the handle's
 * layout (booster.h) and calls nothing of booster.c, so that booster.c
 * (the starting scores of training on from trees) and margins.c
 * (evaluation, prediction) both call it.
 *
 * When every threshold is a cut, each bin's value (data/binned_values.c)
 * goes where every value of the bin goes, so the walks of feature values
 * give the bits of the rows' own values.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/binned.h"
#include "data/dataset.h"
#include "train/bins.h"
#include "util/util.h"

/* Whether v is one of the n ascending cuts. */
static int is_cut(const float *cut, uint32_t n, float v)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (cut[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && cut[lo] == v;
}

gbt_status gbt__booster_check_bins(const gbt_booster *b, const gbt_dataset *d, uint32_t t0, uint32_t t1)
{
    const struct gbt_forest *fo = &b->model.forest;
    const struct gbt_cuts *c = &d->binned->qm.cuts;
    static const char *const how = "so its bins cannot say which side a row goes: bin it with the training data "
                                   "as its reference (gbt_dataset_from_iter_ref, Python QuantileDMatrix(it, ref=...), "
                                   "gbtrain's validation files), or give the data in memory";
    RETURN_ERROR_IF(b->model.linear, GBT_E_INVALID_ARG,
                    "the dataset was made from an iterator and holds no feature values, which a linear model "
                    "(booster=gblinear) multiplies");
    for (uint32_t t = t0; t < t1; t++) {
        const size_t end = t + 1 < fo->ntrees ? fo->offset[t + 1] : fo->nodes_len;
        for (size_t p = fo->offset[t]; p < end; p++) {
            const struct gbt_pnode *n = &fo->nodes[p];
            const uint32_t f = n->feature & ~(GBT_PNODE_DL | GBT_PNODE_CAT);
            if (n->left == (int32_t)(p - fo->offset[t])) continue; /* a leaf */
            RETURN_ERROR_IF(f >= c->nfeat, GBT_E_INVALID_ARG,
                            "the dataset was made from an iterator and holds only bins of %u features; tree %u "
                            "splits on feature %u, %s", c->nfeat, t, f, how);
            RETURN_ERROR_IF(((n->feature & GBT_PNODE_CAT) != 0) != gbt__cuts_is_cat(c, f), GBT_E_INVALID_ARG,
                            "the dataset was made from an iterator and holds only bins; tree %u splits on feature "
                            "%u as %s but its bins are %s, %s", t, f,
                            (n->feature & GBT_PNODE_CAT) ? "categorical" : "numeric",
                            gbt__cuts_is_cat(c, f) ? "categories" : "numeric", how);
            /* the last cut (FLT_MAX) bounds no bin's values; a split after the last bin is stored at -FLT_MAX */
            RETURN_ERROR_IF(!(n->feature & GBT_PNODE_CAT) && n->threshold != -FLT_MAX &&
                                !(c->nbins[f] > 0 && is_cut(c->cut + c->offset[f], c->nbins[f] - 1, n->threshold)),
                            GBT_E_INVALID_ARG,
                            "the dataset was made from an iterator and holds only bins; tree %u's split on feature "
                            "%u at %.9g is not one of its cuts, %s", t, f, (double)n->threshold, how);
        }
    }
    return GBT_OK;
}

uint64_t gbt__binned_block_rows(const gbt_dataset *d)
{
    const uint64_t rows = ((uint64_t)4 << 20) / (d->ncol ? d->ncol : 1);
    return rows > GBT_DEVICE_PREDICT_MIN_ROWS ? rows : GBT_DEVICE_PREDICT_MIN_ROWS;
}

gbt_status gbt__binned_view(const gbt_dataset *d, uint64_t r0, uint64_t n, int K, float *buf, struct gbt_dview *v)
{
    FORWARD_IF_ERROR(gbt__binned_rows(d->binned, r0, n, buf));
    memset(v, 0, sizeof *v);
    v->nrow = n;
    v->ncol = d->ncol;
    v->dense = buf;
    v->missing = NAN;
    if (d->base_margin) {
        v->base_margin = d->base_margin + r0 * (uint64_t)K;
        v->nbase_margin = n * (uint64_t)K;
    }
    return GBT_OK;
}

gbt_status gbt__booster_add_margins(const gbt_booster *b, const gbt_dataset *d, uint32_t t0, uint32_t t1,
                                    int nthread, double *margin)
{
    const struct gbt_model *m = &b->model;
    const uint64_t block = d->binned_only ? gbt__binned_block_rows(d) : d->nrow;
    struct gbt_dview v;
    float *buf = NULL;
    gbt_status s = GBT_OK;
    if (!d->binned_only) {
        gbt__dataset_view(d, &v);
        gbt__forest_add(&m->forest, t0, t1, m->K, &v, nthread, margin);
        return GBT_OK;
    }
    FORWARD_IF_ERROR(gbt__booster_check_bins(b, d, t0, t1));
    FORWARD_IF_ERROR(gbt__alloc(&buf, block * d->ncol, sizeof *buf, 0, "binned rows' values"));
    for (uint64_t r0 = 0; s == GBT_OK && r0 < d->nrow; r0 += block) {
        const uint64_t n = d->nrow - r0 < block ? d->nrow - r0 : block;
        s = gbt__binned_view(d, r0, n, m->K, buf, &v);
        if (s == GBT_OK)
            gbt__forest_add(&m->forest, t0, t1, m->K, &v, nthread, margin + r0 * (uint64_t)m->K);
    }
    free(buf);
    return s;
}
