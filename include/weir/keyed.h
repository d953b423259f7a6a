/* weir/keyed.h — the keyed process operator: a user's own logic on a keyed
 * stream, with keyed state (weir/state.h) and timers per key (Flink's
 * KeyedProcessFunction).
 *
 * Records reach on_record with the current key set to the record's key;
 * timers registered with weir_timer_register (per key, namespace and
 * timestamp) reach on_timer with the current key set to the timer's key.
 * SEMANTICS.md 6 holds: registering the same timer twice keeps one; on a
 * watermark W the current watermark becomes W, every event-time timer <= W
 * fires in (timestamp, registration) order, and only then W goes on. By
 * Flink's convention, output of a record carries the record's timestamp, of an
 * event-time timer the timer's timestamp, of a processing-time timer no
 * timestamp (WEIR_NO_TIMESTAMP): weir_keyed_emit() does that for you.
 *
 * Threads: as for any operator (weir/operator.h): the callbacks of one subtask
 * run on one worker thread, subtasks run concurrently, `arg` is shared.
 */
#ifndef WEIR_KEYED_H
#define WEIR_KEYED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/operator.h"
#include "weir/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_keyed_process_vtable {
    uint32_t version; /* WEIR_OPERATOR_VTABLE_V1 */
    /* Optional. Declare states here (weir_state_declare). */
    int (*open)(weir_ctx *ctx);
    /* Required. The current key is the record's. */
    int (*on_record)(weir_ctx *ctx, const void *elem, int64_t timestamp);
    /* Required if the operator registers timers. The current key is the
     * timer's. At the end of input (watermark MAX) every event-time timer is
     * due at once, so one that on_timer registers again (its own timestamp
     * or a later one) fires again in the same advance: an on_timer that does
     * so unconditionally would never let the job end. The runtime fails the
     * job instead (WEIR_ESTATE, "on_timer registered its event-time timer
     * again ... at the end of input") once a timer of one key and namespace
     * was re-registered by its own firing 2^20 times in a row at MAX; check
     * weir_ctx_watermark(ctx) == WEIR_TS_MAX to stop re-registering. */
    int (*on_timer)(weir_ctx *ctx, const weir_timer *timer);
    /* Optional; default forwards. After every timer <= watermark fired. */
    int (*on_watermark)(weir_ctx *ctx, int64_t watermark);
    /* Optional. Every input has ended (after MAX and its timers). */
    int (*on_end)(weir_ctx *ctx);
    /* Optional. As weir_operator_vtable.close: frees what open made. */
    void (*close)(weir_ctx *ctx);
} weir_keyed_process_vtable;

typedef struct weir_keyed_process_spec {
    const char *name;                         /* NULL: "keyed_process"; copied */
    const weir_keyed_process_vtable *vtable;  /* required; borrowed, must outlive the job */
    void *arg;                                /* weir_ctx_arg(); borrowed */
    size_t out_size;                          /* 0: no main output (a keyed sink) */
    const weir_side_output_spec *side_outputs; /* copied */
    int nside;
    int parallelism;                          /* 0: the job's default */
} weir_keyed_process_spec;

/* The keyed process operator on `keyed` (a weir_stream_key_by view). A
 * stream that is not keyed is refused with a build error (WEIR_ENOKEY). */
WEIR_EXPORT weir_stream *weir_stream_keyed_process(weir_stream *keyed,
                                                   const weir_keyed_process_spec *spec);

/* As a process spec for weir_stream_process or a harness (which must give it
 * a keyed input: opening it on one that is not keyed fails with
 * WEIR_ENOKEY). out->impl is a small allocation that out owns (out->impl_free):
 * pass out to weir_stream_process or weir_harness_create, which take it over
 * (and free it also when they refuse it). The spec's vtable stays borrowed.
 * 0, WEIR_EINVAL with the reason in errbuf, or WEIR_ENOMEM. A vtable version
 * other than WEIR_OPERATOR_VTABLE_V1 is refused by weir_stream_process or
 * the harness. */
WEIR_EXPORT int weir_keyed_process_operator(const weir_keyed_process_spec *spec,
                                            weir_process_spec *out, char *errbuf,
                                            size_t errsize);

/* Emits on the main output with the timestamp of what is being handled: the
 * record's in on_record, the event-time timer's in on_timer, none
 * (WEIR_NO_TIMESTAMP) for a processing-time timer. Only from the callbacks of
 * a keyed process operator. */
WEIR_EXPORT int weir_keyed_emit(weir_ctx *ctx, const void *elem);

/* That timestamp itself (WEIR_NO_TIMESTAMP outside on_record / on_timer):
 * weir_ctx_timestamp(), which any operator may use. */
WEIR_EXPORT int64_t weir_keyed_timestamp(const weir_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
