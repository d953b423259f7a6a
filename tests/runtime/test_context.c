/* test_context.c — runtime/context.c, the runtime side of the operator API:
 * what an emitted record, watermark and status do, how records, watermarks
 * and timers reach an operator, and what a failing callback leaves as the
 * message. Driven through the harness (weir/harness.h), which runs one
 * operator's context by hand, and through a job where the message is the
 * job's.
 *
 * One scriptable operator (`probe`) does what each test asks of it and
 * writes what it saw into a log line, a word per event, so that a test
 * states the whole expected sequence.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "support/weir_testutil.h"
#include "weir/harness.h"

#define LOG 2048

typedef struct probe {
    /* what the operator does */
    int fail_in;              /* 1 open, 2 on_record, 3 on_watermark, 4 on_timer, 5 on_end */
    bool fail_with_message;   /* weir_ctx_fail with its own words first */
    bool emit_in_open;
    bool emit_before_forward; /* on_watermark emits a record before forwarding */
    bool timers;              /* on_record registers timers at ts and ts + 10, and one
                               * processing-time timer at now + 5 */
    bool delete_later;        /* ... and deletes the one at ts + 10 */
    int side_tag;             /* on_record also emits to this side output */
    /* what it saw and what came out */
    char log[LOG];
} probe;

static void say(probe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(probe *p, const char *fmt, ...)
{
    size_t n = strlen(p->log);
    if (n && n + 1 < LOG)
        p->log[n++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->log + n, LOG - n, fmt, ap);
    va_end(ap);
}

static int probe_open(weir_ctx *ctx)
{
    probe *p = weir_ctx_arg(ctx);
    if (p->fail_in == 1)
        return WEIR_EIO;
    if (p->emit_in_open) {
        int64_t v = 0;
        return weir_emit(ctx, &v, 0);
    }
    return 0;
}

static int probe_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    probe *p = weir_ctx_arg(ctx);
    int64_t v;
    memcpy(&v, elem, 8);
    say(p, "rec%lld@%lld", (long long)v, (long long)weir_ctx_timestamp(ctx));
    if (p->fail_in == 2) {
        if (p->fail_with_message)
            return weir_ctx_fail(ctx, WEIR_EINVAL, "value %lld is not welcome", (long long)v);
        return WEIR_EIO;
    }
    if (p->timers) {
        int r = weir_timer_register(ctx, WEIR_EVENT_TIME, 0, ts + 10);
        if (r == 0)
            r = weir_timer_register(ctx, WEIR_EVENT_TIME, 0, ts);
        if (r == 0)
            r = weir_timer_register(ctx, WEIR_PROCESSING_TIME, 0, weir_ctx_now(ctx) + 5);
        if (r == 0 && p->delete_later)
            r = weir_timer_delete(ctx, WEIR_EVENT_TIME, 0, ts + 10);
        if (r < 0)
            return r;
    }
    if (p->side_tag) {
        int r = weir_emit_side(ctx, p->side_tag, &v, ts);
        if (r < 0)
            return r;
    }
    return weir_emit(ctx, &v, ts);
}

static int probe_watermark(weir_ctx *ctx, int64_t wm)
{
    probe *p = weir_ctx_arg(ctx);
    char t[21];
    say(p, "wm%s", weir_ts_format(wm, t));
    if (p->fail_in == 3)
        return WEIR_EIO;
    if (p->emit_before_forward) {
        int64_t v = 1000;
        int r = weir_emit(ctx, &v, wm == WEIR_TS_MAX ? wm : wm + 1);
        if (r < 0)
            return r;
    }
    return weir_emit_watermark(ctx, wm);
}

static int probe_timer(weir_ctx *ctx, const weir_timer *t)
{
    probe *p = weir_ctx_arg(ctx);
    int64_t key;
    memcpy(&key, weir_ctx_key(ctx), 8);
    if (t->domain == WEIR_EVENT_TIME)
        say(p, "et%lld/k%lld@%lld", (long long)t->timestamp, (long long)key,
            (long long)weir_ctx_timestamp(ctx));
    else
        say(p, "pt%lld/k%lld@now%lld", (long long)t->timestamp, (long long)key,
            (long long)weir_ctx_now(ctx));
    if (p->fail_in == 4)
        return WEIR_EIO;
    return 0;
}

static int probe_end(weir_ctx *ctx)
{
    probe *p = weir_ctx_arg(ctx);
    say(p, "end");
    return p->fail_in == 5 ? WEIR_EIO : 0;
}

static void probe_close(weir_ctx *ctx)
{
    say(weir_ctx_arg(ctx), "close");
}

