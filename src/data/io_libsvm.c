/*
 * io_libsvm.c - the LIBSVM text format: "label [qid:N] index:value ...",
 * one row per line; '#' starts a comment; blank lines are skipped.  The
 * reader makes index i column i; gbt_dataset_from_file then applies the
 * file's base (gbt__dataset_set_index_base).
 *
 * The file comes in blocks of whole lines, each cut at line ends into
 * chunks parsed in parallel; the rows are then checked for qid (every line
 * or none) and appended in file order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/io.h"
#include "util/util.h"

/* One chunk's rows: each row's label, end of its entries, qid and line within the chunk (from 0). */
struct svm_rows {
    float *label;
    uint64_t *end; /* entries of row r end at end[r] (relative to the chunk) */
    long long *qid;
    uint8_t *has_qid;
    uint32_t *line;
    uint32_t *idx;
    float *val;
    uint64_t nnz, ncol; /* entries; 1 + the largest index (0: none) */
    int unsorted;       /* some row has indices out of order or repeated, or a NaN value */
    size_t cap_label, cap_end, cap_qid, cap_has, cap_line, cap_idx, cap_val;
};

#define LINE_FAIL(path, line, ...)                                           \
    return gbt__fail_context(gbt__fail(GBT_E_FORMAT, __VA_ARGS__), "%s:%llu", \
                             (path), (unsigned long long)(line))

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* "qid:N": N a decimal integer of long long. */
static int parse_qid(const char *s, const char *e, long long *out)
{
    int neg = 0;
    unsigned long long q = 0;
    if (s < e && (*s == '-' || *s == '+')) neg = *s++ == '-';
    if (s == e) return 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9' || q > (9223372036854775807ull + (unsigned)neg - (unsigned)(*s - '0')) / 10)
            return 0;
        q = q * 10 + (unsigned)(*s - '0');
    }
    *out = neg ? (long long)(0 - q) : (long long)q;
    return 1;
}

/*
 * Parses one line (n bytes, no LF or CR; followed by a LF or a NUL) into
 * row `r` of `out`.  GBT_E_FORMAT names the problem; GBT_E_NO_MEMORY can
 * come only from growing `out`.  Text is never written.
 */
