/* test_convert.c — the conversions a C programmer expects (weir/row.h's
 * struct descriptions, weir/table.h's weir_table_to_stream_as and
 * weir_table_to_changelog_stream_as; Flink's fromDataStream without a
 * schema, toDataStream(table, Class), toChangelogStream(table, Schema,
 * ChangelogMode)), and what WEIR_CHANGELOG_AS_PRODUCED (mode 0) gives.
 *
 * Structs go in through a description written once, through SQL-free
 * where/select, and out into the same structs, compared byte for byte
 * (the conversion zeroes each element before it writes the fields). Every
 * plan-time refusal and every run-time failure is checked with its
 * message: a column missing on either side, types that do not match, an
 * updating table into an insert-only stream, a changelog struct without a
 * kind field, an upsert key that is not the table's unique key, a NULL into
 * a struct field, a string at and over its array's size.
 */
#include <stddef.h>

#include "table/table_testutil.h"

typedef struct click {
    int64_t user;
    char page[8];
    int32_t n;
    double amount;
    bool ok;
    int64_t ts;
} click;

static const weir_struct_field click_fields[] = {
    WEIR_STRUCT_FIELD(click, user, "BIGINT NOT NULL"),
    WEIR_STRUCT_FIELD(click, page, "STRING"),
    WEIR_STRUCT_FIELD(click, n, "INT"),
    WEIR_STRUCT_FIELD(click, amount, "DOUBLE"),
    WEIR_STRUCT_FIELD(click, ok, "BOOLEAN"),
    WEIR_STRUCT_FIELD(click, ts, "TIMESTAMP(3)"),
};
#define NCLICK (sizeof click_fields / sizeof click_fields[0])

static weir_schema *describe(const char *table, size_t size, const weir_struct_field *f, size_t n)
{
    weir_schema *s = NULL;
    char err[256];
    cr_assert_eq(weir_schema_from_struct(table, size, f, n, &s, err, sizeof err), 0, "%s", err);
    return s;
}

static click mk_click(int64_t user, const char *page, int32_t n, double amount, bool ok,
                      int64_t ts)
{
    click c;
    memset(&c, 0, sizeof c); /* the padding too: elements are compared as bytes */
    c.user = user;
    memcpy(c.page, page, strnlen(page, sizeof c.page));
    c.n = n;
    c.amount = amount;
    c.ok = ok;
    c.ts = ts;
    return c;
}

/* A job of one worker on the virtual clock, and its table environment. */
typedef struct env {
    weir_job *job;
    weir_table_env *env;
} env;

static env env_new(void)
{
    env e;
    e.job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                      .parallelism = 1});
    cr_assert_eq(weir_table_env_create(e.job, NULL, &e.env), 0);
    return e;
}

static void env_free(env *e)
{
    weir_job_destroy(e->job);
    weir_table_env_destroy(e->env);
}

/* The job's error contains `msg`. */
static void expect_error(const env *e, const char *msg)
{
    const char *got = weir_job_error(e->job);
    cr_assert(got && strstr(got, msg), "got '%s'\nexpected '%s'", got ? got : "(none)", msg);
}

/* ---- descriptions ------------------------------------------------------------------- */

Test(describe, a_struct_described_once_is_a_bound_schema)
{
    weir_schema *s = describe("clicks", sizeof(click), click_fields, NCLICK);
    char buf[256];
    weir_schema_format(s, buf, sizeof buf);
    cr_assert_str_eq(buf, "(user BIGINT NOT NULL, page VARCHAR(8), n INT, amount DOUBLE, "
                          "ok BOOLEAN, ts TIMESTAMP(3))", "STRING on char[8] is VARCHAR(8)");
    cr_assert_eq(weir_schema_elem_size(s), sizeof(click));
    cr_assert_str_eq(weir_schema_name(s), "clicks");
    weir_schema_destroy(s);

    /* The builder form: the description, then a key and a watermark. */
    weir_schema_builder *b = weir_schema_builder_create("clicks");
    cr_assert_eq(weir_schema_bind_fields(b, sizeof(click), click_fields, NCLICK), 0);
    weir_schema_primary_key(b, "user");
    weir_schema_watermark(b, "ts", "ts - INTERVAL '1' SECOND");
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(weir_schema_primary_key_count(s), 1);
    cr_assert_eq(weir_schema_rowtime(s), 5);
    weir_schema_destroy(s);
}

