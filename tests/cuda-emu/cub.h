/*
 * cub.h - the emulator's CUB: host versions of exactly the block and warp
 * collectives that cuda/ uses, with CUB's contract enforced.
 *
 *   cub::BlockScan<T, BLOCK_THREADS>   ExclusiveSum (one item or an array of
 *                                      items per thread, with or without the
 *                                      block aggregate), InclusiveSum
 *   cub::BlockReduce<T, BLOCK_THREADS> Sum: the total in thread 0 only, the
 *                                      other threads get poison (as CUB
 *                                      leaves them undefined)
 *   cub::WarpScan<T>                   InclusiveSum and ExclusiveSum over a
 *                                      warp of 32 lanes
 *   cub::DeviceScan                    ExclusiveSum, InclusiveSum (host calls)
 *   cub::DeviceSegmentedRadixSort      SortPairs, ascending (host call)
 *
 * The device-wide algorithms are host calls, as in CUB: a call with
 * d_temp_storage NULL sets temp_storage_bytes to the scratch that call
 * needs and does nothing else; a call with storage first checks what it was
 * given, as CUB does (detail::AliasTemporaries in CUB's
 * util_temporary_storage.cuh): a temp_storage_bytes below the need, or a
 * d_temp_storage that is not device memory holding that many bytes, returns
 * cudaErrorInvalidValue (not sticky: CUB returns it without a CUDA call)
 * and is reported.  The need is CUB 13's formula where it is fixed (the
 * segmented radix sort: a third keys buffer and a third values buffer of
 * num_items each), or a bound at least as large (the scan: its tile states
 * counted for tiles of 256 items, fewer than any of CUB's scan policies
 * take, and 16 bytes of status and two payloads per state), each piece
 * rounded up to 256 bytes plus 255 for aligning the base.  Then the call
 * enqueues the work on the stream as a launch of one thread (named after
 * the algorithm), which computes it in order: a stable sort per segment, a
 * running sum.  Pointers are checked as kernel arguments are (device memory
 * only).
 *
 * Every thread of the block (every lane of the warp) must call the same
 * collective at the same place; each waits for the others there (a barrier
 * that is not a __syncthreads for the user).  A TempStorage used again
 * without a __syncthreads (block collectives) or a __syncwarp/__syncthreads
 * (warp collectives) between the two uses is reported, as CUB requires.
 * The sums are computed in thread order by the last thread to arrive.
 */
#ifndef GBT_EMU_CUB_H
#define GBT_EMU_CUB_H

#include <algorithm>
#include <utility>
#include <vector>

#include "emu.h"

namespace cub {

namespace detail {

constexpr uint64_t STORAGE_MAGIC = 0x6762742d63756221ull; /* fresh shared memory holds poison */

/* Reports a TempStorage reused without the barrier CUB requires. */
inline void check_reuse(uint64_t magic, uint64_t last_epoch, uint64_t epoch, const char *what,
                        const ::gbt_emu::site &first, ::gbt_emu::site w)
{
    if (magic == STORAGE_MAGIC && last_epoch == epoch)
        ::gbt_emu::device_error(w,
                                "%s TempStorage used again without a %s since its use at %s:%d "
                                "(CUB requires one between uses)",
                                what, what[0] == 'W' ? "__syncwarp or __syncthreads" : "__syncthreads",
                                first.file, first.line);
}

inline unsigned block_rank(void)
{
    const ::gbt_emu::thread_ids *c = ::gbt_emu::current;
    return c->tid.x + c->bdim.x * (c->tid.y + c->bdim.y * c->tid.z);
}

/* out[i] = the sum of in[0 .. i-1], in order; returns the sum of all n. */
template <typename T>
T exclusive_prefix(const T *in, T *out, int n)
{
    T run = T();
    for (int i = 0; i < n; i++) {
        out[i] = run;
        run = run + in[i];
    }
    return run;
}

inline void check_block(unsigned threads, const char *what, ::gbt_emu::site w)
{
    const ::gbt_emu::thread_ids *c = ::gbt_emu::current;
    if (c->bdim.x * c->bdim.y * c->bdim.z != threads)
        ::gbt_emu::device_error(w, "%s for %u threads used in a block of %u threads", what, threads,
                                c->bdim.x * c->bdim.y * c->bdim.z);
}

} // namespace detail

template <typename T, int BLOCK_THREADS>
class BlockScan {
  public:
    struct TempStorage {
        uint64_t magic, epoch;
        ::gbt_emu::site first;
        T slot[BLOCK_THREADS], out[BLOCK_THREADS], aggregate;
    };

