/* test_window.c — window aggregates of tables (weir_table_window_aggregate:
 * Flink's window TVFs TUMBLE, HOP, CUMULATE and SESSION with GROUP BY window_start,
 * window_end, keys): firing at end - 1, the window columns, late rows
 * dropped and counted, a HOP row that still counts in its later windows,
 * session merging, a Calc for argument expressions, the output rowtime,
 * every plan-time refusal with its message, and a differential test
 * against the DataStream window operator on the same random data.
 *
 * The watermarks are scripted: each row carries in its column `wm` the
 * watermark its source proposes after it (a punctuated strategy; NULL:
 * none), and the table keeps them (SOURCE_WATERMARK()). Bounds: every case
 * has at most a dozen rows, except the differential one (2 000 rows per
 * run, 6 windows x 2 parallelisms).
 */
#include <jansson.h>
#include <stddef.h>

#include "table/table_testutil.h"

#define COLS "k STRING, v BIGINT, ts TIMESTAMP(3), wm BIGINT"

typedef struct run {
    weir_job *job;
    weir_table_env *env;
    weir_schema *schema;
    weir_diag_memory *mem;
    unsigned char *rows;
    int64_t *ts;
    size_t n, cap;
} run;

static run *run_new(int parallelism, const char *rowtime)
{
    run *r = calloc(1, sizeof *r);
    cr_assert_eq(weir_diag_memory_create(&r->mem), 0);
    r->job = tu_job(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1, .diag = {.memory = r->mem}});
    cr_assert_eq(weir_table_env_create(r->job, &(weir_table_config){.parallelism = parallelism},
                                       &r->env), 0);
    r->schema = tt_schema_wm("t", COLS, NULL, rowtime, "SOURCE_WATERMARK()");
    return r;
}

static void run_add(run *r, const char *text)
{
    size_t rs = weir_schema_row_size(r->schema);
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->rows = realloc(r->rows, r->cap * rs);
        r->ts = realloc(r->ts, r->cap * sizeof *r->ts);
    }
    unsigned char *row = r->rows + r->n * rs;
    tt_row(r->schema, row, text);
    r->ts[r->n] = weir_row_get_int(r->schema, row, 2);
    r->n++;
}

/* The watermark a row asks for (column wm), or none. */
static int64_t scripted_wm(const void *elem, int64_t ts, void *arg)
{
    (void)ts;
    const weir_schema *s = arg;
    return weir_row_is_null(s, elem, 3) ? WEIR_TS_MIN : weir_row_get_int(s, elem, 3);
}

static weir_table *run_source(run *r)
{
    weir_stream *s = weir_source_array(r->job, r->rows, r->n, weir_schema_row_size(r->schema),
                                       r->ts);
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_punctuated(scripted_wm,
                                                                          r->schema)});
    return weir_table_from_stream(r->env, s, r->schema);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The collected rows, one Row.toString line each, sorted (rows of one
 * firing time come in an order the test does not fix). */
static char *sorted_lines(const weir_schema *s, const weir_collect *c)
{
    char *all = tt_collected(s, c);
    size_t n = 0;
    char *lines[4096];
    char *save = NULL;
    for (char *l = strtok_r(all, "\n", &save); l && n < 4096; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    qsort(lines, n, sizeof *lines, cmp_str);
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *out = calloc(1, len + 1);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
    }
    free(all);
    return out;
}

static char *run_collect(run *r, weir_table *t, bool sort)
{
    cr_assert(t, "%s", weir_job_error(r->job));
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_stream(t), &c), "%s", weir_job_error(r->job));
    tu_run_ok(r->job);
    return sort ? sorted_lines(weir_table_schema(t), c) : tt_collected(weir_table_schema(t), c);
}

/* The summary's counter `name` summed over the operator `op`'s subtasks. */
static int64_t counter(run *r, const char *op, const char *name)
{
    int64_t total = 0;
    for (size_t i = 0; i < weir_diag_memory_count(r->mem); i++) {
        const weir_diag_event *de = weir_diag_memory_event(r->mem, i);
        if (de->kind != WEIR_DIAG_KIND_SUMMARY)
            continue;
        json_error_t jerr;
        json_t *root = json_loads(de->json, 0, &jerr);
        cr_assert_not_null(root, "summary json: %s", jerr.text);
        size_t k;
        json_t *o;
        json_array_foreach(json_object_get(root, "operators"), k, o)
        {
            if (strcmp(json_string_value(json_object_get(o, "op")), op) == 0)
                total += json_integer_value(json_object_get(o, name));
        }
        json_decref(root);
    }
    return total;
}

static void run_free(run *r)
{
    weir_job_destroy(r->job);
    weir_table_env_destroy(r->env);
    weir_schema_destroy(r->schema);
    weir_diag_memory_destroy(r->mem);
    free(r->rows);
    free(r->ts);
    free(r);
}