typedef struct bad {
    uint8_t kind;
    int64_t id;
    char name[4];
    int32_t k2;
} bad;

static void expect_describe_error(const weir_struct_field *f, size_t n, const char *msg)
{
    weir_schema *s = (weir_schema *)1;
    char err[256];
    cr_assert_neq(weir_schema_from_struct("bad", sizeof(bad), f, n, &s, err, sizeof err), 0,
                  "expected: %s", msg);
    cr_assert_null(s);
    cr_assert(strstr(err, msg), "got '%s', expected '%s'", err, msg);
}

Test(describe, a_bad_field_is_named)
{
    weir_struct_field f1[] = {WEIR_STRUCT_FIELD(bad, id, "BIGINT"),
                              WEIR_STRUCT_FIELD(bad, name, "TEXT")};
    expect_describe_error(f1, 2, "table bad: column 'name': ");
    weir_struct_field f2[] = {WEIR_STRUCT_FIELD(bad, id, "INT")};
    expect_describe_error(f2, 1, "table bad: column 'id': field size 8, its type needs 4");
    weir_struct_field f3[] = {WEIR_STRUCT_KIND(bad, k2), WEIR_STRUCT_FIELD(bad, id, "BIGINT")};
    expect_describe_error(f3, 2, "table bad: the row kind field 'k2' is 4 bytes, not a uint8_t");
    weir_struct_field f4[] = {WEIR_STRUCT_KIND(bad, kind), WEIR_STRUCT_KIND(bad, kind),
                              WEIR_STRUCT_FIELD(bad, id, "BIGINT")};
    expect_describe_error(f4, 3, "table bad: a second row kind field 'kind'");
    weir_struct_field f5[] = {WEIR_STRUCT_FIELD(bad, id, NULL)};
    expect_describe_error(f5, 1, "table bad: column 'id': no type");
    weir_struct_field f6[] = {WEIR_STRUCT_KIND(bad, kind)};
    expect_describe_error(f6, 1, "table bad: no columns");
    weir_struct_field f7[] = {WEIR_STRUCT_FIELD(bad, id, "BIGINT"),
                              WEIR_STRUCT_FIELD(bad, id, "BIGINT")};
    expect_describe_error(f7, 2, "table bad: duplicate column 'id'");
}

/* ---- structs in and out ------------------------------------------------------------- */

/* C structs -> table (the description) -> where, select in another order
 * -> the same structs, by name; the record timestamps travel. */
Test(convert, round_trip_through_where_and_select, .timeout = 60)
{
    static const int64_t ts[] = {1000, 2000, 3000, 4000};
    click in[4] = {
        mk_click(1, "home", 3, 1.5, true, 10),
        mk_click(2, "abcdefgh", -1, 0.5, false, 20), /* fills page[8]: no NUL */
        mk_click(3, "cart", 0, 2.25, true, 30),
        mk_click(4, "", 7, 0.5, false, 40),
    };
    weir_schema *s = describe("clicks", sizeof(click), click_fields, NCLICK);
    env e = env_new();
    weir_table *t = weir_table_from_stream(e.env, weir_source_array(e.job, in, 4, sizeof(click), ts),
                                           s);
    weir_table *w = weir_table_where(t, "amount > 1 OR page = 'abcdefgh'");
    weir_table *p = weir_table_select(w, "ts, ok, amount * 2 AS amount, n, page, user");
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_stream_as(p, s), &c), "%s", weir_job_error(e.job));
    tu_run_ok(e.job);
    cr_assert_eq(weir_collect_elem_size(c), sizeof(click));
    cr_assert_eq(weir_collect_count(c), 3u);
    click want[3] = {in[0], in[1], in[2]};
    for (int i = 0; i < 3; i++)
        want[i].amount *= 2;
    static const int64_t want_ts[] = {1000, 2000, 3000};
    for (size_t i = 0; i < 3; i++) {
        cr_assert(memcmp(weir_collect_elem(c, i), &want[i], sizeof(click)) == 0, "element %zu", i);
        cr_assert_eq(weir_collect_timestamp(c, i), want_ts[i]);
    }
    env_free(&e);
    weir_schema_destroy(s);
}

