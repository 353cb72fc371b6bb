/*
 * dataset.c - creating datasets from memory, their fields and groups.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "data/feature_names.h"
#include "util/util.h"

static atomic_uint_fast64_t next_generation = 1;

/* Drops the binned matrix kept with d, if any (binned.c). */
static void drop_binned(gbt_dataset *d)
{
    if (d->drop_binned) d->drop_binned(d);
}

void gbt__dataset_touch(gbt_dataset *d)
{
    d->generation = atomic_fetch_add(&next_generation, 1);
    drop_binned(d);
}

void gbt__dataset_touch_keep(gbt_dataset *d)
{
    const int keep = d->binned_generation == d->generation;
    d->generation = atomic_fetch_add(&next_generation, 1);
    if (keep) d->binned_generation = d->generation;
}

gbt_status gbt__dataset_need_values(const gbt_dataset *d, const char *what)
{
    RETURN_ERROR_IF(d->binned_only, GBT_E_INVALID_ARG,
                    "%s needs the feature values, and this dataset was made from an iterator "
                    "(gbt_dataset_from_iter) or an array's bins (gbt_dataset_from_dense_binned), which keeps only "
                    "their bins: use a dataset made from the data",
                    what);
    return GBT_OK;
}

gbt_status gbt__dataset_alloc(gbt_dataset **out)
{
    gbt_dataset *d;
    FORWARD_IF_ERROR(gbt__alloc(&d, 1, sizeof *d, 1, "dataset"));
    gbt__dataset_touch(d);
    *out = d;
    return GBT_OK;
}

void gbt_dataset_free(gbt_dataset *d)
{
    if (d == NULL) return;
    drop_binned(d);
    free(d->dense);
    free(d->indptr);
    free(d->indices);
    free(d->values);
    free(d->label);
    free(d->weight);
    free(d->feature_weights);
    free(d->base_margin);
    free(d->label_lower);
    free(d->label_upper);
    free(d->groups);
    free(d->source);
    free(d->row_line);
    gbt__names_free(d->feature_names, d->nfeature_names);
    free(d->feature_types);
    free(d->category_names);
    free(d);
}

void gbt__dataset_where(const gbt_dataset *d, uint64_t r, char *buf, size_t len)
{
    if (d->source && d->row_line)
        snprintf(buf, len, "%s:%u", d->source, (unsigned)d->row_line[r]);
    else if (d->source)
        snprintf(buf, len, "%s: row %llu", d->source, (unsigned long long)r);
    else
        snprintf(buf, len, "row %llu", (unsigned long long)r);
}

gbt_status gbt__dataset_check_shape(uint64_t nrow, uint64_t ncol)
{
    RETURN_ERROR_IF(nrow >= GBT_MAX_ROWS, GBT_E_INVALID_ARG,
                    "dataset has %llu rows; gbt supports fewer than %llu", (unsigned long long)nrow,
                    (unsigned long long)GBT_MAX_ROWS);
    RETURN_ERROR_IF(ncol == 0, GBT_E_INVALID_ARG, "dataset has no columns");
    RETURN_ERROR_IF(ncol > GBT_MAX_FEATURES, GBT_E_INVALID_ARG,
                    "dataset has %llu columns; gbt supports at most %u",
                    (unsigned long long)ncol, GBT_MAX_FEATURES);
    return GBT_OK;
}

/* Below this many cells (or entries) a dataset is built on one thread: a parallel region costs more. */
#define PARALLEL_CELLS 65536

/* Threads for building a dataset of n cells. */
static int build_threads(uint64_t n)
{
    return n < PARALLEL_CELLS ? 1 : gbt__threads(0);
}

/*
 * Copies n values of src into dst (dst may be src), those equal to
 * `missing` (when not NaN) as NaN, and counts the values that are not NaN
 * into *nnz; the first infinite value's index, or n, into *inf.  In
 * parallel: the count and the first index are the same for any thread
 * count.
 */
static void copy_cells(float *dst, const float *src, uint64_t n, float missing, uint64_t *nnz, uint64_t *inf)
{
    const int nt = build_threads(n), miss_nan = isnan(missing);
    uint64_t count = 0, first = n;
    (void)nt; /* (a build without OpenMP) */
#pragma omp parallel for schedule(static) num_threads(nt) reduction(+ : count) reduction(min : first)
    for (uint64_t i = 0; i < n; i++) {
        const float v = src[i];
        const int gone = !miss_nan && v == missing;
        dst[i] = gone ? NAN : v;
        count += (uint64_t)(!gone && !isnan(v));
        if (isinf(v) && !gone && i < first) first = i;
    }
    *nnz = count;
    *inf = first;
}

