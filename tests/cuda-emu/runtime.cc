/*
 * runtime.cc - the CUDA emulator's runtime: fibers and their scheduler,
 * barriers and warp operations, device and shared memory, streams and
 * events, the runtime API subset, fault injection and reports.
 *
 * Execution.  Every API call takes one process-wide lock.  Work on a stream
 * (copies, memsets, launches, event records, asynchronous frees) is queued
 * and runs, in order, when the host waits for it (stream, event or device
 * synchronisation, cudaFree, a synchronous copy), on the waiting thread: as
 * late as CUDA allows, so that a pinned buffer reused before its copy ran,
 * or a result read before the stream was synchronised, gives wrong answers.
 * As CUDA documents, an asynchronous copy from pageable host memory takes
 * its bytes before it returns, and one into pageable memory (or host to
 * host) waits for the stream and is done when it returns.
 *
 * A launch runs its blocks in a seeded random order, one at a time (or
 * GBT_EMU_INTERLEAVE blocks at once, switching at atomics).  The threads of
 * a block are fibers on the calling OS thread; the scheduler resumes a
 * random runnable fiber whenever the running one waits (barrier, warp
 * operation, CUB collective) or exits.  Waits check that everyone they
 * wait for can arrive; a kernel that misuses them is stopped and reported.
 *
 * Memory.  Each device allocation is its own mapping, its last byte against
 * an inaccessible guard page (overflows fault at once), and the whole of it
 * inaccessible while no device work runs, so host code that dereferences a
 * device pointer faults; the SIGSEGV handler names the buffer.  New device,
 * pinned and shared memory is filled with 0xff bytes (NaN as floats).
 *
 * Sanitizers.  This file is never built with -fsanitize=thread: its own
 * bookkeeping is shared by all fibers of a block and would look like races.
 * Under GBT_EMU_TSAN it tells ThreadSanitizer about the fibers instead, with
 * happens-before edges only where CUDA has them: barriers, warp operations,
 * kernel start and end.  Under AddressSanitizer the fiber switches are
 * announced to it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "emu.h"
#include "gbt_emu.h"

/* The counting build (cost.h): the runtime tells the counters what happens. */
#ifdef GBT_EMU_COST
#include "cost.h"
#define COST(call) ::gbt_emu::cost::call
#else
#define COST(call) ((void)0)
#endif

#if defined(__SANITIZE_ADDRESS__)
#define GBT_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GBT_EMU_ASAN 1
#endif
#endif

#ifdef GBT_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef GBT_EMU_TSAN
#include <sanitizer/tsan_interface.h>
/* exported by the TSan runtime, not declared by its header: accesses in between are not recorded */
extern "C" void __tsan_ignore_thread_begin(void);
extern "C" void __tsan_ignore_thread_end(void);
#endif

#if !defined(__x86_64__) || defined(GBT_EMU_UCONTEXT)
#define GBT_EMU_USE_UCONTEXT 1
#include <ucontext.h>
#endif

