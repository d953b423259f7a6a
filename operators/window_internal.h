/* window_internal.h — what the files of the window operator share
 * (operators/window*.c): the resolved configuration, the per-subtask state,
 * window arithmetic, and the common tail of every firing and of every late
 * element. Private to operators/; written against the public headers only.
 *
 *   window.c           the operator: validation, the vtable, firing, late elements
 *   window_assign.c    window arithmetic: starts with offsets, sliding ranges
 *   window_windows.c   state per (key, window): the global window, count triggers
 *   window_panes.c     tumbling and sliding windows over a key's panes
 *   window_sessions.c  session windows that merge
 */
#ifndef WEIR_OPERATORS_WINDOW_INTERNAL_H
#define WEIR_OPERATORS_WINDOW_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/operator.h"
#include "weir/stream.h"
#include "weir/window.h"

/* Which state layout runs the windows (chosen once from the spec). */
typedef enum weir__window_engine {
    WEIR__ENGINE_WINDOWS = 0, /* one state per (key, window): global, count triggers */
    WEIR__ENGINE_PANES,       /* tumbling, sliding: a key's panes, combined at firing */
    WEIR__ENGINE_SESSIONS     /* merging windows: a list of sessions per key */
} weir__window_engine;

typedef enum weir__window_fn {
    WEIR__FN_REDUCE = 0,
    WEIR__FN_AGGREGATE,
    WEIR__FN_PROCESS
} weir__window_fn;

/* The resolved, validated configuration: read-only and shared by every
 * subtask (the process spec's impl). */
typedef struct weir__wconf {
    weir_window_spec spec;      /* the user's, with name and defaults resolved */
    char *name;                 /* the spec's name, copied (in the same allocation) */
    weir__window_engine engine;
    weir__window_fn fn;
    weir_trigger_kind trigger;  /* never DEFAULT; END_OF_INPUT is EVENT_TIME on the global window */
    bool purging;
    bool event_time;            /* the assigner's domain */
    bool global;
    int64_t count;              /* count trigger */
    int64_t size, slide, offset, gap, lateness;
    int64_t pane;               /* tumbling and sliding: gcd(size, slide) */
    size_t in_size, key_size, out_size;
    size_t acc_size;            /* reduce: in_size; aggregate: its acc; process: 0 */
    size_t acc_off;             /* where the accumulator starts in a window or pane value */
    size_t entry_size;          /* header + accumulator, rounded up to 8 */
    weir_time_domain domain;    /* of the window's timers */
    weir_side_output_spec side; /* the late side output */
    char settings[400];
} weir__wconf;

/* A growable scratch buffer (grows by doubling; never per record). */
typedef struct weir__scratch {
    unsigned char *p;
    size_t cap;
} weir__scratch;

/* One subtask's working memory. */
typedef struct weir__wop {
    const weir__wconf *c;
    int st_win;                 /* value: a window's or pane's header and accumulator */
    int st_elems;               /* list: elements (process function) */
    int st_meta;                /* value: panes: firings of a window in its lateness */
    int st_panes;               /* list: panes: a key's panes, sorted by start */
    int st_sess;                /* list: a key's sessions */
    unsigned char *acc;         /* scratch accumulator for combining (acc_size) */
    unsigned char *acc2;        /* a second one (a purging late firing of one element) */
    unsigned char *entry;       /* a pane entry being made (entry_size) */
    /* The last assignment, reused while elements fall into the same pane
     * (tumbling: the same window), which saves its divisions: t in
     * [memo_lo, memo_hi) has pane memo_lo and windows memo_first..memo_last. */
    int64_t memo_lo, memo_hi, memo_first, memo_last;
    bool memo_any;
    weir__scratch buf;          /* gathered elements / a copy of a key's sessions */
    weir__scratch cat;          /* sessions: element lists being merged; panes: pane starts,
                                 * a pane list being rebuilt */
} weir__wop;

/* ---- window arithmetic (window_assign.c) ---------------------------------- */

/* a + b, saturating at MIN / MAX (b may be negative). */
int64_t weir__sat_add(int64_t a, int64_t b);
/* ts - floormod(ts - offset, step), step > 0; clamped at MIN. */
int64_t weir__window_start(int64_t ts, int64_t offset, int64_t step);
/* The window starts that contain `t` for windows of `size` every `slide`
 * from `offset`: *first, *first + slide, ..., *last. false if none (slide >
 * size leaves gaps between windows). */
