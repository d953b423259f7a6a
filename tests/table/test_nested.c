/* test_nested.c — the nested types through the C API (weir/row.h): ROW,
 * ARRAY and MAP type text both ways, one description per distinct type,
 * their parts (weir_type_nested_*), capacities resolved by the schema
 * builder, values set from JSON (weir_row_set_json: where a value is
 * wrong, the capacity never cut) and written as JSON and as Row.toString,
 * equal values as equal bytes, a ROW's fields set one by one
 * (weir_row_set_field_*: the bytes the JSON route writes), and an
 * expression reading them.
 */
#include <string.h>

#include "weir.h"
#include <criterion/criterion.h>

Test(nested, parse_and_format)
{
    static const struct { const char *in, *out; } cases[] = {
        {"ROW<a INT, b STRING>", "ROW<`a` INT, `b` VARCHAR(0)>"},
        {"row(a int not null, `b c` varchar(3)) not null",
         "ROW<`a` INT NOT NULL, `b c` VARCHAR(3)> NOT NULL"},
        {"ARRAY<ARRAY<BIGINT>>", "ARRAY<ARRAY<BIGINT>>"},
        {"MAP<STRING, ROW<x DECIMAL(5, 2), t TIMESTAMP(3)>>",
         "MAP<VARCHAR(0), ROW<`x` DECIMAL(5, 2), `t` TIMESTAMP(3)>>"},
        {"ROW<a INT 'the a', b ARRAY<INT>>", "ROW<`a` INT, `b` ARRAY<INT>>"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_type t;
        char err[128], buf[256];
        cr_assert_eq(weir_type_parse(cases[i].in, &t, err, sizeof err), 0, "%s: %s",
                     cases[i].in, err);
        weir_type_format(t, buf, sizeof buf);
        cr_assert_str_eq(buf, cases[i].out);
    }
    static const char *bad[] = {"ROW<>", "ROW<a>", "ARRAY<INT", "ARRAY<INT, INT>", "MAP<INT>",
                                "ROW<a INT, a INT>", "ARRAY<INTERVAL>", "ROW<a INT) ",
                                "ARRAY(INT)"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        weir_type t;
        char err[128] = "";
        cr_assert_neq(weir_type_parse(bad[i], &t, err, sizeof err), 0, "%s parsed", bad[i]);
        cr_assert_neq(err[0], 0, "%s: no message", bad[i]);
    }
}

Test(nested, one_description_per_type)
{
    weir_type a, b, c;
    cr_assert_eq(weir_type_parse("ROW<x INT, y ARRAY<STRING>>", &a, NULL, 0), 0);
    cr_assert_eq(weir_type_parse("row< x int , y array< string > >", &b, NULL, 0), 0);
    cr_assert_eq(weir_type_parse("ROW<x INT, z ARRAY<STRING>>", &c, NULL, 0), 0);
    cr_assert_eq(a.capacity, b.capacity);
    cr_assert_neq(a.capacity, c.capacity);
    cr_assert_eq(weir_type_nested_count(a), 2);
    cr_assert_str_eq(weir_type_nested_name(a, 1), "y");
    cr_assert_null(weir_type_nested_name(a, 2));
    weir_type y = weir_type_nested_type(a, 1);
    cr_assert_eq(y.id, WEIR_TYPE_ARRAY);
    cr_assert_eq(weir_type_nested_type(y, 0).id, WEIR_TYPE_VARCHAR);
    cr_assert_eq(weir_type_nested_type(y, 1).id, WEIR_TYPE_NULL);
    cr_assert_eq(weir_type_nested_count(weir_type_nested_type(a, 0)), 0);
    cr_assert(weir_type_casts_implicitly(a, b));
    cr_assert_not(weir_type_casts_implicitly(a, (weir_type){.id = WEIR_TYPE_INT}));
}

static weir_schema *schema(uint32_t strings, uint32_t collections)
{
    weir_schema_builder *b = weir_schema_builder_create("t");
    cr_assert_not_null(b);
    cr_assert_eq(weir_schema_builder_string_capacity(b, strings), 0);
    cr_assert_eq(weir_schema_builder_collection_capacity(b, collections), 0);
    cr_assert_eq(weir_schema_column_sql(b, "id", "INT"), 0);
    cr_assert_eq(weir_schema_column_sql(b, "r", "ROW<a INT, s STRING, tags ARRAY<STRING>>"), 0);
    cr_assert_eq(weir_schema_column_sql(b, "m", "MAP<STRING, DOUBLE>"), 0);
    weir_schema *s = NULL;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

Test(nested, capacities_resolved_by_the_schema)
{
    weir_schema *s = schema(5, 3);
    char buf[256];
    weir_type_format(weir_schema_column_type(s, 1), buf, sizeof buf);
    cr_assert_str_eq(buf, "ROW<`a` INT, `s` VARCHAR(5), `tags` ARRAY<VARCHAR(5)>>");
    cr_assert_eq(weir_type_nested_count(weir_type_nested_type(weir_schema_column_type(s, 1), 2)),
                 3);
    cr_assert_eq(weir_type_nested_count(weir_schema_column_type(s, 2)), 3);
    /* the header (8), INT (4), the ROW: 1 null byte, a at 4, s at 8 (4 + 5), tags at
     * 20 (count 4, bits 1, 3 strings of 12 at 8: 44), 64 in all, then the MAP */
    cr_assert_eq(weir_schema_row_size(s) % 8, 0);
    weir_schema_destroy(s);

    weir_schema_builder *b = weir_schema_builder_create("t");
    cr_assert_eq(weir_schema_builder_collection_capacity(b, 0), WEIR_EINVAL);
    weir_schema_builder_destroy(b);
    b = weir_schema_builder_create("big");
    cr_assert_eq(weir_schema_builder_collection_capacity(b, 4096), 0);
    weir_schema_column_sql(b, "a", "ARRAY<VARCHAR(100)>");
    weir_schema *big = NULL;
    char err[256] = "";
    cr_assert_neq(weir_schema_build(b, &big, err, sizeof err), 0);
    cr_assert(strstr(err, "column 'a'"), "%s", err);
}

Test(nested, json_in_and_out)
{
    weir_schema *s = schema(5, 3);
    unsigned char row[4096], row2[4096];
    weir_row_init(s, row, WEIR_ROW_INSERT);
    char why[256];
    const char *m = "{\"k\": 1.5, \"n\": null}";
    const char *r = "{\"a\": 1, \"s\": \"x\\u00e9\", \"tags\": [\"a\", null, \"b\\\"c\"], "
                    "\"other\": {\"z\": [1, 2]}}";
    cr_assert_eq(weir_row_set_json(s, row, 1, r, strlen(r), why, sizeof why), 0, "%s", why);
    cr_assert_eq(weir_row_set_json(s, row, 2, m, strlen(m), why, sizeof why), 0,
                 "%s", why);
    cr_assert_eq(weir_row_set_text(s, row, 0, "7", 1), 0);
    char out[512];
    weir_row_format(s, row, out, sizeof out);
    cr_assert_str_eq(out, "+I[7, (1, xé, [a, null, b\"c]), {k=1.5, n=null}]");
    weir_row_format_style(s, row, WEIR_ROW_STYLE_PRINT_CONNECTOR, out, sizeof out);
    cr_assert_str_eq(out, "+I[7, +I[1, xé, [a, null, b\"c]], {k=1.5, n=null}]");
    weir_row_write_json(s, row, out, sizeof out);
    cr_assert_str_eq(out, "{\"id\":7,\"r\":{\"a\":1,\"s\":\"xé\",\"tags\":[\"a\",null,\"b\\\"c\"]},"
                          "\"m\":{\"k\":1.5,\"n\":null}}");

    /* the same values in another order of fields: the same bytes */
    weir_row_init(s, row2, WEIR_ROW_INSERT);
    const char *r2 = "{\"tags\": [\"a\", null, \"b\\\"c\"], \"s\": \"xé\", \"a\": 1}";
    cr_assert_eq(weir_row_set_json(s, row2, 1, r2, strlen(r2), why, sizeof why), 0, "%s", why);
    cr_assert_eq(weir_row_set_json(s, row2, 2, m, strlen(m), why, sizeof why),
                 0);
    weir_row_set_text(s, row2, 0, "7", 1);
    cr_assert_eq(memcmp(row, row2, weir_schema_row_size(s)), 0);

    /* too many elements, a string too long, a wrong type: where, never cut */
    static const struct { int col; const char *json, *why; int code; } bad[] = {
        {1, "{\"tags\": [\"a\", \"b\", \"c\", \"d\"]}",
         "field tags: an array of more than 3 elements", WEIR_ERANGE},
        {1, "{\"tags\": [\"a\", \"toolong\"]}",
         "field tags, element 2: a string of 7 bytes is longer than its capacity 5", WEIR_ERANGE},
        {1, "{\"a\": \"1\"}", "field a: a string where INT is expected", WEIR_EFORMAT},
        {1, "[1]", "an array where ROW<", WEIR_EFORMAT},
        {2, "{\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4}", "a map of more than 3 entries",
         WEIR_ERANGE},
        {2, "{\"a\": true}", "key 'a': a boolean where DOUBLE is expected", WEIR_EFORMAT},
        {1, "{\"a\": 1} x", "text after the value", WEIR_EFORMAT},
        {1, "{\"a\": 1", "',' or '}' expected", WEIR_EFORMAT},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = 0;
        int e = weir_row_set_json(s, row, bad[i].col, bad[i].json, strlen(bad[i].json), why,
                                  sizeof why);
        cr_expect_eq(e, bad[i].code, "%s: %d", bad[i].json, e);
        cr_expect(strstr(why, bad[i].why), "%s: '%s'", bad[i].json, why);
    }
    cr_assert_eq(weir_row_set_json(s, row, 1, "null", 4, why, sizeof why), 0);
    cr_assert(weir_row_is_null(s, row, 1));
    weir_schema_destroy(s);
}

/* weir_row_set_field_*: the same bytes as weir_row_set_json for the same
 * values, whatever was in the field before; a refusal writes nothing. */
Test(nested, fields_set_one_by_one)
{
    weir_schema_builder *b = weir_schema_builder_create("f");
    cr_assert_eq(weir_schema_builder_string_capacity(b, 8), 0);
    cr_assert_eq(weir_schema_column_sql(b, "id", "INT"), 0);
    cr_assert_eq(weir_schema_column_sql(b, "r", "ROW<i INT, n BIGINT, s STRING, c CHAR(3), "
                                              "t TIMESTAMP(3), d DATE, v VARBINARY(4)>"),
                 0);
    weir_schema *s = NULL;
    char why[256];
    cr_assert_eq(weir_schema_build(b, &s, why, sizeof why), 0, "%s", why);
    size_t size = weir_schema_row_size(s);
    unsigned char by_field[1024], by_json[1024], before[1024];
    cr_assert_leq(size, sizeof by_field);

    /* a NULL ROW first: setting a field makes it a ROW whose other fields
     * are NULL */
    weir_row_init(s, by_field, WEIR_ROW_INSERT);
    cr_assert_eq(weir_row_set_null(s, by_field, 1), 0);
    cr_assert_eq(weir_row_set_field_int(s, by_field, 1, 0, -7), 0);
    weir_row_init(s, by_json, WEIR_ROW_INSERT);
    const char *j = "{\"i\": -7}";
    cr_assert_eq(weir_row_set_json(s, by_json, 1, j, strlen(j), why, sizeof why), 0, "%s", why);
    cr_assert_eq(memcmp(by_field, by_json, size), 0);

    /* every field, a long string replaced by a shorter one */
    cr_assert_eq(weir_row_set_field_string(s, by_field, 1, 2, "abcdefgh", 8), 0);
    cr_assert_eq(weir_row_set_field_string(s, by_field, 1, 2, "xy", 2), 0);
    cr_assert_eq(weir_row_set_field_int(s, by_field, 1, 1, INT64_MIN), 0);
    cr_assert_eq(weir_row_set_field_string(s, by_field, 1, 3, "ab", 2), 0);
    cr_assert_eq(weir_row_set_field_int(s, by_field, 1, 4, 1700000000123), 0);
    cr_assert_eq(weir_row_set_field_int(s, by_field, 1, 5, 19000), 0);
    j = "{\"i\": -7, \"n\": -9223372036854775808, \"s\": \"xy\", \"c\": \"ab\", "
        "\"t\": \"2023-11-14 22:13:20.123\", \"d\": \"2022-01-08\"}";
    cr_assert_eq(weir_row_set_json(s, by_json, 1, j, strlen(j), why, sizeof why), 0, "%s", why);
    char a[512], c[512];
    weir_row_format(s, by_field, a, sizeof a);
    weir_row_format(s, by_json, c, sizeof c);
    cr_assert_str_eq(a, c);
    cr_assert_str_eq(a, "+I[0, (-7, -9223372036854775808, xy, ab , 2023-11-14 22:13:20.123, "
                        "2022-01-08, null)]");
    cr_assert_eq(memcmp(by_field, by_json, size), 0);

    /* a field made NULL, and set again */
    cr_assert_eq(weir_row_set_field_null(s, by_field, 1, 2), 0);
    j = "{\"i\": -7, \"n\": -9223372036854775808, \"s\": null, \"c\": \"ab\", "
        "\"t\": \"2023-11-14 22:13:20.123\", \"d\": \"2022-01-08\"}";
    cr_assert_eq(weir_row_set_json(s, by_json, 1, j, strlen(j), why, sizeof why), 0, "%s", why);
    cr_assert_eq(memcmp(by_field, by_json, size), 0);

    /* refusals: nothing written */
    memcpy(before, by_field, size);
    cr_assert_eq(weir_row_set_field_int(s, by_field, 0, 0, 1), WEIR_EINVAL);   /* not a ROW */
    cr_assert_eq(weir_row_set_field_int(s, by_field, 2, 0, 1), WEIR_EINVAL);   /* no column */
    cr_assert_eq(weir_row_set_field_int(s, by_field, 1, 7, 1), WEIR_EINVAL);   /* no field */
    cr_assert_eq(weir_row_set_field_int(s, by_field, 1, -1, 1), WEIR_EINVAL);
    cr_assert_eq(weir_row_set_field_int(s, by_field, 1, 2, 1), WEIR_EINVAL);   /* a string */
    cr_assert_eq(weir_row_set_field_string(s, by_field, 1, 0, "1", 1), WEIR_EINVAL);
    cr_assert_eq(weir_row_set_field_string(s, by_field, 1, 6, "1", 1), WEIR_EINVAL); /* bytes */
    cr_assert_eq(weir_row_set_field_string(s, by_field, 1, 2, NULL, 1), WEIR_EINVAL);
    cr_assert_eq(weir_row_set_field_int(s, by_field, 1, 0, (int64_t)1 << 31), WEIR_ERANGE);
    cr_assert_eq(weir_row_set_field_string(s, by_field, 1, 2, "abcdefghi", 9), WEIR_ERANGE);
    cr_assert_eq(weir_row_set_field_string(s, by_field, 1, 3, "abcd", 4), WEIR_ERANGE);
    cr_assert_eq(weir_row_set_field_null(s, by_field, 1, 9), WEIR_EINVAL);
    cr_assert_eq(memcmp(by_field, before, size), 0);
    weir_schema_destroy(s);
}

Test(nested, expression)
{
    weir_schema *s = schema(8, 4);
    weir_expr *e = NULL;
    char err[256];
    cr_assert_eq(weir_expr_compile("r.tags[2] IS NULL AND CARDINALITY(r.tags) = 3 AND m['k'] > 1",
                                   s, &e, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(weir_expr_type(e).id, WEIR_TYPE_BOOLEAN);
    weir_expr_destroy(e);
    cr_assert_neq(weir_expr_compile("r.nope", s, &e, err, sizeof err), 0);
    cr_assert(strstr(err, "unknown field 'nope'"), "%s", err);
    weir_schema_destroy(s);
}
