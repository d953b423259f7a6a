/* test_window_assigners.c — which windows an element belongs to, per
 * assigner (SEMANTICS.md 7), through the harness with explicit watermarks:
 * tumbling with offsets and negative timestamps (floor-mod starts), sliding
 * windows (also with a size that is not a multiple of the slide, gaps when
 * the slide exceeds the size, offsets), the global window, processing-time
 * tumbling and sliding windows on the harness's virtual clock, and windows at
 * the very ends of time (no overflow, no wrap-around).
 *
 * Every result line is "R TS KEY SUM [START,END) n=COUNT f=FIRING": the
 * timestamp is always window.max: END - 1, or MAX for a window whose end
 * would pass MAX (then END is MAX).
 */
#include <criterion/criterion.h>

#include "test_window_util.h"

Test(tumbling, one_window_per_element_fired_at_max)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_rec(t, "a", 2, 9);
    wt_rec(t, "b", 4, 5);
    wt_rec(t, "a", 8, 10);
    wt_wm(t, 8);
    wt_expect(t, &at, "W 8\n");
    /* watermark = max: fires; results come before the watermark */
    wt_wm(t, 9);
    wt_expect(t, &at, "R 9 a 3 [0,10) n=2 f=0\nR 9 b 4 [0,10) n=1 f=0\nW 9\n");
    wt_wm(t, 100);
    wt_expect(t, &at, "R 19 a 8 [10,20) n=1 f=0\nW 100\n");
    wt_end(t);
    wt_expect(t, &at, "W 9223372036854775807\n");
    wt_close(t);
}

Test(tumbling, negative_timestamps_floor)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, -1);   /* [-10, 0) */
    wt_rec(t, "a", 2, -10);  /* [-10, 0) */
    wt_rec(t, "a", 4, -11);  /* [-20, -10) */
    wt_rec(t, "a", 8, 0);    /* [0, 10) */
    wt_end(t);
    wt_expect(t, &at,
              "R -11 a 4 [-20,-10) n=1 f=0\nR -1 a 3 [-10,0) n=2 f=0\nR 9 a 8 [0,10) n=1 f=0\n"
              "W 9223372036854775807\n");
    wt_close(t);
}

Test(tumbling, offsets_positive_and_negative)
{
    weir_window_spec s = wt_tumbling_sum(10, 3);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 2);    /* [-7, 3) */
    wt_rec(t, "a", 2, 3);    /* [3, 13) */
    wt_rec(t, "a", 4, 12);   /* [3, 13) */
    wt_rec(t, "a", 8, -8);   /* [-17, -7) */
    wt_end(t);
    wt_expect(t, &at,
              "R -8 a 8 [-17,-7) n=1 f=0\nR 2 a 1 [-7,3) n=1 f=0\nR 12 a 6 [3,13) n=2 f=0\n"
              "W 9223372036854775807\n");
    wt_close(t);

    s = wt_tumbling_sum(10, -3); /* starts at 7 + 10k */
    t = wt_open(&s);
    at = 0;
    wt_rec(t, "a", 1, 6);    /* [-3, 7) */
    wt_rec(t, "a", 2, 7);    /* [7, 17) */
    wt_rec(t, "a", 4, -4);   /* [-13, -3) */
    wt_end(t);
    wt_expect(t, &at,
              "R -4 a 4 [-13,-3) n=1 f=0\nR 6 a 1 [-3,7) n=1 f=0\nR 16 a 2 [7,17) n=1 f=0\n"
              "W 9223372036854775807\n");
    wt_close(t);
}

Test(tumbling, keys_are_separate)
{
    weir_window_spec s = wt_tumbling_sum(100, 0);
    wt *t = wt_open(&s);
    size_t at = 0;
    for (int k = 0; k < 50; k++) {
        char key[8];
        snprintf(key, sizeof key, "k%d", k);
        for (int i = 0; i <= k; i++)
            wt_rec(t, key, 1, i);
    }
    wt_wm(t, 99);
    cr_assert_eq(t->n, 51u);
    for (size_t i = 0; i < 50; i++) {
        int k = atoi(t->items[i].r.key + 1);
        cr_assert_eq(t->items[i].r.value, k + 1, "key %s", t->items[i].r.key);
    }
    (void)at;
    wt_close(t);
}

