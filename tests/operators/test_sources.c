/* test_sources.c — the two ways records enter a job: the built-in array
 * source (weir_source_array) and a user source table (weir_job_add_source).
 *
 * The array source promises that subtask i of p reads the i-th of p
 * contiguous slices and that timestamps come from the optional array; the
 * tests observe the slices through a process operator chained to the source
 * that tags every record with its subtask. A user source promises the
 * lifecycle open -> next... -> close once per subtask, on the subtask's own
 * state, and the flow results MORE / WAIT / END; on the virtual clock a
 * waiting source is called again exactly at the time it asked for (the clock
 * jumps there when nothing else has work), which makes the timestamps it
 * stamps with weir_ctx_now() exact.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>

#include "support/weir_testutil.h"

/* What the tagging operator emits: the value and the subtask that saw it. */
typedef struct tagged {
    uint64_t value;
    int64_t subtask;
} tagged;

static int tag_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    tagged t;
    memcpy(&t.value, elem, 8);
    t.subtask = weir_ctx_subtask(ctx);
    return weir_emit(ctx, &t, ts);
}

static const weir_operator_vtable tag_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = tag_record,
};

static weir_stream *tag(weir_stream *s)
{
    weir_process_spec spec = {.name = "tag", .vtable = &tag_vtable, .out_size = sizeof(tagged)};
    return weir_stream_process(s, &spec);
}

Test(array_source, one_subtask_keeps_order_and_timestamps, .timeout = 60)
{
    enum { N = 1000 };
    static uint64_t vals[N];
    static int64_t ts[N];
    for (int i = 0; i < N; i++) {
        vals[i] = (uint64_t)i * 7 + 1;
        ts[i] = 1000 - i; /* descending: timestamps are data, not order */
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_collect *c;
    weir_sink_collect(weir_source_array(job, vals, N, sizeof vals[0], ts), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), (size_t)N);
    cr_assert_eq(weir_collect_elem_size(c), 8u);
    for (size_t i = 0; i < N; i++) {
        uint64_t v;
        memcpy(&v, weir_collect_elem(c, i), 8);
        cr_assert_eq(v, vals[i], "element %zu: %llu", i, (unsigned long long)v);
        cr_assert_eq(weir_collect_timestamp(c, i), ts[i]);
    }
    weir_job_destroy(job);
}

Test(array_source, without_timestamps_records_have_none, .timeout = 60)
{
    static const uint64_t vals[] = {5, 6, 7};
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_collect *c;
    weir_sink_collect(weir_source_array(job, vals, 3, 8, NULL), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), 3u);
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(weir_collect_timestamp(c, i), WEIR_NO_TIMESTAMP);
    weir_job_destroy(job);
}

Test(array_source, empty_array_ends_at_once, .timeout = 60)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_collect *c;
    weir_sink_collect(weir_source_array(job, NULL, 0, 8, NULL), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), 0u);
    weir_job_destroy(job);
}

/* Slices of 10 records over 3 subtasks: [0,3), [3,6), [6,10), each read in
 * order by its own subtask. */
static void check_slices(int p, size_t n)
{
    uint64_t *vals = malloc(n * sizeof *vals);
    int64_t *ts = malloc(n * sizeof *ts);
    for (size_t i = 0; i < n; i++) {
        vals[i] = i;
        ts[i] = (int64_t)i * 10;
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = p});
    weir_collect *c;
    weir_sink_collect(tag(weir_source_array(job, vals, n, 8, ts)), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), n);
    uint64_t *last = calloc((size_t)p, sizeof *last);
    bool *seen = calloc(n, sizeof *seen);
    for (size_t k = 0; k < n; k++) {
        tagged t;
        memcpy(&t, weir_collect_elem(c, k), sizeof t);
        cr_assert_lt(t.value, n);
        cr_assert_not(seen[t.value], "value %llu twice", (unsigned long long)t.value);
        seen[t.value] = true;
        size_t i = (size_t)t.subtask;
        size_t lo = n * i / (size_t)p, hi = n * (i + 1) / (size_t)p;
        cr_assert(t.value >= lo && t.value < hi, "value %llu read by subtask %zu (slice %zu..%zu)",
                  (unsigned long long)t.value, i, lo, hi);
        cr_assert_eq(weir_collect_timestamp(c, k), (int64_t)t.value * 10);
        /* Within its slice a subtask reads in array order. */
        if (t.value > lo)
            cr_assert_eq(last[i], t.value - 1, "subtask %zu read %llu after %llu", i,
                         (unsigned long long)t.value, (unsigned long long)last[i]);
        last[i] = t.value;
    }
    free(seen);
    free(last);
    weir_job_destroy(job);
    free(vals);
    free(ts);
}

