/* test_partitioning.c — how records travel between operators of different
 * subtasks: key_by (hash of the exact key bytes), rebalance, broadcast,
 * forward, and union of several streams.
 *
 * The key_by test is the important one. weir promises that keyed state
 * belongs to exact key bytes, so two keys whose hashes collide are never
 * merged. A test cannot force an XXH3 collision, so it checks the promise
 * from the other side, through keyed state itself: 10,200 distinct 40-byte
 * keys that differ from each other in one or two bytes, a keyed operator
 * counting records per key with weir_state_value, and a sequential
 * reference count. If two keys ever shared state, some running count would
 * skip or repeat, a key would finish with the wrong total, or the number of
 * state entries would be short. The same run checks that a key always lands
 * on one subtask, that weir_ctx_key is the record's key, and that a timer
 * fires with the key that registered it.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>

#include "key_group.h"
#include "support/weir_testutil.h"

/* ---- key_by --------------------------------------------------------------- */

enum { KEY_SIZE = 40, NKEYS = KEY_SIZE * 255, NRECORDS = 100000, KEYED_P = 4 };

typedef struct rec {
    uint64_t id;      /* which key */
    uint64_t payload; /* summed per key */
} rec;

/* Key of id: all zero but byte id % 40, which is id / 40 + 1 (1..255). */
static void key_of_id(uint64_t id, unsigned char key[KEY_SIZE])
{
    memset(key, 0, KEY_SIZE);
    key[id % KEY_SIZE] = (unsigned char)(id / KEY_SIZE + 1);
}

static uint64_t id_of_key(const unsigned char key[KEY_SIZE])
{
    for (uint64_t pos = 0; pos < KEY_SIZE; pos++) {
        if (key[pos])
            return (key[pos] - 1u) * KEY_SIZE + pos;
    }
    return UINT64_MAX;
}

static void extract_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    rec r;
    memcpy(&r, elem, sizeof r);
    key_of_id(r.id, key);
}

/* What the keyed operator emits. kind 0: a running count after a record;
 * 1: the final count and sum from the key's end-of-input timer. */
typedef struct keyed_out {
    uint64_t id;
    uint64_t count;
    uint64_t sum;
    int32_t subtask;
    int32_t kind;
} keyed_out;

typedef struct keyed_totals {
    uint64_t count, sum;
} keyed_totals;

enum { TAG_STATE_SIZE = 1 };

typedef struct state_size_out {
    int64_t subtask;
    int64_t entries;
} state_size_out;

static int keyed_open(weir_ctx *ctx)
{
    int *id = malloc(sizeof *id);
    if (!id)
        return WEIR_ENOMEM;
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(keyed_totals), id);
    if (r < 0) {
        free(id);
        return r;
    }
    tu_check(weir_ctx_key_size(ctx) == KEY_SIZE, "key size %zu", weir_ctx_key_size(ctx));
    weir_ctx_set_state(ctx, id);
    return 0;
}

static int keyed_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)ts;
    rec r;
    memcpy(&r, elem, sizeof r);
    unsigned char want[KEY_SIZE];
    key_of_id(r.id, want);
    const void *key = weir_ctx_key(ctx);
    tu_check(key && memcmp(key, want, KEY_SIZE) == 0, "current key is not record %llu's",
             (unsigned long long)r.id);
    int sid = *(int *)weir_ctx_state(ctx);
    keyed_totals *t = weir_state_value(ctx, sid, 0, true);
    if (!t)
        return weir_ctx_state_error(ctx);
    t->count++;
    t->sum += r.payload;
    keyed_out o = {r.id, t->count, t->sum, weir_ctx_subtask(ctx), 0};
    /* One end-of-input timer per key: registering it again is a no-op. */
    int e = weir_timer_register(ctx, WEIR_EVENT_TIME, 0, WEIR_TS_MAX - 1);
    if (e < 0)
        return e;
    return weir_emit(ctx, &o, 0);
}

