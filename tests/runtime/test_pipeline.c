/* test_pipeline.c — whole pipelines give the answer a sequential loop gives,
 * whatever the parallelism, the number of workers and whether operators are
 * chained.
 *
 * Parallelism and chaining are execution choices; they must not change what
 * a job computes. The tests here build one multi-stage keyed pipeline
 * (source -> map -> filter -> key_by -> keyed count/sum with an end-of-input
 * timer per key -> map -> collect), compute its expected output with a plain
 * loop in the test, and compare as a multiset at parallelism 1, 2, 4 and 8,
 * with chaining on and off, and with a single worker running parallelism 8
 * (which must not deadlock: one worker can run any graph). At parallelism 1
 * with chaining on and off the comparison is of the exact sequence. With one
 * worker on the virtual clock, two runs must be identical record for record.
 * The last test pushes ten million records through a rebalance and checks
 * count and checksum.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>

#include "support/weir_testutil.h"

/* ---- the keyed pipeline --------------------------------------------------- */

enum { NKEYS = 997 };

typedef struct event {
    uint64_t user;   /* the key, after the map */
    uint64_t amount;
} event;

typedef struct total {
    uint64_t user;
    uint64_t count;
    uint64_t sum;
    uint64_t kind; /* 0: running, after each record; 1: final, from the timer */
} total;

/* map: raw value -> event */
static int to_event(const void *in, void *out, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, 8);
    event e = {.user = tu_mix(v) % NKEYS, .amount = v % 1000};
    memcpy(out, &e, sizeof e);
    return 0;
}

/* filter: drops amounts divisible by 7 */
static int not_seventh(const void *in, void *arg)
{
    (void)arg;
    event e;
    memcpy(&e, in, sizeof e);
    return e.amount % 7 != 0;
}

static void user_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8); /* event.user */
}

static int total_open(weir_ctx *ctx)
{
    int *id = malloc(sizeof *id);
    if (!id)
        return WEIR_ENOMEM;
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, 2 * sizeof(uint64_t), id);
    if (r < 0) {
        free(id);
        return r;
    }
    weir_ctx_set_state(ctx, id);
    return 0;
}

static int total_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    event e;
    memcpy(&e, elem, sizeof e);
    uint64_t *acc = weir_state_value(ctx, *(int *)weir_ctx_state(ctx), 0, true);
    if (!acc)
        return weir_ctx_state_error(ctx);
    acc[0]++;
    acc[1] += e.amount;
    total t = {e.user, acc[0], acc[1], 0};
    int r = weir_timer_register(ctx, WEIR_EVENT_TIME, 0, WEIR_TS_MAX - 1);
    return r < 0 ? r : weir_emit(ctx, &t, ts);
}

static int total_timer(weir_ctx *ctx, const weir_timer *timer)
{
    uint64_t *acc = weir_state_value(ctx, *(int *)weir_ctx_state(ctx), 0, false);
    if (!acc)
        return weir_ctx_fail(ctx, WEIR_EINTERNAL, "no state for a timer's key");
    uint64_t user;
    memcpy(&user, timer->key, 8);
    total t = {user, acc[0], acc[1], 1};
    weir_state_clear(ctx, *(int *)weir_ctx_state(ctx), 0);
    return weir_emit(ctx, &t, timer->timestamp);
}

static void total_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_operator_vtable total_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = total_open,
    .on_record = total_record,
    .on_timer = total_timer,
    .close = total_close,
};

/* map: total -> its fingerprint, so the collect holds comparable u64s */
static int fingerprint(const void *in, void *out, void *arg)
{
    (void)arg;
    total t;
    memcpy(&t, in, sizeof t);
    uint64_t f = tu_mix(t.user ^ tu_mix(t.count ^ tu_mix(t.sum ^ tu_mix(t.kind))));
    memcpy(out, &f, 8);
    return 0;
}