Test(sliding, each_element_in_size_over_slide_windows)
{
    weir_window_spec s = {.assigner = weir_window_sliding(10, 5, 0), .aggregate = sum_aggregate,
                          .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 7);    /* [0,10) [5,15) */
    wt_rec(t, "a", 2, 12);   /* [5,15) [10,20) */
    wt_rec(t, "a", 4, -1);   /* [-10,0) [-5,5) */
    wt_wm(t, 9);
    wt_expect(t, &at, "R -1 a 4 [-10,0) n=1 f=0\nR 4 a 4 [-5,5) n=1 f=0\nR 9 a 1 [0,10) n=1 f=0\n"
                      "W 9\n");
    wt_end(t);
    wt_expect(t, &at, "R 14 a 3 [5,15) n=2 f=0\nR 19 a 2 [10,20) n=1 f=0\n"
                      "W 9223372036854775807\n");
    wt_close(t);
}

Test(sliding, size_not_a_multiple_of_the_slide)
{
    /* size 10 every 4: panes of 2; ts 7 is in [4,14) and [0,10) */
    weir_window_spec s = {.assigner = weir_window_sliding(10, 4, 0), .aggregate = sum_aggregate,
                          .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 7);
    wt_rec(t, "a", 2, 1);    /* [-8,2) [-4,6) [0,10) */
    wt_rec(t, "a", 4, 13);   /* [4,14) [8,18) [12,22) */
    wt_end(t);
    wt_expect(t, &at,
              "R 1 a 2 [-8,2) n=1 f=0\nR 5 a 2 [-4,6) n=1 f=0\nR 9 a 3 [0,10) n=2 f=0\n"
              "R 13 a 5 [4,14) n=2 f=0\nR 17 a 4 [8,18) n=1 f=0\nR 21 a 4 [12,22) n=1 f=0\n"
              "W 9223372036854775807\n");
    wt_close(t);
}

Test(sliding, offset_and_gaps_when_slide_exceeds_size)
{
    /* windows of 3 every 10 from 1: [1,4), [11,14), ...: ts 5 is in none */
    weir_window_spec s = {.assigner = weir_window_sliding(3, 10, 1), .aggregate = sum_aggregate,
                          .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 1);
    wt_rec(t, "a", 2, 3);
    wt_rec(t, "a", 4, 5);    /* between windows: filtered, not late */
    wt_rec(t, "a", 8, 13);
    wt_rec(t, "a", 16, -9);  /* [-9,-6) */
    wt_end(t);
    wt_expect(t, &at, "R -7 a 16 [-9,-6) n=1 f=0\nR 3 a 3 [1,4) n=2 f=0\nR 13 a 8 [11,14) n=1 f=0\n"
                      "W 9223372036854775807\n");
    wt_close(t);
}

Test(sliding, one_hour_by_one_second_equals_brute_force)
{
    /* 3600 overlapping windows per element: results must equal a direct
     * per-window sum. */
    weir_window_spec s = {.assigner = weir_window_sliding(3600, 1, 0), .aggregate = sum_aggregate,
                          .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    int64_t ts[] = {0, 5, 17, 3000, 3599, 3600, 7000};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        wt_rec(t, "a", 1 << i, ts[i]);
    wt_end(t);
    size_t results = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->items[i].what != 0)
            continue;
        const res *r = &t->items[i].r;
        int64_t want = 0, n = 0;
        for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++) {
            if (ts[j] >= r->start && ts[j] < r->end) {
                want += 1 << j;
                n++;
            }
        }
        cr_assert_eq(r->value, want, "window [%lld,%lld)", (long long)r->start, (long long)r->end);
        cr_assert_eq(r->count, n);
        cr_assert_eq(t->items[i].ts, r->end - 1);
        results++;
    }
    /* every window [s, s + 3600) with s in (-3600, 7000] that holds an element */
    size_t want_results = 0;
    for (int64_t st = -3599; st <= 7000; st++) {
        for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++) {
            if (ts[j] >= st && ts[j] < st + 3600) {
                want_results++;
                break;
            }
        }
    }
    cr_assert_eq(results, want_results);
    wt_close(t);
}

Test(global, fires_once_at_end_of_input_with_max)
{
    weir_window_spec s = {.assigner = weir_window_global(), .aggregate = sum_aggregate,
                          .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 5);
    wt_rec(t, "a", 2, -500);
    wt_rec(t, "b", 4, 1000000);
    wt_wm(t, 9223372036854775806);
    wt_expect(t, &at, "W 9223372036854775806\n");
    wt_end(t);
    wt_expect(t, &at,
              "R 9223372036854775807 a 3 [-9223372036854775808,9223372036854775807) n=2 f=0\n"
              "R 9223372036854775807 b 4 [-9223372036854775808,9223372036854775807) n=1 f=0\n"
              "W 9223372036854775807\n");
    wt_close(t);
}

