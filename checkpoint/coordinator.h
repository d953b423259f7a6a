/* coordinator.h — a job's checkpoints while it runs (docs/CHECKPOINTS.md,
 * "Rules"): the coordinator's thread triggers checkpoint N at the sources,
 * collects every subtask's snapshot (its ack), writes the checkpoint's files
 * through the store (checkpoint_store.h) and then tells every subtask that N
 * is complete; the subtask side (barrier.c) aligns barriers, snapshots and
 * acks.
 *
 * Hand-offs. Triggering: the coordinator stores `trigger` (seq_cst) and
 * wakes every source subtask (weir__sched_wake, whose queueing RMW orders
 * the store before the source's next look). Acks go the other way through a
 * list under a mutex (a few per checkpoint, never per record: a lock is the
 * plainest hand-off) and a futex word the coordinator sleeps on. Completion: `completed` stored
 * seq_cst after the files are durable, then every subtask woken; a subtask
 * runs notify_complete on its own worker when it sees `completed` move.
 *
 * A subtask that sends END first acks its final snapshot (taken after
 * on_end: what it would hold for every later checkpoint, since all its
 * input came before any later barrier) and waits, before it closes, until
 * the job's final checkpoint — the one made of every subtask's final
 * snapshot — is complete and it was told so: that is when a two-phase
 * sink commits the end of its output (Flink's final checkpoint).
 */
#ifndef WEIR_CHECKPOINT_COORDINATOR_H
#define WEIR_CHECKPOINT_COORDINATOR_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checkpoint_hooks.h"
#include "weir/job.h"

/* A savepoint asked for by weir_job_savepoint (another thread), answered
 * by the coordinator under the lock. */
typedef struct weir__savepoint {
    const char *dir;
    bool stop;
    bool done;
    int result;
    int64_t id;
    char why[512];
} weir__savepoint;

/* A job's coordinator (job->coord: made with the job, freed with it); the
 * words the subtasks read are the job's (job->chk, checkpoint_hooks.h). */
typedef struct weir__coord {
    _Atomic int stop;
    _Atomic uint32_t wake; /* futex word: bumped by every ack and by stop */
    pthread_mutex_t ack_lock;
    weir__ack *acks; /* handed over, not taken yet (any order) */
    pthread_t thread;
    bool started;

    /* The coordinator's thread only. */
    int64_t next_id;
    int64_t pending;       /* 0: none */
    int64_t pending_since; /* ms, job clock */
    int64_t last_end;      /* ms: when the last checkpoint completed or aborted */
    bool final_written;
    bool last_all_final;   /* the last completed checkpoint was all final snapshots */
    weir__ack **have;      /* per subtask: its ack for `pending` */
    weir__ack **final;     /* per subtask: its final snapshot */
    int nfinal;
    int nsubs;

    /* Savepoints: `asked` (under sp_lock) is the request in progress;
     * `pending_savepoint` says the pending checkpoint is it. */
    pthread_mutex_t sp_lock;
    pthread_cond_t sp_done;
    weir__savepoint *asked;
    bool pending_savepoint;
    bool stopping;         /* stop-with-savepoint: waiting for every subtask's notify */
    int64_t stop_id;

    /* Read by weir_job_checkpoint_stats from any thread. */
    pthread_mutex_t stats_lock;
    weir_checkpoint_stats stats;
} weir__coord;

/* The hooks of checkpoint_hooks.h: made and freed with the job; set up
 * for the planned job (checkpoints on or off, job->chk) and its thread
 * started if they are on; the thread stopped and joined and what is left
 * freed (acks not written); an ack handed over (a worker). */
int weir__coord_create(weir_job *job);
void weir__coord_destroy(weir_job *job);
int weir__coord_start(weir_job *job);
void weir__coord_stop(weir_job *job);
void weir__coord_ack(weir_job *job, weir__ack *ack);

/* The job's thread, before the run: the stats of a restore (restore.c):
 * the checkpoint restored, how many newer ones were skipped and the last
 * one's reason (NULL: none). */
void weir__coord_note_restore(weir__coord *c, int64_t restored_id, int skipped,
                              const char *last_skip);

#endif