static uint64_t fingerprint_of(uint64_t user, uint64_t count, uint64_t sum, uint64_t kind)
{
    total t = {user, count, sum, kind};
    uint64_t f;
    fingerprint(&t, &f, NULL);
    return f;
}

/* The expected multiset, computed sequentially: running totals depend on
 * each key's record order, which is the input order restricted to the key
 * only when the source has one subtask; with p source subtasks the running
 * (count, sum) pairs vary, so with p > 1 only (count) runs and the finals
 * are compared (see compare_keyed). */
typedef struct reference {
    uint64_t *running_counts; /* fingerprints of (user, count) pairs, sorted */
    uint64_t *finals;         /* fingerprints of finals, sorted */
    uint64_t *exact;          /* p = 1: the exact output sequence */
    size_t nrunning, nfinals;
} reference;

static reference make_reference(const uint64_t *in, size_t n)
{
    reference ref = {0};
    uint64_t *count = calloc(NKEYS, sizeof *count), *sum = calloc(NKEYS, sizeof *sum);
    ref.running_counts = malloc(n * sizeof *ref.running_counts);
    ref.exact = malloc((n + NKEYS) * sizeof *ref.exact);
    size_t nexact = 0;
    for (size_t i = 0; i < n; i++) {
        event e;
        to_event(&in[i], &e, NULL);
        if (!not_seventh(&e, NULL))
            continue;
        count[e.user]++;
        sum[e.user] += e.amount;
        ref.running_counts[ref.nrunning++] = tu_mix(e.user * 1000003u + count[e.user]);
        ref.exact[nexact++] = fingerprint_of(e.user, count[e.user], sum[e.user], 0);
    }
    ref.finals = malloc(NKEYS * sizeof *ref.finals);
    for (uint64_t u = 0; u < NKEYS; u++) {
        if (count[u])
            ref.finals[ref.nfinals++] = fingerprint_of(u, count[u], sum[u], 1);
    }
    tu_sort_u64(ref.running_counts, ref.nrunning);
    tu_sort_u64(ref.finals, ref.nfinals);
    free(count);
    free(sum);
    return ref;
}

static void free_reference(reference *ref)
{
    free(ref->running_counts);
    free(ref->finals);
    free(ref->exact);
}

typedef struct result {
    total *totals; /* before fingerprinting, for the multiset checks */
    size_t n;
    uint64_t *fingerprints; /* in collect order */
} result;

/* Builds and runs the pipeline; every operator at `p`, the sink too (so the
 * last two stages are chained unless chaining is off). */
static result run_keyed(const uint64_t *in, size_t n, int p, int workers, bool disable_chaining,
                        weir_clock_kind clock)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = workers,
                                              .parallelism = p,
                                              .disable_chaining = disable_chaining,
                                              .clock = clock});
    weir_stream *s = weir_source_array(job, in, n, 8, NULL);
    s = weir_stream_map(s, sizeof(event), to_event, NULL);
    s = weir_stream_filter(s, not_seventh, NULL);
    weir_key_spec key = {.key_size = 8, .extract = user_key};
    weir_process_spec spec = {.name = "totals", .vtable = &total_vtable, .out_size = sizeof(total)};
    weir_stream *totals = weir_stream_process(weir_stream_key_by(s, &key), &spec);
    weir_collect *ct, *cf;
    weir_sink_collect(totals, &ct);
    weir_sink_collect(weir_stream_map(totals, 8, fingerprint, NULL), &cf);
    tu_run_ok(job);
    result r = {0};
    r.n = weir_collect_count(ct);
    cr_assert_eq(weir_collect_count(cf), r.n);
    r.totals = malloc((r.n ? r.n : 1) * sizeof *r.totals);
    r.fingerprints = malloc((r.n ? r.n : 1) * sizeof *r.fingerprints);
    for (size_t i = 0; i < r.n; i++) {
        memcpy(&r.totals[i], weir_collect_elem(ct, i), sizeof(total));
        memcpy(&r.fingerprints[i], weir_collect_elem(cf, i), 8);
    }
    weir_job_destroy(job);
    return r;
}

