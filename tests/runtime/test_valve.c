/* test_valve.c — the valve that merges the channels of one input
 * (SEMANTICS.md 3), every rule with one or more tests of its own.
 *
 * The valve is where most of Flink's watermark subtleties live: a channel that
 * comes back from idle below the output must not pull it backwards (the
 * `aligned` flag), an idle channel must stop holding the minimum back, the
 * last channel going idle flushes the largest watermark whatever the order the
 * channels went idle in, and ACTIVE recomputes the minimum so a returning
 * channel cannot leave the output stalled. Each test drives a fresh
 * weir__valve and asserts the exact actions of every call, rendered as short
 * text ("wm 100 idle", "" for nothing), and where a rule is about state (a
 * channel's alignment, the output's last watermark) it checks that state too.
 * The worked example of SCRIPT.md is reproduced step by step at the end.
 */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "valve.h"
#include "weir/time.h"

#include "support/wm_actions.h"

/* Every test works on a valve named v over local storage. */
#define NEW_VALVE(channels)                                                      \
    weir__valve_channel storage_[8];                                             \
    weir__valve v;                                                               \
    weir__valve_init(&v, storage_, (channels))

#define WM(c, w) weir__valve_watermark(&v, (c), (w))
#define IDLE(c) weir__valve_idle(&v, (c))
#define ACTIVE(c) weir__valve_active(&v, (c))

/* ---- initial state ----------------------------------------------------------- */

Test(valve, starts_with_every_channel_at_min_active_and_aligned)
{
    NEW_VALVE(3);
    cr_assert_eq(v.n, 3);
    cr_assert_eq(v.ch, storage_);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(v.ch[i].wm, WEIR_TS_MIN, "channel %d", i);
        cr_assert(!v.ch[i].idle, "channel %d", i);
        cr_assert(v.ch[i].aligned, "channel %d", i);
    }
    cr_assert_eq(v.last_wm, WEIR_TS_MIN);
    cr_assert(!v.last_idle);
}

Test(valve, emits_nothing_until_every_channel_has_a_watermark)
{
    /* Every channel starts aligned at MIN, so each one holds the minimum at
     * MIN until its first watermark. */
    NEW_VALVE(3);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "");
    EXPECT(WM(2, 5), "wm 5");
}

Test(valve, active_on_a_fresh_channel_is_no_change)
{
    NEW_VALVE(2);
    EXPECT(ACTIVE(0), "");
    EXPECT(ACTIVE(1), "");
    cr_assert(v.ch[0].aligned && v.ch[1].aligned);
}

/* ---- rule 1: ignored when the output or the channel is idle ------------------ */

Test(valve, a_watermark_on_an_idle_channel_is_ignored)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "wm 10");
    EXPECT(IDLE(0), "wm 20");
    EXPECT(WM(0, 50), "");
    /* Ignored entirely: not even recorded as the channel's watermark. */
    cr_assert_eq(v.ch[0].wm, 10);
    cr_assert(!v.ch[0].aligned);
    EXPECT(WM(1, 30), "wm 30");
}

Test(valve, a_watermark_while_the_output_is_idle_is_ignored)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 10), "wm 10");
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(1), "idle");
    cr_assert(v.last_idle);
    EXPECT(WM(0, 50), "");
    EXPECT(WM(1, 60), "");
    cr_assert_eq(v.ch[0].wm, 10);
    cr_assert_eq(v.ch[1].wm, 10);
    cr_assert_eq(v.last_wm, 10);
    EXPECT(ACTIVE(1), "active");
    EXPECT(WM(1, 60), "wm 60");
}

/* ---- rule 2: ignored unless above the channel's own watermark ---------------- */

Test(valve, a_watermark_not_above_the_channel_s_own_is_ignored)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 50), "");
    EXPECT(WM(1, 10), "wm 10");
    EXPECT(WM(1, 10), "");
    EXPECT(WM(1, 5), "");
    EXPECT(WM(1, WEIR_TS_MIN), "");
    cr_assert_eq(v.ch[1].wm, 10);
    EXPECT(WM(1, 11), "wm 11");
}

