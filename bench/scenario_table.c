/* scenario_table.c — the table layer (weir/table.h) on the window scenarios'
 * event-time input: what a table costs over the DataStream operators it
 * plans into.
 *
 *   table-window-tumbling  window-tumbling written as a table: events ->
 *                          assign_timestamps (bounded 100 ms, probes every
 *                          200 ms) -> a table over the 16-byte elements (a
 *                          schema bound to the struct, the record timestamp
 *                          as its rowtime, SOURCE_WATERMARK(); the key is
 *                          the one column bound: 24-byte rows) ->
 *                          window_aggregate(TUMBLE(1 s), key, COUNT(*)) ->
 *                          to_stream -> sink. The sink reads the rows' key
 *                          and count and checks them against the same
 *                          reference as window-tumbling: the same windows
 *                          with the same counts. Baseline window-tumbling.
 *   table-group-count      a running count per key over 1 000 keys
 *                          (SELECT MOD(key, 1000) AS k ... GROUP BY k), its
 *                          changelog out: +I for a key's first row, then a
 *                          -U/+U pair for every row. The sink checks the
 *                          kinds and that the changelog adds up: +I count
 *                          1000, -U and +U each records - 1000, and the
 *                          counts summed with the rows' signs equal the
 *                          records. Baseline plain-group-count.
 *   plain-group-count      what the group aggregate does, as a plain C loop
 *                          on one thread: gen_event, k = key % 1000, a
 *                          lookup of k in an open-addressing table whose
 *                          slot holds the count, the count updated, and the
 *                          changelog rows (+I, or -U then +U: {kind, k, n})
 *                          out through a function pointer into the same
 *                          totals and checks as table-group-count. No
 *                          watermark: a group aggregate does not read time.
 *
 * What a table adds per record: the table source's conversion of the
 * struct into a row (the record timestamp into the rowtime column), the
 * group key (a null flag and the value: 9 bytes instead of 8), the
 * aggregate's slot update, and per result a row built from the key bytes and
 * the accumulator; group-count also a Calc and two changelog rows out.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define GROUP_KEYS 1000

/* The events as a table: bench_elem's key bound by offsetof (the queries
 * read nothing else: binding only what a query reads is what Flink's
 * projection push-down does for it), the record timestamp as the rowtime. */
static weir_schema *event_schema(char *err, size_t errsize)
{
    weir_schema_builder *b = weir_schema_builder_create("events");
    weir_schema_bind_struct(b, sizeof(bench_elem));
    weir_schema_column_at(b, "key", (weir_type){.id = WEIR_TYPE_BIGINT, .not_null = true},
                          offsetof(bench_elem, key), 8);
    weir_schema_rowtime_metadata(b, "rt");
    weir_schema_watermark(b, "rt", "SOURCE_WATERMARK()");
    weir_schema *s = NULL;
    char why[256];
    if (weir_schema_build(b, &s, why, sizeof why) != 0)
        snprintf(err, errsize, "schema: %s", why);
    return s;
}

/* A table run's job, env and schema, and what its sinks read rows with. */
typedef struct trun {
    weir_job *job;
    weir_table_env *env;
    weir_schema *schema;
    const weir_schema *out; /* the rows the sink gets */
} trun;

static int trun_open(trun *t, const bench_params *p, char *err, size_t errsize)
{
    memset(t, 0, sizeof *t);
    if (!(t->schema = event_schema(err, errsize)))
        return -1;
    if (!(t->job = bench_job_create(p, 0, NULL, err, errsize)))
        return -1;
    if (weir_table_env_create(t->job, &(weir_table_config){.parallelism = p->parallelism},
                              &t->env) != 0) {
        snprintf(err, errsize, "weir_table_env_create failed");
        return -1;
    }
    return 0;
}

static void trun_close(trun *t)
{
    weir_job_destroy(t->job);
    weir_table_env_destroy(t->env);
    weir_schema_destroy(t->schema);
}

/* The events through assign_timestamps, as a table. */
static weir_table *events_table(trun *t, int64_t records)
{
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(BENCH_EVENT_DISORDER_MS)};
    ts.strategy.interval_ms = 200;
    weir_stream *s = weir_stream_assign_timestamps(bench_source_events(t->job, records), &ts);
    return weir_table_from_stream(t->env, s, t->schema);
}

/* ---- table-window-tumbling ------------------------------------------------- */

typedef struct wsink {
    const weir_schema *out; /* key, n */
    bench_wacc *acc;
} wsink;

/* The row as the window scenarios' result: {key, count} at its timestamp
 * (the window's max), into work->sink_window's totals. */
