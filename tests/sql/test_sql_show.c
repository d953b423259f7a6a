/* test_sql_show.c — SHOW FUNCTIONS and SHOW USER FUNCTIONS (weir/sql.h,
 * weir_function_list of weir/function.h): the built-in functions a query
 * calls by name (scalar ones, aggregates, the constructors), sorted, one
 * row each (FLOOR has two entries in the registry, one row here); a
 * function registered from C appears in both lists, and SHOW USER
 * FUNCTIONS lists nothing else. The golden tests/sql/show_describe.sql
 * covers SHOW TABLES, SHOW VIEWS, DESCRIBE, SET and RESET.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir.h"

static int twice(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    result->i = 2 * args[0].i;
    return 0;
}

/* What `sql` printed, in a buffer of its own (freed by the caller). */
static char *run(const char *sql)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_not_null(out);
    weir_sql_session *s;
    cr_assert_eq(weir_sql_session_create(&(weir_sql_config){.out = out}, &s), 0);
    int r = weir_sql_execute(s, sql, strlen(sql));
    cr_assert_eq(r, 0, "%s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    fclose(out);
    return text;
}

/* How many lines of `text` are the row "| ... NAME |". */
static int rows_named(const char *text, const char *name)
{
    char want[128];
    snprintf(want, sizeof want, " %s |\n", name);
    int n = 0;
    for (const char *p = text; (p = strstr(p, want)); p++)
        n += p[-1] == ' ';
    return n;
}

Test(sql_show, functions_built_in_and_registered)
{
    char *before = run("SHOW FUNCTIONS;");
    cr_assert_eq(rows_named(before, "UPPER"), 1);
    cr_assert_eq(rows_named(before, "COUNT"), 1);
    cr_assert_eq(rows_named(before, "COALESCE"), 1);
    cr_assert_eq(rows_named(before, "FLOOR"), 1, "one row per name");
    cr_assert_eq(rows_named(before, "ARRAY"), 1);
    cr_assert_eq(rows_named(before, "LIKE"), 0, "an operator is not listed");
    cr_assert_eq(rows_named(before, "twice_it"), 0);
    cr_assert(strstr(before, "function name |\n"));
    /* sorted: ABS before AVG before UPPER */
    cr_assert(strstr(before, " ABS |") < strstr(before, " AVG |"));
    cr_assert(strstr(before, " AVG |") < strstr(before, " UPPER |"));

    char *user = run("SHOW USER FUNCTIONS;");
    cr_assert_str_eq(user, "Empty set\n");

    static const weir_type in[] = {{.id = WEIR_TYPE_BIGINT}};
    char err[256];
    cr_assert_eq(weir_function_register_scalar(
                     &(weir_scalar_function){.name = "twice_it", .nargs = 1, .arg_types = in,
                                             .result_type = {.id = WEIR_TYPE_BIGINT},
                                             .eval = twice},
                     err, sizeof err),
                 0, "%s", err);
    char *after = run("SHOW FUNCTIONS;");
    cr_assert_eq(rows_named(after, "twice_it"), 1);
    char *user_after = run("SHOW USER FUNCTIONS;");
    cr_assert_str_eq(user_after, "+---------------+\n"
                                 "| function name |\n"
                                 "+---------------+\n"
                                 "|      twice_it |\n"
                                 "+---------------+\n"
                                 "1 row in set\n");
    free(before);
    free(user);
    free(after);
    free(user_after);
}
