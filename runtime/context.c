/* context.c — the runtime side of the operator API (weir/operator.h): what
 * happens when an operator emits a record, a watermark or a status, how a
 * record, a watermark and a timer reach an operator, and the context queries.
 *
 * The flow through one subtask: a channel's batch (or the harness) gives the
 * head operator its records one by one (weir__ctx_record) and its merged
 * watermarks and statuses (weir__ctx_advance_watermark, weir__ctx_status).
 * Whatever an operator emits goes, in order, to every operator chained to
 * that output (a plain call, so the chained operator runs to completion
 * before emit returns), to the channel groups of that output (copied into the
 * open batch of the partition's channel), and in a harness to its capture.
 * Watermarks and statuses leave an operator only through its output gate, and
 * go to every output, side outputs included: downstream of any output,
 * "everything emitted before W arrives before W" holds.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "scheduler.h"
#include "diag.h"
#include "error_slot.h"
#include "job_state.h"
#include "key_group.h"
#include "subtask.h"
#include "task.h"
#include "util.h"
#include "weir/error.h"
#include "weir/operator.h"
#include "weir/operator_builtin.h"

static void allow_emit(weir_ctx *ctx, bool allowed);

/* A chained output's buffer: at most this many bytes of slots (at least
 * WEIR__CHAIN_BUFFER_MIN slots), and never more than the job's batch
 * capacity (weir__output_prepare). */
#define WEIR__CHAIN_BUFFER_BYTES (32u * 1024u)
#define WEIR__CHAIN_BUFFER_MIN 16u

/* Every walk over a context's outputs goes main output first, then each side
 * output in declaration order:
 *     FOR_EACH_OUTPUT(ctx, o) { ... } */
static inline weir__output *next_output(weir_ctx *ctx, const weir__output *o)
{
    ptrdiff_t next = o == &ctx->out.main ? 0 : o - ctx->out.side + 1;
    return next < ctx->out.nside ? &ctx->out.side[next] : NULL;
}
#define FOR_EACH_OUTPUT(ctx, o) for (weir__output *o = &(ctx)->out.main; o; o = next_output((ctx), o))

/* ---- failures ------------------------------------------------------------- */

/* The format attribute makes the compiler check fmt at weir_ctx_fail's callers
 * (a literal there) instead of warning here that fmt is not one. */
static int vfail(weir_ctx *ctx, int err, const char *fmt, va_list ap) WEIR_PRINTF(3, 0);

static int vfail(weir_ctx *ctx, int err, const char *fmt, va_list ap)
{
    char what[768];
    vsnprintf(what, sizeof what, fmt, ap);
    return weir__errors_set(ctx->errors, err, "operator '%s' subtask %d: %s", ctx->node->name,
                            ctx->subtask, what);
}

int weir_ctx_fail(weir_ctx *ctx, int err, const char *fmt, ...)
{
    if (err >= 0)
        err = WEIR_ECALLBACK;
    if (!ctx->error)
        ctx->error = err;
    va_list ap;
    va_start(ap, fmt);
    vfail(ctx, err, fmt, ap);
    va_end(ap);
    return err;
}

/* A callback returned `r` < 0: make sure the job's message names it. */
static int callback_failed(weir_ctx *ctx, int r, const char *callback)
{
    return weir_ctx_fail(ctx, r, "%s failed: %s (%s)", callback, weir_strerror(r), weir_err_name(r));
}

/* ---- lifecycle ------------------------------------------------------------ */

int weir__ctx_init(weir_ctx *ctx, weir_job *job, weir__subtask *sub, const weir__node *node,
                   int subtask)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->sub = sub;
    ctx->node = node;
    ctx->job = job;
    ctx->is_source = node->is_source;
    ctx->vt = node->op;
    ctx->svt = node->source;
    ctx->arg = node->arg;
    ctx->subtask = subtask;
    ctx->parallelism = node->parallelism;
    ctx->input.wm = WEIR_TS_MIN;
    ctx->input.handling_ts = WEIR_NO_TIMESTAMP;
    ctx->wait_until = INT64_MIN;
    weir__gate_init(&ctx->out.gate);
    ctx->out.main.tag = 0;
    ctx->out.main.elem_size = node->out_size;
    ctx->diag.level = WEIR_DIAG_OFF;

    ctx->keyed.in_key[0] = node->in_key[0];
    ctx->keyed.in_key[1] = node->in_key[1];
    ctx->keyed.key_size = node->in_key[0] ? node->in_key[0]->spec.key_size : 0;
    ctx->keyed.key_buf = calloc(1, sizeof *ctx->keyed.key_buf + ctx->keyed.key_size + 8);
    ctx->timers.key = calloc(1, ctx->keyed.key_size + 8);
    if (!ctx->keyed.key_buf || !ctx->timers.key)
        return WEIR_ENOMEM;
    int r = weir__timers_init(&ctx->timers.event, ctx->keyed.key_size);
    if (r == 0)
        r = weir__timers_init(&ctx->timers.processing, ctx->keyed.key_size);
    if (r)
        return r;
    if (node->nside > 0) {
        ctx->out.side = calloc((size_t)node->nside, sizeof *ctx->out.side);
        if (!ctx->out.side)
            return WEIR_ENOMEM;
        ctx->out.nside = node->nside;
        for (int i = 0; i < node->nside; i++) {
            ctx->out.side[i].tag = node->side[i].tag;
            ctx->out.side[i].elem_size = node->side[i].elem_size;
        }
    }
    return 0;
}

static void free_output(weir__output *o)
{
    free(o->buf);
    free(o->scratch);
    free(o->chained);
    for (int g = 0; g < o->ngroups; g++) {
        free(o->groups[g].ch);
        free(o->groups[g].keybuf);
        free(o->groups[g].kg_channel);
    }
    free(o->groups);
}

void weir__ctx_free(weir_ctx *ctx)
{
    FOR_EACH_OUTPUT(ctx, o)
        free_output(o);
    free(ctx->out.side);
    for (int i = 0; i < ctx->keyed.nstates; i++)
        weir__state_free(&ctx->keyed.states[i]);
    free(ctx->keyed.states);
    weir__timers_free(&ctx->timers.event);
    weir__timers_free(&ctx->timers.processing);
    weir__inbox_free(&ctx->input.inbox);
    free(ctx->keyed.key_buf);
    free(ctx->keyed.ahead_keys);
    free(ctx->timers.key);
    weir__partitions_free(ctx);
}

int weir__ctx_open(weir_ctx *ctx)
{
    int r = 0;
    ctx->lifecycle.in_open = true;
    ctx->input.handling_ts = WEIR_NO_TIMESTAMP;
    allow_emit(ctx, false);
    if (ctx->is_source) {
        if (ctx->svt.open)
            r = ctx->svt.open(ctx);
    } else if (ctx->vt.open) {
        r = ctx->vt.open(ctx);
    }
    ctx->lifecycle.in_open = false;
    allow_emit(ctx, true);
    if (r < 0)
        return callback_failed(ctx, r, "open");
    ctx->lifecycle.opened = true;
    return 0;
}

void weir__ctx_close(weir_ctx *ctx)
{
    if (!ctx->lifecycle.opened || ctx->lifecycle.closed)
        return;
    ctx->lifecycle.closed = true;
    ctx->lifecycle.in_close = true;
    ctx->input.handling_ts = WEIR_NO_TIMESTAMP;
    allow_emit(ctx, false);
    if (ctx->is_source) {
        if (ctx->svt.close)
            ctx->svt.close(ctx);
    } else if (ctx->vt.close) {
        ctx->vt.close(ctx);
    }
    ctx->lifecycle.in_close = false;
}

static int end_now(weir_ctx *ctx);

