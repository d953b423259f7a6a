/* test_timers.c — one timer service (runtime/timers.h): the min-heap of
 * (key, namespace, timestamp) timers with its de-duplicating index.
 *
 * The operator API promises that registering the same timer twice keeps one,
 * that deleting works (and deleting an absent timer is harmless), and that
 * timers fire in timestamp order with equal timestamps in registration
 * order, which is what makes a run reproducible. pop_due's limit is the
 * watermark (or the clock): nothing above it may come out. These tests check
 * each promise directly and then run a random mix of operations against a
 * reference list, where the expected pop order is the sort by (timestamp,
 * sequence of first registration).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "support/weir_testutil.h"
#include "timers.h"

static uint64_t key_hash(uint64_t key)
{
    return tu_mix(key ^ 0x1234);
}

static void add(weir__timers *t, uint64_t key, int64_t ns, int64_t ts)
{
    cr_assert_eq(weir__timers_add(t, &key, key_hash(key), ns, ts), 0);
}

/* Pops one due timer and checks it is (key, ns, ts). */
static void expect_pop(weir__timers *t, int64_t limit, uint64_t key, int64_t ns, int64_t ts)
{
    uint64_t k = 0, h = 0;
    int64_t n = 0, s = 0;
    cr_assert(weir__timers_pop_due(t, limit, &k, &h, &n, &s),
              "expected timer (key %llu, ns %lld, ts %lld) to be due at %lld",
              (unsigned long long)key, (long long)ns, (long long)ts, (long long)limit);
    cr_assert_eq(k, key, "popped key %llu, expected %llu", (unsigned long long)k,
                 (unsigned long long)key);
    cr_assert_eq(n, ns);
    cr_assert_eq(s, ts);
    cr_assert_eq(h, key_hash(key), "the key's hash did not come back with it");
}

Test(timers, empty)
{
    weir__timers t;
    cr_assert_eq(weir__timers_init(&t, 8), 0);
    cr_assert(weir__timers_empty(&t));
    cr_assert_eq(weir__timers_peek(&t), INT64_MAX);
    uint64_t k, h;
    int64_t ns, ts;
    cr_assert_not(weir__timers_pop_due(&t, INT64_MAX, &k, &h, &ns, &ts));
    weir__timers_free(&t);
}

Test(timers, same_timer_twice_is_one)
{
    weir__timers t;
    cr_assert_eq(weir__timers_init(&t, 8), 0);
    add(&t, 5, 0, 100);
    add(&t, 5, 0, 100);
    cr_assert_eq(t.n, 1u);
    /* Differing in key, namespace or timestamp makes another timer. */
    add(&t, 6, 0, 100);
    add(&t, 5, 1, 100);
    add(&t, 5, 0, 101);
    cr_assert_eq(t.n, 4u);
    expect_pop(&t, 1000, 5, 0, 100);
    expect_pop(&t, 1000, 6, 0, 100);
    expect_pop(&t, 1000, 5, 1, 100);
    expect_pop(&t, 1000, 5, 0, 101);
    cr_assert(weir__timers_empty(&t));
    weir__timers_free(&t);
}

/* A re-registration keeps the first registration's place among timers of
 * the same timestamp. */
Test(timers, duplicate_keeps_original_order)
{
    weir__timers t;
    cr_assert_eq(weir__timers_init(&t, 8), 0);
    add(&t, 1, 0, 50);
    add(&t, 2, 0, 50);
    add(&t, 1, 0, 50);
    expect_pop(&t, 50, 1, 0, 50);
    expect_pop(&t, 50, 2, 0, 50);
    weir__timers_free(&t);
}

Test(timers, delete_and_delete_absent)
{
    weir__timers t;
    cr_assert_eq(weir__timers_init(&t, 8), 0);
    add(&t, 1, 0, 30);
    add(&t, 2, 0, 10);
    add(&t, 3, 0, 20);
    uint64_t k = 2;
    weir__timers_delete(&t, &k, key_hash(2), 0, 10);
    cr_assert_eq(t.n, 2u);
    cr_assert_eq(weir__timers_peek(&t), 20);
    /* Absent: wrong ns, wrong ts, wrong key, already deleted. */
    weir__timers_delete(&t, &k, key_hash(2), 0, 10);
    k = 3;
    weir__timers_delete(&t, &k, key_hash(3), 1, 20);
    weir__timers_delete(&t, &k, key_hash(3), 0, 21);
    k = 4;
    weir__timers_delete(&t, &k, key_hash(4), 0, 20);
    cr_assert_eq(t.n, 2u);
    expect_pop(&t, 100, 3, 0, 20);
    expect_pop(&t, 100, 1, 0, 30);
    /* A deleted timer can be registered again. */
    add(&t, 2, 0, 10);
    expect_pop(&t, 100, 2, 0, 10);
    cr_assert(weir__timers_empty(&t));
    weir__timers_free(&t);
}

Test(timers, due_limit)
{
    weir__timers t;
    cr_assert_eq(weir__timers_init(&t, 8), 0);
    add(&t, 1, 0, 10);
    add(&t, 2, 0, 20);
    uint64_t k, h;
    int64_t ns, ts;
    cr_assert_not(weir__timers_pop_due(&t, 9, &k, &h, &ns, &ts), "a timer at 10 fired at 9");
    cr_assert_eq(t.n, 2u, "a refused pop removed a timer");
    /* The limit is inclusive: a timer at W fires when the watermark is W. */
    expect_pop(&t, 10, 1, 0, 10);
    cr_assert_not(weir__timers_pop_due(&t, 19, &k, &h, &ns, &ts));
    expect_pop(&t, INT64_MAX, 2, 0, 20);
    /* Extreme timestamps are ordinary timestamps. */
    add(&t, 3, 0, INT64_MAX);
    add(&t, 4, 0, INT64_MIN);
    expect_pop(&t, INT64_MIN, 4, 0, INT64_MIN);
    cr_assert_not(weir__timers_pop_due(&t, INT64_MAX - 1, &k, &h, &ns, &ts));
    expect_pop(&t, INT64_MAX, 3, 0, INT64_MAX);
    weir__timers_free(&t);
}

