/* key_group.h — key groups, Flink's KeyGroupRangeAssignment: a key belongs
 * to one of max_parallelism key groups by its hash, and subtask i of p owns
 * a contiguous range of them (docs/CHECKPOINTS.md, "Key groups"). key_by
 * routes a record to the subtask that owns its key's group, and a keyed
 * snapshot tags every entry with it, so that state taken at parallelism p
 * restores at any q <= max_parallelism. One definition of each rule, used
 * by the routing (context.c) and the snapshots (keyed_snapshot.c, snapshot.c)
 * alike: a second copy of the formula would let a key's records and its
 * state part ways. */
#ifndef WEIR_RUNTIME_KEY_GROUP_H
#define WEIR_RUNTIME_KEY_GROUP_H

#include <stdint.h>

#include "util.h"

/* The key group of a key's hash (weir__hash_bytes of its bytes). */
static inline uint32_t weir__key_group(uint64_t key_hash, uint32_t max_parallelism)
{
    return weir__hash_partition(key_hash, max_parallelism);
}

/* The subtask of p (1 <= p <= max_parallelism) that owns a key group. */
static inline uint32_t weir__key_group_subtask(uint32_t max_parallelism, uint32_t p,
                                               uint32_t key_group)
{
    return (uint32_t)((uint64_t)key_group * p / max_parallelism);
}

/* The subtask of p that owns a key's hash: where key_by sends its records. */
static inline uint32_t weir__key_subtask(uint64_t key_hash, uint32_t max_parallelism, uint32_t p)
{
    return weir__key_group_subtask(max_parallelism, p, weir__key_group(key_hash, max_parallelism));
}

/* The key groups [*first, *last] that subtask i of p owns. */
static inline void weir__key_group_range(uint32_t max_parallelism, uint32_t p, uint32_t i,
                                         uint32_t *first, uint32_t *last)
{
    uint64_t m = max_parallelism;
    *first = (uint32_t)(((uint64_t)i * m + p - 1) / p);
    *last = (uint32_t)((((uint64_t)i + 1) * m - 1) / p);
}

#endif
