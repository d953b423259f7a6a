/* test_subtask.c — runtime/subtask.c, one step of a subtask. The tests plan
 * a job (weir__plan_build) and step its subtasks by hand on the test
 * thread, as a worker would, with no scheduler (a subtask with no worker
 * tells nobody when a channel moves): the operators open downstream first;
 * a source runs once a step and a consumer takes a bounded number of
 * batches; a full output blocks the subtask, which then yields without
 * reading until credit comes back; and the finish sequence: MAX, on_end,
 * END once the output drained, close last.
 *
 * Channels of one record a batch make every batch count: batches are what
 * the step's bound and the credits are counted in.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "job_state.h"
#include "subtask.h"
#include "support/weir_testutil.h"

#define LOG 4096

/* What the operators of a test did, in order, a word each. */
typedef struct trail {
    char text[LOG];
    int next_calls;
    int records;
} trail;

static void say(trail *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(trail *t, const char *fmt, ...)
{
    size_t n = strlen(t->text);
    if (n && n + 1 < LOG)
        t->text[n++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->text + n, LOG - n, fmt, ap);
    va_end(ap);
}

/* A source of `limit` records, `per_next` of them per next() call; it
 * returns END from the call that emits the last one. */
typedef struct counter {
    trail *trail;
    int limit, per_next;
    int emitted;
} counter;

static int counter_open(weir_ctx *ctx)
{
    counter *c = weir_ctx_arg(ctx);
    say(c->trail, "open:%s", weir_ctx_name(ctx));
    return 0;
}

static int counter_next(weir_ctx *ctx)
{
    counter *c = weir_ctx_arg(ctx);
    c->trail->next_calls++;
    for (int i = 0; i < c->per_next && c->emitted < c->limit; i++) {
        int64_t v = c->emitted++;
        int r = weir_emit(ctx, &v, v);
        if (r < 0)
            return r;
    }
    return c->emitted == c->limit ? WEIR_SOURCE_END : WEIR_SOURCE_MORE;
}

static void counter_close(weir_ctx *ctx)
{
    counter *c = weir_ctx_arg(ctx);
    say(c->trail, "close:%s", weir_ctx_name(ctx));
}

static const weir_source_vtable counter_vt = {.version = WEIR_SOURCE_VTABLE_V1,
                                              .open = counter_open,
                                              .next = counter_next,
                                              .close = counter_close};

/* An operator that logs its life and passes records on (a sink when its
 * out_size is 0). */
static int op_open(weir_ctx *ctx)
{
    say(weir_ctx_arg(ctx), "open:%s", weir_ctx_name(ctx));
    return 0;
}

static int op_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    trail *t = weir_ctx_arg(ctx);
    t->records++;
    if (weir_ctx_out_size(ctx) == 0)
        return 0;
    return weir_emit(ctx, elem, ts);
}

static int op_watermark(weir_ctx *ctx, int64_t wm)
{
    char w[21];
    say(weir_ctx_arg(ctx), "wm%s:%s", weir_ts_format(wm, w), weir_ctx_name(ctx));
    return weir_ctx_out_size(ctx) ? weir_emit_watermark(ctx, wm) : 0;
}

static int op_end(weir_ctx *ctx)
{
    say(weir_ctx_arg(ctx), "end:%s", weir_ctx_name(ctx));
    return 0;
}

static void op_close(weir_ctx *ctx)
{
    say(weir_ctx_arg(ctx), "close:%s", weir_ctx_name(ctx));
}

static const weir_operator_vtable op_vt = {.version = WEIR_OPERATOR_VTABLE_V1,
                                           .open = op_open,
                                           .on_record = op_record,
                                           .on_watermark = op_watermark,
                                           .on_end = op_end,
                                           .close = op_close};

static weir_stream *add_op(weir_stream *in, trail *t, const char *name, size_t out_size)
{
    weir_process_spec spec = {.name = name, .vtable = &op_vt, .arg = t, .out_size = out_size};
    weir_stream *s = weir_stream_process(in, &spec);
    cr_assert_not_null(s, "%s", weir_job_error(weir_stream_job(in)));
    return s;
}

/* A job of one-record batches, `pool` of them a channel, planned and on a
 * virtual clock at 0: its subtasks are stepped by hand. */
