/* window_panes.c — tumbling and sliding windows over shared panes: the state
 * that makes a window of size S sliding by D cost about what a tumbling
 * window costs, instead of S/D times as much. A tumbling window is the case
 * D = S: one pane per window, and none of the chaining below. Cumulative
 * windows (all the windows of a period that start with it, one step longer
 * each) keep the same pane list; their timers and cleanups are at the end
 * of this file, with their own short design note.
 *
 * Design
 * ------
 * Time is cut into panes of P = gcd(S, D), aligned with the offset, so every
 * window [s, s + S) is exactly the panes s, s + P, ..., s + S - P. An element
 * goes into one pane — one fold — instead of into S/D windows.
 *
 * A key's panes are one list state (namespace 0): entries of {start, count,
 * partial accumulator} sorted by start (a process function's elements are a
 * list of their own per pane, namespace = the pane's start: kept once, not
 * once per window). An element costs one lookup (the key's list, updated in
 * place) and, in time-ordered data, a look at its last entry; a new pane is
 * usually an append. A window fires by folding the contiguous run of entries
 * in [s, s + S): one lookup and a scan, not S/P lookups (a 1 h window
 * sliding by 7 s has 1 s panes, most of them empty for a sparse key).
 * Cleanups take entries from the front. The key's first open pane makes its
 * list (one small allocation; a key's list goes with its last pane, so that
 * a key that is not seen again leaves nothing behind).
 *
 * The windows engine (window_windows.c) uses the same pane list and
 * per-pane elements for a process function on overlapping sliding windows
 * under a count trigger (weir__panes_put, _gather, _free), with entries of
 * just {start, count}.
 *
 * Near the ends of time the panes and windows stay on the grid: the pane
 * and the windows that hold MIN may begin before it (their entries and
 * reports say MIN; the windows are told apart by their true start,
 * window_internal.h), and a window that ends after MAX covers MAX and fires
 * at the MAX watermark.
 *
 * Timers are per (key, window), namespace = the window's start (wrapped for
 * one that begins before MIN, weir__win_ns), but are not registered per
 * record, nor for every window an element falls in:
 *   - creating a pane registers the trigger timer of the first window that
 *     covers it and whose max is still ahead of the watermark — unless an
 *     older pane of the key lies in that window too, which gives the
 *     window its timer already (so in time-ordered data a key's first
 *     pane registers, and the chain does the rest);
 *   - a window firing on its timer registers the next window's timer
 *     (start + D) if a pane it shares with that window exists — the chain
 *     visits every window that has content, in time order; a window whose
 *     panes are all newer is reached through those panes' own registrations;
 *   - a window that fires registers its cleanup timer (max + lateness),
 *     which is the trigger timer itself when there is no lateness.
 * So each (key, pane) costs one registration and each firing at most two,
 * and the timers that exist are exactly the ones Flink's per-element,
 * per-window registrations would leave behind (timers are idempotent).
 *
 * Invariants
 * ----------
 * 1. A pane lives until the last window covering it is cleaned up: cleaning
 *    up window s frees the panes [s, s + min(D, S)), the ones no later
 *    window covers (the key's list goes with its last pane). Every window
 *    with content fires, and every window that fires gets a cleanup timer,
 *    so every pane is freed (unless the cleanup time overflows to MAX: then,
 *    as SEMANTICS.md 7 says, never).
 * 2. A window is late (cleanup <= watermark) only after its cleanup timer
 *    fired; a late window never fires again, so panes it shares with later
 *    windows may keep growing without changing anything it emitted.
 * 3. A window that has content before an element arrives has fired iff the
 *    watermark passed its max: content that came before its max got its
 *    timer (1st and 2nd bullet above), content that came after fired it at
 *    once. Hence a late firing's index is 1 + the late firings counted in a
 *    small per-window value kept only in the lateness period, and under a
 *    purging trigger the contents of a late firing are just the element that
 *    caused it (every earlier element was purged by a firing of its own).
 *
 * Lateness stays exactly per window (SEMANTICS.md 7): an element whose last
 * window is late is late; otherwise it joins its pane, and each of its
 * windows whose max the watermark passed but whose cleanup it did not fires
 * at once. Processing-time sliding windows use the same panes with
 * processing-time timers and no lateness.
 */
#include <string.h>

