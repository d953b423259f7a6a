/* window_internal.h — what the files of the window operator share
 * (window/window*.c): the resolved configuration, the per-subtask state and
 * the window arithmetic (window_assign.c). Private to window/; written
 * against the public headers only. The other headers of the folder, each
 * implemented by the files it names, which call nothing of those that
 * include it:
 *
 *   window_function.h  the window function applied, late elements (window_function.c)
 *   window_engines.h   the engines (window_windows.c, window_panes.c, window_sessions.c)
 *
 *   window.c           the operator: validation, the vtable, dispatch to the engines
 *   window_function.c  accumulators, a firing's results, elements no window took
 *   window_assign.c    window arithmetic: starts with offsets, sliding ranges
 *   window_windows.c   state per (key, window): the global window, count triggers
 *   window_panes.c     tumbling, sliding and cumulative windows over a key's panes
 *   window_sessions.c  session windows that merge
 *   window_custom.c    custom triggers and evictors: elements per (key, window)
 */
#ifndef WEIR_WINDOW_WINDOW_INTERNAL_H
#define WEIR_WINDOW_WINDOW_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/operator.h"
#include "weir/operator_builtin.h"
#include "weir/stream.h"
#include "weir/window.h"

/* A window's true start or end, which may lie outside int64 (a window that
 * begins before MIN or ends after MAX). */
__extension__ typedef __int128 weir__wide;

/* Which state layout runs the windows (chosen once from the spec). */
typedef enum weir__window_engine {
    WEIR__ENGINE_WINDOWS = 0, /* one state per (key, window): global, count triggers */
    WEIR__ENGINE_PANES,       /* tumbling, sliding: a key's panes, combined at firing */
    WEIR__ENGINE_SESSIONS,    /* merging windows: a list of sessions per key */
    WEIR__ENGINE_CUSTOM       /* a custom trigger or an evictor: elements per window */
} weir__window_engine;

typedef enum weir__window_fn {
    WEIR__FN_REDUCE = 0,
    WEIR__FN_AGGREGATE,
    WEIR__FN_PROCESS
} weir__window_fn;

/* The resolved, validated configuration: read-only and shared by every
 * subtask (the process spec's impl). */
typedef struct weir__window_config {
    weir_window_spec spec;      /* the user's, with name and defaults resolved */
    char *name;                 /* the spec's name, copied (in the same allocation) */
    weir__window_engine engine;
    weir__window_fn fn;
    weir_trigger_kind trigger;  /* never DEFAULT; END_OF_INPUT is EVENT_TIME on the global window */
    bool purging;
    bool event_time;            /* the assigner's domain */
    bool global;
    bool cumulative;            /* cumulative windows: the panes engine, step in slide */
    int64_t count;              /* count trigger */
    int64_t size, slide, offset, gap, lateness;
    int64_t pane;               /* tumbling and sliding: gcd(size, slide) */
    size_t in_size, key_size, out_size;
    size_t acc_size;            /* reduce: in_size; aggregate: its acc; process: 0 */
    size_t acc_off;             /* where the accumulator starts in a window or pane value */
    size_t entry_size;          /* header + accumulator, rounded up to 8 */
    /* Process functions keep their elements per pane (st_elems, namespace =
     * the pane's start) in a key's pane list of pane_size-byte entries: the
     * panes engine's own list, and the windows engine's for overlapping
     * sliding windows (count triggers), where a purging trigger also needs
     * each element's arrival number (elem_seq: elem_size = 8 + in_size). */
    bool pane_elems;            /* the windows engine keeps elements per pane */
    bool elem_seq;
    size_t pane_size, elem_size;
    weir_time_domain domain;    /* of the window's timers */
    /* The custom engine (window_custom.c): the trigger it runs (the user's,
     * or the built-in one's table when only an evictor was asked for) and
     * the size of its state after a window's header. */
    const weir_trigger_vtable *tv;
    size_t tstate_size;
    weir_side_output_spec side; /* the late side output */
    char settings[400];
} weir__window_config;

/* In a list of n entries of `size` bytes sorted by the int64 at `offset` in
 * each (a key's panes by start, its sessions by end), the first entry whose
 * value is >= q (n if none): a binary search. Inline: on the record path,
 * with the offset a constant. */
