/* test_scheduler.c — runtime/scheduler.c, the worker threads: subtasks
 * spread round-robin over the workers and each run only by its own worker;
 * an idle job parks every worker, and cancelling wakes them; the virtual
 * clock moves with a busy source's work, 1 ms a WEIR__VIRTUAL_RECORDS_PER_MS
 * records, and jumps to the earliest deadline when every worker has
 * parked, never otherwise; a source's wait for its descriptor ends with the
 * data or the job's cancellation. (The hand-offs between threads, each
 * exercised many times, are test_handoffs.c's.)
 *
 * No timing is asserted: a lost wake-up shows up as a test's timeout.
 */
#include <criterion/criterion.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "job_state.h"
#include "scheduler.h"
#include "support/weir_testutil.h"

/* ---- placement ------------------------------------------------------------- */

/* Per (operator, subtask): the threads its callbacks ran on. Written by the
 * subtask's own thread only, read after the run. */
enum { MAX_OPS = 4, MAX_SUBS = 4 };
typedef struct where {
    pthread_t thread[MAX_OPS][MAX_SUBS];
    bool seen[MAX_OPS][MAX_SUBS];
    bool moved[MAX_OPS][MAX_SUBS];
} where;

typedef struct noting {
    where *w;
    int op;
} noting;

static void note(noting *n, int subtask)
{
    where *w = n->w;
    pthread_t me = pthread_self();
    if (w->seen[n->op][subtask] && !pthread_equal(w->thread[n->op][subtask], me))
        w->moved[n->op][subtask] = true;
    w->thread[n->op][subtask] = me;
    w->seen[n->op][subtask] = true;
}

static int noting_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    note(weir_ctx_arg(ctx), weir_ctx_subtask(ctx));
    return weir_ctx_out_size(ctx) ? weir_emit(ctx, elem, ts) : 0;
}

static const weir_operator_vtable noting_vt = {.version = WEIR_OPERATOR_VTABLE_V1,
                                               .on_record = noting_record};

/* source (2) -> op 0 (3) -> op 1 (2), chaining off: 7 subtasks on 3
 * workers. Each subtask goes to worker (its index in the plan) % 3, task by
 * task, so the subtasks of one task sit on different workers; and each is
 * run by its worker's thread alone. */
Test(scheduler, subtasks_spread_round_robin_and_stay_on_their_worker, .timeout = 60)
{
    static int64_t in[600];
    for (int i = 0; i < 600; i++)
        in[i] = i;
    where w = {0};
    noting n0 = {&w, 0}, n1 = {&w, 1};
    weir_job *job = tu_job(&(weir_job_config){
        .workers = 3, .disable_chaining = true, .diag = {.level = WEIR_DIAG_OFF}});
    weir_stream *st = weir_stream_set_parallelism(weir_source_array(job, in, 600, 8, NULL), 2);
    weir_process_spec a = {.name = "op0", .vtable = &noting_vt, .arg = &n0, .out_size = 8,
                           .parallelism = 3};
    weir_process_spec b = {.name = "op1", .vtable = &noting_vt, .arg = &n1, .parallelism = 2};
    st = weir_stream_process(weir_stream_rebalance(st), &a);
    cr_assert_not_null(weir_stream_process(weir_stream_rebalance(st), &b), "%s",
                       weir_job_error(job));
    tu_run_ok(job);
    const weir__plan *plan = job->plan;
    cr_assert_eq(plan->nsubs, 7);
    cr_assert_eq(job->nworkers, 3);
    int owned[3] = {0};
    for (int s = 0; s < plan->nsubs; s++) {
        const weir__subtask *sub = plan->subs[s];
        cr_assert_eq(sub->worker, &job->workers[s % 3], "subtask %d of the plan is on worker %d",
                     s, sub->worker->id);
        owned[s % 3]++;
    }
    for (int i = 0; i < 3; i++)
        cr_assert_eq(job->workers[i].nowned, owned[i]);
    for (int t = 0; t < plan->ntasks; t++) {
        const weir__task *task = &plan->tasks[t];
        for (int i = 0; i < task->parallelism; i++) {
            for (int j = i + 1; j < task->parallelism; j++)
                cr_assert_neq(task->subs[i]->worker, task->subs[j]->worker,
                              "task %d has subtasks %d and %d on one worker", t, i, j);
        }
    }
    /* Each operator subtask ran on its worker's thread, and only there. */
    const char *names[] = {"op0", "op1"};
    const int par[] = {3, 2};
    for (int op = 0; op < 2; op++) {
        for (int i = 0; i < par[op]; i++) {
            const weir__subtask *sub = NULL;
            for (int s = 0; s < plan->nsubs; s++) {
                if (strcmp(plan->subs[s]->ctxs[0]->node->name, names[op]) == 0 &&
                    plan->subs[s]->index == i)
                    sub = plan->subs[s];
            }
            cr_assert_not_null(sub);
            cr_assert(w.seen[op][i], "%s[%d] took no record", names[op], i);
            cr_assert_not(w.moved[op][i], "%s[%d] ran on two threads", names[op], i);
            cr_assert(pthread_equal(w.thread[op][i], sub->worker->thread),
                      "%s[%d] ran on another thread than its worker's", names[op], i);
        }
    }
    weir_job_destroy(job);
}

