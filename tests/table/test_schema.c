/* test_schema.c — column types, the schema builder and rows (weir/row.h):
 * type text both ways, the layout (header, alignment, canonical bytes),
 * every plan-time schema error with its message, Row.toString formatting,
 * and a struct-bound schema through weir_table_from_stream: fields copied
 * into rows, the rowtime metadata column, and a string longer than its
 * column failing the job with the table, column and length.
 */
#include <stddef.h>

#include "table/table_testutil.h"

Test(types, parse_and_format)
{
    static const struct { const char *in, *out; } cases[] = {
        {"INT", "INT"}, {"integer not null", "INT NOT NULL"}, {"BIGINT", "BIGINT"},
        {"DOUBLE", "DOUBLE"}, {"VARCHAR(20)", "VARCHAR(20)"}, {"CHAR(3) NOT NULL", "CHAR(3) NOT NULL"},
        {"TIMESTAMP(3)", "TIMESTAMP(3)"}, {"TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(3)"},
        {"BOOLEAN", "BOOLEAN"}, {"STRING", "VARCHAR(0)"}, {"tinyint", "TINYINT"},
        {"SMALLINT NOT NULL", "SMALLINT NOT NULL"}, {"FLOAT", "FLOAT"}, {"REAL", "FLOAT"},
        {"DOUBLE PRECISION", "DOUBLE"}, {"DATE", "DATE"}, {"TIME", "TIME(0)"},
        {"TIME(3) NOT NULL", "TIME(3) NOT NULL"}, {"TIMESTAMP", "TIMESTAMP(6)"},
        {"TIMESTAMP(0)", "TIMESTAMP(0)"}, {"TIMESTAMP(9) WITHOUT TIME ZONE", "TIMESTAMP(9)"},
        {"TIMESTAMP_LTZ", "TIMESTAMP_LTZ(6)"},
        {"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(3)"},
        {"VARBINARY(8)", "VARBINARY(8)"}, {"BINARY(4) NOT NULL", "BINARY(4) NOT NULL"},
        {"BINARY", "BINARY(1)"}, {"BYTES", "VARBINARY(0)"},
        /* Flink: VARCHAR and VARBINARY without a length are STRING and BYTES */
        {"VARCHAR", "VARCHAR(0)"}, {"VARBINARY NOT NULL", "VARBINARY(0) NOT NULL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_type t;
        char err[128], buf[64];
        cr_assert_eq(weir_type_parse(cases[i].in, &t, err, sizeof err), 0, "%s: %s",
                     cases[i].in, err);
        weir_type_format(t, buf, sizeof buf);
        cr_assert_str_eq(buf, cases[i].out);
    }
    static const char *bad[] = {"TEXT", "VARCHAR(0)", "INT(3)", "TIMESTAMP(10)",
                                "INT NOT", "BIGINT x", "TIME(3) WITH LOCAL TIME ZONE",
                                "DATE(3)", "BINARY(0)"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        weir_type t;
        char err[128];
        cr_assert_eq(weir_type_parse(bad[i], &t, err, sizeof err), WEIR_EINVAL, "%s", bad[i]);
        cr_assert(strstr(err, bad[i]), "%s: %s", bad[i], err);
    }
}

/* Flink's implicit casts (LogicalTypeCasts) and common types
 * (LogicalTypeMerging) among weir's types. */
Test(types, implicit_casts_and_common_types)
{
    static const struct { const char *from, *to; bool ok; } casts[] = {
        {"TINYINT", "SMALLINT", true},  {"TINYINT", "BIGINT", true}, {"SMALLINT", "INT", true},
        {"INT", "TINYINT", false},      {"BIGINT", "INT", false},    {"BIGINT", "FLOAT", true},
        {"FLOAT", "DOUBLE", true},      {"DOUBLE", "FLOAT", false},  {"FLOAT", "BIGINT", false},
        {"TINYINT", "DOUBLE", true},    {"INT", "STRING", false},    {"VARCHAR(3)", "CHAR(1)", true},
        {"TIMESTAMP(3)", "TIMESTAMP_LTZ(3)", true}, {"BOOLEAN", "INT", false},
        {"BINARY(3)", "VARBINARY(2)", true}, {"VARBINARY(2)", "BINARY(3)", false},
        {"BINARY(3)", "BINARY(2)", true}, {"STRING", "BYTES", false}, {"BYTES", "STRING", false},
    };
    for (size_t i = 0; i < sizeof casts / sizeof casts[0]; i++) {
        weir_type a, b;
        cr_assert_eq(weir_type_parse(casts[i].from, &a, NULL, 0), 0);
        cr_assert_eq(weir_type_parse(casts[i].to, &b, NULL, 0), 0);
        cr_expect_eq(weir_type_casts_implicitly(a, b), casts[i].ok, "%s into %s", casts[i].from,
                     casts[i].to);
    }
    static const struct { const char *a, *b, *common; } common[] = {
        {"TINYINT NOT NULL", "SMALLINT NOT NULL", "SMALLINT NOT NULL"},
        {"BIGINT", "FLOAT NOT NULL", "FLOAT"},
        {"FLOAT", "DOUBLE", "DOUBLE"},
        {"VARCHAR(3)", "CHAR(5)", "VARCHAR(5)"},
        {"CHAR(2)", "CHAR(2)", "CHAR(2)"},
        {"TIMESTAMP(3)", "TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(3)"},
        {"INT", "BOOLEAN", NULL},
        {"INT", "STRING", NULL},
        {"BINARY(2)", "VARBINARY(5)", "VARBINARY(5)"},
        {"BINARY(2)", "BINARY(2)", "BINARY(2)"},
        {"BINARY(2)", "CHAR(2)", NULL},
    };
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++) {
        weir_type a, b, c;
        char buf[64];
        cr_assert_eq(weir_type_parse(common[i].a, &a, NULL, 0), 0);
        cr_assert_eq(weir_type_parse(common[i].b, &b, NULL, 0), 0);
        bool ok = weir_type_common(a, b, &c);
        cr_expect_eq(ok, common[i].common != NULL, "%s and %s", common[i].a, common[i].b);
        if (ok && common[i].common) {
            weir_type_format(c, buf, sizeof buf);
            cr_expect_str_eq(buf, common[i].common, "%s and %s", common[i].a, common[i].b);
        }
    }
}

