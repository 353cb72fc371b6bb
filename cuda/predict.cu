/*
 * predict.cu - batch prediction on the device: raw scores of the trees
 * [t0, t1) for every row of dense or CSR input.
 *
 * A thread per row walks each tree `depth` steps with the step of
 * predict.h (children adjacent, leaves keeping the row), which sends a row
 * left when x < threshold in float (a categorical node: gbt_pnode_step
 * with the forest's category sets, as the host) and sends NaN,
 * values equal to `missing` (dense) and features beyond the data's columns
 * to the default side, and adds the leaf values in double in tree order,
 * starting from the row's base margin or base[k]: the additions of
 * gbt__forest_predict, so the bits are the CPU's.
 *
 * Every call has its own stream and device buffers (stream-ordered
 * allocations where the device supports them), so calls from many threads
 * are independent.  Rows go in chunks that keep the device buffers near
 * CHUNK_BYTES.
 */
#include <stdlib.h>
#include <string.h>

#include "cu_internal.cuh"

namespace {

constexpr int PRED_THREADS = 256;
constexpr uint64_t CHUNK_BYTES = (uint64_t)256 << 20;

struct forest_dev {
    const struct gbt_pnode *nodes; /* tree t's nodes: nodes + offset[t] - node0 */
    const uint64_t *offset;        /* of trees t0 .. t1 - 1 */
    uint64_t node0;
    const uint8_t *depth;
    uint32_t ntrees;
    int K;
    const double *base;
    const uint32_t *cat_bits; /* the forest's category sets (predict.h), or NULL without categorical nodes */
};

__device__ __forceinline__ float nan_f()
{
    return __int_as_float(0x7fc00000);
}

/* Adds the trees to out[0..K) for one row, whose feature f has value get(f). */
template <typename Get>
__device__ __forceinline__ void walk(const forest_dev &fo, Get get, double *out)
{
    double acc0 = out[0];
    for (uint32_t t = 0; t < fo.ntrees; t++) {
        const struct gbt_pnode *nodes = fo.nodes + (fo.offset[t] - fo.node0);
        const int depth = fo.depth[t];
        int32_t idx = 0;
        for (int d = 0; d < depth; d++) {
            const struct gbt_pnode n = nodes[idx];
            idx = gbt_pnode_step(&n, get(n.feature & GBT_PNODE_FEATURE), fo.cat_bits);
        }
        if (fo.K == 1)
            acc0 += (double)nodes[idx].value;
        else
            out[t % (uint32_t)fo.K] += (double)nodes[idx].value;
    }
    if (fo.K == 1) out[0] = acc0;
}

__device__ __forceinline__ void start_row(const forest_dev &fo, const float *bm, uint64_t r, double *o)
{
    for (int k = 0; k < fo.K; k++)
        o[k] = bm ? (double)bm[r * (uint64_t)fo.K + (uint64_t)k] : fo.base[k];
}

__global__ void __launch_bounds__(PRED_THREADS, 8)
    predict_dense(forest_dev fo, const float *X, uint64_t nrows, uint64_t ncol,
                  float missing, const float *bm, double *out)
{
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < nrows;
         r += (uint64_t)gridDim.x * blockDim.x) {
        const float *row = X + r * ncol;
        double *o = out + r * (uint64_t)fo.K;
        start_row(fo, bm, r, o);
        walk(fo,
             [&](uint32_t f) -> float {
                 if (f >= ncol) return nan_f();
                 const float x = row[f];
                 return x == missing ? nan_f() : x;
             },
             o);
    }
}

/* CSR rows [0, nrows) of the chunk; indptr holds nrows + 1 absolute offsets, e0 the first. */
__global__ void __launch_bounds__(PRED_THREADS, 6)
    predict_csr(forest_dev fo, const uint64_t *indptr, uint64_t e0,
                const uint32_t *indices, const float *values, uint64_t nrows,
                const float *bm, double *out)
{
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < nrows;
         r += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t b = indptr[r] - e0, e = indptr[r + 1] - e0;
        double *o = out + r * (uint64_t)fo.K;
        start_row(fo, bm, r, o);
        walk(fo,
             [&](uint32_t f) -> float {
                 uint64_t lo = b, hi = e;
                 while (lo < hi) {
                     const uint64_t mid = (lo + hi) / 2;
                     if (indices[mid] < f)
                         lo = mid + 1;
                     else
                         hi = mid;
                 }
                 return lo < e && indices[lo] == f ? values[lo] : nan_f();
             },
             o);
    }
}

