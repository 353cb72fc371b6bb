/*
 * io_file.c - gbt_dataset_from_file: options, format guessing and the side
 * files (.label, .weight, .base_margin, .lower/.upper, .group/.query, .feature_weights) read next to
 * a data file.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/io.h"
#include "util/util.h"

static gbt_status parse_bool(const char *key, const char *v, int *out)
{
    if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0) {
        *out = 1;
        return GBT_OK;
    }
    if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0) {
        *out = 0;
        return GBT_OK;
    }
    return gbt__fail(GBT_E_INVALID_ARG, "option '%s' expects 0 or 1, got '%s'", key, v);
}

static gbt_status parse_option(struct gbt_file_options *o, const char *key, const char *v)
{
    char *e;
    if (strcmp(key, "format") == 0) {
        if (strcmp(v, "libsvm") == 0)
            o->format = GBT_FMT_LIBSVM;
        else if (strcmp(v, "csv") == 0)
            o->format = GBT_FMT_CSV;
        else if (strcmp(v, "tsv") == 0)
            o->format = GBT_FMT_TSV;
        else if (strcmp(v, "auto") == 0)
            o->format = GBT_FMT_GUESS;
        else
            return gbt__fail(GBT_E_INVALID_ARG, "option 'format' expects libsvm, csv or tsv, got '%s'", v);
        return GBT_OK;
    }
    if (strcmp(key, "label_column") == 0) {
        long long c;
        if (strncmp(v, "auto", 4) == 0 && (v[4] == '\0' || v[4] == ':')) {
            /* auto:K: a label, when there is one, in column K */
            c = v[4] ? strtoll(v + 5, &e, 10) : 0;
            RETURN_ERROR_IF(v[4] && (v[5] < '0' || v[5] > '9' || *e != '\0' || c >= (long long)GBT_MAX_FEATURES),
                            GBT_E_INVALID_ARG, "option 'label_column' expects auto:K, K a column, got '%s'", v);
            o->csv.label_column = GBT_LABEL_AUTO;
            o->csv.auto_label = c;
            return GBT_OK;
        }
        c = strtoll(v, &e, 10);
        RETURN_ERROR_IF(*v == '\0' || *e != '\0' || c < -1 || c >= (long long)GBT_MAX_FEATURES,
                        GBT_E_INVALID_ARG, "option 'label_column' expects an integer >= -1, got '%s'", v);
        o->csv.label_column = c;
        return GBT_OK;
    }
    if (strcmp(key, "features") == 0) {
        unsigned long long n = strtoull(v, &e, 10);
        RETURN_ERROR_IF(*v < '0' || *v > '9' || *e != '\0' || n == 0 || n > GBT_MAX_FEATURES,
                        GBT_E_INVALID_ARG, "option 'features' expects a number of columns, got '%s'", v);
        o->csv.features = n;
        return GBT_OK;
    }
    if (strcmp(key, "nthread") == 0) {
        long long n = strtoll(v, &e, 10);
        RETURN_ERROR_IF(*v < '0' || *v > '9' || *e != '\0' || n > 4096, GBT_E_INVALID_ARG,
                        "option 'nthread' expects a number of threads in [0, 4096] (0: all), got '%s'", v);
        o->nthread = n;
        return GBT_OK;
    }
    if (strcmp(key, "progress") == 0) {
        double t = gbt__strtod(v, &e);
        RETURN_ERROR_IF(*v == '\0' || *e != '\0' || !(t >= 0 && t <= 1e9), GBT_E_INVALID_ARG,
                        "option 'progress' expects seconds between reports (0: none), got '%s'", v);
        o->progress = t;
        return GBT_OK;
    }
    if (strcmp(key, "batch_bytes") == 0) {
        unsigned long long n = strtoull(v, &e, 10);
        RETURN_ERROR_IF(*v < '0' || *v > '9' || *e != '\0' || n < 1 || n > ((unsigned long long)1 << 40),
                        GBT_E_INVALID_ARG, "option 'batch_bytes' expects a number of bytes in [1, 2^40], got '%s'",
                        v);
        o->batch_bytes = n;
        return GBT_OK;
    }
    if (strcmp(key, "delimiter") == 0) {
        /* a comma or tab cannot be written in the option list: format=csv and format=tsv are those */
        RETURN_ERROR_IF(v[0] == '\0' || v[1] != '\0' || strchr(";|:", v[0]) == NULL, GBT_E_INVALID_ARG,
                        "option 'delimiter' expects ; | or : (format=csv: commas, format=tsv: tabs), got '%s'",
                        v);
        o->delimiter = v[0];
        return GBT_OK;
    }
    if (strcmp(key, "feature_types") == 0) {
        const size_t n = strspn(v, "qc");
        RETURN_ERROR_IF(v[0] == '\0' || v[n] != '\0' || n > GBT_MAX_FEATURES, GBT_E_INVALID_ARG,
                        "option 'feature_types' expects a letter a feature, q (numeric) or c (categorical), such "
                        "as qqcq, got '%s'", v);
        free(o->types);
        return gbt__strdup(&o->types, v);
    }
    if (strcmp(key, "header") == 0) return parse_bool(key, v, &o->csv.header);
    if (strcmp(key, "side_files") == 0) return parse_bool(key, v, &o->side_files);
    if (strcmp(key, "category_names") == 0) return parse_bool(key, v, &o->csv.category_names);
    if (strcmp(key, "indexing_mode") == 0) {
        if (strcmp(v, "auto") == 0 || strcmp(v, "-1") == 0)
            o->indexing_mode = -1;
        else if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
            o->indexing_mode = v[0] - '0';
        else
            return gbt__fail(GBT_E_INVALID_ARG, "option 'indexing_mode' expects 0, 1 or auto, got '%s'", v);
        return GBT_OK;
    }
    if (strcmp(key, "missing") == 0) {
        float m = gbt__strtof(v, &e);
        RETURN_ERROR_IF(*v == '\0' || *e != '\0', GBT_E_INVALID_ARG,
                        "option 'missing' expects a number, got '%s'", v);
        o->csv.has_missing = !isnan(m);
        o->csv.missing = m;
        return GBT_OK;
    }
    return gbt__fail(GBT_E_INVALID_ARG,
                     "unknown option '%s' (expected format, label_column, features, header, delimiter, "
                     "missing, side_files, indexing_mode, category_names, feature_types, nthread, progress or "
                     "batch_bytes)",
                     key);
}

