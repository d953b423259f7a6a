/* wm_actions.h — test helpers for the output gate, the valve and the
 * combiner (runtime/valve.h): render what one call returned as text ("wm 10",
 * "wm 100 idle", "active"), keep a log of a whole run, and assert one call's
 * result. Shared by test_gate.c, test_valve.c and test_combiner.c. */
#ifndef WEIR_TESTS_WM_ACTIONS_H
#define WEIR_TESTS_WM_ACTIONS_H

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "valve.h"
#include "weir/time.h"

/* Renders the actions of one call as "wm 10", "wm 100 idle", "active" or "",
 * with MIN and MAX as words. A malformed result (a count out of range or an
 * unknown kind) renders as text that no expectation contains, so it fails. */
static inline void describe(weir__wm_actions a, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (a.n < 0 || a.n > 2) {
        snprintf(buf, len, "BAD n=%d", a.n);
        return;
    }
    for (int i = 0; i < a.n && used < len; i++) {
        const char *sep = i ? " " : "";
        int w = 0;
        switch (a.act[i].kind) {
        case WEIR__ACT_WATERMARK:
            if (a.act[i].watermark == WEIR_TS_MIN)
                w = snprintf(buf + used, len - used, "%swm MIN", sep);
            else if (a.act[i].watermark == WEIR_TS_MAX)
                w = snprintf(buf + used, len - used, "%swm MAX", sep);
            else
                w = snprintf(buf + used, len - used, "%swm %" PRId64, sep,
                             a.act[i].watermark);
            break;
        case WEIR__ACT_IDLE:
            w = snprintf(buf + used, len - used, "%sidle", sep);
            break;
        case WEIR__ACT_ACTIVE:
            w = snprintf(buf + used, len - used, "%sactive", sep);
            break;
        default:
            w = snprintf(buf + used, len - used, "%sBAD kind=%d", sep, (int)a.act[i].kind);
            break;
        }
        if (w < 0)
            return;
        used += (size_t)w;
    }
}

/* Appends one call's actions to a running log, space separated, so that whole
 * runs can be compared with each other. */
static inline void append(char *log, size_t len, weir__wm_actions a)
{
    char one[128];
    describe(a, one, sizeof one);
    if (one[0] == '\0')
        return;
    size_t used = strlen(log);
    size_t add = strlen(one);
    cr_assert_lt(used + 1 + add, len, "the test's log buffer is too small");
    if (used)
        log[used++] = ' ';
    memcpy(log + used, one, add + 1);
}

/* Asserts that one call returns exactly `want`; the message names the call. */
#define EXPECT(call, want)                                                       \
    do {                                                                         \
        char got_[128];                                                          \
        describe((call), got_, sizeof got_);                                     \
        cr_assert_str_eq(got_, (want), "%s gave \"%s\", expected \"%s\"", #call, \
                         got_, (want));                                          \
    } while (0)

#endif
