/* test_over.c — OVER aggregates, ranks and sorts of tables (weir_table_over,
 * weir_table_rank, weir_table_sort, weir_table_sort_limit, weir_table_limit;
 * SEMANTICS.md 10): the table API by hand, the plan-time refusals, late
 * rows counted, a random differential test against plain computations in
 * this file (rows sorted by time, then each frame's aggregate; per key the
 * last row; the top N by a plain sort), and a savepoint taken mid-run then
 * restored at another parallelism, whose two halves together are the
 * uninterrupted run's output (an OVER over an updating input and a Top-N's
 * update strategy among the nodes: test_over_changes.c has the OVER's
 * differential test), and the Top-N's update strategy ending where the
 * retract strategy does.
 *
 * Watermarks are scripted as in test_window.c: each row's column wm is the
 * watermark its source proposes after it (NULL: none). Bounds: a dozen rows
 * per case, 300 per differential run (3 seeds x 2 parallelisms), about a
 * second of paced generator for the savepoint.
 */
#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#include "table/table_testutil.h"

#define COLS "k BIGINT, v BIGINT, ts TIMESTAMP(3), wm BIGINT"

typedef struct run {
    weir_job *job;
    weir_table_env *env;
    weir_schema *schema;
    weir_diag_memory *mem;
    unsigned char *rows;
    int64_t *ts;
    size_t n, cap;
} run;

static run *run_new(int parallelism)
{
    run *r = calloc(1, sizeof *r);
    cr_assert_eq(weir_diag_memory_create(&r->mem), 0);
    r->job = tu_job(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1, .diag = {.memory = r->mem}});
    cr_assert_eq(weir_table_env_create(r->job, &(weir_table_config){.parallelism = parallelism},
                                       &r->env), 0);
    r->schema = tt_schema_wm("t", COLS, NULL, "ts", "SOURCE_WATERMARK()");
    return r;
}

static void run_add_row(run *r, int64_t k, int64_t v, int64_t ts, int64_t wm)
{
    size_t rs = weir_schema_row_size(r->schema);
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->rows = realloc(r->rows, r->cap * rs);
        r->ts = realloc(r->ts, r->cap * sizeof *r->ts);
    }
    unsigned char *row = r->rows + r->n * rs;
    weir_row_init(r->schema, row, WEIR_ROW_INSERT);
    weir_row_set_int(r->schema, row, 0, k);
    weir_row_set_int(r->schema, row, 1, v);
    weir_row_set_int(r->schema, row, 2, ts);
    if (wm == WEIR_TS_MIN)
        weir_row_set_null(r->schema, row, 3);
    else
        weir_row_set_int(r->schema, row, 3, wm);
    r->ts[r->n++] = ts;
}

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

static weir_collect *collect(run *r, weir_table *t)
{
    cr_assert_not_null(t, "%s", weir_job_error(r->job));
    weir_collect *c = NULL;
    weir_stream *s = weir_table_to_changelog_stream(t, WEIR_CHANGELOG_AS_PRODUCED);
    cr_assert_not_null(s, "%s", weir_job_error(r->job));
    cr_assert_not_null(weir_sink_collect(s, &c), "%s", weir_job_error(r->job));
    return c;
}

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

/* The collected rows as text, one a line, in collect order. */
static char *lines(const weir_table *t, const weir_collect *c)
{
    return tt_collected(weir_table_schema(t), c);
}

/* ---- the table API by hand ----------------------------------------------------------- */

Test(over, rows_and_range_frames_by_hand, .timeout = 60)
{
    run *r = run_new(2);
    /* key 1: 10 @1000, 20 @2000, 30 @2000 (a peer), 40 @3500; key 2: 5 @1000;
     * 7 @500 of key 1 comes when the watermark is 2000 (late for both) */
    run_add_row(r, 1, 10, 1000, 0);
    run_add_row(r, 2, 5, 1000, 0);
    run_add_row(r, 1, 20, 2000, 1000);
    run_add_row(r, 1, 30, 2000, 1000);
    run_add_row(r, 1, 40, 3500, 2000);
    run_add_row(r, 1, 7, 500, 2000);
    weir_table *t = run_source(r);
    weir_table *rows = weir_table_over(t, &(weir_table_over_window){.partition_by = "k",
                                                                     .frame = WEIR_OVER_ROWS,
                                                                     .preceding = 1},
                                       "SUM(v) AS s, COUNT(*) AS n");
    weir_table *range = weir_table_over(t, &(weir_table_over_window){.partition_by = "k",
                                                                      .frame = WEIR_OVER_RANGE,
                                                                      .preceding = 1000},
                                        "SUM(v) AS s, MAX(v) AS hi");
    weir_collect *cr = collect(r, rows), *cg = collect(r, range);
    char plan[1024];
    weir_table_explain(range, plan, sizeof plan);
    tu_assert_contains(plan, "OverAggregate(partitionBy=[k], orderBy=[ts ASC], window=[RANGE "
                             "BETWEEN 1000 PRECEDING AND CURRENT ROW], select=[SUM(v) AS s, "
                             "MAX(v) AS hi]) [I]");
    tu_run_ok(r->job);
    char *got = lines(rows, cr);
    /* per key in time order (each key on one subtask: its rows in order) */
    tu_assert_contains(got, "+I[1, 10, 1970-01-01 00:00:01.000, 0, 10, 1]\n");
    tu_assert_contains(got, "+I[1, 20, 1970-01-01 00:00:02.000, 1000, 30, 2]\n"
                            "+I[1, 30, 1970-01-01 00:00:02.000, 1000, 50, 2]\n"
                            "+I[1, 40, 1970-01-01 00:00:03.500, 2000, 70, 2]\n");
    tu_assert_contains(got, "+I[2, 5, 1970-01-01 00:00:01.000, 0, 5, 1]\n");
    cr_assert_eq(weir_collect_count(cr), 5);
    free(got);
    got = lines(range, cg);
    /* peers share the value that counts both; [2500, 3500] holds 40 alone */
    tu_assert_contains(got, "+I[1, 20, 1970-01-01 00:00:02.000, 1000, 60, 30]\n"
                            "+I[1, 30, 1970-01-01 00:00:02.000, 1000, 60, 30]\n"
                            "+I[1, 40, 1970-01-01 00:00:03.500, 2000, 40, 40]\n");
    free(got);
    /* 7 @500 is below key 1's last processed time, 2000: dropped by both */
    cr_assert_eq(counter(r, weir_table_node_name(rows), "late_dropped"), 1);
    cr_assert_eq(counter(r, weir_table_node_name(range), "late_dropped"), 1);
    run_free(r);
}

