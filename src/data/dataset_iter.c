/*
 * dataset_iter.c - a dataset from the caller's batches (gbt_dataset_from_iter):
 * batches in, the binned matrix out, never all the feature values at once.
 *
 * Pass 1 takes each batch's distinct values per feature with their
 * fixed-point weights (quantize.c's gbt__quantize_distinct) and merges them
 * into one ascending list per feature, weights of a value in several
 * batches summed (exact integers).  The cuts are then made by the code that
 * makes distributed training's (gbt__quantize_dist): this file plays the
 * other processes, handing over the merged lists, the row and value counts
 * and the largest weight, so the cuts are those of all the rows in one
 * dataset.  Pass 2 bins each batch with those cuts (gbt__quantize_rows)
 * into its rows of the binned matrix, which the dataset keeps (binned.h)
 * with no feature values beside it, or, given a cache prefix, writes it as
 * the next page of a file on disk (pages.h), keeping only the cuts.
 *
 * The weights' fixed-point shift depends on the largest weight and the row
 * count of all batches, which pass 1 learns only at its end: the lists are
 * kept at the shift of the batches so far (unweighted rows: counts, shift
 * 0) and rescaled as it changes.  That is exact when every weight is a
 * whole number at the final shift (the lowest bit of every weight is
 * tracked); when one is not, pass 1 runs again at the final shift.
 *
 * With a reference dataset (gbt_dataset_from_iter_ref) there are no cuts to
 * make: one pass bins each batch with a copy of the reference's cuts and
 * appends its codes, so that every split threshold of a model trained on
 * the reference is a bin boundary here (evaluation and prediction on codes,
 * train/margins.c).  Values the reference's cuts cannot hold are dealt with
 * first (ref_batch).
 *
 * Over a communicator (peers, gbt_dataset_from_iter_mpi) each process
 * reads its own batches; the row and value counts, the largest weight and
 * so the final shift are every process's, and each feature's list is
 * merged over the processes (the merge of distributed training) before the
 * cuts are made, so every process bins its batches with the cuts of all
 * the rows.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cuts.h"
#include "data/binned.h"
#include "data/dataset.h"
#include "data/distinct.h"
#include "data/pages.h"
#include "data/quantize.h"
#include "util/util.h"

struct gbt_batch {
    gbt_dataset *d;  /* the batch's rows, NULL until gbt_batch_set_dense or _set_csr */
    uint64_t index;  /* from 0 in each pass */
    gbt_status status;              /* the first failed set call's, or GBT_OK */
    char msg[GBT_ERROR_MSG_MAX];    /* and its message */
};

/* The per-row fields a batch may carry, in gbt_dataset_set_field's names. */
#define NFIELDS 5
static const char *const field_names[NFIELDS] = {"label", "weight", "base_margin", "label_lower_bound",
                                                  "label_upper_bound"};

static float **field_slot(gbt_dataset *d, int k)
{
    float **slots[NFIELDS] = {&d->label, &d->weight, &d->base_margin, &d->label_lower, &d->label_upper};
    return slots[k];
}

struct iter {
    gbt_iter_next_fn next;
    gbt_iter_reset_fn reset;
    void *user;
    int nthread;
    /* batch 0's shape: every batch must match it */
    uint64_t ncol, margins_per_row, targets;
    int has[NFIELDS], has_groups;
    uint8_t *types;          /* ncol feature types, or NULL: all numeric */
    /* pass 1: the batches' row counts, totals, fields */
    uint64_t *batch_rows, nbatch;
    size_t batch_cap;
    uint64_t nrow, nnz;
    float maxw;              /* the largest weight (weighted data) */
    int low;                 /* the lowest bit's exponent of any positive weight */
    float *field[NFIELDS];
    size_t field_cap[NFIELDS];
    uint64_t field_len[NFIELDS];
    uint32_t *groups;
    size_t groups_cap;
    uint64_t ngroups;
    /*
     * pass 1: each feature's distinct values so far and their weights at
     * `shift` (weighted rows), or their counts (unweighted rows: 4 bytes
     * a value instead of 8), and its present values
     */
    uint32_t **keys;
    uint64_t **w;
    uint32_t **cnt;
    size_t *n;
    uint64_t *count;
    int shift, fixed_shift;  /* fixed_shift: the pass that repeats at the final shift */
    /* after pass 1: the rows, present values and largest weight (1 unweighted) of every process */
    const struct gbt_iter_peers *peers; /* the other processes, or NULL */
    uint64_t all_nrow, all_nnz;
    float all_maxw;
    uint64_t merges;         /* the cut code's merge calls (feature order, perhaps twice) */
    /* pass 2 */
    struct gbt_qmatrix *qm;
    struct gbt_pages *pages; /* a cache prefix's page file (pages.h): each batch a page, no codes in qm */
    uint64_t row_at, nnz_at;
    /* the reference's binned matrix (its cuts), or NULL; the codes' capacity in rows or slots */
    const struct gbt_qmatrix *ref;
    size_t row_cap, code_cap;
};

/* ---- the batch handle ------------------------------------------------------- */

/* A set call's failure: named by batch, and kept for the pass (the callback may go on). */
static gbt_status batch_fail(gbt_batch *b, gbt_status s)
{
    if (s == GBT_OK) return s;
    s = gbt__fail_context(s, "batch %llu", (unsigned long long)b->index);
    if (b->status == GBT_OK) {
        b->status = s;
        snprintf(b->msg, sizeof b->msg, "%s", gbt_last_error());
    }
    return s;
}

/* The batch's rows are now d (made by status s). */
static gbt_status batch_data(gbt_batch *b, gbt_status s, gbt_dataset *d)
{
    if (s != GBT_OK) return batch_fail(b, s);
    gbt_dataset_free(b->d);
    b->d = d;
    return GBT_OK;
}

gbt_status gbt__batch_take(gbt_batch *b, gbt_dataset *d)
{
    return batch_data(b, GBT_OK, d);
}

