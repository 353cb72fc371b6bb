/*
 * quantize.cu - bin cuts and the binned matrix computed on the device, with
 * the host's rule (src/common/cuts.h), so that cuts and codes are the
 * host's (src/data/quantize.c) byte for byte.
 *
 * Rows go to the device in batches (all of them in one when they fit; the
 * GBT_CUDA_QUANT_ROWS test hook forces smaller ones).  Cuts, per batch:
 * each present value becomes a pair (order-preserving key, fixed-point
 * weight) in its feature's segment, after the distinct pairs of the
 * batches before; CUB's segmented radix sort orders each segment; a scan
 * of the run heads gives each distinct value its place, and its weight is
 * the integer sum of its run (atomics: exact in any order).  Those
 * distinct values and weights are all the cut rule reads.  After the last
 * batch: a scan of the weights gives every rank exactly, the first pruning
 * pass runs one thread per target (gbt_qprune_pick: binary searches on the
 * ranks), and one thread per feature runs the rest of gbt_cuts_of_feature
 * (small summaries), the host's function.  Codes: a second pass over the batches (the raw values of a
 * single batch stay on the device) searches each value's bin with
 * gbt_cut_bin, the host's search.  The host assembles the cuts' slots
 * (gbt__cuts_assemble) and receives the codes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include "cu_internal.cuh"

extern "C" {
#include "data/dataset.h"
#include "util/util.h"
}

using namespace gbt_cu;

namespace {

constexpr int QTHREADS = 256;

/* The raw values of one batch of rows, on the device. */
struct qbatch {
    uint64_t r0, nrow, nnz; /* rows [r0, r0 + nrow); CSR: its nnz entries */
    const float *dense;     /* nrow * ncol */
    const uint64_t *indptr; /* nrow + 1, rebased to 0 */
    const uint32_t *indices;
    const float *values;
    const float *weight;    /* nrow, or NULL */
};

/* The segment of position i: the last f < n with seg[f] <= i (seg ascending, seg[0] = 0). */
__device__ __forceinline__ int seg_find_int(const int *seg, uint32_t n, int i)
{
    int lo = 0, hi = (int)n - 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (seg[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Cell i of a batch: its feature, value and row; 0 when missing. */
__device__ __forceinline__ int batch_cell(const qbatch &b, uint32_t ncol, uint64_t i, uint32_t *f, float *v,
                                          uint64_t *r)
{
    if (b.dense) {
        *r = i / ncol;
        *f = (uint32_t)(i - *r * ncol);
        *v = b.dense[i];
        return !isnan(*v);
    }
    /* the row holding entry i: the last r with indptr[r] <= i */
    uint64_t lo = 0, hi = b.nrow - 1;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        if (b.indptr[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    *r = lo;
    *f = b.indices[i];
    *v = b.values[i];
    return 1;
}

__device__ __forceinline__ uint64_t batch_cells(const qbatch &b, uint32_t ncol)
{
    return b.dense ? b.nrow * ncol : b.nnz;
}

__global__ void __launch_bounds__(QTHREADS, 8)
    count_present(qbatch b, uint32_t ncol, unsigned long long *count)
{
    const uint64_t n = batch_cells(b, ncol);
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t f;
        float v;
        uint64_t r;
        if (batch_cell(b, ncol, i, &f, &v, &r)) atomicAdd(&count[f], 1ull);
    }
}

/* The batch's present values as (key, fixed-point weight) after each segment's first `kept` entries. */
__global__ void __launch_bounds__(QTHREADS, 8)
    scatter_pairs(qbatch b, uint32_t ncol, int shift, const int *seg, const int *kept,
                  unsigned *fill, uint32_t *key, unsigned long long *w)
{
    const uint64_t n = batch_cells(b, ncol);
    const unsigned long long one = gbt_weight_fixed(1.0f, shift);
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t f;
        float v;
        uint64_t r;
        if (!batch_cell(b, ncol, i, &f, &v, &r)) continue;
        const int at = seg[f] + kept[f] + (int)atomicAdd(&fill[f], 1u);
        key[at] = gbt_cut_key(v == 0.0f ? 0.0f : v);
        w[at] = b.weight ? gbt_weight_fixed(b.weight[r], shift) : one;
    }
}

/* The distinct pairs kept from earlier batches (feature f's at [aoff[f], aoff[f+1])) into their segments. */
__global__ void __launch_bounds__(QTHREADS, 8)
    place_kept(const uint32_t *akey, const unsigned long long *aw, const int *aoff, uint32_t ncol,
               const int *seg, uint32_t *key, unsigned long long *w)
{
    const int n = aoff[ncol];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int f = seg_find_int(aoff, ncol, i);
        const int at = seg[f] + (i - aoff[f]);
        key[at] = akey[i];
        w[at] = aw[i];
    }
}

/* 1 where a sorted entry starts a run of equal keys in its segment. */
__global__ void __launch_bounds__(QTHREADS, 8)
    run_heads(const uint32_t *key, const int *seg, uint32_t ncol, int n, int *head)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int f = seg_find_int(seg, ncol, i);
        head[i] = i == seg[f] || key[i] != key[i - 1];
    }
}

/* Each run's key and the integer sum of its weights (w_out zeroed) at its place. */
__global__ void __launch_bounds__(QTHREADS, 8)
    reduce_runs(const uint32_t *key, const unsigned long long *w, const int *head, const int *place,
                int n, uint32_t *key_out, unsigned long long *w_out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int at = place[i] + head[i] - 1;
        if (head[i]) key_out[at] = key[i];
        atomicAdd(&w_out[at], w[i]);
    }
}

/* Where each segment's distinct values begin: the places of the segments' starts. */
__global__ void __launch_bounds__(QTHREADS, 8)
    segment_places(const int *seg, const int *place, const int *head, uint32_t ncol, int n, int *aoff)
{
    for (uint32_t f = blockIdx.x * blockDim.x + threadIdx.x; f <= ncol; f += gridDim.x * blockDim.x)
        aoff[f] = seg[f] < n ? place[seg[f]] : (n > 0 ? place[n - 1] + head[n - 1] : 0);
}

