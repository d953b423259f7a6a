/* table_over.c — the OVER aggregation on the rowtime (Flink's OverAggregate:
 * RowTimeRowsBoundedPrecedingFunction, RowTimeRangeBoundedPrecedingFunction,
 * RowTime{Rows,Range}UnboundedPrecedingFunction), a keyed operator on the
 * runtime's keyed state and event-time timers (SEMANTICS.md 10).
 *
 * Per partition key, two states:
 *   value  over_head (the last time processed; where the frame starts and
 *          ends in the list; the event-time timer armed, if any) and the
 *          accumulators;
 *   list   entries of the key's rows, each its time then its bytes:
 *            [0, frame_head)           out of every frame (dropped in bulk
 *                                      when they are half the list);
 *            [frame_head, frame_end)   processed rows that may still be in
 *                                      a later row's frame (bounded frames),
 *                                      in processing order;
 *            [frame_end, n)            rows waiting for the watermark, in
 *                                      arrival order.
 *   lists  per MIN/MAX or DISTINCT aggregate of a bounded frame, its
 *          (value, count) list (table_agg.c), for exact retraction.
 * A key has at most one timer armed, at the earliest time it waits for (a
 * row that comes earlier moves it). When it fires, every waiting row at or
 * below the watermark goes, in time order (rows of equal time in arrival
 * order), exactly as Flink's per-time timers would take them one time after
 * the other: a RANGE frame retracts the rows older than t - preceding,
 * accumulates all of t's rows (peers) and emits each with the one result;
 * a ROWS frame accumulates one row at a time, retracting the row that falls
 * out of the last preceding + 1, and emits it. So a row costs a list append
 * and the key's value on arrival, and a share of one timer per key per
 * watermark. Late rows: an unbounded frame drops a row at or below the
 * watermark when it arrives (AbstractRowTimeUnboundedPrecedingOver), a
 * bounded one a row at or below the last time its key processed (Flink's
 * lastTriggeringTs). Everything lives in keyed state and timers, which the
 * runtime snapshots, restores and rescales.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"
#include "weir/error.h"
#include "weir/operator.h"
#include "weir/state.h"
#include "weir/time.h"

typedef struct over_head {
    int64_t has_last;
    int64_t last_ts;    /* the last time processed */
    int64_t frame_head; /* list entries out of every frame */
    int64_t frame_end;  /* list entries processed (the rest wait) */
    int64_t frame_rows; /* rows in the current ROWS frame */
    int64_t has_timer;  /* a timer is armed at `timer` */
    int64_t timer;
} over_head;

typedef struct over_impl {
    weir__key *key;
    weir_expr **items; /* the aggregate calls */
    int nitems;
    weir__agg *aggs;
    uint32_t acc_size;
    uint32_t *scratch_at;
    uint32_t scratch;
    uint32_t fn_buf;
    bool fn_init;
    bool virtual_clock;
    weir_table_over_frame frame;
    int64_t preceding;
    bool bounded;
    bool same_layout; /* the output's first columns lie as the input's */
    const weir_schema *in, *out;
    size_t value_size; /* over_head + accumulators */
    size_t entry_size; /* a list entry: int64 time + the input row, 8-aligned */
    const char *name;
    /* Over an updating input (weir's extension, below): the ORDER BY
     * column, and where an entry's input row and output row lie. */
    bool updating;
    bool proctime; /* ordered by the processing-time attribute: the job clock */
    int order_col;
    size_t row_at, out_at;
} over_impl;

static void over_impl_free(void *p)
{
    over_impl *o = p;
    if (!o)
        return;
    for (int i = 0; i < o->nitems; i++)
        weir_expr_destroy(o->items[i]);
    free(o->items);
    free(o->aggs);
    free(o->scratch_at);
    free(o->key);
    free(o);
}

typedef struct over_state {
    int value_id, list_id;
    int list_ids[WEIR__LIST_MAX];
    unsigned char *value;   /* the working copy of the key's value */
    unsigned char *out;     /* the row being emitted */
    unsigned char *scratch;
    unsigned char *rows;    /* the entries going out, copied out of the list */
    size_t rows_cap;
    unsigned char *retract; /* entries being retracted, copied out; an entry made */
    size_t retract_cap;
    unsigned char *list;    /* the working copy of an aggregate's list */
    size_t list_cap;
    char *fn_buf;
} over_state;

static void over_close(weir_ctx *ctx)
{
    over_state *st = weir_ctx_state(ctx);
    if (!st)
        return;
    free(st->value);
    free(st->out);
    free(st->scratch);
    free(st->rows);
    free(st->retract);
    free(st->list);
    free(st->fn_buf);
    free(st);
}

static int over_open(weir_ctx *ctx)
{
    const over_impl *o = weir_ctx_impl(ctx);
    over_state *st = calloc(1, sizeof *st);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    st->value = calloc(1, o->value_size);
    st->out = calloc(1, o->out->row_size);
    st->scratch = calloc(1, o->scratch + 8);
    st->fn_buf = o->fn_buf ? malloc(o->fn_buf) : NULL;
    st->retract = calloc(1, o->entry_size);
    st->retract_cap = st->retract ? o->entry_size : 0;
    if (!st->value || !st->out || !st->scratch || (o->fn_buf && !st->fn_buf) || !st->retract)
        return WEIR_ENOMEM;
    int r = weir_state_declare(ctx, WEIR_STATE_LIST, o->entry_size, &st->list_id);
    if (!r)
        r = weir_state_declare(ctx, WEIR_STATE_VALUE, o->value_size, &st->value_id);
    for (int i = 0; !r && i < o->nitems; i++)
        if (o->aggs[i].list)
            r = weir_state_declare(ctx, WEIR_STATE_LIST, o->aggs[i].esize, &st->list_ids[i]);
    return r;
}

