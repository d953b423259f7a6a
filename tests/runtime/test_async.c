/* test_async.c — async I/O (weir/async.h, Flink's AsyncDataStream): a pool
 * of service threads completes the elements after random delays, in any
 * order. Ordered results leave in input order and unordered ones between
 * the same watermarks as their elements, with no result behind a watermark
 * at or above its timestamp; the capacity bounds the elements in flight;
 * timeouts run the timeout callback or fail the job; a failed element fails
 * the job; a stop-with-savepoint with elements in flight and a restore that
 * hands them to the function again; a keyed input partitioned by key, its
 * results in order per key (key_ordered in unordered mode). Threaded: also
 * under TSan. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "job_state.h"
#include "task.h"
#include "support/pausing_source.h"
#include "support/weir_testutil.h"

/* ---- the service: threads that complete requests after a delay ------------- */

enum { MODE_DOUBLE = 0, MODE_DROP_SOME, MODE_FAIL_ONE };

typedef struct req {
    weir_async_handle h;
    int64_t value;
    int64_t due_ns;
} req;

#define QCAP 4096

typedef struct service {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    req q[QCAP];
    int head, len;
    bool stop;
    pthread_t th[3];
    int mode;
    unsigned seed;
    _Atomic int in_flight, max_in_flight;
} service;

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void *serve(void *arg)
{
    service *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->stop && s->len == 0)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->stop && s->len == 0)
            break;
        req r = s->q[s->head];
        s->head = (s->head + 1) % QCAP;
        s->len--;
        pthread_mutex_unlock(&s->mu);
        int64_t wait = r.due_ns - now_ns();
        if (wait > 0) {
            struct timespec t = {0, wait};
            nanosleep(&t, NULL);
        }
        atomic_fetch_sub(&s->in_flight, 1);
        if (s->mode == MODE_DROP_SOME && r.value % 10 == 3) {
            /* never answered: the timeout takes it */
        } else if (s->mode == MODE_FAIL_ONE && r.value == 100) {
            weir_async_fail(r.h, WEIR_EIO);
        } else {
            int64_t out[2] = {r.value, r.value * 2};
            tu_check(weir_async_complete(r.h, out, 1) == 0, "completion refused");
        }
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static int invoke(const void *elem, int64_t ts, weir_async_handle h, void *arg)
{
    (void)ts;
    service *s = arg;
    int n = atomic_fetch_add(&s->in_flight, 1) + 1;
    int m = atomic_load(&s->max_in_flight);
    while (n > m && !atomic_compare_exchange_weak(&s->max_in_flight, &m, n)) {
    }
    pthread_mutex_lock(&s->mu);
    tu_check(s->len < QCAP, "service queue full");
    s->seed = s->seed * 1103515245u + 12345u;
    req r = {h, *(const int64_t *)elem, now_ns() + (int64_t)(s->seed >> 16) % 300000};
    s->q[(s->head + s->len) % QCAP] = r;
    s->len++;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static void service_start(service *s, int mode)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->mode = mode;
    s->seed = 42;
    for (int i = 0; i < 3; i++)
        pthread_create(&s->th[i], NULL, serve, s);
}

static void service_stop(service *s)
{
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < 3; i++)
        pthread_join(s->th[i], NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
}

/* ---- what leaves the operator: records and watermarks in order ------------- */

#define MAXSEEN 20000

typedef struct seen {
    int64_t value[MAXSEEN], ts[MAXSEEN]; /* value INT64_MIN: a watermark (ts) */
    int n;
} seen;

static int rec_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    seen *s = weir_ctx_arg(ctx);
    if (s->n < MAXSEEN) {
        s->value[s->n] = ((const int64_t *)elem)[0];
        s->ts[s->n++] = ts;
    }
    return 0;
}

static int rec_watermark(weir_ctx *ctx, int64_t wm)
{
    seen *s = weir_ctx_arg(ctx);
    if (s->n < MAXSEEN) {
        s->value[s->n] = INT64_MIN;
        s->ts[s->n++] = wm;
    }
    return 0;
}

static const weir_operator_vtable rec_vt = {.version = WEIR_OPERATOR_VTABLE_V1,
                                            .on_record = rec_record,
                                            .on_watermark = rec_watermark};

#define N 3000
static int64_t vals[N], tss[N];

static void timeout_marks(const void *elem, int64_t ts, weir_async_handle h, void *arg)
{
    (void)ts, (void)arg;
    int64_t out[2] = {*(const int64_t *)elem, -1};
    weir_async_complete(h, out, 1);
}

