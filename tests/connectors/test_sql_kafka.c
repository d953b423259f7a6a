/* test_sql_kafka.c — the 'kafka' connector of SQL tables on the mock
 * cluster: JSON records read by SQL (bounded at the latest offsets), a
 * query written into another topic by INSERT INTO and read back, a window
 * over a topic's rowtime, and the options it refuses. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/kafka_testutil.h"
#include "weir.h"

#define MAX_ROWS 256

typedef struct collected {
    char rows[MAX_ROWS][128];
    int n;
} collected;

static int collect(const weir_schema *schema, const void *row, void *arg)
{
    collected *c = arg;
    cr_assert_lt(c->n, MAX_ROWS);
    weir_row_format(schema, row, c->rows[c->n++], sizeof c->rows[0]);
    return 0;
}

static weir_sql_session *session(collected *c)
{
    cr_assert_eq(weir_kafka_register_connectors(), 0);
    weir_sql_session *s = NULL;
    weir_sql_config cfg = {.on_row = collect, .on_row_arg = c, .workers = 2};
    cr_assert_eq(weir_sql_session_create(&cfg, &s), 0);
    return s;
}

static int run(weir_sql_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run(weir_sql_session *s, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return weir_sql_execute(s, text, strlen(text));
}

static void produce_orders(weir_kafka_mock *m)
{
    cr_assert_eq(weir_kafka_mock_topic(m, "orders", 2), 0);
    rd_kafka_t *p = tk_producer(m);
    static const char *const rows[] = {
        "{\"user\": \"ann\", \"amount\": 3, \"ts\": \"2024-01-01 00:00:01\"}",
        "{\"user\": \"bob\", \"amount\": 1, \"ts\": \"2024-01-01 00:00:02\"}",
        "{\"user\": \"ann\", \"amount\": 5, \"ts\": \"2024-01-01 00:00:06\"}",
        "not json at all",
        "{\"user\": \"cy\", \"amount\": 7, \"ts\": \"2024-01-01 00:00:07\"}",
        "{\"user\": \"bob\", \"amount\": 2, \"ts\": \"2024-01-01 00:00:11\"}",
    };
    for (int i = 0; i < 6; i++)
        cr_assert_eq(tk_produce(p, "orders", i % 2, rows[i], strlen(rows[i]), -1, NULL, NULL), 0);
    rd_kafka_flush(p, 10000);
    rd_kafka_destroy(p);
}

static int cmp_row(const void *a, const void *b)
{
    return strcmp(a, b);
}

#define ORDERS_DDL                                                                          \
    "CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3),\n"                   \
    "  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n"                                       \
    "WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%s',\n" \
    "      'format' = 'json', 'json.ignore-parse-errors' = 'true',\n"                          \
    "      'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');\n"

Test(sql_kafka, a_topic_into_another_by_insert_and_back)
{
    weir_kafka_mock *m = tk_mock();
    produce_orders(m);
    cr_assert_eq(weir_kafka_mock_topic(m, "big", 1), 0);
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    const char *bs = weir_kafka_mock_bootstrap(m);
    cr_assert_eq(run(s, ORDERS_DDL, bs), 0, "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE big (`user` STRING, doubled BIGINT) WITH ('connector' = "
                        "'kafka', 'topic' = 'big', 'properties.bootstrap.servers' = '%s', "
                        "'format' = 'json', 'scan.startup.mode' = 'earliest-offset', "
                        "'scan.bounded.mode' = 'latest-offset');\n"
                        "INSERT INTO big SELECT `user`, amount * 2 FROM orders WHERE amount > 1;",
                     bs),
                 0, "%s", weir_sql_error(s));
    cr_assert_eq(c->n, 0);
    cr_assert_eq(run(s, "SELECT * FROM big"), 0, "%s", weir_sql_error(s));
    cr_assert_eq(c->n, 4);
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_str_eq(c->rows[0], "+I[ann, 10]");
    cr_assert_str_eq(c->rows[1], "+I[ann, 6]");
    cr_assert_str_eq(c->rows[2], "+I[bob, 4]");
    cr_assert_str_eq(c->rows[3], "+I[cy, 14]");
    weir_sql_session_destroy(s);
    free(c);
    weir_kafka_mock_destroy(m);
}

Test(sql_kafka, a_window_over_a_topic)
{
    weir_kafka_mock *m = tk_mock();
    produce_orders(m);
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    cr_assert_eq(run(s, ORDERS_DDL, weir_kafka_mock_bootstrap(m)), 0, "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "SELECT window_start, COUNT(*) AS n, SUM(amount) AS total\n"
                        "FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND))\n"
                        "GROUP BY window_start, window_end"),
                 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 3);
    cr_assert_str_eq(c->rows[0], "+I[2024-01-01 00:00:00.000, 2, 4]");
    cr_assert_str_eq(c->rows[1], "+I[2024-01-01 00:00:05.000, 2, 12]");
    cr_assert_str_eq(c->rows[2], "+I[2024-01-01 00:00:10.000, 1, 2]");
    weir_sql_session_destroy(s);
    free(c);
    weir_kafka_mock_destroy(m);
}

Test(sql_kafka, a_bad_record_fails_the_query_without_ignore_parse_errors)
{
    weir_kafka_mock *m = tk_mock();
    produce_orders(m);
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    cr_assert_eq(run(s, "CREATE TABLE strict (`user` STRING, amount BIGINT) WITH ('connector' = "
                        "'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%s', "
                        "'format' = 'json', 'scan.startup.mode' = 'earliest-offset', "
                        "'scan.bounded.mode' = 'latest-offset');\nSELECT * FROM strict;",
                     weir_kafka_mock_bootstrap(m)),
                 WEIR_EFORMAT, "%s", weir_sql_error(s));
    cr_assert(weir_sql_error_at_run(s));
    cr_assert(strstr(weir_sql_error(s), "not JSON"), "%s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    free(c);
    weir_kafka_mock_destroy(m);
}

static void refused(weir_sql_session *s, const char *with, const char *want)
{
    int r = run(s, "CREATE TABLE t (a BIGINT) WITH ('connector' = 'kafka'%s)", with);
    cr_assert_eq(r, WEIR_EINVAL, "%s: %d", with, r);
    cr_assert(strstr(weir_sql_error(s), want), "%s: %s", with, weir_sql_error(s));
}

Test(sql_kafka, the_options_it_refuses)
{
    collected c = {0};
    weir_sql_session *s = session(&c);
    const char *bs = ", 'properties.bootstrap.servers' = 'localhost:1', 'format' = 'json'";
    char with[512];
    refused(s, ", 'properties.bootstrap.servers' = 'x', 'format' = 'json'",
            "Either 'topic' or 'topic-pattern' must be set.");
    refused(s, ", 'topic' = 't', 'format' = 'json'", "needs 'properties.bootstrap.servers'");
    /* a table without a group: written, fine; read with group-offsets, refused */
    snprintf(with, sizeof with, ", 'topic' = 't'%s", bs);
    cr_assert_eq(run(s, "CREATE TABLE nogroup (a BIGINT) WITH ('connector' = 'kafka'%s);\n"
                        "SELECT * FROM nogroup", with),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "table nogroup: 'group-offsets' (the default "
                                        "'scan.startup.mode') needs 'properties.group.id'"),
              "%s", weir_sql_error(s));
    snprintf(with, sizeof with, ", 'topic' = 't'%s, 'scan.startup.mode' = 'first'", bs);
    refused(s, with, "option 'scan.startup.mode'='first': expected 'group-offsets', "
                     "'earliest-offset', 'latest-offset' or 'timestamp'");
    snprintf(with, sizeof with, ", 'topic' = 't'%s, 'scan.startup.mode' = 'timestamp'", bs);
    refused(s, with, "goes with 'scan.startup.timestamp-millis'");
    snprintf(with, sizeof with,
             ", 'topic' = 't'%s, 'scan.startup.mode' = 'earliest-offset', "
             "'sink.delivery-guarantee' = 'exactly-once'", bs);
    refused(s, with, "'exactly-once' needs 'sink.transactional-id-prefix'");
    refused(s, ", 'topic' = 't', 'properties.bootstrap.servers' = 'x', 'format' = 'avro'",
            "not supported: the format 'avro' (weir's kafka tables are 'json' or 'csv')");
    refused(s, ", 'topic' = 't', 'properties.bootstrap.servers' = 'x', 'format' = 'csv', "
               "'csv.field-delimiter' = '::'",
            "option 'csv.field-delimiter'='::': expected one character (or '\\t')");
    refused(s, ", 'topic' = 't', 'properties.bootstrap.servers' = 'x', 'format' = 'json', "
               "'csv.field-delimiter' = ';'",
            "unknown option 'csv.field-delimiter' for connector 'kafka'");
    refused(s, ", 'topic' = 't', 'topic-pattern' = 't.*', 'properties.bootstrap.servers' = 'x', "
               "'format' = 'json'",
            "option 'topic-pattern'='t.*': Option 'topic' and 'topic-pattern' shouldn't be set "
            "together.");
    refused(s, ", 'topic-pattern' = 't(', 'properties.bootstrap.servers' = 'x', 'format' = "
               "'json'", "option 'topic-pattern'='t(': not a POSIX extended regular expression");
    refused(s, ", 'topic' = 'a;;b', 'properties.bootstrap.servers' = 'x', 'format' = 'json'",
            "option 'topic'='a;;b': a topic name of no bytes");
    snprintf(with, sizeof with, ", 'topic' = 't'%s, 'scan.startup.mode' = 'earliest-offset', "
                                "'scan.bounded' = 'yes'", bs);
    refused(s, with, "unknown option 'scan.bounded' for connector 'kafka'");
    /* properties.* pass through (and count as known) */
    snprintf(with, sizeof with, ", 'topic' = 't'%s, 'properties.group.id' = 'g', "
                                "'properties.client.id' = 'weir-test'", bs);
    cr_assert_eq(run(s, "CREATE TABLE ok (a BIGINT) WITH ('connector' = 'kafka'%s)", with), 0,
                 "%s", weir_sql_error(s));
    weir_sql_session_destroy(s);
}