Test(window, tumble_fires_at_end_minus_one_with_window_columns, .timeout = 60)
{
    run *r = run_new(1, "ts");
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I b|5|200|null");
    run_add(r, "+I a|2|999|998");   /* the window [0, 1000) does not fire at 998 */
    run_add(r, "+I a|4|1000|999");  /* ... it fires at 999, before this row's window */
    run_add(r, "+I a|8|1500|null");
    weir_table *t = weir_table_window_aggregate(
        run_source(r), &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, "k",
        "k, window_start, window_end, window_time, COUNT(*) AS n, SUM(v) AS s");
    cr_assert(t, "%s", weir_job_error(r->job));
    cr_assert_str_eq(weir_table_node_name(t), "WindowAggregate(TUMBLE(size=1000), k)");
    char types[256];
    weir_schema_format(weir_table_schema(t), types, sizeof types);
    cr_assert_str_eq(types, "(k VARCHAR(64), window_start TIMESTAMP(3) NOT NULL, window_end "
                            "TIMESTAMP(3) NOT NULL, window_time TIMESTAMP(3) NOT NULL, n BIGINT "
                            "NOT NULL, s BIGINT)");
    char mode[16];
    weir_changelog_mode_format(weir_table_changelog_mode(t), mode, sizeof mode);
    cr_assert_str_eq(mode, "[I]");
    cr_assert_eq(weir_table_rowtime(t), 3); /* window_time */
    char *got = run_collect(r, t, true);
    cr_assert_str_eq(got,
                     "+I[a, 1970-01-01 00:00:00.000, 1970-01-01 00:00:01.000, "
                     "1970-01-01 00:00:00.999, 2, 3]\n"
                     "+I[a, 1970-01-01 00:00:01.000, 1970-01-01 00:00:02.000, "
                     "1970-01-01 00:00:01.999, 2, 12]\n"
                     "+I[b, 1970-01-01 00:00:00.000, 1970-01-01 00:00:01.000, "
                     "1970-01-01 00:00:00.999, 1, 5]\n");
    free(got);
    run_free(r);
}

Test(window, results_carry_the_window_max_as_timestamp_in_firing_order, .timeout = 60)
{
    run *r = run_new(1, "ts");
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|1|1100|999");
    run_add(r, "+I a|1|2100|null");
    weir_table *t = weir_table_window_aggregate(
        run_source(r), &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, "k",
        "k, COUNT(*) AS n");
    cr_assert(t, "%s", weir_job_error(r->job));
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_stream(t), &c));
    tu_run_ok(r->job);
    cr_assert_eq(weir_collect_count(c), 3u);
    cr_assert_eq(weir_collect_timestamp(c, 0), 999);
    cr_assert_eq(weir_collect_timestamp(c, 1), 1999);
    cr_assert_eq(weir_collect_timestamp(c, 2), 2999); /* at the end of input (MAX) */
    run_free(r);
}

Test(window, late_rows_are_dropped_and_counted, .timeout = 60)
{
    run *r = run_new(1, "ts");
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|2|1200|1500"); /* [0, 1000) fires */
    run_add(r, "+I a|4|900|null");  /* late: its only window fired */
    run_add(r, "+I a|8|999|null");  /* late too */
    run_add(r, "+I a|16|1000|null"); /* on time in [1000, 2000) */
    weir_table *t = weir_table_window_aggregate(
        run_source(r), &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, "k",
        "k, window_end, SUM(v) AS s");
    char *got = run_collect(r, t, false);
    cr_assert_str_eq(got, "+I[a, 1970-01-01 00:00:01.000, 1]\n"
                          "+I[a, 1970-01-01 00:00:02.000, 18]\n");
    free(got);
    const char *op = "WindowAggregate(TUMBLE(size=1000), k)";
    cr_assert_eq(counter(r, op, "late_dropped"), 2);
    cr_assert_eq(counter(r, op, "absorbed"), 3);
    cr_assert_eq(counter(r, op, "in"), 5);
    run_free(r);
}

Test(window, hop_row_counts_in_its_later_windows_after_the_first_fired, .timeout = 60)
{
    run *r = run_new(1, "ts");
    /* HOP(slide 500, size 1000): 100 is in [-500, 500) and [0, 1000), 700
     * in [0, 1000) and [500, 1500). */
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|2|1100|1000"); /* [-500, 500) and [0, 1000) fire, [500, 1500) not */
    run_add(r, "+I a|4|700|null");  /* misses [0, 1000), counts in [500, 1500) */
    run_add(r, "+I a|8|300|null");  /* all its windows fired: late */
    weir_table *t = weir_table_window_aggregate(
        run_source(r),
        &(weir_table_window){.kind = WEIR_TABLE_HOP, .slide_ms = 500, .size_ms = 1000}, "k",
        "window_start, window_end, k, SUM(v) AS s, COUNT(*) AS n");
    cr_assert(t, "%s", weir_job_error(r->job));
    cr_assert_str_eq(weir_table_node_name(t), "WindowAggregate(HOP(slide=500, size=1000), k)");
    char *got = run_collect(r, t, false);
    cr_assert_str_eq(got,
                     "+I[1969-12-31 23:59:59.500, 1970-01-01 00:00:00.500, a, 1, 1]\n"
                     "+I[1970-01-01 00:00:00.000, 1970-01-01 00:00:01.000, a, 1, 1]\n"
                     "+I[1970-01-01 00:00:00.500, 1970-01-01 00:00:01.500, a, 6, 2]\n"
                     "+I[1970-01-01 00:00:01.000, 1970-01-01 00:00:02.000, a, 2, 1]\n");
    free(got);
    cr_assert_eq(counter(r, "WindowAggregate(HOP(slide=500, size=1000), k)", "late_dropped"),
                 1);
    run_free(r);
}