namespace gbt_emu {

thread_local const thread_ids *current;
int atomics_yield;

namespace {

/* ---- settings ---------------------------------------------------------------------- */

struct device_props {
    int count = 1;
    size_t total = (size_t)80 << 30;
    int sms = 132;
    size_t smem_block = 48 << 10, smem_optin = 227 << 10, smem_sm = 228 << 10;
    int pools = 1;
};

std::recursive_mutex big_lock;
device_props props;
unsigned long long seed;
bool seed_printed;
int interleave = 1;
bool settings_read;

size_t parse_size(const char *v)
{
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    switch (*end) {
    case 'K': case 'k': x <<= 10; break;
    case 'M': case 'm': x <<= 20; break;
    case 'G': case 'g': x <<= 30; break;
    default: break;
    }
    return (size_t)x;
}

/* GBT_EMU_DEVICE="count=1,mem=8G,sms=4,smem=48K,pools=0" (smem: the opt-in maximum per block) */
void read_settings(void)
{
    if (settings_read) return;
    settings_read = true;
    if (const char *d = getenv("GBT_EMU_DEVICE")) {
        std::string s(d);
        size_t p = 0;
        while (p < s.size()) {
            size_t comma = s.find(',', p);
            if (comma == std::string::npos) comma = s.size();
            std::string item = s.substr(p, comma - p);
            size_t eq = item.find('=');
            if (eq != std::string::npos) {
                std::string k = item.substr(0, eq);
                const char *v = item.c_str() + eq + 1;
                if (k == "count") props.count = atoi(v);
                else if (k == "mem") props.total = parse_size(v);
                else if (k == "sms") props.sms = atoi(v);
                else if (k == "smem") props.smem_optin = parse_size(v);
                else if (k == "pools") props.pools = atoi(v);
                else fprintf(stderr, "# gbt-emu: unknown GBT_EMU_DEVICE setting '%s'\n", k.c_str());
            }
            p = comma + 1;
        }
        if (props.smem_block > props.smem_optin) props.smem_block = props.smem_optin;
    }
    if (const char *s = getenv("GBT_EMU_SEED")) {
        seed = strtoull(s, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = ((unsigned long long)ts.tv_sec * 1000003ull) ^ (unsigned long long)ts.tv_nsec ^
               ((unsigned long long)getpid() << 20);
        seed &= 0xffffffffffull;
    }
    if (const char *s = getenv("GBT_EMU_INTERLEAVE")) {
        interleave = atoi(s);
        if (interleave < 1) interleave = 1;
    }
    atomics_yield = interleave > 1;
}

uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- errors and reports --------------------------------------------------------------- */

thread_local cudaError_t last_error = cudaSuccess;
cudaError_t sticky = cudaSuccess;
int nreports;
std::string last_report_text;

cudaError_t set_error(cudaError_t e)
{
    if (e != cudaSuccess && last_error == cudaSuccess) last_error = e;
    return e;
}

/* The error an API call returns before doing anything: the sticky one. */
#define STICKY_CHECK()                                            \
    do {                                                          \
        if (sticky != cudaSuccess) return set_error(sticky);      \
    } while (0)

void report(const std::string &text)
{
    nreports++;
    last_report_text = text;
    fprintf(stderr, "# gbt-emu: %s\n", text.c_str());
    fflush(stderr);
}

std::string vformat(const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    return buf;
}

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::string s = vformat(fmt, ap);
    va_end(ap);
    return s;
}

/* ---- fault injection --------------------------------------------------------------------- */

enum fault_kind { K_MALLOC, K_HOST_MALLOC, K_COPY, K_LAUNCH, K_STREAM, K_EVENT, K_SYNC, K_COUNT };
const char *const fault_names[K_COUNT] = {"malloc", "host_malloc", "copy", "launch", "stream", "event", "sync"};
long fault_calls[K_COUNT], fault_at[K_COUNT];

int fault_index(const char *kind)
{
    for (int i = 0; i < K_COUNT; i++)
        if (strcmp(kind, fault_names[i]) == 0) return i;
    return -1;
}

/* Counts a call of a kind; true when this call is to fail. */
bool inject(fault_kind k)
{
    fault_calls[k]++;
    if (fault_at[k] > 0 && --fault_at[k] == 0) return true;
    return false;
}

/* ---- memory ------------------------------------------------------------------------------------ */

struct allocation {
    char *base;      /* the user's pointer */
    size_t size;
    char *map;       /* the mapping: [map, map + map_len) including the guard page */
    size_t map_len;
    size_t charged;  /* bytes counted against the device's memory */
    bool pinned;     /* cudaMallocHost (host memory) */
};

std::map<uintptr_t, allocation> allocs; /* by base */
size_t used_bytes;
size_t asked_bytes, peak_bytes; /* device memory asked for (not rounded) now, and the most since gbt_emu_peak_reset */
int device_depth; /* > 0 while device work runs: device memory is accessible */
const size_t page = (size_t)sysconf(_SC_PAGESIZE);
/* what a failed cudaMalloc leaves in its out-pointer: never mapped, recognised at launches */
char *const FAILED_ALLOC = (char *)(uintptr_t)0x7ead00000000ull;

const allocation *find_alloc(const void *p, bool inclusive_end)
{
    const uintptr_t a = (uintptr_t)p;
    auto it = allocs.upper_bound(a);
    if (it == allocs.begin()) return NULL;
    --it;
    const allocation &al = it->second;
    if (a >= (uintptr_t)al.base &&
        (a < (uintptr_t)al.base + al.size || (inclusive_end && a == (uintptr_t)al.base + al.size)))
        return &al;
    return NULL;
}

const allocation *find_device(const void *p, bool inclusive_end)
{
    const allocation *a = find_alloc(p, inclusive_end);
    return a && !a->pinned ? a : NULL;
}

/*
 * How device memory is closed to host code.  Where the processor and the
 * kernel have protection keys (x86-64 PKU, Linux 4.9, glibc 2.27), every
 * device page carries one key, which this thread's PKRU register opens and
 * closes: one unprivileged instruction, where an mprotect of every
 * allocation cost a system call each (a tenth of test_backend's time).
 * Other threads never have the key open (Linux starts threads with every
 * key but 0 closed).  Elsewhere each allocation is mprotected in turn.
 */
#if defined(__x86_64__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 27)) && \
    defined(PKEY_DISABLE_ACCESS)
#define GBT_EMU_PKEYS 1
#endif
int device_key = -2; /* -2: not asked yet; -1: none, mprotect instead */

int device_pkey(void)
{
    if (device_key == -2) {
#ifdef GBT_EMU_PKEYS
        device_key = pkey_alloc(0, PKEY_DISABLE_ACCESS);
        if (device_key < 0) device_key = -1;
#else
        device_key = -1;
#endif
    }
    return device_key;
}

void protect_all(int prot)
{
    for (auto &kv : allocs)
        if (!kv.second.pinned)
            mprotect(kv.second.map, kv.second.map_len - page, prot);
}

/* Opens (or closes) every device buffer to this thread. */
void device_access(bool open)
{
#ifdef GBT_EMU_PKEYS
    if (device_pkey() >= 0) {
        pkey_set(device_key, open ? 0 : PKEY_DISABLE_ACCESS);
        return;
    }
#endif
    protect_all(open ? PROT_READ | PROT_WRITE : PROT_NONE);
}

/* New device pages [m, m + n): opened to this thread (under the key if any) until close_new_pages. */
void open_new_pages(char *m, size_t n)
{
#ifdef GBT_EMU_PKEYS
    if (device_pkey() >= 0) {
        pkey_mprotect(m, n, PROT_READ | PROT_WRITE, device_key);
        if (device_depth == 0) pkey_set(device_key, 0);
        return;
    }
#endif
    mprotect(m, n, PROT_READ | PROT_WRITE);
}

void close_new_pages(char *m, size_t n)
{
    if (device_depth > 0) return;
#ifdef GBT_EMU_PKEYS
    if (device_pkey() >= 0) {
        pkey_set(device_key, PKEY_DISABLE_ACCESS);
        return;
    }
#endif
    mprotect(m, n, PROT_NONE);
}

/* Device memory is accessible between enter_device and leave_device. */
void enter_device(void)
{
    if (device_depth++ == 0) device_access(true);
}

void leave_device(void)
{
    if (--device_depth == 0) device_access(false);
}

void fill_poison(void *p, size_t n)
{
#ifdef GBT_EMU_TSAN
    __tsan_ignore_thread_begin();
#endif
    memset(p, 0xff, n);
#ifdef GBT_EMU_TSAN
    __tsan_ignore_thread_end();
#endif
}

/* Bytes a cudaMalloc of n bytes takes: 2 MiB pages above 1 MiB, 512-byte blocks below. */
size_t charge_of(size_t n)
{
    const size_t big = (size_t)2 << 20;
    if (n > ((size_t)1 << 20)) return (n + big - 1) / big * big;
    return (n + 511) / 512 * 512;
}

/* The alignment of a buffer whose end touches the guard page: as large as its size allows, at most 16. */
size_t align_of_size(size_t n)
{
    size_t a = 16;
    while (a > 1 && n % a) a /= 2;
    return a;
}

cudaError_t device_alloc(void **out, size_t bytes)
{
    read_settings();
    if (inject(K_MALLOC)) {
        *out = FAILED_ALLOC;
        return set_error(cudaErrorMemoryAllocation);
    }
    const size_t charged = charge_of(bytes ? bytes : 1);
    if (used_bytes + charged > props.total) {
        *out = FAILED_ALLOC;
        return set_error(cudaErrorMemoryAllocation);
    }
    const size_t n = bytes ? bytes : 1;
    const size_t data_pages = (n + page - 1) / page * page;
    const size_t map_len = data_pages + page;
    char *m = (char *)mmap(NULL, map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        *out = FAILED_ALLOC;
        return set_error(cudaErrorMemoryAllocation);
    }
    /* the buffer ends where the guard page starts; its start keeps the alignment its size allows */
    char *base = m + data_pages - n;
    base -= (uintptr_t)base % align_of_size(n);
    open_new_pages(m, data_pages);
    fill_poison(base, n);
#ifdef GBT_EMU_ASAN
    ASAN_POISON_MEMORY_REGION(m, (size_t)(base - m));
    ASAN_POISON_MEMORY_REGION(base + n, (size_t)(m + data_pages - (base + n)));
#endif
    close_new_pages(m, data_pages);
    allocs[(uintptr_t)base] = allocation{base, n, m, map_len, charged, false};
    COST(on_alloc(base, n));
    used_bytes += charged;
    asked_bytes += n;
    if (asked_bytes > peak_bytes) peak_bytes = asked_bytes;
    *out = base;
    return cudaSuccess;
}

cudaError_t device_free(void *p)
{
    if (p == NULL) return cudaSuccess;
    auto it = allocs.find((uintptr_t)p);
    if (it == allocs.end() || it->second.pinned) return set_error(cudaErrorInvalidValue);
    allocation a = it->second;
    allocs.erase(it);
    COST(on_free(p));
    used_bytes -= a.charged;
    asked_bytes -= a.size;
#ifdef GBT_EMU_ASAN
    ASAN_UNPOISON_MEMORY_REGION(a.map, a.map_len - page);
#endif
    munmap(a.map, a.map_len);
    return cudaSuccess;
}

/* ---- host-side faults on device memory --------------------------------------------------------------- */

struct sigaction previous_segv;

void on_segv(int sig, siginfo_t *si, void *uc)
{
    const allocation *a = NULL;
    const uintptr_t addr = (uintptr_t)si->si_addr;
    for (auto &kv : allocs) {
        const allocation &al = kv.second;
        if (!al.pinned && addr >= (uintptr_t)al.map && addr < (uintptr_t)al.map + al.map_len) {
            a = &al;
            break;
        }
    }
    if (a != NULL) {
        char msg[320];
        const bool guard = addr >= (uintptr_t)a->map + a->map_len - a->map_len % page - page &&
                           addr >= (uintptr_t)a->base + a->size;
        if (device_depth == 0)
            snprintf(msg, sizeof msg,
                     "# gbt-emu: host code dereferenced device memory at %p (%s a device buffer of "
                     "%zu bytes at %p): device pointers are for kernels and cudaMemcpy only\n",
                     si->si_addr, guard ? "just past" : "inside", a->size, (void *)a->base);
        else
            snprintf(msg, sizeof msg,
                     "# gbt-emu: access at %p, %zu bytes past the end of a device buffer of %zu "
                     "bytes at %p\n",
                     si->si_addr, addr - ((uintptr_t)a->base + a->size), a->size, (void *)a->base);
        if (write(2, msg, strlen(msg)) < 0) {
        }
        if (current != NULL && device_depth > 0) {
            snprintf(msg, sizeof msg,
                     "# gbt-emu: in block (%u,%u,%u), thread (%u,%u,%u) of the running kernel\n",
                     current->bid.x, current->bid.y, current->bid.z, current->tid.x, current->tid.y,
                     current->tid.z);
            if (write(2, msg, strlen(msg)) < 0) {
            }
        }
    }
    if (previous_segv.sa_flags & SA_SIGINFO) {
        if (previous_segv.sa_sigaction) {
            previous_segv.sa_sigaction(sig, si, uc);
            return;
        }
    } else if (previous_segv.sa_handler != SIG_DFL && previous_segv.sa_handler != SIG_IGN) {
        previous_segv.sa_handler(sig);
        return;
    }
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
}

void install_segv(void)
{
    static bool done;
    if (done) return;
    done = true;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_segv);
}

/* ---- streams and events ------------------------------------------------------------------------------ */

} // namespace
} // namespace gbt_emu

struct gbt_emu_stream {
    std::deque<std::function<void()>> work;
    bool live = true;
    bool blocking = false; /* created without cudaStreamNonBlocking: ordered with the legacy stream */
};

struct gbt_emu_event {
    gbt_emu_stream *stream = NULL; /* of its last record */
    uint64_t recorded = 0, reached = 0;
};

