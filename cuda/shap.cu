/*
 * shap.cu - leaf ids, SHAP values (exact, or Saabas' approximation) and SHAP
 * interaction values on the device: a thread per row runs the functions of common/shap_math.h, the
 * ones the CPU runs (src/model/shap.c), so the bits are the CPU's.
 *
 * Categorical nodes step with the forest's category sets (cat_bits, copied
 * as they are: nodes name their set by its place in them).
 *
 * The host gives the rows densified (nfeat floats, NaN: missing) with
 * their starting scores.  Each thread has its own slice of global memory
 * for the walk (path and stack) and the row's sums in double; rows go in
 * launches that keep those buffers and the output near CHUNK_BYTES.
 * Every call has its own stream and buffers, so calls from many threads
 * are independent.
 */
#include <stdlib.h>
#include <string.h>

#include "cu_internal.cuh"

namespace {

constexpr int SHAP_THREADS = 128;
constexpr uint64_t CHUNK_BYTES = (uint64_t)256 << 20;

/* One launch: the forest and the rows [0, nrow) of the chunk, with each row's scratch. */
struct shap_args {
    struct gbt_shap_forest f; /* device pointers */
    int kind;
    const float *x;
    const double *base;
    uint64_t nrow, width;
    float *out;
    struct gbt_shap_path *path; /* path_n per row */
    struct gbt_shap_frame *stack; /* stack_n per row */
    double *sums;               /* sums_n per row: phi, on, off, interactions */
    uint64_t path_n, stack_n, sums_n;
};

__global__ void __launch_bounds__(SHAP_THREADS, 4) explain_rows(shap_args a)
{
    const uint64_t w = (uint64_t)a.f.nfeat + 1, K = (uint64_t)a.f.K;
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < a.nrow;
         r += (uint64_t)gridDim.x * blockDim.x) {
        const float *x = a.x + r * a.f.nfeat;
        float *o = a.out + r * a.width;
        struct gbt_shap_path *path = a.path + r * a.path_n;
        struct gbt_shap_frame *stack = a.stack + r * a.stack_n;
        double *phi = a.sums + r * a.sums_n;
        if (a.kind == GBT_EXPLAIN_LEAF) {
            gbt_shap_row_leaves(&a.f, x, o);
        } else if (a.kind == GBT_EXPLAIN_CONTRIBS || a.kind == GBT_EXPLAIN_APPROX) {
            if (a.kind == GBT_EXPLAIN_CONTRIBS)
                gbt_shap_row_contribs(&a.f, x, a.base + r * K, phi, path, stack);
            else
                gbt_shap_row_approx(&a.f, x, a.base + r * K, phi);
            for (uint64_t i = 0; i < a.width; i++) o[i] = (float)phi[i];
        } else {
            double *on = phi + K * w, *off = on + w, *inter = off + w;
            gbt_shap_row_interactions(&a.f, x, a.base + r * K, inter, phi, on, off, path, stack);
            for (uint64_t i = 0; i < a.width; i++) o[i] = (float)inter[i];
        }
    }
}

} // namespace

using namespace gbt_cu;

