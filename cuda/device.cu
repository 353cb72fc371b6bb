/*
 * device.cu - devices, errors and the training context: device count and
 * description, the memory estimate, allocation and upload of the training
 * data (with pages on disk: the per-row state and two page buffers,
 * pages.cu), pinned staging for per-call uploads, and the read-back calls.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cu_internal.cuh"
#include "common/cat_math.h"
#include "math_check.h"

extern "C" {
#include "data/pages.h"
}

namespace gbt_cu {

/* histogram.cu: checks that the kernels run on the device, then plans the feature groups */
int hist_probe(gbt_cu_ctx *c, int cc_major, int cc_minor, char *msg);
int hist_setup(gbt_cu_ctx *c, const uint32_t *offset_host, char *msg);

int fail(char *msg, cudaError_t e, const char *what, const char *file, int line)
{
    const char *base = strrchr(file, '/');
    snprintf(msg, GBT_CU_MSG, "CUDA error in %s (%s:%d): %s (%s)", what, base ? base + 1 : file,
             line, cudaGetErrorString(e), cudaGetErrorName(e));
    return GBT_E_DEVICE;
}

int failf(char *msg, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, GBT_CU_MSG, fmt, ap);
    va_end(ap);
    return status;
}

int use_device(gbt_cu_ctx *c, char *msg)
{
    CU_CHECK(cudaSetDevice(c->dev));
    (void)cudaGetLastError(); /* forget a stale, non-sticky error of an earlier call */
    return 0;
}

unsigned grid_for(const gbt_cu_ctx *c, uint64_t items, int threads)
{
    uint64_t want = (items + (uint64_t)threads - 1) / (uint64_t)threads;
    uint64_t cap = (uint64_t)c->sm_count * 8u;
    if (want > cap) want = cap;
    return want < 1 ? 1u : (unsigned)want;
}

int stage_ready(gbt_cu_ctx *c, int which, char *msg)
{
    stage *s = &c->stage[which];
    /* the buffer's previous copy has run: a drain since it was enqueued, or wait for it */
    if (s->pending && s->drained == c->drains) CU_CHECK(cudaEventSynchronize(s->done));
    s->pending = 0;
    return 0;
}

int upload(gbt_cu_ctx *c, int which, const void *src, size_t bytes, void **dev, char *msg)
{
    stage *s = &c->stage[which];
    *dev = s->dev;
    if (bytes == 0) return 0;
    if (bytes > s->cap)
        return failf(msg, GBT_E_INTERNAL, "an upload of %zu bytes exceeds its %zu-byte buffer",
                     bytes, s->cap);
    CU_FORWARD(stage_ready(c, which, msg));
    if (src != s->host) memcpy(s->host, src, bytes);
    CU_CHECK(cudaMemcpyAsync(s->dev, s->host, bytes, cudaMemcpyHostToDevice, c->stream));
    CU_CHECK(cudaEventRecord(s->done, c->stream));
    s->drained = c->drains;
    s->pending = 1;
    return 0;
}

int drain(gbt_cu_ctx *c, char *msg)
{
    CU_CHECK(cudaStreamSynchronize(c->stream));
    c->drains++;
    return 0;
}

} // namespace gbt_cu

using namespace gbt_cu;

/* ---- devices ------------------------------------------------------------ */

namespace {

/* The device count, and why it is 0 when the runtime could not count. */
struct census {
    int count;
    char why[200]; /* "" when cudaGetDeviceCount succeeded */
};

census take_census(void)
{
    census r = {0, ""};
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        /* no driver, no device, or a driver older than the runtime: the runtime says which */
        snprintf(r.why, sizeof r.why, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
        return r;
    }
    r.count = n < 0 ? 0 : n;
    return r;
}

const census &the_census(void)
{
    static const census c = take_census(); /* the set of devices never changes */
    return c;
}

} // namespace

extern "C" int gbt_cu_device_count(void)
{
    return the_census().count;
}

extern "C" const char *gbt_cu_device_error(void)
{
    return the_census().why[0] ? the_census().why : NULL;
}

