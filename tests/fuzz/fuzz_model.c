/*
 * fuzz_model.c - the model loader.  The input is a model file.  A model
 * that loads must predict the same bits four ways (a dense matrix, a CSR
 * dataset, one row at a time, and margins that agree with the
 * transformed output's shape), and saving it, loading the save and saving
 * again must give identical bytes and identical predictions.  Its raw
 * scores, and those of its save, must be those of a reference walk of the
 * text itself (fuzz_ref.h), so a corruption that loads and predicts
 * otherwise is a finding.  Its mutator (LLVMFuzzerCustomMutator) mostly
 * changes numbers and types inside well-formed JSON, so most inputs load.
 * A UBJSON input (XGBoost's .ubj; libFuzzer's mutations only) is walked as
 * the JSON text its bytes read as, and a model that exports as XGBoost's
 * UBJSON must read back and write the same bytes again.
 */
#include <limits.h>
#include <math.h>

#include "fuzz_common.h"
#include "fuzz_ref.h"
#include "util/ubjson.h"

enum { NROW = 4, MAX_FEAT = 256 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    gbt_set_log_callback(fuzz_quiet, NULL);
    return 0;
}

/* Row r, feature j: values around the thresholds that appear in models, and NaN. */
static float value_at(unsigned r, unsigned j)
{
    static const float v[] = {0.0f, -1.0f, 1.0f, 0.5f, NAN, 1e30f, -1e30f, 3.0f, 2.5f, -0.25f, 7.0f};
    return v[(r * 7 + j * 3 + r * j) % (sizeof v / sizeof v[0])];
}

static void predict_four_ways(const gbt_booster *b, uint64_t nf, float *out_dense, const char *text, size_t len)
{
    uint64_t size = 0, msize = 0;
    float *x = malloc(sizeof *x * NROW * nf), *out = NULL, *one = NULL, *margin = NULL, *csr_out = NULL;
    uint64_t indptr[NROW + 1];
    uint32_t *idx = malloc(sizeof *idx * NROW * nf);
    float *val = malloc(sizeof *val * NROW * nf);
    gbt_dataset *d = NULL;
    uint64_t nnz = 0;
    FUZZ_ASSERT(x && idx && val);
    FUZZ_ASSERT(gbt_booster_predict_size(b, NROW, 0, &size) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_predict_size(b, NROW, GBT_PREDICT_MARGIN, &msize) == GBT_OK);
    FUZZ_ASSERT(size % NROW == 0 && msize % NROW == 0 && size <= msize);
    out = calloc(size, sizeof *out);
    one = calloc(size, sizeof *one);
    csr_out = calloc(size, sizeof *csr_out);
    margin = calloc(msize, sizeof *margin);
    FUZZ_ASSERT(out && one && csr_out && margin);
    indptr[0] = 0;
    for (unsigned r = 0; r < NROW; r++) {
        for (uint64_t j = 0; j < nf; j++) {
            float v = value_at(r, (unsigned)j);
            x[r * nf + j] = v;
            if (!isnan(v)) {
                idx[nnz] = (uint32_t)j;
                val[nnz++] = v;
            }
        }
        indptr[r + 1] = nnz;
    }
    FUZZ_ASSERT(gbt_booster_predict_dense(b, x, NROW, nf, NAN, 0, out, size) == GBT_OK);
    for (unsigned r = 0; r < NROW; r++)
        FUZZ_ASSERT(gbt_booster_predict_dense(b, x + r * nf, 1, nf, NAN, 0, one + r * (size / NROW),
                                              size / NROW) == GBT_OK);
    FUZZ_ASSERT(fuzz_same_floats(out, one, size));
    FUZZ_ASSERT(gbt_dataset_from_csr(indptr, idx, val, NROW, nf, &d) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_predict(b, d, 0, csr_out, size) == GBT_OK);
    FUZZ_ASSERT(fuzz_same_floats(out, csr_out, size));
    FUZZ_ASSERT(gbt_booster_predict_dense(b, x, NROW, nf, NAN, GBT_PREDICT_MARGIN, margin, msize) == GBT_OK);
    for (uint64_t i = 0; i < msize; i++) FUZZ_ASSERT(!isnan(margin[i]));
    /* the raw scores against the walk of the text the booster came from */
    ref_check(text, len, x, NROW, nf, margin, msize);
    if (out_dense) memcpy(out_dense, out, size * sizeof *out);
    gbt_dataset_free(d);
    free(x), free(idx), free(val), free(out), free(one), free(csr_out), free(margin);
}

