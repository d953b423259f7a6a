/* test_source_file.c — weir_source_file (weir/file_source.h) on what is
 * not a tidy small file: lines and CSV rows over the 1 MiB limit, input
 * that never ends a line, FIFOs with no writer and with a writer that goes
 * quiet (the job cancelled while the source waits), a restore whose file
 * shrank since the checkpoint, folders of folders, byte order marks.
 *
 * Each test makes its files (and FIFOs, with mkfifo) in a fresh folder
 * under /tmp. Bounded: the largest file is a few MiB; a wait for the job is
 * at most 30 s (then the test fails), and every test has a timeout.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag/test_diag_support.h"
#include "weir/file_source.h"

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000}, NULL);
}

/* id BIGINT, note STRING, ts TIMESTAMP(3) with a watermark on ts. */
static weir_schema *rows_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("rows");
    weir_schema_column_sql(b, "id", "BIGINT");
    weir_schema_column_sql(b, "note", "STRING");
    weir_schema_column_sql(b, "ts", "TIMESTAMP(3)");
    weir_schema_watermark(b, "ts", "ts");
    weir_schema *s = NULL;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

/* Rows as the callback sink sees them: a count others may read, and each
 * row's text. */
typedef struct seen {
    const weir_schema *schema;
    atomic_int n;
    char rows[64][128];
} seen;

static int on_row(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)subtask;
    seen *s = arg;
    int i = atomic_load(&s->n);
    if (i < 64)
        weir_row_format(s->schema, elem, s->rows[i], sizeof s->rows[i]);
    atomic_store(&s->n, i + 1);
    return 0;
}

/* A job: the file source on `path` into on_row. */
static weir_job *source_job(const weir_schema *sc, const char *path, weir_file_format format,
                            seen *out, const weir_job_config *cfg)
{
    weir_job_config c = {.workers = 1, .diag = {.level = WEIR_DIAG_OFF}};
    weir_job *job = tu_job(cfg ? cfg : &c);
    weir_file_source_config fs = {.name = "in", .path = path, .format = format};
    out->schema = sc;
    cr_assert_not_null(weir_sink_callback(weir_source_file(job, sc, &fs), on_row, out), "%s",
                       weir_job_error(job));
    return job;
}

/* Runs the job on `path` to its end: its result, its message in why. */
static int run_source(const char *path, weir_file_format format, seen *out, char *why,
                      size_t size)
{
    weir_schema *sc = rows_schema();
    weir_job *job = source_job(sc, path, format, out, NULL);
    int r = weir_job_run(job);
    snprintf(why, size, "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_schema_destroy(sc);
    return r;
}

/* The job on rn's thread has ended within 30 s: else the test fails (the
 * job's thread is left behind; the process ends with the test). */
static void wait_ended(tu_runner *rn)
{
    for (int i = 0; i < 3000 && !atomic_load(&rn->done); i++)
        sleep_ms(10);
    cr_assert(atomic_load(&rn->done), "the job did not end within 30 s of its cancellation");
    pthread_join(rn->thread, NULL);
}

/* Whether this process holds a descriptor open on `path` (its source
 * opened it): /proc/self/fd, no timing. */
static bool have_open(const char *path)
{
    char link[64], target[512];
    for (int fd = 0; fd < 1024; fd++) {
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strcmp(target, path) == 0)
            return true;
    }
    return false;
}

/* ---- the line limit ---------------------------------------------------------------- */

/* A file whose second line is `big` bytes of 'x' (no line break inside). */
static void write_with_long_line(const char *path, const char *first, size_t big,
                                 const char *last)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs(first, f);
    for (size_t i = 0; i < big; i++)
        fputc('x', f);
    fputc('\n', f);
    fputs(last, f);
    cr_assert_eq(fclose(f), 0);
}

