/* test_sql_bridge.c — SQL and C streams in one job (weir/sql.h's
 * weir_table_env_execute_sql and weir_table_env_sql_query, weir/table.h's
 * temporary views): a C stream of structs becomes a view that SQL windows,
 * and the result goes on in C; a SQL table feeds a C keyed process
 * function; INSERT INTO and statement sets plan into the program's job,
 * reading each source once; errors are the job's, at their line and
 * column. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weir.h"
#include "support/weir_testutil.h"

/* 2024-01-01 00:00:00 UTC */
#define T0 INT64_C(1704067200000)

typedef struct click {
    char user[16];
    int64_t ts;
    int64_t amount;
} click;

static const click clicks[] = {
    {"alice", T0 + 1000, 1}, {"bob", T0 + 2000, 10},   {"alice", T0 + 4000, 2},
    {"alice", T0 + 6000, 4}, {"bob", T0 + 7000, 20},   {"carol", T0 + 9000, 100},
    {"bob", T0 + 11000, 40}, {"alice", T0 + 12000, 8},
};
#define NCLICKS (sizeof clicks / sizeof clicks[0])

/* The clicks' schema, bound to the struct, with a watermark on ts. */
static weir_schema *click_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("clicks");
    weir_schema_bind_struct(b, sizeof(click));
    weir_schema_column_at(b, "user", (weir_type){.id = WEIR_TYPE_VARCHAR, .capacity = 16},
                          offsetof(click, user), sizeof((click){0}).user);
    weir_schema_column_at(b, "ts", (weir_type){.id = WEIR_TYPE_TIMESTAMP},
                          offsetof(click, ts), 8);
    weir_schema_column_at(b, "amount", (weir_type){.id = WEIR_TYPE_BIGINT},
                          offsetof(click, amount), 8);
    weir_schema_watermark(b, "ts", "ts - INTERVAL '1' SECOND");
    weir_schema *s = NULL;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

static int64_t ts_of[NCLICKS];

/* A job and its env, with the clicks as a C stream registered as "clicks". */
static weir_table_env *clicks_env(weir_job **job, weir_schema **schema)
{
    *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 1,
                                     .clock = WEIR_CLOCK_VIRTUAL});
    weir_table_env *env = NULL;
    cr_assert_eq(weir_table_env_create(*job, NULL, &env), 0);
    for (size_t i = 0; i < NCLICKS; i++)
        ts_of[i] = clicks[i].ts;
    weir_stream *s = weir_source_array(*job, clicks, NCLICKS, sizeof(click), ts_of);
    *schema = click_schema();
    cr_assert_eq(weir_table_env_create_temporary_view_from_stream(env, "clicks", s, *schema), 0,
                 "%s", weir_job_error(*job));
    return env;
}

/* What the window hands back to C: one struct per user and window. */
typedef struct user_window {
    int64_t n;
    char user[16];
    int64_t window_start;
    int64_t total;
} user_window;

static const weir_struct_field window_fields[] = {
    WEIR_STRUCT_FIELD(user_window, user, "STRING"),
    WEIR_STRUCT_FIELD(user_window, window_start, "TIMESTAMP(3)"),
    WEIR_STRUCT_FIELD(user_window, n, "BIGINT"),
    WEIR_STRUCT_FIELD(user_window, total, "BIGINT"),
};

static int cmp_window(const void *a, const void *b)
{
    const user_window *x = a, *y = b;
    int c = strcmp(x->user, y->user);
    return c ? c : (x->window_start > y->window_start) - (x->window_start < y->window_start);
}

