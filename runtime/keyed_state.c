/* keyed_state.c — values and lists per (key, namespace) for keyed operators
 * (weir/state.h), each state one keymap in the subtask's own memory; what
 * every kind shares (declaring, finding, clearing, sizes). Maps are
 * map_state.c's.
 *
 * The current key sits in ctx->keyed.key_buf (weir__key_buf, task.h) after its
 * namespace slot, with its hash computed once per record (or timer). A
 * lookup writes the namespace into that slot and mixes it into the key
 * hash, so finding the state of (key, ns) costs one table probe and no
 * rehash of the key bytes.
 *
 * One miss a lookup: an entry below a cache line takes a whole one (the
 * keymap keeps its entries on lines), and a list keeps its elements in its
 * entry, in the rest of its line (or lines: room for one element of up to
 * two lines), while they fit (weir__list_value): a key's pane of a tumbling
 * window, its one session or a few small elements are where the probe
 * lands, not behind a pointer to a buffer of their own. A list that
 * outgrows its entry moves to a buffer, and back when it shrinks
 * (weir_state_list_set).
 */
#include <stdlib.h>
#include <string.h>

#include "task.h"
#include "util.h"
#include "weir/error.h"
#include "weir/state.h"

#define MAX_STATE_SIZE (1u << 20)

/* 0 in open() of an operator whose input is keyed; else the ctx failed
 * (WEIR_ESTATE, WEIR_ENOKEY), its message naming `what`. */
static int keyed_open(weir_ctx *ctx, const char *what)
{
    if (!ctx->lifecycle.in_open)
        return weir_ctx_fail(ctx, WEIR_ESTATE, "%s: only in open()", what);
    if (ctx->keyed.key_size == 0)
        return weir_ctx_fail(ctx, WEIR_ENOKEY,
                             "%s: the operator's input is not keyed (key_by first)", what);
    return 0;
}

/* A new state of `kind` in ctx (only in open(), keyed): its slot, or NULL
 * with the ctx failed. */
static weir__state *declare(weir_ctx *ctx, weir_state_kind kind, size_t size, const char *what)
{
    if (keyed_open(ctx, what) < 0)
        return NULL;
    if (size == 0 || size > MAX_STATE_SIZE) {
        weir_ctx_fail(ctx, WEIR_EINVAL, "%s: size %zu is not in 1..%u", what, size,
                      MAX_STATE_SIZE);
        return NULL;
    }
    weir__state *states = realloc(ctx->keyed.states, (size_t)(ctx->keyed.nstates + 1) * sizeof *states);
    if (!states) {
        weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", what);
        return NULL;
    }
    ctx->keyed.states = states;
    weir__state *st = &states[ctx->keyed.nstates];
    *st = (weir__state){.kind = kind, .size = size};
    return st;
}

int weir_state_declare(weir_ctx *ctx, weir_state_kind kind, size_t size, int *id)
{
    if (kind != WEIR_STATE_VALUE && kind != WEIR_STATE_LIST)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "weir_state_declare: unknown kind %d%s", (int)kind,
                             kind == WEIR_STATE_MAP ? " (a map: weir_state_declare_map)" : "");
    weir__state *st = declare(ctx, kind, size, "weir_state_declare");
    if (!st)
        return weir_ctx_error(ctx);
    size_t key_len = 8 + ctx->keyed.key_size;
    if (kind == WEIR_STATE_VALUE) {
        /* padded to whole cache lines when that adds less than a line */
        size_t value = weir__keymap_line_value(key_len, size);
        weir__keymap_init(&st->map, key_len, value <= WEIR__KEYMAP_LINE ? value : size);
    } else {
        /* room for one element at least, up to two lines of it (a
         * session): the entry's lines are adjacent, read side by side */
        size_t need = sizeof(weir__list_value), one = offsetof(weir__list_value, data) + size;
        if (size <= 2 * WEIR__KEYMAP_LINE && one > need)
            need = one;
        size_t value = weir__keymap_line_value(key_len, need);
        size_t room = value - offsetof(weir__list_value, data);
        st->inl_cap = (uint32_t)(room / size);
        weir__keymap_init(&st->map, key_len, value);
    }
    *id = ctx->keyed.nstates++;
    return 0;
}

