/* test_window_differential.c — the window operator against a reference: a
 * plain, slow, literal model of Flink's WindowOperator written here (one
 * state per window, every per-element timer registration, MergingWindowSet
 * merges with their timer deletions), fed the same random keyed streams.
 *
 * 1. Harness runs (single-threaded, explicit watermarks): random disorder,
 *    random watermarks, random lateness, every assigner, trigger, purging,
 *    side output or drop, and function. The complete outputs must be equal:
 *    every result with its window, count, firing index and on-time/late, every
 *    late element, every drop, and every watermark, with the results between
 *    two watermarks compared as a set.
 * 2. Threaded jobs at parallelism 1, 2 and 4 (source -> assign_timestamps
 *    bounded -> key_by -> window -> collect) on streams whose disorder stays
 *    within the bound, so that no element is ever late whatever the timing:
 *    the results must equal the reference's as a multiset.
 * 3. Jobs with late data: a source that emits its own watermarks in-band
 *    (one subtask, so every window subtask sees the same sequence of records
 *    and watermarks for its keys, whatever the threads do) -> key_by ->
 *    window at parallelism 1 (one worker, virtual clock), 2 and 4 (four
 *    threads): results, late side output and drop counts must equal the
 *    reference fed that sequence.
 *
 * WT_HROUNDS and WT_ROUNDS in the environment set the number of harness
 * rounds and of job rounds (for a longer soak than the suite's default).
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "test_window_util.h"

/* ---- the reference model ---------------------------------------------------- */

typedef struct ref_cfg {
    weir_window_kind kind; /* TUMBLING, SLIDING, SESSION, GLOBAL, CUMULATIVE (step: slide) */
    int64_t size, slide, offset, gap, lateness;
    int64_t count;         /* 0: the event-time trigger */
    bool purging, side;
} ref_cfg;

typedef struct rwin {
    int key;
    int64_t start, end;
    int64_t max; /* end - 1; MAX for a window whose true end passed MAX */
    int64_t sum, n, since;
    int firings;
    /* A cumulative window whose true end passed MAX: [P, MAX] (max MAX), not
     * the window of the same period that ends at exactly MAX (max MAX - 1),
     * though both report end MAX. */
    bool past;
} rwin;

typedef struct rtimer {
    int key;
    int64_t start, end, ts;
    uint64_t seq;
    bool past;
} rtimer;

typedef struct ref {
    ref_cfg c;
    int64_t wm;
    rwin *w;
    size_t nw, capw;
    rtimer *t;
    size_t nt, capt;
    uint64_t seq;
    char *out;
    size_t outlen, outcap;
    int64_t drops, sides;
} ref;

static void ref_printf(ref *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ref_printf(ref *r, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(r->out + r->outlen, r->outcap - r->outlen, fmt, ap);
        va_end(ap);
        if ((size_t)n < r->outcap - r->outlen) {
            r->outlen += (size_t)n;
            return;
        }
        r->outcap = r->outcap * 2 + 4096;
        r->out = realloc(r->out, r->outcap);
        cr_assert_not_null(r->out);
    }
}

