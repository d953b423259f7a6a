/* subtask.c — one step of a subtask: the cooperative state machine a worker
 * runs.
 *
 * A step does a bounded amount of work and never blocks its worker:
 *   1. opens the operators on the first step (downstream first, like Flink,
 *      so that a chained consumer is ready before its producer);
 *   2. if an output channel has pending batches, tries to send them and, if
 *      still blocked, stops: the subtask is not fed more input until the
 *      consumer gives credit back (that is backpressure, and the reason
 *      pending output stays bounded);
 *   3. resumes the operators whose event-time firing a full output suspended
 *      (context.c): while one is held, the subtask takes no input;
 *   4. fires the processing-time timers that are due and the buffer timeout;
 *   5. runs the source once, or consumes up to STEP_BATCHES input batches,
 *      round-robin over the input channels, record by record into the head
 *      operator, control messages through the input's valve and the
 *      multi-input combiner. If the output blocks in the middle of a batch,
 *      the position is kept and the step ends;
 *   6. when every input has ended: MAX if it was not reached, on_end down the
 *      chain, END on every output channel once no operator is held, and once
 *      those left, close.
 * The scheduler calls weir__subtask_step and asks weir__subtask_ready
 * afterwards.
 */
#include "subtask.h"

#include <string.h>

#include "barrier.h"
#include "diag.h"
#include "job_state.h"
#include "task.h"
#include "util.h"
#include "weir/error.h"

#define STEP_BATCHES 8

static int open_all(weir__subtask *sub)
{
    for (int i = sub->nctx - 1; i >= 0; i--) {
        int r = weir__ctx_open(sub->ctxs[i]);
        if (r < 0)
            return r;
    }
    return 0;
}

void weir__subtask_close(weir__subtask *sub)
{
    for (int i = 0; i < sub->nctx; i++)
        weir__ctx_close(sub->ctxs[i]);
}

/* Sends pending batches; returns true if no channel is blocked any more. */
static bool drain_outputs(weir__subtask *sub)
{
    bool all = true;
    for (int i = 0; i < sub->nouts; i++) {
        if (weir__channel_blocked(sub->outs[i]) && !weir__channel_drain(sub->outs[i]))
            all = false;
    }
    sub->out_blocked = !all;
    return all;
}

/* What the inline emit wrote into open batches counts (weir__ctx_sync_channel),
 * before the batches are read or sent from here. */
static void sync_channels(weir__subtask *sub)
{
    for (int i = 0; i < sub->nctx; i++)
        weir__ctx_sync_channel(sub->ctxs[i]);
}

static int flush_partial(weir__subtask *sub)
{
    sync_channels(sub);
    for (int i = 0; i < sub->nouts; i++) {
        if (weir__channel_dirty(sub->outs[i])) {
            int r = weir__channel_flush(sub->outs[i], WEIR__CTRL_NONE, 0);
            if (r < 0)
                return r;
        }
    }
    sub->flush_deadline = INT64_MAX;
    return 0;
}

/* After flush_chains, which made every open batch's count true. */
static bool any_dirty(const weir__subtask *sub)
{
    for (int i = 0; i < sub->nouts; i++) {
        if (weir__channel_dirty(sub->outs[i]))
            return true;
    }
    return false;
}

/* Chained operators get what their parents hold, parents first (ctxs are in
 * chain pre-order), so records flow down the whole chain in one pass. */
static int flush_chains(weir__subtask *sub)
{
    for (int i = 0; i < sub->nctx; i++) {
        int r = weir__ctx_flush_chained(sub->ctxs[i]);
        if (r < 0)
            return r;
    }
    return 0;
}

int weir__subtask_flush(weir__subtask *sub)
{
    int r = flush_chains(sub);
    if (r == 0 && any_dirty(sub))
        r = flush_partial(sub);
    return r;
}

/* Deepest first (ctxs are in chain pre-order), so that an inbox empties
 * before its parent, resumed, adds to it. */