int weir_state_declare_map(weir_ctx *ctx, size_t key_size, size_t value_size, int *id)
{
    static const char what[] = "weir_state_declare_map";
    if (key_size == 0 || key_size > MAX_STATE_SIZE)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "%s: key size %zu is not in 1..%u", what,
                             key_size, MAX_STATE_SIZE);
    weir__state *st = declare(ctx, WEIR_STATE_MAP, value_size, what);
    if (!st)
        return weir_ctx_error(ctx);
    size_t head = 8 + ctx->keyed.key_size;
    st->mkey_size = key_size;
    st->probe = calloc(1, head + key_size);
    if (!st->probe)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", what);
    weir__keymap_init(&st->map, head + key_size, sizeof(weir__map_link) + value_size);
    weir__keymap_init(&st->heads, head, sizeof(weir__map_head));
    *id = ctx->keyed.nstates++;
    return 0;
}

int weir_state_prefetch(weir_ctx *ctx, int id)
{
    const char *what = "weir_state_prefetch";
    int r = keyed_open(ctx, what);
    if (r < 0)
        return r;
    if (id < 0 || id >= ctx->keyed.nstates || ctx->keyed.states[id].kind == WEIR_STATE_MAP)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "%s: no value or list state with id %d", what, id);
    if (!ctx->keyed.ahead_keys) {
        ctx->keyed.ahead_keys = malloc(WEIR__AHEAD_RING * ctx->keyed.key_size);
        if (!ctx->keyed.ahead_keys)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", what);
    }
    ctx->keyed.ahead = id + 1;
    return 0;
}

void weir__state_free(weir__state *st)
{
    if (st->kind == WEIR_STATE_LIST) {
        for (uint32_t e = 0; e < st->map.nentries; e++) {
            if (weir__keymap_live(&st->map, e))
                weir__list_free(st, weir__keymap_value(&st->map, e));
        }
    }
    weir__keymap_free(&st->map);
    if (st->kind == WEIR_STATE_MAP)
        weir__keymap_free(&st->heads);
    free(st->probe);
}

static const char *kind_name(weir_state_kind kind)
{
    return kind == WEIR_STATE_VALUE ? "value" : kind == WEIR_STATE_LIST ? "list" : "map";
}

weir__state *weir__state_get(weir_ctx *ctx, int id, weir_state_kind kind, const char *what)
{
    if (id < 0 || id >= ctx->keyed.nstates || ctx->keyed.states[id].kind != kind) {
        weir_ctx_fail(ctx, WEIR_EINVAL, "%s: no %s state with id %d", what, kind_name(kind), id);
        ctx->keyed.state_error = WEIR_EINVAL;
        return NULL;
    }
    if (!ctx->keyed.has_key) {
        weir_ctx_fail(ctx, WEIR_ENOKEY, "%s: no current key (only in on_record / on_timer)", what);
        ctx->keyed.state_error = WEIR_ENOKEY;
        return NULL;
    }
    return &ctx->keyed.states[id];
}

#define get_state weir__state_get

static uint64_t key_for(weir_ctx *ctx, int64_t ns)
{
    ctx->keyed.key_buf->ns = ns;
    return weir__state_hash(weir__ctx_key_hash(ctx), ns);
}

/* The list of (current key, ns) in `st` at entry *idx, made empty if new
 * (*created says so); out of memory fails the ctx and returns NULL (the code
 * is WEIR_ENOMEM). *elems, the caller's elements to write, may be another
 * list's of the same state kept in its entry (from weir_state_list_get):
 * they move with the entries when the insert grows the table, and *elems
 * follows them. */