extern "C" int gbt_cu_describe(int ordinal, char *name, size_t name_len, int *cc_major,
                               int *cc_minor, uint64_t *total_bytes, uint64_t *free_bytes,
                               char *msg)
{
    gbt_cu::device_scope keep;
    cudaDeviceProp prop;
    size_t fr = 0, tot = 0;
    if (ordinal < 0 || ordinal >= gbt_cu_device_count())
        return failf(msg, GBT_E_NO_DEVICE, "no CUDA device %d (%d present)", ordinal,
                     gbt_cu_device_count());
    CU_CHECK(cudaGetDeviceProperties(&prop, ordinal));
    if (free_bytes) {
        CU_CHECK(cudaSetDevice(ordinal));
        CU_CHECK(cudaMemGetInfo(&fr, &tot));
        *free_bytes = fr;
    }
    if (name && name_len > 0) snprintf(name, name_len, "%s", prop.name);
    if (cc_major) *cc_major = prop.major;
    if (cc_minor) *cc_minor = prop.minor;
    if (total_bytes) *total_bytes = prop.totalGlobalMem;
    return 0;
}

/* ---- the training context ------------------------------------------------ */

namespace {

struct request {
    void **ptr;
    size_t bytes;
    const char *what;
};

/*
 * The device memory an allocation of v bytes takes: up to 1 MiB in 512-byte
 * units, larger ones in 2 MiB units, the granularity of large cudaMalloc
 * allocations (the emulator charges the same).
 */
size_t alloc_size(size_t v)
{
    const size_t big = (size_t)2 << 20;
    if (v > ((size_t)1 << 20)) return (v + big - 1) / big * big;
    return (v + 511) & ~(size_t)511;
}

/* Room the CUDA runtime may take beside our buffers (local memory, alignment). */
constexpr size_t SLACK_BYTES = (size_t)16 << 20;

void release(gbt_cu_ctx *c)
{
    if (c == NULL) return;
    (void)cudaSetDevice(c->dev);
    if (c->stream) (void)cudaStreamSynchronize(c->stream);
    pages_close(c);
    for (int i = 0; i < c->nallocs; i++) (void)cudaFree(c->allocs[i]);
    for (int i = 0; i < ST_COUNT; i++) {
        if (c->stage[i].host) (void)cudaFreeHost(c->stage[i].host);
        if (c->stage[i].done) (void)cudaEventDestroy(c->stage[i].done);
    }
    if (c->result_host) (void)cudaFreeHost(c->result_host);
    if (c->stream) (void)cudaStreamDestroy(c->stream);
    (void)cudaGetLastError();
    free(c->slot_built);
    free(c->slot_mark);
    free(c->kids);
    free(c->walk);
    free(c);
}

__global__ void __launch_bounds__(32, 1) math_check_kernel(double *out)
{
    for (int i = threadIdx.x; i < GBT_MATH_CHECKS; i += blockDim.x) out[i] = gbt_math_check_value(i);
}

/*
 * The codes by column: out[f * n + r] = in[r * nf + f].  The partition
 * reads one feature's code per row; in rows of nf codes each read takes a
 * 32-byte sector for one code, by column neighbouring rows share sectors.
 */
template <typename Code>
__global__ void __launch_bounds__(256, 8)
    transpose_codes(const Code *in, uint32_t stride, Code *out, uint64_t n, uint32_t nf)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n * nf;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t r = i / nf, f = i - r * nf;
        out[f * n + r] = in[r * stride + f];
    }
}

/* Rows of nf codes (in) into rows of `stride` codes (out), the padding 0. */
template <typename Code>
__global__ void __launch_bounds__(256, 8)
    pad_codes(const Code *in, Code *out, uint64_t n, uint32_t nf, uint32_t stride)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n * stride;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t r = i / stride, f = i - r * stride;
        out[i] = f < nf ? in[r * nf + f] : 0;
    }
}

/*
 * Codes per row of the device's row-major matrix: rows padded to a whole
 * number of 32-byte sectors when that adds at most a quarter to them, so
 * that a histogram block reading one row reads one sector (28 one-byte
 * codes: 32), not the two that most unaligned rows straddle.
 */
uint32_t code_stride(uint64_t nf, size_t code_bytes)
{
    const uint64_t row = nf * code_bytes, padded = (row + 31) / 32 * 32;
    if (nf == 0 || 4 * (padded - row) > row) return (uint32_t)nf;
    return (uint32_t)(padded / code_bytes);
}

