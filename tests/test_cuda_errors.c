/*
 * test_cuda_errors.c - device selection and the CUDA error paths.
 *
 * Without a GPU (or without CUDA compiled in): the library reports 0
 * devices, device=cuda and cuda:N are GBT_E_NO_DEVICE with a message that
 * says why, device=auto trains on the CPU, describing device 0 fails, and
 * prediction with device=cuda fails the same way.  With a GPU: describing
 * it works, an ordinal out of range is GBT_E_NO_DEVICE, and a memory
 * estimate larger than the free memory (forced with the test hook
 * GBT_CUDA_FAKE_FREE_BYTES) is GBT_E_DEVICE naming the bytes needed and
 * free, after which the same booster trains (on the CPU, then the GPU).
 * The parts that need a GPU print "# SKIP no CUDA device" without one.
 *
 * Built against the CUDA emulator (GBT_CUDA_EMU), the test has its device
 * (tests/cuda_nodevice.sh runs it again with an emulated driver that is
 * too old, for the no-device half, which then skips nothing and checks
 * that the messages and the log of device=auto name the driver's error),
 * and it also
 * injects a failure at every call of each kind (allocations, copies,
 * launches, streams, events, synchronisations) of a training and a
 * prediction on the device: each must end in GBT_E_DEVICE with a message,
 * or, where the backend ignores that call's error on purpose (releasing),
 * in the right model; no device memory may stay allocated; the next
 * training must give the CPU's model bytes.  Driving the backend's
 * operations directly, a histogram call whose launch fails must leave the
 * slots it was writing empty (unreadable, refused as a subtraction's
 * operand) and no scratch mark behind.  With two emulated devices
 * (tests/cuda_twodevices.sh), every call leaves the calling thread's current
 * device as it found it.  device=auto trains and predicts on the CPU, with
 * the same bits and a logged reason, when the device cannot (memory estimate
 * over the free memory, an allocation failing); device=cuda fails then.
 * The memory estimate is at least what a context takes on the device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "data/dataset.h"
#include "gbt.h"
#include "data/quantize.h"
#include "tap.h"
#ifdef GBT_CUDA_EMU
#include "gbt_emu.h"
#endif

#define SKIP_NO_DEVICE "no CUDA device"

static gbt_dataset *data_of(int N)
{
    enum { M = 4 };
    static float x[1200 * M], y[1200];
    gbt_dataset *d = NULL;
    for (int r = 0; r < N; r++) {
        for (int f = 0; f < M; f++) x[r * M + f] = (float)((r * 7 + f * 13) % 17) / 4.0f;
        y[r] = x[r * M] + 0.5f * x[r * M + 1] > 3.0f ? 1.0f : 0.0f;
    }
    if (gbt_dataset_from_dense(x, N, M, NAN, &d) != GBT_OK) return NULL;
    if (gbt_dataset_set_field(d, "label", y, N) != GBT_OK) {
        gbt_dataset_free(d);
        return NULL;
    }
    return d;
}

static gbt_dataset *small_data(void)
{
    return data_of(300);
}

static gbt_booster *booster(const char *device)
{
    gbt_booster *b = NULL;
    if (gbt_booster_create(&b) != GBT_OK) return NULL;
    if (gbt_booster_set_param(b, "objective", "binary:logistic") != GBT_OK ||
        gbt_booster_set_param(b, "device", device) != GBT_OK ||
        gbt_booster_set_param(b, "max_depth", "3") != GBT_OK) {
        gbt_booster_free(b);
        return NULL;
    }
    return b;
}

static int contains(const char *s, const char *part)
{
    return strstr(s, part) != NULL;
}

/* The messages of the log callback, each followed by "; ". */
static char logged[8192];

static void log_to_buffer(int level, const char *msg, void *user)
{
    size_t used = strlen(logged);
    (void)level;
    (void)user;
    snprintf(logged + used, sizeof logged - used, "%s; ", msg);
}

#ifdef GBT_CUDA_EMU
/*
 * Two rounds on device (cuda or cpu) and a prediction of 1200 rows (enough
 * for the device to predict them); the model's bytes in *model.
 */
