/* timers.c — the timer service: its in-order run, its heap and its
 * de-duplicating index (timers.h). */
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
    free(t->run);
    free(t->scratch);
    memset(t, 0, sizeof *t);
}

size_t weir__timers_memory(const weir__timers *t)
{
    return weir__keymap_memory(&t->map) +
           ((size_t)t->heap_cap + t->run_cap) * sizeof(weir__timer_slot);
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

/* ---- the heap (out-of-order timers) ---------------------------------------- */

static void sift_up(weir__timer_slot *heap, uint32_t pos)
{
    weir__timer_slot s = heap[pos];
    while (pos > 0) {
        uint32_t parent = (pos - 1) / 2;
        if (!before(&s, &heap[parent]))
            break;
        heap[pos] = heap[parent];
        pos = parent;
    }
    heap[pos] = s;
}

static void sift_down(weir__timer_slot *heap, uint32_t n, uint32_t pos)
{
    weir__timer_slot s = heap[pos];
    for (;;) {
        uint32_t l = 2 * pos + 1;
        if (l >= n)
            break;
        uint32_t c = l;
        if (l + 1 < n && before(&heap[l + 1], &heap[l]))
            c = l + 1;
        if (!before(&heap[c], &s))
            break;
        heap[pos] = heap[c];
        pos = c;
    }
    heap[pos] = s;
}

static void heap_pop(weir__timers *t)
{
    if (--t->nheap > 0) {
        t->heap[0] = t->heap[t->nheap];
        sift_down(t->heap, t->nheap, 0);
    }
}

/* ---- the run (timers registered in timestamp order) ------------------------ */

static weir__timer_slot *run_at(const weir__timers *t, uint32_t i)
{
    return &t->run[(t->run_head + i) & (t->run_cap - 1)];
}

/* Doubles the ring, its slots unwrapped to the front. */
static int run_grow(weir__timers *t)
{
    uint32_t cap = t->run_cap ? t->run_cap * 2 : 64;
    weir__timer_slot *run = malloc((size_t)cap * sizeof *run);
    if (!run)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < t->nrun; i++)
        run[i] = *run_at(t, i);
    free(t->run);
    t->run = run;
    t->run_cap = cap;
    t->run_head = 0;
    return 0;
}

static void run_pop(weir__timers *t)
{
    t->run_head = (t->run_head + 1) & (t->run_cap - 1);
    t->nrun--;
}

/* ---- stale slots ------------------------------------------------------------ */

/* A slot is stale once its timer was deleted: its entry is gone, or the
 * index was reused by a timer of another sequence. */
static bool live(const weir__timers *t, const weir__timer_slot *s)
{
    if (t->stale == 0)
        return true;
    return weir__keymap_live(&t->map, s->index) &&
           ((const timer_value *)weir__keymap_value(&t->map, s->index))->seq == s->seq;
}

/* Drops stale slots from the run's head and the heap's top, so that both
 * fronts are live timers. */
static void drop_stale_fronts(weir__timers *t)
{
    while (t->stale > 0 && t->nrun > 0 && !live(t, run_at(t, 0))) {
        run_pop(t);
        t->stale--;
    }
    while (t->stale > 0 && t->nheap > 0 && !live(t, &t->heap[0])) {
        heap_pop(t);
        t->stale--;
    }
}

/* Sweeps every stale slot out: the run keeps its order, the heap is made
 * again (Floyd's, O(n)). */
static void sweep(weir__timers *t)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < t->nrun; i++) {
        weir__timer_slot s = *run_at(t, i);
        if (live(t, &s))
            *run_at(t, m++) = s;
    }
    t->nrun = m;
    m = 0;
    for (uint32_t i = 0; i < t->nheap; i++) {
        if (live(t, &t->heap[i]))
            t->heap[m++] = t->heap[i];
    }
    t->nheap = m;
    for (uint32_t i = m / 2; i-- > 0;)
        sift_down(t->heap, m, i);
    t->stale = 0;
}

/* ---- the service ------------------------------------------------------------ */

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
    /* Room first, so that a timer is never in the map without a slot. */
    const bool in_order = t->nrun == 0 || ts >= run_at(t, t->nrun - 1)->ts;
    if (in_order && t->nrun == t->run_cap && run_grow(t) < 0)
        return WEIR_ENOMEM;
    if (!in_order && t->nheap == t->heap_cap) {
        uint32_t cap = t->heap_cap ? t->heap_cap * 2 : 64;
        weir__timer_slot *heap = realloc(t->heap, (size_t)cap * sizeof *heap);
        if (!heap)
            return WEIR_ENOMEM;
        t->heap = heap;
        t->heap_cap = cap;
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
    if (in_order) {
        /* (ts, seq) after the run's last: sequences only grow */
        *run_at(t, t->nrun++) = s;
    } else {
        t->heap[t->nheap] = s;
        sift_up(t->heap, t->nheap++);
    }
    return 0;
}

void weir__timers_delete(weir__timers *t, const void *key, uint64_t key_hash, int64_t ns, int64_t ts)
{
    uint64_t h = lookup(t, key, key_hash, ns, ts);
    uint32_t idx = weir__keymap_find(&t->map, h, t->scratch);
    if (idx == WEIR__KEYMAP_NONE)
        return;
    weir__keymap_remove(&t->map, idx);
    t->n--;
    t->stale++;
    if (t->stale > t->n + 64)
        sweep(t);
    else
        drop_stale_fronts(t);
}

/* Where the next timer is (both fronts are live). */
typedef enum front { FRONT_NONE, FRONT_RUN, FRONT_HEAP } front;

static front next_front(const weir__timers *t)
{
    if (t->nrun == 0)
        return t->nheap ? FRONT_HEAP : FRONT_NONE;
    return t->nheap && before(&t->heap[0], run_at(t, 0)) ? FRONT_HEAP : FRONT_RUN;
}

int64_t weir__timers_peek(const weir__timers *t)
{
    switch (next_front(t)) {
    case FRONT_RUN:
        return run_at(t, 0)->ts;
    case FRONT_HEAP:
        return t->heap[0].ts;
    default:
        return INT64_MAX;
    }
}

bool weir__timers_pop_due(weir__timers *t, int64_t limit, void *key_out, uint64_t *key_hash,
                          int64_t *ns, int64_t *ts)
{
    front f = next_front(t);
    if (f == FRONT_NONE)
        return false;
    const weir__timer_slot s = f == FRONT_RUN ? *run_at(t, 0) : t->heap[0];
    if (s.ts > limit)
        return false;
    if (f == FRONT_RUN)
        run_pop(t);
    else
        heap_pop(t);
    uint32_t idx = s.index;
    *ts = s.ts;
    const unsigned char *k = weir__keymap_key(&t->map, idx);
    memcpy(ns, k, 8);
    if (t->key_size)
        memcpy(key_out, k + 16, t->key_size);
    const timer_value *v = weir__keymap_value(&t->map, idx);
    *key_hash = v->key_hash;
    t->popped_generation = v->generation;
    weir__keymap_remove(&t->map, idx);
    t->n--;
    drop_stale_fronts(t);
    return true;
}