static weir__list_value *list_entry(weir_ctx *ctx, weir__state *st, int64_t ns, uint32_t *idx,
                                    bool *created, const void **elems)
{
    uintptr_t base = (uintptr_t)st->map.entries, p = (uintptr_t)*elems;
    size_t span = (size_t)st->map.nentries * st->map.entry_size;
    bool inside = base && p >= base && p - base < span;
    *idx = weir__keymap_insert(&st->map, key_for(ctx, ns), ctx->keyed.key_buf, created);
    if (*idx == WEIR__KEYMAP_NONE) {
        weir_ctx_fail(ctx, WEIR_ENOMEM, "keyed state: out of memory");
        return NULL;
    }
    if (inside)
        *elems = st->map.entries + (p - base);
    return weir__keymap_value(&st->map, *idx);
}

void *weir_state_value(weir_ctx *ctx, int id, int64_t ns, bool create)
{
    weir__state *st = get_state(ctx, id, WEIR_STATE_VALUE, "weir_state_value");
    if (!st)
        return NULL;
    int64_t now = 0;
    if (st->has_ttl) {
        now = weir__ttl_now(ctx, st);
        weir__ttl_cleanup(ctx, st, now);
    }
    uint64_t h = key_for(ctx, ns);
    uint32_t idx = weir__keymap_find(&st->map, h, ctx->keyed.key_buf);
    if (idx != WEIR__KEYMAP_NONE && st->has_ttl &&
        weir__ttl_expired(st, *weir__ttl_stamp(st, idx), now)) {
        weir__keymap_remove(&st->map, idx); /* never returned: as if absent */
        idx = WEIR__KEYMAP_NONE;
    }
    if (idx == WEIR__KEYMAP_NONE) {
        if (!create)
            return NULL;
        idx = weir__keymap_add(&st->map, h, ctx->keyed.key_buf);
        if (idx == WEIR__KEYMAP_NONE) {
            ctx->keyed.state_error = WEIR_ENOMEM;
            weir_ctx_fail(ctx, WEIR_ENOMEM, "keyed state: out of memory");
            return NULL;
        }
    }
    /* a time to live's stamp: create is a write, else a read */
    if (st->has_ttl && (create || st->ttl.update == WEIR_TTL_ON_READ_AND_WRITE))
        *weir__ttl_stamp(st, idx) = now;
    return (unsigned char *)weir__keymap_value(&st->map, idx) + st->vofs;
}

/* A list's room for `cap` elements (and their stamps with a time to
 * live; cap > st->inl_cap, so in a buffer of its own); its elements kept.
 * 0, or WEIR_ENOMEM with nothing changed. */
static int list_grow(const weir__state *st, weir__list_value *l, uint32_t cap)
{
    if (weir__list_inline(st, l)) { /* out of its entry */
        unsigned char *d = malloc((size_t)cap * st->size);
        int64_t *t = st->has_ttl ? malloc((size_t)cap * sizeof *t) : NULL;
        if (!d || (st->has_ttl && !t)) {
            free(d);
            free(t);
            return WEIR_ENOMEM;
        }
        memcpy(d, weir__list_elems(st, l), (size_t)l->len * st->size);
        l->data = d;
        l->stamps = t;
        l->cap = cap;
        return 0;
    }
    unsigned char *d = realloc(l->data, (size_t)cap * st->size);
    if (!d)
        return WEIR_ENOMEM;
    l->data = d;
    if (st->has_ttl) {
        int64_t *t = realloc(l->stamps, (size_t)cap * sizeof *t);
        if (!t)
            return WEIR_ENOMEM; /* the larger data buffer is harmless: cap unchanged */
        l->stamps = t;
    }
    l->cap = cap;
    return 0;
}

