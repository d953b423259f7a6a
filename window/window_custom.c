/* window_custom.c — windows under a custom trigger or with an evictor
 * (weir/window.h; Flink's WindowOperator with a user Trigger, and its
 * EvictingWindowOperator). Each (key, window) keeps its elements with their
 * timestamps in a list (st_elems) and a value (st_win): a header with the
 * window's bounds, count and firings, then the trigger's own state. The
 * window function runs over the elements when the trigger says FIRE, after
 * the evictor (before or after it) took its share; what the evictor left is
 * the window's contents from then on.
 *
 * Windows of the grid (tumbling, sliding, global) are named by their true
 * start (weir__win_ns); sessions by a number of their own, so that a merged
 * session is a new window (its trigger state made by on_merge from the
 * merged ones', which are then cleared), and the key's sessions are a list
 * (st_sess) sorted by start. Timers are per (key, window, time): the
 * trigger's, and the operator's cleanup timer at max + allowed lateness
 * (event time) or max (processing time), which reaches the trigger too and
 * then clears the window, as in Flink.
 *
 * The built-in triggers, for an evictor under one of them, are tables here
 * too (Flink's EventTimeTrigger, ProcessingTimeTrigger, CountTrigger).
 */
#include <string.h>

#include "weir/error.h"
#include "weir/state.h"
#include "window_engines.h"
#include "window_function.h"
#include "window_internal.h"

typedef struct cwin {
    int64_t start, end, max, cleanup;
    int64_t count;   /* elements in the contents */
    int32_t firings; /* the next firing's index */
    uint32_t live;   /* set once the window is made */
    /* the trigger's state follows */
} cwin;

_Static_assert(sizeof(cwin) % 8 == 0, "the trigger's state stays aligned");
const size_t weir__custom_header_size = sizeof(cwin);

/* A session of the key: [start, end), its window's namespace, its max
 * (end - 1, or MAX when its true end passed MAX: weir/window.h). */
typedef struct csess {
    int64_t start, end, id, max;
} csess;

_Static_assert(sizeof(csess) == WEIR__CUSTOM_SESSION_SIZE, "the session list's entry");

static const weir__window_config *config_of(const weir_ctx *ctx)
{
    return weir_ctx_impl(ctx);
}

static size_t rec_size(const weir__window_config *c)
{
    return 8 + c->in_size;
}

static void tc_init(weir_trigger_ctx *tc, weir_ctx *ctx, const weir__window_op *op, cwin *h,
                    int64_t ns)
{
    tc->ctx = ctx;
    tc->start = h->start;
    tc->end = h->end;
    tc->max_timestamp = h->max;
    tc->key = weir_ctx_key(ctx);
    tc->watermark = weir_ctx_watermark(ctx);
    tc->now = weir_ctx_now(ctx);
    tc->state = (unsigned char *)h + sizeof *h;
    tc->arg = op->c->spec.arg;
    tc->ns_ = ns;
    tc->cleanup_ = h->cleanup;
}

int weir_trigger_register(weir_trigger_ctx *tc, weir_time_domain domain, int64_t time)
{
    return weir_timer_register(tc->ctx, domain, tc->ns_, time);
}

int weir_trigger_delete(weir_trigger_ctx *tc, weir_time_domain domain, int64_t time)
{
    if (domain == config_of(tc->ctx)->domain && time == tc->cleanup_)
        return 0; /* the operator's cleanup timer stays */
    return weir_timer_delete(tc->ctx, domain, tc->ns_, time);
}

/* ---- evictors --------------------------------------------------------------- */

static int64_t rec_ts(const unsigned char *rec)
{
    int64_t ts;
    memcpy(&ts, rec, sizeof ts);
    return ts;
}

/* Evicts from the n records at buf (in place, order kept): their number
 * after. `spare` holds an element (the delta evictor's last one). */