/* Seed 001's pattern: C stream -> view -> SQL window -> C structs -> C sink. */
Test(sql_bridge, a_c_stream_through_a_sql_window_into_c)
{
    weir_job *job;
    weir_schema *schema, *ws = NULL;
    weir_table_env *env = clicks_env(&job, &schema);
    char err[256];
    cr_assert_eq(weir_schema_from_struct("windows", sizeof(user_window), window_fields, 4, &ws,
                                         err, sizeof err),
                 0, "%s", err);
    weir_table *t = weir_table_env_sql_query(
        env, "SELECT `user`, window_start, COUNT(*) AS n, SUM(amount) AS total\n"
             "FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND))\n"
             "GROUP BY `user`, window_start, window_end");
    cr_assert_not_null(t, "%s", weir_job_error(job));
    weir_collect *c = NULL;
    cr_assert_not_null(weir_sink_collect(weir_table_to_stream_as(t, ws), &c), "%s",
                       weir_job_error(job));
    tu_run_ok(job);
    size_t n = weir_collect_count(c);
    cr_assert_eq(n, 7);
    user_window got[7];
    for (size_t i = 0; i < n; i++)
        memcpy(&got[i], weir_collect_elem(c, i), sizeof got[i]);
    qsort(got, n, sizeof got[0], cmp_window);
    static const struct {
        const char *user;
        int64_t start, n, total;
    } want[] = {
        {"alice", 0, 2, 3},    {"alice", 5000, 1, 4},  {"alice", 10000, 1, 8},
        {"bob", 0, 1, 10},     {"bob", 5000, 1, 20},   {"bob", 10000, 1, 40},
        {"carol", 5000, 1, 100},
    };
    for (size_t i = 0; i < n; i++) {
        cr_assert_str_eq(got[i].user, want[i].user);
        cr_assert_eq(got[i].window_start, T0 + want[i].start, "%s", got[i].user);
        cr_assert_eq(got[i].n, want[i].n);
        cr_assert_eq(got[i].total, want[i].total);
    }
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    weir_schema_destroy(ws);
}

/* The reverse: a SQL table (a CREATE TABLE of the env) into a C keyed
 * process function, which keeps a running total per user in keyed state. */
typedef struct totals {
    const weir_schema *schema;
    int state;
} totals;

typedef struct user_total {
    char user[16];
    int64_t total;
} user_total;

static int totals_open(weir_ctx *ctx)
{
    totals *t = weir_ctx_arg(ctx);
    return weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(int64_t), &t->state);
}

static int totals_record(weir_ctx *ctx, const void *row, int64_t ts)
{
    (void)ts;
    totals *t = weir_ctx_arg(ctx);
    int64_t *sum = weir_state_value(ctx, t->state, 0, true);
    if (!sum)
        return WEIR_ENOMEM;
    *sum += weir_row_get_int(t->schema, row, 1);
    user_total out = {.total = *sum};
    uint32_t len;
    const char *u = weir_row_get_string(t->schema, row, 0, &len);
    snprintf(out.user, sizeof out.user, "%.*s", (int)len, u);
    return weir_keyed_emit(ctx, &out);
}

static const weir_keyed_process_vtable totals_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1, .open = totals_open, .on_record = totals_record};

static void user_key(const void *row, void *key, void *arg)
{
    const weir_schema *s = arg;
    uint32_t len;
    const char *u = weir_row_get_string(s, row, 0, &len);
    memset(key, 0, 16);
    memcpy(key, u, len < 16 ? len : 16);
}

Test(sql_bridge, a_sql_table_into_a_c_keyed_process_function)
{
    char dir[] = "/tmp/weir-bridge-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256], ddl[1024];
    snprintf(path, sizeof path, "%s/orders.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"user\": \"a\", \"amount\": 1}\n{\"user\": \"b\", \"amount\": 2}\n"
          "{\"user\": \"a\", \"amount\": 3}\n{\"user\": \"c\", \"amount\": -1}\n"
          "{\"user\": \"b\", \"amount\": 5}\n", f);
    fclose(f);
    cr_assert_eq(weir_file_register_connectors(), 0); /* filesystem tables */
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 2});
    weir_table_env *env = NULL;
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    snprintf(ddl, sizeof ddl, "CREATE TABLE orders (`user` STRING, amount BIGINT) WITH "
             "('connector' = 'filesystem', 'path' = '%s', 'format' = 'json')", path);
    cr_assert_eq(weir_table_env_execute_sql(env, ddl), 0, "%s", weir_job_error(job));
    weir_table *t = weir_table_env_sql_query(env, "SELECT `user`, amount FROM orders "
                                                  "WHERE amount > 0");
    cr_assert_not_null(t, "%s", weir_job_error(job));
    totals tt = {.schema = weir_table_schema(t)};
    weir_stream *keyed = weir_stream_key_by(
        weir_table_to_stream(t),
        &(weir_key_spec){.key_size = 16, .extract = user_key, .arg = (void *)tt.schema});
    weir_stream *sums = weir_stream_keyed_process(
        keyed, &(weir_keyed_process_spec){.name = "totals", .vtable = &totals_vtable,
                                          .arg = &tt, .out_size = sizeof(user_total),
                                          .parallelism = 1});
    weir_collect *c = NULL;
    cr_assert_not_null(weir_sink_collect(sums, &c), "%s", weir_job_error(job));
    tu_run_ok(job);
    int64_t last_a = 0, last_b = 0;
    bool saw_c = false;
    for (size_t i = 0; i < weir_collect_count(c); i++) {
        const user_total *u = weir_collect_elem(c, i);
        if (strcmp(u->user, "a") == 0)
            last_a = u->total;
        else if (strcmp(u->user, "b") == 0)
            last_b = u->total;
        else
            saw_c = true;
    }
    cr_assert_eq(weir_collect_count(c), 4);
    cr_assert_eq(last_a, 4);
    cr_assert_eq(last_b, 7);
    cr_assert(!saw_c, "the WHERE dropped c's only row");
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    unlink(path);
    rmdir(dir);
}

