/* test_sql_filesystem_sink.c — INSERT INTO a 'filesystem' table: the
 * exactly-once file sink (weir/file_sink.h) writing JSON lines or CSV part
 * files into the table's folder, read back by the same connector as a
 * source; its rolling size; PARTITIONED BY (Flink's folders, escaped
 * values, the default partition, the files without the partition columns,
 * read back typed; success files; rows shuffled to one writer a
 * partition); what it refuses (an updating query, rolling by time, the
 * partition options weir does not have). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <sys/stat.h>
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

/* 'csv.field-delimiter' is the sink's too: what it writes reads back. */
Test(sql_filesystem_sink, csv_written_with_the_tables_delimiter)
{
    make_dir();
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    cr_assert_eq(run(s, "CREATE TABLE out (id BIGINT, name STRING) WITH ('connector' = "
                        "'filesystem', 'path' = 'semi', 'format' = 'csv', "
                        "'csv.field-delimiter' = ';');\n"
                        "INSERT INTO out VALUES (1, 'a,b'), (2, 'c;d');\n"
                        "SELECT * FROM out;"),
                 0, "%s", weir_sql_error(s));
    cr_assert_eq(c->n, 2);
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_str_eq(c->rows[0], "+I[1, a,b]");
    cr_assert_str_eq(c->rows[1], "+I[2, c;d]");
    weir_sql_session_destroy(s);
    free(c);
    remove_tree(dir);
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
    cr_assert_eq(run(s, "CREATE TABLE o5 (key BIGINT) PARTITIONED BY (dt) WITH "
                        "('connector' = 'blackhole')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "Partition column 'dt' not defined in the table schema. "
                                        "Available columns: ['key']"),
              "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE o6 (key BIGINT) PARTITIONED BY (key) WITH "
                        "('connector' = 'blackhole')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "does not support PARTITIONED BY"), "%s",
              weir_sql_error(s));
    weir_sql_session_destroy(s);
    free(c);
    remove_tree(dir);
}

/* ---- PARTITIONED BY ---------------------------------------------------------------- */

static bool exists(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return access(path, F_OK) == 0;
}

/* The one committed part in dir/rel (a partition's folder), read whole. */
static char *only_part(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "no folder %s", rel);
    char *text = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "part-", 5) != 0)
            continue;
        cr_assert_null(text, "more than one part in %s", rel);
        char file[1024];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        FILE *f = fopen(file, "r");
        cr_assert_not_null(f);
        text = calloc(1, 4096);
        size_t n = fread(text, 1, 4095, f);
        text[n] = '\0';
        fclose(f);
    }
    closedir(d);
    cr_assert_not_null(text, "no part in %s", rel);
    return text;
}