void gbt__file_options_free(struct gbt_file_options *o)
{
    free(o->types);
    o->types = NULL;
}

static gbt_status parse_options(const char *text, struct gbt_file_options *o)
{
    char *buf, *save = NULL;
    gbt_status s = GBT_OK;
    memset(o, 0, sizeof *o);
    o->csv.delim = ',';
    o->side_files = 1;
    o->indexing_mode = -1;
    if (text == NULL) return GBT_OK;
    FORWARD_IF_ERROR(gbt__strdup(&buf, text));
    for (char *item = strtok_r(buf, ",", &save); item && s == GBT_OK; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (eq == NULL) {
            s = gbt__fail(GBT_E_INVALID_ARG, "option '%s' is not key=value", item);
            break;
        }
        *eq = '\0';
        s = parse_option(o, item, eq + 1);
    }
    free(buf);
    if (s == GBT_OK && o->csv.label_column == GBT_LABEL_AUTO && o->csv.features == 0)
        s = gbt__fail(GBT_E_INVALID_ARG, "option 'label_column=auto' needs 'features=N', the number of feature columns");
    if (s == GBT_OK && o->delimiter && (o->format == GBT_FMT_LIBSVM || o->format == GBT_FMT_TSV))
        s = gbt__fail(GBT_E_INVALID_ARG, "option 'delimiter=%c' is for CSV files, not format=%s", o->delimiter,
                      o->format == GBT_FMT_LIBSVM ? "libsvm" : "tsv");
    if (s != GBT_OK) {
        gbt__file_options_free(o);
        return s;
    }
    if (o->delimiter) o->format = GBT_FMT_CSV;
    o->csv.types = o->types;
    return GBT_OK;
}

