/* test_functions_collection.c — the collection functions (table/fn_collection.c)
 * case by case, as Flink's runtime functions answer them: NULL collections
 * and NULL elements, needles cast to the element type, empty arrays, maps
 * with NULL values, a result past its capacity; and each refusal of a wrong
 * argument.
 */
#include "table_internal.h"
#include "table/table_testutil.h"

static weir_schema *schema(void)
{
    /* by the builder: tt_schema splits its text at commas outside
     * parentheses, and MAP<K, V> has one inside angle brackets */
    weir_schema_builder *b = weir_schema_builder_create("t");
    cr_assert(b);
    cr_assert_eq(weir_schema_column_sql(b, "i", "INT"), 0);
    cr_assert_eq(weir_schema_column_sql(b, "arr", "ARRAY<INT>"), 0);
    cr_assert_eq(weir_schema_column_sql(b, "tags", "ARRAY<STRING>"), 0);
    cr_assert_eq(weir_schema_column_sql(b, "m", "MAP<STRING, INT>"), 0);
    weir_schema *s;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

/* The value of `text` on `row`, as Row.toString prints it, or "error: ...". */
static void value_of(const weir_schema *s, const unsigned char *row, const char *text, char *out,
                     size_t size)
{
    weir_expr *e;
    char msg[512];
    int r = weir_expr_compile(text, s, &e, msg, sizeof msg);
    cr_assert_eq(r, 0, "%s: %s", text, msg);
    static unsigned char scratch[65536];
    cr_assert_leq(e->scratch, sizeof scratch);
    memset(scratch, 0, sizeof scratch);
    weir__val v;
    const char *why = NULL;
    r = weir__expr_eval(e, row, scratch, &v, &why);
    if (r) {
        snprintf(out, size, "error: %s", why);
    } else {
        weir_type t = weir_expr_type(e);
        int n = weir__format_val(t, &v, WEIR_ROW_STYLE_SQL, NULL, out, size);
        cr_assert(n >= 0 && (size_t)n < size);
    }
    weir_expr_destroy(e);
}

Test(functions_collection, cases)
{
    weir_schema *s = schema();
    unsigned char row[4096];
    weir_row_init(s, row, WEIR_ROW_INSERT);
    weir_row_set_int(s, row, 0, 2);
    for (int c = 1; c <= 3; c++)
        cr_assert_eq(weir_row_set_null(s, row, c), 0); /* the collections NULL */
    static const struct { const char *text, *want; } cases[] = {
        /* ARRAY_CONTAINS: a NULL needle finds a NULL element; NULL array NULL */
        {"ARRAY_CONTAINS(ARRAY[1, 2, 3], 2)", "true"},
        {"ARRAY_CONTAINS(ARRAY[1, 2, 3], 4)", "false"},
        {"ARRAY_CONTAINS(ARRAY[1, NULL], CAST(NULL AS INT))", "true"},
        {"ARRAY_CONTAINS(ARRAY[1, 2], CAST(NULL AS INT))", "false"},
        {"ARRAY_CONTAINS(arr, 1)", "null"},
        {"ARRAY_CONTAINS(ARRAY[CAST(1 AS BIGINT)], i - 1)", "true"},
        {"ARRAY_CONTAINS(ARRAY[0.5, 2.0], i)", "true"},
        {"ARRAY_CONTAINS(ARRAY['a', 'bb'], 'bb')", "true"},
        /* ARRAY_POSITION: 1-based, 0 when not there, NULL for a NULL needle */
        {"ARRAY_POSITION(ARRAY[5, 6, 5], 5)", "1"},
        {"ARRAY_POSITION(ARRAY[5, 6, 5], 6)", "2"},
        {"ARRAY_POSITION(ARRAY[5, 6], 7)", "0"},
        {"ARRAY_POSITION(ARRAY[5, NULL], CAST(NULL AS INT))", "null"},
        /* ARRAY_REMOVE: every equal element, the order kept */
        {"ARRAY_REMOVE(ARRAY[1, 2, 3, NULL, 3], 3)", "[1, 2, null]"},
        {"ARRAY_REMOVE(ARRAY[NULL, 1, NULL], CAST(NULL AS INT))", "[1]"},
        {"ARRAY_REMOVE(ARRAY[1, 1], 1)", "[]"},
        /* ARRAY_DISTINCT, ARRAY_REVERSE */
        {"ARRAY_DISTINCT(ARRAY[3, 1, 3, NULL, 1, NULL])", "[3, 1, null]"},
        {"ARRAY_DISTINCT(ARRAY['b', 'a', 'b'])", "[b, a]"},
        {"ARRAY_REVERSE(ARRAY[1, NULL, 3])", "[3, null, 1]"},
        {"ARRAY_REVERSE(ARRAY_REMOVE(ARRAY[1], 1))", "[]"},
        /* ARRAY_MAX, ARRAY_MIN skip NULLs */
        {"ARRAY_MAX(ARRAY[3, NULL, 7, -1])", "7"},
        {"ARRAY_MIN(ARRAY[3, NULL, 7, -1])", "-1"},
        {"ARRAY_MAX(ARRAY[CAST(NULL AS INT)])", "null"},
        {"ARRAY_MIN(ARRAY['pear', 'apple', 'é'])", "apple"},
        {"ARRAY_MAX(ARRAY['pear', 'apple', 'é'])", "é"},
        {"ARRAY_MAX(ARRAY[1.5, 2.25])", "2.25"},
        /* ARRAY_CONCAT: NULL if any is */
        {"ARRAY_CONCAT(ARRAY[1], ARRAY[2, 3], ARRAY[4])", "[1, 2, 3, 4]"},
        {"ARRAY_CONCAT(ARRAY[1], arr)", "null"},
        {"ARRAY_CONCAT(ARRAY[1, NULL])", "[1, null]"},
        /* ARRAY_JOIN */
        {"ARRAY_JOIN(ARRAY['a', 'b', 'c'], ', ')", "a, b, c"},
        {"ARRAY_JOIN(ARRAY['a', NULL, 'c'], '')", "ac"},
        {"ARRAY_JOIN(ARRAY['a', NULL], '-', 'NULL')", "a-NULL"},
        {"ARRAY_JOIN(ARRAY[CAST(NULL AS STRING)], '-')", ""},
        {"ARRAY_JOIN(tags, '-')", "null"},
        /* ELEMENT */
        {"ELEMENT(ARRAY[42])", "42"},
        {"ELEMENT(ARRAY['x'])", "x"},
        {"ELEMENT(ARRAY_REMOVE(ARRAY[1], 1))", "null"},
        {"ELEMENT(ARRAY[1, 2])", "error: Array has more than one element."},
        /* MAP_KEYS, MAP_VALUES, MAP_ENTRIES */
        {"MAP_KEYS(MAP['a', 1, 'b', 2])", "[a, b]"},
        {"MAP_VALUES(MAP['a', 1, 'b', CAST(NULL AS INT)])", "[1, null]"},
        {"MAP_ENTRIES(MAP['a', 1])", "[(a, 1)]"},
        {"MAP_KEYS(m)", "null"},
        {"CARDINALITY(MAP_VALUES(MAP['k', 1, 'k', 2]))", "1"},
        {"MAP_VALUES(MAP['k', 1, 'k', 2])[1]", "2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char got[512];
        value_of(s, row, cases[i].text, got, sizeof got);
        cr_expect_str_eq(got, cases[i].want, "%s", cases[i].text);
    }
    weir_schema_destroy(s);
}

Test(functions_collection, wrong_arguments_are_refused)
{
    weir_schema *s = schema();
    static const struct { const char *text, *msg; } cases[] = {
        {"ARRAY_CONTAINS(ARRAY[1], 'x')",
         "Invalid input arguments. Expected signatures are: ARRAY_CONTAINS(haystack <ARRAY>, "
         "needle <ARRAY ELEMENT>)"},
        {"ARRAY_CONTAINS(i, 1)", "ARRAY_CONTAINS(haystack <ARRAY>, needle <ARRAY ELEMENT>)"},
        {"ARRAY_POSITION(m, 1)", "ARRAY_POSITION(haystack <ARRAY>"},
        {"ARRAY_DISTINCT(m)", "ARRAY_DISTINCT(array <ARRAY>)"},
        {"ELEMENT(i)", "ELEMENT(<ARRAY>)"},
        {"MAP_KEYS(arr)", "MAP_KEYS(<MAP>)"},
        {"ARRAY_JOIN(arr, ',')", "ARRAY_JOIN(<ARRAY<STRING>>"},
        {"ARRAY_CONCAT(arr, tags)", "ARRAY_CONCAT(<COMMON>"},
        {"ARRAY_MAX(ARRAY[TRUE])", "ARRAY_MAX(array <ARRAY of a comparable type>)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_expr *e = NULL;
        char msg[512];
        int r = weir_expr_compile(cases[i].text, s, &e, msg, sizeof msg);
        cr_expect_neq(r, 0, "%s compiled", cases[i].text);
        cr_expect(strstr(msg, cases[i].msg) != NULL, "%s: %s", cases[i].text, msg);
        weir_expr_destroy(e);
    }
    weir_schema_destroy(s);
}

/* A result with more elements than its capacity fails the row, never cut:
 * an ARRAY_CONCAT's capacity is its arguments' together, so it holds them. */
Test(functions_collection, concat_holds_all_its_arguments)
{
    weir_schema *s = schema();
    unsigned char row[4096];
    weir_row_init(s, row, WEIR_ROW_INSERT);
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text, "CARDINALITY(ARRAY_CONCAT(ARRAY[");
    for (int k = 0; k < 40; k++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%d", k ? ", " : "", k);
    snprintf(text + n, sizeof text - n, "], ARRAY[1, 2], ARRAY[3]))");
    char got[64];
    value_of(s, row, text, got, sizeof got);
    cr_expect_str_eq(got, "43");
    weir_schema_destroy(s);
}