static int64_t sat(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

static int64_t rmax(const ref *r, const rwin *w)
{
    (void)r;
    return w->max;
}

static int64_t rcleanup(const ref *r, const rwin *w)
{
    return r->c.kind == WEIR_WINDOW_GLOBAL ? INT64_MAX : sat(rmax(r, w), r->c.lateness);
}

static rwin *ref_find(ref *r, int key, int64_t start, int64_t end, bool past)
{
    for (size_t i = 0; i < r->nw; i++)
        if (r->w[i].key == key && r->w[i].start == start && r->w[i].end == end &&
            r->w[i].past == past)
            return &r->w[i];
    return NULL;
}

static rwin *ref_add_window(ref *r, int key, int64_t start, int64_t end, int64_t max)
{
    if (r->nw == r->capw) {
        r->capw = r->capw * 2 + 16;
        r->w = realloc(r->w, r->capw * sizeof *r->w);
        cr_assert_not_null(r->w);
    }
    rwin *w = &r->w[r->nw++];
    *w = (rwin){.key = key, .start = start, .end = end, .max = max};
    return w;
}

static void ref_remove_window(ref *r, rwin *w)
{
    *w = r->w[--r->nw];
}

static void ref_timer(ref *r, int key, int64_t start, int64_t end, int64_t ts, bool past)
{
    for (size_t i = 0; i < r->nt; i++)
        if (r->t[i].key == key && r->t[i].start == start && r->t[i].end == end && r->t[i].ts == ts &&
            r->t[i].past == past)
            return;
    if (r->nt == r->capt) {
        r->capt = r->capt * 2 + 16;
        r->t = realloc(r->t, r->capt * sizeof *r->t);
        cr_assert_not_null(r->t);
    }
    r->t[r->nt++] = (rtimer){key, start, end, ts, r->seq++, past};
}

static void ref_untimer(ref *r, int key, int64_t start, int64_t end, int64_t ts)
{
    for (size_t i = 0; i < r->nt; i++) {
        if (r->t[i].key == key && r->t[i].start == start && r->t[i].end == end && r->t[i].ts == ts) {
            r->t[i] = r->t[--r->nt];
            return;
        }
    }
}

static void ref_fire(ref *r, rwin *w, bool late)
{
    if (w->n == 0)
        return;
    ref_printf(r, "R %lld k%d %lld [%lld,%lld) n=%lld f=%d%s\n", (long long)rmax(r, w), w->key,
               (long long)w->sum, (long long)w->start, (long long)w->end, (long long)w->n,
               w->firings++, late ? " late" : "");
    if (r->c.purging)
        w->sum = w->n = 0;
}

static void ref_late(ref *r, int key, int64_t value, int64_t ts)
{
    if (sat(ts, r->c.lateness) > r->wm)
        return; /* in no window, not late (between sliding windows) */
    ref_printf(r, "%c %lld k%d %lld\n", r->c.side ? 'L' : 'D', (long long)ts, key, (long long)value);
    if (r->c.side)
        r->sides++;
    else
        r->drops++;
}

/* Adds to window w and asks the trigger (Flink's processElement body). The
 * global window is not an event-time window: never late, and its
 * end-of-input trigger (Flink's EndOfStreamTrigger) only registers a timer
 * at MAX, which after MAX never fires. */
static void ref_add(ref *r, rwin *w, int64_t value)
{
    w->sum += value;
    w->n++;
    int64_t max = rmax(r, w);
    bool event_window = r->c.kind != WEIR_WINDOW_GLOBAL;
    if (r->c.count) {
        if (++w->since >= r->c.count) {
            w->since = 0;
            ref_fire(r, w, event_window && max <= r->wm);
        }
    } else if (event_window && max <= r->wm) {
        ref_fire(r, w, true);
    } else {
        ref_timer(r, w->key, w->start, w->end, max, w->past);
    }
    if (rcleanup(r, w) != INT64_MAX)
        ref_timer(r, w->key, w->start, w->end, rcleanup(r, w), w->past);
}

/* Near the ends of time (window.h): windows stay on the grid, computed in
 * 128 bits; a window's start is clamped at MIN and its end at MAX, and one
 * whose true end passes MAX has max MAX. */
__extension__ typedef __int128 rwide;

static int64_t rclamp(rwide v)
{
    return v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Cumulative: the windows [P, P + k step) of the element's period P that
 * end after it (those whose true end passes MAX are one window, [P, MAX]
 * with max MAX, as window.h says). */
static void ref_element_cumulative(ref *r, int key, int64_t value, int64_t ts)
{
    int64_t size = r->c.size, step = r->c.slide;
    rwide m = ((rwide)ts - r->c.offset) % size;
    if (m < 0)
        m += size;
    rwide p = (rwide)ts - m;
    bool taken = false;
    for (rwide e = p + step; e <= p + size; e += step) {
        if (e <= ts)
            continue;
        bool past = e > INT64_MAX;
        int64_t st = rclamp(p), end = rclamp(e), max = past ? INT64_MAX : (int64_t)(e - 1);
        rwin probe = {.key = key, .start = st, .end = end, .max = max, .past = past};
        if (rcleanup(r, &probe) > r->wm) {
            taken = true;
            rwin *w = ref_find(r, key, st, end, past);
            if (!w) {
                w = ref_add_window(r, key, st, end, max);
                w->past = past;
            }
            ref_add(r, w, value);
        }
        if (past)
            break; /* the further windows past MAX are this one */
    }
    if (!taken)
        ref_late(r, key, value, ts);
}

static void ref_element_aligned(ref *r, int key, int64_t value, int64_t ts)
{
    rwide starts[4096];
    int n = 0;
    int64_t size = r->c.size;
    if (r->c.kind == WEIR_WINDOW_CUMULATIVE) {
        ref_element_cumulative(r, key, value, ts);
        return;
    }
    if (r->c.kind != WEIR_WINDOW_GLOBAL) {
        int64_t step = r->c.kind == WEIR_WINDOW_TUMBLING ? size : r->c.slide;
        rwide m = ((rwide)ts - r->c.offset) % step;
        if (m < 0)
            m += step;
        for (rwide st = (rwide)ts - m; st > (rwide)ts - size; st -= step) {
            cr_assert_lt(n, 4096);
            starts[n++] = st;
        }
    }
    bool taken = false;
    for (int i = 0; i < (r->c.kind == WEIR_WINDOW_GLOBAL ? 1 : n); i++) {
        int64_t st = INT64_MIN, end = INT64_MAX, max = INT64_MAX;
        if (r->c.kind != WEIR_WINDOW_GLOBAL) {
            rwide te = starts[i] + size;
            st = rclamp(starts[i]);
            end = rclamp(te);
            max = te > INT64_MAX ? INT64_MAX : (int64_t)(te - 1);
        }
        rwin probe = {.key = key, .start = st, .end = end, .max = max};
        /* Flink's isWindowLate: event-time windows only (not the global one) */
        if (r->c.kind != WEIR_WINDOW_GLOBAL && rcleanup(r, &probe) <= r->wm)
            continue;
        taken = true;
        rwin *w = ref_find(r, key, st, end, false);
        if (!w)
            w = ref_add_window(r, key, st, end, max);
        ref_add(r, w, value);
    }
    if (!taken)
        ref_late(r, key, value, ts);
}

static void ref_element_session(ref *r, int key, int64_t value, int64_t ts)
{
    int64_t ns = ts, ne = sat(ts, r->c.gap);
    bool open = (rwide)ts + r->c.gap > INT64_MAX;
    int64_t cs = ns, ce = ne;
    bool copen = open;
    rwin *target = NULL;
    int touching = 0;
    for (size_t i = 0; i < r->nw; i++) {
        rwin *w = &r->w[i];
        if (w->key != key || !(w->start <= ne && w->end >= ns))
            continue;
        touching++;
        if (w->start < cs)
            cs = w->start;
        if (w->end > ce)
            ce = w->end;
        if (w->max == INT64_MAX)
            copen = true;
        if (!target || w->start < target->start)
            target = w;
    }
    rwin *w;
    if (!target) {
        rwin probe = {.key = key, .start = ns, .end = ne, .max = open ? INT64_MAX : ne - 1};
        if (rcleanup(r, &probe) <= r->wm) {
            ref_late(r, key, value, ts);
            return;
        }
        w = ref_add_window(r, key, ns, ne, probe.max);
    } else {
        int64_t ts_ = target->start, te_ = target->end;
        if (touching > 1 || cs != ts_ || ce != te_ || copen != (target->max == INT64_MAX)) {
            /* MergingWindowSet's merge callback: the merged windows' trigger
             * and cleanup timers go; the onMerge timer for the result. */
            int64_t sum = 0, n = 0, since = 0;
            int firings = 0;
            for (size_t i = 0; i < r->nw;) {
                rwin *m = &r->w[i];
                if (m->key != key || !(m->start <= ne && m->end >= ns)) {
                    i++;
                    continue;
                }
                ref_untimer(r, key, m->start, m->end, rmax(r, m));
                ref_untimer(r, key, m->start, m->end, rcleanup(r, m));
                sum += m->sum;
                n += m->n;
                since += m->since;
                if (m->firings > firings)
                    firings = m->firings;
                ref_remove_window(r, m);
            }
            w = ref_add_window(r, key, cs, ce, copen ? INT64_MAX : ce - 1);
            w->sum = sum;
            w->n = n;
            w->since = since;
            w->firings = firings;
            if (!r->c.count && rmax(r, w) > r->wm)
                ref_timer(r, key, cs, ce, rmax(r, w), false);
        } else {
            w = target;
        }
        if (rcleanup(r, w) <= r->wm) {
            /* late already (never cleaned up: its cleanup time overflowed,
             * and the watermark is MAX): Flink retires it */
            ref_untimer(r, key, w->start, w->end, rmax(r, w));
            ref_remove_window(r, w);
            ref_late(r, key, value, ts);
            return;
        }
    }
    ref_add(r, w, value);
}

static void ref_element(ref *r, int key, int64_t value, int64_t ts)
{
    if (r->c.kind == WEIR_WINDOW_SESSION)
        ref_element_session(r, key, value, ts);
    else
        ref_element_aligned(r, key, value, ts);
}

static void ref_watermark(ref *r, int64_t wm)
{
    if (wm <= r->wm)
        return;
    r->wm = wm;
    for (;;) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < r->nt; i++) {
            if (r->t[i].ts > wm)
                continue;
            if (best == SIZE_MAX || r->t[i].ts < r->t[best].ts ||
                (r->t[i].ts == r->t[best].ts && r->t[i].seq < r->t[best].seq))
                best = i;
        }
        if (best == SIZE_MAX)
            break;
        rtimer t = r->t[best];
        r->t[best] = r->t[--r->nt];
        rwin *w = ref_find(r, t.key, t.start, t.end, t.past);
        if (!w)
            continue;
        if (!r->c.count && t.ts == rmax(r, w))
            ref_fire(r, w, false);
        if (t.ts == rcleanup(r, w) && t.ts != INT64_MAX)
            ref_remove_window(r, w);
    }
    ref_printf(r, "W %lld\n", (long long)wm);
}