Test(window, cumulate_fires_each_growing_window_and_late_rows_count_in_later_ones,
     .timeout = 60)
{
    run *r = run_new(1, "ts");
    /* CUMULATE(step 250, size 1000): [0, 250), [0, 500), [0, 750), [0, 1000). */
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|2|300|null");
    run_add(r, "+I a|4|600|700");   /* [0, 250) and [0, 500) fire */
    run_add(r, "+I a|8|200|null");  /* misses those two, counts in [0, 750) and [0, 1000) */
    run_add(r, "+I a|16|1100|1000"); /* [0, 750) and [0, 1000) fire */
    run_add(r, "+I a|32|950|null"); /* every window of its period fired: late */
    weir_table *t = weir_table_window_aggregate(
        run_source(r),
        &(weir_table_window){.kind = WEIR_TABLE_CUMULATE, .step_ms = 250, .size_ms = 1000}, "k",
        "window_start, window_end, SUM(v) AS s, COUNT(*) AS n");
    cr_assert(t, "%s", weir_job_error(r->job));
    const char *op = "WindowAggregate(CUMULATE(step=250, size=1000), k)";
    cr_assert_str_eq(weir_table_node_name(t), op);
    char *got = run_collect(r, t, false);
    cr_assert_str_eq(got,
                     "+I[1970-01-01 00:00:00.000, 1970-01-01 00:00:00.250, 1, 1]\n"
                     "+I[1970-01-01 00:00:00.000, 1970-01-01 00:00:00.500, 3, 2]\n"
                     "+I[1970-01-01 00:00:00.000, 1970-01-01 00:00:00.750, 15, 4]\n"
                     "+I[1970-01-01 00:00:00.000, 1970-01-01 00:00:01.000, 15, 4]\n"
                     "+I[1970-01-01 00:00:01.000, 1970-01-01 00:00:01.250, 16, 1]\n"
                     "+I[1970-01-01 00:00:01.000, 1970-01-01 00:00:01.500, 16, 1]\n"
                     "+I[1970-01-01 00:00:01.000, 1970-01-01 00:00:01.750, 16, 1]\n"
                     "+I[1970-01-01 00:00:01.000, 1970-01-01 00:00:02.000, 16, 1]\n");
    free(got);
    cr_assert_eq(counter(r, op, "late_dropped"), 1);
    run_free(r);
}

Test(window, session_merges_and_ends_at_last_row_plus_gap, .timeout = 60)
{
    run *r = run_new(1, "ts");
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|2|400|null");  /* [100, 400) and [400, 700) touch: one session */
    run_add(r, "+I b|5|100|null");
    run_add(r, "+I a|4|1000|null"); /* a new session */
    run_add(r, "+I a|8|250|null");  /* inside the first */
    weir_table *t = weir_table_window_aggregate(
        run_source(r), &(weir_table_window){.kind = WEIR_TABLE_SESSION, .gap_ms = 300}, "k",
        "k, window_start, window_end, COUNT(*) AS n, MIN(v) AS lo, MAX(v) AS hi, AVG(v) AS av");
    cr_assert(t, "%s", weir_job_error(r->job));
    cr_assert_str_eq(weir_table_node_name(t), "WindowAggregate(SESSION(gap=300), k)");
    char *got = run_collect(r, t, true);
    cr_assert_str_eq(got,
                     "+I[a, 1970-01-01 00:00:00.100, 1970-01-01 00:00:00.700, 3, 1, 8, 3]\n"
                     "+I[a, 1970-01-01 00:00:01.000, 1970-01-01 00:00:01.300, 1, 4, 4, 4]\n"
                     "+I[b, 1970-01-01 00:00:00.100, 1970-01-01 00:00:00.400, 1, 5, 5, 5]\n");
    free(got);
    run_free(r);
}

/* COUNT(DISTINCT) in a window keeps its values in the accumulator: sessions
 * that merge take the union of their values; FILTER, the variances,
 * FIRST_VALUE/LAST_VALUE and LISTAGG merge too (the earlier session's
 * first value, the later one's last). */
