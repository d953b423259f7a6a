/* script_ops.h — the operators `weir script` can run: their `op` statement
 * parsed (into script_parse.h's weir_script_op), and how each becomes a
 * harness whose output is printed in SCRIPT.md's format (script_ops.c). */
#ifndef WEIR_TOOLS_SCRIPT_OPS_H
#define WEIR_TOOLS_SCRIPT_OPS_H

#include <stddef.h>

#include <weir.h>

#include "script_parse.h"

/* Parses the words after `op`. 0, or with why: WEIR_EINVAL (-1) for a
 * malformed or invalid setting, WEIR_ENOMEM when memory ran out. */
int weir_script_op_parse(weir_script_op *op, char **tok, int n, char *why, size_t whysize);

/* The harness for the operator, printing its output to stdout. 0, or a
 * weir error code with why (WEIR_ENOMEM: out of memory). */
int weir_script_op_harness(const weir_script_op *op, weir_harness **out, char *why,
                           size_t whysize);

#endif
