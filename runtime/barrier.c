/* barrier.c — a subtask's side of checkpoints (barrier.h;
 * docs/CHECKPOINTS.md, "Rules").
 *
 * Alignment. Barrier N on one channel starts aligning N: in exactly-once
 * mode that channel is held (consume_inputs skips it, its batches stay in
 * the channel and backpressure its producer) until every channel that has
 * not ended has delivered N; at-least-once marks the channel but takes its
 * input on. Then N is due: the step stops taking input, lets every chained
 * operator take what its parents emitted, and once no operator is held
 * (a suspended firing must finish first: its state is half-way) snapshots
 * every operator of the subtask, sends N on every output channel after all
 * it emitted before, and acks. A higher barrier during an alignment
 * overtakes it (the older one is abandoned here and times out or is
 * overtaken at the coordinator too); a lower one is ignored.
 */
#include "barrier.h"

#include <stdlib.h>

#include "clock.h"
#include "diag.h"
#include "job_state.h"
#include "weir/error.h"

static bool enabled(const weir__subtask *sub)
{
    return sub->job->chk.enabled;
}

static void release_channels(weir__subtask *sub)
{
    for (int i = 0; i < sub->ninputs; i++) {
        for (int c = 0; c < sub->in[i].nch; c++)
            sub->in[i].ch[c]->barrier_held = false;
    }
}

static int64_t now_ns(const weir__subtask *sub)
{
    const weir__clock *ck = &sub->job->clock;
    return ck->is_virtual ? weir__clock_now(ck) * 1000000 : weir__clock_now_ns(ck);
}

/* Every channel that has not ended delivered the barrier being aligned:
 * it is due. */
static void check_aligned(weir__subtask *sub)
{
    if (!sub->aligning)
        return;
    for (int i = 0; i < sub->ninputs; i++) {
        for (int c = 0; c < sub->in[i].nch; c++) {
            const weir__channel *ch = sub->in[i].ch[c];
            if (!ch->ended && !ch->barrier_held)
                return;
        }
    }
    sub->barrier_due = sub->aligning;
    sub->align_ns = now_ns(sub) - sub->align_start_ns;
    sub->held_bytes = 0;
    for (int i = 0; i < sub->ninputs; i++) {
        for (int c = 0; c < sub->in[i].nch; c++) {
            weir__channel *ch = sub->in[i].ch[c];
            if (ch->barrier_held && !ch->ended)
                sub->held_bytes += (int64_t)ck_ring_size(&ch->data) * ch->capacity * ch->stride;
        }
    }
    sub->aligning = 0;
    sub->barriers_in = 0;
    release_channels(sub);
}

void weir__barrier_received(weir__subtask *sub, weir__channel *ch, int64_t id)
{
    if (!enabled(sub) || id < sub->aligning || (!sub->aligning && id <= sub->barrier_last))
        return; /* older than what this subtask already aligned or aligns */
    if (id > sub->aligning) {
        if (sub->aligning) /* overtaken: checkpoint `aligning` is abandoned here */
            release_channels(sub);
        sub->aligning = id;
        sub->barriers_in = 0;
        sub->barrier_last = id;
        sub->align_start_ns = now_ns(sub);
    }
    if (!ch->barrier_held) {
        ch->barrier_held = true;
        sub->barriers_in++;
    }
    check_aligned(sub);
}

void weir__barrier_channel_ended(weir__subtask *sub)
{
    check_aligned(sub);
}

bool weir__barrier_poll_source(weir__subtask *sub)
{
    if (!enabled(sub))
        return false;
    int64_t t = atomic_load(&sub->job->chk.trigger);
    if (t <= sub->barrier_last)
        return false;
    sub->barrier_last = t;
    sub->barrier_due = t;
    sub->align_ns = 0;
    sub->held_bytes = 0;
    return true;
}

bool weir__barrier_pending(const weir__subtask *sub)
{
    if (!enabled(sub))
        return false;
    const weir__chk_state *c = &sub->job->chk;
    if (sub->barrier_due || atomic_load(&c->completed) > sub->notified)
        return true;
    return sub->ctxs[0]->is_source && !sub->source_done &&
           atomic_load(&c->trigger) > sub->barrier_last;
}

void weir__ack_free(weir__ack *ack)
{
    if (!ack)
        return;
    for (int i = 0; i < ack->npieces; i++)
        free(ack->pieces[i].data);
    free(ack->pieces);
    free(ack);
}

