/* test_timers.c — one timer service (runtime/timers.h): the run and heap of
 * (key, namespace, timestamp) timers with its de-duplicating index.
 *
 * The operator API promises that registering the same timer twice keeps one,
 * that deleting works (and deleting an absent timer is harmless), and that
 * timers fire in timestamp order with equal timestamps in registration
 * order, which is what makes a run reproducible. pop_due's limit is the
 * watermark (or the clock): nothing above it may come out. These tests check
 * each promise directly and then run a random mix of operations against a
 * reference list, where the expected pop order is the sort by (timestamp,
 * sequence of first registration): with timestamps at random, and with
 * timestamps that mostly ascend (the service's in-order run beside its
 * heap). Deleted timers must not pile up in memory.
 *
 * The last tests run the same service inside a job, through the operator
 * API: event-time timers fire when the watermark reaches them, in order,
 * before the operator sees (and forwards) that watermark; a timer at or
 * below the current watermark fires at the next one; a deleted timer never
 * fires; processing-time timers fire on the virtual clock exactly at their
 * time.
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

/* A random mix of registrations, deletions and pops against the reference
 * list. `ascending`: timestamps follow a clock that moves on, most of them
 * at or after the last (the timers' in-order run), some behind it (the
 * heap), so both hold timers at once and deletions leave stale slots in
 * each. */
static void random_operations(uint64_t rng, bool ascending)
{
    enum { OPS = 60000, CAP = 20000 };
    static ref_timer ref[CAP];
    size_t nref = 0;
    uint64_t seq = 0;
    int64_t clock = 0;
    weir__timers t;
    cr_assert_eq(weir__timers_init(&t, 8), 0);
    for (int op = 0; op < OPS; op++) {
        rng = tu_mix(rng);
        uint64_t key = rng % 50;
        int64_t ns = (int64_t)((rng >> 8) % 3);
        int64_t ts = (int64_t)((rng >> 16) % 200);
        if (ascending) {
            clock += (int64_t)((rng >> 48) % 3);
            ts = clock - ((rng >> 50) % 8 == 0 ? (int64_t)((rng >> 16) % 30) : 0);
        }
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
            if (ascending)
                limit = clock - (int64_t)((rng >> 24) % 40);
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
        int64_t first = INT64_MAX;
        for (size_t i = 0; i < nref; i++)
            first = ref[i].ts < first ? ref[i].ts : first;
        cr_assert_eq(weir__timers_peek(&t), first, "op %d: peek", op);
    }
    weir__timers_free(&t);
}

Test(timers, random_operations_match_reference)
{
    random_operations(99, false);
}

Test(timers, ascending_operations_match_reference)
{
    random_operations(7, true);
    random_operations(8, true);
}

/* Deleted timers leave slots behind until they reach a front; more of
 * those than live timers are swept out, so memory follows the live timers
 * whatever is deleted — here, a session-like key that moves its timer on
 * ahead of everything, a million times, behind a first timer that never
 * fires. */
Test(timers, deleted_timers_do_not_pile_up)
{
    weir__timers t;
    cr_assert_eq(weir__timers_init(&t, 8), 0);
    add(&t, 1, 0, 0);
    size_t start = weir__timers_memory(&t);
    for (int64_t ts = 1; ts <= 1000000; ts++) {
        add(&t, 2, 0, ts);
        uint64_t key = 2;
        weir__timers_delete(&t, &key, key_hash(key), 0, ts);
        add(&t, 3, 0, 2000000 - ts); /* out of order: the heap */
        key = 3;
        weir__timers_delete(&t, &key, key_hash(key), 0, 2000000 - ts);
    }
    cr_assert_eq(t.n, 1u);
    cr_assert_leq(weir__timers_memory(&t), start + 2 * 64 * sizeof(weir__timer_slot) + 4096,
                  "%zu bytes for one timer (%zu at the start)", weir__timers_memory(&t), start);
    expect_pop(&t, 0, 1, 0, 0);
    cr_assert(weir__timers_empty(&t));
    cr_assert_eq(weir__timers_peek(&t), INT64_MAX);
    weir__timers_free(&t);
}

/* ---- timers in a job ------------------------------------------------------ */

/* A source of records and watermarks, from a script. */
typedef struct step {
    int kind; /* 0: record (value, ts = value), 1: watermark, 2: wait until */
    int64_t value;
} step;

typedef struct script {
    const step *steps;
    int n;
} script;

static int script_open(weir_ctx *ctx)
{
    weir_ctx_set_state(ctx, calloc(1, sizeof(int)));
    return weir_ctx_state(ctx) ? 0 : WEIR_ENOMEM;
}

/* Runs steps up to the next wait in one call: records and watermarks
 * emitted together reach the operator in their order only if the chain
 * buffer is flushed before each watermark. */
static int script_next(weir_ctx *ctx)
{
    const script *sc = weir_ctx_arg(ctx);
    int *pos = weir_ctx_state(ctx);
    while (*pos < sc->n) {
        const step *st = &sc->steps[(*pos)++];
        int r = 0;
        if (st->kind == 0) {
            uint64_t v = (uint64_t)st->value;
            r = weir_emit(ctx, &v, st->value);
        } else if (st->kind == 1) {
            r = weir_emit_watermark(ctx, st->value);
        } else {
            weir_source_wait_until(ctx, st->value);
            return WEIR_SOURCE_WAIT;
        }
        if (r < 0)
            return r;
    }
    return WEIR_SOURCE_END;
}

static void script_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable script_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = script_open,
    .next = script_next,
    .close = script_close,
};

