/*
 * histogram.c - gradient histograms of batches of nodes.
 *
 * The BUILD nodes' histograms are zeroed, then their rows added: the
 * rows of all BUILD nodes, taken in job order, are cut into one
 * contiguous range per thread.  A thread adds a node it covers whole
 * straight into the node's histogram; a node shared by several threads is
 * summed in per-thread scratch histograms that are added up afterwards by
 * ranges of bins.  With pages (a dataset made from batches with a cache
 * prefix) that is done page by page, each node's rows in the page (a
 * node's rows are ascending, partition.c) reading the page's codes; a
 * page without any of the nodes' rows is not read.  The
 * SUBTRACT jobs then run by (job, range of bins).  Sums
 * are exact integers, so the result never depends on the thread count.
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "util/util.h"
#include "cpu/cpu.h"

#define MIN_ROWS_PER_THREAD 1024
/* Rows ahead whose codes and gradients are prefetched: deep nodes touch rows far apart. */
#define PREFETCH 16

/* Rows of a dense matrix of TYPE codes (qmatrix field FIELD), four features at a time. */
#define ADD_ROWS_DENSE(NAME, TYPE, FIELD)                                                       \
    static void NAME(struct gbt_hbin *restrict h, const struct cpu_ctx *c,                      \
                     const struct gbt_qmatrix *m, uint64_t r0, const uint32_t *restrict rows,   \
                     uint64_t n)                                                                \
    {                                                                                           \
        const uint32_t nf = c->nfeat;                                                           \
        const uint32_t *restrict off = c->qm->cuts.offset;                                      \
        const TYPE *restrict codes = m->FIELD;                                                  \
        const struct gbt_gpair *restrict gp = c->grad + (uint64_t)c->cls * c->nrow;             \
        for (uint64_t i = 0; i < n; i++) {                                                      \
            const uint32_t r = rows[i];                                                         \
            const int64_t g = gp[r].g, hh = gp[r].h;                                            \
            const TYPE *restrict row = codes + (r - r0) * nf;                                   \
            if (i + PREFETCH < n) {                                                             \
                __builtin_prefetch(codes + (rows[i + PREFETCH] - r0) * nf);                     \
                __builtin_prefetch(gp + rows[i + PREFETCH]);                                    \
            }                                                                                   \
            uint32_t f = 0;                                                                     \
            for (; f + 4 <= nf; f += 4) {                                                       \
                struct gbt_hbin *b0 = h + off[f] + row[f], *b1 = h + off[f + 1] + row[f + 1];   \
                struct gbt_hbin *b2 = h + off[f + 2] + row[f + 2], *b3 = h + off[f + 3] + row[f + 3]; \
                b0->g += g;                                                                     \
                b0->h += hh;                                                                    \
                b1->g += g;                                                                     \
                b1->h += hh;                                                                    \
                b2->g += g;                                                                     \
                b2->h += hh;                                                                    \
                b3->g += g;                                                                     \
                b3->h += hh;                                                                    \
            }                                                                                   \
            for (; f < nf; f++) {                                                               \
                struct gbt_hbin *b = h + off[f] + row[f];                                       \
                b->g += g;                                                                      \
                b->h += hh;                                                                     \
            }                                                                                   \
        }                                                                                       \
    }
ADD_ROWS_DENSE(add_rows_dense8, uint8_t, codes8)
ADD_ROWS_DENSE(add_rows_dense16, uint16_t, codes16)

static void add_rows_csr(struct gbt_hbin *restrict h, const struct cpu_ctx *c, const struct gbt_qmatrix *m,
                         uint64_t r0, const uint32_t *restrict rows, uint64_t n)
{
    const uint64_t *restrict ptr = m->row_ptr;
    const uint32_t *restrict slots = m->slots;
    const struct gbt_gpair *restrict gp = c->grad + (uint64_t)c->cls * c->nrow;
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t r = rows[i];
        const int64_t g = gp[r].g, hh = gp[r].h;
        if (i + 2 * PREFETCH < n) __builtin_prefetch(ptr + (rows[i + 2 * PREFETCH] - r0));
        if (i + PREFETCH < n) {
            __builtin_prefetch(slots + ptr[rows[i + PREFETCH] - r0]);
            __builtin_prefetch(gp + rows[i + PREFETCH]);
        }
        for (uint64_t e = ptr[r - r0]; e < ptr[r - r0 + 1]; e++) {
            h[slots[e]].g += g;
            h[slots[e]].h += hh;
        }
    }
}

