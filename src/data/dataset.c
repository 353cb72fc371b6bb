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

void gbt__dataset_touch(gbt_dataset *d)
{
    d->generation = atomic_fetch_add(&next_generation, 1);
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
    free(d->dense);
    free(d->indptr);
    free(d->indices);
    free(d->values);
    free(d->label);
    free(d->weight);
    free(d->base_margin);
    free(d->label_lower);
    free(d->label_upper);
    free(d->groups);
    free(d->source);
    free(d->row_line);
    gbt__names_free(d->feature_names, d->nfeature_names);
    free(d->feature_types);
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

static gbt_status check_shape(uint64_t nrow, uint64_t ncol)
{
    RETURN_ERROR_IF(nrow == 0, GBT_E_INVALID_ARG, "dataset has no rows");
    RETURN_ERROR_IF(nrow >= GBT_MAX_ROWS, GBT_E_INVALID_ARG,
                    "dataset has %llu rows; gbt supports fewer than %llu", (unsigned long long)nrow,
                    (unsigned long long)GBT_MAX_ROWS);
    RETURN_ERROR_IF(ncol == 0, GBT_E_INVALID_ARG, "dataset has no columns");
    RETURN_ERROR_IF(ncol > GBT_MAX_FEATURES, GBT_E_INVALID_ARG,
                    "dataset has %llu columns; gbt supports at most %u",
                    (unsigned long long)ncol, GBT_MAX_FEATURES);
    return GBT_OK;
}

gbt_status gbt__dataset_finish_dense(gbt_dataset *d)
{
    uint64_t n = d->nrow * d->ncol, nnz = 0;
    for (uint64_t i = 0; i < n; i++) {
        float v = d->dense[i];
        if (isnan(v)) continue;
        if (isinf(v)) {
            char where[512];
            gbt__dataset_where(d, i / d->ncol, where, sizeof where);
            return gbt__fail(GBT_E_FORMAT, "%s: infinite value in column %llu", where,
                             (unsigned long long)(i % d->ncol));
        }
        nnz++;
    }
    d->nnz = nnz;
    return GBT_OK;
}

gbt_status gbt_dataset_from_dense(const float *data, uint64_t nrow, uint64_t ncol, float missing,
                                  gbt_dataset **out)
{
    gbt_dataset *d;
    gbt_status s;
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(data);
    FORWARD_IF_ERROR(check_shape(nrow, ncol));
    FORWARD_IF_ERROR(gbt__dataset_alloc(&d));
    d->nrow = nrow;
    d->ncol = ncol;
    s = gbt__alloc(&d->dense, nrow * ncol, sizeof(float), 0, "dense data");
    if (s == GBT_OK) {
        uint64_t n = nrow * ncol;
        int miss_nan = isnan(missing);
        for (uint64_t i = 0; i < n; i++) {
            float v = data[i];
            d->dense[i] = (!miss_nan && v == missing) ? NAN : v;
        }
        s = gbt__dataset_finish_dense(d);
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

gbt_status gbt__dataset_finish_csr(gbt_dataset *d)
{
    uint64_t w = 0;
    char where[512];
    for (uint64_t r = 0; r < d->nrow; r++) {
        uint64_t b = d->indptr[r], e = d->indptr[r + 1], start = w;
        int sorted = 1;
        for (uint64_t i = b; i < e; i++) {
            if (i > b && d->indices[i] <= d->indices[i - 1]) sorted = 0;
            if (d->indices[i] >= d->ncol) {
                gbt__dataset_where(d, r, where, sizeof where);
                return gbt__fail(GBT_E_FORMAT, "%s: column %u is outside the %llu columns", where,
                                 d->indices[i], (unsigned long long)d->ncol);
            }
            if (isinf(d->values[i])) {
                gbt__dataset_where(d, r, where, sizeof where);
                return gbt__fail(GBT_E_FORMAT, "%s: infinite value in column %u", where,
                                 d->indices[i]);
            }
        }
        if (!sorted) FORWARD_IF_ERROR(sort_row(d->indices + b, d->values + b, e - b));
        for (uint64_t i = b; i < e; i++) {
            if (i > b && d->indices[i] == d->indices[i - 1]) {
                gbt__dataset_where(d, r, where, sizeof where);
                return gbt__fail(GBT_E_FORMAT, "%s: column %u appears twice", where,
                                 d->indices[i]);
            }
        }
        for (uint64_t i = b; i < e; i++) {
            if (isnan(d->values[i])) continue;
            d->indices[w] = d->indices[i];
            d->values[w] = d->values[i];
            w++;
        }
        d->indptr[r] = start;
    }
    d->indptr[d->nrow] = w;
    d->nnz = w;
    return GBT_OK;
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
    FORWARD_IF_ERROR(check_shape(nrow, ncol));
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
        memcpy(d->indptr, indptr, (nrow + 1) * sizeof(uint64_t));
        if (nnz) {
            memcpy(d->indices, indices, nnz * sizeof(uint32_t));
            memcpy(d->values, values, nnz * sizeof(float));
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

/* nonneg: values must be >= 0; 2: also +inf is allowed (label_upper_bound). */
static gbt_status check_field_values(const gbt_dataset *d, const char *field, const float *v,
                                     uint64_t n, int nonneg)
{
    for (uint64_t i = 0; i < n; i++) {
        if (nonneg == 2 && v[i] > 0 && isinf(v[i])) continue;
        if (!isfinite(v[i]) || (nonneg && v[i] < 0)) {
            char where[512];
            uint64_t row = i % d->nrow;
            gbt__dataset_where(d, row, where, sizeof where);
            return gbt__fail(GBT_E_FORMAT, "%s: %s %g is %s", where, field, (double)v[i],
                             isnan(v[i]) ? "NaN" : isinf(v[i]) ? "infinite" : "negative");
        }
    }
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
    else
        return gbt__fail(GBT_E_INVALID_ARG,
                         "unknown field '%s' (expected label, weight, base_margin, "
                         "label_lower_bound or label_upper_bound)", field);
    if (n == 0 && values == NULL) {
        free(*slot);
        *slot = NULL;
        if (slot == &d->base_margin) d->nbase_margin = 0;
        gbt__dataset_touch(d);
        return GBT_OK;
    }
    CHECK_NOT_NULL(values);
    if (slot == &d->base_margin) {
        RETURN_ERROR_IF(n == 0 || n % d->nrow != 0, GBT_E_INVALID_ARG,
                        "base_margin has %llu values; expected a multiple of the %llu rows",
                        (unsigned long long)n, (unsigned long long)d->nrow);
    } else {
        RETURN_ERROR_IF(n != d->nrow, GBT_E_INVALID_ARG,
                        "%s has %llu values but the dataset has %llu rows", field,
                        (unsigned long long)n, (unsigned long long)d->nrow);
    }
    FORWARD_IF_ERROR(check_field_values(d, field, values, n,
                                        slot == &d->label_upper ? 2
                                        : slot == &d->weight || slot == &d->label_lower));
    FORWARD_IF_ERROR(gbt__alloc(&copy, n, sizeof(float), 0, field));
    memcpy(copy, values, n * sizeof(float));
    free(*slot);
    *slot = copy;
    if (slot == &d->base_margin) d->nbase_margin = n;
    gbt__dataset_touch(d);
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
        len = d->nrow;
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
    } else {
        return gbt__fail(GBT_E_INVALID_ARG,
                         "unknown field '%s' (expected label, weight, base_margin, "
                         "label_lower_bound or label_upper_bound)", field);
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
    gbt__dataset_touch(d);
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