Test(over, unbounded_frames_drop_rows_at_the_watermark, .timeout = 60)
{
    run *r = run_new(1);
    run_add_row(r, 1, 10, 1000, 1000);
    run_add_row(r, 2, 5, 1000, 1000);  /* at the watermark: late for an unbounded frame */
    run_add_row(r, 1, 20, 2000, 1500);
    run_add_row(r, 3, 1, 1200, 1500);  /* below it: late too */
    run_add_row(r, 1, 30, 2000, WEIR_TS_MIN);
    weir_table *t = run_source(r);
    weir_table *range = weir_table_over(t, &(weir_table_over_window){.partition_by = "k"},
                                        "SUM(v) AS s");
    weir_table *rows = weir_table_over(
        t, &(weir_table_over_window){.frame = WEIR_OVER_ROWS_UNBOUNDED}, "SUM(v) AS s");
    weir_collect *cg = collect(r, range), *cr = collect(r, rows);
    tu_run_ok(r->job);
    char *got = lines(range, cg);
    cr_assert_str_eq(got, "+I[1, 10, 1970-01-01 00:00:01.000, 1000, 10]\n"
                          "+I[1, 20, 1970-01-01 00:00:02.000, 1500, 60]\n"
                          "+I[1, 30, 1970-01-01 00:00:02.000, null, 60]\n");
    free(got);
    got = lines(rows, cr);
    cr_assert_str_eq(got, "+I[1, 10, 1970-01-01 00:00:01.000, 1000, 10]\n"
                          "+I[1, 20, 1970-01-01 00:00:02.000, 1500, 30]\n"
                          "+I[1, 30, 1970-01-01 00:00:02.000, null, 60]\n");
    free(got);
    cr_assert_eq(counter(r, weir_table_node_name(range), "late_dropped"), 2);
    run_free(r);
}

Test(over, ranks_sorts_and_limits_by_hand, .timeout = 60)
{
    run *r = run_new(2);
    run_add_row(r, 1, 10, 2000, 500);
    run_add_row(r, 1, 30, 1000, 500);
    run_add_row(r, 2, 5, 1500, 1500);
    run_add_row(r, 1, 20, 3000, 2500);
    run_add_row(r, 1, 1, 1200, 2500); /* late for keep-first and the sort */
    weir_table *t = run_source(r);
    weir_table *last = weir_table_rank(t, &(weir_table_rank_spec){.partition_by = "k",
                                                                  .order_by = "ts DESC",
                                                                  .rank_start = 1,
                                                                  .rank_end = 1});
    weir_table *first = weir_table_rank(t, &(weir_table_rank_spec){.partition_by = "k",
                                                                   .order_by = "ts",
                                                                   .rank_start = 1,
                                                                   .rank_end = 1});
    weir_table *top = weir_table_rank(t, &(weir_table_rank_spec){.partition_by = "k",
                                                                 .order_by = "v DESC",
                                                                 .rank_start = 1,
                                                                 .rank_end = 2,
                                                                 .rank_column = "rn"});
    weir_table *sorted = weir_table_sort(t, "v DESC");
    weir_table *lim = weir_table_limit(t, 1, 2);
    weir_table *sl = weir_table_sort_limit(t, "v", 0, 1);
    cr_assert_str_eq(weir_table_node_name(last),
                     "Deduplicate(keep=[LastRow], key=[k], order=[ROWTIME])");
    cr_assert_str_eq(weir_table_node_name(first),
                     "Deduplicate(keep=[FirstRow], key=[k], order=[ROWTIME])");
    cr_assert_eq(weir_table_changelog_mode(first), WEIR_CHANGELOG_INSERT_ONLY);
    cr_assert_eq(weir_table_changelog_mode(top), WEIR_CHANGELOG_RETRACT);
    weir_collect *cl = collect(r, last), *cf = collect(r, first), *ct = collect(r, top),
                 *cs = collect(r, sorted), *cm = collect(r, lim), *csl = collect(r, sl);
    tu_run_ok(r->job);
    char *got = lines(last, cl);
    /* 30 @1000 is older than the kept 10 @2000: nothing */
    tu_assert_contains(got, "+I[1, 10, 1970-01-01 00:00:02.000, 500]\n");
    tu_assert_contains(got, "-U[1, 10, 1970-01-01 00:00:02.000, 500]\n"
                            "+U[1, 20, 1970-01-01 00:00:03.000, 2500]\n");
    tu_assert_contains(got, "+I[2, 5, 1970-01-01 00:00:01.500, 1500]\n");
    cr_assert_eq(weir_collect_count(cl), 4);
    free(got);
    got = lines(first, cf);
    tu_assert_contains(got, "+I[1, 30, 1970-01-01 00:00:01.000, 500]\n");
    tu_assert_contains(got, "+I[2, 5, 1970-01-01 00:00:01.500, 1500]\n");
    cr_assert_eq(weir_collect_count(cf), 2);
    free(got);
    got = lines(top, ct);
    tu_assert_contains(got, "+I[1, 10, 1970-01-01 00:00:02.000, 500, 1]\n"
                            "-U[1, 10, 1970-01-01 00:00:02.000, 500, 1]\n"
                            "+U[1, 30, 1970-01-01 00:00:01.000, 500, 1]\n"
                            "+I[1, 10, 1970-01-01 00:00:02.000, 500, 2]\n");
    tu_assert_contains(got, "-U[1, 10, 1970-01-01 00:00:02.000, 500, 2]\n"
                            "+U[1, 20, 1970-01-01 00:00:03.000, 2500, 2]\n");
    free(got);
    got = lines(sorted, cs);
    /* in time order: 30 @1000, 5 @1500, 10 @2000, 20 @3000; 1 @1200 late */
    cr_assert_str_eq(got, "+I[1, 30, 1970-01-01 00:00:01.000, 500]\n"
                          "+I[2, 5, 1970-01-01 00:00:01.500, 1500]\n"
                          "+I[1, 10, 1970-01-01 00:00:02.000, 500]\n"
                          "+I[1, 20, 1970-01-01 00:00:03.000, 2500]\n");
    free(got);
    got = lines(lim, cm);
    cr_assert_str_eq(got, "+I[1, 30, 1970-01-01 00:00:01.000, 500]\n"
                          "+I[2, 5, 1970-01-01 00:00:01.500, 1500]\n");
    free(got);
    got = lines(sl, csl);
    cr_assert_str_eq(got, "+I[1, 10, 1970-01-01 00:00:02.000, 500]\n"
                          "-D[1, 10, 1970-01-01 00:00:02.000, 500]\n"
                          "+I[2, 5, 1970-01-01 00:00:01.500, 1500]\n"
                          "-D[2, 5, 1970-01-01 00:00:01.500, 1500]\n"
                          "+I[1, 1, 1970-01-01 00:00:01.200, 2500]\n");
    free(got);
    cr_assert_eq(counter(r, weir_table_node_name(sorted), "late_dropped"), 1);
    cr_assert_eq(counter(r, weir_table_node_name(first), "late_dropped"), 1);
    run_free(r);
}

