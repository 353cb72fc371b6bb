/*
 * quantize.c - weighted-quantile bin cuts and the binned matrix.
 *
 * Cuts of one feature: sort its present values (radix sort on float keys,
 * weights carried along).  With no more distinct values than the feature's
 * bin budget B, every distinct value gets a bin.  Otherwise the cuts are
 * those XGBoost's hist method makes with max_bin = B, computed on exact
 * weighted ranks: its quantile summary pruned in the same steps
 * (distinct_cuts), so that they are XGBoost's cuts wherever XGBoost's
 * sketch is exact.  All sums run in one fixed order, so the cuts never
 * depend on the thread count.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/quantize.h"
#include "util/sort.h"
#include "util/util.h"

void gbt__qmatrix_free(struct gbt_qmatrix *q)
{
    free(q->cuts.offset);
    free(q->cuts.nbins);
    free(q->cuts.cut);
    free(q->cuts.has_missing);
    free(q->cuts.is_cat);
    free(q->cuts.category);
    free(q->codes8);
    free(q->codes16);
    free(q->row_ptr);
    free(q->slots);
    free(q->col_off);
    free(q->col_dense);
    free(q->col_code8);
    free(q->col_code);
    free(q->col_row);
    memset(q, 0, sizeof *q);
}

uint32_t gbt__qm_code(const struct gbt_qmatrix *q, uint64_t r, uint32_t f)
{
    const struct gbt_cuts *c = &q->cuts;
    switch (q->layout) {
    case GBT_QM_DENSE8: return q->codes8[r * c->nfeat + f];
    case GBT_QM_DENSE16: return q->codes16[r * c->nfeat + f];
    default: {
        uint64_t lo = q->row_ptr[r], hi = q->row_ptr[r + 1];
        uint32_t first = c->offset[f], last = c->offset[f] + c->nbins[f];
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            if (q->slots[mid] < first)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < q->row_ptr[r + 1] && q->slots[lo] < last) return q->slots[lo] - first;
        return c->nbins[f];
    }
    }
}

/* Column-major copy of the present values (CSC) with their row weights. */
struct columns {
    uint64_t *start; /* nfeat + 1 */
    float *value;
    float *weight;   /* NULL when unweighted */
};

static void free_columns(struct columns *col)
{
    free(col->start);
    free(col->value);
    free(col->weight);
}

static gbt_status make_columns(const gbt_dataset *d, struct columns *col)
{
    uint64_t nf = d->ncol, *fill = NULL;
    gbt_status s;
    memset(col, 0, sizeof *col);
    s = gbt__alloc(&col->start, nf + 1, sizeof(uint64_t), 1, "column offsets");
    if (s == GBT_OK) s = gbt__alloc(&col->value, d->nnz, sizeof(float), 0, "column values");
    if (s == GBT_OK && d->weight)
        s = gbt__alloc(&col->weight, d->nnz, sizeof(float), 0, "column weights");
    if (s == GBT_OK) s = gbt__alloc(&fill, nf, sizeof(uint64_t), 0, "column fill");
    if (s != GBT_OK) {
        free_columns(col);
        return s;
    }
    if (d->dense) {
        for (uint64_t r = 0; r < d->nrow; r++)
            for (uint64_t f = 0; f < nf; f++) col->start[f + 1] += !isnan(d->dense[r * nf + f]);
    } else {
        for (uint64_t i = 0; i < d->nnz; i++) col->start[d->indices[i] + 1]++;
    }
    for (uint64_t f = 0; f < nf; f++) col->start[f + 1] += col->start[f];
    memcpy(fill, col->start, nf * sizeof(uint64_t));
    for (uint64_t r = 0; r < d->nrow; r++) {
        float w = d->weight ? d->weight[r] : 1.0f;
        if (d->dense) {
            const float *row = d->dense + r * nf;
            for (uint64_t f = 0; f < nf; f++) {
                if (isnan(row[f])) continue;
                col->value[fill[f]] = row[f] == 0.0f ? 0.0f : row[f];
                if (col->weight) col->weight[fill[f]] = w;
                fill[f]++;
            }
        } else {
            for (uint64_t i = d->indptr[r]; i < d->indptr[r + 1]; i++) {
                uint32_t f = d->indices[i];
                col->value[fill[f]] = d->values[i] == 0.0f ? 0.0f : d->values[i];
                if (col->weight) col->weight[fill[f]] = w;
                fill[f]++;
            }
        }
    }
    free(fill);
    return GBT_OK;
}

/*
 * The distinct keys of n sorted keys (written over ukeys, which may be
 * keys) and their weights' sums (w NULL: all 1) into dw; returns how many.
 */