/*
 * Mutations that keep a model's JSON well formed, so that most inputs load
 * and reach the checks and the reference walk: one number replaced (by a
 * small integer, another number of the file, or itself plus or minus
 * one), a "q" made "c" or back, an array element dropped or doubled.
 * One mutation in four is libFuzzer's own, on the bytes.
 */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);

enum { MAX_TOKENS = 4096 };

static int token_char(uint8_t c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+';
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned seed)
{
    static size_t at[MAX_TOKENS], len[MAX_TOKENS];
    char repl[48];
    size_t n = 0, k, rl, start, end;
    uint64_t r = seed * 6364136223846793005ull + 1442695040888963407ull;
#define NEXT() (r = r * 6364136223846793005ull + 1442695040888963407ull, (unsigned)(r >> 33))
    if (NEXT() % 4 == 0 || gbt__ubjson_sniff((const char *)data, size)) return LLVMFuzzerMutate(data, size, max);
    /* numbers (a digit or '-' after a separator) and the strings "q" and "c" */
    for (size_t i = 0; i < size && n < MAX_TOKENS; i++) {
        if (i + 2 < size && data[i] == '"' && (data[i + 1] == 'q' || data[i + 1] == 'c') && data[i + 2] == '"') {
            at[n] = i + 1, len[n++] = 1;
            i += 2;
        } else if (((data[i] >= '0' && data[i] <= '9') || data[i] == '-') &&
                   (i == 0 || data[i - 1] == '[' || data[i - 1] == ',' || data[i - 1] == ' ' || data[i - 1] == ':' ||
                    data[i - 1] == '"')) {
            size_t j = i;
            while (j < size && token_char(data[j])) j++;
            at[n] = i, len[n++] = j - i;
            i = j - 1;
        }
    }
    if (n == 0) return LLVMFuzzerMutate(data, size, max);
    k = NEXT() % n;
    start = at[k], end = at[k] + len[k];
    switch (len[k] == 1 && (data[start] == 'q' || data[start] == 'c') && start > 0 && data[start - 1] == '"'
                ? 9 : NEXT() % 6) {
    case 9:
        repl[0] = data[start] == 'q' ? 'c' : 'q', rl = 1;
        break;
    case 0: case 1: /* a small integer: node ids, features, counts, flags */
        rl = (size_t)snprintf(repl, sizeof repl, "%d", (int)(NEXT() % 11) - 1);
        break;
    case 2: { /* another number of the file */
        const size_t o = NEXT() % n;
        rl = len[o] < sizeof repl ? len[o] : sizeof repl - 1;
        memcpy(repl, data + at[o], rl);
        break;
    }
    case 3: { /* plus or minus one */
        char buf[48], *e;
        long long v;
        if (len[k] >= sizeof buf) return size;
        memcpy(buf, data + start, len[k]), buf[len[k]] = '\0';
        v = strtoll(buf, &e, 10);
        if (*e != '\0' || v <= LLONG_MIN + 1 || v >= LLONG_MAX - 1) return LLVMFuzzerMutate(data, size, max);
        rl = (size_t)snprintf(repl, sizeof repl, "%lld", v + (NEXT() % 2 ? 1 : -1));
        break;
    }
    case 4: /* drop the element and its comma */
        if (end < size && data[end] == ',') end++;
        else if (start > 0 && data[start - 1] == ',') start--;
        rl = 0;
        break;
    default: /* double it */
        if (2 * len[k] + 1 > sizeof repl || !(end < size && (data[end] == ',' || data[end] == ']'))) return size;
        memcpy(repl, data + start, len[k]);
        repl[len[k]] = ',';
        memcpy(repl + len[k] + 1, data + start, len[k]);
        rl = 2 * len[k] + 1;
        break;
    }
#undef NEXT
    if (size - (end - start) + rl > max) return size;
    memmove(data + start + rl, data + end, size - end);
    memcpy(data + start, repl, rl);
    return size - (end - start) + rl;
}

