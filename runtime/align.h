/* align.h — watermark alignment of sources (Flink's watermark alignment,
 * FLIP-182: WatermarkStrategy.withWatermarkAlignment, SourceOperator and
 * SourceCoordinator): the source subtasks of a group read only while their
 * watermark is at most max drift ahead of the group's lowest.
 *
 * Design. A group is a row of slots, one cache line each, one per member (a
 * subtask of a source in the group). A member's slot holds the watermark it
 * reports: its source subtask's event time (the watermark that left the
 * first operator of its chain that made one; MAX while that output is idle,
 * as Flink reports an idle source; MAX once it finished), or WEIR_TS_MIN
 * until it has one (not counted, as Flink counts only the readers that
 * reported). Only the member's own worker writes its slot (a store after the
 * member's step, when the value changed); every member reads them all. The
 * group's minimum is the lowest reported value; a member pauses reading
 * (its source's next() is not called) while its own watermark (the real
 * one, also while idle) is above minimum + its source's max drift, Flink's
 * `currentMaxDesiredWatermark < latestWatermark`.
 * Flink's coordinator announces the bound every update interval; here the
 * slots are shared memory, so a member decides at each of its steps, and a
 * paused member looks again when another member's watermark rises (that
 * member wakes it, below) or at the latest one update interval after its
 * last look. A paused member still takes checkpoints' barriers and fires its
 * timers; the time it spends paused does not count towards the idleness of
 * its timestamps (weir__align_activity_now, Flink's paused activity clock),
 * so a source held back by alignment is not declared idle.
 *
 * The member with the group's minimum is never paused, so a group always
 * reads on: a pause can last only as long as the lowest member does not
 * move, which is what the windows after it wait for anyway.
 *
 * Wake-ups, the scheduler's hand-off (scheduler.h) on two words: a member
 * that raises its slot then looks at the other members' `paused` flags and
 * wakes those that pause; a member that pauses sets its flag and then (in
 * weir__align_holds, which the scheduler's look after clearing `scheduled`
 * calls through weir__subtask_ready) reads the slots again. Both sides are
 * seq_cst, so at least one sees the other.
 *
 * Threads: weir__align_plan and weir__align_free on the job's thread before
 * and after the run; the rest on the member's own worker.
 */
#ifndef WEIR_RUNTIME_ALIGN_H
#define WEIR_RUNTIME_ALIGN_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util.h"

struct weir__subtask;
struct weir__plan;
typedef struct weir_job weir_job;

typedef struct weir__align_slot {
    alignas(WEIR__CACHELINE) _Atomic int64_t wm; /* reported; WEIR_TS_MIN: none yet */
    _Atomic int paused;                           /* the member pauses reading */
    struct weir__subtask *sub;                    /* the member, to wake it */
} weir__align_slot;

typedef struct weir__align_group {
    char *name;              /* the group's name; NULL: one source's own subtasks */
    int n;
    weir__align_slot *slots; /* n, cache-line aligned */
    _Atomic int npaused;     /* members paused now: whether a rise must wake any */
} weir__align_group;

/* A member's own side, in its subtask (the worker's only). */
typedef struct weir__align_member {
    weir__align_group *group; /* NULL: the subtask is not aligned */
    int slot;
    int64_t max_drift;
    int64_t update_interval;
    int64_t reported;         /* what the slot holds */
    int64_t own;              /* its watermark (not MAX for idle): what may pause it */
    bool paused;
    int64_t look_at;          /* paused: the latest time to look again */
    int64_t paused_since;
    int64_t paused_ms;        /* time paused before paused_since */
} weir__align_member;

/* Makes the groups of the plan's source subtasks: each source's own, or the
 * named ones its weir_source_align_watermarks set (the default: a source of
 * parallelism above 1 aligns its own subtasks, WEIR_WATERMARK_DRIFT_DEFAULT_MS).
 * 0 or WEIR_ENOMEM. */
int weir__align_plan(weir_job *job, struct weir__plan *plan);
void weir__align_free(struct weir__plan *plan);

/* After a step of an aligned source subtask: reports its watermark (waking
 * paused members if it rose) and decides whether it pauses. */
void weir__align_step(struct weir__subtask *sub, int64_t now);
/* Its source finished (it sent MAX): the member reports MAX at once, before
 * any later step (a subtask may finish in the step its source ends in, and
 * its last periodic watermark may lie far behind its end: a report left
 * there would hold the group back for ever). */
void weir__align_finished(struct weir__subtask *sub, int64_t now);
/* Before its source reads: whether the member still pauses (if its group
 * caught up it resumes now). */
bool weir__align_paused(struct weir__subtask *sub, int64_t now);
/* Whether a paused member still pauses, without resuming it (the
 * scheduler's look after a step: the look of the wake-up hand-off). */
bool weir__align_holds(struct weir__subtask *sub);
/* The processing time that counts for idleness in this subtask: `now` less
 * the time its source spent paused by alignment. */
int64_t weir__align_activity_now(const struct weir__subtask *sub, int64_t now);

#endif