static size_t distinct_keys(const uint32_t *keys, const float *w, size_t n, uint32_t *ukeys, double *dw)
{
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? (double)w[i] : 1.0;
        if (i > 0 && keys[i - 1] == keys[i]) {
            dw[nd - 1] += wi;
        } else {
            ukeys[nd] = keys[i];
            dw[nd++] = wi;
        }
    }
    return nd;
}

/*
 * One entry of a weighted quantile summary (the XGBoost paper's): a value
 * and the bounds of its rank, rmin = weight of the values below it and
 * rmax = rmin + its weight in an exact summary, and its own weight wmin.
 */
struct qentry {
    double rmin, rmax, wmin;
    uint32_t key;
};

/*
 * A summary to prune: the entries e[0, n), or, with e NULL, the exact
 * summary of n distinct keys and their weights.  Its ranks are running
 * sums kept by a cursor (at, rmin_at) that only moves forward: the pruning
 * reads the last entry first (last_entry: its rank rmin_last, which the
 * caller summed in the cursor's order), then entries i and i + 1 with i
 * never decreasing.
 */
struct qsummary {
    const struct qentry *e;
    const uint32_t *keys;
    const double *w;
    size_t n, at;
    double rmin_at, rmin_last;
};

static struct qentry exact_entry(const struct qsummary *s, size_t i, double rmin)
{
    return (struct qentry){rmin, rmin + s->w[i], s->w[i], s->keys[i]};
}

static struct qentry entry_at(struct qsummary *s, size_t i)
{
    if (s->e) return s->e[i];
    while (s->at + 1 < i) s->rmin_at += s->w[s->at++];
    return exact_entry(s, i, s->at == i ? s->rmin_at : s->rmin_at + s->w[s->at]);
}

static struct qentry last_entry(const struct qsummary *s)
{
    return s->e ? s->e[s->n - 1] : exact_entry(s, s->n - 1, s->rmin_last);
}

/*
 * At most maxsize (>= 2) entries of src into out: the first, the last, and
 * for each of the maxsize - 2 ranks evenly spaced between them the entry
 * whose rank interval is nearest, as XGBoost's summaries prune (in doubles
 * where XGBoost computes in floats: the same with unit weights).  Returns
 * how many.
 */
static size_t prune(struct qsummary *src, size_t maxsize, struct qentry *out)
{
    const size_t n = src->n, m = maxsize - 1;
    struct qentry first, last;
    double begin, range;
    size_t size = 0, i = 1, lastidx = 0;
    if (n <= maxsize) {
        for (size_t k = 0; k < n; k++) out[k] = entry_at(src, k);
        return n;
    }
    last = last_entry(src);
    first = entry_at(src, 0);
    begin = first.rmax;
    range = last.rmin - first.rmax;
    out[size++] = first;
    for (size_t k = 1; k < m; k++) {
        const double dx2 = 2.0 * ((double)k * range / (double)m + begin);
        struct qentry lo, hi = last;
        /* the first i whose next entry's mid-rank is above the target */
        while (i < n - 1) {
            hi = entry_at(src, i + 1);
            if (dx2 < hi.rmax + hi.rmin) break;
            i++;
        }
        if (i == n - 1) break;
        lo = entry_at(src, i);
        if (dx2 < (lo.rmin + lo.wmin) + (hi.rmax - hi.wmin)) {
            if (i != lastidx) out[size++] = lo;
            lastidx = i;
        } else {
            if (i + 1 != lastidx) out[size++] = hi;
            lastidx = i + 1;
        }
    }
    if (lastidx != n - 1) out[size++] = last;
    return size;
}

/*
 * Cuts of one feature from its nd distinct present values (ukeys
 * ascending, dw their weights; dw may be rewritten) in count rows.  Writes
 * at most `budget` cuts to out, the last FLT_MAX, into *ncut.
 *
 * With no more distinct values than the budget, each distinct value has a
 * bin.  Otherwise the cuts are XGBoost's (hist, max_bin = budget) computed
 * on exact ranks: the exact summary is pruned to the size of XGBoost's
 * sketch for count rows (eps = 1 / (8 min(budget, count))), then to 8
 * entries per bin, then to budget + 1 entries, whose values but the first
 * and the last are the cuts.  Where XGBoost's sketch is exact (up to about
 * 4,000 values per feature) the cuts are the same values; above, XGBoost's
 * streaming sketch is an approximation of these ranks.
 */