    explicit BlockScan(TempStorage &s) : st(s) {}

    void ExclusiveSum(T input, T &output, T &block_aggregate, ::gbt_emu::site w = GBT_EMU_HERE)
    {
        output = scan(input, block_aggregate, w);
    }

    void ExclusiveSum(T input, T &output, ::gbt_emu::site w = GBT_EMU_HERE)
    {
        T agg;
        output = scan(input, agg, w);
    }

    template <int ITEMS>
    void ExclusiveSum(T (&input)[ITEMS], T (&output)[ITEMS], T &block_aggregate,
                      ::gbt_emu::site w = GBT_EMU_HERE)
    {
        T total = T(), run;
        for (int i = 0; i < ITEMS; i++) total = total + input[i];
        run = scan(total, block_aggregate, w);
        for (int i = 0; i < ITEMS; i++) {
            output[i] = run;
            run = run + input[i];
        }
    }

    template <int ITEMS>
    void ExclusiveSum(T (&input)[ITEMS], T (&output)[ITEMS], ::gbt_emu::site w = GBT_EMU_HERE)
    {
        T agg;
        ExclusiveSum(input, output, agg, w);
    }

    void InclusiveSum(T input, T &output, T &block_aggregate, ::gbt_emu::site w = GBT_EMU_HERE)
    {
        output = scan(input, block_aggregate, w) + input;
    }

    void InclusiveSum(T input, T &output, ::gbt_emu::site w = GBT_EMU_HERE)
    {
        T agg;
        output = scan(input, agg, w) + input;
    }

  private:
    TempStorage &st;

    static void hook(void *p)
    {
        TempStorage *s = static_cast<TempStorage *>(p);
        s->aggregate = detail::exclusive_prefix(s->slot, s->out, BLOCK_THREADS);
        s->magic = detail::STORAGE_MAGIC;
        s->epoch = ::gbt_emu::block_epoch();
    }

    /* The exclusive prefix of this thread's value; every thread gets the aggregate. */
    T scan(T v, T &aggregate, ::gbt_emu::site w)
    {
        const unsigned r = detail::block_rank();
        detail::check_block(BLOCK_THREADS, "cub::BlockScan", w);
        detail::check_reuse(st.magic, st.epoch, ::gbt_emu::block_epoch(), "BlockScan", st.first, w);
        if (r == 0) st.first = w;
        st.slot[r] = v;
        ::gbt_emu::block_barrier(w, false, hook, &st);
        aggregate = st.aggregate;
        return st.out[r];
    }
};

template <typename T, int BLOCK_THREADS>
class BlockReduce {
  public:
    struct TempStorage {
        uint64_t magic, epoch;
        ::gbt_emu::site first;
        T slot[BLOCK_THREADS], total;
    };

    explicit BlockReduce(TempStorage &s) : st(s) {}

    /* The block's total in thread 0; poison in the others. */
    T Sum(T input, ::gbt_emu::site w = GBT_EMU_HERE)
    {
        const unsigned r = detail::block_rank();
        detail::check_block(BLOCK_THREADS, "cub::BlockReduce", w);
        detail::check_reuse(st.magic, st.epoch, ::gbt_emu::block_epoch(), "BlockReduce", st.first, w);
        if (r == 0) st.first = w;
        st.slot[r] = input;
        ::gbt_emu::block_barrier(w, false, hook, &st);
        return r == 0 ? st.total : ::gbt_emu::poison<T>();
    }

  private:
    TempStorage &st;