/* Never more workers than subtasks: the rest would have nothing to own. */
Test(scheduler, no_more_workers_than_subtasks, .timeout = 60)
{
    static int64_t in[4] = {1, 2, 3, 4};
    weir_job *job = tu_job(&(weir_job_config){.workers = 8, .parallelism = 1});
    weir_sink_discard(weir_source_array(job, in, 4, 8, NULL));
    tu_run_ok(job);
    cr_assert_eq(job->plan->nsubs, 1);
    cr_assert_eq(job->nworkers, 1);
    weir_job_destroy(job);
}

/* ---- parking and cancelling -------------------------------------------------- */

/* A source that emits one record and then waits an hour of the job's clock
 * before each next one. */
static int sleeper_next(weir_ctx *ctx)
{
    int *emitted = weir_ctx_state(ctx);
    if (*emitted == 0) {
        int64_t v = 1;
        int r = weir_emit(ctx, &v, 1);
        if (r < 0)
            return r;
        *emitted = 1;
    }
    weir_source_wait_until(ctx, weir_ctx_now(ctx) + 3600 * 1000);
    return WEIR_SOURCE_WAIT;
}

static int sleeper_open(weir_ctx *ctx)
{
    int *emitted = calloc(1, sizeof *emitted);
    if (!emitted)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, emitted);
    return 0;
}

static void sleeper_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable sleeper_vt = {.version = WEIR_SOURCE_VTABLE_V1,
                                              .open = sleeper_open,
                                              .next = sleeper_next,
                                              .close = sleeper_close};

/* With nothing to do for an hour, every worker parks (the sink's worker
 * for good, the source's until its deadline); weir_job_cancel, from
 * another thread, wakes them, and the run ends WEIR_ECANCELED at once. A
 * cancel that did not wake parked workers would leave this test to its
 * timeout. */
static int got_one(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem;
    (void)ts;
    (void)subtask;
    atomic_store((_Atomic int *)arg, 1);
    return 0;
}