static void free_result(result *r)
{
    free(r->totals);
    free(r->fingerprints);
}

/* Compares a run with the reference as multisets: the (user, count) pairs of
 * the running totals, and the finals exactly. */
static void compare_keyed(const result *r, const reference *ref, const char *what)
{
    cr_assert_eq(r->n, ref->nrunning + ref->nfinals, "%s: %zu outputs, expected %zu", what, r->n,
                 ref->nrunning + ref->nfinals);
    uint64_t *running = malloc((r->n ? r->n : 1) * sizeof *running);
    uint64_t *finals = malloc((r->n ? r->n : 1) * sizeof *finals);
    size_t nr = 0, nf = 0;
    for (size_t i = 0; i < r->n; i++) {
        const total *t = &r->totals[i];
        cr_assert_eq(r->fingerprints[i], fingerprint_of(t->user, t->count, t->sum, t->kind),
                     "%s: the fingerprint map's output %zu does not match its input", what, i);
        if (t->kind == 0)
            running[nr++] = tu_mix(t->user * 1000003u + t->count);
        else
            finals[nf++] = r->fingerprints[i];
    }
    cr_assert_eq(nr, ref->nrunning, "%s: %zu running totals, expected %zu", what, nr,
                 ref->nrunning);
    cr_assert_eq(nf, ref->nfinals, "%s: %zu finals, expected %zu", what, nf, ref->nfinals);
    tu_sort_u64(running, nr);
    tu_sort_u64(finals, nf);
    for (size_t i = 0; i < nr; i++)
        cr_assert_eq(running[i], ref->running_counts[i], "%s: running totals differ at %zu", what,
                     i);
    for (size_t i = 0; i < nf; i++)
        cr_assert_eq(finals[i], ref->finals[i], "%s: final totals differ at %zu", what, i);
    free(running);
    free(finals);
}

static uint64_t *input(size_t n)
{
    uint64_t *in = malloc(n * sizeof *in);
    cr_assert_not_null(in);
    for (size_t i = 0; i < n; i++)
        in[i] = tu_mix(i * 31 + 7) >> 20;
    return in;
}

enum { KEYED_N = WEIR_TEST_SANITIZED ? 30000 : 200000 };

static void keyed_at(int p, int workers)
{
    uint64_t *in = input(KEYED_N);
    reference ref = make_reference(in, KEYED_N);
    char what[64];
    for (int chaining_off = 0; chaining_off < 2; chaining_off++) {
        snprintf(what, sizeof what, "p=%d workers=%d chaining %s", p, workers,
                 chaining_off ? "off" : "on");
        result r = run_keyed(in, KEYED_N, p, workers, chaining_off, WEIR_CLOCK_SYSTEM);
        compare_keyed(&r, &ref, what);
        free_result(&r);
    }
    free_reference(&ref);
    free(in);
}

Test(pipeline, keyed_parallelism_1, .timeout = 120)
{
    keyed_at(1, 2);
}

Test(pipeline, keyed_parallelism_2, .timeout = 120)
{
    keyed_at(2, 2);
}

Test(pipeline, keyed_parallelism_4, .timeout = 120)
{
    keyed_at(4, 2);
}

Test(pipeline, keyed_parallelism_8, .timeout = 120)
{
    keyed_at(8, 2);
}

/* One worker runs all 8 subtasks of every operator (a few dozen subtasks,
 * every channel between them) to completion. */
Test(pipeline, one_worker_parallelism_8, .timeout = 120)
{
    keyed_at(8, 1);
}

/* At parallelism 1 nothing is reordered: chained and unchained runs give the
 * exact sequence of the sequential loop (finals come last, at end of input,
 * in some key order: only the running totals are compared in order). */
