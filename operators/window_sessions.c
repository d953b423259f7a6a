/* window_sessions.c — session windows: each element opens [ts, ts + gap),
 * and windows that intersect or touch (a.start <= b.end && a.end >= b.start)
 * merge into their cover (SEMANTICS.md 7, Flink's MergingWindowSet).
 *
 * A key's sessions are one list state (namespace 0) of fixed-size entries:
 * the cover, a stable id, the element count, the firing count, the trigger's
 * state, the one pending timer, and the accumulator inline (a process
 * function's elements are a list of their own, namespace = the id). Per
 * element that is one lookup to read the list and one to write it back; the
 * list is short (the sessions a key has open at once) and rewritten in
 * place, so nothing is allocated.
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
 */
#include <string.h>

#include "weir/error.h"
#include "weir/state.h"
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
    uint8_t pad[3];
} session;

_Static_assert(sizeof(session) == 56, "window.c sizes the entry with a 56-byte header");

static size_t stride(const weir__wconf *c)
{
    return c->entry_size;
}

static session *entry(const weir__wconf *c, unsigned char *list, size_t i)
{
    return (session *)(void *)(list + i * stride(c));
}

static unsigned char *acc_of(session *e)
{
    return (unsigned char *)e + sizeof *e;
}

/* The earliest time the session owes a timer: its max while the trigger
 * waits for it, else its cleanup time; NO_TIMER if neither (a cleanup time
 * that overflowed). */
static int64_t owed(const weir__wconf *c, const session *e)
{
    int64_t max = weir__window_max(e->end);
    if (e->owes_max)
        return max;
    int64_t when = weir__window_cleanup(c, max);
    return when == WEIR_TS_MAX ? NO_TIMER : when;
}

/* Makes sure the session has a timer at or before what it owes. */
static int arm(weir_ctx *ctx, const weir__wconf *c, session *e)
{
    int64_t when = owed(c, e);
    if (when == NO_TIMER || (e->timer != NO_TIMER && e->timer <= when))
        return 0;
    if (e->timer != NO_TIMER)
        weir_timer_delete(ctx, c->domain, e->id, e->timer);
    e->timer = when;
    return weir_timer_register(ctx, c->domain, e->id, when);
}

/* A copy of the key's sessions in op->buf, with room for one more. */
static unsigned char *load(weir_ctx *ctx, weir__wop *op, size_t *n)
{
    const weir__wconf *c = op->c;
    size_t have;
    weir_state_list_get(ctx, op->st_sess, 0, &have);
    unsigned char *buf = weir__scratch_get(ctx, &op->buf, (have + 1) * stride(c));
    if (!buf)
        return NULL;
    const void *list = weir_state_list_get(ctx, op->st_sess, 0, n);
    /* A key without sessions yet has no list (NULL): memcpy from NULL is
     * undefined even for 0 bytes. */
    if (*n > 0)
        memcpy(buf, list, *n * stride(c));
    return buf;
}

