/* test_generator.c — the synthetic generator source (weir/generator.h).
 *
 * What the header promises, checked by running real jobs: the same seed and
 * config give the same events in the same order per partition, whatever the
 * pace (FAST or PACED) and the number of workers, and a different seed gives
 * different events; each knob does what it says, measured over many events —
 * the disorder bound (nominal(seq) - timestamp in [0, disorder] for events
 * not made late), the late share and how far late events are shifted
 * (between disorder + late_ms + 1 and disorder + 2 * late_ms + 1), no event
 * before start_ms (a shift of the first slots stops there), the key
 * range and the zipf law, the rate (nominal times), count versus duration,
 * idle partitions silent exactly for the slots due in [from, to) (and for
 * ever with to = WEIR_TS_MAX); a paced run on the virtual clock emits each
 * slot no earlier than its due processing time (nominal - start) / speed; a
 * bad config is refused with a message, by weir_generator_check and by
 * weir_source_generator + weir_job_run.
 *
 * Every event is observed by a "tap" process operator chained to the source
 * (same parallelism, forward edge): subtask i of the tap sees partition i's
 * events in emission order, with the job clock at that moment.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "support/weir_testutil.h"

enum { MAXP = 8 };

/* One observed event: the element, the record's timestamp, the job clock
 * when the tap saw it, and the tap subtask that saw it. */
typedef struct seen {
    weir_gen_event e;
    int64_t ts;
    int64_t now;
    int subtask;
} seen;

/* Each tap subtask appends to its own partition's log only, on its own
 * worker thread; the test reads the logs after weir_job_run joined them. */
typedef struct part_log {
    seen *v;
    size_t n, cap;
} part_log;

typedef struct gen_log {
    part_log part[MAXP];
} gen_log;

static int tap_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    gen_log *log = weir_ctx_arg(ctx);
    int sub = weir_ctx_subtask(ctx);
    if (sub >= MAXP)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "tap: subtask %d beyond the test's limit", sub);
    part_log *p = &log->part[sub];
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        seen *v = realloc(p->v, cap * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        p->v = v;
        p->cap = cap;
    }
    seen *s = &p->v[p->n++];
    memcpy(&s->e, elem, sizeof s->e);
    s->ts = ts;
    s->now = weir_ctx_now(ctx);
    s->subtask = sub;
    return 0;
}

static const weir_operator_vtable tap_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = tap_record,
};

static void log_free(gen_log *log)
{
    for (int i = 0; i < MAXP; i++)
        free(log->part[i].v);
    memset(log, 0, sizeof *log);
}

/* Builds generator -> tap (chained) on a job with the given workers, clock
 * and diagnostics off, and runs it; fails the test unless the run succeeds.
 * The log is the caller's to free. */
static void run_gen(const weir_generator_config *cfg, int workers, weir_clock_kind clock,
                    gen_log *log)
{
    memset(log, 0, sizeof *log);
    weir_job *job = tu_job(&(weir_job_config){.workers = workers,
                                              .clock = clock,
                                              .diag.level = WEIR_DIAG_OFF});
    weir_stream *s = weir_source_generator(job, cfg);
    cr_assert_not_null(s, "weir_source_generator: %s", weir_job_error(job));
    weir_stream_process(s, &(weir_process_spec){.name = "tap", .vtable = &tap_vtable,
                                                .arg = log, .parallelism = cfg->partitions,
                                                .accounting = WEIR_ACCOUNTING_SINK});
    tu_run_ok(job);
    weir_job_destroy(job);
}

static size_t log_total(const gen_log *log)
{
    size_t n = 0;
    for (int i = 0; i < MAXP; i++)
        n += log->part[i].n;
    return n;
}

/* The same events in the same order in every partition. */
static void assert_same(const gen_log *a, const gen_log *b, const char *what)
{
    for (int p = 0; p < MAXP; p++) {
        cr_assert_eq(a->part[p].n, b->part[p].n, "%s: partition %d has %zu vs %zu events", what, p,
                     a->part[p].n, b->part[p].n);
        for (size_t i = 0; i < a->part[p].n; i++) {
            const weir_gen_event *x = &a->part[p].v[i].e, *y = &b->part[p].v[i].e;
            cr_assert(x->key == y->key && x->value == y->value && x->timestamp == y->timestamp &&
                          x->partition == y->partition && x->late == y->late && x->seq == y->seq,
                      "%s: partition %d event %zu differs (seq %lld vs %lld)", what, p, i,
                      (long long)x->seq, (long long)y->seq);
            cr_assert_eq(a->part[p].v[i].ts, b->part[p].v[i].ts);
        }
    }
}

/* A config with every knob in play. */
static weir_generator_config busy_config(uint64_t seed)
{
    weir_generator_config c = {
        .partitions = 3,
        .keys = 50,
        .skew = WEIR_GEN_ZIPF,
        .zipf_s = 1.2,
        .rate = 500,
        .start_ms = 1000,
        .disorder_ms = 40,
        .late_fraction = 0.1,
        .late_ms = 25,
        .idle = {{.partition = 1, .from_ms = 1500, .to_ms = 2200}},
        .nidle = 1,
        .count = 2000,
        .seed = seed,
    };
    return c;
}

/* ---- determinism ---------------------------------------------------------- */

