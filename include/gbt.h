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
 * Limits: fewer than 2^32 rows and 2^24 features per dataset.
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

/* Frees memory returned by the library (gbt_booster_save_to_buffer). */
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
 * only NaN is missing).  Infinite values are refused (GBT_E_FORMAT).
 */
GBT_API gbt_status gbt_dataset_from_dense(const float *data, uint64_t nrow, uint64_t ncol,
                                          float missing, gbt_dataset **out);

/*
 * A dataset from a compressed sparse row matrix, copied: row i holds the
 * entries indptr[i] .. indptr[i+1]-1 of `indices` (column numbers, < ncol)
 * and `values`.  Absent entries and NaN values are missing.  Columns within
 * a row may come in any order but must not repeat.
 */
GBT_API gbt_status gbt_dataset_from_csr(const uint64_t *indptr, const uint32_t *indices,
                                        const float *values, uint64_t nrow, uint64_t ncol,
                                        gbt_dataset **out);

/*
 * A dataset read from a text file, streamed (the text is never held in
 * memory whole: it passes through a window of 8 MiB per thread, 64 MiB at
 * most) and parsed
 * by blocks of lines in parallel.  Numbers read exactly as strtof reads
 * them in the C locale.  `options` is NULL or a comma-separated list:
 *   format=libsvm|csv|tsv   default: guessed from the first data line
 *   label_column=N          CSV/TSV column of the label (default 0);
 *                           -1 means the file has no label column;
 *                           auto (with features=N) decides from the first
 *                           data line: N fields have no label, N + 1 have
 *                           it first, any other count is an error
 *   features=N              the feature columns expected (label_column=auto)
 *   header=0|1              CSV/TSV: skip a first line of column names
 *   missing=V               CSV/TSV: this value also means missing
 *   side_files=0|1          read PATH.weight, PATH.base_margin and
 *                           PATH.group (or PATH.query) when present
 *                           (default 1)
 *   indexing_mode=0|1|auto  LIBSVM: feature indices start at 0 (index i is
 *                           column i) or at 1 (index i is column i - 1);
 *                           auto (default, also -1): 0 when an index 0
 *                           appears in the file, else 1
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
 * CSV/TSV fields that are empty, "NA" or "nan" are missing.  Lines may end
 * in LF or CRLF.  Errors name the file and the line: the first bad line
 * in the file, whatever the thread count.
 */
GBT_API gbt_status gbt_dataset_from_file(const char *path, const char *options,
                                         gbt_dataset **out);

/*
 * Sets a per-row field, copying n floats:
 *   "label"        n == nrow; finite values
 *   "weight"       n == nrow; finite, >= 0
 *   "base_margin"  n == nrow or nrow * num_class (row-major); initial raw
 *                  scores used instead of base_score in training and
 *                  prediction
 * n == 0 with values == NULL removes the field.
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

/* The number of rows and columns (features). */
GBT_API gbt_status gbt_dataset_shape(const gbt_dataset *d, uint64_t *nrow, uint64_t *ncol);

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
 *   "best_iteration"  the best round (0-based) after early stopping
 *   "best_score"      its score
 *   "num_feature"     the number of features the model was trained on
 * GBT_E_STATE when the fact is not known (no training yet, no early stop).
 */
GBT_API gbt_status gbt_booster_get_attr(const gbt_booster *b, const char *key, char *buf,
                                        size_t buflen);

/*
 * Trains one more boosting round on `train`, which must have labels.  The
 * first round on a dataset bins it (max_bin) and sets up the device; later
 * rounds on the same, unchanged dataset reuse that work.  With device=auto,
 * a CUDA device that cannot take the training (too little free memory, an
 * architecture this build has no kernels for) is logged as a warning and
 * the training runs on the CPU: the same model, and the "device" attribute
 * says "cpu".
 */
GBT_API gbt_status gbt_booster_update(gbt_booster *b, const gbt_dataset *train);

