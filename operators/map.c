/* map.c — one output element per input element, through a user function;
 * the output type may differ in size. The timestamp is kept. */
#include <stdlib.h>

#include "weir/error.h"
#include "weir/operator.h"
#include "weir/stream.h"

#include "builder.h"

typedef struct map_arg {
    weir_map_fn fn;
    void *arg;
    size_t out_size;
} map_arg;

static int map_open(weir_ctx *ctx)
{
    const map_arg *m = weir_ctx_arg(ctx);
    unsigned char *out = calloc(1, m->out_size);
    if (!out)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, out);
    return 0;
}

static int map_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const map_arg *m = weir_ctx_arg(ctx);
    unsigned char *out = weir_ctx_state(ctx);
    int r = m->fn(elem, out, m->arg);
    if (r < 0)
        return weir_ctx_fail(ctx, r, "the map function failed: %s (%s)", weir_strerror(r),
                             weir_err_name(r));
    return weir_emit(ctx, out, ts);
}

/* The batch path writes each result straight into the output's slot. */
static int map_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    (void)input;
    const map_arg *m = weir_ctx_arg(ctx);
    for (uint32_t i = 0; i < b->count; i++) {
        void *out = weir_emit_reserve(ctx);
        if (!out)
            return weir_ctx_error(ctx);
        int r = m->fn(weir_batch_elem(b, i), out, m->arg);
        if (r < 0)
            return weir_ctx_fail(ctx, r, "the map function failed: %s (%s)", weir_strerror(r),
                                 weir_err_name(r));
        r = weir_emit_commit(ctx, weir_batch_ts(b, i));
        if (r < 0)
            return r;
    }
    return 0;
}

static void map_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_operator_vtable map_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = map_open,
    .on_record = map_record,
    .close = map_close,
    .on_batch = map_batch,
};

weir_stream *weir_stream_map(weir_stream *s, size_t out_size, weir_map_fn fn, void *arg)
{
    const weir__builder_call call = {
        .name = "weir_stream_map", .fn_name = "fn", .has_fn = fn != NULL, .checks_out_size = true};
    map_arg m = {.fn = fn, .arg = arg, .out_size = out_size};
    return weir__builder_add(s, &call,
                             (weir_process_spec){.kind = "map",
                                                 .vtable = &map_vtable,
                                                 .out_size = out_size,
                                                 .accounting = WEIR_ACCOUNTING_ONE_TO_ONE},
                             &m, sizeof m);
}