Test(generator, same_seed_same_events, .timeout = 120)
{
    weir_generator_config c = busy_config(42);
    gen_log a, b;
    run_gen(&c, 2, WEIR_CLOCK_SYSTEM, &a);
    run_gen(&c, 2, WEIR_CLOCK_SYSTEM, &b);
    cr_assert_gt(log_total(&a), 5000u);
    assert_same(&a, &b, "two runs");
    log_free(&a);
    log_free(&b);
}

Test(generator, same_events_whatever_the_pace_and_workers, .timeout = 120)
{
    weir_generator_config fast = busy_config(7);
    weir_generator_config paced = fast;
    paced.pace = WEIR_GEN_PACED;
    paced.speed = 4;
    gen_log ref, other;
    run_gen(&fast, 1, WEIR_CLOCK_SYSTEM, &ref);
    run_gen(&fast, 2, WEIR_CLOCK_SYSTEM, &other);
    assert_same(&ref, &other, "FAST, 1 vs 2 workers");
    log_free(&other);
    run_gen(&paced, 1, WEIR_CLOCK_VIRTUAL, &other);
    assert_same(&ref, &other, "FAST vs PACED on the virtual clock, 1 worker");
    log_free(&other);
    run_gen(&paced, 2, WEIR_CLOCK_VIRTUAL, &other);
    assert_same(&ref, &other, "FAST vs PACED on the virtual clock, 2 workers");
    log_free(&other);
    log_free(&ref);
}

Test(generator, paced_on_the_system_clock_same_events, .timeout = 120)
{
    /* 200 slots at 1000/s: about 200 ms of real time. */
    weir_generator_config fast = busy_config(9);
    fast.count = 200;
    fast.rate = 1000;
    fast.idle[0] = (weir_gen_idle){.partition = 1, .from_ms = 1050, .to_ms = 1100};
    weir_generator_config paced = fast;
    paced.pace = WEIR_GEN_PACED;
    gen_log a, b;
    run_gen(&fast, 2, WEIR_CLOCK_SYSTEM, &a);
    run_gen(&paced, 2, WEIR_CLOCK_SYSTEM, &b);
    assert_same(&a, &b, "FAST vs PACED on the system clock");
    /* Paced for real: nothing before its due time. */
    for (int p = 0; p < 3; p++)
        for (size_t i = 0; i < b.part[p].n; i++) {
            const seen *s = &b.part[p].v[i];
            int64_t due = weir_generator_nominal(&paced, s->e.seq) - paced.start_ms;
            cr_assert_geq(s->now, due, "partition %d seq %lld at %lld ms, due at %lld", p,
                          (long long)s->e.seq, (long long)s->now, (long long)due);
        }
    log_free(&a);
    log_free(&b);
}

Test(generator, different_seeds_differ, .timeout = 120)
{
    weir_generator_config c1 = busy_config(1), c2 = busy_config(2);
    c1.idle[0].partition = c2.idle[0].partition = 0;
    c1.nidle = c2.nidle = 0;
    gen_log a, b;
    run_gen(&c1, 2, WEIR_CLOCK_SYSTEM, &a);
    run_gen(&c2, 2, WEIR_CLOCK_SYSTEM, &b);
    for (int p = 0; p < 3; p++) {
        cr_assert_eq(a.part[p].n, b.part[p].n); /* the schedule does not depend on the seed */
        size_t differ = 0;
        for (size_t i = 0; i < a.part[p].n; i++) {
            const weir_gen_event *x = &a.part[p].v[i].e, *y = &b.part[p].v[i].e;
            cr_assert_eq(x->seq, y->seq);
            differ += x->key != y->key || x->value != y->value || x->timestamp != y->timestamp;
        }
        /* Nearly every event differs in something; require most. */
        cr_assert_gt(differ, a.part[p].n * 9 / 10, "partition %d: only %zu of %zu differ", p,
                     differ, a.part[p].n);
    }
    log_free(&a);
    log_free(&b);
}

Test(generator, partitions_differ_from_each_other, .timeout = 120)
{
    weir_generator_config c = busy_config(3);
    c.nidle = 0;
    gen_log a;
    run_gen(&c, 2, WEIR_CLOCK_SYSTEM, &a);
    size_t same = 0;
    for (size_t i = 0; i < a.part[0].n; i++)
        same += a.part[0].v[i].e.key == a.part[1].v[i].e.key &&
                a.part[0].v[i].e.value == a.part[1].v[i].e.value &&
                a.part[0].v[i].e.timestamp == a.part[1].v[i].e.timestamp;
    cr_assert_lt(same, a.part[0].n / 10, "partitions 0 and 1 share %zu events", same);
    log_free(&a);
}

/* ---- what every event carries --------------------------------------------- */

Test(generator, events_carry_partition_seq_and_their_timestamp, .timeout = 120)
{
    weir_generator_config c = busy_config(11);
    c.nidle = 0;
    gen_log a;
    run_gen(&c, 2, WEIR_CLOCK_SYSTEM, &a);
    for (int p = 0; p < 3; p++) {
        cr_assert_eq(a.part[p].n, (size_t)c.count);
        for (size_t i = 0; i < a.part[p].n; i++) {
            const seen *s = &a.part[p].v[i];
            cr_assert_eq(s->e.partition, p);
            cr_assert_eq(s->e.seq, (int64_t)i, "slots are emitted in order, none skipped");
            cr_assert_eq(s->ts, s->e.timestamp, "the record's timestamp is the event's");
            cr_assert(s->e.value >= 1 && s->e.value <= 100, "value %lld", (long long)s->e.value);
            cr_assert(s->e.late == 0 || s->e.late == 1);
        }
    }
    log_free(&a);
}