Test(scheduler, an_idle_job_parks_its_workers_and_cancel_wakes_them, .timeout = 60)
{
    /* Batches leave at once: no buffer timeout is left to wake a worker. */
    weir_job *job = tu_job(&(weir_job_config){.workers = 2,
                                              .parallelism = 1,
                                              .buffer_timeout_ms = WEIR_FLUSH_AT_ONCE,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    weir_source_spec spec = {.name = "sleeper", .vtable = &sleeper_vt, .elem_size = 8};
    weir_stream *s = weir_job_add_source(job, &spec);
    static _Atomic int got;
    atomic_store(&got, 0);
    cr_assert_not_null(weir_sink_callback(weir_stream_rebalance(s), got_one, (void *)&got), "%s",
                       weir_job_error(job));
    tu_runner rn;
    tu_runner_start(&rn, job);
    /* The workers are published before any starts (weir__sched_run); once
     * the sink has its record, nothing is left to do for an hour, and a
     * worker seen parked after that is in its last park. */
    while ((atomic_load(&job->published) == 0 || !atomic_load(&got)) && !atomic_load(&rn.done))
        sched_yield();
    cr_assert_not(atomic_load(&rn.done), "the run ended by itself: %s", weir_job_error(job));
    int n = atomic_load(&job->published);
    cr_assert_eq(n, 2);
    for (int i = 0; i < n; i++) {
        while (atomic_load(&job->workers[i].parked) == 0 && !atomic_load(&rn.done))
            sched_yield();
    }
    cr_assert_not(atomic_load(&rn.done), "the run ended by itself: %s", weir_job_error(job));
    cr_assert_eq(weir_job_cancel(job), 0);
    pthread_join(rn.thread, NULL);
    cr_assert_eq(rn.result, WEIR_ECANCELED, "%s: %s", weir_err_name(rn.result),
                 weir_job_error(job));
    cr_assert(strstr(weir_job_error(job), "cancelled"), "%s", weir_job_error(job));
    cr_assert_geq(job->parks, 2, "the workers parked %lu times", job->parks);
    weir_job_destroy(job);
}

/* ---- a draining subtask ------------------------------------------------------ */

/* A source of `limit` records, one a next() (so that its batch is still
 * partly filled, its buffer timeout running, when it ends). */
static int one_each_next(weir_ctx *ctx)
{
    int *n = weir_ctx_arg(ctx);
    if (*n == 0)
        return WEIR_SOURCE_END;
    int64_t v = (*n)--;
    int r = weir_emit(ctx, &v, v);
    return r < 0 ? r : WEIR_SOURCE_MORE;
}

/* Its position, for the checkpoints (the test never restores). */
static int one_each_snapshot(weir_ctx *ctx, weir_snapshot_writer *out)
{
    return weir_snapshot_write(out, weir_ctx_arg(ctx), sizeof(int));
}

static int one_each_restore(weir_ctx *ctx, weir_snapshot_reader *in)
{
    const void *data;
    size_t len;
    int r = weir_snapshot_next(in, &data, &len);
    if (r <= 0 || len != sizeof(int))
        return r < 0 ? r : WEIR_EINVAL;
    memcpy(weir_ctx_arg(ctx), data, sizeof(int));
    return 0;
}

static const weir_source_vtable one_each_vt = {.version = WEIR_SOURCE_VTABLE_V2,
                                               .next = one_each_next,
                                               .snapshot = one_each_snapshot,
                                               .restore = one_each_restore};

/* Takes its time over the first record: the job's final checkpoint waits
 * for it. */
static int slow_first(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem;
    (void)ts;
    (void)subtask;
    if (atomic_fetch_add((_Atomic int *)arg, 1) == 0)
        nanosleep(&(struct timespec){.tv_nsec = 200 * 1000 * 1000}, NULL);
    return 0;
}

/* A source that has sent END waits, draining, for the job's final
 * checkpoint, which waits for a sink still busy with its input: the
 * source has nothing to do then, and its worker parks. Its END flushed the
 * partial batch whose buffer timeout (1 ms) was running: that flush's
 * deadline, kept, counted as due at every look, and the worker ran the
 * draining source again and again (thousands of steps in the sink's
 * 200 ms; a core's worth of CPU in a Nexmark query's final checkpoint). */
Test(scheduler, a_draining_subtask_is_not_run_until_woken, .timeout = 60)
{
    char dir[] = "/tmp/weir-test-draining-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    enum { RECORDS = 5 };
    static int left;
    static _Atomic int got;
    left = RECORDS;
    atomic_store(&got, 0);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2,
                                              .parallelism = 1,
                                              .buffer_timeout_ms = 1,
                                              .checkpoint = {.dir = dir},
                                              .diag = {.level = WEIR_DIAG_OFF}});
    weir_source_spec spec = {.name = "one-each", .vtable = &one_each_vt, .arg = &left,
                             .elem_size = 8};
    weir_stream *s = weir_job_add_source(job, &spec);
    cr_assert_not_null(weir_sink_callback(weir_stream_rebalance(s), slow_first, (void *)&got),
                       "%s", weir_job_error(job));
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&got), RECORDS);
    const weir__subtask *src = NULL;
    for (int i = 0; i < job->plan->nsubs; i++)
        if (job->plan->subs[i]->ctxs[0]->is_source)
            src = job->plan->subs[i];
    cr_assert_not_null(src);
    /* A step a record, the END, and a few wake-ups (credit, the final
     * checkpoint's completion). */
    cr_assert_leq(src->steps, 4 * RECORDS, "the source ran %lu steps for %d records",
                  src->steps, RECORDS);
    weir_job_destroy(job);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ---- the virtual clock --------------------------------------------------------- */

/* A source that notes the job's time at each next() and emits one record:
 * a busy one (no wait), or one that waits `nap` ms after each record. */
typedef struct clocked {
    int limit;
    int64_t nap;
    int64_t seen[2048];
    int calls;
} clocked;