/* upsert-kafka: an updating query written as upserts (+I/+U under the key,
 * -U not written) and read back as a normalized changelog; a tombstone
 * produced by hand deletes its key. */
Test(sql_kafka, upsert_kafka_round_trip)
{
    weir_kafka_mock *m = tk_mock();
    produce_orders(m);
    cr_assert_eq(weir_kafka_mock_topic(m, "totals", 1), 0);
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    const char *bs = weir_kafka_mock_bootstrap(m);
    cr_assert_eq(run(s, ORDERS_DDL, bs), 0, "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE totals (`user` STRING, total BIGINT,\n"
                        "  PRIMARY KEY (`user`) NOT ENFORCED)\n"
                        "WITH ('connector' = 'upsert-kafka', 'topic' = 'totals',\n"
                        "  'properties.bootstrap.servers' = '%s', 'key.format' = 'json',\n"
                        "  'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');\n"
                        "INSERT INTO totals SELECT `user`, SUM(amount) FROM orders "
                        "GROUP BY `user`;",
                     bs),
                 0, "%s", weir_sql_error(s));
    /* the topic holds one record per +I/+U: ann 3, ann 8 | bob 1, bob 3 | cy 7 */
    rd_kafka_t *p = tk_producer(m);
    const char *key = "{\"user\":\"cy\"}";
    rd_kafka_vu_t vu[4] = {
        {.vtype = RD_KAFKA_VTYPE_TOPIC, .u.cstr = "totals"},
        {.vtype = RD_KAFKA_VTYPE_PARTITION, .u.i32 = 0},
        {.vtype = RD_KAFKA_VTYPE_KEY, .u.mem = {.ptr = (void *)(uintptr_t)key, .size = strlen(key)}},
        {.vtype = RD_KAFKA_VTYPE_MSGFLAGS, .u.i = RD_KAFKA_MSG_F_COPY},
    };
    rd_kafka_error_t *e = rd_kafka_produceva(p, vu, 4); /* a tombstone for cy */
    cr_assert_null(e);
    rd_kafka_flush(p, 10000);
    rd_kafka_destroy(p);
    c->n = 0;
    cr_assert_eq(run(s, "SELECT * FROM totals"), 0, "%s", weir_sql_error(s));
    /* normalized: the last row per key, and cy deleted with its whole row */
    const char *want[] = {"+I[ann, 3]", "-U[ann, 3]", "+U[ann, 8]", "+I[cy, 7]", "-D[cy, 7]"};
    int at = 0;
    for (int i = 0; i < c->n && at < 5; i++)
        if (strstr(c->rows[i], "ann") || strstr(c->rows[i], "cy"))
            cr_assert_str_eq(c->rows[i], want[at++], "row %d: %s", i, c->rows[i]);
    cr_assert_eq(at, 5, "%d rows", c->n);
    bool bob = false;
    for (int i = 0; i < c->n; i++)
        bob = bob || strcmp(c->rows[i], "+U[bob, 3]") == 0;
    cr_assert(bob);
    cr_assert_eq(c->n, 8, "+I/-U/+U ann, +I/-U/+U bob, +I/-D cy");
    weir_sql_session_destroy(s);
    free(c);
    weir_kafka_mock_destroy(m);
}