Test(source_file, a_line_over_the_limit_fails_the_job_at_its_line, .timeout = 60)
{
    char *dir = td_tmpdir();
    char why[1024];
    const char *json = td_path(dir, "in.json");
    write_with_long_line(json, "{\"id\": 1, \"ts\": \"2024-01-01 00:00:00\"}\n", 3u << 20,
                         "{\"id\": 3, \"ts\": \"2024-01-01 00:00:01\"}\n");
    seen *s = calloc(1, sizeof *s);
    cr_assert_eq(run_source(json, WEIR_FILE_JSON, s, why, sizeof why), WEIR_EFORMAT, "%s", why);
    tu_assert_contains(why, "in.json:2: a line longer than 1048576 bytes");
    /* a line of exactly the limit is read (and is not JSON), at its line */
    write_with_long_line(json, "{\"id\": 1, \"ts\": \"2024-01-01 00:00:00\"}\n", 1u << 20, "");
    memset(s, 0, sizeof *s);
    cr_assert_eq(run_source(json, WEIR_FILE_JSON, s, why, sizeof why), WEIR_EFORMAT, "%s", why);
    tu_assert_contains(why, "in.json:2: not JSON");
    const char *csv = td_path(dir, "in.csv");
    write_with_long_line(csv, "1,a,2024-01-01 00:00:00\n", 2u << 20, "3,c,2024-01-01 00:00:01\n");
    memset(s, 0, sizeof *s);
    cr_assert_eq(run_source(csv, WEIR_FILE_CSV, s, why, sizeof why), WEIR_EFORMAT, "%s", why);
    tu_assert_contains(why, "in.csv:2: a line longer than 1048576 bytes");
    free(s);
    td_rmdir(dir);
}

/* A quoted CSV field that goes on over many short lines: the row is bounded
 * as a line is, and the failure names the line where the row began (the
 * old reader gave libcsv the whole field first). */
Test(source_file, a_quoted_csv_field_over_the_limit_fails_at_its_row, .timeout = 60)
{
    char *dir = td_tmpdir();
    const char *csv = td_path(dir, "in.csv");
    FILE *f = fopen(csv, "wb");
    cr_assert_not_null(f);
    fputs("1,a,2024-01-01 00:00:00\n2,\"starts here\n", f);
    for (int i = 0; i < 40000; i++) /* 40 000 lines of 64 bytes: 2.5 MiB */
        fprintf(f, "%063d\n", i);
    fputs("ends\",2024-01-01 00:00:01\n3,c,2024-01-01 00:00:02\n", f);
    cr_assert_eq(fclose(f), 0);
    seen *s = calloc(1, sizeof *s);
    char why[1024];
    cr_assert_eq(run_source(csv, WEIR_FILE_CSV, s, why, sizeof why), WEIR_EFORMAT, "%s", why);
    tu_assert_contains(why, "in.csv:2: a CSV row longer than 1048576 bytes (lines 2 to ");
    free(s);
    td_rmdir(dir);
}

/* A writer that sends bytes with no line break until the reader goes away
 * (or 64 MiB), as /dev/zero would: how much it wrote. */
typedef struct endless {
    const char *path;
    size_t written;
} endless;

static void *write_endless(void *arg)
{
    endless *e = arg;
    int fd = open(e->path, O_WRONLY); /* waits for the reader */
    if (fd < 0)
        return NULL;
    static char zeros[1 << 16];
    while (e->written < (64u << 20)) {
        ssize_t n = write(fd, zeros, sizeof zeros);
        if (n <= 0)
            break; /* EPIPE: the reader closed it */
        e->written += (size_t)n;
    }
    close(fd);
    return NULL;
}

Test(source_file, endless_input_stops_at_the_limit, .timeout = 60)
{
    signal(SIGPIPE, SIG_IGN);
    char *dir = td_tmpdir();
    const char *fifo = td_path(dir, "zeros");
    cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
    endless e = {.path = fifo};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, write_endless, &e), 0);
    seen *s = calloc(1, sizeof *s);
    char why[1024];
    int r = run_source(fifo, WEIR_FILE_JSON, s, why, sizeof why);
    pthread_join(t, NULL);
    cr_assert_eq(r, WEIR_EFORMAT, "%s", why);
    tu_assert_contains(why, "zeros:1: a line longer than 1048576 bytes");
    /* the limit, a chunk and what the pipe held: nowhere near 64 MiB */
    cr_assert_lt(e.written, 4u << 20, "the writer got %zu bytes in before the source stopped",
                 e.written);
    cr_assert_eq(atomic_load(&s->n), 0);
    free(s);
    td_rmdir(dir);
}

