/*
 * mpi_emu.c - distributed training on the emulated CUDA backend (run by
 * tests/mpi_emu.sh under mpirun): every rank trains with device=cuda on its
 * share of the rows of a bundled data set, and rank 0 compares the model
 * with the one a single process trains with device=cpu on all the rows.
 * The expected model comes from the CPU backend in one process, not from
 * the code under test in the same arrangement.  TAP from rank 0.  One
 * case marks columns categorical (digits' pixel values 0 .. 16: one-hot
 * and partition splits, with LightGBM's regularisation of partitions,
 * whose row estimate takes every process's rows and hessians).
 */
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

/* trains `rounds` rounds of params on d (all of it when comm is 0, else this rank's share) */
static gbt_status train(const gbt_dataset *d, const char *const *params, const char *device, int comm,
                        char **model, size_t *len)
{
    gbt_booster *b = NULL;
    gbt_dataset *part = NULL;
    uint64_t n = 0;
    gbt_status s = gbt_dataset_shape(d, &n, NULL);
    if (s == GBT_OK && comm) s = gbt_dataset_slice_rows(d, boundary(d, n, rank), boundary(d, n, rank + 1), &part);
    if (s == GBT_OK) s = gbt_booster_create(&b);
    if (s == GBT_OK && comm) s = gbt_booster_set_mpi_comm(b, NULL);
    if (s == GBT_OK) s = set_params(b, params);
    if (s == GBT_OK) s = gbt_booster_set_param(b, "device", device);
    if (s == GBT_OK) s = gbt_booster_set_param(b, "verbosity", "0");
    if (s == GBT_OK) s = gbt_booster_train(b, part ? part : d, 6, NULL, NULL, 0);
    if (s == GBT_OK) s = gbt_booster_save_to_buffer(b, model, len);
    gbt_booster_free(b);
    gbt_dataset_free(part);
    return s;
}

/* cat: 0, or the columns f with f % cat == 1 categorical */
static void check(const char *dir, const char *file, const char *const *params, int cat, const char *what)
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
    if (s == GBT_OK) s = train(d, params, "cuda", 1, &mine, &lm);
    if (s != GBT_OK) fprintf(stderr, "rank %d: %s: %s\n", rank, what, gbt_last_error());
    if (rank == 0) {
        gbt_status r = s == GBT_OK ? train(d, params, "cpu", 0, &ref, &lr) : s;
        ok(s == GBT_OK && r == GBT_OK && lm == lr && memcmp(mine, ref, lm) == 0,
           "%s, %d ranks on emulated cuda: the model of one process on the cpu (%zu and %zu bytes)", what,
           size, lm, lr);
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
    const char *dir = argc > 1 ? argv[1] : "datasets";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(dir, "breast_cancer.train.csv", binary, 0, "binary:logistic, subsample 0.8");
    check(dir, "digits.train.csv", multi, 0, "multi:softprob, lossguide");
    check(dir, "digits.train.csv", cat, 2,
          "categorical columns (every other one), multi:softprob, cat_smooth 2, cat_l2 1, min_data_per_group 5");
    check(dir, "diabetes.train.csv", quantile, 0, "reg:quantileerror, two quantiles");
    check(dir, "rank.train.libsvm", ranking, 0, "rank:ndcg, colsample_bynode 0.7");
    MPI_Finalize();
    return rank == 0 ? done_testing() : 0;
}