/* buf grown to hold at least `need` bytes. 0 or WEIR_ENOMEM (ctx failed). */
static int reserve(weir_ctx *ctx, const over_impl *o, unsigned char **buf, size_t *cap,
                   size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    unsigned char *n = realloc(*buf, c);
    if (!n)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", o->name);
    *buf = n;
    *cap = c;
    return 0;
}

/* A list aggregate takes x in or out through its list state. */
static int update_list(weir_ctx *ctx, const over_impl *o, over_state *st, int i,
                       unsigned char *accs, const weir__val *x, int sign)
{
    const weir__agg *a = &o->aggs[i];
    size_t n;
    weir_state_list_get(ctx, st->list_ids[i], 0, &n);
    int r = reserve(ctx, o, &st->list, &st->list_cap, (n + 1) * a->esize);
    if (r)
        return r;
    const void *l = weir_state_list_get(ctx, st->list_ids[i], 0, &n);
    if (n)
        memcpy(st->list, l, n * a->esize);
    const char *why = NULL;
    r = weir__agg_update(a, accs, x, sign, st->list, &n, &why);
    if (r)
        return weir_ctx_fail(ctx, r, "%s: %s in '%s'", o->name, why, o->items[i]->text);
    if (weir_state_list_set(ctx, st->list_ids[i], 0, st->list, n))
        return weir_ctx_error(ctx);
    return 0;
}

/* Every aggregate takes `row` in (sign 1) or out (-1). */
static int accumulate(weir_ctx *ctx, const over_impl *o, over_state *st,
                      const unsigned char *row, unsigned char *accs, int sign)
{
    const char *why = NULL;
    for (int i = 0; i < o->nitems; i++) {
        const weir__agg *a = &o->aggs[i];
        if (a->filter) {
            /* FILTER (WHERE c): the row counts for this aggregate when c is TRUE */
            weir__val f;
            int64_t now = a->filter->clock_slot >= 0 ? weir__table_now(ctx, o->virtual_clock) : 0;
            int r = weir__expr_eval_now(a->filter, row, st->scratch + o->scratch_at[i], now, &f,
                                        &why);
            if (r)
                return weir_ctx_fail(ctx, r, "%s: %s in '%s'", o->name, why, o->items[i]->text);
            if (f.null || !f.i)
                continue;
        }
        if (a->kind == WEIR_AGG_FUNCTION) {
            weir__val args[WEIR_FUNCTION_MAX_ARGS];
            int r = 0;
            for (int k = 0; r == 0 && k < a->nargs; k++)
                r = weir__expr_eval_now(a->args[k], row, st->scratch + o->scratch_at[i],
                                        a->args[k]->clock_slot >= 0
                                            ? weir__table_now(ctx, o->virtual_clock)
                                            : 0,
                                        &args[k], &why);
            if (r == 0)
                r = weir__agg_call(a, accs, args, sign, &why);
            if (r)
                return weir_ctx_fail(ctx, r, "%s: %s in '%s'", o->name, why, o->items[i]->text);
            continue;
        }
        weir__val x = {0};
        if (a->arg) {
            int64_t now = a->arg->clock_slot >= 0 ? weir__table_now(ctx, o->virtual_clock) : 0;
            int r = weir__expr_eval_now(a->arg, row, st->scratch + o->scratch_at[i], now, &x,
                                        &why);
            if (r)
                return weir_ctx_fail(ctx, r, "%s: %s in '%s'", o->name, why, o->items[i]->text);
        }
        if (!a->list) {
            int r = weir__agg_update(a, accs, &x, sign, NULL, NULL, &why);
            if (r)
                return weir_ctx_fail(ctx, r, "%s: %s in '%s'", o->name, why, o->items[i]->text);
        } else if (!x.null) {
            int r = update_list(ctx, o, st, i, accs, &x, sign);
            if (r)
                return r;
        }
    }
    return 0;
}

/* The output row for `row` with the current results, into st->out. */
static int result_row(weir_ctx *ctx, const over_impl *o, over_state *st,
                      const unsigned char *row, const unsigned char *accs)
{
    const weir_schema *in = o->in, *out = o->out;
    if (o->same_layout) {
        memcpy(st->out, row, in->row_size);
        memset(st->out + in->row_size, 0, out->row_size - in->row_size);
    } else {
        memset(st->out, 0, out->row_size);
        for (int c = 0; c < in->ncols; c++) {
            weir__val v;
            weir__load_value(in, row, c, &v);
            weir__store_value(out, st->out, c, &v);
        }
    }
    for (int i = 0; i < o->nitems; i++) {
        weir__val x;
        if (o->aggs[i].kind == WEIR_AGG_FUNCTION) {
            const char *why;
            int r = weir__agg_call_result(&o->aggs[i], accs, &x, st->fn_buf, &why);
            if (r)
                return weir_ctx_fail(ctx, r, "%s: %s in '%s'", o->name, why, o->items[i]->text);
        } else {
            weir__agg_result(&o->aggs[i], accs, &x);
        }
        weir__store_value(out, st->out, in->ncols + i, &x);
    }
    st->out[0] = (unsigned char)WEIR_ROW_INSERT;
    return 0;
}

static int64_t entry_ts(const unsigned char *e)
{
    int64_t t;
    memcpy(&t, e, 8);
    return t;
}

static int changes_record(weir_ctx *ctx, const over_impl *o, over_state *st,
                          const unsigned char *row, int64_t ts);
static int proctime_record(weir_ctx *ctx, const over_impl *o, over_state *st,
                           const unsigned char *row);

