/* map.c — one output element per input element, through a user function;
 * the output type may differ in size. The timestamp is kept. */
#include <stdlib.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"

typedef struct map_arg {
    weir_map_fn fn;
    void *arg;
    size_t out_size;
} map_arg;

typedef struct map_state {
    unsigned char *out;
} map_state;

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
    if (!s)
        return NULL;
    if (!fn) {
        weir_job_record_error(weir_stream_job(s), WEIR_EINVAL, "weir_stream_map: fn is required");
        return NULL;
    }
    if (out_size == 0 || out_size > WEIR_MAX_ELEM_SIZE) {
        weir_job_record_error(weir_stream_job(s), WEIR_EINVAL,
                              "weir_stream_map: out_size %zu is not in 1..%d", out_size,
                              WEIR_MAX_ELEM_SIZE);
        return NULL;
    }
    map_arg *m = malloc(sizeof *m);
    if (!m) {
        weir_job_record_error(weir_stream_job(s), WEIR_ENOMEM, "weir_stream_map: out of memory");
        return NULL;
    }
    *m = (map_arg){.fn = fn, .arg = arg, .out_size = out_size};
    weir_process_spec spec = {
        .kind = "map",
        .vtable = &map_vtable,
        .arg = m,
        .arg_free = free,
        .out_size = out_size,
        .accounting = WEIR_ACCOUNTING_ONE_TO_ONE,
    };
    return weir_stream_process(s, &spec);
}
