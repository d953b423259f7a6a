/* test_sql_connector.c — a program's own connector (weir/connector.h):
 * registered by name, its options validated at CREATE TABLE (unknown ones
 * refused with the list it takes), its source read and its sink written by
 * SQL, the kinds its sink takes enforced at plan time with Flink's message,
 * and the registry's own rules. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir.h"

/* ---- 'counter': a source of N rows (n, n * 10) -------------------------------------- */

typedef struct counter {
    int64_t rows;
    unsigned char *data; /* the rows, made at the source's opening, freed with the state */
} counter;

static int counter_validate(weir_connector_context *c, void **state)
{
    counter *k = calloc(1, sizeof *k);
    if (!k)
        return WEIR_ENOMEM;
    *state = k;
    k->rows = 3;
    int r = weir_connector_option_int(c, "rows", 1, 1000, &k->rows);
    if (r)
        return r;
    const weir_schema *s = weir_connector_schema(c);
    if (weir_schema_ncolumns(s) != 2)
        return weir_connector_fail(c, NULL, "a counter table has two BIGINT columns, not %d",
                                   weir_schema_ncolumns(s));
    return 0;
}

static void counter_free(void *state)
{
    counter *k = state;
    free(k->data);
    free(k);
}

static weir_stream *counter_source(void *state, const weir_schema *schema, weir_job *job,
                                   const char *name)
{
    counter *k = state;
    size_t rs = weir_schema_row_size(schema);
    free(k->data);
    k->data = calloc((size_t)k->rows, rs);
    for (int64_t i = 0; i < k->rows; i++) {
        unsigned char *row = k->data + (size_t)i * rs;
        weir_row_init(schema, row, WEIR_ROW_INSERT);
        weir_row_set_int(schema, row, 0, i);
        weir_row_set_int(schema, row, 1, i * 10);
    }
    return weir_stream_set_name(weir_source_array(job, k->data, (size_t)k->rows, rs, NULL), name);
}

static const weir_connector_factory counter_factory = {
    .version = WEIR_CONNECTOR_V1,
    .name = "counter",
    .options = "'rows'",
    .validate = counter_validate,
    .free_state = counter_free,
    .source = counter_source,
};

/* ---- 'collect': a sink keeping every row's text, insert-only or every kind ----------- */

static char collected[64][96];
static atomic_int ncollected;

static int collect_row(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)subtask;
    int i = atomic_fetch_add(&ncollected, 1);
    if (i < 64)
        weir_row_format(arg, elem, collected[i], sizeof collected[i]);
    return 0;
}

static int collect_validate(weir_connector_context *c, void **state)
{
    *state = NULL;
    bool updates = false;
    int r = weir_connector_option_bool(c, "updates", &updates);
    if (updates)
        weir_connector_set_sink_kinds(c, WEIR_CHANGELOG_ALL);
    return r;
}

static weir_stream *collect_sink(void *state, const weir_schema *schema, weir_stream *rows,
                                 const char *name, int parallelism)
{
    (void)state;
    (void)name;
    (void)parallelism;
    return weir_sink_callback(rows, collect_row, (void *)schema);
}

static const weir_connector_factory collect_factory = {
    .version = WEIR_CONNECTOR_V1,
    .name = "collect",
    .options = "'updates'",
    .validate = collect_validate,
    .sink = collect_sink,
};

static weir_sql_session *session(void)
{
    cr_assert_eq(weir_connector_register(&counter_factory), 0);
    cr_assert_eq(weir_connector_register(&collect_factory), 0);
    weir_sql_session *s = NULL;
    cr_assert_eq(weir_sql_session_create(&(weir_sql_config){.workers = 1}, &s), 0);
    atomic_store(&ncollected, 0);
    return s;
}

static int run(weir_sql_session *s, const char *text)
{
    return weir_sql_execute(s, text, strlen(text));
}

