/* job_state.h — the inside of a weir_job: configuration, graph, the first
 * error, the plan of a run and its workers. Shared by the runtime files. */
#ifndef WEIR_RUNTIME_JOB_STATE_H
#define WEIR_RUNTIME_JOB_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "clock.h"
#include "checkpoint_hooks.h"
#include "diag.h"
#include "error_slot.h"
#include "graph.h"
#include "scheduler.h"
#include "task.h"
#include "weir/job.h"

struct weir__diag;

struct weir_job {
    weir_job_config cfg;       /* defaults resolved; paths point at our copies */
    char *jsonl_path;
    char *msgpack_path;
    char *http_addr;           /* cfg.http_addr's copy */
    /* The port the HTTP server listens on, 0 when it does not (diag/live.c
     * stores it, weir_job_http_port reads it from any thread). */
    _Atomic int http_port;
    weir__graph graph;

    weir__errors errors;

    bool ran;
    weir__clock clock;
    weir__plan *plan;
    weir__worker *workers;
    int nworkers;
    /* Subtasks not finished: fetch_sub by the worker that finished one; the
     * one that takes it to 0 stops the job. Relaxed would do for the count
     * (the join orders what comes after), seq_cst is used. */
    _Atomic int remaining;
    /* Finished or failed: workers leave. Set seq_cst before the workers are
     * woken; their loop reads it relaxed (a stale 0 costs one more round,
     * and the wake-up that follows the store makes them look again). */
    _Atomic int stop;
    /* weir_job_cancel was called (any thread, a signal handler): the
     * workers fail the run with WEIR_ECANCELED at their next look. Stored
     * seq_cst before the wake-ups; read relaxed in the loop (a stale 0 costs
     * one more step) and seq_cst in park()'s last look. */
    _Atomic int cancel;
    /* The eventfd a source waiting for its input polls beside it
     * (weir_source_wait_fd), or -1 until the first such wait makes it:
     * cancelling and stopping write to it, so the wait ends with the job.
     * Set once by a CAS, closed by weir_job_destroy; seq_cst (the waiter's
     * set-then-look-at-cancel against cancel's store-then-load-this). */
    _Atomic int wake_fd;
    /* How many of workers[] weir_job_cancel may wake: stored once their wake
     * words are ready, before any thread starts (the array lives until
     * weir_job_destroy); seq_cst. */
    _Atomic int published;
    /* Workers not parked (virtual clock). Only RMWs, seq_cst: their single
     * modification order is what orders each worker's published deadline
     * (weir__worker.due) before the advance that reads it. */
    _Atomic int running;
    struct weir__diag *diag;
    /* Steps that found their subtask's output still full and did nothing,
     * summed over the subtasks when the workers have been joined: a blocked
     * subtask runs only when credit comes back, so this stays near the
     * number of credits (the tests check it). */
    unsigned long futile_steps;
    /* Spins before parking that ran all their looks without finding work or
     * yielding their CPU to a thread that wanted it, summed over the workers
     * when they have been joined. Where workers share a CPU the waiting one
     * yields it to the other, so a hand-off costs no spin to the end (the
     * tests check it). */
    unsigned long spins_to_end;
    /* Parks of the workers (scheduler.c, park: a worker that stopped
     * counting itself as running), summed the same way: an idle pipeline
     * parks its workers instead of spinning (the tests check it). */
    unsigned long parks;
    /* Producers waiting for credit that a consumer woke, summed the same
     * way: once per half a channel's pool of returned batches, not once
     * per batch (channel.h, wake_credits; the tests check it). */
    unsigned long credit_wakes;
    /* Every subtask step of the run, summed the same way (the tests of the
     * virtual clock count the work a run took). */
    unsigned long steps;
    weir__diag_stats diag_stats; /* set when the diagnostic channel stops */

    /* Checkpoints: copies of the config's paths, the key groups in use (the
     * config's, or a restored checkpoint's), the words the subtasks read,
     * and what only checkpoint/ looks into (checkpoint_hooks.h): the
     * coordinator, the checkpoint being restored and what its opening
     * found. */
    char *chk_dir;
    char *chk_restore_from;
    uint32_t max_parallelism;
    weir__chk_state chk;
    struct weir__coord *coord;
    struct weir__restore *restore;
    weir__restore_report restored;
};

/* Records the job's first error (later ones are ignored) and returns err,
 * from a builder call, the planner or a worker. MT safe. (The public
 * weir_job_record_error is the same for a job that may be NULL.) */
#define weir__job_fail(job, ...) weir__errors_set(&(job)->errors, __VA_ARGS__)

/* plan.c */
int weir__plan_build(weir_job *job, weir__plan **out);
void weir__plan_free(weir__plan *plan);

#endif
