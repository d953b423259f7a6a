/* test_sql_types_round_trip.c — every column type through the text
 * formats and back: a table read from a JSON-lines or CSV file the test
 * writes (its edge values, NULLs), its rows as Row.toString prints them,
 * then INSERT INTO a 'filesystem' table of the same columns (the file
 * sink writing Flink's json or csv text) and that folder read back as a
 * source in a new session: the same rows. One case per type family. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir.h"

#define MAX_ROWS 64

typedef struct collected {
    char rows[MAX_ROWS][512];
    int n;
} collected;

static int collect(const weir_schema *schema, const void *row, void *arg)
{
    collected *c = arg;
    cr_assert_lt(c->n, MAX_ROWS);
    weir_row_format(schema, row, c->rows[c->n++], sizeof c->rows[0]);
    return 0;
}

static int cmp_row(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* One family: its columns (CREATE TABLE's list), the input in each
 * format, and the rows expected, in any order. */
typedef struct family {
    const char *columns;
    const char *json;
    const char *csv;
    const char *rows[8];
    const char *set; /* statements before the tables (SET ...), or NULL */
} family;

static char dir[64];

static void run(weir_sql_session *s, const char *text)
{
    int r = weir_sql_execute(s, text, strlen(text));
    cr_assert_eq(r, 0, "%s\n%s", text, weir_sql_error(s));
}

static weir_sql_session *session(collected *c)
{
    cr_assert_eq(weir_file_register_connectors(), 0);
    weir_sql_session *s = NULL;
    weir_sql_config cfg = {.on_row = collect, .on_row_arg = c, .base_dir = dir, .workers = 1};
    cr_assert_eq(weir_sql_session_create(&cfg, &s), 0);
    return s;
}

/* The rows collected, sorted, are the family's rows. */
static void expect_rows(collected *c, const family *f, const char *when)
{
    int n = 0;
    while (n < 8 && f->rows[n])
        n++;
    cr_assert_eq(c->n, n, "%s: %d rows, expected %d", when, c->n, n);
    const char *want[8];
    memcpy(want, f->rows, sizeof want);
    qsort(c->rows, (size_t)c->n, sizeof c->rows[0], cmp_row);
    for (int i = 0; i < n; i++) {
        /* the expected rows sorted the same way */
        int k = i;
        for (int j = i + 1; j < n; j++)
            if (strcmp(want[j], want[k]) < 0)
                k = j;
        const char *t = want[i];
        want[i] = want[k];
        want[k] = t;
        cr_expect_str_eq(c->rows[i], want[i], "%s: row %d is %s, expected %s", when, i,
                         c->rows[i], want[i]);
    }
}

