/*
 * test_model.c - the model file: exact round trips, continued training,
 * atomic saving that never leaves a partial file or destroys an existing
 * one, and truncated, corrupted or foreign files refused with a message.
 */
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "testutil.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static int same_predictions(const gbt_booster *a, const gbt_booster *b, const gbt_dataset *d, unsigned flags)
{
    uint64_t n, len;
    float *pa, *pb;
    int same;
    gbt_dataset_shape(d, &n, NULL);
    if (gbt_booster_predict_size(a, n, flags, &len) != GBT_OK) return 0;
    pa = malloc(len * sizeof *pa);
    pb = malloc(len * sizeof *pb);
    same = gbt_booster_predict(a, d, flags, pa, len) == GBT_OK && gbt_booster_predict(b, d, flags, pb, len) == GBT_OK &&
           memcmp(pa, pb, len * sizeof *pa) == 0;
    free(pa);
    free(pb);
    return same;
}

static int count_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (d == NULL) return -1;
    while ((e = readdir(d)) != NULL) n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

static void test_round_trip(void)
{
    const char *const pb[] = {"objective=binary:logistic", "max_depth=4", "eta=0.3", "subsample=0.8",
                              "colsample_bytree=0.7", "seed=5", NULL};
    const char *const pm[] = {"objective=multi:softprob", "num_class=3", "max_depth=3", NULL};
    gbt_dataset *d, *dm;
    gbt_booster *b, *c = NULL, *m, *mc = NULL;
    char *buf, *buf2, path[512], eta[32];
    size_t len, len2;
    tu_seed(7);
    d = tu_dataset(1500, 8, 0.1, 1);
    dm = tu_dataset(900, 5, 0.05, 3);
    b = tu_train(d, 12, pb);
    m = tu_train(dm, 6, pm);
    buf = tu_model(b, &len);
    ok(buf && len > 100 && buf[len] == '\0', "a model saves to a NUL-terminated buffer of %zu bytes", len);
    ok_call(gbt_booster_load_from_buffer(buf, len, &c), "and loads back");
    buf2 = tu_model(c, &len2);
    ok(buf2 && len == len2 && memcmp(buf, buf2, len) == 0, "saving the loaded model gives the same bytes");
    ok(c && same_predictions(b, c, d, 0) && same_predictions(b, c, d, GBT_PREDICT_MARGIN),
       "the loaded model predicts the same bits");
    ok(c && gbt_booster_get_param(c, "eta", eta, sizeof eta) == GBT_OK && strcmp(eta, "0.3") == 0,
       "training parameters come back with the model (eta %s)", eta);
    gbt_free(buf2);
    gbt_booster_free(c);
    snprintf(path, sizeof path, "%s/m.json", tu_tmpdir());
    ok_call(gbt_booster_save(m, path), "a multiclass model saves to a file");
    ok_call(gbt_booster_load(path, &mc), "and loads from it");
    ok(mc && tu_same_model(m, mc) && same_predictions(m, mc, dm, 0), "multiclass round trip is exact");
    ok(count_temp_files(tu_tmpdir()) == 0, "no temporary file is left behind");
    gbt_booster_free(mc);
    gbt_free(buf);
    gbt_booster_free(b);
    gbt_booster_free(m);
    gbt_dataset_free(d);
    gbt_dataset_free(dm);
}

static void test_continue(void)
{
    const char *const p[] = {"objective=binary:logistic", "max_depth=3", "subsample=0.7", "seed=9", NULL};
    gbt_dataset *d;
    gbt_booster *whole, *first, *again = NULL;
    char *buf;
    size_t len;
    tu_seed(8);
    d = tu_dataset(1200, 6, 0.05, 1);
    whole = tu_train(d, 10, p);
    first = tu_train(d, 4, p);
    buf = tu_model(first, &len);
    gbt_booster_load_from_buffer(buf, len, &again);
    ok(again && gbt_booster_train(again, d, 6, NULL, NULL, 0) == GBT_OK,
       "a loaded model trains 6 more rounds");
    ok(tu_same_model(whole, again), "4 rounds, save, load, 6 rounds = 10 rounds straight, byte for byte");
    gbt_free(buf);
    gbt_booster_free(whole);
    gbt_booster_free(first);
    gbt_booster_free(again);
    gbt_dataset_free(d);
}

