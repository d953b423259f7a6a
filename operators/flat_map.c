/* flat_map.c — zero or more output elements per input element: the user
 * function emits them itself with weir_emit(). */

#include "weir/error.h"
#include "weir/operator.h"
#include "weir/stream.h"

#include "builder.h"

typedef struct flat_map_arg {
    weir_flat_map_fn fn;
    void *arg;
} flat_map_arg;

static int flat_map_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const flat_map_arg *f = weir_ctx_arg(ctx);
    return f->fn(ctx, elem, ts, f->arg);
}

static const weir_operator_vtable flat_map_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = flat_map_record,
};

weir_stream *weir_stream_flat_map(weir_stream *s, size_t out_size, weir_flat_map_fn fn, void *arg)
{
    const weir__builder_call call = {.name = "weir_stream_flat_map",
                                     .fn_name = "fn",
                                     .has_fn = fn != NULL,
                                     .checks_out_size = true};
    flat_map_arg f = {.fn = fn, .arg = arg};
    return weir__builder_add(
        s, &call,
        (weir_process_spec){.kind = "flat_map", .vtable = &flat_map_vtable, .out_size = out_size},
        &f, sizeof f);
}
