/*
 * constraints.c - parsing monotone_constraints and interaction_constraints
 * and resolving them, with the data's feature weights, for training
 * (constraints.h).  One parser serves both uses: without data (nfeat 0)
 * it checks the form and the values only.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/feature_names.h"
#include "params/constraints.h"
#include "util/error.h"
#include "util/util.h"

#define MONO "monotone_constraints"
#define INTER "interaction_constraints"

struct lexer {
    const char *s;       /* next character */
    const char *param;   /* for messages */
    uint32_t nfeat;      /* 0: no data, check the form only */
    char *const *names;  /* nnames (0 or nfeat) */
    uint64_t nnames;
};

static char peek(struct lexer *L)
{
    while (isspace((unsigned char)*L->s)) L->s++;
    return *L->s;
}

static int accept(struct lexer *L, char c)
{
    if (peek(L) != c) return 0;
    L->s++;
    return 1;
}

static gbt_status bad_form(const struct lexer *L, const char *expect)
{
    const char *at = *L->s ? L->s : "the end";
    return gbt__fail(GBT_E_PARAM, "parameter '%s': expected %s at '%.20s'", L->param, expect, at);
}

/* An item: a quoted name ("a b", with \" and \\) or a bare run of characters. */
static gbt_status item(struct lexer *L, char *buf, size_t len, int *quoted)
{
    size_t n = 0;
    char c = peek(L);
    *quoted = c == '"' || c == '\'';
    if (*quoted) {
        const char q = c;
        L->s++;
        while (*L->s && *L->s != q) {
            if (*L->s == '\\' && L->s[1]) L->s++;
            RETURN_ERROR_IF(n + 1 >= len, GBT_E_PARAM, "parameter '%s': a name longer than %zu bytes",
                            L->param, len - 1);
            buf[n++] = *L->s++;
        }
        if (*L->s != q) return bad_form(L, "a closing quote");
        L->s++;
    } else {
        while (*L->s && !isspace((unsigned char)*L->s) && !strchr(",:=[](){}", *L->s)) {
            RETURN_ERROR_IF(n + 1 >= len, GBT_E_PARAM, "parameter '%s': a name longer than %zu bytes",
                            L->param, len - 1);
            buf[n++] = *L->s++;
        }
        if (n == 0) return bad_form(L, "a feature or a value");
    }
    buf[n] = '\0';
    return GBT_OK;
}

/* Whether text is a whole integer; its value in *v. */
static int integer(const char *text, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(text, &end, 10);
    return *text && *end == '\0' && errno == 0;
}

/*
 * The feature an item names: an index (unquoted integer) or a name.  -1
 * without data.
 */
static gbt_status feature_of(const struct lexer *L, const char *text, int quoted, int64_t *f)
{
    long long v;
    char buf[32];
    *f = -1;
    if (!quoted && integer(text, &v)) {
        RETURN_ERROR_IF(v < 0, GBT_E_PARAM, "parameter '%s': feature index %lld is negative", L->param, v);
        RETURN_ERROR_IF(L->nfeat > 0 && v >= (long long)L->nfeat, GBT_E_PARAM,
                        "parameter '%s': feature index %lld is out of range (the data has %u features)",
                        L->param, v, L->nfeat);
        *f = v;
        return GBT_OK;
    }
    if (L->nfeat == 0) return GBT_OK;
    for (uint32_t i = 0; i < L->nfeat; i++)
        if (strcmp(gbt__name_of(L->names, L->nnames, i, buf, sizeof buf), text) == 0) {
            *f = i;
            return GBT_OK;
        }
    return gbt__fail(GBT_E_PARAM, "parameter '%s': unknown feature name '%s'%s", L->param, text,
                     L->nnames ? "" : " (the data has no feature names: use f0, f1, ... or indices)");
}

static gbt_status mono_value(const struct lexer *L, const char *text, const char *feature, int8_t *out)
{
    long long v;
    if (!integer(text, &v) || v < -1 || v > 1)
        return gbt__fail(GBT_E_PARAM, "parameter '%s': value '%s' of feature %s is not -1, 0 or 1",
                         L->param, text, feature);
    *out = (int8_t)v;
    return GBT_OK;
}