/* ---- FIFOs and cancellation -------------------------------------------------------- */

/* A FIFO nobody writes to: opening it does not block the source, and
 * weir_job_cancel ends the job while the source waits for a writer. */
Test(source_file, a_fifo_with_no_writer_is_cancelled, .timeout = 90)
{
    char *dir = td_tmpdir();
    const char *fifo = td_path(dir, "in.json");
    cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
    weir_schema *sc = rows_schema();
    seen *s = calloc(1, sizeof *s);
    weir_job *job = source_job(sc, fifo, WEIR_FILE_JSON, s, NULL);
    tu_runner rn;
    tu_runner_start(&rn, job);
    /* the source has it open (at most 10 s: an open that blocks never
     * gets there, and the cancel below then finds it stuck) */
    for (int i = 0; i < 1000 && !have_open(fifo); i++)
        sleep_ms(10);
    cr_assert_eq(weir_job_cancel(job), 0);
    wait_ended(&rn);
    cr_assert_eq(rn.result, WEIR_ECANCELED, "%s", weir_job_error(job));
    cr_assert_eq(atomic_load(&s->n), 0);
    weir_job_destroy(job);
    weir_schema_destroy(sc);
    free(s);
    td_rmdir(dir);
}

/* A writer that sent three rows and went quiet, its end still open: the
 * rows reach the sink while the source waits (on the virtual clock, which
 * does not move meanwhile), and cancelling ends the wait. */
Test(source_file, a_quiet_writer_is_cancelled_after_its_rows_arrived, .timeout = 90)
{
    char *dir = td_tmpdir();
    const char *fifo = td_path(dir, "in.csv");
    cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
    weir_schema *sc = rows_schema();
    seen *s = calloc(1, sizeof *s);
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                           .diag = {.level = WEIR_DIAG_OFF}};
    weir_job *job = source_job(sc, fifo, WEIR_FILE_CSV, s, &cfg);
    tu_runner rn;
    tu_runner_start(&rn, job);
    /* a non-blocking open for writing succeeds once the reader has it open */
    int wfd = -1;
    for (int i = 0; i < 3000 && wfd < 0; i++) {
        wfd = open(fifo, O_WRONLY | O_NONBLOCK);
        if (wfd < 0)
            sleep_ms(10);
    }
    cr_assert_geq(wfd, 0, "the source did not open the FIFO within 30 s");
    const char rows[] = "1,a,2024-01-01 00:00:00\n2,b,2024-01-01 00:00:01\n"
                        "3,\"c\nc\",2024-01-01 00:00:02\n4,\"half a quoted";
    cr_assert_eq(write(wfd, rows, sizeof rows - 1), (ssize_t)(sizeof rows - 1));
    for (int i = 0; i < 3000 && atomic_load(&s->n) < 3; i++)
        sleep_ms(10);
    cr_assert_eq(atomic_load(&s->n), 3, "the rows read before the writer went quiet did not "
                                        "reach the sink");
    cr_assert_str_eq(s->rows[2], "+I[3, c\nc, 2024-01-01 00:00:02.000]");
    cr_assert_eq(weir_job_cancel(job), 0);
    wait_ended(&rn);
    cr_assert_eq(rn.result, WEIR_ECANCELED, "%s", weir_job_error(job));
    close(wfd);
    weir_job_destroy(job);
    weir_schema_destroy(sc);
    free(s);
    td_rmdir(dir);
}

/* A FIFO read to its end: rows written in pieces (a line cut between two
 * writes), then the writer closes: every row, and the job ends by itself. */
static void *write_in_pieces(void *arg)
{
    const char *fifo = arg;
    int fd = open(fifo, O_WRONLY);
    if (fd < 0)
        return NULL;
    const char *pieces[] = {"{\"id\": 1, \"note\": \"a\"}\n{\"id\": 2, ", "\"note\": \"b\"}\n",
                            "{\"id\": 3, \"note\": \"c\"}"};
    for (int i = 0; i < 3; i++) {
        if (write(fd, pieces[i], strlen(pieces[i])) < 0)
            break;
        sleep_ms(20);
    }
    close(fd);
    return NULL;
}

