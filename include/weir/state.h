/* weir/state.h — keyed state: values and lists per (key, namespace).
 *
 * Operators that consume a keyed stream (after weir_stream_key_by) hold state
 * per exact key: two keys with the same hash are never merged. The namespace
 * is an int64 the operator chooses (a window's start, a pane index, or 0 for
 * plain per-key state). State lives in the subtask's own hash table: no locks,
 * and an entry is removed when it is cleared.
 *
 * Declare the states in open(); use them in on_record() and on_timer(), where
 * the current key is set. All calls follow the weir_ctx thread rule (only from
 * that ctx's callbacks).
 */
#ifndef WEIR_STATE_H
#define WEIR_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/operator.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum weir_state_kind {
    WEIR_STATE_VALUE = 0, /* one fixed-size value per (key, namespace) */
    WEIR_STATE_LIST = 1,  /* a bag of fixed-size elements per (key, namespace) */
    WEIR_STATE_MAP = 2    /* fixed-size values by fixed-size map keys per (key, namespace):
                             weir_state_declare_map */
} weir_state_kind;

/* Declares a state of `size` bytes (the value, or each list element) and
 * returns its id (>= 0) in *id. Only in open(). WEIR_ENOKEY if the operator's
 * input is not keyed; WEIR_EINVAL for size 0 or above 1 MiB. */
WEIR_EXPORT int weir_state_declare(weir_ctx *ctx, weir_state_kind kind, size_t size, int *id);

/* The value of (current key, ns): a pointer to `size` bytes, valid until the
 * next state call on this ctx. If absent: NULL, or with `create` a new
 * zero-filled value. NULL with create only on out-of-memory (the ctx has
 * failed; return the error from weir_ctx_state_error()). */
WEIR_EXPORT void *weir_state_value(weir_ctx *ctx, int id, int64_t ns, bool create);

/* Says that on_record reads state `id` (a value or a list) at namespace 0
 * for most records: the runtime then fetches each record's entry ahead of
 * the record — its key extracted and hashed a few records early, the table
 * slot, the entry and a long list's last element loaded in stages — so that
 * the cache misses of a batch's lookups overlap. Results are the same with
 * or without it; only the time differs. It applies while the state holds
 * 1 MB or more (a state of many keys, larger than the cache, gains; below
 * that the lookups mostly hit and it is left off). The key's extractor
 * (weir_key_spec) then runs ahead of the record, and again for a record
 * whose delivery a full output put off: it must not count on being called
 * once a record, in order. One state per operator:
 * a later call replaces the earlier. Only in open(). WEIR_EINVAL for a map
 * state or an unknown id, WEIR_ENOKEY if the input is not keyed. */
WEIR_EXPORT int weir_state_prefetch(weir_ctx *ctx, int id);

/* Appends one element to the list of (current key, ns). */
WEIR_EXPORT int weir_state_list_add(weir_ctx *ctx, int id, int64_t ns, const void *elem);

/* The list of (current key, ns) as a contiguous array of *count elements,
 * valid until the next state call; NULL with *count 0 if absent. */
WEIR_EXPORT const void *weir_state_list_get(weir_ctx *ctx, int id, int64_t ns, size_t *count);

/* The same list, writable in place (to update elements without copying
 * the list out and back): valid until the next state call. */
WEIR_EXPORT void *weir_state_list_data(weir_ctx *ctx, int id, int64_t ns, size_t *count);

/* Replaces the list of (current key, ns) with `count` elements copied from
 * `elems` (which may point into that list itself, e.g. from list_get);
 * count 0 removes it. Reuses the list's memory when it is large enough, so
 * rewriting a small list allocates nothing. 0, or WEIR_ENOMEM (the list is
 * unchanged and the ctx has failed). */
WEIR_EXPORT int weir_state_list_set(weir_ctx *ctx, int id, int64_t ns, const void *elems,
                                    size_t count);

/* Removes the value or list of (current key, ns); nothing if absent. */
WEIR_EXPORT void weir_state_clear(weir_ctx *ctx, int id, int64_t ns);

/* How many elements this state holds in this subtask, all keys and
 * namespaces together: a list state's elements; a value's or a map's
 * entries (as weir_state_size). Kept as the state changes: O(1). */
