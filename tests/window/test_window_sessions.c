/* test_window_sessions.c — session windows (SEMANTICS.md 7), through the
 * harness: windows that intersect or touch merge into their cover, a bridge
 * merges two sessions, a merge moves the trigger to the new max (and the
 * absorbed sessions' timers never fire), a merge whose max the watermark
 * already passed fires at once, lateness and late sessions, purging, the
 * process function over merged element lists, reduce, and the state gone
 * after cleanup.
 */
#include <criterion/criterion.h>

#include "test_window_util.h"

static weir_window_spec sessions(int64_t gap)
{
    weir_window_spec s = {.assigner = weir_window_session(gap), .aggregate = sum_aggregate,
                          .out_size = sizeof(res)};
    return s;
}

Test(sessions, overlap_and_touch_merge_a_gap_does_not)
{
    weir_window_spec s = sessions(5);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);   /* [0,5) */
    wt_rec(t, "a", 2, 3);   /* [3,8) overlaps: [0,8) */
    wt_rec(t, "a", 4, 8);   /* [8,13) touches (8 <= 8): [0,13) */
    wt_rec(t, "a", 8, 14);  /* [14,19): 13 < 14, a gap */
    wt_rec(t, "b", 16, 1);  /* another key */
    wt_end(t);
    wt_expect(t, &at, "R 5 b 16 [1,6) n=1 f=0\nR 12 a 7 [0,13) n=3 f=0\nR 18 a 8 [14,19) n=1 f=0\n"
                      "W 9223372036854775807\n");
    wt_close(t);
}

Test(sessions, a_bridge_merges_two_and_moves_the_timer)
{
    weir_window_spec s = sessions(10);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);   /* [0,10): timer at 9 */
    wt_rec(t, "a", 2, 25);  /* [25,35): timer at 34 */
    wt_wm(t, 5);
    wt_rec(t, "a", 4, 12);  /* [12,22): separate */
    wt_rec(t, "a", 8, 8);   /* [8,18): bridges [0,10) and [12,22) into [0,22) */
    wt_wm(t, 9);
    wt_expect(t, &at, "W 5\nW 9\n");
    wt_wm(t, 20);
    wt_expect(t, &at, "W 20\n");
    wt_wm(t, 21);
    wt_expect(t, &at, "R 21 a 13 [0,22) n=3 f=0\nW 21\n");
    wt_wm(t, 40);
    wt_expect(t, &at, "R 34 a 2 [25,35) n=1 f=0\nW 40\n");
    wt_close(t);
}

Test(sessions, extending_a_session_moves_its_firing)
{
    weir_window_spec s = sessions(10);
    wt *t = wt_open(&s);
    size_t at = 0;
    for (int i = 0; i < 50; i += 5) /* one session growing: [0,55) */
        wt_rec(t, "a", 1, i);
    for (int w = 9; w < 54; w += 5)
        wt_wm(t, w);
    wt_expect(t, &at, "W 9\nW 14\nW 19\nW 24\nW 29\nW 34\nW 39\nW 44\nW 49\n");
    wt_wm(t, 54);
    wt_expect(t, &at, "R 54 a 10 [0,55) n=10 f=0\nW 54\n");
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 0u, "cleaned up with the firing (no lateness)");
    wt_close(t);
}

Test(sessions, a_merge_past_its_max_fires_at_once)
{
    weir_window_spec s = sessions(10);
    s.allowed_lateness_ms = 100;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);   /* [0,10) */
    wt_rec(t, "a", 2, 15);  /* [15,25) */
    wt_wm(t, 30);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nR 24 a 2 [15,25) n=1 f=0\nW 30\n");
    /* [9,19) bridges both; the cover [0,25) has max 24 <= 30 */
    wt_rec(t, "a", 4, 9);
    wt_expect(t, &at, "R 24 a 7 [0,25) n=3 f=1 late\n");
    wt_wm(t, 124);
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 0u, "cleaned up at 24 + 100");
    wt_expect(t, &at, "W 124\n");
    wt_close(t);
}