static gbt_status train_predict(const gbt_dataset *d, const char *device, char **model, size_t *len)
{
    static float pred[1200];
    static gbt_dataset *p;
    gbt_booster *b = booster(device);
    gbt_status s = b ? gbt_booster_train(b, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
    *model = NULL;
    if (p == NULL) p = data_of(1200);
    if (s == GBT_OK) s = p ? gbt_booster_predict(b, p, 0, pred, 1200) : GBT_E_INTERNAL;
    if (s == GBT_OK) s = gbt_booster_save_to_buffer(b, model, len);
    gbt_booster_free(b);
    return s;
}

/* One histogram job on the CUDA backend's context ctx. */
static gbt_status hist_job(const struct gbt_backend_ops *cu, void *ctx, int op, int slot, int src)
{
    struct gbt_hist_job job = {op, 0, slot, src};
    return cu->histograms(ctx, &job, 1);
}

/*
 * Opens the CUDA backend on cuda:0 for a binary:logistic training of d
 * (300 rows) with the given node and slot counts; *qm is the binned data,
 * to be freed by the caller.
 */
static gbt_status open_plan(const gbt_dataset *d, struct gbt_qmatrix *qm, uint32_t max_nodes,
                            uint32_t max_slots, int no_column_sampling, void **ctx)
{
    static double margin[300];
    struct gbt_train_plan plan;
    gbt_status s = gbt__quantize(d, 256, 1, qm);
    *ctx = NULL;
    if (s != GBT_OK) return s;
    memset(&plan, 0, sizeof plan);
    plan.qm = qm;
    plan.label = d->label;
    plan.margin = margin;
    plan.nrow = qm->nrow;
    plan.num_class = 1;
    plan.objective = GBT_OBJ_BINARY_LOGISTIC;
    plan.max_nodes = max_nodes;
    plan.max_slots = max_slots;
    plan.nthread = 1;
    plan.no_column_sampling = no_column_sampling;
    return qm->nrow <= 300 ? gbt__backend_cuda()->open(0, &plan, ctx) : GBT_E_INTERNAL;
}

/*
 * The backend's operations on cuda:0 directly: a launch that fails while a
 * slot is built or subtracted leaves the slot holding nothing, so that
 * reading it and subtracting from it fail, and leaves no mark that changes
 * how later subtractions are launched.
 */
static void test_histogram_failure(const gbt_dataset *d)
{
    const struct gbt_backend_ops *cu = gbt__backend_cuda();
    static struct gbt_hbin h[1024];
    struct gbt_qmatrix qm;
    struct gbt_class_sums sums;
    struct gbt_grad_request req = {.round = 0, .seed = 7, .subsample = 1.0, .obj = {.scale_pos = 1.0, .poisson_delta = 0.0, .huber_slope = 1.0, .tweedie_rho = 1.5, .aft_sigma = 1.0}};
    struct gbt_hist_job two[2] = {{GBT_HIST_SUBTRACT, 0, 2, 0}, {GBT_HIST_SUBTRACT, 0, 3, 1}};
    void *ctx = NULL;
    long launches;
    gbt_status s = open_plan(d, &qm, 8, 4, 1, &ctx);

    if (s == GBT_OK) s = qm.cuts.total_slots <= 1024 ? GBT_OK : GBT_E_INTERNAL;
    if (s == GBT_OK) s = cu->gradients(ctx, &req, &sums);
    if (s == GBT_OK) s = cu->begin_tree(ctx, 0);
    if (s == GBT_OK) s = hist_job(cu, ctx, GBT_HIST_BUILD, 0, 0);
    if (s == GBT_OK) s = cu->read_histogram(ctx, 0, h);
    ok(s == GBT_OK, "the backend builds slot 0 on cuda:0: %s", s == GBT_OK ? "ok" : gbt_last_error());
    if (s != GBT_OK) {
        if (ctx) cu->close(ctx);
        gbt__qmatrix_free(&qm);
        return;
    }

    gbt_emu_fail_nth("launch", 1);
    s = hist_job(cu, ctx, GBT_HIST_BUILD, 1, 0);
    gbt_emu_fail_nth("launch", 0);
    ok(s == GBT_E_DEVICE, "a launch failing while slot 1 is built is GBT_E_DEVICE: %s", gbt_last_error());
    s = cu->read_histogram(ctx, 1, h);
    ok(s != GBT_OK && contains(gbt_last_error(), "holds nothing"),
       "then slot 1 holds nothing: %s", gbt_last_error());
    s = hist_job(cu, ctx, GBT_HIST_SUBTRACT, 0, 1);
    ok(s != GBT_OK && contains(gbt_last_error(), "empty slot"),
       "and subtracting it from slot 0 is refused: %s", gbt_last_error());
    s = cu->read_histogram(ctx, 0, h);
    ok(s == GBT_OK, "slot 0, which that refusal did not touch, still reads");

    s = hist_job(cu, ctx, GBT_HIST_BUILD, 1, 0);
    if (s == GBT_OK) {
        gbt_emu_fail_nth("launch", 1);
        s = hist_job(cu, ctx, GBT_HIST_SUBTRACT, 1, 0);
        gbt_emu_fail_nth("launch", 0);
    }
    ok(s == GBT_E_DEVICE, "a subtraction whose launch fails is GBT_E_DEVICE: %s", gbt_last_error());
    s = cu->read_histogram(ctx, 1, h);
    ok(s != GBT_OK && contains(gbt_last_error(), "holds nothing"),
       "then its destination holds nothing: %s", gbt_last_error());

    /* no mark stays from the failed call: two independent subtractions are one launch */
    s = hist_job(cu, ctx, GBT_HIST_BUILD, 1, 0);
    if (s == GBT_OK) s = hist_job(cu, ctx, GBT_HIST_BUILD, 2, 0);
    if (s == GBT_OK) s = hist_job(cu, ctx, GBT_HIST_BUILD, 3, 0);
    launches = gbt_emu_calls("launch");
    if (s == GBT_OK) s = cu->histograms(ctx, two, 2);
    launches = gbt_emu_calls("launch") - launches;
    ok(s == GBT_OK && launches == 1, "then two subtractions of distinct slots take %ld launch(es)",
       launches);
    if (s == GBT_OK) s = cu->read_histogram(ctx, 3, h);
    if (s == GBT_OK) {
        int zero = 1;
        for (uint32_t i = 0; i < qm.cuts.total_slots; i++) zero &= h[i].g == 0 && h[i].h == 0;
        ok(zero, "and slot 3 (node 0 minus node 0) is zero");
    } else {
        ok(0, "reading slot 3: %s", gbt_last_error());
    }
    cu->close(ctx);
    gbt__qmatrix_free(&qm);
}

/*
 * With a second device current on this thread (as a host program working on
 * it would have), training, predicting and describing on cuda:0 leave it so.
 */
static void test_keeps_device(const gbt_dataset *d)
{
    char *m = NULL;
    size_t len = 0;
    uint64_t free_bytes = 0;
    gbt_status s;
    gbt_emu_set_device(1);
    s = train_predict(d, "cuda:0", &m, &len);
    ok(s == GBT_OK && gbt_emu_get_device() == 1,
       "training and predicting on cuda:0 leave this thread's device at 1 (%d): %s",
       gbt_emu_get_device(), s == GBT_OK ? "ok" : gbt_last_error());
    gbt_free(m);
    s = gbt_device_describe(0, NULL, 0, NULL, NULL, NULL, &free_bytes);
    ok(s == GBT_OK && gbt_emu_get_device() == 1,
       "describing cuda:0 leaves this thread's device at 1 (%d)", gbt_emu_get_device());
    s = train_predict(d, "cuda:1", &m, &len);
    gbt_free(m);
    gbt_emu_set_device(0);
    s = s == GBT_OK ? gbt_device_describe(1, NULL, 0, NULL, NULL, NULL, &free_bytes) : s;
    ok(s == GBT_OK && gbt_emu_get_device() == 0,
       "and with device 0 current, training on and describing cuda:1 leave it at 0 (%d)",
       gbt_emu_get_device());
}

/*
 * device=auto on a GPU that cannot take the work: training whose memory
 * estimate does not fit, and a prediction whose allocation fails, run on
 * the CPU with the same bits and log why; device=cuda fails instead.
 */
static void test_auto_fallback(const gbt_dataset *d)
{
    static float want[1200], got[1200];
    gbt_dataset *p = data_of(1200);
    gbt_booster *cpu = booster("cpu"), *b = booster("auto");
    char *ref = NULL, *m = NULL, dev[32] = "";
    size_t ref_len = 0, len = 0;
    gbt_status s = cpu && b && p ? gbt_booster_train(cpu, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
    if (s == GBT_OK) s = gbt_booster_save_to_buffer(cpu, &ref, &ref_len);
    if (s == GBT_OK) s = gbt_booster_predict(cpu, p, 0, want, 1200);
    ok(s == GBT_OK, "reference model and prediction on the CPU");

    logged[0] = '\0';
    gbt_set_log_callback(log_to_buffer, NULL);
    setenv("GBT_CUDA_FAKE_FREE_BYTES", "1000000", 1);
    s = b ? gbt_booster_train(b, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
    unsetenv("GBT_CUDA_FAKE_FREE_BYTES");
    if (s == GBT_OK) s = gbt_booster_get_attr(b, "device", dev, sizeof dev);
    if (s == GBT_OK) s = gbt_booster_save_to_buffer(b, &m, &len);
    ok(s == GBT_OK && strcmp(dev, "cpu") == 0 && len == ref_len && memcmp(m, ref, len) == 0,
       "device=auto with too little free memory on cuda:0 trains on the CPU (%s), the same %zu bytes",
       s == GBT_OK ? dev : gbt_last_error(), len);
    ok(contains(logged, "device=auto: cannot train on cuda:0 (training needs "),
       "and logs why: %s", logged);

    logged[0] = '\0';
    gbt_emu_fail_nth("malloc", 1);
    s = b ? gbt_booster_predict(b, p, 0, got, 1200) : GBT_E_INTERNAL;
    gbt_emu_fail_nth("malloc", 0);
    gbt_set_log_callback(NULL, NULL);
    ok(s == GBT_OK && memcmp(got, want, sizeof got) == 0,
       "device=auto predicts on the CPU, the same values, when an allocation on cuda:0 fails");
    ok(contains(logged, "device=auto: cannot predict on cuda:0 (CUDA error"), "and logs why: %s",
       logged);

    s = b ? gbt_booster_set_param(b, "device", "cuda") : GBT_E_INTERNAL;
    if (s == GBT_OK) {
        gbt_emu_fail_nth("malloc", 1);
        s = gbt_booster_predict(b, p, 0, got, 1200);
        gbt_emu_fail_nth("malloc", 0);
    }
    ok(s == GBT_E_DEVICE, "device=cuda does not fall back: GBT_E_DEVICE: %s", gbt_last_error());
    setenv("GBT_CUDA_FAKE_FREE_BYTES", "1000000", 1);
    s = b ? gbt_booster_train(b, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
    unsetenv("GBT_CUDA_FAKE_FREE_BYTES");
    ok(s == GBT_E_DEVICE, "nor for training: GBT_E_DEVICE: %s", gbt_last_error());
    gbt_free(ref);
    gbt_free(m);
    gbt_booster_free(cpu);
    gbt_booster_free(b);
    gbt_dataset_free(p);
}

/*
 * The memory estimate against what opening really takes on the device
 * (free memory before and while a context is open), for a plan whose node
 * and segment arrays are each a little over a multiple of 2 MiB, the unit
 * in which the device allocates large buffers: the estimate must not be
 * smaller, so that free memory below it is refused by the estimate's
 * message, never by a failing cudaMalloc.  And the feature mask staging
 * exists only with column sampling.
 */
static void test_estimate(const gbt_dataset *d)
{
    struct gbt_qmatrix qm;
    void *ctx = NULL;
    uint64_t free0 = 0, free1 = 0, taken = 0;
    unsigned long long need = 0;
    long mallocs[2], host_mallocs[2];
    char fake[32];
    const char *at;
    gbt_status s;

    gbt_device_describe(0, NULL, 0, NULL, NULL, NULL, &free0);
    s = open_plan(d, &qm, 262145, 131073, 1, &ctx);
    gbt_device_describe(0, NULL, 0, NULL, NULL, NULL, &free1);
    if (ctx) gbt__backend_cuda()->close(ctx);
    gbt__qmatrix_free(&qm);
    taken = free0 - free1;
    ok(s == GBT_OK && taken > 0, "a context of 262145 nodes takes %llu bytes of cuda:0",
       (unsigned long long)taken);

    snprintf(fake, sizeof fake, "%llu", (unsigned long long)taken - 1);
    setenv("GBT_CUDA_FAKE_FREE_BYTES", fake, 1);
    s = open_plan(d, &qm, 262145, 131073, 1, &ctx);
    unsetenv("GBT_CUDA_FAKE_FREE_BYTES");
    if (ctx) gbt__backend_cuda()->close(ctx);
    gbt__qmatrix_free(&qm);
    at = strstr(gbt_last_error(), "training needs ");
    if (s == GBT_E_DEVICE && at) need = strtoull(at + strlen("training needs "), NULL, 10);
    ok(s == GBT_E_DEVICE && need >= taken && contains(gbt_last_error(), "are free"),
       "with %s bytes free the estimate refuses it (%llu bytes needed): %s", fake, need,
       s == GBT_OK ? "it opened" : gbt_last_error());

    for (int i = 0; i < 2; i++) {
        mallocs[i] = gbt_emu_calls("malloc");
        host_mallocs[i] = gbt_emu_calls("host_malloc");
        s = open_plan(d, &qm, 8, 4, i, &ctx);
        mallocs[i] = gbt_emu_calls("malloc") - mallocs[i];
        host_mallocs[i] = gbt_emu_calls("host_malloc") - host_mallocs[i];
        if (ctx) gbt__backend_cuda()->close(ctx);
        gbt__qmatrix_free(&qm);
    }
    ok(s == GBT_OK && mallocs[0] == mallocs[1] + 1 && host_mallocs[0] == host_mallocs[1] + 1,
       "without column sampling the feature mask staging is not allocated (%ld and %ld device, "
       "%ld and %ld pinned allocations)",
       mallocs[0], mallocs[1], host_mallocs[0], host_mallocs[1]);
}

static void test_faults(const gbt_dataset *d)
{
    static const char *const kinds[] = {"malloc", "host_malloc", "copy", "launch", "stream", "event", "sync"};
    char *ref = NULL, *m = NULL;
    size_t ref_len = 0, len = 0;
    uint64_t free0 = 0;
    gbt_status s = train_predict(d, "cpu", &ref, &ref_len);
    ok(s == GBT_OK, "reference model on the CPU (%zu bytes)", ref_len);
    gbt_device_describe(0, NULL, 0, NULL, NULL, NULL, &free0);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const long before = gbt_emu_calls(kinds[k]);
        long calls, errors = 0, ignored = 0, bad = 0;
        s = train_predict(d, "cuda", &m, &len);
        calls = gbt_emu_calls(kinds[k]) - before;
        ok(s == GBT_OK && len == ref_len && memcmp(m, ref, len) == 0,
           "a clean run on the device makes %ld %s calls and the CPU's model", calls, kinds[k]);
        gbt_free(m);
        for (long i = 1; i <= calls; i++) {
            uint64_t free1 = 0;
            gbt_emu_fail_nth(kinds[k], i);
            s = train_predict(d, "cuda", &m, &len);
            gbt_emu_fail_nth(kinds[k], 0);
            if (s == GBT_E_DEVICE && contains(gbt_last_error(), "CUDA error")) {
                errors++;
            } else if (s == GBT_OK && len == ref_len && memcmp(m, ref, len) == 0) {
                ignored++;
            } else {
                bad++;
                diag("%s failure at call %ld: status %d, %s", kinds[k], i, (int)s, gbt_last_error());
            }
            gbt_free(m);
            gbt_device_describe(0, NULL, 0, NULL, NULL, NULL, &free1);
            if (free1 != free0) {
                bad++;
                diag("%s failure at call %ld left %lld bytes of device memory allocated", kinds[k], i,
                     (long long)(free0 - free1));
            }
        }
        s = train_predict(d, "cuda", &m, &len);
        ok(bad == 0 && s == GBT_OK && len == ref_len && memcmp(m, ref, len) == 0,
           "%s: each of %ld injected failures is GBT_E_DEVICE naming the CUDA error (%ld) or ignored "
           "with the right model (%ld), leaks nothing, and the next training is right",
           kinds[k], calls, errors, ignored);
        gbt_free(m);
    }
    ok(gbt_emu_reports() == 0, "the emulator reported no misuse of CUDA (%d reports)", gbt_emu_reports());
    gbt_free(ref);
}
#endif

/*
 * Categorical features (issue 23) on device=cuda: trained on the device
 * (binned there too) with the CPU's model bytes, on device=auto as well,
 * and from the CPU's binning kept with the dataset; a feature with more
 * distinct categories than gbt takes fails on the device with the host's
 * message naming the feature.
 */
static void test_categorical(void)
{
    enum { N = 300, M = 3, BIG = 65536 };
    static float x[N * M], y[N];
    const char *const types[M] = {"q", "c", "q"};
    gbt_dataset *d = NULL;
    gbt_booster *cpu = booster("cpu"), *cu = booster("cuda"), *au = booster("auto");
    char *ref = NULL, *m = NULL, *m2 = NULL, dev[32] = "";
    size_t ref_len = 0, len = 0, len2 = 0;
    gbt_status s;
#ifdef GBT_CUDA_EMU
    long launches;
#endif
    for (int r = 0; r < N; r++) {
        x[r * M] = (float)(r % 13) / 4.0f;
        x[r * M + 1] = (float)((r * 7) % 11);
        x[r * M + 2] = (float)((r * 5) % 17);
        y[r] = (((r * 7) % 11) % 3 == 0) != (x[r * M] > 1.5f) ? 1.0f : 0.0f;
    }
    s = gbt_dataset_from_dense(x, N, M, NAN, &d);
    if (s == GBT_OK) s = gbt_dataset_set_field(d, "label", y, N);
    if (s == GBT_OK) s = gbt_dataset_set_feature_types(d, types, M);
    ok(s == GBT_OK && cpu && cu && au, "a dataset with a categorical feature");
#ifdef GBT_CUDA_EMU
    launches = gbt_emu_calls("launch");
#endif
    s = cu && d ? gbt_booster_train(cu, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
    if (s == GBT_OK) s = gbt_booster_save_to_buffer(cu, &m, &len);
    if (s == GBT_OK) s = gbt_booster_train(cpu, d, 2, NULL, NULL, 0);
    if (s == GBT_OK) s = gbt_booster_save_to_buffer(cpu, &ref, &ref_len);
    ok(s == GBT_OK && len == ref_len && memcmp(m, ref, len) == 0,
       "device=cuda trains categorical features: the CPU's %zu bytes (%s)", len, s == GBT_OK ? "ok" : gbt_last_error());
#ifdef GBT_CUDA_EMU
    ok(gbt_emu_calls("launch") > launches, "on the device (%ld kernels)", gbt_emu_calls("launch") - launches);
#endif
    gbt_free(m);
    m = NULL;
    s = au && d ? gbt_booster_train(au, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
    if (s == GBT_OK) s = gbt_booster_get_attr(au, "device", dev, sizeof dev);
    if (s == GBT_OK) s = gbt_booster_save_to_buffer(au, &m, &len);
    ok(s == GBT_OK && strcmp(dev, "cuda:0") == 0 && len == ref_len && memcmp(m, ref, len) == 0,
       "device=auto trains on the GPU (%s), the CPU's %zu bytes", s == GBT_OK ? dev : gbt_last_error(), len);
    /* the dataset keeps a binning with its categorical bins: the device trains from it alike */
    gbt_booster_free(cu);
    cu = booster("cuda");
    s = cu && d ? gbt_booster_train(cu, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
    if (s == GBT_OK) s = gbt_booster_save_to_buffer(cu, &m2, &len2);
    ok(s == GBT_OK && len2 == ref_len && memcmp(m2, ref, len2) == 0,
       "and from the binning kept with the dataset (%s)", s == GBT_OK ? "same bytes" : gbt_last_error());
    gbt_free(ref);
    gbt_free(m);
    gbt_free(m2);
    gbt_booster_free(cpu);
    gbt_booster_free(cu);
    gbt_booster_free(au);
    gbt_dataset_free(d);

    /* one column of 65536 distinct categories: refused by the device's binning as by the host's */
    {
        float *big = malloc(BIG * sizeof *big), *lab = calloc(BIG, sizeof *lab);
        const char *const one[1] = {"c"};
        d = NULL;
        cu = booster("cuda");
        for (int r = 0; big && r < BIG; r++) big[r] = (float)r;
        s = big && lab ? gbt_dataset_from_dense(big, BIG, 1, NAN, &d) : GBT_E_NO_MEMORY;
        if (s == GBT_OK) s = gbt_dataset_set_field(d, "label", lab, BIG);
        if (s == GBT_OK) s = gbt_dataset_set_feature_types(d, one, 1);
        s = s == GBT_OK && cu ? gbt_booster_train(cu, d, 1, NULL, NULL, 0) : GBT_E_INTERNAL;
        ok(s == GBT_E_INVALID_ARG && contains(gbt_last_error(), "categorical feature 0 has 65536 distinct categories"),
           "device=cuda: too many categories is a clear error: %s", gbt_last_error());
        gbt_booster_free(cu);
        gbt_dataset_free(d);
        free(big);
        free(lab);
    }
}

int main(void)
{
    const int compiled = gbt__backend_cuda() != NULL;
    const int n = gbt_device_count();
    gbt_dataset *d = small_data();
    gbt_booster *b;
    gbt_status s;
    char buf[256];
    float pred[300];

    diag("CUDA backend %s, %d device(s)", compiled ? "compiled in" : "not compiled in", n);
    ok(n >= 0, "gbt_device_count() does not fail (%d)", n);
    ok(d != NULL, "test data");

    /* an ordinal out of range, with or without devices */
    s = gbt_device_describe(n, buf, sizeof buf, NULL, NULL, NULL, NULL);
    ok(s == GBT_E_NO_DEVICE && gbt_last_error()[0] != '\0',
       "describing device %d (one past the last) is GBT_E_NO_DEVICE: %s", n, gbt_last_error());
    s = gbt_device_describe(-1, NULL, 0, NULL, NULL, NULL, NULL);
    ok(s == GBT_E_NO_DEVICE, "describing device -1 is GBT_E_NO_DEVICE");

    b = booster("cuda:99");
    s = b ? gbt_booster_train(b, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
    ok(s == GBT_E_NO_DEVICE && contains(gbt_last_error(), "cuda:99"),
       "device=cuda:99 is GBT_E_NO_DEVICE: %s", gbt_last_error());
    s = b ? gbt_booster_set_param(b, "device", "cpu") : GBT_E_INTERNAL;
    if (s == GBT_OK) s = gbt_booster_train(b, d, 2, NULL, NULL, 0);
    ok(s == GBT_OK, "the same booster then trains on device=cpu");
    gbt_booster_free(b);

    if (n == 0) {
        int cc = -1;
        ok(1, "no CUDA device here: gbt_device_count() is 0");
        s = gbt_device_describe(0, buf, sizeof buf, &cc, NULL, NULL, NULL);
        ok(s == GBT_E_NO_DEVICE && cc == -1, "describing device 0 is GBT_E_NO_DEVICE: %s",
           gbt_last_error());

#ifdef GBT_CUDA_EMU
        /* the emulated driver is too old (GBT_EMU_NO_DRIVER): every message says so */
        ok(contains(gbt_last_error(), "CUDA driver version is insufficient"),
           "the message names the driver's error: %s", gbt_last_error());
#endif
        b = booster("cuda");
        s = b ? gbt_booster_train(b, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
        ok(s == GBT_E_NO_DEVICE &&
               (compiled ? contains(gbt_last_error(), "0 CUDA devices")
                         : contains(gbt_last_error(), "without CUDA")),
           "device=cuda without a GPU is GBT_E_NO_DEVICE: %s", gbt_last_error());
#ifdef GBT_CUDA_EMU
        ok(contains(gbt_last_error(), "CUDA driver version is insufficient"),
           "and names the driver's error");
#endif
        s = b ? gbt_booster_get_attr(b, "device", buf, sizeof buf) : GBT_E_INTERNAL;
        ok(s == GBT_E_STATE, "a booster that never trained has no device attribute");
        gbt_booster_free(b);

        b = booster("auto");
        logged[0] = '\0';
        gbt_set_log_callback(log_to_buffer, NULL);
        s = b ? gbt_booster_set_param(b, "verbosity", "2") : GBT_E_INTERNAL;
        if (s == GBT_OK) s = gbt_booster_train(b, d, 2, NULL, NULL, 0);
        gbt_set_log_callback(NULL, NULL);
        if (s == GBT_OK) s = gbt_booster_get_attr(b, "device", buf, sizeof buf);
        ok(s == GBT_OK && strcmp(buf, "cpu") == 0, "device=auto trains on the CPU (device=%s)",
           s == GBT_OK ? buf : gbt_last_error());
        ok(contains(logged, "device=auto: no usable CUDA device"), "and logs why");
#ifdef GBT_CUDA_EMU
        ok(contains(logged, "CUDA driver version is insufficient"), "naming the driver's error");
#endif
        s = b ? gbt_booster_predict(b, d, 0, pred, 300) : GBT_E_INTERNAL;
        ok(s == GBT_OK, "device=auto predicts on the CPU");
        s = b ? gbt_booster_set_param(b, "device", "cuda") : GBT_E_INTERNAL;
        if (s == GBT_OK) s = gbt_booster_predict(b, d, 0, pred, 300);
        ok(s == GBT_E_NO_DEVICE, "predicting with device=cuda without a GPU is GBT_E_NO_DEVICE: %s",
           gbt_last_error());
        gbt_booster_free(b);

#ifndef GBT_CUDA_EMU
        /* what needs a GPU: training and predicting on cuda:0, auto choosing it, the estimate */
        for (int i = 0; i < 6; i++) skip(SKIP_NO_DEVICE);
#endif
    } else {
        char name[128] = "";
        int major = 0, minor = 0;
        uint64_t total = 0, free_bytes = 0;
        ok(1, "%d CUDA device(s)", n);
        s = gbt_device_describe(0, name, sizeof name, &major, &minor, &total, &free_bytes);
        ok(s == GBT_OK && name[0] && major >= 3 && total > 0 && free_bytes > 0 && free_bytes <= total,
           "cuda:0 is %s, compute capability %d.%d, %llu bytes, %llu free", name, major, minor,
           (unsigned long long)total, (unsigned long long)free_bytes);

        b = booster("cuda");
        s = b ? gbt_booster_train(b, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
        if (s == GBT_OK) s = gbt_booster_get_attr(b, "device", buf, sizeof buf);
        ok(s == GBT_OK && strcmp(buf, "cuda:0") == 0, "device=cuda trains on cuda:0 (%s)",
           s == GBT_OK ? buf : gbt_last_error());
        s = b ? gbt_booster_predict(b, d, 0, pred, 300) : GBT_E_INTERNAL;
        ok(s == GBT_OK, "device=cuda predicts");
        gbt_booster_free(b);

        b = booster("auto");
        s = b ? gbt_booster_train(b, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
        if (s == GBT_OK) s = gbt_booster_get_attr(b, "device", buf, sizeof buf);
        ok(s == GBT_OK && strcmp(buf, "cuda:0") == 0, "device=auto trains on cuda:0 (%s)",
           s == GBT_OK ? buf : gbt_last_error());
        gbt_booster_free(b);

        /* the memory estimate against a pretended 1 MB of free memory */
        b = booster("cuda");
        setenv("GBT_CUDA_FAKE_FREE_BYTES", "1000000", 1);
        s = b ? gbt_booster_train(b, d, 2, NULL, NULL, 0) : GBT_E_INTERNAL;
        unsetenv("GBT_CUDA_FAKE_FREE_BYTES");
        ok(s == GBT_E_DEVICE && contains(gbt_last_error(), "training needs ") &&
               contains(gbt_last_error(), "bytes on cuda:0 but only 1000000 are free"),
           "a memory estimate over the free memory is GBT_E_DEVICE: %s", gbt_last_error());
        s = b ? gbt_booster_set_param(b, "device", "cpu") : GBT_E_INTERNAL;
        if (s == GBT_OK) s = gbt_booster_train(b, d, 2, NULL, NULL, 0);
        if (s == GBT_OK) s = gbt_booster_get_attr(b, "device", buf, sizeof buf);
        ok(s == GBT_OK && strcmp(buf, "cpu") == 0, "the same booster then trains on the CPU (%s)",
           s == GBT_OK ? buf : gbt_last_error());
        s = b ? gbt_booster_set_param(b, "device", "cuda") : GBT_E_INTERNAL;
        if (s == GBT_OK) s = gbt_booster_train(b, d, 2, NULL, NULL, 0);
        if (s == GBT_OK) s = gbt_booster_get_attr(b, "device", buf, sizeof buf);
        ok(s == GBT_OK && strcmp(buf, "cuda:0") == 0,
           "and on the GPU once the memory is there (%s)", s == GBT_OK ? buf : gbt_last_error());
        gbt_booster_free(b);
        test_categorical();
#ifdef GBT_CUDA_EMU
        test_histogram_failure(d);
        if (n >= 2) test_keeps_device(d);
        test_auto_fallback(d);
        test_estimate(d);
        test_faults(d);
#endif
    }
    gbt_dataset_free(d);
    return done_testing();
}
