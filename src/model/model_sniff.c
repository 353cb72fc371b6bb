/*
 * model_sniff.c - recognises files that are not gbt models but are often
 * given as one: models of XGBoost in its old binary format and LightGBM,
 * and data files (arguments given in the wrong order), so that loading
 * says what the file is and what to do instead of a JSON parser's
 * complaint about its first byte.  (XGBoost's UBJSON models are read.)
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/error.h"

#define XGB_ADVICE                                                                  \
    "gbt reads XGBoost models in their JSON and UBJSON formats: save it from XGBoost "\
    "with Booster.save_model(\"model.json\") or (\"model.ubj\") and give gbt that file"

/* Whether `needle` (n bytes) occurs in the first `len` bytes of `text`. */
static int contains(const char *text, size_t len, const char *needle, size_t n)
{
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(text + i, needle, n) == 0) return 1;
    return 0;
}

/* Whether [s, e) is a number or a missing value as the data readers take it. */
static int is_value(const char *s, const char *e)
{
    char buf[64], *end;
    size_t n = (size_t)(e - s);
    if (n == 0) return 1; /* an empty CSV field is a missing value */
    if (n >= sizeof buf) return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (strcmp(buf, "NA") == 0) return 1;
    strtod(buf, &end);
    return end != buf && *end == '\0';
}

/* Whether [s, e) is a LIBSVM feature "index:value" or "qid:N". */
static int is_libsvm_pair(const char *s, const char *e)
{
    const char *colon = memchr(s, ':', (size_t)(e - s));
    if (colon == NULL || colon + 1 == e) return 0;
    if (colon - s == 3 && memcmp(s, "qid", 3) == 0) return is_value(colon + 1, e);
    for (const char *p = s; p < colon; p++)
        if (*p < '0' || *p > '9') return 0;
    return colon > s && is_value(colon + 1, e);
}

/*
 * The data format a line [s, e) is written in: "CSV", "TSV", "LIBSVM", or
 * NULL when it is not a line of data.  A line cut by the end of the look-ahead
 * is judged on its complete fields.
 */
static const char *data_line(const char *s, const char *e, int cut)
{
    char sep = memchr(s, '\t', (size_t)(e - s)) ? '\t' : memchr(s, ',', (size_t)(e - s)) ? ',' : ' ';
    int nfield = 0;
    for (;;) {
        const char *f;
        if (sep == ' ')
            while (s < e && (*s == ' ' || *s == '\t')) s++;
        if (s == e && (sep == ' ' || nfield == 0)) break;
        for (f = s; f < e && *f != sep; f++) {
        }
        if (f == e && cut) break;
        if (sep == ' ' && nfield > 0 ? !is_libsvm_pair(s, f) : !is_value(s, f) || (sep == ' ' && f == s))
            return NULL;
        nfield++;
        if (f == e) break;
        s = f + 1;
    }
    if (sep == ' ') return nfield > 0 ? "LIBSVM" : NULL;
    return nfield > 1 ? (sep == ',' ? "CSV" : "TSV") : NULL;
}

/*
 * The data format of a text that is not JSON, judged on its first line, or
 * its second after a line of CSV/TSV column names; NULL when it is not data.
 */
static const char *data_format(const char *text, size_t len, int *header)
{
    const char *end = text + (len < 4096 ? len : 4096), *s = text;
    int line = 0;
    *header = 0;
    while (s < end && line < 2) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        const char *kind;
        int cut = e == NULL && end < text + len;
        if (e == NULL) e = end;
        if (e > s && e[-1] == '\r') e--;
        if (e == s || *s == '#') { /* blank lines and comments, as the readers skip them */
            s = e < end ? e + 1 : end;
            if (s < end && *s == '\n') s++;
            continue;
        }
        kind = data_line(s, e, cut);
        if (kind) {
            *header = line == 1;
            return kind;
        }
        if (line == 0 && !memchr(s, ',', (size_t)(e - s)) && !memchr(s, '\t', (size_t)(e - s))) return NULL;
        line++;
        s = e + 1;
        if (s < end && *s == '\n') s++;
    }
    return NULL;
}

gbt_status gbt__model_sniff(const char *text, size_t len, const char *what)
{
    size_t head = len < 4096 ? len : 4096;
    const char *fmt;
    int header;
    if (len >= 4 && memcmp(text, "binf", 4) == 0)
        return gbt__fail(GBT_E_FORMAT, "%s: an XGBoost model in its old binary format, not a gbt model; "
                         XGB_ADVICE, what);
    if (memchr(text, '\0', head) &&
        (contains(text, head, "\x06\0\0\0\0\0\0\0gbtree", 14) || contains(text, head, "\x04\0\0\0\0\0\0\0dart", 12) ||
         contains(text, head, "\x08\0\0\0\0\0\0\0gblinear", 16)))
        return gbt__fail(GBT_E_FORMAT, "%s: an XGBoost model in its old binary format, not a gbt model; "
                         XGB_ADVICE, what);
    if (len >= 14 && (memcmp(text, "tree\nversion=", 13) == 0 || memcmp(text, "tree\r\nversion=", 14) == 0))
        return gbt__fail(GBT_E_FORMAT, "%s: a LightGBM text model, not a gbt model; gbt does not read LightGBM "
                         "models: train a gbt model with gbtrain on the same data", what);
    if (len >= 9 && memcmp(text, "GBTDMAT", 7) == 0 && text[7] >= '1' && text[7] <= '9' && text[8] == '\n')
        return gbt__fail(GBT_E_FORMAT, "%s: a gbt binary dataset (docs/binary-format.md), not a model: a data file "
                         "was given where the model file is expected (arguments in the wrong order?)", what);
    if ((fmt = data_format(text, len, &header)) != NULL)
        return gbt__fail(GBT_E_FORMAT, "%s: %s data%s, not a model: a data file was given where the model "
                         "file is expected (arguments in the wrong order?)", what, fmt,
                         header ? " with a header line" : "");
    return GBT_OK;
}
