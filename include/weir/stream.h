/* weir/stream.h — building a job's graph: sources, transformations, sinks.
 *
 * A weir_stream is a handle to a logical stream of fixed-size elements, each
 * with an int64 timestamp. Streams belong to their job (freed by
 * weir_job_destroy; never free one yourself) and are only used on the thread
 * that builds the job, before weir_job_run().
 *
 * Builder calls return a new stream, or NULL after recording why in the job
 * (weir_job_error); given a NULL stream they return NULL at once, so the
 * first problem is the one reported. Sinks return their sink's stream handle,
 * which only takes weir_stream_set_name / weir_stream_set_parallelism.
 *
 * Edges: an operator reads its input over a forward edge when the parallelism
 * matches (chained into the same task: plain calls, no queue) and over a
 * rebalance otherwise, unless a partitioning was asked for: key_by (hash of
 * the exact key bytes), rebalance, broadcast, or forward (an error if the
 * parallelism differs).
 *
 * Callbacks given here (map, filter, key extractors, ...) run on worker
 * threads, possibly concurrently for different subtasks; their `arg` is
 * borrowed and must outlive the run.
 */
#ifndef WEIR_STREAM_H
#define WEIR_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "weir/export.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_stream weir_stream;

/* Upper bounds refused as absurd at build time. */
#define WEIR_MAX_ELEM_SIZE 65536
#define WEIR_MAX_KEY_SIZE 256
#define WEIR_MAX_PARALLELISM 1024
/* An operator's parallelism taken from its input's producer at planning. */
#define WEIR_PARALLELISM_INHERIT (-1)

/* ---- generic operators (what every built-in is made of) ------------------- */

typedef struct weir_side_output_spec {
    int tag;          /* >= 1, unique in the operator */
    size_t elem_size; /* 1..WEIR_MAX_ELEM_SIZE */
} weir_side_output_spec;

/* How an operator's counters add up in the capture's summary
 * (docs/CAPTURE.md). */
typedef enum weir_accounting {
    WEIR_ACCOUNTING_ANY = 0,    /* no identity: emits any number per record */
    WEIR_ACCOUNTING_ONE_TO_ONE, /* in = out + filtered + late_dropped + late_side */
    WEIR_ACCOUNTING_WINDOW,     /* in = absorbed + filtered + late_dropped + late_side */
    WEIR_ACCOUNTING_SINK        /* out = 0 */
} weir_accounting;

/* What a generic operator is. Every field is for a user's operator as much
 * as for a built-in one, on purpose: `accounting` lets the summary check a
 * user's operator's counters as it checks a map's; `settings_json` shows its
 * configuration in the capture beside the built-ins'; `impl` is how a
 * wrapper (weir_window_operator, weir_keyed_process_operator, or the user's
 * own library of operators) hands a spec to weir_stream_process or a harness
 * while its user keeps `arg`. What only built-in operators use is in
 * weir/operator_builtin.h. */
typedef struct weir_process_spec {
    const char *name;                   /* NULL: the kind; copied */
    const char *kind;                   /* what it is, for diagnostics ("map"); NULL: "process" */
    const weir_operator_vtable *vtable; /* required; borrowed, must outlive the job */
    void *arg;                          /* weir_ctx_arg(); borrowed unless arg_free is set */
    void (*arg_free)(void *arg);        /* if set, the job owns arg and frees it */
    size_t out_size;                    /* main output element size; 0: a sink (no output) */
    const weir_side_output_spec *side_outputs; /* copied */
    int nside;
    /* 0: the job's default; WEIR_PARALLELISM_INHERIT: the same as the
     * operator that produces its (first) input, as the timestamps operator
     * does (Flink's assignTimestampsAndWatermarks keeps its input's). */
    int parallelism;
    weir_accounting accounting;
    /* Optional: kind-specific settings for the capture's job event, as the
     * members of a JSON object ("\"size_ms\":1000,..."); copied. */
    const char *settings_json;
    /* Optional: a second pointer for an operator that wraps a user's own
     * callbacks, so the user keeps weir_ctx_arg() for theirs: weir_ctx_impl()
     * returns it. Owned by the job (freed with impl_free) if that is set. */
    void *impl;
    void (*impl_free)(void *impl);
} weir_process_spec;

