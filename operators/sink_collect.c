/* sink_collect.c — collects every record in memory for tests and small
 * programs. Each subtask appends to its own buffer (no sharing while the job
 * runs); the result reads subtask 0's records first, then subtask 1's, ... The
 * collect object belongs to the job: weir_job_destroy frees it. */
#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"
#include "builder.h"

typedef struct collect_part {
    unsigned char *data; /* records: [ts 8][elem elem_size] */
    size_t n, cap;
} collect_part;

struct weir_collect {
    size_t elem_size;
    size_t stride;
    collect_part parts[WEIR_MAX_PARALLELISM];
    int nparts;
    /* after the run: index -> (part, position), built on first read */
    size_t total;
    size_t *offsets; /* prefix sums of part sizes */
    int merged_parts;
};

static int collect_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    weir_collect *c = weir_ctx_arg(ctx);
    collect_part *p = &c->parts[weir_ctx_subtask(ctx)];
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        unsigned char *d = realloc(p->data, cap * c->stride);
        if (!d)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "collect sink: out of memory");
        p->data = d;
        p->cap = cap;
    }
    unsigned char *slot = p->data + p->n * c->stride;
    memcpy(slot, &ts, 8);
    memcpy(slot + 8, elem, c->elem_size);
    p->n++;
    return 0;
}

static int collect_open(weir_ctx *ctx)
{
    weir_collect *c = weir_ctx_arg(ctx);
    /* Each subtask writes only its own slot; the count is read after the run. */
    if (weir_ctx_subtask(ctx) == 0)
        c->nparts = weir_ctx_parallelism(ctx);
    return 0;
}

static const weir_operator_vtable collect_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = collect_open,
    .on_record = collect_record,
};

static void collect_free(void *p)
{
    weir_collect *c = p;
    for (int i = 0; i < WEIR_MAX_PARALLELISM; i++)
        free(c->parts[i].data);
    free(c->offsets);
    free(c);
}

weir_stream *weir_sink_collect(weir_stream *s, weir_collect **out)
{
    if (out)
        *out = NULL;
    if (!s)
        return NULL;
    weir_job *job = weir_stream_job(s);
    if (!out) {
        weir_job_record_error(job, WEIR_EINVAL, "weir_sink_collect: out is required");
        return NULL;
    }
    weir_collect *c = weir__builder_alloc(job, sizeof *c, "weir_sink_collect");
    if (!c)
        return NULL;
    c->elem_size = weir_stream_elem_size(s);
    c->stride = 8 + c->elem_size;
    weir_process_spec spec = {
        .kind = "sink",
        .vtable = &collect_vtable,
        .arg = c,
        .arg_free = collect_free,
        .accounting = WEIR_ACCOUNTING_SINK,
    };
    weir_stream *sink = weir_stream_process(s, &spec);
    if (sink)
        *out = c;
    return sink;
}

static void merge(weir_collect *c)
{
    if (c->offsets && c->merged_parts == c->nparts)
        return;
    free(c->offsets);
    c->offsets = calloc((size_t)c->nparts + 1, sizeof *c->offsets);
    c->total = 0;
    if (!c->offsets)
        return;
    for (int i = 0; i < c->nparts; i++) {
        c->offsets[i] = c->total;
        c->total += c->parts[i].n;
    }
    c->offsets[c->nparts] = c->total;
    c->merged_parts = c->nparts;
}

static const unsigned char *slot_at(const weir_collect *cc, size_t i)
{
    weir_collect *c = (weir_collect *)cc;
    merge(c);
    if (!c->offsets || i >= c->total)
        return NULL;
    int lo = 0, hi = c->nparts - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (c->offsets[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return c->parts[lo].data + (i - c->offsets[lo]) * c->stride;
}

size_t weir_collect_count(const weir_collect *c)
{
    if (!c)
        return 0;
    merge((weir_collect *)c);
    return c->total;
}

const void *weir_collect_elem(const weir_collect *c, size_t i)
{
    const unsigned char *s = c ? slot_at(c, i) : NULL;
    return s ? s + 8 : NULL;
}

int64_t weir_collect_timestamp(const weir_collect *c, size_t i)
{
    const unsigned char *s = c ? slot_at(c, i) : NULL;
    int64_t ts = WEIR_NO_TIMESTAMP;
    if (s)
        memcpy(&ts, s, 8);
    return ts;
}

size_t weir_collect_elem_size(const weir_collect *c)
{
    return c ? c->elem_size : 0;
}
