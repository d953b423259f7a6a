/* coprocess.c — the two-input co-process operator: an adapter from the
 * generic operator vtable (one on_record with an input index) to a user table
 * with on_record1 / on_record2. Everything else — the two valves, the
 * combined watermark of SEMANTICS.md 4, keyed state and timers across both
 * inputs — is the runtime's, as for any two-input operator. */
#include <stdlib.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"

typedef struct coprocess_arg {
    weir_coprocess_vtable vt;
} coprocess_arg;

/* The user keeps weir_ctx_arg() for its own arg; the adapter's table is the
 * spec's impl pointer. */
static const coprocess_arg *table(weir_ctx *ctx)
{
    return weir_ctx_impl(ctx);
}

static int co_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    const coprocess_arg *c = table(ctx);
    return input == 0 ? c->vt.on_record1(ctx, elem, ts) : c->vt.on_record2(ctx, elem, ts);
}

static int co_open(weir_ctx *ctx)
{
    const coprocess_arg *c = table(ctx);
    return c->vt.open ? c->vt.open(ctx) : 0;
}

static int co_watermark(weir_ctx *ctx, int64_t wm)
{
    const coprocess_arg *c = table(ctx);
    return c->vt.on_watermark ? c->vt.on_watermark(ctx, wm) : weir_emit_watermark(ctx, wm);
}

static int co_status(weir_ctx *ctx, bool idle)
{
    const coprocess_arg *c = table(ctx);
    if (c->vt.on_status)
        return c->vt.on_status(ctx, idle);
    return idle ? weir_emit_idle(ctx) : weir_emit_active(ctx);
}

static int co_timer(weir_ctx *ctx, const weir_timer *t)
{
    const coprocess_arg *c = table(ctx);
    if (!c->vt.on_timer)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "a timer fired but the co-process has no on_timer");
    return c->vt.on_timer(ctx, t);
}

static int co_end(weir_ctx *ctx)
{
    const coprocess_arg *c = table(ctx);
    return c->vt.on_end ? c->vt.on_end(ctx) : 0;
}

static void co_close(weir_ctx *ctx)
{
    const coprocess_arg *c = table(ctx);
    if (c->vt.close)
        c->vt.close(ctx);
}

static const weir_operator_vtable co_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = co_open,
    .on_record = co_record,
    .on_watermark = co_watermark,
    .on_status = co_status,
    .on_timer = co_timer,
    .on_end = co_end,
    .close = co_close,
};

weir_stream *weir_stream_coprocess(weir_stream *a, weir_stream *b, const weir_coprocess_spec *spec)
{
    if (!a || !b)
        return NULL;
    weir_job *job = weir_stream_job(a);
    if (!spec || !spec->vtable || !spec->vtable->on_record1 || !spec->vtable->on_record2) {
        weir_job_record_error(job, WEIR_EINVAL,
                              "weir_stream_coprocess: a vtable with on_record1 and on_record2 is "
                              "required");
        return NULL;
    }
    if (spec->vtable->version != WEIR_OPERATOR_VTABLE_V1) {
        weir_job_record_error(job, WEIR_EINVAL, "weir_stream_coprocess: vtable version %u is not %u",
                              spec->vtable->version, WEIR_OPERATOR_VTABLE_V1);
        return NULL;
    }
    coprocess_arg *c = malloc(sizeof *c);
    if (!c) {
        weir_job_record_error(job, WEIR_ENOMEM, "weir_stream_coprocess: out of memory");
        return NULL;
    }
    c->vt = *spec->vtable;
    weir_process_spec ps = {
        .name = spec->name,
        .kind = "coprocess",
        .vtable = &co_vtable,
        .arg = spec->arg,
        .impl = c,
        .impl_free = free,
        .out_size = spec->out_size,
        .side_outputs = spec->side_outputs,
        .nside = spec->nside,
        .parallelism = spec->parallelism,
    };
    return weir_stream_connect(a, b, &ps);
}
