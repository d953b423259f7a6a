/* test_keymap.c — the hash table under keyed state and timers (base/keymap.h).
 *
 * Keyed state is only correct if the table finds entries by their exact key
 * bytes, and it only stays fast under window churn if deletion really shifts
 * clusters back instead of leaving tombstones. A unit test can do what a job
 * cannot: choose the hash freely. So these tests force hash collisions (equal
 * full hashes, equal low bits, clusters that wrap around the end of the slot
 * array) and compare every operation against a trivially correct reference
 * (a flat array indexed by key). After every phase they check the structural
 * invariant of linear probing without tombstones: every slot between an
 * entry's home slot and its actual slot is occupied, so a lookup can never
 * stop early at a hole left by a deletion.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "keymap.h"
#include "support/weir_testutil.h"

/* Keys are 12 bytes (not a multiple of 8, so the padding before the value is
 * exercised): a 32-bit id and 8 bytes derived from it. */
typedef struct key12 {
    uint32_t id;
    uint32_t a, b;
} key12;

static key12 make_key(uint32_t id)
{
    key12 k = {.id = id, .a = id * 2654435761u, .b = ~id};
    return k;
}

/* The no-holes invariant described at the top, plus count consistency. */
static void check_invariant(const weir__keymap *m)
{
    if (!m->slots) {
        cr_assert_eq(m->count, 0);
        return;
    }
    uint32_t nslots = m->mask + 1, occupied = 0;
    for (uint32_t i = 0; i < nslots; i++) {
        uint32_t s = m->slots[i];
        if (s == 0)
            continue;
        occupied++;
        uint32_t idx = s - 1;
        cr_assert(idx < m->nentries, "slot %u points past the entries", i);
        cr_assert(weir__keymap_live(m, idx), "slot %u points at a removed entry", i);
        uint32_t home = (uint32_t)weir__keymap_hash(m, idx) & m->mask;
        for (uint32_t j = home; j != i; j = (j + 1) & m->mask)
            cr_assert_neq(m->slots[j], 0u, "hole at %u on the probe path %u..%u", j, home, i);
    }
    cr_assert_eq(occupied, m->count, "occupied slots %u, count %u", occupied, m->count);
    /* Load factor at most 1/2 keeps probe sequences short. */
    cr_assert(m->count * 2 <= nslots);
}

Test(keymap, empty_table_finds_nothing)
{
    weir__keymap m;
    weir__keymap_init(&m, sizeof(key12), 8);
    key12 k = make_key(1);
    cr_assert_eq(weir__keymap_find(&m, 123, &k), WEIR__KEYMAP_NONE);
    cr_assert_eq(weir__keymap_memory(&m), 0);
    weir__keymap_free(&m);
}

Test(keymap, insert_find_value_and_duplicates)
{
    weir__keymap m;
    weir__keymap_init(&m, sizeof(key12), sizeof(uint64_t));
    key12 k = make_key(7);
    bool created = false;
    uint32_t idx = weir__keymap_insert(&m, 0xabcdef, &k, &created);
    cr_assert_neq(idx, WEIR__KEYMAP_NONE);
    cr_assert(created);
    /* A new value and aux word are zero. */
    uint64_t zero = 0;
    cr_assert_eq(memcmp(weir__keymap_value(&m, idx), &zero, 8), 0);
    cr_assert_eq(*weir__keymap_aux(&m, idx), 0u);
    cr_assert_eq(weir__keymap_hash(&m, idx), 0xabcdefu);
    cr_assert_eq(memcmp(weir__keymap_key(&m, idx), &k, sizeof k), 0);
    uint64_t v = 42;
    memcpy(weir__keymap_value(&m, idx), &v, 8);

    /* Inserting the same key again finds the same entry, value intact. */
    uint32_t again = weir__keymap_insert(&m, 0xabcdef, &k, &created);
    cr_assert_not(created);
    cr_assert_eq(again, idx);
    cr_assert_eq(m.count, 1u);
    memcpy(&v, weir__keymap_value(&m, idx), 8);
    cr_assert_eq(v, 42u);
    cr_assert_eq(weir__keymap_find(&m, 0xabcdef, &k), idx);
    /* The same key bytes under a different hash are a different lookup. */
    cr_assert_eq(weir__keymap_find(&m, 0xabcdee, &k), WEIR__KEYMAP_NONE);
    cr_assert_gt(weir__keymap_memory(&m), 0);
    weir__keymap_free(&m);
}

