/* test_sql_function.c — functions from C called from SQL (weir/function.h
 * through weir/sql.h, Flink's createTemporarySystemFunction then SQL):
 * a scalar function in a select list and a WHERE, an aggregate function
 * in a group aggregate (and in an expression and a HAVING over it, which
 * SQL rewrites), in a global aggregate and in a window TVF's aggregate; a
 * type mismatch refused at its line and column; a failing call that fails
 * the query while it runs, with the function's message.
 *
 * The table is tests/sql/data/orders.json (six rows); each query is one
 * job of a few rows.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir.h"

#define MAX_LINES 64

typedef struct collected {
    char lines[MAX_LINES][160];
    int n;
} collected;

static int collect(const weir_schema *schema, const void *row, void *arg)
{
    collected *c = arg;
    cr_assert_lt(c->n, MAX_LINES);
    weir_row_format(schema, row, c->lines[c->n], sizeof c->lines[c->n]);
    c->n++;
    return 0;
}

/* shout(STRING NOT NULL) -> VARCHAR(20): upper case and '!' */
static int shout(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    uint32_t n = args[0].len < call->capacity - 1 ? args[0].len : call->capacity - 1;
    for (uint32_t i = 0; i < n; i++)
        call->buf[i] = (char)toupper((unsigned char)args[0].s[i]);
    call->buf[n] = '!';
    result->s = call->buf;
    result->len = n + 1;
    return 0;
}

/* cents(BIGINT) -> BIGINT: called with NULL too, which it returns */
static int cents(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    result->null = args[0].null;
    result->i = args[0].i * 100;
    return 0;
}

/* fussy(BIGINT NOT NULL) -> BIGINT: refuses 20 */
static int fussy(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    if (args[0].i == 20)
        return weir_function_fail(call, WEIR_ERANGE, "%lld is too much", (long long)args[0].i);
    result->i = args[0].i;
    return 0;
}

/* total(BIGINT NOT NULL) -> BIGINT NOT NULL: a sum, with retract and merge */
static int total_acc(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    *(int64_t *)acc += args[0].i;
    return 0;
}

static int total_retract(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    *(int64_t *)acc -= args[0].i;
    return 0;
}

static int total_merge(void *acc, const void *other, weir_function_call *call)
{
    (void)call;
    *(int64_t *)acc += *(const int64_t *)other;
    return 0;
}

static int total_value(const void *acc, weir_value *result, weir_function_call *call)
{
    (void)call;
    result->i = *(const int64_t *)acc;
    return 0;
}

