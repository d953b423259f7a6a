/* sql_functions.c — functions written in C, called from SQL by name
 * (Flink's user-defined functions: a ScalarFunction and an
 * AggregateFunction registered with createTemporarySystemFunction).
 *
 * Concept: weir/function.h registers a scalar function (one value per
 * call: to_fahrenheit) and an aggregate function (an accumulator of plain
 * bytes folded row by row: weighted_avg, Flink's WeightedAvg example) in
 * the process's registry; from then on SQL and the table API call them like
 * built-ins. Their argument types are checked when a query is planned (an
 * INT argument is widened to the DOUBLE a parameter takes, a VARCHAR is
 * refused with the function, the argument and both types), and a call
 * costs one C call per row, no allocation.
 *
 * The job: 12 readings of 3 sensors over 10 s of event time (2024-01-01),
 * each a temperature and the number of samples it averages, a watermark
 * 1 s behind -> the view "readings" ->
 *   1. SQL: the readings at or above 80 °F, with to_fahrenheit in the
 *      select list and in the WHERE;
 *   2. SQL: per sensor and 5-second tumbling window, the weighted average
 *      temperature (weighted_avg(celsius, samples)) and the same in °F (a
 *      scalar function of an aggregate).
 * Both queries run in one job; their rows are collected and printed after
 * the run. Then the type check: to_fahrenheit(sensor) is refused.
 *
 * What to look for: the weighted average of a window is sum(celsius x
 * samples) / sum(samples), not the plain average (sensor "b" in its first
 * window: (20 x 1 + 26 x 3) / 4 = 24.5); each window's row comes once,
 * when the watermark passes its end.
 *
 * Run: ./build/release/examples/sql_functions
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <weir.h>

#define T0 INT64_C(1704067200000) /* 2024-01-01 00:00:00 UTC */

typedef struct reading {
    char sensor[8];
    int64_t ts;
    double celsius;
    int64_t samples;
} reading;

static const reading readings[] = {
    {"a", T0 + 400, 21.0, 2},   {"b", T0 + 900, 20.0, 1},   {"c", T0 + 1500, 30.5, 4},
    {"a", T0 + 2100, 23.0, 2},  {"b", T0 + 3300, 26.0, 3},  {"c", T0 + 4200, 27.0, 1},
    {"a", T0 + 5100, 28.0, 1},  {"b", T0 + 6000, 25.0, 2},  {"c", T0 + 6600, 31.0, 2},
    {"a", T0 + 7900, 26.5, 3},  {"b", T0 + 8800, 24.0, 2},  {"c", T0 + 9700, 29.0, 2},
};
enum { NREADINGS = sizeof readings / sizeof readings[0] };

/* ---- the functions ------------------------------------------------------ */

/* to_fahrenheit(DOUBLE) -> DOUBLE: a scalar function (Flink's
 * ScalarFunction.eval). Called with NULL too (its parameter is nullable),
 * which it passes on. */
static int to_fahrenheit(const weir_value *args, int nargs, weir_value *result,
                         weir_function_call *call)
{
    (void)nargs;
    (void)call;
    result->null = args[0].null;
    result->d = args[0].d * 9.0 / 5.0 + 32.0;
    return 0;
}

/* weighted_avg(DOUBLE NOT NULL, BIGINT NOT NULL) -> DOUBLE: an aggregate
 * function (Flink's AggregateFunction), its accumulator two numbers that
 * weir keeps in the window's state. retract and merge make it usable over
 * updating inputs and in HOP, CUMULATE and SESSION windows too. */
typedef struct wavg {
    double sum;
    int64_t weight;
} wavg;

static int wavg_accumulate(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)nargs;
    wavg *a = acc;
    if (args[1].i < 0)
        return weir_function_fail(call, WEIR_ERANGE, "a negative weight %lld",
                                  (long long)args[1].i);
    a->sum += args[0].d * (double)args[1].i;
    a->weight += args[1].i;
    return 0;
}

static int wavg_retract(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    wavg *a = acc;
    a->sum -= args[0].d * (double)args[1].i;
    a->weight -= args[1].i;
    return 0;
}

static int wavg_merge(void *acc, const void *other, weir_function_call *call)
{
    (void)call;
    wavg *a = acc;
    const wavg *o = other;
    a->sum += o->sum;
    a->weight += o->weight;
    return 0;
}

static int wavg_get_value(const void *acc, weir_value *result, weir_function_call *call)
{
    (void)call;
    const wavg *a = acc;
    result->null = a->weight == 0;
    result->d = a->weight ? a->sum / (double)a->weight : 0.0;
    return 0;
}

