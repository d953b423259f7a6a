/* test_sink_file.c — the file sink without checkpoints (weir/file_sink.h):
 * the default formats (JSON lines and CSV of a schema's rows), rolling by
 * size, committed names (PREFIX-RUN-i-N), the refusals of a bad config, a
 * folder that is a link, and a part's name taken by a link while the part
 * is written (never written through or replaced); buckets (folders under
 * the sink's, more of them than a subtask keeps open), the columns written,
 * the CSV delimiter, success files, and what is refused of a bucket's
 * folder. The exactly-once side is tests/checkpoint/test_checkpoint_recovery.c. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "diag/test_diag_support.h"
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

/* Whether dir holds the committed part N of subtask i, PREFIX-RUN-i-N (RUN
 * the run's 16 hex digits). */
static bool has_part(const char *dir, const char *prefix, int i, int n)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *e;
    bool found = false;
    size_t pl = strlen(prefix);
    while ((e = readdir(d)) != NULL) {
        char run[17];
        int sub = -1, num = -1, end = 0;
        if (strncmp(e->d_name, prefix, pl) == 0 && e->d_name[pl] == '-' &&
            sscanf(e->d_name + pl + 1, "%16[0-9a-f]-%d-%d%n", run, &sub, &num, &end) == 3 &&
            strlen(run) == 16 && e->d_name[pl + 1 + end] == '\0' && sub == i && num == n)
            found = true;
    }
    closedir(d);
    return found;
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
    cr_assert(has_part(dir, "people", 0, 0));
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
    cr_assert(has_part(dir, "people", 0, 2));
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
    snprintf(want, sizeof want, "file sink: %s: cannot create the folder %s: it is a regular file",
             under, file);
    cr_assert(strstr(weir_job_error(job), want), "%s", weir_job_error(job));
    weir_job_destroy(job);
    free(r);
    weir_schema_destroy(s);
    td_rmdir(dir);
}

/* The folder given is a symbolic link (to a link to a folder): the parts go
 * into the folder it names, and the links stay. */
Test(sink_file, a_folder_that_is_a_link_is_written_through)
{
    char *dir = td_tmpdir();
    char real[256], hop[256], link[256];
    snprintf(real, sizeof real, "%s/real", dir);
    snprintf(hop, sizeof hop, "%s/hop", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    cr_assert_eq(mkdir(real, 0755), 0);
    cr_assert_eq(symlink("real", hop), 0);
    cr_assert_eq(symlink("hop", link), 0);
    write_rows(link, true, 0);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
    cr_assert_eq(lstat(hop, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
    cr_assert(has_part(real, "people", 0, 0));
    int n;
    free(committed(real, &n));
    cr_assert_eq(n, 1);
    td_rmdir(dir);
}

/* A folder path that is a FIFO: refused by name at once (never opened). */
Test(sink_file, a_folder_path_that_is_a_fifo_is_refused, .timeout = 30)
{
    char *dir = td_tmpdir();
    char fifo[256];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    weir_schema *s = people();
    unsigned char *r = rows(s);
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    weir_file_sink_config fc = {.dir = fifo, .schema = s};
    cr_assert_not_null(
        weir_sink_file(weir_source_array(job, r, 3, weir_schema_row_size(s), NULL), &fc));
    cr_assert_neq(weir_job_run(job), 0);
    char want[600];
    snprintf(want, sizeof want, "file sink: %s: cannot create the folder %s: it is a FIFO", fifo,
             fifo);
    cr_assert(strstr(weir_job_error(job), want), "%s", weir_job_error(job));
    struct stat st;
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode));
    weir_job_destroy(job);
    free(r);
    weir_schema_destroy(s);
    td_rmdir(dir);
}

static atomic_bool go_on;

/* Passes rows on, and holds its end until go_on: by then the sink has the
 * rows in its part in progress, and has not ended (and committed) yet. */
static int hold_end(weir_ctx *ctx)
{
    (void)ctx;
    while (!atomic_load(&go_on)) {
        struct timespec t = {0, 1000000L};
        nanosleep(&t, NULL);
    }
    return 0;
}

static const weir_operator_vtable hold_end_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = tu_pass_record,
    .on_end = hold_end,
};

/* The name of the part in progress in dir (".people-RUN-0-0.inprogress"),
 * once there is one: waits for it (bounded by the test's timeout). */
