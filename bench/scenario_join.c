/* scenario_join.c — SQL joins (table/table_join.c) against a plain-C hash
 * join over the same records.
 *
 * The records: records / 2 a side, {k, ts, v}, made once per run from a
 * fixed seed (outside the timed interval), the left's and the right's
 * timestamps each 1 ms apart (the two sides advance together), v a random
 * number the checksum reads. Both sides are one array source, interleaved
 * as the plain join reads them (weir_source_array, contiguous slices per
 * subtask), split by a filter a side, each registered as a view of a struct-bound
 * schema with `ts` its rowtime (WATERMARK FOR ts AS ts, emitted on each row
 * that raises it: 'scan.watermark.emit.strategy' = 'on-event'), and the query runs
 * through weir_table_env_sql_query; every output row goes to a callback that
 * counts it and sums l.v * 31 + r.v, which must equal the plain join's.
 *
 *   sql-regular-join    SELECT l.v, r.v FROM l JOIN r ON l.k = r.k, keys
 *                       uniform over as many values as a side has records
 *                       (about one partner a row): the regular join keeps
 *                       every row of both sides.
 *   sql-interval-join   ... ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL
 *                       '10' MILLISECOND AND r.ts + INTERVAL '10'
 *                       MILLISECOND, 100 keys (about 0.2 partners a row):
 *                       rows kept until the watermark passes their bound.
 *   plain-hash-join     one thread, no runtime: the two sides alternately,
 *                       each record put into its side's hash table (open
 *                       addressing on k, a chain of the key's rows) and
 *                       probed against the other side's: a symmetric hash
 *                       join, as a streaming join must do. Baseline of
 *                       sql-regular-join.
 *   plain-interval-join the same with each key's rows in a FIFO per side,
 *                       rows older than the bound dropped from the front
 *                       before the probe (the sides come in time order).
 *                       Baseline of sql-interval-join.
 *   sql-window-join     the two sides each through TUMBLE(100 ms), joined ON
 *                       l.k = r.k and both windows' starts and ends (100
 *                       keys: about one partner a row in its window).
 *   plain-window-join   each side's rows of the current window in a table
 *                       by key; when the window ends, each key's left rows
 *                       meet its right rows, and the tables are emptied.
 *                       Baseline of sql-window-join.
 *   sql-temporal-join   SELECT l.v, r.v FROM l JOIN r FOR SYSTEM_TIME AS OF
 *                       l.ts ON l.k = r.k, r's primary key k (each right row
 *                       a new version of its key), 100 keys: a left row
 *                       waits for the watermark, then meets the version of
 *                       its key valid at its time.
 *   plain-temporal-join each key's latest version in a table: the right row
 *                       of a time is applied before the left one's (the
 *                       version at or below the left row's time), then the
 *                       left row looks its key up. Baseline of
 *                       sql-temporal-join.
 *   table-lookup-join   the left side alone, each row looking its k up in a
 *                       table of 100 rows {k, v} loaded whole by the join
 *                       (weir_table_lookup_join: Flink's LookupJoin with
 *                       the ALL cache; SQL's JOIN d FOR SYSTEM_TIME AS OF
 *                       l.proc over a filesystem table runs the same
 *                       operator), ON l.k = d.k: one partner a row.
 *   plain-lookup-join   the same table in an open-addressing array, looked
 *                       up by each left row. Baseline of table-lookup-join.
 *
 * The engine rows take the job's final checkpoint into a folder of their
 * own (removed after the run): its size is what the join's state holds at
 * the end (the chk column): every row of both sides for the regular join,
 * what the last watermark left for the interval join. Periodic checkpoints
 * would time the writing of a state that only grows.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define JOIN_BOUND_MS 10
#define INTERVAL_KEYS 100
#define WINDOW_MS 100

/* The join a scenario runs (its arg). */
enum { J_REGULAR, J_INTERVAL, J_WINDOW, J_TEMPORAL, J_LOOKUP };

/* The lookup join's table: row k holds {k, v = LOOKUP_V(k)}. */
#define LOOKUP_V(k) (((k) * 7919) % 1000)

