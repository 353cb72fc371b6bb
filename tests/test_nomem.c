/*
 * test_nomem.c - calls that meet a failed allocation.  The program
 * replaces malloc, calloc, realloc and free (glibc's __libc_* do the work)
 * so that the n-th allocation of a call fails, for n = 0, 1, ... until the
 * call no longer allocates that many times.  Every such call must return
 * GBT_E_NO_MEMORY, or succeed with the right answer, and free what it
 * allocated: no crash, no hang, no leak, no wrong result with GBT_OK.
 *
 * Skipped under AddressSanitizer, which owns malloc itself.
 */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS (nomem.h) */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "train/booster.h"
#include "data/quantize.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
int main(void)
{
    return skip_all("AddressSanitizer owns malloc, which this test replaces to fail allocations");
}
#else

#include "nomem.h"

/*
 * Runs `call` (a statement setting gbt_status s), `check` (setting `right`
 * when s is GBT_OK) and `cleanup` (freeing what the call returned) once
 * without failures, which sets up what lives as long as the process (the
 * C locale, OpenMP's threads), then with each allocation failing in turn.
 */
#define SWEEP(what, call, check, cleanup)                                                     \
    do {                                                                                      \
        int bad_status = 0, wrong = 0, leaks = 0;                                              \
        long n;                                                                               \
        {                                                                                     \
            gbt_status s;                                                                     \
            int right = 1;                                                                    \
            call;                                                                             \
            if (s == GBT_OK) check;                                                           \
            cleanup;                                                                          \
            (void)right;                                                                      \
        }                                                                                     \
        for (n = 0; n < 100000; n++) {                                                        \
            gbt_status s;                                                                     \
            int right = 1;                                                                    \
            arm(n);                                                                           \
            call;                                                                             \
            disarm();                                                                         \
            if (s == GBT_OK) check;                                                           \
            cleanup;                                                                          \
            if (s != GBT_OK && s != GBT_E_NO_MEMORY && !bad_status++)                         \
                diag("%s: allocation %ld failed: status %d: %s", what, n, (int)s, gbt_last_error()); \
            if (s == GBT_OK && !right && !wrong++) diag("%s: allocation %ld failed: GBT_OK, wrong result", what, n); \
            if (nm->live > 0 && !leaks++) diag("%s: allocation %ld failed: %ld blocks leaked", what, n, nm->live); \
            if (nm->allocs <= n) break;                                                         \
        }                                                                                     \
        ok(bad_status == 0, "%s: each of %ld allocations failing gives GBT_E_NO_MEMORY", what, n); \
        ok(wrong == 0, "%s: no wrong result reported as GBT_OK", what);                        \
        ok(leaks == 0, "%s: nothing leaks", what);                                             \
    } while (0)

static void test_readers(void)
{
    const char *csv = tu_write("nomem.csv", "1,0.5,2\n0,1.5,NA\n1,2.5,3\n");
    const char *svm = tu_write("nomem.libsvm", "1 0:0.5 1:2\n0 0:1.5\n1 0:2.5 1:3\n");
    gbt_dataset *d = NULL;
    uint64_t nrow = 0, ncol = 0;
    SWEEP("reading a CSV file", s = gbt_dataset_from_file(csv, NULL, &d),
          right = gbt_dataset_shape(d, &nrow, &ncol) == GBT_OK && nrow == 3 && ncol == 2,
          (gbt_dataset_free(d), d = NULL));
    SWEEP("reading a LIBSVM file", s = gbt_dataset_from_file(svm, NULL, &d),
          right = gbt_dataset_shape(d, &nrow, &ncol) == GBT_OK && nrow == 3 && ncol == 2,
          (gbt_dataset_free(d), d = NULL));
}

static void test_quantize(void)
{
    struct gbt_qmatrix q;
    gbt_dataset *d = tu_dataset(50, 3, 0.2, 0);
    SWEEP("binning a dataset", s = gbt__quantize(d, 16, 1, &q), right = q.cuts.nfeat == 3,
          if (s == GBT_OK) gbt__qmatrix_free(&q));
    gbt_dataset_free(d);
}