static int keyed_timer(weir_ctx *ctx, const weir_timer *timer)
{
    tu_check(timer->domain == WEIR_EVENT_TIME && timer->timestamp == WEIR_TS_MAX - 1 &&
                 timer->ns == 0,
             "unexpected timer (%d, %lld, %lld)", (int)timer->domain,
             (long long)timer->timestamp, (long long)timer->ns);
    const unsigned char *key = weir_ctx_key(ctx);
    tu_check(key && timer->key && memcmp(key, timer->key, KEY_SIZE) == 0,
             "timer key is not the current key");
    int sid = *(int *)weir_ctx_state(ctx);
    keyed_totals *t = weir_state_value(ctx, sid, 0, false);
    tu_check(t != NULL, "a key's timer fired but its state is gone");
    if (!t)
        return WEIR_EINTERNAL;
    keyed_out o = {id_of_key(key), t->count, t->sum, weir_ctx_subtask(ctx), 1};
    return weir_emit(ctx, &o, timer->timestamp);
}

static int keyed_end(weir_ctx *ctx)
{
    int sid = *(int *)weir_ctx_state(ctx);
    state_size_out s = {weir_ctx_subtask(ctx), (int64_t)weir_state_size(ctx, sid)};
    return weir_emit_side(ctx, TAG_STATE_SIZE, &s, 0);
}

static void keyed_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_operator_vtable keyed_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = keyed_open,
    .on_record = keyed_record,
    .on_timer = keyed_timer,
    .on_end = keyed_end,
    .close = keyed_close,
};

Test(key_by, exact_key_state_matches_reference, .timeout = 120)
{
    static rec in[NRECORDS];
    static uint64_t ref_count[NKEYS], ref_sum[NKEYS];
    static uint64_t seen_count[NKEYS];
    static int32_t owner[NKEYS];
    static bool finished[NKEYS];
    uint64_t distinct = 0;
    for (uint64_t i = 0; i < NRECORDS; i++) {
        /* Skewed: low ids are frequent, so some keys get many records. */
        uint64_t h = tu_mix(i);
        in[i].id = (h & 1) ? (h >> 8) % 50 : (h >> 8) % NKEYS;
        in[i].payload = i;
        if (ref_count[in[i].id]++ == 0)
            distinct++;
        ref_sum[in[i].id] += i;
    }
    for (uint64_t k = 0; k < NKEYS; k++)
        owner[k] = -1;

    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 2});
    weir_key_spec key = {.key_size = KEY_SIZE, .extract = extract_key};
    static const weir_side_output_spec sides[] = {
        {.tag = TAG_STATE_SIZE, .elem_size = sizeof(state_size_out)}};
    weir_process_spec spec = {.name = "count_per_key",
                              .vtable = &keyed_vtable,
                              .out_size = sizeof(keyed_out),
                              .side_outputs = sides,
                              .nside = 1,
                              .parallelism = KEYED_P};
    weir_stream *counted = weir_stream_process(
        weir_stream_key_by(weir_source_array(job, in, NRECORDS, sizeof in[0], NULL), &key), &spec);
    /* The sinks run at the keyed operator's parallelism (chained), so each
     * key's outputs stay in the order they were emitted. */
    weir_collect *c, *cs;
    weir_stream_set_parallelism(weir_sink_collect(counted, &c), KEYED_P);
    weir_stream_set_parallelism(
        weir_sink_collect(weir_stream_side_output(counted, TAG_STATE_SIZE), &cs), KEYED_P);
    tu_run_ok(job);

    size_t n = weir_collect_count(c);
    cr_assert_eq(n, (size_t)NRECORDS + distinct, "%zu outputs, expected %llu", n,
                 (unsigned long long)(NRECORDS + distinct));
    uint64_t running_total = 0;
    for (size_t i = 0; i < n; i++) {
        keyed_out o;
        memcpy(&o, weir_collect_elem(c, i), sizeof o);
        cr_assert_lt(o.id, (uint64_t)NKEYS);
        cr_assert(o.subtask >= 0 && o.subtask < KEYED_P);
        if (owner[o.id] < 0)
            owner[o.id] = o.subtask;
        cr_assert_eq(o.subtask, owner[o.id], "key %llu on subtasks %d and %d",
                     (unsigned long long)o.id, owner[o.id], o.subtask);
        if (o.kind == 0) {
            /* A key's records arrive in order from the single source
             * subtask, so its running counts are exactly 1, 2, 3, ... */
            cr_assert_eq(o.count, seen_count[o.id] + 1, "key %llu: count %llu after %llu",
                         (unsigned long long)o.id, (unsigned long long)o.count,
                         (unsigned long long)seen_count[o.id]);
            seen_count[o.id] = o.count;
            running_total++;
        } else {
            cr_assert_eq(o.kind, 1);
            cr_assert_not(finished[o.id], "key %llu finished twice", (unsigned long long)o.id);
            finished[o.id] = true;
            cr_assert_eq(o.count, ref_count[o.id], "key %llu counted %llu, reference %llu",
                         (unsigned long long)o.id, (unsigned long long)o.count,
                         (unsigned long long)ref_count[o.id]);
            cr_assert_eq(o.sum, ref_sum[o.id], "key %llu summed %llu, reference %llu",
                         (unsigned long long)o.id, (unsigned long long)o.sum,
                         (unsigned long long)ref_sum[o.id]);
        }
    }
    cr_assert_eq(running_total, (uint64_t)NRECORDS);
    for (uint64_t k = 0; k < NKEYS; k++)
        cr_assert_eq(finished[k], ref_count[k] > 0, "key %llu: finished %d, records %llu",
                     (unsigned long long)k, finished[k], (unsigned long long)ref_count[k]);
    /* The state tables hold exactly one entry per distinct key. */
    cr_assert_eq(weir_collect_count(cs), (size_t)KEYED_P);
    int64_t entries = 0;
    for (size_t i = 0; i < KEYED_P; i++) {
        state_size_out s;
        memcpy(&s, weir_collect_elem(cs, i), sizeof s);
        cr_assert_gt(s.entries, 0, "subtask %lld got no key at all", (long long)s.subtask);
        entries += s.entries;
    }
    cr_assert_eq(entries, (int64_t)distinct);
    weir_job_destroy(job);
}