/* The device's values of the shared math against the host's, bit for bit. */
int math_check(gbt_cu_ctx *c, const double *want, char *msg)
{
    const double *got = (const double *)c->result_host;
    math_check_kernel<<<1, 32, 0, c->stream>>>(c->math);
    CU_LAUNCHED("math_check_kernel");
    CU_CHECK(cudaMemcpyAsync(c->result_host, c->math, GBT_MATH_CHECKS * sizeof(double),
                             cudaMemcpyDeviceToHost, c->stream));
    CU_FORWARD(drain(c, msg));
    for (int i = 0; i < GBT_MATH_CHECKS; i++)
        if (memcmp(&got[i], &want[i], sizeof(double)) != 0)
            return failf(msg, GBT_E_DEVICE,
                         "cuda:%d computes %s as %.17g but the host as %.17g: this build would "
                         "train different models on the CPU and the GPU (built with fast math or "
                         "floating-point contraction?)",
                         c->dev, gbt_math_check_name(i), got[i], want[i]);
    return 0;
}

int alloc_all(gbt_cu_ctx *c, const request *req, int nreq, char *msg)
{
    for (int i = 0; i < nreq; i++) {
        cudaError_t e;
        if (req[i].bytes == 0) {
            *req[i].ptr = NULL;
            continue;
        }
        if (c->nallocs == (int)(sizeof c->allocs / sizeof c->allocs[0]))
            return failf(msg, GBT_E_INTERNAL, "too many device buffers");
        e = cudaMalloc(req[i].ptr, req[i].bytes);
        if (e != cudaSuccess) {
            char what[160];
            snprintf(what, sizeof what, "cudaMalloc of %zu bytes for %s", req[i].bytes, req[i].what);
            return fail(msg, e, what, __FILE__, __LINE__);
        }
        c->allocs[c->nallocs++] = *req[i].ptr;
    }
    return 0;
}

int copy_in(gbt_cu_ctx *c, void *dst, const void *src, size_t bytes, char *msg)
{
    if (bytes == 0 || dst == NULL || src == NULL) return 0;
    CU_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c->stream));
    return 0;
}