Test(window, session_merges_distinct_values_and_the_new_aggregates, .timeout = 60)
{
    run *r = run_new(1, "ts");
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|2|700|null");  /* a session of its own until the next row */
    run_add(r, "+I a|1|400|null");  /* joins both: one session [100, 1000) */
    run_add(r, "+I a|2|500|null");
    run_add(r, "+I b|5|100|null");
    weir_table *t = weir_table_window_aggregate(
        run_source(r), &(weir_table_window){.kind = WEIR_TABLE_SESSION, .gap_ms = 300}, "k",
        "k, window_end, COUNT(DISTINCT v) AS dv, COUNT(DISTINCT v) FILTER (WHERE v > 1) AS dv1, "
        "VAR_POP(v) AS vp, FIRST_VALUE(v) AS fv, LAST_VALUE(v) AS lv, "
        "LISTAGG(CAST(v AS STRING)) AS la");
    cr_assert(t, "%s", weir_job_error(r->job));
    char *got = run_collect(r, t, true);
    cr_assert_str_eq(got, "+I[a, 1970-01-01 00:00:01.000, 2, 1, 0, 1, 2, 1,2,1,2]\n"
                          "+I[b, 1970-01-01 00:00:00.400, 1, 1, 0, 5, 5, 5]\n");
    free(got);
    run_free(r);
}

Test(window, global_group_nulls_and_tumble_offset, .timeout = 60)
{
    run *r = run_new(4, "ts");
    run_add(r, "+I a|null|100|null");
    run_add(r, "+I b|3|250|null");
    run_add(r, "+I null|4|260|null");
    /* Offset 200: windows [-800, 200), [200, 1200). No keys: one group at
     * parallelism 1 whatever the env's. SUM of only NULLs is NULL. */
    weir_table *t = weir_table_window_aggregate(
        run_source(r),
        &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000, .offset_ms = 200},
        "window_start, window_end", "window_start, COUNT(*), COUNT(v) AS nv, SUM(v) AS s, MIN(k)");
    cr_assert(t, "%s", weir_job_error(r->job));
    cr_assert_str_eq(weir_table_node_name(t), "WindowAggregate(TUMBLE(size=1000, offset=200))");
    char *got = run_collect(r, t, true);
    cr_assert_str_eq(got, "+I[1969-12-31 23:59:59.200, 1, 0, null, a]\n"
                          "+I[1970-01-01 00:00:00.200, 2, 2, 7, b]\n");
    free(got);
    run_free(r);
}

Test(window, expression_arguments_get_a_calc_and_fail_the_job_on_error, .timeout = 60)
{
    run *r = run_new(1, "ts");
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|2|200|null");
    weir_table *t = weir_table_window_aggregate(
        run_source(r), &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, "k",
        "k, SUM(v * 10) AS s, MAX(UPPER(k) || '!') AS m, COUNT(v) AS n");
    cr_assert(t, "%s", weir_job_error(r->job));
    char plan[1024];
    weir_table_explain(t, plan, sizeof plan);
    cr_assert(strstr(plan, "WindowAggregate(TUMBLE(size=1000), k) [I]\n"
                           "  Calc(select=[`k`, `v`, `ts`, `wm`, v * 10 AS `$arg1`, "
                           "UPPER(k) || '!' AS `$arg2`]) [I]\n"),
              "%s", plan);
    char *got = run_collect(r, t, false);
    cr_assert_str_eq(got, "+I[a, 30, A!, 2]\n");
    free(got);
    run_free(r);

    r = run_new(1, "ts");
    run_add(r, "+I a|0|100|null");
    t = weir_table_window_aggregate(
        run_source(r), &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, "k",
        "k, SUM(10 / v) AS s");
    cr_assert(t, "%s", weir_job_error(r->job));
    weir_collect *c;
    weir_sink_collect(weir_table_to_stream(t), &c);
    cr_assert_neq(weir_job_run(r->job), 0);
    cr_assert(strstr(weir_job_error(r->job), "division by zero"), "%s", weir_job_error(r->job));
    run_free(r);
}

Test(window, window_time_is_the_output_rowtime_and_windows_cascade, .timeout = 60)
{
    run *r = run_new(1, "ts");
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|2|1100|null");
    run_add(r, "+I b|4|2100|null");
    run_add(r, "+I a|8|3100|null");
    weir_table *w1 = weir_table_window_aggregate(
        run_source(r), &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, "k",
        "k, window_time AS wt, SUM(v) AS s");
    cr_assert(w1, "%s", weir_job_error(r->job));
    cr_assert_eq(weir_table_rowtime(w1), 1);
    /* A second window over the first's window_time (Flink's cascading
     * windows), and no keys: per 2 s, the sum of the per-second sums. */
    weir_table *w2 = weir_table_window_aggregate(
        w1, &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 2000}, NULL,
        "window_end, SUM(s) AS total, COUNT(*) AS seconds");
    char *got = run_collect(r, w2, false);
    cr_assert_str_eq(got, "+I[1970-01-01 00:00:02.000, 3, 2]\n"
                          "+I[1970-01-01 00:00:04.000, 12, 2]\n");
    free(got);
    run_free(r);
}

