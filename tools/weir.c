/* weir.c — the `weir` command line: dispatches to its subcommands.
 *
 *   weir script FILE|-      run one operator on a scripted input (SCRIPT.md)
 *   weir demo [--out DIR]   the flagship watermark experiments
 *   weir capture ...        convert, validate and summarize captures
 */
#include <stdio.h>
#include <string.h>

#include <weir.h>

#include "capture.h"
#include "demo.h"
#include "script.h"

static int usage(FILE *out)
{
    fprintf(out, "usage: weir COMMAND [ARGS]\n"
                 "\n"
                 "commands:\n"
                 "  script FILE|-     run one operator on a scripted input and print its output\n"
                 "  demo [--out DIR]  the idle-partition and lateness experiments, with captures\n"
                 "  capture ...       convert, validate and summarize captures (convert IN OUT,\n"
                 "                    validate FILE, summary FILE)\n"
                 "\n"
                 "Run 'weir COMMAND --help' for a command's options.\n");
    return out == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0)
        return usage(stdout);
    if (strcmp(cmd, "script") == 0)
        return weir_script_main(argc - 1, argv + 1);
    if (strcmp(cmd, "demo") == 0)
        return weir_demo_main(argc - 1, argv + 1);
    if (strcmp(cmd, "capture") == 0)
        return weir_capture_main(argc - 1, argv + 1);
    fprintf(stderr, "weir: unknown command '%s'\n", cmd);
    return usage(stderr);
}