static void part_in_progress(const char *dir, char *name, size_t size)
{
    for (;;) {
        DIR *d = opendir(dir);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                size_t l = strlen(e->d_name);
                if (e->d_name[0] == '.' && l > 11 && strcmp(e->d_name + l - 11, ".inprogress") == 0) {
                    snprintf(name, size, "%s", e->d_name);
                    closedir(d);
                    return;
                }
            }
            closedir(d);
        }
        struct timespec t = {0, 1000000L};
        nanosleep(&t, NULL);
    }
}

/* A symbolic link made at a part's committed name while the part is
 * written: the commit never writes through it or replaces it, and the
 * failure says what is there, not that a restore went wrong. */
Test(sink_file, a_link_at_a_parts_name_is_never_replaced, .timeout = 60)
{
    char *dir = td_tmpdir();
    char out[256], victim[256];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    td_write(victim, "keep\n", 5);
    weir_schema *s = people();
    unsigned char *r = rows(s);
    size_t size = weir_schema_row_size(s);
    atomic_store(&go_on, false);
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1, .workers = 2,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    weir_stream *src = weir_source_array(job, r, 3, size, NULL);
    weir_process_spec hold = {.kind = "hold", .vtable = &hold_end_vtable, .out_size = size};
    weir_stream *held = weir_stream_process(src, &hold);
    weir_file_sink_config fc = {.dir = out, .prefix = "people", .schema = s};
    cr_assert_not_null(weir_sink_file(held, &fc), "%s", weir_job_error(job));
    tu_runner rn;
    tu_runner_start(&rn, job);
    char hidden[256], final[512];
    part_in_progress(out, hidden, sizeof hidden);
    /* ".people-RUN-0-0.inprogress" -> "people-RUN-0-0" */
    snprintf(final, sizeof final, "%s/%.*s", out, (int)(strlen(hidden) - 12), hidden + 1);
    cr_assert_eq(symlink(victim, final), 0);
    atomic_store(&go_on, true);
    pthread_join(rn.thread, NULL);
    cr_assert_neq(rn.result, 0, "the commit went over the link");
    char want[1024];
    snprintf(want, sizeof want, "%s: exists already (a symbolic link): not replaced", final);
    cr_assert(strstr(weir_job_error(job), want), "%s", weir_job_error(job));
    cr_assert(!strstr(weir_job_error(job), "restored"), "%s", weir_job_error(job));
    struct stat st;
    cr_assert_eq(lstat(final, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
    char *kept = td_read(victim, NULL);
    cr_assert_str_eq(kept, "keep\n", "the file the link names was written");
    free(kept);
    weir_job_destroy(job);
    free(r);
    weir_schema_destroy(s);
    td_rmdir(dir);
}

/* ---- buckets ------------------------------------------------------------------------- */

typedef struct kv {
    int64_t key, value;
} kv;

static int format_kv(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)ts;
    (void)arg;
    const kv *e = elem;
    return snprintf(buf, size, "%lld %lld", (long long)e->key, (long long)e->value);
}

/* key k goes into "k=K/half=H" (H: k's parity), two levels of folders */
static int bucket_kv(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)ts;
    (void)arg;
    const kv *e = elem;
    return snprintf(buf, size, "k=%lld/half=%lld", (long long)e->key, (long long)(e->key % 2));
}

/* The lines of every committed part under dir, each "FOLDER|LINE" (FOLDER
 * relative to dir, "" for dir), sorted; hidden files (other than `allow`)
 * fail the test. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void tree_lines(const char *dir, const char *rel, const char *allow, char ***lines,
                       size_t *n, size_t *cap)
{
    char path[2048];
    snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char sub[1024], file[3072];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(file, sizeof file, "%s/%s", dir, sub);
        struct stat st;
        cr_assert_eq(lstat(file, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            tree_lines(dir, sub, allow, lines, n, cap);
            continue;
        }
        if (e->d_name[0] == '.' || e->d_name[0] == '_') {
            cr_assert(allow && !strcmp(e->d_name, allow), "left behind: %s", sub);
            continue;
        }
        char *text = td_read(file, NULL);
        for (char *l = text, *nl; (nl = strchr(l, '\n')); l = nl + 1) {
            *nl = '\0';
            if (*n == *cap) {
                *cap = *cap ? 2 * *cap : 256;
                *lines = realloc(*lines, *cap * sizeof **lines);
            }
            char *t = malloc(strlen(rel) + strlen(l) + 2);
            sprintf(t, "%s|%s", rel, l);
            (*lines)[(*n)++] = t;
        }
        free(text);
    }
    closedir(d);
}

static char **committed_tree(const char *dir, const char *allow, size_t *n)
{
    char **lines = NULL;
    size_t cap = 0;
    *n = 0;
    tree_lines(dir, "", allow, &lines, n, &cap);
    if (*n)
        qsort(lines, *n, sizeof *lines, cmp_str);
    return lines;
}

static void free_lines(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

/* Whether the folder dir/rel holds a file named `name`. */
static bool has_file(const char *dir, const char *rel, const char *name)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/%s", dir, rel, name);
    return access(path, F_OK) == 0;
}