/* Builds the window over a fresh run and checks the recorded error. */
static void refused(weir_table *(*make)(run *r), const char *msg)
{
    run *r = run_new(1, "ts");
    run_add(r, "+I a|1|100|null");
    cr_assert_null(make(r));
    cr_assert(strstr(weir_job_error(r->job), msg), "got: %s\nwant: %s", weir_job_error(r->job),
              msg);
    run_free(r);
}

static weir_table *tumble(weir_table *t, const char *keys, const char *items)
{
    return weir_table_window_aggregate(
        t, &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, keys, items);
}

static weir_table *over_updates(run *r)
{
    weir_table *g = weir_table_group_by(run_source(r), "k", "k, MAX(ts) AS ts");
    return tumble(g, "k", "k, COUNT(*)");
}
static weir_table *no_rowtime(run *r)
{
    return tumble(weir_table_select(run_source(r), "k, ts + INTERVAL '1' SECOND AS t2"), "k",
                  "k, COUNT(*)");
}
static weir_table *not_grouped(run *r) { return tumble(run_source(r), "k", "k, v"); }
static weir_table *agg_of_window(run *r)
{
    return tumble(run_source(r), "k", "k, MAX(window_start)");
}
static weir_table *window_in_expr(run *r)
{
    return tumble(run_source(r), "k", "k, MAX(window_start + INTERVAL '1' SECOND)");
}
static weir_table *unknown_key(run *r) { return tumble(run_source(r), "kk", "COUNT(*)"); }
static weir_table *duplicate(run *r)
{
    return tumble(run_source(r), "k", "k, COUNT(*) AS k");
}
static weir_table *clash(run *r)
{
    return tumble(weir_table_select(run_source(r), "k, ts, v AS window_end"), "k", "COUNT(*)");
}
static weir_table *bad_tumble(run *r)
{
    return weir_table_window_aggregate(run_source(r), &(weir_table_window){.kind = WEIR_TABLE_TUMBLE},
                                       "k", "COUNT(*)");
}
static weir_table *bad_hop(run *r)
{
    return weir_table_window_aggregate(
        run_source(r),
        &(weir_table_window){.kind = WEIR_TABLE_HOP, .size_ms = 1000, .slide_ms = 100,
                             .offset_ms = 100},
        "k", "COUNT(*)");
}
static weir_table *bad_session(run *r)
{
    return weir_table_window_aggregate(
        run_source(r), &(weir_table_window){.kind = WEIR_TABLE_SESSION, .gap_ms = 10,
                                            .size_ms = 5},
        "k", "COUNT(*)");
}
static weir_table *bad_cumulate(run *r)
{
    return weir_table_window_aggregate(
        run_source(r),
        &(weir_table_window){.kind = WEIR_TABLE_CUMULATE, .size_ms = 1000, .step_ms = 300},
        "k", "COUNT(*)");
}
static weir_table *cumulate_without_step(run *r)
{
    return weir_table_window_aggregate(
        run_source(r), &(weir_table_window){.kind = WEIR_TABLE_CUMULATE, .size_ms = 1000},
        "k", "COUNT(*)");
}
static weir_table *bad_kind(run *r)
{
    return weir_table_window_aggregate(run_source(r), &(weir_table_window){.kind = 42}, "k",
                                       "COUNT(*)");
}
static weir_table *bad_item(run *r) { return tumble(run_source(r), "k", "k, SUM(v"); }
static weir_table *no_proctime(run *r)
{
    return weir_table_window_aggregate(
        run_source(r),
        &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000, .proctime = true}, "k",
        "k, COUNT(*)");
}
static weir_table *proctime_offset(run *r)
{
    weir_table *t = run_source(r);
    const weir_schema *in = weir_table_schema(t);
    int n = weir_schema_ncolumns(in);
    weir_expr *items[8];
    weir_schema_builder *b = weir_schema_builder_create("t");
    char err[256];
    for (int c = 0; c < n; c++) {
        weir_schema_column(b, weir_schema_column_name(in, c), weir_schema_column_type(in, c));
        cr_assert_eq(weir_expr_compile_item(weir_schema_column_name(in, c), in, 0, &items[c],
                                            err, sizeof err), 0, "%s", err);
    }
    weir_schema_column(b, "proc", (weir_type){.id = WEIR_TYPE_TIMESTAMP_LTZ, .not_null = true});
    cr_assert_eq(weir_expr_compile_item("PROCTIME() AS proc", in, 0, &items[n], err, sizeof err),
                 0, "%s", err);
    weir_schema_proctime_attribute(b, "proc");
    weir_schema *declared;
    cr_assert_eq(weir_schema_build(b, &declared, err, sizeof err), 0, "%s", err);
    t = weir_table_computed_columns(t, items, n + 1, declared);
    cr_assert_eq(weir_table_proctime(t), n, "%s", weir_job_error(r->job));
    weir_schema_destroy(declared);
    return weir_table_window_aggregate(
        t,
        &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000, .offset_ms = 10,
                             .proctime = true},
        "k", "k, COUNT(*)");
}

