/*
 * fuzz_ref.h - a reference prediction for fuzz_model.c: the trees walked
 * straight from the model's JSON text (gbt's format or XGBoost's), node
 * ids as the file has them, without gbt's model structures, its loaders
 * or its prediction code (only its JSON tokenizer).  A model that gbt
 * loads must predict what this walk predicts, so a corruption that the
 * loaders accept and that changes a prediction is a finding.
 *
 * The rules are those of docs/model-format.md: a present value below a
 * numeric split's threshold goes left; at a categorical split a value
 * whose whole part is one of the set's categories goes right, any other
 * value (negative, 2^24 or more, not in the set) left; a missing value
 * (NaN) goes to the default side; the raw score of output k is its
 * starting score plus the leaves of the trees of output k.
 */
#ifndef GBT_FUZZ_REF_H
#define GBT_FUZZ_REF_H

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "util/json.h"

/* A number node (or, as XGBoost writes some, a string or a boolean) as a double; 0 when it is none. */
static int ref_num(const struct gbt_jnode *n, int as_float, double *v)
{
    char buf[64], *end;
    if (n->type == GBT_J_BOOL) {
        *v = n->len > 0 && n->text[0] == 't';
        return 1;
    }
    if ((n->type != GBT_J_NUMBER && n->type != GBT_J_STRING) || n->len == 0 || n->len >= sizeof buf) return 0;
    memcpy(buf, n->text, n->len);
    buf[n->len] = '\0';
    /* gbt's format reads its floats straight to float, XGBoost's through double */
    *v = as_float ? (double)strtof(buf, &end) : strtod(buf, &end);
    return *end == '\0';
}

/* The numbers of array member key of obj (free()), their count in *n; NULL when absent or not numbers. */
static double *ref_array(const struct gbt_jdoc *d, int32_t obj, const char *key, int as_float, int32_t *n)
{
    const int32_t a = obj >= 0 && d->n[obj].type == GBT_J_OBJECT ? gbt__json_member(d, obj, key) : -1;
    struct gbt_jiter it;
    struct gbt_jnode el;
    double *v;
    int32_t i = 0;
    *n = 0;
    if (a < 0 || d->n[a].type != GBT_J_ARRAY) return NULL;
    v = malloc(sizeof *v * ((size_t)d->n[a].count + 1));
    FUZZ_ASSERT(v);
    memset(&it, 0, sizeof it);
    while (gbt__json_next(d, a, &it, &el)) {
        if (i >= d->n[a].count || !ref_num(&el, as_float, &v[i])) {
            free(v);
            return NULL;
        }
        i++;
    }
    *n = i;
    return v;
}

/*
 * The "feature_types" array of obj: 1 per "c", 0 otherwise, *ntypes of
 * them: one per feature in XGBoost's JSON (`exact`), at most one per
 * feature in gbt's (older files listed fewer: the rest numeric); a list
 * of another length breaks the format (gbt must not have loaded it).
 * NULL when absent or empty: no types declared, the splits say which
 * features are categorical.
 */
static unsigned char *ref_types(const struct gbt_jdoc *d, int32_t obj, double nfeat, int exact, int32_t *ntypes)
{
    const int32_t a = gbt__json_member(d, obj, "feature_types");
    unsigned char *t;
    int32_t i = 0;
    *ntypes = 0;
    if (a < 0 || d->n[a].type != GBT_J_ARRAY || d->n[a].count == 0) return NULL;
    FUZZ_ASSERT(exact ? (double)d->n[a].count == nfeat : (double)d->n[a].count <= nfeat);
    t = calloc((size_t)d->n[a].count, 1);
    FUZZ_ASSERT(t);
    for (int32_t c = d->n[a].child; c >= 0; c = d->n[c].next, i++)
        t[i] = d->n[c].type == GBT_J_STRING && d->n[c].len == 1 && d->n[c].text[0] == 'c';
    *ntypes = i;
    return t;
}

/* One tree's arrays, named as its format names them. */
struct ref_tree {
    double *left, *right, *feature, *cond, *dleft, *leafval, *stype;
    double *cnodes, *cseg, *csize, *cats;
    int32_t n, ncn, nseg, nsize, ncats;
};

static void ref_tree_free(struct ref_tree *t)
{
    free(t->left), free(t->right), free(t->feature), free(t->cond), free(t->dleft), free(t->leafval);
    free(t->stype), free(t->cnodes), free(t->cseg), free(t->csize), free(t->cats);
    memset(t, 0, sizeof *t);
}

