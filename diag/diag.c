/* diag.c — the diagnostic channel: one per job, fed by every subtask of every
 * operator, drained by one collector thread.
 *
 * Design. Each worker owns a single-producer, single-consumer ring of
 * fixed-size records (diag_internal.h); a site fills the next slot in place
 * (no copy, no lock, no allocation), publishes it with one release store and
 * goes on. The collector thread visits the rings in turn, encodes each record
 * once as msgpack straight from its slot and hands it to the sinks. Lossless
 * (default): a worker whose ring is full waits, yielding, until the collector
 * made room — diagnostics slow the job down rather than lie. The channel
 * counts the events that had to wait, but the capture does not carry the
 * count: what a run writes must not depend on how fast its sinks were (the
 * demo's captures are the same byte for byte run after run). Lossy: the
 * record is dropped and counted; the summary reports the count.
 *
 * Why not Concurrency Kit's ck_ring here, as the channels use: a ck_ring of
 * n slots holds n - 1 entries and n is a power of two, so a ring of exactly
 * ring_capacity (8192 by default) events of 136 bytes would take twice the
 * slots. These rings count positions in 64 bits (never wrapping in
 * practice), so every slot is usable; the whole protocol is the two
 * acquire/release pairs of ring_reserve, ring_commit and the collector's
 * pop below.
 *
 * The collector and an idle job. With every ring empty the collector polls
 * a few more times, a millisecond apart, and then parks on a futex until a
 * producer wakes it: an idle pipeline costs no CPU, also here. A producer
 * learns that the collector is parked from one flag, read (seq_cst) after it
 * published its record's tail (a seq_cst store); the collector sets the flag
 * (seq_cst) and then looks at every ring's tail once more (seq_cst), so in
 * the single order of seq_cst operations at least one of them sees the
 * other (Dekker with C11 atomics only: no fence, which ThreadSanitizer would
 * not see) and no record is left behind a parked collector. The short polls before parking
 * are what keep this cheap: events that trickle in (a window firing now and
 * then) find the collector awake, and only the first event after a pause
 * pays for a wake-up system call.
 *
 * Order: the job event is written by the job thread before any worker starts,
 * the summary after every worker and the collector have been joined, so they
 * are first and last. Between them, a subtask's events keep their order (one
 * worker, one FIFO ring); events of different workers interleave in the order
 * the collector drained them.
 *
 * Levels: every site first compares the context's level (OFF when the job has
 * no sink), one predictable branch; the sites below assume they were called
 * only when on.
 */
#include "diag.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diag_internal.h"
#include "futex.h"
#include "live.h"
#include "job_state.h"
#include "scheduler.h"
#include "task.h"
#include "weir/error.h"
#include "weir/operator_builtin.h"

/* Polls with every ring empty before the collector parks, and the time
 * between them. */
#define COLLECTOR_POLLS 4
#define COLLECTOR_POLL_NS 1000000L

const char *weir_diag_kind_name(weir_diag_kind kind)
{
    static const char *const names[WEIR_DIAG_KIND_COUNT_] = {
        [WEIR_DIAG_KIND_JOB] = "job",
        [WEIR_DIAG_KIND_WATERMARK] = "watermark",
        [WEIR_DIAG_KIND_STATUS] = "status",
        [WEIR_DIAG_KIND_THROUGHPUT] = "throughput",
        [WEIR_DIAG_KIND_WINDOW_FIRE] = "window_fire",
        [WEIR_DIAG_KIND_LATE] = "late",
        [WEIR_DIAG_KIND_MERGE] = "merge",
        [WEIR_DIAG_KIND_CLEANUP] = "cleanup",
        [WEIR_DIAG_KIND_BACKPRESSURE] = "backpressure",
        [WEIR_DIAG_KIND_RECORD] = "record",
        [WEIR_DIAG_KIND_SUMMARY] = "summary",
        [WEIR_DIAG_KIND_CHECKPOINT] = "checkpoint",
        [WEIR_DIAG_KIND_CHECKPOINT_TRIGGER] = "checkpoint_trigger",
        [WEIR_DIAG_KIND_CHECKPOINT_END] = "checkpoint_end",
        [WEIR_DIAG_KIND_CHECKPOINT_RESTORE] = "checkpoint_restore",
        [WEIR_DIAG_KIND_JOIN_STATE] = "join_state",
    };
    return (unsigned)kind < WEIR_DIAG_KIND_COUNT_ ? names[kind] : "unknown";
}

