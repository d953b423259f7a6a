/* work.c — the per-record work every scenario does, engine and plain-C
 * baseline alike: generating an element, chain's map and filter, the
 * counting sink, and for the window scenarios the event-time element, the
 * key extractor, the counting aggregate and the window-result sink.
 *
 * These functions live in their own translation unit and are only reached
 * through the bench_work table of pointers, so the plain baselines cannot
 * inline them, hoist them out of the loop or fold the loop away: a baseline
 * makes the same indirect calls per record as the engine's operators do, and
 * the difference between the two is the engine's own cost (emit, chaining,
 * channels, scheduling). The build has no LTO, so this holds for the engine
 * side too.
 */
#include "bench.h"

/* Elements are cheap and deterministic: the key is the top 10 bits of a
 * Fibonacci hash of the sequence number (1024 keys, spread evenly over hash
 * partitions), the value is the sequence number. */
static void gen(int64_t seq, bench_elem *out)
{
    out->key = (int64_t)(((uint64_t)seq * UINT64_C(0x9E3779B97F4A7C15)) >> 54);
    out->value = seq;
}

static int map_mix(const void *in, void *out, void *arg)
{
    (void)arg;
    const bench_elem *a = in;
    bench_elem *b = out;
    b->key = a->key;
    b->value = (int64_t)((uint64_t)a->value * 3u + (uint64_t)a->key);
    return 0;
}

static int map_copy(const void *in, void *out, void *arg)
{
    (void)arg;
    *(bench_elem *)out = *(const bench_elem *)in;
    return 0;
}

/* Keeps 7 keys in 8, so the filter really filters and the sink's count
 * checks it. */
static int filter_keys(const void *in, void *arg)
{
    (void)arg;
    return (((const bench_elem *)in)->key & 7) != 0;
}

static int sink_count(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    (void)timestamp;
    const bench_elem *e = elem;
    bench_acc *acc = &((bench_acc *)arg)[subtask];
    acc->count++;
    acc->sum += (uint64_t)e->key ^ (uint64_t)e->value;
    return 0;
}

/* ---- the event-time input of the window scenarios ------------------------- */

/* splitmix64's finalizer: the key and the disorder of a record are drawn
 * from one 64-bit hash of its sequence number, so keys arrive in a random
 * order (each key about every BENCH_EVENT_KEYS records, not on a regular
 * beat) and the disorder is independent of the key. */
static uint64_t mix64(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* Record `seq` is due at event time seq / BENCH_EVENTS_PER_MS (1 M records
 * per second of event time) and arrives up to BENCH_EVENT_DISORDER_MS
 * earlier than that, so no record is older than the largest timestamp
 * before it minus the disorder: a bounded-out-of-orderness assigner with
 * that bound sees no late record. The first records have negative
 * timestamps (window [-1000, 0) is real). Key: one of BENCH_EVENT_KEYS,
 * uniformly; value: seq. */
static int64_t gen_event(int64_t seq, bench_elem *out)
{
    uint64_t h = mix64((uint64_t)seq);
    out->key = (int64_t)(((h >> 32) * BENCH_EVENT_KEYS) >> 32);
    out->value = seq;
    int64_t disorder = (int64_t)(((h & 0xFFFFFFFFu) * (BENCH_EVENT_DISORDER_MS + 1)) >> 32);
    return seq / BENCH_EVENTS_PER_MS - disorder;
}

static void key_of(const void *elem, void *key, void *arg)
{
    (void)arg;
    __builtin_memcpy(key, &((const bench_elem *)elem)->key, sizeof(int64_t));
}

static const weir_key_spec by_key = {.key_size = sizeof(int64_t), .extract = key_of};

const weir_key_spec *bench_key_spec(void)
{
    return &by_key;
}

/* The aggregate: the accumulator is an int64 count. */
static void count_add(void *acc, const void *elem, void *arg)
{
    (void)elem;
    (void)arg;
    (*(int64_t *)acc)++;
}

static void count_merge(void *acc, const void *other, void *arg)
{
    (void)arg;
    *(int64_t *)acc += *(const int64_t *)other;
}

/* The result is a bench_elem {key, count}; the window is in its timestamp
 * (the window's max, end - 1). */
static void count_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    bench_elem *r = out;
    __builtin_memcpy(&r->key, w->key, sizeof r->key);
    r->value = *(const int64_t *)acc;
}

static int sink_window(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    const bench_elem *r = elem;
    bench_wacc *acc = &((bench_wacc *)arg)[subtask];
    acc->results++;
    acc->counts += (uint64_t)r->value;
    acc->mix += bench_result_mix(r->key, timestamp, r->value);
    return 0;
}

uint64_t bench_result_mix(int64_t key, int64_t timestamp, int64_t count)
{
    return mix64((uint64_t)key ^ mix64((uint64_t)timestamp ^ mix64((uint64_t)count)));
}

static const bench_work work = {
    .gen = gen,
    .map = map_mix,
    .filter = filter_keys,
    .map_copy = map_copy,
    .sink = sink_count,
    .gen_event = gen_event,
    .key = key_of,
    .count_add = count_add,
    .count_merge = count_merge,
    .count_result = count_result,
    .sink_window = sink_window,
};

const bench_work *bench_work_get(void)
{
    return &work;
}

/* The few (records, shape) pairs one invocation of weir-bench uses; only the
 * harness thread calls this. */
#define CACHE_SLOTS 8

typedef struct expected_entry {
    int64_t records;
    bench_shape shape;
    bool valid;
    uint64_t count, sum;
} expected_entry;

static expected_entry cache[CACHE_SLOTS];
static unsigned cache_next;

void bench_expected(int64_t records, bench_shape shape, uint64_t *count, uint64_t *sum)
{
    for (unsigned i = 0; i < CACHE_SLOTS; i++) {
        if (cache[i].valid && cache[i].records == records && cache[i].shape == shape) {
            *count = cache[i].count;
            *sum = cache[i].sum;
            return;
        }
    }
    bench_acc acc = {0};
    bench_elem e, m;
    for (int64_t s = 0; s < records; s++) {
        gen(s, &e);
        if (shape == BENCH_SHAPE_NONE) {
            sink_count(&e, s, 0, &acc);
            continue;
        }
        if (shape == BENCH_SHAPE_COPY_FILTER)
            map_copy(&e, &m, NULL);
        else
            map_mix(&e, &m, NULL);
        if (filter_keys(&m, NULL))
            sink_count(&m, s, 0, &acc);
    }
    expected_entry *slot = &cache[cache_next++ % CACHE_SLOTS];
    *slot = (expected_entry){
        .records = records, .shape = shape, .valid = true, .count = acc.count, .sum = acc.sum};
    *count = acc.count;
    *sum = acc.sum;
}