/* ---- subtask tagging, for rebalance / broadcast / forward / union -------- */

typedef struct tagged {
    uint64_t value;
    int64_t subtask;
} tagged;

static int tag_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    tagged t;
    memcpy(&t.value, elem, 8);
    t.subtask = weir_ctx_subtask(ctx);
    return weir_emit(ctx, &t, ts);
}

static const weir_operator_vtable tag_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = tag_record,
};

static weir_stream *tag(weir_stream *s, int parallelism)
{
    weir_process_spec spec = {
        .vtable = &tag_vtable, .out_size = sizeof(tagged), .parallelism = parallelism};
    return weir_stream_process(s, &spec);
}

static uint64_t *iota(size_t n, uint64_t base)
{
    uint64_t *v = malloc(n * sizeof *v);
    cr_assert_not_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = base + i;
    return v;
}

static tagged collected(const weir_collect *c, size_t i)
{
    tagged t;
    memcpy(&t, weir_collect_elem(c, i), sizeof t);
    return t;
}

/* One producer subtask spreads round-robin: 4 consumers get 250 each, and
 * nothing is lost or repeated. */
Test(rebalance, spreads_evenly_and_loses_nothing, .timeout = 60)
{
    enum { N = 1000, P = 4 };
    uint64_t *vals = iota(N, 0);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_collect *c;
    weir_stream *src = weir_source_array(job, vals, N, 8, NULL);
    weir_stream *sink = weir_sink_collect(tag(weir_stream_rebalance(src), P), &c);
    weir_stream_set_parallelism(sink, P);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), (size_t)N);
    int per[P] = {0};
    bool seen[N] = {false};
    for (size_t i = 0; i < N; i++) {
        tagged t = collected(c, i);
        cr_assert_lt(t.value, (uint64_t)N);
        cr_assert_not(seen[t.value]);
        seen[t.value] = true;
        per[t.subtask]++;
    }
    for (int s = 0; s < P; s++)
        cr_assert_eq(per[s], N / P, "subtask %d got %d of %d", s, per[s], N);
    weir_job_destroy(job);
    free(vals);
}

