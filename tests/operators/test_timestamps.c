/* test_timestamps.c — the timestamps operator (operators/timestamps.c)
 * through the harness, single-threaded on the virtual clock.
 *
 * SEMANTICS.md 1 is the reference: each record is forwarded with its
 * extracted timestamp before the generator sees it; bounded proposes
 * max - B - 1 at each periodic probe (MIN before any element), ascending is
 * bounded with B = 0, punctuated proposes per element through a callback,
 * custom periodic generators get on_event and on_periodic and speak through
 * weir_watermark_output_*, "none" proposes nothing; the probes run one
 * interval after open and then one interval after each other, with the
 * strategy's interval overriding the job's; MAX (from upstream or the end of
 * input) passes at once, the probes go on after it, and at END one final
 * probe runs (so after MAX it can only mark the output idle). Upstream
 * watermarks other than MAX are swallowed. Everything leaves through the
 * output gate. The last tests check the configuration
 * errors weir_timestamps_operator reports, message by message.
 *
 * Outputs are compared as whole logs (support/harness_log.h): "r100" a
 * record, "w99@200" a watermark and the processing time it left at.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/harness_log.h"
#include "support/weir_testutil.h"

/* The element: a value, and a timestamp field an extractor may read. */
typedef struct ev {
    int64_t v;
    int64_t ts;
} ev;

/* The operator for `st`, with an optional extractor; fails the test if it is
 * refused. */
static weir_process_spec ts_op(weir_watermark_strategy st, weir_timestamp_fn extract, void *arg)
{
    weir_timestamps_spec spec = {.extract = extract, .arg = arg, .strategy = st};
    weir_process_spec ps;
    char why[256] = "";
    int r = weir_timestamps_operator(&spec, sizeof(ev), &ps, why, sizeof why);
    cr_assert_eq(r, 0, "weir_timestamps_operator refused a valid strategy: %s", why);
    return ps;
}

static weir_harness *start(weir_watermark_strategy st, int64_t job_interval, hl_log *l)
{
    weir_process_spec ps = ts_op(st, NULL, NULL);
    return hl_create(&ps, sizeof(ev), 1, job_interval, l);
}

static void rec(weir_harness *h, int64_t ts)
{
    ev e = {.v = ts, .ts = ts};
    hl_ok(weir_harness_record(h, 0, 0, &e, ts));
}

static weir_watermark_strategy every(weir_watermark_strategy st, int64_t interval)
{
    st.interval_ms = interval;
    return st;
}

/* ---- bounded, ascending, none ------------------------------------------------ */

Test(timestamps, bounded_proposes_max_minus_bound_minus_one)
{
    hl_log l;
    weir_harness *h = start(every(weir_watermarks_bounded(10), 100), 0, &l);
    rec(h, 100);
    rec(h, 120);
    rec(h, 90); /* disorder: max stays 120 */
    hl_ok(weir_harness_advance(h, 99));
    hl_expect(&l, "r100 r120 r90"); /* no probe before one interval */
    hl_ok(weir_harness_advance(h, 200));
    /* probe 100: 120 - 10 - 1; probe 200: the same again, dropped by the gate */
    hl_expect(&l, "r100 r120 r90 w109@100");
    hl_ok(weir_harness_advance(h, 250));
    rec(h, 200);
    hl_ok(weir_harness_advance(h, 300));
    hl_ok(weir_harness_end(h));
    /* the final probe at 300 proposes 189 again: only MAX follows */
    hl_expect(&l, "r100 r120 r90 w109@100 r200 w189@300 wMAX@300");
    weir_harness_destroy(h);
}

Test(timestamps, bounded_proposes_min_before_any_element)
{
    hl_log l;
    weir_harness *h = start(every(weir_watermarks_bounded(5), 100), 0, &l);
    hl_ok(weir_harness_advance(h, 1000)); /* ten probes, each proposing MIN */
    hl_expect(&l, "");
    hl_ok(weir_harness_end(h));
    hl_expect(&l, "wMAX@1000");
    weir_harness_destroy(h);
}

Test(timestamps, bounded_negative_timestamps_and_no_wrap_below_min)
{
    hl_log l;
    weir_harness *h = start(every(weir_watermarks_bounded(100), 100), 0, &l);
    rec(h, WEIR_TS_MIN + 50); /* max - 101 would wrap: MIN instead, which never leaves */
    hl_ok(weir_harness_advance(h, 100));
    rec(h, -1000);
    hl_ok(weir_harness_advance(h, 200));
    hl_ok(weir_harness_end(h));
    hl_expect(&l, "r-9223372036854775758 r-1000 w-1101@200 wMAX@200");
    weir_harness_destroy(h);
}