void gbt__batch_fail(gbt_batch *b, gbt_status s)
{
    if (b->status != GBT_OK || s == GBT_OK) return;
    b->status = s;
    snprintf(b->msg, sizeof b->msg, "%s", gbt_last_error());
}

gbt_status gbt_batch_set_dense(gbt_batch *b, const float *data, uint64_t nrow, uint64_t ncol, float missing)
{
    gbt_dataset *d = NULL;
    gbt_status s;
    CHECK_NOT_NULL(b);
    s = gbt_dataset_from_dense(data, nrow, ncol, missing, &d);
    return batch_data(b, s, d);
}

gbt_status gbt_batch_set_csr(gbt_batch *b, const uint64_t *indptr, const uint32_t *indices, const float *values,
                             uint64_t nrow, uint64_t ncol)
{
    gbt_dataset *d = NULL;
    gbt_status s;
    CHECK_NOT_NULL(b);
    s = gbt_dataset_from_csr(indptr, indices, values, nrow, ncol, &d);
    return batch_data(b, s, d);
}

/* The batch's rows, set before its fields. */
static gbt_status batch_rows(gbt_batch *b, const char *call)
{
    if (b->d != NULL) return GBT_OK;
    return batch_fail(b, gbt__fail(GBT_E_INVALID_ARG, "%s before gbt_batch_set_dense or gbt_batch_set_csr", call));
}

gbt_status gbt_batch_set_field(gbt_batch *b, const char *field, const float *values, uint64_t n)
{
    CHECK_NOT_NULL(b);
    CHECK_NOT_NULL(field);
    FORWARD_IF_ERROR(batch_rows(b, "gbt_batch_set_field"));
    if (strcmp(field, "feature_weights") == 0)
        return batch_fail(b, gbt__fail(GBT_E_INVALID_ARG, "feature_weights is one value per feature: set it on "
                                                          "the dataset built, not on a batch"));
    return batch_fail(b, gbt_dataset_set_field(b->d, field, values, n));
}

gbt_status gbt_batch_set_groups(gbt_batch *b, const uint32_t *sizes, uint64_t ngroups)
{
    CHECK_NOT_NULL(b);
    FORWARD_IF_ERROR(batch_rows(b, "gbt_batch_set_groups"));
    return batch_fail(b, gbt_dataset_set_groups(b->d, sizes, ngroups));
}

gbt_status gbt_batch_set_feature_types(gbt_batch *b, const char *const *types, uint64_t n)
{
    CHECK_NOT_NULL(b);
    FORWARD_IF_ERROR(batch_rows(b, "gbt_batch_set_feature_types"));
    return batch_fail(b, gbt_dataset_set_feature_types(b->d, types, n));
}

/* ---- the passes ------------------------------------------------------------- */

static void iter_free(struct iter *it)
{
    for (uint64_t f = 0; it->keys && f < it->ncol; f++) {
        free(it->keys[f]);
        if (it->w) free(it->w[f]);
        if (it->cnt) free(it->cnt[f]);
    }
    free(it->keys);
    free(it->w);
    free(it->cnt);
    free(it->n);
    free(it->count);
    free(it->types);
    free(it->batch_rows);
    for (int k = 0; k < NFIELDS; k++) free(it->field[k]);
    free(it->groups);
}

/* Appends n values to a growing array. */
static gbt_status append(void *arr, size_t *cap, uint64_t *len, const void *v, uint64_t n, size_t size,
                         const char *what)
{
    FORWARD_IF_ERROR(gbt__reserve(arr, cap, (size_t)(*len + n), size, what));
    memcpy((char *)*(void **)arr + *len * size, v, n * size);
    *len += n;
    return GBT_OK;
}

/* The exponent of the lowest set bit of w > 0: w 2^s is a whole number when s >= -that. */
static int low_bit(float w)
{
    int e = 0;
    uint32_t m = (uint32_t)ldexp(frexp((double)w, &e), 24);
    e -= 24;
    while ((m & 1u) == 0) {
        m >>= 1;
        e++;
    }
    return e;
}

/* The lists' weights moved from it->shift to `to` (exact when every weight is whole at `to`). */
static void rescale(struct iter *it, int to)
{
    for (uint64_t f = 0; f < it->ncol && to != it->shift; f++)
        for (size_t i = 0; i < it->n[f]; i++)
            it->w[f][i] = to > it->shift ? it->w[f][i] << (to - it->shift) : it->w[f][i] >> (it->shift - to);
    it->shift = to;
}

/* The shift of every row's weights: gbt__quantize's for these rows, when it knows them all. */
static int final_shift(const struct iter *it)
{
    if (it->all_nrow) return gbt_weight_shift((double)it->all_maxw, it->all_nrow);
    return gbt_weight_shift(it->has[1] ? (double)it->maxw : 1.0, it->nrow);
}

/* An array of n elements of `size` bytes cut down to k (k <= n): kept as it is if that fails. */
static void *shrink(void *p, size_t k, size_t size)
{
    void *q = realloc(p, (k ? k : 1) * size);
    return q ? q : p;
}

/*
 * Merges a batch's list (bk, bw, nb; bw counts for unweighted rows) into
 * feature f's: keys ascending, a value in both once with its weights
 * (counts) summed.
 */
