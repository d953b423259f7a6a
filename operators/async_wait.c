/* async_wait.c — the async operator (weir/async.h, Flink's
 * AsyncWaitOperator): a queue of up to `capacity` entries, each an element
 * in flight (a slot) or a watermark waiting behind elements, in arrival
 * order. On a keyed input each slot keeps its element's key: unordered
 * results with key_ordered leave after every earlier element of their key
 * (a look back over the segment), and the snapshot carries the keys.
 *
 * A slot's state is one atomic word, token << 2 | state (FREE, PENDING,
 * DONE, BUSY). A completion, from any thread, moves its token's PENDING to
 * BUSY with a compare-and-swap, writes the results, and publishes DONE
 * with a release store; the operator reads the results after an acquire
 * load of DONE. A handle whose token is not the slot's current one (the
 * element timed out and got a fresh token, or the slot was reused) finds
 * its CAS failing: the completion is ignored. Nothing allocates per element:
 * the slots' element and result buffers are made in open().
 *
 * The operator drains (emits what may leave, in order or by segments
 * between watermarks, and times out what is overdue) when it takes an
 * element or a watermark, when a completion wakes it (weir_ctx_wakeup: its
 * subtask is scheduled as a batch schedules its consumer, and on_wakeup
 * drains), on a processing-time timer at the earliest element's deadline
 * (its timeout), and at the end of input, where it waits for every
 * element. A full queue makes it wait (a short sleep between looks)
 * before it takes the next entry.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weir/async.h"
#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"

#define AW_SNAPSHOT_TAG 0x41535931u       /* "ASY1" */
#define AW_SNAPSHOT_TAG_KEYED 0x41535932u /* "ASY2": each entry's key after its ts */

enum { S_FREE = 0, S_PENDING = 1, S_DONE = 2, S_BUSY = 3 };

static uint64_t word_of(uint64_t token, unsigned state)
{
    return token << 2 | state;
}

typedef struct aw_slot {
    _Atomic uint64_t word;
    int64_t ts;
    int64_t deadline; /* ms of the monotonic clock */
    int32_t n, err;
} aw_slot;

typedef struct aw_entry {
    int64_t wm;   /* a watermark (slot < 0) */
    int32_t slot; /* an element's slot, or -1 */
    int32_t emitted;
} aw_entry;

struct aw;
typedef struct aw_config {
    weir_async_spec spec; /* name resolved */
    char name[64];
    /* each subtask's, freed with the job (weir_job_destroy), not at close:
     * a completion from the user's thread may still come after a failed
     * job closed its operators */
    struct aw *subs[WEIR_MAX_PARALLELISM];
} aw_config;

typedef struct aw {
    const aw_config *c;
    weir_ctx *ctx; /* woken by a completion (weir_ctx_wakeup) */
    /* Completions between their publishing and the end of their wakeup,
     * and whether the operator closed: close waits for the first to drain,
     * so that no wakeup reaches the subtask after the job is gone; a
     * completion after close publishes its results without a wakeup. */
    atomic_int completing;
    atomic_bool closed;
    size_t in_size, out_size;
    size_t key_size;     /* a keyed input's (0: not keyed) */
    unsigned char *keys; /* each slot's element's key (key_size each) */
    int cap, maxr;
    aw_slot *slots;
    unsigned char *elems, *outs;
    int32_t *free_slots;
    int nfree;
    aw_entry *q; /* a ring of cap entries */
    int head, len;
    uint64_t next_token;
    bool timer_set;
    /* restored entries not yet taken back (a rescale may bring more than
     * fit): replayed before anything else */
    unsigned char *replay;
    size_t replay_len, replay_at;
} aw;

static int64_t mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void pause_briefly(void)
{
    struct timespec t = {0, 50000}; /* 50 us */
    nanosleep(&t, NULL);
}

static aw_entry *entry_at(aw *a, int i)
{
    return &a->q[(a->head + i) % a->cap];
}

/* ---- completing (any thread) --------------------------------------------- */