/* d->nnz, or the error of the infinite value at cell inf. */
static gbt_status finish_cells(gbt_dataset *d, uint64_t nnz, uint64_t inf)
{
    if (inf < d->nrow * d->ncol) {
        char where[512];
        gbt__dataset_where(d, inf / d->ncol, where, sizeof where);
        return gbt__fail(GBT_E_FORMAT, "%s: infinite value in column %llu", where,
                         (unsigned long long)(inf % d->ncol));
    }
    d->nnz = nnz;
    return GBT_OK;
}

gbt_status gbt__dataset_finish_dense(gbt_dataset *d)
{
    uint64_t nnz, inf;
    copy_cells(d->dense, d->dense, d->nrow * d->ncol, NAN, &nnz, &inf);
    return finish_cells(d, nnz, inf);
}

gbt_status gbt_dataset_from_dense(const float *data, uint64_t nrow, uint64_t ncol, float missing,
                                  gbt_dataset **out)
{
    gbt_dataset *d;
    gbt_status s;
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(data);
    FORWARD_IF_ERROR(gbt__dataset_check_shape(nrow, ncol));
    FORWARD_IF_ERROR(gbt__dataset_alloc(&d));
    d->nrow = nrow;
    d->ncol = ncol;
    s = gbt__alloc(&d->dense, nrow * ncol, sizeof(float), 0, "dense data");
    if (s == GBT_OK) {
        uint64_t nnz, inf;
        /* one pass: the copy, the missing values and the checks together */
        copy_cells(d->dense, data, nrow * ncol, missing, &nnz, &inf);
        s = finish_cells(d, nnz, inf);
    }
    if (s != GBT_OK) {
        gbt_dataset_free(d);
        return s;
    }
    *out = d;
    return GBT_OK;
}

static int cmp_entry(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

/* Sorts one row's (column, value) pairs by column. */
static gbt_status sort_row(uint32_t *idx, float *val, uint64_t n)
{
    uint64_t *tmp;
    FORWARD_IF_ERROR(gbt__alloc(&tmp, n, sizeof *tmp, 0, "row sort"));
    for (uint64_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &val[i], sizeof bits);
        tmp[i] = ((uint64_t)idx[i] << 32) | bits;
    }
    qsort(tmp, n, sizeof *tmp, cmp_entry);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t bits = (uint32_t)tmp[i];
        idx[i] = (uint32_t)(tmp[i] >> 32);
        memcpy(&val[i], &bits, sizeof bits);
    }
    free(tmp);
    return GBT_OK;
}

/* Row r's first column out of range or infinite value, as an error; GBT_OK if none. */
static gbt_status check_row(const gbt_dataset *d, uint64_t r)
{
    char where[512];
    for (uint64_t i = d->indptr[r]; i < d->indptr[r + 1]; i++) {
        if (d->indices[i] >= d->ncol) {
            gbt__dataset_where(d, r, where, sizeof where);
            return gbt__fail(GBT_E_FORMAT, "%s: column %u is outside the %llu columns", where,
                             d->indices[i], (unsigned long long)d->ncol);
        }
        if (isinf(d->values[i])) {
            gbt__dataset_where(d, r, where, sizeof where);
            return gbt__fail(GBT_E_FORMAT, "%s: infinite value in column %u", where, d->indices[i]);
        }
    }
    return GBT_OK;
}

/*
 * Three passes, so that the usual input (rows sorted, no NaN) costs one
 * parallel pass: (1) in parallel, the first row with a column out of range
 * or an infinite value, whether any row is unsorted, and the NaN count;
 * (2) only when some row is unsorted, the rows before the first bad one
 * sorted and checked for repeated columns, in row order; (3) only when
 * there are NaN values, the entries compacted.  Errors name the same row
 * as one pass in row order would: the first row with any fault.
 */