static gbt_status parse_line(const char *path, const char *line, size_t n, uint64_t lineno,
                             struct svm_rows *out, uint64_t r)
{
    const char *hash = memchr(line, '#', n), *lend = hash ? hash : line + n, *tok, *te;
    const uint64_t row_start = out->nnz;
    int has_qid = 0;
    long long qid = 0;
    char *e;
    float label;
    if (memchr(line, '\0', n) != NULL) LINE_FAIL(path, lineno, "NUL byte in the line; is this a text file?");
    for (tok = line; tok < lend && is_blank(*tok); tok++) {}
    for (te = tok; te < lend && !is_blank(*te); te++) {}
    label = gbt__strtof(tok, &e);
    if (e != te || tok == te) LINE_FAIL(path, lineno, "label '%.*s' is not a number", (int)(te - tok), tok);
    /* room for the most entries the line can hold ("i:v" and a blank each), once per line */
    FORWARD_IF_ERROR(gbt__reserve(&out->idx, &out->cap_idx, out->nnz + (size_t)(lend - te) / 4 + 1,
                                  sizeof(uint32_t), "feature indices"));
    FORWARD_IF_ERROR(gbt__reserve(&out->val, &out->cap_val, out->nnz + (size_t)(lend - te) / 4 + 1,
                                  sizeof(float), "feature values"));
    if (!isfinite(label)) LINE_FAIL(path, lineno, "label is %s", isnan(label) ? "NaN" : "infinite");
    for (;;) {
        const char *colon;
        uint64_t idx = 0;
        float v;
        const char *p;
        int fast = 0;
        for (tok = te; tok < lend && is_blank(*tok); tok++) {}
        if (tok == lend) break;
        /* the common token: digits, ':', a number ending at a blank or the line's end */
        for (p = tok; p < lend && *p >= '0' && *p <= '9' && idx < GBT_MAX_FEATURES; p++)
            idx = idx * 10 + (uint64_t)(*p - '0');
        if (p > tok && p + 1 < lend && *p == ':' && !gbt__is_space(p[1]) && idx < GBT_MAX_FEATURES) {
            v = gbt__strtof(p + 1, &e);
            if (e > p + 1 && (e == lend || (e < lend && is_blank(*e)))) {
                te = e;
                fast = 1;
            }
        }
        if (!fast) {
            idx = 0;
            for (te = tok; te < lend && !is_blank(*te); te++) {}
            if (te - tok >= 4 && memcmp(tok, "qid:", 4) == 0) {
                if (has_qid) LINE_FAIL(path, lineno, "more than one qid");
                has_qid = 1;
                if (!parse_qid(tok + 4, te, &qid))
                    LINE_FAIL(path, lineno, "bad query id '%.*s'", (int)(te - tok), tok);
                continue;
            }
            colon = memchr(tok, ':', (size_t)(te - tok));
            if (colon == NULL) LINE_FAIL(path, lineno, "'%.*s' is not index:value", (int)(te - tok), tok);
            if (tok[0] == '-') LINE_FAIL(path, lineno, "negative feature index '%.*s'", (int)(colon - tok), tok);
            if (tok == colon)
                LINE_FAIL(path, lineno, "missing feature index before ':%.*s'", (int)(te - colon - 1), colon + 1);
            for (p = tok; p < colon; p++) {
                if (*p < '0' || *p > '9')
                    LINE_FAIL(path, lineno, "feature index '%.*s' is not a non-negative integer", (int)(colon - tok),
                              tok);
                idx = idx * 10 + (uint64_t)(*p - '0');
                if (idx >= GBT_MAX_FEATURES)
                    LINE_FAIL(path, lineno, "feature index '%.*s' is too large (the limit is %u)", (int)(colon - tok),
                              tok, GBT_MAX_FEATURES - 1);
            }
            v = gbt__strtof(colon + 1, &e);
            if (e != te || colon + 1 == te)
                LINE_FAIL(path, lineno, "value '%.*s' of feature %llu is not a number", (int)(te - colon - 1),
                          colon + 1, (unsigned long long)idx);
        }
        if (isinf(v)) LINE_FAIL(path, lineno, "value of feature %llu is infinite", (unsigned long long)idx);
        if (isnan(v) || (out->nnz > row_start && idx <= out->idx[out->nnz - 1])) out->unsorted = 1;
        out->idx[out->nnz] = (uint32_t)idx;
        out->val[out->nnz] = v;
        out->nnz++;
        if (idx + 1 > out->ncol) out->ncol = idx + 1;
    }
    FORWARD_IF_ERROR(gbt__reserve(&out->label, &out->cap_label, r + 1, sizeof(float), "labels"));
    FORWARD_IF_ERROR(gbt__reserve(&out->end, &out->cap_end, r + 1, sizeof(uint64_t), "row ends"));
    FORWARD_IF_ERROR(gbt__reserve(&out->qid, &out->cap_qid, r + 1, sizeof(long long), "query ids"));
    FORWARD_IF_ERROR(gbt__reserve(&out->has_qid, &out->cap_has, r + 1, 1, "query ids"));
    FORWARD_IF_ERROR(gbt__reserve(&out->line, &out->cap_line, r + 1, sizeof(uint32_t), "line numbers"));
    out->label[r] = label;
    out->end[r] = out->nnz;
    out->qid[r] = qid;
    out->has_qid[r] = (uint8_t)has_qid;
    return GBT_OK;
}