/* The small numbers' places and values: 1, 2 and 4 bytes, their ranges
 * checked on the way in, a FLOAT rounded to a float and printed as Java's
 * Float.toString. */
Test(schema, small_numbers)
{
    weir_schema *s = tt_schema("t", "a TINYINT, b SMALLINT, c FLOAT, d TINYINT", NULL);
    cr_assert_eq(weir_schema_row_size(s), 24u); /* 8 of header, a at 8, b at 10, c at 12, d at 16 */
    unsigned char row[64];
    weir_row_init(s, row, WEIR_ROW_INSERT);
    cr_assert_eq(weir_row_set_int(s, row, 0, -128), 0);
    cr_assert_eq(weir_row_set_int(s, row, 0, 128), WEIR_ERANGE);
    cr_assert_eq(weir_row_set_int(s, row, 1, 32767), 0);
    cr_assert_eq(weir_row_set_int(s, row, 1, -32769), WEIR_ERANGE);
    cr_assert_eq(weir_row_set_double(s, row, 2, 0.1), 0);
    cr_assert_eq(weir_row_get_double(s, row, 2), (double)0.1f);
    cr_assert_eq(weir_row_set_text(s, row, 3, "300", 3), WEIR_ERANGE);
    cr_assert_eq(weir_row_set_text(s, row, 3, "-7", 2), 0);
    char buf[128];
    weir_row_format(s, row, buf, sizeof buf);
    cr_assert_str_eq(buf, "+I[-128, 32767, 0.1, -7]");
    static const struct { float f; const char *text; } floats[] = {
        {1e10f, "1.0E10"}, {1.4e-45f, "1.4E-45"}, {3.4028235e38f, "3.4028235E38"},
        {1234567.0f, "1234567.0"}, {1.0e-3f, "0.001"}, {9.999999e-4f, "9.999999E-4"},
        {-0.0f, "-0.0"}, {33554432.0f, "3.3554432E7"},
    };
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
        cr_assert_eq(weir_row_set_double(s, row, 2, floats[i].f), 0);
        weir_row_format(s, row, buf, sizeof buf);
        char want[64];
        snprintf(want, sizeof want, "+I[-128, 32767, %s, -7]", floats[i].text);
        cr_expect_str_eq(buf, want);
    }
    weir_schema_destroy(s);
}