Test(sql_connector, a_programs_source_and_sink_through_sql)
{
    weir_sql_session *s = session();
    cr_assert_eq(run(s, "CREATE TABLE c (n BIGINT, m BIGINT) WITH ('connector' = 'counter', "
                        "'rows' = '4');\n"
                        "CREATE TABLE out (n BIGINT, m BIGINT) WITH ('connector' = 'collect');\n"
                        "INSERT INTO out SELECT n, m + 1 FROM c WHERE n > 0;"),
                 0, "%s", weir_sql_error(s));
    cr_assert_eq(atomic_load(&ncollected), 3);
    cr_assert_str_eq(collected[0], "+I[1, 11]");
    cr_assert_str_eq(collected[2], "+I[3, 31]");
    weir_sql_session_destroy(s);
}

Test(sql_connector, an_insert_only_sink_refuses_updates_at_plan_time)
{
    weir_sql_session *s = session();
    cr_assert_eq(run(s, "CREATE TABLE c (n BIGINT, m BIGINT) WITH ('connector' = 'counter');\n"
                        "CREATE TABLE out (n BIGINT, total BIGINT) WITH ('connector' = "
                        "'collect');\n"
                        "INSERT INTO out SELECT n, SUM(m) FROM c GROUP BY n;"),
                 WEIR_EINVAL);
    cr_assert_str_eq(weir_sql_error(s),
                     "line 3, column 13: Table sink 'out' doesn't support consuming update "
                     "changes which is produced by node GroupAggregate(`n`)");
    cr_assert_eq(atomic_load(&ncollected), 0);
    /* the same sink told it takes every kind */
    cr_assert_eq(run(s, "CREATE TABLE all_kinds (n BIGINT, total BIGINT) WITH ('connector' = "
                        "'collect', 'updates' = 'true');\n"
                        "INSERT INTO all_kinds SELECT n % 2, SUM(m) FROM c GROUP BY n % 2;"),
                 0, "%s", weir_sql_error(s));
    cr_assert_eq(atomic_load(&ncollected), 4); /* +I[0, 0], +I[1, 10], -U[0, 0], +U[0, 20] */
    weir_sql_session_destroy(s);
}

Test(sql_connector, options_are_checked_where_they_stand)
{
    weir_sql_session *s = session();
    cr_assert_eq(run(s, "CREATE TABLE c (n BIGINT, m BIGINT)\nWITH ('connector' = 'counter', "
                        "'rows' = 'many')"),
                 WEIR_EINVAL);
    cr_assert_str_eq(weir_sql_error(s), "line 2, column 32: option 'rows'='many': not an integer "
                                        "in 1..1000");
    cr_assert_eq(run(s, "CREATE TABLE c (n BIGINT, m BIGINT)\nWITH ('connector' = 'counter', "
                        "'rowz' = '2')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "line 2, column 32: unknown option 'rowz' for connector "
                                        "'counter' (it takes 'rows', 'scan.watermark"),
              "%s", weir_sql_error(s));
    cr_assert_eq(run(s, "CREATE TABLE c (n BIGINT) WITH ('connector' = 'counter')"), WEIR_EINVAL);
    cr_assert_str_eq(weir_sql_error(s), "line 1, column 14: a counter table has two BIGINT "
                                        "columns, not 1");
    cr_assert_eq(run(s, "CREATE TABLE c (n BIGINT) WITH ('connector' = 'nope')"), WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "Could not find any factory for identifier 'nope'. "
                                        "Available factory identifiers are: "),
              "%s", weir_sql_error(s));
    cr_assert(strstr(weir_sql_error(s), "collect counter"), "%s", weir_sql_error(s));
    /* a sink-only connector is not read, a source-only one not written */
    cr_assert_eq(run(s, "CREATE TABLE c (n BIGINT, m BIGINT) WITH ('connector' = 'counter');\n"
                        "CREATE TABLE out (n BIGINT, m BIGINT) WITH ('connector' = 'collect');\n"
                        "SELECT * FROM out"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "Connector 'collect' can only be used as a sink"), "%s",
              weir_sql_error(s));
    cr_assert_eq(run(s, "INSERT INTO c SELECT * FROM c"), WEIR_EINVAL);
    cr_assert(strstr(weir_sql_error(s), "Connector 'counter' can only be used as a source"),
              "%s", weir_sql_error(s));
    weir_sql_session_destroy(s);
}

