/* barrier.h — a subtask's side of checkpoints (barrier.c): injecting
 * barriers at sources, aligning them at inputs, snapshotting and forwarding
 * them, the final snapshot at END, and notify_complete. Worker thread only,
 * called from the subtask's step (subtask.c). Every function does nothing
 * (or answers as if there were no checkpoints) in a job without them.
 */
#ifndef WEIR_RUNTIME_BARRIER_H
#define WEIR_RUNTIME_BARRIER_H

#include <stdbool.h>
#include <stdint.h>

#include "task.h"

/* Barrier `id` came on channel `ch` (its batch already released). */
void weir__barrier_received(weir__subtask *sub, weir__channel *ch, int64_t id);
/* A channel of the subtask ended: it stops being waited for. */
void weir__barrier_channel_ended(weir__subtask *sub);
/* Whether channel `ch`'s input is held for an alignment. */
static inline bool weir__barrier_holds(const weir__channel *ch)
{
    return ch->barrier_held;
}
/* A source subtask, between two next() calls: whether a checkpoint was
 * triggered that it has not injected yet (then it is due). */
bool weir__barrier_poll_source(weir__subtask *sub);
/* Whether a step has checkpoint work: a trigger to inject, a completion to
 * tell the operators of. */
bool weir__barrier_pending(const weir__subtask *sub);
/* Snapshots the subtask and sends the due barrier on every output, once no
 * operator is held; notify_complete for a newly completed checkpoint.
 * 0 or a negative error. */
int weir__barrier_step(weir__subtask *sub);
/* Before END leaves: the final snapshot. 0 or a negative error. */
int weir__barrier_final(weir__subtask *sub);
/* Whether a subtask that sent END may close: the job's final checkpoint is
 * complete and the operators were told (always, without checkpoints). */
bool weir__barrier_may_finish(const weir__subtask *sub);

#endif