Test(schema, layout_and_accessors)
{
    weir_schema *s = tt_schema("t", "b BOOLEAN, i INT, name VARCHAR(5), d DOUBLE, ts TIMESTAMP(3)",
                               NULL);
    cr_assert_eq(weir_schema_ncolumns(s), 5);
    cr_assert_eq(weir_schema_row_size(s) % 8, 0u);
    cr_assert_eq(weir_schema_column_index(s, "name"), 2);
    cr_assert_eq(weir_schema_column_index(s, "NAME"), -1, "names are case-sensitive");
    unsigned char row[256], row2[256];
    tt_row(s, row, "+I true|-7|abc|2.5|1704067210000");
    cr_assert_eq(weir_row_get_int(s, row, 1), -7);
    cr_assert_eq(weir_row_get_double(s, row, 3), 2.5);
    uint32_t len;
    const char *str = weir_row_get_string(s, row, 2, &len);
    cr_assert_eq(len, 3u);
    cr_assert(memcmp(str, "abc", 3) == 0);
    char buf[256];
    weir_row_format(s, row, buf, sizeof buf);
    cr_assert_str_eq(buf, "+I[true, -7, abc, 2.5, 2024-01-01 00:00:10.000]");
    /* Canonical bytes: the same values written twice, through a longer value first. */
    weir_row_init(s, row2, WEIR_ROW_INSERT);
    cr_assert_eq(weir_row_set_string(s, row2, 2, "abcde", 5), 0);
    tt_row(s, row2, "+I true|-7|abc|2.5|1704067210000");
    cr_assert(memcmp(row, row2, weir_schema_row_size(s)) == 0);
    /* Too long, wrong type, out of INT range. */
    cr_assert_eq(weir_row_set_string(s, row, 2, "abcdef", 6), WEIR_ERANGE);
    cr_assert_eq(weir_row_set_int(s, row, 2, 1), WEIR_EINVAL);
    cr_assert_eq(weir_row_set_int(s, row, 1, 1ll << 40), WEIR_ERANGE);
    cr_assert_eq(weir_row_set_null(s, row, 3), 0);
    tt_row(s, row, "-U null|null|null|3.0|-1");
    weir_row_format(s, row, buf, sizeof buf);
    cr_assert_str_eq(buf, "-U[null, null, null, 3.0, 1969-12-31 23:59:59.999]");
    weir_schema_format(s, buf, sizeof buf);
    cr_assert_str_eq(buf, "(b BOOLEAN, i INT, name VARCHAR(5), d DOUBLE, ts TIMESTAMP(3))");
    weir_schema_destroy(s);
}

static void expect_build_error(weir_schema_builder *b, const char *msg)
{
    weir_schema *s = NULL;
    char err[256];
    cr_assert_neq(weir_schema_build(b, &s, err, sizeof err), 0, "expected: %s", msg);
    cr_assert_null(s);
    cr_assert(strstr(err, msg), "got '%s', expected '%s'", err, msg);
}

/* A processing-time attribute is a TIMESTAMP_LTZ(3) column and no rowtime;
 * a watermark with no rowtime column runs in the source (its rowtime is
 * computed after it, weir_table_computed_columns). */
