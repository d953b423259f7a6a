/* pausing_source.h — a source for savepoint tests: values 0..count-1, each
 * its own timestamp, that waits at `pause_at` while *pause is set (the
 * test takes its savepoint then, with the later values not yet emitted);
 * its position is its snapshot, so a restored run goes on from it.
 * Header-only, for the tests. */
#ifndef WEIR_TESTS_PAUSING_SOURCE_H
#define WEIR_TESTS_PAUSING_SOURCE_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "weir.h"

typedef struct tu_pausing_arg {
    int64_t count;    /* values 0..count-1 */
    int64_t pause_at; /* where it waits while *pause */
    _Atomic int *pause;
} tu_pausing_arg;

#define TU_PAUSING_TAG 0x53524331u

static inline int tu_pausing_open(weir_ctx *ctx)
{
    int64_t *pos = calloc(1, sizeof *pos);
    if (!pos)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, pos);
    return 0;
}

static inline void tu_pausing_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static inline int tu_pausing_next(weir_ctx *ctx)
{
    const tu_pausing_arg *a = weir_ctx_arg(ctx);
    int64_t *pos = weir_ctx_state(ctx);
    if (*pos >= a->count)
        return WEIR_SOURCE_END;
    if (*pos >= a->pause_at && atomic_load(a->pause)) {
        weir_source_wait_until(ctx, weir_ctx_now(ctx) + 5);
        return WEIR_SOURCE_WAIT;
    }
    int r = weir_emit(ctx, pos, *pos);
    ++*pos;
    return r < 0 ? r : WEIR_SOURCE_MORE;
}

static inline int tu_pausing_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    return weir_snapshot_write_record(w, TU_PAUSING_TAG, weir_ctx_state(ctx), 8);
}

static inline int tu_pausing_seek(weir_ctx *ctx, const void *rec, void *arg)
{
    (void)arg;
    memcpy(weir_ctx_state(ctx), rec, 8);
    return 0;
}

static inline int tu_pausing_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    return weir_restore_records(ctx, r, TU_PAUSING_TAG, 8, tu_pausing_seek, NULL);
}

static const weir_source_vtable tu_pausing_source_vt __attribute__((unused)) = {
    .version = WEIR_SOURCE_VTABLE_V2,
    .open = tu_pausing_open,
    .next = tu_pausing_next,
    .close = tu_pausing_close,
    .snapshot = tu_pausing_snapshot,
    .restore = tu_pausing_restore};

#endif
