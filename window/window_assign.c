/* window_assign.c — the arithmetic of window assigners (SEMANTICS.md 7):
 * where a window with an offset starts, which sliding windows contain a
 * timestamp, and saturating sums for cleanup times.
 *
 * Timestamps span all of int64, so every sum here could overflow. Signed
 * overflow is undefined behaviour in C, and a window near MIN or MAX must not
 * wrap around to the other end of time. A window is computed from its true
 * start, which may lie before MIN (the window that holds MIN, and for
 * sliding windows the others that hold it too), as a weir__wide; only its
 * reported start is clamped at MIN, and only its end at MAX
 * (window_internal.h says what such a window is). Cleanup times saturate: one
 * that would pass MAX is MAX, which means "never". The common case —
 * timestamps and offsets well inside the range — takes one 64-bit division
 * and no 128-bit one (a 128-bit division is a slow library call).
 */
#include <stdint.h>

#include "window_internal.h"

weir__wide weir__window_start(int64_t ts, int64_t offset, int64_t step)
{
    int64_t d, r;
    if (!__builtin_sub_overflow(ts, offset, &d)) {
        r = d % step;
        if (r < 0)
            r += step;
    } else {
        weir__wide w = ((weir__wide)ts - offset) % step;
        if (w < 0)
            w += step;
        r = (int64_t)w;
    }
    /* r is in [0, step): the start is at most step - 1 before ts, and may
     * lie before MIN. */
    return (weir__wide)ts - r;
}

bool weir__window_range(int64_t t, int64_t size, int64_t slide, int64_t offset, weir__wide *first,
                        weir__wide *last)
{
    weir__wide s_last = weir__window_start(t, offset, slide);
    *last = s_last;
    /* Starts s_last, s_last - slide, ... while start > t - size. The span
     * s_last - (t - size) lies in (size - slide, size]: it fits in 64 bits,
     * and so does the number of steps. */
    int64_t span = (int64_t)(s_last - ((weir__wide)t - size));
    *first = s_last;
    if (span <= 0)
        return false;
    *first = s_last - (weir__wide)((span - 1) / slide) * slide;
    return true;
}

weir__wide weir__window_next_at_or_after(weir__wide first, int64_t slide, weir__wide from)
{
    weir__wide d = from - first; /* > 0 */
    if (d <= (weir__wide)(INT64_MAX - slide))
        return first + (weir__wide)(((int64_t)d + slide - 1) / slide) * slide;
    return first + (d + slide - 1) / slide * slide;
}

int64_t weir__gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

const weir__assignment *weir__window_assign_slow(weir__window_op *op, int64_t t)
{
    const weir__window_config *c = op->c;
    weir__assignment *m = &op->memo;
    weir__wide q = weir__window_start(t, c->offset, c->pane);
    if (c->slide == c->size) {
        m->first = m->last = q; /* tumbling: the pane is the window */
        m->any = true;
    } else {
        m->any = weir__window_range(t, c->size, c->slide, c->offset, &m->first, &m->last);
    }
    m->pane = m->lo = weir__win_start(q);
    m->hi = weir__clamp(q + c->pane); /* the pane's true end (MAX: t = MAX never hits) */
    m->first_max = weir__win_max(c, m->first);
    m->last_cleanup = weir__window_cleanup(c, weir__win_max(c, m->last));
    return m;
}
