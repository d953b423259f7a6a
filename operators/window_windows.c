/* window_windows.c — windows with state of their own, one value per (key,
 * window): the global window, and tumbling and sliding windows under a count
 * trigger (a count is per window, so sliding windows cannot share panes; an
 * element then goes into each of its windows, as in Flink). Tumbling and
 * sliding windows with time triggers are window_panes.c's.
 *
 * The value is a 24-byte header and the accumulator (reduce, aggregate); a
 * process function's elements are a list in the same namespace. The
 * namespace is the window's start (0 for the global window).
 *
 * Timers: one per window at a time. When a window's state is created its
 * first timer is set — at window.max for a time trigger that still waits for
 * it, else at the cleanup time — and when that timer fires (the window fires)
 * the next one, at the cleanup time, is set. With no lateness the two are the
 * same timer, which fires the window and then removes it. Nothing is
 * registered per record: a window's timers depend only on the window and on
 * the watermark when its state was made, exactly the timers Flink's
 * per-element registrations would leave (they are idempotent).
 *
 * An element that arrives when the watermark has passed window.max but not
 * the cleanup time fires the window at once (a late firing); after the
 * cleanup time the window is late and the element skips it (SEMANTICS.md 7).
 */
#include <string.h>

#include "weir/error.h"
#include "weir/state.h"
#include "window_internal.h"

typedef struct win_head {
    int64_t count;   /* elements in the contents (0 after a purge) */
    int64_t since;   /* count trigger: elements since the last firing */
    int32_t firings; /* firings so far: the next one's index */
    uint32_t live;   /* the first timer is set */
} win_head;

_Static_assert(sizeof(win_head) == 24, "window.c sizes the value with a 24-byte header");

typedef struct bounds {
    int64_t start, end, max, cleanup;
} bounds;

static bounds window_bounds(const weir__wconf *c, int64_t ns)
{
    bounds b;
    if (c->global) {
        b.start = WEIR_TS_MIN;
        b.end = b.max = b.cleanup = WEIR_TS_MAX;
        return b;
    }
    b.start = ns;
    b.end = weir__window_end(ns, c->size);
    b.max = weir__window_max(b.end);
    b.cleanup = weir__window_cleanup(c, b.max);
    return b;
}

static bool time_trigger(const weir__wconf *c)
{
    return c->trigger == WEIR_TRIGGER_EVENT_TIME || c->trigger == WEIR_TRIGGER_PROCESSING_TIME;
}

static unsigned char *acc_of(win_head *h)
{
    return (unsigned char *)h + sizeof *h;
}

/* Fires window `ns` with its contents; purges them after if purging. */
static int fire(weir_ctx *ctx, weir__wop *op, int64_t ns, const bounds *b, bool late)
{
    const weir__wconf *c = op->c;
    win_head *h = weir_state_value(ctx, op->st_win, ns, false);
    if (!h || h->count == 0)
        return 0;
    weir__firing f = {.start = b->start, .end = b->end, .count = h->count,
                      .firing = h->firings++, .late = late};
    if (c->fn == WEIR__FN_PROCESS)
        f.elems = weir_state_list_get(ctx, op->st_elems, ns, &f.nelems); /* h is stale now */
    else
        f.acc = acc_of(h);
    int r = weir__window_emit(ctx, op, &f);
    if (r < 0 || !c->purging)
        return r;
    if (c->fn == WEIR__FN_PROCESS) {
        weir_state_clear(ctx, op->st_elems, ns);
        h = weir_state_value(ctx, op->st_win, ns, false);
        if (h)
            h->count = 0;
    } else {
        h->count = 0;
        weir__window_acc_init(c, acc_of(h));
    }
    return 0;
}

