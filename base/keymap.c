/* keymap.c — open addressing by exact key bytes (design in keymap.h). */
#include "keymap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util.h"

/* Entry arrays of this size and more are mappings of their own, and from
 * 2 MB they ask for huge pages, so that a table of a million keys faults a
 * few hundred times instead of a few hundred thousand (Nexmark q18 spent a
 * seventh of its time in the page faults of its growing tables). Smaller
 * ones are aligned_alloc'd. A mapping grows into a new one, copied: mremap
 * would keep the pages where they are, but ThreadSanitizer does not see it,
 * and takes another subtask's table mapped later at the old address for a
 * race with this one. */
#define MAPPED_BYTES ((size_t)256 * 1024)
#define HUGE_BYTES ((size_t)2 * 1024 * 1024)

static size_t entries_bytes(const weir__keymap *m, uint32_t cap)
{
    return weir__round_up((size_t)cap * m->entry_size, WEIR__KEYMAP_LINE);
}

/* A mapping's length: whole pages. */
static size_t mapped_len(size_t bytes)
{
    return weir__round_up(bytes, 4096);
}

/* A new mapping of `bytes` (>= MAPPED_BYTES), or NULL; from HUGE_BYTES on
 * a huge page's boundary, where the kernel can back it with huge pages,
 * which it is asked for (a hint: without them, small pages). */
static unsigned char *map_entries(size_t bytes)
{
    size_t len = mapped_len(bytes), span = len >= HUGE_BYTES ? len + HUGE_BYTES : len;
    void *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (span == len)
        return p;
    uintptr_t at = weir__round_up((uintptr_t)p, HUGE_BYTES);
    size_t head = at - (uintptr_t)p, tail = span - head - len;
    if (head)
        munmap(p, head);
    if (tail)
        munmap((void *)(at + len), tail);
#ifdef MADV_HUGEPAGE
    (void)madvise((void *)at, len, MADV_HUGEPAGE);
#endif
    return (unsigned char *)at;
}

static void entries_free(weir__keymap *m)
{
    if (!m->entries)
        return;
    size_t bytes = entries_bytes(m, m->cap);
    if (bytes >= MAPPED_BYTES)
        munmap(m->entries, mapped_len(bytes));
    else
        free(m->entries);
}

/* entries[] with room for cap entries, the first nentries kept; false out
 * of memory (the old array kept). */
static bool entries_grow(weir__keymap *m, uint32_t cap)
{
    size_t bytes = entries_bytes(m, cap);
    /* On cache lines: an entry of a line's size (or a multiple) is read
     * with one miss. Copied, not realloc'd, to keep the alignment. */
    unsigned char *e = bytes < MAPPED_BYTES ? aligned_alloc(WEIR__KEYMAP_LINE, bytes)
                                            : map_entries(bytes);
    if (!e)
        return false;
    if (m->nentries)
        memcpy(e, m->entries, (size_t)m->nentries * m->entry_size);
    entries_free(m);
    m->entries = e;
    m->cap = cap;
    return true;
}

void weir__keymap_init(weir__keymap *m, size_t key_len, size_t value_size)
{
    memset(m, 0, sizeof *m);
    m->key_len = key_len;
    m->value_size = value_size;
    m->value_off = 16 + weir__round_up(key_len, 8);
    m->entry_size = m->value_off + weir__round_up(value_size, 8);
}

void weir__keymap_free(weir__keymap *m)
{
    free(m->slots);
    entries_free(m);
    m->slots = NULL;
    m->entries = NULL;
    m->count = m->nentries = m->cap = m->free_head = 0;
    m->mask = 0;
}

size_t weir__keymap_line_value(size_t key_len, size_t need)
{
    size_t off = 16 + weir__round_up(key_len, 8);
    return weir__round_up(off + need, WEIR__KEYMAP_LINE) - off;
}

size_t weir__keymap_memory(const weir__keymap *m)
{
    size_t slots = m->slots ? (size_t)(m->mask + 1) * sizeof(uint32_t) : 0;
    return slots + (size_t)m->cap * m->entry_size;
}

/* Key bytes are compared word by word where they allow it (the usual
 * [namespace][8-byte key] lookups are two words), else with memcmp. */