namespace gbt_emu {
namespace {

gbt_emu_stream default_stream;
std::vector<gbt_emu_stream *> streams = {&default_stream};

gbt_emu_stream *stream_of(cudaStream_t s)
{
    return s ? s : &default_stream;
}

bool valid_stream(cudaStream_t s)
{
    if (s == NULL) return true;
    for (gbt_emu_stream *x : streams)
        if (x == s) return true;
    return false;
}

/* Runs queued work of s, all of it or until pred() holds. */
void drain(gbt_emu_stream *s, const std::function<bool()> &pred = nullptr)
{
    if (s->work.empty()) return;
    enter_device();
    while (!s->work.empty() && !(pred && pred())) {
        std::function<void()> w = std::move(s->work.front());
        s->work.pop_front();
        w();
    }
    leave_device();
}

void drain_all(void)
{
    for (gbt_emu_stream *s : streams) drain(s);
}

/* The legacy stream and the streams it synchronises with (those created without cudaStreamNonBlocking). */
void drain_legacy(void)
{
    for (gbt_emu_stream *s : streams)
        if (s == &default_stream || s->blocking) drain(s);
}

/*
 * Queues work on s.  CUDA's legacy default stream waits for the work of
 * every blocking stream queued before, and a blocking stream's work waits
 * for the legacy stream's; here that earlier work runs first.  Streams
 * created with cudaStreamNonBlocking are ordered with nothing: their work
 * and the legacy stream's run as late as each stream allows, so a kernel
 * on one that reads what a copy on the other writes, without an event or a
 * synchronisation between them, reads what was there before (poison).
 */
void enqueue(gbt_emu_stream *s, std::function<void()> w)
{
    if (s == &default_stream) {
        for (gbt_emu_stream *x : streams)
            if (x->blocking) drain(x);
    } else if (s->blocking) {
        drain(&default_stream);
    }
    s->work.push_back(std::move(w));
}

/* ---- kernels --------------------------------------------------------------------------------------------- */

struct kernel_info {
    size_t static_bytes = 0; /* the most a block has declared so far */
    int max_dynamic = -1;    /* cudaFuncAttributeMaxDynamicSharedMemorySize, -1: not set */
};

std::map<const void *, kernel_info> kernels;

size_t dynamic_limit(const kernel_info &ki)
{
    if (ki.max_dynamic >= 0) return (size_t)ki.max_dynamic;
    return props.smem_block > ki.static_bytes ? props.smem_block - ki.static_bytes : 0;
}

/* ---- fibers ---------------------------------------------------------------------------------------------- */

#ifndef GBT_EMU_USE_UCONTEXT
/*
 * gbt_emu_swap(save, to): saves the callee-saved registers and the stack
 * pointer in *save, and resumes the context whose stack pointer is `to`.
 * A new context's stack holds the registers to pop and fiber_entry as the
 * return address: r12 carries the fiber, r13 the function fiber_entry
 * calls with it.  The SSE and x87 control words are not switched (ldmxcsr
 * and fldcw cost more than the rest of the switch): every fiber runs with
 * the launching thread's, and run_grid reports a kernel that changes them.
 */
extern "C" void gbt_emu_swap(void **save, void *to);
extern "C" void gbt_emu_fiber_entry(void);
asm(".text\n"
    ".globl gbt_emu_swap\n"
    ".type gbt_emu_swap,@function\n"
    "gbt_emu_swap:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size gbt_emu_swap, .-gbt_emu_swap\n"
    ".globl gbt_emu_fiber_entry\n"
    ".type gbt_emu_fiber_entry,@function\n"
    "gbt_emu_fiber_entry:\n"
    "  movq %r12, %rdi\n"
    "  callq *%r13\n"
    "  ud2\n"
    ".size gbt_emu_fiber_entry, .-gbt_emu_fiber_entry\n");
#endif

/* The floating-point control words (SSE, x87) of this thread: fibers share them. */
struct fp_control {
    uint32_t mxcsr;
    uint16_t x87;
    bool operator!=(const fp_control &o) const { return mxcsr != o.mxcsr || x87 != o.x87; }
};

fp_control fp_control_now(void)
{
    fp_control c = {0, 0};
#if defined(__x86_64__)
    asm volatile("stmxcsr %0" : "=m"(c.mxcsr));
    asm volatile("fnstcw %0" : "=m"(c.x87));
#endif
    return c;
}

void fp_control_set(const fp_control &c)
{
#if defined(__x86_64__)
    asm volatile("ldmxcsr %0" : : "m"(c.mxcsr));
    asm volatile("fldcw %0" : : "m"(c.x87));
#else
    (void)c;
#endif
}

constexpr size_t STACK_BYTES = (size_t)256 << 10;

enum fiber_state { F_READY, F_RUNNING, F_BARRIER, F_WARP, F_DONE };

/*
 * A fiber's stack: 256 KB above a guard page.  A CUDA thread takes a stack
 * when it first runs and gives it back when it ends, so the threads of a
 * kernel that never wait run one after another on one stack, which stays
 * in the cache: fiber_main runs the next thread in place when the one it
 * ran has ended and the scheduler picks a thread that has not started.
 * Under ThreadSanitizer each fiber keeps a stack of its own: TSan records
 * stack accesses per thread, and a stack handed from one CUDA thread to
 * another would look like a race between them.  The top of each stack is
 * lowered by a multiple of 64 bytes (its colour), so that the tops of a
 * block's stacks fall in different cache sets.
 */
struct fstack {
    char *map;
    char *lo, *top; /* usable: [lo, top) */
    bool abandoned; /* last used by a fiber stopped in the middle of its kernel */
};

struct block;

struct fiber {
    thread_ids ids;
    block *blk;
    unsigned rank, warp;
    int state;
    site where;
    /* a pending warp operation */
    unsigned wmask;
    int wkind;
    uint64_t wval, wres;
    int wsrc;
    hook_fn whook;
    void *wctx;
    /* its context: a stack from its first run to its end (NULL: not started or ended) */
    fstack *stk;
#ifdef GBT_EMU_TSAN
    fstack *own;
#endif
#ifdef GBT_EMU_USE_UCONTEXT
    ucontext_t uc;
#else
    void *sp;
#endif
    void *asan_fake;
    void *tsan_fiber;
};

struct warp_state {
    unsigned arrived, exited;
    uint64_t epoch;
    char tsan_sync;
};

struct shared_var {
    const char *file;
    int line;
    void *p;
    size_t bytes;
};

struct grid_run;

struct block {
    grid_run *g;
    uint3 bid;
    unsigned nthreads, nwarps;
    fiber **f;
    unsigned arrived, exited;
    site bar_where;
    bool bar_user;
    hook_fn bar_hook;
    void *bar_ctx;
    uint64_t epoch;
    std::vector<warp_state> warps;
    std::vector<shared_var> statics;
    size_t static_bytes, dyn_bytes;
    void *dyn;
    char tsan_bar, tsan_start, tsan_end, tsan_alloc;
};

struct grid_run {
    kernel_call *k;
    kernel_info *ki;
    uint64_t rng;
    bool failed;
    std::vector<fiber *> runnable;
};

/* The scheduler of this OS thread. */
struct scheduler {
    std::vector<fiber *> pool;
    std::vector<fstack *> free_stacks;
    unsigned nstacks;
    grid_run *g;
    fiber *cur;
#ifdef GBT_EMU_USE_UCONTEXT
    ucontext_t uc;
#else
    void *sp;
#endif
    void *tsan_self;
    const void *stack_bottom; /* the OS thread's stack, for AddressSanitizer */
    size_t stack_size;
};

thread_local scheduler *S;

void fiber_main(fiber *f);

#ifdef GBT_EMU_USE_UCONTEXT
void uc_entry(unsigned lo, unsigned hi)
{
    fiber_main((fiber *)(((uintptr_t)hi << 32) | lo));
}
#endif

fstack *stack_new(void)
{
    scheduler *s = S;
    fstack *st = new fstack();
    st->map = (char *)mmap(NULL, STACK_BYTES + page, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (st->map == MAP_FAILED) {
        fprintf(stderr, "# gbt-emu: cannot map a fiber stack: %s\n", strerror(errno));
        abort();
    }
    mprotect(st->map, page, PROT_NONE); /* a stack overflow faults */
    st->lo = st->map + page;
    st->top = st->lo + STACK_BYTES - (size_t)(s->nstacks++ * 5 % 64) * 64;
    return st;
}

/* Gives f a stack and makes it start at fiber_main when it is resumed. */
void fiber_start(fiber *f)
{
#ifdef GBT_EMU_TSAN
    if (f->own == NULL) f->own = stack_new();
    f->stk = f->own;
#else
    scheduler *s = S;
    if (s->free_stacks.empty()) s->free_stacks.push_back(stack_new());
    f->stk = s->free_stacks.back();
    s->free_stacks.pop_back();
#endif
    fstack *st = f->stk;
#ifdef GBT_EMU_ASAN
    /*
     * The frames of the stack's last fiber never returned (it switched away
     * for good): their redzones are still poisoned.  A fiber ends near the
     * top of its stack, unless its kernel was stopped, deeper.
     */
    const size_t used = st->abandoned ? STACK_BYTES : (size_t)24 << 10;
    ASAN_UNPOISON_MEMORY_REGION(st->lo + STACK_BYTES - used, used);
#endif
    st->abandoned = false;
#ifdef GBT_EMU_USE_UCONTEXT
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = st->lo;
    f->uc.uc_stack.ss_size = (size_t)(st->top - st->lo);
    f->uc.uc_link = NULL;
    makecontext(&f->uc, (void (*)())uc_entry, 2, (unsigned)(uintptr_t)f, (unsigned)((uintptr_t)f >> 32));
#else
    void **sp = (void **)st->top - 9; /* 16-byte aligned: after the pops and ret, rsp = top - 16 */
    sp[0] = NULL;                     /* r15 */
    sp[1] = NULL;                     /* r14 */
    sp[2] = (void *)fiber_main;       /* r13 */
    sp[3] = f;                        /* r12 */
    sp[4] = NULL;                     /* rbx */
    sp[5] = NULL;                     /* rbp */
    sp[6] = (void *)gbt_emu_fiber_entry;
    sp[7] = sp[8] = NULL;
    f->sp = sp;
#endif
}

/* f has ended or is stopped for good: its stack goes back (it is reused only after f has switched away). */
void fiber_release(fiber *f)
{
#ifndef GBT_EMU_TSAN
    S->free_stacks.push_back(f->stk);
#endif
    f->stk = NULL;
}

fiber *fiber_new(void)
{
    fiber *f = new fiber();
#ifdef GBT_EMU_TSAN
    f->tsan_fiber = __tsan_create_fiber(0);
#endif
    return f;
}

scheduler *sched(void)
{
    if (S == NULL) {
        S = new scheduler();
        pthread_attr_t at;
        void *addr;
        if (pthread_getattr_np(pthread_self(), &at) == 0) {
            if (pthread_attr_getstack(&at, &addr, &S->stack_size) == 0) S->stack_bottom = addr;
            pthread_attr_destroy(&at);
        }
#ifdef GBT_EMU_TSAN
        S->tsan_self = __tsan_get_current_fiber();
#endif
    }
    return S;
}

/* The registers and stack switch from one context to another (fiber or scheduler). */
#ifdef GBT_EMU_USE_UCONTEXT
#define GBT_EMU_SWAP(from_uc, from_sp, to_uc, to_sp) swapcontext(from_uc, to_uc)
#else
#define GBT_EMU_SWAP(from_uc, from_sp, to_uc, to_sp) gbt_emu_swap(from_sp, *(to_sp))
#endif

/* Scheduler -> fiber f; returns when no fiber is runnable, or the kernel has failed. */
void switch_to(fiber *f)
{
    scheduler *s = S;
    if (f->stk == NULL) fiber_start(f);
    s->cur = f;
    current = &f->ids;
#ifdef GBT_EMU_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, f->stk->lo, (size_t)(f->stk->top - f->stk->lo));
#endif
#ifdef GBT_EMU_TSAN
    __tsan_switch_to_fiber(f->tsan_fiber, __tsan_switch_to_fiber_no_sync);
#endif
    GBT_EMU_SWAP(&s->uc, &s->sp, &f->uc, &f->sp);
#ifdef GBT_EMU_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
    current = NULL;
    s->cur = NULL;
}

/* A uniform index below n from the generator (Lemire's multiply-shift: no division). */
size_t pick_index(uint64_t *rng, size_t n)
{
    return (size_t)(((unsigned __int128)splitmix(rng) * n) >> 64);
}

/* Takes a random runnable fiber off the queue: NULL when there is none or the kernel has failed. */
fiber *pick_runnable(grid_run *g)
{
    if (g->failed || g->runnable.empty()) return NULL;
    const size_t i = pick_index(&g->rng, g->runnable.size());
    fiber *next = g->runnable[i];
    g->runnable[i] = g->runnable.back();
    g->runnable.pop_back();
    next->state = F_RUNNING;
    return next;
}

/*
 * Fiber f stops running and `next` (picked by pick_runnable) runs, or the
 * scheduler when next is NULL.  `last`: f will never be resumed (it gives
 * its stack back).  Returns when f is resumed.
 */
void resume_next(fiber *f, fiber *next, bool last)
{
    scheduler *s = S;
    if (next && next->stk == NULL) fiber_start(next); /* before f's stack is free to take */
    if (last) fiber_release(f);
#ifdef GBT_EMU_ASAN
    __sanitizer_start_switch_fiber(last ? NULL : &f->asan_fake, next ? next->stk->lo : s->stack_bottom,
                                   next ? (size_t)(next->stk->top - next->stk->lo) : s->stack_size);
#endif
    if (next) {
        s->cur = next;
        current = &next->ids;
#ifdef GBT_EMU_TSAN
        __tsan_switch_to_fiber(next->tsan_fiber, __tsan_switch_to_fiber_no_sync);
#endif
        GBT_EMU_SWAP(&f->uc, &f->sp, &next->uc, &next->sp);
    } else {
#ifdef GBT_EMU_TSAN
        __tsan_switch_to_fiber(s->tsan_self, __tsan_switch_to_fiber_no_sync);
#endif
        GBT_EMU_SWAP(&f->uc, &f->sp, &s->uc, &s->sp);
    }
#ifdef GBT_EMU_ASAN
    __sanitizer_finish_switch_fiber(f->asan_fake, NULL, NULL);
#endif
}

/*
 * Fiber f stops running (it has set its state; `last`: it will never be
 * resumed): straight to a random runnable fiber, or to the scheduler when
 * there is none or the kernel has failed.  Returns when f is resumed.
 */
void switch_away(fiber *f, bool last)
{
    fiber *next = pick_runnable(S->g);
    if (next == f) return; /* f itself was picked: it just goes on */
    resume_next(f, next, last);
}

void make_ready(grid_run *g, fiber *f)
{
    f->state = F_READY;
    g->runnable.push_back(f);
}

/* ---- reports from device code -------------------------------------------------------------------------- */

std::string where_text(const grid_run *g, const fiber *f)
{
    std::string s = format("kernel %s (launched at %s:%d)", g->k->name, g->k->file, g->k->line);
    if (f)
        s += format(", block (%u,%u,%u), thread (%u,%u,%u)", f->ids.bid.x, f->ids.bid.y, f->ids.bid.z,
                    f->ids.tid.x, f->ids.tid.y, f->ids.tid.z);
    return s;
}

/* Reports and stops the kernel; called on a fiber, never returns. */
[[noreturn]] void fail_here(fiber *f, const std::string &what)
{
    grid_run *g = f->blk->g;
    report(where_text(g, f) + ": " + what);
    g->failed = true;
    sticky = cudaErrorLaunchFailure;
    f->stk->abandoned = true;
    f->state = F_DONE;
    switch_away(f, true);
    abort(); /* never resumed */
}

/* Whether two waits are at the same call (one file's name is usually one pointer: compared first). */
inline bool same_site(const site &a, const site &b)
{
    return a.line == b.line && (a.file == b.file || strcmp(a.file, b.file) == 0);
}

const char *kind_name(int kind)
{
    switch (kind) {
    case W_SHFL: return "__shfl*_sync";
    case W_BALLOT: return "__ballot_sync";
    case W_ANY: return "__any_sync";
    case W_ALL: return "__all_sync";
    case W_SYNCWARP: return "__syncwarp";
    default: return "a CUB warp collective";
    }
}

/* ---- barriers ----------------------------------------------------------------------------------------- */

void complete_barrier(block *b)
{
    if (b->bar_hook) b->bar_hook(b->bar_ctx);
    if (b->bar_user) {
        b->epoch++;
        for (warp_state &w : b->warps) w.epoch++;
    }
    b->arrived = 0;
    for (unsigned i = 0; i < b->nthreads; i++)
        if (b->f[i]->state == F_BARRIER) make_ready(b->g, b->f[i]);
}

/* A fiber has exited: waits that named it can never complete. */
void check_exit(fiber *f)
{
    block *b = f->blk;
    warp_state &w = b->warps[f->warp];
    const unsigned bit = 1u << f->ids.lane;
    if (b->arrived > 0) {
        const fiber *waiter = NULL;
        for (unsigned i = 0; i < b->nthreads && !waiter; i++)
            if (b->f[i]->state == F_BARRIER) waiter = b->f[i];
        fail_here(f, format("returned while %u thread(s) of its block wait at %s %s:%d (thread (%u,%u,%u) "
                            "among them): every thread of a block must reach each __syncthreads",
                            b->arrived, b->bar_user ? "__syncthreads" : "a CUB block collective",
                            b->bar_where.file, b->bar_where.line, waiter->ids.tid.x, waiter->ids.tid.y,
                            waiter->ids.tid.z));
    }
    for (unsigned l = 0; l < 32; l++) {
        const unsigned r = f->warp * 32 + l;
        if (r >= b->nthreads || !(w.arrived & (1u << l))) continue;
        const fiber *x = b->f[r];
        if (x->wmask & bit)
            fail_here(f, format("returned while lane %u waits at %s %s:%d with mask 0x%08x, which names "
                                "this lane",
                                l, kind_name(x->wkind), x->where.file, x->where.line, x->wmask));
    }
}

void fiber_main(fiber *f)
{
#ifdef GBT_EMU_ASAN
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
    for (;;) {
        block *b = f->blk;
        grid_run *g = b->g;
#ifdef GBT_EMU_TSAN
        __tsan_acquire(&b->tsan_start);
#endif
        g->k->body(g->k->args);
#ifdef GBT_EMU_TSAN
        __tsan_release(&b->tsan_end);
#endif
        f->state = F_DONE;
        b->exited++;
        b->warps[f->warp].exited |= 1u << f->ids.lane;
        check_exit(f);
        fiber *next = pick_runnable(g);
#ifndef GBT_EMU_TSAN
        if (next && next->stk == NULL) { /* a thread that has not started: it runs here, on f's stack */
            next->stk = f->stk;
            f->stk = NULL;
            S->cur = next;
            current = &next->ids;
            f = next;
            continue;
        }
#endif
        resume_next(f, next, true);
        abort(); /* never resumed */
    }
}

/* ---- blocks and grids ------------------------------------------------------------------------------------ */

unsigned flat_threads(dim3 d)
{
    return d.x * d.y * d.z;
}

#ifdef GBT_EMU_TSAN
/* Appends three numbers as "(x,y,z)" (snprintf, intercepted by TSan, cost a tenth of a run). */
char *put_triple(char *p, unsigned x, unsigned y, unsigned z)
{
    const unsigned v[3] = {x, y, z};
    *p++ = '(';
    for (int i = 0; i < 3; i++) {
        char digits[10];
        int n = 0;
        unsigned u = v[i];
        do digits[n++] = (char)('0' + u % 10); while ((u /= 10) != 0);
        while (n > 0) *p++ = digits[--n];
        *p++ = i < 2 ? ',' : ')';
    }
    return p;
}

/* TSan's name for f: its CUDA thread and block, as its reports show them. */
void tsan_name_fiber(fiber *f)
{
    char name[96], *p = name;
    static const char thread_word[] = "CUDA thread ", block_word[] = " of block ";
    memcpy(p, thread_word, sizeof thread_word - 1);
    p = put_triple(p + sizeof thread_word - 1, f->ids.tid.x, f->ids.tid.y, f->ids.tid.z);
    memcpy(p, block_word, sizeof block_word - 1);
    p = put_triple(p + sizeof block_word - 1, f->ids.bid.x, f->ids.bid.y, f->ids.bid.z);
    *p = '\0';
    __tsan_set_fiber_name(f->tsan_fiber, name);
}
#endif

void block_setup(block *b, grid_run *g, unsigned linear, fiber **fibers)
{
    const kernel_call &k = *g->k;
    const dim3 gd = k.cfg.grid, bd = k.cfg.block;
    b->g = g;
    b->bid = uint3{linear % gd.x, (linear / gd.x) % gd.y, linear / (gd.x * gd.y)};
    b->nthreads = flat_threads(bd);
    b->nwarps = (b->nthreads + 31) / 32;
    b->f = fibers;
    b->arrived = b->exited = 0;
    b->epoch = 0;
    b->warps.assign(b->nwarps, warp_state{0, 0, 0, 0});
    /* lanes past the block's last thread do not exist: as if exited */
    if (b->nthreads % 32) b->warps[b->nwarps - 1].exited = ~0u << (b->nthreads % 32);
    b->statics.clear();
    b->static_bytes = 0;
    b->dyn_bytes = k.cfg.smem;
    b->dyn = malloc(b->dyn_bytes ? b->dyn_bytes : 1);
    if (b->dyn == NULL) {
        fprintf(stderr, "# gbt-emu: out of host memory for %zu bytes of shared memory\n", b->dyn_bytes);
        abort();
    }
    fill_poison(b->dyn, b->dyn_bytes);
    COST(block_begin(b->nthreads, b->dyn, b->dyn_bytes));
    for (unsigned r = 0; r < b->nthreads; r++) {
        fiber *f = fibers[r];
        f->blk = b;
        f->rank = r;
        f->warp = r / 32;
        f->ids.tid = uint3{r % bd.x, (r / bd.x) % bd.y, r / (bd.x * bd.y)};
        f->ids.bid = b->bid;
        f->ids.bdim = bd;
        f->ids.gdim = gd;
        f->ids.lane = r % 32;
        f->asan_fake = NULL;
#ifdef GBT_EMU_TSAN
        tsan_name_fiber(f);
#endif
        make_ready(g, f);
    }
#ifdef GBT_EMU_TSAN
    __tsan_release(&b->tsan_start);
#endif
}

void block_release(block *b)
{
#ifdef GBT_EMU_TSAN
    __tsan_acquire(&b->tsan_end);
#endif
    COST(block_end());
    for (shared_var &v : b->statics) free(v.p);
    b->statics.clear();
    free(b->dyn);
    b->dyn = NULL;
}

std::string deadlock_text(const block *b)
{
    /* the waits, grouped by place */
    std::map<std::pair<std::string, int>, std::pair<unsigned, std::string>> groups;
    for (unsigned i = 0; i < b->nthreads; i++) {
        const fiber *f = b->f[i];
        if (f->state != F_BARRIER && f->state != F_WARP) continue;
        const char *what = f->state == F_BARRIER ? (b->bar_user ? "__syncthreads" : "a CUB block collective")
                                                 : kind_name(f->wkind);
        auto &gr = groups[{std::string(what) + " " + f->where.file, f->where.line}];
        if (gr.first++ == 0)
            gr.second = format("thread (%u,%u,%u)", f->ids.tid.x, f->ids.tid.y, f->ids.tid.z);
    }
    std::string s = format("block (%u,%u,%u) cannot go on (deadlock):", b->bid.x, b->bid.y, b->bid.z);
    for (auto &kv : groups)
        s += format(" %u thread(s) wait at %s:%d (first %s);", kv.second.first, kv.first.first.c_str(),
                    kv.first.second, kv.second.second.c_str());
    s += " a warp operation waits for every lane of its mask at the same call, a __syncthreads for "
         "every thread of the block";
    return s;
}

void run_grid(kernel_call &k)
{
    scheduler *s = sched();
    grid_run g;
    static uint64_t launches;
    const unsigned nblocks = k.cfg.grid.x * k.cfg.grid.y * k.cfg.grid.z;
    const unsigned nthreads = flat_threads(k.cfg.block);
    const unsigned wave = (unsigned)interleave < nblocks ? (unsigned)interleave : nblocks;
    std::vector<unsigned> order(nblocks);
    std::vector<block> blocks(wave);

    if (!seed_printed) {
        seed_printed = true;
        fprintf(stderr, "# gbt-emu: scheduling seed %llu (GBT_EMU_SEED=%llu repeats this run)\n", seed, seed);
    }
    g.k = &k;
    g.ki = &kernels[k.fn];
    g.rng = seed ^ (0x9e3779b97f4a7c15ull * ++launches);
    g.failed = false;
    while (s->pool.size() < (size_t)wave * nthreads) s->pool.push_back(fiber_new());
    for (unsigned i = 0; i < nblocks; i++) order[i] = i;
    for (unsigned i = nblocks; i > 1; i--) std::swap(order[i - 1], order[pick_index(&g.rng, i)]);
    s->g = &g;
    const fp_control fpc = fp_control_now();
    COST(kernel_begin(k.name, nblocks, nthreads));
    for (unsigned first = 0; first < nblocks && !g.failed; first += wave) {
        const unsigned nb = nblocks - first < wave ? nblocks - first : wave;
        for (unsigned i = 0; i < nb; i++)
            block_setup(&blocks[i], &g, order[first + i], &s->pool[(size_t)i * nthreads]);
        while (!g.runnable.empty()) {
            switch_to(pick_runnable(&g));
            if (g.failed) break;
        }
        if (fp_control_now() != fpc) {
            /* fibers share the OS thread's control words (gbt_emu_swap does not switch them) */
            if (!g.failed)
                report(where_text(&g, NULL) + ": the kernel changed the floating-point control words "
                                              "(rounding mode, exception masks), which CUDA threads cannot");
            fp_control_set(fpc);
            g.failed = true;
            sticky = cudaErrorLaunchFailure;
        }
        if (!g.failed)
            for (unsigned i = 0; i < nb; i++)
                if (blocks[i].exited < blocks[i].nthreads) {
                    report(where_text(&g, NULL) + ": " + deadlock_text(&blocks[i]));
                    g.failed = true;
                    sticky = cudaErrorLaunchFailure;
                    break;
                }
        for (unsigned i = 0; i < nb; i++) {
            /* threads stopped in the middle of the kernel (it failed) give their stacks back */
            for (unsigned r = 0; r < blocks[i].nthreads; r++) {
                fiber *f = blocks[i].f[r];
                if (f->stk == NULL) continue;
                f->stk->abandoned = true;
                fiber_release(f);
            }
            block_release(&blocks[i]);
        }
        g.runnable.clear();
    }
    COST(kernel_end());
    s->g = NULL;
}

} // namespace

/* ---- what device code calls ------------------------------------------------------------------------------ */

void block_barrier(site w, bool user, hook_fn hook, void *ctx)
{
    fiber *f = S->cur;
    block *b = f->blk;
#ifdef GBT_EMU_TSAN
    __tsan_release(&b->tsan_bar);
#endif
    if (b->arrived == 0) {
        b->bar_where = w;
        b->bar_user = user;
        b->bar_hook = hook;
        b->bar_ctx = ctx;
    } else if (!same_site(b->bar_where, w) || b->bar_user != user) {
        fail_here(f, format("waits at %s %s:%d while other threads of its block wait at %s %s:%d: "
                            "divergent barriers",
                            user ? "__syncthreads" : "a CUB block collective", w.file, w.line,
                            b->bar_user ? "__syncthreads" : "a CUB block collective", b->bar_where.file,
                            b->bar_where.line));
    }
    if (b->exited > 0) {
        const fiber *gone = NULL;
        for (unsigned i = 0; i < b->nthreads && !gone; i++)
            if (b->f[i]->state == F_DONE) gone = b->f[i];
        fail_here(f, format("waits at %s %s:%d, which thread (%u,%u,%u) of its block will never reach: it "
                            "has returned (every thread of a block must reach each __syncthreads)",
                            user ? "__syncthreads" : "a CUB block collective", w.file, w.line,
                            gone->ids.tid.x, gone->ids.tid.y, gone->ids.tid.z));
    }
    f->state = F_BARRIER;
    f->where = w;
    if (++b->arrived == b->nthreads) {
#ifdef GBT_EMU_TSAN
        __tsan_acquire(&b->tsan_bar);
#endif
        complete_barrier(b);
#ifdef GBT_EMU_TSAN
        __tsan_release(&b->tsan_bar);
#endif
    }
    switch_away(f, false);
#ifdef GBT_EMU_TSAN
    __tsan_acquire(&b->tsan_bar);
#endif
}

uint64_t warp_op(unsigned mask, warp_kind kind, site w, uint64_t value, int src, hook_fn hook, void *ctx)
{
    fiber *f = S->cur;
    block *b = f->blk;
    warp_state &ws = b->warps[f->warp];
    const unsigned lane = f->ids.lane, bit = 1u << lane;
    if (!(mask & bit))
        fail_here(f, format("%s at %s:%d with mask 0x%08x, which does not name the calling lane %u",
                            kind_name(kind), w.file, w.line, mask, lane));
    if (mask & ws.exited)
        fail_here(f, format("%s at %s:%d with mask 0x%08x names lane(s) 0x%08x that have exited or do not "
                            "exist",
                            kind_name(kind), w.file, w.line, mask, mask & ws.exited));
#ifdef GBT_EMU_TSAN
    __tsan_release(&ws.tsan_sync);
#endif
    f->wmask = mask;
    f->wkind = kind;
    f->where = w;
    f->wval = value;
    f->wsrc = src;
    f->whook = hook;
    f->wctx = ctx;
    f->state = F_WARP;
    ws.arrived |= bit;
    if ((ws.arrived & mask) == mask) {
        fiber *lanes[32];
        uint64_t ballot = 0;
        for (unsigned l = 0; l < 32; l++) {
            if (!(mask & (1u << l))) continue;
            fiber *x = b->f[f->warp * 32 + l];
            lanes[l] = x;
            if (x->wmask != mask || x->wkind != (int)kind || !same_site(x->where, w))
                fail_here(f, format("lanes of a warp meet at different warp operations: lane %u at %s %s:%d "
                                    "(mask 0x%08x), lane %u at %s %s:%d (mask 0x%08x)",
                                    lane, kind_name(kind), w.file, w.line, mask, l, kind_name(x->wkind),
                                    x->where.file, x->where.line, x->wmask));
            if (x->wval) ballot |= 1u << l;
        }
#ifdef GBT_EMU_TSAN
        __tsan_acquire(&ws.tsan_sync);
#endif
        if (hook) hook(ctx);
        for (unsigned l = 0; l < 32; l++) {
            if (!(mask & (1u << l))) continue;
            fiber *x = lanes[l];
            switch (kind) {
            case W_SHFL:
                x->wres = (mask & (1u << x->wsrc)) ? lanes[x->wsrc]->wval : ~(uint64_t)0;
                break;
            case W_BALLOT: x->wres = ballot; break;
            case W_ANY: x->wres = ballot != 0; break;
            case W_ALL: x->wres = ballot == mask; break;
            default: x->wres = 0; break;
            }
            make_ready(b->g, x);
        }
        ws.arrived &= ~mask;
        if (kind == W_SYNCWARP) ws.epoch++;
#ifdef GBT_EMU_TSAN
        __tsan_release(&ws.tsan_sync);
#endif
        /* make_ready put f in the queue too: wait for the scheduler to pick it */
    }
    switch_away(f, false);
#ifdef GBT_EMU_TSAN
    __tsan_acquire(&ws.tsan_sync);
#endif
    return f->wres;
}

uint64_t block_epoch(void)
{
    return S->cur->blk->epoch;
}

uint64_t warp_epoch(void)
{
    fiber *f = S->cur;
    return f->blk->warps[f->warp].epoch;
}

unsigned exited_lanes(void)
{
    fiber *f = S->cur;
    return f->blk->warps[f->warp].exited;
}

void yield_atomic(void)
{
    fiber *f = S->cur;
    make_ready(f->blk->g, f);
    switch_away(f, false);
}

void device_error(site w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::string what = vformat(fmt, ap);
    va_end(ap);
    fail_here(S->cur, what + format(" (at %s:%d)", w.file, w.line));
}

void host_report(const char *fmt, ...)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    va_list ap;
    va_start(ap, fmt);
    std::string what = vformat(fmt, ap);
    va_end(ap);
    report(what);
}

bool device_bytes(const void *p, size_t n)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    const allocation *a = find_device(p, n == 0);
    return a && (uintptr_t)p + n <= (uintptr_t)a->base + a->size;
}

