/* window_sessions.c — session windows: each element opens [ts, ts + gap),
 * and windows that intersect or touch (a.start <= b.end && a.end >= b.start)
 * merge into their cover (SEMANTICS.md 7, Flink's MergingWindowSet).
 *
 * A key's sessions are one list state (namespace 0) of fixed-size entries
 * sorted by start: the cover, a stable id, the element count, the firing
 * count, the trigger's state, the one pending timer, and the accumulator
 * inline (a process function's elements are a list of their own, namespace
 * = the id). Open sessions of a key never touch each other, so their ends
 * are sorted too, and the sessions an element touches are found by binary
 * search, however many a key has open. The entry is updated in place: an
 * element that joins or extends a session costs one lookup; only a new
 * session (an append, usually) or the absorption of other sessions rewrites
 * the list, in place, allocating nothing unless it grows.
 *
 * The id is the timestamp of the element that opened the session. It stays
 * when the session grows or absorbs others (the earliest session of a merge
 * keeps its id and state, the others' are folded in), and no two live
 * sessions of a key share one: an element at a live session's id falls
 * inside that session, and one after its cleanup is late. Timers use the id
 * as their namespace.
 *
 * Timers: Flink keeps two per session — the trigger's at window.max while the
 * watermark is below it, and the cleanup timer at max + lateness — and moves
 * both on every merge or growth, i.e. on nearly every element of an active
 * session. Here a session has one real timer at a time, at or before the
 * earliest of the two it owes: when that timer fires early (the session grew
 * since), it is set again at the time now owed. Only a merge of two existing
 * sessions deletes a timer (the absorbed one's). The firings and cleanups
 * are the same, at the same watermarks; nothing is registered per record.
 *
 * A session whose end would pass MAX (an element within the gap of MAX)
 * ends at MAX and covers it: its max is MAX, so it fires at the MAX
 * watermark, and its id can be MAX itself (a session [MAX, MAX)).
 */
#include <string.h>

#include "weir/error.h"
#include "weir/state.h"
#include "window_engines.h"
#include "window_function.h"
#include "window_internal.h"

#define NO_TIMER WEIR_TS_MIN

typedef struct session {
    int64_t start, end; /* the cover [start, end) */
    int64_t id;         /* stable: the timers' and the element list's namespace */
    int64_t timer;      /* the one pending timer, or NO_TIMER */
    int64_t count;      /* elements in the contents (0 after a purge) */
    int64_t since;      /* count trigger: elements since the last firing */
    int32_t firings;    /* firings so far */
    uint8_t owes_max;   /* the event-time trigger still owes the firing at max */
    uint8_t open_end;   /* the true end passed MAX: end is MAX, and so is max */
    uint8_t pad[2];
} session;

_Static_assert(sizeof(session) % 8 == 0, "a session's header keeps its accumulator aligned");
const size_t weir__sessions_header_size = sizeof(session);

static size_t entry_stride(const weir__window_config *c)
{
    return c->entry_size;
}

static session *entry(const weir__window_config *c, unsigned char *list, size_t i)
{
    return (session *)(void *)(list + i * entry_stride(c));
}

static unsigned char *acc_of(session *e)
{
    return (unsigned char *)e + sizeof *e;
}

static const unsigned char *acc_of_const(const session *e)
{
    return (const unsigned char *)e + sizeof *e;
}

/* The session's max timestamp. */
static int64_t max_of(const session *e)
{
    return e->open_end ? WEIR_TS_MAX : e->end - 1;
}

/* The earliest time the session owes a timer: its max while the trigger
 * waits for it, else its cleanup time; NO_TIMER if neither (a cleanup time
 * that overflowed). */
static int64_t owed(const weir__window_config *c, const session *e)
{
    int64_t max = max_of(e);
    if (e->owes_max)
        return max;
    int64_t when = weir__window_cleanup(c, max);
    return when == WEIR_TS_MAX ? NO_TIMER : when;
}

/* Makes sure the session has a timer at or before what it owes. */
static int arm(weir_ctx *ctx, const weir__window_config *c, session *e)
{
    int64_t when = owed(c, e);
    if (when == NO_TIMER || (e->timer != NO_TIMER && e->timer <= when))
        return 0;
    if (e->timer != NO_TIMER)
        weir_timer_delete(ctx, c->domain, e->id, e->timer);
    e->timer = when;
    return weir_timer_register(ctx, c->domain, e->id, when);
}