int open_ctx(gbt_cu_ctx *c, int ordinal, const struct gbt_train_plan *plan, const uint8_t *usable,
             const double *math, char *msg)
{
    const struct gbt_qmatrix *qm = plan->qm;
    const uint64_t n = plan->nrow, K = (uint64_t)plan->num_class, nf = qm->cuts.nfeat;
    const uint64_t T = plan->num_target > 1 ? (uint64_t)plan->num_target : 1;
    /* with pages the codes stay on disk: none on the device, two pages streamed through it */
    const int paged = plan->pages != NULL;
    const uint64_t nnz = qm->layout == GBT_QM_CSR && !paged ? qm->row_ptr[n] : 0;
    int major = 0, minor = 0;
    size_t fr = 0, tot = 0, need = 0;
    const char *fake;

    c->dev = ordinal;
    c->n = n;
    c->nfeat = (uint32_t)nf;
    c->total_slots = qm->cuts.total_slots;
    c->K = plan->num_class;
    c->T = (int)T;
    c->objective = plan->objective;
    c->layout = qm->layout;
    c->max_nodes = plan->max_nodes;
    c->max_slots = plan->max_slots;
    c->has_weight = plan->weight != NULL;
    c->ngroups = plan->group_ptr ? plan->ngroups : 0;
    c->code_stride = code_stride(nf, qm->layout == GBT_QM_DENSE16 ? 2 : 1);
    if (paged) {
        c->pages = plan->pages;
        c->npage = gbt__pages_count(plan->pages);
        /* whole 8-byte words: a CSR page's row offsets (8 bytes each) lead the buffer */
        c->page_cap = (gbt__pages_max_page_bytes(plan->pages) + 7) / 8 * 8;
        if (c->page_cap == 0) c->page_cap = 8;
    }
    c->ntiles = (uint32_t)((n + TILE - 1) / TILE);
    if (c->ntiles == 0) c->ntiles = 1;

    if (n == 0)
        return failf(msg, GBT_E_INVALID_ARG,
                     "the CUDA backend trains on 1 row or more; train a dataset of no rows with device=cpu");
    if (n >= 0xFFFFFFFFull)
        return failf(msg, GBT_E_INVALID_ARG, "the CUDA backend needs 1 to 2^32-2 rows (got %llu)",
                     (unsigned long long)n);
    CU_CHECK(cudaSetDevice(ordinal));
    (void)cudaGetLastError();
    CU_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal));
    CU_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal));
    CU_CHECK(cudaDeviceGetAttribute(&c->sm_count, cudaDevAttrMultiProcessorCount, ordinal));
    if (c->sm_count < 1) c->sm_count = 1;
    CU_FORWARD(hist_probe(c, major, minor, msg));
    CU_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));

    if (c->max_slots > (1u << 29) || c->max_nodes > (1u << 30) ||
        (uint64_t)c->max_slots * c->total_slots > ((uint64_t)1 << 56))
        return failf(msg, GBT_E_DEVICE,
                     "training needs %u histograms of %u bins on cuda:%d, more than any device "
                     "holds; lower max_depth or max_leaves",
                     c->max_slots, c->total_slots, ordinal);
    c->seg_cap = 2 * c->max_slots + 2;
    if (c->max_nodes > c->seg_cap) c->seg_cap = c->max_nodes;
    c->split_blocks = (uint32_t)c->sm_count * 8u;
    c->cand_cap = c->max_slots + c->split_blocks + 1;
    c->result_cap = (size_t)c->max_slots * sizeof(struct gbt_split);
    if (c->result_cap < 4 * K * sizeof(unsigned long long))
        c->result_cap = 4 * K * sizeof(unsigned long long);
    if (c->result_cap < GBT_MATH_CHECKS * sizeof(double)) c->result_cap = GBT_MATH_CHECKS * sizeof(double);

    const uint8_t *is_cat = qm->cuts.is_cat;
    for (uint32_t f = 0; is_cat != NULL && f < nf; f++)
        if (is_cat[f]) {
            c->ncat++;
            c->cat_total += qm->cuts.nbins[f];
        }
    c->cat_words = gbt__cuts_cat_words(&qm->cuts);

    size_t st_bytes[ST_COUNT];
    st_bytes[ST_HIST] = (size_t)c->seg_cap * 4 * sizeof(int32_t);
    st_bytes[ST_SPLIT] = (size_t)c->max_slots * sizeof(struct gbt_split_job);
    st_bytes[ST_MASK] = plan->no_column_sampling ? 0 : (size_t)c->max_slots * nf;
    st_bytes[ST_PART] = (size_t)c->max_slots * sizeof(struct gbt_partition_job);
    st_bytes[ST_LEAF] = (size_t)c->seg_cap * sizeof(struct gbt_leaf);
    st_bytes[ST_CAT] = (size_t)c->max_slots * c->cat_words * 4;

    request req[] = {
        {(void **)&c->codes8, !paged && qm->layout == GBT_QM_DENSE8 ? n * c->code_stride : 0,
         "the binned matrix"},
        {(void **)&c->codes16, !paged && qm->layout == GBT_QM_DENSE16 ? n * c->code_stride * 2 : 0,
         "the binned matrix"},
        {(void **)&c->codes_col,
         paged ? 0 : qm->layout == GBT_QM_DENSE8 ? n * nf : qm->layout == GBT_QM_DENSE16 ? n * nf * 2 : 0,
         "the binned matrix by column"},
        {(void **)&c->row_ptr, !paged && qm->layout == GBT_QM_CSR ? (n + 1) * 8 : 0, "the binned rows"},
        {(void **)&c->page_dev[0], paged ? c->page_cap : 0, "a page of the binned matrix"},
        {(void **)&c->page_dev[1], paged ? c->page_cap : 0, "a page of the binned matrix"},
        {(void **)&c->noted, paged ? n : 0, "the partition's notes"},
        {(void **)&c->slots, nnz * 4, "the binned values"},
        {(void **)&c->offset, (nf + 1) * 4, "bin offsets"},
        {(void **)&c->nbins, (nf + 1) * 4, "bin counts"},
        {(void **)&c->usable, nf + 1, "feature flags"},
        {(void **)&c->label, n * T * 4, "labels"},
        {(void **)&c->weight, plan->weight ? n * 4 : 0, "weights"},
        {(void **)&c->margin, n * K * 8, "training margins"},
        {(void **)&c->gtmp, n * K * 8, "gradients"},
        {(void **)&c->htmp, n * K * 8, "hessians"},
        {(void **)&c->grad, n * K * sizeof(struct gbt_gpair), "fixed-point gradients"},
        {(void **)&c->rows, 2 * n * 4, "the row partition"},
        {(void **)&c->node_begin, (size_t)c->max_nodes * 8, "nodes"},
        {(void **)&c->node_count, (size_t)c->max_nodes * 8, "nodes"},
        {(void **)&c->hist, (size_t)c->max_slots * c->total_slots * sizeof(struct gbt_hbin),
         "histograms"},
        {(void **)&c->seg_begin, (size_t)c->seg_cap * 8, "segments"},
        {(void **)&c->seg_count, (size_t)c->seg_cap * 8, "segments"},
        {(void **)&c->seg_prefix, ((size_t)c->seg_cap + 1) * 8, "segments"},
        {(void **)&c->part_fill, (size_t)c->max_slots * 8, "partition counters"},
        {(void **)&c->sums, 4 * K * 8, "gradient sums"},
        {(void **)&c->cands, (size_t)c->cand_cap * sizeof(cand), "split candidates"},
        {(void **)&c->splits, (size_t)c->max_slots * sizeof(struct gbt_split), "splits"},
        {(void **)&c->groups, (nf + 1) * sizeof(hgroup), "feature groups"},
        {(void **)&c->cat_feat, (size_t)c->ncat * 4, "categorical features"},
        {(void **)&c->cat_off, c->ncat ? ((size_t)c->ncat + 1) * 4 : 0, "categorical features"},
        {(void **)&c->cat_order, (size_t)c->max_slots * c->cat_total * sizeof(struct gbt_cat_entry),
         "category sort scratch"},
        {(void **)&c->cat_cands, (size_t)c->max_slots * c->ncat * sizeof(cand), "categorical candidates"},
        {(void **)&c->cat_bits, (size_t)c->max_slots * c->cat_words * 4, "category sets"},
        {(void **)&c->math, GBT_MATH_CHECKS * sizeof(double), "the arithmetic check"},
        {(void **)&c->group_ptr, c->ngroups ? (c->ngroups + 1) * 4 : 0, "query groups"},
        {(void **)&c->rank_idx, c->ngroups ? 3 * n * 4 : 0, "ranking scratch"},
        {(void **)&c->rank_stat, c->ngroups ? 2 * n * 8 : 0, "ranking scratch"},
        {(void **)&c->stage[ST_HIST].dev, st_bytes[ST_HIST], "histogram jobs"},
        {(void **)&c->stage[ST_SPLIT].dev, st_bytes[ST_SPLIT], "split jobs"},
        {(void **)&c->stage[ST_MASK].dev, st_bytes[ST_MASK], "feature masks"},
        {(void **)&c->stage[ST_PART].dev, st_bytes[ST_PART], "partition jobs"},
        {(void **)&c->stage[ST_LEAF].dev, st_bytes[ST_LEAF], "leaves"},
        {(void **)&c->stage[ST_CAT].dev, st_bytes[ST_CAT], "category sets"},
    };
    const int nreq = (int)(sizeof req / sizeof req[0]);

    for (int i = 0; i < nreq; i++) need += alloc_size(req[i].bytes);
    need += SLACK_BYTES;
    CU_CHECK(cudaMemGetInfo(&fr, &tot));
    if ((fake = getenv(GBT_CUDA_FAKE_FREE_ENV)) != NULL && *fake) {
        char *end;
        unsigned long long v = strtoull(fake, &end, 10);
        if (*end == '\0') fr = (size_t)v;
    }
    if (need > fr) {
        char codes[200] = "";
        if (paged)
            snprintf(codes, sizeof codes,
                     "the binned matrix in %llu pages on disk, of which two pages and a byte a row: %zu bytes, ",
                     (unsigned long long)c->npage, 2 * alloc_size(c->page_cap) + alloc_size(n));
        return failf(msg, GBT_E_DEVICE,
                     "training needs %zu bytes on cuda:%d but only %zu are free (%zu rows, %u "
                     "features, %sa histogram pool of %u slots of %u bins: %zu bytes); lower "
                     "histogram_pool_size",
                     need, ordinal, fr, (size_t)n, c->nfeat, codes, c->max_slots, c->total_slots,
                     alloc_size((size_t)c->max_slots * c->total_slots * sizeof(struct gbt_hbin)));
    }

    CU_FORWARD(alloc_all(c, req, nreq, msg));
    for (int i = 0; i < ST_COUNT; i++) {
        c->stage[i].cap = st_bytes[i];
        CU_CHECK(cudaEventCreateWithFlags(&c->stage[i].done, cudaEventDisableTiming));
        if (st_bytes[i]) CU_CHECK(cudaMallocHost(&c->stage[i].host, st_bytes[i]));
    }
    CU_CHECK(cudaMallocHost(&c->result_host, c->result_cap));
    if (paged) CU_FORWARD(pages_open(c, plan, msg));
    c->slot_built = (uint8_t *)calloc(c->max_slots, 1);
    c->slot_mark = (uint8_t *)calloc(c->max_slots, 1);
    if (c->slot_built == NULL || c->slot_mark == NULL)
        return failf(msg, GBT_E_NO_MEMORY, "out of host memory for %u histogram slots", c->max_slots);
    c->kids = (int32_t *)malloc(2 * (size_t)c->max_nodes * sizeof(int32_t));
    c->walk = (int32_t *)malloc((size_t)c->max_nodes * sizeof(int32_t));
    if (c->kids == NULL || c->walk == NULL)
        return failf(msg, GBT_E_NO_MEMORY, "out of host memory for %u tree nodes", c->max_nodes);
    for (uint64_t i = 0; i < 2 * (uint64_t)c->max_nodes; i++) c->kids[i] = -1;
    c->root_fresh = 1;

    /* dense: rows padded to code_stride (through the column buffer), then the column copy */
    if (c->codes8 && c->code_stride == nf) {
        CU_FORWARD(copy_in(c, c->codes8, qm->codes8, n * nf, msg));
    } else if (c->codes8) {
        CU_FORWARD(copy_in(c, c->codes_col, qm->codes8, n * nf, msg));
        pad_codes<uint8_t><<<grid_for(c, n * c->code_stride, 256), 256, 0, c->stream>>>(
            (const uint8_t *)c->codes_col, c->codes8, n, (uint32_t)nf, c->code_stride);
        CU_LAUNCHED("pad_codes");
    }
    if (c->codes16 && c->code_stride == nf) {
        CU_FORWARD(copy_in(c, c->codes16, qm->codes16, n * nf * 2, msg));
    } else if (c->codes16) {
        CU_FORWARD(copy_in(c, c->codes_col, qm->codes16, n * nf * 2, msg));
        pad_codes<uint16_t><<<grid_for(c, n * c->code_stride, 256), 256, 0, c->stream>>>(
            (const uint16_t *)c->codes_col, c->codes16, n, (uint32_t)nf, c->code_stride);
        CU_LAUNCHED("pad_codes");
    }
    if (c->codes8) {
        transpose_codes<uint8_t><<<grid_for(c, n * nf, 256), 256, 0, c->stream>>>(
            c->codes8, c->code_stride, (uint8_t *)c->codes_col, n, (uint32_t)nf);
        CU_LAUNCHED("transpose_codes");
    } else if (c->codes16) {
        transpose_codes<uint16_t><<<grid_for(c, n * nf, 256), 256, 0, c->stream>>>(
            c->codes16, c->code_stride, (uint16_t *)c->codes_col, n, (uint32_t)nf);
        CU_LAUNCHED("transpose_codes");
    }
    if (qm->layout == GBT_QM_CSR && !paged) {
        CU_FORWARD(copy_in(c, c->row_ptr, qm->row_ptr, (n + 1) * 8, msg));
        CU_FORWARD(copy_in(c, c->slots, qm->slots, nnz * 4, msg));
    }
    CU_FORWARD(copy_in(c, c->offset, qm->cuts.offset, (nf + 1) * 4, msg));
    CU_FORWARD(copy_in(c, c->nbins, qm->cuts.nbins, nf * 4, msg));
    CU_FORWARD(copy_in(c, c->usable, usable, nf, msg));
    if (c->ncat) {
        uint32_t *list = (uint32_t *)malloc(((size_t)2 * c->ncat + 1) * 4);
        uint32_t i = 0;
        if (list == NULL) return failf(msg, GBT_E_NO_MEMORY, "out of host memory for %u features", c->ncat);
        list[c->ncat] = 0;
        for (uint32_t f = 0; f < nf; f++)
            if (is_cat[f]) {
                list[i] = f;
                list[c->ncat + i + 1] = list[c->ncat + i] + qm->cuts.nbins[f];
                i++;
            }
        /*
         * On the context's stream, which the kernels that read them use (a
         * cudaMemcpy would go on the legacy stream, which a
         * cudaStreamNonBlocking stream is not ordered with).  From pageable
         * memory the bytes are staged before the call returns: list may be
         * freed at once.
         */
        cudaError_t e = cudaMemcpyAsync(c->cat_feat, list, (size_t)c->ncat * 4, cudaMemcpyHostToDevice, c->stream);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(c->cat_off, list + c->ncat, ((size_t)c->ncat + 1) * 4, cudaMemcpyHostToDevice,
                                c->stream);
        free(list);
        if (e != cudaSuccess) return fail(msg, e, "cudaMemcpyAsync of the categorical features", __FILE__, __LINE__);
    }
    CU_FORWARD(copy_in(c, c->label, plan->label, n * T * 4, msg));
    if (plan->weight) CU_FORWARD(copy_in(c, c->weight, plan->weight, n * 4, msg));
    CU_FORWARD(copy_in(c, c->margin, plan->margin, n * K * 8, msg));
    if (c->ngroups) CU_FORWARD(copy_in(c, c->group_ptr, plan->group_ptr, (c->ngroups + 1) * 4, msg));
    CU_CHECK(cudaMemsetAsync(c->node_begin, 0, (size_t)c->max_nodes * 8, c->stream));
    CU_CHECK(cudaMemsetAsync(c->node_count, 0, (size_t)c->max_nodes * 8, c->stream));
    CU_FORWARD(hist_setup(c, qm->cuts.offset, msg));
    /* waits for the stream: the host buffers above, the caller's, are copied */
    return math_check(c, math, msg);
}

} // namespace

