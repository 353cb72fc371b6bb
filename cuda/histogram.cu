/*
 * histogram.cu - gradient histograms of a batch of nodes.
 *
 * BUILD jobs, all in one launch per path:
 * - The features are cut into groups of consecutive features whose slots
 *   fit in the shared memory a block may have (the device's opt-in
 *   maximum); a feature too wide for it forms a group of its own that works
 *   on global memory.
 * - The rows of all BUILD nodes, taken in job order, form one flattened
 *   list of T positions (T is known on the device only).  Each group gets G
 *   blocks; block b of a group takes the positions [T b / G, T (b+1) / G)
 *   and, for each node its range meets, sums the rows' pairs into a
 *   block-private shared-memory histogram (64-bit sums made of two 32-bit
 *   atomics, shared_add64, in four planes of words: shared_add_pair), then
 *   adds the non-zero bins to the node's slot
 *   with 64-bit global atomics.  Integer sums wrap exactly, so the result is
 *   independent of the order.
 * - Groups too wide for shared memory add straight into the slot.
 * SUBTRACT jobs then run in one launch (slot -= src), after the builds.
 * With pages on disk (pages.cu) the builds run once per page, in their
 * PAGED form: every position of the batch is visited and only the rows
 * in the page are added, from the page's codes.
 */
#include <stdlib.h>
#include <string.h>

#include "cu_internal.cuh"

