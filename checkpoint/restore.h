/* restore.h — the checkpoint a job restores: opened and verified on the
 * job's thread before anything runs (newer ones that do not verify skipped
 * and reported), its operators matched to the job's by uid, and every
 * operator subtask's file read and parsed, for the workers to restore from
 * (snapshot.c) without touching the disk.
 */
#ifndef WEIR_CHECKPOINT_RESTORE_H
#define WEIR_CHECKPOINT_RESTORE_H

#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>

#include "checkpoint_store.h"

typedef struct weir_job weir_job;

/* One operator of the checkpointed job. */
typedef struct weir__restore_op {
    char *uid;
    int parallelism;
    bool keyed;
    bool is_source;
    int node;                  /* the job's node with this uid, -1: none */
    msgpack_unpacked *pieces;  /* per old subtask: its parsed file */
} weir__restore_op;

typedef struct weir__restore {
    weir__chk chk;
    int64_t id;
    int64_t time_ms;       /* the job clock when the checkpoint was taken */
    uint32_t max_parallelism;
    weir__restore_op *ops;
    int nops;
    int *op_of_node;       /* [node id]: index in ops, -1: fresh */
} weir__restore;

/* Before planning: opens checkpoint.restore_from (if set) into
 * job->restore, which fixes the job's max parallelism, and says what it
 * found in job->restored (the newer checkpoints skipped, each with why: the
 * library prints nothing). 0 or a WEIR_E* code (recorded). */
int weir__restore_open(weir_job *job);
/* After planning: matches the checkpoint's operators to the plan's and
 * refuses what cannot be restored (an operator the job lacks without
 * allow_non_restored_state, a source or a stateful operator at another
 * parallelism than allowed, a keyed one above the max parallelism). 0 or a
 * WEIR_E* code (recorded). */
int weir__restore_match(weir_job *job);
void weir__restore_free(weir__restore *r);

#endif