extern "C" int gbt_cu_open(int ordinal, const struct gbt_train_plan *plan, const uint8_t *usable,
                           const double *math, struct gbt_cu_ctx **out, char *msg)
{
    gbt_cu::device_scope keep;
    gbt_cu_ctx *c;
    int s;
    *out = NULL;
    if (ordinal < 0 || ordinal >= gbt_cu_device_count())
        return failf(msg, GBT_E_NO_DEVICE, "no CUDA device %d (%d present)", ordinal,
                     gbt_cu_device_count());
    c = (gbt_cu_ctx *)calloc(1, sizeof *c);
    if (c == NULL) return failf(msg, GBT_E_NO_MEMORY, "out of host memory for the CUDA context");
    s = open_ctx(c, ordinal, plan, usable, math, msg);
    if (s != 0) {
        release(c);
        return s;
    }
    *out = c;
    return 0;
}

extern "C" void gbt_cu_close(struct gbt_cu_ctx *c)
{
    gbt_cu::device_scope keep;
    release(c);
}

/* ---- the margins to and from the host; reading back (tests) --------------- */

extern "C" int gbt_cu_read_margins(struct gbt_cu_ctx *c, double *out, char *msg)
{
    gbt_cu::device_scope keep;
    CU_FORWARD(use_device(c, msg));
    CU_CHECK(cudaMemcpyAsync(out, c->margin, c->n * (uint64_t)c->K * sizeof(double),
                             cudaMemcpyDeviceToHost, c->stream));
    CU_FORWARD(drain(c, msg));
    return 0;
}

