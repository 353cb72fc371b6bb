/*
 * test_iter.c - a dataset made from batches (gbt_dataset_from_iter) trains
 * the model of the same rows in one dataset, byte for byte: a regression, a
 * 3-class and a ranking objective, depthwise and lossguide, batches of 1
 * row, of uneven sizes and all rows at once, dense and CSR batches, a batch
 * in which a feature is all missing, weights spanning 2^60 (which take the
 * third pass); on the CPU and, where a CUDA device is there (the emulated
 * one in this build), on CUDA against the CPU's in-memory model.  The
 * expected model is the in-memory dataset's, made by gbt_dataset_from_dense
 * and trained apart.  Bad batches fail with a message naming the batch, and
 * what needs the feature values is refused.  The batches of 97 are kept as
 * pages on disk (gbt_dataset_from_iter_ext with a cache prefix: five
 * pages); check_pages adds the CSR and two-byte layouts in pages, a stale
 * page (another dataset's file in its place), a corrupt one (a byte
 * flipped, also between two rounds of one training, whose reader sums a
 * page once a tree), a code past its bins under a matching checksum
 * (computed here), a truncated one, and the files gone once the datasets
 * are freed.
 * Validation rows binned with the training rows' cuts
 * (gbt_dataset_from_iter_ref) evaluate and predict as the same rows in
 * memory, bit for bit (check_ref).
 * The CPU trains on pages streaming them (one page in memory at a time):
 * check_page_memory checks that its memory check counts one page; CUDA
 * streams them through two device buffers: check_device_pages checks its
 * other layouts, its memory check and a corrupt page.
 *
 * Built twice: tests/test_iter against the library (the CPU; valgrind runs
 * it), and tests/test_iter_emu against the emulated CUDA device
 * (GBT_CUDA_EMU), which runs only the device=cuda cases.
 */
#include <dirent.h>
#include <math.h>

#include "testutil.h"

enum { N = 420, C = 6, GROUP = 10, ROUNDS = 3 };

static float x[N * C], y[N], w[N];

#ifdef GBT_CUDA_EMU
static const int only_device = 1;
#else
static const int only_device = 0;
#endif

/* The caller's source: rows [at, at + batch) each call, dense or CSR. */
struct src {
    uint64_t batch, at;
    int csr, weighted, groups, bad_at, bad_kind, resets;
};

static int reset_cb(void *user)
{
    struct src *s = user;
    s->at = 0;
    s->resets++;
    return 0;
}

static int next_cb(void *user, gbt_batch *b)
{
    struct src *s = user;
    const uint64_t i = s->at / s->batch, n = s->at + s->batch <= N ? s->batch : N - s->at;
    uint64_t ncol = C;
    if (s->at >= N) return 0;
    if (s->bad_kind == 1 && i == (uint64_t)s->bad_at) ncol = C - 1;
    if (s->bad_kind == 3 && i == (uint64_t)s->bad_at) return -7;
    if (s->bad_kind == 4 && s->resets == 2 && i == (uint64_t)s->bad_at) return -7; /* in the second pass only */
    if (s->csr) {
        uint64_t ptr[N + 1], k = 0;
        uint32_t idx[N * C];
        float val[N * C];
        ptr[0] = 0;
        for (uint64_t r = 0; r < n; r++) {
            for (uint64_t c = 0; c < ncol; c++)
                if (!isnan(x[(s->at + r) * C + c])) {
                    idx[k] = (uint32_t)c;
                    val[k++] = x[(s->at + r) * C + c];
                }
            ptr[r + 1] = k;
        }
        if (gbt_batch_set_csr(b, ptr, idx, val, n, ncol) != GBT_OK) return -1;
    } else if (ncol == C) {
        if (gbt_batch_set_dense(b, x + s->at * C, n, C, NAN) != GBT_OK) return -1;
    } else {
        float part[N * C];
        for (uint64_t r = 0; r < n; r++) memcpy(part + r * ncol, x + (s->at + r) * C, ncol * sizeof *part);
        if (gbt_batch_set_dense(b, part, n, ncol, NAN) != GBT_OK) return -1;
    }
    if (!(s->bad_kind == 2 && i == (uint64_t)s->bad_at) && gbt_batch_set_field(b, "label", y + s->at, n) != GBT_OK)
        return -1;
    if (s->weighted && gbt_batch_set_field(b, "weight", w + s->at, n) != GBT_OK) return -1;
    if (s->groups) {
        uint32_t sizes[N / GROUP];
        for (uint64_t g = 0; g < n / GROUP; g++) sizes[g] = GROUP;
        if (gbt_batch_set_groups(b, sizes, n / GROUP) != GBT_OK) return -1;
    }
    s->at += n;
    return 1;
}

static const char *cache; /* a cache prefix: the dataset's binned matrix in pages there; NULL: in memory */
static char prefix[300];   /* the test folder's "dtrain.cache" */

static gbt_dataset *from_iter(struct src *s, int max_bin)
{
    gbt_dataset *d = NULL;
    if (gbt_dataset_from_iter_ext(next_cb, reset_cb, s, max_bin, cache, &d) != GBT_OK) {
        diag("gbt_dataset_from_iter: %s", gbt_last_error());
        return NULL;
    }
    return d;
}

static gbt_dataset *in_memory(int weighted, int groups)
{
    gbt_dataset *d = NULL;
    if (gbt_dataset_from_dense(x, N, C, NAN, &d) != GBT_OK || gbt_dataset_set_field(d, "label", y, N) != GBT_OK ||
        (weighted && gbt_dataset_set_field(d, "weight", w, N) != GBT_OK))
        exit(2);
    if (groups) {
        uint32_t sizes[N / GROUP];
        for (int g = 0; g < N / GROUP; g++) sizes[g] = GROUP;
        if (gbt_dataset_set_groups(d, sizes, N / GROUP) != GBT_OK) exit(2);
    }
    return d;
}

struct kase {
    const char *objective, *extra;
    int task, weighted, groups;
};