Test(sql_kafka, upsert_kafka_needs_a_primary_key)
{
    collected c = {0};
    weir_sql_session *s = session(&c);
    cr_assert_eq(run(s, "CREATE TABLE u (a BIGINT) WITH ('connector' = 'upsert-kafka', "
                        "'topic' = 't', 'properties.bootstrap.servers' = 'x', "
                        "'key.format' = 'json', 'value.format' = 'json')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "'upsert-kafka' tables require to define a PRIMARY KEY"),
              "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE u (a BIGINT, PRIMARY KEY (a) NOT ENFORCED) WITH "
                        "('connector' = 'upsert-kafka', 'topic' = 't', "
                        "'properties.bootstrap.servers' = 'x', 'value.format' = 'json')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "needs 'key.format' and 'value.format'"), "%s",
              weir_sql_error(s));
    weir_sql_session_destroy(s);
}

/* The table's WATERMARK runs in the Kafka source, one generator per
 * partition, as Flink pushes it into the scan. Two partitions hold the same
 * twenty seconds of rows, one a second, each in order; one subtask reads
 * both. Per partition no row is ever behind its partition's watermark, so
 * every one-second window counts one row of each. A watermark made after
 * the source over the merged stream ('on-event': after every row that
 * raises it) would run up to the partition read first and drop the other's
 * rows as late. The plan has no WatermarkAssigner: the source shows it.
 * `columns` declare the rowtime ts (the records' field "ts", or computed
 * from their field "s", the same time as text), and `shown` is the
 * source's watermark as the plan shows it. */
static void watermark_per_partition(const char *columns, const char *shown)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "ticks", 2), 0);
    rd_kafka_t *p = tk_producer(m);
    for (int part = 0; part < 2; part++)
        for (int sec = 0; sec < 20; sec++) {
            char row[128];
            int n = snprintf(row, sizeof row, "{\"p\": %d, \"ts\": \"2024-01-01 00:00:%02d.500\", "
                             "\"s\": \"2024-01-01 00:00:%02d.500\"}", part, sec, sec);
            cr_assert_eq(tk_produce(p, "ticks", part, row, (size_t)n, -1, NULL, NULL), 0);
        }
    rd_kafka_flush(p, 10000);
    rd_kafka_destroy(p);
    collected *c = calloc(1, sizeof *c);
    cr_assert_eq(weir_kafka_register_connectors(), 0);
    char *plan = NULL;
    size_t plan_len = 0;
    FILE *out = open_memstream(&plan, &plan_len);
    cr_assert_not_null(out);
    weir_sql_session *s = NULL;
    weir_sql_config cfg = {.on_row = collect, .on_row_arg = c, .workers = 2, .out = out};
    cr_assert_eq(weir_sql_session_create(&cfg, &s), 0);
    cr_assert_eq(run(s, "CREATE TABLE ticks (%s,\n"
                        "  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n"
                        "WITH ('connector' = 'kafka', 'topic' = 'ticks',\n"
                        "  'properties.bootstrap.servers' = '%s', 'format' = 'json',\n"
                        "  'scan.startup.mode' = 'earliest-offset',\n"
                        "  'scan.bounded.mode' = 'latest-offset',\n"
                        "  'scan.watermark.emit.strategy' = 'on-event');\n"
                        "EXPLAIN SELECT * FROM ticks;",
                     columns, weir_kafka_mock_bootstrap(m)),
                 0, "%s", weir_sql_error(s));
    fflush(out);
    cr_assert(strstr(plan, shown), "%s", plan);
    cr_assert_null(strstr(plan, "WatermarkAssigner"), "%s", plan);
    cr_assert_eq(run(s, "SELECT window_start, COUNT(*) AS n, SUM(p) AS ones\n"
                        "FROM TABLE(TUMBLE(TABLE ticks, DESCRIPTOR(ts), INTERVAL '1' SECOND))\n"
                        "GROUP BY window_start, window_end"),
                 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 20, "%d windows", c->n);
    for (int sec = 0; sec < 20; sec++) {
        char want[64];
        snprintf(want, sizeof want, "+I[2024-01-01 00:00:%02d.000, 2, 1]", sec);
        cr_assert_str_eq(c->rows[sec], want);
    }
    weir_sql_session_destroy(s);
    fclose(out);
    free(plan);
    free(c);
    weir_kafka_mock_destroy(m);
}

