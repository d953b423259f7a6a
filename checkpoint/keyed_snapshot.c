/* keyed_snapshot.c — keyed state and timers into a snapshot and back, by
 * key group (keyed_snapshot.h).
 *
 * The snapshot, one msgpack map:
 *   "key_size"  the key's bytes (0: a context that is not keyed)
 *   "states"    per declared state, in declaration order:
 *               {"kind": "value" | "list" | "map", "size": bytes of a value
 *                or an element, a map's "map_key_size", "ttl": true with a
 *                time to live (each value then starts with its int64 stamp:
 *                event time as it is, processing time as its age, stamp -
 *                now, since the job clock restarts; a list's each element
 *                starts with its own), "entries": [[key
 *                group, key (bin), namespace, value (bin: the value, a
 *                list's elements end to end, or a map entry's map key then
 *                its value)]]} — a map has one entry per map key
 *   "timers"    {"event": [...], "processing": [...]}, each timer
 *               [key group, key (bin), namespace, timestamp, generation],
 *               in registration order
 */
#include "keyed_snapshot.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgpack_read.h"
#include "task.h"
#include "weir/error.h"

/* ---- writing -------------------------------------------------------------- */

static int pack_str(msgpack_packer *pk, const char *s)
{
    return msgpack_pack_str_with_body(pk, s, strlen(s));
}

static uint64_t key_hash_of(const unsigned char *key, size_t key_size)
{
    return key_size ? weir__hash_key(key, key_size) : 0; /* the context's key hash */
}

static const char *kind_name(weir_state_kind kind)
{
    return kind == WEIR_STATE_VALUE ? "value" : kind == WEIR_STATE_LIST ? "list" : "map";
}

/* The elements of list l not expired at now. */
static uint32_t list_alive(const weir__state *st, const weir__list_value *l, int64_t now)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < l->len; i++)
        n += !weir__ttl_expired(st, l->stamps[i], now);
    return n;
}

/* Whether entry e of st is written: not with a time to live that has
 * expired at now (Flink's cleanup in full snapshots; a list with an element
 * left). */
static bool kept(const weir__state *st, uint32_t e, int64_t now)
{
    if (!weir__keymap_live(&st->map, e) || !st->has_ttl)
        return weir__keymap_live(&st->map, e);
    if (st->kind == WEIR_STATE_LIST)
        return list_alive(st, weir__keymap_value(&st->map, e), now) > 0;
    return !weir__ttl_expired(st, *weir__ttl_stamp(st, e), now);
}

/* A processing-time stamp goes as its age (stamp - now), so that it does
 * not depend on where the restoring job's clock starts (runtime/job.c goes
 * on from the checkpoint's time); an event-time one as it is. */
static int64_t stamp_out(const weir__state *st, int64_t stamp, int64_t now)
{
    return st->ttl.time == WEIR_TTL_PROCESSING_TIME ? (int64_t)((uint64_t)stamp - (uint64_t)now)
                                                    : stamp;
}