/* device=cuda (emulated: costly) for one growth policy per objective, alternating */
static void check_case(const struct kase *k, int have_cuda, int cuda_policy)
{
    static const uint64_t batches[] = {1, 70, 97, N};
    const char *policies[] = {"grow_policy=depthwise", "grow_policy=lossguide"};
    gbt_dataset *mem;
    tu_data(N, C, 0.1, k->task, x, y);
    /* feature 4 is missing in every row of the first 97 (a whole batch of 97) */
    for (int r = 0; r < 97; r++) x[r * C + 4] = NAN;
    for (int r = 0; r < N; r++) w[r] = r % 5 == 0 ? 3e-18f * (float)(r + 1) : 0.25f + (float)(r % 7);
    mem = in_memory(k->weighted, k->groups);
    for (int p = 0; p < 2; p++) {
        const char *set[] = {k->objective, k->extra, policies[p], "max_depth=3", "max_leaves=6", "max_bin=16",
                             "nthread=2", "device=cpu", NULL};
        const char *set_cuda[] = {k->objective, k->extra, policies[p], "max_depth=3", "max_leaves=6",
                                  "max_bin=16", "device=cuda", NULL};
        gbt_booster *ref = tu_train(mem, ROUNDS, set);
        /* the binning does not depend on the growth policy: lossguide on the CSR batches only */
        for (size_t bi = p == 0 ? 0 : 2; bi < (p == 0 ? sizeof batches / sizeof *batches : 3); bi++) {
            /* ranking batches hold whole groups */
            const uint64_t bs = k->groups && batches[bi] % GROUP ? batches[bi] + GROUP - batches[bi] % GROUP
                                                                 : batches[bi];
            struct src s = {bs, 0, (int)(bi == 2), k->weighted, k->groups, -1, 0, 0};
            gbt_dataset *d;
            gbt_booster *b;
            if (only_device && !(have_cuda && p == cuda_policy && bi == 2)) continue;
            cache = bi == 2 ? prefix : NULL; /* the batches of 97 in pages */
            d = from_iter(&s, 16);
            cache = NULL;
            b = d && !only_device ? tu_train(d, ROUNDS, set) : NULL;
            /* two passes; three for these weights, of which some are not whole at the final shift */
            if (!only_device)
                ok(ref && b && tu_same_model(ref, b) && s.resets == (k->weighted ? 3 : 2),
                   "%s %s, batches of %llu (%s%s): the in-memory model (%d resets)", k->objective, policies[p],
                   (unsigned long long)bs, s.csr ? "CSR" : "dense", bi == 2 ? ", in pages" : "", s.resets);
            gbt_booster_free(b);
            if (have_cuda && p == cuda_policy && d && bi == 2) {
                b = tu_train(d, ROUNDS, set_cuda);
                ok(ref && b && tu_same_model(ref, b), "%s %s, batches of %llu in pages on device=cuda: the CPU's in-memory model",
                   k->objective, policies[p], (unsigned long long)bs);
                gbt_booster_free(b);
            }
            gbt_dataset_free(d);
        }
        gbt_booster_free(ref);
    }
    gbt_dataset_free(mem);
}

/* A bad batch: the call fails and the message names the batch and the fault. */
static void check_bad(int kind, int at, const char *want)
{
    struct src s = {50, 0, 0, 0, 0, at, kind, 0};
    gbt_dataset *d = NULL;
    gbt_status st = gbt_dataset_from_iter(next_cb, reset_cb, &s, 256, &d);
    ok(st == GBT_E_INVALID_ARG && d == NULL && strstr(gbt_last_error(), want) != NULL, "bad batch %d: %s",
       at, gbt_last_error());
}

/* Loads a copy of b (exit 2 on a failure). */
static gbt_booster *copy_of(const gbt_booster *b)
{
    char *buf = NULL;
    size_t len = 0;
    gbt_booster *c = NULL;
    if (b == NULL || gbt_booster_save_to_buffer(b, &buf, &len) != GBT_OK ||
        gbt_booster_load_from_buffer(buf, len, &c) != GBT_OK)
        exit(2);
    gbt_free(buf);
    return c;
}

/*
 * Training on from trees over the bins: the model of training on over the values when every threshold is one
 * of the bins' cuts (the trees trained on those bins), refused when one is not.  What needs the feature values
 * is refused, naming the iterator.
 */
static void check_refused(void)
{
    const char *set[] = {"objective=reg:squarederror", "max_depth=2", "device=cpu", NULL};
    const char *other[] = {"objective=reg:squarederror", "max_depth=2", "max_bin=32", "device=cpu", NULL};
    struct src s = {100, 0, 0, 0, 0, -1, 0, 0};
    gbt_dataset *d, *mem, *slice = NULL;
    gbt_booster *b;
    tu_data(N, C, 0.0, 0, x, y);
    d = from_iter(&s, 256);
    mem = in_memory(0, 0);
    b = d ? tu_train(d, 1, set) : NULL;
    {
        gbt_booster *on_bins = copy_of(b), *on_values = copy_of(b), *elsewhere;
        ok(gbt_booster_update(on_bins, d) == GBT_OK && gbt_booster_update(on_values, mem) == GBT_OK &&
               tu_same_model(on_bins, on_values),
           "training on from the bins' trees over the bins: the model of training on over the values");
        for (int i = 0; i < N * C; i++) x[i] = x[i] * 1.37f + 0.11f; /* other values: other thresholds */
        gbt_dataset_free(mem);
        mem = in_memory(0, 0);
        elsewhere = tu_train(mem, 1, set);
        ok(elsewhere && gbt_booster_update(elsewhere, d) == GBT_E_INVALID_ARG &&
               strstr(gbt_last_error(), "is not one of its cuts"),
           "training on from trees whose threshold is not a cut is refused: %s", gbt_last_error());
        gbt_booster_free(on_bins);
        gbt_booster_free(on_values);
        gbt_booster_free(elsewhere);
    }
    gbt_dataset_free(mem);
    gbt_booster_free(b);
    b = tu_booster(other);
    ok(gbt_booster_train(b, d, 1, NULL, NULL, 0) == GBT_E_INVALID_ARG && strstr(gbt_last_error(), "max_bin=256"),
       "another max_bin is refused: %s", gbt_last_error());
    ok(gbt_dataset_slice_rows(d, 0, 10, &slice) == GBT_E_INVALID_ARG && slice == NULL, "slicing is refused");
    ok(gbt_dataset_set_field(d, "weight", y, N) == GBT_E_INVALID_ARG, "new weights are refused");
    ok(gbt_dataset_set_field(d, "label", y, N) == GBT_OK, "new labels are taken");
    gbt_booster_free(b);
    gbt_dataset_free(d);
}

