/* test_sql_filesystem_sink.c — INSERT INTO a 'filesystem' table: the
 * exactly-once file sink (weir/file_sink.h) writing JSON lines or CSV part
 * files into the table's folder, read back by the same connector as a
 * source; its rolling size, what it refuses (an updating query, rolling by
 * time, PARTITIONED BY). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weir.h"

#define MAX_ROWS 1024

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

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/weir-fs-sink-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_tree(const char *path)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    cr_assert_eq(system(cmd), 0);
}

static weir_sql_session *session(collected *c)
{
    cr_assert_eq(weir_file_register_connectors(), 0);
    weir_sql_session *s = NULL;
    weir_sql_config cfg = {.on_row = collect, .on_row_arg = c, .base_dir = dir, .workers = 1};
    cr_assert_eq(weir_sql_session_create(&cfg, &s), 0);
    return s;
}

static int run(weir_sql_session *s, const char *text)
{
    return weir_sql_execute(s, text, strlen(text));
}

/* The committed part files of a folder (names without a leading '.'). */
static int committed_files(const char *path)
{
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static int cmp_row(const void *a, const void *b)
{
    return strcmp(a, b);
}

static void round_trip(const char *format)
{
    make_dir();
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    char ddl[1024];
    snprintf(ddl, sizeof ddl,
             "CREATE TABLE out (id BIGINT, name STRING, score DOUBLE, ts TIMESTAMP(3))\n"
             "WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = '%s');\n", format);
    cr_assert_eq(run(s, ddl), 0, "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "INSERT INTO out VALUES\n"
                        "  (1, 'one', 1.5, CAST('2024-01-01 00:00:01' AS TIMESTAMP(3))),\n"
                        "  (2, 'two, with a comma', NULL, CAST('2024-01-01 00:00:02.250' AS "
                        "TIMESTAMP(3))),\n"
                        "  (3, 'say \"three\"', -0.25, NULL)"),
                 0, "%s", weir_sql_error(s));
    char path[128];
    snprintf(path, sizeof path, "%s/out", dir);
    cr_assert_geq(committed_files(path), 1);
    /* the folder read back as a source table, in a new session */
    weir_sql_session_destroy(s);
    s = session(c);
    snprintf(ddl, sizeof ddl,
             "CREATE TABLE back (id BIGINT, name STRING, score DOUBLE, ts TIMESTAMP(3))\n"
             "WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = '%s');\n"
             "SELECT * FROM back;", format);
    cr_assert_eq(run(s, ddl), 0, "%s", weir_sql_error(s));
    cr_assert_eq(c->n, 3);
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_str_eq(c->rows[0], "+I[1, one, 1.5, 2024-01-01 00:00:01.000]");
    cr_assert_str_eq(c->rows[1], "+I[2, two, with a comma, null, 2024-01-01 00:00:02.250]");
    cr_assert_str_eq(c->rows[2], "+I[3, say \"three\", -0.25, null]");
    weir_sql_session_destroy(s);
    free(c);
    remove_tree(dir);
}

Test(sql_filesystem_sink, json_lines_written_and_read_back)
{
    round_trip("json");
}

Test(sql_filesystem_sink, csv_written_and_read_back)
{
    round_trip("csv");
}

Test(sql_filesystem_sink, part_files_roll_at_the_size_given)
{
    make_dir();
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    cr_assert_eq(run(s, "CREATE TABLE gen (key BIGINT, `value` BIGINT) WITH ('connector' = "
                        "'datagen', 'number-of-rows' = '200');\n"
                        "CREATE TABLE out (key BIGINT, `value` BIGINT) WITH ('connector' = "
                        "'filesystem', 'path' = 'rolled', 'format' = 'json', "
                        "'sink.rolling-policy.file-size' = '1kb');\n"
                        "INSERT INTO out SELECT key, `value` FROM gen;\n"
                        "CREATE TABLE back (key BIGINT, `value` BIGINT) WITH ('connector' = "
                        "'filesystem', 'path' = 'rolled', 'format' = 'json');\n"
                        "SELECT COUNT(*) FROM back;"),
                 0, "%s", weir_sql_error(s));
    char path[128];
    snprintf(path, sizeof path, "%s/rolled", dir);
    /* 200 lines of some 30 bytes each, in files of about 1 KiB */
    cr_assert_geq(committed_files(path), 4, "%d files", committed_files(path));
    cr_assert_str_eq(c->rows[c->n - 1], "+U[200]");
    weir_sql_session_destroy(s);
    free(c);
    remove_tree(dir);
}

Test(sql_filesystem_sink, what_it_refuses)
{
    make_dir();
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    const char *gen = "CREATE TABLE gen (key BIGINT, `value` BIGINT) WITH ('connector' = "
                      "'datagen', 'number-of-rows' = '5');\n";
    cr_assert_eq(run(s, gen), 0, "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE out (key BIGINT, total BIGINT) WITH ('connector' = "
                        "'filesystem', 'path' = 'o', 'format' = 'json');\n"
                        "INSERT INTO out SELECT key, SUM(`value`) FROM gen GROUP BY key"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "Table sink 'out' doesn't support consuming update "
                                        "changes which is produced by node GroupAggregate"),
              "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE o2 (key BIGINT) WITH ('connector' = 'filesystem', "
                        "'path' = 'o', 'format' = 'json', "
                        "'sink.rolling-policy.rollover-interval' = '1 min')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "not supported: rolling by time"), "%s",
              weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE o3 (key BIGINT) WITH ('connector' = 'filesystem', "
                        "'path' = 'o', 'format' = 'json', "
                        "'sink.rolling-policy.file-size' = 'big')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "not a size"), "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE o4 (key BIGINT, dt STRING) PARTITIONED BY (dt) WITH "
                        "('connector' = 'filesystem', 'path' = 'o', 'format' = 'json')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "not supported: PARTITIONED BY"), "%s",
              weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE o5 (key BIGINT) PARTITIONED BY (dt) WITH "
                        "('connector' = 'blackhole')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "partition column 'dt' is not a column"), "%s",
              weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE o6 (key BIGINT) PARTITIONED BY (key) WITH "
                        "('connector' = 'blackhole')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "does not support PARTITIONED BY"), "%s",
              weir_sql_error(s));
    weir_sql_session_destroy(s);
    free(c);
    remove_tree(dir);
}
