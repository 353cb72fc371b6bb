/*
 * dump.c - the trees as text for people: XGBoost's text dump (one line per
 * node, indented by depth), its JSON dump (nested nodes) and Graphviz DOT.
 * Nodes are visited depth first, the left ("yes") child first, with an
 * explicit stack: lossguide trees may be deeper than a C stack likes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "data/feature_names.h"
#include "util/json_write.h"
#include "util/util.h"

enum dump_format { DUMP_TEXT, DUMP_JSON, DUMP_DOT };

struct dumper {
    struct gbt_strbuf *sb;
    const struct gbt_model *m;
    int format, with_stats, one_tree;
};

/* A feature name in every dump format, escaped as XGBoost's dumps escape it (as inside a JSON string). */
static void put_escaped(struct gbt_strbuf *sb, const char *text)
{
    gbt__sb_json_escaped(sb, text);
}

static void indent(struct gbt_strbuf *sb, int depth, const char *unit)
{
    for (int i = 0; i < depth; i++) gbt__sb_printf(sb, "%s", unit);
}

static const char *fname(const struct gbt_model *m, int32_t f, char *buf, size_t len)
{
    return gbt__name_of(m->feature_names, m->nfeature_names, (uint64_t)f, buf, len);
}

/* The categories of categorical node n, comma-separated. */
static void put_cats(struct gbt_strbuf *sb, const struct gbt_tree *t, int32_t n)
{
    for (int32_t k = 0; k < t->cat_count[n]; k++)
        gbt__sb_printf(sb, k ? ",%u" : "%u", t->cats[t->cat_begin[n] + k]);
}

/*
 * "yes=1,no=2,missing=1" and the stats of node n in the text format.  A
 * categorical node reads "[f:{1,5}]" (as XGBoost's dumps): yes, the rows
 * of those categories, is its right child.
 */
static void text_node(struct dumper *d, const struct gbt_tree *t, int32_t n, int depth)
{
    struct gbt_strbuf *sb = d->sb;
    char buf[32];
    indent(sb, depth, "\t");
    if (t->left[n] < 0) {
        gbt__sb_printf(sb, "%d:leaf=", n);
        gbt__json_put_float(sb, t->value[n], 0);
        if (d->with_stats) {
            gbt__sb_printf(sb, ",cover=");
            gbt__json_put_float(sb, t->cover[n], 0);
        }
    } else if (gbt__tree_is_cat(t, n)) {
        gbt__sb_printf(sb, "%d:[", n);
        put_escaped(sb, fname(d->m, t->feature[n], buf, sizeof buf));
        gbt__sb_printf(sb, ":{");
        put_cats(sb, t, n);
        gbt__sb_printf(sb, "}] yes=%d,no=%d,missing=%d", t->right[n], t->left[n],
                       t->default_left[n] ? t->left[n] : t->right[n]);
        if (d->with_stats) {
            gbt__sb_printf(sb, ",gain=");
            gbt__json_put_float(sb, t->gain[n], 0);
            gbt__sb_printf(sb, ",cover=");
            gbt__json_put_float(sb, t->cover[n], 0);
        }
    } else {
        gbt__sb_printf(sb, "%d:[", n);
        put_escaped(sb, fname(d->m, t->feature[n], buf, sizeof buf));
        gbt__sb_printf(sb, "<");
        gbt__json_put_float(sb, t->threshold[n], 0);
        gbt__sb_printf(sb, "] yes=%d,no=%d,missing=%d", t->left[n], t->right[n],
                       t->default_left[n] ? t->left[n] : t->right[n]);
        if (d->with_stats) {
            gbt__sb_printf(sb, ",gain=");
            gbt__json_put_float(sb, t->gain[n], 0);
            gbt__sb_printf(sb, ",cover=");
            gbt__json_put_float(sb, t->cover[n], 0);
        }
    }
    gbt__sb_append(sb, "\n", 1);
}

