/* sink_callback.c — hands every record to a user function, on the sink
 * subtask's worker thread. */

#include "weir/error.h"
#include "weir/operator.h"
#include "weir/stream.h"

#include "builder.h"

typedef struct callback_arg {
    weir_sink_fn fn;
    void *arg;
} callback_arg;

static int sink_failed(weir_ctx *ctx, int r)
{
    return weir_ctx_fail(ctx, r, "the sink function failed: %s (%s)", weir_strerror(r),
                         weir_err_name(r));
}

static int callback_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const callback_arg *c = weir_ctx_arg(ctx);
    int r = c->fn(elem, ts, weir_ctx_subtask(ctx), c->arg);
    return r < 0 ? sink_failed(ctx, r) : 0;
}

static int callback_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    (void)input;
    const callback_arg *c = weir_ctx_arg(ctx);
    int subtask = weir_ctx_subtask(ctx);
    for (uint32_t i = 0; i < b->count; i++) {
        int r = c->fn(weir_batch_elem(b, i), weir_batch_ts(b, i), subtask, c->arg);
        if (r < 0)
            return sink_failed(ctx, r);
    }
    return 0;
}

static const weir_operator_vtable callback_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = callback_record,
    .on_batch = callback_batch,
};

weir_stream *weir_sink_callback(weir_stream *s, weir_sink_fn fn, void *arg)
{
    const weir__builder_call call = {.name = "weir_sink_callback", .fn_name = "fn",
                                     .has_fn = fn != NULL};
    callback_arg c = {.fn = fn, .arg = arg};
    return weir__builder_add(s, &call,
                             (weir_process_spec){.kind = "sink",
                                                 .vtable = &callback_vtable,
                                                 .accounting = WEIR_ACCOUNTING_SINK},
                             &c, sizeof c);
}