/* A struct whose fields take Flink's implicit casts from the table's
 * columns: INT into BIGINT and DOUBLE, BIGINT into DOUBLE, VARCHAR into
 * CHAR (padded), TIMESTAMP_LTZ into TIMESTAMP. */
typedef struct wide {
    double big_as_double;
    int64_t int_as_bigint;
    double int_as_double;
    char code[6];
    int64_t when;
} wide;

static const weir_struct_field wide_fields[] = {
    WEIR_STRUCT_FIELD(wide, big_as_double, "DOUBLE"),
    WEIR_STRUCT_FIELD(wide, int_as_bigint, "BIGINT"),
    WEIR_STRUCT_FIELD(wide, int_as_double, "DOUBLE"),
    WEIR_STRUCT_FIELD(wide, code, "CHAR(5)"),
    WEIR_STRUCT_FIELD(wide, when, "TIMESTAMP(3)"),
};

Test(convert, implicit_casts_into_fields, .timeout = 60)
{
    weir_schema *rs = tt_schema("t", "int_as_bigint INT NOT NULL, int_as_double INT NOT NULL, "
                                     "code VARCHAR(5) NOT NULL, when TIMESTAMP_LTZ(3) NOT NULL, "
                                     "big_as_double BIGINT NOT NULL", NULL);
    size_t rsz = weir_schema_row_size(rs);
    unsigned char rows[2 * 256];
    tt_row(rs, rows, "+I -7|3|ab|1704067210000|9007199254740993");
    tt_row(rs, rows + rsz, "+I 2147483647|-2|abcde|0|-5");
    weir_schema *ws = describe("wide", sizeof(wide), wide_fields, 5);
    env e = env_new();
    weir_table *t = weir_table_from_stream(e.env, weir_source_array(e.job, rows, 2, rsz, NULL), rs);
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_stream_as(t, ws), &c), "%s", weir_job_error(e.job));
    tu_run_ok(e.job);
    cr_assert_eq(weir_collect_count(c), 2u);
    wide w0, w1;
    memcpy(&w0, weir_collect_elem(c, 0), sizeof w0);
    memcpy(&w1, weir_collect_elem(c, 1), sizeof w1);
    cr_assert_eq(w0.int_as_bigint, -7);
    cr_assert_eq(w0.int_as_double, 3.0);
    cr_assert_eq(w0.big_as_double, 9007199254740992.0, "BIGINT into DOUBLE rounds as a C cast");
    cr_assert(memcmp(w0.code, "ab   \0", 6) == 0, "CHAR(5) pads with spaces");
    cr_assert_eq(w0.when, 1704067210000);
    cr_assert_eq(w1.int_as_bigint, 2147483647);
    cr_assert_eq(w1.int_as_double, -2.0);
    cr_assert(memcmp(w1.code, "abcde\0", 6) == 0);
    cr_assert_eq(w1.big_as_double, -5.0);
    env_free(&e);
    weir_schema_destroy(rs);
    weir_schema_destroy(ws);
}

/* A string of exactly the array's size fills it (no NUL); one byte more
 * fails the job naming the column and the length. */
Test(convert, strings_at_and_over_capacity, .timeout = 60)
{
    weir_schema *rs = tt_schema("t", "user BIGINT NOT NULL, page VARCHAR(16), n INT, "
                                     "amount DOUBLE, ok BOOLEAN, ts TIMESTAMP(3)", NULL);
    weir_schema *s = describe("clicks", sizeof(click), click_fields, NCLICK);
    size_t rsz = weir_schema_row_size(rs);
    unsigned char rows[2 * 256];
    tt_row(rs, rows, "+I 1|12345678|1|1.0|true|5");
    tt_row(rs, rows + rsz, "+I 2|123456789|1|1.0|true|5");

    env e = env_new();
    weir_table *t = weir_table_from_stream(e.env, weir_source_array(e.job, rows, 1, rsz, NULL), rs);
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_stream_as(t, s), &c), "%s", weir_job_error(e.job));
    tu_run_ok(e.job);
    click want = mk_click(1, "12345678", 1, 1.0, true, 5);
    cr_assert_eq(weir_collect_count(c), 1u);
    cr_assert(memcmp(weir_collect_elem(c, 0), &want, sizeof want) == 0);
    env_free(&e);

    e = env_new();
    t = weir_table_from_stream(e.env, weir_source_array(e.job, rows, 2, rsz, NULL), rs);
    weir_sink_discard(weir_table_to_stream_as(t, s));
    cr_assert_eq(weir_job_run(e.job), WEIR_ERANGE);
    expect_error(&e, "table TableSource(t): column page: a string of 9 bytes is longer than "
                     "its capacity 8 in clicks");
    env_free(&e);
    weir_schema_destroy(rs);
    weir_schema_destroy(s);
}

