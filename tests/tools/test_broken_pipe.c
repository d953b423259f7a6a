/* test_broken_pipe.c — output into a pipe whose reader has gone, with
 * SIGPIPE ignored (as a supervisor runs programs): every command of the
 * `weir` tool says it once, as a broken pipe (not "input/output error"),
 * stops, and exits 1.
 *
 * Each case runs the real binary (WEIR_BINARY_DIR/tools/weir) in a child
 * that ignores SIGPIPE before exec (an ignored signal stays ignored across
 * exec), its standard output the write end of a pipe whose read end the test
 * closed before the fork: the first write that reaches the pipe fails with
 * EPIPE. A file OUT given to `weir capture convert` is a FIFO in a temporary
 * folder whose reader takes one byte and closes. Standard error goes to a
 * file the test reads back.
 *
 * Bounded: the child is waited for at most 60 s (then killed, and the test
 * fails).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support/weir_testutil.h"

#define WEIR_BIN WEIR_BINARY_DIR "/tools/weir"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/weir_pipe_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(broken_pipe, .init = make_dir, .fini = remove_dir);

/* Starts weir with SIGPIPE ignored, stdout `out` (-1: a pipe whose reader
 * is closed), stderr DIR/err.txt. */
static pid_t spawn(int out, char *const argv[])
{
    cr_assert(access(WEIR_BIN, X_OK) == 0, "%s is missing: build the weir-cli target", WEIR_BIN);
    int p[2] = {-1, -1};
    if (out < 0) {
        cr_assert_eq(pipe(p), 0);
        close(p[0]); /* the reader has gone */
        out = p[1];
    }
    char err[128];
    snprintf(err, sizeof err, "%s/err.txt", dir);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        struct sigaction sa = {.sa_handler = SIG_IGN};
        sigemptyset(&sa.sa_mask);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int in = open("/dev/null", O_RDONLY);
        if (sigaction(SIGPIPE, &sa, NULL) != 0 || e < 0 || in < 0 || dup2(in, 0) < 0 ||
            dup2(out, 1) < 0 || dup2(e, 2) < 0)
            _exit(121);
        execv(WEIR_BIN, argv);
        _exit(122);
    }
    if (p[1] >= 0)
        close(p[1]);
    return pid;
}