static void partitioned_round_trip(const char *format)
{
    make_dir();
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    char ddl[1024];
    static const char cols[] = "(id BIGINT, name STRING, dt STRING, h INT, ok BOOLEAN, x DOUBLE, "
                               "ts TIMESTAMP(3))";
    snprintf(ddl, sizeof ddl,
             "CREATE TABLE out %s PARTITIONED BY (dt, h, ok, x, ts)\n"
             "WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = '%s');\n", cols,
             format);
    cr_assert_eq(run(s, ddl), 0, "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "INSERT INTO out VALUES\n"
                        "  (1, 'one', '2024-01-01', 3, true, 1.5, "
                        "CAST('2024-01-01 10:00:00' AS TIMESTAMP(3))),\n"
                        "  (2, 'a, \"b\"', 'a/b:c=d%e?#*[x]^{y}''z\\ f', NULL, false, 1e10, "
                        "CAST('2024-01-01 10:00:01.500' AS TIMESTAMP(3))),\n"
                        "  (3, NULL, NULL, -4, NULL, -0.001, NULL),\n"
                        "  (4, 'four', '', 5, true, 100.0, "
                        "CAST('2024-01-01 10:00:07' AS TIMESTAMP(3))),\n"
                        "  (5, 'five', '2024-01-01', 3, true, 1.5, "
                        "CAST('2024-01-01 10:00:00' AS TIMESTAMP(3)))"),
                 0, "%s", weir_sql_error(s));
    /* Flink's folders: values escaped as PartitionPathUtils does (space
     * and UTF-8 stay), Java's text of a value, NULL and '' the default */
    cr_assert(exists("out/dt=2024-01-01/h=3/ok=true/x=1.5/ts=2024-01-01T10%3A00"));
    cr_assert(exists("out/dt=a%2Fb%3Ac%3Dd%25e%3F%23%2A%5Bx%5D%5E%7By}%27z%5C f/"
                     "h=__DEFAULT_PARTITION__/ok=false/x=1.0E10/"
                     "ts=2024-01-01T10%3A00%3A01.500"));
    cr_assert(exists("out/dt=__DEFAULT_PARTITION__/h=-4/ok=__DEFAULT_PARTITION__/x=-0.001/"
                     "ts=__DEFAULT_PARTITION__"));
    cr_assert(exists("out/dt=__DEFAULT_PARTITION__/h=5/ok=true/x=100.0/"
                     "ts=2024-01-01T10%3A00%3A07"));
    /* the files hold the other columns only; one partition's rows in one part */
    char *part = only_part("out/dt=2024-01-01/h=3/ok=true/x=1.5/ts=2024-01-01T10%3A00");
    cr_assert_str_eq(part, strcmp(format, "json") == 0
                               ? "{\"id\":1,\"name\":\"one\"}\n{\"id\":5,\"name\":\"five\"}\n"
                               : "1,one\n5,five\n");
    free(part);
    /* read back in a new session: the same rows ('' is NULL, as in Flink) */
    weir_sql_session_destroy(s);
    s = session(c);
    snprintf(ddl, sizeof ddl,
             "CREATE TABLE back %s PARTITIONED BY (dt, h, ok, x, ts)\n"
             "WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = '%s');\n"
             "SELECT * FROM back;", cols, format);
    cr_assert_eq(run(s, ddl), 0, "%s", weir_sql_error(s));
    cr_assert_eq(c->n, 5);
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_str_eq(c->rows[0], "+I[1, one, 2024-01-01, 3, true, 1.5, 2024-01-01 10:00:00.000]");
    cr_assert_str_eq(c->rows[1], "+I[2, a, \"b\", a/b:c=d%e?#*[x]^{y}'z\\ f, null, false, 1.0E10, "
                                 "2024-01-01 10:00:01.500]");
    cr_assert_str_eq(c->rows[2], "+I[3, null, null, -4, null, -0.001, null]");
    cr_assert_str_eq(c->rows[3], "+I[4, four, null, 5, true, 100.0, 2024-01-01 10:00:07.000]");
    cr_assert_str_eq(c->rows[4], "+I[5, five, 2024-01-01, 3, true, 1.5, 2024-01-01 10:00:00.000]");
    weir_sql_session_destroy(s);
    free(c);
    remove_tree(dir);
}

Test(sql_filesystem_sink, partitioned_json_written_into_folders_and_read_back)
{
    partitioned_round_trip("json");
}

Test(sql_filesystem_sink, partitioned_csv_written_into_folders_and_read_back)
{
    partitioned_round_trip("csv");
}

/* The subtasks whose committed parts are in dir/rel: a bit each. */
static unsigned writers(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "no folder %s", rel);
    unsigned bits = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char run[17];
        int sub = -1, n = -1;
        if (sscanf(e->d_name, "part-%16[0-9a-f]-%d-%d", run, &sub, &n) == 3)
            bits |= 1u << sub;
    }
    closedir(d);
    return bits;
}

/* The lines of the committed parts in dir/rel. */
static int count_lines(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "no folder %s", rel);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "part-", 5) != 0)
            continue;
        char file[1024];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        FILE *f = fopen(file, "r");
        cr_assert_not_null(f);
        for (int ch; (ch = fgetc(f)) != EOF;)
            n += ch == '\n';
        fclose(f);
    }
    closedir(d);
    return n;
}

/* With Flink's success-file policy each partition folder gets its success
 * file once its parts are committed (not the table's folder), and each
 * partition has one writer among the sink's subtasks (the rows are
 * shuffled by their partition), also with 'sink.shuffle-by-partition.enable'
 * alone; without either, several subtasks write into one folder. The
 * default name and a name of the table's own. */