/* INSERT INTO and a statement set plan into the program's job beside its
 * own operators; what they print goes to stdout when the job runs. */
Test(sql_bridge, insert_and_statement_set_in_the_programs_job)
{
    char dir[] = "/tmp/weir-bridge-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char out[256];
    snprintf(out, sizeof out, "%s/stdout", dir);
    cr_assert_not_null(freopen(out, "w", stdout));
    weir_job *job;
    weir_schema *schema;
    weir_table_env *env = clicks_env(&job, &schema);
    size_t before = weir_table_env_node_count(env);
    int r = weir_table_env_execute_sql(
        env, "CREATE TABLE shown (u STRING, amount BIGINT) WITH ('connector' = 'print', "
             "'print-identifier' = 'big');\n"
             "CREATE TABLE sums (u STRING, total BIGINT) WITH ('connector' = 'print', "
             "'print-identifier' = 'sum');\n"
             "EXECUTE STATEMENT SET BEGIN\n"
             "  INSERT INTO shown SELECT `user`, amount FROM clicks WHERE amount >= 20;\n"
             "  INSERT INTO sums SELECT `user`, SUM(amount) FROM clicks GROUP BY `user`;\n"
             "END;");
    cr_assert_eq(r, 0, "%s", weir_job_error(job));
    /* the view's table is shared: the inserts add their own nodes only (a
     * Calc; a Calc, the aggregate and the projection into the sink's
     * columns), no second source */
    cr_assert_lt(weir_table_env_node_count(env) - before, 7u);
    /* the program's own operator on the same view, in the same job */
    weir_collect *c = NULL;
    cr_assert_not_null(weir_sink_collect(weir_table_to_stream(weir_table_env_from(env, "clicks")),
                                         &c));
    tu_run_ok(job);
    fflush(stdout);
    cr_assert_eq(weir_collect_count(c), NCLICKS);
    char text[4096];
    tu_slurp(out, text, sizeof text);
    cr_assert(strstr(text, "big> +I[bob, 20]\n"), "%s", text);
    cr_assert(strstr(text, "big> +I[carol, 100]\n"), "%s", text);
    cr_assert(strstr(text, "big> +I[bob, 40]\n"), "%s", text);
    cr_assert(strstr(text, "sum> +U[alice, 15]\n"), "%s", text);
    cr_assert(strstr(text, "sum> +U[bob, 70]\n"), "%s", text);
    cr_assert(!strstr(text, "big> +I[alice"), "%s", text);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    unlink(out);
    rmdir(dir);
}

/* A C statement set (Flink's StatementSet): an INSERT in SQL and a C table
 * written into a catalog table, checked as they are added, planned into the
 * job only at execute (a wrong one adds nothing), each source read once. */