gbt_status gbt__dataset_finish_csr(gbt_dataset *d)
{
    const uint64_t nrow = d->nrow, nent = d->indptr[nrow];
    const int nt = build_threads(nent);
    uint64_t bad = nrow, nnan = 0, unsorted = 0, w = 0;
    (void)nt; /* (a build without OpenMP) */
#pragma omp parallel for schedule(static) num_threads(nt) reduction(min : bad) reduction(+ : nnan, unsorted)
    for (uint64_t r = 0; r < nrow; r++) {
        const uint64_t b = d->indptr[r], e = d->indptr[r + 1];
        int fault = 0;
        for (uint64_t i = b; i < e; i++) {
            const uint32_t f = d->indices[i];
            const float v = d->values[i];
            unsorted += (uint64_t)(i > b && f <= d->indices[i - 1]);
            nnan += (uint64_t)isnan(v);
            fault |= (f >= d->ncol) | isinf(v);
        }
        if (fault && r < bad) bad = r;
    }
    for (uint64_t r = 0; r < bad && unsorted; r++) {
        const uint64_t b = d->indptr[r], e = d->indptr[r + 1];
        int sorted = 1;
        for (uint64_t i = b + 1; i < e; i++) sorted &= d->indices[i] > d->indices[i - 1];
        if (sorted) continue;
        FORWARD_IF_ERROR(sort_row(d->indices + b, d->values + b, e - b));
        for (uint64_t i = b + 1; i < e; i++) {
            if (d->indices[i] == d->indices[i - 1]) {
                char where[512];
                gbt__dataset_where(d, r, where, sizeof where);
                return gbt__fail(GBT_E_FORMAT, "%s: column %u appears twice", where, d->indices[i]);
            }
        }
    }
    if (bad < nrow) return check_row(d, bad);
    if (nnan == 0) {
        d->nnz = nent;
        return GBT_OK;
    }
    for (uint64_t r = 0; r < nrow; r++) {
        uint64_t b = d->indptr[r], e = d->indptr[r + 1], start = w;
        for (uint64_t i = b; i < e; i++) {
            if (isnan(d->values[i])) continue;
            d->indices[w] = d->indices[i];
            d->values[w] = d->values[i];
            w++;
        }
        d->indptr[r] = start;
    }
    d->indptr[nrow] = w;
    d->nnz = w;
    return GBT_OK;
}

/* memcpy of n bytes in parallel slices. */
static void copy_bytes(void *dst, const void *src, size_t n)
{
    const int nt = build_threads(n / 4);
    const size_t slice = (n + (size_t)nt - 1) / (size_t)nt;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int t = 0; t < nt; t++) {
        const size_t a = (size_t)t * slice, b = a + slice < n ? a + slice : n;
        if (a < b) memcpy((char *)dst + a, (const char *)src + a, b - a);
    }
}

gbt_status gbt_dataset_from_csr(const uint64_t *indptr, const uint32_t *indices,
                                const float *values, uint64_t nrow, uint64_t ncol,
                                gbt_dataset **out)
{
    gbt_dataset *d;
    gbt_status s;
    uint64_t nnz;
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(indptr);
    FORWARD_IF_ERROR(gbt__dataset_check_shape(nrow, ncol));
    RETURN_ERROR_IF(indptr[0] != 0, GBT_E_INVALID_ARG, "CSR indptr[0] is %llu, not 0",
                    (unsigned long long)indptr[0]);
    for (uint64_t r = 0; r < nrow; r++)
        RETURN_ERROR_IF(indptr[r + 1] < indptr[r], GBT_E_INVALID_ARG,
                        "CSR indptr decreases at row %llu", (unsigned long long)r);
    nnz = indptr[nrow];
    RETURN_ERROR_IF(nnz > 0 && (indices == NULL || values == NULL), GBT_E_INVALID_ARG,
                    "gbt_dataset_from_csr: indices or values is NULL with %llu entries",
                    (unsigned long long)nnz);
    FORWARD_IF_ERROR(gbt__dataset_alloc(&d));
    d->nrow = nrow;
    d->ncol = ncol;
    s = gbt__alloc(&d->indptr, nrow + 1, sizeof(uint64_t), 0, "CSR indptr");
    if (s == GBT_OK) s = gbt__alloc(&d->indices, nnz, sizeof(uint32_t), 0, "CSR indices");
    if (s == GBT_OK) s = gbt__alloc(&d->values, nnz, sizeof(float), 0, "CSR values");
    if (s == GBT_OK) {
        copy_bytes(d->indptr, indptr, (nrow + 1) * sizeof(uint64_t));
        if (nnz) {
            copy_bytes(d->indices, indices, nnz * sizeof(uint32_t));
            copy_bytes(d->values, values, nnz * sizeof(float));
        }
        s = gbt__dataset_finish_csr(d);
    }
    if (s != GBT_OK) {
        gbt_dataset_free(d);
        return s;
    }
    *out = d;
    return GBT_OK;
}