static int register_functions(void)
{
    char err[256];
    static const weir_type dbl = {.id = WEIR_TYPE_DOUBLE};
    static const weir_type wavg_args[] = {{.id = WEIR_TYPE_DOUBLE, .not_null = true},
                                          {.id = WEIR_TYPE_BIGINT, .not_null = true}};
    if (weir_function_register_scalar(
            &(weir_scalar_function){.name = "to_fahrenheit", .nargs = 1, .arg_types = &dbl,
                                    .result_type = dbl, .eval = to_fahrenheit},
            err, sizeof err) != 0 ||
        weir_function_register_aggregate(
            &(weir_aggregate_function){.name = "weighted_avg", .nargs = 2,
                                       .arg_types = wavg_args, .result_type = dbl,
                                       .acc_size = sizeof(wavg), .accumulate = wavg_accumulate,
                                       .retract = wavg_retract, .merge = wavg_merge,
                                       .get_value = wavg_get_value},
            err, sizeof err) != 0) {
        fprintf(stderr, "sql_functions: %s\n", err);
        return -1;
    }
    return 0;
}

/* ---- the job -------------------------------------------------------------- */

static weir_schema *reading_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("readings");
    weir_schema_bind_struct(b, sizeof(reading));
    weir_schema_column_at(b, "sensor", (weir_type){.id = WEIR_TYPE_VARCHAR, .capacity = 8},
                          offsetof(reading, sensor), sizeof((reading){0}).sensor);
    weir_schema_column_at(b, "ts", (weir_type){.id = WEIR_TYPE_TIMESTAMP},
                          offsetof(reading, ts), sizeof(int64_t));
    weir_schema_column_at(b, "celsius", (weir_type){.id = WEIR_TYPE_DOUBLE},
                          offsetof(reading, celsius), sizeof(double));
    weir_schema_column_at(b, "samples", (weir_type){.id = WEIR_TYPE_BIGINT},
                          offsetof(reading, samples), sizeof(int64_t));
    weir_schema_watermark(b, "ts", "ts - INTERVAL '1' SECOND");
    weir_schema *s = NULL;
    char err[256];
    if (weir_schema_build(b, &s, err, sizeof err) != 0)
        fprintf(stderr, "sql_functions: %s\n", err);
    return s;
}

static void print_rows(const char *title, const weir_table *t, const weir_collect *c)
{
    printf("%s\n", title);
    for (size_t i = 0; i < weir_collect_count(c); i++) {
        char line[256];
        weir_row_format(weir_table_schema(t), weir_collect_elem(c, i), line, sizeof line);
        printf("  %s\n", line);
    }
}

int main(void)
{
    if (register_functions() != 0)
        return 1;
    weir_job *job;
    weir_table_env *env;
    if (weir_job_create(&(weir_job_config){.workers = 2, .parallelism = 1,
                                           .clock = WEIR_CLOCK_VIRTUAL},
                        &job) != 0 ||
        weir_table_env_create(job, NULL, &env) != 0)
        return 1;
    weir_schema *schema = reading_schema();
    int64_t ts[NREADINGS];
    for (int i = 0; i < NREADINGS; i++)
        ts[i] = readings[i].ts;
    weir_stream *in = weir_source_array(job, readings, NREADINGS, sizeof(reading), ts);
    if (!schema || weir_table_env_create_temporary_view_from_stream(env, "readings", in, schema))
        goto failed;

    weir_table *warm = weir_table_env_sql_query(
        env, "SELECT sensor, celsius, to_fahrenheit(celsius) AS fahrenheit FROM readings\n"
             "WHERE to_fahrenheit(celsius) >= 80");
    weir_table *windows = weir_table_env_sql_query(
        env, "SELECT sensor, window_start, weighted_avg(celsius, samples) AS avg_c,\n"
             "       to_fahrenheit(weighted_avg(celsius, samples)) AS avg_f\n"
             "FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '5' SECOND))\n"
             "GROUP BY sensor, window_start, window_end");
    weir_collect *warm_rows, *window_rows;
    if (!warm || !windows || !weir_sink_collect(weir_table_to_stream(warm), &warm_rows) ||
        !weir_sink_collect(weir_table_to_stream(windows), &window_rows) || weir_job_run(job))
        goto failed;
    print_rows("readings at or above 80 F:", warm, warm_rows);
    print_rows("weighted averages per sensor and 5 s window:", windows, window_rows);

    /* Types are checked at plan time: a VARCHAR where a DOUBLE is taken. */
    weir_expr *e = NULL;
    char err[256];
    if (weir_expr_compile("to_fahrenheit(sensor)", schema, &e, err, sizeof err) == 0) {
        fprintf(stderr, "sql_functions: to_fahrenheit(sensor) was not refused\n");
        weir_expr_destroy(e);
        goto failed;
    }
    printf("refused at plan time: %s\n", err);

    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    return 0;
failed:
    fprintf(stderr, "sql_functions: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    return 1;
}
