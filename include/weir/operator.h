/* weir/operator.h — the operator API: what an operator (built-in or the
 * user's own) sees of the runtime, and what it gives the runtime.
 *
 * An operator supplies logic through a versioned table of callbacks; the
 * runtime owns the threads, channels, valves, timers and state. Every built-in
 * operator in operators/ is written against this header only.
 *
 * Threads: each parallel subtask of an operator has its own weir_ctx, and all
 * callbacks of one subtask run on one worker thread, never concurrently with
 * each other. Different subtasks of the same operator may run at the same time
 * on different workers: anything shared between them (the spec's `arg`) must
 * be read-only or synchronised by the user. weir_ctx functions may only be
 * called from inside a callback of that ctx.
 *
 * In-band messages: records, watermarks and idle/active statuses arrive in the
 * order they were sent on each channel. A watermark reaches on_watermark after
 * the input's valve merged it (SEMANTICS.md 3-4) and after every event-time
 * timer at or below it fired (SEMANTICS.md 6); whatever the operator emits
 * while handling it reaches downstream before the watermark does.
 */
#ifndef WEIR_OPERATOR_H
#define WEIR_OPERATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One subtask's runtime context. Opaque, owned by the runtime. */
typedef struct weir_ctx weir_ctx;

/* ---- operators ------------------------------------------------------------ */

#define WEIR_OPERATOR_VTABLE_V1 1u
/* V2 adds the checkpoint hooks (snapshot, restore, notify_complete) after
 * every V1 member; a V1 table keeps working, without them. */
#define WEIR_OPERATOR_VTABLE_V2 2u
/* V3 adds on_wakeup after every V2 member (weir_ctx_wakeup). */
#define WEIR_OPERATOR_VTABLE_V3 3u

/* Where an operator writes its own state at a checkpoint, and where it reads
 * it back at a restore (docs/CHECKPOINTS.md, "Operator state"). The runtime
 * snapshots what it owns itself (keyed state, timers, watermarks): these
 * hooks are for what an operator keeps in its own memory. Valid only during
 * the hook's call. */
typedef struct weir_snapshot_writer weir_snapshot_writer;
typedef struct weir_snapshot_reader weir_snapshot_reader;

/* Appends `len` bytes to the operator's state in this checkpoint. 0 or
 * WEIR_ENOMEM. */
WEIR_EXPORT int weir_snapshot_write(weir_snapshot_writer *w, const void *data, size_t len);

/* The checkpoint this snapshot belongs to: once notify_complete(c) comes
 * with c >= this id, what the snapshot recorded is durable (a two-phase
 * sink commits what it made pending here then, and not before). */
WEIR_EXPORT int64_t weir_snapshot_checkpoint_id(const weir_snapshot_writer *w);

/* The next piece of state to restore: what one subtask of the checkpointed
 * job wrote in its snapshot hook (in subtask order). At the parallelism the
 * checkpoint was taken at, subtask i gets exactly subtask i's; at another
 * one, a keyed operator gets the state of every old subtask whose key
 * groups overlap its own, and an operator that is not keyed gets that of
 * old subtasks j with j % parallelism == i. Returns 1 with *data and *len
 * set (valid during the restore call), 0 when there is no more. */
WEIR_EXPORT int weir_snapshot_next(weir_snapshot_reader *r, const void **data, size_t *len);

/* State kept as one fixed-size record (the built-in operators' way): the
 * record after a 4-byte tag that names its layout, so that a restore of
 * another operator's or another layout's state is refused, not misread.
 * weir_snapshot_write_record writes it: 0 or WEIR_ENOMEM.
 * weir_restore_records calls `each` for every piece the restore has (several
 * after a change of parallelism) with its record; returns 0 when all were
 * read, each's first negative result, or WEIR_EFORMAT with the context
 * failed ("restore: the checkpoint's state ... is not this operator's") for
 * a piece that is not such a record. */
WEIR_EXPORT int weir_snapshot_write_record(weir_snapshot_writer *w, uint32_t tag, const void *rec,
                                           size_t size);
WEIR_EXPORT int weir_restore_records(weir_ctx *ctx, weir_snapshot_reader *r, uint32_t tag,
                                     size_t size,
                                     int (*each)(weir_ctx *ctx, const void *rec, void *arg),
                                     void *arg);