static int over_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const over_impl *o = weir_ctx_impl(ctx);
    over_state *st = weir_ctx_state(ctx);
    if (o->updating)
        return changes_record(ctx, o, st, elem, ts);
    if (o->proctime)
        return proctime_record(ctx, o, st, elem);
    const over_head *h = weir_state_value(ctx, st->value_id, 0, false);
    bool late = o->bounded ? h && h->has_last && ts <= h->last_ts
                           : ts <= weir_ctx_watermark(ctx);
    if (late) {
        weir_ctx_count(ctx, WEIR_COUNTER_LATE_DROPPED, 1);
        return 0;
    }
    /* the timer moves to an earlier time */
    bool arm = !h || !h->has_timer || ts < h->timer;
    int64_t old = h && h->has_timer ? h->timer : WEIR_TS_MIN;
    bool had = h != NULL;
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    memcpy(st->retract, &ts, 8);
    memcpy(st->retract + 8, elem, o->in->row_size);
    if (weir_state_list_add(ctx, st->list_id, 0, st->retract))
        return weir_ctx_error(ctx);
    if (!arm)
        return 0;
    over_head *w = weir_state_value(ctx, st->value_id, 0, true);
    if (!w)
        return weir_ctx_state_error(ctx);
    if (!had)
        for (int i = 0; o->fn_init && i < o->nitems; i++)
            weir__agg_init(&o->aggs[i], (unsigned char *)w + sizeof *w);
    w->has_timer = 1;
    w->timer = ts;
    if (old != WEIR_TS_MIN)
        weir_timer_delete(ctx, WEIR_EVENT_TIME, 0, old);
    return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, ts);
}

/* Retracts the frame's oldest entries: for RANGE those older than
 * `before`, for ROWS `count` of them. */
static int frame_retract(weir_ctx *ctx, const over_impl *o, over_state *st, over_head *h,
                         unsigned char *accs, int64_t before, int64_t count)
{
    size_t n;
    const unsigned char *l = weir_state_list_get(ctx, st->list_id, 0, &n);
    size_t from = (size_t)h->frame_head, to = from, end = (size_t)h->frame_end;
    if (o->frame == WEIR_OVER_RANGE) {
        while (to < end && entry_ts(l + to * o->entry_size) < before)
            to++;
    } else {
        to = from + (size_t)count < end ? from + (size_t)count : end;
    }
    if (to == from)
        return 0;
    int r = reserve(ctx, o, &st->retract, &st->retract_cap, (to - from) * o->entry_size);
    if (r)
        return r;
    l = weir_state_list_get(ctx, st->list_id, 0, &n);
    memcpy(st->retract, l + from * o->entry_size, (to - from) * o->entry_size);
    for (size_t i = 0; i < to - from; i++)
        if ((r = accumulate(ctx, o, st, st->retract + i * o->entry_size + 8, accs, -1)))
            return r;
    h->frame_head = (int64_t)to;
    h->frame_rows -= (int64_t)(to - from);
    return 0;
}

/* The waiting entries at or below `wm` taken out of the list into st->rows
 * in time order (stable: arrival order among equal times); bounded frames
 * keep them in the list as the frame's newest entries, before the entries
 * still waiting. Their count in *k; the earliest time still waiting in
 * *next (WEIR_TS_MAX: none). */
static int take_due(weir_ctx *ctx, const over_impl *o, over_state *st, over_head *h, int64_t wm,
                    size_t *k, int64_t *next)
{
    size_t n, es = o->entry_size;
    weir_state_list_get(ctx, st->list_id, 0, &n);
    size_t end = (size_t)h->frame_end;
    int r = reserve(ctx, o, &st->rows, &st->rows_cap, (n > end ? n - end : 1) * es);
    if (r)
        return r;
    unsigned char *l = weir_state_list_data(ctx, st->list_id, 0, &n);
    size_t due = 0, keep = end;
    *next = WEIR_TS_MAX;
    for (size_t i = end; i < n; i++) {
        unsigned char *e = l + i * es;
        int64_t t = entry_ts(e);
        if (t <= wm) {
            /* insertion into time order: the rows come nearly in order */
            size_t j = due;
            while (j > 0 && entry_ts(st->rows + (j - 1) * es) > t)
                j--;
            if (j < due)
                memmove(st->rows + (j + 1) * es, st->rows + j * es, (due - j) * es);
            memcpy(st->rows + j * es, e, es);
            due++;
        } else {
            if (keep != i)
                memcpy(l + keep * es, e, es);
            keep++;
            if (t < *next)
                *next = t;
        }
    }
    *k = due;
    if (due == 0)
        return 0;
    if (o->bounded) {
        /* the due rows after the frame, the rest after them */
        if (keep > end)
            memmove(l + (end + due) * es, l + end * es, (keep - end) * es);
        memcpy(l + end * es, st->rows, due * es);
        return 0;
    }
    /* unbounded: only the rows still waiting stay */
    if (weir_state_list_set(ctx, st->list_id, 0, l + end * es, keep - end))
        return weir_ctx_error(ctx);
    h->frame_head = h->frame_end = 0;
    return 0;
}

static int over_fire(weir_ctx *ctx, const over_impl *o, over_state *st, int64_t wm,
                     const weir_timer *timer);

static int over_timer(weir_ctx *ctx, const weir_timer *timer)
{
    const over_impl *o = weir_ctx_impl(ctx);
    over_state *st = weir_ctx_state(ctx);
    if (timer->domain == WEIR_PROCESSING_TIME) /* a RANGE frame's peers of a time */
        return over_fire(ctx, o, st, timer->timestamp - 1, timer);
    int64_t wm = weir_ctx_watermark(ctx);
    if (wm < timer->timestamp)
        wm = timer->timestamp;
    return over_fire(ctx, o, st, wm, timer);
}

/* A processing-time OVER (Flink's ProcTime{Rows,Range}{Bounded,Unbounded}
 * PrecedingFunction): a row's time is the job clock when it comes; ROWS
 * frames and the unbounded RANGE take it at once, a bounded RANGE frame at
 * a timer of the next millisecond, with every row of its millisecond (its
 * peers). No row is late. */
