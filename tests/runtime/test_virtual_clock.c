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