static void key_mod7(const void *elem, void *key, void *arg)
{
    (void)arg;
    int64_t k = *(const int64_t *)elem % 7;
    memcpy(key, &k, sizeof k);
}

static const weir_key_spec by_mod7 = {.key_size = sizeof(int64_t), .extract = key_mod7};
/* run_async's input keyed by value % 7 into 2 subtasks, key_ordered if
 * unordered */
static bool keyed_input;

static int run_async(seen *out, service *svc, bool unordered, int capacity, int64_t timeout_ms,
                     weir_async_timeout_fn on_timeout, weir_job **jobp)
{
    for (int i = 0; i < N; i++) {
        vals[i] = i;
        tss[i] = i;
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 1,
                                              .clock = WEIR_CLOCK_SYSTEM,
                                              .watermark_interval_ms = 1});
    weir_stream *s = weir_stream_assign_timestamps(
        weir_source_array(job, vals, N, sizeof(int64_t), tss),
        &(weir_timestamps_spec){.strategy = weir_watermarks_bounded(0)});
    if (keyed_input)
        s = weir_stream_key_by(s, &by_mod7);
    s = weir_stream_async(s, &(weir_async_spec){.invoke = invoke, .timeout = on_timeout,
                                                .arg = svc, .out_size = 2 * sizeof(int64_t),
                                                .capacity = capacity, .timeout_ms = timeout_ms,
                                                .unordered = unordered,
                                                .parallelism = keyed_input ? 2 : 0,
                                                .key_ordered = keyed_input && unordered});
    cr_assert_not_null(s, "%s", weir_job_error(job));
    weir_process_spec rec = {.vtable = &rec_vt, .arg = out, .out_size = 0,
                             .accounting = WEIR_ACCOUNTING_SINK};
    cr_assert_not_null(weir_stream_process(s, &rec), "%s", weir_job_error(job));
    int r = weir_job_run(job);
    *jobp = job;
    return r;
}

/* No result behind a watermark at or above its timestamp; every element's
 * result once. */
static void check_watermarks_and_all(const seen *s, bool ordered)
{
    static char got[N];
    memset(got, 0, sizeof got);
    int64_t wm = INT64_MIN, next = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->value[i] == INT64_MIN) {
            cr_assert_gt(s->ts[i], wm);
            wm = s->ts[i];
            continue;
        }
        cr_assert_gt(s->ts[i], wm, "result %lld after watermark %lld", (long long)s->ts[i],
                     (long long)wm);
        int64_t v = s->value[i];
        cr_assert(v >= 0 && v < N && !got[v], "result %lld twice or unknown", (long long)v);
        got[v] = 1;
        if (ordered)
            cr_assert_eq(v, next++, "out of order");
    }
    for (int i = 0; i < N; i++)
        cr_assert(got[i], "element %d has no result", i);
    cr_assert_eq(wm, INT64_MAX);
}

Test(async, ordered_results_in_input_order_behind_no_watermark, .timeout = 60)
{
    static seen out;
    out.n = 0;
    service svc;
    service_start(&svc, MODE_DOUBLE);
    weir_job *job;
    int r = run_async(&out, &svc, false, 16, 10000, NULL, &job);
    service_stop(&svc);
    cr_assert_eq(r, 0, "%s", weir_job_error(job));
    tu_assert_no_async_failure();
    check_watermarks_and_all(&out, true);
    cr_assert_leq(atomic_load(&svc.max_in_flight), 16);
    cr_assert_eq(atomic_load(&svc.max_in_flight), 16, "the capacity was never reached");
    weir_job_destroy(job);
}

Test(async, unordered_results_between_their_watermarks, .timeout = 60)
{
    static seen out;
    out.n = 0;
    service svc;
    service_start(&svc, MODE_DOUBLE);
    weir_job *job;
    int r = run_async(&out, &svc, true, 8, 10000, NULL, &job);
    service_stop(&svc);
    cr_assert_eq(r, 0, "%s", weir_job_error(job));
    check_watermarks_and_all(&out, false);
    cr_assert_leq(atomic_load(&svc.max_in_flight), 8);
    /* results left out of order somewhere (the delays are random) */
    bool any = false;
    for (int i = 1, last = -1; i < out.n && !any; i++) {
        if (out.value[i] == INT64_MIN)
            continue;
        any = out.value[i] < last;
        last = (int)out.value[i];
    }
    cr_assert(any, "every result left in order: unordered mode did not show");
    weir_job_destroy(job);
}

