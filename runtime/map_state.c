/* map_state.c — map state (weir/state.h, Flink's MapState): per (key,
 * namespace) a map of fixed-size map keys to fixed-size values.
 *
 * Every entry is one entry of the state's keymap, keyed by [ns][key][map
 * key], so a get or a put is one probe. The entries of one (key, ns) are a
 * doubly linked list through their indices (stable in a keymap), whose head
 * (the newest entry and the count) is an entry of a second keymap keyed by
 * [ns][key]: iterating or clearing a map walks its own entries only. */
#include <string.h>

#include "task.h"
#include "util.h"
#include "weir/error.h"
#include "weir/state.h"

static uint64_t head_hash(weir_ctx *ctx, int64_t ns)
{
    ctx->keyed.key_buf->ns = ns;
    return weir__state_hash(weir__ctx_key_hash(ctx), ns);
}

static uint64_t entry_hash(const weir__state *st, uint64_t hh, const void *mkey)
{
    return weir__hash_mix(hh, (int64_t)weir__hash_key(mkey, st->mkey_size), 1);
}

/* [ns][key][map key] into st->probe. */
static void fill_probe(weir__state *st, const weir__key_buf *kb, size_t key_size,
                       const void *mkey)
{
    memcpy(st->probe, kb, 8 + key_size);
    memcpy(st->probe + 8 + key_size, mkey, st->mkey_size);
}

static weir__map_link *link_of(const weir__state *st, uint32_t idx)
{
    return weir__keymap_value(&st->map, idx);
}

/* Links entry idx, just added to st->map, at the front of its key's list
 * (the head of hash h made if new); removes it again, and returns
 * WEIR__KEYMAP_NONE, out of memory. */
static uint32_t link_new(weir__state *st, const weir__key_buf *kb, uint64_t h, uint32_t idx)
{
    bool new_head;
    uint32_t hi = weir__keymap_insert(&st->heads, h, kb, &new_head);
    if (hi == WEIR__KEYMAP_NONE) {
        weir__keymap_remove(&st->map, idx);
        return WEIR__KEYMAP_NONE;
    }
    weir__map_head *head = weir__keymap_value(&st->heads, hi);
    weir__map_link *l = link_of(st, idx);
    l->prev = 0;
    l->next = head->first;
    if (head->first)
        link_of(st, head->first - 1)->prev = idx + 1;
    head->first = idx + 1;
    head->count++;
    return idx;
}

uint32_t weir__map_insert(weir__state *st, const weir__key_buf *kb, size_t key_size, uint64_t h,
                          const void *mkey, bool *created)
{
    fill_probe(st, kb, key_size, mkey);
    uint32_t idx = weir__keymap_insert(&st->map, entry_hash(st, h, mkey), st->probe, created);
    if (idx == WEIR__KEYMAP_NONE || !*created)
        return idx;
    return link_new(st, kb, h, idx);
}

static uint32_t find(weir_ctx *ctx, weir__state *st, uint64_t hh, const void *mkey)
{
    fill_probe(st, ctx->keyed.key_buf, ctx->keyed.key_size, mkey);
    return weir__keymap_find(&st->map, entry_hash(st, hh, mkey), st->probe);
}

/* Unlinks and removes entry idx of the map whose head (key [ns][key] at
 * head_key) has hash hh. */
static void unlink_entry(weir__state *st, uint64_t hh, const void *head_key, uint32_t idx)
{
    uint32_t hi = weir__keymap_find(&st->heads, hh, head_key);
    weir__map_head *head = weir__keymap_value(&st->heads, hi);
    weir__map_link l = *link_of(st, idx);
    if (l.prev)
        link_of(st, l.prev - 1)->next = l.next;
    else
        head->first = l.next;
    if (l.next)
        link_of(st, l.next - 1)->prev = l.prev;
    if (--head->count == 0)
        weir__keymap_remove(&st->heads, hi);
    weir__keymap_remove(&st->map, idx);
}

static void remove_entry(weir_ctx *ctx, weir__state *st, uint64_t hh, uint32_t idx)
{
    unlink_entry(st, hh, ctx->keyed.key_buf, idx);
}

void weir__map_remove_at(weir__state *st, size_t key_size, uint32_t idx)
{
    const unsigned char *k = weir__keymap_key(&st->map, idx); /* [ns][key][map key] */
    int64_t ns;
    memcpy(&ns, k, 8);
    uint64_t hh = weir__state_hash(key_size ? weir__hash_key(k + 8, key_size) : 0, ns);
    unlink_entry(st, hh, k, idx);
}

/* The user's value of entry idx. */
static void *value_at(const weir__state *st, uint32_t idx)
{
    return (unsigned char *)(link_of(st, idx) + 1) + st->vofs;
}

/* With a time to live: the cleanup of a call, and the time now (0 without). */
static int64_t ttl_begin(weir_ctx *ctx, weir__state *st)
{
    if (!st->has_ttl)
        return 0;
    int64_t now = weir__ttl_now(ctx, st);
    weir__ttl_cleanup(ctx, st, now);
    return now;
}

/* Whether entry idx has expired at now (never without a time to live). */
static bool expired(const weir__state *st, uint32_t idx, int64_t now)
{
    return st->has_ttl && weir__ttl_expired(st, *weir__ttl_stamp(st, idx), now);
}

/* A read of entry idx at now: its stamp moves if reads count. */
static void read_at(const weir__state *st, uint32_t idx, int64_t now)
{
    if (st->has_ttl && st->ttl.update == WEIR_TTL_ON_READ_AND_WRITE)
        *weir__ttl_stamp(st, idx) = now;
}