Test(sql_filesystem_sink, success_files_and_one_writer_a_partition)
{
    make_dir();
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    cr_assert_eq(run(s, "SET 'parallelism.default' = '3';\n"
                        "CREATE TABLE gen (key BIGINT, `value` BIGINT) WITH ('connector' = "
                        "'datagen', 'number-of-rows' = '600', 'partitions' = '3');\n"
                        "CREATE TABLE a (v BIGINT, p BIGINT) PARTITIONED BY (p) WITH "
                        "('connector' = 'filesystem', 'path' = 'a', 'format' = 'json', "
                        "'sink.partition-commit.policy.kind' = 'success-file');\n"
                        "CREATE TABLE b (v BIGINT, p BIGINT) PARTITIONED BY (p) WITH "
                        "('connector' = 'filesystem', 'path' = 'b', 'format' = 'csv', "
                        "'sink.partition-commit.policy.kind' = 'success-file', "
                        "'sink.partition-commit.success-file.name' = '_DONE', "
                        "'sink.partition-commit.trigger' = 'process-time', "
                        "'sink.partition-commit.delay' = '0 s');\n"
                        "CREATE TABLE d (v BIGINT, p BIGINT) PARTITIONED BY (p) WITH "
                        "('connector' = 'filesystem', 'path' = 'd', 'format' = 'json', "
                        "'sink.shuffle-by-partition.enable' = 'true');\n"
                        "CREATE TABLE e (v BIGINT, p BIGINT) PARTITIONED BY (p) WITH "
                        "('connector' = 'filesystem', 'path' = 'e', 'format' = 'json');\n"
                        "EXECUTE STATEMENT SET BEGIN\n"
                        "INSERT INTO a SELECT `value`, key % 4 FROM gen;\n"
                        "INSERT INTO b SELECT `value`, key % 4 FROM gen;\n"
                        "INSERT INTO d SELECT `value`, key % 4 FROM gen;\n"
                        "INSERT INTO e SELECT `value`, key % 4 FROM gen;\n"
                        "END;\n"),
                 0, "%s", weir_sql_error(s));
    int shared = 0, lines = 0, lines_e = 0;
    for (int p = 0; p < 4; p++) {
        char rel[64];
        snprintf(rel, sizeof rel, "a/p=%d/_SUCCESS", p);
        cr_assert(exists(rel), "%s", rel);
        snprintf(rel, sizeof rel, "b/p=%d/_DONE", p);
        cr_assert(exists(rel), "%s", rel);
        static const char *const tables[] = {"a", "b", "d"};
        for (int t = 0; t < 3; t++) {
            snprintf(rel, sizeof rel, "%s/p=%d", tables[t], p);
            unsigned w = writers(rel);
            cr_assert(w && (w & (w - 1)) == 0, "%s: written by subtasks 0x%x", rel, w);
        }
        snprintf(rel, sizeof rel, "e/p=%d", p);
        unsigned w = writers(rel);
        shared += (w & (w - 1)) != 0;
        snprintf(rel, sizeof rel, "b/p=%d", p);
        lines += count_lines(rel);
        snprintf(rel, sizeof rel, "e/p=%d", p);
        lines_e += count_lines(rel);
    }
    cr_assert_gt(lines, 0);
    cr_assert_eq(lines, lines_e, "shuffled %d lines, not shuffled %d", lines, lines_e);
    cr_assert_gt(shared, 0, "without a shuffle every partition had one writer: the test "
                            "proves nothing");
    cr_assert(!exists("a/_SUCCESS") && !exists("b/_DONE") && !exists("e/p=0/_SUCCESS"));
    weir_sql_session_destroy(s);
    free(c);
    remove_tree(dir);
}

/* A folder another program wrote, Flink's way: typed partition values,
 * one that is not of its column's type (the file and folder named), a
 * 'partition.default-name' of the table's own, and a NOT NULL partition
 * column no folder names. */
static void write_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