typedef enum weir_time_domain {
    WEIR_EVENT_TIME = 0,
    WEIR_PROCESSING_TIME = 1
} weir_time_domain;

/* A timer that fired: per (key, namespace, timestamp). `key` is the current
 * key (NULL for an operator that is not keyed). */
typedef struct weir_timer {
    weir_time_domain domain;
    int64_t timestamp;
    int64_t ns;
    const void *key;
} weir_timer;

/* A run of records, as a batch-at-a-time operator receives them: `count`
 * slots of `stride` bytes, each the record's timestamp then its element.
 * Valid only during the on_batch call. */
typedef struct weir_batch {
    const unsigned char *data;
    uint32_t count;
    uint32_t stride;
} weir_batch;

static inline const void *weir_batch_elem(const weir_batch *b, uint32_t i)
{
    return b->data + (size_t)i * b->stride + 8;
}

static inline int64_t weir_batch_ts(const weir_batch *b, uint32_t i)
{
    int64_t ts;
    WEIR__MEMCPY(&ts, b->data + (size_t)i * b->stride, sizeof ts);
    return ts;
}

/* Every callback returns 0 or a negative WEIR_E* code; a negative result
 * fails the subtask, which cancels the job (the message names the operator,
 * the subtask and the callback; weir_ctx_fail() sets a better one). */
typedef struct weir_operator_vtable {
    uint32_t version; /* WEIR_OPERATOR_VTABLE_V1 */
    /* Optional. Before the first record, on the subtask's worker thread. */
    int (*open)(weir_ctx *ctx);
    /* Required. A record on input 0 (or 1 for a two-input operator). `elem`
     * is valid only during the call. For a keyed input the current key is the
     * record's key. */
    int (*on_record)(weir_ctx *ctx, int input, const void *elem, int64_t timestamp);
    /* Optional; default forwards: weir_emit_watermark(ctx, watermark). The
     * operator's input watermark advanced to `watermark` (already the current
     * watermark, weir_ctx_watermark()). */
    int (*on_watermark)(weir_ctx *ctx, int64_t watermark);
    /* Optional; default forwards: weir_emit_idle() / weir_emit_active(). The
     * operator's input became idle (true) or active (false). */
    int (*on_status)(weir_ctx *ctx, bool idle);
    /* Required if the operator registers timers. The current key is the
     * timer's key. */
    int (*on_timer)(weir_ctx *ctx, const weir_timer *timer);
    /* Optional. Every input has ended (after MAX). Last chance to emit. */
    int (*on_end)(weir_ctx *ctx);
    /* Optional. Always called once for a subtask whose open() succeeded (or
     * that had no open()), also when the job is canceled. Frees what open()
     * made; must not emit. */
    void (*close)(weir_ctx *ctx);
    /* Optional fast path: a run of records on an input that is not keyed,
     * instead of one on_record call each (same meaning, same order). Keyed
     * inputs always go through on_record, with the current key set. */
    int (*on_batch)(weir_ctx *ctx, int input, const weir_batch *batch);

    /* ---- V2: checkpoints (docs/CHECKPOINTS.md); each optional ---- */
    /* The checkpoint's barrier has been aligned at this subtask: write what
     * the operator keeps in its own memory (the runtime already has its
     * keyed state and timers). Must not emit. */
    int (*snapshot)(weir_ctx *ctx, weir_snapshot_writer *out);
    /* Once, after open() and before anything else, when the job restores a
     * checkpoint that holds state for this operator. May not emit. */
    int (*restore)(weir_ctx *ctx, weir_snapshot_reader *in);
    /* Checkpoint `checkpoint_id` (and so every earlier one) is complete on
     * disk: a two-phase-commit sink commits what that checkpoint's snapshot
     * made pending. Called on the subtask's worker between other callbacks,
     * also after on_end (a finished job's last checkpoint). */
    int (*notify_complete)(weir_ctx *ctx, int64_t checkpoint_id);

    /* ---- V3: wake-ups from other threads; optional ---- */
    /* Another thread called weir_ctx_wakeup(ctx) (once for any number of
     * calls since the last on_wakeup): on the subtask's worker, between
     * other callbacks, with no current key; may emit (records carry the
     * timestamps given to weir_emit). Flink's mailbox mail. */
    int (*on_wakeup)(weir_ctx *ctx);
} weir_operator_vtable;

/* ---- sources -------------------------------------------------------------- */

