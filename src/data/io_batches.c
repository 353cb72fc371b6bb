/*
 * io_batches.c - gbt_dataset_from_file_iter: a CSV/TSV/LIBSVM file read in
 * batches of about `batch_bytes` of its text through gbt_dataset_from_iter,
 * so that its feature values are never all in memory.
 *
 * Each batch is the readers' own work (gbt__file_read_rows) on the lines
 * from where the last batch stopped to the first line end past the batch's
 * bytes (the line reader's `stop`): the reader stays open between batches,
 * so line numbers and errors ("FILE:LINE: ...") are those of the whole
 * file.  A LIBSVM file is read once more first, for what only the whole
 * file tells: its width and, when guessed, its index base.  The side
 * files: PATH.weight is read whole (4 bytes a row) and handed out batch by
 * batch (binning reads the weights); the others are set on the dataset
 * built.  LIBSVM qid: a query may go on across a batch boundary (the line
 * reader carries the last qid from one batch to the next), so the batches
 * carry no groups: their sizes are gathered here, a query that goes on
 * added to the last, and set on the dataset built.  The option
 * feature_types=qc.. sets its types on every batch (binning reads them;
 * the values category numbers: names are read with the file whole).  A
 * URI's "#CACHE" is
 * the cache prefix of the binned matrix's pages on disk
 * (gbt_dataset_from_iter_ext, data/pages.h).  gbt_file_batches_* hand the
 * batches out as datasets (gbpredict's DATA_FILE#CACHE: predicted and
 * written one batch at a time).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/dataset.h"
#include "data/io.h"
#include "util/util.h"

#define DEFAULT_BATCH_BYTES ((uint64_t)32 << 20)

struct file_iter {
    const char *path, *options;
    char *file;
    char *cache;                /* the URI's "#CACHE", or NULL */
    struct gbt_file_options o;
    struct gbt_line_reader lr;
    int open;
    uint64_t batch;             /* batches given since the last reset */
    uint64_t rows;              /* rows given since the last reset */
    float *weights;             /* PATH.weight, or NULL */
    uint64_t nweights;
    uint64_t ncol;              /* batch 0's columns (LIBSVM: the whole file's, after the scan) */
    int base;                   /* LIBSVM: the index base, 0 or 1 */
    int guessed;                /* LIBSVM: the base was guessed */
    gbt_dataset *first;         /* batch 0's names and layout, kept for the dataset built */
    uint32_t *groups;           /* LIBSVM qid: the query sizes so far (this pass) */
    size_t groups_cap;
    uint64_t ngroups;
    gbt_status status;          /* the first failure, with its message in msg */
    char msg[GBT_ERROR_MSG_MAX];
};

/* A failure kept with its message: the iterator reports only that next failed. */
static int fail(struct file_iter *it, gbt_status s)
{
    if (it->status == GBT_OK) {
        it->status = s;
        snprintf(it->msg, sizeof it->msg, "%s", gbt_last_error());
    }
    return -1;
}

/* A failure of next: kept, and given to the batch, whose message the iterator then reports as it is. */
static int next_fail(struct file_iter *it, gbt_batch *b, gbt_status s)
{
    gbt__batch_fail(b, s);
    return fail(it, s);
}

static gbt_status open_file(struct file_iter *it)
{
    char *cache = NULL;
    int binary = 0;
    struct stat st;
    gbt_status s;
    if (it->open) gbt__lines_close(&it->lr);
    gbt__file_options_free(&it->o);
    free(it->file);
    it->file = NULL;
    it->open = 0;
    FORWARD_IF_ERROR(gbt__file_open(it->path, it->options, &it->o, &it->lr, &it->file, &cache, &binary));
    /* the first open's: gbt_dataset_from_iter_ext holds it while the passes open the file again */
    if (it->cache == NULL) it->cache = cache;
    else free(cache);
    it->open = !binary;
    RETURN_ERROR_IF(binary, GBT_E_INVALID_ARG,
                    "%s: a binary dataset file is read whole (gbt_dataset_load_binary), not in batches",
                    it->file);
    RETURN_ERROR_IF(stat(it->file, &st) != 0 || !S_ISREG(st.st_mode), GBT_E_INVALID_ARG,
                    "%s: reading in batches reads the file more than once: it must be a regular file, not a "
                    "pipe or device", it->file);
    RETURN_ERROR_IF(it->o.csv.category_names, GBT_E_INVALID_ARG,
                    "%s: category names (category_names=1) are not read in batches: read the file whole", it->file);
    s = GBT_OK;
    if (it->o.batch_bytes == 0) it->o.batch_bytes = DEFAULT_BATCH_BYTES;
    it->batch = 0;
    it->rows = 0;
    it->ngroups = 0;
    return s;
}

