/* broadcast_process.c — the broadcast process operator (weir/broadcast.h,
 * Flink's broadcast state pattern): an adapter from the generic two-input
 * operator to a user table of on_record / on_broadcast, plus the broadcast
 * map states each subtask holds. Everything else — the two valves and the
 * combined watermark, keyed state and timers on a keyed first input — is
 * the runtime's, as for any two-input operator.
 *
 * A state is a dense array of entries (key then value) with an open
 * addressing index over it (linear probing, backward-shift removal): a get
 * is one hash and a probe or two, with no allocation; a removal moves the
 * last entry into the hole, so iterating from the end sees every entry
 * once even while the one just returned is removed.
 *
 * Checkpoints: subtask 0 writes every state (the copies are the same), the
 * others nothing; the operator keeps union state, so a restore hands every
 * subtask every old subtask's piece and each takes the one that is not
 * empty.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "weir/broadcast.h"
#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"

#define BP_MAGIC 0x42524f44u       /* "BROD": a ctx of this operator */
#define BP_SNAPSHOT_TAG 0x57425331u /* "WBS1" */
#define BP_MAX_SIZE ((size_t)1 << 20)

typedef struct bstate {
    size_t ksz, vsz, esz;
    unsigned char *ents; /* n entries of esz bytes: key, value */
    uint64_t *hash;      /* per entry */
    uint32_t n, cap;
    uint32_t *slots;     /* entry index + 1; 0 empty */
    uint32_t mask;       /* nslots - 1 (0: no index yet) */
} bstate;

typedef struct bsub {
    bool writable; /* inside on_broadcast */
    int nstates;
    bstate st[];
} bsub;

typedef struct bp_impl {
    uint32_t magic;
    weir_operator_vtable op;
    weir_broadcast_vtable user;
    int nstates;
    weir_broadcast_state_desc states[WEIR_BROADCAST_MAX_STATES];
    bsub *sub[WEIR_MAX_PARALLELISM]; /* per subtask, each written by its own */
} bp_impl;

/* ---- one state ------------------------------------------------------------ */

static uint64_t key_hash(const bstate *s, const void *key)
{
    return XXH3_64bits(key, s->ksz);
}

static unsigned char *ent(const bstate *s, uint32_t i)
{
    return s->ents + (size_t)i * s->esz;
}

/* The slot holding key, or the empty slot where it would go. */
static uint32_t probe(const bstate *s, uint64_t h, const void *key)
{
    uint32_t i = (uint32_t)h & s->mask;
    for (;;) {
        uint32_t e = s->slots[i];
        if (e == 0 || (s->hash[e - 1] == h && memcmp(ent(s, e - 1), key, s->ksz) == 0))
            return i;
        i = (i + 1) & s->mask;
    }
}

static uint32_t find(const bstate *s, const void *key)
{
    if (s->n == 0)
        return UINT32_MAX;
    uint32_t e = s->slots[probe(s, key_hash(s, key), key)];
    return e ? e - 1 : UINT32_MAX;
}

static int reindex(bstate *s, uint32_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return WEIR_ENOMEM;
    free(s->slots);
    s->slots = slots;
    s->mask = nslots - 1;
    for (uint32_t i = 0; i < s->n; i++)
        s->slots[probe(s, s->hash[i], ent(s, i))] = i + 1;
    return 0;
}

/* Room for one more entry: the arrays and an index at most half full. */
static int reserve(bstate *s)
{
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 8;
        unsigned char *ents = realloc(s->ents, (size_t)cap * s->esz);
        if (!ents)
            return WEIR_ENOMEM;
        s->ents = ents;
        uint64_t *hash = realloc(s->hash, (size_t)cap * sizeof *hash);
        if (!hash)
            return WEIR_ENOMEM;
        s->hash = hash;
        s->cap = cap;
    }
    if (s->mask == 0 || (s->n + 1) * 2 > s->mask + 1)
        return reindex(s, s->mask ? (s->mask + 1) * 2 : 16);
    return 0;
}

static int state_put(bstate *s, const void *key, const void *value)
{
    uint32_t e = find(s, key);
    if (e != UINT32_MAX) {
        memcpy(ent(s, e) + s->ksz, value, s->vsz);
        return 0;
    }
    if (reserve(s))
        return WEIR_ENOMEM;
    uint64_t h = key_hash(s, key);
    uint32_t i = s->n++;
    memcpy(ent(s, i), key, s->ksz);
    memcpy(ent(s, i) + s->ksz, value, s->vsz);
    s->hash[i] = h;
    s->slots[probe(s, h, key)] = i + 1;
    return 0;
}