static void round_trip(const family *f, const char *format)
{
    snprintf(dir, sizeof dir, "/tmp/weir-types-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/in.%s", dir, format);
    FILE *in = fopen(path, "w");
    cr_assert_not_null(in);
    fputs(strcmp(format, "json") == 0 ? f->json : f->csv, in);
    fclose(in);

    collected *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    weir_sql_session *s = session(c);
    char sql[2048];
    if (f->set)
        run(s, f->set);
    snprintf(sql, sizeof sql,
             "CREATE TABLE src (%s) WITH ('connector' = 'filesystem', 'path' = 'in.%s', "
             "'format' = '%s');\n"
             "CREATE TABLE out (%s) WITH ('connector' = 'filesystem', 'path' = 'out', "
             "'format' = '%s');\n",
             f->columns, format, format, f->columns, format);
    run(s, sql);
    run(s, "SELECT * FROM src;");
    expect_rows(c, f, "read");
    run(s, "INSERT INTO out SELECT * FROM src;");
    weir_sql_session_destroy(s);

    /* the folder the sink wrote, read back in a new session */
    c->n = 0;
    s = session(c);
    if (f->set)
        run(s, f->set);
    snprintf(sql, sizeof sql,
             "CREATE TABLE back (%s) WITH ('connector' = 'filesystem', 'path' = 'out', "
             "'format' = '%s');\nSELECT * FROM back;",
             f->columns, format);
    run(s, sql);
    expect_rows(c, f, "read back");
    weir_sql_session_destroy(s);
    free(c);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* TINYINT, SMALLINT, FLOAT: their ranges' ends, a float's shortest text
 * (0.1, 3.4028235E38, 1.0E-45), NULL. */
static const family small_numbers = {
    .columns = "t TINYINT, s SMALLINT, f FLOAT",
    .json = "{\"t\": 127, \"s\": 32767, \"f\": 0.1}\n"
            "{\"t\": -128, \"s\": -32768, \"f\": 3.4028235e38}\n"
            "{\"t\": 0, \"s\": 1, \"f\": 1.4e-45}\n"
            "{\"t\": null, \"s\": null, \"f\": null}\n",
    .csv = "127,32767,0.1\n"
           "-128,-32768,3.4028235E38\n"
           "0,1,1.4E-45\n"
           ",,\n",
    .rows = {"+I[127, 32767, 0.1]", "+I[-128, -32768, 3.4028235E38]", "+I[0, 1, 1.4E-45]",
             "+I[null, null, null]"},
};

Test(sql_types_round_trip, small_numbers_json)
{
    round_trip(&small_numbers, "json");
}

Test(sql_types_round_trip, small_numbers_csv)
{
    round_trip(&small_numbers, "csv");
}

/* DATE, TIME(p), TIMESTAMP(p), TIMESTAMP_LTZ(p): a leap day, the
 * precisions' digits (nanoseconds too), before 1970, a time zone that is
 * not UTC (a TIMESTAMP_LTZ is written and read in UTC all the same). */
static const family datetimes = {
    .set = "SET 'table.local-time-zone' = 'Asia/Kolkata';",
    .columns = "d DATE, t TIME(3), t0 TIME, ts TIMESTAMP(9), ts0 TIMESTAMP(0), l TIMESTAMP_LTZ(6)",
    .json = "{\"d\": \"2024-02-29\", \"t\": \"23:59:59.999\", \"t0\": \"00:00:00\", "
            "\"ts\": \"2024-02-29 10:00:00.123456789\", \"ts0\": \"1969-12-31 23:59:59\", "
            "\"l\": \"2024-01-01 10:00:00.000001Z\"}\n"
            "{\"d\": \"0001-01-01\", \"t\": \"00:00:00.5\", \"t0\": \"12:34:56\", "
            "\"ts\": \"9999-12-31 23:59:59.999999999\", \"ts0\": \"2024-01-01 00:00:00\", "
            "\"l\": \"1969-12-31 18:30:00Z\"}\n"
            "{\"d\": null, \"t\": null, \"t0\": null, \"ts\": null, \"ts0\": null, "
            "\"l\": null}\n",
    .csv = "2024-02-29,23:59:59.999,00:00:00,2024-02-29 10:00:00.123456789,1969-12-31 23:59:59,"
           "2024-01-01 10:00:00.000001\n"
           "0001-01-01,00:00:00.5,12:34:56,9999-12-31 23:59:59.999999999,2024-01-01 00:00:00,"
           "1969-12-31 18:30:00\n"
           ",,,,,\n",
    .rows = {"+I[2024-02-29, 23:59:59.999, 00:00:00, 2024-02-29 10:00:00.123456789, "
             "1969-12-31 23:59:59, 2024-01-01 10:00:00.000001]",
             "+I[0001-01-01, 00:00:00.5, 12:34:56, 9999-12-31 23:59:59.999999999, "
             "2024-01-01 00:00:00, 1969-12-31 18:30:00.000000]",
             "+I[null, null, null, null, null, null]"},
};

Test(sql_types_round_trip, datetimes_json)
{
    round_trip(&datetimes, "json");
}

Test(sql_types_round_trip, datetimes_csv)
{
    round_trip(&datetimes, "csv");
}

/* DECIMAL: both representations (p <= 18 and p > 18), every digit of 38,
 * negative values, a value under 10^-6 (which BigDecimal.toString would
 * write as 1E-8: the formats write it plain), a JSON number and a JSON
 * string. */
static const family decimals = {
    .columns = "a DECIMAL(10, 2), b DECIMAL(38, 0), c DECIMAL(38, 38), d DECIMAL(18, 9)",
    .json = "{\"a\": 12345678.99, \"b\": \"99999999999999999999999999999999999999\", "
            "\"c\": \"0.00000000000000000000000000000000000001\", \"d\": -0.00000001}\n"
            "{\"a\": -0.01, \"b\": \"-12345678901234567890123456789\", "
            "\"c\": \"-0.99999999999999999999999999999999999999\", \"d\": 999999999}\n"
            "{\"a\": null, \"b\": null, \"c\": null, \"d\": null}\n",
    .csv = "12345678.99,99999999999999999999999999999999999999,"
           "0.00000000000000000000000000000000000001,-0.00000001\n"
           "-0.01,-12345678901234567890123456789,-0.99999999999999999999999999999999999999,"
           "999999999\n"
           ",,,\n",
    .rows = {"+I[12345678.99, 99999999999999999999999999999999999999, "
             "0.00000000000000000000000000000000000001, -0.000000010]",
             "+I[-0.01, -12345678901234567890123456789, "
             "-0.99999999999999999999999999999999999999, 999999999.000000000]",
             "+I[null, null, null, null]"},
};

Test(sql_types_round_trip, decimals_json)
{
    round_trip(&decimals, "json");
}

Test(sql_types_round_trip, decimals_csv)
{
    round_trip(&decimals, "csv");
}

/* ---- BINARY, VARBINARY, BYTES ------------------------------------------------------------ */

/* Base64 in both formats: empty bytes (a quoted "" in CSV: an empty field
 * is NULL), zero bytes, every high bit, a BINARY(3) padded, 70 bytes
 * (written in parts). */
static const family binaries = {
    .columns = "a VARBINARY(100), b BYTES, c BINARY(3)",
    .json = "{\"a\": \"AP8=\", \"b\": \"\", \"c\": \"gA==\"}\n"
            "{\"a\": \"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd"
            "Hh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERQ==\", \"b\": null, "
            "\"c\": \"\"}\n"
            "{\"a\": \"AAAAAA==\", \"b\": \"/////w==\", \"c\": \"YWJj\"}\n"
            "{\"a\": null, \"b\": null, \"c\": null}\n",
    .csv = "AP8=,\"\",gA==\n"
           "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKiss"
           "LS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERQ==,,\"\"\n"
           "AAAAAA==,/////w==,YWJj\n"
           ",,\n",
    .rows = {"+I[x'00ff', x'', x'800000']", "+I[x'00000000', x'ffffffff', x'616263']",
             "+I[null, null, null]",
             "+I[x'000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
             "1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445', "
             "null, x'000000']"},
};

Test(sql_types_round_trip, binaries_json)
{
    round_trip(&binaries, "json");
}

Test(sql_types_round_trip, binaries_csv)
{
    round_trip(&binaries, "csv");
}

/* ---- ROW, ARRAY, MAP ------------------------------------------------------------------------ */

/* Nested values in both formats (JSON objects and arrays; in CSV a
 * field of the value's JSON text): NULL fields, elements and values, empty
 * arrays and maps, every scalar family inside (a DECIMAL, a TIMESTAMP,
 * base64 bytes, a string with a quote and a comma), INT map keys, an
 * array of rows. */
static const family nested = {
    .columns = "r ROW<a INT, b STRING, d DECIMAL(5, 2), t TIMESTAMP(3), y BYTES>, "
               "arr ARRAY<ROW<x INT, s ARRAY<STRING>>>, m MAP<INT, ARRAY<BOOLEAN>>",
    .json = "{\"r\": {\"a\": 1, \"b\": \"q\\\"u,o\", \"d\": 1.5, \"t\": \"2024-01-05 10:00:00.250\","
            " \"y\": \"AP8=\"}, \"arr\": [{\"x\": 1, \"s\": [\"a\", null]}, null, {\"x\": null, "
            "\"s\": []}], \"m\": {\"7\": [true, null], \"-1\": []}}\n"
            "{\"r\": {\"a\": null, \"b\": null, \"d\": null, \"t\": null, \"y\": null}, "
            "\"arr\": [], \"m\": {}}\n"
            "{\"r\": null, \"arr\": null, \"m\": {\"0\": null}}\n",
    .csv = "\"{\"\"r\"\": 1}\",,\n", /* unused: see nested_csv */
    .rows = {"+I[(1, q\"u,o, 1.50, 2024-01-05 10:00:00.250, x'00ff'), [(1, [a, null]), null, "
             "(null, [])], {7=[true, null], -1=[]}]",
             "+I[(null, null, null, null, null), [], {}]", "+I[null, null, {0=null}]"},
};

Test(sql_types_round_trip, nested_json)
{
    round_trip(&nested, "json");
}

/* CSV: the JSON text of each nested value, quoted. */
static const family nested_csv = {
    .columns = "r ROW<a INT, b STRING>, arr ARRAY<INT>, m MAP<STRING, INT>",
    .csv = "\"{\"\"a\"\": 1, \"\"b\"\": \"\"x,\\\"\"y\"\"}\",\"[1, null]\",\"{\"\"k\"\": 2}\"\n"
           ",,\n",
    .rows = {"+I[(1, x,\"y), [1, null], {k=2}]", "+I[null, null, null]"},
};

Test(sql_types_round_trip, nested_csv)
{
    round_trip(&nested_csv, "csv");
}
