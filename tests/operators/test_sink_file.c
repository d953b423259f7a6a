/* test_sink_file.c — the file sink without checkpoints (weir/file_sink.h):
 * the default formats (JSON lines and CSV of a schema's rows), rolling by
 * size, committed names, the refusals of a bad config. The exactly-once
 * side is tests/runtime/test_checkpoint_recovery.c. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/test_diag_support.h"
#include "support/weir_testutil.h"
#include "weir/file_sink.h"
#include "weir/row.h"

static weir_schema *people(void)
{
    weir_schema_builder *b = weir_schema_builder_create("people");
    weir_schema_column_sql(b, "name", "VARCHAR(20)");
    weir_schema_column_sql(b, "n", "BIGINT");
    weir_schema_column_sql(b, "at", "TIMESTAMP(3)");
    weir_schema_column_sql(b, "ok", "BOOLEAN");
    weir_schema_column_sql(b, "x", "DOUBLE");
    weir_schema *s = NULL;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

/* Three rows: plain, one with a quote, a comma and a NULL, one with a newline. */
static unsigned char *rows(const weir_schema *s)
{
    size_t sz = weir_schema_row_size(s);
    unsigned char *r = calloc(3, sz);
    const char *names[] = {"ann", "b\"o,b", "c\nd"};
    for (int i = 0; i < 3; i++) {
        void *row = r + (size_t)i * sz;
        weir_row_init(s, row, WEIR_ROW_INSERT);
        cr_assert_eq(weir_row_set_string(s, row, 0, names[i], strlen(names[i])), 0);
        cr_assert_eq(weir_row_set_int(s, row, 1, 10 * i - 5), 0);
        cr_assert_eq(weir_row_set_int(s, row, 2, 1000 * i), 0);
        cr_assert_eq(weir_row_set_bool(s, row, 3, i != 1), 0);
        if (i == 1)
            cr_assert_eq(weir_row_set_null(s, row, 4), 0);
        else
            cr_assert_eq(weir_row_set_double(s, row, 4, 0.1 + i), 0);
    }
    return r;
}

/* The committed files' names, sorted, and their contents in that order. */
static char *committed(const char *dir, int *nfiles)
{
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort);
    cr_assert_geq(n, 0);
    size_t cap = 1 << 16, len = 0;
    char *all = calloc(1, cap);
    *nfiles = 0;
    for (int i = 0; i < n; i++) {
        if (list[i]->d_name[0] != '.') {
            size_t l = 0;
            char *t = td_read(td_path(dir, list[i]->d_name), &l);
            cr_assert_lt(len + l, cap);
            memcpy(all + len, t, l);
            len += l;
            free(t);
            (*nfiles)++;
        } else if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
            cr_assert_fail("left behind: %s", list[i]->d_name);
        }
        free(list[i]);
    }
    free(list);
    return all;
}

static void write_rows(const char *dir, bool csv, int64_t roll)
{
    weir_schema *s = people();
    unsigned char *r = rows(s);
    weir_job_config cfg = {.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}};
    weir_job *job = tu_job(&cfg);
    weir_stream *src = weir_source_array(job, r, 3, weir_schema_row_size(s), NULL);
    weir_file_sink_config fc = {.dir = dir, .prefix = "people", .schema = s, .csv = csv,
                                .roll_bytes = roll};
    cr_assert_not_null(weir_sink_file(src, &fc), "%s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
    free(r);
    weir_schema_destroy(s);
}

Test(sink_file, json_lines_of_rows)
{
    char *dir = td_tmpdir();
    write_rows(dir, false, 0);
    int n;
    char *got = committed(dir, &n);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(got,
                     "{\"name\":\"ann\",\"n\":-5,\"at\":\"1970-01-01 00:00:00.000\",\"ok\":true,"
                     "\"x\":0.1}\n"
                     "{\"name\":\"b\\\"o,b\",\"n\":5,\"at\":\"1970-01-01 00:00:01.000\",\"ok\":"
                     "false,\"x\":null}\n"
                     "{\"name\":\"c\\u000ad\",\"n\":15,\"at\":\"1970-01-01 00:00:02.000\",\"ok\":"
                     "true,\"x\":2.1}\n");
    cr_assert(td_exists(td_path(dir, "people-0-0")));
    free(got);
    td_rmdir(dir);
}

Test(sink_file, csv_of_rows_rolled_by_size)
{
    char *dir = td_tmpdir();
    write_rows(dir, true, 10); /* every line is over 10 bytes: one part each */
    int n;
    char *got = committed(dir, &n);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(got, "ann,-5,1970-01-01 00:00:00.000,true,0.1\n"
                          "\"b\"\"o,b\",5,1970-01-01 00:00:01.000,false,\n"
                          "\"c\nd\",15,1970-01-01 00:00:02.000,true,2.1\n");
    cr_assert(td_exists(td_path(dir, "people-0-2")));
    free(got);
    td_rmdir(dir);
}

Test(sink_file, bad_configs_are_refused)
{
    weir_schema *s = people();
    struct {
        weir_file_sink_config c;
        const char *why;
    } cases[] = {
        {{.dir = NULL, .schema = s}, "a config with dir is required"},
        {{.dir = "/tmp/x"}, "a format function or a schema is required"},
        {{.dir = "/tmp/x", .schema = s, .prefix = "a/b"}, "the prefix must be"},
        {{.dir = "/tmp/x", .schema = s, .roll_bytes = -1}, "roll_bytes is negative"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_job *job = tu_job(NULL);
        unsigned char row[512] = {0};
        weir_stream *src = weir_source_array(job, row, 1, weir_schema_row_size(s), NULL);
        cr_assert_null(weir_sink_file(src, &cases[i].c));
        cr_assert(strstr(weir_job_error(job), cases[i].why), "%s", weir_job_error(job));
        weir_job_destroy(job);
    }
    weir_job *job = tu_job(NULL);
    int64_t v = 0;
    weir_file_sink_config c = {.dir = "/tmp/x", .schema = s};
    cr_assert_null(weir_sink_file(weir_source_array(job, &v, 1, sizeof v, NULL), &c));
    cr_assert(strstr(weir_job_error(job), "not rows of the schema"), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_schema_destroy(s);
}

/* The folder is made with its missing parents; one that cannot be made
 * (a file is in the way) fails the run naming what is in the way. */
Test(sink_file, folder_made_with_parents_or_refused_by_name)
{
    char *dir = td_tmpdir();
    char nested[600];
    snprintf(nested, sizeof nested, "%s/a/b/c", dir);
    write_rows(nested, false, 0);
    int n;
    free(committed(nested, &n));
    cr_assert_eq(n, 1);

    char file[600], under[700];
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    snprintf(under, sizeof under, "%s/x/y", file);
    weir_schema *s = people();
    unsigned char *r = rows(s);
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    weir_file_sink_config fc = {.dir = under, .schema = s};
    cr_assert_not_null(weir_sink_file(weir_source_array(job, r, 3, weir_schema_row_size(s), NULL), &fc));
    cr_assert_neq(weir_job_run(job), 0);
    char want[2048];
    snprintf(want, sizeof want, "making %s: %s: Not a directory", under, file);
    cr_assert(strstr(weir_job_error(job), want), "%s", weir_job_error(job));
    weir_job_destroy(job);
    free(r);
    weir_schema_destroy(s);
    td_rmdir(dir);
}
