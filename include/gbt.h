/*
 * gbt.h - the public interface of gbt, a gradient-boosted decision tree
 * library with a CPU and a CUDA backend.
 *
 * This header is the manual: every call has one comment block that says
 * what it does, what it needs and what it returns.
 *
 * Conventions
 * -----------
 * - Every call that can fail returns a gbt_status; GBT_OK (0) is success.
 *   Results come back through trailing out-pointers, which are written only
 *   on success.  gbt_last_error() gives this thread's message for the most
 *   recent failure.
 * - Handles are opaque.  gbt_dataset_free(NULL) and gbt_booster_free(NULL)
 *   are no-ops.  Memory that the library returns (model buffers, build
 *   information) is released with gbt_free().
 * - The library never prints, exits or aborts.  It reports through the log
 *   callback (gbt_set_log_callback), if one is set.  One exit is OpenMP's,
 *   not gbt's: libgomp ends the process when it cannot create a thread.
 *   gbt asks for at most one thread per processor; nthread=1 creates none.
 * - Output buffers for predictions belong to the caller; ask
 *   gbt_booster_predict_size() how large they must be.
 * - A booster may predict from many threads at once.  Training or setting
 *   parameters on a booster while another thread uses it is not allowed.
 *   Different boosters and datasets are independent.
 * - Parameters are set by name with XGBoost's names and aliases
 *   (gbt_booster_set_param); gbt_param_count()/gbt_param_describe() list
 *   them all.
 *
 * Limits: fewer than 2^32 rows and 2^24 features (at most 16777215) per
 * dataset and per model.
 */
#ifndef GBT_H
#define GBT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define GBT_API __attribute__((visibility("default")))
#else
#define GBT_API
#endif

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

/*
 * GBT_STATUS_MAP(X) lists every status as X(NAME, value, "description").
 * Values never change once published; new ones are added at the end.
 */
#define GBT_STATUS_MAP(X)                                                  \
    X(OK, 0, "success")                                                    \
    X(E_INVALID_ARG, 1, "invalid argument")                                \
    X(E_NO_MEMORY, 2, "out of memory")                                     \
    X(E_IO, 3, "input/output error")                                       \
    X(E_FORMAT, 4, "malformed input")                                      \
    X(E_PARAM, 5, "invalid parameter")                                     \
    X(E_STATE, 6, "operation not allowed in the current state")            \
    X(E_NO_DEVICE, 7, "no such device")                                    \
    X(E_DEVICE, 8, "device error")                                         \
    X(E_INTERNAL, 9, "internal error")

typedef enum gbt_status {
#define GBT_STATUS_ENUM_(name, value, text) GBT_##name = value,
    GBT_STATUS_MAP(GBT_STATUS_ENUM_)
#undef GBT_STATUS_ENUM_
} gbt_status;

/* A fixed, static description of a status ("invalid argument"); never NULL. */
GBT_API const char *gbt_status_str(gbt_status s);

/*
 * The message of this thread's most recent failed call, for example
 * "train.csv:17: non-numeric value 'abc' in column 3".  Never NULL; "" when
 * no call on this thread has failed.  Valid until the next failing call on
 * the same thread.
 */
GBT_API const char *gbt_last_error(void);

/* ------------------------------------------------------------------ */
/* Library information, devices and logging                            */
/* ------------------------------------------------------------------ */

/* The version, "MAJOR.MINOR.PATCH". */
GBT_API const char *gbt_version(void);

/*
 * How this library was built, as a static JSON object:
 *   {"version": "0.1.0", "compiler": "...", "openmp": true,
 *    "cuda": {"compiled": true, "version": "13.0", "archs": [75, 80, ...]}}
 * "cuda.version" is null and "archs" empty when CUDA support is not
 * compiled in.
 */
GBT_API const char *gbt_build_info(void);

/*
 * The number of CUDA devices this library can use: 0 when it was built
 * without CUDA, when no driver is installed or when no GPU is present.
 */
GBT_API int gbt_device_count(void);

/*
 * Describes CUDA device `ordinal` (0 <= ordinal < gbt_device_count()):
 * its name (written to `name`, at most name_len bytes with the NUL), its
 * compute capability and its total and currently free memory in bytes.
 * Any out-pointer may be NULL.  GBT_E_NO_DEVICE for an ordinal out of range.
 * Asking for free_bytes creates the device's CUDA context in this process
 * if it has none yet (CUDA reports free memory only through one; it holds
 * some device memory until the process ends).  Neither this nor any other
 * call changes the calling thread's current CUDA device.
 */
GBT_API gbt_status gbt_device_describe(int ordinal, char *name, size_t name_len,
                                       int *cc_major, int *cc_minor,
                                       uint64_t *total_bytes, uint64_t *free_bytes);

/* Levels passed to the log callback. */
enum gbt_log_level {
    GBT_LOG_ERROR = 0,
    GBT_LOG_WARNING = 1,
    GBT_LOG_INFO = 2, /* per-round metrics, device choice, summaries */
    GBT_LOG_DEBUG = 3 /* set-up details; each round's trees (count, leaves, depth) and times */
};

typedef void (*gbt_log_fn)(int level, const char *msg, void *user);

/*
 * Sets the process-wide log callback (NULL: no logging, the default).
 * Boosters filter messages by their `verbosity` parameter before calling
 * it.  The callback may be called from any thread that calls into the
 * library.  Set it before training starts; it is not synchronised with
 * calls in flight.
 */
GBT_API void gbt_set_log_callback(gbt_log_fn fn, void *user);

/* Frees memory returned by the library (gbt_booster_save_to_buffer, gbt_booster_dump, ...). */
GBT_API void gbt_free(void *p);

/* ------------------------------------------------------------------ */
/* Parameters                                                          */
/* ------------------------------------------------------------------ */

/* The number of booster parameters (see gbt_param_describe). */
GBT_API int gbt_param_count(void);

/*
 * Describes parameter i (0 <= i < gbt_param_count()).  Every out-pointer
 * may be NULL and receives a static string:
 *   name      "eta"
 *   aliases   "learning_rate" (comma-separated, "" if none)
 *   type      "int", "double", "string" or one of the enumerated choices
 *             "depthwise|lossguide"
 *   deflt     "0.3"
 *   range     "[0, 1]" style bounds, or "" when there are none
 *   help      one sentence
 */
GBT_API gbt_status gbt_param_describe(int i, const char **name, const char **aliases,
                                      const char **type, const char **deflt,
                                      const char **range, const char **help);

/* ------------------------------------------------------------------ */
/* Datasets                                                            */
/* ------------------------------------------------------------------ */

typedef struct gbt_dataset gbt_dataset;

/*
 * A dataset from a row-major dense matrix of nrow x ncol floats, copied.
 * NaN is always missing; so is every value equal to `missing` (pass NAN if
 * only NaN is missing).  Infinite values are refused (GBT_E_FORMAT; the
 * first in row-major order is named).  Large matrices are copied and checked
 * in one pass over OpenMP's threads (OMP_NUM_THREADS, at most one per
 * processor); the dataset is the same for any thread count.
 * nrow may be 0 (as XGBoost's DMatrix): such a dataset predicts and
 * evaluates to nothing, and training on it (CPU only: CUDA refuses it)
 * grows trees of one leaf of 0 from an intercept of 0, with a warning.
 * This holds for gbt_dataset_from_csr too.
 */
GBT_API gbt_status gbt_dataset_from_dense(const float *data, uint64_t nrow, uint64_t ncol,
                                          float missing, gbt_dataset **out);

/*
 * A dataset of the bins of a row-major dense matrix (XGBoost's
 * QuantileDMatrix of an array), which is read in place and never copied
 * whole: row r starts at data + r * row_stride (row_stride 0: ncol).
 * Missing and infinite values as gbt_dataset_from_dense; weight (nrow
 * values, checked as gbt_dataset_set_field's, or NULL) weighs the cuts,
 * since they cannot change afterwards.  The cuts and codes are those a
 * training with max_bin (2 to 65535) makes of gbt_dataset_from_dense's
 * dataset of the same rows and weights, so such a training gives the same
 * model bytes, on the CPU and on CUDA; the dataset keeps them (the binned
 * matrix) and no feature values, as gbt_dataset_from_iter's, and refuses
 * what that one refuses.  It costs, beyond the caller's matrix, the codes
 * (one byte a cell for max_bin <= 256, else two; four bytes a present
 * value and eight a row for data more than three quarters missing), a
 * block of 4 MB, and while the cuts are made 16 bytes a row (24 with
 * weights) on each of OpenMP's threads.  nrow must be at least 1.
 */
GBT_API gbt_status gbt_dataset_from_dense_binned(const float *data, uint64_t nrow, uint64_t ncol,
                                                 uint64_t row_stride, float missing, const float *weight,
                                                 int max_bin, gbt_dataset **out);

/*
 * A dataset from a compressed sparse row matrix, copied: row i holds the
 * entries indptr[i] .. indptr[i+1]-1 of `indices` (column numbers, < ncol)
 * and `values`.  Absent entries and NaN values are missing.  Columns within
 * a row may come in any order but must not repeat.  Large inputs are copied
 * and checked over OpenMP's threads, as gbt_dataset_from_dense; an error
 * names the first faulty row.
 */
GBT_API gbt_status gbt_dataset_from_csr(const uint64_t *indptr, const uint32_t *indices,
                                        const float *values, uint64_t nrow, uint64_t ncol,
                                        gbt_dataset **out);

