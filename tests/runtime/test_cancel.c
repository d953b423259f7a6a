/* test_cancel.c — an operator failure at run time cancels the job cleanly.
 *
 * weir_job_run promises: the first failure's code comes back; the job's
 * message names the operator and the subtask and says what happened (the
 * callback and the error, or the text given to weir_ctx_fail); every
 * operator whose open() succeeded has its close() called exactly once,
 * whether its subtask was running, blocked on a full channel or never fed;
 * and nothing leaks (these tests run under AddressSanitizer's leak checker,
 * so a batch, a state or an operator's own allocation left behind fails
 * them). Failures are injected at each point a user callback runs: a map
 * function, a source's next(), weir_ctx_fail in a process operator, a sink
 * callback, open(), on_watermark, on_timer and on_end, and misuses of the
 * API that the runtime turns into failures.
 *
 * Every pipeline includes "counting" operators that count their opens and
 * closes with atomics (they run on worker threads) and hold a malloc'd
 * state from open to close, so a missing close is also a leak.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "support/weir_testutil.h"

typedef struct counting {
    _Atomic int opens, closes, records;
    int fail_open_subtask;   /* -1: none */
    uint64_t fail_at;        /* fail on_record at this value; UINT64_MAX: never */
    int fail_code;
    bool use_ctx_fail;       /* weir_ctx_fail with a message, or a bare code */
    int sleep_every;         /* > 0: yield the CPU every n records (a slow op) */
} counting;

static void counting_init(counting *c)
{
    memset(c, 0, sizeof *c);
    c->fail_open_subtask = -1;
    c->fail_at = UINT64_MAX;
}

static int counting_open(weir_ctx *ctx)
{
    counting *c = weir_ctx_arg(ctx);
    if (weir_ctx_subtask(ctx) == c->fail_open_subtask)
        return weir_ctx_fail(ctx, WEIR_EIO, "cannot open device %d", 42);
    void *mem = malloc(64);
    if (!mem)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, mem);
    atomic_fetch_add(&c->opens, 1);
    return 0;
}

static int counting_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    counting *c = weir_ctx_arg(ctx);
    uint64_t v;
    memcpy(&v, elem, 8);
    int n = atomic_fetch_add(&c->records, 1);
    if (c->sleep_every > 0 && n % c->sleep_every == 0)
        sched_yield();
    if (v == c->fail_at) {
        if (c->use_ctx_fail)
            return weir_ctx_fail(ctx, c->fail_code, "value %llu too big", (unsigned long long)v);
        return c->fail_code;
    }
    if (weir_ctx_out_size(ctx) == 0)
        return 0;
    return weir_emit(ctx, elem, ts);
}

static void counting_close(weir_ctx *ctx)
{
    counting *c = weir_ctx_arg(ctx);
    free(weir_ctx_state(ctx));
    atomic_fetch_add(&c->closes, 1);
}

static const weir_operator_vtable counting_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = counting_open,
    .on_record = counting_record,
    .close = counting_close,
};

static weir_stream *count_op(weir_stream *s, const char *name, counting *c, int parallelism,
                             bool sink)
{
    weir_process_spec spec = {.name = name,
                              .vtable = &counting_vtable,
                              .arg = c,
                              .out_size = sink ? 0 : 8,
                              .parallelism = parallelism};
    return weir_stream_process(s, &spec);
}

/* Every opened operator closed once; nothing closed that was not opened. */
static void expect_balanced(const counting *c, const char *what)
{
    int o = atomic_load(&c->opens), k = atomic_load(&c->closes);
    cr_assert_eq(o, k, "%s: %d opens but %d closes", what, o, k);
}

static void expect_failed(weir_job *job, int code)
{
    int r = weir_job_run(job);
    cr_assert_eq(r, code, "weir_job_run returned %d (%s), expected %s; message \"%s\"", r,
                 weir_err_name(r), weir_err_name(code), weir_job_error(job));
    cr_assert_eq(weir_job_error_code(job), code);
}

static uint64_t *iota(size_t n)
{
    uint64_t *v = malloc(n * sizeof *v);
    cr_assert_not_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = i;
    return v;
}

/* ---- a map function fails ------------------------------------------------- */

static int map_fail_at_500(const void *in, void *out, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, 8);
    if (v == 500)
        return WEIR_EIO;
    memcpy(out, in, 8);
    return 0;
}