/* A NULL into a struct field (never NULL) fails the job as Flink's NOT NULL
 * enforcer does, naming the table and the column; a row target's nullable
 * column takes it, its NOT NULL one fails the same way. */
Test(convert, null_into_a_field_fails_the_job, .timeout = 60)
{
    weir_schema *rs = tt_schema("t", "user BIGINT NOT NULL, page STRING, n INT, "
                                     "amount DOUBLE, ok BOOLEAN, ts TIMESTAMP(3)", NULL);
    weir_schema *s = describe("clicks", sizeof(click), click_fields, NCLICK);
    size_t rsz = weir_schema_row_size(rs);
    unsigned char rows[2 * 256];
    tt_row(rs, rows, "+I 1|home|1|1.0|true|5");
    tt_row(rs, rows + rsz, "+I 2|cart|null|1.0|true|5");

    env e = env_new();
    weir_table *t = weir_table_from_stream(e.env, weir_source_array(e.job, rows, 2, rsz, NULL), rs);
    weir_sink_discard(weir_table_to_stream_as(t, s));
    cr_assert_eq(weir_job_run(e.job), WEIR_EINVAL);
    expect_error(&e, "table TableSource(t): column 'n' is NOT NULL in clicks, however, a null "
                     "value is being written into it");
    env_free(&e);

    /* Rows of a target schema: nullable n takes the NULL. */
    weir_schema *nullable = tt_schema("out", "n INT, user BIGINT NOT NULL, page STRING, "
                                             "ok BOOLEAN, amount DOUBLE, ts TIMESTAMP(3)", NULL);
    e = env_new();
    t = weir_table_from_stream(e.env, weir_source_array(e.job, rows, 2, rsz, NULL), rs);
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_stream_as(t, nullable), &c), "%s",
              weir_job_error(e.job));
    tu_run_ok(e.job);
    char *got = tt_collected(nullable, c);
    cr_assert_str_eq(got, "+I[1, 1, home, true, 1.0, 1970-01-01 00:00:00.005]\n"
                          "+I[null, 2, cart, true, 1.0, 1970-01-01 00:00:00.005]\n");
    free(got);
    env_free(&e);

    weir_schema *strict = tt_schema("out", "n INT NOT NULL, user BIGINT NOT NULL, page STRING, "
                                           "ok BOOLEAN, amount DOUBLE, ts TIMESTAMP(3)", NULL);
    e = env_new();
    t = weir_table_from_stream(e.env, weir_source_array(e.job, rows, 2, rsz, NULL), rs);
    weir_sink_discard(weir_table_to_stream_as(t, strict));
    cr_assert_eq(weir_job_run(e.job), WEIR_EINVAL);
    expect_error(&e, "table TableSource(t): column 'n' is NOT NULL in out, however, a null "
                     "value is being written into it");
    env_free(&e);
    weir_schema_destroy(rs);
    weir_schema_destroy(s);
    weir_schema_destroy(nullable);
    weir_schema_destroy(strict);
}

/* A target's rowtime metadata column is Flink's "rowtime" sink metadata:
 * the table's column of that name becomes each record's timestamp; a bound
 * struct has no field for it. */
typedef struct at {
    int64_t user;
} at;

