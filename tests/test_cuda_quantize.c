/*
 * test_cuda_quantize.c - bin cuts and codes computed on the (emulated) CUDA
 * device equal the host's (gbt__quantize) byte for byte: dense and CSR
 * input, every layout (dense uint8 and uint16, CSR; dense data binned as
 * CSR and CSR data binned densely), missing values, weighted rows,
 * max_bin 65535, features without values, categorical features (their
 * bins, categories and the uint16 layout they may need), and the same data
 * in several batches (GBT_CUDA_QUANT_ROWS; batches with more values than
 * the batch before, which need more of CUB's scratch).  And trainings with device=cuda, which
 * bin on the device, give the model bytes of device=cpu (dense, weighted,
 * sparse).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "data/dataset.h"
#include "data/quantize.h"
#include "gbt_cuda.h"
#include "gbt_emu.h"
#include "testutil.h"

extern const struct gbt_backend_ops gbt__cuda_ops;

/* Where the two matrices differ first, or NULL when they are the same bytes. */
static const char *differ(const struct gbt_qmatrix *a, const struct gbt_qmatrix *b)
{
    const struct gbt_cuts *x = &a->cuts, *y = &b->cuts;
    const uint32_t nf = x->nfeat;
    if (x->nfeat != y->nfeat || a->nrow != b->nrow || a->layout != b->layout) return "shape or layout";
    if (memcmp(x->nbins, y->nbins, nf * sizeof(uint32_t)) != 0) return "bin counts";
    if (memcmp(x->has_missing, y->has_missing, nf) != 0) return "missing flags";
    if (x->total_slots != y->total_slots || memcmp(x->offset, y->offset, (nf + 1) * sizeof(uint32_t)) != 0)
        return "slot offsets";
    if (memcmp(x->cut, y->cut, x->total_slots * sizeof(float)) != 0) return "cuts";
    if ((x->is_cat == NULL) != (y->is_cat == NULL) || (x->is_cat && memcmp(x->is_cat, y->is_cat, nf) != 0))
        return "categorical flags";
    if ((x->category == NULL) != (y->category == NULL) ||
        (x->category && memcmp(x->category, y->category, x->total_slots * sizeof(uint32_t)) != 0))
        return "bin categories";
    switch (a->layout) {
    case GBT_QM_DENSE8:
        return memcmp(a->codes8, b->codes8, a->nrow * nf) != 0 ? "codes" : NULL;
    case GBT_QM_DENSE16:
        return memcmp(a->codes16, b->codes16, a->nrow * nf * 2) != 0 ? "codes" : NULL;
    default:
        if (memcmp(a->row_ptr, b->row_ptr, (a->nrow + 1) * sizeof(uint64_t)) != 0) return "row offsets";
        return memcmp(a->slots, b->slots, a->row_ptr[a->nrow] * sizeof(uint32_t)) != 0 ? "slots" : NULL;
    }
}

/* d binned by the host and by the device (batch rows per batch, 0: as many as fit). */
static void same(const gbt_dataset *d, int max_bin, uint64_t batch, int want_layout, const char *what)
{
    struct gbt_qmatrix h, g;
    const char *diff = "the device failed";
    char rows[32];
    if (batch) {
        snprintf(rows, sizeof rows, "%llu", (unsigned long long)batch);
        setenv(GBT_CUDA_QUANT_ROWS_ENV, rows, 1);
    } else {
        unsetenv(GBT_CUDA_QUANT_ROWS_ENV);
    }
    if (gbt__quantize(d, max_bin, 2, &h) != GBT_OK) {
        ok(0, "%s: the host bins it (%s)", what, gbt_last_error());
        return;
    }
    if (gbt__cuda_ops.quantize(0, d, max_bin, &g) == GBT_OK) {
        diff = differ(&h, &g);
        gbt__qmatrix_free(&g);
    } else {
        diag("%s", gbt_last_error());
    }
    ok(diff == NULL && h.layout == want_layout, "%s: device cuts and codes = host's (%s; %u slots, layout %d)", what,
       diff ? diff : "same bytes", h.cuts.total_slots, h.layout);
    gbt__qmatrix_free(&h);
    unsetenv(GBT_CUDA_QUANT_ROWS_ENV);
}

