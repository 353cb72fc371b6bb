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
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stddef.h>

#include "booster.h"
#include "quantize.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
int main(void)
{
    return skip_all("malloc is AddressSanitizer's");
}
#else

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

static long fail_at = -1; /* the allocation of the call that fails; -1: none */
static long allocs;       /* allocations since the call began */
/*
 * Blocks allocated minus blocks freed since then.  It can fall below 0
 * when OpenMP frees the team of an earlier parallel region; above 0 is a leak.
 */
static long live;
/* Bytes in blocks allocated since then, now and at most (resource bounds). */
static long live_bytes, peak_bytes;

static void count_bytes(long n)
{
    long now = __atomic_add_fetch(&live_bytes, n, __ATOMIC_RELAXED);
    long peak = __atomic_load_n(&peak_bytes, __ATOMIC_RELAXED);
    while (now > peak && !__atomic_compare_exchange_n(&peak_bytes, &peak, now, 0, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED)) {
    }
}

static int should_fail(void)
{
    if (__atomic_fetch_add(&allocs, 1, __ATOMIC_RELAXED) != fail_at) return 0;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    void *p = should_fail() ? NULL : __libc_malloc(n);
    if (p) __atomic_fetch_add(&live, 1, __ATOMIC_RELAXED), count_bytes((long)malloc_usable_size(p));
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *p = should_fail() ? NULL : __libc_calloc(n, size);
    if (p) __atomic_fetch_add(&live, 1, __ATOMIC_RELAXED), count_bytes((long)malloc_usable_size(p));
    return p;
}

void *realloc(void *old, size_t n)
{
    long was = old ? (long)malloc_usable_size(old) : 0;
    void *p = should_fail() ? NULL : __libc_realloc(old, n);
    if (p && old == NULL) __atomic_fetch_add(&live, 1, __ATOMIC_RELAXED);
    if (p) count_bytes((long)malloc_usable_size(p) - was);
    return p;
}

void free(void *p)
{
    if (p) __atomic_fetch_sub(&live, 1, __ATOMIC_RELAXED), count_bytes(-(long)malloc_usable_size(p));
    __libc_free(p);
}

/* Starts counting a call's allocations; the n-th (from 0) fails. */
static void arm(long n)
{
    allocs = 0;
    live = 0;
    live_bytes = peak_bytes = 0;
    fail_at = n;
}

static void disarm(void)
{
    fail_at = -1;
}

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
            if (live > 0 && !leaks++) diag("%s: allocation %ld failed: %ld blocks leaked", what, n, live); \
            if (allocs <= n) break;                                                           \
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
    ok(peak_bytes < 65536, "refusing it took %ld bytes at most (bound 64 KiB)", peak_bytes);
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
    ok(peak_bytes < (long)(6 * len), "loading %zu bytes of model took %ld bytes at most (bound 6x the text)", len,
       peak_bytes);
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
    ok(peak_bytes < 64L * NCOL, "binning them took %ld bytes at most (bound 64 per feature index; 4 GiB before)",
       peak_bytes);
    diag("binning 3 rows of %d feature indices took %.2f s", NCOL, t0);
    if (s == GBT_OK) gbt__qmatrix_free(&q);
    gbt_dataset_free(d);
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

int main(void)
{
    tu_seed(13);
    /* the messages of errno values are looked up (and cached) on first use */
    (void)strerror(ENOMEM);
    test_readers();
    test_quantize();
    test_deep_model();
    test_declared_size();
    test_load_memory();
    test_sparse_index_range();
    test_save();
    tu_cleanup();
    return done_testing();
}
#endif
