/* weir_testutil.h — small helpers the engine-core suites share: whether the
 * build runs under a sanitizer (to scale stress tests down), a 64-bit mixer
 * for order-independent checksums, sorting, and job creation/run wrappers
 * that fail the test with the job's own message.
 *
 * Everything is static (inline) so that each Criterion binary gets its own
 * copy and -Wmissing-prototypes stays quiet. Not a test file itself: the
 * suite glob only picks up tests/<dir>/test_*.c.
 */
#ifndef WEIR_TESTS_TESTUTIL_H
#define WEIR_TESTS_TESTUTIL_H

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir.h"

/* GCC defines __SANITIZE_*__; clang reports through __has_feature. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WEIR_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WEIR_TEST_SANITIZED 1
#endif
#endif
#ifndef WEIR_TEST_SANITIZED
#define WEIR_TEST_SANITIZED 0
#endif

/* splitmix64's finaliser: a bijection, so a sum of mix(x) over a multiset
 * changes when one element is lost, duplicated or altered (unlike a plain
 * sum, which a lost x and a duplicated y of the same total would fool). */
static inline uint64_t tu_mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static inline int tu_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static inline void tu_sort_u64(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, tu_cmp_u64);
}

/* Checks inside callbacks. Criterion's asserts may only fail on the test's
 * own thread (they unwind its stack), but operator callbacks run on worker
 * threads: there a failed check is recorded (the first message wins) and
 * tu_run_ok / tu_assert_no_async_failure report it on the test thread. */
static _Atomic int tu_async_failed;
static char tu_async_msg[512];

static inline void tu_fail_async(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tu_fail_async(const char *fmt, ...)
{
    if (atomic_exchange(&tu_async_failed, 1) != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tu_async_msg, sizeof tu_async_msg, fmt, ap);
    va_end(ap);
}

#define tu_check(cond, ...)                                                                       \
    do {                                                                                          \
        if (!(cond))                                                                              \
            tu_fail_async(__VA_ARGS__);                                                           \
    } while (0)

static inline void tu_assert_no_async_failure(void)
{
    cr_assert_eq(atomic_load(&tu_async_failed), 0, "in a callback: %s", tu_async_msg);
}

/* An operator with on_record only: records pass through, the default
 * on_watermark forwards (for tests that need a process node of their own). */
static inline int tu_pass_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    return weir_emit(ctx, elem, ts);
}

static const weir_operator_vtable tu_pass_vtable __attribute__((unused)) = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = tu_pass_record,
};

/* A job from `cfg` (NULL: defaults); fails the test if creation fails. */
static inline weir_job *tu_job(const weir_job_config *cfg)
{
    weir_job *job = NULL;
    int r = weir_job_create(cfg, &job);
    cr_assert_eq(r, 0, "weir_job_create: %s", weir_strerror(r));
    cr_assert_not_null(job);
    return job;
}

/* Runs the job and fails the test, with the job's message, unless it
 * succeeded. */
static inline void tu_run_ok(weir_job *job)
{
    int r = weir_job_run(job);
    cr_assert_eq(r, 0, "weir_job_run returned %d (%s): %s", r, weir_err_name(r),
                 weir_job_error(job));
    cr_assert_str_empty(weir_job_error(job));
    tu_assert_no_async_failure();
}

/* A job run on a thread of its own, for tests that act on it while it runs
 * (a savepoint, a fault, a cancel): `result` is weir_job_run's, `done` set
 * once it returned. */
typedef struct tu_runner {
    weir_job *job;
    int result;
    atomic_int done;
    pthread_t thread;
} tu_runner;

static inline void *tu_runner_main(void *arg)
{
    tu_runner *rn = (tu_runner *)arg;
    rn->result = weir_job_run(rn->job);
    atomic_store(&rn->done, 1);
    return NULL;
}

/* Starts `job` on rn's thread; pthread_join(rn->thread) waits for it. */
static inline void tu_runner_start(tu_runner *rn, weir_job *job)
{
    rn->job = job;
    rn->result = 0;
    atomic_store(&rn->done, 0);
    cr_assert_eq(pthread_create(&rn->thread, NULL, tu_runner_main, rn), 0);
}

/* Stops rn's job with a savepoint into sp (drained: the sources end first)
 * and waits for it: the savepoint is taken and the run ends WEIR_ECANCELED.
 * The caller destroys rn->job. */
static inline void tu_runner_stop_with_savepoint(tu_runner *rn, const char *sp)
{
    int64_t id = 0;
    char why[1024];
    int e = weir_job_savepoint(rn->job, sp, true, &id, why, sizeof why);
    pthread_join(rn->thread, NULL);
    cr_assert_eq(e, 0, "savepoint: %s", why);
    cr_assert_eq(rn->result, WEIR_ECANCELED, "%s", weir_job_error(rn->job));
}

/* The collected elements as uint64 values (each element's first 8 bytes),
 * in collect order. Caller frees. */
static inline uint64_t *tu_collect_u64(const weir_collect *c, size_t *n)
{
    *n = weir_collect_count(c);
    uint64_t *v = malloc((*n ? *n : 1) * sizeof *v);
    cr_assert_not_null(v);
    for (size_t i = 0; i < *n; i++)
        memcpy(&v[i], weir_collect_elem(c, i), sizeof v[i]);
    return v;
}

/* Reads the file at `path` into buf (at most size - 1 bytes, NUL-ended). */
static inline void tu_slurp(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Whether `hay` contains every one of the NULL-terminated `needles`;
 * reports the first missing one. */
#define tu_assert_contains(hay, ...)                                                              \
    do {                                                                                          \
        const char *tu_hay_ = (hay);                                                              \
        const char *tu_needles_[] = {__VA_ARGS__, NULL};                                          \
        for (int tu_i_ = 0; tu_needles_[tu_i_]; tu_i_++)                                          \
            cr_assert(strstr(tu_hay_, tu_needles_[tu_i_]) != NULL,                                \
                      "message \"%s\" does not mention \"%s\"", tu_hay_, tu_needles_[tu_i_]);     \
    } while (0)

#endif
