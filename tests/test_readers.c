/*
 * test_readers.c - LIBSVM, CSV and TSV files, side files, and every kind of
 * bad input the readers must refuse with the file and line in the message.
 */
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "data/dataset.h"
#include "data/io.h"
#include <unistd.h>

#include "testutil.h"

static gbt_dataset *load(const char *path, const char *opts)
{
    gbt_dataset *d = NULL;
    if (gbt_dataset_from_file(path, opts, &d) != GBT_OK) diag("load %s: %s", path, gbt_last_error());
    return d;
}

static int field_is(const gbt_dataset *d, const char *field, const float *want, uint64_t n)
{
    const float *v;
    uint64_t len;
    if (gbt_dataset_get_field(d, field, &v, &len) != GBT_OK || len != n) return 0;
    for (uint64_t i = 0; i < n; i++)
        if (!(v[i] == want[i])) return 0;
    return 1;
}

/* Predicting with a stump on feature f splits rows by value: read values back through a model. */
static void check_shape(const gbt_dataset *d, uint64_t nrow, uint64_t ncol, const char *what)
{
    uint64_t r = 0, c = 0;
    gbt_dataset_shape(d, &r, &c);
    ok(r == nrow && c == ncol, "%s: %llu rows, %llu columns (got %llu x %llu)", what,
       (unsigned long long)nrow, (unsigned long long)ncol, (unsigned long long)r, (unsigned long long)c);
}

/* Expects loading to fail with `status` and a message containing each needle. */
static void expect_error(const char *path, const char *opts, gbt_status status, const char *n1,
                         const char *n2, const char *what)
{
    gbt_dataset *d = (gbt_dataset *)1;
    gbt_status s = gbt_dataset_from_file(path, opts, &d);
    const char *msg = gbt_last_error();
    ok(s == status && d == (gbt_dataset *)1 && strstr(msg, n1) && (n2 == NULL || strstr(msg, n2)),
       "%s: refused with \"%s\"", what, msg);
}

static void test_libsvm(void)
{
    const char *p = tu_write("a.libsvm", "1 1:0.5 3:2\n0 2:1.5\r\n# a comment line\n\n1 qid:1 1:1\n");
    const char *q;
    gbt_dataset *d;
    float labels[] = {1, 0, 1};
    expect_error(p, NULL, GBT_E_FORMAT, "qid", ":5", "qid on only some lines");
    p = tu_write("b.libsvm", "1 1:0.5 3:2 # trailing comment\n0 2:1.5\r\n\n  1 1:1\n");
    d = load(p, NULL);
    ok(d != NULL, "LIBSVM with CRLF, comments and blank lines loads");
    if (d) {
        check_shape(d, 3, 3, "no index 0: one-based, index i is column i - 1 (max index 3 -> 3 columns)");
        ok(field_is(d, "label", labels, 3), "labels read");
        gbt_dataset_free(d);
    }
    /* zero-based and one-based files agree on columns */
    p = tu_write("zero.libsvm", "1 0:1 2:5\n0 1:2\n");
    q = tu_write("one.libsvm", "1 1:1 3:5\n0 2:2\n");
    d = load(p, "format=libsvm");
    if (d) {
        check_shape(d, 2, 3, "zero-based file (an index 0 appears)");
        gbt_dataset_free(d);
    }
    d = load(q, "format=libsvm");
    if (d) {
        check_shape(d, 2, 3, "one-based file (no index 0): the same 3 columns");
        gbt_dataset_free(d);
    }
    d = load(q, "format=libsvm,indexing_mode=0");
    if (d) {
        check_shape(d, 2, 4, "indexing_mode=0 keeps index i as column i");
        gbt_dataset_free(d);
    }
    d = load(q, "format=libsvm,indexing_mode=1");
    if (d) {
        check_shape(d, 2, 3, "indexing_mode=1 makes index i column i - 1");
        gbt_dataset_free(d);
    }
    expect_error(p, "indexing_mode=1", GBT_E_FORMAT, "zero.libsvm:1", "feature index 0 in a file read as one-based",
                 "index 0 in a file said to be one-based");
    expect_error(p, "indexing_mode=2", GBT_E_INVALID_ARG, "indexing_mode", "0, 1 or auto", "a bad indexing_mode");
    p = tu_write("qid.libsvm", "1 qid:3 1:1\n0 qid:3 1:2\n1 qid:4 1:3\n0 qid:5 1:1\n1 qid:5 1:1\n");
    d = load(p, NULL);
    ok(d != NULL, "qid file loads");
    gbt_dataset_free(d);
    p = tu_write("noeol.libsvm", "1 1:1\n0 1:2");
    d = load(p, NULL);
    if (d) check_shape(d, 2, 1, "last line without a newline is read");
    gbt_dataset_free(d);
}

