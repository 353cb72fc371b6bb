/*
 * emu.h - the CUDA emulator as the rewritten .cu files see it: the runtime
 * API subset that cuda/ calls, the device built-ins and intrinsics, and
 * the launch of a kernel on fibers.  Included through the emulator's
 * <cuda_runtime.h>; README.md beside this file says how it works.
 *
 * Device code runs as host C++: every CUDA thread is a fiber, and the
 * fibers of a block switch only where CUDA threads wait for each other
 * (__syncthreads, warp operations, CUB collectives), so a program that
 * relies on any other ordering is caught by the seeded random schedule or
 * by ThreadSanitizer (see runtime.cc).
 */
#ifndef GBT_EMU_H
#define GBT_EMU_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

/* ---- CUDA's keywords, as host C++ ------------------------------------------ */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define CUDART_VERSION 13000

struct uint3 {
    unsigned x, y, z;
};

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

/* ---- the runtime API subset -------------------------------------------------- */

enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInsufficientDriver = 35,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorAssert = 710,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
};
typedef cudaError_t cudaError;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};

enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrMemoryPoolsSupported = 115,
};

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventDisableTiming 0x02

struct gbt_emu_stream;
struct gbt_emu_event;
typedef gbt_emu_stream *cudaStream_t;
typedef gbt_emu_event *cudaEvent_t;

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    size_t sharedMemPerBlockOptin;
    size_t sharedMemPerMultiprocessor;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int major, minor;
    int multiProcessorCount;
    int maxThreadsPerMultiProcessor;
    int memoryPoolsSupported;
};

struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion, binaryVersion;
    int maxDynamicSharedSizeBytes;
};

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);

cudaError_t cudaMalloc(void **ptr, size_t bytes);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMallocHost(void **ptr, size_t bytes);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMallocAsync(void **ptr, size_t bytes, cudaStream_t s);
cudaError_t cudaFreeAsync(void *ptr, cudaStream_t s);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t s = 0);
cudaError_t cudaMemset(void *dst, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t s = 0);

cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);

namespace gbt_emu {
cudaError_t func_get_attributes(cudaFuncAttributes *attr, const void *fn);
cudaError_t func_set_attribute(const void *fn, cudaFuncAttribute attr, int value);
cudaError_t occupancy(int *blocks, const void *fn, int threads, size_t smem);
} // namespace gbt_emu

template <typename... P>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, void (*fn)(P...))
{
    return gbt_emu::func_get_attributes(attr, (const void *)fn);
}

template <typename... P>
cudaError_t cudaFuncSetAttribute(void (*fn)(P...), cudaFuncAttribute attr, int value)
{
    return gbt_emu::func_set_attribute((const void *)fn, attr, value);
}

template <typename... P>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void (*fn)(P...), int threads,
                                                          size_t smem)
{
    return gbt_emu::occupancy(blocks, (const void *)fn, threads, smem);
}

/* ---- the runtime's side of device code ------------------------------------------ */