static void json_node(struct dumper *d, const struct gbt_tree *t, int32_t n, int depth)
{
    struct gbt_strbuf *sb = d->sb;
    char buf[32];
    indent(sb, depth + 1, "  ");
    gbt__sb_printf(sb, "{ \"nodeid\": %d, ", n);
    if (t->left[n] < 0) {
        gbt__sb_printf(sb, "\"leaf\": ");
        gbt__json_put_float(sb, t->value[n], 0);
        if (d->with_stats) {
            gbt__sb_printf(sb, ", \"cover\": ");
            gbt__json_put_float(sb, t->cover[n], 0);
        }
        gbt__sb_printf(sb, " }");
        return;
    }
    gbt__sb_printf(sb, "\"depth\": %d, \"split\": \"", depth);
    put_escaped(sb, fname(d->m, t->feature[n], buf, sizeof buf));
    gbt__sb_printf(sb, "\", \"split_condition\": ");
    if (gbt__tree_is_cat(t, n)) {
        /* the categories that go right, the "yes" child */
        gbt__sb_append(sb, "[", 1);
        put_cats(sb, t, n);
        gbt__sb_printf(sb, "], \"yes\": %d, \"no\": %d, \"missing\": %d", t->right[n], t->left[n],
                       t->default_left[n] ? t->left[n] : t->right[n]);
    } else {
        gbt__json_put_float(sb, t->threshold[n], 0);
        gbt__sb_printf(sb, ", \"yes\": %d, \"no\": %d, \"missing\": %d", t->left[n], t->right[n],
                       t->default_left[n] ? t->left[n] : t->right[n]);
    }
    if (d->with_stats) {
        gbt__sb_printf(sb, ", \"gain\": ");
        gbt__json_put_float(sb, t->gain[n], 0);
        gbt__sb_printf(sb, ", \"cover\": ");
        gbt__json_put_float(sb, t->cover[n], 0);
    }
    gbt__sb_printf(sb, ", \"children\": [\n");
}

static void dot_node(struct dumper *d, const struct gbt_tree *t, uint32_t ti, int32_t n)
{
    struct gbt_strbuf *sb = d->sb;
    char buf[32];
    const char *pad = d->one_tree ? "    " : "        ";
    gbt__sb_printf(sb, "%st%un%d [label=\"", pad, ti, n);
    if (t->left[n] < 0) {
        gbt__sb_printf(sb, "leaf=");
        gbt__json_put_float(sb, t->value[n], 0);
    } else if (gbt__tree_is_cat(t, n)) {
        put_escaped(sb, fname(d->m, t->feature[n], buf, sizeof buf));
        gbt__sb_printf(sb, " in {");
        put_cats(sb, t, n);
        gbt__sb_printf(sb, "}");
    } else {
        put_escaped(sb, fname(d->m, t->feature[n], buf, sizeof buf));
        gbt__sb_printf(sb, "<");
        gbt__json_put_float(sb, t->threshold[n], 0);
    }
    if (d->with_stats) {
        if (t->left[n] >= 0) {
            gbt__sb_printf(sb, "\\ngain=");
            gbt__json_put_float(sb, t->gain[n], 0);
        }
        gbt__sb_printf(sb, "\\ncover=");
        gbt__json_put_float(sb, t->cover[n], 0);
    }
    gbt__sb_printf(sb, "\" shape=%s]\n", t->left[n] < 0 ? "ellipse" : "box");
    if (t->left[n] >= 0 && gbt__tree_is_cat(t, n)) {
        /* "yes": in the set, the right child */
        gbt__sb_printf(sb, "%st%un%d -> t%un%d [label=\"yes%s\" color=\"#0000FF\"]\n", pad, ti, n, ti,
                       t->right[n], t->default_left[n] ? "" : ", missing");
        gbt__sb_printf(sb, "%st%un%d -> t%un%d [label=\"no%s\" color=\"#FF0000\"]\n", pad, ti, n, ti,
                       t->left[n], t->default_left[n] ? ", missing" : "");
    } else if (t->left[n] >= 0) {
        gbt__sb_printf(sb, "%st%un%d -> t%un%d [label=\"yes%s\" color=\"#0000FF\"]\n", pad, ti, n, ti,
                       t->left[n], t->default_left[n] ? ", missing" : "");
        gbt__sb_printf(sb, "%st%un%d -> t%un%d [label=\"no%s\" color=\"#FF0000\"]\n", pad, ti, n, ti,
                       t->right[n], t->default_left[n] ? "" : ", missing");
    }
}