/* Whether categorical node i's set holds x's category (gbt: segments made up from the sizes). */
static int ref_in_set(const struct ref_tree *t, int32_t i, float x)
{
    int32_t k = 0;
    double code;
    if (!(x >= 0.0f && x < 16777216.0f)) return 0;
    code = floor((double)x);
    while (k < t->ncn && t->cnodes[k] != (double)i) k++;
    FUZZ_ASSERT(k < t->ncn); /* a categorical split that gbt loaded without a set */
    FUZZ_ASSERT(t->cseg[k] >= 0 && t->csize[k] >= 0 && t->cseg[k] + t->csize[k] <= t->ncats);
    for (int32_t c = (int32_t)t->cseg[k]; c < (int32_t)(t->cseg[k] + t->csize[k]); c++)
        if (t->cats[c] == code) return 1;
    return 0;
}

/*
 * The format's rules on the kinds of nodes, which a literal walk cannot
 * see broken: a set at a split is never empty, and in gbt's format a set
 * is only at a split (XGBoost's pruner leaves sets at leaves, which
 * XGBoost ignores, so its JSON may have them); where types are declared,
 * a categorical split exactly on the features typed "c", and every split
 * that a row can reach on a feature below num_feature.  gbt must have
 * refused a model that breaks them.
 */
static void ref_kinds(const struct ref_tree *t, const unsigned char *types, int32_t ntypes, double nfeat, int xgb)
{
    for (int32_t k = 0; k < t->ncn; k++) {
        const double i = t->cnodes[k];
        FUZZ_ASSERT(i >= 0 && i < t->n);
        if (xgb && t->left[(int32_t)i] == -1) continue;
        FUZZ_ASSERT(t->left[(int32_t)i] != -1 && t->stype[(int32_t)i] == 1);
        FUZZ_ASSERT(t->csize[k] >= 1);
    }
    /* the splits a row can reach: XGBoost's arrays may hold deleted nodes, which gbt skips */
    char *seen;
    int32_t *stack, top = 0;
    if (t->n < 1) return;
    seen = calloc((size_t)t->n, 1);
    stack = malloc(sizeof *stack * (size_t)t->n);
    FUZZ_ASSERT(seen && stack);
    seen[0] = 1, stack[top++] = 0;
    while (top > 0) {
        const int32_t i = stack[--top];
        const double f = t->feature[i], c[2] = {t->left[i], t->right[i]};
        if (c[0] == -1) continue;
        FUZZ_ASSERT(f >= 0 && f < nfeat);
        if (types != NULL) FUZZ_ASSERT((t->stype[i] == 1) == (f < ntypes && types[(int32_t)f]));
        for (int k = 0; k < 2; k++)
            if (c[k] >= 0 && c[k] < t->n && !seen[(int32_t)c[k]]) seen[(int32_t)c[k]] = 1, stack[top++] = (int32_t)c[k];
    }
    free(seen), free(stack);
}

/*
 * The leaf that row x (nf values) reaches; the walk itself checks that the
 * tree gbt loaded is one: every index in range, a leaf within n steps.
 */
static double ref_walk(const struct ref_tree *t, const float *x, uint64_t nf)
{
    int32_t i = 0;
    for (int32_t steps = 0;; steps++) {
        double l, f;
        float v;
        FUZZ_ASSERT(steps <= t->n && i >= 0 && i < t->n);
        l = t->left[i];
        if (l == -1) return t->leafval[i];
        f = t->feature[i];
        FUZZ_ASSERT(f >= 0 && f < (double)nf && l >= 0 && l < t->n && t->right[i] >= 0 && t->right[i] < t->n);
        v = x[(uint64_t)f];
        if (isnan(v))
            i = (int32_t)(t->dleft[i] != 0 ? l : t->right[i]);
        else if (t->stype[i] == 1)
            i = (int32_t)(ref_in_set(t, i, v) ? t->right[i] : l);
        else
            i = (int32_t)(v < (float)t->cond[i] ? l : t->right[i]);
    }
}