/* Parses the lines of a chunk until the first bad one (recorded in ch->bad_line). */
static gbt_status parse_chunk(const char *path, struct gbt_chunk *ch, struct svm_rows *out)
{
    const char *p = ch->text, *end = ch->text + ch->len;
    ch->rows = ch->lines = 0;
    ch->bad_line = -1;
    out->nnz = out->ncol = 0;
    out->unsorted = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const size_t n = gbt__line_trim_cr(p, nl ? (size_t)(nl - p) : (size_t)(end - p));
        ch->lines++;
        if (!gbt__line_is_blank(p, n)) {
            gbt_status s = parse_line(path, p, n, 0, out, ch->rows);
            if (s == GBT_E_FORMAT) {
                ch->bad_line = (int64_t)ch->lines - 1;
                ch->bad_text = p;
                ch->bad_len = n;
                return GBT_OK;
            }
            FORWARD_IF_ERROR(s);
            out->line[ch->rows++] = (uint32_t)(ch->lines - 1);
        }
        p = nl ? nl + 1 : end;
    }
    return GBT_OK;
}

struct csr_caps {
    size_t label, indptr, line, idx, val, groups;
};

/*
 * Adds the chunk's rows to d's labels, row offsets and groups in file
 * order (the entries are copied later, in parallel), checking that every
 * line or none has a qid; *unsorted notes rows that gbt__dataset_finish_csr
 * must sort or clean.
 */
static gbt_status append_rows(const char *path, gbt_dataset *d, struct csr_caps *caps, int *qid_state,
                              long long *last_qid, int *continues, int *unsorted, const struct gbt_chunk *ch,
                              const struct svm_rows *rows)
{
    const uint64_t n = d->nrow + ch->rows;
    RETURN_ERROR_IF(n >= GBT_MAX_ROWS, GBT_E_FORMAT, "%s: more than %llu rows", path,
                    (unsigned long long)GBT_MAX_ROWS - 1);
    FORWARD_IF_ERROR(gbt__reserve(&d->label, &caps->label, n, sizeof(float), "labels"));
    FORWARD_IF_ERROR(gbt__reserve(&d->indptr, &caps->indptr, n + 1, sizeof(uint64_t), "row offsets"));
    FORWARD_IF_ERROR(gbt__reserve(&d->row_line, &caps->line, n, sizeof(uint32_t), "line numbers"));
    for (uint64_t r = 0; r < ch->rows; r++) {
        const int has = rows->has_qid[r];
        const uint64_t at = ch->first_line + rows->line[r];
        /* the first row of a batch whose query goes on from the batch before (lr's state) */
        if (d->nrow == 0 && *qid_state == 1 && has && rows->qid[r] == *last_qid) *continues = 1;
        if (*qid_state == 0) *qid_state = has ? 1 : 2;
        if ((*qid_state == 1) != has)
            LINE_FAIL(path, at, "%s", has ? "qid appears, but not on earlier lines" : "qid is missing");
        if (has) {
            if (d->ngroups == 0 || rows->qid[r] != *last_qid) {
                FORWARD_IF_ERROR(
                    gbt__reserve(&d->groups, &caps->groups, d->ngroups + 1, sizeof(uint32_t), "groups"));
                d->groups[d->ngroups++] = 0;
                *last_qid = rows->qid[r];
            }
            d->groups[d->ngroups - 1]++;
        }
        d->label[d->nrow] = rows->label[r];
        d->row_line[d->nrow] = at > UINT32_MAX ? UINT32_MAX : (uint32_t)at;
        d->indptr[d->nrow + 1] = d->nnz + rows->end[r];
        d->nrow++;
    }
    d->nnz += rows->nnz;
    *unsorted |= rows->unsorted;
    if (rows->ncol > d->ncol) d->ncol = rows->ncol;
    return GBT_OK;
}

static void free_rows(struct svm_rows *r)
{
    free(r->label);
    free(r->end);
    free(r->qid);
    free(r->has_qid);
    free(r->line);
    free(r->idx);
    free(r->val);
}