Test(sql_kafka, the_watermark_runs_per_partition_in_the_source)
{
    watermark_per_partition("p INT, ts TIMESTAMP(3)",
                            "TableSource(ticks, watermark=[ts - INTERVAL '1' SECOND])");
}

/* A computed rowtime (ts AS TO_TIMESTAMP(s)) keeps the per-partition
 * watermark: the source runs the watermark with the column's expression in
 * place of its name, as Flink pushes a computed rowtime's watermark into
 * the scan, and the Calc behind it makes the rowtime the rows' timestamp. */
Test(sql_kafka, a_computed_rowtime_watermark_runs_per_partition_in_the_source)
{
    watermark_per_partition("p INT, s STRING, ts AS TO_TIMESTAMP(s)",
                            "TableSource(ticks, watermark=[TO_TIMESTAMP(s) - INTERVAL '1' SECOND])");
}

typedef struct until_n {
    collected c;
    int want;
    weir_sql_session *s;
} until_n;

static int collect_until(const weir_schema *schema, const void *row, void *arg)
{
    until_n *u = arg;
    collect(schema, row, &u->c);
    if (u->c.n == u->want)
        weir_sql_cancel(u->s);
    return 0;
}

/* An unbounded read of two partitions, one of them silent: per partition,
 * the silent one holds the subtask's watermark back until
 * 'scan.watermark.idle-timeout' (or, without it, SET
 * 'table.exec.source.idle-timeout') marks it idle (on the job's virtual
 * clock, which jumps while the source waits), and then the other's windows
 * fire. The query is cancelled once they have. */
static void silent_partition(bool by_set)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "quiet", 2), 0);
    rd_kafka_t *p = tk_producer(m);
    for (int sec = 0; sec < 10; sec++) {
        char row[96];
        int n = snprintf(row, sizeof row, "{\"ts\": \"2024-01-01 00:00:%02d.500\"}", sec);
        cr_assert_eq(tk_produce(p, "quiet", 0, row, (size_t)n, -1, NULL, NULL), 0);
    }
    rd_kafka_flush(p, 10000);
    rd_kafka_destroy(p);
    cr_assert_eq(weir_kafka_register_connectors(), 0);
    until_n *u = calloc(1, sizeof *u);
    u->want = 8; /* the watermark 00:00:08.500 closes [0 s, 1 s) .. [7 s, 8 s) */
    weir_sql_config cfg = {.on_row = collect_until, .on_row_arg = u, .workers = 2};
    cr_assert_eq(weir_sql_session_create(&cfg, &u->s), 0);
    int r = run(u->s, "%sCREATE TABLE quiet (ts TIMESTAMP(3),\n"
                      "  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n"
                      "WITH ('connector' = 'kafka', 'topic' = 'quiet',\n"
                      "  'properties.bootstrap.servers' = '%s', 'format' = 'json',\n"
                      "  'scan.startup.mode' = 'earliest-offset'%s);\n"
                      "SELECT window_start, COUNT(*) AS n\n"
                      "FROM TABLE(TUMBLE(TABLE quiet, DESCRIPTOR(ts), INTERVAL '1' SECOND))\n"
                      "GROUP BY window_start, window_end;",
                by_set ? "SET 'table.exec.source.idle-timeout' = '1 s';\n" : "",
                weir_kafka_mock_bootstrap(m),
                by_set ? "" : ",\n  'scan.watermark.idle-timeout' = '1 s'");
    cr_assert(r == 0 || weir_sql_error_at_run(u->s), "%d: %s", r, weir_sql_error(u->s));
    cr_assert_eq(u->c.n, 8, "%d windows", u->c.n);
    qsort(u->c.rows, (size_t)u->c.n, sizeof u->c.rows[0], cmp_row);
    cr_assert_str_eq(u->c.rows[0], "+I[2024-01-01 00:00:00.000, 1]");
    cr_assert_str_eq(u->c.rows[7], "+I[2024-01-01 00:00:07.000, 1]");
    weir_sql_session_destroy(u->s);
    free(u);
    weir_kafka_mock_destroy(m);
}

