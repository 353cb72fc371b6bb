/*
 * dataset_dense_binned.c - a dataset of the bins of the caller's dense rows
 * (gbt_dataset_from_dense_binned, XGBoost's QuantileDMatrix of an array),
 * read in place and never copied whole.
 *
 * One pass counts each feature's present values and finds the first
 * infinite value; the cuts are gbt__quantize's, each thread gathering one
 * feature's values at a time straight from the rows
 * (gbt__quantize_cuts_in_place); then blocks of rows are copied (missing
 * values as NaN) and binned with those cuts (gbt__quantize_rows) into the
 * binned matrix, which the dataset keeps as an iterator's (binned.h,
 * binned_only).  So the cuts and codes are those gbt_dataset_from_dense's
 * dataset is binned to, and the memory beyond the caller's rows is the
 * codes, a block, and on each thread one feature's sort.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "data/binned.h"
#include "data/dataset.h"
#include "data/quantize.h"
#include "util/util.h"

/* The rows copied and binned at a time: about 4 MB of floats. */
#define BLOCK_BYTES (4u << 20)

/*
 * Each feature's present values into count (ncol) and the first infinite
 * cell (row-major), or n, into *inf: each thread counts its rows into its
 * own counts, summed after (exact, so the same on any thread count).
 */
static gbt_status count_cells(const struct gbt_dense_src *src, uint64_t nrow, uint64_t ncol, uint64_t *count,
                              uint64_t *inf)
{
    const int miss_nan = isnan(src->missing);
    const int nt = nrow * ncol < 65536 ? 1 : gbt__threads(0);
    uint64_t first = nrow * ncol, *part = NULL;
    FORWARD_IF_ERROR(gbt__alloc(&part, (size_t)nt * ncol, sizeof *part, 1, "value counts"));
#pragma omp parallel num_threads(nt)
    {
        size_t t = 0;
#ifdef _OPENMP
        t = (size_t)omp_get_thread_num();
#endif
        uint64_t *mine = part + t * ncol;
#pragma omp for schedule(static) reduction(min : first)
        for (uint64_t r = 0; r < nrow; r++) {
            const float *row = src->data + r * src->stride;
            for (uint64_t f = 0; f < ncol; f++) {
                const float v = row[f];
                if (isnan(v) || (!miss_nan && v == src->missing)) continue;
                mine[f]++;
                if (isinf(v) && r * ncol + f < first) first = r * ncol + f;
            }
        }
    }
    for (size_t t = 0; t < (size_t)nt; t++)
        for (uint64_t f = 0; f < ncol; f++) count[f] += part[t * ncol + f];
    free(part);
    *inf = first;
    return GBT_OK;
}

/* Rows [r0, r0 + n) binned with q's cuts into q's codes (or CSR rows from *at), through buf (n * ncol floats). */
static gbt_status bin_block(const struct gbt_dense_src *src, uint64_t r0, uint64_t n, uint64_t ncol, float *buf,
                            int nthread, struct gbt_qmatrix *q, uint64_t *at)
{
    const int miss_nan = isnan(src->missing);
    struct gbt_qmatrix part;
    gbt_dataset blk;
    memset(&blk, 0, sizeof blk);
    blk.nrow = n;
    blk.ncol = ncol;
    blk.dense = buf;
    for (uint64_t r = 0; r < n; r++) {
        const float *row = src->data + (r0 + r) * src->stride;
        for (uint64_t f = 0; f < ncol; f++) {
            const float v = row[f];
            const int gone = isnan(v) || (!miss_nan && v == src->missing);
            buf[r * ncol + f] = gone ? NAN : v;
            blk.nnz += !gone;
        }
    }
    FORWARD_IF_ERROR(gbt__quantize_rows(&blk, q, nthread, &part));
    if (q->layout == GBT_QM_CSR) {
        for (uint64_t r = 0; r < n; r++) q->row_ptr[r0 + r] = *at + part.row_ptr[r];
        memcpy(q->slots + *at, part.slots, blk.nnz * sizeof *q->slots);
        *at += blk.nnz;
    } else if (q->layout == GBT_QM_DENSE8) {
        memcpy(q->codes8 + r0 * ncol, part.codes8, n * ncol);
    } else {
        memcpy(q->codes16 + r0 * ncol, part.codes16, n * ncol * sizeof *q->codes16);
    }
    gbt__qmatrix_free(&part);
    return GBT_OK;
}

