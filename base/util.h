/* util.h — small helpers every runtime file shares: the invariant check that
 * aborts with a location, checked allocation, branch hints, cache-line
 * alignment and the key hash. Internal (weir__ prefix), never installed. */
#ifndef WEIR_BASE_UTIL_H
#define WEIR_BASE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "weir/export.h"

#define WEIR__CACHELINE 64
#define WEIR__LIKELY(x) __builtin_expect(!!(x), 1)
#define WEIR__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define WEIR__ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define WEIR__MIN(a, b) ((a) < (b) ? (a) : (b))
#define WEIR__MAX(a, b) ((a) > (b) ? (a) : (b))

/* Aborts the process after printing where a broken internal invariant was
 * found. Only for bugs in weir itself, never for bad input. */
_Noreturn void weir__abort(const char *file, int line, const char *what);

#define WEIR__ASSERT(cond)                                                       \
    do {                                                                         \
        if (WEIR__UNLIKELY(!(cond)))                                             \
            weir__abort(__FILE__, __LINE__, #cond);                              \
    } while (0)

/* strdup that accepts NULL (returns NULL). */
char *weir__strdup(const char *s);

/* What a file of st_mode `mode` is, for messages: "a regular file",
 * "a folder", "a FIFO", "a character device", ... (static text). */
const char *weir__file_kind(unsigned mode);

/* Rounds n up to a multiple of `to` (a power of two). */
static inline size_t weir__round_up(size_t n, size_t to)
{
    return (n + to - 1) & ~(to - 1);
}

/* 10^n for n in 0..19 (the powers a uint64_t holds): digit counts of
 * numbers written in decimal, DECIMAL scales. */
static inline uint64_t weir__pow10_u64(int n)
{
    static const uint64_t pow10[20] = {1ULL,
                                       10ULL,
                                       100ULL,
                                       1000ULL,
                                       10000ULL,
                                       100000ULL,
                                       1000000ULL,
                                       10000000ULL,
                                       100000000ULL,
                                       1000000000ULL,
                                       10000000000ULL,
                                       100000000000ULL,
                                       1000000000000ULL,
                                       10000000000000ULL,
                                       100000000000000ULL,
                                       1000000000000000ULL,
                                       10000000000000000ULL,
                                       100000000000000000ULL,
                                       1000000000000000000ULL,
                                       10000000000000000000ULL};
    return pow10[n];
}

static inline uint32_t weir__next_pow2(uint32_t n)
{
    uint32_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* The hash of a key's bytes (XXH3, 64 bit, from libxxhash, inlined: it runs
 * once or twice per keyed record). Keys of equal bytes hash equal; equal
 * hashes never make keys equal (every table compares the bytes). */
#define XXH_INLINE_ALL
#include <xxhash.h>
static inline uint64_t weir__hash_bytes(const void *data, size_t len)
{
    return XXH3_64bits(data, len);
}

/* A key's hash (keyed state, timers, snapshots): weir__hash_bytes, with the
 * usual 8-byte key (an int64) spelled out so that the compiler drops XXH3's
 * dispatch on length. */
static inline uint64_t weir__hash_key(const void *key, size_t size)
{
    return size == 8 ? weir__hash_bytes(key, 8) : weir__hash_bytes(key, size);
}

/* Mixes a namespace (and a second word, e.g. a timer's timestamp) into a key
 * hash, so that per (key, ns) lookups need not rehash the key bytes. */
static inline uint64_t weir__hash_mix(uint64_t h, int64_t a, int64_t b)
{
    uint64_t x = h ^ ((uint64_t)a * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)b * 0xC2B2AE3D27D4EB4Full);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/* The partition of a key hash among n (multiply-shift: uniform, no division). */
static inline uint32_t weir__hash_partition(uint64_t h, uint32_t n)
{
    return (uint32_t)(((h >> 32) * (uint64_t)n) >> 32);
}

#endif