/* The first session (of n, sorted) whose end is >= t. */
static size_t first_ending_at_or_after(const weir__window_config *c, unsigned char *list, size_t n,
                                       int64_t t)
{
    return weir__window_search(list, n, entry_stride(c), offsetof(session, end), t);
}

/* Fires session e (a copy, written back by the caller), purging its
 * contents after if purging; `cleanup`: the caller removes it right after. */
static int fire(weir_ctx *ctx, weir__window_op *op, session *e, bool late, bool cleanup)
{
    const weir__window_config *c = op->c;
    if (e->count == 0)
        return 0;
    weir__firing f = {.start = e->start, .end = e->end, .max = max_of(e), .count = e->count,
                      .firing = e->firings++, .late = late, .cleanup = cleanup,
                      .acc = acc_of(e)};
    if (c->fn == WEIR__FN_PROCESS)
        f.elems = weir_state_list_get(ctx, op->st_elems, e->id, &f.nelems);
    int r = weir__window_emit(ctx, op, &f);
    if (r < 0 || !c->purging)
        return r;
    e->count = 0;
    if (c->fn == WEIR__FN_PROCESS)
        weir_state_clear(ctx, op->st_elems, e->id);
    else
        weir__window_acc_init(c, acc_of(e));
    return 0;
}

/* Folds session o into t (the accumulator, the counts) and deletes o's timer
 * (Flink deletes the merged windows' timers). No state call. */
static void absorb(weir_ctx *ctx, const weir__window_config *c, session *t, const session *o)
{
    if (c->fn != WEIR__FN_PROCESS && o->count > 0) {
        if (t->count == 0)
            memcpy(acc_of(t), acc_of_const(o), c->acc_size);
        else
            weir__window_acc_merge(c, acc_of(t), t->count, acc_of_const(o));
    }
    t->count += o->count;
    t->since += o->since;
    if (o->firings > t->firings)
        t->firings = o->firings;
    if (o->timer != NO_TIMER)
        weir_timer_delete(ctx, c->domain, o->id, o->timer);
}

/* Process function: the element lists of sessions `ids` appended to t's. */
static int absorb_elements(weir_ctx *ctx, weir__window_op *op, int64_t t_id, const int64_t *ids,
                           size_t nids)
{
    const weir__window_config *c = op->c;
    for (size_t k = 0; k < nids; k++) {
        size_t nt, no;
        weir_state_list_get(ctx, op->st_elems, t_id, &nt);
        weir_state_list_get(ctx, op->st_elems, ids[k], &no);
        if (no == 0)
            continue;
        unsigned char *cat = weir__scratch_get(ctx, &op->buf, (nt + no) * c->in_size);
        if (!cat)
            return weir_ctx_error(ctx);
        /* every state call may move the list before it: one at a time */
        const void *te = weir_state_list_get(ctx, op->st_elems, t_id, &nt);
        if (nt)
            memcpy(cat, te, nt * c->in_size);
        const void *oe = weir_state_list_get(ctx, op->st_elems, ids[k], &no);
        memcpy(cat + nt * c->in_size, oe, no * c->in_size);
        int r = weir_state_list_set(ctx, op->st_elems, t_id, cat, nt + no);
        if (r < 0)
            return r;
        weir_state_clear(ctx, op->st_elems, ids[k]);
    }
    return 0;
}

/* Removes entry i of the key's list (n entries at `list`). */
static int remove_entry(weir_ctx *ctx, weir__window_op *op, unsigned char *list, size_t n, size_t i)
{
    const weir__window_config *c = op->c;
    memmove(entry(c, list, i), entry(c, list, i + 1), (n - i - 1) * c->entry_size);
    return weir_state_list_set(ctx, op->st_sess, 0, list, n - 1);
}

/* Puts the new session `e` at position `at` of the key's list. */
static int insert_entry(weir_ctx *ctx, weir__window_op *op, size_t at, const session *e)
{
    const weir__window_config *c = op->c;
    size_t n;
    unsigned char *list = weir_state_list_data(ctx, op->st_sess, 0, &n);
    if (n == 0) /* a list of one entry (list_add would reserve four) */
        return weir_state_list_set(ctx, op->st_sess, 0, e, 1);
    if (at >= n)
        return weir_state_list_add(ctx, op->st_sess, 0, e);
    unsigned char *tmp = weir__scratch_get(ctx, &op->cat, (n + 1) * c->entry_size);
    if (!tmp)
        return weir_ctx_error(ctx);
    memcpy(tmp, list, at * c->entry_size);
    memcpy(tmp + at * c->entry_size, e, c->entry_size);
    memcpy(tmp + (at + 1) * c->entry_size, entry(c, list, at), (n - at) * c->entry_size);
    return weir_state_list_set(ctx, op->st_sess, 0, tmp, n + 1);
}