static gbt_status merge_into(struct iter *it, uint64_t f, const uint32_t *bk, const uint64_t *bw, size_t nb)
{
    const int counts = it->cnt != NULL;
    const size_t na = it->n[f];
    struct gbt_distinct_list two[2];
    uint32_t *mk = NULL, *mc = NULL;
    uint64_t *mw = NULL;
    size_t k = 0;
    gbt_status s = gbt__alloc(&mk, na + nb, sizeof *mk, 0, "distinct values");
    if (s == GBT_OK && counts) s = gbt__alloc(&mc, na + nb, sizeof *mc, 0, "distinct counts");
    if (s == GBT_OK && !counts) s = gbt__alloc(&mw, na + nb, sizeof *mw, 0, "distinct weights");
    two[0].keys = it->keys[f];
    two[0].w = counts ? NULL : it->w[f];
    two[0].cnt = counts ? it->cnt[f] : NULL;
    two[0].n = na;
    two[1].keys = bk;
    two[1].w = bw; /* the batch's counts, for unweighted rows */
    two[1].cnt = NULL;
    two[1].n = nb;
    if (s == GBT_OK) s = gbt__distinct_merge(two, 2, mk, mw, mc, &k);
    if (s != GBT_OK) {
        free(mk);
        free(mc);
        free(mw);
        return s;
    }
    free(it->keys[f]);
    it->keys[f] = shrink(mk, k, sizeof *mk);
    if (counts) {
        free(it->cnt[f]);
        it->cnt[f] = shrink(mc, k, sizeof *mc);
    } else {
        free(it->w[f]);
        it->w[f] = shrink(mw, k, sizeof *mw);
    }
    it->n[f] = k;
    return GBT_OK;
}

/* Batch i's checks against batch 0 (whose shape it records). */
static gbt_status check_batch(struct iter *it, const gbt_dataset *b, uint64_t i)
{
    if (i == 0) {
        it->ncol = b->ncol;
        for (int k = 0; k < NFIELDS; k++) it->has[k] = *field_slot((gbt_dataset *)b, k) != NULL;
        it->has_groups = b->ngroups > 0;
        it->margins_per_row = b->base_margin ? b->nbase_margin / b->nrow : 0;
        it->targets = (uint64_t)gbt__dataset_targets(b);
        if (b->feature_types) {
            FORWARD_IF_ERROR(gbt__alloc(&it->types, b->ncol, 1, 0, "feature types"));
            memcpy(it->types, b->feature_types, b->ncol);
        }
        return GBT_OK;
    }
    RETURN_ERROR_IF(b->ncol != it->ncol, GBT_E_INVALID_ARG,
                    "batch %llu has %llu columns but batch 0 has %llu: every batch must have the same columns",
                    (unsigned long long)i, (unsigned long long)b->ncol, (unsigned long long)it->ncol);
    for (int k = 0; k < NFIELDS; k++)
        RETURN_ERROR_IF((*field_slot((gbt_dataset *)b, k) != NULL) != it->has[k], GBT_E_INVALID_ARG,
                        "batch %llu %s %s but batch 0 %s: every batch must carry the same fields",
                        (unsigned long long)i, it->has[k] ? "has no" : "has a", field_names[k],
                        it->has[k] ? "has" : "has none");
    RETURN_ERROR_IF((b->ngroups > 0) != it->has_groups, GBT_E_INVALID_ARG,
                    "batch %llu %s query groups but batch 0 %s: every batch must carry the same fields",
                    (unsigned long long)i, it->has_groups ? "has no" : "has", it->has_groups ? "has" : "has none");
    RETURN_ERROR_IF(b->base_margin && b->nbase_margin / b->nrow != it->margins_per_row, GBT_E_INVALID_ARG,
                    "batch %llu has %llu base margins per row but batch 0 has %llu", (unsigned long long)i,
                    (unsigned long long)(b->nbase_margin / b->nrow), (unsigned long long)it->margins_per_row);
    RETURN_ERROR_IF(b->label && (uint64_t)gbt__dataset_targets(b) != it->targets, GBT_E_INVALID_ARG,
                    "batch %llu has %d labels per row but batch 0 has %llu", (unsigned long long)i,
                    gbt__dataset_targets(b), (unsigned long long)it->targets);
    RETURN_ERROR_IF((b->feature_types == NULL) != (it->types == NULL) ||
                        (it->types && memcmp(b->feature_types, it->types, it->ncol) != 0),
                    GBT_E_INVALID_ARG, "batch %llu has other feature types than batch 0", (unsigned long long)i);
    return GBT_OK;
}

/* Batch i's checks, fields and counts (every batch, with or without a reference). */
static gbt_status gather_rows(struct iter *it, const gbt_dataset *b, uint64_t i)
{
    const uint64_t nf = b->ncol;
    FORWARD_IF_ERROR(check_batch(it, b, i));
    if (it->count == NULL)
        FORWARD_IF_ERROR(gbt__alloc(&it->count, it->ref ? it->ref->cuts.nfeat : nf, sizeof *it->count, 1,
                                    "value counts"));
    FORWARD_IF_ERROR(append(&it->batch_rows, &it->batch_cap, &it->nbatch, &b->nrow, 1, sizeof b->nrow, "batches"));
    for (int k = 0; k < NFIELDS; k++) {
        const float *v = *field_slot((gbt_dataset *)b, k);
        if (v)
            FORWARD_IF_ERROR(append(&it->field[k], &it->field_cap[k], &it->field_len[k], v,
                                    k == 2   ? b->nbase_margin
                                    : k == 0 ? b->nrow * (uint64_t)gbt__dataset_targets(b)
                                             : b->nrow,
                                    sizeof(float), field_names[k]));
    }
    if (b->ngroups)
        FORWARD_IF_ERROR(append(&it->groups, &it->groups_cap, &it->ngroups, b->groups, b->ngroups,
                                sizeof *b->groups, "groups"));
    it->nrow += b->nrow;
    it->nnz += b->nnz;
    for (uint64_t r = 0; b->weight && r < b->nrow; r++) {
        if (b->weight[r] > it->maxw) it->maxw = b->weight[r];
        if (b->weight[r] > 0) {
            const int lb = low_bit(b->weight[r]);
            if (lb < it->low) it->low = lb;
        }
    }
    if (b->dense) {
        for (uint64_t r = 0; r < b->nrow; r++)
            for (uint64_t f = 0; f < nf; f++) it->count[f] += !isnan(b->dense[r * nf + f]);
    } else {
        for (uint64_t k = 0; k < b->nnz; k++) it->count[b->indices[k]]++;
    }
    return GBT_OK;
}

