/* window_assign.c — the arithmetic of window assigners (SEMANTICS.md 7):
 * where a window with an offset starts, which sliding windows contain a
 * timestamp, and saturating sums for ends and cleanup times.
 *
 * Timestamps span all of int64, so every sum here could overflow. Signed
 * overflow is undefined behaviour in C, and a window near MIN or MAX must not
 * wrap around to the other end of time: sums saturate (a window whose end
 * would pass MAX ends at MAX, a cleanup time that would pass MAX is MAX,
 * which means "never"). The common case — timestamps and offsets well inside
 * the range — takes one 64-bit division; 128-bit arithmetic is only the
 * fallback for the extremes.
 */
#include <stdint.h>

#include "window_internal.h"

__extension__ typedef __int128 wide;

static int64_t clamp(wide v)
{
    if (v < INT64_MIN)
        return INT64_MIN;
    if (v > INT64_MAX)
        return INT64_MAX;
    return (int64_t)v;
}

int64_t weir__sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

int64_t weir__window_start(int64_t ts, int64_t offset, int64_t step)
{
    int64_t d, r;
    if (!__builtin_sub_overflow(ts, offset, &d)) {
        r = d % step;
        if (r < 0)
            r += step;
    } else {
        wide w = ((wide)ts - offset) % step;
        if (w < 0)
            w += step;
        r = (int64_t)w;
    }
    /* r is in [0, step): the start is at most step - 1 before ts. */
    int64_t s;
    if (__builtin_sub_overflow(ts, r, &s))
        return INT64_MIN;
    return s;
}

bool weir__window_range(int64_t t, int64_t size, int64_t slide, int64_t offset, int64_t *first,
                        int64_t *last)
{
    int64_t s_last = weir__window_start(t, offset, slide);
    /* Starts s_last, s_last - slide, ... while start > t - size. */
    int64_t lo, span64;
    if (!__builtin_sub_overflow(t, size, &lo) && !__builtin_sub_overflow(s_last, lo, &span64) &&
        !__builtin_sub_overflow(s_last, ((span64 - 1) / slide) * slide, first)) {
        /* the usual case, in 64 bits (128-bit division is a slow call) */
        if (span64 <= 0)
            return false;
        *last = s_last;
        return true;
    }
    wide span = (wide)s_last - ((wide)t - size); /* > 0 iff s_last itself contains t */
    if (span <= 0)
        return false;
    wide k = (span - 1) / slide;
    wide s_first = (wide)s_last - k * slide;
    if (s_first < INT64_MIN) /* windows before the beginning of time do not exist */
        s_first = (wide)s_last - (((wide)s_last - INT64_MIN) / slide) * slide;
    *first = (int64_t)s_first;
    *last = s_last;
    return true;
}

int64_t weir__window_next_at_or_after(int64_t first, int64_t slide, int64_t from)
{
    wide k = ((wide)from - first + slide - 1) / slide;
    return clamp((wide)first + k * slide);
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

bool weir__window_assign_slow(weir__wop *op, int64_t t, int64_t *pane, int64_t *first,
                              int64_t *last)
{
    const weir__wconf *c = op->c;
    int64_t q = weir__window_start(t, c->offset, c->pane);
    bool any;
    if (c->slide == c->size) {
        *first = *last = q; /* tumbling: the pane is the window */
        any = true;
    } else {
        any = weir__window_range(t, c->size, c->slide, c->offset, first, last);
        if (!any)
            *first = *last = weir__window_start(t, c->offset, c->slide);
    }
    *pane = q;
    op->memo_lo = q;
    op->memo_hi = weir__sat_add(q, c->pane);
    op->memo_first = *first;
    op->memo_last = *last;
    op->memo_any = any;
    return any;
}