/* ---- waking the collector ------------------------------------------------ */

/* Any thread, after a seq_cst store of what it published (a ring's tail):
 * wakes the collector if it is parked (one waker wins the flag). The load is
 * seq_cst: with the collector's seq_cst store of `parked` and load of the
 * tails, one of the two sees the other (Dekker, in the single total order of
 * seq_cst operations). */
static void wake_collector(struct weir__diag *d)
{
    if (atomic_load(&d->parked) && atomic_exchange(&d->parked, 0)) {
        atomic_fetch_add(&d->wake_seq, 1);
        weir__futex_wake(&d->wake_seq);
    }
}

/* ---- rings ---------------------------------------------------------------- */

/* The producer's next free slot, or NULL if the ring is full. */
static weir__diag_rec *ring_reserve(weir__diag_ring *r)
{
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (t - r->head_seen > r->mask) {
        r->head_seen = atomic_load_explicit(&r->head, memory_order_acquire);
        if (t - r->head_seen > r->mask)
            return NULL;
    }
    return &r->buf[t & r->mask];
}

static void ring_commit(struct weir__diag *d, weir__diag_ring *r)
{
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    /* seq_cst, not only release: the hand-off to a parking collector
     * (wake_collector). */
    atomic_store(&r->tail, t + 1);
    wake_collector(d);
}

static bool rings_empty(struct weir__diag *d)
{
    for (int i = 0; i < d->nrings; i++) {
        weir__diag_ring *r = &d->rings[i];
        /* The tail seq_cst: the other half of wake_collector's hand-off. */
        if (atomic_load(&r->tail) != atomic_load_explicit(&r->head, memory_order_relaxed))
            return false;
    }
    return true;
}

/* A slot in `ring` (its one producer's), waiting for room unless lossy;
 * NULL if lossy and full. */
static weir__diag_rec *reserve(struct weir__diag *d, weir__diag_ring *ring)
{
    weir__diag_rec *r = ring_reserve(ring);
    if (WEIR__UNLIKELY(!r)) {
        if (d->lossy) {
            ring->dropped++;
            return NULL;
        }
        ring->waited++;
        for (unsigned spins = 0; (r = ring_reserve(ring)) == NULL; spins++) {
            /* The collector cannot be parked while this ring holds events
             * (its tail was published seq_cst), but waking it costs one load
             * when it is not. */
            wake_collector(d);
            if (spins < 64) {
                sched_yield();
            } else {
                struct timespec ts = {0, 50000};
                nanosleep(&ts, NULL);
            }
        }
    }
    return r;
}

/* A record slot in the calling worker's ring, or NULL (lossy and full, or
 * not on a worker). Fills the common fields. */
static weir__diag_rec *begin(weir_ctx *ctx, weir_diag_kind kind)
{
    weir__worker *w = ctx->sub ? ctx->sub->worker : NULL;
    if (!w || !w->diag)
        return NULL;
    weir__diag_rec *r = reserve(ctx->job->diag, w->diag);
    if (!r)
        return NULL;
    r->kind = (uint8_t)kind;
    r->flag = 0;
    r->input = -1;
    r->channel = -1;
    r->op = ctx->diag.op_index;
    r->subtask = ctx->subtask;
    r->held_by = -1;
    r->firing = 0;
    r->t = weir__clock_now(ctx->clock);
    r->wm = ctx->input.wm;
    r->start = r->end = r->count = r->slide = 0;
    r->fill = 0;
    r->key[0] = '\0';
    return r;
}

static void commit(weir_ctx *ctx)
{
    ring_commit(ctx->job->diag, ctx->sub->worker->diag);
}

static void set_key(weir_ctx *ctx, weir__diag_rec *r)
{
    weir_ctx_key_format(ctx, r->key, sizeof r->key);
}

/* ---- sites ---------------------------------------------------------------- */