/*
 * Parses monotone_constraints; mono (nfeat bytes, zeroed) receives them when
 * L->nfeat > 0.  A list may be shorter than the features (the rest stay 0).
 */
static gbt_status parse_monotone(struct lexer *L, int8_t *mono, int *any)
{
    char text[GBT_FEATURE_NAME_MAX + 1], where[48];
    int quoted;
    *any = 0;
    if (peek(L) == '\0') return GBT_OK;
    if (accept(L, '{')) {
        if (accept(L, '}')) return GBT_OK;
        do {
            int64_t f;
            int8_t v = 0;
            FORWARD_IF_ERROR(item(L, text, sizeof text, &quoted));
            FORWARD_IF_ERROR(feature_of(L, text, quoted, &f));
            if (!accept(L, ':') && !accept(L, '=')) return bad_form(L, "':' after a feature name");
            {
                char name[GBT_FEATURE_NAME_MAX + 1];
                memcpy(name, text, strlen(text) + 1);
                FORWARD_IF_ERROR(item(L, text, sizeof text, &quoted));
                FORWARD_IF_ERROR(mono_value(L, text, name, &v));
            }
            /* a feature given a value is marked (value + 4) until the end, so a second one is found */
            if (f >= 0 && L->nfeat > 0) {
                RETURN_ERROR_IF(mono[f] >= 3, GBT_E_PARAM,
                                "parameter '%s': feature '%s' is given twice (once each: {name:1,...})", L->param,
                                gbt__name_of(L->names, L->nnames, (uint64_t)f, where, sizeof where));
                mono[f] = (int8_t)(v + 4);
            }
            *any |= v != 0;
        } while (accept(L, ','));
        if (L->nfeat > 0)
            for (uint64_t i = 0; i < L->nfeat; i++)
                if (mono[i] >= 3) mono[i] = (int8_t)(mono[i] - 4);
        if (!accept(L, '}')) return bad_form(L, "',' or '}'");
    } else {
        const char close = accept(L, '(') ? ')' : accept(L, '[') ? ']' : '\0';
        uint64_t n = 0;
        do {
            int8_t v = 0;
            FORWARD_IF_ERROR(item(L, text, sizeof text, &quoted));
            snprintf(where, sizeof where, "%llu", (unsigned long long)n);
            FORWARD_IF_ERROR(mono_value(L, text, where, &v));
            if (L->nfeat > 0 && n < L->nfeat) mono[n] = v;
            *any |= v != 0;
            n++;
        } while (accept(L, ','));
        if (close && !accept(L, close)) return bad_form(L, close == ')' ? "',' or ')'" : "',' or ']'");
        /* fewer values than features: the rest are 0, as in XGBoost */
        RETURN_ERROR_IF(L->nfeat > 0 && n > L->nfeat, GBT_E_PARAM,
                        "parameter '%s': %llu values for %u features (give at most one per feature, "
                        "or name the constrained ones: {name:1,...})",
                        L->param, (unsigned long long)n, L->nfeat);
    }
    if (peek(L) != '\0') return bad_form(L, "the end");
    return GBT_OK;
}

/*
 * Parses interaction_constraints; with data, appends each set's membership
 * row to *sets (nfeat bytes each) and counts them in *nsets.
 */
