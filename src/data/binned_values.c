/*
 * binned_values.c - rows of a binned matrix as values: for each bin one
 * value inside it, so that a tree whose split thresholds are cuts sends a
 * row the way it sends the row's own values (binned.h).
 */
#include <math.h>

#include "data/binned.h"
#include "data/pages.h"

/*
 * Feature f's value for code b: the bin's smallest value, cut[b - 1] (bin
 * b holds cut[b-1] <= v < cut[b]); for bin 0 the float just below cut[0];
 * a category its own number; NaN for the missing code.  At a threshold
 * cut[t], v < cut[t] exactly when b <= t, and so is this value.
 */
static float bin_value(const struct gbt_cuts *c, uint32_t f, uint32_t b)
{
    const float *cut = c->cut + c->offset[f];
    if (b >= c->nbins[f]) return NAN;
    if (gbt__cuts_is_cat(c, f)) return (float)c->category[c->offset[f] + b];
    return b > 0 ? cut[b - 1] : nextafterf(cut[0], -INFINITY);
}

void gbt__binned_values(const struct gbt_qmatrix *q, uint64_t r0, uint64_t n, float *out)
{
    const struct gbt_cuts *c = &q->cuts;
    const uint32_t nf = c->nfeat;
    for (uint64_t r = 0; r < n; r++) {
        float *x = out + r * nf;
        if (q->layout != GBT_QM_CSR) {
            for (uint32_t f = 0; f < nf; f++) x[f] = bin_value(c, f, gbt__qm_code(q, r0 + r, f));
            continue;
        }
        for (uint32_t f = 0; f < nf; f++) x[f] = NAN;
        /* a row's slots ascend, and so do the features they belong to */
        for (uint64_t k = q->row_ptr[r0 + r], f = 0; k < q->row_ptr[r0 + r + 1]; k++) {
            const uint32_t slot = q->slots[k];
            while (c->offset[f + 1] <= slot) f++;
            x[f] = bin_value(c, (uint32_t)f, slot - c->offset[f]);
        }
    }
}

gbt_status gbt__binned_rows(const struct gbt_binned *b, uint64_t r0, uint64_t n, float *out)
{
    struct gbt_page_reader *r = NULL;
    const uint32_t nf = b->qm.cuts.nfeat;
    uint64_t npages;
    gbt_status s;
    if (!b->pages) {
        gbt__binned_values(&b->qm, r0, n, out);
        return GBT_OK;
    }
    /* the codes are on disk: the pages that hold rows [r0, r0 + n), each read with its checks */
    npages = gbt__pages_count(b->pages);
    s = gbt__pages_reader_open(b->pages, &b->qm, &r);
    for (uint64_t i = 0; s == GBT_OK && i < npages; i++) {
        const uint64_t pb = gbt__pages_row_begin(b->pages, i), pe = gbt__pages_row_begin(b->pages, i + 1);
        const uint64_t a = pb > r0 ? pb : r0, e = pe < r0 + n ? pe : r0 + n;
        const struct gbt_qmatrix *page;
        uint64_t begin;
        if (a >= e) continue;
        s = gbt__pages_reader_read(r, i, &page, &begin);
        if (s == GBT_OK) gbt__binned_values(page, a - begin, e - a, out + (a - r0) * nf);
    }
    gbt__pages_reader_close(r);
    return s;
}