static size_t evict(const weir__window_config *c, unsigned char *buf, size_t n,
                    unsigned char *spare)
{
    const weir_window_evictor *e = &c->spec.evictor;
    size_t rs = rec_size(c), keep = 0;
    if (n == 0)
        return 0;
    switch (e->kind) {
    case WEIR_EVICTOR_COUNT:
        if (n <= (uint64_t)e->count)
            return n;
        memmove(buf, buf + (n - (size_t)e->count) * rs, (size_t)e->count * rs);
        return (size_t)e->count;
    case WEIR_EVICTOR_TIME: {
        if (rec_ts(buf) == WEIR_NO_TIMESTAMP)
            return n; /* Flink: no timestamps, nothing evicted */
        int64_t newest = INT64_MIN;
        for (size_t i = 0; i < n; i++)
            if (rec_ts(buf + i * rs) > newest)
                newest = rec_ts(buf + i * rs);
        int64_t cutoff = weir__sat_add(newest, -e->time_ms);
        for (size_t i = 0; i < n; i++)
            if (rec_ts(buf + i * rs) > cutoff)
                memmove(buf + keep++ * rs, buf + i * rs, rs);
        return keep;
    }
    case WEIR_EVICTOR_DELTA: {
        unsigned char *last = buf + (n - 1) * rs;
        /* every element against the last one (itself included, as Flink
         * does); a copy of it, since the compaction may move it */
        memcpy(spare, last + 8, c->in_size);
        for (size_t i = 0; i < n; i++)
            if (!(e->delta(buf + i * rs + 8, spare, c->spec.arg) >= e->threshold))
                memmove(buf + keep++ * rs, buf + i * rs, rs);
        return keep;
    }
    default:
        return n;
    }
}

/* ---- firing and clearing ------------------------------------------------------ */

static int fire(weir_ctx *ctx, weir__window_op *op, int64_t ns, bool late)
{
    const weir__window_config *c = op->c;
    cwin *h = weir_state_value(ctx, op->st_win, ns, false);
    if (!h || h->count == 0)
        return 0;
    weir__firing f = {.start = h->start, .end = h->end, .max = h->max,
                      .firing = h->firings++, .late = late};
    size_t n = 0, rs = rec_size(c);
    const unsigned char *list = weir_state_list_get(ctx, op->st_elems, ns, &n);
    unsigned char *buf = weir__scratch_get(ctx, &op->buf, n * rs + 1);
    if (!buf)
        return weir_ctx_error(ctx);
    if (n)
        memcpy(buf, list, n * rs);
    size_t had = n;
    bool evicts = c->spec.evictor.kind != WEIR_EVICTOR_NONE;
    unsigned char *spare = NULL;
    if (evicts && !(spare = weir__scratch_get(ctx, &op->tmp, c->in_size)))
        return weir_ctx_error(ctx);
    if (evicts && !c->spec.evictor.after)
        n = evict(c, buf, n, spare);
    f.count = (int64_t)n;
    if (n > 0) {
        if (c->fn == WEIR__FN_PROCESS) {
            unsigned char *el = weir__scratch_get(ctx, &op->tmp, n * c->in_size);
            if (!el)
                return weir_ctx_error(ctx);
            for (size_t i = 0; i < n; i++)
                memcpy(el + i * c->in_size, buf + i * rs + 8, c->in_size);
            f.elems = el;
            f.nelems = n;
        } else {
            weir__window_acc_init(c, op->acc);
            for (size_t i = 0; i < n; i++)
                weir__window_acc_add(c, op->acc, (int64_t)i, buf + i * rs + 8);
            f.acc = op->acc;
        }
        int r = weir__window_emit(ctx, op, &f);
        if (r < 0)
            return r;
    }
    if (evicts && c->spec.evictor.after) {
        if (!(spare = weir__scratch_get(ctx, &op->tmp, c->in_size)))
            return weir_ctx_error(ctx);
        n = evict(c, buf, n, spare);
    }
    if (n != had) {
        if (weir_state_list_set(ctx, op->st_elems, ns, buf, n))
            return weir_ctx_error(ctx);
        h = weir_state_value(ctx, op->st_win, ns, false);
        if (h)
            h->count = (int64_t)n;
    }
    return 0;
}

static void purge(weir_ctx *ctx, weir__window_op *op, int64_t ns)
{
    weir_state_clear(ctx, op->st_elems, ns);
    cwin *h = weir_state_value(ctx, op->st_win, ns, false);
    if (h)
        h->count = 0;
}