static void ref_free(ref *r)
{
    free(r->w);
    free(r->t);
    free(r->out);
}

/* ---- random streams ------------------------------------------------------- */

typedef struct item {
    bool is_wm;
    int key;
    int64_t value, ts; /* ts: the watermark for is_wm */
} item;

static uint64_t rnd_state;

static uint64_t rnd(uint64_t n)
{
    rnd_state = tu_mix(rnd_state);
    return n ? rnd_state % n : 0;
}

/* A stream of `n` records over `keys` keys, each up to `disorder` behind the
 * largest timestamp so far, with a watermark now and then that may lag or
 * run ahead (`wm_lead` > 0 makes late elements). */
static item *random_stream(size_t n, int keys, int64_t disorder, int64_t wm_lead, size_t *len)
{
    item *s = malloc((2 * n + 1) * sizeof *s);
    cr_assert_not_null(s);
    size_t k = 0;
    int64_t hi = (int64_t)rnd(200) - 100;
    int64_t last_wm = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        hi += (int64_t)rnd(8);
        int64_t ts = hi - (int64_t)rnd((uint64_t)disorder + 1);
        s[k++] = (item){.key = (int)rnd((uint64_t)keys), .value = (int64_t)rnd(1000), .ts = ts};
        if (rnd(8) == 0) {
            int64_t w = hi - disorder - 1 + (int64_t)rnd((uint64_t)wm_lead + 1);
            if (w > last_wm) {
                s[k++] = (item){.is_wm = true, .ts = w};
                last_wm = w;
            }
        }
    }
    *len = k;
    return s;
}