#define WEIR_SOURCE_VTABLE_V1 1u
/* V2 adds the checkpoint hooks after every V1 member. A job with
 * checkpoints needs every source to have them: a source's position is what
 * a restore resumes from. */
#define WEIR_SOURCE_VTABLE_V2 2u

/* Flow results of a source's next() (not errors). */
typedef enum weir_source_result {
    WEIR_SOURCE_MORE = 1, /* call again soon */
    WEIR_SOURCE_WAIT = 2, /* nothing before weir_source_wait_until()'s time */
    WEIR_SOURCE_END = 3   /* finished: the runtime sends MAX, then END */
} weir_source_result;

typedef struct weir_source_vtable {
    uint32_t version; /* WEIR_SOURCE_VTABLE_V1 */
    /* Optional. On the subtask's worker thread, before the first next(). */
    int (*open)(weir_ctx *ctx);
    /* Required. Emits up to about weir_ctx_batch_hint() records with
     * weir_emit() (and, if the source tracks event time itself, watermarks and
     * idle/active with weir_emit_watermark() / weir_emit_idle() /
     * weir_emit_active()), then returns a weir_source_result or a negative
     * WEIR_E* code. Must not block: to wait, call weir_source_wait_until() and
     * return WEIR_SOURCE_WAIT. */
    int (*next)(weir_ctx *ctx);
    /* Optional. As weir_operator_vtable.close. */
    void (*close)(weir_ctx *ctx);

    /* ---- V2: checkpoints ---- */
    /* Between two next() calls, where the source's position is consistent:
     * write the position from which next() would go on (what it emitted so
     * far is before the checkpoint, everything after it after). */
    int (*snapshot)(weir_ctx *ctx, weir_snapshot_writer *out);
    /* After open(), before the first next(): seek to the written position. */
    int (*restore)(weir_ctx *ctx, weir_snapshot_reader *in);
    /* As weir_operator_vtable.notify_complete (a source that commits read
     * positions somewhere, as Kafka offsets). */
    int (*notify_complete)(weir_ctx *ctx, int64_t checkpoint_id);
} weir_source_vtable;

/* In a source's next(): do not call next() again before processing time `t`
 * (ms, the job clock; see weir_ctx_now()). */
WEIR_EXPORT void weir_source_wait_until(weir_ctx *ctx, int64_t t);

/* In a source's next(), the one way it may block: waits until `fd` is
 * ready for `events` (poll(2)'s POLLIN, POLLOUT; POLLHUP and POLLERR count
 * as ready too), for a source reading something that may have nothing to
 * read yet (a FIFO, a pipe, a socket, a terminal; open it O_NONBLOCK).
 * Before it waits, what the subtask emitted so far is sent on, so a quiet
 * input holds nothing back. It waits at most `timeout_ms` (and, on the
 * system clock, not past the subtask's next processing-time deadline), and
 * returns at once when the job is cancelled (weir_job_cancel, SIGINT or
 * SIGTERM in `weir`) or stopping (another subtask failed). Returns 1 when
 * fd is ready, 0 when it is not (the time passed, or the job is ending):
 * then return WEIR_SOURCE_MORE from next(), so that the worker's other
 * subtasks and the job's cancellation get their turn; or a negative WEIR_E*
 * code (poll failed). While it waits the worker runs nothing else and, on
 * the virtual clock, time does not move (the subtask counts as busy, as it
 * would reading a file). Keep timeout_ms short (tens of milliseconds). */
WEIR_EXPORT int weir_source_wait_fd(weir_ctx *ctx, int fd, short events, int timeout_ms);

/* ---- per-partition event time in a source ----------------------------------
 * A source subtask that reads several partitions (a Kafka source's topic
 * partitions; Flink's splits) generates watermarks per partition and lets
 * the runtime merge them, as Flink's per-split watermarks: each partition
 * has its own output gate (SEMANTICS.md 1) and is a channel of a valve
 * (SEMANTICS.md 3) whose output is the subtask's output gate. So the
 * subtask's watermark is the minimum over its active partitions, a silent
 * partition marked idle stops holding it, and with every partition idle the
 * subtask is idle. A source that uses these does not call
 * weir_emit_watermark / weir_emit_idle / weir_emit_active itself. From
 * next() (and restore), never from open(). */

