/*
 * io_csv.c - CSV and TSV files: one row per line, the same number of
 * fields on every line, one of them (label_column) the label.  Fields that
 * are empty, "NA" or "nan" (any case), or equal to the `missing` option,
 * are missing.  Surrounding blanks and double quotes are ignored.
 *
 * The header and the first data line (which fixes the number of fields)
 * are read one line at a time; the rest comes in blocks of whole lines,
 * each cut at line ends into chunks parsed in parallel and
 * appended in file order.
 *
 * With category_names=1 a feature field that is not a number is a
 * category name: while the chunks are parsed, each column's names are
 * gathered (under a lock) and a field holds its name's number in the
 * payload of a NaN; once the file is read, each column of names is sorted
 * by bytes (as pandas sorts string categories), its fields become their
 * names' positions and the column categorical (names_finish).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "data/feature_names.h"
#include "data/io.h"
#include "util/json_write.h"
#include "util/util.h"

/* One column's names so far, sorted by bytes; id: the order first seen, which a field's NaN payload holds. */
struct csv_name {
    char *text;
    size_t len;
    uint32_t id;
};
struct csv_names {
    struct csv_name **col; /* ncol lists */
    uint32_t *n;
    size_t *cap;
    int failed;            /* out of memory in the lock */
};

/* A name's number as a NaN's payload: 2^22 - 2 names a column at most (a category count is far below). */
#define NAME_BOX 0x7fc00000u
#define NAME_MAX_ID 0x3ffffeu

static float name_box(uint32_t id)
{
    const uint32_t b = NAME_BOX | (id + 1);
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Whether v holds a name's number (a plain NaN, missing, does not). */
static int name_unbox(float v, uint32_t *id)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    if ((b & 0xffc00000u) != NAME_BOX || (b & 0x3fffffu) == 0) return 0;
    *id = (b & 0x3fffffu) - 1;
    return 1;
}

/* The number of the name [s, s + len) in column f, added when new; UINT32_MAX when out of memory or names. */
static uint32_t name_id(struct csv_names *nm, uint64_t f, const char *s, size_t len)
{
    uint32_t id = UINT32_MAX;
#pragma omp critical(gbt_csv_names)
    {
        struct csv_name *v = nm->col[f];
        uint32_t lo = 0, hi = nm->n[f];
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2;
            const int c = gbt__cat_cmp_text(v[mid].text, v[mid].len, s, len);
            if (c == 0) {
                lo = hi = mid;
                id = v[mid].id;
            } else if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (id == UINT32_MAX && nm->n[f] <= NAME_MAX_ID &&
            gbt__reserve(&nm->col[f], &nm->cap[f], (size_t)nm->n[f] + 1, sizeof *v, "category names") == GBT_OK) {
            char *copy = malloc(len + 1);
            v = nm->col[f];
            if (copy) {
                memcpy(copy, s, len);
                copy[len] = '\0';
                memmove(&v[lo + 1], &v[lo], (nm->n[f] - lo) * sizeof *v);
                v[lo].text = copy;
                v[lo].len = len;
                v[lo].id = id = nm->n[f]++;
            }
        }
        if (id == UINT32_MAX) nm->failed = 1;
    }
    return id;
}

/* What every line is parsed against, fixed by the first data line. */
struct csv_format {
    const char *path;
    const struct gbt_csv_options *opt;
    int64_t nfields;     /* fields per line */
    uint64_t first_line; /* the line that fixed nfields */
    int64_t label;       /* the label's column, -1: none */
    uint64_t ncol;       /* feature columns */
    struct csv_names *names; /* with category_names=1, once ncol is known */
};

#define LINE_FAIL(path, line, ...)                                           \
    return gbt__fail_context(gbt__fail(GBT_E_FORMAT, __VA_ARGS__), "%s:%llu", \
                             (path), (unsigned long long)(line))

/* Trims blanks and one pair of double quotes: the field is [*s, *e). */
static void trim_field(const char **s, const char **e)
{
    const char *a = *s, *b = *e;
    while (a < b && (*a == ' ' || *a == '\t')) a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
    if (b - a >= 2 && *a == '"' && b[-1] == '"') {
        a++;
        b--;
    }
    *s = a;
    *e = b;
}

static int is_missing_text(const char *s, size_t n)
{
    return n == 0 || (n == 2 && strncasecmp(s, "na", 2) == 0) || (n == 3 && strncasecmp(s, "nan", 3) == 0);
}