static void test_atomic_save(void)
{
    const char *old = tu_write("existing.json", "OLD CONTENT\n");
    char dirpath[512], missing[512];
    gbt_booster *empty, *b;
    gbt_dataset *d;
    size_t len;
    char *text;
    const char *const p[] = {"max_depth=2", NULL};
    gbt_booster_create(&empty);
    ok(gbt_booster_save(empty, old) == GBT_E_STATE, "saving a booster without a model fails");
    text = slurp(old, &len);
    ok(text && strcmp(text, "OLD CONTENT\n") == 0, "and leaves the existing file untouched");
    free(text);
    tu_seed(2);
    d = tu_dataset(300, 3, 0, 0);
    b = tu_train(d, 2, p);
    snprintf(dirpath, sizeof dirpath, "%s/adir", tu_tmpdir());
    mkdir(dirpath, 0755);
    ok(gbt_booster_save(b, dirpath) == GBT_E_IO && strstr(gbt_last_error(), "adir"),
       "saving over a directory fails naming it: %s", gbt_last_error());
    ok(count_temp_files(tu_tmpdir()) == 0, "the failed save removed its temporary file");
    snprintf(missing, sizeof missing, "%s/no/such/dir/m.json", tu_tmpdir());
    ok(gbt_booster_save(b, missing) == GBT_E_IO && strstr(gbt_last_error(), "no/such/dir"),
       "saving into a missing directory fails naming the path");
    ok_call(gbt_booster_save(b, old), "saving over an existing file works");
    text = slurp(old, &len);
    ok(text && strstr(text, "gbt-model") != NULL, "and replaces it whole");
    free(text);
    gbt_booster_free(empty);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/*
 * gbt_booster_save through symbolic links, into a FIFO and a character
 * device (issue 26): a link's target is replaced and the link stays; a
 * dangling link is refused; a FIFO is written in place for its reader.
 */
static void test_save_paths(void)
{
    const char *const p[] = {"max_depth=2", NULL};
    const char *target = tu_write("target.json", "{\"format\": \"gbt-model\"}\n");
    char link1[512], link2[512], dangling[512], fifo[512], fifolink[512], full[512];
    gbt_dataset *d;
    gbt_booster *b;
    struct stat st;
    size_t len, mlen;
    char *text, *model;
    pid_t pid;
    int status;
    tu_seed(3);
    d = tu_dataset(200, 3, 0, 0);
    b = tu_train(d, 2, p);
    model = tu_model(b, &mlen);
    snprintf(link1, sizeof link1, "%s/link1.json", tu_tmpdir());
    snprintf(link2, sizeof link2, "%s/link2.json", tu_tmpdir());
    ok(symlink("target.json", link1) == 0 && symlink(link1, link2) == 0, "links made");
    ok_call(gbt_booster_save(b, link2), "saving through two symbolic links");
    ok(lstat(link2, &st) == 0 && S_ISLNK(st.st_mode) && lstat(link1, &st) == 0 && S_ISLNK(st.st_mode),
       "both links are still links");
    text = slurp(target, &len);
    ok(text && len == mlen && memcmp(text, model, len) == 0, "the file they point at holds the model");
    free(text);
    ok(count_temp_files(tu_tmpdir()) == 0, "no temporary file is left");

    snprintf(dangling, sizeof dangling, "%s/dangling.json", tu_tmpdir());
    ok(symlink("nowhere/m.json", dangling) == 0, "a dangling link made");
    ok(gbt_booster_save(b, dangling) == GBT_E_IO && strstr(gbt_last_error(), "dangling.json") &&
           strstr(gbt_last_error(), "does not exist"),
       "saving through a dangling link is refused naming it: %s", gbt_last_error());
    ok(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode), "and the link is left as it was");

    snprintf(fifo, sizeof fifo, "%s/model.fifo", tu_tmpdir());
    snprintf(fifolink, sizeof fifolink, "%s/fifo.link", tu_tmpdir());
    ok(mkfifo(fifo, 0600) == 0 && symlink("model.fifo", fifolink) == 0, "a FIFO and a link to it made");
    for (int k = 0; k < 2; k++) {
        const char *path = k ? fifolink : fifo;
        char got[512];
        fflush(stdout);
        pid = fork();
        if (pid == 0) {
            /* the reader: cat copies what arrives to a file (an exec'd program, so that
             * valgrind, which does not follow it, leaves its exit status alone) */
            int fd;
            alarm(30); /* a writer that never comes (the FIFO replaced) ends the reader */
            snprintf(got, sizeof got, "%s/from_fifo.json", tu_tmpdir());
            fd = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd < 0 || dup2(fd, 1) < 0) _exit(2);
            execlp("cat", "cat", fifo, (char *)NULL);
            _exit(2);
        }
        ok_call(gbt_booster_save(b, path), "saving into %s", k ? "a link to a FIFO" : "a FIFO");
        ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "its reader ended");
        snprintf(got, sizeof got, "%s/from_fifo.json", tu_tmpdir());
        text = slurp(got, &len);
        ok(text && len == mlen && memcmp(text, model, len) == 0, "the reader got the whole model");
        free(text);
        ok(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
        if (k) ok(lstat(fifolink, &st) == 0 && S_ISLNK(st.st_mode), "and the link a link");
    }
    /* a character device that refuses writes: a link to the machine's /dev/full, opened, never replaced */
    snprintf(full, sizeof full, "%s/full.link", tu_tmpdir());
    if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode) && symlink("/dev/full", full) == 0) {
        ok(gbt_booster_save(b, full) == GBT_E_IO && strstr(gbt_last_error(), "full.link"),
           "a write error on a device is an error naming the path: %s", gbt_last_error());
        ok(lstat(full, &st) == 0 && S_ISLNK(st.st_mode), "and the link to it stays a link");
    } else {
        skip("no /dev/full");
        skip("no /dev/full");
    }
    ok(count_temp_files(tu_tmpdir()) == 0, "no temporary file is left");
    gbt_free(model);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