Test(valve, a_lower_watermark_on_a_channel_that_is_not_the_minimum_changes_nothing)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 50), "");
    EXPECT(WM(1, 10), "wm 10");
    /* Had the valve taken 20 on channel 0, 30 on channel 1 would give 20. */
    EXPECT(WM(0, 20), "");
    cr_assert_eq(v.ch[0].wm, 50);
    EXPECT(WM(1, 30), "wm 30");
}

Test(valve, min_on_a_fresh_channel_is_ignored)
{
    NEW_VALVE(1);
    EXPECT(WM(0, WEIR_TS_MIN), "");
    cr_assert_eq(v.ch[0].wm, WEIR_TS_MIN);
    cr_assert_eq(v.last_wm, WEIR_TS_MIN);
}

/* ---- rule 3: alignment regained when W >= last_wm ------------------------------ */

Test(valve, a_channel_back_below_the_output_stays_out_of_the_minimum_until_it_catches_up)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "wm 10");
    EXPECT(IDLE(0), "wm 20");
    EXPECT(WM(1, 30), "wm 30");
    EXPECT(ACTIVE(0), "");
    cr_assert(!v.ch[0].aligned);
    /* 25 is taken as channel 0's watermark but is below the output (30): the
     * channel stays unaligned, and does not hold channel 1 back. */
    EXPECT(WM(0, 25), "");
    cr_assert_eq(v.ch[0].wm, 25);
    cr_assert(!v.ch[0].aligned);
    EXPECT(WM(1, 40), "wm 40");
}

Test(valve, alignment_is_regained_at_exactly_the_output_watermark)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "wm 10");
    EXPECT(IDLE(0), "wm 20");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(ACTIVE(0), "");
    /* W == last_wm: aligned again, and it now holds the minimum at 40. */
    EXPECT(WM(0, 40), "");
    cr_assert(v.ch[0].aligned);
    EXPECT(WM(1, 50), "");
    EXPECT(WM(0, 45), "wm 45");
    EXPECT(WM(0, 60), "wm 50");
}

Test(valve, alignment_is_regained_above_the_output_watermark)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "wm 10");
    EXPECT(IDLE(0), "wm 20");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(ACTIVE(0), "");
    EXPECT(WM(0, 39), "");
    cr_assert(!v.ch[0].aligned);
    /* Aligned at 45 but channel 1 (40) is still the minimum: nothing new. */
    EXPECT(WM(0, 45), "");
    cr_assert(v.ch[0].aligned);
    EXPECT(WM(1, 70), "wm 45");
}

/* ---- rule 4: the minimum over aligned channels, only if above last_wm ------- */

Test(valve, the_output_is_the_minimum_over_aligned_channels)
{
    NEW_VALVE(3);
    EXPECT(WM(0, 30), "");
    EXPECT(WM(1, 10), "");
    EXPECT(WM(2, 20), "wm 10");
    EXPECT(WM(1, 25), "wm 20");
    EXPECT(WM(2, 40), "wm 25");
    EXPECT(WM(1, 50), "wm 30");
    EXPECT(WM(0, 100), "wm 40");
}

Test(valve, the_minimum_is_emitted_only_if_above_the_last_watermark)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 10), "wm 10");
    /* Raising the channel that is not the minimum leaves the minimum at 10. */
    EXPECT(WM(0, 20), "");
    EXPECT(WM(1, 15), "wm 15");
    EXPECT(WM(1, 20), "wm 20");
    EXPECT(WM(1, 30), "");
}