Test(window, plan_time_refusals, .timeout = 60)
{
    refused(over_updates, "weir_table_window_aggregate: the table GroupAggregate(k) emits "
                          "[I,UB,UA]: a window aggregate doesn't support consuming update "
                          "changes which is produced by node GroupAggregate(k)");
    refused(no_rowtime, "has no rowtime attribute");
    refused(not_grouped, "'v' is neither a group key, a window column nor an aggregate");
    refused(agg_of_window, "'MAX(window_start)': an aggregate of a window column");
    refused(window_in_expr, "window_start");
    refused(unknown_key, "group key 'kk' is not a column of table t");
    refused(duplicate, "duplicate column name 'k'");
    refused(clash, "has a column named window_end, which the window adds");
    refused(bad_tumble, "TUMBLE takes size_ms > 0 (and offset_ms) only");
    refused(bad_hop, "HOP: the offset 100 is not within the slide 100");
    refused(bad_session, "SESSION takes gap_ms > 0 only");
    refused(bad_cumulate, "CUMULATE: the size 1000 is not a multiple of the step 300");
    refused(cumulate_without_step, "CUMULATE takes step_ms > 0 and size_ms > 0");
    refused(bad_kind, "unknown window kind 42");
    refused(bad_item, "SUM(v");
    refused(no_proctime, "has no processing-time attribute");
    refused(proctime_offset, "a processing-time window takes no offset");
}

/* ---- the differential test: the same rows through a DataStream window ---------- */

typedef struct ev {
    int64_t user;
    int64_t v;
    int64_t ts;
} ev;

typedef struct acc {
    int64_t n, sum, lo, hi;
} acc;

typedef struct res {
    int64_t user, start, end, n, sum, lo, hi;
} res;

static void ev_key(const void *e, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const ev *)e)->user, 8);
}

static void ds_add(void *a, const void *e, void *arg)
{
    (void)arg;
    acc *x = a;
    const ev *y = e;
    x->lo = x->n == 0 || y->v < x->lo ? y->v : x->lo;
    x->hi = x->n == 0 || y->v > x->hi ? y->v : x->hi;
    x->n++;
    x->sum += y->v;
}

static void ds_merge(void *a, const void *o, void *arg)
{
    (void)arg;
    acc *x = a;
    const acc *y = o;
    if (y->n == 0)
        return;
    x->lo = x->n == 0 || y->lo < x->lo ? y->lo : x->lo;
    x->hi = x->n == 0 || y->hi > x->hi ? y->hi : x->hi;
    x->n += y->n;
    x->sum += y->sum;
}

static void ds_result(const void *a, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    const acc *x = a;
    res *r = out;
    memcpy(&r->user, w->key, 8);
    r->start = w->start;
    r->end = w->end;
    r->n = x->n;
    r->sum = x->sum;
    r->lo = x->lo;
    r->hi = x->hi;
}

static int64_t lagging_wm(const void *elem, int64_t ts, void *arg)
{
    (void)elem;
    int64_t *max = arg; /* one source subtask: one thread */
    if (ts > *max)
        *max = ts;
    return *max - 200;
}

static int cmp_i64s(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    for (int i = 0; i < 7; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static weir_stream *diff_source(weir_job *job, const ev *evs, const int64_t *ts, size_t n,
                                int64_t *max)
{
    weir_stream *s = weir_source_array(job, evs, n, sizeof(ev), ts);
    *max = WEIR_TS_MIN + 200;
    return weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_punctuated(lagging_wm, max)});
}

static res *run_datastream(const ev *evs, const int64_t *ts, size_t n,
                           weir_window_assigner a, int p, size_t *nout)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL,
                                              .parallelism = 1});
    int64_t max;
    weir_stream *s = diff_source(job, evs, ts, n, &max);
    weir_key_spec ks = {.key_size = 8, .extract = ev_key};
    weir_window_spec w = {.assigner = a,
                          .aggregate = {.acc_size = sizeof(acc), .add = ds_add,
                                        .merge = ds_merge, .result = ds_result},
                          .out_size = sizeof(res), .parallelism = p};
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_stream_window(weir_stream_key_by(s, &ks), &w), &c), "%s",
              weir_job_error(job));
    tu_run_ok(job);
    *nout = weir_collect_count(c);
    res *out = calloc(*nout + 1, sizeof *out);
    for (size_t i = 0; i < *nout; i++)
        memcpy(&out[i], weir_collect_elem(c, i), sizeof *out);
    weir_job_destroy(job);
    qsort(out, *nout, sizeof *out, cmp_i64s);
    return out;
}