/* array(p=2) -> A(p=2, chained) -> map "doubler" -> rebalance -> B(p=3) ->
 * sink C(p=1). Value 500 is in slice 0, so map subtask 0 fails. */
static void map_failure(int workers, bool disable_chaining)
{
    enum { N = 200000 };
    uint64_t *vals = iota(N);
    static counting a, b, c;
    counting_init(&a);
    counting_init(&b);
    counting_init(&c);
    weir_job *job = tu_job(&(weir_job_config){
        .workers = workers, .parallelism = 2, .disable_chaining = disable_chaining});
    weir_stream *s = count_op(weir_source_array(job, vals, N, 8, NULL), "A", &a, 2, false);
    s = weir_stream_set_name(weir_stream_map(s, 8, map_fail_at_500, NULL), "doubler");
    s = count_op(weir_stream_rebalance(s), "B", &b, 3, false);
    count_op(s, "C", &c, 1, true);
    expect_failed(job, WEIR_EIO);
    tu_assert_contains(weir_job_error(job), "'doubler'", "subtask 0", "map function failed",
                       weir_strerror(WEIR_EIO));
    /* The failing subtask's chain head was open when the map failed. */
    cr_assert_geq(atomic_load(&a.opens), 1);
    expect_balanced(&a, "A");
    expect_balanced(&b, "B");
    expect_balanced(&c, "C");
    /* The failure stopped the run: slice 1 (100000 records) never fully
     * reached C through a map that stopped at 500 in slice 0. */
    cr_assert_lt(atomic_load(&c.records), N - 1);
    weir_job_destroy(job);
    free(vals);
}

Test(cancel, map_fn_error, .timeout = 60)
{
    map_failure(2, false);
}

Test(cancel, map_fn_error_one_worker, .timeout = 60)
{
    map_failure(1, false);
}

Test(cancel, map_fn_error_no_chaining, .timeout = 60)
{
    map_failure(2, true);
}

/* ---- a source fails ------------------------------------------------------- */

typedef struct flaky {
    _Atomic int opens, closes;
    int fail_subtask;
    int fail_after_calls;
    int result; /* what next() returns on that call */
} flaky;

static int flaky_open(weir_ctx *ctx)
{
    flaky *f = weir_ctx_arg(ctx);
    int *calls = calloc(1, sizeof *calls);
    if (!calls)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, calls);
    atomic_fetch_add(&f->opens, 1);
    return 0;
}

static int flaky_next(weir_ctx *ctx)
{
    flaky *f = weir_ctx_arg(ctx);
    int *calls = weir_ctx_state(ctx);
    if (weir_ctx_subtask(ctx) == f->fail_subtask && ++*calls > f->fail_after_calls)
        return f->result;
    for (int i = 0; i < weir_ctx_batch_hint(ctx); i++) {
        uint64_t v = (uint64_t)i;
        int r = weir_emit(ctx, &v, WEIR_NO_TIMESTAMP);
        if (r < 0)
            return r;
    }
    /* The healthy subtask never ends by itself: only the cancel stops it. */
    return WEIR_SOURCE_MORE;
}

static void flaky_close(weir_ctx *ctx)
{
    flaky *f = weir_ctx_arg(ctx);
    free(weir_ctx_state(ctx));
    atomic_fetch_add(&f->closes, 1);
}

static const weir_source_vtable flaky_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = flaky_open,
    .next = flaky_next,
    .close = flaky_close,
};

static void source_failure(int result, int expected_code, const char *word)
{
    static flaky f;
    static counting b;
    memset(&f, 0, sizeof f);
    f.fail_subtask = 1;
    f.fail_after_calls = 3;
    f.result = result;
    counting_init(&b);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .batch_capacity = 64});
    weir_source_spec spec = {
        .name = "flaky", .vtable = &flaky_vtable, .arg = &f, .elem_size = 8, .parallelism = 2};
    count_op(weir_job_add_source(job, &spec), "B", &b, 2, true);
    expect_failed(job, expected_code);
    tu_assert_contains(weir_job_error(job), "'flaky'", "subtask 1", word);
    cr_assert_eq(atomic_load(&f.opens), atomic_load(&f.closes), "source: %d opens, %d closes",
                 atomic_load(&f.opens), atomic_load(&f.closes));
    cr_assert_geq(atomic_load(&f.opens), 1);
    expect_balanced(&b, "B");
    weir_job_destroy(job);
}