static int end_output(weir__output *o)
{
    for (int i = 0; i < o->nchained; i++) {
        int r = weir__ctx_end_chain(o->chained[i]);
        if (r < 0)
            return r;
    }
    return 0;
}

static int hold_control(weir_ctx *ctx, weir__ctrl ctrl, int64_t value);

int weir__ctx_end_chain(weir_ctx *ctx)
{
    if (ctx->lifecycle.ended)
        return 0;
    if (WEIR__UNLIKELY(ctx->input.held))
        return hold_control(ctx, WEIR__CTRL_END, 0);
    return end_now(ctx);
}

static int end_now(weir_ctx *ctx)
{
    ctx->lifecycle.ended = true;
    ctx->input.handling_ts = WEIR_NO_TIMESTAMP;
    if (!ctx->is_source && ctx->vt.on_end) {
        int r = ctx->vt.on_end(ctx);
        if (r < 0)
            return callback_failed(ctx, r, "on_end");
    }
    int r = weir__ctx_flush_chained(ctx);
    if (r < 0)
        return r;
    FOR_EACH_OUTPUT(ctx, o) {
        if ((r = end_output(o)) < 0)
            return r;
    }
    return 0;
}

/* ---- records -------------------------------------------------------------- */

/* The emit cursor over a one-channel main output: the inline weir_emit
 * writes straight into the channel's open batch, as it writes into a
 * chained operator's buffer. While it is on, the batch's count is stale:
 * whatever reads or sends the batch turns it off first (end of step,
 * watermark or status, end, the buffer timeout), which counts what was
 * written; the next emit turns it on again. */
static bool channel_cursor_is_on(const weir_ctx *ctx)
{
    return ctx->cursor.next != NULL && ctx->out.main.one_channel;
}

static void channel_cursor_off(weir_ctx *ctx)
{
    if (!channel_cursor_is_on(ctx))
        return;
    weir__channel *ch = ctx->out.main.groups[0].ch[0];
    weir__batch *b = ch->current;
    uint32_t n = (uint32_t)((size_t)(ctx->cursor.next - b->data) / ch->stride);
    ctx->diag.counters[WEIR__CNT_OUT] += n - b->count;
    b->count = n;
    ctx->cursor.next = NULL;
    ctx->cursor.end = NULL;
}

static int channel_cursor_on(weir_ctx *ctx)
{
    weir__channel *ch = ctx->out.main.groups[0].ch[0];
    unsigned char *slot = weir__channel_reserve(ch);
    if (WEIR__UNLIKELY(!slot))
        return WEIR_ENOMEM;
    ctx->cursor.next = slot;
    ctx->cursor.end = ch->current->data + (size_t)ch->capacity * ch->stride;
    return 0;
}

void weir__ctx_sync_channel(weir_ctx *ctx)
{
    channel_cursor_off(ctx);
}

static void set_fast_paths(weir__output *o, bool allowed)
{
    o->only_chained = allowed && o->elem_size && o->nchained && !o->ngroups && !o->capture;
    o->one_channel = allowed && o->elem_size && !o->nchained && o->ngroups == 1 &&
                     o->groups[0].nch == 1 && !o->capture;
    o->spread = allowed && o->elem_size && !o->nchained && o->ngroups == 1 &&
                o->groups[0].nch > 1 && !o->capture &&
                (o->groups[0].part == WEIR__PART_HASH || o->groups[0].part == WEIR__PART_REBALANCE);
}

/* Emitting is refused in open() and close(): the fast paths are off then, so
 * the one check left is on the slow path. */
static void allow_emit(weir_ctx *ctx, bool allowed)
{
    weir__output *o = &ctx->out.main;
    channel_cursor_off(ctx);
    if (ctx->cursor.next)
        o->count = (uint32_t)((size_t)(ctx->cursor.next - o->buf) / o->stride);
    FOR_EACH_OUTPUT(ctx, each)
        set_fast_paths(each, allowed);
    ctx->cursor.stride = o->stride;
    ctx->cursor.elem_size = (uint32_t)o->elem_size;
    if (o->only_chained) {
        ctx->cursor.next = o->buf + (size_t)o->count * o->stride;
        ctx->cursor.end = o->buf + (size_t)o->cap * o->stride;
        o->count = 0;
    } else {
        ctx->cursor.next = NULL;
        ctx->cursor.end = NULL;
    }
}

int weir__output_prepare(weir__output *o, uint32_t batch_capacity)
{
    o->stride = (uint32_t)weir__slot_stride(o->elem_size);
    if (!o->scratch) {
        o->scratch = calloc(1, o->elem_size + 8);
        if (!o->scratch)
            return WEIR_ENOMEM;
    }
    if (o->nchained > 0 && !o->buf) {
        /* A chain hands each buffer on as soon as it is full, so a smaller
         * one costs only calls; wide records get fewer slots, so that a
         * chain's buffers stay in the core's cache together instead of
         * streaming through the shared one (a Nexmark row is 1.5 KB: 512
         * of them were 768 KB an operator; Nexmark's stateless queries
         * took a tenth less CPU with 32 KB buffers, and 16 KB, 32 KB and
         * 64 KB were within the noise of each other). */
        uint32_t fit = (uint32_t)(WEIR__CHAIN_BUFFER_BYTES / o->stride);
        if (fit < WEIR__CHAIN_BUFFER_MIN)
            fit = WEIR__CHAIN_BUFFER_MIN;
        o->cap = batch_capacity < fit ? batch_capacity : fit;
        o->buf = aligned_alloc(16, weir__round_up((size_t)o->cap * o->stride, 16));
        if (!o->buf)
            return WEIR_ENOMEM;
    }
    set_fast_paths(o, true);
    return 0;
}

void weir__ctx_ready(weir_ctx *ctx)
{
    allow_emit(ctx, true);
}

/* Copies an element into a slot (the header's inline copy). */
static inline void copy_elem(unsigned char *dst, const void *src, size_t size)
{
    weir__copy_elem(dst, src, (uint32_t)size);
}

/* The channel of a record's key in a hash-partitioned group. By key group:
 * the subtask that owns the key's group owns its state, at any parallelism
 * (kg_channel is key_group.h's weir__key_subtask, tabulated). */
static inline weir__channel *hash_channel(weir__outgroup *g, const void *elem)
{
    const weir_key_spec *k = &g->key->spec;
    k->extract(elem, g->keybuf, k->arg);
    uint64_t h = weir__hash_key(g->keybuf, k->key_size);
    return g->ch[g->kg_channel[weir__key_group(h, g->max_parallelism)]];
}

/* The channel a record goes to in a group (not for broadcast). */
static inline weir__channel *pick_channel(weir__outgroup *g, const void *elem)
{
    switch (g->part) {
    case WEIR__PART_HASH:
        return hash_channel(g, elem);
    case WEIR__PART_REBALANCE: {
        weir__channel *ch = g->ch[g->rr];
        if (++g->rr == (uint32_t)g->nch)
            g->rr = 0;
        return ch;
    }
    default:
        return g->ch[0];
    }
}

static int write_slot(weir__channel *ch, const void *elem, size_t size, int64_t ts)
{
    unsigned char *slot = weir__channel_reserve(ch);
    if (WEIR__UNLIKELY(!slot))
        return WEIR_ENOMEM;
    WEIR__SLOT_TS(slot) = ts;
    copy_elem(WEIR__SLOT_ELEM(slot), elem, size);
    weir__channel_commit(ch);
    return 0;
}

static int write_group(weir__outgroup *g, const void *elem, size_t size, int64_t ts)
{
    if (g->part == WEIR__PART_BROADCAST) {
        for (int i = 0; i < g->nch; i++) {
            int r = write_slot(g->ch[i], elem, size, ts);
            if (r < 0)
                return r;
        }
        return 0;
    }
    return write_slot(pick_channel(g, elem), elem, size, ts);
}