static weir_stream *watermarked_source(void *state, const weir_schema *schema, weir_job *job,
                                       const char *name, const weir_watermark_strategy *wm)
{
    (void)wm;
    return counter_source(state, schema, job, name);
}

/* A factory compiled against WEIR_CONNECTOR_V1 ends at source_watermarks:
 * what follows it in memory is not the factory's. Here those bytes are
 * garbage; the registry reads none of them, so the table is made, its
 * WATERMARK is a watermark operator after its source, and it is read. */
static weir_connector_factory v1_factory;

Test(sql_connector, a_factory_of_v1_still_registers_and_works)
{
    memset(&v1_factory, 0xa5, sizeof v1_factory);
    memcpy(&v1_factory, &counter_factory, offsetof(weir_connector_factory, source_watermarked));
    v1_factory.name = "counter-v1";
    cr_assert_eq(v1_factory.version, WEIR_CONNECTOR_V1);
    cr_assert_eq(weir_connector_register(&v1_factory), 0);
    weir_sql_session *s = session();
    char *plan = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&plan, &len);
    cr_assert_not_null(out);
    weir_sql_session *e = NULL;
    cr_assert_eq(weir_sql_session_create(&(weir_sql_config){.workers = 1, .out = out}, &e), 0);
    cr_assert_eq(run(e, "CREATE TABLE c (n BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)\n"
                        "WITH ('connector' = 'counter-v1');\n"
                        "EXPLAIN SELECT * FROM c;"),
                 0, "%s", weir_sql_error(e));
    fflush(out);
    cr_assert(strstr(plan, "WatermarkAssigner(rowtime=[ts], watermark=[ts])"), "%s", plan);
    cr_assert_eq(run(s, "CREATE TABLE c (n BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)\n"
                        "WITH ('connector' = 'counter-v1', 'rows' = '3');\n"
                        "CREATE TABLE out (n BIGINT, m BIGINT) WITH ('connector' = 'collect');\n"
                        "INSERT INTO out SELECT n, n * 2 FROM c;"),
                 0, "%s", weir_sql_error(s));
    cr_assert_eq(atomic_load(&ncollected), 3);
    cr_assert_str_eq(collected[2], "+I[2, 4]");
    weir_sql_session_destroy(e);
    weir_sql_session_destroy(s);
    fclose(out);
    free(plan);
}

static int no_validate(weir_connector_context *c, void **state)
{
    (void)c;
    (void)state;
    return 0;
}

Test(sql_connector, the_registry_rules)
{
    cr_assert_eq(weir_connector_register(&counter_factory), 0);
    cr_assert_eq(weir_connector_register(&counter_factory), 0, "the same factory again");
    weir_connector_factory other = counter_factory;
    cr_assert_eq(weir_connector_register(&other), WEIR_EINVAL, "a name taken");
    other.name = "has space";
    cr_assert_eq(weir_connector_register(&other), WEIR_EINVAL);
    other.name = "fine";
    other.validate = NULL;
    cr_assert_eq(weir_connector_register(&other), WEIR_EINVAL);
    other.validate = no_validate;
    other.source = NULL;
    cr_assert_eq(weir_connector_register(&other), WEIR_EINVAL, "neither source nor sink");
    other.source = counter_factory.source;
    other.version = WEIR_CONNECTOR_V2;
    other.source = NULL;
    other.sink = collect_factory.sink;
    other.source_watermarked = watermarked_source;
    cr_assert_eq(weir_connector_register(&other), WEIR_EINVAL, "source_watermarked, no source");
    other.source = counter_factory.source;
    other.sink = NULL;
    other.source_watermarked = NULL;
    other.version = 99;
    cr_assert_eq(weir_connector_register(&other), WEIR_EINVAL);
    cr_assert_eq(weir_connector_find("counter"), &counter_factory);
    cr_assert_null(weir_connector_find("fine"));
    /* the built-in ones are there once a session was made */
    weir_sql_session *s = NULL;
    cr_assert_eq(weir_sql_session_create(NULL, &s), 0);
    char names[256];
    weir_connector_names(", ", names, sizeof names);
    cr_assert_str_eq(names, "blackhole, counter, datagen, print");
    weir_sql_session_destroy(s);
}