Test(pipeline, parallelism_1_exact_order_chained_or_not, .timeout = 120)
{
    uint64_t *in = input(KEYED_N);
    reference ref = make_reference(in, KEYED_N);
    result on = run_keyed(in, KEYED_N, 1, 2, false, WEIR_CLOCK_SYSTEM);
    result off = run_keyed(in, KEYED_N, 1, 2, true, WEIR_CLOCK_SYSTEM);
    cr_assert_eq(on.n, off.n);
    cr_assert_eq(on.n, ref.nrunning + ref.nfinals);
    for (size_t i = 0; i < ref.nrunning; i++) {
        cr_assert_eq(on.fingerprints[i], ref.exact[i], "chained: output %zu differs", i);
        cr_assert_eq(off.fingerprints[i], ref.exact[i], "unchained: output %zu differs", i);
    }
    /* The finals, in the order their timers fired (registration order),
     * are the same in both runs. */
    for (size_t i = ref.nrunning; i < on.n; i++)
        cr_assert_eq(on.fingerprints[i], off.fingerprints[i], "final %zu differs", i);
    free_result(&on);
    free_result(&off);
    free_reference(&ref);
    free(in);
}

/* One worker on the virtual clock is fully reproducible, at parallelism 4
 * with every edge a channel: the same records in the same order. */
Test(pipeline, one_worker_virtual_clock_is_reproducible, .timeout = 120)
{
    uint64_t *in = input(KEYED_N);
    result a = run_keyed(in, KEYED_N, 4, 1, true, WEIR_CLOCK_VIRTUAL);
    result b = run_keyed(in, KEYED_N, 4, 1, true, WEIR_CLOCK_VIRTUAL);
    cr_assert_eq(a.n, b.n);
    for (size_t i = 0; i < a.n; i++)
        cr_assert_eq(a.fingerprints[i], b.fingerprints[i], "runs differ at output %zu", i);
    reference ref = make_reference(in, KEYED_N);
    compare_keyed(&a, &ref, "virtual clock");
    free_reference(&ref);
    free_result(&a);
    free_result(&b);
    free(in);
}

/* ---- chaining on and off, a wider graph ----------------------------------- */

/* A graph that mixes every edge kind: two sources of different parallelism,
 * a union, key_by, rebalance, broadcast and a side output. With chaining
 * off every forward edge becomes a channel too; the multisets must be
 * identical to the chained run's. */
typedef struct side_out {
    uint64_t v;
} side_out;

static int split_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    uint64_t v;
    memcpy(&v, elem, 8);
    if (v % 5 == 0)
        return weir_emit_side(ctx, 1, &v, ts);
    uint64_t w = v * 3 + 1;
    return weir_emit(ctx, &w, ts);
}

static const weir_operator_vtable split_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = split_record,
};

static int plus_one(const void *in, void *out, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, 8);
    v++;
    memcpy(out, &v, 8);
    return 0;
}