void *shared_alloc(const char *file, int line, size_t bytes, size_t align)
{
    fiber *f = S->cur;
    block *b = f->blk;
    /*
     * The first thread to reach a declaration allocates; the others reach it
     * later.  The allocation happens before their accesses (as the block's
     * shared memory exists before any thread runs on a GPU).
     */
    for (shared_var &v : b->statics)
        if (v.line == line && (v.file == file || strcmp(v.file, file) == 0)) {
#ifdef GBT_EMU_TSAN
            __tsan_acquire(&b->tsan_alloc);
#endif
            return v.p;
        }
    kernel_info *ki = b->g->ki;
    const size_t limit = ki->max_dynamic >= 0 ? props.smem_optin : props.smem_block;
    if (b->static_bytes + bytes + b->dyn_bytes > limit)
        fail_here(f, format("__shared__ variable at %s:%d (%zu bytes) makes the block's shared memory %zu "
                            "bytes (%zu static, %zu dynamic), above the %zu bytes a block may have",
                            file, line, bytes, b->static_bytes + bytes + b->dyn_bytes,
                            b->static_bytes + bytes, b->dyn_bytes, limit));
    void *p = NULL;
    if (align < sizeof(void *)) align = sizeof(void *);
    if (posix_memalign(&p, align, bytes ? bytes : 1) != 0) {
        fprintf(stderr, "# gbt-emu: out of host memory for shared memory\n");
        abort();
    }
    fill_poison(p, bytes);
#ifdef GBT_EMU_TSAN
    __tsan_release(&b->tsan_alloc);
#endif
    b->statics.push_back(shared_var{file, line, p, bytes});
    COST(shared_add(p, bytes));
    b->static_bytes += bytes;
    if (b->static_bytes > ki->static_bytes) ki->static_bytes = b->static_bytes;
    return p;
}

