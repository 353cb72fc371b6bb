/*
 * categories.c - a feature's category names and the lookup of a field's
 * code: binary search on the text, then, for a field that reads as a
 * number, a scan of the number categories by value ("5.0" is category 5).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/categories.h"
#include "data/dataset.h"
#include "util/error.h"
#include "util/json.h"
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

int gbt__cat_cmp_text(const char *a, size_t al, const char *b, size_t bl)
{
    const int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

static int cmp_entry(const void *x, const void *y)
{
    const struct gbt_cat_entry *a = x, *b = y;
    return gbt__cat_cmp_text(a->text, a->len, b->text, b->len);
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

uint32_t gbt__cat_dict_code(const struct gbt_cat_dict *d, const char *s, size_t len, int *stray_number)
{
    uint32_t lo = 0, hi = d->n;
    double v;
    *stray_number = 0;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const int c = gbt__cat_cmp_text(d->entries[mid].text, d->entries[mid].len, s, len);
        if (c == 0) return d->entries[mid].code;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!parse_number(s, len, &v)) return d->n;
    for (uint32_t i = 0; i < d->n; i++)
        if (d->entries[i].is_num && d->entries[i].value == v) return d->entries[i].code;
    *stray_number = d->nnum == 0;
    return d->n;
}

void gbt__cat_dicts_free(struct gbt_cat_dict *d, uint64_t n)
{
    for (uint64_t f = 0; d && f < n; f++) gbt__cat_dict_free(&d[f]);
    free(d);
}

/* Adds the category of JSON node el (a string, a number or a bool) to d. */
static gbt_status add_category(struct gbt_cat_dict *d, const struct gbt_jnode *el)
{
    if (el->type == GBT_J_NUMBER) return gbt__cat_dict_add(d, el->text, el->len, 1);
    if (el->type == GBT_J_BOOL) {
        /* as pandas writes a bool category (Python's str) */
        const int yes = el->len == 4;
        return gbt__cat_dict_add(d, yes ? "True" : "False", yes ? 4 : 5, 0);
    }
    if (el->type == GBT_J_STRING) {
        char *text;
        gbt_status s;
        FORWARD_IF_ERROR(gbt__alloc(&text, el->len + 1, 1, 0, "a category name"));
        gbt__json_string(el, text, el->len + 1);
        s = gbt__cat_dict_add(d, text, strlen(text), 0);
        free(text);
        return s;
    }
    return gbt__fail(GBT_E_FORMAT, "a category is not a string, a number or a bool");
}

static gbt_status read_dicts(const struct gbt_jdoc *doc, uint64_t nfeat, const uint8_t *types, uint64_t ntypes,
                             struct gbt_cat_dict *d)
{
    RETURN_ERROR_IF(doc->n[0].type != GBT_J_OBJECT, GBT_E_FORMAT, "not a JSON object");
    for (int32_t e = doc->n[0].child; e >= 0; e = doc->n[e].next) {
        const struct gbt_jnode *mem = &doc->n[e];
        char key[24], *end;
        unsigned long long f;
        struct gbt_jiter it = {0};
        struct gbt_jnode el;
        snprintf(key, sizeof key, "%.*s", (int)(mem->key_len < 23 ? mem->key_len : 23), mem->key);
        f = strtoull(key, &end, 10);
        RETURN_ERROR_IF(key[0] < '0' || key[0] > '9' || *end != '\0' || mem->key_len >= 23 || f >= nfeat,
                        GBT_E_FORMAT, "'%s' is not a feature index below %llu", key, (unsigned long long)nfeat);
        RETURN_ERROR_IF(types && !(f < ntypes && types[f] == GBT_FT_CATEGORICAL), GBT_E_FORMAT,
                        "categories for feature %llu, which is numeric", f);
        RETURN_ERROR_IF(mem->type != GBT_J_ARRAY, GBT_E_FORMAT, "feature %llu: not a list of categories", f);
        RETURN_ERROR_IF(d[f].n > 0, GBT_E_FORMAT, "feature %llu is listed twice", f);
        while (gbt__json_next(doc, e, &it, &el)) FORWARD_IF_ERROR(add_category(&d[f], &el));
        FORWARD_IF_ERROR(gbt__cat_dict_finish(&d[f], f));
    }
    return GBT_OK;
}

gbt_status gbt__cat_dicts_parse(const char *text, uint64_t nfeat, const uint8_t *types, uint64_t ntypes,
                                struct gbt_cat_dict **out)
{
    struct gbt_jdoc doc = {0};
    struct gbt_cat_dict *d;
    gbt_status s;
    *out = NULL;
    FORWARD_IF_ERROR(gbt__alloc(&d, nfeat ? nfeat : 1, sizeof *d, 1, "category names"));
    s = gbt__json_parse(text, strlen(text), "feature_categories", &doc);
    if (s == GBT_OK) s = read_dicts(&doc, nfeat, types, ntypes, d);
    gbt__json_free(&doc);
    if (s != GBT_OK) {
        gbt__cat_dicts_free(d, nfeat);
        return s;
    }
    *out = d;
    return GBT_OK;
}