Test(valve, max_on_every_channel_is_emitted_once)
{
    NEW_VALVE(2);
    EXPECT(WM(0, WEIR_TS_MAX), "");
    EXPECT(WM(1, 5), "wm 5");
    EXPECT(WM(1, WEIR_TS_MAX), "wm MAX");
    EXPECT(WM(1, WEIR_TS_MAX), "");
    EXPECT(WM(0, WEIR_TS_MAX), "");
}

/* ---- IDLE ------------------------------------------------------------------- */

Test(valve, idle_makes_the_channel_idle_and_unaligned)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 10), "wm 10");
    EXPECT(IDLE(1), "");
    cr_assert(v.ch[1].idle);
    cr_assert(!v.ch[1].aligned);
    cr_assert(!v.ch[0].idle);
    cr_assert(v.ch[0].aligned);
    cr_assert(!v.last_idle);
}

Test(valve, idle_counts_only_on_a_change)
{
    /* A second IDLE on channel 0 must not count as channel 1 going idle. */
    NEW_VALVE(2);
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(0), "");
    cr_assert(!v.last_idle);
    EXPECT(IDLE(1), "idle");
    EXPECT(IDLE(1), "");
    EXPECT(IDLE(0), "");
}

Test(valve, idle_before_any_watermark_emits_idle_but_not_min)
{
    NEW_VALVE(2);
    EXPECT(IDLE(1), "");
    EXPECT(IDLE(0), "idle");
    cr_assert_eq(v.last_wm, WEIR_TS_MIN);
}

Test(valve, the_last_channel_going_idle_flushes_the_maximum_then_idle)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 100), "");
    EXPECT(WM(1, 40), "wm 40");
    /* Channel 0 is not holding anything back: nothing new. */
    EXPECT(IDLE(0), "");
    /* Watermark first, then IDLE. */
    EXPECT(IDLE(1), "wm 100 idle");
    cr_assert(v.last_idle);
    cr_assert_eq(v.last_wm, 100);
}

Test(valve, the_flush_emits_no_watermark_when_the_maximum_is_not_above_the_output)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 40), "");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(1), "idle");
}

Test(valve, the_flush_gives_the_same_output_whichever_channel_goes_idle_first)
{
    char first[256] = "";
    char second[256] = "";
    {
        NEW_VALVE(2);
        append(first, sizeof first, WM(0, 100));
        append(first, sizeof first, WM(1, 40));
        append(first, sizeof first, IDLE(0));
        append(first, sizeof first, IDLE(1));
    }
    {
        NEW_VALVE(2);
        append(second, sizeof second, WM(0, 100));
        append(second, sizeof second, WM(1, 40));
        append(second, sizeof second, IDLE(1));
        append(second, sizeof second, IDLE(0));
    }
    cr_assert_str_eq(first, "wm 40 wm 100 idle");
    cr_assert_str_eq(second, "wm 40 wm 100 idle");
}

Test(valve, every_order_of_going_idle_ends_at_the_maximum_then_idle)
{
    /* Channels at 10, 50 and 30, then all go idle in each of the six orders.
     * Where the intermediate minimum (30) shows up depends on the order; the
     * end never does: 50, then IDLE. */
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                     {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    static const char *const want[6] = {
        "wm 10 wm 30 wm 50 idle", "wm 10 wm 30 wm 50 idle", "wm 10 wm 30 wm 50 idle",
        "wm 10 wm 50 idle",       "wm 10 wm 50 idle",       "wm 10 wm 50 idle"};
    for (int o = 0; o < 6; o++) {
        char log[256] = "";
        NEW_VALVE(3);
        append(log, sizeof log, WM(0, 10));
        append(log, sizeof log, WM(1, 50));
        append(log, sizeof log, WM(2, 30));
        for (int k = 0; k < 3; k++)
            append(log, sizeof log, IDLE(orders[o][k]));
        cr_assert_str_eq(log, want[o], "order %d,%d,%d", orders[o][0], orders[o][1],
                         orders[o][2]);
        cr_assert_eq(v.last_wm, 50);
        cr_assert(v.last_idle);
    }
}

Test(valve, the_flush_happens_even_when_the_last_channel_to_go_idle_is_unaligned)
{
    /* Flink's released valve flushed only if the last channel going idle was
     * aligned; the fix makes the flush unconditional. Here channel 1 is back
     * but unaligned, and is the last to go idle, while channel 0 went idle at
     * 100 without that being emitted (channel 2 held it back at 20). */
    NEW_VALVE(3);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 10), "");
    EXPECT(WM(2, 10), "wm 10");
    EXPECT(IDLE(1), "");
    EXPECT(WM(0, 20), "");
    EXPECT(WM(2, 20), "wm 20");
    EXPECT(ACTIVE(1), "");
    cr_assert(!v.ch[1].aligned);
    EXPECT(WM(0, 100), "");
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(2), "");
    EXPECT(IDLE(1), "wm 100 idle");
}

