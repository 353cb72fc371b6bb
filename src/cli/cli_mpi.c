/*
 * cli_mpi.c - the command-line tools under an MPI launcher (cli_mpi.h).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_mpi.h"

#ifdef GBT_WITH_MPI
#include <mpi.h>
#endif

static int rank, size = 1;

int cli_mpi_rank(void) { return rank; }
int cli_mpi_size(void) { return size; }

/* Whether MPI was started (cli_mpi_start). */
static int distributed;

int cli_mpi_distributed(void) { return distributed; }

#ifdef GBT_WITH_MPI

/* The longest message passed from the failing rank. */
#define MSG_MAX 4096

static void finalize(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
}

/* Whether msg already names the rank it came from ("rank R: ", as the library's training errors do). */
static int names_rank(const char *msg)
{
    for (const char *p = strstr(msg, "rank "); p; p = strstr(p + 1, "rank ")) {
        const char *q = p + 5;
        if (*q < '0' || *q > '9') continue;
        while (*q >= '0' && *q <= '9') q++;
        if (q[0] == ':' && q[1] == ' ') return 1;
    }
    return 0;
}

/* Every rank: the lowest failing rank's message, or nothing when none failed. */
static void agree(const char *failure)
{
    int mine = failure ? rank : INT_MAX, lowest;
    char msg[MSG_MAX];
    MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (lowest == INT_MAX) return;
    if (rank == lowest) snprintf(msg, sizeof msg, "%s", failure);
    MPI_Bcast(msg, MSG_MAX, MPI_CHAR, lowest, MPI_COMM_WORLD);
    msg[MSG_MAX - 1] = '\0';
    if (rank == 0) {
        if (names_rank(msg))
            fprintf(stderr, "%s: %s\n", cli_prog(), msg);
        else
            fprintf(stderr, "%s: rank %d: %s\n", cli_prog(), lowest, msg);
    }
    fflush(stderr);
    exit(1); /* finalize() runs at exit */
}

/* cli_die under MPI: this rank's failure joins the next agreement, which exits. */
static void die_hook(const char *msg)
{
    agree(msg);
    exit(1); /* not reached: agree exits when any rank failed */
}

int cli_mpi_start(int *argc, char ***argv)
{
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return 0;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) cli_die("MPI_Init failed");
    atexit(finalize);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    distributed = 1;
    cli_set_die_hook(die_hook);
    return 1;
}

void cli_mpi_agree(void)
{
    if (distributed) agree(NULL);
}

float *cli_mpi_gather(const float *local, uint64_t n, uint64_t *total)
{
    uint64_t *counts, *starts, sum = 0, most = 0;
    float *all = NULL, *stage = NULL;
    int *rc = NULL, *displ = NULL;
    uint64_t piece;
    if (!distributed) {
        all = malloc(n * sizeof *all + 1);
        if (all == NULL) cli_die("out of memory for %llu predictions", (unsigned long long)n);
        if (n) memcpy(all, local, n * sizeof *all);
        *total = n;
        return all;
    }
    counts = malloc(2 * (size_t)size * sizeof *counts);
    if (counts == NULL) cli_die("out of memory");
    starts = counts + size;
    MPI_Allgather(&n, 1, MPI_UINT64_T, counts, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        starts[r] = sum;
        sum += counts[r];
        if (counts[r] > most) most = counts[r];
    }
    /* pieces of at most `piece` floats per rank, so that every count and displacement fits an int */
    piece = (uint64_t)INT_MAX / sizeof(float) / (uint64_t)size;
    if (piece > (1u << 24)) piece = 1u << 24;
    if (rank == 0) {
        all = malloc(sum * sizeof *all + 1);
        stage = malloc(piece * (uint64_t)size * sizeof *stage + 1);
        rc = malloc(2 * (size_t)size * sizeof *rc);
        if (all == NULL || stage == NULL || rc == NULL)
            cli_die("out of memory gathering %llu predictions", (unsigned long long)sum);
        displ = rc + size;
    }
    for (uint64_t at = 0; at < most; at += piece) {
        uint64_t mine = n > at ? n - at : 0;
        if (mine > piece) mine = piece;
        if (rank == 0) {
            for (int r = 0; r < size; r++) {
                uint64_t c = counts[r] > at ? counts[r] - at : 0;
                rc[r] = (int)(c > piece ? piece : c);
                displ[r] = (int)(piece * (uint64_t)r);
            }
        }
        MPI_Gatherv(mine ? local + at : local, (int)mine, MPI_FLOAT, stage, rc, displ, MPI_FLOAT, 0,
                    MPI_COMM_WORLD);
        if (rank == 0)
            for (int r = 0; r < size; r++)
                if (rc[r]) memcpy(all + starts[r] + at, stage + piece * (uint64_t)r, (size_t)rc[r] * sizeof *all);
    }
    free(stage);
    free(rc);
    free(counts);
    *total = rank == 0 ? sum : 0;
    return all;
}