static void key_is_value(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

/* key_by sends a key to the subtask that owns its key group
 * (key_group.h), the rule keyed snapshots restore by: at parallelisms that
 * do not divide the max parallelism too, where the owner of a key group is
 * not the hash's plain partition among p. */
Test(key_by, routes_by_key_group, .timeout = 60)
{
    enum { N = 3000 };
    static const struct {
        int p, maxp;
    } runs[] = {{3, 0}, {3, 7}, {5, 128}, {2, 2}};
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        uint64_t *vals = iota(N, 17);
        weir_job *job = tu_job(&(weir_job_config){.workers = 2, .max_parallelism = runs[r].maxp});
        weir_collect *c;
        weir_stream *s = weir_source_array(job, vals, N, 8, NULL);
        s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = key_is_value});
        weir_stream *sink = weir_sink_collect(tag(s, runs[r].p), &c);
        weir_stream_set_parallelism(sink, runs[r].p);
        tu_run_ok(job);
        cr_assert_eq(weir_collect_count(c), (size_t)N);
        uint32_t maxp = runs[r].maxp ? (uint32_t)runs[r].maxp : 128u;
        int off_plain = 0;
        for (size_t i = 0; i < N; i++) {
            tagged t = collected(c, i);
            uint64_t h = weir__hash_bytes(&t.value, 8);
            uint32_t want = weir__key_subtask(h, maxp, (uint32_t)runs[r].p);
            cr_assert_eq(t.subtask, (int64_t)want, "p %d maxp %u: key %llu on subtask %lld",
                         runs[r].p, maxp, (unsigned long long)t.value, (long long)t.subtask);
            uint32_t first, last, kg = weir__key_group(h, maxp);
            weir__key_group_range(maxp, (uint32_t)runs[r].p, want, &first, &last);
            cr_assert(kg >= first && kg <= last);
            off_plain += weir__hash_partition(h, (uint32_t)runs[r].p) != want;
        }
        if (runs[r].p == 3 && runs[r].maxp == 7)
            cr_assert_gt(off_plain, 0, "the run does not tell key groups from plain hashing");
        weir_job_destroy(job);
        free(vals);
    }
}

/* The default edge between different parallelism is a rebalance too. */
Test(rebalance, implicit_between_parallelism, .timeout = 60)
{
    enum { N = 999 };
    uint64_t *vals = iota(N, 5);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 3});
    weir_collect *c;
    weir_stream *sink = weir_sink_collect(tag(weir_source_array(job, vals, N, 8, NULL), 2), &c);
    weir_stream_set_parallelism(sink, 2);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), (size_t)N);
    uint64_t sum = 0;
    for (size_t i = 0; i < N; i++)
        sum += tu_mix(collected(c, i).value);
    uint64_t want = 0;
    for (size_t i = 0; i < N; i++)
        want += tu_mix(vals[i]);
    cr_assert_eq(sum, want);
    weir_job_destroy(job);
    free(vals);
}

/* Every consumer subtask receives every record, from every producer. */
Test(broadcast, every_consumer_gets_every_record, .timeout = 60)
{
    enum { N = 500, P = 3 };
    uint64_t *vals = iota(N, 0);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_stream *src = weir_stream_set_parallelism(weir_source_array(job, vals, N, 8, NULL), 2);
    weir_collect *c;
    weir_stream *sink = weir_sink_collect(tag(weir_stream_broadcast(src), P), &c);
    weir_stream_set_parallelism(sink, P);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), (size_t)N * P);
    static int hits[P][N];
    memset(hits, 0, sizeof hits);
    for (size_t i = 0; i < N * P; i++) {
        tagged t = collected(c, i);
        cr_assert_lt(t.value, (uint64_t)N);
        hits[t.subtask][t.value]++;
    }
    for (int s = 0; s < P; s++)
        for (int v = 0; v < N; v++)
            cr_assert_eq(hits[s][v], 1, "subtask %d got value %d %d times", s, v, hits[s][v]);
    weir_job_destroy(job);
    free(vals);
}

/* Forward between equal parallelism keeps subtask i -> i: every record is
 * tagged by the subtask that read its slice. Chained, and with every edge a
 * channel. */