/*
 * Trains num_rounds rounds.  After each round every metric of
 * `eval_metric` (or the objective's default) is computed on each
 * validation set and logged at GBT_LOG_INFO; valid_names label them
 * (NULL: "valid0", "valid1", ...).  With early_stopping_rounds > 0 and at
 * least one validation set, training stops when the last metric on the
 * last validation set has not improved for that many rounds, and the
 * rounds after the best one are removed: the booster then predicts with
 * the best round.  On failure the booster keeps the rounds that completed.
 * The training set may be one of the validation sets (its metrics each
 * round, as gbtrain prints them without --valid).
 */
GBT_API gbt_status gbt_booster_train(gbt_booster *b, const gbt_dataset *train, int num_rounds,
                                     const gbt_dataset *const *valid,
                                     const char *const *valid_names, int num_valid);

/*
 * Computes `metric` ("auc", "logloss", "error", "rmse", "mae", "mlogloss",
 * "merror"; "error@T" sets the threshold) of the model's predictions on d,
 * which must have labels.
 */
GBT_API gbt_status gbt_booster_eval(const gbt_booster *b, const gbt_dataset *d,
                                    const char *metric, double *out);

/* The number of boosting rounds the model holds. */
GBT_API gbt_status gbt_booster_num_rounds(const gbt_booster *b, int *out);

/* Prediction flags. */
#define GBT_PREDICT_MARGIN 1u /* raw scores, before the objective's transform */

/*
 * The number of floats a prediction of nrow rows writes: nrow * num_class
 * for multi:softprob (and for any multiclass objective with
 * GBT_PREDICT_MARGIN), nrow otherwise.  GBT_E_INVALID_ARG when that many
 * floats would not fit in memory's address range (the product overflows).
 */
GBT_API gbt_status gbt_booster_predict_size(const gbt_booster *b, uint64_t nrow, unsigned flags,
                                            uint64_t *out_len);

/*
 * Predicts every row of d into out (row-major, out_len floats, which must
 * be at least gbt_booster_predict_size()).  Dense data (gbt_dataset_from_dense,
 * CSV, TSV) must have exactly the model's number of features, NaN where a
 * value is missing; sparse data (CSR, LIBSVM) may have fewer (the others
 * are missing) but not more.  Other counts are GBT_E_INVALID_ARG; the same
 * holds for gbt_booster_eval and validation sets.  Safe to call from many
 * threads at once on one booster; the result does not depend on the thread
 * count.  No memory is allocated per call on the CPU.  When the booster's
 * `device` parameter resolves to a CUDA device (cuda, cuda:N, or auto with
 * a GPU present), batches of 1024 rows or more are walked there, with
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
 * Saves the model as JSON (docs/model-format.md).  The file is written to a
 * temporary file in the same directory and renamed over `path`, so a
 * failure never leaves a partial file nor destroys an existing one.
 */
GBT_API gbt_status gbt_booster_save(const gbt_booster *b, const char *path);

/*
 * Loads a model saved by gbt_booster_save; the booster gets default training
 * parameters.  Reading stops with GBT_E_FORMAT at the first byte that no
 * model holds (a control character other than tab, CR and LF: /dev/zero
 * and binary files are refused at once) or past 2 GiB; the memory a load
 * takes follows the model (about 70 bytes a tree node), not its text.
 */
GBT_API gbt_status gbt_booster_load(const char *path, gbt_booster **out);

/* The model as JSON in a new buffer (*len bytes, NUL-terminated); free it with gbt_free(). */
GBT_API gbt_status gbt_booster_save_to_buffer(const gbt_booster *b, char **buf, size_t *len);

/* Loads a model from len bytes of JSON. */
GBT_API gbt_status gbt_booster_load_from_buffer(const char *buf, size_t len, gbt_booster **out);

GBT_API void gbt_booster_free(gbt_booster *b);

#ifdef __cplusplus
}
#endif

#endif /* GBT_H */
