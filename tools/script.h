/* script.h — `weir script`, the scripted operator harness (script.c). */
#ifndef WEIR_TOOLS_SCRIPT_H
#define WEIR_TOOLS_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The size of a buffer for a message about one script line: a line is at
 * most 4096 characters, and a message echoes at most two of its parts. */
#define WEIR_SCRIPT_WHY (2 * 4096 + 512)

int weir_script_main(int argc, char **argv);
/* Runs the script read from `in` (named `name` in messages), printing the
 * operator's output to stdout: the exit status of `weir script` (0, 1 or
 * 2, messages on stderr). Output that could not be written stops it
 * with 1 and no message: the caller flushes stdout and says why (weir.c).
 * The fuzz target and the allocation-failure test call it in process: it
 * keeps no state between calls. */
int weir_script_run(FILE *in, const char *name);

/* Parses a whole token as a signed 64-bit integer (MIN and MAX too if
 * `words`). 0, or -1 with the reason in `why`. */
int weir_script_parse_int(const char *tok, bool words, int64_t *out, char *why, size_t whysize);
/* Parses a whole token as a count or index: decimal digits only, no sign
 * (so "-0" and "+3" are refused), at most 9 digits. Returns 0, or
 * writes why into `why`. */
int weir_script_parse_index(const char *tok, int *out, char *why, size_t whysize);

#endif