Test(sql_bridge, a_c_statement_set)
{
    char dir[] = "/tmp/weir-bridge-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char out[256];
    snprintf(out, sizeof out, "%s/stdout", dir);
    cr_assert_not_null(freopen(out, "w", stdout));
    weir_job *job;
    weir_schema *schema;
    weir_table_env *env = clicks_env(&job, &schema);
    cr_assert_eq(weir_table_env_execute_sql(
                     env, "CREATE TABLE big (u STRING, amount BIGINT) WITH ('connector' = "
                          "'print', 'print-identifier' = 'big');\n"
                          "CREATE TABLE small (u STRING, amount INT) WITH ('connector' = "
                          "'print', 'print-identifier' = 'small');\n"
                          "CREATE TABLE gen (`key` BIGINT) WITH ('connector' = 'datagen')"),
                 0, "%s", weir_job_error(job));
    weir_statement_set *set = weir_table_env_create_statement_set(env);
    cr_assert_not_null(set);
    size_t before = weir_table_env_node_count(env);
    cr_assert_eq(weir_statement_set_add_insert_sql(
                     set, "INSERT INTO big SELECT `user`, amount FROM clicks WHERE amount >= 20"),
                 0, "%s", weir_job_error(job));
    /* a C table of the env, by position, BIGINT -> INT is not implicit: the
     * projection casts it */
    weir_table *t = weir_table_env_sql_query(
        env, "SELECT `user`, CAST(amount AS INT) FROM clicks WHERE amount < 20");
    cr_assert_not_null(t, "%s", weir_job_error(job));
    size_t after_query = weir_table_env_node_count(env);
    cr_assert_eq(weir_statement_set_add_insert(set, "small", t), 0, "%s", weir_job_error(job));
    cr_assert_eq(weir_statement_set_count(set), 2);
    /* nothing planned yet: only the query's own node */
    cr_assert_eq(weir_table_env_node_count(env), after_query);
    cr_assert_gt(after_query, before);
    cr_assert_eq(weir_statement_set_execute(set), 0, "%s", weir_job_error(job));
    cr_assert_eq(weir_statement_set_count(set), 0);
    cr_assert_gt(weir_table_env_node_count(env), after_query);
    tu_run_ok(job);
    fflush(stdout);
    char text[4096];
    tu_slurp(out, text, sizeof text);
    cr_assert(strstr(text, "big> +I[bob, 20]\n"), "%s", text);
    cr_assert(strstr(text, "big> +I[carol, 100]\n"), "%s", text);
    cr_assert(strstr(text, "small> +I[alice, 1]\n"), "%s", text);
    cr_assert(strstr(text, "small> +I[bob, 10]\n"), "%s", text);
    cr_assert(!strstr(text, "small> +I[bob, 20]"), "%s", text);
    weir_statement_set_destroy(set);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    unlink(out);
    rmdir(dir);
}

/* A fresh job and env with a sink table "sink" and a source-only "gen",
 * and an empty statement set of it (a job keeps its first error). */
static weir_statement_set *refusing_set(weir_job **job, weir_table_env **env,
                                        weir_schema **schema)
{
    *env = clicks_env(job, schema);
    cr_assert_eq(weir_table_env_execute_sql(
                     *env, "CREATE TABLE sink (u STRING) WITH ('connector' = 'blackhole');\n"
                           "CREATE TABLE gen (`key` BIGINT) WITH ('connector' = 'datagen')"),
                 0, "%s", weir_job_error(*job));
    weir_statement_set *set = weir_table_env_create_statement_set(*env);
    cr_assert_not_null(set);
    return set;
}

static void refusing_done(weir_statement_set *set, weir_job *job, weir_table_env *env,
                          weir_schema *schema)
{
    cr_assert_neq(weir_job_run(job), 0); /* the job does not run after an error */
    weir_statement_set_destroy(set);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
}

/* What a statement set refuses, each as the job's error. */
Test(sql_bridge, a_c_statement_set_refuses)
{
    weir_job *job;
    weir_table_env *env;
    weir_schema *schema;
    weir_statement_set *set = refusing_set(&job, &env, &schema);
    cr_assert_eq(weir_statement_set_execute(set), WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "the statement set is empty"), "%s",
              weir_job_error(job));
    refusing_done(set, job, env, schema);

    set = refusing_set(&job, &env, &schema);
    cr_assert_eq(weir_statement_set_add_insert_sql(set, "SELECT 1"), WEIR_EINVAL);
    cr_assert_str_eq(weir_job_error(job), "line 1, column 1: weir_statement_set_add_insert_sql "
                                          "takes one INSERT INTO statement");
    refusing_done(set, job, env, schema);

    set = refusing_set(&job, &env, &schema);
    cr_assert_eq(weir_statement_set_add_insert_sql(set, "INSERT INTO snk SELECT `user` FROM "
                                                        "clicks"),
                 WEIR_EINVAL);
    cr_assert_str_eq(weir_job_error(job),
                     "line 1, column 13: unknown table 'snk' (did you mean 'sink'?)");
    refusing_done(set, job, env, schema);

    set = refusing_set(&job, &env, &schema);
    cr_assert_eq(weir_statement_set_add_insert_sql(set, "INSERT INTO gen VALUES (1)"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "Connector 'datagen' can only be used as a source"),
              "%s", weir_job_error(job));
    refusing_done(set, job, env, schema);

    set = refusing_set(&job, &env, &schema);
    cr_assert_eq(weir_statement_set_add_insert(set, "clicks", weir_table_env_from(env, "clicks")),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "a view cannot be written"), "%s",
              weir_job_error(job));
    refusing_done(set, job, env, schema);

    /* three columns into one: said at execute, naming the table */
    set = refusing_set(&job, &env, &schema);
    cr_assert_eq(weir_statement_set_add_insert(set, "sink", weir_table_env_from(env, "clicks")),
                 0, "%s", weir_job_error(job));
    cr_assert_eq(weir_statement_set_execute(set), WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "weir_statement_set_execute: writing a table into "
                                          "'sink': Column types of query result and sink for "
                                          "'sink' do not match"),
              "%s", weir_job_error(job));
    refusing_done(set, job, env, schema);
}