void *shared_dynamic(const char *, int)
{
    return S->cur->blk->dyn;
}

/* ---- launches (host side) ---------------------------------------------------------------------------------- */

namespace {

/* The OS thread's stack, for the host-pointer scan of kernel arguments. */
bool on_host_stack(uintptr_t a)
{
    thread_local uintptr_t lo, hi;
    if (hi == 0) {
        pthread_attr_t at;
        void *addr;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &at) == 0) {
            if (pthread_attr_getstack(&at, &addr, &size) == 0) {
                lo = (uintptr_t)addr;
                hi = lo + size;
            }
            pthread_attr_destroy(&at);
        }
    }
    return a >= lo && a < hi;
}

/* The refusal of a launch found on the host side (the kernel does not run; the error is sticky). */
void refuse(const kernel_call &k, cudaError_t e, const std::string &why)
{
    report(format("kernel %s (launched at %s:%d): ", k.name, k.file, k.line) + why);
    if (e == cudaErrorIllegalAddress) sticky = e;
    set_error(e);
}

thread_local bool launch_bad;

} // namespace

bool launch_refused(const kernel_call &k)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    read_settings();
    install_segv();
    launch_bad = false;
    if (sticky != cudaSuccess) {
        set_error(sticky);
        return true;
    }
    if (inject(K_LAUNCH)) {
        set_error(cudaErrorLaunchOutOfResources);
        return true;
    }
    const dim3 g = k.cfg.grid, b = k.cfg.block;
    if (b.x == 0 || b.y == 0 || b.z == 0 || b.x > 1024 || b.y > 1024 || b.z > 64 ||
        (uint64_t)b.x * b.y * b.z > 1024) {
        refuse(k, cudaErrorInvalidConfiguration,
               format("invalid launch: a block of (%u,%u,%u) threads (at most 1024 in all; x, y <= 1024, "
                      "z <= 64)",
                      b.x, b.y, b.z));
        return true;
    }
    if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535) {
        refuse(k, cudaErrorInvalidConfiguration,
               format("invalid launch: a grid of (%u,%u,%u) blocks (x in 1..2^31-1, y and z in 1..65535)",
                      g.x, g.y, g.z));
        return true;
    }
    kernel_info &ki = kernels[k.fn];
    if (k.cfg.smem > dynamic_limit(ki)) {
        refuse(k, cudaErrorInvalidValue,
               format("invalid launch: %zu bytes of dynamic shared memory, above the kernel's limit of %zu "
                      "(%s)",
                      k.cfg.smem, dynamic_limit(ki),
                      ki.max_dynamic >= 0 ? "its cudaFuncAttributeMaxDynamicSharedMemorySize"
                                          : "48 KB less static shared memory without cudaFuncSetAttribute"));
        return true;
    }
    if (!valid_stream(k.cfg.stream)) {
        refuse(k, cudaErrorInvalidResourceHandle, "launch on a stream that does not exist");
        return true;
    }
    return false;
}

