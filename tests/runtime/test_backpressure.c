/* test_backpressure.c — bounded channels, full outputs and pending batches.
 *
 * A channel holds at most channel_batches batches of batch_capacity records;
 * a subtask whose output is full keeps the records it already emitted as
 * pending, yields, and is not fed more input until credit comes back. The
 * smallest settings (one record per batch, one batch per channel) make every
 * emit after the first block, and a flat_map that emits 1000 records per
 * input overflows its output a thousand times within one call. These tests
 * push such pipelines through every edge kind, with one or two workers, on
 * both clocks and both flush modes, and check that nothing is lost,
 * duplicated or reordered (per producer) and that the job ends. None of them
 * measures time: a wedged pipeline shows up as the test's timeout.
 *
 * They also check the memory bound of channel.h: a channel's batches are
 * the pool in flight, plus the pending ones, which only one callback's
 * output may add (a blocked subtask is fed no input), and, at a source's
 * end, the MAX watermark and END its finish sends behind that output in the
 * same step. A channel makes batches only when none is spare and frees none
 * before it is destroyed, so its `allocated` after the run is the most it
 * ever held (check_memory_bound). A subtask fed on while its output is full
 * would pile up pending batches a steady stream long, thousands of them.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "job_state.h"
#include "support/weir_testutil.h"

enum { FAN = 1000, INPUTS = WEIR_TEST_SANITIZED ? 60 : 300 };

typedef struct fanned {
    uint64_t input;
    uint64_t copy;
} fanned;

static int fan_out(weir_ctx *ctx, const void *in, int64_t ts, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, 8);
    for (uint64_t k = 0; k < FAN; k++) {
        fanned f = {v, k};
        int r = weir_emit(ctx, &f, ts);
        if (r < 0)
            return r;
    }
    return 0;
}

/* Per sink subtask: count, checksum and the per-input order check (copies of
 * one input must arrive in order, since they come from one producer over
 * one channel). Each slot is written by one sink subtask only. */
enum { MAX_SINKS = 4 };
typedef struct sink_totals {
    struct {
        uint64_t count, mixed;
        char pad[48];
    } part[MAX_SINKS];
    int slow_every;
    _Atomic int bad;
} sink_totals;

static int fanned_sink(const void *elem, int64_t ts, int subtask, void *arg)
{
    sink_totals *t = arg;
    fanned f;
    memcpy(&f, elem, sizeof f);
    if (f.input >= INPUTS || f.copy >= FAN || ts != (int64_t)f.input)
        atomic_store(&t->bad, 1);
    t->part[subtask].count++;
    t->part[subtask].mixed += tu_mix(f.input * FAN + f.copy);
    if (t->slow_every && t->part[subtask].count % (uint64_t)t->slow_every == 0)
        sched_yield();
    return 0;
}

static uint64_t expected_mix(void)
{
    uint64_t m = 0;
    for (uint64_t i = 0; i < (uint64_t)INPUTS * FAN; i++)
        m += tu_mix(i);
    return m;
}

static void check_totals(const sink_totals *t, int sinks)
{
    cr_assert_eq(atomic_load(&t->bad), 0, "a record arrived corrupted");
    uint64_t count = 0, mixed = 0;
    for (int s = 0; s < sinks; s++) {
        count += t->part[s].count;
        mixed += t->part[s].mixed;
    }
    cr_assert_eq(count, (uint64_t)INPUTS * FAN, "%llu records arrived, expected %llu",
                 (unsigned long long)count, (unsigned long long)INPUTS * FAN);
    cr_assert_eq(mixed, expected_mix(), "the right number arrived, but not the right records");
}

/* The records one callback of the producer behind `ch` emits into it at
 * most: a source's next() emits a batch hint (batch_capacity) of records,
 * an operator here at most FAN (fan_out, a process sink: none). */
static uint64_t callback_output(const weir_job *job, const weir__channel *ch)
{
    const weir__node *from = job->graph.nodes[job->graph.edges[ch->edge].from];
    return from->is_source ? (uint64_t)job->cfg.batch_capacity : FAN;
}

/* Every channel of the run stayed within the pool, one callback's output
 * pending (its last batch maybe still open) and the end's two control
 * batches; each had a pool of channel_batches. */