static int proctime_record(weir_ctx *ctx, const over_impl *o, over_state *st,
                           const unsigned char *row)
{
    int64_t now = weir_ctx_now(ctx);
    bool had = weir_state_value(ctx, st->value_id, 0, false) != NULL;
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    memcpy(st->retract, &now, 8);
    memcpy(st->retract + 8, row, o->in->row_size);
    if (weir_state_list_add(ctx, st->list_id, 0, st->retract))
        return weir_ctx_error(ctx);
    over_head *w = weir_state_value(ctx, st->value_id, 0, true);
    if (!w)
        return weir_ctx_state_error(ctx);
    if (!had)
        for (int i = 0; o->fn_init && i < o->nitems; i++)
            weir__agg_init(&o->aggs[i], (unsigned char *)w + sizeof *w);
    if (o->frame != WEIR_OVER_RANGE)
        return over_fire(ctx, o, st, now, NULL);
    if (w->has_timer)
        return 0;
    w->has_timer = 1;
    w->timer = now + 1;
    return weir_timer_register(ctx, WEIR_PROCESSING_TIME, 0, now + 1);
}

/* The key's waiting rows at or below wm processed (timer: the one that
 * fired, NULL when a processing-time row goes at once). */
static int over_fire(weir_ctx *ctx, const over_impl *o, over_state *st, int64_t wm,
                     const weir_timer *timer)
{
    const unsigned char *v = weir_state_value(ctx, st->value_id, 0, false);
    if (!v)
        return 0;
    memcpy(st->value, v, o->value_size);
    over_head h;
    memcpy(&h, st->value, sizeof h);
    unsigned char *accs = st->value + sizeof h;
    if (timer && h.has_timer && h.timer != timer->timestamp)
        return 0; /* a timer moved earlier since (deleted, or not yet) */
    if (timer)
        h.has_timer = 0;
    size_t k;
    int64_t next;
    int r = take_due(ctx, o, st, &h, wm, &k, &next);
    if (r)
        return r;
    size_t es = o->entry_size;
    for (size_t a = 0; a < k;) {
        int64_t t = entry_ts(st->rows + a * es);
        size_t b = a + 1;
        while (b < k && entry_ts(st->rows + b * es) == t)
            b++;
        switch (o->frame) {
        case WEIR_OVER_RANGE_UNBOUNDED:
        case WEIR_OVER_RANGE:
            if (o->frame == WEIR_OVER_RANGE &&
                (r = frame_retract(ctx, o, st, &h, accs, t - o->preceding, 0)))
                return r;
            for (size_t i = a; i < b; i++)
                if ((r = accumulate(ctx, o, st, st->rows + i * es + 8, accs, 1)))
                    return r;
            if (o->bounded)
                h.frame_end += (int64_t)(b - a);
            for (size_t i = a; i < b; i++)
                if ((r = result_row(ctx, o, st, st->rows + i * es + 8, accs)) ||
                    (r = weir_emit(ctx, st->out, t)))
                    return r;
            break;
        case WEIR_OVER_ROWS_UNBOUNDED:
        case WEIR_OVER_ROWS:
            for (size_t i = a; i < b; i++) {
                const unsigned char *row = st->rows + i * es + 8;
                if (o->bounded) {
                    if (h.frame_rows == o->preceding + 1 &&
                        (r = frame_retract(ctx, o, st, &h, accs, 0, 1)))
                        return r;
                    h.frame_end++;
                    h.frame_rows++;
                }
                if ((r = accumulate(ctx, o, st, row, accs, 1)) ||
                    (r = result_row(ctx, o, st, row, accs)) || (r = weir_emit(ctx, st->out, t)))
                    return r;
            }
            break;
        }
        h.has_last = 1;
        h.last_ts = t;
        a = b;
    }
    /* the entries out of every frame dropped once they are half the list */
    if (o->bounded && h.frame_head > 0) {
        size_t n;
        const unsigned char *l = weir_state_list_get(ctx, st->list_id, 0, &n);
        if ((size_t)h.frame_head * 2 >= n) {
            if (weir_state_list_set(ctx, st->list_id, 0, l + (size_t)h.frame_head * es,
                                    n - (size_t)h.frame_head))
                return weir_ctx_error(ctx);
            h.frame_end -= h.frame_head;
            h.frame_head = 0;
        }
    }
    if (next != WEIR_TS_MAX && !h.has_timer) {
        /* processing time: the rows of a later millisecond, at its end */
        h.has_timer = 1;
        h.timer = o->proctime ? next + 1 : next;
        if ((r = weir_timer_register(ctx, o->proctime ? WEIR_PROCESSING_TIME : WEIR_EVENT_TIME,
                                     0, h.timer)))
            return r;
    }
    memcpy(st->value, &h, sizeof h);
    unsigned char *w = weir_state_value(ctx, st->value_id, 0, true);
    if (!w)
        return weir_ctx_state_error(ctx);
    memcpy(w, st->value, o->value_size);
    return 0;
}

/* ---- over an updating input ------------------------------------------------------
 * weir's extension (Flink refuses an updating input: FLINK-19059, Nexmark
 * q6): the OVER aggregate as a materialized view. For every row currently in
 * the input, its aggregate over its ROWS frame in ORDER BY order within its
 * partition, the order the ORDER BY column's value (it is no time attribute
 * any more), rows of equal value in arrival order. Per partition key:
 *   list   entries sorted by (value, arrival): the value (ms, ns: NULL
 *          first), the arrival number, the input row, the output row as
 *          last emitted;
 *   value  over_head, its frame_end the next arrival number.
 * A +I/+U row goes in at its place and goes out with its kind; a -U/-D
 * takes out the first entry of its value whose row is the same bytes, and
 * its last output goes out with the retraction's kind. Then each row whose
 * frame held the place (the next `preceding` rows; all the later ones for
 * an unbounded frame) is computed again, and goes out as -U (its last
 * output) and +U when its result changed. A row's frame is computed from
 * scratch (accumulate only, so every aggregate works, MIN/MAX and DISTINCT
 * without lists): (preceding + 1)^2 accumulations per change for a bounded
 * frame, the partition's rows before the place and after it for an
 * unbounded one; the sorted list is moved by a memmove of the entries after
 * the place. Everything lives in keyed state, which the runtime snapshots,
 * restores and rescales as the other OVER state. */