#else /* !GBT_WITH_MPI */

int cli_mpi_start(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

void cli_mpi_agree(void) {}

float *cli_mpi_gather(const float *local, uint64_t n, uint64_t *total)
{
    float *all = malloc(n * sizeof *all + 1);
    if (all == NULL) cli_die("out of memory for %llu predictions", (unsigned long long)n);
    if (n) memcpy(all, local, n * sizeof *all);
    *total = n;
    return all;
}

#endif

/* path with each "%d" replaced by the rank. */
static void rank_path(const char *path, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *p = path; *p; p++) {
        char digits[16];
        const char *add = digits;
        size_t w;
        if (p[0] == '%' && p[1] == 'd') {
            snprintf(digits, sizeof digits, "%d", rank);
            p++;
        } else {
            digits[0] = *p;
            digits[1] = '\0';
        }
        w = strlen(add);
        if (n + w >= len) cli_die("file name '%.64s...' is too long", path);
        memcpy(buf + n, add, w);
        n += w;
    }
    buf[n] = '\0';
}

/* The first group start at or after row `at` (nrow when none). */
static uint64_t group_start_from(const uint32_t *groups, uint64_t ngroups, uint64_t nrow, uint64_t at)
{
    uint64_t start = 0;
    if (ngroups == 0) return at;
    for (uint64_t g = 0; g < ngroups && start < at; g++) start += groups[g];
    return start < at ? nrow : start;
}

/* A data file, read for the model (its category names) when there is one. */
static gbt_status read_file(const gbt_booster *model, const char *path, const char *options, gbt_dataset **out)
{
    return model ? gbt_booster_read_data(model, path, options, out) : gbt_dataset_from_file(path, options, out);
}

gbt_dataset *cli_mpi_read_share(const char *path, const char *options, const gbt_booster *model, char *shown,
                                size_t len)
{
    gbt_dataset *whole, *part;
    const uint32_t *groups;
    uint64_t nrow, ngroups, begin, end;
    gbt_status s;
    if (strstr(path, "%d")) {
        rank_path(path, shown, len);
        s = read_file(model, shown, options, &part);
        if (s != GBT_OK) cli_die_status(s, "reading data");
        return part;
    }
    snprintf(shown, len, "%s", path);
    s = read_file(model, path, options, &whole);
    if (s != GBT_OK) cli_die_status(s, "reading data");
    if (size == 1) return whole;
    gbt_dataset_shape(whole, &nrow, NULL);
    if ((s = gbt_dataset_get_groups(whole, &groups, &ngroups)) != GBT_OK) cli_die_status(s, "reading groups");
    begin = group_start_from(groups, ngroups, nrow, (uint64_t)rank * nrow / (uint64_t)size);
    end = group_start_from(groups, ngroups, nrow, (uint64_t)(rank + 1) * nrow / (uint64_t)size);
    s = gbt_dataset_slice_rows(whole, begin, end, &part);
    gbt_dataset_free(whole);
    if (s != GBT_OK) cli_die_status(s, "taking this rank's rows");
    return part;
}

void cli_mpi_batches_path(const char *path, char *shown, size_t len)
{
    if (!cli_mpi_distributed()) {
        snprintf(shown, len, "%s", path);
        return;
    }
    if (size > 1 && strstr(path, "%d") == NULL)
        cli_die("%s: under mpirun, training data read in batches (#CACHE) is one file per rank: name it with "
                "%%d (part%%d.csv#cache: rank r reads part<r>.csv), or drop the #CACHE to share one file's rows",
                path);
    rank_path(path, shown, len);
}

gbt_dataset *cli_mpi_read_batches(const char *path, const char *options, int max_bin, char *shown, size_t len)
{
    gbt_dataset *d = NULL;
    gbt_status s;
    cli_mpi_batches_path(path, shown, len);
    if (!cli_mpi_distributed())
        s = gbt_dataset_from_file_iter(shown, options, max_bin, &d);
    else
        s = gbt_dataset_from_file_iter_mpi(shown, options, max_bin, NULL, &d);
    if (s != GBT_OK) cli_die_status(s, "reading data");
    return d;
}
