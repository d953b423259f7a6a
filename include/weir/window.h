/* weir/window.h — event-time and processing-time windows on keyed streams.
 *
 * A window operator groups the elements of each key into windows (the
 * assigner), decides when a window's contents become a result (the trigger),
 * and turns the contents into results (the function): reduce, aggregate or
 * process. The rules are Flink's and are written down in SEMANTICS.md 6-7:
 * a window is [start, end) and its max timestamp is end - 1; every result
 * carries that timestamp (the global window's is WEIR_TS_MAX); empty windows
 * emit nothing; a window is late when max + allowed lateness <= watermark,
 * and an element no window took is late when ts + lateness <= watermark; it
 * then goes to the late side output (if the spec names one) or is dropped
 * and counted.
 *
 * The ends of time (SEMANTICS.md does not say; Flink computes with
 * wrap-around): windows never wrap, and stay on their grid (starts offset +
 * k * step). The window that holds MIN begins before MIN (for sliding
 * windows, several may): it reports start = WEIR_TS_MIN and keeps its true
 * end. A window whose end would pass MAX, and a session opened within the
 * gap of MAX, ends at WEIR_TS_MAX and covers MAX itself: its max timestamp
 * is WEIR_TS_MAX (not end - 1), so an element at MAX is on time until the
 * watermark is MAX, the window fires at the end of input, and its results
 * carry WEIR_TS_MAX. Such a window may have start == end == WEIR_TS_MAX (it
 * holds MAX alone), and one that ends at exactly MAX has max MAX - 1. A
 * cleanup time (max + allowed lateness) that would pass MAX is MAX: the
 * window is then never cleaned up.
 *
 *     weir_window_spec w = {
 *         .assigner = weir_window_tumbling(1000, 0),
 *         .allowed_lateness_ms = 500,
 *         .late_tag = WEIR_WINDOW_LATE_TAG,
 *         .aggregate = {.acc_size = 8, .add = count_add, .result = count_result},
 *         .out_size = sizeof(result),
 *     };
 *     weir_stream *results = weir_stream_window(weir_stream_key_by(s, &key), &w);
 *     weir_stream *late = weir_stream_side_output(results, WEIR_WINDOW_LATE_TAG);
 *
 * Cost: reduce and aggregate keep one partial accumulator per (key, pane),
 * pane = gcd(size, slide) (a tumbling window is one pane), combined when a
 * window fires, so a window sliding by a small step costs about what a
 * tumbling one does; per element that is one state lookup, and a key's new
 * pane adds at most one timer. The key's pane list is allocated (one small
 * allocation) when the key has no open pane and freed with its last pane, so
 * that a key not seen again leaves nothing behind: an element that finds
 * none of its key's panes open costs that allocation. Process keeps the
 * elements themselves, once per pane, with any trigger. Count triggers count
 * per window, so with them (and for the global window) each window has state
 * of its own: an accumulator per window for reduce and aggregate (an element
 * of sliding windows is folded into each of its windows, as in Flink), a
 * 24-byte header for process (and under a purging count trigger on sliding
 * windows, 8 more bytes per element: its arrival number).
 * A custom trigger or an evictor keeps each window's elements (with their
 * timestamps) in a list of its own, and the trigger's state beside it, as
 * Flink's WindowOperator does for them; the function runs over the
 * elements when the window fires. The built-in triggers without an evictor
 * keep the paths above.
 *
 * Threads: the functions run on the window subtask's worker thread; different
 * subtasks (different keys) call them concurrently, so `arg` must be
 * read-only or synchronised by the user. They must not keep the pointers they
 * are given past the call.
 */
#ifndef WEIR_WINDOW_H
#define WEIR_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/operator.h"
#include "weir/stream.h"
#include "weir/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A good side-output tag for late elements (any tag >= 1 works). */
#define WEIR_WINDOW_LATE_TAG 1

/* ---- assigners ------------------------------------------------------------ */