Test(valve, an_idle_channel_holding_the_minimum_back_lets_the_new_minimum_out)
{
    NEW_VALVE(3);
    EXPECT(WM(0, 100), "");
    EXPECT(WM(1, 40), "");
    EXPECT(WM(2, 70), "wm 40");
    EXPECT(IDLE(1), "wm 70");
    EXPECT(IDLE(2), "wm 100");
    EXPECT(WM(0, 120), "wm 120");
}

Test(valve, an_idle_channel_that_held_nothing_back_changes_nothing)
{
    NEW_VALVE(3);
    EXPECT(WM(0, 100), "");
    EXPECT(WM(1, 40), "");
    EXPECT(WM(2, 70), "wm 40");
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(2), "");
    EXPECT(WM(1, 50), "wm 50");
}

Test(valve, an_idle_channel_tied_with_another_at_the_minimum_changes_nothing)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 40), "");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(IDLE(0), "");
    EXPECT(WM(1, 41), "wm 41");
}

/* ---- every active channel unaligned ------------------------------------------ */

Test(valve, when_every_active_channel_is_unaligned_idle_emits_nothing_and_not_max)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "wm 10");
    EXPECT(IDLE(0), "wm 20");
    EXPECT(WM(1, 50), "wm 50");
    EXPECT(ACTIVE(0), "");
    cr_assert(!v.ch[0].aligned);
    /* Channel 0 (at 10) is the only active channel and it is unaligned: no
     * aligned minimum exists, and the empty minimum is not MAX. */
    EXPECT(IDLE(1), "");
    cr_assert_eq(v.last_wm, 50);
    cr_assert(!v.last_idle);
    cr_assert_eq(weir__valve_held_by(&v), -1);
}

Test(valve, when_every_active_channel_is_unaligned_a_watermark_below_the_output_emits_nothing)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "wm 10");
    EXPECT(IDLE(0), "wm 20");
    EXPECT(WM(1, 50), "wm 50");
    EXPECT(ACTIVE(0), "");
    EXPECT(IDLE(1), "");
    EXPECT(WM(0, 30), "");
    EXPECT(WM(0, 49), "");
    cr_assert(!v.ch[0].aligned);
    EXPECT(WM(0, 60), "wm 60");
    cr_assert(v.ch[0].aligned);
}

/* ---- ACTIVE ------------------------------------------------------------------ */

Test(valve, active_on_an_active_channel_is_no_change)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "wm 10");
    EXPECT(IDLE(0), "wm 20");
    EXPECT(ACTIVE(0), "");
    EXPECT(ACTIVE(0), "");
    EXPECT(ACTIVE(1), "");
    cr_assert(!v.ch[0].aligned);
    cr_assert(!v.ch[0].idle);
}

Test(valve, a_channel_back_below_the_output_is_active_but_unaligned)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "wm 10");
    EXPECT(IDLE(0), "wm 20");
    EXPECT(ACTIVE(0), "");
    cr_assert(!v.ch[0].idle);
    cr_assert(!v.ch[0].aligned);
    cr_assert_eq(weir__valve_held_by(&v), 1);
}