/* The element's window [start, end) touches the sessions [lo, hi) of the
 * list: t (a copy of session lo) grows to cover them all, and the others
 * are folded into it and leave the list (a merge; *list is then NULL, as it
 * moved). */
static int merge_sessions(weir_ctx *ctx, weir__window_op *op, session *t, unsigned char **list,
                          size_t *n, size_t lo, size_t hi, int64_t start, int64_t end,
                          bool open_end)
{
    const weir__window_config *c = op->c;
    memcpy(t, entry(c, *list, lo), c->entry_size);
    const session *last = entry(c, *list, hi - 1);
    int64_t cover_start = t->start < start ? t->start : start;
    int64_t cover_end = last->end > end ? last->end : end;
    /* only the last session can end at MAX (open sessions do not touch) */
    bool cover_open = open_end || last->open_end;
    /* Inside the one session it touches: nothing to merge or grow. */
    if (hi - lo == 1 && start >= t->start && end <= t->end && (!open_end || t->open_end))
        return 0;
    /* The earliest session keeps its id and state. */
    size_t nabs = hi - lo - 1;
    int64_t *ids = NULL;
    if (c->fn == WEIR__FN_PROCESS && nabs) {
        ids = (int64_t *)(void *)weir__scratch_get(ctx, &op->cat, nabs * sizeof *ids);
        if (!ids)
            return weir_ctx_error(ctx);
    }
    for (size_t i = lo + 1; i < hi; i++) {
        absorb(ctx, c, t, entry(c, *list, i));
        if (ids)
            ids[i - lo - 1] = entry(c, *list, i)->id;
    }
    t->start = cover_start;
    t->end = cover_end;
    t->open_end = cover_open;
    weir_ctx_report_merge(ctx, cover_start, cover_end, (int64_t)(hi - lo) + 1);
    if (!nabs)
        return 0;
    int r;
    memcpy(entry(c, *list, lo), t, c->entry_size);
    memmove(entry(c, *list, lo + 1), entry(c, *list, hi), (*n - hi) * c->entry_size);
    *n -= nabs;
    if ((r = weir_state_list_set(ctx, op->st_sess, 0, *list, *n)) < 0)
        return r;
    if (ids && (r = absorb_elements(ctx, op, t->id, ids, nabs)) < 0)
        return r;
    *list = NULL;
    return 0;
}

/* The element joins session t (entry lo of the list, or new there); the
 * trigger sees it, and t is written back. `list` is NULL if it moved. */
static int join_session(weir_ctx *ctx, weir__window_op *op, session *t, const void *elem,
                        int64_t wm, size_t lo, bool is_new, unsigned char *list)
{
    const weir__window_config *c = op->c;
    int r;
    if (c->fn != WEIR__FN_PROCESS) {
        weir__window_acc_add(c, acc_of(t), t->count, elem);
    } else {
        if ((r = weir_state_list_add(ctx, op->st_elems, t->id, elem)) < 0)
            return r;
        list = NULL;
    }
    t->count++;
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    int64_t max = max_of(t);
    bool now = false, late = false;
    if (c->trigger == WEIR_TRIGGER_EVENT_TIME || c->trigger == WEIR_TRIGGER_PROCESSING_TIME) {
        /* a processing-time session ends after the clock's now: never at once */
        now = late = c->event_time && max <= wm;
        t->owes_max = !now;
    } else if (c->trigger == WEIR_TRIGGER_COUNT && ++t->since >= c->count) {
        t->since = 0;
        now = true;
        late = max <= wm;
    }
    if ((r = arm(ctx, c, t)) < 0)
        return r;
    if (now) {
        if ((r = fire(ctx, op, t, late, false)) < 0)
            return r;
        if (c->fn == WEIR__FN_PROCESS)
            list = NULL;
    }
    if (is_new)
        return insert_entry(ctx, op, lo, t);
    size_t n;
    if (!list)
        list = weir_state_list_data(ctx, op->st_sess, 0, &n);
    memcpy(entry(c, list, lo), t, c->entry_size);
    return 0;
}

