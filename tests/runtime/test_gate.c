/* test_gate.c — the output gate (SEMANTICS.md 1, "The output gate"), rule by
 * rule.
 *
 * Every watermark and status that leaves an operator passes this gate, so a
 * mistake here is visible everywhere downstream: a repeated watermark would
 * fire nothing but cost a hop, a watermark going backwards would break every
 * downstream timer service, and an ACTIVE arriving after the watermark it
 * should precede would make a downstream valve drop that watermark (rule 1 of
 * SEMANTICS.md 3 ignores watermarks on an idle channel). Each test drives a
 * fresh weir__gate and asserts the exact list of actions of every call, as a
 * short text ("active wm 20", "" for nothing) so a failure shows what came out.
 */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>

#include "valve.h"
#include "weir/time.h"

#include "support/wm_actions.h"

#define WM(w) weir__gate_watermark(&g, (w))
#define IDLE() weir__gate_status(&g, true)
#define ACTIVE() weir__gate_status(&g, false)

Test(gate, starts_active_with_nothing_sent)
{
    weir__gate g;
    weir__gate_init(&g);
    cr_assert_eq(g.last, WEIR_TS_MIN);
    cr_assert(!g.idle);
    /* Active already: marking it active is no change, so nothing leaves. */
    EXPECT(ACTIVE(), "");
}

Test(gate, a_watermark_leaves_only_if_strictly_greater_than_the_last_that_left)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(WM(10), "wm 10");
    EXPECT(WM(10), "");
    EXPECT(WM(11), "wm 11");
    EXPECT(WM(11), "");
    EXPECT(WM(1000), "wm 1000");
}

Test(gate, the_first_watermark_above_min_leaves_even_if_negative)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(WM(WEIR_TS_MIN + 1), "wm -9223372036854775807");
    EXPECT(WM(-5), "wm -5");
    EXPECT(WM(0), "wm 0");
}

Test(gate, min_never_leaves)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(WM(WEIR_TS_MIN), "");
    EXPECT(WM(WEIR_TS_MIN), "");
    EXPECT(WM(7), "wm 7");
    EXPECT(WM(WEIR_TS_MIN), "");
}

Test(gate, nothing_goes_backwards)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(WM(100), "wm 100");
    EXPECT(WM(50), "");
    EXPECT(WM(99), "");
    EXPECT(WM(-100), "");
    /* The lower ones were not remembered: the bar is still 100. */
    EXPECT(WM(100), "");
    EXPECT(WM(101), "wm 101");
    cr_assert_eq(g.last, 101);
}

Test(gate, idle_and_active_leave_only_on_a_change)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(IDLE(), "idle");
    EXPECT(IDLE(), "");
    EXPECT(ACTIVE(), "active");
    EXPECT(ACTIVE(), "");
    EXPECT(IDLE(), "idle");
    cr_assert(g.idle);
}

Test(gate, when_idle_active_leaves_before_the_next_watermark_that_leaves)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(WM(10), "wm 10");
    EXPECT(IDLE(), "idle");
    EXPECT(WM(20), "active wm 20");
    cr_assert(!g.idle);
    /* ACTIVE went with the watermark; it is not repeated. */
    EXPECT(WM(30), "wm 30");
    EXPECT(ACTIVE(), "");
}

Test(gate, the_first_watermark_of_a_gate_idle_from_the_start_brings_active)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(IDLE(), "idle");
    EXPECT(WM(WEIR_TS_MIN), "");
    EXPECT(WM(-3), "active wm -3");
}

Test(gate, a_watermark_that_does_not_leave_while_idle_does_not_bring_active)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(WM(10), "wm 10");
    EXPECT(IDLE(), "idle");
    EXPECT(WM(10), "");
    EXPECT(WM(5), "");
    EXPECT(WM(WEIR_TS_MIN), "");
    /* Still idle: another IDLE is no change, an ACTIVE is. */
    cr_assert(g.idle);
    EXPECT(IDLE(), "");
    EXPECT(WM(11), "active wm 11");
}

Test(gate, an_explicit_active_is_not_repeated_by_the_next_watermark)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(IDLE(), "idle");
    EXPECT(ACTIVE(), "active");
    EXPECT(WM(20), "wm 20");
}

Test(gate, max_leaves_once)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(WM(10), "wm 10");
    EXPECT(WM(WEIR_TS_MAX), "wm MAX");
    EXPECT(WM(WEIR_TS_MAX), "");
    EXPECT(WM(20), "");
    /* Nothing is above MAX, so not even an idle gate lets anything through. */
    EXPECT(IDLE(), "idle");
    EXPECT(WM(WEIR_TS_MAX), "");
    cr_assert(g.idle);
}

Test(gate, max_from_idle_brings_active_first)
{
    weir__gate g;
    weir__gate_init(&g);
    EXPECT(IDLE(), "idle");
    EXPECT(WM(WEIR_TS_MAX), "active wm MAX");
    EXPECT(WM(WEIR_TS_MAX), "");
}