/* What reading the blocks needs (gbt_chunk_ops's ctx). */
struct svm_read {
    const char *path;
    gbt_dataset *d;
    struct csr_caps caps;
    long long last_qid;
    int qid_state; /* 0: no line yet, 1: every line has qid, 2: none has */
    int continues; /* the first query goes on from the lines before (reading in batches) */
    int unsorted;
    struct svm_rows rows[GBT_MAX_CHUNKS];
    uint64_t first_nnz[GBT_MAX_CHUNKS];
};

static gbt_status svm_parse(void *ctx, struct gbt_chunk *ch, int i)
{
    struct svm_read *sr = ctx;
    return parse_chunk(sr->path, ch, &sr->rows[i]);
}

static gbt_status svm_place(void *ctx, struct gbt_chunk *ch, int i)
{
    struct svm_read *sr = ctx;
    ch->first_row = sr->d->nrow;
    sr->first_nnz[i] = sr->d->nnz;
    return append_rows(sr->path, sr->d, &sr->caps, &sr->qid_state, &sr->last_qid, &sr->continues, &sr->unsorted,
                       ch, &sr->rows[i]);
}

static gbt_status svm_explain(void *ctx, const struct gbt_chunk *ch, int i, uint64_t line)
{
    struct svm_read *sr = ctx;
    return parse_line(sr->path, ch->bad_text, ch->bad_len, line, &sr->rows[i], ch->rows);
}

static gbt_status svm_ready(void *ctx)
{
    struct svm_read *sr = ctx;
    FORWARD_IF_ERROR(
        gbt__reserve(&sr->d->indices, &sr->caps.idx, sr->d->nnz, sizeof(uint32_t), "feature indices"));
    return gbt__reserve(&sr->d->values, &sr->caps.val, sr->d->nnz, sizeof(float), "feature values");
}

static void svm_copy(void *ctx, const struct gbt_chunk *ch, int i)
{
    const struct svm_read *sr = ctx;
    const struct svm_rows *rows = &sr->rows[i];
    (void)ch;
    if (rows->nnz == 0) return;
    memcpy(sr->d->indices + sr->first_nnz[i], rows->idx, rows->nnz * sizeof(uint32_t));
    memcpy(sr->d->values + sr->first_nnz[i], rows->val, rows->nnz * sizeof(float));
}

gbt_status gbt__read_libsvm(struct gbt_line_reader *lr, gbt_dataset **out)
{
    struct svm_read r;
    struct gbt_chunk_ops ops = {&r, svm_parse, svm_place, svm_explain, svm_ready, svm_copy};
    gbt_dataset *d;
    gbt_status s;
    memset(&r, 0, sizeof r);
    FORWARD_IF_ERROR(gbt__dataset_alloc(&d));
    r.path = lr->path;
    r.d = d;
    r.qid_state = lr->qid_state; /* reading in batches: the lines before this batch's */
    r.last_qid = lr->qid_last;
    s = gbt__strdup(&d->source, lr->path);
    if (s == GBT_OK) s = gbt__reserve(&d->indptr, &r.caps.indptr, 2, sizeof(uint64_t), "rows");
    if (s == GBT_OK) d->indptr[0] = 0;
    if (s == GBT_OK) s = gbt__lines_read_chunks(lr, &ops);
    for (int i = 0; i < GBT_MAX_CHUNKS; i++) free_rows(&r.rows[i]);
    lr->qid_state = r.qid_state;
    lr->qid_last = r.last_qid;
    lr->qid_continues = r.continues;
    if (s == GBT_OK && d->nrow == 0) s = gbt__fail(GBT_E_FORMAT, "%s: no data rows", lr->path);
    if (s == GBT_OK && d->ncol == 0)
        s = gbt__fail(GBT_E_FORMAT, "%s: no features: every line has only a label", lr->path);
    /* rows in order without NaN (the usual file) are what finish_csr would make them: skip its pass */
    if (s == GBT_OK && r.unsorted) s = gbt__dataset_finish_csr(d);
    if (s != GBT_OK) {
        gbt_dataset_free(d);
        return s;
    }
    *out = d;
    return GBT_OK;
}
