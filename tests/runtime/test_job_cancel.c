/* test_job_cancel.c — weir_job_cancel: from another thread while the job
 * runs, from a signal handler on a worker thread, before the run and after
 * it.
 *
 * A cancelled run returns WEIR_ECANCELED with the job's message saying so,
 * and its capture is whole: the job event first, the summary last, with the
 * error and "cancelled":true (the in-memory sink sees exactly what the files
 * get). The job is a keyed window pipeline fed by a generator that would run
 * for about 10^9 events, on two workers and the system clock, so only the
 * cancel ends it; the cancelling thread waits for records to reach the sink
 * (a counter, no timing), so the cancel lands in the middle of the run. The
 * tests run under TSan in the tsan preset: the cancel path is atomics and a
 * futex wake. Each is bounded by its Criterion timeout.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>

#include "diag/test_diag_support.h"

typedef struct endless {
    weir_job *job;
    weir_diag_memory *mem;
    _Atomic long seen; /* records at the sink */
    long raise_at;     /* > 0: the sink raises SIGUSR1 at this record */
    _Atomic int cancel_result; /* the cancelling thread's: 1 both calls returned 0 */
} endless;

static int count_record(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem, (void)ts, (void)subtask;
    endless *e = arg;
    long n = atomic_fetch_add(&e->seen, 1) + 1;
    if (e->raise_at > 0 && n == e->raise_at)
        raise(SIGUSR1); /* delivered to this worker thread */
    return 0;
}

static void endless_make(endless *e, long raise_at)
{
    memset(e, 0, sizeof *e);
    e->raise_at = raise_at;
    cr_assert_eq(weir_diag_memory_create(&e->mem), 0);
    weir_job_config cfg = {.workers = 2, .diag = {.level = WEIR_DIAG_STANDARD, .memory = e->mem}};
    e->job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 2, .keys = 50, .rate = 100000,
                               .pace = WEIR_GEN_FAST, .count = 500000000, .seed = 3};
    weir_stream *s = weir_source_generator(e->job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(10)};
    s = weir_stream_set_parallelism(weir_stream_assign_timestamps(s, &ts), 2);
    weir_stream *win = td_window(weir_stream_key_by(s, td_gen_keys()), "window", 2);
    /* the records themselves, rebalanced, counted at the sink */
    weir_stream *sink = weir_sink_callback(weir_stream_rebalance(s), count_record, e);
    cr_assert_not_null(weir_sink_discard(win), "%s", weir_job_error(e->job));
    cr_assert_not_null(sink, "%s", weir_job_error(e->job));
}

/* The capture of a cancelled run: whole, its summary saying so. */
static void assert_cancelled_capture(const endless *e)
{
    size_t n = weir_diag_memory_count(e->mem);
    cr_assert_geq(n, 2);
    cr_assert_eq(weir_diag_memory_event(e->mem, 0)->kind, WEIR_DIAG_KIND_JOB);
    json_t *sum = td_summary(e->mem);
    cr_assert_str_eq(td_str(sum, "error"), "the job was cancelled (weir_job_cancel)");
    cr_assert(json_is_true(json_object_get(sum, "cancelled")), "%s",
              weir_diag_memory_event(e->mem, n - 1)->json);
    cr_assert_eq(td_int(sum, "events"), (int64_t)n - 1);
    json_decref(sum);
}

static void endless_free(endless *e)
{
    weir_job_destroy(e->job);
    weir_diag_memory_destroy(e->mem);
}

static void *cancel_when_running(void *arg)
{
    endless *e = arg;
    while (atomic_load(&e->seen) < 20000)
        sched_yield();
    /* twice: harmless (Criterion asserts only on the test's thread) */
    int r = weir_job_cancel(e->job);
    if (r == 0)
        r = weir_job_cancel(e->job);
    atomic_store(&e->cancel_result, r == 0 ? 1 : -1);
    return NULL;
}

Test(job_cancel, from_another_thread_while_it_runs, .timeout = 120)
{
    endless e;
    endless_make(&e, 0);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, cancel_when_running, &e), 0);
    int r = weir_job_run(e.job);
    cr_assert_eq(pthread_join(t, NULL), 0);
    cr_assert_eq(atomic_load(&e.cancel_result), 1);
    cr_assert_eq(r, WEIR_ECANCELED, "%s: %s", weir_err_name(r), weir_job_error(e.job));
    cr_assert_str_eq(weir_job_error(e.job), "the job was cancelled (weir_job_cancel)");
    cr_assert_geq(atomic_load(&e.seen), 20000);
    assert_cancelled_capture(&e);
    endless_free(&e);
}

static weir_job *signalled_job;

static void on_usr1(int sig)
{
    (void)sig;
    weir_job_cancel(signalled_job);
}

Test(job_cancel, from_a_signal_handler_on_a_worker, .timeout = 120)
{
    endless e;
    endless_make(&e, 30000);
    signalled_job = e.job;
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    cr_assert_eq(sigaction(SIGUSR1, &sa, &old), 0);
    int r = weir_job_run(e.job);
    sigaction(SIGUSR1, &old, NULL);
    cr_assert_eq(r, WEIR_ECANCELED, "%s: %s", weir_err_name(r), weir_job_error(e.job));
    cr_assert_geq(atomic_load(&e.seen), 30000);
    assert_cancelled_capture(&e);
    endless_free(&e);
}

Test(job_cancel, before_the_run_it_ends_at_once, .timeout = 60)
{
    endless e;
    endless_make(&e, 0);
    cr_assert_eq(weir_job_cancel(e.job), 0);
    int r = weir_job_run(e.job);
    cr_assert_eq(r, WEIR_ECANCELED, "%s: %s", weir_err_name(r), weir_job_error(e.job));
    assert_cancelled_capture(&e);
    endless_free(&e);
}

Test(job_cancel, after_the_run_it_does_nothing, .timeout = 60)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job_config cfg = {.workers = 2, .diag = {.memory = mem}};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 2, .keys = 5, .rate = 1000, .count = 1000, .seed = 1};
    cr_assert_not_null(weir_sink_discard(weir_source_generator(job, &g)));
    tu_run_ok(job);
    cr_assert_eq(weir_job_cancel(job), 0);
    cr_assert_str_eq(weir_job_error(job), "");
    json_t *sum = td_summary(mem);
    cr_assert_null(json_object_get(sum, "cancelled"));
    cr_assert_null(json_object_get(sum, "error"));
    json_decref(sum);
    weir_job_destroy(job);
    weir_diag_memory_destroy(mem);
    cr_assert_eq(weir_job_cancel(NULL), WEIR_EINVAL);
}
