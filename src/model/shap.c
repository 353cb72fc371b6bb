/*
 * shap.c - leaf indices, SHAP values (exact, or Saabas' approximation) and
 * SHAP interaction values on the host: the trees of a round range in the form of common/shap_math.h,
 * then each row densified (NaN: missing) and walked, by the CPU in
 * parallel over rows or by the backend's predict_explain in chunks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/shap.h"

/* Bytes of host buffers per chunk of rows sent to a device. */
#define CHUNK_BYTES ((uint64_t)64 << 20)

struct shap_host {
    struct gbt_shap_forest f;
    struct gbt_shap_node *nodes;
    uint64_t *offset, *feat_off;
    int32_t *cls;
    double *expected, *mean;
    uint32_t *feats;
    uint32_t *cat_bits;
};

static void host_free(struct shap_host *h)
{
    free(h->nodes);
    free(h->offset);
    free(h->feat_off);
    free(h->cls);
    free(h->expected);
    free(h->mean);
    free(h->feats);
    free(h->cat_bits);
    memset(h, 0, sizeof *h);
}

uint64_t gbt__explain_width(const struct gbt_model *m, int kind, uint32_t t0, uint32_t t1)
{
    const uint64_t w = m->num_feature + 1;
    switch (kind) {
    case GBT_EXPLAIN_LEAF: return t1 > t0 ? t1 - t0 : 0;
    case GBT_EXPLAIN_CONTRIBS:
    case GBT_EXPLAIN_APPROX: return (uint64_t)m->K * w;
    default: return (uint64_t)m->K * w * w;
    }
}

/* Trees [t0, t1) of m in SHAP form. */
static gbt_status host_build(const struct gbt_model *m, uint32_t t0, uint32_t t1, struct shap_host *h)
{
    const uint32_t nt = t1 - t0;
    uint64_t nn = 0, nf = 0;
    int32_t maxn = 1;
    int32_t *depth = NULL;
    uint8_t *seen = NULL;
    gbt_status s;
    memset(h, 0, sizeof *h);
    size_t ncat = 0;
    for (uint32_t t = t0; t < t1; t++)
        for (int32_t i = 0; i < m->trees[t].n_nodes; i++)
            if (m->trees[t].left[i] >= 0 && gbt__tree_is_cat(&m->trees[t], i))
                ncat += gbt__tree_cat_packed(&m->trees[t], i, NULL);
    for (uint32_t t = t0; t < t1; t++) {
        nn += (uint64_t)m->trees[t].n_nodes;
        if (m->trees[t].n_nodes > maxn) maxn = m->trees[t].n_nodes;
    }
    s = gbt__alloc(&h->nodes, nn + 1, sizeof *h->nodes, 0, "SHAP trees");
    if (s == GBT_OK) s = gbt__alloc(&h->offset, (size_t)nt + 1, sizeof *h->offset, 0, "SHAP trees");
    if (s == GBT_OK) s = gbt__alloc(&h->feat_off, (size_t)nt + 1, sizeof *h->feat_off, 0, "SHAP trees");
    if (s == GBT_OK) s = gbt__alloc(&h->cls, (size_t)nt + 1, sizeof *h->cls, 0, "SHAP trees");
    if (s == GBT_OK) s = gbt__alloc(&h->expected, (size_t)nt + 1, sizeof *h->expected, 0, "SHAP trees");
    if (s == GBT_OK) s = gbt__alloc(&h->feats, nn + 1, sizeof *h->feats, 0, "SHAP trees");
    if (s == GBT_OK) s = gbt__alloc(&h->mean, nn + 1, sizeof *h->mean, 0, "SHAP trees");
    if (s == GBT_OK) s = gbt__alloc(&depth, (size_t)maxn, sizeof *depth, 0, "SHAP trees");
    if (s == GBT_OK) s = gbt__alloc(&seen, (size_t)m->num_feature + 1, 1, 1, "SHAP trees");
    if (s == GBT_OK && ncat > 0) s = gbt__alloc(&h->cat_bits, ncat, sizeof *h->cat_bits, 0, "SHAP categories");
    if (s != GBT_OK) {
        free(depth);
        free(seen);
        host_free(h);
        return s;
    }
    nn = 0;
    ncat = 0;
    for (uint32_t u = 0; u < nt; u++) {
        const struct gbt_tree *t = &m->trees[t0 + u];
        const float w = gbt__model_weight(m, t0 + u); /* a dart tree's weight scales its values, so its SHAP values */
        struct gbt_shap_node *nodes = h->nodes + nn;
        h->offset[u] = nn;
        h->feat_off[u] = nf;
        h->cls[u] = (int32_t)((t0 + u) % (uint32_t)m->K);
        for (int32_t i = 0; i < t->n_nodes; i++) {
            nodes[i].left = t->left[i];
            nodes[i].right = t->right[i];
            nodes[i].feature = t->left[i] >= 0 ? t->feature[i] : -1;
            nodes[i].default_left = t->default_left[i];
            nodes[i].threshold = t->threshold[i];
            if (t->left[i] >= 0 && gbt__tree_is_cat(t, i)) {
                const uint32_t at = (uint32_t)ncat;
                nodes[i].default_left |= GBT_SHAP_CAT;
                memcpy(&nodes[i].threshold, &at, sizeof at);
                ncat += gbt__tree_cat_packed(t, i, h->cat_bits + at);
            }
            nodes[i].value = t->value[i] * w;
            nodes[i].cover = (double)t->cover[i];
            if (t->left[i] >= 0 && !seen[t->feature[i]]) {
                seen[t->feature[i]] = 1;
                h->feats[nf++] = (uint32_t)t->feature[i];
            }
        }
        for (uint64_t a = h->feat_off[u]; a < nf; a++) seen[h->feats[a]] = 0;
        /* children come after their parents (tree.c checks loaded models) */
        for (int32_t i = t->n_nodes - 1; i >= 0; i--) {
            depth[i] = 0;
            if (t->left[i] >= 0) {
                const int32_t a = depth[t->left[i]], b = depth[t->right[i]];
                depth[i] = 1 + (a > b ? a : b);
            }
        }
        if (depth[0] > h->f.max_depth) h->f.max_depth = depth[0];
        h->expected[u] = gbt_shap_expected(nodes, t->n_nodes, h->mean + nn);
        nn += (uint64_t)t->n_nodes;
    }
    h->offset[nt] = nn;
    h->feat_off[nt] = nf;
    free(depth);
    free(seen);
    h->f.nodes = h->nodes;
    h->f.offset = h->offset;
    h->f.cls = h->cls;
    h->f.expected = h->expected;
    h->f.mean = h->mean;
    h->f.feats = h->feats;
    h->f.feat_off = h->feat_off;
    h->f.cat_bits = h->cat_bits;
    h->f.cat_len = ncat;
    h->f.ntrees = nt;
    h->f.K = m->K;
    h->f.nfeat = (uint32_t)m->num_feature;
    h->f.nodes_len = nn;
    h->f.feats_len = nf;
    return GBT_OK;
}

