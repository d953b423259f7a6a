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
