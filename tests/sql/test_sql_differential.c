/* test_sql_differential.c — SQL against the C Table API: the same queries
 * over the same random, out-of-order CSV files, once as `weir sql`
 * statements and once built by hand with weir/table.h and
 * weir_source_file, must print the same changelog row for row (one worker,
 * parallelism 1, the virtual clock: both runs are deterministic). It checks
 * the planner's translation — WHERE, GROUP BY with its aggregates, HOP and
 * SESSION window TVFs, a group window, on-event watermarks with lateness —
 * not the operators, which the table tests check against loops. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weir.h"

#define MAX_LINES 8192
#define LINE 160

typedef struct lines {
    char (*text)[LINE];
    int n;
} lines;

static lines *lines_new(void)
{
    lines *l = calloc(1, sizeof *l);
    l->text = calloc(MAX_LINES, LINE);
    cr_assert(l && l->text);
    return l;
}

static void lines_free(lines *l)
{
    free(l->text);
    free(l);
}

static void lines_add(lines *l, const weir_schema *schema, const void *row)
{
    cr_assert_lt(l->n, MAX_LINES);
    weir_row_format(schema, row, l->text[l->n], LINE);
    l->n++;
}

static int sql_row(const weir_schema *schema, const void *row, void *arg)
{
    lines_add(arg, schema, row);
    return 0;
}

/* What the C sink formats its rows against. */
typedef struct c_sink {
    lines *out;
    const weir_schema *schema;
} c_sink;

static int c_row(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)subtask;
    c_sink *c = arg;
    lines_add(c->out, c->schema, elem);
    return 0;
}

/* The random file: keys k0..k4, values -500..499, timestamps rising by up
 * to 120 ms with one row in 8 sent up to 400 ms back (so a watermark 100 ms
 * behind makes some rows late, and which depends on the seed). */
static void write_rows(const char *path, unsigned seed)
{
    srand(seed);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    int64_t ts = 0;
    int rows = 300 + rand() % 400;
    for (int i = 0; i < rows; i++) {
        ts += rand() % 120;
        int64_t t = rand() % 8 == 0 ? ts - rand() % 400 : ts;
        char text[64];
        weir_timestamp_format(t < 0 ? 0 : t, text, sizeof text);
        fprintf(f, "k%d,%d,%s\n", rand() % 5, rand() % 1000 - 500, text);
    }
    cr_assert_eq(fclose(f), 0);
}

static const char *ddl = "CREATE TABLE r (k VARCHAR(8), v BIGINT, ts TIMESTAMP(3),\n"
                         "  WATERMARK FOR ts AS ts - INTERVAL '100' MILLISECOND)\n"
                         "WITH ('connector'='filesystem', 'path'='rows.csv', 'format'='csv',\n"
                         "      'scan.watermark.emit.strategy'='on-event');\n";

static lines *run_sql(const char *dir, const char *query)
{
    lines *out = lines_new();
    weir_sql_config cfg = {.on_row = sql_row, .on_row_arg = out, .base_dir = dir, .workers = 1};
    weir_sql_session *s = NULL;
    cr_assert_eq(weir_file_register_connectors(), 0); /* filesystem tables */
    cr_assert_eq(weir_sql_session_create(&cfg, &s), 0);
    cr_assert_eq(weir_sql_execute(s, ddl, strlen(ddl)), 0, "%s", weir_sql_error(s));
    cr_assert_eq(weir_sql_execute(s, query, strlen(query)), 0, "%s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    return out;
}

/* The hand-built job: the source and table of `ddl`, then `build`. */
typedef weir_table *(*build_fn)(weir_table *r);

static lines *run_c(const char *path, build_fn build)
{
    weir_schema_builder *b = weir_schema_builder_create("r");
    cr_assert(b);
    cr_assert_eq(weir_schema_column_sql(b, "k", "VARCHAR(8)"), 0);
    cr_assert_eq(weir_schema_column_sql(b, "v", "BIGINT"), 0);
    cr_assert_eq(weir_schema_column_sql(b, "ts", "TIMESTAMP(3)"), 0);
    cr_assert_eq(weir_schema_watermark(b, "ts", "ts - INTERVAL '100' MILLISECOND"), 0);
    cr_assert_eq(weir_schema_watermark_emit(b, true, 0), 0);
    weir_schema *schema;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &schema, err, sizeof err), 0, "%s", err);
    weir_job *job;
    cr_assert_eq(weir_job_create(&(weir_job_config){.workers = 1, .parallelism = 1,
                                                    .clock = WEIR_CLOCK_VIRTUAL},
                                 &job),
                 0);
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){.parallelism = 1}, &env), 0);
    weir_stream *src = weir_source_file(
        job, schema, &(weir_file_source_config){.name = "r", .path = path, .format = WEIR_FILE_CSV});
    weir_table *t = build(weir_table_from_stream(env, src, schema));
    cr_assert(t, "%s", weir_job_error(job));
    lines *out = lines_new();
    c_sink sink = {.out = out, .schema = weir_table_schema(t)};
    cr_assert(weir_sink_callback(weir_table_to_changelog_stream(t, WEIR_CHANGELOG_ALL), c_row, &sink),
              "%s", weir_job_error(job));
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    return out;
}