bool weir__window_range(int64_t t, int64_t size, int64_t slide, int64_t offset, int64_t *first,
                        int64_t *last);
/* The smallest window start >= `from` that is `first` plus a multiple of
 * `slide` (from > first), or INT64_MAX if that overflows. */
int64_t weir__window_next_at_or_after(int64_t first, int64_t slide, int64_t from);
int64_t weir__gcd(int64_t a, int64_t b);

/* Tumbling and sliding: the pane of `t` and the starts of its windows,
 * *first..*last (false: between sliding windows, in none). */
bool weir__window_assign_slow(weir__wop *op, int64_t t, int64_t *pane, int64_t *first,
                              int64_t *last);

static inline bool weir__window_assign(weir__wop *op, int64_t t, int64_t *pane, int64_t *first,
                                       int64_t *last)
{
    if (t >= op->memo_lo && t < op->memo_hi) {
        *pane = op->memo_lo;
        *first = op->memo_first;
        *last = op->memo_last;
        return op->memo_any;
    }
    return weir__window_assign_slow(op, t, pane, first, last);
}

/* How many steps of `step` from `lo` to `hi` (lo <= hi, both aligned), and
 * `base + k * step`, without signed overflow (the difference of two int64
 * may not fit in one). */
static inline uint64_t weir__steps(int64_t lo, int64_t hi, int64_t step)
{
    return ((uint64_t)hi - (uint64_t)lo) / (uint64_t)step;
}

static inline int64_t weir__stepped(int64_t base, uint64_t k, int64_t step)
{
    return (int64_t)((uint64_t)base + k * (uint64_t)step);
}

/* A window [start, start + size): its end and max timestamp, saturating. */
static inline int64_t weir__window_end(int64_t start, int64_t size)
{
    return weir__sat_add(start, size);
}

static inline int64_t weir__window_max(int64_t end)
{
    return end - 1; /* end > MIN always: start >= MIN and size >= 1 */
}

/* When a window is cleaned up: max + lateness in event time (MAX if that
 * overflows: then never), max in processing time (no lateness). */
static inline int64_t weir__window_cleanup(const weir__wconf *c, int64_t max)
{
    return c->event_time ? weir__sat_add(max, c->lateness) : max;
}

/* ---- the common parts (window.c) ------------------------------------------ */

/* Makes `acc` a new accumulator (aggregate's create, or zeroes). */
void weir__window_acc_init(const weir__wconf *c, void *acc);
/* Folds one element into an accumulator that holds `count` elements so far. */
void weir__window_acc_add(const weir__wconf *c, void *acc, int64_t count, const void *elem);
/* Folds accumulator `other` into `acc` (`acc` holds acc_count elements). */
void weir__window_acc_merge(const weir__wconf *c, void *acc, int64_t acc_count,
                            const void *other);

/* What fires: the window and its contents, as an accumulator (reduce,
 * aggregate) or elements (process). */
typedef struct weir__firing {
    int64_t start, end;
    int64_t count;
    int firing;
    bool late;
    const void *acc;
    const void *elems;
    size_t nelems;
} weir__firing;

/* Emits the result(s) of one firing and reports it. A firing with no
 * element emits nothing and is not reported. */
int weir__window_emit(weir_ctx *ctx, weir__wop *op, const weir__firing *f);

/* An element that no window took: late if ts + lateness <= watermark (then
 * side output or dropped, reported with the window it missed); otherwise (it
 * fell between sliding windows) filtered. */
int weir__window_skipped(weir_ctx *ctx, weir__wop *op, const void *elem, int64_t ts,
                         int64_t missed_start, int64_t missed_end);

/* The scratch buffer, grown to at least `size` bytes (its contents kept);
 * NULL (the ctx failed) on out-of-memory. */
unsigned char *weir__scratch_get(weir_ctx *ctx, weir__scratch *s, size_t size);

/* ---- the engines ---------------------------------------------------------- */

int weir__windows_record(weir_ctx *ctx, weir__wop *op, const void *elem, int64_t ts);
int weir__windows_timer(weir_ctx *ctx, weir__wop *op, const weir_timer *t);

int weir__panes_record(weir_ctx *ctx, weir__wop *op, const void *elem, int64_t ts);
int weir__panes_timer(weir_ctx *ctx, weir__wop *op, const weir_timer *t);

int weir__sessions_record(weir_ctx *ctx, weir__wop *op, const void *elem, int64_t ts);
int weir__sessions_timer(weir_ctx *ctx, weir__wop *op, const weir_timer *t);

#endif
