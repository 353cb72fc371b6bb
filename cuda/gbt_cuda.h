/*
 * gbt_cuda.h - the C interface of the CUDA backend's .cu files.
 *
 * Plain C: cuda/backend_cuda.c includes it, and so does every .cu file
 * (inside extern "C").  No CUDA header or type appears here.
 *
 * Every call returns 0 (GBT_OK) or a gbt_status value and, on failure,
 * writes a NUL-terminated message of at most GBT_CU_MSG bytes to `msg`:
 * the CUDA call or kernel, where, and the CUDA error string.  Nothing here
 * throws, aborts or exits.  Every call leaves the calling thread's current
 * CUDA device (cudaGetDevice) as it found it, so that a host program working
 * on another GPU (PyTorch, CuPy) is not moved.
 *
 * Each context owns one CUDA stream; the operations enqueue their work on
 * it and return without waiting, except those that hand results back to
 * the host (gbt_cu_gradients, gbt_cu_set_gradients, gbt_cu_best_splits and the gbt_cu_read_*
 * calls), which wait for the stream once.
 *
 * Test hooks, read by gbt_cu_open:
 * - GBT_CUDA_FAKE_FREE_BYTES=N: take N bytes as the device's free memory,
 *   so that the "does not fit" path (GBT_E_DEVICE) can be tested on a real
 *   GPU (gbt_cu_quantize sizes its batches by it too);
 * - GBT_CUDA_HIST_SMEM_BYTES=N: give histogram blocks at most N bytes of
 *   shared memory, so that small tests exercise several feature groups and
 *   the global-memory path.
 * Read by gbt_cu_quantize:
 * - GBT_CUDA_QUANT_ROWS=N: bin at most N rows per batch, so that small
 *   tests exercise the batches that data larger than the device's free
 *   memory takes.
 * - GBT_CUDA_QUANT_MAX_PAIRS=N: take N, instead of INT32_MAX / 2, as the
 *   most values one sort of device binning takes (a batch's values and the
 *   distinct values kept from the batches before), so that tests reach the
 *   error of data with too many distinct values.
 */
#ifndef GBT_CUDA_H
#define GBT_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "common/shap_math.h"
#include "model/predict.h"

#define GBT_CU_MSG 512

/* The environment variables of the test hooks described above. */
#define GBT_CUDA_FAKE_FREE_ENV "GBT_CUDA_FAKE_FREE_BYTES"
#define GBT_CUDA_HIST_SMEM_ENV "GBT_CUDA_HIST_SMEM_BYTES"
#define GBT_CUDA_QUANT_ROWS_ENV "GBT_CUDA_QUANT_ROWS"
#define GBT_CUDA_QUANT_MAX_PAIRS_ENV "GBT_CUDA_QUANT_MAX_PAIRS"

struct gbt_cu_ctx;

/* The number of CUDA devices; 0 when there is no driver or no GPU (never fails). */
int gbt_cu_device_count(void);
/*
 * Why gbt_cu_device_count() is 0: the CUDA runtime's error text and name,
 * e.g. "CUDA driver version is insufficient for CUDA runtime version
 * (cudaErrorInsufficientDriver)"; NULL when counting succeeded.
 */
const char *gbt_cu_device_error(void);

/*
 * Name, compute capability and memory of device `ordinal`.  Asking for
 * free_bytes creates the device's primary CUDA context in this process if
 * it has none (CUDA reports free memory only through a context, which then
 * stays until the process ends and holds some device memory).
 */
int gbt_cu_describe(int ordinal, char *name, size_t name_len, int *cc_major, int *cc_minor,
                    uint64_t *total_bytes, uint64_t *free_bytes, char *msg);

/*
 * Sets up training on device `ordinal`: checks that the estimated memory
 * (every buffer rounded up as the device allocates it, plus room for the
 * runtime) fits the free memory (GBT_E_DEVICE otherwise, naming both); the
 * feature mask staging exists only without plan->no_column_sampling.  Then
 * allocates, uploads the binned matrix, labels, weights and starting
 * margins.  usable[f]: feature f can split (gbt__feature_usable), with its
 * monotone constraint in the GBT_FEAT_ bits (common/constraint_math.h).  math:
 * the host's values of gbt_math_check_value (cuda/math_check.h), which the
 * device must reproduce bit for bit (GBT_E_DEVICE naming the function and
 * both values otherwise).  On failure nothing stays allocated.
 */
int gbt_cu_open(int ordinal, const struct gbt_train_plan *plan, const uint8_t *usable,
                const double *math, struct gbt_cu_ctx **out, char *msg);
void gbt_cu_close(struct gbt_cu_ctx *c);