/* Two keys with the same full 64-bit hash are two entries: the hash picks a
 * bucket, the bytes decide equality. */
Test(keymap, equal_hash_different_keys_are_distinct)
{
    weir__keymap m;
    weir__keymap_init(&m, sizeof(key12), sizeof(uint64_t));
    enum { N = 200 };
    uint32_t idx[N];
    for (uint32_t i = 0; i < N; i++) {
        key12 k = make_key(i);
        bool created;
        idx[i] = weir__keymap_insert(&m, 0x5555, &k, &created);
        cr_assert(created, "key %u merged with an earlier key of the same hash", i);
        uint64_t v = 1000 + i;
        memcpy(weir__keymap_value(&m, idx[i]), &v, 8);
    }
    cr_assert_eq(m.count, (uint32_t)N);
    for (uint32_t i = 0; i < N; i++) {
        key12 k = make_key(i);
        uint32_t f = weir__keymap_find(&m, 0x5555, &k);
        cr_assert_eq(f, idx[i]);
        uint64_t v;
        memcpy(&v, weir__keymap_value(&m, f), 8);
        cr_assert_eq(v, 1000u + i);
    }
    /* A key that differs only in its last byte is not found. */
    key12 k = make_key(3);
    k.b ^= 0x01000000u;
    cr_assert_eq(weir__keymap_find(&m, 0x5555, &k), WEIR__KEYMAP_NONE);
    check_invariant(&m);
    /* Remove every other one; the rest are still found. */
    for (uint32_t i = 0; i < N; i += 2) {
        key12 kk = make_key(i);
        weir__keymap_remove(&m, weir__keymap_find(&m, 0x5555, &kk));
        check_invariant(&m);
    }
    for (uint32_t i = 0; i < N; i++) {
        key12 kk = make_key(i);
        uint32_t f = weir__keymap_find(&m, 0x5555, &kk);
        if (i % 2 == 0)
            cr_assert_eq(f, WEIR__KEYMAP_NONE, "removed key %u still found", i);
        else
            cr_assert_eq(f, idx[i]);
    }
    weir__keymap_free(&m);
}

/* A cluster that starts in the last slots and wraps to slot 0, then loses
 * members from its middle: backward shift must move the wrapped members
 * back across the end of the array. The table has 64 slots until it holds
 * 32 entries, so hashes are taken modulo 64 here. */
Test(keymap, backward_shift_across_the_wrap)
{
    weir__keymap m;
    weir__keymap_init(&m, sizeof(key12), 8);
    /* Homes: 62, 62, 63, 62, 0, 63, 1 -> occupies 62,63,0,1,2,3,4. */
    const uint64_t homes[] = {62, 62, 63, 62, 0, 63, 1};
    enum { N = sizeof homes / sizeof homes[0] };
    for (uint32_t i = 0; i < N; i++) {
        key12 k = make_key(i);
        bool created;
        /* High bits differ so the full hashes are distinct. */
        weir__keymap_insert(&m, homes[i] | ((uint64_t)(i + 1) << 40), &k, &created);
        cr_assert(created);
    }
    cr_assert_eq(m.mask, 63u);
    check_invariant(&m);
    /* Remove in an order that opens holes at the start, middle and wrap. */
    const uint32_t order[] = {1, 3, 0, 5, 2, 6, 4};
    for (uint32_t r = 0; r < N; r++) {
        uint32_t i = order[r];
        key12 k = make_key(i);
        uint64_t h = homes[i] | ((uint64_t)(i + 1) << 40);
        uint32_t f = weir__keymap_find(&m, h, &k);
        cr_assert_neq(f, WEIR__KEYMAP_NONE, "key %u lost before its removal", i);
        weir__keymap_remove(&m, f);
        check_invariant(&m);
        for (uint32_t q = r + 1; q < N; q++) {
            uint32_t j = order[q];
            key12 kj = make_key(j);
            cr_assert_neq(weir__keymap_find(&m, homes[j] | ((uint64_t)(j + 1) << 40), &kj),
                          WEIR__KEYMAP_NONE, "key %u lost after removing key %u", j, i);
        }
    }
    cr_assert_eq(m.count, 0u);
    for (uint32_t s = 0; s <= m.mask; s++)
        cr_assert_eq(m.slots[s], 0u, "slot %u not cleared", s);
    weir__keymap_free(&m);
}