Test(sql_filesystem_sink, partition_values_read_from_the_folders)
{
    make_dir();
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    write_file("t/day=2024-03-01/at=2024-03-01T06%3A30/n=none/p.csv", "1\n");
    write_file("t/day=x%2Fy/at=2024-03-01T06%3A30%3A05.250/n=-7/p.csv", "2\n");
    cr_assert_eq(run(s, "CREATE TABLE t (id INT, day STRING, at TIMESTAMP(3), n BIGINT)\n"
                        "PARTITIONED BY (day, at, n) WITH ('connector' = 'filesystem', "
                        "'path' = 't', 'format' = 'csv', 'partition.default-name' = 'none');\n"
                        "SELECT * FROM t;"),
                 0, "%s", weir_sql_error(s));
    cr_assert_eq(c->n, 2);
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    cr_assert_str_eq(c->rows[0], "+I[1, 2024-03-01, 2024-03-01 06:30:00.000, null]");
    cr_assert_str_eq(c->rows[1], "+I[2, x/y, 2024-03-01 06:30:05.250, -7]");

    write_file("bad/n=seven/p.csv", "1\n");
    cr_assert_neq(run(s, "CREATE TABLE bad (id INT, n BIGINT) PARTITIONED BY (n) WITH "
                        "('connector' = 'filesystem', 'path' = 'bad', 'format' = 'csv');\n"
                        "SELECT * FROM bad;"),
                 0);
    cr_assert(strstr(weir_sql_error(s), "bad/n=seven/p.csv: the folder 'n=seven': 'seven' is "
                                        "not a BIGINT (column 'n')"),
              "%s", weir_sql_error(s));
    write_file("flat/p.csv", "1\n");
    cr_assert_neq(run(s, "CREATE TABLE flat (id INT, n BIGINT NOT NULL) PARTITIONED BY (n) WITH "
                        "('connector' = 'filesystem', 'path' = 'flat', 'format' = 'csv');\n"
                        "SELECT * FROM flat;"),
                 0);
    cr_assert(strstr(weir_sql_error(s), "flat/p.csv: no folder n=... names the partition "
                                        "column: NULL in the NOT NULL column 'n'"),
              "%s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    free(c);
    remove_tree(dir);
}

Test(sql_filesystem_sink, what_it_refuses_of_partitions)
{
    make_dir();
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    static const struct {
        const char *ddl, *why;
    } cases[] = {
        {"CREATE TABLE t (a BIGINT, _p STRING) PARTITIONED BY (_p) WITH ('connector' = "
         "'filesystem', 'path' = 'o', 'format' = 'json')",
         "partition column '_p': its folders ('_p=...') would be hidden from every reader"},
        {"CREATE TABLE t (a BIGINT, p STRING) PARTITIONED BY (a, p) WITH ('connector' = "
         "'filesystem', 'path' = 'o', 'format' = 'csv')",
         "every column is a partition column: the CSV files' lines would be empty"},
        {"CREATE TABLE t (a BIGINT, p STRING) PARTITIONED BY (p) WITH ('connector' = "
         "'filesystem', 'path' = 'o', 'format' = 'json', 'partition.default-name' = '')",
         "Path should not be null or empty"},
        {"CREATE TABLE t (a BIGINT, p STRING) PARTITIONED BY (p) WITH ('connector' = "
         "'filesystem', 'path' = 'o', 'format' = 'json', "
         "'sink.partition-commit.policy.kind' = 'custom')",
         "not supported: a 'custom' policy"},
        {"CREATE TABLE t (a BIGINT, p STRING) PARTITIONED BY (p) WITH ('connector' = "
         "'filesystem', 'path' = 'o', 'format' = 'json', "
         "'sink.partition-commit.policy.kind' = 'success-file,tweet')",
         "Unsupported commit policy type: tweet"},
        {"CREATE TABLE t (a BIGINT, p STRING) WITH ('connector' = 'filesystem', 'path' = 'o', "
         "'format' = 'json', 'sink.partition-commit.policy.kind' = 'success-file')",
         "a partition commit policy needs PARTITIONED BY"},
        {"CREATE TABLE t (a BIGINT, p STRING) PARTITIONED BY (p) WITH ('connector' = "
         "'filesystem', 'path' = 'o', 'format' = 'json', "
         "'sink.partition-commit.policy.kind' = 'success-file', "
         "'sink.partition-commit.success-file.name' = '../x')",
         "expected a file's name"},
        {"CREATE TABLE t (a BIGINT, p STRING) PARTITIONED BY (p) WITH ('connector' = "
         "'filesystem', 'path' = 'o', 'format' = 'json', "
         "'sink.partition-commit.trigger' = 'partition-time')",
         "not supported: committing a partition when the watermark passes its time"},
        {"CREATE TABLE t (a BIGINT, p STRING) PARTITIONED BY (p) WITH ('connector' = "
         "'filesystem', 'path' = 'o', 'format' = 'json', 'sink.partition-commit.delay' = "
         "'1 h')",
         "not supported: a delay"},
        {"CREATE TABLE t (a BIGINT, p STRING) PARTITIONED BY (p) WITH ('connector' = "
         "'filesystem', 'path' = 'o', 'format' = 'json', "
         "'sink.partition-commit.watermark-time-zone' = 'UTC')",
         "sink.partition-commit.watermark-time-zone"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(run(s, cases[i].ddl), WEIR_EINVAL, "accepted: %s", cases[i].ddl);
        cr_assert(strstr(weir_sql_error(s), cases[i].why), "%s", weir_sql_error(s));
    }
    weir_sql_session_destroy(s);
    free(c);
    remove_tree(dir);
}