Test(convert, rowtime_metadata_sets_the_record_timestamp, .timeout = 60)
{
    weir_schema *rs = tt_schema("t", "user BIGINT NOT NULL, rt TIMESTAMP_LTZ(3)", NULL);
    size_t rsz = weir_schema_row_size(rs);
    unsigned char rows[3 * 64];
    tt_row(rs, rows, "+I 1|1500");
    tt_row(rs, rows + rsz, "+I 2|700");
    tt_row(rs, rows + 2 * rsz, "+I 3|null");
    static const weir_struct_field at_fields[] = {WEIR_STRUCT_FIELD(at, user, "BIGINT")};
    weir_schema_builder *b = weir_schema_builder_create("at");
    weir_schema_bind_fields(b, sizeof(at), at_fields, 1);
    weir_schema_rowtime_metadata(b, "rt");
    weir_schema *s;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);

    env e = env_new();
    weir_table *t = weir_table_from_stream(e.env, weir_source_array(e.job, rows, 2, rsz, NULL), rs);
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_stream_as(t, s), &c), "%s", weir_job_error(e.job));
    tu_run_ok(e.job);
    cr_assert_eq(weir_collect_count(c), 2u);
    cr_assert_eq(((const at *)weir_collect_elem(c, 0))->user, 1);
    cr_assert_eq(weir_collect_timestamp(c, 0), 1500);
    cr_assert_eq(((const at *)weir_collect_elem(c, 1))->user, 2);
    cr_assert_eq(weir_collect_timestamp(c, 1), 700);
    env_free(&e);

    /* A NULL there is a NULL into TIMESTAMP_LTZ(3) NOT NULL, as Flink's. */
    e = env_new();
    t = weir_table_from_stream(e.env, weir_source_array(e.job, rows, 3, rsz, NULL), rs);
    weir_sink_discard(weir_table_to_stream_as(t, s));
    cr_assert_eq(weir_job_run(e.job), WEIR_EINVAL);
    expect_error(&e, "table TableSource(t): column 'rt' is NOT NULL in at, however, a null "
                     "value is being written into it");
    env_free(&e);
    weir_schema_destroy(rs);
    weir_schema_destroy(s);
}

/* ---- plan-time refusals --------------------------------------------------------------- */

typedef struct small {
    int64_t user;
    int32_t n;
} small;

static const weir_struct_field small_fields[] = {
    WEIR_STRUCT_FIELD(small, user, "BIGINT"),
    WEIR_STRUCT_FIELD(small, n, "INT"),
};

/* Converts a table of `cols` into `target` with `mode` (~0u: insert-only
 * through weir_table_to_stream_as), after `group` (a group_by's keys and
 * items) if given, and expects the refusal `msg` and nothing planned for it. */
static void expect_refused(const char *cols, const char *pk, const char *group_keys,
                           const char *group_items, const weir_schema *target, unsigned mode,
                           const char *msg)
{
    weir_schema *rs = tt_schema("t", cols, pk);
    env e = env_new();
    weir_table *t = weir_table_from_stream(e.env, weir_source_array(e.job, NULL, 0,
                                                                    weir_schema_row_size(rs), NULL),
                                           rs);
    if (group_items)
        t = weir_table_group_by(t, group_keys, group_items);
    cr_assert_not_null(t, "%s", weir_job_error(e.job));
    size_t nodes = weir_table_env_node_count(e.env);
    weir_stream *out = mode == ~0u ? weir_table_to_stream_as(t, target)
                                   : weir_table_to_changelog_stream_as(t, target, mode);
    cr_assert_null(out, "expected: %s", msg);
    cr_assert_eq(weir_table_env_node_count(e.env), nodes, "a refused conversion plans nothing");
    expect_error(&e, msg);
    env_free(&e);
    weir_schema_destroy(rs);
}

