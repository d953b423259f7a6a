/* timers.c — the timer heap with its de-duplicating index (timers.h). */
#include "timers.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "weir/error.h"

typedef struct timer_value {
    uint64_t seq;
    uint64_t key_hash;
    uint32_t generation;
} timer_value;

int weir__timers_init(weir__timers *t, size_t key_size)
{
    memset(t, 0, sizeof *t);
    t->key_size = key_size;
    weir__keymap_init(&t->map, 16 + key_size, sizeof(timer_value));
    t->scratch = calloc(1, 16 + key_size + 1);
    return t->scratch ? 0 : WEIR_ENOMEM;
}

void weir__timers_free(weir__timers *t)
{
    weir__keymap_free(&t->map);
    free(t->heap);
    free(t->scratch);
    memset(t, 0, sizeof *t);
}

size_t weir__timers_memory(const weir__timers *t)
{
    return weir__keymap_memory(&t->map) + (size_t)t->cap * sizeof *t->heap;
}

weir__timer_view weir__timers_view(const weir__timers *t, uint32_t index)
{
    const unsigned char *k = weir__keymap_key(&t->map, index); /* [ns][ts][key] */
    const timer_value *v = weir__keymap_value(&t->map, index);
    weir__timer_view tv = {.key = k + 16, .seq = v->seq, .generation = v->generation};
    memcpy(&tv.ns, k, 8);
    memcpy(&tv.ts, k + 8, 8);
    return tv;
}

static bool before(const weir__timer_slot *a, const weir__timer_slot *b)
{
    return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static void place(weir__timers *t, uint32_t pos, const weir__timer_slot *s)
{
    t->heap[pos] = *s;
    *weir__keymap_aux(&t->map, s->index) = pos;
}

static void sift_up(weir__timers *t, uint32_t pos)
{
    weir__timer_slot s = t->heap[pos];
    while (pos > 0) {
        uint32_t parent = (pos - 1) / 2;
        if (!before(&s, &t->heap[parent]))
            break;
        place(t, pos, &t->heap[parent]);
        pos = parent;
    }
    place(t, pos, &s);
}

static void sift_down(weir__timers *t, uint32_t pos)
{
    weir__timer_slot s = t->heap[pos];
    for (;;) {
        uint32_t l = 2 * pos + 1;
        if (l >= t->n)
            break;
        uint32_t c = l;
        if (l + 1 < t->n && before(&t->heap[l + 1], &t->heap[l]))
            c = l + 1;
        if (!before(&t->heap[c], &s))
            break;
        place(t, pos, &t->heap[c]);
        pos = c;
    }
    place(t, pos, &s);
}

static uint64_t lookup(weir__timers *t, const void *key, uint64_t key_hash, int64_t ns, int64_t ts)
{
    memcpy(t->scratch, &ns, 8);
    memcpy(t->scratch + 8, &ts, 8);
    if (t->key_size)
        memcpy(t->scratch + 16, key, t->key_size);
    return weir__hash_mix(key_hash, ns, ts);
}

int weir__timers_add(weir__timers *t, const void *key, uint64_t key_hash, int64_t ns, int64_t ts)
{
    return weir__timers_add_generation(t, key, key_hash, ns, ts, 0);
}

int weir__timers_add_generation(weir__timers *t, const void *key, uint64_t key_hash, int64_t ns,
                                int64_t ts, uint32_t generation)
{
    uint64_t h = lookup(t, key, key_hash, ns, ts);
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        weir__timer_slot *heap = realloc(t->heap, (size_t)cap * sizeof *heap);
        if (!heap)
            return WEIR_ENOMEM;
        t->heap = heap;
        t->cap = cap;
    }
    bool created;
    uint32_t idx = weir__keymap_insert(&t->map, h, t->scratch, &created);
    if (idx == WEIR__KEYMAP_NONE)
        return WEIR_ENOMEM;
    if (!created)
        return 0;
    timer_value *v = weir__keymap_value(&t->map, idx);
    v->seq = t->seq++;
    v->key_hash = key_hash;
    v->generation = generation;
    t->n++;
    weir__timer_slot s = {.ts = ts, .seq = v->seq, .index = idx};
    place(t, t->n - 1, &s);
    sift_up(t, t->n - 1);
    return 0;
}

static void remove_at(weir__timers *t, uint32_t pos)
{
    uint32_t idx = t->heap[pos].index;
    t->n--;
    if (pos != t->n) {
        place(t, pos, &t->heap[t->n]);
        sift_down(t, pos);
        sift_up(t, pos);
    }
    weir__keymap_remove(&t->map, idx);
}

void weir__timers_delete(weir__timers *t, const void *key, uint64_t key_hash, int64_t ns, int64_t ts)
{
    uint64_t h = lookup(t, key, key_hash, ns, ts);
    uint32_t idx = weir__keymap_find(&t->map, h, t->scratch);
    if (idx == WEIR__KEYMAP_NONE)
        return;
    remove_at(t, *weir__keymap_aux(&t->map, idx));
}

int64_t weir__timers_peek(const weir__timers *t)
{
    return t->n ? t->heap[0].ts : INT64_MAX;
}

bool weir__timers_pop_due(weir__timers *t, int64_t limit, void *key_out, uint64_t *key_hash,
                          int64_t *ns, int64_t *ts)
{
    if (t->n == 0)
        return false;
    if (t->heap[0].ts > limit)
        return false;
    uint32_t idx = t->heap[0].index;
    int64_t when = t->heap[0].ts;
    const unsigned char *k = weir__keymap_key(&t->map, idx);
    memcpy(ns, k, 8);
    *ts = when;
    if (t->key_size)
        memcpy(key_out, k + 16, t->key_size);
    const timer_value *v = weir__keymap_value(&t->map, idx);
    *key_hash = v->key_hash;
    t->popped_generation = v->generation;
    remove_at(t, 0);
    return true;
}