#include "weir/error.h"
#include "weir/state.h"
#include "window_engines.h"
#include "window_function.h"
#include "window_internal.h"

typedef struct pane {
    int64_t start; /* the pane's start (MIN for the pane that begins before it) */
    int64_t count; /* elements in the pane */
    /* the partial accumulator follows (reduce, aggregate) */
} pane;

/* A multiple of 8, as the accumulator after it is aligned. */
_Static_assert(sizeof(pane) % 8 == 0, "a pane's header keeps its accumulator aligned");
const size_t weir__panes_header_size = sizeof(pane);

static pane *pane_at(const weir__window_config *c, void *list, size_t i)
{
    return (pane *)(void *)((unsigned char *)list + i * c->pane_size);
}

static unsigned char *acc_of(pane *p)
{
    return (unsigned char *)p + sizeof *p;
}

/* The first entry of the sorted list (n entries) whose start is >= q. */
static size_t lower_bound(const weir__window_config *c, void *list, size_t n, int64_t q)
{
    return weir__window_search(list, n, c->pane_size, offsetof(pane, start), q);
}

/* Where pane q is or goes in the key's list: in time-ordered data its last
 * entry, or after it. */
static size_t find(const weir__window_config *c, void *list, size_t n, int64_t q)
{
    if (n == 0 || pane_at(c, list, n - 1)->start < q)
        return n;
    return pane_at(c, list, n - 1)->start == q ? n - 1 : lower_bound(c, list, n, q);
}

/* The elements of entries [i, j) of the key's pane list into op->buf (those
 * that arrived after `after`, with arrival numbers), *nout of them. */
static int gather(weir_ctx *ctx, weir__window_op *op, void *list, size_t i, size_t j,
                  uint64_t after, size_t *nout)
{
    const weir__window_config *c = op->c;
    *nout = 0;
    if (j == i)
        return 0;
    /* Every list call may move the pane list, so take the starts first. */
    size_t m = j - i, n = 0;
    int64_t *starts = (int64_t *)(void *)weir__scratch_get(ctx, &op->cat, m * sizeof *starts);
    if (!starts)
        return weir_ctx_error(ctx);
    for (size_t k = 0; k < m; k++)
        starts[k] = pane_at(c, list, i + k)->start;
    for (size_t k = 0; k < m; k++) {
        size_t got;
        const unsigned char *e = weir_state_list_get(ctx, op->st_elems, starts[k], &got);
        unsigned char *buf = weir__scratch_get(ctx, &op->buf, (n + got) * c->in_size);
        if (!buf)
            return weir_ctx_error(ctx);
        if (!c->elem_seq) {
            memcpy(buf + n * c->in_size, e, got * c->in_size);
            n += got;
            continue;
        }
        for (size_t x = 0; x < got; x++, e += c->elem_size) {
            uint64_t seq;
            memcpy(&seq, e, sizeof seq);
            if (seq > after)
                memcpy(buf + n++ * c->in_size, e + sizeof seq, c->in_size);
        }
    }
    *nout = n;
    return 0;
}

/* What combining a window's panes found. */
typedef struct combined {
    int64_t count;       /* elements in all its panes */
    int64_t last_pane;   /* the latest pane that exists (if count > 0) */
    size_t nelems;       /* process: elements gathered into op->buf */
} combined;

/* Folds the panes of the window that starts at `lo` (clamped) and has max
 * `hi` into op->acc, or gathers their elements into op->buf. */
static int combine(weir_ctx *ctx, weir__window_op *op, int64_t lo, int64_t hi, combined *out)
{
    const weir__window_config *c = op->c;
    out->count = 0;
    out->last_pane = WEIR_TS_MIN;
    out->nelems = 0;
    size_t n;
    void *list = weir_state_list_data(ctx, op->st_panes, 0, &n);
    size_t i = lower_bound(c, list, n, lo), j = i;
    for (; j < n && pane_at(c, list, j)->start <= hi; j++) {
        pane *p = pane_at(c, list, j);
        if (c->fn != WEIR__FN_PROCESS) {
            if (out->count == 0)
                memcpy(op->acc, acc_of(p), c->acc_size);
            else
                weir__window_acc_merge(c, op->acc, out->count, acc_of(p));
        }
        out->count += p->count;
        out->last_pane = p->start;
    }
    if (c->fn != WEIR__FN_PROCESS)
        return 0;
    return gather(ctx, op, list, i, j, 0, &out->nelems);
}