/* Timers of an operator that is not keyed have no key bytes. */
Test(timers, unkeyed)
{
    weir__timers t;
    cr_assert_eq(weir__timers_init(&t, 0), 0);
    cr_assert_eq(weir__timers_add(&t, NULL, 0, 0, 7), 0);
    cr_assert_eq(weir__timers_add(&t, NULL, 0, 0, 7), 0);
    cr_assert_eq(weir__timers_add(&t, NULL, 0, 0, 3), 0);
    cr_assert_eq(t.n, 2u);
    uint64_t h;
    int64_t ns, ts;
    cr_assert(weir__timers_pop_due(&t, 10, NULL, &h, &ns, &ts));
    cr_assert_eq(ts, 3);
    weir__timers_delete(&t, NULL, 0, 0, 7);
    cr_assert(weir__timers_empty(&t));
    weir__timers_free(&t);
}

/* The pop order over many timers is (timestamp, registration order): a
 * descending registration sequence with few distinct timestamps, so most
 * timers tie and the heap must break ties by sequence, not by heap position. */
Test(timers, pop_order_timestamp_then_registration)
{
    weir__timers t;
    cr_assert_eq(weir__timers_init(&t, 8), 0);
    enum { N = 3000 };
    for (uint64_t i = 0; i < N; i++)
        add(&t, i, 0, (int64_t)((N - i) % 7));
    int64_t last_ts = INT64_MIN;
    uint64_t last_key = 0;
    for (uint64_t i = 0; i < N; i++) {
        uint64_t k, h;
        int64_t ns, ts;
        cr_assert(weir__timers_pop_due(&t, INT64_MAX, &k, &h, &ns, &ts));
        cr_assert_eq(ts, (int64_t)((N - k) % 7), "key %llu came back with the wrong timestamp",
                     (unsigned long long)k);
        cr_assert_geq(ts, last_ts, "timestamp %lld after %lld", (long long)ts, (long long)last_ts);
        /* Keys were registered in increasing order, so among equal
         * timestamps they must come out increasing. */
        if (i > 0 && ts == last_ts)
            cr_assert_gt(k, last_key, "key %llu after %llu at ts %lld", (unsigned long long)k,
                         (unsigned long long)last_key, (long long)ts);
        last_ts = ts;
        last_key = k;
    }
    cr_assert(weir__timers_empty(&t));
    weir__timers_free(&t);
}

/* The reference: the live timers with the sequence of their first
 * registration; expected next pop is the minimum by (ts, seq). */
typedef struct ref_timer {
    uint64_t key;
    int64_t ns, ts;
    uint64_t seq;
} ref_timer;

Test(timers, random_operations_match_reference)
{
    enum { OPS = 60000, CAP = 20000 };
    static ref_timer ref[CAP];
    size_t nref = 0;
    uint64_t seq = 0, rng = 99;
    weir__timers t;
    cr_assert_eq(weir__timers_init(&t, 8), 0);
    for (int op = 0; op < OPS; op++) {
        rng = tu_mix(rng);
        uint64_t key = rng % 50;
        int64_t ns = (int64_t)((rng >> 8) % 3);
        int64_t ts = (int64_t)((rng >> 16) % 200);
        unsigned what = (unsigned)((rng >> 40) % 10);
        if (what < 5) { /* register */
            size_t i = 0;
            while (i < nref && !(ref[i].key == key && ref[i].ns == ns && ref[i].ts == ts))
                i++;
            if (i == nref) {
                cr_assert_lt(nref, (size_t)CAP);
                ref[nref++] = (ref_timer){key, ns, ts, seq++};
            }
            add(&t, key, ns, ts);
        } else if (what < 7) { /* delete (often absent) */
            for (size_t i = 0; i < nref; i++) {
                if (ref[i].key == key && ref[i].ns == ns && ref[i].ts == ts) {
                    ref[i] = ref[--nref];
                    break;
                }
            }
            weir__timers_delete(&t, &key, key_hash(key), ns, ts);
        } else { /* pop everything due at a limit */
            int64_t limit = (int64_t)((rng >> 24) % 200);
            for (;;) {
                size_t best = nref;
                for (size_t i = 0; i < nref; i++) {
                    if (ref[i].ts <= limit &&
                        (best == nref || ref[i].ts < ref[best].ts ||
                         (ref[i].ts == ref[best].ts && ref[i].seq < ref[best].seq)))
                        best = i;
                }
                if (best == nref) {
                    uint64_t k, h;
                    int64_t n, s;
                    cr_assert_not(weir__timers_pop_due(&t, limit, &k, &h, &n, &s),
                                  "op %d: popped (%llu,%lld,%lld) above nothing due at %lld", op,
                                  (unsigned long long)k, (long long)n, (long long)s,
                                  (long long)limit);
                    break;
                }
                expect_pop(&t, limit, ref[best].key, ref[best].ns, ref[best].ts);
                ref[best] = ref[--nref];
            }
        }
        cr_assert_eq(t.n, (uint32_t)nref, "op %d: %u timers, reference %zu", op, t.n, nref);
    }
    weir__timers_free(&t);
}