/* Processing-time windows use the job clock (weir_ctx_now) for assignment
 * and firing; one still open when the input ends does not fire (as in
 * Flink: the end of input moves event time to MAX, not the clock). */
typedef enum weir_window_kind {
    WEIR_WINDOW_TUMBLING = 0,            /* event time: size, offset */
    WEIR_WINDOW_SLIDING,                 /* event time: size, slide, offset */
    WEIR_WINDOW_SESSION,                 /* event time: gap */
    WEIR_WINDOW_GLOBAL,                  /* one window per key, [MIN, MAX), max MAX */
    WEIR_WINDOW_PROCESSING_TUMBLING,     /* the job clock (weir_ctx_now): size, offset */
    WEIR_WINDOW_PROCESSING_SLIDING,      /* the job clock: size, slide, offset */
    WEIR_WINDOW_CUMULATIVE,              /* event time: size, step (slide_ms), offset */
    WEIR_WINDOW_PROCESSING_SESSION,      /* the job clock: gap */
    WEIR_WINDOW_PROCESSING_CUMULATIVE    /* the job clock: size, step (slide_ms), offset */
} weir_window_kind;

/* Window starts are `ts - floormod(ts - offset, step)` (step = size for
 * tumbling, slide for sliding), right for negative timestamps too (a start
 * before MIN is reported as MIN, above). Settings a
 * kind does not use must be 0. Valid: size > 0; tumbling |offset| < size;
 * sliding slide > 0, |offset| < slide and at most
 * WEIR_WINDOW_MAX_PER_ELEMENT windows per element (ceil(size / slide));
 * session gap > 0. */
/* Cumulative windows (Flink SQL's CUMULATE(step, size)): time is cut into
 * periods [s, s + size), s = offset + k * size (|offset| < size), and each
 * period has the windows [s, s + step), [s, s + 2 step), ..., [s, s + size):
 * an element at t is in every window of its period that ends after t, and
 * each window fires when the watermark reaches its end - 1 (with what the
 * period holds so far). size must be a multiple of step (step = slide_ms)
 * and size / step at most WEIR_WINDOW_MAX_PER_ELEMENT. They take the
 * event-time trigger only (not purging, no count trigger); lateness as any
 * event-time window. A late element that misses every window is reported
 * with its period's largest window. Near MAX the windows that would end
 * after it are one window, ending at MAX (it fires at the end of input). */
/* The most windows a sliding assigner may put one element in: every element
 * is added to, and at a watermark fires, that many windows, so a setting
 * like size 1e11 with slide 1 (1e11 results per element) is refused when
 * the operator is built, not discovered as a job that never ends. */
#define WEIR_WINDOW_MAX_PER_ELEMENT 100000

typedef struct weir_window_assigner {
    weir_window_kind kind;
    int64_t size_ms;
    int64_t slide_ms;
    int64_t offset_ms;
    int64_t gap_ms;
} weir_window_assigner;

static inline weir_window_assigner weir_window_tumbling(int64_t size_ms, int64_t offset_ms)
{
    weir_window_assigner a = {WEIR_WINDOW_TUMBLING, size_ms, 0, offset_ms, 0};
    return a;
}

static inline weir_window_assigner weir_window_sliding(int64_t size_ms, int64_t slide_ms,
                                                       int64_t offset_ms)
{
    weir_window_assigner a = {WEIR_WINDOW_SLIDING, size_ms, slide_ms, offset_ms, 0};
    return a;
}

static inline weir_window_assigner weir_window_cumulative(int64_t size_ms, int64_t step_ms,
                                                          int64_t offset_ms)
{
    weir_window_assigner a = {WEIR_WINDOW_CUMULATIVE, size_ms, step_ms, offset_ms, 0};
    return a;
}

static inline weir_window_assigner weir_window_session(int64_t gap_ms)
{
    weir_window_assigner a = {WEIR_WINDOW_SESSION, 0, 0, 0, gap_ms};
    return a;
}

static inline weir_window_assigner weir_window_global(void)
{
    weir_window_assigner a = {WEIR_WINDOW_GLOBAL, 0, 0, 0, 0};
    return a;
}