int weir_state_list_add(weir_ctx *ctx, int id, int64_t ns, const void *elem)
{
    weir__state *st = get_state(ctx, id, WEIR_STATE_LIST, "weir_state_list_add");
    if (!st)
        return ctx->keyed.state_error;
    int64_t now = 0;
    if (st->has_ttl) {
        now = weir__ttl_now(ctx, st);
        weir__ttl_cleanup(ctx, st, now);
    }
    uint32_t idx;
    bool created;
    weir__list_value *l = list_entry(ctx, st, ns, &idx, &created, &elem);
    if (!l)
        return WEIR_ENOMEM;
    bool in = weir__list_inline(st, l);
    uint32_t room = in ? st->inl_cap : l->cap;
    if (l->len == room) {
        /* elem may be one of this list's own, in its entry */
        uintptr_t own = (uintptr_t)weir__list_elems(st, l), p = (uintptr_t)elem;
        bool mine = in && p >= own && p - own < (size_t)l->len * st->size;
        if (list_grow(st, l, room ? room * 2 : 4)) {
            if (created)
                weir__keymap_remove(&st->map, idx);
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "keyed state: out of memory");
        }
        if (mine)
            elem = l->data + (p - own);
    }
    memcpy(weir__list_elems(st, l) + (size_t)l->len * st->size, elem, st->size);
    if (st->has_ttl) /* an added element is written now */
        l->stamps[l->len] = now;
    l->len++;
    st->elems++;
    return 0;
}

/* The list of (current key, ns): with a time to live its expired elements
 * are removed first (never returned), and the others' stamps renewed when
 * the access counts as one (`write`, or a read with OnReadAndWrite). */
static void *list_data(weir_ctx *ctx, int id, int64_t ns, size_t *count, bool write,
                       const char *what)
{
    *count = 0;
    weir__state *st = get_state(ctx, id, WEIR_STATE_LIST, what);
    if (!st)
        return NULL;
    int64_t now = 0;
    if (st->has_ttl) {
        now = weir__ttl_now(ctx, st);
        weir__ttl_cleanup(ctx, st, now);
    }
    uint64_t h = key_for(ctx, ns);
    uint32_t idx = weir__keymap_find(&st->map, h, ctx->keyed.key_buf);
    if (idx == WEIR__KEYMAP_NONE)
        return NULL;
    weir__list_value *l = weir__keymap_value(&st->map, idx);
    if (st->has_ttl) {
        if (weir__ttl_list_compact(st, l, now) == 0) {
            weir__list_free(st, l);
            weir__keymap_remove(&st->map, idx);
            return NULL;
        }
        if (write || st->ttl.update == WEIR_TTL_ON_READ_AND_WRITE)
            for (uint32_t i = 0; i < l->len; i++)
                l->stamps[i] = now;
    }
    *count = l->len;
    return weir__list_elems(st, l);
}

const void *weir_state_list_get(weir_ctx *ctx, int id, int64_t ns, size_t *count)
{
    return list_data(ctx, id, ns, count, false, "weir_state_list_get");
}

void *weir_state_list_data(weir_ctx *ctx, int id, int64_t ns, size_t *count)
{
    return list_data(ctx, id, ns, count, true, "weir_state_list_data");
}

int weir_state_list_set(weir_ctx *ctx, int id, int64_t ns, const void *elems, size_t count)
{
    weir__state *st = get_state(ctx, id, WEIR_STATE_LIST, "weir_state_list_set");
    if (!st)
        return ctx->keyed.state_error;
    if (count == 0) {
        weir_state_clear(ctx, id, ns);
        return 0;
    }
    if (count > UINT32_MAX / 2)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "weir_state_list_set: %zu elements is too many",
                             count);
    int64_t now = 0;
    if (st->has_ttl) {
        now = weir__ttl_now(ctx, st);
        weir__ttl_cleanup(ctx, st, now);
    }
    uint32_t idx;
    bool created;
    weir__list_value *l = list_entry(ctx, st, ns, &idx, &created, &elems);
    if (!l)
        return WEIR_ENOMEM;
    bool in = weir__list_inline(st, l);
    if (count <= st->inl_cap) {
        /* into its entry (no time to live: inl_cap is 0 with one), out
         * of its buffer if it had one (elems may lie in it) */
        unsigned char *old = in ? NULL : l->data;
        memmove((unsigned char *)&l->data, elems, count * st->size);
        free(old);
        l->cap = 0;
    } else if ((in ? 0 : l->cap) < count) {
        /* A fresh buffer, not realloc: `elems` may live in the old one. A
         * new list gets just what it holds (lists that are rewritten, like a
         * key's few open sessions, are mostly tiny). */
        uint32_t cap = l->cap ? l->cap : 1;
        while (cap < count)
            cap *= 2;
        unsigned char *d = malloc((size_t)cap * st->size);
        int64_t *t = st->has_ttl ? malloc((size_t)cap * sizeof *t) : NULL;
        if (!d || (st->has_ttl && !t)) {
            free(d);
            free(t);
            if (created)
                weir__keymap_remove(&st->map, idx);
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "keyed state: out of memory");
        }
        memcpy(d, elems, count * st->size);
        if (!in) {
            free(l->data);
            free(l->stamps);
        }
        l->data = d;
        l->stamps = t;
        l->cap = cap;
    } else {
        memmove(l->data, elems, count * st->size);
    }
    st->elems += (int64_t)count - (int64_t)(created ? 0 : l->len);
    l->len = (uint32_t)count;
    if (st->has_ttl) /* every element written now */
        for (uint32_t i = 0; i < l->len; i++)
            l->stamps[i] = now;
    return 0;
}