static weir_job *job_of(int pool, bool chaining)
{
    return tu_job(&(weir_job_config){.workers = 1,
                                     .parallelism = 1,
                                     .batch_capacity = 1,
                                     .channel_batches = pool,
                                     .disable_chaining = !chaining,
                                     .clock = WEIR_CLOCK_VIRTUAL,
                                     .diag = {.level = WEIR_DIAG_OFF}});
}

static void plan(weir_job *job)
{
    int r = weir__plan_build(job, &job->plan);
    cr_assert_eq(r, 0, "planning: %s", weir_job_error(job));
    weir__clock_init(&job->clock, true);
}

/* The subtask whose head is the node called name. */
static weir__subtask *sub_of(weir_job *job, const char *name)
{
    for (int s = 0; s < job->plan->nsubs; s++) {
        weir__subtask *sub = job->plan->subs[s];
        if (strcmp(sub->ctxs[0]->node->name, name) == 0)
            return sub;
    }
    cr_assert_fail("no subtask headed by '%s'", name);
    return NULL;
}

static int step(weir__subtask *sub)
{
    int r = weir__subtask_step(sub, 0);
    cr_assert_geq(r, 0, "step of '%s': %s: %s", sub->ctxs[0]->node->name, weir_err_name(r),
                  weir_job_error(sub->job));
    return r;
}

static void done(weir_job *job)
{
    for (int s = 0; s < job->plan->nsubs; s++)
        weir__subtask_close(job->plan->subs[s]);
    weir_job_destroy(job);
}

static weir_stream *add_counter(weir_job *job, counter *c)
{
    weir_source_spec spec = {
        .name = "src", .vtable = &counter_vt, .arg = c, .elem_size = 8, .parallelism = 1};
    weir_stream *s = weir_job_add_source(job, &spec);
    cr_assert_not_null(s, "%s", weir_job_error(job));
    return s;
}

/* ---- opening ----------------------------------------------------------------- */

/* The first step opens the chain downstream first (Flink's order): a chained
 * consumer is ready before its producer can emit to it. */
Test(subtask, the_first_step_opens_the_chain_downstream_first)
{
    trail t = {0};
    counter c = {.trail = &t, .limit = 1, .per_next = 1};
    weir_job *job = job_of(4, true);
    add_op(add_op(add_counter(job, &c), &t, "a", 8), &t, "b", 0);
    plan(job);
    weir__subtask *sub = sub_of(job, "src");
    cr_assert_eq(sub->nctx, 3, "source, a and b chained");
    cr_assert(weir__subtask_ready(sub, 0), "a new subtask is ready");
    step(sub);
    cr_assert_eq(strncmp(t.text, "open:b open:a open:src", 22), 0, "%s", t.text);
    done(job);
}

/* ---- a bounded step ---------------------------------------------------------- */

/* A source runs once a step; a consumer takes at most STEP_BATCHES (8,
 * subtask.c) batches a step, however many wait, and the rest in the steps
 * after. */
Test(subtask, a_step_takes_a_bounded_amount)
{
    enum { POOL = 64 };
    trail t = {0};
    counter c = {.trail = &t, .limit = 1000, .per_next = 1};
    weir_job *job = job_of(POOL, false);
    add_op(weir_stream_rebalance(add_counter(job, &c)), &t, "sink", 0);
    plan(job);
    weir__subtask *src = sub_of(job, "src"), *sink = sub_of(job, "sink");
    step(sink); /* opens it; nothing to read yet */
    cr_assert_not(weir__subtask_ready(sink, 0), "a consumer with no batch is not ready");
    for (int i = 0; i < POOL; i++)
        step(src);
    cr_assert_eq(t.next_calls, POOL, "one next() a step: %d calls in %d steps", t.next_calls,
                 POOL);
    cr_assert_not(src->out_blocked, "64 batches fill a pool of 64 without blocking");
    cr_assert(weir__subtask_ready(sink, 0));
    for (int k = 1; k <= POOL / 8; k++) {
        step(sink);
        cr_assert_eq(t.records, 8 * k, "after %d steps the consumer took %d records", k,
                     t.records);
    }
    cr_assert_not(weir__subtask_ready(sink, 0));
    done(job);
}

/* ---- blocked output ---------------------------------------------------------- */

/* A source that emits 3 records into a channel of one batch: the first
 * goes, two wait as pending output and the subtask is blocked. Its steps
 * then send what credit allows and call next() again only once nothing is
 * pending; a step that finds no credit does nothing but count itself
 * (futile_steps). */