static void test_libsvm_errors(void)
{
    expect_error(tu_write("e1", ""), NULL, GBT_E_FORMAT, "no data rows", "e1", "empty file");
    expect_error(tu_write("e2", "\n\n# only comments\n"), "format=libsvm", GBT_E_FORMAT, "no data rows",
                 NULL, "file of blank lines");
    /* fuzz_readers: index 0 with NaN alone, guessed one-based, left 0 features */
    expect_error(tu_write("e2nan", "39 0:nan\n# a comment\n"), NULL, GBT_E_FORMAT, "e2nan",
                 "no features: every feature value is missing", "only missing values at index 0");
    expect_error(tu_write("e3", "1 1:1\nabc 1:2\n"), "format=libsvm", GBT_E_FORMAT, "e3:2",
                 "label 'abc' is not a number", "non-numeric label");
    expect_error(tu_write("e4", "1 1:1\n1 2:x\n"), "format=libsvm", GBT_E_FORMAT, "e4:2",
                 "'x' of feature 2 is not a number", "non-numeric value");
    expect_error(tu_write("e5", "1 -3:1\n"), "format=libsvm", GBT_E_FORMAT, "e5:1",
                 "negative feature index", "negative index");
    expect_error(tu_write("e6", "1 1.5:1\n"), "format=libsvm", GBT_E_FORMAT, "e6:1",
                 "not a non-negative integer", "non-integer index");
    expect_error(tu_write("e7", "1 1:1\n0 99999999999:1\n"), "format=libsvm", GBT_E_FORMAT, "e7:2",
                 "too large", "absurdly large index");
    expect_error(tu_write("e8", "nan 1:1\n"), "format=libsvm", GBT_E_FORMAT, "e8:1", "label is NaN",
                 "NaN label");
    expect_error(tu_write("e9", "1 1:1\ninf 1:1\n"), "format=libsvm", GBT_E_FORMAT, "e9:2",
                 "label is infinite", "infinite label");
    expect_error(tu_write("e10", "1 1:1 1:2\n"), "format=libsvm", GBT_E_FORMAT, "e10:1",
                 "appears twice", "repeated index");
    expect_error(tu_write("e10b", "1 1:1 2:2\n0 5:1 3:2 5:3\n"), "format=libsvm", GBT_E_FORMAT, "e10b:2",
                 "column 5 appears twice", "repeated index out of order");
    {
        gbt_dataset *d = load(tu_write("unsorted.libsvm", "1 4:4 2:2 3:nan\n0 1:1\n"), "indexing_mode=0");
        ok(d != NULL && d->nnz == 3 && d->indptr[1] == 2 && d->indices[0] == 2 && d->indices[1] == 4 &&
               d->values[0] == 2.0f && d->values[1] == 4.0f && d->indices[2] == 1,
           "indices out of order are sorted and NaN values dropped");
        gbt_dataset_free(d);
    }
    expect_error(tu_write("e11", "1 1:inf\n"), "format=libsvm", GBT_E_FORMAT, "e11:1", "infinite",
                 "infinite value");
    expect_error(tu_write("e12", "1 7\n"), "format=libsvm", GBT_E_FORMAT, "e12:1",
                 "not index:value", "token without a colon");
    {
        const char bin[] = {'1', ' ', '1', ':', '1', '\n', '0', '\0', 'x', '\n', 0};
        char path[512];
        FILE *f;
        snprintf(path, sizeof path, "%s/binary", tu_tmpdir());
        f = fopen(path, "wb");
        fwrite(bin, 1, 10, f);
        fclose(f);
        expect_error(path, "format=libsvm", GBT_E_FORMAT, "binary:2", "NUL byte", "binary data");
    }
    expect_error("/nonexistent/dir/file.csv", NULL, GBT_E_IO, "/nonexistent/dir/file.csv",
                 "No such file", "unreadable path");
    expect_error(tu_write("e13", "1\n0 # no features\n1\n"), "format=libsvm", GBT_E_FORMAT, "e13",
                 "no features", "lines with only labels (zero feature columns)");
    {
        const uint64_t indptr[] = {0, 0, 0};
        gbt_dataset *d = (gbt_dataset *)1;
        ok(gbt_dataset_from_csr(indptr, NULL, NULL, 2, 0, &d) == GBT_E_INVALID_ARG &&
               d == (gbt_dataset *)1 && strstr(gbt_last_error(), "no columns"),
           "CSR data with zero columns is refused (the out-pointer untouched): %s", gbt_last_error());
    }
}