int weir__panes_gather(weir_ctx *ctx, weir__window_op *op, int64_t lo, int64_t hi, uint64_t after,
                       size_t *n)
{
    const weir__window_config *c = op->c;
    size_t len;
    void *list = weir_state_list_data(ctx, op->st_panes, 0, &len);
    size_t i = lower_bound(c, list, len, lo), j = i;
    while (j < len && pane_at(c, list, j)->start <= hi)
        j++;
    return gather(ctx, op, list, i, j, after, n);
}

/* A window: its true start, what it reports, and its namespaces: of its
 * timers, and of its firing count in st_meta (both its start, wrapped, for
 * tumbling and sliding windows; cumulative windows share their period's
 * start and are told apart by their max). */
typedef struct win {
    weir__wide s;
    int64_t start, end, max;
    int64_t ns, meta;
} win;

static win win_at(const weir__window_config *c, weir__wide s)
{
    win w = {s, weir__win_start(s), weir__win_end(c, s), weir__win_max(c, s), weir__win_ns(s),
             weir__win_ns(s)};
    return w;
}

/* Fires window w. `x` is the element that caused a late firing (NULL for
 * the timer's firing). */
static int fire(weir_ctx *ctx, weir__window_op *op, const win *w, const void *x, combined *got)
{
    const weir__window_config *c = op->c;
    int r = combine(ctx, op, w->start, w->max, got);
    if (r < 0 || got->count == 0)
        return r;
    weir__firing f = {.start = w->start, .end = w->end, .max = w->max, .count = got->count,
                      .late = x != NULL, .acc = op->acc, .elems = op->buf.p,
                      .nelems = got->nelems,
                      /* the timer's caller cleans up at once when cleanup == max */
                      .cleanup = !x && weir__window_cleanup(c, w->max) == w->max};
    if (x && op->st_meta >= 0) {
        /* Invariant 3: the first late firing follows the on-time one iff
         * the window had content before x. */
        int64_t *fired = weir_state_value(ctx, op->st_meta, w->meta, true);
        if (!fired)
            return weir_ctx_state_error(ctx);
        if (*fired == 0)
            *fired = got->count > 1 ? 1 : 0;
        f.firing = (int)*fired;
        (*fired)++;
    }
    if (x && c->purging) {
        f.count = 1;
        f.elems = x;
        f.nelems = 1;
        if (c->fn == WEIR__FN_REDUCE) {
            f.acc = x;
        } else if (c->fn == WEIR__FN_AGGREGATE) {
            weir__window_acc_init(c, op->late_acc);
            weir__window_acc_add(c, op->late_acc, 0, x);
            f.acc = op->late_acc;
        }
    }
    return weir__window_emit(ctx, op, &f);
}

int weir__panes_free(weir_ctx *ctx, weir__window_op *op, int64_t lo, weir__wide stop)
{
    const weir__window_config *c = op->c;
    if (stop <= lo)
        return 0; /* (a window before MIN: its panes are a later one's too) */
    size_t n;
    void *list = weir_state_list_data(ctx, op->st_panes, 0, &n);
    /* Usually the first panes: earlier ones went with earlier windows. The
     * scan to the end of the run costs what it frees. */
    size_t i = n == 0 || pane_at(c, list, 0)->start >= lo ? 0 : lower_bound(c, list, n, lo), j = i;
    if (stop > INT64_MAX) {
        j = n;
    } else {
        int64_t to = (int64_t)stop;
        while (j < n && pane_at(c, list, j)->start < to)
            j++;
    }
    if (j <= i)
        return 0;
    if (c->fn == WEIR__FN_PROCESS) {
        int64_t *starts =
            (int64_t *)(void *)weir__scratch_get(ctx, &op->cat, (j - i) * sizeof *starts);
        if (!starts)
            return weir_ctx_error(ctx);
        for (size_t k = i; k < j; k++)
            starts[k - i] = pane_at(c, list, k)->start;
        for (size_t k = 0; k < j - i; k++)
            weir_state_clear(ctx, op->st_elems, starts[k]);
        list = weir_state_list_data(ctx, op->st_panes, 0, &n);
    }
    /* In place: the rest moves to the front (no allocation). */
    memmove(pane_at(c, list, i), pane_at(c, list, j), (n - j) * c->pane_size);
    return weir_state_list_set(ctx, op->st_panes, 0, list, n - (j - i));
}

