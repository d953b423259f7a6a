/* test_handoffs.c — the hand-offs between threads that weir's own atomics
 * order, each exercised many times so that the tsan preset checks them
 * (ThreadSanitizer models the C11 atomics they are made of; there is no
 * standalone fence or inline assembly left for it to miss), and so that a
 * lost wake-up shows up as this test's timeout in every preset:
 *
 *   - a worker parks with nothing to run and is woken by a producer on the
 *     other worker that queued a subtask for it (scheduler.c enqueue/park);
 *   - a consumer parks with no data and is woken by the batch its producer
 *     published (notify_data / run_one's last look);
 *   - a producer blocked on a full channel is woken by the credit its
 *     consumer gave back (notify_credit / want_credit);
 *   - the virtual clock moves only when every worker parked, reading the
 *     earliest deadline each worker published as it parked (advance_virtual);
 *   - the diagnostic collector parks on empty rings and is woken by the
 *     event a worker published (diag.c ring_commit / park);
 *   - two workers on one CPU: the one waiting for work yields the CPU to
 *     the one that will queue it instead of spinning it away
 *     (spin_for_work).
 *
 * The workers' parks are counted (job->parks, scheduler.c park): where the
 * pipeline has nothing to do, its workers must have parked rather than spun
 * through the wait. Counted, never timed.
 *
 * Each run is bounded: a few hundred waits of 1 ms of the system clock, or
 * some thousands of single-record batches (well under a second in a release
 * build, a few seconds under the sanitizers).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "job_state.h"
#include "support/weir_testutil.h"

enum { NAPS = 200, FLOOD = WEIR_TEST_SANITIZED ? 5000 : 20000 };

/* A source of `limit` values 0, 1, 2, ...: after each one it waits `nap` ms
 * of the job's clock (0: no wait). */
typedef struct drip {
    uint64_t limit;
    int64_t nap;
} drip;

typedef struct drip_state {
    uint64_t next, limit;
    int64_t nap;
} drip_state;

static int drip_open(weir_ctx *ctx)
{
    const drip *d = weir_ctx_arg(ctx);
    drip_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->limit = d->limit;
    s->nap = d->nap;
    weir_ctx_set_state(ctx, s);
    return 0;
}

static int drip_next(weir_ctx *ctx)
{
    drip_state *s = weir_ctx_state(ctx);
    if (s->next == s->limit)
        return WEIR_SOURCE_END;
    uint64_t v = s->next++;
    int r = weir_emit(ctx, &v, (int64_t)v);
    if (r < 0)
        return r;
    if (s->nap == 0)
        return WEIR_SOURCE_MORE;
    weir_source_wait_until(ctx, weir_ctx_now(ctx) + s->nap);
    return WEIR_SOURCE_WAIT;
}

static void drip_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable drip_vt = {.version = WEIR_SOURCE_VTABLE_V1,
                                           .open = drip_open,
                                           .next = drip_next,
                                           .close = drip_close};

static weir_stream *add_drip(weir_job *job, drip *d, int parallelism)
{
    weir_source_spec spec = {.name = "drip",
                             .vtable = &drip_vt,
                             .arg = d,
                             .elem_size = sizeof(uint64_t),
                             .parallelism = parallelism};
    weir_stream *s = weir_job_add_source(job, &spec);
    cr_assert_not_null(s, "%s", weir_job_error(job));
    return s;
}

static int plus_one(const void *in, void *out, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, 8);
    v++;
    memcpy(out, &v, 8);
    return 0;
}

/* Per sink subtask, written only by it: the count, the sum and whether the
 * values came in order (one producer per channel). Read after the run. */
typedef struct tally {
    struct {
        uint64_t count, sum, last;
        bool disorder;
        char pad[32];
    } part[2];
    int yield_every;
} tally;

static int tally_sink(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    tally *t = arg;
    uint64_t v;
    memcpy(&v, elem, 8);
    if (t->part[subtask].count > 0 && v <= t->part[subtask].last)
        t->part[subtask].disorder = true;
    t->part[subtask].last = v;
    t->part[subtask].count++;
    t->part[subtask].sum += v;
    if (t->yield_every && t->part[subtask].count % (uint64_t)t->yield_every == 0)
        sched_yield();
    return 0;
}