static void check_memory_bound(const weir_job *job)
{
    const weir__plan *plan = job->plan;
    cr_assert_gt(plan->nchannels, 0, "the pipeline has no channel to check");
    for (int i = 0; i < plan->nchannels; i++) {
        const weir__channel *ch = plan->channels[i];
        cr_assert_eq(ch->pool, (uint32_t)job->cfg.channel_batches, "channel %d: pool %u", i,
                     ch->pool);
        uint64_t pending = (callback_output(job, ch) + ch->capacity - 1) / ch->capacity;
        uint64_t bound = ch->pool + pending + 2;
        cr_assert_leq(ch->allocated, bound,
                      "channel %d (edge %d, %s -> %s): %u batches of %u records, bound %llu "
                      "(pool %u + %llu pending + MAX and END)",
                      i, ch->edge, job->graph.nodes[job->graph.edges[ch->edge].from]->name,
                      job->graph.nodes[job->graph.edges[ch->edge].to]->name, ch->allocated,
                      ch->capacity, (unsigned long long)bound, ch->pool,
                      (unsigned long long)pending);
    }
}

typedef struct bp_case {
    int workers;
    int source_p;
    int sink_p;
    bool disable_chaining;
    int64_t buffer_timeout_ms;
    weir_clock_kind clock;
    int slow_every;
} bp_case;

/* source -> flat_map(x1000) -> rebalance -> callback sink, at batch_capacity
 * 1 and channel_batches 1. */
static void run_fan(bp_case c)
{
    static uint64_t in[INPUTS];
    static int64_t ts[INPUTS];
    for (uint64_t i = 0; i < INPUTS; i++) {
        in[i] = i;
        ts[i] = (int64_t)i;
    }
    static sink_totals totals;
    memset(&totals, 0, sizeof totals);
    totals.slow_every = c.slow_every;
    weir_job *job = tu_job(&(weir_job_config){.workers = c.workers,
                                              .batch_capacity = 1,
                                              .channel_batches = 1,
                                              .disable_chaining = c.disable_chaining,
                                              .buffer_timeout_ms = c.buffer_timeout_ms,
                                              .clock = c.clock});
    weir_stream *s = weir_stream_set_parallelism(weir_source_array(job, in, INPUTS, 8, ts),
                                                 c.source_p);
    s = weir_stream_flat_map(s, sizeof(fanned), fan_out, NULL);
    weir_stream_set_parallelism(s, c.source_p);
    weir_stream_set_parallelism(weir_sink_callback(weir_stream_rebalance(s), fanned_sink, &totals),
                                c.sink_p);
    tu_run_ok(job);
    check_totals(&totals, c.sink_p);
    check_memory_bound(job);
    weir_job_destroy(job);
}

Test(backpressure, fan_out_1000_tiny_channels, .timeout = 120)
{
    run_fan((bp_case){.workers = 2, .source_p = 1, .sink_p = 2});
}

Test(backpressure, fan_out_1000_tiny_channels_one_worker, .timeout = 120)
{
    run_fan((bp_case){.workers = 1, .source_p = 2, .sink_p = 3});
}

Test(backpressure, fan_out_1000_tiny_channels_no_chaining, .timeout = 120)
{
    run_fan((bp_case){.workers = 2, .source_p = 2, .sink_p = 2, .disable_chaining = true});
}

Test(backpressure, fan_out_1000_flush_at_once, .timeout = 120)
{
    run_fan((bp_case){
        .workers = 2, .source_p = 1, .sink_p = 2, .buffer_timeout_ms = WEIR_FLUSH_AT_ONCE});
}

Test(backpressure, fan_out_1000_virtual_clock_one_worker, .timeout = 120)
{
    run_fan((bp_case){.workers = 1, .source_p = 1, .sink_p = 2, .clock = WEIR_CLOCK_VIRTUAL});
}

Test(backpressure, fan_out_1000_slow_sink, .timeout = 120)
{
    run_fan((bp_case){.workers = 2, .source_p = 2, .sink_p = 1, .slow_every = 64});
}

/* Order per producer survives blocking: with one source subtask, one
 * flat_map and one sink, the records arrive exactly in emission order even
 * though almost every emit went through the pending list. */
static int ordered_sink(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)subtask;
    sink_totals *t = arg;
    fanned f;
    memcpy(&f, elem, sizeof f);
    uint64_t want = t->part[0].count;
    if (f.input * FAN + f.copy != want)
        atomic_store(&t->bad, 1);
    t->part[0].count++;
    t->part[0].mixed += tu_mix(f.input * FAN + f.copy);
    return 0;
}

Test(backpressure, blocking_keeps_order, .timeout = 120)
{
    static uint64_t in[INPUTS];
    static int64_t ts[INPUTS];
    for (uint64_t i = 0; i < INPUTS; i++) {
        in[i] = i;
        ts[i] = (int64_t)i;
    }
    static sink_totals totals;
    weir_job *job = tu_job(&(weir_job_config){
        .workers = 2, .batch_capacity = 1, .channel_batches = 1, .disable_chaining = true});
    weir_stream *s = weir_stream_flat_map(weir_source_array(job, in, INPUTS, 8, ts),
                                          sizeof(fanned), fan_out, NULL);
    weir_sink_callback(s, ordered_sink, &totals);
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&totals.bad), 0, "records arrived out of order");
    check_totals(&totals, 1);
    check_memory_bound(job);
    weir_job_destroy(job);
}

