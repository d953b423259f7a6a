/* window_function.h — what every engine shares (window_function.c): the
 * window function applied to accumulators and at a firing, an element that
 * no window took, scratch buffers. */
#ifndef WEIR_WINDOW_WINDOW_FUNCTION_H
#define WEIR_WINDOW_WINDOW_FUNCTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/operator.h"
#include "window_internal.h"

/* Makes `acc` a new accumulator (aggregate's create, or zeroes). */
void weir__window_acc_init(const weir__window_config *c, void *acc);
/* Folds one element into an accumulator that holds `count` elements so far. */
void weir__window_acc_add(const weir__window_config *c, void *acc, int64_t count, const void *elem);
/* Folds accumulator `other` into `acc` (`acc` holds acc_count elements). */
void weir__window_acc_merge(const weir__window_config *c, void *acc, int64_t acc_count,
                            const void *other);

/* What fires: the window and its contents, as an accumulator (reduce,
 * aggregate) or elements (process). */
typedef struct weir__firing {
    int64_t start, end;
    int64_t max;            /* every result's timestamp */
    int64_t count;
    int firing;
    bool late;
    /* the on-time firing of a window the engine cleans up right after, in
     * the same call: its event carries the cleanup (the engine's cleanup
     * report that follows writes nothing) */
    bool cleanup;
    const void *acc;
    const void *elems;
    size_t nelems;
} weir__firing;

/* Emits the result(s) of one firing and reports it. A firing with no
 * element emits nothing and is not reported. */
int weir__window_emit(weir_ctx *ctx, weir__window_op *op, const weir__firing *f);

/* An element that no window took: late if ts + lateness <= watermark (then
 * side output or dropped, reported with the window it missed); otherwise (it
 * fell between sliding windows) filtered. */
int weir__window_skipped(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts,
                         int64_t missed_start, int64_t missed_end);

/* The scratch buffer, grown to at least `size` bytes (its contents kept);
 * NULL (the ctx failed) on out-of-memory. */
unsigned char *weir__scratch_get(weir_ctx *ctx, weir__scratch *s, size_t size);

#endif
