/* table_windows.c — the four window table-valued functions of Flink SQL
 * (TUMBLE, HOP, CUMULATE, SESSION) as table window aggregates over a
 * generator with an idle partition: watermarks flow through tables too.
 *
 * Concept: a table made from a stream keeps the stream's watermarks
 * (WATERMARK FOR ts AS SOURCE_WATERMARK()), and a window aggregate
 * (weir_table_window_aggregate) runs on weir's window operator, so every
 * event-time rule of DataStream windows holds for tables: a window fires
 * when the merged watermark reaches its end - 1, and an idle partition holds
 * that watermark back unless its source marks itself idle. Each window
 * aggregate emits one +I row per user and window, with window_start and
 * window_end; CUMULATE(250 ms, 1 s) reports a running total every 250 ms
 * within each second.
 *
 * The job, run twice (without, then with idleness 300 ms): a generator with
 * 3 partitions, 5 keys, 20 events/s each from 00:00:00.5 to 00:00:06 on
 * 2024-01-01, partition 2 silent for event time [00:00:02, 00:00:04.5) ->
 * bounded(200) watermarks -> a table -> the four
 * window aggregates, each counting and summing per key -> a tap that notes
 * when each row arrives. Paced on the virtual clock at speed 1 (processing
 * ms = event ms), one worker: the same output every run.
 *
 * What to look for: the same rows both times (the data decide them, not the
 * timing), but without idleness the longest wait from a window's end to its
 * row is about the idle span (2.5 s: the watermark stalls), and with
 * idleness about the timeout. The rows of key 0 show the four windowings
 * side by side. The captures are table-windows-without-idleness.jsonl and
 * table-windows-with-idleness.jsonl (the viewer shows the table nodes with
 * their names and changelog mode).
 *
 * Run: ./build/release/examples/table_windows
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <weir.h>

enum { KINDS = 4, SHOW = 6 };

/* 2024-01-01 00:00:00 UTC; the events start half a second later, so that
 * their disorder (up to 200 ms) keeps them in the first second. */
#define T0 INT64_C(1704067200000)
#define START (T0 + 500)

static const char *const kind_names[KINDS] = {"TUMBLE(1 s)", "HOP(500 ms, 1 s)",
                                              "CUMULATE(250 ms, 1 s)", "SESSION(300 ms)"};

static const weir_table_window windows[KINDS] = {
    {.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000},
    {.kind = WEIR_TABLE_HOP, .slide_ms = 500, .size_ms = 1000},
    {.kind = WEIR_TABLE_CUMULATE, .step_ms = 250, .size_ms = 1000},
    {.kind = WEIR_TABLE_SESSION, .gap_ms = 300},
};

/* What one tap saw (parallelism 1: one thread writes it; main reads it
 * after weir_job_run joined the workers). */
typedef struct tap {
    const weir_schema *schema; /* the window aggregate's rows */
    int64_t rows;
    int64_t max_wait;          /* the longest time from a window's end to its row */
    char shown[SHOW][160];     /* the first rows of key 0 */
    int nshown;
} tap;

static int tap_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)ts;
    tap *t = weir_ctx_arg(ctx);
    t->rows++;
    /* columns: key, window_start, window_end, n, total. Paced at speed 1
     * from START, the job clock is event time - START. */
    int64_t wait = weir_ctx_now(ctx) + START - weir_row_get_int(t->schema, elem, 2);
    if (wait > t->max_wait)
        t->max_wait = wait;
    if (weir_row_get_int(t->schema, elem, 0) == 0 && t->nshown < SHOW)
        weir_row_format(t->schema, elem, t->shown[t->nshown++], sizeof t->shown[0]);
    return 0;
}

static const weir_operator_vtable tap_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = tap_record,
};

/* The generator's events as a table: the struct's fields bound by offsetof. */
static weir_schema *event_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("events");
    weir_schema_bind_struct(b, sizeof(weir_gen_event));
    weir_schema_column_at(b, "key", (weir_type){.id = WEIR_TYPE_BIGINT, .not_null = true},
                          offsetof(weir_gen_event, key), 8);
    weir_schema_column_at(b, "amount", (weir_type){.id = WEIR_TYPE_BIGINT},
                          offsetof(weir_gen_event, value), 8);
    weir_schema_column_at(b, "ts", (weir_type){.id = WEIR_TYPE_TIMESTAMP},
                          offsetof(weir_gen_event, timestamp), 8);
    weir_schema_watermark(b, "ts", "SOURCE_WATERMARK()");
    weir_schema *s = NULL;
    char err[256];
    if (weir_schema_build(b, &s, err, sizeof err) != 0)
        fprintf(stderr, "table_windows: %s\n", err);
    return s;
}