static void assert_tally(const tally *t, uint64_t count, uint64_t sum)
{
    uint64_t c = 0, s = 0;
    for (int i = 0; i < 2; i++) {
        cr_assert_not(t->part[i].disorder, "sink %d saw values out of order", i);
        c += t->part[i].count;
        s += t->part[i].sum;
    }
    cr_assert_eq(c, count);
    cr_assert_eq(s, sum);
}

/* Every worker of the job parked at least `each` times, and all of them
 * together at least `total`. */
static void assert_parked(const weir_job *job, unsigned long each, unsigned long total)
{
    unsigned long sum = 0;
    for (int i = 0; i < job->nworkers; i++) {
        cr_log_info("worker %d parked %lu times", i, job->workers[i].parks);
        cr_assert_geq(job->workers[i].parks, each, "worker %d parked %lu times, expected %lu", i,
                      job->workers[i].parks, each);
        sum += job->workers[i].parks;
    }
    cr_assert_eq(job->parks, sum, "job->parks %lu is not the workers' sum %lu", job->parks, sum);
    cr_assert_geq(sum, total, "the workers parked %lu times, expected at least %lu", sum, total);
}

/* A record at a time, every millisecond, across two channel hops on two
 * workers: each hop finds its consumer parked (nothing else to run) and
 * wakes it through the other worker's inbox. While the source waits for its
 * next millisecond the pipeline has nothing to do, and its workers park: a
 * worker spins a little first (looks at its inbox for as long as a wake-up
 * costs, a few microseconds, not until the next tick), so a wait can pass
 * without a park only where a batch came
 * during the spin and the deadline had passed by then; half the records is
 * a bound far below what a run shows (about one park a record for each
 * worker) and far above a scheduler that spins through its waits (none). */
Test(handoffs, parked_workers_are_woken_by_each_batch, .timeout = 60)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 2,
                                              .parallelism = 1,
                                              .buffer_timeout_ms = WEIR_FLUSH_AT_ONCE,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    drip d = {.limit = NAPS, .nap = 1};
    weir_stream *s = add_drip(job, &d, 1);
    s = weir_stream_map(weir_stream_rebalance(s), 8, plus_one, NULL);
    tally t = {0};
    cr_assert_not_null(weir_sink_callback(weir_stream_rebalance(s), tally_sink, &t));
    tu_run_ok(job);
    assert_parked(job, 1, NAPS / 2);
    /* Each hop's consumer was woken by its producer's unpark: its worker
     * measured what a wake-up costs, the length of its spins before
     * parking (scheduler.c, spin_budget_ns). */
    int64_t measured = 0;
    for (int i = 0; i < job->nworkers; i++)
        measured += job->workers[i].wake_ns > 0;
    cr_assert_gt(measured, 0, "no worker measured a wake-up");
    weir_job_destroy(job);
    assert_tally(&t, NAPS, (uint64_t)NAPS * (NAPS + 1) / 2);
}

/* One record a batch and one batch a channel: the producer blocks after
 * every record and is woken by the credit its consumer (on the other
 * worker, yielding now and then) gives back. */
Test(handoffs, blocked_producers_are_woken_by_credit, .timeout = 120)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 2,
                                              .parallelism = 1,
                                              .batch_capacity = 1,
                                              .channel_batches = 1,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    drip d = {.limit = FLOOD};
    weir_stream *s = add_drip(job, &d, 1);
    tally t = {.yield_every = 7};
    cr_assert_not_null(weir_sink_callback(weir_stream_rebalance(s), tally_sink, &t));
    tu_run_ok(job);
    weir_job_destroy(job);
    assert_tally(&t, FLOOD, (uint64_t)FLOOD * (FLOOD - 1) / 2);
}

/* The virtual clock with two sources on two workers, each waiting 1 ms of
 * virtual time after every record: time moves only when both workers have
 * parked, to the earliest deadline either published, hundreds of times.
 * Each source waits for times 1 .. NAPS (one record a millisecond never
 * moves the clock by work), so the clock jumped NAPS times, each jump made
 * by the worker whose park left none running: at least NAPS parks. */
