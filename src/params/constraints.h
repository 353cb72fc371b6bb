/*
 * constraints.h - the training constraints of a booster, resolved against
 * the training data: monotone_constraints, interaction_constraints (both
 * parameters, as text) and the data's feature_weights.
 *
 * monotone_constraints: "" (none), XGBoost's "(1,0,-1)" or "[1,0,-1]" (or
 *   "1,0,-1"), one value in {-1, 0, 1} per feature; or by name,
 *   "{age:1,income:-1}" (quotes around names optional, ':' or '='),
 *   features not named being 0.
 * interaction_constraints: "" (none) or XGBoost's "[[0,1],[2,3,4]]",
 *   each item a feature index or a name ("age" or age).
 * Names are the data's feature names, or f0, f1, ... when it has none.
 */
#ifndef GBT_OBJECTIVE_CONSTRAINTS_H
#define GBT_OBJECTIVE_CONSTRAINTS_H

#include <stdint.h>

#include "gbt.h"

struct gbt_constraints {
    uint32_t nfeat;
    int8_t *monotone; /* nfeat values in {-1, 0, 1}, or NULL: none */
    uint32_t nsets;
    uint8_t *sets;    /* nsets rows of nfeat membership bytes, or NULL: no interaction constraints */
    double *weights;  /* nfeat feature weights for column sampling, or NULL: all equal */
};

/*
 * Checks the text of a parameter without data (its form and values); param
 * is "monotone_constraints" or "interaction_constraints".
 */
gbt_status gbt__constraint_text_check(const char *param, const char *text);

/*
 * Resolves the parameters' texts and the data's feature weights for nfeat
 * features named names (n of them: 0 or nfeat).  out holds nothing to free
 * on failure; messages name the parameter.
 */
gbt_status gbt__constraints_resolve(const char *monotone, const char *interaction, uint32_t nfeat,
                                    char *const *names, uint64_t nnames, const float *weights,
                                    uint64_t nweights, struct gbt_constraints *out);

void gbt__constraints_free(struct gbt_constraints *c);

/*
 * The features a node may split on whose path from the root used the
 * features marked in used (nfeat bytes; all 0 at the root): every feature
 * at the root; else the used ones and every member of each set that holds
 * all of them (XGBoost's rule).  Writes nfeat bytes to allowed.
 */
void gbt__interaction_allowed(const struct gbt_constraints *c, const uint8_t *used, uint8_t *allowed);

#endif