static int pack_state(weir_ctx *ctx, const weir__state *st, size_t key_size, uint32_t maxp,
                      msgpack_packer *pk)
{
    const weir__keymap *m = &st->map;
    bool map = st->kind == WEIR_STATE_MAP;
    int64_t now = st->has_ttl ? weir__ttl_now(ctx, st) : 0;
    uint32_t n = 0;
    for (uint32_t e = 0; e < m->nentries; e++)
        n += kept(st, e, now);
    int r = msgpack_pack_map(pk, 3 + map + st->has_ttl);
    r |= pack_str(pk, "kind");
    r |= pack_str(pk, kind_name(st->kind));
    r |= pack_str(pk, "size");
    r |= msgpack_pack_uint64(pk, st->size);
    if (map) {
        r |= pack_str(pk, "map_key_size");
        r |= msgpack_pack_uint64(pk, st->mkey_size);
    }
    if (st->has_ttl) { /* each value starts with its 8-byte stamp */
        r |= pack_str(pk, "ttl");
        r |= msgpack_pack_true(pk);
    }
    r |= pack_str(pk, "entries");
    r |= msgpack_pack_array(pk, n);
    size_t vsize = st->vofs + st->size;
    for (uint32_t e = 0; r == 0 && e < m->nentries; e++) {
        if (!kept(st, e, now))
            continue;
        const unsigned char *k = weir__keymap_key(m, e); /* [ns 8][key] (a map's: [map key]) */
        int64_t ns;
        memcpy(&ns, k, 8);
        r |= msgpack_pack_array(pk, 4);
        r |= msgpack_pack_uint32(pk, weir__key_group(key_hash_of(k + 8, key_size), maxp));
        r |= msgpack_pack_bin_with_body(pk, k + 8, key_size);
        r |= msgpack_pack_int64(pk, ns);
        const void *v = weir__keymap_value(m, e);
        if (st->kind != WEIR_STATE_LIST) {
            const unsigned char *val = map ? (const void *)((const weir__map_link *)v + 1) : v;
            r |= msgpack_pack_bin(pk, (map ? st->mkey_size : 0) + vsize);
            if (map)
                r |= msgpack_pack_bin_body(pk, k + 8 + key_size, st->mkey_size);
            if (st->has_ttl) {
                int64_t stamp;
                memcpy(&stamp, val, 8);
                stamp = stamp_out(st, stamp, now);
                r |= msgpack_pack_bin_body(pk, &stamp, 8);
                val += 8;
            }
            r |= msgpack_pack_bin_body(pk, val, st->size);
        } else if (st->has_ttl) { /* each element after its stamp; the expired left out */
            const weir__list_value *l = v;
            r |= msgpack_pack_bin(pk, (size_t)list_alive(st, l, now) * (8 + st->size));
            for (uint32_t i = 0; i < l->len; i++) {
                if (weir__ttl_expired(st, l->stamps[i], now))
                    continue;
                int64_t stamp = stamp_out(st, l->stamps[i], now);
                r |= msgpack_pack_bin_body(pk, &stamp, 8);
                r |= msgpack_pack_bin_body(pk, l->data + (size_t)i * st->size, st->size);
            }
        } else {
            weir__list_value *l = (weir__list_value *)v;
            r |= msgpack_pack_bin_with_body(pk, weir__list_elems(st, l), (size_t)l->len * st->size);
        }
    }
    return r;
}

typedef struct timer_ref {
    uint64_t seq;
    uint32_t index;
} timer_ref;

static int by_seq(const void *a, const void *b)
{
    uint64_t x = ((const timer_ref *)a)->seq, y = ((const timer_ref *)b)->seq;
    return (x > y) - (x < y);
}

static int pack_timers(const weir__timers *t, uint32_t maxp, msgpack_packer *pk)
{
    const weir__keymap *m = &t->map;
    timer_ref *refs = malloc((m->count ? m->count : 1) * sizeof *refs);
    if (!refs)
        return -1;
    uint32_t n = 0;
    for (uint32_t e = 0; e < m->nentries; e++) {
        if (weir__keymap_live(m, e)) {
            refs[n].seq = weir__timers_view(t, e).seq;
            refs[n++].index = e;
        }
    }
    qsort(refs, n, sizeof *refs, by_seq);
    int r = msgpack_pack_array(pk, n);
    for (uint32_t i = 0; r == 0 && i < n; i++) {
        weir__timer_view tv = weir__timers_view(t, refs[i].index);
        r |= msgpack_pack_array(pk, 5);
        r |= msgpack_pack_uint32(pk, weir__key_group(key_hash_of(tv.key, t->key_size), maxp));
        r |= msgpack_pack_bin_with_body(pk, tv.key, t->key_size);
        r |= msgpack_pack_int64(pk, tv.ns);
        r |= msgpack_pack_int64(pk, tv.ts);
        r |= msgpack_pack_uint32(pk, tv.generation);
    }
    free(refs);
    return r;
}