static const weir_operator_vtable probe_vt = {.version = WEIR_OPERATOR_VTABLE_V1,
                                              .open = probe_open,
                                              .on_record = probe_record,
                                              .on_watermark = probe_watermark,
                                              .on_timer = probe_timer,
                                              .on_end = probe_end,
                                              .close = probe_close};

/* What left the operator, in the probe's log too: "out<v>@<ts>",
 * "side<tag>:<v>", "outwm<W>". */
static void out_record(int tag, const void *elem, int64_t ts, void *arg)
{
    int64_t v;
    memcpy(&v, elem, 8);
    char t[21];
    if (tag)
        say(arg, "side%d:%lld", tag, (long long)v);
    else
        say(arg, "out%lld@%s", (long long)v, weir_ts_format(ts, t));
}

static void out_watermark(int64_t wm, void *arg)
{
    char t[21];
    say(arg, "outwm%s", weir_ts_format(wm, t));
}

static void key_of(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

static const weir_key_spec by_value = {.key_size = 8, .extract = key_of};

/* A harness around the probe (keyed by the value when `keyed`); the test
 * fails if it cannot be made, unless `err` takes the failure. */
static weir_harness *make(probe *p, bool keyed, int *err, char *why, size_t whysize)
{
    static const weir_side_output_spec side = {.tag = 3, .elem_size = 8};
    weir_process_spec spec = {.name = "probe",
                              .vtable = &probe_vt,
                              .arg = p,
                              .out_size = 8,
                              .side_outputs = &side,
                              .nside = 1};
    weir_harness_config cfg = {.op = &spec,
                               .in_size = {8},
                               .key = {keyed ? &by_value : NULL},
                               .watermark_interval_ms = WEIR_DISABLED,
                               .output = {.on_record = out_record,
                                          .on_watermark = out_watermark,
                                          .arg = p}};
    weir_harness *h = NULL;
    char mine[512] = "";
    int r = weir_harness_create(&cfg, &h, why ? why : mine, why ? whysize : sizeof mine);
    if (err)
        *err = r;
    else
        cr_assert_eq(r, 0, "weir_harness_create: %s (%s)", weir_strerror(r), mine);
    return h;
}

static void rec(weir_harness *h, int64_t v, int64_t ts)
{
    int r = weir_harness_record(h, 0, 0, &v, ts);
    cr_assert_eq(r, 0, "record %lld: %s (%s)", (long long)v, weir_strerror(r),
                 weir_harness_last_error(h));
}

/* ---- emit ------------------------------------------------------------------ */

/* Records go out in the order emitted, with their timestamps; what
 * on_watermark emits before forwarding leaves before the watermark; a side
 * output's record goes to its tag. */
Test(context, emitted_records_leave_in_order_before_the_watermark_after_them)
{
    probe p = {.emit_before_forward = true, .side_tag = 3};
    weir_harness *h = make(&p, false, NULL, NULL, 0);
    rec(h, 1, 10);
    rec(h, 2, 20);
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 20), 0, "%s", weir_harness_last_error(h));
    cr_assert_eq(weir_harness_end(h), 0, "%s", weir_harness_last_error(h));
    weir_harness_destroy(h);
    cr_assert_str_eq(p.log, "rec1@10 side3:1 out1@10 rec2@20 side3:2 out2@20 wm20 out1000@21 "
                            "outwm20 wmMAX out1000@MAX outwmMAX end close");
}

/* Emitting in open() is refused with WEIR_ESTATE and a message that says
 * why; nothing leaves. */
Test(context, emit_in_open_is_refused)
{
    probe p = {.emit_in_open = true};
    int err = 0;
    char why[512] = "";
    weir_harness *h = make(&p, false, &err, why, sizeof why);
    cr_assert_null(h);
    cr_assert_eq(err, WEIR_ESTATE, "%s", weir_err_name(err));
    cr_assert(strstr(why, "weir_emit: not allowed in open() or close()"), "%s", why);
    cr_assert(strstr(why, "operator 'probe'"), "%s", why);
}

/* ---- delivery and timers --------------------------------------------------- */

/* Event-time timers fire when the watermark reaches them, in time order, with
 * their key current and their time as the timestamp, before on_watermark
 * sees the watermark; the same timer registered twice fires once; a deleted
 * one never; a processing-time timer fires when the clock reaches it. */