/* Set by the tests of cumulative windows: random_cfg makes only those. */
static bool cumulative_only;

static ref_cfg random_cfg(void)
{
    ref_cfg c = {0};
    if (cumulative_only) {
        c.kind = WEIR_WINDOW_CUMULATIVE;
        c.slide = 1 + (int64_t)rnd(20);
        c.size = c.slide * (1 + (int64_t)rnd(6));
        c.offset = (int64_t)rnd((uint64_t)(2 * c.size - 1)) - (c.size - 1);
        c.lateness = rnd(2) ? 0 : (int64_t)rnd(40);
        c.side = rnd(2);
        return c; /* the event-time trigger only: no count, not purging */
    }
    switch (rnd(4)) {
    case 0:
        c.kind = WEIR_WINDOW_TUMBLING;
        c.size = 1 + (int64_t)rnd(60);
        c.slide = c.size;
        c.offset = (int64_t)rnd((uint64_t)(2 * c.size - 1)) - (c.size - 1);
        break;
    case 1:
        c.kind = WEIR_WINDOW_SLIDING;
        c.slide = 1 + (int64_t)rnd(20);
        c.size = c.slide * (1 + (int64_t)rnd(5)) + (rnd(3) == 0 ? (int64_t)rnd(7) : 0);
        if (rnd(6) == 0)
            c.size = 1 + (int64_t)rnd((uint64_t)c.slide); /* gaps between windows */
        c.offset = (int64_t)rnd((uint64_t)(2 * c.slide - 1)) - (c.slide - 1);
        break;
    case 2:
        c.kind = WEIR_WINDOW_SESSION;
        c.gap = 1 + (int64_t)rnd(30);
        break;
    default:
        c.kind = WEIR_WINDOW_GLOBAL;
        break;
    }
    c.lateness = rnd(2) ? 0 : (int64_t)rnd(40);
    c.count = rnd(4) == 0 || c.kind == WEIR_WINDOW_GLOBAL ? (rnd(2) ? 1 + (int64_t)rnd(4) : 0) : 0;
    c.purging = rnd(3) == 0;
    c.side = rnd(2);
    return c;
}

/* Which window engine runs the spec: 0 the built-in triggers' own; 1 the
 * same triggers as tables in the custom engine, under an evictor that
 * evicts nothing (window_custom.c); 2 the custom engine under the triggers
 * below, Flink's EventTimeTrigger and CountTrigger written as a user
 * writes a trigger (weir_trigger_vtable). The output must not change. */
static int engine_variant;

static int user_et_element(weir_trigger_ctx *tc, const void *elem, int64_t ts)
{
    (void)elem;
    (void)ts;
    if (tc->max_timestamp <= tc->watermark) /* weir's global window fires once */
        return tc->start == WEIR_TS_MIN && tc->end == WEIR_TS_MAX ? WEIR_TRIGGER_CONTINUE
                                                                 : WEIR_TRIGGER_FIRE;
    int r = weir_trigger_register(tc, WEIR_EVENT_TIME, tc->max_timestamp);
    return r < 0 ? r : WEIR_TRIGGER_CONTINUE;
}

static int user_et_time(weir_trigger_ctx *tc, int64_t time)
{
    return time == tc->max_timestamp ? WEIR_TRIGGER_FIRE : WEIR_TRIGGER_CONTINUE;
}

static int user_et_merge(weir_trigger_ctx *tc, const void *const *merged, int n)
{
    (void)merged;
    (void)n;
    return tc->max_timestamp > tc->watermark
               ? weir_trigger_register(tc, WEIR_EVENT_TIME, tc->max_timestamp)
               : 0;
}

static void user_et_clear(weir_trigger_ctx *tc)
{
    weir_trigger_delete(tc, WEIR_EVENT_TIME, tc->max_timestamp);
}

static const weir_trigger_vtable user_event_time = {
    .version = WEIR_TRIGGER_VTABLE_V1,
    .on_element = user_et_element,
    .on_event_time = user_et_time,
    .on_merge = user_et_merge,
    .clear = user_et_clear,
};

/* the count in the state's second word, the limit in its first (set by
 * the first element: the trigger has no arguments of its own here) */
static int64_t user_count_limit;

static int user_count_element(weir_trigger_ctx *tc, const void *elem, int64_t ts)
{
    (void)elem;
    (void)ts;
    int64_t *n = tc->state;
    if (++*n >= user_count_limit) {
        *n = 0;
        return WEIR_TRIGGER_FIRE;
    }
    return WEIR_TRIGGER_CONTINUE;
}

static int user_count_merge(weir_trigger_ctx *tc, const void *const *merged, int n)
{
    int64_t *sum = tc->state;
    for (int i = 0; i < n; i++)
        *sum += *(const int64_t *)merged[i];
    return 0;
}

static const weir_trigger_vtable user_count = {
    .version = WEIR_TRIGGER_VTABLE_V1,
    .state_size = sizeof(int64_t),
    .on_element = user_count_element,
    .on_merge = user_count_merge,
};