Test(convert, refusals_name_what_is_wrong)
{
    weir_schema *s = describe("small", sizeof(small), small_fields, 2);
    expect_refused("user BIGINT, n VARCHAR(5)", NULL, NULL, NULL, s, ~0u,
                   "weir_table_to_stream_as: column types of table TableSource(t) and small do "
                   "not match: column 'n' is VARCHAR(5) in the table, INT in small");
    expect_refused("user INT, n BIGINT", NULL, NULL, NULL, s, ~0u,
                   "column 'n' is BIGINT in the table, INT in small");
    expect_refused("user BIGINT, m INT", NULL, NULL, NULL, s, ~0u,
                   "weir_table_to_stream_as: table TableSource(t) and small do not match: "
                   "column 'n' of small is not a column of the table");
    expect_refused("user BIGINT, n INT, extra DOUBLE", NULL, NULL, NULL, s, ~0u,
                   "weir_table_to_stream_as: table TableSource(t) and small do not match: "
                   "column 'extra' of the table is not a column of small");
    expect_refused("User BIGINT, n INT", NULL, NULL, NULL, s, ~0u,
                   "column 'user' of small is not a column of the table");
    /* An updating table into an insert-only stream: weir_table_to_stream's message. */
    expect_refused("user BIGINT, x INT", NULL, "user", "user, COUNT(*) AS n", s, ~0u,
                   "weir_table_to_stream_as: the table GroupAggregate(user) emits [I,UB,UA]: an "
                   "insert-only stream doesn't support consuming update changes which is "
                   "produced by node GroupAggregate(user)");
    /* A changelog into a struct without a kind field. */
    expect_refused("user BIGINT, x INT", NULL, "user", "user, MAX(x) AS n", s,
                   WEIR_CHANGELOG_ALL,
                   "weir_table_to_changelog_stream_as: the stream of small carries the kinds "
                   "[I,UB,UA], and the struct has no row kind field");
    expect_refused("user BIGINT, n INT", NULL, NULL, NULL, s, 7,
                   "weir_table_to_changelog_stream_as: the mode must be all, upsert, "
                   "insert-only or as produced (0)");
    expect_refused("user BIGINT, n INT", NULL, NULL, NULL, NULL, WEIR_CHANGELOG_ALL,
                   "weir_table_to_changelog_stream_as: a target schema is required");
    weir_schema_destroy(s);

    /* A changelog struct is fine for an insert-only table without its kind
     * field: every element would be +I. */
    s = describe("small", sizeof(small), small_fields, 2);
    weir_schema *rs = tt_schema("t", "n INT, user BIGINT", NULL);
    env e = env_new();
    weir_table *t = weir_table_from_stream(e.env, weir_source_array(e.job, NULL, 0,
                                                                    weir_schema_row_size(rs), NULL),
                                           rs);
    cr_assert_not_null(weir_table_to_changelog_stream_as(t, s, WEIR_CHANGELOG_ALL), "%s",
                       weir_job_error(e.job));
    env_free(&e);
    weir_schema_destroy(rs);
    weir_schema_destroy(s);
}

/* ---- changelogs into structs with a kind field ------------------------------------------ */

typedef struct total {
    uint8_t kind;
    int64_t user;
    int64_t total;
} total;

static const weir_struct_field total_fields[] = {
    WEIR_STRUCT_KIND(total, kind),
    WEIR_STRUCT_FIELD(total, user, "BIGINT"),
    WEIR_STRUCT_FIELD(total, total, "BIGINT"),
};

static weir_schema *total_schema(const char *pk)
{
    weir_schema_builder *b = weir_schema_builder_create("totals");
    weir_schema_bind_fields(b, sizeof(total), total_fields, 3);
    if (pk)
        weir_schema_primary_key(b, pk);
    weir_schema *s;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

/* "+I[1, 5]" per element, one a line. */
static char *totals_text(const weir_collect *c)
{
    size_t n = weir_collect_count(c);
    char *out = calloc(n + 1, 40);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const total *x = weir_collect_elem(c, i);
        k += (size_t)sprintf(out + k, "%s[%lld, %lld]\n", weir_row_kind_name(x->kind),
                             (long long)x->user, (long long)x->total);
    }
    return out;
}

static const char *const amounts[] = {"+I 1|5", "+I 2|7", "+I 1|4", "+I 2|1"};

static weir_table *sums(env *e, weir_schema **rs, unsigned char *rows)
{
    *rs = tt_schema("t", "user BIGINT NOT NULL, amount BIGINT NOT NULL", NULL);
    size_t rsz = weir_schema_row_size(*rs);
    for (int i = 0; i < 4; i++)
        tt_row(*rs, rows + (size_t)i * rsz, amounts[i]);
    weir_table *t = weir_table_from_stream(e->env, weir_source_array(e->job, rows, 4, rsz, NULL),
                                           *rs);
    return weir_table_group_by(t, "user", "SUM(amount) AS total, user");
}