static int64_t count_fields(const char *s, size_t n, char delim)
{
    int64_t k = 1;
    for (const char *e = s + n; (s = memchr(s, delim, (size_t)(e - s))) != NULL; s++) k++;
    return k;
}

/* A line of one field holding ';' or '|': the delimiter those fields are separated by, else NULL. */
static const char *other_delimiter(const char *line, size_t n, int64_t nfields)
{
    if (nfields != 1) return NULL;
    return memchr(line, ';', n) ? ";" : memchr(line, '|', n) ? "|" : NULL;
}

/*
 * Parses one line (n bytes, no LF or CR) into row[0, ncol) and *label.
 * Text is never written; the line is followed by a LF, CR or NUL.
 */
static gbt_status parse_row(const struct csv_format *c, const char *line, size_t n, uint64_t lineno,
                            float *row, float *label)
{
    const struct gbt_csv_options *opt = c->opt;
    const char *s = line, *lend = line + n;
    const int64_t nf = c->nfields;
    /* a line without the delimiter but with another one: the delimiter, not a header, is wrong */
    const char *other = other_delimiter(line, n, nf);
    char hint[80] = "";
    if (other)
        snprintf(hint, sizeof hint, " (fields separated by '%s'? delimiter=%s reads them)", other, other);
    else if (lineno == 1 && !opt->header)
        snprintf(hint, sizeof hint, " (if line 1 names the columns, use header=1)");
    int counted = 0;
    float *const row0 = row;
    if (memchr(line, '\0', n) != NULL)
        LINE_FAIL(c->path, lineno, "NUL byte in the line; is this a text file?");
    for (int64_t f = 0; f < nf; f++) {
        const char *end, *text = s;
        char *e = (char *)s;
        float v = 0.0f;
        /* a feature whose fields name categories (opt->cats): never the number path */
        const uint64_t feat = (uint64_t)(row - row0);
        const struct gbt_cat_dict *cd = f != c->label && feat < opt->ncats && opt->cats[feat].n ? &opt->cats[feat]
                                                                                                : NULL;
        /*
         * The common field: a number (not NaN) that ends at the delimiter, or the line for the last.
         * Not after white space, which strtof would skip, past a tab delimiter too.
         */
        if (!cd && s < lend && !gbt__is_space(*s)) v = gbt__strtof(s, &e);
        if (!cd && e > s && e <= lend && !isnan(v) && (f == nf - 1 ? e == lend : e < lend && *e == opt->delim)) {
            end = e;
            s = e + 1;
        } else {
            /* any error shows here first: a wrong field count is the one reported */
            if (!counted) {
                const int64_t k = count_fields(line, n, opt->delim);
                if (k != nf)
                    LINE_FAIL(c->path, lineno, "%lld fields, but line %llu has %lld", (long long)k,
                              (unsigned long long)c->first_line, (long long)nf);
                counted = 1;
            }
            end = memchr(s, opt->delim, (size_t)(lend - s));
            if (end == NULL) end = lend;
            s = end + 1;
            trim_field(&text, &end);
            if (f != c->label && is_missing_text(text, (size_t)(end - text))) {
                *row++ = NAN;
                continue;
            }
            if (cd) {
                /* its category's code; a category the model does not list gets n, which no training row had */
                int stray;
                const uint32_t code = gbt__cat_dict_code(cd, text, (size_t)(end - text), &stray);
                if (stray)
                    LINE_FAIL(c->path, lineno,
                              "column %lld holds the number '%.*s', but the model names this feature's "
                              "categories (such as '%s'): give the names it was trained on, not codes",
                              (long long)f, (int)(end - text), text, cd->entries[0].text);
                *row++ = (float)code;
                continue;
            }
            v = gbt__strtof(text, &e);
            if ((text == end || e != end) && c->names && f != c->label) {
                const uint32_t id = name_id(c->names, feat, text, (size_t)(end - text));
                if (id == UINT32_MAX)
                    LINE_FAIL(c->path, lineno, "out of memory for category names, or over %u in column %lld",
                              NAME_MAX_ID + 1, (long long)f);
                *row++ = name_box(id);
                continue;
            }
            if ((text == end || e != end) && f != c->label && opt->types && feat < strlen(opt->types) &&
                opt->types[feat] == 'c')
                LINE_FAIL(c->path, lineno,
                          "value '%.*s' in column %lld is not a number: this categorical feature holds category "
                          "numbers (names are read with the option category_names=1, which reads the file whole, "
                          "not in batches)", (int)(end - text), text, (long long)f);
            if (text == end || e != end)
                LINE_FAIL(c->path, lineno, "%s '%.*s' in column %lld is not a number%s",
                          f == c->label ? "label" : "value", (int)(end - text), text, (long long)f, hint);
        }
        if (f == c->label) {
            if (!isfinite(v)) LINE_FAIL(c->path, lineno, "label is %s", isnan(v) ? "NaN" : "infinite");
            *label = v;
            continue;
        }
        if (isinf(v)) LINE_FAIL(c->path, lineno, "value in column %lld is infinite", (long long)f);
        if (opt->has_missing && v == opt->missing) v = NAN;
        *row++ = v;
    }
    return GBT_OK;
}

