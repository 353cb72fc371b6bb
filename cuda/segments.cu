/*
 * segments.cu - the row ranges of a batch of nodes, on the device (see
 * cu_internal.cuh): each job's begin and count, and the exclusive prefix of
 * the counts, by one block with a CUB block scan.
 */
#include <cub/block/block_scan.cuh>

#include "cu_internal.cuh"

namespace {

/*
 * One block (its occupancy does not matter) of 256 threads: with 1024, ptxas
 * had 64 registers a thread for the 64-bit block scan and spilled 144 bytes.
 */
constexpr int SEG_THREADS = 256;

__global__ void __launch_bounds__(SEG_THREADS, 1)
    seg_prepare(const int32_t *ids, int stride, int n, const uint64_t *node_begin,
                const uint64_t *node_count, uint64_t *seg_begin, uint64_t *seg_count,
                uint64_t *seg_prefix)
{
    typedef cub::BlockScan<unsigned long long, SEG_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    unsigned long long run = 0;
    for (int base = 0; base < n; base += SEG_THREADS) {
        const int j = base + (int)threadIdx.x;
        unsigned long long cnt = 0, excl, total;
        if (j < n) {
            const int32_t node = ids[(size_t)j * (size_t)stride];
            seg_begin[j] = node_begin[node];
            cnt = node_count[node];
            seg_count[j] = cnt;
        }
        Scan(tmp).ExclusiveSum(cnt, excl, total);
        if (j < n) seg_prefix[j] = run + excl;
        run += total;
        __syncthreads(); /* tmp is reused */
    }
    if (threadIdx.x == 0) seg_prefix[n] = run;
}

} // namespace

namespace gbt_cu {

int segments(gbt_cu_ctx *c, const int32_t *node_ids, int stride, int n, char *msg)
{
    if (n < 0 || (uint32_t)n > c->seg_cap)
        return failf(msg, GBT_E_INTERNAL, "a batch of %d nodes exceeds the %u the context holds", n,
                     c->seg_cap);
    seg_prepare<<<1, SEG_THREADS, 0, c->stream>>>(node_ids, stride, n, c->node_begin,
                                                  c->node_count, c->seg_begin, c->seg_count,
                                                  c->seg_prefix);
    CU_LAUNCHED("seg_prepare");
    return 0;
}

} // namespace gbt_cu