/* Window s is done: frees the panes no later window covers. Earlier panes
 * went with earlier windows, so these are at the front of the list. */
static int cleanup(weir_ctx *ctx, weir__window_op *op, const win *w)
{
    const weir__window_config *c = op->c;
    int r = weir__panes_free(ctx, op, w->start, w->s + (c->slide < c->size ? c->slide : c->size));
    if (r < 0)
        return r;
    if (op->st_meta >= 0)
        weir_state_clear(ctx, op->st_meta, w->meta);
    weir_ctx_report_cleanup(ctx, w->start, w->end);
    return 0;
}

static int register_cleanup(weir_ctx *ctx, const weir__window_config *c, const win *w)
{
    int64_t when = weir__window_cleanup(c, w->max);
    if (when == w->max || when == WEIR_TS_MAX)
        return 0; /* the trigger timer cleans up too / never */
    return weir_timer_register(ctx, c->domain, w->ns, when);
}

/* Window w fires at once for the element x that joined it after its max
 * (a late firing, within the lateness), and is cleaned up in time. */
static int fire_late(weir_ctx *ctx, weir__window_op *op, const win *w, const void *x)
{
    combined got;
    int r = fire(ctx, op, w, x, &got);
    return r < 0 ? r : register_cleanup(ctx, op->c, w);
}

/* A new pane q with the element in it (its accumulator: the elements are
 * the caller's), at position `at` of the key's list (`list`, n entries, as
 * just read). */
static int new_pane(weir_ctx *ctx, weir__window_op *op, int64_t q, const void *elem, void *list,
                    size_t at, size_t n)
{
    const weir__window_config *c = op->c;
    pane *p = (pane *)(void *)op->entry;
    memset(p, 0, c->pane_size);
    p->start = q;
    p->count = 1;
    if (c->fn != WEIR__FN_PROCESS) {
        weir__window_acc_init(c, acc_of(p));
        weir__window_acc_add(c, acc_of(p), 0, elem);
    }
    /* A key's first pane makes a list of just one entry (list_add would
     * reserve four); appends double it. */
    if (n == 0)
        return weir_state_list_set(ctx, op->st_panes, 0, p, 1);
    if (at == n)
        return weir_state_list_add(ctx, op->st_panes, 0, p);
    /* Out of time order: rebuilt with the pane in its place (rare). */
    unsigned char *tmp = weir__scratch_get(ctx, &op->cat, (n + 1) * c->pane_size);
    if (!tmp)
        return weir_ctx_error(ctx);
    memcpy(tmp, list, at * c->pane_size);
    memcpy(tmp + at * c->pane_size, p, c->pane_size);
    memcpy(tmp + (at + 1) * c->pane_size, pane_at(c, list, at), (n - at) * c->pane_size);
    return weir_state_list_set(ctx, op->st_panes, 0, tmp, n + 1);
}

/* Appends a process function's element to pane q's elements. */
static int add_elem(weir_ctx *ctx, weir__window_op *op, int64_t q, const void *elem)
{
    const weir__window_config *c = op->c;
    if (!c->elem_seq)
        return weir_state_list_add(ctx, op->st_elems, q, elem);
    unsigned char *e = weir__scratch_get(ctx, &op->buf, c->elem_size);
    if (!e)
        return weir_ctx_error(ctx);
    uint64_t seq = op->seq;
    memcpy(e, &seq, sizeof seq);
    memcpy(e + sizeof seq, elem, c->in_size);
    return weir_state_list_add(ctx, op->st_elems, q, e);
}

/* The element into the key's existing pane p (p is stale after this). */
static int add_to_pane(weir_ctx *ctx, weir__window_op *op, pane *p, const void *elem)
{
    const weir__window_config *c = op->c;
    if (c->fn != WEIR__FN_PROCESS)
        weir__window_acc_add(c, acc_of(p), p->count, elem);
    p->count++;
    return c->fn == WEIR__FN_PROCESS ? add_elem(ctx, op, p->start, elem) : 0;
}