/*
 * The next batch's rows into *out, or NULL at the end of the file; the
 * reader's own errors, with their file and line.
 */
static gbt_status read_batch(struct file_iter *it, gbt_dataset **out)
{
    struct gbt_file_options o = it->o;
    char *line = NULL;
    *out = NULL;
    it->lr.stop = 0;
    /* batch 0 is read even when empty, for the reader's "no data rows" */
    if (it->batch > 0) {
        FORWARD_IF_ERROR(gbt__lines_peek(&it->lr, 0, &line));
        if (line == NULL) return GBT_OK;
        free(line);
        o.csv.header = 0;
    }
    it->lr.stop = it->lr.offset + it->o.batch_bytes;
    return gbt__file_read_rows(&it->lr, &o, out);
}

/*
 * A LIBSVM batch's indices made zero-based (it->base) and its width the
 * file's; its queries (qid) taken into it->groups, the first added to the
 * last when it goes on from the batch before.
 */
static gbt_status libsvm_columns(struct file_iter *it, gbt_dataset *d)
{
    const int on = it->lr.qid_continues && it->ngroups > 0 && d->ngroups > 0;
    if (on) it->groups[it->ngroups - 1] += d->groups[0];
    FORWARD_IF_ERROR(gbt__reserve(&it->groups, &it->groups_cap, (size_t)(it->ngroups + d->ngroups + 1),
                                  sizeof *it->groups, "query groups"));
    for (uint64_t g = on ? 1 : 0; g < d->ngroups; g++) it->groups[it->ngroups++] = d->groups[g];
    free(d->groups);
    d->groups = NULL;
    d->ngroups = 0;
    if (it->base == 1 && (d->ncol >= 2 || d->nnz > 0)) FORWARD_IF_ERROR(gbt__dataset_set_index_base(d, 1));
    d->index_base = GBT_BASE_NONE;
    d->ncol = it->ncol;
    return GBT_OK;
}

/* LIBSVM: the width and index base of the whole file, from one reading of it. */
static gbt_status libsvm_scan(struct file_iter *it)
{
    uint64_t ncol = 0;
    int zero = 0;
    for (;;) {
        gbt_dataset *d;
        FORWARD_IF_ERROR(read_batch(it, &d));
        if (d == NULL) break;
        it->batch++;
        if (d->ncol > ncol) ncol = d->ncol;
        for (uint64_t k = 0; k < d->nnz && !zero; k++) zero = d->indices[k] == 0;
        gbt_dataset_free(d);
    }
    it->guessed = it->o.indexing_mode < 0;
    it->base = it->o.indexing_mode >= 0 ? it->o.indexing_mode : !zero;
    RETURN_ERROR_IF(it->base == 1 && ncol <= 1, GBT_E_FORMAT,
                    "%s: no features: every feature value is missing (indexing_mode=0 reads index 0 as a feature)",
                    it->file);
    it->ncol = it->base == 1 ? ncol - 1 : ncol;
    return open_file(it);
}

static int file_reset(void *user)
{
    struct file_iter *it = user;
    gbt_status s = open_file(it);
    if (s == GBT_OK && it->o.format == GBT_FMT_LIBSVM && it->first == NULL) s = libsvm_scan(it);
    return s == GBT_OK ? 0 : fail(it, s);
}