namespace {

using gbt_cu::hgroup;
using gbt_cu::HIST_THREADS;
typedef unsigned long long ull;

/*
 * Rows a warp of the dense row loop keeps in flight: it loads their row
 * ids, then their pairs and codes (before the zero test), then adds them,
 * so that one wait on memory serves that many rows instead of one
 * (docs/perf-notes.md: the loop is bound by that wait, not by bandwidth).
 */
constexpr uint32_t HIST_ROWS_IN_FLIGHT = 4;

struct hist_args {
    const uint32_t *rows;
    int ident; /* the root's list is implicit: position p holds row p (partition.cu) */
    const struct gbt_gpair *grad; /* this class's pairs */
    const uint64_t *seg_begin, *seg_prefix;
    int njobs;
    const int32_t *job_slot;
    ull *hist; /* slots of total_slots bins of two words (g, h) */
    uint32_t total_slots;
    const hgroup *groups;
    const uint32_t *offset;
    uint32_t stride;       /* dense layouts: codes per row of `codes` (nfeat or more: padding) */
    const void *codes;     /* dense layouts */
    const uint64_t *row_ptr; /* CSR */
    const uint32_t *slots;   /* CSR */
    /*
     * PAGED kernels: the codes (row_ptr, slots) are one page's, of rows
     * [row_lo, row_hi) (row r at r - row_lo); the nodes' other rows are
     * left for the other pages.
     */
    uint32_t row_lo, row_hi;
};

/* Whether row r's codes are in the kernel's codes: always, or in its page. */
template <bool PAGED>
__device__ __forceinline__ bool in_page(const hist_args &a, uint32_t r)
{
    return !PAGED || r - a.row_lo < a.row_hi - a.row_lo;
}

/* Row r's place in the kernel's codes. */
template <bool PAGED>
__device__ __forceinline__ uint64_t code_row(const hist_args &a, uint32_t r)
{
    return PAGED ? (uint64_t)(r - a.row_lo) : (uint64_t)r;
}

/*
 * v added to a 64-bit sum of shared memory kept as two 32-bit words, lo
 * and hi, with two 32-bit atomics (a 64-bit shared atomicAdd compiles to
 * a compare-and-swap loop, ATOMS.CAST.SPIN.64 on sm_90; 32-bit ones to
 * ATOMS.ADD): the low word's add returns its old value, which says whether
 * it carried, and the high word gets v's high half plus the carry.  Exact
 * modulo 2^64 in any order, as the 64-bit add; the words are read only
 * after a barrier.
 */
__device__ __forceinline__ void shared_add64(unsigned *lo_word, unsigned *hi_word, ull v)
{
    const unsigned lo = (unsigned)v, hi = (unsigned)(v >> 32);
    const unsigned old = atomicAdd(lo_word, lo);
    const unsigned up = hi + (old + lo < old ? 1u : 0u);
    if (up != 0) atomicAdd(hi_word, up);
}

/*
 * A block's shared histogram of nbins bins as four planes of 32-bit words
 * (g low, g high, h low, h high: word plane * nbins + bin), so that the
 * lanes of a warp adding to different bins spread over all 32 banks; bins
 * of two 64-bit words side by side put every low word on a bank that is a
 * multiple of 4, 8 banks for 32 lanes.
 */
__device__ __forceinline__ void shared_add_pair(unsigned *w, uint32_t nbins, uint32_t bin,
                                                struct gbt_gpair gp)
{
    shared_add64(w + bin, w + nbins + bin, (ull)(long long)gp.g);
    shared_add64(w + 2 * (size_t)nbins + bin, w + 3 * (size_t)nbins + bin, (ull)(long long)gp.h);
}

/* Into the shared planes (SHARED: acc is the block's words) or a slot of global (g, h) bins. */
template <bool SHARED>
__device__ __forceinline__ void add_pair(void *acc, uint32_t nbins, uint32_t bin, struct gbt_gpair gp)
{
    if (SHARED) {
        shared_add_pair((unsigned *)acc, nbins, bin, gp);
    } else {
        ull *a = (ull *)acc;
        atomicAdd(a + 2 * (size_t)bin, (ull)(long long)gp.g);
        atomicAdd(a + 2 * (size_t)bin + 1, (ull)(long long)gp.h);
    }
}

/* The row at position `first` + rl: rows[rl], or first + rl from an implicit list (rows NULL). */
__device__ __forceinline__ uint32_t row_at(const uint32_t *rows, uint64_t first, uint64_t rl)
{
    return rows ? rows[rl] : (uint32_t)(first + rl);
}

/* Rows [0, nr) of the list at `first` into acc (bins relative to grp.slot_lo), dense codes. */
template <typename Code, bool SHARED, bool PAGED>
__device__ __forceinline__ void add_dense(const hist_args &a, const hgroup &grp, const uint32_t *rows,
                                          uint64_t first, uint64_t nr, void *acc)
{
    const uint32_t nbins = grp.slot_hi - grp.slot_lo;
    const Code *codes = (const Code *)a.codes;
    const uint32_t gnf = grp.f1 - grp.f0;
    if (gnf <= blockDim.x) {
        /*
         * A thread per (row, feature).  Fewer than 32 features: each warp
         * takes floor(32 / gnf) whole rows, so that its lanes ask for one
         * row id, one pair and one row of codes (a sector each) rather
         * than parts of two rows; the lanes left over sit idle.
         */
        const uint32_t lane = threadIdx.x % 32, rpw = gnf < 32 ? 32 / gnf : 0;
        const uint32_t rpi = rpw ? (blockDim.x / 32) * rpw : blockDim.x / gnf;
        const uint32_t fl = rpw ? lane % gnf : threadIdx.x % gnf;
        const uint32_t rs = rpw ? (threadIdx.x / 32) * rpw + lane / gnf : threadIdx.x / gnf;
        if (rpw ? lane >= rpw * gnf : rs >= rpi) return;
        const uint32_t f = grp.f0 + fl, base = a.offset[f] - grp.slot_lo;
        for (uint64_t rl = rs; rl < nr; rl += (uint64_t)rpi * HIST_ROWS_IN_FLIGHT) {
            uint32_t r[HIST_ROWS_IN_FLIGHT], code[HIST_ROWS_IN_FLIGHT];
            struct gbt_gpair gp[HIST_ROWS_IN_FLIGHT];
            for (uint32_t u = 0; u < HIST_ROWS_IN_FLIGHT; u++) {
                const uint64_t q = rl + (uint64_t)u * rpi;
                r[u] = q < nr ? row_at(rows, first, q) : 0u;
            }
            for (uint32_t u = 0; u < HIST_ROWS_IN_FLIGHT; u++) {
                const bool in = rl + (uint64_t)u * rpi < nr && in_page<PAGED>(a, r[u]);
                gp[u] = in ? a.grad[r[u]] : gbt_gpair{0, 0};
                code[u] = in ? (uint32_t)codes[code_row<PAGED>(a, r[u]) * a.stride + f] : 0u;
            }
            for (uint32_t u = 0; u < HIST_ROWS_IN_FLIGHT; u++)
                if ((gp[u].g | gp[u].h) != 0) add_pair<SHARED>(acc, nbins, base + code[u], gp[u]);
        }
    } else {
        for (uint64_t rl = 0; rl < nr; rl++) {
            const uint32_t r = row_at(rows, first, rl);
            if (!in_page<PAGED>(a, r)) continue;
            const struct gbt_gpair gp = a.grad[r];
            if ((gp.g | gp.h) == 0) continue;
            for (uint32_t f = grp.f0 + threadIdx.x; f < grp.f1; f += blockDim.x)
                add_pair<SHARED>(acc, nbins,
                                 a.offset[f] - grp.slot_lo + (uint32_t)codes[code_row<PAGED>(a, r) * a.stride + f], gp);
        }
    }
}

/* The same for CSR rows of global slots (ascending within a row). */
template <bool SHARED, bool PAGED>
__device__ __forceinline__ void add_csr(const hist_args &a, const hgroup &grp, const uint32_t *rows,
                                        uint64_t first, uint64_t nr, void *acc)
{
    const uint32_t nbins = grp.slot_hi - grp.slot_lo;
    for (uint64_t rl = threadIdx.x; rl < nr; rl += blockDim.x) {
        const uint32_t r = row_at(rows, first, rl);
        if (!in_page<PAGED>(a, r)) continue;
        const struct gbt_gpair gp = a.grad[r];
        if ((gp.g | gp.h) == 0) continue;
        const uint64_t k = code_row<PAGED>(a, r);
        for (uint64_t e = a.row_ptr[k], end = a.row_ptr[k + 1]; e < end; e++) {
            const uint32_t s = a.slots[e];
            if (s < grp.slot_lo) continue;
            if (s >= grp.slot_hi) break;
            add_pair<SHARED>(acc, nbins, s - grp.slot_lo, gp);
        }
    }
}

/*
 * LAYOUT: 0 dense uint8, 1 dense uint16, 2 CSR.  SHARED: block-private shared histograms.
 * Budget: two blocks of 1024 threads per SM, the whole SM (a block's shared histogram of up to
 * about 113 KB leaves room for two), so at most 32 registers: the row loop waits on a chain of
 * loads and atomics per row, and only the warps in flight hide it (docs/perf-notes.md).
 */
template <int LAYOUT, bool SHARED, bool PAGED>
__global__ void __launch_bounds__(HIST_THREADS, 2) hist_build(hist_args a, uint32_t G)
{
    extern __shared__ ull sh[];
    const hgroup grp = a.groups[blockIdx.x / G];
    const uint32_t part = blockIdx.x % G;
    const uint64_t T = a.seg_prefix[a.njobs];
    const uint64_t lo = T * part / G, hi = T * (part + 1) / G;
    const uint32_t nbins = grp.slot_hi - grp.slot_lo;
    if (lo >= hi) return;
    for (int j = gbt_cu::seg_find(a.seg_prefix, 0, a.njobs - 1, lo);
         j < a.njobs && a.seg_prefix[j] < hi; j++) {
        const uint64_t pj = a.seg_prefix[j], ej = a.seg_prefix[j + 1];
        const uint64_t s = lo > pj ? lo : pj, e = hi < ej ? hi : ej;
        ull *dst = a.hist + 2 * ((uint64_t)a.job_slot[j] * a.total_slots + grp.slot_lo);
        void *acc = SHARED ? (void *)sh : (void *)dst;
        const uint64_t first = a.seg_begin[j] + (s - pj);
        const uint32_t *rows = a.ident ? NULL : a.rows + first;
        if (s >= e) continue; /* the same for every thread of the block */
        if (SHARED) {
            for (uint32_t i = threadIdx.x; i < 2 * nbins; i += blockDim.x) sh[i] = 0;
            __syncthreads();
        }
        if (LAYOUT == 0)
            add_dense<uint8_t, SHARED, PAGED>(a, grp, rows, first, e - s, acc);
        else if (LAYOUT == 1)
            add_dense<uint16_t, SHARED, PAGED>(a, grp, rows, first, e - s, acc);
        else
            add_csr<SHARED, PAGED>(a, grp, rows, first, e - s, acc);
        if (SHARED) {
            __syncthreads();
            const unsigned *w = (const unsigned *)sh;
            for (uint32_t i = threadIdx.x; i < nbins; i += blockDim.x) {
                const ull g = (ull)w[i] | (ull)w[nbins + i] << 32;
                const ull h = (ull)w[2 * (size_t)nbins + i] | (ull)w[3 * (size_t)nbins + i] << 32;
                if ((g | h) != 0) {
                    atomicAdd(dst + 2 * (size_t)i, g);
                    atomicAdd(dst + 2 * (size_t)i + 1, h);
                }
            }
            __syncthreads(); /* sh is cleared for the next node */
        }
    }
}

/* Zeroes the slots of the BUILD jobs. */
__global__ void __launch_bounds__(256, 8)
    hist_zero(ull *hist, const int32_t *job_slot, int njobs, uint32_t total_slots)
{
    const uint64_t words = 2 * (uint64_t)total_slots, all = words * (uint64_t)njobs;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < all;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t j = i / words, k = i - j * words;
        hist[(uint64_t)job_slot[j] * words + k] = 0;
    }
}

