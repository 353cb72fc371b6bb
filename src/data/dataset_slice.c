/*
 * dataset_slice.c - a dataset holding a range of another's rows, with
 * everything each row carries (gbt_dataset_slice_rows).
 */
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "data/feature_names.h"
#include "util/util.h"

/* A copy of n elements of `size` bytes from src + begin * size, or NULL when src is NULL. */
static gbt_status copy_part(void *out, const void *src, uint64_t begin, uint64_t n, size_t size,
                            const char *what)
{
    void **p = (void **)out;
    *p = NULL;
    if (src == NULL) return GBT_OK;
    FORWARD_IF_ERROR(gbt__alloc(p, n, size, 0, what));
    if (n) memcpy(*p, (const char *)src + begin * size, n * size);
    return GBT_OK;
}

/*
 * The groups of rows [begin, end): *first the first group inside, *count
 * their number; an error naming the group that a boundary cuts.
 */
static gbt_status group_range(const gbt_dataset *d, uint64_t begin, uint64_t end, uint64_t *first,
                              uint64_t *count)
{
    uint64_t start = 0, g = 0;
    *first = *count = 0;
    if (d->ngroups == 0) return GBT_OK;
    for (; g < d->ngroups && start < begin; g++) start += d->groups[g];
    if (start != begin) {
        g--;
        return gbt__fail(GBT_E_INVALID_ARG,
                         "gbt_dataset_slice_rows: row %llu is inside query group %llu (rows %llu to %llu); "
                         "a slice must start and end on group boundaries",
                         (unsigned long long)begin, (unsigned long long)g,
                         (unsigned long long)(start - d->groups[g]), (unsigned long long)(start - 1));
    }
    *first = g;
    for (; g < d->ngroups && start < end; g++) start += d->groups[g];
    if (start != end) {
        g--;
        return gbt__fail(GBT_E_INVALID_ARG,
                         "gbt_dataset_slice_rows: end row %llu is inside query group %llu (rows %llu to %llu); "
                         "a slice must start and end on group boundaries",
                         (unsigned long long)end, (unsigned long long)g,
                         (unsigned long long)(start - d->groups[g]), (unsigned long long)(start - 1));
    }
    *count = g - *first;
    return GBT_OK;
}

static gbt_status fill(const gbt_dataset *d, uint64_t begin, uint64_t end, gbt_dataset *s)
{
    const uint64_t n = end - begin;
    uint64_t g0, ng;
    FORWARD_IF_ERROR(group_range(d, begin, end, &g0, &ng));
    s->nrow = n;
    s->ncol = d->ncol;
    s->index_base = d->index_base;
    s->layout = d->layout;
    if (d->dense) {
        FORWARD_IF_ERROR(gbt__alloc(&s->dense, n * d->ncol, sizeof(float), 0, "dense data"));
        if (n) memcpy(s->dense, d->dense + begin * d->ncol, n * d->ncol * sizeof(float));
        for (uint64_t i = 0; i < n * d->ncol; i++) s->nnz += s->dense[i] == s->dense[i];
    } else {
        const uint64_t b = d->indptr[begin], e = d->indptr[end];
        FORWARD_IF_ERROR(gbt__alloc(&s->indptr, n + 1, sizeof(uint64_t), 0, "CSR indptr"));
        for (uint64_t r = 0; r <= n; r++) s->indptr[r] = d->indptr[begin + r] - b;
        FORWARD_IF_ERROR(copy_part(&s->indices, d->indices, b, e - b, sizeof(uint32_t), "CSR indices"));
        FORWARD_IF_ERROR(copy_part(&s->values, d->values, b, e - b, sizeof(float), "CSR values"));
        s->nnz = e - b;
    }
    {
        const uint64_t t = (uint64_t)gbt__dataset_targets(d); /* t labels per row, row-major */
        FORWARD_IF_ERROR(copy_part(&s->label, d->label, begin * t, n * t, sizeof(float), "label"));
        s->ntarget = d->ntarget;
    }
    FORWARD_IF_ERROR(copy_part(&s->weight, d->weight, begin, n, sizeof(float), "weight"));
    FORWARD_IF_ERROR(copy_part(&s->label_lower, d->label_lower, begin, n, sizeof(float), "label_lower_bound"));
    FORWARD_IF_ERROR(copy_part(&s->label_upper, d->label_upper, begin, n, sizeof(float), "label_upper_bound"));
    FORWARD_IF_ERROR(copy_part(&s->row_line, d->row_line, begin, n, sizeof(uint32_t), "row lines"));
    if (d->base_margin && d->nrow) {
        /* nrow * K values, row-major: K per row */
        const uint64_t k = d->nbase_margin / d->nrow;
        FORWARD_IF_ERROR(copy_part(&s->base_margin, d->base_margin, begin * k, n * k, sizeof(float),
                                   "base_margin"));
        s->nbase_margin = n * k;
    }
    if (d->groups && ng) {
        FORWARD_IF_ERROR(copy_part(&s->groups, d->groups, g0, ng, sizeof(uint32_t), "groups"));
        s->ngroups = ng;
    }
    FORWARD_IF_ERROR(copy_part(&s->feature_types, d->feature_types, 0, d->ncol, 1, "feature types"));
    if (d->feature_weights)
        FORWARD_IF_ERROR(copy_part(&s->feature_weights, d->feature_weights, 0, d->ncol, sizeof(float),
                                   "feature_weights"));
    if (d->source) FORWARD_IF_ERROR(gbt__strdup(&s->source, d->source));
    if (d->category_names) FORWARD_IF_ERROR(gbt__strdup(&s->category_names, d->category_names));
    if (d->nfeature_names) {
        FORWARD_IF_ERROR(gbt__names_copy(&s->feature_names, (const char *const *)d->feature_names,
                                         d->nfeature_names));
        s->nfeature_names = d->nfeature_names;
    }
    return GBT_OK;
}

gbt_status gbt_dataset_slice_rows(const gbt_dataset *d, uint64_t begin, uint64_t end, gbt_dataset **out)
{
    gbt_dataset *s;
    gbt_status st;
    CHECK_NOT_NULL(out);
    *out = NULL;
    CHECK_NOT_NULL(d);
    FORWARD_IF_ERROR(gbt__dataset_need_values(d, "gbt_dataset_slice_rows"));
    RETURN_ERROR_IF(begin > end || end > d->nrow, GBT_E_INVALID_ARG,
                    "gbt_dataset_slice_rows: rows [%llu, %llu) are not a range of the dataset's %llu rows",
                    (unsigned long long)begin, (unsigned long long)end, (unsigned long long)d->nrow);
    FORWARD_IF_ERROR(gbt__dataset_alloc(&s));
    st = fill(d, begin, end, s);
    if (st != GBT_OK) {
        gbt_dataset_free(s);
        return st;
    }
    *out = s;
    return GBT_OK;
}