static res *run_table(const ev *evs, const int64_t *ts, size_t n, const weir_table_window *tw,
                      int p, size_t *nout)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL,
                                              .parallelism = 1});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){.parallelism = p}, &env), 0);
    weir_schema_builder *b = weir_schema_builder_create("events");
    weir_schema_bind_struct(b, sizeof(ev));
    weir_schema_column_at(b, "user", (weir_type){.id = WEIR_TYPE_BIGINT}, offsetof(ev, user), 8);
    weir_schema_column_at(b, "v", (weir_type){.id = WEIR_TYPE_BIGINT}, offsetof(ev, v), 8);
    weir_schema_column_at(b, "ts", (weir_type){.id = WEIR_TYPE_TIMESTAMP}, offsetof(ev, ts), 8);
    weir_schema_watermark(b, "ts", "SOURCE_WATERMARK()");
    weir_schema *schema;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &schema, err, sizeof err), 0, "%s", err);
    int64_t max;
    weir_table *t = weir_table_from_stream(env, diff_source(job, evs, ts, n, &max), schema);
    t = weir_table_window_aggregate(t, tw, "user",
                                    "user, window_start, window_end, COUNT(*), SUM(v), MIN(v), "
                                    "MAX(v)");
    cr_assert(t, "%s", weir_job_error(job));
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_stream(t), &c), "%s", weir_job_error(job));
    tu_run_ok(job);
    const weir_schema *os = weir_table_schema(t);
    *nout = weir_collect_count(c);
    res *out = calloc(*nout + 1, sizeof *out);
    for (size_t i = 0; i < *nout; i++) {
        const void *row = weir_collect_elem(c, i);
        int64_t *f = &out[i].user;
        for (int k = 0; k < 7; k++)
            f[k] = weir_row_get_int(os, row, k);
        cr_assert_eq(weir_collect_timestamp(c, i), out[i].end - 1);
    }
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    qsort(out, *nout, sizeof *out, cmp_i64s);
    return out;
}

static void differential(int p)
{
    enum { N = 2000, KEYS = 12 };
    ev *evs = calloc(N, sizeof *evs);
    int64_t *ts = calloc(N, sizeof *ts);
    uint64_t seed = 14 + (uint64_t)p;
    for (size_t i = 0; i < N; i++) {
        seed = tu_mix(seed);
        evs[i].user = (int64_t)(seed % KEYS);
        evs[i].v = (int64_t)(seed >> 20) % 1000 - 300;
        /* About 5 ms a row, up to 400 ms out of order: with watermarks 200
         * behind the largest, some rows are late. */
        evs[i].ts = (int64_t)i * 5 - (int64_t)((seed >> 40) % 400);
        ts[i] = evs[i].ts;
    }
    const struct {
        weir_table_window tw;
        weir_window_assigner a;
    } cases[] = {
        {{.kind = WEIR_TABLE_TUMBLE, .size_ms = 250}, weir_window_tumbling(250, 0)},
        {{.kind = WEIR_TABLE_TUMBLE, .size_ms = 300, .offset_ms = -70},
         weir_window_tumbling(300, -70)},
        {{.kind = WEIR_TABLE_HOP, .slide_ms = 100, .size_ms = 350},
         weir_window_sliding(350, 100, 0)},
        {{.kind = WEIR_TABLE_SESSION, .gap_ms = 40}, weir_window_session(40)},
        {{.kind = WEIR_TABLE_CUMULATE, .step_ms = 100, .size_ms = 400},
         weir_window_cumulative(400, 100, 0)},
        {{.kind = WEIR_TABLE_CUMULATE, .step_ms = 50, .size_ms = 300, .offset_ms = 30},
         weir_window_cumulative(300, 50, 30)},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t nd, nt;
        res *d = run_datastream(evs, ts, N, cases[k].a, p, &nd);
        res *t = run_table(evs, ts, N, &cases[k].tw, p, &nt);
        cr_assert_gt(nd, 20u, "case %zu: the data makes windows", k);
        cr_assert_eq(nt, nd, "case %zu p=%d: %zu table rows, %zu DataStream results", k, p, nt,
                     nd);
        for (size_t i = 0; i < nd; i++)
            cr_assert_eq(cmp_i64s(&d[i], &t[i]), 0,
                         "case %zu p=%d result %zu: user %lld [%lld, %lld) n %lld vs user %lld "
                         "[%lld, %lld) n %lld", k, p, i, (long long)d[i].user,
                         (long long)d[i].start, (long long)d[i].end, (long long)d[i].n,
                         (long long)t[i].user, (long long)t[i].start, (long long)t[i].end,
                         (long long)t[i].n);
        free(d);
        free(t);
    }
    free(evs);
    free(ts);
}

Test(window_differential, same_results_as_datastream_windows_p1, .timeout = 120)
{
    differential(1);
}

Test(window_differential, same_results_as_datastream_windows_p4, .timeout = 120)
{
    differential(4);
}

/* ---- watermark emission of a WATERMARK expression ------------------------------- */