/* Declares that the subtask reads `n` partitions (0..n-1), named for the
 * capture by names[i] ("orders-3", cut to 63 bytes; NULL: "partition-i").
 * Each partition is channel i of the source's input 0 in the capture:
 * valve watermark and status events with its name (docs/CAPTURE.md), and
 * held_by says which one holds the subtask back. With n == 0 the subtask is
 * idle at once (Flink's rule for a reader with no split). Called again with
 * a larger n when partitions are discovered (names for the new ones at
 * their indices): they start at MIN, active, and hold the subtask's
 * watermark until theirs catch up (it never goes back). 0, WEIR_EINVAL (n
 * smaller than before) or WEIR_ENOMEM. */
WEIR_EXPORT int weir_source_partitions(weir_ctx *ctx, int n, const char *const *names);
/* Partition p's watermark, through its gate and the valve; a partition
 * marked idle becomes active again with the first watermark that passes
 * its gate. */
WEIR_EXPORT int weir_source_partition_watermark(weir_ctx *ctx, int p, int64_t watermark);
/* Marks partition p idle (true) or active (false); only a change counts. */
WEIR_EXPORT int weir_source_partition_status(weir_ctx *ctx, int p, bool idle);
/* The subtask's merged watermark so far (WEIR_TS_MIN before any): the
 * valve's last output. */
WEIR_EXPORT int64_t weir_source_partitions_watermark(const weir_ctx *ctx);

/* Where an operator that runs a custom watermark generator (weir/time.h's
 * weir_watermark_generator_vtable) itself sends its decisions: the
 * operator's own output (partition -1: weir_emit_watermark, _idle,
 * _active) or a source's partition p (weir_source_partition_watermark,
 * _status). A plain value the operator makes for each call of the
 * generator, {.ctx = ctx, .partition = p}; the first failure of what the
 * generator sent is left in err (0: none) for the operator to return. */
struct weir_watermark_output {
    weir_ctx *ctx;
    int partition;
    int err;
};

/* ---- emitting -------------------------------------------------------------
 * All emit calls copy `elem` (weir_ctx_out_size() bytes) before they return
 * and never block: a full output keeps the records pending and the runtime
 * stops feeding this subtask until they have left. */

/* Not API — the part of every weir_ctx the inline fast paths below read: a
 * cursor over the main output's buffer for chained operators. `next` is NULL
 * whenever the slow path must decide (no chained-only output, or emitting is
 * not allowed right now). Programs inline this code, so the cursor's layout
 * and its place (a weir_ctx's first member) are ABI: changing either bumps
 * WEIR_ABI_VERSION (weir/version.h); runtime/task.h asserts both. */
struct weir__emit_cursor {
    unsigned char *next;
    unsigned char *end;
    uint32_t stride;
    uint32_t elem_size;
};
WEIR_EXPORT int weir__emit_slow(weir_ctx *ctx, const void *elem, int64_t timestamp);
WEIR_EXPORT int weir__emit_full(weir_ctx *ctx);
WEIR_EXPORT void *weir__emit_reserve_slow(weir_ctx *ctx);
WEIR_EXPORT int weir__emit_commit_slow(weir_ctx *ctx, int64_t timestamp);

/* Not API: copies an element; small whole-word sizes with inline moves. */
static inline void weir__copy_elem(unsigned char *dst, const void *src, uint32_t size)
{
    if ((size & 7u) == 0 && size <= 64) {
        const unsigned char *s = (const unsigned char *)src;
        for (uint32_t i = 0; i < size; i += 8)
            WEIR__MEMCPY(dst + i, s + i, 8);
    } else {
        WEIR__MEMCPY(dst, src, size);
    }
}

/* A record on the main output. Returns 0, WEIR_ESTATE (no main output, or
 * called from open() or close()) or another negative code if delivering it
 * failed. Inline: appending to a chained operator's buffer is a copy. */
static inline int weir_emit(weir_ctx *ctx, const void *elem, int64_t timestamp)
{
    struct weir__emit_cursor *c = (struct weir__emit_cursor *)(void *)ctx;
    unsigned char *slot = c->next;
    if (WEIR__LIKELY(slot != NULL)) {
        WEIR__MEMCPY(slot, &timestamp, sizeof timestamp);
        weir__copy_elem(slot + 8, elem, c->elem_size);
        c->next = slot + c->stride;
        if (WEIR__UNLIKELY(c->next == c->end))
            return weir__emit_full(ctx);
        return 0;
    }
    return weir__emit_slow(ctx, elem, timestamp);
}