/* What the trigger answered, done. */
static int act(weir_ctx *ctx, weir__window_op *op, int64_t ns, int res, bool late)
{
    if (res < 0)
        return res;
    if (res > WEIR_TRIGGER_FIRE_AND_PURGE)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "window: the trigger answered %d, not a "
                             "weir_trigger_result", res);
    if (op->c->purging && (res & WEIR_TRIGGER_FIRE))
        res = WEIR_TRIGGER_FIRE_AND_PURGE;
    if (res & WEIR_TRIGGER_FIRE) {
        int r = fire(ctx, op, ns, late);
        if (r < 0)
            return r;
    }
    if (res & WEIR_TRIGGER_PURGE)
        purge(ctx, op, ns);
    return 0;
}

/* The key's sessions, copied into op->cat: their number in *n. */
static csess *sessions(weir_ctx *ctx, weir__window_op *op, size_t *n)
{
    const csess *list = weir_state_list_get(ctx, op->st_sess, 0, n);
    csess *s = (csess *)(void *)weir__scratch_get(ctx, &op->cat, (*n + 1) * sizeof *s);
    if (s && *n)
        memcpy(s, list, *n * sizeof *s);
    return s;
}

/* Everything of window ns gone: the trigger's clear, the elements, the
 * header, the session. */
static int clear_all(weir_ctx *ctx, weir__window_op *op, int64_t ns)
{
    const weir__window_config *c = op->c;
    cwin *h = weir_state_value(ctx, op->st_win, ns, false);
    if (!h)
        return 0;
    int64_t start = h->start, end = h->end;
    if (c->tv->clear) {
        weir_trigger_ctx tc;
        tc_init(&tc, ctx, op, h, ns);
        c->tv->clear(&tc);
    }
    weir_state_clear(ctx, op->st_elems, ns);
    weir_state_clear(ctx, op->st_win, ns);
    if (op->st_sess >= 0) {
        size_t n;
        csess *s = sessions(ctx, op, &n);
        if (!s)
            return weir_ctx_error(ctx);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (s[i].id != ns)
                s[k++] = s[i];
        if (k != n && weir_state_list_set(ctx, op->st_sess, 0, s, k))
            return weir_ctx_error(ctx);
    }
    weir_ctx_report_cleanup(ctx, start, end);
    return weir_ctx_error(ctx);
}

/* ---- elements ----------------------------------------------------------------- */

static int64_t cleanup_of(const weir__window_config *c, int64_t max)
{
    return c->global ? INT64_MAX : weir__window_cleanup(c, max);
}

/* Makes window ns's header if it is new (with its cleanup timer): the
 * header, or NULL (the ctx failed). */
static cwin *window_header(weir_ctx *ctx, weir__window_op *op, int64_t ns, int64_t start,
                           int64_t end, int64_t max)
{
    const weir__window_config *c = op->c;
    cwin *h = weir_state_value(ctx, op->st_win, ns, true);
    if (!h || h->live)
        return h;
    h->start = start;
    h->end = end;
    h->max = max;
    h->cleanup = cleanup_of(c, max);
    h->live = 1;
    int64_t cleanup = h->cleanup;
    if (cleanup != INT64_MAX && weir_timer_register(ctx, c->domain, ns, cleanup))
        return NULL;
    return weir_state_value(ctx, op->st_win, ns, false);
}

/* The element into window ns, then the trigger's on_element. */
static int add_to(weir_ctx *ctx, weir__window_op *op, int64_t ns, int64_t start, int64_t end,
                  int64_t max, const void *elem, int64_t ts)
{
    const weir__window_config *c = op->c;
    unsigned char *rec = weir__scratch_get(ctx, &op->tmp, rec_size(c));
    if (!rec)
        return weir_ctx_error(ctx);
    memcpy(rec, &ts, 8);
    memcpy(rec + 8, elem, c->in_size);
    int r = weir_state_list_add(ctx, op->st_elems, ns, rec);
    if (r)
        return r;
    cwin *h = window_header(ctx, op, ns, start, end, max);
    if (!h)
        return weir_ctx_error(ctx) ? weir_ctx_error(ctx) : weir_ctx_state_error(ctx);
    h->count++;
    weir_trigger_ctx tc;
    tc_init(&tc, ctx, op, h, ns);
    int res = c->tv->on_element(&tc, elem, ts);
    return act(ctx, op, ns, res, c->event_time && !c->global && max <= tc.watermark);
}