static int resume_held(weir__subtask *sub)
{
    while (sub->held > 0 && !sub->out_blocked) {
        for (int i = sub->nctx - 1; i >= 0 && !sub->out_blocked; i--) {
            if (sub->ctxs[i]->input.held) {
                int r = weir__ctx_resume(sub->ctxs[i]);
                if (r < 0)
                    return r;
            }
        }
    }
    return 0;
}

static int fire_processing(weir__subtask *sub, int64_t now)
{
    for (int i = 0; i < sub->nctx; i++) {
        weir_ctx *ctx = sub->ctxs[i];
        if (ctx->lifecycle.ended || weir__ctx_next_processing(ctx) > now)
            continue;
        int r = weir__ctx_fire_processing(ctx, now);
        if (r < 0)
            return r;
    }
    return 0;
}

/* ---- input ---------------------------------------------------------------- */

/* What an input's valve let through goes through the multi-input
 * combination into the head operator. */
static int combine(weir__subtask *sub, int input, const weir__wm_actions *a)
{
    for (int k = 0; k < a->n; k++) {
        weir__wm_actions c = a->act[k].kind == WEIR__ACT_WATERMARK
                                 ? weir__combiner_watermark(&sub->comb, input, a->act[k].watermark)
                                 : weir__combiner_status(&sub->comb, input,
                                                         a->act[k].kind == WEIR__ACT_IDLE);
        int r = weir__deliver_actions(sub->ctxs[0], &c);
        if (r < 0)
            return r;
    }
    return 0;
}

int weir__subtask_valve_watermark(weir__subtask *sub, int input, int channel, int64_t wm)
{
    weir__input *in = &sub->in[input];
    weir_ctx *head = sub->ctxs[0];
    int64_t before = in->vch[channel].wm;
    weir__wm_actions a = weir__valve_watermark(&in->valve, channel, wm);
    if (WEIR__DIAG_ON(head, WEIR_DIAG_STANDARD) && in->vch[channel].wm != before)
        weir__diag_valve_watermark(head, input, channel, wm, weir__valve_held_by(&in->valve));
    return combine(sub, input, &a);
}

int weir__subtask_valve_status(weir__subtask *sub, int input, int channel, bool idle)
{
    weir__input *in = &sub->in[input];
    weir_ctx *head = sub->ctxs[0];
    bool before = in->vch[channel].idle;
    weir__wm_actions a = idle ? weir__valve_idle(&in->valve, channel)
                              : weir__valve_active(&in->valve, channel);
    if (WEIR__DIAG_ON(head, WEIR_DIAG_STANDARD) && in->vch[channel].idle != before)
        weir__diag_valve_status(head, input, channel, idle);
    return combine(sub, input, &a);
}

static bool all_inputs_ended(const weir__subtask *sub)
{
    for (int i = 0; i < sub->ninputs; i++) {
        if (sub->in[i].ended < sub->in[i].nch)
            return false;
    }
    return true;
}

/* Consumes what is left of the batch being read on `ch`. Returns 0 (batch
 * done and released, or stopped because the output blocked) or an error. */
static int consume_batch(weir__subtask *sub, weir__channel *ch, weir__batch *b)
{
    const int input = ch->input;
    if (ch->read_pos < b->count) {
        weir_batch unread = {.data = b->data + (size_t)ch->read_pos * ch->stride,
                             .count = b->count - ch->read_pos,
                             .stride = ch->stride};
        uint32_t taken = 0;
        int r = weir__ctx_take(sub->ctxs[0], input, &unread, &taken);
        ch->read_pos += taken;
        if (WEIR__UNLIKELY(r != 0))
            return r < 0 ? r : 0; /* 1: the output blocked, the rest waits */
    }
    uint8_t ctrl = b->ctrl;
    int64_t value = b->ctrl_value;
    /* Release before acting on the control message: acting may block the
     * output, and the batch is consumed either way. */
    weir__channel_release(ch);
    switch (ctrl) {
    case WEIR__CTRL_WATERMARK:
        return weir__subtask_valve_watermark(sub, input, ch->index, value);
    case WEIR__CTRL_STATUS:
        return weir__subtask_valve_status(sub, input, ch->index, value != 0);
    case WEIR__CTRL_END:
        ch->ended = true;
        sub->in[input].ended++;
        weir__barrier_channel_ended(sub);
        return 0;
    case WEIR__CTRL_BARRIER:
        weir__barrier_received(sub, ch, value);
        return 0;
    default:
        return 0;
    }
}