static gbt_status distinct_cuts(const uint32_t *ukeys, double *dw, size_t nd, uint64_t count, uint32_t budget,
                                float *out, uint32_t *ncut)
{
    struct qsummary src = {.keys = ukeys, .w = dw, .n = nd};
    struct qentry *a = NULL, *b = NULL;
    double eps;
    uint64_t nb = count < budget ? count : budget, inter = (uint64_t)budget * 8, limit;
    uint32_t mb;
    size_t n;
    *ncut = 0;
    if (nd == 0) return GBT_OK;
    if (nd <= budget) {
        for (size_t k = 1; k < nd; k++) out[k - 1] = gbt__key_float(ukeys[k]);
        out[nd - 1] = FLT_MAX;
        *ncut = (uint32_t)nd;
        return GBT_OK;
    }
    /* the weight below the last value, summed in the cursor's order */
    for (size_t i = 0; i + 1 < nd; i++) src.rmin_last += dw[i];
    if (!(src.rmin_last + dw[nd - 1] > 0.0)) {
        for (size_t i = 0; i < nd; i++) dw[i] = 1.0;
        src.rmin_last = (double)(nd - 1);
    }
    /* the sketch's summary size: the first of (2^l) x size >= count, l = 1, 2, ... */
    eps = 1.0 / ((float)nb * 8.0f);
    for (int level = 1;; level++) {
        limit = (uint64_t)ceil((double)level / eps) + 1;
        if (limit > count) limit = count;
        if ((limit << level) >= count) break;
    }
    if (inter > count) inter = count;
    mb = inter < budget ? (uint32_t)inter : budget;
    FORWARD_IF_ERROR(gbt__alloc(&a, nd < limit ? nd : limit, sizeof *a, 0, "quantile summary"));
    gbt_status s = gbt__alloc(&b, inter + 1, sizeof *b, 0, "quantile summary");
    if (s == GBT_OK) {
        n = nd > limit ? prune(&src, limit, a) : nd;
        if (nd > limit) src = (struct qsummary){.e = a, .n = n};
        n = prune(&src, inter, b);
        src = (struct qsummary){.e = b, .n = n};
        n = prune(&src, (size_t)mb + 1, a);
        for (size_t i = 1; i < n && i < mb; i++) {
            float v = gbt__key_float(a[i].key);
            if (i == 1 || v > out[*ncut - 1]) out[(*ncut)++] = v;
        }
        out[(*ncut)++] = FLT_MAX;
    }
    free(a);
    free(b);
    return s;
}

#define TMP_AT(f) ((size_t)tmp_at[f])

/*
 * Cuts of a categorical feature from its nd distinct present values
 * (ukeys ascending, all categories: gbt__dataset_check_categories): one bin
 * per category, cuts as distinct_cuts makes them for few values, and each
 * bin's category in cat.  More than GBT_CAT_MAX_DISTINCT categories is an
 * error naming the feature.
 */
static gbt_status cat_cuts(const uint32_t *ukeys, size_t nd, uint32_t f, float *out, uint32_t *cat,
                           uint32_t *ncut)
{
    *ncut = 0;
    RETURN_ERROR_IF(nd > GBT_CAT_MAX_DISTINCT, GBT_E_INVALID_ARG,
                    "categorical feature %u has %llu distinct categories in the training data; gbt "
                    "supports at most %u",
                    f, (unsigned long long)nd, GBT_CAT_MAX_DISTINCT);
    for (size_t k = 0; k < nd; k++) {
        cat[k] = (uint32_t)gbt__key_float(ukeys[k]);
        out[k] = k + 1 < nd ? gbt__key_float(ukeys[k + 1]) : FLT_MAX;
    }
    *ncut = (uint32_t)nd;
    return GBT_OK;
}

/*
 * Distributed training: feature f's cuts from the distinct values of every
 * process (keys, ktmp, w, wtmp, dw: scratch of the column's length).
 */
static gbt_status merged_cuts(const struct gbt_quant_dist *dist, const struct columns *col, uint32_t f,
                              uint64_t count, uint32_t budget, uint32_t *keys, uint32_t *ktmp, float *w, float *wtmp,
                              double *dw, float *out, uint32_t *cat, uint32_t *nbins)
{
    uint64_t b = col->start[f], n = col->start[f + 1] - b;
    uint32_t *mk = NULL;
    double *mw = NULL;
    size_t nd, mn = 0;
    gbt_status s;
    for (uint64_t i = 0; i < n; i++) keys[i] = gbt__float_key(col->value[b + i]);
    if (w) memcpy(w, col->weight + b, n * sizeof *w);
    gbt__radix_sort32(keys, w, n, ktmp, wtmp);
    nd = distinct_keys(keys, w, n, keys, dw);
    s = dist->merge(dist->user, keys, dw, nd, &mk, &mw, &mn);
    if (s == GBT_OK && cat) s = cat_cuts(mk, mn, f, out, cat, nbins);
    else if (s == GBT_OK) s = distinct_cuts(mk, mw, mn, count, budget, out, nbins);
    free(mk);
    free(mw);
    return s;
}