Test(generator, nominal_times)
{
    weir_generator_config c = {.rate = 3, .start_ms = 500};
    cr_assert_eq(weir_generator_nominal(&c, 0), 500);
    cr_assert_eq(weir_generator_nominal(&c, 1), 833);  /* floor(1000 / 3) */
    cr_assert_eq(weir_generator_nominal(&c, 2), 1166); /* floor(2000 / 3) */
    cr_assert_eq(weir_generator_nominal(&c, 3), 1500);
    c.rate = 0.5;
    cr_assert_eq(weir_generator_nominal(&c, 4), 500 + 8000);
    c.rate = 1000;
    c.start_ms = -2000;
    cr_assert_eq(weir_generator_nominal(&c, 1999), -1);
}

/* ---- disorder and lateness ------------------------------------------------ */

Test(generator, disorder_bound_respected_and_used, .timeout = 120)
{
    const int64_t D = 250, L = 100;
    weir_generator_config c = {
        .partitions = 2, .rate = 1000, .disorder_ms = D, .late_fraction = 0.1, .late_ms = L,
        .count = 20000, .seed = 5,
    };
    gen_log a;
    run_gen(&c, 2, WEIR_CLOCK_SYSTEM, &a);
    int64_t lo = INT64_MAX, hi = INT64_MIN, late_lo = INT64_MAX, late_hi = INT64_MIN;
    size_t late = 0;
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < a.part[p].n; i++) {
            const weir_gen_event *e = &a.part[p].v[i].e;
            int64_t delay = weir_generator_nominal(&c, e->seq) - e->timestamp;
            cr_assert_geq(e->timestamp, c.start_ms, "seq %lld before the start",
                          (long long)e->seq);
            if (e->timestamp == c.start_ms)
                continue; /* the first slots: a shift stops at the start */
            if (e->late) {
                late++;
                cr_assert(delay >= D + L + 1 && delay <= D + 2 * L + 1,
                          "late seq %lld shifted by %lld, not in [%lld, %lld]", (long long)e->seq,
                          (long long)delay, (long long)(D + L + 1), (long long)(D + 2 * L + 1));
                late_lo = delay < late_lo ? delay : late_lo;
                late_hi = delay > late_hi ? delay : late_hi;
            } else {
                cr_assert(delay >= 0 && delay <= D, "seq %lld shifted by %lld, not in [0, %lld]",
                          (long long)e->seq, (long long)delay, (long long)D);
                lo = delay < lo ? delay : lo;
                hi = delay > hi ? delay : hi;
            }
        }
    /* The whole range is used: both ends occur over 36 000 events. */
    cr_assert_eq(lo, 0);
    cr_assert_eq(hi, D);
    cr_assert_eq(late_lo, D + L + 1);
    cr_assert_eq(late_hi, D + 2 * L + 1);
    cr_assert_gt(late, 0u);
    log_free(&a);
}

/* The first slots of a schedule with disorder and late events would be
 * shifted before start_ms (below 0 for the default start, a 1969 date in
 * SQL); the shift stops at the start instead, and only there. */
Test(generator, no_event_before_the_start, .timeout = 120)
{
    const int64_t starts[] = {0, -5000, 1700000000000};
    for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
        weir_generator_config c = {.partitions = 2, .rate = 100, .start_ms = starts[k],
                                   .disorder_ms = 300, .late_fraction = 0.5, .late_ms = 200,
                                   .count = 400, .seed = 9};
        gen_log a;
        run_gen(&c, 1, WEIR_CLOCK_VIRTUAL, &a);
        size_t at_start = 0;
        for (int p = 0; p < 2; p++)
            for (size_t i = 0; i < a.part[p].n; i++) {
                const seen *s = &a.part[p].v[i];
                cr_assert_geq(s->e.timestamp, c.start_ms,
                              "start %lld: partition %d seq %lld stamped %lld, before the start",
                              (long long)c.start_ms, p, (long long)s->e.seq,
                              (long long)s->e.timestamp);
                cr_assert_eq(s->ts, s->e.timestamp);
                if (s->e.timestamp == c.start_ms) {
                    at_start++;
                    /* Only where the shift would have crossed the start. */
                    cr_assert_lt(weir_generator_nominal(&c, s->e.seq) - c.start_ms,
                                 c.disorder_ms + 2 * c.late_ms + 1);
                }
            }
        cr_assert_gt(at_start, 0u, "the first slots reach the start");
        cr_assert_eq(log_total(&a), 800u);
        log_free(&a);
    }
}

Test(generator, no_disorder_means_nominal_timestamps, .timeout = 120)
{
    weir_generator_config c = {.partitions = 2, .rate = 7, .start_ms = 100, .count = 500,
                               .seed = 1};
    gen_log a;
    run_gen(&c, 1, WEIR_CLOCK_SYSTEM, &a);
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < a.part[p].n; i++) {
            const weir_gen_event *e = &a.part[p].v[i].e;
            cr_assert_eq(e->timestamp, 100 + (int64_t)floor((double)e->seq * 1000.0 / 7));
            cr_assert_eq(e->late, 0);
        }
    log_free(&a);
}

