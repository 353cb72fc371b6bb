/*
 * test_api.c - the public API's contract: NULL and bad arguments refused
 * with GBT_E_INVALID_ARG, free(NULL) harmless, status names, the error
 * message per thread, build information, devices and the log callback.
 */
#include <pthread.h>

#include "config.h"

#include "testutil.h"
#include "data/dataset.h"

static void test_null_arguments(void)
{
    gbt_dataset *d = NULL, *tmp = NULL;
    gbt_booster *b = NULL;
    float x[4] = {1, 2, 3, 4}, out[4];
    uint64_t u;
    double v;
    int n;
    char buf[16], *s;
    size_t len;
    const uint64_t ptr[2] = {0, 5};
    const uint32_t idx[1] = {0};
    gbt_status st;
    tu_seed(1);
    d = tu_dataset(50, 2, 0, 1);
    gbt_booster_create(&b);
#define REFUSED(call) \
    st = (call);      \
    ok(st == GBT_E_INVALID_ARG && gbt_last_error()[0], "%s -> %s (%s)", #call, gbt_status_str(st), gbt_last_error())
    REFUSED(gbt_dataset_from_dense(NULL, 1, 1, NAN, &tmp));
    REFUSED(gbt_dataset_from_dense(x, 1, 1, NAN, NULL));
    st = gbt_dataset_from_dense(x, 0, 1, NAN, &tmp); /* no rows: taken, as XGBoost takes them */
    ok(st == GBT_OK && tmp->nrow == 0 && tmp->ncol == 1, "a dataset of 0 rows and 1 column is taken");
    if (st == GBT_OK) gbt_dataset_free(tmp);
    REFUSED(gbt_dataset_from_dense(x, 1, 0, NAN, &tmp));
    REFUSED(gbt_dataset_from_dense(x, 1, (uint64_t)1 << 40, NAN, &tmp));
    REFUSED(gbt_dataset_from_csr(NULL, idx, x, 1, 1, &tmp));
    REFUSED(gbt_dataset_from_csr(ptr, NULL, x, 1, 1, &tmp));
    REFUSED(gbt_dataset_from_file(NULL, NULL, &tmp));
    REFUSED(gbt_dataset_from_file("x", NULL, NULL));
    REFUSED(gbt_dataset_set_field(NULL, "label", x, 1));
    REFUSED(gbt_dataset_set_field(d, NULL, x, 1));
    REFUSED(gbt_dataset_set_field(d, "label", NULL, 50));
    REFUSED(gbt_dataset_set_field(d, "label", x, 4));
    REFUSED(gbt_dataset_set_field(d, "colour", x, 50));
    REFUSED(gbt_dataset_get_field(d, "label", NULL, &u));
    REFUSED(gbt_dataset_set_groups(d, NULL, 1));
    REFUSED(gbt_dataset_shape(NULL, &u, &u));
    REFUSED(gbt_booster_create(NULL));
    REFUSED(gbt_booster_get_param(b, "eta", NULL, 10));
    REFUSED(gbt_booster_get_attr(b, "colour", buf, sizeof buf));
    REFUSED(gbt_booster_update(NULL, d));
    REFUSED(gbt_booster_update(b, NULL));
    REFUSED(gbt_booster_train(b, NULL, 1, NULL, NULL, 0));
    REFUSED(gbt_booster_train(b, d, -1, NULL, NULL, 0));
    REFUSED(gbt_booster_train(b, d, 1, NULL, NULL, 2));
    REFUSED(gbt_booster_eval(b, d, "auc", NULL));
    REFUSED(gbt_booster_eval(b, NULL, "auc", &v));
    REFUSED(gbt_booster_num_rounds(b, NULL));
    REFUSED(gbt_booster_predict_size(b, 1, 0, NULL));
    REFUSED(gbt_booster_predict(b, NULL, 0, out, 4));
    REFUSED(gbt_booster_predict_dense(b, NULL, 1, 4, NAN, 0, out, 4));
    REFUSED(gbt_booster_save(b, NULL));
    REFUSED(gbt_booster_save_to_buffer(b, NULL, &len));
    {
        gbt_booster *tmp = NULL;
        REFUSED(gbt_booster_load(NULL, &tmp));
        REFUSED(gbt_booster_load_from_buffer(NULL, 1, &tmp));
    }
    REFUSED(gbt_booster_load_from_buffer("{}", 2, NULL));
#undef REFUSED
    {
        /* a dataset without labels cannot train; a validation set without labels neither */
        gbt_dataset *nolabel = NULL;
        const gbt_dataset *valid[1];
        gbt_dataset_from_dense(x, 2, 2, NAN, &nolabel);
        ok(gbt_booster_update(b, nolabel) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "no labels"),
           "training data without labels refused: %s", gbt_last_error());
        valid[0] = nolabel;
        ok(gbt_booster_train(b, d, 1, valid, NULL, 1) == GBT_E_INVALID_ARG, "a validation set without labels refused");
        gbt_dataset_free(nolabel);
    }
    ok(gbt_booster_num_rounds(b, &n) == GBT_OK && n == 0, "a new booster has 0 rounds");
    ok(gbt_booster_save_to_buffer(b, &s, &len) == GBT_E_STATE, "a new booster has nothing to save");
    {
        /* CSR checks */
        const uint64_t bad_ptr[3] = {0, 2, 1};
        const uint32_t cols[2] = {0, 5};
        const float vals[2] = {1, 2};
        gbt_dataset *e = NULL;
        ok(gbt_dataset_from_csr(bad_ptr, cols, vals, 2, 6, &e) == GBT_E_INVALID_ARG && e == NULL,
           "decreasing indptr refused");
    }
    gbt_dataset_free(d);
    gbt_dataset_free(NULL);
    gbt_booster_free(b);
    gbt_booster_free(NULL);
    gbt_free(NULL);
    ok(1, "freeing NULL is harmless");
}