Test(sql_kafka, a_silent_partition_goes_idle_after_the_timeout, .timeout = 60)
{
    silent_partition(false);
}

Test(sql_kafka, a_silent_partition_goes_idle_after_table_exec_source_idle_timeout, .timeout = 60)
{
    silent_partition(true);
}

/* Metadata columns: a record's Kafka timestamp, partition, offset, topic and
 * timestamp type read into columns (none of them from the JSON value, which
 * holds a field named ts that is not read), the timestamp as the rowtime
 * of a window; and a column of 'timestamp' not VIRTUAL written by INSERT
 * as the records' timestamp (the value holds the physical columns only),
 * read back through the same metadata. */
Test(sql_kafka, metadata_columns_read_and_written)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "clicks", 2), 0);
    cr_assert_eq(weir_kafka_mock_topic(m, "stamped", 1), 0);
    rd_kafka_t *p = tk_producer(m);
    const char *v = "{\"v\": 7, \"ts\": \"1999-01-01 00:00:00\"}";
    cr_assert_eq(tk_produce(p, "clicks", 1, v, strlen(v), 1704067201000, NULL, NULL), 0);
    cr_assert_eq(tk_produce(p, "clicks", 1, v, strlen(v), 1704067202500, NULL, NULL), 0);
    cr_assert_eq(tk_produce(p, "clicks", 0, v, strlen(v), 1704067206000, NULL, NULL), 0);
    rd_kafka_flush(p, 10000);
    rd_kafka_destroy(p);
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    const char *bs = weir_kafka_mock_bootstrap(m);
    cr_assert_eq(run(s, "CREATE TABLE clicks (v BIGINT,\n"
                        "  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',\n"
                        "  p INT METADATA FROM 'partition' VIRTUAL,\n"
                        "  `offset` BIGINT METADATA VIRTUAL,\n"
                        "  topic STRING METADATA VIRTUAL,\n"
                        "  tt STRING METADATA FROM 'timestamp-type' VIRTUAL,\n"
                        "  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n"
                        "WITH ('connector' = 'kafka', 'topic' = 'clicks',\n"
                        "  'properties.bootstrap.servers' = '%s', 'format' = 'json',\n"
                        "  'scan.startup.mode' = 'earliest-offset',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "SELECT * FROM clicks;",
                     bs),
                 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 3);
    cr_assert_str_eq(c->rows[0], "+I[7, 2024-01-01 00:00:01.000, 1, 0, clicks, CreateTime]");
    cr_assert_str_eq(c->rows[1], "+I[7, 2024-01-01 00:00:02.500, 1, 1, clicks, CreateTime]");
    cr_assert_str_eq(c->rows[2], "+I[7, 2024-01-01 00:00:06.000, 0, 0, clicks, CreateTime]");
    c->n = 0;
    cr_assert_eq(run(s, "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, "
                        "DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end"),
                 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 2);
    cr_assert_str_eq(c->rows[0], "+I[2024-01-01 00:00:00.000, 2]");
    cr_assert_str_eq(c->rows[1], "+I[2024-01-01 00:00:05.000, 1]");
    /* written: the query gives v and ts (the VIRTUAL partition is not
     * written), ts becomes each record's timestamp */
    cr_assert_eq(run(s, "CREATE TABLE stamped (v BIGINT,\n"
                        "  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',\n"
                        "  p INT METADATA FROM 'partition' VIRTUAL)\n"
                        "WITH ('connector' = 'kafka', 'topic' = 'stamped',\n"
                        "  'properties.bootstrap.servers' = '%s', 'format' = 'json',\n"
                        "  'scan.startup.mode' = 'earliest-offset',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "CREATE TABLE stamped_value (v BIGINT, ts TIMESTAMP_LTZ(3))\n"
                        "WITH ('connector' = 'kafka', 'topic' = 'stamped',\n"
                        "  'properties.bootstrap.servers' = '%s', 'format' = 'json',\n"
                        "  'scan.startup.mode' = 'earliest-offset',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "INSERT INTO stamped SELECT v + `offset`, ts + INTERVAL '1' HOUR FROM "
                        "clicks WHERE p = 1;",
                     bs, bs),
                 0, "%s", weir_sql_error(s));
    c->n = 0;
    cr_assert_eq(run(s, "SELECT * FROM stamped"), 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 2);
    cr_assert_str_eq(c->rows[0], "+I[7, 2024-01-01 01:00:01.000, 0]");
    cr_assert_str_eq(c->rows[1], "+I[8, 2024-01-01 01:00:02.500, 0]");
    c->n = 0;
    cr_assert_eq(run(s, "SELECT * FROM stamped_value"), 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 2);
    cr_assert_str_eq(c->rows[0], "+I[7, null]", "the value holds v only");
    weir_sql_session_destroy(s);
    free(c);
    weir_kafka_mock_destroy(m);
}

/* 'format' = 'csv': values as Flink's csv format writes them (RFC 4180, no
 * line end, a delimiter of the table's), read by position; a record that is
 * not a row fails the query at its topic, partition and offset, or is
 * skipped with 'csv.ignore-parse-errors'. upsert-kafka takes csv for its key
 * and value too ('key.csv.*', 'value.csv.*'). */