static size_t count_late(double fraction, int64_t n)
{
    weir_generator_config c = {.partitions = 1, .rate = 10000, .disorder_ms = 10,
                               .late_fraction = fraction, .late_ms = 50, .count = n, .seed = 77};
    gen_log a;
    run_gen(&c, 1, WEIR_CLOCK_SYSTEM, &a);
    cr_assert_eq(a.part[0].n, (size_t)n);
    size_t late = 0;
    for (size_t i = 0; i < a.part[0].n; i++)
        late += a.part[0].v[i].e.late != 0;
    log_free(&a);
    return late;
}

Test(generator, late_fraction_within_tolerance, .timeout = 120)
{
    enum { N = 100000 };
    const double fractions[] = {0.01, 0.05, 0.3};
    for (size_t k = 0; k < sizeof fractions / sizeof fractions[0]; k++) {
        double f = fractions[k];
        size_t late = count_late(f, N);
        /* Binomial: within 5 standard deviations of N * f. */
        double sd = sqrt(N * f * (1 - f));
        cr_assert(fabs((double)late - N * f) <= 5 * sd, "late_fraction %g: %zu of %d late", f,
                  late, N);
    }
    cr_assert_eq(count_late(0, 10000), 0u);
    cr_assert_eq(count_late(1, 10000), 10000u);
}

/* ---- keys ----------------------------------------------------------------- */

static void key_histogram(weir_gen_skew skew, double s, int64_t keys, int64_t n, int64_t *hist)
{
    weir_generator_config c = {.partitions = 2, .keys = keys, .skew = skew, .zipf_s = s,
                               .rate = 10000, .count = n / 2, .seed = 123};
    gen_log a;
    run_gen(&c, 2, WEIR_CLOCK_SYSTEM, &a);
    memset(hist, 0, (size_t)keys * sizeof *hist);
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < a.part[p].n; i++) {
            int64_t k = a.part[p].v[i].e.key;
            cr_assert(k >= 0 && k < keys, "key %lld outside 0..%lld", (long long)k,
                      (long long)(keys - 1));
            hist[k]++;
        }
    log_free(&a);
}

Test(generator, uniform_keys_cover_the_range_evenly, .timeout = 120)
{
    enum { N = 100000, K = 10 };
    int64_t hist[K];
    key_histogram(WEIR_GEN_UNIFORM, 0, K, N, hist);
    double p = 1.0 / K, sd = sqrt(N * p * (1 - p));
    for (int k = 0; k < K; k++)
        cr_assert(fabs((double)hist[k] - N * p) <= 5 * sd, "key %d: %lld of %d", k,
                  (long long)hist[k], N);
}

Test(generator, default_key_range_is_100, .timeout = 120)
{
    weir_generator_config c = {.partitions = 1, .rate = 10000, .count = 20000, .seed = 8};
    gen_log a;
    run_gen(&c, 1, WEIR_CLOCK_SYSTEM, &a);
    int64_t max = -1, min = INT64_MAX;
    for (size_t i = 0; i < a.part[0].n; i++) {
        int64_t k = a.part[0].v[i].e.key;
        max = k > max ? k : max;
        min = k < min ? k : min;
    }
    cr_assert_eq(min, 0);
    cr_assert_eq(max, 99);
    log_free(&a);
}

static void check_zipf(double s, int64_t keys)
{
    enum { N = 100000 };
    int64_t *hist = calloc((size_t)keys, sizeof *hist);
    cr_assert_not_null(hist);
    key_histogram(WEIR_GEN_ZIPF, s, keys, N, hist);
    double h = 0;
    for (int64_t k = 0; k < keys; k++)
        h += 1.0 / pow((double)(k + 1), s);
    for (int64_t k = 1; k < keys; k++)
        cr_assert_gt(hist[0], hist[k], "s=%g: key 0 (%lld) not above key %lld (%lld)", s,
                     (long long)hist[0], (long long)k, (long long)hist[k]);
    for (int64_t k = 0; k < keys; k++) {
        double p = 1.0 / pow((double)(k + 1), s) / h;
        double sd = sqrt(N * p * (1 - p));
        cr_assert(fabs((double)hist[k] - N * p) <= 5 * sd + 2,
                  "s=%g key %lld: %lld of %d, expected about %.0f", s, (long long)k,
                  (long long)hist[k], N, N * p);
    }
    /* The law's shape, directly: key 0 over key 1 is about 2^s. */
    double ratio = (double)hist[0] / (double)hist[1];
    cr_assert(fabs(ratio - pow(2, s)) < 0.1 * pow(2, s), "s=%g: key0/key1 = %g, not ~%g", s,
              ratio, pow(2, s));
    free(hist);
}

Test(generator, zipf_skew_follows_the_law, .timeout = 120)
{
    check_zipf(1.0, 20);
    check_zipf(1.5, 50);
    check_zipf(0.6, 10);
}

