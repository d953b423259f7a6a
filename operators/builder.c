/* builder.c — the shared tail of the simple built-in operators' builders
 * (builder.h). */
#include "builder.h"

#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/time.h"

void *weir__builder_alloc(weir_job *job, size_t size, const char *call)
{
    void *p = calloc(1, size);
    if (!p)
        weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", call);
    return p;
}

weir_stream *weir__builder_add(weir_stream *s, const weir__builder_call *call,
                               weir_process_spec spec, const void *arg, size_t size)
{
    if (!s)
        return NULL;
    weir_job *job = weir_stream_job(s);
    if (!call->has_fn) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: %s is required", call->name, call->fn_name);
        return NULL;
    }
    if (call->checks_out_size && (spec.out_size == 0 || spec.out_size > WEIR_MAX_ELEM_SIZE)) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: out_size %zu is not in 1..%d", call->name,
                              spec.out_size, WEIR_MAX_ELEM_SIZE);
        return NULL;
    }
    void *copy = weir__builder_alloc(job, size, call->name);
    if (!copy)
        return NULL;
    memcpy(copy, arg, size);
    spec.arg = copy;
    spec.arg_free = free;
    return weir_stream_process(s, &spec);
}

int weir__snapshot_record(weir_snapshot_writer *w, uint32_t tag, const void *rec, size_t size)
{
    int r = weir_snapshot_write(w, &tag, sizeof tag);
    return r ? r : weir_snapshot_write(w, rec, size);
}

int weir__restore_records(weir_ctx *ctx, weir_snapshot_reader *r, uint32_t tag, size_t size,
                          int (*each)(weir_ctx *ctx, const void *rec, void *arg), void *arg)
{
    const void *data;
    size_t len;
    int got;
    while ((got = weir_snapshot_next(r, &data, &len)) == 1) {
        uint32_t t;
        if (len != sizeof t + size || (memcpy(&t, data, sizeof t), t != tag))
            return weir_ctx_fail(ctx, WEIR_EFORMAT,
                                 "restore: the checkpoint's state (%zu bytes) is not this "
                                 "operator's (a %zu-byte record tagged %08x)",
                                 len, sizeof t + size, (unsigned)tag);
        int e = each(ctx, (const unsigned char *)data + sizeof t, arg);
        if (e < 0)
            return e;
    }
    return got;
}

/* ---- custom watermark generators' output --------------------------------- */

static void keep_error(weir_watermark_output *out, int r)
{
    if (r < 0 && out->err == 0)
        out->err = r;
}

void weir_watermark_output_emit(weir_watermark_output *out, int64_t watermark)
{
    keep_error(out, out->partition >= 0
                        ? weir_source_partition_watermark(out->ctx, out->partition, watermark)
                        : weir_emit_watermark(out->ctx, watermark));
}

void weir_watermark_output_mark_idle(weir_watermark_output *out)
{
    keep_error(out, out->partition >= 0
                        ? weir_source_partition_status(out->ctx, out->partition, true)
                        : weir_emit_idle(out->ctx));
}

void weir_watermark_output_mark_active(weir_watermark_output *out)
{
    keep_error(out, out->partition >= 0
                        ? weir_source_partition_status(out->ctx, out->partition, false)
                        : weir_emit_active(out->ctx));
}
