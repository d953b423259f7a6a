/* test_expr.c — the expression language (weir/expr.h) on one row: every
 * construct's value (literals, columns, arithmetic with its types and
 * Flink's overflow, comparison, three-valued AND/OR/NOT, IS [NOT] NULL,
 * IN, CASE, CAST, COALESCE, ||, UPPER/LOWER/CHAR_LENGTH, intervals), the
 * result types, the run-time errors (division by zero, a bad CAST), AND /
 * CASE evaluating only what decides them, and the plan-time errors with
 * their position.
 *
 * Evaluation goes through the compiled tree directly (the table layer's
 * internal evaluator, table_internal.h), the same call the operators make.
 */
#include "expr_tree.h"
#include "table_internal.h"
#include "table/table_testutil.h"

static weir_schema *row_schema(unsigned char *row)
{
    weir_schema *s = tt_schema("t", "a INT, b BIGINT, d DOUBLE, s VARCHAR(10), n INT, "
                                    "ns VARCHAR(5), t TIMESTAMP(3), f BOOLEAN, z INT", NULL);
    tt_row(s, row, "+I 7|-3|2.5|Hello|null|null|10000|false|0");
    return s;
}

/* The value of `text` as Row.toString prints it, and its type. */
static void eval_text(const weir_schema *s, const unsigned char *row, const char *text,
                      char *out, size_t size, char *type, int *err)
{
    weir_expr *e;
    char msg[256];
    int r = weir_expr_compile(text, s, &e, msg, sizeof msg);
    cr_assert_eq(r, 0, "%s: %s", text, msg);
    weir_type_format(weir_expr_type(e), type, 48);
    unsigned char scratch[4096] = {0}; /* zeroed before its first row (weir__expr_eval) */
    cr_assert_leq(e->scratch, sizeof scratch);
    weir__val v;
    const char *why = NULL;
    *err = weir__expr_eval(e, row, scratch, &v, &why);
    if (*err) {
        snprintf(out, size, "error: %s", why);
    } else {
        const char *names[] = {"x"};
        weir_type t = weir_expr_type(e);
        const char *w;
        weir_schema *one = weir__schema_make("r", 1, names, &t, &w);
        cr_assert(one);
        unsigned char r1[256] = {0};
        cr_assert_eq(weir__store_value(one, r1, 0, &v), 0);
        char buf[300];
        weir_row_format(one, r1, buf, sizeof buf);
        /* strip "+I[" and "]" */
        size_t n = strlen(buf);
        buf[n - 1] = 0;
        snprintf(out, size, "%.200s", buf + 3);
        weir_schema_destroy(one);
    }
    weir_expr_destroy(e);
}