/* Fixes the number of fields and the label's column from the first data line. */
static gbt_status set_format(struct csv_format *c, const char *line, size_t n, uint64_t lineno)
{
    const struct gbt_csv_options *opt = c->opt;
    int64_t nf = count_fields(line, n, opt->delim);
    c->nfields = nf;
    c->first_line = lineno;
    c->label = opt->label_column;
    if (c->label == GBT_LABEL_AUTO) {
        if ((uint64_t)nf == opt->features)
            c->label = -1;
        else if ((uint64_t)nf == opt->features + 1)
            c->label = opt->auto_label;
        else if (other_delimiter(line, n, nf))
            LINE_FAIL(c->path, lineno, "1 field, but the model has %llu features (fields separated by '%s'? "
                      "delimiter=%s reads them)", (unsigned long long)opt->features,
                      other_delimiter(line, n, nf), other_delimiter(line, n, nf));
        else if (opt->auto_label == 0)
            LINE_FAIL(c->path, lineno,
                      "%lld fields, but the model has %llu features: expected %llu (features only) "
                      "or %llu (label first); label_column=N says where the label is",
                      (long long)nf, (unsigned long long)opt->features, (unsigned long long)opt->features,
                      (unsigned long long)opt->features + 1);
        else
            LINE_FAIL(c->path, lineno,
                      "%lld fields, but the model has %llu features: expected %llu (features only) "
                      "or %llu (the label in column %lld); label_column=N says where the label is",
                      (long long)nf, (unsigned long long)opt->features, (unsigned long long)opt->features,
                      (unsigned long long)opt->features + 1, (long long)opt->auto_label);
    }
    if (c->label >= nf)
        LINE_FAIL(c->path, lineno, "label column %lld does not exist: the line has %lld fields",
                  (long long)c->label, (long long)nf);
    c->ncol = (uint64_t)(nf - (c->label >= 0));
    RETURN_ERROR_IF(c->ncol > GBT_MAX_FEATURES, GBT_E_FORMAT, "%s: %llu columns; the limit is %u", c->path,
                    (unsigned long long)c->ncol, GBT_MAX_FEATURES);
    return GBT_OK;
}

/* One chunk's rows: features row-major, labels, and each row's line within the chunk (from 0). */
struct csv_rows {
    float *x, *y;
    uint32_t *line;
    uint64_t present; /* values that are not missing */
    size_t cap_x, cap_y, cap_line;
};

/* Parses the lines of a chunk until the first bad one (recorded in ch->bad_line). */
static gbt_status parse_chunk(const struct csv_format *c, struct gbt_chunk *ch, struct csv_rows *out)
{
    const char *p = ch->text, *end = ch->text + ch->len;
    ch->rows = ch->lines = 0;
    ch->bad_line = -1;
    out->present = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const size_t n = gbt__line_trim_cr(p, nl ? (size_t)(nl - p) : (size_t)(end - p));
        const uint64_t r = ch->rows;
        float label = 0.0f;
        ch->lines++;
        if (!gbt__line_is_blank(p, n)) {
            FORWARD_IF_ERROR(gbt__reserve(&out->x, &out->cap_x, (r + 1) * c->ncol, sizeof(float), "values"));
            FORWARD_IF_ERROR(gbt__reserve(&out->line, &out->cap_line, r + 1, sizeof(uint32_t), "lines"));
            if (c->label >= 0)
                FORWARD_IF_ERROR(gbt__reserve(&out->y, &out->cap_y, r + 1, sizeof(float), "labels"));
            /* the line number stays relative; only the first bad line's message matters, made later */
            if (parse_row(c, p, n, 0, out->x + r * c->ncol, &label) != GBT_OK) {
                ch->bad_line = (int64_t)ch->lines - 1;
                ch->bad_text = p;
                ch->bad_len = n;
                return GBT_OK;
            }
            if (c->label >= 0) out->y[r] = label;
            out->line[r] = (uint32_t)(ch->lines - 1);
            for (uint64_t k = 0; k < c->ncol; k++) out->present += !isnan(out->x[r * c->ncol + k]);
            ch->rows++;
        }
        p = nl ? nl + 1 : end;
    }
    return GBT_OK;
}