static int finish(weir_async_handle h, const void *results, size_t n, int err)
{
    aw *a = h.op_;
    if (!a || h.slot_ >= (uint32_t)a->cap)
        return WEIR_EINVAL;
    if (n > (size_t)a->maxr)
        return WEIR_EINVAL;
    aw_slot *s = &a->slots[h.slot_];
    uint64_t expected = word_of(h.token_, S_PENDING);
    if (!atomic_compare_exchange_strong_explicit(&s->word, &expected, word_of(h.token_, S_BUSY),
                                                 memory_order_acquire, memory_order_relaxed))
        return WEIR_ESTATE;
    atomic_fetch_add(&a->completing, 1);
    bool wake = !atomic_load(&a->closed);
    if (n)
        memcpy(a->outs + (size_t)h.slot_ * (size_t)a->maxr * a->out_size, results,
               n * a->out_size);
    s->n = (int32_t)n;
    s->err = err;
    atomic_store_explicit(&s->word, word_of(h.token_, S_DONE), memory_order_release);
    if (wake)
        weir_ctx_wakeup(a->ctx); /* its worker drains now, as a batch wakes a consumer */
    atomic_fetch_sub(&a->completing, 1);
    return 0;
}

int weir_async_complete(weir_async_handle h, const void *results, size_t n)
{
    return finish(h, results, n, 0);
}

int weir_async_fail(weir_async_handle h, int err)
{
    return finish(h, NULL, 0, err < 0 ? err : WEIR_ECALLBACK);
}

/* ---- the queue ------------------------------------------------------------ */

static unsigned state_of(aw_slot *s, uint64_t *word)
{
    uint64_t w = atomic_load_explicit(&s->word, memory_order_acquire);
    if (word)
        *word = w;
    return (unsigned)(w & 3u);
}

/* Emits a done slot's results (or fails with its error) and frees it. */
static int emit_slot(weir_ctx *ctx, aw *a, int32_t i)
{
    aw_slot *s = &a->slots[i];
    if (s->err)
        return weir_ctx_fail(ctx, s->err, "async: the function failed an element (at %lld): %s",
                             (long long)s->ts, weir_strerror(s->err));
    const unsigned char *out = a->outs + (size_t)i * (size_t)a->maxr * a->out_size;
    for (int32_t k = 0; k < s->n; k++) {
        int r = weir_emit(ctx, out + (size_t)k * a->out_size, s->ts);
        if (r < 0)
            return r;
    }
    atomic_store_explicit(&s->word, word_of(0, S_FREE), memory_order_relaxed);
    a->free_slots[a->nfree++] = i;
    return 0;
}

static int time_out(weir_ctx *ctx, aw *a, int32_t i)
{
    aw_slot *s = &a->slots[i];
    uint64_t w;
    if (state_of(s, &w) != S_PENDING)
        return 0;
    uint64_t token = a->next_token++;
    /* a fresh token: the function's own completion is ignored from now */
    if (!atomic_compare_exchange_strong_explicit(&s->word, &w, word_of(token, S_PENDING),
                                                 memory_order_acq_rel, memory_order_acquire))
        return 0; /* it completed just now */
    const weir_async_spec *sp = &a->c->spec;
    if (!sp->timeout)
        return weir_ctx_fail(ctx, WEIR_ECALLBACK, "async: an element (at %lld) timed out after "
                             "%lld ms (the spec has no timeout callback)", (long long)s->ts,
                             (long long)sp->timeout_ms);
    weir_async_handle h = {a, (uint32_t)i, token};
    sp->timeout(a->elems + (size_t)i * a->in_size, s->ts, h, sp->arg);
    if (state_of(s, NULL) == S_PENDING)
        return weir_ctx_fail(ctx, WEIR_ECALLBACK, "async: the timeout callback did not complete "
                             "the element (at %lld)", (long long)s->ts);
    return 0;
}

/* Whether an entry before entry i (in its segment) holds an element of
 * i's key that has not left yet (key_ordered). */
static bool key_waits(aw *a, int i)
{
    const unsigned char *k = a->keys + (size_t)entry_at(a, i)->slot * a->key_size;
    for (int j = 0; j < i; j++) {
        const aw_entry *e = entry_at(a, j);
        if (e->slot >= 0 && !e->emitted &&
            memcmp(a->keys + (size_t)e->slot * a->key_size, k, a->key_size) == 0)
            return true;
    }
    return false;
}