void weir__diag_watermark(weir_ctx *ctx, int64_t wm)
{
    weir__diag_rec *r = begin(ctx, WEIR_DIAG_KIND_WATERMARK);
    if (!r)
        return;
    r->wm = wm;
    commit(ctx);
}

void weir__diag_status(weir_ctx *ctx, bool idle)
{
    weir__diag_rec *r = begin(ctx, WEIR_DIAG_KIND_STATUS);
    if (!r)
        return;
    r->flag = idle;
    commit(ctx);
}

void weir__diag_valve_watermark(weir_ctx *head, int input, int channel, int64_t wm, int held_by)
{
    weir__diag_rec *r = begin(head, WEIR_DIAG_KIND_WATERMARK);
    if (!r)
        return;
    r->input = (int16_t)input;
    r->channel = channel;
    r->wm = wm;
    r->held_by = held_by;
    r->key[0] = '\0';
    commit(head);
}

void weir__diag_partition_watermark(weir_ctx *src, int p, const char *name, int64_t wm,
                                    int held_by)
{
    weir__diag_rec *r = begin(src, WEIR_DIAG_KIND_WATERMARK);
    if (!r)
        return;
    r->input = 0;
    r->channel = p;
    r->wm = wm;
    r->held_by = held_by;
    snprintf(r->key, sizeof r->key, "%s", name);
    commit(src);
}

void weir__diag_partition_status(weir_ctx *src, int p, const char *name, bool idle, int held_by)
{
    weir__diag_rec *r = begin(src, WEIR_DIAG_KIND_STATUS);
    if (!r)
        return;
    r->input = 0;
    r->channel = p;
    r->flag = idle;
    r->held_by = held_by;
    snprintf(r->key, sizeof r->key, "%s", name);
    commit(src);
}

void weir__diag_valve_status(weir_ctx *head, int input, int channel, bool idle)
{
    weir__diag_rec *r = begin(head, WEIR_DIAG_KIND_STATUS);
    if (!r)
        return;
    r->input = (int16_t)input;
    r->channel = channel;
    r->flag = idle;
    /* The valve has taken the change already: the channel that holds the
     * minimum back from now on (a channel going idle hands it on now, not
     * at the next watermark). */
    r->held_by = weir__valve_held_by(&head->sub->in[input].valve);
    r->key[0] = '\0';
    commit(head);
}

void weir__diag_record_event(weir_ctx *ctx, int64_t ts)
{
    weir__diag_rec *r = begin(ctx, WEIR_DIAG_KIND_RECORD);
    if (!r)
        return;
    r->ts = ts;
    commit(ctx);
}

void weir__diag_batch(weir_ctx *ctx, const weir_batch *b)
{
    /* This scan is the whole cost of the standard level on a chain of batch
     * operators, once per operator. */
    ctx->diag.max_ts = weir_batch_max_ts(b, ctx->diag.max_ts);
    if (ctx->diag.level >= WEIR_DIAG_VERBOSE) {
        for (uint32_t k = 0; k < b->count; k++)
            weir__diag_record_event(ctx, weir_batch_ts(b, k));
    }
}

void weir__diag_window_fire(weir_ctx *ctx, int64_t start, int64_t end, int firing, int64_t count,
                            bool cleanup)
{
    /* Remembered even if a lossy ring drops the event: the cleanup went
     * with it. */
    ctx->diag.folded = cleanup;
    ctx->diag.folded_start = start;
    ctx->diag.folded_end = end;
    weir__diag_rec *r = begin(ctx, WEIR_DIAG_KIND_WINDOW_FIRE);
    if (!r)
        return;
    set_key(ctx, r);
    r->start = start;
    r->end = end;
    r->firing = firing;
    r->count = count;
    r->flag = cleanup;
    commit(ctx);
}

void weir__diag_late(weir_ctx *ctx, int64_t ts, int64_t start, int64_t end, int64_t every,
                     bool dropped)
{
    weir__diag_rec *r = begin(ctx, WEIR_DIAG_KIND_LATE);
    if (!r)
        return;
    set_key(ctx, r);
    r->start = start;
    r->end = end;
    r->ts = ts;
    r->slide = every;
    r->flag = dropped;
    commit(ctx);
}