/* Ascending is bounded with B = 0: the same input gives the same log. */
static void ascending_input(weir_harness *h)
{
    rec(h, 10);
    hl_ok(weir_harness_advance(h, 100));
    rec(h, 11);
    rec(h, 5);
    hl_ok(weir_harness_advance(h, 200));
    rec(h, 50);
    hl_ok(weir_harness_end(h));
}

Test(timestamps, ascending_is_bounded_zero)
{
    hl_log a, b;
    weir_harness *ha = start(every(weir_watermarks_ascending(), 100), 0, &a);
    ascending_input(ha);
    weir_harness *hb = start(every(weir_watermarks_bounded(0), 100), 0, &b);
    ascending_input(hb);
    /* the 49 the final probe proposes comes after MAX: dropped */
    hl_expect(&a, "r10 w9@100 r11 r5 w10@200 r50 wMAX@200");
    hl_expect(&b, a.text);
    weir_harness_destroy(ha);
    weir_harness_destroy(hb);
}

Test(timestamps, none_emits_only_max_at_the_end)
{
    hl_log l;
    weir_harness *h = start(every(weir_watermarks_none(), 100), 0, &l);
    rec(h, 100);
    hl_ok(weir_harness_advance(h, 1000));
    rec(h, 2000);
    hl_ok(weir_harness_end(h));
    hl_expect(&l, "r100 r2000 wMAX@1000");
    weir_harness_destroy(h);
}

/* The all-zero strategy is "no watermarks" (time.h). */
Test(timestamps, zero_strategy_is_none)
{
    hl_log l;
    weir_harness *h = start((weir_watermark_strategy){0}, 50, &l);
    rec(h, 100);
    hl_ok(weir_harness_advance(h, 500));
    hl_ok(weir_harness_end(h));
    hl_expect(&l, "r100 wMAX@500");
    weir_harness_destroy(h);
}

/* ---- punctuated --------------------------------------------------------------- */

/* Proposes the element's timestamp for odd values, nothing for even ones;
 * checks that the element was forwarded before it is asked (the log's last
 * word is this record). */
typedef struct punct_arg {
    hl_log *log;
    int calls;
    bool saw_unforwarded;
    bool saw_wrong_ts;
} punct_arg;

static int64_t odd_marks(const void *elem, int64_t timestamp, void *arg)
{
    punct_arg *p = arg;
    const ev *e = elem;
    p->calls++;
    char word[32];
    snprintf(word, sizeof word, "r%lld", (long long)timestamp);
    size_t n = strlen(word);
    if (p->log->len < n || strcmp(p->log->text + p->log->len - n, word) != 0)
        p->saw_unforwarded = true;
    if (timestamp != e->ts)
        p->saw_wrong_ts = true;
    return (e->v & 1) ? timestamp : WEIR_TS_MIN;
}

Test(timestamps, punctuated_callback_after_the_record)
{
    hl_log l;
    punct_arg pa = {.log = &l};
    weir_process_spec ps = ts_op(every(weir_watermarks_punctuated(odd_marks, &pa), 100), NULL, NULL);
    weir_harness *h = hl_create(&ps, sizeof(ev), 1, 0, &l);
    ev e1 = {.v = 2, .ts = 10}, e2 = {.v = 3, .ts = 20}, e3 = {.v = 5, .ts = 15},
       e4 = {.v = 7, .ts = 40};
    hl_ok(weir_harness_record(h, 0, 0, &e1, 10));
    hl_ok(weir_harness_record(h, 0, 0, &e2, 20));
    hl_ok(weir_harness_advance(h, 1000)); /* probes propose nothing for punctuated */
    hl_ok(weir_harness_record(h, 0, 0, &e3, 15)); /* 15 < 20: the gate drops it */
    hl_ok(weir_harness_record(h, 0, 0, &e4, 40));
    hl_ok(weir_harness_end(h));
    hl_expect(&l, "r10 r20 w20@0 r15 r40 w40@1000 wMAX@1000");
    cr_assert_eq(pa.calls, 4, "the callback ran %d times for 4 elements", pa.calls);
    cr_assert_not(pa.saw_unforwarded, "the callback saw an element before it was forwarded");
    cr_assert_not(pa.saw_wrong_ts, "the callback was not given the element's timestamp");
    weir_harness_destroy(h);
}