extern "C" int gbt_cu_predict_explain(int ordinal, const struct gbt_shap_forest *f, int kind,
                                      const float *x, const double *base, uint64_t nrow, float *out,
                                      char *msg)
{
    gbt_cu::device_scope keep;
    call cl;
    shap_args a;
    memset(&a, 0, sizeof a); /* padding too: the emulator reads every word of a kernel's arguments */
    int pools = 0;
    const uint64_t w = (uint64_t)f->nfeat + 1, K = (uint64_t)f->K;
    uint64_t per_row, rows;
    void *d_nodes, *d_off, *d_cls, *d_exp, *d_mean, *d_feats, *d_foff, *d_x, *d_base, *d_out, *d_path,
        *d_stack, *d_sums, *d_cats = NULL;

    if (ordinal < 0 || ordinal >= gbt_cu_device_count())
        return failf(msg, GBT_E_NO_DEVICE, "no CUDA device %d (%d present)", ordinal,
                     gbt_cu_device_count());
    if (kind < GBT_EXPLAIN_LEAF || kind > GBT_EXPLAIN_APPROX || K < 1)
        return failf(msg, GBT_E_INTERNAL, "explanation of kind %d for %d classes", kind, f->K);
    if (nrow == 0) return 0;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    {
        const int walk = kind == GBT_EXPLAIN_CONTRIBS || kind == GBT_EXPLAIN_INTERACTIONS; /* TreeSHAP's */
        a.width = kind == GBT_EXPLAIN_LEAF ? f->ntrees : kind == GBT_EXPLAIN_INTERACTIONS ? K * w * w : K * w;
        a.path_n = walk ? gbt_shap_scratch_elems(f->max_depth) : 0;
        a.stack_n = walk ? (uint64_t)f->max_depth + 2 : 0;
        a.sums_n = kind == GBT_EXPLAIN_LEAF ? 0 : kind == GBT_EXPLAIN_INTERACTIONS ? K * w + 2 * w + K * w * w : K * w;
    }
    per_row = (uint64_t)f->nfeat * 4 + K * 8 + a.width * 4 + a.path_n * sizeof(struct gbt_shap_path) +
              a.stack_n * sizeof(struct gbt_shap_frame) + a.sums_n * 8;
    rows = CHUNK_BYTES / (per_row ? per_row : 1);
    if (rows < 1) rows = 1;
    if (rows > nrow) rows = nrow;

    CU_CHECK(cudaSetDevice(ordinal));
    (void)cudaGetLastError();
    CU_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ordinal));
    cl.pools = pools != 0;
    cl.min_bytes = 16; /* no kernel argument is a null pointer */
    CU_CHECK(cudaStreamCreateWithFlags(&cl.stream, cudaStreamNonBlocking));

    CU_FORWARD(cl.alloc(&d_nodes, f->nodes_len * sizeof(struct gbt_shap_node), "the trees", msg));
    CU_FORWARD(cl.alloc(&d_off, ((size_t)f->ntrees + 1) * sizeof(uint64_t), "the trees", msg));
    CU_FORWARD(cl.alloc(&d_cls, (size_t)f->ntrees * sizeof(int32_t), "the trees", msg));
    CU_FORWARD(cl.alloc(&d_exp, (size_t)f->ntrees * sizeof(double), "the trees", msg));
    CU_FORWARD(cl.alloc(&d_mean, f->nodes_len * sizeof(double), "the trees", msg));
    CU_FORWARD(cl.alloc(&d_feats, f->feats_len * sizeof(uint32_t), "the trees", msg));
    CU_FORWARD(cl.alloc(&d_foff, ((size_t)f->ntrees + 1) * sizeof(uint64_t), "the trees", msg));
    CU_FORWARD(cl.alloc(&d_x, rows * f->nfeat * sizeof(float), "the rows", msg));
    CU_FORWARD(cl.alloc(&d_base, rows * K * sizeof(double), "starting scores", msg));
    CU_FORWARD(cl.alloc(&d_out, rows * a.width * sizeof(float), "the output", msg));
    CU_FORWARD(cl.alloc(&d_path, rows * a.path_n * sizeof(struct gbt_shap_path), "SHAP paths", msg));
    CU_FORWARD(cl.alloc(&d_stack, rows * a.stack_n * sizeof(struct gbt_shap_frame), "SHAP stacks", msg));
    CU_FORWARD(cl.alloc(&d_sums, rows * a.sums_n * sizeof(double), "SHAP sums", msg));
    CU_FORWARD(cl.put(d_nodes, f->nodes, f->nodes_len * sizeof(struct gbt_shap_node), msg));
    CU_FORWARD(cl.put(d_off, f->offset, ((size_t)f->ntrees + 1) * sizeof(uint64_t), msg));
    CU_FORWARD(cl.put(d_cls, f->cls, (size_t)f->ntrees * sizeof(int32_t), msg));
    CU_FORWARD(cl.put(d_exp, f->expected, (size_t)f->ntrees * sizeof(double), msg));
    CU_FORWARD(cl.put(d_mean, f->mean, f->nodes_len * sizeof(double), msg));
    CU_FORWARD(cl.put(d_feats, f->feats, f->feats_len * sizeof(uint32_t), msg));
    CU_FORWARD(cl.put(d_foff, f->feat_off, ((size_t)f->ntrees + 1) * sizeof(uint64_t), msg));
    if (f->cat_bits != NULL && f->cat_len > 0) {
        CU_FORWARD(cl.alloc(&d_cats, f->cat_len * sizeof(uint32_t), "the category sets", msg));
        CU_FORWARD(cl.put(d_cats, f->cat_bits, f->cat_len * sizeof(uint32_t), msg));
    }

    a.f = *f;
    a.f.nodes = (const struct gbt_shap_node *)d_nodes;
    a.f.offset = (const uint64_t *)d_off;
    a.f.cls = (const int32_t *)d_cls;
    a.f.expected = (const double *)d_exp;
    a.f.mean = (const double *)d_mean;
    a.f.feats = (const uint32_t *)d_feats;
    a.f.feat_off = (const uint64_t *)d_foff;
    a.f.cat_bits = (const uint32_t *)d_cats;
    a.x = (const float *)d_x;
    a.base = (const double *)d_base;
    a.out = (float *)d_out;
    a.path = (struct gbt_shap_path *)d_path;
    a.stack = (struct gbt_shap_frame *)d_stack;
    a.sums = (double *)d_sums;

    for (uint64_t r0 = 0; r0 < nrow; r0 += rows) {
        const uint64_t n = nrow - r0 < rows ? nrow - r0 : rows;
        const unsigned grid = (unsigned)((n + SHAP_THREADS - 1) / SHAP_THREADS);
        CU_FORWARD(cl.put(d_x, x + r0 * f->nfeat, n * f->nfeat * sizeof(float), msg));
        CU_FORWARD(cl.put(d_base, base + r0 * K, n * K * sizeof(double), msg));
        a.nrow = n;
        explain_rows<<<grid, SHAP_THREADS, 0, cl.stream>>>(a);
        CU_LAUNCHED("explain_rows");
        CU_CHECK(cudaMemcpyAsync(out + r0 * a.width, d_out, n * a.width * sizeof(float),
                                 cudaMemcpyDeviceToHost, cl.stream));
        CU_CHECK(cudaStreamSynchronize(cl.stream)); /* the chunk's buffers are reused */
    }
    return 0;
}