static void extract_u64(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

typedef struct wide_result {
    uint64_t *main, *side, *bcast;
    size_t nmain, nside, nbcast;
} wide_result;

static wide_result run_wide(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                            bool disable_chaining)
{
    weir_job *job =
        tu_job(&(weir_job_config){.workers = 2, .parallelism = 3, .disable_chaining = disable_chaining});
    weir_stream *sa = weir_source_array(job, a, na, 8, NULL);
    weir_stream *sb = weir_stream_set_parallelism(weir_source_array(job, b, nb, 8, NULL), 2);
    weir_stream *both[] = {sa, sb};
    static const weir_side_output_spec sides[] = {{.tag = 1, .elem_size = 8}};
    weir_process_spec split = {
        .name = "split", .vtable = &split_vtable, .out_size = 8, .side_outputs = sides, .nside = 1};
    weir_key_spec key = {.key_size = 8, .extract = extract_u64};
    weir_stream *mainout =
        weir_stream_process(weir_stream_key_by(weir_stream_union(both, 2), &key), &split);
    weir_stream *side = weir_stream_side_output(mainout, 1);
    weir_collect *cm, *cs, *cb;
    weir_stream *m2 = weir_stream_set_parallelism(
        weir_stream_map(weir_stream_rebalance(mainout), 8, plus_one, NULL), 2);
    weir_sink_collect(m2, &cm); /* at 3: a rebalance from the map's 2 */
    weir_stream_set_parallelism(weir_sink_collect(side, &cs), 1);
    weir_stream *bmap = weir_stream_set_parallelism(
        weir_stream_map(weir_stream_broadcast(side), 8, plus_one, NULL), 2);
    weir_stream_set_parallelism(weir_sink_collect(bmap, &cb), 2);
    tu_run_ok(job);
    wide_result r;
    r.main = tu_collect_u64(cm, &r.nmain);
    r.side = tu_collect_u64(cs, &r.nside);
    r.bcast = tu_collect_u64(cb, &r.nbcast);
    tu_sort_u64(r.main, r.nmain);
    tu_sort_u64(r.side, r.nside);
    tu_sort_u64(r.bcast, r.nbcast);
    weir_job_destroy(job);
    return r;
}

Test(pipeline, chaining_off_same_multisets_wide_graph, .timeout = 120)
{
    enum { NA = 20000, NB = 13001 };
    uint64_t *a = input(NA), *b = input(NB);
    wide_result on = run_wide(a, NA, b, NB, false);
    wide_result off = run_wide(a, NA, b, NB, true);
    /* Expected sizes from the inputs themselves. */
    size_t fifths = 0;
    for (size_t i = 0; i < NA; i++)
        fifths += a[i] % 5 == 0;
    for (size_t i = 0; i < NB; i++)
        fifths += b[i] % 5 == 0;
    cr_assert_eq(on.nside, fifths);
    cr_assert_eq(on.nmain, (size_t)NA + NB - fifths);
    cr_assert_eq(on.nbcast, 2 * fifths, "the broadcast map has 2 subtasks: each gets all");
    cr_assert_eq(off.nmain, on.nmain);
    cr_assert_eq(off.nside, on.nside);
    cr_assert_eq(off.nbcast, on.nbcast);
    for (size_t i = 0; i < on.nmain; i++)
        cr_assert_eq(on.main[i], off.main[i], "main differs at %zu", i);
    for (size_t i = 0; i < on.nside; i++)
        cr_assert_eq(on.side[i], off.side[i], "side differs at %zu", i);
    for (size_t i = 0; i < on.nbcast; i++)
        cr_assert_eq(on.bcast[i], off.bcast[i], "broadcast differs at %zu", i);
    /* And both are right: main = v*3+2 for every v not divisible by 5. */
    uint64_t *want = malloc((NA + NB) * sizeof *want);
    size_t nw = 0;
    for (size_t i = 0; i < NA; i++)
        if (a[i] % 5)
            want[nw++] = a[i] * 3 + 2;
    for (size_t i = 0; i < NB; i++)
        if (b[i] % 5)
            want[nw++] = b[i] * 3 + 2;
    tu_sort_u64(want, nw);
    cr_assert_eq(nw, on.nmain);
    for (size_t i = 0; i < nw; i++)
        cr_assert_eq(on.main[i], want[i], "main value %zu is %llu, expected %llu", i,
                     (unsigned long long)on.main[i], (unsigned long long)want[i]);
    free(want);
    free(on.main);
    free(on.side);
    free(on.bcast);
    free(off.main);
    free(off.side);
    free(off.bcast);
    free(a);
    free(b);
}

/* ---- ten million records -------------------------------------------------- */

/* 10M in the release build. Under AddressSanitizer or ThreadSanitizer, which
 * slow every record down by an order of magnitude or more, 1M: the same
 * graph and the same checks, a tenth of the volume. */
#define BIG_N (WEIR_TEST_SANITIZED ? 1000000ull : 10000000ull)

typedef struct seq_source {
    uint64_t total; /* split evenly over the subtasks */
} seq_source;

typedef struct seq_state {
    uint64_t next, end;
} seq_state;

static int seq_open(weir_ctx *ctx)
{
    const seq_source *src = weir_ctx_arg(ctx);
    seq_state *s = malloc(sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    uint64_t p = (uint64_t)weir_ctx_parallelism(ctx), i = (uint64_t)weir_ctx_subtask(ctx);
    s->next = src->total * i / p;
    s->end = src->total * (i + 1) / p;
    weir_ctx_set_state(ctx, s);
    return 0;
}

static int seq_next(weir_ctx *ctx)
{
    seq_state *s = weir_ctx_state(ctx);
    uint64_t stop = s->next + (uint64_t)weir_ctx_batch_hint(ctx);
    if (stop > s->end)
        stop = s->end;
    for (; s->next < stop; s->next++) {
        int r = weir_emit(ctx, &s->next, (int64_t)s->next);
        if (r < 0)
            return r;
    }
    return s->next < s->end ? WEIR_SOURCE_MORE : WEIR_SOURCE_END;
}

static void seq_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable seq_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = seq_open,
    .next = seq_next,
    .close = seq_close,
};

static int scramble(const void *in, void *out, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, 8);
    v = v * 0x9E3779B97F4A7C15ull + 12345;
    memcpy(out, &v, 8);
    return 0;
}