static inline weir_window_assigner weir_window_processing_tumbling(int64_t size_ms,
                                                                   int64_t offset_ms)
{
    weir_window_assigner a = {WEIR_WINDOW_PROCESSING_TUMBLING, size_ms, 0, offset_ms, 0};
    return a;
}

static inline weir_window_assigner weir_window_processing_sliding(int64_t size_ms,
                                                                  int64_t slide_ms,
                                                                  int64_t offset_ms)
{
    weir_window_assigner a = {WEIR_WINDOW_PROCESSING_SLIDING, size_ms, slide_ms, offset_ms, 0};
    return a;
}

/* Processing-time sessions (Flink's ProcessingTimeSessionWindows): a
 * session is [now, now + gap) of the job clock when the window operator
 * reads an element, merged as event-time sessions merge, and fires when
 * the clock reaches its end - 1. */
static inline weir_window_assigner weir_window_processing_session(int64_t gap_ms)
{
    weir_window_assigner a = {WEIR_WINDOW_PROCESSING_SESSION, 0, 0, 0, gap_ms};
    return a;
}

/* Processing-time cumulative windows (Flink SQL's CUMULATE over a
 * processing-time attribute): the cumulative windows of the job clock's
 * time when the window operator reads an element, each fired when the
 * clock reaches its end - 1. */
static inline weir_window_assigner weir_window_processing_cumulative(int64_t size_ms,
                                                                    int64_t step_ms,
                                                                    int64_t offset_ms)
{
    weir_window_assigner a = {WEIR_WINDOW_PROCESSING_CUMULATIVE, size_ms, step_ms, offset_ms, 0};
    return a;
}

/* ---- triggers ------------------------------------------------------------- */

typedef enum weir_trigger_kind {
    /* The assigner's own: event time for event-time windows, processing time
     * for processing-time windows, end of input for the global window. */
    WEIR_TRIGGER_DEFAULT = 0,
    /* Fires when the watermark reaches window.max (at once for an element
     * that arrives after that, if the window is not late); on the global
     * window that is end of input. Event-time windows only. */
    WEIR_TRIGGER_EVENT_TIME,
    /* Fires when the job clock reaches window.max. Processing-time windows
     * (cumulative ones take this one only). */
    WEIR_TRIGGER_PROCESSING_TIME,
    /* Fires every `count` elements of a window (the count is per window and
     * restarts after each firing); never on time alone. Any assigner. */
    WEIR_TRIGGER_COUNT,
    /* Fires once, when the input ends (watermark MAX). The global window. */
    WEIR_TRIGGER_END_OF_INPUT
} weir_trigger_kind;

/* ---- custom triggers (Flink's Trigger and TriggerResult) -----------------
 * A trigger written in C: the window operator calls it for each element
 * added to a window, for each timer it registered, when windows merge
 * (sessions) and when a window is cleared, and does what it answers. The
 * window state is per (key, window); so is the trigger's own state, a
 * block of state_size bytes (zeroed when the window is new) that every
 * callback gets as tc->state (Flink's getPartitionedState, for fixed-size
 * values). A trigger's timers are per (key, window, time) and reach
 * on_event_time / on_processing_time with the window they were registered
 * for; the operator's own cleanup timer (at max + allowed lateness in
 * event time, at max in processing time) reaches the trigger too, as in
 * Flink, before the window's state is cleared. The callbacks must not call
 * the state functions of weir/state.h, nor emit. */

typedef enum weir_trigger_result {
    WEIR_TRIGGER_CONTINUE = 0,      /* nothing */
    WEIR_TRIGGER_FIRE = 1,          /* the window function on the contents, kept */
    WEIR_TRIGGER_PURGE = 2,         /* the contents cleared, nothing emitted */
    WEIR_TRIGGER_FIRE_AND_PURGE = 3 /* fired, then cleared */
} weir_trigger_result;