static gbt_status parse_interaction(struct lexer *L, uint8_t **sets, uint32_t *nsets)
{
    char text[GBT_FEATURE_NAME_MAX + 1];
    size_t cap = 0;
    int quoted;
    *nsets = 0;
    if (peek(L) == '\0') return GBT_OK;
    if (!accept(L, '[')) return bad_form(L, "'[' (a list of lists, like [[0,1],[2,3]])");
    if (!accept(L, ']')) {
        do {
            uint8_t *row = NULL;
            if (!accept(L, '[')) return bad_form(L, "'[' opening a set of features");
            if (L->nfeat > 0) {
                FORWARD_IF_ERROR(gbt__reserve(sets, &cap, ((size_t)*nsets + 1) * L->nfeat, 1,
                                              "interaction constraints"));
                row = *sets + (size_t)*nsets * L->nfeat;
                memset(row, 0, L->nfeat);
            }
            if (!accept(L, ']')) {
                do {
                    int64_t f;
                    FORWARD_IF_ERROR(item(L, text, sizeof text, &quoted));
                    FORWARD_IF_ERROR(feature_of(L, text, quoted, &f));
                    if (row && f >= 0) row[f] = 1;
                } while (accept(L, ','));
                if (!accept(L, ']')) return bad_form(L, "',' or ']' in a set of features");
            }
            (*nsets)++;
        } while (accept(L, ','));
        if (!accept(L, ']')) return bad_form(L, "',' or ']'");
    }
    if (peek(L) != '\0') return bad_form(L, "the end");
    return GBT_OK;
}

gbt_status gbt__constraint_text_check(const char *param, const char *text)
{
    struct lexer L = {text, param, 0, NULL, 0};
    if (strcmp(param, MONO) == 0) {
        int any;
        return parse_monotone(&L, NULL, &any);
    } else {
        uint8_t *sets = NULL;
        uint32_t n;
        return parse_interaction(&L, &sets, &n);
    }
}

void gbt__constraints_free(struct gbt_constraints *c)
{
    free(c->monotone);
    free(c->sets);
    free(c->weights);
    memset(c, 0, sizeof *c);
}

gbt_status gbt__constraints_resolve(const char *monotone, const char *interaction, uint32_t nfeat,
                                    char *const *names, uint64_t nnames, const float *weights,
                                    uint64_t nweights, struct gbt_constraints *out)
{
    struct lexer L = {monotone, MONO, nfeat, names, nnames};
    gbt_status s = GBT_OK;
    int any = 0;
    memset(out, 0, sizeof *out);
    out->nfeat = nfeat;
    if (nfeat == 0) return GBT_OK;
    if (monotone[0]) {
        s = gbt__alloc(&out->monotone, nfeat, 1, 1, "monotone constraints");
        if (s == GBT_OK) s = parse_monotone(&L, out->monotone, &any);
        if (s == GBT_OK && !any) {
            free(out->monotone);
            out->monotone = NULL;
        }
    }
    if (s == GBT_OK && interaction[0]) {
        L.s = interaction;
        L.param = INTER;
        s = parse_interaction(&L, &out->sets, &out->nsets);
        if (s == GBT_OK && out->nsets == 0) {
            free(out->sets);
            out->sets = NULL;
        }
    }
    if (s == GBT_OK && weights && nweights > 0) {
        /* the dataset checked them (gbt_dataset_set_field); a column count may have changed since */
        if (nweights != nfeat)
            s = gbt__fail(GBT_E_INVALID_ARG, "feature_weights: %llu weights for %u features",
                          (unsigned long long)nweights, nfeat);
        if (s == GBT_OK) s = gbt__alloc(&out->weights, nfeat, sizeof *out->weights, 0, "feature weights");
        for (uint32_t f = 0; s == GBT_OK && f < nfeat; f++) out->weights[f] = weights[f];
    }
    if (s != GBT_OK) gbt__constraints_free(out);
    return s;
}

void gbt__interaction_allowed(const struct gbt_constraints *c, const uint8_t *used, uint8_t *allowed)
{
    int root = 1;
    for (uint32_t f = 0; f < c->nfeat; f++) {
        allowed[f] = used[f];
        root &= !used[f];
    }
    if (root) {
        memset(allowed, 1, c->nfeat);
        return;
    }
    for (uint32_t k = 0; k < c->nsets; k++) {
        const uint8_t *set = c->sets + (size_t)k * c->nfeat;
        int holds = 1;
        for (uint32_t f = 0; f < c->nfeat && holds; f++) holds = !used[f] || set[f];
        if (!holds) continue;
        for (uint32_t f = 0; f < c->nfeat; f++) allowed[f] |= set[f];
    }
}