/* A one-input operator on `in`. */
WEIR_EXPORT weir_stream *weir_stream_process(weir_stream *in, const weir_process_spec *spec);

/* A two-input operator: records of `a` arrive as input 0, of `b` as input 1.
 * Each input has its own valve; the operator's watermark is combined by
 * SEMANTICS.md 4. If both inputs are keyed (key_by with the same key_size),
 * the operator is keyed: state and timers are per key across both inputs.
 * A keyed `a` with a broadcast view `b` makes a keyed operator whose records
 * of `b` have no current key (weir/broadcast.h builds on it). */
WEIR_EXPORT weir_stream *weir_stream_connect(weir_stream *a, weir_stream *b,
                                             const weir_process_spec *spec);

/* The side output `tag` of the operator that produced `s`. */
WEIR_EXPORT weir_stream *weir_stream_side_output(weir_stream *s, int tag);

typedef struct weir_source_spec {
    const char *name;                 /* NULL: the kind; copied */
    const char *kind;                 /* NULL: "source" */
    const weir_source_vtable *vtable; /* required; borrowed */
    void *arg;
    void (*arg_free)(void *arg);
    size_t elem_size;                 /* 1..WEIR_MAX_ELEM_SIZE */
    int parallelism;                  /* 0: the job's default */
} weir_source_spec;

/* A source from a user callback table, with one instance per subtask. */
WEIR_EXPORT weir_stream *weir_job_add_source(weir_job *job, const weir_source_spec *spec);

/* ---- naming and parallelism ----------------------------------------------- */

/* Set the name / parallelism of the operator that produced `s` (not of a
 * key_by, rebalance, broadcast, forward or union view). Returns `s`, or NULL
 * after recording the error. */
WEIR_EXPORT weir_stream *weir_stream_set_name(weir_stream *s, const char *name);
/* Makes the source that produced `s` keep union state (Flink's union list
 * state): at a restore every subtask gets every old subtask's snapshot
 * (weir_snapshot_next) and keeps what it owns now by a rule of its own, so
 * the source may restore at another parallelism, which other sources may
 * not (their position is per subtask). The Kafka source sets it: its
 * partitions go by their assignment rule. Returns s, or NULL (recorded)
 * when s is not a source's own stream. */
WEIR_EXPORT weir_stream *weir_source_union_state(weir_stream *s);
/* The same for the operator that produced `s` (Flink's union list state,
 * which its broadcast state is restored by): at a restore each subtask's
 * restore hook reads the snapshot hook's pieces of every old subtask, in
 * subtask order, at any parallelism. Its keyed state, if it is keyed, is
 * restored by key group as always. weir_stream_broadcast_process
 * (weir/broadcast.h) sets it. Returns s, or NULL (recorded) when s is a
 * view. */
WEIR_EXPORT weir_stream *weir_stream_union_state(weir_stream *s);

/* Watermark alignment (Flink's WatermarkStrategy.withWatermarkAlignment;
 * docs/SEMANTICS.md 1): a source subtask whose watermark is more than
 * max_drift_ms ahead of the lowest watermark of its group pauses reading
 * until the group has caught up, so that the partitions of a source (or
 * several sources) cannot drift apart without bound and the windows after
 * them keep only max drift's worth of the partitions ahead. A subtask's
 * watermark is the one that left the first operator of its chain that made
 * one (the timestamps operator chained to the source, or the source's own),
 * MAX while that output is idle or once the subtask finished; a subtask with
 * none yet is not counted. The time a subtask spends paused does not count
 * towards its idleness timeout. Zero in every field means the default.
 *
 * Every source of parallelism above 1 aligns its own subtasks by default,
 * with WEIR_WATERMARK_DRIFT_DEFAULT_MS; weir_source_align_watermarks changes
 * that for one source. */
typedef struct weir_watermark_alignment {
    /* Sources with the same group name are aligned together (their subtasks
     * form one group); NULL: this source's own subtasks. Copied. */
    const char *group;
    /* How far a subtask's watermark may be ahead of the group's lowest, in
     * ms of event time. 0: WEIR_WATERMARK_DRIFT_DEFAULT_MS; WEIR_DISABLED:
     * this source is not aligned at all. */
    int64_t max_drift_ms;
    /* A paused subtask looks again whenever another member's watermark
     * rises, and at the latest this long (ms of processing time) after its
     * last look (Flink's update interval). 0: WEIR_WATERMARK_ALIGN_INTERVAL_MS. */
    int64_t update_interval_ms;
} weir_watermark_alignment;

