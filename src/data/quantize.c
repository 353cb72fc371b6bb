/*
 * quantize.c - weighted-quantile bin cuts and the binned matrix.
 *
 * Cuts of one feature: sort its present values (radix sort on float keys,
 * weights carried along).  With no more distinct values than the feature's
 * bin budget B, every distinct value gets a bin.  Otherwise the cuts are
 * those XGBoost's hist method makes with max_bin = B, computed on exact
 * weighted ranks (src/common/cuts.h, one definition for every backend):
 * they are XGBoost's cuts wherever XGBoost's sketch is exact.  Weights are
 * summed as fixed-point integers, so the cuts never depend on the order of
 * any sum or on the thread count.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "common/cuts.h"
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

/* Column-major copy of the present values (CSC) with their row weights, or (value NULL) dense rows in place. */
struct columns {
    uint64_t *start; /* nfeat + 1 */
    float *value;
    float *weight;   /* NULL when unweighted */
    const struct gbt_dense_src *src; /* value NULL: nrow rows, each column gathered when sorted */
    const float *row_weight;         /* and their weights (NULL when unweighted) */
    uint64_t nrow;
};

static void free_columns(struct columns *col)
{
    free(col->start);
    free(col->value);
    free(col->weight);
}

/*
 * The transpose's blocks: 32768 rows each, fewer blocks when there are so
 * many columns that their counts would take more than 2^22 entries.  The
 * blocks, not the threads, fix where each value goes.
 */
#define COLUMN_BLOCK 32768
#define COLUMN_COUNTS (1u << 22)

/*
 * Whether d marks feature f categorical.  Binning sits below dataset.c
 * (whose free releases the kept binning, binned.c): it reads the dataset's
 * struct, never dataset.c's functions.
 */
static int is_cat(const gbt_dataset *d, uint64_t f)
{
    return d->feature_types != NULL && d->feature_types[f] == GBT_FT_CATEGORICAL;
}

/*
 * The present values of rows [r0, r1) into their columns from the
 * positions in fill (advanced), or with value NULL, only counted into fill.
 */
static void column_block(const gbt_dataset *d, uint64_t r0, uint64_t r1, uint64_t *fill, struct columns *col)
{
    const uint64_t nf = d->ncol;
    for (uint64_t r = r0; r < r1; r++) {
        const float w = d->weight ? d->weight[r] : 1.0f;
        if (d->dense) {
            const float *row = d->dense + r * nf;
            if (col == NULL) {
                for (uint64_t f = 0; f < nf; f++) fill[f] += !isnan(row[f]);
                continue;
            }
            for (uint64_t f = 0; f < nf; f++) {
                if (isnan(row[f])) continue;
                col->value[fill[f]] = row[f] == 0.0f ? 0.0f : row[f];
                if (col->weight) col->weight[fill[f]] = w;
                fill[f]++;
            }
        } else {
            for (uint64_t i = d->indptr[r]; i < d->indptr[r + 1]; i++) {
                const uint32_t f = d->indices[i];
                if (col) {
                    col->value[fill[f]] = d->values[i] == 0.0f ? 0.0f : d->values[i];
                    if (col->weight) col->weight[fill[f]] = w;
                }
                fill[f]++;
            }
        }
    }
}

/*
 * The transpose, in parallel over blocks of COLUMN_BLOCK rows: each block
 * counts its values per column, the counts give each block its start in
 * every column, and each block writes its rows there, so every column
 * holds its rows in ascending order whatever the thread count.
 */