    static void hook(void *p)
    {
        TempStorage *s = static_cast<TempStorage *>(p);
        T run = T();
        for (int i = 0; i < BLOCK_THREADS; i++) run = run + s->slot[i];
        s->total = run;
        s->magic = detail::STORAGE_MAGIC;
        s->epoch = ::gbt_emu::block_epoch();
    }
};

template <typename T, int LOGICAL_WARP_THREADS = 32>
class WarpScan {
    static_assert(LOGICAL_WARP_THREADS == 32, "the emulator's WarpScan covers whole warps only");

  public:
    struct TempStorage {
        uint64_t magic, epoch;
        ::gbt_emu::site first;
        T slot[32], out[32], aggregate;
    };

    explicit WarpScan(TempStorage &s) : st(s) {}

    void InclusiveSum(T input, T &inclusive, T &warp_aggregate, ::gbt_emu::site w = GBT_EMU_HERE)
    {
        inclusive = scan(input, warp_aggregate, w) + input;
    }

    void InclusiveSum(T input, T &inclusive, ::gbt_emu::site w = GBT_EMU_HERE)
    {
        T agg;
        inclusive = scan(input, agg, w) + input;
    }

    void ExclusiveSum(T input, T &exclusive, T &warp_aggregate, ::gbt_emu::site w = GBT_EMU_HERE)
    {
        exclusive = scan(input, warp_aggregate, w);
    }

    void ExclusiveSum(T input, T &exclusive, ::gbt_emu::site w = GBT_EMU_HERE)
    {
        T agg;
        exclusive = scan(input, agg, w);
    }

  private:
    TempStorage &st;

    static void hook(void *p)
    {
        TempStorage *s = static_cast<TempStorage *>(p);
        s->aggregate = detail::exclusive_prefix(s->slot, s->out, 32);
        s->magic = detail::STORAGE_MAGIC;
        s->epoch = ::gbt_emu::warp_epoch();
    }

    T scan(T v, T &aggregate, ::gbt_emu::site w)
    {
        const unsigned lane = ::gbt_emu::current->lane;
        detail::check_reuse(st.magic, st.epoch, ::gbt_emu::warp_epoch(), "WarpScan", st.first, w);
        if (lane == 0) st.first = w;
        st.slot[lane] = v;
        (void)::gbt_emu::warp_op(0xffffffffu, ::gbt_emu::W_COLLECTIVE, w, 0, 0, hook, &st);
        aggregate = st.aggregate;
        return st.out[lane];
    }
};

/* ---- device-wide algorithms (host calls) --------------------------------------- */

namespace detail {

/* CUB's AliasTemporaries: each piece rounded up to 256 bytes, and 255 more to align the base. */
inline size_t alias_bytes(const size_t *pieces, int n)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) total += (pieces[i] + 255) & ~(size_t)255;
    return total + 255;
}

/*
 * The size query (temp == NULL: bytes = need) or the check of the scratch
 * given: too few bytes, or a buffer that is not device memory of that size,
 * is cudaErrorInvalidValue, as CUB returns for the first.
 */
