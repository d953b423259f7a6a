/* test_diag_join.c — the joins' state in the capture: a join_state event per
 * join subtask whenever, at a throughput sample, the rows each side holds or
 * the watermark's hold-back moved (docs/CAPTURE.md). A window join holds each
 * window's rows until it fires and passes the watermark on; an interval join
 * holds its rows until the watermark passes their bound and holds its output
 * watermark back by the bound. The captures are valid (`weir capture
 * validate`) and `weir capture summary` lists the joins.
 */
#include "diag/test_diag_support.h"
#include "support/gen_table.h"
#include "weir.h"

typedef struct seen {
    int events;
    int64_t max_left, max_right;
    int64_t last_left[4], last_right[4], hold[4];
} seen;

/* A job of two generated tables joined (through window TVFs when `window`),
 * its capture in memory and in dir/capture.jsonl; what its join_state events
 * said of the operator named `prefix`... */
static seen run(const char *dir, bool window, const char *cond, const char *prefix)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    /* One worker on the virtual clock: the samples fall at the same points
     * of the run every time. With workers on the system clock a sample sees
     * a join only between its steps, and a loaded machine (ThreadSanitizer)
     * can hand a join a window's rows and the watermark that fires them in
     * one step, so no sample saw them held. */
    weir_job_config cfg = {.workers = 1, .parallelism = 2, .clock = WEIR_CLOCK_VIRTUAL,
                           .diag = {.memory = mem,
                                    .jsonl_path = td_path(dir, "capture.jsonl"),
                                    .throughput_interval_ms = 1}};
    weir_job *job = tu_job(&cfg);
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){.parallelism = 2}, &env), 0);
    weir_schema *s[2];
    weir_table *t[2];
    weir_table_window w = {.kind = WEIR_TABLE_TUMBLE, .size_ms = 50};
    for (int i = 0; i < 2; i++) {
        s[i] = tu_gen_row_schema(i ? "r" : "l", false);
        t[i] = tu_gen_table(job, env, i ? "right" : "left", s[i], 400, 11 + (uint64_t)i, 5);
        if (window)
            t[i] = weir_table_window_tvf(t[i], &w);
    }
    weir_table *j = weir_table_join(t[0], t[1], WEIR_JOIN_INNER, cond);
    cr_assert(j, "%s", weir_job_error(job));
    cr_assert(strncmp(weir_table_node_name(j), prefix, strlen(prefix)) == 0, "%s",
              weir_table_node_name(j));
    cr_assert(weir_sink_discard(weir_table_to_stream(j)), "%s", weir_job_error(job));
    tu_run_ok(job);
    seen out = {0};
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (ev->kind != WEIR_DIAG_KIND_JOIN_STATE)
            continue;
        cr_assert(strncmp(ev->op, prefix, strlen(prefix)) == 0, "%s", ev->json);
        cr_assert(ev->subtask >= 0 && ev->subtask < 2);
        out.events++;
        if (ev->left_rows > out.max_left)
            out.max_left = ev->left_rows;
        if (ev->right_rows > out.max_right)
            out.max_right = ev->right_rows;
        out.last_left[ev->subtask] = ev->left_rows;
        out.last_right[ev->subtask] = ev->right_rows;
        out.hold[ev->subtask] = ev->hold_back_ms;
    }
    td_destroy_job(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(s[0]);
    weir_schema_destroy(s[1]);
    weir_diag_memory_destroy(mem);
    td_assert_valid(dir, td_path(dir, "capture.jsonl"));
    return out;
}

static char *summary_of(const char *dir)
{
    const char *weir = WEIR_BINARY_DIR "/tools/weir";
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s' capture summary '%s' >'%s/summary.out' 2>&1", weir,
             td_path(dir, "capture.jsonl"), dir);
    int st = system(cmd);
    char *out = td_read(td_path(dir, "summary.out"), NULL);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", out);
    return out;
}

Test(diag_join, window_join_rows_wait_for_their_window, .timeout = 60)
{
    char *dir = td_tmpdir();
    seen s = run(dir, true, "l.k = r.k AND l.window_start = r.window_start AND "
                 "l.window_end = r.window_end", "WindowJoin(");
    cr_assert_gt(s.events, 2);
    /* rows waited for their windows on both sides, and none is left at the end */
    cr_assert_gt(s.max_left, 0);
    cr_assert_gt(s.max_right, 0);
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(s.last_left[k], 0, "subtask %d ends with %lld left rows", k,
                     (long long)s.last_left[k]);
        cr_assert_eq(s.last_right[k], 0);
        cr_assert_eq(s.hold[k], 0, "a window join passes the watermark on");
    }
    char *sum = summary_of(dir);
    cr_assert(strstr(sum, "\njoins (") && strstr(sum, "not held back"), "%s", sum);
    free(sum);
    td_rmdir(dir);
}

Test(diag_join, interval_join_holds_the_watermark_back_by_its_bound, .timeout = 60)
{
    char *dir = td_tmpdir();
    seen s = run(dir, false, "l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '0.030' SECOND AND "
                 "r.ts + INTERVAL '0.010' SECOND", "IntervalJoin(");
    cr_assert_gt(s.events, 2);
    cr_assert_gt(s.max_left, 0);
    cr_assert_gt(s.max_right, 0);
    for (int k = 0; k < 2; k++)
        cr_assert_eq(s.hold[k], 30, "subtask %d: hold-back %lld", k, (long long)s.hold[k]);
    char *sum = summary_of(dir);
    cr_assert(strstr(sum, "30 ms (the join's bound)"), "%s", sum);
    free(sum);
    td_rmdir(dir);
}