Test(sql_bridge, errors_are_the_jobs_at_their_line_and_column)
{
    weir_job *job;
    weir_schema *schema;
    weir_table_env *env = clicks_env(&job, &schema);
    /* an unknown table: the hint knows the views */
    cr_assert_null(weir_table_env_sql_query(env, "SELECT *\nFROM clickz"));
    cr_assert_str_eq(weir_job_error(job),
                     "line 2, column 6: unknown table 'clickz' (did you mean 'clicks'?)");
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);

    env = clicks_env(&job, &schema);
    /* a view's name is taken for CREATE TABLE too */
    cr_assert_eq(weir_table_env_execute_sql(env, "CREATE TABLE clicks (a INT) WITH "
                                                 "('connector' = 'blackhole')"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "'clicks' exists already"), "%s", weir_job_error(job));
    /* the job does not run after an error */
    cr_assert_neq(weir_job_run(job), 0);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);

    env = clicks_env(&job, &schema);
    cr_assert_null(weir_table_env_sql_query(env, "SELECT 1; SELECT 2"));
    cr_assert(strstr(weir_job_error(job), "takes one query"), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);

    env = clicks_env(&job, &schema);
    cr_assert_eq(weir_table_env_execute_sql(env, "EXPLAIN SELECT * FROM clicks"), WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "weir_table_explain"), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);

    /* the job's own settings are the program's */
    env = clicks_env(&job, &schema);
    cr_assert_eq(weir_table_env_execute_sql(env, "SET 'weir.clock' = 'system'"), WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "the job is the program's"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);

    env = clicks_env(&job, &schema);
    cr_assert_eq(weir_table_env_execute_sql(env, "INSERT INTO clicks SELECT * FROM clicks"),
                 WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "a view cannot be written"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
}

Test(sql_bridge, views_by_name)
{
    weir_job *job;
    weir_schema *schema;
    weir_table_env *env = clicks_env(&job, &schema);
    weir_table *t = weir_table_env_from(env, "clicks");
    cr_assert_not_null(t);
    cr_assert_eq(weir_table_env_create_temporary_view(env, "again", t), 0);
    cr_assert_eq(weir_table_env_view_count(env), 2);
    cr_assert_str_eq(weir_table_env_view_name(env, 1), "again");
    cr_assert_eq(weir_table_env_create_temporary_view(env, "again", t), WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "exists already"), "%s", weir_job_error(job));
    cr_assert_null(weir_table_env_from(env, "nope"));
    cr_assert_eq(weir_table_env_create_temporary_view(env, "", t), WEIR_EINVAL);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
}

/* Flink's source reuse: every read of a catalog table in one job shares its
 * source, so a second INSERT from it adds no source node. */
Test(sql_bridge, a_catalog_table_is_read_once_per_job)
{
    char dir[] = "/tmp/weir-bridge-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256], ddl[1024];
    snprintf(path, sizeof path, "%s/t.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"a\": 1}\n{\"a\": 2}\n", f);
    fclose(f);
    cr_assert_eq(weir_file_register_connectors(), 0); /* filesystem tables */
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_table_env *env = NULL;
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    snprintf(ddl, sizeof ddl, "CREATE TABLE t (a BIGINT) WITH ('connector' = 'filesystem', "
             "'path' = '%s', 'format' = 'json');\n"
             "CREATE TABLE bh (a BIGINT) WITH ('connector' = 'blackhole');", path);
    cr_assert_eq(weir_table_env_execute_sql(env, ddl), 0, "%s", weir_job_error(job));
    size_t n0 = weir_table_env_node_count(env);
    const char *insert = "INSERT INTO bh SELECT a FROM t WHERE a > 1";
    cr_assert_eq(weir_table_env_execute_sql(env, insert), 0, "%s", weir_job_error(job));
    size_t n1 = weir_table_env_node_count(env);
    cr_assert_eq(weir_table_env_execute_sql(env, insert), 0, "%s", weir_job_error(job));
    size_t n2 = weir_table_env_node_count(env);
    cr_assert_eq(n2 - n1, n1 - n0 - 1, "the first INSERT made %zu nodes, the second %zu", n1 - n0,
                 n2 - n1);
    tu_run_ok(job);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    unlink(path);
    rmdir(dir);
}
