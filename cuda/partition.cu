/*
 * partition.cu - moving the rows of a batch of split nodes to their
 * children in one pass, with no host synchronisation (the host never
 * learns the counts).
 *
 * The batch's rows are T flattened positions (segments, cu_internal.cuh),
 * cut into tiles of TILE positions; the grid covers the largest possible T
 * (all rows), and tiles past T return at once.
 *   part_move   each position's side (a warp's ballot: bit i % 32 of the
 *               tile's word i / 32, 1 left) and, from the tile's words, its
 *               rank among the left (or right) rows of its node in the
 *               tile; per (tile, node) one atomic add on the node's left
 *               and right counters reserves the tile's places; left rows
 *               go to begin + place, right rows to the end of the node's
 *               range counting down (begin + count - 1 - place), in the
 *               other half of the row buffer
 *   part_nodes  per job: the children's begin and count from the final
 *               left counter
 * A node's rows are therefore in no particular order (the tiles reserve in
 * the order they run): every sum over a node's rows is an integer sum
 * (histograms) or one row's own (leaf values), and the leaf refit sorts
 * them, so the model does not depend on it (docs/determinism.md).  One pass
 * reads each row id once; a stable partition needs a second pass over the
 * row ids or a device-wide scan with look-back.
 *
 * The row buffer holds two lists of n row ids (ping-pong): a node's rows
 * are rows[node_begin .. node_begin + node_count), node_begin in [0, 2n),
 * and its children's rows are the same positions of the other half
 * (begin + n or begin - n), so nothing is copied back.  A node that was
 * split keeps a stale list (its grandchildren overwrite part of its half);
 * the host keeps each split node's children (gbt_cu_ctx.kids), so a leaf
 * that pruning made of a split node is read through the nodes below it
 * that were never split (leaf.cu, gbt_cu_read_rows).
 *
 * Until the root is partitioned its list is implicit (`ident`): position p
 * holds row p, and nothing writes or reads the row buffer for it.
 *
 * With pages on disk (pages.cu) there are no codes on the device: per page
 * part_note notes the side of each of the batch's rows in the page (a byte
 * a row, from the page's row-major codes), then part_move<true> reads the
 * notes instead of the codes.
 */
#include <stddef.h>
#include <string.h>

#include "cu_internal.cuh"
#include "common/cat_math.h"

namespace {

using gbt_cu::TILE;
using gbt_cu::TILE_ITEMS;
using gbt_cu::TILE_THREADS;

struct part_args {
    const struct gbt_partition_job *jobs;
    int njobs;
    int ident; /* the root's list is implicit: position p holds row p */
    const uint64_t *seg_begin, *seg_count, *seg_prefix;
    uint32_t nfeat;
    const uint8_t *col8;   /* dense layouts: the codes by column (feature f's at f * n) */
    const uint16_t *col16;
    const uint64_t *row_ptr;
    const uint32_t *slots;
    const uint32_t *offset, *nbins;
    uint32_t *rows; /* both halves: 2 n */
    uint64_t n;
    uint32_t *fill; /* per job: left rows placed, right rows placed (zeroed before part_move) */
    uint64_t *node_begin, *node_count;
    const uint32_t *cat_sets; /* njobs sets of cat_words words: a categorical job's bins that go right */
    uint32_t cat_words;
    /*
     * With pages: part_note's page (rows [page_lo, page_hi), row-major
     * dense codes, nfeat a row, or CSR offsets from 0 and slots), and the
     * side of each row that part_note writes and part_move<true> reads.
     */
    uint64_t page_lo, page_hi;
    const uint8_t *page8;
    const uint16_t *page16;
    const uint64_t *page_ptr;
    const uint32_t *page_slots;
    uint8_t *noted;
};

/* Feature f's code in the CSR row of slots [lo, hi) (nbins[f]: missing). */
__device__ __forceinline__ uint32_t csr_code(const part_args &a, const uint32_t *slots, uint64_t lo, uint64_t hi,
                                             uint32_t f)
{
    const uint64_t end = hi;
    const uint32_t first = a.offset[f], last = a.offset[f] + a.nbins[f];
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (slots[mid] < first)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < end && slots[lo] < last) return slots[lo] - first;
    return a.nbins[f];
}

/*
 * Row r's code for feature f (nbins[f]: missing), as gbt__qm_code; dense
 * codes from the column copy, so that the rows of a warp that split on
 * the same feature share sectors.
 */
__device__ __forceinline__ uint32_t code_of(const part_args &a, uint32_t r, uint32_t f)
{
    if (a.col8) return a.col8[(uint64_t)f * a.n + r];
    if (a.col16) return a.col16[(uint64_t)f * a.n + r];
    return csr_code(a, a.slots, a.row_ptr[r], a.row_ptr[r + 1], f);
}

/* Row k of part_note's page: its code for feature f. */
__device__ __forceinline__ uint32_t page_code(const part_args &a, uint64_t k, uint32_t f)
{
    if (a.page8) return a.page8[k * a.nfeat + f];
    if (a.page16) return a.page16[k * a.nfeat + f];
    return csr_code(a, a.page_slots, a.page_ptr[k], a.page_ptr[k + 1], f);
}