static void add_rows(struct gbt_hbin *h, const struct cpu_ctx *c, const struct gbt_qmatrix *m, uint64_t r0,
                     const uint32_t *rows, uint64_t n)
{
    switch (m->layout) {
    case GBT_QM_DENSE8: add_rows_dense8(h, c, m, r0, rows, n); break;
    case GBT_QM_DENSE16: add_rows_dense16(h, c, m, r0, rows, n); break;
    default: add_rows_csr(h, c, m, r0, rows, n); break;
    }
}

static gbt_status check_jobs(struct cpu_ctx *c, const struct gbt_hist_job *jobs, int n)
{
    const size_t bytes = c->qm->cuts.total_slots * sizeof(struct gbt_hbin);
    for (int j = 0; j < n; j++) {
        const struct gbt_hist_job *jb = &jobs[j];
        RETURN_ERROR_IF(jb->slot < 0 || (uint32_t)jb->slot >= c->max_slots, GBT_E_INTERNAL,
                        "histogram slot %d out of range", jb->slot);
        if (jb->op == GBT_HIST_BUILD) {
            RETURN_ERROR_IF(jb->node < 0 || (uint32_t)jb->node >= c->max_nodes, GBT_E_INTERNAL,
                            "histogram of node %d out of range", jb->node);
            if (c->hist[jb->slot] == NULL)
                FORWARD_IF_ERROR(gbt__alloc(&c->hist[jb->slot], 1, bytes, 0, "histogram"));
        } else {
            RETURN_ERROR_IF(jb->src < 0 || (uint32_t)jb->src >= c->max_slots ||
                                c->hist[jb->src] == NULL || c->hist[jb->slot] == NULL,
                            GBT_E_INTERNAL, "histogram subtraction from an empty slot");
        }
    }
    return GBT_OK;
}

/* Bins per work item when partial histograms are merged and siblings subtracted. */
#define RANGE 1024

/*
 * Adds the BUILD jobs' rows whose codes m holds (row r at r - r0) to their
 * slots: job j's are rows[beg[j], beg[j] + cnt[j]) (unused for the other
 * jobs).
 */
static void add_part(struct cpu_ctx *c, const struct gbt_hist_job *jobs, int n, const struct gbt_qmatrix *m,
                     uint64_t r0, const uint64_t *beg, const uint64_t *cnt)
{
    const uint32_t nslots = c->qm->cuts.total_slots, nranges = (nslots + RANGE - 1) / RANGE;
    uint64_t total = 0;
    int T, npart = 0;
    int partial[256][2];        /* per thread: jobs it shares with others, or -1 */
    int pjob[512];              /* the partials in (thread, slot) order: their jobs */
    const struct gbt_hbin *pbuf[512];
    for (int j = 0; j < n; j++)
        if (jobs[j].op == GBT_HIST_BUILD) total += cnt[j];
    if (total == 0) return;
    T = c->nthread;
    if (T > 256) T = 256;
    if ((uint64_t)T * MIN_ROWS_PER_THREAD > total) T = (int)(total / MIN_ROWS_PER_THREAD);
    if (T < 1) T = 1;
    memset(partial, -1, sizeof partial);
    /*
     * Each thread adds a contiguous range of the jobs' rows: a node it
     * covers whole goes straight into the node's histogram, the ends it
     * shares into its own partials.
     */
#pragma omp parallel num_threads(T)
    {
        int t = 0, nt = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        uint64_t lo = total * (uint64_t)t / (uint64_t)nt, hi = total * (uint64_t)(t + 1) / (uint64_t)nt;
        uint64_t pos = 0;
        int np = 0;
        for (int j = 0; j < n && pos < hi; j++) {
            uint64_t a, b;
            struct gbt_hbin *dst;
            if (jobs[j].op != GBT_HIST_BUILD) continue;
            a = pos > lo ? pos : lo;
            b = pos + cnt[j] < hi ? pos + cnt[j] : hi;
            if (a < b) {
                if (a == pos && b == pos + cnt[j]) {
                    dst = c->hist[jobs[j].slot];
                } else {
                    dst = c->scratch + (size_t)(2 * t + np) * nslots;
                    partial[t][np++] = j;
                    memset(dst, 0, nslots * sizeof *dst);
                }
                add_rows(dst, c, m, r0, c->rows + beg[j] + (a - pos), b - a);
            }
            pos += cnt[j];
        }
    }
    for (int t = 0; t < T; t++)
        for (int e = 0; e < 2; e++) {
            if (partial[t][e] < 0) continue;
            pjob[npart] = partial[t][e];
            pbuf[npart] = c->scratch + (size_t)(2 * t + e) * nslots;
            npart++;
        }
    if (npart == 0) return;
    /* by ranges of bins: the shared histograms get their partials */
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->nthread) \
    if ((uint64_t)npart * nslots >= GBT_CPU_MIN_PARALLEL)
    for (uint32_t rg = 0; rg < nranges; rg++) {
        const uint32_t b0 = rg * RANGE, b1 = b0 + RANGE < nslots ? b0 + RANGE : nslots;
        for (int q = 0; q < npart; q++) {
            struct gbt_hbin *dst = c->hist[jobs[pjob[q]].slot];
            const struct gbt_hbin *src = pbuf[q];
            for (uint32_t i = b0; i < b1; i++) {
                dst[i].g += src[i].g;
                dst[i].h += src[i].h;
            }
        }
    }
}