static gbt_status compute_cuts(const gbt_dataset *d, const struct columns *col, int max_bin,
                               int layout, int nthread, const struct gbt_quant_dist *dist,
                               struct gbt_cuts *c)
{
    uint32_t nf = (uint32_t)d->ncol;
    float *tmp_cuts = NULL;
    uint32_t *tmp_cat = NULL;
    uint64_t maxcol = 0, total = 0, *tmp_at = NULL;
    int by_values, any_cat = 0;
    gbt_status s = GBT_OK;
    c->nfeat = nf;
    FORWARD_IF_ERROR(gbt__alloc(&c->offset, nf + 1, sizeof(uint32_t), 1, "bin offsets"));
    FORWARD_IF_ERROR(gbt__alloc(&c->nbins, nf ? nf : 1, sizeof(uint32_t), 1, "bin counts"));
    FORWARD_IF_ERROR(gbt__alloc(&c->has_missing, nf ? nf : 1, 1, 1, "missing flags"));
    for (uint32_t f = 0; f < nf; f++) any_cat |= gbt__dataset_is_cat(d, f);
    if (any_cat) {
        FORWARD_IF_ERROR(gbt__alloc(&c->is_cat, nf, 1, 0, "categorical flags"));
        for (uint32_t f = 0; f < nf; f++) c->is_cat[f] = (uint8_t)gbt__dataset_is_cat(d, f);
    }
    /*
     * A numeric feature has at most min(its present values, max_bin) cuts,
     * a categorical one at most its present values (and, over every
     * process, GBT_CAT_MAX_DISTINCT): its cuts wait at its column's start
     * (sparse data: memory follows the values present, not the index
     * range) or after the room of the features before it, whichever
     * layout is smaller.
     */
    by_values = dist == NULL && d->nnz < (uint64_t)nf * (uint64_t)max_bin;
    FORWARD_IF_ERROR(gbt__alloc(&tmp_at, (size_t)nf + 1, sizeof *tmp_at, 1, "bin cut offsets"));
    for (uint32_t f = 0; f < nf; f++) {
        const uint64_t n = col->start[f + 1] - col->start[f];
        const uint64_t room = by_values ? n : !gbt__cuts_is_cat(c, f) ? (uint64_t)max_bin
                                          : dist ? GBT_CAT_MAX_DISTINCT : n;
        tmp_at[f + 1] = tmp_at[f] + room;
    }
    s = gbt__alloc(&tmp_cuts, tmp_at[nf] + 1, sizeof(float), 0, "bin cuts");
    if (s == GBT_OK && any_cat) s = gbt__alloc(&tmp_cat, tmp_at[nf] + 1, sizeof(uint32_t), 0, "bin categories");
    if (s != GBT_OK) {
        free(tmp_at);
        free(tmp_cuts);
        return s;
    }
    for (uint32_t f = 0; f < nf; f++) {
        uint64_t n = col->start[f + 1] - col->start[f];
        if (n > maxcol) maxcol = n;
        c->has_missing[f] = n < d->nrow;
    }
    if (dist) {
        /* every process's counts decide the missing slots; the merges run in feature order */
        uint64_t *count = NULL;
        uint32_t *keys = NULL, *ktmp = NULL;
        float *w = NULL, *wtmp = NULL;
        double *dw = NULL;
        s = gbt__alloc(&count, nf ? nf : 1, sizeof *count, 0, "value counts");
        for (uint32_t f = 0; f < nf && s == GBT_OK; f++) count[f] = col->start[f + 1] - col->start[f];
        if (s == GBT_OK) s = dist->sum_counts(dist->user, count, nf);
        for (uint32_t f = 0; f < nf && s == GBT_OK; f++) c->has_missing[f] = count[f] < dist->nrow;
        if (s == GBT_OK) s = gbt__alloc(&keys, maxcol + 1, sizeof *keys, 0, "sort keys");
        if (s == GBT_OK) s = gbt__alloc(&dw, maxcol + 1, sizeof *dw, 0, "value weights");
        if (s == GBT_OK) s = gbt__alloc(&ktmp, maxcol + 1, sizeof *ktmp, 0, "sort keys");
        if (s == GBT_OK && col->weight) s = gbt__alloc(&w, maxcol + 1, sizeof *w, 0, "weights");
        if (s == GBT_OK && col->weight) s = gbt__alloc(&wtmp, maxcol + 1, sizeof *wtmp, 0, "weights");
        for (uint32_t f = 0; f < nf && s == GBT_OK; f++) {
            uint32_t budget = (uint32_t)max_bin;
            if (layout == GBT_QM_DENSE8 && c->has_missing[f] && budget > 255) budget = 255;
            s = merged_cuts(dist, col, f, count[f], budget, keys, ktmp, w, wtmp, dw, tmp_cuts + TMP_AT(f),
                            gbt__cuts_is_cat(c, f) ? tmp_cat + TMP_AT(f) : NULL, &c->nbins[f]);
        }
        free(count);
        free(keys);
        free(ktmp);
        free(w);
        free(wtmp);
        free(dw);
    } else {
#pragma omp parallel num_threads(nthread)
        {
            uint32_t *keys = NULL, *ktmp = NULL;
            float *w = NULL, *wtmp = NULL;
            double *dw = NULL;
            gbt_status ts = gbt__alloc(&keys, maxcol + 1, sizeof *keys, 0, "sort keys");
            if (ts == GBT_OK) ts = gbt__alloc(&dw, maxcol + 1, sizeof *dw, 0, "value weights");
            if (ts == GBT_OK) ts = gbt__alloc(&ktmp, maxcol + 1, sizeof *ktmp, 0, "sort keys");
            if (ts == GBT_OK && col->weight) ts = gbt__alloc(&w, maxcol + 1, sizeof *w, 0, "weights");
            if (ts == GBT_OK && col->weight) ts = gbt__alloc(&wtmp, maxcol + 1, sizeof *wtmp, 0, "weights");
            if (ts != GBT_OK) {
#pragma omp critical
                s = ts;
            }
#pragma omp for schedule(dynamic, 1)
            for (uint32_t f = 0; f < nf; f++) {
                uint64_t b = col->start[f], n = col->start[f + 1] - b;
                uint32_t budget = (uint32_t)max_bin;
                if (ts != GBT_OK) continue;
                if (layout == GBT_QM_DENSE8 && c->has_missing[f] && budget > 255) budget = 255;
                for (uint64_t i = 0; i < n; i++) keys[i] = gbt__float_key(col->value[b + i]);
                if (w) memcpy(w, col->weight + b, n * sizeof *w);
                gbt__radix_sort32(keys, w, n, ktmp, wtmp);
                if (gbt__cuts_is_cat(c, f))
                    ts = cat_cuts(keys, distinct_keys(keys, w, n, keys, dw), f, tmp_cuts + TMP_AT(f),
                                  tmp_cat + TMP_AT(f), &c->nbins[f]);
                else
                    ts = distinct_cuts(keys, dw, distinct_keys(keys, w, n, keys, dw), n, budget,
                                       tmp_cuts + TMP_AT(f), &c->nbins[f]);
                if (ts != GBT_OK) {
#pragma omp critical
                    s = ts;
                }
            }
            free(keys);
            free(ktmp);
            free(w);
            free(wtmp);
            free(dw);
        }
    }
    for (uint32_t f = 0; f < nf && s == GBT_OK; f++) {
        /*
         * A feature's bins and one slot for its missing rows, but sparse
         * codes hold present values only: there a feature without any
         * (a gap in LIBSVM indices) takes no slot, and the histograms follow
         * the features present, not the index range (R3).  Feature 0 keeps
         * its slot, so that no histogram is empty.
         */
        total += c->nbins[f] + (layout == GBT_QM_CSR && c->nbins[f] == 0 && f > 0 ? 0 : 1);
        if (total >= UINT32_MAX) s = gbt__fail(GBT_E_INVALID_ARG, "too many bins in total (%llu)",
                                               (unsigned long long)total);
        c->offset[f + 1] = (uint32_t)total;
    }
    if (s == GBT_OK) s = gbt__alloc(&c->cut, total ? total : 1, sizeof(float), 0, "bin cuts");
    if (s == GBT_OK && any_cat) s = gbt__alloc(&c->category, total ? total : 1, sizeof(uint32_t), 1, "bin categories");
    if (s == GBT_OK) {
        c->total_slots = (uint32_t)total;
        for (uint32_t f = 0; f < nf; f++) {
            memcpy(c->cut + c->offset[f], tmp_cuts + TMP_AT(f), c->nbins[f] * sizeof(float));
            if (gbt__cuts_is_cat(c, f))
                memcpy(c->category + c->offset[f], tmp_cat + TMP_AT(f), c->nbins[f] * sizeof(uint32_t));
            if (c->offset[f + 1] > c->offset[f] + c->nbins[f]) c->cut[c->offset[f] + c->nbins[f]] = NAN;
        }
    }
    free(tmp_cuts);
    free(tmp_cat);
    free(tmp_at);
    return s;
}
#undef TMP_AT