static void entry_order(const unsigned char *e, int64_t *v, int64_t *ns, int64_t *seq)
{
    memcpy(v, e, 8);
    memcpy(ns, e + 8, 8);
    if (seq)
        memcpy(seq, e + 16, 8);
}

/* The ORDER BY value of `row` (NULL before every value). */
static void order_value(const over_impl *o, const unsigned char *row, int64_t *v, int64_t *ns)
{
    if (weir__row_null(o->in, row, o->order_col)) {
        *v = INT64_MIN;
        *ns = -1;
        return;
    }
    weir__val x = {0};
    weir__load_value(o->in, row, o->order_col, &x);
    weir_type_id id = o->in->cols[o->order_col].type.id;
    *v = x.i;
    *ns = id == WEIR_TYPE_TIMESTAMP || id == WEIR_TYPE_TIMESTAMP_LTZ ? x.nanos : 0;
}

/* The first entry of n whose value is above (v, ns) (upper) or not below
 * it (lower). */
static size_t order_bound(const over_impl *o, const unsigned char *l, size_t n, int64_t v,
                          int64_t ns, bool upper)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t ev, ens;
        entry_order(l + mid * o->entry_size, &ev, &ens, NULL);
        bool before = ev < v || (ev == v && (ens < ns || (upper && ens == ns)));
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Entry j's aggregates over its frame (computed afresh into accs) and its
 * output row into st->out. */
static int changes_result(weir_ctx *ctx, const over_impl *o, over_state *st, size_t j,
                          unsigned char *accs, bool fresh)
{
    size_t n, es = o->entry_size;
    const unsigned char *l = weir_state_list_get(ctx, st->list_id, 0, &n);
    int r;
    if (fresh) {
        memset(accs, 0, o->acc_size);
        for (int i = 0; o->fn_init && i < o->nitems; i++)
            weir__agg_init(&o->aggs[i], accs);
        size_t from = o->frame == WEIR_OVER_ROWS && j > (size_t)o->preceding
                          ? j - (size_t)o->preceding : 0;
        for (size_t i = from; i <= j; i++)
            if ((r = accumulate(ctx, o, st, l + i * es + o->row_at, accs, 1)))
                return r;
    } else if ((r = accumulate(ctx, o, st, l + j * es + o->row_at, accs, 1))) {
        return r; /* an unbounded frame: the running accumulators take row j */
    }
    l = weir_state_list_get(ctx, st->list_id, 0, &n);
    return result_row(ctx, o, st, l + j * es + o->row_at, accs);
}

/* The rows [from, to) of the list computed again; each whose output
 * changed goes out as -U (as last emitted) and +U. An unbounded frame's
 * accumulators run from the first row. */
static int changes_refresh(weir_ctx *ctx, const over_impl *o, over_state *st, size_t from,
                           size_t to, int64_t ts)
{
    size_t n, es = o->entry_size, osz = o->out->row_size;
    unsigned char *accs = st->value; /* a scratch accumulator (value_size holds it) */
    bool running = o->frame == WEIR_OVER_ROWS_UNBOUNDED;
    int r;
    if (running) {
        memset(accs, 0, o->acc_size);
        for (int i = 0; o->fn_init && i < o->nitems; i++)
            weir__agg_init(&o->aggs[i], accs);
        const unsigned char *l = weir_state_list_get(ctx, st->list_id, 0, &n);
        for (size_t i = 0; i < from; i++)
            if ((r = accumulate(ctx, o, st, l + i * es + o->row_at, accs, 1)))
                return r;
    }
    for (size_t j = from; j < to; j++) {
        if ((r = changes_result(ctx, o, st, j, accs, !running)))
            return r;
        unsigned char *l = weir_state_list_data(ctx, st->list_id, 0, &n);
        unsigned char *old = l + j * es + o->out_at;
        if (memcmp(old + 1, st->out + 1, osz - 1) == 0)
            continue; /* its frame's value did not change */
        old[0] = (unsigned char)WEIR_ROW_UPDATE_BEFORE;
        if ((r = weir_emit(ctx, old, ts)))
            return r;
        st->out[0] = (unsigned char)WEIR_ROW_UPDATE_AFTER;
        if ((r = weir_emit(ctx, st->out, ts)))
            return r;
        l = weir_state_list_data(ctx, st->list_id, 0, &n);
        memcpy(l + j * es + o->out_at, st->out, osz);
        l[j * es + o->out_at] = (unsigned char)WEIR_ROW_INSERT;
    }
    return 0;
}