/* Room for every row's codes in q (its cuts and layout made, nrow set; nnz present values). */
static gbt_status alloc_codes(struct gbt_qmatrix *q, uint64_t ncol, uint64_t nnz)
{
    if (q->layout == GBT_QM_CSR) {
        FORWARD_IF_ERROR(gbt__alloc(&q->row_ptr, q->nrow + 1, sizeof *q->row_ptr, 0, "binned rows"));
        FORWARD_IF_ERROR(gbt__alloc(&q->slots, nnz + 1, sizeof *q->slots, 0, "binned values"));
        q->row_ptr[q->nrow] = nnz;
        return GBT_OK;
    }
    if (q->layout == GBT_QM_DENSE8) return gbt__alloc(&q->codes8, q->nrow * ncol + 1, 1, 0, "binned matrix");
    return gbt__alloc(&q->codes16, q->nrow * ncol + 1, sizeof *q->codes16, 0, "binned matrix");
}

gbt_status gbt_dataset_from_dense_binned(const float *data, uint64_t nrow, uint64_t ncol, uint64_t row_stride,
                                         float missing, const float *weight, int max_bin, gbt_dataset **out)
{
    struct gbt_dense_src src;
    struct gbt_binned *bn = NULL;
    gbt_dataset *d = NULL;
    uint64_t *count = NULL, inf = 0, block, at = 0;
    float *buf = NULL;
    const int nthread = gbt__threads(0);
    gbt_status s;
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(data);
    *out = NULL;
    FORWARD_IF_ERROR(gbt__dataset_check_shape(nrow, ncol));
    RETURN_ERROR_IF(nrow == 0, GBT_E_INVALID_ARG, "gbt_dataset_from_dense_binned: no rows to bin");
    RETURN_ERROR_IF(max_bin < 2 || max_bin > 65535, GBT_E_INVALID_ARG,
                    "gbt_dataset_from_dense_binned: max_bin %d is out of range [2, 65535]", max_bin);
    if (row_stride == 0) row_stride = ncol;
    RETURN_ERROR_IF(row_stride < ncol, GBT_E_INVALID_ARG,
                    "gbt_dataset_from_dense_binned: row_stride %llu is below the %llu columns",
                    (unsigned long long)row_stride, (unsigned long long)ncol);
    src.data = data;
    src.stride = row_stride;
    src.missing = missing;
    FORWARD_IF_ERROR(gbt__alloc(&count, ncol, sizeof *count, 1, "value counts"));
    s = count_cells(&src, nrow, ncol, count, &inf);
    if (s != GBT_OK) {
        free(count);
        return s;
    }
    if (inf < nrow * ncol) {
        free(count);
        return gbt__fail(GBT_E_FORMAT, "row %llu: infinite value in column %llu", (unsigned long long)(inf / ncol),
                         (unsigned long long)(inf % ncol));
    }
    s = gbt__dataset_alloc(&d);
    if (s == GBT_OK) {
        d->nrow = nrow;
        d->ncol = ncol;
        for (uint64_t f = 0; f < ncol; f++) d->nnz += count[f];
        /* the weights' checks and copy are gbt_dataset_set_field's; the cuts read them */
        if (weight) s = gbt_dataset_set_field(d, "weight", weight, nrow);
    }
    if (s == GBT_OK) s = gbt__binned_alloc(&bn);
    if (s == GBT_OK) s = gbt__quantize_cuts_in_place(d, &src, count, max_bin, nthread, &bn->qm);
    free(count);
    if (s == GBT_OK) s = alloc_codes(&bn->qm, ncol, d->nnz);
    block = BLOCK_BYTES / (ncol * sizeof(float));
    if (block == 0) block = 1;
    if (block > nrow) block = nrow;
    if (s == GBT_OK) s = gbt__alloc(&buf, block * ncol, sizeof *buf, 0, "rows to bin");
    for (uint64_t r0 = 0; s == GBT_OK && r0 < nrow; r0 += block)
        s = bin_block(&src, r0, nrow - r0 < block ? nrow - r0 : block, ncol, buf, nthread, &bn->qm, &at);
    free(buf);
    if (s == GBT_OK) {
        bn->max_bin = max_bin;
        d->binned_only = 1;
        gbt__binned_keep(d, bn);
        *out = d;
    } else {
        gbt_dataset_free(d);
    }
    gbt__binned_release(bn);
    return s;
}