/* The last f < n with off[f] <= i (off ascending, off[0] = 0). */
__device__ __forceinline__ uint32_t seg_find_u64(const unsigned long long *off, uint32_t n, unsigned long long i)
{
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo + 1) / 2;
        if (off[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/*
 * Each feature's rank prefix (common/cuts.h, gbt_cuts_prefix) from the
 * scan of every distinct weight: feature f's nd + 1 entries at aoff[f] + f.
 * A feature whose weights are all 0 counts them as 1 (unit1[f]), as the
 * host's gbt_cuts_of_feature does.
 */
__global__ void __launch_bounds__(QTHREADS, 8)
    feature_prefix(const unsigned long long *scan, const int *aoff, uint32_t ncol,
                   unsigned long long *pre, uint8_t *unit1)
{
    const int n = aoff[ncol] + (int)ncol;
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += gridDim.x * blockDim.x) {
        /* feature f owns [aoff[f] + f, aoff[f + 1] + f + 1) */
        int lo = 0, hi = (int)ncol - 1;
        while (lo < hi) {
            const int mid = lo + (hi - lo + 1) / 2;
            if (aoff[mid] + mid <= t)
                lo = mid;
            else
                hi = mid - 1;
        }
        const int f = lo, j = t - (aoff[f] + f);
        const unsigned long long base = scan[aoff[f]], total = scan[aoff[f + 1]] - base;
        pre[t] = total == 0 ? (unsigned long long)j : scan[aoff[f] + j] - base;
        if (j == 0) unit1[f] = total == 0;
    }
}

/* The first pruning pass, one thread per target (gbt_qprune_pick): feature f's at po[f] + k. */
__global__ void __launch_bounds__(QTHREADS, 5)
    first_pass_picks(const uint32_t *akey, const unsigned long long *pre, const int *aoff, uint32_t ncol,
                     const unsigned long long *count, const uint32_t *budget, const uint8_t *unit1,
                     double unit, const unsigned long long *po, long long *pick)
{
    const unsigned long long n = po[ncol];
    for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < n;
         t += (unsigned long long)gridDim.x * blockDim.x) {
        const uint32_t f = seg_find_u64(po, ncol, t);
        const size_t k = (size_t)(t - po[f]), nd = (size_t)(aoff[f + 1] - aoff[f]);
        const uint64_t limit = gbt_cuts_limit(count[f], budget[f]);
        pick[t] = k == 0 || k + 1 >= limit
                      ? -1
                      : gbt_qprune_pick(akey + aoff[f], (const uint64_t *)(pre + aoff[f] + f), nd,
                                        unit1[f] ? 1.0 : unit, (size_t)limit, k);
    }
}

/* The rest of the cut rule, one thread per feature (common/cuts.h). */
__global__ void __launch_bounds__(QTHREADS, 3)
    feature_cuts(const uint32_t *akey, unsigned long long *pre, const int *aoff, uint32_t ncol,
                 const unsigned long long *count, const uint32_t *budget, const uint8_t *unit1, double unit,
                 const unsigned long long *po, const long long *pick,
                 const unsigned long long *ea_off, const unsigned long long *eb_off,
                 struct gbt_qentry *ea, struct gbt_qentry *eb, const unsigned long long *cut_off,
                 float *cuts, uint32_t *nbins)
{
    for (uint32_t f = blockIdx.x * blockDim.x + threadIdx.x; f < ncol; f += gridDim.x * blockDim.x)
        nbins[f] = gbt_cuts_of_feature(akey + aoff[f], (uint64_t *)(pre + aoff[f] + f), (size_t)(aoff[f + 1] - aoff[f]),
                                       count[f], budget[f], unit1[f] ? 1.0 : unit, ea + ea_off[f], eb + eb_off[f],
                                       po[f + 1] > po[f] ? pick + po[f] : NULL, cuts + cut_off[f]);
}

/* Dense codes of a batch (its rows' nrow * ncol into c8 or c16), missing = nbins[f]. */
__global__ void __launch_bounds__(QTHREADS, 8)
    bin_dense_cells(qbatch b, uint32_t ncol, const uint32_t *offset, const uint32_t *nbins,
                    const float *cut, uint8_t *c8, uint16_t *c16)
{
    const uint64_t n = b.nrow * ncol;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t f = (uint32_t)(i % ncol);
        uint32_t code = nbins[f];
        if (b.dense && !isnan(b.dense[i])) code = gbt_cut_bin(cut + offset[f], nbins[f], b.dense[i]);
        if (c8)
            c8[i] = (uint8_t)code;
        else
            c16[i] = (uint16_t)code;
    }
}

/* CSR values into dense codes (after bin_dense_cells filled the missing codes). */
__global__ void __launch_bounds__(QTHREADS, 8)
    bin_csr_into_dense(qbatch b, uint32_t ncol, const uint32_t *offset, const uint32_t *nbins,
                       const float *cut, uint8_t *c8, uint16_t *c16)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < b.nnz; i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t f;
        float v;
        uint64_t r;
        (void)batch_cell(b, ncol, i, &f, &v, &r);
        const uint32_t code = gbt_cut_bin(cut + offset[f], nbins[f], v);
        if (c8)
            c8[r * ncol + f] = (uint8_t)code;
        else
            c16[r * ncol + f] = (uint16_t)code;
    }
}

/* CSR slots of CSR values. */
__global__ void __launch_bounds__(QTHREADS, 8)
    bin_csr_slots(qbatch b, uint32_t ncol, const uint32_t *offset, const uint32_t *nbins,
                  const float *cut, uint32_t *slots)
{
    (void)ncol;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < b.nnz; i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t f = b.indices[i];
        slots[i] = offset[f] + gbt_cut_bin(cut + offset[f], nbins[f], b.values[i]);
    }
}

/* Dense rows binned as CSR: present values per row, then (after a scan) each row's slots. */
__global__ void __launch_bounds__(QTHREADS, 8) row_present(qbatch b, uint32_t ncol, unsigned long long *rc)
{
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < b.nrow; r += (uint64_t)gridDim.x * blockDim.x) {
        unsigned long long k = 0;
        for (uint32_t f = 0; f < ncol; f++) k += !isnan(b.dense[r * ncol + f]);
        rc[r] = k;
    }
}

__global__ void __launch_bounds__(QTHREADS, 8)
    bin_dense_slots(qbatch b, uint32_t ncol, const uint32_t *offset, const uint32_t *nbins,
                    const float *cut, const unsigned long long *rp, uint32_t *slots)
{
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < b.nrow; r += (uint64_t)gridDim.x * blockDim.x) {
        unsigned long long k = rp[r];
        for (uint32_t f = 0; f < ncol; f++) {
            const float v = b.dense[r * ncol + f];
            if (!isnan(v)) slots[k++] = offset[f] + gbt_cut_bin(cut + offset[f], nbins[f], v);
        }
    }
}

/* Device buffers of one quantisation, freed together; grown ones (grow()) kept apart. */
struct qwork {
    int dev;
    cudaStream_t stream;
    int sm_count;
    void *allocs[40];
    int nallocs;
    void *grown[12];
};

