/* test_sql_fifo.c — `weir sql` reading a table whose 'path' is a FIFO, the
 * real binary (WEIR_BINARY_DIR/tools/weir) run as a child process: SIGTERM
 * while the source waits for a writer that never comes ends it with exit
 * status 143, and SIGINT while a writer that sent rows stays quiet ends it
 * with 130. Before, the source blocked in open()
 * or read() and the signal's cancellation never reached it.
 *
 * No timing decides anything: the test waits for the child's SIGINT and
 * SIGTERM handlers (its caught-signal mask in /proc) and for the FIFO to be
 * open in the child (its /proc/PID/fd; a quiet writer's own open succeeds
 * only then) and, for the quiet writer, for the child to have read what
 * was written (the pipe's FIONREAD is 0). Bounded: each wait is at most 30 s, the child is killed if
 * it does not exit within 60 s of the signal (the test fails), and each
 * test has a Criterion timeout.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>

#include "diag/test_diag_support.h"

#define WEIR WEIR_BINARY_DIR "/tools/weir"

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000}, NULL);
}

/* `weir sql q.sql` in dir, stdout and stderr into dir/out.txt, err.txt. */
static pid_t spawn_sql(const char *dir)
{
    cr_assert(td_exists(WEIR), "%s is missing: build the weir-cli target", WEIR);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(120);
        int out = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int err = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int in = open("/dev/null", O_RDONLY);
        if (out < 0 || err < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
            dup2(err, 2) < 0)
            _exit(121);
        execl(WEIR, "weir", "sql", "q.sql", (char *)NULL);
        _exit(122);
    }
    return pid;
}

/* The child's wait status, within 60 s (else it is killed and the test
 * fails). */
static int wait_bounded(pid_t pid)
{
    int status;
    for (int i = 0; i < 6000; i++) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        cr_assert_neq(r, -1);
        if (r == pid)
            return status;
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    cr_assert_fail("weir sql did not exit within 60 s of the signal");
    return status;
}

/* Whether pid catches sig yet: the SigCgt mask of /proc/PID/status. */
static bool catches(pid_t pid, int sig)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    unsigned long long mask = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "SigCgt: %llx", &mask) == 1)
            break;
    fclose(f);
    return mask & (1ull << (sig - 1));
}

/* Whether pid holds a descriptor open on `path`: /proc/PID/fd. */
static bool holds_open(pid_t pid, const char *path)
{
    char link[64], target[512];
    for (int fd = 0; fd < 256; fd++) {
        snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strcmp(target, path) == 0)
            return true;
    }
    return false;
}

static void write_sql(const char *dir, const char *format)
{
    char sql[512];
    int n = snprintf(sql, sizeof sql,
                     "CREATE TABLE t (id BIGINT, note STRING)\n"
                     "WITH ('connector' = 'filesystem', 'path' = 'in.fifo', 'format' = '%s');\n"
                     "SELECT id, note FROM t;\n", format);
    td_write(td_path(dir, "q.sql"), sql, (size_t)n);
}

static void assert_exit(int status, int want, const char *dir, const char *signame)
{
    cr_assert(WIFEXITED(status), "weir sql was killed by signal %d",
              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    char *err = td_read(td_path(dir, "err.txt"), NULL);
    cr_assert_eq(WEXITSTATUS(status), want, "exit status %d; stderr:\n%s", WEXITSTATUS(status),
                 err);
    char said[64];
    snprintf(said, sizeof said, "weir sql: stopped by %s\n", signame);
    cr_assert(strstr(err, said), "%s", err);
    free(err);
}

Test(sql_fifo, sigterm_while_the_fifo_has_no_writer_exits_143, .timeout = 150)
{
    char *dir = td_tmpdir();
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/in.fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    write_sql(dir, "json");
    pid_t pid = spawn_sql(dir);
    for (int i = 0; i < 3000 && !catches(pid, SIGTERM); i++)
        sleep_ms(10);
    cr_assert(catches(pid, SIGTERM), "weir never installed its SIGTERM handler");
    /* the source has the FIFO open (an open that blocks never gets there:
     * after 30 s the signal goes anyway, and finds it stuck) */
    for (int i = 0; i < 3000 && !holds_open(pid, fifo); i++)
        sleep_ms(10);
    cr_assert_eq(kill(pid, SIGTERM), 0);
    assert_exit(wait_bounded(pid), 143, dir, "SIGTERM");
    td_rmdir(dir);
}

Test(sql_fifo, sigint_while_a_writer_is_quiet_exits_130, .timeout = 150)
{
    char *dir = td_tmpdir();
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/in.fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    write_sql(dir, "csv");
    pid_t pid = spawn_sql(dir);
    /* a non-blocking open for writing succeeds once the reader has it open */
    int wfd = -1;
    for (int i = 0; i < 3000 && wfd < 0; i++) {
        wfd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (wfd < 0)
            sleep_ms(10);
    }
    cr_assert_geq(wfd, 0, "weir sql did not open the FIFO within 30 s");
    static const char rows[] = "1,one\n2,two\n3,thr";
    cr_assert_eq(write(wfd, rows, sizeof rows - 1), (ssize_t)(sizeof rows - 1));
    /* the source has read them (the pipe is empty): it waits for more */
    int left = -1;
    for (int i = 0; i < 3000 && left != 0; i++) {
        cr_assert_eq(ioctl(wfd, FIONREAD, &left), 0);
        if (left != 0)
            sleep_ms(10);
    }
    cr_assert_eq(left, 0, "weir sql did not read the FIFO within 30 s");
    for (int i = 0; i < 3000 && !catches(pid, SIGINT); i++)
        sleep_ms(10);
    cr_assert(catches(pid, SIGINT), "weir never installed its SIGINT handler");
    cr_assert_eq(kill(pid, SIGINT), 0);
    int status = wait_bounded(pid);
    close(wfd);
    assert_exit(status, 130, dir, "SIGINT");
    /* the third row, cut, was not taken for a row */
    char *out = td_read(td_path(dir, "out.txt"), NULL);
    cr_assert_null(strstr(out, "thr"), "%s", out);
    free(out);
    td_rmdir(dir);
}