gbt_status gbt__file_apply_types(const struct gbt_file_options *o, const char *file, gbt_dataset *d)
{
    const char **types;
    const uint64_t n = o->types ? strlen(o->types) : 0;
    gbt_status s;
    if (o->types == NULL) return GBT_OK;
    RETURN_ERROR_IF(n != d->ncol, GBT_E_INVALID_ARG, "%s: option 'feature_types' gives %llu types for %llu features",
                    file, (unsigned long long)n, (unsigned long long)d->ncol);
    FORWARD_IF_ERROR(gbt__alloc(&types, n, sizeof *types, 0, "feature types"));
    for (uint64_t f = 0; f < n; f++) types[f] = o->types[f] == 'c' ? "c" : "q";
    s = gbt_dataset_set_feature_types(d, types, n); /* its messages name the file and line */
    free(types);
    return s;
}

void gbt__layout_options(const struct gbt_file_layout *l, char *buf, size_t len)
{
    if (l->format == GBT_FILE_LIBSVM) {
        snprintf(buf, len, "format=libsvm");
        return;
    }
    if (l->format != GBT_FILE_DELIMITED) {
        snprintf(buf, len, "%s", "");
        return;
    }
    {
        char delim[16] = "";
        if (l->delim != ',' && l->delim != '\t') snprintf(delim, sizeof delim, ",delimiter=%c", l->delim);
        snprintf(buf, len, "format=%s%s,header=%d,label_column=%lld", l->delim == '\t' ? "tsv" : "csv", delim,
                 l->header, (long long)l->label_column);
    }
}

/*
 * XGBoost's data URIs: "PATH?format=libsvm&indexing_mode=1" (its options
 * are this reader's, '&'-separated) and "PATH#CACHE" (XGBoost's external
 * memory cache).  A path that names an existing file is that file, '?' and
 * '#' included.  *file (free it) is the file's path; *uri (free it, or
 * NULL) the options; *cache (free it, or NULL) the cache's name.
 */
static gbt_status split_uri(const char *path, char **file, char **uri, char **cache)
{
    char *q, *hash;
    *uri = NULL;
    *cache = NULL;
    FORWARD_IF_ERROR(gbt__strdup(file, path));
    if (access(path, F_OK) == 0) return GBT_OK;
    q = strchr(*file, '?');
    hash = strchr(q ? q : *file, '#');
    if (hash) {
        if (gbt__strdup(cache, hash + 1) != GBT_OK) {
            free(*file);
            return GBT_E_NO_MEMORY;
        }
        *hash = '\0';
    }
    if (q) {
        *q = '\0';
        if (gbt__strdup(uri, q + 1) != GBT_OK) {
            free(*file);
            free(*cache);
            *cache = NULL;
            return GBT_E_NO_MEMORY;
        }
        for (char *c = *uri; *c; c++)
            if (*c == '&') *c = ',';
        /* "?format=csv&format=libsvm": which one was meant is anyone's guess */
        for (const char *a = *uri; a; a = strchr(a, ',') ? strchr(a, ',') + 1 : NULL) {
            const size_t kl = strcspn(a, "=,");
            for (const char *b = strchr(a, ','); b; b = strchr(b + 1, ','))
                if (strncmp(a, b + 1, kl) == 0 && (b[1 + kl] == '=' || b[1 + kl] == ',' || b[1 + kl] == '\0')) {
                    gbt_status s = gbt__fail(GBT_E_INVALID_ARG, "%s: option '%.*s' is given twice in the URI "
                                             "(give each once)", path, (int)kl, a);
                    free(*file);
                    free(*uri);
                    free(*cache);
                    *uri = NULL;
                    *cache = NULL;
                    return s;
                }
        }
    }
    return GBT_OK;
}

/*
 * Guesses the format from the first data line (tabs, commas, else LIBSVM),
 * looking ahead in lr without consuming it.
 */