Test(schema, proctime_attribute_and_a_watermark_without_a_column)
{
    weir_type ltz = {.id = WEIR_TYPE_TIMESTAMP_LTZ}, ts = {.id = WEIR_TYPE_TIMESTAMP};
    weir_type s6 = {.id = WEIR_TYPE_VARCHAR, .capacity = 32};
    weir_schema_builder *b = weir_schema_builder_create("clicks");
    weir_schema_column(b, "ts", ts);
    weir_schema_column(b, "proc", ltz);
    weir_schema_proctime_attribute(b, "proc");
    weir_schema *s = NULL;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(weir_schema_proctime(s), 1);
    cr_assert_eq(weir_schema_rowtime(s), -1);
    weir_schema_destroy(s);

    b = weir_schema_builder_create("clicks");
    weir_schema_column(b, "ts", ts);
    weir_schema_proctime_attribute(b, "ts");
    expect_build_error(b, "the processing-time attribute 'ts' is not a TIMESTAMP_LTZ(3) column");

    b = weir_schema_builder_create("clicks");
    weir_schema_column(b, "proc", ltz);
    weir_schema_watermark(b, "proc", "proc");
    weir_schema_proctime_attribute(b, "proc");
    expect_build_error(b, "A watermark can not be defined for a processing-time attribute.");

    b = weir_schema_builder_create("clicks");
    weir_schema_column(b, "s", s6);
    weir_schema_watermark(b, NULL, "TO_TIMESTAMP(s) - INTERVAL '1' SECOND");
    expect_build_error(b, "a watermark without a rowtime column runs in the source");

    b = weir_schema_builder_create("clicks");
    weir_schema_column(b, "s", s6);
    weir_schema_watermark(b, NULL, "TO_TIMESTAMP(s) - INTERVAL '1' SECOND");
    weir_schema_watermark_in_source(b);
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(weir_schema_rowtime(s), -1);
    weir_watermark_strategy wm;
    cr_assert_eq(weir_schema_watermark_strategy(s, &wm), 0);
    weir_schema_destroy(s);
}

Test(schema, plan_time_errors)
{
    weir_type bigint = {.id = WEIR_TYPE_BIGINT}, ts = {.id = WEIR_TYPE_TIMESTAMP};
    weir_type zero = {.id = WEIR_TYPE_CHAR, .capacity = 0};
    weir_schema_builder *b = weir_schema_builder_create("orders");
    weir_schema_column(b, "id", bigint);
    weir_schema_column(b, "id", bigint);
    expect_build_error(b, "table orders: duplicate column 'id'");

    b = weir_schema_builder_create("orders");
    weir_schema_column(b, "id", bigint);
    weir_schema_primary_key(b, "id, nope");
    expect_build_error(b, "table orders: primary key column 'nope' is not a column");

    b = weir_schema_builder_create("orders");
    weir_schema_column(b, "id", bigint);
    weir_schema_watermark(b, "id", "id - 5");
    expect_build_error(b, "table orders: watermark column 'id' is BIGINT, not TIMESTAMP(3)");

    b = weir_schema_builder_create("orders");
    weir_schema_column(b, "ts", ts);
    weir_schema_watermark(b, "nope", "SOURCE_WATERMARK()");
    expect_build_error(b, "watermark column 'nope' is not a column");

    b = weir_schema_builder_create("orders");
    weir_schema_column(b, "ts", ts);
    weir_schema_watermark(b, "ts", "ts - INTERVAL '5' FORTNIGHT");
    expect_build_error(b, "table orders: watermark for 'ts': ts - INTERVAL '5' FORTNIGHT at 19: "
                          "expected an interval unit");

    b = weir_schema_builder_create("orders");
    weir_schema_column(b, "c", zero);
    expect_build_error(b, "table orders: column 'c': capacity 0");

    b = weir_schema_builder_create("orders");
    weir_schema_column_sql(b, "c", "VARCHAR(0)");
    expect_build_error(b, "table orders: column 'c': string capacity 0 is not in 1..");

    b = weir_schema_builder_create("empty");
    expect_build_error(b, "table empty: no columns");

    /* A good one: watermark, primary key NOT NULL, SOURCE_WATERMARK(). */
    b = weir_schema_builder_create("orders");
    weir_schema_column(b, "id", bigint);
    weir_schema_column(b, "ts", ts);
    weir_schema_primary_key(b, "id");
    weir_schema_watermark(b, "ts", "ts - INTERVAL '5' SECOND");
    weir_schema *s;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(weir_schema_rowtime(s), 1);
    cr_assert(weir_schema_column_type(s, 0).not_null, "primary key columns are NOT NULL");
    cr_assert_eq(weir_schema_primary_key_count(s), 1);
    weir_schema_destroy(s);
}

typedef struct click {
    int64_t user;
    char page[12];
    double amount;
    int32_t n;
    bool ok;
} click;