/* The operator under test: for a record v it registers an event-time timer
 * at v + 5 (ns 0) and, for v = 100, deletes the one at 105 again; for v >=
 * 1000 a processing-time timer at v - 1000 instead. It logs what it sees. */
enum { LOG_MAX = 64 };
typedef struct tlog {
    char kind[LOG_MAX]; /* 'r' record, 'w' watermark, 'e' event timer, 'p' proc timer */
    int64_t value[LOG_MAX];
    int64_t now[LOG_MAX];
    int n;
} tlog;

static void tlog_add(weir_ctx *ctx, char kind, int64_t value)
{
    tlog *l = weir_ctx_arg(ctx);
    if (l->n < LOG_MAX) {
        l->kind[l->n] = kind;
        l->value[l->n] = value;
        l->now[l->n] = weir_ctx_now(ctx);
        l->n++;
    }
}

static int op_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)ts;
    uint64_t v;
    memcpy(&v, elem, 8);
    tlog_add(ctx, 'r', (int64_t)v);
    int r;
    if (v >= 1000)
        return weir_timer_register(ctx, WEIR_PROCESSING_TIME, 0, (int64_t)v - 1000);
    r = weir_timer_register(ctx, WEIR_EVENT_TIME, 0, (int64_t)v + 5);
    if (r == 0 && v == 100)
        r = weir_timer_delete(ctx, WEIR_EVENT_TIME, 0, 105);
    /* Deleting a timer that does not exist is not an error. */
    if (r == 0 && v == 100)
        r = weir_timer_delete(ctx, WEIR_EVENT_TIME, 7, 105);
    return r;
}

static int op_watermark(weir_ctx *ctx, int64_t wm)
{
    tlog_add(ctx, 'w', wm);
    return weir_emit_watermark(ctx, wm);
}

static int op_timer(weir_ctx *ctx, const weir_timer *t)
{
    tu_check(t->key == NULL, "a timer of an unkeyed operator has a key");
    tu_check(t->ns == 0, "timer ns %lld", (long long)t->ns);
    tlog_add(ctx, t->domain == WEIR_EVENT_TIME ? 'e' : 'p', t->timestamp);
    return 0;
}

static const weir_operator_vtable op_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = op_record,
    .on_watermark = op_watermark,
    .on_timer = op_timer,
};

static void run_script(const step *steps, int n, tlog *log, bool disable_chaining)
{
    static script sc;
    sc = (script){steps, n};
    memset(log, 0, sizeof *log);
    weir_job *job = tu_job(&(weir_job_config){
        .workers = 1, .clock = WEIR_CLOCK_VIRTUAL, .disable_chaining = disable_chaining});
    weir_source_spec src = {.vtable = &script_vtable, .arg = &sc, .elem_size = 8};
    weir_process_spec spec = {.name = "timed", .vtable = &op_vtable, .arg = log};
    cr_assert_not_null(weir_stream_process(weir_job_add_source(job, &src), &spec));
    tu_run_ok(job);
    weir_job_destroy(job);
}

static void expect_log(const tlog *l, const char *kinds, const int64_t *values)
{
    int n = (int)strlen(kinds);
    char got[LOG_MAX + 1];
    memcpy(got, l->kind, (size_t)l->n);
    got[l->n] = '\0';
    cr_assert_str_eq(got, kinds, "event kinds \"%s\", expected \"%s\"", got, kinds);
    for (int i = 0; i < n; i++)
        cr_assert_eq(l->value[i], values[i], "event %d (%c): %lld, expected %lld", i,
                     l->kind[i], (long long)l->value[i], (long long)values[i]);
}

static void event_time_case(bool disable_chaining)
{
    static const step steps[] = {
        {0, 20},  /* timer 25 */
        {0, 10},  /* timer 15 */
        {0, 12},  /* timer 17 */
        {1, 16},  /* fires 15 only, then the watermark */
        {0, 100}, /* timer 105, deleted at once */
        {1, 30},  /* fires 17, 25 */
        {0, 3},   /* timer 8: below the watermark, fires at the next one */
        {1, 31},
        {0, 40},  /* timer 45: fires at the end of input (MAX) */
    };
    static tlog log;
    run_script(steps, sizeof steps / sizeof steps[0], &log, disable_chaining);
    static const int64_t want[] = {20, 10, 12, 15, 16, 100, 17, 25, 30, 3, 8, 31, 40, 45,
                                   WEIR_TS_MAX};
    expect_log(&log, "rrrewreewrewrew", want);
}

Test(timers_in_a_job, event_time_order_delete_and_late_registration, .timeout = 60)
{
    event_time_case(false);
}

Test(timers_in_a_job, event_time_over_a_channel, .timeout = 60)
{
    event_time_case(true);
}

/* On the virtual clock processing-time timers fire exactly at their time,
 * in order, while the source waits; the source's wait keeps the job alive
 * until 1000. */
Test(timers_in_a_job, processing_time_on_virtual_clock, .timeout = 60)
{
    static const step steps[] = {
        {0, 1300}, /* timer at 300 */
        {0, 1050}, /* timer at 50 */
        {0, 1050}, /* the same timer again: one */
        {2, 1000}, /* wait until 1000 */
    };
    static tlog log;
    run_script(steps, sizeof steps / sizeof steps[0], &log, false);
    static const int64_t want[] = {1300, 1050, 1050, 50, 300, WEIR_TS_MAX};
    expect_log(&log, "rrrppw", want);
    /* Each timer fired when the clock was at its timestamp. */
    cr_assert_eq(log.now[3], 50);
    cr_assert_eq(log.now[4], 300);
}