/* A record's counters and diagnostics, then on_record (its key set). */
static inline int on_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    /* Left as it is after the call: every other callback's dispatch sets
     * its own (one store a record, not two). */
    ctx->input.handling_ts = ts;
    int r = ctx->vt.on_record(ctx, input, elem, ts);
    if (WEIR__UNLIKELY(r < 0))
        return callback_failed(ctx, r, "on_record");
    return 0;
}

static inline void count_record(weir_ctx *ctx, int64_t ts)
{
    ctx->diag.counters[WEIR__CNT_IN]++;
    if (WEIR__DIAG_ON(ctx, WEIR_DIAG_STANDARD))
        weir__diag_record(ctx, ts);
}

/* Keyed records whose state the operator fetches ahead (weir_state_prefetch).
 * When record i is delivered, record i + AHEAD_SLOT has its key extracted
 * and hashed and its slot fetched, record i + AHEAD_ENTRY its entry, record
 * i + AHEAD_ELEMS its list's last element: every stage a few records after
 * the one it reads, so that each load has had time to arrive. A record is
 * then delivered with that key and hash (neither computed twice). */
#define AHEAD_SLOT 12
#define AHEAD_ENTRY 8
#define AHEAD_ELEMS 4
_Static_assert(AHEAD_SLOT < WEIR__AHEAD_RING, "the ring holds the records in flight");
#define AHEAD_INLINE static inline __attribute__((always_inline))

/* The records in flight: keys, key hashes, and their state's hashes. */
typedef struct ahead {
    const weir__key *key;
    const weir__state *st;
    const weir_batch *b;
    unsigned char *keys; /* WEIR__AHEAD_RING of them */
    uint64_t key_hash[WEIR__AHEAD_RING], h[WEIR__AHEAD_RING];
} ahead;

AHEAD_INLINE void ahead_slot(ahead *a, uint32_t j, size_t ks)
{
    unsigned char *key = a->keys + (j % WEIR__AHEAD_RING) * ks;
    a->key->spec.extract(WEIR__SLOT_ELEM(a->b->data + (size_t)j * a->b->stride), key,
                         a->key->spec.arg);
    uint64_t kh = weir__hash_key(key, ks), h = weir__state_hash(kh, 0);
    a->key_hash[j % WEIR__AHEAD_RING] = kh;
    a->h[j % WEIR__AHEAD_RING] = h;
    weir__state_ahead_slot(a->st, h);
}

AHEAD_INLINE void ahead_entry(const ahead *a, uint32_t j)
{
    weir__state_ahead_entry(a->st, a->h[j % WEIR__AHEAD_RING]);
}

AHEAD_INLINE void ahead_elems(const ahead *a, uint32_t j)
{
    weir__state_ahead_elems(a->st, a->h[j % WEIR__AHEAD_RING]);
}

/* From the first record of b; with `stop_when_blocked`, stops after a record
 * whose output blocked (then 1). *taken: the records delivered. */
AHEAD_INLINE int take_ahead_sized(weir_ctx *ctx, int input, const weir_batch *b,
                                  bool stop_when_blocked, uint32_t *taken, size_t ks)
{
    ahead a = {.key = ctx->keyed.in_key[input],
               .st = &ctx->keyed.states[ctx->keyed.ahead - 1],
               .b = b,
               .keys = ctx->keyed.ahead_keys};
    const uint32_t n = b->count;
    for (uint32_t j = 0; j < n && j < AHEAD_SLOT; j++)
        ahead_slot(&a, j, ks);
    for (uint32_t j = 0; j < n && j < AHEAD_ENTRY; j++)
        ahead_entry(&a, j);
    for (uint32_t j = 0; j < n && j < AHEAD_ELEMS; j++)
        ahead_elems(&a, j);
    for (uint32_t i = 0; i < n; i++) {
        if (WEIR__LIKELY(i + AHEAD_SLOT < n)) {
            ahead_slot(&a, i + AHEAD_SLOT, ks);
            ahead_entry(&a, i + AHEAD_ENTRY);
            ahead_elems(&a, i + AHEAD_ELEMS);
        } else {
            if (i + AHEAD_ENTRY < n)
                ahead_entry(&a, i + AHEAD_ENTRY);
            if (i + AHEAD_ELEMS < n)
                ahead_elems(&a, i + AHEAD_ELEMS);
        }
        const unsigned char *slot = b->data + (size_t)i * b->stride;
        count_record(ctx, WEIR__SLOT_TS(slot));
        memcpy(ctx->keyed.key_buf->key, a.keys + (i % WEIR__AHEAD_RING) * ks, ks);
        ctx->keyed.key_hash = a.key_hash[i % WEIR__AHEAD_RING];
        ctx->keyed.key_hashed = true;
        ctx->keyed.has_key = true;
        *taken = i + 1;
        int r = on_record(ctx, input, WEIR__SLOT_ELEM(slot), WEIR__SLOT_TS(slot));
        if (WEIR__UNLIKELY(r < 0))
            return r;
        if (stop_when_blocked && WEIR__UNLIKELY(ctx->sub->out_blocked))
            return 1;
    }
    return 0;
}

/* The usual 8-byte key (an int64) with its size known to the compiler: its
 * hash without XXH3's dispatch on length, its copy one move. */
static int take_ahead(weir_ctx *ctx, int input, const weir_batch *b, bool stop_when_blocked,
                      uint32_t *taken)
{
    if (ctx->keyed.key_size == 8)
        return take_ahead_sized(ctx, input, b, stop_when_blocked, taken, 8);
    return take_ahead_sized(ctx, input, b, stop_when_blocked, taken, ctx->keyed.key_size);
}

/* Whether the records of `input` take the prefetching path: when the
 * operator asked for it, and its state has outgrown what the cache keeps
 * (below that a lookup mostly hits, and fetching ahead costs more than it
 * hides: table-group-count's 1 000 groups ran 3% slower with it at 256 KB,
 * sql-topn's 1 000 keys 4%). */
#define AHEAD_MIN_BYTES ((size_t)1024 * 1024)

static bool takes_ahead(const weir_ctx *ctx, int input)
{
    if (!ctx->keyed.ahead || !ctx->keyed.in_key[input])
        return false;
    const weir__state *st = &ctx->keyed.states[ctx->keyed.ahead - 1];
    size_t lists = st->kind == WEIR_STATE_LIST ? (size_t)st->elems * st->size : 0;
    return weir__keymap_memory(&st->map) + lists >= AHEAD_MIN_BYTES;
}

/* Hands a run of records to an operator: its on_batch if it has one and the
 * input is not keyed, else record by record. */
static int deliver_now(weir_ctx *ctx, int input, const weir_batch *b)
{
    if (weir__ctx_takes_batches(ctx, input)) {
        ctx->diag.counters[WEIR__CNT_IN] += b->count;
        if (WEIR__DIAG_ON(ctx, WEIR_DIAG_STANDARD))
            weir__diag_batch(ctx, b);
        ctx->input.handling_ts = WEIR_NO_TIMESTAMP;
        int r = ctx->vt.on_batch(ctx, input, b);
        if (WEIR__UNLIKELY(r < 0))
            return weir_ctx_fail(ctx, r, "on_batch failed: %s (%s)", weir_strerror(r),
                                 weir_err_name(r));
        return 0;
    }
    if (takes_ahead(ctx, input)) {
        uint32_t taken;
        return take_ahead(ctx, input, b, false, &taken);
    }
    for (uint32_t i = 0; i < b->count; i++) {
        const unsigned char *slot = b->data + (size_t)i * b->stride;
        int r = weir__ctx_record(ctx, input, WEIR__SLOT_ELEM(slot), WEIR__SLOT_TS(slot));
        if (WEIR__UNLIKELY(r < 0))
            return r;
    }
    return 0;
}