extern "C" int gbt_cu_write_margins(struct gbt_cu_ctx *c, const double *in, char *msg)
{
    gbt_cu::device_scope keep;
    CU_FORWARD(use_device(c, msg));
    CU_CHECK(cudaMemcpyAsync(c->margin, in, c->n * (uint64_t)c->K * sizeof(double),
                             cudaMemcpyHostToDevice, c->stream));
    CU_FORWARD(drain(c, msg));
    return 0;
}

/*
 * The row buffer's two halves (partition.cu) made one list, the ranges'
 * begins in [0, n): each position's row from the node over it that was
 * never split (those nodes' ranges cover every position once); the root's
 * implicit list before it is partitioned.
 */
static int read_lists(struct gbt_cu_ctx *c, uint32_t *both, uint64_t *node_begin, uint64_t *node_count,
                      char *msg)
{
    if (!c->root_fresh)
        CU_CHECK(cudaMemcpyAsync(both, c->rows, 2 * c->n * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                 c->stream));
    CU_CHECK(cudaMemcpyAsync(node_begin, c->node_begin, (size_t)c->max_nodes * sizeof(uint64_t),
                             cudaMemcpyDeviceToHost, c->stream));
    CU_CHECK(cudaMemcpyAsync(node_count, c->node_count, (size_t)c->max_nodes * sizeof(uint64_t),
                             cudaMemcpyDeviceToHost, c->stream));
    return drain(c, msg);
}