/* Waits for the child, at most 60 s; its exit status. */
static int wait_exit(pid_t pid)
{
    int st;
    for (int i = 0; i < 6000; i++) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        cr_assert_neq(r, -1);
        if (r == pid) {
            cr_assert(WIFEXITED(st), "weir ended by signal %d", WTERMSIG(st));
            return WEXITSTATUS(st);
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    cr_assert_fail("weir did not exit within 60 s");
    return -1;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Exit 1; standard error is one line that names the broken pipe (and, when
 * `what` is not NULL, contains it). */
static void assert_broken_pipe(int status, const char *what)
{
    char path[128], err[8192];
    snprintf(path, sizeof path, "%s/err.txt", dir);
    tu_slurp(path, err, sizeof err);
    cr_assert_eq(status, 1, "exit status %d, expected 1; stderr:\n%s", status, err);
    cr_assert_eq(count(err, strerror(EPIPE)), 1u, "not one '%s' in:\n%s", strerror(EPIPE), err);
    cr_assert_null(strstr(err, "nput/output error"), "stderr:\n%s", err);
    cr_assert_null(strstr(err, "EIO"), "stderr:\n%s", err);
    cr_assert_eq(count(err, "\n"), 1u, "more than one line on stderr:\n%s", err);
    if (what)
        cr_assert_not_null(strstr(err, what), "no '%s' in:\n%s", what, err);
}

static int run(char *const argv[])
{
    return wait_exit(spawn(-1, argv));
}

#define GEN_TABLE(rows)                                                                           \
    "CREATE TABLE g (key BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ("                 \
    "'connector'='datagen','number-of-rows'='" rows "');"

/* The result rows of a query, written by the print sink of the query's job
 * on a worker thread: the job fails at the first row that cannot be
 * written, and says why. */
Test(broken_pipe, sql_result_rows, .timeout = 90)
{
    char *argv[] = {"weir", "sql", "-e", GEN_TABLE("100000") " SELECT * FROM g;", NULL};
    assert_broken_pipe(run(argv), "weir sql: -e: cannot write the results");
}

/* An EXPLAIN: its plan is in stdout's buffer until the exit flushes it. */
Test(broken_pipe, sql_explain, .timeout = 90)
{
    char *argv[] = {"weir", "sql", "-e", GEN_TABLE("10") " EXPLAIN SELECT * FROM g;", NULL};
    assert_broken_pipe(run(argv), "weir sql: cannot write to standard output");
}

/* A script whose output is far larger than a pipe's and stdio's buffers: a
 * write fails while it runs, and the script stops there. */
Test(broken_pipe, script_output, .timeout = 90)
{
    char path[128];
    snprintf(path, sizeof path, "%s/s.weir", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("op passthrough inputs=1\n", f);
    for (int i = 0; i < 20000; i++)
        fprintf(f, "rec 0 %d\n", i);
    fputs("end\n", f);
    cr_assert_eq(fclose(f), 0);
    char *argv[] = {"weir", "script", path, NULL};
    assert_broken_pipe(run(argv), "weir script: cannot write to standard output");
}

/* Makes DIR/cap.msgpack, the capture of a small SQL query. */
static void make_capture(char *path, size_t size)
{
    snprintf(path, size, "%s/cap.msgpack", dir);
    char out[128];
    snprintf(out, sizeof out, "%s/rows.txt", dir);
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0);
    char *argv[] = {"weir", "sql", "--capture", path, "-e",
                    GEN_TABLE("2000") " SELECT key, COUNT(*) FROM g "
                                      "GROUP BY key, TUMBLE(ts, INTERVAL '1' SECOND);",
                    NULL};
    int st = wait_exit(spawn(fd, argv));
    close(fd);
    cr_assert_eq(st, 0, "making the capture failed");
}

Test(broken_pipe, capture_summary, .timeout = 90)
{
    char cap[128];
    make_capture(cap, sizeof cap);
    char *argv[] = {"weir", "capture", "summary", cap, NULL};
    assert_broken_pipe(run(argv), "weir capture");
}

/* `weir capture convert` into a FIFO OUT whose reader takes one byte and
 * closes: the output (about 500 KB) is far larger than what the pipe and
 * stdio's buffer held then. */
static void convert_into_fifo(const char *to, const char *expect)
{
    char cap[128], fifo[128];
    make_capture(cap, sizeof cap);
    snprintf(fifo, sizeof fifo, "%s/out.fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    /* opened first without blocking, so that the writer's open finds it;
     * close-on-exec, or weir would hold a reader of its own output */
    int rd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    cr_assert(rd >= 0);
    char *argv_jsonl[] = {"weir", "capture", "convert", cap, fifo, NULL};
    char *argv_trace[] = {"weir", "capture", "convert", "--to", (char *)to, cap, fifo, NULL};
    char said[128];
    snprintf(said, sizeof said, "%s/said.txt", dir);
    int fd = open(said, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0);
    pid_t pid = spawn(fd, to ? argv_trace : argv_jsonl);
    close(fd);
    struct pollfd p = {.fd = rd, .events = POLLIN};
    cr_assert_eq(poll(&p, 1, 60000), 1, "nothing came into the FIFO within 60 s");
    char b;
    cr_assert_eq(read(rd, &b, 1), 1);
    close(rd);
    assert_broken_pipe(wait_exit(pid), expect);
}

Test(broken_pipe, capture_convert_into_a_fifo, .timeout = 90)
{
    convert_into_fifo(NULL, "out.fifo: cannot write");
}

Test(broken_pipe, capture_convert_chrome_trace_into_a_fifo, .timeout = 90)
{
    convert_into_fifo("chrome-trace", "out.fifo: cannot write");
}