/* What a trigger callback sees of its window. Valid during the call. */
typedef struct weir_trigger_ctx {
    weir_ctx *ctx;
    int64_t start, end, max_timestamp; /* the window (as weir_window_info) */
    const void *key;                   /* the current key */
    int64_t watermark;                 /* the operator's current watermark */
    int64_t now;                       /* processing time (weir_ctx_now) */
    void *state;                       /* the window's trigger state (state_size bytes) */
    void *arg;                         /* the window spec's arg */
    int64_t ns_;                       /* private: the window's namespace */
    int64_t cleanup_;                  /* private: its cleanup time */
} weir_trigger_ctx;

/* A timer of this window: `time` in `domain`. Registering the same timer
 * twice keeps one; deleting one that is not there is not an error (and a
 * delete of the window's cleanup time keeps the operator's own timer). 0 or
 * a negative WEIR_E* code. */
WEIR_EXPORT int weir_trigger_register(weir_trigger_ctx *tc, weir_time_domain domain,
                                      int64_t time);
WEIR_EXPORT int weir_trigger_delete(weir_trigger_ctx *tc, weir_time_domain domain, int64_t time);

#define WEIR_TRIGGER_VTABLE_V1 1u

/* Each callback returns a weir_trigger_result (on_merge and clear: 0) or a
 * negative WEIR_E* code (the job fails). */
typedef struct weir_trigger_vtable {
    uint32_t version;  /* WEIR_TRIGGER_VTABLE_V1 */
    size_t state_size; /* per window, 0..4096 */
    /* Required. An element was added to the window (Trigger.onElement). */
    int (*on_element)(weir_trigger_ctx *tc, const void *elem, int64_t timestamp);
    /* Optional (CONTINUE). An event-time timer at `time` (onEventTime). */
    int (*on_event_time)(weir_trigger_ctx *tc, int64_t time);
    /* Optional (CONTINUE). A processing-time timer (onProcessingTime). */
    int (*on_processing_time)(weir_trigger_ctx *tc, int64_t time);
    /* Required for session windows (canMerge, onMerge): windows merged into
     * tc's window, whose state is zeroed; merged[i] are the n merged
     * windows' states. Combine them and register the new window's timers;
     * clear() is called for each merged window afterwards. */
    int (*on_merge)(weir_trigger_ctx *tc, const void *const *merged, int n);
    /* Optional. The window is being cleared, or merged away: delete its
     * timers (Trigger.clear). */
    void (*clear)(weir_trigger_ctx *tc);
} weir_trigger_vtable;

/* Accumulating by default: a firing keeps the contents, so a later firing of
 * the same window (a late firing) includes everything. `purging` clears the
 * contents after each firing instead (Flink's PurgingTrigger). With
 * `custom`, the user's trigger decides (kind DEFAULT and count 0; purging
 * still makes every FIRE a FIRE_AND_PURGE); any assigner but the
 * cumulative one. */
typedef struct weir_window_trigger {
    weir_trigger_kind kind;
    int64_t count;  /* WEIR_TRIGGER_COUNT: > 0; else 0 */
    bool purging;
    const weir_trigger_vtable *custom; /* borrowed, must outlive the job */
} weir_window_trigger;

/* ---- evictors (Flink's Evictor, EvictingWindowOperator) -------------------
 * An evictor removes elements from a window's contents when it fires,
 * before the function (or after it, `after`: Flink's doEvictAfter); what
 * remains is the window's contents from then on. Elements are in arrival
 * order. */
typedef enum weir_evictor_kind {
    WEIR_EVICTOR_NONE = 0,
    /* CountEvictor.of(count): keeps the last `count` elements. */
    WEIR_EVICTOR_COUNT,
    /* TimeEvictor.of(time_ms): removes the elements whose timestamp is at or
     * below the newest element's timestamp - time_ms (nothing if the
     * elements have no timestamps). */
    WEIR_EVICTOR_TIME,
    /* DeltaEvictor.of(threshold, delta): removes the elements whose
     * delta(element, last element) is >= threshold. */
    WEIR_EVICTOR_DELTA
} weir_evictor_kind;

