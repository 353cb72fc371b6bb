/*
 * shap_math.h - leaf indices and exact TreeSHAP values of one row, written
 * once for the CPU (src/model/shap.c) and the CUDA backend (cuda/shap.cu), so
 * both give the same bits.
 *
 * TreeSHAP (Lundberg, Erion and Lee, "Consistent individualized feature
 * attribution for tree ensembles", 2018, Algorithm 2) computes the exact
 * Shapley values of the game v(S) = E[f(x) | x_S], where the expectation
 * at a node that splits on a feature outside S is the cover-weighted
 * average of its children (cover: the hessian sum of the training rows
 * that reached the node).  It walks the tree once, keeping for the path
 * from the root the features met so far with, for each, the fraction of
 * cover that flows down the path when the feature is unknown (`zero`) and
 * whether x itself follows the path (`one`), and the weights of subsets
 * of those features by size (`weight`).  A feature met twice on a path is
 * first removed ("unwound") and added again with the product of both
 * splits' fractions.  Each leaf then adds to every feature of its path
 * its value times the summed weights of the subsets without the feature
 * times (one - zero).
 *
 * The walk is iterative (a stack of pending children), so device code
 * needs no recursion: the caller provides gbt_shap_scratch_elems(depth)
 * path elements and depth + 2 stack frames for a tree of that depth.
 *
 * Conditioned walks give interaction values (Fujimoto, Kojadinovic and
 * Marichal 2006; Lundberg et al. 2018): with `condition` +1 (or -1) the
 * feature `cond_feature` is always known (or never known) and takes no
 * part in the game; half the difference of the two conditioned values of
 * feature j is the interaction of cond_feature and j.
 *
 * All arithmetic is double, without contraction (hostdev.h), in one fixed
 * order: the same operations on every compiler.
 */
#ifndef GBT_COMMON_SHAP_MATH_H
#define GBT_COMMON_SHAP_MATH_H

#include <stdint.h>
#include <string.h>

#include "common/catset.h"
#include "common/hostdev.h"

/* What a call computes per row (the backends' predict_explain). */
enum gbt_explain_kind {
    GBT_EXPLAIN_LEAF = 1,
    GBT_EXPLAIN_CONTRIBS = 2,
    GBT_EXPLAIN_INTERACTIONS = 3,
    GBT_EXPLAIN_APPROX = 4 /* Saabas' approximation of the SHAP values (gbt_shap_row_approx) */
};

/* A node of a tree as SHAP reads it: the model's node ids, children after parents. */
struct gbt_shap_node {
    int32_t left, right; /* -1 at leaves */
    int32_t feature;     /* -1 at leaves */
    /*
     * Bit 0: missing goes left.  Bit 1 (GBT_SHAP_CAT): a categorical split
     * (model/tree.h), whose threshold holds, as bits, where its set starts
     * in the forest's cat_bits, packed as common/catset.h says.
     */
    int32_t default_left;
    float threshold; /* values below it go left; missing (NaN) to the default side */
    float value;     /* the leaf value */
    double cover;    /* hessian sum; the weights of the unknown-feature average */
};

struct gbt_shap_path {
    double zero, one, weight;
    int32_t feature;
    int32_t pad_;
};

struct gbt_shap_frame {
    double zero, one, cond;
    int32_t node, level, depth, feature;
};

/* Path elements a walk of a tree of `depth` levels needs (one slice per level). */
GBT_SHARED uint64_t gbt_shap_scratch_elems(int depth)
{
    return ((uint64_t)depth + 2) * ((uint64_t)depth + 3) / 2;
}

#define GBT_SHAP_CAT 2

/*
 * Whether a row whose value of n's feature is x (NaN: missing) goes to the
 * left child; bits: the forest's category sets.  At a categorical node a
 * category of the set goes right; any other value, a negative or one of
 * 2^24 and above too, left (model/tree.h).
 */
GBT_SHARED int gbt_shap_goes_left(const struct gbt_shap_node *n, float x, const uint32_t *bits)
{
    if (x != x) return (n->default_left & 1) != 0;
    if (n->default_left & GBT_SHAP_CAT) {
        uint32_t at;
        if (!(x >= 0.0f && x < 16777216.0f)) return 1;
        memcpy(&at, &n->threshold, sizeof at);
        return !gbt_catset_has(bits + at, (uint32_t)x);
    }
    return x < n->threshold;
}

/* The id of the leaf that the row x (nfeat values, NaN: missing) reaches. */
GBT_SHARED int32_t gbt_shap_leaf(const struct gbt_shap_node *nodes, const float *x, const uint32_t *bits)
{
    int32_t i = 0;
    while (nodes[i].left >= 0)
        i = gbt_shap_goes_left(&nodes[i], x[nodes[i].feature], bits) ? nodes[i].left : nodes[i].right;
    return i;
}