/* Tree obj of gbt's format into t: 1, or 0 when it is not one the reference reads. */
static int ref_gbt_tree(const struct gbt_jdoc *d, int32_t obj, struct ref_tree *t)
{
    int32_t n[6];
    memset(t, 0, sizeof *t);
    t->left = ref_array(d, obj, "left", 0, &n[0]);
    t->right = ref_array(d, obj, "right", 0, &n[1]);
    t->feature = ref_array(d, obj, "feature", 0, &n[2]);
    t->cond = ref_array(d, obj, "threshold", 1, &n[3]);
    t->dleft = ref_array(d, obj, "default_left", 0, &n[4]);
    t->leafval = ref_array(d, obj, "value", 1, &n[5]);
    t->n = n[0];
    for (int k = 1; k < 6; k++)
        if (n[k] != t->n) return 0;
    if (!t->left || !t->right || !t->feature || !t->cond || !t->dleft || !t->leafval || t->n < 1) return 0;
    t->stype = calloc((size_t)t->n, sizeof *t->stype);
    FUZZ_ASSERT(t->stype);
    if (gbt__json_member(d, obj, "categories_nodes") >= 0) {
        double at = 0;
        t->cnodes = ref_array(d, obj, "categories_nodes", 0, &t->ncn);
        t->csize = ref_array(d, obj, "categories_sizes", 0, &t->nsize);
        t->cats = ref_array(d, obj, "categories", 0, &t->ncats);
        if (!t->cnodes || !t->csize || !t->cats || t->nsize != t->ncn) return 0;
        t->cseg = calloc((size_t)t->ncn + 1, sizeof *t->cseg);
        FUZZ_ASSERT(t->cseg);
        for (int32_t k = 0; k < t->ncn; k++) {
            if (!(t->cnodes[k] >= 0 && t->cnodes[k] < t->n)) return 0;
            t->stype[(int32_t)t->cnodes[k]] = 1;
            t->cseg[k] = at;
            at += t->csize[k];
        }
    }
    return 1;
}

/* Tree obj of XGBoost's format into t: 1, or 0 when it is not one the reference reads. */
static int ref_xgb_tree(const struct gbt_jdoc *d, int32_t obj, struct ref_tree *t)
{
    int32_t n[6];
    memset(t, 0, sizeof *t);
    t->left = ref_array(d, obj, "left_children", 0, &n[0]);
    t->right = ref_array(d, obj, "right_children", 0, &n[1]);
    t->feature = ref_array(d, obj, "split_indices", 0, &n[2]);
    t->cond = ref_array(d, obj, "split_conditions", 0, &n[3]);
    t->dleft = ref_array(d, obj, "default_left", 0, &n[4]);
    t->stype = ref_array(d, obj, "split_type", 0, &n[5]);
    t->n = n[0];
    for (int k = 1; k < 6; k++)
        if (n[k] != t->n) return 0;
    if (!t->left || !t->right || !t->feature || !t->cond || !t->dleft || !t->stype || t->n < 1) return 0;
    /* a leaf's value is its split condition, as a float */
    t->leafval = malloc(sizeof *t->leafval * (size_t)t->n);
    FUZZ_ASSERT(t->leafval);
    for (int32_t i = 0; i < t->n; i++) t->leafval[i] = (double)(float)t->cond[i];
    t->cnodes = ref_array(d, obj, "categories_nodes", 0, &t->ncn);
    t->cseg = ref_array(d, obj, "categories_segments", 0, &t->nseg);
    t->csize = ref_array(d, obj, "categories_sizes", 0, &t->nsize);
    t->cats = ref_array(d, obj, "categories", 0, &t->ncats);
    if (!t->cnodes || !t->cseg || !t->csize || !t->cats || t->nseg != t->ncn || t->nsize != t->ncn) return 0;
    return 1;
}

/*
 * Checks margins (nrow x K, gbt's raw scores of rows x, nrow x nf) against
 * the walk of the model text.  The gbt format states its raw starting
 * scores: each score must be theirs plus the leaves.  XGBoost's keeps a
 * transformed base_score, so there each score less the leaves must be the
 * same for every row.  Returns 1 when it checked, 0 when the text is not a
 * model the reference reads (then gbt's own checks are all there is).
 */