/*
 * With pages: each page read in turn, and each BUILD node's rows in it (a
 * node's rows are ascending, so they are one run of its range) added.
 */
static gbt_status add_pages(struct cpu_ctx *c, const struct gbt_hist_job *jobs, int n, uint64_t *beg,
                            uint64_t *cnt)
{
    gbt_status s = GBT_OK;
    for (uint64_t i = 0; s == GBT_OK && i < c->npage; i++) {
        const struct gbt_qmatrix *m;
        const uint64_t r0 = gbt__pages_row_begin(c->pages, i), r1 = gbt__pages_row_begin(c->pages, i + 1);
        uint64_t any = 0, first;
        for (int j = 0; j < n; j++) {
            const uint64_t b = c->node_begin[jobs[j].node], e = b + c->node_count[jobs[j].node];
            if (jobs[j].op != GBT_HIST_BUILD) continue;
            beg[j] = gbt__cpu_rows_lower_bound(c, b, e, r0);
            cnt[j] = gbt__cpu_rows_lower_bound(c, beg[j], e, r1) - beg[j];
            any += cnt[j];
        }
        if (any == 0) continue; /* none of the nodes' rows there: the page is not read */
        s = gbt__pages_reader_read(c->reader, i, &m, &first);
        if (s == GBT_OK) add_part(c, jobs, n, m, r0, beg, cnt);
    }
    return s;
}

gbt_status gbt__cpu_histograms(void *p, const struct gbt_hist_job *jobs, int n)
{
    struct cpu_ctx *c = p;
    const uint32_t nslots = c->qm->cuts.total_slots, nranges = (nslots + RANGE - 1) / RANGE;
    uint64_t *beg, *cnt; /* per job: its rows' positions */
    gbt_status s = GBT_OK;
    FORWARD_IF_ERROR(check_jobs(c, jobs, n));
    FORWARD_IF_ERROR(gbt__alloc(&beg, 2 * (size_t)n + 1, sizeof *beg, 0, "histogram jobs"));
    cnt = beg + n;
    /* the BUILD slots zeroed, then the rows added (in pages, page by page), then siblings subtracted */
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->nthread) \
    if ((uint64_t)n * nslots >= GBT_CPU_MIN_PARALLEL)
    for (uint64_t it = 0; it < (uint64_t)n * nranges; it++) {
        const int j = (int)(it / nranges);
        const uint32_t b0 = (uint32_t)(it % nranges) * RANGE;
        const uint32_t b1 = b0 + RANGE < nslots ? b0 + RANGE : nslots;
        if (jobs[j].op == GBT_HIST_BUILD) memset(c->hist[jobs[j].slot] + b0, 0, (b1 - b0) * sizeof(struct gbt_hbin));
    }
    if (c->reader) {
        s = add_pages(c, jobs, n, beg, cnt);
    } else {
        for (int j = 0; j < n; j++)
            if (jobs[j].op == GBT_HIST_BUILD) {
                beg[j] = c->node_begin[jobs[j].node];
                cnt[j] = c->node_count[jobs[j].node];
            }
        add_part(c, jobs, n, c->qm, 0, beg, cnt);
    }
    free(beg);
    FORWARD_IF_ERROR(s);
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->nthread) \
    if ((uint64_t)n * nslots >= GBT_CPU_MIN_PARALLEL)
    for (uint64_t it = 0; it < (uint64_t)n * nranges; it++) {
        const int j = (int)(it / nranges);
        const uint32_t b0 = (uint32_t)(it % nranges) * RANGE;
        const uint32_t b1 = b0 + RANGE < nslots ? b0 + RANGE : nslots;
        struct gbt_hbin *dst, *src;
        if (jobs[j].op != GBT_HIST_SUBTRACT) continue;
        dst = c->hist[jobs[j].slot];
        src = c->hist[jobs[j].src];
        for (uint32_t i = b0; i < b1; i++) {
            dst[i].g -= src[i].g;
            dst[i].h -= src[i].h;
        }
    }
    return GBT_OK;
}