/* ---- custom periodic generators ----------------------------------------------- */

/* A user generator: on_event tracks the largest timestamp and, for an
 * element of value 999, emits at once; on_periodic emits max - 1. Counters
 * live in the arg so the test can read them after destroy. */
typedef struct gen_arg {
    int creates, destroys, events, periodics;
    int fail_create;
} gen_arg;

typedef struct gen_state {
    gen_arg *arg;
    int64_t max;
} gen_state;

static int gen_create(void *arg, void **gen)
{
    gen_arg *a = arg;
    a->creates++;
    if (a->fail_create)
        return a->fail_create;
    cr_assert_null(*gen, "*gen does not start as NULL");
    gen_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->arg = a;
    s->max = WEIR_TS_MIN;
    *gen = s;
    return 0;
}

static void gen_event(void *gen, const void *elem, int64_t timestamp, weir_watermark_output *out)
{
    gen_state *s = gen;
    const ev *e = elem;
    s->arg->events++;
    if (timestamp > s->max)
        s->max = timestamp;
    if (e->v == 999)
        weir_watermark_output_emit(out, timestamp);
}

static void gen_periodic(void *gen, weir_watermark_output *out)
{
    gen_state *s = gen;
    s->arg->periodics++;
    if (s->max != WEIR_TS_MIN)
        weir_watermark_output_emit(out, s->max - 1);
}

static void gen_destroy(void *gen)
{
    gen_state *s = gen;
    s->arg->destroys++;
    free(s);
}

static const weir_watermark_generator_vtable gen_vt = {
    .version = WEIR_WATERMARK_GENERATOR_V1,
    .create = gen_create,
    .on_event = gen_event,
    .on_periodic = gen_periodic,
    .destroy = gen_destroy,
};

Test(timestamps, custom_generator_on_event_and_on_periodic)
{
    hl_log l;
    gen_arg ga = {0};
    weir_harness *h = start(every(weir_watermarks_custom(&gen_vt, &ga), 100), 0, &l);
    cr_assert_eq(ga.creates, 1, "create runs once, when the operator opens");
    ev a = {.v = 1, .ts = 50}, b = {.v = 999, .ts = 70}, c = {.v = 2, .ts = 200};
    hl_ok(weir_harness_record(h, 0, 0, &a, 50));
    hl_ok(weir_harness_record(h, 0, 0, &b, 70)); /* on_event emits 70 at once */
    hl_ok(weir_harness_advance(h, 250));          /* probes 100 (69: dropped), 200 */
    hl_ok(weir_harness_record(h, 0, 0, &c, 200));
    hl_ok(weir_harness_advance(h, 300));          /* probe 300: 199 */
    hl_ok(weir_harness_end(h));                   /* MAX; final probe: 199 again */
    hl_expect(&l, "r50 r70 w70@0 r200 w199@300 wMAX@300");
    cr_assert_eq(ga.events, 3);
    /* probes at 100, 200, 300 and the final one */
    cr_assert_eq(ga.periodics, 4, "on_periodic ran %d times, expected 4", ga.periodics);
    weir_harness_destroy(h);
    cr_assert_eq(ga.destroys, 1, "destroy runs once, when the operator closes");
}

/* The same generator, flagged as deciding only from what on_event saw
 * (WEIR_WATERMARK_PERIODIC_FROM_EVENTS, SQL's WATERMARK FOR): its probes
 * with no element since the previous one are skipped, as a built-in
 * strategy's are, with the same output. Over 10 s of quiet at a 100 ms
 * interval the unflagged one runs 100 probes; the flagged one runs those
 * that follow an element, and the final one. */
static const weir_watermark_generator_vtable gen_vt_from_events = {
    .version = WEIR_WATERMARK_GENERATOR_V2,
    .create = gen_create,
    .on_event = gen_event,
    .on_periodic = gen_periodic,
    .destroy = gen_destroy,
    .flags = WEIR_WATERMARK_PERIODIC_FROM_EVENTS,
};

static int quiet_run(const weir_watermark_generator_vtable *vt, int64_t idleness, hl_log *l)
{
    gen_arg ga = {0};
    weir_watermark_strategy st = every(weir_watermarks_custom(vt, &ga), 100);
    st.idleness_ms = idleness;
    weir_harness *h = start(st, 0, l);
    ev a = {.v = 1, .ts = 50}, b = {.v = 2, .ts = 80};
    hl_ok(weir_harness_record(h, 0, 0, &a, 50));
    hl_ok(weir_harness_advance(h, 10000));
    hl_ok(weir_harness_record(h, 0, 0, &b, 80));
    hl_ok(weir_harness_record(h, 0, 0, &a, 9000));
    hl_ok(weir_harness_advance(h, 20050));
    hl_ok(weir_harness_end(h));
    weir_harness_destroy(h);
    return ga.periodics;
}

