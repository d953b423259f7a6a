/* subtask.h — stepping one subtask (subtask.c). Worker thread only. */
#ifndef WEIR_RUNTIME_SUBTASK_H
#define WEIR_RUNTIME_SUBTASK_H

#include <stdbool.h>
#include <stdint.h>

#include "task.h"

/* One bounded step at processing time `now`. Returns 0 (still running), 1
 * (finished: closed, END sent) or a negative error (the job must fail). */
int weir__subtask_step(weir__subtask *sub, int64_t now);
/* Whether a step now would do work. */
bool weir__subtask_ready(weir__subtask *sub, int64_t now);
/* Sends on what the subtask's operators emitted so far: chained records
 * down their chains, then every partial batch into its channel. For a
 * source about to wait for its input (weir_source_wait_fd) in the middle of
 * a step: what it read before a quiet spell is not held back until the
 * buffer timeout, which on the virtual clock would not come while it waits.
 * 0 or a negative error. */
int weir__subtask_flush(weir__subtask *sub);
/* Closes every opened operator of the subtask (idempotent). */
void weir__subtask_close(weir__subtask *sub);

/* A watermark / status on channel `channel` of input `input`, through the
 * valve and the combiner into the head operator (the harness feeds these
 * directly). */
int weir__subtask_valve_watermark(weir__subtask *sub, int input, int channel, int64_t wm);
int weir__subtask_valve_status(weir__subtask *sub, int input, int channel, bool idle);

#endif
