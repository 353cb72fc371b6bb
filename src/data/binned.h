/*
 * binned.h - binned data kept with a dataset, so that a second training on
 * the same dataset with the same max_bin does not bin again (grid search,
 * cross-validation folds trained on one dataset, refits).
 *
 * A dataset keeps at most one binned matrix: the cuts and the row-major
 * codes of its last binning (the CPU backend's column-major copy is not
 * part of it: each CPU training builds its own).  It stays valid while the
 * dataset's feature values and weights stay as they were: the calls that
 * change only labels, base margins, label bounds, groups or feature names
 * keep it (gbt__dataset_touch_keep); every other change drops it
 * (gbt__dataset_touch).  Binning again with another max_bin replaces it.
 *
 * Training states hold references: a matrix is freed when the dataset has
 * dropped it and no booster's training state uses it any more.  The cuts
 * and codes do not depend on the thread count, so it is not in the key.
 * Distributed training bins privately (its cuts depend on every process).
 */
#ifndef GBT_BINNED_H
#define GBT_BINNED_H

#include "data/pages.h"
#include "data/quantize.h"

struct gbt_binned {
    /*
     * With pages (a dataset made from batches with a cache prefix,
     * data/pages.h) qm holds the cuts, nrow and layout but no codes, which
     * are on disk; a training streams them (both backends), and
     * gbt__binned_get reads them back whole for a caller that does not.
     */
    struct gbt_qmatrix qm;
    struct gbt_pages *pages; /* NULL: the codes are in qm; freed (its file removed) with the matrix */
    int max_bin;
    int refs; /* changed under binned.c's lock */
    /*
     * A dataset made from batches over a communicator (dataset_iter.c's
     * peers): the cuts are those of every process's rows, nproc processes
     * and nrow_all rows together.  0 otherwise (this dataset's own cuts).
     */
    int nproc;
    uint64_t nrow_all;
};

/*
 * Who bins: a device (a backend's quantize, backend.h, on device
 * `ordinal`), or with quantize NULL the host (gbt__quantize).  Both give
 * the same bytes, so a kept matrix serves either.
 */
struct gbt_binner {
    gbt_status (*quantize)(int ordinal, const gbt_dataset *d, int max_bin, struct gbt_qmatrix *out);
    int ordinal;
    const char *name; /* for the log: "cuda" */
    /*
     * 1: the training reads the pages itself, one at a time (the CPU and
     * CUDA backends): a paged matrix is returned as it is kept, its codes left on
     * disk; 0: read back whole.
     */
    int stream_pages;
};

/*
 * A reference to d's binned matrix for max_bin: the kept one when it is
 * still valid (when its codes are in pages and `by` does not stream them:
 * a new matrix, not kept, of the cuts and the pages read back, every page
 * checked: GBT_E_FORMAT for a stale or corrupt one), else a new one binned now (by `by`, NULL: the host with
 * nthread threads) and kept with d in place of the old.  Logs at
 * GBT_LOG_DEBUG whether it binned (and where) or reused.  Release it with
 * gbt__binned_release.
 */
gbt_status gbt__binned_get(const gbt_dataset *d, int max_bin, int nthread, int verbosity,
                           const struct gbt_binner *by, struct gbt_binned **out);

/*
 * Keeps b with d (a reference of d's own), as gbt__binned_get keeps what it
 * bins: a dataset made from an iterator (dataset_iter.c) holds its binned
 * matrix so, and no feature values (d->binned_only).
 */
void gbt__binned_keep(gbt_dataset *d, struct gbt_binned *b);

/*
 * Rows [r0, r0 + n) of q as values (binned_values.c), n * nfeat floats
 * row-major, NaN where missing: each code's value lies in its bin, so a
 * split at one of q's cuts sends it where it sends every value of the bin
 * (evaluation and prediction on a dataset that holds only bins,
 * train/margins.c).
 */
void gbt__binned_values(const struct gbt_qmatrix *q, uint64_t r0, uint64_t n, float *out);

/*
 * gbt__binned_values of b's rows [r0, r0 + n), also when b keeps its codes
 * in pages on disk (then read, with their checks, page by page: only the
 * pages that hold those rows, one at a time).
 */
gbt_status gbt__binned_rows(const struct gbt_binned *b, uint64_t r0, uint64_t n, float *out);

/*
 * GBT_OK unless d's kept binning has the cuts of several processes' rows
 * (binned nproc > 1), which only a training over those processes may use.
 */
gbt_status gbt__binned_check_local(const gbt_dataset *d);

/* A new empty matrix with one reference, kept with no dataset (distributed training). */
gbt_status gbt__binned_alloc(struct gbt_binned **out);

/* Drops a reference (NULL: nothing); the last one frees the matrix. */
void gbt__binned_release(struct gbt_binned *b);

#endif