static void register_functions(void)
{
    char err[256];
    weir_type str = {.id = WEIR_TYPE_VARCHAR, .not_null = true};
    weir_type big = {.id = WEIR_TYPE_BIGINT}, big_nn = {.id = WEIR_TYPE_BIGINT, .not_null = true};
    cr_assert_eq(weir_function_register_scalar(
                     &(weir_scalar_function){.name = "shout", .nargs = 1, .arg_types = &str,
                                             .result_type = {.id = WEIR_TYPE_VARCHAR, .capacity = 20},
                                             .eval = shout},
                     err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(weir_function_register_scalar(
                     &(weir_scalar_function){.name = "cents", .nargs = 1, .arg_types = &big,
                                             .result_type = big, .eval = cents},
                     err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(weir_function_register_scalar(
                     &(weir_scalar_function){.name = "fussy", .nargs = 1, .arg_types = &big_nn,
                                             .result_type = big, .eval = fussy},
                     err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(weir_function_register_aggregate(
                     &(weir_aggregate_function){.name = "total", .nargs = 1, .arg_types = &big_nn,
                                                .result_type = big_nn, .acc_size = 8,
                                                .accumulate = total_acc,
                                                .retract = total_retract, .merge = total_merge,
                                                .get_value = total_value},
                     err, sizeof err),
                 0, "%s", err);
}

static const char *orders =
    "CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3),\n"
    "  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n"
    "WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');\n";

static weir_sql_session *session(collected *c)
{
    register_functions();
    cr_assert_eq(weir_file_register_connectors(), 0); /* filesystem tables */
    weir_sql_config cfg = {.on_row = collect, .on_row_arg = c,
                           .base_dir = WEIR_SOURCE_DIR "/tests/sql", .workers = 1};
    weir_sql_session *s = NULL;
    cr_assert_eq(weir_sql_session_create(&cfg, &s), 0);
    cr_assert_eq(weir_sql_execute(s, orders, strlen(orders)), 0, "%s", weir_sql_error(s));
    return s;
}

/* Runs `sql`, which must succeed, and compares its rows, one a line. */
static void expect_rows(weir_sql_session *s, collected *c, const char *sql, const char *want)
{
    c->n = 0;
    cr_assert_eq(weir_sql_execute(s, sql, strlen(sql)), 0, "%s: %s", sql, weir_sql_error(s));
    char got[4096] = "";
    for (int i = 0; i < c->n; i++) {
        strcat(got, c->lines[i]);
        strcat(got, "\n");
    }
    cr_assert_str_eq(got, want, "%s:\n%s", sql, got);
}

Test(sql_function, a_scalar_function_in_select_and_where, .timeout = 60)
{
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    expect_rows(s, c, "SELECT SHOUT(`user`) AS u, cents(amount) AS c FROM orders "
                      "WHERE cents(amount) IS NULL OR cents(amount) > 1000",
                "+I[ALICE!, 1200]\n"
                "+I[CAROL!, null]\n"
                "+I[BOB!, 2000]\n"
                "+I[ALICE!, null]\n");
    weir_sql_session_destroy(s);
    free(c);
}

Test(sql_function, an_aggregate_function_grouped_global_and_windowed, .timeout = 60)
{
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    /* NULL amounts are skipped (total takes BIGINT NOT NULL) */
    expect_rows(s, c, "SELECT `user`, total(amount) AS t FROM orders GROUP BY `user`",
                "+I[Alice, 12]\n"
                "+I[Bob, 5]\n"
                "-U[Alice, 12]\n"
                "+U[Alice, 15]\n"
                "+I[Carol, 0]\n"
                "-U[Bob, 5]\n"
                "+U[Bob, 25]\n");
    /* in an expression and a HAVING: hidden columns of the aggregate (the
     * HAVING passes Bob's +U and drops the -U before it, as Flink's
     * filter over a changelog does) */
    expect_rows(s, c, "SELECT `user`, TOTAL(amount) * 2 AS t2 FROM orders GROUP BY `user` "
                      "HAVING total(amount) > 10",
                "+I[Alice, 24]\n"
                "-U[Alice, 24]\n"
                "+U[Alice, 30]\n"
                "+U[Bob, 50]\n");
    expect_rows(s, c, "SELECT total(amount) FROM orders",
                "+I[12]\n-U[12]\n+U[17]\n-U[17]\n+U[20]\n-U[20]\n+U[40]\n");
    expect_rows(s, c, "SELECT window_start, total(cents(amount)) AS t FROM TABLE(TUMBLE(TABLE "
                      "orders, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, "
                      "window_end",
                "+I[2024-01-01 00:00:00.000, 1700]\n"
                "+I[2024-01-01 00:00:05.000, 2300]\n"
                "+I[2024-01-01 00:00:10.000, 0]\n");
    weir_sql_session_destroy(s);
    free(c);
}

Test(sql_function, a_type_mismatch_is_refused_at_its_line_and_column)
{
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    const char *sql = "SELECT `user`,\n  cents(`user`) FROM orders";
    cr_assert_eq(weir_sql_execute(s, sql, strlen(sql)), WEIR_EINVAL);
    cr_assert_str_eq(weir_sql_error(s), "line 2, column 9: argument 1 of cents ('`user`') is "
                                        "VARCHAR(64), where cents takes BIGINT");
    cr_assert_not(weir_sql_error_at_run(s));
    sql = "SELECT total(amount, amount) FROM orders";
    cr_assert_eq(weir_sql_execute(s, sql, strlen(sql)), WEIR_EINVAL);
    cr_assert_str_eq(weir_sql_error(s), "line 1, column 8: wrong number of arguments: total "
                                        "takes 1, not 2");
    cr_assert_eq(c->n, 0);
    weir_sql_session_destroy(s);
    free(c);
}

Test(sql_function, a_failing_call_fails_the_query_while_it_runs, .timeout = 60)
{
    collected *c = calloc(1, sizeof *c);
    weir_sql_session *s = session(c);
    const char *sql = "SELECT `user`, fussy(amount) FROM orders";
    cr_assert_eq(weir_sql_execute(s, sql, strlen(sql)), WEIR_ERANGE, "%s", weir_sql_error(s));
    cr_assert(weir_sql_error_at_run(s));
    cr_assert(strstr(weir_sql_error(s), "fussy: 20 is too much in 'fussy(amount)'"), "%s",
              weir_sql_error(s));
    weir_sql_session_destroy(s);
    free(c);
}