static int changes_record(weir_ctx *ctx, const over_impl *o, over_state *st,
                          const unsigned char *row, int64_t ts)
{
    weir_row_kind kind = weir_row_get_kind(row);
    bool add = kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER;
    size_t n, es = o->entry_size, isz = o->in->row_size, osz = o->out->row_size;
    int64_t v, ns;
    order_value(o, row, &v, &ns);
    int r;
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    if (add) {
        over_head *h = weir_state_value(ctx, st->value_id, 0, true);
        if (!h)
            return weir_ctx_state_error(ctx);
        int64_t seq = h->frame_end++;
        unsigned char *e = st->retract;
        memset(e, 0, es);
        memcpy(e, &v, 8);
        memcpy(e + 8, &ns, 8);
        memcpy(e + 16, &seq, 8);
        memcpy(e + o->row_at, row, isz);
        e[o->row_at] = (unsigned char)WEIR_ROW_INSERT;
        if (weir_state_list_add(ctx, st->list_id, 0, e))
            return weir_ctx_error(ctx);
        unsigned char *l = weir_state_list_data(ctx, st->list_id, 0, &n);
        size_t at = order_bound(o, l, n - 1, v, ns, true);
        if (at < n - 1) {
            memmove(l + (at + 1) * es, l + at * es, (n - 1 - at) * es);
            memcpy(l + at * es, st->retract, es);
        }
        /* the row itself, with its kind */
        unsigned char *accs = st->value;
        if ((r = changes_result(ctx, o, st, at, accs, true)))
            return r;
        l = weir_state_list_data(ctx, st->list_id, 0, &n);
        memcpy(l + at * es + o->out_at, st->out, osz);
        st->out[0] = (unsigned char)kind;
        if ((r = weir_emit(ctx, st->out, ts)))
            return r;
        size_t to = o->frame == WEIR_OVER_ROWS && at + 1 + (size_t)o->preceding < n
                        ? at + 1 + (size_t)o->preceding : n;
        return changes_refresh(ctx, o, st, at + 1, to, ts);
    }
    /* a retraction: the first entry of its value with the same row */
    unsigned char *l = weir_state_list_data(ctx, st->list_id, 0, &n);
    size_t at = order_bound(o, l, n, v, ns, false);
    for (; at < n; at++) {
        const unsigned char *e = l + at * es;
        int64_t ev, ens;
        entry_order(e, &ev, &ens, NULL);
        if (ev != v || ens != ns) {
            at = n;
            break;
        }
        if (memcmp(e + o->row_at + 1, row + 1, isz - 1) == 0)
            break;
    }
    if (at == n)
        return 0; /* a row not there (Flink's aggregates ignore such a retraction) */
    memcpy(st->out, l + at * es + o->out_at, osz);
    st->out[0] = (unsigned char)kind;
    memmove(l + at * es, l + (at + 1) * es, (n - 1 - at) * es);
    if (weir_state_list_set(ctx, st->list_id, 0, l, n - 1))
        return weir_ctx_error(ctx);
    if ((r = weir_emit(ctx, st->out, ts)))
        return r;
    n--;
    if (n == 0) {
        weir_state_clear(ctx, st->value_id, 0);
        return 0;
    }
    size_t to = o->frame == WEIR_OVER_ROWS && at + (size_t)o->preceding < n
                    ? at + (size_t)o->preceding : n;
    return changes_refresh(ctx, o, st, at, to, ts);
}

static const weir_operator_vtable over_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = over_open,
    .on_record = over_record,
    .on_timer = over_timer,
    .close = over_close,
};

/* ---- the plan ------------------------------------------------------------------------ */

static const char *frame_text(const weir_table_over_window *w, char *buf, size_t size)
{
    switch (w->frame) {
    case WEIR_OVER_ROWS_UNBOUNDED:
        snprintf(buf, size, "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW");
        break;
    case WEIR_OVER_ROWS:
        snprintf(buf, size, "ROWS BETWEEN %lld PRECEDING AND CURRENT ROW",
                 (long long)w->preceding);
        break;
    case WEIR_OVER_RANGE:
        snprintf(buf, size, "RANGE BETWEEN %lld PRECEDING AND CURRENT ROW",
                 (long long)w->preceding);
        break;
    default:
        snprintf(buf, size, "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW");
        break;
    }
    return buf;
}

/* Refuses what an OVER node, a rank or a sort cannot read: an updating t
 * (naming the node of the updates), and (`need_rowtime`) t without a
 * rowtime. True when refused. */
bool weir__table_over_input_refused(weir_table *in, const char *what, const char *node,
                                    bool need_rowtime)
{
    if (in->mode != WEIR_CHANGELOG_INSERT_ONLY) {
        char mode[32];
        weir_changelog_mode_format(in->mode, mode, sizeof mode);
        weir__table_fail(in->env, WEIR_EINVAL, "%s: the table %s emits %s: %s doesn't support "
                         "consuming update changes which is produced by node %s", what,
                         in->name, mode, node, weir__table_update_producer(in)->name);
        return true;
    }
    if (need_rowtime && in->rowtime < 0) {
        weir__table_fail(in->env, WEIR_EINVAL, "%s: the table %s has no rowtime attribute "
                         "(a column with a watermark, kept as a bare column): %s is ordered "
                         "by it", what, in->name, node);
        return true;
    }
    return false;
}

/* The aggregates' layout and the output schema (t's columns, then each
 * aggregate). 0, or -1 with env failed. */
static int over_describe(weir_table_env *env, weir_table *in, over_impl *o, weir_table *t,
                         const char *what)
{
    const weir_schema *is = in->schema;
    int ncols = is->ncols + o->nitems;
    if (ncols > WEIR__LIST_MAX) {
        weir__table_fail(env, WEIR_EINVAL, "%s: more than %d columns", what, WEIR__LIST_MAX);
        return -1;
    }
    const char *names[WEIR__LIST_MAX];
    weir_type types[WEIR__LIST_MAX];
    for (int c = 0; c < is->ncols; c++) {
        names[c] = is->cols[c].name;
        types[c] = is->cols[c].type;
    }
    weir__item_names nm = {.n = 0};
    for (int i = 0; i < o->nitems; i++) {
        const weir_expr *e = o->items[i];
        if (e->agg == WEIR_AGG_NONE) {
            char echo[WEIR__EXPR_ECHO + 4];
            weir__table_fail(env, WEIR_EINVAL, "%s: '%s' is not an aggregate call", what,
                             weir__expr_echo(e->text, echo));
            return -1;
        }
        if (!weir__item_name(env, what, &nm, e))
            return -1;
        for (int c = 0; c < is->ncols; c++)
            if (strcmp(is->cols[c].name, nm.names[i]) == 0) {
                weir__table_fail(env, WEIR_EINVAL, "%s: duplicate column name '%s'", what,
                                 nm.names[i]);
                return -1;
            }
        names[is->ncols + i] = nm.names[i];
        types[is->ncols + i] = e->type;
        o->scratch_at[i] = o->scratch;
        o->scratch += (e->scratch + 7u) & ~7u;
    }
    /* over changes, a frame is computed afresh, accumulating only: no lists
     * (a DISTINCT keeps its values in the accumulator, as a window's) */
    o->acc_size = weir__agg_layout(o->aggs, o->nitems, (const weir_expr *const *)o->items,
                                   o->bounded && !o->updating, o->updating);
    for (int i = 0; i < o->nitems; i++) {
        const weir__function *f = o->aggs[i].fn;
        if (!f)
            continue;
        if (o->bounded && !o->updating && !f->agg.retract) {
            weir__table_fail(env, WEIR_EINVAL, "%s: could not find an implementation method "
                             "'retract' for function '%s': a bounded OVER frame retracts the "
                             "rows that leave it", what, f->name);
            return -1;
        }
        o->fn_init = o->fn_init || f->agg.init;
        if (weir__type_is_var(o->aggs[i].out_type.id) &&
            o->aggs[i].out_type.capacity + 1 > o->fn_buf)
            o->fn_buf = o->aggs[i].out_type.capacity + 1;
    }
    const char *why;
    t->schema = weir__schema_derive(is, ncols, names, types, &why);
    if (!t->schema) {
        weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
        return -1;
    }
    o->out = t->schema;
    o->same_layout = t->schema->header_size == is->header_size;
    for (int c = 0; o->same_layout && c < is->ncols; c++)
        o->same_layout = t->schema->cols[c].offset == is->cols[c].offset;
    o->value_size = sizeof(over_head) + o->acc_size;
    o->entry_size = (8 + is->row_size + 7u) & ~(size_t)7u;
    t->mode = WEIR_CHANGELOG_INSERT_ONLY;
    t->rowtime = in->rowtime;
    if (o->proctime)
        t->proctime = in->proctime; /* the input's columns come first */
    if (o->updating) {
        /* value, ns, arrival; the input row; the output row as emitted */
        o->row_at = 24;
        o->out_at = o->row_at + ((is->row_size + 7u) & ~(size_t)7u);
        o->entry_size = o->out_at + ((t->schema->row_size + 7u) & ~(size_t)7u);
        t->mode = WEIR_CHANGELOG_ALL;
        t->rowtime = -1;
    }
    return 0;
}