static gbt_status make_columns(const gbt_dataset *d, int nthread, struct columns *col)
{
    const uint64_t nf = d->ncol, most = nf < COLUMN_COUNTS ? COLUMN_COUNTS / nf : 1;
    uint64_t nb = (d->nrow + COLUMN_BLOCK - 1) / COLUMN_BLOCK, rows, *fill = NULL;
    gbt_status s;
    memset(col, 0, sizeof *col);
    s = gbt__alloc(&col->start, nf + 1, sizeof(uint64_t), 1, "column offsets");
    if (s == GBT_OK) s = gbt__alloc(&col->value, d->nnz, sizeof(float), 0, "column values");
    if (s == GBT_OK && d->weight)
        s = gbt__alloc(&col->weight, d->nnz, sizeof(float), 0, "column weights");
    if (s == GBT_OK) s = gbt__alloc(&fill, (nb ? nb : 1) * nf, sizeof(uint64_t), 1, "column fill");
    if (s != GBT_OK) {
        free(fill);
        free_columns(col);
        return s;
    }
    if (nb > most) nb = most;
    rows = nb ? (d->nrow + nb - 1) / nb : 0;
    if (nb < 2) nthread = 1;
    (void)nthread; /* (a build without OpenMP) */
#pragma omp parallel for schedule(static) num_threads(nthread)
    for (uint64_t b = 0; b < nb; b++)
        column_block(d, b * rows, b + 1 < nb ? (b + 1) * rows : d->nrow, fill + b * nf, NULL);
    /* each block's count becomes its start: columns in order, blocks in order within each */
    for (uint64_t f = 0, at = 0; f < nf; f++) {
        col->start[f] = at;
        for (uint64_t b = 0; b < nb; b++) {
            const uint64_t n = fill[b * nf + f];
            fill[b * nf + f] = at;
            at += n;
        }
        col->start[f + 1] = at;
    }
#pragma omp parallel for schedule(static) num_threads(nthread)
    for (uint64_t b = 0; b < nb; b++)
        column_block(d, b * rows, b + 1 < nb ? (b + 1) * rows : d->nrow, fill + b * nf, col);
    free(fill);
    return GBT_OK;
}

#define TMP_AT(f) ((size_t)tmp_at[f])

/*
 * Cuts of a categorical feature from its nd distinct present values
 * (ukeys ascending, gbt_cut_key; all categories:
 * gbt__dataset_check_categories): one bin per category whatever the
 * budget, cuts as common/cuts.h makes them for few values (each the next
 * bin's category, the last FLT_MAX), and each bin's category in cat.  More
 * than GBT_CAT_MAX_DISTINCT categories is an error naming the feature.
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
        cat[k] = (uint32_t)gbt_cut_value(ukeys[k]);
        out[k] = k + 1 < nd ? gbt_cut_value(ukeys[k + 1]) : FLT_MAX;
    }
    *ncut = (uint32_t)nd;
    return GBT_OK;
}

/*
 * Feature f's distinct present values, ascending (gbt_cut_key, into keys),
 * and their fixed-point weights at `shift` (into uw); returns how many.
 * ktmp, w, wtmp: scratch of the column's length (w, wtmp NULL when
 * unweighted).
 */
static size_t column_distinct(const struct columns *col, uint32_t f, int shift, uint32_t *keys, uint32_t *ktmp,
                              float *w, float *wtmp, uint64_t *uw)
{
    const uint64_t b = col->start[f], n = col->start[f + 1] - b;
    if (col->value) {
        for (uint64_t i = 0; i < n; i++) keys[i] = gbt_cut_key(col->value[b + i]);
        if (w) memcpy(w, col->weight + b, n * sizeof *w);
    } else {
        /* gathered from the rows in place, as make_columns would copy them (-0 as 0, missing skipped) */
        const struct gbt_dense_src *src = col->src;
        const int miss_nan = isnan(src->missing);
        uint64_t i = 0;
        for (uint64_t r = 0; r < col->nrow; r++) {
            const float v = src->data[r * src->stride + f];
            if (isnan(v) || (!miss_nan && v == src->missing)) continue;
            keys[i] = gbt_cut_key(v == 0.0f ? 0.0f : v);
            if (w) w[i] = col->row_weight[r];
            i++;
        }
    }
    gbt__radix_sort32(keys, w, n, ktmp, wtmp);
    return gbt_cuts_distinct(keys, w, shift, n, keys, uw);
}