/* Whether a row of the given code goes left under job j. */
__device__ __forceinline__ int side_of(const part_args &a, const struct gbt_partition_job &jb, int j, uint32_t code)
{
    const uint32_t f = (uint32_t)jb.feature;
    if (code == a.nbins[f]) return jb.default_left != 0;
    if (jb.is_cat) return !gbt_cat_bit(a.cat_sets + (uint64_t)j * a.cat_words, code);
    return code <= (uint32_t)jb.bin;
}

__device__ __forceinline__ int goes_left(const part_args &a, const struct gbt_partition_job &jb, int j,
                                         uint32_t r)
{
    return side_of(a, jb, j, code_of(a, r, (uint32_t)jb.feature));
}

/* The jobs that positions [first, last] of a tile belong to. */
__device__ __forceinline__ void tile_jobs(const part_args &a, uint64_t first, uint64_t last, int *jlo,
                                          int *jhi)
{
    *jlo = gbt_cu::seg_find(a.seg_prefix, 0, a.njobs - 1, first);
    *jhi = gbt_cu::seg_find(a.seg_prefix, *jlo, a.njobs - 1, last);
}

/* The same positions in the other half of the row buffer. */
__device__ __forceinline__ uint64_t other_half(const part_args &a, uint64_t begin)
{
    return begin < a.n ? begin + a.n : begin - a.n;
}

/* Left positions of the tile before tile position q (0 <= q <= TILE). */
__device__ __forceinline__ uint32_t lefts_before(const uint32_t *word, const uint32_t *before, uint32_t q)
{
    const uint32_t w = q / 32, b = q % 32;
    return before[w] + (b ? (uint32_t)__popc(word[w] & ((1u << b) - 1u)) : 0u);
}

/*
 * A thread's last job and its segment, loaded once: its positions rise with
 * k, so their jobs do too, and a tile meets few jobs.
 */
struct job_cache {
    int j = -1;
    uint64_t first = 0, next = 0, begin = 0, count = 0; /* seg_prefix[j], seg_prefix[j + 1], seg_begin[j], seg_count[j] */
    struct gbt_partition_job jb = {};
    __device__ __forceinline__ void load(const part_args &a, int job)
    {
        if (job == j) return;
        j = job;
        first = a.seg_prefix[job];
        next = a.seg_prefix[job + 1];
        begin = a.seg_begin[job];
        count = a.seg_count[job];
        jb = a.jobs[job];
    }
};

/*
 * With pages, for the rows of the batch in part_note's page: each one's
 * side noted, from the page's codes (a grid-stride loop over the batch's
 * positions; the other pages note the other rows).
 */
__global__ void __launch_bounds__(256, 8) part_note(part_args a)
{
    const uint64_t T = a.seg_prefix[a.njobs];
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < T; i += (uint64_t)gridDim.x * blockDim.x) {
        const int j = gbt_cu::seg_find(a.seg_prefix, 0, a.njobs - 1, i);
        const uint64_t p = a.seg_begin[j] + (i - a.seg_prefix[j]);
        const uint32_t r = a.ident ? (uint32_t)p : a.rows[p];
        if (r < a.page_lo || r >= a.page_hi) continue;
        const uint32_t f = (uint32_t)a.jobs[j].feature;
        a.noted[r] = (uint8_t)side_of(a, a.jobs[j], j, page_code(a, r - a.page_lo, f));
    }
}

/*
 * NOTED: each row's side from part_note's notes, else from the codes.
 * Budget: five blocks of 256 per SM (62%), at most 48 registers; it compiled to 64 (half the SM)
 * with the block size alone as its bound, and spills 80 bytes at six blocks (40 registers).
 */