/* Room in d for `more` rows. */
static gbt_status reserve_rows(gbt_dataset *d, const struct csv_format *c, size_t caps[3], uint64_t more)
{
    const uint64_t n = d->nrow + more;
    RETURN_ERROR_IF(n >= GBT_MAX_ROWS, GBT_E_FORMAT, "%s: more than %llu rows", c->path,
                    (unsigned long long)GBT_MAX_ROWS - 1);
    FORWARD_IF_ERROR(gbt__reserve(&d->dense, &caps[0], n * c->ncol, sizeof(float), "feature values"));
    FORWARD_IF_ERROR(gbt__reserve(&d->row_line, &caps[1], n, sizeof(uint32_t), "line numbers"));
    if (c->label >= 0) FORWARD_IF_ERROR(gbt__reserve(&d->label, &caps[2], n, sizeof(float), "labels"));
    return GBT_OK;
}

static uint32_t clamp_line(uint64_t line)
{
    return line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
}

/* What reading the blocks after the first data line needs (gbt_chunk_ops's ctx). */
struct csv_read {
    const struct csv_format *c;
    gbt_dataset *d;
    size_t *caps; /* of d's values, labels and line numbers */
    struct csv_rows rows[GBT_MAX_CHUNKS];
};

static gbt_status csv_parse(void *ctx, struct gbt_chunk *ch, int i)
{
    struct csv_read *cr = ctx;
    return parse_chunk(cr->c, ch, &cr->rows[i]);
}

static gbt_status csv_place(void *ctx, struct gbt_chunk *ch, int i)
{
    struct csv_read *cr = ctx;
    ch->first_row = cr->d->nrow;
    FORWARD_IF_ERROR(reserve_rows(cr->d, cr->c, cr->caps, ch->rows));
    cr->d->nrow += ch->rows;
    cr->d->nnz += cr->rows[i].present;
    return GBT_OK;
}

static gbt_status csv_explain(void *ctx, const struct gbt_chunk *ch, int i, uint64_t line)
{
    struct csv_read *cr = ctx;
    float label;
    return parse_row(cr->c, ch->bad_text, ch->bad_len, line, cr->rows[i].x + ch->rows * cr->c->ncol, &label);
}

static void csv_copy(void *ctx, const struct gbt_chunk *ch, int i)
{
    const struct csv_read *cr = ctx;
    const struct csv_format *c = cr->c;
    const struct csv_rows *rows = &cr->rows[i];
    gbt_dataset *d = cr->d;
    if (ch->rows == 0) return;
    memcpy(d->dense + ch->first_row * c->ncol, rows->x, ch->rows * c->ncol * sizeof(float));
    if (c->label >= 0) memcpy(d->label + ch->first_row, rows->y, ch->rows * sizeof(float));
    for (uint64_t r = 0; r < ch->rows; r++)
        d->row_line[ch->first_row + r] = clamp_line(ch->first_line + rows->line[r]);
}

/* Reads every block after the first data line. */
static gbt_status read_blocks(struct gbt_line_reader *lr, const struct csv_format *c, gbt_dataset *d,
                              size_t caps[3])
{
    struct csv_read cr;
    struct gbt_chunk_ops ops = {&cr, csv_parse, csv_place, csv_explain, NULL, csv_copy};
    gbt_status s;
    memset(&cr, 0, sizeof cr);
    cr.c = c;
    cr.d = d;
    cr.caps = caps;
    s = gbt__lines_read_chunks(lr, &ops);
    for (int i = 0; i < GBT_MAX_CHUNKS; i++) {
        free(cr.rows[i].x);
        free(cr.rows[i].y);
        free(cr.rows[i].line);
    }
    return s;
}

/*
 * The header line's names of the feature columns (the label column's left
 * out) into d, once the first data line has fixed the fields.
 */