Test(generator, zipf_default_exponent_is_1, .timeout = 120)
{
    enum { N = 100000, K = 20 };
    int64_t a[K], b[K];
    key_histogram(WEIR_GEN_ZIPF, 0, K, N, a);
    key_histogram(WEIR_GEN_ZIPF, 1.0, K, N, b);
    cr_assert_arr_eq(a, b, sizeof a);
}

/* ---- rate, count and duration --------------------------------------------- */

Test(generator, rate_sets_the_nominal_times, .timeout = 120)
{
    /* 250 events per second for 10 s of event time: 2500 per partition, one
     * every 4 ms. */
    weir_generator_config c = {.partitions = 2, .rate = 250, .start_ms = 10000,
                               .duration_ms = 10000, .seed = 4};
    gen_log a;
    run_gen(&c, 2, WEIR_CLOCK_SYSTEM, &a);
    for (int p = 0; p < 2; p++) {
        cr_assert_eq(a.part[p].n, 2500u);
        for (size_t i = 0; i < a.part[p].n; i++)
            cr_assert_eq(a.part[p].v[i].e.timestamp, 10000 + 4 * (int64_t)i);
    }
    log_free(&a);
}

Test(generator, count_and_duration_end_the_schedule, .timeout = 120)
{
    gen_log a;
    /* count: exactly that many slots per partition. */
    weir_generator_config c = {.partitions = 3, .rate = 100, .count = 123, .seed = 1};
    run_gen(&c, 2, WEIR_CLOCK_SYSTEM, &a);
    for (int p = 0; p < 3; p++) {
        cr_assert_eq(a.part[p].n, 123u);
        cr_assert_eq(a.part[p].v[122].e.seq, 122);
    }
    log_free(&a);

    /* duration: every slot due before start + duration, none at or after it.
     * Rate 3: nominal 0, 333, 666, 1000, ...; duration 1000 stops before 1000. */
    c = (weir_generator_config){.partitions = 1, .rate = 3, .duration_ms = 1000, .seed = 1};
    run_gen(&c, 1, WEIR_CLOCK_SYSTEM, &a);
    cr_assert_eq(a.part[0].n, 3u);
    log_free(&a);
    c.duration_ms = 1001;
    run_gen(&c, 1, WEIR_CLOCK_SYSTEM, &a);
    cr_assert_eq(a.part[0].n, 4u);
    log_free(&a);

    /* Both set: whichever ends first. */
    c = (weir_generator_config){.partitions = 1, .rate = 100, .count = 50, .duration_ms = 10000,
                                .seed = 1};
    run_gen(&c, 1, WEIR_CLOCK_SYSTEM, &a);
    cr_assert_eq(a.part[0].n, 50u);
    log_free(&a);
    c.count = 5000;
    c.duration_ms = 200;
    run_gen(&c, 1, WEIR_CLOCK_SYSTEM, &a);
    cr_assert_eq(a.part[0].n, 20u);
    log_free(&a);
}

/* ---- idle partitions ------------------------------------------------------ */

/* Whether partition p of the log has an event whose slot is due at t. */
static bool has_nominal(const gen_log *a, const weir_generator_config *c, int p, int64_t t)
{
    for (size_t i = 0; i < a->part[p].n; i++)
        if (weir_generator_nominal(c, a->part[p].v[i].e.seq) == t)
            return true;
    return false;
}

static void check_idle_interval(weir_gen_pace pace, weir_clock_kind clock)
{
    /* Rate 100: a slot every 10 ms, 0 .. 4990. Partition 1 is silent for
     * [1000, 2500), partition 2 for [3001, 3009) (no slot due in it: no
     * effect) and for [4000, MAX). */
    weir_generator_config c = {
        .partitions = 3, .rate = 100, .pace = pace, .speed = 10, .disorder_ms = 30,
        .late_fraction = 0.1, .late_ms = 20, .duration_ms = 5000, .seed = 31,
        .idle = {{.partition = 1, .from_ms = 1000, .to_ms = 2500},
                 {.partition = 2, .from_ms = 3001, .to_ms = 3009},
                 {.partition = 2, .from_ms = 4000, .to_ms = WEIR_TS_MAX}},
        .nidle = 3,
    };
    gen_log a;
    run_gen(&c, 2, clock, &a);
    cr_assert_eq(a.part[0].n, 500u, "partition 0 is never idle");
    cr_assert_eq(a.part[1].n, 500u - 150u, "partition 1 misses the 150 slots of [1000, 2500)");
    cr_assert_eq(a.part[2].n, 400u, "partition 2 is silent from 4000 on");
    for (size_t i = 0; i < a.part[1].n; i++) {
        int64_t t = weir_generator_nominal(&c, a.part[1].v[i].e.seq);
        cr_assert(t < 1000 || t >= 2500, "partition 1 emitted slot %lld due at %lld",
                  (long long)a.part[1].v[i].e.seq, (long long)t);
    }
    for (size_t i = 0; i < a.part[2].n; i++)
        cr_assert_lt(weir_generator_nominal(&c, a.part[2].v[i].e.seq), 4000);
    /* The edges: the slots right before and at `to` are there. */
    cr_assert(has_nominal(&a, &c, 1, 990));
    cr_assert(!has_nominal(&a, &c, 1, 1000));
    cr_assert(!has_nominal(&a, &c, 1, 2490));
    cr_assert(has_nominal(&a, &c, 1, 2500));
    cr_assert(has_nominal(&a, &c, 2, 3000));
    cr_assert(has_nominal(&a, &c, 2, 3990));
    cr_assert(!has_nominal(&a, &c, 2, 4000));

    /* A quiet span skips slots but does not shift the others' randomness: the
     * events that remain are those of the same run without idleness. */
    weir_generator_config busy = c;
    busy.nidle = 0;
    gen_log b;
    run_gen(&busy, 2, clock, &b);
    for (int p = 1; p < 3; p++) {
        size_t j = 0;
        for (size_t i = 0; i < a.part[p].n; i++) {
            const weir_gen_event *x = &a.part[p].v[i].e;
            while (j < b.part[p].n && b.part[p].v[j].e.seq < x->seq)
                j++;
            cr_assert_lt(j, b.part[p].n);
            const weir_gen_event *y = &b.part[p].v[j].e;
            cr_assert(x->seq == y->seq && x->key == y->key && x->value == y->value &&
                      x->timestamp == y->timestamp && x->late == y->late,
                      "partition %d seq %lld differs from the run without idleness", p,
                      (long long)x->seq);
        }
    }
    log_free(&a);
    log_free(&b);
}