typedef struct jrec {
    int64_t k, ts, v;
    int64_t side; /* the engine's one source: 0 left, 1 right */
} jrec;

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

/* The two sides of a run: n records each. */
static int make_records(int64_t records, int kind, jrec **l, jrec **r, int64_t **lt,
                        int64_t **rt, int64_t *n)
{
    *n = records / 2;
    *l = malloc((size_t)*n * sizeof **l);
    *r = malloc((size_t)*n * sizeof **r);
    *lt = malloc((size_t)*n * sizeof **lt);
    *rt = malloc((size_t)*n * sizeof **rt);
    if (!*l || !*r || !*lt || !*rt)
        return -1;
    uint64_t seed = 42;
    int64_t keys = kind == J_REGULAR ? *n : INTERVAL_KEYS;
    for (int64_t i = 0; i < *n; i++) {
        (*l)[i] = (jrec){(int64_t)(lcg(&seed) % (uint64_t)keys), 1000 + i,
                         (int64_t)(lcg(&seed) % 1000), 0};
        (*r)[i] = (jrec){(int64_t)(lcg(&seed) % (uint64_t)keys), 1000 + i,
                         (int64_t)(lcg(&seed) % 1000), 1};
        (*lt)[i] = (*l)[i].ts;
        (*rt)[i] = (*r)[i].ts;
    }
    return 0;
}

static void free_records(jrec *l, jrec *r, int64_t *lt, int64_t *rt)
{
    free(l);
    free(r);
    free(lt);
    free(rt);
}

/* ---- the plain joins ------------------------------------------------------------------- */

/* A side's table: open addressing on k, each slot the key's rows (indexes
 * into the side's array, a ring for the interval join). */
typedef struct pslot {
    int64_t k;
    int64_t *rows;
    uint32_t head, len, cap;
    bool used;
} pslot;

typedef struct ptable {
    pslot *slots;
    uint64_t mask;
} ptable;

static pslot *pt_find(ptable *t, int64_t k)
{
    uint64_t h = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    for (uint64_t i = h >> 20;; i++) {
        pslot *s = &t->slots[i & t->mask];
        if (!s->used) {
            s->used = true;
            s->k = k;
            return s;
        }
        if (s->k == k)
            return s;
    }
}

static int pt_push(pslot *s, int64_t row)
{
    if (s->len == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 4;
        int64_t *nr = malloc(cap * sizeof *nr);
        if (!nr)
            return -1;
        for (uint32_t i = 0; i < s->len; i++)
            nr[i] = s->rows[(s->head + i) % (s->cap ? s->cap : 1)];
        free(s->rows);
        s->rows = nr;
        s->head = 0;
        s->cap = cap;
    }
    s->rows[(s->head + s->len++) % s->cap] = row;
    return 0;
}

static void pt_free(ptable *t)
{
    for (uint64_t i = 0; i <= t->mask; i++)
        free(t->slots[i].rows);
    free(t->slots);
}

typedef struct jsum {
    int64_t count;
    uint64_t sum;
} jsum;

/* The window join: each side's rows of the current window by key; at the
 * window's end each key's left rows meet its right rows. */
static void window_close(ptable t[2], const jrec *side[2], jsum *acc)
{
    for (uint64_t i = 0; i <= t[0].mask; i++) {
        pslot *a = &t[0].slots[i];
        if (!a->used || !a->len)
            continue;
        pslot *b = pt_find(&t[1], a->k);
        for (uint32_t x = 0; x < a->len; x++)
            for (uint32_t y = 0; y < b->len; y++) {
                acc->count++;
                acc->sum += (uint64_t)(side[0][a->rows[x]].v * 31 + side[1][b->rows[y]].v);
            }
    }
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i <= t[s].mask; i++)
            t[s].slots[i].len = t[s].slots[i].head = 0;
}

