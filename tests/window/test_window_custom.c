/* test_window_custom.c — custom triggers and evictors (weir/window.h,
 * Flink's Trigger / TriggerResult and Evictor), through the harness:
 * Flink's own triggers written as a user writes one — CountTrigger
 * (tumbling, and sessions whose counts merge), ContinuousEventTimeTrigger,
 * PurgingTrigger (purging, and FIRE_AND_PURGE / PURGE answered by the
 * trigger), DeltaTrigger, a processing-time trigger and a trigger that
 * fires on processing time in event-time windows — and the count, time and
 * delta evictors before and after the function, whose leftovers are the
 * window's next contents. (test_window_differential.c checks the engine
 * against the reference model of Flink's WindowOperator.) */
#include <criterion/criterion.h>

#include "test_window_util.h"

/* ---- CountTrigger ---------------------------------------------------------- */

static int64_t count_limit = 2;

static int count_element(weir_trigger_ctx *tc, const void *elem, int64_t ts)
{
    (void)elem;
    (void)ts;
    int64_t *n = tc->state;
    if (++*n >= count_limit) {
        *n = 0;
        return WEIR_TRIGGER_FIRE;
    }
    return WEIR_TRIGGER_CONTINUE;
}

static int count_merge(weir_trigger_ctx *tc, const void *const *merged, int n)
{
    for (int i = 0; i < n; i++)
        *(int64_t *)tc->state += *(const int64_t *)merged[i];
    return 0;
}

static const weir_trigger_vtable count_trigger = {
    .version = WEIR_TRIGGER_VTABLE_V1,
    .state_size = sizeof(int64_t),
    .on_element = count_element,
    .on_merge = count_merge,
};

Test(custom_trigger, count_fires_every_n_per_window)
{
    weir_window_spec s = wt_tumbling_sum(100, 0);
    s.trigger.custom = &count_trigger;
    count_limit = 2;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 1);
    wt_rec(t, "b", 1, 1);
    wt_rec(t, "a", 2, 2);
    wt_expect(t, &at, "R 99 a 3 [0,100) n=2 f=0\n");
    wt_rec(t, "a", 4, 3);
    wt_rec(t, "a", 8, 150);
    wt_rec(t, "a", 16, 4);
    wt_expect(t, &at, "R 99 a 23 [0,100) n=4 f=1\n");
    wt_wm(t, 500); /* no time: nothing fires, the windows are cleaned up */
    wt_expect(t, &at, "W 500\n");
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 0u, "window headers left: %zu", t->state_size[0]);
    cr_assert_eq(t->state_size[1], 0u, "elements left: %zu", t->state_size[1]);
    wt_close(t);
}

Test(custom_trigger, count_sessions_merge_their_counts)
{
    weir_window_spec s = {.assigner = weir_window_session(10), .aggregate = sum_aggregate,
                          .out_size = sizeof(res), .trigger = {.custom = &count_trigger}};
    count_limit = 3;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_rec(t, "a", 2, 30);
    wt_rec(t, "a", 4, 15);
    wt_expect(t, &at, "");
    wt_rec(t, "a", 8, 9); /* [9,19) touches [0,10) and [15,25): 1 + 1 + 1 */
    wt_expect(t, &at, "R 24 a 13 [0,25) n=3 f=0\n");
    wt_close(t);
}

/* Processing-time sessions (on the job clock): a count trigger that sums
 * the merged sessions' counts, and the session's own end on the clock. */
Test(custom_trigger, count_on_processing_time_sessions)
{
    weir_window_spec s = {.assigner = weir_window_processing_session(10),
                          .aggregate = sum_aggregate, .out_size = sizeof(res),
                          .trigger = {.custom = &count_trigger}};
    count_limit = 3;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 1000); /* now 0: [0,10) */
    wt_advance(t, 30);
    wt_rec(t, "a", 2, 1000); /* [30,40): [0,10) was cleaned up at 9 */
    wt_advance(t, 45);
    wt_expect(t, &at, ""); /* a count of 1 each: nothing fired */
    wt_close(t);
    t = wt_open(&s);
    at = 0;
    wt_rec(t, "a", 1, 0);    /* [0,10) */
    wt_advance(t, 8);
    wt_rec(t, "a", 2, 0);    /* [8,18): merged [0,18), count 2 */
    wt_advance(t, 12);
    wt_rec(t, "a", 4, 0);    /* [12,22): in it, count 3: fires */
    wt_expect(t, &at, "R 21 a 7 [0,22) n=3 f=0\n");
    wt_close(t);
}

