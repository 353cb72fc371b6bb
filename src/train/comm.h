/*
 * comm.h - the collective operations distributed training needs, behind one
 * small interface: a communicator is a table of operations and the engine's
 * own state.  comm_mpi.c implements it over MPI; another engine (NCCL, a
 * socket ring) would add one file that fills the same table.
 *
 * Every operation is collective: every rank calls it, in the same order,
 * with the same counts where the counts are not per rank.  An engine error
 * (a lost peer) ends the job through the engine's own handler (MPI aborts
 * every rank), so nothing here can hang on a dead rank; a rank that fails
 * by itself (bad data, no memory) says so through gbt__comm_agree before
 * the next exchange, and every rank then returns its error.
 */
#ifndef GBT_COMM_H
#define GBT_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "gbt.h"

enum gbt_comm_op { GBT_COMM_SUM, GBT_COMM_MAX, GBT_COMM_MIN };

struct gbt_comm_ops {
    const char *name; /* "mpi" */
    /* in-place reductions over the ranks of n values (integer sums are exact) */
    gbt_status (*allreduce_i64)(void *impl, int64_t *buf, size_t n, int op);
    gbt_status (*allreduce_f64)(void *impl, double *buf, size_t n, int op); /* MAX and MIN only */
    gbt_status (*bcast)(void *impl, void *buf, size_t bytes, int root);
    /* recv gets every rank's `bytes[r]` bytes, rank after rank */
    gbt_status (*allgatherv)(void *impl, const void *send, void *recv, const size_t *bytes);
    gbt_status (*barrier)(void *impl);
    void (*free)(void *impl);
};

struct gbt_comm {
    const struct gbt_comm_ops *ops;
    void *impl;
    int rank, size;
    int local_rank; /* among the processes of this machine (device=cuda picks its GPU by it) */
    uint64_t bytes; /* bytes this process contributed to the exchanges so far */
};

/* A communicator over the MPI communicator *mpi_comm (an MPI_Comm), duplicated. */
gbt_status gbt__comm_mpi(const void *mpi_comm, struct gbt_comm **out);

void gbt__comm_free(struct gbt_comm *c);

/*
 * Agreement: every rank passes its own status s (its message in
 * gbt_last_error when s is not GBT_OK).  Returns GBT_OK when every rank
 * passed GBT_OK; else the status of the lowest failing rank, with its
 * message prefixed by "rank R: " on every rank.
 */
gbt_status gbt__comm_agree(struct gbt_comm *c, gbt_status s);

/*
 * Gathers every rank's `bytes` bytes at `send` into a new buffer (*out,
 * free()), rank after rank; counts (may be NULL) gets each rank's bytes.
 */
gbt_status gbt__comm_gather_all(struct gbt_comm *c, const void *send, size_t bytes, void **out,
                                size_t *counts);

/* Rows of the ranks before this one (the global index of local row 0) and the global total. */
gbt_status gbt__comm_row_offset(struct gbt_comm *c, uint64_t nrow, uint64_t *before, uint64_t *total);

#endif
