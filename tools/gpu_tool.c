/*
 * gpu_tool.c - helpers of `make gpu-validate` (tools/gpu-validate.sh).
 *
 *   gpu_tool devices
 *       lists the CUDA devices; without one, says why and exits 3
 *   gpu_tool synth ROWS FILE
 *       writes a deterministic synthetic CSV (label first: binary, 20
 *       features of several kinds, some missing)
 *   gpu_tool compare MODEL DATA
 *       predicts DATA with MODEL on device=cpu and device=cuda (values, raw
 *       margins, leaf ids, and on sets of at most 100000 rows SHAP values and
 *       SHAP interaction values of at most 2^26 floats) and compares the bits:
 *       prints identical or DIFFERENT
 *   gpu_tool bench FILE ROUNDS [NAME=VALUE ...]
 *       trains ROUNDS rounds on device=cpu and on device=cuda, prints the
 *       milliseconds per round after the first and whether the two models
 *       are byte-identical (exit 1 if not)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/rng.h"
#include "gbt.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int die(const char *what, gbt_status s)
{
    fprintf(stderr, "gpu_tool: %s: %s (%s)\n", what, gbt_last_error(), gbt_status_str(s));
    return 2;
}

static int devices(void)
{
    int n = gbt_device_count();
    printf("%d CUDA device(s)\n", n);
    if (n == 0 && gbt_device_describe(0, NULL, 0, NULL, NULL, NULL, NULL) != GBT_OK)
        printf("%s\n", gbt_last_error()); /* why: the driver's error, when it gave one */
    for (int i = 0; i < n; i++) {
        char name[256];
        int major = 0, minor = 0;
        uint64_t total = 0, fr = 0;
        gbt_status s = gbt_device_describe(i, name, sizeof name, &major, &minor, &total, &fr);
        if (s != GBT_OK) return die("describing a device", s);
        printf("cuda:%d %s, compute capability %d.%d, %.0f MiB, %.0f MiB free\n", i, name, major,
               minor, (double)total / 1048576.0, (double)fr / 1048576.0);
    }
    return n > 0 ? 0 : 3;
}

static double u(uint64_t r, uint64_t f)
{
    return gbt_unit(gbt_draw(12345, 77, r, f));
}

static int synth(const char *rows_text, const char *path)
{
    const long rows = strtol(rows_text, NULL, 10);
    enum { M = 20 };
    FILE *f = fopen(path, "w");
    if (f == NULL || rows <= 0) {
        fprintf(stderr, "gpu_tool: cannot write %s rows to %s\n", rows_text, path);
        return 2;
    }
    for (long r = 0; r < rows; r++) {
        double x[M], score = 0.0;
        int missing[M];
        for (int j = 0; j < M; j++) {
            double v = u((uint64_t)r, (uint64_t)j);
            missing[j] = 0;
            switch (j % 4) {
            case 0: x[j] = floor(v * 10.0); break;                      /* 10 levels */
            case 1: x[j] = v * 4.0 - 2.0; break;                        /* uniform */
            case 2: x[j] = v * v * 100.0; missing[j] = u((uint64_t)r, 100 + (uint64_t)j) < 0.1; break;
            default: x[j] = log(v + 1e-9); break;                       /* long left tail */
            }
            if (!missing[j]) score += (j % 3 == 0 ? 0.4 : -0.25) * (j % 4 == 2 ? x[j] / 30.0 : x[j]);
        }
        score += x[1] * x[5] * 0.5;
        fprintf(f, "%d", u((uint64_t)r, 999) < 1.0 / (1.0 + exp(-score)) ? 1 : 0);
        for (int j = 0; j < M; j++) {
            if (missing[j])
                fputs(",", f);
            else
                fprintf(f, ",%.6g", x[j]);
        }
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "gpu_tool: error writing %s\n", path);
        return 2;
    }
    return 0;
}

static gbt_status predict(gbt_booster *b, const gbt_dataset *d, const char *device, unsigned flags,
                          float **out, uint64_t *len)
{
    uint64_t n = 0;
    gbt_status s = gbt_booster_set_param(b, "device", device);
    if (s == GBT_OK) s = gbt_dataset_shape(d, &n, NULL);
    if (s == GBT_OK) s = gbt_booster_predict_size(b, n, flags, len);
    if (s != GBT_OK) return s;
    *out = malloc(*len * sizeof **out + 1);
    if (*out == NULL) return GBT_E_NO_MEMORY;
    return gbt_booster_predict(b, d, flags, *out, *len);
}

/* the prediction kinds compared, and their names in a DIFFERENT line */
static const struct {
    unsigned flags;
    const char *name;
} kinds[] = {{0, "value"},
             {GBT_PREDICT_MARGIN, "margin"},
             {GBT_PREDICT_LEAF, "leaf"},
             {GBT_PREDICT_CONTRIBS, "contribs"},
             {GBT_PREDICT_INTERACTIONS, "interactions"}};

/* SHAP values and interactions are compared only on sets of at most this many
 * rows (the CPU side takes minutes on the 1M-row set), and only up to this
 * many floats (interactions: (F + 1) squared per row and class) */