#define QW_ALLOC(w, ptr, bytes, what)                                                                      \
    do {                                                                                                   \
        cudaError_t e_ = qmalloc((void **)&(ptr), (bytes));                               \
        if (e_ != cudaSuccess) {                                                                           \
            (void)cudaGetLastError();                                                                      \
            return failf(msg, GBT_E_DEVICE, "binning on cuda:%d: cannot allocate %zu bytes for %s (%s)", \
                         (w)->dev, (size_t)(bytes), what, cudaGetErrorString(e_));                         \
        }                                                                                                  \
        (w)->allocs[(w)->nallocs++] = (void *)(ptr);                                                       \
    } while (0)

/* cudaMalloc of at least one byte. */
cudaError_t qmalloc(void **p, size_t bytes)
{
    return cudaMalloc(p, bytes ? bytes : 1);
}

unsigned qgrid(const qwork *w, uint64_t items)
{
    uint64_t want = (items + QTHREADS - 1) / QTHREADS, cap = (uint64_t)w->sm_count * 8u;
    if (want > cap) want = cap;
    return want < 1 ? 1u : (unsigned)want;
}

void qwork_free(qwork *w)
{
    if (w->stream) (void)cudaStreamSynchronize(w->stream);
    for (int i = 0; i < w->nallocs; i++) (void)cudaFree(w->allocs[i]);
    for (int i = 0; i < 12; i++)
        if (w->grown[i]) (void)cudaFree(w->grown[i]);
    if (w->stream) (void)cudaStreamDestroy(w->stream);
    (void)cudaGetLastError();
    w->nallocs = 0;
}

/*
 * Grown buffer `which` (< 12) to hold `bytes`, its contents dropped: the
 * work queued before on the stream that uses the old one runs first.
 */
int grow(qwork *w, int which, size_t bytes, void **ptr, const char *what, char *msg)
{
    cudaError_t e;
    if (w->grown[which]) {
        CU_CHECK(cudaStreamSynchronize(w->stream));
        CU_CHECK(cudaFree(w->grown[which]));
        w->grown[which] = NULL;
    }
    e = qmalloc(ptr, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *ptr = NULL;
        return failf(msg, GBT_E_DEVICE, "binning on cuda:%d: cannot allocate %zu bytes for %s (%s)", w->dev, bytes,
                     what, cudaGetErrorString(e));
    }
    w->grown[which] = *ptr;
    return 0;
}

/* The scratch that CUB's segmented sort and the run scan of n pairs need (the larger), in *bytes. */
cudaError_t sort_scratch(const qwork *w, uint64_t n, uint32_t nf, uint32_t *key, uint32_t *key2,
                         unsigned long long *wt, unsigned long long *wt2, int *seg, int *head, int *place,
                         size_t *bytes)
{
    size_t t1 = 0, t2 = 0;
    cudaError_t e = cub::DeviceSegmentedRadixSort::SortPairs(NULL, t1, key, key2, wt, wt2, (int)n, (int)nf, seg,
                                                             seg + 1, 0, 32, w->stream);
    if (e == cudaSuccess) e = cub::DeviceScan::ExclusiveSum(NULL, t2, head, place, (int)n, w->stream);
    *bytes = t1 > t2 ? t1 : t2;
    return e;
}

/*
 * Device bytes per pair of a batch's sort while its cuts are computed
 * (quantize() below): the pair buffers key, key2 (4 bytes each), w, w2 (8
 * each), head, place (4 each): 32; the distinct values and weights akey,
 * aw: 12; CUB's scratch for the segmented sort, a third key and weight
 * buffer: 12; each allocated for pair_cap, PAIR_GROWTH times the pairs.
 * A batch sorts its present values and the distinct values kept from the
 * batches before.
 */
constexpr double PAIR_GROWTH = 1.25;
constexpr double PAIR_BYTES = PAIR_GROWTH * (32.0 + 12.0 + 12.0);

/* The most pairs one sort takes (its items are an int; GBT_CUDA_QUANT_MAX_PAIRS lowers it for tests). */
uint64_t max_pairs(void)
{
    const char *env = getenv(GBT_CUDA_QUANT_MAX_PAIRS_ENV);
    if (env && atoll(env) > 0 && (uint64_t)atoll(env) < (uint64_t)INT32_MAX / 2) return (uint64_t)atoll(env);
    return (uint64_t)INT32_MAX / 2;
}

/*
 * Rows per batch: GBT_CUDA_QUANT_ROWS, else as many as fit in half the free
 * memory (GBT_CUDA_FAKE_FREE_BYTES, when set, as the free memory), counting
 * what quantize() allocates per row of a batch: its raw values (dense: ncol
 * floats; CSR: an index and a value per present value and an 8-byte row
 * offset), its weight, PAIR_BYTES per present value for the cuts, and the
 * codes pass's buffers (dense codes of 1 or 2 bytes per cell; CSR: a 4-byte
 * slot per value, per cell from dense input, and 16 bytes of row counts
 * and offsets).  Present values are counted as such in dense data too
 * (in->nnz).  The other half is left for the distinct values that later
 * batches keep from earlier ones, which the data decides: each batch's
 * sort is checked against max_pairs() before it starts, and a growth of
 * its buffers that does not fit fails naming the bytes it asked for.
 */
uint64_t batch_rows(const struct gbt_cu_qinput *in, size_t free_bytes)
{
    const char *env = getenv(GBT_CUDA_QUANT_ROWS_ENV), *fake = getenv(GBT_CUDA_FAKE_FREE_ENV);
    if (fake && atoll(fake) > 0 && (size_t)atoll(fake) < free_bytes) free_bytes = (size_t)atoll(fake);
    const double present = in->nrow ? (double)in->nnz / (double)in->nrow : 0.0, ncol = (double)in->ncol;
    const double raw = in->dense ? ncol * 4.0 : present * 8.0 + 8.0;
    const double codes = in->layout == GBT_QM_DENSE8    ? ncol
                         : in->layout == GBT_QM_DENSE16 ? 2.0 * ncol
                         : in->dense                    ? ncol * 4.0 + 16.0
                                                        : present * 4.0;
    const double bytes_per_row = raw + (in->weight ? 4.0 : 0.0) + present * PAIR_BYTES + codes;
    double rows = (double)free_bytes * 0.5 / bytes_per_row;
    if (env && atoll(env) > 0) rows = (double)atoll(env);
    /* a sort's items are an int: half the limit for the batch's own values */
    if (present > 0 && rows * present > 0.5 * (double)max_pairs()) rows = 0.5 * (double)max_pairs() / present;
    if (rows < 1) rows = 1;
    return rows >= (double)in->nrow ? in->nrow : (uint64_t)rows;
}