static void expect_bad(const char *text, size_t len, const char *needle, const char *what)
{
    gbt_booster *b = (gbt_booster *)1;
    gbt_status s = gbt_booster_load_from_buffer(text, len, &b);
    ok(s == GBT_E_FORMAT && b == (gbt_booster *)1 && strstr(gbt_last_error(), needle), "%s: refused with \"%s\"", what,
       gbt_last_error());
}

/* Replaces the first occurrence of `from` in model text with `to`. */
static char *edit(const char *model, const char *from, const char *to)
{
    const char *at = strstr(model, from);
    char *out;
    if (at == NULL) return NULL;
    out = malloc(strlen(model) + strlen(to) + 1);
    memcpy(out, model, (size_t)(at - model));
    strcpy(out + (at - model), to);
    strcat(out, at + strlen(from));
    return out;
}

/*
 * Files of other programs and data files, made by hand in the shape of the
 * real ones: each is named for what it is, with what to do.
 */
static void test_foreign_files(void)
{
    /* XGBoost's UBJSON (read: test_xgboost_json.c): '{', then the key "learner" with an int64 ('L') length */
    static const char ubj[] = "{L\0\0\0\0\0\0\0\x07learner{L\0\0\0\0\0\0\0\x0a" "attributes{}}}";
    /* the same with int8 ('i') lengths, and a UBJSON document that is no XGBoost model */
    static const char ubj8[] = "{i\x07learner{i\x0a" "attributes{}}}";
    static const char ubj_other[] = "{i\x03keyi\x05}";
    /* XGBoost's old binary model: a 136-byte parameter block, then the
     * objective's and the booster's names, each after a uint64 length */
    char xgb_bin[136 + 8 + 15 + 8 + 6];
    const char *path;
    gbt_booster *b = (gbt_booster *)1;
    memset(xgb_bin, 0, sizeof xgb_bin);
    xgb_bin[4] = 30; /* num_feature */
    xgb_bin[136] = 15;
    memcpy(xgb_bin + 144, "binary:logistic", 15);
    xgb_bin[159] = 6;
    memcpy(xgb_bin + 167, "gbtree", 6);
    /* the byte of the object that lacks the member */
    expect_bad(ubj, sizeof ubj - 1, "model: XGBoost model: missing \"gradient_booster\" (byte 17)",
               "XGBoost UBJSON (int64 lengths) without its trees");
    expect_bad(ubj8, sizeof ubj8 - 1, "model: XGBoost model: missing \"gradient_booster\" (byte 10)",
               "XGBoost UBJSON (int8 lengths) without its trees");
    expect_bad(ubj_other, sizeof ubj_other - 1, "model: a JSON object that is neither a gbt model",
               "UBJSON that is not a model");
    expect_bad(xgb_bin, sizeof xgb_bin, "model: an XGBoost model in its old binary format",
               "XGBoost's old binary format");
    expect_bad("binf\0\0\0?", 8, "model: an XGBoost model in its old binary format",
               "XGBoost's old binary format with its 'binf' prefix");
    expect_bad("tree\nversion=v4\nnum_class=1\n", 29, "model: a LightGBM text model", "a LightGBM model");
    expect_bad("1,0.5,2\n0,,3\n", 14, "model: CSV data, not a model", "a CSV file");
    expect_bad("y,a,b\n1,0.5,NA\n", 16, "model: CSV data with a header line, not a model",
               "a CSV file with a header");
    expect_bad("1\t0.5\t2\n", 9, "model: TSV data", "a TSV file");
    expect_bad("# rows\n1 qid:3 1:0.5 7:2\n0 2:1\n", 32, "model: LIBSVM data", "a LIBSVM file with a comment");
    expect_bad("-1 3:1e-3\n", 10, "arguments in the wrong order?", "  and the advice");
    /* JSON that only starts like data is still JSON's business */
    expect_bad("1 2", 3, "text after the end", "two JSON numbers");
    path = tu_write("lgb.txt", "tree\nversion=v4\n");
    ok(gbt_booster_load(path, &b) == GBT_E_FORMAT && b == (gbt_booster *)1 &&
           strstr(gbt_last_error(), path) && strstr(gbt_last_error(), "LightGBM"),
       "a file is named in the message: %s", gbt_last_error());
}