Test(sql_kafka, csv_values_and_keys)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "lines", 1), 0);
    cr_assert_eq(weir_kafka_mock_topic(m, "copied", 1), 0);
    cr_assert_eq(weir_kafka_mock_topic(m, "sums", 1), 0);
    rd_kafka_t *p = tk_producer(m);
    static const char *const lines[] = {"ann;3;2024-01-01 00:00:01", "\"b;ob\";;2024-01-01 00:00:02",
                                        "ann;x;2024-01-01 00:00:03", "cy;7;2024-01-01 00:00:04\n"};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(tk_produce(p, "lines", 0, lines[i], strlen(lines[i]), -1, NULL, NULL), 0);
    rd_kafka_flush(p, 10000);
    rd_kafka_destroy(p);
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    const char *bs = weir_kafka_mock_bootstrap(m);
    cr_assert_eq(run(s, "CREATE TABLE lines (`user` STRING, amount BIGINT, ts TIMESTAMP(3))\n"
                        "WITH ('connector' = 'kafka', 'topic' = 'lines',\n"
                        "  'properties.bootstrap.servers' = '%s', 'format' = 'csv',\n"
                        "  'csv.field-delimiter' = ';', 'csv.ignore-parse-errors' = 'true',\n"
                        "  'scan.startup.mode' = 'earliest-offset',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "SELECT * FROM lines;",
                     bs),
                 0, "%s", weir_sql_error(s));
    cr_assert_eq(c->n, 3, "the line with 'x' for a BIGINT is skipped");
    cr_assert_str_eq(c->rows[0], "+I[ann, 3, 2024-01-01 00:00:01.000]");
    cr_assert_str_eq(c->rows[1], "+I[b;ob, null, 2024-01-01 00:00:02.000]");
    cr_assert_str_eq(c->rows[2], "+I[cy, 7, 2024-01-01 00:00:04.000]");
    /* written as csv (value.format, its options under 'value.'), read back */
    cr_assert_eq(run(s, "CREATE TABLE copied (`user` STRING, amount BIGINT)\n"
                        "WITH ('connector' = 'kafka', 'topic' = 'copied',\n"
                        "  'properties.bootstrap.servers' = '%s', 'value.format' = 'csv',\n"
                        "  'value.csv.field-delimiter' = '|',\n"
                        "  'scan.startup.mode' = 'earliest-offset',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "INSERT INTO copied SELECT `user`, amount FROM lines;\n"
                        "CREATE TABLE sums (`user` STRING, total BIGINT,\n"
                        "  PRIMARY KEY (`user`) NOT ENFORCED)\n"
                        "WITH ('connector' = 'upsert-kafka', 'topic' = 'sums',\n"
                        "  'properties.bootstrap.servers' = '%s', 'key.format' = 'csv',\n"
                        "  'value.format' = 'csv', 'value.csv.field-delimiter' = '\\t',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "INSERT INTO sums SELECT `user`, SUM(amount) FROM lines GROUP BY `user`;",
                     bs, bs),
                 0, "%s", weir_sql_error(s));
    c->n = 0;
    cr_assert_eq(run(s, "SELECT * FROM copied"), 0, "%s", weir_sql_error(s));
    cr_assert_eq(c->n, 3);
    cr_assert_str_eq(c->rows[1], "+I[b;ob, null]");
    c->n = 0;
    cr_assert_eq(run(s, "SELECT * FROM sums"), 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 3, "%d", c->n);
    cr_assert_str_eq(c->rows[0], "+I[ann, 3]");
    cr_assert_str_eq(c->rows[1], "+I[b;ob, null]");
    cr_assert_str_eq(c->rows[2], "+I[cy, 7]");
    /* the records themselves: Flink's csv text, no line end */
    rd_kafka_t *k = tk_consumer_at(m, "copied", 0);
    char key[64], value[64];
    static const char *const copied[] = {"ann|3", "b;ob|", "cy|7"};
    for (int i = 0; i < 3; i++) {
        tk_consume(k, key, sizeof key, value, sizeof value);
        cr_assert_str_eq(key, "");
        cr_assert_str_eq(value, copied[i]);
    }
    rd_kafka_destroy(k);
    k = tk_consumer_at(m, "sums", 0);
    tk_consume(k, key, sizeof key, value, sizeof value);
    cr_assert_str_eq(key, "ann");
    cr_assert_str_eq(value, "ann\t3");
    tk_consume(k, key, sizeof key, value, sizeof value);
    cr_assert_str_eq(key, "b;ob", "not quoted: the key's delimiter is ','");
    cr_assert_str_eq(value, "b;ob\t", "an empty field: NULL");
    rd_kafka_destroy(k);
    /* without ignore-parse-errors the bad line fails the query where it is */
    cr_assert_eq(run(s, "CREATE TABLE strict_lines (`user` STRING, amount BIGINT, "
                        "ts TIMESTAMP(3)) WITH ('connector' = 'kafka', 'topic' = 'lines', "
                        "'properties.bootstrap.servers' = '%s', 'format' = 'csv', "
                        "'csv.field-delimiter' = ';', 'scan.startup.mode' = 'earliest-offset', "
                        "'scan.bounded.mode' = 'latest-offset');\nSELECT * FROM strict_lines;",
                     bs),
                 WEIR_EFORMAT);
    cr_assert(strstr(weir_sql_error(s), "kafka lines-0 offset 2: 'x' is not a BIGINT (column "
                                        "'amount')"),
              "%s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    free(c);
    weir_kafka_mock_destroy(m);
}

