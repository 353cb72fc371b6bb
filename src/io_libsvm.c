/*
 * io_libsvm.c - the LIBSVM text format: "label [qid:N] index:value ...",
 * one row per line; '#' starts a comment; blank lines are skipped.  The
 * reader makes index i column i; gbt_dataset_from_file then applies the
 * file's base (gbt__dataset_set_index_base).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "util.h"

struct csr_builder {
    gbt_dataset *d;
    size_t cap_rows, cap_idx, cap_val, cap_label, cap_lines, cap_groups;
    long long last_qid;
    int qid_state; /* 0: no line yet, 1: every line has qid, 2: none has */
};

#define LINE_FAIL(lr, ...)                                                   \
    return gbt__fail_context(gbt__fail(GBT_E_FORMAT, __VA_ARGS__), "%s:%llu", \
                             (lr)->path, (unsigned long long)(lr)->line)

static char *skip_blank(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

static char *token_end(char *s)
{
    while (*s && *s != ' ' && *s != '\t') s++;
    return s;
}

static gbt_status parse_label(struct gbt_line_reader *lr, char *tok, float *out)
{
    char *e;
    float v = gbt__strtof(tok, &e);
    if (e == tok || *e != '\0') LINE_FAIL(lr, "label '%s' is not a number", tok);
    if (!isfinite(v)) LINE_FAIL(lr, "label is %s", isnan(v) ? "NaN" : "infinite");
    *out = v;
    return GBT_OK;
}

static gbt_status parse_qid(struct gbt_line_reader *lr, struct csr_builder *b, const char *tok)
{
    gbt_dataset *d = b->d;
    char *e;
    long long q;
    errno = 0;
    q = strtoll(tok + 4, &e, 10);
    if (e == tok + 4 || *e != '\0' || errno == ERANGE) LINE_FAIL(lr, "bad query id '%s'", tok);
    if (d->ngroups == 0 || q != b->last_qid) {
        FORWARD_IF_ERROR(gbt__reserve(&d->groups, &b->cap_groups, d->ngroups + 1,
                                      sizeof(uint32_t), "groups"));
        d->groups[d->ngroups++] = 0;
        b->last_qid = q;
    }
    d->groups[d->ngroups - 1]++;
    return GBT_OK;
}

static gbt_status parse_entry(struct gbt_line_reader *lr, struct csr_builder *b, char *tok)
{
    gbt_dataset *d = b->d;
    char *colon = strchr(tok, ':');
    char *e;
    uint64_t idx = 0;
    float v;
    if (colon == NULL) LINE_FAIL(lr, "'%s' is not index:value", tok);
    *colon = '\0';
    if (tok[0] == '-') LINE_FAIL(lr, "negative feature index '%s'", tok);
    if (tok[0] == '\0') LINE_FAIL(lr, "missing feature index before ':%s'", colon + 1);
    for (const char *p = tok; *p; p++) {
        if (!isdigit((unsigned char)*p))
            LINE_FAIL(lr, "feature index '%s' is not a non-negative integer", tok);
        idx = idx * 10 + (uint64_t)(*p - '0');
        if (idx >= GBT_MAX_FEATURES)
            LINE_FAIL(lr, "feature index '%s' is too large (the limit is %u)", tok,
                      GBT_MAX_FEATURES - 1);
    }
    v = gbt__strtof(colon + 1, &e);
    if (e == colon + 1 || *e != '\0')
        LINE_FAIL(lr, "value '%s' of feature %llu is not a number", colon + 1,
                  (unsigned long long)idx);
    if (isinf(v)) LINE_FAIL(lr, "value of feature %llu is infinite", (unsigned long long)idx);
    FORWARD_IF_ERROR(
        gbt__reserve(&d->indices, &b->cap_idx, d->nnz + 1, sizeof(uint32_t), "feature indices"));
    FORWARD_IF_ERROR(
        gbt__reserve(&d->values, &b->cap_val, d->nnz + 1, sizeof(float), "feature values"));
    d->indices[d->nnz] = (uint32_t)idx;
    d->values[d->nnz] = v;
    d->nnz++;
    if (idx + 1 > d->ncol) d->ncol = idx + 1;
    return GBT_OK;
}

static gbt_status parse_line(struct gbt_line_reader *lr, struct csr_builder *b, char *s)
{
    gbt_dataset *d = b->d;
    char *hash = strchr(s, '#');
    char *tok, *end;
    int has_qid = 0;
    float label = 0.0f;
    if (hash) *hash = '\0';
    tok = skip_blank(s);
    end = token_end(tok);
    if (*end) *end++ = '\0';
    FORWARD_IF_ERROR(parse_label(lr, tok, &label));
    RETURN_ERROR_IF(d->nrow + 1 >= GBT_MAX_ROWS, GBT_E_FORMAT, "%s: more than %llu rows",
                    lr->path, (unsigned long long)GBT_MAX_ROWS - 1);
    FORWARD_IF_ERROR(
        gbt__reserve(&d->label, &b->cap_label, d->nrow + 1, sizeof(float), "labels"));
    FORWARD_IF_ERROR(
        gbt__reserve(&d->indptr, &b->cap_rows, d->nrow + 2, sizeof(uint64_t), "row offsets"));
    FORWARD_IF_ERROR(gbt__note_row_line(d, &b->cap_lines, d->nrow, lr->line));
    d->label[d->nrow] = label;
    for (tok = skip_blank(end); *tok; tok = skip_blank(end)) {
        end = token_end(tok);
        if (*end) *end++ = '\0';
        if (strncmp(tok, "qid:", 4) == 0) {
            if (has_qid) LINE_FAIL(lr, "more than one qid");
            has_qid = 1;
            FORWARD_IF_ERROR(parse_qid(lr, b, tok));
        } else {
            FORWARD_IF_ERROR(parse_entry(lr, b, tok));
        }
    }
    if (b->qid_state == 0) b->qid_state = has_qid ? 1 : 2;
    if ((b->qid_state == 1) != has_qid)
        LINE_FAIL(lr, "%s", has_qid ? "qid appears, but not on earlier lines" : "qid is missing");
    d->nrow++;
    d->indptr[d->nrow] = d->nnz;
    return GBT_OK;
}

gbt_status gbt__read_libsvm(struct gbt_line_reader *lr, gbt_dataset **out)
{
    struct csr_builder b;
    gbt_status s;
    char *line;
    size_t len;
    memset(&b, 0, sizeof b);
    FORWARD_IF_ERROR(gbt__dataset_alloc(&b.d));
    s = gbt__strdup(&b.d->source, lr->path);
    if (s == GBT_OK) s = gbt__reserve(&b.d->indptr, &b.cap_rows, 2, sizeof(uint64_t), "rows");
    if (s == GBT_OK) b.d->indptr[0] = 0;
    while (s == GBT_OK) {
        s = gbt__lines_next(lr, &line, &len);
        if (s != GBT_OK || line == NULL) break;
        if (gbt__line_is_blank(line)) continue;
        s = parse_line(lr, &b, line);
    }
    if (s == GBT_OK && b.d->nrow == 0) s = gbt__fail(GBT_E_FORMAT, "%s: no data rows", lr->path);
    if (s == GBT_OK && b.d->ncol == 0)
        s = gbt__fail(GBT_E_FORMAT, "%s: no features: every line has only a label", lr->path);
    if (s == GBT_OK) s = gbt__dataset_finish_csr(b.d);
    if (s != GBT_OK) {
        gbt_dataset_free(b.d);
        return s;
    }
    *out = b.d;
    return GBT_OK;
}