/*
 * A model of one tree of depth D = 70, deeper than 64: internal node 2i
 * (i < D) sends x < i + 0.5 to leaf 2i + 1 of value i and the rest on to
 * node 2i + 2; leaf 2D has value D.  Row x = j (an integer in [0, D])
 * reaches the leaf of value j.
 */
static char *deep_model(size_t *len)
{
    enum { D = 70 };
    struct gbt_strbuf sb = {0};
    const int nn = 2 * D + 1;
    gbt__sb_printf(&sb, "{\"format\": \"gbt-model\", \"format_version\": 1, \"objective\": \"reg:squarederror\","
                        " \"num_class\": 0, \"num_feature\": 1, \"base_margin\": [0], \"training\": {},"
                        " \"trees\": [{\"class\": 0, \"num_nodes\": %d", nn);
#define ARRAY(key, FMT, ...)                                                     \
    gbt__sb_printf(&sb, ", \"%s\": [", key);                                     \
    for (int k = 0; k < nn; k++) gbt__sb_printf(&sb, "%s" FMT, k ? "," : "", __VA_ARGS__); \
    gbt__sb_printf(&sb, "]")
    ARRAY("left", "%d", k % 2 == 0 && k < 2 * D ? k + 1 : -1);
    ARRAY("right", "%d", k % 2 == 0 && k < 2 * D ? k + 2 : -1);
    ARRAY("feature", "%d", k % 2 == 0 && k < 2 * D ? 0 : -1);
    ARRAY("threshold", "%g", k % 2 == 0 && k < 2 * D ? k / 2 + 0.5 : 0.0);
    ARRAY("default_left", "%d", 0);
    ARRAY("value", "%d", k % 2 ? k / 2 : k == 2 * D ? D : 0);
    ARRAY("gain", "%d", 0);
    ARRAY("cover", "%d", 1);
#undef ARRAY
    gbt__sb_printf(&sb, "}]}");
    *len = sb.len;
    return sb.s;
}

static void test_deep_model(void)
{
    enum { D = 70 };
    size_t len;
    char *text = deep_model(&len);
    float x[D + 1], out[D + 1];
    gbt_booster *b = NULL;
    for (int j = 0; j <= D; j++) x[j] = (float)j;
    ok(gbt_booster_load_from_buffer(text, len, &b) == GBT_OK, "the model of depth 70 loads: %s",
       b ? "" : gbt_last_error());
    gbt_booster_free(b);
    b = NULL;
#define PREDICTS_ROW_VALUES                                                                 \
    do {                                                                                    \
        right = gbt_booster_predict_dense(b, x, D + 1, 1, NAN, 0, out, D + 1) == GBT_OK;    \
        for (int j = 0; j <= D; j++) right &= out[j] == (float)j;                           \
    } while (0)
    SWEEP("loading a model deeper than 64", s = gbt_booster_load_from_buffer(text, len, &b),
          PREDICTS_ROW_VALUES, (gbt_booster_free(b), b = NULL));
#undef PREDICTS_ROW_VALUES
    free(text);
}

/*
 * R1: a 190-byte model that declares 2^31 - 1 nodes and holds arrays of
 * one element is refused before the declared size claims memory (it
 * reserved 8 arrays of 2^31 - 1 elements, 58 GB, before the fix).
 */
static void test_declared_size(void)
{
    static const char text[] =
        "{\"format\":\"gbt-model\",\"format_version\":1,\"objective\":\"reg:squarederror\","
        "\"num_class\":0,\"num_feature\":1,\"base_margin\":[0],\"training\":{},"
        "\"trees\":[{\"class\":0,\"num_nodes\":2147483647,\"left\":[-1],\"right\":[-1],"
        "\"feature\":[-1],\"threshold\":[0],\"default_left\":[0],\"value\":[0],\"gain\":[0],\"cover\":[1]}]}";
    gbt_booster *b = NULL;
    gbt_status s;
    arm(-1);
    s = gbt_booster_load_from_buffer(text, sizeof text - 1, &b);
    disarm();
    ok(s == GBT_E_FORMAT && strstr(gbt_last_error(), "wrong number of elements"),
       "a model declaring 2^31 - 1 nodes with one-element arrays is refused: %s", gbt_last_error());
    ok(nm->peak_bytes < 65536, "refusing it took %ld bytes at most (bound 64 KiB)", nm->peak_bytes);
    gbt_booster_free(b);
}