/* Uploads rows [r0, r0 + n) into the batch buffers (host CSR rows rebased). */
int load_batch(qwork *w, const struct gbt_cu_qinput *in, uint64_t r0, uint64_t n, float *d_dense, uint64_t *d_indptr,
               uint32_t *d_indices, float *d_values, float *d_weight, uint64_t *h_indptr, qbatch *b, char *msg)
{
    b->r0 = r0;
    b->nrow = n;
    b->dense = NULL;
    b->indptr = NULL;
    b->indices = NULL;
    b->values = NULL;
    b->weight = NULL;
    if (in->dense) {
        b->nnz = 0;
        CU_CHECK(cudaMemcpyAsync(d_dense, in->dense + r0 * in->ncol, n * in->ncol * sizeof(float),
                                 cudaMemcpyHostToDevice, w->stream));
        b->dense = d_dense;
    } else {
        const uint64_t e0 = in->indptr[r0];
        b->nnz = in->indptr[r0 + n] - e0;
        for (uint64_t r = 0; r <= n; r++) h_indptr[r] = in->indptr[r0 + r] - e0;
        CU_CHECK(cudaMemcpyAsync(d_indptr, h_indptr, (n + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice, w->stream));
        if (b->nnz) {
            CU_CHECK(cudaMemcpyAsync(d_indices, in->indices + e0, b->nnz * sizeof(uint32_t), cudaMemcpyHostToDevice,
                                     w->stream));
            CU_CHECK(cudaMemcpyAsync(d_values, in->values + e0, b->nnz * sizeof(float), cudaMemcpyHostToDevice,
                                     w->stream));
        }
        b->indptr = d_indptr;
        b->indices = d_indices;
        b->values = d_values;
    }
    if (in->weight) {
        CU_CHECK(cudaMemcpyAsync(d_weight, in->weight + r0, n * sizeof(float), cudaMemcpyHostToDevice, w->stream));
        b->weight = d_weight;
    }
    /* pageable host memory: the copies took their bytes before returning (h_indptr may be reused) */
    return 0;
}

int quantize(qwork *w, const struct gbt_cu_qinput *in, struct gbt_qmatrix *out, char *msg)
{
    const uint32_t nf = (uint32_t)in->ncol;
    int layout = in->layout; /* dense8 becomes dense16 when a categorical feature needs it */
    const int shift = gbt_weight_shift(in->max_weight, in->nrow);
    const double unit = ldexp(1.0, -shift);
    size_t free_b = 0, total_b = 0;
    uint64_t B, maxcells = 0, *h_indptr = NULL;
    int nbatch;
    CU_CHECK(cudaMemGetInfo(&free_b, &total_b));
    B = batch_rows(in, free_b);
    nbatch = (int)((in->nrow + B - 1) / B);
    for (uint64_t r0 = 0; r0 < in->nrow; r0 += B) {
        const uint64_t n = r0 + B < in->nrow ? B : in->nrow - r0;
        const uint64_t cells = in->dense ? n * in->ncol : in->indptr[r0 + n] - in->indptr[r0];
        if (cells > maxcells) maxcells = cells;
    }
    /* only present values are sorted (each batch's sort checks its own count against max_pairs()) */

    /* the raw values of a batch */
    float *d_dense = NULL, *d_values = NULL, *d_weight = NULL;
    uint64_t *d_indptr = NULL;
    uint32_t *d_indices = NULL;
    if (in->dense) {
        QW_ALLOC(w, d_dense, B * in->ncol * sizeof(float), "raw values");
    } else {
        QW_ALLOC(w, d_indptr, (B + 1) * sizeof(uint64_t), "raw rows");
        QW_ALLOC(w, d_indices, maxcells * sizeof(uint32_t), "raw indices");
        QW_ALLOC(w, d_values, maxcells * sizeof(float), "raw values");
    }
    if (in->weight) QW_ALLOC(w, d_weight, B * sizeof(float), "row weights");
    if (gbt__alloc(&h_indptr, B + 1, sizeof(uint64_t), 0, "batch rows") != GBT_OK)
        return failf(msg, GBT_E_NO_MEMORY, "binning: %s", gbt_last_error());
    int st = 0;

    /* ---- cuts ---- */
    unsigned long long *d_count = NULL, *h_count = NULL, *total_count = NULL;
    int *d_seg = NULL, *d_kept = NULL, *d_aoff = NULL, *h_seg = NULL, *h_kept = NULL;
    unsigned *d_fill = NULL;
    uint32_t *d_key = NULL, *d_key2 = NULL, *d_akey = NULL;
    unsigned long long *d_w = NULL, *d_w2 = NULL, *d_aw = NULL;
    int *d_head = NULL, *d_place = NULL;
    void *d_temp = NULL;
    size_t temp_bytes = 0, tb = 0;
    uint64_t acc_cap = 0, pair_cap = 0;
    qbatch b;
    h_count = (unsigned long long *)calloc((size_t)nf + 1, sizeof *h_count);
    total_count = (unsigned long long *)calloc((size_t)nf + 1, sizeof *total_count);
    h_seg = (int *)calloc((size_t)nf + 1, sizeof *h_seg);
    h_kept = (int *)calloc((size_t)nf + 1, sizeof *h_kept);
    if (!h_count || !total_count || !h_seg || !h_kept) {
        st = failf(msg, GBT_E_NO_MEMORY, "binning: out of host memory");
        goto done;
    }
#define Q_ALLOC(ptr, bytes, what)                                                                      \
    do {                                                                                               \
        cudaError_t e_ = qmalloc((void **)&(ptr), (bytes));                           \
        if (e_ != cudaSuccess) {                                                                       \
            (void)cudaGetLastError();                                                                  \
            st = failf(msg, GBT_E_DEVICE, "binning on cuda:%d: cannot allocate %zu bytes for %s (%s)", \
                       w->dev, (size_t)(bytes), what, cudaGetErrorString(e_));                         \
            goto done;                                                                                 \
        }                                                                                              \
        w->allocs[w->nallocs++] = (void *)(ptr);                                                       \
    } while (0)
#define Q_CHECK(call)                                                              \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            st = fail(msg, e_, #call, __FILE__, __LINE__);                         \
            goto done;                                                             \
        }                                                                          \
    } while (0)
