/*
 * partition.cu - moving the rows of a batch of split nodes, stably, to
 * their children, with no host synchronisation (the host never learns the
 * counts).
 *
 * The batch's rows are T flattened positions (segments, cu_internal.cuh),
 * cut into tiles of TILE positions; the grid covers the largest possible T
 * (all rows), and tiles past T return at once.
 *   part_flags    each position's side (bit i % 32 of word i / 32: 1 left,
 *                 a warp's ballot) and each tile's left count
 *   tile_scan     exclusive prefix of the tile counts (one block, CUB)
 *   part_nodes    per job: the left rows before its first position, its
 *                 left count; the children's begin and count
 *   part_scatter  a CUB block scan of the tile's flags gives each position
 *                 its rank among the left (or right) rows of its node; the
 *                 row goes to begin + rank (or begin + left count + rank)
 *                 of the other half of the row buffer
 *
 * The row buffer holds two lists of n row ids (ping-pong): a node's rows
 * are rows[node_begin .. node_begin + node_count), node_begin in [0, 2n),
 * and its children's rows are the same positions of the other half
 * (begin + n or begin - n), so nothing is copied back.  A node that was
 * split keeps a stale list (its grandchildren overwrite part of its half),
 * so row_half[p] names the half holding position p's current row (the
 * deepest partition's): leaf_apply and gbt_cu_read_rows read through it,
 * since a leaf may be a split node that pruning collapsed.
 */
#include <stddef.h>
#include <string.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "cu_internal.cuh"
#include "common/cat_math.h"

namespace {

using gbt_cu::TILE;
using gbt_cu::TILE_ITEMS;
using gbt_cu::TILE_THREADS;

struct part_args {
    const struct gbt_partition_job *jobs;
    int njobs;
    const uint64_t *seg_begin, *seg_count, *seg_prefix;
    uint32_t nfeat;
    const uint8_t *col8;   /* dense layouts: the codes by column (feature f's at f * n) */
    const uint16_t *col16;
    const uint64_t *row_ptr;
    const uint32_t *slots;
    const uint32_t *offset, *nbins;
    uint32_t *rows; /* both halves: 2 n */
    uint8_t *row_half;
    uint64_t n;
    uint32_t *flags; /* bit i % 32 of word i / 32: position i goes left */
    uint32_t *tile_count, *tile_offset;
    uint64_t *job_sbase, *job_nl;
    uint64_t *node_begin, *node_count;
    const uint32_t *cat_sets; /* njobs sets of cat_words words: a categorical job's bins that go right */
    uint32_t cat_words;
};

/*
 * Row r's code for feature f (nbins[f]: missing), as gbt__qm_code; dense
 * codes from the column copy, so that the rows of a warp that split on
 * the same feature share sectors.
 */
__device__ __forceinline__ uint32_t code_of(const part_args &a, uint32_t r, uint32_t f)
{
    if (a.col8) return a.col8[(uint64_t)f * a.n + r];
    if (a.col16) return a.col16[(uint64_t)f * a.n + r];
    uint64_t lo = a.row_ptr[r], hi = a.row_ptr[r + 1];
    const uint64_t end = hi;
    const uint32_t first = a.offset[f], last = a.offset[f] + a.nbins[f];
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (a.slots[mid] < first)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < end && a.slots[lo] < last) return a.slots[lo] - first;
    return a.nbins[f];
}

__device__ __forceinline__ int goes_left(const part_args &a, const struct gbt_partition_job &jb, int j,
                                         uint32_t r)
{
    const uint32_t f = (uint32_t)jb.feature, code = code_of(a, r, f);
    if (code == a.nbins[f]) return jb.default_left != 0;
    if (jb.is_cat) return !gbt_cat_bit(a.cat_sets + (uint64_t)j * a.cat_words, code);
    return code <= (uint32_t)jb.bin;
}

/* The jobs that positions [first, last] of a tile belong to. */
__device__ __forceinline__ void tile_jobs(const part_args &a, uint64_t first, uint64_t last, int *jlo,
                                          int *jhi)
{
    *jlo = gbt_cu::seg_find(a.seg_prefix, 0, a.njobs - 1, first);
    *jhi = gbt_cu::seg_find(a.seg_prefix, *jlo, a.njobs - 1, last);
}