static void destroy_exprs(weir_expr **v, int n)
{
    for (int i = 0; v && i < n; i++)
        weir_expr_destroy(v[i]);
}

typedef enum over_mode { OVER_ROWTIME, OVER_PROCTIME, OVER_CHANGES } over_mode;

static weir_table *over_make(weir_table *in, const weir_table_over_window *w,
                             const char *order_by, over_mode mode, weir_expr **aggs, int n);

weir_table *weir_table_over_exprs(weir_table *in, const weir_table_over_window *w,
                                  weir_expr **aggs, int n)
{
    return over_make(in, w, NULL, OVER_ROWTIME, aggs, n);
}

weir_table *weir_table_over_by_exprs(weir_table *in, const weir_table_over_window *w,
                                     const char *order_by, weir_expr **aggs, int n)
{
    if (in && !order_by) {
        destroy_exprs(aggs, n);
        return weir__table_fail(in->env, WEIR_EINVAL, "weir_table_over: an ORDER BY column is "
                                "required");
    }
    if (!in || in->mode != WEIR_CHANGELOG_INSERT_ONLY)
        return over_make(in, w, order_by, OVER_CHANGES, aggs, n);
    int c = weir_schema_column_index(in->schema, order_by);
    if (c >= 0 && c == in->rowtime)
        return over_make(in, w, NULL, OVER_ROWTIME, aggs, n);
    if (c >= 0 && c == in->proctime)
        return over_make(in, w, order_by, OVER_PROCTIME, aggs, n);
    destroy_exprs(aggs, n);
    return weir__table_fail(in->env, WEIR_EINVAL, "weir_table_over: OVER windows' ordering in "
                            "stream mode must be defined on a time attribute. ('%s' is neither "
                            "the rowtime nor the processing-time attribute of %s)", order_by,
                            in->name);
}

weir_table *weir_table_over_changes_exprs(weir_table *in, const weir_table_over_window *w,
                                          const char *order_by, weir_expr **aggs, int n)
{
    if (in && !order_by) {
        destroy_exprs(aggs, n);
        return weir__table_fail(in->env, WEIR_EINVAL, "weir_table_over_changes: an ORDER BY "
                                "column is required");
    }
    return over_make(in, w, order_by, OVER_CHANGES, aggs, n);
}

weir_table *weir_table_over_changes(weir_table *in, const weir_table_over_window *w,
                                    const char *order_by, const char *aggs)
{
    static const char *what = "weir_table_over_changes";
    if (!in)
        return NULL;
    if (!aggs)
        return weir__table_fail(in->env, WEIR_EINVAL, "%s: aggregate calls are required", what);
    weir_expr *exprs[WEIR__LIST_MAX];
    int n = weir__compile_list(in->env, what, aggs, in->schema, 1, exprs);
    if (n < 0)
        return NULL;
    return weir_table_over_changes_exprs(in, w, order_by, exprs, n);
}

/* An OverAggregate: on t's rowtime, on its processing-time attribute
 * order_by, or over t's changes ordered by the column order_by
 * (weir_table_over_changes). */