Test(sessions, a_merge_after_an_on_time_firing_waits_for_the_new_max)
{
    weir_window_spec s = sessions(10);
    s.allowed_lateness_ms = 20;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0); /* [0,10) */
    wt_wm(t, 9);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nW 9\n");
    /* [10,20) touches it: the cover [0,20) has max 19 > 9, so its timer
     * moves to 19 and it does not fire now */
    wt_rec(t, "a", 2, 10);
    wt_wm(t, 18);
    wt_expect(t, &at, "W 18\n");
    wt_wm(t, 19); /* its second firing, on time */
    wt_expect(t, &at, "R 19 a 3 [0,20) n=2 f=1\nW 19\n");
    wt_wm(t, 39); /* cleaned up at 19 + 20 (not at [0,10)'s 29) */
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 0u);
    wt_rec(t, "a", 4, 5);
    wt_expect(t, &at, "W 39\nD 5 a 4\n");
    wt_close(t);
}

Test(sessions, near_max_a_session_covers_max)
{
    weir_window_spec s = sessions(10);
    s.allowed_lateness_ms = 10;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, INT64_MAX);       /* [MAX, MAX): holds MAX, max MAX */
    wt_rec(t, "b", 2, INT64_MAX - 4);   /* [MAX - 4, MAX + 6): ends at MAX, max MAX */
    wt_rec(t, "c", 4, INT64_MAX - 12);  /* [MAX - 12, MAX - 2): max MAX - 3 */
    wt_rec(t, "c", 8, INT64_MAX - 3);   /* merges with it: [MAX - 12, MAX), max MAX */
    wt_rec(t, "d", 16, INT64_MAX - 20); /* [MAX - 20, MAX - 10): max MAX - 11 */
    wt_wm(t, INT64_MAX - 5);
    wt_expect(t, &at, "R 9223372036854775796 d 16 [9223372036854775787,9223372036854775797) n=1 "
                      "f=0\nW 9223372036854775802\n");
    /* [MAX - 15, MAX - 5) touches d's: the cover's max MAX - 6 has passed,
     * a late firing (its cleanup time overflows: never cleaned up) */
    wt_rec(t, "d", 32, INT64_MAX - 15);
    wt_expect(t, &at, "R 9223372036854775801 d 48 [9223372036854775787,9223372036854775802) n=2 "
                      "f=1 late\n");
    wt_rec(t, "a", 64, INT64_MAX);
    wt_end(t);
    wt_expect(t, &at,
              "R 9223372036854775807 a 65 [9223372036854775807,9223372036854775807) n=2 f=0\n"
              "R 9223372036854775807 b 2 [9223372036854775803,9223372036854775807) n=1 f=0\n"
              "R 9223372036854775807 c 12 [9223372036854775795,9223372036854775807) n=2 f=0\n"
              "W 9223372036854775807\n");
    wt_close(t);
}

Test(sessions, late_sessions_and_elements_that_touch_a_live_one)
{
    weir_window_spec s = sessions(10);
    s.allowed_lateness_ms = 5;
    s.late_tag = WEIR_WINDOW_LATE_TAG;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 100); /* [100,110) */
    wt_wm(t, 112);
    wt_expect(t, &at, "R 109 a 1 [100,110) n=1 f=0\nW 112\n");
    /* [50,60) alone: max 59 + 5 <= 112: late */
    wt_rec(t, "a", 2, 50);
    wt_expect(t, &at, "L 50 a 2\n");
    /* [95,105): its own cleanup 109 <= 112, but it touches the live
     * [100,110) (cleanup 114): joins it, a late firing */
    wt_rec(t, "a", 4, 95);
    wt_expect(t, &at, "R 109 a 5 [95,110) n=2 f=1 late\n");
    wt_wm(t, 114);
    /* [100,110) is gone; [90,100) is late, but [104,114) is a new session
     * still in its lateness (cleanup 118): it fires at once */
    wt_rec(t, "a", 8, 90);
    wt_rec(t, "a", 16, 104);
    wt_expect(t, &at, "W 114\nL 90 a 8\nR 113 a 16 [104,114) n=1 f=0 late\n");
    wt_close(t);
}