static void check_forward(bool disable_chaining)
{
    enum { N = 900, P = 3 };
    uint64_t *vals = iota(N, 0);
    weir_job *job = tu_job(
        &(weir_job_config){.workers = 2, .parallelism = P, .disable_chaining = disable_chaining});
    weir_collect *c;
    weir_sink_collect(tag(weir_stream_forward(weir_source_array(job, vals, N, 8, NULL)), P), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), (size_t)N);
    for (size_t i = 0; i < N; i++) {
        tagged t = collected(c, i);
        cr_assert_eq(t.subtask, (int64_t)(t.value / (N / P)), "value %llu on subtask %lld",
                     (unsigned long long)t.value, (long long)t.subtask);
        /* Collect reads subtask 0's records first: the array order. */
        cr_assert_eq(t.value, i);
    }
    weir_job_destroy(job);
    free(vals);
}

Test(forward, keeps_subtask_chained, .timeout = 60)
{
    check_forward(false);
}

Test(forward, keeps_subtask_over_channels, .timeout = 60)
{
    check_forward(true);
}

/* ---- union ---------------------------------------------------------------- */

/* Three sources of different parallelism; the union feeds one consumer of
 * parallelism 2 over all their channels. The same stream given twice is two
 * inputs: its records arrive twice. */
Test(union_, three_streams_all_records, .timeout = 60)
{
    uint64_t *a = iota(100, 0), *b = iota(250, 1000), *d = iota(333, 5000);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_stream *sa = weir_source_array(job, a, 100, 8, NULL);
    weir_stream *sb = weir_stream_set_parallelism(weir_source_array(job, b, 250, 8, NULL), 2);
    weir_stream *sd = weir_stream_set_parallelism(weir_source_array(job, d, 333, 8, NULL), 3);
    weir_stream *three[] = {sa, sb, sd};
    weir_stream *u = weir_stream_union(three, 3);
    cr_assert_not_null(u, "%s", weir_job_error(job));
    cr_assert_eq(weir_stream_elem_size(u), 8u);
    weir_collect *c;
    weir_stream *sink = weir_sink_collect(tag(u, 2), &c);
    weir_stream_set_parallelism(sink, 2);

    weir_stream *twice[] = {sa, sa};
    weir_collect *c2;
    weir_sink_collect(weir_stream_union(twice, 2), &c2);
    tu_run_ok(job);

    size_t n = 0;
    uint64_t *got = tu_collect_u64(c, &n);
    cr_assert_eq(n, 100u + 250 + 333);
    /* tagged.value is the first 8 bytes: the original value */
    tu_sort_u64(got, n);
    size_t k = 0;
    for (uint64_t v = 0; v < 100; v++)
        cr_assert_eq(got[k++], v);
    for (uint64_t v = 1000; v < 1250; v++)
        cr_assert_eq(got[k++], v);
    for (uint64_t v = 5000; v < 5333; v++)
        cr_assert_eq(got[k++], v);
    free(got);

    uint64_t *got2 = tu_collect_u64(c2, &n);
    cr_assert_eq(n, 200u);
    tu_sort_u64(got2, n);
    for (size_t i = 0; i < 200; i++)
        cr_assert_eq(got2[i], i / 2);
    free(got2);
    weir_job_destroy(job);
    free(a);
    free(b);
    free(d);
}

/* A union can be partitioned as a whole: key_by after union. */
static void extract_u64(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

Test(union_, then_key_by, .timeout = 60)
{
    uint64_t *a = iota(300, 0), *b = iota(300, 0);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_stream *two[] = {weir_source_array(job, a, 300, 8, NULL),
                          weir_source_array(job, b, 300, 8, NULL)};
    weir_key_spec key = {.key_size = 8, .extract = extract_u64};
    weir_collect *c;
    weir_stream *sink =
        weir_sink_collect(tag(weir_stream_key_by(weir_stream_union(two, 2), &key), 3), &c);
    weir_stream_set_parallelism(sink, 3);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), 600u);
    /* Equal values from both sources meet on one subtask. */
    int64_t where[300];
    for (int i = 0; i < 300; i++)
        where[i] = -1;
    for (size_t i = 0; i < 600; i++) {
        tagged t = collected(c, i);
        if (where[t.value] < 0)
            where[t.value] = t.subtask;
        cr_assert_eq(where[t.value], t.subtask, "value %llu on two subtasks",
                     (unsigned long long)t.value);
    }
    weir_job_destroy(job);
    free(a);
    free(b);
}