__global__ void __launch_bounds__(TILE_THREADS) part_flags(part_args a)
{
    typedef cub::BlockReduce<uint32_t, TILE_THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const uint64_t T = a.seg_prefix[a.njobs], base = (uint64_t)blockIdx.x * TILE;
    uint32_t left = 0;
    int jlo, jhi;
    if (base >= T) {
        if (threadIdx.x == 0) a.tile_count[blockIdx.x] = 0;
        return;
    }
    tile_jobs(a, base, (base + TILE < T ? base + TILE : T) - 1, &jlo, &jhi);
    for (int k = 0; k < TILE_ITEMS; k++) {
        /* a warp's 32 positions are consecutive: its ballot is one word of flags */
        const uint64_t i = base + (uint64_t)k * TILE_THREADS + threadIdx.x;
        int l = 0;
        if (i < T) {
            const int j = gbt_cu::seg_find(a.seg_prefix, jlo, jhi, i);
            const uint32_t r = a.rows[a.seg_begin[j] + (i - a.seg_prefix[j])];
            l = goes_left(a, a.jobs[j], j, r);
        }
        const uint32_t word = __ballot_sync(0xffffffffu, l);
        if (threadIdx.x % 32 == 0 && i < T) a.flags[i / 32] = word;
        left += (uint32_t)l;
    }
    left = Reduce(tmp).Sum(left);
    if (threadIdx.x == 0) a.tile_count[blockIdx.x] = left;
}

constexpr int SCAN_THREADS = 1024;

/* tile_offset[t] = sum of tile_count[0 .. t-1], for t in [0, ntiles]. */
__global__ void __launch_bounds__(SCAN_THREADS) tile_scan(const uint32_t *count, uint32_t *offset,
                                                          uint32_t ntiles)
{
    typedef cub::BlockScan<uint32_t, SCAN_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    uint32_t run = 0;
    for (uint32_t b = 0; b < ntiles; b += SCAN_THREADS) {
        const uint32_t t = b + threadIdx.x;
        uint32_t v = t < ntiles ? count[t] : 0, excl, total;
        Scan(tmp).ExclusiveSum(v, excl, total);
        if (t < ntiles) offset[t] = run + excl;
        run += total;
        __syncthreads();
    }
    if (threadIdx.x == 0) offset[ntiles] = run;
}

/* Left rows before flattened position p (p <= T). */
__device__ __forceinline__ uint64_t lefts_before(const part_args &a, uint64_t p)
{
    const uint64_t t = p / TILE;
    uint64_t s = a.tile_offset[t];
    for (uint64_t w = t * TILE / 32; w < p / 32; w++) s += (uint64_t)__popc(a.flags[w]);
    if (p % 32) s += (uint64_t)__popc(a.flags[p / 32] & ((1u << (p % 32)) - 1u));
    return s;
}

/* The same positions in the other half of the row buffer. */
__device__ __forceinline__ uint64_t other_half(const part_args &a, uint64_t begin)
{
    return begin < a.n ? begin + a.n : begin - a.n;
}

/* One thread per job: its children's ranges, in the other half. */
__global__ void part_nodes(part_args a)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= a.njobs) return;
    const struct gbt_partition_job jb = a.jobs[j];
    const uint64_t sb = lefts_before(a, a.seg_prefix[j]);
    const uint64_t nl = lefts_before(a, a.seg_prefix[j + 1]) - sb;
    const uint64_t b = other_half(a, a.seg_begin[j]), cnt = a.seg_count[j];
    a.job_sbase[j] = sb;
    a.job_nl[j] = nl;
    a.node_begin[jb.left] = b;
    a.node_count[jb.left] = nl;
    a.node_begin[jb.right] = b + nl;
    a.node_count[jb.right] = cnt - nl;
}

__global__ void __launch_bounds__(TILE_THREADS) part_scatter(part_args a)
{
    typedef cub::BlockScan<uint32_t, TILE_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    const uint64_t T = a.seg_prefix[a.njobs], base = (uint64_t)blockIdx.x * TILE;
    uint32_t f[TILE_ITEMS], excl[TILE_ITEMS];
    int jlo, jhi;
    if (base >= T) return;
    tile_jobs(a, base, (base + TILE < T ? base + TILE : T) - 1, &jlo, &jhi);
    /* blocked: thread t holds positions base + t * TILE_ITEMS + k */
    for (int k = 0; k < TILE_ITEMS; k++) {
        const uint64_t i = base + (uint64_t)threadIdx.x * TILE_ITEMS + k;
        f[k] = i < T ? (a.flags[i / 32] >> (i % 32)) & 1u : 0;
    }
    Scan(tmp).ExclusiveSum(f, excl);
    const uint64_t tile_lefts = a.tile_offset[blockIdx.x];
    for (int k = 0; k < TILE_ITEMS; k++) {
        const uint64_t i = base + (uint64_t)threadIdx.x * TILE_ITEMS + k;
        if (i >= T) break;
        const int j = gbt_cu::seg_find(a.seg_prefix, jlo, jhi, i);
        const uint64_t local = i - a.seg_prefix[j], b = a.seg_begin[j], o = other_half(a, b);
        const uint64_t rank_left = tile_lefts + excl[k] - a.job_sbase[j];
        const uint64_t dest = f[k] ? o + rank_left : o + a.job_nl[j] + (local - rank_left);
        a.rows[dest] = a.rows[b + local];
        a.row_half[b + local < a.n ? b + local : b + local - a.n] = (uint8_t)(o >= a.n);
    }
}

} // namespace