static weir_schema *click_schema(uint32_t page_cap)
{
    weir_schema_builder *b = weir_schema_builder_create("clicks");
    weir_schema_bind_struct(b, sizeof(click));
    weir_schema_column_at(b, "user", (weir_type){.id = WEIR_TYPE_BIGINT}, offsetof(click, user), 8);
    weir_schema_column_at(b, "page", (weir_type){.id = WEIR_TYPE_VARCHAR, .capacity = page_cap},
                          offsetof(click, page), sizeof(((click *)0)->page));
    weir_schema_column_at(b, "amount", (weir_type){.id = WEIR_TYPE_DOUBLE}, offsetof(click, amount), 8);
    weir_schema_column_at(b, "n", (weir_type){.id = WEIR_TYPE_INT}, offsetof(click, n), 4);
    weir_schema_column_at(b, "ok", (weir_type){.id = WEIR_TYPE_BOOLEAN}, offsetof(click, ok),
                          sizeof(bool));
    weir_schema_rowtime_metadata(b, "rowtime");
    weir_schema *s;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

Test(schema, bound_struct_into_rows, .timeout = 60)
{
    static const click in[] = {
        {1, "home", 1.5, 3, true}, {2, "a-long-page", 2.0, -1, false}, {1, "cart", 0.25, 0, true},
    };
    static const int64_t ts[] = {1000, 2000, 3000};
    weir_schema *s = click_schema(12);
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    weir_table *t = weir_table_from_stream(env, weir_source_array(job, in, 3, sizeof(click), ts), s);
    weir_collect *c;
    weir_sink_collect(weir_table_to_stream(t), &c);
    tu_run_ok(job);
    char *got = tt_collected(weir_table_schema(t), c);
    cr_assert_str_eq(got, "+I[1, home, 1.5, 3, true, 1970-01-01 00:00:01.000]\n"
                          "+I[2, a-long-page, 2.0, -1, false, 1970-01-01 00:00:02.000]\n"
                          "+I[1, cart, 0.25, 0, true, 1970-01-01 00:00:03.000]\n");
    for (int i = 0; i < 3; i++)
        cr_assert_eq(weir_collect_timestamp(c, (size_t)i), ts[i]);
    free(got);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(s);
}

/* A changelog of the user's own structs: the kind field is each row's kind. */
typedef struct change {
    uint8_t kind;
    int64_t user;
    int64_t amount;
} change;

Test(schema, bound_struct_changelog_carries_its_kinds, .timeout = 60)
{
    static const change in[] = {
        {WEIR_ROW_INSERT, 1, 5}, {WEIR_ROW_INSERT, 2, 7}, {WEIR_ROW_UPDATE_BEFORE, 1, 5},
        {WEIR_ROW_UPDATE_AFTER, 1, 9}, {WEIR_ROW_DELETE, 2, 7},
    };
    weir_schema_builder *b = weir_schema_builder_create("changes");
    weir_schema_bind_struct(b, sizeof(change));
    weir_schema_kind_at(b, offsetof(change, kind));
    weir_schema_column_at(b, "user", (weir_type){.id = WEIR_TYPE_BIGINT}, offsetof(change, user), 8);
    weir_schema_column_at(b, "amount", (weir_type){.id = WEIR_TYPE_BIGINT},
                          offsetof(change, amount), 8);
    weir_schema *s;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    weir_table *t = weir_table_from_changelog_stream(
        env, weir_source_array(job, in, 5, sizeof(change), NULL), s, WEIR_CHANGELOG_ALL);
    weir_collect *rows, *sums;
    weir_sink_collect(weir_table_to_changelog_stream(t, 0), &rows);
    weir_table *g = weir_table_group_by(t, NULL, "SUM(amount) AS total, COUNT(*) AS n");
    weir_sink_collect(weir_table_to_changelog_stream(g, 0), &sums);
    tu_run_ok(job);
    char *got = tt_collected(weir_table_schema(t), rows);
    cr_assert_str_eq(got, "+I[1, 5]\n+I[2, 7]\n-U[1, 5]\n+U[1, 9]\n-D[2, 7]\n");
    free(got);
    got = tt_collected(weir_table_schema(g), sums);
    cr_assert_str_eq(got, "+I[5, 1]\n-U[5, 1]\n+U[12, 2]\n-U[12, 2]\n+U[7, 1]\n"
                          "-U[7, 1]\n+U[16, 2]\n-U[16, 2]\n+U[9, 1]\n");
    free(got);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(s);
}

Test(schema, too_long_string_fails_the_job, .timeout = 60)
{
    static const click in[] = {{1, "home", 1.5, 3, true}, {2, "a-long-page", 2.0, -1, false}};
    weir_schema *s = click_schema(8);
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    weir_table *t = weir_table_from_stream(env, weir_source_array(job, in, 2, sizeof(click), NULL), s);
    weir_sink_discard(weir_table_to_stream(t));
    cr_assert_eq(weir_job_run(job), WEIR_ERANGE);
    cr_assert(strstr(weir_job_error(job), "table clicks: column page: a string of 11 bytes is "
                                          "longer than its capacity 8"), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(s);
}

/* A stream of rows of the schema (not a bound struct) leaves the table's
 * source as it came, each row checked: a string longer than its capacity,
 * a byte that is not a row kind and a kind the table does not take fail
 * the job, whichever record of the batch they are. */
static unsigned char *three_rows(const weir_schema *s)
{
    size_t rs = weir_schema_row_size(s);
    unsigned char *rows = calloc(3, rs);
    static const char *const text[] = {"x", "yy", "zzzz"};
    for (int i = 0; i < 3; i++) {
        weir_row_init(s, rows + i * rs, WEIR_ROW_INSERT);
        weir_row_set_int(s, rows + i * rs, 0, 10 + i);
        weir_row_set_string(s, rows + i * rs, 1, text[i], strlen(text[i]));
    }
    return rows;
}

static int run_rows(const weir_schema *s, const unsigned char *rows, char **got, char *err,
                    size_t size)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    weir_table *t = weir_table_from_stream(
        env, weir_source_array(job, rows, 3, weir_schema_row_size(s), NULL), s);
    weir_collect *c;
    weir_sink_collect(weir_table_to_changelog_stream(t, 0), &c);
    int r = weir_job_run(job);
    snprintf(err, size, "%s", weir_job_error(job));
    if (got)
        *got = r ? NULL : tt_collected(weir_table_schema(t), c);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    return r;
}

Test(schema, rows_of_the_schema_leave_as_they_came_checked, .timeout = 60)
{
    weir_schema *s = tt_schema("rows", "a BIGINT, s VARCHAR(4)", NULL);
    size_t rs = weir_schema_row_size(s);
    char err[512], *got;
    unsigned char *rows = three_rows(s);
    cr_assert_eq(run_rows(s, rows, &got, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(got, "+I[10, x]\n+I[11, yy]\n+I[12, zzzz]\n");
    free(got);
    for (int bad = 0; bad < 3; bad++) {
        for (int at = 0; at < 3; at++) {
            free(rows);
            rows = three_rows(s);
            unsigned char *row = rows + (size_t)at * rs;
            const char *want;
            if (bad == 0) {
                uint32_t len, five = 5;
                char *str = (char *)weir_row_get_string(s, row, 1, &len);
                memcpy(str - 4, &five, 4); /* the length before the bytes */
                want = "table rows: column s: a string of 5 bytes is longer than its capacity 4";
            } else if (bad == 1) {
                row[0] = 9;
                want = "table rows: row kind 9 is not a row kind";
            } else {
                weir_row_set_kind(row, WEIR_ROW_DELETE);
                want = "table rows: a row of kind -D in a stream declared";
            }
            cr_assert_neq(run_rows(s, rows, NULL, err, sizeof err), 0, "case %d at row %d", bad,
                          at);
            cr_assert(strstr(err, want), "case %d at row %d: %s", bad, at, err);
        }
    }
    free(rows);
    weir_schema_destroy(s);
}

Test(schema, element_size_mismatch_is_a_plan_error)
{
    weir_schema *s = tt_schema("t", "a BIGINT", NULL);
    weir_job *job = tu_job(NULL);
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    static const int32_t x[] = {1};
    cr_assert_null(weir_table_from_stream(env, weir_source_array(job, x, 1, 4, NULL), s));
    cr_assert(strstr(weir_job_error(job), "table t: the stream's elements are 4 bytes, the schema "
                                          "reads 16"), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(s);
}
