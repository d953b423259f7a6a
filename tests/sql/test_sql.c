/* test_sql.c — the SQL session API (weir/sql.h): rows to a callback, a
 * catalog kept across calls, errors at their line and column, nothing run
 * after a syntax error, failures while running told apart, captures named
 * per query, and the planner's results against a plain C computation over
 * random files (the oracle: a loop over the rows, no table layer). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "weir.h"

#define MAX_LINES 4096

typedef struct collected {
    char lines[MAX_LINES][160];
    int n;
    int fail_at; /* > 0: the callback fails on this row */
} collected;

static int collect(const weir_schema *schema, const void *row, void *arg)
{
    collected *c = arg;
    if (c->fail_at && c->n + 1 == c->fail_at)
        return WEIR_ECALLBACK;
    cr_assert_lt(c->n, MAX_LINES);
    weir_row_format(schema, row, c->lines[c->n], sizeof c->lines[c->n]);
    c->n++;
    return 0;
}

static weir_sql_session *session(collected *c, const char *dir)
{
    weir_sql_config cfg = {.on_row = collect, .on_row_arg = c, .base_dir = dir, .workers = 1};
    weir_sql_session *s = NULL;
    cr_assert_eq(weir_file_register_connectors(), 0); /* filesystem tables */
    cr_assert_eq(weir_sql_session_create(&cfg, &s), 0);
    return s;
}

static int run(weir_sql_session *s, const char *text)
{
    return weir_sql_execute(s, text, strlen(text));
}

static const char *datagen =
    "CREATE TABLE clicks (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3),\n"
    "  WATERMARK FOR ts AS ts)\n"
    "WITH ('connector'='datagen', 'number-of-rows'='50', 'keys'='4', 'seed'='3');\n";

Test(sql, rows_to_the_callback_and_the_catalog_across_calls)
{
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c, NULL);
    cr_assert_eq(run(s, datagen), 0, "%s", weir_sql_error(s));
    cr_assert_eq(c->n, 0);
    cr_assert_eq(run(s, "SELECT COUNT(*) AS n FROM clicks"), 0, "%s", weir_sql_error(s));
    /* a global aggregate: +I[1], then -U/+U for each of the 49 other rows */
    cr_assert_eq(c->n, 1 + 2 * 49);
    cr_assert_str_eq(c->lines[0], "+I[1]");
    cr_assert_str_eq(c->lines[c->n - 1], "+U[50]");
    cr_assert_str_eq(weir_sql_error(s), "");
    weir_sql_session_destroy(s);
    free(c);
}

Test(sql, a_syntax_error_anywhere_runs_nothing)
{
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c, NULL);
    char text[2048];
    snprintf(text, sizeof text, "%sSELECT * FROM clicks;\nSELECT `key` FROM clicks WHERE (;\n",
             datagen);
    cr_assert_eq(run(s, text), WEIR_EINVAL);
    cr_assert_eq(c->n, 0, "a statement ran before the syntax error was found");
    cr_assert(strncmp(weir_sql_error(s), "line 5, column ", 15) == 0, "%s", weir_sql_error(s));
    cr_assert_not(weir_sql_error_at_run(s));
    /* and the CREATE TABLE of that text did not run either */
    cr_assert_eq(run(s, "SELECT * FROM clicks"), WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "unknown table 'clicks'"), "%s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    free(c);
}

Test(sql, a_nul_byte_is_refused_where_it_is)
{
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c, NULL);
    /* even inside a comment: the expression reader sees NUL-terminated text */
    static const char text[] = "SELECT 1;\n-- a \0 here\nSELECT 2";
    cr_assert_eq(weir_sql_execute(s, text, sizeof text - 1), WEIR_EINVAL);
    cr_assert_eq(c->n, 0);
    cr_assert_str_eq(weir_sql_error(s), "line 2, column 6: unexpected byte 0x00");
    weir_sql_session_destroy(s);
    free(c);
}

