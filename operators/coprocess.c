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
#include "builder.h"

/* One co-process operator: the operator table the runtime calls, and the
 * user's. Every callback but on_record has the same signature in both, so
 * the operator table holds the user's own pointers (a NULL one gets the
 * runtime's default, which is what the co-process documents); only the
 * record, split by input, needs an adapter. */
typedef struct coprocess_impl {
    weir_operator_vtable op;
    weir_coprocess_vtable user;
} coprocess_impl;

static int co_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    const coprocess_impl *c = weir_ctx_impl(ctx);
    return input == 0 ? c->user.on_record1(ctx, elem, ts) : c->user.on_record2(ctx, elem, ts);
}

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
    coprocess_impl *c = weir__builder_alloc(job, sizeof *c, "weir_stream_coprocess");
    if (!c)
        return NULL;
    const weir_coprocess_vtable *u = spec->vtable;
    c->user = *u;
    c->op = (weir_operator_vtable){.version = WEIR_OPERATOR_VTABLE_V1,
                                   .open = u->open,
                                   .on_record = co_record,
                                   .on_watermark = u->on_watermark,
                                   .on_status = u->on_status,
                                   .on_timer = u->on_timer,
                                   .on_end = u->on_end,
                                   .close = u->close};
    weir_process_spec ps = {
        .name = spec->name,
        .kind = "coprocess",
        .vtable = &c->op, /* copied by weir_stream_connect */
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