/*
 * A dataset read from a text file, streamed (the text is never held in
 * memory whole: it passes through a window of 8 MiB per thread, 64 MiB at
 * most; a line longer than 64 MiB is refused with GBT_E_FORMAT) and parsed
 * by blocks of lines in parallel.  Numbers read exactly as strtof reads
 * them in the C locale.  `options` is NULL or a comma-separated list:
 *   format=libsvm|csv|tsv   default: guessed from the first data line
 *                           (tabs: TSV, commas: CSV, else LIBSVM; a line
 *                           of ';'-separated fields is refused, naming
 *                           the delimiter option)
 *   label_column=N          CSV/TSV column of the label (default 0);
 *                           -1 means the file has no label column;
 *                           auto (with features=N) decides from the first
 *                           data line: N fields have no label, N + 1 have
 *                           it first (auto:K: in column K), any other
 *                           count is an error
 *   features=N              the feature columns expected (label_column=auto)
 *   header=0|1              CSV/TSV: skip a first line of column names
 *   delimiter=;|:           CSV: fields separated by this character
 *                           instead of commas (implies format=csv)
 *   missing=V               CSV/TSV: this value also means missing
 *   side_files=0|1          read PATH.label (labels replacing the file's:
 *                           T numbers per row give T targets, as
 *                           gbt_dataset_set_field's "label"), PATH.weight,
 *                           PATH.base_margin, PATH.lower, PATH.upper (label_lower_bound and
 *                           label_upper_bound), PATH.feature_weights
 *                           (one number per feature) and PATH.group (or
 *                           PATH.query) when present (default 1)
 *   indexing_mode=0|1|auto  LIBSVM: feature indices start at 0 (index i is
 *                           column i) or at 1 (index i is column i - 1);
 *                           auto (default, also -1): 0 when an index 0
 *                           appears in the file, else 1
 *   category_names=0|1      CSV/TSV: a feature field that is not a number
 *                           is a category name (default 0: an error).  A
 *                           column of names becomes categorical: its
 *                           categories are its distinct names sorted by
 *                           their bytes (as pandas sorts a column of
 *                           strings), each field the position of its name,
 *                           and the dataset keeps the names
 *                           (gbt_dataset_get_category_names; a model
 *                           trained on it keeps them as gbtrain does).  A
 *                           number in a column of names is an error naming
 *                           its line
 *   feature_types=qqcq      a letter a feature (the columns but the label),
 *                           q numeric, c categorical: the types
 *                           gbt_dataset_set_feature_types sets, here on
 *                           every batch of gbt_dataset_from_file_iter too
 *                           (binning reads them); a c column holds
 *                           category numbers, or names with category_names=1
 *   nthread=N               threads to parse with (default 0: all the
 *                           processors available); the dataset is the same
 *                           for any N
 *   progress=S              log "reading PATH: P% (...)" at GBT_LOG_INFO
 *                           every S seconds while reading, and a summary
 *                           when done if anything was logged (default 0:
 *                           never)
 * LIBSVM lines are "label [qid:N] index:value ...".  A model records the
 * base of the LIBSVM file it was trained on; prediction and evaluation
 * refuse a file whose base was guessed one-based (no index 0) unless the
 * model was trained on a one-based file (GBT_E_INVALID_ARG: the file may be
 * zero-based with its first feature absent; give indexing_mode).
 * path may be one of XGBoost's data URIs: "PATH?format=libsvm&indexing_mode=1"
 * (its '&'-separated options are those above, and win over `options`'
 * ones; as in XGBoost, a URI's LIBSVM indices are zero-based unless it
 * gives indexing_mode=1 or auto, and a URI's CSV/TSV file has no label
 * column unless it gives label_column) and "PATH#CACHE" (XGBoost's external-memory cache: ignored with a
 * warning, as this reads the data into memory; gbt_dataset_from_file_iter
 * reads a file in batches); a path that names an
 * existing file is that file, '?' and '#' included.  Side files are those
 * of PATH.  The dataset remembers the file's layout (format, delimiter,
 * header, label column), and a model records that of its training file
 * (gbt_booster_get_attr "training_file").
 * CSV/TSV fields that are empty, "NA" or "nan" are missing.  Lines may end
 * in LF or CRLF.  A UTF-8 byte-order mark (EF BB BF) at the start of a file,
 * data or side file, is skipped.  Errors name the file and the line: the first bad line
 * in the file, whatever the thread count.
 */
GBT_API gbt_status gbt_dataset_from_file(const char *path, const char *options,
                                         gbt_dataset **out);

/*
 * Binary dataset files: a dataset whole (feature values, dense or sparse as
 * it is; label, weight, base_margin, label bounds, query groups,
 * feature_weights, feature names and types, and the layout of the text file
 * it was first read from), in gbt's own versioned format
 * (docs/binary-format.md: little-endian, CRC-32 checked).  Reading one
 * gives back the same dataset, and a model trained on it is the model
 * trained on the original, byte for byte.  XGBoost's binary DMatrix files
 * are a different format and are not read.
 *
 * gbt_dataset_save_binary writes d to path (format version 2); a regular
 * file is replaced atomically (written beside it, then renamed), so a
 * failure leaves what was there.
 *
 * gbt_dataset_load_binary reads a file of format version 2, or version 1
 * (the NumPy archive the Python package's save_binary wrote before the
 * format moved into the library).  A file that is not one, is cut short,
 * fails its checksum, holds inconsistent or invalid contents, or has a
 * newer version is GBT_E_FORMAT with a message naming the file and the
 * fault; GBT_E_IO when it cannot be opened or read.
 *
 * gbt_dataset_is_binary sets *out to 1 when path starts as a binary dataset
 * file of any version ("GBTDMAT", a digit, a newline), else 0; GBT_E_IO
 * when it cannot be opened.  gbt_dataset_from_file reads a regular file
 * that starts so with gbt_dataset_load_binary (its options and side files
 * do not apply), so the tools and every caller of it take binary files
 * wherever they take a data file.
 */
GBT_API gbt_status gbt_dataset_save_binary(const gbt_dataset *d, const char *path);
GBT_API gbt_status gbt_dataset_load_binary(const char *path, gbt_dataset **out);
GBT_API gbt_status gbt_dataset_is_binary(const char *path, int *out);

/*
 * Sets a per-row field (or feature_weights, per feature), copying n floats:
 *   "label"        n == nrow; finite values; or n == nrow * T (row-major,
 *                  T <= 256): T targets per row, which train a
 *                  multi-target model (XGBoost's multi-target regression
 *                  and multi-label classification, multi_strategy=
 *                  one_output_per_tree): one output per target, a round
 *                  grows T trees (tree t fits target t % T with the
 *                  objective's one-label gradients and its own starting
 *                  score), prediction gives T values per row, the
 *                  pointwise metrics average over all n * T values.  Only
 *                  objectives of one label per row take it (reg:*,
 *                  binary:*, count:poisson; not multi:*,
 *                  reg:quantileerror, survival:* or rank:*).
 *                  gbt_dataset_get_field gives all n * T
 *   "weight"       n == nrow; finite, >= 0
 *   "weight"       n == nrow; finite, >= 0; or, on data with query groups
 *                  (set them first), n == ngroups: one weight per group,
 *                  as XGBoost's ranking takes them, given to each of its
 *                  rows (read back one per row).  The ranking objectives
 *                  weigh whole groups: per-row weights must be equal
 *                  within each group.  File: PATH.weight, one line per
 *                  row or per group.
 *   "base_margin"  n == nrow or nrow * num_class (row-major); initial raw
 *                  scores used instead of base_score in training and
 *                  prediction
 *   "label_lower_bound", "label_upper_bound"
 *                  n == nrow; survival:aft's time intervals: row i's time
 *                  lies in [lower_i, upper_i], 0 <= lower <= upper, upper
 *                  may be +INFINITY (right-censored), lower 0 or
 *                  -INFINITY is left-censored (-INFINITY is kept as 0,
 *                  and read back so), lower == upper an observed time (> 0).
 *                  Set both or neither (then the labels are observed
 *                  times).  Files: the side files PATH.lower and PATH.upper
 *                  of gbt_dataset_from_file ("inf" in PATH.upper, "-inf"
 *                  in PATH.lower).
 *   "feature_weights"
 *                  n == ncol; finite, >= 0, not all 0: feature f's weight
 *                  in the draws of colsample_bytree, colsample_bylevel
 *                  and colsample_bynode (weighted sampling without
 *                  replacement, as XGBoost's feature_weights; a weight 0
 *                  is drawn only after every positive one).  No effect
 *                  without column sampling.  File: PATH.feature_weights.
 * n == 0 with values == NULL removes the field.  survival:cox takes its
 * times from "label": positive for an event, negative for a censoring.
 */
GBT_API gbt_status gbt_dataset_set_field(gbt_dataset *d, const char *field,
                                         const float *values, uint64_t n);

/*
 * Reads a per-row field: *values points into the dataset (valid until the
 * field is changed or the dataset freed) and *n is its length (0 and NULL
 * when the field is not set).
 */
GBT_API gbt_status gbt_dataset_get_field(const gbt_dataset *d, const char *field,
                                         const float **values, uint64_t *n);

/*
 * Sets query groups: consecutive runs of rows; the sizes must sum to nrow.
 * The ranking objectives (rank:pairwise, rank:ndcg, rank:map) need them,
 * and on data with groups the ranking metrics (ndcg, map, pre), auc and
 * aucpr are computed per query.
 */
GBT_API gbt_status gbt_dataset_set_groups(gbt_dataset *d, const uint32_t *sizes,
                                          uint64_t ngroups);

/*
 * The dataset's query groups: *sizes points into the dataset (valid until
 * the groups change or the dataset is freed) and *ngroups is their number;
 * *sizes is NULL and *ngroups 0 when the dataset has none.
 */
GBT_API gbt_status gbt_dataset_get_groups(const gbt_dataset *d, const uint32_t **sizes,
                                          uint64_t *ngroups);

/*
 * Names the dataset's features, copying n names (n == ncol; n == 0 with
 * names NULL removes them).  A name is 1 to 255 bytes of text without
 * '[', ']' or '<' (as XGBoost's; control characters are allowed, as
 * XGBoost allows them, and escaped in model files and dumps), and names
 * are unique.  gbt_dataset_from_file names the features of a CSV/TSV file read
 * with header=1 from its header (the label column's name left out); other
 * datasets have no names until given.  A model trained on named data keeps
 * the names (gbt_booster_feature_names) and uses them in dumps; prediction,
 * evaluation and further training on named data compare the data's names
 * with the model's (see the booster parameter validate_features).
 */
GBT_API gbt_status gbt_dataset_set_feature_names(gbt_dataset *d, const char *const *names,
                                                 uint64_t n);

/*
 * The dataset's feature names: *names points into the dataset (valid until
 * the names change or the dataset is freed) and *n is their number, ncol;
 * *names is NULL and *n 0 when the dataset has none.
 */
GBT_API gbt_status gbt_dataset_get_feature_names(const gbt_dataset *d, const char *const **names,
                                                 uint64_t *n);