static gbt_status guess_format(struct gbt_line_reader *lr, int skip_header, int *format)
{
    char *line;
    FORWARD_IF_ERROR(gbt__lines_peek(lr, skip_header, &line));
    RETURN_ERROR_IF(line == NULL, GBT_E_FORMAT, "%s: no data rows", lr->path);
    if (strchr(line, '\t') && !strchr(line, ':'))
        *format = GBT_FMT_TSV;
    else if (strchr(line, ',') && !strchr(line, ':'))
        *format = GBT_FMT_CSV;
    else if (strchr(line, ';') && !strchr(line, ':')) {
        /* a spreadsheet's CSV where the decimal mark is a comma: not guessed, but named */
        gbt_status s = gbt__fail(GBT_E_FORMAT,
                                 "%s: fields separated by ';' (a CSV file with another delimiter?): "
                                 "delimiter=; reads them",
                                 lr->path);
        free(line);
        return s;
    } else
        *format = GBT_FMT_LIBSVM;
    free(line);
    return GBT_OK;
}

/*
 * Reads every number of a side file into *out (free it; NULL when there
 * are none): floats, or (sizes) uint32_t integers in [1, UINT32_MAX]
 * parsed as integers.  inf_sign: floats may also be +inf ("inf") when 1,
 * -inf when -1.
 */