Test(timestamps, custom_generator_from_events_skips_quiet_probes)
{
    hl_log every_probe, skipped;
    int all = quiet_run(&gen_vt, 0, &every_probe);
    int few = quiet_run(&gen_vt_from_events, 0, &skipped);
    hl_expect(&every_probe, "r50 w49@100 r80 r9000 w8999@10100 wMAX@20050");
    hl_expect(&skipped, "r50 w49@100 r80 r9000 w8999@10100 wMAX@20050");
    cr_assert_eq(all, 201, "every probe of 100..20000 and the final one: %d", all);
    cr_assert_eq(few, 3, "probes 100 and 10100 and the final one, not %d", few);
    /* with idleness the countdown's probes still run, and only those */
    hl_log idle_all, idle_few;
    all = quiet_run(&gen_vt, 1000, &idle_all);
    few = quiet_run(&gen_vt_from_events, 1000, &idle_few);
    hl_expect(&idle_all, "r50 w49@100 i@1300 r80 r9000 a@10100 w8999@10100 i@11300 a@20050 "
                         "wMAX@20050");
    hl_expect(&idle_few, "r50 w49@100 i@1300 r80 r9000 a@10100 w8999@10100 i@11300 a@20050 "
                         "wMAX@20050");
    /* on_periodic runs while the wrapper is not idle: unflagged at every
     * probe 100..1200 and 10100..11200; flagged at the probe after an
     * element and at the one that starts the countdown (100, 200, 10100,
     * 10200), the ones between skipped until the idleness deadline */
    cr_assert_eq(all, 24, "unflagged with idleness: %d", all);
    cr_assert_eq(few, 4, "flagged with idleness: %d", few);
}

/* A generator may mark the output idle and active itself; the gate lets
 * only changes through, and ACTIVE precedes a watermark after idle. */
typedef struct status_gen {
    int step;
} status_gen;

static int sg_create(void *arg, void **gen)
{
    (void)arg;
    *gen = calloc(1, sizeof(status_gen));
    return *gen ? 0 : WEIR_ENOMEM;
}

static void sg_periodic(void *gen, weir_watermark_output *out)
{
    status_gen *s = gen;
    switch (s->step++) {
    case 0:
        weir_watermark_output_emit(out, 10);
        break;
    case 1:
        weir_watermark_output_mark_idle(out);
        weir_watermark_output_mark_idle(out); /* no change: nothing */
        break;
    case 2:
        weir_watermark_output_emit(out, 5); /* not above 10: nothing, stays idle */
        break;
    case 3:
        weir_watermark_output_mark_active(out);
        weir_watermark_output_mark_active(out);
        break;
    case 4:
        weir_watermark_output_mark_idle(out);
        weir_watermark_output_emit(out, 20); /* ACTIVE first */
        break;
    default:
        break;
    }
}

static const weir_watermark_generator_vtable status_vt = {
    .version = WEIR_WATERMARK_GENERATOR_V1,
    .create = sg_create,
    .on_periodic = sg_periodic,
    .destroy = free,
};

Test(timestamps, custom_generator_statuses_through_the_gate)
{
    hl_log l;
    weir_harness *h = start(every(weir_watermarks_custom(&status_vt, NULL), 10), 0, &l);
    hl_ok(weir_harness_advance(h, 60));
    hl_expect(&l, "w10@10 i@20 a@40 i@50 a@50 w20@50");
    hl_ok(weir_harness_end(h));
    weir_harness_destroy(h);
}

/* A generator with no callbacks at all: every one of them is optional, and
 * the operator still emits MAX at the end. */
static const weir_watermark_generator_vtable empty_vt = {.version = WEIR_WATERMARK_GENERATOR_V1};

Test(timestamps, custom_generator_with_no_callbacks)
{
    hl_log l;
    weir_harness *h = start(every(weir_watermarks_custom(&empty_vt, NULL), 10), 0, &l);
    rec(h, 5);
    hl_ok(weir_harness_advance(h, 100));
    hl_ok(weir_harness_end(h));
    hl_expect(&l, "r5 wMAX@100");
    weir_harness_destroy(h);
}