/*
 * Sets the type of each feature, XGBoost's feature_types: n == ncol
 * strings, "q" for a numeric feature ("float", "int" and "i" are numeric
 * too, kept as spelt in the dataset, its binary file and a model trained
 * on it) and "c" for a categorical one; n == 0 with types NULL makes every
 * feature numeric again (the default).  Every present value of a
 * categorical feature must be a category: a whole number from 0 to
 * 16777215 (2^24 - 1, XGBoost's limit; pandas category codes and
 * LightGBM's categorical_feature codes are such numbers).  A fraction, a
 * negative or a larger number is GBT_E_INVALID_ARG naming the file and
 * line (or the row) and the column, and the types stay as they were.
 * Missing values stay missing.  Training splits a categorical feature on
 * sets of categories, never on thresholds; the training data may hold at
 * most 65535 distinct categories per categorical feature.
 */
GBT_API gbt_status gbt_dataset_set_feature_types(gbt_dataset *d, const char *const *types,
                                                 uint64_t n);

/*
 * The type of each feature into types (n == ncol entries): pointers to
 * static strings, the spelling each was set with ("q", "c", "int",
 * "float", "i"; "q" for a dataset without types), as XGBoost keeps them.
 */
GBT_API gbt_status gbt_dataset_get_feature_types(const gbt_dataset *d, uint64_t n,
                                                 const char **types);

/*
 * Names the categories of the dataset's categorical features: json is a
 * JSON object of feature index (a decimal string) to that feature's
 * categories in code order (strings, numbers or bools: a value v of the
 * feature is category json[f][v]), as the Python package records a pandas
 * frame's categories and as a model keeps them (its attribute
 * "feature_categories", gbt_booster_read_data).  Each listed feature must
 * be categorical (gbt_dataset_set_feature_types first) and its categories
 * distinct; GBT_E_INVALID_ARG naming the problem otherwise.  json NULL
 * removes the names.  The dataset keeps a copy; gbt_dataset_save_binary
 * writes it and slices keep it; the values themselves are not changed.
 */
GBT_API gbt_status gbt_dataset_set_category_names(gbt_dataset *d, const char *json);

/*
 * The dataset's category names as set (pointing into the dataset, valid
 * until they change or the dataset is freed), or *json NULL when it has
 * none.
 */
GBT_API gbt_status gbt_dataset_get_category_names(const gbt_dataset *d, const char **json);

/*
 * A new dataset holding rows [begin, end) of d (0 <= begin <= end <= nrow;
 * begin == end gives a dataset of no rows): their features (dense or CSR
 * as in d), label, weight, base_margin (all of a row's values),
 * label_lower_bound and label_upper_bound, with d's columns, feature names,
 * feature types and LIBSVM index base, and the file and line each row came
 * from, so that messages about a row still name its place in the original
 * file.  When d has query groups the range must start and end on group
 * boundaries (GBT_E_INVALID_ARG naming the group cut otherwise) and the slice keeps
 * the groups inside it.  d is not changed; free the slice with
 * gbt_dataset_free.  This is how each rank of a distributed training
 * (gbt_booster_set_mpi_comm) takes its part of one dataset.
 */
GBT_API gbt_status gbt_dataset_slice_rows(const gbt_dataset *d, uint64_t begin, uint64_t end,
                                          gbt_dataset **out);

/*
 * The dataset's feature values, read-only, pointing into the dataset (valid
 * until it is freed): a dense dataset gives *dense (nrow * ncol row-major
 * floats, NaN for missing) and NULL for the CSR arrays with *nnz 0; a
 * sparse one gives *dense NULL and its CSR arrays: *indptr (nrow + 1
 * offsets), *indices and *values (*nnz entries each, columns ascending
 * within a row, absent entries missing).  Any out pointer may be NULL.
 * Together with gbt_dataset_get_field, _get_groups, _get_feature_names and
 * _get_feature_types this is everything a dataset holds (what
 * gbt_dataset_save_binary writes out).
 */
GBT_API gbt_status gbt_dataset_get_data(const gbt_dataset *d, const float **dense,
                                        const uint64_t **indptr, const uint32_t **indices,
                                        const float **values, uint64_t *nnz);

/* The number of rows and columns (features). */
GBT_API gbt_status gbt_dataset_shape(const gbt_dataset *d, uint64_t *nrow, uint64_t *ncol);

/*
 * A dataset from batches (XGBoost's DataIter and QuantileDMatrix): the
 * caller's `next` callback fills one batch at a time, from any source, into
 * the gbt_batch handle it is given (valid only during that call), and returns 1, or 0 when there are no
 * more batches (a negative value is a failure: GBT_E_INVALID_ARG naming the
 * batch); `reset` (returning 0, or non-zero on failure) starts the batches
 * again from the first.  gbt_dataset_from_iter calls reset, then next until
 * it returns 0, twice: the first pass gathers each feature's distinct
 * values and their weights batch by batch, merged exactly as distributed
 * training merges those of its processes, so the bin cuts are those of all
 * the rows together; the second pass bins each batch.  It never holds
 * more than one batch of feature values: the dataset keeps the binned
 * matrix (max_bin, 2 to 65535, as the booster's parameter) and the per-row
 * fields (labels, weights, base margins, label bounds, groups), and a
 * training on it with that max_bin gives the model bytes of the same rows
 * in one dataset, on the CPU and on CUDA.  A weighted dataset whose
 * weights span more than about 2^(39 - log2 rows) takes a third pass, so
 * that its fixed-point weights are those of the in-memory binning.
 *
 * In a batch, gbt_batch_set_dense or gbt_batch_set_csr (as
 * gbt_dataset_from_dense / _from_csr, copied) comes first; then
 * gbt_batch_set_field ("label", "weight", "base_margin",
 * "label_lower_bound", "label_upper_bound"), gbt_batch_set_groups and
 * gbt_batch_set_feature_types, as the gbt_dataset calls of those names
 * (feature_weights and feature names are set on the dataset built).  Every
 * batch must have the same columns, the same fields and feature types as
 * the first, and each pass the same rows; an error names the batch (from
 * 0).  The dataset built holds no feature values: prediction and
 * evaluation by a model whose split thresholds are not its cuts (the
 * training data itself is evaluated from the training state's scores; for
 * a validation set, bin it with gbt_dataset_from_iter_ref), slicing,
 * gbt_dataset_get_data and gbt_dataset_save_binary on it, a training with
 * another max_bin, continued training from a model with
 * trees, distributed training (but of datasets made by
 * gbt_dataset_from_iter_mpi) and changes of its weights or feature types
 * are refused with GBT_E_INVALID_ARG (docs/external-memory.md).  The
 * batches are not written to disk: this is the in-memory binned matrix
 * made without the raw floats.
 *
 * gbt_dataset_from_iter_ext with a cache_prefix (XGBoost's DataIter
 * cache_prefix; NULL: gbt_dataset_from_iter) keeps the binned matrix on
 * disk instead: the second pass writes each batch's binned rows as one
 * page of a new file, "<cache_prefix>-gbt-<pid>-<n>.pages" (a prefix
 * ending in '/' is a folder: no '-'), created so that it never replaces a
 * file (GBT_E_IO naming the path when it cannot be created or written),
 * each page with a header (its rows, layout, a hash of the cuts, the
 * dataset's own number) and a CRC-32, and removed by gbt_dataset_free
 * (once no booster's training on it still reads them).  A training on
 * the CPU streams the pages, one in memory at a time, reading them in
 * order for each batch of nodes; on CUDA it reads them back whole.  Every
 * page read is checked: a page of another dataset or of other cuts
 * (stale), cut short or with a wrong checksum (corrupt) fails the
 * training with GBT_E_FORMAT naming the file, the page and the fault.
 * The model is gbt_dataset_from_iter's, byte for byte
 * (docs/external-memory.md).
 */
typedef struct gbt_batch gbt_batch;
typedef int (*gbt_iter_next_fn)(void *user, gbt_batch *batch);
typedef int (*gbt_iter_reset_fn)(void *user);
GBT_API gbt_status gbt_dataset_from_iter(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user,
                                         int max_bin, gbt_dataset **out);
GBT_API gbt_status gbt_dataset_from_iter_ext(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user,
                                             int max_bin, const char *cache_prefix, gbt_dataset **out);
/*
 * A dataset from batches binned with the cuts of another dataset, ref (XGBoost's
 * QuantileDMatrix(it, ref=dtrain)): the cuts are those a training on ref
 * with max_bin uses (ref's kept binned matrix when it has one for max_bin,
 * else ref is binned now and keeps it, so that its training does not bin
 * again), so no pass gathers values: each batch is binned as it comes, in
 * one pass (reset, then next until it returns 0), and the dataset keeps
 * the codes and the per-row fields as gbt_dataset_from_iter's does.  Every
 * split threshold of a model trained on ref is then a boundary of its
 * bins, so evaluation (an entry of gbt_booster_train's evals) and
 * prediction (values, margins, leaf ids, SHAP values) route its rows
 * exactly as they would route the rows' values, on the CPU and on CUDA
 * (they check that every threshold of the trees used is one of the
 * dataset's cuts, and refuse with GBT_E_INVALID_ARG when one is not).
 * The dataset has ref's features: dense batches a column for each,
 * sparse ones no more columns than ref; a categorical feature (as ref's,
 * which the batches' feature types must match) may only hold ref's
 * categories, and a value of a feature that ref has none of is read as
 * missing where ref is sparse.
 */
GBT_API gbt_status gbt_dataset_from_iter_ref(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user,
                                             const gbt_dataset *ref, int max_bin, gbt_dataset **out);
GBT_API gbt_status gbt_batch_set_dense(gbt_batch *b, const float *data, uint64_t nrow, uint64_t ncol,
                                       float missing);
GBT_API gbt_status gbt_batch_set_csr(gbt_batch *b, const uint64_t *indptr, const uint32_t *indices,
                                     const float *values, uint64_t nrow, uint64_t ncol);
GBT_API gbt_status gbt_batch_set_field(gbt_batch *b, const char *field, const float *values, uint64_t n);
GBT_API gbt_status gbt_batch_set_groups(gbt_batch *b, const uint32_t *sizes, uint64_t ngroups);
GBT_API gbt_status gbt_batch_set_feature_types(gbt_batch *b, const char *const *types, uint64_t n);