/* The default max drift: one minute of event time, far more than the
 * disorder bounds and quiet spells a job is built around (seconds), so that
 * partitions that keep pace never notice it, while a partition that runs
 * ahead (a faster reader, a file of a later day) is held to a minute's worth
 * of windows in the operators after it. Flink has no default (alignment is
 * off unless asked for); weir has one so that memory stays bounded. */
#define WEIR_WATERMARK_DRIFT_DEFAULT_MS 60000
/* The default update interval, Flink's (1 s). */
#define WEIR_WATERMARK_ALIGN_INTERVAL_MS 1000

/* Sets the watermark alignment of the source whose own stream s is (NULL:
 * the default). Returns s, or NULL (recorded) when s is not a source's own
 * stream, or a setting is negative (other than WEIR_DISABLED for the
 * drift) or the group name is empty or longer than 100 bytes. */
WEIR_EXPORT weir_stream *weir_source_align_watermarks(weir_stream *s,
                                                      const weir_watermark_alignment *alignment);
WEIR_EXPORT weir_stream *weir_stream_set_parallelism(weir_stream *s, int parallelism);
/* The operator's stable id in checkpoints (docs/CHECKPOINTS.md, "Operator
 * ids"): a restore matches state to operators by uid. Without one, an
 * operator's uid is its name (unique in a job, but made from the operator's
 * kind and order unless set): an explicit uid is what survives adding,
 * removing or renaming operators between a checkpoint and its restore. 1 to 100 bytes of letters, digits and
 * "._-:#"; unique in the job. Returns s, or NULL (recorded) if it is not. */
WEIR_EXPORT weir_stream *weir_stream_set_uid(weir_stream *s, const char *uid);
WEIR_EXPORT size_t weir_stream_elem_size(const weir_stream *s);
WEIR_EXPORT weir_job *weir_stream_job(const weir_stream *s);
/* The key size of a keyed stream (a weir_stream_key_by view), 0 for a
 * stream that is not keyed: for builders of keyed operators that refuse
 * anything else. */
WEIR_EXPORT size_t weir_stream_key_size(const weir_stream *s);

/* ---- sources -------------------------------------------------------------- */

/* `count` elements of `elem_size` bytes from `elems` (borrowed: it must stay
 * valid and unchanged until weir_job_run returns), with timestamps from
 * `timestamps` (borrowed, may be NULL: no timestamps). With parallelism p,
 * subtask i reads the i-th of p contiguous slices. `elems` may be NULL only
 * when count is 0 (WEIR_EINVAL otherwise). */
WEIR_EXPORT weir_stream *weir_source_array(weir_job *job, const void *elems, size_t count,
                                           size_t elem_size, const int64_t *timestamps);

/* ---- partitioning --------------------------------------------------------- */

typedef struct weir_key_spec {
    size_t key_size; /* 1..WEIR_MAX_KEY_SIZE */
    /* Required. Writes exactly key_size bytes for elem (the same bytes every
     * time: pad bytes included). Keys are compared as bytes. */
    void (*extract)(const void *elem, void *key, void *arg);
    void *arg;
    /* Optional: the key's printable form for diagnostics and printing;
     * returns the length written (like snprintf). */
    int (*format)(const void *key, char *buf, size_t size, void *arg);
} weir_key_spec;

/* Partitioning views. Each returns a view of `s` that decides how the next
 * operator reads it; the view is not an operator (it takes no name or
 * parallelism) and belongs to the job like every stream. Watermarks,
 * statuses and END go to every channel whatever the partitioning; records
 * go as below. Build thread only, before weir_job_run.
 *
 * key_by: each record to the consumer subtask picked by the hash of its
 * exact key bytes; the consumer is keyed (state, timers and windows per
 * key). The spec is copied; its callbacks run on worker threads.
 * rebalance: records round-robin over the consumer subtasks, per producer.
 * broadcast: every record to every consumer subtask.
 * forward: producer subtask i to consumer subtask i (chained when nothing
 * else stands between them); the plan refuses it if the parallelism
 * differs. */