Test(processing_time, tumbling_on_the_job_clock)
{
    weir_window_spec s = {.assigner = weir_window_processing_tumbling(100, 0),
                          .aggregate = sum_aggregate, .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 5000); /* now 0: [0,100), whatever the timestamp */
    wt_advance(t, 50);
    wt_rec(t, "a", 2, WEIR_NO_TIMESTAMP);
    wt_wm(t, 1000000); /* event time does not fire processing-time windows */
    wt_expect(t, &at, "W 1000000\n");
    wt_advance(t, 98);
    wt_expect(t, &at, "");
    wt_advance(t, 99);
    wt_expect(t, &at, "R 99 a 3 [0,100) n=2 f=0\n");
    wt_rec(t, "a", 4, 0); /* now 99: still [0,100) — but that window is gone: a new one */
    wt_advance(t, 250);
    wt_expect(t, &at, "R 99 a 4 [0,100) n=1 f=0\n");
    wt_rec(t, "a", 8, 0); /* now 250: [200,300) */
    wt_advance(t, 1000);
    wt_expect(t, &at, "R 299 a 8 [200,300) n=1 f=0\n");
    wt_close(t);
}

Test(processing_time, sliding_on_the_job_clock)
{
    weir_window_spec s = {.assigner = weir_window_processing_sliding(100, 50, 0),
                          .aggregate = sum_aggregate, .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_advance(t, 60);
    wt_rec(t, "a", 1, 0); /* [0,100) [50,150) */
    wt_advance(t, 120);
    wt_rec(t, "a", 2, 0); /* [50,150) [100,200) */
    wt_expect(t, &at, "R 99 a 1 [0,100) n=1 f=0\n");
    wt_advance(t, 1000);
    wt_expect(t, &at, "R 149 a 3 [50,150) n=2 f=0\nR 199 a 2 [100,200) n=1 f=0\n");
    wt_close(t);
}

Test(extremes, windows_at_the_ends_of_time_do_not_wrap)
{
    weir_window_spec s = wt_tumbling_sum(1000, 0);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, INT64_MIN + 1);
    wt_rec(t, "a", 2, INT64_MAX - 1);
    wt_rec(t, "a", 4, INT64_MAX);
    wt_end(t);
    /* The first window is the grid's [MIN - 192, MIN + 808): it starts at
     * MIN and keeps its end. The last, [MAX - 807, MAX + 193), ends at MAX
     * and covers MAX: its max (every result's timestamp) is MAX. */
    wt_expect(t, &at,
              "R -9223372036854775001 a 1 [-9223372036854775808,-9223372036854775000) n=1 f=0\n"
              "R 9223372036854775807 a 6 [9223372036854775000,9223372036854775807) n=2 f=0\n"
              "W 9223372036854775807\n");
    wt_close(t);

    /* Windows of MAX every MAX / 2: one begins before MIN, one ends exactly
     * at MAX (max MAX - 1), one ends after it (max MAX). */
    s = (weir_window_spec){.assigner = weir_window_sliding(INT64_MAX, INT64_MAX / 2, 0),
                           .aggregate = sum_aggregate, .out_size = sizeof(res)};
    t = wt_open(&s);
    at = 0;
    wt_rec(t, "a", 1, INT64_MIN + 5);
    wt_rec(t, "a", 2, INT64_MAX - 5);
    wt_rec(t, "a", 4, 0);
    wt_end(t);
    wt_expect(t, &at,
              "R -4611686018427387903 a 1 [-9223372036854775808,-4611686018427387902) n=1 f=0\n"
              "R 0 a 5 [-9223372036854775806,1) n=2 f=0\n"
              "R 4611686018427387903 a 4 [-4611686018427387903,4611686018427387904) n=1 f=0\n"
              "R 9223372036854775806 a 6 [0,9223372036854775807) n=2 f=0\n"
              "R 9223372036854775807 a 2 [4611686018427387903,9223372036854775807) n=1 f=0\n"
              "W 9223372036854775807\n");
    wt_close(t);
}

Test(extremes, an_element_at_max_is_on_time_until_the_watermark_is_max)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_wm(t, INT64_MAX - 1);
    wt_rec(t, "a", 1, INT64_MAX); /* [MAX - 7, MAX + 3): max MAX > MAX - 1 */
    wt_expect(t, &at, "W 9223372036854775806\n");
    wt_end(t);
    wt_expect(t, &at, "R 9223372036854775807 a 1 [9223372036854775800,9223372036854775807) n=1 "
                      "f=0\nW 9223372036854775807\n");
    wt_close(t);
}

/* MIN + 1 is in the two sliding windows [MIN - 692, MIN + 308) and
 * [MIN - 192, MIN + 808): both start at MIN. Each keeps its own contents,
 * fires and is cleaned up at its own time (the first at MIN + 407), and the
 * pane at MIN goes only with the second. */