int gbt_cu_gradients(struct gbt_cu_ctx *c, const struct gbt_grad_request *req,
                     struct gbt_class_sums *out, char *msg);
/*
 * Quantises gradients computed on the host: g and h hold nrow * K doubles,
 * class-major (class k's at k * nrow), copied to the device before the
 * call returns (the copies are synchronous for pageable memory and the
 * call waits for the stream).
 */
int gbt_cu_set_gradients(struct gbt_cu_ctx *c, const double *g, const double *h,
                         const struct gbt_max_hook *hook, struct gbt_class_sums *out, char *msg);
/* Replaces a histogram slot's bins (distributed training: every process's sums). */
int gbt_cu_write_histogram(struct gbt_cu_ctx *c, int slot, const struct gbt_hbin *in, char *msg);
int gbt_cu_begin_tree(struct gbt_cu_ctx *c, int cls, char *msg);
int gbt_cu_histograms(struct gbt_cu_ctx *c, const struct gbt_hist_job *jobs, int n, char *msg);
/*
 * With categorical features, sets receives n sets of gbt__cuts_cat_words
 * words (job j's: the bins that go right when out[j].is_cat, else zeros).
 */
int gbt_cu_best_splits(struct gbt_cu_ctx *c, const struct gbt_split_job *jobs, int n,
                       const uint8_t *masks, const struct gbt_split_params *p,
                       struct gbt_split *out, uint32_t *sets, char *msg);
int gbt_cu_partition(struct gbt_cu_ctx *c, const struct gbt_partition_job *jobs, int n, char *msg);
int gbt_cu_finish_tree(struct gbt_cu_ctx *c, const struct gbt_leaf *leaves, int n, char *msg);
int gbt_cu_read_margins(struct gbt_cu_ctx *c, double *out, char *msg);
int gbt_cu_write_margins(struct gbt_cu_ctx *c, const double *in, char *msg);
int gbt_cu_read_rows(struct gbt_cu_ctx *c, uint32_t *rows, uint64_t *node_begin, uint64_t *node_count,
                     char *msg);
int gbt_cu_read_histogram(struct gbt_cu_ctx *c, int slot, struct gbt_hbin *out, char *msg);
int gbt_cu_read_gradients(struct gbt_cu_ctx *c, int cls, struct gbt_gpair *out, char *msg);

/*
 * Raw scores of trees [t0, t1) of f (t0 a multiple of K) for every row of v, on device
 * `ordinal`, into margin_out (v->nrow * K, row-major): each row starts from
 * its base_margin (when v has one) or base[k] and adds the trees' leaf
 * values in tree order, as gbt__forest_predict does.  Uses its own stream
 * and device buffers, so concurrent calls are safe.
 */
int gbt_cu_predict_margins(int ordinal, const struct gbt_forest *f, uint32_t t0, uint32_t t1, int K,
                           const double *base, const struct gbt_dview *v, double *margin_out,
                           char *msg);

/*
 * Leaf ids, SHAP values or SHAP interaction values (kind: enum
 * gbt_explain_kind) of the forest f for nrow rows of f->nfeat values (x,
 * NaN: missing) starting from base (nrow * K) into out (cuda/shap.cu): the
 * functions of common/shap_math.h, a thread per row.  Own stream and
 * buffers, as gbt_cu_predict_margins.
 */
int gbt_cu_predict_explain(int ordinal, const struct gbt_shap_forest *f, int kind, const float *x,
                           const double *base, uint64_t nrow, float *out, char *msg);

/* The raw data of a binning on the device (a dataset's, host memory). */
struct gbt_cu_qinput {
    uint64_t nrow, ncol, nnz;
    const float *dense;      /* nrow * ncol, NaN missing; or NULL: the CSR arrays */
    const uint64_t *indptr;  /* nrow + 1 */
    const uint32_t *indices; /* nnz, ascending within a row */
    const float *values;     /* nnz, none NaN */
    const float *weight;     /* nrow, or NULL for all 1 */
    const uint8_t *is_cat;   /* ncol: 1 for a categorical feature (one bin per category); NULL for none */
    int max_bin;
    int layout;              /* gbt__qm_layout's */
    double max_weight;       /* gbt__max_weight's */
};

/*
 * Bin cuts and the binned matrix of `in` computed on device `ordinal`
 * (cuda/quantize.cu), equal byte for byte to gbt__quantize's, into out
 * (host memory, gbt__qmatrix_free).  Rows go in batches that fit the free
 * device memory; the distinct values of each feature (12 bytes each) must
 * fit it too (GBT_E_DEVICE naming the bytes otherwise).  On failure out is
 * empty.
 */
int gbt_cu_quantize(int ordinal, const struct gbt_cu_qinput *in, struct gbt_qmatrix *out, char *msg);

#endif