template <bool NOTED>
__global__ void __launch_bounds__(TILE_THREADS, 5) part_move(part_args a)
{
    __shared__ uint32_t word[TILE / 32];       /* the tile's sides, a bit per position */
    __shared__ uint32_t before[TILE / 32 + 1]; /* left positions before each word */
    __shared__ uint32_t lplace[TILE]; /* at a node's first tile position: its first left place */
    __shared__ uint32_t rplace[TILE]; /* and its first right place */
    const uint64_t T = a.seg_prefix[a.njobs], base = (uint64_t)blockIdx.x * TILE;
    uint32_t row[TILE_ITEMS];
    int job[TILE_ITEMS];
    int jlo, jhi;
    if (base >= T) return;
    const uint64_t end = base + TILE < T ? base + TILE : T;
    tile_jobs(a, base, end - 1, &jlo, &jhi);
    job_cache jc;
    /* striped: thread t holds positions base + k * TILE_THREADS + t, a warp 32 consecutive ones */
    for (int k = 0; k < TILE_ITEMS; k++) {
        const uint32_t q = (uint32_t)k * TILE_THREADS + threadIdx.x;
        const uint64_t i = base + q;
        int l = 0;
        row[k] = 0;
        job[k] = -1;
        if (i < end) {
            const int j = jc.j >= 0 && i < jc.next ? jc.j : gbt_cu::seg_find(a.seg_prefix, jlo, jhi, i);
            jc.load(a, j);
            const uint64_t p = jc.begin + (i - jc.first);
            const uint32_t r = a.ident ? (uint32_t)p : a.rows[p];
            l = NOTED ? a.noted[r] : goes_left(a, jc.jb, j, r);
            row[k] = r;
            job[k] = j;
        }
        const uint32_t w = __ballot_sync(0xffffffffu, l);
        if (threadIdx.x % 32 == 0) word[q / 32] = w;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t run = 0;
        for (uint32_t w = 0; w < TILE / 32; w++) {
            before[w] = run;
            run += (uint32_t)__popc(word[w]);
        }
        before[TILE / 32] = run;
    }
    __syncthreads();
    /* the thread of a node's first position in the tile reserves the tile's places for it */
    for (int k = 0; k < TILE_ITEMS; k++) {
        const int j = job[k];
        const uint64_t i = base + (uint64_t)k * TILE_THREADS + threadIdx.x;
        if (j < 0) continue;
        jc.load(a, j);
        const uint64_t fp = jc.first > base ? jc.first : base;
        if (i != fp) continue;
        const uint64_t ep = jc.next < end ? jc.next : end;
        const uint32_t nl = lefts_before(word, before, (uint32_t)(ep - base)) -
                            lefts_before(word, before, (uint32_t)(fp - base));
        const uint32_t nr = (uint32_t)(ep - fp) - nl;
        lplace[fp - base] = nl ? atomicAdd(&a.fill[2 * j], nl) : 0u;
        rplace[fp - base] = nr ? atomicAdd(&a.fill[2 * j + 1], nr) : 0u;
    }
    __syncthreads();
    for (int k = 0; k < TILE_ITEMS; k++) {
        const int j = job[k];
        const uint32_t q = (uint32_t)k * TILE_THREADS + threadIdx.x;
        if (j < 0) continue;
        jc.load(a, j);
        const uint32_t fq = (uint32_t)((jc.first > base ? jc.first : base) - base);
        const uint32_t ll = lefts_before(word, before, q) - lefts_before(word, before, fq);
        const uint64_t o = other_half(a, jc.begin);
        uint64_t dest;
        if ((word[q / 32] >> (q % 32)) & 1u)
            dest = o + lplace[fq] + ll;
        else
            dest = o + jc.count - 1 - (rplace[fq] + (q - fq - ll));
        a.rows[dest] = row[k];
    }
}

/* One thread per job: its children's ranges, in the other half. */
__global__ void __launch_bounds__(128, 16) part_nodes(part_args a)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= a.njobs) return;
    const struct gbt_partition_job jb = a.jobs[j];
    const uint64_t nl = a.fill[2 * j];
    const uint64_t b = other_half(a, a.seg_begin[j]), cnt = a.seg_count[j];
    a.node_begin[jb.left] = b;
    a.node_count[jb.left] = nl;
    a.node_begin[jb.right] = b + nl;
    a.node_count[jb.right] = cnt - nl;
}

} // namespace

using namespace gbt_cu;

/* pages_stream's call for one page: the sides of the batch's rows in it (user: the part_args of the batch). */
static int note_page(gbt_cu_ctx *c, const page_view &v, void *user, char *msg)
{
    part_args a = *(const part_args *)user;
    a.page_lo = v.row_lo;
    a.page_hi = v.row_hi;
    a.page8 = c->layout == GBT_QM_DENSE8 ? (const uint8_t *)v.codes : NULL;
    a.page16 = c->layout == GBT_QM_DENSE16 ? (const uint16_t *)v.codes : NULL;
    a.page_ptr = v.row_ptr;
    a.page_slots = v.slots;
    part_note<<<grid_for(c, c->n, 256), 256, 0, c->stream>>>(a);
    CU_LAUNCHED("part_note");
    return 0;
}

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
    a.n = c->n;
    a.fill = c->part_fill;
    a.node_begin = c->node_begin;
    a.node_count = c->node_count;
    a.ident = c->root_fresh;
    CU_CHECK(cudaMemsetAsync(c->part_fill, 0, (size_t)n * 2 * sizeof(uint32_t), c->stream));
    if (c->pages) {
        a.noted = c->noted;
        CU_FORWARD(pages_stream(c, note_page, &a, msg));
        part_move<true><<<c->ntiles, TILE_THREADS, 0, c->stream>>>(a);
    } else {
        part_move<false><<<c->ntiles, TILE_THREADS, 0, c->stream>>>(a);
    }
    CU_LAUNCHED("part_move");
    part_nodes<<<(unsigned)((n + 127) / 128), 128, 0, c->stream>>>(a);
    CU_LAUNCHED("part_nodes");
    /* the children are known to the host, for leaves made of split nodes (leaf.cu) */
    for (int j = 0; j < n; j++) {
        c->kids[2 * (size_t)jobs[j].node] = jobs[j].left;
        c->kids[2 * (size_t)jobs[j].node + 1] = jobs[j].right;
    }
    c->root_fresh = 0;
    return 0;
}