/* A keyed input (Flink's AsyncDataStream on a KeyedStream): partitioned by
 * key over two subtasks; ordered results in input order per key, unordered
 * ones with key_ordered in order per key too, across keys in any order. */
static void keyed_run(bool unordered)
{
    static seen out;
    out.n = 0;
    service svc;
    service_start(&svc, MODE_DOUBLE);
    weir_job *job;
    keyed_input = true;
    int r = run_async(&out, &svc, unordered, 8, 10000, NULL, &job);
    keyed_input = false;
    service_stop(&svc);
    cr_assert_eq(r, 0, "%s", weir_job_error(job));
    check_watermarks_and_all(&out, false);
    int64_t last[7];
    for (int k = 0; k < 7; k++)
        last[k] = -1;
    bool across = false;
    for (int i = 0, prev = -1; i < out.n; i++) {
        int64_t v = out.value[i];
        if (v == INT64_MIN)
            continue;
        cr_assert_gt(v, last[v % 7], "key %lld: %lld after %lld", (long long)(v % 7),
                     (long long)v, (long long)last[v % 7]);
        last[v % 7] = v;
        across = across || v < prev;
        prev = (int)v;
    }
    cr_assert(across, "every result left in input order: the keys did not interleave");
    weir_job_destroy(job);
}

Test(async, a_keyed_input_keeps_each_keys_order, .timeout = 60)
{
    keyed_run(false);
}

Test(async, unordered_key_ordered_keeps_each_keys_order_only, .timeout = 60)
{
    keyed_run(true);
}

/* The async operator's context (subtask 0) after the run. */
static const weir_ctx *async_ctx(const weir_job *job)
{
    for (int n = 0; n < job->graph.nnodes; n++) {
        const weir_ctx *ctx = job->plan->node_ctx[n] ? job->plan->node_ctx[n][0] : NULL;
        if (ctx && ctx->node->kind && strcmp(ctx->node->kind, "async") == 0)
            return ctx;
    }
    cr_assert_fail("no async operator");
    return NULL;
}

/* A completion wakes the operator's worker (weir_ctx_wakeup, on_wakeup)
 * instead of waiting for a poll: with a timeout of ten minutes the
 * operator's only processing-time timer is the oldest element's timeout,
 * which never comes, so the count of timers fired is 0 (it was one every
 * millisecond an element was in flight: thousands here) and every result
 * left by a wake-up, a record or the end of input. Counted, not timed. */
Test(async, a_completion_wakes_the_worker_without_a_poll, .timeout = 60)
{
    static seen out;
    out.n = 0;
    service svc;
    service_start(&svc, MODE_DOUBLE);
    weir_job *job;
    int r = run_async(&out, &svc, false, 4, 600000, NULL, &job);
    service_stop(&svc);
    cr_assert_eq(r, 0, "%s", weir_job_error(job));
    check_watermarks_and_all(&out, true);
    const weir_ctx *ctx = async_ctx(job);
    cr_assert_eq(ctx->timers.processing_fired, 0u, "%llu polls",
                 (unsigned long long)ctx->timers.processing_fired);
    cr_assert_gt(ctx->timers.wakeups, 0u, "no completion woke the operator");
    weir_job_destroy(job);
}

Test(async, timeouts_run_the_timeout_callback, .timeout = 60)
{
    static seen out;
    out.n = 0;
    service svc;
    service_start(&svc, MODE_DROP_SOME);
    weir_job *job;
    int r = run_async(&out, &svc, true, 64, 20, timeout_marks, &job);
    service_stop(&svc);
    cr_assert_eq(r, 0, "%s", weir_job_error(job));
    check_watermarks_and_all(&out, false);
    weir_job_destroy(job);
}

Test(async, a_timeout_without_a_callback_fails_the_job, .timeout = 60)
{
    static seen out;
    out.n = 0;
    service svc;
    service_start(&svc, MODE_DROP_SOME);
    weir_job *job;
    int r = run_async(&out, &svc, false, 16, 20, NULL, &job);
    service_stop(&svc);
    cr_assert_neq(r, 0);
    cr_assert(strstr(weir_job_error(job), "timed out after 20 ms"), "%s", weir_job_error(job));
    weir_job_destroy(job);
}