/*
 * R2: the memory of loading follows the model, not the count of numbers in
 * its text.  The model of depth 70 (141 nodes, 8 arrays) is about 5 KB of
 * text; loaded it holds 141 x 29 bytes of tree, a prediction layout of
 * the same order and the booster (4.3 times the text in all).  A JSON node
 * per number (56 bytes each for about 2.5 bytes of text, 63 KB) took over
 * 20 times the text before the fix.
 */
static void test_load_memory(void)
{
    size_t len;
    char *text = deep_model(&len);
    gbt_booster *b = NULL;
    gbt_status s;
    arm(-1);
    s = gbt_booster_load_from_buffer(text, len, &b);
    disarm();
    ok(s == GBT_OK, "the model of depth 70 loads");
    ok(nm->peak_bytes < (long)(6 * len), "loading %zu bytes of model took %ld bytes at most (bound 6x the text)", len,
       nm->peak_bytes);
    gbt_booster_free(b);
    free(text);
}

/*
 * R3: binning follows the values present, not the range of feature
 * indices.  Three rows with features 0, 1 and 2^22 - 1 (a LIBSVM file of
 * 30 bytes): the per-feature arrays cost tens of bytes per index, but the
 * temporary cuts took max_bin floats per index (4 GiB at max_bin 256) and
 * every empty feature was radix-sorted (10 s) before the fix.
 */
static void test_sparse_index_range(void)
{
    enum { NCOL = 1 << 22 };
    const uint64_t indptr[] = {0, 1, 2, 3};
    const uint32_t indices[] = {NCOL - 1, 0, 1};
    const float values[] = {1, 2, 3};
    gbt_dataset *d = NULL;
    struct gbt_qmatrix q;
    gbt_status s;
    double t0;
    if (!ok(gbt_dataset_from_csr(indptr, indices, values, 3, NCOL, &d) == GBT_OK, "a CSR dataset of %d columns",
            NCOL))
        return;
    arm(-1);
    t0 = gbt__now();
    s = gbt__quantize(d, 256, 1, &q);
    t0 = gbt__now() - t0;
    disarm();
    ok(s == GBT_OK && q.cuts.nbins[NCOL - 1] == 1 && q.cuts.nbins[5] == 0, "3 rows with feature %d bin: %s", NCOL - 1,
       s == GBT_OK ? "" : gbt_last_error());
    ok(nm->peak_bytes < 64L * NCOL, "binning them took %ld bytes at most (bound 64 per feature index; 4 GiB before)",
       nm->peak_bytes);
    diag("binning 3 rows of %d feature indices took %.2f s", NCOL, t0);
    if (s == GBT_OK) gbt__qmatrix_free(&q);
    {
        /*
         * A round of training on them: the histograms had a slot per index
         * (16 bytes each, for every node kept) and the split search a
         * candidate per node and index (about 64 bytes): 2.7 GB at 2^24.
         */
        const char *const p[] = {"nthread=1", "device=cpu", NULL};
        const float y[] = {1, 0, 1};
        gbt_booster *b = tu_booster(p);
        gbt_dataset_set_field(d, "label", y, 3);
        arm(-1);
        t0 = gbt__now();
        s = gbt_booster_update(b, d);
        t0 = gbt__now() - t0;
        disarm();
        ok(s == GBT_OK, "a round of training on them: %s", s == GBT_OK ? "" : gbt_last_error());
        ok(nm->peak_bytes < 48L * NCOL, "the round took %ld bytes at most (bound 48 per feature index)",
           nm->peak_bytes);
        diag("the round took %.2f s", t0);
        gbt_booster_free(b);
    }
    gbt_dataset_free(d);
}

/*
 * The whole life of a model, each allocation failing in turn: read a data
 * file, train 3 rounds with a validation set and a metric, save to a file,
 * load it, predict a dataset and a dense matrix, evaluate.  Every step
 * must fail with GBT_E_NO_MEMORY or give what the run without failures
 * gave; a failed save leaves neither the model nor a temporary file.
 */
