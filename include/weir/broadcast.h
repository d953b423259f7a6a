/* weir/broadcast.h — the broadcast state pattern (Flink's
 * BroadcastConnectedStream with a KeyedBroadcastProcessFunction or a
 * BroadcastProcessFunction): a second stream (rules, configuration) is
 * broadcast to every subtask of a process operator, whose broadcast side
 * writes map states that every subtask holds the same, and whose other side
 * (keyed or not) reads them.
 *
 *     weir_stream *out = weir_stream_broadcast_process(
 *         weir_stream_key_by(events, &by_user), rules,
 *         &(weir_broadcast_spec){.vtable = &vt, .out_size = sizeof(alert),
 *                                .states = (weir_broadcast_state_desc[]){{8, sizeof(rule)}},
 *                                .nstates = 1});
 *
 * Records of `in` reach on_record (processElement) with the current key set
 * when `in` is keyed: keyed state and timers as in a keyed process operator
 * (weir/keyed.h, weir/state.h), the broadcast states read-only. Records of
 * the broadcast stream reach every subtask's on_broadcast
 * (processBroadcastElement), with no current key, where the broadcast
 * states may be written. Each subtask writes its own copy: the copies stay
 * the same as long as on_broadcast decides from the broadcast records and
 * the states alone (not from keyed state, the subtask's index or the time),
 * as Flink asks. Broadcast records from several producer subtasks may
 * reach different subtasks in different interleavings (each channel keeps
 * its order), as in Flink.
 *
 * Watermarks: the operator is a two-input operator: each input has its
 * valve and the operator's watermark is the least of both
 * (SEMANTICS.md 4). A broadcast stream that stops sending watermarks while
 * it is not finished holds the operator back; mark it idle (or let it end).
 *
 * Checkpoints: the broadcast states are written once, by subtask 0, and a
 * restore gives them to every subtask, at any parallelism (the operator
 * keeps union state, weir_stream_union_state); keyed state is restored by
 * key group as always.
 *
 * Threads: as for any operator. The state calls below only from the
 * callbacks of a broadcast process operator's context.
 */
#ifndef WEIR_BROADCAST_H
#define WEIR_BROADCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/operator.h"
#include "weir/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many broadcast states per operator. */
#define WEIR_BROADCAST_MAX_STATES 16

/* A broadcast map state (Flink's MapStateDescriptor): fixed-size keys and
 * values, each 1 byte .. 1 MiB, keys compared as bytes. Its id is its index
 * in the spec's array. */
typedef struct weir_broadcast_state_desc {
    size_t key_size;
    size_t value_size;
} weir_broadcast_state_desc;

typedef struct weir_broadcast_vtable {
    uint32_t version; /* WEIR_OPERATOR_VTABLE_V1 */
    /* Optional. Declare keyed state here when `in` is keyed. The broadcast
     * states are already there (restored, after a restore, only after
     * open: read them from the first record on). */
    int (*open)(weir_ctx *ctx);
    /* Required. A record of `in` (processElement): the broadcast states
     * read-only. */
    int (*on_record)(weir_ctx *ctx, const void *elem, int64_t timestamp);
    /* Required. A record of the broadcast stream (processBroadcastElement),
     * on every subtask: the broadcast states read-write, no current key. */
    int (*on_broadcast)(weir_ctx *ctx, const void *elem, int64_t timestamp);
    /* Required if on_record registers timers (keyed `in`): as a keyed
     * process operator's on_timer, the broadcast states read-only. */
    int (*on_timer)(weir_ctx *ctx, const weir_timer *timer);
    /* Optional; default forwards. */
    int (*on_watermark)(weir_ctx *ctx, int64_t watermark);
    /* Optional; default forwards. */
    int (*on_status)(weir_ctx *ctx, bool idle);
    /* Optional. Both inputs have ended. */
    int (*on_end)(weir_ctx *ctx);
    /* Optional. Frees what open made. */
    void (*close)(weir_ctx *ctx);
} weir_broadcast_vtable;

typedef struct weir_broadcast_spec {
    const char *name;                    /* NULL: "broadcast_process"; copied */
    const weir_broadcast_vtable *vtable; /* required; borrowed, must outlive the job */
    void *arg;                           /* weir_ctx_arg(); borrowed */
    size_t out_size;                     /* 0: no main output */
    const weir_side_output_spec *side_outputs; /* copied */
    int nside;
    int parallelism;                     /* 0: the job's default */
    const weir_broadcast_state_desc *states; /* 1..WEIR_BROADCAST_MAX_STATES; copied */
    int nstates;
} weir_broadcast_spec;

/* The broadcast process operator: `in` (keyed by weir_stream_key_by, or
 * not) as input 0, `broadcast` made a broadcast view (weir_stream_broadcast)
 * as input 1. Build errors as any builder (a missing callback, a bad state
 * size, WEIR_EINVAL). */
WEIR_EXPORT weir_stream *weir_stream_broadcast_process(weir_stream *in, weir_stream *broadcast,
                                                       const weir_broadcast_spec *spec);

/* As a process spec for weir_stream_connect (with a broadcast view as the
 * second input; call weir_stream_union_state on its output) or a harness
 * (input 1 the broadcast input, key[0] only when keyed). out->impl is owned
 * by out (impl_free), as weir_keyed_process_operator's. 0, or WEIR_EINVAL
 * with the reason in errbuf, or WEIR_ENOMEM. */
WEIR_EXPORT int weir_broadcast_process_operator(const weir_broadcast_spec *spec,
                                                weir_process_spec *out, char *errbuf,
                                                size_t errsize);

/* ---- the broadcast states (Flink's BroadcastState / ReadOnlyBroadcastState)
 * `state` is the index of its descriptor in the spec. A bad id, or a write
 * outside on_broadcast, fails the ctx (WEIR_EINVAL, WEIR_ESTATE): the call
 * returns that code (NULL, false or 0 for get, contains and count). */

/* The value of `key`, key_size bytes; NULL if absent. Valid until the next
 * write of that state. */
WEIR_EXPORT const void *weir_broadcast_get(weir_ctx *ctx, int state, const void *key);
WEIR_EXPORT bool weir_broadcast_contains(weir_ctx *ctx, int state, const void *key);
WEIR_EXPORT size_t weir_broadcast_count(weir_ctx *ctx, int state);
/* Writes (on_broadcast only): 0 or a negative WEIR_E* code (the ctx failed). */
WEIR_EXPORT int weir_broadcast_put(weir_ctx *ctx, int state, const void *key, const void *value);
/* 1 if key was there, 0 if not, or a negative code. */
WEIR_EXPORT int weir_broadcast_remove(weir_ctx *ctx, int state, const void *key);
WEIR_EXPORT int weir_broadcast_clear(weir_ctx *ctx, int state);

/* Iterating a state (Flink's immutableEntries()), newest entry first:
 *
 *     weir_broadcast_iter it;
 *     weir_broadcast_begin(ctx, 0, &it);
 *     const void *k, *v;
 *     while (weir_broadcast_next(&it, &k, &v)) ...
 *
 * In on_broadcast, removing the entry just returned is allowed; a put
 * during the iteration may or may not be seen. */
typedef struct weir_broadcast_iter {
    weir_ctx *ctx;
    int state;
    uint32_t next; /* the next entry's index + 1; 0: the end */
} weir_broadcast_iter;
WEIR_EXPORT void weir_broadcast_begin(weir_ctx *ctx, int state, weir_broadcast_iter *it);
WEIR_EXPORT bool weir_broadcast_next(weir_broadcast_iter *it, const void **key,
                                     const void **value);

#ifdef __cplusplus
}
#endif
#endif
