/* timers.h — one timer service: timers per (key, namespace, timestamp),
 * de-duplicated and deletable through a keymap index, fired in order.
 *
 * Each operator subtask has two (event time, processing time). Timers fire
 * in order of (timestamp, registration sequence), so timers with equal
 * timestamps fire in the order they were registered and a run is
 * reproducible. The order is kept in two places:
 *   - the run: a ring of the timers registered in timestamp order — each at
 *     or after the run's last — which is most of them (a window's end, the
 *     next window's timer, now + a delay): added and fired in O(1);
 *   - the heap: a min-heap of the others.
 * Each slot carries its timer's timestamp and sequence beside the entry
 * index, so ordering reads no entry (10 000 keys' timers are 640 kB of
 * entries). The next timer is the earlier of the run's head and the heap's
 * top.
 *
 * Deletion removes the entry only. Its slot stays where it is, stale, and
 * is dropped when it reaches the run's head or the heap's top: a slot is
 * live while its entry is live and has its sequence (sequences never
 * repeat; an index may be reused). Both fronts are live after every call,
 * so peeking needs no check; when stale slots outnumber the live ones
 * (by more than 64), they are swept out at once, so memory follows the
 * live timers. (A heap that tracked positions for deletion wrote the moved
 * entry's position at every level of every sift: a cache miss a level.)
 * Single-threaded (the owning subtask).
 */
#ifndef WEIR_RUNTIME_TIMERS_H
#define WEIR_RUNTIME_TIMERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keymap.h"

/* A heap slot: a timer's order and its entry. */
typedef struct weir__timer_slot {
    int64_t ts;
    uint64_t seq;
    uint32_t index;
} weir__timer_slot;

typedef struct weir__timers {
    weir__keymap map;   /* key: [ns 8][ts 8][key key_size]; value: seq 8, key hash 8, generation */
    weir__timer_slot *heap; /* out of order: a min-heap of nheap slots */
    uint32_t nheap, heap_cap;
    weir__timer_slot *run; /* in order: a ring of nrun slots from run_head (run_cap: 2^k) */
    uint32_t run_head, nrun, run_cap;
    uint32_t n;     /* live timers */
    uint32_t stale; /* slots of deleted timers still in the run or the heap */
    uint64_t seq;
    uint32_t popped_generation;
    size_t key_size;
    unsigned char *scratch; /* lookup key being built */
} weir__timers;

int weir__timers_init(weir__timers *t, size_t key_size);
void weir__timers_free(weir__timers *t);

/* Registers (key, ns, ts); a duplicate is kept once. 0 or WEIR_ENOMEM. */
int weir__timers_add(weir__timers *t, const void *key, uint64_t key_hash, int64_t ns, int64_t ts);
/* The same, with the timer's generation: how many firings in a row of this
 * key and namespace registered it (context.c counts them at the end of
 * input, where a timer that re-registers itself would fire forever). A
 * duplicate keeps the generation it had. */
int weir__timers_add_generation(weir__timers *t, const void *key, uint64_t key_hash, int64_t ns,
                                int64_t ts, uint32_t generation);
/* Deletes (key, ns, ts) if present. */
void weir__timers_delete(weir__timers *t, const void *key, uint64_t key_hash, int64_t ns, int64_t ts);

/* The earliest timestamp, or INT64_MAX with none (check weir__timers_empty). */
static inline bool weir__timers_empty(const weir__timers *t)
{
    return t->n == 0;
}
int64_t weir__timers_peek(const weir__timers *t);

/* Removes the earliest timer if its timestamp is <= limit, copying its key
 * into key_out (key_size bytes) and returning true with *ns, *ts set. */
bool weir__timers_pop_due(weir__timers *t, int64_t limit, void *key_out, uint64_t *key_hash,
                          int64_t *ns, int64_t *ts);
/* The generation of the timer weir__timers_pop_due removed last. */
static inline uint32_t weir__timers_popped_generation(const weir__timers *t)
{
    return t->popped_generation;
}

size_t weir__timers_memory(const weir__timers *t);

/* One registered timer, for a snapshot: the map's live entry `index`
 * (weir__keymap_live), its key (key_size bytes), namespace, timestamp,
 * registration sequence and generation. */
typedef struct weir__timer_view {
    const unsigned char *key;
    int64_t ns, ts;
    uint64_t seq;
    uint32_t generation;
} weir__timer_view;
weir__timer_view weir__timers_view(const weir__timers *t, uint32_t index);

#endif
