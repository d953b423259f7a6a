/* test_window_triggers.c — when windows fire (SEMANTICS.md 6-7), through
 * the harness: the event-time trigger fires at watermark >= window.max and
 * not before, every firing for a watermark reaches downstream before that
 * watermark, timers fire in timestamp order; accumulating versus purging
 * late firings; the count trigger (per window, on tumbling, sliding, global
 * and session windows, with and without purging); the processing-time
 * trigger; end of input on the global window.
 */
#include <criterion/criterion.h>

#include "test_window_util.h"

Test(event_trigger, fires_at_max_not_before_and_before_the_watermark)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_rec(t, "a", 2, 10);
    wt_rec(t, "a", 4, 20);
    wt_wm(t, 8);
    wt_expect(t, &at, "W 8\n");
    /* one watermark fires three windows, in timestamp order, then goes on */
    wt_wm(t, 29);
    cr_assert_eq(t->n - at, 4u);
    cr_assert_eq(t->items[at].ts, 9);
    cr_assert_eq(t->items[at + 1].ts, 19);
    cr_assert_eq(t->items[at + 2].ts, 29);
    cr_assert_eq(t->items[at + 3].what, 3);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nR 19 a 2 [10,20) n=1 f=0\nR 29 a 4 [20,30) n=1 f=0\n"
                      "W 29\n");
    wt_close(t);
}

Test(event_trigger, equal_watermark_is_not_forwarded_twice)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_wm(t, 5);
    wt_wm(t, 5);
    wt_wm(t, 4);
    wt_expect(t, &at, "W 5\n");
    wt_close(t);
}

Test(event_trigger, accumulating_late_firings_include_everything)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    s.allowed_lateness_ms = 100;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 3);
    wt_wm(t, 9);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nW 9\n");
    wt_rec(t, "a", 2, 4);
    wt_expect(t, &at, "R 9 a 3 [0,10) n=2 f=1 late\n");
    wt_rec(t, "a", 4, 5);
    wt_expect(t, &at, "R 9 a 7 [0,10) n=3 f=2 late\n");
    wt_close(t);
}

Test(purging_trigger, late_firings_hold_only_what_came_after)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    s.allowed_lateness_ms = 100;
    s.trigger.purging = true;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 3);
    wt_rec(t, "a", 8, 6);
    wt_wm(t, 9);
    wt_expect(t, &at, "R 9 a 9 [0,10) n=2 f=0\nW 9\n");
    wt_rec(t, "a", 2, 4);
    wt_expect(t, &at, "R 9 a 2 [0,10) n=1 f=1 late\n");
    wt_rec(t, "a", 4, 5);
    wt_expect(t, &at, "R 9 a 4 [0,10) n=1 f=2 late\n");
    /* the purged window fires nothing at cleanup */
    wt_wm(t, 109);
    wt_expect(t, &at, "W 109\n");
    wt_close(t);
}

Test(purging_trigger, sliding_panes_purge_per_window)
{
    weir_window_spec s = {.assigner = weir_window_sliding(10, 5, 0), .aggregate = sum_aggregate,
                          .out_size = sizeof(res), .allowed_lateness_ms = 20,
                          .trigger = {.purging = true}};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 7);  /* [0,10) [5,15) */
    wt_wm(t, 9);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nW 9\n");
    wt_rec(t, "a", 2, 8);  /* [0,10) fires late with just 2; [5,15) waits, holding 1 and 2 */
    wt_expect(t, &at, "R 9 a 2 [0,10) n=1 f=1 late\n");
    wt_wm(t, 14);
    wt_expect(t, &at, "R 14 a 3 [5,15) n=2 f=0\nW 14\n");
    wt_rec(t, "a", 4, 9);  /* both late-fire, each with only 4 */
    wt_expect(t, &at, "R 9 a 4 [0,10) n=1 f=2 late\nR 14 a 4 [5,15) n=1 f=1 late\n");
    wt_close(t);
}

Test(count_trigger, fires_every_n_per_window)
{
    weir_window_spec s = wt_tumbling_sum(100, 0);
    s.trigger = (weir_window_trigger){.kind = WEIR_TRIGGER_COUNT, .count = 2};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 1);
    wt_rec(t, "b", 1, 1);
    wt_rec(t, "a", 2, 2);
    wt_expect(t, &at, "R 99 a 3 [0,100) n=2 f=0\n");
    wt_rec(t, "a", 4, 3);
    wt_rec(t, "a", 8, 150); /* another window, its own count */
    wt_rec(t, "a", 16, 4);
    wt_expect(t, &at, "R 99 a 23 [0,100) n=4 f=1\n");
    /* not on time: the watermark passing max fires nothing */
    wt_wm(t, 500);
    wt_expect(t, &at, "W 500\n");
    wt_close(t);
}

Test(count_trigger, purging_count_on_the_global_window)
{
    weir_window_spec s = {.assigner = weir_window_global(), .aggregate = sum_aggregate,
                          .out_size = sizeof(res),
                          .trigger = {.kind = WEIR_TRIGGER_COUNT, .count = 3, .purging = true}};
    wt *t = wt_open(&s);
    size_t at = 0;
    for (int i = 1; i <= 7; i++)
        wt_rec(t, "a", i, i * 1000);
    wt_end(t);
    /* 1+2+3, 4+5+6; the 7 left over never fires (count triggers do not
     * fire on time, not even at the end) */
    wt_expect(t, &at,
              "R 9223372036854775807 a 6 [-9223372036854775808,9223372036854775807) n=3 f=0\n"
              "R 9223372036854775807 a 15 [-9223372036854775808,9223372036854775807) n=3 f=1\n"
              "W 9223372036854775807\n");
    wt_close(t);
}