Test(cancel, source_next_error, .timeout = 60)
{
    source_failure(WEIR_EIO, WEIR_EIO, "next");
}

Test(cancel, source_next_invalid_result, .timeout = 60)
{
    source_failure(7, WEIR_EINVAL, "not a weir_source_result");
}

/* ---- weir_ctx_fail in a process operator ---------------------------------- */

Test(cancel, process_ctx_fail_message, .timeout = 60)
{
    enum { N = 5000 };
    uint64_t *vals = iota(N);
    static counting a, b;
    counting_init(&a);
    counting_init(&b);
    a.fail_at = 777;
    a.fail_code = WEIR_ERANGE;
    a.use_ctx_fail = true;
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    /* Source at 1, checker at 3 (rebalance, so 777 lands on 777 % 3 = 0). */
    weir_stream *s = count_op(weir_stream_rebalance(weir_source_array(job, vals, N, 8, NULL)),
                              "checker", &a, 3, false);
    count_op(s, "B", &b, 3, true);
    expect_failed(job, WEIR_ERANGE);
    tu_assert_contains(weir_job_error(job), "'checker'", "subtask 0", "value 777 too big");
    expect_balanced(&a, "checker");
    expect_balanced(&b, "B");
    weir_job_destroy(job);
    free(vals);
}

/* A bare positive code from a callback is not success: weir_ctx_fail turns
 * a non-negative error into WEIR_ECALLBACK. */
Test(cancel, ctx_fail_with_non_negative_code, .timeout = 60)
{
    uint64_t *vals = iota(10);
    static counting a;
    counting_init(&a);
    a.fail_at = 3;
    a.fail_code = 5;
    a.use_ctx_fail = true;
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    count_op(weir_source_array(job, vals, 10, 8, NULL), "odd", &a, 1, true);
    expect_failed(job, WEIR_ECALLBACK);
    tu_assert_contains(weir_job_error(job), "'odd'", "value 3 too big");
    expect_balanced(&a, "odd");
    weir_job_destroy(job);
    free(vals);
}

/* ---- a sink callback fails ------------------------------------------------ */

static int sink_fail(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)arg;
    (void)subtask;
    uint64_t v;
    memcpy(&v, elem, 8);
    return v == 42 ? WEIR_EFORMAT : 0;
}

Test(cancel, sink_callback_error, .timeout = 60)
{
    uint64_t *vals = iota(1000);
    static counting a;
    counting_init(&a);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_stream *s = count_op(weir_source_array(job, vals, 1000, 8, NULL), "A", &a, 1, false);
    weir_stream_set_name(weir_sink_callback(weir_stream_rebalance(s), sink_fail, NULL), "out");
    expect_failed(job, WEIR_EFORMAT);
    tu_assert_contains(weir_job_error(job), "'out'", "subtask 0", "sink function failed",
                       weir_strerror(WEIR_EFORMAT));
    expect_balanced(&a, "A");
    weir_job_destroy(job);
    free(vals);
}

/* ---- open fails ----------------------------------------------------------- */

/* The subtask whose open failed is not closed; every other opened one is,
 * including the operators chained below it (opened first, downstream
 * first). */
Test(cancel, open_error, .timeout = 60)
{
    enum { N = 20000 };
    uint64_t *vals = iota(N);
    static counting a, b, c;
    counting_init(&a);
    counting_init(&b);
    counting_init(&c);
    b.fail_open_subtask = 1;
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 2});
    weir_stream *s = count_op(weir_source_array(job, vals, N, 8, NULL), "A", &a, 2, false);
    s = count_op(s, "opener", &b, 2, false);
    count_op(s, "C", &c, 2, true);
    expect_failed(job, WEIR_EIO);
    tu_assert_contains(weir_job_error(job), "'opener'", "subtask 1", "cannot open device 42");
    /* opens only counts successful opens. */
    cr_assert_leq(atomic_load(&b.opens), 1);
    expect_balanced(&a, "A");
    expect_balanced(&b, "opener");
    expect_balanced(&c, "C");
    weir_job_destroy(job);
    free(vals);
}