Test(generator, idle_partition_silent_exactly_in_its_interval, .timeout = 120)
{
    check_idle_interval(WEIR_GEN_FAST, WEIR_CLOCK_SYSTEM);
}

Test(generator, idle_partition_silent_exactly_in_its_interval_paced, .timeout = 120)
{
    check_idle_interval(WEIR_GEN_PACED, WEIR_CLOCK_VIRTUAL);
}

Test(generator, idle_for_ever_from_the_start_ends_the_job, .timeout = 120)
{
    /* A partition idle for its whole schedule emits nothing and still ends,
     * fast or paced, with a count or a duration. */
    for (int paced = 0; paced < 2; paced++)
        for (int by_count = 0; by_count < 2; by_count++) {
            weir_generator_config c = {
                .partitions = 2, .rate = 1000, .seed = 2,
                .pace = paced ? WEIR_GEN_PACED : WEIR_GEN_FAST,
                .idle = {{.partition = 0, .from_ms = WEIR_TS_MIN, .to_ms = WEIR_TS_MAX}},
                .nidle = 1,
            };
            if (by_count)
                c.count = 3000;
            else
                c.duration_ms = 3000;
            gen_log a;
            run_gen(&c, 2, paced ? WEIR_CLOCK_VIRTUAL : WEIR_CLOCK_SYSTEM, &a);
            cr_assert_eq(a.part[0].n, 0u, "paced %d by_count %d", paced, by_count);
            cr_assert_eq(a.part[1].n, 3000u);
            log_free(&a);
        }
}

Test(generator, idle_intervals_may_overlap, .timeout = 120)
{
    weir_generator_config c = {
        .partitions = 1, .rate = 100, .count = 100, .seed = 3,
        .idle = {{.partition = 0, .from_ms = 100, .to_ms = 300},
                 {.partition = 0, .from_ms = 200, .to_ms = 500},
                 {.partition = 0, .from_ms = 700, .to_ms = 700}}, /* empty */
        .nidle = 3,
    };
    gen_log a;
    run_gen(&c, 1, WEIR_CLOCK_SYSTEM, &a);
    cr_assert_eq(a.part[0].n, 100u - 40u);
    cr_assert(has_nominal(&a, &c, 0, 90));
    cr_assert(!has_nominal(&a, &c, 0, 100));
    cr_assert(!has_nominal(&a, &c, 0, 490));
    cr_assert(has_nominal(&a, &c, 0, 500));
    cr_assert(has_nominal(&a, &c, 0, 700));
    log_free(&a);
}

/* ---- pacing on the virtual clock ------------------------------------------ */

static void check_paced(double rate, double speed, int64_t start, int workers)
{
    weir_generator_config c = {
        .partitions = 2, .rate = rate, .start_ms = start, .pace = WEIR_GEN_PACED, .speed = speed,
        .disorder_ms = 100, .late_fraction = 0.05, .late_ms = 50, .count = 400, .seed = 12,
        .idle = {{.partition = 1, .from_ms = start + 500, .to_ms = start + 900}},
        .nidle = 1,
    };
    gen_log a;
    run_gen(&c, workers, WEIR_CLOCK_VIRTUAL, &a);
    double s = speed > 0 ? speed : 1.0;
    int64_t last_due = 0;
    for (int p = 0; p < 2; p++) {
        cr_assert_gt(a.part[p].n, 0u);
        for (size_t i = 0; i < a.part[p].n; i++) {
            const seen *e = &a.part[p].v[i];
            int64_t due =
                (int64_t)ceil((double)(weir_generator_nominal(&c, e->e.seq) - start) / s);
            cr_assert_geq(e->now, due,
                          "rate %g speed %g: partition %d seq %lld emitted at %lld, due at %lld",
                          rate, speed, p, (long long)e->e.seq, (long long)e->now,
                          (long long)due);
            /* The virtual clock jumps to the earliest deadline, never past
             * one: the source runs at its slot's due time exactly. */
            cr_assert_eq(e->now, due, "rate %g speed %g: partition %d seq %lld at %lld, due %lld",
                         rate, speed, p, (long long)e->e.seq, (long long)e->now, (long long)due);
            if (due > last_due)
                last_due = due;
        }
    }
    /* The run took its simulated time: the last slot's due time. */
    int64_t expect_last = (int64_t)ceil((double)(weir_generator_nominal(&c, 399) - start) / s);
    cr_assert_eq(last_due, expect_last);
    log_free(&a);
}