/*
 * Codes of dense data.  A binary search is a chain of dependent loads, so
 * four features' searches run side by side: every feature's cuts are
 * padded with FLT_MAX to the same power of two P (the padding is never
 * <= a finite value, so it never moves a search), and each search takes
 * exactly log2(P) steps.
 */
#define BIN_DENSE(NAME, TYPE, FIELD)                                                             \
    static void NAME(const gbt_dataset *d, struct gbt_qmatrix *q, const float *pad, uint32_t P,  \
                     int nthread)                                                                \
    {                                                                                            \
        const struct gbt_cuts *c = &q->cuts;                                                     \
        const uint32_t nf = c->nfeat;                                                            \
        const uint32_t *nbins = c->nbins;                                                        \
        TYPE *codes = q->FIELD;                                                                  \
        _Pragma("omp parallel for schedule(static) num_threads(nthread)")                        \
        for (uint64_t r = 0; r < q->nrow; r++) {                                                 \
            const float *x = d->dense + r * nf;                                                  \
            TYPE *out = codes + r * nf;                                                          \
            uint32_t f = 0;                                                                      \
            for (; f + 4 <= nf; f += 4) {                                                        \
                const float *t0 = pad + (size_t)f * P, *t1 = t0 + P, *t2 = t1 + P, *t3 = t2 + P; \
                const float v0 = x[f], v1 = x[f + 1], v2 = x[f + 2], v3 = x[f + 3];            \
                uint32_t b0 = 0, b1 = 0, b2 = 0, b3 = 0;                                         \
                for (uint32_t h = P / 2; h >= 1; h /= 2) {                                       \
                    b0 += h & (0u - (uint32_t)(t0[b0 + h - 1] <= v0));                           \
                    b1 += h & (0u - (uint32_t)(t1[b1 + h - 1] <= v1));                           \
                    b2 += h & (0u - (uint32_t)(t2[b2 + h - 1] <= v2));                           \
                    b3 += h & (0u - (uint32_t)(t3[b3 + h - 1] <= v3));                           \
                }                                                                                \
                b0 += (uint32_t)(t0[b0] <= v0);                                                  \
                b1 += (uint32_t)(t1[b1] <= v1);                                                  \
                b2 += (uint32_t)(t2[b2] <= v2);                                                  \
                b3 += (uint32_t)(t3[b3] <= v3);                                                  \
                out[f] = (TYPE)(isnan(v0) ? nbins[f] : b0 < nbins[f] ? b0 : nbins[f] - 1);      \
                out[f + 1] = (TYPE)(isnan(v1) ? nbins[f + 1] : b1 < nbins[f + 1] ? b1 : nbins[f + 1] - 1); \
                out[f + 2] = (TYPE)(isnan(v2) ? nbins[f + 2] : b2 < nbins[f + 2] ? b2 : nbins[f + 2] - 1); \
                out[f + 3] = (TYPE)(isnan(v3) ? nbins[f + 3] : b3 < nbins[f + 3] ? b3 : nbins[f + 3] - 1); \
            }                                                                                    \
            for (; f < nf; f++)                                                                  \
                out[f] = (TYPE)(isnan(x[f]) ? nbins[f] : gbt__bin_of(c, f, x[f]));              \
        }                                                                                        \
    }
