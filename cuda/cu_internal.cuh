/*
 * cu_internal.cuh - what the CUDA backend's .cu files share: the context,
 * error checking, and the device helpers for "segments" (the row ranges of
 * a batch of nodes taken one after the other).
 *
 * Segments: a batch of jobs names nodes; node i owns the positions
 * node_begin[i] .. node_begin[i] + node_count[i] - 1 of the row list.
 * gbt_cu_segments() copies each job's begin and count and an exclusive
 * prefix of the counts (n + 1 entries, the last one the total T) into the
 * context, on the device: the host never learns the counts.  A kernel then
 * walks the flattened positions 0 .. T-1 of the batch and finds each
 * position's job by binary search in the prefix.
 */
#ifndef GBT_CU_INTERNAL_CUH
#define GBT_CU_INTERNAL_CUH

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

extern "C" {
#include "gbt_cuda.h"
}

namespace gbt_cu {

/*
 * Every kernel carries its resource budget: __launch_bounds__(THREADS,
 * MIN_BLOCKS), the block size it is launched with and the blocks of it an
 * H100's SM must hold at once.  ptxas then keeps it within 65536 /
 * (THREADS x MIN_BLOCKS) registers, spilling rather than lowering the
 * occupancy, and tests/cuda_resources.sh fails `make check` on a spill or
 * an occupancy below the budget (ptxas's report of the build: cuda/NAME.ptxas).
 * A budget that must change changes beside its kernel, in review.
 */

/* Row-list tiles: partition, leaves and the tile scan work on TILE positions per block. */
constexpr int TILE_THREADS = 256;
constexpr int TILE_ITEMS = 8;
constexpr uint32_t TILE = TILE_THREADS * TILE_ITEMS;

/* Threads of a histogram block. */
constexpr int HIST_THREADS = 1024;

/* Split finding: threads of a block (a warp per feature at a time). */
constexpr int SPLIT_THREADS = 256;
constexpr int SPLIT_WARPS = SPLIT_THREADS / 32;

/* A contiguous range of features whose histogram slots are built together. */
struct hgroup {
    uint32_t f0, f1;          /* features [f0, f1) */
    uint32_t slot_lo, slot_hi; /* their slots [slot_lo, slot_hi) */
};

/* The best candidate split of part of a node's features. */
struct cand {
    double gain;
    int32_t feature, bin, dl, valid;
    long long lg, lh; /* left child's sums */
};

/*
 * Pinned host staging for one kind of upload, reused once its last copy is
 * done.  `drained`: the context's drain count when that copy was enqueued;
 * once the stream has been drained since (gbt_cu::drain), the copy has run
 * and reusing the buffer needs no wait.
 */
struct stage {
    void *host;
    void *dev;
    size_t cap;
    cudaEvent_t done;
    uint64_t drained;
    int pending; /* a copy was enqueued and no drain has been seen since */
};

enum { ST_HIST, ST_SPLIT, ST_MASK, ST_PART, ST_LEAF, ST_CAT, ST_COUNT };

} // namespace gbt_cu

struct gbt_cu_ctx {
    int dev;
    cudaStream_t stream;
    int sm_count;
    uint64_t n;
    uint32_t nfeat, total_slots;
    int K, objective, layout;
    int T; /* labels per row: K for a multi-target model, else 1 */
    uint32_t max_nodes, max_slots;
    int cls;
    uint32_t ntiles; /* ceil(n / TILE), at least 1 */
    int has_weight;

    /* device data */
    uint8_t *codes8;   /* row r's codes at r * code_stride (padding after nfeat) */
    uint16_t *codes16;
    uint32_t code_stride;
    void *codes_col; /* dense layouts: the codes by column (feature f's at f * n), for the partition */
    uint64_t *row_ptr;
    uint32_t *slots;
    uint32_t *offset, *nbins;
    uint8_t *usable;
    float *label, *weight;
    double *margin, *gtmp, *htmp;
    struct gbt_gpair *grad;
    uint32_t *rows;     /* 2 n: the row lists' two halves (partition.cu) */
    uint64_t *node_begin, *node_count;
    struct gbt_hbin *hist;
    uint64_t *seg_begin, *seg_count, *seg_prefix;
    uint32_t seg_cap;
    uint32_t *part_fill;                /* partition: 2 max_slots counters */
    unsigned long long *sums;           /* gradients: 4 K */
    gbt_cu::cand *cands;
    uint32_t cand_cap;
    struct gbt_split *splits;
    /*
     * Categorical features (common/cat_math.h; none: ncat 0, NULL): their
     * ids (ncat), each one's first entry in a job's sort scratch (ncat + 1,
     * the last cat_total), the sort scratch (max_slots * cat_total), the
     * best candidate of each (job, categorical feature) (max_slots * ncat),
     * and the set of each job's split (max_slots * cat_words words).
     */
    uint32_t ncat, cat_total, cat_words;
    uint32_t *cat_feat, *cat_off;
    struct gbt_cat_entry *cat_order;
    gbt_cu::cand *cat_cands;
    uint32_t *cat_bits;
    gbt_cu::hgroup *groups;
    double *math; /* GBT_MATH_CHECKS: the device's values of cuda/math_check.h */
    uint32_t *group_ptr; /* ranking: ngroups + 1 query offsets */
    uint64_t ngroups;
    uint32_t *rank_idx;  /* ranking: 3 n sort arrays of the groups */
    double *rank_stat;   /* ranking: 2 n MAP statistics of the groups */

