/* test_sql_capture.c — where `weir sql --capture FILE` and SET
 * 'weir.capture.file' write (the real binary, WEIR_BINARY_DIR/tools/weir):
 * a link is written through and stays a link; a FIFO gets the capture in
 * place (each query's in turn, to one reader), and stays a FIFO; a device (as root, one
 * the test makes with mknod) gets every query's capture in place and no
 * DEV-2 file is made beside it; a folder is refused by name. Every FIFO,
 * link and device is the test's own, in its temporary folder; each `cat`
 * reading a FIFO is bounded by timeout(1). And --serve (docs/LIVE.md): the
 * rows are those of a run without a server; a bad address is refused.
 */
#include <criterion/criterion.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "diag/test_diag_support.h"

#define WEIR WEIR_BINARY_DIR "/tools/weir"

static const char table[] =
    "CREATE TABLE clicks (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3),\n"
    "  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n"
    "WITH ('connector' = 'datagen', 'number-of-rows' = '20', 'keys' = '3',\n"
    "      'rows-per-second' = '10', 'seed' = '7');\n";
static const char query[] =
    "SELECT `key`, COUNT(*) FROM clicks GROUP BY TUMBLE(ts, INTERVAL '1' SECOND), `key`;\n";

/* Writes DIR/q.sql: the table, `set` (may be ""), then `queries` queries. */
static void write_sql(const char *dir, const char *set, int queries)
{
    char text[4096];
    int n = snprintf(text, sizeof text, "%s%s", table, set);
    for (int i = 0; i < queries; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s", query);
    td_write(td_path(dir, "q.sql"), text, (size_t)n);
}

/* Runs the shell command in dir; its exit status (stderr in DIR/err.txt). */
static int sh(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sh(const char *dir, const char *fmt, ...)
{
    char body[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    cr_assert(td_exists(WEIR), "%s is missing: build the weir-cli target", WEIR);
    snprintf(cmd, sizeof cmd, "cd '%s' && { %s ; } >out.txt 2>err.txt", dir, body);
    int st = system(cmd);
    cr_assert(st != -1 && WIFEXITED(st), "%s did not exit normally", body);
    return WEXITSTATUS(st);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0, "%s: %s", path, strerror(errno));
    return st.st_mode;
}

/* How many summary events (whole captures) the JSONL text holds. */
static int summaries(const char *text)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, "\"kind\":\"summary\"")) != NULL; p++)
        n++;
    return n;
}

Test(sql_capture, a_link_is_written_through, .timeout = 60)
{
    char *dir = td_tmpdir();
    write_sql(dir, "", 1);
    td_write(td_path(dir, "target.jsonl"), "old\n", 4);
    cr_assert_eq(symlink("target.jsonl", td_path(dir, "run.jsonl")), 0);
    int st = sh(dir, "'%s' sql --capture '%s/run.jsonl' q.sql", WEIR, dir);
    cr_assert_eq(st, 0, "%s", td_read(td_path(dir, "err.txt"), NULL));
    cr_assert(S_ISLNK(mode_of(td_path(dir, "run.jsonl"))), "the link was replaced by a file");
    char *text = td_read(td_path(dir, "target.jsonl"), NULL);
    cr_assert_eq(summaries(text), 1, "%s", text);
    free(text);
    td_assert_valid(dir, td_path(dir, "target.jsonl"));
    td_rmdir(dir);
}

Test(sql_capture, a_fifo_gets_each_querys_capture_in_place, .timeout = 60)
{
    char *dir = td_tmpdir();
    cr_assert_eq(mkfifo(td_path(dir, "live.jsonl"), 0600), 0);
    /* --capture, one query: a reader of the pipe gets the capture */
    write_sql(dir, "", 1);
    int st = sh(dir,
                "timeout 20 cat live.jsonl > got.jsonl & timeout 20 '%s' sql --capture "
                "'%s/live.jsonl' q.sql; r=$?; wait; exit $r",
                WEIR, dir);
    cr_assert_eq(st, 0, "%s", td_read(td_path(dir, "err.txt"), NULL));
    cr_assert(S_ISFIFO(mode_of(td_path(dir, "live.jsonl"))), "the FIFO was replaced by a file");
    char *text = td_read(td_path(dir, "got.jsonl"), NULL);
    cr_assert_eq(summaries(text), 1, "%s", text);
    free(text);
    cr_assert(!td_exists(td_path(dir, "live.jsonl.partial")));
    /* SET, two queries: the pipe gets both captures, one after the other.
     * The reader holds the FIFO open for reading and writing (fd 3), so it
     * sees no end of file between the queries and reads until the second
     * capture's summary, its last line. Two readers in turn would race: the
     * second query may open the pipe before the first reader has seen the
     * first's end, and its capture then goes to a reader that is leaving. */
    char set[512];
    snprintf(set, sizeof set, "SET 'weir.capture.file' = '%s/live.jsonl';\n", dir);
    write_sql(dir, set, 2);
    static const char reader[] = /* the shell's read takes a pipe a byte at a time */
        "n=0\n"
        "while IFS= read -r line; do\n"
        "  printf '%s\\n' \"$line\"\n"
        "  case $line in *'\"kind\":\"summary\"'*) n=$((n + 1)); [ $n -eq 2 ] && break ;; esac\n"
        "done\n";
    td_write(td_path(dir, "read2.sh"), reader, sizeof reader - 1);
    st = sh(dir,
            "exec 3<>live.jsonl; timeout 20 sh read2.sh <&3 > got2.jsonl & exec 3<&-; "
            "timeout 20 '%s' sql q.sql; r=$?; wait; exit $r",
            WEIR);
    cr_assert_eq(st, 0, "%s", td_read(td_path(dir, "err.txt"), NULL));
    cr_assert(S_ISFIFO(mode_of(td_path(dir, "live.jsonl"))), "the FIFO was replaced by a file");
    text = td_read(td_path(dir, "got2.jsonl"), NULL);
    cr_assert_eq(summaries(text), 2, "%s", text);
    free(text);
    cr_assert(!td_exists(td_path(dir, "live-2.jsonl")));
    td_rmdir(dir);
}