/* The element into window `ns`, if that window is not late. */
static int add(weir_ctx *ctx, weir__wop *op, int64_t ns, const void *elem, int64_t wm, bool *taken)
{
    const weir__wconf *c = op->c;
    bounds b = window_bounds(c, ns);
    if (c->event_time && b.cleanup <= wm)
        return 0; /* a late window: skip it */
    *taken = true;
    win_head *h = weir_state_value(ctx, op->st_win, ns, true);
    if (!h)
        return weir_ctx_state_error(ctx);
    if (!h->live) {
        h->live = 1;
        if (c->fn != WEIR__FN_PROCESS)
            weir__window_acc_init(c, acc_of(h));
        int r = 0;
        if (time_trigger(c) && (!c->event_time || b.max > wm))
            r = weir_timer_register(ctx, c->domain, ns, b.max);
        else if (b.cleanup != WEIR_TS_MAX)
            r = weir_timer_register(ctx, c->domain, ns, b.cleanup);
        if (r < 0)
            return r;
    }
    if (c->fn != WEIR__FN_PROCESS)
        weir__window_acc_add(c, acc_of(h), h->count, elem);
    h->count++;
    bool now = false, late = false;
    if (c->trigger == WEIR_TRIGGER_EVENT_TIME) {
        now = late = b.max <= wm;
    } else if (c->trigger == WEIR_TRIGGER_COUNT && ++h->since >= c->count) {
        h->since = 0;
        now = true;
        late = c->event_time && b.max <= wm;
    }
    if (c->fn == WEIR__FN_PROCESS) {
        int r = weir_state_list_add(ctx, op->st_elems, ns, elem);
        if (r < 0)
            return r;
    }
    return now ? fire(ctx, op, ns, &b, late) : 0;
}

int weir__windows_record(weir_ctx *ctx, weir__wop *op, const void *elem, int64_t ts)
{
    const weir__wconf *c = op->c;
    int64_t wm = weir_ctx_watermark(ctx);
    int64_t t = c->event_time ? ts : weir_ctx_now(ctx);
    bool taken = false;
    int64_t first, last;
    int r;
    if (c->global) {
        first = last = 0;
        r = add(ctx, op, 0, elem, wm, &taken);
    } else {
        int64_t pane;
        if (!weir__window_assign(op, t, &pane, &first, &last))
            return weir__window_skipped(ctx, op, elem, ts, last, weir__window_end(last, c->size));
        /* Every window of the element (sliding under a count trigger: the
         * latest first, Flink's order). */
        r = 0;
        uint64_t n = weir__steps(first, last, c->slide);
        for (uint64_t j = 0; r == 0 && j <= n; j++)
            r = add(ctx, op, weir__stepped(last, j, -c->slide), elem, wm, &taken);
    }
    if (r < 0)
        return r;
    if (!taken) {
        bounds b = window_bounds(c, last);
        return weir__window_skipped(ctx, op, elem, ts, b.start, b.end);
    }
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    return 0;
}

int weir__windows_timer(weir_ctx *ctx, weir__wop *op, const weir_timer *t)
{
    const weir__wconf *c = op->c;
    int64_t ns = t->ns;
    bounds b = window_bounds(c, ns);
    if (time_trigger(c) && t->timestamp == b.max) {
        int r = fire(ctx, op, ns, &b, false);
        if (r < 0)
            return r;
    }
    if (b.cleanup == WEIR_TS_MAX)
        return 0; /* never cleaned up (the global window; an overflowing lateness) */
    if (t->timestamp == b.cleanup) {
        if (!weir_state_value(ctx, op->st_win, ns, false))
            return 0;
        weir_state_clear(ctx, op->st_win, ns);
        if (c->fn == WEIR__FN_PROCESS)
            weir_state_clear(ctx, op->st_elems, ns);
        weir_ctx_report_cleanup(ctx, b.start, b.end);
        return 0;
    }
    if (t->timestamp < b.cleanup && weir_state_value(ctx, op->st_win, ns, false))
        return weir_timer_register(ctx, c->domain, ns, b.cleanup);
    return 0;
}