/* ---- every edge kind with tiny channels ----------------------------------- */

static void extract_input(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8); /* fanned.input */
}

/* Counts per sink subtask, through a process sink so that key_by and
 * broadcast consumers can be used. */
typedef struct edge_totals {
    struct {
        uint64_t count, mixed;
        char pad[48];
    } part[MAX_SINKS];
} edge_totals;

static int edge_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)ts;
    edge_totals *t = weir_ctx_arg(ctx);
    fanned f;
    memcpy(&f, elem, sizeof f);
    int s = weir_ctx_subtask(ctx);
    t->part[s].count++;
    t->part[s].mixed += tu_mix(f.input * FAN + f.copy);
    return 0;
}

static const weir_operator_vtable edge_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = edge_record,
};

typedef enum edge_kind { EDGE_KEY_BY, EDGE_BROADCAST, EDGE_UNION } edge_kind;

static void run_edge(edge_kind kind, int workers)
{
    static uint64_t in[INPUTS];
    for (uint64_t i = 0; i < INPUTS; i++)
        in[i] = i;
    static edge_totals totals;
    memset(&totals, 0, sizeof totals);
    enum { P = 3 };
    weir_job *job = tu_job(&(weir_job_config){
        .workers = workers, .batch_capacity = 1, .channel_batches = 1, .parallelism = 2});
    weir_stream *src = weir_source_array(job, in, INPUTS, 8, NULL);
    weir_stream *f = weir_stream_flat_map(src, sizeof(fanned), fan_out, NULL);
    weir_stream *edge = NULL;
    int copies = 1;
    weir_key_spec key = {.key_size = 8, .extract = extract_input};
    if (kind == EDGE_KEY_BY) {
        edge = weir_stream_key_by(f, &key);
    } else if (kind == EDGE_BROADCAST) {
        edge = weir_stream_broadcast(f);
        copies = P;
    } else {
        /* The same fanned stream and a second flat_map over the same source
         * (a diamond), joined again. */
        weir_stream *g = weir_stream_flat_map(src, sizeof(fanned), fan_out, NULL);
        weir_stream *two[] = {f, g};
        edge = weir_stream_union(two, 2);
        copies = 2;
    }
    weir_process_spec sink = {.vtable = &edge_vtable, .arg = &totals, .parallelism = P};
    cr_assert_not_null(weir_stream_process(edge, &sink), "%s", weir_job_error(job));
    tu_run_ok(job);
    uint64_t count = 0, mixed = 0;
    for (int s = 0; s < P; s++) {
        count += totals.part[s].count;
        mixed += totals.part[s].mixed;
        if (kind == EDGE_BROADCAST) {
            cr_assert_eq(totals.part[s].count, (uint64_t)INPUTS * FAN,
                         "broadcast consumer %d got %llu", s,
                         (unsigned long long)totals.part[s].count);
        }
    }
    cr_assert_eq(count, (uint64_t)INPUTS * FAN * copies, "%llu records, expected %llu",
                 (unsigned long long)count, (unsigned long long)INPUTS * FAN * copies);
    cr_assert_eq(mixed, expected_mix() * (uint64_t)copies);
    check_memory_bound(job);
    weir_job_destroy(job);
}

Test(backpressure, key_by_tiny_channels, .timeout = 120)
{
    run_edge(EDGE_KEY_BY, 2);
}

Test(backpressure, broadcast_tiny_channels, .timeout = 120)
{
    run_edge(EDGE_BROADCAST, 2);
}

Test(backpressure, diamond_union_tiny_channels, .timeout = 120)
{
    run_edge(EDGE_UNION, 2);
}

Test(backpressure, diamond_union_tiny_channels_one_worker, .timeout = 120)
{
    run_edge(EDGE_UNION, 1);
}

/* Many short runs of the tiny-channel key_by pipeline: a producer blocked on
 * one of several channels while credit comes back on the others is where a
 * lost wake-up once parked the whole job (the credit flag was taken by a
 * credit on a channel that was not blocked). One run rarely hits the window;
 * many runs make it likely. */