static inline size_t weir__window_search(const void *list, size_t n, size_t size, size_t offset,
                                         int64_t q)
{
    /* An empty list may be NULL, and NULL + offset is undefined. */
    if (n == 0)
        return 0;
    const unsigned char *base = (const unsigned char *)list + offset;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t v;
        __builtin_memcpy(&v, base + mid * size, sizeof v);
        if (v < q)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Where the elements at times [lo, hi) go (tumbling and sliding): their
 * pane (its start, clamped at MIN: only the pane holding MIN can begin
 * before it) and the true starts of their windows, first..last (any false:
 * between two sliding windows, in none; then first = last is the window
 * before). The first window's max and the last one's cleanup time are what
 * every element asks. */
typedef struct weir__assignment {
    int64_t lo, hi;
    int64_t pane;
    int64_t first_max, last_cleanup;
    weir__wide first, last;
    bool any;
} weir__assignment;

/* A growable scratch buffer (grows by doubling; never per record). */
typedef struct weir__scratch {
    unsigned char *p;
    size_t cap;
} weir__scratch;

/* One subtask's working memory. */
typedef struct weir__window_op {
    const weir__window_config *c;
    int st_win;                 /* value: a window's or pane's header and accumulator */
    int st_elems;               /* list: elements (process function) */
    int st_meta;                /* value: panes: firings of a window in its lateness */
    int st_panes;               /* list: panes: a key's panes, sorted by start */
    int st_sess;                /* list: a key's sessions */
    int st_before_min;          /* value: windows engine: windows that start before MIN */
    unsigned char *acc;         /* scratch accumulator for combining (acc_size) */
    unsigned char *late_acc;    /* a second one: a purging late firing of one element */
    unsigned char *entry;       /* a pane entry being made (entry_size) */
    /* The last assignment, reused while elements fall into the same pane
     * (tumbling: the same window), which saves its divisions and its
     * 128-bit sums. */
    weir__assignment memo;
    uint64_t seq;               /* elements seen (elem_seq: their arrival numbers) */
    weir__scratch buf;          /* gathered elements / a copy of a key's sessions */
    weir__scratch cat;          /* sessions: element lists being merged; panes: pane starts,
                                 * a pane list being rebuilt */
    weir__scratch tmp;          /* custom: merged trigger states, elements without timestamps */
} weir__window_op;

/* ---- window arithmetic (window_assign.c) ---------------------------------- */

/* Windows near the ends of time. A window of the grid (tumbling, sliding) is
 * named by its true start s = offset + k * step, a weir__wide that may lie
 * below MIN; its true end s + size may lie above MAX. What the window is:
 *   start = max(s, MIN), end = min(s + size, MAX),
 *   max   = s + size - 1, or MAX if s + size > MAX
 * so a window whose end overflows covers up to MAX included and fires at the
 * MAX watermark (window.h). Windows stay on the grid: one that begins before
 * MIN keeps its true end (it is not shifted to [MIN, MIN + size)). Several
 * sliding windows can begin before MIN, so their start does not tell them
 * apart (their ends do). */

static inline int64_t weir__clamp(weir__wide v)
{
    return v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

static inline int64_t weir__win_start(weir__wide s)
{
    return s < INT64_MIN ? INT64_MIN : (int64_t)s;
}

static inline int64_t weir__win_end(const weir__window_config *c, weir__wide s)
{
    weir__wide e = s + c->size;
    return e > INT64_MAX ? INT64_MAX : (int64_t)e;
}

static inline int64_t weir__win_max(const weir__window_config *c, weir__wide s)
{
    weir__wide e = s + c->size;
    return e > INT64_MAX ? INT64_MAX : (int64_t)(e - 1);
}

/* The namespace of window s (its timers, its state): s itself for the
 * windows that begin at or after MIN, s + 2^64 for those that begin before
 * it, which lands in (MAX + 1 - size, MAX]. A real window that starts there
 * ends after MAX: its max is MAX, so its only timer is at MAX (its cleanup
 * time overflows) while the wrapped window's timers are all below MAX —
 * weir__win_of_timer tells the two apart by the timer's time. The windows
 * engine keeps the state of the wrapped ones in a state of their own
 * (st_before_min); the panes engine keeps per-window state (firing counts) only for
 * windows that can fire late, which windows with max MAX cannot. */
static inline int64_t weir__win_ns(weir__wide s)
{
    return (int64_t)(uint64_t)s;
}

static inline weir__wide weir__win_of_timer(const weir__window_config *c, int64_t ns, int64_t when)
{
    if (when != INT64_MAX && (weir__wide)ns > (weir__wide)INT64_MAX + 1 - c->size)
        return (weir__wide)ns - ((weir__wide)1 << 64);
    return ns;
}

/* a + b, saturating at MIN / MAX (b may be negative). */
static inline int64_t weir__sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}
/* ts - floormod(ts - offset, step), step > 0: the true start of the window
 * (tumbling) or pane of ts, which may lie below MIN. */
weir__wide weir__window_start(int64_t ts, int64_t offset, int64_t step);
/* The true starts of the windows that contain `t` for windows of `size`
 * every `slide` from `offset`: *first, *first + slide, ..., *last. false if
 * none (slide > size leaves gaps between windows): then *last is the start
 * of the window before t. */
bool weir__window_range(int64_t t, int64_t size, int64_t slide, int64_t offset, weir__wide *first,
                        weir__wide *last);
/* The smallest window start >= `from` that is `first` plus a multiple of
 * `slide` (from > first); it may lie after MAX. */
weir__wide weir__window_next_at_or_after(weir__wide first, int64_t slide, weir__wide from);
int64_t weir__gcd(int64_t a, int64_t b);

/* When a window is cleaned up: max + lateness in event time (MAX if that
 * overflows: then never), max in processing time (no lateness). */
static inline int64_t weir__window_cleanup(const weir__window_config *c, int64_t max)
{
    return c->event_time ? weir__sat_add(max, c->lateness) : max;
}

/* Tumbling and sliding: where time `t` goes (op->memo, valid until the next
 * assignment). */
const weir__assignment *weir__window_assign_slow(weir__window_op *op, int64_t t);

static inline const weir__assignment *weir__window_assign(weir__window_op *op, int64_t t)
{
    if (t >= op->memo.lo && t < op->memo.hi)
        return &op->memo;
    return weir__window_assign_slow(op, t);
}

#endif