static int plain_join(const jrec *side[2], int64_t n, int kind, jsum *out)
{
    bool interval = kind == J_INTERVAL;
    ptable t[2];
    uint64_t size = 16;
    while (size < 2 * (uint64_t)(kind == J_REGULAR ? n : INTERVAL_KEYS))
        size *= 2;
    for (int s = 0; s < 2; s++) {
        t[s].slots = calloc(size, sizeof *t[s].slots);
        t[s].mask = size - 1;
        if (!t[s].slots)
            return -1;
    }
    jsum acc = {0};
    int64_t window = n ? side[0][0].ts / WINDOW_MS : 0;
    for (int64_t i = 0; i < n; i++) {
        if (kind == J_TEMPORAL) {
            /* the version of side[1][i]'s key from its time on; then the
             * left row of that time meets its key's version */
            pslot *v = pt_find(&t[1], side[1][i].k);
            if (!v->cap && pt_push(v, i))
                return -1;
            v->rows[0] = i;
            v->len = 1;
            pslot *o = pt_find(&t[1], side[0][i].k);
            if (o->len) {
                acc.count++;
                acc.sum += (uint64_t)(side[0][i].v * 31 + side[1][o->rows[0]].v);
            }
            continue;
        }
        if (kind == J_LOOKUP) {
            /* the table in t[1] on first use (its rows' v in the row slot) */
            if (i == 0)
                for (int64_t k = 0; k < INTERVAL_KEYS; k++)
                    if (pt_push(pt_find(&t[1], k), LOOKUP_V(k)))
                        return -1;
            pslot *d = pt_find(&t[1], side[0][i].k);
            for (uint32_t j = 0; j < d->len; j++) {
                acc.count++;
                acc.sum += (uint64_t)(side[0][i].v * 31 + d->rows[j]);
            }
            continue;
        }
        if (kind == J_WINDOW) {
            if (side[0][i].ts / WINDOW_MS != window) {
                window_close(t, side, &acc);
                window = side[0][i].ts / WINDOW_MS;
            }
            for (int s = 0; s < 2; s++)
                if (pt_push(pt_find(&t[s], side[s][i].k), i))
                    return -1;
            continue;
        }
        for (int s = 0; s < 2; s++) {
            const jrec *x = &side[s][i];
            if (pt_push(pt_find(&t[s], x->k), i))
                return -1;
            pslot *o = pt_find(&t[1 - s], x->k);
            if (interval) /* the other side's rows no later row can meet */
                while (o->len && side[1 - s][o->rows[o->head]].ts < x->ts - JOIN_BOUND_MS) {
                    o->head = (o->head + 1) % o->cap;
                    o->len--;
                }
            for (uint32_t j = 0; j < o->len; j++) {
                const jrec *y = &side[1 - s][o->rows[(o->head + j) % o->cap]];
                if (interval && (y->ts < x->ts - JOIN_BOUND_MS || y->ts > x->ts + JOIN_BOUND_MS))
                    continue;
                const jrec *l = s == 0 ? x : y, *r = s == 0 ? y : x;
                acc.count++;
                acc.sum += (uint64_t)(l->v * 31 + r->v);
            }
        }
    }
    if (kind == J_WINDOW)
        window_close(t, side, &acc);
    pt_free(&t[0]);
    pt_free(&t[1]);
    *out = acc;
    return 0;
}

