/* weir/diag.h — the diagnostic channel: what the runtime records about a job.
 *
 * Every subtask of every operator, chained or not, reports into one channel
 * per job: how watermarks advance (per operator subtask, and at every valve per
 * input channel, with the channel that holds the minimum back), idle/active
 * changes, throughput, window firings, late elements, session merges, window
 * cleanups, backpressure and a final summary whose counters add up. User code
 * writes nothing to be observed. Worker threads never lock to report: each has
 * its own ring, drained by one collector thread that writes the sinks.
 *
 * The schema of the events (JSONL and msgpack) is docs/CAPTURE.md.
 */
#ifndef WEIR_DIAG_H
#define WEIR_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The capture schema version written into the job event (docs/CAPTURE.md). */
#define WEIR_CAPTURE_VERSION 3
/* A late event lists at most this many missed windows one by one; beyond,
 * the first and the last (docs/CAPTURE.md, `late`). */
#define WEIR_CAPTURE_LATE_WINDOWS 64

typedef enum weir_diag_level {
    WEIR_DIAG_DEFAULT = 0, /* = WEIR_DIAG_STANDARD */
    WEIR_DIAG_OFF,         /* nothing; costs one predictable branch per site */
    WEIR_DIAG_SUMMARY,     /* job + summary events only */
    WEIR_DIAG_STANDARD,    /* everything but per-record events */
    WEIR_DIAG_VERBOSE      /* adds a `record` event per record an operator takes in */
} weir_diag_level;

typedef enum weir_diag_kind {
    WEIR_DIAG_KIND_JOB = 0,
    WEIR_DIAG_KIND_WATERMARK,
    WEIR_DIAG_KIND_STATUS,
    WEIR_DIAG_KIND_THROUGHPUT,
    WEIR_DIAG_KIND_WINDOW_FIRE,
    WEIR_DIAG_KIND_LATE,
    WEIR_DIAG_KIND_MERGE,
    WEIR_DIAG_KIND_CLEANUP,
    WEIR_DIAG_KIND_BACKPRESSURE,
    WEIR_DIAG_KIND_RECORD,
    WEIR_DIAG_KIND_SUMMARY,
    WEIR_DIAG_KIND_CHECKPOINT,         /* a subtask's snapshot for a checkpoint */
    WEIR_DIAG_KIND_CHECKPOINT_TRIGGER, /* the job: a checkpoint triggered */
    WEIR_DIAG_KIND_CHECKPOINT_END,     /* the job: completed or aborted */
    WEIR_DIAG_KIND_CHECKPOINT_RESTORE, /* the job: a checkpoint restored or skipped */
    WEIR_DIAG_KIND_JOIN_STATE,         /* a join's rows per side and watermark hold-back */
    WEIR_DIAG_KIND_COUNT_
} weir_diag_kind;

/* The name of a kind as written in captures ("window_fire", ...). */
WEIR_EXPORT const char *weir_diag_kind_name(weir_diag_kind kind);

/* One event, as the callback and in-memory sinks see it. Fields that do not
 * apply to the kind are -1 (ints), WEIR_TS_MIN (times) or NULL (strings).
 * The job and summary events are about the whole job: op is NULL and
 * subtask -1 (their JSON has neither).
 * `json` is always the event as one JSONL line (no newline). Strings are owned
 * by the sink: a callback may not keep them past its return; the in-memory
 * sink keeps them until it is destroyed. */