Test(changelog, a_retracting_changelog_into_structs, .timeout = 60)
{
    env e = env_new();
    weir_schema *rs, *s = total_schema(NULL);
    unsigned char rows[4 * 64];
    weir_table *g = sums(&e, &rs, rows);
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_changelog_stream_as(g, s, WEIR_CHANGELOG_ALL), &c),
              "%s", weir_job_error(e.job));
    tu_run_ok(e.job);
    char *got = totals_text(c);
    cr_assert_str_eq(got, "+I[1, 5]\n+I[2, 7]\n-U[1, 5]\n+U[1, 9]\n-U[2, 7]\n+U[2, 8]\n");
    free(got);
    env_free(&e);
    weir_schema_destroy(rs);
    weir_schema_destroy(s);
}

/* Upsert: the struct's primary key is the upsert key; it must be the
 * table's unique key (the group key), in any spelling of the same set. */
Test(changelog, upsert_on_the_declared_key, .timeout = 60)
{
    env e = env_new();
    weir_schema *rs, *s = total_schema("user");
    unsigned char rows[4 * 64];
    weir_table *g = sums(&e, &rs, rows);
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_changelog_stream_as(g, s, WEIR_CHANGELOG_UPSERT), &c),
              "%s", weir_job_error(e.job));
    tu_run_ok(e.job);
    char *got = totals_text(c);
    cr_assert_str_eq(got, "+I[1, 5]\n+I[2, 7]\n+U[1, 9]\n+U[2, 8]\n");
    free(got);
    env_free(&e);
    weir_schema_destroy(rs);
    weir_schema_destroy(s);

    /* Without a declared key: the table's own. */
    e = env_new();
    s = total_schema(NULL);
    g = sums(&e, &rs, rows);
    cr_assert(weir_sink_collect(weir_table_to_changelog_stream_as(g, s, WEIR_CHANGELOG_UPSERT), &c),
              "%s", weir_job_error(e.job));
    tu_run_ok(e.job);
    got = totals_text(c);
    cr_assert_str_eq(got, "+I[1, 5]\n+I[2, 7]\n+U[1, 9]\n+U[2, 8]\n");
    free(got);
    env_free(&e);
    weir_schema_destroy(rs);
    weir_schema_destroy(s);
}

Test(changelog, an_upsert_key_that_is_not_the_unique_key_is_refused)
{
    weir_schema *s = total_schema("user, total");
    expect_refused("user BIGINT NOT NULL, amount BIGINT", NULL, "user",
                   "user, SUM(amount) AS total", s, WEIR_CHANGELOG_UPSERT,
                   "weir_table_to_changelog_stream_as: the primary key (user, total) of totals "
                   "is not the unique key (user) of table GroupAggregate(user): an upsert stream "
                   "on other columns would keep a changed key's old row");
    weir_schema_destroy(s);
    s = total_schema("total");
    expect_refused("user BIGINT NOT NULL, amount BIGINT", NULL, "user",
                   "user, SUM(amount) AS total", s, WEIR_CHANGELOG_ALL,
                   "the primary key (total) of totals is not the unique key (user) of table "
                   "GroupAggregate(user)");
    weir_schema_destroy(s);
    /* A table with no unique key: a global aggregate's projection. */
    s = total_schema("user");
    expect_refused("user BIGINT NOT NULL, amount BIGINT", NULL, "",
                   "MAX(user) AS user, SUM(amount) AS total", s, WEIR_CHANGELOG_UPSERT,
                   "the primary key (user) of totals is not a unique key of table "
                   "GroupAggregate(), which has none");
    weir_schema_destroy(s);
    s = total_schema(NULL);
    expect_refused("user BIGINT NOT NULL, amount BIGINT", NULL, "",
                   "MAX(user) AS user, SUM(amount) AS total", s, WEIR_CHANGELOG_UPSERT,
                   "weir_table_to_changelog_stream_as(upsert): the table GroupAggregate() has no "
                   "unique key");
    weir_schema_destroy(s);

    /* An insert-only table takes any key: it has no updates to key. */
    s = total_schema("total");
    weir_schema *rs = tt_schema("t", "user BIGINT, total BIGINT", NULL);
    env e = env_new();
    weir_table *t = weir_table_from_stream(e.env, weir_source_array(e.job, NULL, 0,
                                                                    weir_schema_row_size(rs), NULL),
                                           rs);
    cr_assert_not_null(weir_table_to_changelog_stream_as(t, s, WEIR_CHANGELOG_UPSERT), "%s",
                       weir_job_error(e.job));
    env_free(&e);
    weir_schema_destroy(rs);
    weir_schema_destroy(s);
}