Test(timestamps, custom_generator_create_failure_fails_the_open)
{
    gen_arg ga = {.fail_create = WEIR_ENOMEM};
    weir_process_spec ps = ts_op(weir_watermarks_custom(&gen_vt, &ga), NULL, NULL);
    hl_log l;
    memset(&l, 0, sizeof l);
    weir_harness_config cfg = {.op = &ps, .in_size = {sizeof(ev)}, .output = hl_output(&l)};
    weir_harness *h = NULL;
    char why[256] = "";
    int r = weir_harness_create(&cfg, &h, why, sizeof why);
    cr_assert_eq(r, WEIR_ENOMEM, "create's error is the harness's: got %d", r);
    cr_assert_null(h);
    tu_assert_contains(why, "open");
    cr_assert_eq(ga.creates, 1);
    cr_assert_eq(ga.destroys, 0, "destroy must not run for a generator create() refused");
}

/* ---- the extractor ------------------------------------------------------------- */

typedef struct extract_arg {
    int calls;
    bool wrong_current;
} extract_arg;

/* The element's own field is its event time; `current` must be what the
 * record carried. */
static int64_t from_field(const void *elem, int64_t current, void *arg)
{
    extract_arg *x = arg;
    const ev *e = elem;
    x->calls++;
    if (current != e->v)
        x->wrong_current = true;
    return e->ts;
}

Test(timestamps, extractor_changes_the_timestamps)
{
    hl_log l;
    extract_arg xa = {0};
    weir_process_spec ps = ts_op(every(weir_watermarks_bounded(0), 100), from_field, &xa);
    weir_harness *h = hl_create(&ps, sizeof(ev), 1, 0, &l);
    /* the record carries v as its timestamp; the extractor replaces it by ts */
    ev a = {.v = 7, .ts = 1000}, b = {.v = 8, .ts = 500}, c = {.v = WEIR_TS_MIN, .ts = 1500};
    hl_ok(weir_harness_record(h, 0, 0, &a, a.v));
    hl_ok(weir_harness_record(h, 0, 0, &b, b.v));
    hl_ok(weir_harness_advance(h, 100)); /* max of the extracted ones: 1000 */
    hl_ok(weir_harness_record(h, 0, 0, &c, WEIR_NO_TIMESTAMP));
    hl_ok(weir_harness_advance(h, 200)); /* the generator saw 1500 */
    hl_ok(weir_harness_end(h));
    hl_expect(&l, "r1000 r500 w999@100 r1500 w1499@200 wMAX@200");
    cr_assert_eq(xa.calls, 3);
    cr_assert_not(xa.wrong_current, "the extractor was not given the record's own timestamp");
    weir_harness_destroy(h);
}

/* Without an extractor the records keep their timestamps. */
Test(timestamps, no_extractor_keeps_the_timestamps)
{
    hl_log l;
    weir_harness *h = start(every(weir_watermarks_bounded(0), 100), 0, &l);
    ev a = {.v = 1, .ts = 999999};
    hl_ok(weir_harness_record(h, 0, 0, &a, 42));
    hl_ok(weir_harness_advance(h, 100));
    hl_ok(weir_harness_end(h));
    hl_expect(&l, "r42 w41@100 wMAX@100");
    weir_harness_destroy(h);
}

/* ---- the probe interval --------------------------------------------------------- */

/* A generator whose every probe emits the next integer, so the log shows
 * the time of every periodic probe; the count stays in the test's arg, so
 * the final probe (after MAX, its integer dropped by the gate) counts too. */
static int counter_create(void *arg, void **gen)
{
    *(int64_t *)arg = 0;
    *gen = arg;
    return 0;
}

static void counter_periodic(void *gen, weir_watermark_output *out)
{
    int64_t *n = gen;
    weir_watermark_output_emit(out, ++*n);
}

static const weir_watermark_generator_vtable counter_vt = {
    .version = WEIR_WATERMARK_GENERATOR_V1,
    .create = counter_create,
    .on_periodic = counter_periodic,
};

/* The probe times up to `until` for a strategy interval and a job
 * (harness) interval, then MAX and the final probe (`probes` in all). */