static void test_bad_files(void)
{
    const char *const p[] = {"objective=binary:logistic", "max_depth=2", NULL};
    gbt_dataset *d;
    gbt_booster *b, *none = NULL;
    char *model, *bad;
    size_t len;
    tu_seed(4);
    d = tu_dataset(400, 4, 0, 1);
    b = tu_train(d, 3, p);
    model = tu_model(b, &len);
    expect_bad(model, len / 2, "truncated", "a model cut in half");
    {
        const char *xgb = "{\"learner\": {\"gradient_booster\": {}}, \"version\": [3, 2, 0]}";
        expect_bad(xgb, strlen(xgb), "model:1: XGBoost model: missing \"name\"",
                   "an XGBoost JSON model without its booster's name");
    }
    test_foreign_files();
    expect_bad("\x89PNG\r\n\x1a\n", 8, "unexpected character", "binary garbage");
    expect_bad("", 0, "expected a value", "an empty buffer");
    {
        /* fuzz_model: a leaf's gain of 2e55 (inf as a float) loaded, and was saved as "inf", which does not load */
        const char *leaf_gain =
            "{\"format\": \"gbt-model\", \"format_version\": 1, \"objective\": \"reg:squarederror\", \"num_class\": 0,"
            " \"num_feature\": 1, \"base_margin\": [0.5], \"training\": {}, \"trees\": [{\"class\": 0, \"num_nodes\": 3,"
            " \"left\": [1,-1,-1], \"right\": [2,-1,-1], \"feature\": [0,-1,-1], \"threshold\": [0.5,0,0],"
            " \"default_left\": [1,0,0], \"value\": [0,-1,1], \"gain\": [1,0,2e55], \"cover\": [2,1,1]}]}";
        expect_bad(leaf_gain, strlen(leaf_gain), "node 2 has a gain that is not finite", "a leaf's infinite gain");
    }
#define EDIT_CASE(from, to, needle, what)                             \
    bad = edit(model, from, to);                                      \
    if (bad) expect_bad(bad, strlen(bad), needle, what);              \
    else ok(0, "%s: pattern '%s' not in the model", what, from);      \
    free(bad);
    EDIT_CASE("\"format_version\": 1", "\"format_version\": 99", "format version 99 is newer", "a newer format version");
    EDIT_CASE("\"left\": [1", "\"left\": [7", "out of order or range", "a child index out of range");
    EDIT_CASE("\"feature\": [", "\"feature\": [40000,", "wrong number of elements", "an array of the wrong length");
    EDIT_CASE("\"num_feature\": 4", "\"num_feature\": 0", "splits on feature", "a feature beyond num_feature");
    EDIT_CASE("\"objective\": \"binary:logistic\"", "\"objective\": \"reg:squarederror\"", "disagrees",
              "objective contradicting the parameters");
    EDIT_CASE("\"eta\": \"", "\"eta\": \"-", "eta", "an invalid training parameter");
    EDIT_CASE("\"trees\": [", "\"trees\": 7, \"x\": [", "wrong type", "trees of the wrong type");
    EDIT_CASE("\"value\": [", "\"value\": [\"a\",", "wrong number", "a string among the values");
#undef EDIT_CASE
    {
        const char *path = tu_write("empty.json", "");
        ok(gbt_booster_load(path, &none) == GBT_E_FORMAT && strstr(gbt_last_error(), "empty") && none == NULL,
           "an empty file is refused: %s", gbt_last_error());
        /* R2: reading stops at the first byte no model holds (it read /dev/zero until memory ran out) */
        ok(gbt_booster_load("/dev/zero", &none) == GBT_E_FORMAT && strstr(gbt_last_error(), "byte 0x00 at offset 0") &&
               none == NULL,
           "/dev/zero is refused at its first byte: %s", gbt_last_error());
        path = tu_write("nul.json", "{\"format\": \"gbt-model\"\n\001}");
        ok(gbt_booster_load(path, &none) == GBT_E_FORMAT && strstr(gbt_last_error(), "byte 0x01 at offset 23") &&
               strstr(gbt_last_error(), "nul.json") && none == NULL,
           "a control byte in a model file is refused naming the file and the offset: %s", gbt_last_error());
        ok(gbt_booster_load("/no/such/model.json", &none) == GBT_E_IO && strstr(gbt_last_error(), "/no/such/model.json"),
           "a missing file is refused naming it");
    }
    gbt_free(model);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/* Trains on 2000 rows whose labels (and weights) are given, then saves and loads. */
static void save_and_load(float label_scale, float weight, const char *what)
{
    enum { N = 2000, C = 2 };
    const char *const p[] = {"objective=reg:squarederror", "max_depth=2", NULL};
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y), *w = malloc(N * sizeof *w);
    gbt_dataset *d = NULL;
    gbt_booster *b, *back = NULL;
    char *text = NULL;
    size_t len = 0;
    for (int i = 0; i < N; i++) {
        x[i * C] = (float)(i % 2);
        x[i * C + 1] = (float)(i % 7);
        y[i] = i % 2 ? label_scale : -label_scale;
        w[i] = weight;
    }
    gbt_dataset_from_dense(x, N, C, NAN, &d);
    gbt_dataset_set_field(d, "label", y, N);
    gbt_dataset_set_field(d, "weight", w, N);
    b = tu_train(d, 2, p);
    ok(b && gbt_booster_save_to_buffer(b, &text, &len) == GBT_OK, "%s: trains and saves", what);
    /* the root split's gain (sum |g|)^2 / sum h is about 2000 x label^2 x weight: beyond float */
    ok(text && strstr(text, "inf") == NULL && strstr(text, "nan") == NULL, "%s: no inf or nan in the file", what);
    ok(text && gbt_booster_load_from_buffer(text, len, &back) == GBT_OK, "%s: the saved model loads", what);
    ok(text && strstr(text, "3.4028235e+38") != NULL, "%s: the overflowing value is saturated at FLT_MAX", what);
    gbt_free(text);
    gbt_booster_free(b);
    gbt_booster_free(back);
    gbt_dataset_free(d);
    free(x);
    free(y);
    free(w);
}