/* Emits what may leave; times out what is overdue. */
static int drain(weir_ctx *ctx, aw *a)
{
    const bool ordered = !a->c->spec.unordered;
    bool progress = true;
    while (progress && a->len > 0) {
        progress = false;
        /* the first segment: up to the first watermark */
        for (int i = 0; i < a->len; i++) {
            aw_entry *e = entry_at(a, i);
            if (e->slot < 0)
                break;
            if (e->emitted)
                continue;
            if (state_of(&a->slots[e->slot], NULL) != S_DONE) {
                if (ordered)
                    break;
                continue;
            }
            if (ordered && i > 0)
                break; /* only the head leaves in order */
            if (!ordered && a->c->spec.key_ordered && key_waits(a, i))
                continue; /* an earlier element of its key has not left */
            int r = emit_slot(ctx, a, e->slot);
            if (r < 0)
                return r;
            e->emitted = 1;
            progress = true;
        }
        while (a->len > 0 && entry_at(a, 0)->slot >= 0 && entry_at(a, 0)->emitted) {
            a->head = (a->head + 1) % a->cap;
            a->len--;
            progress = true;
        }
        if (a->len > 0 && entry_at(a, 0)->slot < 0) {
            int64_t wm = entry_at(a, 0)->wm;
            a->head = (a->head + 1) % a->cap;
            a->len--;
            int r = weir_emit_watermark(ctx, wm);
            if (r < 0)
                return r;
            progress = true;
        }
    }
    int64_t now = mono_ms();
    for (int i = 0; i < a->len; i++) {
        aw_entry *e = entry_at(a, i);
        if (e->slot >= 0 && !e->emitted && a->slots[e->slot].deadline <= now) {
            int r = time_out(ctx, a, e->slot);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

/* The timer that times out the oldest element in flight: completions wake
 * the operator themselves (weir_ctx_wakeup), so the timer is due only when
 * the earliest deadline (monotonic ms) has come, not every millisecond. */
static int ensure_timer(weir_ctx *ctx, aw *a)
{
    if (a->len == 0 || a->timer_set)
        return 0;
    /* a keyed input's timers belong to a key: without a current key (a
     * watermark, a wake-up, a restore) the next record or timer registers it */
    if (a->key_size && !weir_ctx_key(ctx))
        return 0;
    int64_t first = INT64_MAX;
    for (int i = 0; i < a->len; i++) {
        const aw_entry *e = entry_at(a, i);
        if (e->slot >= 0 && !e->emitted && a->slots[e->slot].deadline < first)
            first = a->slots[e->slot].deadline;
    }
    if (first == INT64_MAX)
        return 0; /* watermarks only: the element before them has left */
    int64_t wait = first - mono_ms();
    a->timer_set = true;
    return weir_timer_register(ctx, WEIR_PROCESSING_TIME, 0,
                               weir_ctx_now(ctx) + (wait > 1 ? wait : 1));
}

/* Waits until the queue has room for one more entry. */
static int wait_room(weir_ctx *ctx, aw *a)
{
    for (;;) {
        int r = drain(ctx, a);
        if (r < 0)
            return r;
        if (a->len < a->cap)
            return 0;
        pause_briefly();
    }
}

/* An element into a free slot, handed to the function; `key` its key (a
 * keyed input's: the current key, or a replayed entry's). */
static int push_elem(weir_ctx *ctx, aw *a, const void *elem, int64_t ts, const void *key)
{
    int32_t i = a->free_slots[--a->nfree];
    aw_slot *s = &a->slots[i];
    unsigned char *copy = a->elems + (size_t)i * a->in_size;
    memcpy(copy, elem, a->in_size);
    if (a->key_size)
        memcpy(a->keys + (size_t)i * a->key_size, key, a->key_size);
    s->ts = ts;
    s->deadline = mono_ms() + a->c->spec.timeout_ms;
    s->n = s->err = 0;
    uint64_t token = a->next_token++;
    atomic_store_explicit(&s->word, word_of(token, S_PENDING), memory_order_release);
    *entry_at(a, a->len) = (aw_entry){.slot = i};
    a->len++;
    weir_async_handle h = {a, (uint32_t)i, token};
    int r = a->c->spec.invoke(copy, ts, h, a->c->spec.arg);
    if (r < 0)
        return weir_ctx_fail(ctx, r, "async: the function refused an element (at %lld): %s",
                             (long long)ts, weir_strerror(r));
    return 0;
}

static int push_wm(aw *a, int64_t wm)
{
    *entry_at(a, a->len) = (aw_entry){.slot = -1, .wm = wm};
    a->len++;
    return 0;
}

/* Entries a restore brought back, taken as room allows ([kind][ts][key][elem]). */
static int replay(weir_ctx *ctx, aw *a, bool wait)
{
    size_t rec = 1 + 8 + a->key_size + a->in_size;
    while (a->replay_at < a->replay_len) {
        if (a->len == a->cap) {
            if (!wait)
                return 0;
            int r = wait_room(ctx, a);
            if (r < 0)
                return r;
        }
        const unsigned char *p = a->replay + a->replay_at;
        int64_t ts;
        memcpy(&ts, p + 1, 8);
        int r = p[0] ? push_wm(a, ts) : push_elem(ctx, a, p + 9 + a->key_size, ts, p + 9);
        if (r < 0)
            return r;
        a->replay_at += rec;
    }
    free(a->replay);
    a->replay = NULL;
    a->replay_len = a->replay_at = 0;
    return 0;
}

/* ---- the vtable ------------------------------------------------------------ */

static void aw_free(aw *a)
{
    if (!a)
        return;
    free(a->slots);
    free(a->elems);
    free(a->outs);
    free(a->free_slots);
    free(a->q);
    free(a->keys);
    free(a->replay);
    free(a);
}

static int aw_open(weir_ctx *ctx)
{
    const aw_config *c = weir_ctx_impl(ctx);
    aw *a = calloc(1, sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, a);
    ((aw_config *)c)->subs[weir_ctx_subtask(ctx)] = a; /* each subtask its own slot */
    a->c = c;
    a->ctx = ctx;
    a->in_size = weir_ctx_in_size(ctx, 0);
    a->out_size = c->spec.out_size;
    a->cap = c->spec.capacity;
    a->maxr = c->spec.max_results;
    a->next_token = 1;
    a->slots = calloc((size_t)a->cap, sizeof *a->slots);
    a->elems = malloc((size_t)a->cap * a->in_size);
    a->outs = malloc((size_t)a->cap * (size_t)a->maxr * a->out_size);
    a->free_slots = malloc((size_t)a->cap * sizeof *a->free_slots);
    a->q = calloc((size_t)a->cap, sizeof *a->q);
    a->key_size = weir_ctx_key_size(ctx);
    a->keys = a->key_size ? malloc((size_t)a->cap * a->key_size) : NULL;
    if (!a->slots || !a->elems || !a->outs || !a->free_slots || !a->q ||
        (a->key_size && !a->keys))
        return WEIR_ENOMEM; /* freed with the job */
    for (int i = 0; i < a->cap; i++)
        a->free_slots[i] = a->cap - 1 - i;
    a->nfree = a->cap;
    return 0;
}

static void aw_close(weir_ctx *ctx)
{
    /* the slots outlive the run (aw_config_free); a completion still
     * waking this subtask is waited for, one that comes later wakes none */
    aw *a = weir_ctx_state(ctx);
    if (!a)
        return;
    atomic_store(&a->closed, true);
    while (atomic_load(&a->completing) > 0)
        pause_briefly();
}

static void aw_config_free(void *impl)
{
    aw_config *c = impl;
    for (int i = 0; i < WEIR_MAX_PARALLELISM; i++)
        aw_free(c->subs[i]);
    free(c);
}

static int aw_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    aw *a = weir_ctx_state(ctx);
    int r = replay(ctx, a, true);
    if (r == 0)
        r = wait_room(ctx, a);
    if (r == 0)
        r = push_elem(ctx, a, elem, ts, a->key_size ? weir_ctx_key(ctx) : NULL);
    if (r == 0)
        r = drain(ctx, a);
    return r < 0 ? r : ensure_timer(ctx, a);
}

static int aw_watermark(weir_ctx *ctx, int64_t wm)
{
    aw *a = weir_ctx_state(ctx);
    int r = replay(ctx, a, true);
    if (r == 0)
        r = drain(ctx, a);
    if (r < 0)
        return r;
    if (a->len == 0)
        return weir_emit_watermark(ctx, wm);
    r = wait_room(ctx, a);
    if (r == 0)
        r = push_wm(a, wm);
    return r < 0 ? r : ensure_timer(ctx, a);
}

static int aw_timer(weir_ctx *ctx, const weir_timer *t)
{
    (void)t;
    aw *a = weir_ctx_state(ctx);
    a->timer_set = false;
    int r = replay(ctx, a, false);
    if (r == 0)
        r = drain(ctx, a);
    return r < 0 ? r : ensure_timer(ctx, a);
}

/* A completion woke the operator: what may leave leaves. */
static int aw_wakeup(weir_ctx *ctx)
{
    aw *a = weir_ctx_state(ctx);
    int r = replay(ctx, a, false);
    if (r == 0)
        r = drain(ctx, a);
    return r < 0 ? r : ensure_timer(ctx, a);
}

static int aw_end(weir_ctx *ctx)
{
    aw *a = weir_ctx_state(ctx);
    int r = replay(ctx, a, true);
    while (r == 0 && a->len > 0) {
        r = drain(ctx, a);
        if (r == 0 && a->len > 0)
            pause_briefly();
    }
    return r;
}

/* [tag][in_size] then per entry waiting [kind 1][ts 8][elem in_size]
 * (kind 1: a watermark, its value in ts, the element bytes zero); a keyed
 * input's: [ASY2 tag][in_size][key_size], each entry's key after its ts. */
static int aw_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    aw *a = weir_ctx_state(ctx);
    uint64_t head[3] = {a->key_size ? AW_SNAPSHOT_TAG_KEYED : AW_SNAPSHOT_TAG, a->in_size,
                        a->key_size};
    int r = weir_snapshot_write(w, head, a->key_size ? sizeof head : 2 * sizeof *head);
    unsigned char *zero = a->elems; /* any in_size bytes do for a watermark's */
    for (int i = 0; r == 0 && i < a->len; i++) {
        const aw_entry *e = entry_at(a, i);
        if (e->slot >= 0 && e->emitted)
            continue;
        unsigned char kind = e->slot < 0;
        int64_t ts = e->slot < 0 ? e->wm : a->slots[e->slot].ts;
        r = weir_snapshot_write(w, &kind, 1);
        if (r == 0)
            r = weir_snapshot_write(w, &ts, 8);
        if (r == 0 && a->key_size) /* a watermark's: any bytes */
            r = weir_snapshot_write(w, a->keys + (size_t)(e->slot < 0 ? 0 : e->slot) * a->key_size,
                                    a->key_size);
        if (r == 0)
            r = weir_snapshot_write(w, e->slot < 0 ? zero : a->elems + (size_t)e->slot * a->in_size,
                                    a->in_size);
    }
    /* restored entries not taken back yet */
    if (r == 0 && a->replay_at < a->replay_len)
        r = weir_snapshot_write(w, a->replay + a->replay_at, a->replay_len - a->replay_at);
    return r;
}

static int aw_restore(weir_ctx *ctx, weir_snapshot_reader *rd)
{
    aw *a = weir_ctx_state(ctx);
    const void *data;
    size_t len, rec = 1 + 8 + a->key_size + a->in_size;
    size_t hsize = (a->key_size ? 3 : 2) * sizeof(uint64_t);
    uint64_t tag = a->key_size ? AW_SNAPSHOT_TAG_KEYED : AW_SNAPSHOT_TAG;
    int got, pieces = 0;
    while ((got = weir_snapshot_next(rd, &data, &len)) == 1) {
        uint64_t head[3] = {0, 0, 0};
        if (len < hsize || (memcpy(head, data, hsize), head[0] != tag) ||
            head[1] != a->in_size || (a->key_size && head[2] != a->key_size) ||
            (len - hsize) % rec != 0)
            return weir_ctx_fail(ctx, WEIR_EFORMAT, "restore: the checkpoint's state (%zu "
                                 "bytes) is not this async operator's", len);
        size_t n = len - hsize;
        unsigned char *more = realloc(a->replay, a->replay_len + n);
        if (!more)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "restore: out of memory");
        a->replay = more;
        /* On a keyed input after a change of parallelism the pieces of every
         * old subtask whose key groups overlap this one's come: only the
         * elements of the keys this subtask owns now are its own (the
         * others are replayed where their keys went). Their watermarks stay
         * when one old subtask's piece is all there is; from several,
         * one's watermark could pass another's earlier elements, so they
         * go (a later watermark comes from upstream). */
        const unsigned char *p = (const unsigned char *)data + hsize;
        for (size_t at = 0; at < n; at += rec) {
            bool wm = p[at] != 0;
            if (a->key_size && !wm && !weir_ctx_owns_key(ctx, p + at + 9))
                continue;
            memcpy(a->replay + a->replay_len, p + at, rec);
            a->replay_len += rec;
        }
        pieces++;
    }
    if (got < 0)
        return got;
    if (pieces > 1) {
        size_t kept = 0;
        for (size_t at = 0; at < a->replay_len; at += rec)
            if (a->replay[at] == 0) {
                memmove(a->replay + kept, a->replay + at, rec);
                kept += rec;
            }
        a->replay_len = kept;
    }
    if (a->replay_len == 0) {
        free(a->replay);
        a->replay = NULL;
    }
    /* handed to the function again now, as far as there is room; a timer
     * takes the rest and looks for their results */
    int r = replay(ctx, a, false);
    if (r == 0 && (a->len > 0 || a->replay) && !a->key_size) {
        a->timer_set = true;
        r = weir_timer_register(ctx, WEIR_PROCESSING_TIME, 0, weir_ctx_now(ctx) + 1);
    }
    return r;
}