/*
 * The fractions of n's cover that reach its left and right child.  A node
 * without cover (possible only with min_child_weight = 0) splits evenly.
 */
GBT_SHARED void gbt_shap_fractions(const struct gbt_shap_node *nodes, int32_t i, double *zl, double *zr)
{
    const double w = nodes[i].cover;
    if (w > 0.0) {
        *zl = nodes[nodes[i].left].cover / w;
        *zr = nodes[nodes[i].right].cover / w;
    } else {
        *zl = 0.5;
        *zr = 0.5;
    }
}

/* Adds a feature with fractions zero and one at the end of a path of `depth` + 1 elements. */
GBT_SHARED void gbt_shap_extend(struct gbt_shap_path *p, int depth, double zero, double one, int32_t feature)
{
    p[depth].feature = feature;
    p[depth].zero = zero;
    p[depth].one = one;
    p[depth].weight = depth == 0 ? 1.0 : 0.0;
    for (int i = depth - 1; i >= 0; i--) {
        p[i + 1].weight = p[i + 1].weight + one * p[i].weight * (double)(i + 1) / (double)(depth + 1);
        p[i].weight = zero * p[i].weight * (double)(depth - i) / (double)(depth + 1);
    }
}

/* Removes element k of a path of `depth` + 1 elements (the inverse of gbt_shap_extend). */
GBT_SHARED void gbt_shap_unwind(struct gbt_shap_path *p, int depth, int k)
{
    const double one = p[k].one, zero = p[k].zero;
    double next = p[depth].weight;
    for (int i = depth - 1; i >= 0; i--) {
        if (one != 0.0) {
            const double t = p[i].weight;
            p[i].weight = next * (double)(depth + 1) / ((double)(i + 1) * one);
            next = t - p[i].weight * zero * (double)(depth - i) / (double)(depth + 1);
        } else {
            p[i].weight = p[i].weight * (double)(depth + 1) / (zero * (double)(depth - i));
        }
    }
    for (int i = k; i < depth; i++) {
        p[i].feature = p[i + 1].feature;
        p[i].zero = p[i + 1].zero;
        p[i].one = p[i + 1].one;
    }
}

/* The total weight of the path's subsets once element k is removed, without removing it. */
GBT_SHARED double gbt_shap_unwound_sum(const struct gbt_shap_path *p, int depth, int k)
{
    const double one = p[k].one, zero = p[k].zero;
    double next = p[depth].weight, total = 0.0;
    for (int i = depth - 1; i >= 0; i--) {
        if (one != 0.0) {
            const double t = next * (double)(depth + 1) / ((double)(i + 1) * one);
            total = total + t;
            next = p[i].weight - t * zero * (double)(depth - i) / (double)(depth + 1);
        } else if (zero != 0.0) {
            total = total + p[i].weight / zero / ((double)(depth - i) / (double)(depth + 1));
        }
    }
    return total;
}

/*
 * Adds the TreeSHAP values of one tree for the row x (NaN: missing) to
 * phi[feature].  condition 0: plain values; +1 / -1:
 * cond_feature always / never known (see above).  For a tree of `depth`
 * levels, path holds gbt_shap_scratch_elems(depth) elements and stack
 * depth + 2 frames.
 * The expected value (the bias term) is not added: see gbt_shap_expected.
 */