static weir_window_spec spec_for(const ref_cfg *c, int fn)
{
    weir_window_spec s = {.allowed_lateness_ms = c->lateness,
                          .late_tag = c->side ? WEIR_WINDOW_LATE_TAG : 0,
                          .out_size = sizeof(res)};
    switch (c->kind) {
    case WEIR_WINDOW_TUMBLING:
        s.assigner = weir_window_tumbling(c->size, c->offset);
        break;
    case WEIR_WINDOW_SLIDING:
        s.assigner = weir_window_sliding(c->size, c->slide, c->offset);
        break;
    case WEIR_WINDOW_SESSION:
        s.assigner = weir_window_session(c->gap);
        break;
    case WEIR_WINDOW_CUMULATIVE:
        s.assigner = weir_window_cumulative(c->size, c->slide, c->offset);
        break;
    default:
        s.assigner = weir_window_global();
    }
    s.trigger.purging = c->purging;
    if (c->count) {
        s.trigger.kind = WEIR_TRIGGER_COUNT;
        s.trigger.count = c->count;
    }
    if (engine_variant == 1) {
        s.evictor = (weir_window_evictor){.kind = WEIR_EVICTOR_COUNT, .count = INT64_MAX};
    } else if (engine_variant == 2) {
        user_count_limit = c->count;
        s.trigger = (weir_window_trigger){.purging = c->purging,
                                          .custom = c->count ? &user_count : &user_event_time};
    }
    if (fn == 0) {
        s.aggregate = sum_aggregate;
    } else if (fn == 1) {
        s.process = sum_process;
    } else {
        s.reduce = sum_reduce;
        s.reduce_finish = sum_finish;
    }
    return s;
}

static void describe(const ref_cfg *c, int fn, char *buf, size_t size)
{
    snprintf(buf, size,
             "kind %d size %lld slide %lld offset %lld gap %lld lateness %lld count %lld "
             "purging %d side %d fn %d",
             (int)c->kind, (long long)c->size, (long long)c->slide, (long long)c->offset,
             (long long)c->gap, (long long)c->lateness, (long long)c->count, c->purging, c->side,
             fn);
}

/* ---- 1. harness runs ------------------------------------------------------ */

/* Where a harness round's times lie: around 0, or moved to the ends of time
 * (MIN + 1 and MAX are where they pile up when clamped): near MIN or near
 * MAX as they are, or with every size, offset, gap and lateness times 2^56
 * and every time times 2^50, so that windows, sessions and cleanup times
 * span a good part of int64 and overflow it; or records at both ends (odd
 * values near MAX) and watermarks near MIN, so that a key has windows open
 * at both ends at once (a window that begins before MIN and one that ends
 * after MAX can share a namespace: window_internal.h). */
enum { AROUND_0, NEAR_MIN, NEAR_MAX, HUGE_NEAR_MIN, HUGE_NEAR_MAX, BOTH_ENDS, HUGE_BOTH_ENDS };

static int64_t moved(int64_t t, int where, int64_t lowest)
{
    rwide v;
    switch (where) {
    case NEAR_MIN:
        v = (rwide)INT64_MIN + 50 + t;
        break;
    case NEAR_MAX:
        v = (rwide)INT64_MAX - 1500 + t;
        break;
    case HUGE_NEAR_MIN:
        v = (rwide)INT64_MIN + ((rwide)1 << 57) + (rwide)t * ((rwide)1 << 50);
        break;
    default:
        v = (rwide)INT64_MAX - ((rwide)1 << 61) + (rwide)t * ((rwide)1 << 50);
    }
    return v < lowest ? lowest : rclamp(v);
}

static void move_round(ref_cfg *c, item *s, size_t len, int where)
{
    bool huge = where == HUGE_NEAR_MIN || where == HUGE_NEAR_MAX || where == HUGE_BOTH_ENDS;
    if (huge) {
        const int64_t k = (int64_t)1 << 56;
        c->size *= k;
        c->slide *= k;
        c->offset *= k;
        c->gap *= k;
        c->lateness *= k;
    }
    for (size_t i = 0; i < len; i++) {
        int w = where;
        if (where == BOTH_ENDS || where == HUGE_BOTH_ENDS)
            w = !s[i].is_wm && (s[i].value & 1) ? (huge ? HUGE_NEAR_MAX : NEAR_MAX)
                                                : (huge ? HUGE_NEAR_MIN : NEAR_MIN);
        s[i].ts = moved(s[i].ts, w, s[i].is_wm ? INT64_MIN : INT64_MIN + 1);
    }
}

