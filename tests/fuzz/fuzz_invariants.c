/*
 * fuzz_invariants.c - promises that hold for any data and parameters.  The
 * input picks a small dataset (rows, features, values with missing ones,
 * labels) and parameters; then:
 *   - nthread=1 and nthread=2 train byte-identical models;
 *   - the same data dense and as CSR train byte-identical models;
 *   - training round by round (gbt_booster_update) gives the model that
 *     gbt_booster_train gives in one call (continued training);
 *   - predictions of a dataset, of the dense matrix, of each row alone and
 *     of the CSR dataset are the same bits;
 *   - save, load and save again give the same bytes and predictions.
 * Training may refuse the input (labels that do not fit the objective);
 * then every variant must refuse it with a message.
 */
#include <math.h>

#include "fuzz_common.h"

enum { MAX_ROWS = 64, MAX_FEAT = 6 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    gbt_set_log_callback(fuzz_quiet, NULL);
    return 0;
}

struct setup {
    unsigned nrow, nfeat, rounds;
    float x[MAX_ROWS * MAX_FEAT], y[MAX_ROWS], w[MAX_ROWS];
    int weighted;
    char params[14][48];
    int nparams;
};

static void make_setup(struct fuzz_in *in, struct setup *st)
{
    static const char *const objectives[] = {"reg:squarederror",     "binary:logistic",     "multi:softprob",
                                             "reg:logistic",         "binary:logitraw",     "multi:softmax",
                                             "count:poisson",        "reg:gamma",           "reg:tweedie",
                                             "reg:squaredlogerror", "reg:pseudohubererror", "binary:hinge",
                                             "reg:absoluteerror",   "reg:quantileerror",
                                             "survival:cox",        "survival:aft"};
    static const float vals[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f, NAN, 1e-30f, 3e38f, -3e38f, 7.25f, 100.0f, -0.0f};
    unsigned obj = fuzz_pick(in, sizeof objectives / sizeof objectives[0]);
    st->nrow = 1 + fuzz_pick(in, MAX_ROWS);
    st->nfeat = 1 + fuzz_pick(in, MAX_FEAT);
    st->rounds = 1 + fuzz_pick(in, 4);
    st->weighted = fuzz_byte(in) & 1;
    for (unsigned i = 0; i < st->nrow * st->nfeat; i++) {
        unsigned b = fuzz_byte(in);
        st->x[i] = b < 64 ? vals[b % 12] : (float)(b % 32) * 0.25f;
    }
    for (unsigned i = 0; i < st->nrow; i++) {
        unsigned b = fuzz_byte(in);
        st->y[i] = obj == 2 || obj == 5 ? (float)(b % 3) : obj == 1 || obj == 4 ? (float)(b & 1)
                 : obj == 3 ? (float)(b % 5) / 4.0f : (float)(b % 8) - 2.0f;
        st->w[i] = (float)(fuzz_byte(in) % 4);
    }
    st->nparams = 0;
#define P(...) snprintf(st->params[st->nparams++], sizeof st->params[0], __VA_ARGS__)
    P("objective=%s", objectives[obj]);
    if (obj == 2 || obj == 5) P("num_class=3");
    if (obj == 13) P("quantile_alpha=%s", fuzz_byte(in) & 1 ? "0.2,0.7" : "0.9");
    P("max_depth=%u", fuzz_pick(in, 7));
    P("max_bin=%u", 2 + fuzz_pick(in, 63));
    P("eta=%g", 0.05 + fuzz_pick(in, 100) / 100.0);
    P("lambda=%g", fuzz_pick(in, 4) / 2.0);
    P("min_child_weight=%g", fuzz_pick(in, 3) / 2.0);
    P("subsample=%g", 0.5 + fuzz_pick(in, 6) / 10.0);
    P("colsample_bynode=%g", 0.5 + fuzz_pick(in, 6) / 10.0);
    P("grow_policy=%s", fuzz_byte(in) & 1 ? "lossguide" : "depthwise");
    P("max_leaves=%u", fuzz_pick(in, 8));
    P("seed=%u", fuzz_pick(in, 1000));
#undef P
}

/* Trains; returns the booster or NULL after a refusal that gave a message. */
static gbt_booster *train_with(const struct setup *st, const gbt_dataset *d, const char *nthread, int stepwise)
{
    gbt_booster *b = NULL;
    gbt_status s = GBT_OK;
    FUZZ_ASSERT(gbt_booster_create(&b) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_set_param(b, "device", "cpu") == GBT_OK);
    FUZZ_ASSERT(gbt_booster_set_param(b, "nthread", nthread) == GBT_OK);
    for (int k = 0; k < st->nparams; k++) {
        char name[48], *eq;
        snprintf(name, sizeof name, "%s", st->params[k]);
        eq = strchr(name, '=');
        *eq = '\0';
        FUZZ_ASSERT(gbt_booster_set_param(b, name, eq + 1) == GBT_OK);
    }
    if (stepwise)
        for (unsigned r = 0; r < st->rounds && s == GBT_OK; r++) s = gbt_booster_update(b, d);
    else
        s = gbt_booster_train(b, d, (int)st->rounds, NULL, NULL, 0);
    if (s != GBT_OK) {
        FUZZ_ASSERT(FUZZ_FAILED_WITH_MESSAGE(s));
        gbt_booster_free(b);
        return NULL;
    }
    return b;
}