GBT_SHARED void gbt_shap_tree(const struct gbt_shap_node *nodes, const uint32_t *bits, const float *x,
                              int condition, int32_t cond_feature, double *phi,
                              struct gbt_shap_path *path, struct gbt_shap_frame *stack)
{
    int top = 1; /* frames pending: stack[0 .. top) */
    stack[0].node = 0;
    stack[0].level = 0;
    stack[0].depth = 0;
    stack[0].zero = 1.0;
    stack[0].one = 1.0;
    stack[0].feature = -1;
    stack[0].cond = 1.0;
    while (top > 0) {
        const struct gbt_shap_frame fr = stack[--top];
        const struct gbt_shap_node *n = nodes + fr.node;
        /* a node at tree level L keeps its path in slice L + 1, its parent's in slice L */
        const struct gbt_shap_path *parent = path + (uint64_t)fr.level * ((uint64_t)fr.level + 1) / 2;
        struct gbt_shap_path *p = path + ((uint64_t)fr.level + 1) * ((uint64_t)fr.level + 2) / 2;
        const int cond_split = condition != 0 && n->feature == cond_feature && n->left >= 0;
        int d = fr.depth;
        if (fr.cond == 0.0) continue;
        for (int i = 0; i < d; i++) p[i] = parent[i];
        if (condition == 0 || cond_feature != fr.feature)
            gbt_shap_extend(p, d, fr.zero, fr.one, fr.feature);
        else
            d--; /* the conditioned feature takes no part in the game */
        if (n->left < 0) {
            for (int i = 1; i <= d; i++) {
                const double w = gbt_shap_unwound_sum(p, d, i);
                phi[p[i].feature] =
                    phi[p[i].feature] + w * (p[i].one - p[i].zero) * (double)n->value * fr.cond;
            }
            continue;
        }
        {
            const int left = gbt_shap_goes_left(n, x[n->feature], bits);
            double zl, zr, hot_zero, cold_zero, in_zero = 1.0, in_one = 1.0;
            struct gbt_shap_frame c;
            int k;
            gbt_shap_fractions(nodes, fr.node, &zl, &zr);
            hot_zero = left ? zl : zr;
            cold_zero = left ? zr : zl;
            /* a feature already on the path is taken off and comes back with both splits */
            for (k = 1; k <= d; k++)
                if (p[k].feature == n->feature) break;
            if (k <= d) {
                in_zero = p[k].zero;
                in_one = p[k].one;
                gbt_shap_unwind(p, d, k);
                d--;
            }
            c.level = fr.level + 1;
            c.depth = d + 1;
            c.feature = n->feature;
            /* cold first, so that the hot child is walked first; a child no subset reaches adds nothing */
            c.node = left ? n->right : n->left;
            c.zero = cold_zero * in_zero;
            c.one = 0.0;
            c.cond = condition > 0 && cond_split ? 0.0 : condition < 0 && cond_split ? fr.cond * cold_zero : fr.cond;
            if (cond_split || c.zero != 0.0) stack[top++] = c;
            c.node = left ? n->left : n->right;
            c.zero = hot_zero * in_zero;
            c.one = in_one;
            c.cond = condition < 0 && cond_split ? fr.cond * hot_zero : fr.cond;
            if (cond_split || c.zero != 0.0 || c.one != 0.0) stack[top++] = c;
        }
    }
}

/*
 * The expected value of a tree under its covers: the bias term of its
 * SHAP values.  Children come after their parents, so a backward pass
 * over the n nodes fills e (n doubles): each node's expected value, the
 * cover-weighted mean of its leaves; e[0] is the result.
 */
GBT_SHARED double gbt_shap_expected(const struct gbt_shap_node *nodes, int32_t n, double *e)
{
    for (int32_t i = n - 1; i >= 0; i--) {
        if (nodes[i].left < 0) {
            e[i] = (double)nodes[i].value;
        } else {
            double zl, zr;
            gbt_shap_fractions(nodes, i, &zl, &zr);
            e[i] = zl * e[nodes[i].left] + zr * e[nodes[i].right];
        }
    }
    return e[0];
}


/*
 * The trees [t0, t1) of a model as SHAP reads them (src/model/shap.c builds it
 * on the host; cuda/shap.cu copies it to the device).  Tree u (0-based
 * from t0) adds to raw score class[u].
 */
struct gbt_shap_forest {
    const struct gbt_shap_node *nodes; /* tree u: nodes[offset[u] .. offset[u + 1]) */
    const uint64_t *offset;            /* ntrees + 1 */
    const int32_t *cls;                /* the class (raw score) of each tree */
    const double *expected;            /* gbt_shap_expected of each tree */
    const double *mean;                /* each node's expected value (gbt_shap_expected's e), nodes_len */
    const uint32_t *feats;             /* tree u's distinct split features: */
    const uint64_t *feat_off;          /* feats[feat_off[u] .. feat_off[u + 1]) */
    uint64_t nodes_len, feats_len;
    uint32_t ntrees;
    int K;            /* raw scores per row */
    uint32_t nfeat;   /* the model's features; a row has nfeat values */
    int max_depth;    /* of the deepest tree: the scratch of gbt_shap_tree */
    const uint32_t *cat_bits; /* the categorical nodes' sets (NULL: none) */
    uint64_t cat_len;         /* words of cat_bits (0: none) */
};

/* Leaf ids of every tree for the row x, as floats: out[u] for tree u. */
GBT_SHARED void gbt_shap_row_leaves(const struct gbt_shap_forest *f, const float *x, float *out)
{
    for (uint32_t u = 0; u < f->ntrees; u++) out[u] = (float)gbt_shap_leaf(f->nodes + f->offset[u], x, f->cat_bits);
}

/*
 * The SHAP values of the row x: phi[k * (nfeat + 1) + j] for class k and
 * feature j, the bias term at j = nfeat: the row's starting score base[k]
 * plus each tree's expected value.  Trees add in model order.
 */