Test(over, top_n_over_an_updating_table_retracts, .timeout = 60)
{
    run *r = run_new(1);
    run_add_row(r, 1, 10, 1000, WEIR_TS_MIN);
    run_add_row(r, 2, 5, 1000, WEIR_TS_MIN);
    run_add_row(r, 1, 20, 1000, WEIR_TS_MIN);
    run_add_row(r, 3, 1, 1000, WEIR_TS_MIN);
    weir_table *t = run_source(r);
    weir_table *g = weir_table_group_by(t, "k", "k, SUM(v) AS s");
    weir_table *top = weir_table_rank(g, &(weir_table_rank_spec){.order_by = "s DESC",
                                                                 .rank_start = 1, .rank_end = 2,
                                                                 .rank_column = "rn"});
    cr_assert_not_null(top, "%s", weir_job_error(r->job));
    tu_assert_contains(weir_table_node_name(top), "Rank(strategy=[RetractStrategy]");
    cr_assert_eq(weir_table_changelog_mode(top), WEIR_CHANGELOG_RETRACT);
    weir_collect *c = collect(r, top);
    tu_run_ok(r->job);
    char *got = lines(top, c);
    /* key 1's sum goes 10 -> 30: its -U takes it out of rank 1 (5 moves
     * up, rank 2 empties), its +U puts it back; 3's 1 never enters */
    cr_assert_str_eq(got, "+I[1, 10, 1]\n"
                          "+I[2, 5, 2]\n"
                          "-U[1, 10, 1]\n"
                          "+U[2, 5, 1]\n"
                          "-D[2, 5, 2]\n"
                          "-U[2, 5, 1]\n"
                          "+U[1, 30, 1]\n"
                          "+I[2, 5, 2]\n");
    free(got);
    run_free(r);
}

/* Each refusal in a job of its own (a job keeps its first error). */
typedef weir_table *(*refusal_fn)(weir_table *t);

static weir_table *over_of_group(weir_table *t)
{
    weir_table *g = weir_table_group_by(t, "k", "k, COUNT(*) AS n");
    cr_assert_not_null(g);
    return weir_table_over(g, &(weir_table_over_window){0}, "SUM(n)");
}

static weir_table *window_rank_of_group(weir_table *t)
{
    weir_table *g = weir_table_group_by(t, "k", "k, MIN(ts) AS window_start, "
                                                "MAX(ts) AS window_end");
    cr_assert_not_null(g);
    return weir_table_rank(g, &(weir_table_rank_spec){.partition_by = "window_start, window_end",
                                                      .order_by = "k", .rank_start = 1,
                                                      .rank_end = 3});
}

static weir_table *over_without_rowtime(weir_table *t)
{
    weir_table *p = weir_table_select(t, "k, v, ts + INTERVAL '1' SECOND AS t2");
    cr_assert_not_null(p);
    return weir_table_over(p, &(weir_table_over_window){0}, "SUM(v)");
}

static weir_table *sort_without_rowtime(weir_table *t)
{
    weir_table *p = weir_table_select(t, "k, v, ts + INTERVAL '1' SECOND AS t2");
    cr_assert_not_null(p);
    return weir_table_sort(p, NULL);
}

static weir_table *over_not_aggregate(weir_table *t)
{
    return weir_table_over(t, &(weir_table_over_window){0}, "v");
}

static weir_table *over_duplicate(weir_table *t)
{
    return weir_table_over(t, &(weir_table_over_window){0}, "SUM(v) AS k");
}

static weir_table *over_bad_frame(weir_table *t)
{
    return weir_table_over(t, &(weir_table_over_window){.frame = WEIR_OVER_ROWS, .preceding = -1},
                           "SUM(v)");
}

static weir_table *rank_unknown_key(weir_table *t)
{
    return weir_table_rank(t, &(weir_table_rank_spec){.order_by = "nope", .rank_start = 1,
                                                      .rank_end = 1});
}

static weir_table *rank_bad_key(weir_table *t)
{
    return weir_table_rank(t, &(weir_table_rank_spec){.order_by = "v UP", .rank_start = 1,
                                                      .rank_end = 1});
}

static weir_table *rank_bad_range(weir_table *t)
{
    return weir_table_rank(t, &(weir_table_rank_spec){.order_by = "v", .rank_start = 2,
                                                      .rank_end = 1});
}

static weir_table *rank_duplicate(weir_table *t)
{
    return weir_table_rank(t, &(weir_table_rank_spec){.order_by = "v", .rank_start = 1,
                                                      .rank_end = 2, .rank_column = "v"});
}

Test(over, plan_time_refusals, .timeout = 60)
{
    static const struct {
        refusal_fn fn;
        const char *msg;
    } cases[] = {
        {over_of_group, "weir_table_over: the table GroupAggregate(k) emits [I,UB,UA]: "
                        "OverAggregate doesn't support consuming update changes which is "
                        "produced by node GroupAggregate(k)"},
        {window_rank_of_group, "WindowRank doesn't support consuming update changes which is "
                               "produced by node GroupAggregate(k)"},
        {over_without_rowtime, "has no rowtime attribute"},
        {sort_without_rowtime, "TemporalSort is ordered by it"},
        {over_not_aggregate, "'v' is not an aggregate call"},
        {over_duplicate, "duplicate column name 'k'"},
        {over_bad_frame, "a bad frame"},
        {rank_unknown_key, "order key 'nope' is not a column of table t"},
        {rank_bad_key, "bad order key 'v UP'"},
        {rank_bad_range, "1 <= rank_start <= rank_end"},
        {rank_duplicate, "duplicate column name 'v'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run *r = run_new(1);
        run_add_row(r, 1, 1, 1, 1);
        weir_table *t = run_source(r);
        cr_assert_null(cases[i].fn(t), "case %zu", i);
        tu_assert_contains(weir_job_error(r->job), cases[i].msg);
        run_free(r);
    }
}

/* ---- the differential test ------------------------------------------------------------- */

#define DK 4   /* keys */
#define DN 300 /* rows */

typedef struct drow {
    int64_t k, v, ts, wm;
    int seq;
} drow;

/* Random rows: times on a 100 ms grid going forward with up to 600 ms of
 * disorder (equal times are common), values 0..30 (ties are common); the
 * watermark after each row 300 ms behind the largest time so far, so some
 * rows are late. */
static void make_rows(unsigned seed, drow *d)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    int64_t max = WEIR_TS_MIN;
    for (int i = 0; i < DN; i++) {
        x = tu_mix(x);
        d[i].k = (int64_t)(x % DK);
        d[i].v = (int64_t)((x >> 8) % 31);
        d[i].ts = (i - (int64_t)((x >> 20) % 7)) * 100 + 1000;
        if (d[i].ts > max)
            max = d[i].ts;
        d[i].wm = max - 300;
        d[i].seq = i;
    }
}

