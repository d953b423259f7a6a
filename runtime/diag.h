/* diag.h — the runtime's side of the diagnostic channel: the calls every
 * instrumented site makes, each behind one predictable level check.
 *
 * A context carries its resolved level (WEIR_DIAG_OFF when the job has no
 * sink), so with diagnostics off every site costs one compare of a field
 * already in cache. The events themselves are built into a per-worker ring
 * and written by the collector thread (diag.c).
 */
#ifndef WEIR_RUNTIME_DIAG_H
#define WEIR_RUNTIME_DIAG_H

#include <stdbool.h>
#include <stdint.h>

#include "task.h"
#include "util.h"
#include "weir/diag.h"

#define WEIR__DIAG_ON(ctx, level) WEIR__UNLIKELY((ctx)->diag_level >= (level))

struct weir__diag;

/* Job lifecycle (job thread): start creates sinks, rings and the collector
 * thread and writes the job event; stop writes the summary and joins. */
int weir__diag_start(weir_job *job);
void weir__diag_stop(weir_job *job);
/* Gives every worker its ring and starts the collector (after the
 * scheduler made the workers, before they start). */
int weir__diag_attach_workers(weir_job *job);
/* The level sites compare against (OFF when no sink is configured). */
int weir__diag_effective_level(const weir_job *job);

/* Sites (worker threads). */
void weir__diag_watermark(weir_ctx *ctx, int64_t wm);
void weir__diag_status(weir_ctx *ctx, bool idle);
void weir__diag_valve_watermark(weir_ctx *head, int input, int channel, int64_t wm, int held_by);
void weir__diag_valve_status(weir_ctx *head, int input, int channel, bool idle);
void weir__diag_record(weir_ctx *ctx, int64_t ts);
void weir__diag_window_fire(weir_ctx *ctx, int64_t start, int64_t end, int firing, int64_t count);
void weir__diag_late(weir_ctx *ctx, int64_t ts, int64_t start, int64_t end, bool dropped);
void weir__diag_merge(weir_ctx *ctx, int64_t start, int64_t end, int64_t merged);
void weir__diag_cleanup(weir_ctx *ctx, int64_t start, int64_t end);
/* Per subtask, every throughput interval and at its end. */
void weir__diag_sample(weir__subtask *sub, int64_t now, bool final);

#endif
