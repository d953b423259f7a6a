/* test_combiner.c — the combination of several inputs (SEMANTICS.md 4).
 *
 * Each logical input of an operator has its own valve; the combiner takes the
 * valves' outputs and makes the operator's watermark: the minimum over the
 * inputs that are not idle, emitted only when it increases. Unlike the valve
 * it has no "unaligned" state, so an input that comes back with a low
 * watermark holds the combined value where it is (it never decreases) until
 * it catches up; when every input is idle the largest input watermark is
 * flushed if larger, then IDLE. The inputs here are fed what a valve can
 * produce: strictly increasing watermarks, statuses that alternate. Each test
 * asserts the exact actions of every call, as short text ("wm 100 idle", ""
 * for nothing).
 */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "valve.h"
#include "weir/time.h"

#include "support/wm_actions.h"

#define WM(i, w) weir__combiner_watermark(&c, (i), (w))
#define IDLE(i) weir__combiner_status(&c, (i), true)
#define ACTIVE(i) weir__combiner_status(&c, (i), false)

Test(combiner, starts_with_every_input_at_min_and_active)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    cr_assert_eq(c.n, 2);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(c.wm[i], WEIR_TS_MIN, "input %d", i);
        cr_assert(!c.idle[i], "input %d", i);
    }
    cr_assert_eq(c.last_wm, WEIR_TS_MIN);
    cr_assert(!c.last_idle);
    EXPECT(ACTIVE(0), "");
    EXPECT(ACTIVE(1), "");
}

Test(combiner, the_watermark_is_the_minimum_over_the_inputs)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    /* Input 1 is still at MIN. */
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 20), "wm 10");
    EXPECT(WM(0, 30), "wm 20");
    EXPECT(WM(1, 25), "wm 25");
    EXPECT(WM(1, 40), "wm 30");
}

Test(combiner, the_watermark_is_emitted_only_when_it_increases)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 10), "wm 10");
    /* The other input is still at 10. */
    EXPECT(WM(0, 20), "");
    EXPECT(WM(0, 30), "");
    EXPECT(WM(1, 20), "wm 20");
    EXPECT(WM(1, 30), "wm 30");
    EXPECT(WM(1, 50), "");
    cr_assert_eq(c.last_wm, 30);
}

Test(combiner, an_idle_input_does_not_hold_the_watermark_back)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 50), "wm 10");
    EXPECT(IDLE(0), "wm 50");
    cr_assert(!c.last_idle);
    EXPECT(WM(1, 60), "wm 60");
}

Test(combiner, an_idle_input_that_held_nothing_back_changes_nothing)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, 100), "");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(IDLE(0), "");
    EXPECT(WM(1, 50), "wm 50");
}

Test(combiner, an_input_back_with_a_low_watermark_holds_the_value_until_it_catches_up)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 50), "wm 10");
    EXPECT(IDLE(0), "wm 50");
    EXPECT(WM(1, 60), "wm 60");
    /* Input 0 is back at 10: the combined value stays at 60, it does not go
     * back to 10, and input 1 moving on does not move it either. */
    EXPECT(ACTIVE(0), "");
    cr_assert_eq(c.last_wm, 60);
    EXPECT(WM(1, 70), "");
    EXPECT(WM(0, 55), "");
    EXPECT(WM(0, 60), "");
    EXPECT(WM(0, 65), "wm 65");
    EXPECT(WM(0, 80), "wm 70");
}

Test(combiner, a_watermark_on_an_idle_input_does_not_move_the_combined_value)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 40), "wm 10");
    EXPECT(IDLE(0), "wm 40");
    /* Only inputs that are not idle count: 5 on idle input 0 changes nothing,
     * and neither does 100. */
    EXPECT(WM(0, 5), "");
    EXPECT(WM(0, 100), "");
    cr_assert_eq(c.last_wm, 40);
    EXPECT(WM(1, 45), "wm 45");
}

Test(combiner, when_every_input_is_idle_the_maximum_is_flushed_then_idle)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, 100), "");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(1), "wm 100 idle");
    cr_assert_eq(c.last_wm, 100);
    cr_assert(c.last_idle);
}

Test(combiner, the_flush_emits_no_watermark_when_the_maximum_is_not_larger)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, 40), "");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(IDLE(1), "");
    EXPECT(IDLE(0), "idle");
}