static void test_csv(void)
{
    const char *p = tu_write("a.csv", "1,0.5,,3\r\n0,NA,2,nan\n\n1,\"7\", 8 ,-1\n");
    gbt_dataset *d = load(p, NULL);
    float labels[] = {1, 0, 1};
    ok(d != NULL, "CSV with CRLF, quotes, blanks, empty/NA/nan fields loads");
    if (d) {
        check_shape(d, 3, 3, "label column removed from the features");
        ok(field_is(d, "label", labels, 3), "CSV labels read");
        gbt_dataset_free(d);
    }
    p = tu_write("h.csv", "y,a,b\n1,2,3\n0,4,5\n");
    d = load(p, "header=1");
    if (d) check_shape(d, 2, 2, "header line skipped");
    gbt_dataset_free(d);
    p = tu_write("last.csv", "2,3,1\n4,5,0\n");
    d = load(p, "label_column=2");
    {
        float want[] = {1, 0};
        ok(d && field_is(d, "label", want, 2), "label_column=2 takes the last column");
    }
    gbt_dataset_free(d);
    p = tu_write("nolabel.csv", "2,3\n4,5\n");
    d = load(p, "label_column=-1");
    if (d) {
        const float *v;
        uint64_t n;
        check_shape(d, 2, 2, "label_column=-1: every column is a feature");
        gbt_dataset_get_field(d, "label", &v, &n);
        ok(n == 0, "no labels");
    }
    gbt_dataset_free(d);
    p = tu_write("a.tsv", "1\t2\t3\n0\t\t5\n");
    d = load(p, NULL);
    if (d) check_shape(d, 2, 2, "TSV is guessed from tabs");
    gbt_dataset_free(d);
    /* an empty field between tabs: its parse must not skip the tab (a blank) into the next field */
    d = load(tu_write("b.tsv", "1\t2\t3\t4\n0\t\t5\t6\n1\t7\t \t8\n"), NULL);
    ok(d != NULL && d->nrow == 3 && d->ncol == 3 && isnan(d->dense[3]) && d->dense[4] == 5.0f &&
           d->dense[5] == 6.0f && isnan(d->dense[7]) && d->dense[8] == 8.0f,
       "TSV: empty and blank fields are missing, the next fields keep their values");
    gbt_dataset_free(d);
    d = load(tu_write("c.libsvm", "1 1: 5 2:3\n"), NULL);
    ok(d == NULL && strstr(gbt_last_error(), "value '' of feature 1 is not a number"),
       "LIBSVM: 'i:' followed by a blank has no value (the blank is not skipped to the next token)");
    gbt_dataset_free(d);
    p = tu_write("m.csv", "1,-999,3\n0,4,-999\n");
    d = load(p, "missing=-999");
    ok(d != NULL, "missing=-999 accepted");
    gbt_dataset_free(d);
}

static void test_csv_errors(void)
{
    expect_error(tu_write("r.csv", "1,2,3\n0,4\n"), NULL, GBT_E_FORMAT, "r.csv:2",
                 "2 fields, but line 1 has 3", "ragged rows");
    expect_error(tu_write("r2.csv", "1,2,3\n0,x\n"), NULL, GBT_E_FORMAT, "r2.csv:2",
                 "2 fields, but line 1 has 3", "a short row is refused for its field count, not its text");
    expect_error(tu_write("r3.csv", "1,2,3\n0,4,5,6\n"), NULL, GBT_E_FORMAT, "r3.csv:2",
                 "4 fields, but line 1 has 3", "and so is a long one of numbers");
    expect_error(tu_write("nan.csv", "1,2,3\n0,4,inf\n"), NULL, GBT_E_FORMAT, "nan.csv:2",
                 "value in column 2 is infinite", "an infinite value");
    expect_error(tu_write("n.csv", "1,2,3\n0,4,abc\n"), NULL, GBT_E_FORMAT, "n.csv:2",
                 "'abc' in column 2 is not a number", "non-numeric value");
    expect_error(tu_write("hdr.csv", "label,a,b\n1,2,3\n"), NULL, GBT_E_FORMAT, "hdr.csv:1",
                 "header=1", "a header line without header=1 gets a hint");
    expect_error(tu_write("l.csv", "1,2\nx,3\n"), NULL, GBT_E_FORMAT, "l.csv:2", "label 'x'",
                 "non-numeric label");
    expect_error(tu_write("ln.csv", "1,2\nnan,3\n"), NULL, GBT_E_FORMAT, "ln.csv:2",
                 "label", "NaN label");
    expect_error(tu_write("lc.csv", "1,2\n"), "label_column=5", GBT_E_FORMAT, "lc.csv:1",
                 "label column 5 does not exist", "label column out of range");
    expect_error(tu_write("o.csv", "1,2\n"), "colour=red", GBT_E_INVALID_ARG, "unknown option 'colour'",
                 NULL, "unknown option");
    expect_error(tu_write("o2.csv", "1,2\n"), "format=xls", GBT_E_INVALID_ARG, "libsvm, csv or tsv",
                 NULL, "unknown format");
    expect_error(tu_write("only.csv", "1\n2\n"), "format=csv", GBT_E_FORMAT, "no feature columns",
                 NULL, "label only");
}