/* Emitting in place: weir_emit_reserve() returns where to write the next
 * main-output element (weir_ctx_out_size() bytes), weir_emit_commit() sends
 * it with its timestamp; nothing else may be emitted in between. Equivalent
 * to building the element and calling weir_emit(), without the copy.
 * reserve returns NULL only on failure: return weir_ctx_error(ctx) then. */
static inline void *weir_emit_reserve(weir_ctx *ctx)
{
    struct weir__emit_cursor *c = (struct weir__emit_cursor *)(void *)ctx;
    if (WEIR__LIKELY(c->next != NULL))
        return c->next + 8;
    return weir__emit_reserve_slow(ctx);
}

static inline int weir_emit_commit(weir_ctx *ctx, int64_t timestamp)
{
    struct weir__emit_cursor *c = (struct weir__emit_cursor *)(void *)ctx;
    unsigned char *slot = c->next;
    if (WEIR__LIKELY(slot != NULL)) {
        WEIR__MEMCPY(slot, &timestamp, sizeof timestamp);
        c->next = slot + c->stride;
        if (WEIR__UNLIKELY(c->next == c->end))
            return weir__emit_full(ctx);
        return 0;
    }
    return weir__emit_commit_slow(ctx, timestamp);
}

/* Every record of `b`, which arrived on `input`, unchanged (element and
 * timestamp) on the main output, in order: equivalent to weir_emit() for
 * each record, for an operator whose output type is its input's (a
 * pass-through that looks at records without changing them). When only
 * chained operators read the output, they read `b` itself, within this call
 * (no copy); into a channel the records move as whole runs of slots. Returns
 * 0, WEIR_ETYPE if the input's element size differs from the main output's,
 * or what weir_emit() would. */
WEIR_EXPORT int weir_emit_batch(weir_ctx *ctx, int input, const weir_batch *b);

/* A record on side output `tag` (declared in the spec), with that side
 * output's element size. WEIR_EINVAL for an undeclared tag. */
WEIR_EXPORT int weir_emit_side(weir_ctx *ctx, int tag, const void *elem, int64_t timestamp);

/* A watermark through the output gate (SEMANTICS.md 1): it leaves only if it
 * is strictly above the last one that left; if the output is idle, ACTIVE
 * leaves first. */
WEIR_EXPORT int weir_emit_watermark(weir_ctx *ctx, int64_t watermark);

/* Marks the output idle / active through the gate; only a change leaves. */
WEIR_EXPORT int weir_emit_idle(weir_ctx *ctx);
WEIR_EXPORT int weir_emit_active(weir_ctx *ctx);

/* ---- timers ---------------------------------------------------------------
 * Per (current key, namespace, timestamp): registering the same timer twice
 * keeps one; deleting a timer that does not exist is not an error. Event-time
 * timers fire when the watermark reaches them, in timestamp order, before the
 * watermark is forwarded; a timer at or below the current watermark fires at
 * the next watermark. Processing-time timers fire when the job clock reaches
 * them. Operators that are not keyed may use timers too (with no key). */
/* From any thread (the operator's own too), while the job runs: its
 * subtask is scheduled on its worker, which calls the operator's on_wakeup
 * (a V3 vtable) soon, as a channel's batch wakes its consumer: no polling
 * and no timer (an async completion, weir/async.h, uses it). Lock-free,
 * allocates nothing, never blocks; calls that come before the operator ran
 * on_wakeup make one call; after the run it does nothing useful but is
 * harmless until weir_job_destroy. */
WEIR_EXPORT void weir_ctx_wakeup(weir_ctx *ctx);

WEIR_EXPORT int weir_timer_register(weir_ctx *ctx, weir_time_domain domain, int64_t ns,
                                    int64_t timestamp);
WEIR_EXPORT int weir_timer_delete(weir_ctx *ctx, weir_time_domain domain, int64_t ns,
                                  int64_t timestamp);

/* ---- the context ---------------------------------------------------------- */

/* The operator's current input watermark (WEIR_TS_MIN before any). */
WEIR_EXPORT int64_t weir_ctx_watermark(const weir_ctx *ctx);
/* The timestamp of what the operator is handling: the record's in
 * on_record, the timer's in on_timer for an event-time timer, and
 * WEIR_NO_TIMESTAMP everywhere else (a processing-time timer, on_batch,
 * on_watermark, on_status, open, on_end, close). */
