/* script.h — `weir script`, the scripted operator harness (script.c). */
#ifndef WEIR_TOOLS_SCRIPT_H
#define WEIR_TOOLS_SCRIPT_H

#include <stdio.h>

int weir_script_main(int argc, char **argv);
/* Runs the script read from `in` (named `name` in messages), printing the
 * operator's output to stdout: the exit status of `weir script` (0, 1 or
 * 2, messages on stderr). Output that could not be written stops it
 * with 1 and no message: the caller flushes stdout and says why (weir.c).
 * The fuzz target and the allocation-failure test call it in process: it
 * keeps no state between calls. */
int weir_script_run(FILE *in, const char *name);

#endif
