/*
 * dist_data.c - datasets from batches over an MPI communicator
 * (gbt_dataset_from_iter_mpi, gbt_dataset_from_iter_ext_mpi: with the binned
 * matrix in pages, gbt_dataset_from_file_iter_mpi): each
 * process reads its own batches, and the cuts are made from every
 * process's distinct values merged by dist.c's merge, so the binned matrix
 * each keeps is its rows binned with the cuts of all the rows, the one a
 * distributed training on datasets with feature values makes
 * (gbt__dist_quantize).  The data layer does the passes
 * (gbt__dataset_from_iter_peers); this file only puts the processes in
 * the place of its peers.
 */
#include "config.h"

#include "data/dataset.h"
#include "data/io.h"
#include "train/comm.h"
#include "train/dist.h"
#include "util/util.h"

#ifdef GBT_WITH_MPI
/*
 * A dataset from iter (its pages under cache, NULL: in memory) or, with iter NULL, from the file path, over
 * the communicator *mpi_comm.
 */
static gbt_status over_comm(const void *mpi_comm, gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user,
                            const char *cache, const char *path, const char *options, int max_bin, gbt_dataset **out)
{
    struct gbt_comm *c = NULL;
    struct gbt_dist *d = NULL;
    struct gbt_iter_peers peers;
    gbt_status s;
    FORWARD_IF_ERROR(gbt__comm_mpi(mpi_comm, &c));
    s = gbt__dist_open(c, GBT_OK, 0, 0, &d);
    if (s == GBT_OK) {
        gbt__dist_iter_peers(d, &peers);
        s = next ? gbt__dataset_from_iter_peers(next, reset, user, max_bin, cache, &peers, out)
                 : gbt__dataset_from_file_iter_peers(path, options, max_bin, &peers, out);
    }
    gbt__dist_free(d);
    gbt__comm_free(c);
    return s;
}
#else
static gbt_status over_comm(const void *mpi_comm, gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user,
                            const char *cache, const char *path, const char *options, int max_bin, gbt_dataset **out)
{
    (void)mpi_comm, (void)next, (void)reset, (void)user, (void)cache, (void)path, (void)options, (void)max_bin, (void)out;
    return gbt__fail(GBT_E_INVALID_ARG, "this gbt was built without MPI (configure --with-mpi, "
                                        "with libopenmpi-dev installed)");
}
#endif

gbt_status gbt_dataset_from_iter_mpi(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user, int max_bin,
                                     const void *mpi_comm, gbt_dataset **out)
{
    CHECK_NOT_NULL(next);
    CHECK_NOT_NULL(reset);
    CHECK_NOT_NULL(out);
    *out = NULL;
    return over_comm(mpi_comm, next, reset, user, NULL, NULL, NULL, max_bin, out);
}

gbt_status gbt_dataset_from_iter_ext_mpi(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user, int max_bin,
                                         const char *cache_prefix, const void *mpi_comm, gbt_dataset **out)
{
    CHECK_NOT_NULL(next);
    CHECK_NOT_NULL(reset);
    CHECK_NOT_NULL(out);
    *out = NULL;
    return over_comm(mpi_comm, next, reset, user, cache_prefix, NULL, NULL, max_bin, out);
}

gbt_status gbt_dataset_from_file_iter_mpi(const char *path, const char *options, int max_bin, const void *mpi_comm,
                                          gbt_dataset **out)
{
    CHECK_NOT_NULL(path);
    CHECK_NOT_NULL(out);
    *out = NULL;
    return over_comm(mpi_comm, NULL, NULL, NULL, NULL, path, options, max_bin, out);
}
