/* scenario_sql.c — weir's SQL (weir/sql.h) against the C Table API it plans
 * onto, on the same input: what a query written in SQL costs.
 *
 *   sql-tumbling        a SQL session runs
 *                         CREATE TABLE gen (`key` BIGINT, ts TIMESTAMP(3),
 *                           WATERMARK FOR ts AS ts - INTERVAL '100' MILLISECOND)
 *                           WITH ('connector'='datagen', records / p rows in
 *                           each of p partitions, 1000 keys, 100 ms disorder,
 *                           100 000 rows/s of event time a partition, as fast
 *                           as taken);
 *                         SELECT `key`, COUNT(*) FROM TABLE(TUMBLE(TABLE gen,
 *                           DESCRIPTOR(ts), INTERVAL '1' SECOND))
 *                           GROUP BY window_start, window_end, `key`
 *                       at parallelism p, its rows to a callback that sums the
 *                       counts (they must add up to the records). Timed
 *                       from the job's start to its end (the session's
 *                       on_job hook): parsing and planning are not in it.
 *   sql-insert-blackhole  the same query as INSERT INTO a 'blackhole' table
 *                       (CREATE TABLE out (...) WITH ('connector'='blackhole'))
 *                       instead of rows to a callback: baseline sql-tumbling,
 *                       the ratio what a SQL sink costs (nothing: the
 *                       blackhole's sink discards in its operator, as the
 *                       callback sink of sql-tumbling sums). The job's
 *                       success is its check: a blackhole shows nothing.
 *   table-gen-tumbling  the same pipeline by hand: weir_source_generator
 *                       with the same config, a schema bound to its event,
 *                       the same watermark, weir_table_window_aggregate,
 *                       a callback sink of parallelism 1. Baseline of
 *                       sql-tumbling: the ratio is what SQL adds per record
 *                       (nothing, by design: the same nodes).
 *   sql-project         SELECT `key`, ts, `value` FROM gen (sql-tumbling's
 *                       table) at parallelism p, every row to a callback
 *                       that counts them (they must be the records): a
 *                       projection's cost, the baseline of
 *   sql-functions       SELECT `key`, DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss'),
 *                         REGEXP_EXTRACT(CAST(`value` AS STRING), '(\d\d)$', 1),
 *                         SPLIT_INDEX(DATE_FORMAT(ts, 'yyyy-MM-dd'), '-', 1),
 *                         CAST(`value` % 100000000 AS DECIMAL(10, 2)) * 1.075
 *                       FROM gen (the product a DECIMAL(15, 5)): what the
 *                       built-in functions cost a row
 *                       (bench/README.md), nothing else changed.
 *   sql-plan            parse + plan of a 50-line SQL file (a datagen table,
 *                       two views, a WHERE with CASE and IN, a group window
 *                       with HAVING, a window TVF, UNION ALL): a plan-only
 *                       session made, the file executed, the session
 *                       freed, once per "record". records/s is plans per
 *                       second; bench/README.md states it as a time per plan.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

#define SQL_KEYS 1000
#define SQL_RATE 100000

/* ---- sql-tumbling ------------------------------------------------------------- */

typedef struct sql_timing {
    bench_timer timer;
    bench_result *out;
    int64_t counted; /* the window counts summed */
} sql_timing;

static void on_job(weir_job *job, void *arg)
{
    sql_timing *t = arg;
    if (job) {
        t->out->workers = weir_job_get_config(job)->workers;
        bench_timer_start(&t->timer);
    } else {
        bench_timer_stop(&t->timer, t->out);
    }
}

static int count_row(const weir_schema *schema, const void *row, void *arg)
{
    ((sql_timing *)arg)->counted += weir_row_get_int(schema, row, 1);
    return 0;
}

static int check_count(int64_t counted, int64_t records, char *err, size_t errsize)
{
    if (counted == records)
        return 0;
    snprintf(err, errsize, "the windows counted %" PRId64 " records, expected %" PRId64, counted,
             records);
    return -1;
}

