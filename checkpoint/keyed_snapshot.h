/* keyed_snapshot.h — a keyed context's runtime-owned state (its declared
 * value and list states and its event- and processing-time timers) written
 * into a snapshot and read back, by key group (docs/CHECKPOINTS.md, "Key
 * groups" and "Keyed state in a snapshot").
 *
 * Key groups (key_group.h) are Flink's KeyGroupRangeAssignment. A snapshot
 * tags every entry with its key group,
 * so that a snapshot taken at parallelism p restores at any q <=
 * max_parallelism: each restoring subtask reads every old subtask's snapshot
 * that overlaps its range and keeps the entries of its own key groups.
 *
 * The state's operator declares the same states (weir_state_declare, in the
 * same order, kinds and sizes) in open() before a restore; the restore
 * checks that it did. Timers come back in the order they were registered,
 * so equal-timestamp timers fire in the same order as before.
 */
#ifndef WEIR_CHECKPOINT_KEYED_SNAPSHOT_H
#define WEIR_CHECKPOINT_KEYED_SNAPSHOT_H

#include <msgpack.h>
#include <stddef.h>
#include <stdint.h>

#include "key_group.h"

struct weir_ctx;

/* Writes the context's keyed state and timers as one msgpack map. 0, or
 * WEIR_ENOMEM (the packer could not grow). */
int weir__keyed_snapshot(struct weir_ctx *ctx, uint32_t max_parallelism, msgpack_packer *pk);
/* At least the bytes weir__keyed_snapshot packs for ctx now (a little
 * more): the snapshot's buffer is made that large at once. */
size_t weir__keyed_snapshot_bound(const struct weir_ctx *ctx);

/* Adds the entries of `snapshot` (one weir__keyed_snapshot map) whose key
 * group is in [first, last] to the context's state and timers. 0, or a
 * WEIR_E* code with a message in err (a snapshot of another shape, or of
 * states the operator did not declare the same way). Entries of timers of a
 * context that is not keyed (no key: key group 0) go to the owner of key
 * group 0. */
int weir__keyed_restore(struct weir_ctx *ctx, const msgpack_object *snapshot,
                        uint32_t max_parallelism, uint32_t first, uint32_t last, char *err,
                        size_t errsize);

#endif