static void test_dataset_values(void)
{
    float inf[2] = {1, INFINITY}, w[2] = {1, -1}, y[2] = {0, NAN};
    gbt_dataset *d = NULL;
    const uint32_t sizes[2] = {1, 2}, ok_sizes[2] = {1, 1};
    ok(gbt_dataset_from_dense(inf, 1, 2, NAN, &d) == GBT_E_FORMAT && strstr(gbt_last_error(), "infinite"),
       "an infinite feature value is refused: %s", gbt_last_error());
    gbt_dataset_from_dense(inf, 2, 1, NAN, &d);
    ok(d == NULL, "(the dataset pointer stays NULL on failure)");
    inf[1] = 2;
    gbt_dataset_from_dense(inf, 2, 1, NAN, &d);
    ok(gbt_dataset_set_field(d, "weight", w, 2) == GBT_E_FORMAT && strstr(gbt_last_error(), "negative"),
       "a negative weight is refused: %s", gbt_last_error());
    ok(gbt_dataset_set_field(d, "label", y, 2) == GBT_E_FORMAT && strstr(gbt_last_error(), "NaN"),
       "a NaN label is refused: %s", gbt_last_error());
    ok(gbt_dataset_set_groups(d, sizes, 2) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "sum to 3"),
       "groups not summing to the rows are refused: %s", gbt_last_error());
    ok(gbt_dataset_set_groups(d, ok_sizes, 2) == GBT_OK, "groups summing to the rows are accepted");
    {
        const uint64_t p[2] = {0, 2};
        const uint32_t c[2] = {3, 3};
        const float v[2] = {1, 2};
        gbt_dataset *e = NULL;
        ok(gbt_dataset_from_csr(p, c, v, 1, 4, &e) == GBT_E_FORMAT && strstr(gbt_last_error(), "twice"),
           "a repeated CSR column is refused");
        ok(gbt_dataset_from_csr(p, c, v, 1, 3, &e) == GBT_E_FORMAT && strstr(gbt_last_error(), "outside"),
           "a CSR column beyond ncol is refused");
    }
    gbt_dataset_free(d);
}

