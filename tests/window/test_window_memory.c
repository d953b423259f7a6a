/* test_window_memory.c — what window state costs per key, measured with
 * weir_state_memory() (every byte of the subtask's keyed state and timers:
 * hash slots, entries, list buffers, the timer heap) inside the operator.
 *
 * The bound: one million keys, each with one open tumbling window holding a
 * 16-byte aggregate accumulator (an 8-byte key), cost at most 256 bytes per
 * key. Where it goes: the key's pane list (its entry in the state table: a
 * 16-byte entry header, 8-byte namespace, the key and a 16-byte list header,
 * 48 bytes; the list itself, one 32-byte pane of start, count and
 * accumulator), the window's one timer (56 bytes in the timer index, 4 in
 * the heap), and the hash slots of both tables (4 bytes each at a load of
 * 1/4 to 1/2): about 160 bytes at 1M keys, measured 162; the rest of the
 * bound is the headroom of tables that grow by doubling. (weir_state_memory
 * counts the list's bytes, not malloc's own overhead on them, about 16 more.)
 * After the windows fire and are cleaned up no entry is left, and the tables
 * keep their capacity for the next windows.
 *
 * The same measurement for sliding windows 60 s / 1 s (60 open panes per
 * key: about 37 bytes a pane, its 32-byte entry in the key's pane list, and
 * one or two timers per key) and sessions (one open session per key: about
 * 240 bytes, the key's session list of one 72-byte entry and its one timer)
 * is reported and held to bounds of 64 bytes per pane and 384 per session.
 */
#include <criterion/criterion.h>

#include "test_window_util.h"

#define TUMBLING_BYTES_PER_KEY 256

static void key_of(char key[8], uint32_t i)
{
    memset(key, 0, 8);
    memcpy(key, "K", 1);
    memcpy(key + 1, &i, sizeof i); /* 4 bytes of index: distinct keys, no text needed */
}

static void rec_raw(wt *t, uint32_t k, int64_t value, int64_t ts)
{
    ev e = {.value = value};
    key_of(e.key, k);
    wt_current = t;
    int r = weir_harness_record(t->h, 0, 0, &e, ts);
    cr_assert_eq(r, 0, "%s", weir_harness_last_error(t->h));
}

Test(memory, one_million_keys_tumbling, .timeout = 120)
{
    /* a quarter under the sanitizers, which are slow and double the memory */
    const uint32_t keys = WEIR_TEST_SANITIZED ? 250000 : 1000000;
    weir_window_spec s = wt_tumbling_sum(60000, 0);
    wt *t = wt_open(&s);
    t->count_only = true;
    wt_probe(t);
    size_t base = t->memory;
    for (uint32_t k = 0; k < keys; k++)
        rec_raw(t, k, 1, (int64_t)(k % 60000));
    /* a second element per key costs nothing more */
    for (uint32_t k = 0; k < keys; k += 7)
        rec_raw(t, k, 1, 59999);
    wt_probe(t);
    cr_assert_eq(t->state_size[0], keys, "one window per key");
    double per_key = (double)(t->memory - base) / keys;
    fprintf(stderr, "tumbling: %.1f bytes of state and timers per key at %u keys\n", per_key, keys);
    cr_assert_leq(per_key, TUMBLING_BYTES_PER_KEY, "%.1f bytes per key", per_key);
    size_t before_fire = t->memory;
    /* fire and clean up every window: the output is 1M results */
    wt_wm(t, 59999);
    cr_assert_eq(t->n, (size_t)keys + 1);
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 0u);
    cr_assert_leq(t->memory, before_fire, "nothing grows while cleaning up");
    /* the next windows reuse the tables: no growth */
    t->n = 0;
    for (uint32_t k = 0; k < keys; k++)
        rec_raw(t, k, 1, 60000 + (int64_t)(k % 60000));
    wt_probe(t);
    cr_assert_leq(t->memory, before_fire, "the second million windows fit in the first's tables");
    wt_close(t);
}

