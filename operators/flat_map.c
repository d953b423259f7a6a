/* flat_map.c — zero or more output elements per input element: the user
 * function emits them itself with weir_emit(). */
#include <stdlib.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"

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
    if (!s)
        return NULL;
    if (!fn) {
        weir_job_record_error(weir_stream_job(s), WEIR_EINVAL, "weir_stream_flat_map: fn is required");
        return NULL;
    }
    if (out_size == 0 || out_size > WEIR_MAX_ELEM_SIZE) {
        weir_job_record_error(weir_stream_job(s), WEIR_EINVAL,
                              "weir_stream_flat_map: out_size %zu is not in 1..%d", out_size,
                              WEIR_MAX_ELEM_SIZE);
        return NULL;
    }
    flat_map_arg *f = malloc(sizeof *f);
    if (!f) {
        weir_job_record_error(weir_stream_job(s), WEIR_ENOMEM, "weir_stream_flat_map: out of memory");
        return NULL;
    }
    *f = (flat_map_arg){.fn = fn, .arg = arg};
    weir_process_spec spec = {
        .kind = "flat_map",
        .vtable = &flat_map_vtable,
        .arg = f,
        .arg_free = free,
        .out_size = out_size,
    };
    return weir_stream_process(s, &spec);
}