static void test_side_files(void)
{
    char p[512];
    gbt_dataset *d;
    float w[] = {1, 2, 0.5f, 3}, bm[] = {0.1f, 0.2f, 0.3f, 0.4f};
    snprintf(p, sizeof p, "%s", tu_write("s.csv", "1,1\n0,2\n1,3\n0,4\n"));
    tu_write("s.csv.weight", "1\n2\n0.5\n3\n");
    tu_write("s.csv.base_margin", "0.1 0.2\n0.3 0.4\n");
    tu_write("s.csv.group", "2\n2\n");
    d = load(p, NULL);
    ok(d && field_is(d, "weight", w, 4), "FILE.weight is read");
    ok(d && field_is(d, "base_margin", bm, 4), "FILE.base_margin is read");
    gbt_dataset_free(d);
    d = load(p, "side_files=0");
    {
        const float *v;
        uint64_t n = 1;
        if (d) gbt_dataset_get_field(d, "weight", &v, &n);
        ok(d && n == 0, "side_files=0 ignores them");
    }
    gbt_dataset_free(d);
    tu_write("s.csv.weight", "1\n2\n3\n");
    expect_error(p, NULL, GBT_E_FORMAT, "s.csv.weight", "3 weights for 4 rows", "wrong weight count");
    tu_write("s.csv.weight", "1\n-2\n3\n4\n");
    expect_error(p, NULL, GBT_E_FORMAT, "s.csv.weight", "negative", "negative weight");
    tu_write("s.csv.weight", "1\n2\n3\n4\n");
    tu_write("s.csv.group", "3\n2\n");
    expect_error(p, NULL, GBT_E_FORMAT, "s.csv.group", "sum to 5", "groups not summing to the rows");
    /* group sizes are integers: 16777217 is not a float, 4294967296 not a uint32 */
    tu_write("s.csv.group", "16777217\n");
    expect_error(p, NULL, GBT_E_FORMAT, "s.csv.group", "sum to 16777217 but", "a group size above 2^24 read exactly");
    tu_write("s.csv.group", "4294967295\n");
    expect_error(p, NULL, GBT_E_FORMAT, "s.csv.group", "sum to 4294967295 but", "the largest group size read exactly");
    tu_write("s.csv.group", "4294967296\n");
    expect_error(p, NULL, GBT_E_FORMAT, "s.csv.group:1", "[1, 4294967295]", "a group size of 2^32 refused");
    tu_write("s.csv.group", "2\n0\n2\n");
    expect_error(p, NULL, GBT_E_FORMAT, "s.csv.group:2", "[1, 4294967295]", "a group size of 0 refused");
    tu_write("s.csv.group", "2.5\n1.5\n");
    expect_error(p, NULL, GBT_E_FORMAT, "s.csv.group:1", "'2.5' is not a positive integer", "a fractional group size refused");
    tu_write("s.csv.group", "2\n2\n");
    tu_write("s.csv.base_margin", "0.1\n0.2\n0.3\n");
    expect_error(p, NULL, GBT_E_FORMAT, "s.csv.base_margin", "3 values", "base_margin of the wrong length");
}

/*
 * A data file whose path is 4095 bytes, the longest Linux opens: "PATH.weight"
 * cut to 4095 bytes would be PATH itself, read as its own side file.
 */
static void test_long_path(void)
{
    char path[4096];
    size_t len = (size_t)snprintf(path, sizeof path, "%s", tu_tmpdir());
    FILE *f;
    gbt_dataset *d = NULL;
    uint64_t nrow = 0;
    while (len + 1 + 200 + 1 + 200 < 4095) {
        path[len++] = '/';
        memset(path + len, 'd', 200);
        len += 200;
        path[len] = '\0';
        mkdir(path, 0755);
    }
    path[len++] = '/';
    memset(path + len, 'f', 4095 - len);
    path[4095] = '\0';
    f = fopen(path, "w");
    if (f == NULL) {
        skip("cannot create a file with a 4095-byte path");
        return;
    }
    fputs("1,1\n0,2\n1,3\n", f);
    fclose(f);
    if (gbt_dataset_from_file(path, NULL, &d) != GBT_OK) diag("%s", gbt_last_error());
    ok(d && gbt_dataset_shape(d, &nrow, NULL) == GBT_OK && nrow == 3,
       "a data file with a 4095-byte path loads (3 rows), not taken for its own side file");
    gbt_dataset_free(d);
    remove(path);
}

/* ---- parallel reading: every split of the text gives the serial reader's dataset and first error ---- */

struct gen_text {
    char *s;
    size_t len, cap;
};