/* Pass 1 on batch i: its checks, fields, counts and distinct values. */
static gbt_status gather(struct iter *it, const gbt_dataset *b, uint64_t i)
{
    const uint64_t nf = b->ncol;
    uint32_t **bk = NULL;
    uint64_t **bw = NULL;
    size_t *bn = NULL;
    gbt_status s;
    FORWARD_IF_ERROR(gather_rows(it, b, i));
    if (it->keys == NULL) {
        FORWARD_IF_ERROR(gbt__alloc(&it->keys, nf, sizeof *it->keys, 1, "distinct values"));
        if (it->has[1])
            FORWARD_IF_ERROR(gbt__alloc(&it->w, nf, sizeof *it->w, 1, "distinct weights"));
        else
            FORWARD_IF_ERROR(gbt__alloc(&it->cnt, nf, sizeof *it->cnt, 1, "distinct counts"));
        FORWARD_IF_ERROR(gbt__alloc(&it->n, nf, sizeof *it->n, 1, "distinct counts"));
    }
    /* unweighted rows count in units (shift 0); weighted ones at the shift of the rows so far */
    if (it->has[1] && !it->fixed_shift) rescale(it, final_shift(it));
    s = gbt__alloc(&bk, nf, sizeof *bk, 1, "distinct values");
    if (s == GBT_OK) s = gbt__alloc(&bw, nf, sizeof *bw, 1, "distinct weights");
    if (s == GBT_OK) s = gbt__alloc(&bn, nf, sizeof *bn, 1, "distinct counts");
    if (s == GBT_OK) s = gbt__quantize_distinct(b, it->shift, it->nthread, bk, bw, bn);
    for (uint64_t f = 0; f < nf && s == GBT_OK; f++) s = merge_into(it, f, bk[f], bw[f], bn[f]);
    for (uint64_t f = 0; bk && f < nf; f++) {
        free(bk[f]);
        free(bw[f]);
    }
    free(bk);
    free(bw);
    free(bn);
    return s;
}

/*
 * A batch's nrow binned rows (part, freed here) appended to the matrix at
 * it->row_at: into arrays sized by the first pass, or (grow: the one pass
 * with a reference, whose sizes are not known ahead) arrays grown to hold
 * them.
 */
static gbt_status append_codes(struct iter *it, struct gbt_qmatrix *part, uint64_t nrow, int grow)
{
    struct gbt_qmatrix *q = it->qm;
    const uint64_t nf = q->cuts.nfeat;
    gbt_status s = GBT_OK;
    if (q->layout == GBT_QM_CSR) {
        const uint64_t m = part->row_ptr[nrow];
        if (grow) {
            s = gbt__reserve(&q->row_ptr, &it->row_cap, it->row_at + nrow + 1, sizeof *q->row_ptr, "binned rows");
            if (s == GBT_OK)
                s = gbt__reserve(&q->slots, &it->code_cap, it->nnz_at + m + 1, sizeof *q->slots, "binned values");
        }
        if (s == GBT_OK) {
            for (uint64_t r = 0; r < nrow; r++) q->row_ptr[it->row_at + r] = it->nnz_at + part->row_ptr[r];
            memcpy(q->slots + it->nnz_at, part->slots, m * sizeof *q->slots);
            it->nnz_at += m;
        }
    } else if (q->layout == GBT_QM_DENSE8) {
        if (grow) s = gbt__reserve(&q->codes8, &it->code_cap, (it->row_at + nrow) * nf, 1, "binned matrix");
        if (s == GBT_OK) memcpy(q->codes8 + it->row_at * nf, part->codes8, nrow * nf);
    } else {
        if (grow)
            s = gbt__reserve(&q->codes16, &it->code_cap, (it->row_at + nrow) * nf, sizeof *q->codes16,
                             "binned matrix");
        if (s == GBT_OK) memcpy(q->codes16 + it->row_at * nf, part->codes16, nrow * nf * sizeof *q->codes16);
    }
    it->row_at += nrow;
    gbt__qmatrix_free(part);
    return s;
}

/* Pass 2 on batch i: its rows binned into the matrix. */
static gbt_status bin_batch(struct iter *it, const gbt_dataset *b, uint64_t i)
{
    struct gbt_qmatrix *q = it->qm, part;
    const uint64_t nf = it->ncol;
    RETURN_ERROR_IF(i >= it->nbatch || b->nrow != it->batch_rows[i] || b->ncol != nf, GBT_E_INVALID_ARG,
                    "batch %llu differs between the passes (%llu rows, %llu columns; the first pass had %s): "
                    "after reset the iterator must give the same batches",
                    (unsigned long long)i, (unsigned long long)b->nrow, (unsigned long long)b->ncol,
                    i >= it->nbatch ? "fewer batches" : "another row count");
    FORWARD_IF_ERROR(gbt__quantize_rows(b, q, it->nthread, &part));
    if (q->layout == GBT_QM_CSR) {
        const uint64_t m = part.row_ptr[b->nrow];
        if (it->nnz_at + m > it->nnz) {
            gbt__qmatrix_free(&part);
            return gbt__fail(GBT_E_INVALID_ARG, "batch %llu has more present values than in the first pass: "
                                                "after reset the iterator must give the same batches",
                             (unsigned long long)i);
        }
    }
    if (it->pages) {
        /* the batch's rows are a page on disk, never kept here */
        const gbt_status s = gbt__pages_write(it->pages, &part);
        it->row_at += b->nrow;
        it->nnz_at += q->layout == GBT_QM_CSR ? part.row_ptr[b->nrow] : 0;
        gbt__qmatrix_free(&part);
        return s;
    }
    return append_codes(it, &part, b->nrow, 0);
}

/* ---- with a reference: its cuts, one pass --------------------------------- */

