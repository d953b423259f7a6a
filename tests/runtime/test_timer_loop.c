/* test_timer_loop.c — a timer that its own firing registers again, at the
 * end of input, fails the job instead of looping forever.
 *
 * At watermark MAX every event-time timer is due, so an on_timer that
 * re-registers its timer unconditionally (at its own timestamp, or one
 * later) would fire again and again and the job would never end. The
 * runtime counts, per timer, how many firings in a row of the same key and
 * namespace registered it at MAX; at 2^20 (context.c, TIMER_CHAIN_AT_MAX)
 * the job fails with a message that says so (weir/keyed.h). A chain that
 * stops by itself (here 1000 long, and a window's cleanup timer after its
 * firing) is left alone. Bounded: a failing run fires about a million timers
 * per key before it stops (well under a second; under the sanitizers a few).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "support/weir_testutil.h"
#include "weir/keyed.h"

enum { KEYS = 3 };

typedef struct loop_kind {
    int64_t step;  /* the next timer: the firing one's timestamp + step */
    int64_t until; /* stop re-registering past this many firings; 0: never */
} loop_kind;

static void u64_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

static int loop_record(weir_ctx *ctx, const void *elem, int64_t ts)
{
    (void)elem;
    return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, ts);
}

static int loop_timer(weir_ctx *ctx, const weir_timer *t)
{
    const loop_kind *k = weir_ctx_arg(ctx);
    uint64_t v = (uint64_t)t->timestamp;
    int r = weir_keyed_emit(ctx, &v);
    if (r < 0)
        return r;
    if (k->until && t->timestamp >= k->until)
        return 0;
    return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, t->timestamp + k->step);
}

static const weir_keyed_process_vtable loop_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = loop_record,
    .on_timer = loop_timer,
};

static weir_job *loop_job(loop_kind *kind, weir_collect **out)
{
    static uint64_t keys[KEYS] = {1, 2, 3};
    static const int64_t ts[KEYS] = {0, 0, 0};
    weir_job *job = tu_job(&(weir_job_config){.workers = 1,
                                              .parallelism = 1,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    weir_stream *s = weir_source_array(job, keys, KEYS, 8, ts);
    weir_key_spec key = {.key_size = 8, .extract = u64_key};
    weir_stream *p = weir_stream_keyed_process(
        weir_stream_key_by(s, &key),
        &(weir_keyed_process_spec){.vtable = &loop_vt, .arg = kind, .out_size = 8});
    cr_assert_not_null(weir_sink_collect(p, out));
    return job;
}

static void expect_loop_refused(int64_t step)
{
    loop_kind kind = {.step = step};
    weir_collect *out = NULL;
    weir_job *job = loop_job(&kind, &out);
    int r = weir_job_run(job);
    cr_assert_eq(r, WEIR_ESTATE, "weir_job_run returned %d (%s): %s", r, weir_err_name(r),
                 weir_job_error(job));
    tu_assert_contains(weir_job_error(job), "keyed_process", "on_timer registered",
                       "end of input", "MAX", "never stop");
    weir_job_destroy(job);
}

Test(timer_loop, reregistered_at_its_own_time_fails, .timeout = 60)
{
    expect_loop_refused(0);
}

Test(timer_loop, reregistered_one_later_fails, .timeout = 60)
{
    expect_loop_refused(1);
}

Test(timer_loop, a_chain_that_stops_runs_to_the_end, .timeout = 60)
{
    loop_kind kind = {.step = 1, .until = 999};
    weir_collect *out = NULL;
    weir_job *job = loop_job(&kind, &out);
    tu_run_ok(job);
    /* Timers 0..999 for each key: all of them fire at MAX. */
    cr_assert_eq(weir_collect_count(out), (size_t)KEYS * 1000);
    weir_job_destroy(job);
}
