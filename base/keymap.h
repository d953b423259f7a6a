/* keymap.h — the hash table under keyed state and timers: fixed-size
 * entries found by exact key bytes.
 *
 * Open addressing with linear probing over a power-of-two slot array of entry
 * indices; deletion shifts the following cluster back, so there are no
 * tombstones and a table that churns (windows created and cleaned up every
 * second) stays as fast as a fresh one. Entries live in one growable array and
 * are reused through a free list: in steady state nothing is allocated. Two
 * entries with the same hash are distinct unless their key bytes are equal.
 *
 * Entry layout: [hash 8][aux 4][live 4][key key_len][pad][value value_size].
 * The entry array starts on a cache line: a table whose entries are a whole
 * number of lines (weir__keymap_line_value) reads an entry — hash, key and
 * value — in as many misses as it has lines, one for the small ones.
 * Entry pointers are valid until the next insert (the array may move); keep
 * indices across inserts. Single-threaded: one subtask owns a table.
 */
#ifndef WEIR_BASE_KEYMAP_H
#define WEIR_BASE_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct weir__keymap {
    uint32_t *slots;     /* entry index + 1; 0 = empty */
    uint32_t mask;       /* slots - 1 */
    uint32_t count;      /* live entries */
    unsigned char *entries;
    uint32_t nentries;   /* used prefix of entries[] */
    uint32_t cap;        /* capacity of entries[] */
    uint32_t free_head;  /* index + 1 of the first free entry; 0 = none */
    size_t key_len;
    size_t value_size;
    size_t value_off;
    size_t entry_size;
} weir__keymap;

#define WEIR__KEYMAP_NONE UINT32_MAX
#define WEIR__KEYMAP_LINE 64 /* bytes of a cache line */

void weir__keymap_init(weir__keymap *m, size_t key_len, size_t value_size);
void weir__keymap_free(weir__keymap *m);

/* The entry index for (hash, key), or WEIR__KEYMAP_NONE. */
uint32_t weir__keymap_find(const weir__keymap *m, uint64_t hash, const void *key);
/* Finds or inserts; *created tells which. A new entry's value and aux are
 * zero. WEIR__KEYMAP_NONE on out-of-memory. */
uint32_t weir__keymap_insert(weir__keymap *m, uint64_t hash, const void *key, bool *created);

/* weir__keymap_insert of a key the caller knows is absent (it just looked
 * it up and did not find it): the new entry's index, without searching
 * again; WEIR__KEYMAP_NONE out of memory. */
uint32_t weir__keymap_add(weir__keymap *m, uint64_t hash, const void *key);
/* Removes the entry (its index may be reused by the next insert). */
void weir__keymap_remove(weir__keymap *m, uint32_t index);

static inline unsigned char *weir__keymap_entry(const weir__keymap *m, uint32_t index)
{
    return m->entries + (size_t)index * m->entry_size;
}
/* The slot a probe for hash starts at (the table has slots). */
static inline uint32_t weir__keymap_home(const weir__keymap *m, uint64_t hash)
{
    return (uint32_t)hash & m->mask;
}
/* For fetching ahead: the address of hash's home slot, and the entry that
 * slot holds — the key's own unless it collided — or NULL (no slots yet, or
 * an empty slot). */
static inline const uint32_t *weir__keymap_home_slot(const weir__keymap *m, uint64_t hash)
{
    return m->slots ? &m->slots[weir__keymap_home(m, hash)] : NULL;
}
static inline const unsigned char *weir__keymap_home_entry(const weir__keymap *m, uint64_t hash)
{
    const uint32_t *s = weir__keymap_home_slot(m, hash);
    return s && *s ? weir__keymap_entry(m, *s - 1) : NULL;
}
static inline uint64_t weir__keymap_hash(const weir__keymap *m, uint32_t index)
{
    return *(const uint64_t *)(const void *)weir__keymap_entry(m, index);
}
static inline uint32_t *weir__keymap_aux(const weir__keymap *m, uint32_t index)
{
    return (uint32_t *)(void *)(weir__keymap_entry(m, index) + 8);
}
static inline bool weir__keymap_live(const weir__keymap *m, uint32_t index)
{
    return *(const uint32_t *)(const void *)(weir__keymap_entry(m, index) + 12) != 0;
}
static inline unsigned char *weir__keymap_key(const weir__keymap *m, uint32_t index)
{
    return weir__keymap_entry(m, index) + 16;
}
static inline void *weir__keymap_value(const weir__keymap *m, uint32_t index)
{
    return weir__keymap_entry(m, index) + m->value_off;
}
/* The value size, at least `need`, that makes an entry with keys of key_len
 * bytes end on a cache line (the room after `need` is the caller's). */
size_t weir__keymap_line_value(size_t key_len, size_t need);
/* Bytes of memory held (slots and entries). */
size_t weir__keymap_memory(const weir__keymap *m);

#endif