/* Empties slot i and shifts the run after it back (no tombstones). */
static void slot_remove(bstate *s, uint32_t i)
{
    uint32_t j = i;
    for (;;) {
        s->slots[i] = 0;
        for (;;) {
            j = (j + 1) & s->mask;
            uint32_t e = s->slots[j];
            if (e == 0)
                return;
            uint32_t home = (uint32_t)s->hash[e - 1] & s->mask;
            /* e may move to i unless its home lies cyclically in (i, j] */
            bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (!stays)
                break;
        }
        s->slots[i] = s->slots[j];
        i = j;
    }
}

static int state_remove(bstate *s, const void *key)
{
    if (s->n == 0)
        return 0;
    uint32_t si = probe(s, key_hash(s, key), key);
    uint32_t e = s->slots[si];
    if (e == 0)
        return 0;
    slot_remove(s, si);
    uint32_t last = s->n - 1;
    if (e - 1 != last) { /* the last entry moves into the hole */
        memcpy(ent(s, e - 1), ent(s, last), s->esz);
        s->hash[e - 1] = s->hash[last];
        s->slots[probe(s, s->hash[last], ent(s, last))] = e;
    }
    s->n--;
    return 1;
}

static void state_clear(bstate *s)
{
    s->n = 0;
    if (s->slots)
        memset(s->slots, 0, ((size_t)s->mask + 1) * sizeof *s->slots);
}

static void state_free(bstate *s)
{
    free(s->ents);
    free(s->hash);
    free(s->slots);
}

/* ---- the operator --------------------------------------------------------- */

static bp_impl *impl_of(const weir_ctx *ctx)
{
    bp_impl *bp = weir_ctx_impl(ctx);
    return bp && bp->magic == BP_MAGIC ? bp : NULL;
}

static bsub *sub_of(const weir_ctx *ctx)
{
    bp_impl *bp = impl_of(ctx);
    return bp ? bp->sub[weir_ctx_subtask(ctx)] : NULL;
}

static void sub_free(bsub *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->nstates; i++)
        state_free(&b->st[i]);
    free(b);
}

static int bp_open(weir_ctx *ctx)
{
    bp_impl *bp = impl_of(ctx);
    int p = weir_ctx_subtask(ctx);
    bsub *b = calloc(1, sizeof *b + (size_t)bp->nstates * sizeof b->st[0]);
    if (!b)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "broadcast state: out of memory");
    b->nstates = bp->nstates;
    for (int i = 0; i < bp->nstates; i++) {
        b->st[i].ksz = bp->states[i].key_size;
        b->st[i].vsz = bp->states[i].value_size;
        b->st[i].esz = b->st[i].ksz + b->st[i].vsz;
    }
    bp->sub[p] = b;
    int r = bp->user.open ? bp->user.open(ctx) : 0;
    if (r < 0) { /* close() is not called after a failed open() */
        bp->sub[p] = NULL;
        sub_free(b);
    }
    return r;
}

static void bp_close(weir_ctx *ctx)
{
    bp_impl *bp = impl_of(ctx);
    if (bp->user.close)
        bp->user.close(ctx);
    int p = weir_ctx_subtask(ctx);
    sub_free(bp->sub[p]);
    bp->sub[p] = NULL;
}

static int bp_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    bp_impl *bp = impl_of(ctx);
    if (input == 0)
        return bp->user.on_record(ctx, elem, ts);
    bsub *b = bp->sub[weir_ctx_subtask(ctx)];
    b->writable = true;
    int r = bp->user.on_broadcast(ctx, elem, ts);
    b->writable = false;
    return r;
}

/* [tag][nstates] then per state [key_size][value_size][n] (uint64) and its
 * n entries. */
static int bp_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    if (weir_ctx_subtask(ctx) != 0)
        return 0;
    const bsub *b = sub_of(ctx);
    uint32_t head[2] = {BP_SNAPSHOT_TAG, (uint32_t)b->nstates};
    int r = weir_snapshot_write(w, head, sizeof head);
    for (int i = 0; r == 0 && i < b->nstates; i++) {
        const bstate *s = &b->st[i];
        uint64_t dims[3] = {s->ksz, s->vsz, s->n};
        r = weir_snapshot_write(w, dims, sizeof dims);
        if (r == 0 && s->n)
            r = weir_snapshot_write(w, s->ents, (size_t)s->n * s->esz);
    }
    return r;
}