/* Many keys with a real-looking hash, growing the table several times. */
/* 40-byte entries: 100 000 of them grow the array from aligned_alloc's
 * into a mapping of its own (256 KB), then by mremap past 2 MB, where it
 * asks for huge pages; every key and value must survive each move. */
Test(keymap, many_keys_grow_and_find)
{
    weir__keymap m;
    weir__keymap_init(&m, sizeof(key12), sizeof(uint32_t));
    enum { N = 100000 };
    for (uint32_t i = 0; i < N; i++) {
        key12 k = make_key(i);
        bool created;
        uint32_t idx = weir__keymap_insert(&m, tu_mix(i), &k, &created);
        cr_assert_neq(idx, WEIR__KEYMAP_NONE);
        cr_assert(created);
        memcpy(weir__keymap_value(&m, idx), &i, 4);
    }
    cr_assert_eq(m.count, (uint32_t)N);
    check_invariant(&m);
    for (uint32_t i = 0; i < N; i++) {
        key12 k = make_key(i);
        uint32_t idx = weir__keymap_find(&m, tu_mix(i), &k);
        cr_assert_neq(idx, WEIR__KEYMAP_NONE, "key %u lost after growth", i);
        uint32_t v;
        memcpy(&v, weir__keymap_value(&m, idx), 4);
        cr_assert_eq(v, i);
    }
    key12 absent = make_key(N + 5);
    cr_assert_eq(weir__keymap_find(&m, tu_mix(N + 5), &absent), WEIR__KEYMAP_NONE);
    weir__keymap_free(&m);
}

/* Random inserts, finds and removals against a reference, with a hash that
 * has only 16 distinct values for 4096 keys (every bucket a long collision
 * chain, clusters everywhere), and then with a good hash. The live set stays
 * bounded, so entries must be reused from the free list: the entry array may
 * not grow past the largest number ever live at once. */
static void churn(uint64_t (*hash)(uint32_t), uint32_t seed)
{
    enum { KEYS = 4096, OPS = 200000 };
    static uint64_t ref_val[KEYS];
    static bool ref_live[KEYS];
    memset(ref_live, 0, sizeof ref_live);
    weir__keymap m;
    weir__keymap_init(&m, sizeof(key12), sizeof(uint64_t));
    uint64_t rng = seed;
    uint32_t live = 0, max_live = 0;
    for (uint32_t op = 0; op < OPS; op++) {
        rng = tu_mix(rng);
        uint32_t id = (uint32_t)(rng % KEYS);
        key12 k = make_key(id);
        uint64_t h = hash(id);
        uint32_t f = weir__keymap_find(&m, h, &k);
        cr_assert_eq(f != WEIR__KEYMAP_NONE, ref_live[id], "op %u: key %u presence differs", op,
                     id);
        if (f != WEIR__KEYMAP_NONE) {
            uint64_t v;
            memcpy(&v, weir__keymap_value(&m, f), 8);
            cr_assert_eq(v, ref_val[id], "op %u: key %u value differs", op, id);
        }
        /* Bias towards insertion until about half the keys are live. */
        bool insert = ((rng >> 32) % 100) < (live < KEYS / 2 ? 60u : 40u);
        if (insert) {
            bool created;
            uint32_t idx = weir__keymap_insert(&m, h, &k, &created);
            cr_assert_neq(idx, WEIR__KEYMAP_NONE);
            cr_assert_eq(created, !ref_live[id]);
            if (created) {
                uint64_t v;
                memcpy(&v, weir__keymap_value(&m, idx), 8);
                cr_assert_eq(v, 0u, "a reused entry kept its old value");
                ref_live[id] = true;
                live++;
                if (live > max_live)
                    max_live = live;
            }
            ref_val[id] = rng;
            memcpy(weir__keymap_value(&m, idx), &rng, 8);
        } else if (f != WEIR__KEYMAP_NONE) {
            weir__keymap_remove(&m, f);
            ref_live[id] = false;
            live--;
        }
        cr_assert_eq(m.count, live);
        if (op % 20000 == 0)
            check_invariant(&m);
    }
    check_invariant(&m);
    for (uint32_t id = 0; id < KEYS; id++) {
        key12 k = make_key(id);
        uint32_t f = weir__keymap_find(&m, hash(id), &k);
        cr_assert_eq(f != WEIR__KEYMAP_NONE, ref_live[id]);
    }
    cr_assert_leq(m.nentries, max_live, "entries %u grew past the peak live count %u",
                  m.nentries, max_live);
    weir__keymap_free(&m);
}

