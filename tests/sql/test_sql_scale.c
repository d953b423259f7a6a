/* test_sql_scale.c — SQL text of any size: a file of thousands of
 * statements plans in memory linear in its length (the real binary,
 * WEIR_BINARY_DIR/tools/weir, run as a child whose peak resident size
 * getrusage reports), and the session API's long select lists, IN lists and
 * CASE expressions, whose errors keep their reason and their place. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weir.h"

#define WEIR WEIR_BINARY_DIR "/tools/weir"

/* ---- the binary's peak memory ---------------------------------------------------- */

/* Writes `n` statements planning a query each into path. */
static void write_statements(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    fprintf(f, "CREATE TABLE clicks (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3),\n"
               "  WATERMARK FOR ts AS ts)\n"
               "WITH ('connector'='datagen', 'number-of-rows'='5', 'seed'='3');\n");
    for (int i = 0; i < n; i++) {
        if (i % 2)
            fprintf(f, "SET 'parallelism.default' = '1';\n");
        else
            fprintf(f, "SELECT `key` + %d AS k, `value` FROM clicks WHERE `value` > %d;\n", i, i);
    }
    cr_assert_eq(fclose(f), 0);
}

/* `weir sql --check path`: its exit status and peak resident size (KB). */
static long check_maxrss(const char *path, int *status)
{
    cr_assert_eq(access(WEIR, X_OK), 0, "%s is missing: build the weir-cli target", WEIR);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, 1) < 0)
            _exit(121);
        /* Under AddressSanitizer, freed memory waits in a quarantine of up
         * to 256 MB (each query's job is made and freed): keep it small,
         * so that the peak is what the statements hold. Other builds
         * ignore the variable. */
        char opts[1024];
        const char *asan = getenv("ASAN_OPTIONS");
        snprintf(opts, sizeof opts, "%s%squarantine_size_mb=8", asan ? asan : "",
                 asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
        execl(WEIR, "weir", "sql", "--check", path, (char *)NULL);
        _exit(122);
    }
    struct rusage ru;
    cr_assert_eq(wait4(pid, status, 0, &ru), pid);
    return ru.ru_maxrss;
}

Test(sql_scale, memory_is_linear_in_the_number_of_statements, .timeout = 120)
{
    char dir[] = "/tmp/weir-sql-scale-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char one[600], many[600];
    snprintf(one, sizeof one, "%s/one.sql", dir);
    snprintf(many, sizeof many, "%s/many.sql", dir);
    write_statements(one, 1);
    write_statements(many, 4000);
    int st;
    long base = check_maxrss(one, &st);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "weir sql --check failed on one statement");
    long big = check_maxrss(many, &st);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "weir sql --check failed on 4000");
    /* The file is 190 KB; its tokens, statements and plans a few MB. Each
     * statement's array grown by one element at a time made it 1.2 GB. */
    cr_assert_lt(big - base, 64 * 1024, "4000 statements took %ld KB more than one", big - base);
    unlink(one);
    unlink(many);
    rmdir(dir);
}

/* ---- long select lists, IN lists, CASE expressions ----------------------------------- */

typedef struct rows {
    char lines[8][4096];
    int n;
} rows;

static int collect(const weir_schema *schema, const void *row, void *arg)
{
    rows *r = arg;
    cr_assert_lt(r->n, 8);
    weir_row_format(schema, row, r->lines[r->n], sizeof r->lines[r->n]);
    r->n++;
    return 0;
}

/* A growing text. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        cr_assert_geq(n, 0);
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap ? 2 * t->cap + (size_t)n : 4096 + (size_t)n;
        t->s = realloc(t->s, t->cap);
        cr_assert_not_null(t->s);
    }
}

/* A session over DIR/wide.json: one row of 20 INT columns c0..c19 (ci = i)
 * and a STRING s = 'x', as table wide. */