/* dst slot -= src slot, for n jobs. */
__global__ void __launch_bounds__(256, 8)
    hist_subtract(ull *hist, const int32_t *dst, const int32_t *src, int n,
                  uint32_t total_slots)
{
    const uint64_t words = 2 * (uint64_t)total_slots, all = words * (uint64_t)n;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < all;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t j = i / words, k = i - j * words;
        hist[(uint64_t)dst[j] * words + k] -= hist[(uint64_t)src[j] * words + k];
    }
}

typedef void (*build_fn)(hist_args, uint32_t);

template <bool PAGED>
build_fn build_kernel_of(int layout, bool shared)
{
    switch (layout) {
    case GBT_QM_DENSE8: return shared ? hist_build<0, true, PAGED> : hist_build<0, false, PAGED>;
    case GBT_QM_DENSE16: return shared ? hist_build<1, true, PAGED> : hist_build<1, false, PAGED>;
    default: return shared ? hist_build<2, true, PAGED> : hist_build<2, false, PAGED>;
    }
}

/* paged: the kernels of one page's codes (hist_args.row_lo, row_hi) */
build_fn build_kernel(int layout, bool shared, bool paged)
{
    return paged ? build_kernel_of<true>(layout, shared) : build_kernel_of<false>(layout, shared);
}

} // namespace