BIN_DENSE(bin_dense8, uint8_t, codes8)
BIN_DENSE(bin_dense16, uint16_t, codes16)

/* Codes of CSR data binned densely: missing everywhere, then the present values. */
static void bin_csr_dense(const gbt_dataset *d, struct gbt_qmatrix *q, int nthread)
{
    const struct gbt_cuts *c = &q->cuts;
    const uint32_t nf = c->nfeat;
#pragma omp parallel for schedule(static) num_threads(nthread)
    for (uint64_t r = 0; r < q->nrow; r++) {
        for (uint32_t f = 0; f < nf; f++) {
            if (q->codes8)
                q->codes8[r * nf + f] = (uint8_t)c->nbins[f];
            else
                q->codes16[r * nf + f] = (uint16_t)c->nbins[f];
        }
        for (uint64_t i = d->indptr[r]; i < d->indptr[r + 1]; i++) {
            const uint32_t f = d->indices[i], code = gbt__bin_of(c, f, d->values[i]);
            if (q->codes8)
                q->codes8[r * nf + f] = (uint8_t)code;
            else
                q->codes16[r * nf + f] = (uint16_t)code;
        }
    }
}

static gbt_status bin_dense(const gbt_dataset *d, struct gbt_qmatrix *q, int nthread)
{
    const struct gbt_cuts *c = &q->cuts;
    const uint64_t nf = c->nfeat, n = q->nrow * nf;
    uint32_t P = 1, most = 1;
    float *pad = NULL;
    if (q->layout == GBT_QM_DENSE8)
        FORWARD_IF_ERROR(gbt__alloc(&q->codes8, n, 1, 0, "binned matrix"));
    else
        FORWARD_IF_ERROR(gbt__alloc(&q->codes16, n, 2, 0, "binned matrix"));
    if (d->dense == NULL) {
        bin_csr_dense(d, q, nthread);
        return GBT_OK;
    }
    for (uint32_t f = 0; f < nf; f++)
        if (c->nbins[f] > most) most = c->nbins[f];
    while (P < most) P *= 2;
    FORWARD_IF_ERROR(gbt__alloc(&pad, nf * P + 1, sizeof(float), 0, "padded cuts"));
    for (uint32_t f = 0; f < nf; f++)
        for (uint32_t b = 0; b < P; b++) pad[(size_t)f * P + b] = b < c->nbins[f] ? c->cut[c->offset[f] + b] : FLT_MAX;
    if (q->layout == GBT_QM_DENSE8)
        bin_dense8(d, q, pad, P, nthread);
    else
        bin_dense16(d, q, pad, P, nthread);
    free(pad);
    return GBT_OK;
}

