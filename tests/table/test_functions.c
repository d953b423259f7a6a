/* test_functions.c — the built-in scalar functions' registry (table/fn.h):
 * every wrong argument type refused at plan time with Flink's (Calcite's)
 * message, wrong argument counts, and what SQL's golden files cannot
 * write: strings that are not UTF-8, and a pattern known only per row
 * compiled once per thread.
 *
 * The values of the functions are in tests/sql/functions_*.sql.
 */
#include "table_internal.h"
#include "table/table_testutil.h"

static weir_schema *schema(void)
{
    return tt_schema("t", "i INT, b BIGINT, d DOUBLE, s VARCHAR(10), ts TIMESTAMP(3), "
                          "f BOOLEAN, p VARCHAR(20)",
                     NULL);
}

/* The value of `text` on `row` as Row.toString prints it. */
static void value_of(const weir_schema *s, const unsigned char *row, const char *text, char *out,
                     size_t size)
{
    weir_expr *e;
    char msg[512];
    int r = weir_expr_compile(text, s, &e, msg, sizeof msg);
    cr_assert_eq(r, 0, "%s: %s", text, msg);
    unsigned char scratch[8192];
    cr_assert_leq(e->scratch, sizeof scratch);
    memset(scratch, 0, sizeof scratch);
    weir__val v;
    const char *why = NULL;
    r = weir__expr_eval(e, row, scratch, &v, &why);
    if (r) {
        snprintf(out, size, "error: %s", why);
    } else if (v.null) {
        snprintf(out, size, "null");
    } else {
        const char *names[] = {"x"};
        weir_type t = weir_expr_type(e);
        const char *w;
        weir_schema *one = weir__schema_make("r", 1, names, &t, &w);
        cr_assert(one);
        unsigned char r1[1024] = {0};
        cr_assert_eq(weir__store_value(one, r1, 0, &v), 0);
        char buf[1200];
        weir_row_format(one, r1, buf, sizeof buf);
        buf[strlen(buf) - 1] = 0;
        snprintf(out, size, "%.250s", buf + 3);
        weir_schema_destroy(one);
    }
    weir_expr_destroy(e);
}