static void two_windows_at_min(weir_window_spec s, const char *first, const char *last)
{
    s.assigner = weir_window_sliding(1000, 500, 0);
    s.allowed_lateness_ms = 100;
    s.out_size = sizeof(res);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, INT64_MIN + 1);
    wt_rec(t, "a", 2, INT64_MIN + 5);
    wt_rec(t, "a", 4, INT64_MIN + 400);
    wt_wm(t, INT64_MIN + 307);
    wt_expect(t, &at, first);
    wt_wm(t, INT64_MIN + 407);
    wt_expect(t, &at, "W -9223372036854775401\n");
    wt_rec(t, "a", 8, INT64_MIN + 2); /* too late for the first: the second only */
    wt_end(t);
    wt_expect(t, &at, last);
    wt_close(t);
}

Test(extremes, sliding_windows_that_begin_before_min_are_distinct)
{
    /* the panes engine */
    weir_window_spec s = {.aggregate = sum_aggregate};
    two_windows_at_min(
        s,
        "R -9223372036854775501 a 3 [-9223372036854775808,-9223372036854775500) n=2 f=0\n"
        "W -9223372036854775501\n",
        "R -9223372036854775001 a 15 [-9223372036854775808,-9223372036854775000) n=4 f=0\n"
        "R -9223372036854774501 a 4 [-9223372036854775500,-9223372036854774500) n=1 f=0\n"
        "W 9223372036854775807\n");
    /* a count trigger: state per window (the windows engine), and a process
     * function's elements per pane */
    const char *both = "R -9223372036854775501 a 3 [-9223372036854775808,-9223372036854775500) "
                       "n=2 f=0\nR -9223372036854775001 a 3 "
                       "[-9223372036854775808,-9223372036854775000) n=2 f=0\n"
                       "W -9223372036854775501\n";
    s.trigger = (weir_window_trigger){.kind = WEIR_TRIGGER_COUNT, .count = 2};
    const char *accumulating =
        "R -9223372036854775001 a 15 [-9223372036854775808,-9223372036854775000) n=4 f=1\n"
        "W 9223372036854775807\n";
    two_windows_at_min(s, both, accumulating);
    s.aggregate = (weir_aggregate_fns){0};
    s.process = sum_process;
    two_windows_at_min(s, both, accumulating);
    s.trigger.purging = true;
    two_windows_at_min(
        s, both,
        "R -9223372036854775001 a 12 [-9223372036854775808,-9223372036854775000) n=2 f=1\n"
        "W 9223372036854775807\n");
}

/* With size 1024 and offset 2 the window that begins before MIN, [MIN -
 * 1022, MIN + 2), and the one that ends after MAX, [MAX - 1021, MAX + 3),
 * are 2^64 apart: a namespace of 64 bits cannot tell their starts apart.
 * Both live at once, with their own state, timers and results. */
Test(extremes, windows_at_both_ends_at_once)
{
    weir_window_spec specs[3] = {
        {.aggregate = sum_aggregate},
        {.aggregate = sum_aggregate, .trigger = {.kind = WEIR_TRIGGER_COUNT, .count = 3}},
        {.process = sum_process, .trigger = {.kind = WEIR_TRIGGER_COUNT, .count = 3}},
    };
    for (int i = 0; i < 3; i++) {
        weir_window_spec s = specs[i];
        s.assigner = weir_window_tumbling(1024, 2);
        s.allowed_lateness_ms = 5;
        s.out_size = sizeof(res);
        wt *t = wt_open(&s);
        size_t at = 0;
        wt_rec(t, "a", 1, INT64_MIN + 1);
        wt_rec(t, "a", 2, INT64_MAX);
        wt_rec(t, "a", 4, INT64_MAX - 1);
        wt_rec(t, "a", 8, INT64_MIN + 1);
        wt_wm(t, INT64_MIN + 6); /* the first window's cleanup time: MIN + 1 + 5 */
        wt_rec(t, "a", 16, INT64_MIN + 1); /* late */
        wt_end(t);
        if (i == 0)
            wt_expect(t, &at,
                      "R -9223372036854775807 a 9 [-9223372036854775808,-9223372036854775806) "
                      "n=2 f=0\nW -9223372036854775802\nD -9223372036854775807 a 16\n"
                      "R 9223372036854775807 a 6 [9223372036854774786,9223372036854775807) n=2 "
                      "f=0\nW 9223372036854775807\n");
        else /* the count trigger fires neither (2 elements each) */
            wt_expect(t, &at, "W -9223372036854775802\nD -9223372036854775807 a 16\n"
                              "W 9223372036854775807\n");
        wt_close(t);
    }
}