void weir__diag_merge(weir_ctx *ctx, int64_t start, int64_t end, int64_t merged)
{
    weir__diag_rec *r = begin(ctx, WEIR_DIAG_KIND_MERGE);
    if (!r)
        return;
    set_key(ctx, r);
    r->start = start;
    r->end = end;
    r->merged = merged;
    commit(ctx);
}

void weir__diag_cleanup(weir_ctx *ctx, int64_t start, int64_t end)
{
    bool folded = ctx->diag.folded && ctx->diag.folded_start == start && ctx->diag.folded_end == end;
    ctx->diag.folded = false;
    if (folded)
        return; /* its firing's event said so */
    weir__diag_rec *r = begin(ctx, WEIR_DIAG_KIND_CLEANUP);
    if (!r)
        return;
    set_key(ctx, r);
    r->start = start;
    r->end = end;
    commit(ctx);
}

void weir__diag_checkpoint(weir__subtask *sub, int64_t id, int64_t align_us, int64_t held_bytes,
                           int64_t bytes, double snapshot_ms)
{
    weir_ctx *head = sub->ctxs[0];
    weir__diag_rec *r = begin(head, WEIR_DIAG_KIND_CHECKPOINT);
    if (!r)
        return;
    r->chk_id = id;
    r->align_us = align_us;
    r->held_bytes = held_bytes;
    r->bytes = bytes;
    r->snapshot_ms = snapshot_ms;
    commit(head);
}

/* A job-level event in the coordinator's ring (its thread is the ring's one
 * producer), or NULL. */
static weir__diag_rec *begin_job(weir_job *job, weir_diag_kind kind)
{
    struct weir__diag *d = job->diag;
    if (!d || !d->coord_ring || d->level < WEIR_DIAG_STANDARD)
        return NULL;
    weir__diag_rec *r = reserve(d, d->coord_ring);
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    r->kind = (uint8_t)kind;
    r->input = -1;
    r->channel = -1;
    r->op = -1;
    r->subtask = -1;
    r->held_by = -1;
    r->t = weir__clock_now(&job->clock);
    r->wm = WEIR_TS_MIN;
    return r;
}

void weir__diag_checkpoint_trigger(weir_job *job, int64_t id, bool savepoint)
{
    weir__diag_rec *r = begin_job(job, WEIR_DIAG_KIND_CHECKPOINT_TRIGGER);
    if (!r)
        return;
    r->chk_id = id;
    r->flag = savepoint;
    ring_commit(job->diag, job->diag->coord_ring);
}

void weir__diag_checkpoint_end(weir_job *job, int64_t id, bool aborted, int64_t bytes,
                               int64_t duration_ms, const char *reason)
{
    weir__diag_rec *r = begin_job(job, WEIR_DIAG_KIND_CHECKPOINT_END);
    if (!r)
        return;
    r->chk_id = id;
    r->flag = aborted;
    r->bytes = bytes;
    r->duration_ms = duration_ms;
    if (reason)
        snprintf(r->key, sizeof r->key, "%s", reason);
    ring_commit(job->diag, job->diag->coord_ring);
}

static double fullest_output(const weir_ctx *ctx)
{
    double fill = 0;
    const weir__output *outs[1 + 16];
    int n = 0;
    outs[n++] = &ctx->out.main;
    for (int i = 0; i < ctx->out.nside && n < (int)(sizeof outs / sizeof outs[0]); i++)
        outs[n++] = &ctx->out.side[i];
    for (int k = 0; k < n; k++) {
        for (int g = 0; g < outs[k]->ngroups; g++) {
            for (int c = 0; c < outs[k]->groups[g].nch; c++) {
                double f = weir__channel_fill(outs[k]->groups[g].ch[c]);
                if (f > fill)
                    fill = f;
            }
        }
    }
    return fill;
}

