/* source_nexmark.c — the Nexmark events as a source (weir/nexmark.h):
 * subtask i of p emits events i, i + p, i + 2p, ... (each computed alone by
 * weir_nexmark_event_at), as fast as they are taken or paced on the job
 * clock, and checkpoints its next event number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nexmark_urls.h"
#include "weir/error.h"
#include "weir/nexmark.h"
#include "weir/operator.h"

typedef struct nexmark_state {
    weir_nexmark_config cfg;
    weir__nexmark_urls *urls; /* the bids' URLs, made once (NULL: each time) */
    int subtask, parallelism;
    int64_t next; /* the next event number this subtask emits */
} nexmark_state;

static int nexmark_open(weir_ctx *ctx)
{
    const weir_nexmark_config *cfg = weir_ctx_arg(ctx);
    nexmark_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    s->cfg = *cfg;
    s->subtask = weir_ctx_subtask(ctx);
    s->parallelism = weir_ctx_parallelism(ctx);
    s->next = s->subtask;
    s->urls = weir__nexmark_urls_create(cfg->seed);
    return 0;
}

static void nexmark_close(weir_ctx *ctx)
{
    nexmark_state *s = weir_ctx_state(ctx);
    if (s)
        weir__nexmark_urls_free(s->urls);
    free(s);
}

static int nexmark_next(weir_ctx *ctx)
{
    nexmark_state *s = weir_ctx_state(ctx);
    const weir_nexmark_config *c = &s->cfg;
    int budget = weir_ctx_batch_hint(ctx);
    int64_t now = c->paced ? weir_ctx_now(ctx) : 0;
    for (; budget > 0; budget--) {
        if (c->events > 0 && s->next >= c->events)
            return WEIR_SOURCE_END;
        if (c->paced) {
            /* event n is due when the job clock has run its event time
             * since event 0 */
            int64_t due = weir_nexmark_time_of(c, s->next) - c->base_time_ms;
            if (due > now) {
                weir_source_wait_until(ctx, due);
                return WEIR_SOURCE_WAIT;
            }
        }
        weir_nexmark_event e;
        weir__nexmark_event_with(c, s->next, &e, s->urls);
        int r = weir_emit(ctx, &e, e.date_time);
        if (r < 0)
            return r;
        s->next += s->parallelism;
    }
    return WEIR_SOURCE_MORE;
}

/* A subtask's position: the next event number it emits, and the
 * parallelism that numbering is for. */
typedef struct nexmark_position {
    int64_t next;
    int32_t parallelism;
    int32_t subtask;
} nexmark_position;

#define NEXMARK_POSITION_TAG 0x6e786d31u /* "nxm1" */

static int nexmark_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    const nexmark_state *s = weir_ctx_state(ctx);
    nexmark_position p = {.next = s->next, .parallelism = s->parallelism,
                          .subtask = s->subtask};
    return weir_snapshot_write_record(w, NEXMARK_POSITION_TAG, &p, sizeof p);
}

static int nexmark_seek(weir_ctx *ctx, const void *rec, void *arg)
{
    (void)arg;
    nexmark_state *s = weir_ctx_state(ctx);
    nexmark_position p;
    memcpy(&p, rec, sizeof p);
    /* (the job restores a source at its own parallelism only: subtask i
     * gets subtask i's position) */
    if (p.parallelism != s->parallelism || p.subtask != s->subtask || p.next < s->subtask || (p.next - s->subtask) % s->parallelism != 0)
        return weir_ctx_fail(ctx, WEIR_EFORMAT, "the nexmark source's checkpointed position "
                             "%lld of subtask %d of %d is not one of subtask %d of %d's events",
                             (long long)p.next, (int)p.subtask, (int)p.parallelism, s->subtask,
                             s->parallelism);
    s->next = p.next;
    return 0;
}

static int nexmark_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    return weir_restore_records(ctx, r, NEXMARK_POSITION_TAG, sizeof(nexmark_position),
                                nexmark_seek, NULL);
}

static const weir_source_vtable nexmark_vtable = {
    .version = WEIR_SOURCE_VTABLE_V2,
    .open = nexmark_open,
    .next = nexmark_next,
    .close = nexmark_close,
    .snapshot = nexmark_snapshot,
    .restore = nexmark_restore,
};

weir_stream *weir_source_nexmark(weir_job *job, const weir_nexmark_config *cfg)
{
    if (!job)
        return NULL;
    char why[200];
    if (weir_nexmark_check(cfg, why, sizeof why)) {
        weir_job_record_error(job, WEIR_EINVAL, "weir_source_nexmark: %s", why);
        return NULL;
    }
    weir_nexmark_config *copy = malloc(sizeof *copy);
    if (!copy) {
        weir_job_record_error(job, WEIR_ENOMEM, "weir_source_nexmark: out of memory");
        return NULL;
    }
    *copy = *cfg;
    copy->name = NULL;
    weir_source_spec spec = {
        .name = cfg->name ? cfg->name : "nexmark",
        .kind = "nexmark",
        .vtable = &nexmark_vtable,
        .arg = copy,
        .arg_free = free,
        .elem_size = sizeof(weir_nexmark_event),
        .parallelism = cfg->parallelism,
    };
    return weir_job_add_source(job, &spec);
}