Test(handoffs, the_virtual_clock_moves_when_every_worker_parked, .timeout = 60)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 2,
                                              .parallelism = 2,
                                              .clock = WEIR_CLOCK_VIRTUAL,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    drip d = {.limit = NAPS, .nap = 1};
    weir_stream *s = add_drip(job, &d, 2);
    tally t = {0};
    cr_assert_not_null(weir_sink_callback(weir_stream_rebalance(s), tally_sink, &t));
    tu_run_ok(job);
    assert_parked(job, 1, NAPS);
    weir_job_destroy(job);
    /* Each source subtask emits 0..NAPS-1; the rebalance spreads them, so
     * only count and sum are fixed. */
    uint64_t c = t.part[0].count + t.part[1].count, sum = t.part[0].sum + t.part[1].sum;
    cr_assert_eq(c, 2 * (uint64_t)NAPS);
    cr_assert_eq(sum, (uint64_t)NAPS * (NAPS - 1));
}

/* Diagnostics at the verbose level (an event per record) from a source that
 * naps between records: the collector drains, polls, parks, and a worker's
 * next event wakes it, again and again; a small ring also makes a worker
 * wait for room now and then. Nothing may be lost. */
Test(handoffs, the_collector_is_woken_by_the_next_event, .timeout = 60)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job *job = tu_job(&(weir_job_config){
        .workers = 2,
        .parallelism = 1,
        .buffer_timeout_ms = WEIR_FLUSH_AT_ONCE,
        .diag = {.level = WEIR_DIAG_VERBOSE, .memory = mem, .ring_capacity = 8}});
    drip d = {.limit = NAPS, .nap = 1};
    weir_stream *s = add_drip(job, &d, 1);
    tally t = {0};
    cr_assert_not_null(weir_sink_callback(weir_stream_rebalance(s), tally_sink, &t));
    tu_run_ok(job);
    weir_job_destroy(job);
    assert_tally(&t, NAPS, (uint64_t)NAPS * (NAPS - 1) / 2);
    /* A record event for each record an operator took in: the sink's. */
    size_t records = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        if (weir_diag_memory_event(mem, i)->kind == WEIR_DIAG_KIND_RECORD)
            records++;
    }
    cr_assert_eq(records, (size_t)NAPS, "%zu record events for %d records", records, NAPS);
    weir_diag_memory_destroy(mem);
}

/* Two workers pinned to one CPU hand single-record batches to each other
 * (each record is a batch to the consumer and a credit back): whenever one
 * waits, the other is the thread that will queue its work, and it can only
 * run on the CPU the waiting one holds. A worker's spin before parking must
 * give it that CPU: a spin of pauses alone kept it for all of its looks at
 * every hand-off (some 45 us each), so that on a loaded machine two such
 * workers ran many times slower than with no spin at all, and
 * backpressure::repeated_runs_no_lost_wakeup passed its timeout. Counted,
 * not timed: spins that looked in vain to the end with the CPU to
 * themselves; before, almost every hand-off that parked had one. */
Test(handoffs, workers_sharing_a_cpu_yield_it_while_they_wait, .timeout = 120)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    int cpu = sched_getcpu();
    cr_assert_geq(cpu, 0, "sched_getcpu: %s", strerror(errno));
    CPU_SET(cpu, &one);
    /* The workers start on this thread and keep its CPU set. */
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0, "sched_setaffinity: %s",
                 strerror(errno));
    weir_job *job = tu_job(&(weir_job_config){.workers = 2,
                                              .parallelism = 1,
                                              .batch_capacity = 1,
                                              .channel_batches = 1,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    drip d = {.limit = FLOOD};
    weir_stream *s = add_drip(job, &d, 1);
    tally t = {0};
    cr_assert_not_null(weir_sink_callback(weir_stream_rebalance(s), tally_sink, &t));
    tu_run_ok(job);
    unsigned long to_end = job->spins_to_end;
    weir_job_destroy(job);
    assert_tally(&t, FLOOD, (uint64_t)FLOOD * (FLOOD - 1) / 2);
    cr_log_info("%d records, %lu spins to the end", FLOOD, to_end);
    cr_assert_lt(to_end, (unsigned long)FLOOD / 100,
                 "%lu spins held the one CPU to their end for %d records", to_end, FLOOD);
}