Test(expr, values_and_types)
{
    static const struct { const char *text, *value, *type; } cases[] = {
        {"1 + 2 * 3", "7", "INT NOT NULL"},
        {"a * 2", "14", "INT"},
        {"a + b", "4", "BIGINT"},
        {"a / 2", "3", "INT"},
        {"-7 / 2", "-3", "INT NOT NULL"},
        {"-7 % 3", "-1", "INT NOT NULL"},
        {"MOD(a, 4)", "3", "INT"},
        /* 2.0 is DECIMAL(2, 1): INT / DECIMAL is DECIMAL (Flink's
         * LogicalTypeMerging: scale max(6, 0 + 2 + 1)), nullable: a result
         * that does not fit is NULL */
        {"a / 2.0", "3.500000", "DECIMAL(17, 6)"},
        {"a / 2.0E0", "3.5", "DOUBLE"},
        {"d * 2", "5.0", "DOUBLE"},
        {"1.0E0 / 0", "Infinity", "DOUBLE NOT NULL"},
        /* Java's Double.toString: a decimal from 10^-3 to 10^7, else E */
        {"d * 4", "10.0", "DOUBLE"},
        {"d * -16", "-40.0", "DOUBLE"},
        {"d * 400", "1000.0", "DOUBLE"},
        {"d * 3999999", "9999997.5", "DOUBLE"},
        {"d * 4000000", "1.0E7", "DOUBLE"},
        {"d * 5000000", "1.25E7", "DOUBLE"},
        {"d / 2500", "0.001", "DOUBLE"},
        {"d / 25000", "1.0E-4", "DOUBLE"},
        {"0.1 + 0.2", "0.3", "DECIMAL(2, 1)"},
        {"0.1E0 + 0.2E0", "0.30000000000000004", "DOUBLE NOT NULL"},
        {"-0.0E0 * 1", "-0.0", "DOUBLE NOT NULL"},
        {"CAST(d * 4 AS STRING)", "10.0", "VARCHAR(64)"},
        {"CAST(d * 4000000 AS STRING)", "1.0E7", "VARCHAR(64)"},
        {"2147483647 + 1", "-2147483648", "INT NOT NULL"},
        {"9223372036854775807 + 1", "-9223372036854775808", "BIGINT NOT NULL"},
        {"-2147483648", "-2147483648", "INT NOT NULL"},
        {"a + n", "null", "INT"},
        {"a > 5 AND s = 'Hello'", "true", "BOOLEAN"},
        {"s <> 'x' AND a > 10", "false", "BOOLEAN"},
        {"n > 1 AND f", "false", "BOOLEAN"},
        {"n > 1 AND NOT f", "null", "BOOLEAN"},
        {"n > 1 OR NOT f", "true", "BOOLEAN"},
        {"n > 1 OR f", "null", "BOOLEAN"},
        {"NOT (n > 1)", "null", "BOOLEAN"},
        {"n IS NULL", "true", "BOOLEAN NOT NULL"},
        {"a IS NOT NULL", "true", "BOOLEAN NOT NULL"},
        {"a IN (1, 7, 9)", "true", "BOOLEAN"},
        {"a NOT IN (1, 9)", "true", "BOOLEAN"},
        {"a IN (1, NULL)", "null", "BOOLEAN"},
        {"s IN ('x', 'Hello')", "true", "BOOLEAN"},
        {"CASE WHEN a > 5 THEN 'big' WHEN a > 2 THEN 'mid' ELSE 'small' END", "big", "VARCHAR(5) NOT NULL"},
        {"CASE WHEN a > 50 THEN 1 END", "null", "INT"},
        {"CASE WHEN n > 0 THEN 1 ELSE 2.5 END", "2.5", "DECIMAL(11, 1) NOT NULL"},
        {"CAST(a AS DOUBLE) / 2", "3.5", "DOUBLE"},
        /* Flink's CAST keeps its operand's nullability; TRY_CAST is nullable */
        {"CAST('42' AS BIGINT) + 1", "43", "BIGINT NOT NULL"},
        {"TRY_CAST('42' AS BIGINT) + 1", "43", "BIGINT"},
        {"TRY_CAST(s AS INT)", "null", "INT"},
        {"CAST(d AS INT)", "2", "INT"},
        {"CAST(-2.9 AS BIGINT)", "-2", "BIGINT NOT NULL"},
        {"CAST(a AS VARCHAR(10)) || '!'", "7!", "VARCHAR(11)"},
        /* 3 characters: of a 10-byte string, up to 10 bytes */
        {"CAST(s AS VARCHAR(3))", "Hel", "VARCHAR(10)"},
        {"CAST(s AS VARCHAR(12))", "Hello", "VARCHAR(12)"},
        {"CAST(d AS STRING)", "2.5", "VARCHAR(64)"},
        {"CAST(t AS STRING)", "1970-01-01 00:00:10.000", "VARCHAR(64)"},
        {"COALESCE(n, ns, 5)", NULL, NULL}, /* type error, checked below */
        {"COALESCE(n, a, 5)", "7", "INT NOT NULL"},
        {"COALESCE(ns, 'none')", "none", "VARCHAR(5) NOT NULL"},
        {"s || ' ' || 'World'", "Hello World", "VARCHAR(16)"},
        {"s || ns", "null", "VARCHAR(15)"},
        {"UPPER(s)", "HELLO", "VARCHAR(10)"},
        {"LOWER(s) = 'hello'", "true", "BOOLEAN"},
        /* ASCII maps byte by byte: only the letters move, not @ [ ` { */
        {"UPPER('@az[`{09')", "@AZ[`{09", "VARCHAR(8) NOT NULL"},
        {"LOWER('@AZ[`{09')", "@az[`{09", "VARCHAR(8) NOT NULL"},
        {"LOWER('Ab' || 'É')", "abé", "VARCHAR(4) NOT NULL"},
        {"CHAR_LENGTH(s)", "5", "INT"},
        {"t + INTERVAL '5' SECOND", "1970-01-01 00:00:15.000", "TIMESTAMP(3)"},
        {"t - INTERVAL '1' MINUTE", "1969-12-31 23:59:10.000", "TIMESTAMP(3)"},
        {"t > t - INTERVAL '1' MILLISECOND", "true", "BOOLEAN"},
        /* one reader of interval values for SQL and the table API */
        {"t + INTERVAL '1:30' MINUTE TO SECOND", "1970-01-01 00:01:40.000", "TIMESTAMP(3)"},
        {"t + INTERVAL '0.25' SECOND", "1970-01-01 00:00:10.250", "TIMESTAMP(3)"},
        {"t + INTERVAL '-1 01' DAY TO HOUR", "1969-12-30 23:00:10.000", "TIMESTAMP(3)"},
        {"TRUE", "true", "BOOLEAN NOT NULL"},
        {"'it''s'", "it's", "VARCHAR(4) NOT NULL"},
        {"`a` + 1", "8", "INT"},
        /* Only what decides: no division by zero on the branch not taken. */
        {"z <> 0 AND a / z > 1", "false", "BOOLEAN"},
        {"z = 0 OR a / z > 1", "true", "BOOLEAN"},
        {"CASE WHEN z = 0 THEN 0 ELSE a / z END", "0", "INT"},
    };
    unsigned char row[512];
    weir_schema *s = row_schema(row);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!cases[i].value)
            continue;
        char got[256], type[48];
        int err;
        eval_text(s, row, cases[i].text, got, sizeof got, type, &err);
        cr_expect_eq(err, 0, "%s: %s", cases[i].text, got);
        cr_expect_str_eq(got, cases[i].value, "%s", cases[i].text);
        cr_expect_str_eq(type, cases[i].type, "%s", cases[i].text);
    }
    weir_schema_destroy(s);
}

