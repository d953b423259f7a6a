/* test_messages.c — the `weir` command line's error messages echo input
 * (names from a capture, file names, arguments) with every control byte
 * escaped (tools/message.c): raw, a capture or an argument could send
 * terminal escape sequences to whoever reads standard error. The script's
 * own messages are checked in test_script_input.c.
 *
 * Each case runs the real binary directly (no shell, so that the bytes of
 * an argument arrive as they are) and reads back its standard error.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/weir_testutil.h"

#define WEIR_BIN WEIR_BINARY_DIR "/tools/weir"

/* Runs weir with up to three arguments; returns its status and stderr. */
static int run(char *err, size_t errsize, const char *a1, const char *a2, const char *a3)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/weir_messages_%d.err", (int)getpid());
    pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int null = open("/dev/null", O_WRONLY);
        if (fd < 0 || null < 0)
            _exit(126);
        dup2(fd, 2);
        dup2(null, 1);
        execl(WEIR_BIN, "weir", a1, a2, a3, (char *)NULL);
        _exit(127);
    }
    int st;
    cr_assert_eq(waitpid(child, &st, 0), child);
    cr_assert(WIFEXITED(st));
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    size_t n = fread(err, 1, errsize - 1, f);
    err[n] = '\0';
    fclose(f);
    unlink(path);
    return WEXITSTATUS(st);
}

/* An event kind from the capture: JSON's \u001b is a real ESC byte once
 * decoded, and the message names the kind. */
Test(messages, a_name_from_a_capture_is_escaped)
{
    char path[128], err[4096];
    snprintf(path, sizeof path, "/tmp/weir_messages_%d.jsonl", (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("{\"kind\":\"jo\\u001b[31mb\\u009b\"}\n", f);
    fclose(f);
    int st = run(err, sizeof err, "capture", "validate", path);
    unlink(path);
    cr_assert_eq(st, 1, "stderr: %s", err);
    tu_assert_contains(err, ":1: jo\\x1b[31mb\\xc2\\x9b event");
    cr_assert_null(strchr(err, '\x1b'), "a raw ESC in: %s", err);
}

Test(messages, a_file_name_is_escaped)
{
    char err[4096];
    int st = run(err, sizeof err, "capture", "validate", "/nonexistent/a\x1b]0;title\x07");
    cr_assert_eq(st, 1, "stderr: %s", err);
    tu_assert_contains(err, "/nonexistent/a\\x1b]0;title\\x07: ");
    cr_assert_null(strchr(err, '\x1b'), "a raw ESC in: %s", err);
}

Test(messages, an_argument_is_escaped)
{
    char err[4096];
    int st = run(err, sizeof err, "no\x1b[2Jsuch", NULL, NULL);
    cr_assert_eq(st, 2, "stderr: %s", err);
    tu_assert_contains(err, "weir: unknown command 'no\\x1b[2Jsuch'\n");
    st = run(err, sizeof err, "script", "/nonexistent/\r\n.weir", NULL);
    cr_assert_eq(st, 1, "stderr: %s", err);
    tu_assert_contains(err, "/nonexistent/\\r\\n.weir: cannot open");
}