void check_pointer_arg(const kernel_call &k, int index, const void *p)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    if (p == NULL || launch_bad || find_device(p, true)) return;
    const allocation *a = find_alloc(p, true);
    const char *what = (char *)p >= FAILED_ALLOC && (char *)p < FAILED_ALLOC + 4096
                           ? "what a failed cudaMalloc left (its error was ignored)"
                       : a                              ? "pinned host memory (cudaMallocHost)"
                       : on_host_stack((uintptr_t)p) ? "the host stack"
                                                        : "not device memory";
    launch_bad = true;
    refuse(k, cudaErrorIllegalAddress, format("argument %d is a pointer to %s: %p", index, what, p));
}

void check_value_arg(const kernel_call &k, int index, const void *bytes, size_t size)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    for (size_t off = 0; off + sizeof(uintptr_t) <= size && !launch_bad; off += sizeof(uintptr_t)) {
        uintptr_t w;
        memcpy(&w, (const char *)bytes + off, sizeof w);
        const char *what = NULL;
        if (w >= (uintptr_t)FAILED_ALLOC && w < (uintptr_t)FAILED_ALLOC + 4096)
            what = "what a failed cudaMalloc left (its error was ignored)";
        else if (find_alloc((void *)w, false) && !find_device((void *)w, false))
            what = "pinned host memory (cudaMallocHost)";
        if (what) {
            launch_bad = true;
            refuse(k, cudaErrorIllegalAddress,
                   format("argument %d holds, at byte %zu, a pointer to %s: %p", index, off, what, (void *)w));
        }
    }
}