Test(sql, an_expression_error_at_its_line_and_column)
{
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c, NULL);
    cr_assert_eq(run(s, datagen), 0);
    cr_assert_eq(run(s, "SELECT `key`,\n  SUM(`value`) AS s\nFROM clicks\nWHERE `valeu` > 3\n"
                        "GROUP BY `key`"),
                 WEIR_EINVAL);
    cr_assert_str_eq(weir_sql_error(s),
                     "line 4, column 7: unknown column 'valeu' (did you mean 'value'?)");
    cr_assert_eq(run(s, "SELECT `key`, SUM(`value` || 'x') FROM clicks GROUP BY `key`"),
                 WEIR_EINVAL);
    cr_assert(strncmp(weir_sql_error(s), "line 1, column ", 15) == 0, "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "SELECT COUNT(*) FROM clicks GROUP BY TUMBLE(ts, INTERVAL 'x' SECOND)"),
                 WEIR_EINVAL);
    /* at the bad value itself, as the expression parser reads the statement */
    cr_assert_str_eq(weir_sql_error(s),
                     "line 1, column 58: 'x' is not a SECOND interval value");
    weir_sql_session_destroy(s);
    free(c);
}

Test(sql, failures_while_running_are_told_apart)
{
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c, NULL);
    cr_assert_eq(run(s, datagen), 0);
    int r = run(s, "SELECT `value` / (`key` - `key`) FROM clicks");
    cr_assert(r < 0);
    cr_assert(weir_sql_error_at_run(s), "%s", weir_sql_error(s));
    cr_assert(strstr(weir_sql_error(s), "division by zero"), "%s", weir_sql_error(s));
    c->n = 0;
    c->fail_at = 3;
    cr_assert_eq(run(s, "SELECT * FROM clicks"), WEIR_ECALLBACK, "%s", weir_sql_error(s));
    cr_assert(weir_sql_error_at_run(s));
    cr_assert_eq(c->n, 2);
    weir_sql_session_destroy(s);
    free(c);
}

Test(sql, each_query_writes_its_own_capture)
{
    char dir[] = "/tmp/weir-sql-test-XXXXXX";
    cr_assert(mkdtemp(dir));
    char set[512], first[512], second[512];
    snprintf(set, sizeof set, "SET 'weir.capture.file' = '%s/run.jsonl';", dir);
    snprintf(first, sizeof first, "%s/run.jsonl", dir);
    snprintf(second, sizeof second, "%s/run-2.jsonl", dir);
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c, NULL);
    cr_assert_eq(run(s, datagen), 0);
    cr_assert_eq(run(s, set), 0, "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "SELECT * FROM clicks; SELECT `key` FROM clicks"), 0, "%s",
                 weir_sql_error(s));
    struct stat st;
    cr_assert_eq(stat(first, &st), 0, "no %s", first);
    cr_assert_gt(st.st_size, 0);
    cr_assert_eq(stat(second, &st), 0, "no %s", second);
    unlink(first);
    unlink(second);
    rmdir(dir);
    weir_sql_session_destroy(s);
    free(c);
}

/* ---- against a plain loop ------------------------------------------------------------ */

#define ORACLE_KEYS 5
#define ORACLE_WINDOWS 40