static int cmp_time(const void *a, const void *b)
{
    const drow *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->seq - y->seq;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows an OVER node processes, per Flink's lateness rules: a bounded
 * frame's row is late at or below its key's last processed time; an
 * unbounded frame's at or below the watermark. Timers fire when the
 * watermark advances; the end of input fires everything. */
static int processed(const drow *d, bool bounded, drow *out)
{
    bool pending[DN] = {false};
    int64_t last[DK];
    bool has_last[DK] = {false};
    int64_t wm = WEIR_TS_MIN;
    int n = 0;
    for (int i = 0; i < DN; i++) {
        bool late = bounded ? has_last[d[i].k] && d[i].ts <= last[d[i].k] : d[i].ts <= wm;
        if (!late) {
            pending[i] = true;
            out[n++] = d[i];
        }
        if (d[i].wm > wm) {
            wm = d[i].wm;
            for (int j = 0; j <= i; j++)
                if (pending[j] && d[j].ts <= wm) {
                    pending[j] = false;
                    if (!has_last[d[j].k] || d[j].ts > last[d[j].k])
                        last[d[j].k] = d[j].ts;
                    has_last[d[j].k] = true;
                }
        }
    }
    return n;
}

/* The expected lines "k v ts sum count min max" of an OVER node. */
static int expect_over(const drow *d, weir_table_over_frame frame, int64_t preceding, char **out)
{
    bool bounded = frame == WEIR_OVER_ROWS || frame == WEIR_OVER_RANGE;
    drow *p = malloc(DN * sizeof *p);
    int n = processed(d, bounded, p);
    qsort(p, (size_t)n, sizeof *p, cmp_time);
    int m = 0;
    for (int i = 0; i < n; i++) {
        int64_t s = 0, c = 0, lo = INT64_MAX, hi = INT64_MIN;
        int at = 0; /* i's place among its key's rows */
        for (int j = 0; j < i; j++)
            at += p[j].k == p[i].k;
        for (int j = 0, pos = 0; j < n; j++) {
            if (p[j].k != p[i].k)
                continue;
            bool in;
            switch (frame) {
            case WEIR_OVER_ROWS: in = pos <= at && pos >= at - preceding; break;
            case WEIR_OVER_ROWS_UNBOUNDED: in = pos <= at; break;
            case WEIR_OVER_RANGE: in = p[j].ts <= p[i].ts && p[j].ts >= p[i].ts - preceding; break;
            default: in = p[j].ts <= p[i].ts; break;
            }
            pos++;
            if (!in)
                continue;
            s += p[j].v;
            c++;
            lo = p[j].v < lo ? p[j].v : lo;
            hi = p[j].v > hi ? p[j].v : hi;
        }
        char line[128];
        snprintf(line, sizeof line, "%lld %lld %lld %lld %lld %lld %lld", (long long)p[i].k,
                 (long long)p[i].v, (long long)p[i].ts, (long long)s, (long long)c,
                 (long long)lo, (long long)hi);
        out[m++] = strdup(line);
    }
    free(p);
    return m;
}

static int got_over(const weir_table *t, const weir_collect *c, char **out)
{
    const weir_schema *s = weir_table_schema(t);
    size_t n = weir_collect_count(c);
    for (size_t i = 0; i < n; i++) {
        const void *row = weir_collect_elem(c, i);
        cr_assert_eq(weir_row_get_kind(row), WEIR_ROW_INSERT);
        char line[128];
        snprintf(line, sizeof line, "%lld %lld %lld %lld %lld %lld %lld",
                 (long long)weir_row_get_int(s, row, 0), (long long)weir_row_get_int(s, row, 1),
                 (long long)weir_row_get_int(s, row, 2), (long long)weir_row_get_int(s, row, 4),
                 (long long)weir_row_get_int(s, row, 5), (long long)weir_row_get_int(s, row, 6),
                 (long long)weir_row_get_int(s, row, 7));
        out[i] = strdup(line);
    }
    return (int)n;
}

static void assert_same_lines(char **a, int na, char **b, int nb, const char *what)
{
    qsort(a, (size_t)na, sizeof *a, cmp_line);
    qsort(b, (size_t)nb, sizeof *b, cmp_line);
    cr_assert_eq(na, nb, "%s: %d rows, expected %d", what, na, nb);
    for (int i = 0; i < na; i++)
        cr_assert_str_eq(a[i], b[i], "%s: row %d", what, i);
    for (int i = 0; i < na; i++)
        free(a[i]);
    for (int i = 0; i < nb; i++)
        free(b[i]);
}

/* The changelog of keep-last deduplication, as plain per-key bookkeeping:
 * "kind k v ts" lines. */
static int expect_dedup_last(const drow *d, char **out)
{
    int kept[DK];
    for (int k = 0; k < DK; k++)
        kept[k] = -1;
    int m = 0;
    char line[96];
    for (int i = 0; i < DN; i++) {
        int k = (int)d[i].k, p = kept[k];
        if (p >= 0 && d[i].ts < d[p].ts)
            continue;
        if (p >= 0) {
            snprintf(line, sizeof line, "-U %lld %lld %lld", (long long)d[p].k, (long long)d[p].v,
                     (long long)d[p].ts);
            out[m++] = strdup(line);
        }
        snprintf(line, sizeof line, "%s %lld %lld %lld", p >= 0 ? "+U" : "+I", (long long)d[i].k,
                 (long long)d[i].v, (long long)d[i].ts);
        out[m++] = strdup(line);
        kept[k] = i;
    }
    return m;
}

/* Keep-first: each key's earliest row not below the watermark when it came,
 * once the watermark reaches it; a key whose row went out takes no more. */
static int expect_dedup_first(const drow *d, char **out)
{
    int pend[DK];
    bool done[DK] = {false};
    for (int k = 0; k < DK; k++)
        pend[k] = -1;
    int64_t wm = WEIR_TS_MIN;
    int m = 0;
    char line[96];
    for (int i = 0; i <= DN; i++) {
        if (i < DN) {
            int k = (int)d[i].k;
            if (d[i].ts >= wm && !done[k] && (pend[k] < 0 || d[i].ts < d[pend[k]].ts))
                pend[k] = i;
        }
        int64_t nwm = i < DN ? d[i].wm : INT64_MAX;
        if (nwm <= wm)
            continue;
        wm = nwm;
        for (int k = 0; k < DK; k++)
            if (pend[k] >= 0 && d[pend[k]].ts <= wm) {
                snprintf(line, sizeof line, "+I %lld %lld %lld", (long long)k,
                         (long long)d[pend[k]].v, (long long)d[pend[k]].ts);
                out[m++] = strdup(line);
                pend[k] = -1;
                done[k] = true;
            }
    }
    return m;
}

static int got_changelog(const weir_table *t, const weir_collect *c, char **out)
{
    static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
    const weir_schema *s = weir_table_schema(t);
    size_t n = weir_collect_count(c);
    for (size_t i = 0; i < n; i++) {
        const void *row = weir_collect_elem(c, i);
        char line[96];
        snprintf(line, sizeof line, "%s %lld %lld %lld", kinds[weir_row_get_kind(row)],
                 (long long)weir_row_get_int(s, row, 0), (long long)weir_row_get_int(s, row, 1),
                 (long long)weir_row_get_int(s, row, 2));
        out[i] = strdup(line);
    }
    return (int)n;
}

#define TOPN 3

/* The Top-N changelog (with rn) applied per key in its order: every -U
 * retracts what its rank holds, and the end state is the plain top N of
 * each key (v descending, ties in arrival order). */
static void check_top_n(const weir_table *t, const weir_collect *c, const drow *d)
{
    const weir_schema *s = weir_table_schema(t);
    int64_t held[DK][TOPN + 1][2]; /* v, ts; ts INT64_MIN: empty */
    for (int k = 0; k < DK; k++)
        for (int r = 0; r <= TOPN; r++)
            held[k][r][1] = INT64_MIN;
    for (size_t i = 0; i < weir_collect_count(c); i++) {
        const void *row = weir_collect_elem(c, i);
        int64_t k = weir_row_get_int(s, row, 0), v = weir_row_get_int(s, row, 1),
                ts = weir_row_get_int(s, row, 2), rn = weir_row_get_int(s, row, 4);
        cr_assert(rn >= 1 && rn <= TOPN, "rank %lld", (long long)rn);
        weir_row_kind kind = weir_row_get_kind(row);
        if (kind == WEIR_ROW_UPDATE_BEFORE) {
            cr_assert(held[k][rn][0] == v && held[k][rn][1] == ts, "-U of a row rank %lld does "
                      "not hold", (long long)rn);
            held[k][rn][1] = INT64_MIN;
        } else {
            cr_assert(kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER);
            cr_assert(held[k][rn][1] == INT64_MIN, "rank %lld filled twice", (long long)rn);
            held[k][rn][0] = v;
            held[k][rn][1] = ts;
        }
    }
    for (int k = 0; k < DK; k++) {
        /* the plain top N: a stable selection by v descending */
        int top[TOPN], nt = 0;
        bool used[DN] = {false};
        for (; nt < TOPN; nt++) {
            int best = -1;
            for (int i = 0; i < DN; i++)
                if (d[i].k == k && !used[i] && (best < 0 || d[i].v > d[best].v))
                    best = i;
            if (best < 0)
                break;
            used[best] = true;
            top[nt] = best;
        }
        for (int r = 1; r <= TOPN; r++) {
            if (r > nt) {
                cr_assert_eq(held[k][r][1], INT64_MIN);
                continue;
            }
            cr_assert(held[k][r][0] == d[top[r - 1]].v && held[k][r][1] == d[top[r - 1]].ts,
                      "key %d rank %d: holds %lld @%lld, the plain top has %lld @%lld", k, r,
                      (long long)held[k][r][0], (long long)held[k][r][1],
                      (long long)d[top[r - 1]].v, (long long)d[top[r - 1]].ts);
        }
    }
}

/* The retract strategy's changelog over a group aggregate's (SUM(v) per
 * key, at parallelism 1: one order) applied, against the plain top 2 of the
 * final sums (equal sums in the order their keys last changed). */
static void check_retract_top(const weir_table *t, const weir_collect *c, const drow *d)
{
    const weir_schema *s = weir_table_schema(t);
    int64_t held[3][2]; /* rank 1..2: key, sum; key -1: empty */
    for (int r = 0; r < 3; r++)
        held[r][0] = -1;
    for (size_t i = 0; i < weir_collect_count(c); i++) {
        const void *row = weir_collect_elem(c, i);
        int64_t k = weir_row_get_int(s, row, 0), sum = weir_row_get_int(s, row, 1),
                rn = weir_row_get_int(s, row, 2);
        cr_assert(rn >= 1 && rn <= 2);
        weir_row_kind kind = weir_row_get_kind(row);
        if (kind == WEIR_ROW_UPDATE_BEFORE || kind == WEIR_ROW_DELETE) {
            cr_assert(held[rn][0] == k && held[rn][1] == sum, "retracting what rank %lld does "
                      "not hold", (long long)rn);
            held[rn][0] = -1;
        } else {
            cr_assert(held[rn][0] == -1, "rank %lld filled twice", (long long)rn);
            held[rn][0] = k;
            held[rn][1] = sum;
        }
    }
    int64_t sum[DK] = {0};
    int last[DK];
    for (int k = 0; k < DK; k++)
        last[k] = -1;
    for (int i = 0; i < DN; i++) {
        sum[d[i].k] += d[i].v;
        if (d[i].v != 0 || last[d[i].k] < 0)
            last[d[i].k] = i; /* an unchanged sum sends nothing */
    }
    bool used[DK] = {false};
    for (int r = 1; r <= 2; r++) {
        int best = -1;
        for (int k = 0; k < DK; k++)
            if (last[k] >= 0 && !used[k] &&
                (best < 0 || sum[k] > sum[best] || (sum[k] == sum[best] && last[k] < last[best])))
                best = k;
        cr_assert(best >= 0);
        used[best] = true;
        cr_assert(held[r][0] == best && held[r][1] == sum[best], "rank %d: holds %lld = %lld, "
                  "the plain top has %d = %lld", r, (long long)held[r][0],
                  (long long)held[r][1], best, (long long)sum[best]);
    }
}

Test(over, differential_against_plain_computations, .timeout = 120)
{
    static const struct {
        weir_table_over_frame frame;
        int64_t preceding;
    } frames[] = {{WEIR_OVER_ROWS, 2},
                  {WEIR_OVER_ROWS, 0},
                  {WEIR_OVER_RANGE, 300},
                  {WEIR_OVER_RANGE, 0},
                  {WEIR_OVER_RANGE_UNBOUNDED, 0},
                  {WEIR_OVER_ROWS_UNBOUNDED, 0}};
    enum { NF = sizeof frames / sizeof frames[0] };
    for (unsigned seed = 1; seed <= 3; seed++) {
        for (int p = 1; p <= 2; p++) {
            drow d[DN];
            make_rows(seed, d);
            run *r = run_new(p);
            for (int i = 0; i < DN; i++)
                run_add_row(r, d[i].k, d[i].v, d[i].ts, d[i].wm);
            weir_table *t = run_source(r);
            weir_table *over[NF];
            weir_collect *co[NF];
            for (int f = 0; f < NF; f++) {
                over[f] = weir_table_over(
                    t,
                    &(weir_table_over_window){.partition_by = "k", .frame = frames[f].frame,
                                              .preceding = frames[f].preceding},
                    "SUM(v) AS s, COUNT(*) AS n, MIN(v) AS lo, MAX(v) AS hi");
                co[f] = collect(r, over[f]);
            }
            weir_table *last = weir_table_rank(t, &(weir_table_rank_spec){
                .partition_by = "k", .order_by = "ts DESC", .rank_start = 1, .rank_end = 1});
            weir_table *first = weir_table_rank(t, &(weir_table_rank_spec){
                .partition_by = "k", .order_by = "ts ASC", .rank_start = 1, .rank_end = 1});
            weir_table *top = weir_table_rank(t, &(weir_table_rank_spec){
                .partition_by = "k", .order_by = "v DESC", .rank_start = 1, .rank_end = TOPN,
                .rank_column = "rn"});
            weir_collect *cl = collect(r, last), *cf = collect(r, first), *ct = collect(r, top);
            weir_table *rt = NULL;
            weir_collect *crt = NULL;
            if (p == 1) {
                weir_table *g = weir_table_group_by(t, "k", "k, SUM(v) AS s");
                rt = weir_table_rank(g, &(weir_table_rank_spec){.order_by = "s DESC",
                                                                .rank_start = 1, .rank_end = 2,
                                                                .rank_column = "rn"});
                crt = collect(r, rt);
            }
            tu_run_ok(r->job);
            if (rt)
                check_retract_top(rt, crt, d);
            char **a = malloc(4 * DN * sizeof *a), **b = malloc(4 * DN * sizeof *b);
            for (int f = 0; f < NF; f++) {
                char what[96];
                snprintf(what, sizeof what, "seed %u p %d frame %d preceding %lld", seed, p,
                         (int)frames[f].frame, (long long)frames[f].preceding);
                int na = got_over(over[f], co[f], a);
                int nb = expect_over(d, frames[f].frame, frames[f].preceding, b);
                assert_same_lines(a, na, b, nb, what);
            }
            int na = got_changelog(last, cl, a), nb = expect_dedup_last(d, b);
            assert_same_lines(a, na, b, nb, "keep last");
            na = got_changelog(first, cf, a);
            nb = expect_dedup_first(d, b);
            assert_same_lines(a, na, b, nb, "keep first");
            check_top_n(top, ct, d);
            free(a);
            free(b);
            run_free(r);
        }
    }
}

/* ---- the update strategy against the retract strategy ------------------------------------ */

#define UG 6 /* groups per key */

/* A Top-N's changelog applied: the row at each rank of each key (rank
 * column at `rn_col`, -1: none, the rows then a set per key), checking
 * that every -U/-D retracts what is held and no rank is filled twice. */
typedef struct held_top {
    bool used[DK][TOPN + 1];
    int64_t g[DK][TOPN + 1], n[DK][TOPN + 1];
} held_top;

static void apply_top(const weir_table *t, const weir_collect *c, int rn_col, held_top *h)
{
    const weir_schema *s = weir_table_schema(t);
    memset(h, 0, sizeof *h);
    for (size_t i = 0; i < weir_collect_count(c); i++) {
        const void *row = weir_collect_elem(c, i);
        int64_t k = weir_row_get_int(s, row, 0), g = weir_row_get_int(s, row, 1),
                n = weir_row_get_int(s, row, 2);
        weir_row_kind kind = weir_row_get_kind(row);
        bool out = kind == WEIR_ROW_UPDATE_BEFORE || kind == WEIR_ROW_DELETE;
        int at = -1;
        if (rn_col >= 0) {
            at = (int)weir_row_get_int(s, row, rn_col);
            cr_assert(at >= 1 && at <= TOPN, "rank %d", at);
        } else {
            for (int r = 1; r <= TOPN && at < 0; r++)
                if (out ? h->used[k][r] && h->g[k][r] == g : !h->used[k][r])
                    at = r;
            cr_assert(at > 0, "%s of a row not held, or more than %d rows held",
                      out ? "a retraction" : "an addition", TOPN);
        }
        if (out) {
            cr_assert(h->used[k][at] && h->g[k][at] == g && h->n[k][at] == n,
                      "retracting what rank %d of key %lld does not hold", at, (long long)k);
            h->used[k][at] = false;
        } else {
            cr_assert(!h->used[k][at], "rank %d of key %lld filled twice", at, (long long)k);
            h->used[k][at] = true;
            h->g[k][at] = g;
            h->n[k][at] = n;
        }
    }
}

/* The held rows of each key as "g=n" in rank order (without rank numbers:
 * sorted, the rows being a set). */
static void held_text(const held_top *h, int k, bool ranked, char *buf, size_t size)
{
    char *items[TOPN];
    int m = 0;
    for (int r = 1; r <= TOPN; r++)
        if (h->used[k][r]) {
            char one[48];
            snprintf(one, sizeof one, "%lld=%lld", (long long)h->g[k][r], (long long)h->n[k][r]);
            items[m++] = strdup(one);
        }
    if (!ranked)
        qsort(items, (size_t)m, sizeof *items, cmp_line);
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < m; i++) {
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", items[i]);
        free(items[i]);
    }
}