typedef double (*weir_delta_fn)(const void *a, const void *b, void *arg);

typedef struct weir_window_evictor {
    weir_evictor_kind kind;
    int64_t count;       /* COUNT: > 0 */
    int64_t time_ms;     /* TIME: >= 0 */
    double threshold;    /* DELTA */
    weir_delta_fn delta; /* DELTA: required; gets the spec's arg */
    bool after;          /* evict after the function instead of before it */
} weir_window_evictor;

/* ---- what a function sees of a firing ------------------------------------- */

typedef struct weir_window_info {
    /* [start, end); the global window: WEIR_TS_MIN, WEIR_TS_MAX. Clamped at
     * the ends of time (above). */
    int64_t start, end;
    /* end - 1, or WEIR_TS_MAX if the window's end passed MAX (and for the
     * global window): every result's timestamp */
    int64_t max_timestamp;
    int64_t watermark;       /* the operator's current watermark */
    const void *key;         /* the window's key (key_size bytes) */
    size_t key_size;
    int64_t count;           /* elements in the contents that fire */
    /* 0 for the window's first firing, n for the n-th one after it. */
    int firing;
    /* The firing was caused by an element that arrived when the watermark had
     * already passed max_timestamp (an allowed-lateness update). */
    bool late;
    bool global;
} weir_window_info;

/* Emits a window result with the window's timestamp, as every result must
 * carry (for process functions). */
static inline int weir_window_emit(weir_ctx *ctx, const weir_window_info *w, const void *elem)
{
    return weir_emit(ctx, elem, w->max_timestamp);
}

/* ---- functions ------------------------------------------------------------ */

/* Reduce: the accumulator has the input's element type. The first element of
 * a window is copied in; each further one is folded in with `reduce`. For
 * sliding windows and sessions partial accumulators are folded into each
 * other the same way, so reduce must be associative and commutative. */
typedef void (*weir_reduce_fn)(void *acc, const void *elem, void *arg);
/* Optional: turns the final accumulator into the result (out_size bytes),
 * e.g. to carry the window's bounds. Without it the result is the
 * accumulator itself. */
typedef void (*weir_reduce_finish_fn)(const void *acc, const weir_window_info *w, void *out,
                                      void *arg);

/* Aggregate: an accumulator of its own type (acc_size bytes) and a result of
 * the output type. */
typedef struct weir_aggregate_fns {
    size_t acc_size; /* 1..65536 */
    /* Optional: a new accumulator (it starts zero-filled). */
    void (*create)(void *acc, void *arg);
    /* Required: folds one element in. */
    void (*add)(void *acc, const void *elem, void *arg);
    /* Folds `other` into `acc`. Required for sliding windows (panes are
     * combined at a firing) and sessions (merges). */
    void (*merge)(void *acc, const void *other, void *arg);
    /* Required: writes the result (out_size bytes). */
    void (*result)(const void *acc, const weir_window_info *w, void *out, void *arg);
} weir_aggregate_fns;

/* Process: every element of the window (`count` elements of the input's
 * size, contiguous, valid during the call) and the firing's info. Emits any
 * number of results with weir_window_emit() (or weir_emit with
 * w->max_timestamp). Returns 0 or a negative WEIR_E* code (the job fails).
 * weir_ctx_arg(ctx) is the spec's arg. */
typedef int (*weir_window_process_fn)(weir_ctx *ctx, const weir_window_info *w,
                                      const void *elems, size_t count, void *arg);

/* ---- the operator --------------------------------------------------------- */

/* Zero means the default in every field but the function. Exactly one
 * function: `reduce` (with optional `reduce_finish`), `aggregate` (add and
 * result set) or `process`. */
