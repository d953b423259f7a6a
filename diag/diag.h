/* diag.h — the runtime's side of the diagnostic channel: the calls every
 * instrumented site makes, each behind one predictable level check.
 *
 * A context carries its resolved level (WEIR_DIAG_OFF when the job has no
 * sink), so with diagnostics off every site costs one compare of a field
 * already in cache. The events themselves are built into a per-worker ring
 * and written by the collector thread (diag.c).
 */
#ifndef WEIR_DIAG_DIAG_H
#define WEIR_DIAG_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "task.h"
#include "util.h"
#include "weir/diag.h"

#define WEIR__DIAG_ON(ctx, at_least) WEIR__UNLIKELY((ctx)->diag.level >= (at_least))

/* The most events a job may ask a worker's ring to hold (about 140 bytes
 * each: 36 MB per worker); the configuration check refuses more. */
#define WEIR__DIAG_RING_MAX (1 << 18)

struct weir__diag;

/* Job lifecycle (job thread): start creates the sinks; attach_workers (after
 * the scheduler made the workers, before they start) writes the job event,
 * gives every worker its ring and starts the collector; stop writes the
 * summary and joins. */
int weir__diag_start(weir_job *job);
void weir__diag_stop(weir_job *job);
int weir__diag_attach_workers(weir_job *job);
/* The level sites compare against (OFF when no sink is configured). */
int weir__diag_effective_level(const weir_job *job);

/* Whether `addr` is an address the HTTP server can listen on (weir_job_config's
 * http_addr): 0, or WEIR_EINVAL with why. */
int weir__diag_http_addr_check(const char *addr, char *why, size_t whysize);

/* Sites (worker threads). */
void weir__diag_watermark(weir_ctx *ctx, int64_t wm);
void weir__diag_status(weir_ctx *ctx, bool idle);
void weir__diag_valve_watermark(weir_ctx *head, int input, int channel, int64_t wm, int held_by);
/* held_by is read from the head's valve, after the change. */
void weir__diag_valve_status(weir_ctx *head, int input, int channel, bool idle);
/* A source's partition p (weir_source_partitions), as channel p of its
 * input 0, named: held_by after the change. */
void weir__diag_partition_watermark(weir_ctx *src, int p, const char *name, int64_t wm,
                                    int held_by);
void weir__diag_partition_status(weir_ctx *src, int p, const char *name, bool idle, int held_by);
/* cleanup: the window's state goes right after this on-time firing (its
 * cleanup time is its max): the event says so, and the cleanup report for
 * [start, end) that follows writes nothing (docs/CAPTURE.md, version 3). */
void weir__diag_window_fire(weir_ctx *ctx, int64_t start, int64_t end, int firing, int64_t count,
                            bool cleanup);
/* [start, end): the element's latest window (the capture derives the others
 * of a sliding window from the operator's settings). */
void weir__diag_late(weir_ctx *ctx, int64_t ts, int64_t start, int64_t end, int64_t every,
                     bool dropped);
void weir__diag_merge(weir_ctx *ctx, int64_t start, int64_t end, int64_t merged);
void weir__diag_cleanup(weir_ctx *ctx, int64_t start, int64_t end);
/* Per subtask, every throughput interval and at its end. */
void weir__diag_sample(weir__subtask *sub, int64_t now, bool final);
/* Checkpoints: a subtask's snapshot (its worker), and the coordinator's
 * trigger and end (its thread: the job-level ring). */
void weir__diag_checkpoint(weir__subtask *sub, int64_t id, int64_t align_us, int64_t held_bytes,
                           int64_t bytes, double snapshot_ms);
void weir__diag_checkpoint_trigger(weir_job *job, int64_t id, bool savepoint);
void weir__diag_checkpoint_end(weir_job *job, int64_t id, bool aborted, int64_t bytes,
                               int64_t duration_ms, const char *reason);

/* A record the operator takes in, at standard level and above (the caller
 * checked): keeps the interval's largest timestamp for the next throughput
 * event and, at verbose, writes a `record` event. */
void weir__diag_record_event(weir_ctx *ctx, int64_t ts);
static inline void weir__diag_record(weir_ctx *ctx, int64_t ts)
{
    if (ts > ctx->diag.max_ts)
        ctx->diag.max_ts = ts;
    if (ctx->diag.level >= WEIR_DIAG_VERBOSE)
        weir__diag_record_event(ctx, ts);
}
/* The same for a batch the operator takes in whole (on_batch). */
void weir__diag_batch(weir_ctx *ctx, const weir_batch *b);

/* What the collector and the producers of a job's diagnostic channel did in
 * its run (all zero before the channel stopped, or with diagnostics off). The
 * tests read it; the job's thread writes it when the channel stops. */
typedef struct weir__diag_stats {
    int64_t events;                  /* written, job and summary included */
    int64_t dropped;                 /* as in the summary */
    int64_t waited;                  /* lossless: events that waited for room */
    int64_t empty_polls;             /* short sleeps with every ring empty */
    int64_t parks;                   /* times it parked until woken */
    uint32_t ring_size;              /* events a worker's ring held */
} weir__diag_stats;
weir__diag_stats weir__diag_job_stats(const weir_job *job);

#endif
