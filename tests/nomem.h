/*
 * nomem.h - a test program's own malloc, calloc, realloc and free (glibc's
 * __libc_* do the work): after arm(n) the n-th allocation (from 0) fails
 * with ENOMEM, and the counters say how many allocations were made, how
 * many blocks and bytes are live and the peak of the bytes.  The counters
 * live in nm, which nomem_share() moves to memory shared with forked
 * children (the command-line sweeps read a child's counts after it exits).
 * Include it once, in a program not built with AddressSanitizer.
 */
#ifndef GBT_TESTS_NOMEM_H
#define GBT_TESTS_NOMEM_H

#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <sys/mman.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

struct nomem_counters {
    long fail_at; /* the allocation of the call that fails; -1: none */
    long allocs;  /* allocations since arm() */
    /*
     * Blocks allocated minus blocks freed since then.  It can fall below 0
     * when OpenMP frees the team of an earlier parallel region; above 0 is a leak.
     */
    long live;
    long live_bytes, peak_bytes; /* bytes of those blocks, now and at most */
};
static struct nomem_counters nomem_local = {-1, 0, 0, 0, 0}, *nm = &nomem_local;

/* Puts the counters in memory that children forked later share; 0 on success. */
static int nomem_share(void) __attribute__((unused));
static int nomem_share(void)
{
    void *p = mmap(NULL, sizeof *nm, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
    *(struct nomem_counters *)p = *nm;
    nm = p;
    return 0;
}

static void count_bytes(long n)
{
    long now = __atomic_add_fetch(&nm->live_bytes, n, __ATOMIC_RELAXED);
    long peak = __atomic_load_n(&nm->peak_bytes, __ATOMIC_RELAXED);
    while (now > peak && !__atomic_compare_exchange_n(&nm->peak_bytes, &peak, now, 0, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED)) {
    }
}

static int should_fail(void)
{
    if (__atomic_fetch_add(&nm->allocs, 1, __ATOMIC_RELAXED) != nm->fail_at) return 0;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    void *p = should_fail() ? NULL : __libc_malloc(n);
    if (p) __atomic_fetch_add(&nm->live, 1, __ATOMIC_RELAXED), count_bytes((long)malloc_usable_size(p));
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *p = should_fail() ? NULL : __libc_calloc(n, size);
    if (p) __atomic_fetch_add(&nm->live, 1, __ATOMIC_RELAXED), count_bytes((long)malloc_usable_size(p));
    return p;
}

void *realloc(void *old, size_t n)
{
    long was = old ? (long)malloc_usable_size(old) : 0;
    void *p = should_fail() ? NULL : __libc_realloc(old, n);
    if (p && old == NULL) __atomic_fetch_add(&nm->live, 1, __ATOMIC_RELAXED);
    if (p) count_bytes((long)malloc_usable_size(p) - was);
    return p;
}

void free(void *p)
{
    if (p) __atomic_fetch_sub(&nm->live, 1, __ATOMIC_RELAXED), count_bytes(-(long)malloc_usable_size(p));
    __libc_free(p);
}

/* Starts counting allocations; the n-th (from 0) fails, none for n = -1. */
static void arm(long n)
{
    nm->allocs = 0;
    nm->live = 0;
    nm->live_bytes = nm->peak_bytes = 0;
    nm->fail_at = n;
}

static void disarm(void)
{
    nm->fail_at = -1;
}

/* 1 when the program's calls reach this malloc (valgrind puts its own in place). */
static int nomem_active(void) __attribute__((unused));
static int nomem_active(void)
{
    /* through a pointer: gcc assumes that the builtin malloc changes no counter */
    void *(*volatile m)(size_t) = malloc;
    arm(-1);
    free(m(16));
    return nm->allocs > 0;
}
#define NOMEM_INACTIVE "malloc is not this program's (valgrind replaces it): no allocation can be failed"

#endif