/* The same, or into the inbox of a held operator. */
static int deliver(weir_ctx *ctx, int input, const weir_batch *b)
{
    if (WEIR__UNLIKELY(ctx->input.held)) {
        if (weir__inbox_records(&ctx->input.inbox, b) < 0)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory holding records");
        return 0;
    }
    return deliver_now(ctx, input, b);
}

int weir__ctx_take(weir_ctx *ctx, int input, const weir_batch *unread, uint32_t *taken)
{
    if (weir__ctx_takes_batches(ctx, input)) {
        *taken = unread->count;
        return deliver(ctx, input, unread);
    }
    /* Record by record, stopping after one whose output blocked: the rest,
     * and the batch's control message, wait in the channel, where they cost
     * no memory. */
    if (takes_ahead(ctx, input))
        return take_ahead(ctx, input, unread, true, taken);
    for (uint32_t i = 0; i < unread->count; i++) {
        const unsigned char *slot = unread->data + (size_t)i * unread->stride;
        *taken = i + 1;
        int r = weir__ctx_record(ctx, input, WEIR__SLOT_ELEM(slot), WEIR__SLOT_TS(slot));
        if (WEIR__UNLIKELY(r < 0))
            return r;
        if (WEIR__UNLIKELY(ctx->sub->out_blocked))
            return 1;
    }
    return 0;
}

static int flush_output(weir__output *o)
{
    if (o->count == 0)
        return 0;
    weir_batch b = {.data = o->buf, .count = o->count, .stride = o->stride};
    /* Reset first: a chained operator never emits into its parent, but a
     * failure half-way must not deliver the same records twice. */
    o->count = 0;
    for (int i = 0; i < o->nchained; i++) {
        int r = deliver(o->chained[i], 0, &b);
        if (WEIR__UNLIKELY(r < 0))
            return r;
    }
    return 0;
}

/* The main output's buffer, when the cursor tracks it: its records count as
 * emitted now (the inline fast path does not count one by one). */
static int flush_main(weir_ctx *ctx)
{
    weir__output *o = &ctx->out.main;
    if (!ctx->cursor.next)
        return flush_output(o);
    uint32_t n = (uint32_t)((size_t)(ctx->cursor.next - o->buf) / o->stride);
    if (n == 0)
        return 0;
    ctx->diag.counters[WEIR__CNT_OUT] += n;
    ctx->cursor.next = o->buf;
    o->count = n;
    return flush_output(o);
}

int weir__emit_full(weir_ctx *ctx)
{
    if (channel_cursor_is_on(ctx)) {
        /* The channel's batch is full: sent (or pending), and the next
         * emit opens the next one. */
        channel_cursor_off(ctx);
        weir__channel_commit_full(ctx->out.main.groups[0].ch[0]);
        return 0;
    }
    return flush_main(ctx);
}

int weir__ctx_flush_chained(weir_ctx *ctx)
{
    channel_cursor_off(ctx);
    /* The main output's records may be counted by the cursor, not by count. */
    int r = flush_main(ctx);
    for (weir__output *o = next_output(ctx, &ctx->out.main); r == 0 && o; o = next_output(ctx, o))
        r = flush_output(o);
    return r;
}

/* The common tail of emit and commit: the element is in place for chained
 * operators already if `in_buf`. */
static int send_rest(weir__output *o, const void *elem, int64_t ts)
{
    o->general_records++;
    for (int g = 0; g < o->ngroups; g++) {
        int r = write_group(&o->groups[g], elem, o->elem_size, ts);
        if (WEIR__UNLIKELY(r < 0))
            return r;
    }
    if (WEIR__UNLIKELY(o->capture != NULL))
        o->capture->on_record(o->tag, elem, ts, o->capture->arg);
    return 0;
}

/* Opens a batch on a spread output's channel and writes the record there
 * (the first record after a batch was sent). */
static __attribute__((noinline)) int spread_open(weir__channel *ch, const void *elem, size_t size,
                                                 int64_t ts)
{
    return write_slot(ch, elem, size, ts);
}

/* A record into channel `ch` of a spread output (set_fast_paths): the
 * channel's open batch is written in place. Element sizes of one, two or
 * three words copy as fixed moves. */
static inline int spread_slot(weir__output *o, weir__channel *ch, const void *elem, int64_t ts)
{
    weir__batch *b = ch->current;
    const size_t size = o->elem_size;
    if (WEIR__UNLIKELY(b == NULL))
        return spread_open(ch, elem, size, ts);
    unsigned char *slot = b->data + (size_t)b->count * ch->stride;
    WEIR__SLOT_TS(slot) = ts;
    unsigned char *dst = WEIR__SLOT_ELEM(slot);
    switch (size) {
    case 8:
        memcpy(dst, elem, 8);
        break;
    case 16:
        memcpy(dst, elem, 16);
        break;
    case 24:
        memcpy(dst, elem, 24);
        break;
    default:
        weir__copy_elem(dst, elem, (uint32_t)size);
        break;
    }
    weir__channel_commit(ch);
    return 0;
}

static inline int spread_write(weir__output *o, const void *elem, int64_t ts)
{
    return spread_slot(o, pick_channel(&o->groups[0], elem), elem, ts);
}

/* weir_emit into a spread output, one function per partitioning so that
 * the round-robin one stays a leaf (no call, no saved registers). */
static __attribute__((noinline)) int spread_emit_rebalance(weir_ctx *ctx, const void *elem,
                                                           int64_t ts)
{
    weir__output *o = &ctx->out.main;
    weir__outgroup *g = &o->groups[0];
    weir__channel *ch = g->ch[g->rr];
    if (++g->rr == (uint32_t)g->nch)
        g->rr = 0;
    ctx->diag.counters[WEIR__CNT_OUT]++;
    return spread_slot(o, ch, elem, ts);
}

static __attribute__((noinline)) int spread_emit_hash(weir_ctx *ctx, const void *elem, int64_t ts)
{
    weir__output *o = &ctx->out.main;
    ctx->diag.counters[WEIR__CNT_OUT]++;
    return spread_slot(o, hash_channel(&o->groups[0], elem), elem, ts);
}

static inline int emit_to(weir__output *o, const void *elem, int64_t ts)
{
    if (o->spread)
        return spread_write(o, elem, ts);
    if (WEIR__LIKELY(o->only_chained)) {
        unsigned char *slot = o->buf + (size_t)o->count * o->stride;
        WEIR__SLOT_TS(slot) = ts;
        copy_elem(WEIR__SLOT_ELEM(slot), elem, o->elem_size);
        if (WEIR__UNLIKELY(++o->count == o->cap))
            return flush_output(o);
        return 0;
    }
    if (o->one_channel)
        return write_slot(o->groups[0].ch[0], elem, o->elem_size, ts);
    if (o->nchained) {
        unsigned char *slot = o->buf + (size_t)o->count * o->stride;
        WEIR__SLOT_TS(slot) = ts;
        copy_elem(WEIR__SLOT_ELEM(slot), elem, o->elem_size);
        if (WEIR__UNLIKELY(++o->count == o->cap)) {
            int r = send_rest(o, elem, ts);
            return r < 0 ? r : flush_output(o);
        }
    }
    return send_rest(o, elem, ts);
}

static int emit_refused(weir_ctx *ctx, const char *call)
{
    return weir_ctx_fail(ctx, WEIR_ESTATE, "%s: %s", call,
                         ctx->out.main.elem_size == 0 ? "the operator has no main output"
                                                  : "not allowed in open() or close()");
}