gbt_status gbt__dataset_set_index_base(gbt_dataset *d, int indexing_mode)
{
    uint64_t zero = 0;
    while (zero < d->nnz && d->indices[zero] != 0) zero++;
    if (indexing_mode == 0 || (indexing_mode < 0 && zero < d->nnz)) {
        d->index_base = GBT_BASE_ZERO;
        return GBT_OK;
    }
    if (zero < d->nnz) {
        char where[512];
        uint64_t r = 0;
        while (d->indptr[r + 1] <= zero) r++;
        gbt__dataset_where(d, r, where, sizeof where);
        return gbt__fail(GBT_E_FORMAT, "%s: feature index 0 in a file read as one-based (indexing_mode=1)",
                         where);
    }
    /* no index above 0 holds a value (index 0 with NaN alone; fuzz_readers): one-based, nothing is left */
    RETURN_ERROR_IF(d->ncol <= 1, GBT_E_FORMAT,
                    "%s: no features: every feature value is missing (indexing_mode=0 reads index 0 as a feature)",
                    d->source ? d->source : "data");
    for (uint64_t i = 0; i < d->nnz; i++) d->indices[i]--;
    d->ncol--;
    d->index_base = indexing_mode < 0 ? GBT_BASE_ONE_GUESSED : GBT_BASE_ONE;
    gbt__dataset_touch(d);
    return GBT_OK;
}

gbt_status gbt_dataset_shape(const gbt_dataset *d, uint64_t *nrow, uint64_t *ncol)
{
    CHECK_NOT_NULL(d);
    if (nrow) *nrow = d->nrow;
    if (ncol) *ncol = d->ncol;
    return GBT_OK;
}

gbt_status gbt_dataset_get_data(const gbt_dataset *d, const float **dense, const uint64_t **indptr,
                                const uint32_t **indices, const float **values, uint64_t *nnz)
{
    CHECK_NOT_NULL(d);
    FORWARD_IF_ERROR(gbt__dataset_need_values(d, "gbt_dataset_get_data"));
    if (dense) *dense = d->dense;
    if (indptr) *indptr = d->dense ? NULL : d->indptr;
    if (indices) *indices = d->dense ? NULL : d->indices;
    if (values) *values = d->dense ? NULL : d->values;
    if (nnz) *nnz = d->dense ? 0 : d->nnz;
    return GBT_OK;
}

/* nonneg: values must be >= 0; 2: also +inf is allowed (label_upper_bound); 3: also -inf (label_lower_bound). */
static gbt_status check_field_values(const gbt_dataset *d, const char *field, const float *v,
                                     uint64_t n, int nonneg)
{
    for (uint64_t i = 0; i < n; i++) {
        if (nonneg == 2 && v[i] > 0 && isinf(v[i])) continue;
        if (nonneg == 3 && v[i] < 0 && isinf(v[i])) continue;
        if (!isfinite(v[i]) || (nonneg && v[i] < 0)) {
            char where[512];
            uint64_t row = i / (n / d->nrow); /* row-major: n is a multiple of the rows */
            gbt__dataset_where(d, row, where, sizeof where);
            return gbt__fail(GBT_E_FORMAT, "%s: %s %g is %s", where, field, (double)v[i],
                             isnan(v[i]) ? "NaN" : isinf(v[i]) ? "infinite" : "negative");
        }
    }
    return GBT_OK;
}

/* feature_weights: one per column, each finite and >= 0, not all 0. */
static gbt_status check_feature_weights(const gbt_dataset *d, const float *v, uint64_t n)
{
    int any = 0;
    RETURN_ERROR_IF(n != d->ncol, GBT_E_INVALID_ARG,
                    "feature_weights has %llu values but the dataset has %llu features",
                    (unsigned long long)n, (unsigned long long)d->ncol);
    for (uint64_t f = 0; f < n; f++) {
        RETURN_ERROR_IF(!isfinite(v[f]) || v[f] < 0, GBT_E_INVALID_ARG,
                        "feature_weights: the weight %g of feature %llu is %s", (double)v[f],
                        (unsigned long long)f,
                        isnan(v[f]) ? "NaN" : isinf(v[f]) ? "infinite" : "negative");
        any |= v[f] > 0;
    }
    RETURN_ERROR_IF(!any, GBT_E_INVALID_ARG,
                    "feature_weights: every weight is 0 (at least one must be positive)");
    return GBT_OK;
}

