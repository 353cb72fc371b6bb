/*
 * pages.cu - the pages of a dataset whose binned matrix is on disk
 * (src/data/pages.h) streamed to the device, double-buffered.
 *
 * Two device buffers, each the size of the largest page, and a pinned
 * host buffer for each.  Page k goes through buffer k % 2: read from disk
 * with every check of pages.h (the page reader's own buffer), copied into
 * the pinned buffer once that buffer's previous copy has run, copied to
 * the device on the copy stream once the kernels that read the buffer's
 * previous page are done (an event on the context's stream), and handed to
 * the caller's kernels on the context's stream once the copy is done (an
 * event on the copy stream).  The host therefore reads page k + 1 and its
 * copy runs while page k's kernels run; the host waits only for the copy
 * of page k - 1 before filling its pinned buffer again.
 */
#include <string.h>

#include "cu_internal.cuh"

extern "C" {
#include "data/pages.h"
}

namespace gbt_cu {

int pages_open(gbt_cu_ctx *c, const struct gbt_train_plan *plan, char *msg)
{
    gbt_status s;
    s = gbt__pages_reader_open(plan->pages, plan->qm, &c->reader);
    if (s != GBT_OK) return failf(msg, (int)s, "%s", gbt_last_error());
    CU_CHECK(cudaStreamCreateWithFlags(&c->page_copy, cudaStreamNonBlocking));
    for (int b = 0; b < 2; b++) {
        CU_CHECK(cudaEventCreateWithFlags(&c->page_copied[b], cudaEventDisableTiming));
        CU_CHECK(cudaEventCreateWithFlags(&c->page_used[b], cudaEventDisableTiming));
        CU_CHECK(cudaMallocHost(&c->page_host[b], c->page_cap));
    }
    return 0;
}

void pages_close(gbt_cu_ctx *c)
{
    if (c->page_copy) (void)cudaStreamSynchronize(c->page_copy);
    for (int b = 0; b < 2; b++) {
        if (c->page_host[b]) (void)cudaFreeHost(c->page_host[b]);
        if (c->page_copied[b]) (void)cudaEventDestroy(c->page_copied[b]);
        if (c->page_used[b]) (void)cudaEventDestroy(c->page_used[b]);
    }
    if (c->page_copy) (void)cudaStreamDestroy(c->page_copy);
    gbt__pages_reader_close(c->reader);
    c->reader = NULL;
}

/* Page m's codes into the pinned buffer `to` (CSR: row offsets, then slots); v's pointers into `dev`. */
static size_t pack(const gbt_cu_ctx *c, const struct gbt_qmatrix *m, void *to, void *dev, page_view *v)
{
    const uint64_t n = m->nrow;
    char *h = (char *)to, *d = (char *)dev;
    if (c->layout == GBT_QM_CSR) {
        const size_t ptr_bytes = (n + 1) * sizeof(uint64_t), slot_bytes = m->row_ptr[n] * sizeof(uint32_t);
        memcpy(h, m->row_ptr, ptr_bytes);
        memcpy(h + ptr_bytes, m->slots, slot_bytes);
        v->row_ptr = (const uint64_t *)d;
        v->slots = (const uint32_t *)(d + ptr_bytes);
        return ptr_bytes + slot_bytes;
    }
    const size_t bytes = n * c->nfeat * (c->layout == GBT_QM_DENSE16 ? 2 : 1);
    memcpy(h, c->layout == GBT_QM_DENSE16 ? (const void *)m->codes16 : (const void *)m->codes8, bytes);
    v->codes = d;
    return bytes;
}

int pages_stream(gbt_cu_ctx *c, page_fn fn, void *user, char *msg)
{
    for (uint64_t i = 0; i < c->npage; i++) {
        const int b = (int)(i % 2);
        const struct gbt_qmatrix *m;
        uint64_t r0;
        page_view v;
        size_t bytes;
        gbt_status s = gbt__pages_reader_read(c->reader, i, &m, &r0);
        if (s != GBT_OK) return failf(msg, (int)s, "%s", gbt_last_error());
        memset(&v, 0, sizeof v);
        v.row_lo = r0;
        v.row_hi = r0 + m->nrow;
        /* the pinned buffer's last copy (page i - 2) has run */
        if (c->page_pending[b]) CU_CHECK(cudaEventSynchronize(c->page_copied[b]));
        c->page_pending[b] = 0;
        bytes = pack(c, m, c->page_host[b], c->page_dev[b], &v);
        if (bytes > c->page_cap)
            return failf(msg, GBT_E_INTERNAL, "page %llu of %zu bytes exceeds its %zu-byte buffer",
                         (unsigned long long)i, bytes, c->page_cap);
        /* the device buffer's last page is no longer read, then this page goes there */
        CU_CHECK(cudaStreamWaitEvent(c->page_copy, c->page_used[b], 0));
        CU_CHECK(cudaMemcpyAsync(c->page_dev[b], c->page_host[b], bytes, cudaMemcpyHostToDevice, c->page_copy));
        CU_CHECK(cudaEventRecord(c->page_copied[b], c->page_copy));
        c->page_pending[b] = 1;
        /* its kernels start once it is there */
        CU_CHECK(cudaStreamWaitEvent(c->stream, c->page_copied[b], 0));
        CU_FORWARD(fn(c, v, user, msg));
        CU_CHECK(cudaEventRecord(c->page_used[b], c->stream));
    }
    return 0;
}

} // namespace gbt_cu
