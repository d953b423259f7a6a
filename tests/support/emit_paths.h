/* emit_paths.h — the source and the pass-through that the emit-path tests
 * (test_emit_channel.c, test_emit_spread.c) drive every boundary of an
 * output's batches with: values 0..count-1 (the value its own timestamp),
 * in calls of 7 records, a watermark after every 5th, through weir_emit or
 * weir_emit_reserve/commit; and an operator that passes whole batches on
 * (weir_emit_batch). Header-only, for the tests. */
#ifndef WEIR_TESTS_EMIT_PATHS_H
#define WEIR_TESTS_EMIT_PATHS_H

#include <stdint.h>
#include <string.h>

#include "weir.h"
#include "weir_testutil.h"

typedef enum emit_way { WAY_EMIT, WAY_RESERVE } emit_way;

typedef struct source_arg {
    emit_way way;
    uint64_t count; /* values 0..count-1 */
    uint64_t next;
} source_arg;

static inline int emit_paths_source_next(weir_ctx *ctx)
{
    source_arg *a = weir_ctx_arg(ctx);
    for (int i = 0; i < 7 && a->next < a->count; i++, a->next++) {
        int64_t ts = (int64_t)a->next;
        int r;
        if (a->way == WAY_EMIT) {
            r = weir_emit(ctx, &a->next, ts);
        } else {
            void *slot = weir_emit_reserve(ctx);
            if (!slot)
                return weir_ctx_error(ctx);
            memcpy(slot, &a->next, sizeof a->next);
            r = weir_emit_commit(ctx, ts);
        }
        if (r < 0)
            return r;
        if (a->next % 5 == 4 && (r = weir_emit_watermark(ctx, ts)) < 0)
            return r;
    }
    return a->next < a->count ? WEIR_SOURCE_MORE : WEIR_SOURCE_END;
}

static const weir_source_vtable source_vt __attribute__((unused)) = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .next = emit_paths_source_next,
};

static inline int emit_paths_pass_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    return weir_emit_batch(ctx, input, b);
}

static const weir_operator_vtable pass_batch_vt __attribute__((unused)) = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = tu_pass_record,
    .on_batch = emit_paths_pass_batch,
};

#endif