namespace gbt_emu {

/*
 * Where a CUDA thread waits: the caller's file and line.  As a default
 * argument, site() is constructed at each call (GCC and Clang evaluate the
 * builtins of a default argument where the function is called; written as
 * a braced initialiser, GCC would give the declaration's line instead).
 */
struct site {
    const char *file;
    int line;
    site(const char *f = __builtin_FILE(), int l = __builtin_LINE()) : file(f), line(l) {}
};
#define GBT_EMU_HERE ::gbt_emu::site()

/* The CUDA thread running on this OS thread (set while a fiber runs). */
struct thread_ids {
    uint3 tid, bid;
    dim3 bdim, gdim;
    unsigned lane;
};
extern thread_local const thread_ids *current;

/* Warp operations: their kinds, and a hook run once when all lanes have arrived. */
enum warp_kind { W_SHFL, W_BALLOT, W_ANY, W_ALL, W_SYNCWARP, W_COLLECTIVE };
typedef void (*hook_fn)(void *ctx);

/*
 * A lane arrives at a warp operation: waits until every lane of mask has
 * arrived at the same operation (same kind and call site), then returns
 * this lane's result: for W_SHFL the value of lane src (poison when src is
 * not in mask), for W_BALLOT the mask of lanes whose value was non-zero,
 * for W_ANY/W_ALL 0 or 1.  hook(ctx), if given, runs once before any lane
 * continues.  Mistakes are reported (see README.md).
 */
uint64_t warp_op(unsigned mask, warp_kind kind, site where, uint64_t value, int src, hook_fn hook,
                 void *ctx);
/* __syncthreads and block-wide collectives (user: counts as a barrier for CUB's contract). */
void block_barrier(site where, bool user, hook_fn hook, void *ctx);
/* Completed __syncthreads of this block, and __syncwarp/__syncthreads of this warp. */
uint64_t block_epoch(void);
uint64_t warp_epoch(void);
/* Lanes of this warp that have exited. */
unsigned exited_lanes(void);
/* Interleaved scheduling: a switch point after each atomic operation. */
extern int atomics_yield;
void yield_atomic(void);
/* Reports a misuse in device code (kernel, block, thread and site are added) and stops the kernel. */
[[noreturn]] void device_error(site where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reports a misuse by host code (a `# gbt-emu:` line, counted by gbt_emu_reports); nothing stops. */
void host_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether [p, p + n) lies in one device allocation. */
bool device_bytes(const void *p, size_t n);

/* __shared__ memory of the running block: on the heap, filled with poison. */
void *shared_alloc(const char *file, int line, size_t bytes, size_t align);
void *shared_dynamic(const char *file, int line);

template <typename T>
T &static_shared(const char *file, int line)
{
    return *static_cast<T *>(shared_alloc(file, line, sizeof(T), alignof(T)));
}

template <typename T>
T *dynamic_shared(const char *file, int line)
{
    return static_cast<T *>(shared_dynamic(file, line));
}

/* The poison pattern as a T (every byte 0xff: NaN for floats, all ones for integers). */
template <typename T>
T poison()
{
    T v;
    memset(static_cast<void *>(&v), 0xff, sizeof v);
    return v;
}

/* ---- launches -------------------------------------------------------------------- */

struct launch_config {
    dim3 grid, block;
    size_t smem;
    cudaStream_t stream;
};

inline launch_config config(dim3 grid, dim3 block, size_t smem = 0, cudaStream_t stream = 0)
{
    return launch_config{grid, block, smem, stream};
}

/* What a launch hands the runtime: the kernel's body for one thread, and its argument checks. */
struct kernel_call {
    const char *name, *file;
    int line;
    const void *fn;
    launch_config cfg;
    void (*body)(void *args);
    void (*free_args)(void *args);
    void *args;
};

/* Checks an argument: a pointer must be NULL or device memory; other values are scanned for host pointers. */
void check_pointer_arg(const kernel_call &k, int index, const void *p);
void check_value_arg(const kernel_call &k, int index, const void *bytes, size_t size);
/* Enqueues the launch on its stream (errors go to cudaGetLastError, as CUDA's). */
void enqueue_launch(kernel_call &k);
bool launch_refused(const kernel_call &k); /* an injected or recorded launch failure */

template <typename T>
void check_arg(const kernel_call &k, int index, const T &v)
{
    if constexpr (std::is_pointer<T>::value)
        check_pointer_arg(k, index, (const void *)v);
    else if constexpr (std::is_class<T>::value)
        check_value_arg(k, index, &v, sizeof v);
}

template <typename Tuple, size_t... I>
void check_args(const kernel_call &k, const Tuple &t, std::index_sequence<I...>)
{
    (check_arg(k, (int)I + 1, std::get<I>(t)), ...);
}

template <typename... P, typename... A>
void launch(const char *name, const char *file, int line, void (*fn)(P...), launch_config cfg,
            A &&...args)
{
    typedef std::tuple<typename std::decay<P>::type...> params;
    struct pack {
        void (*fn)(P...);
        params p;
    };
    static_assert(sizeof...(P) == sizeof...(A), "a kernel launch with the wrong number of arguments");
    kernel_call k;
    k.name = name;
    k.file = file;
    k.line = line;
    k.fn = (const void *)fn;
    k.cfg = cfg;
    if (launch_refused(k)) return;
    /* the arguments, converted to the kernel's parameter types once, as CUDA's launch does */
    pack *pk = new pack{fn, params(std::forward<A>(args)...)};
    check_args(k, pk->p, std::index_sequence_for<P...>{});
    k.args = pk;
    k.body = [](void *a) {
        const pack *q = static_cast<const pack *>(a);
        params copy = q->p; /* each CUDA thread gets its own copy of the parameters */
        std::apply(q->fn, copy);
    };
    k.free_args = [](void *a) { delete static_cast<pack *>(a); };
    enqueue_launch(k);
}

} // namespace gbt_emu

/* ---- built-in variables ------------------------------------------------------------ */

#define threadIdx (::gbt_emu::current->tid)
#define blockIdx (::gbt_emu::current->bid)
#define blockDim (::gbt_emu::current->bdim)
#define gridDim (::gbt_emu::current->gdim)
constexpr int warpSize = 32;

/* ---- synchronisation ----------------------------------------------------------------- */

inline void __syncthreads(::gbt_emu::site w = GBT_EMU_HERE)
{
    ::gbt_emu::block_barrier(w, true, nullptr, nullptr);
}

inline void __syncwarp(unsigned mask = 0xffffffffu, ::gbt_emu::site w = GBT_EMU_HERE)
{
    (void)::gbt_emu::warp_op(mask, ::gbt_emu::W_SYNCWARP, w, 0, 0, nullptr, nullptr);
}

inline unsigned __ballot_sync(unsigned mask, int pred, ::gbt_emu::site w = GBT_EMU_HERE)
{
    return (unsigned)::gbt_emu::warp_op(mask, ::gbt_emu::W_BALLOT, w, pred != 0, 0, nullptr, nullptr);
}

inline int __any_sync(unsigned mask, int pred, ::gbt_emu::site w = GBT_EMU_HERE)
{
    return (int)::gbt_emu::warp_op(mask, ::gbt_emu::W_ANY, w, pred != 0, 0, nullptr, nullptr);
}

inline int __all_sync(unsigned mask, int pred, ::gbt_emu::site w = GBT_EMU_HERE)
{
    return (int)::gbt_emu::warp_op(mask, ::gbt_emu::W_ALL, w, pred != 0, 0, nullptr, nullptr);
}

/* The lanes of the warp that have not exited (the emulator does not track divergence). */
inline unsigned __activemask(void)
{
    return ~::gbt_emu::exited_lanes();
}

inline void __threadfence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

inline void __threadfence_block(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

namespace gbt_emu {

template <typename T>
T shfl(unsigned mask, T var, int src, site w)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "__shfl of a type wider than 8 bytes");
    uint64_t bits = 0, out;
    T r;
    memcpy(&bits, &var, sizeof var);
    out = warp_op(mask, W_SHFL, w, bits, src, nullptr, nullptr);
    memcpy(&r, &out, sizeof r);
    return r;
}

/* The source lane of lane l for a shuffle within sections of `width` lanes (-1: own value). */
inline int shfl_section(int l, int target, int width)
{
    const int base = l & ~(width - 1);
    if (target < base || target >= base + width) return -1;
    return target;
}

} // namespace gbt_emu