static gbt_status bin_csr(const gbt_dataset *d, struct gbt_qmatrix *q, int nthread)
{
    const struct gbt_cuts *c = &q->cuts;
    uint64_t nf = c->nfeat;
    FORWARD_IF_ERROR(gbt__alloc(&q->row_ptr, q->nrow + 1, sizeof(uint64_t), 0, "binned rows"));
    FORWARD_IF_ERROR(gbt__alloc(&q->slots, d->nnz, sizeof(uint32_t), 0, "binned values"));
    if (d->dense) {
        uint64_t k = 0;
        for (uint64_t r = 0; r < q->nrow; r++) {
            q->row_ptr[r] = k;
            for (uint32_t f = 0; f < nf; f++) {
                float v = d->dense[r * nf + f];
                if (!isnan(v)) q->slots[k++] = c->offset[f] + gbt__bin_of(c, f, v);
            }
        }
        q->row_ptr[q->nrow] = k;
        return GBT_OK;
    }
    memcpy(q->row_ptr, d->indptr, (q->nrow + 1) * sizeof(uint64_t));
#pragma omp parallel for schedule(static) num_threads(nthread)
    for (uint64_t i = 0; i < d->nnz; i++) {
        uint32_t f = d->indices[i];
        q->slots[i] = c->offset[f] + gbt__bin_of(c, f, d->values[i]);
    }
    return GBT_OK;
}

/* The column-major copy of dense codes: every column dense; a blocked transpose. */
static gbt_status columns_of_dense(struct gbt_qmatrix *q, int nthread)
{
    const uint64_t n = q->nrow, nf = q->cuts.nfeat;
    const uint64_t block = 2048, nblocks = (n + block - 1) / block;
    if (q->codes8)
        FORWARD_IF_ERROR(gbt__alloc(&q->col_code8, n * nf + 1, 1, 0, "binned columns"));
    else
        FORWARD_IF_ERROR(gbt__alloc(&q->col_code, n * nf + 1, sizeof(uint16_t), 0, "binned columns"));
    for (uint64_t f = 0; f < nf; f++) {
        q->col_off[f] = f * n;
        q->col_dense[f] = 1;
    }
    q->col_off[nf] = nf * n;
#pragma omp parallel for schedule(static) num_threads(nthread)
    for (uint64_t b = 0; b < nblocks; b++) {
        const uint64_t r0 = b * block, r1 = r0 + block < n ? r0 + block : n;
        for (uint64_t f = 0; f < nf; f++) {
            if (q->codes8)
                for (uint64_t r = r0; r < r1; r++) q->col_code8[f * n + r] = q->codes8[r * nf + f];
            else
                for (uint64_t r = r0; r < r1; r++) q->col_code[f * n + r] = q->codes16[r * nf + f];
        }
    }
    return GBT_OK;
}