static bool late_window(const weir__window_config *c, int64_t max, int64_t wm)
{
    return c->event_time && cleanup_of(c, max) <= wm;
}

static int merge_sessions(weir_ctx *ctx, weir__window_op *op, const csess *t,
                          const csess *merged, size_t k);

static int session_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts)
{
    const weir__window_config *c = op->c;
    int64_t wm = weir_ctx_watermark(ctx);
    int64_t t0 = c->event_time ? ts : weir_ctx_now(ctx); /* processing-time sessions: now */
    csess nw = {t0, weir__sat_add(t0, c->gap), 0, 0};
    nw.max = (weir__wide)t0 + c->gap > INT64_MAX ? INT64_MAX : nw.end - 1;
    size_t n;
    csess *s = sessions(ctx, op, &n);
    if (!s)
        return weir_ctx_error(ctx);
    /* Flink's TimeWindow.intersects: touching sessions merge too */
    size_t first = n, k = 0;
    csess t = nw;
    for (size_t i = 0; i < n; i++) {
        if (s[i].start <= nw.end && s[i].end >= nw.start) {
            if (first == n)
                first = i;
            k++;
            t.start = s[i].start < t.start ? s[i].start : t.start;
            t.end = s[i].end > t.end ? s[i].end : t.end;
            t.max = s[i].max > t.max ? s[i].max : t.max;
        }
    }
    bool inside = k == 1 && s[first].start <= nw.start && s[first].end >= nw.end &&
                  s[first].max >= nw.max;
    if (inside)
        t = s[first]; /* in an existing session: no merge */
    if (late_window(c, t.max, wm)) /* Flink's retired window */
        return weir__window_skipped(ctx, op, elem, ts, t.start, t.end);
    if (!inside) {
        t.id = (int64_t)++op->seq;
        /* the key's sessions: the merged ones out, the new one in, by start */
        size_t m = 0;
        csess *merged = (csess *)(void *)weir__scratch_get(ctx, &op->buf,
                                                            (k + 1) * sizeof *merged);
        if (!merged)
            return weir_ctx_error(ctx);
        size_t w = 0;
        for (size_t i = 0; i < n; i++) {
            if (s[i].start <= nw.end && s[i].end >= nw.start)
                merged[m++] = s[i];
            else
                s[w++] = s[i];
        }
        size_t at = 0; /* sessions do not overlap: by start */
        while (at < w && s[at].start < t.start)
            at++;
        memmove(s + at + 1, s + at, (w - at) * sizeof *s);
        s[at] = t;
        w++;
        if (weir_state_list_set(ctx, op->st_sess, 0, s, w))
            return weir_ctx_error(ctx);
        if (k > 0) {
            int r = merge_sessions(ctx, op, &t, merged, k);
            if (r < 0)
                return r;
        }
    }
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    return add_to(ctx, op, t.id, t.start, t.end, t.max, elem, ts);
}

int weir__custom_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts)
{
    const weir__window_config *c = op->c;
    if (op->st_sess >= 0)
        return session_record(ctx, op, elem, ts);
    if (c->global) {
        weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
        return add_to(ctx, op, 0, WEIR_TS_MIN, WEIR_TS_MAX, WEIR_TS_MAX, elem, ts);
    }
    int64_t t = c->event_time ? ts : weir_ctx_now(ctx);
    int64_t wm = weir_ctx_watermark(ctx);
    weir__wide first, last;
    if (!weir__window_range(t, c->size, c->slide, c->offset, &first, &last))
        return weir__window_skipped(ctx, op, elem, ts, weir__win_start(last),
                                    weir__win_end(c, last));
    bool taken = false;
    for (weir__wide s = first; s <= last; s += c->slide) {
        int64_t max = weir__win_max(c, s);
        if (late_window(c, max, wm))
            continue;
        if (!taken)
            weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
        taken = true;
        int r = add_to(ctx, op, weir__win_ns(s), weir__win_start(s), weir__win_end(c, s), max,
                       elem, ts);
        if (r < 0)
            return r;
    }
    if (!taken)
        return weir__window_skipped(ctx, op, elem, ts, weir__win_start(last),
                                    weir__win_end(c, last));
    return 0;
}

/* Sessions `merged` (k) become session t (new): the trigger's on_merge on
 * the new window with the merged windows' states, their clear, their
 * elements moved into it (in the order of the sessions). */