Test(generator, paced_emits_no_earlier_than_due, .timeout = 120)
{
    check_paced(100, 0, 0, 1);     /* speed 0 = 1: a slot every 10 ms */
    check_paced(100, 1, 5000, 2);  /* the start does not delay processing time */
    check_paced(1000, 4, 0, 1);    /* 4 event ms per processing ms: ceil(i / 4) */
    check_paced(7, 0.5, 0, 2);     /* slower than real time */
}

/* ---- bad configurations --------------------------------------------------- */

static weir_generator_config good_config(void)
{
    weir_generator_config c = {.partitions = 2, .rate = 10, .count = 10, .seed = 1};
    return c;
}

/* Refused by weir_generator_check (mentioning every word in `words`), and
 * by weir_source_generator + weir_job_run with the same reason in
 * weir_job_error. */
static void expect_refused(const weir_generator_config *c, const char *word)
{
    char why[256] = "";
    int r = weir_generator_check(c, c->partitions, why, sizeof why);
    cr_assert_eq(r, WEIR_EINVAL, "weir_generator_check accepted a config with bad %s", word);
    tu_assert_contains(why, word);

    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .parallelism = 2});
    weir_stream *s = weir_source_generator(job, c);
    cr_assert_null(s);
    weir_sink_discard(s);
    r = weir_job_run(job);
    cr_assert_eq(r, WEIR_EINVAL, "weir_job_run returned %d for bad %s", r, word);
    tu_assert_contains(weir_job_error(job), "weir_source_generator", word);
    tu_assert_contains(weir_job_error(job), why);
    weir_job_destroy(job);
}

Test(generator, good_config_accepted)
{
    weir_generator_config c = good_config();
    char why[64] = "untouched";
    cr_assert_eq(weir_generator_check(&c, 2, why, sizeof why), 0);
    c.count = 0;
    c.duration_ms = 100;
    c.late_fraction = 1;
    c.idle[0] = (weir_gen_idle){.partition = 1, .from_ms = 5, .to_ms = 5};
    c.nidle = 1;
    cr_assert_eq(weir_generator_check(&c, 2, why, sizeof why), 0);
    c.late_fraction = 0;
    cr_assert_eq(weir_generator_check(&c, 2, why, sizeof why), 0);
}

Test(generator, refuses_a_rate_that_is_not_positive, .timeout = 60)
{
    weir_generator_config c = good_config();
    c.rate = 0;
    expect_refused(&c, "rate");
    c.rate = -5;
    expect_refused(&c, "rate");
    c.rate = NAN;
    expect_refused(&c, "rate");
    c.rate = INFINITY;
    expect_refused(&c, "rate");
}

Test(generator, refuses_a_late_fraction_outside_0_1, .timeout = 60)
{
    weir_generator_config c = good_config();
    c.late_fraction = -0.01;
    expect_refused(&c, "late_fraction");
    c.late_fraction = 1.5;
    expect_refused(&c, "late_fraction");
    c.late_fraction = NAN;
    expect_refused(&c, "late_fraction");
}

Test(generator, refuses_a_reversed_idle_interval, .timeout = 60)
{
    weir_generator_config c = good_config();
    c.idle[0] = (weir_gen_idle){.partition = 0, .from_ms = 500, .to_ms = 499};
    c.nidle = 1;
    expect_refused(&c, "reversed");
}

Test(generator, refuses_an_idle_partition_out_of_range, .timeout = 60)
{
    weir_generator_config c = good_config();
    c.idle[0] = (weir_gen_idle){.partition = 2, .from_ms = 0, .to_ms = 10};
    c.nidle = 1;
    expect_refused(&c, "partition 2");
    c.idle[0].partition = -1;
    expect_refused(&c, "partition -1");
}

Test(generator, refuses_a_config_without_count_or_duration, .timeout = 60)
{
    weir_generator_config c = good_config();
    c.count = 0;
    expect_refused(&c, "neither count nor duration");
}

Test(generator, refuses_other_bad_settings, .timeout = 60)
{
    weir_generator_config c = good_config();
    c.disorder_ms = -1;
    expect_refused(&c, "disorder_ms");
    c = good_config();
    c.late_ms = -1;
    expect_refused(&c, "late_ms");
    c = good_config();
    c.keys = -3;
    expect_refused(&c, "keys");
    c = good_config();
    c.skew = WEIR_GEN_ZIPF;
    c.keys = (1 << 20) + 1;
    expect_refused(&c, "zipf");
    c = good_config();
    c.count = -1;
    expect_refused(&c, "count");
    c = good_config();
    c.nidle = WEIR_GEN_MAX_IDLE + 1;
    expect_refused(&c, "nidle");

    char why[128];
    cr_assert_eq(weir_generator_check(NULL, 1, why, sizeof why), WEIR_EINVAL);
    weir_job *job = tu_job(NULL);
    cr_assert_null(weir_source_generator(job, NULL));
    cr_assert_eq(weir_job_run(job), WEIR_EINVAL);
    cr_assert_str_neq(weir_job_error(job), "");
    weir_job_destroy(job);
}