Test(custom_trigger, sessions_without_on_merge_are_refused)
{
    weir_trigger_vtable v = count_trigger;
    v.on_merge = NULL;
    weir_window_spec s = {.assigner = weir_window_session(10), .aggregate = sum_aggregate,
                          .out_size = sizeof(res), .trigger = {.custom = &v}};
    weir_process_spec ps;
    char why[256];
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "session windows merge, so the trigger needs on_merge"), "%s", why);
    s.assigner = weir_window_cumulative(10, 5, 0);
    s.trigger.custom = &count_trigger;
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), WEIR_EINVAL);
    s.assigner = weir_window_tumbling(10, 0);
    s.trigger.kind = WEIR_TRIGGER_COUNT;
    s.trigger.count = 3;
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "a custom trigger takes kind DEFAULT and count 0"), "%s", why);
}

/* ---- ContinuousEventTimeTrigger.of(30) ---------------------------------------- */

typedef struct cont_state {
    int64_t next; /* the next early firing's time; 0: none */
} cont_state;

static const int64_t interval = 30;

static int cont_element(weir_trigger_ctx *tc, const void *elem, int64_t ts)
{
    (void)elem;
    cont_state *st = tc->state;
    if (tc->max_timestamp <= tc->watermark)
        return WEIR_TRIGGER_FIRE;
    int r = weir_trigger_register(tc, WEIR_EVENT_TIME, tc->max_timestamp);
    if (r == 0 && st->next == 0) {
        int64_t start = ts - (((ts % interval) + interval) % interval);
        st->next = start + interval;
        r = weir_trigger_register(tc, WEIR_EVENT_TIME, st->next);
    }
    return r < 0 ? r : WEIR_TRIGGER_CONTINUE;
}

static int cont_time(weir_trigger_ctx *tc, int64_t time)
{
    cont_state *st = tc->state;
    if (time == tc->max_timestamp)
        return WEIR_TRIGGER_FIRE;
    if (st->next == time) {
        st->next = time + interval;
        int r = weir_trigger_register(tc, WEIR_EVENT_TIME, st->next);
        return r < 0 ? r : WEIR_TRIGGER_FIRE;
    }
    return WEIR_TRIGGER_CONTINUE;
}

static void cont_clear(weir_trigger_ctx *tc)
{
    cont_state *st = tc->state;
    if (st->next)
        weir_trigger_delete(tc, WEIR_EVENT_TIME, st->next);
    weir_trigger_delete(tc, WEIR_EVENT_TIME, tc->max_timestamp);
}

static const weir_trigger_vtable continuous = {
    .version = WEIR_TRIGGER_VTABLE_V1,
    .state_size = sizeof(cont_state),
    .on_element = cont_element,
    .on_event_time = cont_time,
    .clear = cont_clear,
};

Test(custom_trigger, continuous_event_time_fires_every_interval_then_at_the_end)
{
    weir_window_spec s = wt_tumbling_sum(100, 0);
    s.trigger.custom = &continuous;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 5);
    wt_rec(t, "a", 2, 20);
    wt_wm(t, 29);
    wt_expect(t, &at, "W 29\n");
    wt_wm(t, 30); /* the first interval */
    wt_expect(t, &at, "R 99 a 3 [0,100) n=2 f=0\nW 30\n");
    wt_rec(t, "a", 4, 40);
    wt_wm(t, 75); /* 60 */
    wt_expect(t, &at, "R 99 a 7 [0,100) n=3 f=1\nW 75\n");
    wt_wm(t, 99); /* 90, then the window's end */
    wt_expect(t, &at, "R 99 a 7 [0,100) n=3 f=2\nR 99 a 7 [0,100) n=3 f=3\nW 99\n");
    wt_wm(t, 500); /* cleared: nothing more */
    wt_expect(t, &at, "W 500\n");
    wt_close(t);
}

/* ---- PurgingTrigger and the trigger's own PURGE --------------------------------- */

Test(custom_trigger, purging_makes_every_fire_a_fire_and_purge)
{
    weir_window_spec s = {.assigner = weir_window_global(), .aggregate = sum_aggregate,
                          .out_size = sizeof(res),
                          .trigger = {.custom = &count_trigger, .purging = true}};
    count_limit = 3;
    wt *t = wt_open(&s);
    size_t at = 0;
    for (int i = 1; i <= 7; i++)
        wt_rec(t, "a", i, i * 1000);
    wt_end(t);
    wt_expect(t, &at,
              "R 9223372036854775807 a 6 [-9223372036854775808,9223372036854775807) n=3 f=0\n"
              "R 9223372036854775807 a 15 [-9223372036854775808,9223372036854775807) n=3 f=1\n"
              "W 9223372036854775807\n");
    wt_close(t);
}

/* Fires and purges on a value of 100 or more, purges without firing on a
 * negative value, else continues. */
static int answer_element(weir_trigger_ctx *tc, const void *elem, int64_t ts)
{
    (void)tc;
    (void)ts;
    int64_t v = ((const ev *)elem)->value;
    return v >= 100 ? WEIR_TRIGGER_FIRE_AND_PURGE : v < 0 ? WEIR_TRIGGER_PURGE
                                                          : WEIR_TRIGGER_CONTINUE;
}

