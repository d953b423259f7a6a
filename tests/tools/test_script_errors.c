/* test_script_errors.c — `weir script`'s command line and exit statuses,
 * the parts the golden scripts (tests/scenarios/error_*.weir) cannot reach:
 * they always run a file through the same runner.
 *
 * SCRIPT.md: exit 0 when the script ran; 2 for a malformed script or an
 * invalid operator setting, with `FILE:LINE: what is wrong` on standard
 * error and nothing on standard output (the whole script is checked before
 * anything runs); `-` reads standard input, named <stdin> in messages. The
 * usage (tools/script.c) adds: 1 when the file cannot be opened or read, 2
 * for a wrong command line, 0 for --help. Each case runs the real binary
 * and checks the status and both streams.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/weir_testutil.h"

#define WEIR_BIN WEIR_BINARY_DIR "/tools/weir"

typedef struct result {
    int status;
    char out[4096];
    char err[4096];
} result;

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* Runs `weir ARGS` with `stdin_text` (NULL: /dev/null) on standard input. */
static result run(const char *args, const char *stdin_text)
{
    static int seq;
    char in[128], out[128], err[128], cmd[1024];
    snprintf(in, sizeof in, "/tmp/weir_script_errors_%d_%d.in", (int)getpid(), seq);
    snprintf(out, sizeof out, "/tmp/weir_script_errors_%d_%d.out", (int)getpid(), seq);
    snprintf(err, sizeof err, "/tmp/weir_script_errors_%d_%d.err", (int)getpid(), seq);
    seq++;
    write_file(in, stdin_text ? stdin_text : "");
    snprintf(cmd, sizeof cmd, "'%s' %s < '%s' > '%s' 2> '%s'", WEIR_BIN, args, in, out, err);
    cr_assert_eq(access(WEIR_BIN, X_OK), 0, "%s is not built", WEIR_BIN);
    int st = system(cmd);
    cr_assert(st != -1 && WIFEXITED(st), "'%s' did not exit normally", cmd);
    result r = {.status = WEXITSTATUS(st)};
    tu_slurp(out, r.out, sizeof r.out);
    tu_slurp(err, r.err, sizeof r.err);
    unlink(in);
    unlink(out);
    unlink(err);
    return r;
}

Test(script_cli, stdin_script_runs)
{
    result r = run("script -", "op passthrough inputs=1\nwm 0 7\nend\n");
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert_str_eq(r.out, "wm 7\nwm MAX\n");
    cr_assert_str_eq(r.err, "");
}

Test(script_cli, stdin_errors_are_named_stdin)
{
    result r = run("script -", "op passthrough inputs=1\nwm 0 7\nwm 0 x\n");
    cr_assert_eq(r.status, 2);
    cr_assert_str_eq(r.err, "<stdin>:3: watermark 'x' is not a number (nor MIN or MAX)\n");
    cr_assert_str_eq(r.out, "", "a refused script printed: %s", r.out);
}

/* The whole script is checked first: an error on the last line leaves
 * nothing on standard output, not even what the lines before would print. */
Test(script_cli, nothing_half_done)
{
    result r = run("script -", "op passthrough inputs=2\nwm 0 5\nwm 1 5\nend\nend\n");
    cr_assert_eq(r.status, 2);
    cr_assert_str_eq(r.out, "");
    cr_assert_str_eq(r.err, "<stdin>:5: 'end' after end: the input has ended\n");
}

Test(script_cli, empty_stdin)
{
    result r = run("script -", "");
    cr_assert_eq(r.status, 2);
    cr_assert_str_eq(r.err, "<stdin>:1: no operator: the script has no statement (its first "
                            "statement must be 'op ...')\n");
}

Test(script_cli, missing_file_exits_1)
{
    result r = run("script /nonexistent/weir/script.weir", NULL);
    cr_assert_eq(r.status, 1);
    tu_assert_contains(r.err, "/nonexistent/weir/script.weir", "cannot open");
    cr_assert_str_eq(r.out, "");
}

/* A directory opens but cannot be read: not a malformed script (2) but an
 * unreadable file (1). */
Test(script_cli, unreadable_file_exits_1)
{
    result r = run("script /tmp", NULL);
    cr_assert_eq(r.status, 1, "stderr: %s", r.err);
    tu_assert_contains(r.err, "/tmp", "read error");
}

Test(script_cli, wrong_command_line_exits_2)
{
    result r = run("script", NULL);
    cr_assert_eq(r.status, 2);
    tu_assert_contains(r.err, "usage: weir script FILE|-");
    r = run("script a.weir b.weir", NULL);
    cr_assert_eq(r.status, 2);
    tu_assert_contains(r.err, "usage: weir script FILE|-");
}

Test(script_cli, help_exits_0)
{
    result r = run("script --help", NULL);
    cr_assert_eq(r.status, 0);
    tu_assert_contains(r.out, "usage: weir script FILE|-", "Exit status");
    cr_assert_str_eq(r.err, "");
}

/* A script file with CRLF line ends and trailing comments parses like one
 * with LF ends. */
Test(script_cli, crlf_and_comments)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/weir_script_errors_%d_crlf.weir", (int)getpid());
    write_file(path, "# crlf\r\nop passthrough inputs=1 # one\r\nwm 0 3   # three\r\nend\r\n");
    char args[256];
    snprintf(args, sizeof args, "script '%s'", path);
    result r = run(args, NULL);
    unlink(path);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert_str_eq(r.out, "wm 3\nwm MAX\n");
}