/* The schedule is computed in doubles and converted to int64_t: a config
 * whose slot numbers or times would pass 2^53 is refused up front rather
 * than overflowing a conversion while it runs (undefined behaviour). */
Test(generator, refuses_a_schedule_past_2_53, .timeout = 60)
{
    weir_generator_config c = good_config();
    c.rate = 1e-13; /* slots 1e16 ms apart: slot 1 is already past 2^53 */
    expect_refused(&c, "rate 1e-13 is too small");
    c.rate = 1e-300;
    expect_refused(&c, "too small");

    c = good_config();
    c.count = 0;
    c.duration_ms = INT64_MAX / 2;
    expect_refused(&c, "duration_ms");
    c.duration_ms = 1000000000000000; /* 1e15 ms at 10/s: 1e13 slots, fine */
    char why[256] = "";
    cr_assert_eq(weir_generator_check(&c, 2, why, sizeof why), 0, "%s", why);
    c.rate = 1e6; /* 1e18 slots */
    expect_refused(&c, "more than 2^53 slots");

    c = good_config();
    c.rate = 0.001; /* a slot every 1e6 ms */
    c.count = 100000000000; /* 1e11 slots span 1e17 ms */
    expect_refused(&c, "spans");

    c = good_config();
    c.idle[0] = (weir_gen_idle){.partition = 1, .from_ms = 0, .to_ms = INT64_MAX - 1};
    c.nidle = 1;
    expect_refused(&c, "idle interval 0 ends at");
    c.idle[0].to_ms = WEIR_TS_MAX; /* for ever: never converted */
    cr_assert_eq(weir_generator_check(&c, 2, why, sizeof why), 0, "%s", why);
    c.idle[0] = (weir_gen_idle){.partition = 1, .from_ms = WEIR_TS_MIN, .to_ms = 5000};
    cr_assert_eq(weir_generator_check(&c, 2, why, sizeof why), 0, "%s", why);
    /* Within 2^53 ms, but at a high rate past 2^53 slots. */
    c.rate = 1e9;
    c.idle[0].to_ms = 100000000000000; /* 1e14 ms: 1e20 slots */
    expect_refused(&c, "idle interval 0");

    c = good_config();
    c.start_ms = INT64_MIN + 1;
    expect_refused(&c, "start_ms");
    c = good_config();
    c.late_ms = INT64_MAX - 5;
    expect_refused(&c, "late_ms");
    c = good_config();
    c.disorder_ms = INT64_MAX;
    expect_refused(&c, "disorder_ms");

    c = good_config();
    c.pace = WEIR_GEN_PACED;
    c.speed = 1e-300;
    expect_refused(&c, "speed");
    c.pace = WEIR_GEN_FAST; /* speed is not used */
    cr_assert_eq(weir_generator_check(&c, 2, why, sizeof why), 0, "%s", why);
}

/* With partitions 0 the partition count is the job's default parallelism,
 * known only when the job runs: an idle interval naming a partition beyond
 * it is refused then, and the run fails with the reason. */
Test(generator, idle_partition_checked_against_the_jobs_parallelism, .timeout = 60)
{
    weir_generator_config c = good_config();
    c.partitions = 0;
    c.idle[0] = (weir_gen_idle){.partition = 3, .from_ms = 0, .to_ms = 10};
    c.nidle = 1;
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 3});
    weir_stream *s = weir_source_generator(job, &c);
    cr_assert_not_null(s, "partition 3 may exist: the parallelism is not known yet");
    weir_sink_discard(s);
    int r = weir_job_run(job);
    cr_assert_eq(r, WEIR_EINVAL, "run returned %d: %s", r, weir_job_error(job));
    tu_assert_contains(weir_job_error(job), "generator", "partition 3", "there are 3");
    weir_job_destroy(job);

    /* Within the default parallelism it runs. */
    c.idle[0].partition = 2;
    gen_log a;
    memset(&a, 0, sizeof a);
    job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 3,
                                    .diag.level = WEIR_DIAG_OFF});
    weir_stream_process(weir_source_generator(job, &c),
                        &(weir_process_spec){.name = "tap", .vtable = &tap_vtable, .arg = &a,
                                             .accounting = WEIR_ACCOUNTING_SINK});
    tu_run_ok(job);
    weir_job_destroy(job);
    cr_assert_eq(a.part[0].n, 10u);
    cr_assert_eq(a.part[2].n, 9u, "slot 0 (due at 0) of partition 2 is idle");
    log_free(&a);
}

/* weir_generator_key: the event's int64 key as 8 key bytes, printed k<key>. */
Test(generator, key_spec)
{
    const weir_key_spec *k = weir_generator_key();
    cr_assert_not_null(k);
    cr_assert_eq(k->key_size, 8u);
    weir_gen_event e = {.key = -42};
    int64_t key = 0;
    k->extract(&e, &key, k->arg);
    cr_assert_eq(key, -42);
    char buf[16];
    cr_assert_eq(k->format(&key, buf, sizeof buf, k->arg), 4);
    cr_assert_str_eq(buf, "k-42");
    cr_assert_eq(weir_generator_key(), k, "one static table");
}
