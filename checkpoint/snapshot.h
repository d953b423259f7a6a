/* snapshot.h — one operator subtask's state in a checkpoint and back
 * (docs/CHECKPOINTS.md, "An operator subtask's file"): what the runtime owns
 * of it (event time at its input and output, its valves when it heads its
 * subtask, its keyed state and timers) and what its snapshot hook wrote.
 *
 * Snapshotting runs on the subtask's worker when a barrier is aligned;
 * restoring runs there too, after open(), from the checkpoint the job
 * opened before it started (restore.c), which the workers only read.
 */
#ifndef WEIR_CHECKPOINT_SNAPSHOT_H
#define WEIR_CHECKPOINT_SNAPSHOT_H

#include <msgpack.h>
#include <stdint.h>

#include "checkpoint_hooks.h"

struct weir_ctx;
struct weir__subtask;

/* The context's snapshot for checkpoint `id` as one msgpack map into *out
 * (malloc'ed). 0, or a WEIR_E* code (the context failed with a message). */
int weir__snapshot_ctx(struct weir_ctx *ctx, int64_t id, weir__snap_piece *out);

/* Restores every operator of the subtask that the job's restored checkpoint
 * has state for. Right after the subtask's open. 0, or a WEIR_E* code (the
 * context failed with a message). */
int weir__restore_subtask(struct weir__subtask *sub);

#endif
