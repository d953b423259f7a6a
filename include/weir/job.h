/* weir/job.h — a job: the logical graph a user builds, and its one run.
 *
 * Lifetime: weir_job_create() ... build streams (weir/stream.h) ...
 * weir_job_run() once ... weir_job_destroy(). Building and running happen on
 * the caller's thread; weir_job_run() starts the worker threads, blocks until
 * every subtask has finished (or the job failed, or was cancelled), and joins
 * them before it returns. A job is not MT safe: one thread builds, runs and
 * destroys it; only weir_job_cancel() may be called from elsewhere.
 *
 * Errors: the job keeps the first error's message — a bad configuration found
 * while building or planning (which call, what is wrong), or an operator's
 * failure at run time (operator name, subtask, what happened) — for
 * weir_job_error(). A builder call that fails returns NULL (or a negative
 * code) and records why; calls given a NULL stream return NULL, so a pipeline
 * can be built without checking every step and weir_job_run() reports the
 * first problem, before any thread starts.
 */
#ifndef WEIR_JOB_H
#define WEIR_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "weir/diag.h"
#include "weir/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_job weir_job;

typedef enum weir_clock_kind {
    /* Processing time is the monotonic system clock, in ms since the run started. */
    WEIR_CLOCK_SYSTEM = 0,
    /* Processing time is simulated, starting at 0. It never moves while any
     * subtask has work; when the whole job is quiescent it jumps to the
     * earliest pending processing-time deadline (a periodic watermark probe, an
     * idleness check, a buffer timeout, a timer, a source waiting until a given
     * time). With 1 worker a run is fully reproducible: same output, same
     * diagnostics. */
    WEIR_CLOCK_VIRTUAL = 1
} weir_clock_kind;

/* Flush output batches at the end of every step instead of after a timeout. */
#define WEIR_FLUSH_AT_ONCE (-1)

/* Zero in every field means the default given. */
typedef struct weir_job_config {
    int workers;                   /* worker threads; 0: number of online CPUs */
    int parallelism;               /* default operator parallelism; 0: 1 */
    int batch_capacity;            /* records per channel batch; 0: 512 */
    int channel_batches;           /* batches per channel (its memory bound); 0: 8 */
    /* A partly filled batch leaves at the latest this long after its first
     * record. 0: 5 ms; WEIR_FLUSH_AT_ONCE: at the end of the producing step. */
    int64_t buffer_timeout_ms;
    weir_clock_kind clock;
    /* Auto-watermark interval of timestamp assigners. 0: 200 ms;
     * WEIR_DISABLED: no periodic probes (only the final one). */
    int64_t watermark_interval_ms;
    bool disable_chaining;         /* every edge becomes a channel */
    weir_diag_config diag;
} weir_job_config;

/* Checks a configuration: 0, or WEIR_EINVAL with the setting and why in
 * `why` ("workers -1 is not in 0..256"). `config` may be NULL. MT safe. */
WEIR_EXPORT int weir_job_config_check(const weir_job_config *config, char *why, size_t whysize);

/* Makes an empty job. `config` may be NULL (all defaults); it is copied.
 * Returns 0 and sets *out, or WEIR_EINVAL (a setting out of range: *out is
 * NULL, nothing allocated, and weir_job_config_check says which) or
 * WEIR_ENOMEM. */
WEIR_EXPORT WEIR_NODISCARD int weir_job_create(const weir_job_config *config, weir_job **out);

/* Plans the graph into tasks, starts the workers, runs every subtask to its
 * end and joins the workers. Returns 0, or the first error: WEIR_EINVAL for a
 * bad graph (nothing started), WEIR_ECALLBACK (or the code a callback
 * returned) for an operator failure, after which the job was canceled
 * cleanly: every opened operator closed, nothing leaked; WEIR_ECANCELED
 * after weir_job_cancel(), as cleanly. A job runs once; a second call
 * returns WEIR_ESTATE. */
WEIR_EXPORT WEIR_NODISCARD int weir_job_run(weir_job *job);

/* Asks the job to stop: its run ends as soon as every worker has finished
 * the step it is in (a step handles one batch or one timer; a user callback
 * that never returns is not interrupted), every opened operator is closed,
 * the capture is finished with a summary that says "cancelled":true and the
 * error, and weir_job_run() returns WEIR_ECANCELED ("the job was cancelled
 * (weir_job_cancel)"). Called before weir_job_run() it makes the run end at
 * once (the capture is still written); called after the run ended it does
 * nothing. A capture written losslessly still waits for the collector to
 * take the events already made. Returns 0, or WEIR_EINVAL for NULL.
 *
 * MT safe and async-signal-safe: it only stores to atomics and makes a futex
 * system call, so it may be called from another thread or from a signal
 * handler (SIGINT, SIGTERM) while weir_job_run() runs on the job's thread,
 * any number of times. The job must not be destroyed meanwhile: a handler
 * that reaches the job through a pointer must stop using it before
 * weir_job_destroy() (weir_job_run() has joined every thread it started when
 * it returns, so a handler running on one of them is done by then). */
WEIR_EXPORT int weir_job_cancel(weir_job *job);

/* Frees the job, every stream handle of it and every sink result (collect
 * handles). NULL is allowed. Not while weir_job_run() is running. */
WEIR_EXPORT void weir_job_destroy(weir_job *job);

/* The first error's message, or "" if there was none. Owned by the job, valid
 * until the job is destroyed. The job's thread, not during weir_job_run()
 * (whose return value says whether to look). */
WEIR_EXPORT const char *weir_job_error(const weir_job *job);

/* The first error's code (0 if none). Same rules as weir_job_error(). */
WEIR_EXPORT int weir_job_error_code(const weir_job *job);

/* Records a build error as the job's first error (if it has none yet) and
 * returns err: for builder functions written on top of weir_stream_process()
 * that find a problem before calling it. weir_job_run() then fails with it. */
WEIR_EXPORT int weir_job_record_error(weir_job *job, int err, const char *fmt, ...)
    WEIR_PRINTF(3, 4);

/* The configuration with defaults resolved (after weir_job_create). Owned by
 * the job, valid until it is destroyed; it does not change, so any thread may
 * read it while the job lives. */
WEIR_EXPORT const weir_job_config *weir_job_get_config(const weir_job *job);

#ifdef __cplusplus
}
#endif
#endif
