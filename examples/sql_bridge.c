/* sql_bridge.c — SQL and C in one job (Flink's StreamTableEnvironment):
 * a C stream of structs becomes a view, SQL runs a window over it, and the
 * result comes back as a C stream into a C sink; beside it, in the same
 * job, an INSERT INTO a print table reads the same view.
 *
 * Concept: a table environment (weir/table.h) lives in a job next to C
 * operators. A struct is described once (WEIR_STRUCT_FIELD) and
 * weir_table_env_create_temporary_view_from_stream registers a stream of
 * them under a name; weir_table_env_sql_query plans a
 * SELECT over it into the job and returns its table, which goes on through
 * the table API or back into a stream (weir_table_to_stream);
 * weir_table_env_execute_sql runs CREATE TABLE / INSERT INTO into the same
 * job. Nothing runs until weir_job_run: one job, one run, every operator's
 * watermarks merged by the same rules whichever half wrote it.
 *
 * The job: 12 clicks of 3 users over 15 s of event time (2024-01-01), with
 * a watermark 1 s behind the largest timestamp -> the view "clicks" ->
 *   1. SQL: clicks per user in 5-second tumbling windows -> back into a C
 *      struct (weir_table_to_stream_as: columns by name, types checked when
 *      planned) -> a C sink that prints "user  window  clicks  amount";
 *   2. SQL: INSERT INTO big (the print connector) the clicks over 50.
 *
 * What to look for: each window's row comes once, when the watermark passes
 * its end; the print table's lines start with its identifier ("big> ") as
 * Flink's print connector writes them, timestamps in Java's form.
 *
 * Run: ./build/release/examples/sql_bridge
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <weir.h>

#define T0 INT64_C(1704067200000) /* 2024-01-01 00:00:00 UTC */

typedef struct click {
    char user[16];
    int64_t ts;
    int64_t amount;
} click;

static const click clicks[] = {
    {"ana", T0 + 500, 10},    {"ben", T0 + 1200, 70},  {"ana", T0 + 2600, 5},
    {"cy", T0 + 3100, 20},    {"ben", T0 + 4900, 15},  {"ana", T0 + 5200, 60},
    {"cy", T0 + 7700, 30},    {"ana", T0 + 9000, 1},   {"ben", T0 + 10100, 90},
    {"cy", T0 + 11000, 2},    {"ana", T0 + 13400, 40}, {"ben", T0 + 14999, 3},
};
enum { NCLICKS = sizeof clicks / sizeof clicks[0] };

/* What the SQL window hands back to C: one struct per user and window. */
typedef struct user_window {
    char user[16];
    int64_t window_start;
    int64_t n;
    int64_t amount;
} user_window;

/* Each struct described once (Flink derives both from a POJO's class): the
 * same descriptions read the structs into a table and write rows into them. */
static const weir_struct_field click_fields[] = {
    WEIR_STRUCT_FIELD(click, user, "STRING"), /* VARCHAR(16): the array */
    WEIR_STRUCT_FIELD(click, ts, "TIMESTAMP(3)"),
    WEIR_STRUCT_FIELD(click, amount, "BIGINT"),
};
static const weir_struct_field window_fields[] = {
    WEIR_STRUCT_FIELD(user_window, user, "STRING"),
    WEIR_STRUCT_FIELD(user_window, window_start, "TIMESTAMP(3)"),
    WEIR_STRUCT_FIELD(user_window, n, "BIGINT"),
    WEIR_STRUCT_FIELD(user_window, amount, "BIGINT"),
};

/* The clicks' schema from its description, with a watermark on ts. */
static weir_schema *click_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("clicks");
    weir_schema_bind_fields(b, sizeof(click), click_fields, 3);
    weir_schema_watermark(b, "ts", "ts - INTERVAL '1' SECOND");
    weir_schema *s = NULL;
    char err[256];
    if (weir_schema_build(b, &s, err, sizeof err) != 0)
        fprintf(stderr, "sql_bridge: %s\n", err);
    return s;
}

static int print_window(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)subtask;
    (void)arg;
    const user_window *w = elem;
    printf("window  %-4s  +%2" PRId64 " s  %" PRId64 " clicks  amount %" PRId64 "\n", w->user,
           (w->window_start - T0) / 1000, w->n, w->amount);
    return 0;
}

int main(void)
{
    weir_job *job;
    weir_table_env *env;
    if (weir_job_create(&(weir_job_config){.workers = 2, .parallelism = 1,
                                           .clock = WEIR_CLOCK_VIRTUAL},
                        &job) != 0 ||
        weir_table_env_create(job, NULL, &env) != 0)
        return 1;
    weir_schema *schema = click_schema(), *wschema = NULL;
    char err[256];
    if (!schema || weir_schema_from_struct("windows", sizeof(user_window), window_fields, 4,
                                           &wschema, err, sizeof err) != 0) {
        fprintf(stderr, "sql_bridge: %s\n", schema ? err : "the clicks' schema");
        return 1;
    }
    int64_t ts[NCLICKS];
    for (int i = 0; i < NCLICKS; i++)
        ts[i] = clicks[i].ts;

    /* C -> a view */
    weir_stream *in = weir_source_array(job, clicks, NCLICKS, sizeof(click), ts);
    if (weir_table_env_create_temporary_view_from_stream(env, "clicks", in, schema) != 0)
        goto failed;

    /* a view -> SQL -> C */
    weir_table *windows = weir_table_env_sql_query(
        env, "SELECT `user`, window_start, COUNT(*) AS n, SUM(amount) AS amount\n"
             "FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND))\n"
             "GROUP BY `user`, window_start, window_end");
    if (!windows)
        goto failed;
    /* into the struct, columns by name, types checked now (toDataStream) */
    weir_stream *structs = weir_table_to_stream_as(windows, wschema);
    if (!structs)
        goto failed;
    weir_sink_callback(structs, print_window, NULL);

    /* the same view into a print table, in the same job */
    if (weir_table_env_execute_sql(
            env, "CREATE TABLE big (`user` STRING, ts TIMESTAMP(3), amount BIGINT)\n"
                 "  WITH ('connector' = 'print', 'print-identifier' = 'big');\n"
                 "INSERT INTO big SELECT * FROM clicks WHERE amount > 50;") != 0)
        goto failed;

    int r = weir_job_run(job);
    if (r != 0)
        goto failed;
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    weir_schema_destroy(wschema);
    return 0;
failed:
    fprintf(stderr, "sql_bridge: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    weir_schema_destroy(wschema);
    return 1;
}