/* Row r of v as nfeat values, NaN where missing (as predict.c reads it). */
static void row_values(const struct gbt_dview *v, uint64_t r, uint32_t nfeat, float *x)
{
    if (v->dense != NULL) {
        for (uint32_t f = 0; f < nfeat; f++) {
            const float y = f < v->ncol ? v->dense[r * v->ncol + f] : NAN;
            x[f] = y == v->missing ? NAN : y;
        }
        return;
    }
    for (uint32_t f = 0; f < nfeat; f++) x[f] = NAN;
    for (uint64_t p = v->indptr[r]; p < v->indptr[r + 1]; p++)
        if (v->indices[p] < nfeat) x[v->indices[p]] = v->values[p];
}

static void row_base(const struct gbt_model *m, const struct gbt_dview *v, uint64_t r, double *base)
{
    for (int k = 0; k < m->K; k++)
        base[k] = v->base_margin ? (double)v->base_margin[r * (uint64_t)m->K + (uint64_t)k] : m->base[k];
}

/* The per-thread scratch of the CPU walk. */
struct scratch {
    float *x;
    double *base, *phi, *inter, *on, *off;
    struct gbt_shap_path *path;
    struct gbt_shap_frame *stack;
};

static void scratch_free(struct scratch *s)
{
    free(s->x);
    free(s->base);
    free(s->phi);
    free(s->inter);
    free(s->on);
    free(s->off);
    free(s->path);
    free(s->stack);
}

static int scratch_alloc(struct scratch *s, const struct gbt_shap_forest *f, int kind)
{
    const size_t w = (size_t)f->nfeat + 1, K = (size_t)f->K;
    memset(s, 0, sizeof *s);
    s->x = malloc(((size_t)f->nfeat + 1) * sizeof *s->x);
    s->base = malloc(K * sizeof *s->base);
    s->phi = malloc(K * w * sizeof *s->phi);
    s->on = malloc(w * sizeof *s->on);
    s->off = malloc(w * sizeof *s->off);
    s->path = malloc((size_t)gbt_shap_scratch_elems(f->max_depth) * sizeof *s->path);
    s->stack = malloc(((size_t)f->max_depth + 2) * sizeof *s->stack);
    if (kind == GBT_EXPLAIN_INTERACTIONS) s->inter = malloc(K * w * w * sizeof *s->inter);
    return s->x && s->base && s->phi && s->on && s->off && s->path && s->stack &&
           (kind != GBT_EXPLAIN_INTERACTIONS || s->inter);
}