void weir__diag_sample(weir__subtask *sub, int64_t now, bool final)
{
    weir_ctx *head = sub->ctxs[0];
    if (!WEIR__DIAG_ON(head, WEIR_DIAG_STANDARD))
        return;
    int64_t interval = now - sub->last_sample;
    if (interval <= 0 && !final)
        return;
    /* A blocked period still going on counts up to now. The scheduler adds a
     * period to blocked_ns only when it sees the subtask unblocked after a
     * step, and a saturated producer re-blocks inside the very step that got
     * credit back, so without this its whole run would be one period that is
     * counted only after the last sample (and backpressure would never
     * show). Same thread as the scheduler's bookkeeping: the subtask's
     * worker. */
    if (sub->blocked_since_ns) {
        const weir__clock *clock = &sub->job->clock;
        int64_t ns = clock->is_virtual ? now * 1000000 : weir__clock_now_ns(clock);
        if (ns > sub->blocked_since_ns) {
            sub->blocked_ns += ns - sub->blocked_since_ns;
            sub->blocked_since_ns = ns;
        }
    }
    int64_t blocked_ms = sub->blocked_ns / 1000000;
    for (int i = 0; i < sub->nctx; i++) {
        weir_ctx *ctx = sub->ctxs[i];
        int64_t in = ctx->diag.counters[WEIR__CNT_IN], out = ctx->diag.counters[WEIR__CNT_OUT];
        int64_t din = in - ctx->diag.last_counters[0], dout = out - ctx->diag.last_counters[1];
        if (din || dout) {
            weir__diag_rec *r = begin(ctx, WEIR_DIAG_KIND_THROUGHPUT);
            if (r) {
                r->t = now;
                r->in = din;
                r->out = dout;
                r->interval_ms = interval;
                r->max_ts = ctx->diag.max_ts;
                commit(ctx);
            }
            ctx->diag.last_counters[0] = in;
            ctx->diag.last_counters[1] = out;
            ctx->diag.max_ts = WEIR_TS_MIN;
        }
        if (ctx->diag.join &&
            (!ctx->diag.join_sent ||
             memcmp(ctx->diag.join_state, ctx->diag.join_sent_state,
                    sizeof ctx->diag.join_state) != 0)) {
            weir__diag_rec *r = begin(ctx, WEIR_DIAG_KIND_JOIN_STATE);
            if (r) {
                r->t = now;
                r->start = ctx->diag.join_state[0];
                r->end = ctx->diag.join_state[1];
                r->count = ctx->diag.join_state[2];
                commit(ctx);
            }
            memcpy(ctx->diag.join_sent_state, ctx->diag.join_state,
                   sizeof ctx->diag.join_state);
            ctx->diag.join_sent = true;
        }
        bool has_channels = ctx->out.main.ngroups > 0;
        for (int s = 0; s < ctx->out.nside; s++)
            has_channels |= ctx->out.side[s].ngroups > 0;
        if (blocked_ms > 0 && has_channels) {
            weir__diag_rec *r = begin(ctx, WEIR_DIAG_KIND_BACKPRESSURE);
            if (r) {
                r->t = now;
                r->blocked_ms = blocked_ms;
                r->interval_ms = interval;
                r->fill = fullest_output(ctx);
                commit(ctx);
            }
        }
    }
    sub->blocked_ns -= blocked_ms * 1000000;
    sub->last_sample = now;
}

/* ---- the collector -------------------------------------------------------- */

static void write_rec(struct weir__diag *d, const weir__diag_rec *r)
{
    weir__diag_encode_rec(d, r);
    weir_diag_event ev;
    /* the structured view only for the sinks that read it (the files take
     * the encoded bytes) */
    if (d->want_event) {
        weir__diag_rec_event(d, r, &ev);
    } else {
        ev.kind = (weir_diag_kind)r->kind;
        ev.t = r->t;
    }
    d->cur_rec = r;
    weir__diag_sinks_write(d, &ev);
    d->cur_rec = NULL;
}

/* Drains every ring once; returns how many records it wrote. Each record is
 * encoded from its slot and the slot handed back at once, so that a worker
 * waiting for room (a small ring) waits for one event, not a batch. */
static int drain(struct weir__diag *d)
{
    int n = 0;
    struct weir__live *live = d->sinks.live;
    for (int i = 0; i < d->nrings; i++) {
        weir__diag_ring *r = &d->rings[i];
        uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
        uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (live && h != t && !d->live_held) {
            weir__live_hold(live); /* once for the pass (live.h) */
            d->live_held = true;
        }
        /* a bounded batch per ring, so one busy worker cannot starve the others */
        for (int k = 0; k < 256 && h != t; k++, h++) {
            write_rec(d, &r->buf[h & r->mask]);
            atomic_store_explicit(&r->head, h + 1, memory_order_release);
            n++;
        }
    }
    if (d->live_held) {
        weir__live_release(live);
        d->live_held = false;
    }
    return n;
}

