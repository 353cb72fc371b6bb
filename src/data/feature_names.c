/*
 * feature_names.c - lists of feature names (checked, copied, freed, or
 * "f<i>" where a list has none) and the check that data and a model name
 * their features alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/feature_names.h"
#include "util/util.h"

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

gbt_status gbt__names_check(const char *const *names, uint64_t n, const char *what)
{
    const char **sorted;
    gbt_status s = GBT_OK;
    RETURN_ERROR_IF(n > 0 && names == NULL, GBT_E_INVALID_ARG, "%s: names is NULL", what);
    for (uint64_t i = 0; i < n; i++) {
        const char *p = names[i];
        size_t len;
        RETURN_ERROR_IF(p == NULL, GBT_E_INVALID_ARG, "%s: the name of feature %llu is NULL", what,
                        (unsigned long long)i);
        len = strlen(p);
        RETURN_ERROR_IF(len == 0, GBT_E_INVALID_ARG, "%s: feature %llu has an empty name", what,
                        (unsigned long long)i);
        RETURN_ERROR_IF(len > GBT_FEATURE_NAME_MAX, GBT_E_INVALID_ARG,
                        "%s: the name of feature %llu is longer than %d bytes", what,
                        (unsigned long long)i, GBT_FEATURE_NAME_MAX);
        for (; *p; p++)
            RETURN_ERROR_IF(*p == '[' || *p == ']' || *p == '<', GBT_E_INVALID_ARG,
                            "%s: feature name '%s' holds '%c' (names may not hold '[', ']' or '<')", what,
                            names[i], *p);
    }
    if (n < 2) return GBT_OK;
    FORWARD_IF_ERROR(gbt__alloc(&sorted, (size_t)n, sizeof *sorted, 0, "feature names"));
    memcpy(sorted, names, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_name);
    for (uint64_t i = 1; i < n && s == GBT_OK; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0)
            s = gbt__fail(GBT_E_INVALID_ARG, "%s: feature name '%s' appears twice", what, sorted[i]);
    free(sorted);
    return s;
}

void gbt__names_free(char **names, uint64_t n)
{
    if (names == NULL) return;
    for (uint64_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

gbt_status gbt__names_copy(char ***out, const char *const *names, uint64_t n)
{
    char **v = NULL;
    *out = NULL;
    if (n == 0) return GBT_OK;
    FORWARD_IF_ERROR(gbt__alloc(&v, (size_t)n, sizeof *v, 1, "feature names"));
    for (uint64_t i = 0; i < n; i++) {
        gbt_status s = gbt__strdup(&v[i], names[i]);
        if (s != GBT_OK) {
            gbt__names_free(v, n);
            return s;
        }
    }
    *out = v;
    return GBT_OK;
}

const char *gbt__name_of(char *const *names, uint64_t n, uint64_t i, char *buf, size_t len)
{
    if (i < n) return names[i];
    snprintf(buf, len, "f%llu", (unsigned long long)i);
    return buf;
}

gbt_status gbt__names_match(char *const *model_names, uint64_t mn, char *const *data_names,
                            uint64_t dn, const char *what)
{
    const uint64_t n = mn < dn ? mn : dn;
    if (mn == 0 || dn == 0) return GBT_OK;
    for (uint64_t i = 0; i < n; i++)
        RETURN_ERROR_IF(strcmp(model_names[i], data_names[i]) != 0, GBT_E_INVALID_ARG,
                        "feature names differ: feature %llu is '%s' in %s but '%s' in the model "
                        "(validate_features=0 turns this check off)",
                        (unsigned long long)i, data_names[i], what, model_names[i]);
    return GBT_OK;
}