/* SET 'weir.capture.file' = a device (as root, one made here with the null
 * device's numbers; never /dev itself): written in place by every query,
 * still a device afterwards, and no DEV-2 made beside it. */
Test(sql_capture, a_device_is_written_in_place_by_every_query, .timeout = 60)
{
    if (geteuid() != 0) {
        cr_log_warn("not root: no device of the test's own to write to; skipped");
        return;
    }
    char *dir = td_tmpdir();
    cr_assert_eq(mknod(td_path(dir, "null"), S_IFCHR | 0666, makedev(1, 3)), 0, "mknod: %s",
                 strerror(errno));
    char set[512];
    snprintf(set, sizeof set, "SET 'weir.capture.file' = '%s/null';\n", dir);
    write_sql(dir, set, 2);
    int st = sh(dir, "'%s' sql q.sql", WEIR);
    cr_assert_eq(st, 0, "%s", td_read(td_path(dir, "err.txt"), NULL));
    cr_assert(S_ISCHR(mode_of(td_path(dir, "null"))), "the device was replaced by a file");
    cr_assert(!td_exists(td_path(dir, "null-2")));
    cr_assert(!td_exists(td_path(dir, "null.partial")));
    /* --capture too */
    write_sql(dir, "", 1);
    st = sh(dir, "'%s' sql --capture '%s/null' q.sql", WEIR, dir);
    cr_assert_eq(st, 0, "%s", td_read(td_path(dir, "err.txt"), NULL));
    cr_assert(S_ISCHR(mode_of(td_path(dir, "null"))), "the device was replaced by a file");
    td_rmdir(dir);
}

Test(sql_capture, a_folder_is_refused_by_name, .timeout = 60)
{
    char *dir = td_tmpdir();
    char set[512];
    snprintf(set, sizeof set, "SET 'weir.capture.file' = '%s';\n", dir);
    write_sql(dir, set, 1);
    int st = sh(dir, "'%s' sql q.sql", WEIR);
    char *err = td_read(td_path(dir, "err.txt"), NULL);
    cr_assert_eq(st, 1, "%s", err);
    char want[1024];
    snprintf(want, sizeof want, "%s: is a folder, not a regular file: not written", dir);
    cr_assert(strstr(err, want), "%s", err);
    free(err);
    td_rmdir(dir);
}

/* --serve: each query's job serves itself while it runs (docs/LIVE.md) and
 * prints the same rows; a bad address is a usage error. */
Test(sql_capture, serve_leaves_the_rows_as_they_were, .timeout = 60)
{
    char *dir = td_tmpdir();
    write_sql(dir, "", 2);
    cr_assert_eq(sh(dir, "'%s' sql q.sql && mv out.txt plain.txt", WEIR), 0);
    cr_assert_eq(sh(dir, "'%s' sql --serve 127.0.0.1:0 q.sql", WEIR), 0, "%s",
                 td_read(td_path(dir, "err.txt"), NULL));
    char *plain = td_read(td_path(dir, "plain.txt"), NULL);
    char *served = td_read(td_path(dir, "out.txt"), NULL);
    cr_assert_gt(strlen(plain), 10);
    cr_assert_str_eq(served, plain);
    char *err = td_read(td_path(dir, "err.txt"), NULL);
    cr_assert(strstr(err, "weir sql: serving the query's live view on http://127.0.0.1:0/"), "%s",
              err);
    free(plain);
    free(served);
    free(err);
    cr_assert_eq(sh(dir, "'%s' sql --serve 'localhost:port' q.sql", WEIR), 2);
    err = td_read(td_path(dir, "err.txt"), NULL);
    cr_assert(strstr(err, "weir sql: --serve: http_addr: 'localhost:port': the port is not a "
                          "number in 0..65535"),
              "%s", err);
    free(err);
    td_rmdir(dir);
}