Test(over, update_strategy_ends_where_the_retract_strategy_does, .timeout = 120)
{
    /* the count of each (k, g) descending, the top 3 per k: the update
     * strategy (COUNT only grows) beside the retract strategy over the
     * same counts made opaque (n + 0), with and without rank numbers; at
     * parallelism 1 their final tables are the same rows, at 2 (the
     * aggregate's subtasks interleave differently into each) the same
     * counts at each rank; both are the plain top 3 counts */
    for (unsigned seed = 1; seed <= 3; seed++) {
        for (int p = 1; p <= 2; p++) {
            drow d[DN];
            make_rows(seed, d);
            run *r = run_new(p);
            for (int i = 0; i < DN; i++)
                run_add_row(r, d[i].k, d[i].v % UG, d[i].ts, d[i].wm);
            weir_table *t = run_source(r);
            weir_table *g = weir_table_group_by(t, "k, v", "k, v, COUNT(*) AS n");
            weir_table *opaque = weir_table_select(g, "k, v, n + 0 AS n");
            weir_table *top[4];
            weir_collect *c[4];
            for (int i = 0; i < 4; i++) {
                top[i] = weir_table_rank(i < 2 ? g : opaque,
                                         &(weir_table_rank_spec){
                                             .partition_by = "k", .order_by = "n DESC",
                                             .rank_start = 1, .rank_end = TOPN,
                                             .rank_column = i % 2 ? NULL : "rn"});
                cr_assert_not_null(top[i], "%s", weir_job_error(r->job));
                tu_assert_contains(weir_table_node_name(top[i]),
                                   i < 2 ? "Rank(strategy=[UpdateFastStrategy[0,1]]"
                                         : "Rank(strategy=[RetractStrategy]");
                c[i] = collect(r, top[i]);
            }
            tu_run_ok(r->job);
            held_top h[4];
            for (int i = 0; i < 4; i++)
                apply_top(top[i], c[i], i % 2 ? -1 : 3, &h[i]);
            for (int k = 0; k < DK; k++) {
                /* the plain top counts */
                int64_t cnt[UG] = {0};
                for (int i = 0; i < DN; i++)
                    if (d[i].k == k)
                        cnt[d[i].v % UG]++;
                for (int i = 0; i < 4; i++) {
                    bool used[UG] = {false};
                    for (int rk = 1; rk <= TOPN; rk++) {
                        int best = -1;
                        for (int x = 0; x < UG; x++)
                            if (cnt[x] && !used[x] && (best < 0 || cnt[x] > cnt[best]))
                                best = x;
                        if (best >= 0)
                            used[best] = true;
                        if (i % 2)
                            continue; /* without ranks: compared below */
                        cr_assert_eq(h[i].used[k][rk], best >= 0);
                        cr_assert(best < 0 || h[i].n[k][rk] == cnt[best], "seed %u p %d top %d "
                                  "key %d rank %d: count %lld, the plain top has %lld", seed,
                                  p, i, k, rk, (long long)h[i].n[k][rk],
                                  (long long)cnt[best]);
                    }
                }
                char a[256], b[256];
                if (p == 1) {
                    for (int i = 0; i < 2; i++) {
                        held_text(&h[i], k, i == 0, a, sizeof a);
                        held_text(&h[i + 2], k, i == 0, b, sizeof b);
                        cr_assert_str_eq(a, b, "seed %u key %d %s rank numbers", seed, k,
                                         i ? "without" : "with");
                    }
                }
                /* without ranks: the same counts as with them */
                int64_t na[TOPN], nb[TOPN];
                int ma = 0, mb = 0;
                for (int rk = 1; rk <= TOPN; rk++) {
                    if (h[0].used[k][rk])
                        na[ma++] = h[0].n[k][rk];
                    if (h[1].used[k][rk])
                        nb[mb++] = h[1].n[k][rk];
                }
                cr_assert_eq(ma, mb);
                for (int x = 0; x < ma; x++) {
                    int y = 0;
                    while (y < mb && nb[y] != na[x])
                        y++;
                    cr_assert(y < mb, "key %d: count %lld missing without ranks", k,
                              (long long)na[x]);
                    nb[y] = -1;
                }
            }
            run_free(r);
        }
    }
}