static inline bool words_equal(const unsigned char *a, const unsigned char *b, size_t words)
{
    uint64_t diff = 0;
    for (size_t i = 0; i < words * 8; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    return diff == 0;
}

static bool keys_equal(const unsigned char *a, const unsigned char *b, size_t len)
{
    /* The usual lengths with the count known to the compiler: a state's
     * [ns][int64 key] and a timer's [key][ns][ts] for an int64 key. */
    if (len == 16)
        return words_equal(a, b, 2);
    if (len == 24)
        return words_equal(a, b, 3);
    if ((len & 7) == 0 && len <= 64)
        return words_equal(a, b, len / 8);
    return memcmp(a, b, len) == 0;
}

static bool entry_matches(const weir__keymap *m, uint32_t idx, uint64_t hash, const void *key)
{
    return weir__keymap_hash(m, idx) == hash && keys_equal(weir__keymap_key(m, idx), key, m->key_len);
}

uint32_t weir__keymap_find(const weir__keymap *m, uint64_t hash, const void *key)
{
    if (!m->slots)
        return WEIR__KEYMAP_NONE;
    uint32_t i = weir__keymap_home(m, hash);
    for (;;) {
        uint32_t s = m->slots[i];
        if (s == 0)
            return WEIR__KEYMAP_NONE;
        if (entry_matches(m, s - 1, hash, key))
            return s - 1;
        i = (i + 1) & m->mask;
    }
}

/* Doubles the slot array (load factor stays at most 1/2) and reinserts. */
static bool grow_slots(weir__keymap *m)
{
    uint32_t nslots = m->slots ? (m->mask + 1) * 2 : 64;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return false;
    uint32_t mask = nslots - 1;
    for (uint32_t idx = 0; idx < m->nentries; idx++) {
        if (!weir__keymap_live(m, idx))
            continue;
        uint32_t i = (uint32_t)weir__keymap_hash(m, idx) & mask;
        while (slots[i])
            i = (i + 1) & mask;
        slots[i] = idx + 1;
    }
    free(m->slots);
    m->slots = slots;
    m->mask = mask;
    return true;
}

static uint32_t new_entry(weir__keymap *m)
{
    if (m->free_head) {
        uint32_t idx = m->free_head - 1;
        m->free_head = *weir__keymap_aux(m, idx);
        return idx;
    }
    if (m->nentries == m->cap && !entries_grow(m, m->cap ? m->cap * 2 : 32))
        return WEIR__KEYMAP_NONE;
    return m->nentries++;
}

uint32_t weir__keymap_insert(weir__keymap *m, uint64_t hash, const void *key, bool *created)
{
    uint32_t found = weir__keymap_find(m, hash, key);
    *created = found == WEIR__KEYMAP_NONE;
    return found != WEIR__KEYMAP_NONE ? found : weir__keymap_add(m, hash, key);
}

uint32_t weir__keymap_add(weir__keymap *m, uint64_t hash, const void *key)
{
    if (!m->slots || (m->count + 1) * 2 > m->mask + 1) {
        if (!grow_slots(m))
            return WEIR__KEYMAP_NONE;
    }
    uint32_t idx = new_entry(m);
    if (idx == WEIR__KEYMAP_NONE)
        return WEIR__KEYMAP_NONE;
    unsigned char *e = weir__keymap_entry(m, idx);
    memset(e, 0, m->entry_size);
    *(uint64_t *)(void *)e = hash;
    *(uint32_t *)(void *)(e + 12) = 1;
    memcpy(e + 16, key, m->key_len);
    uint32_t i = weir__keymap_home(m, hash);
    while (m->slots[i])
        i = (i + 1) & m->mask;
    m->slots[i] = idx + 1;
    m->count++;
    return idx;
}

void weir__keymap_remove(weir__keymap *m, uint32_t idx)
{
    uint64_t hash = weir__keymap_hash(m, idx);
    uint32_t i = weir__keymap_home(m, hash);
    while (m->slots[i] != idx + 1)
        i = (i + 1) & m->mask;
    /* Backward-shift deletion: a later member of the cluster moves into the
     * hole when its probe path from its home slot passes through the hole
     * (its distance from home is at least its distance from the hole). */
    uint32_t hole = i;
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        uint32_t s = m->slots[j];
        if (s == 0)
            break;
        uint32_t home = weir__keymap_home(m, weir__keymap_hash(m, s - 1));
        if (((j - home) & m->mask) >= ((j - hole) & m->mask)) {
            m->slots[hole] = s;
            hole = j;
        }
    }
    m->slots[hole] = 0;
    unsigned char *e = weir__keymap_entry(m, idx);
    *(uint32_t *)(void *)(e + 12) = 0;
    *weir__keymap_aux(m, idx) = m->free_head;
    m->free_head = idx + 1;
    m->count--;
}
