/* test_suspended_firing.c — a firing that meets a full output suspends and
 * resumes, so a channel's memory stays within its pool, and the order of
 * what an operator emits does not change.
 *
 * The end of input (MAX) fires every window at once. With one record per
 * batch and one batch per channel, each window result fills the window's
 * output; before the firing could suspend, all results queued as pending
 * batches (a million windows, a million batches). Now at most the pool, the
 * batch that went pending and the batch of the control message behind it are
 * ever allocated: the first test fires 1 000 000 windows (100 000 under the
 * sanitizers) and reads the number of batches each channel allocated after
 * the run (batches are reused, never freed before the job is destroyed, so
 * that number is the peak). The runtime is bounded by the two million
 * single-record batches the channels carry: about 2 s in a release build,
 * the test's timeout 120 s. Across two workers (every batch a hand-off
 * between threads) it fires 200 000.
 *
 * The second test checks order across a held operator: a source emits
 * records, a watermark, then records again, into a chained operator whose
 * event-time timers fire on that watermark; with a full output the firing
 * suspends and the records after the watermark wait in the operator's inbox.
 * The sink's sequence must equal the one of a run whose channels never fill.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>

#include "job_state.h"
#include "support/weir_testutil.h"
#include "weir/keyed.h"

/* ---- a million windows at MAX --------------------------------------------- */

typedef struct win_elem {
    uint64_t key;
    uint64_t n;
} win_elem;

static void elem_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

static void count_reduce(void *acc, const void *elem, void *arg)
{
    (void)arg;
    win_elem a, e;
    memcpy(&a, acc, sizeof a);
    memcpy(&e, elem, sizeof e);
    a.n += e.n;
    memcpy(acc, &a, sizeof a);
}

typedef struct window_totals {
    _Atomic uint64_t results, sum;
} window_totals;

static int count_results(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)subtask;
    window_totals *t = arg;
    win_elem e;
    memcpy(&e, elem, sizeof e);
    atomic_fetch_add(&t->results, 1);
    atomic_fetch_add(&t->sum, e.n);
    return 0;
}

/* The most batches any channel of the plan allocated. */
static uint32_t peak_batches(const weir_job *job)
{
    uint32_t peak = 0;
    for (int i = 0; i < job->plan->nchannels; i++) {
        const weir__channel *ch = job->plan->channels[i];
        cr_log_info("channel %s -> %s: %u batches", ch->producer->ctxs[0]->node->name,
                    ch->consumer->ctxs[0]->node->name, ch->allocated);
        if (ch->allocated > peak)
            peak = ch->allocated;
    }
    return peak;
}

static void windows_at_max(int workers, uint64_t windows)
{
    enum { KEYS = 1024, POOL = 1 };
    win_elem *elems = malloc(windows * sizeof *elems);
    int64_t *ts = malloc(windows * sizeof *ts);
    cr_assert(elems && ts);
    /* One element per window: tumbling windows of 1 ms, one a millisecond,
     * over 1024 keys. No watermark but the source's MAX at its end. */
    for (uint64_t i = 0; i < windows; i++) {
        elems[i] = (win_elem){.key = i % KEYS, .n = 1};
        ts[i] = (int64_t)i;
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = workers,
                                              .parallelism = 1,
                                              .batch_capacity = 1,
                                              .channel_batches = POOL,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    weir_stream *s = weir_source_array(job, elems, windows, sizeof *elems, ts);
    weir_key_spec key = {.key_size = 8, .extract = elem_key};
    weir_window_spec w = {.assigner = weir_window_tumbling(1, 0), .reduce = count_reduce};
    weir_stream *results = weir_stream_window(weir_stream_key_by(s, &key), &w);
    window_totals totals = {0};
    cr_assert_not_null(weir_sink_callback(weir_stream_rebalance(results), count_results, &totals));
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&totals.results), windows, "every window fired once");
    cr_assert_eq(atomic_load(&totals.sum), windows);
    /* The pool, the batch that went pending (a firing stops before its next
     * timer, a source after its call) and the batches of MAX and END behind
     * it. Before firings could suspend, the window's channel took a batch
     * for every window. */
    uint32_t peak = peak_batches(job);
    cr_log_info("%d worker(s): %llu windows at MAX, at most %u batches allocated on a channel "
                "(pool %d)", workers, (unsigned long long)windows, peak, POOL);
    cr_assert_leq(peak, POOL + 3, "a channel allocated %u batches, its pool is %d", peak, POOL);
    weir_job_destroy(job);
    free(elems);
    free(ts);
}

Test(suspended_firing, million_windows_at_max_one_worker, .timeout = 120)
{
    windows_at_max(1, WEIR_TEST_SANITIZED ? 100000 : 1000000);
}