static int clocked_next(weir_ctx *ctx)
{
    clocked *c = weir_ctx_arg(ctx);
    c->seen[c->calls] = weir_ctx_now(ctx);
    if (c->calls == c->limit)
        return WEIR_SOURCE_END;
    int64_t v = c->calls++;
    int r = weir_emit(ctx, &v, v);
    if (r < 0)
        return r;
    if (c->nap == 0)
        return WEIR_SOURCE_MORE;
    weir_source_wait_until(ctx, weir_ctx_now(ctx) + c->nap);
    return WEIR_SOURCE_WAIT;
}

static const weir_source_vtable clocked_vt = {.version = WEIR_SOURCE_VTABLE_V1,
                                              .next = clocked_next};

static weir_job *clocked_job(clocked *c)
{
    /* One worker: it never parks while the source has work (a sink that
     * falls behind runs on the same worker), so nothing but the work can
     * move the clock. Batches flushed at once: no buffer-timeout deadline. */
    weir_job *job = tu_job(&(weir_job_config){.workers = 1,
                                              .parallelism = 1,
                                              .clock = WEIR_CLOCK_VIRTUAL,
                                              .buffer_timeout_ms = WEIR_FLUSH_AT_ONCE,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    weir_source_spec spec = {.name = "clocked", .vtable = &clocked_vt, .arg = c, .elem_size = 8};
    weir_stream *s = weir_job_add_source(job, &spec);
    cr_assert_not_null(weir_sink_discard(weir_stream_rebalance(s)), "%s", weir_job_error(job));
    return job;
}

/* A busy source moves the clock 1 ms per WEIR__VIRTUAL_RECORDS_PER_MS
 * records it emitted, no more and no less: at its k-th next() the time is
 * k / 100 ms. */
Test(scheduler, the_virtual_clock_moves_with_a_busy_sources_work, .timeout = 60)
{
    static clocked c;
    memset(&c, 0, sizeof c);
    c.limit = 2000;
    weir_job *job = clocked_job(&c);
    tu_run_ok(job);
    cr_assert_eq(c.calls, 2000);
    for (int k = 0; k <= 2000; k++)
        cr_assert_eq(c.seen[k], k / WEIR__VIRTUAL_RECORDS_PER_MS, "next() %d saw time %lld", k,
                     (long long)c.seen[k]);
    weir_job_destroy(job);
}

/* A source that waits 250 ms after each record: its few records never
 * move the clock, and each wait ends exactly at its deadline, the time the
 * clock jumps to once every worker has parked. */
Test(scheduler, the_virtual_clock_jumps_to_the_deadline_when_all_park, .timeout = 60)
{
    static clocked c;
    memset(&c, 0, sizeof c);
    c.limit = 40;
    c.nap = 250;
    weir_job *job = clocked_job(&c);
    tu_run_ok(job);
    cr_assert_eq(c.calls, 40);
    for (int k = 0; k <= 40; k++)
        cr_assert_eq(c.seen[k], 250 * (int64_t)k, "next() %d saw time %lld", k,
                     (long long)c.seen[k]);
    cr_assert_geq(job->parks, 40, "40 jumps, each made by a parked worker: %lu parks", job->parks);
    weir_job_destroy(job);
}

/* ---- waiting for a descriptor ----------------------------------------------------- */

/* weir__sched_wait_fd (weir_source_wait_fd's work): 0 while the descriptor
 * has nothing, 1 once it has; and a cancelled job ends the wait at once,
 * even one with no time limit. */
Test(scheduler, waiting_for_a_descriptor_ends_with_data_or_cancel, .timeout = 60)
{
    int p[2];
    cr_assert_eq(pipe(p), 0);
    weir_job *job = tu_job(NULL);
    cr_assert_eq(weir__sched_wait_fd(job, p[0], POLLIN, 0), 0);
    cr_assert_eq(write(p[1], "x", 1), 1);
    cr_assert_eq(weir__sched_wait_fd(job, p[0], POLLIN, -1), 1);
    char b;
    cr_assert_eq(read(p[0], &b, 1), 1);
    cr_assert_eq(weir_job_cancel(job), 0);
    cr_assert_eq(weir__sched_wait_fd(job, p[0], POLLIN, -1), 0, "a cancelled job's wait ends");
    weir_job_destroy(job);
    close(p[0]);
    close(p[1]);
}