/* Every operator's snapshot, chain order, into an ack; the diagnostic
 * event for a checkpoint's (not the final one). */
static int snapshot_all(weir__subtask *sub, int64_t id, bool final)
{
    int64_t t0 = weir__monotonic_ns();
    weir__ack *ack = calloc(1, sizeof *ack);
    weir__snap_piece *pieces = calloc((size_t)sub->nctx, sizeof *pieces);
    if (!ack || !pieces) {
        free(ack);
        free(pieces);
        return weir_ctx_fail(sub->ctxs[0], WEIR_ENOMEM, "checkpoint %lld: out of memory",
                             (long long)id);
    }
    ack->id = id;
    ack->final = final;
    ack->sub = sub->plan_index;
    ack->align_ns = final ? 0 : sub->align_ns;
    ack->pieces = pieces;
    ack->npieces = sub->nctx;
    for (int i = 0; i < sub->nctx; i++) {
        /* A final snapshot goes into the first checkpoint this subtask has
         * not seen the barrier of: none of those can complete before it. */
        int r = weir__checkpoint_hooks.snapshot(sub->ctxs[i], final ? sub->barrier_last + 1 : id, &pieces[i]);
        if (r < 0) {
            weir__ack_free(ack);
            return r;
        }
    }
    if (!final && WEIR__DIAG_ON(sub->ctxs[0], WEIR_DIAG_STANDARD)) {
        int64_t bytes = 0;
        for (int i = 0; i < sub->nctx; i++)
            bytes += (int64_t)pieces[i].len;
        weir__diag_checkpoint(sub, id, sub->align_ns / 1000, sub->held_bytes, bytes,
                              (double)(weir__monotonic_ns() - t0) / 1e6);
    }
    weir__checkpoint_hooks.ack(sub->job, ack);
    return 0;
}

static int perform(weir__subtask *sub)
{
    int64_t id = sub->barrier_due;
    int r = snapshot_all(sub, id, false);
    if (r < 0)
        return r;
    /* The barrier follows everything emitted before it on every channel:
     * what the inline emit wrote counts first. */
    for (int i = 0; i < sub->nctx; i++)
        weir__ctx_sync_channel(sub->ctxs[i]);
    for (int i = 0; i < sub->nouts; i++) {
        r = weir__channel_flush(sub->outs[i], WEIR__CTRL_BARRIER, id);
        if (r < 0)
            return weir_ctx_fail(sub->ctxs[0], r, "checkpoint %lld: sending the barrier: %s",
                                 (long long)id, weir_strerror(r));
    }
    sub->barrier_due = 0;
    return 0;
}

static int notify(weir__subtask *sub)
{
    int64_t c = atomic_load(&sub->job->chk.completed);
    if (c <= sub->notified)
        return 0;
    sub->notified = c;
    for (int i = 0; i < sub->nctx; i++) {
        weir_ctx *ctx = sub->ctxs[i];
        int (*hook)(weir_ctx *, int64_t) =
            ctx->is_source ? ctx->svt.notify_complete : ctx->vt.notify_complete;
        if (!hook || ctx->lifecycle.closed || !ctx->lifecycle.opened)
            continue;
        int r = hook(ctx, c);
        if (r < 0) {
            if (!ctx->error)
                weir_ctx_fail(ctx, r, "notify_complete(%lld) failed: %s (%s)", (long long)c,
                              weir_strerror(r), weir_err_name(r));
            return r;
        }
    }
    atomic_store(&sub->notified_seen, c);
    return 0;
}

int weir__barrier_step(weir__subtask *sub)
{
    if (!enabled(sub))
        return 0;
    if (sub->barrier_due && !sub->held) {
        int r = perform(sub);
        if (r < 0)
            return r;
    }
    return notify(sub);
}

int weir__barrier_final(weir__subtask *sub)
{
    if (!enabled(sub) || sub->final_acked)
        return 0;
    sub->final_acked = true;
    return snapshot_all(sub, 0, true);
}

bool weir__barrier_may_finish(const weir__subtask *sub)
{
    if (!enabled(sub))
        return true;
    const weir__chk_state *c = &sub->job->chk;
    return atomic_load(&c->final_done) && sub->notified >= atomic_load(&c->completed);
}