static gbt_dataset *dataset(const struct setup *st, int csr)
{
    gbt_dataset *d = NULL;
    if (csr) {
        uint64_t indptr[MAX_ROWS + 1], nnz = 0;
        uint32_t idx[MAX_ROWS * MAX_FEAT];
        float val[MAX_ROWS * MAX_FEAT];
        indptr[0] = 0;
        for (unsigned i = 0; i < st->nrow; i++) {
            for (unsigned j = 0; j < st->nfeat; j++)
                if (!isnan(st->x[i * st->nfeat + j])) {
                    idx[nnz] = j;
                    val[nnz++] = st->x[i * st->nfeat + j];
                }
            indptr[i + 1] = nnz;
        }
        FUZZ_ASSERT(gbt_dataset_from_csr(indptr, idx, val, st->nrow, st->nfeat, &d) == GBT_OK);
    } else {
        FUZZ_ASSERT(gbt_dataset_from_dense(st->x, st->nrow, st->nfeat, NAN, &d) == GBT_OK);
    }
    FUZZ_ASSERT(gbt_dataset_set_field(d, "label", st->y, st->nrow) == GBT_OK);
    if (st->weighted) FUZZ_ASSERT(gbt_dataset_set_field(d, "weight", st->w, st->nrow) == GBT_OK);
    return d;
}

static void check_predictions(const struct setup *st, const gbt_booster *b, const gbt_dataset *dense,
                              const gbt_dataset *csr, float *out)
{
    uint64_t n = 0;
    float *a, *c, *one;
    FUZZ_ASSERT(gbt_booster_predict_size(b, st->nrow, 0, &n) == GBT_OK);
    a = calloc(n, sizeof *a), c = calloc(n, sizeof *c), one = calloc(n, sizeof *one);
    FUZZ_ASSERT(a && c && one);
    FUZZ_ASSERT(gbt_booster_predict(b, dense, 0, out, n) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_predict(b, csr, 0, c, n) == GBT_OK);
    FUZZ_ASSERT(fuzz_same_floats(out, c, n));
    FUZZ_ASSERT(gbt_booster_predict_dense(b, st->x, st->nrow, st->nfeat, NAN, 0, a, n) == GBT_OK);
    FUZZ_ASSERT(fuzz_same_floats(out, a, n));
    for (unsigned i = 0; i < st->nrow; i++)
        FUZZ_ASSERT(gbt_booster_predict_dense(b, st->x + i * st->nfeat, 1, st->nfeat, NAN, 0,
                                              one + i * (n / st->nrow), n / st->nrow) == GBT_OK);
    FUZZ_ASSERT(fuzz_same_floats(out, one, n));
    free(a), free(c), free(one);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    static struct setup st;
    gbt_dataset *dense, *csr;
    gbt_booster *b1, *b2, *bc, *bs, *loaded = NULL;
    char *buf = NULL;
    size_t len = 0;
    make_setup(&in, &st);
    dense = dataset(&st, 0);
    csr = dataset(&st, 1);
    b1 = train_with(&st, dense, "1", 0);
    b2 = train_with(&st, dense, "2", 0);
    bc = train_with(&st, csr, "1", 0);
    bs = train_with(&st, dense, "1", 1);
    FUZZ_ASSERT(!b1 == !b2 && !b1 == !bc && !b1 == !bs);
    if (b1) {
        uint64_t n = 0;
        float *p1, *p2;
        FUZZ_ASSERT(fuzz_same_model(b1, b2));
        FUZZ_ASSERT(fuzz_same_model(b1, bc));
        FUZZ_ASSERT(fuzz_same_model(b1, bs));
        FUZZ_ASSERT(gbt_booster_save_to_buffer(b1, &buf, &len) == GBT_OK);
        FUZZ_ASSERT(gbt_booster_load_from_buffer(buf, len, &loaded) == GBT_OK);
        FUZZ_ASSERT(gbt_booster_set_param(loaded, "nthread", "1") == GBT_OK);
        FUZZ_ASSERT(fuzz_same_model(b1, loaded));
        FUZZ_ASSERT(gbt_booster_predict_size(b1, st.nrow, 0, &n) == GBT_OK);
        p1 = calloc(n, sizeof *p1), p2 = calloc(n, sizeof *p2);
        FUZZ_ASSERT(p1 && p2);
        check_predictions(&st, b1, dense, csr, p1);
        check_predictions(&st, loaded, dense, csr, p2);
        FUZZ_ASSERT(fuzz_same_floats(p1, p2, n));
        free(p1), free(p2);
        gbt_free(buf);
    }
    gbt_booster_free(b1), gbt_booster_free(b2), gbt_booster_free(bc), gbt_booster_free(bs);
    gbt_booster_free(loaded);
    gbt_dataset_free(dense), gbt_dataset_free(csr);
    return 0;
}
