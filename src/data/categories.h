/*
 * categories.h - the names of a categorical feature's categories (a
 * model's feature_categories: pandas categories in code order) and the
 * lookup that turns a data file's text field into its category code, as
 * the Python package codes a DataFrame (docs/decisions.md).
 */
#ifndef GBT_CATEGORIES_H
#define GBT_CATEGORIES_H

#include <stddef.h>
#include <stdint.h>

#include "gbt.h"

/* One category: its text (a string category's, or a number's or a bool's as written), its code. */
struct gbt_cat_entry {
    char *text;
    size_t len;
    int is_num;   /* a number category: fields equal in value match too */
    double value;
    uint32_t code;
};

/* A feature's categories, sorted by text for the lookup. */
struct gbt_cat_dict {
    uint32_t n;                    /* categories; an unseen one gets the code n */
    uint32_t nnum;                 /* of which number categories */
    struct gbt_cat_entry *entries; /* n, sorted by text */
};

/*
 * Adds category number `code` (codes are given 0, 1, ... in order) with its
 * text; is_num when it was a JSON number.  gbt__cat_dict_finish sorts and
 * refuses repeated texts.
 */
/* The order of category names: by their bytes (unsigned), a prefix first; <0, 0, >0 as memcmp. */
int gbt__cat_cmp_text(const char *a, size_t al, const char *b, size_t bl);

gbt_status gbt__cat_dict_add(struct gbt_cat_dict *d, const char *text, size_t len, int is_num);
gbt_status gbt__cat_dict_finish(struct gbt_cat_dict *d, uint64_t feature);
void gbt__cat_dict_free(struct gbt_cat_dict *d);

/*
 * The code of the field [s, s + len): the category whose text it is, or
 * (a number) the number category of its value; d->n when it is none.
 * *stray_number is set when the field is a number that d cannot mean: d
 * has no number categories and none of its names is that text.  Such a
 * field is most likely a category code (what the tools read before they
 * read names), which the reader refuses rather than take as an unseen name.
 */
uint32_t gbt__cat_dict_code(const struct gbt_cat_dict *d, const char *s, size_t len, int *stray_number);

/*
 * The category names of nfeat features from text, a JSON object of
 * feature index (a decimal string) to the feature's categories in code
 * order (strings, numbers or bools), as the Python package records a
 * pandas frame's: *out nfeat dictionaries (n 0 for features not listed).
 * With types (ntypes entries, enum gbt_feature_type) a listed feature must
 * be categorical.  GBT_E_FORMAT naming what is wrong otherwise.
 */
gbt_status gbt__cat_dicts_parse(const char *text, uint64_t nfeat, const uint8_t *types, uint64_t ntypes,
                                struct gbt_cat_dict **out);
void gbt__cat_dicts_free(struct gbt_cat_dict *d, uint64_t n);

#endif
