/* scenario_over.c — OVER aggregation, deduplication and Top-N in SQL against
 * plain-C loops doing the same work on the same kind of input, in the same
 * run.
 *
 * The SQL rows read sql-tumbling's datagen table (records / p rows in each
 * of p partitions, 1 000 keys, values 1..100, 100 000 rows/s of event time
 * a partition, up to 100 ms out of order) with the watermark 101 ms behind
 * the largest time (no row is late), at parallelism p, every result row to
 * a callback that counts it; timed from the job's start to its end.
 *
 *   sql-over-range   SELECT `key`, `value`, ts, SUM(`value`) OVER (PARTITION
 *                    BY `key` ORDER BY ts RANGE BETWEEN INTERVAL '1' SECOND
 *                    PRECEDING AND CURRENT ROW) FROM gen: one row out per
 *                    row in (checked).
 *   plain-over-range one thread: rows made as the datagen makes them (a key,
 *                    a value, a time up to 100 ms behind its slot), held in
 *                    per-millisecond buckets until the watermark (the
 *                    largest time - 101 ms) passes them, then per key in
 *                    time order: the rows older than t - 1 s retracted from
 *                    the key's sum (a FIFO per key), the bucket's rows of
 *                    the key added (peers), each row out with its key's sum.
 *   sql-dedup        SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION
 *                    BY `key` ORDER BY ts DESC) AS rn FROM gen) WHERE rn = 1:
 *                    a Deduplicate keeping the last row (+I, then -U/+U).
 *   plain-dedup      per key the kept row's time; a row at or after it
 *                    replaces it (two rows out), a key's first is one.
 *   sql-topn         SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION
 *                    BY `key` ORDER BY `value` DESC) AS rn FROM gen) WHERE
 *                    rn <= 3: a Rank with its row numbers.
 *   plain-topn       per key the 3 best rows in order; a row that enters
 *                    shifts the ranks after it, each change out.
 * Each plain loop's output goes to a checksum the compiler cannot drop.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define OVER_KEYS 1000
#define OVER_RATE 100000 /* rows per second of event time */
#define OVER_DISORDER 100
#define OVER_RANGE_MS 1000
#define OVER_TOP 3

typedef struct over_timing {
    bench_timer timer;
    bench_result *out;
    int64_t rows;
} over_timing;

static void on_job(weir_job *job, void *arg)
{
    over_timing *t = arg;
    if (job) {
        t->out->workers = weir_job_get_config(job)->workers;
        bench_timer_start(&t->timer);
    } else {
        bench_timer_stop(&t->timer, t->out);
    }
}

static int count_row(const weir_schema *schema, const void *row, void *arg)
{
    (void)schema;
    (void)row;
    ((over_timing *)arg)->rows++;
    return 0;
}

static const char *const queries[] = {
    "SELECT `key`, `value`, ts, SUM(`value`) OVER (PARTITION BY `key` ORDER BY ts\n"
    "  RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) AS s FROM gen;\n",
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `key` ORDER BY ts DESC) AS rn\n"
    "  FROM gen) WHERE rn = 1;\n",
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `key` ORDER BY `value` DESC)\n"
    "  AS rn FROM gen) WHERE rn <= 3;\n",
};