WEIR_EXPORT size_t weir_state_elements(const weir_ctx *ctx, int id);

/* How many (key, ns) entries this state holds in this subtask (all keys). */
WEIR_EXPORT size_t weir_state_size(const weir_ctx *ctx, int id);

/* ---- map state (Flink's MapState) ----------------------------------------------
 * Per (key, namespace) a map from map keys of `key_size` bytes to values of
 * `value_size` bytes, compared and hashed as bytes (zero a struct's padding).
 * Each entry is its own table entry, found in one probe; the entries of one
 * (key, namespace) are linked, so iterating them or clearing them costs what
 * they hold, not the whole state. Snapshots, restores and rescaling by key
 * group as the other kinds. weir_state_clear removes a (key, namespace)'s
 * whole map; weir_state_size counts map entries. */

/* Declares a map state and returns its id in *id. Only in open().
 * WEIR_ENOKEY if the input is not keyed; WEIR_EINVAL for a size of 0 or
 * above 1 MiB. */
WEIR_EXPORT int weir_state_declare_map(weir_ctx *ctx, size_t key_size, size_t value_size,
                                       int *id);

/* The value of map key `mkey` in the map of (current key, ns): a pointer
 * to value_size bytes, valid until the next state call on this ctx. If
 * absent: NULL, or with `create` a new zero-filled entry (NULL with create
 * only on out of memory: the ctx has failed, weir_ctx_state_error). */
WEIR_EXPORT void *weir_state_map_get(weir_ctx *ctx, int id, int64_t ns, const void *mkey,
                                     bool create);
/* Sets mkey's value (copied). 0, or WEIR_ENOMEM (the ctx has failed). */
WEIR_EXPORT int weir_state_map_put(weir_ctx *ctx, int id, int64_t ns, const void *mkey,
                                   const void *value);
/* Removes mkey: 1 if it was there, 0 if not. */
WEIR_EXPORT int weir_state_map_remove(weir_ctx *ctx, int id, int64_t ns, const void *mkey);
WEIR_EXPORT bool weir_state_map_contains(weir_ctx *ctx, int id, int64_t ns, const void *mkey);
/* The entries in the map of (current key, ns). */
WEIR_EXPORT size_t weir_state_map_count(weir_ctx *ctx, int id, int64_t ns);

/* Iterating a map (Flink's entries()): newest entry first.
 *
 *     weir_state_map_iter it;
 *     weir_state_map_begin(ctx, id, ns, &it);
 *     const void *k; void *v;
 *     while (weir_state_map_next(&it, &k, &v)) ...
 *
 * The pointers are valid until the next state call. Removing the entry
 * just returned (weir_state_map_remove) is allowed; an entry put during the
 * iteration may or may not be seen. The current key must not change. */
typedef struct weir_state_map_iter {
    weir_ctx *ctx;
    int id;
    uint32_t next; /* the next entry's index + 1; 0: the end */
    int64_t now;   /* a time to live's time at the begin */
} weir_state_map_iter;
WEIR_EXPORT void weir_state_map_begin(weir_ctx *ctx, int id, int64_t ns, weir_state_map_iter *it);
WEIR_EXPORT bool weir_state_map_next(weir_state_map_iter *it, const void **mkey, void **value);

/* ---- reducing and aggregating state (Flink's ReducingState, AggregatingState) --
 * A value per (key, namespace) that values are folded into: weir_state_add
 * (Flink's add) folds one in, weir_state_get reads the result. Underneath
 * each is a value state of the accumulator's size, so weir_state_clear,
 * weir_state_size, weir_state_set_ttl (a time to live: add is a write, get
 * a read), snapshots, restores and rescaling are a value state's; the
 * functions are code, declared again in open() of the restored job. */

/* Folds `value` into `acc` (both `size` bytes). */
typedef void (*weir_state_reduce_fn)(void *acc, const void *value, void *arg);

/* Declares a reducing state of values of `size` bytes: the first value
 * added is the accumulator, each later one is folded in with reduce. Only
 * in open(). 0, or WEIR_EINVAL / WEIR_ENOKEY / WEIR_ESTATE with the ctx
 * failed. */
WEIR_EXPORT int weir_state_declare_reducing(weir_ctx *ctx, size_t size,
                                            weir_state_reduce_fn reduce, void *arg, int *id);