static int fold(const void *in, void *out, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, 8);
    v ^= v >> 29;
    memcpy(out, &v, 8);
    return 0;
}

enum { BIG_P = 2 };

typedef struct big_totals {
    /* each sink subtask writes only its own slot, padded apart */
    struct {
        uint64_t count, sum, mixed;
        char pad[64 - 3 * sizeof(uint64_t)];
    } part[BIG_P];
    _Atomic int bad;
} big_totals;

static int big_sink(const void *elem, int64_t ts, int subtask, void *arg)
{
    big_totals *t = arg;
    uint64_t v;
    memcpy(&v, elem, 8);
    /* The timestamp is the source's sequence number; recompute the value. */
    uint64_t want = (uint64_t)ts * 0x9E3779B97F4A7C15ull + 12345;
    want ^= want >> 29;
    if (v != want)
        atomic_store(&t->bad, 1);
    t->part[subtask].count++;
    t->part[subtask].sum += v;
    t->part[subtask].mixed += tu_mix(v);
    return 0;
}

Test(pipeline, ten_million_records_through_a_rebalance, .timeout = 300)
{
    static big_totals totals;
    static const seq_source src = {.total = BIG_N};
    weir_job *job = tu_job(&(weir_job_config){.parallelism = BIG_P});
    weir_source_spec spec = {.name = "seq", .vtable = &seq_vtable, .arg = (void *)&src,
                             .elem_size = 8};
    weir_stream *s = weir_stream_map(weir_job_add_source(job, &spec), 8, scramble, NULL);
    s = weir_stream_map(weir_stream_rebalance(s), 8, fold, NULL);
    weir_sink_callback(s, big_sink, &totals);
    tu_run_ok(job);
    uint64_t count = 0, sum = 0, mixed = 0;
    for (int p = 0; p < BIG_P; p++) {
        count += totals.part[p].count;
        sum += totals.part[p].sum;
        mixed += totals.part[p].mixed;
    }
    uint64_t want_sum = 0, want_mixed = 0;
    for (uint64_t i = 0; i < BIG_N; i++) {
        uint64_t v = i * 0x9E3779B97F4A7C15ull + 12345;
        v ^= v >> 29;
        want_sum += v;
        want_mixed += tu_mix(v);
    }
    cr_assert_eq(atomic_load(&totals.bad), 0, "a record's value does not match its timestamp");
    cr_assert_eq(count, (uint64_t)BIG_N, "%llu records arrived of %llu",
                 (unsigned long long)count, (unsigned long long)BIG_N);
    cr_assert_eq(sum, want_sum);
    cr_assert_eq(mixed, want_mixed);
    /* A rebalance from 2 producers spreads over both consumers. */
    for (int p = 0; p < BIG_P; p++)
        cr_assert_gt(totals.part[p].count, 0u);
    weir_job_destroy(job);
}
