/*
 * test_readers.c - LIBSVM, CSV and TSV files, side files, and every kind of
 * bad input the readers must refuse with the file and line in the message.
 */
#include <math.h>
#include <sys/stat.h>

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
    p = tu_write("m.csv", "1,-999,3\n0,4,-999\n");
    d = load(p, "missing=-999");
    ok(d != NULL, "missing=-999 accepted");
    gbt_dataset_free(d);
}

static void test_csv_errors(void)
{
    expect_error(tu_write("r.csv", "1,2,3\n0,4\n"), NULL, GBT_E_FORMAT, "r.csv:2",
                 "2 fields, but line 1 has 3", "ragged rows");
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

int main(void)
{
    test_libsvm();
    test_libsvm_errors();
    test_csv();
    test_csv_errors();
    test_side_files();
    test_long_path();
    tu_cleanup();
    return done_testing();
}