struct life {
    const char *data, *options, *metric, *model;
    const char *const *params; /* name, value, ..., NULL */
    int width;                 /* predictions per row */
    float pred[40 * 3], pred_dense[40 * 3];
    double score;
    int saved; /* gbt_booster_save returned GBT_OK */
};

static gbt_status model_life(struct life *out)
{
    gbt_dataset *d = NULL;
    gbt_booster *b = NULL, *loaded = NULL;
    const gbt_dataset *valid[1];
    const uint64_t n = 40 * (uint64_t)out->width;
    float x[40 * 3];
    gbt_status s;
    unlink(out->model);
    out->saved = 0;
    s = gbt_dataset_from_file(out->data, out->options, &d);
    if (s == GBT_OK) s = gbt_booster_create(&b);
    for (int i = 0; s == GBT_OK && out->params[i]; i += 2) s = gbt_booster_set_param(b, out->params[i], out->params[i + 1]);
    valid[0] = d;
    if (s == GBT_OK) s = gbt_booster_train(b, d, 3, valid, NULL, 1);
    if (s == GBT_OK) s = gbt_booster_save(b, out->model);
    out->saved = s == GBT_OK;
    if (s == GBT_OK) s = gbt_booster_load(out->model, &loaded);
    if (s == GBT_OK) s = gbt_booster_set_param(loaded, "nthread", "1");
    if (s == GBT_OK) s = gbt_booster_predict(loaded, d, 0, out->pred, n);
    for (int i = 0; i < 40 * 3; i++) x[i] = (float)((i * 7) % 13) - 3.0f;
    if (s == GBT_OK) s = gbt_booster_predict_dense(loaded, x, 40, 3, NAN, 0, out->pred_dense, n);
    if (s == GBT_OK) s = gbt_booster_eval(loaded, d, out->metric, &out->score);
    gbt_booster_free(loaded);
    gbt_booster_free(b);
    gbt_dataset_free(d);
    return s;
}

/* 1 when the directory of the model holds a file whose name has ".tmp." in it. */
static int temporary_left(const char *model)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls -a \"$(dirname '%s')\" | grep -q '[.]tmp[.]'", model);
    return system(cmd) == 0;
}

static void sweep_life(const char *what, struct life ref)
{
    struct life run = ref;
    int partial = 0;
    gbt_status s0 = model_life(&ref);
    ok(s0 == GBT_OK && isfinite(ref.score), "%s without failures: %s %.4f", what, ref.metric, ref.score);
    SWEEP(what, s = model_life(&run),
          right = memcmp(run.pred, ref.pred, sizeof ref.pred) == 0 &&
                  memcmp(run.pred_dense, ref.pred_dense, sizeof ref.pred_dense) == 0 && run.score == ref.score,
          partial += temporary_left(run.model) || (!run.saved && access(run.model, F_OK) == 0));
    ok(partial == 0, "%s: no failure left a temporary file, nor a model file after a failed save", what);
}

static void test_model_life(void)
{
    static const char *const binary[] = {"objective", "binary:logistic", "max_depth", "3", "nthread", "1",
                                         "device", "cpu", "eval_metric", "auc", "subsample", "0.8", NULL};
    static const char *const multi[] = {"objective", "multi:softprob", "num_class", "3", "grow_policy", "lossguide",
                                        "max_leaves", "5", "colsample_bynode", "0.7", "nthread", "1", "device", "cpu",
                                        "eval_metric", "mlogloss", "booster", "dart", "rate_drop", "0.5", NULL};
    struct gbt_strbuf csv = {0}, svm = {0};
    struct life l;
    for (int r = 0; r < 40; r++) {
        int f0 = (r * 5) % 11, f1 = (r * 3) % 7;
        gbt__sb_printf(&csv, "%d,%d,%s,%d\n", (f0 + f1) % 2, f0, r % 5 ? "1.5" : "", f1 - 3);
        gbt__sb_printf(&svm, "%d 0:%d%s 2:%d\n", (f0 + f1) % 3, f0, r % 4 ? " 1:0.5" : "", f1);
    }
    if (csv.failed || svm.failed) return;
    memset(&l, 0, sizeof l);
    l.model = tu_write("life.model", "");
    l.data = tu_write("life.csv", csv.s);
    l.options = "format=csv";
    l.metric = "auc";
    l.params = binary;
    l.width = 1;
    sweep_life("CSV, binary: train, save, load, predict, eval", l);
    l.data = tu_write("life.libsvm", svm.s);
    l.options = "format=libsvm";
    l.metric = "mlogloss";
    l.params = multi;
    l.width = 3;
    sweep_life("LIBSVM, 3 classes, lossguide, dart: train, save, load, predict, eval", l);
    free(csv.s);
    free(svm.s);
}

