/*
 * partition.c - moving each split node's rows, stably, to its children.
 *
 * The rows of the batch are cut into chunks that never cross a node, about
 * four per thread (2048 to GBT_CPU_CHUNK rows).  Pass one: each chunk sorts
 * its rows stably into its own range of the scratch list, lefts first
 * (rights wait in a per-thread buffer), and counts them, reading the split
 * feature from the column-major copy of the codes.
 * A scan of the counts gives every chunk its place in the children; pass
 * two copies each chunk's lefts and rights there.  Being stable, it keeps
 * each node's rows ascending (begin_tree puts them so), which the pages
 * rely on: with pages (cpu.h) a pass before pass one reads the pages in
 * order and notes each row's side from the page's row-major codes (a
 * node's rows in a page are one run of its range), and pass one reads
 * the notes instead of the column-major copy, which is not built.
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "util/util.h"
#include "cpu/cpu.h"

#define CHUNK GBT_CPU_CHUNK
#define MIN_CHUNK 2048
#define PREFETCH 16 /* rows ahead whose codes are prefetched */

struct chunk {
    int job;
    uint64_t begin, end;     /* positions in rows */
    uint64_t nleft;
    uint64_t left_at, right_at; /* where its rows go */
};

/* The first index in [pos, n) whose value is >= key, galloping forward from pos. */
static inline uint64_t gallop(const uint32_t *a, uint64_t n, uint64_t pos, uint32_t key)
{
    uint64_t step = 1, lo, hi;
    if (pos >= n || a[pos] >= key) return pos;
    lo = pos; /* a[lo] < key */
    while (lo + step < n && a[lo + step] < key) {
        lo += step;
        step *= 2;
    }
    hi = lo + step < n ? lo + step : n;
    lo++;
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * Partitioning rows[begin, end) under a job stably into rows_tmp[begin,
 * end): lefts first, then rights (through `rights`, room for end - begin
 * rows); each returns the number of lefts.  The split feature's codes come
 * from the column-major copy (quantize.h): a dense column is indexed by
 * row; a sparse one is walked forward, since a node's rows are ascending.
 */
#define SPLIT_DENSE_COLUMN(NAME, TYPE)                                                       \
    static uint64_t NAME(const struct cpu_ctx *c, const TYPE *col, uint32_t miss, uint32_t bin, \
                         int dl, uint64_t begin, uint64_t end, uint32_t *rights)               \
    {                                                                                          \
        const uint32_t *restrict rows = c->rows;                                               \
        uint32_t *lefts = c->rows_tmp + begin;                                                 \
        uint64_t nl = 0, nr = 0;                                                               \
        for (uint64_t k = begin; k < end; k++) {                                               \
            const uint32_t r = rows[k], code = col[r];                                         \
            const int l = code == miss ? dl : code <= bin;                                     \
            if (k + PREFETCH < end) __builtin_prefetch(col + rows[k + PREFETCH]);              \
            lefts[nl] = r;                                                                     \
            rights[nr] = r;                                                                    \
            nl += (uint64_t)l;                                                                 \
            nr += (uint64_t)!l;                                                                \
        }                                                                                      \
        memcpy(lefts + nl, rights, nr * sizeof *rights);                                       \
        return nl;                                                                             \
    }
SPLIT_DENSE_COLUMN(split_dense8, uint8_t)
SPLIT_DENSE_COLUMN(split_dense16, uint16_t)

static uint64_t split_sparse(const struct cpu_ctx *c, const uint16_t *col, const uint32_t *crow,
                             uint64_t cn, uint32_t bin, int dl, uint64_t begin, uint64_t end,
                             uint32_t *rights)
{
    const uint32_t *restrict rows = c->rows;
    uint32_t *lefts = c->rows_tmp + begin;
    uint64_t nl = 0, nr = 0, pos = 0;
    for (uint64_t k = begin; k < end; k++) {
        const uint32_t r = rows[k];
        int l;
        pos = gallop(crow, cn, pos, r);
        l = (pos < cn && crow[pos] == r) ? col[pos] <= bin : dl;
        lefts[nl] = r;
        rights[nr] = r;
        nl += (uint64_t)l;
        nr += (uint64_t)!l;
    }
    memcpy(lefts + nl, rights, nr * sizeof *rights);
    return nl;
}

/* Whether a row of the given code goes left under job jb (miss: the feature's missing code). */
static inline int goes_left(const struct gbt_partition_job *jb, uint32_t code, uint32_t miss)
{
    if (code == miss) return jb->default_left;
    if (jb->is_cat) return !((jb->cat_set[code / 32] >> (code % 32)) & 1u);
    return code <= (uint32_t)jb->bin;
}

/*
 * A categorical split: the rows whose code is in the set go right, the
 * others left, missing rows to the default side.  One loop for every
 * layout: code_at reads a dense column of either width, or walks a sparse one.
 */
static uint64_t split_cat(const struct cpu_ctx *c, const struct gbt_partition_job *jb, uint64_t begin,
                          uint64_t end, uint32_t *rights)
{
    const struct gbt_qcols *q = &c->cols;
    const uint32_t f = (uint32_t)jb->feature, miss = c->qm->cuts.nbins[f];
    const uint64_t off = q->col_off[f], cn = q->col_off[f + 1] - off;
    const uint32_t *restrict rows = c->rows;
    uint32_t *lefts = c->rows_tmp + begin;
    uint64_t nl = 0, nr = 0, pos = 0;
    for (uint64_t k = begin; k < end; k++) {
        const uint32_t r = rows[k];
        uint32_t code;
        int l;
        if (q->col_code8) {
            code = q->col_code8[off + r];
        } else if (q->col_dense[f]) {
            code = q->col_code[off + r];
        } else {
            pos = gallop(q->col_row + off, cn, pos, r);
            code = (pos < cn && q->col_row[off + pos] == r) ? q->col_code[off + pos] : miss;
        }
        l = goes_left(jb, code, miss);
        lefts[nl] = r;
        rights[nr] = r;
        nl += (uint64_t)l;
        nr += (uint64_t)!l;
    }
    memcpy(lefts + nl, rights, nr * sizeof *rights);
    return nl;
}

static uint64_t split_rows(const struct cpu_ctx *c, const struct gbt_partition_job *jb, uint64_t begin,
                           uint64_t end, uint32_t *rights)
{
    const struct gbt_qcols *q = &c->cols;
    const uint32_t f = (uint32_t)jb->feature, miss = c->qm->cuts.nbins[f], bin = (uint32_t)jb->bin;
    const uint64_t off = q->col_off[f];
    if (jb->is_cat) return split_cat(c, jb, begin, end, rights);
    if (q->col_code8) return split_dense8(c, q->col_code8 + off, miss, bin, jb->default_left, begin, end, rights);
    if (q->col_dense[f])
        return split_dense16(c, q->col_code + off, miss, bin, jb->default_left, begin, end, rights);
    return split_sparse(c, q->col_code + off, q->col_row + off, q->col_off[f + 1] - off, bin,
                        jb->default_left, begin, end, rights);
}

/* With pages: rows[begin, end) split by the sides decide_pages noted. */
static uint64_t split_noted(const struct cpu_ctx *c, uint64_t begin, uint64_t end, uint32_t *rights)
{
    const uint32_t *restrict rows = c->rows;
    const uint8_t *restrict go = c->go_left;
    uint32_t *lefts = c->rows_tmp + begin;
    uint64_t nl = 0, nr = 0;
    for (uint64_t k = begin; k < end; k++) {
        const uint32_t r = rows[k];
        const int l = go[r];
        lefts[nl] = r;
        rights[nr] = r;
        nl += (uint64_t)l;
        nr += (uint64_t)!l;
    }
    memcpy(lefts + nl, rights, nr * sizeof *rights);
    return nl;
}

/*
 * With pages: each page read in turn, and the side of each split node's
 * rows in it (one run of the node's ascending rows) noted in go_left from
 * the page's row-major codes, in pieces of at most CHUNK rows; a page
 * without any of the nodes' rows is not read.
 */
static gbt_status decide_pages(struct cpu_ctx *c, const struct gbt_partition_job *jobs, int n)
{
    struct chunk *pc = NULL;
    size_t cap = 0;
    gbt_status s = GBT_OK;
    for (uint64_t i = 0; s == GBT_OK && i < c->npage; i++) {
        const struct gbt_qmatrix *m = NULL;
        const uint64_t r0 = gbt__pages_row_begin(c->pages, i), r1 = gbt__pages_row_begin(c->pages, i + 1);
        uint64_t first;
        size_t np = 0;
        for (int j = 0; s == GBT_OK && j < n; j++) {
            const uint64_t b = c->node_begin[jobs[j].node], e = b + c->node_count[jobs[j].node];
            const uint64_t a = gbt__cpu_rows_lower_bound(c, b, e, r0);
            const uint64_t z = gbt__cpu_rows_lower_bound(c, a, e, r1);
            for (uint64_t k = a; k < z && s == GBT_OK; k += CHUNK) {
                s = gbt__reserve(&pc, &cap, np + 1, sizeof *pc, "partition chunks");
                if (s != GBT_OK) break;
                pc[np].job = j;
                pc[np].begin = k;
                pc[np].end = k + CHUNK < z ? k + CHUNK : z;
                np++;
            }
        }
        if (s != GBT_OK || np == 0) continue; /* none of the nodes' rows there: the page is not read */
        s = gbt__pages_reader_read(c->reader, i, &m, &first);
        if (s != GBT_OK) break;
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->nthread) if (np > 1)
        for (size_t q = 0; q < np; q++) {
            const struct gbt_partition_job *jb = &jobs[pc[q].job];
            const uint32_t f = (uint32_t)jb->feature, miss = c->qm->cuts.nbins[f];
            for (uint64_t k = pc[q].begin; k < pc[q].end; k++) {
                const uint32_t r = c->rows[k];
                c->go_left[r] = (uint8_t)goes_left(jb, gbt__qm_code(m, r - r0, f), miss);
            }
        }
    }
    free(pc);
    return s;
}