static void *other_thread(void *arg)
{
    gbt_booster *b = arg;
    (void)gbt_booster_set_param(b, "no_such", "1");
    return NULL;
}

static void test_errors_and_info(void)
{
    gbt_booster *b;
    pthread_t th;
    const char *info = gbt_build_info();
    gbt_booster_create(&b);
    gbt_booster_set_param(b, "eta", "x");
    pthread_create(&th, NULL, other_thread, b);
    pthread_join(th, NULL);
    ok(strstr(gbt_last_error(), "'eta'") != NULL, "another thread's failure does not change this thread's message");
    ok(strcmp(gbt_status_str(GBT_OK), "success") == 0 && strcmp(gbt_status_str(GBT_E_NO_DEVICE), "no such device") == 0 &&
           strcmp(gbt_status_str((gbt_status)999), "unknown status") == 0,
       "status names");
    ok(GBT_OK == 0 && GBT_E_INVALID_ARG == 1 && GBT_E_DEVICE == 8, "published status values");
    ok(strstr(info, "\"version\"") && strstr(info, "\"openmp\"") && strstr(info, "\"cuda\": {\"compiled\"") &&
           strstr(info, "\"archs\""),
       "build info is JSON with version, openmp and cuda: %s", info);
    ok(strcmp(gbt_version(), PACKAGE_VERSION) == 0, "version %s", gbt_version());
    gbt_booster_free(b);
}

static int logged_info, logged_lines;
static void logger(int level, const char *msg, void *user)
{
    (void)msg;
    *(int *)user += 1;
    if (level == GBT_LOG_INFO) logged_info++;
}

static void test_devices_and_logging(void)
{
    gbt_booster *b;
    gbt_dataset *d;
    char dev[32] = "";
    int n = gbt_device_count();
    tu_seed(3);
    d = tu_dataset(200, 3, 0, 1);
    if (n > 0) {
        skip("a CUDA device is present: the no-device paths are tested on machines without one");
        skip("a CUDA device is present");
        skip("a CUDA device is present");
    } else {
        const char *const cuda[] = {"device=cuda", NULL};
        const char *const cuda3[] = {"device=cuda:3", NULL};
        b = tu_booster(cuda);
        ok(gbt_booster_update(b, d) == GBT_E_NO_DEVICE && strstr(gbt_last_error(), "cuda"),
           "device=cuda without a GPU: GBT_E_NO_DEVICE, never a silent CPU run: %s", gbt_last_error());
        gbt_booster_free(b);
        b = tu_booster(cuda3);
        ok(gbt_booster_update(b, d) == GBT_E_NO_DEVICE, "device=cuda:3 without a GPU: GBT_E_NO_DEVICE");
        gbt_booster_free(b);
        ok(gbt_device_describe(0, dev, sizeof dev, NULL, NULL, NULL, NULL) == GBT_E_NO_DEVICE, "describing device 0 fails");
    }
    {
        const char *const p[] = {"verbosity=2", "objective=binary:logistic", NULL};
        int calls = 0;
        gbt_set_log_callback(logger, &calls);
        b = tu_train(d, 2, p);
        ok(b && gbt_booster_get_attr(b, "device", dev, sizeof dev) == GBT_OK &&
               strcmp(dev, n > 0 ? "cuda:0" : "cpu") == 0,
           "device=auto trains on %s", dev);
        ok(logged_info > 0 && calls > 0, "info messages reach the log callback at verbosity 2 (%d)", logged_info);
        gbt_booster_free(b);
        logged_info = 0;
        {
            const char *const q[] = {"verbosity=1", "objective=binary:logistic", NULL};
            b = tu_train(d, 2, q);
            ok(logged_info == 0, "verbosity 1 keeps info messages back");
            gbt_booster_free(b);
        }
        gbt_set_log_callback(NULL, NULL);
        (void)logged_lines;
    }
    gbt_dataset_free(d);
}

/*
 * gbt.h: out-pointers are written only on success.  Every call with one is
 * made to fail with its out-pointers set to marks, which must survive.
 */