static void set_weights(gbt_dataset *d, uint64_t n, int heavy)
{
    float *w = malloc(n * sizeof *w);
    for (uint64_t r = 0; r < n; r++) w[r] = (float)(0.1 + 4.9 * tu_unit());
    /* a few rows far heavier: their bits and the light ones' must all count */
    if (heavy)
        for (uint64_t r = 0; r < n; r += 97) w[r] = 3000.0f;
    if (gbt_dataset_set_field(d, "weight", w, n) != GBT_OK) exit(2);
    free(w);
}

static int device_binned, fell_back;

static void watch_log(int level, const char *msg, void *user)
{
    (void)level;
    (void)user;
    if (strstr(msg, "binned on cuda:0")) device_binned++;
    if (strstr(msg, "device=auto: cannot bin on cuda:0")) fell_back++;
}

/*
 * A device allocation failing while binning: device=cuda fails with
 * GBT_E_DEVICE naming what it could not allocate; device=auto warns and
 * trains on the CPU, the CPU's model.
 */
static void failures(void)
{
    const char *cpu[] = {"objective=binary:logistic", "max_depth=3", "device=cpu", NULL};
    const char *cuda[] = {"objective=binary:logistic", "max_depth=3", "device=cuda", NULL};
    const char *autod[] = {"objective=binary:logistic", "max_depth=3", "device=auto", "verbosity=1", NULL};
    gbt_dataset *a, *b, *c;
    gbt_booster *x, *y, *z = NULL;
    gbt_status s = GBT_OK;
    tu_seed(13);
    a = tu_dataset(500, 5, 0.1, 1);
    tu_seed(13);
    b = tu_dataset(500, 5, 0.1, 1);
    tu_seed(13);
    c = tu_dataset(500, 5, 0.1, 1);
    x = tu_train(a, 3, cpu);
    y = tu_booster(cuda);
    gbt_emu_fail_nth("malloc", 1);
    if (y) s = gbt_booster_update(y, b);
    ok(s == GBT_E_DEVICE && strstr(gbt_last_error(), "binning on cuda:0: cannot allocate") && b->binnings == 0,
       "device=cuda: a failed allocation while binning is GBT_E_DEVICE (%s)", gbt_last_error());
    fell_back = 0;
    gbt_set_log_callback(watch_log, NULL);
    gbt_emu_fail_nth("malloc", 1);
    z = tu_train(c, 3, autod);
    gbt_set_log_callback(NULL, NULL);
    ok(z && x && fell_back == 1 && c->binnings == 1 && tu_same_model(x, z),
       "device=auto: binning fails on the device, the CPU bins and trains the CPU's model (%d warning)", fell_back);
    gbt_booster_free(x);
    gbt_booster_free(y);
    gbt_booster_free(z);
    gbt_dataset_free(a);
    gbt_dataset_free(b);
    gbt_dataset_free(c);
}

/*
 * A training with device=cuda bins on the device; its model is device=cpu's
 * (each on a dataset of its own, so neither reuses the other's binning).
 */
static void training(const char *max_bin, int csr, int weighted)
{
    const char *cpu[] = {"objective=binary:logistic", "max_depth=4", "device=cpu", max_bin, NULL};
    const char *cuda[] = {"objective=binary:logistic", "max_depth=4", "device=cuda", "verbosity=3", max_bin, NULL};
    gbt_dataset *a, *b;
    gbt_booster *x, *y;
    tu_seed(11);
    a = tu_dataset(900, 9, csr ? 0.8 : 0.1, 1);
    tu_seed(11);
    b = tu_dataset(900, 9, csr ? 0.8 : 0.1, 1);
    if (weighted) {
        tu_seed(12);
        set_weights(a, 900, 1);
        tu_seed(12);
        set_weights(b, 900, 1);
    }
    device_binned = 0;
    gbt_set_log_callback(watch_log, NULL);
    y = tu_train(b, 4, cuda);
    gbt_set_log_callback(NULL, NULL);
    x = tu_train(a, 4, cpu);
    ok(x && y && device_binned == 1 && a->binnings == 1 && b->binnings == 1 && tu_same_model(x, y),
       "training with device=cuda bins on the device (%d log line) and trains device=cpu's model bytes "
       "(%s, %s%s)",
       device_binned, max_bin, csr ? "sparse" : "dense", weighted ? ", weighted" : "");
    gbt_booster_free(x);
    gbt_booster_free(y);
    gbt_dataset_free(a);
    gbt_dataset_free(b);
}