/* The rows [r0, r1) of a CSR chunk starting at r0: at most max_rows rows and nnz_cap entries (at least one row). */
uint64_t csr_chunk_end(const struct gbt_dview *v, uint64_t r0, uint64_t max_rows, uint64_t nnz_cap)
{
    uint64_t lo = r0 + 1, hi = r0 + max_rows < v->nrow ? r0 + max_rows : v->nrow;
    /* the largest r1 in [lo, hi] with indptr[r1] - indptr[r0] <= nnz_cap, or lo */
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        if (v->indptr[mid] - v->indptr[r0] <= nnz_cap)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

} // namespace

using namespace gbt_cu;

extern "C" int gbt_cu_predict_margins(int ordinal, const struct gbt_forest *f, uint32_t t0,
                                      uint32_t t1, int K, const double *base,
                                      const struct gbt_dview *v, double *margin_out, char *msg)
{
    gbt_cu::device_scope keep;
    call cl;
    forest_dev fo;
    int pools = 0;
    const uint64_t n = v->nrow, Ku = (uint64_t)K;
    const uint32_t ntrees = t1 > t0 ? t1 - t0 : 0;
    const size_t node0 = t0 < f->ntrees ? (size_t)f->offset[t0] : f->nodes_len;
    const size_t nodes_len = (t1 < f->ntrees ? (size_t)f->offset[t1] : f->nodes_len) - node0;
    const int csr = v->dense == NULL;
    const float *bm_host = v->base_margin;
    uint64_t max_rows, nnz_cap = 0;
    void *d_nodes, *d_off, *d_depth, *d_base, *d_cats = NULL, *d_x = NULL, *d_ptr = NULL, *d_idx = NULL,
                                              *d_val = NULL, *d_bm = NULL, *d_out;

    if (ordinal < 0 || ordinal >= gbt_cu_device_count())
        return failf(msg, GBT_E_NO_DEVICE, "no CUDA device %d (%d present)", ordinal,
                     gbt_cu_device_count());
    if (t1 > f->ntrees || t0 > t1 || K < 1 || t0 % (uint32_t)K != 0)
        return failf(msg, GBT_E_INTERNAL, "prediction of trees [%u, %u) of a forest of %u", t0, t1,
                     f->ntrees);
    if (n == 0) return 0;
    CU_CHECK(cudaSetDevice(ordinal));
    (void)cudaGetLastError();
    CU_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ordinal));
    cl.pools = pools != 0;
    CU_CHECK(cudaStreamCreateWithFlags(&cl.stream, cudaStreamNonBlocking));

    /* rows per chunk */
    {
        uint64_t per_row = Ku * 8 + (bm_host ? Ku * 4 : 0) + (csr ? 8 : v->ncol * 4);
        max_rows = CHUNK_BYTES / (per_row ? per_row : 1);
        if (max_rows < 1) max_rows = 1;
        if (max_rows > n) max_rows = n;
        if (csr) {
            /* the largest chunk's entries: at least CHUNK_BYTES / 8, or one row's */
            nnz_cap = CHUNK_BYTES / 8;
            for (uint64_t r0 = 0; r0 < n;) {
                const uint64_t r1 = csr_chunk_end(v, r0, max_rows, nnz_cap);
                if (v->indptr[r1] - v->indptr[r0] > nnz_cap) nnz_cap = v->indptr[r1] - v->indptr[r0];
                r0 = r1;
            }
        }
    }

    CU_FORWARD(cl.alloc(&d_nodes, nodes_len * sizeof(struct gbt_pnode), "the forest", msg));
    CU_FORWARD(cl.alloc(&d_off, (size_t)ntrees * sizeof(uint64_t), "the forest", msg));
    CU_FORWARD(cl.alloc(&d_depth, (size_t)ntrees, "the forest", msg));
    CU_FORWARD(cl.alloc(&d_base, Ku * sizeof(double), "base scores", msg));
    CU_FORWARD(cl.alloc(&d_out, max_rows * Ku * sizeof(double), "margins", msg));
    if (bm_host) CU_FORWARD(cl.alloc(&d_bm, max_rows * Ku * sizeof(float), "base margins", msg));
    if (csr) {
        CU_FORWARD(cl.alloc(&d_ptr, (max_rows + 1) * sizeof(uint64_t), "row offsets", msg));
        CU_FORWARD(cl.alloc(&d_idx, nnz_cap * sizeof(uint32_t), "column indices", msg));
        CU_FORWARD(cl.alloc(&d_val, nnz_cap * sizeof(float), "values", msg));
    } else {
        CU_FORWARD(cl.alloc(&d_x, max_rows * v->ncol * sizeof(float), "the data", msg));
    }
    CU_FORWARD(cl.put(d_nodes, f->nodes + node0, nodes_len * sizeof(struct gbt_pnode), msg));
    CU_FORWARD(cl.put(d_off, f->offset + t0, (size_t)ntrees * sizeof(uint64_t), msg));
    CU_FORWARD(cl.put(d_depth, f->depth + t0, (size_t)ntrees, msg));
    CU_FORWARD(cl.put(d_base, base, Ku * sizeof(double), msg));
    if (f->cat_len) {
        CU_FORWARD(cl.alloc(&d_cats, f->cat_len * sizeof(uint32_t), "the category sets", msg));
        CU_FORWARD(cl.put(d_cats, f->cat_bits, f->cat_len * sizeof(uint32_t), msg));
    }

    fo.nodes = (const struct gbt_pnode *)d_nodes;
    fo.offset = (const uint64_t *)d_off;
    fo.node0 = node0;
    fo.depth = (const uint8_t *)d_depth;
    fo.ntrees = ntrees;
    fo.K = K;
    fo.base = (const double *)d_base;
    fo.cat_bits = (const uint32_t *)d_cats;

    for (uint64_t r0 = 0; r0 < n;) {
        const uint64_t r1 = csr ? csr_chunk_end(v, r0, max_rows, nnz_cap)
                                : (r0 + max_rows < n ? r0 + max_rows : n);
        const uint64_t rows = r1 - r0;
        const unsigned grid = (unsigned)((rows + PRED_THREADS - 1) / PRED_THREADS);
        if (bm_host)
            CU_FORWARD(cl.put(d_bm, bm_host + r0 * Ku, rows * Ku * sizeof(float), msg));
        if (csr) {
            const uint64_t e0 = v->indptr[r0], ne = v->indptr[r1] - e0;
            CU_FORWARD(cl.put(d_ptr, v->indptr + r0, (rows + 1) * sizeof(uint64_t), msg));
            CU_FORWARD(cl.put(d_idx, v->indices + e0, ne * sizeof(uint32_t), msg));
            CU_FORWARD(cl.put(d_val, v->values + e0, ne * sizeof(float), msg));
            predict_csr<<<grid, PRED_THREADS, 0, cl.stream>>>(
                fo, (const uint64_t *)d_ptr, e0, (const uint32_t *)d_idx, (const float *)d_val, rows,
                (const float *)d_bm, (double *)d_out);
            CU_LAUNCHED("predict_csr");
        } else {
            CU_FORWARD(cl.put(d_x, v->dense + r0 * v->ncol, rows * v->ncol * sizeof(float), msg));
            predict_dense<<<grid, PRED_THREADS, 0, cl.stream>>>(fo, (const float *)d_x, rows, v->ncol,
                                                                v->missing, (const float *)d_bm,
                                                                (double *)d_out);
            CU_LAUNCHED("predict_dense");
        }
        CU_CHECK(cudaMemcpyAsync(margin_out + r0 * Ku, d_out, rows * Ku * sizeof(double),
                                 cudaMemcpyDeviceToHost, cl.stream));
        CU_CHECK(cudaStreamSynchronize(cl.stream)); /* the chunk's buffers are reused */
        r0 = r1;
    }
    return 0;
}
