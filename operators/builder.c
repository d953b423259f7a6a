/* builder.c — the shared tail of the simple built-in operators' builders
 * (builder.h). */
#include "builder.h"

#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/job.h"

void *weir__builder_alloc(weir_job *job, size_t size, const char *call)
{
    void *p = calloc(1, size);
    if (!p)
        weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", call);
    return p;
}

/* A job-owned copy of the argument block, or NULL with the job's error set. */
static void *arg_copy(weir_job *job, const void *arg, size_t size, const char *call)
{
    void *copy = weir__builder_alloc(job, size, call);
    if (copy)
        memcpy(copy, arg, size);
    return copy;
}

weir_stream *weir__builder_add_source(weir_job *job, const char *call, weir_source_spec spec,
                                      const void *arg, size_t size)
{
    if (!(spec.arg = arg_copy(job, arg, size, call)))
        return NULL;
    spec.arg_free = free;
    return weir_job_add_source(job, &spec);
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
    if (!(spec.arg = arg_copy(job, arg, size, call->name)))
        return NULL;
    spec.arg_free = free;
    return weir_stream_process(s, &spec);
}