static gbt_status header_names(const struct csv_format *c, const char *h, size_t n, uint64_t lineno,
                               gbt_dataset *d)
{
    const char *p = h, *end = h + n;
    char **names = NULL, where[512];
    uint64_t k = 0;
    gbt_status s;
    if (count_fields(h, n, c->opt->delim) != c->nfields)
        LINE_FAIL(c->path, lineno, "the header has %lld names but line %llu has %lld fields",
                  (long long)count_fields(h, n, c->opt->delim), (unsigned long long)c->first_line,
                  (long long)c->nfields);
    FORWARD_IF_ERROR(gbt__alloc(&names, (size_t)c->ncol + 1, sizeof *names, 1, "feature names"));
    s = GBT_OK;
    for (int64_t f = 0; f < c->nfields && s == GBT_OK; f++) {
        const char *e = memchr(p, c->opt->delim, (size_t)(end - p)), *a = p, *b;
        if (e == NULL) e = end;
        b = e;
        p = e + 1;
        if (f == c->label) continue;
        trim_field(&a, &b);
        s = gbt__alloc(&names[k], (size_t)(b - a) + 1, 1, 0, "feature names");
        if (s != GBT_OK) break;
        memcpy(names[k], a, (size_t)(b - a));
        names[k++][b - a] = '\0';
    }
    snprintf(where, sizeof where, "%.480s:%llu", c->path, (unsigned long long)lineno);
    if (s == GBT_OK) s = gbt__names_check((const char *const *)names, k, where);
    if (s != GBT_OK) {
        gbt__names_free(names, c->ncol);
        return s == GBT_E_INVALID_ARG ? GBT_E_FORMAT : s;
    }
    d->feature_names = names;
    d->nfeature_names = k;
    /* "--header" on a file without one loses its first row, unseen: names that are all numbers say so */
    {
        int numeric = k > 0;
        for (uint64_t i = 0; i < k && numeric; i++) {
            char *e;
            gbt__strtof(names[i], &e);
            numeric = names[i][0] != '\0' && *e == '\0';
        }
        if (numeric)
            gbt__log(GBT_LOG_WARNING, GBT_LOG_WARNING,
                     "%s: the header line (line %llu) names the columns with numbers only ('%s'%s%s%s): if it "
                     "is a row of data, read the file without the header option; as asked, it is read as the "
                     "feature names and is not a row of the data",
                     c->path, (unsigned long long)lineno, names[0], k > 1 ? ", '" : "", k > 1 ? names[1] : "",
                     k > 1 ? "', ..." : "");
    }
    return GBT_OK;
}

static void names_free(struct csv_names *nm, uint64_t ncol)
{
    for (uint64_t f = 0; nm && f < ncol; f++) {
        for (uint32_t i = 0; i < nm->n[f]; i++) free(nm->col[f][i].text);
        free(nm->col[f]);
    }
    if (nm) {
        free(nm->col);
        free(nm->n);
        free(nm->cap);
    }
    free(nm);
}

static gbt_status names_alloc(struct csv_names **out, uint64_t ncol)
{
    struct csv_names *nm;
    FORWARD_IF_ERROR(gbt__alloc(&nm, 1, sizeof *nm, 1, "category names"));
    *out = nm;
    FORWARD_IF_ERROR(gbt__alloc(&nm->col, ncol, sizeof *nm->col, 1, "category names"));
    FORWARD_IF_ERROR(gbt__alloc(&nm->n, ncol, sizeof *nm->n, 1, "category names"));
    return gbt__alloc(&nm->cap, ncol, sizeof *nm->cap, 1, "category names");
}

/*
 * Each column of names: its fields become their names' positions in the
 * names sorted by bytes, the column categorical, the names the dataset's
 * category_names (JSON, as gbt_dataset_set_category_names takes them).  A
 * number in such a column is refused with its line.
 */