extern "C" int gbt_cu_read_rows(struct gbt_cu_ctx *c, uint32_t *rows, uint64_t *node_begin,
                                uint64_t *node_count, char *msg)
{
    gbt_cu::device_scope keep;
    const uint64_t n = c->n;
    uint32_t *both;
    int s;
    CU_FORWARD(use_device(c, msg));
    both = (uint32_t *)malloc(2 * n * sizeof(uint32_t));
    if (both == NULL)
        return failf(msg, GBT_E_NO_MEMORY, "out of host memory for %llu row ids",
                     (unsigned long long)(2 * n));
    s = read_lists(c, both, node_begin, node_count, msg);
    if (s == 0) {
        if (c->root_fresh)
            for (uint64_t p = 0; p < n; p++) rows[p] = (uint32_t)p;
        for (uint32_t i = 0; i < c->max_nodes && !c->root_fresh; i++)
            if (c->kids[2 * (size_t)i] < 0 && node_count[i] > 0) {
                const uint64_t b = node_begin[i];
                memcpy(rows + (b >= n ? b - n : b), both + b, node_count[i] * sizeof(uint32_t));
            }
        for (uint32_t i = 0; i < c->max_nodes; i++)
            if (node_begin[i] >= n) node_begin[i] -= n;
    }
    free(both);
    return s;
}

