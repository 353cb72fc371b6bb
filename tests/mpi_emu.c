/*
 * mpi_emu.c - distributed training on the emulated CUDA backend (run by
 * tests/mpi_emu.sh under mpirun): every rank trains with device=cuda on its
 * share of the rows of a bundled data set, and rank 0 compares the model
 * with the one a single process trains with device=cpu on all the rows.
 * The expected model comes from the CPU backend in one process, not from
 * the code under test in the same arrangement.  TAP from rank 0.  One
 * case marks columns categorical (digits' pixel values 0 .. 16: one-hot
 * and partition splits, with LightGBM's regularisation of partitions,
 * whose row estimate takes every process's rows and hessians).  Two cases
 * give each rank its share as batches (gbt_dataset_from_iter_mpi: the cuts
 * of every rank's batches) instead of a dataset with feature values.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbt.h"
#include "tap.h"

static int rank, size;

/* rank r's first row of n: r * n / size, moved to the next query group's start */
static uint64_t boundary(const gbt_dataset *d, uint64_t n, int r)
{
    const uint32_t *sizes = NULL;
    uint64_t ng = 0, at = 0, want = n * (uint64_t)r / (uint64_t)size;
    if (gbt_dataset_get_groups(d, &sizes, &ng) != GBT_OK || ng == 0) return want;
    for (uint64_t g = 0; g < ng && at < want; g++) at += sizes[g];
    return at;
}

static gbt_status set_params(gbt_booster *b, const char *const *params)
{
    gbt_status s = GBT_OK;
    for (int i = 0; params[i] && s == GBT_OK; i += 2) s = gbt_booster_set_param(b, params[i], params[i + 1]);
    return s;
}

/* A rank's share of a dataset handed out in batches of about `step` rows, cut at query group starts. */
struct batches {
    const gbt_dataset *d;
    uint64_t n, at, step;
};

static int reset_batches(void *user)
{
    ((struct batches *)user)->at = 0;
    return 0;
}

/* the first group start at or after row `want` of d (n rows) */
static uint64_t group_start(const gbt_dataset *d, uint64_t n, uint64_t want)
{
    const uint32_t *sizes = NULL;
    uint64_t ng = 0, at = 0;
    if (gbt_dataset_get_groups(d, &sizes, &ng) != GBT_OK || ng == 0) return want < n ? want : n;
    for (uint64_t g = 0; g < ng && at < want; g++) at += sizes[g];
    return at;
}

static int next_batch(void *user, gbt_batch *b)
{
    struct batches *it = user;
    const uint64_t end = group_start(it->d, it->n, it->at + it->step);
    gbt_dataset *rows = NULL;
    const float *dense = NULL, *values = NULL, *label = NULL;
    const uint64_t *indptr = NULL;
    const uint32_t *indices = NULL, *sizes = NULL;
    uint64_t nnz = 0, m = 0, nl = 0, ng = 0;
    gbt_status s;
    if (it->at >= it->n) return 0;
    s = gbt_dataset_slice_rows(it->d, it->at, end, &rows);
    if (s == GBT_OK) s = gbt_dataset_shape(rows, NULL, &m);
    if (s == GBT_OK) s = gbt_dataset_get_data(rows, &dense, &indptr, &indices, &values, &nnz);
    if (s == GBT_OK)
        s = dense ? gbt_batch_set_dense(b, dense, end - it->at, m, NAN)
                  : gbt_batch_set_csr(b, indptr, indices, values, end - it->at, m);
    if (s == GBT_OK) s = gbt_dataset_get_field(rows, "label", &label, &nl);
    if (s == GBT_OK) s = gbt_batch_set_field(b, "label", label, nl);
    if (s == GBT_OK) s = gbt_dataset_get_groups(rows, &sizes, &ng);
    if (s == GBT_OK && ng) s = gbt_batch_set_groups(b, sizes, ng);
    gbt_dataset_free(rows);
    it->at = end;
    return s == GBT_OK ? 1 : -1;
}

/*
 * trains `rounds` rounds of params on d (all of it when comm is 0, else this rank's share: with comm 2
 * in batches of about 100 rows over the ranks, gbt_dataset_from_iter_mpi)
 */
static gbt_status train(const gbt_dataset *d, const char *const *params, int rounds, const char *device, int comm,
                        char **model, size_t *len)
{
    gbt_booster *b = NULL;
    gbt_dataset *part = NULL;
    uint64_t n = 0;
    gbt_status s = gbt_dataset_shape(d, &n, NULL);
    if (s == GBT_OK && comm) s = gbt_dataset_slice_rows(d, boundary(d, n, rank), boundary(d, n, rank + 1), &part);
    if (s == GBT_OK && comm == 2) {
        struct batches it = {part, 0, 0, 100};
        gbt_dataset *binned = NULL;
        const char *max_bin = "256";
        for (int i = 0; params[i]; i += 2)
            if (strcmp(params[i], "max_bin") == 0) max_bin = params[i + 1];
        s = gbt_dataset_shape(part, &it.n, NULL);
        if (s == GBT_OK) s = gbt_dataset_from_iter_mpi(next_batch, reset_batches, &it, atoi(max_bin), NULL, &binned);
        gbt_dataset_free(part);
        part = binned;
    }
    if (s == GBT_OK) s = gbt_booster_create(&b);
    if (s == GBT_OK && comm) s = gbt_booster_set_mpi_comm(b, NULL);
    if (s == GBT_OK) s = set_params(b, params);
    if (s == GBT_OK) s = gbt_booster_set_param(b, "device", device);
    if (s == GBT_OK) s = gbt_booster_set_param(b, "verbosity", "0");
    if (s == GBT_OK) s = gbt_booster_train(b, part ? part : d, rounds, NULL, NULL, 0);
    if (s == GBT_OK) s = gbt_booster_save_to_buffer(b, model, len);
    gbt_booster_free(b);
    gbt_dataset_free(part);
    return s;
}