namespace gbt_cu {

int hist_probe(gbt_cu_ctx *c, int cc_major, int cc_minor, char *msg)
{
    cudaFuncAttributes attr;
    cudaError_t e = cudaFuncGetAttributes(&attr, build_kernel(GBT_QM_DENSE8, true, false));
    if (e != cudaSuccess) {
        char what[200];
        (void)cudaGetLastError();
        snprintf(what, sizeof what,
                 "cudaFuncGetAttributes: cuda:%d has compute capability %d.%d; this build has kernels "
                 "for [%s] (plus PTX for the newest)",
                 c->dev, cc_major, cc_minor, GBT_CUDA_ARCHS_JSON);
        return fail(msg, e, what, __FILE__, __LINE__);
    }
    return 0;
}

int hist_setup(gbt_cu_ctx *c, const uint32_t *offset, char *msg)
{
    const bool paged = c->pages != NULL; /* the kernels this context launches */
    const build_fn shared_fn = build_kernel(c->layout, true, paged), global_fn = build_kernel(c->layout, false, paged);
    cudaFuncAttributes attr;
    int optin = 0, nb = 0;
    size_t budget, max_bins;
    hgroup *g = NULL;
    int ns = 0, ng = 0;
    const uint32_t nf = c->nfeat;
    uint64_t cap_blocks = c->n / 256 + 1;

    CU_CHECK(cudaFuncGetAttributes(&attr, shared_fn));
    CU_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, c->dev));
    budget = (size_t)optin > attr.sharedSizeBytes ? (size_t)optin - attr.sharedSizeBytes : 0;
    /*
     * The attribute belongs to the kernel, for the whole process: every
     * context sets the same value, the device's whole budget, so that no
     * context lowers it under another one's launches.
     */
    if (budget > 0)
        CU_CHECK(cudaFuncSetAttribute(shared_fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)budget));
    /* all of the SM's L1/shared memory as shared memory: two blocks of ~110 KB fit per SM */
    CU_CHECK(cudaFuncSetAttribute(shared_fn, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    {
        /* test hook: a smaller budget, so that small tests use several groups and the global path */
        const char *lim = getenv(GBT_CUDA_HIST_SMEM_ENV);
        if (lim && *lim) {
            char *end;
            unsigned long long v = strtoull(lim, &end, 10);
            if (*end == '\0' && v < budget) budget = (size_t)v;
        }
    }
    max_bins = budget / sizeof(struct gbt_hbin);

    /* shared groups first, then the features too wide for shared memory */
    g = (hgroup *)malloc(((size_t)nf + 1) * sizeof *g);
    if (g == NULL) return failf(msg, GBT_E_NO_MEMORY, "out of host memory for feature groups");
    for (uint32_t f = 0; f < nf;) {
        const uint32_t f0 = f, lo = offset[f];
        if (offset[f + 1] - lo > max_bins) {
            f++;
            continue;
        }
        while (f < nf && offset[f + 1] - lo <= max_bins) f++;
        g[ns++] = hgroup{f0, f, lo, offset[f]};
    }
    ng = ns;
    for (uint32_t f = 0; f < nf; f++)
        if (offset[f + 1] - offset[f] > max_bins) g[ng++] = hgroup{f, f + 1, offset[f], offset[f + 1]};
    c->ngroups_shared = ns;
    c->ngroups_global = ng - ns;
    c->hist_smem = 0;
    for (int i = 0; i < ns; i++) {
        size_t bytes = (size_t)(g[i].slot_hi - g[i].slot_lo) * sizeof(struct gbt_hbin);
        if (bytes > c->hist_smem) c->hist_smem = bytes;
    }
    if (ng > 0) {
        cudaError_t e = cudaMemcpyAsync(c->groups, g, (size_t)ng * sizeof *g, cudaMemcpyHostToDevice,
                                        c->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
        free(g);
        if (e != cudaSuccess) return fail(msg, e, "cudaMemcpyAsync of the feature groups", __FILE__, __LINE__);
    } else {
        free(g);
    }

    c->hist_blocks_shared = c->hist_blocks_global = 1;
    if (ns > 0) {
        CU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, shared_fn, HIST_THREADS,
                                                               c->hist_smem));
        if (nb < 1)
            return failf(msg, GBT_E_DEVICE,
                         "cuda:%d cannot run a histogram block of %d threads with %zu bytes of shared memory",
                         c->dev, HIST_THREADS, c->hist_smem);
        uint64_t G = (uint64_t)c->sm_count * (uint64_t)nb / (uint64_t)ns;
        if (G > cap_blocks) G = cap_blocks;
        c->hist_blocks_shared = G < 1 ? 1u : (uint32_t)G;
    }
    if (ng > ns) {
        CU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, global_fn, HIST_THREADS, 0));
        if (nb < 1)
            return failf(msg, GBT_E_DEVICE, "cuda:%d cannot run a histogram block of %d threads",
                         c->dev, HIST_THREADS);
        uint64_t G = (uint64_t)c->sm_count * (uint64_t)nb / (uint64_t)(ng - ns);
        if (G > cap_blocks) G = cap_blocks;
        c->hist_blocks_global = G < 1 ? 1u : (uint32_t)G;
    }
    return 0;
}

} // namespace gbt_cu

