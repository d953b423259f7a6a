/* window_windows.c — windows with state of their own, one value per (key,
 * window): the global window, and tumbling and sliding windows under a count
 * trigger (a count is per window, so sliding windows cannot share panes; an
 * element then goes into each of its windows, as in Flink). Tumbling and
 * sliding windows with time triggers are window_panes.c's.
 *
 * The value is a 24-byte header and the accumulator (reduce, aggregate). Its
 * namespace is the window's start (0 for the global window); sliding windows
 * that begin before MIN (several can: window_internal.h) are kept in a value
 * state of their own, st_before_min, under their wrapped start (weir__win_ns).
 *
 * A process function's elements: on overlapping sliding windows, once per
 * pane, in the pane list and per-pane element lists of window_panes.c (an
 * element is in several windows, and is kept once, not once per window); a
 * window gathers its panes' elements when it fires and frees the panes no
 * later window covers at its cleanup. A purging trigger empties one window
 * and not the others that share its panes, so there every element carries
 * its arrival number and a window the number at its last purge (after the
 * header): its contents are the elements of its panes that came after. On
 * other windows (tumbling, sliding with gaps, global), where an element is in
 * one window, the window's elements are a list under its start.
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
 * The global window is never late: an element after MAX joins it, and it
 * does not fire again (its one firing was its timer at MAX).
 */
#include <string.h>

#include "weir/error.h"
#include "weir/state.h"
#include "window_engines.h"
#include "window_function.h"
#include "window_internal.h"

typedef struct win_head {
    int64_t count;   /* elements in the contents (0 after a purge) */
    int64_t since;   /* count trigger: elements since the last firing */
    int32_t firings; /* firings so far: the next one's index */
    uint32_t live;   /* the first timer is set */
    /* the accumulator follows (reduce, aggregate), or with elem_seq the
     * arrival number of the last element purged */
} win_head;

_Static_assert(sizeof(win_head) % 8 == 0, "a window's header keeps its accumulator aligned");
const size_t weir__windows_header_size = sizeof(win_head);

/* A window: its true start (0 for the global window) and what follows. */
typedef struct bounds {
    weir__wide s;
    int64_t start, end, max, cleanup;
    int st;     /* the header's state */
    int64_t ns; /* the header's namespace */
} bounds;

static bounds window_bounds(const weir__window_op *op, weir__wide s)
{
    const weir__window_config *c = op->c;
    bounds b;
    b.s = s;
    if (c->global) {
        b.start = WEIR_TS_MIN;
        b.end = b.max = b.cleanup = WEIR_TS_MAX;
        b.st = op->st_win;
        b.ns = 0;
        return b;
    }
    b.start = weir__win_start(s);
    b.end = weir__win_end(c, s);
    b.max = weir__win_max(c, s);
    b.cleanup = weir__window_cleanup(c, b.max);
    b.st = s < INT64_MIN ? op->st_before_min : op->st_win;
    b.ns = weir__win_ns(s);
    return b;
}

static bool time_trigger(const weir__window_config *c)
{
    return c->trigger == WEIR_TRIGGER_EVENT_TIME || c->trigger == WEIR_TRIGGER_PROCESSING_TIME;
}

static unsigned char *acc_of(win_head *h)
{
    return (unsigned char *)h + sizeof *h;
}

static uint64_t purged_of(win_head *h)
{
    uint64_t v;
    memcpy(&v, acc_of(h), sizeof v);
    return v;
}

/* A window's element list when it is its own (not per pane): under its
 * start, which only one window has when windows do not overlap. */
static int64_t elems_ns(const bounds *b)
{
    return b->start;
}

/* Fires the window with its contents; purges them after if purging. */
static int fire(weir_ctx *ctx, weir__window_op *op, const bounds *b, bool late)
{
    const weir__window_config *c = op->c;
    win_head *h = weir_state_value(ctx, b->st, b->ns, false);
    if (!h || h->count == 0)
        return 0;
    weir__firing f = {.start = b->start, .end = b->end, .max = b->max, .count = h->count,
                      .firing = h->firings++, .late = late};
    int r;
    if (c->fn != WEIR__FN_PROCESS) {
        f.acc = acc_of(h);
    } else if (c->pane_elems) {
        /* h is stale after this */
        r = weir__panes_gather(ctx, op, b->start, b->max, c->elem_seq ? purged_of(h) : 0,
                               &f.nelems);
        if (r < 0)
            return r;
        f.elems = op->buf.p;
    } else {
        f.elems = weir_state_list_get(ctx, op->st_elems, elems_ns(b), &f.nelems); /* h stale */
    }
    r = weir__window_emit(ctx, op, &f);
    if (r < 0 || !c->purging)
        return r;
    if (c->fn == WEIR__FN_PROCESS) {
        if (!c->pane_elems)
            weir_state_clear(ctx, op->st_elems, elems_ns(b));
        h = weir_state_value(ctx, b->st, b->ns, false);
        if (h) {
            h->count = 0;
            if (c->elem_seq)
                memcpy(acc_of(h), &op->seq, sizeof op->seq);
        }
    } else {
        h->count = 0;
        weir__window_acc_init(c, acc_of(h));
    }
    return 0;
}