static void probe_times(int64_t strategy_interval, int64_t job_interval, int64_t until,
                        const char *expected, int64_t probes)
{
    hl_log l;
    int64_t count = -1;
    weir_harness *h = start(every(weir_watermarks_custom(&counter_vt, &count), strategy_interval),
                            job_interval, &l);
    hl_ok(weir_harness_advance(h, until));
    hl_ok(weir_harness_end(h));
    hl_expect(&l, expected);
    cr_assert_eq(count, probes, "%lld probes ran, expected %lld", (long long)count,
                 (long long)probes);
    weir_harness_destroy(h);
}

Test(timestamps, interval_job_default_is_used)
{
    probe_times(0, 50, 175, "w1@50 w2@100 w3@150 wMAX@175", 4);
}

Test(timestamps, interval_default_is_200)
{
    /* the harness's 0 is the job's default, 200 ms */
    probe_times(0, 0, 650, "w1@200 w2@400 w3@600 wMAX@650", 4);
}

Test(timestamps, interval_strategy_overrides_job)
{
    probe_times(30, 50, 100, "w1@30 w2@60 w3@90 wMAX@100", 4);
}

Test(timestamps, interval_strategy_disabled_overrides_job)
{
    /* only the final probe runs */
    probe_times(WEIR_DISABLED, 50, 1000, "wMAX@1000", 1);
}

Test(timestamps, interval_job_disabled)
{
    probe_times(0, WEIR_DISABLED, 1000, "wMAX@1000", 1);
}

Test(timestamps, interval_strategy_enables_probes_the_job_disabled)
{
    probe_times(70, WEIR_DISABLED, 220, "w1@70 w2@140 w3@210 wMAX@220", 4);
}

/* ---- upstream watermarks and statuses ----------------------------------------- */

/* Over two input channels: upstream watermarks are swallowed, statuses too;
 * MAX from the valve (both channels at MAX) passes at once, without a
 * probe. MAX on one channel alone is not MAX (the valve still holds MIN). */
Test(timestamps, upstream_swallowed_except_max)
{
    hl_log l;
    weir_process_spec ps = ts_op(every(weir_watermarks_bounded(0), 100), NULL, NULL);
    weir_harness *h = hl_create(&ps, sizeof(ev), 2, 0, &l);
    hl_ok(weir_harness_watermark(h, 0, 0, 5000));
    hl_ok(weir_harness_watermark(h, 0, 1, 6000)); /* valve -> 5000: swallowed */
    rec(h, 100);
    hl_ok(weir_harness_idle(h, 0, 0));
    hl_ok(weir_harness_idle(h, 0, 1));            /* valve -> idle: swallowed */
    hl_ok(weir_harness_advance(h, 100));          /* wm 99 without ACTIVE */
    hl_ok(weir_harness_active(h, 0, 0));          /* swallowed */
    hl_ok(weir_harness_watermark(h, 0, 0, WEIR_TS_MAX)); /* channel 1 idle: valve -> MAX */
    hl_expect(&l, "r100 w99@100 wMAX@100");
    weir_harness_destroy(h);

    weir_process_spec ps2 = ts_op(every(weir_watermarks_bounded(0), 100), NULL, NULL);
    h = hl_create(&ps2, sizeof(ev), 2, 0, &l);
    rec(h, 100);
    hl_ok(weir_harness_watermark(h, 0, 0, WEIR_TS_MAX)); /* channel 1 at MIN: not the end */
    ev late = {.v = 300, .ts = 300};
    hl_ok(weir_harness_record(h, 0, 1, &late, 300));
    hl_expect(&l, "r100 r300");
    hl_ok(weir_harness_watermark(h, 0, 1, WEIR_TS_MAX)); /* MAX at once, no 299 */
    hl_expect(&l, "r100 r300 wMAX@0");
    hl_ok(weir_harness_end(h)); /* MAX again on both; the final probe's 299: nothing */
    hl_expect(&l, "r100 r300 wMAX@0");
    weir_harness_destroy(h);
}

/* An upstream MAX runs no probe; the periodic probes go on after it (a
 * custom generator's are all run), and END runs one more, the final one.
 * What they propose is below MAX: nothing leaves after it. */
Test(timestamps, probes_go_on_after_max_until_end)
{
    hl_log l;
    gen_arg ga = {0};
    weir_harness *h = start(every(weir_watermarks_custom(&gen_vt, &ga), 100), 0, &l);
    rec(h, 500);
    hl_ok(weir_harness_advance(h, 150));             /* probe 100: 499 */
    hl_ok(weir_harness_watermark(h, 0, 0, WEIR_TS_MAX)); /* no probe */
    cr_assert_eq(ga.periodics, 1);
    rec(h, 700);
    hl_ok(weir_harness_advance(h, 1000));            /* probes 200 .. 1000 */
    cr_assert_eq(ga.periodics, 10, "on_periodic ran %d times, expected 10", ga.periodics);
    hl_ok(weir_harness_end(h));                      /* the final probe */
    cr_assert_eq(ga.periodics, 11, "on_periodic ran %d times, expected 11", ga.periodics);
    hl_expect(&l, "r500 w499@100 wMAX@150 r700");
    weir_harness_destroy(h);
}