static int run_plain_join(const bench_scenario *sc, const bench_params *p, bench_result *out,
                          char *err, size_t errsize)
{
    int kind = (int)sc->arg;
    jrec *l, *r;
    int64_t *lt, *rt, n;
    if (make_records(p->records, kind, &l, &r, &lt, &rt, &n)) {
        free_records(l, r, lt, rt);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    const jrec *side[2] = {l, r};
    jsum s;
    bench_timer timer;
    bench_timer_start(&timer);
    int rc = plain_join(side, n, kind, &s);
    bench_timer_stop(&timer, out);
    free_records(l, r, lt, rt);
    if (rc)
        snprintf(err, errsize, "out of memory");
    return rc;
}

/* ---- the SQL joins ---------------------------------------------------------------------- */

/* The lookup join's table, loaded whole by each subtask of the join. */
static int lookup_load(void *arg, weir_lookup_row_fn fn, void *fn_arg, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    const weir_schema *s = arg;
    unsigned char row[256];
    for (int64_t k = 0; k < INTERVAL_KEYS; k++) {
        weir_row_init(s, row, WEIR_ROW_INSERT);
        weir_row_set_int(s, row, 0, k);
        weir_row_set_int(s, row, 1, LOOKUP_V(k));
        int r = fn(row, fn_arg);
        if (r)
            return r;
    }
    return 0;
}

typedef struct jacc {
    _Alignas(64) jsum s;
} jacc;

typedef struct jsink {
    const weir_schema *out;
    jacc *acc;
    int col[2]; /* the output's l.v and r.v */
} jsink;

static int join_row(const void *row, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    const jsink *js = arg;
    jsum *s = &js->acc[subtask].s;
    s->count++;
    s->sum += (uint64_t)(weir_row_get_int(js->out, row, js->col[0]) * 31 +
                         weir_row_get_int(js->out, row, js->col[1]));
    return 0;
}

static int side_is(const void *in, void *arg)
{
    return ((const jrec *)in)->side == *(const int64_t *)arg;
}

static weir_schema *jrec_schema(const char *name, bool versioned)
{
    weir_schema_builder *b = weir_schema_builder_create(name);
    weir_schema_bind_struct(b, sizeof(jrec));
    weir_type big = {.id = WEIR_TYPE_BIGINT, .not_null = true};
    weir_schema_column_at(b, "k", big, offsetof(jrec, k), 8);
    weir_schema_column_at(b, "ts", (weir_type){.id = WEIR_TYPE_TIMESTAMP, .not_null = true},
                          offsetof(jrec, ts), 8);
    weir_schema_column_at(b, "v", big, offsetof(jrec, v), 8);
    weir_schema_watermark(b, "ts", "ts");
    if (versioned) /* the temporal join's versioned side */
        weir_schema_primary_key(b, "k");
    /* a watermark after each row that raises it: the interval join's rows
     * leave as the time passes, not at the job's periodic probe, which an
     * array source outruns */
    weir_schema_watermark_emit(b, true, 0);
    weir_schema *s = NULL;
    char why[256];
    return weir_schema_build(b, &s, why, sizeof why) == 0 ? s : NULL;
}

static int run_sql_join(const bench_scenario *sc, const bench_params *p, bench_result *out,
                        char *err, size_t errsize)
{
    int kind = (int)sc->arg;
    jrec *l, *r;
    int64_t *lt, *rt, n;
    char dir[] = "/tmp/weir-bench-join-XXXXXX";
    if (make_records(p->records, kind, &l, &r, &lt, &rt, &n) || !mkdtemp(dir)) {
        free_records(l, r, lt, rt);
        snprintf(err, errsize, "out of memory, or no temporary folder");
        return -1;
    }
    weir_job_config cfg = {.workers = p->workers, .parallelism = p->parallelism,
                           .batch_capacity = p->batch, .diag = {.level = WEIR_DIAG_OFF},
                           .checkpoint = {.dir = dir}};
    weir_job *job = NULL;
    weir_table_env *env = NULL;
    jrec *both = NULL;
    int64_t *both_ts = NULL;
    static int64_t sides[2] = {0, 1};
    weir_schema *ls = jrec_schema("l", false), *rs = jrec_schema("r", kind == J_TEMPORAL);
    weir_schema *ds = NULL;
    {
        weir_schema_builder *b = weir_schema_builder_create("d");
        weir_type big = {.id = WEIR_TYPE_BIGINT, .not_null = true};
        weir_schema_column(b, "k", big);
        weir_schema_column(b, "v", big);
        char why[256];
        if (weir_schema_build(b, &ds, why, sizeof why) != 0)
            ds = NULL;
    }
    jacc *acc = aligned_alloc(64, (size_t)p->parallelism * sizeof *acc);
    int rc = -1;
    if (!ls || !rs || !ds || !acc || weir_job_create(&cfg, &job) != 0 ||
        weir_table_env_create(job, &(weir_table_config){.parallelism = p->parallelism}, &env)) {
        snprintf(err, errsize, "setting up the job failed");
        goto done;
    }
    memset(acc, 0, (size_t)p->parallelism * sizeof *acc);
    /* one source of both sides, interleaved as the plain join takes them,
     * split by a filter each: two sources would run apart by as much as
     * their channels hold, and an interval join caches what one side has
     * while the other's watermark lags */
    both = malloc(2 * (size_t)n * sizeof *both);
    both_ts = malloc(2 * (size_t)n * sizeof *both_ts);
    if (!both || !both_ts) {
        snprintf(err, errsize, "out of memory");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        both[2 * i] = l[i];
        both[2 * i + 1] = r[i];
        both[2 * i + 1].side = 1;
        both_ts[2 * i] = lt[i];
        both_ts[2 * i + 1] = rt[i];
    }
    weir_stream *src = weir_source_array(job, both, 2 * (size_t)n, sizeof *both, both_ts);
    if (kind != J_LOOKUP) { /* the lookup join reads the left's rows alone */
        weir_table_env_create_temporary_view_from_stream(
            env, "l", weir_stream_filter(src, side_is, &sides[0]), ls);
        weir_table_env_create_temporary_view_from_stream(
            env, "r", weir_stream_filter(src, side_is, &sides[1]), rs);
    }
    char q[1024];
    if (kind == J_WINDOW)
        snprintf(q, sizeof q, "SELECT L.v, R.v FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, "
                 "DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND))) L JOIN (SELECT * FROM "
                 "TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND))) R ON "
                 "L.k = R.k AND L.window_start = "
                 "R.window_start AND L.window_end = R.window_end", WINDOW_MS, WINDOW_MS);
    else if (kind == J_TEMPORAL)
        snprintf(q, sizeof q, "SELECT l.v, r.v FROM l JOIN r FOR SYSTEM_TIME AS OF l.ts ON "
                 "l.k = r.k");
    else
        snprintf(q, sizeof q, "SELECT l.v, r.v FROM l JOIN r ON l.k = r.k%s",
                 kind == J_INTERVAL ? " AND l.ts BETWEEN r.ts - INTERVAL '10' MILLISECOND AND "
                                      "r.ts + INTERVAL '10' MILLISECOND" : "");
    weir_table *t = NULL;
    static jsink js; /* one run at a time */
    js = (jsink){NULL, acc, {0, 1}};
    if (kind == J_LOOKUP) {
        /* the left's rows, each looking its key up in the table */
        weir_table *left = weir_table_from_stream(env, weir_stream_filter(src, side_is, &sides[0]),
                                                ls);
        weir_lookup_source d = {.name = "d", .schema = ds, .load = lookup_load,
                                .arg = (void *)ds};
        t = left ? weir_table_lookup_join(left, &d, WEIR_JOIN_INNER, "l.k = d.k") : NULL;
        js.col[0] = 2; /* l.k, l.ts, l.v, then d.k, d.v */
        js.col[1] = 4;
    } else {
        t = weir_table_env_sql_query(env, q);
    }
    js.out = weir_table_schema(t);
    if (!t || !weir_sink_callback(weir_table_to_stream(t), join_row, &js)) {
        snprintf(err, errsize, "planning failed: %s", weir_job_error(job));
        goto done;
    }
    if ((rc = bench_job_time(job, out, err, errsize)) != 0)
        goto done;
    weir_checkpoint_stats st;
    if (weir_job_checkpoint_stats(job, &st) == 0 && st.completed > 0) {
        out->checkpoints = st.completed - 1;
        out->chk_max_align_ms = st.max_alignment_ms;
        out->chk_bytes = st.max_bytes;
    }
    jsum got = {0}, want;
    for (int i = 0; i < p->parallelism; i++) {
        got.count += acc[i].s.count;
        got.sum += acc[i].s.sum;
    }
    const jrec *side[2] = {l, r};
    if (plain_join(side, n, kind, &want)) {
        snprintf(err, errsize, "out of memory");
        rc = -1;
    } else if (got.count != want.count || got.sum != want.sum) {
        snprintf(err, errsize, "the join emitted %" PRId64 " rows (checksum %" PRIu64 "), the "
                 "plain join %" PRId64 " (%" PRIu64 ")", got.count, got.sum, want.count,
                 want.sum);
        rc = -1;
    }
done:
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(ls);
    weir_schema_destroy(rs);
    weir_schema_destroy(ds);
    free(acc);
    free(both);
    free(both_ts);
    free_records(l, r, lt, rt);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0 && rc == 0) {
        snprintf(err, errsize, "could not remove %s", dir);
        rc = -1;
    }
    return rc;
}