int weir__panes_put(weir_ctx *ctx, weir__window_op *op, int64_t q, const void *elem)
{
    const weir__window_config *c = op->c;
    size_t n;
    void *list = weir_state_list_data(ctx, op->st_panes, 0, &n);
    size_t at = find(c, list, n, q);
    int r;
    if (at < n && pane_at(c, list, at)->start == q)
        pane_at(c, list, at)->count++;
    else if ((r = new_pane(ctx, op, q, elem, list, at, n)) < 0)
        return r;
    return add_elem(ctx, op, q, elem);
}

int weir__panes_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts)
{
    const weir__window_config *c = op->c;
    int64_t wm = weir_ctx_watermark(ctx);
    int64_t t = c->event_time ? ts : weir_ctx_now(ctx);
    const weir__assignment *a = weir__window_assign(op, t);
    /* The last window has the latest cleanup: if it is late, all are. */
    if (!a->any || (c->event_time && a->last_cleanup <= wm))
        return weir__window_skipped(ctx, op, elem, ts, weir__win_start(a->last),
                                    weir__win_end(c, a->last));
    int64_t q = a->pane, first_max = a->first_max;

    /* The pane: in time-ordered data the key's last one. */
    size_t n;
    void *list = weir_state_list_data(ctx, op->st_panes, 0, &n);
    size_t at = find(c, list, n, q);
    int r;
    if (at < n && pane_at(c, list, at)->start == q) {
        if ((r = add_to_pane(ctx, op, pane_at(c, list, at), elem)) < 0)
            return r;
    } else {
        weir__wide first = a->first, last = a->last;
        bool has_before = at > 0;
        int64_t before = has_before ? pane_at(c, list, at - 1)->start : 0;
        if ((r = new_pane(ctx, op, q, elem, list, at, n)) < 0)
            return r;
        if (c->fn == WEIR__FN_PROCESS && (r = add_elem(ctx, op, q, elem)) < 0)
            return r;
        /* The first window of this pane still waiting for its max; the
         * chain of firings reaches the later ones. */
        weir__wide s = first;
        if (c->event_time) {
            weir__wide lo = (weir__wide)wm - c->size + 2; /* max = s + size - 1 > wm */
            if (lo > first)
                s = weir__window_next_at_or_after(first, c->slide, lo);
        }
        /* If an older pane lies in that window too, the window has its timer
         * already (it had one when that pane was made, or the chain brings
         * it): in time-ordered data only a key's first pane registers. */
        if (s <= last && !(has_before && before >= s)) {
            r = weir_timer_register(ctx, c->domain, weir__win_ns(s), weir__win_max(c, s));
            if (r < 0)
                return r;
        }
    }
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    if (!c->event_time || first_max > wm)
        return 0;
    /* The watermark passed the max of some of the element's windows: each
     * of those that is not late fires at once (the others are skipped).
     * (Firing does not assign: op->memo still holds the element's.) */
    weir__wide first = op->memo.first, last = op->memo.last;
    weir__wide lo = (weir__wide)wm - c->size + 2 - c->lateness; /* cleanup > wm */
    weir__wide s = lo > first ? weir__window_next_at_or_after(first, c->slide, lo) : first;
    for (; s <= last; s += c->slide) {
        win w = win_at(c, s);
        if (w.max > wm)
            break;
        if ((r = fire_late(ctx, op, &w, elem)) < 0)
            return r;
    }
    return 0;
}

int weir__panes_timer(weir_ctx *ctx, weir__window_op *op, const weir_timer *t)
{
    const weir__window_config *c = op->c;
    win w;
    if (t->ns <= INT64_MAX - c->size) {
        /* the usual window, well inside int64: no 128-bit sums */
        w.s = w.start = w.ns = w.meta = t->ns;
        w.end = t->ns + c->size;
        w.max = w.end - 1;
    } else {
        w = win_at(c, weir__win_of_timer(c, t->ns, t->timestamp));
    }
    int64_t when = weir__window_cleanup(c, w.max);
    if (t->timestamp == w.max) {
        combined got;
        int r = fire(ctx, op, &w, NULL, &got);
        if (r < 0 || got.count == 0)
            return r;
        /* The chain: the next window shares the panes from s + slide on. */
        weir__wide next = w.s + c->slide;
        if (c->slide < c->size && next <= INT64_MAX && got.last_pane >= next) {
            r = weir_timer_register(ctx, c->domain, weir__win_ns(next), weir__win_max(c, next));
            if (r < 0)
                return r;
        }
        if (when == w.max)
            return cleanup(ctx, op, &w);
        return register_cleanup(ctx, c, &w);
    }
    if (t->timestamp == when && when != WEIR_TS_MAX)
        return cleanup(ctx, op, &w);
    return 0;
}