/*
 * What the reference's cuts cannot hold, checked before batch b (index i)
 * is binned with them: a category the reference does not have is refused
 * (its code would be another category's), and in the CSR layout a value of
 * a feature with no slots there (the reference has none of its values, so
 * no tree trained on it splits on it) is dropped; *clean is then a copy of
 * the rows without those values, else NULL.
 */
static gbt_status ref_batch(const struct iter *it, const gbt_dataset *b, uint64_t i, gbt_dataset **clean)
{
    const struct gbt_cuts *c = &it->qm->cuts;
    const int csr = it->qm->layout == GBT_QM_CSR;
    uint64_t drop = 0;
    *clean = NULL;
    for (uint64_t r = 0; r < b->nrow; r++) {
        const uint64_t k0 = b->dense ? 0 : b->indptr[r], k1 = b->dense ? b->ncol : b->indptr[r + 1];
        for (uint64_t k = k0; k < k1; k++) {
            const uint32_t f = b->dense ? (uint32_t)k : b->indices[k];
            const float v = b->dense ? b->dense[r * b->ncol + k] : b->values[k];
            if (isnan(v)) continue;
            if (gbt__cuts_is_cat(c, f)) {
                const uint32_t bin = gbt__bin_of(c, f, v);
                RETURN_ERROR_IF(c->nbins[f] == 0 || (float)c->category[c->offset[f] + bin] != v, GBT_E_INVALID_ARG,
                                "batch %llu, row %llu: category %g of feature %u is not one of the reference "
                                "dataset's (the rows are binned with its cuts)",
                                (unsigned long long)i, (unsigned long long)r, (double)v, f);
            }
            drop += csr && c->offset[f] == c->offset[f + 1];
        }
    }
    if (drop == 0) return GBT_OK;
    {
        /* the rows as CSR without the values of features the reference has no slots for */
        uint64_t *ptr = NULL, n = 0;
        uint32_t *idx = NULL;
        float *val = NULL;
        gbt_status s = gbt__alloc(&ptr, b->nrow + 1, sizeof *ptr, 0, "batch rows");
        if (s == GBT_OK) s = gbt__alloc(&idx, b->nnz + 1, sizeof *idx, 0, "batch values");
        if (s == GBT_OK) s = gbt__alloc(&val, b->nnz + 1, sizeof *val, 0, "batch values");
        for (uint64_t r = 0; s == GBT_OK && r < b->nrow; r++) {
            const uint64_t k0 = b->dense ? 0 : b->indptr[r], k1 = b->dense ? b->ncol : b->indptr[r + 1];
            ptr[r] = n;
            for (uint64_t k = k0; k < k1; k++) {
                const uint32_t f = b->dense ? (uint32_t)k : b->indices[k];
                const float v = b->dense ? b->dense[r * b->ncol + k] : b->values[k];
                if (isnan(v) || c->offset[f] == c->offset[f + 1]) continue;
                idx[n] = f;
                val[n++] = v;
            }
        }
        if (s == GBT_OK) {
            ptr[b->nrow] = n;
            s = gbt_dataset_from_csr(ptr, idx, val, b->nrow, b->ncol, clean);
        }
        free(ptr);
        free(idx);
        free(val);
        return s;
    }
}

/* Batch i binned with the reference's cuts, its codes appended: the one pass with a reference. */
static gbt_status bin_ref(struct iter *it, const gbt_dataset *b, uint64_t i)
{
    struct gbt_qmatrix *q = it->qm, part;
    const struct gbt_cuts *c = &q->cuts;
    const uint64_t nf = c->nfeat;
    gbt_dataset *clean = NULL;
    gbt_status s;
    RETURN_ERROR_IF(b->ncol > nf || (b->dense && b->ncol != nf), GBT_E_INVALID_ARG,
                    "batch %llu has %llu columns but the reference dataset %llu features: %s",
                    (unsigned long long)i, (unsigned long long)b->ncol, (unsigned long long)nf,
                    b->dense ? "dense rows need a column for each of them" : "sparse rows may have fewer, not more");
    for (uint32_t f = 0; f < b->ncol; f++)
        RETURN_ERROR_IF((b->feature_types && b->feature_types[f] == GBT_FT_CATEGORICAL) != gbt__cuts_is_cat(c, f),
                        GBT_E_INVALID_ARG, "batch %llu: feature %u is %s here but %s in the reference dataset",
                        (unsigned long long)i, f, gbt__cuts_is_cat(c, f) ? "numeric" : "categorical",
                        gbt__cuts_is_cat(c, f) ? "categorical" : "numeric");
    FORWARD_IF_ERROR(gather_rows(it, b, i));
    FORWARD_IF_ERROR(ref_batch(it, b, i, &clean));
    s = gbt__quantize_rows(clean ? clean : b, q, it->nthread, &part);
    gbt_dataset_free(clean);
    FORWARD_IF_ERROR(s);
    return append_codes(it, &part, b->nrow, 1);
}

/* dst := a copy of the cuts src (dst holds nothing). */
static gbt_status copy_cuts(struct gbt_cuts *dst, const struct gbt_cuts *src)
{
    const size_t nf = src->nfeat, ns = src->total_slots;
    memset(dst, 0, sizeof *dst);
    dst->nfeat = src->nfeat;
    dst->total_slots = src->total_slots;
    FORWARD_IF_ERROR(gbt__alloc(&dst->offset, nf + 1, sizeof *dst->offset, 0, "cuts"));
    FORWARD_IF_ERROR(gbt__alloc(&dst->nbins, nf + 1, sizeof *dst->nbins, 0, "cuts"));
    FORWARD_IF_ERROR(gbt__alloc(&dst->cut, ns + 1, sizeof *dst->cut, 0, "cuts"));
    FORWARD_IF_ERROR(gbt__alloc(&dst->has_missing, nf + 1, 1, 1, "cuts"));
    memcpy(dst->offset, src->offset, (nf + 1) * sizeof *dst->offset);
    memcpy(dst->nbins, src->nbins, nf * sizeof *dst->nbins);
    memcpy(dst->cut, src->cut, ns * sizeof *dst->cut);
    if (src->is_cat) {
        FORWARD_IF_ERROR(gbt__alloc(&dst->is_cat, nf + 1, 1, 0, "cuts"));
        FORWARD_IF_ERROR(gbt__alloc(&dst->category, ns + 1, sizeof *dst->category, 0, "cuts"));
        memcpy(dst->is_cat, src->is_cat, nf);
        memcpy(dst->category, src->category, ns * sizeof *dst->category);
    }
    return GBT_OK;
}