/* The next batch's rows (NULL: no more), their columns checked against the file's. */
static gbt_status next_rows(struct file_iter *it, gbt_dataset **out)
{
    gbt_dataset *d = NULL;
    gbt_status s = read_batch(it, &d);
    *out = NULL;
    if (s != GBT_OK || d == NULL) return s;
    if (it->o.format == GBT_FMT_LIBSVM) s = libsvm_columns(it, d);
    if (s == GBT_OK && it->batch == 0 && it->first == NULL) { /* the first batch read */
        it->ncol = d->ncol;
    } else if (s == GBT_OK && d->ncol != it->ncol) {
        s = gbt__fail(GBT_E_FORMAT, "%s:%llu: %llu feature columns, but the lines before have %llu", it->file,
                      (unsigned long long)(d->row_line ? d->row_line[0] : 0), (unsigned long long)d->ncol,
                      (unsigned long long)it->ncol);
    }
    if (s == GBT_OK) s = gbt__file_apply_types(&it->o, it->file, d); /* every batch: binning reads them */
    if (s != GBT_OK) {
        gbt_dataset_free(d);
        return s;
    }
    *out = d;
    return GBT_OK;
}

static int file_next(void *user, gbt_batch *b)
{
    struct file_iter *it = user;
    gbt_dataset *d = NULL;
    gbt_status s = next_rows(it, &d);
    if (s == GBT_OK && d == NULL) {
        if (it->weights && it->rows != it->nweights)
            return fail(it, gbt__fail(GBT_E_FORMAT, "%s.weight: %llu weights for %llu rows", it->file,
                                      (unsigned long long)it->nweights, (unsigned long long)it->rows));
        return 0;
    }
    if (s == GBT_OK && it->weights) {
        if (it->rows + d->nrow > it->nweights)
            s = gbt__fail(GBT_E_FORMAT, "%s.weight: %llu weights for more than %llu rows", it->file,
                          (unsigned long long)it->nweights, (unsigned long long)it->nweights);
        else
            s = gbt_dataset_set_field(d, "weight", it->weights + it->rows, d->nrow);
    }
    if (s != GBT_OK) {
        gbt_dataset_free(d);
        return next_fail(it, b, s);
    }
    it->rows += d->nrow;
    it->batch++;
    if (it->first == NULL) {
        /* its names and layout go to the dataset built; its rows to the batch */
        s = gbt__dataset_alloc(&it->first);
        if (s != GBT_OK) {
            gbt_dataset_free(d);
            return next_fail(it, b, s);
        }
        it->first->feature_names = d->feature_names;
        it->first->nfeature_names = d->nfeature_names;
        it->first->layout = d->layout;
        d->feature_names = NULL;
        d->nfeature_names = 0;
    }
    s = gbt__batch_take(b, d);
    return s == GBT_OK ? 1 : next_fail(it, b, s);
}

/* The dataset built gets what the file says besides its rows: names, layout, source, side files. */
static gbt_status finish(struct file_iter *it, gbt_dataset *d)
{
    d->feature_names = it->first->feature_names;
    d->nfeature_names = it->first->nfeature_names;
    it->first->feature_names = NULL;
    it->first->nfeature_names = 0;
    d->layout = it->first->layout;
    if (it->o.format == GBT_FMT_LIBSVM)
        d->index_base = it->base == 0 ? GBT_BASE_ZERO : it->guessed ? GBT_BASE_ONE_GUESSED : GBT_BASE_ONE;
    FORWARD_IF_ERROR(gbt__strdup(&d->source, it->file));
    if (it->ngroups) FORWARD_IF_ERROR(gbt_dataset_set_groups(d, it->groups, it->ngroups));
    return it->o.side_files ? gbt__dataset_read_side_files(d, it->file, 0) : GBT_OK;
}