static gbt_status names_finish(const struct csv_format *c, gbt_dataset *d)
{
    struct csv_names *nm = c->names;
    struct gbt_strbuf sb = {0};
    uint32_t *lut = NULL;
    gbt_status s = GBT_OK;
    int listed = 0;
    gbt__sb_append(&sb, "{", 1);
    for (uint64_t f = 0; f < c->ncol && s == GBT_OK; f++) {
        const uint32_t k = nm->n[f];
        if (k == 0) continue;
        if (d->feature_types == NULL) s = gbt__alloc(&d->feature_types, c->ncol, 1, 1, "feature types");
        if (s == GBT_OK) s = gbt__alloc(&lut, k, sizeof *lut, 0, "category codes");
        if (s != GBT_OK) break;
        for (uint32_t i = 0; i < k; i++) lut[nm->col[f][i].id] = i;
        for (uint64_t r = 0; r < d->nrow && s == GBT_OK; r++) {
            float *v = &d->dense[r * c->ncol + f];
            uint32_t id;
            if (name_unbox(*v, &id))
                *v = (float)lut[id];
            else if (!isnan(*v))
                s = gbt__fail(GBT_E_FORMAT,
                              "%s:%u: column %lld holds the number %g, and category names elsewhere (such as '%s'): a "
                              "column of names holds names only, or nothing where missing",
                              c->path, (unsigned)d->row_line[r], (long long)(f + (c->label >= 0 && (int64_t)f >= c->label)),
                              (double)*v, nm->col[f][0].text);
        }
        free(lut);
        lut = NULL;
        d->feature_types[f] = GBT_FT_CATEGORICAL;
        gbt__sb_printf(&sb, "%s\"%llu\":[", listed++ ? "," : "", (unsigned long long)f);
        for (uint32_t i = 0; i < k; i++) {
            if (i) gbt__sb_append(&sb, ",", 1);
            gbt__sb_json_string(&sb, nm->col[f][i].text);
        }
        gbt__sb_append(&sb, "]", 1);
    }
    gbt__sb_append(&sb, "}", 1);
    if (s == GBT_OK && sb.failed) s = gbt__fail(GBT_E_NO_MEMORY, "out of memory for category names");
    if (s == GBT_OK && listed) {
        d->category_names = sb.s;
        sb.s = NULL;
        d->nnz = 0;
        for (uint64_t i = 0; i < d->nrow * c->ncol; i++) d->nnz += !isnan(d->dense[i]);
    }
    free(sb.s);
    return s;
}

gbt_status gbt__read_delimited(struct gbt_line_reader *lr, const struct gbt_csv_options *opt,
                               gbt_dataset **out)
{
    struct csv_format c;
    size_t caps[3] = {0, 0, 0};
    gbt_dataset *d;
    gbt_status s;
    char *line;
    size_t len;
    int skip_header = opt->header;
    char *header = NULL;
    size_t header_len = 0;
    uint64_t header_line = 0;
    memset(&c, 0, sizeof c);
    c.path = lr->path;
    c.opt = opt;
    FORWARD_IF_ERROR(gbt__dataset_alloc(&d));
    s = gbt__strdup(&d->source, lr->path);
    /* the header and the first data line, one at a time */
    while (s == GBT_OK) {
        s = gbt__lines_next(lr, &line, &len);
        if (s != GBT_OK || line == NULL) break;
        if (skip_header) {
            /* kept for its names until the first data line fixes the fields */
            skip_header = 0;
            header_line = lr->line;
            header_len = len;
            s = gbt__alloc(&header, len + 1, 1, 0, "header");
            if (s == GBT_OK) memcpy(header, line, len);
            continue;
        }
        if (gbt__line_is_blank(line, len)) continue;
        s = set_format(&c, line, len, lr->line);
        if (s == GBT_OK && opt->category_names) s = names_alloc(&c.names, c.ncol);
        if (s == GBT_OK && header) s = header_names(&c, header, header_len, header_line, d);
        if (s == GBT_OK) s = reserve_rows(d, &c, caps, 1);
        if (s == GBT_OK) {
            float label = 0.0f;
            s = parse_row(&c, line, len, lr->line, d->dense, &label);
            if (c.label >= 0) d->label[0] = label;
            d->row_line[0] = clamp_line(lr->line);
            d->nrow = 1;
            for (uint64_t k = 0; k < c.ncol; k++) d->nnz += !isnan(d->dense[k]);
        }
        if (s == GBT_OK) s = read_blocks(lr, &c, d, caps);
        break;
    }
    free(header);
    d->ncol = c.ncol;
    if (s == GBT_OK && c.names) s = names_finish(&c, d);
    names_free(c.names, c.ncol);
    d->layout.format = GBT_FILE_DELIMITED;
    d->layout.delim = opt->delim;
    d->layout.header = opt->header;
    d->layout.label_column = c.label;
    if (s == GBT_OK && d->nrow == 0) s = gbt__fail(GBT_E_FORMAT, "%s: no data rows", lr->path);
    if (s == GBT_OK && d->ncol == 0)
        s = gbt__fail(GBT_E_FORMAT, "%s: no feature columns besides the label", lr->path);
    if (s != GBT_OK) {
        gbt_dataset_free(d);
        return s;
    }
    *out = d;
    return GBT_OK;
}