#define MAX_SHAP_ROWS 100000
#define MAX_COMPARED ((uint64_t)1 << 26)

static int compare(const char *model, const char *data)
{
    gbt_booster *b;
    gbt_dataset *d;
    gbt_status s = gbt_booster_load(model, &b);
    int bad = 0;
    uint64_t n = 0, len = 0;
    if (s != GBT_OK) return die("loading the model", s);
    s = gbt_dataset_from_file(data, NULL, &d);
    if (s != GBT_OK) return die("reading the data", s);
    s = gbt_dataset_shape(d, &n, NULL);
    if (s != GBT_OK) return die("reading the data", s);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && !bad; k++) {
        float *pc = NULL, *pg = NULL;
        uint64_t lc = 0, lg = 0;
        s = gbt_booster_predict_size(b, n, kinds[k].flags, &len);
        if (s != GBT_OK) return die("sizing the predictions", s);
        if (kinds[k].flags >= GBT_PREDICT_CONTRIBS && (n > MAX_SHAP_ROWS || len > MAX_COMPARED)) {
            printf("(%s: %llu rows, %llu floats, not compared) ", kinds[k].name,
                   (unsigned long long)n, (unsigned long long)len);
            continue;
        }
        s = predict(b, d, "cpu", kinds[k].flags, &pc, &lc);
        if (s != GBT_OK) return die("predicting on the CPU", s);
        s = predict(b, d, "cuda", kinds[k].flags, &pg, &lg);
        if (s != GBT_OK) return die("predicting on the GPU", s);
        for (uint64_t i = 0; i < lc; i++)
            if (memcmp(&pc[i], &pg[i], sizeof pc[i]) != 0) {
                printf("DIFFERENT (%s %llu: %.9g on cpu, %.9g on cuda)\n", kinds[k].name,
                       (unsigned long long)i, (double)pc[i], (double)pg[i]);
                bad = 1;
                break;
            }
        free(pc);
        free(pg);
    }
    if (!bad) printf("identical\n");
    gbt_dataset_free(d);
    gbt_booster_free(b);
    return bad;
}

static int bench(int argc, char **argv)
{
    const char *devs[2] = {"cpu", "cuda"};
    const int rounds = atoi(argv[3]);
    double per[2], first[2];
    char *model[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    uint64_t nrow = 0, ncol = 0;
    gbt_dataset *d;
    gbt_status s = gbt_dataset_from_file(argv[2], NULL, &d);
    int same;
    if (s != GBT_OK) return die("reading the data", s);
    if (rounds < 2) {
        fprintf(stderr, "gpu_tool: bench needs at least 2 rounds\n");
        return 2;
    }
    gbt_dataset_shape(d, &nrow, &ncol);
    for (int k = 0; k < 2; k++) {
        gbt_booster *b;
        double t0, t1;
        s = gbt_booster_create(&b);
        if (s == GBT_OK) s = gbt_booster_set_param(b, "device", devs[k]);
        for (int i = 4; i < argc && s == GBT_OK; i++) {
            char name[128], *eq = strchr(argv[i], '=');
            if (eq == NULL || (size_t)(eq - argv[i]) >= sizeof name) {
                fprintf(stderr, "gpu_tool: expected NAME=VALUE, got '%s'\n", argv[i]);
                return 2;
            }
            memcpy(name, argv[i], (size_t)(eq - argv[i]));
            name[eq - argv[i]] = '\0';
            s = gbt_booster_set_param(b, name, eq + 1);
        }
        if (s != GBT_OK) return die("setting parameters", s);
        t0 = now();
        s = gbt_booster_update(b, d);
        t1 = now();
        for (int r = 1; r < rounds && s == GBT_OK; r++) s = gbt_booster_update(b, d);
        if (s != GBT_OK) return die(k ? "training on the GPU" : "training on the CPU", s);
        first[k] = t1 - t0;
        per[k] = (now() - t1) * 1000.0 / (double)(rounds - 1);
        s = gbt_booster_save_to_buffer(b, &model[k], &len[k]);
        if (s != GBT_OK) return die("saving", s);
        gbt_booster_free(b);
    }
    same = len[0] == len[1] && memcmp(model[0], model[1], len[0]) == 0;
    printf("bench: %llu rows x %llu features, %d rounds: cpu %.1f ms/round (first round %.2f s), "
           "cuda %.1f ms/round (first round %.2f s), x%.1f; models %s\n",
           (unsigned long long)nrow, (unsigned long long)ncol, rounds, per[0], first[0], per[1],
           first[1], per[1] > 0 ? per[0] / per[1] : 0.0, same ? "identical" : "DIFFERENT");
    gbt_free(model[0]);
    gbt_free(model[1]);
    gbt_dataset_free(d);
    return same ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "devices") == 0) return devices();
    if (argc == 4 && strcmp(argv[1], "synth") == 0) return synth(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[1], "compare") == 0) return compare(argv[2], argv[3]);
    if (argc >= 4 && strcmp(argv[1], "bench") == 0) return bench(argc, argv);
    fprintf(stderr, "usage: gpu_tool devices | synth ROWS FILE | compare MODEL DATA | "
                    "bench FILE ROUNDS [NAME=VALUE ...]\n");
    return 2;
}