static weir_sql_session *wide_session(char *dir, rows *r)
{
    cr_assert_not_null(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/wide.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{");
    for (int i = 0; i < 20; i++)
        fprintf(f, "\"c%d\": %d, ", i, i);
    fprintf(f, "\"s\": \"x\"}\n");
    cr_assert_eq(fclose(f), 0);
    weir_sql_config cfg = {.on_row = collect, .on_row_arg = r, .base_dir = dir, .workers = 1};
    weir_sql_session *s = NULL;
    cr_assert_eq(weir_file_register_connectors(), 0); /* filesystem tables */
    cr_assert_eq(weir_sql_session_create(&cfg, &s), 0);
    text t = {0};
    put(&t, "CREATE TABLE wide (");
    for (int i = 0; i < 20; i++)
        put(&t, "c%d INT, ", i);
    put(&t, "s STRING) WITH ('connector' = 'filesystem', 'path' = 'wide.json', "
            "'format' = 'json')");
    cr_assert_eq(weir_sql_execute(s, t.s, t.len), 0, "%s", weir_sql_error(s));
    free(t.s);
    return s;
}

static void wide_done(weir_sql_session *s, char *dir)
{
    weir_sql_session_destroy(s);
    char path[600];
    snprintf(path, sizeof path, "%s/wide.json", dir);
    unlink(path);
    rmdir(dir);
}

Test(sql_scale, long_select_lists_run)
{
    char dir[] = "/tmp/weir-sql-wide-XXXXXX";
    rows *r = calloc(1, sizeof *r);
    weir_sql_session *s = wide_session(dir, r);
    /* 20 plain columns (14 were refused: the planner's rewritten text had
     * room for 64 pieces) */
    text t = {0};
    put(&t, "SELECT ");
    for (int i = 0; i < 20; i++)
        put(&t, "%sc%d", i ? ", " : "", i);
    put(&t, " FROM wide");
    cr_assert_eq(weir_sql_execute(s, t.s, t.len), 0, "%s", weir_sql_error(s));
    cr_assert_eq(r->n, 1);
    cr_assert_str_eq(r->lines[0], "+I[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, "
                                  "17, 18, 19]");
    /* 200 aliased items, then 100 SUMs */
    r->n = t.len = 0;
    put(&t, "SELECT ");
    for (int i = 0; i < 200; i++)
        put(&t, "%sc%d + %d AS item_number_%d", i ? ", " : "", i % 20, i, i);
    put(&t, " FROM wide");
    cr_assert_eq(weir_sql_execute(s, t.s, t.len), 0, "%s", weir_sql_error(s));
    cr_assert_eq(r->n, 1);
    cr_assert(strncmp(r->lines[0], "+I[0, 2, 4, ", 12) == 0, "%s", r->lines[0]);
    cr_assert(strstr(r->lines[0], ", 218]"), "%s", r->lines[0]); /* c19 + 199 */
    r->n = t.len = 0;
    put(&t, "SELECT ");
    for (int i = 0; i < 100; i++)
        put(&t, "%sSUM(c%d + %d)", i ? ", " : "", i % 20, i);
    put(&t, " FROM wide");
    cr_assert_eq(weir_sql_execute(s, t.s, t.len), 0, "%s", weir_sql_error(s));
    cr_assert_eq(r->n, 1);
    cr_assert(strstr(r->lines[0], ", 118]"), "%s", r->lines[0]); /* c19 + 99 */
    /* a 300-value IN list, a 300-branch CASE, one item of over 2000 bytes */
    r->n = t.len = 0;
    put(&t, "SELECT c7 IN (");
    for (int i = 0; i < 300; i++)
        put(&t, "%s%d", i ? ", " : "", 1000 + i);
    put(&t, ", 7) AS found, CASE");
    for (int i = 0; i < 300; i++)
        put(&t, " WHEN c3 = %d THEN 'branch %d'", 1000 + i, i);
    put(&t, " WHEN c3 = 3 THEN 'the last' END AS which, c1");
    for (int i = 0; i < 400; i++)
        put(&t, " + c1");
    put(&t, " AS sum FROM wide");
    cr_assert_eq(weir_sql_execute(s, t.s, t.len), 0, "%s", weir_sql_error(s));
    cr_assert_eq(r->n, 1);
    cr_assert_str_eq(r->lines[0], "+I[true, the last, 401]");
    free(t.s);
    wide_done(s, dir);
    free(r);
}

/* The error of `sql`, which must be refused: the message after "line L,
 * column C: ", with L and C checked. */
static const char *refused(weir_sql_session *s, const char *sql, int line, int col)
{
    cr_assert_eq(weir_sql_execute(s, sql, strlen(sql)), WEIR_EINVAL, "accepted: %.200s", sql);
    const char *e = weir_sql_error(s);
    char at[64];
    snprintf(at, sizeof at, "line %d, column %d: ", line, col);
    cr_assert(strncmp(e, at, strlen(at)) == 0, "want %s, got: %s", at, e);
    return e + strlen(at);
}

Test(sql_scale, errors_in_long_expressions_keep_their_reason_and_place)
{
    char dir[] = "/tmp/weir-sql-wide-XXXXXX";
    rows *r = calloc(1, sizeof *r);
    weir_sql_session *s = wide_session(dir, r);
    text t = {0};
    /* the bad value at the end of a 300-value IN list, on line 2 */
    put(&t, "SELECT c1 IN (");
    for (int i = 0; i < 300; i++)
        put(&t, "%d, ", i);
    put(&t, "\n'x') FROM wide");
    const char *e = refused(s, t.s, 2, 1);
    cr_assert_str_eq(e, "cannot compare INT with VARCHAR(1)");
    /* a 300-branch CASE whose last branch compares with a string */
    t.len = 0;
    put(&t, "SELECT CASE");
    for (int i = 0; i < 300; i++)
        put(&t, " WHEN c1 = %d THEN %d\n", i, i);
    put(&t, " WHEN c1 = s THEN 1 END FROM wide");
    e = refused(s, t.s, 301, 10);
    cr_assert_str_eq(e, "cannot compare INT with VARCHAR(64)");
    /* an unknown column at the end of an item of over 2000 bytes (it was
     * "item 0 too long" at the SELECT) */
    t.len = 0;
    put(&t, "SELECT c1");
    for (int i = 0; i < 400; i++)
        put(&t, " + c1");
    put(&t, "\n  + c99 AS total FROM wide");
    e = refused(s, t.s, 2, 5);
    cr_assert_str_eq(e, "unknown column 'c99' (did you mean 'c9'?)");
    /* the same item, grouped, naming a column that is not grouped */
    t.len = 0;
    put(&t, "SELECT c2, c1");
    for (int i = 0; i < 400; i++)
        put(&t, " + c1");
    put(&t, " AS total FROM wide GROUP BY c2");
    e = refused(s, t.s, 1, 12);
    cr_assert_str_eq(e, "expression 'c1 + c1 + c1 + c1 + c1 + c1 + c1 + c1 + c1 + c1 + c1 + c1 "
                        "+ ...' is not being grouped");
    /* the table layer's one fixed limit, named */
    t.len = 0;
    put(&t, "SELECT c0");
    for (int i = 1; i <= 256; i++)
        put(&t, ", c%d AS x%d", i % 20, i);
    put(&t, " FROM wide");
    e = refused(s, t.s, 1, 1);
    cr_assert_str_eq(e, "a list of more than 256 items (the table layer's limit)");
    free(t.s);
    wide_done(s, dir);
    free(r);
}