Test(backpressure, repeated_runs_no_lost_wakeup, .timeout = 240)
{
    enum { RUNS = WEIR_TEST_SANITIZED ? 10 : 40, SMALL = 100, P = 3 };
    static uint64_t in[SMALL];
    for (uint64_t i = 0; i < SMALL; i++)
        in[i] = i;
    weir_key_spec key = {.key_size = 8, .extract = extract_input};
    for (int run = 0; run < RUNS; run++) {
        static edge_totals totals;
        memset(&totals, 0, sizeof totals);
        weir_job *job = tu_job(&(weir_job_config){
            .workers = 2, .batch_capacity = 1, .channel_batches = 1, .parallelism = 2});
        weir_stream *f = weir_stream_flat_map(weir_source_array(job, in, SMALL, 8, NULL),
                                              sizeof(fanned), fan_out, NULL);
        weir_process_spec sink = {.vtable = &edge_vtable, .arg = &totals, .parallelism = P};
        weir_stream_process(weir_stream_key_by(f, &key), &sink);
        tu_run_ok(job);
        uint64_t count = 0;
        for (int s = 0; s < P; s++)
            count += totals.part[s].count;
        cr_assert_eq(count, (uint64_t)SMALL * FAN, "run %d: %llu records", run,
                     (unsigned long long)count);
        weir_job_destroy(job);
    }
}

/* ---- a blocked producer waits for credit ------------------------------------
 *
 * A producer whose output is full must not run again until a consumer hands
 * credit back: neither its buffer-timeout deadline (a partial batch for the
 * fast consumer) nor anything else may requeue it while the slow consumer
 * holds every batch. Each step that finds the output still full and does
 * nothing is counted by the job; with one batch of 4 records a channel, the
 * slow consumer returns at most one credit per 4 records, so a producer that
 * waits makes fewer futile steps than there are records. One that spins
 * makes one a scheduler round, thousands while the slow sink sleeps. */

#include <time.h>

enum { WAIT_RECORDS = WEIR_TEST_SANITIZED ? 120 : 300 };

static int slow_first_sink(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem;
    (void)ts;
    _Atomic uint64_t *count = arg;
    if (subtask == 0)
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    atomic_fetch_add(count, 1);
    return 0;
}

Test(backpressure, blocked_producer_waits_for_credit, .timeout = 120)
{
    static uint64_t in[WAIT_RECORDS];
    static int64_t ts[WAIT_RECORDS];
    for (uint64_t i = 0; i < WAIT_RECORDS; i++) {
        in[i] = i;
        ts[i] = (int64_t)i;
    }
    static _Atomic uint64_t count;
    atomic_store(&count, 0);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .batch_capacity = 4,
                                              .channel_batches = 1, .buffer_timeout_ms = 1});
    weir_stream *s = weir_source_array(job, in, WAIT_RECORDS, 8, ts);
    weir_stream_set_parallelism(weir_sink_callback(weir_stream_rebalance(s), slow_first_sink, &count),
                                2);
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&count), WAIT_RECORDS);
    unsigned long futile = job->futile_steps;
    cr_assert_leq(futile, (unsigned long)WAIT_RECORDS,
                  "the blocked producer ran %lu times without room to send (%d records)", futile,
                  WAIT_RECORDS);
    weir_job_destroy(job);
}

/* ---- a waiting producer is woken for half a pool of credit -----------------
 *
 * A producer blocked on a slow consumer's channel is woken when half the
 * channel's batches came back (channel.h, wake_credits), not at every
 * returned batch: the slow side pays one wake-up (a futex system call when
 * the producer parked) per half pool, and the producer sends those batches
 * in one run instead of spinning or parking once a batch. With 8 batches a
 * channel, 4 a wake-up: at most half as many wake-ups as batches (one a
 * batch before). */

enum { CREDIT_BATCHES = 100, CREDIT_BATCH = 4 };

static int slow_sink(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem;
    (void)ts;
    (void)subtask;
    _Atomic uint64_t *count = arg;
    nanosleep(&(struct timespec){.tv_nsec = 100000}, NULL);
    atomic_fetch_add(count, 1);
    return 0;
}

Test(backpressure, waiting_producer_is_woken_per_half_pool, .timeout = 120)
{
    enum { N = CREDIT_BATCHES * CREDIT_BATCH };
    static uint64_t in[N];
    for (uint64_t i = 0; i < N; i++)
        in[i] = i;
    static _Atomic uint64_t count;
    atomic_store(&count, 0);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .batch_capacity = CREDIT_BATCH,
                                              .channel_batches = 8,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    weir_stream *s = weir_source_array(job, in, N, 8, NULL);
    cr_assert_not_null(weir_sink_callback(weir_stream_rebalance(s), slow_sink, &count));
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&count), N);
    cr_log_info("%lu credit wake-ups for %d batches", job->credit_wakes, CREDIT_BATCHES);
    cr_assert_gt(job->credit_wakes, 0, "the producer never waited for credit");
    cr_assert_leq(job->credit_wakes, (unsigned long)CREDIT_BATCHES / 2,
                  "%lu credit wake-ups for %d batches", job->credit_wakes, CREDIT_BATCHES);
    weir_job_destroy(job);
}