static int merge_sessions(weir_ctx *ctx, weir__window_op *op, const csess *t,
                          const csess *merged, size_t k)
{
    const weir__window_config *c = op->c;
    size_t tsz = c->tstate_size, rs = rec_size(c);
    /* the merged states and pointers to them; then their elements */
    size_t states_bytes = (k * tsz + 7) & ~(size_t)7;
    unsigned char *tmp = weir__scratch_get(ctx, &op->tmp, states_bytes + k * sizeof(void *));
    if (!tmp)
        return weir_ctx_error(ctx);
    const void **ptrs = (const void **)(void *)(tmp + states_bytes);
    int64_t count = 0;
    int32_t firings = 0;
    for (size_t i = 0; i < k; i++) {
        const cwin *h = weir_state_value(ctx, op->st_win, merged[i].id, false);
        if (h) {
            memcpy(tmp + i * tsz, (const unsigned char *)h + sizeof *h, tsz);
            count += h->count;
            firings = h->firings > firings ? h->firings : firings;
        } else {
            memset(tmp + i * tsz, 0, tsz);
        }
        ptrs[i] = tmp + i * tsz;
    }
    cwin *h = window_header(ctx, op, t->id, t->start, t->end, t->max);
    if (!h)
        return weir_ctx_error(ctx) ? weir_ctx_error(ctx) : weir_ctx_state_error(ctx);
    h->count = count;
    h->firings = firings; /* the firings go on from the merged windows' most */
    weir_trigger_ctx tc;
    tc_init(&tc, ctx, op, h, t->id);
    int r = c->tv->on_merge(&tc, ptrs, (int)k);
    if (r < 0)
        return r;
    /* the elements, gathered (op->buf holds `merged`: behind it) */
    size_t total = 0;
    for (size_t i = 0; i < k; i++) {
        size_t n = 0;
        weir_state_list_get(ctx, op->st_elems, merged[i].id, &n);
        total += n;
    }
    size_t moff = (k * sizeof *merged + 7) & ~(size_t)7;
    unsigned char *buf = weir__scratch_get(ctx, &op->buf, moff + total * rs + 1);
    if (!buf)
        return weir_ctx_error(ctx);
    merged = (const csess *)(void *)buf; /* it may have moved */
    size_t at = 0;
    for (size_t i = 0; i < k; i++) {
        size_t n = 0;
        const void *l = weir_state_list_get(ctx, op->st_elems, merged[i].id, &n);
        if (n)
            memcpy(buf + moff + at * rs, l, n * rs);
        at += n;
    }
    if (total && weir_state_list_set(ctx, op->st_elems, t->id, buf + moff, total))
        return weir_ctx_error(ctx);
    for (size_t i = 0; i < k; i++) {
        cwin *m = weir_state_value(ctx, op->st_win, merged[i].id, false);
        if (m) {
            if (c->tv->clear) {
                weir_trigger_ctx mc;
                tc_init(&mc, ctx, op, m, merged[i].id);
                c->tv->clear(&mc);
            }
            m = weir_state_value(ctx, op->st_win, merged[i].id, false);
            if (m && m->cleanup != INT64_MAX)
                weir_timer_delete(ctx, c->domain, merged[i].id, m->cleanup);
        }
        weir_state_clear(ctx, op->st_elems, merged[i].id);
        weir_state_clear(ctx, op->st_win, merged[i].id);
    }
    weir_ctx_report_merge(ctx, t->start, t->end, (int64_t)k);
    return weir_ctx_error(ctx);
}

int weir__custom_timer(weir_ctx *ctx, weir__window_op *op, const weir_timer *t)
{
    const weir__window_config *c = op->c;
    cwin *h = weir_state_value(ctx, op->st_win, t->ns, false);
    if (!h)
        return 0; /* a window cleared or merged away */
    int64_t cleanup = h->cleanup;
    weir_trigger_ctx tc;
    tc_init(&tc, ctx, op, h, t->ns);
    int res = WEIR_TRIGGER_CONTINUE;
    if (t->domain == WEIR_EVENT_TIME && c->tv->on_event_time)
        res = c->tv->on_event_time(&tc, t->timestamp);
    else if (t->domain == WEIR_PROCESSING_TIME && c->tv->on_processing_time)
        res = c->tv->on_processing_time(&tc, t->timestamp);
    int r = act(ctx, op, t->ns, res, false);
    if (r < 0)
        return r;
    if (t->domain == c->domain && t->timestamp == cleanup)
        return clear_all(ctx, op, t->ns);
    return 0;
}