/*
 * An empty matrix with the reference's cuts, in its layout, but for two
 * bytes a code where a feature's missing code would not fit one (the
 * reference's feature had all 256 value bins and no missing value).
 */
static gbt_status ref_matrix(const struct gbt_qmatrix *ref, struct gbt_qmatrix *q)
{
    memset(q, 0, sizeof *q);
    q->layout = ref->layout;
    for (uint32_t f = 0; q->layout == GBT_QM_DENSE8 && f < ref->cuts.nfeat; f++)
        if (ref->cuts.nbins[f] >= 256) q->layout = GBT_QM_DENSE16;
    return copy_cuts(&q->cuts, &ref->cuts);
}

/* One pass: reset, then each batch until next says there are no more. */
static gbt_status run_pass(struct iter *it, int pass, gbt_status (*each)(struct iter *, const gbt_dataset *, uint64_t))
{
    int r = it->reset(it->user);
    RETURN_ERROR_IF(r != 0, GBT_E_INVALID_ARG, "the iterator's reset callback failed (returned %d) before pass %d",
                    r, pass);
    for (uint64_t i = 0;; i++) {
        gbt_batch b;
        gbt_status s;
        memset(&b, 0, sizeof b);
        b.index = i;
        r = it->next(it->user, &b);
        if (r < 0 && b.status != GBT_OK) s = gbt__fail(b.status, "%s", b.msg);
        else if (r < 0)
            s = gbt__fail(GBT_E_INVALID_ARG, "batch %llu: the iterator's next callback failed (returned %d)",
                          (unsigned long long)i, r);
        else if (r == 0)
            s = pass == 2 && i != it->nbatch
                    ? gbt__fail(GBT_E_INVALID_ARG, "the second pass had %llu batches, the first %llu: after reset "
                                                   "the iterator must give the same batches",
                                (unsigned long long)i, (unsigned long long)it->nbatch)
                    : GBT_OK;
        else if (b.status != GBT_OK)
            s = gbt__fail(b.status, "%s", b.msg);
        else if (b.d == NULL)
            s = gbt__fail(GBT_E_INVALID_ARG, "batch %llu: the next callback returned %d without "
                                             "gbt_batch_set_dense or gbt_batch_set_csr",
                          (unsigned long long)i, r);
        else
            s = each(it, b.d, i);
        gbt_dataset_free(b.d);
        if (s != GBT_OK || r == 0) return s;
    }
}

/* ---- the cuts: this file as the other processes of gbt__quantize_dist -------- */

static gbt_status iter_sum_counts(void *user, uint64_t *count, uint32_t nfeat)
{
    const struct iter *it = user;
    for (uint32_t f = 0; f < nfeat; f++) count[f] += it->count[f];
    return it->peers ? it->peers->max_sum(it->peers->user, NULL, 0, (int64_t *)count, nfeat) : GBT_OK;
}

static gbt_status iter_max_weight(void *user, double *w)
{
    const struct iter *it = user;
    *w = (double)it->all_maxw; /* every process's already */
    return GBT_OK;
}

/* The merged list of the next feature (the cut code asks in feature order), weights at the final shift. */
static gbt_status iter_merge(void *user, const uint32_t *keys, const uint64_t *w, size_t n, uint32_t **mkeys,
                             uint64_t **mw, size_t *mn)
{
    struct iter *it = user;
    const uint64_t f = it->merges++ % it->ncol;
    const int to = final_shift(it);
    (void)keys;
    (void)w;
    (void)n; /* the empty dataset's: no rows of its own */
    *mkeys = NULL;
    *mw = NULL;
    FORWARD_IF_ERROR(gbt__alloc(mkeys, it->n[f], sizeof **mkeys, 0, "merged values"));
    if (gbt__alloc(mw, it->n[f] + 1, sizeof **mw, 0, "merged weights") != GBT_OK) {
        free(*mkeys);
        *mkeys = NULL;
        return GBT_E_NO_MEMORY;
    }
    memcpy(*mkeys, it->keys[f], it->n[f] * sizeof **mkeys);
    for (size_t i = 0; i < it->n[f]; i++)
        (*mw)[i] = it->cnt ? (uint64_t)it->cnt[f][i] << to
                   : to >= it->shift ? it->w[f][i] << (to - it->shift) : it->w[f][i] >> (it->shift - to);
    *mn = it->n[f];
    if (it->peers) {
        /* this process's list, merged with every other process's */
        uint32_t *mine = *mkeys;
        uint64_t *minew = *mw;
        gbt_status s = it->peers->merge(it->peers->user, mine, minew, it->n[f], mkeys, mw, mn);
        free(mine);
        free(minew);
        return s;
    }
    return GBT_OK;
}