static weir_table *group_by(weir_table *r)
{
    return weir_table_group_by(weir_table_where(r, "v > -300"), "k",
                               "k, COUNT(*) AS n, SUM(v) AS s, MIN(v) AS lo, MAX(v) AS hi");
}

static weir_table *hop(weir_table *r)
{
    weir_table_window w = {.kind = WEIR_TABLE_HOP, .slide_ms = 500, .size_ms = 1000};
    return weir_table_window_aggregate(r, &w, "k",
                                       "k, window_start, window_end, COUNT(*) AS n, SUM(v) AS s");
}

static weir_table *session(weir_table *r)
{
    weir_table_window w = {.kind = WEIR_TABLE_SESSION, .gap_ms = 300};
    return weir_table_window_aggregate(r, &w, "k", "window_start, window_end, k, COUNT(*) AS n");
}

static weir_table *tumble_all(weir_table *r)
{
    weir_table_window w = {.kind = WEIR_TABLE_TUMBLE, .size_ms = 2000};
    return weir_table_window_aggregate(r, &w, "", "window_start, MAX(v) AS hi, AVG(v) AS mean");
}

static const struct {
    const char *sql;
    build_fn build;
} cases[] = {
    {"SELECT k, COUNT(*) AS n, SUM(v) AS s, MIN(v) AS lo, MAX(v) AS hi FROM r "
     "WHERE v > -300 GROUP BY k",
     group_by},
    {"SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS s FROM TABLE(HOP(TABLE r, "
     "DESCRIPTOR(ts), INTERVAL '500' MILLISECOND, INTERVAL '1' SECOND)) "
     "GROUP BY window_start, window_end, k",
     hop},
    {"SELECT window_start, window_end, k, COUNT(*) AS n FROM TABLE(SESSION(TABLE r, "
     "DESCRIPTOR(ts), INTERVAL '300' MILLISECOND)) GROUP BY window_start, window_end, k",
     session},
    /* a group window: the older spelling of the same TUMBLE */
    {"SELECT TUMBLE_START(ts, INTERVAL '2' SECOND) AS window_start, MAX(v) AS hi, "
     "AVG(v) AS mean FROM r GROUP BY TUMBLE(ts, INTERVAL '2' SECOND)",
     tumble_all},
};

Test(sql_differential, sql_and_the_table_api_print_the_same_changelog, .timeout = 120)
{
    char dir[] = "/tmp/weir-sql-differential-XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/rows.csv", dir);
    for (unsigned seed = 1; seed <= 6; seed++) {
        write_rows(path, seed);
        for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
            lines *want = run_c(path, cases[q].build);
            lines *got = run_sql(dir, cases[q].sql);
            cr_assert_gt(want->n, 0, "seed %u, query %zu: no rows", seed, q);
            for (int i = 0; i < want->n && i < got->n; i++)
                cr_assert_str_eq(got->text[i], want->text[i], "seed %u, query %zu, row %d", seed,
                                 q, i + 1);
            cr_assert_eq(got->n, want->n, "seed %u, query %zu", seed, q);
            lines_free(want);
            lines_free(got);
        }
    }
    unlink(path);
    rmdir(dir);
}