static void harness_round_at(uint64_t seed, int where)
{
    rnd_state = seed;
    ref_cfg c = random_cfg();
    int fn = (int)rnd(3);
    size_t len;
    item *s = random_stream(200 + rnd(600), 1 + (int)rnd(5), (int64_t)rnd(40),
                            (int64_t)rnd(60), &len);
    if (where != AROUND_0)
        move_round(&c, s, len, where);
    weir_window_spec spec = spec_for(&c, fn);
    ref r = {.c = c, .wm = INT64_MIN};
    r.out = calloc(1, 1);
    r.outcap = 1;
    wt *t = wt_open(&spec);
    for (size_t i = 0; i < len; i++) {
        if (s[i].is_wm) {
            wt_wm(t, s[i].ts);
            ref_watermark(&r, s[i].ts);
        } else {
            char key[8];
            snprintf(key, sizeof key, "k%d", s[i].key);
            wt_rec(t, key, s[i].value, s[i].ts);
            ref_element(&r, s[i].key, s[i].value, s[i].ts);
        }
    }
    wt_end(t);
    ref_watermark(&r, INT64_MAX);
    size_t at = 0;
    char *got = wt_take(t, &at);
    char *a = wt_canonical(got), *b = wt_canonical(r.out);
    if (strcmp(a, b) != 0) {
        char what[256];
        describe(&c, fn, what, sizeof what);
        /* the first line that differs, for the report */
        size_t i = 0;
        while (a[i] && a[i] == b[i])
            i++;
        while (i > 0 && a[i - 1] != '\n')
            i--;
        cr_assert_fail("seed %llu at %d (%s): outputs differ from line\n  got:      %.200s\n  "
                       "expected: %.200s", (unsigned long long)seed, where, what, a + i, b + i);
    }
    free(got);
    free(a);
    free(b);
    wt_close(t);
    ref_free(&r);
    free(s);
}

Test(differential, harness_random_streams_equal_the_reference, .timeout = 120)
{
    int rounds = getenv("WT_HROUNDS") ? atoi(getenv("WT_HROUNDS")) : WEIR_TEST_SANITIZED ? 150 : 600;
    for (int i = 0; i < rounds; i++)
        harness_round_at(0xC0FFEEull + (uint64_t)i * 7919u, AROUND_0);
}

/* Cumulative windows (Flink SQL's CUMULATE) against the same model: every
 * element in each window of its period that ends after it. */
Test(differential, harness_cumulative_windows_equal_the_reference, .timeout = 120)
{
    cumulative_only = true;
    int rounds = getenv("WT_HROUNDS") ? atoi(getenv("WT_HROUNDS")) : WEIR_TEST_SANITIZED ? 150 : 600;
    for (int i = 0; i < rounds; i++)
        harness_round_at(0xC0A1ull + (uint64_t)i * 7919u, i % 4 ? AROUND_0 : NEAR_MIN + i / 4 % 6);
}

/* The custom engine (custom triggers, evictors) against the same model:
 * the built-in triggers' tables under an evictor that evicts nothing, and
 * Flink's triggers written as a user's; around 0 and near either end of
 * time (not both ends at once: there the custom engine's namespaces of a
 * window that begins before MIN and one that ends after MAX meet,
 * window_internal.h, which it does not tell apart). */
Test(differential, harness_custom_engine_equals_the_reference, .timeout = 120)
{
    int rounds = getenv("WT_HROUNDS") ? atoi(getenv("WT_HROUNDS")) : WEIR_TEST_SANITIZED ? 60 : 250;
    for (int v = 1; v <= 2; v++) {
        engine_variant = v;
        for (int i = 0; i < rounds; i++)
            harness_round_at(0xC057ull + (uint64_t)i * 7919u, i % 3 ? AROUND_0 : NEAR_MIN + i / 3 % 4);
    }
    engine_variant = 0;
}

Test(differential, harness_streams_at_the_ends_of_time, .timeout = 120)
{
    int rounds = getenv("WT_HROUNDS") ? atoi(getenv("WT_HROUNDS")) : WEIR_TEST_SANITIZED ? 100 : 400;
    for (int i = 0; i < rounds; i++)
        harness_round_at(0xE9D5ull + (uint64_t)i * 6151u, NEAR_MIN + i % 6);
}

/* ---- 2. threaded jobs, no late data ------------------------------------------- */

static void ev_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const ev *)elem)->key, 8);
}

static const weir_key_spec ev_key_spec = {.key_size = 8, .extract = ev_key};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The "R ..." lines of a text, sorted, one string. */
static char *results_only(const char *text)
{
    char *copy = strdup(text);
    size_t cap = 1024, n = 0;
    char **lines = malloc(cap * sizeof *lines);
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] != 'R')
            continue;
        if (n == cap)
            lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[n++] = l;
    }
    qsort(lines, n, sizeof *lines, cmp_str);
    size_t len = strlen(text) + 1, w = 0;
    char *out = malloc(len + 1);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        w += (size_t)sprintf(out + w, "%s\n", lines[i]);
    free(lines);
    free(copy);
    return out;
}

static char *collected_results(weir_collect *out)
{
    ref r = {0};
    r.out = calloc(1, 1);
    r.outcap = 1;
    for (size_t i = 0; i < weir_collect_count(out); i++) {
        const res *x = weir_collect_elem(out, i);
        ref_printf(&r, "R %lld %.8s %lld [%lld,%lld) n=%lld f=%d%s\n",
                   (long long)weir_collect_timestamp(out, i), x->key, (long long)x->value,
                   (long long)x->start, (long long)x->end, (long long)x->count, x->firing,
                   x->late ? " late" : "");
    }
    char *s = results_only(r.out);
    free(r.out);
    return s;
}

static int64_t summary_drops(weir_diag_memory *mem);