void enqueue_launch(kernel_call &k)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    if (launch_bad) {
        k.free_args(k.args);
        return;
    }
    kernel_call copy = k;
    enqueue(stream_of(k.cfg.stream), [copy]() mutable {
        if (sticky == cudaSuccess) run_grid(copy);
        copy.free_args(copy.args);
    });
}

/* ---- function attributes ------------------------------------------------------------------------------------ */

cudaError_t func_get_attributes(cudaFuncAttributes *attr, const void *fn)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    read_settings();
    STICKY_CHECK();
    const kernel_info &ki = kernels[fn];
    memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = ki.static_bytes;
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = 32;
    attr->ptxVersion = attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = (int)dynamic_limit(ki);
    return cudaSuccess;
}

cudaError_t func_set_attribute(const void *fn, cudaFuncAttribute attr, int value)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    read_settings();
    STICKY_CHECK();
    kernel_info &ki = kernels[fn];
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || (size_t)value + ki.static_bytes > props.smem_optin)
            return set_error(cudaErrorInvalidValue);
        ki.max_dynamic = value;
        return cudaSuccess;
    }
    if (attr == cudaFuncAttributePreferredSharedMemoryCarveout)
        return value >= -1 && value <= 100 ? cudaSuccess : set_error(cudaErrorInvalidValue);
    return set_error(cudaErrorInvalidValue);
}

cudaError_t occupancy(int *blocks, const void *fn, int threads, size_t smem)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    read_settings();
    STICKY_CHECK();
    const kernel_info &ki = kernels[fn];
    if (threads <= 0 || threads > 1024) return set_error(cudaErrorInvalidValue);
    if (smem > dynamic_limit(ki)) {
        *blocks = 0;
        return cudaSuccess;
    }
    int by_threads = 2048 / threads, by_smem = 32;
    const size_t per_block = smem + ki.static_bytes + 1024; /* 1 KB the hardware reserves per block */
    if (per_block > 0) by_smem = (int)(props.smem_sm / per_block);
    int n = by_threads < by_smem ? by_threads : by_smem;
    *blocks = n < 32 ? n : 32;
    return cudaSuccess;
}

} // namespace gbt_emu

/* ---- the runtime API ------------------------------------------------------------------------------------ */

using namespace gbt_emu;

namespace {

thread_local int current_device = 0;
#ifdef GBT_EMU_COST
thread_local bool in_sync_call; /* cudaMemcpy counts its own wait */
#endif

cudaError_t check_device(int d)
{
    read_settings();
    if (d < 0 || d >= props.count) return set_error(cudaErrorInvalidDevice);
    return cudaSuccess;
}

/* A device range [p, p + n) inside one allocation. */
bool device_range(const void *p, size_t n)
{
    const allocation *a = find_device(p, n == 0);
    return a && (uintptr_t)p + n <= (uintptr_t)a->base + a->size;
}

cudaError_t copy_checked(void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
    const bool d_dev = find_device(dst, n == 0) != NULL, s_dev = find_device(src, n == 0) != NULL;
    if (n == 0) return cudaSuccess;
    if (dst == NULL || src == NULL) return cudaErrorInvalidValue;
    switch (kind) {
    case cudaMemcpyHostToDevice:
        if (!d_dev || s_dev) return cudaErrorInvalidValue;
        break;
    case cudaMemcpyDeviceToHost:
        if (d_dev || !s_dev) return cudaErrorInvalidValue;
        break;
    case cudaMemcpyDeviceToDevice:
        if (!d_dev || !s_dev) return cudaErrorInvalidValue;
        break;
    case cudaMemcpyHostToHost:
        if (d_dev || s_dev) return cudaErrorInvalidValue;
        break;
    case cudaMemcpyDefault: break;
    default: return cudaErrorInvalidMemcpyDirection;
    }
    if ((d_dev && !device_range(dst, n)) || (s_dev && !device_range(src, n))) return cudaErrorInvalidValue;
    return cudaSuccess;
}

} // namespace

cudaError_t cudaGetDeviceCount(int *count)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    read_settings();
    if (getenv("GBT_EMU_NO_DRIVER")) {
        *count = 0;
        return set_error(cudaErrorInsufficientDriver);
    }
    *count = props.count;
    if (props.count == 0) return set_error(cudaErrorNoDevice);
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (check_device(device) != cudaSuccess) return cudaErrorInvalidDevice;
    current_device = device;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = current_device;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int device)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (check_device(device) != cudaSuccess) return cudaErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "gbt CUDA emulator (sm_90, %d SMs, %zu MiB)", props.sms,
             props.total >> 20);
    p->totalGlobalMem = props.total;
    p->sharedMemPerBlock = props.smem_block;
    p->sharedMemPerBlockOptin = props.smem_optin;
    p->sharedMemPerMultiprocessor = props.smem_sm;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = props.sms;
    p->maxThreadsPerMultiProcessor = 2048;
    p->memoryPoolsSupported = props.pools;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device)
{
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess) return e;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMemoryPoolsSupported: *value = p.memoryPoolsSupported; break;
    default: return set_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    COST(host(cost::H_SYNC_DEVICE, 0));
    drain_all();
    STICKY_CHECK();
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    read_settings();
    STICKY_CHECK();
    *free_bytes = props.total - used_bytes;
    *total_bytes = props.total;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return sticky != cudaSuccess ? sticky : e;
}

cudaError_t cudaPeekAtLastError(void)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    return sticky != cudaSuccess ? sticky : last_error;
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    }
    return "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
    case cudaErrorAssert: return "cudaErrorAssert";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    }
    return "cudaErrorUnknown";
}

cudaError_t cudaMalloc(void **ptr, size_t bytes)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    install_segv();
    STICKY_CHECK();
    return device_alloc(ptr, bytes);
}

cudaError_t cudaFree(void *ptr)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    COST(host(cost::H_SYNC_IMPLICIT, 0));
    drain_all(); /* cudaFree waits for the device */
    STICKY_CHECK();
    return device_free(ptr);
}