static void test_out_pointers_on_failure(void)
{
    static char mark_storage[64];
    void *const mark = mark_storage;
    gbt_dataset *d = mark, *good;
    gbt_booster *b = mark, *trained;
    const float *values = mark;
    const char *text = mark;
    char *buf = mark, small[4] = "abc", name[8] = "abc";
    uint64_t u = 77, u2 = 78, bad_ptr[3] = {0, 2, 1};
    const uint32_t cols[2] = {0, 1};
    size_t len = 79;
    double v = 80;
    int n = 81, major = 82, minor = 83;
    float x[4] = {1, 2, 3, 4}, y[2] = {0, 1}, out[2] = {84, 85};
    gbt_dataset_from_dense(x, 2, 2, NAN, &good);
    gbt_booster_create(&trained);
    gbt_dataset_set_field(good, "label", y, 2);
    gbt_booster_set_param(trained, "min_child_weight", "0");
    gbt_booster_train(trained, good, 1, NULL, NULL, 0);

    ok(gbt_dataset_from_dense(x, 2, 0, NAN, &d) != GBT_OK && d == mark, "gbt_dataset_from_dense");
    ok(gbt_dataset_from_csr(bad_ptr, cols, x, 2, 2, &d) != GBT_OK && d == mark, "gbt_dataset_from_csr");
    ok(gbt_dataset_from_file("/no/such/file.csv", NULL, &d) != GBT_OK && d == mark,
       "gbt_dataset_from_file (missing file)");
    ok(gbt_dataset_from_file(tu_write("bad.csv", "1,2\n0,x\n"), NULL, &d) != GBT_OK && d == mark,
       "gbt_dataset_from_file (bad data)");
    ok(gbt_dataset_get_field(good, "colour", &values, &u) != GBT_OK && values == mark && u == 77,
       "gbt_dataset_get_field");
    ok(gbt_dataset_shape(NULL, &u, &u2) != GBT_OK && u == 77 && u2 == 78, "gbt_dataset_shape");
    ok(gbt_booster_load("/no/such/model.json", &b) != GBT_OK && b == mark, "gbt_booster_load (missing file)");
    ok(gbt_booster_load(tu_write("bad.model", "{\"format\": 1"), &b) != GBT_OK && b == mark,
       "gbt_booster_load (bad model)");
    ok(gbt_booster_load_from_buffer("{}", 2, &b) != GBT_OK && b == mark, "gbt_booster_load_from_buffer");
    ok(gbt_booster_get_param(trained, "colour", small, sizeof small) != GBT_OK && strcmp(small, "abc") == 0,
       "gbt_booster_get_param (unknown name)");
    ok(gbt_booster_get_param(trained, "objective", small, sizeof small) != GBT_OK && strcmp(small, "abc") == 0,
       "gbt_booster_get_param (buffer too small)");
    ok(gbt_booster_get_attr(trained, "best_iteration", small, sizeof small) != GBT_OK &&
           strcmp(small, "abc") == 0,
       "gbt_booster_get_attr");
    ok(gbt_booster_eval(trained, good, "colour", &v) != GBT_OK && v == 80, "gbt_booster_eval");
    ok(gbt_booster_num_rounds(NULL, &n) != GBT_OK && n == 81, "gbt_booster_num_rounds");
    ok(gbt_booster_predict_size(trained, 2, 1u << 30, &u) != GBT_OK && u == 77, "gbt_booster_predict_size");
    ok(gbt_booster_predict_dense(trained, x, 1, 4, NAN, 0, out, 2) != GBT_OK && out[0] == 84 && out[1] == 85,
       "gbt_booster_predict_dense");
    ok(gbt_booster_save_to_buffer(NULL, &buf, &len) != GBT_OK && buf == mark && len == 79,
       "gbt_booster_save_to_buffer");
    ok(gbt_param_describe(-1, &text, &text, &text, &text, &text, &text) != GBT_OK && text == mark,
       "gbt_param_describe");
    ok(gbt_device_describe(-1, name, sizeof name, &major, &minor, &u, &u2) != GBT_OK &&
           strcmp(name, "abc") == 0 && major == 82 && minor == 83 && u == 77 && u2 == 78,
       "gbt_device_describe");
    gbt_booster_free(trained);
    gbt_dataset_free(good);
}