static const weir_operator_vtable aw_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V3,
    .open = aw_open,
    .on_record = aw_record,
    .on_watermark = aw_watermark,
    .on_timer = aw_timer,
    .on_end = aw_end,
    .close = aw_close,
    .snapshot = aw_snapshot,
    .restore = aw_restore,
    .on_wakeup = aw_wakeup,
};

weir_stream *weir_stream_async(weir_stream *in, const weir_async_spec *spec)
{
    if (!in)
        return NULL;
    weir_job *job = weir_stream_job(in);
    const char *why = NULL;
    if (!spec || !spec->invoke)
        why = "a spec with invoke is required";
    else if (spec->out_size == 0 || spec->out_size > WEIR_MAX_ELEM_SIZE)
        why = "out_size must be in 1..65536";
    else if (spec->timeout_ms <= 0)
        why = "timeout_ms must be > 0";
    else if (spec->capacity < 0 || spec->capacity > 1000000)
        why = "capacity must be in 0..1000000 (0: 100)";
    else if (spec->max_results < 0 || spec->max_results > 1024)
        why = "max_results must be in 0..1024 (0: 1)";
    else if (spec->key_ordered && (!spec->unordered || weir_stream_key_size(in) == 0))
        why = spec->unordered ? "key_ordered needs a keyed input (key_by first)"
                              : "key_ordered is for unordered results (ordered ones are in "
                                "order for every key already)";
    if (why) {
        weir_job_record_error(job, WEIR_EINVAL, "weir_stream_async: %s", why);
        return NULL;
    }
    aw_config *c = calloc(1, sizeof *c);
    if (!c) {
        weir_job_record_error(job, WEIR_ENOMEM, "weir_stream_async: out of memory");
        return NULL;
    }
    c->spec = *spec;
    if (c->spec.capacity == 0)
        c->spec.capacity = 100;
    if (c->spec.max_results == 0)
        c->spec.max_results = 1;
    snprintf(c->name, sizeof c->name, "%s", spec->name ? spec->name : "async");
    c->spec.name = c->name;
    weir_process_spec ps = {
        .name = spec->name ? c->name : NULL,
        .kind = "async",
        .vtable = &aw_vtable,
        .impl = c,
        .impl_free = aw_config_free,
        .out_size = spec->out_size,
        .parallelism = spec->parallelism,
    };
    return weir_stream_process(in, &ps);
}