extern "C" int gbt_cu_read_histogram(struct gbt_cu_ctx *c, int slot, struct gbt_hbin *out, char *msg)
{
    gbt_cu::device_scope keep;
    if (slot < 0 || (uint32_t)slot >= c->max_slots || !c->slot_built[slot])
        return failf(msg, GBT_E_INVALID_ARG, "histogram slot %d holds nothing", slot);
    CU_FORWARD(use_device(c, msg));
    CU_CHECK(cudaMemcpyAsync(out, c->hist + (uint64_t)slot * c->total_slots,
                             (size_t)c->total_slots * sizeof(struct gbt_hbin),
                             cudaMemcpyDeviceToHost, c->stream));
    CU_FORWARD(drain(c, msg));
    return 0;
}

extern "C" int gbt_cu_write_histogram(struct gbt_cu_ctx *c, int slot, const struct gbt_hbin *in, char *msg)
{
    gbt_cu::device_scope keep;
    if (slot < 0 || (uint32_t)slot >= c->max_slots || !c->slot_built[slot])
        return failf(msg, GBT_E_INVALID_ARG, "histogram slot %d holds nothing", slot);
    CU_FORWARD(use_device(c, msg));
    CU_CHECK(cudaMemcpyAsync(c->hist + (uint64_t)slot * c->total_slots, in,
                             (size_t)c->total_slots * sizeof(struct gbt_hbin),
                             cudaMemcpyHostToDevice, c->stream));
    CU_FORWARD(drain(c, msg));
    return 0;
}

extern "C" int gbt_cu_read_gradients(struct gbt_cu_ctx *c, int cls, struct gbt_gpair *out, char *msg)
{
    gbt_cu::device_scope keep;
    if (cls < 0 || cls >= c->K) return failf(msg, GBT_E_INVALID_ARG, "class %d out of range", cls);
    CU_FORWARD(use_device(c, msg));
    CU_CHECK(cudaMemcpyAsync(out, c->grad + (uint64_t)cls * c->n, c->n * sizeof(struct gbt_gpair),
                             cudaMemcpyDeviceToHost, c->stream));
    CU_FORWARD(drain(c, msg));
    return 0;
}