static gbt_status read_numbers(const char *path, int sizes, int inf_sign, void **out, uint64_t *n)
{
    struct gbt_line_reader lr;
    union {
        float *f;
        uint32_t *u;
    } v = {NULL};
    size_t cap = 0;
    uint64_t count = 0;
    char *line;
    size_t len;
    gbt_status s;
    FORWARD_IF_ERROR(gbt__lines_open(&lr, path));
    for (;;) {
        char *p, *e;
        s = gbt__lines_next(&lr, &line, &len);
        if (s != GBT_OK || line == NULL) break;
        for (p = line;; p = e) {
            float x = 0.0f;
            unsigned long long u = 0;
            while (*p == ' ' || *p == '\t' || *p == ',') p++;
            if (*p == '\0' || *p == '#') break;
            if (sizes) {
                errno = 0;
                u = *p >= '0' && *p <= '9' ? strtoull(p, &e, 10) : (e = p, 0);
            } else {
                x = gbt__strtof(p, &e);
            }
            if (e == p || (*e && *e != ' ' && *e != '\t' && *e != ',')) {
                s = gbt__fail(GBT_E_FORMAT, "%s:%llu: '%s' is not %s", path, (unsigned long long)lr.line, p,
                              sizes ? "a positive integer" : "a number");
                break;
            }
            if (sizes ? errno == ERANGE || u < 1 || u > UINT32_MAX
                      : !isfinite(x) && !(inf_sign > 0 && x > 0) && !(inf_sign < 0 && x < 0)) {
                s = gbt__fail(GBT_E_FORMAT, "%s:%llu: %s", path, (unsigned long long)lr.line,
                              sizes ? "a group size must lie in [1, 4294967295]" : "value is not finite");
                break;
            }
            if (sizes) {
                s = gbt__reserve(&v.u, &cap, count + 1, sizeof *v.u, path);
                if (s == GBT_OK) v.u[count++] = (uint32_t)u;
            } else {
                s = gbt__reserve(&v.f, &cap, count + 1, sizeof *v.f, path);
                if (s == GBT_OK) v.f[count++] = x;
            }
            if (s != GBT_OK) break;
        }
        if (s != GBT_OK) break;
    }
    gbt__lines_close(&lr);
    if (s != GBT_OK) {
        free(sizes ? (void *)v.u : (void *)v.f);
        return s;
    }
    *out = sizes ? (void *)v.u : (void *)v.f;
    *n = count;
    return GBT_OK;
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* "PATH.EXT" in *side (free it), whatever the path's length. */
static gbt_status side_path(const char *path, const char *ext, char **side)
{
    const size_t np = strlen(path), ne = strlen(ext);
    FORWARD_IF_ERROR(gbt__alloc(side, np + ne + 2, 1, 0, "a side file's name"));
    memcpy(*side, path, np);
    (*side)[np] = '.';
    memcpy(*side + np + 1, ext, ne + 1);
    return GBT_OK;
}

static gbt_status side_field(gbt_dataset *d, const char *path, const char *ext, const char *field)
{
    char *side;
    void *raw = NULL;
    float *v;
    uint64_t n = 0;
    gbt_status s;
    FORWARD_IF_ERROR(side_path(path, ext, &side));
    if (!exists(side)) {
        free(side);
        return GBT_OK;
    }
    /* inf: an open upper bound; -inf: an open lower bound (left-censored, as 0) */
    s = read_numbers(side, 0, strcmp(field, "label_upper_bound") == 0   ? 1
                              : strcmp(field, "label_lower_bound") == 0 ? -1
                                                                        : 0,
                     &raw, &n);
    if (s != GBT_OK) {
        free(side);
        return s;
    }
    v = raw;
    if (strcmp(field, "feature_weights") == 0 && n == 0) {
        /* an empty file would silently mean "no feature weights" while the tools say they read it */
        s = gbt__fail(GBT_E_FORMAT,
                      "%s: no feature weights (the file is empty; give one for each of the %llu features)", side,
                      (unsigned long long)d->ncol);
    } else if (strcmp(field, "feature_weights") == 0) {
        /* one per feature, not per row */
        s = gbt_dataset_set_field(d, field, v, n);
        if (s != GBT_OK) s = gbt__fail_context(GBT_E_FORMAT, "%s", side);
    } else if (strcmp(field, "weight") == 0 && n != d->nrow && !(d->ngroups && n == d->ngroups)) {
        if (d->ngroups)
            s = gbt__fail(GBT_E_FORMAT, "%s: %llu weights for %llu rows in %llu query groups (give one "
                          "per row or one per group)", side, (unsigned long long)n,
                          (unsigned long long)d->nrow, (unsigned long long)d->ngroups);
        else
            s = gbt__fail(GBT_E_FORMAT, "%s: %llu weights for %llu rows", side, (unsigned long long)n,
                          (unsigned long long)d->nrow);
    } else if (strcmp(field, "weight") == 0 && n > 0) {
        s = GBT_OK;
        for (uint64_t i = 0; i < n && s == GBT_OK; i++)
            if (v[i] < 0)
                s = gbt__fail(GBT_E_FORMAT, "%s: weight %g of %s %llu is negative", side, (double)v[i],
                              n == d->nrow ? "row" : "query group", (unsigned long long)i);
        if (s == GBT_OK) s = gbt_dataset_set_field(d, field, v, n);
    } else if (n == 0 || n % d->nrow != 0)
        s = gbt__fail(GBT_E_FORMAT, "%s: %llu values; expected a multiple of the %llu rows", side,
                      (unsigned long long)n, (unsigned long long)d->nrow);
    else
        s = gbt_dataset_set_field(d, field, v, n);
    free(v);
    free(side);
    return s;
}

static gbt_status side_groups(gbt_dataset *d, const char *path)
{
    char *side;
    void *raw = NULL;
    uint32_t *sizes;
    uint64_t n = 0, total = 0;
    gbt_status s;
    FORWARD_IF_ERROR(side_path(path, "group", &side));
    if (!exists(side)) {
        free(side);
        FORWARD_IF_ERROR(side_path(path, "query", &side));
    }
    if (!exists(side)) {
        free(side);
        return GBT_OK;
    }
    s = read_numbers(side, 1, 0, &raw, &n);
    sizes = raw;
    if (s == GBT_OK && n == 0) s = gbt__fail(GBT_E_FORMAT, "%s: no group sizes", side);
    for (uint64_t i = 0; i < n; i++) total += sizes[i];
    if (s == GBT_OK && total != d->nrow)
        s = gbt__fail(GBT_E_FORMAT, "%s: group sizes sum to %llu but %s has %llu rows", side,
                      (unsigned long long)total, path, (unsigned long long)d->nrow);
    if (s == GBT_OK) s = gbt_dataset_set_groups(d, sizes, n);
    free(sizes);
    free(side);
    return s;
}

gbt_status gbt__dataset_read_side_files(gbt_dataset *d, const char *path, int weights)
{
    /* labels first: T values per row give T targets (multi-target), replacing the file's own */
    FORWARD_IF_ERROR(side_field(d, path, "label", "label"));
    /* the groups first: PATH.weight may hold one weight per group (ranking, as XGBoost's) */
    FORWARD_IF_ERROR(side_groups(d, path));
    if (weights) FORWARD_IF_ERROR(side_field(d, path, "weight", "weight"));
    FORWARD_IF_ERROR(side_field(d, path, "base_margin", "base_margin"));
    FORWARD_IF_ERROR(side_field(d, path, "lower", "label_lower_bound"));
    FORWARD_IF_ERROR(side_field(d, path, "upper", "label_upper_bound"));
    return side_field(d, path, "feature_weights", "feature_weights");
}

/*
 * XGBoost's defaults for a URI, then the options argument, then the URI's
 * options: those of the URI win.  As in XGBoost, a URI's LIBSVM indices are
 * zero-based unless it gives indexing_mode, and its CSV or TSV file has no
 * label column unless it gives label_column (a plain path keeps this
 * reader's defaults: indices guessed, the label first).
 */
static gbt_status file_options(const char *path, const char *options, const char *uri, struct gbt_file_options *o)
{
    static const char *const table_formats[] = {"format=csv", "format=tsv"};
    const char *defaults = "indexing_mode=0";
    char *all;
    gbt_status s;
    if (uri == NULL || uri[0] == '\0') return parse_options(options, o);
    for (int i = 0; i < 2; i++) {
        const size_t n = strlen(table_formats[i]);
        for (const char *p = uri; (p = strstr(p, table_formats[i])) != NULL; p += n)
            if ((p == uri || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
                defaults = "indexing_mode=0,label_column=-1";
    }
    FORWARD_IF_ERROR(gbt__alloc(&all, strlen(defaults) + (options ? strlen(options) : 0) + strlen(uri) + 3, 1, 0,
                                "options"));
    sprintf(all, "%s,%s%s%s", defaults, options ? options : "", options && options[0] ? "," : "", uri);
    s = parse_options(all, o);
    free(all);
    if (s != GBT_OK) gbt__fail_context(s, "%s", path);
    return s;
}

/* Whether path is a regular file written by gbt_dataset_save_binary (a pipe is read as text: peeking would eat it). */
static int is_binary_file(const char *path)
{
    struct stat st;
    int binary = 0;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && gbt_dataset_is_binary(path, &binary) == GBT_OK && binary;
}

gbt_status gbt__file_open(const char *path, const char *options, struct gbt_file_options *o,
                          struct gbt_line_reader *lr, char **file, char **cache, int *binary)
{
    char *uri;
    gbt_status s;
    *binary = 0;
    memset(o, 0, sizeof *o);
    FORWARD_IF_ERROR(split_uri(path, file, &uri, cache));
    if (is_binary_file(*file)) {
        /* its options and side files do not apply */
        free(uri);
        *binary = 1;
        return GBT_OK;
    }
    s = file_options(*file, options, uri, o);
    free(uri);
    /* one reader for the guess and the data: a pipe can be read only once */
    if (s == GBT_OK) s = gbt__lines_open(lr, *file);
    if (s == GBT_OK) {
        lr->threads = gbt__threads(o->nthread);
        lr->progress = o->progress;
        s = o->format == GBT_FMT_GUESS ? guess_format(lr, o->csv.header, &o->format) : GBT_OK;
        if (s != GBT_OK) gbt__lines_close(lr);
    }
    if (s != GBT_OK) {
        gbt__file_options_free(o);
        free(*file);
        free(*cache);
        *file = *cache = NULL;
    }
    return s;
}

gbt_status gbt__file_read_rows(struct gbt_line_reader *lr, struct gbt_file_options *o, gbt_dataset **out)
{
    gbt_status s;
    if (o->format == GBT_FMT_LIBSVM) {
        s = gbt__read_libsvm(lr, out);
        if (s == GBT_OK) (*out)->layout.format = GBT_FILE_LIBSVM;
        return s;
    }
    o->csv.delim = o->format == GBT_FMT_TSV ? '\t' : o->delimiter ? o->delimiter : ',';
    return gbt__read_delimited(lr, &o->csv, out); /* sets the layout */
}

gbt_status gbt__side_weights(const char *path, float **w, uint64_t *n)
{
    char *side;
    void *raw = NULL;
    gbt_status s;
    *w = NULL;
    *n = 0;
    FORWARD_IF_ERROR(side_path(path, "weight", &side));
    if (!exists(side)) {
        free(side);
        return GBT_OK;
    }
    s = read_numbers(side, 0, 0, &raw, n);
    *w = raw;
    for (uint64_t i = 0; s == GBT_OK && i < *n; i++)
        if ((*w)[i] < 0)
            s = gbt__fail(GBT_E_FORMAT, "%s: weight %g of row %llu is negative", side, (double)(*w)[i],
                          (unsigned long long)i);
    free(side);
    if (s != GBT_OK) {
        free(*w);
        *w = NULL;
        *n = 0;
    }
    return s;
}

static gbt_status read_file(struct gbt_line_reader *lr, const char *path, struct gbt_file_options *o,
                            gbt_dataset **out)
{
    gbt_dataset *d = NULL;
    gbt_status s;
    RETURN_ERROR_IF(o->batch_bytes, GBT_E_INVALID_ARG,
                    "%s: option 'batch_bytes' is for reading in batches (gbt_dataset_from_file_iter; gbtrain: "
                    "the training data as PATH#CACHE)", path);
    s = gbt__file_read_rows(lr, o, &d);
    if (s == GBT_OK && o->format == GBT_FMT_LIBSVM) s = gbt__dataset_set_index_base(d, o->indexing_mode);
    if (s == GBT_OK) s = gbt__file_apply_types(o, path, d);
    if (s == GBT_OK && gbt__lines_progress(lr))
        gbt__log(GBT_LOG_INFO, GBT_LOG_INFO, "read %s: %llu rows x %llu columns, %.0f MB in %.1fs", path,
                 (unsigned long long)d->nrow, (unsigned long long)d->ncol, (double)lr->offset / 1e6,
                 gbt__now() - lr->t_start);
    if (s == GBT_OK && o->side_files) s = gbt__dataset_read_side_files(d, path, 1);
    if (s != GBT_OK) {
        gbt_dataset_free(d);
        return s;
    }
    *out = d;
    return GBT_OK;
}

gbt_status gbt__dataset_read_file(const char *path, const char *options, const struct gbt_cat_dict *cats,
                                  uint64_t ncats, gbt_dataset **out)
{
    struct gbt_file_options o;
    struct gbt_line_reader lr;
    char *file, *cache;
    int binary;
    gbt_status s;
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(path);
    FORWARD_IF_ERROR(gbt__file_open(path, options, &o, &lr, &file, &cache, &binary));
    if (cache)
        gbt__log(GBT_LOG_WARNING, GBT_LOG_WARNING,
                 "%s: '#%s' (XGBoost's external-memory cache) ignored: this reads the data into memory (gbtrain "
                 "and gbpredict read data named so in batches; the C API: gbt_dataset_from_file_iter, "
                 "gbt_file_batches_open)",
                 path, cache);
    if (binary) {
        s = gbt_dataset_load_binary(file, out);
    } else {
        o.csv.cats = cats;
        o.csv.ncats = ncats;
        s = read_file(&lr, file, &o, out);
        gbt__lines_close(&lr);
    }
    gbt__file_options_free(&o);
    free(file);
    free(cache);
    return s;
}

gbt_status gbt_dataset_from_file(const char *path, const char *options, gbt_dataset **out)
{
    return gbt__dataset_read_file(path, options, NULL, 0, out);
}