/* ---- on_watermark, on_timer and on_end fail ------------------------------- */

typedef struct lifecycle_fail {
    _Atomic int opens, closes;
    int where; /* 0: on_watermark, 1: on_timer, 2: on_end */
} lifecycle_fail;

static int lf_open(weir_ctx *ctx)
{
    lifecycle_fail *l = weir_ctx_arg(ctx);
    weir_ctx_set_state(ctx, malloc(16));
    atomic_fetch_add(&l->opens, 1);
    return 0;
}

static int lf_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)elem;
    lifecycle_fail *l = weir_ctx_arg(ctx);
    if (l->where == 1)
        return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, ts);
    return 0;
}

static int lf_watermark(weir_ctx *ctx, int64_t wm)
{
    lifecycle_fail *l = weir_ctx_arg(ctx);
    if (l->where == 0)
        return WEIR_ERANGE;
    return weir_emit_watermark(ctx, wm);
}

static int lf_timer(weir_ctx *ctx, const weir_timer *t)
{
    return weir_ctx_fail(ctx, WEIR_EFORMAT, "timer at %lld", (long long)t->timestamp);
}

static int lf_end(weir_ctx *ctx)
{
    (void)ctx;
    return WEIR_ENOENT;
}

static void lf_close(weir_ctx *ctx)
{
    lifecycle_fail *l = weir_ctx_arg(ctx);
    free(weir_ctx_state(ctx));
    atomic_fetch_add(&l->closes, 1);
}

static const weir_operator_vtable lf_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = lf_open,
    .on_record = lf_record,
    .on_watermark = lf_watermark,
    .on_timer = lf_timer,
    .on_end = lf_end,
    .close = lf_close,
};

static void lifecycle_failure(int where, int code, const char *w1, const char *w2)
{
    static const uint64_t vals[] = {1, 2, 3};
    static const int64_t ts[] = {10, 20, 30};
    static lifecycle_fail l;
    memset(&l, 0, sizeof l);
    l.where = where;
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .disable_chaining = true});
    weir_process_spec spec = {.name = "life", .vtable = &lf_vtable, .arg = &l};
    weir_stream_process(weir_source_array(job, vals, 3, 8, ts), &spec);
    expect_failed(job, code);
    tu_assert_contains(weir_job_error(job), "'life'", "subtask 0", w1, w2);
    cr_assert_eq(atomic_load(&l.opens), 1);
    cr_assert_eq(atomic_load(&l.closes), 1);
    weir_job_destroy(job);
}

Test(cancel, on_watermark_error, .timeout = 60)
{
    lifecycle_failure(0, WEIR_ERANGE, "on_watermark", "ERANGE");
}

Test(cancel, on_timer_error, .timeout = 60)
{
    lifecycle_failure(1, WEIR_EFORMAT, "timer at 10", "'life'");
}

Test(cancel, on_end_error, .timeout = 60)
{
    lifecycle_failure(2, WEIR_ENOENT, "on_end", "ENOENT");
}

/* ---- misuse of the API at run time ---------------------------------------- */

typedef struct misuse {
    int what;
} misuse;

static int misuse_open(weir_ctx *ctx)
{
    const misuse *m = weir_ctx_arg(ctx);
    uint64_t v = 0;
    if (m->what == 0)
        return weir_emit(ctx, &v, 0); /* emitting from open() */
    if (m->what == 3) {
        int id;
        return weir_state_declare(ctx, WEIR_STATE_VALUE, 8, &id); /* not keyed */
    }
    return 0;
}

static int misuse_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const misuse *m = weir_ctx_arg(ctx);
    if (m->what == 1)
        return weir_emit(ctx, elem, ts); /* a sink has no main output */
    if (m->what == 2)
        return weir_emit_side(ctx, 9, elem, ts); /* undeclared tag */
    if (m->what == 4) {
        int id;
        return weir_state_declare(ctx, WEIR_STATE_VALUE, 8, &id); /* outside open() */
    }
    if (m->what == 5)
        return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, ts); /* no on_timer */
    return 0;
}

static const weir_operator_vtable misuse_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = misuse_open,
    .on_record = misuse_record,
};