/* The cuts into qm, and room for every row's codes unless they go to pages. */
static gbt_status make_cuts(struct iter *it, int max_bin, int paged, struct gbt_qmatrix *qm)
{
    float none = 0.0f;
    gbt_dataset shell;
    struct gbt_quant_dist q;
    memset(&shell, 0, sizeof shell);
    shell.ncol = it->ncol;
    shell.dense = &none; /* no rows */
    shell.feature_types = it->types;
    memset(&q, 0, sizeof q);
    q.nrow = it->all_nrow;
    q.nnz = it->all_nnz;
    q.sum_counts = iter_sum_counts;
    q.max_weight = iter_max_weight;
    q.merge = iter_merge;
    q.user = it;
    FORWARD_IF_ERROR(gbt__quantize_dist(&shell, max_bin, it->nthread, &q, qm));
    /* the shell's codes (no rows) give way to room for every row's */
    free(qm->codes8);
    free(qm->codes16);
    free(qm->row_ptr);
    free(qm->slots);
    qm->codes8 = NULL;
    qm->codes16 = NULL;
    qm->row_ptr = NULL;
    qm->slots = NULL;
    qm->nrow = it->nrow;
    if (paged) return GBT_OK;
    if (qm->layout == GBT_QM_CSR) {
        FORWARD_IF_ERROR(gbt__alloc(&qm->row_ptr, it->nrow + 1, sizeof *qm->row_ptr, 0, "binned rows"));
        FORWARD_IF_ERROR(gbt__alloc(&qm->slots, it->nnz, sizeof *qm->slots, 0, "binned values"));
        qm->row_ptr[it->nrow] = it->nnz;
    } else if (qm->layout == GBT_QM_DENSE8) {
        FORWARD_IF_ERROR(gbt__alloc(&qm->codes8, it->nrow * it->ncol, 1, 0, "binned matrix"));
    } else {
        FORWARD_IF_ERROR(gbt__alloc(&qm->codes16, it->nrow * it->ncol, sizeof *qm->codes16, 0, "binned matrix"));
    }
    return GBT_OK;
}

/* A digest of the feature types (0: all numeric), the same on every process that has the same. */
static double types_digest(const struct iter *it)
{
    uint32_t h = 2166136261u;
    for (uint64_t f = 0; it->types && f < it->ncol; f++) h = (h ^ it->types[f]) * 16777619u;
    return it->types ? (double)h : 0.0;
}

/* After pass 1: the totals of every process (this one's alone without peers), and their columns compared. */
static gbt_status totals(struct iter *it, gbt_status s)
{
    double v[5];
    int64_t q[2];
    if (it->peers) s = it->peers->agree(it->peers->user, s);
    FORWARD_IF_ERROR(s);
    v[0] = (double)it->ncol;
    v[1] = -(double)it->ncol;
    v[2] = types_digest(it);
    v[3] = -v[2];
    v[4] = it->has[1] ? (double)it->maxw : 1.0;
    q[0] = (int64_t)it->nrow;
    q[1] = (int64_t)it->nnz;
    if (it->peers) FORWARD_IF_ERROR(it->peers->max_sum(it->peers->user, v, 5, q, 2));
    /* every process compares the same maxima: all fail alike */
    RETURN_ERROR_IF(v[0] != -v[1], GBT_E_INVALID_ARG,
                    "the processes' batches have from %.0f to %.0f columns: every process's batches must have "
                    "the same columns", -v[1], v[0]);
    RETURN_ERROR_IF(v[2] != -v[3], GBT_E_INVALID_ARG,
                    "the processes' batches have different feature types: every process must give the same");
    it->all_maxw = (float)v[4];
    it->all_nrow = (uint64_t)q[0];
    it->all_nnz = (uint64_t)q[1];
    return GBT_OK;
}

/* Pass 1, again at the final shift when a weight is not whole there. */
static gbt_status first_pass(struct iter *it)
{
    gbt_status s = run_pass(it, 1, gather);
    if (s == GBT_OK && it->nrow == 0) s = gbt__fail(GBT_E_INVALID_ARG, "the iterator gave no rows");
    FORWARD_IF_ERROR(totals(it, s));
    if (!it->has[1] || it->low + final_shift(it) >= 0) return GBT_OK;
    /* a weight below the final shift's resolution: its truncation must be the in-memory one's */
    {
        struct iter again;
        memset(&again, 0, sizeof again);
        again.next = it->next;
        again.reset = it->reset;
        again.user = it->user;
        again.nthread = it->nthread;
        again.low = INT_MAX;
        again.shift = final_shift(it);
        again.fixed_shift = 1;
        again.peers = it->peers;
        again.all_nrow = it->all_nrow;
        again.all_nnz = it->all_nnz;
        again.all_maxw = it->all_maxw;
        iter_free(it);
        *it = again;
    }
    return run_pass(it, 1, gather);
}

/* The dataset of the gathered fields and the binned matrix. */
static gbt_status assemble(struct iter *it, struct gbt_binned *bn, gbt_dataset **out)
{
    gbt_dataset *d = NULL;
    FORWARD_IF_ERROR(gbt__dataset_check_shape(it->nrow, it->ncol));
    FORWARD_IF_ERROR(gbt__dataset_alloc(&d));
    d->nrow = it->nrow;
    d->ncol = it->ncol;
    d->nnz = it->nnz;
    for (int k = 0; k < NFIELDS; k++) {
        *field_slot(d, k) = it->field[k];
        it->field[k] = NULL;
    }
    d->nbase_margin = d->base_margin ? it->field_len[2] : 0;
    d->ntarget = d->label ? (uint32_t)it->targets : 0;
    d->groups = it->groups;
    d->ngroups = it->ngroups;
    it->groups = NULL;
    d->feature_types = it->types;
    it->types = NULL;
    d->binned_only = 1;
    gbt__binned_keep(d, bn);
    *out = d;
    return GBT_OK;
}

gbt_status gbt_dataset_from_iter(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user, int max_bin,
                                 gbt_dataset **out)
{
    return gbt_dataset_from_iter_ext(next, reset, user, max_bin, NULL, out);
}

gbt_status gbt_dataset_from_iter_ext(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user, int max_bin,
                                     const char *cache_prefix, gbt_dataset **out)
{
    return gbt__dataset_from_iter_peers(next, reset, user, max_bin, cache_prefix, NULL, out);
}