/* Whether the channel's input waits for a barrier alignment (exactly-once:
 * at-least-once takes it on). */
static bool held_for_barrier(const weir__subtask *sub, const weir__channel *ch)
{
    return weir__barrier_holds(ch) && sub->job->chk.exactly_once;
}

static int consume_inputs(weir__subtask *sub)
{
    int budget = STEP_BATCHES;
    bool progress = true;
    /* A due barrier stops the input: nothing after it may reach the
     * operators before their snapshot. */
    while (budget > 0 && progress && !sub->out_blocked && !sub->barrier_due) {
        progress = false;
        for (int n = 0; n < WEIR__MAX_INPUTS && budget > 0; n++) {
            int input = (sub->rr_input + n) % (sub->ninputs > 0 ? sub->ninputs : 1);
            weir__input *in = &sub->in[input];
            for (int k = 0; k < in->nch && budget > 0 && !sub->out_blocked && !sub->barrier_due;
                 k++) {
                int c = (sub->rr_channel + k) % in->nch;
                weir__channel *ch = in->ch[c];
                if (ch->ended || held_for_barrier(sub, ch))
                    continue;
                weir__batch *b = weir__channel_peek(ch);
                if (!b)
                    continue;
                int r = consume_batch(sub, ch, b);
                if (r < 0)
                    return r;
                budget--;
                progress = true;
            }
            if (sub->ninputs < 2)
                break;
        }
        sub->rr_channel++;
        sub->rr_input++;
    }
    return 0;
}

/* ---- end ------------------------------------------------------------------ */

/* END leaves once no operator is held: a held one still has output to
 * send before it. */
static int send_end(weir__subtask *sub)
{
    int r0 = weir__barrier_final(sub);
    if (r0 < 0)
        return r0;
    sync_channels(sub);
    for (int i = 0; i < sub->nouts; i++) {
        int r = weir__channel_flush(sub->outs[i], WEIR__CTRL_END, 0);
        if (r < 0)
            return r;
    }
    /* END took every partial batch with it: no buffer timeout is left to
     * keep. A draining subtask has nothing to do at any time (the credit it
     * waits for and the checkpoints it waits on wake it), and the deadline
     * of a flush it no longer has would count as due forever: its worker
     * ran it again and again until the job's final checkpoint, a core
     * spent on nothing. */
    sub->flush_deadline = INT64_MAX;
    sub->phase = WEIR__SUB_DRAINING;
    return 0;
}

/* on_end down the chain; END follows once nothing is held (send_end). */
static int end_chain(weir__subtask *sub)
{
    sub->ending = true;
    return weir__ctx_end_chain(sub->ctxs[0]);
}

static int finish_inputs(weir__subtask *sub)
{
    weir_ctx *head = sub->ctxs[0];
    /* Every upstream sends MAX before END, so the head normally reached MAX
     * through its valves. If it did not (every channel was idle when MAX
     * came, so the valve ignored it), END means the same thing: no element
     * will ever arrive again. */
    if (head->input.wm < WEIR_TS_MAX) {
        int r = weir__ctx_advance_watermark(head, WEIR_TS_MAX);
        if (r < 0)
            return r;
    }
    return end_chain(sub);
}

