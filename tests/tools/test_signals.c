/* test_signals.c — SIGINT and SIGTERM stop the `weir` command: the real
 * binary (WEIR_BINARY_DIR/tools/weir) run as a child process.
 *
 * `weir demo` interrupted while a job runs: the job is cancelled, its
 * capture finished with a summary marked cancelled (a whole capture that
 * `weir capture validate` accepts, no .partial), the experiments after it do
 * not run, and the exit status is 130. To interrupt it mid-run without any
 * timing, the test makes the third experiment's capture file a pipe
 * (DIR/lateness.jsonl, which the run writes in place) and reads it
 * itself: opening it meets the demo opening it, and a reader that stops
 * reading holds the run (lossless diagnostics wait for the collector, which
 * waits on the full pipe), so the signal always finds the job running. The
 * test then reads the rest of the capture, as a slow reader would.
 *
 * `weir capture convert` interrupted while it reads its input (a pipe that
 * stays open): exit status 143 for SIGTERM, no output, nothing claimed
 * converted. The test waits for the child's handler to be installed by
 * reading its caught-signal mask in /proc, not by sleeping.
 *
 * Bounded: the child is waited for at most 60 s (then killed, and the test
 * fails), and each test has a Criterion timeout.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "diag/test_diag_support.h"

#define WEIR WEIR_BINARY_DIR "/tools/weir"

/* Starts `weir ARGS...` in dir with stdin from `in` (-1: /dev/null) and
 * stdout, stderr into dir/out.txt, dir/err.txt. */
static pid_t spawn(const char *dir, int in, char *const argv[])
{
    cr_assert(td_exists(WEIR), "%s is missing: build the weir-cli target", WEIR);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(120);
        int out = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int err = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0)
            in = open("/dev/null", O_RDONLY);
        if (out < 0 || err < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
            dup2(err, 2) < 0)
            _exit(121);
        execv(WEIR, argv);
        _exit(122);
    }
    return pid;
}

/* Waits for the child, at most 60 s; its wait status. */
static int wait_bounded(pid_t pid)
{
    int status;
    for (int i = 0; i < 6000; i++) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        cr_assert_neq(r, -1);
        if (r == pid)
            return status;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    cr_assert_fail("weir did not exit within 60 s of the signal");
    return status;
}

/* Reads fd to its end. Caller frees; *len its length. */
static char *read_all(int fd, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    cr_assert_not_null(buf);
    for (;;) {
        if (n == cap) {
            buf = realloc(buf, (cap *= 2) + 1);
            cr_assert_not_null(buf);
        }
        ssize_t k = read(fd, buf + n, cap - n);
        cr_assert_geq(k, 0, "read: %s", strerror(errno));
        if (k == 0)
            break;
        n += (size_t)k;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

Test(signals, sigint_during_weir_demo_cancels_the_job_and_finishes_its_capture, .timeout = 120)
{
    char *dir = td_tmpdir();
    cr_assert_eq(mkfifo(td_path(dir, "lateness.jsonl"), 0600), 0);
    char *argv[] = {"weir", "demo", "--out", ".", NULL};
    pid_t pid = spawn(dir, -1, argv);
    /* meets the demo's open, once the first two experiments are done */
    int fd = open(td_path(dir, "lateness.jsonl"), O_RDONLY);
    cr_assert_geq(fd, 0);
    char first;
    cr_assert_eq(read(fd, &first, 1), 1); /* the run has begun writing */
    cr_assert_eq(kill(pid, SIGINT), 0);
    size_t len;
    char *rest = read_all(fd, &len);
    close(fd);
    int status = wait_bounded(pid);
    cr_assert(WIFEXITED(status), "weir demo was killed by signal %d",
              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    char *err = td_read(td_path(dir, "err.txt"), NULL);
    cr_assert_eq(WEXITSTATUS(status), 130, "exit status %d; stderr:\n%s", WEXITSTATUS(status),
                 err);
    cr_assert(strstr(err, "weir demo: lateness cancelled; its capture ./lateness.jsonl is "
                          "complete, its summary marked cancelled\n"),
              "%s", err);
    cr_assert(strstr(err, "weir demo: stopped by SIGINT\n"), "%s", err);
    free(err);
    /* what the run wrote: a whole capture, its summary marked cancelled */
    FILE *f = fopen(td_path(dir, "got.jsonl"), "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fputc(first, f), first);
    cr_assert_eq(fwrite(rest, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
    cr_assert(len > 0 && rest[len - 1] == '\n');
    rest[len - 1] = '\0';
    const char *last = strrchr(rest, '\n');
    cr_assert_not_null(last);
    json_t *sum = td_json(last + 1);
    cr_assert_str_eq(td_str(sum, "kind"), "summary");
    cr_assert(json_is_true(json_object_get(sum, "cancelled")), "%s", last + 1);
    json_decref(sum);
    free(rest);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' capture validate '%s' > '%s'", WEIR,
             td_path(dir, "got.jsonl"), td_path(dir, "valid.txt"));
    cr_assert_eq(system(cmd), 0, "weir capture validate refused the cancelled capture");
    char *valid = td_read(td_path(dir, "valid.txt"), NULL);
    cr_assert(strstr(valid, "; the run was cancelled, so its counters were not checked\n"), "%s",
              valid);
    free(valid);
    /* nothing after the cancelled experiment, and no report */
    cr_assert(!td_exists(td_path(dir, "report.html")));
    cr_assert(td_exists(td_path(dir, "idle-with-idleness.jsonl")));
    td_rmdir(dir);
}

/* Whether process pid catches signal sig yet (its handlers are installed):
 * the SigCgt mask of /proc/PID/status. */
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

Test(signals, sigterm_during_weir_capture_convert_exits_143, .timeout = 120)
{
    char *dir = td_tmpdir();
    /* one msgpack event on stdin, which stays open: convert waits to read
     * more */
    int in[2];
    cr_assert_eq(pipe2(in, O_CLOEXEC), 0); /* the child keeps only its stdin */
    static const unsigned char ev[] = {0x82, 0xa4, 'k', 'i', 'n', 'd', 0xa3, 'j', 'o', 'b',
                                       0xa1, 't', 0x00};
    cr_assert_eq(write(in[1], ev, sizeof ev), (ssize_t)sizeof ev);
    char *argv[] = {"weir", "capture", "convert", "-", "out.jsonl", NULL};
    pid_t pid = spawn(dir, in[0], argv);
    close(in[0]);
    /* until its handlers are in (bounded: 60 s) */
    int i = 0;
    while (!catches(pid, SIGTERM) && i++ < 6000)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    cr_assert(catches(pid, SIGTERM), "weir never installed its SIGTERM handler");
    cr_assert_eq(kill(pid, SIGTERM), 0);
    /* the end of the input lets it go on if the signal came before it
     * blocked in a read (a read it interrupts returns at once) */
    close(in[1]);
    int status = wait_bounded(pid);
    cr_assert(WIFEXITED(status), "weir capture convert was killed by signal %d",
              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    char *err = td_read(td_path(dir, "err.txt"), NULL);
    char *out = td_read(td_path(dir, "out.txt"), NULL);
    cr_assert_eq(WEXITSTATUS(status), 143, "exit status %d; stderr:\n%s", WEXITSTATUS(status),
                 err);
    cr_assert(strstr(err, "weir capture: stopped by SIGTERM\n"), "%s", err);
    cr_assert_str_empty(out, "it claimed a conversion: %s", out);
    cr_assert(!td_exists(td_path(dir, "out.jsonl")), "a stopped convert wrote its output");
    free(err);
    free(out);
    td_rmdir(dir);
}