/* A dataset of d's dense values and labels, made from memory. */
static gbt_status plain_copy(const gbt_dataset *d, gbt_dataset **out)
{
    const float *dense = NULL, *label = NULL;
    uint64_t n = 0, m = 0, nl = 0;
    gbt_status s = gbt_dataset_shape(d, &n, &m);
    if (s == GBT_OK) s = gbt_dataset_get_data(d, &dense, NULL, NULL, NULL, NULL);
    if (s == GBT_OK) s = gbt_dataset_from_dense(dense, n, m, NAN, out);
    if (s == GBT_OK) s = gbt_dataset_get_field(d, "label", &label, &nl);
    if (s == GBT_OK) s = gbt_dataset_set_field(*out, "label", label, nl);
    return s;
}

/* cat: 0, or the columns f with f % cat == 1 categorical; comm: 1, or 2 for batches (train's) */
static void check(const char *dir, const char *file, const char *const *params, int rounds, int cat, int comm,
                  const char *what)
{
    char path[4096], *mine = NULL, *ref = NULL;
    size_t lm = 0, lr = 0;
    gbt_dataset *d = NULL;
    gbt_status s;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    s = gbt_dataset_from_file(path, NULL, &d);
    if (s == GBT_OK && cat) {
        uint64_t m = 0;
        const char **types = NULL;
        s = gbt_dataset_shape(d, NULL, &m);
        types = s == GBT_OK ? calloc(m ? m : 1, sizeof *types) : NULL;
        for (uint64_t f = 0; types && f < m; f++) types[f] = f % (uint64_t)cat == 1 ? "c" : "q";
        s = types ? gbt_dataset_set_feature_types(d, types, m) : GBT_E_NO_MEMORY;
        free(types);
    }
    if (s == GBT_OK) s = train(d, params, rounds, "cuda", comm, &mine, &lm);
    if (s != GBT_OK) fprintf(stderr, "rank %d: %s: %s\n", rank, what, gbt_last_error());
    if (rank == 0) {
        /* batches: the reference from the file's values without the file (its model records no training_file) */
        gbt_dataset *plain = NULL;
        gbt_status r = s == GBT_OK && comm == 2 ? plain_copy(d, &plain) : s;
        if (r == GBT_OK) r = train(plain ? plain : d, params, rounds, "cpu", 0, &ref, &lr);
        gbt_dataset_free(plain);
        ok(s == GBT_OK && r == GBT_OK && lm == lr && memcmp(mine, ref, lm) == 0,
           "%s, %d rounds, %d ranks on emulated cuda: the model of one process on the cpu (%zu and %zu bytes)",
           what, rounds, size, lm, lr);
    }
    gbt_free(mine);
    gbt_free(ref);
    gbt_dataset_free(d);
}

int main(int argc, char **argv)
{
    static const char *const binary[] = {"objective", "binary:logistic", "max_depth", "4", "subsample", "0.8", NULL};
    static const char *const multi[] = {"objective", "multi:softprob", "num_class", "10", "grow_policy",
                                        "lossguide", "max_leaves", "8", "max_depth", "0", NULL};
    static const char *const quantile[] = {"objective", "reg:quantileerror", "quantile_alpha", "0.2,0.8", NULL};
    static const char *const cat[] = {"objective", "multi:softprob", "num_class", "10", "max_depth", "3",
                                      "max_cat_threshold", "8", "cat_smooth", "2", "cat_l2", "1",
                                      "min_data_per_group", "5", NULL};
    static const char *const ranking[] = {"objective", "rank:ndcg", "colsample_bynode", "0.7", NULL};
    static const char *const regression[] = {"objective", "reg:squarederror", "max_bin", "32", NULL};
    const char *dir = argc > 1 ? argv[1] : "datasets";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /*
     * The ten classes of digits (64 features) train 2 rounds, the others 6: 20 trees on the emulator
     * were 70% of the test's time with 60; the second round's gradients come from the first's margins,
     * so every distributed step (histograms summed over the ranks, splits, leaves, margins) has run
     * before the compared model is written
     */
    check(dir, "breast_cancer.train.csv", binary, 6, 0, 1, "binary:logistic, subsample 0.8");
    check(dir, "digits.train.csv", multi, 2, 0, 1, "multi:softprob, lossguide");
    check(dir, "digits.train.csv", cat, 2, 2, 1,
          "categorical columns (every other one), multi:softprob, cat_smooth 2, cat_l2 1, min_data_per_group 5");
    check(dir, "diabetes.train.csv", quantile, 6, 0, 1, "reg:quantileerror, two quantiles");
    check(dir, "rank.train.libsvm", ranking, 6, 0, 1, "rank:ndcg, colsample_bynode 0.7");
    check(dir, "diabetes.train.csv", regression, 6, 0, 2,
          "batches over the ranks (gbt_dataset_from_iter_mpi), reg:squarederror max_bin 32");
    MPI_Finalize();
    return rank == 0 ? done_testing() : 0;
}
