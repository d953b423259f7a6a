/* test_script_input.c — how `weir script` reads its input (SCRIPT.md,
 * tools/script.c): any bytes, of any length, from a file or a pipe.
 *
 * - A NUL byte is an error at its FILE:LINE: nothing before or after it on
 *   the line is dropped or run, and `weir script /dev/zero` ends at once.
 * - The script is streamed: memory does not grow with its length, and a
 *   pipe is run as it is read (a regular file is checked whole first).
 * - The line counter is 64-bit: a message past line 2^31 keeps its line.
 * - What a message echoes from the script is escaped: no terminal control
 *   byte reaches standard error.
 *
 * Each case runs the real binary. Bounds: every child is killed by
 * `timeout` (or a poll deadline) well inside ctest's limit; the longest case
 * streams 2^31 blank lines (a few seconds in Release, well under a minute
 * under the sanitizers).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/weir_testutil.h"

#define WEIR_BIN WEIR_BINARY_DIR "/tools/weir"

typedef struct result {
    int status;
    long maxrss_kb; /* of the shell and everything it waited for */
    char out[8192];
    char err[8192];
} result;

static void write_bytes(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* Runs `sh -c CMD` where CMD may use $IN (a file holding `data`) and $WEIR,
 * with both output streams captured, and waits for exactly that child to
 * get its resource usage. */
static result run_sh(const char *cmd, const char *data, size_t len)
{
    static int seq;
    char in[128], out[128], err[128], full[2048];
    int pid = (int)getpid();
    snprintf(in, sizeof in, "/tmp/weir_script_input_%d_%d.in", pid, seq);
    snprintf(out, sizeof out, "/tmp/weir_script_input_%d_%d.out", pid, seq);
    snprintf(err, sizeof err, "/tmp/weir_script_input_%d_%d.err", pid, seq);
    seq++;
    write_bytes(in, data, len);
    cr_assert_eq(access(WEIR_BIN, X_OK), 0, "%s is not built", WEIR_BIN);
    snprintf(full, sizeof full, "IN='%s' WEIR='%s'; (%s) > '%s' 2> '%s'", in, WEIR_BIN, cmd, out,
             err);
    pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        execl("/bin/sh", "sh", "-c", full, (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    cr_assert_eq(wait4(child, &st, 0, &ru), child);
    cr_assert(WIFEXITED(st), "'%s' did not exit normally", full);
    result *r = calloc(1, sizeof *r);
    r->status = WEXITSTATUS(st);
    r->maxrss_kb = ru.ru_maxrss;
    tu_slurp(out, r->out, sizeof r->out);
    tu_slurp(err, r->err, sizeof r->err);
    unlink(in);
    unlink(out);
    unlink(err);
    result copy = *r;
    free(r);
    return copy;
}

#define FROM_STDIN "timeout 20 \"$WEIR\" script - < \"$IN\""
#define FROM_FILE "timeout 20 \"$WEIR\" script \"$IN\""
#define FROM_PIPE "cat \"$IN\" | timeout 20 \"$WEIR\" script -"

/* The script `s` (a string literal: its NULs count) run by `how` is refused
 * with status 2, standard error `err` (a file's path written SCRIPT) and
 * standard output `out`. */
#define refused(how, s, out, err) check_refused(how, s, sizeof s - 1, out, err)

static void check_refused(const char *how, const char *s, size_t len, const char *out,
                          const char *err)
{
    result r = run_sh(how, s, len);
    cr_assert_eq(r.status, 2, "stderr: %s", r.err);
    const char *e = r.err;
    if (strncmp(err, "SCRIPT:", 7) == 0) {
        cr_assert(strncmp(e, "/tmp/", 5) == 0 && strchr(e, ':'), "stderr: %s", e);
        cr_assert_str_eq(strchr(e, ':'), err + strlen("SCRIPT"));
    } else {
        cr_assert_str_eq(e, err);
    }
    cr_assert_str_eq(r.out, out);
}

/* ---- NUL bytes ------------------------------------------------------------ */

/* `op passthrough\0 inputs=3` used to declare one channel: the text after
 * the NUL was dropped. */
Test(script_input, nul_in_the_op_line)
{
    refused(FROM_STDIN, "op passthrough\0 inputs=3\nrec 2 1\nend\n", "",
            "<stdin>:1: a NUL byte at column 15 (a script is text)\n");
}

/* A NUL used to end the line for the parser and start a new one for the
 * reader: the `rec` hidden after it ran. */
Test(script_input, nothing_hidden_after_a_nul_runs)
{
    refused(FROM_FILE, "op passthrough\nrec 0 1\0rec 0 2\nend\n", "",
            "SCRIPT:2: a NUL byte at column 8 (a script is text)\n");
}

/* A NUL also defeated the 4096-character limit (the rest of the long line
 * was parsed as a line of its own). */
Test(script_input, a_nul_does_not_split_a_long_line)
{
    char s[6000];
    int n = snprintf(s, sizeof s, "op passthrough\n#");
    s[n++] = '\0';
    memset(s + n, 'x', 4500);
    n += 4500;
    n += snprintf(s + n, sizeof s - (size_t)n, "\nend\n");
    check_refused(FROM_STDIN, s, (size_t)n, "", "<stdin>:2: a NUL byte at column 2 (a script is "
                                                "text)\n");
}

/* Lines are counted by their newlines, NULs or not; through a pipe the
 * lines before the bad one have run (SCRIPT.md: a pipe is run as read). */
Test(script_input, the_line_of_a_nul_through_a_pipe)
{
    refused(FROM_PIPE, "op passthrough\nwm 0 1\n\n# c\n  \0\nwm 0 2\n", "wm 1\n",
            "<stdin>:5: a NUL byte at column 3 (a script is text)\n");
}

/* An endless stream of NULs: the first is the error (it used to read
 * forever). `timeout` would make it 124. */
Test(script_input, dev_zero_ends)
{
    refused("timeout 20 \"$WEIR\" script /dev/zero", "", "",
            "/dev/zero:1: a NUL byte at column 1 (a script is text)\n");
}

/* ---- streaming ------------------------------------------------------------ */

/* The script is not kept: a million-line script peaks at the same memory
 * as a thousand-line one (it used to keep every command, ~100 bytes each,
 * so about 100 MB more here). */
Test(script_input, memory_does_not_grow_with_the_script)
{
#define LINES_CMD(n)                                                                        \
    "{ echo 'op passthrough inputs=1'; yes 'rec 0 5 key=abc value=7' | head -n " #n "; "     \
    "echo end; } | timeout 120 \"$WEIR\" script - | tail -n 1"
    const char *cmd = LINES_CMD(1000);
    result small = run_sh(cmd, "", 0);
    cr_assert_eq(small.status, 0, "stderr: %s", small.err);
    cr_assert_str_eq(small.out, "wm MAX\n");
    cmd = LINES_CMD(1000000);
    result big = run_sh(cmd, "", 0);
    cr_assert_eq(big.status, 0, "stderr: %s", big.err);
    cr_assert_str_eq(big.out, "wm MAX\n");
    cr_assert_lt(big.maxrss_kb, small.maxrss_kb + 16 * 1024,
                 "1000 lines peaked at %ld kB, 1 000 000 lines at %ld kB", small.maxrss_kb,
                 big.maxrss_kb);
}

/* Through a pipe a malformed line stops the script where it is: the lines
 * before it have run and printed (they used to be held back until the whole
 * script was read). SCRIPT.md: a pipe cannot be read twice. */
Test(script_input, a_pipe_runs_up_to_a_bad_line)
{
    refused(FROM_PIPE, "op passthrough\nwm 0 7\nwm 0 bad\nwm 0 9\n", "wm 7\n",
            "<stdin>:3: watermark 'bad' is not a number (nor MIN or MAX)\n");
}

/* The same script from a regular file on standard input is checked whole
 * first: nothing printed. */
Test(script_input, a_regular_file_on_stdin_is_checked_first)
{
    refused(FROM_STDIN, "op passthrough\nwm 0 7\nwm 0 bad\nwm 0 9\n", "",
            "<stdin>:3: watermark 'bad' is not a number (nor MIN or MAX)\n");
}

/* ---- the line counter ----------------------------------------------------- */

/* 2^31 + 1 blank lines, then a bad one: its message names line
 * 2 147 483 651 (an int counter overflowed). The blank lines come from a
 * child writing one 64 KiB block of newlines after another. */
Test(script_input, line_numbers_past_2_to_the_31, .timeout = 300)
{
    int to[2];
    cr_assert_eq(pipe(to), 0);
    pid_t writer = fork();
    cr_assert(writer >= 0);
    if (writer == 0) {
        close(to[0]);
        static char nl[65536];
        memset(nl, '\n', sizeof nl);
        if (write(to[1], "op passthrough\n", 15) != 15)
            _exit(1);
        unsigned long long left = (1ull << 31) + 1;
        while (left) {
            size_t n = left < sizeof nl ? (size_t)left : sizeof nl;
            ssize_t w = write(to[1], nl, n);
            if (w <= 0)
                _exit(1);
            left -= (unsigned long long)w;
        }
        if (write(to[1], "bogus\n", 6) != 6)
            _exit(1);
        _exit(0);
    }
    close(to[1]);
    char errpath[128];
    snprintf(errpath, sizeof errpath, "/tmp/weir_script_input_%d_lines.err", (int)getpid());
    pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        dup2(to[0], 0);
        close(to[0]);
        int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0)
            _exit(126);
        dup2(fd, 2);
        execl(WEIR_BIN, "weir", "script", "-", (char *)NULL);
        _exit(127);
    }
    close(to[0]);
    int st;
    cr_assert_eq(waitpid(child, &st, 0), child);
    waitpid(writer, NULL, 0);
    char err[512];
    tu_slurp(errpath, err, sizeof err);
    unlink(errpath);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "status %d, stderr: %s", st, err);
    cr_assert_str_eq(err, "<stdin>:2147483651: unknown command 'bogus' (expected rec, wm, "
                          "idle, active, time or end)\n");
}

/* ---- escaping ------------------------------------------------------------- */

/* A key with an escape sequence, a C1 control (CSI, as UTF-8) and a
 * right-to-left override: each is written as the \xNN of its bytes; plain
 * UTF-8 text passes as it is. */
Test(script_input, messages_escape_control_bytes)
{
    refused(FROM_STDIN, "op passthrough\nrec 0 1 key=\x1b[2J\xc2\x9b\xe2\x80\xae-\xc3\xa9\x01\n", "",
            "<stdin>:2: key '\\x1b[2J\\xc2\\x9b\\xe2\\x80\\xae-\xc3\xa9\\x01': keys are words of "
            "letters, digits, '_' and '-'\n");
}

/* Bytes that are not UTF-8: 0xff, and a lone continuation byte. */
Test(script_input, messages_escape_invalid_utf8)
{
    refused(FROM_STDIN, "op passthrough\nwm 0 \xff\x80" "7\n", "",
            "<stdin>:2: watermark '\\xff\\x80" "7' is not a number (nor MIN or MAX)\n");
}