template <typename T>
T __shfl_sync(unsigned mask, T var, int src, int width = 32, ::gbt_emu::site w = GBT_EMU_HERE)
{
    const int l = (int)::gbt_emu::current->lane;
    return ::gbt_emu::shfl(mask, var, (l & ~(width - 1)) + (src & (width - 1)), w);
}

template <typename T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32,
                 ::gbt_emu::site w = GBT_EMU_HERE)
{
    const int l = (int)::gbt_emu::current->lane, s = ::gbt_emu::shfl_section(l, l - (int)delta, width);
    return ::gbt_emu::shfl(mask, var, s < 0 ? l : s, w);
}

template <typename T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32,
                   ::gbt_emu::site w = GBT_EMU_HERE)
{
    const int l = (int)::gbt_emu::current->lane, s = ::gbt_emu::shfl_section(l, l + (int)delta, width);
    return ::gbt_emu::shfl(mask, var, s < 0 ? l : s, w);
}

template <typename T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32,
                  ::gbt_emu::site w = GBT_EMU_HERE)
{
    const int l = (int)::gbt_emu::current->lane, s = ::gbt_emu::shfl_section(l, l ^ lane_mask, width);
    return ::gbt_emu::shfl(mask, var, s < 0 ? l : s, w);
}

/* ---- atomics (relaxed, as CUDA's; a switch point when blocks are interleaved) ---- */