Test(sql, windows_and_groups_agree_with_a_loop_over_random_files)
{
    char dir[] = "/tmp/weir-sql-oracle-XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/rows.csv", dir);
    for (unsigned seed = 1; seed <= 5; seed++) {
        srand(seed);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        /* counts and sums per (key, 1 s window), and per key */
        int64_t cnt[ORACLE_KEYS][ORACLE_WINDOWS] = {{0}}, sum[ORACLE_KEYS][ORACLE_WINDOWS] = {{0}};
        int64_t ksum[ORACLE_KEYS] = {0};
        int rows = 200 + rand() % 300;
        int64_t ts = 0;
        for (int i = 0; i < rows; i++) {
            ts += rand() % 150; /* in order: nothing is late with WATERMARK ts */
            if (ts >= ORACLE_WINDOWS * 1000)
                break;
            int k = rand() % ORACLE_KEYS;
            int v = rand() % 1000 - 300;
            cnt[k][ts / 1000]++;
            sum[k][ts / 1000] += v;
            ksum[k] += v;
            char t[64];
            weir_timestamp_format(ts, t, sizeof t);
            fprintf(f, "k%d,%d,%s\n", k, v, t);
        }
        fclose(f);
        collected *c = calloc(1, sizeof *c);
        weir_sql_session *s = session(c, dir);
        cr_assert_eq(run(s, "CREATE TABLE r (k STRING, v BIGINT, ts TIMESTAMP(3), "
                            "WATERMARK FOR ts AS ts) WITH ('connector'='filesystem', "
                            "'path'='rows.csv', 'format'='csv');\n"
                            "SELECT k, TUMBLE_START(ts, INTERVAL '1' SECOND) AS w, COUNT(*), "
                            "SUM(v) FROM r GROUP BY k, TUMBLE(ts, INTERVAL '1' SECOND)"),
                     0, "%s", weir_sql_error(s));
        int expected = 0;
        for (int k = 0; k < ORACLE_KEYS; k++)
            for (int w = 0; w < ORACLE_WINDOWS; w++) {
                if (!cnt[k][w])
                    continue;
                expected++;
                char want[160], t[64];
                weir_timestamp_format((int64_t)w * 1000, t, sizeof t);
                snprintf(want, sizeof want, "+I[k%d, %s, %lld, %lld]", k, t,
                         (long long)cnt[k][w], (long long)sum[k][w]);
                bool found = false;
                for (int i = 0; !found && i < c->n; i++)
                    found = strcmp(c->lines[i], want) == 0;
                cr_assert(found, "seed %u: no %s", seed, want);
            }
        cr_assert_eq(c->n, expected, "seed %u", seed);
        /* the group aggregate's last row per key is the loop's sum */
        c->n = 0;
        cr_assert_eq(run(s, "SELECT k, SUM(v) AS s FROM r GROUP BY k"), 0, "%s",
                     weir_sql_error(s));
        for (int k = 0; k < ORACLE_KEYS; k++) {
            char prefix[16], last[160] = "";
            snprintf(prefix, sizeof prefix, "[k%d, ", k);
            for (int i = 0; i < c->n; i++)
                if (strstr(c->lines[i], prefix) && c->lines[i][0] == '+')
                    snprintf(last, sizeof last, "%s", c->lines[i] + 2);
            char want[64];
            snprintf(want, sizeof want, "[k%d, %lld]", k, (long long)ksum[k]);
            if (last[0])
                cr_assert_str_eq(last, want, "seed %u", seed);
        }
        weir_sql_session_destroy(s);
        free(c);
    }
    unlink(path);
    rmdir(dir);
}

Test(sql, nesting_is_bounded_with_an_error)
{
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c, NULL);
    cr_assert_eq(run(s, datagen), 0);
    /* 100 000 nested subqueries: an error, not a stack overflow */
    enum { DEPTH = 100000 };
    static char deep[DEPTH * 16 + 64];
    size_t n = 0;
    n += (size_t)sprintf(deep + n, "SELECT * FROM ");
    for (int i = 0; i < DEPTH; i++)
        n += (size_t)sprintf(deep + n, "(SELECT * FROM ");
    n += (size_t)sprintf(deep + n, "clicks");
    for (int i = 0; i < DEPTH; i++)
        deep[n++] = ')';
    deep[n] = '\0';
    cr_assert_eq(run(s, deep), WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "queries nested deeper than"), "%s", weir_sql_error(s));
    /* a chain of views, each reading the one before */
    char view[128];
    for (int i = 1; i <= 40; i++) {
        if (i == 1)
            snprintf(view, sizeof view, "CREATE VIEW v1 AS SELECT * FROM clicks");
        else
            snprintf(view, sizeof view, "CREATE VIEW v%d AS SELECT * FROM v%d", i, i - 1);
        cr_assert_eq(run(s, view), 0, "%s", weir_sql_error(s));
    }
    cr_assert_eq(run(s, "SELECT * FROM v40"), WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "nested deeper than"), "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "SELECT COUNT(*) FROM v20"), 0, "%s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    free(c);
}