WEIR_EXPORT weir_stream *weir_stream_key_by(weir_stream *s, const weir_key_spec *key);
WEIR_EXPORT weir_stream *weir_stream_rebalance(weir_stream *s);
WEIR_EXPORT weir_stream *weir_stream_broadcast(weir_stream *s);
WEIR_EXPORT weir_stream *weir_stream_forward(weir_stream *s);

/* One stream of all elements of `n` streams of the same element size and
 * job (a consumer sees it as one input over all their channels, with one
 * valve). `streams` is borrowed for the call only; the streams themselves
 * stay usable. A NULL among them returns NULL (an earlier builder call
 * recorded why); so do a NULL array and n < 1, which have no job to record
 * an error in: a union of nothing is a mistake the caller sees at once. */
WEIR_EXPORT weir_stream *weir_stream_union(weir_stream *const *streams, int n);

/* ---- transformations ------------------------------------------------------ */

/* Writes one output element (out_size bytes) for `in`. Returns 0, or a
 * negative WEIR_E* code to fail the job. */
typedef int (*weir_map_fn)(const void *in, void *out, void *arg);
/* Returns 1 to keep `in`, 0 to drop it, or a negative WEIR_E* code. */
typedef int (*weir_filter_fn)(const void *in, void *arg);
/* Emits 0..n elements with weir_emit(ctx, elem, timestamp). */
typedef int (*weir_flat_map_fn)(weir_ctx *ctx, const void *in, int64_t timestamp, void *arg);

WEIR_EXPORT weir_stream *weir_stream_map(weir_stream *s, size_t out_size, weir_map_fn fn, void *arg);
WEIR_EXPORT weir_stream *weir_stream_filter(weir_stream *s, weir_filter_fn fn, void *arg);
WEIR_EXPORT weir_stream *weir_stream_flat_map(weir_stream *s, size_t out_size, weir_flat_map_fn fn,
                                              void *arg);

typedef struct weir_timestamps_spec {
    weir_timestamp_fn extract;          /* NULL: keep the records' timestamps */
    void *arg;
    weir_watermark_strategy strategy;
} weir_timestamps_spec;

/* Assigns timestamps and generates watermarks (SEMANTICS.md 1-2). Upstream
 * watermarks other than MAX, and upstream idle/active, are swallowed: this
 * operator makes its own. The spec is copied. */
WEIR_EXPORT weir_stream *weir_stream_assign_timestamps(weir_stream *s,
                                                       const weir_timestamps_spec *spec);

/* The timestamps operator on elements of elem_size bytes, as a process spec
 * (for weir_stream_process or a harness, which take ownership of out->arg;
 * out->settings_json lives in it). Returns 0, or WEIR_EINVAL with
 * the reason in errbuf and nothing allocated: a negative bound or idleness, a
 * punctuated strategy without its callback, a custom one without its vtable,
 * a negative interval other than WEIR_DISABLED. */
WEIR_EXPORT int weir_timestamps_operator(const weir_timestamps_spec *spec, size_t elem_size,
                                         weir_process_spec *out, char *errbuf, size_t errsize);

/* A two-input co-process operator (Flink's CoProcessFunction): records of
 * the first stream reach on_record1, of the second on_record2; both see the
 * same context, state and timers. Keyed two-input: key_by both streams with
 * keys of the same size first. Callbacks as in weir_operator_vtable. */
typedef struct weir_coprocess_vtable {
    uint32_t version; /* WEIR_OPERATOR_VTABLE_V1 */
    int (*open)(weir_ctx *ctx);
    int (*on_record1)(weir_ctx *ctx, const void *elem, int64_t timestamp); /* required */
    int (*on_record2)(weir_ctx *ctx, const void *elem, int64_t timestamp); /* required */
    int (*on_watermark)(weir_ctx *ctx, int64_t watermark);
    int (*on_status)(weir_ctx *ctx, bool idle);
    int (*on_timer)(weir_ctx *ctx, const weir_timer *timer);
    int (*on_end)(weir_ctx *ctx);
    void (*close)(weir_ctx *ctx);
} weir_coprocess_vtable;