/*
 * A data file read in batches through gbt_dataset_from_iter: path and
 * options as gbt_dataset_from_file's (a CSV, TSV or LIBSVM text file; a
 * URI's "#CACHE" is the cache prefix of gbt_dataset_from_iter_ext: the
 * binned matrix kept in pages on disk), the file read a batch of about batch_bytes of its text at a
 * time (an option: batch_bytes=N, default 33554432), so that its feature
 * values are never all in memory.  The dataset built is
 * gbt_dataset_from_iter's with max_bin (what it cannot do, it cannot do),
 * and a training on it gives the model of gbt_dataset_from_file's dataset
 * of the same file, byte for byte.  The file is read twice (a LIBSVM file
 * three times: first for its width and index base), so it must be a
 * regular file.  Errors are gbt_dataset_from_file's, naming the file and
 * line.  Side files: as gbt_dataset_from_file's (PATH.weight is held
 * whole, 4 bytes a row).  LIBSVM qid: a query may go on across the
 * batches' boundaries (the groups are those of the file read whole).  Not
 * read in batches (GBT_E_INVALID_ARG): binary dataset files and category
 * names (category_names=1); categorical features are declared with the
 * option feature_types=qc.. (their values category numbers).
 */
GBT_API gbt_status gbt_dataset_from_file_iter(const char *path, const char *options, int max_bin,
                                              gbt_dataset **out);
/*
 * The same file binned with ref's cuts (gbt_dataset_from_iter_ref's
 * dataset, read in one pass; a LIBSVM file in two): a validation file.
 */
GBT_API gbt_status gbt_dataset_from_file_iter_ref(const char *path, const char *options, const gbt_dataset *ref,
                                                  int max_bin, gbt_dataset **out);

/*
 * A data file read a batch at a time, as gbt_dataset_from_file_iter reads
 * it (path, options and errors alike; a LIBSVM file is read once first,
 * for its width and index base), each batch handed out as a dataset of its
 * rows with their feature values and labels: gbt_file_batches_next gives
 * the next one (the caller frees it), or *batch NULL after the last, so a
 * prediction holds one batch at a time.  Side files are not read.  The
 * first batch has the file's feature names.
 */
typedef struct gbt_file_batches gbt_file_batches;
GBT_API gbt_status gbt_file_batches_open(const char *path, const char *options, gbt_file_batches **out);
GBT_API gbt_status gbt_file_batches_next(gbt_file_batches *r, gbt_dataset **batch);
GBT_API void gbt_file_batches_close(gbt_file_batches *r);

/*
 * gbt_dataset_from_iter and gbt_dataset_from_file_iter over the MPI
 * communicator *mpi_comm (as gbt_booster_set_mpi_comm takes it: the
 * address of an MPI_Comm, NULL for MPI_COMM_WORLD), for distributed
 * training: every rank calls it at once with its own batches (its own
 * file), and the bin cuts are those of every rank's rows together (each
 * rank's distinct values merged over the ranks, as distributed training
 * merges those of datasets with feature values), with which each rank bins
 * its own batches.  A training under a booster on that communicator
 * (gbt_booster_set_mpi_comm), each rank on the dataset it made here, gives
 * the model one process trains on all the ranks' rows in rank order, byte
 * for byte; such a dataset is refused by a training on one process alone
 * (its cuts are not its rows'), and a dataset made by
 * gbt_dataset_from_iter alone is refused by distributed training.  Each
 * rank needs at least one row.  An error on one rank (a bad batch, batches
 * of another width) ends the call on every rank with that rank's error,
 * its message prefixed by "rank R: ".  GBT_E_INVALID_ARG when the library
 * was built without MPI.
 */
GBT_API gbt_status gbt_dataset_from_iter_mpi(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user,
                                             int max_bin, const void *mpi_comm, gbt_dataset **out);
GBT_API gbt_status gbt_dataset_from_file_iter_mpi(const char *path, const char *options, int max_bin,
                                                  const void *mpi_comm, gbt_dataset **out);
/*
 * gbt_dataset_from_iter_mpi with each rank's binned rows in pages on disk
 * under cache_prefix (gbt_dataset_from_iter_ext's; NULL: in memory): each
 * rank writes its own page file (named with its process id).
 */
GBT_API gbt_status gbt_dataset_from_iter_ext_mpi(gbt_iter_next_fn next, gbt_iter_reset_fn reset, void *user,
                                                 int max_bin, const char *cache_prefix, const void *mpi_comm,
                                                 gbt_dataset **out);

/*
 * Frees the dataset and what it keeps: its data, fields, names and its
 * binned data.  The first training on a dataset computes the bin cuts and
 * the binned matrix (one byte per cell when max_bin <= 256, else two; four
 * bytes per present value for sparse data) and keeps them with the
 * dataset: later trainings with the same max_bin reuse them (the same model
 * bytes, no binning; logged at verbosity 3).  gbt_dataset_set_field of
 * "weight" drops them (binning reads the weights), as does a training with
 * another max_bin (one binning is kept at a time); labels, base margins,
 * label bounds, groups and feature names keep them.  A booster still
 * training on the dataset holds its own reference: the memory goes when
 * both the dataset and that training state are gone.  With device=cuda the
 * binning runs on the GPU and gives the same bytes as on the CPU, so the
 * kept binning serves boosters on either device.
 */
GBT_API void gbt_dataset_free(gbt_dataset *d);

/* ------------------------------------------------------------------ */
/* Boosters                                                            */
/* ------------------------------------------------------------------ */

typedef struct gbt_booster gbt_booster;

/* A new booster with every parameter at its default. */
GBT_API gbt_status gbt_booster_create(gbt_booster **out);

/*
 * Sets parameter `name` (or one of its aliases; '-' and '_' are the same)
 * to `value`, given as text.  An unknown name, a value of the wrong type or
 * out of range is GBT_E_PARAM with a message that names the parameter, its
 * range and, for an unknown name, the closest valid one.  On failure the
 * booster is unchanged.  `eval_metric` accumulates: each call adds metrics
 * (a comma-separated list is allowed); an empty value clears the list.
 * Parameters that define the model (objective, num_class, base_score)
 * cannot change once the booster has trees (GBT_E_STATE).
 * monotone_constraints ("(1,0,-1)", "[1,0,-1]" or "{age:1,income:-1}") and
 * interaction_constraints ("[[0,1],[2,3,4]]", indices or names) are text
 * (at most 16383 bytes): their form and values are checked here, their
 * length and names against the training data when training starts, each
 * error naming the parameter.
 */
GBT_API gbt_status gbt_booster_set_param(gbt_booster *b, const char *name, const char *value);

/*
 * The current value of a parameter as text, written to buf (at most buflen
 * bytes with the NUL; GBT_E_INVALID_ARG if it does not fit).
 */
GBT_API gbt_status gbt_booster_get_param(const gbt_booster *b, const char *name, char *buf,
                                         size_t buflen);

/*
 * Read-only facts about a booster, as text in buf:
 *   "device"          the device of the last training: "cpu" or "cuda:N"
 *   "best_iteration"  the best round (0-based) that early stopping recorded
 *   "best_score"      its score (the watched metric's value)
 *   "num_feature"     the number of features the model was trained on
 *   "num_trees"       the number of trees (rounds times the classes times
 *                     num_parallel_tree)
 *   "num_target"      the labels per row the model was trained on: its
 *                     targets (XGBoost's num_target), 1 unless multi-target
 *   "base_score"      the model's intercept as XGBoost's model file and
 *                     save_config give it, one value per output (target,
 *                     class or quantile): "[5E-1]", "[1E0,-2.5E0]"; a
 *                     probability for the logistic objectives but
 *                     binary:logitraw (0 or 1 at its bounds 1e-6 and
 *                     1 - 1e-6), a mean for the log-link ones, else the
 *                     raw score (multiclass: the classes' raw scores)
 *   "training_file"   how the file the model was last trained on was laid
 *                     out, as gbt_dataset_from_file's options:
 *                     "format=libsvm", or "format=csv,header=1,label_column=30"
 *                     (format=tsv; ",delimiter=;" after the format for
 *                     another delimiter); training on data from memory
 *                     leaves it as it was.  gbpredict reads CSV/TSV files
 *                     this way unless its flags say otherwise
 * GBT_E_STATE when the fact is not known (no training yet, no early stopping,
 * no training file: data from memory, or a model saved before gbt
 * recorded it).  Any other key reads a user attribute set by
 * gbt_booster_set_attr (GBT_E_INVALID_ARG, an unknown attribute, when
 * there is none of that name).
 */
GBT_API gbt_status gbt_booster_get_attr(const gbt_booster *b, const char *key, char *buf,
                                        size_t buflen);

/*
 * Sets the model's user attribute `key` to `value` (XGBoost's
 * Booster.set_attr): UTF-8 text kept with the model, saved in its model
 * file ("attributes") and in the XGBoost JSON export (learner attributes),
 * copied by slicing; value NULL removes it.  The fact names of
 * gbt_booster_get_attr cannot be set (GBT_E_INVALID_ARG).  The Python
 * package keeps pandas category names in "feature_categories".
 */
GBT_API gbt_status gbt_booster_set_attr(gbt_booster *b, const char *key, const char *value);

/*
 * The user attributes as a JSON object of strings, {"key": "value", ...}
 * in the order each key was first set ({} when there are none); free
 * *json with gbt_free.
 */
GBT_API gbt_status gbt_booster_attributes(const gbt_booster *b, char **json);

/*
 * lambdarank_unbiased: the position biases the booster's training has
 * estimated so far (XGBoost's "ti+" and "tj-" of save_config): *npos
 * positions (the first rows of each query in the order given), ti_plus[i]
 * and tj_minus[i] for i < min(*npos, cap) (either may be NULL), 1 for every
 * position before the first round, position 0 always 1.  *npos is 0 when
 * the booster holds no such training (lambdarank_unbiased off, not trained
 * in this process, or its training state dropped by a change of the data
 * or parameters; as in XGBoost, the biases are estimated afresh by each
 * training that starts).
 */
GBT_API gbt_status gbt_booster_rank_position_bias(const gbt_booster *b, double *ti_plus, double *tj_minus,
                                                  uint32_t cap, uint32_t *npos);

