/* test_idleness.c — with_idleness(T) in the timestamps operator, on the
 * harness's virtual clock (SEMANTICS.md 2).
 *
 * The rule, at each periodic probe: elements since the last probe forget any
 * countdown; else the first quiet probe starts one; else the output is idle
 * iff now - countdown_start > T, strictly. So with the last element at time
 * e and probes every I ms from open (at 0), the probe p1 after e still sees
 * the element, p1 + I starts the countdown, and idleness is declared at the
 * first probe strictly more than T after that:
 *     idle_at = p1 + I + (floor(T / I) + 1) * I,  p1 = (floor(e / I) + 1) * I
 * (an element at a probe's own time arrives after that probe ran), which
 * lies in (e + T, e + T + 3I]. The tests check exact times for hand-worked
 * cases — T a multiple of I, T not one, exactly-T not idle — then the closed
 * form and the bounds over a grid of I, T and e. Then what idleness does not
 * do: it never marks active by itself (the next watermark through the gate
 * brings ACTIVE), records always flow, and while idle the wrapped
 * generator's probe does not run.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/harness_log.h"
#include "support/weir_testutil.h"

static weir_harness *start(weir_watermark_strategy st, int64_t interval, int64_t idleness,
                           hl_log *l)
{
    st.interval_ms = interval;
    st.idleness_ms = idleness;
    weir_timestamps_spec spec = {.strategy = st};
    weir_process_spec ps;
    char why[256] = "";
    int r = weir_timestamps_operator(&spec, sizeof(int64_t), &ps, why, sizeof why);
    cr_assert_eq(r, 0, "weir_timestamps_operator: %s", why);
    return hl_create(&ps, sizeof(int64_t), 1, 0, l);
}

static void rec(weir_harness *h, int64_t ts)
{
    hl_ok(weir_harness_record(h, 0, 0, &ts, ts));
}

/* The time of the only `i@` word in the log, or -1. */
static int64_t idle_time(const hl_log *l)
{
    const char *p = strstr(l->text, "i@");
    return p ? strtoll(p + 2, NULL, 10) : -1;
}

/* Elements at 0, I, 2I, ... before e (so that every probe up to e sees one
 * and the output cannot go idle early) and the last one at time e; then the
 * clock runs to just before `expected`: not idle; then to `expected`: idle,
 * declared at that time. */
static void idle_declared_at(int64_t interval, int64_t T, int64_t e, int64_t expected)
{
    hl_log l;
    weir_harness *h = start(weir_watermarks_ascending(), interval, T, &l);
    for (int64_t t = 0; t < e; t += interval) {
        hl_ok(weir_harness_advance(h, t));
        rec(h, t);
    }
    hl_ok(weir_harness_advance(h, e));
    rec(h, e);
    hl_ok(weir_harness_advance(h, expected - 1));
    cr_assert_eq(l.idles, 0, "I=%lld T=%lld e=%lld: idle at %lld, expected at %lld (log: %s)",
                 (long long)interval, (long long)T, (long long)e, (long long)idle_time(&l),
                 (long long)expected, l.text);
    hl_ok(weir_harness_advance(h, expected));
    cr_assert_eq(l.idles, 1, "I=%lld T=%lld e=%lld: not idle at %lld (log: %s)",
                 (long long)interval, (long long)T, (long long)e, (long long)expected, l.text);
    cr_assert_eq(idle_time(&l), expected);
    weir_harness_destroy(h);
}

/* ---- exact times, worked by hand ------------------------------------------------ */

Test(idleness, t_a_multiple_of_the_interval)
{
    /* I=100, T=300: element at 0; probe 100 sees it; countdown from 200;
     * 500 is exactly T after it (not idle); 600 is past it. */
    idle_declared_at(100, 300, 0, 600);
    /* T == I: countdown 200, 300 is exactly T, 400 past */
    idle_declared_at(100, 100, 0, 400);
    /* T == 3I with I=30 and the element mid-interval at 10: probe 30 sees it,
     * countdown from 60, 150 is exactly 90 after, 180 past */
    idle_declared_at(30, 90, 10, 180);
}

Test(idleness, t_not_a_multiple_of_the_interval)
{
    /* I=100, T=250: countdown 200; 400 is 200 after; 500 is 300 > 250 */
    idle_declared_at(100, 250, 0, 500);
    /* I=40, T=150: countdown 80; 200 is 120 after; 240 is 160 > 150 */
    idle_declared_at(40, 150, 0, 240);
    /* T below the interval: the first probe after the countdown's start */
    idle_declared_at(100, 99, 0, 300);
    idle_declared_at(100, 1, 0, 300);
    /* I=7, T=20: probe 7 sees it, countdown 14; 28 is 14 after; 35 is 21 */
    idle_declared_at(7, 20, 0, 35);
}