static uint64_t bad_hash(uint32_t id)
{
    return id % 16;
}

static uint64_t good_hash(uint32_t id)
{
    return tu_mix(id);
}

Test(keymap, churn_with_colliding_hashes_matches_reference)
{
    churn(bad_hash, 1);
}

Test(keymap, churn_with_good_hash_matches_reference)
{
    churn(good_hash, 2);
}

/* Freeing is idempotent in effect and leaves an empty, reusable table. */
Test(keymap, free_then_reuse)
{
    weir__keymap m;
    weir__keymap_init(&m, 4, 4);
    uint32_t key = 9;
    bool created;
    weir__keymap_insert(&m, 9, &key, &created);
    weir__keymap_free(&m);
    cr_assert_eq(m.count, 0u);
    cr_assert_eq(weir__keymap_find(&m, 9, &key), WEIR__KEYMAP_NONE);
    uint32_t idx = weir__keymap_insert(&m, 9, &key, &created);
    cr_assert(created);
    cr_assert_eq(weir__keymap_find(&m, 9, &key), idx);
    weir__keymap_free(&m);
}

/* Entries on cache lines: the entry array starts on a line through every
 * growth, and weir__keymap_line_value sizes a value so that its entry ends
 * on one (a [ns 8][key 8] entry of 16 value bytes takes one line, 40 bytes
 * of value two); entries keep their contents when the array is copied. */
Test(keymap, entries_start_on_a_cache_line_and_line_values_fill_it)
{
    cr_assert_eq(weir__keymap_line_value(16, 16), 32u);
    cr_assert_eq(weir__keymap_line_value(16, 32), 32u);
    cr_assert_eq(weir__keymap_line_value(16, 40), 96u);
    cr_assert_eq(weir__keymap_line_value(24, 1), 24u);
    weir__keymap m;
    weir__keymap_init(&m, 16, weir__keymap_line_value(16, 24));
    cr_assert_eq(m.entry_size, (size_t)WEIR__KEYMAP_LINE);
    for (uint64_t k = 0; k < 1000; k++) {
        uint64_t key[2] = {k, ~k};
        bool created;
        uint32_t idx = weir__keymap_insert(&m, tu_mix(k), key, &created);
        cr_assert(created);
        memcpy(weir__keymap_value(&m, idx), &k, sizeof k);
        cr_assert_eq((uintptr_t)m.entries % WEIR__KEYMAP_LINE, 0u, "after %llu inserts",
                     (unsigned long long)k + 1);
    }
    for (uint64_t k = 0; k < 1000; k++) {
        uint64_t key[2] = {k, ~k}, v;
        uint32_t idx = weir__keymap_find(&m, tu_mix(k), key);
        cr_assert_neq(idx, WEIR__KEYMAP_NONE);
        memcpy(&v, weir__keymap_value(&m, idx), sizeof v);
        cr_assert_eq(v, k);
    }
    weir__keymap_free(&m);
}
