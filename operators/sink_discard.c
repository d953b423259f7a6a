/* sink_discard.c — takes every record and drops it (benchmarks). */
#include "weir/operator.h"
#include "weir/stream.h"

static int discard_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)ctx;
    (void)input;
    (void)elem;
    (void)ts;
    return 0;
}

static int discard_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    (void)ctx;
    (void)input;
    (void)b;
    return 0;
}

static const weir_operator_vtable discard_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = discard_record,
    .on_batch = discard_batch,
};

weir_stream *weir_sink_discard(weir_stream *s)
{
    weir_process_spec spec = {
        .kind = "sink",
        .vtable = &discard_vtable,
        .accounting = WEIR_ACCOUNTING_SINK,
    };
    return weir_stream_process(s, &spec);
}