/* Replaces the first element of array `key` in model text with `to`. */
static char *edit_first(const char *model, const char *key, const char *to)
{
    const char *at = strstr(model, key), *end;
    char *out;
    if (at == NULL) return NULL;
    at = strchr(at, '[') + 1;
    end = at + strcspn(at, ",]");
    out = malloc(strlen(model) + strlen(to) + 1);
    memcpy(out, model, (size_t)(at - model));
    strcpy(out + (at - model), to);
    strcat(out, end);
    return out;
}

static void test_saved_models_load(void)
{
    const char *const p[] = {"objective=binary:logistic", "max_depth=2", NULL};
    static const char *const keys[] = {"\"gain\"", "\"cover\"", "\"threshold\"", "\"value\""};
    gbt_dataset *d;
    gbt_booster *b;
    char *model;
    size_t len;
    save_and_load(1e18f, 1.0f, "labels of +-1e18");
    save_and_load(1.0f, 1e38f, "weights of 1e38");
    tu_seed(4);
    d = tu_dataset(400, 4, 0, 1);
    b = tu_train(d, 3, p);
    model = tu_model(b, &len);
    for (int i = 0; i < 4; i++) {
        char *bad = edit_first(model, keys[i], "1e39");
        char what[64];
        snprintf(what, sizeof what, "%s of 1e39 (beyond float)", keys[i]);
        if (bad) expect_bad(bad, strlen(bad), "not finite", what);
        else ok(0, "%s not in the model", keys[i]);
        free(bad);
    }
    gbt_free(model);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/*
 * Numbers exactly as RFC 8259 writes them, strings valid UTF-8, counts in
 * their ranges (issue 26): a flipped byte in a leaf value is refused, not
 * read as 1.1e8, and the message names the line and the byte.
 */
static void test_strict_json(void)
{
    const char *const p[] = {"objective=binary:logistic", "max_depth=2", NULL};
    static const char *const bad_numbers[] = {"0110128878", "00.1", "-01", "1.", "0.E6209", ".5", "+1",
                                              "1e", "1e+", "-", "0x10", "1.5.2", "- 1", "01"};
    static const char *const good_numbers[] = {"0", "-0", "0.10128878", "-0.5", "1e-3", "1E+2", "2.5e0", "-0.0e0"};
    gbt_dataset *d;
    gbt_booster *b, *c;
    char *model, *bad, what[96], expect[64];
    size_t len;
    tu_seed(6);
    d = tu_dataset(300, 4, 0, 1);
    b = tu_train(d, 2, p);
    model = tu_model(b, &len);
    for (size_t i = 0; i < sizeof bad_numbers / sizeof *bad_numbers; i++) {
        /* where edit_first puts it: the first element of "value" */
        const size_t at = (size_t)(strchr(strstr(model, "\"value\""), '[') + 1 - model);
        bad = edit_first(model, "\"value\"", bad_numbers[i]);
        snprintf(what, sizeof what, "a leaf value of %s", bad_numbers[i]);
        /* the number's first byte (for "0x10", the 'x' after the number 0) */
        snprintf(expect, sizeof expect, "(byte %zu)", at + (strcmp(bad_numbers[i], "0x10") == 0));
        expect_bad(bad, strlen(bad), expect, what);
        free(bad);
    }
    for (size_t i = 0; i < sizeof good_numbers / sizeof *good_numbers; i++) {
        c = NULL;
        bad = edit_first(model, "\"value\"", good_numbers[i]);
        ok(gbt_booster_load_from_buffer(bad, strlen(bad), &c) == GBT_OK, "a value of %s loads", good_numbers[i]);
        gbt_booster_free(c);
        free(bad);
    }
    bad = edit(model, "\"num_feature\": 4", "\"num_feature\": 16777216");
    expect_bad(bad, strlen(bad), "integer out of range: 16777216", "num_feature 16777216 (the limit is 16777215)");
    free(bad);
    bad = edit(model, "\"num_feature\": 4", "\"num_feature\": 16777215");
    c = NULL;
    ok(gbt_booster_load_from_buffer(bad, strlen(bad), &c) == GBT_OK, "num_feature 16777215 loads");
    gbt_booster_free(c);
    free(bad);
    bad = edit(model, "\"num_feature\": 4", "\"num_feature\": 4, \"note\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8c\xb3\"");
    c = NULL;
    ok(gbt_booster_load_from_buffer(bad, strlen(bad), &c) == GBT_OK, "a string of valid UTF-8 loads");
    gbt_booster_free(c);
    free(bad);
    {
        static const char *const bad_utf8[] = {"\xc3", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                               "\xff", "\x80", "\xe2\x82"};
        for (size_t i = 0; i < sizeof bad_utf8 / sizeof *bad_utf8; i++) {
            char note[64];
            snprintf(note, sizeof note, "\"num_feature\": 4, \"note\": \"a%sb\"", bad_utf8[i]);
            bad = edit(model, "\"num_feature\": 4", note);
            snprintf(what, sizeof what, "invalid UTF-8 (sequence %zu) in a string", i);
            expect_bad(bad, strlen(bad), "not valid UTF-8 (byte", what);
            free(bad);
        }
    }
    gbt_free(model);
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

int main(void)
{
    test_round_trip();
    test_continue();
    test_atomic_save();
    test_save_paths();
    test_bad_files();
    test_saved_models_load();
    test_strict_json();
    tu_cleanup();
    return done_testing();
}
