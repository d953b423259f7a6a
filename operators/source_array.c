/* source_array.c — a source over a borrowed array of elements (and optional
 * timestamps). Subtask i of p reads the i-th of p contiguous slices, up to a
 * batch hint of records per call. Written against weir/operator.h only. */
#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"
#include "builder.h"

typedef struct array_arg {
    const unsigned char *elems;
    const int64_t *timestamps;
    size_t count;
    size_t elem_size;
} array_arg;

typedef struct array_state {
    size_t pos, end;
} array_state;

static int array_open(weir_ctx *ctx)
{
    const array_arg *a = weir_ctx_arg(ctx);
    array_state *s = malloc(sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    size_t p = (size_t)weir_ctx_parallelism(ctx), i = (size_t)weir_ctx_subtask(ctx);
    s->pos = a->count * i / p;
    s->end = a->count * (i + 1) / p;
    weir_ctx_set_state(ctx, s);
    return 0;
}

static int array_next(weir_ctx *ctx)
{
    const array_arg *a = weir_ctx_arg(ctx);
    array_state *s = weir_ctx_state(ctx);
    size_t stop = s->pos + (size_t)weir_ctx_batch_hint(ctx);
    if (stop > s->end)
        stop = s->end;
    for (; s->pos < stop; s->pos++) {
        int64_t ts = a->timestamps ? a->timestamps[s->pos] : WEIR_NO_TIMESTAMP;
        int r = weir_emit(ctx, a->elems + s->pos * a->elem_size, ts);
        if (r < 0)
            return r;
    }
    return s->pos < s->end ? WEIR_SOURCE_MORE : WEIR_SOURCE_END;
}

static void array_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

/* The position: the next element of the subtask's slice. */
#define ARRAY_POSITION_TAG 0x61727231u /* "arr1" */

static int array_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    const array_state *s = weir_ctx_state(ctx);
    return weir_snapshot_write_record(w, ARRAY_POSITION_TAG, s, sizeof *s);
}

static int array_seek(weir_ctx *ctx, const void *rec, void *arg)
{
    (void)arg;
    array_state *s = weir_ctx_state(ctx), p;
    memcpy(&p, rec, sizeof p);
    if (p.pos > p.end || p.end != s->end)
        return weir_ctx_fail(ctx, WEIR_EINVAL,
                             "restore: the checkpoint's position %zu of %zu is not in this "
                             "subtask's slice (it ends at %zu): is the array the same?",
                             p.pos, p.end, s->end);
    s->pos = p.pos;
    return 0;
}

static int array_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    return weir_restore_records(ctx, r, ARRAY_POSITION_TAG, sizeof(array_state), array_seek,
                                 NULL);
}

static const weir_source_vtable array_vtable = {
    .version = WEIR_SOURCE_VTABLE_V2,
    .open = array_open,
    .next = array_next,
    .close = array_close,
    .snapshot = array_snapshot,
    .restore = array_restore,
};

weir_stream *weir_source_array(weir_job *job, const void *elems, size_t count, size_t elem_size,
                               const int64_t *timestamps)
{
    if (!job)
        return NULL;
    if (!elems && count > 0) {
        weir_job_record_error(job, WEIR_EINVAL,
                              "weir_source_array: elems is NULL but count is %zu", count);
        return NULL;
    }
    array_arg a = {.elems = elems, .timestamps = timestamps, .count = count, .elem_size = elem_size};
    weir_source_spec spec = {.kind = "array_source", .vtable = &array_vtable, .elem_size = elem_size};
    return weir__builder_add_source(job, "weir_source_array", spec, &a, sizeof a);
}