/* Everything the inline weir_emit does not do itself: a refusal, or an
 * output that is not chained-only. */
static __attribute__((noinline)) int emit_general(weir_ctx *ctx, const void *elem, int64_t ts)
{
    weir__output *o = &ctx->out.main;
    if (o->elem_size == 0 || ctx->lifecycle.in_close || ctx->lifecycle.in_open)
        return emit_refused(ctx, "weir_emit");
    if (o->one_channel) {
        /* The cursor is off: on again, and this record the first it writes. */
        int r = channel_cursor_on(ctx);
        return r < 0 ? r : weir_emit(ctx, elem, ts);
    }
    ctx->diag.counters[WEIR__CNT_OUT]++;
    return emit_to(o, elem, ts);
}

/* A dispatch of tail calls only, so that the spread paths pay no saved
 * registers for the general one. */
int weir__emit_slow(weir_ctx *ctx, const void *elem, int64_t ts)
{
    const weir__output *o = &ctx->out.main;
    if (WEIR__LIKELY(o->spread)) {
        /* Set only while emitting is allowed (allow_emit). */
        if (o->groups[0].part == WEIR__PART_REBALANCE)
            return spread_emit_rebalance(ctx, elem, ts);
        return spread_emit_hash(ctx, elem, ts);
    }
    return emit_general(ctx, elem, ts);
}

void *weir__emit_reserve_slow(weir_ctx *ctx)
{
    weir__output *o = &ctx->out.main;
    /* A round-robin spread output knows the record's channel before the
     * record: in place there too (commit counts it). */
    if (o->spread && o->groups[0].part == WEIR__PART_REBALANCE) {
        weir__outgroup *g = &o->groups[0];
        weir__channel *ch = g->ch[g->rr];
        unsigned char *slot = weir__channel_reserve(ch);
        if (WEIR__UNLIKELY(!slot)) {
            weir_ctx_fail(ctx, WEIR_ENOMEM, "weir_emit_reserve: out of memory");
            return NULL;
        }
        o->reserved = ch;
        o->reserved_slot = slot;
        return WEIR__SLOT_ELEM(slot);
    }
    /* In place into the one channel of a one-channel output (the cursor
     * goes on, and the inline commit counts the slot); elsewhere (a hash
     * partitioner needs the element first) into the scratch element,
     * copied out at commit. */
    if (o->one_channel) {
        if (WEIR__UNLIKELY(channel_cursor_on(ctx) < 0)) {
            weir_ctx_fail(ctx, WEIR_ENOMEM, "weir_emit_reserve: out of memory");
            return NULL;
        }
        return WEIR__SLOT_ELEM(ctx->cursor.next);
    }
    if (WEIR__UNLIKELY(o->elem_size == 0 || ctx->lifecycle.in_close || ctx->lifecycle.in_open)) {
        emit_refused(ctx, "weir_emit_reserve");
        return NULL;
    }
    return o->scratch;
}

static __attribute__((noinline)) int commit_general(weir_ctx *ctx, int64_t timestamp)
{
    weir__output *o = &ctx->out.main;
    ctx->diag.counters[WEIR__CNT_OUT]++;
    return emit_to(o, o->scratch, timestamp);
}

int weir__emit_commit_slow(weir_ctx *ctx, int64_t timestamp)
{
    weir__output *o = &ctx->out.main;
    weir__channel *ch = o->reserved;
    if (WEIR__LIKELY(ch != NULL)) {
        /* The slot weir__emit_reserve_slow handed out, on the round-robin's
         * next channel: the next record goes to the one after. */
        weir__outgroup *g = &o->groups[0];
        if (++g->rr == (uint32_t)g->nch)
            g->rr = 0;
        o->reserved = NULL;
        ctx->diag.counters[WEIR__CNT_OUT]++;
        WEIR__SLOT_TS(o->reserved_slot) = timestamp;
        weir__channel_commit(ch);
        return 0;
    }
    return commit_general(ctx, timestamp);
}

int weir_emit_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    if (WEIR__UNLIKELY(weir_ctx_in_size(ctx, input) != ctx->out.main.elem_size))
        return weir_ctx_fail(ctx, WEIR_ETYPE,
                             "weir_emit_batch: input %d has elements of %zu bytes, the main "
                             "output %zu", input, weir_ctx_in_size(ctx, input),
                             ctx->out.main.elem_size);
    weir__output *o = &ctx->out.main;
    if (b->count > 0 && o->only_chained && ctx->cursor.next && b->stride == o->stride) {
        /* Only chained operators read the output: they take the batch as
         * it is, in this call, so it is handed on without a copy (after the
         * records emitted before it, in order). */
        int r = flush_main(ctx);
        if (WEIR__UNLIKELY(r < 0))
            return r;
        ctx->diag.counters[WEIR__CNT_OUT] += b->count;
        for (int i = 0; i < o->nchained; i++) {
            r = deliver(o->chained[i], 0, b);
            if (WEIR__UNLIKELY(r < 0))
                return r;
        }
        return 0;
    }
    /* Equal element sizes make equal slot layouts ([ts][elem][pad] at the
     * same stride), so runs of slots copy as they are into the channel's
     * batch the cursor tracks; anything else goes record by record. */
    const unsigned char *src = b->data;
    uint32_t left = b->count;
    if (left > 0 && !ctx->cursor.next && o->one_channel) {
        int r = channel_cursor_on(ctx);
        if (WEIR__UNLIKELY(r < 0))
            return r;
    }
    while (left > 0 && ctx->cursor.next && ctx->cursor.stride == b->stride) {
        size_t room = (size_t)(ctx->cursor.end - ctx->cursor.next) / b->stride;
        uint32_t n = left < room ? left : (uint32_t)room;
        size_t bytes = (size_t)n * b->stride;
        memcpy(ctx->cursor.next, src, bytes);
        ctx->cursor.next += bytes;
        src += bytes;
        left -= n;
        if (ctx->cursor.next == ctx->cursor.end) {
            int r = weir__emit_full(ctx);
            if (WEIR__UNLIKELY(r < 0))
                return r;
        }
    }
    for (; left > 0; left--, src += b->stride) {
        int64_t ts;
        memcpy(&ts, src, sizeof ts);
        int r = weir_emit(ctx, src + 8, ts);
        if (WEIR__UNLIKELY(r < 0))
            return r;
    }
    return 0;
}

int weir_emit_side(weir_ctx *ctx, int tag, const void *elem, int64_t timestamp)
{
    for (int i = 0; i < ctx->out.nside; i++) {
        if (ctx->out.side[i].tag == tag) {
            if (WEIR__UNLIKELY(ctx->lifecycle.in_close || ctx->lifecycle.in_open))
                return weir_ctx_fail(ctx, WEIR_ESTATE,
                                     "weir_emit_side: not allowed in open() or close()");
            ctx->diag.counters[WEIR__CNT_SIDE_OUT]++;
            return emit_to(&ctx->out.side[i], elem, timestamp);
        }
    }
    return weir_ctx_fail(ctx, WEIR_EINVAL, "weir_emit_side: side output tag %d was not declared",
                         tag);
}

int weir__ctx_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    count_record(ctx, ts);
    const weir__key *k = ctx->keyed.in_key[input];
    if (k) {
        k->spec.extract(elem, ctx->keyed.key_buf->key, k->spec.arg);
        ctx->keyed.key_hashed = false;
        ctx->keyed.has_key = true;
    } else if (ctx->keyed.key_size) {
        ctx->keyed.has_key = false; /* the broadcast input of a keyed operator */
    }
    return on_record(ctx, input, elem, ts);
}

/* ---- watermarks and statuses ---------------------------------------------- */