Test(valve, a_channel_back_at_the_output_watermark_is_aligned_and_holds_the_minimum)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 20), "");
    EXPECT(WM(1, 20), "wm 20");
    EXPECT(IDLE(0), "");
    EXPECT(ACTIVE(0), "");
    cr_assert(v.ch[0].aligned);
    EXPECT(WM(1, 30), "");
    EXPECT(WM(0, 25), "wm 25");
}

Test(valve, a_channel_back_above_the_output_watermark_is_aligned)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 100), "");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(IDLE(0), "");
    EXPECT(ACTIVE(0), "");
    cr_assert(v.ch[0].aligned);
    /* Channel 0 counts at 100 again: channel 1 at 150 gives 100, not 150. */
    EXPECT(WM(1, 150), "wm 100");
}

Test(valve, the_output_going_from_idle_to_active_emits_active)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 10), "wm 10");
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(1), "idle");
    EXPECT(ACTIVE(1), "active");
    cr_assert(!v.last_idle);
    /* The output is active already: a second channel back is no change. */
    EXPECT(ACTIVE(0), "");
    EXPECT(WM(0, 11), "");
    EXPECT(WM(1, 12), "wm 11");
}

Test(valve, after_a_flush_the_lower_channel_comes_back_unaligned)
{
    NEW_VALVE(2);
    EXPECT(WM(0, 100), "");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(1), "wm 100 idle");
    EXPECT(ACTIVE(1), "active");
    cr_assert(!v.ch[1].aligned);
    cr_assert_eq(weir__valve_held_by(&v), -1);
    EXPECT(WM(1, 60), "");
    EXPECT(WM(1, 120), "wm 120");
}

Test(valve, active_recomputes_the_minimum_so_a_returning_channel_does_not_stall_the_output)
{
    /* The "recompute on ACTIVE" fix. Channel 1 is back but unaligned, channel
     * 2 held the minimum at 60 while channel 0 went idle at 100, then channel
     * 2 went idle: no aligned channel is left. Channel 0 comes back aligned
     * (100 >= 60) and, as the only aligned channel, lifts the output to 100 at
     * once; Flink's released valve waited for the next watermark. */
    NEW_VALVE(3);
    EXPECT(WM(0, 100), "");
    EXPECT(WM(1, 10), "");
    EXPECT(WM(2, 60), "wm 10");
    EXPECT(IDLE(1), "wm 60");
    EXPECT(ACTIVE(1), "");
    cr_assert(!v.ch[1].aligned);
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(2), "");
    cr_assert_eq(weir__valve_held_by(&v), -1);
    EXPECT(ACTIVE(0), "wm 100");
    cr_assert(v.ch[0].aligned);
    EXPECT(WM(1, 70), "");
    EXPECT(WM(1, 150), "");
    EXPECT(WM(0, 200), "wm 150");
}

/* ---- the worked example of SCRIPT.md ----------------------------------------- */

Test(valve, reproduces_the_worked_example_of_the_script_format)
{
    char log[256] = "";
    NEW_VALVE(2);
    EXPECT(WM(0, 100), "");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(IDLE(1), "wm 100");
    EXPECT(WM(0, 150), "wm 150");
    EXPECT(ACTIVE(1), "");
    cr_assert(!v.ch[1].aligned, "channel 1 at 40 < 150 is out of the minimum");
    EXPECT(WM(1, 160), "");
    EXPECT(WM(0, 170), "wm 160");

    /* The same script, checked as the whole printed output. */
    weir__valve_init(&v, storage_, 2);
    append(log, sizeof log, WM(0, 100));
    append(log, sizeof log, WM(1, 40));
    append(log, sizeof log, IDLE(1));
    append(log, sizeof log, WM(0, 150));
    append(log, sizeof log, ACTIVE(1));
    append(log, sizeof log, WM(1, 160));
    append(log, sizeof log, WM(0, 170));
    cr_assert_str_eq(log, "wm 40 wm 100 wm 150 wm 160");
}