static int window_row(const void *row, int64_t timestamp, int subtask, void *arg)
{
    const wsink *ws = arg;
    bench_elem r = {weir_row_get_int(ws->out, row, 0), weir_row_get_int(ws->out, row, 1)};
    return bench_work_get()->sink_window(&r, timestamp, subtask, ws->acc);
}

static int run_table_window(const bench_scenario *sc, const bench_params *p, bench_result *out,
                            char *err, size_t errsize)
{
    (void)sc;
    trun t;
    bench_wacc *acc = bench_wacc_create(p->parallelism);
    int r = acc ? trun_open(&t, p, err, errsize) : -1;
    if (!acc)
        snprintf(err, errsize, "out of memory");
    if (r == 0) {
        weir_table *w = weir_table_window_aggregate(
            events_table(&t, p->records),
            &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, "key",
            "key, COUNT(*) AS n");
        static wsink ws; /* one run at a time: the harness thread's */
        ws = (wsink){weir_table_schema(w), acc};
        weir_sink_callback(weir_table_to_stream(w), window_row, &ws);
        r = bench_job_time(t.job, out, err, errsize);
        if (r == 0)
            r = bench_verify_windows(acc, p->parallelism, p->records, BENCH_WINDOW_TUMBLING, err,
                                     errsize);
    }
    if (acc)
        trun_close(&t);
    free(acc);
    return r;
}

/* ---- table-group-count ------------------------------------------------------- */

/* One sink subtask's changelog totals, alone on its cache line. */
typedef struct gacc {
    _Alignas(64) int64_t kinds[4];
    int64_t net; /* the counts, + for +I/+U, - for -U */
    int64_t bad; /* rows that were not what the changelog must be */
} gacc;

typedef struct gsink {
    const weir_schema *out; /* k, n */
    gacc *acc;
} gsink;

static int group_row(const void *row, int64_t timestamp, int subtask, void *arg)
{
    (void)timestamp;
    const gsink *gs = arg;
    gacc *a = &gs->acc[subtask];
    weir_row_kind kind = weir_row_get_kind(row);
    int64_t n = weir_row_get_int(gs->out, row, 1);
    a->kinds[kind]++;
    a->net += kind == WEIR_ROW_UPDATE_BEFORE ? -n : n;
    /* a key's first row is +I 1; a count never goes away (-D) */
    a->bad += (kind == WEIR_ROW_INSERT && n != 1) || kind == WEIR_ROW_DELETE;
    return 0;
}

/* Whether the changelog's totals over `parallelism` sinks are a running
 * count's over `records` records; else -1 with what differs in err. */
static int check_group(const gacc *acc, int parallelism, int64_t records, char *err,
                       size_t errsize)
{
    int64_t kinds[4] = {0}, net = 0, bad = 0;
    for (int i = 0; i < parallelism; i++) {
        for (int k = 0; k < 4; k++)
            kinds[k] += acc[i].kinds[k];
        net += acc[i].net;
        bad += acc[i].bad;
    }
    int64_t keys = records < GROUP_KEYS ? records : GROUP_KEYS;
    if (kinds[WEIR_ROW_INSERT] != keys || kinds[WEIR_ROW_UPDATE_BEFORE] != records - keys ||
        kinds[WEIR_ROW_UPDATE_AFTER] != records - keys || net != records || bad != 0) {
        snprintf(err, errsize, "the changelog has %" PRId64 " +I, %" PRId64 " -U, %" PRId64
                 " +U, %" PRId64 " bad rows and nets %" PRId64 " rows; expected %" PRId64
                 " +I, %" PRId64 " -U/+U and %" PRId64, kinds[0], kinds[1], kinds[2], bad,
                 net, keys, records - keys, records);
        return -1;
    }
    return 0;
}

static int run_table_group(const bench_scenario *sc, const bench_params *p, bench_result *out,
                           char *err, size_t errsize)
{
    (void)sc;
    trun t;
    gacc *acc = aligned_alloc(_Alignof(gacc), (size_t)p->parallelism * sizeof *acc);
    int r = acc ? trun_open(&t, p, err, errsize) : -1;
    if (!acc)
        snprintf(err, errsize, "out of memory");
    if (r == 0) {
        memset(acc, 0, (size_t)p->parallelism * sizeof *acc);
        weir_table *k = weir_table_select(events_table(&t, p->records), "MOD(key, 1000) AS k");
        weir_table *g = weir_table_group_by(k, "k", "k, COUNT(*) AS n");
        static gsink gs; /* one run at a time: the harness thread's */
        gs = (gsink){weir_table_schema(g), acc};
        weir_sink_callback(weir_table_to_changelog_stream(g, WEIR_CHANGELOG_ALL), group_row, &gs);
        r = bench_job_time(t.job, out, err, errsize);
    }
    if (r == 0)
        r = check_group(acc, p->parallelism, p->records, err, errsize);
    if (acc)
        trun_close(&t);
    free(acc);
    return r;
}

