/* work.c — the per-record work every scenario does, engine and plain-C
 * baseline alike: generating an element, chain's map and filter, and the
 * counting sink.
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

static const bench_work work = {
    .gen = gen,
    .map = map_mix,
    .filter = filter_keys,
    .map_copy = map_copy,
    .sink = sink_count,
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
