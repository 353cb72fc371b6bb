/*
 * dataset.h - the internal layout of gbt_dataset and a read-only view of
 * feature data used by prediction.
 */
#ifndef GBT_DATASET_H
#define GBT_DATASET_H

#include <stdint.h>

#include "gbt.h"

/*
 * The most features (columns) a dataset or a model has: fewer than 2^24
 * (gbt.h), so feature indices run to 2^24 - 2.  Every reader (data files,
 * both model formats) checks against this one number.
 */
#define GBT_MAX_FEATURES ((1u << 24) - 1)
/* The most labels per row (targets of a multi-target dataset). */
#define GBT_MAX_TARGETS 256

/* How a dataset's column numbers relate to the indices of its LIBSVM file. */
enum gbt_index_base {
    GBT_BASE_NONE = 0,    /* not read from a LIBSVM file */
    GBT_BASE_ZERO,        /* index i is column i */
    GBT_BASE_ONE,         /* index i is column i - 1 */
    GBT_BASE_ONE_GUESSED  /* one-based only because no index 0 appears */
};
#define GBT_MAX_ROWS 0xFFFFFFFFull

/*
 * How the file a dataset was read from (gbt_dataset_from_file) was laid
 * out.  The model records its training file's, so that prediction can read
 * a file of the same layout the same way.
 */
enum gbt_file_format { GBT_FILE_NONE = 0, GBT_FILE_LIBSVM, GBT_FILE_DELIMITED };
struct gbt_file_layout {
    int format;           /* enum gbt_file_format; NONE: not read from a file */
    char delim;           /* GBT_FILE_DELIMITED: ',' (CSV), '\t' (TSV) or the delimiter option's */
    int header;           /* a line of column names came first */
    int64_t label_column; /* the label's column, -1: none */
};

/* The layout as gbt_dataset_from_file's options ("format=csv,header=1,label_column=3"). */
void gbt__layout_options(const struct gbt_file_layout *l, char *buf, size_t len); /* rows must be fewer than this */

/*
 * Feature types (gbt_dataset_set_feature_types): XGBoost's spellings, kept
 * as given ("q", "c", "int", "float", "i"); all but "c" are numeric.
 */
enum gbt_feature_type { GBT_FT_NUMERIC = 0, GBT_FT_CATEGORICAL = 1, GBT_FT_INT = 2, GBT_FT_FLOAT = 3,
                        GBT_FT_INDICATOR = 4, GBT_FT_COUNT = 5 };

/* A type's spelling ("q", "c", "int", "float", "i"), or NULL for another value. */
const char *gbt__feature_type_name(unsigned t);

/* The type a spelling names, or -1 (NULL or another text). */
int gbt__feature_type_parse(const char *text);
/*
 * A category is a whole number in [0, GBT_CAT_LIMIT): 2^24, the range in
 * which every whole number is a float (XGBoost's limit too).
 */
#define GBT_CAT_LIMIT 16777216u

struct gbt_dataset {
    uint64_t nrow, ncol;
    /* dense: nrow * ncol row-major floats, NaN = missing (NULL for CSR) */
    float *dense;
    /* CSR: columns ascending within a row, no NaN values (NULL for dense) */
    uint64_t *indptr;
    uint32_t *indices;
    float *values;
    uint64_t nnz; /* present (non-missing) values */

    float *label;     /* nrow * gbt__dataset_targets values, row-major */
    uint32_t ntarget; /* labels per row (multi-target: more than 1); 0 is 1 */
    float *weight;
    float *base_margin;
    uint64_t nbase_margin;
    /* survival:aft: each row's time lies in [label_lower, label_upper] (upper may be +inf) */
    float *label_lower, *label_upper;
    uint32_t *groups;
    uint64_t ngroups;
    /* colsample_*: each feature's weight of being drawn (ncol values), or NULL: all equal */
    float *feature_weights;

    int index_base;     /* enum gbt_index_base */
    struct gbt_file_layout layout; /* of the file the data came from */
    char *source;       /* file the data came from, or NULL */
    uint32_t *row_line; /* line of each row in `source`, or NULL */
    char **feature_names;    /* ncol names (a CSV header, gbt_dataset_set_feature_names), or NULL */
    uint64_t nfeature_names; /* 0 or ncol */
    /* ncol entries, enum gbt_feature_type (gbt_dataset_set_feature_types), or NULL: every one "q" */
    uint8_t *feature_types;
    /* the categories' names (gbt_dataset_set_category_names: JSON, feature index -> names in code order), or NULL */
    char *category_names;

    /*
     * Made from an iterator (dataset_iter.c): no feature values (dense and
     * indptr NULL, nnz the count there was), only the kept binned matrix,
     * which nothing may drop; gbt__dataset_need_values refuses what needs them.
     */
    int binned_only;

    /* unique among all datasets' states; changes whenever this one changes */
    uint64_t generation;

    /*
     * binned.h: the binned matrix kept with the dataset (or NULL), valid
     * while binned_generation == generation; binnings counts the binnings
     * of this dataset (tests read it).  drop_binned, set by binned.c with
     * the first matrix it keeps, takes the matrix away and releases it:
     * the dataset's changes and its freeing call it, so that the dataset,
     * below binning, needs nothing of it.
     */
    struct gbt_binned *binned;
    void (*drop_binned)(struct gbt_dataset *d);
    uint64_t binned_generation;
    uint64_t binnings;
};

/*
 * Feature values to predict from: dense (values equal to `missing` or NaN
 * are missing) or CSR (absent entries are missing).
 */