Test(subtask, a_blocked_output_yields_until_credit_comes_back)
{
    trail t = {0};
    counter c = {.trail = &t, .limit = 9, .per_next = 3};
    weir_job *job = job_of(1, false);
    add_op(weir_stream_rebalance(add_counter(job, &c)), &t, "sink", 0);
    plan(job);
    weir__subtask *src = sub_of(job, "src"), *sink = sub_of(job, "sink");
    weir__channel *ch = src->outs[0];
    step(sink);
    step(src);
    cr_assert_eq(t.next_calls, 1);
    cr_assert(src->out_blocked);
    cr_assert(weir__channel_blocked(ch));
    cr_assert_not(weir__subtask_ready(src, 0), "a blocked subtask is not ready");
    for (int i = 0; i < 3; i++)
        cr_assert_eq(step(src), 0);
    cr_assert_eq(t.next_calls, 1, "next() ran while the output was full");
    cr_assert_eq(src->futile_steps, 3);
    /* One credit a record: the source sends a pending batch per credit and
     * stays blocked until both left. */
    step(sink);
    cr_assert_eq(t.records, 1);
    step(src);
    cr_assert(src->out_blocked, "one of two pending batches left");
    cr_assert_eq(t.next_calls, 1);
    step(sink);
    step(src);
    cr_assert_eq(t.records, 2);
    cr_assert_eq(t.next_calls, 2, "the output drained, the source read on in the same step");
    cr_assert(src->out_blocked, "its next three records met the full channel again");
    done(job);
}

/* ---- the finish sequence ----------------------------------------------------- */

/* The source ends in the call that emits its last records: MAX and END go
 * behind them, the subtask drains (its step returns 0 while batches wait)
 * and finishes, closing its operator, only once END left. The consumer
 * takes every record, then MAX, then runs on_end, and finishes and closes
 * at the step that read END. */
Test(subtask, end_leaves_after_the_drain_then_close)
{
    trail t = {0};
    counter c = {.trail = &t, .limit = 3, .per_next = 3};
    weir_job *job = job_of(1, false);
    add_op(weir_stream_rebalance(add_counter(job, &c)), &t, "sink", 0);
    plan(job);
    weir__subtask *src = sub_of(job, "src"), *sink = sub_of(job, "sink");
    step(sink);
    cr_assert_eq(step(src), 0);
    cr_assert_eq(src->phase, WEIR__SUB_DRAINING, "END was sent (queued behind the records)");
    cr_assert(src->out_blocked);
    cr_assert_null(strstr(t.text, "close:src"), "closed before its output left: %s", t.text);
    /* Three records, MAX and END: five batches through a pool of one. */
    int src_done = 0, sink_done = 0;
    for (int round = 0; round < 10 && !(src_done && sink_done); round++) {
        if (!sink_done)
            sink_done = step(sink);
        if (!src_done) {
            src_done = step(src);
            if (!src_done)
                cr_assert_null(strstr(t.text, "close:src"), "%s", t.text);
        }
    }
    cr_assert(src_done && sink_done, "phases: source %d, sink %d", src->phase, sink->phase);
    cr_assert_eq(src->phase, WEIR__SUB_FINISHED);
    cr_assert_eq(sink->phase, WEIR__SUB_FINISHED);
    cr_assert_eq(t.records, 3);
    cr_assert_not(weir__subtask_ready(src, 0), "a finished subtask is never ready");
    cr_assert_not(weir__subtask_ready(sink, 0));
    /* With a pool of one, the source's END could only go once the sink had
     * taken the records and MAX before it: the sink has its MAX before the
     * source closes; its on_end follows the END it reads, its close comes
     * last. ("open:sink open:src wmMAX:sink close:src end:sink close:sink") */
    const char *want[] = {"open:sink", "open:src", "wmMAX:sink", "end:sink", "close:sink"};
    const char *at = t.text;
    for (int i = 0; i < 5; i++) {
        const char *w = strstr(at, want[i]);
        cr_assert_not_null(w, "'%s' missing or out of order in: %s", want[i], t.text);
        at = w + strlen(want[i]);
    }
    cr_assert(strstr(t.text, "close:src") > strstr(t.text, "wmMAX:sink"), "%s", t.text);
    done(job);
}
