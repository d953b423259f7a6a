/* filter.c — keeps the elements a user predicate accepts; counts the rest as
 * filtered for the diagnostic summary. */

#include "weir/error.h"
#include "weir/operator.h"
#include "weir/stream.h"

#include "builder.h"

typedef struct filter_arg {
    weir_filter_fn fn;
    void *arg;
} filter_arg;

static int filter_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const filter_arg *f = weir_ctx_arg(ctx);
    int keep = f->fn(elem, f->arg);
    if (keep < 0)
        return weir_ctx_fail(ctx, keep, "the filter function failed: %s (%s)",
                             weir_strerror(keep), weir_err_name(keep));
    if (keep)
        return weir_emit(ctx, elem, ts);
    weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
    return 0;
}

static int filter_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    (void)input;
    const filter_arg *f = weir_ctx_arg(ctx);
    int64_t dropped = 0;
    for (uint32_t i = 0; i < b->count; i++) {
        const void *elem = weir_batch_elem(b, i);
        int keep = f->fn(elem, f->arg);
        if (keep < 0)
            return weir_ctx_fail(ctx, keep, "the filter function failed: %s (%s)",
                                 weir_strerror(keep), weir_err_name(keep));
        if (keep) {
            int r = weir_emit(ctx, elem, weir_batch_ts(b, i));
            if (r < 0)
                return r;
        } else {
            dropped++;
        }
    }
    weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, dropped);
    return 0;
}

static const weir_operator_vtable filter_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = filter_record,
    .on_batch = filter_batch,
};

weir_stream *weir_stream_filter(weir_stream *s, weir_filter_fn fn, void *arg)
{
    const weir__builder_call call = {.name = "weir_stream_filter", .fn_name = "fn",
                                     .has_fn = fn != NULL};
    filter_arg f = {.fn = fn, .arg = arg};
    return weir__builder_add(s, &call,
                             (weir_process_spec){.kind = "filter",
                                                 .vtable = &filter_vtable,
                                                 .out_size = weir_stream_elem_size(s),
                                                 .accounting = WEIR_ACCOUNTING_ONE_TO_ONE},
                             &f, sizeof f);
}
