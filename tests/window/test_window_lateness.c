/* test_window_lateness.c — allowed lateness and late elements (SEMANTICS.md
 * 7), through the harness: late firings with their indices, cleanup at
 * exactly max + lateness (and the state gone after it), a cleanup time that
 * overflows (never cleaned up, still fires), late elements to the side output
 * with their own timestamps or dropped (handed to on_dropped), and the rule
 * that an element some windows took and others skipped is not late.
 */
#include <criterion/criterion.h>

#include "test_window_util.h"

Test(lateness, late_firings_until_exactly_max_plus_lateness)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    s.allowed_lateness_ms = 5;
    s.late_tag = WEIR_WINDOW_LATE_TAG;
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_wm(t, 9);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nW 9\n");
    wt_wm(t, 13);
    wt_rec(t, "a", 2, 1);
    wt_expect(t, &at, "W 13\nR 9 a 3 [0,10) n=2 f=1 late\n");
    /* cleanup time 14: one below it the window still takes elements */
    wt_rec(t, "a", 4, 9);
    wt_expect(t, &at, "R 9 a 7 [0,10) n=3 f=2 late\n");
    wt_wm(t, 14);
    wt_rec(t, "a", 8, 5);
    wt_expect(t, &at, "W 14\nL 5 a 8\n");
    wt_close(t);
}

Test(lateness, state_is_removed_at_cleanup)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    s.allowed_lateness_ms = 100;
    wt *t = wt_open(&s);
    for (int k = 0; k < 20; k++) {
        char key[8];
        snprintf(key, sizeof key, "k%d", k);
        wt_rec(t, key, 1, k);
    }
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 20u, "k0..k9 in [0,10), k10..k19 in [10,20)");
    wt_wm(t, 108);
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 20u, "fired, not yet cleaned up");
    wt_wm(t, 109);
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 10u, "[0,10) cleaned up at 9 + 100");
    wt_wm(t, 119);
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 0u);
    wt_close(t);
}

Test(lateness, no_lateness_one_timer_fires_and_cleans)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_wm(t, 9);
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 0u);
    wt_rec(t, "a", 2, 9);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nW 9\nD 9 a 2\n");
    wt_close(t);
}

Test(lateness, late_elements_dropped_are_handed_to_on_dropped)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_wm(t, 100);
    wt_rec(t, "a", 1, 50);
    wt_rec(t, "a", 2, 90);
    wt_rec(t, "a", 4, 100); /* its window [100,110) is fine */
    wt_end(t);
    wt_expect(t, &at, "W 100\nD 50 a 1\nD 90 a 2\nR 109 a 4 [100,110) n=1 f=0\n"
                      "W 9223372036854775807\n");
    wt_close(t);
}

Test(lateness, side_output_keeps_the_element_and_its_timestamp)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    s.late_tag = 7;
    weir_process_spec ps;
    char why[256];
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), 0, "%s", why);
    cr_assert_eq(ps.nside, 1);
    cr_assert_eq(ps.side_outputs[0].tag, 7);
    cr_assert_eq(ps.side_outputs[0].elem_size, sizeof(ev));
    ps.impl_free(ps.impl);
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_wm(t, 100);
    wt_rec(t, "zz", -42, -5);
    wt_expect(t, &at, "W 100\nL -5 zz -42\n");
    wt_close(t);
}

Test(lateness, some_windows_took_it_so_it_is_not_late)
{
    weir_window_spec s = {.assigner = weir_window_sliding(10, 5, 0), .aggregate = sum_aggregate,
                          .out_size = sizeof(res), .late_tag = 1};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_wm(t, 9);
    /* ts 7: [0,10) is late (cleanup 9 <= 9), [5,15) takes it */
    wt_rec(t, "a", 1, 7);
    wt_expect(t, &at, "W 9\n");
    wt_wm(t, 14);
    wt_expect(t, &at, "R 14 a 1 [5,15) n=1 f=0\nW 14\n");
    /* ts 8 now: both late */
    wt_rec(t, "a", 2, 8);
    wt_expect(t, &at, "L 8 a 2\n");
    wt_close(t);
}

Test(lateness, sliding_late_firings_per_window)
{
    weir_window_spec s = {.assigner = weir_window_sliding(10, 5, 0), .aggregate = sum_aggregate,
                          .out_size = sizeof(res), .allowed_lateness_ms = 7};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 6);
    wt_wm(t, 15);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nR 14 a 1 [5,15) n=1 f=0\nW 15\n");
    /* [0,10) cleanup 16 > 15, [5,15) cleanup 21: both late-fire */
    wt_rec(t, "a", 2, 7);
    wt_expect(t, &at, "R 9 a 3 [0,10) n=2 f=1 late\nR 14 a 3 [5,15) n=2 f=1 late\n");
    wt_wm(t, 16);
    /* [0,10) gone; [5,15) fires again */
    wt_rec(t, "a", 4, 8);
    wt_expect(t, &at, "W 16\nR 14 a 7 [5,15) n=3 f=2 late\n");
    /* a window fresh in its lateness period: [10,20) gets its first element
     * when the watermark is past its max: fires at once, index 0 */
    wt_wm(t, 20);
    wt_rec(t, "a", 8, 12);
    wt_expect(t, &at, "W 20\nR 19 a 8 [10,20) n=1 f=0 late\nR 14 a 15 [5,15) n=4 f=3 late\n");
    wt_close(t);
}

Test(lateness, overflowing_cleanup_never_cleans_but_fires)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    s.allowed_lateness_ms = INT64_MAX; /* 9 + MAX overflows: cleanup MAX */
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 0);
    wt_wm(t, 9);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nW 9\n");
    wt_wm(t, INT64_MAX - 1);
    wt_rec(t, "a", 2, 3);
    wt_expect(t, &at, "W 9223372036854775806\nR 9 a 3 [0,10) n=2 f=1 late\n");
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 1u, "no cleanup timer: the state stays until the end");
    wt_end(t);
    wt_expect(t, &at, "W 9223372036854775807\n");
    wt_close(t);
}

Test(lateness, panes_are_freed_after_the_last_window)
{
    /* a process function: state 1 holds one element list per pane */
    weir_window_spec s = {.assigner = weir_window_sliding(30, 10, 0), .process = sum_process,
                          .out_size = sizeof(res), .allowed_lateness_ms = 3};
    wt *t = wt_open(&s);
    for (int i = 0; i < 60; i++)
        wt_rec(t, "a", 1, i);
    wt_probe(t);
    cr_assert_eq(t->state_size[1], 6u, "panes [0,10) ... [50,60)");
    /* pane [0,10)'s last window is [0,30): cleaned up at 29 + 3 */
    wt_wm(t, 31);
    wt_probe(t);
    cr_assert_eq(t->state_size[1], 6u);
    wt_wm(t, 32);
    wt_probe(t);
    cr_assert_eq(t->state_size[1], 5u);
    cr_assert_eq(t->state_size[0], 1u);
    wt_wm(t, 1000);
    wt_probe(t);
    cr_assert_eq(t->state_size[1], 0u);
    cr_assert_eq(t->state_size[0], 0u, "the key's pane list is gone with its panes");
    cr_assert_eq(t->state_size[2], 0u, "and the firing counts of the lateness period");
    wt_close(t);
}