/* Fires session e (purging its contents after, if purging). */
static int fire(weir_ctx *ctx, weir__wop *op, session *e, bool late)
{
    const weir__wconf *c = op->c;
    if (e->count == 0)
        return 0;
    weir__firing f = {.start = e->start, .end = e->end, .count = e->count,
                      .firing = e->firings++, .late = late, .acc = acc_of(e)};
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

/* Folds session o into t: contents, the count trigger's count, and o's
 * timer goes (Flink deletes the merged windows' timers). */
static int absorb(weir_ctx *ctx, weir__wop *op, session *t, session *o)
{
    const weir__wconf *c = op->c;
    if (c->fn == WEIR__FN_PROCESS && o->count > 0) {
        /* t's list and o's, concatenated in op->cat (every state call may
         * move the list before it), written back as t's. */
        size_t nt, no;
        weir_state_list_get(ctx, op->st_elems, t->id, &nt);
        weir_state_list_get(ctx, op->st_elems, o->id, &no);
        unsigned char *cat = weir__scratch_get(ctx, &op->cat, (nt + no) * c->in_size);
        if (!cat)
            return weir_ctx_error(ctx);
        const void *te = weir_state_list_get(ctx, op->st_elems, t->id, &nt);
        if (nt)
            memcpy(cat, te, nt * c->in_size);
        const void *oe = weir_state_list_get(ctx, op->st_elems, o->id, &no);
        memcpy(cat + nt * c->in_size, oe, no * c->in_size);
        int r = weir_state_list_set(ctx, op->st_elems, t->id, cat, nt + no);
        if (r < 0)
            return r;
        weir_state_clear(ctx, op->st_elems, o->id);
    } else if (c->fn != WEIR__FN_PROCESS && o->count > 0) {
        if (t->count == 0)
            memcpy(acc_of(t), acc_of(o), c->acc_size);
        else
            weir__window_acc_merge(c, acc_of(t), t->count, acc_of(o));
    }
    t->count += o->count;
    t->since += o->since;
    if (o->firings > t->firings)
        t->firings = o->firings;
    if (o->timer != NO_TIMER)
        weir_timer_delete(ctx, c->domain, o->id, o->timer);
    return 0;
}

/* Removes entry i from the copy (order kept). */
static void drop_entry(const weir__wconf *c, unsigned char *list, size_t *n, size_t i)
{
    memmove(list + i * stride(c), list + (i + 1) * stride(c), (*n - i - 1) * stride(c));
    (*n)--;
}

int weir__sessions_record(weir_ctx *ctx, weir__wop *op, const void *elem, int64_t ts)
{
    const weir__wconf *c = op->c;
    int64_t wm = weir_ctx_watermark(ctx);
    int64_t start = ts, end = weir__sat_add(ts, c->gap);
    size_t n;
    unsigned char *list = load(ctx, op, &n);
    if (!list)
        return weir_ctx_error(ctx);

    /* Every session the new window touches, and their cover. */
    size_t target = SIZE_MAX, touching = 0;
    int64_t cover_start = start, cover_end = end;
    for (size_t i = 0; i < n; i++) {
        session *e = entry(c, list, i);
        if (e->start <= end && e->end >= start) {
            touching++;
            if (e->start < cover_start)
                cover_start = e->start;
            if (e->end > cover_end)
                cover_end = e->end;
            if (target == SIZE_MAX || e->start < entry(c, list, target)->start)
                target = i;
        }
    }
    int r;
    session *t;
    if (touching == 0) {
        if (c->event_time && weir__window_cleanup(c, weir__window_max(end)) <= wm)
            return weir__window_skipped(ctx, op, elem, ts, start, end);
        t = entry(c, list, n);
        memset(t, 0, stride(c));
        t->start = start;
        t->end = end;
        t->id = ts;
        t->timer = NO_TIMER;
        if (c->fn != WEIR__FN_PROCESS)
            weir__window_acc_init(c, acc_of(t));
        target = n++;
    } else {
        t = entry(c, list, target);
        if (touching > 1 || cover_start != t->start || cover_end != t->end) {
            /* A merge: the earliest session keeps its id and state. */
            for (size_t i = n; i-- > 0;) {
                session *o = entry(c, list, i);
                if (i == target || o->start > end || o->end < start)
                    continue;
                if ((r = absorb(ctx, op, t, o)) < 0)
                    return r;
                drop_entry(c, list, &n, i);
                if (i < target)
                    target--;
                t = entry(c, list, target);
            }
            t->start = cover_start;
            t->end = cover_end;
            weir_ctx_report_merge(ctx, cover_start, cover_end, (int64_t)touching + 1);
            if (c->event_time && weir__window_cleanup(c, weir__window_max(cover_end)) <= wm) {
                /* Only a session that was late already can make a late
                 * cover; Flink retires it, and the element is skipped. */
                if (t->timer != NO_TIMER)
                    weir_timer_delete(ctx, c->domain, t->id, t->timer);
                if (c->fn == WEIR__FN_PROCESS)
                    weir_state_clear(ctx, op->st_elems, t->id);
                drop_entry(c, list, &n, target);
                if ((r = weir_state_list_set(ctx, op->st_sess, 0, list, n)) < 0)
                    return r;
                return weir__window_skipped(ctx, op, elem, ts, start, end);
            }
        }
    }

    /* The element joins the session; the trigger sees it. */
    if (c->fn != WEIR__FN_PROCESS)
        weir__window_acc_add(c, acc_of(t), t->count, elem);
    else if ((r = weir_state_list_add(ctx, op->st_elems, t->id, elem)) < 0)
        return r;
    t->count++;
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    int64_t max = weir__window_max(t->end);
    bool now = false, late = false;
    if (c->trigger == WEIR_TRIGGER_EVENT_TIME) {
        now = late = max <= wm;
        t->owes_max = !now;
    } else if (c->trigger == WEIR_TRIGGER_COUNT && ++t->since >= c->count) {
        t->since = 0;
        now = true;
        late = max <= wm;
    }
    if ((r = arm(ctx, c, t)) < 0)
        return r;
    if (now && (r = fire(ctx, op, t, late)) < 0)
        return r;
    return weir_state_list_set(ctx, op->st_sess, 0, list, n);
}

int weir__sessions_timer(weir_ctx *ctx, weir__wop *op, const weir_timer *tm)
{
    const weir__wconf *c = op->c;
    size_t n;
    unsigned char *list = load(ctx, op, &n);
    if (!list)
        return weir_ctx_error(ctx);
    size_t i = 0;
    while (i < n && entry(c, list, i)->id != tm->ns)
        i++;
    if (i == n || entry(c, list, i)->timer != tm->timestamp)
        return 0; /* not a live session's pending timer */
    session *e = entry(c, list, i);
    e->timer = NO_TIMER;
    int64_t max = weir__window_max(e->end);
    int64_t when = weir__window_cleanup(c, max);
    int r;
    if (e->owes_max && tm->timestamp == max) {
        e->owes_max = 0;
        if ((r = fire(ctx, op, e, false)) < 0)
            return r;
    }
    if (tm->timestamp == when && when != WEIR_TS_MAX) {
        if (c->fn == WEIR__FN_PROCESS)
            weir_state_clear(ctx, op->st_elems, e->id);
        weir_ctx_report_cleanup(ctx, e->start, e->end);
        drop_entry(c, list, &n, i);
    } else if ((r = arm(ctx, c, e)) < 0) {
        /* fired early (the session grew since): set again at what it owes */
        return r;
    }
    return weir_state_list_set(ctx, op->st_sess, 0, list, n);
}
