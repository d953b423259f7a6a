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
    return weir__hash_mix(weir__ctx_key_hash(ctx), ns, 0);
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

uint32_t weir__map_insert(weir__state *st, const weir__key_buf *kb, size_t key_size, uint64_t h,
                          const void *mkey, bool *created)
{
    fill_probe(st, kb, key_size, mkey);
    uint32_t idx = weir__keymap_insert(&st->map, entry_hash(st, h, mkey), st->probe, created);
    if (idx == WEIR__KEYMAP_NONE || !*created)
        return idx;
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

static uint32_t find(weir_ctx *ctx, weir__state *st, uint64_t hh, const void *mkey)
{
    fill_probe(st, ctx->keyed.key_buf, ctx->keyed.key_size, mkey);
    return weir__keymap_find(&st->map, entry_hash(st, hh, mkey), st->probe);
}

/* Unlinks and removes entry idx of the map whose head is at hh. */
static void remove_entry(weir_ctx *ctx, weir__state *st, uint64_t hh, uint32_t idx)
{
    uint32_t hi = weir__keymap_find(&st->heads, hh, ctx->keyed.key_buf);
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
    uint64_t hh = head_hash(ctx, ns);
    uint32_t idx;
    if (create) {
        bool created;
        idx = weir__map_insert(st, ctx->keyed.key_buf, ctx->keyed.key_size, hh, mkey, &created);
        if (idx == WEIR__KEYMAP_NONE) {
            ctx->keyed.state_error = WEIR_ENOMEM;
            weir_ctx_fail(ctx, WEIR_ENOMEM, "keyed state: out of memory");
            return NULL;
        }
    } else {
        idx = find(ctx, st, hh, mkey);
        if (idx == WEIR__KEYMAP_NONE)
            return NULL;
    }
    return link_of(st, idx) + 1;
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
    uint64_t hh = head_hash(ctx, ns);
    uint32_t idx = find(ctx, st, hh, mkey);
    if (idx == WEIR__KEYMAP_NONE)
        return 0;
    remove_entry(ctx, st, hh, idx);
    return 1;
}

bool weir_state_map_contains(weir_ctx *ctx, int id, int64_t ns, const void *mkey)
{
    return weir_state_map_get(ctx, id, ns, mkey, false) != NULL;
}

/* The head of (current key, ns)'s map, or NULL. */
static const weir__map_head *head_of(weir_ctx *ctx, int id, int64_t ns, const char *what)
{
    weir__state *st = weir__state_get(ctx, id, WEIR_STATE_MAP, what);
    if (!st)
        return NULL;
    uint32_t hi = weir__keymap_find(&st->heads, head_hash(ctx, ns), ctx->keyed.key_buf);
    return hi == WEIR__KEYMAP_NONE ? NULL : weir__keymap_value(&st->heads, hi);
}

size_t weir_state_map_count(weir_ctx *ctx, int id, int64_t ns)
{
    const weir__map_head *head = head_of(ctx, id, ns, "weir_state_map_count");
    return head ? head->count : 0;
}

void weir_state_map_begin(weir_ctx *ctx, int id, int64_t ns, weir_state_map_iter *it)
{
    const weir__map_head *head = head_of(ctx, id, ns, "weir_state_map_begin");
    *it = (weir_state_map_iter){.ctx = ctx, .id = id, .next = head ? head->first : 0};
}

bool weir_state_map_next(weir_state_map_iter *it, const void **mkey, void **value)
{
    if (!it->next)
        return false;
    const weir__state *st = &it->ctx->keyed.states[it->id];
    uint32_t idx = it->next - 1;
    weir__map_link *l = link_of(st, idx);
    it->next = l->next;
    if (mkey)
        *mkey = weir__keymap_key(&st->map, idx) + 8 + it->ctx->keyed.key_size;
    if (value)
        *value = l + 1;
    return true;
}