static int run_sql(const bench_scenario *sc, const bench_params *p, bench_result *out, char *err,
                   size_t errsize)
{
    bool insert = strcmp(sc->name, "sql-insert-blackhole") == 0;
    sql_timing t = {.out = out};
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
             "CREATE TABLE gen (`key` BIGINT, ts TIMESTAMP(3),\n"
             "  WATERMARK FOR ts AS ts - INTERVAL '100' MILLISECOND)\n"
             "WITH ('connector' = 'datagen', 'number-of-rows' = '%" PRId64 "',\n"
             "      'partitions' = '%d', 'keys' = '%d', 'disorder' = '100 ms',\n"
             "      'rows-per-second' = '%d');\n"
             "CREATE TABLE out (`key` BIGINT, n BIGINT) WITH ('connector' = 'blackhole');\n"
             "%sSELECT `key`, COUNT(*) FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts),\n"
             "  INTERVAL '1' SECOND)) GROUP BY window_start, window_end, `key`;\n",
             p->parallelism, p->records / p->parallelism, p->parallelism, SQL_KEYS, SQL_RATE,
             insert ? "INSERT INTO out " : "");
    int r = weir_sql_execute(s, text, strlen(text));
    if (r != 0)
        snprintf(err, errsize, "weir_sql_execute: %s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    if (insert)
        return r ? -1 : 0;
    return r ? -1 : check_count(t.counted, p->records / p->parallelism * p->parallelism, err,
                                errsize);
}

/* ---- sql-project, sql-functions ------------------------------------------------------- */

static int count_one(const weir_schema *schema, const void *row, void *arg)
{
    (void)schema;
    (void)row;
    ((sql_timing *)arg)->counted++;
    return 0;
}