gbt_status gbt__quantize_distinct(const gbt_dataset *d, int shift, int nthread, uint32_t **keys, uint64_t **w,
                                  size_t *n)
{
    const uint32_t nf = (uint32_t)d->ncol;
    struct columns col;
    struct gbt_par_error pe;
    uint64_t maxcol = 0;
    for (uint32_t f = 0; f < nf; f++) {
        keys[f] = NULL;
        w[f] = NULL;
        n[f] = 0;
    }
    FORWARD_IF_ERROR(make_columns(d, nthread, &col));
    for (uint32_t f = 0; f < nf; f++)
        if (col.start[f + 1] - col.start[f] > maxcol) maxcol = col.start[f + 1] - col.start[f];
    gbt__par_error_init(&pe);
#pragma omp parallel num_threads(nthread)
    {
        uint32_t *ktmp = NULL;
        float *wv = NULL, *wtmp = NULL;
        gbt_status ts = gbt__alloc(&ktmp, maxcol + 1, sizeof *ktmp, 0, "sort keys");
        if (ts == GBT_OK && col.weight) ts = gbt__alloc(&wv, maxcol + 1, sizeof *wv, 0, "weights");
        if (ts == GBT_OK && col.weight) ts = gbt__alloc(&wtmp, maxcol + 1, sizeof *wtmp, 0, "weights");
        gbt__par_error_keep(&pe, 0, ts);
#pragma omp for schedule(dynamic, 1)
        for (uint32_t f = 0; f < nf; f++) {
            const uint64_t cn = col.start[f + 1] - col.start[f];
            gbt_status fs = ts;
            if (fs == GBT_OK) fs = gbt__alloc(&keys[f], cn, sizeof **keys, 0, "distinct values");
            if (fs == GBT_OK) fs = gbt__alloc(&w[f], cn + 1, sizeof **w, 0, "distinct weights");
            if (fs == GBT_OK) n[f] = column_distinct(&col, f, shift, keys[f], ktmp, wv, wtmp, w[f]);
            gbt__par_error_keep(&pe, f, fs);
        }
        free(ktmp);
        free(wv);
        free(wtmp);
    }
    free_columns(&col);
    return gbt__par_error_raise(&pe);
}

/*
 * Distributed training: feature f's cuts from the distinct values of every
 * process (keys, ktmp, w, wtmp, uw: scratch of the column's length).
 */
static gbt_status merged_cuts(const struct gbt_quant_dist *dist, const struct columns *col, uint32_t f,
                              uint64_t count, uint32_t budget, int shift, uint32_t *keys, uint32_t *ktmp, float *w,
                              float *wtmp, uint64_t *uw, float *out, uint32_t *cat, uint32_t *nbins)
{
    uint64_t na = 0, nb = 0;
    uint32_t *mk = NULL;
    uint64_t *mw = NULL;
    struct gbt_qentry *ea = NULL, *eb = NULL;
    size_t nd, mn = 0;
    gbt_status s;
    nd = column_distinct(col, f, shift, keys, ktmp, w, wtmp, uw);
    s = dist->merge(dist->user, keys, uw, nd, &mk, &mw, &mn);
    if (s == GBT_OK && cat) {
        s = cat_cuts(mk, mn, f, out, cat, nbins);
        free(mk);
        free(mw);
        return s;
    }
    if (s == GBT_OK) gbt_cuts_scratch(mn, count, budget, &na, &nb);
    if (s == GBT_OK) s = gbt__alloc(&ea, na + 1, sizeof *ea, 0, "quantile summary");
    if (s == GBT_OK) s = gbt__alloc(&eb, nb + 1, sizeof *eb, 0, "quantile summary");
    if (s == GBT_OK) {
        gbt_cuts_prefix(mw, mn); /* dist's merge leaves room for mn + 1 */
        *nbins = gbt_cuts_of_feature(mk, mw, mn, count, budget, ldexp(1.0, -shift), ea, eb, NULL, out);
    }
    free(mk);
    free(mw);
    free(ea);
    free(eb);
    return s;
}

gbt_status gbt__cuts_assemble(struct gbt_cuts *c, int layout, const float *tmp_cuts, const uint64_t *at, size_t stride)
{
    const uint32_t nf = c->nfeat;
    uint64_t total = 0;
    gbt_status s = GBT_OK;
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
    if (s == GBT_OK) {
        c->total_slots = (uint32_t)total;
        for (uint32_t f = 0; f < nf; f++) {
            memcpy(c->cut + c->offset[f], tmp_cuts + (at ? at[f] : (size_t)f * stride), c->nbins[f] * sizeof(float));
            if (c->offset[f + 1] > c->offset[f] + c->nbins[f]) c->cut[c->offset[f] + c->nbins[f]] = NAN;
        }
    }
    return s;
}

