/* inbox.h — what reaches an operator while it is held: records and control
 * messages (watermark, status, END) kept in arrival order until the operator
 * can take them (context.c, "suspended firing").
 *
 * An operator is held while an event-time firing of its own is suspended
 * (its output is full) or while its inbox is not empty: whatever its parent
 * in the chain, or the subtask's valves, hand it meanwhile must wait behind
 * the rest of that firing, or the order "everything emitted before W arrives
 * before W" would break. Records keep their slot layout ([ts][elem]) in one
 * growing buffer; each control message remembers how many records came
 * before it. What fills an inbox is bounded by what one callback emits after
 * the subtask's output blocked (every firing and every input loop stops at a
 * blocked output), the same bound as a channel's pending list.
 *
 * Single-threaded: the subtask's worker.
 */
#ifndef WEIR_RUNTIME_INBOX_H
#define WEIR_RUNTIME_INBOX_H

#include <stdbool.h>
#include <stdint.h>

#include "channel.h"
#include "weir/operator.h"

typedef struct weir__inbox_control {
    uint32_t after;  /* records queued before it */
    uint8_t ctrl;    /* weir__ctrl */
    int64_t value;
} weir__inbox_control;

typedef struct weir__inbox {
    unsigned char *slots;
    uint32_t nslots, slot_cap, stride;
    weir__inbox_control *controls;
    uint32_t ncontrols, control_cap;
    uint32_t read_slot, read_control; /* what was taken out already */
} weir__inbox;

static inline bool weir__inbox_empty(const weir__inbox *ib)
{
    return ib->read_slot == ib->nslots && ib->read_control == ib->ncontrols;
}

/* Appends a run of records (copied). 0 or WEIR_ENOMEM. */
int weir__inbox_records(weir__inbox *ib, const weir_batch *b);
/* Appends a control message. 0 or WEIR_ENOMEM. */
int weir__inbox_control_add(weir__inbox *ib, weir__ctrl ctrl, int64_t value);

/* The next thing to take out: a run of records (returns true, *run set, the
 * run counted as taken) or a control message (returns false, *control set
 * and taken). Only when not empty. */
bool weir__inbox_take(weir__inbox *ib, weir_batch *run, weir__inbox_control *control);

void weir__inbox_free(weir__inbox *ib);

#endif