static const weir_trigger_vtable answers = {.version = WEIR_TRIGGER_VTABLE_V1,
                                            .on_element = answer_element};

Test(custom_trigger, fire_and_purge_and_purge_alone)
{
    weir_window_spec s = {.assigner = weir_window_global(), .process = sum_process,
                          .out_size = sizeof(res), .trigger = {.custom = &answers}};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 1);
    wt_rec(t, "a", 2, 2);
    wt_rec(t, "a", 100, 3);
    wt_expect(t, &at,
              "R 9223372036854775807 a 103 [-9223372036854775808,9223372036854775807) n=3 f=0\n");
    wt_rec(t, "a", 5, 4);
    wt_rec(t, "a", -1, 5); /* purged, nothing emitted */
    wt_rec(t, "a", 7, 6);
    wt_rec(t, "a", 200, 7);
    wt_expect(t, &at,
              "R 9223372036854775807 a 207 [-9223372036854775808,9223372036854775807) n=2 f=1\n");
    wt_close(t);
}

/* ---- DeltaTrigger.of(3, |a - b|) ---------------------------------------------- */

static double value_delta(const void *a, const void *b, void *arg)
{
    (void)arg;
    double d = (double)(((const ev *)a)->value - ((const ev *)b)->value);
    return d < 0 ? -d : d;
}

typedef struct delta_state {
    int64_t has;
    ev last;
} delta_state;

static int delta_element(weir_trigger_ctx *tc, const void *elem, int64_t ts)
{
    (void)ts;
    delta_state *st = tc->state;
    if (!st->has) {
        st->has = 1;
        memcpy(&st->last, elem, sizeof st->last);
        return WEIR_TRIGGER_CONTINUE;
    }
    if (value_delta(&st->last, elem, NULL) > 3) {
        memcpy(&st->last, elem, sizeof st->last);
        return WEIR_TRIGGER_FIRE;
    }
    return WEIR_TRIGGER_CONTINUE;
}

static const weir_trigger_vtable delta_trigger = {.version = WEIR_TRIGGER_VTABLE_V1,
                                                  .state_size = sizeof(delta_state),
                                                  .on_element = delta_element};

Test(custom_trigger, delta_fires_when_the_value_moved_past_the_threshold)
{
    weir_window_spec s = {.assigner = weir_window_global(), .process = sum_process,
                          .out_size = sizeof(res),
                          .trigger = {.custom = &delta_trigger, .purging = true}};
    wt *t = wt_open(&s);
    size_t at = 0;
    static const int64_t vals[] = {1, 2, 4, 5, 6, 9, 10, 20};
    for (int i = 0; i < 8; i++)
        wt_rec(t, "a", vals[i], i);
    /* 1 is the reference; 5 (delta 4) fires 2+4+5 (1 too), 9 fires, 20 fires */
    wt_expect(t, &at,
              "R 9223372036854775807 a 12 [-9223372036854775808,9223372036854775807) n=4 f=0\n"
              "R 9223372036854775807 a 15 [-9223372036854775808,9223372036854775807) n=2 f=1\n"
              "R 9223372036854775807 a 30 [-9223372036854775808,9223372036854775807) n=2 f=2\n");
    wt_close(t);
}

/* ---- processing time -------------------------------------------------------- */

/* Fires event-time windows early, every 10 ms of processing time, and at
 * their end. */
static int early_element(weir_trigger_ctx *tc, const void *elem, int64_t ts)
{
    (void)elem;
    (void)ts;
    int r = weir_trigger_register(tc, WEIR_EVENT_TIME, tc->max_timestamp);
    if (r == 0)
        r = weir_trigger_register(tc, WEIR_PROCESSING_TIME, (tc->now / 10 + 1) * 10);
    return r < 0 ? r : WEIR_TRIGGER_CONTINUE;
}

static int early_event(weir_trigger_ctx *tc, int64_t time)
{
    return time == tc->max_timestamp ? WEIR_TRIGGER_FIRE : WEIR_TRIGGER_CONTINUE;
}

static int early_proc(weir_trigger_ctx *tc, int64_t time)
{
    (void)tc;
    (void)time;
    return WEIR_TRIGGER_FIRE;
}

static void early_clear(weir_trigger_ctx *tc)
{
    weir_trigger_delete(tc, WEIR_EVENT_TIME, tc->max_timestamp);
}

static const weir_trigger_vtable early = {.version = WEIR_TRIGGER_VTABLE_V1,
                                          .on_element = early_element,
                                          .on_event_time = early_event,
                                          .on_processing_time = early_proc,
                                          .clear = early_clear};

