/* keyed_process.c — the keyed process operator (weir/keyed.h): an adapter
 * from the generic operator vtable to a user table of on_record / on_timer on
 * a keyed stream. State and timers are the runtime's (weir/state.h,
 * weir_timer_register), as for any keyed operator; what the adapter adds is
 * the refusal of an input that is not keyed, and the timestamp of what is
 * being handled, for weir_keyed_emit (SEMANTICS.md 6: a record's output
 * carries the record's timestamp, an event-time timer's the timer's, a
 * processing-time timer's none).
 *
 * That timestamp lives in a thread-local, saved and restored around every
 * callback: the callbacks of one subtask run on one worker thread, and a
 * chained keyed operator downstream runs inside weir_emit on the same thread,
 * so the innermost callback's timestamp is the one in force.
 */
#include <stdio.h>
#include <stdlib.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/keyed.h"
#include "weir/operator.h"
#include "weir/stream.h"

static _Thread_local int64_t current_ts = WEIR_NO_TIMESTAMP;

/* The user's table; weir_ctx_arg() stays the user's arg. */
static const weir_keyed_process_vtable *table(weir_ctx *ctx)
{
    return weir_ctx_impl(ctx);
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
    int64_t saved = current_ts;
    current_ts = ts;
    int r = table(ctx)->on_record(ctx, elem, ts);
    current_ts = saved;
    return r;
}

static int kp_timer(weir_ctx *ctx, const weir_timer *t)
{
    const weir_keyed_process_vtable *vt = table(ctx);
    if (!vt->on_timer)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "a timer fired but the keyed process operator "
                             "has no on_timer");
    int64_t saved = current_ts;
    current_ts = t->domain == WEIR_EVENT_TIME ? t->timestamp : WEIR_NO_TIMESTAMP;
    int r = vt->on_timer(ctx, t);
    current_ts = saved;
    return r;
}

static int kp_watermark(weir_ctx *ctx, int64_t wm)
{
    const weir_keyed_process_vtable *vt = table(ctx);
    return vt->on_watermark ? vt->on_watermark(ctx, wm) : weir_emit_watermark(ctx, wm);
}

static int kp_end(weir_ctx *ctx)
{
    const weir_keyed_process_vtable *vt = table(ctx);
    return vt->on_end ? vt->on_end(ctx) : 0;
}

static void kp_close(weir_ctx *ctx)
{
    const weir_keyed_process_vtable *vt = table(ctx);
    if (vt->close)
        vt->close(ctx);
}

static const weir_operator_vtable kp_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = kp_open,
    .on_record = kp_record,
    .on_watermark = kp_watermark,
    .on_timer = kp_timer,
    .on_end = kp_end,
    .close = kp_close,
};

int64_t weir_keyed_timestamp(const weir_ctx *ctx)
{
    (void)ctx;
    return current_ts;
}

int weir_keyed_emit(weir_ctx *ctx, const void *elem)
{
    return weir_emit(ctx, elem, current_ts);
}

int weir_keyed_process_operator(const weir_keyed_process_spec *spec, weir_process_spec *out,
                                char *errbuf, size_t errsize)
{
    const char *why = NULL;
    if (!spec || !out)
        why = "a spec and an output are required";
    else if (!spec->vtable || !spec->vtable->on_record)
        why = "a vtable with on_record is required";
    else if (spec->vtable->version != WEIR_OPERATOR_VTABLE_V1)
        why = "the vtable's version is not WEIR_OPERATOR_VTABLE_V1";
    if (why) {
        if (errbuf && errsize)
            snprintf(errbuf, errsize, "%s", why);
        return WEIR_EINVAL;
    }
    *out = (weir_process_spec){
        .name = spec->name,
        .kind = "keyed_process",
        .vtable = &kp_vtable,
        .arg = spec->arg,
        .impl = (void *)spec->vtable, /* borrowed: it must outlive the job */
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