size_t weir__keyed_snapshot_bound(const weir_ctx *ctx)
{
    const weir__ctx_keyed *kd = &ctx->keyed;
    /* an entry: its array, key group, key and namespace heads (at most 24
     * bytes of msgpack), the key, the value's bin head (5) */
    size_t head = 32 + kd->key_size;
    size_t n = 256;
    for (int s = 0; s < kd->nstates; s++) {
        const weir__state *st = &kd->states[s];
        size_t entries = st->map.count;
        n += 96; /* its map: kind, size, map key size, ttl, the entries' array head */
        if (st->kind == WEIR_STATE_LIST)
            n += entries * head + (size_t)st->elems * ((st->has_ttl ? 8 : 0) + st->size);
        else
            n += entries * (head + st->mkey_size + st->vofs + st->size);
    }
    n += (size_t)(ctx->timers.event.map.count + ctx->timers.processing.map.count) *
         (48 + ctx->timers.event.key_size);
    return n;
}

int weir__keyed_snapshot(weir_ctx *ctx, uint32_t max_parallelism, msgpack_packer *pk)
{
    const weir__ctx_keyed *kd = &ctx->keyed;
    int r = msgpack_pack_map(pk, 3);
    r |= pack_str(pk, "key_size");
    r |= msgpack_pack_uint64(pk, kd->key_size);
    r |= pack_str(pk, "states");
    r |= msgpack_pack_array(pk, (size_t)kd->nstates);
    for (int s = 0; r == 0 && s < kd->nstates; s++)
        r |= pack_state(ctx, &kd->states[s], kd->key_size, max_parallelism, pk);
    r |= pack_str(pk, "timers");
    r |= msgpack_pack_map(pk, 2);
    r |= pack_str(pk, "event");
    if (r == 0)
        r |= pack_timers(&ctx->timers.event, max_parallelism, pk);
    r |= pack_str(pk, "processing");
    if (r == 0)
        r |= pack_timers(&ctx->timers.processing, max_parallelism, pk);
    return r ? WEIR_ENOMEM : 0;
}

/* ---- reading -------------------------------------------------------------- */

typedef struct reader {
    weir_ctx *ctx;
    uint32_t maxp, first, last;
    char *err;
    size_t errsize;
} reader;

static int refuse(reader *rd, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(reader *rd, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->err, rd->errsize, fmt, ap);
    va_end(ap);
    return code;
}

/* An entry's common head: [key group, key (bin of key_size), ...], n long.
 * false if it is malformed; *mine says whether its key group is restored
 * here. */
static bool entry_head(reader *rd, const msgpack_object *e, uint32_t n, bool *mine)
{
    if (e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != n)
        return false;
    const msgpack_object *a = e->via.array.ptr;
    if (!weir__mp_is_uint(&a[0]) || a[0].via.u64 >= rd->maxp || a[1].type != MSGPACK_OBJECT_BIN ||
        a[1].via.bin.size != rd->ctx->keyed.key_size || !weir__mp_is_int(&a[2]))
        return false;
    *mine = a[0].via.u64 >= rd->first && a[0].via.u64 <= rd->last;
    return true;
}

/* A restored value's processing-time stamp, written as its age, back on
 * this run's clock. */
static void restamp(reader *rd, const weir__state *st, void *val)
{
    if (!st->has_ttl || st->ttl.time != WEIR_TTL_PROCESSING_TIME)
        return;
    int64_t age;
    memcpy(&age, val, 8);
    int64_t stamp = (int64_t)((uint64_t)age + (uint64_t)weir__ttl_now(rd->ctx, st));
    memcpy(val, &stamp, 8);
}