const bench_scenario bench_scenarios_join[] = {
    {
        .name = "plain-hash-join",
        .what = "baseline: a symmetric hash join of two sides on k as a plain C loop, no runtime",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 1000000,
        .quick_records = 200000,
        .run = run_plain_join,
    },
    {
        .name = "sql-regular-join",
        .what = "SELECT l.v, r.v FROM l JOIN r ON l.k = r.k (about one partner a row), timed "
                "over its job",
        .baseline = "plain-hash-join",
        .records = 1000000,
        .quick_records = 200000,
        .run = run_sql_join,
    },
    {
        .name = "plain-interval-join",
        .what = "baseline: the hash join with each key's rows a FIFO cut to +-10 ms, no runtime",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 4000000,
        .quick_records = 800000,
        .arg = J_INTERVAL,
        .run = run_plain_join,
    },
    {
        .name = "sql-interval-join",
        .what = "the same ON l.k = r.k AND l.ts BETWEEN r.ts -+ 10 ms (100 keys), timed over "
                "its job",
        .baseline = "plain-interval-join",
        /* at parallelism 1: an array source's subtasks read contiguous
         * slices, times far apart, and the join's watermark (their
         * minimum) would hold nearly every row of the later slices */
        .parallelism = 1,
        .records = 4000000,
        .quick_records = 800000,
        .arg = J_INTERVAL,
        .run = run_sql_join,
        .targets = {{BENCH_TARGET_RATIO, 0.25, 1,
                     "sql-interval-join >= 25% of plain-interval-join at parallelism 1"}},
    },
    {
        .name = "plain-window-join",
        .what = "baseline: each 100 ms window's rows by key, joined when it ends, no runtime",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 4000000,
        .quick_records = 800000,
        .arg = J_WINDOW,
        .run = run_plain_join,
    },
    {
        .name = "sql-window-join",
        .what = "TUMBLE(100 ms) L JOIN TUMBLE(100 ms) R ON L.k = R.k and the windows (100 keys), "
                "timed over its job",
        .baseline = "plain-window-join",
        /* at parallelism 1: the array source's slices (sql-interval-join) */
        .parallelism = 1,
        .records = 4000000,
        .quick_records = 800000,
        .arg = J_WINDOW,
        .run = run_sql_join,
    },
    {
        .name = "plain-temporal-join",
        .what = "baseline: each key's latest version in a table, looked up by the left rows, no "
                "runtime",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 4000000,
        .quick_records = 800000,
        .arg = J_TEMPORAL,
        .run = run_plain_join,
    },
    {
        .name = "sql-temporal-join",
        .what = "l JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k (r's primary key k, 100 keys), "
                "timed over its job",
        .baseline = "plain-temporal-join",
        .parallelism = 1,
        .records = 4000000,
        .quick_records = 800000,
        .arg = J_TEMPORAL,
        .run = run_sql_join,
    },
    {
        .name = "plain-lookup-join",
        .what = "baseline: a 100-row table in an open-addressing array, looked up by each left "
                "row, no runtime",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 4000000,
        .quick_records = 800000,
        .arg = J_LOOKUP,
        .run = run_plain_join,
    },
    {
        .name = "table-lookup-join",
        .what = "the left's rows weir_table_lookup_join'ed ON l.k = d.k with a 100-row table "
                "loaded whole, timed over its job",
        .baseline = "plain-lookup-join",
        .records = 4000000,
        .quick_records = 800000,
        .arg = J_LOOKUP,
        .run = run_sql_join,
    },
};

const size_t bench_nscenarios_join = sizeof bench_scenarios_join / sizeof bench_scenarios_join[0];