Test(functions, wrong_argument_types_are_refused_with_flinks_message)
{
    weir_schema *s = schema();
    static const struct { const char *text, *msg; } cases[] = {
        {"SUBSTRING(i, 1)", "Cannot apply 'SUBSTRING' to arguments of type 'SUBSTRING(<INTEGER>, "
                            "<INTEGER>)'. Supported form(s): 'SUBSTRING(<CHARACTER>, <INTEGER>)' "
                            "'SUBSTRING(<CHARACTER>, <INTEGER>, <INTEGER>)'"},
        {"SUBSTRING(s FROM 'x')", "'SUBSTRING(<VARCHAR(10)>, <VARCHAR(1)>)'"},
        {"CONCAT(s, i)", "Cannot apply 'CONCAT' to arguments of type 'CONCAT(<VARCHAR(10)>, "
                         "<INTEGER>)'. Supported form(s): 'CONCAT(<STRING>)'"},
        {"CONCAT_WS(i, s)", "Cannot apply 'CONCAT_WS'"},
        {"LPAD(s, 'x', s)", "Cannot apply 'LPAD' to arguments of type 'LPAD(<VARCHAR(10)>, "
                            "<VARCHAR(1)>, <VARCHAR(10)>)'. Supported form(s): 'LPAD(<STRING>, "
                            "<INTEGER>, <STRING>)'"},
        {"RPAD(s, d, s)", "'RPAD(<VARCHAR(10)>, <DOUBLE>, <VARCHAR(10)>)'"},
        {"REPLACE(s, i, s)", "Cannot apply 'REPLACE'"},
        {"REPEAT(s, d)", "Cannot apply 'REPEAT' to arguments of type 'REPEAT(<VARCHAR(10)>, "
                         "<DOUBLE>)'"},
        {"REVERSE(b)", "'REVERSE(<BIGINT>)'. Supported form(s): 'REVERSE(<STRING>)'"},
        {"INITCAP(f)", "'INITCAP(<BOOLEAN>)'. Supported form(s): 'INITCAP(<CHARACTER>)'"},
        {"UPPER(ts)", "'UPPER(<TIMESTAMP(3)>)'. Supported form(s): 'UPPER(<CHARACTER>)'"},
        {"CHAR_LENGTH(i)", "Cannot apply 'CHAR_LENGTH'"},
        {"LEFT(s, s)", "'LEFT(<VARCHAR(10)>, <VARCHAR(10)>)'. Supported form(s): 'LEFT(<STRING>, "
                       "<INTEGER>)'"},
        {"RIGHT(i, 1)", "Cannot apply 'RIGHT'"},
        {"TRIM(BOTH i FROM s)", "Cannot apply 'TRIM'"},
        {"LTRIM(i)", "'LTRIM(<INTEGER>)'. Supported form(s): 'LTRIM(<STRING>)' 'LTRIM(<STRING>, "
                     "<STRING>)'"},
        {"POSITION(i IN s)", "Cannot apply 'POSITION'"},
        {"LOCATE(s, s, s)", "'LOCATE(<VARCHAR(10)>, <VARCHAR(10)>, <VARCHAR(10)>)'"},
        {"ASCII(i)", "'ASCII(<INTEGER>)'. Supported form(s): 'ASCII(<CHARACTER>)'"},
        {"CHR(s)", "'CHR(<VARCHAR(10)>)'. Supported form(s): 'CHR(<INTEGER>)'"},
        {"CHR(d)", "'CHR(<DOUBLE>)'"},
        {"SPLIT_INDEX(s, s, s)", "Supported form(s): 'SPLIT_INDEX(<STRING>, <INTEGER>, "
                                 "<INTEGER>)' 'SPLIT_INDEX(<STRING>, <STRING>, <INTEGER>)'"},
        {"MD5(i)", "'MD5(<INTEGER>)'. Supported form(s): 'MD5(<STRING>)'"},
        {"SHA256(d)", "Cannot apply 'SHA256'"},
        {"SHA2(s, s)", "'SHA2(<STRING>, <INTEGER>)'"},
        {"TO_BASE64(i)", "Cannot apply 'TO_BASE64'"},
        {"FROM_BASE64(f)", "Cannot apply 'FROM_BASE64'"},
        {"REGEXP_EXTRACT(s, i)", "Cannot apply 'REGEXP_EXTRACT' to arguments of type "
                                 "'REGEXP_EXTRACT(<VARCHAR(10)>, <INTEGER>)'. Supported form(s): "
                                 "'REGEXP_EXTRACT(<STRING>, <STRING>, <INTEGER>)' "
                                 "'REGEXP_EXTRACT(<STRING>, <STRING>)'"},
        {"REGEXP_EXTRACT(s, s, s)", "Cannot apply 'REGEXP_EXTRACT'"},
        {"REGEXP_REPLACE(s, s, i)", "Cannot apply 'REGEXP_REPLACE'"},
        {"REGEXP(i, s)", "'REGEXP(<INTEGER>, <VARCHAR(10)>)'"},
        {"i LIKE 'a%'", "Cannot apply 'LIKE' to arguments of type '<INTEGER> LIKE <VARCHAR(2)>'. "
                        "Supported form(s): '<STRING> LIKE <STRING>' '<STRING> LIKE <STRING> "
                        "ESCAPE <STRING>'"},
        {"s SIMILAR TO i", "'<VARCHAR(10)> SIMILAR TO <INTEGER>'"},
        /* numeric */
        {"ABS(s)", "Cannot apply 'ABS' to arguments of type 'ABS(<VARCHAR(10)>)'. Supported "
                   "form(s): 'ABS(<NUMERIC>)' 'ABS(<INTERVAL_DAY_TIME>)'"},
        {"ROUND(s)", "Cannot apply 'ROUND' to arguments of type 'ROUND(<VARCHAR(10)>)'. "
                     "Supported form(s): 'ROUND(<NUMERIC>, <INTEGER>)' 'ROUND(<NUMERIC>)'"},
        {"ROUND(d, d)", "'ROUND(<DOUBLE>, <DOUBLE>)'"},
        {"TRUNCATE(f, 1)", "Cannot apply 'TRUNCATE'"},
        {"FLOOR(s)", "'FLOOR(<VARCHAR(10)>)'. Supported form(s): 'FLOOR(<NUMERIC>)'"},
        {"CEIL(f)", "Cannot apply 'CEIL'"},
        {"SIGN(ts)", "Cannot apply 'SIGN'"},
        {"POWER(s, 2)", "'POWER(<VARCHAR(10)>, <INTEGER>)'. Supported form(s): 'POWER(<NUMERIC>, "
                        "<NUMERIC>)'"},
        {"SQRT(f)", "'SQRT(<BOOLEAN>)'. Supported form(s): 'SQRT(<NUMERIC>)'"},
        {"LN(s)", "Cannot apply 'LN'"},
        {"LOG(s)", "Supported form(s): 'LOG(<NUMERIC>)' 'LOG(<NUMERIC>, <NUMERIC>)'"},
        {"LOG10(ts)", "Cannot apply 'LOG10'"},
        {"LOG2(s)", "Cannot apply 'LOG2'"},
        {"EXP(f)", "Cannot apply 'EXP'"},
        {"SIN(s)", "Cannot apply 'SIN'"},
        {"ATAN2(i, s)", "'ATAN2(<INTEGER>, <VARCHAR(10)>)'"},
        {"DEGREES(f)", "Cannot apply 'DEGREES'"},
        {"MOD(d, 2)", "'MOD(<DOUBLE>, <INTEGER>)'. Supported form(s): 'MOD(<EXACT_NUMERIC>, "
                      "<EXACT_NUMERIC>)'"},
        {"RAND(s)", "'RAND(<VARCHAR(10)>)'. Supported form(s): 'RAND()' 'RAND(<NUMERIC>)'"},
        {"RAND_INTEGER(s)", "Cannot apply 'RAND_INTEGER'"},
        /* conditional */
        {"IF(i, 1, 2)", "Cannot apply 'IF' to arguments of type 'IF(<INTEGER>, <INTEGER>, "
                        "<INTEGER>)'. Supported form(s): 'IF(<BOOLEAN>, <NUMERIC>, <NUMERIC>)' "
                        "'IF(<BOOLEAN>, <STRING>, <STRING>)'"},
        {"IF(f, 1, 'a')", "'IF(<BOOLEAN>, <INTEGER>, <VARCHAR(1)>)'"},
        {"GREATEST(i, s)", "Invalid function call: GREATEST(INT, VARCHAR(10)): All types in a "
                           "comparison should support 'EQUALS' comparison with each other. Can "
                           "not compare INT with VARCHAR(10)"},
        {"LEAST(ts, 1, 2)", "Can not compare TIMESTAMP(3) with INT NOT NULL"},
        {"NULLIF(i, s)", "cannot compare INT with VARCHAR(10)"},
        {"IFNULL(i, s)", "IFNULL of INT and VARCHAR(10)"},
        {"i BETWEEN 's' AND 2", "cannot compare INT with VARCHAR(1)"},
        {"s IS DISTINCT FROM i", "cannot compare VARCHAR(10) with INT"},
        {"i IS TRUE", "Cannot apply 'IS TRUE' to arguments of type '<INTEGER> IS TRUE'. "
                      "Supported form(s): '<BOOLEAN> IS TRUE'"},
        {"s IS NOT UNKNOWN", "'<VARCHAR(10)> IS UNKNOWN'"},
        /* temporal */
        {"DATE_FORMAT(i, 'yyyy')", "Cannot apply 'DATE_FORMAT' to arguments of type "
                                   "'DATE_FORMAT(<INTEGER>, <VARCHAR(4)>)'. Supported form(s): "
                                   "'DATE_FORMAT(<TIMESTAMP>, <STRING>)' 'DATE_FORMAT(<STRING>, "
                                   "<STRING>)'"},
        {"DATE_FORMAT(ts, i)", "Cannot apply 'DATE_FORMAT'"},
        /* Calcite's DATETIME family: DATE, TIME, TIMESTAMP */
        {"YEAR(s)", "'YEAR(<VARCHAR(10)>)'. Supported form(s): 'YEAR(<DATETIME>)'"},
        {"DAYOFWEEK(i)", "Cannot apply 'DAYOFWEEK'"},
        {"EXTRACT(HOUR FROM s)", "Cannot apply 'EXTRACT'"},
        {"FLOOR(s TO DAY)", "'FLOOR(<VARCHAR(10)>)'. Supported form(s): 'FLOOR(<DATETIME>)'"},
        {"FROM_UNIXTIME(ts)", "'FROM_UNIXTIME(<TIMESTAMP(3)>)'. Supported form(s): "
                              "'FROM_UNIXTIME(<INTEGER>)' 'FROM_UNIXTIME(<INTEGER>, <STRING>)'"},
        {"FROM_UNIXTIME(d)", "Cannot apply 'FROM_UNIXTIME'"},
        {"TO_TIMESTAMP(i)", "'TO_TIMESTAMP(<INTEGER>)'. Supported form(s): "
                            "'TO_TIMESTAMP(<CHARACTER>)' 'TO_TIMESTAMP(<CHARACTER>, <CHARACTER>)'"},
        {"UNIX_TIMESTAMP(ts)", "Cannot apply 'UNIX_TIMESTAMP'"},
        {"TO_TIMESTAMP_LTZ(s, 3)", "Cannot apply 'TO_TIMESTAMP_LTZ'"},
        {"TIMESTAMPADD(HOUR, s, ts)", "Cannot apply 'TIMESTAMPADD' to arguments of type "
                                      "'TIMESTAMPADD(<SYMBOL>, <VARCHAR(10)>, <TIMESTAMP(3)>)'"},
        {"TIMESTAMPADD(HOUR, 1, s)", "Cannot apply 'TIMESTAMPADD'"},
        {"TIMESTAMPDIFF(DAY, i, ts)", "Cannot apply 'TIMESTAMPDIFF'"},
        {"CONVERT_TZ(ts, 'UTC', 'UTC')", "Cannot apply 'CONVERT_TZ'"},
        /* JSON */
        {"JSON_VALUE(i, '$.a')", "Cannot apply 'JSON_VALUE' to arguments of type "
                                 "'JSON_VALUE(<INTEGER>, <VARCHAR(3)>)'. Supported form(s): "
                                 "'JSON_VALUE(<STRING>, <STRING>)'"},
        {"JSON_QUERY(s, b)", "'JSON_QUERY(<VARCHAR(10)>, <BIGINT>)'"},
        {"JSON_EXISTS(f, '$')", "Cannot apply 'JSON_EXISTS'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_expr *e = NULL;
        char msg[1024] = "";
        cr_expect_eq(weir_expr_compile(cases[i].text, s, &e, msg, sizeof msg), WEIR_EINVAL, "%s",
                     cases[i].text);
        cr_expect(strstr(msg, cases[i].msg), "%s: got '%s'", cases[i].text, msg);
        weir_expr_destroy(e);
    }
    weir_schema_destroy(s);
}

Test(functions, wrong_counts_and_bad_literals)
{
    weir_schema *s = schema();
    static const struct { const char *text, *msg; } cases[] = {
        {"REPEAT(s)", "Invalid number of arguments to function 'REPEAT'. Was expecting 2 "
                      "arguments"},
        {"SUBSTRING(s)", "No match found for function signature SUBSTRING(<CHARACTER>)"},
        {"REGEXP_EXTRACT(s, s, 1, 2)",
         "No match found for function signature REGEXP_EXTRACT(<CHARACTER>, <CHARACTER>, "
         "<NUMERIC>, <NUMERIC>)"},
        {"UUID(1)", "Invalid number of arguments to function 'UUID'. Was expecting 0 arguments"},
        {"s LIKE 'a' ESCAPE 'xy'", "Invalid escape character 'xy'"},
        {"s LIKE 'a!' ESCAPE '!'", "Invalid escape sequence 'a!'"},
        {"s LIKE 'a!b' ESCAPE '!'", "Invalid escape sequence 'a!b'"},
        {"s SIMILAR TO '(a'", "Invalid regular expression '(a'"},
        {"s SIMILAR TO 'a]'", "Invalid regular expression in a SIMILAR TO pattern"},
        {"SHA2(s, 100)", "SHA2: unsupported hash length 100"},
        {"TRIM(LEADING 'x' s)", "expected FROM in TRIM"},
        {"POSITION('a' s)", "expected IN in POSITION"},
        {"s IS NOT 1", "expected NULL, TRUE, FALSE, UNKNOWN, JSON or DISTINCT FROM after IS NOT"},
        {"s SIMILAR 'a'", "expected TO after SIMILAR"},
        {"COUNT(DISTINCT UPPER(s))", "aggregate function COUNT is not allowed here"},
        {"LOCALTIME()", "unknown function 'LOCALTIME'"},
        {"PI(1)", "Invalid number of arguments to function 'PI'. Was expecting 0 arguments"},
        {"POWER(2)", "Invalid number of arguments to function 'POWER'. Was expecting 2"},
        {"RAND(i)", "RAND's seed must be a literal"},
        {"RAND_INTEGER(i, 10)", "RAND_INTEGER's seed must be a literal"},
        {"LOG(1, 2, 3)", "No match found for function signature LOG(<NUMERIC>, <NUMERIC>, "
                         "<NUMERIC>)"},
        {"DATE_FORMAT(ts, 'yyyy-MM-dd bb')", "DATE_FORMAT: Unknown pattern letter: b"},
        {"DATE_FORMAT(ts, 'HH:mm z')", "pattern letter 'z' is a time zone's"},
        {"DATE_FORMAT(ts, 'ddd')", "Too many pattern letters: d"},
        {"DATE_FORMAT(ts, 'yyyy ''quoted')", "Pattern ends with an incomplete string literal"},
        {"FROM_UNIXTIME(b, 'yyyy q')", "FROM_UNIXTIME: Illegal pattern character 'q'"},
        {"TO_TIMESTAMP(s, 'yyyy-MM-dd{')", "Pattern includes reserved character: '{'"},
        {"EXTRACT(EPOCH FROM ts)", "Unit 'EPOCH' is not supported."},
        {"EXTRACT(FORTNIGHT FROM ts)", "EXTRACT: 'FORTNIGHT' is not one of its units"},
        {"FLOOR(ts TO DOW)", "FLOOR: 'DOW' is not one of its units (MILLENNIUM, CENTURY"},
        {"TIMESTAMPADD(DOY, 1, ts)", "TIMESTAMPADD: 'DOY' is not one of its units"},
        {"TO_TIMESTAMP_LTZ(b, 6)", "The precision value '6' for function "
                                   "TO_TIMESTAMP_LTZ(numeric, precision) is unsupported, the "
                                   "supported value is '0' for second or '3' for millisecond."},
        {"CURRENT_TIMESTAMP()", "unknown function 'CURRENT_TIMESTAMP'"},
        {"JSON_VALUE(s, '$.a' RETURNING TIMESTAMP(3))",
         "Unsupported type 'TIMESTAMP(3)' for RETURNING in JSON_VALUE()."},
        {"JSON_VALUE(s, '$.a' RETURNING INT DEFAULT 'x' ON EMPTY)",
         "JSON_VALUE: the DEFAULT value is VARCHAR(1), not of its RETURNING type INTEGER"},
        {"JSON_QUERY(s, '$..a')", "JSON_QUERY: a JSON path with '..'"},
        {"JSON_VALUE(s, '$[*]')", "JSON_VALUE: a JSON path with a subscript that is not a name "
                                  "or an index (wildcards, slices and filters are not "
                                  "supported): '$[*]'"},
        {"JSON_EXISTS(s, '$.a.*')", "a JSON path with a wildcard"},
        {"JSON_VALUE(s, '')", "JSON_VALUE: an empty JSON path"},
        {"JSON_VALUE(s, '$.a' NULL ON)", "at 28: expected EMPTY or ERROR after ON"},
        {"JSON_VALUE(s, '$.a' NULL)", "at 25: expected ON EMPTY or ON ERROR"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_expr *e = NULL;
        char msg[1024] = "";
        cr_expect_eq(weir_expr_compile(cases[i].text, s, &e, msg, sizeof msg), WEIR_EINVAL, "%s",
                     cases[i].text);
        cr_expect(strstr(msg, cases[i].msg), "%s: got '%s'", cases[i].text, msg);
        weir_expr_destroy(e);
    }
    weir_schema_destroy(s);
}

/* A string that is not UTF-8 (a row's bytes as a file gave them): the
 * functions count and cut characters without reading past it (a bad byte
 * is one character, as Java's U+FFFD for it), and a regular expression
 * still matches around its bad bytes (which PCRE2 matches with nothing,
 * not even \W: Java would see U+FFFD there). */
Test(functions, strings_that_are_not_utf8)
{
    weir_schema *sc = schema();
    unsigned char row[256];
    tt_row(sc, row, "+I 1|2|1.5|x|0|true|x");
    /* "a\xFFb\xC3" in s: a stray byte and a cut-off character */
    weir_row_set_string(sc, row, 3, "a\xff" "b\xc3", 4);
    char out[256];
    static const struct { const char *text, *value; } cases[] = {
        {"CHAR_LENGTH(s)", "4"},
        {"REGEXP_EXTRACT(s, 'b')", "b"},
        {"REGEXP_EXTRACT(s, '(\\w)\\W(\\w)', 2)", "null"},
        {"REGEXP_EXTRACT(s, '(\\w)$')", "null"},
        {"REGEXP_EXTRACT(s, '(\\w)', 1)", "a"},
        {"REGEXP(s, '^a.b')", "false"}, /* a '.' is a character, and \xFF is none */
        {"REGEXP_REPLACE(s, 'b', 'B') = 'a' || SUBSTRING(s, 2, 1) || 'B' || SUBSTRING(s, 4)",
         "true"},
        {"s LIKE 'a%'", "true"},
        {"CHAR_LENGTH(REVERSE(s))", "4"},
        {"TO_BASE64(s)", "Yf9iww=="},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        value_of(sc, row, cases[i].text, out, sizeof out);
        cr_expect_str_eq(out, cases[i].value, "%s: %s", cases[i].text, out);
    }
    weir_schema_destroy(sc);
}

/* A pattern that is a column: compiled when a row first needs it, then
 * from the thread's cache; a bad one is NULL row after row. */
Test(functions, patterns_per_row)
{
    weir_schema *sc = schema();
    unsigned char row[256];
    char out[256];
    static const struct { const char *p, *value; } cases[] = {
        {"(\\d+)", "12"}, {"[a-z]+(\\d)", "1"}, {"(", "null"}, {"(\\d+)", "12"}, {"x(y)", "null"},
    };
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            char text[128];
            snprintf(text, sizeof text, "+I 1|2|1.5|ab12cd|0|true|%s", cases[i].p);
            tt_row(sc, row, text);
            value_of(sc, row, "REGEXP_EXTRACT(s, p, 1)", out, sizeof out);
            cr_expect_str_eq(out, cases[i].value, "%s", cases[i].p);
        }
    weir_schema_destroy(sc);
}

/* Result types as Flink's (the planner's type inference): the numeric
 * functions of TINYINT, SMALLINT and FLOAT keep their argument's type
 * (ABS, SIGN, FLOOR, CEIL, ROUND, TRUNCATE), POWER and SQRT are DOUBLE,
 * MOD is of its divisor's type (Calcite's NULLABLE_MOD); the clock's local
 * functions are LOCALTIMESTAMP TIMESTAMP(3), CURRENT_DATE DATE, CURRENT_TIME
 * and LOCALTIME TIME(0); FLOOR of a TIMESTAMP_LTZ(9) is TIMESTAMP_LTZ(9). */
Test(functions, result_types)
{
    weir_schema *s = tt_schema("t", "t TINYINT, m SMALLINT, f FLOAT, i INT, b BIGINT, "
                                    "l TIMESTAMP_LTZ(9), ts TIMESTAMP(6)",
                               NULL);
    static const struct { const char *text, *type; } cases[] = {
        {"ABS(t)", "TINYINT"},          {"ABS(m)", "SMALLINT"},     {"ABS(f)", "FLOAT"},
        {"SIGN(t)", "TINYINT"},         {"SIGN(f)", "FLOAT"},       {"FLOOR(m)", "SMALLINT"},
        {"CEIL(f)", "FLOAT"},           {"ROUND(t, -1)", "TINYINT"}, {"ROUND(f, 1)", "FLOAT"},
        {"TRUNCATE(m, 1)", "SMALLINT"}, {"POWER(t, m)", "DOUBLE"},  {"SQRT(f)", "DOUBLE"},
        {"MOD(i, t)", "TINYINT"},       {"MOD(t, i)", "INT"},       {"MOD(b, m)", "SMALLINT"},
        {"LOCALTIMESTAMP", "TIMESTAMP(3)"}, {"CURRENT_DATE", "DATE"},
        {"CURRENT_TIME", "TIME(0)"},    {"LOCALTIME", "TIME(0)"},
        {"CURRENT_TIMESTAMP", "TIMESTAMP_LTZ(3)"}, {"FLOOR(l TO HOUR)", "TIMESTAMP_LTZ(9)"},
        {"TIMESTAMPADD(MICROSECOND, 1, ts)", "TIMESTAMP(6)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_expr *e = NULL;
        char msg[512] = "", got[64];
        cr_assert_eq(weir_expr_compile(cases[i].text, s, &e, msg, sizeof msg), 0, "%s: %s",
                     cases[i].text, msg);
        weir_type t = weir_expr_type(e);
        t.not_null = false;
        weir_type_format(t, got, sizeof got);
        cr_expect_str_eq(got, cases[i].type, "%s", cases[i].text);
        weir_expr_destroy(e);
    }
    weir_schema_destroy(s);
}