/* ---- a savepoint mid-run, restored at another parallelism --------------------------------- */

static const weir_struct_field gen_fields[] = {
    WEIR_STRUCT_FIELD(weir_gen_event, key, "BIGINT NOT NULL"),
    WEIR_STRUCT_FIELD(weir_gen_event, value, "BIGINT NOT NULL"),
    WEIR_STRUCT_FIELD(weir_gen_event, timestamp, "TIMESTAMP(3) NOT NULL"),
};

enum { NSINKS = 9 };

typedef struct cp_run {
    atomic_int progress; /* rows out of the deduplication, counted as they go */
    weir_job *job;
    weir_table_env *env;
    weir_schema *schema;
    weir_table *t[NSINKS];
    weir_collect *c[NSINKS];
} cp_run;

/* In-order events of 5 keys, 10 ms apart; paced at `speed` (0: as fast as
 * they go) into every kind of node, each into a collect sink. */
static void cp_make(cp_run *r, const char *chk, const char *restore, int parallelism,
                    double speed)
{
    r->job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 1,
                                        .watermark_interval_ms = 5,
                                        .diag = {.level = WEIR_DIAG_OFF},
                                        .checkpoint = {.dir = chk, .restore_from = restore}});
    cr_assert_eq(weir_table_env_create(r->job, &(weir_table_config){.parallelism = parallelism},
                                       &r->env), 0);
    weir_schema_builder *b = weir_schema_builder_create("gen");
    cr_assert_eq(weir_schema_bind_fields(b, sizeof(weir_gen_event), gen_fields, 3), 0);
    cr_assert_eq(weir_schema_watermark(b, "timestamp", "`timestamp`"), 0);
    char err[256];
    cr_assert_eq(weir_schema_build(b, &r->schema, err, sizeof err), 0, "%s", err);
    weir_generator_config g = {.partitions = 1, .keys = 5, .rate = 100, .count = 400,
                               .pace = speed > 0 ? WEIR_GEN_PACED : WEIR_GEN_FAST,
                               .speed = speed, .seed = 7};
    weir_table *t = weir_table_from_stream(r->env, weir_source_generator(r->job, &g), r->schema);
    cr_assert_not_null(t, "%s", weir_job_error(r->job));
    r->t[0] = weir_table_over(t, &(weir_table_over_window){.partition_by = "key",
                                                            .frame = WEIR_OVER_RANGE,
                                                            .preceding = 200},
                              "SUM(`value`) AS s, MAX(`value`) AS hi");
    r->t[1] = weir_table_over(t, &(weir_table_over_window){.partition_by = "key",
                                                            .frame = WEIR_OVER_ROWS,
                                                            .preceding = 3},
                              "SUM(`value`) AS s, COUNT(*) AS n");
    r->t[2] = weir_table_rank(t, &(weir_table_rank_spec){.partition_by = "key",
                                                         .order_by = "`timestamp` DESC",
                                                         .rank_start = 1, .rank_end = 1});
    r->t[3] = weir_table_rank(t, &(weir_table_rank_spec){.partition_by = "key",
                                                         .order_by = "`value` DESC",
                                                         .rank_start = 1, .rank_end = 3,
                                                         .rank_column = "rn"});
    weir_table *w = weir_table_window_aggregate(
        t, &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 500}, "key",
        "window_start, window_end, key, SUM(`value`) AS s");
    r->t[4] = weir_table_rank(w, &(weir_table_rank_spec){.partition_by = "window_start, "
                                                                         "window_end",
                                                         .order_by = "s DESC", .rank_start = 1,
                                                         .rank_end = 2, .rank_column = "rn"});
    r->t[5] = weir_table_sort(t, "`value`");
    r->t[6] = weir_table_limit(t, 0, 150);
    /* an OVER over an updating input (ChangelogOverAggregate): each key's
     * count and largest value so far, their running sum by count; a
     * retraction after the restore finds the row and its last output in
     * the restored state */
    weir_table *grp = weir_table_group_by(t, "key", "key, COUNT(*) AS c, MAX(`value`) AS m");
    r->t[7] = grp ? weir_table_over_changes(grp, &(weir_table_over_window){.partition_by = "key",
                                                                      .frame = WEIR_OVER_ROWS,
                                                                      .preceding = 1},
                                          "c", "SUM(m) AS s, COUNT(*) AS n")
                : NULL;
    /* the update strategy over each key's count (one row per partition,
     * so that every run sees its updates in one order): an update after
     * the restore finds the row the restored state holds (-U/+U at its
     * rank, not a +I) */
    weir_table *cnt = weir_table_group_by(t, "key", "key, COUNT(*) AS n");
    r->t[8] = cnt ? weir_table_rank(cnt, &(weir_table_rank_spec){.partition_by = "key",
                                                                 .order_by = "n DESC",
                                                                 .rank_start = 1, .rank_end = 2,
                                                                 .rank_column = "rn"})
                  : NULL;
    cr_assert(r->t[8] && strstr(weir_table_node_name(r->t[8]), "UpdateFastStrategy"), "%s",
              weir_job_error(r->job));
    for (int i = 0; i < NSINKS; i++) {
        cr_assert_not_null(r->t[i], "%s", weir_job_error(r->job));
        weir_stream *s = weir_table_to_changelog_stream(r->t[i], WEIR_CHANGELOG_AS_PRODUCED);
        cr_assert_not_null(weir_sink_collect(s, &r->c[i]), "%s", weir_job_error(r->job));
    }
    cr_assert_not_null(weir_sink_callback(weir_table_stream(r->t[2]), tt_count_row, &r->progress),
                       "%s", weir_job_error(r->job));
}