using namespace gbt_cu;

extern "C" int gbt_cu_partition(struct gbt_cu_ctx *c, const struct gbt_partition_job *jobs, int n,
                                char *msg)
{
    gbt_cu::device_scope keep;
    part_args a;
    memset(&a, 0, sizeof a); /* padding too: the emulator reads every word of a kernel's arguments */
    void *d_jobs;
    if (n <= 0) return 0;
    for (int j = 0; j < n; j++) {
        const struct gbt_partition_job *jb = &jobs[j];
        if (jb->node < 0 || jb->left < 0 || jb->right < 0 || (uint32_t)jb->node >= c->max_nodes ||
            (uint32_t)jb->left >= c->max_nodes || (uint32_t)jb->right >= c->max_nodes ||
            jb->feature < 0 || (uint32_t)jb->feature >= c->nfeat ||
            (jb->is_cat && (jb->cat_set == NULL || c->cat_words == 0)))
            return failf(msg, GBT_E_INTERNAL, "bad partition job for node %d", jb->node);
    }
    if ((uint32_t)n > c->max_slots)
        return failf(msg, GBT_E_INTERNAL, "%d partition jobs exceed the %u the context holds", n,
                     c->max_slots);
    CU_FORWARD(use_device(c, msg));
    CU_FORWARD(upload(c, ST_PART, jobs, (size_t)n * sizeof *jobs, &d_jobs, msg));
    if (c->cat_words) { /* each job's set (zeros for a numeric split), gathered in the staging buffer */
        stage *st = &c->stage[ST_CAT];
        uint32_t *h = (uint32_t *)st->host;
        void *d_sets;
        CU_FORWARD(stage_ready(c, ST_CAT, msg));
        for (int j = 0; j < n; j++)
            for (uint32_t w = 0; w < c->cat_words; w++)
                h[(size_t)j * c->cat_words + w] = jobs[j].is_cat ? jobs[j].cat_set[w] : 0u;
        CU_FORWARD(upload(c, ST_CAT, h, (size_t)n * c->cat_words * 4, &d_sets, msg));
        a.cat_sets = (const uint32_t *)d_sets;
        a.cat_words = c->cat_words;
    }
    a.jobs = (const struct gbt_partition_job *)d_jobs;
    static_assert(offsetof(struct gbt_partition_job, node) == 0, "node ids lead the jobs");
    CU_FORWARD(segments(c, (const int32_t *)d_jobs, (int)(sizeof *jobs / sizeof(int32_t)), n, msg));
    a.njobs = n;
    a.seg_begin = c->seg_begin;
    a.seg_count = c->seg_count;
    a.seg_prefix = c->seg_prefix;
    a.nfeat = c->nfeat;
    a.col8 = c->layout == GBT_QM_DENSE8 ? (const uint8_t *)c->codes_col : NULL;
    a.col16 = c->layout == GBT_QM_DENSE16 ? (const uint16_t *)c->codes_col : NULL;
    a.row_ptr = c->row_ptr;
    a.slots = c->slots;
    a.offset = c->offset;
    a.nbins = c->nbins;
    a.rows = c->rows;
    a.row_half = c->row_half;
    a.n = c->n;
    a.flags = c->flags;
    a.tile_count = c->tile_count;
    a.tile_offset = c->tile_offset;
    a.job_sbase = c->job_sbase;
    a.job_nl = c->job_nl;
    a.node_begin = c->node_begin;
    a.node_count = c->node_count;
    part_flags<<<c->ntiles, TILE_THREADS, 0, c->stream>>>(a);
    CU_LAUNCHED("part_flags");
    tile_scan<<<1, SCAN_THREADS, 0, c->stream>>>(c->tile_count, c->tile_offset, c->ntiles);
    CU_LAUNCHED("tile_scan");
    part_nodes<<<(unsigned)((n + 127) / 128), 128, 0, c->stream>>>(a);
    CU_LAUNCHED("part_nodes");
    part_scatter<<<c->ntiles, TILE_THREADS, 0, c->stream>>>(a);
    CU_LAUNCHED("part_scatter");
    return 0;
}
