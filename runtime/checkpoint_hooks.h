/* checkpoint_hooks.h — all the runtime knows of checkpoints (docs/
 * CHECKPOINTS.md): the words the subtasks' barrier protocol reads, which the
 * checkpoint coordinator writes; the ack a subtask hands over with its
 * snapshot; what a restore found, for the job and the capture; and the table
 * of hooks through which the runtime calls into checkpoint/, which fills it
 * in (checkpoint/hooks.c). The runtime includes nothing of checkpoint/: this
 * header is the wall between them, as channel.h's events keep the channel
 * ignorant of the scheduler. checkpoint/ may use the runtime's internals.
 */
#ifndef WEIR_RUNTIME_CHECKPOINT_HOOKS_H
#define WEIR_RUNTIME_CHECKPOINT_HOOKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct weir_job weir_job;
typedef struct weir_ctx weir_ctx;
struct weir__subtask;

/* The coordinator's words every subtask reads (job->chk). `enabled` and
 * `exactly_once` are set before any worker starts and read-only after.
 * trigger: the highest checkpoint triggered (a source subtask injects a
 * barrier when it is above the last one it injected); completed: the
 * highest complete on disk (notify_complete); final_done: the job's final
 * checkpoint is complete, finished subtasks may close. The coordinator
 * stores them seq_cst and then wakes the subtasks (coordinator.h). */
typedef struct weir__chk_state {
    bool enabled;
    bool exactly_once;
    _Atomic int64_t trigger;
    _Atomic int64_t completed;
    _Atomic int final_done;
} weir__chk_state;

/* One operator subtask's state in a snapshot: a msgpack map (snapshot.c). */
typedef struct weir__snap_piece {
    void *data;
    size_t len;
} weir__snap_piece;

/* What a subtask hands the coordinator: its snapshot for checkpoint `id`,
 * or its final one. Made by the subtask (barrier.c), owned by the
 * coordinator once handed over; weir__ack_free frees it. */
typedef struct weir__ack {
    struct weir__ack *next;
    int64_t id;
    bool final;
    int sub;              /* index in plan->subs */
    int64_t align_ns;     /* input held for this barrier */
    int npieces;          /* one per operator of the subtask, chain order */
    weir__snap_piece *pieces;
} weir__ack;

void weir__ack_free(weir__ack *ack);

/* What a restore found (job->restored), set before planning and read-only
 * after: the checkpoint restored (id 0: none), its folder, the job clock
 * when it was taken, and the newer checkpoints skipped on the way with why
 * (naming the file), newest first; the capture's checkpoint_restore events
 * and the stats report them. Owned by the job (weir__restore_report_free). */
typedef struct weir__restore_report {
    int64_t id;
    char *path;
    int64_t time_ms;
    int nskipped;
    char **skip_reasons; /* the first nreasons of them (fewer when out of memory) */
    int nreasons;
} weir__restore_report;

void weir__restore_report_free(weir__restore_report *r);

/* The hooks. Every one is called on the job's thread unless it says
 * otherwise; those returning int return 0 or a WEIR_E* code recorded in
 * the job. */
typedef struct weir__chk_hooks {
    /* weir_job_create / weir_job_destroy: the coordinator's own state
     * (job->coord), which weir_job_savepoint and weir_job_checkpoint_stats
     * may reach from another thread at any time in between. */
    int (*create)(weir_job *job);
    void (*destroy)(weir_job *job);
    /* Before planning: opens checkpoint.restore_from, if set (job->restore,
     * job->restored; it fixes the job's max parallelism). */
    int (*restore_open)(weir_job *job);
    /* After planning: matches the checkpoint's operators to the plan's. */
    int (*restore_match)(weir_job *job);
    /* A subtask's worker, at open: its operators' state from the restored
     * checkpoint. */
    int (*restore_subtask)(struct weir__subtask *sub);
    /* Once the workers are made, before they start: sets job->chk and
     * starts the coordinator's thread if checkpoints are on. */
    int (*start)(weir_job *job);
    /* After the workers joined: stops and joins that thread. */
    void (*stop)(weir_job *job);
    /* A subtask's worker: an operator's snapshot for checkpoint `id`, and
     * handing the subtask's ack over (ownership passes). */
    int (*snapshot)(weir_ctx *ctx, int64_t id, weir__snap_piece *out);
    void (*ack)(weir_job *job, weir__ack *ack);
} weir__chk_hooks;

/* Filled in by checkpoint/hooks.c. */
extern const weir__chk_hooks weir__checkpoint_hooks;

#endif