static int restore_entry(reader *rd, weir__state *st, const msgpack_object *a)
{
    size_t ks = rd->ctx->keyed.key_size;
    unsigned char *key = rd->ctx->keyed.key_buf->key;
    if (ks)
        memcpy(key, a[1].via.bin.ptr, ks);
    int64_t ns = a[2].via.i64;
    rd->ctx->keyed.key_buf->ns = ns;
    const msgpack_object_bin *v = &a[3].via.bin;
    size_t vsize = st->vofs + st->size;
    size_t stride = st->size + (st->has_ttl ? 8 : 0); /* a list's element (and stamp) */
    bool bad = st->kind == WEIR_STATE_VALUE ? v->size != vsize
               : st->kind == WEIR_STATE_MAP ? v->size != st->mkey_size + vsize
                                            : v->size % stride != 0;
    if (bad)
        return refuse(rd, WEIR_EFORMAT, "keyed snapshot: a %s entry of %" PRIu32 " bytes, for "
                      "elements of %zu", kind_name(st->kind), v->size, st->size);
    uint64_t h = weir__state_hash(key_hash_of(key, ks), ns);
    bool created;
    if (st->kind == WEIR_STATE_MAP) {
        uint32_t idx = weir__map_insert(st, rd->ctx->keyed.key_buf, ks, h, v->ptr, &created);
        if (idx == WEIR__KEYMAP_NONE)
            return refuse(rd, WEIR_ENOMEM, "keyed snapshot: out of memory");
        if (!created)
            return refuse(rd, WEIR_EFORMAT, "keyed snapshot: one key, namespace and map key "
                          "twice");
        void *val = (weir__map_link *)weir__keymap_value(&st->map, idx) + 1;
        memcpy(val, v->ptr + st->mkey_size, vsize);
        restamp(rd, st, val);
        return 0;
    }
    uint32_t idx = weir__keymap_insert(&st->map, h, rd->ctx->keyed.key_buf, &created);
    if (idx == WEIR__KEYMAP_NONE)
        return refuse(rd, WEIR_ENOMEM, "keyed snapshot: out of memory");
    if (!created)
        return refuse(rd, WEIR_EFORMAT, "keyed snapshot: one key and namespace twice");
    void *dst = weir__keymap_value(&st->map, idx);
    if (st->kind == WEIR_STATE_VALUE) {
        memcpy(dst, v->ptr, vsize);
        restamp(rd, st, dst);
        return 0;
    }
    weir__list_value *l = dst;
    uint32_t len = (uint32_t)(v->size / stride);
    unsigned char *data = weir__list_reserve(st, l, len); /* in its entry if it fits */
    if (!data) {
        weir__keymap_remove(&st->map, idx);
        return refuse(rd, WEIR_ENOMEM, "keyed snapshot: out of memory");
    }
    if (!st->has_ttl && len)
        memcpy(data, v->ptr, v->size);
    for (uint32_t i = 0; st->has_ttl && i < len; i++) {
        unsigned char stamp[8];
        memcpy(stamp, v->ptr + (size_t)i * stride, 8);
        restamp(rd, st, stamp);
        memcpy(&l->stamps[i], stamp, 8);
        memcpy(data + (size_t)i * st->size, v->ptr + (size_t)i * stride + 8, st->size);
    }
    l->len = len;
    st->elems += len;
    return 0;
}

static int restore_state(reader *rd, int s, const msgpack_object *o)
{
    weir__state *st = &rd->ctx->keyed.states[s];
    const msgpack_object *kind = weir__mp_member(o, "kind"), *size = weir__mp_member(o, "size"),
                         *entries = weir__mp_member(o, "entries");
    const char *want = kind_name(st->kind);
    const msgpack_object *mks = weir__mp_member(o, "map_key_size");
    if (!weir__mp_str_is(kind, want) || !weir__mp_is_uint(size) ||
        size->via.u64 != st->size ||
        (st->kind == WEIR_STATE_MAP && (!weir__mp_is_uint(mks) || mks->via.u64 != st->mkey_size)) ||
        (weir__mp_member(o, "ttl") != NULL) != st->has_ttl)
        return refuse(rd, WEIR_EINVAL,
                      "keyed snapshot: state %d is not the %s state of %zu bytes%s the "
                      "operator declared",
                      s, want, st->size, st->has_ttl ? " with a time to live" : "");
    if (!entries || entries->type != MSGPACK_OBJECT_ARRAY)
        return refuse(rd, WEIR_EFORMAT, "keyed snapshot: state %d has no entries", s);
    for (uint32_t i = 0; i < entries->via.array.size; i++) {
        const msgpack_object *e = &entries->via.array.ptr[i];
        bool mine;
        if (!entry_head(rd, e, 4, &mine) || e->via.array.ptr[3].type != MSGPACK_OBJECT_BIN)
            return refuse(rd, WEIR_EFORMAT, "keyed snapshot: entry %" PRIu32 " of state %d is "
                          "not [key group, key, namespace, value]", i, s);
        if (mine) {
            int r = restore_entry(rd, st, e->via.array.ptr);
            if (r)
                return r;
        }
    }
    return 0;
}