/* ---- the built-in triggers as tables ------------------------------------------- */

/* Flink's EventTimeTrigger; but the global window does not fire again
 * after its one firing at the end of input (weir/window.h). */
static int et_element(weir_trigger_ctx *tc, const void *elem, int64_t ts)
{
    (void)elem;
    (void)ts;
    if (tc->max_timestamp <= tc->watermark)
        return tc->start == WEIR_TS_MIN && tc->end == WEIR_TS_MAX ? WEIR_TRIGGER_CONTINUE
                                                                 : WEIR_TRIGGER_FIRE;
    int r = weir_trigger_register(tc, WEIR_EVENT_TIME, tc->max_timestamp);
    return r < 0 ? r : WEIR_TRIGGER_CONTINUE;
}

static int et_time(weir_trigger_ctx *tc, int64_t time)
{
    return time == tc->max_timestamp ? WEIR_TRIGGER_FIRE : WEIR_TRIGGER_CONTINUE;
}

static int et_merge(weir_trigger_ctx *tc, const void *const *merged, int n)
{
    (void)merged;
    (void)n;
    if (tc->max_timestamp > tc->watermark)
        return weir_trigger_register(tc, WEIR_EVENT_TIME, tc->max_timestamp);
    return 0;
}

static void et_clear(weir_trigger_ctx *tc)
{
    weir_trigger_delete(tc, WEIR_EVENT_TIME, tc->max_timestamp);
}

/* Flink's ProcessingTimeTrigger. */
static int pt_element(weir_trigger_ctx *tc, const void *elem, int64_t ts)
{
    (void)elem;
    (void)ts;
    int r = weir_trigger_register(tc, WEIR_PROCESSING_TIME, tc->max_timestamp);
    return r < 0 ? r : WEIR_TRIGGER_CONTINUE;
}

static int pt_time(weir_trigger_ctx *tc, int64_t time)
{
    (void)tc;
    (void)time;
    return WEIR_TRIGGER_FIRE;
}

static void pt_clear(weir_trigger_ctx *tc)
{
    weir_trigger_delete(tc, WEIR_PROCESSING_TIME, tc->max_timestamp);
}

/* Flink's CountTrigger: a count per window, summed when windows merge. */
static int count_element(weir_trigger_ctx *tc, const void *elem, int64_t ts)
{
    (void)elem;
    (void)ts;
    int64_t *n = tc->state;
    if (++*n >= config_of(tc->ctx)->count) {
        *n = 0;
        return WEIR_TRIGGER_FIRE;
    }
    return WEIR_TRIGGER_CONTINUE;
}

static int count_merge(weir_trigger_ctx *tc, const void *const *merged, int n)
{
    int64_t *sum = tc->state;
    for (int i = 0; i < n; i++) {
        int64_t v;
        memcpy(&v, merged[i], sizeof v);
        *sum += v;
    }
    return 0;
}

static const weir_trigger_vtable event_time_trigger = {
    .version = WEIR_TRIGGER_VTABLE_V1,
    .on_element = et_element,
    .on_event_time = et_time,
    .on_merge = et_merge,
    .clear = et_clear,
};

static const weir_trigger_vtable processing_time_trigger = {
    .version = WEIR_TRIGGER_VTABLE_V1,
    .on_element = pt_element,
    .on_processing_time = pt_time,
    .clear = pt_clear,
};

static const weir_trigger_vtable count_trigger = {
    .version = WEIR_TRIGGER_VTABLE_V1,
    .state_size = sizeof(int64_t),
    .on_element = count_element,
    .on_merge = count_merge,
};

const weir_trigger_vtable *weir__builtin_trigger(weir_trigger_kind kind)
{
    switch (kind) {
    case WEIR_TRIGGER_PROCESSING_TIME:
        return &processing_time_trigger;
    case WEIR_TRIGGER_COUNT:
        return &count_trigger;
    default:
        return &event_time_trigger;
    }
}
