/*
 * feature_names.h - names of features: on datasets (CSV headers,
 * gbt_dataset_set_feature_names), kept in models, compared between the two
 * before a model reads data.
 */
#ifndef GBT_FEATURE_NAMES_H
#define GBT_FEATURE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "gbt.h"

/* The longest name, in bytes without the NUL. */
#define GBT_FEATURE_NAME_MAX 255

/*
 * Checks n names: each non-empty, at most GBT_FEATURE_NAME_MAX bytes,
 * none of '[', ']', '<' (they would make dumps ambiguous, as in XGBoost),
 * no two the same.  Control characters are allowed, as XGBoost allows
 * them: every model format and dump escapes them (json_write.h).  Messages start with `what`.
 */
gbt_status gbt__names_check(const char *const *names, uint64_t n, const char *what);

/* A copy of n names (*out NULL when n is 0). */
gbt_status gbt__names_copy(char ***out, const char *const *names, uint64_t n);

void gbt__names_free(char **names, uint64_t n);

/*
 * Feature i's name: names[i] when i < n, else "f<i>" written to buf
 * (which holds at least 24 bytes).
 */
const char *gbt__name_of(char *const *names, uint64_t n, uint64_t i, char *buf, size_t len);

/*
 * Data named data_names (dn of them) against a model named model_names
 * (mn): GBT_OK when either has no names or every feature both name is
 * named the same; else GBT_E_INVALID_ARG naming the first that differs.
 * `what` names the data in the message.
 */
gbt_status gbt__names_match(char *const *model_names, uint64_t mn, char *const *data_names,
                            uint64_t dn, const char *what);

#endif