static void cpu_row(const struct gbt_model *m, const struct gbt_shap_forest *f, const struct gbt_dview *v,
                    uint64_t r, int kind, uint64_t width, struct scratch *s, float *out)
{
    float *o = out + r * width;
    row_values(v, r, f->nfeat, s->x);
    if (kind == GBT_EXPLAIN_LEAF) {
        gbt_shap_row_leaves(f, s->x, o);
        return;
    }
    row_base(m, v, r, s->base);
    if (kind == GBT_EXPLAIN_CONTRIBS || kind == GBT_EXPLAIN_APPROX) {
        if (kind == GBT_EXPLAIN_CONTRIBS)
            gbt_shap_row_contribs(f, s->x, s->base, s->phi, s->path, s->stack);
        else
            gbt_shap_row_approx(f, s->x, s->base, s->phi);
        for (uint64_t i = 0; i < width; i++) o[i] = (float)s->phi[i];
    } else {
        gbt_shap_row_interactions(f, s->x, s->base, s->inter, s->phi, s->on, s->off, s->path, s->stack);
        for (uint64_t i = 0; i < width; i++) o[i] = (float)s->inter[i];
    }
}

static gbt_status explain_cpu(const struct gbt_model *m, const struct gbt_shap_forest *f,
                              const struct gbt_dview *v, int kind, uint64_t width, int nthread, float *out)
{
    int failed = 0;
#pragma omp parallel num_threads(nthread) if (v->nrow > 1)
    {
        struct scratch s;
        const int ok = scratch_alloc(&s, f, kind);
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 16)
        for (uint64_t r = 0; r < v->nrow; r++)
            if (ok) cpu_row(m, f, v, r, kind, width, &s, out);
        scratch_free(&s);
    }
    RETURN_ERROR_IF(failed, GBT_E_NO_MEMORY, "out of memory for the SHAP scratch of a thread");
    return GBT_OK;
}

static gbt_status explain_device(const struct gbt_model *m, const struct gbt_shap_forest *f,
                                 const struct gbt_dview *v, int kind, uint64_t width,
                                 gbt_explain_device_fn device, int ordinal, float *out)
{
    const uint64_t per_row = (uint64_t)f->nfeat * sizeof(float) + (uint64_t)f->K * sizeof(double) + 1;
    uint64_t rows = CHUNK_BYTES / per_row;
    float *x = NULL;
    double *base = NULL;
    gbt_status s = GBT_OK;
    if (rows < 1) rows = 1;
    if (rows > v->nrow) rows = v->nrow;
    FORWARD_IF_ERROR(gbt__alloc(&x, rows * f->nfeat + 1, sizeof *x, 0, "rows for the device"));
    s = gbt__alloc(&base, rows * (uint64_t)f->K + 1, sizeof *base, 0, "rows for the device");
    for (uint64_t r0 = 0; r0 < v->nrow && s == GBT_OK; r0 += rows) {
        const uint64_t n = v->nrow - r0 < rows ? v->nrow - r0 : rows;
        for (uint64_t j = 0; j < n; j++) {
            row_values(v, r0 + j, f->nfeat, x + j * f->nfeat);
            row_base(m, v, r0 + j, base + j * (uint64_t)f->K);
        }
        s = device(ordinal, f, kind, x, base, n, out + r0 * width);
    }
    free(x);
    free(base);
    return s;
}

gbt_status gbt__explain(const struct gbt_model *m, const struct gbt_dview *v, int kind, uint32_t t0,
                        uint32_t t1, int nthread, gbt_explain_device_fn device, int ordinal,
                        float *out)
{
    struct shap_host h;
    const uint64_t width = gbt__explain_width(m, kind, t0, t1);
    gbt_status s;
    if (v->nrow == 0 || width == 0) return GBT_OK;
    FORWARD_IF_ERROR(host_build(m, t0, t1, &h));
    if (device != NULL)
        s = explain_device(m, &h.f, v, kind, width, device, ordinal, out);
    else
        s = explain_cpu(m, &h.f, v, kind, width, nthread, out);
    host_free(&h);
    return s;
}