using namespace gbt_cu;

static int launch_subtract(gbt_cu_ctx *c, const int32_t *d_dst, const int32_t *d_src, int n, char *msg)
{
    if (n == 0) return 0;
    hist_subtract<<<grid_for(c, 2 * (uint64_t)c->total_slots * (uint64_t)n, 256), 256, 0,
                    c->stream>>>((ull *)c->hist, d_dst, d_src, n, c->total_slots);
    CU_LAUNCHED("hist_subtract");
    return 0;
}

static bool slot_ok(const gbt_cu_ctx *c, int32_t slot)
{
    return slot >= 0 && (uint32_t)slot < c->max_slots;
}

/* A slot that holds a histogram, or that a BUILD job of this call fills (slot_mark 4). */
static bool slot_filled(const gbt_cu_ctx *c, int32_t slot)
{
    return slot_ok(c, slot) && (c->slot_built[slot] || (c->slot_mark[slot] & 4));
}

/*
 * The checks of the CPU backend (the builds run first, so a subtraction may
 * use a slot that a build of the same call fills); counts the builds and
 * subtractions.  Writes nothing but slot_mark, which it leaves clear.
 */
static int check_jobs(gbt_cu_ctx *c, const struct gbt_hist_job *jobs, int n, int *nb, int *ns,
                      char *msg)
{
    int s = 0;
    *nb = *ns = 0;
    for (int j = 0; j < n && s == 0; j++) {
        const struct gbt_hist_job *jb = &jobs[j];
        if (!slot_ok(c, jb->slot)) {
            s = failf(msg, GBT_E_INTERNAL, "histogram slot %d out of range", jb->slot);
        } else if (jb->op == GBT_HIST_BUILD) {
            if (jb->node < 0 || (uint32_t)jb->node >= c->max_nodes) {
                s = failf(msg, GBT_E_INTERNAL, "histogram of node %d out of range", jb->node);
            } else {
                c->slot_mark[jb->slot] = 4;
                ++*nb;
            }
        }
    }
    for (int j = 0; j < n && s == 0; j++)
        if (jobs[j].op != GBT_HIST_BUILD) {
            if (!slot_filled(c, jobs[j].src) || !slot_filled(c, jobs[j].slot))
                s = failf(msg, GBT_E_INTERNAL, "histogram subtraction from an empty slot");
            else
                ++*ns;
        }
    if (s == 0 && ((uint32_t)*nb > c->seg_cap || (uint32_t)*ns > c->seg_cap))
        s = failf(msg, GBT_E_INTERNAL, "%d histogram jobs exceed the %u the context holds", n,
                  c->seg_cap);
    for (int j = 0; j < n; j++)
        if (slot_ok(c, jobs[j].slot)) c->slot_mark[jobs[j].slot] = 0;
    return s;
}