Test(idleness, element_later_in_time)
{
    /* the element at 250: probe 300 sees it, countdown 400, idle at 800 */
    idle_declared_at(100, 300, 250, 800);
    /* the element at a probe's own time (300, after that probe ran): probe
     * 400 sees it, countdown 500, idle at 900 */
    idle_declared_at(100, 300, 300, 900);
}

Test(idleness, exactly_t_is_not_idle)
{
    hl_log l;
    weir_harness *h = start(weir_watermarks_bounded(0), 100, 300, &l);
    rec(h, 10);
    hl_ok(weir_harness_advance(h, 500)); /* probe 500: 500 - 200 == 300 */
    hl_expect(&l, "r10 w9@100");
    hl_ok(weir_harness_advance(h, 600));
    hl_expect(&l, "r10 w9@100 i@600");
    weir_harness_destroy(h);
}

/* With no element ever, the first probe already is a quiet one: the
 * countdown starts at the first probe (I), idle at I + (T/I + 1) * I. */
Test(idleness, no_element_at_all)
{
    hl_log l;
    weir_harness *h = start(weir_watermarks_bounded(0), 100, 250, &l);
    hl_ok(weir_harness_advance(h, 399));
    hl_expect(&l, "");
    hl_ok(weir_harness_advance(h, 400));
    hl_expect(&l, "i@400");
    weir_harness_destroy(h);
}

/* ---- the closed form and its bounds over a grid ---------------------------------- */

Test(idleness, grid_of_intervals_timeouts_and_element_times)
{
    static const int64_t intervals[] = {1, 3, 7, 10, 50, 200};
    for (size_t i = 0; i < sizeof intervals / sizeof intervals[0]; i++) {
        int64_t I = intervals[i];
        int64_t timeouts[] = {1, I > 1 ? I - 1 : 1, I, I + 1, 2 * I, 5 * I / 2, 3 * I, 10 * I + 3};
        int64_t elements[] = {0, 1, I > 1 ? I - 1 : 0, I, I + 1, 5 * I / 2, 7 * I};
        for (size_t t = 0; t < sizeof timeouts / sizeof timeouts[0]; t++) {
            for (size_t k = 0; k < sizeof elements / sizeof elements[0]; k++) {
                int64_t T = timeouts[t], e = elements[k];
                int64_t p1 = (e / I + 1) * I;
                int64_t expected = p1 + I + (T / I + 1) * I;
                cr_assert(expected - e > T && expected - e <= T + 3 * I,
                          "the closed form breaks SEMANTICS 2's bounds: I=%lld T=%lld e=%lld",
                          (long long)I, (long long)T, (long long)e);
                idle_declared_at(I, T, e, expected);
            }
        }
    }
}

/* ---- what idleness does not do ------------------------------------------------- */

/* After idle, elements come back: no ACTIVE at the record, none at a probe
 * whose proposal does not pass the gate; ACTIVE and the watermark together,
 * ACTIVE first, at the probe whose proposal does. */
Test(idleness, active_comes_back_with_the_next_watermark)
{
    hl_log l;
    weir_harness *h = start(weir_watermarks_bounded(0), 100, 100, &l);
    rec(h, 50);
    hl_ok(weir_harness_advance(h, 400));
    hl_expect(&l, "r50 w49@100 i@400");
    hl_ok(weir_harness_advance(h, 450));
    rec(h, 40); /* flows at once, below max: the next proposal is 49 again */
    hl_ok(weir_harness_advance(h, 500));
    hl_expect(&l, "r50 w49@100 i@400 r40");
    cr_assert(l.idle, "the output went active with no watermark");
    hl_ok(weir_harness_advance(h, 550));
    rec(h, 80);
    hl_expect(&l, "r50 w49@100 i@400 r40 r80"); /* not at the record */
    hl_ok(weir_harness_advance(h, 600));
    hl_expect(&l, "r50 w49@100 i@400 r40 r80 a@600 w79@600");
    /* and it can go idle again: quiet probe 700 starts a new countdown,
     * 800 is exactly T after it, 900 past it */
    hl_ok(weir_harness_advance(h, 900));
    hl_expect(&l, "r50 w49@100 i@400 r40 r80 a@600 w79@600 i@900");
    /* the end: MAX passes at once, ACTIVE before it; the final probe at END
     * finds nothing new since 900, but this quiet spell was marked idle
     * already (Flink's isIdleNow, until the next element): no second idle */
    hl_ok(weir_harness_end(h));
    hl_expect(&l, "r50 w49@100 i@400 r40 r80 a@600 w79@600 i@900 a@900 wMAX@900");
    weir_harness_destroy(h);
}

