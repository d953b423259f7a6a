/* test_source_file_oom.c — the file source's memory: a failed allocation
 * while it reads (the line buffer growing for a long line, jansson's
 * objects, libcsv's field, the buffers of open) is an error of the run,
 * never the end of the file; and a line or a CSV row over the 1 MiB limit
 * is refused without a buffer that grows with it.
 *
 * The test binary puts its own allocator in front of the C library's
 * (support/alloc_fail.h): it fails exactly the N-th allocation of a run,
 * for every N until a run makes fewer than N, and every run must then
 * either read every row (status 0) or fail with "out of memory", leaking
 * nothing. The old reader (getline) took a failed allocation in the middle
 * of a long line for the end of the file: exit 0 without the rows after it.
 * The same allocator keeps the largest single request, which the limit
 * tests bound.
 *
 * Not built under the sanitizers (tests/CMakeLists.txt leaves every
 * test_*_oom.c out): ASan and TSan own malloc there. Bounds: one worker, a
 * file of five lines, a few hundred allocations a run; MAX_N and the
 * timeout bound the loop.
 */
#include <criterion/criterion.h>
#include <limits.h>

#include "diag/test_diag_support.h"
#include "support/alloc_fail.h"
#include "weir/file_source.h"

#define MAX_N 20000

static weir_schema *rows_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("rows");
    weir_schema_column_sql(b, "id", "BIGINT");
    weir_schema_column_sql(b, "note", "VARCHAR(400)");
    weir_schema *s = NULL;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

static int count_row(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem;
    (void)ts;
    (void)subtask;
    (*(int *)arg)++;
    return 0;
}

/* The source on `path` into count_row, with the n-th allocation of the run
 * failing (0: none). Its result; its message in why, the rows in *rows,
 * the allocations it made in *made. */
static int run_once(const weir_schema *sc, const char *path, weir_file_format format, long n,
                    int *rows, long *made, char *why, size_t size)
{
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                           .diag = {.level = WEIR_DIAG_OFF}};
    weir_job *job = tu_job(&cfg);
    weir_file_source_config fs = {.name = "in", .path = path, .format = format};
    *rows = 0;
    cr_assert_not_null(weir_sink_callback(weir_source_file(job, sc, &fs), count_row, rows), "%s",
                       weir_job_error(job));
    af_arm(n ? n : LONG_MAX);
    int r = weir_job_run(job);
    *made = af_disarm();
    snprintf(why, size, "%s", weir_job_error(job));
    weir_job_destroy(job);
    return r;
}

/* A line of `pad` bytes in the middle: read whole or failed, for every
 * allocation that can fail. */
static void every_failure(const char *path, weir_file_format format, int want_rows)
{
    weir_schema *sc = rows_schema();
    /* A whole run first: what the C library makes once and keeps (a
     * worker thread's first start) is not counted as a run's leak. */
    char why[1024];
    int rows;
    long made;
    cr_assert_eq(run_once(sc, path, format, 0, &rows, &made, why, sizeof why), 0, "%s", why);
    cr_assert_eq(rows, want_rows);
    long failed = 0, n;
    for (n = 1; n <= MAX_N; n++) {
        long live = af_live_blocks();
        int r = run_once(sc, path, format, n, &rows, &made, why, sizeof why);
        cr_assert_eq(af_live_blocks(), live, "allocation %ld failed: %ld blocks leaked (%s)", n,
                     af_live_blocks() - live, r ? why : "the run succeeded");
        if (r == 0) {
            cr_assert_eq(rows, want_rows, "allocation %ld failed, yet the run read %d of the %d "
                         "rows and succeeded", n, rows, want_rows);
        } else {
            failed++;
            cr_assert(strstr(why, "out of memory") || r == WEIR_ENOMEM,
                      "allocation %ld failed: the run failed with %s: %s", n, weir_err_name(r),
                      why);
        }
        if (made < n)
            break; /* the run made fewer allocations: every one has failed once */
    }
    cr_assert_leq(n, MAX_N, "more than %d allocations in one small run", MAX_N);
    cr_assert_gt(failed, 10, "only %ld runs failed: the allocator is not interposed", failed);
    cr_log_info("%ld runs, %ld failed with out of memory", n, failed);
    weir_schema_destroy(sc);
}

Test(source_file_oom, a_failed_allocation_mid_line_is_an_error_not_the_end, .timeout = 240)
{
    char *dir = td_tmpdir();
    const char *json = td_path(dir, "in.json");
    FILE *f = fopen(json, "wb");
    cr_assert_not_null(f);
    fputs("{\"id\": 1, \"note\": \"a\"}\n{\"id\": 2, \"pad\": \"", f);
    for (int i = 0; i < 600000; i++) /* a 600 kB line: the line buffer grows */
        fputc('p', f);
    fputs("\"}\n{\"id\": 3, \"note\": \"c\"}\n\n{\"id\": 4}\n", f);
    cr_assert_eq(fclose(f), 0);
    every_failure(json, WEIR_FILE_JSON, 4);
    const char *csv = td_path(dir, "in.csv");
    f = fopen(csv, "wb");
    cr_assert_not_null(f);
    fputs("1,a\n2,\"", f);
    for (int i = 0; i < 6; i++) /* a quoted field over lines, past libcsv's first block */
        fputs("a quoted field that goes on\n", f);
    fputs("\"\n3,c\n", f);
    cr_assert_eq(fclose(f), 0);
    every_failure(csv, WEIR_FILE_CSV, 3);
    td_rmdir(dir);
}

/* The largest allocation while the source refuses a line of 6 MiB, or a
 * CSV row of 6 MiB over many lines: the limit and a little, not the line. */
static size_t largest_while_refusing(const char *path, weir_file_format format, const char *want)
{
    weir_schema *sc = rows_schema();
    char why[1024];
    int rows;
    long made;
    af_largest_reset();
    int r = run_once(sc, path, format, 0, &rows, &made, why, sizeof why);
    size_t big = af_largest();
    cr_assert_eq(r, WEIR_EFORMAT, "%s", why);
    tu_assert_contains(why, want);
    weir_schema_destroy(sc);
    return big;
}

Test(source_file_oom, a_line_over_the_limit_is_refused_with_bounded_memory, .timeout = 60)
{
    char *dir = td_tmpdir();
    const char *json = td_path(dir, "in.json");
    FILE *f = fopen(json, "wb");
    cr_assert_not_null(f);
    fputs("{\"id\": 1}\n", f);
    for (int i = 0; i < (6 << 20); i++)
        fputc('x', f);
    fputs("\n{\"id\": 3}\n", f);
    cr_assert_eq(fclose(f), 0);
    size_t big = largest_while_refusing(json, WEIR_FILE_JSON,
                                        "in.json:2: a line longer than 1048576 bytes");
    cr_assert_leq(big, (1u << 20) + 4096, "a buffer of %zu bytes for a line over the limit", big);
    const char *csv = td_path(dir, "in.csv");
    f = fopen(csv, "wb");
    cr_assert_not_null(f);
    fputs("1,a\n2,\"", f);
    for (int i = 0; i < (6 << 20) / 32; i++)
        fputs("a quoted field on many lines..\n", f);
    fputs("\"\n3,c\n", f);
    cr_assert_eq(fclose(f), 0);
    big = largest_while_refusing(csv, WEIR_FILE_CSV, "in.csv:2: a CSV row longer than 1048576");
    cr_assert_leq(big, (1u << 20) + 4096, "a buffer of %zu bytes for a CSV row over the limit",
                  big);
    td_rmdir(dir);
}
