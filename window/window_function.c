/* window_function.c — what every window engine shares: the window function
 * applied (accumulators made, added to and merged; the results of a firing),
 * what happens to an element that no window took (SEMANTICS.md 7), and the
 * engines' growable scratch buffers. Called by the engines; calls none of
 * them.
 */
#include "window_function.h"

#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/operator.h"

/* ---- accumulators --------------------------------------------------------- */

void weir__window_acc_init(const weir__window_config *c, void *acc)
{
    memset(acc, 0, c->acc_size);
    if (c->fn == WEIR__FN_AGGREGATE && c->spec.aggregate.create)
        c->spec.aggregate.create(acc, c->spec.arg);
}

void weir__window_acc_add(const weir__window_config *c, void *acc, int64_t count, const void *elem)
{
    if (c->fn == WEIR__FN_REDUCE) {
        /* The first element is the accumulator (Flink's ReducingState). */
        if (count == 0)
            memcpy(acc, elem, c->in_size);
        else
            c->spec.reduce(acc, elem, c->spec.arg);
    } else {
        c->spec.aggregate.add(acc, elem, c->spec.arg);
    }
}

void weir__window_acc_merge(const weir__window_config *c, void *acc, int64_t acc_count,
                            const void *other)
{
    if (c->fn == WEIR__FN_REDUCE) {
        if (acc_count == 0)
            memcpy(acc, other, c->in_size);
        else
            c->spec.reduce(acc, other, c->spec.arg);
    } else {
        c->spec.aggregate.merge(acc, other, c->spec.arg);
    }
}

/* ---- firing --------------------------------------------------------------- */

unsigned char *weir__scratch_get(weir_ctx *ctx, weir__scratch *s, size_t size)
{
    if (size <= s->cap)
        return s->p;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < size)
        cap *= 2;
    unsigned char *b = realloc(s->p, cap);
    if (!b) {
        weir_ctx_fail(ctx, WEIR_ENOMEM, "window: out of memory for %zu bytes", size);
        return NULL;
    }
    s->p = b;
    s->cap = cap;
    return b;
}

int weir__window_emit(weir_ctx *ctx, weir__window_op *op, const weir__firing *f)
{
    const weir__window_config *c = op->c;
    if (f->count == 0)
        return 0; /* empty windows emit nothing */
    weir_window_info info = {
        .start = f->start,
        .end = f->end,
        .max_timestamp = f->max,
        .watermark = weir_ctx_watermark(ctx),
        .key = weir_ctx_key(ctx),
        .key_size = c->key_size,
        .count = f->count,
        .firing = f->firing,
        .late = f->late,
        .global = c->global,
    };
    if (f->cleanup && f->firing == 0 && !f->late)
        weir_ctx_report_window_fire_cleanup(ctx, f->start, f->end, f->count);
    else
        weir_ctx_report_window_fire(ctx, f->start, f->end, f->firing, f->count);
    if (c->fn == WEIR__FN_PROCESS)
        return c->spec.process(ctx, &info, f->elems, f->nelems, c->spec.arg);
    if (c->fn == WEIR__FN_REDUCE && !c->spec.reduce_finish)
        return weir_emit(ctx, f->acc, info.max_timestamp);
    /* The finish hook or the aggregate's result writes the output in place. */
    void *out = weir_emit_reserve(ctx);
    if (!out)
        return weir_ctx_error(ctx);
    if (c->fn == WEIR__FN_REDUCE)
        c->spec.reduce_finish(f->acc, &info, out, c->spec.arg);
    else
        c->spec.aggregate.result(f->acc, &info, out, c->spec.arg);
    return weir_emit_commit(ctx, info.max_timestamp);
}

int weir__window_skipped(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts,
                         int64_t missed_start, int64_t missed_end)
{
    const weir__window_config *c = op->c;
    if (!c->event_time || weir__sat_add(ts, c->lateness) > weir_ctx_watermark(ctx)) {
        /* Between two sliding windows (slide > size): in no window, and not
         * late either. Flink drops such an element silently; it is counted
         * as filtered here so that the books still balance. */
        weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
        return 0;
    }
    bool side = c->spec.late_tag > 0;
    /* (a cumulative period's windows all start together: the largest one
     * stands for them) */
    weir_ctx_report_late(ctx, elem, ts, missed_start, missed_end, c->cumulative ? 0 : c->slide,
                         !side);
    return side ? weir_emit_side(ctx, c->spec.late_tag, elem, ts) : 0;
}
