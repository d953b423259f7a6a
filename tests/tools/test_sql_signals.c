/* test_sql_signals.c — SIGINT and SIGTERM stop `weir sql` while it plans
 * (the real binary, WEIR_BINARY_DIR/tools/weir, run as a child process, as
 * test_signals.c runs the others).
 *
 * The file: 40 000 EXPLAINs of a view whose plan has some 40 nodes, over ten
 * seconds of planning and nothing else (EXPLAIN runs no job). The test
 * waits for the first plans in the output (planning has begun), signals,
 * and checks that the command stopped with 130 (143) before the next
 * statements: far fewer plans than statements in its output. Before
 * weir_sql_cancel, the signal was seen only when every statement had been
 * planned, all 40 000 plans printed. No timing is asserted: the run has
 * seconds of work left when the signal comes, and the child is
 * waited for at most 60 s (then killed, and the test fails).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WEIR WEIR_BINARY_DIR "/tools/weir"
#define STATEMENTS 40000

static void sleep_ms(long ms)
{
    nanosleep(&(struct timespec){0, ms * 1000 * 1000}, NULL);
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
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    cr_assert_fail("weir sql did not exit within 60 s of the signal");
    return status;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

/* The number of lines of `path` that start with `prefix`. */
static long count_lines(const char *path, const char *prefix)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[4096];
    long n = 0;
    while (fgets(line, sizeof line, f))
        n += strncmp(line, prefix, strlen(prefix)) == 0;
    fclose(f);
    return n;
}

static void stop_while_planning(int sig, int want)
{
    char dir[] = "/tmp/weir-sql-signal-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char sql[600], out[600], err[600];
    snprintf(sql, sizeof sql, "%s/plans.sql", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    FILE *f = fopen(sql, "w");
    cr_assert_not_null(f);
    fprintf(f, "CREATE TABLE clicks (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3),\n"
               "  WATERMARK FOR ts AS ts)\n"
               "WITH ('connector'='datagen', 'number-of-rows'='5', 'seed'='3');\n"
               "CREATE VIEW v0 AS SELECT `key`, `value` FROM clicks WHERE `value` > 1;\n");
    for (int i = 1; i <= 3; i++)
        fprintf(f, "CREATE VIEW v%d AS SELECT * FROM v%d UNION ALL SELECT * FROM v%d;\n", i,
                i - 1, i - 1);
    for (int i = 0; i < STATEMENTS; i++)
        fprintf(f, "EXPLAIN SELECT `key` + %d AS k FROM v3;\n", i);
    cr_assert_eq(fclose(f), 0);

    cr_assert_eq(access(WEIR, X_OK), 0, "%s is missing: build the weir-cli target", WEIR);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(121);
        execl(WEIR, "weir", "sql", sql, (char *)NULL);
        _exit(122);
    }
    /* the first plans are out (bounded: 60 s) */
    for (int i = 0; i < 6000 && file_size(out) == 0; i++)
        sleep_ms(10);
    cr_assert_gt(file_size(out), 0, "weir sql printed no plan");
    cr_assert_eq(kill(pid, sig), 0);
    int status = wait_bounded(pid);
    cr_assert(WIFEXITED(status), "weir sql was killed by signal %d",
              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    FILE *ef = fopen(err, "r");
    char msg[512] = "";
    if (ef) {
        size_t n = fread(msg, 1, sizeof msg - 1, ef);
        msg[n] = '\0';
        fclose(ef);
    }
    cr_assert_eq(WEXITSTATUS(status), want, "exit status %d; stderr:\n%s", WEXITSTATUS(status),
                 msg);
    char stopped[64];
    snprintf(stopped, sizeof stopped, "weir sql: stopped by %s\n",
             sig == SIGINT ? "SIGINT" : "SIGTERM");
    cr_assert_str_eq(msg, stopped);
    /* each plan starts with its Calc(select=[...]) line */
    long plans = count_lines(out, "Calc(select=[`key` + ");
    cr_assert_gt(plans, 0);
    cr_assert_lt(plans, STATEMENTS, "every statement was planned after the signal");
    unlink(sql);
    unlink(out);
    unlink(err);
    rmdir(dir);
}

Test(sql_signals, sigint_while_planning_stops_before_the_next_statement, .timeout = 120)
{
    stop_while_planning(SIGINT, 130);
}

Test(sql_signals, sigterm_while_planning_exits_143, .timeout = 120)
{
    stop_while_planning(SIGTERM, 143);
}