static void test_save(void)
{
    const char *const p[] = {"max_depth=2", "nthread=1", NULL};
    gbt_dataset *d = tu_dataset(200, 3, 0, 0);
    gbt_booster *b = tu_train(d, 2, p);
    char *buf = NULL;
    size_t len = 0;
    SWEEP("saving a model to a buffer", s = gbt_booster_save_to_buffer(b, &buf, &len),
          right = len > 0 && strstr(buf, "gbt-model") != NULL, (gbt_free(buf), buf = NULL));
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/* Feature names, importance, dumps and slices of a named model (tests/test_explain.c checks the values). */
static int f_rounds;

static void test_explain(void)
{
    const char *const p[] = {"max_depth=2", "nthread=1", "objective=multi:softprob", "num_class=3", NULL};
    const char *const names[3] = {"alpha", "beta", "gamma"};
    const char *csv = tu_write("named.csv", "y,alpha,beta\n1,0.5,2\n0,1.5,NA\n1,2.5,3\n");
    gbt_dataset *d = tu_dataset(200, 3, 0.1, 3), *r = NULL;
    gbt_booster *b, *part = NULL;
    const char *const *got;
    char **bn = NULL, *text = NULL;
    uint64_t count = 0;
    size_t len = 0;
    double v[3];
    static const char *const formats[] = {"text", "json", "dot"};
    SWEEP("reading a CSV file with a header", s = gbt_dataset_from_file(csv, "header=1", &r),
          right = gbt_dataset_get_feature_names(r, &got, &count) == GBT_OK && count == 2 && strcmp(got[1], "beta") == 0,
          (gbt_dataset_free(r), r = NULL));
    SWEEP("naming a dataset's features", s = gbt_dataset_set_feature_names(d, names, 3),
          right = gbt_dataset_get_feature_names(d, &got, &count) == GBT_OK && count == 3, (void)0);
    b = tu_train(d, 2, p);
    SWEEP("a model's feature names", s = gbt_booster_feature_names(b, &bn, &count),
          right = count == 3 && strcmp(bn[2], "gamma") == 0, (gbt_free(bn), bn = NULL));
    SWEEP("feature importance", s = gbt_booster_feature_importance(b, "total_cover", v, 3), right = v[0] >= 0,
          (void)0);
    for (int f = 0; f < 3; f++) {
        char what[64];
        snprintf(what, sizeof what, "a %s dump of every tree", formats[f]);
        SWEEP(what, s = gbt_booster_dump(b, formats[f], -1, 1, &text, &len), right = len == strlen(text),
              (gbt_free(text), text = NULL));
    }
    SWEEP("slicing a model", s = gbt_booster_slice(b, 1, 2, &part), right = gbt_booster_num_rounds(part, &f_rounds) == GBT_OK && f_rounds == 1,
          (gbt_booster_free(part), part = NULL));
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

int main(void)
{
    tu_seed(13);
    if (!nomem_active()) return skip_all(NOMEM_INACTIVE);
    /* the messages of errno values are looked up (and cached) on first use */
    (void)strerror(ENOMEM);
    test_readers();
    test_quantize();
    test_deep_model();
    test_declared_size();
    test_load_memory();
    test_sparse_index_range();
    test_save();
    test_model_life();
    test_explain();
    tu_cleanup();
    return done_testing();
}
#endif