Test(count_trigger, sliding_windows_count_each_window)
{
    weir_window_spec s = {.assigner = weir_window_sliding(10, 5, 0), .aggregate = sum_aggregate,
                          .out_size = sizeof(res),
                          .trigger = {.kind = WEIR_TRIGGER_COUNT, .count = 2}};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 7);  /* [0,10):1 [5,15):1 */
    wt_rec(t, "a", 2, 12); /* [5,15):2 fires; [10,20):1 */
    wt_expect(t, &at, "R 14 a 3 [5,15) n=2 f=0\n");
    wt_rec(t, "a", 4, 2);  /* [-5,5):1 [0,10):2 fires */
    wt_expect(t, &at, "R 9 a 5 [0,10) n=2 f=0\n");
    wt_close(t);
}

Test(count_trigger, sessions_merge_their_counts)
{
    weir_window_spec s = {.assigner = weir_window_session(10), .aggregate = sum_aggregate,
                          .out_size = sizeof(res),
                          .trigger = {.kind = WEIR_TRIGGER_COUNT, .count = 3}};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);   /* [0,10) count 1 */
    wt_rec(t, "a", 2, 30);  /* [30,40) count 1 */
    wt_expect(t, &at, "");
    wt_rec(t, "a", 4, 15);  /* [15,25) bridges nothing: [0,10) ends at 10 < 15 */
    wt_expect(t, &at, "");
    wt_rec(t, "a", 8, 9);   /* [9,19) touches [0,10) and [15,25): merged count 3 */
    wt_expect(t, &at, "R 24 a 13 [0,25) n=3 f=0\n");
    wt_close(t);
}

Test(processing_trigger, processing_time_windows_fire_on_the_clock)
{
    weir_window_spec s = {.assigner = weir_window_processing_tumbling(10, 0),
                          .trigger = {.kind = WEIR_TRIGGER_PROCESSING_TIME},
                          .aggregate = sum_aggregate, .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_rec(t, "b", 2, 0);
    wt_advance(t, 8);
    wt_expect(t, &at, "");
    wt_advance(t, 9);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nR 9 b 2 [0,10) n=1 f=0\n");
    wt_close(t);
}

/* Processing-time sessions: an element opens [now, now + gap) of the job
 * clock, sessions that touch merge, and a session fires when the clock
 * reaches its end - 1 (Flink's ProcessingTimeSessionWindows). */
Test(processing_trigger, processing_time_sessions_merge_and_fire_on_the_clock)
{
    weir_window_spec s = {.assigner = weir_window_processing_session(10),
                          .aggregate = sum_aggregate, .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_advance(t, 5);
    wt_rec(t, "a", 2, 0); /* [5, 15) touches [0, 10): [0, 15) */
    wt_rec(t, "b", 4, 0);
    wt_advance(t, 13);
    wt_expect(t, &at, "");
    wt_advance(t, 14);
    wt_expect(t, &at, "R 14 a 3 [0,15) n=2 f=0\nR 14 b 4 [5,15) n=1 f=0\n");
    wt_advance(t, 30);
    wt_rec(t, "a", 8, 0);
    wt_advance(t, 39);
    wt_expect(t, &at, "R 39 a 8 [30,40) n=1 f=0\n");
    wt_close(t);
}

/* Processing-time cumulative windows: each step's window fires when the
 * clock reaches its end - 1, with what the period holds so far. */
Test(processing_trigger, processing_time_cumulative_windows_fire_each_step)
{
    weir_window_spec s = {.assigner = weir_window_processing_cumulative(20, 10, 0),
                          .aggregate = sum_aggregate, .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_advance(t, 9);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\n");
    wt_advance(t, 12);
    wt_rec(t, "a", 2, 0);
    wt_advance(t, 19);
    wt_expect(t, &at, "R 19 a 3 [0,20) n=2 f=0\n");
    wt_advance(t, 25);
    wt_rec(t, "a", 4, 0); /* the next period: [20, 30) and [20, 40) */
    wt_advance(t, 40);
    wt_expect(t, &at, "R 29 a 4 [20,30) n=1 f=0\nR 39 a 4 [20,40) n=1 f=0\n");
    wt_close(t);
}

Test(processing_trigger, count_on_processing_time_windows)
{
    weir_window_spec s = {.assigner = weir_window_processing_tumbling(10, 0),
                          .trigger = {.kind = WEIR_TRIGGER_COUNT, .count = 2},
                          .aggregate = sum_aggregate, .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_rec(t, "a", 2, 0);
    wt_expect(t, &at, "R 9 a 3 [0,10) n=2 f=0\n");
    wt_rec(t, "a", 4, 0);
    wt_advance(t, 100); /* cleaned up at 9 without firing the odd one */
    wt_rec(t, "a", 8, 0);
    wt_rec(t, "a", 16, 0);
    wt_expect(t, &at, "R 109 a 24 [100,110) n=2 f=0\n");
    wt_close(t);
}

Test(end_of_input_trigger, global_window)
{
    weir_window_spec s = {.assigner = weir_window_global(),
                          .trigger = {.kind = WEIR_TRIGGER_END_OF_INPUT},
                          .reduce = sum_reduce};
    weir_process_spec ps;
    char why[256];
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), 0, "%s", why);
    ps.impl_free(ps.impl);
    /* on a time window it would never fire: refused */
    s.assigner = weir_window_tumbling(10, 0);
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), WEIR_EINVAL);
    tu_assert_contains(why, "end-of-input", "global");
}
