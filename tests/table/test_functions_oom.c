/* test_functions_oom.c — the built-in functions allocate nothing per row:
 * after a first row (which may make a thread's regular-expression match
 * block and compile a pattern known only per row into the thread's cache),
 * a thousand rows through each function make no allocation at all
 * (tests/support/alloc_fail.h counts every malloc of the process); a
 * thread's cache is freed when the thread ends (no block left behind).
 */
#include <pthread.h>

#include "support/alloc_fail.h"
#include "table_internal.h"
#include "table/table_testutil.h"

static const char *const exprs[] = {
    "REGEXP_EXTRACT(s, '([a-z]+)(\\d+)', 2)",
    "REGEXP_EXTRACT(s, p, 1)",
    "REGEXP_REPLACE(s, '\\d', '#')",
    "REGEXP_REPLACE(s, p, '-')",
    "REGEXP(s, p)",
    "s SIMILAR TO p",
    "s SIMILAR TO '%[[:digit:]]+%'",
    "s LIKE '%b_2%'",
    "SPLIT_INDEX(s, '2', 0)",
    "CONCAT_WS('-', s, p, UPPER(s))",
    "LPAD(s, 20, 'xy')",
    "REPLACE(s, 'b', 'bb')",
    "MD5(s) || SHA256(p)",
    "TO_BASE64(s)",
    "INITCAP(s) || REVERSE(s) || TRIM(BOTH 'a' FROM s)",
    "ROUND(d, 2) + POWER(d, 2) + RAND(7) + LOG10(d)",
    "GREATEST(s, p) || IF(d > 1, 'x', 'y') || COALESCE(NULLIF(s, p), '')",
    "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss EEE')",
    "DATE_FORMAT(ts, f)",
    "TO_TIMESTAMP(t) = TO_TIMESTAMP(t, 'yyyy-MM-dd HH:mm:ss')",
    "FROM_UNIXTIME(UNIX_TIMESTAMP(t)) || CONVERT_TZ(t, 'UTC', 'Europe/Berlin')",
    "CONVERT_TZ(t, 'UTC', z)",
    "EXTRACT(WEEK FROM ts) + YEAR(ts) + TIMESTAMPDIFF(MONTH, ts, TIMESTAMPADD(DAY, 40, ts))",
    "FLOOR(ts TO MONTH) < CEIL(ts TO HOUR)",
    "JSON_VALUE('{\"a\": [1, {\"b\": \"x\"}]}', '$.a[1].b')",
    "JSON_QUERY('{\"z\": 1, \"a\": [1, 2.50]}', '$')",
    "JSON_EXISTS('{\"a\": 1}', f)",
};

static weir_schema *schema(void)
{
    return tt_schema("t", "s VARCHAR(20), p VARCHAR(20), d DOUBLE, ts TIMESTAMP(3), f VARCHAR(20), "
                          "t VARCHAR(20), z VARCHAR(20)",
                     NULL);
}

/* Evaluates every expression on `rows` rows; the count of allocations
 * made while it did (after one row each to warm up when `warm`). */
static long run(const weir_schema *sc, int rows, bool warm)
{
    weir_expr *e[sizeof exprs / sizeof exprs[0]];
    char msg[256];
    size_t n = sizeof exprs / sizeof exprs[0];
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(weir_expr_compile(exprs[i], sc, &e[i], msg, sizeof msg), 0, "%s: %s",
                     exprs[i], msg);
    static unsigned char scratch[16384];
    unsigned char row[256];
    tt_row(sc, row, "+I ab12cd|b(\\d)|2.5|1709251199999|EEE d MMM|2024-02-29 23:59:59|Asia/Tokyo");
    weir__val v;
    const char *why;
    /* the expressions share one scratch, which each finds zeroed (a
     * function may keep what it made for a row there: weir__expr_eval) */
    if (warm)
        for (size_t i = 0; i < n; i++) {
            memset(scratch, 0, e[i]->scratch);
            cr_assert_eq(weir__expr_eval(e[i], row, scratch, &v, &why), 0, "%s", exprs[i]);
        }
    af_arm(1L << 40);
    for (int r = 0; r < rows; r++)
        for (size_t i = 0; i < n; i++) {
            memset(scratch, 0, e[i]->scratch);
            if (weir__expr_eval(e[i], row, scratch, &v, &why))
                cr_assert_fail("%s: %s", exprs[i], why);
        }
    long made = af_disarm();
    for (size_t i = 0; i < n; i++)
        weir_expr_destroy(e[i]);
    return made;
}

Test(functions_oom, no_allocation_per_row)
{
    weir_schema *sc = schema();
    cr_expect_eq(run(sc, 1000, true), 0);
    weir_schema_destroy(sc);
}

static void *in_thread(void *arg)
{
    run(arg, 10, false);
    return NULL;
}

Test(functions_oom, a_threads_cache_goes_with_it)
{
    weir_schema *sc = schema();
    /* the first thread's pthread structures stay cached by glibc: count
     * from a second one */
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, in_thread, sc), 0);
    pthread_join(t, NULL);
    long before = af_live_blocks();
    cr_assert_eq(pthread_create(&t, NULL, in_thread, sc), 0);
    pthread_join(t, NULL);
    cr_expect_eq(af_live_blocks(), before);
    weir_schema_destroy(sc);
}