int gbt__qm_layout(uint64_t nrow, uint64_t ncol, uint64_t nnz, int max_bin)
{
    const double cells = (double)nrow * (double)ncol;
    if (cells > 0 && (double)nnz < GBT_SPARSE_DENSITY * cells) return GBT_QM_CSR;
    return max_bin <= 256 ? GBT_QM_DENSE8 : GBT_QM_DENSE16;
}

double gbt__max_weight(const float *w, uint64_t n, int nthread)
{
    float m = 0.0f;
    if (w == NULL) return 1.0;
#pragma omp parallel for reduction(max : m) schedule(static) num_threads(nthread)
    for (uint64_t r = 0; r < n; r++)
        if (w[r] > m) m = w[r];
    return m;
}

static gbt_status compute_cuts(const gbt_dataset *d, const struct columns *col, int max_bin,
                               int layout, int nthread, const struct gbt_quant_dist *dist,
                               struct gbt_cuts *c)
{
    uint32_t nf = (uint32_t)d->ncol;
    float *tmp_cuts = NULL;
    uint32_t *tmp_cat = NULL;
    uint64_t maxcol = 0, maxa = 0, maxb = 0, *tmp_at = NULL;
    double maxw = gbt__max_weight(d->weight, d->nrow, nthread);
    int by_values, shift, any_cat = 0;
    gbt_status s = GBT_OK;
    c->nfeat = nf;
    FORWARD_IF_ERROR(gbt__alloc(&c->offset, nf + 1, sizeof(uint32_t), 1, "bin offsets"));
    FORWARD_IF_ERROR(gbt__alloc(&c->nbins, nf ? nf : 1, sizeof(uint32_t), 1, "bin counts"));
    FORWARD_IF_ERROR(gbt__alloc(&c->has_missing, nf ? nf : 1, 1, 1, "missing flags"));
    for (uint32_t f = 0; f < nf; f++) any_cat |= is_cat(d, f);
    if (any_cat) {
        FORWARD_IF_ERROR(gbt__alloc(&c->is_cat, nf, 1, 0, "categorical flags"));
        for (uint32_t f = 0; f < nf; f++) c->is_cat[f] = (uint8_t)is_cat(d, f);
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
        uint64_t *count = NULL, *uw = NULL;
        uint32_t *keys = NULL, *ktmp = NULL;
        float *w = NULL, *wtmp = NULL;
        s = dist->max_weight(dist->user, &maxw);
        shift = gbt_weight_shift(maxw, dist->nrow);
        if (s == GBT_OK) s = gbt__alloc(&count, nf ? nf : 1, sizeof *count, 0, "value counts");
        for (uint32_t f = 0; f < nf && s == GBT_OK; f++) count[f] = col->start[f + 1] - col->start[f];
        if (s == GBT_OK) s = dist->sum_counts(dist->user, count, nf);
        for (uint32_t f = 0; f < nf && s == GBT_OK; f++) c->has_missing[f] = count[f] < dist->nrow;
        if (s == GBT_OK) s = gbt__alloc(&keys, maxcol + 1, sizeof *keys, 0, "sort keys");
        if (s == GBT_OK) s = gbt__alloc(&uw, maxcol + 1, sizeof *uw, 0, "value weights");
        if (s == GBT_OK) s = gbt__alloc(&ktmp, maxcol + 1, sizeof *ktmp, 0, "sort keys");
        if (s == GBT_OK && d->weight) s = gbt__alloc(&w, maxcol + 1, sizeof *w, 0, "weights");
        if (s == GBT_OK && d->weight) s = gbt__alloc(&wtmp, maxcol + 1, sizeof *wtmp, 0, "weights");
        for (uint32_t f = 0; f < nf && s == GBT_OK; f++)
            s = merged_cuts(dist, col, f, count[f], gbt__feature_budget(max_bin, layout, c->has_missing[f]), shift, keys,
                            ktmp, w, wtmp, uw, tmp_cuts + TMP_AT(f),
                            gbt__cuts_is_cat(c, f) ? tmp_cat + TMP_AT(f) : NULL, &c->nbins[f]);
        free(count);
        free(keys);
        free(ktmp);
        free(w);
        free(wtmp);
        free(uw);
    } else {
        const double unit = ldexp(1.0, -(shift = gbt_weight_shift(maxw, d->nrow)));
        /* the workers' failures: the lowest feature's message reaches the caller (error.h) */
        struct gbt_par_error pe;
        gbt__par_error_init(&pe);
        /* the summaries' scratch: the most any feature needs (its present values bound its distinct ones) */
        for (uint32_t f = 0; f < nf; f++) {
            const uint64_t n = col->start[f + 1] - col->start[f];
            uint64_t na, nb;
            gbt_cuts_scratch(n, n, gbt__feature_budget(max_bin, layout, c->has_missing[f]), &na, &nb);
            if (na > maxa) maxa = na;
            if (nb > maxb) maxb = nb;
        }
        {
            /*
             * Each thread's scratch (the longest column's), made here: freed
             * to the caller's heap, not kept by a worker thread's arena.
             */
            const size_t m = maxcol + 1, nt = (size_t)(nthread > 1 ? nthread : 1);
            uint32_t *keys = NULL, *ktmp = NULL;
            float *w = NULL, *wtmp = NULL;
            uint64_t *uw = NULL;
            struct gbt_qentry *ea = NULL, *eb = NULL;
            s = gbt__alloc(&keys, nt * m, sizeof *keys, 0, "sort keys");
            if (s == GBT_OK) s = gbt__alloc(&uw, nt * m, sizeof *uw, 0, "value weights");
            if (s == GBT_OK) s = gbt__alloc(&ktmp, nt * m, sizeof *ktmp, 0, "sort keys");
            if (s == GBT_OK && d->weight) s = gbt__alloc(&w, nt * m, sizeof *w, 0, "weights");
            if (s == GBT_OK && d->weight) s = gbt__alloc(&wtmp, nt * m, sizeof *wtmp, 0, "weights");
            if (s == GBT_OK) s = gbt__alloc(&ea, nt * (maxa + 1), sizeof *ea, 0, "quantile summary");
            if (s == GBT_OK) s = gbt__alloc(&eb, nt * (maxb + 1), sizeof *eb, 0, "quantile summary");
            gbt__par_error_keep(&pe, 0, s);
#pragma omp parallel num_threads((int)nt) if (s == GBT_OK)
            {
                size_t t = 0;
#ifdef _OPENMP
                t = (size_t)omp_get_thread_num();
#endif
#pragma omp for schedule(dynamic, 1)
                for (uint32_t f = 0; f < nf; f++) {
                    const uint64_t n = col->start[f + 1] - col->start[f];
                    uint32_t *k = keys + t * m;
                    uint64_t *u = uw + t * m;
                    size_t nd;
                    if (s != GBT_OK) continue;
                    nd = column_distinct(col, f, shift, k, ktmp + t * m, w ? w + t * m : NULL,
                                         wtmp ? wtmp + t * m : NULL, u);
                    if (gbt__cuts_is_cat(c, f)) {
                        /* its message is this worker's: kept for the caller, the lowest feature's winning */
                        gbt__par_error_keep(&pe, f, cat_cuts(k, nd, f, tmp_cuts + TMP_AT(f), tmp_cat + TMP_AT(f),
                                                             &c->nbins[f]));
                        continue;
                    }
                    gbt_cuts_prefix(u, nd);
                    c->nbins[f] = gbt_cuts_of_feature(k, u, nd, n,
                                                      gbt__feature_budget(max_bin, layout, c->has_missing[f]), unit,
                                                      ea + t * (maxa + 1), eb + t * (maxb + 1), NULL,
                                                      tmp_cuts + TMP_AT(f));
                }
            }
            free(keys);
            free(ktmp);
            free(w);
            free(wtmp);
            free(uw);
            free(ea);
            free(eb);
        }
        s = gbt__par_error_raise(&pe);
    }
    if (s == GBT_OK) s = gbt__cuts_assemble(c, layout, tmp_cuts, tmp_at, 0);
    if (s == GBT_OK && any_cat)
        s = gbt__alloc(&c->category, c->total_slots ? c->total_slots : 1, sizeof(uint32_t), 1, "bin categories");
    for (uint32_t f = 0; f < nf && s == GBT_OK && any_cat; f++)
        if (gbt__cuts_is_cat(c, f))
            memcpy(c->category + c->offset[f], tmp_cat + TMP_AT(f), c->nbins[f] * sizeof(uint32_t));
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

gbt_status gbt__quantize_rows(const gbt_dataset *d, const struct gbt_qmatrix *q, int nthread,
                              struct gbt_qmatrix *part)
{
    gbt_status s;
    memset(part, 0, sizeof *part);
    part->cuts = q->cuts; /* borrowed: given back below, never freed with part */
    part->nrow = d->nrow;
    part->layout = q->layout;
    s = q->layout == GBT_QM_CSR ? bin_csr(d, part, nthread) : bin_dense(d, part, nthread);
    memset(&part->cuts, 0, sizeof part->cuts);
    if (s != GBT_OK) gbt__qmatrix_free(part);
    return s;
}

/* The cuts of d's columns col into out (its layout set), two-byte codes when categories need them. */
static gbt_status cuts_and_layout(const gbt_dataset *d, const struct columns *col, int max_bin, int nthread,
                                  const struct gbt_quant_dist *dist, struct gbt_qmatrix *out)
{
    gbt_status s = compute_cuts(d, col, max_bin, out->layout, nthread, dist, &out->cuts);
    if (s == GBT_OK && out->layout == GBT_QM_DENSE8 && !fits_dense8(&out->cuts)) {
        /* categories beyond one byte's codes: the same cuts again for two-byte codes */
        gbt__qmatrix_free(out);
        out->nrow = d->nrow;
        out->layout = GBT_QM_DENSE16;
        s = compute_cuts(d, col, max_bin, out->layout, nthread, dist, &out->cuts);
    }
    return s;
}

gbt_status gbt__quantize(const gbt_dataset *d, int max_bin, int nthread, struct gbt_qmatrix *out)
{
    return gbt__quantize_dist(d, max_bin, nthread, NULL, out);
}

gbt_status gbt__quantize_dist(const gbt_dataset *d, int max_bin, int nthread, const struct gbt_quant_dist *dist,
                              struct gbt_qmatrix *out)
{
    struct columns col;
    gbt_status s;
    memset(out, 0, sizeof *out);
    out->nrow = d->nrow;
    /* the layout follows the density of every process's rows together */
    out->layout = dist ? gbt__qm_layout(dist->nrow, d->ncol, dist->nnz, max_bin)
                       : gbt__qm_layout(d->nrow, d->ncol, d->nnz, max_bin);
    FORWARD_IF_ERROR(make_columns(d, nthread, &col));
    s = cuts_and_layout(d, &col, max_bin, nthread, dist, out);
    free_columns(&col);
    if (s == GBT_OK) s = out->layout == GBT_QM_CSR ? bin_csr(d, out, nthread) : bin_dense(d, out, nthread);
    if (s != GBT_OK) gbt__qmatrix_free(out);
    return s;
}

gbt_status gbt__quantize_cuts_in_place(const gbt_dataset *d, const struct gbt_dense_src *src, const uint64_t *count,
                                       int max_bin, int nthread, struct gbt_qmatrix *out)
{
    struct columns col;
    gbt_status s;
    memset(out, 0, sizeof *out);
    memset(&col, 0, sizeof col);
    out->nrow = d->nrow;
    out->layout = gbt__qm_layout(d->nrow, d->ncol, d->nnz, max_bin);
    FORWARD_IF_ERROR(gbt__alloc(&col.start, d->ncol + 1, sizeof *col.start, 1, "column offsets"));
    for (uint64_t f = 0; f < d->ncol; f++) col.start[f + 1] = col.start[f] + count[f];
    col.src = src;
    col.row_weight = d->weight;
    col.nrow = d->nrow;
    s = cuts_and_layout(d, &col, max_bin, nthread, NULL, out);
    free_columns(&col);
    if (s != GBT_OK) gbt__qmatrix_free(out);
    return s;
}