/* ---- plain-group-count ------------------------------------------------------- */

/* A changelog row of the plain loop, as the sink reads one: kind, key, count. */
typedef struct plain_grow {
    int64_t kind, k, n;
} plain_grow;

/* group_row's accounting for a plain row (reached through a pointer the
 * compiler cannot see through, as the engine's sink callback is). */
static int plain_group_sink(const plain_grow *row, gacc *a)
{
    a->kinds[row->kind]++;
    a->net += row->kind == WEIR_ROW_UPDATE_BEFORE ? -row->n : row->n;
    a->bad += (row->kind == WEIR_ROW_INSERT && row->n != 1) || row->kind == WEIR_ROW_DELETE;
    return 0;
}

static int (*volatile plain_group_out)(const plain_grow *, gacc *) = plain_group_sink;

/* The table: open addressing, linear probing, 4 096 slots for the 1 000
 * keys (load under 1/4), a slot {k, count} (count 0: empty). */
#define PG_SLOTS 4096

typedef struct pg_slot {
    int64_t k, count;
} pg_slot;

static int run_plain_group(const bench_scenario *sc, const bench_params *p, bench_result *out,
                           char *err, size_t errsize)
{
    (void)sc;
    const bench_work *w = bench_work_get();
    gacc *acc = aligned_alloc(_Alignof(gacc), sizeof *acc);
    pg_slot *slots = calloc(PG_SLOTS, sizeof *slots);
    if (!acc || !slots) {
        snprintf(err, errsize, "out of memory");
        free(acc);
        free(slots);
        return -1;
    }
    memset(acc, 0, sizeof *acc);
    int (*sink)(const plain_grow *, gacc *) = plain_group_out;
    bench_elem e;
    bench_timer tm;
    bench_timer_start(&tm);
    for (int64_t s = 0; s < p->records; s++) {
        w->gen_event(s, &e);
        int64_t k = e.key % GROUP_KEYS; /* MOD(key, 1000) */
        uint64_t h = (uint64_t)k * UINT64_C(0x9E3779B97F4A7C15);
        size_t i = (size_t)(h >> 52); /* log2(PG_SLOTS) bits */
        while (slots[i].count && slots[i].k != k)
            i = (i + 1) & (PG_SLOTS - 1);
        pg_slot *slot = &slots[i];
        if (slot->count == 0) {
            slot->k = k;
            slot->count = 1;
            sink(&(plain_grow){WEIR_ROW_INSERT, k, 1}, acc);
        } else {
            sink(&(plain_grow){WEIR_ROW_UPDATE_BEFORE, k, slot->count}, acc);
            slot->count++;
            sink(&(plain_grow){WEIR_ROW_UPDATE_AFTER, k, slot->count}, acc);
        }
    }
    bench_timer_stop(&tm, out);
    out->workers = 0;
    int r = check_group(acc, 1, p->records, err, errsize);
    free(slots);
    free(acc);
    return r;
}

const bench_scenario bench_scenarios_table[] = {
    {
        .name = "table-window-tumbling",
        .what = "window-tumbling as a table: TUMBLE(1 s) window aggregate COUNT(*) per key",
        .baseline = "window-tumbling",
        .records = 20000000,
        .quick_records = 4000000,
        .run = run_table_window,
        .targets = {{BENCH_TARGET_RATIO, 0.7, 0, "table-window-tumbling >= 70% of window-tumbling"}},
    },
    {
        .name = "table-group-count",
        .what = "a running COUNT(*) per key over 1000 keys, its changelog (+I, -U/+U) out",
        .baseline = "plain-group-count",
        .records = 10000000,
        .quick_records = 2000000,
        .run = run_table_group,
        .targets = {{BENCH_TARGET_RATIO, 0.3, 1, "table-group-count >= 30% of plain-group-count"}},
    },
    {
        .name = "plain-group-count",
        .what = "baseline: the group aggregate's work as a plain C loop (lookup, count, "
                "changelog rows), no runtime",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 50000000,
        .quick_records = 10000000,
        .run = run_plain_group,
    },
};

const size_t bench_nscenarios_table = sizeof bench_scenarios_table / sizeof bench_scenarios_table[0];