/* The page files in the test folder: their count, and in path the path of one that is not `except`'s. */
static int page_files(char *path, const char *except)
{
    DIR *dir = opendir(tu_tmpdir());
    struct dirent *e;
    int n = 0;
    if (dir == NULL) exit(2);
    while ((e = readdir(dir)) != NULL)
        if (strstr(e->d_name, ".pages")) {
            char p[600];
            n++;
            snprintf(p, sizeof p, "%s/%s", tu_tmpdir(), e->d_name);
            if (path && (except == NULL || strcmp(p, except) != 0)) strcpy(path, p);
        }
    closedir(dir);
    return n;
}

/* A paged dataset of the rows in batches of bs (CSR batches: csr) and in path its page file (beside except's). */
static gbt_dataset *paged(uint64_t bs, int csr, int max_bin, char *path, const char *except)
{
    struct src s = {bs, 0, csr, 0, 0, -1, 0, 0};
    gbt_dataset *d;
    const int n = page_files(NULL, NULL);
    cache = prefix;
    d = from_iter(&s, max_bin);
    cache = NULL;
    if (d == NULL || page_files(path, except) != n + 1) exit(2);
    return d;
}

/*
 * Writes the n bytes of page over f's start and (unless only_bytes) their
 * CRC-32 after them, computed here bit by bit (the reflected IEEE
 * polynomial, as zlib's crc32).
 */
static void put_crc(FILE *f, const unsigned char *page, size_t n, int only_bytes)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= page[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    crc = ~crc;
    if (fseek(f, 0, SEEK_SET) != 0 || fwrite(page, 1, n, f) != n) exit(2);
    if (!only_bytes && fwrite(&crc, 4, 1, f) != 1) exit(2);
}

/* Training on d fails with GBT_E_FORMAT and a message holding want. */
static void check_fails(gbt_dataset *d, const char *want, const char *what)
{
    const char *set[] = {"objective=reg:squarederror", "max_depth=2", "max_bin=16", "device=cpu", NULL};
    gbt_booster *b = tu_booster(set);
    const gbt_status st = gbt_booster_train(b, d, 1, NULL, NULL, 0);
    ok(st == GBT_E_FORMAT && strstr(gbt_last_error(), want) && strstr(gbt_last_error(), ".pages'"),
       "%s is refused: %s", what, gbt_last_error());
    gbt_booster_free(b);
}

/* The memory hook of the CPU's memory check, or (cuda) of the device's free memory. */
static const char *memory_env(int cuda)
{
    return cuda ? "GBT_CUDA_FAKE_FREE_BYTES" : "GBT_CPU_FAKE_MEMORY_BYTES";
}

/*
 * The bytes a training on d says it needs under a memory of 1 byte (its
 * message in msg), on the CPU or (cuda) the device.
 */
static unsigned long long needs(gbt_dataset *d, int cuda, char *msg, size_t len)
{
    const char *set[] = {"objective=reg:squarederror", "max_depth=2", "max_bin=16", cuda ? "device=cuda" : "device=cpu",
                         NULL};
    gbt_booster *b = tu_booster(set);
    unsigned long long v = 0;
    const char *at;
    setenv(memory_env(cuda), "1", 1);
    if (gbt_booster_train(b, d, 1, NULL, NULL, 0) == (cuda ? GBT_E_DEVICE : GBT_E_NO_MEMORY) &&
        (at = strstr(gbt_last_error(), cuda ? "needs " : "about ")))
        v = strtoull(at + 6, NULL, 10);
    snprintf(msg, len, "%s", gbt_last_error());
    unsetenv(memory_env(cuda));
    gbt_booster_free(b);
    return v;
}

/* Whether a training on d succeeds under a memory of `bytes` (cuda: on the device). */
static int fits(gbt_dataset *d, int cuda, unsigned long long bytes)
{
    const char *set[] = {"objective=reg:squarederror", "max_depth=2", "max_bin=16", cuda ? "device=cuda" : "device=cpu",
                         NULL};
    gbt_booster *b = tu_booster(set);
    char v[32];
    gbt_status st;
    snprintf(v, sizeof v, "%llu", bytes);
    setenv(memory_env(cuda), v, 1);
    st = gbt_booster_train(b, d, 1, NULL, NULL, 0);
    unsetenv(memory_env(cuda));
    gbt_booster_free(b);
    return st == GBT_OK;
}

/*
 * Training streams the pages: its memory check counts one page (100 rows
 * x 6 one-byte codes) and a byte a row of partition notes (420), 1,020
 * bytes, where the in-memory matrix is 2,520 bytes; a memory that fits
 * the first and not the second trains the paged dataset only.
 */
/*
 * The rows now in x, y: in pages of bs rows (csr, max_bin), trained with
 * got_set, they give the model the rows in memory give with ref_set.
 */
static void same_as_in_memory(uint64_t bs, int csr, int max_bin, const char *const *ref_set,
                              const char *const *got_set, const char *what)
{
    gbt_dataset *mem = in_memory(0, 0), *a = paged(bs, csr, max_bin, NULL, NULL);
    gbt_booster *ref = tu_train(mem, 2, ref_set), *got = tu_train(a, 2, got_set);
    ok(ref && got && tu_same_model(ref, got), "%s", what);
    gbt_booster_free(ref);
    gbt_booster_free(got);
    gbt_dataset_free(mem);
    gbt_dataset_free(a);
}