/* 600 records over 200 buckets, three rounds of all of them: more buckets
 * than a subtask keeps open (128), so parts are parked as buckets are
 * pushed out of their slots and opened again when they come back; every
 * record lands once, in its own folder, one part a bucket. */
Test(sink_file, buckets_put_records_into_their_folders)
{
    char *dir = td_tmpdir();
    enum { NKEYS = 200, ROUNDS = 3 };
    cr_assert_gt(NKEYS, WEIR_FILE_SINK_OPEN_BUCKETS);
    kv *in = calloc(NKEYS * ROUNDS, sizeof *in);
    for (int i = 0; i < NKEYS * ROUNDS; i++)
        in[i] = (kv){.key = i % NKEYS, .value = i};
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    weir_stream *src = weir_source_array(job, in, NKEYS * ROUNDS, sizeof *in, NULL);
    weir_file_sink_config fc = {.dir = dir, .format = format_kv, .bucket = bucket_kv,
                                .success_file = "_SUCCESS"};
    cr_assert_not_null(weir_sink_file(src, &fc), "%s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
    size_t n = 0;
    char **got = committed_tree(dir, "_SUCCESS", &n);
    cr_assert_eq(n, NKEYS * ROUNDS);
    char **want = calloc(n, sizeof *want);
    for (int i = 0; i < NKEYS * ROUNDS; i++) {
        want[i] = malloc(96);
        snprintf(want[i], 96, "k=%d/half=%d|%d %d", i % NKEYS, i % NKEYS % 2, i % NKEYS, i);
    }
    qsort(want, n, sizeof *want, cmp_str);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(got[i], want[i]);
    /* a bucket pushed out of its slot and taken again goes on with its
     * part (parked, opened again): one part a bucket */
    for (int k = 0; k < NKEYS; k++) {
        char folder[600];
        snprintf(folder, sizeof folder, "%s/k=%d/half=%d", dir, k, k % 2);
        int parts = 0;
        DIR *d = opendir(folder);
        cr_assert_not_null(d);
        for (struct dirent *e; (e = readdir(d)) != NULL;)
            parts += strncmp(e->d_name, "part-", 5) == 0;
        closedir(d);
        cr_assert_eq(parts, 1, "bucket k=%d: %d parts", k, parts);
    }
    /* the success file is in each folder committed into, not above them */
    cr_assert(has_file(dir, "k=7/half=1", "_SUCCESS"));
    cr_assert(!has_file(dir, "k=7", "_SUCCESS"));
    cr_assert(!has_file(dir, ".", "_SUCCESS"));
    free_lines(got, n);
    free_lines(want, n);
    free(in);
    td_rmdir(dir);
}

/* A schema's rows with the columns given, in their order, and a CSV
 * delimiter of ';' (the JSON side writes the same columns by name). */
Test(sink_file, only_the_columns_given_with_the_delimiter_given)
{
    char *dir = td_tmpdir();
    weir_schema *s = people();
    unsigned char *r = rows(s);
    static const int cols[] = {1, 0, 3};
    for (int csv = 0; csv < 2; csv++) {
        char out[600];
        snprintf(out, sizeof out, "%s/%s", dir, csv ? "csv" : "json");
        weir_job *job = tu_job(&(weir_job_config){.parallelism = 1,
                                                  .diag = {.level = WEIR_DIAG_OFF}});
        weir_stream *src = weir_source_array(job, r, 3, weir_schema_row_size(s), NULL);
        weir_file_sink_config fc = {.dir = out, .schema = s, .csv = csv, .csv_delimiter = ';',
                                    .columns = cols, .ncolumns = 3};
        cr_assert_not_null(weir_sink_file(src, &fc), "%s", weir_job_error(job));
        tu_run_ok(job);
        weir_job_destroy(job);
        int n;
        char *got = committed(out, &n);
        cr_assert_str_eq(got, csv ? "-5;ann;true\n5;\"b\"\"o,b\";false\n15;\"c\nd\";true\n"
                                  : "{\"n\":-5,\"name\":\"ann\",\"ok\":true}\n"
                                    "{\"n\":5,\"name\":\"b\\\"o,b\",\"ok\":false}\n"
                                    "{\"n\":15,\"name\":\"c\\u000ad\",\"ok\":true}\n");
        free(got);
    }
    free(r);
    weir_schema_destroy(s);
    td_rmdir(dir);
}

static const char *bad_bucket_name;

static int bucket_named(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)elem;
    (void)ts;
    (void)arg;
    return snprintf(buf, size, "%s", bad_bucket_name);
}