/* The file's dataset: cuts of its own (ref NULL; over the processes of peers when given) or ref's. */
static gbt_status from_file_iter(const char *path, const char *options, const gbt_dataset *ref, int max_bin,
                                 const struct gbt_iter_peers *peers, gbt_dataset **out)
{
    struct file_iter it;
    gbt_dataset *d = NULL;
    gbt_status s;
    CHECK_NOT_NULL(path);
    CHECK_NOT_NULL(out);
    *out = NULL;
    memset(&it, 0, sizeof it);
    it.path = path;
    it.options = options;
    s = open_file(&it);
    if (s == GBT_OK && it.o.side_files) s = gbt__side_weights(it.file, &it.weights, &it.nweights);
    if (s != GBT_OK && peers) s = peers->agree(peers->user, s); /* the others are in their first agreement */
    else if (s == GBT_OK)
        s = ref ? gbt_dataset_from_iter_ref(file_next, file_reset, &it, ref, max_bin, &d)
                : gbt__dataset_from_iter_peers(file_next, file_reset, &it, max_bin, it.cache, peers, &d);
    /* the reader's message (FILE:LINE: ...) rather than "the next callback failed" (peers: agreed on so) */
    if (s != GBT_OK && it.status != GBT_OK && !peers) s = gbt__fail(it.status, "%s", it.msg);
    if (s == GBT_OK) s = finish(&it, d);
    if (it.open) gbt__lines_close(&it.lr);
    gbt__file_options_free(&it.o);
    free(it.file);
    free(it.cache);
    free(it.weights);
    free(it.groups);
    gbt_dataset_free(it.first);
    if (s != GBT_OK) {
        gbt_dataset_free(d);
        return s;
    }
    *out = d;
    return GBT_OK;
}

gbt_status gbt__dataset_from_file_iter_peers(const char *path, const char *options, int max_bin,
                                             const struct gbt_iter_peers *peers, gbt_dataset **out)
{
    return from_file_iter(path, options, NULL, max_bin, peers, out);
}

gbt_status gbt_dataset_from_file_iter(const char *path, const char *options, int max_bin, gbt_dataset **out)
{
    return from_file_iter(path, options, NULL, max_bin, NULL, out);
}

gbt_status gbt_dataset_from_file_iter_ref(const char *path, const char *options, const gbt_dataset *ref,
                                          int max_bin, gbt_dataset **out)
{
    CHECK_NOT_NULL(ref);
    return from_file_iter(path, options, ref, max_bin, NULL, out);
}

/* ---- the public batch reader: gbpredict's DATA_FILE#CACHE ---------------- */

struct gbt_file_batches {
    struct file_iter it;
    char *path, *options;
};

void gbt_file_batches_close(gbt_file_batches *r)
{
    if (r == NULL) return;
    if (r->it.open) gbt__lines_close(&r->it.lr);
    gbt__file_options_free(&r->it.o);
    free(r->it.file);
    free(r->it.cache);
    free(r->path);
    free(r->options);
    free(r);
}

gbt_status gbt_file_batches_open(const char *path, const char *options, gbt_file_batches **out)
{
    gbt_file_batches *r = NULL;
    gbt_status s;
    CHECK_NOT_NULL(path);
    CHECK_NOT_NULL(out);
    *out = NULL;
    FORWARD_IF_ERROR(gbt__alloc(&r, 1, sizeof *r, 1, "batch reader"));
    s = gbt__strdup(&r->path, path);
    if (s == GBT_OK && options) s = gbt__strdup(&r->options, options);
    r->it.path = r->path;
    r->it.options = r->options;
    if (s == GBT_OK) s = open_file(&r->it);
    /* the side files are the caller's to refuse or read: a batch holds rows only */
    if (s == GBT_OK && r->it.o.format == GBT_FMT_LIBSVM) s = libsvm_scan(&r->it);
    if (s != GBT_OK) {
        gbt_file_batches_close(r);
        return s;
    }
    *out = r;
    return GBT_OK;
}

gbt_status gbt_file_batches_next(gbt_file_batches *r, gbt_dataset **batch)
{
    struct file_iter *it;
    gbt_dataset *d = NULL;
    CHECK_NOT_NULL(r);
    CHECK_NOT_NULL(batch);
    *batch = NULL;
    it = &r->it;
    FORWARD_IF_ERROR(next_rows(it, &d));
    if (d == NULL) return GBT_OK;
    if (it->o.format == GBT_FMT_LIBSVM)
        d->index_base = it->base == 0 ? GBT_BASE_ZERO : it->guessed ? GBT_BASE_ONE_GUESSED : GBT_BASE_ONE;
    if (d->source == NULL && gbt__strdup(&d->source, it->file) != GBT_OK) {
        gbt_dataset_free(d);
        return GBT_E_NO_MEMORY;
    }
    it->rows += d->nrow;
    it->batch++;
    *batch = d;
    return GBT_OK;
}