/* Binning reads the weights of the per-row fields, and no other. */
static void touch_field(gbt_dataset *d, float **slot)
{
    if (slot == &d->weight)
        gbt__dataset_touch(d);
    else
        gbt__dataset_touch_keep(d);
}

/*
 * Weights given per query group (XGBoost's form on ranking data): each
 * finite and >= 0, every row of group g weighs values[g].
 */
static gbt_status set_group_weights(gbt_dataset *d, const float *values, uint64_t n)
{
    float *copy;
    uint64_t r = 0;
    for (uint64_t g = 0; g < n; g++)
        RETURN_ERROR_IF(!isfinite(values[g]) || values[g] < 0, GBT_E_FORMAT,
                        "weight %g of query group %llu is %s", (double)values[g],
                        (unsigned long long)g,
                        isnan(values[g]) ? "NaN" : isinf(values[g]) ? "infinite" : "negative");
    FORWARD_IF_ERROR(gbt__alloc(&copy, d->nrow, sizeof(float), 0, "weight"));
    for (uint64_t g = 0; g < n; g++)
        for (uint32_t i = 0; i < d->groups[g]; i++) copy[r++] = values[g];
    free(d->weight);
    d->weight = copy;
    touch_field(d, &d->weight);
    return GBT_OK;
}

gbt_status gbt_dataset_set_field(gbt_dataset *d, const char *field, const float *values,
                                 uint64_t n)
{
    float **slot;
    float *copy;
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(field);
    if (strcmp(field, "label") == 0)
        slot = &d->label;
    else if (strcmp(field, "weight") == 0)
        slot = &d->weight;
    else if (strcmp(field, "base_margin") == 0)
        slot = &d->base_margin;
    else if (strcmp(field, "label_lower_bound") == 0)
        slot = &d->label_lower;
    else if (strcmp(field, "label_upper_bound") == 0)
        slot = &d->label_upper;
    else if (strcmp(field, "feature_weights") == 0)
        slot = &d->feature_weights;
    else
        return gbt__fail(GBT_E_INVALID_ARG,
                         "unknown field '%s' (expected label, weight, base_margin, "
                         "label_lower_bound, label_upper_bound or feature_weights)", field);
    if (slot == &d->weight) FORWARD_IF_ERROR(gbt__dataset_need_values(d, "changing the weights (binning reads them)"));
    if (n == 0 && (values == NULL || (d->nrow == 0 && slot == &d->base_margin))) {
        free(*slot);
        *slot = NULL;
        if (slot == &d->base_margin) d->nbase_margin = 0;
        if (slot == &d->label) d->ntarget = 0;
        touch_field(d, slot);
        return GBT_OK;
    }
    CHECK_NOT_NULL(values);
    if (slot == &d->feature_weights) {
        FORWARD_IF_ERROR(check_feature_weights(d, values, n));
    } else if (slot == &d->base_margin) {
        RETURN_ERROR_IF(d->nrow == 0 || n % d->nrow != 0, GBT_E_INVALID_ARG,
                        "base_margin has %llu values; expected a multiple of the %llu rows",
                        (unsigned long long)n, (unsigned long long)d->nrow);
    } else if (slot == &d->label) {
        RETURN_ERROR_IF(d->nrow ? n == 0 || n % d->nrow != 0 || n / d->nrow > GBT_MAX_TARGETS : n != 0,
                        GBT_E_INVALID_ARG,
                        "label has %llu values; expected the %llu rows times the targets (1 to %d)",
                        (unsigned long long)n, (unsigned long long)d->nrow, GBT_MAX_TARGETS);
    } else if (slot == &d->weight && d->ngroups && n == d->ngroups && n != d->nrow) {
        return set_group_weights(d, values, n);
    } else {
        RETURN_ERROR_IF(n != d->nrow, GBT_E_INVALID_ARG,
                        "%s has %llu values but the dataset has %llu rows%s", field,
                        (unsigned long long)n, (unsigned long long)d->nrow,
                        slot != &d->weight ? ""
                        : d->ngroups ? " and query groups"
                                     : " (weights per query group: set the groups first)");
    }
    if (slot != &d->feature_weights)
        FORWARD_IF_ERROR(check_field_values(d, field, values, n,
                                        slot == &d->label_upper   ? 2
                                        : slot == &d->label_lower ? 3
                                                                  : slot == &d->weight));
    FORWARD_IF_ERROR(gbt__alloc(&copy, n, sizeof(float), 0, field));
    memcpy(copy, values, n * sizeof(float));
    /* a lower bound of -inf is no lower bound: left-censored, as 0 (XGBoost's reading) */
    if (slot == &d->label_lower)
        for (uint64_t i = 0; i < n; i++)
            if (isinf(copy[i])) copy[i] = 0.0f;
    free(*slot);
    *slot = copy;
    if (slot == &d->base_margin) d->nbase_margin = n;
    if (slot == &d->label) d->ntarget = d->nrow ? (uint32_t)(n / d->nrow) : 1; /* no rows: no labels, one target */
    touch_field(d, slot);
    return GBT_OK;
}