Test(source_file, a_fifo_is_read_to_its_writers_end, .timeout = 60)
{
    char *dir = td_tmpdir();
    const char *fifo = td_path(dir, "in.json");
    cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, write_in_pieces, (void *)fifo), 0);
    seen *s = calloc(1, sizeof *s);
    char why[1024];
    cr_assert_eq(run_source(fifo, WEIR_FILE_JSON, s, why, sizeof why), 0, "%s", why);
    pthread_join(t, NULL);
    cr_assert_eq(atomic_load(&s->n), 3);
    cr_assert_str_eq(s->rows[1], "+I[2, b, null]");
    cr_assert_str_eq(s->rows[2], "+I[3, c, null]");
    free(s);
    td_rmdir(dir);
}

/* ---- restore ----------------------------------------------------------------------- */

/* Paced by rowtime (one row a second of the system clock): a savepoint
 * taken once the first row arrived holds a position inside the file. */
static weir_job *paced_job(const weir_schema *sc, const char *in, const char *chk,
                           const char *restore, seen *out)
{
    weir_job_config cfg = {.workers = 2,
                           .diag = {.level = WEIR_DIAG_OFF},
                           .checkpoint = {.dir = chk, .restore_from = restore}};
    weir_job *job = tu_job(&cfg);
    weir_file_source_config fs = {.name = "in", .path = in, .format = WEIR_FILE_CSV, .speed = 1};
    out->schema = sc;
    cr_assert_not_null(weir_sink_callback(weir_source_file(job, sc, &fs), on_row, out), "%s",
                       weir_job_error(job));
    return job;
}

Test(source_file, a_restore_from_a_file_that_shrank_is_refused, .timeout = 60)
{
    char *dir = td_tmpdir();
    char in[512], chk[512], sp[512];
    snprintf(in, sizeof in, "%s/in.csv", dir);
    snprintf(chk, sizeof chk, "%s/chk", dir);
    snprintf(sp, sizeof sp, "%s/sp", dir);
    char text[4096];
    size_t len = 0;
    for (int i = 0; i < 60; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%d,row %d,2024-01-01 00:%02d:%02d\n",
                                i, i, i / 60, i % 60);
    td_write(in, text, len);
    weir_schema *sc = rows_schema();
    seen *s = calloc(1, sizeof *s);
    tu_runner rn;
    tu_runner_start(&rn, paced_job(sc, in, chk, NULL, s));
    for (int i = 0; i < 3000 && atomic_load(&s->n) < 1; i++)
        sleep_ms(10);
    cr_assert_geq(atomic_load(&s->n), 1);
    tu_runner_stop_with_savepoint(&rn, sp);
    int got = atomic_load(&s->n);
    cr_assert_lt(got, 60);
    weir_job_destroy(rn.job);
    /* the file is cut to its first 10 bytes, inside its first row */
    td_write(in, text, 10);
    memset(s, 0, sizeof *s);
    weir_job *job = paced_job(sc, in, NULL, sp, s);
    cr_assert_eq(weir_job_run(job), WEIR_EINVAL, "%s", weir_job_error(job));
    char want[256];
    snprintf(want, sizeof want, "in.csv: restore: the file is 10 bytes, shorter than the "
             "checkpoint's position (byte ");
    tu_assert_contains(weir_job_error(job), want);
    tu_assert_contains(weir_job_error(job), "it was changed since the checkpoint");
    cr_assert_eq(atomic_load(&s->n), 0);
    weir_job_destroy(job);
    weir_schema_destroy(sc);
    free(s);
    td_rmdir(dir);
}

/* ---- folders ----------------------------------------------------------------------- */

/* Which subtask read each id (ids 1..8). */
typedef struct by_subtask {
    const weir_schema *schema;
    atomic_int of[9];
} by_subtask;