static void check_page_memory(void)
{
    char m_mem[1024], m_paged[1024];
    gbt_dataset *mem = in_memory(0, 0), *a = paged(100, 0, 16, NULL, NULL);
    const unsigned long long in_mem = needs(mem, 0, m_mem, sizeof m_mem), in_pages = needs(a, 0, m_paged, sizeof m_paged);
    ok(in_mem > 0 && in_pages > 0 && in_mem - in_pages == 2520 - 1020,
       "the memory check counts a page, not the matrix: %llu bytes against %llu", in_pages, in_mem);
    ok(strstr(m_paged, "the binned matrix in 5 pages on disk, of which one page and a byte a row: 1020 bytes") &&
           !strstr(m_mem, "pages"),
       "and says so: %s", m_paged);
    ok(in_pages > 0 && fits(a, 0, in_pages) && !fits(mem, 0, in_pages),
       "a memory of %llu bytes trains on the pages, not in memory", in_pages);
    gbt_dataset_free(mem);
    gbt_dataset_free(a);
}

/*
 * Pages in the other layouts (CSR: data 85% missing; two bytes: max_bin
 * 300), then stale, corrupt and cut short pages refused, and every page
 * file gone once its dataset is freed.
 */
static void check_pages(void)
{
    const char *set_csr[] = {"objective=reg:squarederror", "max_depth=3", "max_bin=16", "device=cpu", NULL};
    const char *set_wide[] = {"objective=reg:squarederror", "max_depth=3", "max_bin=300", "device=cpu", NULL};
    char pa[600], pb[600];
    gbt_dataset *a, *b;
    FILE *f;
    long size;
    tu_data(N, C, 0.0, 0, x, y);
    for (int i = 0; i < N * C; i++)
        if ((i * 7) % 20 < 17) x[i] = NAN;
    same_as_in_memory(50, 1, 16, set_csr, set_csr, "CSR layout in 9 pages of 50 rows: the in-memory model");
    tu_data(N, C, 0.0, 0, x, y);
    same_as_in_memory(100, 0, 300, set_wide, set_wide, "two-byte codes (max_bin 300) in 5 pages: the in-memory model");
    ok(page_files(NULL, NULL) == 0, "the page files are removed with their datasets");
    check_page_memory();
    /* another dataset's file in the place of a's: of other cuts, then of the same */
    a = paged(100, 0, 16, pa, NULL);
    b = paged(100, 0, 8, pb, pa);
    if (rename(pb, pa) != 0) exit(2);
    check_fails(a, "stale: binned with other cuts", "a page of other cuts");
    gbt_dataset_free(b);
    b = paged(100, 0, 16, pb, pa);
    if (rename(pb, pa) != 0) exit(2);
    check_fails(a, "stale: written for another dataset", "a page of another dataset with the same cuts");
    gbt_dataset_free(b);
    gbt_dataset_free(a);
    /*
     * a byte of page 0's codes flipped (between two rounds of one training,
     * whose reader summed the page in the first: the next round sums it
     * again), then the file cut short
     */
    a = paged(100, 0, 16, pa, NULL);
    f = fopen(pa, "r+b");
    if (f == NULL || fseek(f, 90, SEEK_SET) != 0) exit(2);
    {
        const char *set[] = {"objective=reg:squarederror", "max_depth=2", "max_bin=16", "device=cpu", NULL};
        gbt_booster *b1 = tu_booster(set);
        const int c = fgetc(f);
        const gbt_status first = gbt_booster_update(b1, a);
        if (fseek(f, 90, SEEK_SET) != 0 || fputc(c ^ 1, f) == EOF) exit(2);
        fclose(f);
        ok(first == GBT_OK && gbt_booster_update(b1, a) == GBT_E_FORMAT &&
               strstr(gbt_last_error(), "page 0: checksum mismatch"),
           "a byte flipped after a round is refused by the next round: %s", gbt_last_error());
        gbt_booster_free(b1);
        check_fails(a, "page 0: checksum mismatch", "a page with a byte flipped");
        f = fopen(pa, "r+b");
        if (f == NULL || fseek(f, 90, SEEK_SET) != 0 || fputc(c, f) == EOF) exit(2);
    }
    {
        /* a code past its feature's bins under a checksum that matches: page 0 is 80 + 100 x 6 bytes, then its CRC */
        unsigned char page[680], sum[4], was;
        if (fseek(f, 0, SEEK_SET) != 0 || fread(page, 1, 680, f) != 680 || fread(sum, 1, 4, f) != 4) exit(2);
        was = page[90];
        page[90] = 0xff;
        put_crc(f, page, 680, 0);
        fclose(f);
        check_fails(a, "page 0: a code out of the cuts' range", "a code past its bins with a good checksum");
        f = fopen(pa, "r+b");
        page[90] = was;
        if (f == NULL) exit(2);
        put_crc(f, page, 680, 1);
        if (fseek(f, 680, SEEK_SET) != 0 || fwrite(sum, 1, 4, f) != 4 || fseek(f, 0, SEEK_END) != 0) exit(2);
    }
    size = ftell(f);
    fclose(f);
    if (truncate(pa, size - 3) != 0) exit(2);
    check_fails(a, "page 4: truncated", "a file cut short");
    gbt_dataset_free(a);
    {
        /* a batch failing in the second pass, with pages written before it */
        struct src s = {50, 0, 0, 0, 0, 3, 4, 0};
        gbt_dataset *d = NULL;
        ok(gbt_dataset_from_iter_ext(next_cb, reset_cb, &s, 16, prefix, &d) == GBT_E_INVALID_ARG && d == NULL &&
               strstr(gbt_last_error(), "batch 3"),
           "a batch failing in pass 2: %s", gbt_last_error());
    }
    ok(page_files(NULL, NULL) == 0, "no page file is left");
}

/*
 * gbt_dataset_from_file_iter: a CSV file of the rows (floats written to
 * round-trip, a missing value empty; feature 2 a category number, declared
 * by the option feature_types) read in batches of about 2,000 bytes of its
 * text trains the model of the same file read whole, on the CPU and on the
 * device; the file read whole with the option is the file read whole with
 * gbt_dataset_set_feature_types after.
 */