/* A model that exports as XGBoost's UBJSON reads it back, and its export is then a fixed point. */
static void ubjson_round_trip(const gbt_booster *b)
{
    char *u1 = NULL, *u2 = NULL, *u3 = NULL;
    size_t l1 = 0, l2 = 0, l3 = 0;
    gbt_booster *c1 = NULL, *c2 = NULL;
    if (gbt_booster_save_to_buffer_format(b, GBT_MODEL_XGBOOST_UBJ, &u1, &l1) != GBT_OK) return;
    FUZZ_ASSERT(gbt_booster_load_from_buffer(u1, l1, &c1) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_save_to_buffer_format(c1, GBT_MODEL_XGBOOST_UBJ, &u2, &l2) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_load_from_buffer(u2, l2, &c2) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_save_to_buffer_format(c2, GBT_MODEL_XGBOOST_UBJ, &u3, &l3) == GBT_OK);
    FUZZ_ASSERT(l2 == l3 && memcmp(u2, u3, l2) == 0);
    gbt_free(u1), gbt_free(u2), gbt_free(u3);
    gbt_booster_free(c1), gbt_booster_free(c2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gbt_jdoc doc = {0};
    gbt_booster *b = NULL, *c = NULL;
    char *saved = NULL, *again = NULL, buf[64];
    size_t ls = 0, la = 0;
    uint64_t nf, psize = 0;
    float *p1 = NULL, *p2 = NULL;
    gbt_status s = gbt_booster_load_from_buffer((const char *)data, size, &b);
    if (s != GBT_OK) {
        FUZZ_ASSERT(FUZZ_FAILED_WITH_MESSAGE(s));
        FUZZ_ASSERT(b == NULL);
        return 0;
    }
    FUZZ_ASSERT(gbt_booster_set_param(b, "nthread", "1") == GBT_OK);
    FUZZ_ASSERT(gbt_booster_get_attr(b, "num_feature", buf, sizeof buf) == GBT_OK);
    nf = strtoull(buf, NULL, 10);
    /* UBJSON is walked as the JSON text it reads as */
    if (gbt__ubjson_sniff((const char *)data, size)) {
        FUZZ_ASSERT(gbt__ubjson_parse((const char *)data, size, "model", &doc) == GBT_OK);
        data = (const uint8_t *)doc.own;
        size = strlen(doc.own);
    }
    /* the loaded model's predictions against the walk of its text first: the first thing a corruption breaks */
    if (nf >= 1 && nf <= MAX_FEAT) {
        FUZZ_ASSERT(gbt_booster_predict_size(b, NROW, 0, &psize) == GBT_OK);
        p1 = calloc(psize, sizeof *p1);
        p2 = calloc(psize, sizeof *p2);
        FUZZ_ASSERT(p1 && p2);
        predict_four_ways(b, nf, p1, (const char *)data, size);
    }
    gbt__json_free(&doc);
    ubjson_round_trip(b);
    FUZZ_ASSERT(gbt_booster_save_to_buffer(b, &saved, &ls) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_load_from_buffer(saved, ls, &c) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_set_param(c, "nthread", "1") == GBT_OK);
    FUZZ_ASSERT(gbt_booster_save_to_buffer(c, &again, &la) == GBT_OK);
    FUZZ_ASSERT(ls == la && memcmp(saved, again, ls) == 0);
    if (p1) {
        predict_four_ways(c, nf, p2, saved, ls);
        FUZZ_ASSERT(fuzz_same_floats(p1, p2, psize));
    }
    free(p1), free(p2);
    gbt_free(saved);
    gbt_free(again);
    gbt_booster_free(b);
    gbt_booster_free(c);
    return 0;
}