/* A bucket folder that would leave the sink's folder, be hidden from
 * readers, or is too long fails the run, naming it; nothing is written
 * outside the sink's folder. */
Test(sink_file, a_bad_bucket_folder_fails_the_run_naming_it)
{
    static char long_name[WEIR_FILE_SINK_BUCKET_MAX + 10];
    memset(long_name, 'a', sizeof long_name - 1);
    static const struct {
        const char *folder, *why;
    } cases[] = {
        {"../out", "the bucket folder '../out' of a record: a part starts with '.' or '_'"},
        {"a/../../b", "a part starts with '.' or '_'"},
        {"/etc", "an empty part"},
        {"a//b", "an empty part"},
        {"a/", "an empty part"},
        {"_tmp=1", "readers skip such names as hidden"},
        {long_name, "longer than the 1023 a bucket's folder may have"},
    };
    char *dir = td_tmpdir();
    char out[600];
    snprintf(out, sizeof out, "%s/sink", dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bad_bucket_name = cases[i].folder;
        kv one = {1, 1};
        weir_job *job =
            tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
        weir_file_sink_config fc = {.dir = out, .format = format_kv, .bucket = bucket_named};
        cr_assert_not_null(weir_sink_file(weir_source_array(job, &one, 1, sizeof one, NULL), &fc));
        cr_assert_neq(weir_job_run(job), 0, "'%.40s' was taken", cases[i].folder);
        cr_assert(strstr(weir_job_error(job), cases[i].why), "%s", weir_job_error(job));
        weir_job_destroy(job);
    }
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        cr_assert(e->d_name[0] == '.' || !strcmp(e->d_name, "sink"), "made: %s", e->d_name);
    closedir(d);
    td_rmdir(dir);
}

Test(sink_file, bad_bucket_configs_are_refused)
{
    weir_schema *s = people();
    static const int out_of_range[] = {0, 5}, some[] = {0};
    struct {
        weir_file_sink_config c;
        const char *why;
    } cases[] = {
        {{.dir = "/tmp/x", .schema = s, .columns = out_of_range, .ncolumns = 2},
         "a column index out of the schema's range"},
        {{.dir = "/tmp/x", .schema = s, .columns = some, .ncolumns = 0},
         "columns without ncolumns"},
        {{.dir = "/tmp/x", .schema = s, .format = format_kv, .columns = some, .ncolumns = 1},
         "without a format function"},
        {{.dir = "/tmp/x", .schema = s, .csv = true, .csv_delimiter = '"'},
         "the CSV delimiter cannot be a quote"},
        {{.dir = "/tmp/x", .schema = s, .success_file = "a/_SUCCESS"},
         "the success file's name"},
        {{.dir = "/tmp/x", .schema = s, .success_file = ".ok"}, "not starting with '.'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_job *job = tu_job(NULL);
        unsigned char row[512] = {0};
        weir_stream *src = weir_source_array(job, row, 1, weir_schema_row_size(s), NULL);
        cr_assert_null(weir_sink_file(src, &cases[i].c));
        cr_assert(strstr(weir_job_error(job), cases[i].why), "%s", weir_job_error(job));
        weir_job_destroy(job);
    }
    weir_schema_destroy(s);
}