#define Q_LAUNCHED(name) Q_CHECK(cudaGetLastError())
    Q_ALLOC(d_count, ((size_t)nf + 1) * sizeof(unsigned long long), "value counts");
    Q_ALLOC(d_seg, ((size_t)nf + 1) * sizeof(int), "segments");
    Q_ALLOC(d_kept, ((size_t)nf + 1) * sizeof(int), "segments");
    Q_ALLOC(d_aoff, ((size_t)nf + 1) * sizeof(int), "segments");
    Q_ALLOC(d_fill, ((size_t)nf + 1) * sizeof(unsigned), "segments");
    Q_CHECK(cudaMemsetAsync(d_aoff, 0, ((size_t)nf + 1) * sizeof(int), w->stream));
    for (int k = 0; k < nbatch; k++) {
        const uint64_t r0 = (uint64_t)k * B, n = r0 + B < in->nrow ? B : in->nrow - r0;
        uint64_t bcells, npairs, acc_n = 0;
        if (load_batch(w, in, r0, n, d_dense, d_indptr, d_indices, d_values, d_weight, h_indptr, &b, msg) != 0) {
            st = GBT_E_DEVICE;
            goto done;
        }
        bcells = in->dense ? n * in->ncol : b.nnz;
        Q_CHECK(cudaMemsetAsync(d_count, 0, ((size_t)nf + 1) * sizeof(unsigned long long), w->stream));
        count_present<<<qgrid(w, bcells), QTHREADS, 0, w->stream>>>(b, nf, d_count);
        Q_LAUNCHED("count_present");
        Q_CHECK(cudaMemcpyAsync(h_count, d_count, (size_t)nf * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                w->stream));
        Q_CHECK(cudaMemcpyAsync(h_kept, d_aoff, ((size_t)nf + 1) * sizeof(int), cudaMemcpyDeviceToHost, w->stream));
        Q_CHECK(cudaStreamSynchronize(w->stream));
        /* h_kept holds the kept offsets; each segment: its kept values, then this batch's */
        acc_n = (uint64_t)h_kept[nf];
        npairs = acc_n;
        for (uint32_t f = 0; f < nf; f++) npairs += h_count[f];
        /* checked before the segment offsets (int) are summed */
        if (npairs > max_pairs()) {
            st = failf(msg, GBT_E_DEVICE,
                       "binning on cuda:%d: batch %d of %d would sort its %llu values with the %llu distinct values "
                       "kept from the batches before, more than the %llu one sort takes: the data has too many "
                       "distinct values to bin on the device (device=auto bins and trains on the CPU; rounding the "
                       "features to fewer distinct values also helps)",
                       w->dev, k + 1, nbatch, (unsigned long long)(npairs - acc_n), (unsigned long long)acc_n,
                       (unsigned long long)max_pairs());
            goto done;
        }
        h_seg[0] = 0;
        for (uint32_t f = 0; f < nf; f++) {
            const int kept = h_kept[f + 1] - h_kept[f];
            total_count[f] += h_count[f];
            h_seg[f + 1] = h_seg[f] + kept + (int)h_count[f];
        }
        for (uint32_t f = 0; f < nf; f++) h_kept[f] = h_kept[f + 1] - h_kept[f];
        if (npairs + 1 > pair_cap) {
            pair_cap = (uint64_t)((double)npairs * PAIR_GROWTH) + 1;
            if (pair_cap > max_pairs() + 1) pair_cap = max_pairs() + 1;
            if (grow(w, 0, pair_cap * sizeof(uint32_t), (void **)&d_key, "sort keys", msg) ||
                grow(w, 1, pair_cap * sizeof(uint32_t), (void **)&d_key2, "sort keys", msg) ||
                grow(w, 2, pair_cap * sizeof(unsigned long long), (void **)&d_w, "sort weights", msg) ||
                grow(w, 3, pair_cap * sizeof(unsigned long long), (void **)&d_w2, "sort weights", msg) ||
                grow(w, 4, pair_cap * sizeof(int), (void **)&d_head, "run heads", msg) ||
                grow(w, 5, pair_cap * sizeof(int), (void **)&d_place, "run places", msg)) {
                st = GBT_E_DEVICE;
                goto done;
            }
        }
        /*
         * CUB's scratch for this batch's sort and scan, asked every batch:
         * it grows with npairs, and a later batch may have more pairs than
         * the one that grew pair_cap (CUB fails a smaller buffer with
         * cudaErrorInvalidValue).  When it must grow, it grows to what
         * pair_cap's pairs need, so that it rarely grows again.
         */
        Q_CHECK(sort_scratch(w, npairs, nf, d_key, d_key2, d_w, d_w2, d_seg, d_head, d_place, &tb));
        if (tb > temp_bytes) {
            size_t cap_tb = 0;
            Q_CHECK(sort_scratch(w, pair_cap - 1 < (uint64_t)INT32_MAX ? pair_cap - 1 : (uint64_t)INT32_MAX, nf, d_key,
                                 d_key2, d_w, d_w2, d_seg, d_head, d_place, &cap_tb));
            /* this batch's need too, should CUB's size ever not grow with the pairs */
            temp_bytes = cap_tb > tb ? cap_tb : tb;
            if (grow(w, 6, temp_bytes, &d_temp, "sort scratch", msg)) {
                st = GBT_E_DEVICE;
                goto done;
            }
        }
        Q_CHECK(cudaMemcpyAsync(d_seg, h_seg, ((size_t)nf + 1) * sizeof(int), cudaMemcpyHostToDevice, w->stream));
        Q_CHECK(cudaMemcpyAsync(d_kept, h_kept, ((size_t)nf + 1) * sizeof(int), cudaMemcpyHostToDevice, w->stream));
        Q_CHECK(cudaMemsetAsync(d_fill, 0, ((size_t)nf + 1) * sizeof(unsigned), w->stream));
        if (acc_n) {
            place_kept<<<qgrid(w, acc_n), QTHREADS, 0, w->stream>>>(d_akey, d_aw, d_aoff, nf, d_seg, d_key, d_w);
            Q_LAUNCHED("place_kept");
        }
        if (bcells) {
            scatter_pairs<<<qgrid(w, bcells), QTHREADS, 0, w->stream>>>(b, nf, shift, d_seg, d_kept, d_fill, d_key,
                                                                        d_w);
            Q_LAUNCHED("scatter_pairs");
        }
        if (npairs) {
            Q_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(d_temp, temp_bytes, d_key, d_key2, d_w, d_w2, (int)npairs,
                                                             (int)nf, d_seg, d_seg + 1, 0, 32, w->stream));
            run_heads<<<qgrid(w, npairs), QTHREADS, 0, w->stream>>>(d_key2, d_seg, nf, (int)npairs, d_head);
            Q_LAUNCHED("run_heads");
            Q_CHECK(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_head, d_place, (int)npairs, w->stream));
        }
        /* the distinct values replace the kept ones: at most npairs of them */
        if (npairs + 1 > acc_cap) {
            acc_cap = pair_cap;
            if (grow(w, 7, acc_cap * sizeof(uint32_t), (void **)&d_akey, "distinct values", msg) ||
                grow(w, 8, acc_cap * sizeof(unsigned long long), (void **)&d_aw, "distinct weights", msg)) {
                st = GBT_E_DEVICE;
                goto done;
            }
        }
        Q_CHECK(cudaMemsetAsync(d_aw, 0, acc_cap * sizeof(unsigned long long), w->stream));
        if (npairs) {
            reduce_runs<<<qgrid(w, npairs), QTHREADS, 0, w->stream>>>(d_key2, d_w2, d_head, d_place, (int)npairs,
                                                                      d_akey, d_aw);
            Q_LAUNCHED("reduce_runs");
        }
        segment_places<<<qgrid(w, (uint64_t)nf + 1), QTHREADS, 0, w->stream>>>(d_seg, d_place, d_head, nf,
                                                                                 (int)npairs, d_aoff);
        Q_LAUNCHED("segment_places");
    }

    /* the cut rule on every feature */
    {
        int *h_aoff = (int *)calloc((size_t)nf + 1, sizeof(int));
        unsigned long long *h_ea = (unsigned long long *)calloc((size_t)nf + 1, sizeof(unsigned long long));
        unsigned long long *h_eb = (unsigned long long *)calloc((size_t)nf + 1, sizeof(unsigned long long));
        unsigned long long *h_co = (unsigned long long *)calloc((size_t)nf + 1, sizeof(unsigned long long));
        uint32_t *h_budget = (uint32_t *)calloc((size_t)nf + 1, sizeof(uint32_t));
        unsigned long long *h_po = (unsigned long long *)calloc((size_t)nf + 1, sizeof(unsigned long long));
        unsigned long long *d_scan = NULL, *d_pre = NULL, *d_po = NULL;
        uint8_t *d_unit1 = NULL;
        long long *d_pick = NULL;
        size_t tb3 = 0;
        uint64_t *at = (uint64_t *)calloc((size_t)nf + 1, sizeof(uint64_t));
        float *h_cuts = NULL;
        unsigned long long *d_cnt = NULL, *d_ea = NULL, *d_eb = NULL, *d_co = NULL;
        uint32_t *d_budget = NULL, *d_nbins = NULL;
        struct gbt_qentry *d_qa = NULL, *d_qb = NULL;
        float *d_cuts = NULL;
        struct gbt_cuts *c = &out->cuts;
        if (!h_aoff || !h_ea || !h_eb || !h_co || !h_budget || !at || !h_po) {
            st = failf(msg, GBT_E_NO_MEMORY, "binning: out of host memory");
            goto cuts_done;
        }
        Q_CHECK(cudaMemcpyAsync(h_aoff, d_aoff, ((size_t)nf + 1) * sizeof(int), cudaMemcpyDeviceToHost, w->stream));
        Q_CHECK(cudaStreamSynchronize(w->stream));
        c->nfeat = nf;
        if (gbt__alloc(&c->offset, (size_t)nf + 1, sizeof(uint32_t), 1, "bin offsets") != GBT_OK ||
            gbt__alloc(&c->nbins, nf ? nf : 1, sizeof(uint32_t), 1, "bin counts") != GBT_OK ||
            gbt__alloc(&c->has_missing, nf ? nf : 1, 1, 1, "missing flags") != GBT_OK) {
            st = failf(msg, GBT_E_NO_MEMORY, "binning: %s", gbt_last_error());
            goto cuts_done;
        }
        for (uint32_t f = 0; in->is_cat && f < nf; f++) {
            /* categorical: one bin per category, at most GBT_CAT_MAX_DISTINCT (the host's rule and message) */
            const uint64_t nd = (uint64_t)(h_aoff[f + 1] - h_aoff[f]);
            if (!in->is_cat[f]) continue;
            if (nd > GBT_CAT_MAX_DISTINCT) {
                st = failf(msg, GBT_E_INVALID_ARG,
                           "categorical feature %u has %llu distinct categories in the training data; gbt "
                           "supports at most %u",
                           f, (unsigned long long)nd, GBT_CAT_MAX_DISTINCT);
                goto cuts_done;
            }
            /* more codes than one byte holds: the dense layout is uint16, as the host's fits_dense8 */
            if (layout == GBT_QM_DENSE8 && nd + (total_count[f] < in->nrow ? 1u : 0u) > 256u) layout = GBT_QM_DENSE16;
        }
        out->layout = layout;
        for (uint32_t f = 0; f < nf; f++) {
            const uint64_t nd = (uint64_t)(h_aoff[f + 1] - h_aoff[f]);
            uint64_t na, nb, ncut, limit;
            c->has_missing[f] = total_count[f] < in->nrow;
            h_budget[f] = gbt__feature_budget(in->max_bin, layout, c->has_missing[f]);
            /* a categorical feature's budget is its categories: the cut rule's few-values case, every value a bin */
            if (in->is_cat && in->is_cat[f]) h_budget[f] = (uint32_t)nd;
            h_po[f + 1] = h_po[f] + (gbt_cuts_first_pass(nd, total_count[f], h_budget[f], &limit) ? limit : 0);
            gbt_cuts_scratch(nd, total_count[f], h_budget[f], &na, &nb);
            ncut = nd < h_budget[f] ? nd : h_budget[f];
            h_ea[f + 1] = h_ea[f] + na;
            h_eb[f + 1] = h_eb[f] + nb;
            h_co[f + 1] = h_co[f] + ncut;
            at[f] = h_co[f];
        }
        h_cuts = (float *)malloc((size_t)h_co[nf] * sizeof(float) + 1);
        if (h_cuts == NULL) {
            st = failf(msg, GBT_E_NO_MEMORY, "binning: out of host memory for %llu cuts", (unsigned long long)h_co[nf]);
            goto cuts_done;
        }
        Q_ALLOC(d_cnt, ((size_t)nf + 1) * sizeof(unsigned long long), "value counts");
        Q_ALLOC(d_ea, ((size_t)nf + 1) * sizeof(unsigned long long), "summary offsets");
        Q_ALLOC(d_eb, ((size_t)nf + 1) * sizeof(unsigned long long), "summary offsets");
        Q_ALLOC(d_co, ((size_t)nf + 1) * sizeof(unsigned long long), "cut offsets");
        Q_ALLOC(d_budget, ((size_t)nf + 1) * sizeof(uint32_t), "cut budgets");
        Q_ALLOC(d_nbins, ((size_t)nf + 1) * sizeof(uint32_t), "bin counts");
        Q_ALLOC(d_qa, (h_ea[nf] + 1) * sizeof(struct gbt_qentry), "quantile summaries");
        Q_ALLOC(d_qb, (h_eb[nf] + 1) * sizeof(struct gbt_qentry), "quantile summaries");
        Q_ALLOC(d_cuts, (h_co[nf] + 1) * sizeof(float), "cuts");
        {
            const uint64_t acc_n = (uint64_t)h_aoff[nf];
            Q_ALLOC(d_scan, (acc_n + 1) * sizeof(unsigned long long), "rank prefix");
            Q_ALLOC(d_pre, (acc_n + nf + 1) * sizeof(unsigned long long), "rank prefix");
            Q_ALLOC(d_unit1, (size_t)nf + 1, "weight flags");
            Q_ALLOC(d_po, ((size_t)nf + 1) * sizeof(unsigned long long), "pick offsets");
            Q_ALLOC(d_pick, (h_po[nf] + 1) * sizeof(long long), "first-pass picks");
            /* the distinct weights end with a 0 (the buffer was cleared before the runs were summed) */
            Q_CHECK(cub::DeviceScan::ExclusiveSum(NULL, tb3, d_aw, d_scan, (int)(acc_n + 1), w->stream));
            if (tb3 > temp_bytes) {
                temp_bytes = tb3;
                if (grow(w, 6, temp_bytes, &d_temp, "scan scratch", msg)) {
                    st = GBT_E_DEVICE;
                    goto cuts_done;
                }
            }
            Q_CHECK(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_aw, d_scan, (int)(acc_n + 1), w->stream));
            if (nf) {
                feature_prefix<<<qgrid(w, acc_n + nf), QTHREADS, 0, w->stream>>>(d_scan, d_aoff, nf, d_pre, d_unit1);
                Q_LAUNCHED("feature_prefix");
            }
            Q_CHECK(cudaMemcpyAsync(d_po, h_po, ((size_t)nf + 1) * sizeof(unsigned long long), cudaMemcpyHostToDevice,
                                    w->stream));
        }
        Q_CHECK(cudaMemcpyAsync(d_cnt, total_count, (size_t)nf * sizeof(unsigned long long), cudaMemcpyHostToDevice,
                                w->stream));
        Q_CHECK(cudaMemcpyAsync(d_ea, h_ea, (size_t)nf * sizeof(unsigned long long), cudaMemcpyHostToDevice, w->stream));
        Q_CHECK(cudaMemcpyAsync(d_eb, h_eb, (size_t)nf * sizeof(unsigned long long), cudaMemcpyHostToDevice, w->stream));
        Q_CHECK(cudaMemcpyAsync(d_co, h_co, (size_t)nf * sizeof(unsigned long long), cudaMemcpyHostToDevice, w->stream));
        Q_CHECK(cudaMemcpyAsync(d_budget, h_budget, (size_t)nf * sizeof(uint32_t), cudaMemcpyHostToDevice, w->stream));
        if (h_po[nf]) {
            first_pass_picks<<<qgrid(w, h_po[nf]), QTHREADS, 0, w->stream>>>(d_akey, d_pre, d_aoff, nf, d_cnt, d_budget,
                                                                            d_unit1, unit, d_po, d_pick);
            Q_LAUNCHED("first_pass_picks");
        }
        if (nf) {
            feature_cuts<<<qgrid(w, nf), QTHREADS, 0, w->stream>>>(d_akey, d_pre, d_aoff, nf, d_cnt, d_budget, d_unit1,
                                                                  unit, d_po, d_pick, d_ea, d_eb, d_qa, d_qb, d_co,
                                                                  d_cuts, d_nbins);
            Q_LAUNCHED("feature_cuts");
        }
        Q_CHECK(cudaMemcpyAsync(c->nbins, d_nbins, (size_t)nf * sizeof(uint32_t), cudaMemcpyDeviceToHost, w->stream));
        Q_CHECK(cudaMemcpyAsync(h_cuts, d_cuts, (size_t)h_co[nf] * sizeof(float), cudaMemcpyDeviceToHost, w->stream));
        Q_CHECK(cudaStreamSynchronize(w->stream));
        if (gbt__cuts_assemble(c, layout, h_cuts, at, 0) != GBT_OK) {
            st = failf(msg, GBT_E_INVALID_ARG, "%s", gbt_last_error());
            goto cuts_done;
        }
        if (in->is_cat) {
            /* the category of each bin: the feature's first distinct value, then each cut but the last */
            if (gbt__alloc(&c->is_cat, nf ? nf : 1, 1, 1, "categorical flags") != GBT_OK ||
                gbt__alloc(&c->category, c->total_slots ? c->total_slots : 1, sizeof(uint32_t), 1, "bin categories") !=
                    GBT_OK) {
                st = failf(msg, GBT_E_NO_MEMORY, "binning: %s", gbt_last_error());
                goto cuts_done;
            }
            for (uint32_t f = 0; f < nf; f++) {
                uint32_t key = 0;
                c->is_cat[f] = in->is_cat[f] ? 1 : 0;
                if (!in->is_cat[f] || c->nbins[f] == 0) continue;
                Q_CHECK(cudaMemcpy(&key, d_akey + h_aoff[f], sizeof key, cudaMemcpyDeviceToHost));
                c->category[c->offset[f]] = (uint32_t)gbt_cut_value(key);
                for (uint32_t k = 1; k < c->nbins[f]; k++)
                    c->category[c->offset[f] + k] = (uint32_t)h_cuts[at[f] + k - 1];
            }
        }
    cuts_done:
        free(h_aoff);
        free(h_ea);
        free(h_eb);
        free(h_co);
        free(h_budget);
        free(h_po);
        free(at);
        free(h_cuts);
        if (st != 0) goto done;
    }

    /* ---- codes ---- */
    {
        const struct gbt_cuts *c = &out->cuts;
        uint32_t *d_offset = NULL, *d_nb = NULL, *d_slots = NULL;
        float *d_cut = NULL;
        void *d_codes = NULL;
        unsigned long long *d_rc = NULL, *d_rp = NULL, *h_rp = NULL;
        const size_t esize = layout == GBT_QM_DENSE8 ? 1 : 2;
        uint64_t slot_base = 0;
        Q_ALLOC(d_offset, ((size_t)nf + 1) * sizeof(uint32_t), "bin offsets");
        Q_ALLOC(d_nb, ((size_t)nf + 1) * sizeof(uint32_t), "bin counts");
        Q_ALLOC(d_cut, ((size_t)c->total_slots + 1) * sizeof(float), "cuts");
        Q_CHECK(cudaMemcpyAsync(d_offset, c->offset, ((size_t)nf + 1) * sizeof(uint32_t), cudaMemcpyHostToDevice,
                                w->stream));
        Q_CHECK(cudaMemcpyAsync(d_nb, c->nbins, (size_t)nf * sizeof(uint32_t), cudaMemcpyHostToDevice, w->stream));
        Q_CHECK(cudaMemcpyAsync(d_cut, c->cut, (size_t)c->total_slots * sizeof(float), cudaMemcpyHostToDevice,
                                w->stream));
        if (layout == GBT_QM_CSR) {
            uint64_t nnz = in->dense ? 0 : in->nnz;
            if (in->dense)
                for (uint64_t i = 0; i < in->nrow * in->ncol; i++) nnz += !isnan(in->dense[i]);
            if (gbt__alloc(&out->row_ptr, in->nrow + 1, sizeof(uint64_t), 0, "binned rows") != GBT_OK ||
                gbt__alloc(&out->slots, nnz ? nnz : 1, sizeof(uint32_t), 0, "binned values") != GBT_OK) {
                st = failf(msg, GBT_E_NO_MEMORY, "binning: %s", gbt_last_error());
                goto done;
            }
            Q_ALLOC(d_slots, (maxcells + 1) * sizeof(uint32_t), "binned values");
            if (in->dense) {
                Q_ALLOC(d_rc, (B + 1) * sizeof(unsigned long long), "row counts");
                Q_ALLOC(d_rp, (B + 1) * sizeof(unsigned long long), "row offsets");
                h_rp = (unsigned long long *)malloc((B + 1) * sizeof(unsigned long long));
                if (h_rp == NULL) {
                    st = failf(msg, GBT_E_NO_MEMORY, "binning: out of host memory");
                    goto done;
                }
            }
        } else {
            if (gbt__alloc(layout == GBT_QM_DENSE8 ? (void **)&out->codes8 : (void **)&out->codes16,
                           in->nrow * in->ncol + 1, esize, 0, "binned matrix") != GBT_OK) {
                st = failf(msg, GBT_E_NO_MEMORY, "binning: %s", gbt_last_error());
                goto done;
            }
            Q_ALLOC(d_codes, (B * in->ncol + 1) * esize, "binned matrix");
        }
        for (int k = 0; k < nbatch; k++) {
            const uint64_t r0 = (uint64_t)k * B, n = r0 + B < in->nrow ? B : in->nrow - r0;
            /* a single batch is still on the device from the cuts' pass */
            if (nbatch > 1 &&
                load_batch(w, in, r0, n, d_dense, d_indptr, d_indices, d_values, d_weight, h_indptr, &b, msg) != 0) {
                st = GBT_E_DEVICE;
                goto done;
            }
            if (layout != GBT_QM_CSR) {
                uint8_t *c8 = layout == GBT_QM_DENSE8 ? (uint8_t *)d_codes : NULL;
                uint16_t *c16 = layout == GBT_QM_DENSE8 ? NULL : (uint16_t *)d_codes;
                bin_dense_cells<<<qgrid(w, n * nf), QTHREADS, 0, w->stream>>>(b, nf, d_offset, d_nb, d_cut, c8, c16);
                Q_LAUNCHED("bin_dense_cells");
                if (!in->dense && b.nnz) {
                    bin_csr_into_dense<<<qgrid(w, b.nnz), QTHREADS, 0, w->stream>>>(b, nf, d_offset, d_nb, d_cut, c8,
                                                                                   c16);
                    Q_LAUNCHED("bin_csr_into_dense");
                }
                Q_CHECK(cudaMemcpyAsync((char *)(layout == GBT_QM_DENSE8 ? (void *)out->codes8 : (void *)out->codes16) +
                                            r0 * in->ncol * esize,
                                        d_codes, n * in->ncol * esize, cudaMemcpyDeviceToHost, w->stream));
            } else if (!in->dense) {
                if (b.nnz) {
                    bin_csr_slots<<<qgrid(w, b.nnz), QTHREADS, 0, w->stream>>>(b, nf, d_offset, d_nb, d_cut, d_slots);
                    Q_LAUNCHED("bin_csr_slots");
                    Q_CHECK(cudaMemcpyAsync(out->slots + in->indptr[r0], d_slots, b.nnz * sizeof(uint32_t),
                                            cudaMemcpyDeviceToHost, w->stream));
                }
                for (uint64_t r = 0; r <= n; r++) out->row_ptr[r0 + r] = in->indptr[r0 + r];
            } else {
                size_t tb2 = 0;
                row_present<<<qgrid(w, n), QTHREADS, 0, w->stream>>>(b, nf, d_rc);
                Q_LAUNCHED("row_present");
                Q_CHECK(cudaMemsetAsync(d_rc + n, 0, sizeof(unsigned long long), w->stream));
                Q_CHECK(cub::DeviceScan::ExclusiveSum(NULL, tb2, d_rc, d_rp, (int)(n + 1), w->stream));
                if (tb2 > temp_bytes) {
                    temp_bytes = tb2;
                    if (grow(w, 6, temp_bytes, &d_temp, "scan scratch", msg)) {
                        st = GBT_E_DEVICE;
                        goto done;
                    }
                }
                Q_CHECK(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_rc, d_rp, (int)(n + 1), w->stream));
                bin_dense_slots<<<qgrid(w, n), QTHREADS, 0, w->stream>>>(b, nf, d_offset, d_nb, d_cut, d_rp, d_slots);
                Q_LAUNCHED("bin_dense_slots");
                Q_CHECK(cudaMemcpyAsync(h_rp, d_rp, (n + 1) * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                        w->stream));
                Q_CHECK(cudaStreamSynchronize(w->stream));
                if (h_rp[n])
                    Q_CHECK(cudaMemcpyAsync(out->slots + slot_base, d_slots, h_rp[n] * sizeof(uint32_t),
                                            cudaMemcpyDeviceToHost, w->stream));
                for (uint64_t r = 0; r <= n; r++) out->row_ptr[r0 + r] = slot_base + h_rp[r];
                slot_base += h_rp[n];
            }
            Q_CHECK(cudaStreamSynchronize(w->stream));
        }
        free(h_rp);
    }