static void check_file(int have_cuda)
{
    const char *set[] = {"objective=reg:squarederror", "max_depth=3", "max_bin=16", "device=cpu", NULL};
    const char *set_cuda[] = {"objective=reg:squarederror", "max_depth=3", "max_bin=16", "device=cuda", NULL};
    const char *types[C] = {"q", "q", "c", "q", "q", "q"};
    char *text = malloc((size_t)N * (C + 1) * 20 + 1), *at = text;
    const char *path;
    gbt_dataset *whole = NULL, *typed = NULL, *batches = NULL;
    gbt_booster *ref = NULL, *b = NULL, *t = NULL;
    if (text == NULL) exit(2);
    tu_data(N, C, 0.1, 0, x, y);
    for (int r = 0; r < N; r++) {
        const int cat = r * 7 % 9; /* categories 2, 5 and 7 raise the label: a split on a set of them */
        at += sprintf(at, "%.9g", (double)y[r] + (cat == 2 || cat == 5 || cat == 7 ? 3.0 : 0.0));
        for (int c = 0; c < C; c++)
            at += c == 2 ? sprintf(at, ",%d", cat)
                  : isnan(x[r * C + c]) ? sprintf(at, ",")
                                        : sprintf(at, ",%.9g", (double)x[r * C + c]);
        *at++ = '\n';
    }
    *at = '\0';
    path = tu_write("rows.csv", text);
    free(text);
    if (gbt_dataset_from_file(path, NULL, &whole) != GBT_OK || gbt_dataset_set_feature_types(whole, types, C) ||
        gbt_dataset_from_file(path, "feature_types=qqcqqq", &typed) != GBT_OK ||
        gbt_dataset_from_file_iter(path, "batch_bytes=2000,feature_types=qqcqqq", 16, &batches) != GBT_OK)
        diag("reading %s: %s", path, gbt_last_error());
    ref = whole ? tu_train(whole, ROUNDS, set) : NULL;
    t = typed && !only_device ? tu_train(typed, ROUNDS, set) : NULL;
    b = batches ? tu_train(batches, ROUNDS, only_device ? set_cuda : set) : NULL;
    if (!only_device) {
        size_t len;
        char *json = ref ? tu_model(ref, &len) : NULL;
        const char *cat = json ? strstr(json, "\"categories_nodes\": [") : NULL;
        int split = 0; /* some tree has a categorical split */
        for (; cat && !split; cat = strstr(cat + 1, "\"categories_nodes\": ["))
            split = cat[strlen("\"categories_nodes\": [")] != ']';
        ok(ref && t && tu_same_model(ref, t) && split,
           "the option feature_types=qqcqqq: the types gbt_dataset_set_feature_types sets (and a categorical split)");
        gbt_free(json);
    }
    if (!only_device || have_cuda)
        ok(ref && b && tu_same_model(ref, b),
           "a CSV file with a categorical feature in batches of 2,000 bytes%s: the model of the file read whole",
           only_device ? " on device=cuda" : "");
    gbt_booster_free(ref);
    gbt_booster_free(b);
    gbt_booster_free(t);
    gbt_dataset_free(whole);
    gbt_dataset_free(typed);
    gbt_dataset_free(batches);
    tu_cleanup();
}

/* ---- a dataset binned with a reference's cuts (gbt_dataset_from_iter_ref) ---- */

/* validation rows: enough for the device's walk where there is one (GBT_DEVICE_PREDICT_MIN_ROWS), else few */
enum { NT = 300, NV_MAX = 1100 };
static uint64_t NV = 200;
static float xr[(NT + NV_MAX) * C], yr[NT + NV_MAX];

/* Rows of xr in batches of 128, dense or CSR, feature 2 categorical when cat is set. */
struct rows {
    const float *x, *y;
    uint64_t n, at;
    int csr, cat, ncol;
};

static int rows_reset(void *user)
{
    ((struct rows *)user)->at = 0;
    return 0;
}

static int rows_next(void *user, gbt_batch *b)
{
    struct rows *s = user;
    const char *types[C] = {"q", "q", "c", "q", "q", "q"};
    const uint64_t n = s->n - s->at < 128 ? s->n - s->at : 128, ncol = s->ncol ? (uint64_t)s->ncol : C;
    const float *x = s->x + s->at * C;
    if (n == 0) return 0;
    if (s->csr) {
        uint64_t ptr[129], k = 0;
        uint32_t idx[128 * C];
        float val[128 * C];
        ptr[0] = 0;
        for (uint64_t r = 0; r < n; r++) {
            for (uint64_t c = 0; c < C; c++)
                if (!isnan(x[r * C + c])) {
                    idx[k] = (uint32_t)c;
                    val[k++] = x[r * C + c];
                }
            ptr[r + 1] = k;
        }
        if (gbt_batch_set_csr(b, ptr, idx, val, n, C) != GBT_OK) return -1;
    } else if (ncol == C) {
        if (gbt_batch_set_dense(b, x, n, C, NAN) != GBT_OK) return -1;
    } else {
        float part[128 * C];
        for (uint64_t r = 0; r < n; r++) memcpy(part + r * ncol, x + r * C, ncol * sizeof *part);
        if (gbt_batch_set_dense(b, part, n, ncol, NAN) != GBT_OK) return -1;
    }
    if (gbt_batch_set_field(b, "label", s->y + s->at, n) != GBT_OK) return -1;
    if (s->cat && gbt_batch_set_feature_types(b, types, C) != GBT_OK) return -1;
    s->at += n;
    return 1;
}

/*
 * device=cuda streams the pages (cuda/pages.cu): its CSR and two-byte
 * layouts (the one-byte one: check_case) give the CPU's in-memory model;
 * its memory check counts two page buffers of 100 rows x 6 one-byte codes
 * (600 bytes, allocated in 512-byte units: 1,024 each) and a byte a row
 * of partition notes (420: 512), 2,560 bytes, where the whole matrix on
 * the device is its rows (2,520: 2,560) and their column-major copy
 * (2,560), 5,120 bytes; a device memory that fits the first and not the
 * second trains the paged dataset only; a corrupt page is refused on the
 * device too; and a categorical feature (feature 2, five categories) in
 * three pages of 128 rows gives the CPU's in-memory model, with a
 * categorical split.
 */