/* Stack entries: a node to open (its depth, whether a sibling came before it) or one to close. */
struct frame {
    int32_t node;
    int16_t depth;
    uint8_t close, after_sibling;
};

static gbt_status dump_tree(struct dumper *d, uint32_t ti)
{
    const struct gbt_tree *t = &d->m->trees[ti];
    struct gbt_strbuf *sb = d->sb;
    struct frame *st;
    size_t top = 0;
    FORWARD_IF_ERROR(gbt__alloc(&st, 2 * (size_t)t->n_nodes + 2, sizeof *st, 0, "dump stack"));
    if (d->format == DUMP_TEXT) gbt__sb_printf(sb, "booster[%u]:\n", ti);
    if (d->format == DUMP_DOT && !d->one_tree)
        gbt__sb_printf(sb, "    subgraph cluster_%u {\n        label=\"booster[%u]\"\n", ti, ti);
    st[top++] = (struct frame){0, 0, 0, 0};
    while (top > 0) {
        const struct frame f = st[--top];
        const int32_t n = f.node;
        if (f.close) {
            /* JSON only: the children of n are written */
            gbt__sb_append(sb, "\n", 1);
            indent(sb, f.depth + 1, "  ");
            gbt__sb_printf(sb, "]}");
            continue;
        }
        if (d->format == DUMP_TEXT) text_node(d, t, n, f.depth);
        if (d->format == DUMP_DOT) dot_node(d, t, ti, n);
        if (d->format == DUMP_JSON) {
            if (f.after_sibling) gbt__sb_printf(sb, ",\n");
            json_node(d, t, n, f.depth);
        }
        if (t->left[n] >= 0) {
            const int16_t cd = (int16_t)(f.depth < 32000 ? f.depth + 1 : f.depth);
            if (d->format == DUMP_JSON) st[top++] = (struct frame){n, f.depth, 1, 0};
            st[top++] = (struct frame){t->right[n], cd, 0, 1};
            st[top++] = (struct frame){t->left[n], cd, 0, 0};
        }
    }
    if (d->format == DUMP_DOT && !d->one_tree) gbt__sb_printf(sb, "    }\n");
    free(st);
    return GBT_OK;
}

/*
 * A linear model as XGBoost's linear dump: the K biases, then the weights
 * feature by feature, output by output (6 significant digits); as text
 * "bias:" and "weight:" lines, as JSON one object in a list.
 */