void weir_state_clear(weir_ctx *ctx, int id, int64_t ns)
{
    if (id < 0 || id >= ctx->keyed.nstates || !ctx->keyed.has_key)
        return;
    weir__state *st = &ctx->keyed.states[id];
    if (st->kind == WEIR_STATE_MAP) {
        weir__map_clear(ctx, st, ns);
        return;
    }
    uint64_t h = key_for(ctx, ns);
    uint32_t idx = weir__keymap_find(&st->map, h, ctx->keyed.key_buf);
    if (idx == WEIR__KEYMAP_NONE)
        return;
    if (st->kind == WEIR_STATE_LIST) {
        weir__list_value *l = weir__keymap_value(&st->map, idx);
        st->elems -= l->len;
        weir__list_free(st, l);
    }
    weir__keymap_remove(&st->map, idx);
}

size_t weir_state_size(const weir_ctx *ctx, int id)
{
    if (id < 0 || id >= ctx->keyed.nstates)
        return 0;
    return ctx->keyed.states[id].map.count;
}

size_t weir_state_elements(const weir_ctx *ctx, int id)
{
    if (id < 0 || id >= ctx->keyed.nstates)
        return 0;
    const weir__state *st = &ctx->keyed.states[id];
    return st->kind == WEIR_STATE_LIST ? (size_t)st->elems : st->map.count;
}

size_t weir_state_memory(const weir_ctx *ctx)
{
    size_t total = weir__timers_memory(&ctx->timers.event) + weir__timers_memory(&ctx->timers.processing);
    for (int i = 0; i < ctx->keyed.nstates; i++) {
        const weir__state *st = &ctx->keyed.states[i];
        total += weir__keymap_memory(&st->map);
        if (st->kind == WEIR_STATE_MAP)
            total += weir__keymap_memory(&st->heads);
        if (st->kind == WEIR_STATE_LIST) {
            for (uint32_t e = 0; e < st->map.nentries; e++) {
                if (weir__keymap_live(&st->map, e))
                    total += (size_t)((const weir__list_value *)weir__keymap_value(&st->map, e))->cap *
                             (st->size + (st->has_ttl ? sizeof(int64_t) : 0));
            }
        }
    }
    return total;
}

unsigned char *weir__list_reserve(const weir__state *st, weir__list_value *l, uint32_t n)
{
    if (n <= st->inl_cap) { /* (with a time to live: only an empty one) */
        l->cap = 0;
        return weir__list_elems(st, l);
    }
    unsigned char *d = malloc((size_t)n * st->size);
    int64_t *t = st->has_ttl ? malloc((size_t)n * sizeof *t) : NULL;
    if (!d || (st->has_ttl && !t)) {
        free(d);
        free(t);
        return NULL;
    }
    l->data = d;
    l->stamps = t;
    l->cap = n;
    return d;
}

int weir_ctx_state_error(const weir_ctx *ctx)
{
    return ctx->keyed.state_error;
}