/* Parks until a producer (or stop) wakes it, unless a ring filled or the
 * channel stopped meanwhile. */
static void park(struct weir__diag *d)
{
    uint32_t seq = atomic_load(&d->wake_seq);
    atomic_store(&d->parked, 1); /* seq_cst: wake_collector's other half */
    if (rings_empty(d) && !atomic_load(&d->stop)) {
        d->parks++;
        weir__futex_wait(&d->wake_seq, seq, -1);
    }
    atomic_store(&d->parked, 0);
}

static void *collector_main(void *arg)
{
    struct weir__diag *d = arg;
    int empty = 0;
    for (;;) {
        bool stopping = atomic_load(&d->stop);
        if (drain(d) > 0) {
            empty = 0;
            continue;
        }
        if (stopping)
            break;
        if (empty < COLLECTOR_POLLS) {
            empty++;
            d->empty_polls++;
            struct timespec ts = {0, COLLECTOR_POLL_NS};
            nanosleep(&ts, NULL);
            continue;
        }
        park(d);
        empty = 0;
    }
    return NULL;
}

/* ---- lifecycle ------------------------------------------------------------ */

weir__diag_stats weir__diag_job_stats(const weir_job *job)
{
    return job->diag_stats;
}

int weir__diag_effective_level(const weir_job *job)
{
    const weir_diag_config *c = &job->cfg.diag;
    /* the HTTP server reads what the channel gathers: it is a sink too */
    bool any_sink = c->jsonl_path || c->msgpack_path || c->memory || c->callback ||
                    job->cfg.http_addr;
    /* a server asked for sees the standard level's events even where the
     * level says OFF (no capture wanted) */
    if (job->cfg.http_addr && c->level == WEIR_DIAG_OFF)
        return WEIR_DIAG_STANDARD;
    return any_sink ? (int)c->level : WEIR_DIAG_OFF;
}

static void diag_free(struct weir__diag *d)
{
    for (int i = 0; i < d->nop_json; i++)
        weir__buf_free(&d->op_json[i]);
    free(d->op_json);
    for (int i = 0; i < d->nrings; i++)
        free(d->rings[i].buf);
    free(d->rings);
    msgpack_sbuffer_destroy(&d->sbuf);
    weir__buf_free(&d->json);
    free(d);
}

int weir__diag_start(weir_job *job)
{
    int level = weir__diag_effective_level(job);
    if (level == WEIR_DIAG_OFF)
        return 0;
    struct weir__diag *d = calloc(1, sizeof *d);
    if (!d)
        return weir__job_fail(job, WEIR_ENOMEM, "diagnostics: out of memory");
    d->job = job;
    d->level = level;
    d->lossy = job->cfg.diag.lossy;
    /* The capacity asked for (1..WEIR__DIAG_RING_MAX, checked with the
     * config), rounded up to a power of two: every slot holds an event. */
    d->ring_size = weir__next_pow2((uint32_t)job->cfg.diag.ring_capacity);
    msgpack_sbuffer_init(&d->sbuf);
    msgpack_packer_init(&d->pk, d, weir__diag_pack_write);
    job->diag = d;
    int r = weir__diag_sinks_open(d);
    if (r) {
        job->diag = NULL;
        diag_free(d);
        return r;
    }
    for (int s = 0; s < job->plan->nsubs; s++) {
        weir__subtask *sub = job->plan->subs[s];
        for (int c = 0; c < sub->nctx; c++) {
            sub->ctxs[c]->diag.level = level;
            sub->ctxs[c]->diag.max_ts = WEIR_TS_MIN;
        }
    }
    return 0;
}

/* The job event, once: when the workers are made (it names how many), or at
 * stop if the run failed before that; then, for a restored job, what the
 * restore skipped and what it restored (known before the run: written here
 * whole rather than through a ring, whose records cut text at 63 bytes).
 * Job thread, collector not running. */
