/*
 * io_csv.c - CSV and TSV files: one row per line, the same number of
 * fields on every line, one of them (label_column) the label.  Fields that
 * are empty, "NA" or "nan" (any case), or equal to the `missing` option,
 * are missing.  Surrounding blanks and double quotes are ignored.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io.h"
#include "util.h"

struct dense_builder {
    gbt_dataset *d;
    size_t cap_data, cap_label, cap_lines;
    int64_t nfields;     /* fields per line, from the first data line */
    uint64_t first_line; /* line that fixed nfields */
    int64_t label;       /* the label's column (-1: none), fixed with nfields */
};

#define LINE_FAIL(lr, ...)                                                   \
    return gbt__fail_context(gbt__fail(GBT_E_FORMAT, __VA_ARGS__), "%s:%llu", \
                             (lr)->path, (unsigned long long)(lr)->line)

/* Trims blanks and one pair of double quotes in place. */
static char *trim_field(char *s, char *end)
{
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t')) end--;
    if (end - s >= 2 && *s == '"' && end[-1] == '"') {
        s++;
        end--;
    }
    *end = '\0';
    return s;
}

static int is_missing_text(const char *s)
{
    return *s == '\0' || strcasecmp(s, "na") == 0 || strcasecmp(s, "nan") == 0;
}

static int64_t count_fields(const char *s, char delim)
{
    int64_t n = 1;
    for (; *s; s++) n += *s == delim;
    return n;
}

static gbt_status parse_line(struct gbt_line_reader *lr, struct dense_builder *b,
                             const struct gbt_csv_options *opt, char *line)
{
    gbt_dataset *d = b->d;
    int64_t nf = count_fields(line, opt->delim), col = 0;
    float *row;
    char *s = line;
    if (b->nfields == 0) {
        b->nfields = nf;
        b->first_line = lr->line;
        b->label = opt->label_column;
        if (b->label == GBT_LABEL_AUTO) {
            if ((uint64_t)nf == opt->features)
                b->label = -1;
            else if ((uint64_t)nf == opt->features + 1)
                b->label = 0;
            else
                LINE_FAIL(lr,
                          "%lld fields, but the model has %llu features: expected %llu (features only) "
                          "or %llu (label first); label_column=N says where the label is",
                          (long long)nf, (unsigned long long)opt->features,
                          (unsigned long long)opt->features, (unsigned long long)opt->features + 1);
        }
        if (b->label >= nf)
            LINE_FAIL(lr, "label column %lld does not exist: the line has %lld fields",
                      (long long)b->label, (long long)nf);
        d->ncol = (uint64_t)(nf - (b->label >= 0));
        RETURN_ERROR_IF(d->ncol > GBT_MAX_FEATURES, GBT_E_FORMAT, "%s: %llu columns; the limit is %u",
                        lr->path, (unsigned long long)d->ncol, GBT_MAX_FEATURES);
    }
    if (nf != b->nfields)
        LINE_FAIL(lr, "%lld fields, but line %llu has %lld", (long long)nf,
                  (unsigned long long)b->first_line, (long long)b->nfields);
    RETURN_ERROR_IF(d->nrow + 1 >= GBT_MAX_ROWS, GBT_E_FORMAT, "%s: more than %llu rows",
                    lr->path, (unsigned long long)GBT_MAX_ROWS - 1);
    FORWARD_IF_ERROR(gbt__reserve(&d->dense, &b->cap_data, (d->nrow + 1) * d->ncol, sizeof(float),
                                  "feature values"));
    if (b->label >= 0)
        FORWARD_IF_ERROR(
            gbt__reserve(&d->label, &b->cap_label, d->nrow + 1, sizeof(float), "labels"));
    FORWARD_IF_ERROR(gbt__note_row_line(d, &b->cap_lines, d->nrow, lr->line));
    row = d->dense + d->nrow * d->ncol;
    for (int64_t f = 0; f < nf; f++) {
        char *end = strchr(s, opt->delim);
        char *next = end ? end + 1 : s + strlen(s);
        char *text, *e;
        float v;
        if (end == NULL) end = s + strlen(s);
        text = trim_field(s, end);
        s = next;
        if (f == b->label) {
            v = gbt__strtof(text, &e);
            if (*text == '\0' || e == text || *e != '\0')
                LINE_FAIL(lr, "label '%s' in column %lld is not a number%s", text, (long long)f,
                          lr->line == 1 && !opt->header ? " (if line 1 names the columns, use header=1)" : "");
            if (!isfinite(v)) LINE_FAIL(lr, "label is %s", isnan(v) ? "NaN" : "infinite");
            d->label[d->nrow] = v;
            continue;
        }
        if (is_missing_text(text)) {
            v = NAN;
        } else {
            v = gbt__strtof(text, &e);
            if (e == text || *e != '\0')
                LINE_FAIL(lr, "value '%s' in column %lld is not a number%s", text, (long long)f,
                          lr->line == 1 && !opt->header ? " (if line 1 names the columns, use header=1)" : "");
            if (isinf(v)) LINE_FAIL(lr, "value in column %lld is infinite", (long long)f);
            if (opt->has_missing && v == opt->missing) v = NAN;
        }
        row[col++] = v;
    }
    d->nrow++;
    return GBT_OK;
}

gbt_status gbt__read_delimited(struct gbt_line_reader *lr, const struct gbt_csv_options *opt,
                               gbt_dataset **out)
{
    struct dense_builder b;
    gbt_status s;
    char *line;
    size_t len;
    int skip_header = opt->header;
    memset(&b, 0, sizeof b);
    FORWARD_IF_ERROR(gbt__dataset_alloc(&b.d));
    s = gbt__strdup(&b.d->source, lr->path);
    while (s == GBT_OK) {
        s = gbt__lines_next(lr, &line, &len);
        if (s != GBT_OK || line == NULL) break;
        if (skip_header) {
            skip_header = 0;
            continue;
        }
        if (gbt__line_is_blank(line)) continue;
        s = parse_line(lr, &b, opt, line);
    }
    if (s == GBT_OK && b.d->nrow == 0) s = gbt__fail(GBT_E_FORMAT, "%s: no data rows", lr->path);
    if (s == GBT_OK && b.d->ncol == 0)
        s = gbt__fail(GBT_E_FORMAT, "%s: no feature columns besides the label", lr->path);
    if (s == GBT_OK) s = gbt__dataset_finish_dense(b.d);
    if (s != GBT_OK) {
        gbt_dataset_free(b.d);
        return s;
    }
    *out = b.d;
    return GBT_OK;
}
