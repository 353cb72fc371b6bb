/*
 * partition.c - moving each split node's rows, stably, to its children.
 *
 * The rows of the batch are cut into chunks that never cross a node.  Pass
 * one: each chunk sorts its rows stably into its own range of the scratch
 * list, lefts first (rights wait in a per-thread buffer), and counts them.
 * A scan of the counts gives every chunk its place in the children; pass
 * two copies each chunk's lefts and rights there.
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../util.h"
#include "cpu.h"

#define CHUNK GBT_CPU_CHUNK
#define PREFETCH 16 /* rows ahead whose codes are prefetched */

struct chunk {
    int job;
    uint64_t begin, end;     /* positions in rows */
    uint64_t nleft;
    uint64_t left_at, right_at; /* where its rows go */
};

/*
 * Partitions rows[begin, end) under job jb stably into rows_tmp[begin, end):
 * lefts first, then rights (through `rights`, room for end - begin rows).
 * Returns the number of lefts.  One loop per layout, so the inner loop is a
 * load and a compare.
 */
#define SPLIT_DENSE(NAME, TYPE, FIELD)                                                       \
    static uint64_t NAME(const struct cpu_ctx *c, const struct gbt_partition_job *jb,        \
                         uint64_t begin, uint64_t end, uint32_t *rights)                     \
    {                                                                                        \
        const TYPE *col = c->qm->FIELD + jb->feature;                                        \
        const uint64_t nf = c->nfeat;                                                        \
        const uint32_t miss = c->qm->cuts.nbins[jb->feature], bin = (uint32_t)jb->bin;       \
        const int dl = jb->default_left;                                                     \
        uint32_t *lefts = c->rows_tmp + begin;                                               \
        uint64_t nl = 0, nr = 0;                                                             \
        for (uint64_t k = begin; k < end; k++) {                                             \
            const uint32_t r = c->rows[k], code = col[(uint64_t)r * nf];                     \
            const int l = code == miss ? dl : code <= bin;                                   \
            if (k + PREFETCH < end) __builtin_prefetch(col + (uint64_t)c->rows[k + PREFETCH] * nf); \
            lefts[nl] = r;                                                                   \
            rights[nr] = r;                                                                  \
            nl += (uint64_t)l;                                                               \
            nr += (uint64_t)!l;                                                              \
        }                                                                                    \
        memcpy(lefts + nl, rights, nr * sizeof *rights);                                     \
        return nl;                                                                           \
    }
SPLIT_DENSE(split_dense8, uint8_t, codes8)
SPLIT_DENSE(split_dense16, uint16_t, codes16)

static uint64_t split_csr(const struct cpu_ctx *c, const struct gbt_partition_job *jb, uint64_t begin,
                          uint64_t end, uint32_t *rights)
{
    const uint64_t *ptr = c->qm->row_ptr;
    const uint32_t *slots = c->qm->slots;
    const uint32_t first = c->qm->cuts.offset[jb->feature];
    const uint32_t last = first + c->qm->cuts.nbins[jb->feature], split = first + (uint32_t)jb->bin;
    const int dl = jb->default_left;
    uint32_t *lefts = c->rows_tmp + begin;
    uint64_t nl = 0, nr = 0;
    for (uint64_t k = begin; k < end; k++) {
        const uint32_t r = c->rows[k];
        uint64_t lo = ptr[r], hi = ptr[r + 1];
        int l;
        /* two stages: a row's offsets far ahead, its values nearer (their offsets are cached by then) */
        if (k + 2 * PREFETCH < end) __builtin_prefetch(ptr + c->rows[k + 2 * PREFETCH]);
        if (k + PREFETCH < end) __builtin_prefetch(slots + ptr[c->rows[k + PREFETCH]]);
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            if (slots[mid] < first)
                lo = mid + 1;
            else
                hi = mid;
        }
        l = (lo < ptr[r + 1] && slots[lo] < last) ? slots[lo] <= split : dl;
        lefts[nl] = r;
        rights[nr] = r;
        nl += (uint64_t)l;
        nr += (uint64_t)!l;
    }
    memcpy(lefts + nl, rights, nr * sizeof *rights);
    return nl;
}

gbt_status gbt__cpu_partition(void *p, const struct gbt_partition_job *jobs, int n)
{
    struct cpu_ctx *c = p;
    struct chunk *ch = NULL;
    size_t nch = 0, cap = 0;
    for (int j = 0; j < n; j++) {
        const struct gbt_partition_job *jb = &jobs[j];
        uint64_t b, e;
        RETURN_ERROR_IF(jb->node < 0 || jb->left < 0 || jb->right < 0 ||
                            (uint32_t)jb->node >= c->max_nodes ||
                            (uint32_t)jb->left >= c->max_nodes ||
                            (uint32_t)jb->right >= c->max_nodes || jb->feature < 0 ||
                            (uint32_t)jb->feature >= c->nfeat,
                        GBT_E_INTERNAL, "bad partition job for node %d", jb->node);
        b = c->node_begin[jb->node];
        e = b + c->node_count[jb->node];
        for (uint64_t s = b; s < e || s == b; s += CHUNK) {
            gbt_status st = gbt__reserve(&ch, &cap, nch + 1, sizeof *ch, "partition chunks");
            if (st != GBT_OK) {
                free(ch);
                return st;
            }
            ch[nch].job = j;
            ch[nch].begin = s;
            ch[nch].end = s + CHUNK < e ? s + CHUNK : e;
            nch++;
            if (s + CHUNK >= e) break;
        }
    }
#pragma omp parallel num_threads(c->nthread)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        uint32_t *rights = c->part_scratch + (size_t)t * CHUNK;
#pragma omp for schedule(dynamic, 1)
        for (size_t i = 0; i < nch; i++) {
            const struct gbt_partition_job *jb = &jobs[ch[i].job];
            switch (c->qm->layout) {
            case GBT_QM_DENSE8: ch[i].nleft = split_dense8(c, jb, ch[i].begin, ch[i].end, rights); break;
            case GBT_QM_DENSE16: ch[i].nleft = split_dense16(c, jb, ch[i].begin, ch[i].end, rights); break;
            default: ch[i].nleft = split_csr(c, jb, ch[i].begin, ch[i].end, rights); break;
            }
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
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->nthread)
    for (size_t i = 0; i < nch; i++) {
        const uint64_t nl = ch[i].nleft, nr = ch[i].end - ch[i].begin - nl;
        memcpy(c->rows + ch[i].left_at, c->rows_tmp + ch[i].begin, nl * sizeof(uint32_t));
        memcpy(c->rows + ch[i].right_at, c->rows_tmp + ch[i].begin + nl, nr * sizeof(uint32_t));
    }
    free(ch);
    return GBT_OK;
}