struct gbt_dview {
    uint64_t nrow, ncol;
    const float *dense;
    float missing;
    const uint64_t *indptr;
    const uint32_t *indices;
    const float *values;
    const float *base_margin; /* nrow or nrow * K values, or NULL */
    uint64_t nbase_margin;
};

void gbt__dataset_view(const gbt_dataset *d, struct gbt_dview *v);

/* Labels per row: 1, or the targets of a multi-target dataset. */
static inline int gbt__dataset_targets(const gbt_dataset *d)
{
    return d->ntarget > 1 ? (int)d->ntarget : 1;
}

/* A new empty dataset shell (nrow = ncol = 0) with a fresh generation. */
gbt_status gbt__dataset_alloc(gbt_dataset **out);

/* Checks a dataset's shape: rows in [0, GBT_MAX_ROWS) (none: a dataset to predict or evaluate on), columns in [1, GBT_MAX_FEATURES]. */
gbt_status gbt__dataset_check_shape(uint64_t nrow, uint64_t ncol);

/*
 * GBT_OK when d holds its feature values; else (made from an iterator)
 * GBT_E_INVALID_ARG saying that `what` needs them.
 */
gbt_status gbt__dataset_need_values(const gbt_dataset *d, const char *what);

/* Marks the dataset as changed, and drops its binned matrix (binned.h). */
void gbt__dataset_touch(gbt_dataset *d);

/* Marks the dataset as changed in what binning does not read (labels, groups, names): its binned matrix stays. */
void gbt__dataset_touch_keep(gbt_dataset *d);

/* Validates dense data already in d->dense: infinities, nnz; NaN stays missing. */
gbt_status gbt__dataset_finish_dense(gbt_dataset *d);

/*
 * Validates and normalises CSR data already in d, whose indptr must start at
 * 0 and never decrease: column range, repeated columns, infinities; sorts
 * each row's columns and drops NaN entries.
 */
gbt_status gbt__dataset_finish_csr(gbt_dataset *d);

/*
 * Fixes the column numbers of a dataset just read from a LIBSVM file, whose
 * columns are its indices: indexing_mode 0 keeps them, 1 subtracts one (an
 * index 0 is then an error), -1 subtracts one unless an index 0 appears.
 */
gbt_status gbt__dataset_set_index_base(gbt_dataset *d, int indexing_mode);

/*
 * dataset_iter.c: d (the caller's, now the batch's) as the rows of batch b,
 * without a copy (io_batches.c: a reader's rows, fields included).
 */
gbt_status gbt__batch_take(gbt_batch *b, gbt_dataset *d);

/* A failure of the next callback (s, with its message in gbt_last_error) that the iterator reports as it is. */
void gbt__batch_fail(gbt_batch *b, gbt_status s);

/*
 * The other processes of a dataset made from batches over a communicator
 * (train/dist_data.c: gbt_dataset_from_iter_mpi): every call is collective
 * and starts with an agreement on the failures so far.  agree: every
 * process's status s, GBT_OK when all are, else the first failure (the
 * same on every process); max_sum: the element-wise maximum of v[0..n)
 * and sum of q[0..m) over the processes, in place; merge: one feature's
 * distinct values and fixed-point weights over the processes
 * (gbt_quant_dist's merge).
 */
struct gbt_iter_peers {
    int nproc;
    gbt_status (*agree)(void *user, gbt_status s);
    gbt_status (*max_sum)(void *user, double *v, size_t n, int64_t *q, size_t m);
    gbt_status (*merge)(void *user, const uint32_t *keys, const uint64_t *w, size_t n, uint32_t **mkeys,
                        uint64_t **mw, size_t *mn);
    void *user;
};

/*
 * gbt_dataset_from_iter_ext (cache_prefix NULL: the binned matrix in
 * memory), and with peers (not NULL) over their processes:
 * the cuts are those of every process's batches together (this process's
 * lists merged over the processes as distributed training merges them) and
 * each process bins its own batches with them.  Every process calls it.
 */
gbt_status gbt__dataset_from_iter_peers(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user, int max_bin,
                                        const char *cache_prefix, const struct gbt_iter_peers *peers,
                                        gbt_dataset **out);

/* Whether feature f of d is categorical. */
static inline int gbt__dataset_is_cat(const gbt_dataset *d, uint64_t f)
{
    return d->feature_types != NULL && d->feature_types[f] == GBT_FT_CATEGORICAL;
}

/*
 * dataset_types.c: checks that every present value of d's categorical
 * features is a category (a whole number in [0, GBT_CAT_LIMIT)); the
 * error names the file and line (or row) and the column.
 */
gbt_status gbt__dataset_check_categories(const gbt_dataset *d);

/* "FILE:LINE" or "row N" for messages about row r. */
void gbt__dataset_where(const gbt_dataset *d, uint64_t r, char *buf, size_t len);

/*
 * Reads the side files PATH.weight, PATH.base_margin, PATH.lower and
 * PATH.upper (label_lower_bound, label_upper_bound), PATH.group/.query when
 * present (PATH.weight only with `weights`).
 */
gbt_status gbt__dataset_read_side_files(gbt_dataset *d, const char *path, int weights);

/*
 * dataset_groups.c: the group offsets of d (ngroups + 1 entries: group g is rows
 * [ptr[g], ptr[g + 1])), a new array; one group of every row when d has no
 * groups.
 */
gbt_status gbt__dataset_group_ptr(const gbt_dataset *d, uint32_t **ptr, uint64_t *ngroups);

#endif