static int restore_timers(reader *rd, weir__timers *t, bool processing, const msgpack_object *o)
{
    if (!o || o->type != MSGPACK_OBJECT_ARRAY)
        return refuse(rd, WEIR_EFORMAT, "keyed snapshot: no %s timers",
                      processing ? "processing" : "event");
    size_t ks = rd->ctx->keyed.key_size;
    for (uint32_t i = 0; i < o->via.array.size; i++) {
        const msgpack_object *e = &o->via.array.ptr[i];
        bool mine;
        if (!entry_head(rd, e, 5, &mine) || !weir__mp_is_int(&e->via.array.ptr[3]) ||
            !weir__mp_is_uint(&e->via.array.ptr[4]) || e->via.array.ptr[4].via.u64 > UINT32_MAX)
            return refuse(rd, WEIR_EFORMAT, "keyed snapshot: timer %" PRIu32 " is not [key group, "
                          "key, namespace, timestamp, generation]", i);
        if (!mine)
            continue;
        const msgpack_object *a = e->via.array.ptr;
        const unsigned char *key = (const unsigned char *)a[1].via.bin.ptr;
        int64_t ts = a[3].via.i64;
        int r = weir__timers_add_generation(t, ks ? key : NULL, key_hash_of(key, ks), a[2].via.i64,
                                            ts, (uint32_t)a[4].via.u64);
        if (r)
            return refuse(rd, WEIR_ENOMEM, "keyed snapshot: out of memory");
        if (processing && rd->ctx->sub && ts < rd->ctx->sub->deadline)
            rd->ctx->sub->deadline = ts;
    }
    return 0;
}

int weir__keyed_restore(weir_ctx *ctx, const msgpack_object *snapshot, uint32_t max_parallelism,
                        uint32_t first, uint32_t last, char *err, size_t errsize)
{
    reader rd = {.ctx = ctx, .maxp = max_parallelism, .first = first, .last = last, .err = err,
                 .errsize = errsize};
    const msgpack_object *ks = weir__mp_member(snapshot, "key_size"), *states = weir__mp_member(snapshot, "states"),
                         *timers = weir__mp_member(snapshot, "timers");
    if (!weir__mp_is_uint(ks) || !states || states->type != MSGPACK_OBJECT_ARRAY || !timers)
        return refuse(&rd, WEIR_EFORMAT, "keyed snapshot: not a keyed snapshot map");
    if (ks->via.u64 != ctx->keyed.key_size)
        return refuse(&rd, WEIR_EINVAL, "keyed snapshot: keys of %" PRIu64 " bytes, the "
                      "operator's are %zu", ks->via.u64, ctx->keyed.key_size);
    if (states->via.array.size != (uint32_t)ctx->keyed.nstates)
        return refuse(&rd, WEIR_EINVAL, "keyed snapshot: %" PRIu32 " states, the operator "
                      "declared %d", states->via.array.size, ctx->keyed.nstates);
    /* a restore writes the current key: the operator sees no key after it */
    bool had_key = ctx->keyed.has_key;
    int r = 0;
    for (int s = 0; r == 0 && s < ctx->keyed.nstates; s++)
        r = restore_state(&rd, s, &states->via.array.ptr[s]);
    if (r == 0)
        r = restore_timers(&rd, &ctx->timers.event, false, weir__mp_member(timers, "event"));
    if (r == 0)
        r = restore_timers(&rd, &ctx->timers.processing, true, weir__mp_member(timers, "processing"));
    ctx->keyed.has_key = had_key;
    ctx->keyed.key_hashed = false;
    return r;
}