static int finish_source(weir__subtask *sub, int64_t now)
{
    weir_ctx *src = sub->ctxs[0];
    sub->source_done = true;
    /* SEMANTICS.md 8: a finishing source sends MAX, then END. */
    int r = weir_emit_watermark(src, WEIR_TS_MAX);
    if (r < 0)
        return r;
    if (sub->align.group)
        weir__align_finished(sub, now);
    return end_chain(sub);
}

static int run_source(weir__subtask *sub, int64_t now)
{
    weir_ctx *src = sub->ctxs[0];
    /* A checkpoint's barrier goes in between two next() calls, also while
     * the source waits: idleness never holds a checkpoint back. */
    if (sub->source_done || sub->barrier_due || weir__barrier_poll_source(sub) ||
        src->wait_until > now)
        return 0;
    /* Watermark alignment: ahead of its group by more than the max drift,
     * the source does not read (align.h). */
    if (sub->align.group && weir__align_paused(sub, now))
        return 0;
    src->input.handling_ts = WEIR_NO_TIMESTAMP; /* a timer may have fired since */
    int r = src->svt.next(src);
    if (r < 0) {
        if (r != WEIR_ECANCELED)
            weir_ctx_fail(src, r, "next failed: %s (%s)", weir_strerror(r), weir_err_name(r));
        return r;
    }
    switch (r) {
    case WEIR_SOURCE_END:
        return finish_source(sub, now);
    case WEIR_SOURCE_WAIT:
        if (src->wait_until <= now)
            src->wait_until = now + 1;
        return 0;
    case WEIR_SOURCE_MORE:
        src->wait_until = INT64_MIN;
        return 0;
    default:
        return weir_ctx_fail(src, WEIR_EINVAL, "next returned %d, not a weir_source_result", r);
    }
}

/* ---- the step ------------------------------------------------------------- */

/* END went out and every batch before it left: the last throughput sample,
 * then close. Returns 1, the step's "finished". */
static int finish(weir__subtask *sub, int64_t now)
{
    sub->phase = WEIR__SUB_FINISHED;
    weir__diag_sample(sub, now, true);
    weir__subtask_close(sub);
    return 1;
}

static void update_deadline(weir__subtask *sub)
{
    int64_t d = sub->flush_deadline;
    for (int i = 0; i < sub->nctx; i++) {
        if (!sub->ctxs[i]->lifecycle.ended) {
            int64_t t = weir__ctx_next_processing(sub->ctxs[i]);
            if (t < d)
                d = t;
        }
    }
    /* A source paused by alignment reads nothing whatever it waits for: its
     * deadline is its next look (counting its wait would run it again and
     * again once that time passed, a spin that also keeps a virtual clock
     * from moving). */
    if (sub->align.paused) {
        if (sub->align.look_at < d)
            d = sub->align.look_at;
    } else if (sub->ctxs[0]->is_source && !sub->source_done &&
               sub->ctxs[0]->wait_until > INT64_MIN && sub->ctxs[0]->wait_until < d) {
        d = sub->ctxs[0]->wait_until;
    }
    sub->deadline = sub->phase == WEIR__SUB_DRAINING ? INT64_MAX : d;
}

