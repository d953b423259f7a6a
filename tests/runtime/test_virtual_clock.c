/* test_virtual_clock.c — how the virtual clock moves (scheduler.h): it jumps
 * to the next deadline when the job waits, and it advances with the work
 * done while the job is busy.
 *
 * A job that waits: rows paced far apart (a file read at 'scan.speed' =
 * 0.001, six rows 1 000 s of processing time apart) under a table's
 * WATERMARK FOR, whose generator proposes only from the rows it saw. Its
 * probes with no row since the last one are skipped, so the clock jumps from
 * row to row instead of stepping one watermark interval (200 ms) at a time:
 * the run takes a few steps a row, where it took 5 000 (counted, not timed).
 *
 * A job that never waits: a generator read at full speed (FAST) into a
 * window. Its periodic watermarks keep their period of processing time,
 * which the busy job's own work advances: windows fire while the source is
 * still reading, and the clock has moved by about the records emitted
 * divided by WEIR__VIRTUAL_RECORDS_PER_MS. Before, the clock never moved
 * while any subtask had work: no watermark left before the end of input and
 * the window kept every window of the run.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job_state.h"
#include "scheduler.h"
#include "support/weir_testutil.h"

/* ---- a paced file under a WATERMARK FOR ----------------------------------- */

static int count_row(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem;
    (void)ts;
    (void)subtask;
    (*(int *)arg)++;
    return 0;
}

/* Runs rows.json (six rows a second apart) at `speed` through a table with
 * a WATERMARK FOR and returns the steps the run took; *rows gets the rows
 * that came out. */
static unsigned long paced_file_steps(const char *path, double speed, int *rows)
{
    weir_schema_builder *b = weir_schema_builder_create("t");
    cr_assert(b);
    cr_assert_eq(weir_schema_column_sql(b, "k", "STRING"), 0);
    cr_assert_eq(weir_schema_column_sql(b, "ts", "TIMESTAMP(3)"), 0);
    cr_assert_eq(weir_schema_watermark(b, "ts", "ts"), 0);
    weir_schema *schema;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &schema, err, sizeof err), 0, "%s", err);
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                              .diag.level = WEIR_DIAG_OFF});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){.parallelism = 1}, &env), 0);
    weir_stream *src = weir_source_file(
        job, schema,
        &(weir_file_source_config){.path = path, .format = WEIR_FILE_JSON, .speed = speed});
    weir_table *t = weir_table_from_stream(env, src, schema);
    cr_assert(t, "%s", weir_job_error(job));
    *rows = 0;
    cr_assert(weir_sink_callback(weir_table_to_changelog_stream(t, WEIR_CHANGELOG_ALL), count_row,
                                 rows),
              "%s", weir_job_error(job));
    tu_run_ok(job);
    unsigned long steps = job->steps;
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    return steps;
}

Test(virtual_clock, jumps_to_the_next_paced_row, .timeout = 120)
{
    char dir[] = "/tmp/weir-virtual-clock-XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/rows.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    for (int i = 0; i < 6; i++)
        fprintf(f, "{\"k\":\"a\",\"ts\":\"2024-01-01 00:00:0%d\"}\n", i);
    cr_assert_eq(fclose(f), 0);
    int fast_rows, slow_rows;
    unsigned long fast = paced_file_steps(path, 1.0, &fast_rows);
    unsigned long slow = paced_file_steps(path, 0.001, &slow_rows);
    cr_assert_eq(fast_rows, 6);
    cr_assert_eq(slow_rows, 6);
    /* Rows 1 000 s apart are 5 000 watermark intervals apart: stepping
     * interval by interval took 25 000 steps (and 40 s of CPU at 0.0001).
     * Jumping, the slow run takes the steps of the fast one, give or take
     * a few a row. */
    cr_assert_leq(slow, fast + 60, "speed 0.001 took %lu steps, speed 1 took %lu", slow, fast);
    cr_assert_leq(slow, 200, "speed 0.001 took %lu steps", slow);
    unlink(path);
    rmdir(dir);
}

/* ---- a source read at full speed ------------------------------------------ */

enum { BUSY_RECORDS = WEIR_TEST_SANITIZED ? 60000 : 200000 };

typedef struct busy_run {
    _Atomic int64_t emitted;      /* by the generator, counted right after it */
    _Atomic int64_t results;      /* window results */
    _Atomic int64_t early;        /* results that came before the last record */
    _Atomic int64_t counted;      /* elements in all results */
} busy_run;

static int count_emitted(const void *in, void *arg)
{
    (void)in;
    atomic_fetch_add_explicit(&((busy_run *)arg)->emitted, 1, memory_order_relaxed);
    return 1;
}

static int window_count(weir_ctx *ctx, const weir_window_info *w, const void *elems, size_t count,
                        void *arg)
{
    (void)ctx;
    (void)w;
    (void)elems;
    busy_run *b = arg;
    atomic_fetch_add(&b->results, 1);
    atomic_fetch_add(&b->counted, (int64_t)count);
    if (atomic_load(&b->emitted) < BUSY_RECORDS)
        atomic_fetch_add(&b->early, 1);
    return 0;
}

Test(virtual_clock, periodic_watermarks_keep_their_period_while_busy, .timeout = 120)
{
    busy_run b = {0};
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                              .diag.level = WEIR_DIAG_OFF});
    weir_generator_config g = {.partitions = 1, .keys = 10, .rate = 1000, .count = BUSY_RECORDS,
                               .seed = 3};
    weir_stream *s = weir_stream_filter(weir_source_generator(job, &g), count_emitted, &b);
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_bounded(0)});
    weir_window_spec w = {.assigner = weir_window_tumbling(1000, 0),
                          .process = window_count,
                          .out_size = 8,
                          .arg = &b};
    weir_stream *win = weir_stream_window(weir_stream_key_by(s, weir_generator_key()), &w);
    cr_assert(weir_sink_discard(win), "%s", weir_job_error(job));
    tu_run_ok(job);
    /* The clock advanced with the records emitted, 1 ms per
     * WEIR__VIRTUAL_RECORDS_PER_MS (the only other moves are the jumps of a
     * job that waits, and this one never does). */
    int64_t end = weir__clock_now(&job->clock);
    weir_job_destroy(job);
    cr_assert_eq(atomic_load(&b.emitted), BUSY_RECORDS);
    cr_assert_eq(atomic_load(&b.counted), BUSY_RECORDS);
    cr_assert_geq(end, BUSY_RECORDS / WEIR__VIRTUAL_RECORDS_PER_MS - 1,
                  "the clock read %lld ms after %d records", (long long)end, BUSY_RECORDS);
    /* 200 s of event time in 1 s windows of 10 keys: about 2 000 results.
     * One watermark interval (200 ms) is 20 000 records, 20 s of event
     * time: all but the last interval's windows fire while the source
     * reads. Before, none did: no watermark left before MAX. */
    int64_t results = atomic_load(&b.results), early = atomic_load(&b.early);
    cr_assert_gt(early, results / 2, "%lld of %lld results came before the end of input",
                 (long long)early, (long long)results);
}