Test(context, timers_fire_in_order_before_the_watermark_with_their_key)
{
    probe p = {.timers = true};
    weir_harness *h = make(&p, true, NULL, NULL, 0);
    rec(h, 7, 100);
    rec(h, 8, 50);
    rec(h, 8, 50); /* the same three timers again: still one each */
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 59), 0, "%s", weir_harness_last_error(h));
    cr_assert_eq(weir_harness_advance(h, 5), 0, "%s", weir_harness_last_error(h));
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 110), 0, "%s", weir_harness_last_error(h));
    weir_harness_destroy(h);
    cr_assert_str_eq(p.log,
                     "rec7@100 out7@100 rec8@50 out8@50 rec8@50 out8@50 "
                     "et50/k8@50 wm59 outwm59 "
                     "pt5/k7@now5 pt5/k8@now5 "
                     "et60/k8@60 et100/k7@100 et110/k7@110 wm110 outwm110 close");
}

Test(context, a_deleted_timer_does_not_fire)
{
    probe p = {.timers = true, .delete_later = true};
    weir_harness *h = make(&p, true, NULL, NULL, 0);
    rec(h, 4, 30);
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 100), 0, "%s", weir_harness_last_error(h));
    weir_harness_destroy(h);
    cr_assert_str_eq(p.log, "rec4@30 out4@30 et30/k4@30 wm100 outwm100 close");
}

/* ---- failures name the operator and the callback ---------------------------- */

static void expect_failure(probe *p, int err, const char *callback)
{
    weir_harness *h = make(p, true, NULL, NULL, 0);
    int r = 0;
    if (p->fail_in == 2)
        r = weir_harness_record(h, 0, 0, &(int64_t){5}, 5);
    else if (p->fail_in == 3)
        r = weir_harness_watermark(h, 0, 0, 5);
    else if (p->fail_in == 4) {
        rec(h, 5, 5);
        r = weir_harness_watermark(h, 0, 0, 5);
    } else if (p->fail_in == 5)
        r = weir_harness_end(h);
    cr_assert_eq(r, err, "%s returned %s", callback, weir_err_name(r));
    char want[128];
    snprintf(want, sizeof want, "operator 'probe' subtask 0: %s", callback);
    cr_assert(strstr(weir_harness_last_error(h), want), "'%s' does not say '%s'",
              weir_harness_last_error(h), want);
    /* The harness is failed: nothing more goes in. */
    cr_assert_eq(weir_harness_record(h, 0, 0, &(int64_t){6}, 6), WEIR_ESTATE);
    weir_harness_destroy(h);
}

Test(context, a_failing_callback_is_named_with_its_operator)
{
    expect_failure(&(probe){.fail_in = 2}, WEIR_EIO, "on_record failed: ");
    expect_failure(&(probe){.fail_in = 3}, WEIR_EIO, "on_watermark failed: ");
    expect_failure(&(probe){.fail_in = 4, .timers = true}, WEIR_EIO, "on_timer failed: ");
    expect_failure(&(probe){.fail_in = 5}, WEIR_EIO, "on_end failed: ");
}

/* The operator's own words, given with weir_ctx_fail, are the message: the
 * generic one that follows does not replace them. */
Test(context, the_operators_own_message_wins)
{
    expect_failure(&(probe){.fail_in = 2, .fail_with_message = true}, WEIR_EINVAL,
                   "value 5 is not welcome");
}

Test(context, a_failing_open_is_named)
{
    probe p = {.fail_in = 1};
    int err = 0;
    char why[512] = "";
    weir_harness *h = make(&p, false, &err, why, sizeof why);
    cr_assert_null(h);
    cr_assert_eq(err, WEIR_EIO, "%s", weir_err_name(err));
    cr_assert(strstr(why, "operator 'probe' subtask 0: open failed: "), "%s", why);
}

/* In a job the failure is the job's message, naming the subtask that
 * failed, and the run returns the callback's code. */
Test(context, a_job_names_the_failing_subtask_and_callback, .timeout = 60)
{
    probe p = {.fail_in = 2};
    static int64_t in[4] = {1, 2, 3, 4};
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .parallelism = 2});
    weir_stream *s = weir_source_array(job, in, 4, 8, NULL);
    weir_process_spec spec = {.name = "probe", .vtable = &probe_vt, .arg = &p, .out_size = 8,
                              .parallelism = 1};
    weir_sink_discard(weir_stream_process(weir_stream_rebalance(s), &spec));
    int r = weir_job_run(job);
    cr_assert_eq(r, WEIR_EIO, "%s: %s", weir_err_name(r), weir_job_error(job));
    cr_assert(strstr(weir_job_error(job), "operator 'probe' subtask 0: on_record failed: "), "%s",
              weir_job_error(job));
    weir_job_destroy(job);
}