int weir__subtask_step(weir__subtask *sub, int64_t now)
{
    weir_job *job = sub->job;
    int r = 0;
    if (sub->phase == WEIR__SUB_NEW) {
        sub->phase = WEIR__SUB_RUNNING;
        sub->next_sample = now + job->cfg.diag.throughput_interval_ms;
        sub->last_sample = now;
        r = open_all(sub);
        if (r == 0)
            r = weir__checkpoint_hooks.restore_subtask(sub);
        if (r < 0)
            return r;
    }
    if (sub->out_blocked && !drain_outputs(sub)) {
        sub->futile_steps++;
        return 0;
    }
    if (sub->phase == WEIR__SUB_DRAINING) {
        /* END left; with checkpoints the operators wait for the final one
         * (barrier.h) and hear of every completion meanwhile. */
        r = weir__barrier_step(sub);
        if (r < 0)
            return r;
        return weir__barrier_may_finish(sub) ? finish(sub, now) : 0;
    }
    if (WEIR__DIAG_ON(sub->ctxs[0], WEIR_DIAG_STANDARD) && now >= sub->next_sample) {
        weir__diag_sample(sub, now, false);
        sub->next_sample = now + job->cfg.diag.throughput_interval_ms;
    }
    if (sub->held)
        r = resume_held(sub);
    if (r == 0 && !sub->held)
        r = fire_processing(sub, now);
    for (int i = 0; r == 0 && !sub->held && !sub->out_blocked && i < sub->nctx; i++)
        r = weir__ctx_fire_wakeup(sub->ctxs[i]);
    if (r == 0 && sub->flush_deadline <= now)
        r = flush_partial(sub);
    if (r == 0 && !sub->out_blocked && !sub->held && !sub->ending) {
        if (sub->ctxs[0]->is_source)
            r = run_source(sub, now);
        else {
            r = consume_inputs(sub);
            if (r == 0 && !sub->out_blocked && !sub->held && all_inputs_ended(sub))
                r = finish_inputs(sub);
        }
    }
    if (r == 0)
        r = flush_chains(sub);
    if (r == 0)
        r = weir__barrier_step(sub);
    if (r == 0 && sub->ending && sub->phase == WEIR__SUB_RUNNING && !sub->held)
        r = send_end(sub);
    if (r < 0)
        return r;
    if (sub->phase == WEIR__SUB_RUNNING) {
        if (job->cfg.buffer_timeout_ms == WEIR_FLUSH_AT_ONCE)
            r = flush_partial(sub);
        else if (sub->flush_deadline == INT64_MAX && any_dirty(sub))
            sub->flush_deadline = now + job->cfg.buffer_timeout_ms;
    }
    if (r < 0)
        return r;
    if (sub->out_blocked)
        drain_outputs(sub);
    if (sub->phase == WEIR__SUB_DRAINING && !sub->out_blocked && weir__barrier_may_finish(sub))
        return finish(sub, now);
    /* Its watermark to its alignment group, and whether it pauses reading. */
    if (sub->align.group)
        weir__align_step(sub, now);
    /* Throughput samples are taken when the subtask runs anyway; they never
     * wake it (a quiet subtask writes nothing until it runs again). */
    update_deadline(sub);
    return 0;
}

bool weir__subtask_ready(weir__subtask *sub, int64_t now)
{
    if (sub->phase == WEIR__SUB_FINISHED)
        return false;
    if (sub->phase == WEIR__SUB_NEW)
        return true;
    if (sub->out_blocked)
        return false;
    if (weir__barrier_pending(sub))
        return true;
    if (sub->phase == WEIR__SUB_DRAINING)
        return weir__barrier_may_finish(sub);
    if (sub->held)
        return true;
    if (sub->deadline <= now)
        return true;
    for (int i = 0; i < sub->nctx; i++)
        if (weir__ctx_wakeup_pending(sub->ctxs[i]))
            return true;
    if (sub->ctxs[0]->is_source) {
        /* Paused by alignment: ready once the group caught up (a member
         * whose watermark rises wakes it; this look, after the scheduler
         * cleared its flag, catches a rise that came meanwhile). */
        if (sub->align.paused)
            return !sub->source_done && !weir__align_holds(sub);
        return !sub->source_done && sub->ctxs[0]->wait_until <= now;
    }
    for (int i = 0; i < sub->ninputs; i++) {
        for (int c = 0; c < sub->in[i].nch; c++) {
            weir__channel *ch = sub->in[i].ch[c];
            if (!ch->ended && !held_for_barrier(sub, ch) && weir__channel_has_data(ch))
                return true;
        }
    }
    return all_inputs_ended(sub);
}