/*
 * Features 3 and 6 with 65536 categories each, one more than gbt bins: the
 * CPU (binning a feature per OpenMP worker, 8 threads) and the device
 * (features in order) both name feature 3, the lowest (issue 38, finding 5).
 */
static void too_many_categories(void)
{
    enum { N = 65536, C = 8 };
    static const char *const types[C] = {"q", "q", "q", "c", "q", "q", "c", "q"};
    const char *cpu[] = {"device=cpu", "nthread=8", NULL};
    const char *cuda[] = {"device=cuda", NULL};
    const char *want = "categorical feature 3 has 65536 distinct categories in the training data; gbt supports at "
                       "most 65535";
    float *x = malloc((size_t)N * C * sizeof *x), *y = malloc(N * sizeof *y);
    gbt_dataset *d = NULL;
    gbt_booster *a = tu_booster(cpu), *b = tu_booster(cuda);
    gbt_status sa = GBT_OK, sb = GBT_OK;
    char ma[1024] = "", mb[1024] = "";
    if (x == NULL || y == NULL) exit(2);
    for (int i = 0; i < N; i++) {
        const float row[C] = {(float)(i % 3), (float)(i % 5), (float)(i % 7), (float)i,
                              (float)(i % 11), (float)(i % 13), (float)((i * 7) % N), (float)(i % 17)};
        memcpy(x + (size_t)i * C, row, sizeof row);
        y[i] = (float)(i % 2);
    }
    if (gbt_dataset_from_dense(x, N, C, NAN, &d) != GBT_OK || gbt_dataset_set_field(d, "label", y, N) != GBT_OK ||
        gbt_dataset_set_feature_types(d, types, C) != GBT_OK)
        exit(2);
    if (a) sa = gbt_booster_update(a, d);
    snprintf(ma, sizeof ma, "%s", gbt_last_error());
    if (b) sb = gbt_booster_update(b, d);
    snprintf(mb, sizeof mb, "%s", gbt_last_error());
    ok(sa == GBT_E_INVALID_ARG && strstr(ma, want), "device=cpu, 8 threads: feature 3's error (%s)", ma);
    ok(sb == GBT_E_INVALID_ARG && strstr(mb, want), "device=cuda: the same (%s)", mb);
    gbt_booster_free(a);
    gbt_booster_free(b);
    gbt_dataset_free(d);
    free(x);
    free(y);
}

