/*
 * dist.h - distributed training by rows (gbt_booster_set_mpi_comm): what
 * the booster adds to one process's training when several processes train
 * one model together, each on its own rows.
 *
 * Everything that decides the model is computed over all rows, so that
 * every process builds the model one process builds from all the rows:
 *   - bin cuts: each feature's distinct values and their weights, merged
 *     over the processes (quantize.c's cuts then run on the merged list);
 *   - the starting score and the metrics: labels, weights, groups and
 *     margins gathered into one host copy of the whole set;
 *   - gradients: the fixed-point exponents from the largest |g| and |h|
 *     over every process (struct gbt_max_hook), the totals summed exactly;
 *   - histograms: the integer sums of every BUILD job summed exactly before
 *     the SUBTRACT jobs run;
 *   - sampling: rows and query groups numbered globally.
 * The training backend is wrapped: gbt__dist_wrap returns a backend table
 * whose operations call the process's own backend and add the exchanges.
 *
 * Failures: every exchange is preceded by an agreement (gbt__comm_agree);
 * a process that fails calls gbt__dist_fail, whose agreement meets the
 * others' next one, and then every process returns the first failing
 * process's error.
 */
#ifndef GBT_DIST_H
#define GBT_DIST_H

#include <stdint.h>

#include "backend.h"
#include "train/comm.h"
#include "data/quantize.h"

struct gbt_dist {
    struct gbt_comm *comm;
    uint64_t row_base, nrow_total;  /* this process's first row; the rows of every process */
    uint64_t group_base;            /* this process's first query group */
    const struct gbt_backend_ops *inner;
    void *inner_ctx;
    uint32_t total_slots;
    int K;
    int failed; /* a failure was already agreed on: no more exchanges */
    struct gbt_max_hook hook;
};

/*
 * Starts the state for a dataset of nrow rows and ngroups query groups
 * (collective), after agreeing on s, this process's status so far.
 */
gbt_status gbt__dist_open(struct gbt_comm *c, gbt_status s, uint64_t nrow, uint64_t ngroups,
                          struct gbt_dist **out);

void gbt__dist_free(struct gbt_dist *d);

/*
 * The agreement after a local step: s is this process's status; returns
 * GBT_OK when every process succeeded, else the first failure (and marks
 * the state failed).  Call it with the error of any local failure before
 * returning it, unless the state is already failed.
 */
gbt_status gbt__dist_agree(struct gbt_dist *d, gbt_status s);

/* Every process's element-wise maximum of v[0..n), and sum of q[0..m) (exact), in place. */
gbt_status gbt__dist_max_sum(struct gbt_dist *d, double *v, size_t n, int64_t *q, size_t m);

/*
 * Checks that every process has the same features and parameters:
 * ncol, and `sig`, a digest of the parameters that decide the model.
 */
gbt_status gbt__dist_check_same(struct gbt_dist *d, uint64_t ncol, uint64_t sig);

/*
 * Checks that every process's training data has the same category names
 * (`json`, gbt_dataset_get_category_names's, NULL for none): a category
 * code must mean the same category everywhere.  Otherwise every process
 * fails with the first rank that differs from rank 0, the feature and the
 * category.
 */
gbt_status gbt__dist_check_categories(struct gbt_dist *d, const char *json, uint64_t ncol);

/*
 * A host copy of the labels, weights, bounds and query groups of every
 * process's part of d, in process order (no features: ncol 0), for the
 * starting score and the metrics.
 */
gbt_status gbt__dist_gather_labels(struct gbt_dist *d, const gbt_dataset *part, gbt_dataset **out);

/* Every process's n doubles (row-major margins, n = rows x K) in process order into a new buffer. */
gbt_status gbt__dist_gather_doubles(struct gbt_dist *d, const double *part, uint64_t n, double **out);

/* struct gbt_leaf_refit's gather: each leaf's values of every process (user: the state) */
struct gbt_wvalue;
gbt_status gbt__dist_gather_leaves(void *user, const struct gbt_wvalue *v, const uint64_t *m, int n,
                                   struct gbt_wvalue **all, uint64_t **mall);

/* The quantisation of `part` with cuts over every process's rows. */
gbt_status gbt__dist_quantize(struct gbt_dist *d, const gbt_dataset *part, int max_bin, int nthread,
                              struct gbt_qmatrix *out);

/*
 * The binned matrix this process trains on: for a dataset with feature
 * values its rows binned with the cuts of every process (gbt__dist_quantize,
 * a matrix of this training's own); for one made from batches
 * (gbt_dataset_from_iter_mpi) its kept binning, which must have been made
 * over these processes (the same process and row counts, and the same cuts
 * everywhere: checked), its pages streamed by the training when
 * stream_pages (the backend's flag), else read back whole.  Release it with
 * gbt__binned_release.
 */
struct gbt_binned;
gbt_status gbt__dist_binned(struct gbt_dist *d, const gbt_dataset *part, int max_bin, int nthread, int verbosity,
                            int stream_pages, struct gbt_binned **out);

/* The processes as a dataset from batches sees them (data/dataset.h's gbt_iter_peers), on d. */
struct gbt_iter_peers;
void gbt__dist_iter_peers(struct gbt_dist *d, struct gbt_iter_peers *p);

/*
 * Puts the exchanges around the backend (inner, ctx): *ops and *ctx
 * become the wrapper's, which owns ctx from then on (its close closes it).
 */
void gbt__dist_wrap(struct gbt_dist *d, const struct gbt_backend_ops **ops, void **ctx);

#endif