    /* histogram plan */
    int ngroups_shared, ngroups_global;
    size_t hist_smem;
    uint32_t hist_blocks_shared, hist_blocks_global;
    uint32_t split_blocks; /* blocks split finding aims for */

    /* host side */
    gbt_cu::stage stage[gbt_cu::ST_COUNT];
    uint64_t drains; /* cudaStreamSynchronize calls on `stream` through gbt_cu::drain */
    void *result_host; /* pinned: splits or gradient sums coming back */
    size_t result_cap;
    uint8_t *slot_built; /* max_slots: a BUILD has filled the slot */
    uint8_t *slot_mark;  /* max_slots: scratch of gbt_cu_histograms, clear between calls */
    /*
     * The tree being grown: each node's children once it is partitioned
     * (2 max_nodes, -1 before), a walk's stack (max_nodes), and whether the
     * root's list is still implicit (partition.cu).
     */
    int32_t *kids, *walk;
    int root_fresh;
    /*
     * A dataset whose binned matrix is in pages on disk (plan->pages,
     * pages.cu): no codes on the device; histograms and partition stream
     * the pages through two device buffers of the largest page
     * (page_dev), each filled from its pinned staging buffer (page_host)
     * by page_copy, a second stream, so that page k + 1 is read and copied
     * while page k's kernels run.  page_copied[b]: buffer b's last copy;
     * page_used[b]: the kernels that read it; page_pending[b]: a copy from
     * page_host[b] enqueued and not yet waited for.  noted: a byte a row,
     * the partition's side of each row, noted page by page.  NULL pages:
     * the codes are on the device whole.
     */
    const struct gbt_pages *pages;
    struct gbt_page_reader *reader;
    uint64_t npage;
    void *page_dev[2], *page_host[2];
    size_t page_cap;
    cudaStream_t page_copy;
    cudaEvent_t page_copied[2], page_used[2];
    int page_pending[2];
    uint8_t *noted;
    void *allocs[48];
    int nallocs;
};

