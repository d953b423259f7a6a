/* window_engines.h — the three engines that keep a window operator's state
 * (window_windows.c, window_panes.c, window_sessions.c), as window.c
 * dispatches to them; they call window_function.h, never window.c. */
#ifndef WEIR_WINDOW_WINDOW_ENGINES_H
#define WEIR_WINDOW_WINDOW_ENGINES_H

#include <stddef.h>
#include <stdint.h>

#include "weir/operator.h"
#include "window_internal.h"

/* The header before the accumulator in each engine's entries (a window's
 * value, a pane, a session), from the engine's own struct. */
extern const size_t weir__windows_header_size; /* window_windows.c */
extern const size_t weir__panes_header_size;   /* window_panes.c */
extern const size_t weir__sessions_header_size; /* window_sessions.c */

int weir__windows_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts);
int weir__windows_timer(weir_ctx *ctx, weir__window_op *op, const weir_timer *t);

int weir__panes_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts);
int weir__panes_timer(weir_ctx *ctx, weir__window_op *op, const weir_timer *t);

/* The pane list and per-pane elements (window_panes.c), which the windows
 * engine shares for a process function on overlapping sliding windows. */
/* Puts `elem` into pane q of the key's pane list (made if new) and appends
 * it to the pane's elements. */
int weir__panes_put(weir_ctx *ctx, weir__window_op *op, int64_t q, const void *elem);
/* Gathers into op->buf the elements of the panes whose start lies in [lo,
 * hi] and whose arrival number is above `after` (elem_seq; else all): their
 * number in *n. */
int weir__panes_gather(weir_ctx *ctx, weir__window_op *op, int64_t lo, int64_t hi, uint64_t after,
                       size_t *n);
/* Frees the panes whose start lies in [lo, stop), with their elements. */
int weir__panes_free(weir_ctx *ctx, weir__window_op *op, int64_t lo, weir__wide stop);

/* Cumulative windows on the panes engine (window_panes.c). */
int weir__cumulate_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts);
int weir__cumulate_timer(weir_ctx *ctx, weir__window_op *op, const weir_timer *t);

int weir__sessions_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts);
int weir__sessions_timer(weir_ctx *ctx, weir__window_op *op, const weir_timer *t);

/* Custom triggers and evictors (window_custom.c). */
extern const size_t weir__custom_header_size;
#define WEIR__CUSTOM_SESSION_SIZE 32 /* a key's session: start, end, namespace, max */
int weir__custom_record(weir_ctx *ctx, weir__window_op *op, const void *elem, int64_t ts);
int weir__custom_timer(weir_ctx *ctx, weir__window_op *op, const weir_timer *t);
/* The built-in triggers as tables, for an evictor under one of them. */
const weir_trigger_vtable *weir__builtin_trigger(weir_trigger_kind kind);

#endif