/* The BUILD kernels over a's codes: the whole matrix's or (paged) one page's. */
static int launch_builds(gbt_cu_ctx *c, hist_args a, bool paged, char *msg)
{
    if (c->ngroups_shared > 0) {
        a.groups = c->groups;
        build_kernel(c->layout, true, paged)<<<c->hist_blocks_shared * (unsigned)c->ngroups_shared, HIST_THREADS,
                                               c->hist_smem, c->stream>>>(a, c->hist_blocks_shared);
        CU_LAUNCHED("hist_build (shared memory)");
    }
    if (c->ngroups_global > 0) {
        a.groups = c->groups + c->ngroups_shared;
        build_kernel(c->layout, false, paged)<<<c->hist_blocks_global * (unsigned)c->ngroups_global,
                                                HIST_THREADS, 0, c->stream>>>(a, c->hist_blocks_global);
        CU_LAUNCHED("hist_build (global memory)");
    }
    return 0;
}

/* pages_stream's call for one page: the builds of its rows (user: the hist_args of the batch). */
static int build_page(gbt_cu_ctx *c, const page_view &v, void *user, char *msg)
{
    hist_args a = *(const hist_args *)user;
    a.stride = c->nfeat;
    a.codes = v.codes;
    a.row_ptr = v.row_ptr;
    a.slots = v.slots;
    a.row_lo = (uint32_t)v.row_lo;
    a.row_hi = (uint32_t)v.row_hi;
    return launch_builds(c, a, true, msg);
}

/*
 * Runs checked jobs: on success the BUILD slots hold their histograms and
 * slot_mark is clear; on failure gbt_cu_histograms forgets the slots they
 * were writing.
 */
