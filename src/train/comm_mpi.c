/*
 * comm_mpi.c - the communicator of comm.h over MPI (built when configure
 * finds MPI).  The library duplicates the caller's communicator, so its
 * messages never meet the caller's; MPI's default error handler
 * (MPI_ERRORS_ARE_FATAL) ends every rank when one is lost.  Counts above
 * INT_MAX go in pieces.
 */
#include "config.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "train/comm.h"
#include "util/error.h"

#define PIECE ((size_t)1 << 28) /* elements (or bytes) per MPI call */

/* the engine's state: the library's own communicator, and its owner's byte count */
struct mpi_impl {
    MPI_Comm comm;
    struct gbt_comm *owner;
};

static MPI_Comm comm_of(void *impl)
{
    return ((struct mpi_impl *)impl)->comm;
}

static void count(void *impl, size_t bytes)
{
    ((struct mpi_impl *)impl)->owner->bytes += bytes;
}

static gbt_status mpi_fail(int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return gbt__fail(GBT_E_IO, "MPI: %s failed: %.*s", what, len, text);
}

static MPI_Op op_of(int op)
{
    return op == GBT_COMM_SUM ? MPI_SUM : op == GBT_COMM_MAX ? MPI_MAX : MPI_MIN;
}

static gbt_status allreduce(void *impl, void *buf, size_t n, size_t size, MPI_Datatype t, int op)
{
    count(impl, n * size);
    for (size_t i = 0; i < n; i += PIECE) {
        const size_t m = n - i < PIECE ? n - i : PIECE;
        int rc = MPI_Allreduce(MPI_IN_PLACE, (char *)buf + i * size, (int)m, t, op_of(op), comm_of(impl));
        if (rc != MPI_SUCCESS) return mpi_fail(rc, "MPI_Allreduce");
    }
    return GBT_OK;
}

static gbt_status allreduce_i64(void *impl, int64_t *buf, size_t n, int op)
{
    return allreduce(impl, buf, n, sizeof *buf, MPI_INT64_T, op);
}

static gbt_status allreduce_f64(void *impl, double *buf, size_t n, int op)
{
    if (op == GBT_COMM_SUM) return gbt__fail(GBT_E_INTERNAL, "a sum of doubles depends on the order of the ranks");
    return allreduce(impl, buf, n, sizeof *buf, MPI_DOUBLE, op);
}

static gbt_status bcast(void *impl, void *buf, size_t bytes, int root)
{
    int rank;
    MPI_Comm_rank(comm_of(impl), &rank);
    if (rank == root) count(impl, bytes);
    for (size_t i = 0; i < bytes; i += PIECE) {
        const size_t m = bytes - i < PIECE ? bytes - i : PIECE;
        int rc = MPI_Bcast((char *)buf + i, (int)m, MPI_BYTE, root, comm_of(impl));
        if (rc != MPI_SUCCESS) return mpi_fail(rc, "MPI_Bcast");
    }
    return GBT_OK;
}

static gbt_status allgatherv(void *impl, const void *send, void *recv, const size_t *bytes)
{
    int size, rank, rc;
    size_t total = 0, at = 0;
    MPI_Comm_size(comm_of(impl), &size);
    MPI_Comm_rank(comm_of(impl), &rank);
    for (int r = 0; r < size; r++) total += bytes[r];
    count(impl, bytes[rank]);
    if (total <= (size_t)INT_MAX) {
        int *count = malloc((size_t)size * sizeof *count), *disp = malloc((size_t)size * sizeof *disp);
        if (count == NULL || disp == NULL) {
            free(count);
            free(disp);
            return gbt__fail(GBT_E_NO_MEMORY, "out of memory for a gather's counts");
        }
        for (int r = 0; r < size; r++) {
            count[r] = (int)bytes[r];
            disp[r] = (int)at;
            at += bytes[r];
        }
        rc = MPI_Allgatherv(send, count[rank], MPI_BYTE, recv, count, disp, MPI_BYTE, comm_of(impl));
        free(count);
        free(disp);
        return rc == MPI_SUCCESS ? GBT_OK : mpi_fail(rc, "MPI_Allgatherv");
    }
    /* more than INT_MAX bytes in all: each rank's part broadcast in pieces (counted above) */
    for (int r = 0; r < size; r++) {
        if (r == rank && bytes[r]) memcpy((char *)recv + at, send, bytes[r]);
        for (size_t i = 0; i < bytes[r]; i += PIECE) {
            const size_t m = bytes[r] - i < PIECE ? bytes[r] - i : PIECE;
            rc = MPI_Bcast((char *)recv + at + i, (int)m, MPI_BYTE, r, comm_of(impl));
            if (rc != MPI_SUCCESS) return mpi_fail(rc, "MPI_Bcast");
        }
        at += bytes[r];
    }
    return GBT_OK;
}

static gbt_status barrier(void *impl)
{
    int rc = MPI_Barrier(comm_of(impl));
    return rc == MPI_SUCCESS ? GBT_OK : mpi_fail(rc, "MPI_Barrier");
}

static void mpi_free(void *impl)
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&((struct mpi_impl *)impl)->comm);
    free(impl);
}

static const struct gbt_comm_ops mpi_ops = {
    .name = "mpi",
    .allreduce_i64 = allreduce_i64,
    .allreduce_f64 = allreduce_f64,
    .bcast = bcast,
    .allgatherv = allgatherv,
    .barrier = barrier,
    .free = mpi_free,
};

gbt_status gbt__comm_mpi(const void *mpi_comm, struct gbt_comm **out)
{
    int initialized = 0, finalized = 0, rc;
    struct gbt_comm *c;
    struct mpi_impl *im;
    *out = NULL;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    RETURN_ERROR_IF(!initialized || finalized, GBT_E_STATE,
                    "MPI is not initialised: call MPI_Init before gbt_booster_set_mpi_comm");
    c = calloc(1, sizeof *c);
    im = calloc(1, sizeof *im);
    if (c == NULL || im == NULL) {
        free(c);
        free(im);
        return gbt__fail(GBT_E_NO_MEMORY, "out of memory for a communicator");
    }
    rc = MPI_Comm_dup(mpi_comm ? *(const MPI_Comm *)mpi_comm : MPI_COMM_WORLD, &im->comm);
    if (rc != MPI_SUCCESS) {
        free(c);
        free(im);
        return mpi_fail(rc, "MPI_Comm_dup");
    }
    im->owner = c;
    MPI_Comm_rank(im->comm, &c->rank);
    MPI_Comm_size(im->comm, &c->size);
    {
        MPI_Comm node;
        if (MPI_Comm_split_type(im->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
            MPI_Comm_rank(node, &c->local_rank);
            MPI_Comm_free(&node);
        }
    }
    c->ops = &mpi_ops;
    c->impl = im;
    *out = c;
    return GBT_OK;
}