Test(sessions, purging_late_firings)
{
    weir_window_spec s = sessions(10);
    s.allowed_lateness_ms = 50;
    s.trigger.purging = true;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_rec(t, "a", 2, 5);
    wt_wm(t, 20);
    wt_expect(t, &at, "R 14 a 3 [0,15) n=2 f=0\nW 20\n");
    wt_rec(t, "a", 4, 7);
    wt_expect(t, &at, "R 16 a 4 [0,17) n=1 f=1 late\n");
    wt_close(t);
}

Test(sessions, process_sees_every_element_after_merges)
{
    weir_window_spec s = {.assigner = weir_window_session(10), .process = sum_process,
                          .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_rec(t, "a", 2, 30);
    wt_rec(t, "a", 4, 60);
    wt_rec(t, "a", 8, 20); /* [20,30) touches [30,40) and ... [10,20)? no: 0's session ends at 10 */
    wt_rec(t, "a", 16, 10); /* [10,20): touches [0,10) and [20,40): all but 60's */
    wt_rec(t, "a", 32, 45); /* [45,55): 40 < 45, separate from [20,40)... */
    wt_rec(t, "a", 64, 40); /* [40,50): touches [0,40) and [45,55) and not [60,70) */
    wt_end(t);
    wt_expect(t, &at, "R 54 a 123 [0,55) n=6 f=0\nR 69 a 4 [60,70) n=1 f=0\n"
                      "W 9223372036854775807\n");
    wt_close(t);
}

Test(sessions, reduce_and_state_cleanup)
{
    weir_window_spec s = {.assigner = weir_window_session(3), .reduce = sum_reduce,
                          .reduce_finish = sum_finish, .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    for (int k = 0; k < 10; k++) {
        char key[8];
        snprintf(key, sizeof key, "k%d", k);
        wt_rec(t, key, k, k);
        wt_rec(t, key, 1, k + 2);
    }
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 10u, "one session list per key");
    wt_wm(t, 100);
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 0u);
    size_t results = 0;
    for (size_t i = at; i < t->n; i++) {
        if (t->items[i].what)
            continue;
        int k = atoi(t->items[i].r.key + 1);
        cr_assert_eq(t->items[i].r.value, k + 1);
        cr_assert_eq(t->items[i].r.start, k);
        cr_assert_eq(t->items[i].r.end, k + 5);
        results++;
    }
    cr_assert_eq(results, 10u);
    wt_close(t);
}

Test(sessions, many_sessions_of_one_key_merge_in_any_order)
{
    /* Elements every 10 with gap 5 make 100 sessions; then the elements in
     * between, in a shuffled order, bridge them into one. */
    weir_window_spec s = sessions(5);
    wt *t = wt_open(&s);
    size_t at = 0;
    for (int i = 0; i < 100; i++)
        wt_rec(t, "a", 1, i * 10);
    int order[99];
    for (int i = 0; i < 99; i++)
        order[i] = i;
    uint64_t x = 12345;
    for (int i = 98; i > 0; i--) {
        x = tu_mix(x);
        int j = (int)(x % (uint64_t)(i + 1)), tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    for (int i = 0; i < 99; i++) {
        wt_rec(t, "a", 1, order[i] * 10 + 5);
        if (i == 49) {
            wt_probe(t);
            cr_assert_eq(t->state_size[0], 1u, "one list for the key");
        }
    }
    wt_end(t);
    wt_expect(t, &at, "R 994 a 199 [0,995) n=199 f=0\nW 9223372036854775807\n");
    wt_close(t);
}