static int bp_restore(weir_ctx *ctx, weir_snapshot_reader *rd)
{
    bsub *b = sub_of(ctx);
    const void *data;
    size_t len;
    int got;
    while ((got = weir_snapshot_next(rd, &data, &len)) == 1) {
        if (len == 0)
            continue; /* a subtask other than 0: wrote nothing */
        const unsigned char *p = data, *end = p + len;
        uint32_t head[2];
        if (len < sizeof head || (memcpy(head, p, sizeof head), head[0] != BP_SNAPSHOT_TAG))
            return weir_ctx_fail(ctx, WEIR_EFORMAT, "restore: the checkpoint's state (%zu bytes) "
                                 "is not a broadcast process operator's", len);
        if ((int)head[1] != b->nstates)
            return weir_ctx_fail(ctx, WEIR_EFORMAT, "restore: the checkpoint has %u broadcast "
                                 "states, this operator declares %d", head[1], b->nstates);
        p += sizeof head;
        for (int i = 0; i < b->nstates; i++) {
            bstate *s = &b->st[i];
            uint64_t dims[3];
            if ((size_t)(end - p) < sizeof dims)
                return weir_ctx_fail(ctx, WEIR_EFORMAT, "restore: broadcast state %d is cut "
                                     "short", i);
            memcpy(dims, p, sizeof dims);
            p += sizeof dims;
            if (dims[0] != s->ksz || dims[1] != s->vsz)
                return weir_ctx_fail(ctx, WEIR_EFORMAT, "restore: broadcast state %d has keys "
                                     "of %llu and values of %llu bytes in the checkpoint, %zu "
                                     "and %zu here", i, (unsigned long long)dims[0],
                                     (unsigned long long)dims[1], s->ksz, s->vsz);
            if (dims[2] > UINT32_MAX / 2 || (size_t)(end - p) / s->esz < dims[2])
                return weir_ctx_fail(ctx, WEIR_EFORMAT, "restore: broadcast state %d is cut "
                                     "short", i);
            state_clear(s);
            for (uint64_t k = 0; k < dims[2]; k++, p += s->esz)
                if (state_put(s, p, p + s->ksz))
                    return weir_ctx_fail(ctx, WEIR_ENOMEM, "restore: out of memory");
        }
        if (p != end)
            return weir_ctx_fail(ctx, WEIR_EFORMAT, "restore: %zu bytes after the broadcast "
                                 "states", (size_t)(end - p));
        return 0; /* the copies are the same: one is enough */
    }
    return got;
}

/* ---- the state calls ------------------------------------------------------ */

static bstate *state_of(weir_ctx *ctx, int state, bool write, const char *call)
{
    bsub *b = sub_of(ctx);
    if (!b) {
        weir_ctx_fail(ctx, WEIR_EINVAL, "%s: not a broadcast process operator's context", call);
        return NULL;
    }
    if (state < 0 || state >= b->nstates) {
        weir_ctx_fail(ctx, WEIR_EINVAL, "%s: no broadcast state %d (the operator declares %d)",
                      call, state, b->nstates);
        return NULL;
    }
    if (write && !b->writable) {
        weir_ctx_fail(ctx, WEIR_ESTATE, "%s: the broadcast state is read-only outside "
                      "on_broadcast", call);
        return NULL;
    }
    return &b->st[state];
}

const void *weir_broadcast_get(weir_ctx *ctx, int state, const void *key)
{
    const bstate *s = state_of(ctx, state, false, "weir_broadcast_get");
    if (!s)
        return NULL;
    uint32_t e = find(s, key);
    return e == UINT32_MAX ? NULL : ent(s, e) + s->ksz;
}

bool weir_broadcast_contains(weir_ctx *ctx, int state, const void *key)
{
    const bstate *s = state_of(ctx, state, false, "weir_broadcast_contains");
    return s && find(s, key) != UINT32_MAX;
}

size_t weir_broadcast_count(weir_ctx *ctx, int state)
{
    const bstate *s = state_of(ctx, state, false, "weir_broadcast_count");
    return s ? s->n : 0;
}

int weir_broadcast_put(weir_ctx *ctx, int state, const void *key, const void *value)
{
    bstate *s = state_of(ctx, state, true, "weir_broadcast_put");
    if (!s)
        return weir_ctx_error(ctx);
    if (state_put(s, key, value))
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "weir_broadcast_put: out of memory");
    return 0;
}

int weir_broadcast_remove(weir_ctx *ctx, int state, const void *key)
{
    bstate *s = state_of(ctx, state, true, "weir_broadcast_remove");
    return s ? state_remove(s, key) : weir_ctx_error(ctx);
}

int weir_broadcast_clear(weir_ctx *ctx, int state)
{
    bstate *s = state_of(ctx, state, true, "weir_broadcast_clear");
    if (!s)
        return weir_ctx_error(ctx);
    state_clear(s);
    return 0;
}

