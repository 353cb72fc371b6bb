/*
 * gbt_bench.c - times gbt on a workload written by gen_workload.
 *
 *   gbt_bench --data DIR [options] [name=value ...]
 *
 * Loads the workload (not timed), builds the training dataset from memory
 * (gbt_dataset_from_dense or gbt_dataset_from_csr, plus the labels: timed
 * as "construct_s"), trains with gbt_booster_update round by round (timed
 * as "train_s"; the first round also bins the data, see "first_round_s"),
 * computes the test metric with gbt_booster_eval and prints one JSON object
 * on stdout.  Every name=value argument is passed to
 * gbt_booster_set_param (objective, max_depth, nthread, device, ...).
 *
 * Options
 *   --data DIR          workload directory (meta.json and the raw files)
 *   --rounds N          boosting rounds (default 100)
 *   --train-rows N      train on the first N training rows only (default: all)
 *   --metric NAME       test metric (default: auc for binary tasks,
 *                       mlogloss for multiclass, rmse otherwise)
 *   --predict           also time prediction: batch throughput on the
 *                       training rows (best of --repeat) and the latency
 *                       of single-row gbt_booster_predict_dense calls
 *   --predict-rows N    rows for the batch prediction (default: all)
 *   --repeat N          batch predictions to take the best of (default 3)
 *   --latency-calls N   single-row calls to take the median of (default 2000)
 *   --save FILE         save the trained model (gbt_booster_save)
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gbt.h"

/* ---- small helpers ---------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Writes s as a JSON string literal. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* A finite number, or null. */
static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "gbt_bench: %s%s%s\n", what, detail && *detail ? ": " : "", detail ? detail : "");
    printf("{\"library\": \"gbt\", \"error\": ");
    {
        char msg[2048];
        snprintf(msg, sizeof msg, "%s%s%s", what, detail && *detail ? ": " : "", detail ? detail : "");
        json_str(stdout, msg);
    }
    printf("}\n");
    exit(1);
}

static void check(gbt_status s, const char *what)
{
    if (s != GBT_OK) {
        char msg[2048];
        snprintf(msg, sizeof msg, "%s (%s)", gbt_last_error(), gbt_status_str(s));
        fail(what, msg);
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) fail("out of memory", NULL);
    return p;
}

static uint64_t parse_u64(const char *s, const char *what)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*s < '0' || *s > '9' || *end != '\0' || errno) fail("bad number for option", what);
    return (uint64_t)v;
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* Reads exactly n items of `size` bytes (little-endian) from DIR/NAME into a new buffer. */
static void *read_raw(const char *dir, const char *name, size_t size, uint64_t n)
{
    char path[4096];
    unsigned char *buf = xmalloc((size_t)n * size);
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "rb");
    if (f == NULL) fail("cannot open", path);
    if (fread(buf, size, (size_t)n, f) != (size_t)n) fail("file too short", path);
    if (fgetc(f) != EOF) fail("file longer than meta.json says", path);
    fclose(f);
    if (!host_is_little_endian())
        for (uint64_t i = 0; i < n; i++)
            for (size_t a = 0, z = size - 1; a < z; a++, z--) {
                unsigned char t = buf[i * size + a];
                buf[i * size + a] = buf[i * size + z];
                buf[i * size + z] = t;
            }
    return buf;
}

/* ---- meta.json (written by gen_workload: flat, one object) ------------- */

static char *read_text(const char *dir, const char *name)
{
    char path[4096];
    FILE *f;
    long n;
    char *s;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "rb");
    if (f == NULL) fail("cannot open", path);
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        fail("cannot read", path);
    s = xmalloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) fail("cannot read", path);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* The text just after "key": in a flat JSON object, or NULL. */
static const char *meta_value(const char *json, const char *key)
{
    char pat[128];
    const char *p;
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = strstr(json, pat);
    if (p == NULL) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    return p;
}

static uint64_t meta_u64(const char *json, const char *key)
{
    const char *p = meta_value(json, key);
    if (p == NULL || *p < '0' || *p > '9') fail("meta.json lacks a number for", key);
    return (uint64_t)strtoull(p, NULL, 10);
}