Test(custom_trigger, processing_time_timers_in_event_time_windows)
{
    weir_window_spec s = wt_tumbling_sum(100, 0);
    s.trigger.custom = &early;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 5);
    wt_advance(t, 10);
    wt_expect(t, &at, "R 99 a 1 [0,100) n=1 f=0\n");
    wt_rec(t, "a", 2, 6);
    wt_advance(t, 15);
    wt_expect(t, &at, "");
    wt_advance(t, 20);
    wt_expect(t, &at, "R 99 a 3 [0,100) n=2 f=1\n");
    wt_wm(t, 99);
    wt_expect(t, &at, "R 99 a 3 [0,100) n=2 f=2\nW 99\n");
    wt_close(t);
}

/* ---- evictors ----------------------------------------------------------------- */

static wt *evicting(weir_window_evictor e, int64_t count)
{
    weir_window_spec s = {.assigner = weir_window_global(), .process = sum_process,
                          .out_size = sizeof(res),
                          .trigger = {.kind = WEIR_TRIGGER_COUNT, .count = count},
                          .evictor = e};
    return wt_open(&s);
}

#define G "[-9223372036854775808,9223372036854775807)"
#define R "R 9223372036854775807 a "

Test(evictor, count_before_keeps_the_last_n)
{
    wt *t = evicting((weir_window_evictor){.kind = WEIR_EVICTOR_COUNT, .count = 2}, 3);
    size_t at = 0;
    for (int i = 1; i <= 6; i++)
        wt_rec(t, "a", i, i);
    /* 1,2,3 -> 2,3 (5); then 2,3 + 4,5,6 fires at 3 more -> 5,6 (11) */
    wt_expect(t, &at, R "5 " G " n=2 f=0\n" R "11 " G " n=2 f=1\n");
    wt_close(t);
}

Test(evictor, count_after_evicts_for_the_next_firing)
{
    wt *t = evicting((weir_window_evictor){.kind = WEIR_EVICTOR_COUNT, .count = 1, .after = true},
                     2);
    size_t at = 0;
    for (int i = 1; i <= 4; i++)
        wt_rec(t, "a", i, i);
    /* 1,2 fire (3), 2 stays; 2,3,4 fire (9), 4 stays */
    wt_expect(t, &at, R "3 " G " n=2 f=0\n" R "9 " G " n=3 f=1\n");
    wt_close(t);
}

Test(evictor, time_keeps_what_is_within_the_newest_timestamp_less_the_time)
{
    wt *t = evicting((weir_window_evictor){.kind = WEIR_EVICTOR_TIME, .time_ms = 10}, 4);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_rec(t, "a", 2, 5);
    wt_rec(t, "a", 4, 12);
    wt_rec(t, "a", 8, 15); /* newest 15: cutoff 5, so 0 and 5 go */
    wt_expect(t, &at, R "12 " G " n=2 f=0\n");
    wt_close(t);
}

static double ev_delta(const void *a, const void *b, void *arg)
{
    return value_delta(a, b, arg);
}

Test(evictor, delta_removes_what_is_far_from_the_last_element)
{
    wt *t = evicting(
        (weir_window_evictor){.kind = WEIR_EVICTOR_DELTA, .threshold = 5, .delta = ev_delta}, 4);
    size_t at = 0;
    wt_rec(t, "a", 1, 1);
    wt_rec(t, "a", 9, 2);
    wt_rec(t, "a", 5, 3);
    wt_rec(t, "a", 10, 4); /* |v - 10| >= 5 goes: 1 and 5 */
    wt_expect(t, &at, R "19 " G " n=2 f=0\n");
    wt_close(t);
}

Test(evictor, under_the_event_time_trigger_on_sliding_windows)
{
    weir_window_spec s = {.assigner = weir_window_sliding(20, 10, 0), .aggregate = sum_aggregate,
                          .out_size = sizeof(res),
                          .evictor = {.kind = WEIR_EVICTOR_COUNT, .count = 1}};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 5);
    wt_rec(t, "a", 2, 12);
    wt_rec(t, "a", 4, 15);
    wt_wm(t, 29);
    /* each window keeps its last element: [-10,10) 1; [0,20) 4; [10,30) 4 */
    wt_expect(t, &at, "R 9 a 1 [-10,10) n=1 f=0\nR 19 a 4 [0,20) n=1 f=0\n"
                      "R 29 a 4 [10,30) n=1 f=0\nW 29\n");
    wt_close(t);
}

Test(evictor, bad_settings_are_refused)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    weir_process_spec ps;
    char why[256];
    s.evictor = (weir_window_evictor){.kind = WEIR_EVICTOR_COUNT};
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "the count evictor needs a count > 0"), "%s", why);
    s.evictor = (weir_window_evictor){.kind = WEIR_EVICTOR_DELTA, .threshold = 1};
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "the delta evictor needs a delta function"), "%s", why);
}
