/* test_layout.c — what two workers write must not share a cache line with
 * what the other one reads at every batch or every record (false sharing:
 * each write then moves the line between the cores, and how badly depends
 * on where the allocator happened to put things, a run's luck).
 *
 *   - a channel: the data ring's consumer head, its producer tail and its
 *     size line, the free ring's three, the immutable block, the producer's
 *     fields and the consumer's fields: eight lines, none shared;
 *   - a batch starts on a line of its own and ends on one (the producer
 *     writing one batch's header never touches the batch being read);
 *   - a context (whose first line, the emit cursor, the producer writes for
 *     every record) starts on a line and ends on one;
 *   - a subtask: what other workers write (the queue node, `scheduled`,
 *     `want_credit`) apart from what its worker reads at every step;
 *   - a worker: the hand-off line (inbox, `parked`, `wake_seq`) apart from
 *     what the worker writes at every step, and the workers' array aligned.
 */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>

#include "channel.h"
#include "job_state.h"
#include "scheduler.h"
#include "support/weir_testutil.h"
#include "task.h"

#define LINE(type, field) (offsetof(type, field) / WEIR__CACHELINE)
#define LAST_LINE(type, field)                                                                    \
    ((offsetof(type, field) + sizeof(((type *)0)->field) - 1) / WEIR__CACHELINE)

static bool aligned(const void *p)
{
    return (uintptr_t)p % WEIR__CACHELINE == 0;
}

Test(layout, channel_rings_and_ends_on_lines_of_their_own)
{
    /* ck_ring_t: c_head, then p_tail/p_head, then size/mask, a line each */
    const size_t data = offsetof(weir__channel, data), free = offsetof(weir__channel, free);
    const size_t ring_lines = (sizeof(ck_ring_t) + WEIR__CACHELINE - 1) / WEIR__CACHELINE;
    cr_assert_eq(data % WEIR__CACHELINE, 0);
    cr_assert_eq(free % WEIR__CACHELINE, 0);
    cr_assert_geq(free / WEIR__CACHELINE, data / WEIR__CACHELINE + ring_lines,
                  "the data ring's size line shares a line with the free ring (at %zu)", free);
    cr_assert_gt(LINE(weir__channel, data_buf), (free + sizeof(ck_ring_t) - 1) / WEIR__CACHELINE);
    cr_assert_gt(LINE(weir__channel, current), LAST_LINE(weir__channel, edge));
    cr_assert_eq(LINE(weir__channel, current), LAST_LINE(weir__channel, allocated));
    cr_assert_gt(LINE(weir__channel, reading), LAST_LINE(weir__channel, allocated));
    cr_assert_eq(sizeof(weir__channel) % WEIR__CACHELINE, 0);
}

Test(layout, batches_start_and_end_on_lines)
{
    /* 12-byte elements: a 24-byte stride, 5 a batch: 32 + 120 bytes, not a
     * multiple of a line */
    weir__channel *ch = weir__channel_create(12, 5, 8);
    cr_assert_not_null(ch);
    for (int i = 0; i < 8; i++) {
        unsigned char *slot = weir__channel_reserve(ch);
        cr_assert_not_null(slot);
        cr_assert(aligned(ch->current), "batch %d at %p", i, (void *)ch->current);
        for (uint32_t k = 0; k < ch->capacity; k++) {
            weir__channel_reserve(ch);
            weir__channel_commit(ch);
        }
    }
    weir__channel_destroy(ch);
}

Test(layout, subtask_and_worker_hand_off_lines)
{
    cr_assert_eq(LINE(weir__subtask, scheduled), 0);
    cr_assert_eq(LINE(weir__subtask, want_credit), 0);
    cr_assert_eq(LINE(weir__subtask, inbox_node), 0);
    cr_assert_gt(LINE(weir__subtask, run_next), 0);
    cr_assert_gt(LINE(weir__subtask, ctxs), 0);

    size_t hand = LINE(weir__worker, inbox_head);
    cr_assert_eq(LINE(weir__worker, inbox_tail), hand);
    cr_assert_eq(LINE(weir__worker, parked), hand);
    cr_assert_eq(LINE(weir__worker, wake_seq), hand);
    cr_assert_neq(LINE(weir__worker, run_head), hand);
    cr_assert_neq(LAST_LINE(weir__worker, run_tail), hand);
    cr_assert_eq(sizeof(weir__worker) % WEIR__CACHELINE, 0);
}

/* A planned job of a few operators: every context, subtask and the
 * workers' array on lines of their own. */
Test(layout, contexts_and_workers_of_a_job_are_line_aligned, .timeout = 60)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 3});
    uint64_t vals[64] = {0};
    weir_stream *s = weir_source_array(job, vals, 64, 8, NULL);
    static const char *const names[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) {
        s = weir_stream_process(weir_stream_rebalance(s),
                                &(weir_process_spec){.name = names[i],
                                                     .vtable = &tu_pass_vtable,
                                                     .out_size = 8});
        cr_assert_not_null(s, "%s", weir_job_error(job));
    }
    weir__plan *plan = NULL;
    cr_assert_eq(weir__plan_build(job, &plan), 0, "%s", weir_job_error(job));
    job->plan = plan;
    for (int i = 0; i < plan->nsubs; i++) {
        const weir__subtask *sub = plan->subs[i];
        cr_assert(aligned(sub));
        for (int c = 0; c < sub->nctx; c++)
            cr_assert(aligned(sub->ctxs[c]), "subtask %d context %d at %p", i, c,
                      (void *)sub->ctxs[c]);
    }
    cr_assert_eq(weir__sched_prepare(job), 0, "%s", weir_job_error(job));
    cr_assert(aligned(job->workers), "workers at %p", (void *)job->workers);
    weir_job_destroy(job);
}
