/* builder.h — what the builders of the simple built-in operators share (map,
 * flat_map, filter, the callback and print sinks): refusing a missing
 * function or a bad output size with a message that names the call, and
 * handing the operator its own copy of its argument block (the array and
 * generator sources' too); and allocating with the job's error set on
 * failure. Private to operators/; written
 * against the public headers only.
 */
#ifndef WEIR_OPERATORS_BUILDER_H
#define WEIR_OPERATORS_BUILDER_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "weir/operator.h"
#include "weir/stream.h"

/* The builder call being made, for its checks and messages. */
typedef struct weir__builder_call {
    const char *name;     /* "weir_stream_map" */
    const char *fn_name;  /* the required function's parameter: "fn" */
    bool has_fn;          /* whether it was given */
    bool checks_out_size; /* the caller chose out_size: 1..WEIR_MAX_ELEM_SIZE */
} weir__builder_call;

/* Adds the operator `spec` describes on s (NULL: returns NULL), after the
 * checks of `call`, with a copy of the `size` bytes at `arg` as its
 * weir_ctx_arg() (owned by the job: spec.arg and spec.arg_free are set
 * here). On failure returns NULL with the job's error set and the message
 * naming the call ("weir_stream_map: fn is required"). */
weir_stream *weir__builder_add(weir_stream *s, const weir__builder_call *call,
                               weir_process_spec spec, const void *arg, size_t size);

/* Adds the source `spec` describes to the job, with a copy of the `size`
 * bytes at `arg` as its weir_ctx_arg() (owned by the job: spec.arg and
 * spec.arg_free are set here). NULL with the job's error set, naming
 * `call`, when the copy cannot be made or the source not added. */
weir_stream *weir__builder_add_source(weir_job *job, const char *call, weir_source_spec spec,
                                      const void *arg, size_t size);

/* A zeroed block of `size` bytes, or NULL with the job's error set to
 * "<call>: out of memory" (WEIR_ENOMEM). */
void *weir__builder_alloc(weir_job *job, size_t size, const char *call);

#endif
