/* keyed_process.c — the keyed process operator (weir/keyed.h): an adapter
 * from the generic operator vtable to a user table of on_record / on_timer on
 * a keyed stream. State and timers are the runtime's (weir/state.h,
 * weir_timer_register), as for any keyed operator; what the adapter adds is
 * the refusal of an input that is not keyed, and weir_keyed_emit, which
 * emits with the timestamp of what the context is handling
 * (weir_ctx_timestamp; SEMANTICS.md 6: a record's output carries the
 * record's timestamp, an event-time timer's the timer's, a processing-time
 * timer's none).
 */
#include <stdio.h>
#include <stdlib.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/keyed.h"
#include "weir/operator.h"
#include "weir/stream.h"

/* One keyed process operator: the operator table the runtime calls, and the
 * user's (borrowed). on_timer, on_watermark, on_end and close have the same
 * signature in both, so the operator table holds the user's own pointers (a
 * NULL one gets the runtime's default, which is what keyed.h documents);
 * open adds the refusal of an unkeyed input, on_record drops the input
 * index. weir_ctx_arg() stays the user's arg; this is weir_ctx_impl(). */
typedef struct kp_impl {
    weir_operator_vtable op;
    const weir_keyed_process_vtable *user;
} kp_impl;

static const weir_keyed_process_vtable *table(weir_ctx *ctx)
{
    return ((const kp_impl *)weir_ctx_impl(ctx))->user;
}

static int kp_open(weir_ctx *ctx)
{
    if (weir_ctx_key_size(ctx) == 0)
        return weir_ctx_fail(ctx, WEIR_ENOKEY, "the keyed process operator needs a keyed input "
                             "(weir_stream_key_by first)");
    const weir_keyed_process_vtable *vt = table(ctx);
    return vt->open ? vt->open(ctx) : 0;
}

static int kp_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    return table(ctx)->on_record(ctx, elem, ts);
}

int64_t weir_keyed_timestamp(const weir_ctx *ctx)
{
    return weir_ctx_timestamp(ctx);
}

int weir_keyed_emit(weir_ctx *ctx, const void *elem)
{
    return weir_emit(ctx, elem, weir_ctx_timestamp(ctx));
}

static int refuse(char *errbuf, size_t errsize, int err, const char *why)
{
    if (errbuf && errsize)
        snprintf(errbuf, errsize, "%s", why);
    return err;
}

int weir_keyed_process_operator(const weir_keyed_process_spec *spec, weir_process_spec *out,
                                char *errbuf, size_t errsize)
{
    const char *why = NULL;
    if (!spec || !out)
        why = "a spec and an output are required";
    else if (!spec->vtable || !spec->vtable->on_record)
        why = "a vtable with on_record is required";
    if (why)
        return refuse(errbuf, errsize, WEIR_EINVAL, why);
    kp_impl *kp = malloc(sizeof *kp);
    if (!kp)
        return refuse(errbuf, errsize, WEIR_ENOMEM, "out of memory");
    const weir_keyed_process_vtable *u = spec->vtable;
    kp->user = u; /* borrowed: it must outlive the job */
    /* The user's version: weir_stream_process or the harness refuses any
     * other than WEIR_OPERATOR_VTABLE_V1. */
    kp->op = (weir_operator_vtable){.version = u->version,
                                    .open = kp_open,
                                    .on_record = kp_record,
                                    .on_watermark = u->on_watermark,
                                    .on_timer = u->on_timer,
                                    .on_end = u->on_end,
                                    .close = u->close};
    *out = (weir_process_spec){
        .name = spec->name,
        .kind = "keyed_process",
        .vtable = &kp->op, /* copied by weir_stream_process and the harness */
        .arg = spec->arg,
        .impl = kp,
        .impl_free = free,
        .out_size = spec->out_size,
        .side_outputs = spec->side_outputs,
        .nside = spec->nside,
        .parallelism = spec->parallelism,
    };
    return 0;
}

weir_stream *weir_stream_keyed_process(weir_stream *keyed, const weir_keyed_process_spec *spec)
{
    if (!keyed)
        return NULL;
    weir_job *job = weir_stream_job(keyed);
    if (weir_stream_key_size(keyed) == 0) {
        weir_job_record_error(job, WEIR_ENOKEY, "weir_stream_keyed_process: the input stream is "
                              "not keyed (key it with weir_stream_key_by first)");
        return NULL;
    }
    weir_process_spec ps;
    char why[160];
    int r = weir_keyed_process_operator(spec, &ps, why, sizeof why);
    if (r) {
        weir_job_record_error(job, r, "weir_stream_keyed_process: %s", why);
        return NULL;
    }
    return weir_stream_process(keyed, &ps);
}