Test(expr, runtime_errors)
{
    unsigned char row[512];
    weir_schema *s = row_schema(row);
    static const struct { const char *text, *why; } cases[] = {
        {"a / z", "division by zero"},
        {"MOD(a, z)", "division by zero"},
        {"CAST(s AS INT)", "CAST of 'Hello' (column 's') to INT: For input string: 'Hello'. "
                           "Invalid character found."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char got[256], type[48];
        int err;
        eval_text(s, row, cases[i].text, got, sizeof got, type, &err);
        cr_expect_neq(err, 0, "%s", cases[i].text);
        cr_expect(strstr(got, cases[i].why), "%s: %s", cases[i].text, got);
    }
    weir_schema_destroy(s);
}

Test(expr, plan_errors_with_positions)
{
    unsigned char row[512];
    weir_schema *s = row_schema(row);
    static const struct { const char *text, *msg; } cases[] = {
        {"amout + 1", "amout + 1 at 1: unknown column 'amout' in table t"},
        {"A + 1", "A + 1 at 1: unknown column 'A' (did you mean 'a'?)"},
        {"a > 'x'", "a > 'x' at 3: cannot compare INT with VARCHAR(1)"},
        {"s + 1", "s + 1 at 3: cannot apply '+' to VARCHAR(10) and INT"},
        {"a +", "a + at 4: unexpected end of the expression"},
        {"(a + 1", "(a + 1 at 7: expected ')'"},
        {"a + 1 2", "a + 1 2 at 7: unexpected '2'"},
        {"FOO(a)", "FOO(a) at 1: unknown function 'FOO'"},
        {"NOT a", "NOT a at 5: NOT needs a BOOLEAN, not INT"},
        {"a AND f", "a AND f at 1: AND needs a BOOLEAN, not INT"},
        {"COUNT(*) + 1", "COUNT(*) + 1 at 1: aggregate function COUNT is not allowed here"},
        {"CAST(f AS TIMESTAMP(3))", "cannot cast BOOLEAN to TIMESTAMP(3)"},
        {"'abc", "'abc at 1: unterminated string"},
        {"COALESCE(n, ns, 5)", "COALESCE of INT and VARCHAR(5)"},
        {"UPPER(a)", "UPPER(a) at 1: Cannot apply 'UPPER' to arguments of type "
                     "'UPPER(<INTEGER>)'. Supported form(s): 'UPPER(<CHARACTER>)'"},
        {"a @ 1", "a @ 1 at 3: unexpected character '@'"},
        {"CASE a END", "CASE a END at 8: expected WHEN"},
        {"INTERVAL 'x' SECOND", "INTERVAL 'x' SECOND at 10: 'x' is not a SECOND interval value"},
        {"INTERVAL '1:3' MINUTE TO HOUR", "at 26: expected a smaller unit after TO"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_expr *e = NULL;
        char msg[256] = "";
        cr_expect_eq(weir_expr_compile(cases[i].text, s, &e, msg, sizeof msg), WEIR_EINVAL,
                     "%s", cases[i].text);
        cr_expect_null(e);
        cr_expect(strstr(msg, cases[i].msg), "%s: got '%s'", cases[i].text, msg);
    }
    weir_schema_destroy(s);
}

Test(expr, items_and_split)
{
    unsigned char row[512];
    weir_schema *s = row_schema(row);
    weir_expr *e;
    char msg[256];
    cr_assert_eq(weir_expr_compile_item("a * 2 AS doubled", s, 0, &e, msg, sizeof msg), 0, "%s", msg);
    cr_assert_str_eq(weir_expr_alias(e), "doubled");
    weir_expr_destroy(e);
    cr_assert_eq(weir_expr_compile_item("SUM(a * 2) AS total", s, 1, &e, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(weir_expr_agg(e), WEIR_AGG_SUM);
    weir_expr_destroy(e);
    cr_assert_eq(weir_expr_compile_item("SUM(SUM(a))", s, 1, &e, msg, sizeof msg), WEIR_EINVAL);
    cr_assert(strstr(msg, "an aggregate inside an aggregate"), "%s", msg);
    cr_assert_eq(weir_expr_compile_item("SUM(s)", s, 1, &e, msg, sizeof msg), WEIR_EINVAL);
    cr_assert(strstr(msg, "SUM of VARCHAR(10): a number is required"), "%s", msg);
    weir__list l;
    cr_assert_eq(weir__list_split("a, COALESCE(n, 1) AS c, 'x,y'", &l), 0);
    cr_assert_eq(l.n, 3);
    cr_assert_eq(l.lens[1], strlen("COALESCE(n, 1) AS c"));
    cr_assert_neq(weir__list_split("a, (b", &l), 0);
    cr_assert_neq(weir__list_split("a,,b", &l), 0);
    weir_schema_destroy(s);
}

/* A bare name is what SQL's lexer takes for one (Calcite's rule): '$' and
 * non-ASCII letters anywhere, digits after the first byte, so that the
 * fields a plan names ($f1) and a column named in any script are read
 * without quotes in both. */
Test(expr, bare_names_as_sql_reads_them)
{
    unsigned char row[256];
    weir_schema *s = tt_schema("t", "$f1 INT, größe INT, a$b INT", NULL);
    tt_row(s, row, "+I 4|5|6");
    static const struct { const char *text, *value; } cases[] = {
        {"$f1 * 2", "8"},
        {"größe + 1", "6"},
        {"a$b - $f1", "2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256], type[64];
        int err;
        eval_text(s, row, cases[i].text, out, sizeof out, type, &err);
        cr_assert_eq(err, 0, "%s: %s", cases[i].text, out);
        cr_assert_str_eq(out, cases[i].value, "%s", cases[i].text);
    }
    weir_expr *e;
    char msg[256];
    cr_assert_eq(weir_expr_compile("1x", s, &e, msg, sizeof msg), WEIR_EINVAL);
    weir_schema_destroy(s);
}

/* A number's CAST of a number literal, written or made by the binder (MOD's
 * divisor brought to the dividend's type), is worked out when the
 * expression is compiled: its node is the literal of the value, not a cast
 * evaluated for every row. A cast whose value is NULL or an error, a
 * TRY_CAST and a cast of a column stay casts; the values are what they
 * were. */
Test(expr, a_cast_of_a_number_literal_is_folded)
{
    unsigned char row[512];
    weir_schema *s = row_schema(row);
    static const struct { const char *text, *value, *type; bool folded; } cases[] = {
        {"CAST(1 AS BIGINT)", "1", "BIGINT NOT NULL", true},
        {"CAST(2.5 AS DOUBLE)", "2.5", "DOUBLE NOT NULL", true},
        {"CAST(7 AS DECIMAL(10, 2))", "7.00", "DECIMAL(10, 2) NOT NULL", true},
        {"TRY_CAST(1 AS BIGINT)", "1", "BIGINT", false},
        {"CAST(b AS DOUBLE)", "-3.0", "DOUBLE", false},
        /* a value that does not fit a DECIMAL is NULL (Flink's): left to the row */
        {"CAST(123456 AS DECIMAL(3, 1))", "null", "DECIMAL(3, 1) NOT NULL", false},
        {"CAST(1 / 0 AS BIGINT)", "error", "BIGINT NOT NULL", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_expr *e;
        char msg[256];
        cr_assert_eq(weir_expr_compile(cases[i].text, s, &e, msg, sizeof msg), 0, "%s: %s",
                     cases[i].text, msg);
        cr_assert_eq(e->root->op == OP_LIT, cases[i].folded, "%s: op %d", cases[i].text,
                     (int)e->root->op);
        weir_expr_destroy(e);
        char out[256], type[64];
        int err;
        eval_text(s, row, cases[i].text, out, sizeof out, type, &err);
        if (strcmp(cases[i].value, "error") != 0)
            cr_assert_str_eq(out, cases[i].value, "%s", cases[i].text);
        else
            cr_assert_neq(err, 0, "%s: %s", cases[i].text, out);
        cr_assert_str_eq(type, cases[i].type, "%s", cases[i].text);
    }
    /* MOD(b, 1000): the INT literal cast to b's BIGINT, folded */
    weir_expr *e;
    char msg[256];
    cr_assert_eq(weir_expr_compile("MOD(b, 1000)", s, &e, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(e->root->op, OP_BUILTIN);
    cr_assert_eq(e->root->args[1]->op, OP_LIT, "op %d", (int)e->root->args[1]->op);
    weir_expr_destroy(e);
    weir_schema_destroy(s);
}

/* ---- integer expressions in place (weir__int_calc) -------------------------- */

/* `text` compiled over s (it must compile). */
static weir_expr *compiled(const weir_schema *s, const char *text)
{
    weir_expr *e;
    char msg[256];
    cr_assert_eq(weir_expr_compile(text, s, &e, msg, sizeof msg), 0, "%s: %s", text, msg);
    return e;
}

/* Each of the n texts compiles and is not planned: as in-place tests (a
 * predicate) or as an in-place expression. */
static void refused_in_place(const weir_schema *s, const char *const *texts, size_t n,
                             bool as_tests)
{
    for (size_t k = 0; k < n; k++) {
        weir_expr *e = compiled(s, texts[k]);
        weir__int_calc p;
        weir__int_tests t;
        cr_expect(!(as_tests ? weir__int_tests_plan(e, &t) : weir__int_calc_plan(e, &p)),
                  "%s was planned", texts[k]);
        weir_expr_destroy(e);
    }
}

/* A random integer expression over the columns below: + - * / % MOD(),
 * unary minus, literals that divide by zero, overflow and wrap. */
static void random_int_expr(uint64_t *seed, int depth, char *out, size_t size)
{
    static const char *leaves[] = {"t", "sm", "i", "b", "i2", "b2", "0", "1", "-1", "7", "1000",
                                   "2147483647", "CAST(3 AS TINYINT)", "CAST(-2 AS SMALLINT)",
                                   "9223372036854775807"};
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t r = *seed >> 33;
    if (depth == 0 || r % 4 == 0) {
        snprintf(out, size, "%s", leaves[r / 4 % (sizeof leaves / sizeof leaves[0])]);
        return;
    }
    char a[256], b[256];
    random_int_expr(seed, depth - 1, a, sizeof a);
    random_int_expr(seed, depth - 1, b, sizeof b);
    switch (r / 4 % 7) {
    case 0: snprintf(out, size, "(%s + %s)", a, b); break;
    case 1: snprintf(out, size, "(%s - %s)", a, b); break;
    case 2: snprintf(out, size, "(%s * %s)", a, b); break;
    case 3: snprintf(out, size, "(%s / %s)", a, b); break;
    case 4: snprintf(out, size, "(%s %% %s)", a, b); break;
    case 5: snprintf(out, size, "MOD(%s, %s)", a, b); break;
    default: snprintf(out, size, "(-(%s))", a); break;
    }
}

/* The steps an expression plans into: its nodes less the implicit casts. */
static int int_steps(const weir__enode *n)
{
    if (n->op == OP_CAST && n->implicit)
        return int_steps(n->a);
    if (n->op == OP_BUILTIN)
        return 1 + int_steps(n->args[0]) + int_steps(n->args[1]);
    return 1 + (n->a ? int_steps(n->a) : 0) + (n->b ? int_steps(n->b) : 0);
}

/* The planned evaluation against the interpreter: the same error, NULL
 * and value on rows of edge values and NULLs, for expressions written out
 * and 3 000 random ones (every one planned but those longer than a plan
 * holds). */
Test(expr, integer_expressions_in_place_as_the_interpreter)
{
    weir_schema *s = tt_schema("t", "t TINYINT, sm SMALLINT, i INT, b BIGINT, i2 INT, b2 BIGINT",
                               NULL);
    static const char *values[] = {"0", "1", "-1", "2", "7", "-9", "null"};
    static const char *wide[] = {"127", "-128", "32767", "-32768", "2147483647", "-2147483648",
                                 "9223372036854775807", "-9223372036854775808"};
    enum { ROWS = 48 };
    unsigned char rows[ROWS][256];
    uint64_t seed = 12345;
    for (int k = 0; k < ROWS; k++) {
        char text[256], v[6][24];
        for (int c = 0; c < 6; c++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t r = seed >> 33;
            /* the widest values a column of that type holds */
            int fits = c == 0 ? 2 : c == 1 ? 4 : c == 2 || c == 4 ? 6 : 8;
            snprintf(v[c], sizeof v[c], "%s",
                     r % 3 == 0 ? wide[r / 3 % (uint64_t)fits] : values[r / 3 % 7]);
        }
        snprintf(text, sizeof text, "+I %s|%s|%s|%s|%s|%s", v[0], v[1], v[2], v[3], v[4], v[5]);
        tt_row(s, rows[k], text);
    }
    static const char *written[] = {"MOD(b, 1000)", "i * 100 + 1", "-i", "b / i2", "t + sm",
                                    "i2 % -1", "MOD(b2, -1)", "(i + 2147483647) * 2",
                                    "b * b2 - 9223372036854775807", "-(-t)"};
    int planned = 0;
    for (int x = 0; x < 3000 + 10; x++) {
        char text[1024];
        if (x < 10)
            snprintf(text, sizeof text, "%s", written[x]);
        else
            random_int_expr(&seed, 1 + x % 4, text, sizeof text);
        weir_expr *e = compiled(s, text);
        weir__int_calc p;
        if (!weir__int_calc_plan(e, &p)) {
            cr_assert_gt(int_steps(e->root), WEIR__INT_CALC, "%s was not planned", text);
            weir_expr_destroy(e);
            continue;
        }
        planned++;
        unsigned char scratch[4096] = {0};
        for (int k = 0; k < ROWS; k++) {
            weir__val want, got;
            const char *why_want = NULL, *why_got = NULL;
            int r_want = weir__expr_eval(e, rows[k], scratch, &want, &why_want);
            int r_got = weir__int_calc_eval(&p, rows[k], &got, &why_got);
            cr_assert_eq(r_got, r_want, "%s, row %d: error %d, the interpreter's %d", text, k,
                         r_got, r_want);
            if (r_want) {
                cr_assert_str_eq(why_got, why_want, "%s, row %d", text, k);
                continue;
            }
            cr_assert_eq(got.null, want.null, "%s, row %d: NULL %d, the interpreter's %d", text,
                         k, got.null, want.null);
            if (!want.null)
                cr_assert_eq(got.i, want.i, "%s, row %d: %lld, the interpreter's %lld", text, k,
                             (long long)got.i, (long long)want.i);
        }
        weir_expr_destroy(e);
    }
    cr_assert_gt(planned, 2000, "%d of 3010 expressions planned", planned);
    /* what is not an integer expression of columns and literals */
    static const char *refused[] = {"CAST(b AS DOUBLE) + 1", "b + 1.5", "CASE WHEN b > 0 THEN 1 END",
                                    "ABS(b)", "CAST(NULL AS INT) + b"};
    refused_in_place(s, refused, sizeof refused / sizeof refused[0], false);
    weir_schema_destroy(s);
}

/* A predicate whose comparison's left side is such an expression, with
 * literal non-zero divisors (`MOD(auction, 123) = 0`): planned as in-place
 * tests that hold exactly on the rows where the interpreter says TRUE; one
 * that could fail (a divisor that is a column or zero) is left to the
 * interpreter, which reports the error. */
Test(expr, integer_expression_tests_in_place_as_the_interpreter)
{
    weir_schema *s = tt_schema("t", "t TINYINT, sm SMALLINT, i INT, b BIGINT, i2 INT, b2 BIGINT",
                               NULL);
    static const char *rows_text[] = {
        "+I 1|2|3|4|5|6", "+I -1|-2|-3|-123|0|246", "+I null|7|null|123|-1|-9223372036854775808",
        "+I 127|-32768|2147483647|9223372036854775807|-2147483648|0", "+I 0|0|0|0|0|0",
        "+I 5|null|-7|-246|13|null"};
    enum { ROWS = sizeof rows_text / sizeof rows_text[0] };
    unsigned char rows[ROWS][256];
    for (int k = 0; k < ROWS; k++)
        tt_row(s, rows[k], rows_text[k]);
    static const char *planned[] = {
        "MOD(b, 123) = 0", "MOD(b, 123) = 0 AND i > 0", "i * 2 + 1 <> 5", "0 < -(sm * 3)",
        "MOD(b2, -1) = 0", "b / 2 >= 2 AND t > 0", "(i + 2147483647) * 2 < 0",
        "b2 - 1 > 0 AND t = 1", "t = -1 AND MOD(b, 3) = 0"};
    static const char *refused[] = {"MOD(b, i2) = 0", "b / 0 = 1", "MOD(b, 0) = 0",
                                    "MOD(b, 2) = 0 AND MOD(i, 2) = 0", "b + 1.5 > 2"};
    for (size_t x = 0; x < sizeof planned / sizeof planned[0]; x++) {
        weir_expr *e = compiled(s, planned[x]);
        weir__int_tests t;
        cr_assert(weir__int_tests_plan(e, &t), "%s was not planned", planned[x]);
        unsigned char scratch[4096] = {0};
        for (int k = 0; k < ROWS; k++) {
            weir__val v;
            const char *why = NULL;
            cr_assert_eq(weir__expr_eval(e, rows[k], scratch, &v, &why), 0, "%s", planned[x]);
            bool want = !v.null && v.i;
            cr_assert_eq(weir__int_tests_hold(&t, rows[k]), want, "%s on %s: the interpreter %s",
                         planned[x], rows_text[k], want ? "holds" : "does not");
        }
        weir_expr_destroy(e);
    }
    refused_in_place(s, refused, sizeof refused / sizeof refused[0], true);
    weir_schema_destroy(s);
}