static void check_device_pages(void)
{
    const char *set_cpu[] = {"objective=reg:squarederror", "max_depth=3", "max_bin=16", "device=cpu", NULL};
    const char *set_csr[] = {"objective=reg:squarederror", "max_depth=3", "max_bin=16", "device=cuda", NULL};
    const char *set_wide_cpu[] = {"objective=reg:squarederror", "max_depth=3", "max_bin=300", "device=cpu", NULL};
    const char *set_wide[] = {"objective=reg:squarederror", "max_depth=3", "max_bin=300", "device=cuda", NULL};
    const char *set_bad[] = {"objective=reg:squarederror", "max_depth=2", "max_bin=16", "device=cuda", NULL};
    char m_mem[1024], m_paged[1024], pa[600];
    gbt_dataset *mem, *a;
    gbt_booster *ref, *got;
    FILE *f;
    tu_data(N, C, 0.0, 0, x, y);
    for (int i = 0; i < N * C; i++)
        if ((i * 7) % 20 < 17) x[i] = NAN;
    same_as_in_memory(50, 1, 16, set_cpu, set_csr,
                      "CSR layout in 9 pages of 50 rows on device=cuda: the CPU's in-memory model");
    tu_data(N, C, 0.0, 0, x, y);
    same_as_in_memory(100, 0, 300, set_wide_cpu, set_wide,
                      "two-byte codes (max_bin 300) in 5 pages on device=cuda: the CPU's in-memory model");
    {
        struct src s = {100, 0, 0, 0, 0, -1, 0, 0};
        unsigned long long in_mem, in_pages;
        mem = from_iter(&s, 16); /* the same binned matrix, in memory */
        a = paged(100, 0, 16, NULL, NULL);
        if (mem == NULL) exit(2);
        in_mem = needs(mem, 1, m_mem, sizeof m_mem);
        in_pages = needs(a, 1, m_paged, sizeof m_paged);
        ok(in_mem > 0 && in_pages > 0 && in_mem - in_pages == 5120 - 2560,
           "the device's memory check counts two pages, not the matrix: %llu bytes against %llu", in_pages, in_mem);
        ok(strstr(m_paged, "the binned matrix in 5 pages on disk, of which two pages and a byte a row: 2560 bytes") &&
               !strstr(m_mem, "pages"),
           "and says so: %s", m_paged);
        ok(in_pages > 0 && fits(a, 1, in_pages) && !fits(mem, 1, in_pages),
           "a device memory of %llu bytes trains on the pages, not in memory", in_pages);
        gbt_dataset_free(mem);
        gbt_dataset_free(a);
    }
    a = paged(100, 0, 16, pa, NULL);
    f = fopen(pa, "r+b");
    if (f == NULL || fseek(f, 90, SEEK_SET) != 0) exit(2);
    {
        const int c = fgetc(f);
        gbt_booster *b = tu_booster(set_bad);
        if (fseek(f, 90, SEEK_SET) != 0 || fputc(c ^ 1, f) == EOF) exit(2);
        fclose(f);
        ok(gbt_booster_train(b, a, 1, NULL, NULL, 0) == GBT_E_FORMAT &&
               strstr(gbt_last_error(), "page 0: checksum mismatch"),
           "a page with a byte flipped is refused on device=cuda: %s", gbt_last_error());
        gbt_booster_free(b);
    }
    gbt_dataset_free(a);
    {
        const char *types[C] = {"q", "q", "c", "q", "q", "q"};
        struct rows tr = {xr, yr, NT, 0, 0, 1, 0};
        size_t len = 0;
        char *json;
        tu_data(NT, C, 0.1, 0, xr, yr);
        if (gbt_dataset_from_dense(xr, NT, C, NAN, &mem) != GBT_OK || gbt_dataset_set_field(mem, "label", yr, NT) ||
            gbt_dataset_set_feature_types(mem, types, C) ||
            gbt_dataset_from_iter_ext(rows_next, rows_reset, &tr, 16, prefix, &a) != GBT_OK)
            exit(2);
        ref = tu_train(mem, 2, set_cpu);
        got = tu_train(a, 2, set_csr);
        json = got ? tu_model(got, &len) : NULL;
        ok(ref && got && tu_same_model(ref, got) && json && strstr(json, "\"categories_nodes\": [") &&
               !strstr(json, "\"categories_nodes\": []"),
           "a categorical feature in 3 pages of 128 rows on device=cuda: the CPU's in-memory model, with a categorical "
           "split");
        gbt_free(json);
        gbt_booster_free(ref);
        gbt_booster_free(got);
        gbt_dataset_free(mem);
        gbt_dataset_free(a);
    }
    ok(page_files(NULL, NULL) == 0, "the page files are removed with their datasets");
}

/* Same floats: a prediction of the binned rows against the rows in memory. */
static int same_floats(const gbt_booster *a, const gbt_dataset *da, const gbt_booster *b, const gbt_dataset *db,
                       unsigned flags)
{
    uint64_t n = 0, m = 0;
    float *p = NULL, *q = NULL;
    int same = gbt_booster_predict_size(a, NV, flags, &n) == GBT_OK && n > 0 && (p = malloc(n * 4)) != NULL &&
               (q = malloc(n * 4)) != NULL && gbt_booster_predict(a, da, flags, p, n) == GBT_OK &&
               gbt_booster_predict_size(b, NV, flags, &m) == GBT_OK && m == n &&
               gbt_booster_predict(b, db, flags, q, n) == GBT_OK && memcmp(p, q, n * 4) == 0;
    if (!same) diag("flags %u: %s", flags, gbt_last_error());
    free(p);
    free(q);
    return same;
}