static int ref_check(const char *text, size_t len, const float *x, unsigned nrow, uint64_t nf, const float *margin,
                     uint64_t msize)
{
    struct gbt_jdoc doc;
    int32_t trees, info = -1, e, K = 0, nbase = 0;
    double *base = NULL, *sum, *scale, *infov = NULL, nfeat = 0;
    unsigned char *types = NULL;
    int xgb, checked = 0;
    int32_t ntypes = 0;
    if (gbt__json_parse(text, len, "reference", &doc) != GBT_OK) return 0;
    xgb = doc.n[0].type == GBT_J_OBJECT && gbt__json_member(&doc, 0, "learner") >= 0;
    if (xgb) {
        int32_t l = gbt__json_member(&doc, 0, "learner"), g, m, p;
        double v = 0;
        if ((g = gbt__json_member(&doc, l, "gradient_booster")) < 0 || (m = gbt__json_member(&doc, g, "model")) < 0 ||
            (trees = gbt__json_member(&doc, m, "trees")) < 0 || (info = gbt__json_member(&doc, m, "tree_info")) < 0 ||
            (p = gbt__json_member(&doc, l, "learner_model_param")) < 0)
            goto done;
        /* outputs: the classes of a multi-class model, else the targets */
        e = gbt__json_member(&doc, p, "num_class");
        if (e >= 0 && ref_num(&doc.n[e], 0, &v) && v >= 2) K = (int32_t)v;
        e = gbt__json_member(&doc, p, "num_target");
        if (K == 0) K = e >= 0 && ref_num(&doc.n[e], 0, &v) && v >= 1 && v < 1e6 ? (int32_t)v : 1;
        infov = ref_array(&doc, m, "tree_info", 0, &nbase);
        if (infov == NULL || nbase != doc.n[trees].count) goto done;
        e = gbt__json_member(&doc, p, "num_feature");
        if (e < 0 || !ref_num(&doc.n[e], 0, &nfeat)) goto done;
        types = ref_types(&doc, l, nfeat, 1, &ntypes);
    } else {
        base = ref_array(&doc, 0, "base_margin", 0, &nbase);
        trees = gbt__json_member(&doc, 0, "trees");
        if (base == NULL || trees < 0 || nbase < 1) goto done;
        K = nbase;
        e = gbt__json_member(&doc, 0, "num_feature");
        if (e < 0 || !ref_num(&doc.n[e], 0, &nfeat)) goto done;
        types = ref_types(&doc, 0, nfeat, 0, &ntypes);
    }
    if (doc.n[trees].type != GBT_J_ARRAY) goto done;
    /* gbt gives one raw score per output and row */
    FUZZ_ASSERT(msize == (uint64_t)nrow * (uint64_t)K);
    sum = calloc((size_t)nrow * K, sizeof *sum);
    scale = calloc((size_t)nrow * K, sizeof *scale);
    FUZZ_ASSERT(sum && scale);
    {
        int32_t t = 0, ok = 1;
        for (e = doc.n[trees].child; e >= 0 && ok; e = doc.n[e].next, t++) {
            struct ref_tree rt;
            const int32_t k = xgb ? (int32_t)infov[t] : t % K;
            ok = (xgb ? ref_xgb_tree(&doc, e, &rt) : ref_gbt_tree(&doc, e, &rt)) && k >= 0 && k < K;
            if (ok) ref_kinds(&rt, types, ntypes, nfeat, xgb);
            for (unsigned r = 0; ok && r < nrow; r++) {
                const double leaf = ref_walk(&rt, x + (size_t)r * nf, nf);
                sum[(size_t)r * K + k] += leaf;
                scale[(size_t)r * K + k] += fabs(leaf);
            }
            ref_tree_free(&rt);
        }
        if (ok) {
            for (unsigned r = 0; r < nrow; r++)
                for (int32_t k = 0; k < K; k++) {
                    const size_t i = (size_t)r * K + k;
                    if (!xgb) {
                        const double want = base[k] + sum[i], tol = 1e-6 * (fabs(base[k]) + scale[i]) + 1e-30;
                        FUZZ_ASSERT(fabs((double)margin[i] - want) <= tol || (isinf(margin[i]) && isinf(want)));
                    } else {
                        /* the starting score: the same for every row */
                        const double b0 = (double)margin[k] - sum[k], br = (double)margin[i] - sum[i];
                        const double tol = 1e-6 * (fabs((double)margin[k]) + scale[k] + fabs((double)margin[i]) + scale[i]) +
                                           1e-30;
                        FUZZ_ASSERT(!isfinite(br) || !isfinite(b0) || fabs(br - b0) <= tol);
                    }
                }
            checked = 1;
        }
    }
    free(sum);
    free(scale);
done:
#ifdef FUZZ_REF_DEBUG
    fprintf(stderr, "fuzz_ref: %s model, %s\n", xgb ? "XGBoost" : "gbt", checked ? "checked" : "not read");
#endif
    free(base);
    free(infov);
    free(types);
    gbt__json_free(&doc);
    return checked;
}

#endif