static void cp_free(cp_run *r)
{
    weir_job_destroy(r->job);
    weir_table_env_destroy(r->env);
    weir_schema_destroy(r->schema);
}

static int cp_lines(cp_run *r, int i, char **out, int at)
{
    return tt_collect_lines(weir_table_schema(r->t[i]), r->c[i], out, at);
}

Test(over, a_savepoint_restores_every_node_at_another_parallelism, .timeout = 120)
{
    char dir[] = "/tmp/weir-over-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char sp[512];
    snprintf(sp, sizeof sp, "%s/sp", dir);
    /* the uninterrupted run */
    cp_run ref = {0};
    cp_make(&ref, NULL, NULL, 2, 0);
    tu_run_ok(ref.job);
    /* paced (400 events over 4 s of event time at 1x: a sanitizer's slower
     * run, or a loaded machine's, must still stop well before the end),
     * stopped with a savepoint once rows went out, then restored at 3 */
    cp_run a = {0}, b = {0};
    cp_make(&a, dir, NULL, 2, 1);
    tu_runner rn;
    tu_runner_start(&rn, a.job);
    for (int i = 0; i < 3000 && atomic_load(&a.progress) < 40 && !atomic_load(&rn.done); i++)
        usleep(1000);
    int64_t id = 0;
    char why[512];
    int e = weir_job_savepoint(a.job, sp, true, &id, why, sizeof why);
    pthread_join(rn.thread, NULL);
    cr_assert_eq(e, 0, "savepoint: %s", why);
    cr_assert_eq(rn.result, WEIR_ECANCELED, "%s", weir_job_error(a.job));
    cr_assert_lt(weir_collect_count(a.c[6]), 150, "the savepoint came after the end");
    cp_make(&b, NULL, sp, 3, 0);
    tu_run_ok(b.job);
    /* What the restored run emits, the uninterrupted one does too (its
     * state was restored: nothing replayed from the start, no value
     * computed from lost state); and the two runs together emit all of
     * it (rows the first emitted after its savepoint, before it stopped,
     * come again from the second). */
    for (int i = 0; i < NSINKS; i++) {
        const char *what = weir_table_node_name(ref.t[i]);
        char **x = malloc(8192 * sizeof *x), **y = malloc(8192 * sizeof *y),
             **z = malloc(8192 * sizeof *z);
        int nx = cp_lines(&a, i, x, 0);
        cr_assert(i != 2 || nx > 0, "nothing before the savepoint");
        int nz = cp_lines(&b, i, z, 0);
        nx = cp_lines(&b, i, x, nx);
        int ny = cp_lines(&ref, i, y, 0);
        cr_assert_lt(ny, 4096);
        cr_assert(i != 2 || nz < ny, "%s: the restored run emitted all %d rows", what, ny);
        tt_check_restore_lines(what, 3, x, nx, y, ny, z, nz);
        tt_free_lines(x, nx);
        tt_free_lines(y, ny);
        tt_free_lines(z, nz);
    }
    cp_free(&ref);
    cp_free(&a);
    cp_free(&b);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