static int run_sql_project(const bench_scenario *sc, const bench_params *p, bench_result *out,
                           char *err, size_t errsize)
{
    bool functions = strcmp(sc->name, "sql-functions") == 0;
    sql_timing t = {.out = out};
    weir_sql_config cfg = {.on_row = count_one, .on_row_arg = &t, .workers = p->workers,
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
             "  WATERMARK FOR ts AS ts - INTERVAL '100' MILLISECOND)\n"
             "WITH ('connector' = 'datagen', 'number-of-rows' = '%" PRId64 "',\n"
             "      'partitions' = '%d', 'keys' = '%d', 'disorder' = '100 ms',\n"
             "      'rows-per-second' = '%d');\n"
             "%s",
             p->parallelism, p->records / p->parallelism, p->parallelism, SQL_KEYS, SQL_RATE,
             functions ? "SELECT `key`, DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss') AS t,\n"
                         "       REGEXP_EXTRACT(CAST(`value` AS STRING), '(\\d\\d)$', 1) AS tail,\n"
                         "       SPLIT_INDEX(DATE_FORMAT(ts, 'yyyy-MM-dd'), '-', 1) AS m,\n"
                         "       CAST(`value` % 100000000 AS DECIMAL(10, 2)) * 1.075 AS price\n"
                         "FROM gen;\n"
                       : "SELECT `key`, ts, `value` FROM gen;\n");
    int r = weir_sql_execute(s, text, strlen(text));
    if (r != 0)
        snprintf(err, errsize, "weir_sql_execute: %s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    if (r)
        return -1;
    int64_t want = p->records / p->parallelism * p->parallelism;
    if (t.counted != want) {
        snprintf(err, errsize, "the query gave %" PRId64 " rows, expected %" PRId64, t.counted,
                 want);
        return -1;
    }
    return 0;
}

/* ---- table-gen-tumbling ------------------------------------------------------------ */

static int table_row(const void *row, int64_t timestamp, int subtask, void *arg)
{
    (void)timestamp;
    (void)subtask;
    const void **a = arg; /* the schema, the count */
    *(int64_t *)a[1] += weir_row_get_int(a[0], row, 1);
    return 0;
}

static weir_schema *gen_schema(char *err, size_t errsize)
{
    weir_schema_builder *b = weir_schema_builder_create("gen");
    weir_schema_bind_struct(b, sizeof(weir_gen_event));
    weir_schema_column_at(b, "key", (weir_type){.id = WEIR_TYPE_BIGINT},
                          offsetof(weir_gen_event, key), 8);
    weir_schema_column_at(b, "ts", (weir_type){.id = WEIR_TYPE_TIMESTAMP},
                          offsetof(weir_gen_event, timestamp), 8);
    weir_schema_watermark(b, "ts", "ts - INTERVAL '100' MILLISECOND");
    weir_schema *s = NULL;
    char why[256];
    if (weir_schema_build(b, &s, why, sizeof why) != 0)
        snprintf(err, errsize, "schema: %s", why);
    return s;
}

static int run_table(const bench_scenario *sc, const bench_params *p, bench_result *out,
                     char *err, size_t errsize)
{
    (void)sc;
    int64_t per = p->records / p->parallelism;
    weir_generator_config g = {
        .name = "gen",
        .partitions = p->parallelism,
        .keys = SQL_KEYS,
        .rate = SQL_RATE,
        .disorder_ms = 100,
        .count = per,
    };
    weir_schema *schema = gen_schema(err, errsize);
    weir_job *job = schema ? bench_job_create(p, 0, NULL, err, errsize) : NULL;
    weir_table_env *env = NULL;
    int64_t counted = 0;
    int r = -1;
    if (job && weir_table_env_create(job, &(weir_table_config){0}, &env) == 0) {
        weir_table *w = weir_table_window_aggregate(
            weir_table_from_stream(env, weir_source_generator(job, &g), schema),
            &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, "`key`",
            "`key`, COUNT(*)");
        const void *arg[2] = {weir_table_schema(w), &counted};
        weir_stream_set_parallelism(
            weir_sink_callback(weir_table_to_changelog_stream(w, 0), table_row, arg), 1);
        r = bench_job_time(job, out, err, errsize);
        if (r == 0)
            r = check_count(counted, per * p->parallelism, err, errsize);
    } else if (job) {
        snprintf(err, errsize, "weir_table_env_create failed");
    }
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    return r;
}

/* ---- sql-plan ------------------------------------------------------------------------ */

static const char plan_text[] =
    "-- 50 lines: what a user's query file looks like.\n"
    "SET 'parallelism.default' = '2';\n"
    "CREATE TABLE clicks (\n"
    "  `key` BIGINT,\n"
    "  `value` BIGINT,\n"
    "  partition_id INT,\n"
    "  ts TIMESTAMP(3),\n"
    "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n"
    ") WITH (\n"
    "  'connector' = 'datagen',\n"
    "  'number-of-rows' = '1000',\n"
    "  'partitions' = '2'\n"
    ");\n"
    "CREATE TEMPORARY VIEW valued AS\n"
    "SELECT `key`,\n"
    "       CASE WHEN `value` > 100 THEN `value` * 2\n"
    "            WHEN `value` > 10 THEN `value` + 5\n"
    "            ELSE 0 END AS score,\n"
    "       partition_id,\n"
    "       ts\n"
    "FROM clicks\n"
    "WHERE partition_id IN (1, 2, 3, 5, 8) AND `value` IS NOT NULL;\n"
    "CREATE TEMPORARY VIEW per_minute AS\n"
    "SELECT `key`,\n"
    "       TUMBLE_START(ts, INTERVAL '1' MINUTE) AS w_start,\n"
    "       TUMBLE_END(ts, INTERVAL '1' MINUTE) AS w_end,\n"
    "       COUNT(*) AS n,\n"
    "       SUM(score) AS total,\n"
    "       MAX(score) AS best\n"
    "FROM valued\n"
    "GROUP BY `key`, TUMBLE(ts, INTERVAL '1' MINUTE)\n"
    "HAVING COUNT(*) > 1 AND SUM(score) > 0;\n"
    "SELECT `key`, n, total, best FROM per_minute WHERE best > 10\n"
    "UNION ALL\n"
    "SELECT `key`, n, total, best\n"
    "FROM (\n"
    "  SELECT `key`, window_start, window_end,\n"
    "         COUNT(*) AS n,\n"
    "         SUM(score) AS total,\n"
    "         MIN(score) AS best\n"
    "  FROM TABLE(HOP(TABLE valued, DESCRIPTOR(ts),\n"
    "                 INTERVAL '30' SECOND, INTERVAL '2' MINUTE))\n"
    "  GROUP BY window_start, window_end, `key`\n"
    ") AS hopped\n"
    "WHERE n > 2\n"
    "  AND total <> 0\n"
    "  AND `key` % 7 <> 3\n"
    "  AND best >= 0\n"
    "  AND n < 1000000\n"
    "  AND total > -1000000;\n";

static int run_plan(const bench_scenario *sc, const bench_params *p, bench_result *out,
                    char *err, size_t errsize)
{
    (void)sc;
    bench_timer timer;
    bench_timer_start(&timer);
    for (int64_t i = 0; i < p->records; i++) {
        weir_sql_session *s;
        if (weir_sql_session_create(&(weir_sql_config){.plan_only = true}, &s) != 0) {
            snprintf(err, errsize, "out of memory");
            return -1;
        }
        int r = weir_sql_execute(s, plan_text, sizeof plan_text - 1);
        if (r != 0)
            snprintf(err, errsize, "weir_sql_execute: %s", weir_sql_error(s));
        weir_sql_session_destroy(s);
        if (r != 0)
            return -1;
    }
    bench_timer_stop(&timer, out);
    return 0;
}

const bench_scenario bench_scenarios_sql[] = {
    {
        .name = "table-gen-tumbling",
        .what = "the generator as a table, TUMBLE(1 s) COUNT(*) per key, by the C Table API",
        .baseline = NULL,
        .records = 10000000,
        .quick_records = 2000000,
        .run = run_table,
    },
    {
        .name = "sql-tumbling",
        .what = "the same as a SQL window TVF query (weir_sql_execute), timed over its job",
        .baseline = "table-gen-tumbling",
        .records = 10000000,
        .quick_records = 2000000,
        .run = run_sql,
        .targets = {{BENCH_TARGET_RATIO, 0.9, 0, "sql-tumbling >= 90% of table-gen-tumbling"}},
    },
    {
        .name = "sql-insert-blackhole",
        .what = "the same query as INSERT INTO a blackhole table, timed over its job",
        .baseline = "sql-tumbling",
        .records = 10000000,
        .quick_records = 2000000,
        .run = run_sql,
        .targets = {{BENCH_TARGET_RATIO, 0.95, 0,
                     "sql-insert-blackhole >= 95% of sql-tumbling (a sink costs nothing)"}},
    },
    {
        .name = "sql-project",
        .what = "SELECT `key`, ts, `value` FROM sql-tumbling's table, every row to a callback",
        .baseline = NULL,
        .records = 4000000,
        .quick_records = 1000000,
        .run = run_sql_project,
    },
    {
        .name = "sql-functions",
        .what = "the same with DATE_FORMAT, REGEXP_EXTRACT, SPLIT_INDEX, a DECIMAL product in the "
                "select list",
        .baseline = "sql-project",
        .records = 4000000,
        .quick_records = 1000000,
        .run = run_sql_project,
    },
    {
        .name = "sql-plan",
        .what = "parse + plan of a 50-line SQL file, plans per second (not records)",
        .baseline = NULL,
        .records = 2000,
        .quick_records = 300,
        .run = run_plan,
        .parallelism = 1,
        .flags = BENCH_NO_PLOT,
        .targets = {{BENCH_TARGET_RATE, 100, 0, "sql-plan: a plan well under 10 ms (>= 100 plans/s)"}},
    },
};

const size_t bench_nscenarios_sql = sizeof bench_scenarios_sql / sizeof bench_scenarios_sql[0];
