/* thrd_tsan.c — makes C11 threads, mutexes and conditions visible to
 * ThreadSanitizer.
 *
 * librdkafka starts its threads with C11 thrd_create and locks with
 * mtx_lock / cnd_wait. glibc 2.34 and later implement these without going
 * through the pthread functions, which are what GCC 12's ThreadSanitizer
 * intercepts: a thread started by thrd_create is never set up (the first
 * intercepted call in it reads TSan's per-thread state at address 0: SEGV),
 * and locks taken by mtx_lock are invisible (every access they order looks
 * like a race). Defining these functions in the test binary interposes on
 * librdkafka's calls (it makes them through the PLT) and routes them
 * through the pthread functions. On glibc thrd_t is a pthread_t, and mtx_t
 * and cnd_t have the layout of pthread_mutex_t and pthread_cond_t (glibc's
 * own mtx_lock is pthread_mutex_lock on the same memory).
 *
 * Linked into every test binary under TSan only (tests/CMakeLists.txt), with
 * criterion_tsan.c, into every example under TSan (examples/CMakeLists.txt)
 * and into the `weir` command under TSan (tools/CMakeLists.txt: `weir sql`
 * reads and writes Kafka);
 * weir itself never uses C11 threads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <threads.h>

typedef struct start {
    thrd_start_t fn;
    void *arg;
} start;

static void *trampoline(void *p)
{
    start s = *(start *)p;
    free(p);
    return (void *)(intptr_t)s.fn(s.arg);
}

int thrd_create(thrd_t *thr, thrd_start_t fn, void *arg)
{
    start *s = malloc(sizeof *s);
    if (!s)
        return thrd_nomem;
    s->fn = fn;
    s->arg = arg;
    pthread_t t;
    int r = pthread_create(&t, NULL, trampoline, s);
    if (r != 0) {
        free(s);
        return r == EAGAIN ? thrd_nomem : thrd_error;
    }
    *thr = (thrd_t)t;
    return thrd_success;
}

int thrd_join(thrd_t thr, int *res)
{
    void *v = NULL;
    if (pthread_join((pthread_t)thr, &v) != 0)
        return thrd_error;
    if (res)
        *res = (int)(intptr_t)v;
    return thrd_success;
}

int thrd_detach(thrd_t thr)
{
    return pthread_detach((pthread_t)thr) == 0 ? thrd_success : thrd_error;
}

int mtx_init(mtx_t *m, int type)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    if (type & mtx_recursive)
        pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    int r = pthread_mutex_init((pthread_mutex_t *)m, &a);
    pthread_mutexattr_destroy(&a);
    return r == 0 ? thrd_success : thrd_error;
}

int mtx_lock(mtx_t *m)
{
    return pthread_mutex_lock((pthread_mutex_t *)m) == 0 ? thrd_success : thrd_error;
}

int mtx_trylock(mtx_t *m)
{
    int r = pthread_mutex_trylock((pthread_mutex_t *)m);
    return r == 0 ? thrd_success : r == EBUSY ? thrd_busy : thrd_error;
}

int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict t)
{
    int r = pthread_mutex_timedlock((pthread_mutex_t *)m, t);
    return r == 0 ? thrd_success : r == ETIMEDOUT ? thrd_timedout : thrd_error;
}

int mtx_unlock(mtx_t *m)
{
    return pthread_mutex_unlock((pthread_mutex_t *)m) == 0 ? thrd_success : thrd_error;
}

void mtx_destroy(mtx_t *m)
{
    pthread_mutex_destroy((pthread_mutex_t *)m);
}

int cnd_init(cnd_t *c)
{
    return pthread_cond_init((pthread_cond_t *)c, NULL) == 0 ? thrd_success : thrd_error;
}

int cnd_signal(cnd_t *c)
{
    return pthread_cond_signal((pthread_cond_t *)c) == 0 ? thrd_success : thrd_error;
}

int cnd_broadcast(cnd_t *c)
{
    return pthread_cond_broadcast((pthread_cond_t *)c) == 0 ? thrd_success : thrd_error;
}

int cnd_wait(cnd_t *c, mtx_t *m)
{
    return pthread_cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m) == 0 ? thrd_success
                                                                             : thrd_error;
}

int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict t)
{
    int r = pthread_cond_timedwait((pthread_cond_t *)c, (pthread_mutex_t *)m, t);
    return r == 0 ? thrd_success : r == ETIMEDOUT ? thrd_timedout : thrd_error;
}

void cnd_destroy(cnd_t *c)
{
    pthread_cond_destroy((pthread_cond_t *)c);
}