gbt_status gbt__dataset_from_iter_peers(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user, int max_bin,
                                        const char *cache_prefix, const struct gbt_iter_peers *peers,
                                        gbt_dataset **out)
{
    struct iter it;
    struct gbt_binned *bn = NULL;
    gbt_status s;
    CHECK_NOT_NULL(next);
    CHECK_NOT_NULL(reset);
    CHECK_NOT_NULL(out);
    *out = NULL;
    if (max_bin < 2 || max_bin > 65535) {
        s = gbt__fail(GBT_E_INVALID_ARG, "gbt_dataset_from_iter: max_bin %d is out of range [2, 65535]", max_bin);
        return peers ? peers->agree(peers->user, s) : s;
    }
    memset(&it, 0, sizeof it);
    it.next = next;
    it.reset = reset;
    it.user = user;
    it.nthread = gbt__threads(0);
    it.low = INT_MAX;
    it.peers = peers;
    s = first_pass(&it);
    if (s == GBT_OK) s = gbt__binned_alloc(&bn);
    if (s == GBT_OK) s = make_cuts(&it, max_bin, cache_prefix != NULL, &bn->qm);
    if (s == GBT_OK && cache_prefix) s = gbt__pages_create(cache_prefix, &bn->qm, &bn->pages);
    /* the distinct values are done with: free them before the binned matrix fills */
    for (uint64_t f = 0; it.keys && f < it.ncol; f++) {
        free(it.keys[f]);
        it.keys[f] = NULL;
        if (it.w) {
            free(it.w[f]);
            it.w[f] = NULL;
        }
        if (it.cnt) {
            free(it.cnt[f]);
            it.cnt[f] = NULL;
        }
    }
    if (s == GBT_OK) {
        it.qm = &bn->qm;
        it.pages = bn->pages;
        bn->max_bin = max_bin;
        bn->nproc = peers ? peers->nproc : 0;
        bn->nrow_all = it.all_nrow;
        s = run_pass(&it, 2, bin_batch);
    }
    if (s == GBT_OK && it.row_at != it.nrow)
        s = gbt__fail(GBT_E_INVALID_ARG, "the second pass gave %llu rows, the first %llu: after reset the "
                                         "iterator must give the same batches",
                      (unsigned long long)it.row_at, (unsigned long long)it.nrow);
    if (s == GBT_OK && bn->qm.layout == GBT_QM_CSR && it.nnz_at != it.nnz)
        s = gbt__fail(GBT_E_INVALID_ARG, "the second pass gave %llu present values, the first %llu: after reset "
                                         "the iterator must give the same batches",
                      (unsigned long long)it.nnz_at, (unsigned long long)it.nnz);
    if (s == GBT_OK && bn->pages) s = gbt__pages_close(bn->pages);
    if (s == GBT_OK) s = assemble(&it, bn, out);
    /* every process ends with the first failure of any (a failure after pass 1 is agreed on here) */
    if (peers) s = peers->agree(peers->user, s);
    if (s != GBT_OK && *out) {
        gbt_dataset_free(*out);
        *out = NULL;
    }
    gbt__binned_release(bn);
    iter_free(&it);
    return s;
}

gbt_status gbt_dataset_from_iter_ref(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user,
                                     const gbt_dataset *ref, int max_bin, gbt_dataset **out)
{
    struct iter it;
    struct gbt_binned *rb = NULL, *bn = NULL;
    gbt_status s;
    CHECK_NOT_NULL(next);
    CHECK_NOT_NULL(reset);
    CHECK_NOT_NULL(ref);
    CHECK_NOT_NULL(out);
    *out = NULL;
    RETURN_ERROR_IF(max_bin < 2 || max_bin > 65535, GBT_E_INVALID_ARG,
                    "gbt_dataset_from_iter_ref: max_bin %d is out of range [2, 65535]", max_bin);
    memset(&it, 0, sizeof it);
    it.next = next;
    it.reset = reset;
    it.user = user;
    it.nthread = gbt__threads(0);
    it.low = INT_MAX;
    /* the reference's binning for max_bin: its kept one, else binned now and kept with it for training */
    s = gbt__binned_get(ref, max_bin, it.nthread, 1 /* warnings */, NULL, &rb);
    if (s != GBT_OK) s = gbt__fail_context(s, "the reference dataset");
    if (s == GBT_OK) s = gbt__binned_alloc(&bn);
    if (s == GBT_OK) s = ref_matrix(&rb->qm, &bn->qm);
    if (s == GBT_OK) {
        it.ref = &rb->qm;
        it.qm = &bn->qm;
        bn->max_bin = max_bin;
        s = run_pass(&it, 1, bin_ref);
    }
    if (s == GBT_OK && it.nrow == 0) s = gbt__fail(GBT_E_INVALID_ARG, "the iterator gave no rows");
    if (s == GBT_OK) {
        struct gbt_qmatrix *q = &bn->qm;
        q->nrow = it.nrow;
        if (q->layout == GBT_QM_CSR) q->row_ptr[it.nrow] = it.nnz_at;
        for (uint32_t f = 0; f < q->cuts.nfeat; f++) q->cuts.has_missing[f] = it.count[f] < it.nrow;
        if (q->layout == GBT_QM_CSR) it.nnz = it.nnz_at;
        /* the dataset has the reference's features (sparse batches may have fewer) and their types */
        it.ncol = q->cuts.nfeat;
        free(it.types);
        it.types = NULL;
        if (q->cuts.is_cat) {
            s = gbt__alloc(&it.types, it.ncol, 1, 0, "feature types");
            for (uint32_t f = 0; s == GBT_OK && f < it.ncol; f++)
                it.types[f] = q->cuts.is_cat[f] ? GBT_FT_CATEGORICAL : GBT_FT_NUMERIC;
        }
        if (s == GBT_OK) s = assemble(&it, bn, out);
    }
    gbt__binned_release(bn);
    gbt__binned_release(rb);
    iter_free(&it);
    return s;
}