static int run_sql(const bench_scenario *sc, const bench_params *p, bench_result *out, char *err,
                   size_t errsize)
{
    over_timing t = {.out = out};
    weir_sql_config cfg = {.on_row = count_row, .on_row_arg = &t, .workers = p->workers,
                           .on_job = on_job, .on_job_arg = &t};
    weir_sql_session *s;
    if (weir_sql_session_create(&cfg, &s) != 0) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    char text[2048];
    snprintf(text, sizeof text,
             "SET 'parallelism.default' = '%d';\n"
             "SET 'weir.capture.level' = 'off';\n"
             "CREATE TABLE gen (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3),\n"
             "  WATERMARK FOR ts AS ts - INTERVAL '101' MILLISECOND)\n"
             "WITH ('connector' = 'datagen', 'number-of-rows' = '%" PRId64 "',\n"
             "      'partitions' = '%d', 'keys' = '%d', 'disorder' = '%d ms',\n"
             "      'rows-per-second' = '%d');\n%s",
             p->parallelism, p->records / p->parallelism, p->parallelism, OVER_KEYS,
             OVER_DISORDER, OVER_RATE, queries[sc->arg]);
    int r = weir_sql_execute(s, text, strlen(text));
    if (r != 0)
        snprintf(err, errsize, "weir_sql_execute: %s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    if (r)
        return -1;
    int64_t in = p->records / p->parallelism * p->parallelism;
    /* OVER: a row out per row in; dedup: +I per key, -U/+U per later row at
     * or after the kept one (most rows: the disorder is under a key's gap);
     * Top-N: at least one row per key */
    bool ok = sc->arg == 0 ? t.rows == in : sc->arg == 1 ? t.rows >= in && t.rows < 2 * in
                                                         : t.rows >= OVER_KEYS;
    if (sc->arg == 1)
        ok = t.rows >= OVER_KEYS && t.rows < 2 * in;
    if (!ok) {
        snprintf(err, errsize, "%" PRId64 " rows out of %" PRId64 " in", t.rows, in);
        return -1;
    }
    return 0;
}

/* ---- the plain loops -------------------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* Row i as the datagen makes one: a key, a value 1..100, a time up to
 * OVER_DISORDER ms behind its slot (never before 0). */
static void gen(int64_t i, int64_t *key, int64_t *value, int64_t *ts)
{
    uint64_t x = mix((uint64_t)i + 0x9E3779B97F4A7C15ull);
    *key = (int64_t)(x % OVER_KEYS);
    *value = (int64_t)((x >> 16) % 100) + 1;
    int64_t t = i * 1000 / OVER_RATE - (int64_t)((x >> 40) % (OVER_DISORDER + 1));
    *ts = t < 0 ? 0 : t;
}

/* Where each plain loop leaves its checksum, so that its work is kept. */
static volatile uint64_t plain_check;

typedef struct ventry {
    int64_t ts, value;
} ventry;

/* A growable FIFO of (time, value). */
typedef struct fifo {
    ventry *v;
    size_t head, n, cap;
} fifo;

static bool fifo_push(fifo *f, ventry e)
{
    if (f->head + f->n == f->cap) {
        if (f->head > f->cap / 2) {
            memmove(f->v, f->v + f->head, f->n * sizeof *f->v);
            f->head = 0;
        } else {
            size_t cap = f->cap ? 2 * f->cap : 16;
            ventry *nv = realloc(f->v, cap * sizeof *nv);
            if (!nv)
                return false;
            f->v = nv;
            f->cap = cap;
        }
    }
    f->v[f->head + f->n++] = e;
    return true;
}

#define BUCKETS 256 /* ms of pending rows: more than the disorder and its lag */

typedef struct prow {
    int64_t key, value;
} prow;

static int run_plain_over(const bench_scenario *sc, const bench_params *p, bench_result *out,
                          char *err, size_t errsize)
{
    (void)sc;
    fifo frame[OVER_KEYS] = {{0}};
    int64_t sum[OVER_KEYS] = {0};
    fifo pend[BUCKETS] = {{0}}; /* rows by their time's ms, as (key, value) in ts, value */
    int64_t max = INT64_MIN, done = -1; /* the times processed: up to done */
    uint64_t check = 0;
    int64_t rows = 0;
    bool ok = true;
    bench_timer timer;
    bench_timer_start(&timer);
    for (int64_t i = 0; i <= p->records && ok; i++) {
        int64_t wm;
        if (i < p->records) {
            int64_t key, value, ts;
            gen(i, &key, &value, &ts);
            ok = fifo_push(&pend[ts % BUCKETS], (ventry){.ts = key, .value = value});
            if (ts > max)
                max = ts;
            wm = max - OVER_DISORDER - 1;
        } else {
            wm = max; /* the end: everything */
        }
        for (; done < wm; ) {
            int64_t t = ++done;
            fifo *b = &pend[t % BUCKETS];
            if (!b->n)
                continue;
            /* each key of the bucket: retract, add its peers */
            for (size_t j = 0; j < b->n; j++) {
                ventry *e = &b->v[b->head + j];
                int64_t k = e->ts;
                fifo *f = &frame[k];
                while (f->n && f->v[f->head].ts < t - OVER_RANGE_MS) {
                    sum[k] -= f->v[f->head].value;
                    f->head++;
                    f->n--;
                }
                sum[k] += e->value;
                ok = ok && fifo_push(f, (ventry){.ts = t, .value = e->value});
            }
            for (size_t j = 0; j < b->n; j++) {
                ventry *e = &b->v[b->head + j];
                check += (uint64_t)(e->ts * 31 + e->value) ^ (uint64_t)sum[e->ts];
                rows++;
            }
            b->head = b->n = 0;
        }
    }
    bench_timer_stop(&timer, out);
    for (int k = 0; k < OVER_KEYS; k++)
        free(frame[k].v);
    for (int b = 0; b < BUCKETS; b++)
        free(pend[b].v);
    if (!ok || rows != p->records) {
        snprintf(err, errsize, "%" PRId64 " rows out of %" PRId64 " (check %" PRIu64 ")", rows,
                 p->records, check);
        return -1;
    }
    plain_check = check; /* kept: the loop's output */
    return 0;
}

static int run_plain_dedup(const bench_scenario *sc, const bench_params *p, bench_result *out,
                           char *err, size_t errsize)
{
    (void)sc;
    int64_t kept_ts[OVER_KEYS], kept_value[OVER_KEYS];
    for (int k = 0; k < OVER_KEYS; k++)
        kept_ts[k] = INT64_MIN;
    uint64_t check = 0;
    int64_t rows = 0;
    bench_timer timer;
    bench_timer_start(&timer);
    for (int64_t i = 0; i < p->records; i++) {
        int64_t key, value, ts;
        gen(i, &key, &value, &ts);
        if (ts < kept_ts[key])
            continue;
        if (kept_ts[key] != INT64_MIN) {
            check += (uint64_t)(kept_value[key] * 7 + kept_ts[key]); /* -U */
            rows++;
        }
        check ^= (uint64_t)(value * 13 + ts); /* +I / +U */
        rows++;
        kept_ts[key] = ts;
        kept_value[key] = value;
    }
    bench_timer_stop(&timer, out);
    if (rows < OVER_KEYS) {
        snprintf(err, errsize, "%" PRId64 " rows out of %" PRId64 " (check %" PRIu64 ")", rows,
                 p->records, check);
        return -1;
    }
    plain_check = check; /* kept: the loop's output */
    return 0;
}

static int run_plain_topn(const bench_scenario *sc, const bench_params *p, bench_result *out,
                          char *err, size_t errsize)
{
    (void)sc;
    static ventry top[OVER_KEYS][OVER_TOP]; /* (ts, value), best first */
    int n[OVER_KEYS] = {0};
    uint64_t check = 0;
    int64_t rows = 0;
    bench_timer timer;
    bench_timer_start(&timer);
    for (int64_t i = 0; i < p->records; i++) {
        int64_t key, value, ts;
        gen(i, &key, &value, &ts);
        ventry *t = top[key];
        int m = n[key];
        /* after the rows of an equal or better value */
        int pos = m;
        while (pos > 0 && t[pos - 1].value < value)
            pos--;
        if (pos == OVER_TOP)
            continue;
        ventry cur = {.ts = ts, .value = value};
        for (int r = pos; r < m; r++) {
            check += (uint64_t)(t[r].value * 5 + t[r].ts + r);  /* -U old */
            check ^= (uint64_t)(cur.value * 3 + cur.ts + r);   /* +U new */
            rows += 2;
            ventry moved = t[r];
            t[r] = cur;
            cur = moved;
        }
        if (m < OVER_TOP) {
            t[m] = cur;
            n[key] = m + 1;
            check += (uint64_t)(cur.value + cur.ts + m); /* +I */
            rows++;
        }
    }
    bench_timer_stop(&timer, out);
    if (rows < OVER_KEYS) {
        snprintf(err, errsize, "%" PRId64 " rows out (check %" PRIu64 ")", rows, check);
        return -1;
    }
    plain_check = check; /* kept: the loop's output */
    return 0;
}

const bench_scenario bench_scenarios_over[] = {
    {
        .name = "plain-over-range",
        .what = "baseline: SUM over a 1 s RANGE per key, rows held until the watermark, plain C",
        .records = 4000000,
        .quick_records = 1000000,
        .run = run_plain_over,
        .flags = BENCH_PLAIN,
        .parallelism = 1,
    },
    {
        .name = "sql-over-range",
        .what = "SUM(value) OVER (PARTITION BY key ORDER BY ts RANGE 1 s PRECEDING) in SQL",
        .baseline = "plain-over-range",
        .records = 4000000,
        .quick_records = 1000000,
        .run = run_sql,
        .arg = 0,
        .targets = {{BENCH_TARGET_RATIO, 0.2, 1, "sql-over-range >= 20% of plain-over-range"}},
    },
    {
        .name = "plain-dedup",
        .what = "baseline: the last row per key (keep-last deduplication), plain C",
        .records = 4000000,
        .quick_records = 1000000,
        .run = run_plain_dedup,
        .flags = BENCH_PLAIN,
        .parallelism = 1,
    },
    {
        .name = "sql-dedup",
        .what = "ROW_NUMBER() OVER (PARTITION BY key ORDER BY ts DESC) = 1 in SQL: Deduplicate",
        .baseline = "plain-dedup",
        .records = 4000000,
        .quick_records = 1000000,
        .run = run_sql,
        .arg = 1,
        .targets = {{BENCH_TARGET_RATIO, 0.2, 1, "sql-dedup >= 20% of plain-dedup"}},
    },
    {
        .name = "plain-topn",
        .what = "baseline: the 3 largest values per key with their ranks' changes, plain C",
        .records = 4000000,
        .quick_records = 1000000,
        .run = run_plain_topn,
        .flags = BENCH_PLAIN,
        .parallelism = 1,
    },
    {
        .name = "sql-topn",
        .what = "ROW_NUMBER() OVER (PARTITION BY key ORDER BY value DESC) <= 3 in SQL: Rank",
        .baseline = "plain-topn",
        .records = 4000000,
        .quick_records = 1000000,
        .run = run_sql,
        .arg = 2,
        .targets = {{BENCH_TARGET_RATIO, 0.2, 1, "sql-topn >= 20% of plain-topn"}},
    },
};

const size_t bench_nscenarios_over = sizeof bench_scenarios_over / sizeof bench_scenarios_over[0];