static void threaded_in_order(uint64_t seed, int parallelism)
{
    rnd_state = seed;
    ref_cfg c = random_cfg();
    c.count = 0; /* count firings depend on arrival order across channels */
    c.purging = false;
    int fn = (int)rnd(3);
    int64_t bound = (int64_t)rnd(30);
    size_t len;
    item *s = random_stream(WEIR_TEST_SANITIZED ? 3000 : 20000, 50, bound, 0, &len);
    /* The job gets the records only (its timestamps operator makes the
     * watermarks); the reference gets the stream's own watermarks too, which
     * never pass a record's timestamp (wm_lead 0), so they change nothing but
     * let it clean up as it goes. */
    ev *elems = malloc(len * sizeof *elems);
    int64_t *ts = malloc(len * sizeof *ts);
    ref r = {.c = c, .wm = INT64_MIN};
    r.out = calloc(1, 1);
    r.outcap = 1;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i].is_wm) {
            ref_watermark(&r, s[i].ts);
            continue;
        }
        memset(&elems[n], 0, sizeof elems[n]);
        snprintf(elems[n].key, sizeof elems[n].key, "k%d", s[i].key);
        elems[n].value = s[i].value;
        ts[n++] = s[i].ts;
        ref_element(&r, s[i].key, s[i].value, s[i].ts);
    }
    ref_watermark(&r, INT64_MAX);

    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job *job = tu_job(&(weir_job_config){.workers = 4, .watermark_interval_ms = 1,
                                              .buffer_timeout_ms = 1,
                                              .diag = {.memory = mem, .level = WEIR_DIAG_SUMMARY}});
    weir_stream *src = weir_stream_set_parallelism(
        weir_source_array(job, elems, n, sizeof(ev), ts), parallelism);
    weir_timestamps_spec tss = {.strategy = weir_watermarks_bounded(bound)};
    /* one timestamps subtask per source subtask (chained): each sees one
     * slice, whose disorder is within the bound */
    weir_stream *timed = weir_stream_set_parallelism(weir_stream_assign_timestamps(src, &tss),
                                                     parallelism);
    weir_window_spec spec = spec_for(&c, fn);
    spec.parallelism = parallelism;
    spec.name = "win";
    weir_stream *w = weir_stream_window(weir_stream_key_by(timed, &ev_key_spec), &spec);
    weir_collect *out;
    weir_sink_collect(w, &out);
    tu_run_ok(job);
    cr_assert_eq(summary_drops(mem), 0, "seed %llu parallelism %d: late elements dropped",
                 (unsigned long long)seed, parallelism);
    char *got = collected_results(out);
    char *want = results_only(r.out);
    char what[256];
    describe(&c, fn, what, sizeof what);
    cr_assert(strcmp(got, want) == 0, "seed %llu parallelism %d (%s): results differ",
              (unsigned long long)seed, parallelism, what);
    cr_assert(strstr(r.out, "late") == NULL && r.drops == 0 && r.sides == 0,
              "the stream was meant to have no late data");
    free(got);
    free(want);
    weir_job_destroy(job);
    weir_diag_memory_destroy(mem);
    ref_free(&r);
    free(elems);
    free(ts);
    free(s);
}

Test(differential, threaded_jobs_without_late_data, .timeout = 120)
{
    int rounds = getenv("WT_ROUNDS") ? atoi(getenv("WT_ROUNDS")) : WEIR_TEST_SANITIZED ? 2 : 6;
    for (int i = 0; i < rounds; i++) {
        threaded_in_order(0xABCDull + (uint64_t)i * 104729u, 1);
        threaded_in_order(0xABCDull + (uint64_t)i * 104729u, 2);
        threaded_in_order(0xABCDull + (uint64_t)i * 104729u, 4);
    }
}

/* ---- 3. threaded jobs with late data, watermarks in-band ------------------------ */

typedef struct seq_source {
    const item *s;
    size_t n;
} seq_source;

static int seq_open(weir_ctx *ctx)
{
    size_t *pos = calloc(1, sizeof *pos);
    weir_ctx_set_state(ctx, pos);
    return pos ? 0 : WEIR_ENOMEM;
}

static void seq_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int seq_next(weir_ctx *ctx)
{
    const seq_source *src = weir_ctx_arg(ctx);
    size_t *pos = weir_ctx_state(ctx);
    size_t stop = *pos + 64;
    for (; *pos < src->n && *pos < stop; (*pos)++) {
        const item *it = &src->s[*pos];
        int r;
        if (it->is_wm) {
            r = weir_emit_watermark(ctx, it->ts);
        } else {
            ev e;
            memset(&e, 0, sizeof e);
            snprintf(e.key, sizeof e.key, "k%d", it->key);
            e.value = it->value;
            r = weir_emit(ctx, &e, it->ts);
        }
        if (r < 0)
            return r;
    }
    return *pos < src->n ? WEIR_SOURCE_MORE : WEIR_SOURCE_END;
}

static const weir_source_vtable seq_vt = {.version = WEIR_SOURCE_VTABLE_V1,
                                          .open = seq_open,
                                          .next = seq_next,
                                          .close = seq_close};

static char *collected_late(weir_collect *late)
{
    ref r = {0};
    r.out = calloc(1, 1);
    r.outcap = 1;
    for (size_t i = 0; i < weir_collect_count(late); i++) {
        const ev *x = weir_collect_elem(late, i);
        ref_printf(&r, "L %lld %.8s %lld\n", (long long)weir_collect_timestamp(late, i), x->key,
                   (long long)x->value);
    }
    return r.out;
}