static void meta_str(const char *json, const char *key, char *buf, size_t len)
{
    const char *p = meta_value(json, key), *e;
    if (p == NULL || *p != '"' || (e = strchr(p + 1, '"')) == NULL || (size_t)(e - p - 1) >= len)
        fail("meta.json lacks a string for", key);
    memcpy(buf, p + 1, (size_t)(e - p - 1));
    buf[e - p - 1] = '\0';
}

static int meta_bool(const char *json, const char *key)
{
    const char *p = meta_value(json, key);
    if (p == NULL) fail("meta.json lacks", key);
    return strncmp(p, "true", 4) == 0;
}

/* ---- a split of the workload -------------------------------------------- */

struct split {
    uint64_t nrow, ncol, nnz;
    float *dense;             /* dense workloads */
    uint64_t *indptr;         /* sparse workloads */
    uint32_t *indices;
    float *values;
    float *label;
};

static void load_split(const char *dir, const char *name, int sparse, uint64_t nrow, uint64_t ncol,
                       struct split *s)
{
    char file[256];
    memset(s, 0, sizeof *s);
    s->nrow = nrow;
    s->ncol = ncol;
    snprintf(file, sizeof file, "y_%s.f32", name);
    s->label = read_raw(dir, file, sizeof(float), nrow);
    if (!sparse) {
        snprintf(file, sizeof file, "X_%s.f32", name);
        s->dense = read_raw(dir, file, sizeof(float), nrow * ncol);
        s->nnz = nrow * ncol;
        return;
    }
    snprintf(file, sizeof file, "X_%s.indptr.u64", name);
    s->indptr = read_raw(dir, file, sizeof(uint64_t), nrow + 1);
    s->nnz = s->indptr[nrow];
    snprintf(file, sizeof file, "X_%s.indices.u32", name);
    s->indices = read_raw(dir, file, sizeof(uint32_t), s->nnz);
    snprintf(file, sizeof file, "X_%s.values.f32", name);
    s->values = read_raw(dir, file, sizeof(float), s->nnz);
}

static void free_split(struct split *s)
{
    free(s->dense);
    free(s->indptr);
    free(s->indices);
    free(s->values);
    free(s->label);
}

/* A labelled gbt dataset of the first nrow rows of s. */
static gbt_dataset *make_dataset(const struct split *s, uint64_t nrow)
{
    gbt_dataset *d = NULL;
    if (s->dense)
        check(gbt_dataset_from_dense(s->dense, nrow, s->ncol, NAN, &d), "gbt_dataset_from_dense");
    else
        check(gbt_dataset_from_csr(s->indptr, s->indices, s->values, nrow, s->ncol, &d),
              "gbt_dataset_from_csr");
    check(gbt_dataset_set_field(d, "label", s->label, nrow), "gbt_dataset_set_field(label)");
    return d;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void log_to_stderr(int level, const char *msg, void *user)
{
    (void)user;
    fprintf(stderr, "gbt[%d]: %s\n", level, msg);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: gbt_bench --data DIR [--rounds N] [--train-rows N] [--metric NAME]\n"
            "                 [--predict] [--predict-rows N] [--repeat N] [--latency-calls N]\n"
            "                 [--save FILE] [name=value ...]\n");
    exit(2);
}

#define MAX_PARAMS 64

