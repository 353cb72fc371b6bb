/*
 * cli_mpi.h - gbtrain and gbpredict started by an MPI launcher (mpirun):
 * each rank reads its share of the rows, the ranks agree on failures so
 * that all exit together, and rank 0 writes.  Without MPI (a build
 * without it, or a tool not started by a launcher) every call here is the
 * single-process behaviour: rank 0 of 1, the whole file, no agreement.
 */
#ifndef GBT_CLI_MPI_H
#define GBT_CLI_MPI_H

#include <stdint.h>

#include "gbt.h"

/*
 * Starts MPI when the tool was built with it and a launcher started it
 * (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK in the environment): from
 * then on every exit finalises MPI, and cli_die takes part in the next
 * agreement (cli_mpi_agree) instead of exiting alone.  Returns whether the
 * run is distributed.
 */
int cli_mpi_start(int *argc, char ***argv);

/* This process's rank and the number of ranks (0 and 1 when not distributed). */
int cli_mpi_rank(void);
int cli_mpi_size(void);

/*
 * An agreement point, called by every rank in the same order: when any
 * rank failed (cli_die) since the last one, rank 0 prints
 * "PROG: rank R: MESSAGE" for the lowest failing rank R and every rank
 * exits with status 1.  Nothing when not distributed.
 */
void cli_mpi_agree(void);

/*
 * Reads this rank's share of a data file: with a path containing "%d",
 * the file named by the path with "%d" replaced by the rank; otherwise the
 * whole file, of which it keeps rows [r*N/P, (r+1)*N/P), each boundary
 * moved forward to the next query group's start when the data has groups.
 * A model given reads it for the model (gbt_booster_read_data: its category
 * names).  `shown` (len bytes) receives the path read.  Dies (cli_die) on errors.
 */
gbt_dataset *cli_mpi_read_share(const char *path, const char *options, const gbt_booster *model, char *shown,
                                size_t len);

/*
 * Reads training data in batches (gbt_dataset_from_file_iter, with the
 * booster's max_bin): under a launcher this rank's file, the path with
 * "%d" replaced by the rank (a path without it only on one rank), over
 * MPI_COMM_WORLD (gbt_dataset_from_file_iter_mpi: the cuts of every rank's
 * rows).  `shown` (len bytes) receives the path read.  Dies on errors.
 */
gbt_dataset *cli_mpi_read_batches(const char *path, const char *options, int max_bin, char *shown, size_t len);

/* The file cli_mpi_read_batches reads into shown (len bytes): this rank's. Dies when a rank has none. */
void cli_mpi_batches_path(const char *path, char *shown, size_t len);

/* Whether the tool runs under a launcher, as one of its ranks (cli_mpi_start). */
int cli_mpi_distributed(void);

/*
 * Gathers every rank's n floats to rank 0, in rank order: rank 0 gets a
 * malloc'ed array of all of them (*total of them), the other ranks NULL.
 * Not distributed: a copy of local.
 */
float *cli_mpi_gather(const float *local, uint64_t n, uint64_t *total);

#endif