static int note_subtask(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    by_subtask *b = arg;
    int64_t id = weir_row_get_int(b->schema, elem, 0);
    if (id >= 1 && id <= 8)
        atomic_store(&b->of[id], subtask + 1);
    return 0;
}

static void write_row(const char *dir, const char *name, int id)
{
    char text[64];
    int n = snprintf(text, sizeof text, "{\"id\": %d}\n", id);
    td_write(td_path(dir, name), text, (size_t)n);
}

/* Files in folders of folders are read, one subtask each in path order
 * ('/' before any other byte: a folder's files stay together); names
 * starting with '.' or '_' are hidden with what is under them; a symbolic
 * link that makes a loop is refused. */
Test(source_file, a_folder_is_read_with_its_folders, .timeout = 60)
{
    char *dir = td_tmpdir();
    char top[256];
    snprintf(top, sizeof top, "%s/t", dir);
    cr_assert_eq(mkdir(top, 0700), 0);
    const char *folders[] = {"a", "a/b", "dt=2024-01-01", "_tmp", ".staging", "dt=2024-01-01/_x"};
    for (size_t i = 0; i < sizeof folders / sizeof *folders; i++)
        cr_assert_eq(mkdir(td_path(top, folders[i]), 0700), 0);
    write_row(top, "a/1.json", 1);              /* subtask 0 */
    write_row(top, "a/b/2.json", 2);            /* 1 */
    write_row(top, "a-c.json", 3);              /* 2: after every "a/..." */
    write_row(top, "dt=2024-01-01/p.json", 4);  /* 3 */
    write_row(top, "z.json", 5);                /* 4 */
    write_row(top, "_tmp/6.json", 6);           /* hidden folders and files */
    write_row(top, ".staging/7.json", 7);
    write_row(top, "dt=2024-01-01/_x/8.json", 8);
    write_row(top, "dt=2024-01-01/.p.json.inprogress", 8);
    write_row(top, "_SUCCESS", 8);
    weir_schema *sc = rows_schema();
    by_subtask *b = calloc(1, sizeof *b);
    b->schema = sc;
    weir_job_config cfg = {.workers = 2, .diag = {.level = WEIR_DIAG_OFF}};
    weir_job *job = tu_job(&cfg);
    weir_file_source_config fs = {.name = "in", .path = top, .format = WEIR_FILE_JSON};
    /* the sink at the source's parallelism: chained, subtask for subtask */
    weir_stream *sink = weir_sink_callback(weir_source_file(job, sc, &fs), note_subtask, b);
    cr_assert_not_null(sink, "%s", weir_job_error(job));
    weir_stream_set_parallelism(sink, 5);
    tu_run_ok(job);
    weir_job_destroy(job);
    for (int id = 1; id <= 5; id++)
        cr_assert_eq(atomic_load(&b->of[id]), id, "id %d was read by subtask %d, not %d", id,
                     atomic_load(&b->of[id]) - 1, id - 1);
    for (int id = 6; id <= 8; id++)
        cr_assert_eq(atomic_load(&b->of[id]), 0, "the hidden id %d was read", id);
    /* a link back up: a loop */
    cr_assert_eq(symlink("../..", td_path(top, "a/b/up")), 0);
    job = tu_job(&cfg);
    cr_assert_null(weir_source_file(job, sc, &fs));
    tu_assert_contains(weir_job_error(job), "a folder inside itself (a symbolic link loop)");
    weir_job_destroy(job);
    /* only hidden things: no file */
    char hidden[256];
    snprintf(hidden, sizeof hidden, "%s/h", dir);
    cr_assert_eq(mkdir(hidden, 0700), 0);
    cr_assert_eq(mkdir(td_path(hidden, "_x"), 0700), 0);
    write_row(hidden, "_x/1.json", 1);
    fs.path = hidden;
    job = tu_job(&cfg);
    cr_assert_null(weir_source_file(job, sc, &fs));
    tu_assert_contains(weir_job_error(job), "a folder with no file, in it or in its folders");
    weir_job_destroy(job);
    free(b);
    weir_schema_destroy(sc);
    td_rmdir(dir);
}