int main(void)
{
    enum { N = 2400, C = 7 };
    float *x = malloc((size_t)N * 40 * sizeof *x), *y = calloc(N, sizeof *y);
    gbt_dataset *d;

    /* dense, 10% missing, a feature of few values (tu_data's column 1 is integer-valued in classification) */
    tu_seed(3);
    d = tu_dataset(N, C, 0.1, 1);
    same(d, 16, 0, GBT_QM_DENSE8, "dense, missing values, max_bin 16 (pruned quantiles)");
    same(d, 256, 0, GBT_QM_DENSE8, "dense, max_bin 256 (255 bins where values are missing)");
    same(d, 300, 0, GBT_QM_DENSE16, "dense, max_bin 300 (two-byte codes)");
    same(d, 16, 700, GBT_QM_DENSE8, "dense, max_bin 16, 4 batches of 700 rows");
    set_weights(d, N, 1);
    same(d, 8, 0, GBT_QM_DENSE8, "dense, weighted rows, max_bin 8");
    same(d, 64, 500, GBT_QM_DENSE8, "dense, weighted rows, max_bin 64, 5 batches");
    gbt_dataset_free(d);

    /* many distinct values and max_bin 65535: every value its bin; then fewer bins than values */
    {
        const uint64_t n = 70000;
        float *v = malloc(n * 2 * sizeof *v);
        tu_seed(5);
        for (uint64_t r = 0; r < n; r++) {
            v[2 * r] = (float)r * 0.5f - 1000.0f;
            v[2 * r + 1] = tu_unit() < 0.2 ? NAN : (float)tu_unit();
        }
        if (gbt_dataset_from_dense(v, n, 2, NAN, &d) != GBT_OK) return 2;
        same(d, 65535, 0, GBT_QM_DENSE16, "70,000 rows, max_bin 65535");
        same(d, 1000, 30000, GBT_QM_DENSE16, "70,000 rows, max_bin 1000, 3 batches");
        gbt_dataset_free(d);
        free(v);
    }

    /*
     * many batches whose pairs grow (issue 32, defect 1): batch k's rows
     * have cells 0 .. k present, all values distinct, so each batch sorts
     * the distinct values kept so far and more new ones than the batch
     * before; CUB's scratch must grow with them (the emulator's CUB fails a
     * smaller one, as CUB does)
     */
    {
        enum { GN = 1200, GC = 12, GB = 100 };
        float *v = malloc((size_t)GN * GC * sizeof *v);
        tu_seed(6);
        for (uint64_t r = 0; r < GN; r++)
            for (uint64_t c = 0; c < GC; c++) v[r * GC + c] = c <= r / GB ? (float)(tu_unit() * 100.0) : NAN;
        if (gbt_dataset_from_dense(v, GN, GC, NAN, &d) != GBT_OK) return 2;
        same(d, 64, GB, GBT_QM_DENSE8, "dense, 12 batches of 100 rows, each with more values than the last");
        /*
         * one sort limited to 3,000 values (test hook): batch k sorts its
         * 100 k values and the 100 (1 + ... + k-1) distinct ones kept, 2,800
         * for batch 7, 3,600 for batch 8: a clear error there, naming it
         */
        {
            struct gbt_qmatrix g;
            gbt_status st;
            setenv(GBT_CUDA_QUANT_ROWS_ENV, "100", 1);
            setenv(GBT_CUDA_QUANT_MAX_PAIRS_ENV, "3000", 1);
            st = gbt__cuda_ops.quantize(0, d, 64, &g);
            unsetenv(GBT_CUDA_QUANT_MAX_PAIRS_ENV);
            unsetenv(GBT_CUDA_QUANT_ROWS_ENV);
            ok(st == GBT_E_DEVICE &&
                   strstr(gbt_last_error(), "batch 8 of 12 would sort its 800 values with the 2800 distinct values") &&
                   strstr(gbt_last_error(), "device=auto"),
               "too many distinct values for one sort: a clear error before the sort (%s)", gbt_last_error());
            if (st == GBT_OK) gbt__qmatrix_free(&g);
        }
        gbt_dataset_free(d);
        free(v);
    }

    /*
     * the batch budget (issue 32, defect 2): with 16 MB free, what binning
     * allocates on the device at once stays within half of it, the
     * budget (few distinct values: the batches' own values are what
     * counts); dense, weighted, 40% missing (sized by present values)
     */
    {
        enum { BN = 30000, BC = 12 };
        const double fake = 16e6;
        float *v = malloc((size_t)BN * BC * sizeof *v);
        char fb[32];
        tu_seed(8);
        for (uint64_t i = 0; i < (uint64_t)BN * BC; i++) v[i] = tu_unit() < 0.4 ? NAN : (float)(int)(tu_unit() * 50.0);
        if (gbt_dataset_from_dense(v, BN, BC, NAN, &d) != GBT_OK) return 2;
        set_weights(d, BN, 0);
        snprintf(fb, sizeof fb, "%.0f", fake);
        setenv(GBT_CUDA_FAKE_FREE_ENV, fb, 1);
        gbt_emu_peak_reset();
        same(d, 256, 0, GBT_QM_DENSE8, "dense, 40% missing, weighted, batches sized for 16 MB free");
        ok(gbt_emu_peak_bytes() <= 0.5 * fake,
           "binning with 16 MB free allocated at most half of it on the device at once (%.3f MB)",
           (double)gbt_emu_peak_bytes() / 1e6);
        unsetenv(GBT_CUDA_FAKE_FREE_ENV);
        gbt_dataset_free(d);
        free(v);
    }

    /* sparse: 5% present, some features never present, -0 and 0 */
    tu_seed(7);
    for (uint64_t r = 0; r < N; r++)
        for (int c = 0; c < 40; c++) {
            const double u = tu_unit();
            x[r * 40 + c] = (c % 9 == 4 || u > 0.05) ? NAN : (float)(c == 1 ? (r % 2 ? -0.0 : 0.0) : tu_unit() * 10.0);
        }
    d = tu_to_csr(x, y, N, 40);
    same(d, 32, 0, GBT_QM_CSR, "CSR input, 5% present, empty features, CSR layout");
    same(d, 32, 333, GBT_QM_CSR, "CSR input, CSR layout, 8 batches of 333 rows");
    set_weights(d, N, 0);
    same(d, 4, 0, GBT_QM_CSR, "CSR input, weighted rows, max_bin 4");
    gbt_dataset_free(d);
    /* the same sparse values as a dense array: binned as CSR from dense input */
    if (gbt_dataset_from_dense(x, N, 40, NAN, &d) != GBT_OK) return 2;
    same(d, 32, 0, GBT_QM_CSR, "dense input, 5% present: CSR layout");
    same(d, 32, 1000, GBT_QM_CSR, "dense input, CSR layout, 3 batches");
    gbt_dataset_free(d);

    /* CSR input 60% present: binned densely */
    tu_seed(9);
    for (uint64_t r = 0; r < N; r++)
        for (int c = 0; c < C; c++) x[r * C + c] = tu_unit() < 0.4 ? NAN : (float)(int)(tu_unit() * 50.0);
    d = tu_to_csr(x, y, N, C);
    same(d, 20, 0, GBT_QM_DENSE8, "CSR input, 60% present: dense layout");
    same(d, 300, 900, GBT_QM_DENSE16, "CSR input, dense uint16 layout, 3 batches");
    gbt_dataset_free(d);

    /*
     * categorical features (every other column): one bin per category
     * whatever max_bin; codes up to `most` (scattered), a fraction of the
     * cells missing.  256 categories and missing values need 257 codes:
     * the dense layout becomes uint16, as on the host; 255 fit one byte.
     */
    {
        static const char *const types[C] = {"q", "c", "q", "c", "q", "c", "q"};
        static const struct {
            uint32_t most;
            double missing;
            int csr, layout;
            uint64_t batch;
            const char *what;
        } cat[] = {
            {40, 0.1, 0, GBT_QM_DENSE8, 0, "categorical, dense, 40 categories, missing values, max_bin 16"},
            {255, 0.1, 0, GBT_QM_DENSE8, 700, "categorical, dense, 255 categories and missing: uint8, 4 batches"},
            {256, 0.1, 0, GBT_QM_DENSE16, 0, "categorical, dense, 256 categories and missing: uint16 codes"},
            {1000, 0.0, 0, GBT_QM_DENSE16, 900, "categorical, dense, 1000 categories, 3 batches"},
            {300, 0.4, 1, GBT_QM_DENSE16, 0, "categorical, CSR input 60% present, 300 categories: dense uint16"},
            {300, 0.95, 1, GBT_QM_CSR, 500, "categorical, CSR input 5% present: CSR layout, 5 batches"},
        };
        for (size_t i = 0; i < sizeof cat / sizeof cat[0]; i++) {
            tu_seed(11 + (int)i);
            for (uint64_t r = 0; r < N; r++)
                for (int c = 0; c < C; c++) {
                    const double u = tu_unit(), v = tu_unit();
                    /* categories: every one of 0 .. most-1 appears (N > most), scattered as 3k + 2 */
                    const float cv = (float)(3 * ((r * 7 + (uint64_t)c) % cat[i].most) + 2);
                    x[r * C + c] = u < cat[i].missing ? NAN : c % 2 ? cv : (float)(v * 10.0);
                }
            d = cat[i].csr ? tu_to_csr(x, y, N, C) : NULL;
            if (!cat[i].csr && gbt_dataset_from_dense(x, N, C, NAN, &d) != GBT_OK) return 2;
            if (d == NULL || gbt_dataset_set_feature_types(d, types, C) != GBT_OK) return 2;
            if (i == 1) set_weights(d, N, 1);
            same(d, 16, cat[i].batch, cat[i].layout, cat[i].what);
            gbt_dataset_free(d);
        }
    }

    training("max_bin=16", 0, 0);
    training("max_bin=300", 0, 1);
    training("max_bin=32", 1, 0);
    failures();
    too_many_categories();

    ok(gbt_emu_reports() == 0, "the emulator reported no misuse of CUDA (%d reports; the last: %s)",
       gbt_emu_reports(), gbt_emu_reports() ? gbt_emu_last_report() : "none");
    free(x);
    free(y);
    return done_testing();
}