/*
 * Validation rows binned with the training rows' cuts evaluate and predict
 * as the same rows in memory (an independent path: the trees on the
 * values), bit for bit: metrics each round, values, margins, leaf ids and
 * SHAP values; the reference made from an iterator or in memory.  Dense
 * rows with a categorical feature (reg:squarederror), and sparse ones (the
 * CSR layout, 3 classes) with a feature the training rows never have.
 * Other cuts are refused.  Where a CUDA device is there, its predictions and
 * metrics are the CPU's.
 */
static void check_ref(int have_cuda, int sparse)
{
    const char *set[] = {sparse ? "objective=multi:softprob" : "objective=reg:squarederror",
                         sparse ? "num_class=3" : "eta=0.3", "max_depth=3", "max_bin=16", "nthread=2",
                         "device=cpu", NULL};
    const char *types[C] = {"q", "q", "c", "q", "q", "q"};
    struct rows tr = {xr, yr, NT, 0, 0, !sparse, 0}, va = {xr + NT * C, yr + NT, NV, 0, sparse, !sparse, 0};
    gbt_dataset *tmem = NULL, *vmem = NULL, *tit = NULL, *vref = NULL, *vref_mem = NULL, *vown = NULL, *bad = NULL;
    gbt_booster *bm, *bi, *b2, *b32;
    const gbt_dataset *evals[2];
    int same_metrics = 1;
    float out[NV_MAX * 3];
    NV = have_cuda ? NV_MAX : 200;
    va.n = NV;
    tu_data(NT + NV, C, sparse ? 0.8 : 0.1, sparse ? 3 : 0, xr, yr);
    if (sparse)
        for (int r = 0; r < NT; r++) xr[r * C + 5] = NAN; /* feature 5 only in the validation rows */
    if (gbt_dataset_from_dense(xr, NT, C, NAN, &tmem) != GBT_OK || gbt_dataset_set_field(tmem, "label", yr, NT) ||
        gbt_dataset_from_dense(xr + NT * C, NV, C, NAN, &vmem) != GBT_OK ||
        gbt_dataset_set_field(vmem, "label", yr + NT, NV) ||
        (!sparse && (gbt_dataset_set_feature_types(tmem, types, C) || gbt_dataset_set_feature_types(vmem, types, C))))
        exit(2);
    if (gbt_dataset_from_iter(rows_next, rows_reset, &tr, 16, &tit) != GBT_OK ||
        gbt_dataset_from_iter_ref(rows_next, rows_reset, &va, tit, 16, &vref) != GBT_OK ||
        gbt_dataset_from_iter_ref(rows_next, rows_reset, &va, tmem, 16, &vref_mem) != GBT_OK ||
        gbt_dataset_from_iter(rows_next, rows_reset, &va, 16, &vown) != GBT_OK)
        diag("from_iter: %s", gbt_last_error());
    bm = tu_booster(set);
    bi = tu_booster(set);
    /* each round's metric on the binned rows and on the rows in memory */
    for (int r = 0; r < ROUNDS && tit && vref; r++) {
        double em = -1, ei = -2;
        same_metrics &= gbt_booster_update(bm, tmem) == GBT_OK && gbt_booster_update(bi, tit) == GBT_OK &&
                        gbt_booster_eval_round(bm, vmem, &em, 1) == GBT_OK &&
                        gbt_booster_eval_round(bi, vref, &ei, 1) == GBT_OK && em == ei;
        if (em != ei) diag("round %d: %.17g in memory, %.17g binned (%s)", r, em, ei, gbt_last_error());
    }
    ok(tit && vref && same_metrics && tu_same_model(bm, bi), "%s: each round's metric on the binned validation rows "
       "is the in-memory rows' (gbt_booster_eval_round)", sparse ? "sparse, 3 classes" : "dense, categorical");
    evals[0] = tit;
    evals[1] = vref;
    b2 = tu_booster(set);
    ok(tit && vref && gbt_booster_train(b2, tit, ROUNDS, evals, NULL, 2) == GBT_OK && tu_same_model(bm, b2),
       "gbt_booster_train takes it among evals");
    ok(vref && same_floats(bm, vmem, bi, vref, 0) && same_floats(bm, vmem, bi, vref, GBT_PREDICT_MARGIN) &&
           same_floats(bm, vmem, bi, vref, GBT_PREDICT_LEAF) && same_floats(bm, vmem, bi, vref, GBT_PREDICT_CONTRIBS),
       "values, margins, leaf ids and SHAP values on it are the rows' in memory");
    ok(vref_mem && same_floats(bm, vmem, bm, vref_mem, 0), "so with the in-memory training rows as its reference");
    if (!sparse) {
        /* base margins set on the binned rows start their scores as they start the rows' in memory */
        float bmg[NV_MAX];
        for (uint64_t r = 0; r < NV; r++) bmg[r] = 0.01f * (float)(r % 13);
        ok(vref && gbt_dataset_set_field(vref, "base_margin", bmg, NV) == GBT_OK &&
               gbt_dataset_set_field(vmem, "base_margin", bmg, NV) == GBT_OK &&
               same_floats(bm, vmem, bi, vref, GBT_PREDICT_MARGIN),
           "with base margins too");
    }
    if (have_cuda) {
        gbt_booster_set_param(bi, "device", "cuda");
        ok(same_floats(bm, vmem, bi, vref, 0) && same_floats(bm, vmem, bi, vref, GBT_PREDICT_MARGIN),
           "on device=cuda (%llu rows: the device's walk) too", (unsigned long long)NV);
        {
            double em = -1, ei = -2;
            const int got = gbt_booster_eval_round(bm, vmem, &em, 1) == GBT_OK &&
                            gbt_booster_eval(bi, vref, sparse ? "mlogloss" : "rmse", &ei) == GBT_OK;
            ok(got && em == ei, "and its metric: %.17g (in memory, the CPU), %.17g", em, ei);
        }
    }
    ok(vown && gbt_booster_predict(bi, vown, 0, out, NV * 3) == GBT_E_INVALID_ARG &&
           strstr(gbt_last_error(), "is not one of its cuts"),
       "its own cuts are refused: %s", gbt_last_error());
    {
        const char *set32[] = {"max_bin=32", "device=cpu", "max_depth=3", sparse ? "objective=multi:softprob" : NULL,
                               "num_class=3", NULL};
        b32 = tu_train(tmem, 1, set32);
        ok(b32 && vref_mem && gbt_booster_predict(b32, vref_mem, 0, out, NV * 3) == GBT_E_INVALID_ARG &&
               strstr(gbt_last_error(), "not one of its cuts"),
           "a model of other cuts is refused: %s", gbt_last_error());
        gbt_booster_free(b32);
    }
    ok(gbt_dataset_from_iter_ref(rows_next, rows_reset, &va, tit, 32, &bad) == GBT_E_INVALID_ARG && bad == NULL &&
           strstr(gbt_last_error(), "max_bin=32"), "another max_bin of a reference from an iterator: %s",
       gbt_last_error());
    va.ncol = C - 1;
    va.csr = va.cat = 0;
    ok(gbt_dataset_from_iter_ref(rows_next, rows_reset, &va, tmem, 16, &bad) == GBT_E_INVALID_ARG && bad == NULL &&
           strstr(gbt_last_error(), "batch 0 has 5 columns but the reference dataset 6"),
       "fewer dense columns than the reference: %s", gbt_last_error());
    gbt_booster_free(bm);
    gbt_booster_free(bi);
    gbt_booster_free(b2);
    gbt_dataset_free(tmem);
    gbt_dataset_free(vmem);
    gbt_dataset_free(tit);
    gbt_dataset_free(vref);
    gbt_dataset_free(vref_mem);
    gbt_dataset_free(vown);
}