void weir__map_clear(weir_ctx *ctx, weir__state *st, int64_t ns)
{
    uint64_t hh = head_hash(ctx, ns);
    uint32_t hi = weir__keymap_find(&st->heads, hh, ctx->keyed.key_buf);
    if (hi == WEIR__KEYMAP_NONE)
        return;
    uint32_t next = ((weir__map_head *)weir__keymap_value(&st->heads, hi))->first;
    while (next) {
        uint32_t idx = next - 1;
        next = link_of(st, idx)->next;
        weir__keymap_remove(&st->map, idx);
    }
    weir__keymap_remove(&st->heads, hi);
}

void *weir_state_map_get(weir_ctx *ctx, int id, int64_t ns, const void *mkey, bool create)
{
    weir__state *st = weir__state_get(ctx, id, WEIR_STATE_MAP, "weir_state_map_get");
    if (!st)
        return NULL;
    int64_t now = ttl_begin(ctx, st);
    uint64_t hh = head_hash(ctx, ns);
    /* the entry's hash (the map key's bytes hashed: a whole row, for a
     * join's side) and its probe made once, for the look-up and a create */
    fill_probe(st, ctx->keyed.key_buf, ctx->keyed.key_size, mkey);
    uint64_t eh = entry_hash(st, hh, mkey);
    uint32_t idx = weir__keymap_find(&st->map, eh, st->probe);
    if (idx != WEIR__KEYMAP_NONE && expired(st, idx, now)) {
        remove_entry(ctx, st, hh, idx); /* never returned: as if absent */
        idx = WEIR__KEYMAP_NONE;
    }
    if (idx == WEIR__KEYMAP_NONE) {
        if (!create)
            return NULL;
        idx = weir__keymap_add(&st->map, eh, st->probe);
        if (idx != WEIR__KEYMAP_NONE)
            idx = link_new(st, ctx->keyed.key_buf, hh, idx);
        if (idx == WEIR__KEYMAP_NONE) {
            ctx->keyed.state_error = WEIR_ENOMEM;
            weir_ctx_fail(ctx, WEIR_ENOMEM, "keyed state: out of memory");
            return NULL;
        }
    }
    if (create && st->has_ttl)
        *weir__ttl_stamp(st, idx) = now; /* a write */
    else
        read_at(st, idx, now);
    return value_at(st, idx);
}

int weir_state_map_put(weir_ctx *ctx, int id, int64_t ns, const void *mkey, const void *value)
{
    void *v = weir_state_map_get(ctx, id, ns, mkey, true);
    if (!v)
        return ctx->keyed.state_error ? ctx->keyed.state_error : WEIR_ENOMEM;
    memcpy(v, value, ctx->keyed.states[id].size);
    return 0;
}

int weir_state_map_remove(weir_ctx *ctx, int id, int64_t ns, const void *mkey)
{
    weir__state *st = weir__state_get(ctx, id, WEIR_STATE_MAP, "weir_state_map_remove");
    if (!st)
        return 0;
    int64_t now = ttl_begin(ctx, st);
    uint64_t hh = head_hash(ctx, ns);
    uint32_t idx = find(ctx, st, hh, mkey);
    if (idx == WEIR__KEYMAP_NONE)
        return 0;
    bool was = !expired(st, idx, now);
    remove_entry(ctx, st, hh, idx);
    return was;
}

bool weir_state_map_contains(weir_ctx *ctx, int id, int64_t ns, const void *mkey)
{
    return weir_state_map_get(ctx, id, ns, mkey, false) != NULL;
}

/* The head of (current key, ns)'s map, or NULL; with a time to live its
 * expired entries removed first (so a count or an iteration never sees
 * them). */
static const weir__map_head *head_of(weir_ctx *ctx, int id, int64_t ns, const char *what,
                                     int64_t *now)
{
    weir__state *st = weir__state_get(ctx, id, WEIR_STATE_MAP, what);
    if (!st)
        return NULL;
    *now = ttl_begin(ctx, st);
    uint64_t hh = head_hash(ctx, ns);
    uint32_t hi = weir__keymap_find(&st->heads, hh, ctx->keyed.key_buf);
    if (hi == WEIR__KEYMAP_NONE)
        return NULL;
    if (st->has_ttl) {
        uint32_t next = ((weir__map_head *)weir__keymap_value(&st->heads, hi))->first;
        while (next) {
            uint32_t idx = next - 1;
            next = link_of(st, idx)->next;
            if (expired(st, idx, *now)) {
                bool last = ((weir__map_head *)weir__keymap_value(&st->heads, hi))->count == 1;
                remove_entry(ctx, st, hh, idx);
                if (last)
                    return NULL;
            }
        }
    }
    return weir__keymap_value(&st->heads, hi);
}

size_t weir_state_map_count(weir_ctx *ctx, int id, int64_t ns)
{
    int64_t now;
    const weir__map_head *head = head_of(ctx, id, ns, "weir_state_map_count", &now);
    return head ? head->count : 0;
}

void weir_state_map_begin(weir_ctx *ctx, int id, int64_t ns, weir_state_map_iter *it)
{
    int64_t now = 0;
    const weir__map_head *head = head_of(ctx, id, ns, "weir_state_map_begin", &now);
    *it = (weir_state_map_iter){.ctx = ctx, .id = id, .next = head ? head->first : 0,
                                .now = now};
}

bool weir_state_map_next(weir_state_map_iter *it, const void **mkey, void **value)
{
    if (!it->next)
        return false;
    const weir__state *st = &it->ctx->keyed.states[it->id];
    uint32_t idx = it->next - 1;
    it->next = link_of(st, idx)->next;
    read_at(st, idx, it->now);
    if (mkey)
        *mkey = weir__keymap_key(&st->map, idx) + 8 + it->ctx->keyed.key_size;
    if (value)
        *value = value_at(st, idx);
    return true;
}