#undef Q_ALLOC
#undef Q_CHECK
#undef Q_LAUNCHED
done:
    free(h_indptr);
    free(h_count);
    free(total_count);
    free(h_seg);
    free(h_kept);
    return st;
}

} // namespace

extern "C" int gbt_cu_quantize(int ordinal, const struct gbt_cu_qinput *in, struct gbt_qmatrix *out, char *msg)
{
    gbt_cu::device_scope keep;
    qwork w;
    cudaDeviceProp prop;
    int st;
    memset(&w, 0, sizeof w);
    memset(out, 0, sizeof *out);
    out->nrow = in->nrow;
    out->layout = in->layout;
    if (ordinal < 0 || ordinal >= gbt_cu_device_count())
        return failf(msg, GBT_E_NO_DEVICE, "no CUDA device %d (%d present)", ordinal, gbt_cu_device_count());
    w.dev = ordinal;
    CU_CHECK(cudaSetDevice(ordinal));
    (void)cudaGetLastError();
    CU_CHECK(cudaGetDeviceProperties(&prop, ordinal));
    w.sm_count = prop.multiProcessorCount;
    CU_CHECK(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
    st = quantize(&w, in, out, msg);
    qwork_free(&w);
    if (st != 0) gbt__qmatrix_free(out);
    return st;
}