/* ---- cumulative windows ------------------------------------------------------------ */

/* A period of cumulative windows: its true start p (below MIN for the one
 * that holds MIN), its timers' namespace (p clamped at MIN: only one period
 * can begin before MIN, so the clamped start still names it) and the true
 * end of its last window. The windows of a period that would end after
 * MAX all cover MAX and hold the same panes, so the first of them is the
 * period's last window (window.h). */
typedef struct period {
    weir__wide p;
    int64_t ns;
    weir__wide last;
} period;

static period period_at(const weir__window_config *c, weir__wide p)
{
    period pd = {p, weir__win_start(p), p + c->size};
    if (pd.last > (weir__wide)INT64_MAX + 1)
        pd.last = weir__window_start(INT64_MAX, c->offset, c->slide) + c->slide;
    return pd;
}

/* The period a timer namespace names. */
static period period_of_ns(const weir__window_config *c, int64_t ns)
{
    return period_at(c, ns == INT64_MIN ? weir__window_start(INT64_MIN, c->offset, c->size) : ns);
}

/* The window of period pd that ends at true end e (on the step grid). */
static win cwin(const period *pd, weir__wide e)
{
    win w;
    w.s = pd->p;
    w.start = pd->ns;
    w.end = weir__clamp(e);
    w.max = e > INT64_MAX ? INT64_MAX : (int64_t)(e - 1);
    w.ns = pd->ns;
    w.meta = w.max; /* one window of the key per max */
    return w;
}

/* Whether e is the true end of one of pd's windows. */
static bool is_end(const weir__window_config *c, const period *pd, weir__wide e)
{
    return e > pd->p && e <= pd->last && (e == pd->last || (e - pd->p) % c->slide == 0);
}

/* The first window end of pd at or after `from`, starting the search at its
 * window `first` (from > first), or one past the last window if none. */
static weir__wide end_at_or_after(const weir__window_config *c, const period *pd, weir__wide first,
                                  weir__wide from)
{
    if (from <= first)
        return first;
    if (from > pd->last)
        return pd->last + 1;
    weir__wide e = weir__window_next_at_or_after(first, c->slide, from);
    return e > pd->last ? pd->last : e;
}

/* Whether the key has a pane in [lo, hi] (pane starts). */
static bool has_panes(weir_ctx *ctx, weir__window_op *op, int64_t lo, int64_t hi)
{
    size_t n;
    void *list = weir_state_list_data(ctx, op->st_panes, 0, &n);
    size_t i = lower_bound(op->c, list, n, lo);
    return i < n && pane_at(op->c, list, i)->start <= hi;
}

/* Window w of pd (true end e) is done: its firing count goes, and with the
 * period's last window the period's panes. */
static int cumulate_cleanup(weir_ctx *ctx, weir__window_op *op, const period *pd, const win *w,
                            weir__wide e)
{
    if (op->st_meta >= 0)
        weir_state_clear(ctx, op->st_meta, w->meta);
    weir_ctx_report_cleanup(ctx, w->start, w->end);
    return e == pd->last ? weir__panes_free(ctx, op, pd->ns, pd->last) : 0;
}

/* Design: a period's panes (of `step`, the slide) are the key's pane list
 * as for sliding windows, and window [s, e) folds the panes in [s, e). The
 * timers: a new pane registers the first window of its period whose max is
 * above the watermark — unless an older pane of the period exists, whose
 * chain has that timer already — and a window that fires on its timer
 * registers the next window of the period (it holds every pane the fired
 * one holds, so it has content): the chain visits each window of a period
 * from its first pane's on, in order, and nothing is registered per record.
 * Invariant 3 of the design above holds as for sliding windows, so late
 * firings within the lateness count the same way. Cleanup: each window's
 * cleanup time clears its firing count; the last window's frees the
 * period's panes. Timer namespaces are the period's start, so a timer's
 * time says which window it is for: window e fires at e - 1 and is done at
 * e - 1 + lateness (both can fall on one timer; both are then done). */