/* ---- weir__valve_held_by ------------------------------------------------------- */

Test(valve, held_by_names_the_lowest_index_on_a_fresh_valve)
{
    NEW_VALVE(3);
    cr_assert_eq(weir__valve_held_by(&v), 0);
}

Test(valve, held_by_names_the_aligned_channel_with_the_lowest_watermark)
{
    NEW_VALVE(3);
    EXPECT(WM(0, 30), "");
    cr_assert_eq(weir__valve_held_by(&v), 1);
    EXPECT(WM(1, 10), "");
    cr_assert_eq(weir__valve_held_by(&v), 2);
    EXPECT(WM(2, 20), "wm 10");
    cr_assert_eq(weir__valve_held_by(&v), 1);
    EXPECT(WM(1, 40), "wm 20");
    cr_assert_eq(weir__valve_held_by(&v), 2);
}

Test(valve, held_by_picks_the_lowest_index_among_equals)
{
    NEW_VALVE(3);
    EXPECT(WM(0, 20), "");
    EXPECT(WM(1, 10), "");
    EXPECT(WM(2, 10), "wm 10");
    cr_assert_eq(weir__valve_held_by(&v), 1);
    EXPECT(WM(1, 20), "");
    cr_assert_eq(weir__valve_held_by(&v), 2);
    EXPECT(WM(2, 20), "wm 20");
    cr_assert_eq(weir__valve_held_by(&v), 0);
}

Test(valve, held_by_skips_idle_and_unaligned_channels)
{
    NEW_VALVE(3);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "");
    EXPECT(WM(2, 30), "wm 10");
    EXPECT(IDLE(0), "wm 20");
    cr_assert_eq(weir__valve_held_by(&v), 1);
    EXPECT(ACTIVE(0), "");
    /* Channel 0 (10) is lowest but unaligned. */
    cr_assert_eq(weir__valve_held_by(&v), 1);
    EXPECT(IDLE(1), "wm 30");
    cr_assert_eq(weir__valve_held_by(&v), 2);
}

Test(valve, held_by_is_minus_one_when_every_channel_is_idle)
{
    NEW_VALVE(2);
    EXPECT(IDLE(0), "");
    cr_assert_eq(weir__valve_held_by(&v), 1);
    EXPECT(IDLE(1), "idle");
    cr_assert_eq(weir__valve_held_by(&v), -1);
}

/* ---- one channel ----------------------------------------------------------------- */

Test(valve, with_one_channel_every_increasing_watermark_passes)
{
    NEW_VALVE(1);
    EXPECT(WM(0, 5), "wm 5");
    EXPECT(WM(0, 5), "");
    EXPECT(WM(0, 3), "");
    EXPECT(WM(0, 7), "wm 7");
    EXPECT(WM(0, WEIR_TS_MAX), "wm MAX");
    EXPECT(WM(0, WEIR_TS_MAX), "");
}

Test(valve, with_one_channel_idle_and_active_pass_through_and_nothing_else)
{
    NEW_VALVE(1);
    EXPECT(WM(0, 5), "wm 5");
    /* The flush would be 5, which already left. */
    EXPECT(IDLE(0), "idle");
    EXPECT(IDLE(0), "");
    EXPECT(WM(0, 9), "");
    EXPECT(ACTIVE(0), "active");
    cr_assert(v.ch[0].aligned);
    EXPECT(ACTIVE(0), "");
    EXPECT(WM(0, 9), "wm 9");
}

Test(valve, with_one_channel_idle_from_the_start_emits_only_idle)
{
    NEW_VALVE(1);
    EXPECT(IDLE(0), "idle");
    EXPECT(ACTIVE(0), "active");
    EXPECT(WM(0, -1), "wm -1");
}