/* ---- in a job --------------------------------------------------------------------- */

/* What an operator downstream of the timestamps operator sees, in a real job
 * (worker threads, the virtual clock): the watermarks and statuses in order. */
typedef struct watch_log {
    int64_t wm[16];
    int n, statuses, records;
} watch_log;

static int watch_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)elem;
    (void)ts;
    watch_log *w = weir_ctx_arg(ctx);
    w->records++;
    return 0;
}

static int watch_watermark(weir_ctx *ctx, int64_t wm)
{
    watch_log *w = weir_ctx_arg(ctx);
    if (w->n < 16)
        w->wm[w->n++] = wm;
    return 0;
}

static int watch_status(weir_ctx *ctx, bool idle)
{
    (void)idle;
    watch_log *w = weir_ctx_arg(ctx);
    w->statuses++;
    return 0;
}

static const weir_operator_vtable watch_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = watch_record,
    .on_watermark = watch_watermark,
    .on_status = watch_status,
};

/* A finite source's end sends MAX through the timestamps operator at once,
 * chained to it or behind a channel: no final-probe watermark (max - 1)
 * comes before MAX, only MAX. The probe interval is far longer than the
 * run, so no periodic probe runs. */
static void source_end_passes_max(bool chained, int workers)
{
    static const ev elems[3] = {{.v = 1, .ts = 100}, {.v = 2, .ts = 300}, {.v = 3, .ts = 200}};
    static const int64_t ts[3] = {100, 300, 200};
    watch_log w = {0};
    weir_job *job = tu_job(&(weir_job_config){.workers = workers, .clock = WEIR_CLOCK_VIRTUAL,
                                              .watermark_interval_ms = 1000000});
    weir_stream *s = weir_source_array(job, elems, 3, sizeof(ev), ts);
    if (!chained)
        s = weir_stream_rebalance(s);
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_ascending()});
    cr_assert_not_null(weir_stream_process(weir_stream_rebalance(s),
                                           &(weir_process_spec){.name = "watch",
                                                                .vtable = &watch_vt,
                                                                .arg = &w,
                                                                .parallelism = 1}),
                       "building: %s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
    cr_assert_eq(w.records, 3);
    cr_assert_eq(w.statuses, 0);
    cr_assert_eq(w.n, 1, "%d watermarks, the first %lld: expected MAX alone", w.n,
                 (long long)w.wm[0]);
    cr_assert_eq(w.wm[0], WEIR_TS_MAX);
}

Test(timestamps_job, source_end_passes_max_at_once_chained)
{
    source_end_passes_max(true, 1);
    source_end_passes_max(true, 2);
}

Test(timestamps_job, source_end_passes_max_at_once_behind_a_channel)
{
    source_end_passes_max(false, 1);
    source_end_passes_max(false, 2);
}

/* ---- configuration errors ------------------------------------------------------- */

static void refused(weir_watermark_strategy st, const char *message)
{
    weir_timestamps_spec spec = {.strategy = st};
    weir_process_spec ps;
    memset(&ps, 0x5a, sizeof ps);
    weir_process_spec before = ps;
    char why[256] = "";
    int r = weir_timestamps_operator(&spec, sizeof(ev), &ps, why, sizeof why);
    cr_assert_eq(r, WEIR_EINVAL, "expected WEIR_EINVAL, got %d (%s)", r, weir_err_name(r));
    cr_assert_str_eq(why, message);
    cr_assert(memcmp(&ps, &before, sizeof ps) == 0, "a refused call wrote its output");
}

Test(timestamps_config, negative_bound)
{
    refused(weir_watermarks_bounded(-1), "bounded out-of-orderness -1 is negative (must be >= 0)");
}

Test(timestamps_config, negative_idleness)
{
    refused(weir_watermarks_with_idleness(weir_watermarks_ascending(), -5),
            "idleness -5 is negative (must be > 0, or 0 for none)");
}