gbt_status gbt__cpu_partition(void *p, const struct gbt_partition_job *jobs, int n)
{
    struct cpu_ctx *c = p;
    struct chunk *ch = NULL;
    size_t nch = 0, cap = 0;
    uint64_t total = 0, size;
    for (int j = 0; j < n; j++)
        if (jobs[j].node >= 0 && (uint32_t)jobs[j].node < c->max_nodes) total += c->node_count[jobs[j].node];
    /* about four chunks per thread, so that threads finish together; at most CHUNK rows */
    size = total / (4 * (uint64_t)c->nthread);
    size = size < MIN_CHUNK ? MIN_CHUNK : size > CHUNK ? CHUNK : size;
    for (int j = 0; j < n; j++) {
        const struct gbt_partition_job *jb = &jobs[j];
        RETURN_ERROR_IF(jb->node < 0 || jb->left < 0 || jb->right < 0 ||
                            (uint32_t)jb->node >= c->max_nodes ||
                            (uint32_t)jb->left >= c->max_nodes ||
                            (uint32_t)jb->right >= c->max_nodes || jb->feature < 0 ||
                            (uint32_t)jb->feature >= c->nfeat || (jb->is_cat && jb->cat_set == NULL),
                        GBT_E_INTERNAL, "bad partition job for node %d", jb->node);
    }
    if (c->reader) FORWARD_IF_ERROR(decide_pages(c, jobs, n));
    for (int j = 0; j < n; j++) {
        const struct gbt_partition_job *jb = &jobs[j];
        uint64_t b, e;
        b = c->node_begin[jb->node];
        e = b + c->node_count[jb->node];
        for (uint64_t s = b; s < e || s == b; s += size) {
            gbt_status st = gbt__reserve(&ch, &cap, nch + 1, sizeof *ch, "partition chunks");
            if (st != GBT_OK) {
                free(ch);
                return st;
            }
            ch[nch].job = j;
            ch[nch].begin = s;
            ch[nch].end = s + size < e ? s + size : e;
            nch++;
            if (s + size >= e) break;
        }
    }
#pragma omp parallel num_threads(c->nthread) if (nch > 1)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        uint32_t *rights = c->part_scratch + (size_t)t * CHUNK;
#pragma omp for schedule(dynamic, 1)
        for (size_t i = 0; i < nch; i++) {
            ch[i].nleft = c->reader ? split_noted(c, ch[i].begin, ch[i].end, rights)
                                    : split_rows(c, &jobs[ch[i].job], ch[i].begin, ch[i].end, rights);
        }
    }
    for (size_t i = 0; i < nch;) {
        const struct gbt_partition_job *jb = &jobs[ch[i].job];
        uint64_t b = c->node_begin[jb->node], cnt = c->node_count[jb->node], nl = 0, l, r;
        size_t k;
        for (k = i; k < nch && ch[k].job == ch[i].job; k++) nl += ch[k].nleft;
        l = b;
        r = b + nl;
        for (size_t m = i; m < k; m++) {
            ch[m].left_at = l;
            ch[m].right_at = r;
            l += ch[m].nleft;
            r += (ch[m].end - ch[m].begin) - ch[m].nleft;
        }
        c->node_begin[jb->left] = b;
        c->node_count[jb->left] = nl;
        c->node_begin[jb->right] = b + nl;
        c->node_count[jb->right] = cnt - nl;
        i = k;
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->nthread) if (nch > 1)
    for (size_t i = 0; i < nch; i++) {
        const uint64_t nl = ch[i].nleft, nr = ch[i].end - ch[i].begin - nl;
        memcpy(c->rows + ch[i].left_at, c->rows_tmp + ch[i].begin, nl * sizeof(uint32_t));
        memcpy(c->rows + ch[i].right_at, c->rows_tmp + ch[i].begin + nl, nr * sizeof(uint32_t));
    }
    free(ch);
    return GBT_OK;
}