/* The WatermarkAssigner's idle timeout, from its settings in the job event. */
static int64_t assigner_idleness(run *r)
{
    int64_t idle = -1;
    for (size_t i = 0; i < weir_diag_memory_count(r->mem) && idle < 0; i++) {
        const weir_diag_event *de = weir_diag_memory_event(r->mem, i);
        if (de->kind != WEIR_DIAG_KIND_JOB)
            continue;
        json_t *root = json_loads(de->json, 0, NULL);
        size_t k;
        json_t *o;
        json_array_foreach(json_object_get(root, "operators"), k, o)
        {
            if (strncmp(json_string_value(json_object_get(o, "name")), "WatermarkAssigner", 17))
                continue;
            idle = json_integer_value(json_object_get(json_object_get(o, "settings"),
                                                      "idleness_ms"));
        }
        json_decref(root);
    }
    cr_assert_geq(idle, 0, "a WatermarkAssigner in the job event");
    return idle;
}

static weir_schema *emitting_schema(bool on_event, int64_t idle_ms)
{
    weir_schema_builder *b = weir_schema_builder_create("t");
    weir_schema_column_sql(b, "k", "STRING");
    weir_schema_column_sql(b, "v", "BIGINT");
    weir_schema_column_sql(b, "ts", "TIMESTAMP(3)");
    weir_schema_column_sql(b, "wm", "BIGINT");
    weir_schema_watermark(b, "ts", "ts");
    weir_schema_watermark_emit(b, on_event, idle_ms);
    weir_schema *s;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

Test(window, on_event_watermarks_fire_windows_between_rows, .timeout = 60)
{
    run *r = run_new(1, "ts");
    weir_schema_destroy(r->schema);
    r->schema = emitting_schema(true, 300);
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|2|250|null"); /* on-event: the watermark is 250, [100, 200) fires */
    run_add(r, "+I a|4|150|null"); /* late */
    weir_stream *s = weir_source_array(r->job, r->rows, r->n, weir_schema_row_size(r->schema),
                                       r->ts);
    weir_table *t = weir_table_window_aggregate(
        weir_table_from_stream(r->env, s, r->schema),
        &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 100}, "k",
        "k, window_end, SUM(v) AS s");
    char *got = run_collect(r, t, false);
    cr_assert_str_eq(got, "+I[a, 1970-01-01 00:00:00.200, 1]\n"
                          "+I[a, 1970-01-01 00:00:00.300, 2]\n");
    free(got);
    cr_assert_eq(counter(r, "WindowAggregate(TUMBLE(size=100), k)", "late_dropped"), 1);
    /* The idle timeout is the watermark assigner's (its settings in the job event). */
    cr_assert_eq(assigner_idleness(r), 300);
    run_free(r);
}

/* Flink's 'table.exec.source.idle-timeout' (weir_table_config.source_idle_
 * timeout_ms) is the assigner's idle timeout where the schema gives none;
 * a schema's own ('scan.watermark.idle-timeout') wins. */
Test(window, the_envs_source_idle_timeout_where_the_schema_has_none, .timeout = 60)
{
    for (int own = 0; own < 2; own++) {
        run *r = run_new(1, "ts");
        weir_table_env_destroy(r->env);
        cr_assert_eq(weir_table_env_create(r->job,
                                           &(weir_table_config){.parallelism = 1,
                                                                .source_idle_timeout_ms = 700},
                                           &r->env),
                     0);
        weir_schema_destroy(r->schema);
        r->schema = emitting_schema(false, own ? 300 : 0);
        run_add(r, "+I a|1|100|null");
        weir_stream *s = weir_source_array(r->job, r->rows, r->n,
                                           weir_schema_row_size(r->schema), r->ts);
        weir_table *t = weir_table_from_stream(r->env, s, r->schema);
        char *got = run_collect(r, t, false);
        free(got);
        cr_assert_eq(assigner_idleness(r), own ? 300 : 700);
        run_free(r);
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_table_env *env = NULL;
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){.source_idle_timeout_ms = -1},
                                       &env),
                 WEIR_EINVAL);
    weir_job_destroy(job);
}

Test(window, watermark_emission_options_need_an_expression)
{
    static const char *const wms[] = {"SOURCE_WATERMARK()", NULL};
    static const char *const msgs[] = {"SOURCE_WATERMARK() keeps the stream's own watermarks",
                                       "watermark emission options without a watermark"};
    for (int i = 0; i < 2; i++) {
        weir_schema_builder *b = weir_schema_builder_create("t");
        weir_schema_column_sql(b, "ts", "TIMESTAMP(3)");
        if (wms[i])
            weir_schema_watermark(b, "ts", wms[i]);
        weir_schema_watermark_emit(b, true, 0);
        weir_schema *s = NULL;
        char err[256];
        cr_assert_neq(weir_schema_build(b, &s, err, sizeof err), 0);
        cr_assert(strstr(err, msgs[i]), "%s", err);
    }
    weir_schema_builder *b = weir_schema_builder_create("t");
    cr_assert_eq(weir_schema_watermark_emit(b, false, -1), WEIR_EINVAL);
    weir_schema_builder_destroy(b);
}
