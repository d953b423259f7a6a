/* weir/time.h — event time: timestamps, watermarks and watermark strategies.
 *
 * Times are signed 64-bit milliseconds. WEIR_TS_MIN (INT64_MIN) is both "no
 * timestamp" and the lowest watermark; WEIR_TS_MAX (INT64_MAX) is the
 * end-of-time watermark a finishing source sends. A watermark W says: no more
 * elements with a timestamp <= W will arrive. The rules are Apache Flink's and
 * are written down in SEMANTICS.md; this header only names the pieces.
 *
 * A watermark strategy is a small plain struct. Build one with the helpers
 * below (weir_watermarks_bounded(), ...) or with designated initializers; all
 * zero means "no watermarks" (only MAX at the end of input).
 */
#ifndef WEIR_TIME_H
#define WEIR_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEIR_TS_MIN INT64_MIN
#define WEIR_TS_MAX INT64_MAX
#define WEIR_NO_TIMESTAMP INT64_MIN

/* For interval-like settings where 0 means "default": this value turns the
 * feature off (no periodic watermark probes, for instance). */
#define WEIR_DISABLED (-1)

typedef enum weir_watermark_kind {
    WEIR_WATERMARKS_NONE = 0,   /* proposes nothing; MAX at end of input only */
    WEIR_WATERMARKS_BOUNDED,    /* max timestamp seen - bound - 1 at each probe */
    WEIR_WATERMARKS_ASCENDING,  /* bounded with bound 0: max - 1 */
    WEIR_WATERMARKS_PUNCTUATED, /* a callback per element may propose one */
    WEIR_WATERMARKS_CUSTOM      /* user on_event / on_periodic callbacks */
} weir_watermark_kind;

/* Where a custom watermark generator sends what it decides. Opaque; valid only
 * during the callback it is passed to. Everything sent goes through the
 * operator's output gate (SEMANTICS.md 1): a watermark leaves only if it is
 * above the last one that left. */
typedef struct weir_watermark_output weir_watermark_output;

WEIR_EXPORT void weir_watermark_output_emit(weir_watermark_output *out, int64_t watermark);
WEIR_EXPORT void weir_watermark_output_mark_idle(weir_watermark_output *out);
WEIR_EXPORT void weir_watermark_output_mark_active(weir_watermark_output *out);

/* A user-defined periodic generator (WEIR_WATERMARKS_CUSTOM). One generator
 * instance per subtask, made by create() on that subtask's worker thread. All
 * callbacks of one instance run on one thread, never concurrently. A V1 table
 * ends at destroy; V2 adds `flags`. */
#define WEIR_WATERMARK_GENERATOR_V1 1u
#define WEIR_WATERMARK_GENERATOR_V2 2u

/* A V2 flag: on_periodic decides only from what on_event saw. Called again
 * with no element in between, it proposes nothing above its previous
 * proposal and marks nothing (it reads no clock and counts no calls), as the
 * built-in bounded and ascending strategies. The timestamps operator may
 * then skip the probes that cannot change anything, as it does for those:
 * a quiet input does not wake it every interval, and a virtual clock jumps
 * to the next record or timer instead of stepping one interval at a time.
 * Without it every probe runs. */
#define WEIR_WATERMARK_PERIODIC_FROM_EVENTS 1u

typedef struct weir_watermark_generator_vtable {
    uint32_t version; /* WEIR_WATERMARK_GENERATOR_V1 or _V2 */
    /* Optional. Makes the per-subtask state; *gen starts as NULL. Return 0 or
     * a negative WEIR_E* code (the job then fails). */
    int (*create)(void *arg, void **gen);
    /* Optional. Sees every element after it was forwarded. */
    void (*on_event)(void *gen, const void *elem, int64_t timestamp, weir_watermark_output *out);
    /* Optional. Runs at every periodic probe, also after MAX, and at the final
     * probe at END (after MAX: what it emits then is dropped by the gate, but
     * it may still mark the output idle). */
    void (*on_periodic)(void *gen, weir_watermark_output *out);
    /* Optional. Frees what create() made. */
    void (*destroy)(void *gen);
    /* V2: WEIR_WATERMARK_* flags above, 0 for none (read only from a V2
     * table). */
    uint32_t flags;
} weir_watermark_generator_vtable;

/* Proposes a watermark after an element (WEIR_WATERMARKS_PUNCTUATED), or
 * returns WEIR_TS_MIN for "no watermark here". Called on a worker thread. */
typedef int64_t (*weir_punctuated_fn)(const void *elem, int64_t timestamp, void *arg);

/* The helpers below initialise every member in this order (C++ before
 * C++20 has no designated initializers): a new member goes last, and into
 * each of them. */
typedef struct weir_watermark_strategy {
    weir_watermark_kind kind;
    int64_t bound_ms;                 /* BOUNDED: out-of-orderness, >= 0 */
    weir_punctuated_fn punctuated;    /* PUNCTUATED: required */
    const weir_watermark_generator_vtable *custom; /* CUSTOM: required */
    void *arg;                        /* passed to punctuated / custom->create; borrowed */
    /* with_idleness(T): 0 = no idleness, > 0 = the timeout T in ms of
     * processing time (SEMANTICS.md 2), < 0 is a configuration error. */
    int64_t idleness_ms;
    /* Auto-watermark interval override: 0 = the job's setting, WEIR_DISABLED =
     * no periodic probes, > 0 = this many ms of processing time. */
    int64_t interval_ms;
} weir_watermark_strategy;

static inline weir_watermark_strategy weir_watermarks_none(void)
{
    weir_watermark_strategy s = {WEIR_WATERMARKS_NONE, 0, NULL, NULL, NULL, 0, 0};
    return s;
}

static inline weir_watermark_strategy weir_watermarks_bounded(int64_t bound_ms)
{
    weir_watermark_strategy s = {WEIR_WATERMARKS_BOUNDED, bound_ms, NULL, NULL, NULL, 0, 0};
    return s;
}

static inline weir_watermark_strategy weir_watermarks_ascending(void)
{
    weir_watermark_strategy s = {WEIR_WATERMARKS_ASCENDING, 0, NULL, NULL, NULL, 0, 0};
    return s;
}

static inline weir_watermark_strategy weir_watermarks_punctuated(weir_punctuated_fn fn, void *arg)
{
    weir_watermark_strategy s = {WEIR_WATERMARKS_PUNCTUATED, 0, fn, NULL, arg, 0, 0};
    return s;
}

static inline weir_watermark_strategy
weir_watermarks_custom(const weir_watermark_generator_vtable *vt, void *arg)
{
    weir_watermark_strategy s = {WEIR_WATERMARKS_CUSTOM, 0, NULL, vt, arg, 0, 0};
    return s;
}

static inline weir_watermark_strategy weir_watermarks_with_idleness(weir_watermark_strategy s,
                                                                    int64_t idleness_ms)
{
    s.idleness_ms = idleness_ms;
    return s;
}

/* Extracts an element's event timestamp. `current` is the timestamp the record
 * carries already (WEIR_NO_TIMESTAMP if none). Called on a worker thread; must
 * not block. */
typedef int64_t (*weir_timestamp_fn)(const void *elem, int64_t current, void *arg);

/* Writes "MIN", "MAX" or the decimal value of t into buf (at least 21 bytes).
 * Returns buf. MT safe. */
WEIR_EXPORT char *weir_ts_format(int64_t t, char buf[21]);

#ifdef __cplusplus
}
#endif
#endif