Test(async, a_failed_element_fails_the_job, .timeout = 60)
{
    static seen out;
    out.n = 0;
    service svc;
    service_start(&svc, MODE_FAIL_ONE);
    weir_job *job;
    int r = run_async(&out, &svc, false, 16, 10000, NULL, &job);
    service_stop(&svc);
    cr_assert_neq(r, 0);
    cr_assert(strstr(weir_job_error(job), "the function failed an element (at 100)"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);
}

/* ---- a savepoint with elements in flight ----------------------------------- */

/* The source: 0..39, waiting at 20 in the first run (the savepoint comes
 * then). */
static _Atomic int first_run;
static tu_pausing_arg src_arg = {.count = 40, .pause_at = 20, .pause = &first_run};

static _Atomic int invoked;

/* First run: holds every element (never completes); second: at once. */
static int hold_or_answer(const void *elem, int64_t ts, weir_async_handle h, void *arg)
{
    (void)ts, (void)arg;
    atomic_fetch_add(&invoked, 1);
    if (atomic_load(&first_run))
        return 0;
    int64_t out[2] = {*(const int64_t *)elem, 0};
    return weir_async_complete(h, out, 1);
}

static weir_job *savepoint_job(const char *chk, const char *restore, seen *out)
{
    weir_job *job = tu_job(&(weir_job_config){
        .workers = 2, .parallelism = 1, .clock = WEIR_CLOCK_SYSTEM,
        .checkpoint = {.dir = chk, .restore_from = restore}});
    weir_stream *s = weir_job_add_source(
        job, &(weir_source_spec){.vtable = &tu_pausing_source_vt,
                                 .arg = &src_arg,
                                 .elem_size = sizeof(int64_t)});
    weir_stream_set_uid(s, "src");
    s = weir_stream_async(s, &(weir_async_spec){.invoke = hold_or_answer,
                                                .out_size = 2 * sizeof(int64_t),
                                                .capacity = 64, .timeout_ms = 60000});
    weir_stream_set_uid(s, "async");
    weir_process_spec rec = {.vtable = &rec_vt, .arg = out, .accounting = WEIR_ACCOUNTING_SINK};
    cr_assert_not_null(weir_stream_process(s, &rec), "%s", weir_job_error(job));
    return job;
}

static int run_result;

static void *run_thread(void *arg)
{
    run_result = weir_job_run(arg);
    return NULL;
}

Test(async, a_savepoint_with_elements_in_flight_replays_them, .timeout = 60)
{
    char tmp[] = "/tmp/weir-async-XXXXXX";
    cr_assert_not_null(mkdtemp(tmp));
    char sp[300];
    snprintf(sp, sizeof sp, "%s/sp", tmp);
    static seen out;
    out.n = 0;
    atomic_store(&first_run, 1);
    weir_job *job = savepoint_job(sp, NULL, &out);
    pthread_t th;
    pthread_create(&th, NULL, run_thread, job);
    while (atomic_load(&invoked) < 20)
        usleep(1000);
    int64_t id = 0;
    char why[512];
    int e = weir_job_savepoint(job, sp, true, &id, why, sizeof why);
    pthread_join(th, NULL);
    cr_assert_eq(e, 0, "savepoint: %s", why);
    cr_assert_eq(out.n, 0, "nothing completed in the first run");
    weir_job_destroy(job);

    char restore[400];
    snprintf(restore, sizeof restore, "%s/chk-%lld", sp, (long long)id);
    atomic_store(&first_run, 0);
    atomic_store(&invoked, 0);
    job = savepoint_job(NULL, restore, &out);
    tu_run_ok(job);
    /* the 20 in flight handed to the function again, then the 20 after */
    cr_assert_eq(atomic_load(&invoked), 40);
    int next = 0;
    for (int i = 0; i < out.n; i++)
        if (out.value[i] != INT64_MIN)
            cr_assert_eq(out.value[i], next++, "out of order at %d", i);
    cr_assert_eq(next, 40);
    weir_job_destroy(job);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    cr_assert_eq(system(cmd), 0);
}

Test(async, refused_specs)
{
    weir_job *job = tu_job(NULL);
    int64_t v = 0;
    weir_stream *s = weir_source_array(job, &v, 1, sizeof v, NULL);
    cr_assert_null(weir_stream_async(s, &(weir_async_spec){.invoke = invoke, .out_size = 8}));
    cr_assert(strstr(weir_job_error(job), "weir_stream_async: timeout_ms must be > 0"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);
    job = tu_job(NULL);
    s = weir_source_array(job, &v, 1, sizeof v, NULL);
    cr_assert_null(weir_stream_async(s, &(weir_async_spec){.invoke = invoke, .out_size = 8,
                                                           .timeout_ms = 10, .unordered = true,
                                                           .key_ordered = true}));
    cr_assert(strstr(weir_job_error(job), "key_ordered needs a keyed input"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);
}