void weir_broadcast_begin(weir_ctx *ctx, int state, weir_broadcast_iter *it)
{
    const bstate *s = state_of(ctx, state, false, "weir_broadcast_begin");
    it->ctx = ctx;
    it->state = state;
    it->next = s ? s->n : 0;
}

bool weir_broadcast_next(weir_broadcast_iter *it, const void **key, const void **value)
{
    if (it->next == 0)
        return false;
    const bsub *b = sub_of(it->ctx);
    const bstate *s = &b->st[it->state];
    if (it->next > s->n) /* removals during the iteration */
        it->next = s->n;
    if (it->next == 0)
        return false;
    const unsigned char *e = ent(s, --it->next);
    *key = e;
    *value = e + s->ksz;
    return true;
}

/* ---- building ------------------------------------------------------------- */

static int refuse(char *errbuf, size_t errsize, int err, const char *why)
{
    if (errbuf && errsize)
        snprintf(errbuf, errsize, "%s", why);
    return err;
}

int weir_broadcast_process_operator(const weir_broadcast_spec *spec, weir_process_spec *out,
                                    char *errbuf, size_t errsize)
{
    if (!spec || !out)
        return refuse(errbuf, errsize, WEIR_EINVAL, "a spec and an output are required");
    const weir_broadcast_vtable *u = spec->vtable;
    if (!u || !u->on_record || !u->on_broadcast)
        return refuse(errbuf, errsize, WEIR_EINVAL,
                      "a vtable with on_record and on_broadcast is required");
    if (u->version != WEIR_OPERATOR_VTABLE_V1) {
        char why[96];
        snprintf(why, sizeof why, "vtable version %u is not %u", u->version,
                 WEIR_OPERATOR_VTABLE_V1);
        return refuse(errbuf, errsize, WEIR_EINVAL, why);
    }
    if (spec->nstates < 1 || spec->nstates > WEIR_BROADCAST_MAX_STATES || !spec->states) {
        char why[96];
        snprintf(why, sizeof why, "nstates %d is not in 1..%d (with states)", spec->nstates,
                 WEIR_BROADCAST_MAX_STATES);
        return refuse(errbuf, errsize, WEIR_EINVAL, why);
    }
    for (int i = 0; i < spec->nstates; i++) {
        const weir_broadcast_state_desc *d = &spec->states[i];
        if (d->key_size == 0 || d->key_size > BP_MAX_SIZE || d->value_size == 0 ||
            d->value_size > BP_MAX_SIZE) {
            char why[128];
            snprintf(why, sizeof why, "broadcast state %d: key size %zu and value size %zu must "
                     "be in 1..%zu", i, d->key_size, d->value_size, BP_MAX_SIZE);
            return refuse(errbuf, errsize, WEIR_EINVAL, why);
        }
    }
    bp_impl *bp = calloc(1, sizeof *bp);
    if (!bp)
        return refuse(errbuf, errsize, WEIR_ENOMEM, "out of memory");
    bp->magic = BP_MAGIC;
    bp->user = *u;
    bp->nstates = spec->nstates;
    memcpy(bp->states, spec->states, (size_t)spec->nstates * sizeof *spec->states);
    bp->op = (weir_operator_vtable){.version = WEIR_OPERATOR_VTABLE_V2,
                                    .open = bp_open,
                                    .on_record = bp_record,
                                    .on_watermark = u->on_watermark,
                                    .on_status = u->on_status,
                                    .on_timer = u->on_timer,
                                    .on_end = u->on_end,
                                    .close = bp_close,
                                    .snapshot = bp_snapshot,
                                    .restore = bp_restore};
    *out = (weir_process_spec){
        .name = spec->name,
        .kind = "broadcast_process",
        .vtable = &bp->op, /* copied by weir_stream_connect and the harness */
        .arg = spec->arg,
        .impl = bp,
        .impl_free = free,
        .out_size = spec->out_size,
        .side_outputs = spec->side_outputs,
        .nside = spec->nside,
        .parallelism = spec->parallelism,
    };
    return 0;
}

weir_stream *weir_stream_broadcast_process(weir_stream *in, weir_stream *broadcast,
                                           const weir_broadcast_spec *spec)
{
    if (!in || !broadcast)
        return NULL;
    weir_job *job = weir_stream_job(in);
    weir_process_spec ps;
    char why[160];
    int r = weir_broadcast_process_operator(spec, &ps, why, sizeof why);
    if (r) {
        weir_job_record_error(job, r, "weir_stream_broadcast_process: %s", why);
        return NULL;
    }
    weir_stream *b = weir_stream_broadcast(broadcast);
    if (!b) {
        free(ps.impl);
        return NULL;
    }
    return weir_stream_union_state(weir_stream_connect(in, b, &ps));
}