static int run_jobs(gbt_cu_ctx *c, const struct gbt_hist_job *jobs, int n, int nb, int ns, char *msg)
{
    int bi = 0, si = 0, start;
    int32_t *h;
    void *dv;
    const int32_t *d;
    /* [build nodes | build slots | subtract destinations | subtract sources] */
    h = (int32_t *)c->stage[ST_HIST].host;
    CU_FORWARD(stage_ready(c, ST_HIST, msg));
    for (int j = 0; j < n; j++) {
        if (jobs[j].op == GBT_HIST_BUILD) {
            h[bi] = jobs[j].node;
            h[nb + bi] = jobs[j].slot;
            bi++;
        } else {
            h[2 * nb + si] = jobs[j].slot;
            h[2 * nb + ns + si] = jobs[j].src;
            si++;
        }
    }
    CU_FORWARD(upload(c, ST_HIST, h, (size_t)(2 * nb + 2 * ns) * sizeof(int32_t), &dv, msg));
    d = (const int32_t *)dv;

    if (nb > 0) {
        hist_args a;
        memset(&a, 0, sizeof a); /* padding too: the emulator reads every word of a kernel's arguments */
        CU_FORWARD(segments(c, d, 1, nb, msg));
        hist_zero<<<grid_for(c, 2 * (uint64_t)c->total_slots * (uint64_t)nb, 256), 256, 0,
                    c->stream>>>((ull *)c->hist, d + nb, nb, c->total_slots);
        CU_LAUNCHED("hist_zero");
        a.rows = c->rows;
        a.ident = c->root_fresh;
        a.grad = c->grad + (uint64_t)c->cls * c->n;
        a.seg_begin = c->seg_begin;
        a.seg_prefix = c->seg_prefix;
        a.njobs = nb;
        a.job_slot = d + nb;
        a.hist = (ull *)c->hist;
        a.total_slots = c->total_slots;
        a.offset = c->offset;
        if (c->pages) {
            /* page by page, each node's rows in the page (all its rows are visited, the others skipped) */
            CU_FORWARD(pages_stream(c, build_page, &a, msg));
        } else {
            a.stride = c->code_stride;
            a.codes = c->layout == GBT_QM_DENSE8 ? (const void *)c->codes8 : (const void *)c->codes16;
            a.row_ptr = c->row_ptr;
            a.slots = c->slots;
            CU_FORWARD(launch_builds(c, a, false, msg));
        }
    }

    /*
     * Subtractions in job order: one launch for all of them unless a job
     * reads or writes a slot that an earlier job of the launch writes, or
     * writes one it reads (grow.c never does; the CPU backend would run them
     * one after the other).  slot_mark: 1 written, 2 read in this launch.
     */
    start = 0;
    for (int k = 0; k < ns; k++) {
        const int32_t dst = h[2 * nb + k], src = h[2 * nb + ns + k];
        if ((c->slot_mark[src] & 1) || c->slot_mark[dst]) {
            CU_FORWARD(launch_subtract(c, d + 2 * nb + start, d + 2 * nb + ns + start, k - start, msg));
            for (int m = start; m < k; m++) c->slot_mark[h[2 * nb + m]] = c->slot_mark[h[2 * nb + ns + m]] = 0;
            start = k;
        }
        c->slot_mark[dst] |= 1;
        c->slot_mark[src] |= 2;
    }
    CU_FORWARD(launch_subtract(c, d + 2 * nb + start, d + 2 * nb + ns + start, ns - start, msg));
    for (int m = start; m < ns; m++) c->slot_mark[h[2 * nb + m]] = c->slot_mark[h[2 * nb + ns + m]] = 0;
    for (int j = 0; j < n; j++)
        if (jobs[j].op == GBT_HIST_BUILD) c->slot_built[jobs[j].slot] = 1;
    return 0;
}

extern "C" int gbt_cu_histograms(struct gbt_cu_ctx *c, const struct gbt_hist_job *jobs, int n,
                                 char *msg)
{
    gbt_cu::device_scope keep;
    int nb, ns, s;
    if (n <= 0) return 0;
    CU_FORWARD(use_device(c, msg));
    CU_FORWARD(check_jobs(c, jobs, n, &nb, &ns, msg));
    s = run_jobs(c, jobs, n, nb, ns, msg);
    if (s != 0)
        /* the slots the jobs were writing hold partial sums, or may: they hold nothing now */
        for (int j = 0; j < n; j++) {
            c->slot_built[jobs[j].slot] = c->slot_mark[jobs[j].slot] = 0;
            if (jobs[j].op != GBT_HIST_BUILD) c->slot_mark[jobs[j].src] = 0;
        }
    return s;
}