Test(array_source, parallel_slices_3_of_10, .timeout = 60)
{
    check_slices(3, 10);
}

Test(array_source, parallel_slices_8_of_100003, .timeout = 60)
{
    check_slices(8, 100003);
}

/* More subtasks than elements: some slices are empty and still end. */
Test(array_source, parallel_slices_more_subtasks_than_elements, .timeout = 60)
{
    check_slices(5, 3);
}

/* ---- user sources --------------------------------------------------------- */

typedef struct counting_source {
    _Atomic int opens, closes, nexts_after_end;
    uint64_t per_subtask; /* records each subtask emits */
} counting_source;

typedef struct src_state {
    uint64_t emitted;
    bool ended;
} src_state;

static int cs_open(weir_ctx *ctx)
{
    counting_source *cs = weir_ctx_arg(ctx);
    tu_check(weir_ctx_state(ctx) == NULL, "a source's state must start NULL");
    src_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    atomic_fetch_add(&cs->opens, 1);
    return 0;
}

/* Emits (subtask << 32 | n) in bursts of at most the batch hint. */
static int cs_next(weir_ctx *ctx)
{
    counting_source *cs = weir_ctx_arg(ctx);
    src_state *s = weir_ctx_state(ctx);
    if (s->ended) {
        atomic_fetch_add(&cs->nexts_after_end, 1);
        return WEIR_SOURCE_END;
    }
    int hint = weir_ctx_batch_hint(ctx);
    tu_check(hint > 0, "batch hint %d", hint);
    for (int k = 0; k < hint && s->emitted < cs->per_subtask; k++) {
        uint64_t v = ((uint64_t)weir_ctx_subtask(ctx) << 32) | s->emitted;
        int r = weir_emit(ctx, &v, (int64_t)s->emitted);
        if (r < 0)
            return r;
        s->emitted++;
    }
    if (s->emitted == cs->per_subtask) {
        s->ended = true;
        return WEIR_SOURCE_END;
    }
    return WEIR_SOURCE_MORE;
}

static void cs_close(weir_ctx *ctx)
{
    counting_source *cs = weir_ctx_arg(ctx);
    free(weir_ctx_state(ctx));
    atomic_fetch_add(&cs->closes, 1);
}

static const weir_source_vtable cs_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = cs_open,
    .next = cs_next,
    .close = cs_close,
};

Test(user_source, lifecycle_per_subtask_and_all_records, .timeout = 60)
{
    static counting_source cs = {.per_subtask = 5000};
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .batch_capacity = 64});
    weir_source_spec spec = {
        .name = "counter", .vtable = &cs_vtable, .arg = &cs, .elem_size = 8, .parallelism = 3};
    weir_stream *s = weir_job_add_source(job, &spec);
    cr_assert_not_null(s);
    cr_assert_eq(weir_stream_elem_size(s), 8u);
    cr_assert_eq(weir_stream_job(s), job);
    weir_collect *c;
    /* The sink runs at the job's parallelism 1: a rebalance from 3 to 1. */
    weir_sink_collect(s, &c);
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&cs.opens), 3);
    cr_assert_eq(atomic_load(&cs.closes), 3);
    cr_assert_eq(atomic_load(&cs.nexts_after_end), 0, "next() called after it returned END");
    /* Per source subtask the records arrive complete and in order. */
    size_t n = weir_collect_count(c);
    cr_assert_eq(n, 3 * 5000u);
    uint64_t next[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, weir_collect_elem(c, i), 8);
        uint64_t sub = v >> 32, k = v & 0xffffffffu;
        cr_assert_lt(sub, 3u);
        cr_assert_eq(k, next[sub], "subtask %llu: record %llu after %llu", (unsigned long long)sub,
                     (unsigned long long)k, (unsigned long long)next[sub]);
        cr_assert_eq(weir_collect_timestamp(c, i), (int64_t)k);
        next[sub]++;
    }
    weir_job_destroy(job);
}

/* A source that owns its arg: arg_free runs once, at job destroy. */
static _Atomic int arg_frees;
static void count_free(void *p)
{
    free(p);
    atomic_fetch_add(&arg_frees, 1);
}

Test(user_source, arg_free_runs_once_at_destroy, .timeout = 60)
{
    counting_source *cs = calloc(1, sizeof *cs);
    cs->per_subtask = 10;
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_source_spec spec = {
        .vtable = &cs_vtable, .arg = cs, .arg_free = count_free, .elem_size = 8};
    weir_sink_discard(weir_job_add_source(job, &spec));
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&arg_frees), 0);
    weir_job_destroy(job);
    cr_assert_eq(atomic_load(&arg_frees), 1);
}