int weir__cumulate_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts)
{
    const weir__window_config *c = op->c;
    int64_t wm = weir_ctx_watermark(ctx);
    if (!c->event_time) {
        /* processing time: the job clock's now, and every window ending
         * after it is still to fire (no element is late) */
        ts = weir_ctx_now(ctx);
        wm = ts - 1;
    }
    period pd = period_at(c, weir__window_start(ts, c->offset, c->size));
    weir__wide q = weir__window_start(ts, c->offset, c->slide);
    weir__wide first = q + c->slide; /* the first window that holds ts */
    if (first > pd.last)
        first = pd.last;
    win last = cwin(&pd, pd.last);
    if (weir__window_cleanup(c, last.max) <= wm)
        return weir__window_skipped(ctx, op, elem, ts, last.start, last.end);
    int64_t qs = weir__win_start(q);

    size_t n;
    void *list = weir_state_list_data(ctx, op->st_panes, 0, &n);
    size_t at = find(c, list, n, qs);
    int r;
    if (at < n && pane_at(c, list, at)->start == qs) {
        if ((r = add_to_pane(ctx, op, pane_at(c, list, at), elem)) < 0)
            return r;
    } else {
        bool older = at > 0 && pane_at(c, list, at - 1)->start >= pd.ns;
        if ((r = new_pane(ctx, op, qs, elem, list, at, n)) < 0)
            return r;
        if (c->fn == WEIR__FN_PROCESS && (r = add_elem(ctx, op, qs, elem)) < 0)
            return r;
        weir__wide e = end_at_or_after(c, &pd, first, (weir__wide)wm + 2); /* max > wm */
        if (!older && e <= pd.last) {
            win w = cwin(&pd, e);
            if ((r = weir_timer_register(ctx, c->domain, w.ns, w.max)) < 0)
                return r;
        }
    }
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    /* The windows whose max the watermark passed but whose cleanup it did
     * not fire at once (late firings); the earlier ones are late. */
    weir__wide e = end_at_or_after(c, &pd, first, (weir__wide)wm + 2 - c->lateness);
    for (; e <= pd.last; e = end_at_or_after(c, &pd, first, e + 1)) {
        win w = cwin(&pd, e);
        if (w.max > wm)
            break;
        if ((r = fire_late(ctx, op, &w, elem)) < 0)
            return r;
    }
    return 0;
}

int weir__cumulate_timer(weir_ctx *ctx, weir__window_op *op, const weir_timer *t)
{
    const weir__window_config *c = op->c;
    period pd = period_of_ns(c, t->ns);
    /* The window that fires at this time: end t + 1, or at MAX the last
     * window if it covers MAX. */
    weir__wide e = t->timestamp == INT64_MAX && pd.last > INT64_MAX ? pd.last
                                                                     : (weir__wide)t->timestamp + 1;
    if (is_end(c, &pd, e) && (e <= INT64_MAX || t->timestamp == INT64_MAX)) {
        win w = cwin(&pd, e);
        combined got;
        int r;
        if ((r = fire(ctx, op, &w, NULL, &got)) < 0)
            return r;
        if (got.count > 0) {
            if (e < pd.last) {
                win next = cwin(&pd, end_at_or_after(c, &pd, e, e + 1));
                if ((r = weir_timer_register(ctx, c->domain, next.ns, next.max)) < 0)
                    return r;
            }
            if (weir__window_cleanup(c, w.max) == w.max)
                r = cumulate_cleanup(ctx, op, &pd, &w, e);
            else
                r = register_cleanup(ctx, c, &w);
            if (r < 0)
                return r;
        }
    }
    /* The window whose cleanup time this is, if it had content (a trigger
     * timer of one window may fall on another's cleanup time). */
    if (c->lateness > 0 && t->timestamp != INT64_MAX) {
        weir__wide ec = (weir__wide)t->timestamp - c->lateness + 1;
        if (is_end(c, &pd, ec) && ec <= INT64_MAX) {
            win w = cwin(&pd, ec);
            if (has_panes(ctx, op, w.start, w.max))
                return cumulate_cleanup(ctx, op, &pd, &w, ec);
        }
    }
    return 0;
}