int weir__sessions_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts)
{
    const weir__window_config *c = op->c;
    int64_t wm = weir_ctx_watermark(ctx);
    if (!c->event_time)
        ts = weir_ctx_now(ctx); /* processing-time sessions: the job clock's now */
    int64_t start = ts, end;
    bool open_end = __builtin_add_overflow(ts, c->gap, &end);
    if (open_end)
        end = WEIR_TS_MAX;
    size_t n;
    unsigned char *list = weir_state_list_data(ctx, op->st_sess, 0, &n);

    /* The sessions the new window touches: [lo, hi). */
    size_t lo = first_ending_at_or_after(c, list, n, start), hi = lo;
    while (hi < n && entry(c, list, hi)->start <= end)
        hi++;
    /* The session the element joins, worked on as a copy in op->entry and
     * written back at the end. */
    session *t = (session *)(void *)op->entry;
    bool is_new = lo == hi;
    if (is_new) {
        if (c->event_time &&
            weir__window_cleanup(c, open_end ? WEIR_TS_MAX : end - 1) <= wm)
            return weir__window_skipped(ctx, op, elem, ts, start, end);
        memset(t, 0, c->entry_size);
        t->start = start;
        t->end = end;
        t->open_end = open_end;
        t->id = ts;
        t->timer = NO_TIMER;
        if (c->fn != WEIR__FN_PROCESS)
            weir__window_acc_init(c, acc_of(t));
    } else {
        int r = merge_sessions(ctx, op, t, &list, &n, lo, hi, start, end, open_end);
        if (r < 0)
            return r;
        if (c->event_time && weir__window_cleanup(c, max_of(t)) <= wm) {
            /* Only a session that was late already (one never cleaned up:
             * its cleanup time overflowed, and the watermark is MAX) can
             * make a late cover, or be late itself; Flink retires it, and
             * the element is skipped. */
            if (t->timer != NO_TIMER)
                weir_timer_delete(ctx, c->domain, t->id, t->timer);
            if (c->fn == WEIR__FN_PROCESS)
                weir_state_clear(ctx, op->st_elems, t->id);
            list = weir_state_list_data(ctx, op->st_sess, 0, &n);
            if ((r = remove_entry(ctx, op, list, n, lo)) < 0)
                return r;
            return weir__window_skipped(ctx, op, elem, ts, start, end);
        }
    }
    return join_session(ctx, op, t, elem, wm, lo, is_new, list);
}

int weir__sessions_timer(weir_ctx *ctx, weir__window_op *op, const weir_timer *tm)
{
    const weir__window_config *c = op->c;
    size_t n;
    unsigned char *list = weir_state_list_data(ctx, op->st_sess, 0, &n);
    /* The session whose id is the namespace lies around its id. */
    size_t i = first_ending_at_or_after(c, list, n, tm->ns);
    if (i < n && entry(c, list, i)->end == tm->ns && !entry(c, list, i)->open_end)
        i++; /* ends are exclusive: the id is not in a session that ends at it
              * (but a session whose end passed MAX holds MAX) */
    if (i == n || entry(c, list, i)->id != tm->ns || entry(c, list, i)->timer != tm->timestamp)
        return 0; /* not a live session's pending timer */
    session *e = (session *)(void *)op->entry;
    memcpy(e, entry(c, list, i), c->entry_size);
    e->timer = NO_TIMER;
    int64_t max = max_of(e);
    int64_t when = weir__window_cleanup(c, max);
    int r;
    if (e->owes_max && tm->timestamp == max) {
        e->owes_max = 0;
        if ((r = fire(ctx, op, e, false, when == max && when != WEIR_TS_MAX)) < 0)
            return r;
    }
    if (tm->timestamp == when && when != WEIR_TS_MAX) {
        if (c->fn == WEIR__FN_PROCESS)
            weir_state_clear(ctx, op->st_elems, e->id);
        weir_ctx_report_cleanup(ctx, e->start, e->end);
        list = weir_state_list_data(ctx, op->st_sess, 0, &n);
        return remove_entry(ctx, op, list, n, i);
    }
    /* fired early (the session grew since): set again at what it owes */
    if ((r = arm(ctx, c, e)) < 0)
        return r;
    list = weir_state_list_data(ctx, op->st_sess, 0, &n);
    memcpy(entry(c, list, i), e, c->entry_size);
    return 0;
}