/* ---- waiting on the virtual clock ----------------------------------------- */

typedef struct ticker {
    int ticks;      /* records to emit, one per period */
    int64_t period; /* ms of processing time between them */
} ticker;

typedef struct ticker_state {
    int emitted;
    int64_t due;
} ticker_state;

static int ticker_open(weir_ctx *ctx)
{
    ticker_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    return 0;
}

/* One record per call, stamped with the processing time it was emitted at;
 * then WAIT until one period later. A call before the time it asked for
 * would be a scheduler bug, so it is checked. */
static int ticker_next(weir_ctx *ctx)
{
    const ticker *t = weir_ctx_arg(ctx);
    ticker_state *s = weir_ctx_state(ctx);
    int64_t now = weir_ctx_now(ctx);
    tu_check(now >= s->due, "next() at %lld, before the %lld it waited for", (long long)now,
             (long long)s->due);
    uint64_t v = (uint64_t)s->emitted;
    int r = weir_emit(ctx, &v, now);
    if (r < 0)
        return r;
    if (++s->emitted == t->ticks)
        return WEIR_SOURCE_END;
    s->due = now + t->period;
    weir_source_wait_until(ctx, s->due);
    return WEIR_SOURCE_WAIT;
}

static void ticker_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable ticker_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = ticker_open,
    .next = ticker_next,
    .close = ticker_close,
};

/* On the virtual clock the waits cost no real time and the source runs at
 * exactly 0, 100, 200, ...: the clock jumps to the earliest deadline once
 * the job is quiescent. With chaining off the collect sink sits behind a
 * channel whose buffer timeout adds deadlines of its own (5 ms after each
 * record); the source's times must not change because of them. */
static void run_ticker(bool disable_chaining, int workers)
{
    static const ticker t = {.ticks = 6, .period = 100};
    weir_job *job = tu_job(&(weir_job_config){
        .workers = workers, .clock = WEIR_CLOCK_VIRTUAL, .disable_chaining = disable_chaining});
    weir_source_spec spec = {.name = "ticker", .vtable = &ticker_vtable, .arg = (void *)&t,
                             .elem_size = 8};
    weir_collect *c;
    weir_sink_collect(weir_job_add_source(job, &spec), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), 6u);
    for (size_t i = 0; i < 6; i++) {
        uint64_t v;
        memcpy(&v, weir_collect_elem(c, i), 8);
        cr_assert_eq(v, i);
        cr_assert_eq(weir_collect_timestamp(c, i), (int64_t)i * 100,
                     "tick %zu at processing time %lld, expected %lld", i,
                     (long long)weir_collect_timestamp(c, i), (long long)i * 100);
    }
    weir_job_destroy(job);
}

Test(user_source, wait_until_on_virtual_clock_chained, .timeout = 60)
{
    run_ticker(false, 1);
}

Test(user_source, wait_until_on_virtual_clock_with_channel, .timeout = 60)
{
    run_ticker(true, 2);
}

/* A source that returns WAIT without asking for a time is called again
 * later (the runtime waits at least one ms) rather than spinning forever or
 * ending; here it waits three times per record. */
typedef struct lazy_state {
    int calls;
    uint64_t emitted;
} lazy_state;

static int lazy_open(weir_ctx *ctx)
{
    weir_ctx_set_state(ctx, calloc(1, sizeof(lazy_state)));
    return weir_ctx_state(ctx) ? 0 : WEIR_ENOMEM;
}

static int lazy_next(weir_ctx *ctx)
{
    lazy_state *s = weir_ctx_state(ctx);
    if (++s->calls % 4 != 0)
        return WEIR_SOURCE_WAIT;
    int r = weir_emit(ctx, &s->emitted, weir_ctx_now(ctx));
    if (r < 0)
        return r;
    return ++s->emitted == 5 ? WEIR_SOURCE_END : WEIR_SOURCE_MORE;
}

static void lazy_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable lazy_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1, .open = lazy_open, .next = lazy_next, .close = lazy_close};

Test(user_source, wait_without_time_is_retried, .timeout = 60)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL});
    weir_source_spec spec = {.vtable = &lazy_vtable, .elem_size = 8};
    weir_collect *c;
    weir_sink_collect(weir_job_add_source(job, &spec), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), 5u);
    /* Processing time moved forward while the source waited. */
    int64_t prev = -1;
    for (size_t i = 0; i < 5; i++) {
        cr_assert_gt(weir_collect_timestamp(c, i), prev);
        prev = weir_collect_timestamp(c, i);
    }
    weir_job_destroy(job);
}