typedef struct weir_coprocess_spec {
    const char *name;
    const weir_coprocess_vtable *vtable; /* borrowed, must outlive the job */
    void *arg;                           /* weir_ctx_arg() */
    size_t out_size;
    const weir_side_output_spec *side_outputs;
    int nside;
    int parallelism;
} weir_coprocess_spec;

WEIR_EXPORT weir_stream *weir_stream_coprocess(weir_stream *a, weir_stream *b,
                                               const weir_coprocess_spec *spec);

/* An interval join of two keyed streams (Flink's
 * keyedStream.intervalJoin(other).between(lower, upper).process(fn)): each
 * pair of a left and a right element of one key whose record timestamps
 * have right.ts in [left.ts + lower_ms, left.ts + upper_ms] (an exclusive
 * bound 1 ms tighter) goes to fn once, with the larger of the two
 * timestamps, which fn gives weir_emit (Flink's ProcessJoinFunction). An
 * element behind the operator's watermark when it arrives is late and
 * dropped (counted), as Flink's IntervalJoinOperator drops it; elements are
 * kept until the watermark shows no partner can still come, and cleaned by
 * event-time timers. Watermarks pass unchanged (Flink's DataStream join does
 * not hold them back; the SQL interval join does). It runs on the table
 * layer's join engine (weir_table_join): keyed state and timers, so its
 * state is in checkpoints. Both streams must be keyed (weir_stream_key_by)
 * with keys of the same size. fn returns 0, or a negative WEIR_E* code to
 * fail the job. */
typedef int (*weir_interval_join_fn)(weir_ctx *ctx, const void *left, const void *right,
                                     int64_t timestamp, void *arg);
typedef struct weir_interval_join_spec {
    const char *name;      /* NULL: "IntervalJoin"; copied */
    int64_t lower_ms, upper_ms;
    bool lower_exclusive, upper_exclusive; /* Flink's lowerBoundExclusive() ... */
    weir_interval_join_fn fn;              /* required */
    void *arg;
    size_t out_size;                       /* required */
    int parallelism;                       /* 0: the job's default */
} weir_interval_join_spec;
WEIR_EXPORT weir_stream *weir_stream_interval_join(weir_stream *left, weir_stream *right,
                                                   const weir_interval_join_spec *spec);

/* ---- sinks ---------------------------------------------------------------- */

/* Drops everything (benchmarks). */
WEIR_EXPORT weir_stream *weir_sink_discard(weir_stream *s);

/* Calls fn for every record on the sink subtask's worker thread: with
 * parallelism > 1 concurrently from several threads. Returns 0 or a negative
 * WEIR_E* code to fail the job. */
typedef int (*weir_sink_fn)(const void *elem, int64_t timestamp, int subtask, void *arg);
WEIR_EXPORT weir_stream *weir_sink_callback(weir_stream *s, weir_sink_fn fn, void *arg);

/* Writes one line per record to `out` (NULL: stdout): "SUBTASK> TEXT" with
 * parallelism > 1, else "TEXT", where fmt wrote TEXT (returns its length, like
 * snprintf; text longer than 1023 bytes is cut). */
typedef int (*weir_format_fn)(const void *elem, int64_t timestamp, char *buf, size_t size, void *arg);
WEIR_EXPORT weir_stream *weir_sink_print(weir_stream *s, weir_format_fn fmt, void *arg, FILE *out);

/* Collects every record in memory, for tests and small programs. *out is
 * owned by the job and readable after weir_job_run returned: records of
 * subtask 0 in arrival order, then subtask 1, ... */
typedef struct weir_collect weir_collect;
WEIR_EXPORT weir_stream *weir_sink_collect(weir_stream *s, weir_collect **out);
WEIR_EXPORT size_t weir_collect_count(const weir_collect *c);
WEIR_EXPORT const void *weir_collect_elem(const weir_collect *c, size_t i);
WEIR_EXPORT int64_t weir_collect_timestamp(const weir_collect *c, size_t i);
WEIR_EXPORT size_t weir_collect_elem_size(const weir_collect *c);

#ifdef __cplusplus
}
#endif
#endif
