/*
 * categories.c - a feature's category names and the lookup of a field's
 * code: binary search on the text, then, for a field that reads as a
 * number, a scan of the number categories by value ("5.0" is category 5).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/categories.h"
#include "util/util.h"

gbt_status gbt__cat_dict_add(struct gbt_cat_dict *d, const char *text, size_t len, int is_num)
{
    struct gbt_cat_entry *e, *grown;
    char *copy;
    RETURN_ERROR_IF(d->n >= 16777216u, GBT_E_FORMAT, "more than 2^24 categories for one feature");
    grown = realloc(d->entries, ((size_t)d->n + 1) * sizeof *grown);
    RETURN_ERROR_IF(grown == NULL, GBT_E_NO_MEMORY, "out of memory for category names");
    d->entries = grown;
    FORWARD_IF_ERROR(gbt__alloc(&copy, len + 1, 1, 0, "a category name"));
    memcpy(copy, text, len);
    copy[len] = '\0';
    e = &d->entries[d->n];
    e->text = copy;
    e->len = len;
    e->is_num = is_num;
    e->value = is_num ? gbt__strtod(copy, NULL) : 0.0;
    e->code = d->n++;
    d->nnum += is_num != 0;
    return GBT_OK;
}

static int cmp_text(const char *a, size_t al, const char *b, size_t bl)
{
    const int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

static int cmp_entry(const void *x, const void *y)
{
    const struct gbt_cat_entry *a = x, *b = y;
    return cmp_text(a->text, a->len, b->text, b->len);
}

gbt_status gbt__cat_dict_finish(struct gbt_cat_dict *d, uint64_t feature)
{
    if (d->n == 0) return GBT_OK;
    qsort(d->entries, d->n, sizeof *d->entries, cmp_entry);
    for (uint32_t i = 1; i < d->n; i++)
        RETURN_ERROR_IF(cmp_entry(&d->entries[i - 1], &d->entries[i]) == 0, GBT_E_FORMAT,
                        "feature %llu lists the category '%s' twice", (unsigned long long)feature,
                        d->entries[i].text);
    return GBT_OK;
}

void gbt__cat_dict_free(struct gbt_cat_dict *d)
{
    for (uint32_t i = 0; d->entries && i < d->n; i++) free(d->entries[i].text);
    free(d->entries);
    d->entries = NULL;
    d->n = d->nnum = 0;
}

/* Whether [s, s + len) is a whole number (not NaN), and its value. */
static int parse_number(const char *s, size_t len, double *v)
{
    char buf[64], *end;
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    *v = gbt__strtod(buf, &end);
    return *end == '\0' && !isnan(*v);
}

int gbt__cat_dict_stray_number(const struct gbt_cat_dict *d, const char *s, size_t len)
{
    double v;
    return d->nnum == 0 && parse_number(s, len, &v) && gbt__cat_dict_code(d, s, len) == d->n;
}

uint32_t gbt__cat_dict_code(const struct gbt_cat_dict *d, const char *s, size_t len)
{
    uint32_t lo = 0, hi = d->n;
    double v;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const int c = cmp_text(d->entries[mid].text, d->entries[mid].len, s, len);
        if (c == 0) return d->entries[mid].code;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!parse_number(s, len, &v)) return d->n;
    for (uint32_t i = 0; i < d->n; i++)
        if (d->entries[i].is_num && d->entries[i].value == v) return d->entries[i].code;
    return d->n;
}