/*
 * Large inputs are built and checked over threads; the first faulty row
 * (in row order) is the one reported, whatever thread saw which fault, and
 * the data are the input's (the expected values come from the input itself).
 */
static void test_large_inputs(void)
{
    enum { N = 100000, C = 3 };
    float *x = malloc(N * C * sizeof *x), *v = malloc(N * C * sizeof *v);
    uint64_t *p = malloc((N + 1) * sizeof *p), k = 0;
    uint32_t *c = malloc(N * C * sizeof *c);
    gbt_dataset *d = NULL;
    int same = 1;
    for (uint64_t i = 0; i < (uint64_t)N * C; i++) x[i] = i % 11 == 0 ? -1.0f : (float)(i % 1000);
    ok_call(gbt_dataset_from_dense(x, N, C, -1.0f, &d), "a dense dataset of 300,000 cells");
    for (uint64_t i = 0; d && i < (uint64_t)N * C; i++)
        same &= i % 11 == 0 ? isnan(d->dense[i]) : d->dense[i] == x[i];
    ok(d && same && d->nnz == (uint64_t)N * C - ((uint64_t)N * C + 10) / 11,
       "its values are the input's, `missing` as NaN, and nnz counts the rest");
    gbt_dataset_free(d);
    d = NULL;
    x[250000] = INFINITY;
    x[7 * C + 2] = -INFINITY;
    ok(gbt_dataset_from_dense(x, N, C, NAN, &d) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 7:") &&
       strstr(gbt_last_error(), "column 2"), "of two infinite values the first is named: %s", gbt_last_error());
    for (uint64_t r = 0; r < N; r++) {
        p[r] = k;
        /* rows of two or three entries, odd rows in descending order */
        for (uint32_t j = 0; j < C - r % 2; j++) {
            c[k] = r % 2 ? C - 1 - j : j;
            v[k++] = (r * 3 + j) % 5 == 0 ? NAN : (float)(r % 100);
        }
    }
    p[N] = k;
    ok_call(gbt_dataset_from_csr(p, c, v, N, C, &d), "a CSR dataset of %llu entries, half its rows unsorted",
            (unsigned long long)k);
    same = d != NULL;
    for (uint64_t r = 0; same && r < N; r++) {
        uint64_t want = 0;
        for (uint64_t i = p[r]; i < p[r + 1]; i++) want += !isnan(v[i]);
        same &= d->indptr[r + 1] - d->indptr[r] == want;
        for (uint64_t i = d->indptr[r]; i < d->indptr[r + 1]; i++)
            same &= (i == d->indptr[r] || d->indices[i] > d->indices[i - 1]) && d->values[i] == (float)(r % 100);
    }
    ok(same, "its rows come sorted, NaN entries dropped");
    gbt_dataset_free(d);
    d = NULL;
    c[p[90000]] = 7;            /* row 90000: a column out of range */
    c[p[60001] + 1] = c[p[60001]]; /* row 60001: a repeated column (an unsorted row) */
    ok(gbt_dataset_from_csr(p, c, v, N, C, &d) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 60001:") &&
       strstr(gbt_last_error(), "twice"), "the first faulty row is named (a repeat before a range error): %s",
       gbt_last_error());
    v[p[50000]] = INFINITY;
    ok(gbt_dataset_from_csr(p, c, v, N, C, &d) == GBT_E_FORMAT && strstr(gbt_last_error(), "row 50000:") &&
       strstr(gbt_last_error(), "infinite"), "and an earlier infinite value before both: %s", gbt_last_error());
    ok(d == NULL, "(no dataset on failure)");
    free(x);
    free(v);
    free(p);
    free(c);
}

int main(void)
{
    test_out_pointers_on_failure();
    test_null_arguments();
    test_dataset_values();
    test_large_inputs();
    test_errors_and_info();
    test_devices_and_logging();
    return done_testing();
}