Test(timestamps_config, punctuated_without_callback)
{
    refused(weir_watermarks_punctuated(NULL, NULL), "a punctuated strategy needs its callback");
}

Test(timestamps_config, custom_without_vtable)
{
    refused(weir_watermarks_custom(NULL, NULL),
            "a custom strategy needs a generator vtable of version 1 or 2");
}

Test(timestamps_config, custom_with_wrong_version)
{
    static const weir_watermark_generator_vtable v3 = {.version = 3};
    refused(weir_watermarks_custom(&v3, NULL),
            "a custom strategy needs a generator vtable of version 1 or 2");
}

Test(timestamps_config, negative_interval)
{
    refused(every(weir_watermarks_ascending(), -5),
            "watermark interval -5 is negative (WEIR_DISABLED turns periodic probes off)");
}

Test(timestamps_config, unknown_kind)
{
    refused((weir_watermark_strategy){.kind = (weir_watermark_kind)17},
            "unknown watermark strategy 17");
}

Test(timestamps_config, no_spec)
{
    weir_process_spec ps;
    char why[128] = "";
    cr_assert_eq(weir_timestamps_operator(NULL, 8, &ps, why, sizeof why), WEIR_EINVAL);
    cr_assert_str_eq(why, "a spec and an output are required");
    weir_timestamps_spec spec = {0};
    cr_assert_eq(weir_timestamps_operator(&spec, 8, NULL, NULL, 0), WEIR_EINVAL,
                 "no errbuf is allowed");
}

Test(timestamps_config, short_errbuf_is_truncated)
{
    weir_timestamps_spec spec = {.strategy = weir_watermarks_bounded(-1)};
    weir_process_spec ps;
    char why[8];
    memset(why, 'x', sizeof why);
    cr_assert_eq(weir_timestamps_operator(&spec, 8, &ps, why, sizeof why), WEIR_EINVAL);
    cr_assert_str_eq(why, "bounded");
}

/* Accepted at the edges: bound 0, idleness 0 (none), WEIR_DISABLED; a bound
 * of a non-bounded kind is not looked at. */
Test(timestamps_config, accepted_edges)
{
    weir_watermark_strategy ok[] = {
        weir_watermarks_bounded(0),
        weir_watermarks_with_idleness(weir_watermarks_bounded(0), 0),
        every(weir_watermarks_ascending(), WEIR_DISABLED),
        {.kind = WEIR_WATERMARKS_ASCENDING, .bound_ms = -7},
        weir_watermarks_with_idleness(weir_watermarks_none(), 1),
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        weir_timestamps_spec spec = {.strategy = ok[i]};
        weir_process_spec ps;
        char why[256] = "";
        int r = weir_timestamps_operator(&spec, 8, &ps, why, sizeof why);
        cr_assert_eq(r, 0, "case %zu refused: %s", i, why);
        cr_assert_eq(ps.out_size, 8u);
        cr_assert_str_eq(ps.kind, "timestamps");
        cr_assert_not_null(ps.settings_json);
        ps.arg_free(ps.arg);
    }
}

Test(timestamps_config, settings_for_the_capture)
{
    weir_timestamps_spec spec = {
        .strategy = weir_watermarks_with_idleness(every(weir_watermarks_bounded(25), 50), 400)};
    weir_process_spec ps;
    cr_assert_eq(weir_timestamps_operator(&spec, 16, &ps, NULL, 0), 0);
    cr_assert_str_eq(ps.settings_json, "\"strategy\":\"bounded\",\"bound_ms\":25,"
                                       "\"interval_ms\":50,\"idleness_ms\":400");
    ps.arg_free(ps.arg);
}

/* weir_stream_assign_timestamps records the refusal as the job's error;
 * weir_job_run then fails before any thread starts. */
Test(timestamps_config, assign_timestamps_records_the_error)
{
    weir_job *job = tu_job(NULL);
    static const int64_t v[2] = {1, 2};
    weir_stream *s = weir_source_array(job, v, 2, sizeof v[0], v);
    weir_timestamps_spec spec = {.strategy = weir_watermarks_bounded(-3)};
    cr_assert_null(weir_stream_assign_timestamps(s, &spec));
    cr_assert_eq(weir_job_error_code(job), WEIR_EINVAL);
    cr_assert_str_eq(weir_job_error(job), "weir_stream_assign_timestamps: bounded "
                                          "out-of-orderness -3 is negative (must be >= 0)");
    cr_assert_eq(weir_job_run(job), WEIR_EINVAL);
    weir_job_destroy(job);
}
