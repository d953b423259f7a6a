/* weir.c — the `weir` command line: dispatches to its subcommands.
 *
 *   weir script FILE|-      run one operator on a scripted input (SCRIPT.md)
 *   weir demo [--out DIR]   the flagship watermark experiments
 *   weir capture ...        convert, validate and summarize captures
 *   weir sql FILE|-|-e SQL  run SQL statements, print each query's changelog
 *   weir checkpoint inspect PATH   the checkpoints in a folder, file by file
 *   weir nexmark OPTION=VALUE ... [-o FILE]   the events of a 'nexmark' table,
 *                           one JSON object a line
 *   weir --version          the version of weir (the library's, and the
 *                           headers' if they differ)
 *
 * Whatever the command, what it wrote to standard output must have got
 * there: standard output is flushed and closed before the exit, and a write
 * that failed (a full disk, a closed pipe, `> /dev/full`) is exit status 1
 * with the reason on stderr, even when the command itself succeeded. A pipe
 * whose reader has gone is said as a broken pipe (EPIPE: SIGPIPE ignored, as
 * under a supervisor), once, and the command stops writing: exit status 1,
 * as GNU's tools do then ("write error: Broken pipe").
 *
 * SIGINT and SIGTERM stop any command (signals.h): a job that runs is
 * cancelled and its capture finished, marked cancelled; a command reading or
 * writing files stops at its next event and leaves no output half-written;
 * the exit status is 128 + the signal (130 for SIGINT, 143 for SIGTERM); but
 * `weir sql` stops a query that runs with checkpoints where it can resume
 * (at a savepoint, or after its last checkpoint), says where, and exits 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <weir.h>
#include <weir/nexmark.h>

#include "capture.h"
#include "checkpoint.h"
#include "demo.h"
#include "message.h"
#include "nexmark.h"
#include "script.h"
#include "signals.h"
#include "sql.h"

static int usage(FILE *out)
{
    fprintf(out, "usage: weir COMMAND [ARGS]\n"
                 "\n"
                 "commands:\n"
                 "  script FILE|-     run one operator on a scripted input and print its output\n"
                 "  demo [--out DIR]  the idle-partition and lateness experiments, with captures\n"
                 "  capture ...       convert, validate and summarize captures (convert IN OUT,\n"
                 "                    validate FILE, summary FILE)\n"
                 "  sql FILE|-        run SQL statements (or -e 'SQL') and print each query's\n"
                 "                    changelog\n"
                 "  checkpoint inspect PATH\n"
                 "                    the checkpoints in a folder, file by file, and which one a\n"
                 "                    restore would take\n"
                 "  nexmark OPTION=VALUE ... [-o FILE]\n"
                 "                    the events of a 'nexmark' table with these options, one\n"
                 "                    JSON object a line\n"
                 "\n"
                 "Run 'weir COMMAND --help' for a command's options; 'weir --version' prints\n"
                 "weir's version.\n");
    return out == stdout ? 0 : 2;
}

/* Flushes and closes standard output: the command's status, or 1 when
 * something written there was lost. `who` names the command in the message
 * ("weir capture"), which says why: a pipe whose reader has gone is a
 * broken pipe (with SIGPIPE ignored, as under a supervisor; by default the
 * signal ends weir at the first such write, as it ends any tool). Said once:
 * not again when the command already said it. */
static int close_stdout(const char *who, int status)
{
    /* a write that failed before (stdio keeps the flag, not the errno) */
    bool bad = ferror(stdout) != 0;
    int err = 0;
    errno = 0;
    if (fflush(stdout) != 0) {
        bad = true;
        err = errno;
    }
    if (bad && !err)
        err = weir_tool_lost_write_errno(stdout);
    if (fclose(stdout) != 0 && !bad) {
        bad = true;
        err = errno;
    }
    if (!bad)
        return status;
    if (!weir_tool_stdout_was_said())
        fprintf(stderr, "%s: cannot write to standard output: %s\n", who,
                weir_tool_strerror(err ? err : EIO));
    return status ? status : 1;
}

static int command(int argc, char **argv)
{
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0)
        return usage(stdout);
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        /* The library it runs with may be newer than the one it was built
         * against (another libweir.so of the same ABI): say both then. */
        const char *lib = weir_version();
        if (strcmp(lib, WEIR_VERSION_STRING) == 0)
            printf("weir %s\n", lib);
        else
            printf("weir %s (built with weir %s)\n", lib, WEIR_VERSION_STRING);
        return 0;
    }
    if (strcmp(cmd, "script") == 0)
        return weir_script_main(argc - 1, argv + 1);
    if (strcmp(cmd, "demo") == 0)
        return weir_demo_main(argc - 1, argv + 1);
    if (strcmp(cmd, "capture") == 0)
        return weir_capture_main(argc - 1, argv + 1);
    if (strcmp(cmd, "sql") == 0)
        return weir_sql_main(argc - 1, argv + 1);
    if (strcmp(cmd, "checkpoint") == 0)
        return weir_checkpoint_main(argc - 1, argv + 1);
    if (strcmp(cmd, "nexmark") == 0)
        return weir_nexmark_main(argc - 1, argv + 1);
    weir_tool_error("weir: unknown command '%s'", cmd);
    return usage(stderr);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    /* every connector weir has, for `weir sql` (weir/connector.h) */
    if (weir_file_register_connectors() != 0 || weir_kafka_register_connectors() != 0 ||
        weir_nexmark_register_connectors() != 0) {
        weir_tool_error("weir: out of memory");
        return 1;
    }
    const char *cmd = argv[1];
    char who[64] = "weir";
    if (strcmp(cmd, "script") == 0 || strcmp(cmd, "demo") == 0 || strcmp(cmd, "capture") == 0 ||
        strcmp(cmd, "sql") == 0 || strcmp(cmd, "checkpoint") == 0 ||
        strcmp(cmd, "nexmark") == 0)
        snprintf(who, sizeof who, "weir %s", cmd);
    weir_cli_signals_install();
    int status = close_stdout(who, command(argc, argv));
    int sig = weir_cli_stopped();
    if (sig) {
        fprintf(stderr, "%s: stopped by %s\n", who, sig == SIGINT ? "SIGINT" : "SIGTERM");
        return 128 + sig;
    }
    return status;
}