WEIR_EXPORT int64_t weir_ctx_timestamp(const weir_ctx *ctx);
/* Processing time: the job clock in ms since the run started. */
WEIR_EXPORT int64_t weir_ctx_now(const weir_ctx *ctx);
WEIR_EXPORT int weir_ctx_subtask(const weir_ctx *ctx);
WEIR_EXPORT int weir_ctx_parallelism(const weir_ctx *ctx);
WEIR_EXPORT const char *weir_ctx_name(const weir_ctx *ctx);
/* The spec's arg: one pointer shared by all subtasks (borrowed). */
WEIR_EXPORT void *weir_ctx_arg(const weir_ctx *ctx);
/* The spec's impl pointer (weir_process_spec.impl), NULL if none. */
WEIR_EXPORT void *weir_ctx_impl(const weir_ctx *ctx);
/* The subtask's own pointer, NULL until set (typically in open()). */
WEIR_EXPORT void *weir_ctx_state(const weir_ctx *ctx);
WEIR_EXPORT void weir_ctx_set_state(weir_ctx *ctx, void *state);
/* Element sizes: of input 0/1, of the main output (0 for a sink). */
WEIR_EXPORT size_t weir_ctx_in_size(const weir_ctx *ctx, int input);
WEIR_EXPORT size_t weir_ctx_out_size(const weir_ctx *ctx);
/* How many records a source's next() should emit per call. */
WEIR_EXPORT int weir_ctx_batch_hint(const weir_ctx *ctx);
/* The job's auto-watermark interval (ms; WEIR_DISABLED when off). */
WEIR_EXPORT int64_t weir_ctx_watermark_interval(const weir_ctx *ctx);

/* Keyed inputs: the current key (the record's, or the firing timer's), or NULL
 * when the operator is not keyed. weir_ctx_key_format() writes its printable
 * form (the key_by's formatter, else text if printable, else hex). */
WEIR_EXPORT const void *weir_ctx_key(const weir_ctx *ctx);
WEIR_EXPORT size_t weir_ctx_key_size(const weir_ctx *ctx);
WEIR_EXPORT int weir_ctx_key_format(const weir_ctx *ctx, char *buf, size_t size);
/* Whether `key` (weir_ctx_key_size bytes) belongs to this subtask of a
 * keyed operator: its key group is in the subtask's range, so key_by sends
 * its records here and its keyed state is restored here. For what an
 * operator keeps per key in its own snapshot: after a change of
 * parallelism a restore hook reads the pieces of every old subtask whose
 * key groups overlap its own (weir_snapshot_next), and keeps the keys it
 * owns. false for an operator that is not keyed. */
WEIR_EXPORT bool weir_ctx_owns_key(const weir_ctx *ctx, const void *key);

/* Whether the job takes checkpoints (docs/CHECKPOINTS.md): a two-phase
 * sink then commits at notify_complete, else at its end. */
WEIR_EXPORT bool weir_ctx_checkpoints(const weir_ctx *ctx);

/* The error this context failed with (the first weir_ctx_fail, or an emit
 * or state call that failed), 0 if none. */
WEIR_EXPORT int weir_ctx_error(const weir_ctx *ctx);

/* Records the failure message for the job ("operator NAME subtask I: ...")
 * and returns `err` (a negative WEIR_E* code), to be returned by the callback:
 *     return weir_ctx_fail(ctx, WEIR_EINVAL, "bad record %d", n); */
WEIR_EXPORT int weir_ctx_fail(weir_ctx *ctx, int err, const char *fmt, ...) WEIR_PRINTF(3, 4);

/* ---- what an operator tells the diagnostic channel ------------------------
 * Counters every operator kind may report; the runtime counts records in and
 * out itself. Each adds up in the capture's summary (docs/CAPTURE.md). */
typedef enum weir_counter {
    WEIR_COUNTER_FILTERED = 0,   /* taken in, deliberately not passed on */
    WEIR_COUNTER_LATE_DROPPED,   /* late, dropped */
    WEIR_COUNTER_LATE_SIDE,      /* late, sent to the late side output */
    WEIR_COUNTER_ABSORBED,       /* taken into state (a window) */
    WEIR_COUNTER_COUNT_
} weir_counter;

WEIR_EXPORT void weir_ctx_count(weir_ctx *ctx, weir_counter counter, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