/*
 * Trains one more boosting round on `train`, which must have labels.  The
 * first round on a dataset bins it (max_bin) and sets up the device; later
 * rounds on the same, unchanged dataset reuse that work.  With device=auto,
 * a CUDA device that cannot take the training (too little free memory, an
 * architecture this build has no kernels for) is logged as a warning and
 * the training runs on the CPU: the same model, and the "device" attribute
 * says "cpu".  Before the set-up allocates anything, its memory estimate
 * (with the node histograms' pool of histogram_pool_size MB full) is
 * compared with what the device may use: on the CPU the physical memory
 * and the process's address-space and data limits (GBT_E_NO_MEMORY), on
 * CUDA the free memory (GBT_E_DEVICE); the message gives both numbers and
 * the pool's size.  With booster=gblinear a round is one pass of XGBoost's
 * coordinate descent over the raw feature values (no binning; a dataset
 * from gbt_dataset_from_iter is refused), on the CPU: device=cuda is
 * refused (GBT_E_PARAM), device=auto trains on the CPU; training over MPI
 * (gbt_booster_set_mpi_comm) is refused too (GBT_E_PARAM).  With
 * process_type=update a round grows no tree: the first sets the model's
 * trees aside, and round r updates the trees of the model's round r with
 * `updater` (refresh, prune or refresh,prune), on the host, and appends
 * them; a round past the model's last is GBT_E_PARAM (XGBoost's).
 */
GBT_API gbt_status gbt_booster_update(gbt_booster *b, const gbt_dataset *train);

/*
 * Trains num_rounds rounds: the training driver, the one loop behind
 * gbtrain and the Python package's train, cv and fit.  After each round
 * every metric of `eval_metric` (or the objective's default, then the
 * custom metric's values of gbt_booster_set_eval_callback) is computed on each
 * validation set, and the round's line, "[R]\tNAME-METRIC:VALUE..." (six
 * decimals; R counts the model's rounds from 0), is logged at GBT_LOG_INFO
 * with the time elapsed and left; valid_names label the sets (NULL:
 * "valid0", "valid1", ...).  Then the round callback
 * (gbt_booster_set_round_callback) and the hook (gbt_booster_set_train_hook)
 * run.  Early stopping (early_stopping_rounds > 0, or
 * gbt_booster_set_early_stopping) watches the last metric on the last
 * validation set unless told otherwise: a round improves on the best one
 * when its value is better by more than min_delta (default 0), and each
 * new best round is recorded at once as the model's best_iteration and
 * best_score (gbt_booster_get_attr; saved in the model file and the
 * XGBoost JSON export); training stops once `rounds` rounds passed without
 * improvement.  Every round trained stays in the model, as in XGBoost
 * 3.2: predict with rounds 0..best_iteration through
 * gbt_booster_predict_rounds (end best_iteration + 1), or ask for the old
 * cut with save_best (gbt_booster_set_early_stopping).  On failure the
 * booster keeps the rounds that completed.  The training set may be one of
 * the validation sets (its metrics each round, as gbtrain prints them
 * without --valid).
 */
GBT_API gbt_status gbt_booster_train(gbt_booster *b, const gbt_dataset *train, int num_rounds,
                                     const gbt_dataset *const *valid,
                                     const char *const *valid_names, int num_valid);

/*
 * Cross validation through the same driver: nfold boosters train round by
 * round, fold f on train[f], and are evaluated each round on their
 * num_valid sets valid[f * num_valid + i] (named valid_names[i]).  The
 * values the log line shows, the hook receives and early stopping watches
 * are the means over the folds (summed in fold order), with the population
 * standard deviations beside them (the line shows "MEAN+STD" when
 * show_stdv is non-zero).  The settings of folds[0] rule the training:
 * early stopping, its round callback, hook and stop requests; every fold
 * records the best round of the means, and keeps rounds 0..best only with
 * save_best.
 * gbt_booster_train(b, ...) is this with one fold.  Not under a
 * communicator (GBT_E_INVALID_ARG).
 */
GBT_API gbt_status gbt_booster_train_folds(gbt_booster *const *folds, int nfold,
                                           const gbt_dataset *const *train, int num_rounds,
                                           const gbt_dataset *const *valid,
                                           const char *const *valid_names, int num_valid,
                                           int show_stdv);

/*
 * The per-round hook of gbt_booster_train and gbt_booster_train_folds:
 * called once after each round, after the round's line is logged and the
 * round callback ran, with
 *   iteration       the round just trained (the model's rounds - 1)
 *   mean, std       count = num_valid x metric count values, set by set,
 *                   in the order of gbt_booster_metric_describe: the
 *                   round's metrics (std all 0 with one booster; over the
 *                   folds' values for gbt_booster_train_folds)
 *   line            the round's log line without the times, or NULL when
 *                   there was no memory for it
 *   best_iteration, best_score   the best round so far of the value early
 *                   stopping watches (-1 and NaN without validation sets
 *                   or metrics)
 *   early_stop      1 when early stopping ends the training after this
 *                   round
 * It returns 0 to go on, non-zero to stop after this round
 * (gbt_booster_train then returns GBT_OK with the rounds done; an early
 * stop in the same round still takes effect); under a communicator
 * (gbt_booster_set_mpi_comm) a stop on any rank stops every rank after
 * this round.  The arrays and the line
 * live until fn returns.  fn may set b's parameters (learning_rate for the
 * next rounds) and read or save its model; it must not train, cut or free
 * it.  Python's callbacks run here.
 */
typedef int (*gbt_train_hook_fn)(gbt_booster *b, int iteration, const double *mean, const double *std,
                                 int count, const char *line, int best_iteration, double best_score,
                                 int early_stop, void *user);

/* Sets the per-round hook (NULL: none); `user` is passed to fn.  Not saved with the model. */
GBT_API gbt_status gbt_booster_set_train_hook(gbt_booster *b, gbt_train_hook_fn fn, void *user);

/*
 * How gbt_booster_train stops early, as XGBoost's EarlyStopping callback:
 *   rounds       rounds without improvement before stopping; -1: the
 *                early_stopping_rounds parameter; 0: no early stopping
 *   data_name    the validation set to watch (NULL: the last)
 *   metric_name  the metric to watch (NULL: the last; a custom metric by
 *                the name it has after its first call)
 *   maximize     1 when higher is better, 0 when lower, -1: the metric's own
 *   min_delta    an improvement must be larger than this (>= 0)
 *   save_best    non-zero: when the training ends (an early stop, the
 *                last round, a stop asked for; not a failure) only rounds
 *                0..best_iteration stay, as with XGBoost's
 *                EarlyStopping(save_best=True) (gbt's early stopping
 *                always cut so before); 0 (the default): every round stays.
 *                best_iteration and best_score are recorded either way
 * A name that matches no set or metric fails the training
 * (GBT_E_INVALID_ARG, listing those there are): the set at its start, the
 * metric after the first round.  With these set, early stopping without a
 * validation set is GBT_E_INVALID_ARG.  gbt_booster_set_early_stopping(b,
 * -1, NULL, NULL, -1, 0, 0) restores the defaults.  Not saved with the
 * model.
 */
GBT_API gbt_status gbt_booster_set_early_stopping(gbt_booster *b, int rounds, const char *data_name,
                                                  const char *metric_name, int maximize,
                                                  double min_delta, int save_best);

/*
 * Computes `metric` ("auc", "logloss", "error", "rmse", "mae", "mlogloss",
 * "merror"; "error@T" sets the threshold; "cox-nloglik", "aft-nloglik",
 * "interval-regression-accuracy" for survival data) of the model's
 * predictions on d, which must have labels (or, for the AFT metrics,
 * label_lower_bound and label_upper_bound).
 */
GBT_API gbt_status gbt_booster_eval(const gbt_booster *b, const gbt_dataset *d,
                                    const char *metric, double *out);

/*
 * Custom objectives: one boosting round from the caller's gradients, as
 * XGBoost's XGBoosterBoostOneIter.  grad and hess hold len = nrow x
 * outputs doubles, row-major (outputs: num_class for multiclass
 * objectives, else 1), the first and second derivatives of the caller's
 * loss at the current raw scores (gbt_booster_train_margins), weights
 * included: they are used as given, except that rows left out by
 * `subsample` get 0.  The `objective` parameter still fixes base_score,
 * the prediction transform and the default metric.  The values are
 * quantised exactly as the built-in objectives' are, so the same gradients
 * give the same model on every device and thread count, and a built-in
 * objective's own gradients (e.g. reg:squarederror's g = margin - label,
 * h = 1) give that objective's model, byte for byte.  GBT_E_INVALID_ARG
 * for a wrong len or a value that is not finite (naming the first).
 *
 *   double *m = malloc(n * sizeof *m), *g = malloc(...), *h = malloc(...);
 *   for (int round = 0; round < 100; round++) {
 *       gbt_booster_train_margins(b, train, m, n);
 *       for (uint64_t i = 0; i < n; i++) { g[i] = m[i] - y[i]; h[i] = 1.0; }
 *       gbt_booster_boost(b, train, g, h, n);
 *   }
 */
GBT_API gbt_status gbt_booster_boost(gbt_booster *b, const gbt_dataset *train, const double *grad,
                                     const double *hess, uint64_t len);

/*
 * The current raw scores of every row of `train` (len = nrow x outputs
 * doubles, row-major): the model's trees summed from base_score or the
 * base margin, exactly the values the next round's gradients are computed
 * from (gbt_booster_predict gives them rounded to float).  Sets up
 * training on `train` as gbt_booster_update does, if it is not yet.
 * With booster=dart the next round's dropped trees are drawn first and
 * left out (each kept tree times its weight), as XGBoost's
 * predict(training=True) gives them: the margins that round's gradients
 * must come from.
 */
GBT_API gbt_status gbt_booster_train_margins(gbt_booster *b, const gbt_dataset *train,
                                             double *out, uint64_t len);

/*
 * A custom objective: fn receives the raw scores `margin` (nrow x outputs
 * doubles, row-major, as gbt_booster_train_margins gives them) of the
 * training rows of `data`, writes the gradients and hessians of its loss
 * at them to grad and hess (nrow x outputs each, row-major, weights
 * included) and returns 0, or returns non-zero to stop the training with
 * GBT_E_INVALID_ARG.
 */
