/* sql.c — Flink SQL from C (weir/sql.h): a session keeps the tables and
 * views made by one call for the next, each SELECT runs as one job, and its
 * rows come to a callback with their schema and kind.
 *
 * Concept: the same idle-partition experiment as idle_partitions.c, said in
 * SQL. A datagen table with 2 partitions, partition 1 silent from event time
 * 1 s on; a view of one-second tumbling window counts per partition; run
 * twice, without and with 'scan.watermark.idle-timeout'. The rows are the
 * same both times (the data decide them); when they came is in each query's
 * capture: `weir capture summary sql-without-idleness.jsonl` shows the
 * window operator's watermark held by the silent partition's channel until
 * the end of the input, the with-idleness capture a stall of about the
 * timeout. EXPLAIN CHANGELOG_MODE prints the plan: an insert-only window
 * aggregate.
 *
 * Run: ./build/release/examples/sql   (writes sql-without-idleness.jsonl and
 * sql-with-idleness.jsonl, the captures of the two queries, for the viewer)
 */
#include <stdio.h>
#include <string.h>

#include <weir.h>

typedef struct arrivals {
    int rows;
    char text[16][128];
} arrivals;

static int note_row(const weir_schema *schema, const void *row, void *arg)
{
    arrivals *a = arg;
    if (a->rows < 16)
        weir_row_format(schema, row, a->text[a->rows], sizeof a->text[a->rows]);
    a->rows++;
    return 0;
}

static int run(weir_sql_session *s, const char *text)
{
    int r = weir_sql_execute(s, text, strlen(text));
    if (r)
        fprintf(stderr, "sql: %s\n", weir_sql_error(s));
    return r;
}

#define TABLE_TEXT \
    "CREATE TABLE clicks_%s (\n" \
    "  `key` BIGINT, ts TIMESTAMP(3), partition_id INT,\n" \
    "  WATERMARK FOR ts AS ts - INTERVAL '100' MILLISECOND\n" \
    ") WITH ('connector' = 'datagen', 'partitions' = '2', 'keys' = '3',\n" \
    "        'rows-per-second' = '10', 'duration' = '5 s', 'pace' = 'paced',\n" \
    "        'idle-partitions' = '1@1 s-'%s);\n" \
    "CREATE VIEW counts_%s AS\n" \
    "  SELECT window_end, partition_id, COUNT(*) AS n\n" \
    "  FROM TABLE(TUMBLE(TABLE clicks_%s, DESCRIPTOR(ts), INTERVAL '1' SECOND))\n" \
    "  GROUP BY window_start, window_end, partition_id;\n"

int main(void)
{
    static const char *const names[] = {"without", "with"};
    static const char *const idle[] = {"", ", 'scan.watermark.idle-timeout' = '300 ms'"};
    for (int i = 0; i < 2; i++) {
        arrivals a = {0};
        char capture[64];
        snprintf(capture, sizeof capture, "sql-%s-idleness.jsonl", names[i]);
        weir_sql_config cfg = {.on_row = note_row, .on_row_arg = &a, .workers = 1,
                               .capture_path = capture};
        weir_sql_session *s;
        if (weir_sql_session_create(&cfg, &s))
            return 1;
        char text[2048];
        snprintf(text, sizeof text, TABLE_TEXT, names[i], idle[i], names[i], names[i]);
        char query[128];
        snprintf(query, sizeof query, "SELECT * FROM counts_%s", names[i]);
        if (run(s, text) || run(s, "SET 'parallelism.default' = '2'") || run(s, query)) {
            weir_sql_session_destroy(s);
            return 1;
        }
        printf("%s idleness: %d window rows (capture %s)\n", names[i], a.rows, capture);
        for (int k = 0; k < a.rows && k < 16; k++)
            printf("  %s\n", a.text[k]);
        if (i == 1) {
            /* the plan, printed by the session itself */
            weir_sql_session_destroy(s);
            weir_sql_config plain = {.workers = 1};
            if (weir_sql_session_create(&plain, &s))
                return 1;
            if (run(s, text) || run(s, "EXPLAIN CHANGELOG_MODE SELECT * FROM counts_with")) {
                weir_sql_session_destroy(s);
                return 1;
            }
        }
        weir_sql_session_destroy(s);
    }
    return 0;
}