int main(int argc, char **argv)
{
    const char *dir = NULL, *metric = NULL, *save = NULL;
    const char *pname[MAX_PARAMS], *pval[MAX_PARAMS];
    char pbuf[MAX_PARAMS][256], task[64], kind[64], device[64] = "cpu", device_name[256] = "";
    int nparam = 0, rounds = 100, do_predict = 0, repeat = 3;
    uint64_t train_rows = 0, predict_rows = 0, latency_calls = 2000;
    uint64_t nrow, ntest, ncol;
    int sparse, num_class;
    char *meta;
    struct split train, test;
    gbt_dataset *dtrain, *dtest;
    gbt_booster *b;
    double t0, load_s, construct_s, train_s, first_round_s = NAN, metric_value, eval_s;
    double predict_best = NAN, lat_median = NAN, lat_p99 = NAN;
    uint64_t npred = 0;
    struct rusage ru;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) == 0) {
            if (strcmp(a, "--predict") == 0) {
                do_predict = 1;
                continue;
            }
            if (i + 1 >= argc) usage();
            if (strcmp(a, "--data") == 0)
                dir = argv[++i];
            else if (strcmp(a, "--rounds") == 0)
                rounds = (int)parse_u64(argv[++i], a);
            else if (strcmp(a, "--train-rows") == 0)
                train_rows = parse_u64(argv[++i], a);
            else if (strcmp(a, "--metric") == 0)
                metric = argv[++i];
            else if (strcmp(a, "--predict-rows") == 0)
                predict_rows = parse_u64(argv[++i], a);
            else if (strcmp(a, "--repeat") == 0)
                repeat = (int)parse_u64(argv[++i], a);
            else if (strcmp(a, "--latency-calls") == 0)
                latency_calls = parse_u64(argv[++i], a);
            else if (strcmp(a, "--save") == 0)
                save = argv[++i];
            else
                usage();
        } else if (eq != NULL && eq != a && nparam < MAX_PARAMS) {
            size_t n = (size_t)(eq - a);
            if (n >= sizeof pbuf[0]) usage();
            memcpy(pbuf[nparam], a, n);
            pbuf[nparam][n] = '\0';
            pname[nparam] = pbuf[nparam];
            pval[nparam] = eq + 1;
            nparam++;
        } else {
            usage();
        }
    }
    if (dir == NULL || repeat < 1) usage();
    gbt_set_log_callback(log_to_stderr, NULL);

    /* ---- load (not timed as construction) ---- */
    t0 = now();
    meta = read_text(dir, "meta.json");
    nrow = meta_u64(meta, "rows");
    ntest = meta_u64(meta, "test_rows");
    ncol = meta_u64(meta, "cols");
    num_class = (int)meta_u64(meta, "num_class");
    sparse = meta_bool(meta, "sparse");
    meta_str(meta, "task", task, sizeof task);
    meta_str(meta, "kind", kind, sizeof kind);
    if (metric == NULL)
        metric = strcmp(task, "binary") == 0 ? "auc" : strcmp(task, "multiclass") == 0 ? "mlogloss" : "rmse";
    load_split(dir, "train", sparse, nrow, ncol, &train);
    load_split(dir, "test", sparse, ntest, ncol, &test);
    if (train_rows == 0 || train_rows > nrow) train_rows = nrow;
    load_s = now() - t0;

    /* ---- dataset construction ---- */
    t0 = now();
    dtrain = make_dataset(&train, train_rows);
    construct_s = now() - t0;

    /* ---- training ---- */
    check(gbt_booster_create(&b), "gbt_booster_create");
    for (int i = 0; i < nparam; i++) {
        char what[512];
        snprintf(what, sizeof what, "parameter %s=%s", pname[i], pval[i]);
        check(gbt_booster_set_param(b, pname[i], pval[i]), what);
    }
    t0 = now();
    for (int r = 0; r < rounds; r++) {
        check(gbt_booster_update(b, dtrain), "gbt_booster_update");
        if (r == 0) first_round_s = now() - t0;
    }
    train_s = now() - t0;
    if (rounds > 0) gbt_booster_get_attr(b, "device", device, sizeof device);
    if (strncmp(device, "cuda:", 5) == 0)
        gbt_device_describe(atoi(device + 5), device_name, sizeof device_name, NULL, NULL, NULL, NULL);

    /* ---- test metric (not timed as training) ---- */
    dtest = make_dataset(&test, ntest);
    t0 = now();
    check(gbt_booster_eval(b, dtest, metric, &metric_value), "gbt_booster_eval");
    eval_s = now() - t0;
    gbt_dataset_free(dtest);

    if (save) check(gbt_booster_save(b, save), "gbt_booster_save");

    /* ---- prediction ---- */
    if (do_predict) {
        uint64_t len, len1;
        float *out, out1[64];
        gbt_dataset *dp = NULL;
        npred = predict_rows && predict_rows < nrow ? predict_rows : nrow;
        check(gbt_booster_predict_size(b, npred, 0, &len), "gbt_booster_predict_size");
        check(gbt_booster_predict_size(b, 1, 0, &len1), "gbt_booster_predict_size");
        if (len1 > 64) fail("too many outputs per row", NULL);
        out = xmalloc((size_t)len * sizeof *out);
        if (sparse) dp = make_dataset(&train, npred);
        for (int r = 0; r < repeat; r++) {
            double t;
            t0 = now();
            if (sparse)
                check(gbt_booster_predict(b, dp, 0, out, len), "gbt_booster_predict");
            else
                check(gbt_booster_predict_dense(b, train.dense, npred, ncol, NAN, 0, out, len),
                      "gbt_booster_predict_dense");
            t = now() - t0;
            if (r == 0 || t < predict_best) predict_best = t;
        }
        gbt_dataset_free(dp);
        free(out);
        if (!sparse && latency_calls > 0) {
            double *lat = xmalloc((size_t)latency_calls * sizeof *lat);
            const uint64_t warm = latency_calls < 20 ? latency_calls : 20;
            for (uint64_t c = 0; c < warm + latency_calls; c++) {
                const uint64_t row = (c * 7919u) % npred;
                t0 = now();
                check(gbt_booster_predict_dense(b, train.dense + row * ncol, 1, ncol, NAN, 0, out1, len1),
                      "gbt_booster_predict_dense (one row)");
                if (c >= warm) lat[c - warm] = now() - t0;
            }
            qsort(lat, (size_t)latency_calls, sizeof *lat, cmp_double);
            lat_median = lat[latency_calls / 2];
            lat_p99 = lat[(latency_calls * 99) / 100 < latency_calls ? (latency_calls * 99) / 100 : latency_calls - 1];
            free(lat);
        }
    }

    getrusage(RUSAGE_SELF, &ru);
    printf("{\"library\": \"gbt\", \"version\": ");
    json_str(stdout, gbt_version());
    printf(", \"build_info\": %s", gbt_build_info());
    printf(", \"workload_kind\": ");
    json_str(stdout, kind);
    printf(", \"device\": ");
    json_str(stdout, device);
    printf(", \"device_name\": ");
    json_str(stdout, device_name);
    printf(", \"params\": {");
    for (int i = 0; i < nparam; i++) {
        printf("%s", i ? ", " : "");
        json_str(stdout, pname[i]);
        printf(": ");
        json_str(stdout, pval[i]);
    }
    printf("}, \"train_rows\": %llu, \"test_rows\": %llu, \"cols\": %llu, \"rounds\": %d",
           (unsigned long long)train_rows, (unsigned long long)ntest, (unsigned long long)ncol, rounds);
    printf(", \"num_class\": %d, \"sparse\": %s", num_class, sparse ? "true" : "false");
    printf(", \"load_s\": ");
    json_num(stdout, load_s);
    printf(", \"construct_s\": ");
    json_num(stdout, construct_s);
    printf(", \"train_s\": ");
    json_num(stdout, train_s);
    printf(", \"first_round_s\": ");
    json_num(stdout, first_round_s);
    printf(", \"ms_per_round\": ");
    json_num(stdout, rounds ? 1000.0 * train_s / rounds : NAN);
    printf(", \"metric\": ");
    json_str(stdout, metric);
    printf(", \"metric_value\": ");
    json_num(stdout, metric_value);
    printf(", \"eval_s\": ");
    json_num(stdout, eval_s);
    if (do_predict) {
        printf(", \"predict_rows\": %llu, \"predict_s\": ", (unsigned long long)npred);
        json_num(stdout, predict_best);
        printf(", \"predict_rows_per_s\": ");
        json_num(stdout, (double)npred / predict_best);
        printf(", \"latency_calls\": %llu, \"latency_us_median\": ", (unsigned long long)latency_calls);
        json_num(stdout, 1e6 * lat_median);
        printf(", \"latency_us_p99\": ");
        json_num(stdout, 1e6 * lat_p99);
    }
    printf(", \"peak_rss_mib\": ");
    json_num(stdout, (double)ru.ru_maxrss / 1024.0);
    printf("}\n");

    gbt_booster_free(b);
    gbt_dataset_free(dtrain);
    free_split(&train);
    free_split(&test);
    free(meta);
    return 0;
}