typedef struct weir_window_spec {
    const char *name;                 /* NULL: "window"; copied */
    weir_window_assigner assigner;
    weir_window_trigger trigger;
    /* Event-time windows: how long after window.max a window still takes
     * elements (and fires again for each one). >= 0; 0 for processing time. */
    int64_t allowed_lateness_ms;
    /* 0: late elements are dropped (and counted). >= 1: they go to this side
     * output, with their own timestamps and the input's element type. */
    int late_tag;
    weir_reduce_fn reduce;
    weir_reduce_finish_fn reduce_finish;
    weir_aggregate_fns aggregate;
    weir_window_process_fn process;
    /* The result's size: reduce without finish: 0 (the input's size);
     * otherwise required (> 0). */
    size_t out_size;
    void *arg;                        /* passed to every function; borrowed */
    int parallelism;                  /* 0: the job's default */
    /* Optional (kind NONE). Any assigner but the cumulative one. */
    weir_window_evictor evictor;
} weir_window_spec;

/* A window operator on a keyed stream (after weir_stream_key_by). The spec is
 * copied. A non-keyed input or an invalid spec is a build error (recorded in
 * the job, NULL returned) naming the setting. */
WEIR_EXPORT weir_stream *weir_stream_window(weir_stream *keyed, const weir_window_spec *spec);

/* The window operator as a process spec, for weir_stream_process or a
 * harness (with a key of `key_size` bytes, > 0), which take ownership of
 * out->impl (out->name, out->settings_json and out->side_outputs live in
 * it; free it with out->impl_free if neither gets it); out->arg is the
 * spec's arg, borrowed. Returns 0, or WEIR_EINVAL (WEIR_ENOKEY for key_size
 * 0) with the reason in errbuf and nothing allocated. */
WEIR_EXPORT int weir_window_operator(const weir_window_spec *spec, size_t in_size,
                                     size_t key_size, weir_process_spec *out, char *errbuf,
                                     size_t errsize);

/* ---- window joins ------------------------------------------------------------
 * Flink's `a.join(b).where(k).equalTo(k).window(assigner).apply(fn)` and
 * `a.coGroup(b)...window(assigner).apply(fn)`: the elements of both keyed
 * streams (weir_stream_key_by, keys of the same size) with equal keys and in
 * the same event-time window, when the watermark reaches the window's end - 1.
 * fn is called for each pair of a left and a right element of a key's window
 * (an inner join: a window with elements on one side only calls nothing);
 * cogroup once for each key's window that has elements on either side, with
 * all of both sides' elements (in arrival order; n may be 0). Windows:
 * tumbling, sliding or cumulative over event time (no merging ones). An
 * element whose every window fired already is late: dropped and counted
 * (late_dropped); allowed lateness is 0. The functions emit with weir_emit,
 * their results' timestamp window_end - 1 (the window's max timestamp, as
 * Flink's). Each window's elements wait in keyed list state (namespace: the
 * window's end) under an event-time timer, so checkpoints and rescaling
 * carry them; the operator runs on the SQL window join's engine
 * (table/table_window_join.c). fn and cogroup return 0, or a negative
 * WEIR_E* code to fail the job. */
typedef int (*weir_window_join_fn)(weir_ctx *ctx, const void *left, const void *right,
                                   int64_t window_start, int64_t window_end, void *arg);
typedef int (*weir_window_cogroup_fn)(weir_ctx *ctx, const void *left, size_t nleft,
                                      const void *right, size_t nright, int64_t window_start,
                                      int64_t window_end, void *arg);
typedef struct weir_window_join_spec {
    const char *name;             /* NULL: "WindowJoin"; copied */
    weir_window_assigner window;  /* weir_window_tumbling, _sliding or _cumulative */
    weir_window_join_fn fn;       /* one of fn (join) ... */
    weir_window_cogroup_fn cogroup; /* ... and cogroup (coGroup) */
    void *arg;
    size_t out_size;              /* required */
    int parallelism;              /* 0: the job's default */
} weir_window_join_spec;
WEIR_EXPORT weir_stream *weir_stream_window_join(weir_stream *left, weir_stream *right,
                                                 const weir_window_join_spec *spec);

#ifdef __cplusplus
}
#endif
#endif