namespace gbt_cu {

/* Writes "CUDA error in WHAT (FILE:LINE): string (name)" and returns GBT_E_DEVICE. */
int fail(char *msg, cudaError_t e, const char *what, const char *file, int line);
/* Writes a formatted message and returns status. */
int failf(char *msg, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Makes the context's device current on this thread (for the rest of the
 * entry point, whose device_scope gives the caller's device back).
 */
int use_device(gbt_cu_ctx *c, char *msg);

/*
 * Keeps the calling thread's current device: every extern "C" entry point
 * holds one, since it may make another device current, so that a host
 * program working on another GPU (PyTorch, CuPy) finds its device unchanged
 * after any call of ours.
 */
class device_scope {
public:
    device_scope()
    {
        if (cudaGetDevice(&saved_) != cudaSuccess) {
            saved_ = -1;
            (void)cudaGetLastError();
        }
    }
    ~device_scope()
    {
        int now = -1;
        if (saved_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != saved_ &&
            cudaSetDevice(saved_) != cudaSuccess)
            (void)cudaGetLastError();
    }
    device_scope(const device_scope &) = delete;
    device_scope &operator=(const device_scope &) = delete;

private:
    int saved_ = -1;
};

/*
 * The device side of one call of an entry point that does not keep a
 * context (prediction, explaining): its stream and buffers, released on
 * every path.  `pools`: the buffers come from the stream's memory pool.
 * A request of 0 bytes gives NULL unless min_bytes is set, which makes
 * every buffer at least that large (for kernels that take no null pointer).
 */
struct call {
    static constexpr int MAX_BUFS = 16;
    cudaStream_t stream = NULL;
    bool pools = false;
    size_t min_bytes = 0;
    void *bufs[MAX_BUFS];
    int nbufs = 0;

    call() = default;
    call(const call &) = delete;
    call &operator=(const call &) = delete;
    ~call()
    {
        for (int i = 0; i < nbufs; i++) {
            if (pools)
                (void)cudaFreeAsync(bufs[i], stream);
            else
                (void)cudaFree(bufs[i]);
        }
        if (stream) {
            (void)cudaStreamSynchronize(stream);
            (void)cudaStreamDestroy(stream);
        }
        (void)cudaGetLastError();
    }

    int alloc(void **p, size_t bytes, const char *what, char *msg)
    {
        cudaError_t e;
        *p = NULL;
        if (bytes < min_bytes) bytes = min_bytes;
        if (bytes == 0) return 0;
        if (nbufs == MAX_BUFS) return failf(msg, GBT_E_INTERNAL, "more than %d buffers for one call", MAX_BUFS);
        e = pools ? cudaMallocAsync(p, bytes, stream) : cudaMalloc(p, bytes);
        if (e != cudaSuccess) {
            char w[160];
            snprintf(w, sizeof w, "allocating %zu bytes for %s", bytes, what);
            *p = NULL;
            return fail(msg, e, w, __FILE__, __LINE__);
        }
        bufs[nbufs++] = *p;
        return 0;
    }

    /* An asynchronous copy from the host on the call's stream. */
    int put(void *dst, const void *src, size_t bytes, char *msg)
    {
        cudaError_t e;
        if (bytes == 0) return 0;
        e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream);
        return e == cudaSuccess ? 0 : fail(msg, e, "cudaMemcpyAsync (to the device)", __FILE__, __LINE__);
    }
};

/*
 * Copies `bytes` from host memory through the pinned staging buffer `which`
 * to its device buffer, asynchronously on the context's stream; the device
 * copy is returned in *dev.  Waits only if the buffer's previous copy may
 * not have run yet: not when the stream was drained since it was enqueued
 * (every level's split search drains it, so a training's uploads do not
 * wait).
 */
int upload(gbt_cu_ctx *c, int which, const void *src, size_t bytes, void **dev, char *msg);

/* Waits, if it must (see upload), until staging buffer `which` may be written. */
int stage_ready(gbt_cu_ctx *c, int which, char *msg);

/*
 * Waits for everything enqueued on the context's stream (cudaStreamSynchronize)
 * and counts the drain, so that upload() knows its staging copies have run.
 */
int drain(gbt_cu_ctx *c, char *msg);

/*
 * Fills the context's segment arrays for the n jobs whose node ids are
 * node_ids[0], node_ids[stride], ... (device memory).
 */
int segments(gbt_cu_ctx *c, const int32_t *node_ids, int stride, int n, char *msg);

/*
 * One page on the device, for the kernels that pages_stream enqueues: rows
 * [row_lo, row_hi) of the matrix; dense codes (row k of the page at
 * k * nfeat) or CSR row offsets from 0 and slots.
 */
struct page_view {
    uint64_t row_lo, row_hi;
    const void *codes;
    const uint64_t *row_ptr;
    const uint32_t *slots;
};

/* Enqueues, on the context's stream, the kernels that read one page. */
typedef int (*page_fn)(gbt_cu_ctx *c, const page_view &v, void *user, char *msg);

/*
 * pages.cu.  pages_open: the page reader, the pinned staging, the copy
 * stream and its events (the device buffers are open_ctx's allocations);
 * pages_close releases them.  pages_stream: every page in order, each
 * read from disk (with its checks), copied to the device buffer not in
 * use, and handed to fn once its copy is done; returns without waiting
 * for the kernels.
 */
int pages_open(gbt_cu_ctx *c, const struct gbt_train_plan *plan, char *msg);
void pages_close(gbt_cu_ctx *c);
int pages_stream(gbt_cu_ctx *c, page_fn fn, void *user, char *msg);

/* Blocks for a grid-stride loop over `items` with `threads` per block. */
unsigned grid_for(const gbt_cu_ctx *c, uint64_t items, int threads);

/* The job whose segment holds flattened position i, searching jobs [lo, hi]. */
__device__ __forceinline__ int seg_find(const uint64_t *prefix, int lo, int hi, uint64_t i)
{
    /* the largest j in [lo, hi] with prefix[j] <= i (empty segments precede it) */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (prefix[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

} // namespace gbt_cu

#ifndef GBT_CUDA_ARCHS_JSON
#define GBT_CUDA_ARCHS_JSON "?"
#endif

#define CU_CHECK(call)                                                                \
    do {                                                                              \
        cudaError_t cu_e_ = (call);                                                   \
        if (cu_e_ != cudaSuccess) return gbt_cu::fail(msg, cu_e_, #call, __FILE__, __LINE__); \
    } while (0)

/* After a kernel launch: a launch error (bad configuration, no image for the device). */
#define CU_LAUNCHED(name)                                                                    \
    do {                                                                                     \
        cudaError_t cu_e_ = cudaGetLastError();                                              \
        if (cu_e_ != cudaSuccess) return gbt_cu::fail(msg, cu_e_, "kernel " name, __FILE__, __LINE__); \
    } while (0)

#define CU_FORWARD(expr)             \
    do {                             \
        int cu_s_ = (expr);          \
        if (cu_s_ != 0) return cu_s_; \
    } while (0)

#endif