/*
 * The counting build (GBT_EMU_COST, cost.cc): each atomic is a function of
 * its own, whose return address names the kernel's instruction, and its
 * own loads are not counted as the kernel's (clang's no_sanitize).
 */
#ifdef GBT_EMU_COST
namespace gbt_emu {
void cost_atomic(const void *p, unsigned size, const void *site);
}
#ifdef __clang__
#define GBT_EMU_ATOMIC_FN inline __attribute__((noinline, no_sanitize("coverage")))
#else
#define GBT_EMU_ATOMIC_FN inline __attribute__((noinline))
#endif
#define GBT_EMU_COST_ATOMIC(p) ::gbt_emu::cost_atomic((const void *)(p), sizeof *(p), __builtin_return_address(0))
#else
#define GBT_EMU_ATOMIC_FN inline
#define GBT_EMU_COST_ATOMIC(p) ((void)0)
#endif

#define GBT_EMU_ATOMIC_RMW(name, T, op)                                  \
    GBT_EMU_ATOMIC_FN T name(T *p, T v)                                  \
    {                                                                    \
        GBT_EMU_COST_ATOMIC(p);                                          \
        T old = __atomic_##op(p, v, __ATOMIC_RELAXED);                   \
        if (::gbt_emu::atomics_yield) ::gbt_emu::yield_atomic();         \
        return old;                                                      \
    }
GBT_EMU_ATOMIC_RMW(atomicAdd, int, fetch_add)
GBT_EMU_ATOMIC_RMW(atomicAdd, unsigned, fetch_add)
GBT_EMU_ATOMIC_RMW(atomicAdd, unsigned long long, fetch_add)
GBT_EMU_ATOMIC_RMW(atomicSub, int, fetch_sub)
GBT_EMU_ATOMIC_RMW(atomicSub, unsigned, fetch_sub)
GBT_EMU_ATOMIC_RMW(atomicExch, int, exchange_n)
GBT_EMU_ATOMIC_RMW(atomicExch, unsigned, exchange_n)
GBT_EMU_ATOMIC_RMW(atomicExch, unsigned long long, exchange_n)
GBT_EMU_ATOMIC_RMW(atomicAnd, int, fetch_and)
GBT_EMU_ATOMIC_RMW(atomicAnd, unsigned, fetch_and)
GBT_EMU_ATOMIC_RMW(atomicAnd, unsigned long long, fetch_and)
GBT_EMU_ATOMIC_RMW(atomicOr, int, fetch_or)
GBT_EMU_ATOMIC_RMW(atomicOr, unsigned, fetch_or)
GBT_EMU_ATOMIC_RMW(atomicOr, unsigned long long, fetch_or)
#undef GBT_EMU_ATOMIC_RMW