static int run(const weir_schema *schema, int64_t idleness_ms, const char *capture,
               tap taps[KINDS], char *plan, size_t plan_size)
{
    weir_generator_config gen = {
        .partitions = 3,
        .keys = 5,
        .rate = 20,
        .pace = WEIR_GEN_PACED,
        .disorder_ms = 200,
        .start_ms = START,
        .duration_ms = 5500,
        .idle = {{.partition = 2, .from_ms = T0 + 2000, .to_ms = T0 + 4500}},
        .nidle = 1,
        .seed = 7,
    };
    weir_job *job;
    weir_table_env *env;
    if (weir_job_create(&(weir_job_config){.workers = 1, .parallelism = 3,
                                           .clock = WEIR_CLOCK_VIRTUAL,
                                           .watermark_interval_ms = 100,
                                           .diag.jsonl_path = capture},
                        &job) != 0)
        return 1;
    if (weir_table_env_create(job, &(weir_table_config){.parallelism = 1}, &env) != 0)
        return 1;
    weir_watermark_strategy strategy = weir_watermarks_bounded(200);
    if (idleness_ms > 0)
        strategy = weir_watermarks_with_idleness(strategy, idleness_ms);
    weir_stream *s = weir_stream_assign_timestamps(weir_source_generator(job, &gen),
                                                   &(weir_timestamps_spec){.strategy = strategy});
    weir_table *events = weir_table_from_stream(env, s, schema);
    for (int k = 0; k < KINDS; k++) {
        weir_table *w = weir_table_window_aggregate(
            events, &windows[k], "key",
            "key, window_start, window_end, COUNT(*) AS n, SUM(amount) AS total");
        if (w && k == 2 && plan)
            weir_table_explain(w, plan, plan_size);
        taps[k].schema = weir_table_schema(w);
        char name[16];
        snprintf(name, sizeof name, "tap-%d", k);
        weir_stream_process(weir_table_to_stream(w),
                            &(weir_process_spec){.name = name, .vtable = &tap_vtable,
                                                 .arg = &taps[k], .parallelism = 1,
                                                 .accounting = WEIR_ACCOUNTING_SINK});
    }
    int r = *weir_job_error(job) ? 1 : weir_job_run(job);
    if (r != 0)
        fprintf(stderr, "table_windows failed: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env); /* the taps' schemas go with it: not read after */
    for (int k = 0; k < KINDS; k++)
        taps[k].schema = NULL;
    return r != 0;
}

int main(void)
{
    weir_schema *schema = event_schema();
    static tap without[KINDS], with[KINDS];
    static char plan[1024];
    if (!schema || run(schema, 0, "table-windows-without-idleness.jsonl", without, NULL, 0) ||
        run(schema, 300, "table-windows-with-idleness.jsonl", with, plan, sizeof plan))
        return 1;
    printf("generator(p=3, partition 2 silent for event time [00:00:02, 00:00:04.5)) -> "
           "bounded(200)\n"
           "-> table events(key, amount, ts) -> window aggregates COUNT(*), SUM(amount) per key\n\n"
           "the CUMULATE plan (EXPLAIN CHANGELOG_MODE):\n%s\n", plan);
    printf("%-24s %6s %26s %26s\n", "window", "rows", "longest wait, no idleness",
           "with_idleness(300)");
    for (int k = 0; k < KINDS; k++) {
        if (without[k].rows != with[k].rows) {
            fprintf(stderr, "table_windows: %s made %lld rows, then %lld\n", kind_names[k],
                    (long long)without[k].rows, (long long)with[k].rows);
            return 1;
        }
        char a[32], b[32];
        snprintf(a, sizeof a, "%" PRId64 " ms", without[k].max_wait);
        snprintf(b, sizeof b, "%" PRId64 " ms", with[k].max_wait);
        printf("%-24s %6lld %26s %26s\n", kind_names[k], (long long)with[k].rows, a, b);
    }
    for (int k = 0; k < KINDS; k++) {
        printf("\n%s, the first rows of key 0 [key, window_start, window_end, n, total]:\n",
               kind_names[k]);
        for (int i = 0; i < with[k].nshown; i++)
            printf("  %s\n", with[k].shown[i]);
    }
    weir_schema_destroy(schema);
    return 0;
}