/* The column-major copy of CSR codes: dense columns for common features, sparse ones for the rest. */
static gbt_status columns_of_csr(struct gbt_qmatrix *q)
{
    const struct gbt_cuts *c = &q->cuts;
    const uint64_t n = q->nrow, nf = c->nfeat, nnz = q->row_ptr[n];
    uint32_t *slot_feature = NULL;
    uint64_t *count = NULL, *fill = NULL, total = 0;
    gbt_status s = gbt__alloc(&slot_feature, c->total_slots + 1, sizeof(uint32_t), 0, "slot features");
    if (s == GBT_OK) s = gbt__alloc(&count, nf + 1, sizeof(uint64_t), 1, "column counts");
    if (s == GBT_OK) s = gbt__alloc(&fill, nf + 1, sizeof(uint64_t), 0, "column fill");
    if (s != GBT_OK) goto done;
    for (uint64_t f = 0; f < nf; f++)
        for (uint32_t k = c->offset[f]; k < c->offset[f + 1]; k++) slot_feature[k] = (uint32_t)f;
    for (uint64_t i = 0; i < nnz; i++) count[slot_feature[q->slots[i]]]++;
    for (uint64_t f = 0; f < nf; f++) {
        q->col_dense[f] = count[f] * 4 >= n;
        q->col_off[f] = total;
        total += q->col_dense[f] ? n : count[f];
    }
    q->col_off[nf] = total;
    s = gbt__alloc(&q->col_code, total + 1, sizeof(uint16_t), 0, "binned columns");
    if (s == GBT_OK) s = gbt__alloc(&q->col_row, total + 1, sizeof(uint32_t), 0, "binned columns");
    if (s != GBT_OK) goto done;
    for (uint64_t f = 0; f < nf; f++) {
        fill[f] = q->col_off[f];
        if (q->col_dense[f])
            for (uint64_t r = 0; r < n; r++) q->col_code[q->col_off[f] + r] = (uint16_t)c->nbins[f];
    }
    for (uint64_t r = 0; r < n; r++)
        for (uint64_t i = q->row_ptr[r]; i < q->row_ptr[r + 1]; i++) {
            const uint32_t f = slot_feature[q->slots[i]];
            const uint16_t code = (uint16_t)(q->slots[i] - c->offset[f]);
            if (q->col_dense[f]) {
                q->col_code[q->col_off[f] + r] = code;
            } else {
                q->col_code[fill[f]] = code;
                q->col_row[fill[f]++] = (uint32_t)r;
            }
        }
done:
    free(slot_feature);
    free(count);
    free(fill);
    return s;
}

static gbt_status make_col_copy(struct gbt_qmatrix *q, int nthread)
{
    const uint64_t nf = q->cuts.nfeat;
    FORWARD_IF_ERROR(gbt__alloc(&q->col_off, nf + 1, sizeof(uint64_t), 0, "binned columns"));
    FORWARD_IF_ERROR(gbt__alloc(&q->col_dense, nf + 1, 1, 0, "binned columns"));
    return q->layout == GBT_QM_CSR ? columns_of_csr(q) : columns_of_dense(q, nthread);
}

/*
 * Whether every feature's codes fit one byte: value bins and the missing
 * code (categorical features are not held to max_bin).  The counts are
 * every process's, so every process decides alike.
 */
static int fits_dense8(const struct gbt_cuts *c)
{
    for (uint32_t f = 0; f < c->nfeat; f++)
        if (c->nbins[f] + (c->has_missing[f] ? 1u : 0u) > 256u) return 0;
    return 1;
}

gbt_status gbt__quantize(const gbt_dataset *d, int max_bin, int nthread, struct gbt_qmatrix *out)
{
    return gbt__quantize_dist(d, max_bin, nthread, NULL, out);
}

gbt_status gbt__quantize_dist(const gbt_dataset *d, int max_bin, int nthread, const struct gbt_quant_dist *dist,
                              struct gbt_qmatrix *out)
{
    struct columns col;
    /* the layout follows the density of every process's rows together */
    double cells = (double)(dist ? dist->nrow : d->nrow) * (double)d->ncol;
    const uint64_t nnz = dist ? dist->nnz : d->nnz;
    gbt_status s;
    memset(out, 0, sizeof *out);
    out->nrow = d->nrow;
    if (cells > 0 && (double)nnz < GBT_SPARSE_DENSITY * cells)
        out->layout = GBT_QM_CSR;
    else
        out->layout = max_bin <= 256 ? GBT_QM_DENSE8 : GBT_QM_DENSE16;
    FORWARD_IF_ERROR(make_columns(d, &col));
    s = compute_cuts(d, &col, max_bin, out->layout, nthread, dist, &out->cuts);
    if (s == GBT_OK && out->layout == GBT_QM_DENSE8 && !fits_dense8(&out->cuts)) {
        /* categories beyond one byte's codes: the same cuts again for two-byte codes */
        gbt__qmatrix_free(out);
        out->nrow = d->nrow;
        out->layout = GBT_QM_DENSE16;
        s = compute_cuts(d, &col, max_bin, out->layout, nthread, dist, &out->cuts);
    }
    free_columns(&col);
    if (s == GBT_OK) s = out->layout == GBT_QM_CSR ? bin_csr(d, out, nthread) : bin_dense(d, out, nthread);
    if (s == GBT_OK) s = make_col_copy(out, nthread);
    if (s != GBT_OK) gbt__qmatrix_free(out);
    return s;
}