/* The element into window s, if that window is not late. */
static int add(weir_ctx *ctx, weir__window_op *op, weir__wide s, const void *elem, int64_t wm,
               bool *taken)
{
    const weir__window_config *c = op->c;
    bounds b = window_bounds(op, s);
    /* The global window is not an event-time window (Flink's
     * GlobalWindows.isEventTime() is false): it is never late, and an
     * element after MAX joins it. */
    bool event_window = c->event_time && !c->global;
    if (event_window && b.cleanup <= wm)
        return 0; /* a late window: skip it */
    *taken = true;
    win_head *h = weir_state_value(ctx, b.st, b.ns, true);
    if (!h)
        return weir_ctx_state_error(ctx);
    if (!h->live) {
        h->live = 1;
        if (c->fn != WEIR__FN_PROCESS)
            weir__window_acc_init(c, acc_of(h));
        int r = 0;
        if (time_trigger(c) && (!c->event_time || b.max > wm))
            r = weir_timer_register(ctx, c->domain, b.ns, b.max);
        else if (b.cleanup != WEIR_TS_MAX)
            r = weir_timer_register(ctx, c->domain, b.ns, b.cleanup);
        if (r < 0)
            return r;
    }
    if (c->fn != WEIR__FN_PROCESS)
        weir__window_acc_add(c, acc_of(h), h->count, elem);
    h->count++;
    bool now = false, late = false;
    if (c->trigger == WEIR_TRIGGER_EVENT_TIME) {
        /* The global window's end-of-input trigger fires at its timer, at
         * MAX, only: after MAX the window fires no more. */
        now = late = event_window && b.max <= wm;
    } else if (c->trigger == WEIR_TRIGGER_COUNT && ++h->since >= c->count) {
        h->since = 0;
        now = true;
        late = event_window && b.max <= wm;
    }
    if (c->fn == WEIR__FN_PROCESS && !c->pane_elems) {
        int r = weir_state_list_add(ctx, op->st_elems, elems_ns(&b), elem);
        if (r < 0)
            return r;
    }
    return now ? fire(ctx, op, &b, late) : 0;
}

int weir__windows_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts)
{
    const weir__window_config *c = op->c;
    int64_t wm = weir_ctx_watermark(ctx);
    int64_t t = c->event_time ? ts : weir_ctx_now(ctx);
    bool taken = false;
    weir__wide last;
    int r;
    if (c->global) {
        last = 0;
        r = add(ctx, op, 0, elem, wm, &taken);
    } else {
        const weir__assignment *a = weir__window_assign(op, t);
        const weir__wide first = a->first;
        last = a->last;
        /* Kept once, in its pane, if any window takes it (the last one has
         * the latest cleanup), before any of them fires. */
        if (!a->any || (c->pane_elems && c->event_time && a->last_cleanup <= wm))
            return weir__window_skipped(ctx, op, elem, ts, weir__win_start(last),
                                        weir__win_end(c, last));
        if (c->pane_elems) {
            op->seq++;
            if ((r = weir__panes_put(ctx, op, a->pane, elem)) < 0)
                return r;
        }
        /* Every window of the element (sliding under a count trigger: the
         * latest first, Flink's order). */
        r = 0;
        for (weir__wide s = last; r == 0 && s >= first; s -= c->slide)
            r = add(ctx, op, s, elem, wm, &taken);
    }
    if (r < 0)
        return r;
    if (!taken) {
        bounds b = window_bounds(op, last);
        return weir__window_skipped(ctx, op, elem, ts, b.start, b.end);
    }
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    return 0;
}

int weir__windows_timer(weir_ctx *ctx, weir__window_op *op, const weir_timer *t)
{
    const weir__window_config *c = op->c;
    bounds b = window_bounds(op, c->global ? 0 : weir__win_of_timer(c, t->ns, t->timestamp));
    if (time_trigger(c) && t->timestamp == b.max) {
        int r = fire(ctx, op, &b, false);
        if (r < 0)
            return r;
    }
    if (b.cleanup == WEIR_TS_MAX)
        return 0; /* never cleaned up (the global window; an overflowing lateness) */
    if (t->timestamp == b.cleanup) {
        if (!weir_state_value(ctx, b.st, b.ns, false))
            return 0;
        weir_state_clear(ctx, b.st, b.ns);
        if (c->pane_elems) {
            /* the panes no later window covers */
            int r = weir__panes_free(ctx, op, b.start, b.s + c->slide);
            if (r < 0)
                return r;
        } else if (c->fn == WEIR__FN_PROCESS) {
            weir_state_clear(ctx, op->st_elems, elems_ns(&b));
        }
        weir_ctx_report_cleanup(ctx, b.start, b.end);
        return 0;
    }
    if (t->timestamp < b.cleanup && weir_state_value(ctx, b.st, b.ns, false))
        return weir_timer_register(ctx, c->domain, b.ns, b.cleanup);
    return 0;
}