static void expect_misuse(int what, int code, const char *w1, const char *w2)
{
    static const uint64_t vals[] = {1, 2, 3};
    static const int64_t ts[] = {10, 20, 30};
    static misuse m;
    m.what = what;
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    /* A sink only for the "no main output" case; otherwise an output that
     * nothing consumes. */
    weir_process_spec spec = {
        .name = "misuser", .vtable = &misuse_vtable, .arg = &m, .out_size = what == 1 ? 0 : 8};
    weir_stream_process(weir_source_array(job, vals, 3, 8, ts), &spec);
    expect_failed(job, code);
    tu_assert_contains(weir_job_error(job), "'misuser'", "subtask 0", w1, w2);
    weir_job_destroy(job);
}

Test(cancel, emit_in_open, .timeout = 60)
{
    expect_misuse(0, WEIR_ESTATE, "weir_emit", "open()");
}

Test(cancel, emit_from_a_sink, .timeout = 60)
{
    expect_misuse(1, WEIR_ESTATE, "weir_emit", "no main output");
}

Test(cancel, emit_side_undeclared_tag, .timeout = 60)
{
    expect_misuse(2, WEIR_EINVAL, "weir_emit_side", "tag 9");
}

Test(cancel, state_on_unkeyed_input, .timeout = 60)
{
    expect_misuse(3, WEIR_ENOKEY, "weir_state_declare", "not keyed");
}

Test(cancel, state_declared_outside_open, .timeout = 60)
{
    expect_misuse(4, WEIR_ESTATE, "weir_state_declare", "open()");
}

Test(cancel, timer_without_on_timer, .timeout = 60)
{
    expect_misuse(5, WEIR_EINVAL, "timer", "on_timer");
}

/* ---- failing while the pipeline is backpressured -------------------------- */

/* One-record batches, one batch per channel and a slow consumer that fails
 * after a while: its producers are blocked with pending output when the
 * failure comes. The run still returns, everything is closed and the pending
 * batches are freed. */
static void blocked_failure(int workers, weir_clock_kind clock)
{
    enum { N = 100000 };
    uint64_t *vals = iota(N);
    static counting a, b;
    counting_init(&a);
    counting_init(&b);
    b.fail_at = 3000;
    b.fail_code = WEIR_EIO;
    b.sleep_every = 16;
    weir_job *job = tu_job(&(weir_job_config){
        .workers = workers, .batch_capacity = 1, .channel_batches = 1, .clock = clock});
    weir_stream *s = weir_stream_set_parallelism(weir_source_array(job, vals, N, 8, NULL), 2);
    s = count_op(s, "A", &a, 2, false);
    count_op(weir_stream_rebalance(s), "slow", &b, 1, true);
    expect_failed(job, WEIR_EIO);
    tu_assert_contains(weir_job_error(job), "'slow'", "subtask 0");
    expect_balanced(&a, "A");
    expect_balanced(&b, "slow");
    weir_job_destroy(job);
    free(vals);
}

Test(cancel, while_backpressured, .timeout = 60)
{
    blocked_failure(2, WEIR_CLOCK_SYSTEM);
}

Test(cancel, while_backpressured_one_worker_virtual_clock, .timeout = 60)
{
    blocked_failure(1, WEIR_CLOCK_VIRTUAL);
}

/* Two subtasks fail at about the same time: the first error wins, and the
 * message is one whole message, not a mix of both. */
static int fail_first(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)elem;
    (void)ts;
    return weir_ctx_fail(ctx, WEIR_EIO, "first record of subtask %d", weir_ctx_subtask(ctx));
}

static const weir_operator_vtable fail_first_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = fail_first,
};

Test(cancel, concurrent_failures_first_wins, .timeout = 60)
{
    enum { N = 40000 };
    uint64_t *vals = iota(N);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 2});
    weir_process_spec spec = {.name = "both", .vtable = &fail_first_vtable};
    weir_stream_process(weir_source_array(job, vals, N, 8, NULL), &spec);
    expect_failed(job, WEIR_EIO);
    const char *msg = weir_job_error(job);
    bool zero = strstr(msg, "subtask 0: first record of subtask 0") != NULL;
    bool one = strstr(msg, "subtask 1: first record of subtask 1") != NULL;
    cr_assert(zero != one, "message \"%s\" is not exactly one subtask's", msg);
    tu_assert_contains(msg, "'both'");
    weir_job_destroy(job);
    free(vals);
}