inline cudaError_t scratch(const char *what, void *temp, size_t &bytes, size_t need)
{
    if (temp == NULL) {
        bytes = need;
        return cudaSuccess;
    }
    if (bytes < need) {
        ::gbt_emu::host_report("%s: temp_storage_bytes %zu is less than the %zu bytes this call needs "
                               "(cudaErrorInvalidValue, as CUB returns)",
                               what, bytes, need);
        return cudaErrorInvalidValue;
    }
    if (!::gbt_emu::device_bytes(temp, need)) {
        ::gbt_emu::host_report("%s: d_temp_storage does not hold the %zu bytes this call needs in one device "
                               "allocation (cudaErrorInvalidValue)",
                               what, need);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* A bound on DeviceScan's scratch: its tile states (tiles of at least 256 items, 32 padding states). */
template <typename T>
size_t scan_bytes(long long n)
{
    const size_t states = (size_t)((n + 255) / 256) + 32;
    const size_t pieces[3] = {states * 16, states * sizeof(T), states * sizeof(T)};
    return alias_bytes(pieces, 3);
}

template <typename In, typename Out, typename N>
void scan_kernel(In in, Out out, N n, int inclusive)
{
    typedef typename std::remove_cv<typename std::remove_reference<decltype(*out)>::type>::type T;
    T run = T();
    for (N i = 0; i < n; i++) {
        const T v = in[i];
        if (inclusive) run = run + v;
        out[i] = run;
        if (!inclusive) run = run + v;
    }
}

template <typename K, typename V, typename B, typename E>
void segsort_kernel(const K *kin, K *kout, const V *vin, V *vout, int nseg, B begin, E end)
{
    for (int s = 0; s < nseg; s++) {
        const long long b = (long long)begin[s], e = (long long)end[s];
        if (e <= b) continue;
        std::vector<std::pair<K, V>> run((size_t)(e - b));
        for (long long i = b; i < e; i++) run[(size_t)(i - b)] = std::make_pair(kin[i], vin[i]);
        std::stable_sort(run.begin(), run.end(),
                         [](const std::pair<K, V> &x, const std::pair<K, V> &y) { return x.first < y.first; });
        for (long long i = b; i < e; i++) {
            kout[i] = run[(size_t)(i - b)].first;
            vout[i] = run[(size_t)(i - b)].second;
        }
    }
}

} // namespace detail

struct DeviceScan {
    template <typename In, typename Out, typename N>
    static cudaError_t ExclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, N num_items,
                                    cudaStream_t stream = 0)
    {
        return run(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, 0, stream);
    }
    template <typename In, typename Out, typename N>
    static cudaError_t InclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, N num_items,
                                    cudaStream_t stream = 0)
    {
        return run(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, 1, stream);
    }

  private:
    template <typename In, typename Out, typename N>
    static cudaError_t run(void *temp, size_t &bytes, In in, Out out, N n, int inclusive, cudaStream_t stream)
    {
        typedef typename std::remove_cv<typename std::remove_reference<decltype(*out)>::type>::type T;
        const cudaError_t e = detail::scratch(inclusive ? "cub::DeviceScan::InclusiveSum" : "cub::DeviceScan::ExclusiveSum",
                                              temp, bytes, detail::scan_bytes<T>((long long)n));
        if (e != cudaSuccess || temp == NULL) return e;
        if (n == 0) return cudaSuccess;
        ::gbt_emu::launch("cub::DeviceScan", __FILE__, __LINE__, &detail::scan_kernel<In, Out, N>,
                          ::gbt_emu::config(dim3(1), dim3(1), 0, stream), in, out, n, inclusive);
        return cudaPeekAtLastError();
    }
};

struct DeviceSegmentedRadixSort {
    template <typename K, typename V, typename B, typename E>
    static cudaError_t SortPairs(void *d_temp_storage, size_t &temp_storage_bytes, const K *d_keys_in, K *d_keys_out,
                                 const V *d_values_in, V *d_values_out, int num_items, int num_segments,
                                 B d_begin_offsets, E d_end_offsets, int begin_bit = 0, int end_bit = sizeof(K) * 8,
                                 cudaStream_t stream = 0)
    {
        (void)begin_bit;
        (void)end_bit;
        /* CUB: nothing to sort needs 1 byte and checks nothing; else a third keys and a third values buffer */
        if (num_items <= 0 || num_segments <= 0) {
            if (d_temp_storage == NULL) temp_storage_bytes = 1;
            return cudaSuccess;
        }
        const size_t pieces[2] = {(size_t)num_items * sizeof(K), (size_t)num_items * sizeof(V)};
        const cudaError_t e = detail::scratch("cub::DeviceSegmentedRadixSort::SortPairs", d_temp_storage,
                                              temp_storage_bytes, detail::alias_bytes(pieces, 2));
        if (e != cudaSuccess || d_temp_storage == NULL) return e;
        ::gbt_emu::launch("cub::DeviceSegmentedRadixSort::SortPairs", __FILE__, __LINE__,
                          &detail::segsort_kernel<K, V, B, E>, ::gbt_emu::config(dim3(1), dim3(1), 0, stream),
                          d_keys_in, d_keys_out, d_values_in, d_values_out, num_segments, d_begin_offsets,
                          d_end_offsets);
        return cudaPeekAtLastError();
    }
};

} // namespace cub

#endif