/* A generator that proposes nothing: the output stays idle with records
 * flowing, until MAX at the end brings ACTIVE. */
Test(idleness, never_active_by_itself)
{
    hl_log l;
    weir_harness *h = start(weir_watermarks_none(), 50, 60, &l);
    rec(h, 5);
    hl_ok(weir_harness_advance(h, 200)); /* countdown 100, idle at 200 */
    for (int64_t t = 210; t <= 2000; t += 10) {
        hl_ok(weir_harness_advance(h, t));
        rec(h, t);
    }
    cr_assert_eq(l.records, 181);
    cr_assert_eq(l.idles, 1);
    cr_assert_eq(l.actives, 0, "the idleness wrapper marked the output active by itself");
    hl_ok(weir_harness_end(h));
    cr_assert_eq(l.actives, 1);
    cr_assert(strstr(l.text, "r2000 a@2000 wMAX@2000") != NULL, "log: %s", l.text);
    weir_harness_destroy(h);
}

/* Records pass at once while idle, in order, with their own timestamps. */
Test(idleness, records_flow_while_idle)
{
    hl_log l;
    weir_harness *h = start(weir_watermarks_bounded(1000), 100, 100, &l);
    hl_ok(weir_harness_advance(h, 300)); /* countdown from 100, idle at 300 */
    hl_expect(&l, "i@300");
    rec(h, 3);
    rec(h, 1);
    rec(h, 2);
    hl_expect(&l, "i@300 r3 r1 r2");
    weir_harness_destroy(h);
}

/* While idle, the wrapped probe does not run: a custom generator whose
 * probe emits its call count shows which probes ran. I=100, T=150: probes
 * 100 (elements), 200 (countdown), 300 (100 <= 150) run it; 400, 500, 600
 * are idle and do not; an element at 650 makes 700 run it again — as its
 * 4th call, so it emits 4, which brings ACTIVE. */
static int counting_create(void *arg, void **gen)
{
    (void)arg;
    *gen = calloc(1, sizeof(int64_t));
    return *gen ? 0 : WEIR_ENOMEM;
}

static void counting_periodic(void *gen, weir_watermark_output *out)
{
    int64_t *n = gen;
    weir_watermark_output_emit(out, ++*n);
}

static const weir_watermark_generator_vtable counting_vt = {
    .version = WEIR_WATERMARK_GENERATOR_V1,
    .create = counting_create,
    .on_periodic = counting_periodic,
    .destroy = free,
};

Test(idleness, wrapped_probe_skipped_while_idle)
{
    hl_log l;
    weir_harness *h = start(weir_watermarks_custom(&counting_vt, NULL), 100, 150, &l);
    rec(h, 0);
    hl_ok(weir_harness_advance(h, 650));
    rec(h, 1);
    hl_ok(weir_harness_advance(h, 700));
    hl_expect(&l, "r0 w1@100 w2@200 w3@300 i@400 r1 a@700 w4@700");
    weir_harness_destroy(h);
}

/* The idleness wrapper also runs at the job's default interval when the
 * strategy has none of its own (here the harness's 50). */
Test(idleness, with_the_default_interval)
{
    hl_log l;
    weir_watermark_strategy st = weir_watermarks_with_idleness(weir_watermarks_bounded(0), 120);
    weir_timestamps_spec spec = {.strategy = st};
    weir_process_spec ps;
    cr_assert_eq(weir_timestamps_operator(&spec, sizeof(int64_t), &ps, NULL, 0), 0);
    weir_harness *h = hl_create(&ps, sizeof(int64_t), 1, 50, &l);
    rec(h, 10);
    /* probe 50 sees it; countdown 100; 200 is 100 after; 250 is 150 > 120 */
    hl_ok(weir_harness_advance(h, 249));
    hl_expect(&l, "r10 w9@50");
    hl_ok(weir_harness_advance(h, 250));
    hl_expect(&l, "r10 w9@50 i@250");
    weir_harness_destroy(h);
}

/* ---- skipped probes change nothing ---------------------------------------------- */