static char *sorted_lines(const char *text, char first)
{
    char *copy = strdup(text);
    size_t cap = 1024, n = 0;
    char **lines = malloc(cap * sizeof *lines);
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] != first)
            continue;
        if (n == cap)
            lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[n++] = l;
    }
    qsort(lines, n, sizeof *lines, cmp_str);
    char *out = malloc(strlen(text) + 2);
    size_t w = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        w += (size_t)sprintf(out + w, "%s\n", lines[i]);
    free(lines);
    free(copy);
    return out;
}

static int64_t summary_drops(weir_diag_memory *mem)
{
    int64_t drops = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *de = weir_diag_memory_event(mem, i);
        if (de->kind != WEIR_DIAG_KIND_SUMMARY)
            continue;
        json_t *root = json_loads(de->json, 0, NULL);
        cr_assert_not_null(root);
        size_t k;
        json_t *op;
        json_array_foreach(json_object_get(root, "operators"), k, op)
        {
            if (strcmp(json_string_value(json_object_get(op, "op")), "win") == 0)
                drops += json_integer_value(json_object_get(op, "late_dropped"));
        }
        json_decref(root);
    }
    return drops;
}

static void threaded_late(uint64_t seed, int parallelism)
{
    rnd_state = seed;
    ref_cfg c = random_cfg();
    int fn = (int)rnd(3);
    size_t len;
    item *s = random_stream(WEIR_TEST_SANITIZED ? 2000 : 8000, 40, 20 + (int64_t)rnd(30),
                            10 + (int64_t)rnd(40), &len);
    ref r = {.c = c, .wm = INT64_MIN};
    r.out = calloc(1, 1);
    r.outcap = 1;
    for (size_t i = 0; i < len; i++) {
        if (s[i].is_wm)
            ref_watermark(&r, s[i].ts);
        else
            ref_element(&r, s[i].key, s[i].value, s[i].ts);
    }
    ref_watermark(&r, INT64_MAX);

    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    /* parallelism 1 on one worker and the virtual clock (a fully
     * reproducible run), the others on four threads */
    weir_job *job = tu_job(&(weir_job_config){
        .workers = parallelism == 1 ? 1 : 4,
        .clock = parallelism == 1 ? WEIR_CLOCK_VIRTUAL : WEIR_CLOCK_SYSTEM,
        .diag = {.memory = mem, .level = WEIR_DIAG_SUMMARY}});
    seq_source src = {s, len};
    weir_stream *in = weir_job_add_source(job, &(weir_source_spec){.vtable = &seq_vt,
                                                                   .arg = &src,
                                                                   .elem_size = sizeof(ev),
                                                                   .parallelism = 1});
    weir_window_spec spec = spec_for(&c, fn);
    spec.parallelism = parallelism;
    spec.name = "win";
    weir_stream *w = weir_stream_window(weir_stream_key_by(in, &ev_key_spec), &spec);
    weir_collect *out, *late = NULL;
    weir_sink_collect(w, &out);
    if (c.side)
        weir_sink_collect(weir_stream_side_output(w, WEIR_WINDOW_LATE_TAG), &late);
    tu_run_ok(job);

    char what[256];
    describe(&c, fn, what, sizeof what);
    char *got = collected_results(out), *want = results_only(r.out);
    cr_assert(strcmp(got, want) == 0, "seed %llu parallelism %d (%s): results differ",
              (unsigned long long)seed, parallelism, what);
    free(got);
    free(want);
    if (c.side) {
        char *gl = collected_late(late);
        char *a = sorted_lines(gl, 'L'), *b = sorted_lines(r.out, 'L');
        cr_assert(strcmp(a, b) == 0, "seed %llu parallelism %d (%s): late elements differ",
                  (unsigned long long)seed, parallelism, what);
        free(gl);
        free(a);
        free(b);
    }
    cr_assert_eq(summary_drops(mem), r.drops, "seed %llu parallelism %d (%s): drops",
                 (unsigned long long)seed, parallelism, what);
    weir_job_destroy(job);
    weir_diag_memory_destroy(mem);
    ref_free(&r);
    free(s);
}

Test(differential, threaded_jobs_with_late_data_in_band_watermarks, .timeout = 120)
{
    int rounds = getenv("WT_ROUNDS") ? atoi(getenv("WT_ROUNDS")) : WEIR_TEST_SANITIZED ? 2 : 8;
    for (int i = 0; i < rounds; i++) {
        threaded_late(0x5EEDull + (uint64_t)i * 15485863u, 1);
        threaded_late(0x5EEDull + (uint64_t)i * 15485863u, 2);
        threaded_late(0x5EEDull + (uint64_t)i * 15485863u, 4);
    }
}

Test(differential, threaded_cumulative_windows_with_late_data, .timeout = 120)
{
    cumulative_only = true;
    int rounds = getenv("WT_ROUNDS") ? atoi(getenv("WT_ROUNDS")) : WEIR_TEST_SANITIZED ? 2 : 4;
    for (int i = 0; i < rounds; i++) {
        threaded_late(0xC0A2ull + (uint64_t)i * 15485863u, 1);
        threaded_late(0xC0A2ull + (uint64_t)i * 15485863u, 4);
    }
}