typedef struct weir_diag_event {
    weir_diag_kind kind;
    int64_t t;              /* processing time in ms since the job started */
    const char *op;         /* operator name (NULL for job and summary) */
    int subtask;
    int input;              /* valve events: the logical input, else -1 */
    int channel;            /* valve events: the channel in that input, else -1 */
    int held_by;            /* watermark and status at a valve: the channel holding
                             * the min after the change, -1 if none */
    int64_t watermark;      /* watermark, window_fire, late: the watermark */
    bool idle;              /* status */
    int64_t records_in;     /* throughput: in this interval */
    int64_t records_out;
    const char *key;        /* window_fire, late, merge, cleanup: printable key,
                             * its first 63 bytes */
    int64_t window_start;   /* window_fire, merge (the result), cleanup; late: the
                             * latest window it missed */
    int64_t window_end;
    int64_t timestamp;      /* late, record: the element's timestamp; throughput:
                             * the largest timestamp taken in (MIN: none) */
    int firing;             /* window_fire: 0 on time, n >= 1 the n-th late firing */
    int64_t count;          /* window_fire: elements in the window; merge: windows
                             * merged; late: windows missed */
    bool dropped;           /* late: dropped (true) or sent to the side output */
    int64_t blocked_ms;     /* backpressure: time spent with a full output */
    double fill;            /* backpressure: fullest output channel, 0..1 */
    /* checkpoint, checkpoint_trigger, checkpoint_end, checkpoint_restore
     * (docs/CAPTURE.md): */
    int64_t checkpoint_id;  /* checkpoint_restore: the one restored; -1 for one skipped */
    int64_t bytes;          /* checkpoint: the subtask's snapshot; end: the whole checkpoint */
    double alignment_ms;    /* checkpoint: input held for the barrier */
    int64_t held_bytes;     /* checkpoint: batches waiting in held channels (whole batches) */
    double snapshot_ms;     /* checkpoint: taking the snapshot */
    int64_t duration_ms;    /* checkpoint_end: trigger to completion or abort */
    bool savepoint;         /* checkpoint_trigger */
    bool aborted;           /* checkpoint_end */
    const char *reason;     /* checkpoint_end, aborted: why (its first 63 bytes);
                             * checkpoint_restore, skipped: why, naming the file */
    const char *json;
    /* valve events of a source's partitions (weir_source_partitions): the
     * partition's name ("orders-3"); NULL otherwise. Last: appended. */
    const char *partition;
    /* join_state: the rows each side of a join subtask holds, and how far it
     * holds its output watermark back (ms; 0: not at all). Appended. */
    int64_t left_rows;
    int64_t right_rows;
    int64_t hold_back_ms;
    /* window_fire (version 3): the window's state was removed with this
     * on-time firing, and no cleanup event follows for it. Appended. */
    bool cleanup;
} weir_diag_event;

/* Called on the collector thread for every event, in the order the collector
 * writes them. Must not call into the job. */
typedef void (*weir_diag_callback)(const weir_diag_event *event, void *arg);

/* An in-memory sink: keeps every event of one run, for tests and small tools.
 * Create before weir_job_create(), pass in the config, read after
 * weir_job_run() returned; destroy after the job. Not MT safe: read it only
 * when no job that writes into it is running. */
typedef struct weir_diag_memory weir_diag_memory;

WEIR_EXPORT int weir_diag_memory_create(weir_diag_memory **out);
WEIR_EXPORT void weir_diag_memory_destroy(weir_diag_memory *mem);
WEIR_EXPORT size_t weir_diag_memory_count(const weir_diag_memory *mem);
/* The i-th event (0-based, in collector order); NULL if out of range. */
WEIR_EXPORT const weir_diag_event *weir_diag_memory_event(const weir_diag_memory *mem, size_t i);

typedef struct weir_diag_config {
    weir_diag_level level;        /* 0: standard */
    const char *jsonl_path;       /* NULL: no JSONL file. Copied at job creation. */
    const char *msgpack_path;     /* NULL: no msgpack file. Copied. */
    weir_diag_memory *memory;     /* NULL: none. Borrowed; must outlive the run. */
    weir_diag_callback callback;  /* NULL: none */
    void *callback_arg;
    /* false (default): lossless, a producer waits while its ring is full.
     * true: a full ring drops the event and counts it; the summary reports it. */
    bool lossy;
    /* Events a worker's ring holds at least: rounded up to a power of two,
     * 1..262144 (about 140 bytes each); 0: 8192 (1.1 MB per worker). */
    int ring_capacity;
    int64_t throughput_interval_ms; /* 0: 100 ms of job clock */
} weir_diag_config;

#ifdef __cplusplus
}
#endif
#endif