static weir_table *over_make(weir_table *in, const weir_table_over_window *w,
                             const char *order_by, over_mode mode, weir_expr **aggs, int n)
{
    const char *what = mode == OVER_CHANGES ? "weir_table_over_changes" : "weir_table_over";
    if (!in) {
        destroy_exprs(aggs, n);
        return NULL;
    }
    weir_table_env *env = in->env;
    bool ok = w && aggs && n > 0 && n <= WEIR__LIST_MAX;
    for (int i = 0; ok && i < n; i++)
        ok = aggs[i] != NULL;
    if (!ok) {
        destroy_exprs(aggs, aggs && n > 0 && n <= WEIR__LIST_MAX ? n : 0);
        return weir__table_fail(env, WEIR_EINVAL, "%s: a window and 1 to %d aggregate calls "
                                "are required", what, WEIR__LIST_MAX);
    }
    if ((unsigned)w->frame > WEIR_OVER_RANGE || w->preceding < 0 ||
        (w->frame == WEIR_OVER_ROWS && w->preceding > INT32_MAX)) {
        destroy_exprs(aggs, n);
        return weir__table_fail(env, WEIR_EINVAL, "%s: a bad frame (kind %d, preceding %lld)",
                                what, (int)w->frame, (long long)w->preceding);
    }
    int order_col = -1;
    if (mode == OVER_PROCTIME) {
        order_col = in->proctime;
        if (weir__table_over_input_refused(in, what, "OverAggregate", false)) {
            destroy_exprs(aggs, n);
            return NULL;
        }
    } else if (mode == OVER_CHANGES) {
        order_col = weir_schema_column_index(in->schema, order_by);
        weir_type_id id = order_col >= 0 ? in->schema->cols[order_col].type.id : WEIR_TYPE_NULL;
        if (order_col < 0 || !(weir__type_is_time(id) || id == WEIR_TYPE_DATE ||
                               id == WEIR_TYPE_TINYINT || id == WEIR_TYPE_SMALLINT ||
                               id == WEIR_TYPE_INT || id == WEIR_TYPE_BIGINT)) {
            destroy_exprs(aggs, n);
            return weir__table_fail(env, WEIR_EINVAL, "%s: the ORDER BY column '%s' %s", what,
                                    order_by, order_col < 0 ? "is not a column of the input"
                                    : "is not a timestamp, a date, a time or an integer");
        }
        if ((in->mode & WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_AFTER)) &&
            !(in->mode & WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_BEFORE))) {
            destroy_exprs(aggs, n);
            return weir__table_fail(env, WEIR_EINVAL, "%s: the table %s is an upsert "
                                    "changelog (+U without -U): an OVER window reads whole "
                                    "retractions", what, in->name);
        }
        if (w->frame != WEIR_OVER_ROWS && w->frame != WEIR_OVER_ROWS_UNBOUNDED) {
            destroy_exprs(aggs, n);
            return weir__table_fail(env, WEIR_EINVAL, "%s: an OVER window over an updating "
                                    "input takes a ROWS frame (ROWS BETWEEN n PRECEDING AND "
                                    "CURRENT ROW, or UNBOUNDED PRECEDING): its RANGE of times "
                                    "is not planned", what);
        }
    } else if (weir__table_over_input_refused(in, what, "OverAggregate", true)) {
        destroy_exprs(aggs, n);
        return NULL;
    }
    const char *keys = w->partition_by && *weir__skip_ws(w->partition_by) ? w->partition_by
                                                                            : NULL;
    weir__key *key = weir__key_plan(env, in->schema, keys, what);
    if (!key) {
        destroy_exprs(aggs, n);
        return NULL;
    }
    char part[512];
    size_t plen = 0;
    part[0] = 0;
    for (int k = 0; k < key->nkeys; k++)
        weir__append(part, sizeof part, &plen, "%s%s", k ? ", " : "",
                     in->schema->cols[key->keys[k]].name);
    char *shown = weir__items_text(aggs, n);
    char frame[96];
    frame_text(w, frame, sizeof frame);
    weir_table *t = shown ? weir__table_node(env, in, "%s(%s%s%sorderBy=[%s ASC], "
                                             "window=[%s], select=[%s])",
                                             mode == OVER_CHANGES ? "ChangelogOverAggregate"
                                                                  : "OverAggregate",
                                             *part ? "partitionBy=[" : "", part,
                                             *part ? "], " : "",
                                             order_by ? order_by
                                                      : in->schema->cols[in->rowtime].name,
                                             frame, shown)
                          : NULL;
    free(shown);
    over_impl *o = t ? calloc(1, sizeof *o) : NULL;
    if (o && !(o->items = malloc((size_t)n * sizeof *o->items))) {
        free(o);
        o = NULL;
    }
    if (!o) {
        free(key);
        destroy_exprs(aggs, n);
        return t ? weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what)
                 : (shown ? NULL : weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what));
    }
    memcpy(o->items, aggs, (size_t)n * sizeof *aggs);
    o->nitems = n;
    t->impl = o;
    t->impl_free = over_impl_free;
    o->key = key;
    o->frame = w->frame;
    o->preceding = w->preceding;
    o->bounded = w->frame == WEIR_OVER_ROWS || w->frame == WEIR_OVER_RANGE;
    o->updating = mode == OVER_CHANGES;
    o->proctime = mode == OVER_PROCTIME;
    o->order_col = order_col;
    o->in = in->schema;
    o->name = t->name;
    o->virtual_clock = weir_job_get_config(env->job)->clock == WEIR_CLOCK_VIRTUAL;
    if (!(o->aggs = calloc((size_t)n, sizeof *o->aggs)) ||
        !(o->scratch_at = calloc((size_t)n, sizeof *o->scratch_at)))
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    if (over_describe(env, in, o, t, what))
        return NULL;
    weir_key_spec ks = {.key_size = o->key->size, .extract = weir__key_extract, .arg = o->key,
                        .format = weir__key_format};
    weir_process_spec spec = {
        .name = t->name,
        .kind = "table_over_aggregate",
        .vtable = &over_vtable,
        .impl = o,
        .out_size = t->schema->row_size,
        .parallelism = o->key->nkeys == 0 ? 1 : env->config.parallelism,
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = weir__table_settings(t, NULL),
    };
    t->stream = weir_stream_process(weir_stream_key_by(in->stream, &ks), &spec);
    return t->stream ? t : NULL;
}

weir_table *weir_table_over(weir_table *in, const weir_table_over_window *w, const char *aggs)
{
    static const char *what = "weir_table_over";
    if (!in)
        return NULL;
    if (!aggs)
        return weir__table_fail(in->env, WEIR_EINVAL, "%s: aggregate calls are required", what);
    weir_expr *exprs[WEIR__LIST_MAX];
    int n = weir__compile_list(in->env, what, aggs, in->schema, 1, exprs);
    if (n < 0)
        return NULL;
    return weir_table_over_exprs(in, w, exprs, n);
}