/* ---- WEIR_CHANGELOG_AS_PRODUCED (mode 0) ----------------------------------------------------
 * The table's own stream, no node: for an upsert table, +I / +U / -D without
 * -U and a -D carrying the key only, where WEIR_CHANGELOG_ALL normalizes. */
Test(changelog, as_produced_is_the_nodes_own_stream, .timeout = 60)
{
    static const char *const in[] = {"+I 1|a", "+U 1|b", "+I 2|c", "-D 1|null", "+U 2|c"};
    for (int pass = 0; pass < 2; pass++) {
        weir_schema *rs = tt_schema("u", "id BIGINT NOT NULL, v STRING", "id");
        size_t rsz = weir_schema_row_size(rs);
        unsigned char rows[5 * 128];
        for (int i = 0; i < 5; i++)
            tt_row(rs, rows + (size_t)i * rsz, in[i]);
        env e = env_new();
        weir_table *t = weir_table_from_changelog_stream(
            e.env, weir_source_array(e.job, rows, 5, rsz, NULL), rs, WEIR_CHANGELOG_UPSERT);
        size_t nodes = weir_table_env_node_count(e.env);
        weir_stream *s = weir_table_to_changelog_stream(t, pass ? WEIR_CHANGELOG_ALL
                                                                : WEIR_CHANGELOG_AS_PRODUCED);
        weir_collect *c;
        cr_assert(weir_sink_collect(s, &c), "%s", weir_job_error(e.job));
        if (pass == 0) {
            cr_assert_eq(s, weir_table_stream(t));
            cr_assert_eq(weir_table_env_node_count(e.env), nodes, "no node added");
        }
        tu_run_ok(e.job);
        char *got = tt_collected(rs, c);
        if (pass == 0)
            cr_assert_str_eq(got, "+I[1, a]\n+U[1, b]\n+I[2, c]\n-D[1, null]\n+U[2, c]\n");
        else
            cr_assert_str_eq(got, "+I[1, a]\n-U[1, a]\n+U[1, b]\n+I[2, c]\n-D[1, b]\n");
        free(got);
        env_free(&e);
        weir_schema_destroy(rs);
    }
}

/* ---- in parallel ---------------------------------------------------------------------------
 * The conversions keep nothing per subtask: 20 000 structs through four
 * subtasks of a source, a where and the conversion back, each struct out
 * exactly once, equal to its input. */
Test(convert, parallel_subtasks_convert_every_struct_once, .timeout = 120)
{
    enum { N = 20000 };
    click *in = calloc(N, sizeof *in);
    for (int i = 0; i < N; i++) {
        char page[9];
        snprintf(page, sizeof page, "p%d", i % 1000);
        in[i] = mk_click(i, page, i % 7, (double)(i % 10), i % 2 == 0, 1000 + i);
    }
    weir_schema *s = describe("clicks", sizeof(click), click_fields, NCLICK);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 4});
    weir_table_env *tenv;
    cr_assert_eq(weir_table_env_create(job, NULL, &tenv), 0);
    weir_table *t = weir_table_from_stream(tenv, weir_source_array(job, in, N, sizeof(click), NULL),
                                           s);
    weir_table *w = weir_table_where(t, "amount >= 5");
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_stream_as(w, s), &c), "%s", weir_job_error(job));
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), (size_t)N / 2);
    unsigned char *seen = calloc(N, 1);
    for (size_t i = 0; i < weir_collect_count(c); i++) {
        const click *x = weir_collect_elem(c, i);
        cr_assert(x->user >= 0 && x->user < N && !seen[x->user], "user %lld", (long long)x->user);
        seen[x->user] = 1;
        cr_assert(memcmp(x, &in[x->user], sizeof *x) == 0, "user %lld", (long long)x->user);
        cr_assert_geq(x->amount, 5.0);
    }
    free(seen);
    weir_job_destroy(job);
    weir_table_env_destroy(tenv);
    weir_schema_destroy(s);
    free(in);
}