static int control_output(weir__output *o, weir__ctrl ctrl, int64_t value)
{
    for (int g = 0; g < o->ngroups; g++) {
        for (int i = 0; i < o->groups[g].nch; i++) {
            int r = weir__channel_flush(o->groups[g].ch[i], ctrl, value);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

int weir__ctx_flush_control(weir_ctx *ctx, weir__ctrl ctrl, int64_t value)
{
    channel_cursor_off(ctx); /* the control message ends the batch: its count first */
    FOR_EACH_OUTPUT(ctx, o) {
        int r = control_output(o, ctrl, value);
        if (r < 0)
            return r;
    }
    return 0;
}

/* One watermark or status to every operator chained to any output. */
static int to_chained(weir_ctx *ctx, weir__wm_action_kind kind, int64_t wm)
{
    FOR_EACH_OUTPUT(ctx, o) {
        for (int i = 0; i < o->nchained; i++) {
            int r = kind == WEIR__ACT_WATERMARK ? weir__ctx_advance_watermark(o->chained[i], wm)
                                                : weir__ctx_status(o->chained[i],
                                                                   kind == WEIR__ACT_IDLE);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

/* Sends what the gate let through to every output, in order. */
static int gate_out(weir_ctx *ctx, const weir__wm_actions *a)
{
    if (a->n == 0)
        return 0;
    /* Everything emitted before this watermark or status reaches every
     * chained operator before it does. */
    int fr = weir__ctx_flush_chained(ctx);
    if (fr < 0)
        return fr;
    for (int k = 0; k < a->n; k++) {
        int r;
        if (a->act[k].kind == WEIR__ACT_WATERMARK) {
            int64_t w = a->act[k].watermark;
            if (WEIR__DIAG_ON(ctx, WEIR_DIAG_STANDARD))
                weir__diag_watermark(ctx, w);
            if (ctx->capture)
                ctx->capture->on_watermark(w, ctx->capture->arg);
            r = weir__ctx_flush_control(ctx, WEIR__CTRL_WATERMARK, w);
        } else {
            bool idle = a->act[k].kind == WEIR__ACT_IDLE;
            if (WEIR__DIAG_ON(ctx, WEIR_DIAG_STANDARD))
                weir__diag_status(ctx, idle);
            if (ctx->capture)
                ctx->capture->on_status(idle, ctx->capture->arg);
            r = weir__ctx_flush_control(ctx, WEIR__CTRL_STATUS, idle);
        }
        if (r == 0)
            r = to_chained(ctx, a->act[k].kind, a->act[k].watermark);
        if (r < 0)
            return r;
    }
    return 0;
}

int weir_emit_watermark(weir_ctx *ctx, int64_t watermark)
{
    weir__wm_actions a = weir__gate_watermark(&ctx->out.gate, watermark);
    return gate_out(ctx, &a);
}

int weir_emit_idle(weir_ctx *ctx)
{
    weir__wm_actions a = weir__gate_status(&ctx->out.gate, true);
    return gate_out(ctx, &a);
}

int weir_emit_active(weir_ctx *ctx)
{
    weir__wm_actions a = weir__gate_status(&ctx->out.gate, false);
    return gate_out(ctx, &a);
}

/* Makes a firing timer's key the current key. */
static void set_timer_key(weir_ctx *ctx, uint64_t key_hash)
{
    if (ctx->keyed.key_size) {
        memcpy(ctx->keyed.key_buf->key, ctx->timers.key, ctx->keyed.key_size);
        ctx->keyed.key_hash = key_hash;
        ctx->keyed.key_hashed = true;
        ctx->keyed.has_key = true;
    }
}

/* ---- suspended firing ------------------------------------------------------
 *
 * A watermark can make an operator fire any number of timers (MAX fires
 * every window at once). When the subtask's output is full (a batch went
 * pending on a channel), an event-time firing stops before its next timer:
 * the context keeps `firing_suspended`, and the subtask resumes it in a later
 * step, once credit came back, so the channels' memory stays within their
 * pools (plus what one callback emitted). Until the firing is done and the
 * watermark forwarded, the context is held: records, watermarks, statuses
 * and END handed to it wait in its inbox (inbox.h), in order, and the
 * subtask takes no input. Outside a subtask (the harness) nothing blocks and
 * nothing is held. */

#define FIRING_SUSPENDED 1

static void update_held(weir_ctx *ctx)
{
    bool held = ctx->timers.firing_suspended || !weir__inbox_empty(&ctx->input.inbox);
    if (held != ctx->input.held) {
        ctx->input.held = held;
        ctx->sub->held += held ? 1 : -1;
    }
}

static int hold_control(weir_ctx *ctx, weir__ctrl ctrl, int64_t value)
{
    if (weir__inbox_control_add(&ctx->input.inbox, ctrl, value) < 0)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory holding a control message");
    return 0;
}

/* Timers with the same key and namespace, each registered by the firing of
 * the one before, at the end of input: past this many, the operator
 * re-registers its timer unconditionally and would fire forever (keyed.h). */
#define TIMER_CHAIN_AT_MAX (1u << 20)

/* Fires the timers due at `limit`. Returns 0, an error, or FIRING_SUSPENDED
 * (event time in a subtask whose output is full, timers left). */
static int fire(weir_ctx *ctx, weir__timers *t, weir_time_domain domain, int64_t limit)
{
    const bool suspendable = domain == WEIR_EVENT_TIME && ctx->sub;
    int64_t ns, ts;
    uint64_t key_hash;
    for (;;) {
        if (weir__timers_empty(t) || weir__timers_peek(t) > limit)
            return 0;
        if (suspendable && ctx->sub->out_blocked)
            return FIRING_SUSPENDED;
        (void)weir__timers_pop_due(t, limit, ctx->timers.key, &key_hash, &ns, &ts);
        set_timer_key(ctx, key_hash);
        if (!ctx->vt.on_timer)
            return weir_ctx_fail(ctx, WEIR_EINVAL, "a timer fired but the operator has no on_timer");
        weir_timer timer = {.domain = domain,
                            .timestamp = ts,
                            .ns = ns,
                            .key = ctx->keyed.key_size ? ctx->keyed.key_buf->key : NULL};
        /* SEMANTICS.md 6: what an event-time timer emits carries its
         * timestamp; a processing-time timer's output carries none. */
        ctx->input.handling_ts = domain == WEIR_EVENT_TIME ? ts : WEIR_NO_TIMESTAMP;
        ctx->timers.firing_at_max = domain == WEIR_EVENT_TIME && limit == WEIR_TS_MAX;
        ctx->timers.firing_ns = ns;
        ctx->timers.firing_generation = weir__timers_popped_generation(t);
        if (domain == WEIR_PROCESSING_TIME)
            ctx->timers.processing_fired++;
        int r = ctx->vt.on_timer(ctx, &timer);
        ctx->timers.firing_at_max = false;
        if (r < 0)
            return callback_failed(ctx, r, "on_timer");
    }
}

/* Every event-time timer at or below the current watermark, then the
 * watermark goes on (on_watermark, default: forward) — or the firing
 * suspends. */
static int fire_and_forward(weir_ctx *ctx)
{
    int64_t wm = ctx->input.wm;
    int r = fire(ctx, &ctx->timers.event, WEIR_EVENT_TIME, wm);
    if (r < 0)
        return r;
    if (r == FIRING_SUSPENDED) {
        ctx->timers.firing_suspended = true;
        update_held(ctx);
        return 0;
    }
    ctx->input.handling_ts = WEIR_NO_TIMESTAMP;
    if (ctx->vt.on_watermark) {
        r = ctx->vt.on_watermark(ctx, wm);
        if (r < 0)
            return callback_failed(ctx, r, "on_watermark");
        return 0;
    }
    return weir_emit_watermark(ctx, wm);
}

static int advance_now(weir_ctx *ctx, int64_t wm)
{
    if (wm <= ctx->input.wm)
        return 0;
    /* SEMANTICS.md 6: the current watermark first, then every timer at or
     * below it (including ones registered while firing), then forward. */
    ctx->input.wm = wm;
    return fire_and_forward(ctx);
}

int weir__ctx_advance_watermark(weir_ctx *ctx, int64_t wm)
{
    if (WEIR__UNLIKELY(ctx->input.held))
        return hold_control(ctx, WEIR__CTRL_WATERMARK, wm);
    return advance_now(ctx, wm);
}

static int status_now(weir_ctx *ctx, bool idle);

int weir__ctx_resume(weir_ctx *ctx)
{
    int r = 0;
    if (ctx->timers.firing_suspended) {
        ctx->timers.firing_suspended = false;
        r = fire_and_forward(ctx);
    }
    while (r == 0 && !ctx->timers.firing_suspended && !ctx->sub->out_blocked &&
           !weir__inbox_empty(&ctx->input.inbox)) {
        weir_batch run;
        weir__inbox_control c;
        if (weir__inbox_take(&ctx->input.inbox, &run, &c))
            r = deliver_now(ctx, 0, &run);
        else if (c.ctrl == WEIR__CTRL_WATERMARK)
            r = advance_now(ctx, c.value);
        else if (c.ctrl == WEIR__CTRL_STATUS)
            r = status_now(ctx, c.value != 0);
        else
            r = end_now(ctx);
    }
    update_held(ctx);
    return r;
}

int weir__ctx_status(weir_ctx *ctx, bool idle)
{
    if (WEIR__UNLIKELY(ctx->input.held))
        return hold_control(ctx, WEIR__CTRL_STATUS, idle);
    return status_now(ctx, idle);
}

static int status_now(weir_ctx *ctx, bool idle)
{
    ctx->input.idle = idle;
    ctx->input.handling_ts = WEIR_NO_TIMESTAMP;
    if (ctx->vt.on_status) {
        int r = ctx->vt.on_status(ctx, idle);
        if (r < 0)
            return callback_failed(ctx, r, "on_status");
        return 0;
    }
    return idle ? weir_emit_idle(ctx) : weir_emit_active(ctx);
}

int weir__ctx_fire_processing(weir_ctx *ctx, int64_t now)
{
    return fire(ctx, &ctx->timers.processing, WEIR_PROCESSING_TIME, now);
}

void weir_ctx_wakeup(weir_ctx *ctx)
{
    if (!ctx)
        return;
    /* published first, then the subtask scheduled: the scheduler clears
     * `scheduled` and then looks at the flag (weir__subtask_ready), so one
     * of the two sees the other (scheduler.h, "hand-offs") */
    (void)atomic_exchange(&ctx->timers.wakeup, 1);
    if (ctx->sub && ctx->sub->worker)
        weir__sched_wake(ctx->sub);
}

bool weir__ctx_wakeup_pending(weir_ctx *ctx)
{
    return atomic_load(&ctx->timers.wakeup) != 0;
}

int weir__ctx_fire_wakeup(weir_ctx *ctx)
{
    if (ctx->lifecycle.ended || !atomic_load_explicit(&ctx->timers.wakeup, memory_order_relaxed) ||
        !atomic_exchange(&ctx->timers.wakeup, 0) || !ctx->vt.on_wakeup)
        return 0;
    ctx->keyed.has_key = false; /* no key: like a watermark's callback */
    ctx->input.handling_ts = WEIR_NO_TIMESTAMP;
    ctx->timers.wakeups++;
    int r = ctx->vt.on_wakeup(ctx);
    return r < 0 ? callback_failed(ctx, r, "on_wakeup") : 0;
}

int64_t weir__ctx_next_processing(const weir_ctx *ctx)
{
    return weir__timers_peek(&ctx->timers.processing);
}

int weir__deliver_actions(weir_ctx *head, const weir__wm_actions *a)
{
    for (int k = 0; k < a->n; k++) {
        int r;
        if (a->act[k].kind == WEIR__ACT_WATERMARK)
            r = weir__ctx_advance_watermark(head, a->act[k].watermark);
        else
            r = weir__ctx_status(head, a->act[k].kind == WEIR__ACT_IDLE);
        if (r < 0)
            return r;
    }
    return 0;
}

/* ---- timers --------------------------------------------------------------- */

/* The key (and its hash) a timer registered or deleted now belongs to: the
 * current key of a keyed context, none otherwise. */
typedef struct timer_key {
    const void *key;
    uint64_t hash;
} timer_key;

/* Fills *k; a keyed context without a current key fails the job. */
static int timer_key_of(weir_ctx *ctx, const char *what, timer_key *k)
{
    k->key = NULL;
    k->hash = 0;
    if (!ctx->keyed.key_size)
        return 0;
    if (!ctx->keyed.has_key)
        return weir_ctx_fail(ctx, WEIR_ENOKEY, "%s: no current key (only in on_record / on_timer)",
                             what);
    k->key = ctx->keyed.key_buf->key;
    k->hash = weir__ctx_key_hash(ctx);
    return 0;
}

int weir_timer_register(weir_ctx *ctx, weir_time_domain domain, int64_t ns, int64_t timestamp)
{
    timer_key k;
    int r = timer_key_of(ctx, "weir_timer_register", &k);
    if (r)
        return r;
    if (domain == WEIR_EVENT_TIME) {
        /* At the end of input every timer is due at once: one that its own
         * firing registers again (same key and namespace), firing after
         * firing, never lets MAX finish. */
        uint32_t generation = 0;
        if (ctx->timers.firing_at_max && ns == ctx->timers.firing_ns) {
            generation = ctx->timers.firing_generation + 1;
            if (generation >= TIMER_CHAIN_AT_MAX)
                return weir_ctx_fail(ctx, WEIR_ESTATE,
                                     "weir_timer_register: on_timer registered its event-time "
                                     "timer again (namespace %lld, at %lld) %u times in a row "
                                     "at the end of input (watermark MAX), where every timer "
                                     "fires at once: it would never stop (stop registering "
                                     "when weir_ctx_watermark() is WEIR_TS_MAX)",
                                     (long long)ns, (long long)timestamp, generation);
        }
        r = weir__timers_add_generation(&ctx->timers.event, k.key, k.hash, ns, timestamp, generation);
    } else {
        r = weir__timers_add(&ctx->timers.processing, k.key, k.hash, ns, timestamp);
        if (r == 0 && ctx->sub && timestamp < ctx->sub->deadline)
            ctx->sub->deadline = timestamp;
    }
    if (r < 0)
        return weir_ctx_fail(ctx, r, "weir_timer_register: out of memory");
    return 0;
}

int weir_timer_delete(weir_ctx *ctx, weir_time_domain domain, int64_t ns, int64_t timestamp)
{
    timer_key k;
    int r = timer_key_of(ctx, "weir_timer_delete", &k);
    if (r == 0)
        weir__timers_delete(domain == WEIR_EVENT_TIME ? &ctx->timers.event : &ctx->timers.processing,
                            k.key, k.hash, ns, timestamp);
    return r;
}

/* ---- queries -------------------------------------------------------------- */

bool weir_ctx_checkpoints(const weir_ctx *ctx)
{
    return ctx->job && ctx->job->chk.enabled;
}

int weir_ctx_error(const weir_ctx *ctx)
{
    return ctx->error;
}

int64_t weir_ctx_watermark(const weir_ctx *ctx)
{
    return ctx->input.wm;
}

int64_t weir_ctx_timestamp(const weir_ctx *ctx)
{
    return ctx->input.handling_ts;
}

int64_t weir_ctx_now(const weir_ctx *ctx)
{
    return weir__clock_now(ctx->clock);
}

int64_t weir_ctx_activity_now(const weir_ctx *ctx)
{
    int64_t now = weir__clock_now(ctx->clock);
    return ctx->sub ? weir__align_activity_now(ctx->sub, now) : now;
}

int weir_ctx_subtask(const weir_ctx *ctx)
{
    return ctx->subtask;
}

int weir_ctx_parallelism(const weir_ctx *ctx)
{
    return ctx->parallelism;
}

const char *weir_ctx_name(const weir_ctx *ctx)
{
    return ctx->node->name;
}

void *weir_ctx_arg(const weir_ctx *ctx)
{
    return ctx->arg;
}

void *weir_ctx_impl(const weir_ctx *ctx)
{
    return ctx->node->impl;
}

void *weir_ctx_state(const weir_ctx *ctx)
{
    return ctx->state;
}

void weir_ctx_set_state(weir_ctx *ctx, void *state)
{
    ctx->state = state;
}

size_t weir_ctx_in_size(const weir_ctx *ctx, int input)
{
    if (input < 0 || input >= ctx->node->inputs)
        return 0;
    return ctx->node->in_size[input];
}

size_t weir_ctx_out_size(const weir_ctx *ctx)
{
    return ctx->out.main.elem_size;
}

int weir_ctx_batch_hint(const weir_ctx *ctx)
{
    return ctx->batch_hint;
}

int64_t weir_ctx_watermark_interval(const weir_ctx *ctx)
{
    return ctx->interval_ms;
}

void weir_source_wait_until(weir_ctx *ctx, int64_t t)
{
    ctx->wait_until = t;
}

int weir_source_wait_fd(weir_ctx *ctx, int fd, short events, int timeout_ms)
{
    if (!ctx->is_source)
        return WEIR_ESTATE;
    if (ctx->sub) {
        int r = weir__subtask_flush(ctx->sub);
        if (r < 0)
            return r;
        /* On the system clock the subtask's own deadlines (a periodic
         * watermark, a timer) come while it waits: not later than the
         * first of them. The virtual clock does not move meanwhile. */
        if (!ctx->clock->is_virtual && ctx->sub->deadline != INT64_MAX) {
            int64_t left = ctx->sub->deadline - weir__clock_now(ctx->clock);
            if (left < 0)
                left = 0;
            if (timeout_ms < 0 || left < timeout_ms)
                timeout_ms = (int)left;
        }
    }
    return weir__sched_wait_fd(ctx->job, fd, events, timeout_ms);
}

const void *weir_ctx_key(const weir_ctx *ctx)
{
    return ctx->keyed.key_size && ctx->keyed.has_key ? ctx->keyed.key_buf->key : NULL;
}

size_t weir_ctx_key_size(const weir_ctx *ctx)
{
    return ctx->keyed.key_size;
}

bool weir_ctx_owns_key(const weir_ctx *ctx, const void *key)
{
    if (!ctx || !key || !ctx->keyed.key_size || !ctx->job)
        return false;
    uint64_t h = weir__hash_key(key, ctx->keyed.key_size);
    return weir__key_subtask(h, ctx->job->max_parallelism, (uint32_t)ctx->parallelism) ==
           (uint32_t)ctx->subtask;
}

int weir_ctx_key_format(const weir_ctx *ctx, char *buf, size_t size)
{
    if (size == 0)
        return 0;
    const unsigned char *key = weir_ctx_key(ctx);
    if (!key) {
        buf[0] = '\0';
        return 0;
    }
    const weir_key_spec *k = &ctx->keyed.in_key[0]->spec;
    if (k->format)
        return k->format(key, buf, size, k->arg);
    /* Text if every byte up to the first NUL is printable and only NULs
     * follow (a char[] key), else hex. */
    size_t n = ctx->keyed.key_size, len = 0;
    while (len < n && key[len] != 0)
        len++;
    bool text = len > 0;
    for (size_t i = 0; i < len && text; i++)
        text = key[i] >= 0x20 && key[i] < 0x7f;
    for (size_t i = len; i < n && text; i++)
        text = key[i] == 0;
    /* By hand rather than with snprintf: the standard diagnostic level
     * formats the key of every window firing and cleanup, and a call of
     * snprintf per key byte cost more than the window's own work. */
    if (text) {
        size_t c = len < size - 1 ? len : size - 1;
        memcpy(buf, key, c);
        buf[c] = '\0';
        return (int)len; /* as snprintf: the length of the whole key */
    }
    static const char hex[] = "0123456789abcdef";
    size_t w = 0;
    for (size_t i = 0; i < n && w + 3 <= size; i++) {
        buf[w++] = hex[key[i] >> 4];
        buf[w++] = hex[key[i] & 15];
    }
    buf[w] = '\0';
    return (int)w;
}

/* ---- diagnostics from operators ------------------------------------------- */

void weir_ctx_count(weir_ctx *ctx, weir_counter counter, int64_t n)
{
    static const int map[WEIR_COUNTER_COUNT_] = {
        [WEIR_COUNTER_FILTERED] = WEIR__CNT_FILTERED,
        [WEIR_COUNTER_LATE_DROPPED] = WEIR__CNT_LATE_DROPPED,
        [WEIR_COUNTER_LATE_SIDE] = WEIR__CNT_LATE_SIDE,
        [WEIR_COUNTER_ABSORBED] = WEIR__CNT_ABSORBED,
    };
    if ((unsigned)counter < WEIR_COUNTER_COUNT_)
        ctx->diag.counters[map[counter]] += n;
}

void weir_ctx_report_join_state(weir_ctx *ctx, int64_t left_rows, int64_t right_rows,
                                int64_t hold_back_ms)
{
    ctx->diag.join = true;
    ctx->diag.join_state[0] = left_rows;
    ctx->diag.join_state[1] = right_rows;
    ctx->diag.join_state[2] = hold_back_ms;
}

void weir_ctx_report_window_fire(weir_ctx *ctx, int64_t start, int64_t end, int firing,
                                 int64_t count)
{
    if (WEIR__DIAG_ON(ctx, WEIR_DIAG_STANDARD))
        weir__diag_window_fire(ctx, start, end, firing, count, false);
}

void weir_ctx_report_window_fire_cleanup(weir_ctx *ctx, int64_t start, int64_t end, int64_t count)
{
    if (WEIR__DIAG_ON(ctx, WEIR_DIAG_STANDARD))
        weir__diag_window_fire(ctx, start, end, 0, count, true);
}

void weir_ctx_report_late(weir_ctx *ctx, const void *elem, int64_t timestamp,
                          int64_t missed_start, int64_t missed_end, int64_t missed_every,
                          bool dropped)
{
    ctx->diag.counters[dropped ? WEIR__CNT_LATE_DROPPED : WEIR__CNT_LATE_SIDE]++;
    if (dropped && ctx->capture && ctx->capture->on_dropped)
        ctx->capture->on_dropped(elem, timestamp, ctx->capture->arg);
    if (WEIR__DIAG_ON(ctx, WEIR_DIAG_STANDARD))
        weir__diag_late(ctx, timestamp, missed_start, missed_end, missed_every, dropped);
}

void weir_ctx_report_merge(weir_ctx *ctx, int64_t start, int64_t end, int64_t merged)
{
    if (WEIR__DIAG_ON(ctx, WEIR_DIAG_STANDARD))
        weir__diag_merge(ctx, start, end, merged);
}

void weir_ctx_report_cleanup(weir_ctx *ctx, int64_t start, int64_t end)
{
    if (WEIR__DIAG_ON(ctx, WEIR_DIAG_STANDARD))
        weir__diag_cleanup(ctx, start, end);
}
