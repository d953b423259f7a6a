/* alloc_fail.h — the allocator of the allocation-failure tests (SQLite's
 * way): it fails exactly the N-th allocation after it is armed, and it
 * counts the blocks that are live, so a test can run something for every N
 * until a run makes fewer than N allocations and check, each time, that a
 * failure was reported as one and that nothing was leaked.
 *
 * glibc lets a program put its own malloc in front of the C library's, and
 * every allocation goes through it then: weir's, msgpack-c's, jansson's,
 * and the C library's own (strdup, fopen, realpath, open_memstream). These
 * pass each call on to glibc's __libc_* functions, counting: an allocation
 * that returns a block is +1 live (malloc, calloc, realloc of NULL,
 * aligned_alloc, posix_memalign, memalign), free of a block -1, realloc to
 * size 0 (which frees in glibc) -1. The count is of all threads and starts
 * at the first allocation of the process, so what a test compares is its
 * value before and after a run: equal when the run freed all it made.
 *
 * It also keeps the largest single request (malloc, calloc, realloc, the
 * aligned ones) since af_largest_reset, armed or not: a test of bounded
 * memory checks that no buffer grew with its input.
 *
 * Include it in exactly one file of a test binary (it defines malloc & co).
 * Those binaries are test_*_oom.c, which tests/CMakeLists.txt leaves out
 * of the sanitizer builds: ASan and TSan own malloc there.
 */
#ifndef WEIR_TESTS_ALLOC_FAIL_H
#define WEIR_TESTS_ALLOC_FAIL_H

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "support/weir_testutil.h"

#if WEIR_TEST_SANITIZED
#error "alloc_fail.h interposes malloc: it is not built under a sanitizer"
#endif

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t alignment, size_t n);
void __libc_free(void *p);

/* 0: allocations succeed; k > 0: the k-th from now fails (then 0 again). */
static _Atomic long af_fail_in;
static _Atomic long af_made; /* allocations since af_arm */
static _Atomic long af_live; /* blocks allocated and not yet freed */
static _Atomic size_t af_biggest; /* the largest request since af_largest_reset */

/* Arms the allocator: the n-th allocation from now fails (n > 0), or none
 * (n == 0); the count of allocations made restarts. */
static inline void af_arm(long n)
{
    atomic_store(&af_made, 0);
    atomic_store(&af_fail_in, n);
}

/* Disarms it; returns how many allocations were made since af_arm (more
 * than n: the n-th failed; fewer: the run did not get that far). */
static inline long af_disarm(void)
{
    atomic_store(&af_fail_in, 0);
    return atomic_load(&af_made);
}

/* The blocks live now (see above: compare two values, not one). */
static inline long af_live_blocks(void)
{
    return atomic_load(&af_live);
}

/* Forgets the largest request so far; af_largest() then says the largest
 * one made after this call. */
static inline void af_largest_reset(void)
{
    atomic_store(&af_biggest, 0);
}

static inline size_t af_largest(void)
{
    return atomic_load(&af_biggest);
}

static inline void af_note(size_t n)
{
    size_t b = atomic_load_explicit(&af_biggest, memory_order_relaxed);
    while (n > b && !atomic_compare_exchange_weak(&af_biggest, &b, n))
        ;
}

static inline bool af_should_fail(void)
{
    if (atomic_load_explicit(&af_fail_in, memory_order_relaxed) == 0)
        return false;
    atomic_fetch_add(&af_made, 1);
    long k = atomic_fetch_sub(&af_fail_in, 1);
    if (k == 1) {
        errno = ENOMEM; /* as the C library's would */
        return true;
    }
    if (k <= 0)
        atomic_store(&af_fail_in, 0); /* raced past the failure: disarm */
    return false;
}

static inline void *af_counted(void *p)
{
    if (p)
        atomic_fetch_add_explicit(&af_live, 1, memory_order_relaxed);
    return p;
}

void *malloc(size_t n)
{
    af_note(n);
    return af_should_fail() ? NULL : af_counted(__libc_malloc(n));
}

void *calloc(size_t n, size_t size)
{
    af_note(n * size);
    return af_should_fail() ? NULL : af_counted(__libc_calloc(n, size));
}

void *realloc(void *p, size_t n)
{
    if (p && n == 0) {
        /* glibc frees the block: a free, which does not fail */
        atomic_fetch_sub_explicit(&af_live, 1, memory_order_relaxed);
        return __libc_realloc(p, 0);
    }
    af_note(n);
    if (af_should_fail())
        return NULL;
    void *q = __libc_realloc(p, n);
    return p ? q : af_counted(q);
}

void free(void *p)
{
    if (p)
        atomic_fetch_sub_explicit(&af_live, 1, memory_order_relaxed);
    __libc_free(p);
}

void *aligned_alloc(size_t alignment, size_t n)
{
    af_note(n);
    return af_should_fail() ? NULL : af_counted(__libc_memalign(alignment, n));
}

void *memalign(size_t alignment, size_t n)
{
    af_note(n);
    return af_should_fail() ? NULL : af_counted(__libc_memalign(alignment, n));
}

int posix_memalign(void **out, size_t alignment, size_t n)
{
    af_note(n);
    if (af_should_fail())
        return ENOMEM;
    void *p = af_counted(__libc_memalign(alignment, n));
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

#endif