Test(combiner, inputs_idle_before_any_watermark_give_idle_and_not_min)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(1), "idle");
    cr_assert_eq(c.last_wm, WEIR_TS_MIN);
}

Test(combiner, the_flush_gives_the_same_output_whichever_input_goes_idle_first)
{
    char first[128] = "";
    char second[128] = "";
    weir__combiner c;
    weir__combiner_init(&c, 2);
    append(first, sizeof first, WM(0, 100));
    append(first, sizeof first, WM(1, 40));
    append(first, sizeof first, IDLE(0));
    append(first, sizeof first, IDLE(1));
    weir__combiner_init(&c, 2);
    append(second, sizeof second, WM(0, 100));
    append(second, sizeof second, WM(1, 40));
    append(second, sizeof second, IDLE(1));
    append(second, sizeof second, IDLE(0));
    cr_assert_str_eq(first, "wm 40 wm 100 idle");
    cr_assert_str_eq(second, "wm 40 wm 100 idle");
}

Test(combiner, the_operator_is_idle_iff_every_input_is_idle)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 10), "wm 10");
    EXPECT(IDLE(0), "");
    cr_assert(!c.last_idle);
    /* A repeated status is no change: input 0 idling again is not input 1. */
    EXPECT(IDLE(0), "");
    cr_assert(!c.last_idle);
    EXPECT(IDLE(1), "idle");
    cr_assert(c.last_idle);
    EXPECT(IDLE(1), "");
    EXPECT(ACTIVE(0), "active");
    cr_assert(!c.last_idle);
}

Test(combiner, active_is_emitted_once_when_the_first_input_comes_back)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, 10), "");
    EXPECT(WM(1, 30), "wm 10");
    EXPECT(IDLE(0), "wm 30");
    EXPECT(IDLE(1), "idle");
    EXPECT(ACTIVE(1), "active");
    EXPECT(ACTIVE(0), "");
    EXPECT(ACTIVE(1), "");
    /* Both back: input 0 (10) holds the value at 30 until it passes it. */
    EXPECT(WM(1, 40), "");
    EXPECT(WM(0, 35), "wm 35");
}

Test(combiner, an_input_back_above_the_combined_value_raises_it_at_once)
{
    /* After a flush the combined value is the largest input watermark, so
     * this needs one input idle while the other holds the value back. */
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, 100), "");
    EXPECT(WM(1, 40), "wm 40");
    EXPECT(IDLE(0), "");
    EXPECT(WM(1, 60), "wm 60");
    EXPECT(IDLE(1), "wm 100 idle");
    EXPECT(ACTIVE(1), "active");
    EXPECT(WM(1, 120), "wm 120");
}

Test(combiner, max_on_both_inputs_is_emitted_once)
{
    weir__combiner c;
    weir__combiner_init(&c, 2);
    EXPECT(WM(0, WEIR_TS_MAX), "");
    EXPECT(WM(1, 7), "wm 7");
    EXPECT(WM(1, WEIR_TS_MAX), "wm MAX");
    EXPECT(IDLE(0), "");
    EXPECT(IDLE(1), "idle");
}

Test(combiner, one_input_passes_increasing_watermarks_through)
{
    weir__combiner c;
    weir__combiner_init(&c, 1);
    cr_assert_eq(c.n, 1);
    EXPECT(WM(0, WEIR_TS_MIN), "");
    EXPECT(WM(0, -10), "wm -10");
    EXPECT(WM(0, 10), "wm 10");
    EXPECT(WM(0, 10), "");
    EXPECT(WM(0, 11), "wm 11");
    EXPECT(WM(0, WEIR_TS_MAX), "wm MAX");
    EXPECT(WM(0, WEIR_TS_MAX), "");
}

Test(combiner, one_input_passes_status_changes_through)
{
    weir__combiner c;
    weir__combiner_init(&c, 1);
    EXPECT(WM(0, 10), "wm 10");
    EXPECT(IDLE(0), "idle");
    EXPECT(IDLE(0), "");
    EXPECT(ACTIVE(0), "active");
    EXPECT(ACTIVE(0), "");
    EXPECT(WM(0, 20), "wm 20");
    EXPECT(IDLE(0), "idle");
    EXPECT(ACTIVE(0), "active");
}