typedef struct discovering {
    collected c;
    weir_kafka_mock *m;
    weir_sql_session *s;
    bool produced;
} discovering;

/* The first row read makes a topic the pattern matches, with a row in it;
 * the row from the new topic ends the query. */
static int on_discovered(const weir_schema *schema, const void *row, void *arg)
{
    discovering *d = arg;
    collect(schema, row, &d->c);
    if (!d->produced) {
        d->produced = true;
        cr_assert_eq(weir_kafka_mock_topic(d->m, "ticks-late", 1), 0);
        rd_kafka_t *p = tk_producer(d->m);
        const char *v = "{\"n\": 3}";
        cr_assert_eq(tk_produce(p, "ticks-late", 0, v, strlen(v), -1, NULL, NULL), 0);
        rd_kafka_flush(p, 10000);
        rd_kafka_destroy(p);
    }
    if (strcmp(d->c.rows[d->c.n - 1], "+I[3, ticks-late]") == 0)
        weir_sql_cancel(d->s);
    return 0;
}

/* 'topic-pattern' reads every topic whose whole name matches (POSIX
 * extended), 'topic' a list 'a;b'; an unbounded read finds a topic made
 * while it runs; a sink is one topic (Flink's message). */
Test(sql_kafka, topic_lists_and_patterns, .timeout = 60)
{
    weir_kafka_mock *m = tk_mock();
    static const char *const topics[] = {"ticks-a", "ticks-b", "other", "xticks-a"};
    rd_kafka_t *p = tk_producer(m);
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(weir_kafka_mock_topic(m, topics[i], 1), 0);
        char v[32];
        int n = snprintf(v, sizeof v, "{\"n\": %d}", i);
        cr_assert_eq(tk_produce(p, topics[i], 0, v, (size_t)n, -1, NULL, NULL), 0);
    }
    rd_kafka_flush(p, 10000);
    rd_kafka_destroy(p);
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    const char *bs = weir_kafka_mock_bootstrap(m);
    cr_assert_eq(run(s, "CREATE TABLE by_pattern (n INT, topic STRING METADATA VIRTUAL)\n"
                        "WITH ('connector' = 'kafka', 'topic-pattern' = 'ticks-[a-z]+',\n"
                        "  'properties.bootstrap.servers' = '%s', 'format' = 'json',\n"
                        "  'scan.startup.mode' = 'earliest-offset',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "CREATE TABLE by_list (n INT, topic STRING METADATA VIRTUAL)\n"
                        "WITH ('connector' = 'kafka', 'topic' = 'ticks-a; other',\n"
                        "  'properties.bootstrap.servers' = '%s', 'format' = 'json',\n"
                        "  'scan.startup.mode' = 'earliest-offset',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "SELECT * FROM by_pattern;",
                     bs, bs),
                 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 2, "%d", c->n);
    cr_assert_str_eq(c->rows[0], "+I[0, ticks-a]");
    cr_assert_str_eq(c->rows[1], "+I[1, ticks-b]");
    c->n = 0;
    cr_assert_eq(run(s, "SELECT * FROM by_list"), 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 2, "%d", c->n);
    cr_assert_str_eq(c->rows[0], "+I[0, ticks-a]");
    cr_assert_str_eq(c->rows[1], "+I[2, other]");
    cr_assert_eq(run(s, "INSERT INTO by_list SELECT n FROM by_pattern"), WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "Flink Kafka sink currently only supports single topic, "
                                        "but got 'topic': ticks-a; other."),
              "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "INSERT INTO by_pattern SELECT n FROM by_list"), WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "but got 'topic-pattern': ticks-[a-z]+."), "%s",
              weir_sql_error(s));
    weir_sql_session_destroy(s);
    free(c);
    /* unbounded: a topic that appears is found and read from its start */
    discovering *d = calloc(1, sizeof *d);
    d->m = m;
    weir_sql_config cfg = {.on_row = on_discovered, .on_row_arg = d, .workers = 2};
    cr_assert_eq(weir_sql_session_create(&cfg, &d->s), 0);
    int r = run(d->s, "CREATE TABLE growing (n INT, topic STRING METADATA VIRTUAL)\n"
                      "WITH ('connector' = 'kafka', 'topic-pattern' = 'ticks-.*',\n"
                      "  'properties.bootstrap.servers' = '%s', 'format' = 'json',\n"
                      "  'scan.startup.mode' = 'earliest-offset',\n"
                      "  'scan.topic-partition-discovery.interval' = '100 ms');\n"
                      "SELECT * FROM growing;",
                bs);
    cr_assert(r == 0 || weir_sql_error_at_run(d->s), "%d: %s", r, weir_sql_error(d->s));
    qsort(d->c.rows, (size_t)d->c.n, sizeof d->c.rows[0], cmp_row);
    cr_assert_eq(d->c.n, 3, "%d", d->c.n);
    cr_assert_str_eq(d->c.rows[2], "+I[3, ticks-late]");
    weir_sql_session_destroy(d->s);
    free(d);
    weir_kafka_mock_destroy(m);
}

/* 'key.fields' with 'key.format': the record's key holds those columns; the
 * value holds every physical column ('value.fields-include' = 'ALL') or the
 * others ('EXCEPT_KEY': then the key's columns are read from the record's
 * key, NULL for a record without one). upsert-kafka takes EXCEPT_KEY too. */