typedef int (*gbt_objective_fn)(const double *margin, uint64_t nrow, int outputs,
                                const gbt_dataset *data, void *user, double *grad, double *hess);

/*
 * Makes gbt_booster_update and gbt_booster_train boost from fn's gradients
 * (each round as gbt_booster_boost does) instead of the objective's, as
 * XGBoost's train(obj=...); with gbt_booster_set_eval_callback and
 * validation sets, early stopping works as with built-in objectives.  fn
 * NULL goes back to the objective's gradients.  Not saved with the model.
 */
GBT_API gbt_status gbt_booster_set_objective_callback(gbt_booster *b, gbt_objective_fn fn,
                                                      void *user);

/*
 * A custom metric: fn computes its value from the raw scores `margin`
 * (nrow x outputs doubles, row-major; apply the objective's transform
 * yourself, e.g. exp for survival:cox) of the rows of `data` (read its
 * labels with gbt_dataset_get_field), stores it in *out and returns 0, or
 * returns non-zero to stop the training with GBT_E_INVALID_ARG.  A metric
 * of several values (gbt_booster_set_eval_names) stores them in
 * out[0 .. count); out has room for GBT_MAX_CUSTOM_METRICS.
 */
typedef int (*gbt_eval_fn)(const double *margin, uint64_t nrow, int outputs,
                           const gbt_dataset *data, void *user, double *out);

/*
 * Adds a custom metric to gbt_booster_train: after each round it is
 * computed on every validation set after the eval_metric ones, logged as
 * NAME, and, being the last metric, decides early stopping (maximize: 1
 * when higher is better, 0 when lower, -1 to decide by the name: as the
 * built-in metric of that name, else higher for names starting with auc,
 * aucpr, pre, map or ndcg, as XGBoost decides).  fn NULL removes it.
 * `name` is copied (at most 63 characters); `user` is passed to fn.  fn
 * may call this function again with the same fn to rename the metric (a
 * metric that tells its name with its first value): the round's line and
 * the hook use the new name; gbt_booster_set_eval_names gives it several
 * values.  Not saved with the model.
 */
GBT_API gbt_status gbt_booster_set_eval_callback(gbt_booster *b, const char *name, gbt_eval_fn fn,
                                                 void *user, int maximize);

/* The most values one custom metric reports (gbt_booster_set_eval_names). */
#define GBT_MAX_CUSTOM_METRICS 16

/*
 * Makes the custom metric report `count` values (1 to
 * GBT_MAX_CUSTOM_METRICS) named names[0 .. count) (each 1 to 63
 * characters): its fn computes them in one call per set and round and
 * stores them in out[0 .. count), as XGBoost's custom metric that returns
 * a list of (name, value) pairs.  Evaluations (gbt_booster_train's line,
 * its hook, gbt_booster_metric_describe, gbt_booster_eval_round) list them
 * in this order after the eval_metric ones; early stopping watches the last
 * unless its metric_name picks another; each is maximised as `maximize` of
 * gbt_booster_set_eval_callback says, or when that is -1 as decided by its
 * own name.  fn may call this on its first call, when it knows its names (a
 * metric that tells them with its values, as Python's do): that round's
 * values and the later ones are taken by the new names, on every set; a
 * count that then changes during a training fails it (GBT_E_STATE).
 * gbt_booster_set_eval_callback makes it one value again.  GBT_E_STATE
 * without a custom metric, GBT_E_INVALID_ARG for a bad count or name.
 */
GBT_API gbt_status gbt_booster_set_eval_names(gbt_booster *b, int count, const char *const *names);

/*
 * Called by gbt_booster_train after each round, once the round's line is
 * logged (before the hook, and before an early stop cuts the model), with
 * `rounds` the rounds the model has now (its trees, as
 * gbt_booster_num_rounds says):
 * fn may save the model (a checkpoint, as gbtrain --save_period does),
 * and returns 0 to go on, non-zero to stop the training there
 * (gbt_booster_train then returns GBT_OK).  fn must not change b.
 */
typedef int (*gbt_round_fn)(const gbt_booster *b, int rounds, void *user);

/* Sets the round callback (NULL: none); `user` is passed to fn.  Not saved with the model. */
GBT_API gbt_status gbt_booster_set_round_callback(gbt_booster *b, gbt_round_fn fn, void *user);

/*
 * Asks gbt_booster_train to stop once the round in progress is finished:
 * it returns GBT_OK with the model of the rounds done (logging "stopped
 * on request after N rounds"), and the request is spent.  A request made
 * while no training runs stops the next gbt_booster_train before its
 * first round; one made during a training that then ends by itself (its
 * last round, an early stop, the hook's stop) is spent with it.  Safe to call from a signal handler (it only sets an
 * atomic flag) and from any thread: gbtrain's SIGINT/SIGTERM handler
 * calls it, so Ctrl-C keeps the finished rounds.  Under a communicator
 * (gbt_booster_set_mpi_comm), a request on any rank stops every rank
 * after the same round.  GBT_E_INVALID_ARG for a NULL b.
 */
GBT_API gbt_status gbt_booster_request_stop(gbt_booster *b);

/*
 * The metrics an evaluation of this booster reports, in order: those of
 * `eval_metric`, or when it is empty the objective's default (rmse for
 * reg:squarederror, logloss for binary:logistic, mlogloss for multi:*,
 * ndcg@32 for rank:ndcg and rank:pairwise, map@32 for rank:map,
 * cox-nloglik for survival:cox, aft-nloglik for survival:aft, ...; the
 * table in README.md; none with disable_default_eval_metric=true), then
 * the custom metric of gbt_booster_set_eval_callback if one is set (as
 * many as it has values: gbt_booster_set_eval_names).  They
 * follow the parameters (objective, eval_metric, tweedie_variance_power,
 * lambdarank_pair_method), not the model: a booster without trees has
 * them too.  gbt_booster_metric_count gives their number (0 or more).
 */
GBT_API gbt_status gbt_booster_metric_count(const gbt_booster *b, int *out);

/*
 * Metric i (0 <= i < gbt_booster_metric_count()): its name, as logged
 * and as eval_metric takes it ("ndcg@32", "error@0.7"), written to name (at
 * most len bytes with the NUL; GBT_E_INVALID_ARG if it does not fit), and
 * *maximize: 1 when higher is better (auc, aucpr, ndcg, map, pre,
 * interval-regression-accuracy; a custom metric as it was set), 0 when
 * lower is.  name and maximize may be NULL.
 */
GBT_API gbt_status gbt_booster_metric_describe(const gbt_booster *b, int i, char *name, size_t len,
                                               int *maximize);

/*
 * Computes every metric of gbt_booster_metric_count (in that order) on d,
 * which must have labels, into out[0 .. count), as gbt_booster_train
 * computes them on a validation set after each round: the same values,
 * bit for bit.  The booster keeps d's raw scores between calls (for up to
 * 16 datasets, the least recently used giving way), so that after a round
 * the next call adds only the trees trained since: a loop of
 * gbt_booster_update and gbt_booster_eval_round costs per round the new
 * trees, not the whole model.  d is known by its address and its contents:
 * a changed dataset (a new field, label or base_margin) or a model that
 * lost rounds (gbt_booster_keep_rounds) is scored from scratch.  Release
 * what is kept with gbt_booster_eval_forget (or gbt_booster_free).  len
 * less than the count is GBT_E_INVALID_ARG, also after the call when a
 * custom metric named more values in it (give it room for
 * GBT_MAX_CUSTOM_METRICS); no model is GBT_E_STATE.
 */
GBT_API gbt_status gbt_booster_eval_round(gbt_booster *b, const gbt_dataset *d, double *out, int len);

/*
 * Releases the raw scores gbt_booster_eval_round keeps of d (d NULL:
 * of every dataset).  Call it before freeing a dataset that the booster
 * will outlive, to give the memory back at once; it is never required for
 * correctness (a dataset created later at the same address is recognised
 * as another).
 */
GBT_API gbt_status gbt_booster_eval_forget(gbt_booster *b, const gbt_dataset *d);

/*
 * Records round `iteration` (0 <= iteration < the number of rounds) with
 * its score as the model's best_iteration and best_score, as early
 * stopping does (gbt_booster_get_attr reads them; gbt_booster_save writes
 * them); -1 removes the record.  The model's trees do not change.
 */
GBT_API gbt_status gbt_booster_set_best(gbt_booster *b, int iteration, double score);

/*
 * Keeps the first `rounds` rounds of the model (0 <= rounds <= the number
 * of rounds) and drops the others, in place, as early stopping does; a
 * best_iteration past them is removed.  The next training round on any
 * data sets training up again (binning, the raw scores of the kept
 * trees).  gbt_booster_slice makes a new booster of any range instead.
 */
GBT_API gbt_status gbt_booster_keep_rounds(gbt_booster *b, int rounds);

/*
 * Applies the objective's prediction transform to raw scores: margin
 * holds nrow x K doubles, row-major (K outputs: num_class for the
 * multiclass objectives, else 1, as gbt_booster_train_margins and the
 * callbacks give them) and out receives what gbt_booster_predict would
 * give for rows with those raw scores (out_len >= gbt_booster_predict_size
 * of nrow rows): probabilities for binary:logistic, a class for
 * multi:softmax, exp for count:poisson, ...  For a custom metric that
 * wants predictions rather than raw scores.
 */
GBT_API gbt_status gbt_booster_transform(const gbt_booster *b, const double *margin, uint64_t nrow,
                                         float *out, uint64_t out_len);