cudaError_t cudaMallocHost(void **ptr, size_t bytes)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (inject(K_HOST_MALLOC)) return set_error(cudaErrorMemoryAllocation);
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) return set_error(cudaErrorMemoryAllocation);
    fill_poison(p, bytes);
    allocs[(uintptr_t)p] = allocation{(char *)p, bytes ? bytes : 1, NULL, 0, 0, true};
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void *ptr)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    if (ptr == NULL) return cudaSuccess;
    COST(host(cost::H_SYNC_IMPLICIT, 0));
    drain_all();
    auto it = allocs.find((uintptr_t)ptr);
    if (it == allocs.end() || !it->second.pinned) return set_error(cudaErrorInvalidValue);
    allocs.erase(it);
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMallocAsync(void **ptr, size_t bytes, cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle);
    if (!props.pools) return set_error(cudaErrorNotSupported);
    return device_alloc(ptr, bytes);
}

cudaError_t cudaFreeAsync(void *ptr, cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle);
    if (ptr != NULL && find_device(ptr, false) == NULL) return set_error(cudaErrorInvalidValue);
    enqueue(stream_of(s), [ptr]() { (void)device_free(ptr); });
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle);
    if (inject(K_COPY)) return set_error(cudaErrorLaunchFailure);
    cudaError_t e = copy_checked(dst, src, bytes, kind);
    if (e != cudaSuccess) return set_error(e);
    if (bytes == 0) return cudaSuccess;
    const bool d_dev = find_device(dst, false) != NULL, s_dev = find_device(src, false) != NULL;
    const bool d_pageable = !d_dev && find_alloc(dst, false) == NULL;
    const bool s_pageable = !s_dev && find_alloc(src, false) == NULL;
    gbt_emu_stream *st = stream_of(s);
#ifdef GBT_EMU_COST
    if (d_dev || s_dev)
        cost::host(d_dev && s_dev ? cost::H_COPY_D2D : d_dev ? cost::H_COPY_H2D : cost::H_COPY_D2H, bytes);
#endif
    /* CUDA's documented synchronisation (runtime API, "API synchronization behavior") */
    if ((s_dev && d_pageable) || (!s_dev && !d_dev)) {
        /* to pageable host memory, or host to host: returns once the copy is done */
#ifdef GBT_EMU_COST
        if (s_dev && !in_sync_call) cost::host(cost::H_SYNC_COPY, 0);
#endif
        if (st == &default_stream)
            drain_legacy();
        else if (st->blocking)
            drain(&default_stream);
        drain(st);
        STICKY_CHECK();
        enter_device();
        memcpy(dst, src, bytes);
        leave_device();
        return cudaSuccess;
    }
    if (s_pageable) {
        /* from pageable host memory: staged before the call returns, copied in stream order */
        std::shared_ptr<std::vector<char>> staged =
            std::make_shared<std::vector<char>>((const char *)src, (const char *)src + bytes);
        enqueue(st, [dst, staged, bytes]() { memcpy(dst, staged->data(), bytes); });
        return cudaSuccess;
    }
    /* pinned host memory and device memory: read and written when the stream gets there */
    enqueue(st, [dst, src, bytes]() { memcpy(dst, src, bytes); });
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
#ifdef GBT_EMU_COST
    cost::host(cost::H_SYNC_COPY, 0);
    in_sync_call = true;
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, 0);
    in_sync_call = false;
#else
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, 0);
#endif
    if (e != cudaSuccess) return e;
    /*
     * On the legacy stream, which waits for the blocking streams and not
     * for the non-blocking ones.  From pageable host memory to the device
     * it returns once the bytes are staged; the copy lands in the legacy
     * stream's order (CUDA: "the DMA to final destination may not have
     * completed").  Otherwise it returns when the copy is done.
     */
    const bool to_device = find_device(dst, false) != NULL, from_device = find_device(src, false) != NULL;
    if (to_device && !from_device && find_alloc(src, false) == NULL) return cudaSuccess;
    drain_legacy();
    STICKY_CHECK();
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle);
    if (inject(K_COPY)) return set_error(cudaErrorLaunchFailure);
    if (bytes == 0) return cudaSuccess;
    if (!device_range(dst, bytes)) return set_error(cudaErrorInvalidValue);
    COST(host(cost::H_MEMSET, bytes));
    enqueue(stream_of(s), [dst, value, bytes]() { memset(dst, value, bytes); });
    return cudaSuccess;
}

cudaError_t cudaMemset(void *dst, int value, size_t bytes)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    COST(host(cost::H_SYNC_COPY, 0));
    cudaError_t e = cudaMemsetAsync(dst, value, bytes, 0);
    if (e != cudaSuccess) return e;
    drain_all();
    STICKY_CHECK();
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (flags > 1) return set_error(cudaErrorInvalidValue);
    if (inject(K_STREAM)) return set_error(cudaErrorMemoryAllocation);
    *s = new gbt_emu_stream();
    (*s)->blocking = flags == 0;
    streams.push_back(*s);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    return cudaStreamCreateWithFlags(s, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    if (s == NULL || !valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle);
    COST(host(cost::H_SYNC_IMPLICIT, 0));
    drain(s); /* its work completes, as CUDA's does after the call returns */
    for (size_t i = 0; i < streams.size(); i++)
        if (streams[i] == s) streams.erase(streams.begin() + (long)i);
    delete s;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle);
    if (inject(K_SYNC)) return set_error(cudaErrorLaunchFailure);
    COST(host(cost::H_SYNC_STREAM, 0));
    drain(stream_of(s));
    STICKY_CHECK();
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (flags > 7) return set_error(cudaErrorInvalidValue);
    if (inject(K_EVENT)) return set_error(cudaErrorMemoryAllocation);
    *e = new gbt_emu_event();
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    return cudaEventCreateWithFlags(e, 0);
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    if (e == NULL) return set_error(cudaErrorInvalidResourceHandle);
    if (e->stream && valid_stream(e->stream)) drain(e->stream, [e]() { return e->reached == e->recorded; });
    delete e;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (e == NULL || !valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle);
    const uint64_t n = ++e->recorded;
    e->stream = stream_of(s);
    enqueue(e->stream, [e, n]() { e->reached = n; });
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    if (e == NULL) return set_error(cudaErrorInvalidResourceHandle);
    if (inject(K_SYNC)) return set_error(cudaErrorLaunchFailure);
    COST(host(cost::H_SYNC_EVENT, 0));
    if (e->stream && valid_stream(e->stream)) drain(e->stream, [e]() { return e->reached == e->recorded; });
    STICKY_CHECK();
    return cudaSuccess;
}

/*
 * The work queued on s after this call waits for the event's last record
 * (as it stood at this call; none: nothing to wait for): when s reaches
 * it, the recording stream runs up to that record.
 */
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    STICKY_CHECK();
    if (e == NULL || !valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle);
    if (flags != 0) return set_error(cudaErrorInvalidValue);
    if (e->stream == NULL || e->recorded == 0) return cudaSuccess;
    gbt_emu_stream *from = e->stream;
    const uint64_t n = e->recorded;
    enqueue(stream_of(s), [e, from, n]() {
        if (valid_stream(from)) drain(from, [e, n]() { return e->reached >= n; });
    });
    return cudaSuccess;
}

/* ---- the tests' controls (gbt_emu.h) ------------------------------------------------------------------- */

extern "C" int gbt_emu_reports(void)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    return nreports;
}

extern "C" const char *gbt_emu_last_report(void)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    return last_report_text.c_str();
}

extern "C" int gbt_emu_fail_nth(const char *kind, long nth)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    const int k = fault_index(kind);
    if (k < 0) return -1;
    fault_at[k] = nth > 0 ? nth : 0;
    return 0;
}

extern "C" long gbt_emu_calls(const char *kind)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    const int k = fault_index(kind);
    return k < 0 ? -1 : fault_calls[k];
}

extern "C" unsigned long long gbt_emu_peak_bytes(void)
{
    std::lock_guard<std::recursive_mutex> lock(gbt_emu::big_lock);
    return gbt_emu::peak_bytes;
}

extern "C" void gbt_emu_peak_reset(void)
{
    std::lock_guard<std::recursive_mutex> lock(gbt_emu::big_lock);
    gbt_emu::peak_bytes = gbt_emu::asked_bytes;
}

extern "C" void gbt_emu_clear_error(void)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    sticky = cudaSuccess;
    last_error = cudaSuccess;
}

extern "C" unsigned long long gbt_emu_seed(void)
{
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    read_settings();
    return seed;
}

extern "C" int gbt_emu_get_device(void)
{
    return current_device;
}

extern "C" void gbt_emu_set_device(int device)
{
    current_device = device;
}

extern "C" int gbt_emu_cost_take(FILE *out)
{
#ifdef GBT_EMU_COST
    std::lock_guard<std::recursive_mutex> lock(big_lock);
    read_settings();
    if (interleave > 1)
        fprintf(stderr, "# gbt-emu: GBT_EMU_INTERLEAVE=%d mixes the warps of several blocks: the counts "
                        "of memory sectors are not those of a GPU\n", interleave);
    drain_all(); /* the queued work belongs to this period (not counted as a wait) */
    cost::take(out);
    return 0;
#else
    (void)out;
    return -1;
#endif
}