static void gen_put(struct gen_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gen_put(struct gen_text *t, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (t->cap - t->len < 256) {
        t->cap = t->cap ? t->cap * 2 : 1 << 16;
        t->s = realloc(t->s, t->cap);
        if (t->s == NULL) exit(2);
    }
    va_start(ap, fmt);
    n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* A number in one of many spellings; *v is what strtof makes of it. */
static void gen_number(char *buf, size_t len, float *v)
{
    const double x = (tu_unit() - 0.3) * pow(10.0, (int)(tu_unit() * 12) - 6);
    switch ((int)(tu_unit() * 9)) {
    case 0: snprintf(buf, len, "%.9g", x); break;
    case 1: snprintf(buf, len, "%.3f", x); break;
    case 2: snprintf(buf, len, "%e", x); break;
    case 3: snprintf(buf, len, "%d", (int)(x * 1000)); break;
    case 4: snprintf(buf, len, "%.25f", x); break; /* long mantissa: strtof's path */
    case 5: snprintf(buf, len, "%.6g", x); break;
    case 6: snprintf(buf, len, "%.7fE-38", x); break; /* subnormal or tiny */
    case 7: snprintf(buf, len, "+%.4g", fabs(x)); break;
    default: snprintf(buf, len, "%.17g", x); break;
    }
    *v = strtof(buf, NULL);
}

/* Blank, comment and CRLF lines between rows; returns the line the next row will be on. */
static uint64_t gen_filler(struct gen_text *t, uint64_t line)
{
    const double u = tu_unit();
    if (u < 0.02) gen_put(t, "\n");
    else if (u < 0.03) gen_put(t, "# a comment, 1,2,3\n");
    else if (u < 0.04) gen_put(t, "  \t\r\n");
    else return line;
    return line + 1;
}

/* CSV or TSV: label first, then ncol values (some missing, quoted or padded). */
static char *gen_csv(char delim, uint64_t nrow, uint64_t ncol, float *x, float *y, uint32_t *lines)
{
    struct gen_text t = {0};
    char num[128];
    uint64_t line = 1;
    for (uint64_t r = 0; r < nrow; r++) {
        line = gen_filler(&t, line);
        lines[r] = (uint32_t)line++;
        gen_number(num, sizeof num, &y[r]);
        gen_put(&t, "%s", num);
        for (uint64_t c = 0; c < ncol; c++) {
            const double u = tu_unit();
            float *v = &x[r * ncol + c];
            gen_number(num, sizeof num, v);
            if (u < 0.03) {
                gen_put(&t, "%c%s", delim, u < 0.01 ? "" : u < 0.02 ? "NA" : "nan");
                *v = NAN;
            } else if (u < 0.06) {
                gen_put(&t, "%c \"%s\" ", delim, num);
            } else {
                gen_put(&t, "%c%s", delim, num);
            }
        }
        gen_put(&t, tu_unit() < 0.1 ? "\r\n" : "\n");
    }
    return t.s;
}

/* LIBSVM: label, qid, then increasing indices from 1. */
static char *gen_libsvm(uint64_t nrow, uint64_t ncol, float *x, float *y, uint32_t *lines)
{
    struct gen_text t = {0};
    char num[128];
    uint64_t line = 1;
    for (uint64_t r = 0; r < nrow; r++) {
        line = gen_filler(&t, line);
        lines[r] = (uint32_t)line++;
        gen_number(num, sizeof num, &y[r]);
        gen_put(&t, "%s qid:%llu", num, (unsigned long long)(r / 7));
        for (uint64_t c = 0; c < ncol; c++) {
            x[r * ncol + c] = NAN;
            if (tu_unit() < 0.3) continue;
            gen_number(num, sizeof num, &x[r * ncol + c]);
            gen_put(&t, "%s%llu:%s", tu_unit() < 0.1 ? " \t" : " ", (unsigned long long)c + 1, num);
        }
        gen_put(&t, "%s", tu_unit() < 0.05 ? " # note\n" : tu_unit() < 0.1 ? "\r\n" : "\n");
    }
    return t.s;
}

/* kind: ',' or '\t' (CSV, TSV), else LIBSVM */
static gbt_status read_split(const char *path, char kind, int threads, size_t block, gbt_dataset **d)
{
    struct gbt_line_reader lr;
    struct gbt_csv_options o = {.delim = kind};
    const int csv = kind == ',' || kind == '\t';
    gbt_status s = gbt__lines_open(&lr, path);
    if (s != GBT_OK) return s;
    lr.threads = threads;
    lr.block = block;
    s = csv ? gbt__read_delimited(&lr, &o, d) : gbt__read_libsvm(&lr, d);
    gbt__lines_close(&lr);
    return s;
}

static int same_float(float a, float b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* Whether d holds exactly x (NaN = missing/absent), y and the lines. */
static int dataset_is(const gbt_dataset *d, uint64_t nrow, uint64_t ncol, const float *x, const float *y,
                      const uint32_t *lines)
{
    uint64_t present = 0;
    /* LIBSVM: indices from 1 and index i column i here, so one column more */
    if (d->nrow != nrow || d->ncol != ncol + (d->dense == NULL)) return 0;
    for (uint64_t i = 0; i < nrow * ncol; i++) present += !isnan(x[i]);
    if (d->nnz != present) return 0;
    for (uint64_t r = 0; r < nrow; r++) {
        if (!same_float(d->label[r], y[r]) || d->row_line[r] != lines[r]) return 0;
        if (d->dense) {
            for (uint64_t c = 0; c < ncol; c++)
                if (!same_float(d->dense[r * ncol + c], x[r * ncol + c])) return 0;
        } else {
            uint64_t k = d->indptr[r];
            for (uint64_t c = 0; c < ncol; c++) {
                if (isnan(x[r * ncol + c])) continue;
                if (k >= d->indptr[r + 1] || d->indices[k] != c + 1 || !same_float(d->values[k], x[r * ncol + c]))
                    return 0;
                k++;
            }
            if (k != d->indptr[r + 1]) return 0;
        }
    }
    return 1;
}

static const struct {
    int threads;
    size_t block;
} splits[] = {{1, GBT_BLOCK_PER_THREAD}, {2, GBT_BLOCK_PER_THREAD}, {4, GBT_BLOCK_PER_THREAD},
              {3, 1000}, {2, 4096}, {8, 65536}, {5, 100000}};

/* Replaces row r's line (line lines[r]) in text with `with`, padded with blanks to its length. */
static void spoil(char *text, const uint32_t *lines, uint64_t r, const char *with)
{
    char *p = text;
    for (uint32_t l = 1; l < lines[r]; l++) p = strchr(p, '\n') + 1;
    memcpy(p, with, strlen(with));
    for (p += strlen(with); *p != '\n' && *p != '\r'; p++) *p = ' ';
}

/* kind: ',' or '\t' (CSV, TSV), 0 for LIBSVM */
static void test_parallel(char delim)
{
    const int csv = delim != 0;
    const uint64_t nrow = 30000, ncol = csv ? 9 : 12;
    const char *kind = delim == ',' ? "CSV" : csv ? "TSV" : "LIBSVM";
    const int nsplits = (int)(sizeof splits / sizeof *splits);
    float *x = malloc(nrow * ncol * sizeof *x), *y = malloc(nrow * sizeof *y);
    uint32_t *lines = malloc(nrow * sizeof *lines);
    char *text, *bad;
    char first_msg[1024], name[64], want[64];
    int good = 1, same_error = 1;
    tu_seed(delim == ',' ? 11 : csv ? 13 : 12);
    text = csv ? gen_csv(delim, nrow, ncol, x, y, lines) : gen_libsvm(nrow, ncol, x, y, lines);
    snprintf(name, sizeof name, "par.%s", delim == ',' ? "csv" : csv ? "tsv" : "libsvm");
    tu_write(name, text);
    for (int i = 0; i < nsplits; i++) {
        gbt_dataset *d = NULL;
        const char *path = tu_write(name, text);
        gbt_status s = read_split(path, delim, splits[i].threads, splits[i].block, &d);
        if (s != GBT_OK || !dataset_is(d, nrow, ncol, x, y, lines)) {
            diag("%s, %d threads, %zu-byte blocks: %s", kind, splits[i].threads, splits[i].block,
                 s != GBT_OK ? gbt_last_error() : "a different dataset");
            good = 0;
        }
        gbt_dataset_free(d);
    }
    ok(good, "%s: %llu rows read with 1 to 8 threads and blocks of 100 bytes to 8 MiB per thread give the "
             "same values (bits, by strtof), labels and line numbers", kind, (unsigned long long)nrow);

    /* two bad lines far apart, and qid vs. a later bad token: the first in file order is reported */
    bad = strdup(text);
    spoil(bad, lines, nrow - 5, delim == ',' ? "zzz,1,2,3,4,5,6,7,8,9" : csv ? "zzz\t1\t2\t3\t4\t5\t6\t7\t8\t9" : "zzz");
    spoil(bad, lines, 12345, delim == ',' ? "yyy,1,2,3,4,5,6,7,8,9" : csv ? "yyy\t1\t2\t3\t4\t5\t6\t7\t8\t9" : "yyy");
    if (!csv) spoil(bad, lines, 20000, "0 1:1"); /* qid missing: after the first bad line, so not reported */
    snprintf(want, sizeof want, ":%u: label 'yyy'", (unsigned)lines[12345]);
    tu_write(name, bad);
    for (int i = 0; i < nsplits; i++) {
        gbt_dataset *d = (gbt_dataset *)1;
        gbt_status s = read_split(tu_write(name, bad), delim, splits[i].threads, splits[i].block, &d);
        const char *msg = gbt_last_error();
        if (i == 0) snprintf(first_msg, sizeof first_msg, "%s", msg);
        if (s != GBT_E_FORMAT || strstr(msg, want) == NULL || strcmp(msg, first_msg) != 0) {
            diag("%s, %d threads, %zu-byte blocks: %s", kind, splits[i].threads, splits[i].block, msg);
            same_error = 0;
        }
    }
    ok(same_error, "%s: of two bad lines, every split reports the first: %s", kind, first_msg);
    if (!csv) {
        /* a qid missing on a line before a bad token is what is reported */
        strcpy(bad, text);
        spoil(bad, lines, 9000, "0 1:1");
        spoil(bad, lines, 25000, "yyy");
        snprintf(want, sizeof want, ":%u: qid is missing", (unsigned)lines[9000]);
        same_error = 1;
        for (int i = 0; i < nsplits; i++) {
            gbt_dataset *d = NULL;
            gbt_status s = read_split(tu_write(name, bad), delim, splits[i].threads, splits[i].block, &d);
            if (s != GBT_E_FORMAT || strstr(gbt_last_error(), want) == NULL) {
                diag("%d threads, %zu-byte blocks: %s", splits[i].threads, splits[i].block, gbt_last_error());
                same_error = 0;
            }
        }
        ok(same_error, "LIBSVM: a missing qid before a bad token is reported first, with its line");
    }
    free(bad);
    free(text);
    free(x);
    free(y);
    free(lines);
}

/*
 * A line longer than the window's largest size (64 MiB) is refused when the
 * window fills, not at 1 GiB (issue 26): /dev/zero, read, has no line end.
 */
static void test_long_line(void)
{
    struct gbt_line_reader lr;
    char *line;
    size_t len;
    gbt_status s;
    if (access("/dev/zero", R_OK) != 0) {
        skip("no /dev/zero");
        skip("no /dev/zero");
        return;
    }
    expect_error("/dev/zero", "format=csv", GBT_E_FORMAT, "/dev/zero:1: line longer than 64 MiB", NULL,
                 "a line without an end (CSV)");
    ok(gbt__lines_open(&lr, "/dev/zero") == GBT_OK, "a line reader on /dev/zero");
    s = gbt__lines_next(&lr, &line, &len);
    ok(s == GBT_E_FORMAT && lr.cap <= GBT_LINE_MAX && lr.cap == (size_t)64 << 20,
       "refused with the window at 64 MiB, no more (%zu bytes): %s", lr.cap, gbt_last_error());
    gbt__lines_close(&lr);
}

/*
 * Issue 27: a UTF-8 byte-order mark (EF BB BF) before the first line, as
 * spreadsheet programs write it, is not part of the first field or name.
 */
static void test_bom(void)
{
    gbt_dataset *d;
    const char *const *names = NULL;
    uint64_t n = 0;
    float y2[] = {0, 1}, y1[] = {1};
    d = load(tu_write("bom.csv", "\xEF\xBB\xBF\"0\",1,2\n1,3,4\n"), NULL);
    ok(d && field_is(d, "label", y2, 2), "CSV: a byte-order mark before a quoted label is dropped");
    gbt_dataset_free(d);
    d = load(tu_write("bomh.csv", "\xEF\xBB\xBFy,alpha,beta\r\n1,3,4\r\n"), "header=1");
    ok(d && gbt_dataset_get_feature_names(d, &names, &n) == GBT_OK && n == 2 && names &&
           strcmp(names[0], "alpha") == 0 && field_is(d, "label", y1, 1),
       "CSV: the header after a byte-order mark names the columns as typed");
    gbt_dataset_free(d);
    d = load(tu_write("bomy.csv", "\xEF\xBB\xBF" "alpha,y\n3,1\n"), "header=1,label_column=1");
    names = NULL; /* (the message below reads them: fetched before ok's arguments) */
    n = 0;
    if (d && gbt_dataset_get_feature_names(d, &names, &n) != GBT_OK) names = NULL;
    ok(d && n == 1 && names && strcmp(names[0], "alpha") == 0,
       "CSV: the first feature's name has no byte-order mark (got '%s')", names && n ? names[0] : "");
    gbt_dataset_free(d);
    d = load(tu_write("bom.tsv", "\xEF\xBB\xBF" "1\t2\t3\n0\t4\t5\n"), NULL);
    ok(d != NULL, "TSV with a byte-order mark: guessed and read");
    if (d) check_shape(d, 2, 2, "TSV with a byte-order mark");
    gbt_dataset_free(d);
    d = load(tu_write("bom.libsvm", "\xEF\xBB\xBF" "1 1:0.5\n0 2:1\n"), NULL);
    ok(d && field_is(d, "label", (float[]){1, 0}, 2), "LIBSVM: a byte-order mark before the first label is dropped");
    gbt_dataset_free(d);
    tu_write("bomw.csv", "1,2\n0,3\n");
    tu_write("bomw.csv.weight", "\xEF\xBB\xBF" "0.5\n2\n");
    d = load(tu_write("bomw.csv", "1,2\n0,3\n"), NULL);
    ok(d && field_is(d, "weight", (float[]){0.5f, 2}, 2), "a side file's byte-order mark is dropped too");
    gbt_dataset_free(d);
    /* only at the start of the file: one inside a line is still an error */
    expect_error(tu_write("bom2.csv", "1,2\n\xEF\xBB\xBF" "0,3\n"), NULL, GBT_E_FORMAT, "bom2.csv:2",
                 "not a number", "a byte-order mark on line 2");
    d = load(tu_write("bomonly.csv", "\xEF\xBB"), NULL);
    ok(d == NULL, "two bytes of a mark are not a mark: refused (%s)", gbt_last_error());
}

/*
 * Issue 27: XGBoost's data URIs, the delimiter option, and the training
 * file's layout recorded in the model (gbt_booster_get_attr "training_file").
 */
static void test_uri_layout(void)
{
    gbt_dataset *d;
    gbt_booster *b = NULL, *b2 = NULL;
    char buf[128], *saved = NULL;
    size_t len = 0;
    float y[] = {1, 0, 1, 0};
    const char *p = tu_write("u.txt", "2 0:1 1:5\n0 0:2\n");
    char uri[600];
    snprintf(uri, sizeof uri, "%s?format=libsvm&indexing_mode=0", p);
    d = load(uri, "format=csv");
    ok(d != NULL, "PATH?format=libsvm&indexing_mode=0: the URI's options win over the argument's");
    if (d) check_shape(d, 2, 2, "URI: zero-based LIBSVM");
    gbt_dataset_free(d);
    /* XGBoost's defaults for a URI (its reader, run by hand on these files:
       "1:5" is column 1 of 2 zero-based; a CSV's first column is a feature) */
    p = tu_write("u1.txt", "2 1:5\n0 2:2\n");
    snprintf(uri, sizeof uri, "%s?format=libsvm", p);
    d = load(uri, NULL);
    check_shape(d, 2, 3, "PATH?format=libsvm: zero-based, as XGBoost reads it");
    gbt_dataset_free(d);
    snprintf(uri, sizeof uri, "%s?format=libsvm&indexing_mode=-1", p);
    d = load(uri, NULL);
    check_shape(d, 2, 2, "indexing_mode=-1: guessed one-based (no index 0), as XGBoost guesses");
    gbt_dataset_free(d);
    snprintf(uri, sizeof uri, "%s?format=csv", tu_write("u.csv", "1,2\n0,3\n"));
    d = load(uri, NULL);
    check_shape(d, 2, 2, "PATH?format=csv: no label column, as XGBoost reads it");
    gbt_dataset_free(d);
    d = load(uri, "label_column=0");
    check_shape(d, 2, 1, "PATH?format=csv: what the URI leaves out comes from the options argument");
    gbt_dataset_free(d);
    snprintf(uri, sizeof uri, "%s/u.csv?format=csv&label_column=0", tu_tmpdir());
    d = load(uri, NULL);
    check_shape(d, 2, 1, "PATH?format=csv&label_column=0: the label first");
    gbt_dataset_free(d);
    p = tu_write("u.txt", "2 0:1 1:5\n0 0:2\n");
    snprintf(uri, sizeof uri, "%s#u.cache", p);
    d = load(uri, NULL);
    ok(d != NULL, "PATH#CACHE reads PATH (XGBoost's external-memory cache is ignored)");
    gbt_dataset_free(d);
    snprintf(uri, sizeof uri, "%s?format=csv&label_column=x", p);
    expect_error(uri, NULL, GBT_E_INVALID_ARG, "u.txt", "label_column", "a bad URI option names the file");
    snprintf(uri, sizeof uri, "%s/missing.csv?format=csv", tu_tmpdir());
    expect_error(uri, NULL, GBT_E_IO, "missing.csv'", NULL, "a missing file is named without its URI");
    d = load(tu_write("q?r.csv", "1,2\n0,3\n"), NULL);
    ok(d != NULL, "an existing file whose name holds '?' is that file");
    gbt_dataset_free(d);

    p = tu_write("s.csv", "1;2;9\n0;3;9\n1;4;9\n0;5;9\n");
    expect_error(p, NULL, GBT_E_FORMAT, "separated by ';'", "delimiter=;", "a ';' file is named, not guessed");
    d = load(p, "delimiter=;,label_column=0");
    ok(d && field_is(d, "label", y, 4), "delimiter=; reads it");
    if (d) check_shape(d, 4, 2, "delimiter=;");
    expect_error(p, "format=csv", GBT_E_FORMAT, "delimiter=;", NULL, "format=csv on it: the delimiter hint");
    ok(strstr(gbt_last_error(), "header") == NULL, "(not the header hint: %s)", gbt_last_error());
    expect_error(p, "delimiter=;,format=tsv", GBT_E_INVALID_ARG, "not format=tsv", NULL, "delimiter with tsv");
    ok(gbt_booster_create(&b) == GBT_OK && gbt_booster_set_param(b, "verbosity", "0") == GBT_OK &&
           gbt_booster_get_attr(b, "training_file", buf, sizeof buf) == GBT_E_STATE,
       "no training file before training");
    ok(d && gbt_booster_train(b, d, 1, NULL, NULL, 0) == GBT_OK &&
           gbt_booster_get_attr(b, "training_file", buf, sizeof buf) == GBT_OK &&
           strcmp(buf, "format=csv,delimiter=;,header=0,label_column=0") == 0,
       "the model records the training file: %s", buf);
    ok(gbt_booster_save_to_buffer(b, &saved, &len) == GBT_OK && gbt_booster_load_from_buffer(saved, len, &b2) == GBT_OK &&
           gbt_booster_get_attr(b2, "training_file", buf, sizeof buf) == GBT_OK &&
           strcmp(buf, "format=csv,delimiter=;,header=0,label_column=0") == 0,
       "and keeps it through a save and a load: %s", buf);
    gbt_booster_free(b2);
    gbt_dataset_free(d);
    free(saved);
    {
        /* label_column=auto:K: a label in column K when the file has one more column than features */
        float want[] = {7, 8};
        d = load(tu_write("k.csv", "1,2,7\n3,4,8\n"), "label_column=auto:2,features=2");
        ok(d && field_is(d, "label", want, 2), "label_column=auto:2 with 3 fields: the label is column 2");
        gbt_dataset_free(d);
        d = load(tu_write("k2.csv", "1,2\n3,4\n"), "label_column=auto:2,features=2");
        if (d) check_shape(d, 2, 2, "label_column=auto:2 with 2 fields: no label");
        gbt_dataset_free(d);
    }
    d = load(tu_write("t.tsv", "y\ta\tb\n1\t2\t3\n0\t4\t5\n"), "header=1,label_column=0");
    ok(d && gbt_booster_train(b, d, 1, NULL, NULL, 0) == GBT_OK &&
           gbt_booster_get_attr(b, "training_file", buf, sizeof buf) == GBT_OK &&
           strcmp(buf, "format=tsv,header=1,label_column=0") == 0,
       "continued training on a TSV file with a header records that one: %s", buf);
    gbt_dataset_free(d);
    gbt_booster_free(b);
}

int main(void)
{
    test_libsvm();
    test_libsvm_errors();
    test_csv();
    test_csv_errors();
    test_bom();
    test_uri_layout();
    test_side_files();
    test_long_path();
    test_long_line();
    test_parallel(',');
    test_parallel('\t');
    test_parallel(0);
    tu_cleanup();
    return done_testing();
}