/*
 * Distributed training by rows (a gbt built with MPI: "mpi": true in
 * gbt_build_info).  Puts the booster on the MPI communicator *mpi_comm
 * (the address of an MPI_Comm, so that this header needs no MPI types;
 * NULL for MPI_COMM_WORLD), which the library duplicates; call it after
 * MPI_Init, on every rank.  Each rank then trains on its own part of the
 * rows, calling the training functions in the same order with the same
 * parameters: the ranks' datasets, in rank order, make up the whole
 * training set (a rank may hold no rows), and the same holds for each
 * validation set.  Every rank ends with the same model, byte for byte the
 * model one process trains on all the rows: bin cuts, starting scores,
 * gradient scales, histograms, sampling, metrics and early stopping are
 * computed over all rows (with row weights, the bin cuts are the same as
 * long as the summed weight of each distinct value is exact in double
 * precision, docs/distributed.md).  A query group must not straddle two
 * ranks.  An error on one rank (bad data, no memory, parameters or feature counts
 * that differ between ranks) ends the call on every rank with that rank's
 * error, its message prefixed by "rank R: ".  Prediction and evaluation
 * stay local: gbt_booster_predict and gbt_booster_eval see the calling
 * rank's rows.
 *
 * A custom objective (gbt_booster_set_objective_callback, gbt_booster_boost)
 * gives the gradients of the calling process's rows; a custom metric
 * (gbt_booster_set_eval_callback) would see only those rows, so it is
 * refused under a communicator (GBT_E_PARAM).  device=cuda without a
 * number takes GPU (local rank mod GPUs): the processes of one machine
 * share its GPUs in turn.
 * GBT_E_INVALID_ARG when the library was built without MPI, GBT_E_STATE
 * when MPI is not initialised.
 */
GBT_API gbt_status gbt_booster_set_mpi_comm(gbt_booster *b, const void *mpi_comm);

/* The number of boosting rounds the model holds. */
GBT_API gbt_status gbt_booster_num_rounds(const gbt_booster *b, int *out);

/*
 * The model's feature names, one per feature (num_feature of them, in
 * *n): those of the data it was trained on (a CSV header,
 * gbt_dataset_set_feature_names) or, for features without one, "f0",
 * "f1", ... by column number (as for LIBSVM data).  *names is a new array
 * of *n pointers to NUL-terminated strings, held with the strings in one
 * block: release it with gbt_free(*names).
 *
 * Feature names are checked whenever the model meets data that has names
 * too: gbt_booster_predict, gbt_booster_eval, validation sets and further
 * training refuse data whose names differ from the model's
 * (GBT_E_INVALID_ARG, naming the first feature that differs), unless the
 * booster parameter validate_features is 0.  Data without names (a dense
 * matrix, CSR, LIBSVM, CSV without header) and models without names are
 * not compared.
 */
GBT_API gbt_status gbt_booster_feature_names(const gbt_booster *b, char ***names, uint64_t *n);

/*
 * The type of each of the model's features into types (n == num_feature
 * entries): pointers to static strings, the spellings of the training
 * data's feature types (gbt_dataset_set_feature_types: "q", "c", "int",
 * "float", "i"; "q" for a feature the data gave no type), as XGBoost's
 * model keeps them.  GBT_E_STATE without a model, GBT_E_INVALID_ARG for
 * another n.
 */
GBT_API gbt_status gbt_booster_feature_types(const gbt_booster *b, uint64_t n, const char **types);

/*
 * Renames the model's features (XGBoost's Booster.feature_names setter):
 * n == num_feature names, checked as gbt_dataset_set_feature_names checks
 * them, replace the model's; n == 0 (names may be NULL) drops them, so the
 * features are "f0", "f1", ... again.  Saved models keep the new names,
 * and data with names is then checked against them.  GBT_E_STATE without
 * a model; GBT_E_INVALID_ARG for another count or a bad name (the model
 * is unchanged).
 */
GBT_API gbt_status gbt_booster_set_feature_names(gbt_booster *b, const char *const *names, uint64_t n);

/*
 * Feature importance, one value per feature into out (len >= num_feature;
 * features beyond it are not written), as XGBoost defines it over every
 * split of every tree:
 *   "weight"       the number of splits on the feature
 *   "total_gain"   the sum of those splits' gains (loss reductions)
 *   "total_cover"  the sum of their covers (hessian sums of the training
 *                  rows that reached them)
 *   "gain"         total_gain / weight: the average gain of a split on it
 *   "cover"        total_cover / weight
 * A feature no tree splits on gets 0.  Sums run in tree and node order, in
 * double over the float gains and covers of the model file.  A linear
 * model (booster=gblinear) has "weight" only: its coefficients, as
 * XGBoost's get_score (one output only; GBT_E_INVALID_ARG otherwise).
 */
GBT_API gbt_status gbt_booster_feature_importance(const gbt_booster *b, const char *type, double *out,
                                                  uint64_t len);

/*
 * The trees as text in a new NUL-terminated buffer (*len bytes; free it
 * with gbt_free()).  tree is a tree's index (0 <= tree < the number of
 * trees: num_rounds * classes, round r's tree of class k at r * classes +
 * k; with num_parallel_tree P, num_rounds * P * classes, round r's
 * parallel tree p of class k at (r * P + p) * classes + k), or -1 for
 * every tree.  Features appear by name (gbt_booster_feature_names).
 * format:
 *   "text"  XGBoost's text dump: "booster[T]:" then one line per node,
 *           depth first with the "yes" child first, indented by one tab a
 *           level: "0:[age<30.5] yes=1,no=2,missing=1" (a row whose value
 *           is below the threshold goes to yes, a missing value to
 *           missing) and "1:leaf=0.25"; with_stats adds ",gain=G,cover=C"
 *           to splits and ",cover=C" to leaves
 *   "json"  a JSON array of trees, XGBoost's dump_format=json: nested
 *           nodes {"nodeid", "depth", "split", "split_condition", "yes",
 *           "no", "missing", ["gain", "cover",] "children": [...]} and
 *           leaves {"nodeid", "leaf"[, "cover"]}
 *   "dot"   a Graphviz digraph (boxes for splits, ellipses for leaves,
 *           blue "yes" and red "no" edges, "missing" on the side missing
 *           values take); every tree in a cluster of its own when tree is
 *           -1.  `dot -Tpng` renders it.
 * Numbers are written with the fewest digits that read back to the same float.
 * A linear model (booster=gblinear; tree 0 or -1) dumps as XGBoost's
 * linear dump: "bias:" and "weight:" lines (text) or {"bias": [...],
 * "weight": [...]} in an array (json), the weights feature by feature,
 * output by output, 6 significant digits; it has no "dot" graph.
 */
GBT_API gbt_status gbt_booster_dump(const gbt_booster *b, const char *format, int tree, int with_stats,
                                    char **out, size_t *len);

/*
 * A new booster (*out; free it with gbt_booster_free) holding rounds
 * [begin, end) of b: every tree of those rounds, b's starting
 * scores, feature names and parameters, and its best_iteration when that
 * round is in the range (renumbered from begin).  0 <= begin < end <=
 * the number of rounds, else GBT_E_INVALID_ARG.  Its predictions are the
 * starting scores plus the trees of those rounds.  Training it adds rounds
 * after them (see gbt_booster_update).  A linear model (booster=gblinear)
 * cannot be sliced (GBT_E_INVALID_ARG): its rounds are one set of weights.
 */
GBT_API gbt_status gbt_booster_slice(const gbt_booster *b, int begin, int end, gbt_booster **out);

/*
 * As gbt_booster_slice, with rounds begin, begin + step, begin + 2 step,
 * ... below end (XGBoost's booster[begin:end:step]); step >= 1, else
 * GBT_E_INVALID_ARG.  best_iteration is kept when it is one of those
 * rounds (renumbered).  Step 1 is gbt_booster_slice.
 */
GBT_API gbt_status gbt_booster_slice_step(const gbt_booster *b, int begin, int end, int step, gbt_booster **out);

/*
 * Prediction flags.  At most one of LEAF, CONTRIBS and INTERACTIONS;
 * MARGIN changes nothing with them (they are always in raw-score space).
 * K below is the number of raw scores per row: num_class for the
 * multiclass objectives, the number of quantile_alpha values for
 * reg:quantileerror, the targets of a multi-target model (labels of T
 * values per row, gbt_dataset_set_field), else 1; F is the model's number
 * of features.  A multi-target model's "classes" below are its targets.
 * The outputs are XGBoost's pred_leaf, pred_contribs and
 * pred_interactions, in its layout.
 *
 * GBT_PREDICT_LEAF: per row, one float per tree in model order (a round
 *   has K trees, class k's tree at k; with num_parallel_tree P, P * K
 *   trees, parallel tree p of class k at p * K + k): the id of the leaf the row reaches,
 *   as XGBoost numbers nodes: the node's index in the tree's arrays of the
 *   model JSON (docs/model-format.md), the root 0.
 * GBT_PREDICT_CONTRIBS: per row, K blocks (class by class) of F + 1 floats:
 *   the exact SHAP value of each feature (TreeSHAP, Lundberg et al. 2018,
 *   over the conditional expectation in which a node splitting on an
 *   unknown feature averages its children weighted by their cover, the
 *   hessian sum of the training rows that reached them), then the bias
 *   term: the row's starting score (base_margin, or the model's base
 *   score) plus each tree's expected value.  A block sums to the raw score
 *   of its class (up to float rounding).  A linear model (booster=gblinear)
 *   gives XGBoost's linear contributions instead: x * w of each present
 *   feature (0 where missing), then the bias plus the starting score; it
 *   has no leaf ids or interaction values (GBT_E_INVALID_ARG).
 * GBT_PREDICT_INTERACTIONS: per row, K blocks of (F + 1) x (F + 1) floats,
 *   row-major: the SHAP interaction values of features i and j (i != j,
 *   symmetric), on the diagonal each feature's main effect; row i of a
 *   block sums to feature i's SHAP value, the last row and column are the
 *   bias term's (0 but for the corner, the bias itself).  Its cost grows
 *   with (F + 1)^2 floats per row and two walks of a tree per feature it
 *   splits on.
 * GBT_PREDICT_APPROX, with GBT_PREDICT_CONTRIBS or GBT_PREDICT_INTERACTIONS
 *   only (else GBT_E_INVALID_ARG): XGBoost's approx_contribs, Saabas'
 *   approximation in the same layout: in each tree the bias term gets the
 *   root's expected value (the cover-weighted mean of its leaves) and each
 *   split on the row's path gives its feature the change of the expected
 *   value from the node to the child the row takes.  A block sums to the
 *   raw score as the SHAP values do; one walk of each tree per row.  With
 *   GBT_PREDICT_INTERACTIONS, as XGBoost's approximate interactions: each
 *   block is the diagonal matrix of those contributions (the approximation
 *   does not condition on a feature, so no interaction is seen).
 *
 * Unlike the other outputs, these three allocate working memory per call
 * (the trees in the form they walk, and per thread the row's values and
 * the walk's state); they are computed on the CUDA device as the other
 * predictions are (below), with the same bits.
 */