Test(sql_kafka, key_fields_and_value_fields_include)
{
    weir_kafka_mock *m = tk_mock();
    produce_orders(m);
    cr_assert_eq(weir_kafka_mock_topic(m, "keyed", 1), 0);
    cr_assert_eq(weir_kafka_mock_topic(m, "keyed_all", 1), 0);
    cr_assert_eq(weir_kafka_mock_topic(m, "latest", 1), 0);
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    const char *bs = weir_kafka_mock_bootstrap(m);
    cr_assert_eq(run(s, ORDERS_DDL, bs), 0, "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE keyed (amount BIGINT, `user` STRING)\n"
                        "WITH ('connector' = 'kafka', 'topic' = 'keyed',\n"
                        "  'properties.bootstrap.servers' = '%s',\n"
                        "  'key.format' = 'csv', 'key.fields' = 'user',\n"
                        "  'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY',\n"
                        "  'scan.startup.mode' = 'earliest-offset',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "CREATE TABLE keyed_all (`user` STRING, amount BIGINT)\n"
                        "WITH ('connector' = 'kafka', 'topic' = 'keyed_all',\n"
                        "  'properties.bootstrap.servers' = '%s',\n"
                        "  'key.format' = 'json', 'key.fields' = 'user',\n"
                        "  'value.format' = 'json',\n"
                        "  'scan.startup.mode' = 'earliest-offset',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "CREATE TABLE latest (`user` STRING, amount BIGINT,\n"
                        "  PRIMARY KEY (`user`) NOT ENFORCED)\n"
                        "WITH ('connector' = 'upsert-kafka', 'topic' = 'latest',\n"
                        "  'properties.bootstrap.servers' = '%s', 'key.format' = 'json',\n"
                        "  'value.format' = 'csv', 'value.fields-include' = 'EXCEPT_KEY',\n"
                        "  'scan.bounded.mode' = 'latest-offset');\n"
                        "EXECUTE STATEMENT SET BEGIN\n"
                        "INSERT INTO keyed SELECT amount, `user` FROM orders WHERE `user` <> 'bob';\n"
                        "INSERT INTO keyed_all SELECT `user`, amount FROM orders WHERE amount > 4;\n"
                        "INSERT INTO latest SELECT `user`, MAX(amount) FROM orders GROUP BY `user`;\n"
                        "END;",
                     bs, bs, bs),
                 0, "%s", weir_sql_error(s));
    /* the records: keys and values as the formats write them */
    char key[64], value[64];
    rd_kafka_t *k = tk_consumer_at(m, "keyed", 0);
    tk_consume(k, key, sizeof key, value, sizeof value);
    cr_assert_str_eq(key, "ann");
    cr_assert_str_eq(value, "{\"amount\":3}");
    rd_kafka_destroy(k);
    k = tk_consumer_at(m, "keyed_all", 0);
    tk_consume(k, key, sizeof key, value, sizeof value);
    cr_assert_str_eq(key, "{\"user\":\"ann\"}");
    cr_assert_str_eq(value, "{\"user\":\"ann\",\"amount\":5}");
    rd_kafka_destroy(k);
    k = tk_consumer_at(m, "latest", 0);
    tk_consume(k, key, sizeof key, value, sizeof value);
    cr_assert(strcmp(key, "{\"user\":\"ann\"}") == 0 || strcmp(key, "{\"user\":\"bob\"}") == 0 ||
                  strcmp(key, "{\"user\":\"cy\"}") == 0,
              "%s", key);
    cr_assert(strchr(value, ',') == NULL, "the value is the amount alone: %s", value);
    rd_kafka_destroy(k);
    /* a record of 'keyed' without a key: its key columns are NULL */
    rd_kafka_t *p = tk_producer(m);
    cr_assert_eq(tk_produce(p, "keyed", 0, "{\"amount\": 9}", 13, -1, NULL, NULL), 0);
    rd_kafka_flush(p, 10000);
    rd_kafka_destroy(p);
    /* read back: the key's columns from the key */
    c->n = 0;
    cr_assert_eq(run(s, "SELECT * FROM keyed"), 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 4, "%d", c->n);
    cr_assert_str_eq(c->rows[0], "+I[3, ann]");
    cr_assert_str_eq(c->rows[1], "+I[5, ann]");
    cr_assert_str_eq(c->rows[2], "+I[7, cy]");
    cr_assert_str_eq(c->rows[3], "+I[9, null]");
    c->n = 0;
    cr_assert_eq(run(s, "SELECT * FROM keyed_all"), 0, "%s", weir_sql_error(s));
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_eq(c->n, 2, "%d", c->n);
    cr_assert_str_eq(c->rows[0], "+I[ann, 5]");
    cr_assert_str_eq(c->rows[1], "+I[cy, 7]");
    c->n = 0;
    cr_assert_eq(run(s, "SELECT `user`, amount FROM latest"), 0, "%s", weir_sql_error(s));
    bool ann = false, bob = false, cy = false;
    for (int i = 0; i < c->n; i++) {
        ann = ann || strcmp(c->rows[i], "+U[ann, 5]") == 0;
        bob = bob || strcmp(c->rows[i], "+U[bob, 2]") == 0;
        cy = cy || strcmp(c->rows[i], "+I[cy, 7]") == 0;
    }
    cr_assert(ann && bob && cy, "%d rows, first %s", c->n, c->rows[0]);
    weir_sql_session_destroy(s);
    free(c);
    weir_kafka_mock_destroy(m);
}