/*
 * gbt_dataset_from_dense_binned: the rows of x (10% missing, as -7 in a
 * matrix whose rows are C + 2 floats apart) with weights give the model of
 * the same rows in memory (on the CPU; in the emulated build on CUDA
 * against the CPU's in-memory model); bad arguments, an infinite value
 * and a negative weight are refused.
 */
static void check_dense_binned(int have_cuda)
{
    enum { S = C + 2 };
    static float xs[N * S];
    const char *set[] = {"objective=reg:squarederror", "max_depth=3", "max_bin=16", "device=cpu", NULL};
    const char *set_cuda[] = {"objective=reg:squarederror", "max_depth=3", "max_bin=16", "device=cuda", NULL};
    gbt_dataset *mem, *d = NULL, *bad = NULL;
    gbt_booster *ref, *got;
    tu_data(N, C, 0.1, 0, x, y);
    for (int i = 0; i < N; i++) w[i] = 0.25f + (float)(i % 7);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < S; c++) xs[r * S + c] = c < C && !isnan(x[r * C + c]) ? x[r * C + c] : -7.0f;
    mem = in_memory(1, 0);
    ref = tu_train(mem, ROUNDS, set);
    if (gbt_dataset_from_dense_binned(xs, N, C, S, -7.0f, w, 16, &d) != GBT_OK ||
        gbt_dataset_set_field(d, "label", y, N) != GBT_OK)
        diag("gbt_dataset_from_dense_binned: %s", gbt_last_error());
    if (!only_device || have_cuda) {
        got = d ? tu_train(d, ROUNDS, only_device ? set_cuda : set) : NULL;
        ok(ref && got && tu_same_model(ref, got), "an array's bins, weighted, rows %d floats apart%s: the in-memory "
           "model", S, only_device ? ", on device=cuda" : "");
        gbt_booster_free(got);
    }
    gbt_booster_free(ref);
    gbt_dataset_free(mem);
    gbt_dataset_free(d);
    if (only_device) return;
    ok(gbt_dataset_from_dense_binned(xs, N, C, C - 1, NAN, NULL, 16, &bad) == GBT_E_INVALID_ARG && bad == NULL &&
       strstr(gbt_last_error(), "row_stride 5"), "a row_stride below the columns is refused: %s", gbt_last_error());
    ok(gbt_dataset_from_dense_binned(xs, N, C, S, NAN, NULL, 1, &bad) == GBT_E_INVALID_ARG &&
       strstr(gbt_last_error(), "max_bin 1"), "max_bin 1 is refused: %s", gbt_last_error());
    xs[3 * S + 2] = INFINITY;
    ok(gbt_dataset_from_dense_binned(xs, N, C, S, NAN, NULL, 16, &bad) == GBT_E_FORMAT &&
       strstr(gbt_last_error(), "row 3: infinite value in column 2"), "an infinite value is refused: %s",
       gbt_last_error());
    xs[3 * S + 2] = 0.5f;
    w[5] = -1.0f;
    ok(gbt_dataset_from_dense_binned(xs, N, C, S, NAN, w, 16, &bad) == GBT_E_FORMAT && bad == NULL &&
       strstr(gbt_last_error(), "row 5: weight -1 is negative"), "a negative weight is refused: %s", gbt_last_error());
    w[5] = 0.25f;
}

int main(void)
{
    const struct kase cases[] = {
        {"objective=reg:squarederror", "eta=0.3", 0, 1, 0},
        {"objective=multi:softprob", "num_class=3", 3, 0, 0},
        {"objective=rank:ndcg", "eta=0.3", 3, 0, 1},
    };
    const int have_cuda = gbt_device_count() > 0;
    diag("%d CUDA device(s)%s", gbt_device_count(), have_cuda ? "" : ": the CPU only");
    snprintf(prefix, sizeof prefix, "%s/dtrain.cache", tu_tmpdir());
    if (only_device) ok(have_cuda, "the emulated CUDA device is there");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_case(&cases[i], have_cuda, (int)(i % 2));
    if (!only_device) check_pages(); /* before check_file, which removes the test folder */
    if (have_cuda) check_device_pages();
    check_file(have_cuda);
    check_ref(have_cuda, 0);
    check_ref(have_cuda, 1);
    check_dense_binned(have_cuda);
    if (only_device) return done_testing();
    tu_data(N, C, 0.1, 0, x, y);
    check_bad(1, 2, "batch 2 has 5 columns but batch 0 has 6");
    check_bad(2, 3, "batch 3 has no label");
    check_bad(3, 1, "batch 1: the iterator's next callback failed (returned -7)");
    check_refused();
    return done_testing();
}