static void write_job(struct weir__diag *d)
{
    if (d->job_written)
        return;
    d->job_written = true;
    weir__diag_encode_job(d);
    weir_diag_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = WEIR_DIAG_KIND_JOB;
    weir__diag_sinks_write(d, &ev);
    const weir__restore_report *r = &d->job->restored;
    if (!r->id || d->level < WEIR_DIAG_STANDARD)
        return;
    for (int i = 0; i <= r->nreasons; i++) {
        const char *why = i < r->nreasons ? r->skip_reasons[i] : NULL;
        weir__diag_encode_restore(d, why);
        weir__diag_event_init(&ev, WEIR_DIAG_KIND_CHECKPOINT_RESTORE);
        ev.checkpoint_id = why ? -1 : r->id;
        ev.reason = why;
        weir__diag_sinks_write(d, &ev);
    }
}

/* Workers get their rings when the scheduler made them (sched_run calls). */
int weir__diag_attach_workers(weir_job *job)
{
    struct weir__diag *d = job->diag;
    if (!d)
        return 0;
    write_job(d);
    if (d->level < WEIR_DIAG_STANDARD)
        return 0;
    /* one ring per worker, and one for the checkpoint coordinator's thread */
    d->rings = calloc((size_t)job->nworkers + 1, sizeof *d->rings);
    if (!d->rings)
        return weir__job_fail(job, WEIR_ENOMEM, "diagnostics: out of memory");
    d->nrings = job->nworkers + 1;
    for (int i = 0; i < d->nrings; i++) {
        d->rings[i].buf = calloc(d->ring_size, sizeof *d->rings[i].buf);
        if (!d->rings[i].buf)
            return weir__job_fail(job, WEIR_ENOMEM, "diagnostics: out of memory");
        d->rings[i].mask = d->ring_size - 1;
        if (i < job->nworkers)
            job->workers[i].diag = &d->rings[i];
    }
    d->coord_ring = &d->rings[job->nworkers];
    /* pthread_create returns its error instead of setting errno. */
    int pe = pthread_create(&d->collector, NULL, collector_main, d);
    if (pe != 0)
        return weir__job_fail(job, WEIR_ENOMEM, "diagnostics: cannot start the collector thread: %s",
                              strerror(pe));
    d->collector_started = true;
    return 0;
}

void weir__diag_stop(weir_job *job)
{
    struct weir__diag *d = job->diag;
    if (!d)
        return;
    if (d->collector_started) {
        atomic_store(&d->stop, 1);
        atomic_fetch_add(&d->wake_seq, 1);
        weir__futex_wake(&d->wake_seq);
        pthread_join(d->collector, NULL);
    }
    write_job(d);
    drain(d); /* whatever the collector had not reached (it stopped) */
    /* One reading of the clock for both forms of the event: on the system
     * clock two readings can differ by a millisecond. */
    int64_t now = weir__clock_now(&job->clock);
    weir__diag_encode_summary(d, now);
    weir_diag_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = WEIR_DIAG_KIND_SUMMARY;
    ev.t = now;
    weir__diag_sinks_write(d, &ev);
    weir__diag_sinks_close(d, true);
    if (d->sinks.failed)
        weir__job_fail(job, d->sinks.failure_code, "diagnostics: %s", d->sinks.failure);
    job->diag_stats = (weir__diag_stats){.events = d->events,
                                         .dropped = weir__diag_dropped(d),
                                         .waited = weir__diag_waited(d),
                                         .empty_polls = d->empty_polls,
                                         .parks = d->parks,
                                         .ring_size = d->ring_size};
    for (int i = 0; i < d->nrings && i < job->nworkers; i++)
        job->workers[i].diag = NULL;
    job->diag = NULL;
    diag_free(d);
}

int64_t weir__diag_dropped(const struct weir__diag *d)
{
    int64_t n = 0;
    for (int i = 0; i < d->nrings; i++)
        n += d->rings[i].dropped;
    return n;
}

int64_t weir__diag_waited(const struct weir__diag *d)
{
    int64_t n = 0;
    for (int i = 0; i < d->nrings; i++)
        n += d->rings[i].waited;
    return n;
}