template <typename T>
T gbt_emu_atomic_cas(T *p, T compare, T v)
{
    __atomic_compare_exchange_n(p, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    if (::gbt_emu::atomics_yield) ::gbt_emu::yield_atomic();
    return compare; /* the old value, whether or not it was replaced */
}
GBT_EMU_ATOMIC_FN int atomicCAS(int *p, int c, int v)
{
    GBT_EMU_COST_ATOMIC(p);
    return gbt_emu_atomic_cas(p, c, v);
}
GBT_EMU_ATOMIC_FN unsigned atomicCAS(unsigned *p, unsigned c, unsigned v)
{
    GBT_EMU_COST_ATOMIC(p);
    return gbt_emu_atomic_cas(p, c, v);
}
GBT_EMU_ATOMIC_FN unsigned long long atomicCAS(unsigned long long *p, unsigned long long c, unsigned long long v)
{
    GBT_EMU_COST_ATOMIC(p);
    return gbt_emu_atomic_cas(p, c, v);
}
GBT_EMU_ATOMIC_FN unsigned short atomicCAS(unsigned short *p, unsigned short c, unsigned short v)
{
    GBT_EMU_COST_ATOMIC(p);
    return gbt_emu_atomic_cas(p, c, v);
}

/* min and max: a compare-and-swap loop, as on the device */
template <typename T, typename F>
T gbt_emu_atomic_update(T *p, F f)
{
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, f(old), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    if (::gbt_emu::atomics_yield) ::gbt_emu::yield_atomic();
    return old;
}
#define GBT_EMU_ATOMIC_MINMAX(T)                                                                   \
    GBT_EMU_ATOMIC_FN T atomicMax(T *p, T v)                                                       \
    {                                                                                              \
        GBT_EMU_COST_ATOMIC(p);                                                                    \
        return gbt_emu_atomic_update(p, [v](T o) { return o > v ? o : v; });                       \
    }                                                                                              \
    GBT_EMU_ATOMIC_FN T atomicMin(T *p, T v)                                                       \
    {                                                                                              \
        GBT_EMU_COST_ATOMIC(p);                                                                    \
        return gbt_emu_atomic_update(p, [v](T o) { return o < v ? o : v; });                       \
    }
GBT_EMU_ATOMIC_MINMAX(int)
GBT_EMU_ATOMIC_MINMAX(unsigned)
GBT_EMU_ATOMIC_MINMAX(long long)
GBT_EMU_ATOMIC_MINMAX(unsigned long long)
#undef GBT_EMU_ATOMIC_MINMAX

/* ---- bit casts ------------------------------------------------------------------------- */

namespace gbt_emu {
/* v's bits as a To of the same size. */
template <typename To, typename From>
inline To bits_as(From v)
{
    static_assert(sizeof(To) == sizeof(From), "a bit cast between types of different sizes");
    To r;
    memcpy(&r, &v, sizeof r);
    return r;
}
} // namespace gbt_emu

inline long long __double_as_longlong(double v) { return ::gbt_emu::bits_as<long long>(v); }
inline double __longlong_as_double(long long v) { return ::gbt_emu::bits_as<double>(v); }
inline float __int_as_float(int v) { return ::gbt_emu::bits_as<float>(v); }
inline int __float_as_int(float v) { return ::gbt_emu::bits_as<int>(v); }
inline unsigned __float_as_uint(float v) { return ::gbt_emu::bits_as<unsigned>(v); }
inline float __uint_as_float(unsigned v) { return ::gbt_emu::bits_as<float>(v); }
/* the set bits of a word (the device's POPC) */
inline int __popc(unsigned v) { return __builtin_popcount(v); }

/* floating-point adds: a compare-and-swap loop on the bits, as on the device */
GBT_EMU_ATOMIC_FN float atomicAdd(float *p, float v)
{
    GBT_EMU_COST_ATOMIC(p);
    uint32_t old = gbt_emu_atomic_update(reinterpret_cast<uint32_t *>(p), [v](uint32_t o) {
        return ::gbt_emu::bits_as<uint32_t>(::gbt_emu::bits_as<float>(o) + v);
    });
    return ::gbt_emu::bits_as<float>(old);
}

GBT_EMU_ATOMIC_FN double atomicAdd(double *p, double v)
{
    GBT_EMU_COST_ATOMIC(p);
    uint64_t old = gbt_emu_atomic_update(reinterpret_cast<uint64_t *>(p), [v](uint64_t o) {
        return ::gbt_emu::bits_as<uint64_t>(::gbt_emu::bits_as<double>(o) + v);
    });
    return ::gbt_emu::bits_as<double>(old);
}

#endif
