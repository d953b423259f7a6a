/* valve.h — the three pieces of watermark logic every subtask runs: the
 * output gate, the valve that merges the channels of one input, and the
 * combination of several inputs (SEMANTICS.md 1, 3 and 4).
 *
 * All three are pure state machines: a call takes one message and returns the
 * messages to pass on, in order, as a weir__wm_actions (at most two: "maybe a
 * watermark, then IDLE" or "ACTIVE, then maybe a watermark"). The runtime, the
 * harness and the unit tests drive the same code; nothing here allocates after
 * init, locks or calls out.
 */
#ifndef WEIR_RUNTIME_VALVE_H
#define WEIR_RUNTIME_VALVE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum weir__wm_action_kind {
    WEIR__ACT_WATERMARK = 1,
    WEIR__ACT_IDLE = 2,
    WEIR__ACT_ACTIVE = 3
} weir__wm_action_kind;

typedef struct weir__wm_actions {
    int n;
    struct {
        weir__wm_action_kind kind;
        int64_t watermark; /* WEIR__ACT_WATERMARK only */
    } act[2];
} weir__wm_actions;

/* ---- the output gate (SEMANTICS.md 1) --------------------------------------
 * A watermark leaves only if strictly above the last that left (so MIN never
 * leaves); if the output is idle, ACTIVE leaves first. IDLE and ACTIVE leave
 * only on a change. */
typedef struct weir__gate {
    int64_t last;
    bool idle;
} weir__gate;

void weir__gate_init(weir__gate *g);
weir__wm_actions weir__gate_watermark(weir__gate *g, int64_t watermark);
weir__wm_actions weir__gate_status(weir__gate *g, bool idle);

/* ---- the valve: channels of one input (SEMANTICS.md 3) ---------------------
 * Per channel: wm (MIN), idle (false), aligned (true). Output: last_wm (MIN),
 * last_idle (false). Storage for the channel arrays is the caller's.
 *
 * The minimum over aligned channels is kept in a tournament tree, so that a
 * watermark costs O(log n) and the channel holding the minimum back is read
 * at once, whatever the fan-in (a p x p shuffle would otherwise rescan p
 * channels per watermark, and again for held_by). Node k (1 <= k < n) holds
 * the winner of its two children 2k and 2k+1: the aligned channel with the
 * lowest watermark, the lowest index among equals, or -1; node n + c is
 * channel c itself. Internal node k lives in ch[k].winner, in the caller's
 * storage, so the valve still allocates nothing. The maximum over all
 * channels (for the flush when every channel goes idle) is a running
 * maximum: a channel's watermark never decreases. */
typedef struct weir__valve_channel {
    int64_t wm;
    bool idle;
    bool aligned;
    int32_t winner; /* tournament node `index` (1..n-1): its winning channel or -1 */
} weir__valve_channel;

typedef struct weir__valve {
    int n;
    weir__valve_channel *ch;
    int64_t last_wm;
    bool last_idle;
    int active;     /* channels not idle */
    int64_t max_wm; /* the largest wm over all channels */
} weir__valve;

void weir__valve_init(weir__valve *v, weir__valve_channel *storage, int n);
weir__wm_actions weir__valve_watermark(weir__valve *v, int channel, int64_t watermark);
weir__wm_actions weir__valve_idle(weir__valve *v, int channel);
weir__wm_actions weir__valve_active(weir__valve *v, int channel);
/* The channel holding the minimum back: the aligned active channel with the
 * lowest watermark (the lowest index among equals), or -1 if none. O(1). */
int weir__valve_held_by(const weir__valve *v);
/* Moves the valve into `storage` of n >= v->n channels: the old ones keep
 * their state, the new ones start as a new channel does (MIN, active,
 * aligned: they hold the minimum until they catch up, as a split a Flink
 * source discovers does; the output never goes back). Returns ACTIVE when
 * the output was idle (every old channel idle, or none): the new channels
 * are active. */
weir__wm_actions weir__valve_grow(weir__valve *v, weir__valve_channel *storage, int n);

/* ---- several inputs (SEMANTICS.md 4) ---------------------------------------
 * Each input's valve output feeds this. The combined watermark is the minimum
 * over the inputs that are not idle, emitted only when it increases; when all
 * are idle, the maximum of their watermarks is flushed if larger, then IDLE. */
#define WEIR__MAX_INPUTS 2

typedef struct weir__combiner {
    int n;
    int64_t wm[WEIR__MAX_INPUTS];
    bool idle[WEIR__MAX_INPUTS];
    int64_t last_wm;
    bool last_idle;
} weir__combiner;

void weir__combiner_init(weir__combiner *c, int inputs);
weir__wm_actions weir__combiner_watermark(weir__combiner *c, int input, int64_t watermark);
weir__wm_actions weir__combiner_status(weir__combiner *c, int input, bool idle);

#endif