GBT_SHARED void gbt_shap_row_contribs(const struct gbt_shap_forest *f, const float *x, const double *base,
                                      double *phi, struct gbt_shap_path *path, struct gbt_shap_frame *stack)
{
    const uint64_t w = (uint64_t)f->nfeat + 1;
    for (uint64_t i = 0; i < (uint64_t)f->K * w; i++) phi[i] = 0.0;
    for (int k = 0; k < f->K; k++) phi[(uint64_t)k * w + f->nfeat] = base[k];
    for (uint32_t u = 0; u < f->ntrees; u++) {
        double *ph = phi + (uint64_t)f->cls[u] * w;
        gbt_shap_tree(f->nodes + f->offset[u], f->cat_bits, x, 0, -1, ph, path, stack);
        ph[f->nfeat] = ph[f->nfeat] + f->expected[u];
    }
}

/*
 * The SHAP interaction values of the row x: inter[(k * (nfeat + 1) + i) *
 * (nfeat + 1) + j] for class k and features i, j (nfeat: the bias term).
 * Off the diagonal, half the difference of j's values with i always and
 * never known, summed over the trees that split on i; on the diagonal,
 * i's SHAP value less the rest of its row, so that every row sums to the
 * SHAP values (phi, which this computes too).  on and off: nfeat + 1
 * doubles of scratch each.
 */
GBT_SHARED void gbt_shap_row_interactions(const struct gbt_shap_forest *f, const float *x, const double *base,
                                          double *inter, double *phi, double *on, double *off,
                                          struct gbt_shap_path *path, struct gbt_shap_frame *stack)
{
    const uint64_t w = (uint64_t)f->nfeat + 1;
    gbt_shap_row_contribs(f, x, base, phi, path, stack);
    for (uint64_t i = 0; i < (uint64_t)f->K * w * w; i++) inter[i] = 0.0;
    for (uint64_t i = 0; i < w; i++) on[i] = off[i] = 0.0;
    for (uint32_t u = 0; u < f->ntrees; u++) {
        const struct gbt_shap_node *nodes = f->nodes + f->offset[u];
        double *block = inter + (uint64_t)f->cls[u] * w * w;
        for (uint64_t a = f->feat_off[u]; a < f->feat_off[u + 1]; a++) {
            const uint32_t i = f->feats[a];
            double *row = block + (uint64_t)i * w;
            gbt_shap_tree(nodes, f->cat_bits, x, 1, (int32_t)i, on, path, stack);
            gbt_shap_tree(nodes, f->cat_bits, x, -1, (int32_t)i, off, path, stack);
            for (uint64_t b = f->feat_off[u]; b < f->feat_off[u + 1]; b++) {
                const uint32_t j = f->feats[b];
                if (j != i) {
                    const double dj = (on[j] - off[j]) / 2.0;
                    row[j] = row[j] + dj;
                    row[i] = row[i] - dj;
                }
                on[j] = off[j] = 0.0;
            }
        }
    }
    for (int k = 0; k < f->K; k++)
        for (uint64_t i = 0; i < w; i++) {
            double *d = inter + ((uint64_t)k * w + i) * w + i;
            *d = *d + phi[(uint64_t)k * w + i];
        }
}

/*
 * Saabas' approximation of the SHAP values of the row x (XGBoost's
 * approx_contribs): in each tree the bias term gets the root's expected
 * value, and every split on the row's path gives its feature the change of
 * the expected value (f->mean) from the node to the child the row takes;
 * a block sums to base[k] plus the leaves, as the SHAP values do.  phi as
 * gbt_shap_row_contribs fills it; O(depth) a tree.
 */
GBT_SHARED void gbt_shap_row_approx(const struct gbt_shap_forest *f, const float *x, const double *base,
                                    double *phi)
{
    const uint64_t w = (uint64_t)f->nfeat + 1;
    for (uint64_t i = 0; i < (uint64_t)f->K * w; i++) phi[i] = 0.0;
    for (int k = 0; k < f->K; k++) phi[(uint64_t)k * w + f->nfeat] = base[k];
    for (uint32_t u = 0; u < f->ntrees; u++) {
        const struct gbt_shap_node *nodes = f->nodes + f->offset[u];
        const double *mean = f->mean + f->offset[u];
        double *p = phi + (uint64_t)f->cls[u] * w;
        int32_t i = 0;
        p[f->nfeat] = p[f->nfeat] + mean[0];
        while (nodes[i].left >= 0) {
            const int32_t j = gbt_shap_goes_left(&nodes[i], x[nodes[i].feature], f->cat_bits) ? nodes[i].left
                                                                                             : nodes[i].right;
            p[nodes[i].feature] = p[nodes[i].feature] + (mean[j] - mean[i]);
            i = j;
        }
    }
}

#endif