typedef struct weir_state_aggregate {
    size_t acc_size; /* 1 .. 1 MiB */
    size_t in_size;  /* the values added (informative; weir_state_add reads in_size bytes) */
    size_t out_size; /* what weir_state_get writes (result's size, or acc_size without one) */
    /* Optional: a new accumulator (zero-filled first). */
    void (*create)(void *acc, void *arg);
    /* Required: folds one value in. */
    void (*add)(void *acc, const void *value, void *arg);
    /* Optional: the result from the accumulator (NULL: the accumulator). */
    void (*result)(const void *acc, void *out, void *arg);
    void *arg;
} weir_state_aggregate;

/* Declares an aggregating state (Flink's AggregateFunction): the struct is
 * copied. Only in open(). 0 or a negative code with the ctx failed. */
WEIR_EXPORT int weir_state_declare_aggregating(weir_ctx *ctx, const weir_state_aggregate *agg,
                                               int *id);

/* Folds `value` into the state of (current key, ns) (made if absent). 0,
 * or WEIR_EINVAL (not a reducing or aggregating state) / WEIR_ENOMEM with
 * the ctx failed. */
WEIR_EXPORT int weir_state_add(weir_ctx *ctx, int id, int64_t ns, const void *value);

/* Writes the state's result of (current key, ns) to `out` (reducing: the
 * accumulator, `size` bytes; aggregating: result's out_size bytes): 1, or 0
 * if absent (nothing written), or a negative code. */
WEIR_EXPORT int weir_state_get(weir_ctx *ctx, int id, int64_t ns, void *out);

/* ---- state time-to-live (Flink's StateTtlConfig) -----------------------------------
 * A value state's values, a map state's entries or a list state's elements
 * (each on its own, as Flink's TtlListState) expire `ttl_ms` after
 * they were last written (or also read): an expired one is never returned
 * (a get finds nothing, an iteration skips it, a count leaves it out), and
 * expired entries are removed as the state is used — each call on the state
 * looks at `cleanup_per_access` entries of the whole state besides its own
 * (Flink's incremental cleanup) — and left out of snapshots, so a key space
 * that never ends holds state bounded by the time to live.
 * What is a write: weir_state_value with create, weir_state_map_get with
 * create and weir_state_map_put (a pointer they return may be written);
 * weir_state_list_add (the element added), weir_state_list_set and
 * weir_state_list_data (every element: they may be written in place);
 * a read: weir_state_value and weir_state_map_get without create,
 * weir_state_map_contains, an iteration's entries, weir_state_list_get
 * (every element it returns). A list's expired elements are removed
 * before it is returned (the others keep their order), and a list left
 * empty is removed. */
typedef enum weir_ttl_time {
    WEIR_TTL_PROCESSING_TIME = 0, /* the job clock (weir_ctx_now), as Flink */
    WEIR_TTL_EVENT_TIME = 1       /* the operator's watermark (weir_ctx_watermark) */
} weir_ttl_time;

typedef enum weir_ttl_update {
    WEIR_TTL_ON_CREATE_AND_WRITE = 0, /* Flink's OnCreateAndWrite */
    WEIR_TTL_ON_READ_AND_WRITE = 1    /* Flink's OnReadAndWrite */
} weir_ttl_update;

typedef struct weir_state_ttl {
    int64_t ttl_ms;          /* > 0 */
    weir_ttl_time time;
    weir_ttl_update update;
    int cleanup_per_access;  /* entries looked at per call (0: 5; Flink's default) */
} weir_state_ttl;

/* Gives state `id` a time to live: in open(), after its declaration and
 * before its first use. Value, list and map states. 0, or WEIR_EINVAL /
 * WEIR_ESTATE with the ctx failed. */
WEIR_EXPORT int weir_state_set_ttl(weir_ctx *ctx, int id, const weir_state_ttl *ttl);

/* Bytes of memory this subtask's keyed state and timers use in all. */
WEIR_EXPORT size_t weir_state_memory(const weir_ctx *ctx);

/* The error after weir_state_value(create) returned NULL (WEIR_ENOMEM). */
WEIR_EXPORT int weir_ctx_state_error(const weir_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