gbt_status gbt_dataset_get_field(const gbt_dataset *d, const char *field, const float **values,
                                 uint64_t *n)
{
    const float *v;
    uint64_t len;
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(field);
    CHECK_NOT_NULL(values);
    CHECK_NOT_NULL(n);
    if (strcmp(field, "label") == 0) {
        v = d->label;
        len = d->nrow * (uint64_t)gbt__dataset_targets(d);
    } else if (strcmp(field, "weight") == 0) {
        v = d->weight;
        len = d->nrow;
    } else if (strcmp(field, "base_margin") == 0) {
        v = d->base_margin;
        len = d->nbase_margin;
    } else if (strcmp(field, "label_lower_bound") == 0) {
        v = d->label_lower;
        len = d->nrow;
    } else if (strcmp(field, "label_upper_bound") == 0) {
        v = d->label_upper;
        len = d->nrow;
    } else if (strcmp(field, "feature_weights") == 0) {
        v = d->feature_weights;
        len = d->ncol;
    } else {
        return gbt__fail(GBT_E_INVALID_ARG,
                         "unknown field '%s' (expected label, weight, base_margin, "
                         "label_lower_bound, label_upper_bound or feature_weights)", field);
    }
    *values = v;
    *n = v ? len : 0;
    return GBT_OK;
}

gbt_status gbt_dataset_set_groups(gbt_dataset *d, const uint32_t *sizes, uint64_t ngroups)
{
    uint64_t total = 0;
    uint32_t *copy;
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(sizes);
    RETURN_ERROR_IF(ngroups == 0, GBT_E_INVALID_ARG, "no groups given");
    for (uint64_t i = 0; i < ngroups; i++) {
        RETURN_ERROR_IF(sizes[i] == 0, GBT_E_INVALID_ARG, "group %llu is empty",
                        (unsigned long long)i);
        total += sizes[i];
    }
    RETURN_ERROR_IF(total != d->nrow, GBT_E_INVALID_ARG,
                    "group sizes sum to %llu but the dataset has %llu rows",
                    (unsigned long long)total, (unsigned long long)d->nrow);
    FORWARD_IF_ERROR(gbt__alloc(&copy, ngroups, sizeof *copy, 0, "groups"));
    memcpy(copy, sizes, ngroups * sizeof *copy);
    free(d->groups);
    d->groups = copy;
    d->ngroups = ngroups;
    gbt__dataset_touch_keep(d);
    return GBT_OK;
}

gbt_status gbt_dataset_get_groups(const gbt_dataset *d, const uint32_t **sizes, uint64_t *ngroups)
{
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(sizes);
    CHECK_NOT_NULL(ngroups);
    *sizes = d->ngroups ? d->groups : NULL;
    *ngroups = d->ngroups;
    return GBT_OK;
}

void gbt__dataset_view(const gbt_dataset *d, struct gbt_dview *v)
{
    memset(v, 0, sizeof *v);
    v->nrow = d->nrow;
    v->ncol = d->ncol;
    v->dense = d->dense;
    v->missing = NAN;
    v->indptr = d->indptr;
    v->indices = d->indices;
    v->values = d->values;
    v->base_margin = d->base_margin;
    v->nbase_margin = d->nbase_margin;
}
