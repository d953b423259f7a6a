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
    /* Processing time is simulated, starting at 0. When the whole job is
     * quiescent it jumps to the earliest pending processing-time deadline (a
     * periodic watermark probe, an idleness check, a buffer timeout, a timer,
     * a source waiting until a given time). While the job is busy it
     * advances with the work done: 1 ms for every 100 records a source
     * subtask emits since the clock last moved (10 us a record), so periodic
     * watermarks keep their period in a job whose source never waits (one
     * read at full speed). With 1 worker a run is fully reproducible: same
     * output, same diagnostics. */
    WEIR_CLOCK_VIRTUAL = 1
} weir_clock_kind;

/* Flush output batches at the end of every step instead of after a timeout. */
#define WEIR_FLUSH_AT_ONCE (-1)

/* How barriers are handled at a subtask with several input channels
 * (docs/CHECKPOINTS.md, "Rules"). */
typedef enum weir_checkpoint_mode {
    /* Aligned barriers: input after a barrier waits until the barrier came on
     * every open channel. A restore replays nothing twice. */
    WEIR_CHECKPOINT_EXACTLY_ONCE = 0,
    /* Barriers are counted, not aligned: nothing waits, and a restore may
     * replay records that were processed after the barrier (duplicates,
     * never losses). */
    WEIR_CHECKPOINT_AT_LEAST_ONCE = 1
} weir_checkpoint_mode;

/* Checkpoints and restore (docs/CHECKPOINTS.md). Zero in every field means
 * the default given; all zero: no checkpoints, no restore. */
typedef struct weir_checkpoint_config {
    /* Trigger a checkpoint every this many ms of processing time; 0: never
     * by time (with `dir` set the job still takes savepoints and its final
     * checkpoint; a job restores from `restore_from` either way). */
    int64_t interval_ms;
    /* The job's checkpoint folder (the parent of its chk-N folders); made if
     * missing. Required with interval_ms; set alone, the job checkpoints only
     * on demand (weir_job_savepoint) and at its end. Copied. */
    const char *dir;
    weir_checkpoint_mode mode;
    /* A checkpoint not complete this long after its trigger is aborted
     * (reported; the job goes on). 0: 600 000 ms. */
    int64_t timeout_ms;
    /* At least this long between the end of one checkpoint and the trigger
     * of the next. 0: none. */
    int64_t min_pause_ms;
    /* Complete checkpoints kept in `dir`; 0: 3. */
    int retain;
    /* Restore from this chk-N folder, or from the newest complete checkpoint
     * of this parent folder (newer ones that do not verify are skipped:
     * each is a checkpoint_restore event of the capture with its reason, and
     * counted in weir_job_checkpoint_stats; weir prints nothing). NULL:
     * start from nothing. Copied. */
    const char *restore_from;
    /* Restoring a checkpoint that holds state for an operator the job no
     * longer has (by uid, weir_stream_set_uid) is an error unless set. */
    bool allow_non_restored_state;
} weir_checkpoint_config;

/* Zero in every field means the default given. */
typedef struct weir_job_config {
    int workers;                   /* worker threads; 0: number of online CPUs */
    int parallelism;               /* default operator parallelism; 0: 1 */
    int batch_capacity;            /* records per channel batch, and at most in a chained
                                      operator's buffer (which holds 32 KB at most); 0: 512 */
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
    /* Key groups of keyed state (docs/CHECKPOINTS.md, "Key groups"): the
     * largest parallelism a keyed operator can be restored at. 0: 128, or
     * more for a job whose parallelism is above 128 (as Flink: 1.5 times the
     * largest parallelism, rounded up to a power of two). A restore takes
     * the checkpoint's. */
    int max_parallelism;
    weir_checkpoint_config checkpoint;
    /* Serve the running job over HTTP (docs/LIVE.md): "HOST:PORT", HOST an
     * IPv4 address, "localhost" or a bracketed IPv6 address ("[::1]:8081");
     * port 0 picks a free one (weir_job_http_port says which). The server
     * runs on its own thread from the start of weir_job_run() to its end and
     * reads only what the diagnostic channel gathers (which it turns on at
     * the configured level, standard by default): the viewer in live mode
     * (/), its Server-Sent Events (/events), Prometheus metrics (/metrics)
     * and JSON shaped as Flink's REST API (/jobs...). Read-only. NULL: no
     * server. Copied. Last: appended. */
    const char *http_addr;
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

/* What the job's checkpoints did (docs/CHECKPOINTS.md). */
typedef struct weir_checkpoint_stats {
    int64_t restored_id;   /* the checkpoint the run restored; 0: none */
    int skipped;           /* newer checkpoints the restore skipped (each in the
                            * capture: checkpoint_restore) */
    int64_t completed;     /* checkpoints completed in this run */
    int64_t aborted;       /* checkpoints aborted (timed out, overtaken, failed to write) */
    int64_t last_completed_id;
    int64_t last_bytes;    /* state bytes of the last completed checkpoint */
    int64_t max_bytes;     /* of the largest completed checkpoint */
    int64_t last_duration_ms; /* its trigger to completion */
    double max_alignment_ms;  /* the longest a subtask held input for a barrier */
    /* Why the last checkpoint was aborted, or why a skipped one was, "" if none. */
    char last_problem[512];
} weir_checkpoint_stats;

/* The job's checkpoint statistics so far: during weir_job_run() from any
 * thread (values may lag by one checkpoint), or after it. 0, or WEIR_EINVAL. */
WEIR_EXPORT int weir_job_checkpoint_stats(const weir_job *job, weir_checkpoint_stats *out);

/* Takes a savepoint now, from any thread while weir_job_run() runs: a
 * checkpoint on demand, written as chk-N into `dir` (made if missing; never
 * pruned), which checkpoint.restore_from can name later. Waits until it is
 * complete. With `stop` the job then ends (Flink's stop-with-savepoint):
 * once every operator has been told the savepoint completed (a two-phase
 * sink has committed up to it), weir_job_run() returns WEIR_ECANCELED with
 * "stopped with savepoint N in DIR". The job needs checkpoint.dir (or
 * checkpoint.interval_ms). Returns 0 and sets *id (may be NULL), or
 * WEIR_ESTATE (not running with checkpoints, another savepoint in
 * progress, the job finished), WEIR_EIO (it failed or timed out), or
 * WEIR_ECANCELED (the job ended first), with why (may be NULL). */
WEIR_EXPORT int weir_job_savepoint(weir_job *job, const char *dir, bool stop, int64_t *id,
                                   char *why, size_t whysize);

/* The configuration with defaults resolved (after weir_job_create). Owned by
 * the job, valid until it is destroyed; it does not change, so any thread may
 * read it while the job lives. */
WEIR_EXPORT const weir_job_config *weir_job_get_config(const weir_job *job);

/* The TCP port the job's HTTP server listens on (http_addr), 0 while it is
 * not listening (before weir_job_run() bound it, after the run ended, or
 * without http_addr). MT safe: any thread, during the run. */
WEIR_EXPORT int weir_job_http_port(const weir_job *job);

#ifdef __cplusplus
}
#endif
#endif