/* The built-in generators' probes that cannot change anything are skipped
 * (timestamps.c); a custom generator's are all run while the output is not
 * idle. So bounded(B) against a custom generator that does what bounded(B)
 * does, on the same random input (records in disorder, clock steps from
 * 0 to far past every deadline, now and then MAX from upstream, an end or
 * not), must print the same log, with and without idleness: any skipped
 * probe that mattered shows as a difference. 4000 runs of at most 30 steps
 * (the clock moves at most about 10 s a step, so the twin's probes stay in
 * the millions in all): about a second, a few under ASan. */
typedef struct bounded_gen {
    int64_t bound, max;
    int64_t probes; /* how many on_periodic calls */
} bounded_gen;

static int bg_create(void *arg, void **gen)
{
    bounded_gen *g = arg;
    g->max = WEIR_TS_MIN;
    g->probes = 0;
    *gen = g;
    return 0;
}

static void bg_event(void *gen, const void *elem, int64_t timestamp, weir_watermark_output *out)
{
    (void)elem;
    (void)out;
    bounded_gen *g = gen;
    if (timestamp > g->max)
        g->max = timestamp;
}

static void bg_periodic(void *gen, weir_watermark_output *out)
{
    bounded_gen *g = gen;
    g->probes++;
    if (g->max != WEIR_TS_MIN && g->max >= WEIR_TS_MIN + g->bound + 1)
        weir_watermark_output_emit(out, g->max - g->bound - 1);
}

static const weir_watermark_generator_vtable bounded_vt = {
    .version = WEIR_WATERMARK_GENERATOR_V1,
    .create = bg_create,
    .on_event = bg_event,
    .on_periodic = bg_periodic,
};

static uint64_t sk_rng;

static int64_t sk_rnd(int64_t n)
{
    sk_rng = sk_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (int64_t)((sk_rng >> 33) % (uint64_t)n);
}

Test(idleness, skipped_probes_change_nothing)
{
    int64_t skipped = 0;
    for (uint64_t run = 0; run < 4000; run++) {
        sk_rng = run * 2654435761u + 7;
        int64_t interval = 1 + sk_rnd(120);
        int64_t idleness = sk_rnd(3) == 0 ? 0 : 1 + sk_rnd(500);
        int64_t bound = sk_rnd(50);
        bounded_gen g = {.bound = bound};
        hl_log a, b;
        weir_harness *ha = start(weir_watermarks_bounded(bound), interval, idleness, &a);
        weir_harness *hb = start(weir_watermarks_custom(&bounded_vt, &g), interval, idleness, &b);
        char steps[30 * 24] = "";
        size_t sl = 0;
        int64_t now = 0, et = sk_rnd(500);
        int n = 1 + (int)sk_rnd(30);
        bool ended = false;
        for (int i = 0; i < n && !ended; i++) {
            int64_t k = sk_rnd(100);
            if (k < 45) {
                et += sk_rnd(80) - 20;
                rec(ha, et);
                rec(hb, et);
                sl += (size_t)snprintf(steps + sl, sizeof steps - sl, " r%lld", (long long)et);
            } else if (k < 90) {
                /* the twin runs every probe: long steps stay in the thousands */
                now += k < 85 ? sk_rnd(4 * interval + 600) : 5000 + sk_rnd(5000);
                hl_ok(weir_harness_advance(ha, now));
                hl_ok(weir_harness_advance(hb, now));
                sl += (size_t)snprintf(steps + sl, sizeof steps - sl, " t%lld", (long long)now);
            } else if (k < 95) {
                hl_ok(weir_harness_watermark(ha, 0, 0, WEIR_TS_MAX));
                hl_ok(weir_harness_watermark(hb, 0, 0, WEIR_TS_MAX));
                sl += (size_t)snprintf(steps + sl, sizeof steps - sl, " MAX");
            } else {
                hl_ok(weir_harness_end(ha));
                hl_ok(weir_harness_end(hb));
                sl += (size_t)snprintf(steps + sl, sizeof steps - sl, " end");
                ended = true;
            }
        }
        cr_assert_str_eq(a.text, b.text, "run %llu (interval %lld, idleness %lld, bound %lld, "
                         "steps%s): bounded and its custom twin differ", (unsigned long long)run,
                         (long long)interval, (long long)idleness, (long long)bound, steps);
        /* the twin ran every probe up to now, less those while idle */
        skipped += g.probes;
        weir_harness_destroy(ha);
        weir_harness_destroy(hb);
    }
    cr_assert_gt(skipped, 10000, "the runs hardly probed (%lld custom probes): the clock steps "
                 "are too short to test skipping", (long long)skipped);
}