Test(memory, sliding_and_sessions_per_key, .timeout = 120)
{
    const uint32_t keys = WEIR_TEST_SANITIZED ? 20000 : 100000;
    /* sliding 60 s by 1 s: one element per key per second for 60 s fills
     * 60 panes per key (60 accumulators, not 3600 window copies) */
    weir_window_spec s = {.assigner = weir_window_sliding(60000, 1000, 0),
                          .aggregate = sum_aggregate, .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    wt_probe(t);
    size_t base = t->memory;
    for (int64_t sec = 0; sec < 60; sec++)
        for (uint32_t k = 0; k < keys; k++)
            rec_raw(t, k, 1, sec * 1000 + (int64_t)(k % 1000));
    wt_probe(t);
    cr_assert_eq(t->state_size[0], (size_t)keys, "one pane list per key");
    double per_key = (double)(t->memory - base) / keys;
    fprintf(stderr, "sliding 60 s / 1 s, 60 panes: %.1f bytes per key (%.1f per pane)\n", per_key,
            per_key / 60);
    cr_assert_leq(per_key / 60, 64.0, "%.1f bytes per pane", per_key / 60);
    wt_close(t);

    s = (weir_window_spec){.assigner = weir_window_session(30000), .aggregate = sum_aggregate,
                           .out_size = sizeof(res)};
    t = wt_open(&s);
    wt_probe(t);
    base = t->memory;
    for (int i = 0; i < 3; i++)
        for (uint32_t k = 0; k < keys; k++)
            rec_raw(t, k, 1, i * 1000 + (int64_t)(k % 1000));
    wt_probe(t);
    cr_assert_eq(t->state_size[0], keys, "one session list per key");
    per_key = (double)(t->memory - base) / keys;
    fprintf(stderr, "sessions, one open per key: %.1f bytes per key\n", per_key);
    cr_assert_leq(per_key, 384.0, "%.1f bytes per key", per_key);
    wt_close(t);
}

/* Cumulative windows (10 s by 1 s, 3 s of lateness): a key's period keeps
 * its panes until its last window is cleaned up, and each window that fires
 * late keeps a firing count until its own cleanup time; after the last
 * cleanup nothing of either is left (1 000 keys, 11 rows each). */
Test(memory, cumulative_windows_leave_nothing_behind, .timeout = 60)
{
    const uint32_t keys = 1000;
    weir_window_spec s = {.assigner = weir_window_cumulative(10000, 1000, 0),
                          .allowed_lateness_ms = 3000, .aggregate = sum_aggregate,
                          .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    t->count_only = true;
    for (int64_t sec = 0; sec < 10; sec++)
        for (uint32_t k = 0; k < keys; k++)
            rec_raw(t, k, 1, sec * 1000 + (int64_t)(k % 1000));
    wt_probe(t);
    cr_assert_eq(t->state_size[0], (size_t)keys, "one pane list per key");
    cr_assert_eq(t->state_size[1], 0u, "no firing counts before any late firing");
    wt_wm(t, 4999); /* [0, 1000) .. [0, 5000) fire */
    cr_assert_eq(t->n, (size_t)keys * 5 + 1);
    for (uint32_t k = 0; k < keys; k++)
        rec_raw(t, k, 1, 2500); /* late: fires [0, 3000), [0, 4000), [0, 5000) again */
    cr_assert_eq(t->n, (size_t)keys * 8 + 1);
    wt_probe(t);
    cr_assert_eq(t->state_size[1], (size_t)keys * 3, "a firing count per late-fired window");
    wt_wm(t, 9999 + 3000); /* every window fires, every cleanup time passes */
    wt_probe(t);
    cr_assert_eq(t->state_size[0], 0u, "the periods' panes are gone");
    cr_assert_eq(t->state_size[1], 0u, "the firing counts are gone");
    wt_close(t);
}