/* The same bound across two workers, where every single-record batch is a
 * hand-off between threads: a fifth of the windows, because each hand-off
 * waits for the other thread to get a CPU, and on a loaded 2-core machine
 * that wait (not weir) sets the run time. */
Test(suspended_firing, windows_at_max_two_workers, .timeout = 120)
{
    windows_at_max(2, WEIR_TEST_SANITIZED ? 50000 : 200000);
}

/* ---- order across a held operator ----------------------------------------- */

enum { ROUNDS = 40, PER_ROUND = 30 };

typedef struct out_rec {
    uint64_t value;
    uint64_t kind; /* 0: a record passed on, 1: a timer fired */
} out_rec;

typedef struct burst_state {
    int round;
} burst_state;

/* Each call: PER_ROUND records, a watermark at the round's last timestamp,
 * PER_ROUND records more (all later than the watermark). */
static int burst_next(weir_ctx *ctx)
{
    burst_state *b = weir_ctx_arg(ctx);
    if (b->round == ROUNDS)
        return WEIR_SOURCE_END;
    int64_t base = (int64_t)b->round * 2 * PER_ROUND;
    for (int half = 0; half < 2; half++) {
        for (int i = 0; i < PER_ROUND; i++) {
            uint64_t v = (uint64_t)(base + half * PER_ROUND + i);
            int r = weir_emit(ctx, &v, (int64_t)v);
            if (r < 0)
                return r;
        }
        if (half == 0) {
            int r = weir_emit_watermark(ctx, base + PER_ROUND - 1);
            if (r < 0)
                return r;
        }
    }
    b->round++;
    return WEIR_SOURCE_MORE;
}

static const weir_source_vtable burst_vtable = {.version = WEIR_SOURCE_VTABLE_V1,
                                                .next = burst_next};

/* Passes every record on and registers an event-time timer at its
 * timestamp; a timer emits its timestamp. */
static int timed_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    uint64_t v;
    memcpy(&v, elem, 8);
    int r = weir_timer_register(ctx, WEIR_EVENT_TIME, 0, ts);
    out_rec o = {.value = v, .kind = 0};
    return r < 0 ? r : weir_emit(ctx, &o, ts);
}

static int timed_timer(weir_ctx *ctx, const weir_timer *t)
{
    out_rec o = {.value = (uint64_t)t->timestamp, .kind = 1};
    return weir_emit(ctx, &o, t->timestamp);
}

static const weir_operator_vtable timed_vtable = {.version = WEIR_OPERATOR_VTABLE_V1,
                                                  .on_record = timed_record,
                                                  .on_timer = timed_timer};

static void run_bursts(int batch_capacity, int pool, weir_collect **out, weir_job **job_out)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1,
                                              .parallelism = 1,
                                              .batch_capacity = batch_capacity,
                                              .channel_batches = pool,
                                              .clock = WEIR_CLOCK_VIRTUAL,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    burst_state b = {0};
    weir_stream *s = weir_job_add_source(
        job, &(weir_source_spec){.vtable = &burst_vtable, .arg = &b, .elem_size = 8});
    weir_stream *timed = weir_stream_process(
        s, &(weir_process_spec){.vtable = &timed_vtable, .out_size = sizeof(out_rec)});
    cr_assert_not_null(weir_sink_collect(weir_stream_rebalance(timed), out));
    tu_run_ok(job);
    *job_out = job;
}

Test(suspended_firing, order_kept_across_a_held_operator, .timeout = 60)
{
    weir_collect *roomy = NULL, *tight = NULL;
    weir_job *a, *b;
    run_bursts(512, 64, &roomy, &a);
    run_bursts(1, 1, &tight, &b);
    size_t n = weir_collect_count(roomy);
    cr_assert_eq(n, (size_t)ROUNDS * 2 * PER_ROUND * 2, "every record and every timer");
    cr_assert_eq(weir_collect_count(tight), n);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(memcmp(weir_collect_elem(roomy, i), weir_collect_elem(tight, i),
                            sizeof(out_rec)), 0, "output %zu differs", i);
        cr_assert_eq(weir_collect_timestamp(roomy, i), weir_collect_timestamp(tight, i));
    }
    /* The timers of a round fire on its watermark, before the records that
     * follow it: the round's second half comes after its first half's
     * timers. */
    const out_rec *first = weir_collect_elem(tight, 0);
    cr_assert_eq(first->kind, 0);
    const out_rec *after = weir_collect_elem(tight, 2 * PER_ROUND);
    cr_assert_eq(after->kind, 0);
    cr_assert_eq(after->value, (uint64_t)PER_ROUND, "the second half follows the timers");
    /* The pool, what one call of the source made the operator emit (it
     * emits PER_ROUND records before its watermark) and MAX and END. */
    cr_assert_leq(peak_batches(b), 1 + PER_ROUND + 2, "the tight run went past its pool");
    weir_job_destroy(a);
    weir_job_destroy(b);
}