#define GBT_PREDICT_MARGIN 1u       /* raw scores, before the objective's transform */
#define GBT_PREDICT_LEAF 2u         /* leaf ids, one per tree */
#define GBT_PREDICT_CONTRIBS 4u     /* SHAP values and the bias term */
#define GBT_PREDICT_INTERACTIONS 8u /* SHAP interaction values */
#define GBT_PREDICT_APPROX 16u      /* with CONTRIBS or INTERACTIONS: Saabas' approximation (approx_contribs) */

/*
 * The number of floats a prediction of nrow rows writes: nrow * num_class
 * for multi:softprob (and for any multiclass objective with
 * GBT_PREDICT_MARGIN), nrow otherwise; with GBT_PREDICT_LEAF nrow times
 * the number of trees, with GBT_PREDICT_CONTRIBS nrow * K * (F + 1), with
 * GBT_PREDICT_INTERACTIONS nrow * K * (F + 1)^2 (see the flags above).
 * GBT_E_INVALID_ARG for unknown or conflicting flags, and when that many
 * floats would not fit in memory's address range (the product overflows).
 */
GBT_API gbt_status gbt_booster_predict_size(const gbt_booster *b, uint64_t nrow, unsigned flags,
                                            uint64_t *out_len);

/*
 * As gbt_booster_predict_size, for a prediction from the rounds
 * [round_begin, round_end) only (see gbt_booster_predict_rounds): with
 * GBT_PREDICT_LEAF the row holds K * (round_end - round_begin) floats.
 */
GBT_API gbt_status gbt_booster_predict_size_rounds(const gbt_booster *b, uint64_t nrow, unsigned flags,
                                                   int round_begin, int round_end, uint64_t *out_len);

/*
 * Reads a data file for the model b, as gbt_dataset_from_file does, except
 * that in a CSV/TSV file the columns of the features for which the model
 * keeps category names (its attribute "feature_categories": feature index
 * to the categories in code order, as the Python package records a pandas
 * training frame's categories and as XGBoost's cats.enc is read) hold
 * category names: each field is its category's code, the position of the
 * name in the model's list, as the Python package codes a DataFrame.  A
 * field that is a number matches a number category of the same value
 * ("5.0" is category 5); "True"/"False" match bool categories.  A name the
 * model does not list (a category unseen in training) gets the code one
 * past the list, which no training row had: its rows go where any unseen
 * category goes (docs/decisions.md); empty, "NA" and "nan" fields are
 * missing.  A binary dataset that names its categories
 * (gbt_dataset_set_category_names: saved from a DataFrame) holds codes of
 * its own lists: GBT_E_INVALID_ARG unless each list is the model's, code
 * for code.  gbpredict reads its DATA_FILE with this, gbtrain its
 * validation files.  GBT_E_FORMAT when the attribute is not such a list.
 */
GBT_API gbt_status gbt_booster_read_data(const gbt_booster *b, const char *path, const char *options,
                                         gbt_dataset **out);

/*
 * Predicts every row of d into out (row-major, out_len floats, which must
 * be at least gbt_booster_predict_size()).  Dense data (gbt_dataset_from_dense,
 * CSV, TSV) must have exactly the model's number of features, NaN where a
 * value is missing; sparse data (CSR, LIBSVM) may have fewer (the others
 * are missing) but not more.  Other counts are GBT_E_INVALID_ARG; the same
 * holds for gbt_booster_eval and validation sets.  Safe to call from many
 * threads at once on one booster; the result does not depend on the thread
 * count.  No memory is allocated per call on the CPU (but for the
 * outputs of GBT_PREDICT_LEAF, _CONTRIBS and _INTERACTIONS).  When the
 * booster's `device` parameter resolves to a CUDA device (cuda, cuda:N, or
 * auto with a GPU present), batches of 1024 rows or more are walked there, with
 * device buffers of the call's own, and give the same bits (smaller ones
 * run faster on the CPU); device=cuda without a usable device is
 * GBT_E_NO_DEVICE.  With device=auto, a failure on the GPU (too little
 * free memory, a busy device) is logged as a warning and the rows are
 * walked on the CPU instead, with the same result.
 */
GBT_API gbt_status gbt_booster_predict(const gbt_booster *b, const gbt_dataset *d,
                                       unsigned flags, float *out, uint64_t out_len);

/* As gbt_booster_predict, for a row-major dense matrix (see gbt_dataset_from_dense). */
GBT_API gbt_status gbt_booster_predict_dense(const gbt_booster *b, const float *data,
                                             uint64_t nrow, uint64_t ncol, float missing,
                                             unsigned flags, float *out, uint64_t out_len);

/*
 * As gbt_booster_predict, with the trees of the rounds [round_begin,
 * round_end) only, XGBoost's iteration_range: every row still starts from
 * its base_margin or the model's base score, so predicting [0, k) gives
 * what a model trained for k rounds gives.  round_end 0 means up to the
 * last round (so (0, 0) is the whole model); otherwise 0 <= round_begin <=
 * round_end <= the number of rounds (gbt_booster_num_rounds), else
 * GBT_E_INVALID_ARG.  An empty range predicts the starting scores.  out
 * holds gbt_booster_predict_size_rounds() floats.  Safe from many threads
 * as gbt_booster_predict is (the booster is not changed).
 */
GBT_API gbt_status gbt_booster_predict_rounds(const gbt_booster *b, const gbt_dataset *d, unsigned flags,
                                              int round_begin, int round_end, float *out,
                                              uint64_t out_len);

/* As gbt_booster_predict_rounds, for a row-major dense matrix (see gbt_dataset_from_dense). */
GBT_API gbt_status gbt_booster_predict_dense_rounds(const gbt_booster *b, const float *data,
                                                    uint64_t nrow, uint64_t ncol, float missing,
                                                    unsigned flags, int round_begin, int round_end,
                                                    float *out, uint64_t out_len);

/*
 * Saves the model as JSON (docs/model-format.md).  A regular file (or a
 * new path) is written to a temporary file in the same directory, synced,
 * renamed over `path`, and the directory synced, so a failure never
 * leaves a partial file nor destroys an existing one, and a power loss
 * after the call leaves the new file (docs/reliability.md).  A symbolic
 * link is followed: the file it names is replaced that way and the link
 * stays; a dangling link or a link loop is GBT_E_IO.  A character device,
 * FIFO or socket (or a link to one) is written in place, never replaced;
 * /dev/stdout, /dev/stderr and /dev/fd/N write the process's open
 * descriptor.  "-" is an ordinary file name here (the tools read it as
 * standard output).  A directory is GBT_E_IO.  Every write error is
 * GBT_E_IO naming the path.
 */
GBT_API gbt_status gbt_booster_save(const gbt_booster *b, const char *path);

/*
 * Saves the model in XGBoost's JSON model format (the schema XGBoost 2.x and
 * 3.x load: xgboost.Booster(model_file=path); docs/model-format.md), to
 * `path` by gbt_booster_save's rules.  XGBoost 3.1 and later predict the
 * same raw scores to float precision (XGBoost sums in float).  A model
 * trained on one-based LIBSVM data numbers its features from 1 there, as
 * XGBoost reads that file.  An objective XGBoost has no JSON form for is
 * GBT_E_INVALID_ARG naming it; nothing is written then.
 */
GBT_API gbt_status gbt_booster_save_xgboost(const gbt_booster *b, const char *path);

/*
 * The model formats gbt writes: gbt's JSON (gbt_booster_save), XGBoost's
 * JSON (gbt_booster_save_xgboost), and the same XGBoost document in UBJSON
 * (Universal Binary JSON, XGBoost's default .ubj format: what
 * xgboost.Booster.save_model("m.ubj") and save_raw() write, and what
 * xgboost.Booster(model_file="m.ubj") loads).  gbt_booster_load and
 * gbt_booster_load_from_buffer read all three, telling them by their
 * first bytes.
 */
#define GBT_MODEL_GBT 0
#define GBT_MODEL_XGBOOST 1
#define GBT_MODEL_XGBOOST_UBJ 2

/*
 * Saves the model in `format` (GBT_MODEL_*) to path by gbt_booster_save's
 * rules; GBT_E_INVALID_ARG for an unknown format (nothing is written).
 */
GBT_API gbt_status gbt_booster_save_format(const gbt_booster *b, const char *path, int format);

/*
 * Loads a model saved by gbt_booster_save, or an XGBoost JSON or UBJSON
 * (.ubj) model (a gbtree booster with an objective gbt has: it predicts what XGBoost
 * predicts, to float precision); the booster
 * gets default training parameters (for an XGBoost model, its objective's
 * parameters).  The JSON must be RFC 8259's exactly (numbers by its
 * grammar: no leading zeros, '+' or bare '.'; strings valid UTF-8); an error
 * names the file, the line and the byte offset (a UBJSON model's: the
 * offset in its bytes; a count or length larger than the bytes left can
 * hold is refused before anything is allocated for it).  Counts are checked
 * against the limits: num_feature at most 16777215 (2^24 - 1), num_class
 * at most 4096.  Reading stops with GBT_E_FORMAT at the first byte that no
 * model holds (a control character other than tab, CR and LF: /dev/zero
 * and binary files but UBJSON are refused at once) or past 2 GiB; the memory a load
 * takes follows the model (about 70 bytes a tree node), not its text.
 */
GBT_API gbt_status gbt_booster_load(const char *path, gbt_booster **out);

/* The model as JSON in a new buffer (*len bytes, NUL-terminated); free it with gbt_free(). */
GBT_API gbt_status gbt_booster_save_to_buffer(const gbt_booster *b, char **buf, size_t *len);

/*
 * The model in `format` (GBT_MODEL_*) in a new buffer (*len bytes, and a
 * NUL after them); free it with gbt_free().
 */
GBT_API gbt_status gbt_booster_save_to_buffer_format(const gbt_booster *b, int format, char **buf, size_t *len);

/* Loads a model from len bytes of JSON or UBJSON (as gbt_booster_load reads files). */
GBT_API gbt_status gbt_booster_load_from_buffer(const char *buf, size_t len, gbt_booster **out);

GBT_API void gbt_booster_free(gbt_booster *b);

#ifdef __cplusplus
}
#endif

#endif /* GBT_H */