static gbt_status dump_linear(const struct gbt_model *m, int format, int tree, char **out, size_t *len)
{
    struct gbt_strbuf sb = {0};
    const uint64_t K = (uint64_t)m->K, n = m->num_feature * K;
    RETURN_ERROR_IF(format == DUMP_DOT, GBT_E_INVALID_ARG, "a linear model (booster=gblinear) has no graph to "
                    "draw: dump it as text or json");
    RETURN_ERROR_IF(tree > 0, GBT_E_INVALID_ARG, "a linear model (booster=gblinear) dumps as one piece "
                    "(tree 0 or -1), not tree %d", tree);
    gbt__sb_printf(&sb, format == DUMP_JSON ? "[\n  { \"bias\": [\n" : "bias:\n");
    for (uint64_t k = 0; k < K; k++)
        gbt__sb_printf(&sb, format == DUMP_JSON ? "      %g%s\n" : "%g\n", (double)m->weights[n + k],
                       k + 1 < K ? "," : "");
    gbt__sb_printf(&sb, format == DUMP_JSON ? "    ],\n    \"weight\": [\n" : "weight:\n");
    for (uint64_t i = 0; i < n; i++)
        gbt__sb_printf(&sb, format == DUMP_JSON ? "      %g%s\n" : "%g\n", (double)m->weights[i],
                       i + 1 < n ? "," : "");
    if (format == DUMP_JSON) gbt__sb_printf(&sb, "    ]\n  }\n]\n");
    if (sb.failed) {
        free(sb.s);
        return gbt__fail(GBT_E_NO_MEMORY, "out of memory writing the dump");
    }
    *out = sb.s;
    *len = sb.len;
    return GBT_OK;
}

gbt_status gbt__model_dump(const struct gbt_model *m, const char *format, int tree, int with_stats,
                           char **out, size_t *len)
{
    struct gbt_strbuf sb = {0};
    struct dumper d;
    uint32_t t0, t1;
    gbt_status s = GBT_OK;
    CHECK_NOT_NULL(m);
    CHECK_NOT_NULL(format);
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(len);
    RETURN_ERROR_IF(m->K == 0, GBT_E_STATE, "the booster has no model: train or load one first");
    memset(&d, 0, sizeof d);
    if (strcmp(format, "text") == 0)
        d.format = DUMP_TEXT;
    else if (strcmp(format, "json") == 0)
        d.format = DUMP_JSON;
    else if (strcmp(format, "dot") == 0)
        d.format = DUMP_DOT;
    else
        return gbt__fail(GBT_E_INVALID_ARG, "unknown dump format '%s' (text, json, dot)", format);
    RETURN_ERROR_IF(tree < -1 || (tree >= 0 && (uint32_t)tree >= m->ntrees && !m->linear), GBT_E_INVALID_ARG,
                    "tree %d does not exist: the model has %u trees (0 to %u; -1: all)", tree,
                    m->ntrees, m->ntrees ? m->ntrees - 1 : 0);
    if (m->linear) return dump_linear(m, d.format, tree, out, len);
    d.sb = &sb;
    d.m = m;
    d.with_stats = with_stats != 0;
    d.one_tree = tree >= 0;
    t0 = tree >= 0 ? (uint32_t)tree : 0;
    t1 = tree >= 0 ? (uint32_t)tree + 1 : m->ntrees;
    if (d.format == DUMP_JSON) gbt__sb_printf(&sb, "[\n");
    if (d.format == DUMP_DOT) {
        if (d.one_tree)
            gbt__sb_printf(&sb, "digraph booster%u {\n", t0);
        else
            gbt__sb_printf(&sb, "digraph gbt {\n");
        gbt__sb_printf(&sb, "    graph [rankdir=TB]\n    node [fontname=\"Helvetica\"]\n");
    }
    for (uint32_t t = t0; t < t1 && s == GBT_OK; t++) {
        if (d.format == DUMP_JSON && t > t0) gbt__sb_printf(&sb, ",\n");
        s = dump_tree(&d, t);
    }
    if (d.format == DUMP_JSON) gbt__sb_printf(&sb, "\n]\n");
    if (d.format == DUMP_DOT) gbt__sb_printf(&sb, "}\n");
    /* a model of 0 rounds has an empty text dump: an empty string, not a missing one */
    if (sb.s == NULL) gbt__sb_append(&sb, "", 0);
    if (s == GBT_OK && sb.failed) s = gbt__fail(GBT_E_NO_MEMORY, "out of memory writing the dump");
    if (s != GBT_OK) {
        free(sb.s);
        return s;
    }
    *out = sb.s;
    *len = sb.len;
    return GBT_OK;
}
